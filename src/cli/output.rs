//! How a command's findings reach the reader, the same for every command that prints them:
//! GitHub annotations within GitHub's caps, or text in the style the terminal or CI log takes.

use super::GlobalArgs;
use crate::ci::CiContext;
use crate::diagnostic::{Diagnostic, Summary};
use crate::escape::Output;
use crate::report::{self, Format, Style};

/// Annotations in GitHub Actions or with `--format github`.
pub(super) fn uses_annotations(global: &GlobalArgs, ci: &CiContext) -> bool {
    global.format == Format::Github || (global.format == Format::Human && ci.is_github())
}

/// Plain text in CI logs (GitLab renders no escape codes reliably in every viewer).
pub(super) fn plain_style(global: &GlobalArgs, ci: &CiContext) -> Style {
    if ci.system.is_some() {
        Style::plain()
    } else {
        Style::for_stdout(global.color)
    }
}

/// The first annotations of each severity as workflow commands, the rest as log lines, then a
/// note saying how many were not annotated.
pub(super) fn write_annotations(
    out: &mut dyn Output,
    diagnostics: &[Diagnostic],
) -> std::io::Result<()> {
    let capped = report::github::cap_annotations(diagnostics);
    for d in &capped.annotated {
        out.command(&report::github::annotation(d))?;
    }
    for d in &capped.overflow {
        writeln!(out, "{}", report::github::log_line(d))?;
    }
    if let Some(note) = capped.overflow_note() {
        writeln!(out, "{note}")?;
    }
    let summary = Summary::of(diagnostics, 0);
    writeln!(
        out,
        "capkg: {} error(s), {} warning(s)",
        summary.errors, summary.warnings
    )
}
