//! `capkg lint` over the real provider corpus (`testdata/corpus`): which providers the contract
//! rules (`crd/…`, `rbac/…`, `runtime/…`, `webhook/…`, `build/…`) flag, and that they flag nothing
//! else.
//!
//! The expected table is the judgement recorded when the rules were written: every entry is a
//! real defect or a real contract "should" of that provider's files, and every provider absent
//! from it (core, CAPD's other CRDs, Proxmox, vSphere with its supervisor CRDs, Helm, in-cluster
//! IPAM) must stay clean: a finding there is a false positive. (On the full upstream corpus the
//! table also holds AWS, Azure and OpenStack; `testdata/corpus/README.md` says why they are not
//! in the repository.)

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Output;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::corpus;

fn lint(args: &[&str], path: PathBuf) -> (Output, Value) {
    let output = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .arg("lint")
        .args(["--format", "json", "--color", "never"])
        .args(args)
        .arg(path)
        .output()
        .expect("capkg runs");
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|err| {
        panic!(
            "stdout is not JSON ({err}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (output, json)
}

/// `(provider folder, rule, severity) -> count` for the contract rules.
fn contract_findings(json: &Value) -> BTreeMap<(String, String, String), usize> {
    let mut counts = BTreeMap::new();
    for diagnostic in json["diagnostics"].as_array().expect("diagnostics") {
        let rule = diagnostic["rule"].as_str().expect("rule");
        // The webhook wiring and the build leftovers are contracts too (of the API server and of
        // cert-manager): the corpus has none, and a finding there would be a false positive.
        if !["crd/", "rbac/", "runtime/", "webhook/", "build/"]
            .iter()
            .any(|group| rule.starts_with(group))
        {
            continue;
        }
        let file = diagnostic["file"].as_str().expect("file");
        let provider = PathBuf::from(file)
            .parent()
            .and_then(|dir| dir.file_name())
            .map(|name| name.to_string_lossy().into_owned())
            .expect("provider folder");
        let severity = diagnostic["severity"].as_str().expect("severity");
        *counts
            .entry((provider, rule.to_string(), severity.to_string()))
            .or_insert(0) += 1;
    }
    counts
}

#[test]
fn contract_rules_flag_exactly_the_known_corpus_findings() {
    let (output, json) = lint(&[], corpus());
    // Linode's missing contract labels are errors (as are other rules' findings).
    assert_eq!(output.status.code(), Some(1));
    let expected: BTreeMap<(String, String, String), usize> = [
        // DevMachinePool(Template) carry `cluster.x-k8s.io/v1beta1: v1beta1` but define only
        // v1beta2 (core reads their correct v1beta2 label).
        (
            "infrastructure-docker",
            "crd/contract-label-versions",
            "warning",
            2,
        ),
        // GCPMachinePool has no GCPMachinePoolTemplate, so ClusterClass cannot use it.
        ("infrastructure-gcp", "crd/template", "warning", 1),
        // metadata.yaml maps 0.10 to v1beta2, but LinodeCluster, LinodeClusterTemplate,
        // LinodeMachine and LinodeMachineTemplate carry only the v1beta1 label.
        ("infrastructure-linode", "crd/contract-label", "error", 4),
    ]
    .into_iter()
    .map(|(p, r, s, n)| ((p.to_string(), r.to_string(), s.to_string()), n))
    .collect();
    assert_eq!(contract_findings(&json), expected);
}

#[test]
fn linode_labels_match_an_older_release_series() {
    let linode = corpus().join("infrastructure-linode");
    let (_, json) = lint(&["--version", "v0.9.1"], linode.clone());
    assert!(
        contract_findings(&json)
            .keys()
            .all(|(_, rule, _)| rule != "crd/contract-label")
    );

    let (_, json) = lint(&["--version", "v0.10.0"], linode);
    let labels: Vec<&Value> = json["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["rule"] == "crd/contract-label")
        .collect();
    assert_eq!(labels.len(), 4);
    let first = labels[0];
    assert_eq!(first["line"], 245);
    assert_eq!(first["column"], 3);
    let message = first["message"].as_str().expect("message");
    assert!(message.contains("`linodeclusters.infrastructure.cluster.x-k8s.io`"));
    assert!(message.contains("`cluster.x-k8s.io/v1beta2`"));
    assert!(message.contains("`--version v0.10.0`"));
    let help = first["help"].as_str().expect("help");
    assert!(help.contains("\"All resources: version\""));
    assert!(
        help.contains(
            "https://cluster-api.sigs.k8s.io/developer/providers/contracts/infra-cluster"
        )
    );
}

#[test]
fn rules_command_shows_the_contract_section() {
    let output = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .args(["rules", "crd/scale-subresource"])
        .output()
        .expect("capkg runs");
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("crd/scale-subresource (error)"));
    assert!(text.contains("\"ControlPlane: replicas\""));
    assert!(
        text.contains(
            "https://cluster-api.sigs.k8s.io/developer/providers/contracts/control-plane"
        )
    );
}
