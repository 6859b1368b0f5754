//! The provenance checks: the release's statement ([`crate::provenance`]) read from where the
//! release is served, and every file it names compared with the file served there.
//!
//! Three checks, each named in the report:
//! - `provenance`: the statement is there (when `--require-provenance` asks for it) and is an
//!   in-toto Statement v1 with a SLSA Provenance v1 predicate for this version;
//! - `provenance-subjects`: every file the statement names is served, with the SHA-256 the
//!   statement gives;
//! - `provenance-coverage`: every release file read (and every file `checksums.txt` lists) is
//!   one the statement names.
//!
//! With `--trusted-root` ([`SignaturePolicy`]), the statement's Sigstore bundle
//! ([`BUNDLE_FILE`]) must be there too, and its `signature-*` checks
//! ([`crate::sigstore::verify`]) say who made it.

use std::collections::BTreeMap;

use bytes::Bytes;

use super::Check;
use super::repository::{Fetch, Repository};
use crate::checksums::{CHECKSUMS_FILE, sha256_hex};
use crate::provenance::{Parsed, STATEMENT_FILE};
use crate::provider::FileRole;
use crate::sigstore::BUNDLE_FILE;
use crate::sigstore::verify::{Policy, TrustedRoot};

/// Whether the statement must be there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Requirement {
    /// Checked when present.
    #[default]
    WhenPresent,
    /// `--require-provenance`: a release without one fails.
    Required,
}

/// `--trusted-root` and the identity flags: the signature is required and checked.
#[derive(Debug, Clone)]
pub(crate) struct SignaturePolicy {
    pub root: TrustedRoot,
    pub policy: Policy,
}

/// The checks of the bundle read (`None`: not served, `looked` says where) against the statement.
fn signature_checks(
    bundle: Option<&[u8]>,
    statement: &[u8],
    signature: &SignaturePolicy,
    looked: &str,
) -> Vec<Check> {
    match bundle {
        None => vec![failed(
            "signature",
            format!("the release has no `{BUNDLE_FILE}` ({looked}): its provenance is not signed"),
        )],
        Some(bundle) => {
            let mut checks = vec![Check {
                name: "signature",
                ok: true,
                message: format!("`{BUNDLE_FILE}` is there"),
            }];
            let checked = crate::sigstore::verify::verify(
                bundle,
                statement,
                &signature.root,
                &signature.policy,
            );
            checks.extend(checked.into_iter().map(|(name, result)| match result {
                Ok(message) => Check {
                    name,
                    ok: true,
                    message,
                },
                Err(message) => failed(name, message),
            }));
            // A bundle that cannot be read at all reports under `signature` alone.
            if checks.iter().filter(|c| c.name == "signature").count() > 1 {
                checks.remove(0);
            }
            checks
        }
    }
}

/// What the checks read: the statement and every file it names, for `verify --rebuild`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Attested {
    pub statement: Option<Parsed>,
    /// Every file read, by name, as served.
    pub served: BTreeMap<String, Bytes>,
}

/// Reads the statement of `version` and the files it names, and checks them against what is
/// served; `fetched` are the files read already (not fetched again), `listed` the names
/// `checksums.txt` holds.
pub(super) async fn check(
    repository: &dyn Repository,
    version: &str,
    fetched: &[(String, Bytes)],
    listed: &[String],
    requirement: Requirement,
    signature: Option<&SignaturePolicy>,
) -> (Vec<Check>, Attested) {
    let mut attested = Attested {
        statement: None,
        served: fetched.iter().cloned().collect(),
    };
    // Where the repository lists its files, the list says whether there is a statement; a
    // GitLab package is asked for it by name.
    let listed_here = match repository.list(version).await {
        Ok(names) => names.map(|names| names.iter().any(|n| n == STATEMENT_FILE)),
        Err(error) => {
            let message = format!("the release's files could not be listed: {error}");
            return (vec![failed("provenance", message)], attested);
        }
    };
    let fetched_statement = match listed_here {
        Some(false) => Err(Fetch::NotFound(super::Error::NotFound {
            what: "no such file".into(),
            url: repository.url(version, STATEMENT_FILE),
        })),
        _ => repository.file(version, STATEMENT_FILE).await,
    };
    let bytes = match fetched_statement {
        Ok(bytes) => bytes,
        // A GitLab package answers 404 for a file it does not have.
        Err(Fetch::NotFound(_) | Fetch::Failed(super::Error::NotFound { .. })) => {
            let looked = format!("`{}`", repository.url(version, STATEMENT_FILE));
            return (missing(requirement, looked), attested);
        }
        Err(Fetch::Failed(error)) => {
            return (
                vec![failed(
                    "provenance",
                    format!("`{STATEMENT_FILE}` could not be read: {error}"),
                )],
                attested,
            );
        }
    };
    let fetch = |name: String| async move { repository.file(version, &name).await.ok() };
    let (mut checks, statement) =
        check_statement(&bytes, version, &mut attested.served, listed, fetch).await;
    attested.statement = statement;
    if let Some(signature) = signature {
        let bundle = repository.file(version, BUNDLE_FILE).await.ok();
        let looked = format!("`{}`", repository.url(version, BUNDLE_FILE));
        checks.extend(signature_checks(
            bundle.as_deref(),
            &bytes,
            signature,
            &looked,
        ));
    }
    (checks, attested)
}

/// The checks of the layers of an OCI artifact (`(title, contents)`): the statement's layer
/// against the layers titled with the release files' names.
pub(super) fn check_layers(
    layers: &[(String, Vec<u8>)],
    version: &str,
    requirement: Requirement,
    signature: Option<&SignaturePolicy>,
) -> Vec<Check> {
    let Some((_, statement)) = layers.iter().find(|(title, _)| title == STATEMENT_FILE) else {
        return missing(requirement, "the artifact has no layer titled so".into());
    };
    let mut served: BTreeMap<String, Bytes> = layers
        .iter()
        .map(|(title, contents)| (title.clone(), Bytes::from(contents.clone())))
        .collect();
    served.remove(STATEMENT_FILE);
    let bundle = served.remove(BUNDLE_FILE);
    let checked = check_statement(statement, version, &mut served, &[], |_| async { None });
    // Nothing is fetched: the future is ready at once.
    let mut checks = futures_util::FutureExt::now_or_never(checked)
        .map(|(checks, _)| checks)
        .unwrap_or_default();
    if let Some(signature) = signature {
        let looked = "the artifact has no layer titled so";
        checks.extend(signature_checks(
            bundle.as_deref(),
            statement,
            signature,
            looked,
        ));
    }
    checks
}

/// The checks of a release without a statement: none, or the failure `--require-provenance`
/// asks for, saying where it was looked for.
pub(super) fn missing(requirement: Requirement, looked: String) -> Vec<Check> {
    match requirement {
        Requirement::WhenPresent => Vec::new(),
        Requirement::Required => vec![failed(
            "provenance",
            format!(
                "the release has no `{STATEMENT_FILE}` ({looked}): it was not released with provenance"
            ),
        )],
    }
}

/// The checks of one statement against the files `served` (completed by `fetch` with the files
/// it names that were not read yet).
async fn check_statement<F, Fut>(
    bytes: &[u8],
    version: &str,
    served: &mut BTreeMap<String, Bytes>,
    listed: &[String],
    fetch: F,
) -> (Vec<Check>, Option<Parsed>)
where
    F: Fn(String) -> Fut,
    Fut: std::future::Future<Output = Option<Bytes>>,
{
    let parsed = match Parsed::parse(bytes) {
        Ok(parsed) => parsed,
        Err(error) => return (vec![failed("provenance", error.to_string())], None),
    };
    let mut checks = Vec::new();
    if parsed.version != version {
        checks.push(failed(
            "provenance",
            format!(
                "`{STATEMENT_FILE}` is the provenance of {}, not of {version}",
                parsed.version
            ),
        ));
    } else {
        checks.push(Check {
            name: "provenance",
            ok: true,
            message: format!(
                "in-toto statement (SLSA provenance v1) of {version} over {} file(s), built by {}{} (unsigned)",
                parsed.subjects.len(),
                parsed.builder_id,
                parsed
                    .source
                    .commit
                    .as_deref()
                    .map(|c| format!(" from commit {c}"))
                    .unwrap_or_default()
            ),
        });
    }

    let mut wrong = Vec::new();
    for subject in &parsed.subjects {
        if !served.contains_key(&subject.name)
            && let Some(bytes) = fetch(subject.name.clone()).await
        {
            served.insert(subject.name.clone(), bytes);
        }
        match served.get(&subject.name) {
            None => wrong.push(format!("`{}` is not served", subject.name)),
            Some(bytes) => {
                let actual = sha256_hex(bytes);
                if actual != subject.sha256 {
                    wrong.push(format!(
                        "`{}` has SHA-256 {actual}, the statement says {}",
                        subject.name, subject.sha256
                    ));
                }
            }
        }
    }
    checks.push(match wrong.first() {
        None => Check {
            name: "provenance-subjects",
            ok: true,
            message: format!(
                "every file the statement names is served with its digest ({})",
                parsed.subjects.len()
            ),
        },
        Some(first) => failed(
            "provenance-subjects",
            format!(
                "{first}{}",
                match wrong.len() {
                    1 => String::new(),
                    n => format!(" (and {} more)", n - 1),
                }
            ),
        ),
    });

    let named = |name: &str| parsed.subjects.iter().any(|s| s.name == name);
    // Release files only: an OCI artifact also has the operator's copies under other titles.
    let mut unnamed: Vec<&str> = served
        .keys()
        .map(String::as_str)
        .filter(|name| FileRole::from_file_name(name).is_some())
        .chain(listed.iter().map(String::as_str))
        .chain(
            served
                .contains_key(CHECKSUMS_FILE)
                .then_some(CHECKSUMS_FILE),
        )
        .filter(|name| *name != STATEMENT_FILE && *name != BUNDLE_FILE && !named(name))
        .collect();
    unnamed.sort_unstable();
    unnamed.dedup();
    checks.push(if unnamed.is_empty() {
        Check {
            name: "provenance-coverage",
            ok: true,
            message: "every release file read is named in the statement".into(),
        }
    } else {
        failed(
            "provenance-coverage",
            format!(
                "the statement does not name {}: a file was added or replaced after the release was made",
                unnamed
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
    });
    (checks, Some(parsed))
}

fn failed(name: &'static str, message: String) -> Check {
    Check {
        name,
        ok: false,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provenance::{Builder, Inputs, Source, Subject, statement};

    fn statement_over(files: &[(&str, &str)], version: &str) -> Vec<u8> {
        statement(&Inputs {
            version: version.into(),
            subjects: files
                .iter()
                .map(|(name, text)| Subject {
                    name: (*name).to_string(),
                    sha256: sha256_hex(text.as_bytes()),
                })
                .collect(),
            source: Source::default(),
            config: None,
            components: Vec::new(),
            tools: BTreeMap::new(),
            builder: Builder {
                id: "b".into(),
                invocation: None,
            },
        })
    }

    fn run(
        statement: &[u8],
        served: &[(&str, &str)],
        listed: &[&str],
    ) -> BTreeMap<&'static str, Check> {
        let mut map: BTreeMap<String, Bytes> = served
            .iter()
            .map(|(n, t)| ((*n).to_string(), Bytes::from(t.to_string())))
            .collect();
        let listed: Vec<String> = listed.iter().map(|s| (*s).to_string()).collect();
        let extra = map.clone();
        // Only what was read first is in `map`; the rest comes from `fetch`.
        map.retain(|name, _| name == "metadata.yaml");
        let (checks, _) = futures_util::FutureExt::now_or_never(check_statement(
            statement,
            "v1.0.0",
            &mut map,
            &listed,
            |name| {
                let found = extra.get(&name).cloned();
                async move { found }
            },
        ))
        .unwrap();
        checks.into_iter().map(|c| (c.name, c)).collect()
    }

    const FILES: &[(&str, &str)] = &[("metadata.yaml", "m"), ("a-components.yaml", "c")];

    #[test]
    fn the_files_served_match_the_statement() {
        let checks = run(&statement_over(FILES, "v1.0.0"), FILES, &[]);
        assert!(checks.values().all(|c| c.ok), "{checks:?}");
        assert_eq!(checks.len(), 3);
    }

    #[test]
    fn a_changed_file_fails_the_subjects_check_by_name() {
        let served = [("metadata.yaml", "m"), ("a-components.yaml", "changed")];
        let checks = run(&statement_over(FILES, "v1.0.0"), &served, &[]);
        let subjects = &checks["provenance-subjects"];
        assert!(!subjects.ok);
        assert!(
            subjects.message.contains("`a-components.yaml` has SHA-256"),
            "{subjects:?}"
        );
    }

    #[test]
    fn a_file_the_statement_does_not_name_fails_coverage() {
        let statement = statement_over(&FILES[..1], "v1.0.0");
        let checks = run(&statement, FILES, &["cluster-template.yaml"]);
        assert!(checks["provenance-subjects"].ok);
        let coverage = &checks["provenance-coverage"];
        assert!(!coverage.ok);
        assert!(
            coverage.message.contains("`cluster-template.yaml`"),
            "{coverage:?}"
        );
    }

    #[test]
    fn a_file_not_served_or_another_version_fails() {
        let checks = run(&statement_over(FILES, "v1.0.0"), &FILES[..1], &[]);
        assert!(
            checks["provenance-subjects"]
                .message
                .contains("`a-components.yaml` is not served")
        );
        let checks = run(&statement_over(FILES, "v0.9.0"), FILES, &[]);
        assert!(!checks["provenance"].ok);
        assert!(
            checks["provenance"]
                .message
                .contains("of v0.9.0, not of v1.0.0")
        );
    }
}
