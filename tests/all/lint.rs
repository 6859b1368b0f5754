//! `capkg lint` run as a user runs it: the built binary over the corpus, hostile input and each
//! output format.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

fn capkg() -> assert_cmd::Command {
    let mut cmd = cargo_bin_cmd!("capkg");
    cmd.env_remove("NO_COLOR").env("COLUMNS", "100");
    cmd
}

use crate::common::{corpus, corpus_providers};

/// Runs lint with JSON output and returns (exit code, report).
fn lint_json(args: &[&str]) -> (i32, Value) {
    let output = capkg()
        .arg("lint")
        .arg("--format")
        .arg("json")
        .args(args)
        .output()
        .unwrap();
    let code = output.status.code().expect("exited normally");
    let report = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (code, report)
}

fn rules_in(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["rule"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_corpus_provider_lints_without_crashing() {
    for provider in corpus_providers() {
        let (code, report) = lint_json(&[provider.to_str().unwrap()]);
        assert!(
            code == 0 || code == 1,
            "{}: exit {code}",
            provider.display()
        );
        let summary = &report["summary"];
        assert_eq!(
            code == 1,
            summary["errors"].as_u64().unwrap() > 0,
            "{}",
            provider.display()
        );
        for d in report["diagnostics"].as_array().unwrap() {
            // Every finding names a file; findings with a span have 1-based positions.
            assert!(d["file"].is_string());
            if let Some(line) = d["line"].as_u64() {
                assert!(line >= 1 && d["column"].as_u64().unwrap() >= 1);
            }
            assert!(!d["help"].as_str().unwrap().is_empty());
        }
    }
}

#[test]
fn corpus_findings_are_the_known_real_defects() {
    let corpus = corpus();
    // Linode's metadata.yaml maps its newest series to v1beta2, but four of its CRDs carry only
    // the v1beta1 contract label: a real defect. Its objects also lack the provider label.
    let (code, report) = lint_json(&[corpus.join("infrastructure-linode").to_str().unwrap()]);
    assert_eq!(code, 1);
    let rules = rules_in(&report);
    assert!(
        rules.contains(&"crd/contract-label".to_string()),
        "{rules:?}"
    );
    assert!(
        rules.contains(&"components/provider-label".to_string()),
        "{rules:?}"
    );
    // Proxmox's templates spell variables in ways clusterctl reads differently from what they
    // seem to say: warnings, not errors.
    let (code, report) = lint_json(&[corpus.join("infrastructure-proxmox").to_str().unwrap()]);
    assert_eq!(code, 0, "{report}");
    let rules = rules_in(&report);
    for rule in [
        "variables/legacy-spacing",
        "variables/name-case",
        "files/name",
    ] {
        assert!(rules.contains(&rule.to_string()), "{rule}: {rules:?}");
    }
    // Cluster API's own core provider has no errors.
    let (code, report) = lint_json(&[corpus.join("core-cluster-api").to_str().unwrap()]);
    assert_eq!(code, 0, "{report}");
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn version_without_a_series_is_an_error_naming_the_series() {
    let dir = corpus().join("ipam-in-cluster");
    let (code, report) = lint_json(&[dir.to_str().unwrap(), "--version", "v9.1.0"]);
    assert_eq!(code, 1);
    let d = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "metadata/version-series")
        .expect("version-series finding");
    assert!(d["message"].as_str().unwrap().contains("v9.1.0"));
    assert_eq!(
        d["file"].as_str().unwrap(),
        format!("{}/metadata.yaml", dir.display())
    );
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn assert_clean_failure(output: &std::process::Output, expected_code: i32, needle: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(expected_code),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        stdout.contains(needle) || stderr.contains(needle),
        "expected `{needle}` in output\nstdout: {stdout}\nstderr: {stderr}"
    );
}

#[test]
fn malformed_files_get_positioned_errors_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &[u8], &str)] = &[
        ("truncated", b"apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: [1,\n", "metadata.yaml:5:1"),
        ("tabs", b"kind: Metadata\nreleaseSeries:\n\t- major: 1\n", "tab"),
        ("duplicate", b"kind: Metadata\nkind: Metadata\nreleaseSeries: []\n", "duplicate key `kind`"),
        ("utf8", b"kind: Metadata\nname: caf\xe9\n", "invalid UTF-8"),
        ("empty", b"", "releaseSeries"),
    ];
    for (name, bytes, needle) in cases {
        let sub = dir.path().join(name);
        std::fs::create_dir(&sub).unwrap();
        write(&sub, "metadata.yaml", bytes);
        let output = capkg()
            .args(["lint", "--color", "never"])
            .arg(&sub)
            .output()
            .unwrap();
        if *name == "empty" {
            // An empty metadata.yaml holds no object: nothing to check, nothing to crash on.
            assert!(matches!(output.status.code(), Some(0 | 1)), "{name}");
            continue;
        }
        assert_clean_failure(&output, 1, needle);
    }
}

#[test]
fn alias_bomb_is_refused_quickly() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"];
    for pair in names.windows(2) {
        let refs = vec![format!("*{}", pair[0]); 9].join(",");
        text.push_str(&format!("{}: &{} [{}]\n", pair[1], pair[1], refs));
    }
    write(
        dir.path(),
        "infrastructure-components.yaml",
        text.as_bytes(),
    );
    let output = capkg()
        .args(["lint", "--color", "never"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_clean_failure(&output, 1, "alias expansion");
}

#[test]
fn a_folder_without_release_files_is_exit_2_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "kustomization.yaml", b"resources: []\n");
    let output = capkg()
        .args(["lint", "--color", "never"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_clean_failure(&output, 2, "no release files found");
    assert!(String::from_utf8_lossy(&output.stderr).contains("hint:"));
}

#[test]
fn a_missing_path_is_exit_2() {
    let output = capkg()
        .args(["lint", "/nonexistent/capkg-test"])
        .output()
        .unwrap();
    assert_clean_failure(&output, 2, "does not exist");
}

#[test]
fn a_huge_file_is_linted_without_crashing() {
    // About 100 MB of valid components: many ConfigMaps with a large literal block.
    let dir = tempfile::tempdir().unwrap();
    let block: String = "    line of an embedded script that goes on for a while\n".repeat(2_000);
    let doc = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: capx-system\ndata:\n  script: |\n{block}"
    );
    let mut text =
        String::from("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n");
    while text.len() < 100_000_000 {
        text.push_str("---\n");
        text.push_str(&doc);
    }
    write(
        dir.path(),
        "infrastructure-components.yaml",
        text.as_bytes(),
    );
    write(dir.path(), "metadata.yaml", METADATA);
    let output = capkg()
        .args(["lint", "--format", "json"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["summary"]["errors"], 0);
}

#[test]
fn deeply_nested_input_does_not_overflow_the_stack() {
    let dir = tempfile::tempdir().unwrap();
    let text = "- ".repeat(200_000) + "x\n";
    write(dir.path(), "metadata.yaml", text.as_bytes());
    let output = capkg()
        .args(["lint", "--color", "never"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_clean_failure(&output, 1, "yaml/syntax");
}

fn bad_release(dir: &Path) {
    write(
        dir,
        "infrastructure-components.yaml",
        b"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: b\n",
    );
    write(dir, "metadata.yaml", METADATA);
}

const METADATA: &[u8] = b"apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta2\n";

#[test]
fn human_output_has_snippets_and_no_colour_when_piped() {
    let dir = tempfile::tempdir().unwrap();
    bad_release(dir.path());
    let output = capkg().arg("lint").arg(dir.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("components/single-namespace"), "{stdout}");
    assert!(
        stdout.contains("infrastructure-components.yaml:9:9"),
        "{stdout}"
    );
    assert!(stdout.contains("name: b"), "{stdout}");
    assert!(
        !stdout.contains('\u{1b}'),
        "colour escapes in piped output: {stdout}"
    );
    let coloured = capkg()
        .args(["lint", "--color", "always"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&coloured.stdout).contains('\u{1b}'));
    let no_color = capkg()
        .args(["lint", "--color", "always"])
        .env("NO_COLOR", "1")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&no_color.stdout).contains('\u{1b}'),
        "--color always wins over NO_COLOR"
    );
}

#[test]
fn json_output_is_one_object_with_the_documented_shape() {
    let dir = tempfile::tempdir().unwrap();
    bad_release(dir.path());
    let (code, report) = lint_json(&[dir.path().to_str().unwrap()]);
    assert_eq!(code, 1);
    let d = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["rule"] == "components/single-namespace")
        .unwrap();
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 9);
    assert_eq!(d["column"], 9);
    assert!(d["message"].as_str().unwrap().contains("`a`"));
    assert!(
        d["file"]
            .as_str()
            .unwrap()
            .ends_with("infrastructure-components.yaml")
    );
    assert_eq!(report["summary"]["files"], 2);
    assert!(report["summary"]["errors"].as_u64().unwrap() >= 1);
}

#[test]
fn github_output_is_workflow_commands() {
    let dir = tempfile::tempdir().unwrap();
    bad_release(dir.path());
    let output = capkg()
        .args(["lint", "--format", "github"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.contains("title=components/single-namespace"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(line.starts_with("::error file="), "{line}");
    assert!(line.contains(",line=9,col=9,"), "{line}");
}

#[test]
fn deny_warnings_turns_warnings_into_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "infrastructure-components.yaml",
        b"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n",
    );
    write(dir.path(), "metadata.yaml", METADATA);
    let (code, report) = lint_json(&[dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{report}");
    assert!(report["summary"]["warnings"].as_u64().unwrap() >= 1);
    let (code, _) = lint_json(&["--deny-warnings", dir.path().to_str().unwrap()]);
    assert_eq!(code, 1);
}

#[test]
fn rules_lists_every_rule_and_explains_one() {
    let output = capkg().arg("rules").output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("components/single-namespace"));
    assert!(stdout.contains("metadata/version-series"));
    let output = capkg().args(["rules", "metadata/kind"]).output().unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("metadata/kind (error)"), "{stdout}");
    assert!(
        stdout.contains("https://cluster-api.sigs.k8s.io"),
        "{stdout}"
    );
    let output = capkg().args(["rules", "metadata/nope"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let json = capkg()
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(value["rules"].as_array().unwrap().len() >= 20);
}

#[test]
fn a_closed_pipe_is_not_an_error() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .args(["lint", "--color", "never"])
        .arg(corpus())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
}
