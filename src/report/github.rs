//! GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=…::message`.
//!
//! The runner turns each line into an annotation on the pull request or run. What a finding
//! quotes is shown with [`escape::text`]'s escapes, then property values and messages are
//! escaped as GitHub's toolkit does ([`escape::workflow_property`], [`escape::workflow_data`]),
//! and each line is written with [`Output::command`], the one way a workflow command gets out.
//! The message repeats `file:line:col`, because annotations beyond GitHub's per-step cap show
//! only in the log.
//!
//! GitHub shows at most [`ANNOTATION_CAP`] errors, as many warnings and as many notices per step
//! and drops the rest silently, so [`cap_annotations`] splits diagnostics into the ones to
//! annotate and the rest, which callers print as plain log lines ([`log_line`]) and count in the
//! summary.

use std::io;

use crate::diagnostic::{Diagnostic, Severity, Summary};
use crate::escape::{self, Output};

/// The workflow command for a severity.
pub(crate) fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

/// One annotation line (without the newline).
pub(crate) fn annotation(d: &Diagnostic) -> String {
    let mut properties = Vec::new();
    let file = d.file_name().map(escape::text);
    if let Some(file) = &file {
        properties.push(format!("file={}", escape::workflow_property(file)));
    }
    let mut location = file.as_deref().unwrap_or_default().to_string();
    if let (Some(file), Some(span)) = (&d.file, d.span) {
        let start = file.position(span.start);
        let end = file.position(span.end);
        properties.push(format!("line={}", start.line));
        properties.push(format!("col={}", start.column));
        if end.line != start.line {
            properties.push(format!("endLine={}", end.line));
        } else if end.column > start.column {
            properties.push(format!("endColumn={}", end.column));
        }
        location = format!("{location}:{}:{}", start.line, start.column);
    }
    let title = match &d.waived {
        Some(_) => format!("{} {} (waived)", d.rule, d.severity),
        None => d.rule.to_string(),
    };
    properties.push(format!("title={}", escape::workflow_property(&title)));
    // The line breaks are capkg's own; the texts' are shown as escapes.
    let mut message = escape::text(&d.message).into_owned();
    if !location.is_empty() {
        message = format!("{location}: {message}");
    }
    if let Some(reason) = &d.waived {
        message.push_str("\nwaived: ");
        message.push_str(&escape::text(reason));
    } else if !d.help.is_empty() {
        message.push_str("\nhelp: ");
        message.push_str(&escape::text(&d.help));
    }
    // A waived finding is a notice whatever its severity: shown, never failing the check.
    let severity = if d.waived.is_some() {
        Severity::Info
    } else {
        d.severity
    };
    format!(
        "::{} {}::{}",
        command(severity),
        properties.join(","),
        escape::workflow_data(&message)
    )
}

pub(crate) fn write_diagnostics(
    out: &mut dyn Output,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> io::Result<()> {
    for d in diagnostics {
        out.command(&annotation(d))?;
    }
    writeln!(
        out,
        "capkg: {} error{}, {} warning{}{} in {} file{}",
        summary.errors,
        plural(summary.errors),
        summary.warnings,
        plural(summary.warnings),
        if summary.waived > 0 {
            format!(", {} waived", summary.waived)
        } else {
            String::new()
        },
        summary.files,
        plural(summary.files)
    )
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// How many annotations of one severity GitHub shows per step.
pub(crate) const ANNOTATION_CAP: usize = 10;

/// Diagnostics split by GitHub's per-step caps.
#[derive(Debug, Default)]
pub(crate) struct Capped<'d> {
    /// Annotate these (at most [`ANNOTATION_CAP`] per severity), in the order given.
    pub annotated: Vec<&'d Diagnostic>,
    /// GitHub would drop annotations for these: print them as log lines.
    pub overflow: Vec<&'d Diagnostic>,
}

impl Capped<'_> {
    /// `"3 errors, 1 warning"` not shown as annotations, or `None`.
    pub(crate) fn overflow_note(&self) -> Option<String> {
        if self.overflow.is_empty() {
            return None;
        }
        let count = |s| self.overflow.iter().filter(|d| d.severity == s).count();
        let parts: Vec<String> = [
            (count(Severity::Error), "error"),
            (count(Severity::Warning), "warning"),
            (count(Severity::Info), "notice"),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}{}", if n == 1 { "" } else { "s" }))
        .collect();
        Some(format!(
            "{} more not shown as annotations (GitHub shows at most {ANNOTATION_CAP} of each kind per step); they are listed in the log and the step summary",
            parts.join(", ")
        ))
    }
}

/// The first [`ANNOTATION_CAP`] diagnostics of each severity, and the rest.
pub(crate) fn cap_annotations(diagnostics: &[Diagnostic]) -> Capped<'_> {
    let mut capped = Capped::default();
    let mut seen = [0usize; 3];
    for d in diagnostics {
        let slot = match d.severity {
            _ if d.waived.is_some() => 2,
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Info => 2,
        };
        if let Some(count) = seen.get_mut(slot) {
            *count += 1;
            if *count <= ANNOTATION_CAP {
                capped.annotated.push(d);
                continue;
            }
        }
        capped.overflow.push(d);
    }
    capped
}

/// A diagnostic as one plain log line: `file:line:col: severity[rule]: message`, what it quotes
/// shown as [`escape::text`] shows it.
pub(crate) fn log_line(d: &Diagnostic) -> String {
    let mut place = escape::text(d.file_name().unwrap_or_default()).into_owned();
    if let Some(position) = d.position() {
        place = format!("{place}:{}:{}", position.line, position.column);
    }
    let place = if place.is_empty() {
        String::new()
    } else {
        format!("{place}: ")
    };
    format!(
        "{place}{}[{}]: {}",
        d.severity,
        d.rule,
        escape::text(&d.message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Source, Span};
    use std::sync::Arc;

    /// A line break in a message is shown as `\n` (it is the text's, not capkg's); capkg's own
    /// before `help:` is the annotation's second line.
    #[test]
    fn annotations_are_escaped() {
        let source = Arc::new(Source::new("dir,a/x:y.yaml", "a: 1\nb: 2\n"));
        let d = Diagnostic::new(
            "components/single-namespace",
            Severity::Error,
            Some(source),
            Some(Span::new(5, 6)),
            "100% wrong\nsecond line",
            "do this",
        );
        let line = annotation(&d);
        assert_eq!(
            line,
            "::error file=dir%2Ca/x%3Ay.yaml,line=2,col=1,endColumn=2,title=components/single-namespace::dir,a/x:y.yaml:2:1: 100%25 wrong\\nsecond line%0Ahelp: do this"
        );
    }

    #[test]
    fn what_a_finding_quotes_cannot_end_its_annotation() {
        let source = Arc::new(Source::new("a\u{1b}]0;t\u{7},b.yaml", "a: 1\n"));
        let mut d = Diagnostic::new(
            "components/image-reference",
            Severity::Error,
            Some(source),
            Some(Span::new(0, 1)),
            "image `x\n::warning::pwned\r\n##[error]y\u{1b}[2J` is not canonical",
            "",
        );
        d.waived = Some("reason\n::stop-commands::t".into());
        assert_eq!(
            annotation(&d),
            "::notice file=a\\u{1b}]0;t\\u{7}%2Cb.yaml,line=1,col=1,endColumn=2,title=components/image-reference error (waived)::a\\u{1b}]0;t\\u{7},b.yaml:1:1: image `x\\n::warning::pwned\\r\\n##[error]y\\u{1b}[2J` is not canonical%0Awaived: reason\\n::stop-commands::t"
        );
    }

    #[test]
    fn severities_map_to_commands() {
        assert_eq!(command(Severity::Warning), "warning");
        assert_eq!(command(Severity::Info), "notice");
        let d = Diagnostic::new("metadata/missing", Severity::Warning, None, None, "m", "");
        assert_eq!(annotation(&d), "::warning title=metadata/missing::m");
    }

    #[test]
    fn waived_findings_are_notices_with_their_reason() {
        let mut d = Diagnostic::new("metadata/missing", Severity::Error, None, None, "m", "h");
        d.waived = Some("not ours".into());
        assert_eq!(
            annotation(&d),
            "::notice title=metadata/missing error (waived)::m%0Awaived: not ours"
        );
    }

    fn diagnostic(severity: Severity, n: usize) -> Diagnostic {
        let source = Arc::new(Source::new("metadata.yaml", "a: 1\nb: 2\n"));
        Diagnostic::new(
            "metadata/kind",
            severity,
            Some(source),
            Some(Span::new(5, 6)),
            format!("finding {n}"),
            "help",
        )
    }

    #[test]
    fn annotations_stop_at_ten_per_severity() {
        let mut all = Vec::new();
        for n in 0..13 {
            all.push(diagnostic(Severity::Error, n));
        }
        for n in 0..4 {
            all.push(diagnostic(Severity::Warning, n));
        }
        for n in 0..11 {
            all.push(diagnostic(Severity::Info, n));
        }
        let capped = cap_annotations(&all);
        let count = |list: &[&Diagnostic], s| list.iter().filter(|d| d.severity == s).count();
        assert_eq!(count(&capped.annotated, Severity::Error), 10);
        assert_eq!(count(&capped.annotated, Severity::Warning), 4);
        assert_eq!(count(&capped.annotated, Severity::Info), 10);
        assert_eq!(count(&capped.overflow, Severity::Error), 3);
        assert_eq!(count(&capped.overflow, Severity::Info), 1);
        assert_eq!(capped.overflow[0].message, "finding 10");
        let note = capped.overflow_note().unwrap();
        assert!(note.starts_with("3 errors, 1 notice more"), "{note}");
        assert!(cap_annotations(&all[..2]).overflow_note().is_none());
    }

    #[test]
    fn log_lines_name_the_place() {
        assert_eq!(
            log_line(&diagnostic(Severity::Error, 1)),
            "metadata.yaml:2:1: error[metadata/kind]: finding 1"
        );
    }
}
