//! The lint rules and the engine that runs them.
//!
//! A rule is plain data (id, severity, explanation, help, the contract text it enforces) plus a
//! check function; [`all`] lists every rule in a fixed order, which `capkg rules`, the docs and the
//! engine all use. Rules live one file per id group (`components/…` in `components.rs`). A rule
//! never fails: it reads a [`Context`] (one release folder, the provider, the version being
//! released) and reports [`Diagnostic`]s, which are values, not errors.

mod build;
mod clusterclass;
mod components;
mod contract;

mod files;
mod metadata;
mod templates;
pub(crate) mod upgrade;
mod variables;
pub mod waivers;
mod webhook;
mod yaml;

use std::cell::OnceCell;
use std::sync::Arc;

pub use crate::diagnostic::{Diagnostic, Label, Severity, Summary};
pub use build::{
    PinnedImage, SourceVar, dev_image_values, kustomize_vars_in, rewritten_kustomize_vars,
};
pub use components::{LabelIdentity, label_identity, source_identity};
pub use metadata::{SUPPORTED_CONTRACTS, Series, TAG_SERIES_ID, release_series};
pub(crate) use templates::class_reference;
pub use waivers::{Waiver, Waivers};

use crate::files::{Release, ReleaseFile};
use crate::k8s::Object;
use crate::provider::{PROVIDER_LABEL, Provider, ProviderType};
use crate::subst::{self, Inventory};
use crate::version::Version;
use crate::yaml::{Node, Span};

/// Where a rule comes from.
#[derive(Debug, Clone, Copy)]
pub struct Reference {
    /// The document and section (`clusterctl provider contract, "Components YAML"`).
    pub title: &'static str,
    pub url: &'static str,
}

/// The clusterctl provider contract in the Cluster API book.
pub const CLUSTERCTL_CONTRACT: &str =
    "https://cluster-api.sigs.k8s.io/developer/providers/contracts/clusterctl";

/// A lint rule.
pub struct Rule {
    /// Stable id, `group/kebab-name`; never changes once released.
    pub id: &'static str,
    pub severity: Severity,
    /// One line: what the rule checks.
    pub summary: &'static str,
    /// A paragraph: why it matters, what clusterctl or Cluster API does with such a file.
    pub explanation: &'static str,
    /// What to do when it fires.
    pub help: &'static str,
    pub reference: Reference,
    pub check: fn(&Context<'_>, &mut Findings<'_>),
}

impl std::fmt::Debug for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rule").field("id", &self.id).finish()
    }
}

/// Every rule, in the order `capkg rules` lists them.
pub fn all() -> impl Iterator<Item = &'static Rule> {
    [
        yaml::RULES,
        files::RULES,
        components::RULES,
        webhook::RULES,
        build::RULES,
        metadata::RULES,
        templates::RULES,
        clusterclass::RULES,
        variables::RULES,
        contract::RULES,
        upgrade::RULES,
        waivers::RULES,
    ]
    .into_iter()
    .flatten()
    .copied()
}

/// The rule with this id.
pub fn find(id: &str) -> Option<&'static Rule> {
    all().find(|rule| rule.id == id)
}

/// What a lint run was asked to assume.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `--type`: overrides what file names say.
    pub provider_type: Option<ProviderType>,
    /// `--provider`: overrides what labels say.
    pub provider_name: Option<String>,
    /// `--version`: the version being released.
    pub version: Option<Version>,
}

/// What a rule sees: one release folder and what is known about it.
pub struct Context<'a> {
    pub release: &'a Release,
    pub provider: Provider,
    /// What `--type` and `--provider` (or the configuration) said, before file names and labels.
    pub given: Provider,
    pub version: Option<&'a Version>,
    /// Each file's variable inventory, taken once when a rule first asks: parsing a components
    /// file's `${…}` was most of lint's time when every `variables/…` rule did it again.
    inventories: Vec<OnceCell<Result<Inventory, subst::Error>>>,
}

impl<'a> Context<'a> {
    pub fn new(release: &'a Release, options: &'a Options) -> Self {
        let provider_type = options
            .provider_type
            .or_else(|| release.provider_type_from_names());
        let name = options.provider_name.clone().or_else(|| {
            let roots = release.components().flat_map(|file| file.yaml.roots());
            crate::provider::name_from_objects(provider_type, roots)
        });
        Self {
            release,
            provider: Provider {
                provider_type,
                name,
            },
            given: Provider {
                provider_type: options.provider_type,
                name: options.provider_name.clone(),
            },
            version: options.version.as_ref(),
            inventories: release.files.iter().map(|_| OnceCell::new()).collect(),
        }
    }

    /// clusterctl's variable inventory of one of the release's files ([`subst::inventory`]),
    /// or why its `${…}` do not parse; `None` for a file that is not the release's.
    pub fn inventory(&self, file: &ReleaseFile) -> Option<Result<&Inventory, &subst::Error>> {
        let index = self
            .release
            .files
            .iter()
            .position(|f| std::ptr::eq(f, file))?;
        let cell = self.inventories.get(index)?;
        Some(
            cell.get_or_init(|| subst::inventory(file.source().text().as_bytes()))
                .as_ref(),
        )
    }

    /// Every object of every file with its file, in file then document order.
    pub fn objects_in<'f>(
        files: impl Iterator<Item = &'f ReleaseFile>,
    ) -> impl Iterator<Item = (&'f ReleaseFile, Object<'f>)> {
        files.flat_map(|file| {
            file.yaml
                .roots()
                .filter_map(Object::new)
                .map(move |object| (file, object))
        })
    }
}

/// The `cluster.x-k8s.io/provider` label the components carry most often, whatever provider it
/// names (placeholders left out), with the number of objects carrying it and of labelled objects.
pub fn most_common_label(release: &Release) -> Option<(String, usize, usize)> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut labelled = 0;
    for (_, object) in Context::objects_in(release.components()) {
        let Some(label) = object.label(PROVIDER_LABEL).and_then(Node::as_str) else {
            continue;
        };
        if label.contains("${") {
            continue;
        }
        labelled += 1;
        match counts.iter_mut().find(|(l, _)| *l == label) {
            Some((_, count)) => *count += 1,
            None => counts.push((label, 1)),
        }
    }
    let best = counts.iter().map(|(_, c)| *c).max()?;
    crate::provider::most_common(counts).map(|label| (label.to_string(), best, labelled))
}

/// Collects one rule's findings.
pub struct Findings<'r> {
    rule: &'static Rule,
    out: &'r mut Vec<Diagnostic>,
}

impl<'r> Findings<'r> {
    pub fn new(rule: &'static Rule, out: &'r mut Vec<Diagnostic>) -> Self {
        Self { rule, out }
    }

    fn push(
        &mut self,
        file: Option<Arc<crate::yaml::Source>>,
        span: Option<Span>,
        message: String,
    ) -> &mut Diagnostic {
        self.out.push(Diagnostic::new(
            self.rule.id,
            self.rule.severity,
            file,
            span,
            message,
            self.rule.help,
        ));
        let last = self.out.len() - 1;
        &mut self.out[last]
    }

    /// A finding at a place in a file.
    pub fn at(
        &mut self,
        file: &ReleaseFile,
        span: Span,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        self.push(Some(file.source().clone()), Some(span), message.into())
    }

    /// A finding at a node.
    pub fn at_node(
        &mut self,
        file: &ReleaseFile,
        node: &Node,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        self.at(file, head(node.span()), message)
    }

    /// A finding about a file as a whole.
    pub fn on_file(&mut self, file: &ReleaseFile, message: impl Into<String>) -> &mut Diagnostic {
        self.push(Some(file.source().clone()), None, message.into())
    }

    /// A finding about a file that is not there (named by `path`).
    pub fn on_path(
        &mut self,
        path: &std::path::Path,
        message: impl Into<String>,
    ) -> &mut Diagnostic {
        let source = Arc::new(crate::yaml::Source::new(path.display().to_string(), ""));
        self.push(Some(source), None, message.into())
    }
}

/// True when a scalar is, or was written as, a `${…}` placeholder. Templates that are YAML only
/// after substitution are loaded with their placeholders replaced by defaults, so the source
/// text decides.
pub fn is_variable(file: &ReleaseFile, node: &Node) -> bool {
    node.scalar_text().is_some_and(|t| t.contains("${"))
        || file.source().slice(node.span()).contains("${")
}

/// `Kind `name`` for messages, with the name as written in the file (a template loaded with its
/// placeholders substituted would otherwise show `-workers` for `${CLUSTER_NAME}-workers`).
pub fn describe(file: &ReleaseFile, object: &Object<'_>) -> String {
    if !file.substituted {
        return object.display();
    }
    let written = object
        .root
        .path(&["metadata", "name"])
        .map(|node| file.source().slice(node.span()).trim_matches(['\'', '"']));
    match (object.kind(), written) {
        (Some(kind), Some(name)) if !name.is_empty() => format!("{kind} `{name}`"),
        _ => object.display(),
    }
}

/// Values for a message, each in backticks, comma-separated (`` `a`, `b` ``); empty for none.
pub(crate) fn backticked<T: std::fmt::Display>(items: impl IntoIterator<Item = T>) -> String {
    items
        .into_iter()
        .map(|item| format!("`{item}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A span reduced to its first line, so that a label on a whole mapping does not underline it all.
pub fn head(span: Span) -> Span {
    span
}

/// Runs every rule over every release folder; diagnostics come back sorted by file and position.
pub fn run(releases: &[Release], options: &Options) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for release in releases {
        match by_provider_type(release, options) {
            None => run_one(release, options, &mut diagnostics),
            Some(parts) => {
                let mut all = Vec::new();
                for (part, options) in &parts {
                    let mut found = Vec::new();
                    run_one(part, options, &mut found);
                    crate::diagnostic::extend_unique(&mut all, found);
                }
                diagnostics.extend(all);
            }
        }
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diagnostics
}

/// Only the rules `ids` names, over one release: for a caller that asks one question of a
/// release (`capkg diff`: is it a release at all?).
pub(crate) fn run_only(release: &Release, options: &Options, ids: &[&str]) -> Vec<Diagnostic> {
    let cx = Context::new(release, options);
    let mut diagnostics = Vec::new();
    for rule in all().filter(|rule| ids.contains(&rule.id)) {
        let mut findings = Findings::new(rule, &mut diagnostics);
        (rule.check)(&cx, &mut findings);
    }
    diagnostics
}

fn run_one(release: &Release, options: &Options, diagnostics: &mut Vec<Diagnostic>) {
    let cx = Context::new(release, options);
    for rule in all() {
        let mut findings = Findings::new(rule, diagnostics);
        (rule.check)(&cx, &mut findings);
    }
}

/// A release folder holding components files of several provider types (`core-components.yaml`
/// beside `bootstrap-components.yaml`) split into one release per type, as `assemble`, `publish`
/// and clusterctl read it: each type's components, the shared `metadata.yaml`, and the
/// templates with the provider they belong to ([`crate::provider::templates_owner`]). `None`
/// for a folder of one type, or when `--type` says which.
fn by_provider_type(release: &Release, options: &Options) -> Option<Vec<(Release, Options)>> {
    if options.provider_type.is_some() {
        return None;
    }
    let types: std::collections::BTreeSet<ProviderType> = release
        .components()
        .filter_map(|f| match f.role {
            crate::provider::FileRole::Components { provider_type, .. } => Some(provider_type),
            _ => None,
        })
        .collect();
    if types.len() < 2 {
        return None;
    }
    let owner = types
        .iter()
        .position(|t| *t == ProviderType::Infrastructure)
        .unwrap_or(0);
    let parts = types
        .iter()
        .enumerate()
        .map(|(index, provider_type)| {
            let files = release
                .files
                .iter()
                .filter(|f| match &f.role {
                    crate::provider::FileRole::Components {
                        provider_type: own, ..
                    } => own == provider_type,
                    role => !role.is_template() || index == owner,
                })
                .cloned()
                .collect();
            let part = Release {
                dir: release.dir.clone(),
                files,
                near_misses: match index {
                    0 => release.near_misses.clone(),
                    _ => Vec::new(),
                },
            };
            // Each part's file names give its type, as they would for a folder of its own.
            (part, options.clone())
        })
        .collect();
    Some(parts)
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers for rule tests: build a release from named texts, run one rule.

    use super::*;
    use crate::files;
    use crate::provider::FileRole;

    pub(crate) fn release(files: &[(&str, &str)]) -> Release {
        Release {
            dir: "rel".into(),
            near_misses: Vec::new(),
            files: files
                .iter()
                .map(|(name, text)| {
                    let role = FileRole::from_file_name(name)
                        .unwrap_or_else(|| panic!("test file `{name}` has no role"));
                    files::load_text(name, text.to_string(), role)
                })
                .collect(),
        }
    }

    /// Runs one rule and returns its findings.
    pub(crate) fn check(
        rule: &'static Rule,
        release: &Release,
        options: &Options,
    ) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        let cx = Context::new(release, options);
        (rule.check)(&cx, &mut Findings::new(rule, &mut out));
        out
    }

    pub(crate) fn check_files(rule: &'static Rule, files: &[(&str, &str)]) -> Vec<Diagnostic> {
        check(rule, &release(files), &Options::default())
    }

    pub(crate) fn with_version(version: &str) -> Options {
        Options {
            version: Some(Version::parse(version).expect("test version")),
            ..Options::default()
        }
    }

    /// `(line, column)` of a diagnostic.
    pub(crate) fn at(d: &Diagnostic) -> (usize, usize) {
        let p = d.position().expect("diagnostic has a position");
        (p.line, p.column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn rule_ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for rule in all() {
            assert!(seen.insert(rule.id), "duplicate rule id {}", rule.id);
            let (group, name) = rule.id.split_once('/').expect("group/name");
            assert!(!group.is_empty() && !name.is_empty());
            assert!(
                rule.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '/'),
                "{}",
                rule.id
            );
            assert!(
                !rule.summary.is_empty() && !rule.explanation.is_empty() && !rule.help.is_empty()
            );
            assert!(rule.reference.url.starts_with("https://"), "{}", rule.id);
        }
    }

    #[test]
    fn provider_name_comes_from_the_most_common_label() {
        let release = testing::release(&[(
            "infrastructure-components.yaml",
            "kind: Namespace\nmetadata:\n  name: a\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-foo\n---\nkind: ServiceAccount\nmetadata:\n  name: b\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-foo\n---\nkind: ConfigMap\nmetadata:\n  name: c\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-bar\n",
        )]);
        let options = Options::default();
        let cx = Context::new(&release, &options);
        assert_eq!(cx.provider.label().as_deref(), Some("infrastructure-foo"));
    }
}
