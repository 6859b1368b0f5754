//! A ClusterClass against its previous version, starting from CAPD v1.14.0's quick-start (in
//! `testdata/diff/templates`) and changing one thing at a time.

use crate::diff::templates::tests::{CLASS, changes, edit, findings, report};

const FILE: &str = "clusterclass-quick-start.yaml";

/// The rules that fired from CAPD's class to `new`, with the changes listed.
fn diff(new: &str) -> (Vec<String>, Vec<String>) {
    let r = report(&[(FILE, CLASS)], &[(FILE, new)]);
    (findings(&r), changes(&r))
}

fn rules_of(findings: &[String]) -> Vec<&str> {
    findings
        .iter()
        .map(|f| f.split_once(':').map_or(f.as_str(), |(rule, _)| rule))
        .collect()
}

#[test]
fn a_removed_variable_is_an_error() {
    let new = edit(
        CLASS,
        "  - name: etcdImageTag\n    required: true\n    schema:\n      openAPIV3Schema:\n        type: string\n        default: \"\"\n        example: \"3.5.3-0\"\n        description: \"etcdImageTag sets the tag for the etcd image.\"\n",
        "",
    );
    let (found, listed) = diff(&new);
    assert_eq!(
        found,
        [
            "upgrade/clusterclass-variable-removed: ClusterClass quick-start variable etcdImageTag is gone: Clusters that set it are no longer reconciled, and manifests that set it are refused"
        ]
    );
    assert_eq!(
        listed,
        ["- ClusterClass quick-start variable etcdImageTag (was required)"]
    );
}

#[test]
fn a_variable_made_required_or_a_new_required_one_is_an_error_and_optional_ones_are_listed() {
    let podsecurity = "  - name: podSecurityStandard\n    required: false\n";
    let required = edit(
        CLASS,
        podsecurity,
        "  - name: podSecurityStandard\n    required: true\n",
    );
    let (found, listed) = diff(&required);
    assert_eq!(
        found,
        [
            "upgrade/clusterclass-variable-required: ClusterClass quick-start variable podSecurityStandard is now required: Clusters that do not set it are no longer reconciled"
        ]
    );
    assert_eq!(
        listed,
        ["~ ClusterClass quick-start variable podSecurityStandard: optional -> required"]
    );
    // The other way round is listed only.
    let r = report(&[(FILE, &required)], &[(FILE, CLASS)]);
    assert!(r.diagnostics.is_empty());

    let added = |required: &str| {
        edit(
            CLASS,
            podsecurity,
            &format!(
                "  - name: controlPlanePort\n    required: {required}\n    schema:\n      openAPIV3Schema:\n        type: integer\n{podsecurity}"
            ),
        )
    };
    let (found, listed) = diff(&added("true"));
    assert_eq!(
        rules_of(&found),
        ["upgrade/clusterclass-variable-required"],
        "{found:?}"
    );
    assert_eq!(
        listed,
        ["+ ClusterClass quick-start variable controlPlanePort: required"]
    );
    let (found, listed) = diff(&added("false"));
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(
        listed,
        ["+ ClusterClass quick-start variable controlPlanePort: optional"]
    );
}

#[test]
fn a_narrowed_schema_is_an_error_by_the_crd_checks() {
    let enforce = "          enforce:\n            type: string\n";
    for (to, check) in [
        (
            "          enforce:\n            type: string\n            enum: [privileged, baseline, restricted]\n",
            "upgrade/crd-enum-narrowed",
        ),
        (
            "          enforce:\n            type: integer\n",
            "upgrade/crd-type-changed",
        ),
        (
            "          enforce:\n            type: string\n            maxLength: 10\n",
            "upgrade/crd-maximum-lowered",
        ),
        (
            "          enforce:\n            type: string\n            pattern: ^[a-z]+$\n",
            "upgrade/crd-pattern-changed",
        ),
        (
            "          enforce:\n            type: string\n            format: uri\n",
            "upgrade/crd-schema-changed",
        ),
    ] {
        let (found, listed) = diff(&edit(CLASS, enforce, to));
        assert_eq!(
            rules_of(&found),
            ["upgrade/clusterclass-variable-narrowed"],
            "{to}"
        );
        assert!(
            found[0].contains(&format!("(as `{check}` judges CRDs)")),
            "{found:?}"
        );
        assert!(
            found[0].starts_with(
                "upgrade/clusterclass-variable-narrowed: ClusterClass quick-start variable podSecurityStandard.enforce: "
            ),
            "{found:?}"
        );
        assert_eq!(listed.len(), 1, "{listed:?}");
    }
    // A removed property is refused in values too.
    let (found, _) = diff(&edit(
        CLASS,
        "          warn:\n            type: string\n            default: \"restricted\"\n",
        "",
    ));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("podSecurityStandard.warn: field removed"),
        "{found:?}"
    );
}

#[test]
fn defaults_examples_descriptions_and_wider_schemas_are_listed_not_findings() {
    for (from, to) in [
        (
            "        default: \"baseline\"",
            "        default: \"restricted\"",
        ),
        (
            "        example: \"3.5.3-0\"",
            "        example: \"3.5.9-0\"",
        ),
        (
            "        description: \"etcdImageTag sets the tag for the etcd image.\"",
            "        description: \"The etcd image's tag.\"",
        ),
        (
            "          audit:\n            type: string\n",
            "          audit:\n            type: string\n            x-metadata:\n              labels:\n                ui: hidden\n",
        ),
        (
            "          warn:\n",
            "          log:\n            type: string\n          warn:\n",
        ),
    ] {
        let new = edit(CLASS, from, to);
        let (found, _) = diff(&new);
        assert!(found.is_empty(), "{to}: {found:?}");
    }
}

#[test]
fn a_removed_worker_class_is_an_error_once() {
    let new = edit(
        CLASS,
        "    machinePools:\n    - class: default-worker\n",
        "    machinePools:\n    - class: pool-worker\n",
    );
    let (found, listed) = diff(&new);
    assert_eq!(
        found,
        [
            "upgrade/clusterclass-worker-class-removed: ClusterClass quick-start machinePool default-worker is gone: the update is refused while Clusters use it, and manifests that name it are refused"
        ]
    );
    assert_eq!(
        listed,
        [
            "- ClusterClass quick-start machinePool default-worker",
            "+ ClusterClass quick-start machinePool pool-worker",
            "+ ClusterClass quick-start machinePool pool-worker bootstrap: KubeadmConfigTemplate quick-start-default-worker-bootstraptemplate (bootstrap.cluster.x-k8s.io/v1beta2)",
            "+ ClusterClass quick-start machinePool pool-worker infrastructure: DevMachinePoolTemplate quick-start-default-worker-machinepooltemplate (infrastructure.cluster.x-k8s.io/v1beta2)",
        ]
    );
}

#[test]
fn a_template_of_another_kind_is_an_error_and_a_new_name_or_bootstrap_kind_is_listed() {
    let (found, _) = diff(&edit(
        CLASS,
        "      kind: DevClusterTemplate\n",
        "      kind: DockerClusterTemplate\n",
    ));
    assert_eq!(
        found,
        [
            "upgrade/clusterclass-template-incompatible: ClusterClass quick-start infrastructure changed kind DevClusterTemplate -> DockerClusterTemplate: Cluster API refuses the updated class, and a rebase onto it"
        ]
    );
    let (found, _) = diff(&edit(
        CLASS,
        "      apiVersion: infrastructure.cluster.x-k8s.io/v1beta2\n      kind: DevClusterTemplate\n",
        "      apiVersion: infrastructure.example.com/v1beta2\n      kind: DevClusterTemplate\n",
    ));
    assert!(
        found[0].contains(
            "changed API group infrastructure.cluster.x-k8s.io -> infrastructure.example.com"
        ),
        "{found:?}"
    );
    // Template rotation: a new name for the same kind.
    let (found, listed) = diff(&edit(
        CLASS,
        "      name: quick-start-cluster\n",
        "      name: quick-start-cluster-v2\n",
    ));
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(
        listed,
        [
            "~ ClusterClass quick-start infrastructure: DevClusterTemplate quick-start-cluster (infrastructure.cluster.x-k8s.io/v1beta2) -> DevClusterTemplate quick-start-cluster-v2 (infrastructure.cluster.x-k8s.io/v1beta2)"
        ]
    );
    // Bootstrap templates may change kind.
    let bootstrap = CLASS.replacen(
        "          kind: KubeadmConfigTemplate\n",
        "          kind: TalosConfigTemplate\n",
        1,
    );
    let (found, listed) = diff(&bootstrap);
    assert!(found.is_empty(), "{found:?}");
    assert_eq!(listed.len(), 1, "{listed:?}");
}

#[test]
fn a_reference_the_class_no_longer_has_is_an_error() {
    let new = edit(
        CLASS,
        "    machineInfrastructure:\n      templateRef:\n        kind: DevMachineTemplate\n        apiVersion: infrastructure.cluster.x-k8s.io/v1beta2\n        name: quick-start-control-plane\n",
        "",
    );
    let (found, _) = diff(&new);
    assert_eq!(
        found,
        [
            "upgrade/clusterclass-template-incompatible: ClusterClass quick-start controlPlane machineInfrastructure no longer references a template (was DevMachineTemplate quick-start-control-plane (infrastructure.cluster.x-k8s.io/v1beta2))"
        ]
    );
}

/// CAPD v1.10.0 -> v1.11.0 moved its classes from v1beta1 to v1beta2 (`ref` -> `templateRef`,
/// `template.bootstrap` -> `bootstrap`): the same templates, so only their versions are listed.
#[test]
fn the_v1beta1_shape_is_read_as_the_v1beta2_one() {
    let v1beta1 = CLASS
        .replace("cluster.x-k8s.io/v1beta2", "cluster.x-k8s.io/v1beta1")
        .replace("    templateRef:\n", "    ref:\n")
        .replace(
            "    - class: default-worker\n      bootstrap:\n        templateRef:\n",
            "    - class: default-worker\n      template:\n        bootstrap:\n          ref:\n",
        );
    // Indent the worker templates one level under `template:` as v1beta1 has them.
    let v1beta1 = v1beta1
        .replace(
            "          apiVersion: bootstrap.cluster.x-k8s.io/v1beta1\n          kind: KubeadmConfigTemplate\n          name: quick-start-default-worker-bootstraptemplate\n      infrastructure:\n        templateRef:\n          apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n          kind: DevMachineTemplate\n          name: quick-start-default-worker-machinetemplate\n",
            "            apiVersion: bootstrap.cluster.x-k8s.io/v1beta1\n            kind: KubeadmConfigTemplate\n            name: quick-start-default-worker-bootstraptemplate\n        infrastructure:\n          ref:\n            apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n            kind: DevMachineTemplate\n            name: quick-start-default-worker-machinetemplate\n",
        )
        .replace(
            "          apiVersion: bootstrap.cluster.x-k8s.io/v1beta1\n          kind: KubeadmConfigTemplate\n          name: quick-start-default-worker-bootstraptemplate\n      infrastructure:\n        templateRef:\n          apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n          kind: DevMachinePoolTemplate\n",
            "            apiVersion: bootstrap.cluster.x-k8s.io/v1beta1\n            kind: KubeadmConfigTemplate\n            name: quick-start-default-worker-bootstraptemplate\n        infrastructure:\n          ref:\n            apiVersion: infrastructure.cluster.x-k8s.io/v1beta1\n            kind: DevMachinePoolTemplate\n",
        );
    let r = report(&[(FILE, &v1beta1)], &[(FILE, CLASS)]);
    assert!(r.diagnostics.is_empty(), "{:?}", findings(&r));
    let listed = changes(&r);
    assert_eq!(
        listed[0],
        "~ ClusterClass quick-start: cluster.x-k8s.io/v1beta1 -> cluster.x-k8s.io/v1beta2"
    );
    assert!(
        listed.contains(&"~ ClusterClass quick-start machineDeployment default-worker infrastructure: infrastructure.cluster.x-k8s.io/v1beta1 -> infrastructure.cluster.x-k8s.io/v1beta2".to_string()),
        "{listed:?}"
    );
    assert_eq!(listed.len(), 8, "{listed:?}");
}
