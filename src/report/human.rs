//! Human output: each finding as a miette diagnostic with its source snippet, then a summary.
//!
//! The file text joins the finding only here, at render time; many findings share one
//! `Arc<Source>`. Colour is a choice made by the caller (terminal, `NO_COLOR`, `--color`).
//! Messages, help, labels, file names and the snippet's source lines are shown with
//! [`escape::text`]'s escapes: a release file may hold any character, in its text as in the
//! values a message quotes.

use std::fmt;
use std::io::{self, Write};

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError, MietteSpanContents,
    SourceCode, SourceSpan, SpanContents,
};

use super::Style;
use crate::diagnostic::{Diagnostic, Severity, Summary};
use crate::escape;
use crate::yaml::Source;

/// Bytes of a line a snippet shows at most; longer lines are cut around the finding.
const MAX_LINE: usize = 160;
/// Bytes a cut line keeps before its first finding.
const BEFORE_FINDING: usize = 60;
/// Marks where a cut line goes on.
const ELLIPSIS: &str = "…";

/// The lines a diagnostic shows, copied out of its source: the lines of its spans with one line
/// of context each, every line cut to at most [`MAX_LINE`] bytes around its findings.
///
/// miette reads snippets through [`SourceCode::read_span`]; given the whole file it scans from
/// the start for every finding (quadratic in the file size), and it pads underlines with a
/// format width, which panics beyond 65535 columns. An excerpt costs a lookup in the source's
/// line-start table and a few short lines, wherever the finding is.
#[derive(Debug)]
struct Excerpt {
    name: String,
    text: String,
    lines: Vec<ExcerptLine>,
    /// Column (0-based, in characters) of each span's start, by the span's excerpt offset.
    columns: Vec<(usize, usize)>,
}

#[derive(Debug, Clone)]
struct ExcerptLine {
    /// Where the line starts and ends (before its `\n`) in the excerpt.
    at: usize,
    end: usize,
    /// Where the copied source text starts in the excerpt (after a leading ellipsis).
    content: usize,
    /// The copied range of the source, and the whole source line (without its break).
    source: (usize, usize),
    line_bounds: (usize, usize),
    /// 0-based source line, and which run of consecutive lines it belongs to.
    line: usize,
    run: usize,
    /// Where the copied text holds a character shown as an escape: its source offset and the
    /// bytes the escape adds (its length less the character's). Empty for ordinary lines.
    escapes: Vec<(usize, usize)>,
}

impl Excerpt {
    /// `spans` are source spans, each within one line.
    fn new(source: &Source, spans: &[crate::yaml::Span]) -> Self {
        let text = source.text();
        let line_count = source.position(text.len()).line;
        let mut wanted: std::collections::BTreeMap<usize, Vec<crate::yaml::Span>> =
            std::collections::BTreeMap::new();
        for span in spans {
            let line = source.position(span.start).line - 1;
            wanted.entry(line).or_default().push(*span);
            for context in [line.saturating_sub(1), line + 1] {
                // The empty "line" after a final line break is no context.
                let starts_text = source
                    .line_start(context + 1)
                    .is_some_and(|start| start < text.len());
                if context < line_count && starts_text {
                    wanted.entry(context).or_default();
                }
            }
        }
        let mut excerpt = Excerpt {
            name: escape::text(source.name()).into_owned(),
            text: String::new(),
            lines: Vec::new(),
            columns: Vec::new(),
        };
        let mut run = 0;
        let mut previous: Option<usize> = None;
        for (&line, on_line) in &wanted {
            if previous.is_some_and(|p| p + 1 != line) {
                run += 1;
            }
            previous = Some(line);
            let start = source.line_start(line + 1).unwrap_or(text.len());
            let end = source
                .line_start(line + 2)
                .map_or(text.len(), |next| next - 1);
            let end = if text.as_bytes().get(end.wrapping_sub(1)) == Some(&b'\r') && end > start {
                end - 1
            } else {
                end
            };
            let (from, to) = window(text, start, end, on_line);
            let at = excerpt.text.len();
            if from > start {
                excerpt.text.push_str(ELLIPSIS);
            }
            let content = excerpt.text.len();
            let escapes = push_shown(&mut excerpt.text, &text[from..to], from);
            if to < end {
                excerpt.text.push_str(ELLIPSIS);
            }
            excerpt.lines.push(ExcerptLine {
                at,
                end: excerpt.text.len(),
                content,
                source: (from, to),
                line_bounds: (start, end),
                line,
                run,
                escapes,
            });
            excerpt.text.push('\n');
        }
        for span in spans {
            if let Some(offset) = excerpt.map(span.start) {
                excerpt
                    .columns
                    .push((offset, source.position(span.start).column - 1));
            }
        }
        excerpt
    }

    /// A source offset's place in the excerpt: clamped into the copied part of its line.
    fn map(&self, offset: usize) -> Option<usize> {
        let line = self
            .lines
            .iter()
            .find(|l| l.line_bounds.0 <= offset && offset <= l.line_bounds.1)?;
        let offset = offset.clamp(line.source.0, line.source.1);
        let added: usize = line
            .escapes
            .iter()
            .take_while(|(at, _)| *at < offset)
            .map(|(_, added)| added)
            .sum();
        Some(line.content + offset - line.source.0 + added)
    }

    fn map_span(&self, span: crate::yaml::Span) -> Option<SourceSpan> {
        let start = self.map(span.start)?;
        let end = self.map(span.end).filter(|&e| e >= start).unwrap_or(start);
        Some(SourceSpan::from(start..end))
    }

    fn line_of(&self, offset: usize) -> Option<usize> {
        self.lines
            .iter()
            .position(|l| l.at <= offset && offset <= l.end)
    }
}

/// Appends `line` (source text from offset `from`) to `out` as [`escape::text`] shows it, but
/// for tabs, which the snippet renderer lays out itself; returns where it put escapes (see
/// [`ExcerptLine::escapes`]).
fn push_shown(out: &mut String, line: &str, from: usize) -> Vec<(usize, usize)> {
    let mut escapes = Vec::new();
    if !escape::holds_escaped(line, false) {
        out.push_str(line);
        return escapes;
    }
    for (at, c) in line.char_indices() {
        if escape::is_escaped(c) && c != '\t' {
            let before = out.len();
            escape::push_escape(out, c);
            escapes.push((from + at, out.len() - before - c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    escapes
}

/// The part of the line `start..end` to show: all of it when short, else up to [`MAX_LINE`]
/// bytes from a little before its first span, cut at character boundaries.
fn window(text: &str, start: usize, end: usize, spans: &[crate::yaml::Span]) -> (usize, usize) {
    if end - start <= MAX_LINE {
        return (start, end);
    }
    let first = spans.iter().map(|s| s.start).min().unwrap_or(start);
    let mut from = first.saturating_sub(BEFORE_FINDING).clamp(start, end);
    while !text.is_char_boundary(from) {
        from -= 1;
    }
    let mut to = (from + MAX_LINE).min(end);
    while !text.is_char_boundary(to) {
        to -= 1;
    }
    (from, to)
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let first = self
            .line_of(span.offset())
            .ok_or(MietteError::OutOfBounds)?;
        let last = self
            .line_of(span.offset() + span.len())
            .ok_or(MietteError::OutOfBounds)?
            .max(first);
        let run = self.lines[first].run;
        let mut from = first;
        while from > 0 && first - from < context_lines_before && self.lines[from - 1].run == run {
            from -= 1;
        }
        let mut to = last;
        while to + 1 < self.lines.len()
            && to - last < context_lines_after
            && self.lines[to + 1].run == run
        {
            to += 1;
        }
        let start = self.lines[from].at;
        let end = (self.lines[to].end + 1).min(self.text.len());
        let column = if context_lines_before == 0 {
            self.columns
                .iter()
                .find(|(offset, _)| *offset == span.offset())
                .map_or(0, |(_, column)| *column)
        } else {
            0
        };
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            &self.text.as_bytes()[start..end],
            SourceSpan::from(start..end),
            self.lines[from].line,
            column,
            to - from + 1,
        )))
    }
}

/// A [`Diagnostic`] as miette wants to see it, its texts escaped.
struct View<'a> {
    diagnostic: &'a Diagnostic,
    message: std::borrow::Cow<'a, str>,
    excerpt: Option<Excerpt>,
    labels: Vec<LabeledSpan>,
}

impl fmt::Debug for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for View<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
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
            return Some(Box::new(format!("waived: {}", escape::text(reason))));
        }
        (!self.diagnostic.help.is_empty())
            .then(|| Box::new(escape::text(&self.diagnostic.help)) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.excerpt.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.excerpt.as_ref()?;
        Some(Box::new(self.labels.iter().cloned()))
    }
}

/// The diagnostic's spans (primary first), clamped to the text and to the line each starts on:
/// miette underlines whole lines for long spans.
fn one_line_spans(source: &Source, diagnostic: &Diagnostic) -> Vec<crate::yaml::Span> {
    let len = source.text().len();
    let clamp = |s: crate::yaml::Span| {
        let start = s.start.min(len);
        let line = source.position(start).line;
        let line_end = source
            .line_start(line + 1)
            .map_or(len, |next| next.saturating_sub(1));
        crate::yaml::Span::new(start, s.end.min(len).max(start).min(line_end.max(start)))
    };
    diagnostic
        .span
        .into_iter()
        .chain(diagnostic.labels.iter().map(|l| l.span))
        .map(clamp)
        .collect()
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

fn render_with(handler: &GraphicalReportHandler, diagnostic: &Diagnostic) -> String {
    let file = diagnostic
        .file
        .as_ref()
        .filter(|_| diagnostic.span.is_some());
    let has_span = file.is_some();
    let (excerpt, labels) = match file {
        Some(source) => {
            let spans = one_line_spans(source, diagnostic);
            let excerpt = Excerpt::new(source, &spans);
            let mut labels = Vec::new();
            for (i, span) in spans.iter().enumerate() {
                let Some(mapped) = excerpt.map_span(*span) else {
                    continue;
                };
                labels.push(match i {
                    0 => LabeledSpan::new_primary_with_span(None, mapped),
                    _ => LabeledSpan::new_with_span(
                        Some(escape::text(&diagnostic.labels[i - 1].message).into_owned()),
                        mapped,
                    ),
                });
            }
            (Some(excerpt), labels)
        }
        None => (None, Vec::new()),
    };
    let view = View {
        diagnostic,
        message: escape::text(&diagnostic.message),
        excerpt,
        labels,
    };
    let mut text = String::new();
    if handler.render_report(&mut text, &view).is_err() {
        text = fallback(diagnostic);
    }
    if !has_span && let Some(name) = diagnostic.file_name() {
        {
            // No snippet to show the file name: say it under the message.
            let mut lines: Vec<&str> = text.lines().collect();
            let at = format!("  in `{}`", escape::text(name));
            let insert_at = lines.len().min(1);
            lines.insert(insert_at, &at);
            return lines.join("\n") + "\n";
        }
    }
    text
}

/// `rule: file:line:col: message` and the help, for when the renderer fails.
fn fallback(diagnostic: &Diagnostic) -> String {
    let place = match (
        diagnostic.file_name().map(escape::text),
        diagnostic.position(),
    ) {
        (Some(name), Some(position)) => format!("{name}:{position}: "),
        (Some(name), None) => format!("{name}: "),
        _ => String::new(),
    };
    let mut text = format!(
        "{}: {place}{}\n",
        diagnostic.rule,
        escape::text(&diagnostic.message)
    );
    if !diagnostic.help.is_empty() {
        text.push_str(&format!("  help: {}\n", escape::text(&diagnostic.help)));
    }
    text
}

pub(crate) fn write_diagnostics(
    out: &mut dyn Write,
    style: Style,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> io::Result<()> {
    // One handler and one buffered write per block of findings, not a flush per line.
    let handler = handler(style);
    let mut out = io::BufWriter::with_capacity(64 * 1024, out);
    for d in diagnostics {
        writeln!(out, "{}\n", render_with(&handler, d).trim_end())?;
    }
    writeln!(out, "{}", summary_line(summary))?;
    out.flush()
}

/// `2 errors, 1 warning in 5 files` or `no problems in 5 files`.
pub(crate) fn summary_line(summary: &Summary) -> String {
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

/// Renders one diagnostic to text (the tests' view of [`render_with`]).
#[cfg(test)]
fn render(style: Style, diagnostic: &Diagnostic) -> String {
    render_with(&handler(style), diagnostic)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Span;
    use std::sync::Arc;

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
    fn findings_far_along_a_line_show_a_cut_snippet_and_their_real_position() {
        // Multi-byte characters around the cut, CRLF line ends, and a label on another line.
        let text = format!("a: 1\r\nb: \"{}${{X\"\r\nc: 3\r\n", "é".repeat(70_000));
        let source = Arc::new(Source::new("c.yaml", text.clone()));
        let start = text.find("${X").unwrap();
        let mut d = Diagnostic::new(
            "variables/syntax",
            Severity::Error,
            Some(source),
            Some(Span::new(start, start + 3)),
            "missing closing brace",
            "close it",
        );
        d.with_label(Span::new(0, 1), "first here");
        let out = render(Style::plain(), &d);
        assert!(out.contains("c.yaml:2:70005"), "{out}");
        assert!(out.contains("…éé"), "{out}");
        assert!(out.contains("${X"), "{out}");
        assert!(out.contains("first here"), "{out}");
        assert!(out.contains(" 3 │ c: 3"), "{out}");
        assert!(out.len() < 2_000, "{} bytes", out.len());
    }

    #[test]
    fn an_excerpt_keeps_separate_runs_of_lines_apart() {
        let lines: Vec<String> = (1..=50).map(|i| format!("k{i}: v{i}")).collect();
        let text = lines.join("\n") + "\n";
        let source = Arc::new(Source::new("m.yaml", text.clone()));
        let at = |needle: &str| text.find(needle).unwrap();
        let mut d = Diagnostic::new(
            "yaml/duplicate-key",
            Severity::Error,
            Some(source),
            Some(Span::new(at("k40"), at("k40") + 3)),
            "repeated",
            "",
        );
        d.with_label(Span::new(at("k3:"), at("k3:") + 2), "first here");
        let out = render(Style::plain(), &d);
        for line in [
            " 2 │ k2: v2",
            " 4 │ k4: v4",
            "39 │ k39: v39",
            "41 │ k41: v41",
        ] {
            assert!(out.contains(line), "{line} missing: {out}");
        }
        assert!(!out.contains("k20"), "{out}");
        assert!(out.contains("m.yaml:40:1"), "{out}");
    }

    #[test]
    fn what_a_release_holds_is_shown_as_escapes_in_the_message_and_the_snippet() {
        // A raw escape sequence in the file, and one a double-quoted value spells.
        let text = "kind: Deployment\n# \u{1b}]0;title\u{7}\nimage: \u{1b}[2Jx\u{9b}y \"\\n::warning::z\"\n";
        let source = Arc::new(Source::new("a\u{1b}[31m.yaml", text));
        let start = text.find("x\u{9b}").unwrap();
        let mut d = Diagnostic::new(
            "components/image-reference",
            Severity::Error,
            Some(source),
            Some(Span::new(start, start + 1)),
            "image `\u{1b}[2Jx\u{9b}y \n::warning::z` is not canonical",
            "help\r\n::error::h",
        );
        d.with_label(Span::new(0, 4), "label\n::notice::l");
        let out = render(Style::plain(), &d);
        assert!(
            !out.chars().any(|c| escape::is_escaped(c) && c != '\n'),
            "{out}"
        );
        for line in out.lines() {
            assert!(!line.trim_start().starts_with("::"), "{line}");
        }
        for shown in [
            "image `\\u{1b}[2Jx\\u{9b}y \\n::warning::z` is not canonical",
            "help\\r\\n::error::h",
            "label\\n::notice::l",
            "a\\u{1b}[31m.yaml:3:12",
            "# \\u{1b}]0;title\\u{7}",
            "image: \\u{1b}[2Jx\\u{9b}y",
        ] {
            assert!(out.contains(shown), "{shown} missing: {out}");
        }
        // The underline stays under the character after the escape.
        let line = out.lines().find(|l| l.contains("image: ")).unwrap();
        let under = out.lines().skip_while(|l| *l != line).nth(1).unwrap();
        let column = |s: &str, what: char| s.chars().position(|c| c == what).unwrap();
        assert_eq!(column(line, 'x'), column(under, '─'), "{out}");
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
