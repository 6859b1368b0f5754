//! Two-phase releases: `capkg release --draft` publishes where nobody installs from yet, `capkg
//! promote` checks the draft against its `checksums.txt`, makes it public and verifies it. End to
//! end on a local repository, the GitHub and GitLab fakes and (in `oci_e2e`) the real registry:
//! a tampered draft is refused by name, a promote that fails midway finishes on a re-run, and a
//! promote after success changes nothing.

use std::path::Path;

use serde_json::Value;

use crate::publish_fakes::github::{self, FakeGitHub, FaultAction};
use crate::publish_fakes::gitlab::{self, FakeGitLab, PROJECT_ID};
use crate::publish_fakes::server::Reply;
use crate::publish_fakes::{METADATA, capkg};
use crate::release_common::{Actions, Provider, clean_capkg, json, release, stderr, stdout};

const FILES: [&str; 5] = [
    "capkg-provenance.intoto.json",
    "checksums.txt",
    "cluster-template.yaml",
    "infrastructure-components.yaml",
    "metadata.yaml",
];

/// `capkg promote --config` for the provider, run in its folder.
fn promote(provider: &Provider) -> std::process::Command {
    let mut command = clean_capkg();
    command
        .args(["promote", "--config"])
        .arg(provider.config())
        .current_dir(provider.root());
    command
}

/// The files of a folder by name, with their bytes.
fn folder(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn ok(output: &std::process::Output) -> Value {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}\n{}",
        stdout(output),
        stderr(output)
    );
    json(output)
}

#[test]
fn local_draft_is_invisible_to_clusterctl_until_promoted_and_a_rerun_changes_nothing() {
    let provider = Provider::new("  local:\n    repository: repo\n", METADATA);
    let repo = provider.root().join("repo");

    // The dry run shows the draft phase and no verification.
    let dry = release(&provider)
        .args([
            "--version",
            "v1.2.3",
            "--draft",
            "--dry-run",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let dry = ok(&dry);
    let phases: Vec<&str> = dry["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases.last(), Some(&"draft"), "{phases:?}");
    assert!(!phases.contains(&"verify"), "{phases:?}");
    assert!(!repo.exists(), "a dry run writes nothing");

    let actions = Actions::new();
    let mut drafting = release(&provider);
    drafting.args(["--draft", "--format", "json"]);
    actions.apply(&mut drafting, "v1.2.3");
    let drafted = ok(&drafting.output().unwrap());
    assert_eq!(drafted["status"], "drafted");
    assert_eq!(drafted["mode"], "draft");
    assert_eq!(drafted["targets"][0]["state"], "drafted");
    assert!(drafted["targets"][0]["verify"].is_null());
    assert_eq!(actions.output_value("status").as_deref(), Some("drafted"));
    let draft = repo.join("draft-v1.2.3");
    let names: Vec<String> = folder(&draft).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, FILES);
    // clusterctl looks up `{label}/{version}`: nothing is there yet.
    assert!(!repo.join("infrastructure-azure").exists());

    let mut promoting = promote(&provider);
    promoting.args(["--format", "json"]);
    actions.apply(&mut promoting, "v1.2.3");
    let promoted = ok(&promoting.output().unwrap());
    assert_eq!(promoted["status"], "promoted");
    assert_eq!(promoted["mode"], "promote");
    assert_eq!(promoted["schema_version"], 1);
    assert_eq!(promoted["targets"][0]["state"], "published");
    assert_eq!(promoted["targets"][0]["verify"]["ok"], true);
    let version_dir = repo.join("infrastructure-azure/v1.2.3");
    assert_eq!(folder(&version_dir), folder(&draft));
    assert_eq!(actions.output_value("status").as_deref(), Some("promoted"));
    let summary = std::fs::read_to_string(actions.summary()).unwrap();
    assert!(
        summary.contains("## ✅ capkg promote v1.2.3: promoted"),
        "{summary}"
    );
    let url = promoted["targets"][0]["clusterctl_url"].as_str().unwrap();
    let verified = capkg().args(["verify", url]).output().unwrap();
    assert_eq!(verified.status.code(), Some(0), "{}", stderr(&verified));

    let again = promote(&provider)
        .args(["--version", "v1.2.3"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("Already promoted: nothing changed."),
        "{}",
        stdout(&again)
    );
}

#[test]
fn a_draft_changed_after_it_was_made_is_refused_by_name_and_nothing_is_public() {
    let provider = Provider::new("  local:\n    repository: repo\n", METADATA);
    let drafted = release(&provider)
        .args(["--version", "v1.2.3", "--draft"])
        .output()
        .unwrap();
    assert_eq!(drafted.status.code(), Some(0), "{}", stderr(&drafted));
    let template = provider
        .root()
        .join("repo/draft-v1.2.3/cluster-template.yaml");
    let mut text = std::fs::read_to_string(&template).unwrap();
    text.push_str("# edited by hand\n");
    std::fs::write(&template, text).unwrap();

    let refused = promote(&provider)
        .args(["--version", "v1.2.3", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let outcome = json(&refused);
    assert_eq!(outcome["status"], "refused");
    let message = outcome["error"]["message"].as_str().unwrap();
    assert!(
        message
            .contains("changed since `capkg release --draft`: `cluster-template.yaml` has SHA-256"),
        "{message}"
    );
    assert!(!provider.root().join("repo/infrastructure-azure").exists());
}

#[test]
fn promote_without_a_draft_says_how_to_make_one() {
    let provider = Provider::new("  local:\n    repository: repo\n", METADATA);
    let refused = promote(&provider)
        .args(["--version", "v1.2.3"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains(
            "no draft of v1.2.3 at any target (local): `capkg release --draft` makes one"
        ),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn github_draft_release_is_published_by_promote_and_a_failure_midway_finishes_on_a_rerun() {
    let fake = FakeGitHub::start();
    let provider = Provider::new(
        "  local:\n    repository: repo\n  github:\n    repo: o/r\n",
        METADATA,
    );
    let with_fake = |mut command: std::process::Command| {
        command
            .args(["--version", "v1.2.3", "--format", "json"])
            .env("GITHUB_API_URL", &fake.api)
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap()
    };
    let mut drafting = release(&provider);
    drafting.arg("--draft");
    let drafted = ok(&with_fake(drafting));
    assert_eq!(drafted["status"], "drafted");
    let releases = fake.release("v1.2.3");
    assert_eq!(releases.len(), 1);
    assert!(releases[0].draft, "the release stays a draft");
    let mut names: Vec<&str> = releases[0].assets.iter().map(|a| a.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, FILES);
    assert_eq!(fake.count("PATCH", "/releases/"), 0);

    // Making the GitHub release public fails once, after the local repository is promoted.
    fake.fault(
        "PATCH",
        "/releases/",
        FaultAction::Reply(Reply::json(
            403,
            serde_json::json!({"message": "Resource not accessible by integration"}),
        )),
        1,
    );
    let stopped = with_fake(promote(&provider));
    assert_eq!(stopped.status.code(), Some(1), "{}", stderr(&stopped));
    let outcome = json(&stopped);
    assert_eq!(outcome["status"], "incomplete");
    assert_eq!(outcome["targets"][0]["state"], "published");
    assert_eq!(outcome["targets"][1]["failed_step"], "publish");
    assert!(fake.release("v1.2.3")[0].draft);
    assert!(
        provider
            .root()
            .join("repo/infrastructure-azure/v1.2.3")
            .is_dir()
    );

    let finished = ok(&with_fake(promote(&provider)));
    assert_eq!(finished["status"], "promoted");
    assert_eq!(finished["targets"][0]["state"], "unchanged");
    assert_eq!(finished["targets"][1]["state"], "published");
    assert_eq!(finished["targets"][1]["verify"]["ok"], true);
    assert!(!fake.release("v1.2.3")[0].draft);
    let uploads = fake.count("POST", "/assets");
    assert_eq!(uploads, 5, "promoting uploads nothing");

    let writes = fake.mutations();
    let again = with_fake(promote(&provider));
    assert_eq!(ok(&again)["status"], "already-promoted");
    assert_eq!(fake.mutations(), writes, "a promoted release is left alone");
    let all = format!("{}{}", stdout(&again), stderr(&again));
    assert!(!all.contains(github::TOKEN));
}

#[test]
fn a_github_draft_asset_changed_since_is_refused_and_the_release_stays_a_draft() {
    let fake = FakeGitHub::start();
    let provider = Provider::new("  github:\n    repo: o/r\n", METADATA);
    let run = |mut command: std::process::Command| {
        command
            .args(["--version", "v1.2.3", "--format", "json"])
            .env("GITHUB_API_URL", &fake.api)
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap()
    };
    let mut drafting = release(&provider);
    drafting.arg("--draft");
    ok(&run(drafting));
    {
        let mut state = fake.state();
        let asset = state.releases[0]
            .assets
            .iter_mut()
            .find(|a| a.name == "infrastructure-components.yaml")
            .unwrap();
        asset.content.extend_from_slice(b"# changed\n");
    }
    let refused = run(promote(&provider));
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let message = json(&refused)["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        message.contains("`infrastructure-components.yaml` has SHA-256"),
        "{message}"
    );
    assert!(fake.release("v1.2.3")[0].draft);
    assert_eq!(fake.count("PATCH", "/releases/"), 0);
}

#[test]
fn gitlab_draft_is_a_package_version_clusterctl_never_reads_until_promoted() {
    let fake = FakeGitLab::start();
    // No `package:`: the draft is found under the provider's label, as capkg.yaml names it.
    let provider = Provider::new("  gitlab:\n    project: \"42\"\n", METADATA);
    let run = |mut command: std::process::Command| {
        command
            .args(["--version", "v1.2.3", "--format", "json"])
            .env("CI_API_V4_URL", &fake.api)
            .env("CI_PROJECT_ID", PROJECT_ID)
            .env("CI_JOB_TOKEN", gitlab::JOB_TOKEN)
            .output()
            .unwrap()
    };
    let stored = || -> Vec<String> { fake.state().files.keys().cloned().collect() };
    let mut drafting = release(&provider);
    drafting.arg("--draft");
    let drafted = ok(&run(drafting));
    assert_eq!(drafted["status"], "drafted");
    let expected = |version: &str| -> Vec<String> {
        FILES
            .iter()
            .map(|f| format!("infrastructure-azure/{version}/{f}"))
            .collect()
    };
    assert_eq!(stored(), expected("draft-v1.2.3"));

    let promoted = ok(&run(promote(&provider)));
    assert_eq!(promoted["status"], "promoted");
    assert_eq!(promoted["targets"][0]["verify"]["ok"], true);
    let mut both = expected("draft-v1.2.3");
    both.extend(expected("v1.2.3"));
    both.sort();
    assert_eq!(stored(), both);
    let state = fake.state();
    for file in FILES {
        assert_eq!(
            state.files[&format!("infrastructure-azure/draft-v1.2.3/{file}")],
            state.files[&format!("infrastructure-azure/v1.2.3/{file}")],
            "{file}"
        );
    }
    drop(state);

    let puts = fake.count("PUT");
    let again = ok(&run(promote(&provider)));
    assert_eq!(again["status"], "already-promoted");
    assert_eq!(fake.count("PUT"), puts);
}
