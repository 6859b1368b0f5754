//! An assembled release folder as publish sees it: the release files directly in the folder,
//! each with its name, size and SHA-256, plus `checksums.txt` when the assemble step wrote one,
//! and the providers (type and name) they belong to.
//!
//! One release (one tag) may hold several providers, each with its own components file
//! (`bootstrap-components.yaml`, `control-plane-components.yaml`) and clusterctl URL, sharing
//! `metadata.yaml`, the templates and `checksums.txt`. GitHub and GitLab publish the files once;
//! a local repository, which clusterctl reads as `{label}/{version}/`, gets a folder per
//! provider ([`ReleaseDir::for_provider`]).
//!
//! It checks only what publishing needs: a components file and `metadata.yaml` exist, the files
//! match `checksums.txt`, the provider can be named. Whether the files are *good* is `lint`'s job.
//! Contents are held in memory: release files are YAML of at most a few megabytes, and retries
//! and read-backs need them more than once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use bytes::Bytes;

use crate::checksums::{self, CHECKSUMS_FILE, sha256_hex};
use crate::error::{Classified, ErrorClass};
use crate::files;
use crate::provenance::STATEMENT_FILE;
use crate::provider::{self, FileRole, ProviderType, ReleaseProvider};
use crate::version::Version;

/// Why a release folder cannot be published: what `capkg publish`, `capkg release` and
/// `capkg configmaps` report before they do anything else.
/// What `capkg assemble` appends to its output folder's name for a release it refused, written
/// only so that its findings name files that exist (`out` -> `out.rejected`).
pub(crate) const REJECTED_SUFFIX: &str = ".rejected";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "`{}` is a release `capkg assemble` refused, written only to read its findings; fix the sources and assemble again",
        dir.display()
    )]
    Rejected { dir: PathBuf },
    #[error("cannot read `{}`", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{}` is not a folder", path.display())]
    NotAFolder { path: PathBuf },
    #[error(transparent)]
    ReleaseFile(#[from] crate::files::Error),
    #[error(
        "`{}` holds no components file (`<type>-components.yaml`); publish takes an assembled release folder",
        dir.display()
    )]
    NoComponents { dir: PathBuf },
    #[error("`{}` holds no `metadata.yaml`, which clusterctl reads first from every release", dir.display())]
    NoMetadata { dir: PathBuf },
    #[error(
        "`{}` holds the components of several providers ({types}), so `{flag}` cannot say which it names; leave it out: each provider's name comes from its components' `cluster.x-k8s.io/provider` labels",
        dir.display()
    )]
    SeveralProviders {
        flag: String,
        dir: PathBuf,
        types: String,
    },
    #[error(
        "`--type {flag}` does not match the components file `{file}`, which is for {from_name}"
    )]
    ProviderTypeConflict {
        flag: String,
        file: String,
        from_name: String,
    },
    #[error(
        "cannot tell the provider's name: no object in `{}` carries the `cluster.x-k8s.io/provider` label; pass `--provider NAME`",
        path.display()
    )]
    UnknownProviderName { path: PathBuf },
    #[error(
        "the `cluster.x-k8s.io/provider` label `{label}` in `{}` is not a {provider_type} provider's label (expected `{expected}`); pass `--provider NAME` or `--type`",
        path.display()
    )]
    LabelTypeMismatch {
        path: PathBuf,
        label: String,
        provider_type: String,
        expected: String,
    },
    /// clusterctl's words first (`validateProvider`).
    #[error(transparent)]
    ProviderName { source: crate::provider::NameError },
    #[error("`{}` line {line}: not a `sha256sum` line (`<64 hex digits>  <file>`)", path.display())]
    ChecksumsSyntax { path: PathBuf, line: usize },
    #[error(
        "`{name}` does not match `checksums.txt`: the file has SHA-256 {actual}, the list says {expected}"
    )]
    ChecksumMismatch {
        name: String,
        expected: String,
        actual: String,
    },
    #[error("`checksums.txt` does not list `{name}`")]
    NotInChecksums { name: String },
    #[error("`checksums.txt` lists `{name}`, which is not in `{}`", dir.display())]
    ChecksummedFileMissing { name: String, dir: PathBuf },
}

impl Classified for Error {
    /// A refusal (exit 1) when the folder's content is wrong; a failure (exit 2) when it cannot
    /// be read or the command line asks for what cannot be told.
    fn class(&self) -> ErrorClass {
        match self {
            Error::Read { .. } | Error::NotAFolder { .. } | Error::SeveralProviders { .. } => {
                ErrorClass::Fault
            }
            Error::ReleaseFile(source) => source.class(),
            _ => ErrorClass::Refusal,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::ReleaseFile(source) => source.hint(),
            _ => None,
        }
    }
}

/// One file to publish.
#[derive(Debug, Clone)]
pub struct PublishFile {
    pub name: String,
    pub path: PathBuf,
    /// `None` for `checksums.txt`.
    pub role: Option<FileRole>,
    pub size: u64,
    /// Lower-case hex.
    pub sha256: String,
    pub contents: Bytes,
}

impl PublishFile {
    /// A file from memory (for tests and for the `release` command, which assembles in memory).
    pub fn from_bytes(name: &str, contents: impl Into<Bytes>) -> Self {
        let contents = contents.into();
        Self {
            name: name.to_string(),
            path: PathBuf::from(name),
            role: FileRole::from_file_name(name),
            size: contents.len() as u64,
            sha256: sha256_hex(&contents),
            contents,
        }
    }
}

/// An assembled release: what `capkg publish` publishes.
#[derive(Debug, Clone)]
pub struct ReleaseDir {
    pub dir: PathBuf,
    /// As given: the tag, the version folder, the package version (the `v` is kept).
    pub version: Version,
    /// Every provider of the release, at least one; the first is the one single-valued reports
    /// name (the default GitLab package).
    pub providers: Vec<ReleaseProvider>,
    /// In publishing order: by name, with `metadata.yaml` last, so that a destination without
    /// drafts (GitLab) has no `metadata.yaml` until everything else is there, and clusterctl,
    /// which reads it first, never sees half a release.
    pub files: Vec<PublishFile>,
    /// Files in the folder that are not release files and are not published.
    pub ignored: Vec<String>,
}

impl ReleaseDir {
    /// Reads `dir`. The provider type comes from `provider_type`, else the components file
    /// names; the name from `provider_name`, else the components' `cluster.x-k8s.io/provider`
    /// labels.
    pub fn load(
        dir: &Path,
        version: Version,
        provider_type: Option<ProviderType>,
        provider_name: Option<&str>,
    ) -> Result<Self, Error> {
        if dir
            .file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| name.ends_with(REJECTED_SUFFIX))
        {
            return Err(Error::Rejected {
                dir: dir.to_path_buf(),
            });
        }
        let metadata = std::fs::metadata(dir).map_err(|source| Error::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        if !metadata.is_dir() {
            return Err(Error::NotAFolder {
                path: dir.to_path_buf(),
            });
        }
        let entries = std::fs::read_dir(dir).map_err(|source| Error::Read {
            path: dir.to_path_buf(),
            source,
        })?;
        let mut files = Vec::new();
        let mut ignored = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| Error::Read {
                path: dir.to_path_buf(),
                source,
            })?;
            let path = entry.path();
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                ignored.push(entry.file_name().to_string_lossy().into_owned());
                continue;
            };
            let role = FileRole::from_file_name(&name);
            if role.is_none() && name != CHECKSUMS_FILE && name != STATEMENT_FILE {
                if !name.starts_with('.') {
                    ignored.push(name);
                }
                continue;
            }
            // A release file must be a regular file: reading through a link would publish
            // whatever it points at (`/proc/self/environ`, a CI secret).
            files::check_release_name(&name).map_err(files::Error::BadName)?;
            let contents = files::read_regular(&path).map_err(files::Error::from)?;
            let contents = Bytes::from(contents);
            files.push(PublishFile {
                size: contents.len() as u64,
                sha256: sha256_hex(&contents),
                name,
                path,
                role,
                contents,
            });
        }
        ignored.sort();
        Self::from_files(dir, version, provider_type, provider_name, files, ignored)
    }

    /// Builds a release from files already read; checks and names the provider as
    /// [`ReleaseDir::load`] does.
    pub fn from_files(
        dir: &Path,
        version: Version,
        provider_type: Option<ProviderType>,
        provider_name: Option<&str>,
        mut files: Vec<PublishFile>,
        ignored: Vec<String>,
    ) -> Result<Self, Error> {
        files.sort_by(|a, b| publish_order(&a.name).cmp(&publish_order(&b.name)));
        if !files.iter().any(|f| f.role == Some(FileRole::Metadata)) {
            return Err(Error::NoMetadata {
                dir: dir.to_path_buf(),
            });
        }
        let components: Vec<&PublishFile> = files
            .iter()
            .filter(|f| matches!(f.role, Some(FileRole::Components { .. })))
            .collect();
        let Some(first_components) = components.first() else {
            return Err(Error::NoComponents {
                dir: dir.to_path_buf(),
            });
        };
        let named_types: BTreeSet<ProviderType> = components
            .iter()
            .filter_map(|f| match f.role {
                Some(FileRole::Components { provider_type, .. }) => Some(provider_type),
                _ => None,
            })
            .collect();
        let components_of = |wanted: ProviderType| -> Vec<&PublishFile> {
            components
                .iter()
                .copied()
                .filter(|f| {
                    matches!(f.role, Some(FileRole::Components { provider_type, .. }) if provider_type == wanted)
                })
                .collect()
        };
        let types: Vec<ProviderType> = match provider_type {
            Some(flag) => {
                if let Some(other) = named_types.iter().find(|t| **t != flag) {
                    let file = components_of(*other)
                        .first()
                        .map_or_else(String::new, |f| f.name.clone());
                    return Err(Error::ProviderTypeConflict {
                        flag: flag.short_name().to_string(),
                        file,
                        from_name: other.short_name().to_string(),
                    });
                }
                vec![flag]
            }
            // Files of several types are a release of several providers, one per type.
            None => named_types.iter().copied().collect(),
        };
        if types.len() > 1
            && let Some(name) = provider_name
        {
            return Err(Error::SeveralProviders {
                flag: format!("--provider {name}"),
                dir: dir.to_path_buf(),
                types: types
                    .iter()
                    .map(|t| t.short_name())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let mut providers = Vec::new();
        for provider_type in types {
            let mut own = components_of(provider_type);
            own.sort_by_key(|f| {
                !matches!(&f.role, Some(FileRole::Components { suffix: None, .. }))
            });
            if own.is_empty() {
                own.push(first_components);
            }
            let provider_name = match provider_name {
                Some(name) => name.to_string(),
                None => name_from_labels(&own, provider_type)?,
            };
            provider::validate_name(Some(provider_type), &provider_name)
                .map_err(|source| Error::ProviderName { source })?;
            providers.push(ReleaseProvider {
                provider_type,
                name: provider_name,
                components: own.iter().map(|f| f.name.clone()).collect(),
            });
        }
        Self::with_providers(dir, version, providers, files, ignored)
    }

    /// A release whose providers are known (`capkg release` reads them from capkg.yaml): each
    /// provider's components files must be there; checks `metadata.yaml` and `checksums.txt`
    /// as [`ReleaseDir::load`] does.
    pub fn with_providers(
        dir: &Path,
        version: Version,
        providers: Vec<ReleaseProvider>,
        mut files: Vec<PublishFile>,
        ignored: Vec<String>,
    ) -> Result<Self, Error> {
        files.sort_by(|a, b| publish_order(&a.name).cmp(&publish_order(&b.name)));
        if !files.iter().any(|f| f.role == Some(FileRole::Metadata)) {
            return Err(Error::NoMetadata {
                dir: dir.to_path_buf(),
            });
        }
        let missing = providers.is_empty()
            || providers.iter().any(|p| {
                p.components.is_empty()
                    || p.components
                        .iter()
                        .any(|name| !files.iter().any(|f| f.name == *name))
            });
        if missing {
            return Err(Error::NoComponents {
                dir: dir.to_path_buf(),
            });
        }
        for provider in &providers {
            provider::validate_name(Some(provider.provider_type), &provider.name)
                .map_err(|source| Error::ProviderName { source })?;
        }
        let release = Self {
            dir: dir.to_path_buf(),
            version,
            providers,
            files,
            ignored,
        };
        release.verify_checksums()?;
        Ok(release)
    }

    /// The first provider: the one a single-provider release is about.
    pub fn primary(&self) -> &ReleaseProvider {
        // `with_providers` refuses a release without providers; a hand-built value still gets
        // a provider rather than a panic.
        static NONE: std::sync::OnceLock<ReleaseProvider> = std::sync::OnceLock::new();
        self.providers.first().unwrap_or_else(|| {
            NONE.get_or_init(|| ReleaseProvider {
                provider_type: ProviderType::Infrastructure,
                name: "unknown".into(),
                components: Vec::new(),
            })
        })
    }

    /// True when the release holds more than one provider.
    pub fn has_several_providers(&self) -> bool {
        self.providers.len() > 1
    }

    /// The part of the release clusterctl reads for provider `index` from a local repository
    /// folder `{label}/{version}/`: its components files, `metadata.yaml`, the templates when
    /// they belong to it ([`provider::templates_owner`]) and a `checksums.txt` over those. A
    /// single-provider release is returned whole.
    pub fn for_provider(&self, index: usize) -> ReleaseDir {
        if !self.has_several_providers() {
            return self.clone();
        }
        let Some(provider) = self.providers.get(index) else {
            return self.clone();
        };
        let owns_templates = provider::templates_owner(&self.providers) == Some(index);
        let mut files: Vec<PublishFile> = self
            .files
            .iter()
            .filter(|f| match &f.role {
                Some(FileRole::Components { .. }) => provider.owns_components(&f.name),
                Some(FileRole::Metadata) => true,
                Some(role) => role.is_template() && owns_templates,
                None => false,
            })
            .cloned()
            .collect();
        // Every name was checked when the folder was read (`files::check_release_name`), so the list
        // can be written; were one not, the part goes without a list rather than a wrong one.
        let list = checksums::write(files.iter().map(|f| (f.name.as_str(), f.contents.as_ref())));
        if let (Some(_), Ok(list)) = (self.file(CHECKSUMS_FILE), list) {
            let mut checksums = PublishFile::from_bytes(CHECKSUMS_FILE, list.into_bytes());
            checksums.path = self.dir.join(CHECKSUMS_FILE);
            files.push(checksums);
        }
        files.sort_by(|a, b| publish_order(&a.name).cmp(&publish_order(&b.name)));
        ReleaseDir {
            dir: self.dir.clone(),
            version: self.version.clone(),
            providers: vec![provider.clone()],
            files,
            ignored: self.ignored.clone(),
        }
    }

    /// The first provider's manifest label: the folder name of a local repository (of a
    /// single-provider release), the default GitLab package.
    pub fn provider_label(&self) -> String {
        self.primary().label()
    }

    /// Every provider's label, comma-separated, for messages.
    pub fn provider_labels(&self) -> String {
        self.providers
            .iter()
            .map(ReleaseProvider::label)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The name of the components file the first provider's clusterctl URL points at: the one
    /// without a suffix, else the first.
    pub fn components_name(&self) -> String {
        self.primary().components_name()
    }

    /// The release with `file` added (or put in place of the file of its name), in publishing
    /// order: a file made after the others, as the provenance bundle is.
    pub fn with_file(&self, file: PublishFile) -> ReleaseDir {
        let mut release = self.clone();
        release.files.retain(|f| f.name != file.name);
        release.files.push(file);
        release
            .files
            .sort_by(|a, b| publish_order(&a.name).cmp(&publish_order(&b.name)));
        release
    }

    pub fn file(&self, name: &str) -> Option<&PublishFile> {
        self.files.iter().find(|f| f.name == name)
    }

    /// Checks every file against `checksums.txt`, when there is one: each release file must be
    /// listed with its SHA-256, and each listed file must exist.
    fn verify_checksums(&self) -> Result<(), Error> {
        let Some(list) = self.file(CHECKSUMS_FILE) else {
            return Ok(());
        };
        let entries = checksums::parse(&list.contents).map_err(|e| Error::ChecksumsSyntax {
            path: list.path.clone(),
            line: e.line,
        })?;
        let listed: BTreeMap<String, String> = entries
            .into_iter()
            .map(|entry| (entry.name, entry.sha256))
            .collect();
        // The provenance statement is about the listed files and `checksums.txt`, so it comes
        // after the list and is not in it.
        for file in self
            .files
            .iter()
            .filter(|f| f.name != CHECKSUMS_FILE && f.name != STATEMENT_FILE)
        {
            match listed.get(&file.name) {
                None => {
                    return Err(Error::NotInChecksums {
                        name: file.name.clone(),
                    });
                }
                Some(expected) if *expected != file.sha256 => {
                    return Err(Error::ChecksumMismatch {
                        name: file.name.clone(),
                        expected: expected.clone(),
                        actual: file.sha256.clone(),
                    });
                }
                Some(_) => {}
            }
        }
        for name in listed.keys() {
            if self.file(name).is_none() && !self.dir.join(name).is_file() {
                return Err(Error::ChecksummedFileMissing {
                    name: name.clone(),
                    dir: self.dir.clone(),
                });
            }
        }
        Ok(())
    }
}

/// Sort key: by name, `checksums.txt` next to last, `metadata.yaml` last.
fn publish_order(name: &str) -> (u8, &str) {
    match name {
        "metadata.yaml" => (2, name),
        CHECKSUMS_FILE => (1, name),
        _ => (0, name),
    }
}

/// The provider name from the `cluster.x-k8s.io/provider` labels of a provider's components
/// files, by the rule every command follows ([`provider::name_from_labels`]); errors name the
/// first file.
fn name_from_labels(own: &[&PublishFile], provider_type: ProviderType) -> Result<String, Error> {
    let loaded: Vec<files::ReleaseFile> = own
        .iter()
        .map(|file| {
            let text = String::from_utf8_lossy(&file.contents).into_owned();
            let role = file.role.clone().unwrap_or(FileRole::Components {
                provider_type,
                suffix: None,
            });
            files::load_text(&file.name, text, role)
        })
        .collect();
    let roots = || loaded.iter().flat_map(|file| file.yaml.roots());
    if let Some(name) = provider::name_from_objects(Some(provider_type), roots()) {
        return Ok(name);
    }
    let path = own.first().map(|f| f.path.clone()).unwrap_or_default();
    match provider::provider_labels(roots()).find(|label| !label.contains("${")) {
        Some(label) => Err(Error::LabelTypeMismatch {
            path,
            provider_type: provider_type.short_name().to_string(),
            expected: provider_type.manifest_label("<name>"),
            label: label.to_string(),
        }),
        None => Err(Error::UnknownProviderName { path }),
    }
}

#[cfg(test)]
impl ReleaseDir {
    /// A small valid release of `infrastructure-aws` (components and metadata), for tests of
    /// the layers above.
    pub(crate) fn sample(version: &str) -> ReleaseDir {
        let files = vec![
            PublishFile::from_bytes(
                "infrastructure-components.yaml",
                tests::COMPONENTS.as_bytes().to_vec(),
            ),
            PublishFile::from_bytes("metadata.yaml", tests::METADATA.as_bytes().to_vec()),
        ];
        match Version::parse(version)
            .map_err(|e| e.to_string())
            .and_then(|v| {
                ReleaseDir::from_files(Path::new("out"), v, None, None, files, vec![])
                    .map_err(|e| e.to_string())
            }) {
            Ok(release) => release,
            Err(err) => panic!("sample release: {err}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Classified;

    pub(super) const COMPONENTS: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capa-system\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-aws\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: m\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-aws\n";
    pub(super) const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 2\n  contract: v1beta1\n";

    fn v(text: &str) -> Version {
        Version::parse(text).unwrap()
    }

    fn release(files: &[(&str, &str)]) -> Result<ReleaseDir, Error> {
        let files = files
            .iter()
            .map(|(name, text)| PublishFile::from_bytes(name, text.as_bytes().to_vec()))
            .collect();
        ReleaseDir::from_files(Path::new("out"), v("v1.2.3"), None, None, files, vec![])
    }

    #[test]
    fn provider_comes_from_the_file_name_and_labels() {
        let release = release(&[
            ("infrastructure-components.yaml", COMPONENTS),
            ("metadata.yaml", METADATA),
            ("cluster-template.yaml", "kind: Cluster\n"),
        ])
        .unwrap();
        assert_eq!(release.providers.len(), 1);
        assert_eq!(
            release.primary().provider_type,
            ProviderType::Infrastructure
        );
        assert_eq!(release.primary().name, "aws");
        assert_eq!(release.provider_label(), "infrastructure-aws");
        assert_eq!(release.components_name(), "infrastructure-components.yaml");
        let names: Vec<&str> = release.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "cluster-template.yaml",
                "infrastructure-components.yaml",
                "metadata.yaml"
            ]
        );
    }

    #[test]
    fn flags_win_and_conflicts_are_named() {
        let files = vec![
            PublishFile::from_bytes(
                "infrastructure-components.yaml",
                COMPONENTS.as_bytes().to_vec(),
            ),
            PublishFile::from_bytes("metadata.yaml", METADATA.as_bytes().to_vec()),
        ];
        let named = ReleaseDir::from_files(
            Path::new("out"),
            v("v1.0.0"),
            Some(ProviderType::Infrastructure),
            Some("other"),
            files.clone(),
            vec![],
        )
        .unwrap();
        assert_eq!(named.provider_label(), "infrastructure-other");
        let err = ReleaseDir::from_files(
            Path::new("out"),
            v("v1.0.0"),
            Some(ProviderType::Bootstrap),
            None,
            files,
            vec![],
        )
        .unwrap_err();
        assert!(matches!(err, Error::ProviderTypeConflict { .. }), "{err}");
    }

    #[test]
    fn missing_pieces_are_refused() {
        let err = release(&[("metadata.yaml", METADATA)]).unwrap_err();
        assert!(matches!(err, Error::NoComponents { .. }));
        let err = release(&[("infrastructure-components.yaml", COMPONENTS)]).unwrap_err();
        assert!(matches!(err, Error::NoMetadata { .. }));
        let err = release(&[
            (
                "infrastructure-components.yaml",
                "kind: Namespace\nmetadata:\n  name: x\n",
            ),
            ("metadata.yaml", METADATA),
        ])
        .unwrap_err();
        assert!(err.to_string().contains("--provider"), "{err}");
        let err = release(&[
            (
                "infrastructure-components.yaml",
                "kind: Namespace\nmetadata:\n  labels:\n    cluster.x-k8s.io/provider: bootstrap-kubeadm\n",
            ),
            ("metadata.yaml", METADATA),
        ])
        .unwrap_err();
        assert!(matches!(err, Error::LabelTypeMismatch { .. }), "{err}");
    }

    #[test]
    fn checksums_cover_every_file() {
        let sums = format!(
            "{}  infrastructure-components.yaml\n{}  metadata.yaml\n",
            sha256_hex(COMPONENTS.as_bytes()),
            sha256_hex(METADATA.as_bytes())
        );
        let ok = release(&[
            ("infrastructure-components.yaml", COMPONENTS),
            ("metadata.yaml", METADATA),
            (CHECKSUMS_FILE, &sums),
        ])
        .unwrap();
        assert_eq!(ok.files[1].name, CHECKSUMS_FILE);
        let err = release(&[
            ("infrastructure-components.yaml", COMPONENTS),
            ("metadata.yaml", "changed"),
            (CHECKSUMS_FILE, &sums),
        ])
        .unwrap_err();
        assert!(matches!(err, Error::ChecksumMismatch { ref name, .. } if name == "metadata.yaml"));
        let err = release(&[
            ("infrastructure-components.yaml", COMPONENTS),
            ("metadata.yaml", METADATA),
            ("cluster-template.yaml", "x"),
            (CHECKSUMS_FILE, &sums),
        ])
        .unwrap_err();
        assert!(matches!(err, Error::NotInChecksums { .. }));
        let err = release(&[
            ("infrastructure-components.yaml", COMPONENTS),
            ("metadata.yaml", METADATA),
            (CHECKSUMS_FILE, "not a checksum line\n"),
        ])
        .unwrap_err();
        assert!(matches!(err, Error::ChecksumsSyntax { line: 1, .. }));
    }

    const BOOTSTRAP: &str = "kind: Namespace\nmetadata:\n  name: b\n  labels:\n    cluster.x-k8s.io/provider: bootstrap-kubeadm\n";
    const CONTROL_PLANE: &str = "kind: Namespace\nmetadata:\n  name: c\n  labels:\n    cluster.x-k8s.io/provider: control-plane-kubeadm\n";

    #[test]
    fn a_folder_of_several_types_is_a_release_of_several_providers() {
        let release = release(&[
            ("bootstrap-components.yaml", BOOTSTRAP),
            ("control-plane-components.yaml", CONTROL_PLANE),
            ("metadata.yaml", METADATA),
        ])
        .unwrap();
        let labels: Vec<String> = release.providers.iter().map(|p| p.label()).collect();
        assert_eq!(labels, ["bootstrap-kubeadm", "control-plane-kubeadm"]);
        assert_eq!(
            release.providers[1].components,
            ["control-plane-components.yaml"]
        );
        assert!(release.has_several_providers());
        // `--provider` cannot say which provider it names.
        let files = vec![
            PublishFile::from_bytes("bootstrap-components.yaml", BOOTSTRAP.as_bytes().to_vec()),
            PublishFile::from_bytes(
                "control-plane-components.yaml",
                CONTROL_PLANE.as_bytes().to_vec(),
            ),
            PublishFile::from_bytes("metadata.yaml", METADATA.as_bytes().to_vec()),
        ];
        let err = ReleaseDir::from_files(
            Path::new("out"),
            v("v1.2.3"),
            None,
            Some("kubeadm"),
            files,
            vec![],
        )
        .unwrap_err();
        assert!(matches!(err, Error::SeveralProviders { .. }), "{err}");
        assert!(!err.is_refusal());
    }

    #[test]
    fn each_provider_part_has_its_files_and_its_own_checksums() {
        let files = [
            ("bootstrap-components.yaml", BOOTSTRAP),
            ("infrastructure-components.yaml", COMPONENTS),
            ("metadata.yaml", METADATA),
            ("cluster-template.yaml", "kind: Cluster\n"),
        ];
        let sums = checksums::write(files.iter().map(|(n, t)| (*n, t.as_bytes()))).unwrap();
        let mut all = files.to_vec();
        all.push((CHECKSUMS_FILE, &sums));
        let release = release(&all).unwrap();
        assert_eq!(release.providers.len(), 2);
        let names = |part: &ReleaseDir| -> Vec<String> {
            let mut names: Vec<String> = part.files.iter().map(|f| f.name.clone()).collect();
            names.sort();
            names
        };
        let bootstrap = release.for_provider(0);
        assert_eq!(bootstrap.provider_label(), "bootstrap-kubeadm");
        assert_eq!(
            names(&bootstrap),
            [
                "bootstrap-components.yaml",
                "checksums.txt",
                "metadata.yaml"
            ]
        );
        // The templates belong to the infrastructure provider.
        let infrastructure = release.for_provider(1);
        assert_eq!(
            names(&infrastructure),
            [
                "checksums.txt",
                "cluster-template.yaml",
                "infrastructure-components.yaml",
                "metadata.yaml"
            ]
        );
        // Each part's checksums cover exactly its files, so each verifies on its own.
        infrastructure.verify_checksums().unwrap();
        bootstrap.verify_checksums().unwrap();
        let text =
            String::from_utf8_lossy(&bootstrap.file(CHECKSUMS_FILE).unwrap().contents).into_owned();
        assert!(!text.contains("infrastructure-components.yaml"), "{text}");
    }
}
