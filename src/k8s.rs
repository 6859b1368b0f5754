//! Kubernetes objects as clusterctl sees them: kind, group, name, namespace, labels, pod specs.
//!
//! clusterctl decides most things by `kind` alone (whether an object is namespaced, whether it is
//! a Namespace, which objects hold images), and this module keeps those decisions in one place so
//! that rules and the assembler agree with clusterctl and with each other.

use crate::yaml::{Mapping, Node};

/// The 16 kinds clusterctl treats as cluster-scoped (`IsResourceNamespaced`); every other kind is
/// namespaced, whatever its group or real scope.
pub const CLUSTER_SCOPED_KINDS: [&str; 16] = [
    "Namespace",
    "Node",
    "PersistentVolume",
    "PodSecurityPolicy",
    "CertificateSigningRequest",
    "ClusterRoleBinding",
    "ClusterRole",
    "VolumeAttachment",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "CustomResourceDefinition",
    "PriorityClass",
    "RuntimeClass",
];

/// True when clusterctl puts objects of this kind into the target namespace.
pub fn is_namespaced(kind: &str) -> bool {
    !CLUSTER_SCOPED_KINDS.contains(&kind)
}

/// The cert-manager annotation whose `<namespace>/<name>` value clusterctl rewrites.
pub const INJECT_CA_FROM: &str = "cert-manager.io/inject-ca-from";

/// A read-only view of one top-level object.
#[derive(Debug, Clone, Copy)]
pub struct Object<'a> {
    pub root: &'a Node,
}

impl<'a> Object<'a> {
    /// A view of a document root; `None` unless it is a mapping.
    pub fn new(root: &'a Node) -> Option<Object<'a>> {
        root.as_mapping().map(|_| Object { root })
    }

    pub fn kind(&self) -> Option<&'a str> {
        self.root.get("kind")?.scalar_text()
    }

    pub fn api_version(&self) -> Option<&'a str> {
        self.root.get("apiVersion")?.scalar_text()
    }

    /// The API group (`""` for the core group, as in `v1`).
    pub fn group(&self) -> &'a str {
        match self.api_version() {
            Some(v) => v.rsplit_once('/').map_or("", |(group, _)| group),
            None => "",
        }
    }

    pub fn name(&self) -> Option<&'a str> {
        self.root.path(&["metadata", "name"])?.scalar_text()
    }

    pub fn namespace(&self) -> Option<&'a str> {
        self.root
            .path(&["metadata", "namespace"])
            .filter(|n| !n.is_null())?
            .scalar_text()
    }

    /// The `metadata.namespace` entry (key and value), for positions.
    pub fn namespace_entry(&self) -> Option<&'a (Node, Node)> {
        self.root.path_entry(&["metadata", "namespace"])
    }

    pub fn metadata(&self) -> Option<&'a Node> {
        self.root.get("metadata")
    }

    pub fn labels(&self) -> Option<&'a Mapping> {
        self.root.path(&["metadata", "labels"])?.as_mapping()
    }

    pub fn annotations(&self) -> Option<&'a Mapping> {
        self.root.path(&["metadata", "annotations"])?.as_mapping()
    }

    pub fn label(&self, key: &str) -> Option<&'a Node> {
        self.labels()?.get(key)
    }

    pub fn annotation(&self, key: &str) -> Option<&'a Node> {
        self.annotations()?.get(key)
    }

    pub fn is_kind(&self, kind: &str) -> bool {
        self.kind() == Some(kind)
    }

    /// `Kind/name` (or `Kind` when unnamed) for messages.
    pub fn display(&self) -> String {
        match (self.kind(), self.name()) {
            (Some(kind), Some(name)) => format!("{kind} `{name}`"),
            (Some(kind), None) => format!("{kind} (unnamed)"),
            (None, Some(name)) => format!("object `{name}` (no kind)"),
            (None, None) => "object with no kind or name".to_string(),
        }
    }

    /// The node that best stands for the object in a diagnostic: its name, else its kind, else
    /// the whole object.
    pub fn anchor(&self) -> &'a Node {
        self.root
            .path(&["metadata", "name"])
            .or_else(|| self.root.get("kind"))
            .unwrap_or(self.root)
    }

    /// Every container image of a workload's pod spec, with the container name (`?` when
    /// unnamed): `containers`, `initContainers` and `ephemeralContainers` of Deployments,
    /// DaemonSets, StatefulSets, ReplicaSets, ReplicationControllers, Jobs, CronJobs,
    /// PodTemplates and Pods.
    pub fn workload_images(&self) -> Vec<(&'a Node, &'a str)> {
        let path: &[&str] = match self.kind() {
            Some(
                "Deployment"
                | "DaemonSet"
                | "StatefulSet"
                | "ReplicaSet"
                | "ReplicationController"
                | "Job",
            ) => &["spec", "template", "spec"],
            Some("CronJob") => &["spec", "jobTemplate", "spec", "template", "spec"],
            Some("PodTemplate") => &["template", "spec"],
            Some("Pod") => &["spec"],
            _ => return Vec::new(),
        };
        let Some(spec) = self.root.path(path) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for list in ["containers", "initContainers", "ephemeralContainers"] {
            for container in spec.get(list).map(Node::items).unwrap_or(&[]) {
                let Some(node) = container.get("image") else {
                    continue;
                };
                let name = container
                    .get("name")
                    .and_then(Node::scalar_text)
                    .unwrap_or("?");
                out.push((node, name));
            }
        }
        out
    }

    /// The pod template of a workload (`spec.template.spec`) for Deployments, DaemonSets,
    /// StatefulSets, ReplicaSets and Jobs.
    pub fn pod_spec(&self) -> Option<&'a Node> {
        self.root.path(&["spec", "template", "spec"])
    }

    /// Containers and init containers of the pod template, in clusterctl's order (all
    /// `containers`, then all `initContainers`).
    pub fn containers(&self) -> impl Iterator<Item = Container<'a>> {
        let spec = self.pod_spec();
        let containers = spec.and_then(|s| s.get("containers")).map(Node::items);
        let init = spec.and_then(|s| s.get("initContainers")).map(Node::items);
        containers
            .unwrap_or(&[])
            .iter()
            .map(|node| Container { node, init: false })
            .chain(
                init.unwrap_or(&[])
                    .iter()
                    .map(|node| Container { node, init: true }),
            )
    }
}

/// A container entry of a pod template.
#[derive(Debug, Clone, Copy)]
pub struct Container<'a> {
    pub node: &'a Node,
    pub init: bool,
}

impl<'a> Container<'a> {
    pub fn name(&self) -> Option<&'a str> {
        self.node.get("name")?.scalar_text()
    }

    pub fn image(&self) -> Option<&'a Node> {
        self.node.get("image")
    }
}

/// Kubernetes' `IsDNS1123Label`, with its messages joined by `; `: a namespace, a label-like
/// name.
pub fn dns1123_label(value: &str) -> Result<(), String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_string());
    }
    let bytes = value.as_bytes();
    let alnum = |b: &u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let valid = !bytes.is_empty()
        && bytes.iter().all(|b| alnum(b) || *b == b'-')
        && bytes.first().is_some_and(alnum)
        && bytes.last().is_some_and(alnum);
    if !valid {
        errors.push("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".to_string());
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Kubernetes' `IsDNS1123Subdomain`, with its messages joined by `; `: the name of most objects.
pub fn dns1123_subdomain(value: &str) -> Result<(), String> {
    let mut errors = Vec::new();
    if value.len() > 253 {
        errors.push("must be no more than 253 characters".to_string());
    }
    let valid = !value.is_empty() && value.split('.').all(|part| dns1123_label(part).is_ok());
    if !valid {
        errors.push("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_string());
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Kubernetes' `IsValidLabelValue`, with its messages joined by `; `.
pub fn label_value(value: &str) -> Result<(), String> {
    let mut errors = Vec::new();
    if value.len() > 63 {
        errors.push("must be no more than 63 characters".to_string());
    }
    let bytes = value.as_bytes();
    let valid = bytes.is_empty()
        || (bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
            && bytes.first().is_some_and(u8::is_ascii_alphanumeric)
            && bytes.last().is_some_and(u8::is_ascii_alphanumeric));
    if !valid {
        errors.push("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')".to_string());
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, Source, parse_str};
    use std::sync::Arc;

    #[test]
    fn reads_identity_and_containers() {
        let file = parse_str(
            Arc::new(Source::new(
                "t",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: m\n  namespace: ns\nspec:\n  template:\n    spec:\n      initContainers:\n      - name: init\n      containers:\n      - name: manager\n        image: x\n",
            )),
            Limits::default(),
        );
        let object = Object::new(file.documents[0].root.as_ref().unwrap()).unwrap();
        assert_eq!(object.kind(), Some("Deployment"));
        assert_eq!(object.group(), "apps");
        assert_eq!(object.namespace(), Some("ns"));
        assert_eq!(object.display(), "Deployment `m`");
        let names: Vec<_> = object.containers().map(|c| (c.name(), c.init)).collect();
        assert_eq!(names, vec![(Some("manager"), false), (Some("init"), true)]);
        assert!(is_namespaced("Deployment"));
        assert!(!is_namespaced("ClusterRole"));
        assert!(is_namespaced("ClusterIssuer"));
    }
}
