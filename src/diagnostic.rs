//! A finding: which rule, how severe, where, what and what to do.
//!
//! Diagnostics carry byte spans only; reports turn them into lines and columns when they print.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::yaml::{Position, Source, Span};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// clusterctl fails, or the release breaks users: lint exits 1.
    Error,
    /// Likely a mistake, or a contract "should": lint exits 0 unless `--deny-warnings`.
    Warning,
    /// Worth knowing; never fails a run.
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary place a diagnostic refers to (the first of two Namespaces, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// The rule id (`components/single-namespace`).
    pub rule: &'static str,
    pub severity: Severity,
    /// The file the finding is about; `None` for findings about the run as a whole.
    pub file: Option<Arc<Source>>,
    /// Where in the file; `None` when the finding is about the file as a whole (a missing one).
    pub span: Option<Span>,
    pub message: String,
    /// What to do about it.
    pub help: String,
    pub labels: Vec<Label>,
    /// Why the maintainer accepts this finding (a `lint: allow:` entry or `--allow`): shown in
    /// every format, never counted as an error or warning, never blocking.
    pub waived: Option<String>,
    /// The field of the object the finding is about, for a finding that compares two releases
    /// (`spec.versions[v1beta1].schema.openAPIV3Schema.status`): what a waiver's `field` names.
    pub field: Option<String>,
    /// The previous release's version the finding was judged against (`upgrade/…` findings):
    /// what a waiver's `previous` names.
    pub previous: Option<String>,
}

/// Serializes findings in their JSON form ([`Diagnostic::to_json`]): the
/// `#[serde(serialize_with)]` of every report that carries them.
pub(crate) fn serialize_json<S: serde::Serializer>(
    diagnostics: &[Diagnostic],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(diagnostics.iter().map(Diagnostic::to_json))
}

/// Adds `found` to `all`, leaving out a finding `all` already holds (the same rule, file, place
/// and message): the parts of one release that share a file (`metadata.yaml`) report it once.
pub(crate) fn extend_unique(
    all: &mut Vec<Diagnostic>,
    found: impl IntoIterator<Item = Diagnostic>,
) {
    for diagnostic in found {
        let seen = all.iter().any(|d| {
            d.rule == diagnostic.rule
                && d.file_name() == diagnostic.file_name()
                && d.span == diagnostic.span
                && d.message == diagnostic.message
        });
        if !seen {
            all.push(diagnostic);
        }
    }
}

impl Diagnostic {
    pub fn new(
        rule: &'static str,
        severity: Severity,
        file: Option<Arc<Source>>,
        span: Option<Span>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Self {
        Self {
            rule,
            severity,
            file,
            span,
            message: message.into(),
            help: help.into(),
            labels: Vec::new(),
            waived: None,
            field: None,
            previous: None,
        }
    }

    /// True when the finding counts: it is not waived.
    pub fn is_blocking_error(&self) -> bool {
        self.severity == Severity::Error && self.waived.is_none()
    }

    /// Replaces the rule's generic help with one specific to this finding.
    pub fn with_help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = help.into();
        self
    }

    pub fn with_label(&mut self, span: Span, message: impl Into<String>) -> &mut Self {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    /// Names the field the finding is about ([`Diagnostic::field`]).
    pub fn with_field(&mut self, field: impl Into<String>) -> &mut Self {
        self.field = Some(field.into());
        self
    }

    pub fn with_severity(&mut self, severity: Severity) -> &mut Self {
        self.severity = severity;
        self
    }

    /// The file's name as the user gave it.
    pub fn file_name(&self) -> Option<&str> {
        self.file.as_deref().map(Source::name)
    }

    /// 1-based line and column of the start of the span.
    pub fn position(&self) -> Option<Position> {
        Some(self.file.as_ref()?.position(self.span?.start))
    }

    /// The diagnostic's JSON form.
    pub fn to_json(&self) -> JsonDiagnostic<'_> {
        let start = self.position();
        let end = match (&self.file, self.span) {
            (Some(file), Some(span)) => Some(file.position(span.end)),
            _ => None,
        };
        JsonDiagnostic {
            rule: self.rule,
            severity: self.severity,
            file: self.file_name(),
            line: start.map(|p| p.line),
            column: start.map(|p| p.column),
            end_line: end.map(|p| p.line),
            end_column: end.map(|p| p.column),
            message: &self.message,
            help: &self.help,
            field: self.field.as_deref(),
            previous: self.previous.as_deref(),
            waived: self.waived.as_deref(),
        }
    }

    /// Sort key: file, then position, then rule.
    pub fn sort_key(&self) -> (Option<&str>, usize, &'static str) {
        (
            self.file_name(),
            self.span.map_or(0, |s| s.start),
            self.rule,
        )
    }
}

/// Counts by severity; waived findings are counted apart, whatever their severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub errors: usize,
    pub warnings: usize,
    pub infos: usize,
    /// Findings a waiver accepted (not in `errors`, `warnings` or `infos`).
    pub waived: usize,
    pub files: usize,
}

impl Summary {
    pub fn of(diagnostics: &[Diagnostic], files: usize) -> Self {
        let count = |s| {
            diagnostics
                .iter()
                .filter(|d| d.severity == s && d.waived.is_none())
                .count()
        };
        Self {
            errors: count(Severity::Error),
            warnings: count(Severity::Warning),
            infos: count(Severity::Info),
            waived: diagnostics.iter().filter(|d| d.waived.is_some()).count(),
            files,
        }
    }
}

/// One diagnostic as JSON output shows it: lint's report, and inside `release` and `verify`
/// reports. Its shape is part of capkg's interface (the book's `capkg lint` chapter documents it).
#[derive(Serialize)]
pub struct JsonDiagnostic<'a> {
    rule: &'a str,
    severity: Severity,
    file: Option<&'a str>,
    line: Option<usize>,
    column: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<usize>,
    message: &'a str,
    help: &'a str,
    /// The field the finding is about, as a waiver's `field` names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
    /// The previous release's version it was judged against, as a waiver's `previous` names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    previous: Option<&'a str>,
    /// The waiver's reason, for a finding the maintainer accepted.
    #[serde(skip_serializing_if = "Option::is_none")]
    waived: Option<&'a str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_form_has_one_based_ends_and_the_waiver() {
        let source = Arc::new(Source::new("m.yaml", "a: 1\nkind: x\n"));
        let mut diagnostic = Diagnostic::new(
            "metadata/kind",
            Severity::Warning,
            Some(source),
            Some(Span::new(5, 9)),
            "bad",
            "fix it",
        );
        diagnostic.waived = Some("known".into());
        let value = serde_json::to_value(diagnostic.to_json()).unwrap();
        assert_eq!(value["line"], 2);
        assert_eq!(value["end_line"], 2);
        assert_eq!(value["end_column"], 5);
        assert_eq!(value["severity"], "warning");
        assert_eq!(value["waived"], "known");
        let whole_run = Diagnostic::new("x", Severity::Info, None, None, "m", "h");
        let value = serde_json::to_value(whole_run.to_json()).unwrap();
        assert!(value["line"].is_null());
        assert!(value.get("end_line").is_none() && value.get("waived").is_none());
    }
}
