//! `capkg assemble`: a clusterctl-ready release folder from the maintainer's sources.
//!
//! Two steps, so that `capkg release` can assemble in memory and publish without a folder:
//!
//! 1. [`plan`] reads the sources a [`Config`] names ([`sources`]), applies the release
//!    transformations to each components file ([`transform`]), copies `metadata.yaml` and the
//!    templates byte for byte, computes `checksums.txt`, and lints the result with the version
//!    being released. The [`AssembledRelease`] holds every file's name and bytes and the lint
//!    diagnostics; nothing is written.
//! 2. [`AssembledRelease::write`] writes the folder atomically ([`write`]) and refuses when the lint
//!    found an error.
//!
//! [`clusterctl`] is the other half of the story: what clusterctl itself does to these files at
//! install time and how it prints them (`capkg render`).

pub mod clusterctl;
mod parallel;
pub mod scaffold;
pub mod sources;
pub mod transform;
pub mod typed;
pub mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::config::{ComponentsSource, Config};
use std::sync::Arc;

use crate::files::{self, Release, ReleaseFile};
use crate::provider::{FileRole, PROVIDER_LABEL, Provider, ProviderType};
use crate::rules::{self, Diagnostic, Severity, Summary};
use crate::version::Version;
use crate::yaml::{Node, Source, YamlFile};

pub use sources::SourceError;
pub use transform::{TransformError, TransformOptions, Transformed};
pub use write::{CHECKSUMS_FILE, WriteError, checksums, sha256_hex};

/// What `plan` needs besides the configuration.
#[derive(Debug, Clone, Default)]
pub struct AssembleOptions {
    /// The version being released; lint checks `metadata.yaml` covers it and the manager image
    /// carries it. `None` lints without a version.
    pub version: Option<Version>,
    /// The folder the release will be written to; diagnostics about the assembled components
    /// name files in it (default `out`).
    pub out_dir: Option<PathBuf>,
}

/// One file of the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembledFile {
    /// The name in the release folder (`infrastructure-components.yaml`).
    pub name: String,
    pub bytes: Vec<u8>,
    /// The file it was copied from, for files copied unchanged.
    pub copied_from: Option<PathBuf>,
}

/// A release assembled in memory.
#[derive(Debug, Clone)]
pub struct AssembledRelease {
    pub provider_type: ProviderType,
    pub provider_name: String,
    pub version: Option<Version>,
    /// The release files by name, without `checksums.txt`.
    pub files: Vec<AssembledFile>,
    /// `checksums.txt`: `sha256sum` lines for [`AssembledRelease::files`].
    pub checksums: String,
    /// What the lint found in the files, sorted by file and position.
    pub diagnostics: Vec<Diagnostic>,
    /// What the transformations changed, one line each, per components file.
    pub changes: Vec<(String, Vec<String>)>,
}

impl AssembledRelease {
    /// clusterctl's label for the provider (`infrastructure-aws`).
    pub fn provider_label(&self) -> String {
        self.provider_type.manifest_label(&self.provider_name)
    }

    /// Number of error diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .count()
    }

    pub fn has_errors(&self) -> bool {
        self.error_count() > 0
    }

    /// The lint summary (files counted without `checksums.txt`).
    pub fn summary(&self) -> Summary {
        Summary::of(&self.diagnostics, self.files.len())
    }

    /// Every file to write or publish, `checksums.txt` included, by name.
    pub fn all_files(&self) -> Vec<(String, Vec<u8>)> {
        let mut all: Vec<(String, Vec<u8>)> = self
            .files
            .iter()
            .map(|f| (f.name.clone(), f.bytes.clone()))
            .collect();
        all.push((
            CHECKSUMS_FILE.to_string(),
            self.checksums.clone().into_bytes(),
        ));
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// The file named `name`.
    pub fn file(&self, name: &str) -> Option<&AssembledFile> {
        self.files.iter().find(|f| f.name == name)
    }

    /// Writes the release folder atomically; refuses (writing nothing) when the lint found errors.
    pub fn write(&self, out: &Path) -> Result<(), Error> {
        let errors = self.error_count();
        if errors > 0 {
            return Err(Error::LintErrors { errors });
        }
        write::write_dir(&self.all_files(), out)?;
        Ok(())
    }
}

/// Why a release could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error(transparent)]
    Transform(#[from] TransformError),
    #[error(transparent)]
    Write(#[from] WriteError),
    #[error(
        "no components configured: set `components:` in capkg.yaml (a `file`, `files` or a `command`)"
    )]
    NoComponents,
    #[error("the provider type is not known: set `provider.type` in capkg.yaml or pass `--type`")]
    NoProviderType,
    #[error(
        "the provider name is not known: set `provider.name` in capkg.yaml or pass `--provider` (no `{PROVIDER_LABEL}` label in the components names it either)"
    )]
    NoProviderName,
    #[error("the assembled release has {errors} lint error(s); nothing was written")]
    LintErrors { errors: usize },
    #[error(transparent)]
    BadName(#[from] files::BadName),
}

impl Error {
    /// True when the sources are wrong (exit 1), false when capkg could not do its job (exit 2).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            Error::Transform(_)
                | Error::LintErrors { .. }
                | Error::BadName(_)
                | Error::Source(
                    SourceError::CommandFailed { .. }
                        | SourceError::CommandTimedOut { .. }
                        | SourceError::CommandOutputTooLarge { .. }
                        | SourceError::NotRegular(_)
                        | SourceError::OutsideRepository { .. }
                        | SourceError::BadName(_)
                        | SourceError::CommandOutputEmpty { .. }
                        | SourceError::CommandOutputNotText { .. }
                        | SourceError::NotText { .. }
                        | SourceError::NotATemplate { .. }
                        | SourceError::DuplicateName { .. }
                )
        )
    }

    /// What to do about it, when known.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::NoComponents => {
                Some("`capkg init` writes a capkg.yaml to start from".to_string())
            }
            Error::Source(source) => source.hint(),
            _ => None,
        }
    }
}

/// Assembles the release a configuration describes, in memory, and lints it.
pub fn plan(config: &Config, options: &AssembleOptions) -> Result<AssembledRelease, Error> {
    if config.components.is_empty() {
        return Err(Error::NoComponents);
    }
    let out_dir = options
        .out_dir
        .clone()
        .or_else(|| config.output.as_ref().map(|o| config.resolve(o)))
        .unwrap_or_else(|| config.resolve(Path::new("out")));
    let provider_type = config
        .provider
        .provider_type
        .or_else(|| type_from_file_names(config))
        .ok_or(Error::NoProviderType)?;

    let mut parsed = Vec::new();
    for components in &config.components {
        let text = sources::read_components(&components.source, &components.limits, &config.root)?;
        let (source, objects) = transform::parse_objects(&text.origin, text.text)?;
        parsed.push((components.suffix.clone(), text.origin, source, objects));
    }
    let provider_name = match &config.provider.name {
        Some(name) => name.clone(),
        None => name_from_labels(
            provider_type,
            parsed.iter().flat_map(|(_, _, _, objects)| objects.iter()),
        )
        .ok_or(Error::NoProviderName)?,
    };
    let label = provider_type.manifest_label(&provider_name);

    let mut files = Vec::new();
    let mut lint_files = Vec::new();
    let mut changes = Vec::new();
    for (suffix, origin, source, objects) in parsed {
        let name = match &suffix {
            None => provider_type.components_file_name(),
            Some(suffix) => format!("{}-components-{suffix}.yaml", provider_type.short_name()),
        };
        let transformed = transform::transform(
            &origin,
            &source,
            objects,
            &TransformOptions {
                namespace: config.namespace.as_deref(),
                provider_label: &label,
            },
        )?;
        // Lint reads what is written: the writer's read-back is what a parser loads from the
        // text (see `yaml::write_layout`), and the text is parsed when there is none.
        let input_size = source.text().len();
        // The source text's memory, already paged in, takes the written text.
        let buffer = Arc::try_unwrap(source)
            .map(Source::into_text)
            .unwrap_or_default();
        let parallel::Written {
            text: yaml,
            documents,
        } = parallel::write_layout_read_back(transformed.objects, input_size, buffer);
        changes.push((name.clone(), transformed.changes));
        let shown = out_dir.join(&name);
        let bytes = yaml.as_bytes().to_vec();
        let written = Arc::new(Source::new(shown.display().to_string(), yaml));
        let loaded = match documents {
            Some(documents) => YamlFile {
                source: written,
                documents,
                errors: Vec::new(),
            },
            None => parallel::parse(written),
        };
        lint_files.push(ReleaseFile {
            path: shown,
            role: FileRole::Components {
                provider_type,
                suffix,
            },
            yaml: loaded,
            substituted: false,
        });
        files.push(AssembledFile {
            name,
            bytes,
            copied_from: None,
        });
    }

    let metadata_path = config.resolve(
        config
            .metadata
            .as_deref()
            .unwrap_or(Path::new("metadata.yaml")),
    );
    let mut copies: BTreeMap<String, PathBuf> =
        sources::find_templates(&config.templates, &config.root)?;
    copies.insert("metadata.yaml".to_string(), metadata_path);
    for (name, path) in copies {
        let text = sources::read_text(&path, &config.root)?;
        let role = FileRole::from_file_name(&name).unwrap_or(FileRole::Metadata);
        // Findings about a copied file point at the maintainer's file, which has the same bytes.
        let shown = if path.file_name().and_then(|n| n.to_str()) == Some(name.as_str()) {
            path.display().to_string()
        } else {
            out_dir.join(&name).display().to_string()
        };
        lint_files.push(files::load_text(&shown, text.clone(), role));
        files.push(AssembledFile {
            name,
            bytes: text.into_bytes(),
            copied_from: Some(path),
        });
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    let checksums_of = |files: &[AssembledFile]| {
        write::checksums(files.iter().map(|f| (f.name.as_str(), f.bytes.as_slice())))
    };

    let release = Release {
        dir: out_dir,
        files: lint_files,
        near_misses: Vec::new(),
    };
    let lint = || {
        rules::run(
            std::slice::from_ref(&release),
            &rules::Options {
                provider_type: Some(provider_type),
                provider_name: Some(provider_name.clone()),
                version: options.version.clone(),
            },
        )
    };
    // Hashing a large release takes about as long as linting it: one on each core. The other
    // core also finds the line starts of the files, which reporting a finding needs.
    let total: usize = files.iter().map(|f| f.bytes.len()).sum();
    let (checksums, diagnostics) = if total >= parallel::PARALLEL_FROM {
        std::thread::scope(|scope| {
            let checksums = scope.spawn(|| {
                let checksums = checksums_of(&files);
                for file in &release.files {
                    file.yaml.source.line_count();
                }
                checksums
            });
            let diagnostics = lint();
            (checksums.join(), diagnostics)
        })
    } else {
        (Ok(checksums_of(&files)), lint())
    };
    // A panic while hashing would be a bug; hash again on this thread.
    let checksums = checksums.unwrap_or_else(|_| checksums_of(&files))?;
    if total >= parallel::PARALLEL_FROM {
        // Freeing the loaded trees takes milliseconds the caller (about to report and exit)
        // need not wait for.
        std::thread::spawn(move || drop(release));
    }
    Ok(AssembledRelease {
        provider_type,
        provider_name,
        version: options.version.clone(),
        files,
        checksums,
        diagnostics,
        changes,
    })
}

/// The type a components file's own name gives (`file: infrastructure-components.yaml`).
fn type_from_file_names(config: &Config) -> Option<ProviderType> {
    config.components.iter().find_map(|c| match &c.source {
        ComponentsSource::File(path) => {
            match FileRole::from_file_name(path.file_name()?.to_str()?)? {
                FileRole::Components { provider_type, .. } => Some(provider_type),
                _ => None,
            }
        }
        _ => None,
    })
}

/// The name the components' existing provider labels give most often (first seen on ties).
fn name_from_labels<'a>(
    provider_type: ProviderType,
    objects: impl Iterator<Item = &'a Node>,
) -> Option<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for root in objects {
        let Some(label) = root
            .path(&["metadata", "labels", PROVIDER_LABEL])
            .and_then(Node::as_str)
        else {
            continue;
        };
        // A label without a type prefix (`helm` where clusterctl writes `addon-helm`) is
        // still the provider's name.
        let name = match ProviderType::split_label(label) {
            Some((label_type, name)) if label_type == provider_type => name,
            Some(_) => continue,
            None if crate::provider::validate_name(Some(provider_type), label).is_ok() => label,
            None => continue,
        };
        match counts.iter_mut().find(|(n, _)| n == name) {
            Some((_, count)) => *count += 1,
            None => counts.push((name.to_string(), 1)),
        }
    }
    let best = counts.iter().map(|(_, c)| *c).max()?;
    counts.into_iter().find(|(_, c)| *c == best).map(|(n, _)| n)
}

/// The provider of an assembled release, for reports.
impl From<&AssembledRelease> for Provider {
    fn from(release: &AssembledRelease) -> Provider {
        Provider {
            provider_type: Some(release.provider_type),
            name: Some(release.provider_name.clone()),
        }
    }
}
