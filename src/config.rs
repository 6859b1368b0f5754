//! `capkg.yaml`: the project's own configuration (which provider, where its release files come
//! from, where they go).
//!
//! The file is read with capkg's YAML loader so that every problem names its line and column:
//! unknown fields are errors (a typo must not silently drop a setting), and so are values of the
//! wrong shape. Relative paths resolve against the folder holding the file, which is also where
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

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::provider::ProviderType;
use crate::version::Version;
use crate::yaml::{self, Limits, Node, Position, Source, Value};

/// The file name capkg looks for.
pub const FILE_NAME: &str = "capkg.yaml";

/// A loaded `capkg.yaml`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Config {
    /// The file it was read from (`None` when built from flags alone).
    pub path: Option<PathBuf>,
    /// The folder relative paths resolve against, and where `command`s run.
    pub root: PathBuf,
    pub provider: ProviderConfig,
    /// One entry per components file; more than one only with distinct `suffix`es
    /// (`infrastructure-components-supervisor.yaml`).
    pub components: Vec<ComponentsConfig>,
    /// `metadata.yaml` of the release (default `metadata.yaml`).
    pub metadata: Option<PathBuf>,
    /// Globs (relative to [`Config::root`]) for `cluster-template*.yaml` and
    /// `clusterclass-*.yaml` files.
    pub templates: Vec<String>,
    /// The namespace the components install into; default: their one Namespace object.
    pub namespace: Option<String>,
    /// The version being released; usually given on the command line or by the CI tag instead.
    pub version: Option<Version>,
    /// Where `capkg assemble` writes (default `out`).
    pub output: Option<PathBuf>,
    pub targets: Targets,
}

/// `provider:`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProviderConfig {
    pub name: Option<String>,
    pub provider_type: Option<ProviderType>,
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

/// `30s`, `10m`, `1h30m`, `500ms`: a duration as capkg.yaml spells it.
pub fn parse_duration(text: &str) -> Option<std::time::Duration> {
    let mut total = std::time::Duration::ZERO;
    let mut rest = text.trim();
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let number: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let part = match &rest[..unit] {
            "ms" => std::time::Duration::from_millis(number),
            "s" => std::time::Duration::from_secs(number),
            "m" => std::time::Duration::from_secs(number.checked_mul(60)?),
            "h" => std::time::Duration::from_secs(number.checked_mul(3600)?),
            _ => return None,
        };
        total = total.checked_add(part)?;
        rest = &rest[unit..];
    }
    Some(total)
}

/// `256MiB`, `1GiB`, `64KiB`, `10MB`, `1000`: a size in bytes as capkg.yaml spells it.
pub fn parse_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let number: u64 = text[..digits].parse().ok()?;
    let factor: u64 = match text[digits..].trim_start() {
        "" | "B" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        _ => return None,
    };
    number.checked_mul(factor)
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
        let reader = Reader {
            path: name,
            source: &source,
        };
        if let Some(error) = file.errors.first() {
            return Err(reader.error_at(error.span.start, error.message.clone()));
        }
        let mut roots = file.documents.iter().filter_map(|d| d.root.as_ref());
        let Some(root_node) = roots.next() else {
            return Ok(Config {
                root,
                ..Config::default()
            });
        };
        if let Some(extra) = roots.next() {
            return Err(reader.error(extra, "capkg.yaml holds one document; remove the `---`"));
        }
        let mut config = Config {
            root,
            ..Config::default()
        };
        for (key, value) in reader.fields(
            root_node,
            "the top level",
            &[
                "provider",
                "components",
                "metadata",
                "templates",
                "namespace",
                "version",
                "output",
                "targets",
            ],
        )? {
            match key {
                "provider" => config.provider = reader.provider(value)?,
                "components" => config.components = reader.components(value)?,
                "metadata" => config.metadata = Some(reader.path_value(value)?),
                "templates" => config.templates = reader.strings(value)?,
                "namespace" => config.namespace = Some(reader.string(value)?),
                "version" => {
                    let text = reader.string(value)?;
                    config.version = Some(Version::parse(&text).map_err(|e| {
                        reader.error(value, format!("`{text}` is not a version: {e}"))
                    })?);
                }
                "output" => config.output = Some(reader.path_value(value)?),
                "targets" => config.targets = reader.targets(value)?,
                _ => {}
            }
        }
        Ok(config)
    }

    /// The `capkg.yaml` for a command run in `start`: in `start` or the nearest folder above it,
    /// looking no higher than the repository root (the first folder holding `.git`).
    pub fn discover(start: &Path) -> Option<PathBuf> {
        for dir in start.ancestors() {
            let candidate = dir.join(FILE_NAME);
            if candidate.is_file() {
                return Some(candidate);
            }
            if dir.join(".git").exists() {
                return None;
            }
        }
        None
    }

    /// A path from the file, resolved against [`Config::root`].
    pub fn resolve(&self, path: &Path) -> PathBuf {
        if path.is_absolute() {
            path.to_path_buf()
        } else {
            clean_join(&self.root, path)
        }
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

/// Reads nodes of one file, turning shape problems into positioned errors.
struct Reader<'a> {
    path: &'a Path,
    source: &'a Source,
}

impl Reader<'_> {
    fn error_at(&self, offset: usize, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            path: self.path.to_path_buf(),
            position: self.source.position(offset),
            message: message.into(),
        }
    }

    fn error(&self, node: &Node, message: impl Into<String>) -> ConfigError {
        self.error_at(node.span.start, message)
    }

    /// The entries of a mapping, every key one of `known`.
    fn fields<'n>(
        &self,
        node: &'n Node,
        what: &str,
        known: &[&str],
    ) -> Result<Vec<(&'n str, &'n Node)>, ConfigError> {
        let Value::Mapping(mapping) = &node.value else {
            return Err(self.error(node, format!("{what} must be a mapping")));
        };
        let mut out = Vec::new();
        for (key, value) in &mapping.entries {
            let Some(name) = key.as_str() else {
                return Err(self.error(key, format!("keys in {what} must be strings")));
            };
            if !known.contains(&name) {
                return Err(self.error(
                    key,
                    format!(
                        "unknown field `{name}` in {what}; expected one of: {}",
                        known.join(", ")
                    ),
                ));
            }
            out.push((name, value));
        }
        Ok(out)
    }

    fn string(&self, node: &Node) -> Result<String, ConfigError> {
        match &node.value {
            Value::Scalar { text, .. } if !node.is_null() => Ok(text.clone()),
            _ => Err(self.error(node, "expected a string")),
        }
    }

    fn path_value(&self, node: &Node) -> Result<PathBuf, ConfigError> {
        let text = self.string(node)?;
        if text.is_empty() {
            return Err(self.error(node, "expected a path, found an empty string"));
        }
        Ok(PathBuf::from(text))
    }

    /// A string or a list of strings.
    fn strings(&self, node: &Node) -> Result<Vec<String>, ConfigError> {
        match &node.value {
            Value::Sequence(items) => items.iter().map(|item| self.string(item)).collect(),
            Value::Scalar { .. } => Ok(vec![self.string(node)?]),
            Value::Mapping(_) => Err(self.error(node, "expected a string or a list of strings")),
        }
    }

    fn provider(&self, node: &Node) -> Result<ProviderConfig, ConfigError> {
        let mut provider = ProviderConfig::default();
        let mut name_node = None;
        for (key, value) in self.fields(node, "`provider`", &["name", "type"])? {
            match key {
                "name" => name_node = Some(value),
                "type" => {
                    let text = self.string(value)?;
                    provider.provider_type = Some(text.parse().map_err(
                        |e: crate::provider::UnknownProviderType| self.error(value, e.to_string()),
                    )?);
                }
                _ => {}
            }
        }
        if let Some(value) = name_node {
            let name = self.string(value)?;
            crate::provider::validate_name(provider.provider_type, &name)
                .map_err(|e| self.error(value, e.to_string()))?;
            provider.name = Some(name);
        }
        Ok(provider)
    }

    /// `components:` is one source or a list of sources with distinct suffixes.
    fn components(&self, node: &Node) -> Result<Vec<ComponentsConfig>, ConfigError> {
        let items: Vec<&Node> = match &node.value {
            Value::Sequence(items) => items.iter().collect(),
            _ => vec![node],
        };
        let mut out: Vec<ComponentsConfig> = Vec::new();
        for item in items {
            let components = self.components_entry(item)?;
            if out.iter().any(|c| c.suffix == components.suffix) {
                return Err(self.error(
                    item,
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

    fn components_entry(&self, node: &Node) -> Result<ComponentsConfig, ConfigError> {
        let fields = self.fields(
            node,
            "`components`",
            &[
                "file",
                "files",
                "command",
                "suffix",
                "timeout",
                "output_limit",
            ],
        )?;
        let mut suffix = None;
        let mut limits = CommandLimits::default();
        let mut limit_node = None;
        let mut source: Option<ComponentsSource> = None;
        for (key, value) in fields {
            let next = match key {
                "suffix" => {
                    let text = self.string(value)?;
                    let valid = !text.is_empty()
                        && text
                            .chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
                    if !valid {
                        return Err(self.error(
                            value,
                            format!("suffix `{text}` must be lower-case letters, digits and `-`"),
                        ));
                    }
                    suffix = Some(text);
                    continue;
                }
                "timeout" => {
                    let text = self.string(value)?;
                    limits.timeout =
                        parse_duration(&text)
                            .filter(|d| !d.is_zero())
                            .ok_or_else(|| {
                                self.error(
                                    value,
                                    format!(
                                        "`timeout: {text}` is not a duration (`30s`, `10m`, `1h`)"
                                    ),
                                )
                            })?;
                    limit_node = Some(value);
                    continue;
                }
                "output_limit" => {
                    let text = self.string(value)?;
                    limits.output_limit =
                        parse_size(&text).filter(|n| *n > 0).ok_or_else(|| {
                            self.error(
                                value,
                                format!(
                                    "`output_limit: {text}` is not a size (`64MiB`, `1GiB`, bytes)"
                                ),
                            )
                        })?;
                    limit_node = Some(value);
                    continue;
                }
                "file" => ComponentsSource::File(self.path_value(value)?),
                "files" => {
                    let paths: Vec<PathBuf> = self
                        .strings(value)?
                        .into_iter()
                        .map(PathBuf::from)
                        .collect();
                    if paths.is_empty() {
                        return Err(self.error(value, "`files` needs at least one path"));
                    }
                    ComponentsSource::Files(paths)
                }
                "command" => ComponentsSource::Command(match &value.value {
                    Value::Sequence(_) => {
                        let argv = self.strings(value)?;
                        if argv.is_empty() {
                            return Err(self.error(value, "`command` needs a program to run"));
                        }
                        Command::Argv(argv)
                    }
                    _ => Command::Shell(self.string(value)?),
                }),
                _ => continue,
            };
            if source.is_some() {
                return Err(self.error(
                    value,
                    "give one of `file`, `files` or `command` per components entry",
                ));
            }
            source = Some(next);
        }
        let source = source.ok_or_else(|| {
            self.error(
                node,
                "`components` needs one of `file`, `files` or `command`",
            )
        })?;
        if let Some(value) = limit_node
            && !matches!(source, ComponentsSource::Command(_))
        {
            return Err(self.error(
                value,
                "`timeout` and `output_limit` bound a `command`; this components entry has none",
            ));
        }
        Ok(ComponentsConfig {
            suffix,
            source,
            limits,
        })
    }

    fn targets(&self, node: &Node) -> Result<Targets, ConfigError> {
        let mut targets = Targets::default();
        for (key, value) in self.fields(node, "`targets`", &["github", "gitlab", "local"])? {
            match key {
                "github" => {
                    let mut repo = None;
                    let mut api_url = None;
                    for (k, v) in self.fields(value, "`targets.github`", &["repo", "api_url"])? {
                        match k {
                            "repo" => {
                                let text = self.string(v)?;
                                let valid = text.split_once('/').is_some_and(|(o, n)| {
                                    !o.is_empty() && !n.is_empty() && !n.contains('/')
                                });
                                if !valid {
                                    return Err(
                                        self.error(v, format!("`{text}` is not OWNER/NAME"))
                                    );
                                }
                                repo = Some(text);
                            }
                            "api_url" => api_url = Some(self.string(v)?),
                            _ => {}
                        }
                    }
                    let repo =
                        repo.ok_or_else(|| self.error(value, "`targets.github` needs `repo`"))?;
                    targets.github = Some(GitHubTarget { repo, api_url });
                }
                "gitlab" => {
                    let mut gitlab = GitLabTarget {
                        project: None,
                        package: None,
                        api_url: None,
                    };
                    for (k, v) in self.fields(
                        value,
                        "`targets.gitlab`",
                        &["project", "package", "api_url"],
                    )? {
                        let text = Some(self.string(v)?);
                        match k {
                            "project" => gitlab.project = text,
                            "package" => gitlab.package = text,
                            "api_url" => gitlab.api_url = text,
                            _ => {}
                        }
                    }
                    targets.gitlab = Some(gitlab);
                }
                "local" => {
                    let mut repository = None;
                    for (k, v) in self.fields(value, "`targets.local`", &["repository"])? {
                        if k == "repository" {
                            repository = Some(self.path_value(v)?);
                        }
                    }
                    let repository = repository
                        .ok_or_else(|| self.error(value, "`targets.local` needs `repository`"))?;
                    targets.local = Some(LocalTarget { repository });
                }
                _ => {}
            }
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
    fn reads_every_field() {
        let config = parse(
            "provider:\n  name: aws\n  type: InfrastructureProvider\ncomponents:\n  command: [kubectl, kustomize, config/default]\nmetadata: meta/metadata.yaml\ntemplates:\n  - templates/cluster-template*.yaml\nnamespace: capa-system\nversion: v2.1.0\noutput: dist\ntargets:\n  github: {repo: o/r}\n  gitlab: {project: g/p, package: capa}\n  local: {repository: repo}\n",
        )
        .unwrap();
        assert_eq!(config.provider.name.as_deref(), Some("aws"));
        assert_eq!(
            config.provider.provider_type,
            Some(ProviderType::Infrastructure)
        );
        assert_eq!(
            config.components,
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
        assert_eq!(config.components.len(), 3);
        assert_eq!(
            config.components[1],
            ComponentsConfig {
                suffix: Some("supervisor".into()),
                source: ComponentsSource::Files(vec!["crd".into(), "rbac.yaml".into()]),
                limits: CommandLimits::default(),
            }
        );
        assert!(matches!(
            &config.components[2].source,
            ComponentsSource::Command(Command::Shell(line)) if line == "make manifests > /dev/stdout"
        ));
    }

    #[test]
    fn unknown_fields_are_errors_with_a_position() {
        assert_eq!(
            error("provider:\n  name: aws\n  typo: x\n"),
            "capkg.yaml:3:3: unknown field `typo` in `provider`; expected one of: name, type"
        );
        assert_eq!(
            error("output: out\ntemplate: x\n"),
            "capkg.yaml:2:1: unknown field `template` in the top level; expected one of: provider, components, metadata, templates, namespace, version, output, targets"
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
    fn command_limits_are_read_and_checked() {
        let config =
            parse("components:\n  command: [make]\n  timeout: 1h30m\n  output_limit: 64MiB\n")
                .unwrap();
        assert_eq!(
            config.components[0].limits,
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
            Some(std::time::Duration::from_millis(500))
        );
        assert_eq!(parse_size("1000"), Some(1000));
    }

    #[test]
    fn an_empty_file_is_an_empty_configuration() {
        let config = parse("# nothing yet\n").unwrap();
        assert!(config.components.is_empty());
        assert_eq!(config.root, PathBuf::from("/repo"));
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
