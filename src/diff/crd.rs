//! A CustomResourceDefinition as an upgrade sees it: versions (served, storage, deprecated),
//! conversion, scope, contract labels; and the checks between an old and a new one.

use std::collections::HashSet;

use super::schema::{self, Delta};
use super::{Change, ChangeKind, Section, Sink};
use crate::files::ReleaseFile;
use crate::k8s::Object;
use crate::rules::Rule;
use crate::rules::upgrade as rules;
use crate::yaml::Node;
use crate::yaml::resolve::Resolved;

/// The prefix of Cluster API's contract labels on CRDs (`cluster.x-k8s.io/v1beta1: v1beta1_v1beta2`).
const CONTRACT_LABEL_PREFIX: &str = "cluster.x-k8s.io/";

pub(crate) struct Crd<'a> {
    pub file: &'a ReleaseFile,
    pub object: Object<'a>,
    pub name: &'a str,
    pub versions: Vec<Version<'a>>,
    /// The places in `versions` sorted by name (first place first among equal names): a lookup
    /// is a binary search, with thousands of versions, at four bytes a version.
    index: Vec<u32>,
}

pub(crate) struct Version<'a> {
    pub name: &'a str,
    pub node: &'a Node,
    pub served: bool,
    pub storage: bool,
    pub deprecated: bool,
    pub schema: Option<&'a Node>,
}

impl Version<'_> {
    fn state(&self) -> String {
        let mut words = vec![if self.served { "served" } else { "not served" }];
        if self.storage {
            words.push("storage");
        }
        if self.deprecated {
            words.push("deprecated");
        }
        words.join(", ")
    }
}

fn flag(node: &Node, key: &str) -> bool {
    matches!(
        node.get(key).and_then(Node::resolve),
        Some(Resolved::Bool(true))
    )
}

impl<'a> Crd<'a> {
    pub(crate) fn new(file: &'a ReleaseFile, object: Object<'a>) -> Option<Self> {
        if !object.is_kind("CustomResourceDefinition") {
            return None;
        }
        let name = object.name()?;
        let versions: Vec<Version<'a>> = object
            .root
            .path(&["spec", "versions"])
            .map(Node::items)
            .unwrap_or(&[])
            .iter()
            .filter_map(|node| {
                Some(Version {
                    name: node.get("name")?.scalar_text()?,
                    node,
                    served: flag(node, "served"),
                    storage: flag(node, "storage"),
                    deprecated: flag(node, "deprecated"),
                    schema: node.path(&["schema", "openAPIV3Schema"]),
                })
            })
            .collect();
        // More versions than u32 counts cannot come from a file the loader accepts.
        let mut index: Vec<u32> = (0..versions.len())
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        index.sort_by_key(|&i| versions[i as usize].name);
        Some(Crd {
            file,
            object,
            name,
            versions,
            index,
        })
    }

    fn version(&self, name: &str) -> Option<&Version<'a>> {
        let at = self
            .index
            .partition_point(|&i| self.versions[i as usize].name < name);
        let &i = self.index.get(at)?;
        self.versions.get(i as usize).filter(|v| v.name == name)
    }

    fn served(&self) -> impl Iterator<Item = &Version<'a>> {
        self.versions.iter().filter(|v| v.served)
    }

    fn storage(&self) -> Option<&Version<'a>> {
        self.versions.iter().find(|v| v.storage)
    }

    fn scope(&self) -> Option<&'a str> {
        self.object.root.path_str(&["spec", "scope"])
    }

    /// `spec.conversion.strategy`, `None` when unset (the API server's default).
    fn strategy(&self) -> &'a str {
        self.object
            .root
            .path_str(&["spec", "conversion", "strategy"])
            .unwrap_or("None")
    }

    pub(crate) fn converts_by_webhook(&self) -> bool {
        self.strategy() == "Webhook"
    }

    fn stored_versions(&self) -> Vec<&'a str> {
        self.object
            .root
            .path(&["status", "storedVersions"])
            .map(Node::items)
            .unwrap_or(&[])
            .iter()
            .filter_map(Node::as_str)
            .collect()
    }

    /// `(contract, label value)` of each contract label.
    pub(crate) fn contract_labels(&self) -> Vec<(&'a str, &'a str)> {
        self.object
            .labels()
            .into_iter()
            .flat_map(|m| m.iter())
            .filter_map(|(key, _, value)| {
                let contract = key.strip_prefix(CONTRACT_LABEL_PREFIX)?;
                (contract.starts_with('v') && contract != "provider")
                    .then_some((contract, value.scalar_text().unwrap_or("")))
            })
            .collect()
    }

    fn anchor(&self) -> &'a Node {
        self.object.anchor()
    }

    fn versions_node(&self) -> &'a Node {
        self.object
            .root
            .path_entry(&["spec", "versions"])
            .map(|(key, _)| key)
            .unwrap_or_else(|| self.anchor())
    }
}

/// Orders Kubernetes version names as the API server does: GA above beta above alpha, then by
/// numbers (`v1alpha1 < v1beta1 < v1beta2 < v1`); names of no such form sort last, by text.
pub(crate) fn kube_order(a: &str, b: &str) -> std::cmp::Ordering {
    fn key(name: &str) -> Option<(u64, u8, u64)> {
        let rest = name.strip_prefix('v')?;
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let major: u64 = rest[..digits].parse().ok()?;
        let rest = &rest[digits..];
        if rest.is_empty() {
            return Some((major, 2, 0));
        }
        let (level, number) = if let Some(n) = rest.strip_prefix("beta") {
            (1, n)
        } else {
            (0, rest.strip_prefix("alpha")?)
        };
        Some((major, level, number.parse().ok()?))
    }
    match (key(a), key(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.cmp(b),
    }
}

/// What the controllers' RBAC and flags say about Cluster API's CRD migrator.
pub(crate) struct Migrator<'a> {
    /// CRD names the manager may `patch`/`update` (`None` in the list: all).
    pub writable: Vec<Option<&'a str>>,
    /// CRD names the manager may `patch`/`update` the status of (`None` in the list: all).
    pub status_writable: Vec<Option<&'a str>>,
    /// `--skip-crd-migration-phases` includes `StorageVersionMigration`.
    pub storage_phase_skipped: bool,
}

impl Migrator<'_> {
    /// The migrator rewrites the CRD's objects and then its `status.storedVersions`: it needs
    /// both permissions on it.
    fn runs_for(&self, crd: &str) -> bool {
        !self.storage_phase_skipped && self.may_write(crd)
    }

    fn may_write(&self, crd: &str) -> bool {
        let covers =
            |names: &[Option<&str>]| names.iter().any(|name| name.is_none_or(|n| n == crd));
        covers(&self.writable) && covers(&self.status_writable)
    }

    /// Why the migrator does not run for `crd`, as the end of a sentence.
    fn why_not(&self, crd: &str) -> &'static str {
        if self.storage_phase_skipped && self.may_write(crd) {
            "`--skip-crd-migration-phases` skips StorageVersionMigration"
        } else {
            "the manager may not patch the CRD and its `customresourcedefinitions/status`, so Cluster API's CRD migrator cannot run"
        }
    }
}

/// The migrators of the two releases' managers: the old one's is what moved objects out of a
/// version before the upgrade, the new one's what moves them after.
pub(crate) struct Migrators<'a> {
    pub old: Migrator<'a>,
    pub new: Migrator<'a>,
}

/// The field a finding about one version of a CRD names (a waiver's `field`).
pub(crate) fn version_field(version: &str) -> String {
    format!("spec.versions[{version}]")
}

/// The field of a property of a version's schema: crdify's `^` (the schema's root) spelled out,
/// so `^.status` of v1beta1 is `spec.versions[v1beta1].schema.openAPIV3Schema.status`.
pub(crate) fn schema_field(version: &str, path: &str) -> String {
    let below = path.strip_prefix('^').unwrap_or(path);
    format!("{}.schema.openAPIV3Schema{below}", version_field(version))
}

/// The field of a CRD's contract label.
fn contract_field(contract: &str) -> String {
    format!("metadata.labels[{CONTRACT_LABEL_PREFIX}{contract}]")
}

/// Everything that changed between two CRDs of the same name, and what it breaks. Findings come
/// in the order an upgrade meets them: what makes the API server refuse the CRD, then what
/// users lose, then the schemas version by version, then between served versions.
pub(crate) fn compare<'a>(
    old: &Crd<'_>,
    new: &Crd<'a>,
    claimed_contracts: &[&str],
    migrators: &Migrators<'_>,
    sink: &mut Sink,
) {
    let subject = |rest: &str| format!("CRD {} {rest}", new.name);
    if let (Some(before), Some(after)) = (old.scope(), new.scope())
        && before != after
    {
        let at = new
            .object
            .root
            .path(&["spec", "scope"])
            .unwrap_or(new.anchor());
        sink.finding(
            &rules::SCOPE_CHANGED,
            new.file,
            at,
            format!("{}: scope changed from {before} to {after}", new.name),
        )
        .with_field("spec.scope");
    }
    let pairing = Pairing::of(old, new);
    removed_versions(old, new, &pairing, &migrators.old, sink);
    // Versions: state and removals, the old release's order, then the new versions.
    let pairs = old
        .versions
        .iter()
        .zip(&pairing.old_to_new)
        .map(|(before, j)| (Some(before), j.and_then(|j| new.versions.get(j))))
        .chain(
            new.versions
                .iter()
                .zip(&pairing.new_to_old)
                .filter(|(_, i)| i.is_none())
                .map(|(after, _)| (None, Some(after))),
        );
    for (before, after) in pairs {
        let Some(name) = before.or(after).map(|v| v.name) else {
            continue;
        };
        let (b, a) = (before.map(Version::state), after.map(Version::state));
        if b != a {
            sink.change(Change::new(Section::Crds, subject(name), b, a));
        }
        if before.is_some_and(|v| v.served) && !after.is_some_and(|v| v.served) {
            let at = after.map_or_else(
                || new.versions_node(),
                |v| {
                    v.node
                        .path_entry(&["served"])
                        .map_or(v.node, |(key, _)| key)
                },
            );
            let what = if after.is_some() {
                "is no longer served"
            } else {
                "was removed"
            };
            sink.finding(
                &rules::SERVED_VERSION_REMOVED,
                new.file,
                at,
                format!(
                    "{}: version {name}, served by the previous release, {what}",
                    new.name
                ),
            )
            .with_field(version_field(name));
        }
    }
    if old.strategy() != new.strategy() {
        sink.change(Change::new(
            Section::Crds,
            subject("conversion"),
            Some(old.strategy().to_string()),
            Some(new.strategy().to_string()),
        ));
    }
    // The schema of each version in both.
    for (after, i) in new.versions.iter().zip(&pairing.new_to_old) {
        let Some(before) = i.and_then(|i| old.versions.get(i)) else {
            continue;
        };
        let (Some(old_schema), Some(new_schema)) = (before.schema, after.schema) else {
            continue;
        };
        let deltas = schema::compare(old_schema, new_schema);
        let what = format!("{} {}", new.name, after.name);
        if deltas.is_empty() && !super::objects::same(old_schema, new_schema) {
            // What the schema comparison leaves out: said, so the CRD's change is not a mystery.
            sink.change(Change::described(
                Section::Crds,
                format!("CRD {what} schema"),
                "descriptions only".into(),
            ));
        }
        for delta in &deltas {
            sink.change(as_change(&what, delta));
        }
        let mut breaking: Vec<&Delta<'a>> = deltas.iter().filter(|d| d.rule.is_some()).collect();
        breaking.sort_by(|a, b| most_specific_first(a, b));
        for delta in breaking {
            if let Some(rule) = delta.rule {
                sink.finding(
                    rule,
                    new.file,
                    delta.at,
                    format!("{what} {}: {}", delta.path, delta.what),
                )
                .with_field(schema_field(after.name, &delta.path));
            }
        }
    }
    served_pairs(old, new, sink);
    storage_move(old, new, &migrators.new, sink);
    contracts(old, new, claimed_contracts, sink);
}

/// A version the new CRD drops, where objects may still be stored. `status.storedVersions`
/// says which versions hold objects, but only a CRD read from a cluster carries it; without
/// it, every version of the previous CRD may (an unserved one too: objects stored while it was
/// the storage version stay in it until rewritten).
fn removed_versions(
    old: &Crd<'_>,
    new: &Crd<'_>,
    pairing: &Pairing,
    old_migrator: &Migrator<'_>,
    sink: &mut Sink,
) {
    let stored = old.stored_versions();
    if !stored.is_empty() {
        // The cluster's own record, where there is one.
        for name in stored.into_iter().filter(|n| new.version(n).is_none()) {
            sink.finding(
                &rules::STORED_VERSION_REMOVED,
                new.file,
                new.versions_node(),
                format!(
                    "{}: version {name} is in the old CRD's status.storedVersions and not in the new CRD",
                    new.name
                ),
            )
            .with_field(version_field(name));
        }
        return;
    }
    let storage = old.storage().map(|v| v.name);
    for (version, _) in old
        .versions
        .iter()
        .zip(&pairing.old_to_new)
        .filter(|(_, j)| j.is_none())
    {
        let name = version.name;
        let message = if storage == Some(name) {
            format!(
                "{}: version {name}, the previous release's storage version, was removed from spec.versions: objects are stored in it, so the API server refuses the new CRD (`status.storedVersions` lists {name}) and `clusterctl upgrade` stops after the old controllers are gone. Make another version the storage version in one release, let its manager run Cluster API's CRD migrator, and remove {name} in a later release",
                new.name
            )
        } else if old_migrator.runs_for(old.name) {
            continue;
        } else {
            let was = if version.served {
                "served"
            } else {
                "unserved but present"
            };
            format!(
                "{}: version {name} ({was} in the previous release) was removed from spec.versions, but objects may still be stored in it and nothing moved them: in the previous release {}, and `clusterctl upgrade` no longer migrates provider CRDs (since v1.10). The API server refuses the new CRD while `status.storedVersions` lists {name}. Keep {name} in spec.versions (`served: false`) until a release whose manager runs the CRD migrator has been out, or tell users in the release notes how to migrate storage with kubectl before upgrading",
                new.name,
                old_migrator.why_not(old.name)
            )
        };
        sink.finding(
            &rules::VERSION_REMOVED_WITHOUT_MIGRATOR,
            new.file,
            new.versions_node(),
            message,
        )
        .with_field(version_field(name));
    }
}

/// The versions of two CRDs matched by name, found in one pass over both sorted indexes:
/// `old_to_new[i]` is where old version `i` is in the new CRD (a repeated name matches the
/// other side's first).
struct Pairing {
    old_to_new: Vec<Option<usize>>,
    new_to_old: Vec<Option<usize>>,
}

impl Pairing {
    fn of(old: &Crd<'_>, new: &Crd<'_>) -> Self {
        let mut pairing = Pairing {
            old_to_new: vec![None; old.versions.len()],
            new_to_old: vec![None; new.versions.len()],
        };
        /// The `at`-th version by name: its place and name.
        fn name<'a>(crd: &Crd<'a>, at: usize) -> Option<(usize, &'a str)> {
            let &i = crd.index.get(at)?;
            Some((i as usize, crd.versions.get(i as usize)?.name))
        }
        let (mut a, mut b) = (0, 0);
        while let (Some((i, x)), Some((j, y))) = (name(old, a), name(new, b)) {
            match x.cmp(y) {
                std::cmp::Ordering::Less => a += 1,
                std::cmp::Ordering::Greater => b += 1,
                std::cmp::Ordering::Equal => {
                    while let Some((k, _)) = name(old, a).filter(|(_, n)| *n == x) {
                        pairing.old_to_new[k] = Some(j);
                        a += 1;
                    }
                    while let Some((k, _)) = name(new, b).filter(|(_, n)| *n == y) {
                        pairing.new_to_old[k] = Some(i);
                        b += 1;
                    }
                }
            }
        }
        pairing
    }
}

/// The change a schema difference shows as.
fn as_change(what: &str, delta: &Delta<'_>) -> Change {
    let subject = format!("CRD {what} {}", delta.path);
    match delta.what.as_str() {
        schema::FIELD_ADDED => Change::bare(ChangeKind::Added, Section::Crds, subject),
        schema::FIELD_REMOVED => Change::bare(ChangeKind::Removed, Section::Crds, subject),
        _ => Change::described(Section::Crds, subject, delta.what.clone()),
    }
}

/// The rules in the order their findings are shown: what surely makes existing objects invalid
/// first (a newly required field, another type), then lost data, then narrowed values, then
/// changes capkg cannot judge.
const SPECIFICITY: [&Rule; 11] = [
    &rules::REQUIRED_ADDED,
    &rules::TYPE_CHANGED,
    &rules::FIELD_REMOVED,
    &rules::ENUM_NARROWED,
    &rules::MINIMUM_RAISED,
    &rules::MAXIMUM_LOWERED,
    &rules::PATTERN_CHANGED,
    &rules::NULLABLE_CHANGED,
    &rules::ONE_OF_CHANGED,
    &rules::DEFAULT_CHANGED,
    &rules::SCHEMA_CHANGED,
];

/// Most specific first: by [`SPECIFICITY`], then the deeper property (it names the field),
/// then by path.
fn most_specific_first(a: &Delta<'_>, b: &Delta<'_>) -> std::cmp::Ordering {
    let rank = |d: &Delta<'_>| {
        d.rule
            .and_then(|r| SPECIFICITY.iter().position(|s| s.id == r.id))
            .unwrap_or(SPECIFICITY.len())
    };
    let depth = |d: &Delta<'_>| d.path.matches(['.', '[']).count();
    rank(a)
        .cmp(&rank(b))
        .then_with(|| depth(b).cmp(&depth(a)))
        .then_with(|| a.path.cmp(&b.path))
}

/// crdify's served-version check: with no webhook, served versions must be compatible (lower
/// to higher), except for incompatibilities the old CRD had too, without a webhook. A removed
/// webhook exposes them all.
///
/// Served versions are compared with their neighbour in Kubernetes' order, not every pair with
/// every other: every incompatibility between two versions shows between some two neighbours
/// (a limit lowered from A to C is lowered from A to B or from B to C), and the cost stays
/// linear in the versions. One finding per pair: the differences are one cause (no webhook),
/// listed most specific first.
fn served_pairs<'a>(old: &Crd<'_>, new: &Crd<'a>, sink: &mut Sink) {
    if new.converts_by_webhook() {
        return;
    }
    let known: HashSet<(String, String, &'static str)> = if old.converts_by_webhook() {
        HashSet::new()
    } else {
        neighbour_problems(old)
            .into_iter()
            .flat_map(|(pair, deltas)| {
                let pair = pair.to_string();
                deltas
                    .into_iter()
                    .filter_map(move |d| Some((pair.clone(), d.path, d.rule?.id)))
            })
            .collect()
    };
    let why = if old.converts_by_webhook() {
        "the previous release converted them with a webhook, this one has none"
    } else {
        "there is no conversion webhook"
    };
    for (pair, deltas) in neighbour_problems(new) {
        let pair_text = pair.to_string();
        let mut deltas: Vec<Delta<'a>> = deltas
            .into_iter()
            .filter(|d| {
                d.rule.is_some_and(|rule| {
                    !known.contains(&(pair_text.clone(), d.path.clone(), rule.id))
                })
            })
            .collect();
        if deltas.is_empty() {
            continue;
        }
        deltas.sort_by(most_specific_first);
        let listed: Vec<String> = deltas
            .iter()
            .map(|d| format!("{} ({}, {})", d.path, d.what, d.rule.map_or("", |r| r.id)))
            .collect();
        let count = match deltas.len() {
            1 => "at".to_string(),
            n => format!("in {n} places:"),
        };
        let first = &deltas[0];
        let diagnostic = sink.finding(
            &rules::SERVED_VERSIONS_INCOMPATIBLE,
            new.file,
            first.at,
            format!(
                "{}: served versions {pair_text} differ, and {why}; objects written in one cannot be read or updated through the other. They differ {count} {}",
                new.name,
                listed.join("; ")
            ),
        );
        // One finding for the pair: a waiver names the version the difference appears in.
        diagnostic.with_field(version_field(pair.high));
        for delta in &deltas[1..] {
            diagnostic.with_label(
                crate::rules::head(delta.at.span()),
                format!("{}: {}", delta.path, delta.what),
            );
        }
    }
}

/// Two served versions side by side.
struct Pair<'v> {
    low: &'v str,
    high: &'v str,
}

impl std::fmt::Display for Pair<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} -> {}", self.low, self.high)
    }
}

/// Each served version against the next one up: the incompatible differences, per pair.
fn neighbour_problems<'a, 'c>(crd: &'c Crd<'a>) -> Vec<(Pair<'a>, Vec<Delta<'a>>)> {
    let mut served: Vec<&'c Version<'a>> = crd.served().collect();
    served.sort_by(|a, b| kube_order(a.name, b.name));
    served
        .windows(2)
        .filter_map(|pair| {
            let (low, high) = (pair[0], pair[1]);
            let deltas: Vec<Delta<'a>> = schema::compare(low.schema?, high.schema?)
                .into_iter()
                .filter(|d| d.rule.is_some())
                .collect();
            (!deltas.is_empty()).then_some((
                Pair {
                    low: low.name,
                    high: high.name,
                },
                deltas,
            ))
        })
        .collect()
}

fn storage_move<'a>(old: &Crd<'_>, new: &Crd<'a>, migrator: &Migrator<'_>, sink: &mut Sink) {
    let (Some(before), Some(after)) = (old.storage(), new.storage()) else {
        return;
    };
    if before.name == after.name {
        return;
    }
    // Objects stored in a version with the same schema read back fine without a webhook.
    let compatible = !new.converts_by_webhook()
        && new
            .version(before.name)
            .and_then(|v| {
                Some(schema::compatible(&schema::compare(
                    v.schema?,
                    after.schema?,
                )))
            })
            .unwrap_or(false);
    if compatible || migrator.runs_for(new.name) {
        return;
    }
    sink.finding(
        &rules::STORAGE_WITHOUT_MIGRATOR,
        new.file,
        after.node,
        format!(
            "{}: the storage version moved from {} to {}, and {}",
            new.name,
            before.name,
            after.name,
            migrator.why_not(new.name)
        ),
    )
    .with_field(version_field(after.name));
}

fn contracts<'a>(old: &Crd<'_>, new: &Crd<'a>, claimed: &[&str], sink: &mut Sink) {
    let new_labels = new.contract_labels();
    for (contract, old_value) in old.contract_labels() {
        if !claimed.contains(&contract) {
            continue;
        }
        let Some((_, value)) = new_labels.iter().find(|(c, _)| *c == contract) else {
            sink.finding(
                &rules::CONTRACT_DROPPED,
                new.file,
                new.anchor(),
                format!(
                    "{}: the label {CONTRACT_LABEL_PREFIX}{contract} ({old_value}) is gone, and this release implements contract {contract} (metadata.yaml)",
                    new.name
                ),
            )
            .with_field(contract_field(contract));
            continue;
        };
        if old_value != *value {
            sink.change(Change::new(
                Section::Crds,
                format!("CRD {} label {CONTRACT_LABEL_PREFIX}{contract}", new.name),
                Some(old_value.to_string()),
                Some(value.to_string()),
            ));
        }
        // Only what this release breaks: a label that named an unserved version before is
        // lint's concern, not the upgrade's.
        let served_highest = |crd: &Crd<'_>, value: &str| {
            value
                .split('_')
                .max_by(|a, b| kube_order(a, b))
                .is_none_or(|highest| crd.version(highest).is_some_and(|v| v.served))
        };
        let highest = value.split('_').max_by(|a, b| kube_order(a, b));
        if let Some(highest) = highest
            && served_highest(old, old_value)
            && !served_highest(new, value)
        {
            sink.finding(
                &rules::CONTRACT_DROPPED,
                new.file,
                new.anchor(),
                format!(
                    "{}: {highest}, the highest version its label {CONTRACT_LABEL_PREFIX}{contract} names, is not served, and this release implements contract {contract} (metadata.yaml)",
                    new.name
                ),
            )
            .with_field(contract_field(contract));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(versions: &[&str]) -> ReleaseFile {
        let mut text = "kind: CustomResourceDefinition\nmetadata:\n  name: x\nspec:\n  versions:\n"
            .to_string();
        for v in versions {
            text.push_str(&format!("  - name: {v}\n"));
        }
        crate::files::load_text(
            "c.yaml",
            text,
            crate::provider::FileRole::Components {
                provider_type: crate::provider::ProviderType::Infrastructure,
                suffix: None,
            },
        )
    }

    #[test]
    fn versions_pair_by_name_in_one_pass_repeated_names_with_the_first() {
        let (a, b) = (
            crd(&["v2", "v1", "v3", "v1"]),
            crd(&["v4", "v1", "v3", "v3"]),
        );
        fn object(f: &ReleaseFile) -> Object<'_> {
            f.yaml.roots().next().and_then(Object::new).expect("a CRD")
        }
        let (old, new) = (
            Crd::new(&a, object(&a)).expect("old"),
            Crd::new(&b, object(&b)).expect("new"),
        );
        let pairing = Pairing::of(&old, &new);
        assert_eq!(pairing.old_to_new, [None, Some(1), Some(2), Some(1)]);
        assert_eq!(pairing.new_to_old, [None, Some(1), Some(2), Some(2)]);
        assert_eq!(
            new.version("v3").map(|v| v.node.span()),
            Some(new.versions[2].node.span())
        );
        assert!(new.version("v2").is_none());
    }

    #[test]
    fn versions_sort_as_kubernetes_sorts_them() {
        let mut names = vec!["v1", "v1beta2", "v1alpha1", "v2", "v1beta1", "foo"];
        names.sort_by(|a, b| kube_order(a, b));
        assert_eq!(names, ["v1alpha1", "v1beta1", "v1beta2", "v1", "v2", "foo"]);
    }
}
