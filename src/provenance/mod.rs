//! The provenance of a release: an in-toto Statement v1 with a SLSA Provenance v1 predicate,
//! written as [`STATEMENT_FILE`] beside the release files and published with them.
//!
//! Its subjects are every release file (`checksums.txt` included) by name and SHA-256, sorted by
//! name; the predicate says what built them: the source repository, ref and commit, capkg.yaml's
//! path (from the repository's root) and digest, each provider's components source, the tools a
//! components command runs as they report their versions, the CI workflow and run, and capkg's
//! version. The same inputs give the same bytes: nothing in it is a clock's reading.
//!
//! [`statement`] writes it; [`Parsed::parse`] reads one back for `capkg verify` (the subjects
//! checked against the files served, the source and capkg.yaml path for `--rebuild`). Where the
//! facts come from is [`builder`] (the CI environment) and [`git`] (the checkout).

pub(crate) mod builder;
pub(crate) mod git;
pub(crate) mod tools;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The statement's file name in a release folder and among the published files.
pub(crate) const STATEMENT_FILE: &str = "capkg-provenance.intoto.json";
/// The media type of an in-toto statement (the OCI layer's and a referrer's artifact type).
pub(crate) const MEDIA_TYPE: &str = "application/vnd.in-toto+json";
/// in-toto's Statement v1.
pub(crate) const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// SLSA Provenance v1.
pub(crate) const PREDICATE_TYPE: &str = "https://slsa.dev/provenance/v1";
/// What the build is: a capkg release, whose parameters the book's provenance chapter describes.
pub(crate) const BUILD_TYPE: &str = "https://github.com/capkg/capkg/provenance/release/v1";
/// The largest statement `verify` reads: a release of a hundred files is a few kilobytes.
pub(crate) const MAX_STATEMENT_BYTES: usize = 4 * 1024 * 1024;

/// A file the statement is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subject {
    pub name: String,
    /// Lower-case hex.
    pub sha256: String,
}

/// The repository the release was built from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Source {
    /// Its URL, without credentials (`https://github.com/o/r`).
    pub repository: Option<String>,
    /// The ref the build ran for (`refs/tags/v1.2.3`).
    pub reference: Option<String>,
    /// The commit, 40 (or 64) hex digits.
    pub commit: Option<String>,
}

/// Where the release was built: the CI workflow and run ([`Builder::from_env`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Builder {
    /// SLSA's `builder.id`: the workflow file at its ref, or [`builder::LOCAL_BUILDER`].
    pub id: String,
    /// The run (`https://github.com/o/r/actions/runs/1/attempts/1`).
    pub invocation: Option<String>,
}

/// capkg.yaml as the release read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigFile {
    /// From the repository's root, with `/` (`capkg.yaml`, `deploy/capkg.yaml`).
    pub path: String,
    pub sha256: String,
}

/// What a provider's components came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Components {
    /// The provider's manifest label (`infrastructure-aws`).
    pub provider: String,
    /// `command: …` as written, or the files (`files: a, b`).
    pub source: String,
}

/// Where a release is built: what the environment and the checkout say, gathered once by the
/// settings ([`Origin::gather`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub builder: Builder,
    pub source: Source,
    pub config: Option<ConfigFile>,
    /// The environment offers an OIDC identity to sign the statement with
    /// (read as [`crate::sigstore::sign`] reads it).
    pub signing: bool,
}

impl Origin {
    /// The CI's builder and source (else the checkout of `root`: its commit and `origin`, and
    /// `refs/tags/{tag}` when that tag is the commit checked out), and capkg.yaml at `config`
    /// (its path from the repository's root, else its name, and its digest).
    pub(crate) fn gather(
        config: Option<&std::path::Path>,
        root: &std::path::Path,
        tag: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        let source = builder::ci_source(env)
            .or_else(|| git::checkout_source(root, tag))
            .unwrap_or_default();
        let config = config.and_then(|path| {
            let bytes = std::fs::read(path).ok()?;
            let name = git::path_in_repository(path)
                .or_else(|| Some(path.file_name()?.to_str()?.to_string()))?;
            Some(ConfigFile {
                path: name,
                sha256: crate::checksums::sha256_hex(&bytes),
            })
        });
        Self {
            builder: Builder::from_env(env),
            source,
            config,
            signing: crate::sigstore::sign::identity_available(env),
        }
    }
}

/// Everything a statement says.
#[derive(Debug, Clone)]
pub(crate) struct Inputs {
    pub version: String,
    pub subjects: Vec<Subject>,
    pub source: Source,
    pub config: Option<ConfigFile>,
    pub components: Vec<Components>,
    /// Tool name to the version it reports (`kubectl` -> `v1.31.0`).
    pub tools: BTreeMap<String, String>,
    pub builder: Builder,
}

/// The statement's bytes: pretty JSON with a final newline, subjects sorted by name.
pub(crate) fn statement(inputs: &Inputs) -> Vec<u8> {
    let mut subjects = inputs.subjects.clone();
    subjects.sort_by(|a, b| a.name.cmp(&b.name));
    subjects.dedup_by(|a, b| a.name == b.name);
    let document = Statement {
        statement_type: STATEMENT_TYPE.to_string(),
        subject: subjects
            .into_iter()
            .map(|s| ResourceDescriptor {
                name: Some(s.name),
                uri: None,
                digest: BTreeMap::from([("sha256".to_string(), s.sha256)]),
            })
            .collect(),
        predicate_type: PREDICATE_TYPE.to_string(),
        predicate: Predicate {
            build_definition: BuildDefinition {
                build_type: BUILD_TYPE.to_string(),
                external_parameters: ExternalParameters {
                    version: inputs.version.clone(),
                    source: SourceParameter {
                        repository: inputs.source.repository.clone(),
                        reference: inputs.source.reference.clone(),
                    },
                    config: inputs.config.as_ref().map(|c| ConfigParameter {
                        path: c.path.clone(),
                        digest: BTreeMap::from([("sha256".to_string(), c.sha256.clone())]),
                    }),
                    components: inputs
                        .components
                        .iter()
                        .map(|c| ComponentsParameter {
                            provider: c.provider.clone(),
                            source: c.source.clone(),
                        })
                        .collect(),
                },
                internal_parameters: InternalParameters {
                    tools: inputs.tools.clone(),
                },
                resolved_dependencies: dependency(&inputs.source).into_iter().collect(),
            },
            run_details: RunDetails {
                builder: BuilderDocument {
                    id: inputs.builder.id.clone(),
                    version: BTreeMap::from([(
                        "capkg".to_string(),
                        env!("CARGO_PKG_VERSION").to_string(),
                    )]),
                },
                metadata: RunMetadata {
                    invocation_id: inputs.builder.invocation.clone(),
                },
            },
        },
    };
    // Plain structs of strings and maps: serialising cannot fail.
    let mut bytes = serde_json::to_vec_pretty(&document).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// The source as SLSA names a git dependency: `git+URL@REF` with its commit.
fn dependency(source: &Source) -> Option<ResourceDescriptor> {
    let commit = source.commit.clone()?;
    let uri = source.repository.as_ref().map(|repository| {
        let at = source
            .reference
            .as_ref()
            .map(|r| format!("@{r}"))
            .unwrap_or_default();
        format!("git+{repository}{at}")
    });
    Some(ResourceDescriptor {
        name: None,
        uri,
        digest: BTreeMap::from([("gitCommit".to_string(), commit)]),
    })
}

/// Why a statement cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum Error {
    #[error("`{STATEMENT_FILE}` is not an in-toto statement capkg can read: {reason}")]
    Unreadable { reason: String },
    #[error(
        "`{STATEMENT_FILE}` is a statement of type `{found}`, not an in-toto Statement v1 (`{STATEMENT_TYPE}`)"
    )]
    StatementType { found: String },
    #[error(
        "`{STATEMENT_FILE}` carries a `{found}` predicate, not SLSA Provenance v1 (`{PREDICATE_TYPE}`)"
    )]
    PredicateType { found: String },
    #[error("`{STATEMENT_FILE}` names a subject without a name or a SHA-256 digest")]
    BadSubject,
    #[error("`{STATEMENT_FILE}` is larger than {MAX_STATEMENT_BYTES} bytes")]
    TooLarge,
}

/// A statement as `verify` reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub subjects: Vec<Subject>,
    pub version: String,
    pub source: Source,
    /// capkg.yaml's path from the repository's root.
    pub config_path: Option<String>,
    pub builder_id: String,
}

impl Parsed {
    /// Reads a statement: an in-toto Statement v1 with a SLSA Provenance v1 predicate whose
    /// subjects all have a name and a SHA-256.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, Error> {
        if bytes.len() > MAX_STATEMENT_BYTES {
            return Err(Error::TooLarge);
        }
        let document: Statement = serde_json::from_slice(bytes).map_err(|e| Error::Unreadable {
            reason: e.to_string(),
        })?;
        if document.statement_type != STATEMENT_TYPE {
            return Err(Error::StatementType {
                found: document.statement_type,
            });
        }
        if document.predicate_type != PREDICATE_TYPE {
            return Err(Error::PredicateType {
                found: document.predicate_type,
            });
        }
        let subjects = document
            .subject
            .into_iter()
            .map(|s| {
                let sha256 = s.digest.get("sha256").cloned().ok_or(Error::BadSubject)?;
                let name = s.name.ok_or(Error::BadSubject)?;
                let hex = sha256.len() == 64 && sha256.bytes().all(|b| b.is_ascii_hexdigit());
                if name.is_empty() || !hex {
                    return Err(Error::BadSubject);
                }
                Ok(Subject {
                    name,
                    sha256: sha256.to_ascii_lowercase(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let definition = document.predicate.build_definition;
        let parameters = definition.external_parameters;
        let commit = definition
            .resolved_dependencies
            .iter()
            .find_map(|d| d.digest.get("gitCommit").cloned());
        Ok(Self {
            subjects,
            version: parameters.version,
            source: Source {
                repository: parameters.source.repository,
                reference: parameters.source.reference,
                commit,
            },
            config_path: parameters.config.map(|c| c.path),
            builder_id: document.predicate.run_details.builder.id,
        })
    }
}

// The document, as in-toto and SLSA spell it.

#[derive(Debug, Serialize, Deserialize)]
struct Statement {
    #[serde(rename = "_type")]
    statement_type: String,
    subject: Vec<ResourceDescriptor>,
    #[serde(rename = "predicateType")]
    predicate_type: String,
    predicate: Predicate,
}

#[derive(Debug, Serialize, Deserialize)]
struct ResourceDescriptor {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    #[serde(default)]
    digest: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Predicate {
    build_definition: BuildDefinition,
    run_details: RunDetails,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct BuildDefinition {
    build_type: String,
    external_parameters: ExternalParameters,
    #[serde(default)]
    internal_parameters: InternalParameters,
    #[serde(default)]
    resolved_dependencies: Vec<ResourceDescriptor>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ExternalParameters {
    version: String,
    source: SourceParameter,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    config: Option<ConfigParameter>,
    #[serde(default)]
    components: Vec<ComponentsParameter>,
}

#[derive(Debug, Serialize, Deserialize)]
struct SourceParameter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    repository: Option<String>,
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    reference: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ConfigParameter {
    path: String,
    digest: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct ComponentsParameter {
    provider: String,
    source: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct InternalParameters {
    #[serde(default)]
    tools: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct RunDetails {
    builder: BuilderDocument,
    #[serde(default)]
    metadata: RunMetadata,
}

#[derive(Debug, Serialize, Deserialize)]
struct BuilderDocument {
    id: String,
    #[serde(default)]
    version: BTreeMap<String, String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RunMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    invocation_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs() -> Inputs {
        Inputs {
            version: "v1.2.3".into(),
            subjects: vec![
                Subject {
                    name: "metadata.yaml".into(),
                    sha256: "b".repeat(64),
                },
                Subject {
                    name: "checksums.txt".into(),
                    sha256: "a".repeat(64),
                },
            ],
            source: Source {
                repository: Some("https://github.com/o/r".into()),
                reference: Some("refs/tags/v1.2.3".into()),
                commit: Some("c".repeat(40)),
            },
            config: Some(ConfigFile {
                path: "capkg.yaml".into(),
                sha256: "d".repeat(64),
            }),
            components: vec![Components {
                provider: "infrastructure-x".into(),
                source: "command: kubectl kustomize config/default".into(),
            }],
            tools: BTreeMap::from([("kubectl".to_string(), "v1.31.0".to_string())]),
            builder: Builder {
                id: "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1.2.3".into(),
                invocation: Some("https://github.com/o/r/actions/runs/7/attempts/1".into()),
            },
        }
    }

    #[test]
    fn the_statement_is_in_toto_v1_with_slsa_provenance_and_sorted_subjects() {
        let bytes = statement(&inputs());
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(value["_type"], STATEMENT_TYPE);
        assert_eq!(value["predicateType"], PREDICATE_TYPE);
        assert_eq!(value["subject"][0]["name"], "checksums.txt");
        assert_eq!(value["subject"][1]["name"], "metadata.yaml");
        assert_eq!(value["subject"][1]["digest"]["sha256"], "b".repeat(64));
        let definition = &value["predicate"]["buildDefinition"];
        assert_eq!(definition["buildType"], BUILD_TYPE);
        assert_eq!(
            definition["externalParameters"]["source"]["ref"],
            "refs/tags/v1.2.3"
        );
        assert_eq!(
            definition["externalParameters"]["config"]["path"],
            "capkg.yaml"
        );
        assert_eq!(
            definition["internalParameters"]["tools"]["kubectl"],
            "v1.31.0"
        );
        assert_eq!(
            definition["resolvedDependencies"][0]["uri"],
            "git+https://github.com/o/r@refs/tags/v1.2.3"
        );
        assert_eq!(
            definition["resolvedDependencies"][0]["digest"]["gitCommit"],
            "c".repeat(40)
        );
        let run = &value["predicate"]["runDetails"];
        assert_eq!(
            run["builder"]["version"]["capkg"],
            env!("CARGO_PKG_VERSION")
        );
        assert_eq!(
            run["metadata"]["invocationId"],
            "https://github.com/o/r/actions/runs/7/attempts/1"
        );
        assert!(bytes.ends_with(b"}\n"));
    }

    #[test]
    fn the_same_inputs_give_the_same_bytes_in_any_order() {
        let mut reversed = inputs();
        reversed.subjects.reverse();
        assert_eq!(statement(&inputs()), statement(&reversed));
    }

    #[test]
    fn a_statement_reads_back() {
        let parsed = Parsed::parse(&statement(&inputs())).unwrap();
        assert_eq!(parsed.subjects.len(), 2);
        assert_eq!(parsed.subjects[0].name, "checksums.txt");
        assert_eq!(parsed.source.commit, Some("c".repeat(40)));
        assert_eq!(parsed.config_path.as_deref(), Some("capkg.yaml"));
        assert_eq!(parsed.version, "v1.2.3");
    }

    #[test]
    fn other_documents_are_refused_by_what_is_wrong() {
        let text = String::from_utf8(statement(&inputs())).unwrap();
        let other_type = text.replace(STATEMENT_TYPE, "https://in-toto.io/Statement/v0.1");
        assert!(matches!(
            Parsed::parse(other_type.as_bytes()),
            Err(Error::StatementType { .. })
        ));
        let other_predicate = text.replace(PREDICATE_TYPE, "https://slsa.dev/provenance/v0.2");
        assert!(matches!(
            Parsed::parse(other_predicate.as_bytes()),
            Err(Error::PredicateType { .. })
        ));
        let short_digest = text.replace(&"b".repeat(64), "bb");
        assert_eq!(
            Parsed::parse(short_digest.as_bytes()),
            Err(Error::BadSubject)
        );
        assert!(matches!(
            Parsed::parse(b"<html>"),
            Err(Error::Unreadable { .. })
        ));
    }
}
