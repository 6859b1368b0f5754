//! `crd/contract-label…`: the `cluster.x-k8s.io/<contract>: <version>[_<version>…]` labels on
//! CRDs, which tell core Cluster API which API version of a provider resource implements which
//! contract.
//!
//! clusterctl never checks them; core reads them at runtime (`GetContractVersion`,
//! `GetLatestContractAndAPIVersionFromContract`): for a referenced resource it derives the CRD
//! name, reads the label of the newest contract it supports, and picks the greatest API version
//! (Kubernetes' version order) in the `_`-separated value. That contract version also decides
//! which status fields core reads (`status.ready` for v1beta1, `status.initialization` for
//! v1beta2).

use super::cite;
use super::resource::{
    CONTRACT_LABEL_PREFIX, CONTROL_PLANE_CONTRACT, Crd, compare_kube_versions, current_contract,
    has_variable, is_contract_label, release_series,
};
use crate::rules::{Reference, Rule, Severity};
use crate::yaml::Node;

const VERSION_SECTION: &str = "All resources: version";

pub(super) static CONTRACT_LABEL: Rule = Rule {
    id: "crd/contract-label",
    severity: Severity::Error,
    summary: "a contract resource's CRD lacks the `cluster.x-k8s.io/<contract>` label of the release's contract",
    explanation: "Providers MUST label the CRDs core Cluster API interacts with \
        `cluster.x-k8s.io/<contract>: <versions>` for the contract(s) they implement, and the \
        contract must agree with `metadata.yaml`. Core reads the label of a referenced resource's \
        CRD to pick the API version to convert references to and to decide which contract's \
        fields to read; without it core reports `cannot find any versions matching contract \
        versions` and the Cluster never provisions, and with only an older contract's label core \
        reads the older contract's fields. The contract the release implements is the one of \
        the release series of `--version`, or else of the newest release series in \
        `metadata.yaml`. A label for a contract no release series declares is a warning.",
    help: "add `cluster.x-k8s.io/<contract>: <version>[_<version>…]` for the contract in \
        `metadata.yaml` to the CRD's labels, e.g. through the `labels` of `config/crd` in \
        kustomize (\"All resources: version\" in the provider contract)",
    reference: Reference {
        title: "provider contracts, \"All resources: version\" (Providers MUST set \
            cluster.x-k8s.io/<version> label on the Custom Resource Definitions)",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        let declared: Vec<&str> = release_series(cx).iter().map(|s| s.contract).collect();
        let current = current_contract(cx);
        for crd in Crd::all(cx) {
            let Some(resource) = crd.contract_resource() else {
                continue;
            };
            let labels_entry = crd.object.root.path_entry(&["metadata", "labels"]);
            let contract_labels: Vec<(&str, &Node)> = crd
                .object
                .labels()
                .map(|labels| {
                    labels
                        .iter()
                        .filter(|(key, _, _)| is_contract_label(key))
                        .map(|(key, node, _)| (key, node))
                        .collect()
                })
                .unwrap_or_default();
            let anchor = labels_entry.map_or(crd.anchor(), |(key, _)| key);
            let wanted = current.as_ref().map(|(contract, why)| {
                (format!("{CONTRACT_LABEL_PREFIX}{contract}"), *contract, why)
            });
            let help = |label: &str| {
                format!(
                    "add `{label}: <versions>` to the labels of CRD `{}` ({})",
                    crd.name(),
                    cite(resource.role, VERSION_SECTION)
                )
            };
            match &wanted {
                _ if contract_labels.is_empty() => {
                    let label = wanted.as_ref().map_or_else(
                        || format!("{CONTRACT_LABEL_PREFIX}<contract>"),
                        |(label, _, _)| label.clone(),
                    );
                    let why = wanted
                        .as_ref()
                        .map(|(_, contract, why)| format!(" (contract `{contract}`, {why})"))
                        .unwrap_or_default();
                    findings
                        .at_node(
                            crd.file,
                            anchor,
                            format!(
                                "{} CRD `{}` has no `cluster.x-k8s.io/<contract>` label: core \
                                 Cluster API cannot tell which of its versions implements the \
                                 contract; add `{label}`{why}",
                                resource.describe(),
                                crd.name()
                            ),
                        )
                        .with_help(help(&label));
                }
                Some((label, contract, why))
                    if !contract_labels.iter().any(|(key, _)| key == label) =>
                {
                    let present: Vec<String> = contract_labels
                        .iter()
                        .map(|(key, _)| format!("`{key}`"))
                        .collect();
                    let diagnostic = findings
                        .at_node(
                            crd.file,
                            anchor,
                            format!(
                                "{} CRD `{}` has no `{label}` label for contract `{contract}` \
                                 ({why}); it has only {}",
                                resource.describe(),
                                crd.name(),
                                present.join(", ")
                            ),
                        )
                        .with_help(help(label));
                    if let Some((_, node)) = contract_labels.first() {
                        diagnostic.with_label(node.span(), "the contract labels it has");
                    }
                }
                _ => {}
            }
            if declared.is_empty() {
                continue;
            }
            for (key, node) in &contract_labels {
                let contract = key.trim_start_matches(CONTRACT_LABEL_PREFIX);
                if declared.contains(&contract) {
                    continue;
                }
                findings
                    .at_node(
                        crd.file,
                        node,
                        format!(
                            "label `{key}` of CRD `{}` names contract `{contract}`, which no \
                             release series in `metadata.yaml` declares",
                            crd.name()
                        ),
                    )
                    .with_severity(Severity::Warning)
                    .with_help(format!(
                        "remove the label, or fix the contract name ({})",
                        cite(resource.role, VERSION_SECTION)
                    ));
            }
        }
    },
};

pub(super) static CONTRACT_LABEL_VERSIONS: Rule = Rule {
    id: "crd/contract-label-versions",
    severity: Severity::Error,
    summary: "a contract label names API versions the CRD does not serve",
    explanation: "The value of a `cluster.x-k8s.io/<contract>` label is an `_`-separated list of \
        the CRD's API versions, and each \"MUST point to an available version in your CRD \
        Spec\". Core picks the greatest of them (in Kubernetes' version order) and converts \
        references to it: when that version is not served, every reference to the resource \
        fails. That is an error on the label of the release's contract (see \
        `crd/contract-label`) of a contract resource. Other entries that are not served are \
        stale (core never picks them while a greater one is listed), and labels on helper CRDs \
        are never read by core: those are warnings, one per CRD.",
    help: "list only versions in `spec.versions` with `served: true`, separated by `_` \
        (\"All resources: version\" in the provider contract)",
    reference: Reference {
        title: "provider contracts, \"All resources: version\" (each value MUST point to an \
            available version in your CRD Spec)",
        url: CONTROL_PLANE_CONTRACT.url,
    },
    check: |cx, findings| {
        let current = current_contract(cx).map(|(contract, _)| contract);
        for crd in Crd::all(cx) {
            let resource = crd.contract_resource();
            let Some(labels) = crd.object.labels() else {
                continue;
            };
            let mut problems: Vec<(&Node, String, bool)> = Vec::new();
            for (key, _, value) in labels.iter().filter(|(key, _, _)| is_contract_label(key)) {
                let contract = key.trim_start_matches(CONTRACT_LABEL_PREFIX);
                // Core reads the label of the release's contract; when the release's contract is
                // unknown, any label may be the one it reads.
                let read_by_core = resource.is_some() && current.is_none_or(|c| c == contract);
                if let Some((message, fatal)) = label_problem(&crd, key, value, read_by_core) {
                    problems.push((value, message, fatal));
                }
            }
            let Some(first) = problems.first() else {
                continue;
            };
            let fatal = problems.iter().any(|(_, _, fatal)| *fatal);
            // The first fatal problem leads, else the first.
            let lead = problems.iter().find(|(_, _, f)| *f).unwrap_or(first);
            let mut message = format!("CRD `{}`: {}", crd.name(), lead.1);
            let others: Vec<&(&Node, String, bool)> = problems
                .iter()
                .filter(|p| !std::ptr::eq(*p, lead))
                .collect();
            for (_, text, _) in &others {
                message.push_str("; ");
                message.push_str(text);
            }
            if resource.is_none() {
                message.push_str(" (core Cluster API does not read labels on this CRD)");
            }
            let diagnostic = findings.at_node(crd.file, lead.0, message);
            for (node, _, _) in &others {
                diagnostic.with_label(node.span(), "also here");
            }
            if let Some(resource) = resource {
                diagnostic.with_help(format!(
                    "list only served versions of the CRD, separated by `_` ({})",
                    cite(resource.role, VERSION_SECTION)
                ));
            }
            if !fatal {
                diagnostic.with_severity(Severity::Warning);
            }
        }
    },
};

/// What is wrong with one contract label's value. `read_by_core`: core reads this label, so the
/// version it picks matters.
fn label_problem(
    crd: &Crd<'_>,
    key: &str,
    value: &Node,
    read_by_core: bool,
) -> Option<(String, bool)> {
    let Some(text) = value.as_str().filter(|t| !t.is_empty()) else {
        return Some((format!("label `{key}` lists no versions"), read_by_core));
    };
    if has_variable(text) {
        return None;
    }
    let listed: Vec<&str> = text.split('_').collect();
    let picked = listed
        .iter()
        .copied()
        .max_by(|a, b| compare_kube_versions(a, b))
        .unwrap_or(text);
    let status = |version: &str| match crd.version(version) {
        Some(v) if v.served => None,
        Some(_) => Some("not served"),
        None => Some("not a version of the CRD"),
    };
    let picked_status = status(picked).filter(|_| read_by_core);
    let others: Vec<String> = listed
        .iter()
        .filter(|v| picked_status.is_none() || **v != picked)
        .filter_map(|v| status(v).map(|why| format!("`{v}` ({why})")))
        .collect();
    let listing = others.join(", ");
    let message = match picked_status {
        Some(why) if others.is_empty() => {
            format!("label `{key}: {text}`: core picks `{picked}`, which is {why}")
        }
        Some(why) => format!(
            "label `{key}: {text}`: core picks `{picked}`, which is {why}, and it also lists {listing}"
        ),
        None if others.is_empty() => return None,
        None => format!("label `{key}: {text}` lists {listing}"),
    };
    Some((message, picked_status.is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::{at, check, check_files, release, with_version};

    const INFRA: &str = "infrastructure-components.yaml";
    const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 0\n  minor: 9\n  contract: v1beta1\n- major: 0\n  minor: 10\n  contract: v1beta2\n";

    fn crd(kind: &str, labels: &str, versions: &[(&str, bool)]) -> String {
        let plural = format!("{}s", kind.to_lowercase());
        let mut text = format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.infrastructure.cluster.x-k8s.io\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-foo\n{labels}spec:\n  group: infrastructure.cluster.x-k8s.io\n  names:\n    kind: {kind}\n    plural: {plural}\n  scope: Namespaced\n  versions:\n"
        );
        for (i, (name, served)) in versions.iter().enumerate() {
            text.push_str(&format!(
                "  - name: {name}\n    served: {served}\n    storage: {}\n",
                i + 1 == versions.len()
            ));
        }
        text
    }

    #[test]
    fn contract_label_of_the_newest_series_is_required() {
        let good = crd(
            "FooCluster",
            "    cluster.x-k8s.io/v1beta1: v1alpha2\n    cluster.x-k8s.io/v1beta2: v1alpha2\n",
            &[("v1alpha2", true)],
        );
        assert!(
            check_files(
                &CONTRACT_LABEL,
                &[(INFRA, &good), ("metadata.yaml", METADATA)]
            )
            .is_empty()
        );

        // Linode's case: only the v1beta1 label although 0.10 declares v1beta2.
        let old = crd(
            "FooCluster",
            "    cluster.x-k8s.io/v1beta1: v1alpha2\n",
            &[("v1alpha2", true)],
        );
        let found = check_files(
            &CONTRACT_LABEL,
            &[(INFRA, &old), ("metadata.yaml", METADATA)],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "crd/contract-label");
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(at(&found[0]), (5, 3));
        assert!(
            found[0]
                .message
                .contains("InfraCluster CRD `fooclusters.infrastructure.cluster.x-k8s.io`")
        );
        assert!(found[0].message.contains("`cluster.x-k8s.io/v1beta2`"));
        assert!(found[0].message.contains("newest release series 0.10"));
        assert!(found[0].help.contains("infra-cluster"));

        // With `--version v0.9.3` the release implements v1beta1, which is labelled.
        let release = release(&[(INFRA, &old), ("metadata.yaml", METADATA)]);
        assert!(check(&CONTRACT_LABEL, &release, &with_version("v0.9.3")).is_empty());
    }

    #[test]
    fn contract_label_missing_entirely() {
        let none = crd("FooMachineTemplate", "", &[("v1beta1", true)]);
        let found = check_files(
            &CONTRACT_LABEL,
            &[(INFRA, &none), ("metadata.yaml", METADATA)],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(at(&found[0]), (5, 3));
        assert!(found[0].message.contains("InfraMachineTemplate CRD"));
        assert!(
            found[0]
                .message
                .contains("has no `cluster.x-k8s.io/<contract>` label")
        );
        assert!(found[0].message.contains("`cluster.x-k8s.io/v1beta2`"));
        // Without metadata.yaml any contract label would do.
        let found = check_files(&CONTRACT_LABEL, &[(INFRA, &none)]);
        assert_eq!(found.len(), 1);
        // Helper CRDs, and IPAM or add-on providers, need none.
        let helper = crd("FooFirewall", "", &[("v1beta1", true)]);
        assert!(
            check_files(
                &CONTRACT_LABEL,
                &[(INFRA, &helper), ("metadata.yaml", METADATA)]
            )
            .is_empty()
        );
        let ipam = crd("FooCluster", "", &[("v1beta1", true)]);
        assert!(
            check_files(
                &CONTRACT_LABEL,
                &[("ipam-components.yaml", &ipam), ("metadata.yaml", METADATA)]
            )
            .is_empty()
        );
    }

    #[test]
    fn contract_label_for_an_undeclared_contract_is_a_warning() {
        let text = crd(
            "FooCluster",
            "    cluster.x-k8s.io/v1beta2: v1beta1\n    cluster.x-k8s.io/v1beta3: v1beta1\n",
            &[("v1beta1", true)],
        );
        let found = check_files(
            &CONTRACT_LABEL,
            &[(INFRA, &text), ("metadata.yaml", METADATA)],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(at(&found[0]), (8, 5));
        assert!(found[0].message.contains("contract `v1beta3`"));
    }

    #[test]
    fn label_versions_must_be_served() {
        let good = crd(
            "FooCluster",
            "    cluster.x-k8s.io/v1beta2: v1beta1_v1beta2\n",
            &[("v1beta1", true), ("v1beta2", true)],
        );
        assert!(
            check_files(
                &CONTRACT_LABEL_VERSIONS,
                &[(INFRA, &good), ("metadata.yaml", METADATA)]
            )
            .is_empty()
        );

        // The version core picks is not defined: references break.
        let bad = crd(
            "FooCluster",
            "    cluster.x-k8s.io/v1beta2: v1beta2\n",
            &[("v1beta1", true)],
        );
        let found = check_files(
            &CONTRACT_LABEL_VERSIONS,
            &[(INFRA, &bad), ("metadata.yaml", METADATA)],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "crd/contract-label-versions");
        assert_eq!(found[0].severity, Severity::Error);
        assert_eq!(at(&found[0]), (7, 31));
        assert!(found[0].message.contains(
            "label `cluster.x-k8s.io/v1beta2: v1beta2`: core picks `v1beta2`, which is not a version of the CRD"
        ));

        // AWS's case: a listed older version is not served, but core picks the served newest.
        let stale = crd(
            "FooCluster",
            "    cluster.x-k8s.io/v1alpha4: v1alpha4\n    cluster.x-k8s.io/v1beta2: v1beta1_v1beta2\n",
            &[("v1beta1", false), ("v1beta2", true)],
        );
        let found = check_files(
            &CONTRACT_LABEL_VERSIONS,
            &[(INFRA, &stale), ("metadata.yaml", METADATA)],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(at(&found[0]), (7, 32));
        assert_eq!(
            found[0].message,
            "CRD `fooclusters.infrastructure.cluster.x-k8s.io`: label `cluster.x-k8s.io/v1alpha4: \
             v1alpha4` lists `v1alpha4` (not a version of the CRD); label \
             `cluster.x-k8s.io/v1beta2: v1beta1_v1beta2` lists `v1beta1` (not served)"
        );
        assert_eq!(found[0].labels.len(), 1);

        // On a helper CRD nothing breaks: a warning.
        let helper = crd(
            "FooServer",
            "    cluster.x-k8s.io/v1beta2: v1beta2\n",
            &[("v1alpha1", true)],
        );
        let found = check_files(
            &CONTRACT_LABEL_VERSIONS,
            &[(INFRA, &helper), ("metadata.yaml", METADATA)],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].message.contains("does not read labels"));
    }
}
