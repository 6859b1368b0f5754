//! Settings resolved once: capkg.yaml, the command line and the environment, joined into what a
//! command works with. Nothing else reads capkg.yaml's fields or weighs a flag or a variable
//! against them: every path is joined to the configuration's folder, every default filled,
//! the image pins given their version, the targets chosen (`--target`, CI variables), the
//! previous release and the image check decided, the waivers of the file and of `--allow`
//! gathered ([`resolve`]).
//!
//! A command says what it needs ([`Need`]): the findings commands (`lint`, `verify`, `diff`)
//! read capkg.yaml only for its waivers and switches, when there is one; `assemble` builds a
//! release from capkg.yaml, its flags, or both; `release` needs capkg.yaml, a version and
//! targets. The order errors are found in is the order a user fixes them: a bad `--version` or
//! CI tag first (nothing else is read for it), then capkg.yaml, then the version it may hold,
//! then the targets.

pub(crate) mod previous;
pub(crate) mod targets;
pub(crate) mod version;

use std::cell::OnceCell;
use std::path::{Path, PathBuf};

use crate::assemble::images::{self, ImagesError};
use crate::assemble::{AssembleOptions, Sources};
use crate::ci::CiContext;
use crate::config::{
    ComponentsConfig, ComponentsSource, Config, ConfigError, ImagePin, SeveralProviders,
};
use crate::error::{Classified, ErrorClass};
use crate::provider::ProviderType;
use crate::rules::{Waiver, Waivers};
use crate::targets::{TargetKind, TargetRequest};
use crate::verify;
use crate::version::{Version, VersionError};

pub(crate) use self::previous::Previous;
pub(crate) use self::version::ResolvedVersion;

/// What the command line says, for every command that reads capkg.yaml; a command leaves what
/// it has no flag for at its default.
#[derive(Debug, Clone, Default)]
pub(crate) struct CommandLine {
    /// `--config`; default: the `capkg.yaml` found from the working folder up to the
    /// repository root.
    pub config: Option<PathBuf>,
    /// `--type` and `--provider`: they describe the one provider of the release.
    pub provider_type: Option<ProviderType>,
    pub provider_name: Option<String>,
    /// `assemble --components`/`--components-command`: replaces the provider's components.
    pub components: Option<ComponentsSource>,
    /// `assemble --metadata`, absolute.
    pub metadata: Option<PathBuf>,
    /// `assemble --templates`, absolute globs.
    pub templates: Vec<String>,
    /// `assemble --namespace`.
    pub namespace: Option<String>,
    /// `assemble --out`.
    pub out: Option<PathBuf>,
    /// `--version`.
    pub version: Option<Version>,
    /// `release --target`.
    pub targets: Vec<TargetKind>,
    /// `release --previous`.
    pub previous: Option<String>,
    /// `--allow RULE[=REASON]`.
    pub allow: Vec<Waiver>,
    /// `--api-url` of `verify` and `diff`: the GitHub API github.com sources are read through.
    pub api_url: Option<String>,
    /// `release --allow-untagged-head`: release the checkout's HEAD although it is not tagged
    /// with the version.
    pub allow_untagged_head: bool,
}

/// What a command needs of the settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Need {
    /// `lint`: capkg.yaml's waivers, where there is a file.
    Lint,
    /// `verify`, `diff`: capkg.yaml's waivers and image switch, where there is a file, and how
    /// releases are read (the GitHub API, the credentials and where each may go).
    Read,
    /// `assemble`: a release's sources, from capkg.yaml or the flags alone; the version if one
    /// is given.
    Assemble,
    /// `release`: capkg.yaml, a version, the targets.
    Release,
}

/// Whether the release's images are looked up in their registries before publishing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ImageCheck {
    On,
    /// Off, and what turned it off (`check_images: false`, `CAPKG_CHECK_IMAGES=false`).
    Off(String),
}

impl ImageCheck {
    pub(crate) fn is_on(&self) -> bool {
        *self == ImageCheck::On
    }

    /// Why it is off, when it is.
    pub(crate) fn off_reason(&self) -> Option<&str> {
        match self {
            ImageCheck::On => None,
            ImageCheck::Off(reason) => Some(reason),
        }
    }
}

/// One target of `release`: what to publish to, and how what it serves is read back (a GitHub
/// target configured with its own API is read through it).
#[derive(Debug, Clone)]
pub(crate) struct TargetSettings {
    pub request: TargetRequest,
    pub reading: verify::Settings,
}

impl TargetSettings {
    pub(crate) fn kind(&self) -> TargetKind {
        self.request.kind()
    }
}

/// Everything a command works with, resolved.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The folder relative paths resolve against (capkg.yaml's; `.` without one): git tags are
    /// listed here, components commands run here.
    pub root: PathBuf,
    /// `lint: allow:` and `--allow`, with capkg.yaml's folder their globs are relative to.
    pub waivers: Waivers,
    /// `check_images:` and `CAPKG_CHECK_IMAGES`.
    pub images: ImageCheck,
    /// What the release is built from (empty for [`Need::Lint`] and [`Need::Read`]).
    pub sources: Sources,
    /// Where `assemble` writes the release, and where `release` writes it for reading its
    /// findings: `--out`, `output:`, else `out`, joined to [`Settings::root`].
    pub output: PathBuf,
    /// The version, where one is given ([`Need::Release`] always has one).
    pub version: Option<ResolvedVersion>,
    /// Where `release` publishes, in publishing order, each with how it is read back (empty
    /// for other commands).
    pub targets: Vec<TargetSettings>,
    /// How `verify`, `diff` and `release` read releases: the GitHub API and the credentials
    /// ([`verify::Settings`]); the commands that read none get the default API and no
    /// credential.
    pub reading: verify::Settings,
    /// `--previous`, else `previous:`.
    pub previous: Previous,
    /// Where the release is built, for its provenance statement (`release` only).
    pub provenance: Option<crate::provenance::Origin>,
    /// `release --allow-untagged-head`.
    pub allow_untagged_head: bool,
}

/// The `images:` entries with `digest: from-registry` given the digest their registry has for
/// them now, looked up with the logins the image check uses (`origins`).
pub(crate) async fn registry_digests(
    pins: &[crate::config::ImagePin],
    origins: &crate::forge::origin::Origins,
    services: &crate::forge::Services,
) -> Result<Vec<crate::config::ImagePin>, Error> {
    let lookups = images::registry_lookups(pins);
    if lookups.is_empty() {
        return Ok(pins.to_vec());
    }
    let answers = crate::verify::images_exist::digests(&lookups, origins, services).await;
    images::with_registry_digests(pins, answers).map_err(Error::Images)
}

impl Settings {
    /// The version's value, where one is given.
    pub(crate) fn version(&self) -> Option<&Version> {
        self.version.as_ref().map(|v| &v.version)
    }

    /// How `assemble` builds this release.
    pub(crate) fn assemble_options(&self, record_changes: bool) -> AssembleOptions {
        AssembleOptions {
            version: self.version().cloned(),
            out_dir: self.output.clone(),
            record_changes,
        }
    }
}

/// The settings a command needs, from the command line, capkg.yaml and the environment.
pub(crate) fn resolve(
    line: &CommandLine,
    need: Need,
    ci: &CiContext,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Settings, Error> {
    let loaded: OnceCell<Result<Option<Config>, Error>> = OnceCell::new();
    let load = || {
        loaded
            .get_or_init(|| load(line, need))
            .as_ref()
            .map_err(Clone::clone)
    };
    let version = match need {
        // A bad `--version` or CI tag is said before anything is read for it.
        Need::Release => Some(version::resolve(line.version.as_ref(), ci, &|| {
            Ok(load()?.as_ref().and_then(|c| c.version.clone()))
        })?),
        Need::Assemble => {
            load()?;
            match version::resolve(line.version.as_ref(), ci, &|| {
                Ok(load()?.as_ref().and_then(|c| c.version.clone()))
            }) {
                Ok(version) => Some(version),
                Err(Error::NoVersion) => None,
                Err(error) => return Err(error),
            }
        }
        Need::Lint | Need::Read => None,
    };
    let config = load()?.clone();
    let mut config = match (config, need) {
        (Some(config), _) => config,
        (None, Need::Release) => {
            return Err(Error::NoConfig {
                dir: PathBuf::from("."),
            });
        }
        (None, need) => {
            // No capkg.yaml: the flags alone describe the release.
            let mut config = Config {
                root: PathBuf::from("."),
                ..Config::default()
            };
            if need == Need::Assemble {
                apply_provider_flags(&mut config, line)?;
            }
            config
        }
    };
    let mut waivers = std::mem::take(&mut config.waivers);
    waivers.extend(line.allow.iter().cloned());
    let waivers = Waivers::new(waivers, config.root.clone());
    let images = image_check(&config, env);
    let output = match &line.out {
        Some(out) => out.clone(),
        None => config.resolve(
            config
                .output
                .as_deref()
                .unwrap_or(Path::new(DEFAULT_OUTPUT)),
        ),
    };
    let reading = match need {
        Need::Read | Need::Release => verify::Settings::resolve(line.api_url.as_deref(), env),
        // Nothing is read: no credential is looked up, and the default API cannot be wrong.
        Need::Lint | Need::Assemble => verify::Settings::resolve(None, &|_| None),
    }
    .map_err(|e| Error::Reading(std::sync::Arc::new(e)))?;
    if matches!(need, Need::Lint | Need::Read) {
        return Ok(Settings {
            root: config.root.clone(),
            waivers,
            images,
            sources: Sources::default(),
            output,
            version: None,
            targets: Vec::new(),
            reading,
            previous: Previous::default(),
            provenance: None,
            allow_untagged_head: line.allow_untagged_head,
        });
    }
    apply_source_flags(&mut config, line)?;
    let pins = images::resolve(&config.images, version.as_ref().map(|v| &v.version), env)
        .map_err(Error::Images)?;
    let targets = match need {
        Need::Release => targets::choose(&config.targets, &config.root, &line.targets, env)?
            .into_iter()
            .map(|request| targets::with_reading(request, &reading, env))
            .collect::<Result<Vec<_>, _>>()?,
        _ => Vec::new(),
    };
    let previous = match (&line.previous, &config.previous) {
        (Some(flag), _) => Previous::parse(flag, previous::Given::Flag)?,
        (None, Some(pinned)) => Previous::parse(
            pinned,
            previous::Given::Config {
                at: config.previous_at.as_deref().unwrap_or("capkg.yaml"),
                root: &config.root,
            },
        )?,
        (None, None) => Previous::Newest,
    };
    let provenance = match (need, &version) {
        (Need::Release, Some(version)) => Some(crate::provenance::Origin::gather(
            config.path.as_deref(),
            &config.root,
            &version.version.to_string(),
            env,
        )),
        _ => None,
    };
    Ok(Settings {
        root: config.root.clone(),
        waivers,
        images,
        sources: sources(&config, pins),
        output,
        version,
        targets,
        reading,
        previous,
        provenance,
        allow_untagged_head: line.allow_untagged_head,
    })
}

/// `out`, the release folder's default name.
const DEFAULT_OUTPUT: &str = "out";

/// The capkg.yaml `line` names or the one found from the working folder, read, with the
/// provider flags applied; `None` where there is none and the command does without.
fn load(line: &CommandLine, need: Need) -> Result<Option<Config>, Error> {
    let path = match &line.config {
        Some(path) => Some(path.clone()),
        None => Config::discover(Path::new(".")),
    };
    let Some(path) = path else {
        return match need {
            Need::Release => Err(Error::NoConfig {
                dir: PathBuf::from("."),
            }),
            _ => Ok(None),
        };
    };
    let mut config = Config::load(&path).map_err(Error::config)?;
    if matches!(need, Need::Lint | Need::Read) {
        return Ok(Some(config));
    }
    apply_provider_flags(&mut config, line)?;
    config.refuse_placeholders().map_err(Error::config)?;
    Ok(Some(config))
}

/// `--type` and `--provider`: they describe the one provider of the release (created when the
/// configuration names none), refused for a configuration of several.
fn apply_provider_flags(config: &mut Config, line: &CommandLine) -> Result<(), Error> {
    if line.provider_name.is_none() && line.provider_type.is_none() {
        return Ok(());
    }
    let provider = config
        .single_provider_mut()
        .map_err(Error::SeveralProviders)?;
    if let Some(name) = &line.provider_name {
        provider.name = Some(name.clone());
    }
    if let Some(provider_type) = line.provider_type {
        provider.provider_type = Some(provider_type);
    }
    Ok(())
}

/// `assemble`'s flags, each replacing its field of capkg.yaml (paths are absolute already).
fn apply_source_flags(config: &mut Config, line: &CommandLine) -> Result<(), Error> {
    if let Some(source) = &line.components {
        // These flags replace one provider's components: refused for several.
        config
            .single_provider_mut()
            .map_err(Error::SeveralProviders)?
            .components = vec![ComponentsConfig {
            suffix: None,
            source: source.clone(),
            limits: Default::default(),
        }];
    }
    if let Some(metadata) = &line.metadata {
        config.metadata = Some(metadata.clone());
    }
    if !line.templates.is_empty() {
        config.templates = line.templates.clone();
    }
    if let Some(namespace) = &line.namespace {
        config.namespace = Some(namespace.clone());
    }
    Ok(())
}

/// The image check: on unless capkg.yaml's `check_images: false` or `CAPKG_CHECK_IMAGES=false`
/// turns it off.
fn image_check(config: &Config, env: &dyn Fn(&str) -> Option<String>) -> ImageCheck {
    if config.check_images == Some(false) {
        ImageCheck::Off("`check_images: false` in capkg.yaml".to_string())
    } else if env("CAPKG_CHECK_IMAGES").is_some_and(|v| v.trim() == "false") {
        ImageCheck::Off("CAPKG_CHECK_IMAGES=false".to_string())
    } else {
        ImageCheck::On
    }
}

/// What `assemble` builds the release from: every path joined, every default filled.
fn sources(config: &Config, pins: Vec<ImagePin>) -> Sources {
    Sources {
        root: config.root.clone(),
        providers: config.providers.clone(),
        namespace: config.namespace.clone(),
        metadata: config.resolve(
            config
                .metadata
                .as_deref()
                .unwrap_or(Path::new("metadata.yaml")),
        ),
        templates: config.templates.clone(),
        pins,
    }
}

/// Why the settings cannot be resolved: the command line, capkg.yaml or the environment is
/// wrong, or something a command needs is missing.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum Error {
    #[error(
        "no version to release: pass `--version vX.Y.Z`, or run on a tag push (GITHUB_REF_NAME with GITHUB_REF_TYPE=tag, CI_COMMIT_TAG)"
    )]
    NoVersion,
    #[error("the tag `{tag}` ({variable}) is not a semantic version")]
    TagNotSemver {
        tag: String,
        variable: &'static str,
        #[source]
        source: VersionError,
    },
    #[error(
        "the version `{version}` ({origin}) lacks the `v` prefix: clusterctl looks releases up as `v` + MAJOR.MINOR.PATCH, so it would never find this one"
    )]
    VersionNeedsV { version: String, origin: String },
    #[error(
        "no capkg.yaml in `{}` or above it (up to the repository root): `capkg init` writes one, or pass `--config`",
        dir.display()
    )]
    NoConfig { dir: PathBuf },
    /// capkg.yaml cannot be read or is wrong (shared: the file is read once for every need).
    #[error(transparent)]
    Config(std::sync::Arc<ConfigError>),
    #[error(transparent)]
    SeveralProviders(SeveralProviders),
    #[error(transparent)]
    Images(ImagesError),
    /// The GitHub API to read through is not a URL capkg can use.
    #[error(transparent)]
    Reading(std::sync::Arc<verify::Error>),
    #[error(
        "the configuration names no targets: add `targets:` (local, github, gitlab) to capkg.yaml"
    )]
    NoTargets,
    #[error("`--target {target}` is not configured in capkg.yaml `targets:`")]
    TargetNotConfigured { target: TargetKind },
    #[error(
        "{origin} `{value}` is neither a version nor an explicit path or URL: give a version looked up at each target (`v1.2.3`), a path (`./{value}`, `/abs/path`) or a URL (`file://`, `https://`, `oci://`), or `none` to skip the comparison"
    )]
    PreviousUnclear { value: String, origin: String },
}

impl Error {
    fn config(error: ConfigError) -> Self {
        Error::Config(std::sync::Arc::new(error))
    }

    /// True for a problem with the version (`--version`, the CI tag, `version:`).
    pub(crate) fn is_about_the_version(&self) -> bool {
        matches!(
            self,
            Error::NoVersion | Error::TagNotSemver { .. } | Error::VersionNeedsV { .. }
        )
    }
}

impl Classified for Error {
    /// A tag that is not a release version is refused (exit 1); what the command line or
    /// capkg.yaml get wrong is a usage error (exit 2).
    fn class(&self) -> ErrorClass {
        match self {
            // `--version 1.2.3` is a bad argument, as `--version v1.2` is.
            Error::VersionNeedsV { origin, .. } if origin == "--version" => ErrorClass::Fault,
            Error::TagNotSemver { .. } | Error::VersionNeedsV { .. } | Error::Images(_) => {
                ErrorClass::Refusal
            }
            Error::Config(source) => source.class(),
            Error::SeveralProviders(source) => source.class(),
            Error::Reading(source) => source.class(),
            Error::NoVersion
            | Error::NoConfig { .. }
            | Error::NoTargets
            | Error::TargetNotConfigured { .. }
            | Error::PreviousUnclear { .. } => ErrorClass::Fault,
        }
    }
}

#[cfg(test)]
mod tests;
