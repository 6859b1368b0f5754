//! The release transformations, object by object: a components file with objects in the wrong
//! namespace, missing and wrong labels, RBAC subjects, webhook services and certificates pointing
//! elsewhere, assembled by the built binary from flags alone.

use std::path::Path;
use std::sync::Arc;

use assert_cmd::Command;
use capkg::yaml::{Limits, Node, Source, parse_str};

const COMPONENTS: &str = r#"apiVersion: v1
kind: ServiceAccount
metadata:
  name: manager
---
apiVersion: v1
kind: Namespace
metadata:
  name: foo-system
  labels:
    control-plane: controller-manager
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: foo-controller-manager
  namespace: default
  labels:
    cluster.x-k8s.io/provider: infrastructure-foo
spec:
  template:
    spec:
      containers:
      - name: manager
        image: registry.example.com/foo/manager:v1.0.0
        args:
        - --enable-feature=on
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: leader-election
  namespace: other
subjects:
- kind: ServiceAccount
  name: manager
  namespace: other
- kind: ServiceAccount
  name: defaulted
- kind: User
  name: alice
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: Role
  name: leader-election
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: manager
subjects:
- kind: ServiceAccount
  name: manager
  namespace: kube-system
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: manager
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: manager
  labels:
    cluster.x-k8s.io/provider: infrastructure-bar
rules: []
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: validating
  annotations:
    cert-manager.io/inject-ca-from: wrong/serving-cert
webhooks:
- name: v.foo.io
  clientConfig:
    service:
      name: webhook-service
      namespace: wrong
      path: /validate
- name: url.foo.io
  clientConfig:
    url: https://example.com/validate
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foomachines.infrastructure.cluster.x-k8s.io
  labels:
    cluster.x-k8s.io/provider: infrastructure-foo
  annotations:
    cert-manager.io/inject-ca-from: system/serving-cert
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          name: webhook-service
          namespace: system
          path: /convert
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: serving-cert
  namespace: wrong
spec:
  dnsNames:
  - webhook-service.wrong.svc
  - webhook-service.wrong.svc.cluster.local
  - wrong.example.com
  secretName: webhook-server-cert
---
apiVersion: cert-manager.io/v1
kind: Issuer
metadata:
  name: selfsigned
spec:
  selfSigned: {}
---
apiVersion: v1
kind: Service
metadata:
  name: webhook-service
  namespace: wrong
spec:
  ports:
  - port: 443
"#;

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta2\n";

fn assemble(dir: &Path) -> Vec<Node> {
    std::fs::write(dir.join("components.yaml"), COMPONENTS).unwrap();
    std::fs::write(dir.join("metadata.yaml"), METADATA).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .current_dir(dir)
        .args([
            "assemble",
            "--type",
            "infrastructure",
            "--provider",
            "foo",
            "--components",
            "components.yaml",
            "--metadata",
            "metadata.yaml",
            "--version",
            "v1.0.0",
            "--out",
            "out",
        ])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(dir.join("out/infrastructure-components.yaml")).unwrap();
    let file = parse_str(Arc::new(Source::new("out", text)), Limits::default());
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    file.roots().cloned().collect()
}

fn text<'a>(node: &'a Node, path: &[&str]) -> Option<&'a str> {
    node.path(path).and_then(Node::as_str)
}

fn kind_and_name(node: &Node) -> (String, String) {
    (
        text(node, &["kind"]).unwrap_or_default().to_string(),
        text(node, &["metadata", "name"])
            .unwrap_or_default()
            .to_string(),
    )
}

#[test]
fn every_object_is_moved_labelled_and_ordered() {
    let dir = tempfile::tempdir().unwrap();
    let objects = assemble(dir.path());
    let order: Vec<(String, String)> = objects.iter().map(kind_and_name).collect();
    let expected: Vec<(String, String)> = [
        ("Namespace", "foo-system"),
        ("ServiceAccount", "manager"),
        ("Deployment", "foo-controller-manager"),
        ("RoleBinding", "leader-election"),
        ("ClusterRoleBinding", "manager"),
        ("ClusterRole", "manager"),
        ("ValidatingWebhookConfiguration", "validating"),
        (
            "CustomResourceDefinition",
            "foomachines.infrastructure.cluster.x-k8s.io",
        ),
        ("Certificate", "serving-cert"),
        ("Issuer", "selfsigned"),
        ("Service", "webhook-service"),
    ]
    .iter()
    .map(|(k, n)| (k.to_string(), n.to_string()))
    .collect();
    assert_eq!(order, expected, "the Namespace first, the rest as written");

    for object in &objects {
        let (kind, name) = kind_and_name(object);
        assert_eq!(
            text(object, &["metadata", "labels", "cluster.x-k8s.io/provider"]),
            Some("infrastructure-foo"),
            "{kind} {name}: provider label"
        );
        let namespace = text(object, &["metadata", "namespace"]);
        match kind.as_str() {
            "Namespace"
            | "ClusterRoleBinding"
            | "ClusterRole"
            | "ValidatingWebhookConfiguration"
            | "CustomResourceDefinition" => {
                assert_eq!(namespace, None, "{kind} {name} is cluster-scoped")
            }
            _ => assert_eq!(namespace, Some("foo-system"), "{kind} {name}"),
        }
    }
    let by_kind = |kind: &str| {
        objects
            .iter()
            .find(|o| text(o, &["kind"]) == Some(kind))
            .unwrap()
    };

    // The Namespace keeps its own labels; the Deployment keeps its args untouched.
    let namespace = by_kind("Namespace");
    assert_eq!(
        text(namespace, &["metadata", "labels", "control-plane"]),
        Some("controller-manager")
    );
    let deployment = by_kind("Deployment");
    let container = &deployment
        .path(&["spec", "template", "spec", "containers"])
        .unwrap()
        .items()[0];
    assert_eq!(
        container.get("args").unwrap().items()[0].as_str(),
        Some("--enable-feature=on")
    );

    // RoleBinding subjects: namespaced ones and ServiceAccounts move, a User has no namespace.
    let subjects = by_kind("RoleBinding").get("subjects").unwrap().items();
    let subject_namespaces: Vec<Option<&str>> =
        subjects.iter().map(|s| text(s, &["namespace"])).collect();
    assert_eq!(
        subject_namespaces,
        [Some("foo-system"), Some("foo-system"), None]
    );
    let subjects = by_kind("ClusterRoleBinding")
        .get("subjects")
        .unwrap()
        .items();
    assert_eq!(text(&subjects[0], &["namespace"]), Some("foo-system"));

    // Webhook services and cert-manager's CA injection.
    let webhook = by_kind("ValidatingWebhookConfiguration");
    assert_eq!(
        text(
            webhook,
            &["metadata", "annotations", "cert-manager.io/inject-ca-from"]
        ),
        Some("foo-system/serving-cert")
    );
    let webhooks = webhook.get("webhooks").unwrap().items();
    assert_eq!(
        text(&webhooks[0], &["clientConfig", "service", "namespace"]),
        Some("foo-system")
    );
    assert_eq!(
        text(&webhooks[0], &["clientConfig", "service", "path"]),
        Some("/validate")
    );
    assert_eq!(
        text(&webhooks[1], &["clientConfig", "service", "namespace"]),
        None
    );
    assert_eq!(
        text(&webhooks[1], &["clientConfig", "url"]),
        Some("https://example.com/validate")
    );

    let crd = by_kind("CustomResourceDefinition");
    assert_eq!(
        text(
            crd,
            &["metadata", "annotations", "cert-manager.io/inject-ca-from"]
        ),
        Some("foo-system/serving-cert")
    );
    assert_eq!(
        text(
            crd,
            &[
                "spec",
                "conversion",
                "webhook",
                "clientConfig",
                "service",
                "namespace"
            ]
        ),
        Some("foo-system")
    );

    // Certificate DNS names follow the Service into the namespace; other names are left alone.
    let names: Vec<&str> = by_kind("Certificate")
        .path(&["spec", "dnsNames"])
        .unwrap()
        .items()
        .iter()
        .filter_map(Node::as_str)
        .collect();
    assert_eq!(
        names,
        [
            "webhook-service.foo-system.svc",
            "webhook-service.foo-system.svc.cluster.local",
            "wrong.example.com"
        ]
    );
}

#[test]
fn assembling_the_output_again_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    assemble(dir.path());
    let first = std::fs::read(dir.path().join("out/infrastructure-components.yaml")).unwrap();
    std::fs::write(dir.path().join("components2.yaml"), &first).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .current_dir(dir.path())
        .args([
            "assemble",
            "--type",
            "infrastructure",
            "--provider",
            "foo",
            "--components",
            "components2.yaml",
            "--metadata",
            "metadata.yaml",
            "--out",
            "out2",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let second = std::fs::read(dir.path().join("out2/infrastructure-components.yaml")).unwrap();
    assert_eq!(first, second);
}
