//! clusterctl's own expectations for its components and template pipeline, transcribed as data
//! from `cmd/clusterctl/client/repository/components_test.go` (`Test_fixTargetNamespace`,
//! `Test_addCommonLabels`, `Test_addNamespaceIfMissing`, `Test_inspectTargetNamespace`) and
//! `template_test.go`, written here as YAML. Each row is checked twice: as data (JSON objects
//! compare as maps) and as the bytes clusterctl prints for them.

use super::*;

/// `generate provider` from the file's bytes, substituted.
fn generate_provider(
    name: &str,
    bytes: &[u8],
    values: &dyn Lookup,
    options: &ComponentsOptions,
) -> Result<String, ClusterctlError> {
    let file = FileText::new(name.to_string(), bytes.to_vec());
    generate_provider_from(load_components(&file, values, false, false)?, options)
}

fn json(text: &str) -> Vec<JsonValue> {
    decode("row", text).expect("row parses")
}

fn fixed(input: &str, target: &str) -> Result<Vec<JsonValue>, ClusterctlError> {
    let mut objects = json(input);
    for object in &mut objects {
        fix_target_namespace(object, target)?;
    }
    Ok(objects)
}

/// `(name, input, target namespace, expected)`; `None` expected means clusterctl fails.
const FIX_TARGET_NAMESPACE: &[(&str, &str, &str, Option<&str>)] = &[
    (
        "fix Namespace object if exists",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: foo\n",
        "bar",
        Some("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: bar\n"),
    ),
    (
        "fix namespaced objects",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: test\n  namespace: system\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: capa-controller-manager-metrics-service\n  namespace: capa-system\n",
        "bar",
        Some(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: test\n  namespace: bar\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: capa-controller-manager-metrics-service\n  namespace: bar\n",
        ),
    ),
    (
        "ignore global objects",
        "kind: ClusterRole\n",
        "bar",
        Some("kind: ClusterRole\n"),
    ),
    (
        "fix v1beta1 webhook configs",
        "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingWebhookConfiguration\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: capi-webhook-system/capm3-serving-cert\n  name: capm3-mutating-webhook-configuration\nwebhooks:\n- clientConfig:\n    caBundle: Cg==\n    service:\n      name: capm3-webhook-service\n      namespace: capi-webhook-system\n      path: /mutate-infrastructure-cluster-x-k8s-io-v1alpha4-metal3cluster\n",
        "bar",
        Some(
            "apiVersion: admissionregistration.k8s.io/v1beta1\nkind: MutatingWebhookConfiguration\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: bar/capm3-serving-cert\n  name: capm3-mutating-webhook-configuration\nwebhooks:\n- clientConfig:\n    caBundle: Cg==\n    service:\n      name: capm3-webhook-service\n      namespace: bar\n      path: /mutate-infrastructure-cluster-x-k8s-io-v1alpha4-metal3cluster\n  name: \"\"\n",
        ),
    ),
    (
        "unable to fix v1beta2 webhook configs",
        "apiVersion: admissionregistration.k8s.io/v1beta2\nkind: MutatingWebhookConfiguration\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: capi-webhook-system/capm3-serving-cert\n  name: capm3-mutating-webhook-configuration\nwebhooks:\n- clientConfig:\n    caBundle: Cg==\n    service:\n      name: capm3-webhook-service\n      namespace: capi-webhook-system\n",
        "bar",
        None,
    ),
    (
        "fix v1 webhook configs",
        "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: capi-webhook-system/capm3-serving-cert\n  name: capm3-mutating-webhook-configuration\nwebhooks:\n- clientConfig:\n    caBundle: Cg==\n    service:\n      name: capm3-webhook-service\n      namespace: capi-webhook-system\n      path: /mutate-infrastructure-cluster-x-k8s-io-v1alpha4-metal3cluster\n",
        "bar",
        Some(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: bar/capm3-serving-cert\n  name: capm3-mutating-webhook-configuration\nwebhooks:\n- admissionReviewVersions: null\n  clientConfig:\n    caBundle: Cg==\n    service:\n      name: capm3-webhook-service\n      namespace: bar\n      path: /mutate-infrastructure-cluster-x-k8s-io-v1alpha4-metal3cluster\n  name: \"\"\n  sideEffects: null\n",
        ),
    ),
    (
        "fix v1beta1 crd webhook namespace",
        "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: capi-webhook-system/capm3-serving-cert\n  name: aCoolName\nspec:\n  conversion:\n    strategy: Webhook\n    webhookClientConfig:\n      caBundle: Cg==\n      service:\n        name: capa-webhook-service\n        namespace: capi-webhook-system\n        path: /convert\n",
        "bar",
        Some(
            "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: bar/capm3-serving-cert\n  name: aCoolName\nspec:\n  conversion:\n    strategy: Webhook\n    webhookClientConfig:\n      caBundle: Cg==\n      service:\n        name: capa-webhook-service\n        namespace: bar\n        path: /convert\n  group: \"\"\n  names:\n    kind: \"\"\n    plural: \"\"\n  scope: \"\"\nstatus:\n  acceptedNames:\n    kind: \"\"\n    plural: \"\"\n  conditions: null\n  storedVersions: null\n",
        ),
    ),
    (
        "unable to fix v1beta2 crd webhook namespace",
        "apiVersion: apiextensions.k8s.io/v1beta2\nkind: CustomResourceDefinition\nmetadata:\n  name: aCoolName\nspec:\n  conversion:\n    strategy: Webhook\n",
        "bar",
        None,
    ),
    (
        "fix v1 crd webhook namespace",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: capi-webhook-system/capm3-serving-cert\n  name: aCoolName\nspec:\n  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        caBundle: Cg==\n        service:\n          name: capa-webhook-service\n          namespace: capi-webhook-system\n          path: /convert\n",
        "bar",
        Some(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    cert-manager.io/inject-ca-from: bar/capm3-serving-cert\n  name: aCoolName\nspec:\n  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        caBundle: Cg==\n        service:\n          name: capa-webhook-service\n          namespace: bar\n          path: /convert\n      conversionReviewVersions: null\n  group: \"\"\n  names:\n    kind: \"\"\n    plural: \"\"\n  scope: \"\"\n  versions: null\nstatus:\n  acceptedNames:\n    kind: \"\"\n    plural: \"\"\n  conditions: null\n  storedVersions: null\n",
        ),
    ),
    (
        "fix cert-manager Certificate",
        "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: capi-serving-cert\n  namespace: capi-system\nspec:\n  dnsNames:\n  - capi-webhook-service.capi-system.svc\n  - capi-webhook-service.capi-system.svc.cluster.local\n  - random-other-dns-name\n  issuerRef:\n    kind: Issuer\n    name: capi-selfsigned-issuer\n  secretName: capi-webhook-service-cert\n",
        "bar",
        Some(
            "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: capi-serving-cert\n  namespace: bar\nspec:\n  dnsNames:\n  - capi-webhook-service.bar.svc\n  - capi-webhook-service.bar.svc.cluster.local\n  - random-other-dns-name\n  issuerRef:\n    kind: Issuer\n    name: capi-selfsigned-issuer\n  secretName: capi-webhook-service-cert\n",
        ),
    ),
    // From docs/clusterctl-behaviour.md §1.6 (each confirmed against clusterctl there).
    (
        "bindings: only subjects with a namespace move; names are kept",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: b\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: r\nsubjects:\n- kind: ServiceAccount\n  name: manager\n  namespace: system\n- kind: ServiceAccount\n  name: defaulted\n- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n  name: admins\n",
        "bar",
        Some(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: b\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: r\nsubjects:\n- kind: ServiceAccount\n  name: manager\n  namespace: bar\n- kind: ServiceAccount\n  name: defaulted\n- apiGroup: rbac.authorization.k8s.io\n  kind: Group\n  name: admins\n",
        ),
    ),
    (
        "a RoleBinding moves with its subjects and gains its required roleRef",
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: b\n  namespace: system\nsubjects:\n- kind: ServiceAccount\n  name: manager\n  namespace: system\n",
        "bar",
        Some(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: b\n  namespace: bar\nroleRef:\n  apiGroup: \"\"\n  kind: \"\"\n  name: \"\"\nsubjects:\n- kind: ServiceAccount\n  name: manager\n  namespace: bar\n",
        ),
    ),
    (
        "RBAC bindings must be rbac.authorization.k8s.io/v1",
        "apiVersion: rbac.authorization.k8s.io/v1beta1\nkind: RoleBinding\nmetadata:\n  name: b\n",
        "bar",
        None,
    ),
    (
        "a Certificate with no namespace keeps its names",
        "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: c\nspec:\n  dnsNames:\n  - svc.system.svc\n",
        "bar",
        Some(
            "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: c\n  namespace: bar\nspec:\n  dnsNames:\n  - svc.system.svc\n",
        ),
    ),
    (
        "dnsNames that are not a list are an error",
        "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata:\n  name: c\nspec:\n  dnsNames: x\n",
        "bar",
        None,
    ),
    (
        "inject-ca-from must be namespace/name",
        "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: v\n  annotations:\n    cert-manager.io/inject-ca-from: just-a-name\n",
        "bar",
        None,
    ),
    (
        "genuinely cluster-scoped kinds missing from the list get a namespace",
        "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: ci\n",
        "bar",
        Some(
            "apiVersion: cert-manager.io/v1\nkind: ClusterIssuer\nmetadata:\n  name: ci\n  namespace: bar\n",
        ),
    ),
];

#[test]
fn fix_target_namespace_rows() {
    for (name, input, target, expected) in FIX_TARGET_NAMESPACE {
        let result = fixed(input, target);
        match expected {
            None => assert!(result.is_err(), "{name}: expected an error"),
            Some(expected) => {
                let got = result.unwrap_or_else(|e| panic!("{name}: {e}"));
                let want = json(expected);
                assert_eq!(got, want, "{name}");
                assert_eq!(
                    write_objects(&got).unwrap(),
                    write_objects(&want).unwrap(),
                    "{name}"
                );
                // The expected YAML is written as clusterctl prints it.
                assert_eq!(
                    format!("{}\n", write_objects(&got).unwrap()),
                    expected.to_string(),
                    "{name}: bytes"
                );
            }
        }
    }
}

#[test]
fn common_labels_overwrite_and_non_string_values_wipe_the_others() {
    // Test_addCommonLabels: the two labels on every object.
    let mut objects = json(
        "kind: ClusterRole\n---\nkind: ConfigMap\nmetadata:\n  labels:\n    a: b\n    cluster.x-k8s.io/provider: wrong\n---\nkind: ConfigMap\nmetadata:\n  labels:\n    keep: me\n    flag: true\n",
    );
    for object in &mut objects {
        add_common_labels(object, "infrastructure-infra");
    }
    assert_eq!(
        write_objects(&objects).unwrap(),
        "kind: ClusterRole\nmetadata:\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-infra\n    clusterctl.cluster.x-k8s.io: \"\"\n---\nkind: ConfigMap\nmetadata:\n  labels:\n    a: b\n    cluster.x-k8s.io/provider: infrastructure-infra\n    clusterctl.cluster.x-k8s.io: \"\"\n---\nkind: ConfigMap\nmetadata:\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-infra\n    clusterctl.cluster.x-k8s.io: \"\""
    );
}

#[test]
fn order_is_namespace_then_cert_manager_reversed_then_as_written() {
    let objects = json(
        "kind: ServiceAccount\nmetadata: {name: a}\n---\napiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: c}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\napiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: i}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: n}\n",
    );
    let order: Vec<String> = sorted_order(&objects)
        .into_iter()
        .map(|i| kind(&objects[i]))
        .collect();
    assert_eq!(
        order,
        [
            "Namespace",
            "Issuer",
            "Certificate",
            "ServiceAccount",
            "Service"
        ]
    );
}

#[test]
fn generate_provider_adds_a_namespace_and_needs_a_target() {
    let values = crate::subst::Values::new();
    let options = ComponentsOptions {
        target_namespace: None,
        provider_label: "infrastructure-infra".into(),
    };
    let err = generate_provider(
        "c",
        b"kind: ConfigMap\nmetadata: {name: c}\n",
        &values,
        &options,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "target namespace can't be defaulted. Please specify a target namespace"
    );
    let options = ComponentsOptions {
        target_namespace: Some("ns".into()),
        ..options
    };
    let out = generate_provider(
        "c",
        b"kind: ConfigMap\nmetadata: {name: c}\ndata:\n  on: 0755\n",
        &values,
        &options,
    )
    .unwrap();
    assert_eq!(
        out,
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-infra\n    clusterctl.cluster.x-k8s.io: \"\"\n  name: ns\n---\ndata:\n  \"true\": 493\nkind: ConfigMap\nmetadata:\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-infra\n    clusterctl.cluster.x-k8s.io: \"\"\n  name: c\n  namespace: ns\n"
    );
    let two = b"kind: Namespace\nmetadata: {name: a}\n---\nkind: Namespace\nmetadata: {name: b}\n";
    assert!(matches!(
        generate_provider("c", two, &values, &options),
        Err(ClusterctlError::Namespaces)
    ));
}

#[test]
fn the_file_as_written_is_loaded_beside_the_substituted_one() {
    // As written, the first document repeats `a` and the third `c`; substitution makes the
    // second repeat `b` (not a repeated key of the file as written), changes the third and its
    // provider label, and moves what follows the second.
    let written = b"kind: ConfigMap\nmetadata: {name: one, labels: {cluster.x-k8s.io/provider: infrastructure-one}}\ndata: {a: 1, a: 2}\n---\nkind: ConfigMap\nmetadata: {name: two, labels: {cluster.x-k8s.io/provider: infrastructure-one}}\ndata:\n  b: 1\n  ${KEY}: 2\n---\nkind: ConfigMap\nmetadata:\n  name: three\n  labels: {cluster.x-k8s.io/provider: '${P}'}\ndata:\n  c: ${A}\n  c: 2\n---\nkind: ConfigMap\nmetadata:\n  name: four\n  labels: {cluster.x-k8s.io/provider: infrastructure-${P}}\n";
    let values =
        crate::subst::Values::new().with_env([("KEY", "b"), ("A", "a value"), ("P", "two")]);
    let file = FileText::new("c.yaml".to_string(), written.to_vec());
    let loaded = load_components(&file, &values, false, true).unwrap();
    let repeated = loaded.repeated_keys();
    assert_eq!(
        repeated,
        duplicate_keys("c.yaml", std::str::from_utf8(written).unwrap())
    );
    assert_eq!(repeated.len(), 2, "{repeated:?}");
    assert!(repeated[0].starts_with("c.yaml:3:"), "{}", repeated[0]);
    assert!(repeated[1].starts_with("c.yaml:17:"), "{}", repeated[1]);
    // Substituted, `two` would be named twice; as written, the placeholders are not names.
    assert_eq!(
        loaded.provider_name_as_written(ProviderType::Infrastructure),
        Some("one".to_string())
    );
    // Not kept: nothing to tell.
    let loaded = load_components(&file, &values, false, false).unwrap();
    assert!(loaded.repeated_keys().is_empty());
    assert_eq!(
        loaded.provider_name_as_written(ProviderType::Infrastructure),
        None
    );
}

#[test]
fn non_canonical_images_fail_as_in_clusterctl() {
    let values = crate::subst::Values::new();
    let options = ComponentsOptions {
        target_namespace: Some("ns".into()),
        provider_label: "infrastructure-infra".into(),
    };
    let err = generate_provider(
        "c",
        b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: nginx:1.2\n",
        &values,
        &options,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "failed to apply image overrides: failed to fix containers in deployment d: failed to fix containers: failed to fix image for container manager: couldn't parse image name: repository name must be canonical"
    );
}

#[test]
fn documents_that_are_not_objects_are_named_by_ordinal() {
    assert_eq!(ordinalize(1), "1st");
    assert_eq!(ordinalize(12), "12nd");
    let err = decode("t", "a: b\n---\n- x\n").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("failed to parse yaml: failed to unmarshal the 2nd yaml document:"),
        "{err}"
    );
}

#[test]
fn cluster_classes_come_from_v1beta1_and_v1beta2_topologies() {
    let objects = json(
        "apiVersion: cluster.x-k8s.io/v1beta2\nkind: Cluster\nmetadata: {name: a, namespace: ns}\nspec:\n  topology:\n    classRef: {name: quick-start}\n---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {name: b, namespace: ns}\nspec:\n  topology:\n    class: other\n    classNamespace: shared\n---\napiVersion: cluster.x-k8s.io/v1alpha4\nkind: Cluster\nmetadata: {name: c}\nspec:\n  topology:\n    class: ignored\n",
    );
    assert_eq!(
        cluster_classes(&objects),
        [
            ("quick-start".to_string(), "ns".to_string()),
            ("other".to_string(), "shared".to_string())
        ]
    );
}

#[test]
fn template_rows() {
    // template_test.go, Test_newTemplate: "variable is replaced and namespace fixed".
    let values = crate::subst::Values::new().with_env([("VAR", "value")]);
    let objects = process_template(
        "t",
        b"apiVersion: v1\ndata:\n  variable: ${VAR}\nkind: ConfigMap\nmetadata:\n  name: manager",
        &values,
        Some("ns1"),
    )
    .unwrap();
    assert_eq!(
        write_objects(&objects).unwrap(),
        "apiVersion: v1\ndata:\n  variable: value\nkind: ConfigMap\nmetadata:\n  name: manager\n  namespace: ns1"
    );
    // A missing variable is clusterctl's error, not wrapped.
    let err =
        process_template("t", b"a: ${MISSING}\n", &crate::subst::Values::new(), None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "value for variables [MISSING] is not set. Please set the value using os environment variables or the clusterctl config file"
    );
    // Without a target namespace (`generate yaml`), nothing is namespaced and there is no sort.
    let objects = process_template(
        "t",
        b"kind: Namespace\nmetadata: {name: x}\n---\nkind: ConfigMap\nmetadata: {name: c}\n---\napiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata: {name: i}\n",
        &values,
        None,
    )
    .unwrap();
    assert_eq!(
        write_objects(&objects).unwrap(),
        "kind: Namespace\nmetadata:\n  name: x\n---\nkind: ConfigMap\nmetadata:\n  name: c\n---\napiVersion: cert-manager.io/v1\nkind: Issuer\nmetadata:\n  name: i"
    );
}

/// `util/yaml/yaml_test.go` `TestToUnstructured`: the document clusterctl names for a syntax
/// error, counted as clusterctl counts (objects decoded before it, plus one).
#[test]
fn yaml_errors_name_the_document_as_clusterctl_does() {
    for (text, ordinal) in [
        (
            "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nfoobar\nkind: Secret\n",
            "2nd",
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\n---\napiVersion: v1\nkind: Pod\n---\napiVersion: v1\nkind: Deployment\n---\napiVersion: v1\nfoobar\nkind: ConfigMap\n",
            "4th",
        ),
        (
            "apiVersion: v1\nfoobar\nkind: ConfigMap\n---\napiVersion: v1\nkind: Secret\n",
            "1st",
        ),
    ] {
        let err = decode("t.yaml", text).unwrap_err().to_string();
        let want = format!(
            "failed to parse yaml: failed to unmarshal the {ordinal} yaml document: t.yaml:"
        );
        assert!(err.starts_with(&want), "{err}");
    }
    let err = decode("t.yaml", "a: b\n--- foo\nc: d\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("failed to parse yaml: failed to read yaml: invalid Yaml document separator: foo: t.yaml:2:5: "),
        "{err}"
    );
}

#[test]
fn duplicate_keys_keep_the_last_value_and_are_listed() {
    let text = "kind: A\nkind: B\n";
    let objects = decode("t.yaml", text).unwrap();
    assert_eq!(
        objects[0].get("kind").and_then(JsonValue::as_str),
        Some("B")
    );
    let warnings = duplicate_keys("t.yaml", text);
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].starts_with("t.yaml:2:1: duplicate key `kind`"),
        "{}",
        warnings[0]
    );
}

#[test]
fn the_file_as_written_shares_the_text_read_and_bytes_that_are_not_text_are_refused() {
    let text = FileText::new("c.yaml".to_string(), b"kind: ConfigMap\n".to_vec());
    let FileText::Text(source) = &text else {
        panic!("UTF-8 is kept as text");
    };
    // The load of the file as written reads the text read, not a copy of it.
    assert!(Arc::ptr_eq(source, &text.as_written()));
    assert_eq!(text.bytes(), b"kind: ConfigMap\n");

    let values = crate::subst::Values::new();
    let bytes = FileText::new("c.yaml".to_string(), b"kind: ConfigMap\nd: \xff\n".to_vec());
    assert!(matches!(bytes, FileText::Bytes { .. }));
    assert_eq!(bytes.name(), "c.yaml");
    assert_eq!(bytes.bytes(), b"kind: ConfigMap\nd: \xff\n");
    for (skip_substitution, keep_as_written) in [(false, false), (false, true), (true, true)] {
        assert!(matches!(
            load_components(&bytes, &values, skip_substitution, keep_as_written),
            Err(ClusterctlError::NotText)
        ));
    }
    // Substitution reads the bytes: a default that holds the only bad byte is replaced by a
    // value, and what is left is text, as clusterctl's substitution of the raw bytes gives.
    let values = crate::subst::Values::new().with_env([("V", "fine")]);
    let healed = FileText::new(
        "c.yaml".to_string(),
        b"kind: ConfigMap\nd: ${V:=\xff}\n".to_vec(),
    );
    let loaded = load_components(&healed, &values, false, true).unwrap();
    assert_eq!(loaded.file.source.text(), "kind: ConfigMap\nd: fine\n");
}
