//! `capkg diff` and `capkg release` compare cluster templates and ClusterClass files (issue 38):
//! real release pairs from providers' tags (`testdata/diff/templates`, see its README), a few
//! edits of them for the rules no real pair fires, every output format, and the same comparison
//! where the releases are: a folder, a local repository, a GitHub release, a GitLab package and
//! an OCI artifact.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::publish_fakes::github::{FakeGitHub, TOKEN};
use crate::publish_fakes::gitlab::{FakeGitLab, JOB_TOKEN, PROJECT_ID};
use crate::publish_fakes::write_release;
use crate::release_common::{
    Actions, Provider, clean_capkg as capkg, json, release, stderr, stdout,
};

fn release_dir(label: &str, version: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/diff/templates")
        .join(label)
        .join(version)
}

fn diff(label: &str, old: &str, new: &str, extra: &[&str]) -> std::process::Output {
    capkg()
        .args(["diff"])
        .arg(release_dir(label, old))
        .arg(release_dir(label, new))
        .args(extra)
        .output()
        .unwrap()
}

/// The findings of a JSON report as `(rule, severity)`.
fn findings(report: &Value) -> Vec<(String, String)> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["severity"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The `templates` section's changes as `mark subject[: old -> new]`.
fn template_changes(report: &Value) -> Vec<String> {
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["section"] == "templates")
        .map(|c| {
            let mark = match c["change"].as_str().unwrap() {
                "added" => "+",
                "removed" => "-",
                _ => "~",
            };
            match (c["old"].as_str(), c["new"].as_str()) {
                (Some(old), Some(new)) => {
                    format!("{mark} {}: {old} -> {new}", c["subject"].as_str().unwrap())
                }
                (None, Some(new)) => format!("{mark} {}: {new}", c["subject"].as_str().unwrap()),
                _ => format!("{mark} {}", c["subject"].as_str().unwrap()),
            }
        })
        .collect()
}

fn pair(rule: &str, severity: &str) -> (String, String) {
    (rule.to_string(), severity.to_string())
}

/// CAPO v0.13.0 -> v0.14.0: the `development` flavor replaced by `topology`, `capi-v1beta1`
/// added, the `dev-test` ClusterClass moved from v1beta1 to v1beta2 with three new optional
/// variables. One warning for the flavor; the class's new shape is no finding. (v0.14.0 also
/// corrected the contract of series 0.13 in `metadata.yaml`, an error of its own.)
#[test]
fn capo_0_14_drops_the_development_flavor_and_moves_dev_test_to_v1beta2() {
    let output = diff(
        "infrastructure-openstack",
        "v0.13.0",
        "v0.14.0",
        &["--format", "json"],
    );
    let report = json(&output);
    assert_eq!(
        findings(&report),
        [
            pair("upgrade/flavor-removed", "warning"),
            pair("upgrade/release-series-dropped", "error"),
        ]
    );
    assert_eq!(
        report["diagnostics"][0]["file"],
        release_dir("infrastructure-openstack", "v0.14.0")
            .join("cluster-template-development.yaml")
            .display()
            .to_string()
    );
    assert_eq!(
        template_changes(&report),
        [
            "+ flavor capi-v1beta1 (cluster-template-capi-v1beta1.yaml)",
            "- flavor development (cluster-template-development.yaml)",
            "+ flavor topology (cluster-template-topology.yaml)",
            "~ ClusterClass dev-test: cluster.x-k8s.io/v1beta1 -> cluster.x-k8s.io/v1beta2",
            "~ ClusterClass dev-test variable imageName: default: \"ubuntu-2404-kube\" -> (none)",
            "+ ClusterClass dev-test variable allowedCIDRs: optional",
            "+ ClusterClass dev-test variable bastion: optional",
            "+ ClusterClass dev-test variable imageRef: optional",
            "~ ClusterClass dev-test controlPlane: controlplane.cluster.x-k8s.io/v1beta1 -> controlplane.cluster.x-k8s.io/v1beta2",
            "~ ClusterClass dev-test machineDeployment default-worker bootstrap: bootstrap.cluster.x-k8s.io/v1beta1 -> bootstrap.cluster.x-k8s.io/v1beta2",
        ]
    );
    // The flavor alone is a warning: with the metadata error waived the upgrade passes.
    let output = diff(
        "infrastructure-openstack",
        "v0.13.0",
        "v0.14.0",
        &[
            "--allow",
            "upgrade/release-series-dropped=corrected in v0.14.0",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let text = stdout(&output);
    assert!(
        text.contains("\nTemplates and ClusterClasses\n  + flavor capi-v1beta1 (cluster-template-capi-v1beta1.yaml)\n  - flavor development (cluster-template-development.yaml)\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "flavor `development` is gone: `clusterctl generate cluster --flavor development` fails"
        ),
        "{text}"
    );
}

/// CAPO v0.4.0 -> v0.5.0: every template started needing `OPENSTACK_EXTERNAL_NETWORK_ID`.
#[test]
fn capo_0_5_templates_need_a_new_variable() {
    let output = diff(
        "infrastructure-openstack",
        "v0.4.0",
        "v0.5.0",
        &["--format", "json"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    let error = pair("upgrade/template-variable-required", "error");
    assert_eq!(findings(&report), [error.clone(), error.clone(), error]);
    let first = &report["diagnostics"][0];
    assert_eq!(first["line"], 34);
    assert!(
        first["message"].as_str().unwrap().starts_with(
            "`cluster-template-external-cloud-provider.yaml` now needs `OPENSTACK_EXTERNAL_NETWORK_ID` (no default), which v0.4.0's did not use"
        ),
        "{first}"
    );
    assert_eq!(
        template_changes(&report),
        [
            "+ cluster-template-external-cloud-provider.yaml variable OPENSTACK_EXTERNAL_NETWORK_ID: required",
            "+ cluster-template-without-lb.yaml variable OPENSTACK_EXTERNAL_NETWORK_ID: required",
            "+ cluster-template.yaml variable OPENSTACK_EXTERNAL_NETWORK_ID: required",
        ]
    );
    // Waived with the release note that tells users to set it.
    let output = diff(
        "infrastructure-openstack",
        "v0.4.0",
        "v0.5.0",
        &[
            "--format",
            "json",
            "--allow",
            "upgrade/template-variable-required=release notes: set OPENSTACK_EXTERNAL_NETWORK_ID",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(json(&output)["summary"]["waived"], 3);
}

/// CAPV v1.9.0 -> v1.10.0: its ClusterClass gained the required `controlPlanePort` (the class
/// is named by a variable, `${CLUSTER_CLASS_NAME}`, and kept so). Markdown for the pull request.
#[test]
fn capv_1_10_clusterclass_requires_a_new_variable() {
    let output = diff(
        "infrastructure-vsphere",
        "v1.9.0",
        "v1.10.0",
        &["--format", "markdown"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let md = stdout(&output);
    assert!(
        md.contains("- ❌ `upgrade/clusterclass-variable-required` ClusterClass ${CLUSTER_CLASS_NAME} variable controlPlanePort is new and required"),
        "{md}"
    );
    assert!(md.contains("### Templates and ClusterClasses (2)"), "{md}");
    assert!(
        md.contains(
            "| + | ClusterClass ${CLUSTER_CLASS_NAME} variable controlPlanePort: required |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| + | cluster-template-topology.yaml variable CONTROL_PLANE_ENDPOINT_PORT: default \"6443\" |"),
        "{md}"
    );
}

/// CAPD v1.13.0 -> v1.14.0: the quick-start class's Docker* templates became Dev* templates, a
/// change of kind Cluster API refuses for an existing class. GitHub annotations, one per place.
#[test]
fn capd_1_14_changes_the_kind_of_the_quick_start_templates() {
    let summary = tempfile::tempdir().unwrap();
    let output = capkg()
        .arg("diff")
        .arg(release_dir("infrastructure-docker", "v1.13.0"))
        .arg(release_dir("infrastructure-docker", "v1.14.0"))
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", summary.path().join("summary.md"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let annotations: Vec<String> = stdout(&output)
        .lines()
        .filter(|l| l.starts_with("::error file="))
        .map(str::to_string)
        .collect();
    assert_eq!(annotations.len(), 4, "{annotations:?}");
    assert!(
        annotations
            .iter()
            .all(|a| a.contains("clusterclass-quick-start.yaml,line=")
                && a.contains("clusterclass-template-incompatible")),
        "{annotations:?}"
    );
    assert!(
        annotations.iter().any(|a| a
            .contains("infrastructure changed kind DockerClusterTemplate -> DevClusterTemplate")),
        "{annotations:?}"
    );
    let written = std::fs::read_to_string(summary.path().join("summary.md")).unwrap();
    assert!(
        written.contains("| ~ | ClusterClass quick-start infrastructure: DockerClusterTemplate quick-start-cluster (infrastructure.cluster.x-k8s.io/v1beta2) -> DevClusterTemplate quick-start-cluster (infrastructure.cluster.x-k8s.io/v1beta2) |"),
        "{written}"
    );
}

/// A copy of CAPD v1.14.0's templates in a temporary release folder, edited.
struct Edited {
    dir: tempfile::TempDir,
}

impl Edited {
    fn new(edit: impl Fn(&str, String) -> Option<String>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let from = release_dir("infrastructure-docker", "v1.14.0");
        let to = dir.path().join("infrastructure-docker/v1.15.0");
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let text = if name == "metadata.yaml" {
                format!("{text}  - major: 1\n    minor: 15\n    contract: v1beta2\n")
            } else {
                text
            };
            if let Some(text) = edit(&name, text) {
                std::fs::write(to.join(&name), text).unwrap();
            }
        }
        Self { dir }
    }

    fn diff(&self, extra: &[&str]) -> std::process::Output {
        capkg()
            .arg("diff")
            .arg(release_dir("infrastructure-docker", "v1.14.0"))
            .arg(self.dir.path().join("infrastructure-docker/v1.15.0"))
            .args(extra)
            .output()
            .unwrap()
    }
}

fn once(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}`");
    text.replacen(from, to, 1)
}

#[test]
fn the_metadata_edit_alone_changes_no_template() {
    let edited = Edited::new(|_, text| Some(text));
    let report = json(&edited.diff(&["--format", "json"]));
    assert_eq!(findings(&report), []);
    assert!(template_changes(&report).is_empty(), "{report}");
}

/// Main says "No changes." for each of these: templates were not compared.
#[test]
fn clusterclass_variables_removed_or_narrowed_and_a_renamed_class_are_findings() {
    let edited = Edited::new(|name, text| match name {
        "clusterclass-quick-start.yaml" => Some(once(
            &once(
                &text,
                "  - name: coreDNSImageTag\n    required: true\n    schema:\n      openAPIV3Schema:\n        type: string\n        default: \"\"\n        example: \"v1.8.5\"\n        description: \"coreDNSImageTag sets the tag for the coreDNS image.\"\n",
                "",
            ),
            "          enforce:\n            type: string\n",
            "          enforce:\n            type: string\n            enum: [restricted]\n",
        )),
        "cluster-template-development.yaml" => Some(once(
            &text,
            "      name: quick-start\n",
            "      name: quick-start-v2\n",
        )),
        _ => Some(text),
    });
    let output = edited.diff(&["--format", "json"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(
        findings(&report),
        [
            pair("upgrade/template-clusterclass-changed", "warning"),
            pair("upgrade/clusterclass-variable-removed", "error"),
            pair("upgrade/clusterclass-variable-narrowed", "error"),
        ]
    );
    assert!(
        report["diagnostics"][2]["message"]
            .as_str()
            .unwrap()
            .contains("podSecurityStandard.enforce: enum added: \"restricted\""),
        "{report}"
    );
}

#[test]
fn a_removed_clusterclass_file_warns() {
    let edited = Edited::new(|name, text| (name != "clusterclass-in-memory.yaml").then_some(text));
    let output = edited.diff(&[]);
    // `templates/clusterclass-file` is lint's: diff reports the removal only.
    let text = stdout(&output);
    assert!(
        text.contains("  - ClusterClass in-memory (clusterclass-in-memory.yaml)"),
        "{text}"
    );
    assert!(text.contains("upgrade/clusterclass-removed"), "{text}");
    assert_eq!(output.status.code(), Some(0), "a warning: {text}");
}

/// `capkg release --dry-run --previous FOLDER` compares the templates too, and refuses a
/// template that needs a new variable; the removed flavor beside it is a warning.
#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn a_dry_run_release_refuses_a_template_needing_a_new_variable() {
    let provider = Provider::new(
        "  local:\n    repository: repo\n",
        crate::publish_fakes::METADATA,
    );
    let templates = provider.root().join("templates");
    std::fs::write(
        templates.join("cluster-template-extra.yaml"),
        crate::publish_fakes::TEMPLATE,
    )
    .unwrap();
    let run = |tag: &str, extra: &[&str]| {
        let actions = Actions::new();
        let mut command = release(&provider);
        command.args(["--format", "json"]).args(extra);
        actions.apply(&mut command, tag);
        command.output().unwrap()
    };
    let output = run("v1.2.3", &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let previous = provider.root().join("repo/infrastructure-azure/v1.2.3");
    assert!(previous.join("cluster-template-extra.yaml").is_file());

    std::fs::remove_file(templates.join("cluster-template-extra.yaml")).unwrap();
    let needing = format!(
        "{}  annotations:\n    location: ${{AZURE_LOCATION}}\n",
        crate::publish_fakes::TEMPLATE
    );
    std::fs::write(templates.join("cluster-template.yaml"), &needing).unwrap();
    let previous_arg = previous.display().to_string();
    let output = run("v1.2.4", &["--dry-run", "--previous", &previous_arg]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report = json(&output);
    assert_eq!(report["status"], "refused");
    let upgrade = &report["targets"][0]["upgrade"][0];
    assert_eq!(
        findings(&upgrade["diff"]),
        [
            pair("upgrade/flavor-removed", "warning"),
            pair("upgrade/template-variable-required", "error"),
        ]
    );
    let message = report["error"]["message"].as_str().unwrap();
    assert!(
        message.contains(
            "upgrade/template-variable-required: `cluster-template.yaml` now needs `AZURE_LOCATION`"
        ),
        "{message}"
    );

    // With a default the dry run would publish, the removed flavor shown as a warning.
    std::fs::write(
        templates.join("cluster-template.yaml"),
        needing.replace("${AZURE_LOCATION}", "${AZURE_LOCATION:=westeurope}"),
    )
    .unwrap();
    let output = run("v1.2.4", &["--dry-run", "--previous", &previous_arg]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report = json(&output);
    let upgrade = &report["targets"][0]["upgrade"][0];
    assert_eq!(
        findings(&upgrade["diff"]),
        [pair("upgrade/flavor-removed", "warning")]
    );
    assert!(
        template_changes(&upgrade["diff"]).contains(
            &"+ cluster-template.yaml variable AZURE_LOCATION: default \"westeurope\"".to_string()
        ),
        "{}",
        upgrade["diff"]
    );
}

// --- where the releases are ---

/// A release folder `{dir}/{version}` as capkg publishes it: CAPD's trimmed components
/// (`testdata/diff/infrastructure-docker`), the templates and `metadata.yaml` of `version`, and
/// `checksums.txt`; v1.14.0 without its `in-memory` flavor, so that both cluster templates and
/// ClusterClass files are seen to be read.
fn published(dir: &Path, version: &str) -> PathBuf {
    let components = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/diff/infrastructure-docker/infrastructure-components.yaml");
    let mut files = vec![(
        "infrastructure-components.yaml".to_string(),
        std::fs::read(components).unwrap(),
    )];
    for entry in std::fs::read_dir(release_dir("infrastructure-docker", version)).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if version != "v1.14.0" || name != "cluster-template-in-memory.yaml" {
            files.push((name, std::fs::read(path).unwrap()));
        }
    }
    let files: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, c)| (n.as_str(), c.clone())).collect();
    let folder = dir.join(version);
    write_release(&folder, &files);
    folder
}

/// The files of a folder `published` wrote.
fn files_of(folder: &Path) -> Vec<(String, Vec<u8>)> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            (name, std::fs::read(path).unwrap())
        })
        .collect()
}

/// What every source must show: the flavor removed and the four templates of another kind.
fn assert_read_whole(output: &std::process::Output) {
    let report = json(output);
    // Findings are sorted by file, and sources name files differently.
    let mut rules: Vec<String> = findings(&report)
        .into_iter()
        .map(|(rule, _)| rule)
        .collect();
    rules.sort();
    rules.dedup();
    assert_eq!(
        rules,
        [
            "upgrade/clusterclass-template-incompatible",
            "upgrade/flavor-removed"
        ],
        "{report}"
    );
    assert_eq!(report["summary"]["errors"], 4, "{report}");
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn folders_and_local_repositories_give_diff_their_templates() {
    let repo = tempfile::tempdir().unwrap();
    for version in ["v1.13.0", "v1.14.0"] {
        published(&repo.path().join("infrastructure-docker"), version);
    }
    let url = |version: &str| {
        format!(
            "file://{}/infrastructure-docker/{version}/infrastructure-components.yaml",
            repo.path().display()
        )
    };
    let output = capkg()
        .args(["--format", "json", "diff", &url("v1.13.0"), &url("v1.14.0")])
        .output()
        .unwrap();
    assert_read_whole(&output);
    let folder = |version: &str| repo.path().join("infrastructure-docker").join(version);
    let output = capkg()
        .args(["--format", "json", "diff"])
        .arg(folder("v1.13.0"))
        .arg(folder("v1.14.0"))
        .output()
        .unwrap();
    assert_read_whole(&output);
}

#[test]
fn github_releases_give_diff_their_templates() {
    let github = FakeGitHub::start();
    let work = tempfile::tempdir().unwrap();
    for version in ["v1.13.0", "v1.14.0"] {
        let files = files_of(&published(work.path(), version));
        let assets: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(n, c)| (n.as_str(), c.as_slice()))
            .collect();
        github.add_release(version, false, &assets);
    }
    let url = |version: &str| {
        format!("https://github.com/o/r/releases/{version}/infrastructure-components.yaml")
    };
    let output = capkg()
        .args(["--format", "json", "diff", &url("v1.13.0"), &url("v1.14.0")])
        .args(["--api-url", &github.api])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_read_whole(&output);
}

#[test]
fn gitlab_packages_give_diff_their_templates_through_their_checksums() {
    let gitlab = FakeGitLab::start();
    let work = tempfile::tempdir().unwrap();
    for version in ["v1.13.0", "v1.14.0"] {
        for (name, content) in files_of(&published(work.path(), version)) {
            gitlab.put_file("infrastructure-docker", version, &name, &content);
        }
    }
    let url = |version: &str| {
        format!(
            "{}/projects/{PROJECT_ID}/packages/generic/infrastructure-docker/{version}/infrastructure-components.yaml",
            gitlab.api
        )
    };
    let output = capkg()
        .args(["--format", "json", "diff", &url("v1.13.0"), &url("v1.14.0")])
        // A job token goes to its own instance only (the Security chapter's credential table).
        .env("CI_API_V4_URL", &gitlab.api)
        .env("CI_JOB_TOKEN", JOB_TOKEN)
        .output()
        .unwrap();
    assert_read_whole(&output);
}

#[test]
fn oci_artifacts_give_diff_their_templates() {
    use crate::oci_e2e::{LocalRegistry, oci_capkg, text};
    let registry = LocalRegistry::start(false);
    let docker = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    for version in ["v1.13.0", "v1.14.0"] {
        let dir = published(work.path(), version);
        let output = oci_capkg(docker.path())
            .args(["publish", "oci"])
            .arg(&dir)
            .args([
                "--version",
                version,
                "--repository",
                &registry.reference("capi/docker"),
            ])
            .output()
            .unwrap();
        assert!(output.status.success(), "{}", text(&output));
    }
    let source = |version: &str| format!("oci://http://{}/capi/docker:{version}", registry.host());
    let output = oci_capkg(docker.path())
        .args([
            "--format",
            "json",
            "diff",
            &source("v1.13.0"),
            &source("v1.14.0"),
        ])
        .output()
        .unwrap();
    assert_read_whole(&output);
}
