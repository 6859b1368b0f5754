//! A diff as a reviewer reads it: the changes as plain text grouped by section, or the whole
//! report as Markdown (a pull request comment, release notes, the CI step summary), as
//! [`super::verify::markdown`] is verify's. Findings in text are rendered by [`super::human`].
//! What the releases hold (names, images, labels, versions) is shown as [`crate::escape`] says:
//! [`escape::text`] in text, Markdown's escapes in Markdown.
//!
//! An object's field changes are shown under it ([`rows`]), on its line when there is one;
//! objects of one kind whose one change is the same (a controller-gen version annotation on
//! every CRD) share one line.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::{self, Write};

use crate::diagnostic::Diagnostic;
use crate::diff::{Change, ChangeKind, DiffReport, Section, SideInfo};
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

/// One field's change, as its object's row shows it: `field: old -> new`, `field: + value`.
fn field_text(change: &Change) -> String {
    let field = escape::text(change.field.as_deref().unwrap_or(""));
    let (old, new) = (shown(&change.old), shown(&change.new));
    match (change.change, old.as_deref(), new.as_deref()) {
        (ChangeKind::Added, _, Some(new)) => format!("{field}: + {new}"),
        (ChangeKind::Added, _, None) => format!("{field}: added"),
        (ChangeKind::Removed, Some(old), _) => format!("{field}: - {old}"),
        (ChangeKind::Removed, None, _) => format!("{field}: removed"),
        (_, Some(old), Some(new)) => format!("{field}: {old} -> {new}"),
        (_, None, Some(new)) => format!("{field}: {new}"),
        (_, Some(old), None) => format!("{field}: {old} -> (none)"),
        (_, None, None) => format!("{field}: changed"),
    }
}

/// A change as shown: its mark, its line, and the fields that changed under it.
struct Row {
    mark: &'static str,
    text: String,
    fields: Vec<String>,
}

impl Row {
    /// The row on one line (the fields after the subject, `; `-separated).
    fn one_line(&self) -> String {
        if self.fields.is_empty() {
            self.text.clone()
        } else {
            format!("{}: {}", self.text, self.fields.join("; "))
        }
    }
}

/// Objects from which on a shared change is one line.
const FOLD_FROM: usize = 2;
/// Names a folded line lists before `and N more`.
const FOLD_NAMES: usize = 3;

/// A section's changes as rows: a subject's changes together (its field changes under its own
/// line), then objects of one kind whose one field change is the same folded into one row.
fn rows(changes: &[&Change], several: bool) -> Vec<Row> {
    let mut rows: Vec<Row> = Vec::new();
    let mut last: Option<(&str, &str)> = None;
    for change in changes {
        let key = (change.provider.as_str(), change.subject.as_str());
        let same_subject = last == Some(key);
        last = Some(key);
        match (&change.field, same_subject, rows.last_mut()) {
            (Some(_), true, Some(row)) => row.fields.push(field_text(change)),
            (Some(_), _, _) => rows.push(Row {
                mark: mark(ChangeKind::Changed),
                text: head(change, several),
                fields: vec![field_text(change)],
            }),
            (None, true, Some(row)) if change.old.is_none() && change.new.is_none() => {
                row.mark = mark(change.change);
            }
            (None, _, _) => rows.push(Row {
                mark: mark(change.change),
                text: line(change, several),
                fields: Vec::new(),
            }),
        }
    }
    fold(rows)
}

/// Rows of one kind (the subject's first word) with the same single field change, from
/// [`FOLD_FROM`] on, as one row where the first was: `CustomResourceDefinition ×28 (a, b, c
/// and 25 more)`.
fn fold(rows: Vec<Row>) -> Vec<Row> {
    let key = |row: &Row| -> Option<(String, String)> {
        let [field] = row.fields.as_slice() else {
            return None;
        };
        let kind = row.text.split_whitespace().next()?;
        (row.mark == "~").then(|| (kind.to_string(), field.clone()))
    };
    let mut names: HashMap<(String, String), Vec<String>> = HashMap::new();
    for row in &rows {
        if let Some(k) = key(row) {
            let name = row.text.split_once(' ').map_or("", |(_, n)| n);
            names.entry(k).or_default().push(name.to_string());
        }
    }
    let mut folded = HashSet::new();
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let Some(k) = key(&row) else {
            out.push(row);
            continue;
        };
        let Some(all) = names.get(&k).filter(|all| all.len() >= FOLD_FROM) else {
            out.push(row);
            continue;
        };
        if !folded.insert(k.clone()) {
            continue;
        }
        let mut shown = all[..all.len().min(FOLD_NAMES)].join(", ");
        if all.len() > FOLD_NAMES {
            let _ = write!(shown, " and {} more", all.len() - FOLD_NAMES);
        }
        out.push(Row {
            mark: row.mark,
            text: format!("{} ×{} ({shown})", k.0, all.len()),
            fields: row.fields,
        });
    }
    out
}

/// A change's old or new value as shown, when it has one.
fn shown(half: &Option<String>) -> Option<std::borrow::Cow<'_, str>> {
    half.as_deref().filter(|s| !s.is_empty()).map(escape::text)
}

/// `[provider] subject`, as text.
fn head(change: &Change, several_providers: bool) -> String {
    if several_providers && !change.provider.is_empty() {
        format!(
            "[{}] {}",
            escape::text(&change.provider),
            escape::text(&change.subject)
        )
    } else {
        escape::text(&change.subject).into_owned()
    }
}

/// `subject: old -> new` without empty halves, as text.
fn line(change: &Change, several_providers: bool) -> String {
    let mut text = head(change, several_providers);
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
        for row in rows(&changes, several) {
            match row.fields.as_slice() {
                [field] => writeln!(out, "  {} {}: {field}", row.mark, row.text)?,
                fields => {
                    writeln!(out, "  {} {}", row.mark, row.text)?;
                    for field in fields {
                        writeln!(out, "      {field}")?;
                    }
                }
            }
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
        for row in rows(&changes, several) {
            writeln!(
                out,
                "{indent}{} {} {}",
                row.mark,
                section.title(),
                row.one_line()
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
        let rows = rows(&changes, several);
        let _ = writeln!(
            md,
            "{heading}# {} ({})\n\n| | change |\n| --- | --- |",
            section.title(),
            rows.len()
        );
        for row in rows {
            // Each part is text-escaped already (rows); Markdown's escapes on top.
            let mut cell = escape::cell(&escape::inline(&row.text));
            for field in &row.fields {
                let _ = write!(cell, "<br>{}", escape::cell(&escape::inline(field)));
            }
            let _ = writeln!(md, "| {} | {cell} |", row.mark);
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
