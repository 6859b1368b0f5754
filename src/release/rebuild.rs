//! `capkg verify SOURCE --rebuild`: the release assembled again from the commit its provenance
//! statement names, and compared byte for byte with what is served.
//!
//! The commit is checked out into a temporary folder from a repository on this machine (the
//! user's checkout, `--repository`; nothing is written into it), capkg.yaml is read at the path
//! the statement gives, and the release is assembled as `capkg assemble` would for the
//! statement's version. Every file the statement names must come out byte for byte as served;
//! the first difference is reported with its file, line and byte.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use bytes::Bytes;

use crate::assemble;
use crate::ci::CiContext;
use crate::escape;
use crate::provenance::git;
use crate::settings::{self, CommandLine, Need};
use crate::verify::Check;
use crate::verify::provenance::Attested;
use crate::version::Version;

const CHECK: &str = "rebuild";

/// Assembles the release `attested` describes again from `repository` and compares it with the
/// files served; the result is the `rebuild` check.
pub(crate) fn rebuild(
    attested: &Attested,
    repository: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Check {
    match rebuilt(attested, repository, env) {
        Ok(message) => Check {
            name: CHECK,
            ok: true,
            message,
        },
        Err(message) => Check {
            name: CHECK,
            ok: false,
            message,
        },
    }
}

fn rebuilt(
    attested: &Attested,
    repository: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let statement = attested
        .statement
        .as_ref()
        .ok_or("there is no provenance statement to rebuild from")?;
    let commit = statement.source.commit.as_deref().ok_or(
        "the provenance statement names no commit (the release was not built in a git checkout)",
    )?;
    let config_path = statement
        .config_path
        .as_deref()
        .ok_or("the provenance statement names no capkg.yaml")?;
    // The statement is data from the server: its path stays inside the checkout.
    let inside = Path::new(config_path)
        .components()
        .all(|c| matches!(c, Component::Normal(_)));
    if !inside {
        return Err(format!(
            "the provenance statement's capkg.yaml path `{}` leaves the repository",
            escape::text(config_path)
        ));
    }
    let version = Version::parse(&statement.version).map_err(|e| {
        format!(
            "the provenance statement's version `{}` is not a version: {e}",
            escape::text(&statement.version)
        )
    })?;
    let copy = git::checkout_copy(repository, commit).map_err(|e| {
        format!(
            "commit {commit} could not be checked out from `{}`: {e}; run in a clone of the provider's repository that has it (`git fetch --tags`), or pass `--repository DIR`",
            repository.display()
        )
    })?;
    let line = CommandLine {
        config: Some(copy.tree.join(config_path)),
        version: Some(version),
        ..CommandLine::default()
    };
    let settings = settings::resolve(&line, Need::Assemble, &CiContext::default(), env)
        .map_err(|e| format!("capkg.yaml at commit {commit} cannot be read: {e}"))?;
    let release = assemble::build(&settings.sources, &settings.assemble_options(false))
        .map_err(|e| format!("the release does not assemble at commit {commit}: {e}"))?;
    let files: BTreeMap<String, Vec<u8>> = release.into_files().into_iter().collect();
    compare(&attested.served, &statement_names(attested), &files)?;
    Ok(format!(
        "{} file(s) rebuilt from commit {commit} with `{}`: byte for byte as served",
        files.len(),
        escape::text(config_path)
    ))
}

fn statement_names(attested: &Attested) -> Vec<String> {
    attested
        .statement
        .iter()
        .flat_map(|s| s.subjects.iter().map(|subject| subject.name.clone()))
        .collect()
}

/// Every file the statement names, served and rebuilt, byte for byte; the first difference.
fn compare(
    served: &BTreeMap<String, Bytes>,
    names: &[String],
    rebuilt: &BTreeMap<String, Vec<u8>>,
) -> Result<(), String> {
    let mut names: Vec<&String> = names.iter().collect();
    names.sort();
    for name in names {
        let shown = escape::text(name);
        let served = served
            .get(name)
            .ok_or_else(|| format!("`{shown}` is not served"))?;
        let rebuilt = rebuilt.get(name).ok_or_else(|| {
            format!("`{shown}` was not rebuilt: the sources at that commit do not make it")
        })?;
        if let Some(difference) = first_difference(served, rebuilt) {
            return Err(format!(
                "`{shown}` differs from the rebuilt file: {difference}"
            ));
        }
    }
    if let Some(extra) = rebuilt.keys().find(|name| !served.contains_key(*name)) {
        return Err(format!(
            "the rebuild makes `{}`, which the release does not have",
            escape::text(extra)
        ));
    }
    Ok(())
}

/// Where `served` and `rebuilt` first differ: line, column and the two lines.
fn first_difference(served: &[u8], rebuilt: &[u8]) -> Option<String> {
    let at = served
        .iter()
        .zip(rebuilt)
        .position(|(a, b)| a != b)
        .or_else(|| (served.len() != rebuilt.len()).then(|| served.len().min(rebuilt.len())))?;
    let before = served.get(..at).unwrap_or_default();
    let line = before.iter().filter(|b| **b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |p| p + 1);
    let line_of = |bytes: &[u8]| {
        let rest = bytes.get(line_start..).unwrap_or_default();
        let end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
        let text =
            String::from_utf8_lossy(rest.get(..end.min(200)).unwrap_or_default()).into_owned();
        escape::text(&text).into_owned()
    };
    Some(format!(
        "line {line}, byte {at}: served `{}`, rebuilt `{}`",
        line_of(served),
        line_of(rebuilt)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_is_named_by_line_and_byte() {
        assert_eq!(first_difference(b"a\nb\n", b"a\nb\n"), None);
        assert_eq!(
            first_difference(b"a: 1\nb: 2\n", b"a: 1\nb: 3\n").as_deref(),
            Some("line 2, byte 8: served `b: 2`, rebuilt `b: 3`")
        );
        assert_eq!(
            first_difference(b"a\n", b"a\nb\n").as_deref(),
            Some("line 2, byte 2: served ``, rebuilt `b`")
        );
    }

    #[test]
    fn every_named_file_is_compared_and_extra_files_are_said() {
        let served: BTreeMap<String, Bytes> = [("m.yaml", "m\n"), ("c.yaml", "c\n")]
            .into_iter()
            .map(|(n, t)| (n.to_string(), Bytes::from(t)))
            .collect();
        let names = vec!["c.yaml".to_string(), "m.yaml".to_string()];
        let mut rebuilt: BTreeMap<String, Vec<u8>> = served
            .iter()
            .map(|(n, b)| (n.clone(), b.to_vec()))
            .collect();
        assert_eq!(compare(&served, &names, &rebuilt), Ok(()));
        rebuilt.insert("c.yaml".into(), b"x\n".to_vec());
        let error = compare(&served, &names, &rebuilt).unwrap_err();
        assert!(error.starts_with("`c.yaml` differs"), "{error}");
        rebuilt.remove("c.yaml");
        let error = compare(&served, &names, &rebuilt).unwrap_err();
        assert!(error.contains("was not rebuilt"), "{error}");
    }
}
