//! Provenance end to end: `capkg release` publishes an in-toto/SLSA statement over every
//! release file (local repository, GitHub fake), `capkg verify --require-provenance` accepts the
//! release and refuses each tampered variant naming the check, and `capkg verify --rebuild`
//! assembles the example provider again from the commit the statement names, in a temporary
//! git repository, byte for byte.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::common::copy_example_provider;
use crate::publish_fakes::github::{self, FakeGitHub};
use crate::publish_fakes::{METADATA, sha256};
use crate::release_common::{Provider, clean_capkg, json, release, stderr, stdout};

const STATEMENT: &str = "capkg-provenance.intoto.json";

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "capkg test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "capkg test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {}", stderr(&output));
    String::from_utf8(output.stdout).unwrap().trim().to_string()
}

/// The example provider as a git repository of its own, tagged `v0.1.0`.
pub(crate) fn example_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_example_provider(dir.path());
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join(".gitignore"), "out/\nout-repository/\n").unwrap();
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-q", "-m", "example provider"]);
    git(dir.path(), &["tag", "v0.1.0"]);
    dir
}

pub(crate) fn release_local(root: &Path) -> Output {
    clean_capkg()
        .args([
            "release", "--format", "json", "--target", "local", "--config",
        ])
        .arg(root.join("capkg.yaml"))
        .current_dir(root)
        .output()
        .unwrap()
}

pub(crate) fn verify(url: &str, extra: &[&str], dir: &Path) -> (Output, Value) {
    let output = clean_capkg()
        .args(["verify", url, "--format", "json"])
        .args(extra)
        .current_dir(dir)
        .output()
        .unwrap();
    let report = json(&output);
    (output, report)
}

/// The check of `report` named `name`.
pub(crate) fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` check in {report}"))
}

pub(crate) fn published(root: &Path) -> PathBuf {
    root.join("out-repository/infrastructure-example/v0.1.0")
}

#[test]
fn a_local_release_is_attested_verified_and_rebuilt_byte_for_byte() {
    let repo = example_repository();
    let root = repo.path();
    let output = release_local(root);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(json(&output)["status"], "published");

    // The statement names every other file of the release by its digest, and the commit.
    let folder = published(root);
    let statement: Value =
        serde_json::from_slice(&std::fs::read(folder.join(STATEMENT)).unwrap()).unwrap();
    assert_eq!(statement["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(statement["predicateType"], "https://slsa.dev/provenance/v1");
    let mut on_disk: Vec<(String, String)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != STATEMENT)
        .map(|p| {
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            (name, sha256(&std::fs::read(&p).unwrap()))
        })
        .collect();
    on_disk.sort();
    let subjects: Vec<(String, String)> = statement["subject"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["digest"]["sha256"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(subjects, on_disk);
    assert!(subjects.iter().any(|(name, _)| name == "checksums.txt"));
    let definition = &statement["predicate"]["buildDefinition"];
    assert_eq!(
        definition["resolvedDependencies"][0]["digest"]["gitCommit"],
        git(root, &["rev-parse", "HEAD"])
    );
    assert_eq!(
        definition["externalParameters"]["source"]["ref"],
        "refs/tags/v0.1.0"
    );
    assert_eq!(
        definition["externalParameters"]["config"]["path"],
        "capkg.yaml"
    );
    assert_eq!(
        definition["externalParameters"]["config"]["digest"]["sha256"],
        sha256(&std::fs::read(root.join("capkg.yaml")).unwrap())
    );

    // The same inputs give the same statement: a second release changes nothing.
    let again = release_local(root);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(json(&again)["status"], "unchanged");

    let url = format!(
        "file://{}",
        folder.join("infrastructure-components.yaml").display()
    );
    let (output, report) = verify(&url, &["--require-provenance"], root);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    for name in ["provenance", "provenance-subjects", "provenance-coverage"] {
        assert_eq!(check(&report, name)["ok"], true, "{name}: {report}");
    }

    // Assembled again from the tagged commit, in a copy: the same bytes.
    let (output, report) = verify(&url, &["--rebuild", "--repository", "."], root);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let rebuilt = check(&report, "rebuild");
    assert_eq!(rebuilt["ok"], true, "{report}");
    assert!(
        rebuilt["message"]
            .as_str()
            .unwrap()
            .contains("byte for byte as served"),
        "{rebuilt}"
    );
    // The user's checkout is left as it was: one work tree, nothing changed.
    assert_eq!(git(root, &["worktree", "list"]).lines().count(), 1);
    assert_eq!(git(root, &["status", "--porcelain"]), "");

    // A file changed after the release: both checks name it.
    let components = folder.join("infrastructure-components.yaml");
    let original = std::fs::read_to_string(&components).unwrap();
    std::fs::write(
        &components,
        original.replacen("capx-system", "capx-evil", 1),
    )
    .unwrap();
    let (output, report) = verify(&url, &["--rebuild", "--repository", "."], root);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let subjects = check(&report, "provenance-subjects");
    assert_eq!(subjects["ok"], false);
    assert!(
        subjects["message"]
            .as_str()
            .unwrap()
            .starts_with("`infrastructure-components.yaml` has SHA-256"),
        "{subjects}"
    );
    let rebuilt = check(&report, "rebuild");
    assert_eq!(rebuilt["ok"], false);
    let message = rebuilt["message"].as_str().unwrap();
    assert!(
        message
            .starts_with("`infrastructure-components.yaml` differs from the rebuilt file: line ")
            && message.contains("capx-evil")
            && message.contains("capx-system"),
        "{message}"
    );
    std::fs::write(&components, &original).unwrap();

    // A file the statement does not name, added with its checksum.
    let extra = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n";
    std::fs::write(folder.join("cluster-template-extra.yaml"), extra).unwrap();
    let list = std::fs::read_to_string(folder.join("checksums.txt")).unwrap();
    std::fs::write(
        folder.join("checksums.txt"),
        format!(
            "{list}{}  cluster-template-extra.yaml\n",
            sha256(extra.as_bytes())
        ),
    )
    .unwrap();
    let (output, report) = verify(&url, &["--require-provenance"], root);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let coverage = check(&report, "provenance-coverage");
    assert_eq!(coverage["ok"], false);
    assert!(
        coverage["message"]
            .as_str()
            .unwrap()
            .contains("`cluster-template-extra.yaml`"),
        "{coverage}"
    );
    // `checksums.txt` changed too, which the statement names with its old digest.
    assert_eq!(check(&report, "provenance-subjects")["ok"], false);
    std::fs::remove_file(folder.join("cluster-template-extra.yaml")).unwrap();
    std::fs::write(folder.join("checksums.txt"), list).unwrap();

    // A statement for other files (another digest) is refused.
    let text = std::fs::read_to_string(folder.join(STATEMENT)).unwrap();
    let metadata_sum = sha256(&std::fs::read(folder.join("metadata.yaml")).unwrap());
    std::fs::write(
        folder.join(STATEMENT),
        text.replace(&metadata_sum, &"0".repeat(64)),
    )
    .unwrap();
    let (output, report) = verify(&url, &["--require-provenance"], root);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        check(&report, "provenance-subjects")["message"]
            .as_str()
            .unwrap()
            .contains("`metadata.yaml` has SHA-256"),
        "{report}"
    );

    // No statement: fine unless it is required.
    std::fs::remove_file(folder.join(STATEMENT)).unwrap();
    let (output, _) = verify(&url, &[], root);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let (output, report) = verify(&url, &["--require-provenance"], root);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        check(&report, "provenance")["message"]
            .as_str()
            .unwrap()
            .contains("it was not released with provenance"),
        "{report}"
    );
}

#[test]
fn a_github_release_carries_its_statement_and_verify_reads_it_through_the_api() {
    let fake = FakeGitHub::start();
    let provider = Provider::new("  github:\n    repo: o/r\n", METADATA);
    let output = release(&provider)
        .args(["--version", "v1.2.3", "--format", "json"])
        .env("GITHUB_API_URL", &fake.api)
        .env("GITHUB_TOKEN", github::TOKEN)
        // A workflow run: the statement names it as the builder.
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_REPOSITORY", "o/r")
        .env(
            "GITHUB_WORKFLOW_REF",
            "o/r/.github/workflows/release.yml@refs/tags/v1.2.3",
        )
        .env("GITHUB_RUN_ID", "42")
        .env("GITHUB_REF", "refs/tags/v1.2.3")
        .env("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let asset = |name: &str| {
        fake.release("v1.2.3")[0]
            .assets
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.content.clone())
            .unwrap_or_else(|| panic!("no asset {name}"))
    };
    let statement: Value = serde_json::from_slice(&asset(STATEMENT)).unwrap();
    let run = &statement["predicate"]["runDetails"];
    assert_eq!(
        run["builder"]["id"],
        "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1.2.3"
    );
    assert_eq!(
        run["metadata"]["invocationId"],
        "https://github.com/o/r/actions/runs/42/attempts/1"
    );
    assert_eq!(
        statement["predicate"]["buildDefinition"]["resolvedDependencies"][0]["uri"],
        "git+https://github.com/o/r@refs/tags/v1.2.3"
    );

    let url = "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml";
    let verify = || {
        clean_capkg()
            .args(["verify", url, "--require-provenance", "--format", "json"])
            .args(["--api-url", &fake.api])
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap()
    };
    let output = verify();
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let report = json(&output);
    assert_eq!(check(&report, "provenance-subjects")["ok"], true);

    // An asset replaced after the release.
    {
        let mut state = fake.state();
        let template = state.releases[0]
            .assets
            .iter_mut()
            .find(|a| a.name == "cluster-template.yaml")
            .unwrap();
        template.content.extend_from_slice(b"# replaced\n");
    }
    let output = verify();
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report = json(&output);
    let subjects = check(&report, "provenance-subjects");
    assert_eq!(subjects["ok"], false);
    assert!(
        subjects["message"]
            .as_str()
            .unwrap()
            .contains("`cluster-template.yaml` has SHA-256"),
        "{subjects}"
    );
}
