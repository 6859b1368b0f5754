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
    // The release job may sign its provenance statement with the job's OIDC identity.
    assert!(workflow.contains("      id-token: write # "), "{workflow}");
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
    let job =
        std::fs::read_to_string(repo.path().join(".gitlab/capkg-release.gitlab-ci.yml")).unwrap();
    // The job's OIDC identity, for signing the provenance statement (capkg reads it there).
    assert!(
        job.contains("  id_tokens:\n    SIGSTORE_ID_TOKEN:\n      aud: sigstore\n"),
        "{job}"
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

// Hostile repositories: init reads and writes like a careful tool (issue 30).

#[cfg(unix)] // the umask of a Unix shell
/// `capkg init DIR` in a shell with `umask` (and on Linux at most 4 GB of address space), stopped
/// after a minute (a hang fails the test), with `CAPKG_TEST_SECRET` in its environment.
fn init_bounded(dir: &Path, umask: &str, extra: &[&str]) -> std::process::Output {
    // macOS refuses an address-space limit (`ulimit -v`); the minute still bounds a read without
    // end there.
    let script = format!("umask {umask}; ulimit -v 4000000 2>/dev/null; exec \"$0\" init \"$@\"");
    let output = assert_cmd::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_capkg"))
        .arg(dir)
        .args(extra)
        .env("CAPKG_TEST_SECRET", "s3cr3t-from-the-environment")
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(output.status.code().is_some(), "init hung");
    output
}

#[cfg(unix)]
fn files_containing(root: &Path, needle: &str) -> Vec<String> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            std::fs::read(e.path())
                .map(|bytes| String::from_utf8_lossy(&bytes).contains(needle))
                .unwrap_or(false)
        })
        .map(|e| e.path().display().to_string())
        .collect()
}

#[cfg(unix)]
#[test]
fn ci_folders_linked_out_of_the_repository_are_refused_naming_the_link() {
    for (folder, remote) in [
        (
            ".github",
            "https://github.com/acme/cluster-api-provider-example.git",
        ),
        (
            ".gitlab",
            "https://gitlab.com/acme/cluster-api-provider-example.git",
        ),
        (
            ".github/workflows",
            "https://github.com/acme/cluster-api-provider-example.git",
        ),
    ] {
        let repo = repository();
        std::fs::write(
            repo.path().join(".git/config"),
            format!("[remote \"origin\"]\n\turl = {remote}\n"),
        )
        .unwrap();
        let outside = tempfile::tempdir().unwrap();
        let link = repo.path().join(folder);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(outside.path(), &link).unwrap();
        let output = init_bounded(repo.path(), "022", &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{folder}: {stderr}");
        assert!(
            stderr.contains(&format!("`{folder}`")) && stderr.contains("symbolic link"),
            "{folder}: {stderr}"
        );
        let written: Vec<_> = walkdir::WalkDir::new(outside.path())
            .min_depth(1)
            .into_iter()
            .flatten()
            .map(|e| e.path().display().to_string())
            .collect();
        assert!(written.is_empty(), "{folder}: written outside: {written:?}");
    }
}

#[cfg(unix)]
#[test]
fn a_workflow_file_linked_out_of_the_repository_is_never_written_through() {
    let repo = repository();
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim.yaml");
    std::fs::write(&victim, "mine\n").unwrap();
    std::fs::create_dir_all(repo.path().join(".github/workflows")).unwrap();
    let link = repo.path().join(".github/workflows/capkg-release.yaml");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let output = init_bounded(repo.path(), "022", &["--force"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`.github/workflows/capkg-release.yaml`")
            && stderr.contains("symbolic link"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine\n");
    assert!(link.symlink_metadata().unwrap().file_type().is_symlink());
}

#[cfg(unix)]
#[test]
fn a_linked_gitignore_is_never_read_nor_copied_into_the_repository() {
    let outside = tempfile::tempdir().unwrap();
    let netrc = outside.path().join(".netrc");
    std::fs::write(
        &netrc,
        "machine github.com login x password ghp_n3trcT0ken\n",
    )
    .unwrap();
    for (target, secret) in [
        (netrc.as_path(), "ghp_n3trcT0ken"),
        (
            Path::new("/proc/self/environ"),
            "s3cr3t-from-the-environment",
        ),
    ] {
        let repo = repository();
        let gitignore = repo.path().join(".gitignore");
        std::fs::remove_file(&gitignore).unwrap();
        std::os::unix::fs::symlink(target, &gitignore).unwrap();
        let output = init_bounded(repo.path(), "022", &[]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        assert!(
            stderr.contains("`.gitignore` is a symbolic link"),
            "{target:?}: {stderr}"
        );
        assert!(!stderr.contains(secret), "{stderr}");
        assert!(
            gitignore
                .symlink_metadata()
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(files_containing(repo.path(), secret), Vec::<String>::new());
    }
    assert_eq!(
        std::fs::read_to_string(&netrc).unwrap(),
        "machine github.com login x password ghp_n3trcT0ken\n"
    );
}

#[cfg(unix)]
#[test]
fn written_files_take_0644_under_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    for (umask, mode) in [("022", 0o644), ("027", 0o640)] {
        let repo = repository();
        std::fs::write(repo.path().join(".gitignore"), "target/\n").unwrap();
        let output = init_bounded(repo.path(), umask, &[]);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        for file in [
            "capkg.yaml",
            ".github/workflows/capkg-release.yaml",
            ".gitignore",
        ] {
            let found = std::fs::metadata(repo.path().join(file))
                .unwrap()
                .permissions()
                .mode()
                & 0o777;
            assert_eq!(found, mode, "{file} under umask {umask}: {found:o}");
        }
    }
}

#[cfg(unix)]
#[test]
fn fifos_devices_and_huge_files_are_not_read() {
    let repo = repository();
    let mkfifo = |path: &Path| {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success());
    };
    // A FIFO Makefile and a FIFO resource would block a plain read forever.
    mkfifo(&repo.path().join("Makefile"));
    std::fs::write(
        repo.path().join("config/manager/kustomization.yaml"),
        "resources:\n- manager.yaml\n- pipe.yaml\n- zero.yaml\n",
    )
    .unwrap();
    mkfifo(&repo.path().join("config/manager/pipe.yaml"));
    // A link to /dev/zero reads without end.
    std::os::unix::fs::symlink("/dev/zero", repo.path().join("config/manager/zero.yaml")).unwrap();
    // A sparse 64 MiB PROJECT file (read for the repository name when no remote names it) is
    // read no further than a size bound.
    std::fs::write(repo.path().join(".git/config"), "").unwrap();
    let project = std::fs::File::create(repo.path().join("PROJECT")).unwrap();
    project.set_len(64 * 1024 * 1024).unwrap();
    let output = init_bounded(repo.path(), "022", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for note in [
        "`Makefile` is a FIFO",
        "`config/manager/pipe.yaml` is a FIFO",
        "`config/manager/zero.yaml` (listed in config/manager/kustomization.yaml) is outside the repository",
        "`PROJECT` is larger than",
    ] {
        assert!(stderr.contains(note), "{note:?} in\n{stderr}");
    }
    // What could be read still is.
    let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
    assert!(config.contains("  name: example\n"), "{config}");
}

#[cfg(unix)]
#[test]
fn kustomizations_and_images_outside_the_repository_are_noted_not_proposed() {
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("repo");
    std::fs::create_dir_all(&root).unwrap();
    crate::common::copy_example_provider(&root);
    std::fs::remove_file(root.join("capkg.yaml")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    // Another checkout beside it, with its own manager image.
    let other = parent.path().join("other/config/manager");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("kustomization.yaml"),
        "resources: [manager.yaml]\n",
    )
    .unwrap();
    std::fs::write(
        other.join("manager.yaml"),
        "kind: Deployment\nmetadata: {name: m}\nspec:\n  template:\n    spec:\n      containers:\n      - {name: manager, image: 'evil.example/outside:v1'}\n",
    )
    .unwrap();
    std::fs::write(
        root.join("config/default/kustomization.yaml"),
        "labels:\n- pairs:\n    cluster.x-k8s.io/provider: infrastructure-example\nresources:\n- ../crd\n- ../../../other/config/manager\n",
    )
    .unwrap();
    // A linked folder holding a conventional kustomization, and a Makefile building one outside.
    std::os::unix::fs::symlink(parent.path().join("other"), root.join("linked")).unwrap();
    std::fs::create_dir_all(parent.path().join("other/config/default")).unwrap();
    std::fs::write(
        parent.path().join("other/config/default/kustomization.yaml"),
        "labels:\n- pairs:\n    cluster.x-k8s.io/provider: bootstrap-outside\nresources: [../manager]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("Makefile"),
        "release:\n\tkustomize build ../other/config/default > out/bootstrap-components.yaml\n\tcp ../other/metadata.yaml out/metadata.yaml\n",
    )
    .unwrap();
    std::fs::write(
        parent.path().join("other/metadata.yaml"),
        "kind: Metadata\n",
    )
    .unwrap();
    let output = init_bounded(&root, "022", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let config = std::fs::read_to_string(root.join("capkg.yaml")).unwrap();
    for outside in ["evil.example", "outside", "other", "linked"] {
        assert!(
            !config.contains(outside),
            "{outside:?} proposed in\n{config}"
        );
    }
    for note in [
        "`../other/config/manager` (listed in config/default/kustomization.yaml) is outside the repository",
        "`../other/config/default` (the Makefile's release builds it) is outside the repository",
        "`../other/metadata.yaml` (the Makefile's release copies it) is outside the repository",
    ] {
        assert!(stderr.contains(note), "{note:?} in\n{stderr}");
    }
}

#[test]
fn remote_credentials_and_queries_never_reach_the_output_or_capkg_yaml() {
    for (url, repo_line) in [
        (
            "https://ci:p@ss@w0rd@github.com/acme/cluster-api-provider-example.git",
            Some("    repo: acme/cluster-api-provider-example\n"),
        ),
        (
            "https://github.com/acme/cluster-api-provider-example.git?access_token=p@ss@w0rd",
            Some("    repo: acme/cluster-api-provider-example\n"),
        ),
        ("https://x:p@ss@w0rd@github.com/o/..", None),
        ("https://github.com/o/%2e%2e?p@ss@w0rd", None),
        ("git@github.com:o//r.git#p@ss@w0rd", None),
    ] {
        let repo = repository();
        std::fs::write(
            repo.path().join(".git/config"),
            format!("[remote \"origin\"]\n\turl = {url}\n"),
        )
        .unwrap();
        let output = init(repo.path(), &["--format", "json"]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{url}: {stderr}");
        let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
        for part in ["ss@w0rd", "w0rd", "p@ss", "access_token", "ci:"] {
            assert!(!stdout.contains(part), "{url}: {part} in {stdout}");
            assert!(!stderr.contains(part), "{url}: {part} in {stderr}");
            assert!(!config.contains(part), "{url}: {part} in {config}");
        }
        match repo_line {
            Some(line) => assert!(config.contains(line), "{url}: {config}"),
            None => {
                assert!(config.contains("targets: {}"), "{url}: {config}");
                assert!(!config.contains("repo: o/"), "{url}: {config}");
                assert!(stdout.contains("not a project path"), "{url}: {stdout}");
            }
        }
    }
}

#[test]
fn an_existing_release_workflow_on_version_tags_is_named_with_what_to_retire_and_keep() {
    let repo = repository();
    std::fs::create_dir_all(repo.path().join(".github/workflows")).unwrap();
    std::fs::write(
        repo.path().join(".github/workflows/release.yaml"),
        "name: release\non:\n  push:\n    tags:\n      - 'v*'\njobs:\n  release:\n    steps:\n      - uses: docker/build-push-action@v6\n      - uses: softprops/action-gh-release@v2\n",
    )
    .unwrap();
    std::fs::write(
        repo.path().join(".github/workflows/test.yaml"),
        "on:\n  pull_request:\njobs: {}\n",
    )
    .unwrap();
    let output = init(repo.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "note: existing release pipeline .github/workflows/release.yaml:4 runs on version tags: retire its release publishing (softprops/action-gh-release, line 10) once capkg releases, or the two race on the tag; keep its image build (docker/build-push-action, line 9): capkg does not build images"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("test.yaml"), "{stderr}");
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: init shows verbatim (\\\\?\\) paths")]
fn templates_come_from_the_release_not_from_samples_nor_for_a_bootstrap_provider() {
    // Another provider's samples beside the release's `templates/`.
    let repo = repository();
    std::fs::create_dir_all(repo.path().join("samples/aws")).unwrap();
    std::fs::write(
        repo.path().join("samples/aws/cluster-template-aws.yaml"),
        "kind: Cluster\n",
    )
    .unwrap();
    let output = init(repo.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
    assert!(
        config.contains(
            "templates:\n  - templates/cluster-template*.yaml\n  - templates/clusterclass-*.yaml\n"
        ),
        "{config}"
    );
    assert!(!config.contains("samples"), "{config}");
    assert!(
        stderr.contains("note: templates in `samples/aws` not proposed: outside the repository's `templates/` folder"),
        "{stderr}"
    );

    // A bootstrap provider whose release copies no templates gets none.
    let repo = repository();
    let kustomization = repo.path().join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(
        &kustomization,
        text.replace("infrastructure-example", "bootstrap-example"),
    )
    .unwrap();
    let output = init(repo.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
    assert!(config.contains("  type: bootstrap\n"), "{config}");
    assert!(config.contains("# templates:\n"), "{config}");
    assert!(
        stderr.contains("note: templates in `templates` not proposed: a bootstrap or control-plane provider's release ships templates only when it copies them"),
        "{stderr}"
    );

    // What the release copies wins over what lies around.
    let repo = repository();
    std::fs::create_dir_all(repo.path().join("release/templates")).unwrap();
    std::fs::write(
        repo.path().join("release/templates/cluster-template.yaml"),
        "kind: Cluster\n",
    )
    .unwrap();
    std::fs::write(
        repo.path().join("Makefile"),
        "RELEASE_DIR := out\nrelease:\n\tcp release/templates/* $(RELEASE_DIR)/\n",
    )
    .unwrap();
    let output = init(repo.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
    assert!(
        config.contains("templates:\n  - release/templates/cluster-template*.yaml\n\n"),
        "{config}"
    );
    assert!(
        stderr.contains("note: templates in `templates` not proposed: the Makefile's release copies its templates from elsewhere"),
        "{stderr}"
    );
}

#[test]
fn image_pins_follow_the_release_variables_with_their_evidence() {
    // The release names another image than the development one, through variables, and tags
    // it without the `v`.
    let repo = repository();
    std::fs::write(
        repo.path().join("Makefile"),
        "PROD_REGISTRY ?= registry.example.com/prod\nIMAGE_NAME ?= example-controller\n\nrelease:\n\t$(MAKE) set-manifest-image MANIFEST_IMG=$(PROD_REGISTRY)/$(IMAGE_NAME) MANIFEST_TAG=$(RELEASE_TAG:v%=%)\n",
    )
    .unwrap();
    let output = init(repo.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
    assert!(
        config.contains("  - name: registry.example.com/capi-example/manager  # config/manager/manager.yaml\n    newName: registry.example.com/prod/example-controller\n    newTag: \"{semver}\"\n"),
        "{config}"
    );
    assert!(
        stderr.contains("found: manager image registry.example.com/capi-example/manager:v0.1.0 (config/manager/manager.yaml:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("released as registry.example.com/prod/example-controller (the Makefile's release sets it, Makefile:5); tagged without `v` (Makefile:5)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("(label `infrastructure-example` in config/default/kustomization.yaml:6;"),
        "{stderr}"
    );

    // The release workflow writes the tag without `v`; the registry is only a guess, said so.
    let repo = repository();
    std::fs::write(
        repo.path().join("Makefile"),
        "PROD_REGISTRY ?= registry.example.com/prod\n",
    )
    .unwrap();
    std::fs::create_dir_all(repo.path().join(".github/workflows")).unwrap();
    std::fs::write(
        repo.path().join(".github/workflows/images.yaml"),
        "on:\n  push:\n    tags: ['v*']\njobs:\n  images:\n    steps:\n      - run: make docker-push TAG=${GITHUB_REF_NAME//v}\n",
    )
    .unwrap();
    let output = init(repo.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let config = std::fs::read_to_string(repo.path().join("capkg.yaml")).unwrap();
    assert!(
        config
            .contains("    newName: registry.example.com/prod/manager\n    newTag: \"{semver}\"\n"),
        "{config}"
    );
    assert!(
        stderr.contains("released as registry.example.com/prod/manager (a guess: PROD_REGISTRY (Makefile:1) and the image's name; check it); tagged without `v` (.github/workflows/images.yaml:7)"),
        "{stderr}"
    );
}

#[test]
fn a_development_image_name_is_said_with_what_the_release_pipeline_pushes() {
    let repo = repository();
    let manager = repo.path().join("config/manager/manager.yaml");
    let text = std::fs::read_to_string(&manager).unwrap();
    std::fs::write(
        &manager,
        text.replace(
            "registry.example.com/capi-example/manager:v0.1.0",
            "localhost:5000/manager:dev",
        ),
    )
    .unwrap();
    std::fs::create_dir_all(repo.path().join(".github/workflows")).unwrap();
    std::fs::write(
        repo.path().join(".github/workflows/release.yaml"),
        "on:\n  push:\n    tags: ['v*']\njobs:\n  images:\n    steps:\n      - uses: docker/metadata-action@v5\n        with:\n          images: ghcr.io/acme/example-manager\n",
    )
    .unwrap();
    let output = init(repo.path(), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains(
            "not found: manager image localhost:5000/manager (config/manager/manager.yaml:"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("is a development name (no registry, or a loopback one) and the Makefile's release names no other: set `newName` in its `images:` entry to the registry the release pushes to; the release pipelines push ghcr.io/acme/example-manager (.github/workflows/release.yaml:9)"),
        "{stderr}"
    );
}
