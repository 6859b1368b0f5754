//! Human output: each finding as a miette diagnostic with its source snippet, then a summary.
//!
//! The file text joins the finding only here, at render time; many findings share one
//! `Arc<Source>`. Colour is a choice made by the caller (terminal, `NO_COLOR`, `--color`).

use std::fmt;
use std::io::{self, Write};
use std::sync::Arc;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, NamedSource, SourceCode,
    SourceSpan, SpanContents,
};

use super::Style;
use crate::rules::{Diagnostic, Severity, Summary};
use crate::yaml::Source;

/// A source shared with the loader, readable by miette.
#[derive(Debug, Clone)]
struct SharedSource(Arc<Source>);

impl SourceCode for SharedSource {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        self.0
            .text()
            .read_span(span, context_lines_before, context_lines_after)
    }
}

/// A [`Diagnostic`] as miette wants to see it.
struct View<'a> {
    diagnostic: &'a Diagnostic,
    source: Option<NamedSource<SharedSource>>,
}

impl fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl fmt::Display for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diagnostic.message)
    }
}

impl std::error::Error for View<'_> {}

impl miette::Diagnostic for View<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        match &self.diagnostic.waived {
            Some(_) => Some(Box::new(format!(
                "{} {} (waived)",
                self.diagnostic.rule, self.diagnostic.severity
            ))),
            None => Some(Box::new(self.diagnostic.rule)),
        }
    }

    fn severity(&self) -> Option<miette::Severity> {
        if self.diagnostic.waived.is_some() {
            return Some(miette::Severity::Advice);
        }
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        if let Some(reason) = &self.diagnostic.waived {
            return Some(Box::new(format!("waived: {reason}")));
        }
        (!self.diagnostic.help.is_empty())
            .then(|| Box::new(&self.diagnostic.help) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let span = self.diagnostic.span?;
        self.source.as_ref()?;
        let text_len = self.diagnostic.file.as_ref().map_or(0, |f| f.text().len());
        let clamp = move |s: crate::yaml::Span| {
            let start = s.start.min(text_len);
            // miette underlines whole lines for long spans; keep labels on one line.
            let end = s.end.min(text_len).max(start);
            let end = self.diagnostic.file.as_ref().map_or(end, |f| {
                let line_end = f.text()[start..].find('\n').map_or(text_len, |i| start + i);
                end.min(line_end)
            });
            SourceSpan::from(start..end)
        };
        let primary = LabeledSpan::new_primary_with_span(None, clamp(span));
        let others = self
            .diagnostic
            .labels
            .iter()
            .map(move |l| LabeledSpan::new_with_span(Some(l.message.clone()), clamp(l.span)));
        Some(Box::new(std::iter::once(primary).chain(others)))
    }
}

fn handler(style: Style) -> GraphicalReportHandler {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        .with_context_lines(1)
        .with_links(false)
}

/// Renders one diagnostic to text.
pub fn render(style: Style, diagnostic: &Diagnostic) -> String {
    let has_span = diagnostic.span.is_some() && diagnostic.file.is_some();
    let source = diagnostic
        .file
        .as_ref()
        .filter(|_| has_span)
        .map(|f| NamedSource::new(f.name(), SharedSource(f.clone())));
    let view = View { diagnostic, source };
    let mut text = String::new();
    if handler(style).render_report(&mut text, &view).is_err() {
        text = format!("{}: {}\n", diagnostic.rule, diagnostic.message);
    }
    if !has_span && let Some(name) = diagnostic.file_name() {
        {
            // No snippet to show the file name: say it under the message.
            let mut lines: Vec<&str> = text.lines().collect();
            let at = format!("  in `{name}`");
            let insert_at = lines.len().min(1);
            lines.insert(insert_at, &at);
            return lines.join("\n") + "\n";
        }
    }
    text
}

pub fn write_diagnostics(
    out: &mut dyn Write,
    style: Style,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> io::Result<()> {
    for d in diagnostics {
        writeln!(out, "{}", render(style, d).trim_end())?;
        writeln!(out)?;
    }
    writeln!(out, "{}", summary_line(summary))
}

/// `2 errors, 1 warning in 5 files` or `no problems in 5 files`.
pub fn summary_line(summary: &Summary) -> String {
    let files = format!("{} file{}", summary.files, plural(summary.files));
    let mut parts = Vec::new();
    if summary.errors > 0 {
        parts.push(format!(
            "{} error{}",
            summary.errors,
            plural(summary.errors)
        ));
    }
    if summary.warnings > 0 {
        parts.push(format!(
            "{} warning{}",
            summary.warnings,
            plural(summary.warnings)
        ));
    }
    if summary.infos > 0 {
        parts.push(format!("{} note{}", summary.infos, plural(summary.infos)));
    }
    if summary.waived > 0 {
        parts.push(format!("{} waived", summary.waived));
    }
    if parts.is_empty() {
        format!("no problems in {files}")
    } else {
        format!("{} in {files}", parts.join(", "))
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Span;

    #[test]
    fn renders_snippet_rule_and_help_without_colour() {
        let text = "kind: Namespace\nmetadata:\n  name: a\n";
        let source = Arc::new(Source::new("infrastructure-components.yaml", text));
        let start = text.find("a\n").unwrap();
        let mut d = Diagnostic::new(
            "components/single-namespace",
            Severity::Error,
            Some(source),
            Some(Span::new(start, start + 1)),
            "two Namespaces",
            "keep one",
        );
        d.with_label(Span::new(0, 4), "first here");
        let out = render(Style::plain(), &d);
        assert!(out.contains("components/single-namespace"), "{out}");
        assert!(out.contains("two Namespaces"), "{out}");
        assert!(out.contains("infrastructure-components.yaml:3:9"), "{out}");
        assert!(out.contains("name: a"), "{out}");
        assert!(out.contains("first here"), "{out}");
        assert!(out.contains("keep one"), "{out}");
        assert!(
            !out.contains('\u{1b}'),
            "no escape codes without colour: {out}"
        );
    }

    #[test]
    fn file_level_findings_name_the_file() {
        let source = Arc::new(Source::new("rel/metadata.yaml", ""));
        let d = Diagnostic::new(
            "metadata/missing",
            Severity::Warning,
            Some(source),
            None,
            "missing",
            "add it",
        );
        let out = render(Style::plain(), &d);
        assert!(out.contains("in `rel/metadata.yaml`"), "{out}");
    }

    #[test]
    fn waived_findings_say_so_with_their_reason() {
        let mut d = Diagnostic::new(
            "templates/single-namespace",
            Severity::Error,
            None,
            None,
            "two namespaces",
            "fix it",
        );
        d.waived = Some("clusterctl moves them".into());
        let out = render(Style::plain(), &d);
        assert!(
            out.contains("templates/single-namespace error (waived)"),
            "{out}"
        );
        assert!(out.contains("waived: clusterctl moves them"), "{out}");
        assert!(!out.contains("fix it"), "{out}");
    }

    #[test]
    fn summary_lines() {
        let summary = Summary {
            errors: 2,
            warnings: 1,
            infos: 0,
            waived: 0,
            files: 1,
        };
        assert_eq!(summary_line(&summary), "2 errors, 1 warning in 1 file");
        assert_eq!(
            summary_line(&Summary {
                waived: 2,
                ..summary
            }),
            "2 errors, 1 warning, 2 waived in 1 file"
        );
        assert_eq!(
            summary_line(&Summary {
                files: 3,
                ..Summary::default()
            }),
            "no problems in 3 files"
        );
    }
}
