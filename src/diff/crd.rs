//! A CustomResourceDefinition as an upgrade sees it: versions (served, storage, deprecated),
//! conversion, scope, contract labels; and the checks between an old and a new one.

use super::schema::{self, Delta};
use super::{Change, ChangeKind, Section, Sink};
use crate::files::ReleaseFile;
use crate::k8s::Object;
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
        let versions = object
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
        Some(Crd {
            file,
            object,
            name,
            versions,
        })
    }

    fn version(&self, name: &str) -> Option<&Version<'a>> {
        self.versions.iter().find(|v| v.name == name)
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
        let covers =
            |names: &[Option<&str>]| names.iter().any(|name| name.is_none_or(|n| n == crd));
        !self.storage_phase_skipped && covers(&self.writable) && covers(&self.status_writable)
    }
}

/// Everything that changed between two CRDs of the same name, and what it breaks.
pub(crate) fn compare<'a>(
    old: &Crd<'_>,
    new: &Crd<'a>,
    claimed_contracts: &[&str],
    migrator: &Migrator<'_>,
    sink: &mut Sink,
) {
    let subject = |rest: &str| format!("CRD {} {rest}", new.name);
    // Versions: state and removals.
    let mut names: Vec<&str> = old.versions.iter().map(|v| v.name).collect();
    names.extend(
        new.versions
            .iter()
            .map(|v| v.name)
            .filter(|n| old.version(n).is_none()),
    );
    for name in names {
        let (before, after) = (old.version(name), new.version(name));
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
            );
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
        );
    }
    for stored in old.stored_versions() {
        if new.version(stored).is_none() {
            sink.finding(
                &rules::STORED_VERSION_REMOVED,
                new.file,
                new.versions_node(),
                format!(
                    "{}: version {stored} is in the old CRD's status.storedVersions and not in the new CRD",
                    new.name
                ),
            );
        }
    }
    // The schema of each version in both.
    for after in &new.versions {
        let Some(before) = old.version(after.name) else {
            continue;
        };
        let (Some(old_schema), Some(new_schema)) = (before.schema, after.schema) else {
            continue;
        };
        for delta in schema::compare(old_schema, new_schema) {
            report_delta(new, &format!("{} {}", new.name, after.name), delta, sink);
        }
    }
    served_pairs(old, new, sink);
    storage_move(old, new, migrator, sink);
    contracts(old, new, claimed_contracts, sink);
}

fn report_delta<'a>(new: &Crd<'a>, what: &str, delta: Delta<'a>, sink: &mut Sink) {
    let subject = format!("CRD {what} {}", delta.path);
    sink.change(match delta.what.as_str() {
        schema::FIELD_ADDED => Change::bare(ChangeKind::Added, Section::Crds, subject),
        schema::FIELD_REMOVED => Change::bare(ChangeKind::Removed, Section::Crds, subject),
        _ => Change::described(Section::Crds, subject, delta.what.clone()),
    });
    if let Some(rule) = delta.rule {
        sink.finding(
            rule,
            new.file,
            delta.at,
            format!("{what} {}: {}", delta.path, delta.what),
        );
    }
}

/// crdify's served-version check: with no webhook, every pair of served versions must be
/// compatible (lower to higher), except for incompatibilities the old CRD had too, without a
/// webhook. A removed webhook exposes them all.
fn served_pairs<'a>(old: &Crd<'_>, new: &Crd<'a>, sink: &mut Sink) {
    if new.converts_by_webhook() {
        return;
    }
    let known: Vec<(String, &'static str)> = if old.converts_by_webhook() {
        Vec::new()
    } else {
        pair_problems(old)
            .into_iter()
            .filter_map(|(pair, d)| Some((format!("{pair} {}", d.path), d.rule?.id)))
            .collect()
    };
    for (pair, delta) in pair_problems(new) {
        let Some(rule) = delta.rule else { continue };
        let key = (format!("{pair} {}", delta.path), rule.id);
        if known.contains(&key) {
            continue;
        }
        let why = if old.converts_by_webhook() {
            "the previous release converted them with a webhook, this one has none"
        } else {
            "there is no conversion webhook"
        };
        sink.finding(
            &rules::SERVED_VERSIONS_INCOMPATIBLE,
            new.file,
            delta.at,
            format!(
                "{}: served versions {pair} differ at {} ({}, {}), and {why}",
                new.name, delta.path, delta.what, rule.id
            ),
        );
    }
}

fn pair_problems<'a>(crd: &Crd<'a>) -> Vec<(String, Delta<'a>)> {
    let mut served: Vec<&Version<'a>> = crd.served().collect();
    served.sort_by(|a, b| kube_order(a.name, b.name));
    let mut out = Vec::new();
    for (i, low) in served.iter().enumerate() {
        for high in &served[i + 1..] {
            let (Some(a), Some(b)) = (low.schema, high.schema) else {
                continue;
            };
            let pair = format!("{} -> {}", low.name, high.name);
            out.extend(
                schema::compare(a, b)
                    .into_iter()
                    .filter(|d| d.rule.is_some())
                    .map(|d| (pair.clone(), d)),
            );
        }
    }
    out
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
    let why = if migrator.storage_phase_skipped {
        "`--skip-crd-migration-phases` skips StorageVersionMigration"
    } else {
        "the manager may not patch the CRD and its `customresourcedefinitions/status`, so Cluster API's CRD migrator cannot run"
    };
    sink.finding(
        &rules::STORAGE_WITHOUT_MIGRATOR,
        new.file,
        after.node,
        format!(
            "{}: the storage version moved from {} to {}, and {why}",
            new.name, before.name, after.name
        ),
    );
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
            );
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
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_as_kubernetes_sorts_them() {
        let mut names = vec!["v1", "v1beta2", "v1alpha1", "v2", "v1beta1", "foo"];
        names.sort_by(|a, b| kube_order(a, b));
        assert_eq!(names, ["v1alpha1", "v1beta1", "v1beta2", "v1", "v2", "foo"]);
    }
}
