//! A diff as a reviewer reads it: the changes as plain text grouped by section, or the whole
//! report as Markdown (a pull request comment, release notes, the CI step summary), as
//! [`crate::verify::VerifyReport::markdown`] is verify's. Findings in text are rendered by
//! [`crate::report`]. What the releases hold (names, images, labels, versions) is shown as
//! [`crate::escape`] says: [`escape::text`] in text, Markdown's escapes in Markdown.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{Change, ChangeKind, DiffReport, Section, SideInfo};
use crate::diagnostic::Diagnostic;
use crate::escape;

const SECTIONS: [Section; 6] = [
    Section::Metadata,
    Section::Objects,
    Section::Crds,
    Section::Rbac,
    Section::Images,
    Section::Templates,
];

/// The report's changes grouped by section, in [`SECTIONS`] order, empty sections left out.
fn by_section(report: &DiffReport) -> impl Iterator<Item = (Section, Vec<&Change>)> {
    SECTIONS.into_iter().filter_map(|section| {
        let changes: Vec<&Change> = report
            .changes
            .iter()
            .filter(|c| c.section == section)
            .collect();
        (!changes.is_empty()).then_some((section, changes))
    })
}

fn side_name(side: &SideInfo) -> String {
    let text = escape::text;
    match (&side.provider_label, &side.version) {
        (Some(label), Some(version)) => format!("{} {}", text(label), text(version)),
        (None, Some(version)) => text(version).into_owned(),
        (Some(label), None) => format!("{} `{}`", text(label), text(&side.source)),
        (None, None) => format!("`{}`", text(&side.source)),
    }
}

/// `infrastructure-x v1.0.0 -> v1.1.0`, as text.
pub(crate) fn title(report: &DiffReport) -> String {
    match (&report.old.provider_label, &report.new.provider_label) {
        (Some(a), Some(b)) if a == b => format!(
            "{} {} -> {}",
            escape::text(a),
            escape::text(report.old.version.as_deref().unwrap_or("(old)")),
            escape::text(report.new.version.as_deref().unwrap_or("(new)"))
        ),
        _ => format!("{} -> {}", side_name(&report.old), side_name(&report.new)),
    }
}

fn mark(change: ChangeKind) -> &'static str {
    match change {
        ChangeKind::Added => "+",
        ChangeKind::Removed => "-",
        ChangeKind::Changed => "~",
    }
}

/// `subject: old -> new` without empty halves, as text.
fn line(change: &Change, several_providers: bool) -> String {
    let mut text = String::new();
    if several_providers && !change.provider.is_empty() {
        let _ = write!(text, "[{}] ", escape::text(&change.provider));
    }
    text.push_str(&escape::text(&change.subject));
    fn shown(half: &Option<String>) -> Option<std::borrow::Cow<'_, str>> {
        half.as_deref().filter(|s| !s.is_empty()).map(escape::text)
    }
    let (old, new) = (shown(&change.old), shown(&change.new));
    match (change.change, old.as_deref(), new.as_deref()) {
        (_, Some(old), Some(new)) => {
            let _ = write!(text, ": {old} -> {new}");
        }
        (ChangeKind::Removed, Some(old), None) => {
            let _ = write!(text, " (was {old})");
        }
        (_, None, Some(new)) => {
            let _ = write!(text, ": {new}");
        }
        _ => {}
    }
    text
}

fn several_providers(report: &DiffReport) -> bool {
    let mut labels = report.changes.iter().map(|c| c.provider.as_str());
    let first = labels.next();
    labels.any(|l| Some(l) != first)
}

/// The changes as text: a header, then one block per section.
pub(crate) fn write_changes(out: &mut dyn Write, report: &DiffReport) -> io::Result<()> {
    writeln!(out, "capkg diff: {}", title(report))?;
    writeln!(out, "  old: {}", escape::text(&report.old.source))?;
    writeln!(out, "  new: {}", escape::text(&report.new.source))?;
    if report.changes.is_empty() {
        writeln!(out, "\nNo changes.")?;
    }
    let several = several_providers(report);
    for (section, changes) in by_section(report) {
        writeln!(out, "\n{}", section.title())?;
        for change in changes {
            writeln!(out, "  {} {}", mark(change.change), line(change, several))?;
        }
    }
    for warning in &report.warnings {
        writeln!(out, "warning: {}", escape::text(warning))?;
    }
    writeln!(out)
}

/// The changes and findings in a few lines each, indented: `capkg release`'s text output.
pub(crate) fn write_compact(
    out: &mut dyn Write,
    report: &DiffReport,
    indent: &str,
) -> io::Result<()> {
    let several = several_providers(report);
    for (section, changes) in by_section(report) {
        for change in changes {
            writeln!(
                out,
                "{indent}{} {} {}",
                mark(change.change),
                section.title(),
                line(change, several)
            )?;
        }
    }
    for d in &report.diagnostics {
        let waived = d.waived.as_deref().map_or_else(String::new, |reason| {
            format!(" (waived: {})", escape::text(reason))
        });
        let place = match (d.file_name(), d.position()) {
            (Some(file), Some(p)) => format!(" ({}:{})", escape::text(file), p.line),
            (Some(file), None) => format!(" ({})", escape::text(file)),
            _ => String::new(),
        };
        writeln!(
            out,
            "{indent}{} {}: {}{place}{waived}",
            d.severity,
            d.rule,
            escape::text(&d.message),
        )?;
    }
    Ok(())
}

/// The last line: what the findings mean for the release.
pub(crate) fn verdict(report: &DiffReport) -> String {
    let s = &report.summary;
    let waived = if s.waived > 0 {
        format!(", {} waived", s.waived)
    } else {
        String::new()
    };
    if report.ok {
        format!(
            "Upgrade {}: no breaking change ({} warning(s){waived}).",
            title(report),
            s.warnings
        )
    } else {
        format!(
            "Upgrade {} breaks: {} error(s), {} warning(s){waived}.",
            title(report),
            s.errors,
            s.warnings
        )
    }
}

/// ` (`file:line`)` in Markdown.
fn place(d: &Diagnostic) -> String {
    let place = match (d.file_name(), d.position()) {
        (Some(file), Some(p)) => format!("{file}:{}", p.line),
        (Some(file), None) => file.to_string(),
        _ => return String::new(),
    };
    format!(" ({})", escape::code_span(&place))
}

/// The whole report as Markdown, `heading` levels deep (`###` in a step summary).
pub(crate) fn markdown(report: &DiffReport, heading: &str) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "{heading} capkg diff: {}\n",
        escape::inline(&title(report))
    );
    let _ = writeln!(md, "{}\n", escape::inline(&verdict(report)));
    let _ = writeln!(
        md,
        "Old: {}  \nNew: {}\n",
        escape::code_span(&report.old.source),
        escape::code_span(&report.new.source)
    );
    if !report.diagnostics.is_empty() {
        let _ = writeln!(md, "{heading}# Findings\n");
        for d in &report.diagnostics {
            let icon = match (&d.waived, d.severity) {
                (Some(_), _) => "☑️",
                (None, crate::diagnostic::Severity::Error) => "❌",
                (None, crate::diagnostic::Severity::Warning) => "⚠️",
                (None, crate::diagnostic::Severity::Info) => "ℹ️",
            };
            let message = escape::inline(&d.message);
            let _ = write!(md, "- {icon} `{}` {message}{}", d.rule, place(d));
            if let Some(reason) = &d.waived {
                let _ = write!(md, " — waived: {}", escape::inline(reason));
            }
            md.push('\n');
        }
        md.push('\n');
    }
    let several = several_providers(report);
    for (section, changes) in by_section(report) {
        let _ = writeln!(
            md,
            "{heading}# {} ({})\n\n| | change |\n| --- | --- |",
            section.title(),
            changes.len()
        );
        for change in changes {
            let _ = writeln!(
                md,
                "| {} | {} |",
                mark(change.change),
                escape::cell(&escape::inline(&line(change, several)))
            );
        }
        md.push('\n');
    }
    if report.changes.is_empty() {
        md.push_str("No changes.\n\n");
    }
    for warning in &report.warnings {
        let _ = writeln!(md, "- ⚠️ {}", escape::inline(warning));
    }
    md
}
