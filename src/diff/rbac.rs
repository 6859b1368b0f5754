//! RBAC as a set of (apiGroup, resource, verb) permissions, over every Role and ClusterRole of
//! the components; and what it says about Cluster API's CRD migrator.

use std::collections::{BTreeMap, BTreeSet};

use super::crd::Migrator;
use super::{Change, Section, Sink};
use crate::files::Release;
use crate::k8s::Object;
use crate::rules::Context;
use crate::rules::upgrade as rules;
use crate::yaml::Node;

/// `(apiGroup, resource) -> verbs`.
type Permissions = BTreeMap<(String, String), BTreeSet<String>>;

fn texts(node: Option<&Node>) -> Vec<&str> {
    node.map(Node::items)
        .unwrap_or(&[])
        .iter()
        .filter_map(Node::scalar_text)
        .collect()
}

fn roles(release: &Release) -> impl Iterator<Item = Object<'_>> {
    Context::objects_in(release.components())
        .map(|(_, object)| object)
        .filter(|o| o.is_kind("ClusterRole") || o.is_kind("Role"))
}

/// Every rule of every role, as `(rule node)`.
fn rules_of(release: &Release) -> impl Iterator<Item = &Node> {
    roles(release).flat_map(|role| role.root.get("rules").map(Node::items).unwrap_or(&[]))
}

fn permissions(release: &Release) -> Permissions {
    let mut out = Permissions::new();
    for rule in rules_of(release) {
        let verbs = texts(rule.get("verbs"));
        for group in texts(rule.get("apiGroups")) {
            for resource in texts(rule.get("resources")) {
                out.entry((group.to_string(), resource.to_string()))
                    .or_default()
                    .extend(verbs.iter().map(|v| v.to_string()));
            }
        }
    }
    out
}

/// Whether `new` grants `verb` on `(group, resource)`, wildcards included: four lookups, so the
/// comparison stays linear in the rules.
fn grants(new: &Permissions, group: &str, resource: &str, verb: &str) -> bool {
    [group, "*"].iter().any(|g| {
        [resource, "*"].iter().any(|r| {
            new.get(&(g.to_string(), r.to_string()))
                .is_some_and(|verbs| verbs.contains(verb) || verbs.contains("*"))
        })
    })
}

/// An API group as people name it: `core` for the empty one (`apiGroups: [""]`).
pub(crate) fn group_name(group: &str) -> &str {
    if group.is_empty() { "core" } else { group }
}

fn show(group: &str, resource: &str) -> String {
    format!("{} {resource}", group_name(group))
}

pub(crate) fn compare(old: &Release, new: &Release, sink: &mut Sink) {
    let (before, after) = (permissions(old), permissions(new));
    let components = new.components().next();
    for ((group, resource), verbs) in &before {
        let now = after.get(&(group.clone(), resource.clone()));
        if now != Some(verbs) {
            let join = |v: &BTreeSet<String>| v.iter().cloned().collect::<Vec<_>>().join(",");
            sink.change(Change::new(
                Section::Rbac,
                show(group, resource),
                Some(join(verbs)),
                now.map(join),
            ));
        }
        let removed: Vec<&str> = verbs
            .iter()
            .filter(|v| !grants(&after, group, resource, v))
            .map(String::as_str)
            .collect();
        if !removed.is_empty() {
            sink.on_file(
                &rules::RBAC_REMOVED,
                components,
                &new.dir,
                format!(
                    "the controllers may no longer {} {} (apiGroup {})",
                    removed.join(", "),
                    resource,
                    if group.is_empty() {
                        "`\"\"`, the core group".to_string()
                    } else {
                        format!("`{group}`")
                    }
                ),
            )
            .with_field(format!(
                "rules[{}/{resource}]",
                if group.is_empty() { "core" } else { group }
            ));
        }
    }
    for ((group, resource), verbs) in &after {
        if !before.contains_key(&(group.clone(), resource.clone())) {
            let verbs = verbs.iter().cloned().collect::<Vec<_>>().join(",");
            sink.change(Change::new(
                Section::Rbac,
                show(group, resource),
                None,
                Some(verbs),
            ));
        }
    }
}

const CRDS: &str = "customresourcedefinitions";
const CRD_STATUS: &str = "customresourcedefinitions/status";
/// The manager flag that turns phases of Cluster API's CRD migrator off.
const SKIP_PHASES_FLAG: &str = "--skip-crd-migration-phases";

/// Which CRDs the manager may migrate, from its RBAC and flags.
pub(crate) fn migrator(release: &Release) -> Migrator<'_> {
    let mut writable = Vec::new();
    let mut status_writable = Vec::new();
    for rule in rules_of(release) {
        let groups = texts(rule.get("apiGroups"));
        let resources = texts(rule.get("resources"));
        let verbs = texts(rule.get("verbs"));
        let applies = groups
            .iter()
            .any(|g| *g == "apiextensions.k8s.io" || *g == "*")
            && verbs.iter().any(|v| matches!(*v, "patch" | "update" | "*"));
        if !applies {
            continue;
        }
        let names = texts(rule.get("resourceNames"));
        let granted: Vec<Option<&str>> = if names.is_empty() {
            vec![None]
        } else {
            names.into_iter().map(Some).collect()
        };
        if resources.iter().any(|r| *r == CRDS || *r == "*") {
            writable.extend(granted.iter().copied());
        }
        if resources.iter().any(|r| *r == CRD_STATUS || *r == "*") {
            status_writable.extend(granted);
        }
    }
    let storage_phase_skipped = Context::objects_in(release.components()).any(|(_, object)| {
        object.containers().any(|container| {
            let args = texts(container.node.get("args"));
            args.iter().enumerate().any(|(i, arg)| {
                let value = match arg.strip_prefix(SKIP_PHASES_FLAG) {
                    Some(rest) if rest.starts_with('=') => Some(&rest[1..]),
                    Some("") => args.get(i + 1).copied(),
                    _ => None,
                };
                value.is_some_and(|v| v.contains("StorageVersionMigration"))
            })
        })
    });
    Migrator {
        writable,
        status_writable,
        storage_phase_skipped,
    }
}
