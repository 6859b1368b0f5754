//! `capkg publish gitlab` against a fake GitLab generic package registry on 127.0.0.1.

use std::path::Path;
use std::process::Output;

use crate::publish_fakes::gitlab::{FakeGitLab, FaultAction, JOB_TOKEN, PROJECT_ID, TOKEN};
use crate::publish_fakes::server::Reply;
use crate::publish_fakes::{METADATA, capkg, release_dir};
use serde_json::{Value, json};

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\n{}",
                self.stdout, self.stderr
            )
        })
    }

    fn outcome_of(&self, name: &str) -> String {
        self.json()["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .map(|f| {
                f["outcome"]
                    .as_str()
                    .or(f["action"].as_str())
                    .unwrap()
                    .to_string()
            })
            .unwrap()
    }
}

fn finish(output: Output) -> Run {
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn publish(fake: &FakeGitLab, dir: &Path, args: &[&str]) -> Run {
    let output = capkg()
        .args(["--format", "json", "publish", "gitlab"])
        .arg(dir)
        .args([
            "--version",
            "v1.2.3",
            "--project",
            PROJECT_ID,
            "--api-url",
            &fake.api,
        ])
        .args(args)
        .env("GITLAB_TOKEN", TOKEN)
        .output()
        .unwrap();
    finish(output)
}

fn assert_ok(run: &Run) {
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
}

/// Each file once, with the folder's content, under `package/v1.2.3/`.
fn assert_complete(fake: &FakeGitLab, dir: &Path, package: &str) {
    let files = fake.state().files.clone();
    let mut names: Vec<String> = files.keys().cloned().collect();
    names.sort();
    let expected: Vec<String> = [
        "checksums.txt",
        "cluster-template.yaml",
        "infrastructure-components.yaml",
        "metadata.yaml",
    ]
    .iter()
    .map(|n| format!("{package}/v1.2.3/{n}"))
    .collect();
    assert_eq!(names, expected);
    for (key, uploads) in &files {
        let name = key.rsplit('/').next().unwrap();
        assert_eq!(uploads.len(), 1, "no duplicate of {key}");
        assert_eq!(uploads[0], std::fs::read(dir.join(name)).unwrap(), "{key}");
    }
}

#[test]
fn fresh_publish_puts_each_file_once_and_reads_it_back() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_complete(&fake, &dir, "infrastructure-azure");
    let json = run.json();
    assert_eq!(json["target"], "gitlab");
    assert_eq!(json["verified"], true);
    assert_eq!(
        json["clusterctl_url"],
        format!(
            "{}/projects/42/packages/generic/infrastructure-azure/v1.2.3/infrastructure-components.yaml",
            fake.api
        )
    );
    let warnings = json["warnings"].to_string();
    assert!(warnings.contains("starting with `gitlab.`"), "{warnings}");
    // clusterctl's own words for the URL it refuses.
    assert!(
        warnings.contains("invalid provider url. Only GitHub and GitLab are supported"),
        "{warnings}"
    );
    assert!(warnings.contains("cannot list the versions"), "{warnings}");

    let puts: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.method == "PUT")
        .collect();
    assert_eq!(puts.len(), 4);
    assert!(
        puts.last().unwrap().path.ends_with("/metadata.yaml"),
        "metadata.yaml last"
    );
    for request in fake.requests() {
        assert_eq!(request.header("private-token"), Some(TOKEN));
        assert_eq!(request.header("authorization"), None);
        assert!(request.header("user-agent").unwrap().starts_with("capkg/"));
        assert!(
            request
                .path
                .contains("/packages/generic/infrastructure-azure/v1.2.3/"),
            "the `v` is kept"
        );
    }
    // 4 existence checks + 4 uploads + 4 read-backs.
    assert_eq!(fake.requests().len(), 12);
}

#[test]
fn rerun_of_a_complete_publish_makes_no_upload() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    assert_ok(&publish(&fake, &dir, &[]));
    let before = fake.requests().len();
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    let after: Vec<_> = fake.requests().into_iter().skip(before).collect();
    assert!(after.iter().all(|r| r.method == "GET"), "{after:?}");
    assert_eq!(after.len(), 4);
    assert_eq!(run.outcome_of("metadata.yaml"), "skipped");
    assert_complete(&fake, &dir, "infrastructure-azure");
}

#[test]
fn ci_variables_give_api_project_and_job_token() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["--format", "json", "publish", "gitlab"])
        .arg(&dir)
        .args(["--version", "v1.2.3", "--package", "capz"])
        .env("CI_API_V4_URL", &fake.api)
        .env("CI_PROJECT_ID", PROJECT_ID)
        .env("CI_JOB_TOKEN", JOB_TOKEN)
        .output()
        .unwrap();
    let run = finish(output);
    assert_ok(&run);
    assert_complete(&fake, &dir, "capz");
    assert!(
        fake.requests().iter().all(
            |r| r.header("job-token") == Some(JOB_TOKEN) && r.header("private-token").is_none()
        )
    );
}

/// A job token belongs to its pipeline's GitLab: a target on another instance gets no request
/// carrying it, and the refusal names the token to set instead.
#[test]
fn a_job_token_is_not_sent_to_a_target_on_another_gitlab() {
    let pipeline = FakeGitLab::start();
    let other = FakeGitLab::start();
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["--format", "json", "publish", "gitlab"])
        .arg(&dir)
        .args(["--version", "v1.2.3", "--package", "capz"])
        .args(["--api-url", &other.api, "--project", PROJECT_ID])
        .env("CI_API_V4_URL", &pipeline.api)
        .env("CI_JOB_TOKEN", JOB_TOKEN)
        .output()
        .unwrap();
    let run = finish(output);
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert!(other.requests().is_empty(), "{:?}", other.requests());
    assert!(pipeline.requests().is_empty());
    let text = format!("{}{}", run.stdout, run.stderr);
    assert!(text.contains("CI_JOB_TOKEN is not sent to"), "{text}");
    assert!(text.contains("GITLAB_TOKEN"), "{text}");
    assert!(!text.contains(JOB_TOKEN), "{text}");
}

#[test]
fn a_project_path_is_escaped_in_the_url() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["--format", "json", "publish", "gitlab"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--project",
            "group/sub/provider",
            "--api-url",
            &fake.api,
        ])
        .env("GITLAB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let run = finish(output);
    assert_ok(&run);
    assert!(
        run.json()["clusterctl_url"]
            .as_str()
            .unwrap()
            .contains("/projects/group%2Fsub%2Fprovider/packages/generic/")
    );
}

#[test]
fn a_different_file_is_refused_without_clobber_before_any_upload() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    fake.put_file("infrastructure-azure", "v1.2.3", "metadata.yaml", b"other");
    let run = publish(&fake, &dir, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("--clobber"), "{}", run.stderr);
    assert_eq!(fake.count("PUT"), 0);
}

#[test]
fn a_rejected_duplicate_400_is_explained_and_nothing_else_is_uploaded() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    fake.put_file("infrastructure-azure", "v1.2.3", "metadata.yaml", b"other");
    fake.state().duplicates_allowed = false;
    let run = publish(&fake, &dir, &["--clobber", "--format", "human"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("duplicate files are not allowed"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("Duplicate package is not allowed"),
        "{}",
        run.stderr
    );
    // The replacement went first, so the refusal came before any new file.
    assert_eq!(fake.count("PUT"), 1);
    assert_eq!(fake.state().files.len(), 1);
}

#[test]
fn clobber_uploads_the_new_file_which_gitlab_then_serves() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    fake.put_file("infrastructure-azure", "v1.2.3", "metadata.yaml", b"other");
    let run = publish(&fake, &dir, &["--clobber"]);
    assert_ok(&run);
    assert_eq!(run.outcome_of("metadata.yaml"), "replaced");
    let uploads = fake.state().files["infrastructure-azure/v1.2.3/metadata.yaml"].clone();
    assert_eq!(uploads.last().unwrap(), METADATA.as_bytes());
}

#[test]
fn unauthorized_401_forbidden_403_and_not_found_404_are_clear_errors() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["publish", "gitlab"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--project",
            PROJECT_ID,
            "--api-url",
            &fake.api,
        ])
        .env("GITLAB_TOKEN", "glpat-wrong")
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("GitLab rejected the token"),
        "{}",
        run.stderr
    );

    fake.fault(
        "PUT",
        "/packages/generic/",
        FaultAction::Reply(Reply::json(403, json!({"message": "403 Forbidden"}))),
        1,
    );
    let run = publish(&fake, &dir, &["--format", "human"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("`api` scope"), "{}", run.stderr);
    assert_eq!(fake.count("PUT"), 1, "not retried");

    let output = capkg()
        .args(["publish", "gitlab"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--project",
            "999",
            "--api-url",
            &fake.api,
        ])
        .env("GITLAB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("project `999`"), "{}", run.stderr);
    assert!(run.stderr.contains("--project"), "{}", run.stderr);
    assert_eq!(fake.count("PUT"), 1, "nothing more was uploaded");
}

#[test]
fn too_many_requests_and_bad_gateway_are_retried() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    fake.fault(
        "PUT",
        "/packages/generic/",
        FaultAction::Reply(
            Reply::json(429, json!({"message": "Retry later"})).header("retry-after", "1"),
        ),
        1,
    );
    fake.fault(
        "GET",
        "/packages/generic/",
        FaultAction::Reply(Reply::json(502, json!({"message": "Bad Gateway"}))),
        1,
    );
    // A 502 after storing: capkg must find the file instead of uploading it twice.
    fake.fault(
        "PUT",
        "/metadata.yaml",
        FaultAction::StoreThenReply(Reply::json(502, json!({"message": "Bad Gateway"}))),
        1,
    );
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_complete(&fake, &dir, "infrastructure-azure");
}

#[test]
fn a_connection_cut_mid_upload_is_uploaded_again_once() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    fake.fault(
        "PUT",
        "/infrastructure-components.yaml",
        FaultAction::Cut(50),
        1,
    );
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_complete(&fake, &dir, "infrastructure-azure");
}

#[test]
fn the_token_never_appears_in_the_output_of_a_failing_publish() {
    const SECRET: &str = "glpat-SECRETVALUE-77";
    let fake = FakeGitLab::start();
    fake.fault(
        "GET",
        "/packages/generic/",
        FaultAction::Reply(Reply::json(
            400,
            json!({"message": format!("bad header PRIVATE-TOKEN: {SECRET}")}),
        )),
        100,
    );
    let (_root, dir) = release_dir();
    let mut everything = String::new();
    for format in ["human", "json"] {
        let output = capkg()
            .args(["--format", format, "-v", "publish", "gitlab"])
            .arg(&dir)
            .args([
                "--version",
                "v1.2.3",
                "--project",
                PROJECT_ID,
                "--api-url",
                &fake.api,
            ])
            .env("GITLAB_TOKEN", SECRET)
            .output()
            .unwrap();
        let run = finish(output);
        assert_eq!(run.code, 1, "{}", run.stderr);
        everything.push_str(&run.stdout);
        everything.push_str(&run.stderr);
    }
    assert!(everything.contains("[redacted]"), "{everything}");
    assert!(!everything.contains("SECRETVALUE"), "{everything}");
}

#[test]
fn settings_missing_from_flags_and_environment_are_named() {
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["publish", "gitlab"])
        .arg(&dir)
        .args(["--version", "v1.2.3", "--project", "1"])
        .env("GITLAB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("CI_API_V4_URL"), "{}", run.stderr);
}
