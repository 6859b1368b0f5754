//! `capkg.yaml`: the project's own configuration (which provider, where its release files come
//! from, where they go).
//!
//! The file is read with capkg's YAML loader, then by serde into the `Raw*` structs below (the
//! schema; [`yaml::de`] words errors from their serde names) and checked, so that every problem
//! names its line and column: unknown fields are errors (a typo must not silently drop a
//! setting), and so are values of the wrong shape. Relative paths resolve against the folder holding the file, which is also where
//! a components `command` runs. Flags override fields; that merge is the caller's job
//! ([`crate::assemble::AssembleOptions`]), this module only reads the file.
//!
//! The publish targets (`targets:`) are read here so that `assemble`, `publish` and `release` share
//! one file; this module does not check that a target is reachable.
//!
//! ```yaml
//! provider:
//!   name: aws
//!   type: infrastructure
//! components:
//!   command: [kubectl, kustomize, config/default]
//! metadata: metadata.yaml
//! templates: ["templates/cluster-template*.yaml", "templates/clusterclass-*.yaml"]
//! output: out
//! targets:
//!   github: {repo: kubernetes-sigs/cluster-api-provider-aws}
//! ```
//!
//! Several providers released under one tag (a bootstrap and a control-plane provider) are a
//! `providers:` list instead of `provider:` + `components:`; everything else stays shared:
//!
//! ```yaml
//! providers:
//!   - {name: kubeadm, type: bootstrap, components: {command: [kubectl, kustomize, bootstrap/config/default]}}
//!   - name: kubeadm
//!     type: control-plane
//!     components: {command: [kubectl, kustomize, controlplane/config/default]}
//!     namespace: capi-kubeadm-control-plane-system   # optional, else the top-level `namespace:`
//!     suffix: ""                                       # optional components file suffix
//! ```
//!
//! Both forms are read into [`Config::providers`]; the single form is a list of one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::provider::ProviderType;
use crate::units::{parse_duration, parse_size};
use crate::version::Version;
use serde::Deserialize;

use crate::yaml::de::{NullableString, OneOrMany, Spanned, Strings};
use crate::yaml::{self, Limits, Node, Position, Source, Span, Value};

/// The file name capkg looks for.
pub const FILE_NAME: &str = "capkg.yaml";

/// A loaded `capkg.yaml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The file it was read from (`None` when built from flags alone).
    pub path: Option<PathBuf>,
    /// The folder relative paths resolve against, and where `command`s run.
    pub root: PathBuf,
    /// The providers released under one tag, in the order given: `providers:`, or the
    /// `provider:` + `components:` of a single-provider configuration (empty when neither is
    /// given). See [`Config::single_provider_mut`] for flags that describe one provider.
    pub providers: Vec<ProviderConfig>,
    /// `metadata.yaml` of the release (default `metadata.yaml`).
    pub metadata: Option<PathBuf>,
    /// Globs (relative to [`Config::root`]) for `cluster-template*.yaml` and
    /// `clusterclass-*.yaml` files.
    pub templates: Vec<String>,
    /// The namespace the components install into; default: their one Namespace object. A
    /// provider's own `namespace` wins.
    pub namespace: Option<String>,
    /// The version being released; usually given on the command line or by the CI tag instead.
    pub version: Option<Version>,
    /// Where `capkg assemble` writes (default `out`).
    pub output: Option<PathBuf>,
    pub targets: Targets,
    /// Values still holding a `TODO` placeholder (`capkg init` writes one for what it could not
    /// detect); [`Config::refuse_placeholders`] turns them into an error.
    pub placeholders: Vec<Placeholder>,
    /// `images:`: release-pinned images, applied to the components (kustomize's `images`).
    pub images: Vec<ImagePin>,
    /// `lint: allow:`: findings the maintainer accepts.
    pub waivers: Vec<crate::rules::Waiver>,
    /// `check_images:` (default true): `capkg release` looks every image up in its registry.
    pub check_images: Option<bool>,
    /// `previous:`: the release `capkg release` compares with (`capkg diff`): a version, a
    /// source `capkg verify` reads, or `none`; default the newest older one at each target.
    pub previous: Option<String>,
    /// `capkg.yaml:line:column` of `previous:`, for messages (a pin gone stale, a bad value).
    pub previous_at: Option<String>,
}

/// Kubernetes' container `imagePullPolicy` values.
const PULL_POLICIES: [&str; 3] = ["Always", "IfNotPresent", "Never"];

/// One `images:` entry, with kustomize's field names and meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImagePin {
    /// The image as written in the manifests, without tag or digest.
    pub name: String,
    pub new_name: Option<String>,
    /// May hold `{version}` (the release version as tagged) or `{semver}` (without its `v`).
    pub new_tag: Option<String>,
    /// `sha256:` and 64 hex digits; filled in from [`ImagePin::digest_from`] at release time.
    pub digest: Option<String>,
    /// Where the digest comes from when it is not written in capkg.yaml.
    pub digest_from: Option<DigestFrom>,
    /// `imagePullPolicy` for the containers running the image (`Always`, `IfNotPresent`,
    /// `Never`), as release processes set it with `sed` or a kustomize patch.
    pub pull_policy: Option<String>,
    /// `capkg.yaml:line:column` of the entry, for messages.
    pub at: String,
}

/// A digest known only when the release runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DigestFrom {
    /// `digest_env: VAR`: the variable the release job sets (from its image build's output).
    Env(String),
    /// `digest: from-registry`: the digest the registry gives `newName:newTag` at release time.
    Registry,
}

/// The `digest:` value that asks the registry.
pub const DIGEST_FROM_REGISTRY: &str = "from-registry";

/// A value `TODO` or `TODO: ...` left in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    /// The file it is in.
    pub path: PathBuf,
    /// Where the value is.
    pub position: Position,
    /// The key path (`providers[1].name`).
    pub key: String,
    pub value: String,
}

/// True for a placeholder value: `TODO`, or `TODO:` and a note.
pub fn is_placeholder(text: &str) -> bool {
    text == "TODO" || text.starts_with("TODO:")
}

/// One provider: `provider:` with the top-level `components:`, or an entry of `providers:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderConfig {
    pub name: Option<String>,
    pub provider_type: Option<ProviderType>,
    /// One entry per components file; more than one only with distinct `suffix`es
    /// (`infrastructure-components-supervisor.yaml`).
    pub components: Vec<ComponentsConfig>,
    /// `providers[].namespace`: wins over the top-level `namespace:`.
    pub namespace: Option<String>,
}

/// One components file and where its YAML comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentsConfig {
    /// `supervisor` for `infrastructure-components-supervisor.yaml`.
    pub suffix: Option<String>,
    pub source: ComponentsSource,
    /// How long a `command` may run and how much it may print (`timeout`, `output_limit`).
    pub limits: CommandLimits,
}

/// Bounds on a components `command`: past either, it is killed (its whole process group) and the
/// assembly fails naming the key to raise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommandLimits {
    /// `timeout` (default 10 minutes).
    pub timeout: std::time::Duration,
    /// `output_limit`: bytes of standard output (default 256 MiB).
    pub output_limit: u64,
}

impl Default for CommandLimits {
    fn default() -> Self {
        Self {
            timeout: std::time::Duration::from_secs(10 * 60),
            output_limit: 256 * 1024 * 1024,
        }
    }
}

/// Where components YAML comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComponentsSource {
    /// One file, used as it is.
    File(PathBuf),
    /// Files and folders of manifests, concatenated in the order given (a folder's `.yaml` and
    /// `.yml` files in name order, recursively, `kustomization.yaml` files excluded).
    Files(Vec<PathBuf>),
    /// A command whose standard output is the YAML, run in [`Config::root`].
    Command(Command),
}

/// A command line: an argument vector run directly, or a string run with `sh -c`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Argv(Vec<String>),
    Shell(String),
}

impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Argv(argv) => f.write_str(&argv.join(" ")),
            Command::Shell(line) => f.write_str(line),
        }
    }
}

/// `targets:` (read by `publish` and `release`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Targets {
    pub github: Option<GitHubTarget>,
    pub gitlab: Option<GitLabTarget>,
    pub local: Option<LocalTarget>,
    pub oci: Option<OciTarget>,
}

/// `targets.oci`: an artifact cluster-api-operator reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciTarget {
    /// `[http://]HOST[:PORT]/PATH[:TAG]`.
    pub repository: String,
    /// The tag when the repository has none; `{version}` is replaced (default `{version}`).
    pub tag: Option<String>,
}

/// `targets.github`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitHubTarget {
    /// `OWNER/NAME`.
    pub repo: String,
    /// API base URL (GitHub Enterprise); default `GITHUB_API_URL` or the public API.
    pub api_url: Option<String>,
}

/// `targets.gitlab`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitLabTarget {
    /// Project id or path; default `CI_PROJECT_ID`.
    pub project: Option<String>,
    /// Generic package name; default the provider label.
    pub package: Option<String>,
    /// API base URL; default `CI_API_V4_URL`.
    pub api_url: Option<String>,
}

/// `targets.local`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalTarget {
    /// The repository's base folder (resolved against [`Config::root`]).
    pub repository: PathBuf,
}

impl ProviderConfig {
    /// `bootstrap-kubeadm`, or what is known of it (`kubeadm`, `a bootstrap provider`).
    pub fn describe(&self) -> String {
        match (self.provider_type, &self.name) {
            (Some(t), Some(name)) => t.manifest_label(name),
            (None, Some(name)) => name.clone(),
            (Some(t), None) => format!("a {} provider", t.short_name()),
            (None, None) => "a provider".to_string(),
        }
    }
}

/// A flag that describes one provider, given for a configuration that releases several.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "capkg.yaml releases several providers ({}); flags that describe one provider (`--provider`, `--type`, `--components`, `--components-command`) cannot say which: set these in its `providers:` entry instead",
    labels.join(", ")
)]
pub struct SeveralProviders {
    pub labels: Vec<String>,
}

/// Why `capkg.yaml` cannot be used. Messages start with `file:line:column` when there is a place.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read `{}`", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}:{position}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        position: Position,
        message: String,
    },
}

/// capkg exits 2 when it cannot use its own configuration (as `lint`, `assemble` and `release`
/// always have), whether the file is unreadable or wrong.
impl crate::error::Classified for ConfigError {
    fn class(&self) -> crate::error::ErrorClass {
        crate::error::ErrorClass::Fault
    }
}

/// As [`ConfigError`]: the configuration cannot be used as the flags ask.
impl crate::error::Classified for SeveralProviders {
    fn class(&self) -> crate::error::ErrorClass {
        crate::error::ErrorClass::Fault
    }
}

impl ConfigError {
    /// Where the problem is, when it has a place.
    pub fn position(&self) -> Option<Position> {
        match self {
            ConfigError::Invalid { position, .. } => Some(*position),
            ConfigError::Read { .. } => None,
        }
    }
}

impl Config {
    /// Reads and checks a `capkg.yaml`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let root = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut config = Config::parse(path, &text, root)?;
        config.path = Some(path.to_path_buf());
        Ok(config)
    }

    /// Reads a configuration from text; `name` is used in messages, `root` for relative paths.
    pub fn parse(name: &Path, text: &str, root: PathBuf) -> Result<Config, ConfigError> {
        let source = Arc::new(Source::new(name.display().to_string(), text));
        let file = yaml::parse_str(source.clone(), Limits::default());
        let checker = Checker {
            path: name,
            source: &source,
        };
        if let Some(error) = file.errors.first() {
            return Err(checker.error(error.span.start, error.message.clone()));
        }
        let mut roots = file.documents.iter().filter_map(|d| d.root.as_ref());
        let mut config = Config {
            root,
            ..Config::default()
        };
        let Some(root_node) = roots.next() else {
            return Ok(config);
        };
        if let Some(extra) = roots.next() {
            return Err(checker.error(
                extra.span().start,
                "capkg.yaml holds one document; remove the `---`",
            ));
        }
        let raw: RawConfig = yaml::de::from_node(root_node)
            .map_err(|e| checker.error(e.offset().unwrap_or(0), e.message()))?;
        checker.placeholders(root_node, String::new(), &mut config.placeholders);
        checker.fill(raw, &mut config)?;
        Ok(config)
    }

    /// Refuses a configuration that still holds a `TODO` placeholder: building a release from
    /// a guessed value would publish it.
    pub fn refuse_placeholders(&self) -> Result<(), ConfigError> {
        match self.placeholders.first() {
            None => Ok(()),
            Some(placeholder) => Err(ConfigError::Invalid {
                path: placeholder.path.clone(),
                position: placeholder.position,
                message: format!(
                    "`{}` is still a placeholder (`{}`): `capkg init` could not detect it; replace it with the real value{}",
                    placeholder.key,
                    placeholder.value,
                    match self.placeholders.len() {
                        1 => String::new(),
                        n => format!(" ({} more placeholder(s) after it)", n - 1),
                    }
                ),
            }),
        }
    }

    /// The one provider that flags such as `--provider`, `--type` and `--components` describe,
    /// created when the configuration names none; an error when it names several.
    pub fn single_provider_mut(&mut self) -> Result<&mut ProviderConfig, SeveralProviders> {
        if self.providers.len() > 1 {
            return Err(SeveralProviders {
                labels: self
                    .providers
                    .iter()
                    .map(ProviderConfig::describe)
                    .collect(),
            });
        }
        if self.providers.is_empty() {
            self.providers.push(ProviderConfig::default());
        }
        Ok(&mut self.providers[0])
    }

    /// True when the configuration releases more than one provider.
    pub fn has_several_providers(&self) -> bool {
        self.providers.len() > 1
    }

    /// The namespace `provider`'s components install into: its own, else the top-level one.
    pub fn namespace_of<'a>(&'a self, provider: &'a ProviderConfig) -> Option<&'a str> {
        provider.namespace.as_deref().or(self.namespace.as_deref())
    }

    /// The `capkg.yaml` for a command run in `start`: in `start` or the nearest folder above it,
    /// looking no higher than the repository root (the first folder holding `.git`). A relative
    /// `start` (`.`) climbs from the working directory and gives a relative path
    /// (`../../capkg.yaml`), so that messages name files as the user sees them from there.
    pub fn discover(start: &Path) -> Option<PathBuf> {
        let absolute = crate::files::lexical_absolute(start).ok()?;
        let mut up = PathBuf::new();
        for dir in absolute.ancestors() {
            let candidate = dir.join(FILE_NAME);
            if candidate.is_file() {
                return Some(match start.is_absolute() {
                    true => candidate,
                    false => crate::files::clean_join(
                        &crate::files::clean_join(start, &up),
                        Path::new(FILE_NAME),
                    ),
                });
            }
            if dir.join(".git").exists() {
                return None;
            }
            up.push("..");
        }
        None
    }

    /// A path from the file, resolved against [`Config::root`].
    pub fn resolve(&self, path: &Path) -> PathBuf {
        crate::files::resolve_in(&self.root, path)
    }
}

/// The name of a provider type's components file with an optional suffix
/// (`infrastructure-components-supervisor.yaml`).
pub fn components_file_name(provider_type: ProviderType, suffix: Option<&str>) -> String {
    match suffix {
        None => provider_type.components_file_name(),
        Some(suffix) => format!("{}-components-{suffix}.yaml", provider_type.short_name()),
    }
}

mod check;
mod schema;

use self::check::Checker;
use self::schema::RawConfig;

#[cfg(test)]
mod tests;
