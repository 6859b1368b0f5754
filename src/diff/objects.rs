//! The components' objects as the API server identifies them, and what changed in one of them.
//!
//! An object is group, kind, name and, for a namespaced kind, namespace: a cluster-scoped object
//! (one of clusterctl's sixteen kinds, or a kind a CRD of either release declares `scope:
//! Cluster`) is matched without its namespace, which the API server ignores. What changed in a
//! matched object is listed field by field: mappings key by key, lists of named items (containers,
//! env, ports, webhooks, CRD versions) item by item, lists of plain values (args) value by value,
//! never the whole object. Parts another section reports in full are left to it: a CRD's
//! versions and schemas (CRDs), roles' rules (RBAC), container images (Images).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::{self, Write as _};

use super::{Change, ChangeKind, Section};
use crate::files::{Release, ReleaseFile};
use crate::k8s::{self, Object};
use crate::rules::Context;
use crate::yaml::json_value::JsonValue;
use crate::yaml::resolve::Resolved;
use crate::yaml::{Mapping, Node};

/// How the API server tells objects apart (the API version aside: one object, many versions).
/// Ordered for reading: kind, namespace, name, then group.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Identity<'a> {
    pub kind: &'a str,
    /// `None` for a cluster-scoped kind, whatever `metadata.namespace` says.
    pub namespace: Option<&'a str>,
    pub name: &'a str,
    pub group: &'a str,
}

impl fmt::Display for Identity<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.namespace {
            Some(ns) => write!(f, "{} {ns}/{}", self.kind, self.name),
            None => write!(f, "{} {}", self.kind, self.name),
        }
    }
}

/// One object of a release.
pub(crate) struct Entry<'a> {
    pub file: &'a ReleaseFile,
    pub object: Object<'a>,
}

pub(crate) type Objects<'a> = BTreeMap<Identity<'a>, Entry<'a>>;

/// The `(group, kind)` pairs CRDs of the releases declare cluster-scoped.
pub(crate) fn cluster_scoped_kinds<'a>(releases: &[&'a Release]) -> HashSet<(&'a str, &'a str)> {
    releases
        .iter()
        .flat_map(|release| Context::objects_in(release.components()))
        .filter(|(_, o)| o.is_kind("CustomResourceDefinition"))
        .filter(|(_, o)| o.root.path_str(&["spec", "scope"]) == Some("Cluster"))
        .filter_map(|(_, o)| {
            Some((
                o.root.path_str(&["spec", "group"])?,
                o.root.path_str(&["spec", "names", "kind"])?,
            ))
        })
        .collect()
}

/// The components' objects by identity.
pub(crate) fn objects<'a>(
    release: &'a Release,
    cluster_scoped: &HashSet<(&str, &str)>,
) -> Objects<'a> {
    Context::objects_in(release.components())
        .map(|(file, object)| {
            let kind = object.kind().unwrap_or("(no kind)");
            let group = object.group();
            let namespaced = k8s::is_namespaced(kind) && !cluster_scoped.contains(&(group, kind));
            let identity = Identity {
                kind,
                namespace: object.namespace().filter(|_| namespaced),
                name: object.name().unwrap_or("(unnamed)"),
                group,
            };
            (identity, Entry { file, object })
        })
        .collect()
}

/// Structural equality, as the API server sees objects: key order, YAML style and scalars'
/// spelling (`1.0` and `1`, `"true"` quoted or not where both are strings) aside. Walks both
/// trees once, without copying them; what it cannot judge node by node (merge keys, tags,
/// repeated keys) it judges as clusterctl's JSON values.
pub(crate) fn same(a: &Node, b: &Node) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        if a.tag().is_some() || b.tag().is_some() {
            if !same_as_json(a, b) {
                return false;
            }
            continue;
        }
        match (
            a.as_mapping(),
            b.as_mapping(),
            a.as_sequence(),
            b.as_sequence(),
        ) {
            (Some(x), Some(y), _, _) => {
                let (true, Some(y_keys)) = (Keys::of(x).is_some(), Keys::of(y)) else {
                    if !same_as_json(a, b) {
                        return false;
                    }
                    continue;
                };
                if x.len() != y.len() {
                    return false;
                }
                for (key, _, value) in x.iter() {
                    match y_keys.get(y, key) {
                        Some(other) => stack.push((value, other)),
                        None => return false,
                    }
                }
            }
            (_, _, Some(x), Some(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y));
            }
            (None, None, None, None) => {
                if !same_scalar(a, b) {
                    return false;
                }
            }
            _ => return false,
        }
    }
    true
}

fn same_as_json(a: &Node, b: &Node) -> bool {
    match (JsonValue::from_node(a), JsonValue::from_node(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a.value() == b.value(),
    }
}

/// Two scalars as JSON values: every number a float64, strings by their text.
fn same_scalar(a: &Node, b: &Node) -> bool {
    let number = |r: &Resolved| match r {
        Resolved::Int(i) => Some(*i as f64),
        Resolved::Float(f) => Some(*f),
        _ => None,
    };
    match (a.resolve(), b.resolve()) {
        (Some(x), Some(y)) => match (number(&x), number(&y)) {
            (Some(m), Some(n)) => m == n,
            _ => match (&x, &y) {
                (Resolved::Str | Resolved::Timestamp, Resolved::Str | Resolved::Timestamp) => {
                    a.scalar_text() == b.scalar_text()
                }
                _ => x == y,
            },
        },
        _ => false,
    }
}

/// A mapping's plain keys, for lookups: `None` when a key is not a plain scalar, repeats, or is
/// the merge key (those mappings are compared as JSON values).
struct Keys<'m> {
    /// Only for mappings long enough that searching costs more than hashing.
    index: Option<HashMap<&'m str, &'m Node>>,
}

/// Mappings up to this many entries are searched; longer ones hashed.
const HASH_FROM: usize = 16;

impl<'m> Keys<'m> {
    fn of(mapping: &'m Mapping) -> Option<Self> {
        let plain = |key: &'m Node| -> Option<&'m str> {
            let text = key.scalar_text()?;
            (key.tag().is_none() && !matches!(key.resolve(), Some(Resolved::Merge))).then_some(text)
        };
        if mapping.len() <= HASH_FROM {
            // Repeated keys found by looking back: cheaper than a table for a few keys.
            for (i, (key, _)) in mapping.entries.iter().enumerate() {
                let text = plain(key)?;
                if mapping.entries[..i]
                    .iter()
                    .any(|(k, _)| k.scalar_text() == Some(text))
                {
                    return None;
                }
            }
            return Some(Keys { index: None });
        }
        let mut index: HashMap<&'m str, &'m Node> = HashMap::with_capacity(mapping.len());
        for (key, value) in mapping.entries.iter() {
            if index.insert(plain(key)?, value).is_some() {
                return None;
            }
        }
        Some(Keys { index: Some(index) })
    }

    fn get(&self, mapping: &'m Mapping, key: &str) -> Option<&'m Node> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            None => mapping.get(key),
        }
    }
}

/// One step of a field's path.
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    /// An item of a list of named items, by name; a flag of a list of arguments.
    Named(&'a str),
    /// An item of a list of unnamed items of the same length on both sides.
    Index(usize),
}

/// A field's path as a reviewer reads it: `containers[manager].args`,
/// `metadata.annotations[controller-gen.kubebuilder.io/version]`.
fn show_path(path: &[Step<'_>]) -> String {
    let mut text = String::new();
    for step in path {
        match step {
            Step::Key(key) if key.contains(['.', '/', ' ', '[']) || key.is_empty() => {
                text.push('[');
                text.push_str(key);
                text.push(']');
            }
            Step::Key(key) => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(key);
            }
            Step::Named(name) => {
                text.push('[');
                text.push_str(name);
                text.push(']');
            }
            Step::Index(i) => {
                let _ = write!(text, "[{i}]");
            }
        }
    }
    text
}

/// What a part of an object is, as the detail line shows it: a scalar's text, a small
/// collection as compact JSON; `None` for a larger one (the line says added, removed or changed,
/// and no more: never a dump).
fn show_value(node: &Node) -> Option<String> {
    const SHORT: usize = 100;
    if let Some(text) = node.scalar_text() {
        return Some(text.to_string());
    }
    if node.count_nodes() > 24 {
        return None;
    }
    let text = super::schema::text(&JsonValue::from_node(node).ok()?);
    (text.len() <= SHORT).then_some(text)
}

/// Which parts of an object the field list leaves to other sections, and how its paths read.
struct Scope {
    kind_is_crd: bool,
    is_role: bool,
    /// `spec.template.spec` of a workload, shown as the pod spec's own fields.
    pod_spec_prefix: bool,
}

impl Scope {
    fn of(kind: &str) -> Self {
        Scope {
            kind_is_crd: kind == "CustomResourceDefinition",
            is_role: kind == "ClusterRole" || kind == "Role",
            pod_spec_prefix: matches!(
                kind,
                "Deployment" | "DaemonSet" | "StatefulSet" | "ReplicaSet" | "Job"
            ),
        }
    }

    /// True for a part another section reports (or identity, which matched already).
    fn skips(&self, path: &[Step<'_>]) -> bool {
        use Step::{Key, Named};
        match path {
            [Key("metadata"), Key("namespace")] | [Key("status"), ..] => true,
            [Key("rules"), ..] => self.is_role,
            [Key("metadata"), Key("labels"), Key(label)] => {
                self.kind_is_crd && label.starts_with("cluster.x-k8s.io/v")
            }
            [Key("spec"), Key("scope")] | [Key("spec"), Key("conversion"), Key("strategy")] => {
                self.kind_is_crd
            }
            [Key("spec"), Key("versions"), rest @ ..] => {
                self.kind_is_crd
                    && matches!(
                        rest,
                        [
                            Named(_),
                            Key("served" | "storage" | "deprecated" | "schema"),
                            ..
                        ]
                    )
            }
            [
                ..,
                Key("containers" | "initContainers" | "ephemeralContainers"),
                Named(_),
                Key("image"),
            ] => true,
            _ => false,
        }
    }

    /// True for an added or removed part another section reports: [`Scope::skips`], and a
    /// CRD's versions as a whole.
    fn skips_whole(&self, path: &[Step<'_>]) -> bool {
        self.skips(path)
            || (self.kind_is_crd
                && matches!(
                    path,
                    [Step::Key("spec"), Step::Key("versions")]
                        | [Step::Key("spec"), Step::Key("versions"), Step::Named(_)]
                ))
    }

    /// Where the parts this object's field list leaves out are shown.
    fn elsewhere(&self) -> Option<&'static str> {
        if self.kind_is_crd {
            Some("versions and schemas under CRDs")
        } else if self.is_role {
            Some("rules under RBAC")
        } else if self.pod_spec_prefix {
            Some("images under Images")
        } else {
            None
        }
    }

    fn show(&self, path: &[Step<'_>]) -> String {
        use Step::Key;
        match path {
            [Key("spec"), Key("template"), Key("spec"), rest @ ..]
                if self.pod_spec_prefix && !rest.is_empty() =>
            {
                show_path(rest)
            }
            _ => show_path(path),
        }
    }
}

/// Where the changes of an object of `kind` that its field list leaves out are shown, for a
/// changed object with no field of its own changed.
pub(crate) fn shown_elsewhere(kind: &str) -> Option<&'static str> {
    Scope::of(kind).elsewhere()
}

/// The fields that differ between two versions of an object of `kind`, as changes of
/// `subject`: a changed value `old -> new`, an added or removed part with what it holds, a list
/// of plain values by the values added and removed.
pub(crate) fn field_changes(
    subject: &str,
    kind: &str,
    old: &Node,
    new: &Node,
    section: Section,
) -> Vec<Change> {
    let scope = Scope::of(kind);
    let mut out = Vec::new();
    let mut path = Vec::new();
    walk(old, new, &mut path, &scope, &mut |path, kind, old, new| {
        out.push(Change {
            field: Some(scope.show(path)),
            change: kind,
            ..Change::new(section, subject.to_string(), old, new)
        });
    });
    out
}

type Emit<'e> = dyn FnMut(&[Step<'_>], ChangeKind, Option<String>, Option<String>) + 'e;

fn walk<'a>(
    old: &'a Node,
    new: &'a Node,
    path: &mut Vec<Step<'a>>,
    scope: &Scope,
    emit: &mut Emit<'_>,
) {
    if scope.skips(path) {
        return;
    }
    match (
        old.as_mapping(),
        new.as_mapping(),
        old.as_sequence(),
        new.as_sequence(),
    ) {
        (Some(x), Some(y), _, _) => match (Keys::of(x), Keys::of(y)) {
            (Some(x_keys), Some(y_keys)) => {
                for (key, _, value) in x.iter() {
                    path.push(Step::Key(key));
                    match y_keys.get(y, key) {
                        Some(other) => walk(value, other, path, scope, emit),
                        None if !scope.skips_whole(path) => {
                            emit(path, ChangeKind::Removed, show_value(value), None)
                        }
                        None => {}
                    }
                    path.pop();
                }
                for (key, _, value) in y.iter() {
                    if x_keys.get(x, key).is_none() {
                        path.push(Step::Key(key));
                        if !scope.skips_whole(path) {
                            emit(path, ChangeKind::Added, None, show_value(value));
                        }
                        path.pop();
                    }
                }
            }
            _ => whole(old, new, path, emit),
        },
        (_, _, Some(x), Some(y)) => list(x, y, old, new, path, scope, emit),
        _ => {
            if !same(old, new) {
                whole(old, new, path, emit);
            }
        }
    }
}

fn whole(old: &Node, new: &Node, path: &[Step<'_>], emit: &mut Emit<'_>) {
    if !same(old, new) {
        let (before, after) = (show_value(old), show_value(new));
        let shown = before.is_some() && after.is_some();
        emit(
            path,
            ChangeKind::Changed,
            before.filter(|_| shown),
            after.filter(|_| shown),
        );
    }
}

/// A list's items by name when every item is a mapping with a distinct scalar `name`.
fn named(items: &[Node]) -> Option<HashMap<&str, &Node>> {
    let mut index = HashMap::with_capacity(items.len());
    for item in items {
        if index
            .insert(item.get("name")?.scalar_text()?, item)
            .is_some()
        {
            return None;
        }
    }
    Some(index)
}

fn list<'a>(
    x: &'a [Node],
    y: &'a [Node],
    old: &'a Node,
    new: &'a Node,
    path: &mut Vec<Step<'a>>,
    scope: &Scope,
    emit: &mut Emit<'_>,
) {
    let name_of = |item: &'a Node| item.get("name").and_then(Node::scalar_text).unwrap_or("");
    let named_alike = x.len() == y.len()
        && x.iter().zip(y).all(|(a, b)| {
            let name = a.get("name").and_then(Node::scalar_text);
            name.is_some() && name == b.get("name").and_then(Node::scalar_text)
        });
    if named_alike {
        // The same names in the same order (the usual case): side by side, without a table.
        for (a, b) in x.iter().zip(y) {
            path.push(Step::Named(name_of(a)));
            walk(a, b, path, scope, emit);
            path.pop();
        }
        return;
    }
    if let (Some(x_index), Some(y_index)) = (named(x), named(y)) {
        for item in x {
            let name = name_of(item);
            path.push(Step::Named(name));
            match y_index.get(name) {
                Some(other) => walk(item, other, path, scope, emit),
                None if !scope.skips_whole(path) => {
                    emit(path, ChangeKind::Removed, show_value(item), None)
                }
                None => {}
            }
            path.pop();
        }
        for item in y {
            let name = name_of(item);
            if !x_index.contains_key(name) {
                path.push(Step::Named(name));
                if !scope.skips_whole(path) {
                    emit(path, ChangeKind::Added, None, show_value(item));
                }
                path.pop();
            }
        }
        return;
    }
    let plain = |items: &[Node]| items.iter().all(|i| i.scalar_text().is_some());
    if plain(x) && plain(y) {
        if x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b)) {
            return;
        }
        let texts = |items: &'a [Node]| -> Vec<&'a str> {
            items.iter().filter_map(Node::scalar_text).collect()
        };
        values(&texts(x), &texts(y), path, emit);
        return;
    }
    if x.len() == y.len() && !scope.skips_whole(path) {
        // Unnamed items (a webhook's rules), side by side.
        for (i, (a, b)) in x.iter().zip(y).enumerate() {
            path.push(Step::Index(i));
            walk(a, b, path, scope, emit);
            path.pop();
        }
        return;
    }
    if !scope.skips_whole(path) {
        whole(old, new, path, emit);
    }
}

/// A list of plain values (arguments, verbs, versions): what went and what came; a flag given
/// another value (`--v=2` to `--v=4`) is one change of `[--v]`, a comma-separated value by the
/// items that went and came; one value for another, one change.
fn values<'a>(
    before: &[&'a str],
    after: &[&'a str],
    path: &mut Vec<Step<'a>>,
    emit: &mut Emit<'_>,
) {
    let (in_before, in_after): (HashSet<&str>, HashSet<&str>) = (
        before.iter().copied().collect(),
        after.iter().copied().collect(),
    );
    let mut removed: Vec<&str> = before
        .iter()
        .copied()
        .filter(|v| !in_after.contains(v))
        .collect();
    let mut added: Vec<&str> = after
        .iter()
        .copied()
        .filter(|v| !in_before.contains(v))
        .collect();
    if removed.is_empty() && added.is_empty() {
        emit(
            path,
            ChangeKind::Changed,
            Some(format!("{} (order)", before.join(" "))),
            Some(after.join(" ")),
        );
        return;
    }
    let flag = |arg: &'a str| -> Option<&'a str> {
        arg.starts_with('-')
            .then(|| arg.split_once('=').map_or(arg, |(f, _)| f))
    };
    let mut i = 0;
    while i < removed.len() {
        let Some(name) = flag(removed[i]) else {
            i += 1;
            continue;
        };
        let Some(j) = added.iter().position(|a| flag(a) == Some(name)) else {
            i += 1;
            continue;
        };
        let (old, new) = (removed.remove(i), added.remove(j));
        let value = |arg: &'a str| arg.split_once('=').map_or("", |(_, v)| v);
        let (old, new) = (value(old), value(new));
        let (old, new) = if old.contains(',') && new.contains(',') {
            let (o, n): (HashSet<&str>, HashSet<&str>) =
                (old.split(',').collect(), new.split(',').collect());
            let went: Vec<&str> = old.split(',').filter(|v| !n.contains(v)).collect();
            let came: Vec<&str> = new.split(',').filter(|v| !o.contains(v)).collect();
            (went.join(","), came.join(","))
        } else {
            (old.to_string(), new.to_string())
        };
        path.push(Step::Named(name));
        emit(path, ChangeKind::Changed, Some(old), Some(new));
        path.pop();
    }
    if let ([old], [new]) = (removed.as_slice(), added.as_slice()) {
        emit(
            path,
            ChangeKind::Changed,
            Some(old.to_string()),
            Some(new.to_string()),
        );
        return;
    }
    for value in removed {
        emit(path, ChangeKind::Removed, Some(value.to_string()), None);
    }
    for value in added {
        emit(path, ChangeKind::Added, None, Some(value.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::schema::tests::node;

    fn lines(kind: &str, old: &str, new: &str) -> Vec<String> {
        field_changes("X", kind, &node(old), &node(new), Section::Objects)
            .iter()
            .map(|c| {
                format!(
                    "{:?} {}: {} -> {}",
                    c.change,
                    c.field.as_deref().unwrap_or(""),
                    c.old.as_deref().unwrap_or("-"),
                    c.new.as_deref().unwrap_or("-")
                )
            })
            .collect()
    }

    #[test]
    fn sameness_ignores_key_order_style_and_number_spelling() {
        assert!(same(
            &node("a: 1\nb: [x, z]\n"),
            &node("b: ['x', \"z\"]\na: 1.0\n")
        ));
        // YAML 1.1: a plain `y` is a boolean, a quoted one a string.
        assert!(!same(&node("b: [y]\n"), &node("b: [\"y\"]\n")));
        assert!(!same(&node("a: 1\n"), &node("a: '1'\n")));
        assert!(!same(&node("a: [x, y]\n"), &node("a: [y, x]\n")));
        assert!(!same(&node("a: 1\n"), &node("a: 1\nb: 2\n")));
        assert!(
            same(&node("a: true\n"), &node("a: yes\n")),
            "YAML 1.1 booleans"
        );
        // A long mapping is hashed, with the same answer.
        let long: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        let reversed: String = (0..40).rev().map(|i| format!("k{i}: {i}\n")).collect();
        assert!(same(&node(&long), &node(&reversed)));
        assert!(!same(
            &node(&long),
            &node(&reversed.replace("k7: 7", "k7: 8"))
        ));
    }

    #[test]
    fn a_deployment_lists_what_changed_in_its_containers_not_the_image() {
        let old = "spec:\n  replicas: 1\n  template:\n    spec:\n      serviceAccountName: a\n      containers:\n      - name: manager\n        image: x:1\n        args: [--leader-elect, --v=2]\n        env:\n        - name: A\n          value: one\n        resources:\n          limits: {cpu: 100m}\n        livenessProbe:\n          httpGet: {path: /healthz, port: 9440}\n";
        let new = old
            .replace("replicas: 1", "replicas: 2")
            .replace("serviceAccountName: a", "serviceAccountName: b")
            .replace("image: x:1", "image: x:2")
            .replace("--v=2]", "--v=4, --feature-gates=A=true]")
            .replace("value: one", "value: two")
            .replace("cpu: 100m", "cpu: 200m")
            .replace("port: 9440", "port: 9441");
        assert_eq!(
            lines("Deployment", old, &new),
            [
                "Changed spec.replicas: 1 -> 2",
                "Changed serviceAccountName: a -> b",
                "Changed containers[manager].args[--v]: 2 -> 4",
                "Added containers[manager].args: - -> --feature-gates=A=true",
                "Changed containers[manager].env[A].value: one -> two",
                "Changed containers[manager].resources.limits.cpu: 100m -> 200m",
                "Changed containers[manager].livenessProbe.httpGet.port: 9440 -> 9441",
            ]
        );
    }

    #[test]
    fn a_flag_with_a_list_value_shows_the_items_that_went_and_came() {
        let old = "args:\n- --feature-gates=A=true,B=false\n- --v=2\n";
        let new = "args:\n- --feature-gates=A=true,B=true,C=true\n- --v=2\n";
        assert_eq!(
            lines("Pod", old, new),
            ["Changed args[--feature-gates]: B=false -> B=true,C=true"]
        );
        assert_eq!(
            lines("Pod", "args: [a, b]\n", "args: [b, a]\n"),
            ["Changed args: a b (order) -> b a"]
        );
    }

    #[test]
    fn a_webhook_configuration_lists_each_webhooks_changes() {
        let old = "webhooks:\n- name: v.x.io\n  failurePolicy: Fail\n  sideEffects: None\n  timeoutSeconds: 10\n  rules:\n  - apiGroups: [x.io]\n    operations: [CREATE]\n  clientConfig:\n    service: {name: svc, namespace: ns, path: /validate}\n  namespaceSelector: {}\n";
        let new = old
            .replace("Fail", "Ignore")
            .replace("sideEffects: None", "sideEffects: NoneOnDryRun")
            .replace("timeoutSeconds: 10", "timeoutSeconds: 30")
            .replace("[CREATE]", "[CREATE, UPDATE]")
            .replace("name: svc", "name: svc2")
            .replace(
                "namespaceSelector: {}",
                "namespaceSelector: {matchLabels: {a: b}}",
            );
        assert_eq!(
            lines("ValidatingWebhookConfiguration", old, &new),
            [
                "Changed webhooks[v.x.io].failurePolicy: Fail -> Ignore",
                "Changed webhooks[v.x.io].sideEffects: None -> NoneOnDryRun",
                "Changed webhooks[v.x.io].timeoutSeconds: 10 -> 30",
                "Added webhooks[v.x.io].rules[0].operations: - -> UPDATE",
                "Changed webhooks[v.x.io].clientConfig.service.name: svc -> svc2",
                "Added webhooks[v.x.io].namespaceSelector.matchLabels: - -> {\"a\":\"b\"}",
            ]
        );
    }

    #[test]
    fn a_crd_leaves_its_versions_and_contract_labels_to_the_crd_section() {
        let old = "metadata:\n  annotations:\n    controller-gen.kubebuilder.io/version: v0.16.5\n  labels:\n    cluster.x-k8s.io/v1beta1: v1beta1\nspec:\n  scope: Namespaced\n  versions:\n  - name: v1beta1\n    served: true\n    schema: {openAPIV3Schema: {type: object}}\n    additionalPrinterColumns: []\n";
        let new = old
            .replace("v0.16.5", "v0.17.0")
            .replace("v1beta1: v1beta1", "v1beta1: v1beta1_v1beta2")
            .replace("served: true", "served: false")
            .replace("type: object", "type: string")
            .replace(
                "additionalPrinterColumns: []",
                "additionalPrinterColumns: [{name: Age}]",
            );
        assert_eq!(
            lines("CustomResourceDefinition", old, &new),
            [
                "Changed metadata.annotations[controller-gen.kubebuilder.io/version]: v0.16.5 -> v0.17.0",
                "Added spec.versions[v1beta1].additionalPrinterColumns[Age]: - -> {\"name\":\"Age\"}",
            ]
        );
    }
}
