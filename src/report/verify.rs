//! A verify report as Markdown, for a CI step summary. What the release and its server say is
//! escaped as [`crate::escape`] says.

use crate::escape::{cell, code_span, inline, link_destination};
use crate::verify::VerifyReport;

/// `capkg verify`'s step summary.
pub(crate) fn markdown(report: &VerifyReport) -> String {
    let mut md = String::new();
    let verdict = if report.ok { "passed" } else { "failed" };
    md.push_str(&format!(
        "### capkg verify {verdict}: {} {}\n\n",
        inline(report.provider_label.as_deref().unwrap_or("release")),
        inline(report.version.as_deref().unwrap_or(""))
    ));
    md.push_str(&format!("Source: {}\n\n", code_span(&report.source)));
    if let Some(latest) = &report.latest {
        md.push_str(&format!(
            "`latest` resolved to {}",
            code_span(&latest.version)
        ));
        if let Some(series) = &latest.contract_series {
            md.push_str(&format!(" (release series {})", inline(series)));
        }
        md.push_str(".\n\n");
    }
    if !report.files.is_empty() {
        md.push_str("| file | size | SHA-256 |\n| --- | ---: | --- |\n");
        for file in &report.files {
            let name = code_span(&file.name);
            let name = match link_destination(&file.url) {
                Some(url) => format!("[{name}]({url})"),
                None => name,
            };
            md.push_str(&format!(
                "| {} | {} | {} |\n",
                cell(&name),
                file.size,
                cell(&code_span(&file.sha256))
            ));
        }
        md.push('\n');
    }
    for check in &report.checks {
        let mark = if check.ok { "✅" } else { "❌" };
        let message = inline(&check.message);
        md.push_str(&format!("- {mark} {}: {message}\n", check.name));
    }
    md.push_str(&format!(
        "- lint: {} error(s), {} warning(s)\n",
        report.summary.errors, report.summary.warnings
    ));
    for warning in &report.warnings {
        md.push_str(&format!("- ⚠️ {}\n", inline(warning)));
    }
    md.push('\n');
    md
}
