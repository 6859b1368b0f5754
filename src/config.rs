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
    /// `images:`: release-pinned images, applied to the components (kustomize's `images`).
    pub images: Vec<ImagePin>,
    /// `lint: allow:`: findings the maintainer accepts.
    pub waivers: Vec<crate::rules::Waiver>,
}

/// One `images:` entry, with kustomize's field names and meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImagePin {
    /// The image as written in the manifests, without tag or digest.
    pub name: String,
    pub new_name: Option<String>,
    /// May hold `{version}` (the release version as tagged) or `{semver}` (without its `v`).
    pub new_tag: Option<String>,
    pub digest: Option<String>,
    /// `capkg.yaml:line:column` of the entry, for messages.
    pub at: String,
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
                "images",
                "lint",
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
                "images" => config.images = reader.images(value)?,
                "lint" => config.waivers = reader.lint(value, &source)?,
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
            &["file", "files", "command", "suffix"],
        )?;
        let mut suffix = None;
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
        Ok(ComponentsConfig { suffix, source })
    }

    fn at(&self, node: &Node) -> String {
        format!(
            "{}:{}",
            self.path.display(),
            self.source.position(node.span.start)
        )
    }

    /// `images:`: a list of kustomize-style entries.
    fn images(&self, node: &Node) -> Result<Vec<ImagePin>, ConfigError> {
        let Value::Sequence(items) = &node.value else {
            return Err(self.error(
                node,
                "`images` must be a list of `{name, newName, newTag, digest}` entries",
            ));
        };
        let mut out: Vec<ImagePin> = Vec::new();
        for item in items {
            let mut pin = ImagePin {
                name: String::new(),
                new_name: None,
                new_tag: None,
                digest: None,
                at: self.at(item),
            };
            let mut name_node = None;
            for (key, value) in self.fields(
                item,
                "an `images` entry",
                &["name", "newName", "newTag", "digest"],
            )? {
                let text = self.string(value)?;
                match key {
                    "name" => {
                        name_node = Some(value);
                        pin.name = text;
                    }
                    "newName" => {
                        let parts = crate::image_ref::Parts::parse(&text);
                        if !matches!(parts, Ok(p) if p.tag.is_none() && p.digest.is_none()) {
                            return Err(self.error(value, format!("`newName: {text}` must be an image name without tag or digest (give those as `newTag` and `digest`)")));
                        }
                        pin.new_name = Some(text);
                    }
                    "newTag" => {
                        let example = text
                            .replace("{version}", "v1.2.3")
                            .replace("{semver}", "1.2.3");
                        if example.contains(['{', '}']) {
                            return Err(self.error(value, format!("`newTag: {text}`: the placeholders are `{{version}}` (v1.2.3) and `{{semver}}` (1.2.3)")));
                        }
                        if crate::image_ref::Parts::parse(&format!("x:{example}"))
                            .ok()
                            .and_then(|p| p.tag)
                            != Some(example.as_str())
                        {
                            return Err(self.error(value, format!("`newTag: {text}` is not a valid image tag (letters, digits, `_`, `.`, `-`; at most 128)")));
                        }
                        pin.new_tag = Some(text);
                    }
                    "digest" => {
                        if crate::image_ref::Parts::parse(&format!("x@{text}")).is_err() {
                            return Err(self.error(
                                value,
                                format!(
                                    "`digest: {text}` is not a digest (`sha256:` and 64 hex digits)"
                                ),
                            ));
                        }
                        pin.digest = Some(text);
                    }
                    _ => {}
                }
            }
            let Some(name_node) = name_node else {
                return Err(self.error(
                    item,
                    "an `images` entry needs `name`: the image as written in the manifests",
                ));
            };
            if crate::image_ref::Parts::parse(&pin.name)
                .map_or(true, |p| p.tag.is_some() || p.digest.is_some())
            {
                return Err(self.error(name_node, format!("`name: {}` must be the image without tag or digest, as kustomize matches it", pin.name)));
            }
            if pin.new_name.is_none() && pin.new_tag.is_none() && pin.digest.is_none() {
                return Err(self.error(item, format!("the `images` entry for `{}` changes nothing; give `newName`, `newTag` or `digest`", pin.name)));
            }
            if out.iter().any(|p| p.name == pin.name) {
                return Err(self.error(
                    name_node,
                    format!("two `images` entries for `{}`", pin.name),
                ));
            }
            out.push(pin);
        }
        Ok(out)
    }

    /// `lint:`: only `allow:` so far.
    fn lint(
        &self,
        node: &Node,
        source: &Arc<Source>,
    ) -> Result<Vec<crate::rules::Waiver>, ConfigError> {
        let mut waivers = Vec::new();
        for (key, value) in self.fields(node, "`lint`", &["allow"])? {
            if key != "allow" {
                continue;
            }
            let Value::Sequence(items) = &value.value else {
                return Err(self.error(
                    value,
                    "`lint.allow` must be a list of `{rule, files, reason}` entries",
                ));
            };
            for item in items {
                let mut rule = None;
                let mut files = Vec::new();
                let mut reason = None;
                for (k, v) in
                    self.fields(item, "a `lint.allow` entry", &["rule", "files", "reason"])?
                {
                    match k {
                        "rule" => {
                            let text = self.string(v)?;
                            if crate::rules::find(&text).is_none() {
                                return Err(
                                    self.error(v, crate::rules::waivers::unknown_rule(&text))
                                );
                            }
                            rule = Some(text);
                        }
                        "files" => {
                            files = self.strings(v)?;
                            for glob in &files {
                                crate::rules::waivers::check_glob(glob)
                                    .map_err(|e| self.error(v, e))?;
                            }
                        }
                        "reason" => {
                            let text = self.string(v)?;
                            if text.trim().is_empty() {
                                return Err(self.error(
                                    v,
                                    "a waiver's `reason` must say why the finding is accepted",
                                ));
                            }
                            reason = Some(text);
                        }
                        _ => {}
                    }
                }
                let rule = rule.ok_or_else(|| {
                    self.error(
                        item,
                        "a `lint.allow` entry needs `rule`: the rule id to accept",
                    )
                })?;
                let reason = reason.ok_or_else(|| {
                    self.error(item, format!("the waiver of `{rule}` needs a `reason`: say why the finding is accepted, for whoever reads the release"))
                })?;
                waivers.push(crate::rules::Waiver {
                    rule,
                    files,
                    reason,
                    origin: crate::rules::waivers::Origin::Config {
                        file: source.clone(),
                        span: Span::new(item.span.start, item.span.start),
                    },
                });
            }
        }
        Ok(waivers)
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
                ]))
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
                source: ComponentsSource::Files(vec!["crd".into(), "rbac.yaml".into()])
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
            "capkg.yaml:2:1: unknown field `template` in the top level; expected one of: provider, components, metadata, templates, namespace, version, output, targets, images, lint"
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
