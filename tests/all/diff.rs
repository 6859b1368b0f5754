//! `capkg diff OLD NEW` on a real provider (`testdata/diff/infrastructure-docker`, CAPD trimmed to
//! one CRD): the CAPI cases of issue 31 as a maintainer would meet them, every output format,
//! waivers, and the exit codes.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::release_common::{clean_capkg as capkg, json, stderr, stdout};

const LABEL: &str = "infrastructure-docker";

fn provider() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff/infrastructure-docker")
}

/// A local repository with CAPD as `v1.14.0` and, as `v1.15.0`, the same with `edit` applied to
/// its components.
struct Pair {
    dir: tempfile::TempDir,
}

impl Pair {
    fn new(edit: impl Fn(String) -> String) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (version, edit) in [
            ("v1.14.0", &(|t: String| t) as &dyn Fn(String) -> String),
            ("v1.15.0", &edit),
        ] {
            let folder = dir.path().join(LABEL).join(version);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::copy(
                provider().join("metadata.yaml"),
                folder.join("metadata.yaml"),
            )
            .unwrap();
            let components =
                std::fs::read_to_string(provider().join("infrastructure-components.yaml")).unwrap();
            std::fs::write(
                folder.join("infrastructure-components.yaml"),
                edit(components),
            )
            .unwrap();
        }
        Self { dir }
    }

    fn old(&self) -> String {
        self.dir
            .path()
            .join(LABEL)
            .join("v1.14.0")
            .display()
            .to_string()
    }

    fn new_release(&self) -> String {
        self.dir
            .path()
            .join(LABEL)
            .join("v1.15.0")
            .display()
            .to_string()
    }

    fn diff(&self, extra: &[&str]) -> std::process::Output {
        capkg()
            .current_dir(self.dir.path())
            .args(["diff", &self.old(), &self.new_release()])
            .args(extra)
            .output()
            .unwrap()
    }
}

/// `text` with `from` replaced once; fails when `from` is not there exactly once.
fn once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}`");
    text.replacen(from, to, 1)
}

/// CAPD's DevCluster v1beta1 (deprecated, served) made unserved.
fn unserve_v1beta1(text: String) -> String {
    once(
        &text,
        "    served: true\n    storage: false\n",
        "    served: false\n    storage: false\n",
    )
}

fn rules(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_release_against_itself_has_no_changes() {
    let pair = Pair::new(|t| t);
    let output = pair.diff(&[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("capkg diff: infrastructure-docker v1.14.0 -> v1.15.0"),
        "{text}"
    );
    assert!(text.contains("No changes."), "{text}");
    assert!(text.contains("no breaking change"), "{text}");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn an_unserved_version_is_an_error_with_its_place_and_the_version_change() {
    let pair = Pair::new(unserve_v1beta1);
    let output = pair.diff(&["--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["old"]["version"], "v1.14.0");
    assert_eq!(report["new"]["provider_label"], LABEL);
    // v1beta1 is the highest version of the v1beta1 contract label: CAPD v1.15 implements
    // v1beta2, so that label may go.
    assert_eq!(rules(&report), ["upgrade/served-version-removed"]);
    let finding = &report["diagnostics"][0];
    assert_eq!(finding["severity"], "error");
    assert!(
        finding["file"]
            .as_str()
            .unwrap()
            .ends_with("v1.15.0/infrastructure-components.yaml")
    );
    assert_eq!(finding["line"], 319, "at `served:` of v1beta1");
    assert_eq!(finding["waived"], Value::Null);
    let change = report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["subject"] == "CRD devclusters.infrastructure.cluster.x-k8s.io v1beta1")
        .expect("the version's change");
    assert_eq!(change["old"], "served, deprecated");
    assert_eq!(change["new"], "not served, deprecated");
    assert_eq!(change["section"], "crds");
}

#[test]
fn removing_the_conversion_webhook_exposes_the_versions_differences() {
    // The incompatibility between v1beta1 and v1beta2 was there before, behind the webhook.
    let pair = Pair::new(|t| {
        let start = t.find("  conversion:\n").unwrap();
        let end = start + t[start..].find("  group: ").unwrap();
        format!("{}{}", &t[..start], &t[end..])
    });
    let output = pair.diff(&["--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    let found = rules(&report);
    assert!(
        found
            .iter()
            .all(|r| r == "upgrade/served-versions-incompatible"),
        "{found:?}"
    );
    assert!(!found.is_empty());
    assert!(
        report["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(
                |c| c["subject"] == "CRD devclusters.infrastructure.cluster.x-k8s.io conversion"
                    && c["old"] == "Webhook"
                    && c["new"] == "None"
            )
    );
}

/// v1beta1 becomes the storage version (the webhook stays).
fn move_storage(text: String) -> String {
    let text = once(
        &text,
        "    served: true\n    storage: false\n",
        "    served: true\n    storage: STORAGE_V1BETA1\n",
    );
    let text = once(
        &text,
        "    served: true\n    storage: true\n",
        "    served: true\n    storage: false\n",
    );
    text.replace("STORAGE_V1BETA1", "true")
}

#[test]
fn a_storage_move_warns_only_without_the_crd_migrators_permissions() {
    // CAPD's manager may patch the CRD's status: Cluster API's CRD migrator runs.
    let pair = Pair::new(move_storage);
    let output = pair.diff(&["--format", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(rules(&json(&output)).is_empty());

    let pair = Pair::new(|t| {
        once(
            &move_storage(t),
            "  - customresourcedefinitions/status\n",
            "",
        )
    });
    let output = pair.diff(&["--format", "json"]);
    // A warning: the diff passes.
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    assert!(
        rules(&report).contains(&"upgrade/storage-version-without-migrator".to_string()),
        "{report}"
    );
}

#[test]
fn a_new_min_length_in_a_version_is_an_error() {
    // CAPV #4106's shape on CAPD: a new `minLength` on an existing string field.
    let pair = Pair::new(|t| {
        // v1beta1's `host` has no minLength (v1beta2's has one).
        let v1beta1 = t.find("              controlPlaneEndpoint:").unwrap();
        let (head, tail) = t.split_at(v1beta1);
        let at =
            tail.find("                  host:\n").unwrap() + "                  host:\n".len();
        let indent = "                    ";
        format!("{head}{}{indent}minLength: 1\n{}", &tail[..at], &tail[at..])
    });
    let output = pair.diff(&["--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(rules(&report), ["upgrade/crd-minimum-raised"]);
    assert!(
        report["diagnostics"][0]["message"]
            .as_str()
            .unwrap()
            .contains("v1beta1 ^.spec.controlPlaneEndpoint.host: minLength: (none) -> 1"),
        "{report}"
    );
}

#[test]
fn a_dropped_release_series_and_a_missing_own_series_are_errors() {
    let pair = Pair::new(|t| t);
    let metadata = pair
        .dir
        .path()
        .join(LABEL)
        .join("v1.15.0")
        .join("metadata.yaml");
    let text = std::fs::read_to_string(&metadata).unwrap();
    std::fs::write(
        &metadata,
        once(
            &text,
            "  - major: 1\n    minor: 15\n    contract: v1beta2\n",
            "",
        ),
    )
    .unwrap();
    let output = pair.diff(&["--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        rules(&json(&output)),
        [
            "upgrade/release-series-dropped",
            "upgrade/release-series-missing"
        ]
    );
}

#[test]
fn waivers_from_the_flag_and_from_capkg_yaml_let_the_diff_pass_and_stay_visible() {
    let pair = Pair::new(unserve_v1beta1);
    let output = pair.diff(&[
        "--format",
        "json",
        "--allow",
        "upgrade/served-version-removed=v1beta1 announced as removed in v1.14",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(
        report["diagnostics"][0]["waived"],
        "v1beta1 announced as removed in v1.14"
    );
    assert_eq!(report["ok"], true);

    let config = pair.dir.path().join("capkg.yaml");
    std::fs::write(
        &config,
        "lint:\n  allow:\n  - rule: upgrade/served-version-removed\n    reason: announced\n  - rule: components/single-namespace\n    reason: a lint waiver this diff leaves alone\n",
    )
    .unwrap();
    let output = pair.diff(&[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("announced"), "{text}");
    assert!(!text.contains("unused-waiver"), "{text}");
    assert!(text.contains("1 waived"), "{text}");
}

#[test]
fn markdown_lists_findings_and_changes_for_a_pull_request() {
    let pair = Pair::new(|t| {
        unserve_v1beta1(t).replace(
            "gcr.io/k8s-staging-cluster-api/capd-manager:main",
            "registry.k8s.io/cluster-api/capd-manager:v1.15.0",
        )
    });
    let output = pair.diff(&["--format", "markdown"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let md = stdout(&output);
    assert!(
        md.starts_with("## capkg diff: infrastructure-docker v1.14.0 -> v1.15.0\n"),
        "{md}"
    );
    assert!(
        md.contains("- ❌ `upgrade/served-version-removed` devclusters"),
        "{md}"
    );
    assert!(md.contains("### Images (1)"), "{md}");
    assert!(
        md.contains("| ~ | Deployment capd-system/capd-controller-manager container manager: gcr.io/k8s-staging-cluster-api/capd-manager:main -> registry.k8s.io/cluster-api/capd-manager:v1.15.0 |"),
        "{md}"
    );
}

#[test]
fn github_format_annotates_and_writes_the_step_summary() {
    let pair = Pair::new(unserve_v1beta1);
    let summary = pair.dir.path().join("summary.md");
    let output = capkg()
        .current_dir(pair.dir.path())
        .args(["diff", &pair.old(), &pair.new_release()])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.lines()
            .any(|l| l.starts_with("::error file=") && l.contains("served-version-removed")),
        "{text}"
    );
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(
        written.starts_with("### capkg diff: infrastructure-docker"),
        "{written}"
    );
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn file_urls_are_read_as_local_repositories() {
    let pair = Pair::new(unserve_v1beta1);
    let url = |version: &str| {
        format!(
            "file://{}/{LABEL}/{version}/infrastructure-components.yaml",
            pair.dir.path().display()
        )
    };
    let output = capkg()
        .args(["diff", &url("v1.14.0"), &url("v1.15.0"), "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(rules(&json(&output)), ["upgrade/served-version-removed"]);
}

#[test]
fn a_source_that_cannot_be_read_exits_2() {
    let pair = Pair::new(|t| t);
    let missing = pair.dir.path().join("nowhere/v1.0.0/x.yaml");
    let output = capkg()
        .args(["diff", &missing.display().to_string(), &pair.new_release()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
}

#[test]
fn upgrade_rules_are_documented_and_markdown_is_for_diff_only() {
    let output = capkg()
        .args(["rules", "upgrade/served-version-removed"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(
        text.contains("upgrade/served-version-removed (error)"),
        "{text}"
    );
    assert!(text.contains("capkg diff"), "{text}");
    let output = capkg()
        .args(["lint", "--format", "markdown", "."])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("`capkg diff` only"));
}
