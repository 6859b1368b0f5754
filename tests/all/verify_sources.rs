//! `capkg verify SOURCE` against the fake GitHub and GitLab servers, local repositories and
//! folders: explicit versions, `latest` as clusterctl resolves it, missing files and series,
//! checksums, CI output, and clusterctl's URL rules.

use std::path::Path;
use std::process::Output;

use crate::publish_fakes::github::{FakeGitHub, TOKEN};
use crate::publish_fakes::gitlab::{FakeGitLab, JOB_TOKEN, PROJECT_ID};
use crate::publish_fakes::{COMPONENTS, METADATA, TEMPLATE, capkg, release_files, sha256};
use serde_json::Value;

const URL_V123: &str = "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml";

/// The standard release files plus their `checksums.txt`, as capkg publishes them.
fn published_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = release_files()
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
    let sums: String = files
        .iter()
        .map(|(n, c)| format!("{}  {n}\n", sha256(c)))
        .collect();
    files.push(("checksums.txt".into(), sums.into_bytes()));
    files
}

fn add_release(github: &FakeGitHub, tag: &str, draft: bool, files: &[(String, Vec<u8>)]) {
    let assets: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_slice()))
        .collect();
    github.add_release(tag, draft, &assets);
}

fn verify_github(github: &FakeGitHub, url: &str) -> Output {
    capkg()
        .args(["--format", "json", "verify", url, "--api-url", &github.api])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn names(report: &Value) -> Vec<String> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name} in {report}"))
}

#[test]
fn a_github_release_reads_like_clusterctl_and_passes() {
    let github = FakeGitHub::start();
    add_release(&github, "v1.2.3", false, &published_files());
    let output = verify_github(&github, URL_V123);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["ok"], true);
    assert_eq!(report["repository"], "github");
    assert_eq!(report["version"], "v1.2.3");
    assert_eq!(report["provider_label"], "infrastructure-azure");
    assert_eq!(
        names(&report),
        [
            "metadata.yaml",
            "infrastructure-components.yaml",
            "cluster-template.yaml"
        ]
    );
    assert_eq!(report["files"][1]["sha256"], sha256(COMPONENTS.as_bytes()));
    assert_eq!(
        report["files"][0]["url"],
        "https://github.com/o/r/releases/v1.2.3/metadata.yaml"
    );
    assert_eq!(check(&report, "release-series")["ok"], true);
    assert_eq!(check(&report, "checksums")["ok"], true);
    // Read only: the API by tag and asset downloads, nothing else.
    assert!(github.mutations().is_empty(), "{:?}", github.mutations());
    assert_eq!(github.count("GET", "/releases/tags/v1.2.3"), 1);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
    assert!(!all.contains(TOKEN));
}

#[test]
fn latest_skips_drafts_and_prefers_releases_to_newer_pre_releases() {
    let github = FakeGitHub::start();
    add_release(&github, "v1.1.0", false, &published_files());
    add_release(&github, "v1.2.3", false, &published_files());
    add_release(&github, "v1.3.0-rc.0", false, &published_files());
    // A draft is listed (the token can see it) but the by-tag endpoint hides it: skipped.
    add_release(&github, "v1.2.4", true, &published_files());
    add_release(&github, "nightly", false, &published_files());
    let output = verify_github(
        &github,
        "https://github.com/o/r/releases/latest/infrastructure-components.yaml",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["requested_version"], "latest");
    assert_eq!(report["version"], "v1.2.3");
    let skipped = report["latest"]["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(
        skipped[0]
            .as_str()
            .unwrap()
            .starts_with("v1.2.4: release not found")
    );
}

#[test]
fn a_release_without_metadata_stops_with_clusterctls_words() {
    let github = FakeGitHub::start();
    let files: Vec<(String, Vec<u8>)> = published_files()
        .into_iter()
        .filter(|(n, _)| n != "metadata.yaml")
        .collect();
    add_release(&github, "v1.2.3", false, &files);
    let output = verify_github(&github, URL_V123);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("failed to read \"metadata.yaml\" from the repository for provider"),
        "{err}"
    );
    assert!(
        err.contains("failed to get file \"metadata.yaml\" from \"v1.2.3\" release"),
        "{err}"
    );
}

#[test]
fn a_missing_release_says_so_and_hints_at_drafts() {
    let github = FakeGitHub::start();
    add_release(&github, "v1.2.3", true, &published_files());
    let output = verify_github(&github, URL_V123);
    assert_eq!(output.status.code(), Some(1));
    let err = stderr(&output);
    assert!(
        err.contains("release not found for version v1.2.3"),
        "{err}"
    );
    assert!(err.contains("draft"), "{err}");
}

#[test]
fn a_version_without_a_release_series_fails_the_check() {
    let github = FakeGitHub::start();
    add_release(&github, "v1.3.0", false, &published_files());
    let output = verify_github(
        &github,
        "https://github.com/o/r/releases/v1.3.0/infrastructure-components.yaml",
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["ok"], false);
    let series = check(&report, "release-series");
    assert_eq!(series["ok"], false);
    assert_eq!(
        series["message"],
        "invalid provider metadata: version v1.3.0 for the provider infrastructure-azure does not match any release series. Available series: [1.2]."
    );
}

#[test]
fn files_that_do_not_match_the_published_checksums_fail() {
    let github = FakeGitHub::start();
    let mut files = published_files();
    for (name, content) in &mut files {
        if name == "cluster-template.yaml" {
            content.extend_from_slice(b"# changed after checksums.txt\n");
        }
    }
    add_release(&github, "v1.2.3", false, &files);
    let output = verify_github(&github, URL_V123);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let sums = check(&report, "checksums");
    assert_eq!(sums["ok"], false);
    assert!(
        sums["message"]
            .as_str()
            .unwrap()
            .contains("`cluster-template.yaml` has SHA-256"),
        "{sums}"
    );
}

#[test]
fn a_gitlab_package_is_listed_through_its_checksums() {
    let gitlab = FakeGitLab::start();
    for (name, content) in published_files() {
        gitlab.put_file("infrastructure-azure", "v1.2.3", &name, &content);
    }
    let url = format!(
        "{}/projects/{PROJECT_ID}/packages/generic/infrastructure-azure/v1.2.3/infrastructure-components.yaml",
        gitlab.api
    );
    let output = capkg()
        .args(["--format", "json", "verify", &url])
        .env("CI_API_V4_URL", &gitlab.api)
        .env("CI_JOB_TOKEN", JOB_TOKEN)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["repository"], "gitlab");
    assert_eq!(
        names(&report),
        [
            "metadata.yaml",
            "infrastructure-components.yaml",
            "cluster-template.yaml"
        ]
    );
    assert_eq!(check(&report, "checksums")["ok"], true);
    // clusterctl would not read plain http: said, not failed.
    assert!(
        report["warnings"][0]
            .as_str()
            .unwrap()
            .contains("only over https"),
        "{report}"
    );
    assert_eq!(gitlab.count("PUT"), 0);
    let unauthorised = capkg().args(["verify", &url]).output().unwrap();
    assert_eq!(unauthorised.status.code(), Some(1));
    assert!(stderr(&unauthorised).contains("unauthorized access, please check your credentials"));
}

fn local_release(base: &Path, version: &str, metadata: Option<&str>) {
    let dir = base.join("infrastructure-azure").join(version);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("infrastructure-components.yaml"), COMPONENTS).unwrap();
    std::fs::write(dir.join("cluster-template.yaml"), TEMPLATE).unwrap();
    if let Some(metadata) = metadata {
        std::fs::write(dir.join("metadata.yaml"), metadata).unwrap();
    }
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn a_local_repository_resolves_latest_and_stops_at_a_candidate_without_metadata() {
    let repo = tempfile::tempdir().unwrap();
    local_release(repo.path(), "v1.2.3", Some(METADATA));
    local_release(repo.path(), "v1.2.4-rc.0", Some(METADATA));
    let url = format!(
        "file://{}/infrastructure-azure/latest/infrastructure-components.yaml",
        repo.path().display()
    );
    let output = capkg()
        .args(["--format", "json", "verify", &url])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["repository"], "local");
    assert_eq!(report["version"], "v1.2.3");
    assert_eq!(report["provider_label"], "infrastructure-azure");

    // A newer version folder without metadata.yaml is a hard error for local repositories.
    local_release(repo.path(), "v1.2.5", None);
    let output = capkg().args(["verify", &url]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("failed to read file"),
        "{}",
        stderr(&output)
    );

    // The label in the path must be the provider's: clusterctl refuses the arguments (exit 2).
    let output = capkg()
        .args(["verify", &url, "--provider", "aws"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("must contain provider \"infrastructure-aws\""),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_folder_is_linted_with_the_version_from_its_path() {
    let repo = tempfile::tempdir().unwrap();
    local_release(
        repo.path(),
        "v1.4.0",
        Some(&METADATA.replace("kind: Metadata\n", "")),
    );
    let dir = repo.path().join("infrastructure-azure/v1.4.0");
    let output = capkg()
        .args(["--format", "json", "verify"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    assert_eq!(report["repository"], "directory");
    assert_eq!(report["version"], "v1.4.0");
    assert_eq!(check(&report, "release-series")["ok"], false);
    let rules: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap())
        .collect();
    assert!(rules.contains(&"metadata/kind"), "{rules:?}");
    assert!(rules.contains(&"metadata/version-series"), "{rules:?}");
}

#[test]
fn urls_clusterctl_refuses_are_refused_with_its_words() {
    for (url, expected) in [
        (
            "https://example.com/o/r/releases/v1.0.0/infrastructure-components.yaml",
            "invalid provider url. Only GitHub and GitLab are supported for \"https\" schema",
        ),
        (
            "https://github.com/o/r/v1.0.0/infrastructure-components.yaml",
            "invalid url: a GitHub repository url should be in the form",
        ),
        (
            "https://gitlab.com/api/v4/projects/group/project/packages/generic/p/v1.0.0/f.yaml",
            "invalid url: a GitLab repository url should be in the form",
        ),
    ] {
        let output = capkg().args(["verify", url]).output().unwrap();
        // A bad argument, in clusterctl's words: exit 2 as for any argument capkg cannot use.
        assert_eq!(output.status.code(), Some(2), "{url}");
        assert!(
            stderr(&output).contains(expected),
            "{url}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn in_github_actions_findings_are_annotated_and_summarised() {
    let github = FakeGitHub::start();
    add_release(&github, "v1.3.0", false, &published_files());
    let work = tempfile::tempdir().unwrap();
    let summary = work.path().join("summary.md");
    let output = capkg()
        .args([
            "verify",
            "https://github.com/o/r/releases/v1.3.0/infrastructure-components.yaml",
        ])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_API_URL", &github.api)
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("::error file=metadata.yaml,")
            && stdout.contains("title=metadata/version-series::"),
        "{stdout}"
    );
    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(
        markdown.contains("### capkg verify failed: infrastructure-azure v1.3.0"),
        "{markdown}"
    );
    assert!(markdown.contains("❌ release-series"), "{markdown}");
}
