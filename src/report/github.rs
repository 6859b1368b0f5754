//! GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=…::message`.
//!
//! The runner turns each line into an annotation on the pull request or run. Property values and
//! messages are escaped differently (GitHub's toolkit: `%`, CR and LF everywhere; `:` and `,` in
//! properties too). The message repeats `file:line:col`, because annotations beyond GitHub's
//! per-step cap show only in the log.

use std::io::{self, Write};

use crate::diagnostic::{Diagnostic, Severity, Summary};

/// Escapes a message (the part after `::`).
pub(crate) fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`file=…`, `title=…`).
pub(crate) fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

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
    if let Some(file) = d.file_name() {
        properties.push(format!("file={}", escape_property(file)));
    }
    let mut location = d.file_name().unwrap_or_default().to_string();
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
    properties.push(format!("title={}", escape_property(&title)));
    let mut message = d.message.clone();
    if !location.is_empty() {
        message = format!("{location}: {message}");
    }
    if let Some(reason) = &d.waived {
        message.push_str("\nwaived: ");
        message.push_str(reason);
    } else if !d.help.is_empty() {
        message.push_str("\nhelp: ");
        message.push_str(&d.help);
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
        escape_data(&message)
    )
}

pub(crate) fn write_diagnostics(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> io::Result<()> {
    for d in diagnostics {
        writeln!(out, "{}", annotation(d))?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Source, Span};
    use std::sync::Arc;

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
            "::error file=dir%2Ca/x%3Ay.yaml,line=2,col=1,endColumn=2,title=components/single-namespace::dir,a/x:y.yaml:2:1: 100%25 wrong%0Asecond line%0Ahelp: do this"
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
}
