//! `capkg diff OLD NEW`: what changed between two releases, and what of it breaks an upgrade.
//!
//! Both releases are read by the code `capkg verify` reads a source with ([`crate::verify`],
//! without its checks); the comparison is pure: objects added, removed and changed as the API
//! server identifies them, with the fields that changed ([`objects`]); per CRD its versions,
//! conversion and schemas ([`crd`], [`schema`]); RBAC permissions as (apiGroup, resource, verb)
//! ([`rbac`]); images; `metadata.yaml`'s release series. What breaks users is reported as
//! findings of the `upgrade/…` rules ([`crate::rules::upgrade`]), waivable like lint's, grouped
//! by the object they are about.
//!
//! Every step is linear in the releases' size (versions and objects are looked up by hash, served
//! versions compared with their neighbour): `benches/diff_large.sh` measures a CRD of 100,000
//! versions.
//!
//! Cluster templates and ClusterClass files are compared as `clusterctl generate cluster` users
//! and Cluster API's ClusterClass checks meet them ([`templates`], [`clusterclass`]).

pub(crate) mod clusterclass;
pub(crate) mod crd;
pub(crate) mod objects;
pub(crate) mod rbac;
pub(crate) mod readable;
pub(crate) mod schema;
pub(crate) mod templates;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::Path;

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Summary};
use crate::files::ReleaseFile;
use crate::forge::Services;
use crate::provider::ProviderType;
use crate::rules::upgrade as rules;
use crate::rules::waivers::{Judged, Scope};
use crate::rules::{self as lint_rules, Context, Findings, Rule, Waivers};
use crate::verify::{self, ReadRelease, Settings, VerifyRequest};
use crate::yaml::Node;
use objects::{Identity, Objects};

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
    /// The field of the subject that changed (`containers[manager].args`), when the change is
    /// one field's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
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
            field: None,
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

/// Collects the changes and findings of one provider's comparison. Findings about one object
/// (a CRD) are kept together, in the order they were found, at the object's place: see
/// [`Sink::about`].
pub(crate) struct Sink {
    provider: String,
    changes: Vec<Change>,
    diagnostics: Vec<Diagnostic>,
    /// Per finding: where its group starts in its file (the object's offset), else `None`.
    groups: Vec<Option<usize>>,
    group: Option<usize>,
}

impl Sink {
    fn new(provider: String) -> Self {
        Self {
            provider,
            changes: Vec::new(),
            diagnostics: Vec::new(),
            groups: Vec::new(),
            group: None,
        }
    }

    pub(crate) fn change(&mut self, mut change: Change) {
        change.provider = self.provider.clone();
        self.changes.push(change);
    }

    /// Findings from here on are about the object at `root` (until [`Sink::about`] again):
    /// they are shown together, in the order found, where the object is.
    pub(crate) fn about(&mut self, root: Option<&Node>) {
        self.group = root.map(|n| n.span().start);
    }

    fn record(&mut self) {
        while self.groups.len() < self.diagnostics.len() {
            self.groups.push(self.group);
        }
    }

    pub(crate) fn finding(
        &mut self,
        rule: &'static Rule,
        file: &ReleaseFile,
        at: &Node,
        message: String,
    ) -> &mut Diagnostic {
        Findings::new(rule, &mut self.diagnostics).at_node(file, at, message);
        self.record();
        let last = self.diagnostics.len() - 1;
        &mut self.diagnostics[last]
    }

    /// A finding at a byte range of a file: a template variable's first use is text, not a YAML
    /// node.
    pub(crate) fn at_span(
        &mut self,
        rule: &'static Rule,
        file: &ReleaseFile,
        span: crate::yaml::Span,
        message: String,
    ) -> &mut Diagnostic {
        Findings::new(rule, &mut self.diagnostics).at(file, span, message);
        self.record();
        let last = self.diagnostics.len() - 1;
        &mut self.diagnostics[last]
    }

    /// A finding about something no longer there: on the new file as a whole, or the folder.
    pub(crate) fn on_file(
        &mut self,
        rule: &'static Rule,
        file: Option<&ReleaseFile>,
        dir: &Path,
        message: String,
    ) -> &mut Diagnostic {
        let mut findings = Findings::new(rule, &mut self.diagnostics);
        match file {
            Some(file) => findings.on_file(file, message),
            None => findings.on_path(dir, message),
        };
        self.record();
        let last = self.diagnostics.len() - 1;
        &mut self.diagnostics[last]
    }

    /// The findings in the order shown: by file, a finding about the file as a whole first,
    /// then by the place of the object they are about (or their own), then in the order found.
    fn into_parts(self) -> (Vec<Change>, Vec<(Diagnostic, Option<usize>)>) {
        // A finding recorded without a group (none is lost) is placed by its own span.
        let groups = self.groups;
        let keyed = self
            .diagnostics
            .into_iter()
            .enumerate()
            .map(|(index, d)| {
                let group = groups.get(index).copied().flatten();
                let at = group.or(d.span.map(|s| s.start));
                (d, at)
            })
            .collect();
        (self.changes, keyed)
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
    /// How many providers had a previous release to compare with: with none, no `upgrade/…`
    /// waiver could have matched, so none is reported unused.
    #[serde(skip)]
    pub compared: usize,
}

impl DiffReport {
    /// The report with the maintainer's `upgrade/…` waivers applied, counted again.
    pub(crate) fn waive(mut self, waivers: &Waivers) -> Self {
        // Waivers sort findings by place; the comparison's order (each object's findings
        // together, root cause first) is put back, findings about the waivers themselves first.
        type Key = (&'static str, Option<String>, Option<(usize, usize)>, String);
        let key = |d: &Diagnostic| -> Key {
            (
                d.rule,
                d.file_name().map(str::to_string),
                d.span.map(|s| (s.start, s.end)),
                d.message.clone(),
            )
        };
        let mut places: HashMap<Key, VecDeque<usize>> = HashMap::new();
        for (i, d) in self.diagnostics.iter().enumerate() {
            places.entry(key(d)).or_default().push_back(i);
        }
        let judged = if self.compared > 0 {
            Judged::All
        } else {
            Judged::Nothing
        };
        waivers.apply_judged(&mut self.diagnostics, Scope::Upgrade, judged);
        let mut placed: Vec<(Option<usize>, Diagnostic)> = std::mem::take(&mut self.diagnostics)
            .into_iter()
            .map(|d| {
                let at = places.get_mut(&key(&d)).and_then(VecDeque::pop_front);
                (at, d)
            })
            .collect();
        placed.sort_by_key(|(at, _)| *at);
        self.diagnostics = placed.into_iter().map(|(_, d)| d).collect();
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
    /// The previous release's version, where its source does not say it (a plain folder, the
    /// operator's `spec.version` of an `oci://` tag that is not the version alone).
    pub version: Option<String>,
    /// The same for the new release (`capkg diff --version`).
    pub new_version: Option<String>,
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
            provenance: verify::provenance::Requirement::WhenPresent,
            signature: None,
        },
        settings,
        services,
    )
    .await
    .and_then(|report| {
        readable::check(source, &report.releases)?;
        Ok(report)
    })
}

/// Reads both releases and compares them.
pub(crate) async fn diff(
    request: &DiffRequest,
    settings: &Settings,
    services: Services,
) -> Result<DiffReport, verify::Error> {
    let old = read(&request.old, request, settings, services.clone()).await?;
    let new_request = DiffRequest {
        version: request.new_version.clone(),
        ..request.clone()
    };
    let new = read(&request.new, &new_request, settings, services).await?;
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
    let mut diagnostics: Vec<(Diagnostic, Option<usize>)> = Vec::new();
    let mut warnings = Vec::new();
    let mut compared = 0;
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
            Some(before) => {
                compare_release(before, after, &mut sink);
                compared += 1;
            }
            None => sink.change(Change::bare(
                ChangeKind::Added,
                Section::Objects,
                format!("provider {provider}"),
            )),
        }
        if after.options.version.is_none() {
            warnings.push(unknown_version(provider));
        }
        let (mut found_changes, found) = sink.into_parts();
        changes.append(&mut found_changes);
        // Every finding was judged against this one previous release: what a waiver's
        // `previous` names.
        let previous = before
            .and_then(|b| b.options.version.as_ref())
            .map(ToString::to_string);
        diagnostics.extend(found.into_iter().map(|(mut d, at)| {
            d.previous.clone_from(&previous);
            (d, at)
        }));
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
    // Stable: a group's findings stay in the order found.
    diagnostics.sort_by(|(a, x), (b, y)| (a.file_name(), x).cmp(&(b.file_name(), y)));
    let diagnostics = diagnostics.into_iter().map(|(d, _)| d).collect();
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
        compared,
    }
    .finish()
}

/// What is said when the new release's version is unknown (a plain folder without
/// `--version`): the checks that need it were not made.
fn unknown_version(provider: &str) -> String {
    let provider = if provider.is_empty() {
        String::new()
    } else {
        format!(" of {provider}")
    };
    format!(
        "the new release's version{provider} is unknown (a plain folder), so `upgrade/release-series-missing` was not checked and the contract is taken from every release series: pass `--version vX.Y.Z`"
    )
}

/// One provider's old release against its new one.
fn compare_release(old: &ReadRelease, new: &ReadRelease, sink: &mut Sink) {
    let claimed = metadata(old, new, sink);
    let cluster_scoped = objects::cluster_scoped_kinds(&[&old.release, &new.release]);
    let old_objects = objects::objects(&old.release, &cluster_scoped);
    let new_objects = objects::objects(&new.release, &cluster_scoped);
    let first_components = new.release.components().next();
    let migrators = crd::Migrators {
        old: rbac::migrator(&old.release),
        new: rbac::migrator(&new.release),
    };
    for (identity, before) in &old_objects {
        let subject = identity.to_string();
        match new_objects.get(identity) {
            None => {
                sink.change(Change::bare(
                    ChangeKind::Removed,
                    Section::Objects,
                    subject.clone(),
                ));
                if before.object.is_kind("CustomResourceDefinition") {
                    sink.on_file(
                        &rules::CRD_REMOVED,
                        first_components,
                        &new.release.dir,
                        format!(
                            "{subject} is gone: clusterctl upgrade leaves it in clusters, orphaned"
                        ),
                    );
                }
            }
            Some(after) => compare_object(identity, before, after, &claimed, &migrators, sink),
        }
    }
    for identity in new_objects.keys() {
        if !old_objects.contains_key(identity) {
            sink.change(Change::bare(
                ChangeKind::Added,
                Section::Objects,
                identity.to_string(),
            ));
        }
    }
    sink.about(None);
    rbac::compare(&old.release, &new.release, sink);
    images(&old_objects, &new_objects, sink);
    templates::compare(old, new, sink);
}

/// One object in both releases: its fields, and for a CRD everything [`crd::compare`] checks.
fn compare_object(
    identity: &Identity<'_>,
    before: &objects::Entry<'_>,
    after: &objects::Entry<'_>,
    claimed: &[&str],
    migrators: &crd::Migrators<'_>,
    sink: &mut Sink,
) {
    let subject = identity.to_string();
    // A namespace on a cluster-scoped object is ignored by the API server: said once, as that.
    if identity.namespace.is_none() {
        let (old_ns, new_ns) = (before.object.namespace(), after.object.namespace());
        if old_ns != new_ns {
            sink.change(Change {
                field: Some("metadata.namespace".into()),
                ..Change::new(
                    Section::Objects,
                    subject.clone(),
                    Some(old_ns.unwrap_or("(none)").to_string()),
                    Some(format!(
                        "{} (ignored: {} is cluster-scoped)",
                        new_ns.unwrap_or("(none)"),
                        identity.kind
                    )),
                )
            });
        }
    }
    // Most objects are the same text in both releases: nothing to compare.
    if text_of(before.file, &before.object) == text_of(after.file, &after.object) {
        return;
    }
    if !objects::same(before.object.root, after.object.root) {
        let fields = objects::field_changes(
            &subject,
            identity.kind,
            before.object.root,
            after.object.root,
            Section::Objects,
        );
        let mut changed = Change::bare(ChangeKind::Changed, Section::Objects, subject.clone());
        if fields.is_empty() {
            changed.new = objects::shown_elsewhere(identity.kind).map(str::to_string);
        }
        sink.change(changed);
        for change in fields {
            sink.change(change);
        }
    }
    if let (Some(a), Some(b)) = (
        crd::Crd::new(before.file, before.object),
        crd::Crd::new(after.file, after.object),
    ) {
        sink.about(Some(after.object.root));
        crd::compare(&a, &b, claimed, migrators, sink);
        sink.about(None);
    }
}

/// An object as written.
fn text_of<'f>(file: &'f ReleaseFile, object: &crate::k8s::Object<'_>) -> &'f str {
    file.source().slice(object.root.span())
}

fn images(old: &Objects<'_>, new: &Objects<'_>, sink: &mut Sink) {
    let list = |objects: &Objects<'_>| -> BTreeMap<String, String> {
        objects
            .iter()
            .flat_map(|(identity, entry)| {
                entry
                    .object
                    .workload_images()
                    .into_iter()
                    .map(move |(node, container)| {
                        (
                            format!("{identity} container {container}"),
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

/// The field of a release series of `metadata.yaml` (a waiver's `field`): `releaseSeries[1.14]`.
fn series_field((major, minor): (i128, i128)) -> String {
    format!("releaseSeries[{major}.{minor}]")
}

/// `metadata.yaml`: series dropped or re-contracted, the new version's own series; returns the
/// contracts the new release claims.
fn metadata<'a>(old: &ReadRelease, new: &'a ReadRelease, sink: &mut Sink) -> Vec<&'a str> {
    let series = |read: &ReadRelease| -> BTreeMap<(i128, i128), String> {
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
        match after.get(mm) {
            Some(c) if c == contract => {}
            Some(c) => {
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
                )
                .with_field(series_field(*mm));
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
                )
                .with_field(series_field(*mm));
            }
        }
    }
    for (mm, contract) in &after {
        if !before.contains_key(mm) {
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
        if !after.contains_key(&own) {
            sink.on_file(
                &rules::SERIES_MISSING,
                file,
                &new.release.dir,
                format!(
                    "metadata.yaml has no release series {}.{} for {version}: clusterctl refuses to install or upgrade to it",
                    own.0, own.1
                ),
            )
            .with_field(series_field(own));
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
