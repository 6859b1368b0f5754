//! `clusterclass/…`: ClusterClass files (`clusterclass-<name>.yaml`).
//!
//! clusterctl finds a ClusterClass file by the class name a Cluster uses and renders it with the
//! class's namespace as the target namespace, forcing every object into it.

use super::{CLUSTERCTL_CONTRACT, Reference, Rule, Severity};
use crate::files::ReleaseFile;
use crate::k8s::{self, Object};
use crate::provider::FileRole;
use crate::yaml::{Node, Value};

pub(super) const RULES: &[&Rule] = &[&NAME, &REFERENCE_NAMESPACE, &OBJECT_NAMESPACE, &VARIABLES];

const NAMING: Reference = Reference {
    title: "clusterctl provider contract, \"ClusterClass definitions\" > \"Naming conventions\"",
    url: CLUSTERCTL_CONTRACT,
};

const NAMESPACE: Reference = Reference {
    title: "clusterctl provider contract, \"ClusterClass definitions\" > \"Target namespace\"",
    url: CLUSTERCTL_CONTRACT,
};

const VARIABLES_REFERENCE: Reference = Reference {
    title: "clusterctl provider contract, \"ClusterClass definitions\" > \"Defining variables\"",
    url: CLUSTERCTL_CONTRACT,
};

fn objects(file: &ReleaseFile) -> impl Iterator<Item = Object<'_>> {
    file.yaml.roots().filter_map(Object::new)
}

fn class_name_of(file: &ReleaseFile) -> Option<&str> {
    match &file.role {
        FileRole::ClusterClass { name } => Some(name),
        _ => None,
    }
}

pub(super) static NAME: Rule = Rule {
    id: "clusterclass/name",
    severity: Severity::Error,
    summary: "`clusterclass-<name>.yaml` does not hold a ClusterClass called `<name>`",
    explanation: "clusterctl fetches `clusterclass-<class>.yaml` for a Cluster whose topology uses \
        `<class>`, and the ClusterClass in it must be that class: a file named after one class \
        holding another (or none) leaves the Cluster pointing at a class that never gets created.",
    help: "rename the file or the ClusterClass so they match",
    reference: NAMING,
    check: |cx, findings| {
        for file in cx.release.cluster_classes() {
            let Some(expected) = class_name_of(file) else {
                continue;
            };
            let classes: Vec<Object<'_>> = objects(file)
                .filter(|o| o.is_kind("ClusterClass"))
                .collect();
            if classes.is_empty() {
                if !file.yaml.documents.is_empty() && file.yaml.errors.is_empty() {
                    findings.on_file(file, format!("no ClusterClass object; the file name promises ClusterClass `{expected}`"));
                }
                continue;
            }
            if classes.iter().any(|c| c.name() == Some(expected)) {
                continue;
            }
            for class in classes {
                let name = class.name().unwrap_or("(unnamed)");
                if super::is_variable(file, class.anchor()) {
                    continue;
                }
                findings.at_node(
                    file,
                    class.anchor(),
                    format!("ClusterClass `{name}` is in `{}`, which clusterctl fetches for class `{expected}`", file.file_name()),
                );
            }
        }
    },
};

/// Mappings inside `node` that look like object references (`kind` and `name`) and have a
/// `namespace` key; returns the namespace entries' keys.
fn namespaced_references(node: &Node) -> Vec<&Node> {
    let mut found = Vec::new();
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match node.value() {
            Value::Mapping(map) => {
                if map.get("kind").is_some()
                    && map.get("name").is_some()
                    && let Some((key, value)) = map.entry("namespace")
                    && !value.is_null()
                {
                    found.push(key);
                }
                for (_, value) in &map.entries {
                    stack.push(value);
                }
            }
            Value::Sequence(items) => stack.extend(items),
            Value::Scalar { .. } => {}
        }
    }
    found.sort_by_key(|n| n.span().start);
    found
}

pub(super) static REFERENCE_NAMESPACE: Rule = Rule {
    id: "clusterclass/reference-namespace",
    severity: Severity::Error,
    summary: "a ClusterClass template reference sets a namespace",
    explanation: "A ClusterClass and the templates it references live in one namespace, the one \
        clusterctl renders the class into. The contract says references must not set a \
        namespace: one that does points at a namespace the templates are never created in.",
    help: "remove `namespace` from the reference",
    reference: NAMESPACE,
    check: |cx, findings| {
        for file in cx.release.cluster_classes() {
            for class in objects(file).filter(|o| o.is_kind("ClusterClass")) {
                let Some(spec) = class.root.get("spec") else {
                    continue;
                };
                for key in namespaced_references(spec) {
                    findings.at_node(
                        file,
                        key,
                        format!(
                            "a template reference in ClusterClass `{}` sets a namespace",
                            class.name().unwrap_or("?")
                        ),
                    );
                }
            }
        }
    },
};

pub(super) static OBJECT_NAMESPACE: Rule = Rule {
    id: "clusterclass/object-namespace",
    severity: Severity::Warning,
    summary: "an object in a ClusterClass file sets a namespace",
    explanation: "clusterctl renders a ClusterClass file with the class's namespace as the target \
        namespace and forces every object into it, so a namespace written in the file is \
        overwritten by clusterctl and wrong for anyone applying the file directly.",
    help: "remove `metadata.namespace` from the objects",
    reference: NAMESPACE,
    check: |cx, findings| {
        for file in cx.release.cluster_classes() {
            for object in objects(file) {
                if !object.kind().is_some_and(k8s::is_namespaced) {
                    continue;
                }
                // `${NAMESPACE}` follows the target namespace; `clusterclass/variables` reports it.
                if let Some((_, value)) = object.namespace_entry()
                    && !value.is_null()
                    && !super::is_variable(file, value)
                {
                    findings.at_node(
                        file,
                        value,
                        format!(
                            "{} sets namespace `{}`",
                            super::describe(file, &object),
                            value.scalar_text().unwrap_or("?")
                        ),
                    );
                }
            }
        }
    },
};

pub(super) static VARIABLES: Rule = Rule {
    id: "clusterclass/variables",
    severity: Severity::Warning,
    summary: "a ClusterClass file uses `${VAR}` placeholders",
    explanation: "The contract says ClusterClass files SHOULD NOT use variables: a ClusterClass is \
        shared by many Clusters, so per-cluster values belong in the ClusterClass's own \
        `variables` and patches, set from each Cluster's topology. clusterctl substitutes them \
        anyway, once, when the class is first installed.",
    help: "replace the placeholder with a ClusterClass variable and a patch",
    reference: VARIABLES_REFERENCE,
    check: |cx, findings| {
        for file in cx.release.cluster_classes() {
            // A malformed expression is `variables/syntax`'s to report.
            let Some(Ok(inventory)) = cx.inventory(file) else {
                continue;
            };
            // One finding per variable, at its first use.
            for variable in inventory.variables.values() {
                let span = crate::yaml::Span::new(variable.span.start, variable.span.end);
                findings.at(
                    file,
                    span,
                    format!(
                        "`{}` is a clusterctl variable in a ClusterClass file",
                        file.source().slice(span)
                    ),
                );
            }
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    const CLASS: &str = "apiVersion: cluster.x-k8s.io/v1beta2\nkind: ClusterClass\nmetadata:\n  name: quick-start\nspec:\n  infrastructure:\n    templateRef:\n      apiVersion: infrastructure.cluster.x-k8s.io/v1beta2\n      kind: DockerClusterTemplate\n      name: quick-start-cluster\n";
    const FILE: &str = "clusterclass-quick-start.yaml";

    #[test]
    fn name() {
        assert!(check_files(&NAME, &[(FILE, CLASS)]).is_empty());
        let found = check_files(&NAME, &[("clusterclass-other.yaml", CLASS)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (4, 9));
        assert!(found[0].message.contains("`quick-start`"));
        assert!(found[0].message.contains("class `other`"));
        let found = check_files(
            &NAME,
            &[(FILE, "kind: DockerClusterTemplate\nmetadata:\n  name: x\n")],
        );
        assert!(found[0].message.contains("no ClusterClass"));
    }

    #[test]
    fn reference_namespace() {
        assert!(check_files(&REFERENCE_NAMESPACE, &[(FILE, CLASS)]).is_empty());
        let bad = format!("{CLASS}      namespace: default\n");
        let found = check_files(&REFERENCE_NAMESPACE, &[(FILE, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (11, 7));
        assert!(found[0].message.contains("`quick-start`"));
    }

    #[test]
    fn object_namespace() {
        assert!(check_files(&OBJECT_NAMESPACE, &[(FILE, CLASS)]).is_empty());
        let bad = CLASS.replace(
            "  name: quick-start\n",
            "  name: quick-start\n  namespace: default\n",
        );
        let found = check_files(&OBJECT_NAMESPACE, &[(FILE, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (5, 14));
        assert_eq!(found[0].severity, Severity::Warning);
    }

    #[test]
    fn variables() {
        assert!(
            check_files(&VARIABLES, &[(FILE, &format!("{CLASS}# $${{ESCAPED}}\n"))]).is_empty()
        );
        let bad = CLASS.replace("quick-start-cluster", "${CLUSTER_NAME}-cluster");
        let found = check_files(&VARIABLES, &[(FILE, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (10, 13));
        assert!(found[0].message.contains("`${CLUSTER_NAME}`"));
    }
}
