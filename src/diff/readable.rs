//! A release is compared only when it is one: a components file that holds objects and a
//! `metadata.yaml` that decodes with release series. An empty file, an HTML page served with
//! 200 (a login or error page) or a metadata file that does not parse would otherwise compare
//! as "everything added" or "nothing changed", and the upgrade gate would open on what it
//! could not read. The questions are the lint rules' own, asked of the components and the
//! metadata only (a broken template is a finding of the template comparison, not a reason to
//! compare nothing).

use crate::diagnostic::{Diagnostic, Severity};
use crate::rules;
use crate::verify::{self, ReadRelease};

/// The rules whose errors mean a file could not be read as a release file.
const UNREADABLE: [&str; 7] = [
    "yaml/syntax",
    "yaml/invalid-utf8",
    "yaml/nul-byte",
    "yaml/not-a-mapping",
    "components/empty",
    "metadata/missing",
    "metadata/release-series",
];

/// At most this many problems are named in the error.
const NAMED: usize = 3;

/// `Err` naming what makes `read` (read from `source`) no release to compare with.
pub(crate) fn check(source: &str, releases: &[ReadRelease]) -> Result<(), verify::Error> {
    let mut problems = Vec::new();
    for read in releases {
        let templates: Vec<&str> = read
            .release
            .files
            .iter()
            .filter(|f| f.role.is_template())
            .map(|f| f.source().name())
            .collect();
        let found = rules::run_only(&read.release, &read.options, &UNREADABLE);
        problems.extend(
            found
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .filter(|d| d.file_name().is_none_or(|name| !templates.contains(&name)))
                .map(|d| describe(d, read)),
        );
    }
    if releases.is_empty() {
        problems.push("it holds no components file".to_string());
    }
    if problems.is_empty() {
        return Ok(());
    }
    let more = problems.len().saturating_sub(NAMED);
    problems.truncate(NAMED);
    if more > 0 {
        problems.push(format!("{more} more"));
    }
    Err(verify::Error::NotARelease {
        url: source.to_string(),
        problems: problems.join("; "),
    })
}

/// One problem as `file:line: message`, said to be a web page where the file starts as one.
fn describe(diagnostic: &Diagnostic, read: &ReadRelease) -> String {
    let place = match (diagnostic.file_name(), diagnostic.position()) {
        (Some(name), Some(position)) => format!("{name}:{}: ", position.line),
        (Some(name), None) => format!("{name}: "),
        _ => String::new(),
    };
    let html = diagnostic.file_name().is_some_and(|name| {
        read.release
            .files
            .iter()
            .find(|f| f.source().name() == name)
            .is_some_and(|f| looks_like_html(f.source().text()))
    });
    let what = if html {
        " (it is an HTML page: a login or error page served in place of the file?)"
    } else {
        ""
    };
    format!("{place}{}{what}", diagnostic.message)
}

/// True for text that begins as a web page does.
fn looks_like_html(text: &str) -> bool {
    let head = text.trim_start().get(..15).unwrap_or(text.trim_start());
    let head = head.to_ascii_lowercase();
    head.starts_with("<!doctype html") || head.starts_with("<html") || head.starts_with("<head")
}
