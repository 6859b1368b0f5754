//! `capkg init` on a copy of the example provider: what it detects, what it writes, and that it
//! never replaces a file without `--force`.

use std::path::Path;

use assert_cmd::Command;

fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::common::copy_example_provider(dir.path());
    std::fs::remove_file(dir.path().join("capkg.yaml")).unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join(".git/config"),
        "[remote \"origin\"]\n\turl = https://github.com/acme/cluster-api-provider-example.git\n",
    )
    .unwrap();
    dir
}

fn init(dir: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_capkg"))
        .arg("init")
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn detects_the_repository_and_writes_config_and_ci_files() {
    let repo = repository();
    let output = init(repo.path(), &[]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
    // The provider from the kustomization's labels, the kustomize tree, the templates folder,
    // the GitHub remote.
    for expected in [
        "  name: example\n  type: infrastructure\n",
        "  command: [kubectl, kustomize, config/default]\n",
        "metadata: metadata.yaml\n",
        "templates:\n  - templates/cluster-template*.yaml\n  - templates/clusterclass-*.yaml\n",
        "  github:\n    repo: acme/cluster-api-provider-example\n",
    ] {
        assert!(
            config.contains(expected),
            "{expected:?} missing in\n{config}"
        );
    }
    // The manager image, pinned to the release.
    assert!(
        config.contains(
            "images:\n  - name: registry.example.com/capi-example/manager  # config/manager/manager.yaml\n    newTag: \"{version}\"\n"
        ),
        "{config}"
    );
    let workflow =
        std::fs::read_to_string(repo.path().join(".github/workflows/capkg-release.yaml")).unwrap();
    assert!(workflow.contains("tags:\n      - \"v*\""));
    assert!(workflow.contains("capkg release"));
    assert!(workflow.contains("${{ secrets.GITHUB_TOKEN }}"));
    // A GitHub repository gets no GitLab files, and git ignores the release folder.
    assert!(!repo.path().join(".gitlab").exists());
    assert!(!repo.path().join(".gitlab-ci.yml").exists());
    let gitignore = std::fs::read_to_string(repo.path().join(".gitignore")).unwrap();
    // (the example's own .gitignore already has `out/`: not added twice)
    assert_eq!(
        gitignore
            .lines()
            .filter(|l| l.trim_matches('/') == "out")
            .count(),
        1,
        "{gitignore}"
    );
    // Every generated YAML file is YAML, and the configuration is one capkg accepts.
    let file = ".github/workflows/capkg-release.yaml";
    let parsed = capkg::yaml::parse_str(
        std::sync::Arc::new(capkg::yaml::Source::new(file, workflow)),
        capkg::yaml::Limits::default(),
    );
    assert!(parsed.errors.is_empty(), "{file}: {:?}", parsed.errors);
    crate::common::load_written_config(&repo.path().join("capkg.yaml"));
}

#[test]
fn existing_files_are_kept_unless_forced() {
    let repo = repository();
    std::fs::write(repo.path().join("capkg.yaml"), "# mine\n").unwrap();
    std::fs::write(repo.path().join(".gitlab-ci.yml"), "stages: [build]\n").unwrap();
    // A GitLab remote this time: the job is written, and the existing pipeline kept.
    std::fs::write(
        repo.path().join(".git/config"),
        "[remote \"origin\"]\n\turl = https://gitlab.com/acme/cluster-api-provider-example.git\n",
    )
    .unwrap();
    let output = init(repo.path(), &[]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("kept capkg.yaml"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap(),
        "# mine\n"
    );
    // An existing pipeline is never touched; the job is written beside it to include.
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".gitlab-ci.yml")).unwrap(),
        "stages: [build]\n"
    );
    assert!(
        repo.path()
            .join(".gitlab/capkg-release.gitlab-ci.yml")
            .is_file()
    );

    let output = init(repo.path(), &["--force", "--provider", "other"]);
    assert!(output.status.success());
    let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
    assert!(config.contains("  name: other\n"), "{config}");
    assert_eq!(
        std::fs::read_to_string(repo.path().join(".gitlab-ci.yml")).unwrap(),
        "stages: [build]\n"
    );
}

#[test]
fn an_empty_repository_gets_a_commented_starting_point() {
    let dir = tempfile::tempdir().unwrap();
    let output = init(dir.path(), &["--type", "bootstrap"]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not found: components"), "{stderr}");
    let config = std::fs::read_to_string(dir.path().join("capkg.yaml")).unwrap();
    assert!(config.contains("  type: bootstrap\n"));
    assert!(config.contains("  name: \"TODO: "), "{config}");
    assert!(config.contains("# templates:\n"));
    // Nothing to publish to is still a configuration capkg reads.
    capkg::config::Config::load(&dir.path().join("capkg.yaml")).unwrap();
}
