//! What a maintainer meets on a first run: `release` prints its checks before it uploads and
//! says which checks it skipped, dry runs need neither a token nor the network, and a JSON
//! report of a dry run that stopped early still says it was a dry run.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::release_common::clean_capkg;

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 0\n  minor: 1\n  contract: v1beta1\n";

fn write(root: &Path, name: &str, text: &str) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A provider whose manager image is on a registry that does not resolve (`.invalid`), with a
/// local target.
fn provider() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "components.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: registry.invalid/capx/manager:v0.1.0\n",
    );
    write(dir.path(), "metadata.yaml", METADATA);
    write(
        dir.path(),
        "capkg.yaml",
        "provider:\n  name: capx\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\nnamespace: capx-system\ntargets:\n  local:\n    repository: repo\n",
    );
    dir
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn release_prints_its_checks_before_the_upload_progress() {
    let dir = provider();
    // One stream, as a terminal shows it: progress (stderr) and report (stdout) interleaved.
    let capkg = env!("CARGO_BIN_EXE_capkg");
    let output = std::process::Command::new("sh")
        .args([
            "-c",
            &format!("'{capkg}' release --version v0.1.0 --target local --color never 2>&1"),
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITLAB_CI")
        .env_remove("GITHUB_REF_NAME")
        .env_remove("CI_COMMIT_TAG")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let said = stdout(&output);
    assert!(output.status.success(), "{said}");
    let at = |text: &str| {
        said.find(text)
            .unwrap_or_else(|| panic!("{text:?} in {said}"))
    };
    assert!(at("release series 0.1") < at("uploaded "), "{said}");
    // The registry did not answer: nothing was looked up, so the check is not `ok`.
    assert!(at("skip images:") < at("uploaded "), "{said}");
    assert!(!said.contains("ok   images"), "{said}");
}

#[test]
fn release_dry_run_says_the_image_check_was_skipped() {
    let dir = provider();
    let output = clean_capkg()
        .args([
            "release",
            "--dry-run",
            "--version",
            "v0.1.0",
            "--color",
            "never",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let said = stdout(&output);
    assert!(output.status.success(), "{said}");
    assert!(said.contains("skip images: not checked ("), "{said}");
}

#[test]
fn a_json_dry_run_that_stopped_early_says_it_was_a_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let output = clean_capkg()
        .args([
            "release",
            "--dry-run",
            "--format",
            "json",
            "--version",
            "v0.1.0",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["dry_run"], true, "{json}");
    assert_eq!(json["status"], "failed", "{json}");
}

#[test]
fn publish_github_dry_run_needs_no_token_or_network() {
    let dir = provider();
    let assembled = clean_capkg()
        .args(["assemble", "--version", "v0.1.0"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(assembled.status.success());
    let output = clean_capkg()
        .args([
            "publish",
            "github",
            "out",
            "--version",
            "v0.1.0",
            "--repo",
            "o/r",
            "--dry-run",
        ])
        .env_remove("GITHUB_TOKEN")
        .env_remove("GH_TOKEN")
        // Nothing listens here: a request would fail the run.
        .env("GITHUB_API_URL", "http://127.0.0.1:9")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let said = format!(
        "{}{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{said}");
    assert!(said.contains("no network requests"), "{said}");
    assert!(said.contains("infrastructure-components.yaml"), "{said}");
}

#[test]
fn the_actions_multi_line_args_are_one_command() {
    // action.yml took `args` with `read -r -a`, which stops at the first newline: a YAML block
    // `args: |` ran `capkg rules` without `--format json`.
    let capkg = Path::new(env!("CARGO_BIN_EXE_capkg"));
    let path = crate::common::path_with(capkg.parent().unwrap());
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/action-install.sh");
    let output = std::process::Command::new("bash")
        .arg(script)
        .arg("run")
        .env("PATH", path)
        .env("CAPKG_ARGS", "rules\n  --format\n  json\n")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let json: Value = serde_json::from_slice(&output.stdout).expect("JSON: --format json was kept");
    assert!(json.is_array() || json.is_object(), "{json}");
}

#[test]
fn global_flags_have_their_own_help_group() {
    for command in ["lint", "assemble", "release", "verify"] {
        let output = clean_capkg().args([command, "-h"]).output().unwrap();
        let help = stdout(&output);
        let (own, global) = help
            .split_once("Global options:")
            .unwrap_or_else(|| panic!("{command}: {help}"));
        for flag in ["--format", "--color", "--quiet", "--verbose"] {
            assert!(global.contains(flag), "{command}: {flag} in {help}");
            assert!(
                !own.contains(flag),
                "{command}: {flag} among its own in {help}"
            );
        }
    }
}

#[test]
fn a_version_without_v_is_a_bad_argument_for_publish_local() {
    // `--version 0.1.0` exited 1 and `--version v0.1` exited 2: both are bad arguments.
    let dir = provider();
    let assembled = clean_capkg()
        .args(["assemble", "--version", "v0.1.0"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(assembled.status.success());
    for version in ["0.1.0", "v0.1"] {
        let output = clean_capkg()
            .args([
                "publish",
                "local",
                "out",
                "--repository",
                "repo",
                "--version",
                version,
            ])
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(2),
            "{version}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert!(!dir.path().join("repo").exists());
}
