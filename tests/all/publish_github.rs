//! `capkg publish github` against a fake GitHub (API, upload and storage hosts on 127.0.0.1):
//! the draft-first flow, idempotent re-runs, every failure the issue lists, and the token
//! never leaking.

use std::path::Path;
use std::process::Output;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::publish_fakes::github::{FakeGitHub, FaultAction, TOKEN};
use crate::publish_fakes::server::Reply;
use crate::publish_fakes::{METADATA, capkg, release_dir, sha256};
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

    fn outcomes(&self) -> Vec<(String, String)> {
        self.json()["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["name"].as_str().unwrap().to_string(),
                    f["outcome"]
                        .as_str()
                        .or(f["action"].as_str())
                        .unwrap()
                        .to_string(),
                )
            })
            .collect()
    }
}

fn finish(output: Output) -> Run {
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `capkg --format json publish github DIR --version VERSION --repo o/r --api-url FAKE ARGS…`
fn publish_version(fake: &FakeGitHub, dir: &Path, version: &str, args: &[&str]) -> Run {
    let output = capkg()
        .args(["--format", "json", "publish", "github"])
        .arg(dir)
        .args([
            "--version",
            version,
            "--repo",
            "o/r",
            "--api-url",
            &fake.api,
        ])
        .args(args)
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    finish(output)
}

fn publish(fake: &FakeGitHub, dir: &Path, args: &[&str]) -> Run {
    publish_version(fake, dir, "v1.2.3", args)
}

fn assert_ok(run: &Run) {
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
}

/// Every asset of the tag exactly once, complete, with the release folder's content.
fn assert_complete(fake: &FakeGitHub, dir: &Path) {
    let releases = fake.release("v1.2.3");
    assert_eq!(releases.len(), 1, "one release for the tag");
    let release = &releases[0];
    let mut names: Vec<&str> = release.assets.iter().map(|a| a.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "checksums.txt",
            "cluster-template.yaml",
            "infrastructure-components.yaml",
            "metadata.yaml"
        ],
        "no duplicate, partial or temporary asset"
    );
    for asset in &release.assets {
        assert_eq!(asset.state, "uploaded", "{}", asset.name);
        let expected = std::fs::read(dir.join(&asset.name)).unwrap();
        assert_eq!(asset.content, expected, "{}", asset.name);
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

#[test]
fn fresh_publish_creates_a_draft_uploads_reads_back_then_publishes() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_complete(&fake, &dir);
    let release = &fake.release("v1.2.3")[0];
    assert!(!release.draft && !release.prerelease);
    assert_eq!(release.make_latest.as_deref(), Some("legacy"));

    let json = run.json();
    assert_eq!(json["target"], "github");
    assert_eq!(json["dry_run"], false);
    assert_eq!(json["verified"], true);
    assert_eq!(json["provider_label"], "infrastructure-azure");
    assert_eq!(
        json["clusterctl_url"],
        "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml"
    );
    assert_eq!(json["release"]["draft"], false);
    assert!(
        json["clusterctl_config"]
            .as_str()
            .unwrap()
            .contains("type: \"InfrastructureProvider\"")
    );
    for file in json["files"].as_array().unwrap() {
        assert_eq!(file["outcome"], "uploaded");
        let name = file["name"].as_str().unwrap();
        assert_eq!(
            file["sha256"],
            sha256(&std::fs::read(dir.join(name)).unwrap())
        );
        assert!(
            file["url"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/releases/download/v1.2.3/{name}"))
        );
    }

    // Draft first, uploads one by one (metadata.yaml last), publish last.
    let mutations = fake.mutations();
    let release_id = release.id;
    assert_eq!(mutations.first().unwrap(), "POST /repos/o/r/releases");
    assert_eq!(
        mutations.last().unwrap(),
        &format!("PATCH /repos/o/r/releases/{release_id}")
    );
    let uploads: Vec<_> = fake
        .requests()
        .into_iter()
        .filter(|r| r.server == "uploads")
        .map(|r| r.query_param("name").unwrap())
        .collect();
    assert_eq!(
        uploads,
        [
            "cluster-template.yaml",
            "infrastructure-components.yaml",
            "checksums.txt",
            "metadata.yaml"
        ]
    );

    // Headers GitHub requires; the storage host never sees the token.
    for request in fake.requests() {
        if request.server == "objects" {
            assert_eq!(request.header("authorization"), None, "{}", request.path);
            continue;
        }
        assert_eq!(
            request.header("authorization"),
            Some(format!("Bearer {TOKEN}").as_str())
        );
        assert!(request.header("user-agent").unwrap().starts_with("capkg/"));
        if request.server == "api" || request.server == "uploads" {
            assert_eq!(request.header("x-github-api-version"), Some("2022-11-28"));
        }
    }
    // list + create + 4 uploads + 4 read-backs (API, then storage) + publish.
    assert_eq!(fake.requests().len(), 1 + 1 + 4 + 4 * 2 + 1);
}

#[test]
fn rerun_of_a_complete_publish_makes_no_upload() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    assert_ok(&publish(&fake, &dir, &[]));
    let before = fake.requests().len();
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    let after: Vec<_> = fake.requests().into_iter().skip(before).collect();
    assert_eq!(after.len(), 1, "only the release list: {after:?}");
    assert!(after[0].is("GET", "/repos/o/r/releases"));
    assert!(
        run.outcomes()
            .iter()
            .all(|(_, outcome)| outcome == "skipped")
    );
    assert_complete(&fake, &dir);
}

#[test]
fn a_draft_found_only_by_listing_is_reused() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.add_release("v1.2.3", true, &[("metadata.yaml", METADATA.as_bytes())]);
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_eq!(
        fake.count_exact("POST", "/repos/o/r/releases"),
        0,
        "no second release"
    );
    assert_eq!(fake.count("GET", "/releases/tags/"), 0);
    assert_complete(&fake, &dir);
    assert!(!fake.release("v1.2.3")[0].draft);
    let outcomes = run.outcomes();
    assert!(outcomes.contains(&("metadata.yaml".into(), "skipped".into())));
    assert!(outcomes.contains(&("cluster-template.yaml".into(), "uploaded".into())));
}

#[test]
fn several_drafts_for_one_tag_is_an_error_and_nothing_changes() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.add_release("v1.2.3", true, &[]);
    fake.add_release("v1.2.3", true, &[]);
    let run = publish(&fake, &dir, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("2 draft releases have the tag `v1.2.3`"),
        "{}",
        run.stderr
    );
    assert!(fake.mutations().is_empty());
}

#[test]
fn a_different_asset_is_refused_without_clobber_before_any_change() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.add_release("v1.2.3", false, &[("metadata.yaml", b"something else")]);
    let run = publish(&fake, &dir, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("`metadata.yaml` is already at"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--clobber"), "{}", run.stderr);
    assert!(fake.mutations().is_empty());
}

#[test]
fn clobber_replaces_an_asset_without_uploading_while_it_is_missing() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    let files: Vec<(String, Vec<u8>)> = [
        "checksums.txt",
        "cluster-template.yaml",
        "infrastructure-components.yaml",
    ]
    .iter()
    .map(|n| (n.to_string(), std::fs::read(dir.join(n)).unwrap()))
    .collect();
    let mut assets: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_slice()))
        .collect();
    assets.push(("metadata.yaml", b"old metadata"));
    fake.add_release("v1.2.3", false, &assets);

    let run = publish(&fake, &dir, &["--clobber"]);
    assert_ok(&run);
    assert_complete(&fake, &dir);
    let outcomes = run.outcomes();
    assert!(outcomes.contains(&("metadata.yaml".into(), "replaced".into())));
    assert_eq!(outcomes.iter().filter(|(_, o)| o == "skipped").count(), 3);

    // While `metadata.yaml` is missing, only the one rename that brings it back happens.
    let snapshots = fake.state().snapshots.clone();
    let missing: Vec<&String> = snapshots
        .iter()
        .filter(|(_, names)| !names.contains("metadata.yaml"))
        .map(|(request, _)| request)
        .collect();
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(
        missing[0].starts_with("PATCH /repos/o/r/releases/assets/"),
        "{missing:?}"
    );
    let after_missing = snapshots
        .iter()
        .skip_while(|(_, names)| names.contains("metadata.yaml"))
        .nth(1)
        .unwrap();
    assert!(
        after_missing
            .0
            .starts_with("PATCH /repos/o/r/releases/assets/")
    );
    assert!(after_missing.1.contains("metadata.yaml"));
}

#[test]
fn an_upload_answered_422_already_exists_is_resolved_by_digest() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    // The upload lands, but the answer is GitHub's `already_exists` ("successfully fails").
    fake.fault(
        "POST",
        "/assets",
        FaultAction::StoreThenReply(Reply::json(
            422,
            json!({"message": "Validation Failed", "errors": [{"resource": "ReleaseAsset", "code": "already_exists", "field": "name"}]}),
        )),
        1,
    );
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_complete(&fake, &dir);
    assert_eq!(
        fake.count("POST", "/assets"),
        4,
        "no second upload of the same file"
    );
}

#[test]
fn bad_gateway_once_then_success() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.fault(
        "GET",
        "/repos/o/r/releases",
        FaultAction::Reply(Reply::json(502, json!({"message": "Server Error"}))),
        1,
    );
    // GitHub: "a 502 may leave an empty asset with a state of starter".
    fake.fault(
        "POST",
        "/assets",
        FaultAction::StarterThenReply(Reply::json(502, json!({"message": "Server Error"}))),
        1,
    );
    let run = publish(&fake, &dir, &["--format", "human"]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("502"), "{}", run.stderr);
    assert_complete(&fake, &dir);
    assert_eq!(
        fake.count("DELETE", "/releases/assets/"),
        1,
        "the starter asset is removed"
    );
}

#[test]
fn a_502_on_create_makes_exactly_one_release() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    // Created, but the answer is lost: capkg finds the draft instead of creating another.
    fake.fault(
        "POST",
        "/repos/o/r/releases",
        FaultAction::StoreThenReply(Reply::json(502, json!({"message": "Server Error"}))),
        1,
    );
    assert_ok(&publish(&fake, &dir, &[]));
    assert_complete(&fake, &dir);
    assert_eq!(fake.count_exact("POST", "/repos/o/r/releases"), 1);

    let fake = FakeGitHub::start();
    // Not created: capkg creates it after a backoff.
    fake.fault(
        "POST",
        "/repos/o/r/releases",
        FaultAction::Reply(Reply::json(502, json!({"message": "Server Error"}))),
        1,
    );
    assert_ok(&publish(&fake, &dir, &[]));
    assert_complete(&fake, &dir);
    assert_eq!(fake.count_exact("POST", "/repos/o/r/releases"), 2);
}

#[test]
fn a_connection_cut_mid_upload_is_repaired_without_duplicates() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.fault("POST", "/assets", FaultAction::Cut(40), 1);
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_complete(&fake, &dir);
}

#[test]
fn unauthorized_401_is_a_clear_error_and_changes_nothing() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["publish", "github"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--repo",
            "o/r",
            "--api-url",
            &fake.api,
        ])
        .env("GH_TOKEN", "ghp_wrong")
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("GitHub rejected the token (Bad credentials)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("GITHUB_TOKEN or GH_TOKEN"),
        "{}",
        run.stderr
    );
    assert!(fake.mutations().is_empty());
}

#[test]
fn a_missing_repository_404_names_the_flag() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["publish", "github"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--repo",
            "o/missing",
            "--api-url",
            &fake.api,
        ])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("`o/missing`"), "{}", run.stderr);
    assert!(run.stderr.contains("--repo"), "{}", run.stderr);
    assert!(fake.mutations().is_empty());
}

#[test]
fn a_bare_403_is_a_permission_error_naming_the_permission() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.fault(
        "POST",
        "/repos/o/r/releases",
        FaultAction::Reply(
            Reply::json(
                403,
                json!({"message": "Resource not accessible by integration"}),
            )
            .header("x-accepted-github-permissions", "contents=write"),
        ),
        1,
    );
    let run = publish(&fake, &dir, &["--format", "human"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("GitHub refused to create the draft release `v1.2.3`"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("`contents=write`"), "{}", run.stderr);
    assert!(
        run.stderr.contains("permissions: contents: write"),
        "{}",
        run.stderr
    );
    assert_eq!(
        fake.count_exact("POST", "/repos/o/r/releases"),
        1,
        "not retried"
    );
    assert!(fake.release("v1.2.3").is_empty());
}

#[test]
fn a_403_with_rate_limit_headers_waits_for_the_reset_and_completes() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.fault(
        "GET",
        "/repos/o/r/releases",
        FaultAction::Reply(
            Reply::json(403, json!({"message": "API rate limit exceeded"}))
                .header("x-ratelimit-remaining", "0")
                .header("x-ratelimit-reset", &now().to_string()),
        ),
        1,
    );
    let run = publish(&fake, &dir, &["--format", "human"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("rate limited"), "{}", run.stderr);
    assert_complete(&fake, &dir);
}

#[test]
fn a_secondary_rate_limit_on_upload_honours_retry_after() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.fault(
        "POST",
        "/assets",
        FaultAction::Reply(
            Reply::json(403, json!({"message": "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."}))
                .header("retry-after", "1"),
        ),
        1,
    );
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_complete(&fake, &dir);
    assert_eq!(fake.count("POST", "/assets"), 5);
}

#[test]
fn too_many_requests_429_honours_retry_after() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.fault(
        "POST",
        "/repos/o/r/releases",
        FaultAction::Reply(
            Reply::json(429, json!({"message": "Too Many Requests"})).header("retry-after", "1"),
        ),
        1,
    );
    let run = publish(&fake, &dir, &["--format", "human"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("waiting 1s"), "{}", run.stderr);
    assert_eq!(fake.release("v1.2.3").len(), 1, "one release, not two");
    assert_complete(&fake, &dir);
}

#[test]
fn a_rate_limit_longer_than_max_wait_fails_at_once_and_changes_nothing() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.fault(
        "GET",
        "/repos/o/r/releases",
        FaultAction::Reply(
            Reply::json(429, json!({"message": "Too Many Requests"})).header("retry-after", "3600"),
        ),
        1,
    );
    let run = publish(&fake, &dir, &["--format", "human", "--max-wait", "5m"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("asks to wait 1h 0m"), "{}", run.stderr);
    assert!(run.stderr.contains("--max-wait"), "{}", run.stderr);
    assert!(fake.mutations().is_empty());
}

#[test]
fn the_token_never_appears_in_the_output_of_a_failing_publish() {
    const SECRET: &str = "ghp_SECRETVALUE_0042";
    let fake = FakeGitHub::start();
    fake.state().echo_token = true;
    let (_root, dir) = release_dir();
    let mut everything = String::new();
    for format in ["human", "json", "github"] {
        for extra in [&[][..], &["-vv"][..], &["--dry-run"][..]] {
            let output = capkg()
                .args(["--format", format, "publish", "github"])
                .arg(&dir)
                .args([
                    "--version",
                    "v1.2.3",
                    "--repo",
                    "o/r",
                    "--api-url",
                    &fake.api,
                ])
                .args(extra)
                .env("GITHUB_TOKEN", SECRET)
                .output()
                .unwrap();
            let run = finish(output);
            assert_eq!(run.code, 1, "{}", run.stderr);
            everything.push_str(&run.stdout);
            everything.push_str(&run.stderr);
        }
    }
    // The server did echo it back…
    assert!(
        fake.requests()
            .iter()
            .any(|r| r.header("authorization") == Some(format!("Bearer {SECRET}").as_str()))
    );
    // …and capkg redacted it.
    assert!(everything.contains("[redacted]"), "{everything}");
    assert!(!everything.contains(SECRET), "{everything}");
    assert!(!everything.contains("SECRETVALUE"), "{everything}");
}

#[test]
fn plain_http_is_refused_except_for_loopback() {
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["publish", "github"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--repo",
            "o/r",
            "--api-url",
            "http://github.example.com/api/v3",
        ])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("plain http"), "{}", run.stderr);
}

#[test]
fn dry_run_prints_the_plan_and_touches_nothing() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.add_release("v1.2.3", true, &[("metadata.yaml", METADATA.as_bytes())]);
    let run = publish(&fake, &dir, &["--dry-run"]);
    assert_ok(&run);
    let json = run.json();
    assert_eq!(json["dry_run"], true);
    assert!(
        json["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "publish the release")
    );
    assert_eq!(
        run.outcomes(),
        [
            ("cluster-template.yaml".to_string(), "upload".to_string()),
            ("infrastructure-components.yaml".into(), "upload".into()),
            ("checksums.txt".into(), "upload".into()),
            ("metadata.yaml".into(), "skip".into()),
        ]
    );
    assert!(fake.mutations().is_empty());

    let human = capkg()
        .args(["publish", "github"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--repo",
            "o/r",
            "--api-url",
            &fake.api,
            "--dry-run",
        ])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let human = finish(human);
    assert_ok(&human);
    assert!(
        human.stdout.contains("skip     metadata.yaml"),
        "{}",
        human.stdout
    );
    assert!(
        human.stdout.contains("Dry run: nothing was changed."),
        "{}",
        human.stdout
    );
    assert!(fake.mutations().is_empty());
}

#[test]
fn semver_prereleases_are_published_as_prereleases() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    let run = publish_version(&fake, &dir, "v1.3.0-rc.1", &[]);
    assert_ok(&run);
    let release = &fake.release("v1.3.0-rc.1")[0];
    assert!(release.prerelease && !release.draft);
    assert_eq!(release.make_latest, None);
}

#[test]
fn the_draft_flag_leaves_the_release_a_draft() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    let run = publish(&fake, &dir, &["--draft"]);
    assert_ok(&run);
    assert!(fake.release("v1.2.3")[0].draft);
    assert_eq!(fake.count("PATCH", "/releases/"), 0);
    assert_eq!(run.json()["release"]["draft"], true);
}

#[test]
fn a_read_back_mismatch_leaves_the_draft_unpublished() {
    let fake = FakeGitHub::start();
    fake.state().corrupt_downloads = true;
    let (_root, dir) = release_dir();
    let run = publish(&fake, &dir, &[]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("read-back of"), "{}", run.stderr);
    assert!(fake.release("v1.2.3")[0].draft, "never published");
    assert_eq!(fake.count("PATCH", "/releases/"), 0);
}

#[test]
fn without_digests_existing_assets_are_compared_by_download() {
    let fake = FakeGitHub::start();
    fake.state().digests = false;
    let (_root, dir) = release_dir();
    assert_ok(&publish(&fake, &dir, &[]));
    let before = fake.requests().len();
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    let after: Vec<_> = fake.requests().into_iter().skip(before).collect();
    assert!(after.iter().all(|r| r.method == "GET"), "{after:?}");
    assert_eq!(after.iter().filter(|r| r.server == "objects").count(), 4);
}

#[test]
fn a_missing_token_is_reported_before_any_request() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["publish", "github"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--repo",
            "o/r",
            "--api-url",
            &fake.api,
        ])
        .output()
        .unwrap();
    let run = finish(output);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr
            .contains("no GitHub token: set GITHUB_TOKEN or GH_TOKEN"),
        "{}",
        run.stderr
    );
    assert!(fake.requests().is_empty());
}

#[test]
fn an_immutable_published_release_is_not_changed() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.add_release("v1.2.3", false, &[]);
    fake.state().releases[0].immutable = true;
    let run = publish(&fake, &dir, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stderr.contains("immutable"), "{}", run.stderr);
    assert!(fake.mutations().is_empty());
}

#[test]
fn leftovers_of_an_interrupted_replace_are_deleted() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    fake.add_release(
        "v1.2.3",
        true,
        &[
            ("capkg-tmp-1a2b-metadata.yaml", METADATA.as_bytes()),
            ("capkg-old-1a2b-metadata.yaml", b"old"),
        ],
    );
    let run = publish(&fake, &dir, &[]);
    assert_ok(&run);
    assert_complete(&fake, &dir);
}

#[test]
fn the_api_url_and_token_come_from_the_environment_and_pages_are_followed() {
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    for i in 0..120 {
        fake.add_release(&format!("v0.{i}.0"), false, &[]);
    }
    let output = capkg()
        .args(["--format", "json", "publish", "github"])
        .arg(&dir)
        .args(["--version", "v0.0.0", "--repo", "o/r"])
        .env("GITHUB_API_URL", &fake.api)
        .env("GH_TOKEN", TOKEN)
        .output()
        .unwrap();
    let run = finish(output);
    assert_ok(&run);
    // Newest first: v0.0.0 is on the second page of 100.
    assert_eq!(
        fake.count_exact("GET", "/repos/o/r/releases"),
        2,
        "two pages listed"
    );
    assert_eq!(
        fake.count_exact("POST", "/repos/o/r/releases"),
        0,
        "the existing release is used"
    );
    assert_eq!(fake.release("v0.0.0")[0].assets.len(), 4);
    let warnings = run.json()["warnings"].to_string();
    assert!(warnings.contains("already published"), "{warnings}");
}
