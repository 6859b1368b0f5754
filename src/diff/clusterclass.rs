//! One ClusterClass against its previous version, as Cluster API judges an updated class: its
//! variables (removed, made required, their `schema.openAPIV3Schema` narrowed, by the CRD schema
//! checks of [`super::schema`]), its worker classes, and the templates it references. Both shapes
//! are read: `cluster.x-k8s.io/v1beta1` (`ref`, `workers.machineDeployments[].template.…`) and
//! `v1beta2` (`templateRef`, `workers.machineDeployments[].infrastructure`), so a class moved from
//! one to the other is compared field by field, not reported as rewritten.

use std::collections::BTreeMap;

use super::{Change, ChangeKind, Section, Sink, schema};
use crate::files::ReleaseFile;
use crate::k8s::Object;
use crate::rules::Rule;
use crate::rules::upgrade as rules;
use crate::yaml::Node;
use crate::yaml::resolve::Resolved;

/// Schema keywords that describe a value without validating it: a change to them is listed, never
/// a finding (`description` is not even listed, as for CRDs).
const NOT_VALIDATING: [&str; 4] = ["example", "x-metadata", "title", "externalDocs"];

/// A scalar as the maintainer wrote it: a file loaded with its placeholders substituted holds
/// their defaults, so its source text decides (`${CLUSTER_CLASS_NAME}` stays as written).
pub(crate) fn written<'a>(file: &'a ReleaseFile, node: &'a Node) -> &'a str {
    if file.substituted {
        file.source()
            .slice(node.span())
            .trim()
            .trim_matches(['\'', '"'])
    } else {
        node.scalar_text().unwrap_or_default()
    }
}

/// A ClusterClass object in a ClusterClass file or a cluster template.
pub(crate) struct Class<'a> {
    pub file: &'a ReleaseFile,
    pub object: Object<'a>,
}

impl<'a> Class<'a> {
    /// The ClusterClasses of `file`, in document order.
    pub(crate) fn all_in(file: &'a ReleaseFile) -> Vec<Class<'a>> {
        file.yaml
            .roots()
            .filter_map(Object::new)
            .filter(|o| o.is_kind("ClusterClass"))
            .map(|object| Class { file, object })
            .collect()
    }

    /// `metadata.name` as written.
    pub(crate) fn name(&self) -> &'a str {
        self.object
            .root
            .path(&["metadata", "name"])
            .map(|n| written(self.file, n))
            .unwrap_or_default()
    }

    /// `ClusterClass quick-start`, with the template it is in when that is not its own file.
    pub(crate) fn subject(&self) -> String {
        match self.file.role {
            crate::provider::FileRole::ClusterClass { .. } => {
                format!("ClusterClass {}", self.name())
            }
            _ => format!("ClusterClass {} in {}", self.name(), self.file.file_name()),
        }
    }

    fn spec(&self, keys: &[&str]) -> Option<&'a Node> {
        self.object.root.get("spec")?.path(keys)
    }

    /// Where to point for something the class no longer has: the key of `spec.<keys>`, else
    /// the class's name.
    fn at(&self, keys: &[&str]) -> &'a Node {
        let mut path = vec!["spec"];
        path.extend_from_slice(keys);
        self.object
            .root
            .path_entry(&path)
            .map(|(key, _)| key)
            .unwrap_or_else(|| self.object.anchor())
    }

    fn variables(&self) -> BTreeMap<&'a str, Variable<'a>> {
        self.spec(&["variables"])
            .map(Node::items)
            .unwrap_or_default()
            .iter()
            .filter_map(|entry| {
                let name = entry.get("name").map(|n| written(self.file, n))?;
                Some((
                    name,
                    Variable {
                        entry,
                        required: entry.get("required"),
                        schema: entry.path(&["schema", "openAPIV3Schema"]),
                    },
                ))
            })
            .collect()
    }

    /// `machineDeployment default-worker` -> the class's node, for MachineDeployment and
    /// MachinePool classes.
    fn worker_classes(&self) -> BTreeMap<String, &'a Node> {
        let mut out = BTreeMap::new();
        for (pool, key) in [
            ("machineDeployment", "machineDeployments"),
            ("machinePool", "machinePools"),
        ] {
            for class in self
                .spec(&["workers", key])
                .map(Node::items)
                .unwrap_or_default()
            {
                if let Some(name) = class.get("class").map(|n| written(self.file, n)) {
                    out.insert(format!("{pool} {name}"), class);
                }
            }
        }
        out
    }

    /// Every template reference by its place (`infrastructure`, `machineDeployment
    /// default-worker bootstrap`), with whether Cluster API's compatibility checks hold its
    /// group and kind (bootstrap templates may change kind).
    fn templates(&self) -> BTreeMap<String, (TemplateRef<'a>, bool)> {
        let mut out = BTreeMap::new();
        let mut add = |place: String, holder: Option<&'a Node>, checked: bool| {
            if let Some(reference) = holder.and_then(|h| TemplateRef::of(self.file, h)) {
                out.insert(place, (reference, checked));
            }
        };
        add(
            "infrastructure".into(),
            self.spec(&["infrastructure"]),
            true,
        );
        add("controlPlane".into(), self.spec(&["controlPlane"]), true);
        add(
            "controlPlane machineInfrastructure".into(),
            self.spec(&["controlPlane", "machineInfrastructure"]),
            true,
        );
        for (worker, class) in self.worker_classes() {
            // v1beta1 nests the templates under `template`.
            let template = class.get("template").unwrap_or(class);
            add(
                format!("{worker} infrastructure"),
                template.get("infrastructure"),
                true,
            );
            add(
                format!("{worker} bootstrap"),
                template.get("bootstrap"),
                false,
            );
        }
        out
    }
}

/// An entry of `spec.variables`.
struct Variable<'a> {
    entry: &'a Node,
    required: Option<&'a Node>,
    schema: Option<&'a Node>,
}

impl Variable<'_> {
    fn is_required(&self) -> bool {
        self.required
            .is_some_and(|n| matches!(n.resolve(), Some(Resolved::Bool(true))))
    }

    fn shown(&self) -> &'static str {
        if self.is_required() {
            "required"
        } else {
            "optional"
        }
    }
}

/// A template reference: `ref` (v1beta1) or `templateRef` (v1beta2).
struct TemplateRef<'a> {
    api_version: &'a str,
    kind: &'a str,
    name: &'a str,
    /// The node to point at: the kind, else the reference.
    at: &'a Node,
}

impl<'a> TemplateRef<'a> {
    fn of(file: &'a ReleaseFile, holder: &'a Node) -> Option<Self> {
        let reference = holder.get("templateRef").or_else(|| holder.get("ref"))?;
        let field = |key: &str| {
            reference
                .get(key)
                .map(|n| written(file, n))
                .unwrap_or_default()
        };
        Some(TemplateRef {
            api_version: field("apiVersion"),
            kind: field("kind"),
            name: field("name"),
            at: reference.get("kind").unwrap_or(reference),
        })
    }

    fn group(&self) -> &'a str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }

    fn shown(&self) -> String {
        format!("{} {} ({})", self.kind, self.name, self.api_version)
    }
}

/// `old` against `new`, the same class in two releases.
pub(crate) fn compare(old: &Class<'_>, new: &Class<'_>, sink: &mut Sink) {
    let subject = new.subject();
    if let (Some(before), Some(after)) = (old.object.api_version(), new.object.api_version())
        && before != after
    {
        sink.change(Change::new(
            Section::Templates,
            subject.clone(),
            Some(before.to_string()),
            Some(after.to_string()),
        ));
    }
    variables(old, new, &subject, sink);
    let removed_workers = worker_classes(old, new, &subject, sink);
    templates(old, new, &subject, &removed_workers, sink);
}

fn variables(old: &Class<'_>, new: &Class<'_>, subject: &str, sink: &mut Sink) {
    let (before, after) = (old.variables(), new.variables());
    for (name, was) in &before {
        let what = format!("{subject} variable {name}");
        let Some(now) = after.get(name) else {
            sink.change(Change::new(
                Section::Templates,
                what.clone(),
                Some(was.shown().into()),
                None,
            ));
            sink.finding(
                &rules::CLUSTERCLASS_VARIABLE_REMOVED,
                new.file,
                new.at(&["variables"]),
                format!(
                    "{what} is gone: Clusters that set it are no longer reconciled, and manifests that set it are refused"
                ),
            )
            .with_field(variable_field(name));
            continue;
        };
        if now.is_required() && !was.is_required() {
            sink.change(Change::new(
                Section::Templates,
                what.clone(),
                Some("optional".into()),
                Some("required".into()),
            ));
            sink.finding(
                &rules::CLUSTERCLASS_VARIABLE_REQUIRED,
                new.file,
                now.required.unwrap_or(now.entry),
                format!(
                    "{what} is now required: Clusters that do not set it are no longer reconciled"
                ),
            )
            .with_field(variable_field(name));
        } else if was.is_required() && !now.is_required() {
            sink.change(Change::new(
                Section::Templates,
                what.clone(),
                Some("required".into()),
                Some("optional".into()),
            ));
        }
        if let (Some(a), Some(b)) = (was.schema, now.schema) {
            schema_changes(a, b, new.file, (&what, name), sink);
        }
    }
    for (name, now) in &after {
        if before.contains_key(name) {
            continue;
        }
        let what = format!("{subject} variable {name}");
        sink.change(Change::new(
            Section::Templates,
            what.clone(),
            None,
            Some(now.shown().into()),
        ));
        if now.is_required() {
            sink.finding(
                &rules::CLUSTERCLASS_VARIABLE_REQUIRED,
                new.file,
                now.required.unwrap_or(now.entry),
                format!(
                    "{what} is new and required: Clusters created for the previous release do not set it and are no longer reconciled"
                ),
            )
            .with_field(variable_field(name));
        }
    }
}

/// The field of a ClusterClass variable (a waiver's `field`).
fn variable_field(name: &str) -> String {
    format!("spec.variables[{name}]")
}

/// The schema checks CRDs get, each difference listed; those that refuse values Clusters may
/// hold are findings, except a changed default and keywords that do not validate.
fn schema_changes(
    old: &Node,
    new: &Node,
    file: &ReleaseFile,
    (what, variable): (&str, &str),
    sink: &mut Sink,
) {
    for delta in schema::compare(old, new) {
        // The schema's root is the variable itself: `bastion.spec.flavor`, not `^.spec.flavor`.
        let line = format!("{what}{}", delta.path.trim_start_matches('^'));
        sink.change(Change::described(
            Section::Templates,
            line.clone(),
            delta.what.clone(),
        ));
        if let Some(rule) = delta.rule.filter(|rule| narrows(rule, &delta.what)) {
            sink.finding(
                &rules::CLUSTERCLASS_VARIABLE_NARROWED,
                file,
                delta.at,
                format!(
                    "{line}: {} (as `{}` judges CRDs): Clusters whose value the new schema refuses are no longer reconciled",
                    delta.what, rule.id
                ),
            )
            .with_field(format!(
                "{}.schema.openAPIV3Schema{}",
                variable_field(variable),
                delta.path.trim_start_matches('^')
            ));
        }
    }
}

/// True when a schema difference [`schema::compare`] flags can refuse a value a Cluster holds.
fn narrows(rule: &Rule, what: &str) -> bool {
    if std::ptr::eq(rule, &rules::DEFAULT_CHANGED) {
        return false;
    }
    // Any other keyword's change reads `keyword: old -> new`.
    let keyword = what.split_once(':').map_or(what, |(keyword, _)| keyword);
    !(std::ptr::eq(rule, &rules::SCHEMA_CHANGED) && NOT_VALIDATING.contains(&keyword))
}

/// Worker classes removed (findings) and added; returns the removed ones.
fn worker_classes(old: &Class<'_>, new: &Class<'_>, subject: &str, sink: &mut Sink) -> Vec<String> {
    let (before, after) = (old.worker_classes(), new.worker_classes());
    let mut removed = Vec::new();
    for worker in before.keys() {
        if after.contains_key(worker) {
            continue;
        }
        let what = format!("{subject} {worker}");
        sink.change(Change::bare(
            ChangeKind::Removed,
            Section::Templates,
            what.clone(),
        ));
        let key = if worker.starts_with("machinePool") {
            "machinePools"
        } else {
            "machineDeployments"
        };
        sink.finding(
            &rules::CLUSTERCLASS_WORKER_CLASS_REMOVED,
            new.file,
            new.at(&["workers", key]),
            format!(
                "{what} is gone: the update is refused while Clusters use it, and manifests that name it are refused"
            ),
        )
        .with_field(format!(
            "spec.workers.{key}[{}]",
            worker.split_once(' ').map_or(worker.as_str(), |(_, name)| name)
        ));
        removed.push(worker.clone());
    }
    for worker in after.keys() {
        if !before.contains_key(worker) {
            sink.change(Change::bare(
                ChangeKind::Added,
                Section::Templates,
                format!("{subject} {worker}"),
            ));
        }
    }
    removed
}

fn templates(
    old: &Class<'_>,
    new: &Class<'_>,
    subject: &str,
    removed_workers: &[String],
    sink: &mut Sink,
) {
    let (before, after) = (old.templates(), new.templates());
    for (place, (was, _)) in &before {
        let what = format!("{subject} {place}");
        let Some((now, checked)) = after.get(place) else {
            // A removed worker class took its templates with it.
            if removed_workers.iter().any(|worker| {
                place
                    .strip_prefix(worker.as_str())
                    .is_some_and(|rest| rest.starts_with(' '))
            }) {
                continue;
            }
            sink.change(Change::new(
                Section::Templates,
                what.clone(),
                Some(was.shown()),
                None,
            ));
            sink.finding(
                &rules::CLUSTERCLASS_TEMPLATE_INCOMPATIBLE,
                new.file,
                new.object.anchor(),
                format!(
                    "{what} no longer references a template (was {})",
                    was.shown()
                ),
            );
            continue;
        };
        if was.shown() == now.shown() {
            continue;
        }
        // A new API version of the same template is the common case: show just that.
        let (shown_was, shown_now) = if (was.kind, was.name) == (now.kind, now.name) {
            (was.api_version.to_string(), now.api_version.to_string())
        } else {
            (was.shown(), now.shown())
        };
        sink.change(Change::new(
            Section::Templates,
            what.clone(),
            Some(shown_was),
            Some(shown_now),
        ));
        let changed = match (was.group() != now.group(), was.kind != now.kind) {
            (false, false) => continue,
            (false, true) => format!("kind {} -> {}", was.kind, now.kind),
            (true, false) => format!("API group {} -> {}", was.group(), now.group()),
            (true, true) => format!(
                "{}/{} -> {}/{}",
                was.group(),
                was.kind,
                now.group(),
                now.kind
            ),
        };
        if *checked {
            sink.finding(
                &rules::CLUSTERCLASS_TEMPLATE_INCOMPATIBLE,
                new.file,
                now.at,
                format!(
                    "{what} changed {changed}: Cluster API refuses the updated class, and a rebase onto it"
                ),
            );
        }
    }
    for (place, (now, _)) in &after {
        if !before.contains_key(place) {
            sink.change(Change::new(
                Section::Templates,
                format!("{subject} {place}"),
                None,
                Some(now.shown()),
            ));
        }
    }
}

#[cfg(test)]
mod tests;
