//! `capkg diff` on real release pairs and on CAPD changed one thing at a time (issue 38): CAPO
//! #2863's version dropped without a CRD migrator, CAPV #4105's incompatible served versions as
//! one finding, objects matched as the API server identifies them, what changed in Deployments,
//! webhooks and CRD annotations, `--version` for a plain folder, and a folder that is not there.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::release_common::{clean_capkg as capkg, json, stderr, stdout};

fn testdata(rest: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/diff")
        .join(rest)
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn rules(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

/// `text` with `from` replaced once; fails when `from` is not there exactly once.
fn once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}`");
    text.replacen(from, to, 1)
}

/// A local repository with `label/old` and `label/new` copied from `testdata/diff/label/…`, each
/// components file passed through its edit.
struct Repo {
    dir: tempfile::TempDir,
    label: &'static str,
}

impl Repo {
    fn new(
        label: &'static str,
        (old, edit_old): (&str, &dyn Fn(String) -> String),
        (new, edit_new): (&str, &dyn Fn(String) -> String),
        from: (&str, &str),
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (version, edit, source) in [(old, edit_old, from.0), (new, edit_new, from.1)] {
            let folder = dir.path().join(label).join(version);
            std::fs::create_dir_all(&folder).unwrap();
            let source = testdata(&format!("{label}/{source}"));
            std::fs::copy(source.join("metadata.yaml"), folder.join("metadata.yaml")).unwrap();
            let text =
                std::fs::read_to_string(source.join("infrastructure-components.yaml")).unwrap();
            std::fs::write(folder.join("infrastructure-components.yaml"), edit(text)).unwrap();
        }
        Self { dir, label }
    }

    /// CAPD (`testdata/diff/infrastructure-docker`) as v1.14.0 and, edited, as v1.15.0.
    fn capd(edit: &dyn Fn(String) -> String) -> Self {
        Self::new(
            "infrastructure-docker",
            ("v1.14.0", &|t| t),
            ("v1.15.0", edit),
            (".", "."),
        )
    }

    fn folder(&self, version: &str) -> String {
        shown(&self.dir.path().join(self.label).join(version))
    }

    fn diff(&self, old: &str, new: &str, extra: &[&str]) -> std::process::Output {
        capkg()
            .current_dir(self.dir.path())
            .args(["diff", &self.folder(old), &self.folder(new)])
            .args(extra)
            .output()
            .unwrap()
    }
}

const CAPO_OLD: &str = "infrastructure-openstack/v0.11.3";
const CAPO_NEW: &str = "infrastructure-openstack/v0.12.0";

#[test]
fn capo_dropping_an_unserved_version_without_a_crd_migrator_is_an_error_naming_the_step() {
    // v1alpha7's unserving is announced and waived; v1alpha6's removal is CAPO #2863.
    let output = capkg()
        .args([
            "diff",
            &shown(&testdata(CAPO_OLD)),
            &shown(&testdata(CAPO_NEW)),
            "--format",
            "json",
            "--allow",
            "upgrade/served-version-removed=v1alpha7 deprecated since v0.10",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report = json(&output);
    let finding = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "upgrade/version-removed-without-migrator")
        .unwrap_or_else(|| panic!("no finding for v1alpha6: {report}"));
    assert_eq!(finding["severity"], "error");
    assert_eq!(finding["waived"], Value::Null);
    let message = finding["message"].as_str().unwrap();
    for words in [
        "openstackclusters.infrastructure.cluster.x-k8s.io: version v1alpha6 (unserved but present in the previous release) was removed",
        "Cluster API's CRD migrator cannot run",
        "`status.storedVersions` lists v1alpha6",
        "Keep v1alpha6 in spec.versions (`served: false`) until a release whose manager runs the CRD migrator",
        "migrate storage with kubectl",
    ] {
        assert!(message.contains(words), "`{words}` in {message}");
    }
    assert!(
        finding["help"]
            .as_str()
            .unwrap()
            .contains("--subresource=status"),
        "{finding}"
    );
    assert!(
        finding["file"]
            .as_str()
            .unwrap()
            .ends_with("v0.12.0/infrastructure-components.yaml")
    );
}

#[test]
fn capo_dropping_the_version_is_fine_once_the_previous_manager_ran_the_migrator() {
    // The near pair: v0.11.3's manager granted what Cluster API's CRD migrator needs.
    let grant = |text: String| {
        once(
            &text,
            "rules:\n",
            "rules:\n  - apiGroups:\n      - apiextensions.k8s.io\n    resources:\n      - customresourcedefinitions\n      - customresourcedefinitions/status\n    verbs:\n      - patch\n      - update\n",
        )
    };
    let repo = Repo::new(
        "infrastructure-openstack",
        ("v0.11.3", &grant),
        ("v0.12.0", &grant),
        ("v0.11.3", "v0.12.0"),
    );
    let output = repo.diff(
        "v0.11.3",
        "v0.12.0",
        &[
            "--format",
            "json",
            "--allow",
            "upgrade/served-version-removed=announced",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        !rules(&json(&output)).contains(&"upgrade/version-removed-without-migrator".to_string())
    );
}

#[test]
fn capv_incompatible_served_versions_are_one_finding_with_the_incident_first() {
    // CAPV #4105: VSphereClusterIdentity served in v1beta1 and v1beta2, no webhook; objects
    // the old controller wrote lack `status.conditions[*].reason`, which v1beta2 requires.
    let output = capkg()
        .args([
            "diff",
            &shown(&testdata("infrastructure-vsphere/v1.15.3")),
            &shown(&testdata("infrastructure-vsphere/v1.16.0")),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(rules(&report), ["upgrade/served-versions-incompatible"]);
    let message = report["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("vsphereclusteridentities.infrastructure.cluster.x-k8s.io: served versions v1beta1 -> v1beta2 differ, and there is no conversion webhook"),
        "{message}"
    );
    assert!(
        message.contains("They differ in 13 places: ^.status.conditions[*] (newly required: \"message\", \"reason\", upgrade/crd-required-added); "),
        "the incident first: {message}"
    );
    // The human output points at every place, once.
    let output = capkg()
        .args([
            "diff",
            &shown(&testdata("infrastructure-vsphere/v1.15.3")),
            &shown(&testdata("infrastructure-vsphere/v1.16.0")),
        ])
        .output()
        .unwrap();
    let text = stdout(&output);
    assert_eq!(
        text.matches("upgrade/served-versions-incompatible\n")
            .count(),
        1,
        "{text}"
    );
    assert!(
        text.contains("╰── ^.spec.secretName: maxLength: (none) -> 253"),
        "{text}"
    );
    assert!(text.contains("1 error in 1 file"), "{text}");
}

#[test]
fn a_crd_with_a_namespace_is_matched_by_name_and_its_schema_break_found() {
    // An overlay gave the CRD a namespace, and v1beta2 lost a field.
    let repo = Repo::capd(&|t| {
        let t = once(
            &t,
            "  name: devclusters.infrastructure.cluster.x-k8s.io\nspec:\n",
            "  name: devclusters.infrastructure.cluster.x-k8s.io\n  namespace: capd-system\nspec:\n",
        );
        let v1beta2 = t.find("    name: v1beta2\n").unwrap();
        let (head, tail) = t.split_at(v1beta2);
        let field = tail.find("                  host:\n").unwrap();
        let end = field + tail[field..].find("                  port:\n").unwrap();
        format!("{head}{}{}", &tail[..field], &tail[end..])
    });
    let output = repo.diff("v1.14.0", "v1.15.0", &["--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report = json(&output);
    assert_eq!(rules(&report), ["upgrade/crd-field-removed"], "{report}");
    let changes = report["changes"].as_array().unwrap();
    let namespace: Vec<&Value> = changes
        .iter()
        .filter(|c| c["field"] == "metadata.namespace")
        .collect();
    assert_eq!(namespace.len(), 1, "{changes:?}");
    assert_eq!(
        namespace[0]["subject"],
        "CustomResourceDefinition devclusters.infrastructure.cluster.x-k8s.io"
    );
    assert_eq!(
        namespace[0]["new"],
        "capd-system (ignored: CustomResourceDefinition is cluster-scoped)"
    );
    assert!(
        !changes
            .iter()
            .any(|c| c["section"] == "objects" && c["change"] != "changed"),
        "neither removed nor added: {changes:?}"
    );
}

#[test]
fn deployment_and_webhook_changes_are_listed_with_what_changed() {
    let webhook = "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: capd-validating-webhook-configuration\nwebhooks:\n- admissionReviewVersions:\n  - v1\n  clientConfig:\n    service:\n      name: capd-webhook-service\n      namespace: capd-system\n      path: /validate-infrastructure-cluster-x-k8s-io-v1beta2-devcluster\n  failurePolicy: Fail\n  name: validation.devcluster.infrastructure.cluster.x-k8s.io\n  rules:\n  - apiGroups:\n    - infrastructure.cluster.x-k8s.io\n    apiVersions:\n    - v1beta2\n    operations:\n    - CREATE\n    resources:\n    - devclusters\n  sideEffects: None\n";
    let repo = Repo::new(
        "infrastructure-docker",
        ("v1.14.0", &|t| t + webhook),
        ("v1.15.0", &|t| {
            let t = t + &webhook
                .replace("failurePolicy: Fail", "failurePolicy: Ignore")
                .replace("    - CREATE\n", "    - CREATE\n    - UPDATE\n")
                .replace(
                    "sideEffects: None",
                    "sideEffects: None\n  timeoutSeconds: 5",
                );
            let t = once(&t, "  replicas: 1\n", "  replicas: 2\n");
            let t = once(
                &t,
                "        - --leader-elect\n",
                "        - --leader-elect\n        - --v=4\n",
            );
            once(
                &t,
                "PriorityQueue=${EXP_PRIORITY_QUEUE:=true}",
                "PriorityQueue=${EXP_PRIORITY_QUEUE:=false}",
            )
        }),
        (".", "."),
    );
    let output = repo.diff("v1.14.0", "v1.15.0", &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    for line in [
        "  ~ Deployment capd-system/capd-controller-manager\n      spec.replicas: 1 -> 2\n      containers[manager].args[--feature-gates]: PriorityQueue=${EXP_PRIORITY_QUEUE:=true} -> PriorityQueue=${EXP_PRIORITY_QUEUE:=false}\n      containers[manager].args: + --v=4\n",
        "  ~ ValidatingWebhookConfiguration capd-validating-webhook-configuration\n      webhooks[validation.devcluster.infrastructure.cluster.x-k8s.io].failurePolicy: Fail -> Ignore\n      webhooks[validation.devcluster.infrastructure.cluster.x-k8s.io].rules[0].operations: + UPDATE\n      webhooks[validation.devcluster.infrastructure.cluster.x-k8s.io].timeoutSeconds: + 5\n",
    ] {
        assert!(text.contains(line), "{line}\nin:\n{text}");
    }
}

#[test]
fn crds_whose_one_change_is_an_annotation_share_one_line() {
    // Two CRDs, the controller-gen version bumped on both and nothing else.
    let second = |t: &str| {
        let start = t.find("---\napiVersion: apiextensions.k8s.io/v1").unwrap();
        let end = start + 4 + t[start + 4..].find("---\n").unwrap();
        t[start..end]
            .replace("devclusters", "devmachines")
            .replace("DevCluster", "DevMachine")
    };
    let both = |t: String| {
        let extra = second(&t);
        t + &extra
    };
    let repo = Repo::new(
        "infrastructure-docker",
        ("v1.14.0", &both),
        ("v1.15.0", &|t| {
            both(t).replace(
                "controller-gen.kubebuilder.io/version: v0.21.0",
                "controller-gen.kubebuilder.io/version: v0.22.0",
            )
        }),
        (".", "."),
    );
    let output = repo.diff("v1.14.0", "v1.15.0", &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("\nObjects\n  ~ CustomResourceDefinition ×2 (devclusters.infrastructure.cluster.x-k8s.io, devmachines.infrastructure.cluster.x-k8s.io): metadata.annotations[controller-gen.kubebuilder.io/version]: v0.21.0 -> v0.22.0\n\n"),
        "{text}"
    );
    // JSON keeps one change per object.
    let output = repo.diff("v1.14.0", "v1.15.0", &["--format", "json"]);
    let annotated = json(&output)["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["field"] == "metadata.annotations[controller-gen.kubebuilder.io/version]")
        .count();
    assert_eq!(annotated, 2);
}

#[test]
fn a_removed_core_permission_names_the_core_group() {
    let repo = Repo::capd(&|t| {
        once(
            &t,
            "  - configmaps\n  verbs:\n  - get\n  - list\n  - watch\n",
            "  - configmaps\n  verbs:\n  - get\n",
        )
    });
    let output = repo.diff("v1.14.0", "v1.15.0", &[]);
    let text = stdout(&output);
    assert!(
        text.contains("~ core configmaps: get,list,watch -> get"),
        "{text}"
    );
    assert!(text.contains("the core group"), "{text}");
    assert!(!text.contains("``"), "{text}");
}

/// The Helm add-on (`testdata/corpus/addon-helm`) as `addon-helm/v0.2.9` and as a plain folder
/// `out/`, both with `metadata.yaml` ending at the 0.2 series: v0.3.0's incident
/// (cluster-api-addon-provider-helm #354, "version v0.3.0 … does not match any release series").
fn helm_without_its_series() -> (tempfile::TempDir, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus/addon-helm");
    let metadata = std::fs::read_to_string(corpus.join("metadata.yaml")).unwrap();
    let cut = metadata.find("  - major: 0\n    minor: 3\n").unwrap();
    let old = dir.path().join("addon-helm/v0.2.9");
    let out = dir.path().join("out");
    for folder in [&old, &out] {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(folder.join("metadata.yaml"), &metadata[..cut]).unwrap();
        std::fs::copy(
            corpus.join("addon-components.yaml"),
            folder.join("addon-components.yaml"),
        )
        .unwrap();
    }
    (dir, shown(&old), shown(&out))
}

#[test]
fn a_plain_folder_is_checked_for_the_version_given_and_warns_without_one() {
    let (dir, old, out) = helm_without_its_series();
    let output = capkg()
        .current_dir(dir.path())
        .args([
            "diff",
            &old,
            &out,
            "--version",
            "v0.3.0",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(rules(&report), ["upgrade/release-series-missing"]);
    assert_eq!(report["new"]["version"], "v0.3.0");
    assert!(
        report["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no release series 0.3 for v0.3.0")
    );
    // Without `--version` the check cannot be made: said, not skipped in silence.
    let output = capkg()
        .current_dir(dir.path())
        .args(["diff", &old, &out])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("warning: the new release's version of addon-helm is unknown (a plain folder), so `upgrade/release-series-missing` was not checked"),
        "{text}"
    );
    assert!(text.contains("pass `--version vX.Y.Z`"), "{text}");
    // A version that is not one is refused as an argument.
    let output = capkg()
        .current_dir(dir.path())
        .args(["diff", &old, &out, "--version", "three"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_folder_that_is_not_there_is_said_as_such() {
    let (dir, old, _) = helm_without_its_series();
    for (args, shown_as) in [
        (vec![old.as_str(), "ot"], "no such folder: `ot` (NEW"),
        (
            vec!["addon-helm/v0.2.8", old.as_str()],
            "no such folder: `addon-helm/v0.2.8` (OLD",
        ),
    ] {
        let output = capkg()
            .current_dir(dir.path())
            .arg("diff")
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
        let error = stderr(&output);
        assert!(error.contains(shown_as), "{error}");
        assert!(!error.contains("must be an absolute path"), "{error}");
        assert!(error.contains("a release folder (`out/`"), "{error}");
    }
}
