//! `capkg assemble`: a clusterctl-ready release folder from the maintainer's sources.
//!
//! Two steps, so that `capkg release` can assemble in memory and publish without a folder:
//!
//! 1. [`build`] reads the [`Sources`] ([`sources`]; resolved from capkg.yaml and the flags by
//!    [`crate::settings`]), runs the components commands, applies the release transformations to
//!    each components file ([`transform`]), copies `metadata.yaml` and the templates byte for
//!    byte, computes `checksums.txt`, and lints the result with the version being released. The
//!    [`AssembledRelease`] holds every file's name and bytes, each provider's part as lint loaded
//!    it, and the findings (before waivers: the command's report applies them); nothing is
//!    written.
//! 2. [`AssembledRelease::write`] writes the folder atomically ([`write`](mod@write)) and refuses when the lint
//!    found an error.
//!
//! [`clusterctl`] is the other half of the story: what clusterctl itself does to these files at
//! install time and how it prints them (`capkg render`).

pub mod clusterctl;
pub mod images;
mod parallel;
pub mod sources;
pub mod transform;
pub mod typed;
pub mod write;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::checksums::CHECKSUMS_FILE;
use crate::config::{self, ComponentsSource, ImagePin, ProviderConfig};
use crate::error::{Classified, ErrorClass};
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Summary};
use crate::files::{self, Release, ReleaseFile};
use crate::provider::{FileRole, PROVIDER_LABEL, Provider, ProviderType, ReleaseProvider};
use crate::rules::{self};
use crate::version::Version;
use crate::yaml::{Source, YamlFile};

pub use sources::SourceError;
pub use transform::{TransformError, TransformOptions, Transformed};
pub use write::WriteError;

/// What a release is built from: capkg.yaml and `assemble`'s flags, resolved by
/// [`crate::settings`] (paths joined, defaults filled, pins given their version).
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// The folder relative paths resolve against and components commands run in.
    pub root: PathBuf,
    /// The providers released under one tag, in the order given.
    pub providers: Vec<ProviderConfig>,
    /// The top-level `namespace:`; a provider's own wins.
    pub namespace: Option<String>,
    /// `metadata.yaml` of the release.
    pub metadata: PathBuf,
    /// Globs (relative to [`Sources::root`], or absolute) for templates and ClusterClass files.
    pub templates: Vec<String>,
    /// `images:`, with `{version}` and `{semver}` filled in.
    pub pins: Vec<ImagePin>,
}

impl Sources {
    /// A path of the sources, joined to [`Sources::root`].
    pub fn resolve(&self, path: &Path) -> PathBuf {
        crate::files::resolve_in(&self.root, path)
    }

    /// The namespace `provider`'s components install into: its own, else the top-level one.
    fn namespace_of<'a>(&'a self, provider: &'a ProviderConfig) -> Option<&'a str> {
        provider.namespace.as_deref().or(self.namespace.as_deref())
    }
}

/// What `plan` needs besides the configuration.
#[derive(Debug, Clone, Default)]
pub struct AssembleOptions {
    /// The version being released; lint checks `metadata.yaml` covers it and the manager image
    /// carries it. `None` lints without a version.
    pub version: Option<Version>,
    /// The folder the release will be written to; diagnostics about the assembled components
    /// name files in it.
    pub out_dir: PathBuf,
    /// Whether to keep the lines saying what assembling changed ([`AssembledRelease::changes`],
    /// which `capkg assemble -v` prints).
    pub record_changes: bool,
}

/// One file of the release.
#[derive(Debug, Clone)]
pub struct AssembledFile {
    /// The name in the release folder (`infrastructure-components.yaml`).
    pub name: String,
    /// The file's text, shared with the loaded copy lint reads: a components file is megabytes,
    /// and a copy of it was a whole input's worth of the peak memory.
    text: Arc<Source>,
    /// The file it was copied from, for files copied unchanged.
    pub copied_from: Option<PathBuf>,
}

impl AssembledFile {
    pub fn bytes(&self) -> &[u8] {
        self.text.text().as_bytes()
    }

    /// The bytes, moved out when nothing else holds them.
    fn into_bytes(self) -> Vec<u8> {
        Arc::try_unwrap(self.text)
            .map(Source::into_text)
            .unwrap_or_else(|shared| shared.text().to_string())
            .into_bytes()
    }
}

impl PartialEq for AssembledFile {
    fn eq(&self, other: &Self) -> bool {
        (&self.name, self.bytes(), &self.copied_from)
            == (&other.name, other.bytes(), &other.copied_from)
    }
}

impl Eq for AssembledFile {}

/// A release assembled in memory: one tag, one or several providers.
#[derive(Debug, Clone)]
pub struct AssembledRelease {
    /// Every provider of the release with its components files, in the configuration's order.
    pub providers: Vec<ReleaseProvider>,
    pub version: Option<Version>,
    /// The release files by name, without `checksums.txt`.
    pub files: Vec<AssembledFile>,
    /// `checksums.txt`: `sha256sum` lines for [`AssembledRelease::files`].
    pub checksums: String,
    /// What the lint found in the files, sorted by file and position, before waivers.
    pub diagnostics: Vec<Diagnostic>,
    /// Each provider's part of the release as lint loaded it (its components, `metadata.yaml`,
    /// and the templates with the provider that owns them), for the checks and comparisons
    /// after assembly: the release is parsed once.
    pub parts: Vec<(Release, rules::Options)>,
    /// What the transformations changed, one line each, per components file; none unless
    /// [`AssembleOptions::record_changes`].
    pub changes: Vec<(String, Vec<String>)>,
}

impl AssembledRelease {
    /// Lets the parsed parts go: freeing the trees of a large release takes milliseconds that a
    /// caller about to report and exit need not wait for.
    pub fn drop_parts(&mut self) {
        let parts = std::mem::take(&mut self.parts);
        let size: usize = self.files.iter().map(|f| f.bytes().len()).sum();
        if size >= parallel::PARALLEL_FROM {
            crate::threads::in_background(move || drop(parts));
        }
    }

    /// clusterctl's labels of the providers (`infrastructure-aws`), comma-separated.
    pub fn provider_label(&self) -> String {
        self.providers
            .iter()
            .map(ReleaseProvider::label)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Number of error diagnostics.
    pub fn error_count(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.is_blocking_error())
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
    pub fn all_files(&self) -> Vec<(&str, &[u8])> {
        let mut all: Vec<(&str, &[u8])> = self
            .files
            .iter()
            .map(|f| (f.name.as_str(), f.bytes()))
            .collect();
        all.push((CHECKSUMS_FILE, self.checksums.as_bytes()));
        all.sort_by(|a, b| a.0.cmp(b.0));
        all
    }

    /// [`AssembledRelease::all_files`], moved out.
    pub fn into_files(self) -> Vec<(String, Vec<u8>)> {
        let mut all: Vec<(String, Vec<u8>)> = self
            .files
            .into_iter()
            .map(|f| (f.name.clone(), f.into_bytes()))
            .collect();
        all.push((CHECKSUMS_FILE.to_string(), self.checksums.into_bytes()));
        all.sort_by(|a, b| a.0.cmp(&b.0));
        all
    }

    /// The file named `name`.
    pub fn file(&self, name: &str) -> Option<&AssembledFile> {
        self.files.iter().find(|f| f.name == name)
    }

    /// Writes the release as assembled to `dir` when any of `diagnostics` names one of its files
    /// in `shown_in` (where [`build`] names files that are not copied under their own name), so
    /// that the file and line a finding names can be opened; with `dir` other than `shown_in`,
    /// those findings are renamed to name the files in `dir`. `None` when every finding names a
    /// source file (or none). The same mechanism serves `release`, which builds in memory, and
    /// `assemble` refusing a release, which leaves its output folder alone.
    pub fn write_for_findings(
        &self,
        diagnostics: &mut [Diagnostic],
        shown_in: &Path,
        dir: &Path,
    ) -> Option<Result<(), WriteError>> {
        let assembled = |d: &Diagnostic| {
            let name = d.file_name()?;
            self.files
                .iter()
                .find(|f| Path::new(name) == shown_in.join(&f.name))
        };
        if !diagnostics.iter().any(|d| assembled(d).is_some()) {
            return None;
        }
        if dir != shown_in {
            // One renamed text per file, shared by its findings (spans are unchanged: same bytes).
            let mut renamed: BTreeMap<String, Arc<Source>> = BTreeMap::new();
            for diagnostic in diagnostics.iter_mut() {
                let Some(file) = assembled(diagnostic) else {
                    continue;
                };
                let source = renamed.entry(file.name.clone()).or_insert_with(|| {
                    Arc::new(Source::new(
                        dir.join(&file.name).display().to_string(),
                        file.text.text(),
                    ))
                });
                diagnostic.file = Some(source.clone());
            }
        }
        Some(write::write_dir(&self.all_files(), dir))
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
    Images(#[from] images::ImagesError),
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
    #[error(
        "the name or type of the provider `{provider}` is not known: set `name` and `type` in its `providers:` entry"
    )]
    UnnamedProvider { provider: String },
    #[error(
        "the providers `{first}` and `{second}` both write `{file}` into the one release; give one of them a `suffix` in its `providers:` entry"
    )]
    SameComponentsFile {
        file: String,
        first: String,
        second: String,
    },
    #[error("the provider `{label}` is listed twice in `providers:`")]
    SameProvider { label: String },
    #[error(
        "{file}: the file name says a `{named}` provider's components, but capkg.yaml releases them as `{released}` components; fix `type` of the provider in capkg.yaml, or use the file the release needs"
    )]
    FileNamesOtherType {
        file: String,
        named: ProviderType,
        released: ProviderType,
    },
    #[error("the assembled release has {errors} lint error(s); nothing was written")]
    LintErrors { errors: usize },
    #[error(transparent)]
    BadName(#[from] files::BadName),
}

impl Classified for Error {
    /// Wrong sources (or a result lint refuses) exit 1; what stops capkg from doing its job, 2.
    fn class(&self) -> ErrorClass {
        match self {
            Error::Source(source) => source.class(),
            Error::Transform(_)
            | Error::Images(_)
            | Error::LintErrors { .. }
            | Error::FileNamesOtherType { .. }
            | Error::BadName(_) => ErrorClass::Refusal,
            Error::Write(_)
            | Error::NoComponents
            | Error::NoProviderType
            | Error::NoProviderName
            | Error::UnnamedProvider { .. }
            | Error::SameComponentsFile { .. }
            | Error::SameProvider { .. } => ErrorClass::Fault,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            Error::NoComponents => {
                Some("`capkg init` writes a capkg.yaml to start from".to_string())
            }
            Error::Source(source) => source.hint(),
            _ => None,
        }
    }
}

/// Assembles the release a configuration describes, in memory, and lints it: every provider's
/// components, one `metadata.yaml`, the templates and one `checksums.txt` over all of them.
pub fn build(sources: &Sources, options: &AssembleOptions) -> Result<AssembledRelease, Error> {
    if sources.providers.iter().all(|p| p.components.is_empty()) {
        return Err(Error::NoComponents);
    }
    let out_dir = options.out_dir.clone();
    let several = sources.providers.len() > 1;

    let mut providers: Vec<ReleaseProvider> = Vec::new();
    let mut files = Vec::new();
    // Each provider's components as lint loads them, by provider.
    let mut components_lint: Vec<Vec<ReleaseFile>> = Vec::new();
    let mut changes = Vec::new();
    // Findings only assembling can make: what the transformations and pins replaced.
    let mut replaced = Vec::new();
    // One set of pins for the whole release: an entry that matches no image of any provider is
    // an error (a typo must not publish the development image).
    let pins = &sources.pins;
    let mut applied = images::Applied::new(pins);
    for provider_config in &sources.providers {
        let assembled = assemble_provider(
            sources,
            provider_config,
            &out_dir,
            several,
            options.version.as_ref(),
            (pins, &mut applied),
            options.record_changes,
        )?;
        let provider = assembled.provider;
        if providers.iter().any(|p| p.label() == provider.label()) {
            return Err(Error::SameProvider {
                label: provider.label(),
            });
        }
        for file in &assembled.files {
            if let Some(first) = providers.iter().find(|p| p.owns_components(&file.name)) {
                return Err(Error::SameComponentsFile {
                    file: file.name.clone(),
                    first: first.label(),
                    second: provider.label(),
                });
            }
        }
        files.extend(assembled.files);
        replaced.extend(assembled.replaced);
        components_lint.push(assembled.lint_files);
        changes.extend(assembled.changes);
        providers.push(provider);
    }
    applied.check(pins)?;
    for file in components_lint.iter().flatten() {
        replaced.extend(rules::dev_image_values(file, &applied.pinned));
    }

    let mut copies: BTreeMap<String, PathBuf> =
        self::sources::find_templates(&sources.templates, &sources.root)?;
    copies.insert("metadata.yaml".to_string(), sources.metadata.clone());
    let mut shared_lint = Vec::new();
    let repository = self::sources::Repository::of(&sources.root);
    for (name, path) in copies {
        let text = repository.read_text(&path)?;
        let role = FileRole::from_file_name(&name).unwrap_or(FileRole::Metadata);
        // Findings about a copied file point at the maintainer's file, which has the same bytes.
        let shown = if path.file_name().and_then(|n| n.to_str()) == Some(name.as_str()) {
            path.display().to_string()
        } else {
            out_dir.join(&name).display().to_string()
        };
        let loaded = files::load_text(&shown, text, role);
        files.push(AssembledFile {
            name,
            text: loaded.source().clone(),
            copied_from: Some(path),
        });
        shared_lint.push(loaded);
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    let checksums_of = |files: &[AssembledFile]| {
        crate::checksums::write(files.iter().map(|f| (f.name.as_str(), f.bytes())))
    };

    // The release is linted provider by provider, each with the shared `metadata.yaml`, and the
    // templates with the provider they belong to: rules that relate components to metadata or
    // to the provider's label then see one provider at a time, as clusterctl reads them.
    let templates_owner = crate::provider::templates_owner(&providers);
    let last = components_lint.len().saturating_sub(1);
    let mut lint_releases = Vec::new();
    for (index, (components, provider)) in components_lint.into_iter().zip(&providers).enumerate() {
        let mut release_files = components;
        let belongs = |f: &ReleaseFile| !f.role.is_template() || templates_owner == Some(index);
        if index == last {
            // The last provider takes the loaded files; the others get copies (small files).
            release_files.extend(std::mem::take(&mut shared_lint).into_iter().filter(belongs));
        } else {
            release_files.extend(shared_lint.iter().filter(|f| belongs(f)).cloned());
        }
        lint_releases.push((
            Release {
                dir: out_dir.clone(),
                files: release_files,
                near_misses: Vec::new(),
            },
            rules::Options {
                provider_type: Some(provider.provider_type),
                provider_name: Some(provider.name.clone()),
                version: options.version.clone(),
            },
        ));
    }
    let lint = || lint_each(&lint_releases);
    // Hashing a large release takes about as long as linting it: one on each core.
    let total: usize = files.iter().map(|f| f.bytes().len()).sum();
    let (checksums, diagnostics) = if total >= parallel::PARALLEL_FROM {
        let (diagnostics, checksums) = crate::threads::both(lint, || checksums_of(&files));
        (checksums, diagnostics)
    } else {
        (Ok(checksums_of(&files)), lint())
    };
    // A panic while hashing would be a bug; hash again on this thread.
    let checksums = checksums.unwrap_or_else(|_| checksums_of(&files))?;
    let mut diagnostics = diagnostics;
    if !replaced.is_empty() {
        diagnostics.extend(replaced);
        diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    Ok(AssembledRelease {
        providers,
        version: options.version.clone(),
        files,
        checksums,
        diagnostics,
        parts: lint_releases,
        changes,
    })
}

/// Lints each provider's part of the release; a finding in a file several parts share
/// (`metadata.yaml`) is reported once.
fn lint_each(releases: &[(Release, rules::Options)]) -> Vec<Diagnostic> {
    if let [(release, options)] = releases {
        return rules::run(std::slice::from_ref(release), options);
    }
    let mut all: Vec<Diagnostic> = Vec::new();
    for (release, options) in releases {
        crate::diagnostic::extend_unique(
            &mut all,
            rules::run(std::slice::from_ref(release), options),
        );
    }
    all.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    all
}

/// One provider's components files, assembled.
struct AssembledProvider {
    provider: ReleaseProvider,
    files: Vec<AssembledFile>,
    lint_files: Vec<ReleaseFile>,
    changes: Vec<(String, Vec<String>)>,
    /// Kustomize vars of the sources that a transformation rewrote away.
    replaced: Vec<Diagnostic>,
}

/// Reads, transforms and writes one provider's components files.
fn assemble_provider(
    sources: &Sources,
    provider_config: &ProviderConfig,
    out_dir: &Path,
    several: bool,
    version: Option<&Version>,
    (pins, applied): (&[ImagePin], &mut images::Applied),
    record_changes: bool,
) -> Result<AssembledProvider, Error> {
    if provider_config.components.is_empty() {
        return Err(Error::NoComponents);
    }
    let unnamed = || Error::UnnamedProvider {
        provider: provider_config.describe(),
    };
    let provider_type = provider_config
        .provider_type
        .or_else(|| type_from_file_names(provider_config))
        .ok_or_else(|| {
            if several {
                unnamed()
            } else {
                Error::NoProviderType
            }
        })?;

    let mut image_changes = Vec::new();
    let mut source_vars = Vec::new();
    let mut parsed = Vec::new();
    // The files of each components source, for positions ([`sources::ComponentsText::parts`]).
    let mut origins = Vec::new();
    for components in &provider_config.components {
        let text = self::sources::read_components(
            &components.source,
            &components.limits,
            &sources.root,
            version,
        )?;
        check_file_names(sources, &components.source, provider_type)?;
        let parts = text.parts;
        let locate = |origin: String, position| {
            self::sources::ComponentsText::locate_in(&parts, &origin, position)
        };
        let (source, mut objects) = transform::parse_objects(&text.origin, text.text)
            .map_err(|error| error.relocated(locate))?;
        let mut changed = transform::ChangeLog::new(record_changes);
        // The build as the repository has it says what the pins change (and that each matches).
        images::apply(&mut objects, pins, applied, &mut changed);
        let (source, objects) = match images::before_build::build_pinned(
            &components.source,
            &components.limits,
            &sources.root,
            version,
            pins,
        )? {
            None => (source, objects),
            Some((pinned, kustomization)) => {
                changed.note(|| {
                    format!(
                        "{}: images pinned in `{}` before the build (in a copy of the repository)",
                        text.origin,
                        kustomization.display()
                    )
                });
                let (source, mut objects) = transform::parse_objects(&pinned.origin, pinned.text)
                    .map_err(|error| error.relocated(locate))?;
                let after = images::after_pinned_build(pins);
                images::apply(
                    &mut objects,
                    &after,
                    &mut images::Applied::new(&after),
                    &mut transform::ChangeLog::new(false),
                );
                (source, objects)
            }
        };
        image_changes.push(changed.into_lines());
        // Before the transformations, which rewrite some of the fields kustomize vars fill.
        source_vars.push(rules::kustomize_vars_in(&objects));
        parsed.push((components.suffix.clone(), text.origin, source, objects));
        origins.push(parts);
    }
    let provider_name = match &provider_config.name {
        Some(name) => name.clone(),
        None => crate::provider::name_from_objects(
            Some(provider_type),
            parsed.iter().flat_map(|(_, _, _, objects)| objects.iter()),
        )
        .ok_or_else(|| {
            if several {
                unnamed()
            } else {
                Error::NoProviderName
            }
        })?,
    };
    let label = provider_type.manifest_label(&provider_name);
    // Before relabelling: after it, every object carries `label` and lint cannot tell.
    let source_labels = most_common_source_label(parsed.iter().zip(&origins).map(
        |((_, origin, source, objects), parts)| {
            (
                origin.as_str(),
                parts.as_slice(),
                source.as_ref(),
                objects.as_slice(),
            )
        },
    ));
    let namespace = sources.namespace_of(provider_config);

    let mut files = Vec::new();
    let mut lint_files = Vec::new();
    let mut changes = Vec::new();
    let mut replaced = Vec::new();
    for (((suffix, origin, source, objects), image_changes), vars) in
        parsed.into_iter().zip(image_changes).zip(source_vars)
    {
        let name = config::components_file_name(provider_type, suffix.as_deref());
        let transformed = transform::transform(
            &origin,
            &source,
            objects,
            &TransformOptions {
                namespace,
                provider_label: &label,
                record_changes,
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
        changes.push((
            name.clone(),
            image_changes
                .into_iter()
                .chain(transformed.changes)
                .collect(),
        ));
        let shown = out_dir.join(&name);
        let written = Arc::new(Source::new(shown.display().to_string(), yaml));
        let loaded = match documents {
            Some(documents) => YamlFile {
                source: written.clone(),
                documents,
                errors: Vec::new(),
            },
            None => parallel::parse(written.clone()),
        };
        let lint_file = ReleaseFile {
            path: shown,
            role: FileRole::Components {
                provider_type,
                suffix,
            },
            yaml: loaded,
            substituted: false,
        };
        replaced.extend(rules::rewritten_kustomize_vars(&lint_file, &vars));
        lint_files.push(lint_file);
        files.push(AssembledFile {
            name,
            text: written,
            copied_from: None,
        });
    }
    // The finding names the release's first components file; its message names the source.
    if let (Some(found), Some(file)) = (source_labels, lint_files.first()) {
        replaced.extend(rules::source_identity(
            file,
            (provider_type, &provider_name),
            &found.label,
            (found.count, found.labelled),
            &found.at,
        ));
    }
    // The file without a suffix is the one clusterctl's URL names; it comes first.
    let mut components: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let plain = provider_type.components_file_name();
    components.sort_by_key(|name| *name != plain);
    Ok(AssembledProvider {
        provider: ReleaseProvider {
            provider_type,
            name: provider_name,
            components,
        },
        files,
        lint_files,
        changes,
        replaced,
    })
}

/// The type a components file's own name gives (`file: infrastructure-components.yaml`).
/// Refuses a components file whose name says another provider type (`bootstrap-components.yaml`
/// released as an infrastructure provider's components).
fn check_file_names(
    sources: &Sources,
    source: &ComponentsSource,
    provider_type: ProviderType,
) -> Result<(), Error> {
    let paths: &[PathBuf] = match source {
        ComponentsSource::File(path) => std::slice::from_ref(path),
        ComponentsSource::Files(paths) => paths,
        ComponentsSource::Command(_) => &[],
    };
    for path in paths {
        let role = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(FileRole::from_file_name);
        if let Some(FileRole::Components {
            provider_type: named,
            ..
        }) = role
            && named != provider_type
        {
            return Err(Error::FileNamesOtherType {
                file: sources.resolve(path).display().to_string(),
                named,
                released: provider_type,
            });
        }
    }
    Ok(())
}

/// The `cluster.x-k8s.io/provider` label most objects of the sources carry (placeholders
/// skipped), as lint's `components/provider-identity` reads it, for
/// [`rules::source_identity`].
struct SourceLabel {
    label: String,
    count: usize,
    labelled: usize,
    /// `file:line:column` of its first object in the sources.
    at: String,
}

fn most_common_source_label<'a>(
    sources: impl Iterator<
        Item = (
            &'a str,
            &'a [(String, usize)],
            &'a Source,
            &'a [crate::yaml::Node],
        ),
    >,
) -> Option<SourceLabel> {
    let mut counts: Vec<(&str, usize, String)> = Vec::new();
    let mut labelled = 0;
    for (origin, parts, source, objects) in sources {
        for object in objects.iter().filter_map(crate::k8s::Object::new) {
            let Some(node) = object.label(PROVIDER_LABEL) else {
                continue;
            };
            let Some(label) = node.as_str() else { continue };
            if label.contains("${") {
                continue;
            }
            labelled += 1;
            match counts.iter_mut().find(|(l, _, _)| *l == label) {
                Some((_, count, _)) => *count += 1,
                None => {
                    let position = source.position(node.span().start);
                    let (file, position) =
                        sources::ComponentsText::locate_in(parts, origin, position);
                    counts.push((label, 1, format!("{file}:{position}")));
                }
            }
        }
    }
    let best = counts.iter().map(|(_, count, _)| *count).max()?;
    let (label, count, at) = counts.into_iter().find(|(_, count, _)| *count == best)?;
    Some(SourceLabel {
        label: label.to_string(),
        count,
        labelled,
        at,
    })
}

fn type_from_file_names(provider: &ProviderConfig) -> Option<ProviderType> {
    provider.components.iter().find_map(|c| match &c.source {
        ComponentsSource::File(path) => {
            match FileRole::from_file_name(path.file_name()?.to_str()?)? {
                FileRole::Components { provider_type, .. } => Some(provider_type),
                _ => None,
            }
        }
        _ => None,
    })
}

/// The provider of an assembled single-provider release, for reports (the first of several).
impl From<&AssembledRelease> for Provider {
    fn from(release: &AssembledRelease) -> Provider {
        let first = release.providers.first();
        Provider {
            provider_type: first.map(|p| p.provider_type),
            name: first.map(|p| p.name.clone()),
        }
    }
}
