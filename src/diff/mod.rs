//! `capkg diff OLD NEW`: what changed between two releases, and what of it breaks an upgrade.
//!
//! Both releases are read by the code `capkg verify` reads a source with ([`crate::verify`],
//! without its checks); the comparison is pure: objects added, removed and changed by kind and
//! name; per CRD its versions, conversion and schemas ([`crd`], [`schema`]); RBAC permissions as
//! (apiGroup, resource, verb) ([`rbac`]); images; `metadata.yaml`'s release series. What breaks
//! users is reported as findings of the `upgrade/…` rules ([`crate::rules::upgrade`]), waivable
//! like lint's.
//!
//! Cluster templates and ClusterClass files are compared as `clusterctl generate cluster` users
//! and Cluster API's ClusterClass checks meet them ([`templates`], [`clusterclass`]).

pub(crate) mod clusterclass;
pub(crate) mod crd;
pub(crate) mod rbac;
pub(crate) mod render;
pub(crate) mod schema;
pub(crate) mod templates;

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Summary};
use crate::files::{Release, ReleaseFile};
use crate::forge::Services;
use crate::k8s::Object;
use crate::provider::ProviderType;
use crate::rules::upgrade as rules;
use crate::rules::waivers::{self, Scope};
use crate::rules::{self as lint_rules, Context, Findings, Rule, Waiver};
use crate::verify::{self, ReadRelease, Settings, VerifyRequest};
use crate::yaml::Node;
use crate::yaml::json_value::JsonValue;

/// What a change is about, in the order a reviewer reads them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Section {
    Metadata,
    Objects,
    Crds,
    Rbac,
    Images,
    /// Cluster templates and ClusterClasses ([`templates`], [`clusterclass`]).
    Templates,
}

impl Section {
    pub(crate) fn title(self) -> &'static str {
        match self {
            Section::Metadata => "metadata.yaml",
            Section::Objects => "Objects",
            Section::Crds => "CRDs",
            Section::Rbac => "RBAC",
            Section::Images => "Images",
            Section::Templates => "Templates and ClusterClasses",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ChangeKind {
    Added,
    Removed,
    Changed,
}

/// One change between the releases.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Change {
    /// The provider's manifest label (`infrastructure-aws`), empty when unknown.
    pub provider: String,
    pub section: Section,
    pub change: ChangeKind,
    /// What changed: `Deployment capa-system/capa-controller-manager`, `CRD awsclusters… v1beta2`.
    pub subject: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
}

impl Change {
    /// Added when only `new` is set, removed when only `old` is, else changed.
    pub(crate) fn new(
        section: Section,
        subject: String,
        old: Option<String>,
        new: Option<String>,
    ) -> Self {
        let change = match (&old, &new) {
            (None, Some(_)) => ChangeKind::Added,
            (Some(_), None) => ChangeKind::Removed,
            _ => ChangeKind::Changed,
        };
        Self {
            provider: String::new(),
            section,
            change,
            subject,
            old,
            new,
        }
    }

    /// Something added, removed or changed, with no value to show (an object).
    pub(crate) fn bare(change: ChangeKind, section: Section, subject: String) -> Self {
        Self {
            change,
            ..Self::new(section, subject, None, None)
        }
    }

    /// A change described in words (`maxLength: 10 -> 5`).
    pub(crate) fn described(section: Section, subject: String, what: String) -> Self {
        Self {
            change: ChangeKind::Changed,
            ..Self::new(section, subject, None, Some(what))
        }
    }
}

/// Collects the changes and findings of one provider's comparison.
pub(crate) struct Sink {
    provider: String,
    changes: Vec<Change>,
    diagnostics: Vec<Diagnostic>,
}

impl Sink {
    fn new(provider: String) -> Self {
        Self {
            provider,
            changes: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    pub(crate) fn change(&mut self, mut change: Change) {
        change.provider = self.provider.clone();
        self.changes.push(change);
    }

    pub(crate) fn finding(
        &mut self,
        rule: &'static Rule,
        file: &ReleaseFile,
        at: &Node,
        message: String,
    ) {
        Findings::new(rule, &mut self.diagnostics).at_node(file, at, message);
    }

    /// A finding about something no longer there: on the new file as a whole, or the folder.
    pub(crate) fn on_file(
        &mut self,
        rule: &'static Rule,
        file: Option<&ReleaseFile>,
        dir: &Path,
        message: String,
    ) {
        let mut findings = Findings::new(rule, &mut self.diagnostics);
        match file {
            Some(file) => findings.on_file(file, message),
            None => findings.on_path(dir, message),
        };
    }
}

/// One side of a comparison as the report names it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SideInfo {
    pub source: String,
    pub version: Option<String>,
    pub provider_label: Option<String>,
}

/// What `capkg diff` found.
///
/// JSON (`--format json`):
///
/// ```json
/// {
///   "old": {"source": "...", "version": "v1.0.0", "provider_label": "infrastructure-x"},
///   "new": {"source": "...", "version": "v1.1.0", "provider_label": "infrastructure-x"},
///   "changes": [{"provider": "infrastructure-x", "section": "crds", "change": "changed",
///                "subject": "CRD xs.example.com v1beta1", "old": "served, storage", "new": "not served"}],
///   "diagnostics": [{"rule": "upgrade/served-version-removed", "severity": "error", ...}],
///   "summary": {"errors": 1, "warnings": 0, "infos": 0, "waived": 0, "files": 2},
///   "warnings": [],
///   "ok": false
/// }
/// ```
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DiffReport {
    pub old: SideInfo,
    pub new: SideInfo,
    pub changes: Vec<Change>,
    #[serde(serialize_with = "crate::diagnostic::serialize_json")]
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
    /// What could not be compared, and what capkg noticed reading the releases.
    pub warnings: Vec<String>,
    /// No error remains after waivers.
    pub ok: bool,
}

impl DiffReport {
    /// The report with the maintainer's `upgrade/…` waivers applied, counted again.
    pub(crate) fn waive(mut self, waivers: &[Waiver], root: &Path) -> Self {
        waivers::apply_scoped(&mut self.diagnostics, waivers, root, Scope::Upgrade);
        self.finish()
    }

    fn finish(mut self) -> Self {
        let files: std::collections::BTreeSet<&str> = self
            .diagnostics
            .iter()
            .filter_map(Diagnostic::file_name)
            .collect();
        self.summary = Summary::of(&self.diagnostics, files.len());
        self.ok = self.summary.errors == 0;
        self
    }
}

/// What to compare.
#[derive(Debug, Clone, Default)]
pub(crate) struct DiffRequest {
    pub old: String,
    pub new: String,
    pub provider_name: Option<String>,
    pub provider_type: Option<ProviderType>,
    /// The version read, where the source does not say it (the operator's `spec.version` of an
    /// `oci://` tag that is not the version alone).
    pub version: Option<String>,
}

/// Reads a source as `capkg verify` does, without its checks.
pub(crate) async fn read(
    source: &str,
    request: &DiffRequest,
    settings: &Settings,
    services: Services,
) -> Result<verify::VerifyReport, verify::Error> {
    verify::verify(
        &VerifyRequest {
            source: source.to_string(),
            provider_name: request.provider_name.clone(),
            provider_type: request.provider_type,
            version: request.version.clone(),
            check_images: false,
            skip_checks: true,
        },
        settings,
        services,
    )
    .await
}

/// Reads both releases and compares them.
pub(crate) async fn diff(
    request: &DiffRequest,
    settings: &Settings,
    services: Services,
) -> Result<DiffReport, verify::Error> {
    let old = read(&request.old, request, settings, services.clone()).await?;
    let new = read(&request.new, request, settings, services).await?;
    let mut report = compare(&old.releases, &new.releases);
    report.old = side(&old);
    report.new = side(&new);
    report
        .warnings
        .splice(0..0, old.warnings.iter().map(|w| format!("old: {w}")));
    let at = report.warnings.len();
    report
        .warnings
        .splice(at..at, new.warnings.iter().map(|w| format!("new: {w}")));
    Ok(report)
}

pub(crate) fn side(report: &verify::VerifyReport) -> SideInfo {
    SideInfo {
        source: report.source.clone(),
        version: report.version.clone(),
        provider_label: report.provider_label.clone(),
    }
}

fn label(read: &ReadRelease) -> String {
    Context::new(&read.release, &read.options)
        .provider
        .label()
        .unwrap_or_default()
}

/// Compares two reads, provider by provider (paired by manifest label; one each: paired).
pub(crate) fn compare(old: &[ReadRelease], new: &[ReadRelease]) -> DiffReport {
    let mut changes = Vec::new();
    let mut diagnostics = Vec::new();
    let mut warnings = Vec::new();
    let old_labels: Vec<String> = old.iter().map(label).collect();
    let new_labels: Vec<String> = new.iter().map(label).collect();
    let single = old.len() == 1 && new.len() == 1;
    for (index, after) in new.iter().enumerate() {
        let provider = &new_labels[index];
        let before = if single {
            old.first()
        } else {
            old_labels
                .iter()
                .position(|l| l == provider)
                .and_then(|i| old.get(i))
        };
        let mut sink = Sink::new(provider.clone());
        match before {
            Some(before) => compare_release(before, after, &mut sink),
            None => sink.change(Change::bare(
                ChangeKind::Added,
                Section::Objects,
                format!("provider {provider}"),
            )),
        }
        changes.append(&mut sink.changes);
        diagnostics.append(&mut sink.diagnostics);
    }
    if !single {
        for provider in &old_labels {
            if !new_labels.contains(provider) {
                changes.push(Change::bare(
                    ChangeKind::Removed,
                    Section::Objects,
                    format!("provider {provider}"),
                ));
                warnings.push(format!(
                    "provider {provider} is in the old release only: nothing to compare it with"
                ));
            }
        }
    }
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let empty = SideInfo {
        source: String::new(),
        version: None,
        provider_label: None,
    };
    DiffReport {
        old: empty.clone(),
        new: empty,
        changes,
        diagnostics,
        summary: Summary::default(),
        warnings,
        ok: true,
    }
    .finish()
}

/// One provider's old release against its new one.
fn compare_release(old: &ReadRelease, new: &ReadRelease, sink: &mut Sink) {
    let claimed = metadata(old, new, sink);
    let old_objects = objects(&old.release);
    let new_objects = objects(&new.release);
    let first_components = new.release.components().next();
    let migrator = rbac::migrator(&new.release);
    for (key, (old_file, before)) in &old_objects {
        match new_objects.get(key) {
            None => {
                sink.change(Change::bare(
                    ChangeKind::Removed,
                    Section::Objects,
                    key.clone(),
                ));
                if before.is_kind("CustomResourceDefinition") {
                    sink.on_file(
                        &rules::CRD_REMOVED,
                        first_components,
                        &new.release.dir,
                        format!(
                            "{key} is gone: clusterctl upgrade leaves it in clusters, orphaned"
                        ),
                    );
                }
            }
            Some((file, after)) => {
                // Most objects are the same text in both releases: nothing to compare.
                if text_of(old_file, before) == text_of(file, after) {
                    continue;
                }
                if !same(before.root, after.root) {
                    sink.change(Change::bare(
                        ChangeKind::Changed,
                        Section::Objects,
                        key.clone(),
                    ));
                }
                if let (Some(a), Some(b)) = (
                    crd::Crd::new(old_file, *before),
                    crd::Crd::new(file, *after),
                ) {
                    crd::compare(&a, &b, &claimed, &migrator, sink);
                }
            }
        }
    }
    for key in new_objects.keys() {
        if !old_objects.contains_key(key) {
            sink.change(Change::bare(
                ChangeKind::Added,
                Section::Objects,
                key.clone(),
            ));
        }
    }
    rbac::compare(&old.release, &new.release, sink);
    images(&old_objects, &new_objects, sink);
    templates::compare(old, new, sink);
}

/// An object as written.
fn text_of<'f>(file: &'f ReleaseFile, object: &Object<'_>) -> &'f str {
    file.source().slice(object.root.span())
}

/// Structural equality, as the API server sees objects (key order and YAML style aside).
fn same(a: &Node, b: &Node) -> bool {
    match (JsonValue::from_node(a), JsonValue::from_node(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a.value() == b.value(),
    }
}

type Objects<'a> = BTreeMap<String, (&'a ReleaseFile, Object<'a>)>;

/// The components' objects by `Kind namespace/name`.
fn objects(release: &Release) -> Objects<'_> {
    Context::objects_in(release.components())
        .map(|(file, object)| {
            let name = object.name().unwrap_or("(unnamed)");
            let key = match object.namespace() {
                Some(ns) => format!("{} {ns}/{name}", object.kind().unwrap_or("(no kind)")),
                None => format!("{} {name}", object.kind().unwrap_or("(no kind)")),
            };
            (key, (file, object))
        })
        .collect()
}

fn images(old: &Objects<'_>, new: &Objects<'_>, sink: &mut Sink) {
    let list = |objects: &Objects<'_>| -> BTreeMap<String, String> {
        objects
            .iter()
            .flat_map(|(key, (_, object))| {
                object
                    .workload_images()
                    .into_iter()
                    .map(move |(node, container)| {
                        (
                            format!("{key} container {container}"),
                            node.scalar_text().unwrap_or("").to_string(),
                        )
                    })
            })
            .collect()
    };
    let (before, after) = (list(old), list(new));
    for (key, image) in &before {
        match after.get(key) {
            Some(new_image) if new_image == image => {}
            other => sink.change(Change::new(
                Section::Images,
                key.clone(),
                Some(image.clone()),
                other.cloned(),
            )),
        }
    }
    for (key, image) in &after {
        if !before.contains_key(key) {
            sink.change(Change::new(
                Section::Images,
                key.clone(),
                None,
                Some(image.clone()),
            ));
        }
    }
}

/// `metadata.yaml`: series dropped or re-contracted, the new version's own series; returns the
/// contracts the new release claims.
fn metadata<'a>(old: &ReadRelease, new: &'a ReadRelease, sink: &mut Sink) -> Vec<&'a str> {
    let series = |read: &ReadRelease| -> Vec<((i128, i128), String)> {
        read.release
            .metadata()
            .map(lint_rules::release_series)
            .unwrap_or_default()
            .iter()
            .filter_map(|s| Some((s.major_minor()?, s.contract.unwrap_or("").to_string())))
            .collect()
    };
    let (before, after) = (series(old), series(new));
    let file = new.release.metadata();
    let show = |(major, minor): (i128, i128)| format!("release series {major}.{minor}");
    for (mm, contract) in &before {
        match after.iter().find(|(m, _)| m == mm) {
            Some((_, c)) if c == contract => {}
            Some((_, c)) => {
                sink.change(Change::new(
                    Section::Metadata,
                    show(*mm),
                    Some(contract.clone()),
                    Some(c.clone()),
                ));
                sink.on_file(
                    &rules::SERIES_DROPPED,
                    file,
                    &new.release.dir,
                    format!(
                        "{} implemented contract {contract}, now {c}: clusterctl would pick the wrong releases",
                        show(*mm)
                    ),
                );
            }
            None => {
                sink.change(Change::new(
                    Section::Metadata,
                    show(*mm),
                    Some(contract.clone()),
                    None,
                ));
                sink.on_file(
                    &rules::SERIES_DROPPED,
                    file,
                    &new.release.dir,
                    format!(
                        "{} (contract {contract}) is gone: clusterctl no longer knows the releases installed from it",
                        show(*mm)
                    ),
                );
            }
        }
    }
    for (mm, contract) in &after {
        if !before.iter().any(|(m, _)| m == mm) {
            sink.change(Change::new(
                Section::Metadata,
                show(*mm),
                None,
                Some(contract.clone()),
            ));
        }
    }
    if let Some(version) = &new.options.version {
        let own = (i128::from(version.major()), i128::from(version.minor()));
        if !after.iter().any(|(mm, _)| *mm == own) {
            sink.on_file(
                &rules::SERIES_MISSING,
                file,
                &new.release.dir,
                format!(
                    "metadata.yaml has no release series {}.{} for {version}: clusterctl refuses to install or upgrade to it",
                    own.0, own.1
                ),
            );
        }
    }
    // The contract this release implements: its own series', else any the file names.
    let all = new
        .release
        .metadata()
        .map(lint_rules::release_series)
        .unwrap_or_default();
    let own = new.options.version.as_ref().and_then(|v| {
        let own = (i128::from(v.major()), i128::from(v.minor()));
        all.iter().find(|s| s.major_minor() == Some(own))
    });
    match own {
        Some(series) => series.contract.into_iter().collect(),
        None => all.iter().filter_map(|s| s.contract).collect(),
    }
}

#[cfg(test)]
mod tests;
