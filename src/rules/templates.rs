//! `templates/…`: cluster templates (`cluster-template[-flavor].yaml`) as `clusterctl generate
//! cluster` uses them.
//!
//! clusterctl substitutes the template's variables, forces every namespaced object into the
//! target namespace, and, for each Cluster with a managed topology, fetches
//! `clusterclass-<class>.yaml` from the same release and renders it in.

use super::{CLUSTERCTL_CONTRACT, Reference, Rule, Severity};
use crate::files::ReleaseFile;
use crate::k8s::{self, Object};
use crate::yaml::Node;

pub(super) const RULES: &[&Rule] = &[&SINGLE_NAMESPACE, &CLUSTERCLASS_FILE];

const TEMPLATE_NAMESPACE: Reference = Reference {
    title: "clusterctl provider contract, \"Workload cluster templates\" > \"Target namespace\"",
    url: CLUSTERCTL_CONTRACT,
};

const CLUSTERCLASS_NAMING: Reference = Reference {
    title: "clusterctl provider contract, \"ClusterClass definitions\" > \"Naming conventions\"",
    url: CLUSTERCTL_CONTRACT,
};

fn objects(file: &ReleaseFile) -> impl Iterator<Item = Object<'_>> {
    file.yaml.roots().filter_map(Object::new)
}

/// Where a namespaced template object goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Placement<'a> {
    /// No namespace, or a `${…}` placeholder: the target namespace.
    Target,
    /// A namespace written into the template.
    Fixed(&'a str),
}

fn placement<'a>(file: &ReleaseFile, object: &Object<'a>) -> Placement<'a> {
    let Some((_, value)) = object.namespace_entry() else {
        return Placement::Target;
    };
    // A file loaded with its placeholders substituted holds their defaults; the source text
    // at the value says whether a variable was written there.
    let written = file.source().slice(value.span());
    match object.namespace() {
        Some(ns) if !ns.is_empty() && !ns.contains("${") && !written.contains("${") => {
            Placement::Fixed(ns)
        }
        _ => Placement::Target,
    }
}

pub(super) static SINGLE_NAMESPACE: Rule = Rule {
    id: "templates/single-namespace",
    severity: Severity::Warning,
    summary: "a cluster template puts objects in different namespaces",
    explanation: "All objects of a cluster template belong in one namespace, normally the target \
        namespace the user picks (`${NAMESPACE}`, or no namespace at all). clusterctl forces every \
        namespaced object into the target namespace, so an object with a hard-coded namespace \
        different from the rest is either silently moved (and its references break) or, for \
        anyone applying the template another way, created somewhere else. A warning, not an \
        error: `clusterctl generate cluster` moves every namespaced object of a template into the \
        target namespace, so the template works through clusterctl and breaks only users who \
        apply it directly (`kubectl apply -f` after `envsubst`).",
    help: "remove the hard-coded namespace, or use `${NAMESPACE}` like the other objects; `clusterctl generate cluster` moves every namespaced object into the target namespace, so only users who apply the template directly are affected",
    reference: TEMPLATE_NAMESPACE,
    check: |cx, findings| {
        for file in cx.release.cluster_templates() {
            let namespaced: Vec<Object<'_>> = objects(file)
                .filter(|o| o.kind().is_some_and(k8s::is_namespaced))
                .collect();
            let mut groups: Vec<(Placement<'_>, usize)> = Vec::new();
            for object in &namespaced {
                let p = placement(file, object);
                match groups.iter_mut().find(|(g, _)| *g == p) {
                    Some((_, count)) => *count += 1,
                    None => groups.push((p, 1)),
                }
            }
            if groups.len() < 2 {
                continue;
            }
            // The norm: the largest group; the target namespace wins ties.
            let norm = groups
                .iter()
                .max_by_key(|(p, count)| (*count, *p == Placement::Target))
                .map(|(p, _)| p.clone())
                .unwrap_or(Placement::Target);
            let norm_text = match &norm {
                Placement::Target => "the target namespace (`${NAMESPACE}` or none)".to_string(),
                Placement::Fixed(ns) => format!("namespace `{ns}`"),
            };
            for object in &namespaced {
                let p = placement(file, object);
                if p == norm {
                    continue;
                }
                let (node, message) = match p {
                    Placement::Fixed(ns) => (
                        object.namespace_entry().map_or(object.anchor(), |(_, v)| v),
                        format!(
                            "{} is in namespace `{ns}` while the other objects use {norm_text}",
                            super::describe(file, object)
                        ),
                    ),
                    Placement::Target => (
                        object.anchor(),
                        format!(
                            "{} uses the target namespace while the other objects use {norm_text}",
                            super::describe(file, object)
                        ),
                    ),
                };
                findings.at_node(file, node, message);
            }
        }
    },
};

/// The ClusterClass a Cluster names: `spec.topology.classRef.name` (v1beta2) or
/// `spec.topology.class` (v1beta1).
pub(crate) fn class_reference<'a>(object: &Object<'a>) -> Option<&'a Node> {
    let topology = object.root.path(&["spec", "topology"])?;
    topology
        .path(&["classRef", "name"])
        .or_else(|| topology.get("class"))
}

pub(super) static CLUSTERCLASS_FILE: Rule = Rule {
    id: "templates/clusterclass-file",
    severity: Severity::Error,
    summary: "a Cluster uses a ClusterClass whose `clusterclass-<name>.yaml` is not in the release",
    explanation: "For each Cluster with a managed topology, `clusterctl generate cluster` fetches \
        `clusterclass-<class>.yaml` from the same release and fails when it is missing (unless the \
        class already exists in the management cluster). A ClusterClass defined inside the \
        template does not help: clusterctl still looks for the file. When the class name is a \
        variable the file cannot be checked, which is reported as a warning.",
    help: "ship the ClusterClass as `clusterclass-<class>.yaml` in the same release",
    reference: CLUSTERCLASS_NAMING,
    check: |cx, findings| {
        for file in cx.release.cluster_templates() {
            let defined: Vec<&str> = objects(file)
                .filter(|o| o.is_kind("ClusterClass"))
                .filter_map(|o| o.name())
                .collect();
            for object in objects(file).filter(|o| o.is_kind("Cluster")) {
                let Some(node) = class_reference(&object) else {
                    continue;
                };
                let Some(class) = node.scalar_text() else {
                    continue;
                };
                if super::is_variable(file, node) {
                    let class = file.source().slice(node.span());
                    findings
                        .at_node(
                            file,
                            node,
                            format!(
                                "{} takes its ClusterClass from a variable (`{class}`), so the release cannot be checked for its `clusterclass-<name>.yaml`",
                                super::describe(file, &object)
                            ),
                        )
                        .with_severity(Severity::Warning)
                        .with_help("make sure every class users may choose ships as `clusterclass-<name>.yaml`");
                    continue;
                }
                let expected = format!("clusterclass-{class}.yaml");
                if cx.release.file_named(&expected).is_some() {
                    continue;
                }
                let mut message = format!(
                    "{} uses ClusterClass `{class}`, but `{expected}` is not in the release",
                    super::describe(file, &object)
                );
                if defined.contains(&class) {
                    message.push_str("; defining it inside the template does not help, clusterctl still fetches the file");
                }
                findings.at_node(file, node, message);
            }
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    const CLUSTER: &str = "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata:\n  name: ${CLUSTER_NAME}\n  namespace: ${NAMESPACE}\nspec:\n  topology:\n    classRef:\n      name: quick-start\n";

    #[test]
    fn single_namespace() {
        let good = format!(
            "{CLUSTER}---\nkind: DockerMachineTemplate\nmetadata:\n  name: a\n---\nkind: ClusterRole\nmetadata:\n  name: r\n  namespace: elsewhere\n"
        );
        assert!(check_files(&SINGLE_NAMESPACE, &[("cluster-template.yaml", &good)]).is_empty());
        let bad = format!(
            "{CLUSTER}---\nkind: DockerMachineTemplate\nmetadata:\n  name: a\n---\nkind: Secret\nmetadata:\n  name: s\n  namespace: default\n"
        );
        let found = check_files(&SINGLE_NAMESPACE, &[("cluster-template.yaml", &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "templates/single-namespace");
        assert_eq!(at(&found[0]), (18, 14));
        assert!(found[0].message.contains("Secret `s`"));
        assert!(found[0].message.contains("`default`"));
        // A template that parses only after substitution keeps `${NAMESPACE}` as the target.
        let substituted = format!(
            "{CLUSTER}  files: [${{FILES}}]\n---\nkind: Secret\nmetadata:\n  name: s\n  namespace: '${{NAMESPACE}}'\n"
        );
        let found = check_files(
            &SINGLE_NAMESPACE,
            &[("cluster-template.yaml", &substituted)],
        );
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn clusterclass_file() {
        let class = "apiVersion: cluster.x-k8s.io/v1beta2\nkind: ClusterClass\nmetadata:\n  name: quick-start\n";
        assert!(
            check_files(
                &CLUSTERCLASS_FILE,
                &[
                    ("cluster-template.yaml", CLUSTER),
                    ("clusterclass-quick-start.yaml", class)
                ]
            )
            .is_empty()
        );
        let found = check_files(&CLUSTERCLASS_FILE, &[("cluster-template.yaml", CLUSTER)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (9, 13));
        assert!(found[0].message.contains("`clusterclass-quick-start.yaml`"));
        assert_eq!(found[0].severity, Severity::Error);
        let inline = format!("{CLUSTER}---\n{class}");
        let found = check_files(&CLUSTERCLASS_FILE, &[("cluster-template.yaml", &inline)]);
        assert!(found[0].message.contains("inside the template"));
        let v1beta1 = "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: c\nspec:\n  topology:\n    class: ${CLUSTER_CLASS_NAME}\n";
        let found = check_files(&CLUSTERCLASS_FILE, &[("cluster-template.yaml", v1beta1)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(at(&found[0]), (7, 12));
    }
}
