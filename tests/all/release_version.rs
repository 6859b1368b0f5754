//! `capkg release` before anything is assembled: where the version comes from and what it must
//! look like, and that a refusal still reaches the CI summary, outputs and JSON.

use std::process::{Command, Output};

use crate::publish_fakes::capkg;
use serde_json::Value;

fn release() -> Command {
    let mut command = capkg();
    command.arg("release");
    for name in [
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "GITHUB_REF_NAME",
        "GITHUB_REF_TYPE",
        "GITHUB_REF",
        "CI_COMMIT_TAG",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_OUTPUT",
    ] {
        command.env_remove(name);
    }
    command
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn no_version_and_no_tag_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    // Without a configuration, that is what is missing first (it could hold `version:`).
    let output = release().current_dir(dir.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no capkg.yaml in `.` or above it"),
        "{}",
        stderr(&output)
    );
    std::fs::write(
        dir.path().join("capkg.yaml"),
        "provider:\n  name: azure\n  type: infrastructure\n",
    )
    .unwrap();
    let output = release().current_dir(dir.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no version to release: pass `--version vX.Y.Z`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_branch_push_has_no_version() {
    let dir = tempfile::tempdir().unwrap();
    let output = release()
        .current_dir(dir.path())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_REF_TYPE", "branch")
        .env("GITHUB_REF_NAME", "main")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn versions_without_v_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    // A bad `--version` is a bad argument (exit 2), whichever way it is bad.
    let output = release()
        .args(["--version", "1.2.3"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("lacks the `v` prefix"),
        "{}",
        stderr(&output)
    );

    let output = release()
        .args(["--version", "v1.2"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));

    // A tag without `v` is wrong input (exit 1): the tag, not the command line, must change.
    let output = release()
        .current_dir(dir.path())
        .env("GITLAB_CI", "true")
        .env("CI_COMMIT_TAG", "1.2.3")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("(CI_COMMIT_TAG)"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_tag_that_is_no_version_is_refused_in_summary_outputs_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let summary = dir.path().join("summary.md");
    let outputs = dir.path().join("outputs");
    let output = release()
        .args(["--format", "json"])
        .current_dir(dir.path())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_REF_TYPE", "tag")
        .env("GITHUB_REF_NAME", "release-1.2")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let outcome: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(outcome["status"], "refused");
    assert_eq!(outcome["error"]["stage"], "version");
    assert_eq!(outcome["error"]["exit_code"], 1);
    assert_eq!(
        outcome["error"].get("exit"),
        None,
        "`exit` was `exit_code` twice"
    );
    assert_eq!(outcome["schema_version"], 1);
    assert!(
        outcome["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("the tag `release-1.2` (GITHUB_REF_NAME) is not a semantic version"),
        "{outcome}"
    );
    let markdown = std::fs::read_to_string(&summary).unwrap();
    assert!(
        markdown.contains("capkg release (no version): refused"),
        "{markdown}"
    );
    assert!(markdown.contains("release-1.2"), "{markdown}");
    assert_eq!(
        std::fs::read_to_string(&outputs).unwrap(),
        "status=refused\n"
    );
}
