//! `capkg lint` without a PATH lints what the release ships where a capkg.yaml is found (the
//! files assembled from its sources, as `release --dry-run` checks them), and says so; `--all`
//! lints every YAML file of the repository, as lint did before (issue 39: CAPZ's e2e data and
//! CI-only templates gave 3 errors where the release had none).

use std::path::Path;
use std::process::{Command, Output};

use crate::common::copy_example_provider;

/// Components of a provider with two Namespaces: `components/single-namespace` refuses them.
const E2E_COMPONENTS: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: two\n";

fn lint(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capkg"))
        .current_dir(dir)
        .arg("lint")
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITLAB_CI")
        .output()
        .unwrap()
}

fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stdout)))
}

/// The example provider with e2e test data beside its sources that no release ships.
fn repository_with_e2e_data() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_example_provider(dir.path());
    let e2e = dir.path().join("test/e2e/data");
    std::fs::create_dir_all(&e2e).unwrap();
    std::fs::write(e2e.join("infrastructure-components.yaml"), E2E_COMPONENTS).unwrap();
    dir
}

#[test]
fn without_a_path_lint_reads_the_release_capkg_yaml_describes() {
    let dir = repository_with_e2e_data();
    let output = lint(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("linting the release `capkg.yaml` describes")
            && stderr.contains("infrastructure-components.yaml")
            && stderr.contains("`capkg lint --all`"),
        "{stderr}"
    );
    let report = json(&lint(dir.path(), &["--format", "json"]));
    assert_eq!(report["linted"]["view"], "release", "{report}");
    assert_eq!(report["linted"]["config"], "capkg.yaml", "{report}");
    let files = report["linted"]["files"].as_array().unwrap();
    assert!(
        files.contains(&"infrastructure-components.yaml".into()),
        "{report}"
    );
    assert!(files.contains(&"metadata.yaml".into()), "{report}");
    assert_eq!(report["summary"]["errors"], 0, "{report}");
    // Nothing is written: lint reads.
    assert!(!dir.path().join("out").exists());
}

#[test]
fn all_lints_every_yaml_file_of_the_repository() {
    let dir = repository_with_e2e_data();
    let output = lint(dir.path(), &["--all", "--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    assert_eq!(report["linted"]["view"], "paths", "{report}");
    let rules: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["rule"].as_str())
        .collect();
    assert!(rules.contains(&"components/single-namespace"), "{report}");
    // `--all` and paths do not go together.
    assert_eq!(lint(dir.path(), &["--all", "."]).status.code(), Some(2));
}

#[test]
fn the_release_view_finds_what_assembling_makes() {
    // A pin that matches no image is an assembly error: lint says it and how to lint the files.
    let dir = tempfile::tempdir().unwrap();
    copy_example_provider(dir.path());
    let config = dir.path().join("capkg.yaml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(
        "images:\n  - name: registry.example.com/nothing-uses-this\n    tag: \"{version}\"\n",
    );
    std::fs::write(&config, text).unwrap();
    let output = lint(dir.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("capkg lint --all"), "{stderr}");
}

#[test]
fn without_capkg_yaml_lint_reads_the_folder_as_before() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("infrastructure-components.yaml"),
        E2E_COMPONENTS,
    )
    .unwrap();
    let output = lint(dir.path(), &["--format", "json"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json(&output)["linted"]["view"], "paths");
    assert!(String::from_utf8_lossy(&output.stderr).is_empty());
}

#[test]
fn a_capkg_yaml_without_components_lints_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("infrastructure-components.yaml"),
        E2E_COMPONENTS,
    )
    .unwrap();
    std::fs::write(dir.path().join("capkg.yaml"), "lint:\n  allow: []\n").unwrap();
    let output = lint(dir.path(), &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("names no components"),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
