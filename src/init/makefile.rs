//! What a provider's Makefile does when it releases, read without running make.
//!
//! Cluster API providers release with `make release`: the recipe calls other targets with
//! variables on the command line (`$(MAKE) manifest-modification REGISTRY=$(PROD_REGISTRY)`),
//! rewrites the manager image (`set-manifest-image MANIFEST_IMG=...`), builds kustomizations
//! (`$(KUSTOMIZE) build core/config/default > $(RELEASE_DIR)/core-components.yaml`) and copies
//! `metadata.yaml` and templates into the release folder. This module follows those calls and
//! each target's prerequisites from the `release`, `release-manifests` and `release-templates`
//! targets (else from targets named after components files, `bootstrap-components.yaml:`),
//! expanding variables as make would where it can (`$(shell ...)` and other functions cannot be
//! known: a value that needs one is left out), and reports the builds, the copies (`cp`, `mv`),
//! the scripts run, the image names (`MANIFEST_IMG=`, `kustomize edit set image`) and the pull
//! policy the release writes. It is a reading aid for
//! `capkg init`, not a make implementation: conditionals are ignored and every assignment counts.

use std::collections::{BTreeMap, HashMap, HashSet};

/// The targets a release starts from.
const RELEASE_TARGETS: [&str; 3] = ["release", "release-manifests", "release-templates"];
/// How deep `$(MAKE) target` calls are followed.
const MAX_DEPTH: usize = 12;
/// How many targets (with their variables) one release visits at most.
const MAX_VISITS: usize = 500;
/// How deep variables nest in one expansion, how many are looked up, and the longest value:
/// past these a value is unknown (a Makefile of nested variables doubles at each level).
const MAX_NESTING: usize = 20;
const MAX_LOOKUPS: usize = 10_000;
const MAX_VALUE: usize = 64 * 1024;

/// What the release targets of a Makefile do.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ReleaseRecipe {
    /// `kustomize build DIR > OUTPUT`, in recipe order.
    pub builds: Vec<Build>,
    /// `cp SOURCE DESTINATION`, in recipe order.
    pub copies: Vec<Copy>,
    /// Image names (no tag) the release writes into manifests (`MANIFEST_IMG=...`), with the
    /// Makefile line that sets them.
    pub images: Vec<(String, usize)>,
    /// `PROD_REGISTRY`, when the Makefile sets one, with the line of its assignment.
    pub prod_registry: Option<(String, usize)>,
    /// The line where the release writes the image tag without its `v`
    /// (`MANIFEST_TAG=$(RELEASE_TAG:v%=%)`, `${VERSION//v}`).
    pub tag_without_v: Option<usize>,
    /// The `imagePullPolicy` the release sets (`PULL_POLICY=IfNotPresent`), with its line.
    pub pull_policy: Option<(String, usize)>,
    /// Scripts the release runs (`bash hack/generate-flavors.sh`), which may write files the
    /// release then copies.
    pub scripts: Vec<Script>,
    /// A recipe line writing a `metadata.yaml` at release time (`gen-metadata > out/metadata.yaml`):
    /// its target, its line and the file written.
    pub writes_metadata: Option<(String, usize, String)>,
    /// Files any rule of the Makefile writes, as a target named after the file or a redirect
    /// into it: `(file, target, line)`.
    pub writers: Vec<(String, String, usize)>,
    /// Variables of the environment that beat a `?=` default the release reads:
    /// `(name, value, evidence, Makefile line of the default)`.
    pub from_environment: Vec<(String, String, String, usize)>,
}

/// A script a release target runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Script {
    /// The make target whose recipe runs it.
    pub target: String,
    /// The command as written (`bash hack/generate-flavors.sh`).
    pub command: String,
    pub line: usize,
}

/// One `kustomize build`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Build {
    /// The kustomization folder, as the recipe names it (after `cd`), without `./`.
    pub dir: String,
    /// The file name the output is written to (`core-components.yaml`), when redirected.
    pub output: Option<String>,
    /// The folder of the output (`generated`), empty for the current folder.
    pub output_dir: String,
    /// The make target whose recipe builds it.
    pub target: String,
    /// The Makefile line of the build.
    pub line: usize,
}

/// One `cp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Copy {
    pub from: String,
    pub to: String,
    /// The Makefile line of the copy.
    pub line: usize,
}

struct Rule {
    targets: String,
    /// What follows the `:` (order-only ones included): targets make runs first.
    prerequisites: String,
    /// Each recipe line with its (first) line number in the Makefile.
    recipe: Vec<(usize, String)>,
}

struct Makefile {
    vars: HashMap<String, String>,
    /// The line of the assignment each variable's value comes from (its first, for `+=`).
    lines: HashMap<String, usize>,
    /// Variables whose value drops a leading `v` (read before `#` comments are cut: `${TAG#v}`).
    strips_v: HashMap<String, usize>,
    rules: Vec<Rule>,
    /// `?=` defaults the environment beats: the variable and the line of its default.
    beaten: Vec<(String, usize)>,
}

/// Reads the release targets of the Makefile text.
#[cfg(test)]
pub(super) fn release_recipe(text: &str) -> ReleaseRecipe {
    release_recipe_in(text, &[])
}

/// Reads the release targets of the Makefile text as make reads them in an environment (the
/// release workflow's `env:`, `(name, value, evidence)`): a variable there beats the Makefile's
/// `?=` default, not its `=` or `:=` (make without `-e`).
pub(super) fn release_recipe_in(
    text: &str,
    environment: &[(String, String, String)],
) -> ReleaseRecipe {
    let makefile = parse(text, environment);
    let from_environment = makefile
        .beaten
        .iter()
        .filter_map(|(name, line)| {
            let (_, value, evidence) = environment.iter().find(|(n, _, _)| n == name)?;
            Some((name.clone(), value.clone(), evidence.clone(), *line))
        })
        .collect();
    let writers = makefile.writers();
    let mut recipe = ReleaseRecipe {
        writers,
        from_environment,
        prod_registry: makefile
            .expand("$(PROD_REGISTRY)", &BTreeMap::new())
            .zip(makefile.lines.get("PROD_REGISTRY").copied()),
        ..ReleaseRecipe::default()
    };
    let mut seen = HashSet::new();
    for target in RELEASE_TARGETS {
        makefile.visit(target, &BTreeMap::new(), 0, &mut seen, &mut recipe);
    }
    // No components file from the release targets: the targets named after components files
    // (k0smotron's `bootstrap-components.yaml:`), which its release workflow runs one by one.
    let is_components = |file: &str| {
        matches!(
            crate::provider::FileRole::from_file_name(file),
            Some(crate::provider::FileRole::Components { .. })
        )
    };
    if !recipe
        .builds
        .iter()
        .any(|b| b.output.as_deref().is_some_and(is_components))
    {
        let components_targets: Vec<String> = makefile
            .rules
            .iter()
            .flat_map(|rule| rule.targets.split_whitespace())
            .filter(|target| is_components(target))
            .map(str::to_string)
            .collect();
        // The images those targets pin are the release's, not those of another install file.
        if !components_targets.is_empty() {
            recipe.images.clear();
        }
        for target in components_targets {
            makefile.visit(&target, &BTreeMap::new(), 0, &mut seen, &mut recipe);
        }
    }
    recipe
}

/// Kubernetes' `imagePullPolicy` values.
const PULL_POLICIES: [&str; 3] = ["Always", "IfNotPresent", "Never"];

/// Lines joined across trailing backslashes, each with the 1-based number of its first line.
fn logical_lines(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut first = 1;
    for (index, line) in text.lines().enumerate() {
        if current.is_empty() {
            first = index + 1;
        }
        match line.strip_suffix('\\') {
            Some(head) => {
                current.push_str(head);
                current.push(' ');
            }
            None => {
                current.push_str(line);
                lines.push((first, std::mem::take(&mut current)));
            }
        }
    }
    if !current.is_empty() {
        lines.push((first, current));
    }
    lines
}

/// `NAME op VALUE` of a variable assignment line.
fn assignment(line: &str) -> Option<(&str, &str, &str)> {
    let line = line
        .trim_start()
        .trim_start_matches("override ")
        .trim_start_matches("export ")
        .trim_start();
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .unwrap_or(line.len());
    let (name, rest) = line.split_at(end);
    let rest = rest.trim_start();
    for op in ["?=", "::=", ":=", "+=", "="] {
        if let Some(value) = rest.strip_prefix(op) {
            if name.is_empty() {
                return None;
            }
            return Some((name, op, value.trim()));
        }
    }
    None
}

fn parse(text: &str, environment: &[(String, String, String)]) -> Makefile {
    let mut makefile = Makefile {
        vars: environment
            .iter()
            .map(|(name, value, _)| (name.clone(), value.clone()))
            .collect(),
        lines: HashMap::new(),
        strips_v: HashMap::new(),
        rules: Vec::new(),
        beaten: Vec::new(),
    };
    let mut assigned: HashSet<String> = HashSet::new();
    for (number, line) in logical_lines(text) {
        if let Some(command) = line.strip_prefix('\t') {
            if let Some(rule) = makefile.rules.last_mut() {
                rule.recipe.push((number, command.trim().to_string()));
            }
            continue;
        }
        if let Some((name, _, value)) = assignment(&line)
            && strips_v(value)
        {
            makefile.strips_v.insert(name.to_string(), number);
        }
        let line = match line.find('#') {
            Some(at) => &line[..at],
            None => &line[..],
        };
        if line.trim().is_empty() {
            continue;
        }
        if let Some((name, op, value)) = assignment(line) {
            let keeps_first = op == "+=" || (op == "?=" && makefile.vars.contains_key(name));
            if !keeps_first || !makefile.lines.contains_key(name) {
                makefile.lines.insert(name.to_string(), number);
            }
            if op == "?=" {
                if !assigned.contains(name) && environment.iter().any(|(n, _, _)| n == name) {
                    makefile.beaten.push((name.to_string(), number));
                }
            } else if op != "+=" {
                makefile.beaten.retain(|(n, _)| n != name);
            }
            assigned.insert(name.to_string());
            match op {
                "?=" => {
                    makefile
                        .vars
                        .entry(name.to_string())
                        .or_insert_with(|| value.to_string());
                }
                "+=" => {
                    let entry = makefile.vars.entry(name.to_string()).or_default();
                    if !entry.is_empty() {
                        entry.push(' ');
                    }
                    entry.push_str(value);
                }
                _ => {
                    makefile.vars.insert(name.to_string(), value.to_string());
                }
            }
            continue;
        }
        if let Some((targets, rest)) = line.split_once(':')
            && !targets.trim().is_empty()
            && !line.starts_with(' ')
        {
            // `target: prerequisites ; recipe` and `target:: prerequisites`.
            let rest = rest.strip_prefix(':').unwrap_or(rest);
            let prerequisites = rest.split(';').next().unwrap_or_default().replace('|', " ");
            makefile.rules.push(Rule {
                targets: targets.trim().to_string(),
                prerequisites,
                recipe: Vec::new(),
            });
        }
    }
    makefile
}

impl Makefile {
    /// Files the rules write: a target that is a path (`config/default/image_patch.yaml:`),
    /// or the file a recipe line redirects into (`… > config/default/image_patch.yaml`), each
    /// with the target that writes it and the line.
    fn writers(&self) -> Vec<(String, String, usize)> {
        let none = BTreeMap::new();
        let mut found: Vec<(String, String, usize)> = Vec::new();
        for rule in &self.rules {
            let Some(targets) = self.expand(&rule.targets, &none) else {
                continue;
            };
            for target in targets.split_whitespace() {
                let line = rule.recipe.first().map_or(0, |(n, _)| *n);
                if target.contains('/') && target.contains('.') {
                    found.push((clean(target), target.to_string(), line));
                }
                for (number, command) in &rule.recipe {
                    let words = words(command);
                    for pair in words.windows(2) {
                        if matches!(pair[0].as_str(), ">" | ">>")
                            && let Some(file) = self.expand(&pair[1], &none)
                        {
                            found.push((clean(&file), target.to_string(), *number));
                        }
                    }
                }
            }
        }
        found
    }

    /// `text` with its variables expanded; `None` when a value cannot be known (an unset
    /// variable, a make function).
    fn expand(&self, text: &str, overrides: &BTreeMap<String, String>) -> Option<String> {
        let mut lookups = 0;
        self.expand_depth(text, overrides, 0, &mut lookups)
    }

    fn expand_depth(
        &self,
        text: &str,
        overrides: &BTreeMap<String, String>,
        depth: usize,
        lookups: &mut usize,
    ) -> Option<String> {
        if depth > MAX_NESTING {
            return None;
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let (close, open_len) = match after.chars().next() {
                Some('$') => {
                    out.push('$');
                    rest = &after[1..];
                    continue;
                }
                Some('(') => (')', 1),
                Some('{') => ('}', 1),
                // `$@`, `$*` and friends: automatic variables, unknown here.
                _ => return None,
            };
            let end = after.find(close)?;
            let name = &after[open_len..end];
            if name.contains([' ', ',', '$']) {
                return None;
            }
            *lookups += 1;
            if *lookups > MAX_LOOKUPS {
                return None;
            }
            let value = match overrides.get(name) {
                Some(value) => value.clone(),
                None => self.expand_depth(self.vars.get(name)?, overrides, depth + 1, lookups)?,
            };
            out.push_str(&value);
            if out.len() > MAX_VALUE {
                return None;
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        (out.len() <= MAX_VALUE).then_some(out)
    }

    fn visit(
        &self,
        target: &str,
        overrides: &BTreeMap<String, String>,
        depth: usize,
        seen: &mut HashSet<String>,
        recipe: &mut ReleaseRecipe,
    ) {
        if depth > MAX_DEPTH
            || seen.len() >= MAX_VISITS
            || !seen.insert(format!("{target} {overrides:?}"))
        {
            return;
        }
        for rule in &self.rules {
            let matches = self
                .expand(&rule.targets, overrides)
                .is_some_and(|targets| targets.split_whitespace().any(|t| t == target));
            if !matches {
                continue;
            }
            // Prerequisites run first (`release: release-manifests release-templates`).
            for word in rule.prerequisites.split_whitespace() {
                // Each on its own: a tool path that cannot be known hides no other target.
                if let Some(prerequisite) = self.expand(word, overrides) {
                    self.visit(&prerequisite, overrides, depth + 1, seen, recipe);
                }
            }
            for (number, line) in &rule.recipe {
                self.read_line(target, *number, line, overrides, depth, seen, recipe);
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn read_line(
        &self,
        target: &str,
        number: usize,
        line: &str,
        overrides: &BTreeMap<String, String>,
        depth: usize,
        seen: &mut HashSet<String>,
        recipe: &mut ReleaseRecipe,
    ) {
        let line = line.trim_start_matches(['@', '-', '+']);
        let mut cd: Option<String> = None;
        for command in line.split(';').flat_map(|part| part.split("&&")) {
            let words = words(command);
            let Some(first) = words.first() else {
                continue;
            };
            // `… > $(RELEASE_DIR)/metadata.yaml`: written at release time, not copied.
            let redirected = words.windows(2).find_map(|w| {
                let path = match w[0].as_str() {
                    ">" | ">>" => w[1].as_str(),
                    word => word.strip_prefix('>').filter(|p| !p.is_empty())?,
                };
                path.ends_with("metadata.yaml").then_some(path)
            });
            if let Some(path) = redirected
                && recipe.writes_metadata.is_none()
            {
                let written = self
                    .expand(path, overrides)
                    .unwrap_or_else(|| path.to_string());
                recipe.writes_metadata = Some((target.to_string(), number, clean(&written)));
            }
            if first == "cd" {
                cd = words.get(1).and_then(|dir| self.expand(dir, overrides));
                continue;
            }
            // `kustomize edit set image [NAME=]IMAGE[:TAG]`: the image the release pins.
            if let Some(at) = words.windows(3).position(|w| w == ["edit", "set", "image"])
                && at > 0
                && words[at - 1].to_ascii_lowercase().contains("kustomize")
            {
                for argument in &words[at + 3..] {
                    let value = argument.split_once('=').map_or(&argument[..], |(_, v)| v);
                    if let Some(value) = self.expand(value, overrides) {
                        let image = strip_tag(&value);
                        if image.contains('/') && !recipe.images.iter().any(|(i, _)| *i == image) {
                            recipe.images.push((image, number));
                        }
                    }
                }
                continue;
            }
            if let Some(at) = words.iter().position(|w| is_make(w)) {
                self.call(number, &words, at, overrides, depth, seen, recipe);
            } else if let Some(at) = words.iter().position(|w| w == "build")
                && at > 0
                && words[at - 1].to_ascii_lowercase().contains("kustomize")
            {
                if let Some(mut build) =
                    self.build(number, &words[at + 1..], cd.as_deref(), overrides)
                {
                    build.target = target.to_string();
                    recipe.builds.push(build);
                }
            } else if let Some(script) = script(&words) {
                recipe.scripts.push(Script {
                    target: target.to_string(),
                    command: script,
                    line: number,
                });
            } else if first == "cp" || first == "mv" {
                let paths: Vec<&String> =
                    words[1..].iter().filter(|w| !w.starts_with('-')).collect();
                if let [from, to] = paths[..]
                    && let (Some(from), Some(to)) =
                        (self.expand(from, overrides), self.expand(to, overrides))
                {
                    recipe.copies.push(Copy {
                        from: clean(&from),
                        to: clean(&to),
                        line: number,
                    });
                }
            }
        }
    }

    /// `[VAR=value ...] $(MAKE) [VAR=value | target ...]`: follows the targets with the
    /// variables set, and notes the image a `MANIFEST_IMG`-style variable names.
    #[allow(clippy::too_many_arguments)]
    fn call(
        &self,
        number: usize,
        words: &[String],
        make_at: usize,
        overrides: &BTreeMap<String, String>,
        depth: usize,
        seen: &mut HashSet<String>,
        recipe: &mut ReleaseRecipe,
    ) {
        let mut callee = overrides.clone();
        let mut targets = Vec::new();
        for (index, word) in words.iter().enumerate() {
            if index == make_at || word.starts_with('-') {
                continue;
            }
            match word.split_once('=') {
                Some((name, value))
                    if !name.is_empty()
                        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                {
                    if let Some(value) = self.expand(value, overrides) {
                        callee.insert(name.to_string(), value);
                    }
                }
                _ if index > make_at => targets.push(word.clone()),
                _ => {}
            }
        }
        if let Some(policy) = callee.get("PULL_POLICY")
            && overrides.get("PULL_POLICY") != Some(policy)
            && PULL_POLICIES.contains(&policy.as_str())
            && recipe.pull_policy.is_none()
        {
            recipe.pull_policy = Some((policy.clone(), number));
        }
        for (name, value) in &callee {
            // `OLD_IMG`/`*_ORIGINAL_IMG` name the development image the release replaces.
            let image_variable =
                name.ends_with("IMG") && !name.starts_with("OLD") && !name.contains("ORIGINAL");
            if image_variable && overrides.get(name) != Some(value) {
                let image = strip_tag(value);
                if image.contains('/') && !recipe.images.iter().any(|(i, _)| *i == image) {
                    recipe.images.push((image, number));
                }
            }
        }
        // `MANIFEST_TAG=$(RELEASE_TAG:v%=%)` beside an image: the release tags without `v`.
        let sets_image = words.iter().any(|w| {
            w.split_once('=')
                .is_some_and(|(name, _)| name.ends_with("IMG"))
        });
        if sets_image && recipe.tag_without_v.is_none() {
            let tag_value = words.iter().find_map(|w| {
                w.split_once('=')
                    .filter(|(name, _)| name.ends_with("TAG"))
                    .map(|(_, value)| value)
            });
            if let Some(value) = tag_value
                && let Some(at) = self.drops_v(value, 0)
            {
                recipe.tag_without_v = Some(at.unwrap_or(number));
            }
        }
        for target in targets {
            if let Some(target) = self.expand(&target, overrides) {
                self.visit(&target, &callee, depth + 1, seen, recipe);
            }
        }
    }

    fn build(
        &self,
        number: usize,
        args: &[String],
        cd: Option<&str>,
        overrides: &BTreeMap<String, String>,
    ) -> Option<Build> {
        let mut dir = None;
        let mut output = None;
        let mut index = 0;
        while index < args.len() {
            let word = &args[index];
            if word == ">" || word == ">>" {
                output = args.get(index + 1).cloned();
                index += 2;
                continue;
            }
            if let Some(file) = word.strip_prefix(">>").or_else(|| word.strip_prefix('>')) {
                output = Some(file.to_string());
            } else if word.starts_with("--") {
                // `--load-restrictor LoadRestrictionsNone`: a flag and its value.
                if !word.contains('=') {
                    index += 1;
                }
            } else if !word.starts_with('-') && dir.is_none() {
                dir = Some(word.clone());
            }
            index += 1;
        }
        // A folder of variables that cannot be known (`$(IMAGE_PATCH_DIR)/x`) is kept as
        // written, for notes; a word cut inside a function call (`$(shell`) is not a folder.
        let dir = dir?;
        let balanced = dir.matches('(').count() == dir.matches(')').count()
            && dir.matches('{').count() == dir.matches('}').count();
        let dir = match self.expand(&dir, overrides) {
            Some(dir) => dir,
            None if balanced => dir,
            None => return None,
        };
        let dir = match cd {
            Some(cd) => format!("{cd}/{dir}"),
            None => dir,
        };
        let output = output
            .and_then(|o| self.expand(&o, overrides))
            .map(|o| clean(&o));
        let output_dir = output
            .as_deref()
            .and_then(|o| o.rsplit_once('/'))
            .map(|(dir, _)| dir.to_string())
            .unwrap_or_default();
        let output = output.and_then(|o| o.rsplit('/').next().map(str::to_string));
        Some(Build {
            dir: clean(&dir),
            output,
            output_dir,
            target: String::new(),
            line: number,
        })
    }
}

impl Makefile {
    /// Whether `text` drops a leading `v`, itself or through the variables it names (a few
    /// levels): `Some(None)` when `text` does, `Some(Some(line))` for a variable's assignment.
    fn drops_v(&self, text: &str, depth: usize) -> Option<Option<usize>> {
        if strips_v(text) {
            return Some(None);
        }
        if depth > 4 {
            return None;
        }
        let mut rest = text;
        while let Some(at) = rest.find("$(").or_else(|| rest.find("${")) {
            let after = &rest[at + 2..];
            let end = after.find([')', '}'])?;
            let name = &after[..end];
            if let Some(line) = self.strips_v.get(name) {
                return Some(Some(*line));
            }
            if let Some(value) = self.vars.get(name)
                && let Some(found) = self.drops_v(value, depth + 1)
            {
                return Some(found.or(self.lines.get(name).copied()));
            }
            rest = &after[end..];
        }
        None
    }
}

/// The ways a Makefile or a shell step writes a version without its `v`: make's
/// `$(VERSION:v%=%)`, `$(patsubst v%,%,…)`, `$(subst v,,…)`, the shell's `${VERSION#v}`,
/// `${VERSION//v}`, `${VERSION/v}`, and `sed 's/^v//'`.
pub(super) fn strips_v(text: &str) -> bool {
    [
        ":v%=%",
        "patsubst v%,%",
        "subst v,,",
        "#v}",
        "//v}",
        "/v}",
        "s/^v//",
    ]
    .iter()
    .any(|pattern| text.contains(pattern))
}

/// A script run by a recipe: `bash X.sh`, `sh X.sh`, `./hack/X.sh`, `hack/X.sh`, as written.
fn script(words: &[String]) -> Option<String> {
    let first = words.first()?;
    let runs_script = match first.as_str() {
        "bash" | "sh" => words.get(1).is_some_and(|w| w.ends_with(".sh")),
        other => other.ends_with(".sh"),
    };
    runs_script.then(|| words.join(" "))
}

fn is_make(word: &str) -> bool {
    matches!(word, "$(MAKE)" | "${MAKE}" | "make")
}

/// Shell words, quotes removed (no escapes: recipes that need them are not release recipes).
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => current.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                in_word = true;
            }
            None if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut current));
                    in_word = false;
                }
            }
            None => {
                current.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(current);
    }
    words
}

/// A path without `./` segments or a trailing `/`.
fn clean(path: &str) -> String {
    let parts: Vec<&str> = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let mut out = parts.join("/");
    if path.starts_with('/') {
        out.insert(0, '/');
    }
    out
}

/// `registry/name` of `registry/name:tag` (a `:` after the last `/` is a tag, before it a port).
pub(super) fn strip_tag(image: &str) -> String {
    let image = image.split('@').next().unwrap_or(image);
    let slash = image.rfind('/').map_or(0, |at| at + 1);
    match image[slash..].find(':') {
        Some(colon) => image[..slash + colon].to_string(),
        None => image.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_beats_a_default_only() {
        let text = "REGISTRY ?= localhost:5000\nTAG := dev\nIMG ?= $(REGISTRY)/manager\nrelease:\n\t$(MAKE) set-manifest-image MANIFEST_IMG=$(IMG) MANIFEST_TAG=$(TAG)\n";
        let environment = [
            (
                "REGISTRY".to_string(),
                "ghcr.io/acme".to_string(),
                "w.yaml:3".to_string(),
            ),
            ("TAG".to_string(), "v9".to_string(), "w.yaml:4".to_string()),
        ];
        let recipe = release_recipe_in(text, &environment);
        assert_eq!(recipe.images, [("ghcr.io/acme/manager".to_string(), 5)]);
        assert_eq!(
            recipe.from_environment,
            [(
                "REGISTRY".to_string(),
                "ghcr.io/acme".to_string(),
                "w.yaml:3".to_string(),
                1
            )]
        );
        assert_eq!(
            release_recipe(text).images,
            [("localhost:5000/manager".to_string(), 5)]
        );
    }

    #[test]
    fn follows_make_calls_with_their_variables() {
        let text = "PROD_REGISTRY ?= registry.k8s.io/capi\nSTAGING ?= gcr.io/staging\nREGISTRY ?= $(STAGING)\nIMAGE_NAME ?= manager\nRELEASE_DIR := out\nDEV_DIR := test/dev\n\
release:\n\t$(MAKE) set-image REGISTRY=$(PROD_REGISTRY)\n\t$(MAKE) release-manifests\n\
set-image:\n\t$(MAKE) set-manifest-image \\\n\t\tMANIFEST_IMG=$(REGISTRY)/$(IMAGE_NAME) MANIFEST_TAG=$(RELEASE_TAG)\n\
release-manifests: $(RELEASE_DIR)\n\t$(KUSTOMIZE) build core/config/default > $(RELEASE_DIR)/core-components.yaml\n\tcd $(DEV_DIR); $(KUSTOMIZE) build config/default > ../../$(RELEASE_DIR)/infrastructure-components-development.yaml\n\tcp metadata.yaml $(RELEASE_DIR)/metadata.yaml\n\t$(KUSTOMIZE) build $(shell pwd)/x > $(RELEASE_DIR)/x.yaml\n";
        let recipe = release_recipe(text);
        assert_eq!(
            recipe.builds,
            [
                Build {
                    dir: "core/config/default".into(),
                    output: Some("core-components.yaml".into()),
                    output_dir: "out".into(),
                    target: "release-manifests".into(),
                    line: 14
                },
                Build {
                    dir: "test/dev/config/default".into(),
                    output: Some("infrastructure-components-development.yaml".into()),
                    output_dir: "../../out".into(),
                    target: "release-manifests".into(),
                    line: 15
                }
            ]
        );
        assert_eq!(
            recipe.images,
            [("registry.k8s.io/capi/manager".to_string(), 11)]
        );
        assert_eq!(
            recipe.copies,
            [Copy {
                from: "metadata.yaml".into(),
                to: "out/metadata.yaml".into(),
                line: 16
            }]
        );
        assert_eq!(
            recipe.prod_registry,
            Some(("registry.k8s.io/capi".to_string(), 1))
        );
        assert_eq!(recipe.tag_without_v, None);
    }

    #[test]
    fn prerequisites_moves_scripts_and_pull_policy_are_read() {
        // Linode: the release is a list of prerequisites; templates are moved after a script.
        let text = "RELEASE_DIR ?= infrastructure-x\nrelease: release-manifests gen release-templates\n\
release-manifests:\n\tkustomize build config/default > $(RELEASE_DIR)/infrastructure-components.yaml\n\
gen:\n\tbash hack/generate-flavors.sh\n\
release-templates:\n\tmv templates/cluster-template* $(RELEASE_DIR)/\n\
set:\n\t$(MAKE) set-manifest-pull-policy PULL_POLICY=IfNotPresent\n";
        let recipe = release_recipe(text);
        assert_eq!(recipe.builds.len(), 1);
        assert_eq!(
            recipe.scripts,
            [Script {
                target: "gen".into(),
                command: "bash hack/generate-flavors.sh".into(),
                line: 6
            }]
        );
        assert_eq!(
            recipe.copies,
            [Copy {
                from: "templates/cluster-template*".into(),
                to: "infrastructure-x".into(),
                line: 8
            }]
        );
        // `set` is not part of the release: its pull policy is not the release's.
        assert_eq!(recipe.pull_policy, None);
        let recipe =
            release_recipe(&text.replace("release-templates\n", "release-templates set\n"));
        assert_eq!(recipe.pull_policy, Some(("IfNotPresent".to_string(), 10)));
    }

    #[test]
    fn components_file_targets_are_the_release_without_one() {
        // k0smotron: no components file from `release`; one target per components file,
        // each pinning the image with `kustomize edit set image`.
        let text = "IMG ?= quay.io/k0sproject/k0smotron:latest\n\
release:\n\tcd config/all && $(KUSTOMIZE) edit set image controller=other.io/x/k0smotron\n\t$(KUSTOMIZE) build config/all > install.yaml\n\
bootstrap-components.yaml: $(CONTROLLER_GEN) kustomize\n\tcd config/manager && $(KUSTOMIZE) edit set image controller=${IMG}\n\t$(KUSTOMIZE) build config/clusterapi/bootstrap/ > bootstrap-components.yaml\n";
        let recipe = release_recipe(text);
        let outputs: Vec<_> = recipe.builds.iter().map(|b| b.output.as_deref()).collect();
        assert_eq!(
            outputs,
            [Some("install.yaml"), Some("bootstrap-components.yaml")]
        );
        assert_eq!(recipe.builds[1].dir, "config/clusterapi/bootstrap");
        assert_eq!(
            recipe.images,
            [("quay.io/k0sproject/k0smotron".to_string(), 6)]
        );
    }

    #[test]
    fn a_release_tagging_without_v_is_found_with_its_line() {
        let direct = "release:\n\t$(MAKE) set-manifest-image MANIFEST_IMG=r.io/x/manager MANIFEST_TAG=$(RELEASE_TAG:v%=%)\n";
        assert_eq!(release_recipe(direct).tag_without_v, Some(2));
        let through_a_variable = "REGISTRY ?= r.io/x\nVERSION_NO_V ?= $(shell echo $${RELEASE_TAG#v}) # no v\nrelease:\n\t$(MAKE) set-manifest-image MANIFEST_IMG=$(REGISTRY)/manager MANIFEST_TAG=$(VERSION_NO_V)\n";
        let recipe = release_recipe(through_a_variable);
        assert_eq!(recipe.tag_without_v, Some(2));
        assert_eq!(recipe.images, [("r.io/x/manager".to_string(), 4)]);
        let with_v = "release:\n\t$(MAKE) set-manifest-image MANIFEST_IMG=r.io/x/manager MANIFEST_TAG=$(RELEASE_TAG)\n";
        assert_eq!(release_recipe(with_v).tag_without_v, None);
    }

    #[test]
    fn image_names_lose_their_tag_but_keep_a_port() {
        assert_eq!(strip_tag("localhost:5000/a/b:dev"), "localhost:5000/a/b");
        assert_eq!(strip_tag("a/b@sha256:00"), "a/b");
        assert_eq!(strip_tag("controller"), "controller");
    }

    #[test]
    fn nested_variables_and_calls_are_bounded() {
        // Each variable four times the next, within make's nesting: 4^20 characters if expanded
        // to the end.
        let mut text = String::new();
        for level in 0..20 {
            text.push_str(&format!(
                "V{level} = $(V{n})$(V{n})$(V{n})$(V{n})\n",
                n = level + 1
            ));
        }
        text.push_str("V20 = x\nrelease:\n\tcp $(V0) out/metadata.yaml\n\t$(MAKE) a X=$(V5)\n");
        // Targets calling each other with ever new variables.
        for level in 0..10 {
            text.push_str(&format!(
                "{name}:\n\t$(MAKE) t{level} Y=1$(Y)\n\t$(MAKE) t{level} Y=2$(Y)\n",
                name = if level == 0 {
                    "a".to_string()
                } else {
                    format!("t{}", level - 1)
                },
            ));
        }
        text.push_str("t9:\n\tkustomize build config/default > out/core-components.yaml\n");
        let recipe = release_recipe(&text);
        assert!(recipe.copies.is_empty(), "{:?}", recipe.copies);
        assert!(!recipe.builds.is_empty());
    }
}
