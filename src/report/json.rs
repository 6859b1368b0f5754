//! JSON output: wire types kept apart from the library's own, so the interface changes only on
//! purpose, and every document versioned ([`SCHEMA_VERSION`]). One diagnostic's JSON form is [`crate::diagnostic::JsonDiagnostic`], which `release`
//! and `verify` reports embed too.
//!
//! Lint: `{"schema_version":1, "diagnostics":[{"rule","severity","file","line","column","message","help"
//! [,"waived"]}], "summary":{"errors","warnings","infos","waived","files"}}`; line and column
//! are 1-based, `null` only where a finding has no position; `waived` (the waiver's reason) only
//! on a finding a waiver accepted, which `errors` and `warnings` do not count. `capkg lint` adds
//! `"linted":{"view":"release"|"paths","config","files"}`: what it read (see [`LintScope`]).

use std::io::{self, Write};

use serde::Serialize;

use crate::diagnostic::{Diagnostic, JsonDiagnostic, Summary};
use crate::escape::JsonEscapes;

#[derive(Serialize)]
struct LintReport<'a> {
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: JsonSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    linted: Option<&'a LintScope>,
}

/// What `capkg lint` read: the files the release capkg.yaml describes ships, as assembled, or
/// the paths given (`.` with `--all`, or without a capkg.yaml).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LintScope {
    /// `release` or `paths`.
    pub view: &'static str,
    /// The capkg.yaml of the release's view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// The release's files (its view) or the paths given.
    pub files: Vec<String>,
}

#[derive(Serialize)]
struct JsonSummary {
    errors: usize,
    warnings: usize,
    infos: usize,
    waived: usize,
    files: usize,
}

/// Writes the lint report as one JSON object and a newline.
pub(crate) fn write_lint(
    out: &mut dyn Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    linted: Option<&LintScope>,
) -> io::Result<()> {
    let report = LintReport {
        linted,
        diagnostics: diagnostics.iter().map(Diagnostic::to_json).collect(),
        summary: JsonSummary {
            errors: summary.errors,
            warnings: summary.warnings,
            infos: summary.infos,
            waived: summary.waived,
            files: summary.files,
        },
    };
    write_value(out, &report)
}

/// Writes any serialisable value as one line of JSON, with what a terminal or a CI runner acts
/// on escaped too ([`JsonEscapes`]): the text decodes to the same values.
pub(crate) fn write_value<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    write_with(out, value, serde_json::ser::CompactFormatter)
}

/// [`write_value`], indented over several lines.
pub(crate) fn write_pretty<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    write_with(out, value, serde_json::ser::PrettyFormatter::new())
}

/// The version of the JSON documents capkg prints: every document's first key,
/// `"schema_version"`. It goes up when a field is removed, renamed or changes meaning; new fields
/// do not change it.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// A document: [`SCHEMA_VERSION`] first, then the report's own fields.
#[derive(Serialize)]
struct Document<'a, T: Serialize> {
    schema_version: u32,
    #[serde(flatten)]
    report: &'a T,
}

/// serde_json writes a document in many small pieces: they reach `out` in blocks.
fn write_with<T: Serialize>(
    out: &mut dyn Write,
    value: &T,
    formatter: impl serde_json::ser::Formatter,
) -> io::Result<()> {
    let mut buffered = io::BufWriter::with_capacity(64 * 1024, out);
    let formatter = JsonEscapes(formatter);
    let mut serializer = serde_json::Serializer::with_formatter(&mut buffered, formatter);
    let document = Document {
        schema_version: SCHEMA_VERSION,
        report: value,
    };
    document
        .serialize(&mut serializer)
        .map_err(io::Error::other)?;
    writeln!(buffered)?;
    buffered.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;
    use crate::yaml::{Source, Span};
    use std::sync::Arc;

    #[test]
    fn lint_report_shape() {
        let source = Arc::new(Source::new("m.yaml", "a: 1\nkind: x\n"));
        let diagnostics = vec![
            Diagnostic::new(
                "metadata/kind",
                Severity::Error,
                Some(source),
                Some(Span::new(5, 9)),
                "bad \"kind\"",
                "fix it",
            ),
            Diagnostic::new(
                "metadata/missing",
                Severity::Warning,
                None,
                None,
                "no file",
                "add one",
            ),
        ];
        let summary = Summary::of(&diagnostics, 1);
        let mut out = Vec::new();
        write_lint(&mut out, &diagnostics, &summary, None).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["diagnostics"][0]["rule"], "metadata/kind");
        assert_eq!(value["diagnostics"][0]["severity"], "error");
        assert_eq!(value["diagnostics"][0]["file"], "m.yaml");
        assert_eq!(value["diagnostics"][0]["line"], 2);
        assert_eq!(value["diagnostics"][0]["column"], 1);
        assert_eq!(value["diagnostics"][0]["message"], "bad \"kind\"");
        assert_eq!(value["diagnostics"][0]["help"], "fix it");
        assert!(value["diagnostics"][1]["line"].is_null());
        assert!(value["diagnostics"][1]["file"].is_null());
        assert_eq!(value["summary"]["errors"], 1);
        assert_eq!(value["summary"]["warnings"], 1);
        assert_eq!(value["summary"]["files"], 1);
        assert_eq!(out.last(), Some(&b'\n'));
    }
}
