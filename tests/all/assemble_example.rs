//! `capkg assemble` on the example provider in `testdata/`, as the README and the book run it,
//! and the ways assembly refuses: bad configuration (exit 2, with a position), sources that are
//! wrong (exit 1), lint errors (exit 1, nothing written).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example-provider")
}

fn capkg() -> Command {
    Command::new(env!("CARGO_BIN_EXE_capkg"))
}

fn assemble(config: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    capkg()
        .arg("assemble")
        .arg("--config")
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_example_provider_assembles_into_a_release_lint_passes() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let output = assemble(&example().join("capkg.yaml"), &out, &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "checksums.txt",
            "cluster-template-topology.yaml",
            "cluster-template.yaml",
            "clusterclass-example.yaml",
            "infrastructure-components.yaml",
            "metadata.yaml"
        ]
    );
    // checksums.txt is what `sha256sum -c` reads, sorted by name, without itself.
    let sums = std::fs::read_to_string(out.join("checksums.txt")).unwrap();
    let listed: Vec<&str> = sums
        .lines()
        .map(|l| l.split_once("  ").unwrap().1)
        .collect();
    assert_eq!(listed, &names[1..]);
    for line in sums.lines() {
        let (hash, name) = line.split_once("  ").unwrap();
        let bytes = std::fs::read(out.join(name)).unwrap();
        assert_eq!(hash, capkg::checksums::sha256_hex(&bytes), "{name}");
    }
    // Templates are copied byte for byte.
    assert_eq!(
        std::fs::read(out.join("clusterclass-example.yaml")).unwrap(),
        std::fs::read(example().join("templates/clusterclass-example.yaml")).unwrap()
    );
    let components = std::fs::read_to_string(out.join("infrastructure-components.yaml")).unwrap();
    assert!(
        components.starts_with("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n")
    );
    assert!(!components.contains("namespace: system"));
    assert!(components.contains("- capx-webhook-service.capx-system.svc\n"));
    let lint = capkg()
        .args(["lint", "--version", "v0.1.0"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        lint.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&lint.stdout)
    );
}

#[test]
fn kubectl_kustomize_gives_the_same_objects() {
    crate::common::require_kubectl();
    let work = tempfile::tempdir().unwrap();
    let files = work.path().join("files");
    let kustomize = work.path().join("kustomize");
    assert!(
        assemble(&example().join("capkg.yaml"), &files, &[])
            .status
            .success()
    );
    let output = assemble(
        &example().join("capkg.yaml"),
        &kustomize,
        &["--components-command", "kubectl kustomize config/default"],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // kustomize orders keys its own way; the objects are the same.
    let objects = |dir: &Path| {
        let text = std::fs::read_to_string(dir.join("infrastructure-components.yaml")).unwrap();
        let file = capkg::yaml::parse_str(
            std::sync::Arc::new(capkg::yaml::Source::new("c", text)),
            capkg::yaml::Limits::default(),
        );
        let mut values: Vec<String> = file
            .roots()
            .map(|r| {
                let value = capkg::yaml::json_value::JsonValue::from_node(r).unwrap();
                capkg::yaml::write_clusterctl::write_value(&value).unwrap()
            })
            .collect();
        values.sort();
        values
    };
    assert_eq!(objects(&files), objects(&kustomize));
}

#[test]
fn a_failing_command_is_exit_1_with_its_stderr() {
    let work = tempfile::tempdir().unwrap();
    let output = assemble(
        &example().join("capkg.yaml"),
        &work.path().join("out"),
        &["--components-command", "echo 'no such overlay' >&2; exit 7"],
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("failed (exit status: 7)"), "{stderr}");
    assert!(stderr.contains("no such overlay"), "{stderr}");
    assert!(!work.path().join("out").exists());
}

#[test]
fn an_unknown_field_is_exit_2_with_its_position() {
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("capkg.yaml");
    std::fs::write(
        &config,
        "provider:\n  name: x\ncomponent:\n  file: c.yaml\n",
    )
    .unwrap();
    let output = assemble(&config, &work.path().join("out"), &[]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "{}:3:1: unknown field `component`",
            config.display()
        )),
        "{stderr}"
    );
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn lint_errors_refuse_and_write_nothing() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    // The example's metadata.yaml has no series for v9.0.0.
    let output = assemble(
        &example().join("capkg.yaml"),
        &out,
        &["--version", "v9.0.0"],
    );
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("metadata/version-series"), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert!(!out.exists());
    // A finding names the assembled components (the manager's tag): the rejected release is
    // written beside the destination to read it, and nothing else is left there.
    assert!(
        stdout.contains("out.rejected/infrastructure-components.yaml:"),
        "{stdout}"
    );
    let names: Vec<String> = std::fs::read_dir(work.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["out.rejected"]);
}

#[test]
fn an_existing_release_is_replaced_but_a_foreign_folder_is_not() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    assert!(
        assemble(&example().join("capkg.yaml"), &out, &[])
            .status
            .success()
    );
    assert!(
        assemble(&example().join("capkg.yaml"), &out, &[])
            .status
            .success()
    );
    std::fs::write(out.join("notes.md"), "mine").unwrap();
    let output = assemble(&example().join("capkg.yaml"), &out, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not a release file"));
    assert!(out.join("notes.md").exists());
}

#[test]
fn an_assembled_release_publishes_to_a_local_repository() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    assert!(
        assemble(&example().join("capkg.yaml"), &out, &[])
            .status
            .success()
    );
    let repository = work.path().join("repository");
    let output = capkg()
        .args(["publish", "local"])
        .arg(&out)
        .args(["--version", "v0.1.0", "--repository"])
        .arg(&repository)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // publish checked every file against checksums.txt and put the release where clusterctl
    // reads a local repository.
    let published = repository.join("infrastructure-example/v0.1.0");
    for name in [
        "infrastructure-components.yaml",
        "metadata.yaml",
        "checksums.txt",
    ] {
        assert_eq!(
            std::fs::read(published.join(name)).unwrap(),
            std::fs::read(out.join(name)).unwrap(),
            "{name}"
        );
    }
}
