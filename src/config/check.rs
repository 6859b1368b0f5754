//! What capkg.yaml's schema cannot say, checked at the places [`Spanned`] keeps: a valid
//! namespace, one components source, provider names and types, image pins, waivers, forge
//! names, no two providers writing one file; and the checked values filled into [`Config`].

use super::schema::*;
use super::*;

/// Turns what serde read into a [`Config`], with the checks a schema cannot express, each error
/// at its place in the file.
pub(super) struct Checker<'a> {
    pub(super) path: &'a Path,
    pub(super) source: &'a Arc<Source>,
}

impl Checker<'_> {
    pub(super) fn error(&self, offset: usize, message: impl Into<String>) -> ConfigError {
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

    pub(super) fn fill(&self, raw: RawConfig, config: &mut Config) -> Result<(), ConfigError> {
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
        config.previous_at = raw.previous.as_ref().map(|p| self.at(p.start));
        config.previous = raw.previous.map(|p| p.value);
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
    pub(super) fn placeholders(&self, node: &Node, key: String, out: &mut Vec<Placeholder>) {
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
            let mut digest_from = None;
            if let Some(digest) = &raw.digest {
                if digest.value == DIGEST_FROM_REGISTRY {
                    if raw.new_tag.is_none() {
                        return Err(self.error(digest.start, format!("`digest: {DIGEST_FROM_REGISTRY}` needs `newTag`: the digest is the one the registry gives that tag when the release runs")));
                    }
                    digest_from = Some(DigestFrom::Registry);
                } else if !crate::image_ref::valid_digest(&digest.value) {
                    return Err(self.error(
                        digest.start,
                        format!(
                            "`digest: {}` is not a digest: write `sha256:` and 64 hex digits, `{DIGEST_FROM_REGISTRY}` (asked of the registry at release time), or use `digest_env: VARIABLE`",
                            digest.value
                        ),
                    ));
                }
            }
            if let Some(variable) = &raw.digest_env {
                if raw.digest.is_some() {
                    return Err(
                        self.error(variable.start, "give `digest` or `digest_env`, not both")
                    );
                }
                let name = &variable.value;
                let valid = name
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !valid {
                    return Err(self.error(variable.start, format!("`digest_env: {name}` is not an environment variable name (letters, digits and `_`)")));
                }
                digest_from = Some(DigestFrom::Env(name.clone()));
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
                digest: value(raw.digest).filter(|_| digest_from.is_none()),
                digest_from,
                pull_policy: value(raw.pull_policy),
                at: self.at(entry.start),
            };
            if pin.new_name.is_none()
                && pin.new_tag.is_none()
                && pin.digest.is_none()
                && pin.digest_from.is_none()
                && pin.pull_policy.is_none()
            {
                return Err(self.error(entry.start, format!("the `images` entry for `{}` changes nothing; give `newName`, `newTag`, `digest`, `digest_env` or `pullPolicy`", pin.name)));
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
            let upgrade_only = |key: &str, at: usize| {
                match &raw.rule {
                    Some(rule) if !rule.value.starts_with("upgrade/") => Err(self.error(
                        at,
                        format!("`{key}` narrows a waiver of an `upgrade/…` rule (the findings `capkg diff` and `capkg release` compare); `{}` is judged on one release: narrow it with `files` or `objects`", rule.value),
                    )),
                    _ => Ok(()),
                }
            };
            let field = match raw.field {
                Some(field) => {
                    upgrade_only("field", field.start)?;
                    let path = field.value.trim();
                    if path.is_empty() || path.contains(char::is_whitespace) {
                        return Err(self.error(field.start, format!("`{}` is not a field path: write it as the finding's JSON `field` names it (`spec.versions[v1beta1].schema.openAPIV3Schema.status`)", field.value)));
                    }
                    Some(path.to_string())
                }
                None => None,
            };
            let previous = match raw.previous {
                Some(previous) => {
                    upgrade_only("previous", previous.start)?;
                    let version = crate::version::Version::parse(previous.value.trim()).map_err(|e| {
                        self.error(previous.start, format!("`previous: {}` is not a release version ({e}): write the version the finding was judged against (`v0.2.0`)", previous.value))
                    })?;
                    Some(version)
                }
                None => None,
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
                field,
                previous,
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
