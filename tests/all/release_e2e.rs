//! `capkg release` end to end, one test per target: a provider repository with `capkg.yaml`, the
//! tag in the CI environment, the fake GitHub and GitLab servers (or a temporary local
//! repository), then `capkg verify` on the clusterctl URL the release printed, then a second
//! release that changes nothing. Also: lint errors stop before any request that writes, a git tag
//! without a release series is refused by name, and `--dry-run` makes no network request.

use std::path::Path;

use crate::publish_fakes::github::{self, FakeGitHub};
use crate::publish_fakes::gitlab::{self, FakeGitLab, PROJECT_ID};
use crate::publish_fakes::{METADATA, capkg};
use crate::release_common::{Actions, Provider, json, release, stderr, stdout};

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn local_target_release_verify_and_rerun() {
    let provider = Provider::new("  local:\n    repository: repo\n", METADATA);
    let actions = Actions::new();
    let mut first = release(&provider);
    actions.apply(&mut first, "v1.2.3");
    let output = first.output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let url = actions.output_value("clusterctl-url").unwrap();
    assert!(url.starts_with("file://"), "{url}");
    assert!(
        url.ends_with("/repo/infrastructure-azure/v1.2.3/infrastructure-components.yaml"),
        "{url}"
    );
    assert!(stdout(&output).contains(&url));
    assert_eq!(actions.output_value("version").as_deref(), Some("v1.2.3"));
    assert_eq!(actions.output_value("status").as_deref(), Some("published"));
    let summary = std::fs::read_to_string(actions.summary()).unwrap();
    assert!(
        summary.contains("## ✅ capkg release v1.2.3: published"),
        "{summary}"
    );
    assert!(summary.contains("| `checksums.txt` |"), "{summary}");

    let verified = capkg().args(["verify", &url]).output().unwrap();
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));

    let version_dir = provider.root().join("repo/infrastructure-azure/v1.2.3");
    let before = folder_state(&version_dir);
    let mut second = release(&provider);
    second.args(["--format", "json"]);
    actions.apply(&mut second, "v1.2.3");
    let output = second.output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let outcome = json(&output);
    assert_eq!(outcome["status"], "unchanged");
    assert_eq!(outcome["targets"][0]["state"], "unchanged");
    assert_eq!(folder_state(&version_dir), before);
}

/// Names, sizes and modification times of a folder's files.
fn folder_state(dir: &Path) -> Vec<(String, u64, std::time::SystemTime)> {
    let mut state: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.len(),
                m.modified().unwrap(),
            )
        })
        .collect();
    state.sort();
    state
}

#[test]
fn github_target_release_verify_and_rerun() {
    let fake = FakeGitHub::start();
    let provider = Provider::new("  github:\n    repo: o/r\n", METADATA);
    let actions = Actions::new();
    let run = |format_json: bool| {
        let mut command = release(&provider);
        if format_json {
            command.args(["--format", "json"]);
        }
        actions.apply(&mut command, "v1.2.3");
        command
            .env("GITHUB_API_URL", &fake.api)
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap()
    };
    let output = run(false);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let url = "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml";
    assert_eq!(
        actions.output_value("github-clusterctl-url").as_deref(),
        Some(url)
    );
    assert!(stdout(&output).contains(url));
    let published = fake.release("v1.2.3");
    assert_eq!(published.len(), 1);
    assert!(!published[0].draft);
    let mut names: Vec<&str> = published[0]
        .assets
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "capkg-provenance.intoto.json",
            "checksums.txt",
            "cluster-template.yaml",
            "infrastructure-components.yaml",
            "metadata.yaml"
        ]
    );

    let verified = capkg()
        .args(["verify", url, "--api-url", &fake.api])
        .env("GITHUB_TOKEN", github::TOKEN)
        .output()
        .unwrap();
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));

    let writes = fake.mutations();
    let output = run(true);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(json(&output)["status"], "unchanged");
    assert_eq!(
        fake.mutations(),
        writes,
        "a second release must change nothing"
    );
    let all = format!("{}{}", stdout(&output), stderr(&output));
    assert!(!all.contains(github::TOKEN));
}

#[test]
fn gitlab_target_release_verify_and_rerun() {
    let fake = FakeGitLab::start();
    let provider = Provider::new("  gitlab:\n    package: infrastructure-azure\n", METADATA);
    let run = || {
        release(&provider)
            .env("GITLAB_CI", "true")
            .env("CI", "true")
            .env("CI_COMMIT_TAG", "v1.2.3")
            .env("CI_API_V4_URL", &fake.api)
            .env("CI_PROJECT_ID", PROJECT_ID)
            .env("CI_JOB_TOKEN", gitlab::JOB_TOKEN)
            .output()
            .unwrap()
    };
    let output = run();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let text = stdout(&output);
    // GitLab has no summary page: the Markdown summary is in the log.
    assert!(
        text.contains("## ✅ capkg release v1.2.3: published"),
        "{text}"
    );
    let url = format!(
        "{}/projects/{PROJECT_ID}/packages/generic/infrastructure-azure/v1.2.3/infrastructure-components.yaml",
        fake.api
    );
    assert!(text.contains(&format!("clusterctl URL: {url}")), "{text}");
    // The release files and the provenance statement over them.
    assert_eq!(fake.count("PUT"), 5);

    let verified = capkg()
        .args(["verify", &url])
        .env("CI_API_V4_URL", &fake.api)
        .env("CI_JOB_TOKEN", gitlab::JOB_TOKEN)
        .output()
        .unwrap();
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));

    let output = run();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("already published, nothing changed"));
    assert_eq!(fake.count("PUT"), 5, "a second release must upload nothing");
}

#[test]
fn lint_errors_stop_before_any_write_with_annotations_and_summary() {
    let fake = FakeGitHub::start();
    // An apiVersion clusterctl cannot decode: `clusterctl init` would fail on this metadata.
    let provider = Provider::new(
        "  github:\n    repo: o/r\n",
        &METADATA.replace("v1alpha3", "v1alpha4"),
    );
    let actions = Actions::new();
    let mut command = release(&provider);
    actions.apply(&mut command, "v1.2.3");
    let output = command
        .env("GITHUB_API_URL", &fake.api)
        .env("GITHUB_TOKEN", github::TOKEN)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let text = stdout(&output);
    assert!(text.contains("::error "), "{text}");
    assert!(
        stderr(&output).contains("nothing was published"),
        "{}",
        stderr(&output)
    );
    let summary = std::fs::read_to_string(actions.summary()).unwrap();
    assert!(summary.contains("refused, nothing published"), "{summary}");
    assert!(summary.contains("| ❌ error |"), "{summary}");
    assert_eq!(actions.output_value("status").as_deref(), Some("refused"));
    assert!(fake.mutations().is_empty(), "{:?}", fake.mutations());
    assert!(
        fake.requests().is_empty(),
        "lint errors stop before the remote is even read"
    );
}

#[test]
fn a_git_tag_without_a_release_series_refuses_the_release_by_name() {
    let repo = tempfile::tempdir().unwrap();
    let provider = Provider::new(
        &format!("  local:\n    repository: {}\n", repo.path().display()),
        "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta1\n- major: 1\n  minor: 2\n  contract: v1beta1\n",
    );
    provider.tagged(&["v1.0.0", "v1.1.0", "v1.2.3"]);
    let output = release(&provider)
        .args(["--version", "v1.2.3"])
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let err = stderr(&output);
    assert!(
        err.contains("metadata.yaml has no release series for the git tag(s) v1.1.0 (series 1.1)"),
        "{err}"
    );
    assert!(err.contains("add release series 1.1"), "{err}");
    assert!(
        std::fs::read_dir(repo.path()).unwrap().next().is_none(),
        "nothing was written"
    );
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn dry_run_on_the_example_provider_plans_everything_without_network() {
    // A server that records every request stands in for GitHub: it must see none.
    let fake = FakeGitHub::start();
    let copy = tempfile::tempdir().unwrap();
    crate::common::copy_example_provider(copy.path());
    let config = copy.path().join("capkg.yaml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("  github:\n    repo: example-org/cluster-api-provider-example\n");
    std::fs::write(&config, text).unwrap();

    let output = capkg()
        .args([
            "--format",
            "json",
            "release",
            "--dry-run",
            "--version",
            "v0.1.0",
            "--config",
        ])
        .arg(&config)
        .current_dir(copy.path())
        .env("GITHUB_API_URL", &fake.api)
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        stdout(&output),
        stderr(&output)
    );
    let outcome = json(&output);
    assert_eq!(outcome["status"], "dry-run");
    assert_eq!(outcome["provider_label"], "infrastructure-example");
    let targets = outcome["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 2);
    assert_eq!(targets[0]["target"], "local");
    assert_eq!(targets[0]["plan"]["remote_checked"], true);
    assert_eq!(targets[1]["target"], "github");
    assert_eq!(targets[1]["plan"]["remote_checked"], false);
    assert_eq!(
        targets[1]["clusterctl_url"],
        "https://github.com/example-org/cluster-api-provider-example/releases/v0.1.0/infrastructure-components.yaml"
    );
    let files: Vec<&str> = outcome["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(
        files.contains(&"infrastructure-components.yaml"),
        "{files:?}"
    );
    assert!(files.contains(&"clusterclass-example.yaml"), "{files:?}");
    assert!(
        fake.requests().is_empty(),
        "a dry run made {} request(s)",
        fake.requests().len()
    );
    assert!(
        !copy.path().join("out-repository").exists(),
        "a dry run writes nothing"
    );

    // The human plan names every step and says nothing was touched.
    let output = capkg()
        .args(["release", "--dry-run", "--version", "v0.1.0", "--config"])
        .arg(&config)
        .current_dir(copy.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("publish the release"), "{text}");
    assert!(text.contains("no network request"), "{text}");
}

#[test]
fn annotations_stay_within_githubs_caps_and_the_summary_lists_everything() {
    let mut metadata = METADATA.to_string();
    for n in 0..12 {
        metadata.push_str(&format!(
            "- major: 1\n  minor: {}\n  contract: v9beta{n}\n",
            n + 3
        ));
    }
    let provider = Provider::new("  local:\n    repository: repo\n", &metadata);
    let actions = Actions::new();
    let mut command = release(&provider);
    actions.apply(&mut command, "v1.2.3");
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let text = stdout(&output);
    let errors = text.lines().filter(|l| l.starts_with("::error")).count();
    assert_eq!(errors, 10, "{text}");
    // The run's own error is always among them.
    assert!(text.contains("::error title=capkg/release::"), "{text}");
    let logged = text
        .lines()
        .filter(|l| l.contains(": error[metadata/contract]: "))
        .count();
    assert_eq!(logged, 3, "{text}");
    assert!(
        text.contains("3 errors more not shown as annotations"),
        "{text}"
    );
    let summary = std::fs::read_to_string(actions.summary()).unwrap();
    assert_eq!(
        summary.matches("`metadata/contract`").count(),
        12,
        "{summary}"
    );
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn a_failure_midway_says_what_is_done_and_a_rerun_finishes() {
    use crate::publish_fakes::github::FaultAction;
    use crate::publish_fakes::server::Reply;

    let fake = FakeGitHub::start();
    let provider = Provider::new(
        "  local:\n    repository: repo\n  github:\n    repo: o/r\n",
        METADATA,
    );
    // The first upload is refused once, after the local target has been published.
    fake.fault(
        "POST",
        "/assets",
        FaultAction::Reply(Reply::json(
            403,
            serde_json::json!({"message": "Resource not accessible by integration"}),
        )),
        1,
    );
    let run = || {
        release(&provider)
            .args(["--version", "v1.2.3", "--format", "json"])
            .env("GITHUB_API_URL", &fake.api)
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap()
    };
    let output = run();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let outcome = json(&output);
    assert_eq!(outcome["status"], "incomplete");
    assert_eq!(outcome["targets"][0]["state"], "published");
    assert_eq!(outcome["targets"][1]["state"], "failed");
    assert_eq!(outcome["targets"][1]["failed_step"], "upload");
    let message = outcome["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("Done: local (published and verified)"),
        "{message}"
    );
    assert!(
        message.contains("Stopped: github (stopped while uploading; the release is still a draft, invisible to clusterctl)"),
        "{message}"
    );
    assert!(
        message.contains("Run the same command again to finish"),
        "{message}"
    );
    assert!(fake.release("v1.2.3").iter().all(|r| r.draft));

    let output = run();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let outcome = json(&output);
    assert_eq!(outcome["status"], "published");
    assert_eq!(outcome["targets"][0]["state"], "unchanged");
    assert_eq!(outcome["targets"][1]["state"], "published");
    assert!(outcome["targets"][1]["verify"]["ok"].as_bool().unwrap());
    let releases = fake.release("v1.2.3");
    assert_eq!(releases.len(), 1, "the draft was reused");
    assert!(!releases[0].draft);
}
