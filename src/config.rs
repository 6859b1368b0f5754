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
    pub digest: Option<String>,
    /// `imagePullPolicy` for the containers running the image (`Always`, `IfNotPresent`,
    /// `Never`), as release processes set it with `sed` or a kustomize patch.
    pub pull_policy: Option<String>,
    /// `capkg.yaml:line:column` of the entry, for messages.
    pub at: String,
}

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
                    false => clean_join(&clean_join(start, &up), Path::new(FILE_NAME)),
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
        resolve_in(&self.root, path)
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

/// A path of capkg.yaml or a flag, joined to the configuration's folder (absolute paths as
/// they are, without a leading `./`).
pub fn resolve_in(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        clean_join(root, path)
    }
}

/// `root/path` without a leading `./`.
fn clean_join(root: &Path, path: &Path) -> PathBuf {
    if root.as_os_str().is_empty() || root == Path::new(".") {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

// The file's schema, as serde reads it ([`yaml::de`]: unknown fields, wrong shapes and missing
// fields are errors at their place, worded from the serde names below). What a schema cannot
// say (a valid namespace, one components source, no two providers writing one file) is
// [`Checker`]'s, with the places [`Spanned`] keeps.

#[derive(Deserialize)]
#[serde(rename = "the top level", deny_unknown_fields)]
struct RawConfig {
    provider: Option<Spanned<RawIdentity>>,
    #[serde(default, deserialize_with = "providers_list")]
    providers: Option<Vec<Spanned<RawProvider>>>,
    components: Option<Spanned<OneOrMany<Spanned<RawComponents>>>>,
    metadata: Option<Spanned<String>>,
    templates: Option<Strings>,
    namespace: Option<Spanned<String>>,
    version: Option<Spanned<String>>,
    output: Option<Spanned<String>>,
    targets: Option<RawTargets>,
    #[serde(default, deserialize_with = "images_list")]
    images: Option<Vec<Spanned<RawImage>>>,
    lint: Option<RawLint>,
    check_images: Option<bool>,
    previous: Option<String>,
}

/// `provider:` of the single-provider form.
#[derive(Deserialize)]
#[serde(rename = "`provider`", deny_unknown_fields)]
struct RawIdentity {
    name: Option<Spanned<String>>,
    #[serde(rename = "type")]
    provider_type: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(rename = "a `providers` entry", deny_unknown_fields)]
struct RawProvider {
    name: Option<Spanned<String>>,
    #[serde(rename = "type")]
    provider_type: Option<Spanned<String>>,
    components: Option<Spanned<OneOrMany<Spanned<RawComponents>>>>,
    namespace: Option<Spanned<String>>,
    /// `suffix:`, `suffix: ""` or `suffix: ~`: this provider's components file has none.
    suffix: Option<Spanned<NullableString>>,
}

#[derive(Deserialize)]
#[serde(rename = "`components`", deny_unknown_fields)]
struct RawComponents {
    file: Option<Spanned<String>>,
    files: Option<Spanned<Strings>>,
    command: Option<Spanned<RawCommand>>,
    suffix: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
    output_limit: Option<Spanned<String>>,
}

/// `command:` as a list (an argument vector) or a string (a shell line).
enum RawCommand {
    Argv(Vec<String>),
    Shell(String),
}

impl<'de> Deserialize<'de> for RawCommand {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CommandVisitor;

        impl<'de> serde::de::Visitor<'de> for CommandVisitor {
            type Value = RawCommand;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }

            fn visit_str<E: serde::de::Error>(self, line: &str) -> Result<RawCommand, E> {
                Ok(RawCommand::Shell(line.to_string()))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<RawCommand, A::Error> {
                let mut argv = Vec::new();
                while let Some(arg) = seq.next_element::<String>()? {
                    argv.push(arg);
                }
                Ok(RawCommand::Argv(argv))
            }
        }

        deserializer.deserialize_any(CommandVisitor)
    }
}

#[derive(Deserialize)]
#[serde(rename = "an `images` entry", deny_unknown_fields)]
struct RawImage {
    name: Option<Spanned<String>>,
    #[serde(rename = "newName")]
    new_name: Option<Spanned<String>>,
    #[serde(rename = "newTag")]
    new_tag: Option<Spanned<String>>,
    digest: Option<Spanned<String>>,
    #[serde(rename = "pullPolicy")]
    pull_policy: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(rename = "`lint`", deny_unknown_fields)]
struct RawLint {
    #[serde(default, deserialize_with = "waivers_list")]
    allow: Vec<Spanned<RawWaiver>>,
}

#[derive(Deserialize)]
#[serde(rename = "a `lint.allow` entry", deny_unknown_fields)]
struct RawWaiver {
    rule: Option<Spanned<String>>,
    files: Option<Spanned<Strings>>,
    objects: Option<Spanned<Strings>>,
    reason: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets`", deny_unknown_fields)]
struct RawTargets {
    github: Option<RawGitHub>,
    gitlab: Option<RawGitLab>,
    local: Option<RawLocal>,
    oci: Option<RawOci>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets.github`", deny_unknown_fields)]
struct RawGitHub {
    repo: Spanned<String>,
    api_url: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets.gitlab`", deny_unknown_fields)]
struct RawGitLab {
    project: Option<Spanned<String>>,
    package: Option<Spanned<String>>,
    api_url: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets.local`", deny_unknown_fields)]
struct RawLocal {
    repository: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(rename = "`targets.oci`", deny_unknown_fields)]
struct RawOci {
    repository: Spanned<String>,
    tag: Option<String>,
}

fn providers_list<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<Spanned<RawProvider>>>, D::Error> {
    yaml::de::list_of(
        deserializer,
        "`providers` must be a list of providers (`- name: …`, `type: …`, `components: …`)",
        Some("`providers` needs at least one provider"),
    )
    .map(Some)
}

fn images_list<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Vec<Spanned<RawImage>>>, D::Error> {
    yaml::de::list_of(
        deserializer,
        "`images` must be a list of `{name, newName, newTag, digest, pullPolicy}` entries",
        None,
    )
    .map(Some)
}

fn waivers_list<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<Spanned<RawWaiver>>, D::Error> {
    yaml::de::list_of(
        deserializer,
        "`lint.allow` must be a list of `{rule, files, objects, reason}` entries",
        None,
    )
}

/// Turns what serde read into a [`Config`], with the checks a schema cannot express, each error
/// at its place in the file.
struct Checker<'a> {
    path: &'a Path,
    source: &'a Arc<Source>,
}

impl Checker<'_> {
    fn error(&self, offset: usize, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_path_buf(),
            position: self.source.position(offset),
            message: message.into(),
        }
    }

    /// `file:line:column` of an offset, for messages given later.
    fn at(&self, offset: usize) -> String {
        format!("{}:{}", self.path.display(), self.source.position(offset))
    }

    fn fill(&self, raw: RawConfig, config: &mut Config) -> Result<(), ConfigError> {
        // `provider:` + `components:` (a list of one) or `providers:`, never both; the error is
        // at the first key of the single form.
        let single_keys = [
            raw.provider.as_ref().map(|p| ("provider", p.key_start)),
            raw.components.as_ref().map(|c| ("components", c.key_start)),
        ];
        let first_single = single_keys.into_iter().flatten().min_by_key(|(_, at)| *at);
        if let (Some((key, at)), Some(_)) = (first_single, &raw.providers) {
            return Err(self.error(
                at.unwrap_or(0),
                format!(
                    "`{key}` and `providers` cannot both be given: move `{key}` into an entry of `providers` (`name`, `type`, `components`)"
                ),
            ));
        }
        if let Some(entries) = raw.providers {
            config.providers = self.providers(entries)?;
        } else if first_single.is_some() {
            let mut provider = ProviderConfig::default();
            if let Some(identity) = raw.provider {
                let identity = identity.value;
                (provider.name, provider.provider_type) =
                    self.name_and_type(identity.name, identity.provider_type)?;
            }
            if let Some(components) = raw.components {
                provider.components = self.components(components.value)?;
            }
            config.providers = vec![provider];
        }
        config.metadata = raw.metadata.map(|m| self.path_value(m)).transpose()?;
        config.templates = raw.templates.map(|t| t.0).unwrap_or_default();
        config.namespace = raw.namespace.map(|n| self.namespace(n)).transpose()?;
        config.version = raw
            .version
            .map(|v| {
                Version::parse(&v.value).map_err(|e| {
                    self.error(v.start, format!("`{}` is not a version: {e}", v.value))
                })
            })
            .transpose()?;
        config.output = raw.output.map(|o| self.path_value(o)).transpose()?;
        if let Some(targets) = raw.targets {
            config.targets = self.targets(targets)?;
        }
        config.images = self.images(raw.images.unwrap_or_default())?;
        if let Some(lint) = raw.lint {
            config.waivers = self.waivers(lint.allow)?;
        }
        config.check_images = raw.check_images;
        config.previous = raw.previous;
        Ok(())
    }

    /// Refuses a forge name (`repo`, `project`, `package`) with an empty, `.` or `..` part.
    fn forge_name(&self, name: &Spanned<String>) -> Result<(), ConfigError> {
        match crate::forge::url::dot_or_empty_part(&name.value) {
            Some(reason) if !is_placeholder(&name.value) => Err(self.error(
                name.start,
                format!("`{}` cannot be a forge name: {reason}", name.value),
            )),
            _ => Ok(()),
        }
    }

    /// A namespace: a DNS-1123 label, as Kubernetes requires (a `TODO` placeholder is refused
    /// later, by [`Config::refuse_placeholders`]).
    fn namespace(&self, namespace: Spanned<String>) -> Result<String, ConfigError> {
        if !is_placeholder(&namespace.value)
            && let Err(reason) = crate::k8s::dns1123_label(&namespace.value)
        {
            return Err(self.error(
                namespace.start,
                format!("`{}` cannot be a namespace: {reason}", namespace.value),
            ));
        }
        Ok(namespace.value)
    }

    fn path_value(&self, path: Spanned<String>) -> Result<PathBuf, ConfigError> {
        if path.value.is_empty() {
            return Err(self.error(path.start, "expected a path, found an empty string"));
        }
        Ok(PathBuf::from(path.value))
    }

    /// Every placeholder string under `node`, with its key path.
    fn placeholders(&self, node: &Node, key: String, out: &mut Vec<Placeholder>) {
        match node.value() {
            Value::Scalar { text, .. } if is_placeholder(text) => out.push(Placeholder {
                path: self.path.to_path_buf(),
                position: self.source.position(node.span().start),
                key,
                value: text.to_string(),
            }),
            Value::Scalar { .. } => {}
            Value::Sequence(items) => {
                for (index, item) in items.iter().enumerate() {
                    self.placeholders(item, format!("{key}[{index}]"), out);
                }
            }
            Value::Mapping(mapping) => {
                for (name, value) in &mapping.entries {
                    let name = name.as_str().unwrap_or("?");
                    let path = if key.is_empty() {
                        name.to_string()
                    } else {
                        format!("{key}.{name}")
                    };
                    self.placeholders(value, path, out);
                }
            }
        }
    }

    /// A provider's `name` and `type`; a `TODO` placeholder in either reads as unknown (and is
    /// refused later, with its own message).
    fn name_and_type(
        &self,
        name: Option<Spanned<String>>,
        provider_type: Option<Spanned<String>>,
    ) -> Result<(Option<String>, Option<ProviderType>), ConfigError> {
        let provider_type = match provider_type {
            Some(t) if !is_placeholder(&t.value) => Some(t.value.parse().map_err(
                |e: crate::provider::UnknownProviderType| self.error(t.start, e.to_string()),
            )?),
            _ => None,
        };
        let name = match name {
            Some(name) if !is_placeholder(&name.value) => {
                crate::provider::validate_name(provider_type, &name.value)
                    .map_err(|e| self.error(name.start, e.to_string()))?;
                Some(name.value)
            }
            _ => None,
        };
        Ok((name, provider_type))
    }

    /// `providers:`: providers with their components, released under one tag.
    fn providers(
        &self,
        entries: Vec<Spanned<RawProvider>>,
    ) -> Result<Vec<ProviderConfig>, ConfigError> {
        let mut out: Vec<ProviderConfig> = Vec::new();
        // The components file names each provider writes, when its type is known.
        let mut file_names: Vec<(String, String)> = Vec::new();
        for entry in entries {
            let at = entry.start;
            let raw = entry.value;
            let (name, provider_type) = self.name_and_type(raw.name, raw.provider_type)?;
            let mut provider = ProviderConfig {
                name,
                provider_type,
                ..ProviderConfig::default()
            };
            if let Some(components) = raw.components {
                provider.components = self.components(components.value)?;
            }
            provider.namespace = raw.namespace.map(|n| self.namespace(n)).transpose()?;
            if provider.components.is_empty() {
                return Err(self.error(
                    at,
                    format!(
                        "the provider `{}` needs `components` (a `file`, `files` or a `command`)",
                        provider.describe()
                    ),
                ));
            }
            if let Some(suffix) = raw.suffix {
                // `suffix: ""` says "no suffix"; otherwise it names the entry's components
                // file (the one without a suffix of its own, when `components` is a list).
                let value = match suffix.value.0.filter(|text| !text.is_empty()) {
                    None => None,
                    Some(text) => Some(self.suffix(suffix.start, text)?),
                };
                match provider.components.iter_mut().find(|c| c.suffix.is_none()) {
                    Some(components) => components.suffix = value,
                    None if value.is_none() => {}
                    None => {
                        return Err(self.error(
                            suffix.start,
                            "every `components` entry of this provider has its own `suffix`; remove this one",
                        ));
                    }
                }
            }
            if let Some(earlier) = out.iter().find(|p| {
                p.provider_type.is_some()
                    && p.provider_type == provider.provider_type
                    && p.name.is_some()
                    && p.name == provider.name
            }) {
                return Err(self.error(
                    at,
                    format!(
                        "the provider `{}` is listed twice in `providers`",
                        earlier.describe()
                    ),
                ));
            }
            if let Some(provider_type) = provider.provider_type {
                for components in &provider.components {
                    let file = components_file_name(provider_type, components.suffix.as_deref());
                    if let Some((_, other)) = file_names.iter().find(|(f, _)| *f == file) {
                        return Err(self.error(
                            at,
                            format!(
                                "the providers `{other}` and `{}` would both write `{file}` into the one release; give one of them a `suffix` (`{}-components-<suffix>.yaml`)",
                                provider.describe(),
                                provider_type.short_name()
                            ),
                        ));
                    }
                    file_names.push((file, provider.describe()));
                }
            }
            out.push(provider);
        }
        Ok(out)
    }

    /// A components file suffix: lower-case letters, digits and `-`.
    fn suffix(&self, at: usize, text: String) -> Result<String, ConfigError> {
        let valid = !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !valid {
            return Err(self.error(
                at,
                format!("suffix `{text}` must be lower-case letters, digits and `-`"),
            ));
        }
        Ok(text)
    }

    /// `components:` is one source or a list of sources with distinct suffixes.
    fn components(
        &self,
        entries: OneOrMany<Spanned<RawComponents>>,
    ) -> Result<Vec<ComponentsConfig>, ConfigError> {
        let mut out: Vec<ComponentsConfig> = Vec::new();
        for entry in entries.0 {
            let at = entry.start;
            let components = self.components_entry(entry)?;
            if out.iter().any(|c| c.suffix == components.suffix) {
                return Err(self.error(
                    at,
                    match &components.suffix {
                        Some(s) => format!("two components entries have the suffix `{s}`"),
                        None => "two components entries have no `suffix`; give all but one a suffix (`infrastructure-components-{suffix}.yaml`)".to_string(),
                    },
                ));
            }
            out.push(components);
        }
        Ok(out)
    }

    fn components_entry(
        &self,
        entry: Spanned<RawComponents>,
    ) -> Result<ComponentsConfig, ConfigError> {
        let raw = entry.value;
        let suffix = raw
            .suffix
            .map(|s| self.suffix(s.start, s.value))
            .transpose()?;
        let mut limits = CommandLimits::default();
        if let Some(timeout) = &raw.timeout {
            limits.timeout = parse_duration(&timeout.value)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    self.error(
                        timeout.start,
                        format!(
                            "`timeout: {}` is not a duration (`30s`, `10m`, `1h`)",
                            timeout.value
                        ),
                    )
                })?;
        }
        if let Some(output_limit) = &raw.output_limit {
            limits.output_limit = parse_size(&output_limit.value)
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    self.error(
                        output_limit.start,
                        format!(
                            "`output_limit: {}` is not a size (`64MiB`, `1GiB`, bytes)",
                            output_limit.value
                        ),
                    )
                })?;
        }
        // The sources given, in the order written: one is needed, a second is an error at it.
        let mut sources: Vec<(usize, ComponentsSource)> = Vec::new();
        if let Some(file) = raw.file {
            let at = file.start;
            sources.push((at, ComponentsSource::File(self.path_value(file)?)));
        }
        if let Some(files) = raw.files {
            if files.value.0.is_empty() {
                return Err(self.error(files.start, "`files` needs at least one path"));
            }
            let paths = files.value.0.into_iter().map(PathBuf::from).collect();
            sources.push((files.start, ComponentsSource::Files(paths)));
        }
        if let Some(command) = raw.command {
            let source = match command.value {
                RawCommand::Argv(argv) if argv.is_empty() => {
                    return Err(self.error(command.start, "`command` needs a program to run"));
                }
                RawCommand::Argv(argv) => Command::Argv(argv),
                RawCommand::Shell(line) => Command::Shell(line),
            };
            sources.push((command.start, ComponentsSource::Command(source)));
        }
        sources.sort_by_key(|(at, _)| *at);
        let mut sources = sources.into_iter();
        let Some((_, source)) = sources.next() else {
            return Err(self.error(
                entry.start,
                "`components` needs one of `file`, `files` or `command`",
            ));
        };
        if let Some((at, _)) = sources.next() {
            return Err(self.error(
                at,
                "give one of `file`, `files` or `command` per components entry",
            ));
        }
        let last_limit = [&raw.timeout, &raw.output_limit]
            .into_iter()
            .flatten()
            .map(|limit| limit.start)
            .max();
        if let Some(at) = last_limit
            && !matches!(source, ComponentsSource::Command(_))
        {
            return Err(self.error(
                at,
                "`timeout` and `output_limit` bound a `command`; this components entry has none",
            ));
        }
        Ok(ComponentsConfig {
            suffix,
            source,
            limits,
        })
    }

    /// `images:`: kustomize-style entries.
    fn images(&self, entries: Vec<Spanned<RawImage>>) -> Result<Vec<ImagePin>, ConfigError> {
        let mut out: Vec<ImagePin> = Vec::new();
        for entry in entries {
            let raw = entry.value;
            if let Some(new_name) = &raw.new_name {
                let parts = crate::image_ref::Parts::parse(&new_name.value);
                if !matches!(parts, Ok(p) if p.tag.is_none() && p.digest.is_none()) {
                    return Err(self.error(new_name.start, format!("`newName: {}` must be an image name without tag or digest (give those as `newTag` and `digest`)", new_name.value)));
                }
            }
            if let Some(new_tag) = &raw.new_tag {
                let text = &new_tag.value;
                let example = text
                    .replace("{version}", "v1.2.3")
                    .replace("{semver}", "1.2.3");
                if example.contains(['{', '}']) {
                    return Err(self.error(new_tag.start, format!("`newTag: {text}`: the placeholders are `{{version}}` (v1.2.3) and `{{semver}}` (1.2.3)")));
                }
                if crate::image_ref::Parts::parse(&format!("x:{example}"))
                    .ok()
                    .and_then(|p| p.tag)
                    != Some(example.as_str())
                {
                    return Err(self.error(new_tag.start, format!("`newTag: {text}` is not a valid image tag (letters, digits, `_`, `.`, `-`; at most 128)")));
                }
            }
            if let Some(digest) = &raw.digest
                && crate::image_ref::Parts::parse(&format!("x@{}", digest.value)).is_err()
            {
                return Err(self.error(
                    digest.start,
                    format!(
                        "`digest: {}` is not a digest (`sha256:` and 64 hex digits)",
                        digest.value
                    ),
                ));
            }
            if let Some(policy) = &raw.pull_policy
                && !PULL_POLICIES.contains(&policy.value.as_str())
            {
                return Err(self.error(
                    policy.start,
                    format!(
                        "`pullPolicy: {}` is not an image pull policy; use one of {}",
                        policy.value,
                        PULL_POLICIES.join(", ")
                    ),
                ));
            }
            let Some(name) = raw.name else {
                return Err(self.error(
                    entry.start,
                    "an `images` entry needs `name`: the image as written in the manifests",
                ));
            };
            if crate::image_ref::Parts::parse(&name.value)
                .map_or(true, |p| p.tag.is_some() || p.digest.is_some())
            {
                return Err(self.error(name.start, format!("`name: {}` must be the image without tag or digest, as kustomize matches it", name.value)));
            }
            let value = |field: Option<Spanned<String>>| field.map(|f| f.value);
            let pin = ImagePin {
                name: name.value,
                new_name: value(raw.new_name),
                new_tag: value(raw.new_tag),
                digest: value(raw.digest),
                pull_policy: value(raw.pull_policy),
                at: self.at(entry.start),
            };
            if pin.new_name.is_none()
                && pin.new_tag.is_none()
                && pin.digest.is_none()
                && pin.pull_policy.is_none()
            {
                return Err(self.error(entry.start, format!("the `images` entry for `{}` changes nothing; give `newName`, `newTag`, `digest` or `pullPolicy`", pin.name)));
            }
            if out.iter().any(|p| p.name == pin.name) {
                return Err(self.error(
                    name.start,
                    format!("two `images` entries for `{}`", pin.name),
                ));
            }
            out.push(pin);
        }
        Ok(out)
    }

    /// `lint.allow:`: the findings the maintainer accepts, each with a reason.
    fn waivers(
        &self,
        entries: Vec<Spanned<RawWaiver>>,
    ) -> Result<Vec<crate::rules::Waiver>, ConfigError> {
        let mut waivers = Vec::new();
        for entry in entries {
            let raw = entry.value;
            let check =
                |result: Result<(), String>, at: usize| result.map_err(|e| self.error(at, e));
            if let Some(rule) = &raw.rule {
                check(crate::rules::waivers::check_rule(&rule.value), rule.start)?;
            }
            let files = match raw.files {
                Some(files) => {
                    for glob in &files.value.0 {
                        check(crate::rules::waivers::check_glob(glob), files.start)?;
                    }
                    files.value.0
                }
                None => Vec::new(),
            };
            let objects = match raw.objects {
                Some(objects) => {
                    for glob in &objects.value.0 {
                        if !glob.contains('/') {
                            return Err(self.error(objects.start, format!("`{glob}` names no object: write `Kind/name` (`CustomResourceDefinition/foos.infrastructure.cluster.x-k8s.io`; globs allowed)")));
                        }
                        check(crate::rules::waivers::check_glob(glob), objects.start)?;
                    }
                    objects.value.0
                }
                None => Vec::new(),
            };
            if let Some(reason) = &raw.reason
                && reason.value.trim().is_empty()
            {
                return Err(self.error(
                    reason.start,
                    "a waiver's `reason` must say why the finding is accepted",
                ));
            }
            let rule = raw.rule.map(|r| r.value).ok_or_else(|| {
                self.error(
                    entry.start,
                    "a `lint.allow` entry needs `rule`: the rule id to accept",
                )
            })?;
            let reason = raw.reason.map(|r| r.value).ok_or_else(|| {
                self.error(entry.start, format!("the waiver of `{rule}` needs a `reason`: say why the finding is accepted, for whoever reads the release"))
            })?;
            waivers.push(crate::rules::Waiver {
                rule,
                files,
                objects,
                reason,
                origin: crate::rules::waivers::Origin::Config {
                    file: self.source.clone(),
                    span: Span::new(entry.start, entry.start),
                },
            });
        }
        Ok(waivers)
    }

    fn targets(&self, raw: RawTargets) -> Result<Targets, ConfigError> {
        let mut targets = Targets::default();
        if let Some(github) = raw.github {
            let repo = &github.repo;
            let valid = repo
                .value
                .split_once('/')
                .is_some_and(|(o, n)| !o.is_empty() && !n.is_empty() && !n.contains('/'));
            if !valid {
                return Err(self.error(repo.start, format!("`{}` is not OWNER/NAME", repo.value)));
            }
            self.forge_name(repo)?;
            targets.github = Some(GitHubTarget {
                repo: github.repo.value,
                api_url: github.api_url,
            });
        }
        if let Some(gitlab) = raw.gitlab {
            for name in [&gitlab.project, &gitlab.package].into_iter().flatten() {
                self.forge_name(name)?;
            }
            targets.gitlab = Some(GitLabTarget {
                project: gitlab.project.map(|p| p.value),
                package: gitlab.package.map(|p| p.value),
                api_url: gitlab.api_url,
            });
        }
        if let Some(local) = raw.local {
            targets.local = Some(LocalTarget {
                repository: self.path_value(local.repository)?,
            });
        }
        if let Some(oci) = raw.oci {
            crate::forge::oci::Reference::parse(&oci.repository.value)
                .map_err(|e| self.error(oci.repository.start, e.to_string()))?;
            targets.oci = Some(OciTarget {
                repository: oci.repository.value,
                tag: oci.tag,
            });
        }
        Ok(targets)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("capkg.yaml"), text, PathBuf::from("/repo"))
    }

    fn error(text: &str) -> String {
        parse(text).expect_err("should fail").to_string()
    }

    #[test]
    fn forge_names_have_no_dot_or_empty_parts() {
        for (target, place) in [
            ("github: {repo: o/..}", "5:18"),
            ("github: {repo: ../x}", "5:18"),
            ("gitlab: {project: g/..}", "5:21"),
            ("gitlab: {project: \"42\", package: ..}", "5:36"),
        ] {
            let err = parse(&format!(
                "provider: {{name: aws, type: infrastructure}}\ncomponents: {{file: c.yaml}}\nnamespace: capa-system\ntargets:\n  {target}\n"
            ))
            .unwrap_err()
            .to_string();
            assert!(
                err.starts_with(&format!("capkg.yaml:{place}: ")),
                "{target}: {err}"
            );
            assert!(err.contains("cannot be a forge name"), "{target}: {err}");
        }
    }

    #[test]
    fn namespaces_are_dns_labels() {
        let long = "a".repeat(70);
        for (bad, column) in [("Capx_System", 12), (long.as_str(), 12)] {
            let err = parse(&format!(
                "provider: {{name: aws, type: infrastructure}}\ncomponents: {{file: c.yaml}}\nnamespace: {bad}\n"
            ))
            .unwrap_err()
            .to_string();
            assert!(
                err.starts_with(&format!(
                    "capkg.yaml:3:{column}: `{bad}` cannot be a namespace"
                )),
                "{err}"
            );
        }
        let err = parse("providers:\n  - name: aws\n    type: infrastructure\n    components: {file: c.yaml}\n    namespace: a.b\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("capkg.yaml:5:16: `a.b` cannot be a namespace"),
            "{err}"
        );
        assert!(parse("provider: {name: aws, type: infrastructure}\ncomponents: {file: c.yaml}\nnamespace: TODO\n").is_ok());
    }

    #[test]
    fn reads_every_field() {
        let config = parse(
            "provider:\n  name: aws\n  type: InfrastructureProvider\ncomponents:\n  command: [kubectl, kustomize, config/default]\nmetadata: meta/metadata.yaml\ntemplates:\n  - templates/cluster-template*.yaml\nnamespace: capa-system\nversion: v2.1.0\noutput: dist\ntargets:\n  github: {repo: o/r}\n  gitlab: {project: g/p, package: capa}\n  local: {repository: repo}\n",
        )
        .unwrap();
        assert_eq!(config.providers.len(), 1);
        let provider = &config.providers[0];
        assert_eq!(provider.name.as_deref(), Some("aws"));
        assert_eq!(provider.provider_type, Some(ProviderType::Infrastructure));
        assert_eq!(provider.namespace, None);
        assert_eq!(
            provider.components,
            vec![ComponentsConfig {
                suffix: None,
                source: ComponentsSource::Command(Command::Argv(vec![
                    "kubectl".into(),
                    "kustomize".into(),
                    "config/default".into()
                ])),
                limits: CommandLimits::default(),
            }]
        );
        assert_eq!(config.metadata, Some(PathBuf::from("meta/metadata.yaml")));
        assert_eq!(config.templates, vec!["templates/cluster-template*.yaml"]);
        assert_eq!(config.namespace.as_deref(), Some("capa-system"));
        assert_eq!(config.version.clone().unwrap().to_string(), "v2.1.0");
        assert_eq!(config.output, Some(PathBuf::from("dist")));
        assert_eq!(config.targets.github.clone().unwrap().repo, "o/r");
        assert_eq!(
            config.targets.gitlab.clone().unwrap().package.as_deref(),
            Some("capa")
        );
        assert_eq!(
            config.targets.local.clone().unwrap().repository,
            PathBuf::from("repo")
        );
        assert_eq!(
            config.resolve(Path::new("a.yaml")),
            PathBuf::from("/repo/a.yaml")
        );
    }

    #[test]
    fn components_may_be_a_list_with_suffixes() {
        let config = parse(
            "components:\n  - file: a.yaml\n  - suffix: supervisor\n    files: [crd, rbac.yaml]\n  - suffix: shell\n    command: make manifests > /dev/stdout\n",
        )
        .unwrap();
        let components = &config.providers[0].components;
        assert_eq!(components.len(), 3);
        assert_eq!(
            components[1],
            ComponentsConfig {
                suffix: Some("supervisor".into()),
                source: ComponentsSource::Files(vec!["crd".into(), "rbac.yaml".into()]),
                limits: CommandLimits::default(),
            }
        );
        assert!(matches!(
            &components[2].source,
            ComponentsSource::Command(Command::Shell(line)) if line == "make manifests > /dev/stdout"
        ));
    }

    #[test]
    fn the_oci_target_and_the_image_switch_are_read_and_checked() {
        let config = parse(
            "targets:\n  oci:\n    repository: ghcr.io/o/capi\n    tag: \"r-{version}\"\ncheck_images: false\n",
        )
        .unwrap();
        assert_eq!(
            config.targets.oci,
            Some(OciTarget {
                repository: "ghcr.io/o/capi".into(),
                tag: Some("r-{version}".into()),
            })
        );
        assert_eq!(config.check_images, Some(false));
        assert!(
            error("targets:\n  oci:\n    tag: x\n").contains("`targets.oci` needs `repository`")
        );
        assert!(
            error("targets:\n  oci:\n    repository: ghcr.io/O/capi\n").contains("capkg.yaml:3:17")
        );
        assert!(error("check_images: maybe\n").contains("`check_images` is `true` or `false`"));
    }

    #[test]
    fn previous_names_the_release_to_compare_with() {
        let config = parse("previous: v1.2.2\n").unwrap();
        assert_eq!(config.previous.as_deref(), Some("v1.2.2"));
        assert_eq!(parse("output: out\n").unwrap().previous, None);
    }

    #[test]
    fn unknown_fields_are_errors_with_a_position() {
        assert_eq!(
            error("provider:\n  name: aws\n  typo: x\n"),
            "capkg.yaml:3:3: unknown field `typo` in `provider`; expected one of: name, type"
        );
        assert_eq!(
            error("output: out\ntemplate: x\n"),
            "capkg.yaml:2:1: unknown field `template` in the top level; expected one of: provider, providers, components, metadata, templates, namespace, version, output, targets, images, lint, check_images, previous"
        );
        assert_eq!(
            error("targets:\n  github:\n    repository: o/r\n"),
            "capkg.yaml:3:5: unknown field `repository` in `targets.github`; expected one of: repo, api_url"
        );
    }

    #[test]
    fn wrong_shapes_and_values_are_errors_with_a_position() {
        assert_eq!(
            error("provider: aws\n"),
            "capkg.yaml:1:11: `provider` must be a mapping"
        );
        assert!(
            error("provider:\n  type: infra\n")
                .starts_with("capkg.yaml:2:9: unknown provider type `infra`")
        );
        assert!(error("version: 1.x\n").starts_with("capkg.yaml:1:10: `1.x` is not a version"));
        assert_eq!(
            error("components:\n  file: a.yaml\n  command: [x]\n"),
            "capkg.yaml:3:12: give one of `file`, `files` or `command` per components entry"
        );
        assert_eq!(
            error("components:\n  suffix: x\n"),
            "capkg.yaml:2:3: `components` needs one of `file`, `files` or `command`"
        );
        assert_eq!(
            error("components:\n  - file: a\n  - file: b\n"),
            "capkg.yaml:3:5: two components entries have no `suffix`; give all but one a suffix (`infrastructure-components-{suffix}.yaml`)"
        );
        assert_eq!(
            error("targets:\n  github: {repo: nope}\n"),
            "capkg.yaml:2:18: `nope` is not OWNER/NAME"
        );
        assert!(error("provider: {name: [\n").starts_with("capkg.yaml:"));
    }

    #[test]
    fn placeholders_are_read_then_refused_with_their_key_and_place() {
        let config = parse(
            "provider:\n  name: \"TODO: the name\"\n  type: TODO\ncomponents:\n  command: [kubectl, kustomize, config/default]\nmetadata: metadata.yaml\n",
        )
        .unwrap();
        assert_eq!(config.providers[0].name, None);
        assert_eq!(config.placeholders.len(), 2);
        assert_eq!(
            config.refuse_placeholders().unwrap_err().to_string(),
            "capkg.yaml:2:9: `provider.name` is still a placeholder (`TODO: the name`): `capkg init` could not detect it; replace it with the real value (1 more placeholder(s) after it)"
        );
        // `TODO` inside a value is not a placeholder.
        let config = parse("templates: [TODO.yaml, a/TODO:x]\n").unwrap();
        assert!(config.refuse_placeholders().is_ok());
    }

    #[test]
    fn images_are_kustomize_entries() {
        let config = parse(
            "images:\n  - name: gcr.io/a/manager\n    newName: registry.k8s.io/a/manager\n    newTag: \"{version}\"\n  - name: controller\n    digest: sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n",
        )
        .unwrap();
        assert_eq!(config.images.len(), 2);
        assert_eq!(config.images[0].new_tag.as_deref(), Some("{version}"));
        assert_eq!(config.images[0].at, "capkg.yaml:2:5");
        assert_eq!(
            error("images:\n  - name: a.io/b:v1\n    newTag: v2\n"),
            "capkg.yaml:2:11: `name: a.io/b:v1` must be the image without tag or digest, as kustomize matches it"
        );
        assert_eq!(
            error("images:\n  - name: a.io/b\n    newTag: \"{tag}\"\n"),
            "capkg.yaml:3:13: `newTag: {tag}`: the placeholders are `{version}` (v1.2.3) and `{semver}` (1.2.3)"
        );
        assert!(error("images:\n  - name: a.io/b\n").contains("changes nothing"));
        assert!(error("images:\n  - name: a.io/b\n    digest: md5:1\n").contains("not a digest"));
        assert_eq!(
            error("images:\n  - name: a.io/b\n    pullPolicy: always\n"),
            "capkg.yaml:3:17: `pullPolicy: always` is not an image pull policy; use one of Always, IfNotPresent, Never"
        );
        let config = parse("images:\n  - name: a.io/b\n    pullPolicy: Always\n").unwrap();
        assert_eq!(config.images[0].pull_policy.as_deref(), Some("Always"));
        assert!(
            error("images:\n  - name: a.io/b\n    newtag: v1\n").contains("unknown field `newtag`")
        );
    }

    #[test]
    fn waivers_need_a_known_rule_and_a_reason() {
        let config = parse(
            "lint:\n  allow:\n    - rule: templates/single-namespace\n      files: [\"cluster-template-*.yaml\"]\n      reason: clusterctl moves them\n",
        )
        .unwrap();
        assert_eq!(config.waivers.len(), 1);
        assert_eq!(config.waivers[0].files, vec!["cluster-template-*.yaml"]);
        let config = parse(
            "lint:\n  allow:\n    - rule: templates/single-namespace\n      objects: [\"CustomResourceDefinition/a.x.io\"]\n      reason: judged\n",
        )
        .unwrap();
        assert_eq!(
            config.waivers[0].objects,
            vec!["CustomResourceDefinition/a.x.io"]
        );
        assert!(
            error("lint:\n  allow:\n    - rule: templates/single-namespace\n      objects: [a.x.io]\n      reason: judged\n")
                .contains("names no object: write `Kind/name`")
        );
        assert_eq!(
            error("lint:\n  allow:\n    - rule: templates/nope\n      reason: x\n"),
            "capkg.yaml:3:13: there is no rule `templates/nope`; `capkg rules` lists every rule id"
        );
        assert_eq!(
            error("lint:\n  allow:\n    - rule: components/image-tag\n"),
            "capkg.yaml:3:7: the waiver of `components/image-tag` needs a `reason`: say why the finding is accepted, for whoever reads the release"
        );
    }

    #[test]
    fn command_limits_are_read_and_checked() {
        let config =
            parse("components:\n  command: [make]\n  timeout: 1h30m\n  output_limit: 64MiB\n")
                .unwrap();
        assert_eq!(
            config.providers[0].components[0].limits,
            CommandLimits {
                timeout: std::time::Duration::from_secs(5400),
                output_limit: 64 << 20
            }
        );
        assert!(
            error("components:\n  command: [make]\n  timeout: soon\n")
                .contains("`timeout: soon` is not a duration")
        );
        assert!(
            error("components:\n  command: [make]\n  output_limit: 1TB\n")
                .contains("is not a size")
        );
        assert!(
            error("components:\n  file: a.yaml\n  timeout: 1s\n").contains("bound a `command`")
        );
        assert_eq!(
            parse_duration("500ms"),
            Ok(std::time::Duration::from_millis(500))
        );
        assert_eq!(parse_size("1000"), Ok(1000));
    }

    #[test]
    fn an_empty_file_is_an_empty_configuration() {
        let config = parse("# nothing yet\n").unwrap();
        assert!(config.providers.is_empty());
        assert_eq!(config.root, PathBuf::from("/repo"));
    }

    const TWO_PROVIDERS: &str = "providers:\n  - name: kubeadm\n    type: bootstrap\n    components:\n      command: [kubectl, kustomize, bootstrap/config/default]\n    namespace: capi-kubeadm-bootstrap-system\n  - name: kubeadm\n    type: control-plane\n    components: {files: [controlplane/config]}\n    suffix: \"\"\nnamespace: shared-system\nmetadata: metadata.yaml\n";

    #[test]
    fn providers_is_a_list_of_providers_with_their_components() {
        let config = parse(TWO_PROVIDERS).unwrap();
        assert!(config.has_several_providers());
        let [bootstrap, control_plane] = config.providers.as_slice() else {
            panic!("two providers: {:?}", config.providers)
        };
        assert_eq!(bootstrap.describe(), "bootstrap-kubeadm");
        assert_eq!(control_plane.describe(), "control-plane-kubeadm");
        assert!(matches!(
            &bootstrap.components[..],
            [ComponentsConfig { suffix: None, source: ComponentsSource::Command(Command::Argv(argv)), .. }] if argv[2] == "bootstrap/config/default"
        ));
        assert_eq!(
            control_plane.components,
            vec![ComponentsConfig {
                suffix: None,
                source: ComponentsSource::Files(vec!["controlplane/config".into()]),
                limits: CommandLimits::default(),
            }]
        );
        // A provider's own namespace wins over the shared one.
        assert_eq!(
            config.namespace_of(bootstrap),
            Some("capi-kubeadm-bootstrap-system")
        );
        assert_eq!(config.namespace_of(control_plane), Some("shared-system"));
        assert_eq!(config.metadata, Some(PathBuf::from("metadata.yaml")));
    }

    #[test]
    fn a_provider_suffix_names_its_components_file() {
        let config = parse(
            "providers:\n  - {name: a, type: infrastructure, components: {file: a.yaml}}\n  - {name: b, type: infrastructure, components: {file: b.yaml}, suffix: b}\n",
        )
        .unwrap();
        assert_eq!(
            config.providers[1].components[0].suffix.as_deref(),
            Some("b")
        );
        assert_eq!(
            error(
                "providers:\n  - {name: a, type: infrastructure, components: {file: a.yaml}}\n  - {name: b, type: infrastructure, components: {file: b.yaml}}\n"
            ),
            "capkg.yaml:3:5: the providers `infrastructure-a` and `infrastructure-b` would both write `infrastructure-components.yaml` into the one release; give one of them a `suffix` (`infrastructure-components-<suffix>.yaml`)"
        );
        assert_eq!(
            error("providers:\n  - {name: a, type: ipam, components: {file: a.yaml}, suffix: A}\n"),
            "capkg.yaml:2:63: suffix `A` must be lower-case letters, digits and `-`"
        );
        // No value, an empty string or a null: the provider's components file has no suffix.
        for none in ["suffix:", "suffix: \"\"", "suffix: ~"] {
            let config = parse(&format!(
                "providers:\n  - name: a\n    type: ipam\n    components: {{file: a.yaml}}\n    {none}\n"
            ))
            .unwrap();
            assert_eq!(config.providers[0].components[0].suffix, None, "{none}");
        }
        assert_eq!(
            error(
                "providers:\n  - {name: a, type: ipam, components: {file: a.yaml}, suffix: [b]}\n"
            ),
            "capkg.yaml:2:63: expected a string"
        );
    }

    #[test]
    fn the_single_form_is_a_list_of_one() {
        let mut config = parse(
            "provider: {name: aws, type: infrastructure}\ncomponents: {file: c.yaml}\nnamespace: capa-system\n",
        )
        .unwrap();
        assert_eq!(config.providers.len(), 1);
        assert!(!config.has_several_providers());
        assert_eq!(
            config.namespace_of(&config.providers[0]),
            Some("capa-system")
        );
        config.single_provider_mut().unwrap().name = Some("other".into());
        assert_eq!(config.providers[0].name.as_deref(), Some("other"));
        // Flags alone create the provider they describe.
        let mut empty = parse("").unwrap();
        empty.single_provider_mut().unwrap().provider_type = Some(ProviderType::Ipam);
        assert_eq!(empty.providers.len(), 1);
        // `components:` alone is a provider whose name and type come from the files.
        let only_components =
            parse("components: {file: infrastructure-components.yaml}\n").unwrap();
        assert_eq!(only_components.providers[0].name, None);
    }

    #[test]
    fn both_forms_or_a_bad_list_are_errors_with_a_position() {
        let both = format!("{TWO_PROVIDERS}provider:\n  name: aws\n");
        assert_eq!(
            error(&both),
            "capkg.yaml:13:1: `provider` and `providers` cannot both be given: move `provider` into an entry of `providers` (`name`, `type`, `components`)"
        );
        assert_eq!(
            error(
                "components: {file: c.yaml}\nproviders:\n  - {name: a, type: ipam, components: {file: a.yaml}}\n"
            ),
            "capkg.yaml:1:1: `components` and `providers` cannot both be given: move `components` into an entry of `providers` (`name`, `type`, `components`)"
        );
        assert_eq!(
            error("providers:\n  - name: a\n    type: ipam\n"),
            "capkg.yaml:2:5: the provider `ipam-a` needs `components` (a `file`, `files` or a `command`)"
        );
        assert_eq!(
            error("providers: []\n"),
            "capkg.yaml:1:12: `providers` needs at least one provider"
        );
        assert!(
            error("providers: {name: a}\n")
                .starts_with("capkg.yaml:1:12: `providers` must be a list")
        );
        assert_eq!(
            error("providers:\n  - {name: a, type: ipam, components: {file: a}, image: x}\n"),
            "capkg.yaml:2:50: unknown field `image` in a `providers` entry; expected one of: name, type, components, namespace, suffix"
        );
        assert_eq!(
            error(
                "providers:\n  - {name: a, type: ipam, components: {file: a}}\n  - {name: a, type: ipam, components: {file: b}, suffix: b}\n"
            ),
            "capkg.yaml:3:5: the provider `ipam-a` is listed twice in `providers`"
        );
    }

    #[test]
    fn flags_for_one_provider_are_refused_with_several() {
        let mut config = parse(TWO_PROVIDERS).unwrap();
        let err = config.single_provider_mut().unwrap_err();
        assert_eq!(err.labels, ["bootstrap-kubeadm", "control-plane-kubeadm"]);
        assert!(err.to_string().contains("`--provider`, `--type`"), "{err}");
    }

    #[test]
    fn discovery_stops_at_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join("a/b")).unwrap();
        assert_eq!(Config::discover(&repo.join("a/b")), None);
        std::fs::write(repo.join(FILE_NAME), "").unwrap();
        assert_eq!(
            Config::discover(&repo.join("a/b")),
            Some(repo.join(FILE_NAME))
        );
        // A capkg.yaml above the repository root is not this repository's.
        std::fs::remove_file(repo.join(FILE_NAME)).unwrap();
        std::fs::write(dir.path().join(FILE_NAME), "").unwrap();
        assert_eq!(Config::discover(&repo.join("a")), None);
    }
}
