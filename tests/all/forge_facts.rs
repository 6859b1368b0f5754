//! Facts the forge layer owns once for publish, release and verify: how a GitLab project path is
//! escaped (once, whether or not it came escaped) and the order GitLab tokens are read in
//! (`GITLAB_TOKEN`, then `GITLAB_ACCESS_TOKEN` as a bearer token, then `CI_JOB_TOKEN`), against
//! the fake GitLab on 127.0.0.1.

use std::path::Path;

use crate::publish_fakes::gitlab::{FakeGitLab, JOB_TOKEN, PROJECT_PATH, TOKEN};
use crate::publish_fakes::{capkg, release_dir};

/// `capkg --format json publish gitlab DIR --project PROJECT` with exactly `tokens` set.
fn publish(fake: &FakeGitLab, dir: &Path, project: &str, tokens: &[(&str, &str)]) -> String {
    let mut command = capkg();
    command
        .args(["--format", "json", "publish", "gitlab"])
        .arg(dir)
        .args([
            "--version",
            "v1.2.3",
            "--project",
            project,
            "--api-url",
            &fake.api,
        ])
        .env_remove("GITLAB_TOKEN")
        .env_remove("GITLAB_ACCESS_TOKEN")
        .env_remove("CI_JOB_TOKEN");
    for (name, value) in tokens {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn an_escaped_project_path_is_not_escaped_twice() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    // PROJECT_PATH is `group%2Fsub%2Fprovider`, as GitLab's own URLs show a path.
    let stdout = publish(&fake, &dir, PROJECT_PATH, &[("GITLAB_TOKEN", TOKEN)]);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let url = json["clusterctl_url"].as_str().unwrap();
    assert!(
        url.contains("/projects/group%2Fsub%2Fprovider/packages/generic/"),
        "{url}"
    );
    assert!(!url.contains("%25"), "escaped twice: {url}");
    let requests = fake.requests();
    assert!(!requests.is_empty());
    for request in &requests {
        assert!(
            request
                .path
                .starts_with("/api/v4/projects/group%2Fsub%2Fprovider/"),
            "{}",
            request.path
        );
    }
}

#[test]
fn gitlab_token_wins_over_clusterctls_variable_and_the_job_token() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    publish(
        &fake,
        &dir,
        "42",
        &[
            ("GITLAB_TOKEN", TOKEN),
            ("GITLAB_ACCESS_TOKEN", "glpat-OTHER-ACCESS-TOKEN"),
            ("CI_JOB_TOKEN", JOB_TOKEN),
        ],
    );
    let requests = fake.requests();
    assert!(!requests.is_empty());
    assert!(
        requests
            .iter()
            .all(|r| r.header("private-token") == Some(TOKEN)
                && r.header("job-token").is_none()
                && r.header("authorization").is_none())
    );
}

#[test]
fn gitlab_access_token_is_sent_as_a_bearer_token_before_the_job_token() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    publish(
        &fake,
        &dir,
        "42",
        &[("GITLAB_ACCESS_TOKEN", TOKEN), ("CI_JOB_TOKEN", JOB_TOKEN)],
    );
    let requests = fake.requests();
    assert!(!requests.is_empty());
    let bearer = format!("Bearer {TOKEN}");
    assert!(
        requests
            .iter()
            .all(|r| r.header("authorization") == Some(bearer.as_str())
                && r.header("job-token").is_none()
                && r.header("private-token").is_none())
    );
}
