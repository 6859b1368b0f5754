//! `crd/…` rules on the shape of CRDs: name, storage version, scope, list kind, the status and
//! scale subresources, and the `…Template` CRDs ClusterClass and MachineDeployments need.
//! Contract labels are in `labels.rs`.

use super::resource::{
    CONTROL_PLANE_CONTRACT, ContractResource, Crd, CrdVersion, Role, has_variable,
};
use super::{cite, section};
use crate::flect::calculate_crd_name;
use crate::provider::ProviderType;
use crate::rules::{Reference, Rule, Severity};
use crate::yaml::Node;

/// The annotation that turns clusterctl's CRD name check off.
pub(super) const SKIP_CRD_NAME_CHECK: &str =
    "clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check";

pub(super) static NAME: Rule = Rule {
    id: "crd/name",
    severity: Severity::Error,
    summary: "a CRD's name is not `<plural>.<group>` with the plural clusterctl computes",
    explanation: "The API server accepts a CustomResourceDefinition only when `metadata.name` is \
        `<spec.names.plural>.<spec.group>`. On top of that, `clusterctl init` and `upgrade` check \
        every CRD of the components against `contract.CalculateCRDName(group, kind)`: the \
        lower-cased kind pluralised by the flect library, a dot, the group (`HelmChartProxy` \
        gives `helmchartproxies`, `Metal3Data` stays `metal3data`). Core Cluster API derives CRD \
        names the same way to find a referenced resource's contract labels without listing CRDs, \
        so clusterctl refuses a provider that breaks the rule. The annotation \
        `clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check` turns clusterctl's check off \
        for a CRD core never references; capkg honours it as clusterctl does.",
    help: "name the CRD `<plural>.<group>` with flect's plural of the kind (\"<Resource>, \
        <Resource>List resource definition\" in each provider contract: the CRD name has the \
        format produced by `contract.CalculateCRDName(Group, Kind)`); for a CRD core never \
        references, the `clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check` annotation \
        turns clusterctl's check off",
    reference: Reference {
        title: "provider contracts, \"<Resource>, <Resource>List resource definition\" (the CRD \
            name has the format produced by `contract.CalculateCRDName(Group, Kind)`), as \
            clusterctl's CRD name preflight check enforces it",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        for crd in Crd::all(cx) {
            let Some(name_node) = crd.object.root.path(&["metadata", "name"]) else {
                continue;
            };
            let (Some(name), Some(group), Some(kind)) = (name_node.as_str(), crd.group, crd.kind)
            else {
                continue;
            };
            if [name, group, kind].into_iter().any(has_variable) {
                continue;
            }
            let skipped = crd.object.annotation(SKIP_CRD_NAME_CHECK).is_some();
            let expected = calculate_crd_name(group, kind);
            let api_server_name = crd.plural().map(|plural| format!("{plural}.{group}"));
            let clusterctl_refuses = !skipped && name != expected;
            match api_server_name {
                Some(wanted) if wanted != name => {
                    let mut message = format!(
                        "CRD name `{name}` is not `<plural>.<group>` (`{wanted}`): the API server \
                         rejects it"
                    );
                    if clusterctl_refuses && wanted != expected {
                        message.push_str(&format!(
                            ", and clusterctl expects `{expected}` for kind `{kind}`"
                        ));
                    }
                    findings.at_node(crd.file, name_node, message);
                }
                _ if clusterctl_refuses => {
                    let plural = expected
                        .strip_suffix(&format!(".{group}"))
                        .unwrap_or(&expected);
                    findings
                        .at_node(
                            crd.file,
                            name_node,
                            format!(
                                "CRD name `{name}` is not what clusterctl computes from group \
                                 `{group}` and kind `{kind}` (`{expected}`): `clusterctl init` \
                                 refuses the provider"
                            ),
                        )
                        .with_help(format!(
                            "set `spec.names.plural` to `{plural}` and `metadata.name` to \
                             `{expected}`; if core Cluster API never references `{kind}`, the \
                             annotation `{SKIP_CRD_NAME_CHECK}` turns clusterctl's check off \
                             (\"<Resource>, <Resource>List resource definition\" in each \
                             provider contract)"
                        ));
                }
                _ => {}
            }
        }
    },
};

pub(super) static STORAGE_VERSION: Rule = Rule {
    id: "crd/storage-version",
    severity: Severity::Error,
    summary: "a CRD does not mark exactly one version as the storage version",
    explanation: "The API server stores every object of a CRD in one version and rejects a \
        CustomResourceDefinition whose `spec.versions` mark none, or more than one, with \
        `storage: true`; `clusterctl init` then fails half-way through applying the components. \
        The contracts' CRD examples mark it with `+kubebuilder:storageversion`; two marks usually \
        come from a conversion being added without moving the marker.",
    help: "set `storage: true` on exactly one entry of `spec.versions`, usually the newest \
        (\"<Resource>, <Resource>List resource definition\" in each provider contract, \
        `+kubebuilder:storageversion`)",
    reference: Reference {
        title: "provider contracts, \"<Resource>, <Resource>List resource definition\" \
            (`+kubebuilder:storageversion`)",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        for crd in Crd::all(cx) {
            let Some((versions, _)) = crd
                .object
                .root
                .get("spec")
                .and_then(|spec| spec.as_mapping()?.entry("versions"))
            else {
                continue;
            };
            if crd.versions.is_empty() {
                continue;
            }
            let stored: Vec<&CrdVersion<'_>> = crd.versions.iter().filter(|v| v.storage).collect();
            match stored.as_slice() {
                [] => {
                    findings.at_node(
                        crd.file,
                        versions,
                        format!(
                            "CRD `{}` marks none of its versions as the storage version",
                            crd.name()
                        ),
                    );
                }
                [_] => {}
                [first, second, ..] => {
                    let names: Vec<String> = stored
                        .iter()
                        .map(|v| format!("`{}`", v.name.unwrap_or("?")))
                        .collect();
                    let anchor = second.node.get("storage").unwrap_or(second.anchor());
                    let first_anchor = first.node.get("storage").unwrap_or(first.anchor());
                    findings
                        .at_node(
                            crd.file,
                            anchor,
                            format!(
                                "CRD `{}` marks {} versions as the storage version ({})",
                                crd.name(),
                                stored.len(),
                                names.join(", ")
                            ),
                        )
                        .with_label(first_anchor.span(), "also marked here");
                }
            }
        }
    },
};

pub(super) static NAMESPACED: Rule = Rule {
    id: "crd/namespaced",
    severity: Severity::Error,
    summary: "a resource core Cluster API references is not namespace-scoped",
    explanation: "Every contract says \"All resources MUST be namespace-scoped\": Clusters, \
        Machines and MachinePools refer to their infrastructure, bootstrap and control plane \
        objects by name within their own namespace, and `clusterctl move` moves them per \
        namespace. A cluster-scoped InfraCluster, InfraMachine, InfraMachinePool, ControlPlane \
        or BootstrapConfig (or its template) cannot be referenced. Helper CRDs such as \
        cluster-wide identities are not contract resources and may be cluster-scoped.",
    help: "set `spec.scope: Namespaced` (\"All resources: scope\" in the provider contract)",
    reference: Reference {
        title: "provider contracts, \"All resources: scope\"",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        for crd in Crd::all(cx) {
            let Some(resource) = crd.contract_resource() else {
                continue;
            };
            let scope = crd.spec(&["scope"]);
            if scope.and_then(Node::as_str) == Some("Namespaced") {
                continue;
            }
            let (anchor, what) = match scope {
                Some(node) => (
                    node,
                    format!("`{}`", node.scalar_text().unwrap_or("not a string")),
                ),
                None => (crd.anchor(), "not set".to_string()),
            };
            findings
                .at_node(
                    crd.file,
                    anchor,
                    format!(
                        "{} CRD `{}` must be namespace-scoped; its scope is {what}",
                        resource.describe(),
                        crd.name()
                    ),
                )
                .with_help(format!(
                    "set `spec.scope: Namespaced` ({})",
                    cite(resource.role, "All resources: scope")
                ));
        }
    },
};

pub(super) static LIST_KIND: Rule = Rule {
    id: "crd/list-kind",
    severity: Severity::Error,
    summary: "a contract resource's list kind is not `<Kind>List`",
    explanation: "Each contract asks for a list resource named `<Resource>List` beside every \
        resource core Cluster API interacts with (`FooMachineList` for `FooMachine`); core and \
        clusterctl list these objects by that name. The API server defaults \
        `spec.names.listKind` to `<kind>List` when it is left out, so only a different value is \
        a problem.",
    help: "set `spec.names.listKind` to the kind followed by `List`, or leave it out (\"<Resource>, \
        <Resource>List resource definition\" in the provider contract)",
    reference: Reference {
        title: "provider contracts, \"<Resource>, <Resource>List resource definition\" (the list \
            resource MUST be named `<Resource>List`)",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        for crd in Crd::all(cx) {
            let (Some(resource), Some(kind)) = (crd.contract_resource(), crd.kind) else {
                continue;
            };
            let Some(list_kind) = crd.spec(&["names", "listKind"]) else {
                continue;
            };
            let wanted = format!("{kind}List");
            if list_kind.as_str() == Some(wanted.as_str()) {
                continue;
            }
            findings
                .at_node(
                    crd.file,
                    list_kind,
                    format!(
                        "the list kind of {} `{kind}` is `{}`, not `{wanted}`",
                        resource.describe(),
                        list_kind.scalar_text().unwrap_or("not a string")
                    ),
                )
                .with_help(format!(
                    "set `spec.names.listKind: {wanted}` ({})",
                    cite(resource.role, &section(resource, "resource definition"))
                ));
        }
    },
};

pub(super) static STATUS_SUBRESOURCE: Rule = Rule {
    id: "crd/status-subresource",
    severity: Severity::Warning,
    summary: "a served version of a contract resource has no status subresource",
    explanation: "Core Cluster API reads the status of InfraClusters, InfraMachines, \
        InfraMachinePools, ControlPlanes and BootstrapConfigs (`initialization`, `ready`, \
        `replicas`, conditions, failure fields), and the contracts define those resources with \
        `+kubebuilder:subresource:status`. Without the subresource, status is an ordinary part \
        of the object: the provider's `Status().Update` calls fail, and any spec update by a \
        user or by core can overwrite what the controller reported. Templates carry no status \
        and are not checked.",
    help: "add `subresources: {status: {}}` to every served version (`+kubebuilder:subresource:status`; \
        \"<Resource>, <Resource>List resource definition\" in the provider contract)",
    reference: Reference {
        title: "provider contracts, \"<Resource>, <Resource>List resource definition\" \
            (`+kubebuilder:subresource:status`)",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        for crd in Crd::all(cx) {
            let Some(resource) = crd.contract_resource().filter(|r| !r.template) else {
                continue;
            };
            for version in crd.served_versions() {
                if version.subresource("status").is_some() {
                    continue;
                }
                findings
                    .at_node(
                        crd.file,
                        version.anchor(),
                        format!(
                            "served version `{}` of {} CRD `{}` has no status subresource",
                            version.name.unwrap_or("?"),
                            resource.describe(),
                            crd.name()
                        ),
                    )
                    .with_help(format!(
                        "add `subresources: {{status: {{}}}}` to the version ({})",
                        cite(resource.role, &section(resource, "resource definition"))
                    ));
            }
        }
    },
};

/// The scale subresource the ControlPlane contract asks for, field by field.
const SCALE_PATHS: [(&str, &str); 3] = [
    ("specReplicasPath", ".spec.replicas"),
    ("statusReplicasPath", ".status.replicas"),
    ("labelSelectorPath", ".status.selector"),
];

pub(super) static SCALE_SUBRESOURCE: Rule = Rule {
    id: "crd/scale-subresource",
    severity: Severity::Error,
    summary: "a ControlPlane with replicas lacks the scale subresource the contract specifies",
    explanation: "A control plane with a notion of replicas (`spec.replicas`) MUST support the \
        scale subresource with `specReplicasPath: .spec.replicas`, `statusReplicasPath: \
        .status.replicas` and `labelSelectorPath: .status.selector`. `kubectl scale`, the \
        autoscaler and core Cluster API reach the replica count only through it. Managed control \
        planes without `spec.replicas` (EKS, AKS, GKE) need none and are not checked; when a \
        version has no schema to tell, control plane providers are checked.",
    help: "add `subresources: {scale: {specReplicasPath: .spec.replicas, statusReplicasPath: \
        .status.replicas, labelSelectorPath: .status.selector}}` to every served version \
        (ControlPlane contract, \"ControlPlane: replicas\")",
    reference: Reference {
        title: "ControlPlane contract, \"ControlPlane: replicas\" (the scale subresource)",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        for crd in Crd::all(cx) {
            let Some(resource) = crd
                .contract_resource()
                .filter(|r| r.role == Role::ControlPlane && !r.template)
            else {
                continue;
            };
            for version in crd.served_versions() {
                let has_replicas = version.declares_spec_replicas()
                    || (!version.has_schema()
                        && crd.provider_type == Some(ProviderType::ControlPlane));
                if !has_replicas {
                    continue;
                }
                check_scale(&crd, resource, version, findings);
            }
        }
    },
};

fn check_scale(
    crd: &Crd<'_>,
    resource: ContractResource,
    version: &CrdVersion<'_>,
    findings: &mut crate::rules::Findings<'_>,
) {
    let version_name = version.name.unwrap_or("?");
    let Some(scale) = version.subresource("scale") else {
        findings.at_node(
            crd.file,
            version.anchor(),
            format!(
                "served version `{version_name}` of {} CRD `{}` has `spec.replicas` but no scale \
                 subresource",
                resource.describe(),
                crd.name()
            ),
        );
        return;
    };
    for (key, wanted) in SCALE_PATHS {
        match scale.get(key) {
            Some(value) if value.as_str() == Some(wanted) => {}
            Some(value) => {
                findings
                    .at_node(
                        crd.file,
                        value,
                        format!(
                            "the scale subresource of `{version_name}` in CRD `{}` has `{key}: {}`, \
                             not `{wanted}`",
                            crd.name(),
                            value.scalar_text().unwrap_or("not a string")
                        ),
                    )
                    .with_help(format!("set `{key}: {wanted}` (ControlPlane contract, \"ControlPlane: replicas\")"));
            }
            None => {
                findings
                    .at_node(
                        crd.file,
                        scale,
                        format!(
                            "the scale subresource of `{version_name}` in CRD `{}` has no `{key}` \
                             (`{wanted}`)",
                            crd.name()
                        ),
                    )
                    .with_help(format!(
                        "add `{key}: {wanted}` (ControlPlane contract, \"ControlPlane: replicas\")"
                    ));
            }
        }
    }
}

pub(super) static TEMPLATE: Rule = Rule {
    id: "crd/template",
    severity: Severity::Warning,
    summary: "a contract resource has no `…Template` CRD beside it",
    explanation: "ClusterClass refers to templates, never to the resources themselves: an \
        InfraCluster, ControlPlane or InfraMachinePool without its `<Kind>Template` CRD cannot be \
        used in a ClusterClass (\"mandatory for ClusterClass support\"; a warning). \
        MachineDeployments and MachineSets clone an InfraMachineTemplate and a \
        BootstrapConfigTemplate for every Machine, so for InfraMachines and BootstrapConfigs the \
        contracts make the template mandatory and a missing one is an error. The template must \
        be named `<Kind>Template` in the same API group.",
    help: "add a `<Kind>Template` CRD in the same group (\"<Resource>Template, \
        <Resource>TemplateList resource definition\" in the provider contract)",
    reference: Reference {
        title: "provider contracts, \"<Resource>Template, <Resource>TemplateList resource \
            definition\"",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        let crds = Crd::all(cx);
        for crd in &crds {
            let (Some(resource), Some(kind), Some(group)) =
                (crd.contract_resource(), crd.kind, crd.group)
            else {
                continue;
            };
            if resource.template {
                continue;
            }
            let Some(mandatory) = resource.role.template_mandatory() else {
                continue;
            };
            let template_kind = format!("{kind}Template");
            let shipped = crds.iter().any(|other| {
                std::ptr::eq(other.file, crd.file)
                    && other.group == Some(group)
                    && other.kind == Some(template_kind.as_str())
            });
            if shipped {
                continue;
            }
            let why = if mandatory {
                "the contract makes it mandatory (MachineDeployments and MachineSets clone it)"
            } else {
                "mandatory for ClusterClass support"
            };
            let template = ContractResource {
                role: resource.role,
                template: true,
            };
            let diagnostic = findings
                .at_node(
                    crd.file,
                    crd.anchor(),
                    format!(
                        "{} `{kind}` has no `{template_kind}` CRD in group `{group}`: {why}",
                        resource.describe()
                    ),
                )
                .with_help(format!(
                    "add a `{template_kind}` CRD ({})",
                    cite(resource.role, &section(template, "resource definition"))
                ));
            if mandatory {
                diagnostic.with_severity(Severity::Error);
            }
        }
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check_files};

    const INFRA: &str = "infrastructure-components.yaml";
    const CP: &str = "control-plane-components.yaml";

    /// A CRD document; `versions` is the YAML of `spec.versions` entries, indented by 2.
    fn crd(name: &str, group: &str, kind: &str, plural: &str, rest: &str) -> String {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {name}\nspec:\n  group: {group}\n  names:\n    kind: {kind}\n    listKind: {kind}List\n    plural: {plural}\n{rest}"
        )
    }

    const NAMESPACED_ONE_VERSION: &str = "  scope: Namespaced\n  versions:\n  - name: v1beta1\n    served: true\n    storage: true\n    subresources:\n      status: {}\n";

    #[test]
    fn name_accepts_flect_plurals() {
        let g = "infrastructure.cluster.x-k8s.io";
        for (kind, plural) in [
            ("FooCluster", "fooclusters"),
            ("HelmChartProxy", "helmchartproxies"),
            ("NetworkPolicy", "networkpolicies"),
            ("MachineStatus", "machinestatuses"),
            ("FooBox", "fooboxes"),
            ("FooSwitch", "fooswitches"),
            ("Metal3Data", "metal3data"),
        ] {
            let text = crd(
                &format!("{plural}.{g}"),
                g,
                kind,
                plural,
                NAMESPACED_ONE_VERSION,
            );
            assert!(check_files(&NAME, &[(INFRA, &text)]).is_empty(), "{kind}");
        }
    }

    #[test]
    fn name_differing_from_flect_is_refused_like_clusterctl() {
        let g = "infrastructure.cluster.x-k8s.io";
        // Old controller-gen pluralised `Metal3Data` as `metal3datas`; flect keeps `metal3data`.
        let text = crd(
            "metal3datas.infrastructure.cluster.x-k8s.io",
            g,
            "Metal3Data",
            "metal3datas",
            NAMESPACED_ONE_VERSION,
        );
        let found = check_files(&NAME, &[(INFRA, &text)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "crd/name");
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(at(&found[0]), (4, 9));
        assert!(
            found[0]
                .message
                .contains("`metal3datas.infrastructure.cluster.x-k8s.io`")
        );
        assert!(
            found[0]
                .message
                .contains("`metal3data.infrastructure.cluster.x-k8s.io`")
        );
        assert!(found[0].help.contains("`metal3data`"));

        // The annotation turns the check off, as in clusterctl.
        let skipped = text.replace(
            "metadata:\n",
            "metadata:\n  annotations:\n    clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check: \"\"\n",
        );
        assert!(check_files(&NAME, &[(INFRA, &skipped)]).is_empty());
    }

    #[test]
    fn name_must_be_plural_dot_group() {
        let g = "example.com";
        let text = crd("foo.example.com", g, "Foo", "foos", NAMESPACED_ONE_VERSION);
        let found = check_files(&NAME, &[(INFRA, &text)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (4, 9));
        assert!(found[0].message.contains("`foos.example.com`"));
        assert!(found[0].message.contains("rejects"));
        // The skip annotation does not make the API server accept it.
        let skipped = text.replace(
            "metadata:\n",
            "metadata:\n  annotations:\n    clusterctl.cluster.x-k8s.io/skip-crd-name-preflight-check: \"\"\n",
        );
        assert_eq!(check_files(&NAME, &[(INFRA, &skipped)]).len(), 1);
    }

    #[test]
    fn storage_version() {
        let g = "infrastructure.cluster.x-k8s.io";
        let two = "  scope: Namespaced\n  versions:\n  - name: v1beta1\n    served: true\n    storage: true\n  - name: v1beta2\n    served: true\n    storage: true\n";
        let good = two.replacen("storage: true", "storage: false", 1);
        let text = |rest: &str| {
            crd(
                &format!("fooclusters.{g}"),
                g,
                "FooCluster",
                "fooclusters",
                rest,
            )
        };
        assert!(check_files(&STORAGE_VERSION, &[(INFRA, &text(&good))]).is_empty());
        let found = check_files(&STORAGE_VERSION, &[(INFRA, &text(two))]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "crd/storage-version");
        assert_eq!(at(&found[0]), (18, 14));
        assert!(found[0].message.contains("`v1beta1`, `v1beta2`"));
        assert_eq!(found[0].labels.len(), 1);
        let none = two.replace("storage: true", "storage: false");
        let found = check_files(&STORAGE_VERSION, &[(INFRA, &text(&none))]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (12, 3));
        assert!(found[0].message.contains("none"));
    }

    #[test]
    fn namespaced() {
        let g = "infrastructure.cluster.x-k8s.io";
        let text = |kind: &str, plural: &str, scope: &str| {
            crd(
                &format!("{plural}.{g}"),
                g,
                kind,
                plural,
                &NAMESPACED_ONE_VERSION.replace("Namespaced", scope),
            )
        };
        assert!(
            check_files(
                &NAMESPACED,
                &[(INFRA, &text("FooCluster", "fooclusters", "Namespaced"))]
            )
            .is_empty()
        );
        // Cluster-scoped helper CRDs (identities) are not contract resources.
        let identity = text("FooClusterIdentity", "fooclusteridentities", "Cluster");
        assert!(check_files(&NAMESPACED, &[(INFRA, &identity)]).is_empty());
        let found = check_files(
            &NAMESPACED,
            &[(
                INFRA,
                &text("FooMachineTemplate", "foomachinetemplates", "Cluster"),
            )],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "crd/namespaced");
        assert_eq!(at(&found[0]), (11, 10));
        assert!(
            found[0]
                .message
                .contains("InfraMachineTemplate CRD `foomachinetemplates.")
        );
        assert!(found[0].help.contains("infra-machine"));
    }

    #[test]
    fn list_kind() {
        let g = "controlplane.cluster.x-k8s.io";
        let good = crd(
            &format!("foocontrolplanes.{g}"),
            g,
            "FooControlPlane",
            "foocontrolplanes",
            NAMESPACED_ONE_VERSION,
        );
        assert!(check_files(&LIST_KIND, &[(CP, &good)]).is_empty());
        let missing = good.replace("    listKind: FooControlPlaneList\n", "");
        assert!(check_files(&LIST_KIND, &[(CP, &missing)]).is_empty());
        let bad = good.replace(
            "listKind: FooControlPlaneList",
            "listKind: FooControlPlanes",
        );
        let found = check_files(&LIST_KIND, &[(CP, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "crd/list-kind");
        assert_eq!(at(&found[0]), (9, 15));
        assert!(
            found[0]
                .message
                .contains("`FooControlPlanes`, not `FooControlPlaneList`")
        );
    }

    #[test]
    fn status_subresource() {
        let g = "infrastructure.cluster.x-k8s.io";
        let good = crd(
            &format!("foomachines.{g}"),
            g,
            "FooMachine",
            "foomachines",
            NAMESPACED_ONE_VERSION,
        );
        assert!(check_files(&STATUS_SUBRESOURCE, &[(INFRA, &good)]).is_empty());
        let bad = good.replace("    subresources:\n      status: {}\n", "");
        let found = check_files(&STATUS_SUBRESOURCE, &[(INFRA, &bad)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "crd/status-subresource");
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(at(&found[0]), (13, 11));
        assert!(
            found[0]
                .message
                .contains("`v1beta1` of InfraMachine CRD `foomachines.")
        );
        // Unserved versions and templates are not checked.
        let unserved = bad.replace("served: true", "served: false");
        assert!(check_files(&STATUS_SUBRESOURCE, &[(INFRA, &unserved)]).is_empty());
        let template = crd(
            &format!("foomachinetemplates.{g}"),
            g,
            "FooMachineTemplate",
            "foomachinetemplates",
            &bad[bad.find("  scope").unwrap_or(0)..],
        );
        assert!(check_files(&STATUS_SUBRESOURCE, &[(INFRA, &template)]).is_empty());
    }

    #[test]
    fn scale_subresource() {
        let g = "controlplane.cluster.x-k8s.io";
        let schema = "    schema:\n      openAPIV3Schema:\n        properties:\n          spec:\n            properties:\n              replicas:\n                type: integer\n";
        let scale = "    subresources:\n      scale:\n        labelSelectorPath: .status.selector\n        specReplicasPath: .spec.replicas\n        statusReplicasPath: .status.replicas\n      status: {}\n";
        let version = "  scope: Namespaced\n  versions:\n  - name: v1beta2\n    served: true\n    storage: true\n";
        let text = |rest: &str| {
            crd(
                &format!("foocontrolplanes.{g}"),
                g,
                "FooControlPlane",
                "foocontrolplanes",
                rest,
            )
        };
        let good = text(&format!("{version}{schema}{scale}"));
        assert!(check_files(&SCALE_SUBRESOURCE, &[(CP, &good)]).is_empty());

        let missing = text(&format!(
            "{version}{schema}    subresources:\n      status: {{}}\n"
        ));
        let found = check_files(&SCALE_SUBRESOURCE, &[(CP, &missing)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "crd/scale-subresource");
        assert_eq!(at(&found[0]), (13, 11));
        assert!(
            found[0]
                .message
                .contains("`v1beta2` of ControlPlane CRD `foocontrolplanes.")
        );

        let wrong = good.replace(
            "labelSelectorPath: .status.selector",
            "labelSelectorPath: .spec.selector",
        );
        let found = check_files(&SCALE_SUBRESOURCE, &[(CP, &wrong)]);
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (25, 28));
        assert!(
            found[0]
                .message
                .contains("`labelSelectorPath: .spec.selector`, not `.status.selector`")
        );

        // A managed control plane without replicas (EKS, AKS) needs no scale subresource, even
        // from an infrastructure provider.
        let managed = text(&format!(
            "{version}    schema:\n      openAPIV3Schema:\n        properties:\n          spec:\n            properties:\n              version:\n                type: string\n"
        ));
        assert!(check_files(&SCALE_SUBRESOURCE, &[(INFRA, &managed)]).is_empty());
        // Without a schema, control plane providers are held to the contract.
        let opaque = text(version);
        assert_eq!(check_files(&SCALE_SUBRESOURCE, &[(CP, &opaque)]).len(), 1);
        assert!(check_files(&SCALE_SUBRESOURCE, &[(INFRA, &opaque)]).is_empty());
    }

    #[test]
    fn template() {
        let g = "infrastructure.cluster.x-k8s.io";
        let one = |kind: &str, plural: &str| {
            crd(
                &format!("{plural}.{g}"),
                g,
                kind,
                plural,
                NAMESPACED_ONE_VERSION,
            )
        };
        let cluster = one("FooCluster", "fooclusters");
        let cluster_template = one("FooClusterTemplate", "fooclustertemplates");
        let machine = one("FooMachine", "foomachines");
        let machine_template = one("FooMachineTemplate", "foomachinetemplates");
        let all = [
            cluster.as_str(),
            &cluster_template,
            &machine,
            &machine_template,
        ]
        .join("---\n");
        assert!(check_files(&TEMPLATE, &[(INFRA, &all)]).is_empty());

        let found = check_files(
            &TEMPLATE,
            &[(INFRA, &[cluster.as_str(), &machine].join("---\n"))],
        );
        assert_eq!(found.len(), 2);
        assert!(found.iter().all(|d| d.rule == "crd/template"));
        assert_eq!(at(&found[0]), (4, 9));
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(
            found[0]
                .message
                .contains("InfraCluster `FooCluster` has no `FooClusterTemplate`")
        );
        assert!(
            found[0]
                .message
                .contains("mandatory for ClusterClass support")
        );
        assert!(found[0].help.contains("infra-cluster"));
        assert_eq!(at(&found[1]), (22, 9));
        assert_eq!(found[1].severity, Severity::Error);
        assert!(found[1].message.contains("`FooMachineTemplate`"));

        // Pool machines are created by their pool and have no template.
        let pool_machine = one("FooMachinePoolMachine", "foomachinepoolmachines");
        assert!(check_files(&TEMPLATE, &[(INFRA, &pool_machine)]).is_empty());
    }
}
