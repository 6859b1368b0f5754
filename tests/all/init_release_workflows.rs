//! `capkg init` on repositories whose release process is more than a tag push: a workflow that
//! pushes its own tag (Cluster API, CAPZ), drafts, images built beside the release, image tags
//! from docker/metadata-action and goreleaser, registries from the release workflow's `env:`,
//! metadata.yaml elsewhere or made at release time, templates in a wider copied glob, and
//! providers only clusterctl's built-in list names. Real workflows are under testdata/init/ and
//! testdata/repos/ (their SOURCE says where from); the small ones written here say what they
//! stand for.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A checkout at `dir/name` with a GitHub remote `owner/name`, holding `from` (a folder of
/// testdata) or the example provider.
fn checkout(owner_name: &str, from: Option<&Path>) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let name = owner_name.rsplit('/').next().unwrap();
    let root = dir.path().join(name);
    std::fs::create_dir_all(&root).unwrap();
    match from {
        Some(from) => copy_dir(from, &root),
        None => {
            crate::common::copy_example_provider(&root);
            std::fs::remove_file(root.join("capkg.yaml")).unwrap();
        }
    }
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(
        root.join(".git/config"),
        format!("[remote \"origin\"]\n\turl = https://github.com/{owner_name}.git\n"),
    )
    .unwrap();
    (dir, root)
}

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn read(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// Runs `capkg init` at `root`; its stderr.
fn init(root: &Path) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .arg("init")
        .arg(root)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{stderr}");
    stderr
}

const CALLED: &str = ".github/workflows/capkg-release.yaml";
const SNIPPET: &str = ".github/capkg-release-call.yaml";
const PROMOTE: &str = ".github/workflows/capkg-promote.yaml";

/// The `args:` line of capkg's step in a generated workflow.
fn args(workflow: &str) -> &str {
    workflow
        .lines()
        .find_map(|l| l.trim().strip_prefix("args: "))
        .unwrap_or_else(|| panic!("no args in\n{workflow}"))
}

/// The maintainer's workflow with the proposed job pasted at the end of its `jobs:`, parsed.
fn pasted(workflow: &str, snippet: &str) -> capkg::yaml::Node {
    let text = format!("{workflow}{snippet}");
    let file = capkg::yaml::parse_str(
        std::sync::Arc::new(capkg::yaml::Source::new("pasted.yaml", text.clone())),
        capkg::yaml::Limits::default(),
    );
    assert!(file.errors.is_empty(), "{:?}\n{text}", file.errors);
    file.documents
        .into_iter()
        .find_map(|d| d.root)
        .expect("a document")
}

#[test]
fn cluster_api_gets_a_job_for_the_workflow_that_pushes_its_tag_not_a_workflow_on_tags() {
    let (_dir, root) = checkout(
        "kubernetes-sigs/cluster-api",
        Some(&testdata().join("repos/cluster-api")),
    );
    let theirs = read(&root, ".github/workflows/release.yaml");
    let report = init(&root);
    assert!(
        report.contains(
            "note: .github/workflows/release.yaml pushes the release tag itself (line 76): a tag pushed with a workflow's token starts no other workflow"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "publishes the release (softprops/action-gh-release, line 116): retire that step"
        ),
        "{report}"
    );
    assert!(
        report.contains("wrote .github/capkg-release-call.yaml"),
        "{report}"
    );

    // No workflow on tags (it would never run): a reusable one, called with the tag.
    let called = read(&root, CALLED);
    assert!(
        called.contains("on:\n  workflow_call:\n    inputs:\n      version:\n"),
        "{called}"
    );
    assert!(!called.contains("tags:"), "{called}");
    assert!(
        called.contains("          ref: ${{ inputs.version }}"),
        "{called}"
    );
    // Cluster API drafts: capkg drafts too, and promotes by hand later.
    assert_eq!(
        args(&called),
        "release --format github --version ${{ inputs.version }} --draft"
    );
    let promote = read(&root, PROMOTE);
    assert!(promote.contains("on:\n  workflow_dispatch:\n"), "{promote}");
    assert_eq!(
        args(&promote),
        "promote --format github --version ${{ inputs.version }}"
    );
    assert!(
        promote.contains("persist-credentials: false") && promote.contains("permissions: {}\n")
    );

    // The job to paste: after the tag job, with its output; the maintainer's file untouched.
    let snippet = read(&root, SNIPPET);
    assert!(
        snippet.contains(
            "\n  capkg-release:\n    name: capkg release\n    needs: [push_release_tags]\n    permissions:\n      contents: write"
        ),
        "{snippet}"
    );
    assert!(snippet.contains("    uses: ./.github/workflows/capkg-release.yaml\n"));
    assert!(
        snippet.contains("      version: ${{ needs.push_release_tags.outputs.release_tag }}\n"),
        "{snippet}"
    );
    assert_eq!(read(&root, ".github/workflows/release.yaml"), theirs);
    let workflow = pasted(&theirs, &snippet);
    let jobs = workflow.get("jobs").and_then(|j| j.as_mapping()).unwrap();
    let ids: Vec<&str> = jobs.iter().map(|(id, _, _)| id).collect();
    assert_eq!(ids, ["push_release_tags", "release", "capkg-release"]);
    let job = jobs.get("capkg-release").unwrap();
    assert_eq!(
        job.get("uses").and_then(|u| u.as_str()),
        Some("./.github/workflows/capkg-release.yaml")
    );
}

#[test]
fn capz_gets_the_same_with_its_own_job_names() {
    let (_dir, root) = checkout("kubernetes-sigs/cluster-api-provider-azure", None);
    copy_dir(&testdata().join("init/capz"), &root);
    let report = init(&root);
    let snippet = read(&root, SNIPPET);
    assert!(
        snippet.contains("    needs: [push_release_tag]\n"),
        "{snippet}"
    );
    assert!(
        snippet.contains("version: ${{ needs.push_release_tag.outputs.release_tag }}"),
        "{snippet}"
    );
    assert!(args(&read(&root, CALLED)).ends_with(" --draft"));
    assert!(root.join(PROMOTE).is_file(), "{report}");
    assert!(
        report.contains("(.github/workflows/release.yaml:123)"),
        "{report}"
    );
}

/// A workflow on `workflow_dispatch` that tags, then builds and pushes images in a job of its
/// own: capkg's job needs both, publishes at once (no draft) and does not wait.
const TAGS_THEN_BUILDS: &str = "name: release\non:\n  workflow_dispatch:\n    inputs:\n      version:\n        required: true\npermissions: {}\njobs:\n  tag:\n    runs-on: ubuntu-latest\n    outputs:\n      version: ${{ inputs.version }}\n    steps:\n      - run: |\n          git tag \"$VERSION\"\n          git push origin \"$VERSION\"\n        env:\n          VERSION: ${{ inputs.version }}\n  images:\n    needs: tag\n    runs-on: ubuntu-latest\n    steps:\n      - uses: docker/build-push-action@v6\n";

#[test]
fn an_image_job_of_the_tagging_workflow_is_needed_and_not_waited_for() {
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    write(&root, ".github/workflows/release.yaml", TAGS_THEN_BUILDS);
    init(&root);
    let snippet = read(&root, SNIPPET);
    assert!(snippet.contains("    needs: [tag, images]\n"), "{snippet}");
    assert!(
        snippet.contains("version: ${{ needs.tag.outputs.version }}"),
        "{snippet}"
    );
    assert_eq!(
        args(&read(&root, CALLED)),
        "release --format github --version ${{ inputs.version }}"
    );
    assert!(!root.join(PROMOTE).exists());
}

#[test]
fn images_built_elsewhere_are_waited_for() {
    // The tagging workflow builds no image and makes no draft: Prow or another CI builds them
    // once the tag exists.
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    let tags_only = TAGS_THEN_BUILDS.split("  images:\n").next().unwrap();
    write(&root, ".github/workflows/release.yaml", tags_only);
    let report = init(&root);
    assert!(
        args(&read(&root, CALLED)).ends_with(" --wait-for-images 30m"),
        "{report}"
    );
    assert!(read(&root, SNIPPET).contains("    needs: [tag]\n"));

    // On tags, an image build in another workflow on the same tag runs beside capkg's.
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    write(
        &root,
        ".github/workflows/images.yaml",
        "on:\n  push:\n    tags: ['v*']\njobs:\n  image:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make docker-push\n",
    );
    let report = init(&root);
    let workflow = read(&root, CALLED);
    assert!(workflow.contains("    tags:\n      - \"v*\""), "{workflow}");
    assert_eq!(
        args(&workflow),
        "release --format github --wait-for-images 30m"
    );
    assert!(
        report.contains("images are built beside the release (.github/workflows/images.yaml:8, make docker-push, on the same tag)"),
        "{report}"
    );
    assert!(!root.join(SNIPPET).exists());
}

#[test]
fn a_tag_triggered_release_that_drafts_gets_draft_then_promote() {
    // Proxmox: `softprops/action-gh-release` with `draft: true` on tags.
    let (_dir, root) = checkout(
        "ionos-cloud/cluster-api-provider-proxmox",
        Some(&testdata().join("repos/cluster-api-provider-proxmox")),
    );
    let report = init(&root);
    let workflow = read(&root, CALLED);
    assert!(workflow.contains("    tags:\n      - \"v*\""), "{workflow}");
    assert_eq!(args(&workflow), "release --format github --draft");
    assert!(root.join(PROMOTE).is_file());
    assert!(
        report.contains(
            "the release is published as a draft first (.github/workflows/release.yml:36)"
        ),
        "{report}"
    );
}

/// A workflow on tags tagging images with docker/metadata-action.
fn metadata_action(tags: &str) -> String {
    format!(
        "on:\n  push:\n    tags: ['v*']\njobs:\n  image:\n    runs-on: ubuntu-latest\n    steps:\n      - id: meta\n        uses: docker/metadata-action@v5\n        with:\n          images: ghcr.io/acme/manager\n          tags: |\n{tags}      - uses: docker/build-push-action@v6\n"
    )
}

#[test]
fn docker_metadata_action_semver_tags_are_semver() {
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    write(
        &root,
        ".github/workflows/images.yaml",
        &metadata_action(
            "            type=semver,pattern={{version}}\n            type=semver,pattern={{major}}.{{minor}}\n",
        ),
    );
    let report = init(&root);
    assert!(
        read(&root, "capkg.yaml").contains("    newTag: \"{semver}\"\n"),
        "{report}"
    );
    assert!(
        report.contains("tagged without `v` (.github/workflows/images.yaml:13)"),
        "{report}"
    );

    // Also tagged with the git tag itself: `{version}` exists.
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    write(
        &root,
        ".github/workflows/images.yaml",
        &metadata_action(
            "            type=semver,pattern={{version}}\n            type=ref,event=tag\n",
        ),
    );
    init(&root);
    assert!(read(&root, "capkg.yaml").contains("    newTag: \"{version}\"\n"));
}

#[test]
fn goreleaser_images_and_tags_are_read() {
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    write(
        &root,
        ".goreleaser.yaml",
        "dockers:\n  - image_templates:\n      - \"ghcr.io/acme/manager:{{ .Version }}\"\nrelease:\n  disable: true\n",
    );
    write(
        &root,
        ".github/workflows/release.yaml",
        "on:\n  push:\n    tags: ['v*']\njobs:\n  release:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: goreleaser/goreleaser-action@v6\n",
    );
    let report = init(&root);
    assert!(
        read(&root, "capkg.yaml").contains("    newTag: \"{semver}\"\n"),
        "{report}"
    );
    assert!(
        report.contains("tagged without `v` (.goreleaser.yaml:3 (goreleaser's {{ .Version }}))"),
        "{report}"
    );
    assert!(
        !report.contains("also creates the GitHub release"),
        "{report}"
    );
}

#[test]
fn a_runtime_extension_released_with_goreleaser_is_named_from_clusterctls_list() {
    // CAREN: no kustomization, a repository name following no convention, a goreleaser
    // release writing its components and metadata.yaml in `before:` hooks.
    let (_dir, root) = checkout(
        "nutanix-cloud-native/cluster-api-runtime-extensions-nutanix",
        Some(&testdata().join("init/caren")),
    );
    let report = init(&root);
    let config = read(&root, "capkg.yaml");
    assert!(
        config.contains("provider:\n  # clusterctl's provider name and type; the manifest label is {type}-{name} (`runtime-extension-nutanix`).\n  name: nutanix\n  type: runtime-extension\n"),
        "{config}\n{report}"
    );
    for expected in [
        "note: goreleaser's `before:` hook writes release-metadata.yaml at release time (.goreleaser.yml:55) and publishes it as metadata.yaml",
        "note: goreleaser's `before:` hook writes runtime-extensions-components.yaml at release time (.goreleaser.yml:39)",
        "note: goreleaser (.goreleaser.yml) also creates the GitHub release of the tag",
    ] {
        assert!(report.contains(expected), "{expected:?} in\n{report}");
    }
    // release-please's Go module tags (`api/…`, `common/…`) are not the release tag.
    assert!(
        !report.contains("pushes the release tag itself"),
        "{report}"
    );
    assert!(!root.join(SNIPPET).exists());
}

#[test]
fn the_release_workflows_env_beats_the_makefiles_default_registry() {
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    write(
        &root,
        "Makefile",
        "REGISTRY ?= localhost:5000\nIMG ?= $(REGISTRY)/manager\nrelease:\n\t$(MAKE) set-manifest-image MANIFEST_IMG=$(IMG) MANIFEST_TAG=$(RELEASE_TAG)\n",
    );
    write(
        &root,
        ".github/workflows/release.yaml",
        "on:\n  push:\n    tags: ['v*']\nenv:\n  REGISTRY: ghcr.io/${{ github.repository_owner }}\njobs:\n  release:\n    runs-on: ubuntu-latest\n    steps:\n      - run: make release\n",
    );
    let report = init(&root);
    assert!(
        read(&root, "capkg.yaml").contains("    newName: ghcr.io/acme/manager\n"),
        "{report}"
    );
    assert!(
        report.contains("found: REGISTRY=ghcr.io/acme from the release workflow's env (.github/workflows/release.yaml:5), over the Makefile's default (Makefile:1)"),
        "{report}"
    );
}

#[test]
fn metadata_in_config_or_made_by_a_make_step_is_found() {
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    std::fs::create_dir_all(root.join("config")).unwrap();
    std::fs::rename(
        root.join("metadata.yaml"),
        root.join("config/metadata.yaml"),
    )
    .unwrap();
    init(&root);
    assert!(read(&root, "capkg.yaml").contains("\nmetadata: config/metadata.yaml\n"));

    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    std::fs::remove_file(root.join("metadata.yaml")).unwrap();
    write(
        &root,
        "Makefile",
        "release: release-metadata\nrelease-metadata:\n\thack/metadata.sh > _build/metadata.yaml\n",
    );
    let report = init(&root);
    assert!(
        read(&root, "capkg.yaml").contains("\nmetadata: _build/metadata.yaml\n"),
        "{report}"
    );
    assert!(
        report.contains("found: metadata: _build/metadata.yaml, written at release time by `make release-metadata` (Makefile:3)"),
        "{report}"
    );
    let workflow = read(&root, CALLED);
    assert!(
        workflow.contains("          MAKE_TARGET: release-metadata\n"),
        "{workflow}"
    );
}

#[test]
fn clusterctl_templates_in_a_wider_copied_glob_are_proposed() {
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    write(&root, "templates/flavors.md", "not a template\n");
    write(
        &root,
        "Makefile",
        "RELEASE_DIR := out\nrelease: release-templates\nrelease-templates:\n\tcp templates/*.yaml $(RELEASE_DIR)/\n",
    );
    let report = init(&root);
    let config = read(&root, "capkg.yaml");
    assert!(
        config.contains(
            "templates:\n  - templates/cluster-template*.yaml\n  - templates/clusterclass-*.yaml\n"
        ),
        "{config}\n{report}"
    );
}

#[test]
fn a_kustomize_input_a_make_step_writes_runs_that_step_first() {
    // CAPZ-like: config/default names an image patch that `make` writes before the build.
    let (_dir, root) = checkout("acme/cluster-api-provider-example", None);
    let kustomization = read(&root, "config/default/kustomization.yaml");
    write(
        &root,
        "config/default/kustomization.yaml",
        &format!("{kustomization}patches:\n- path: manager_image_patch.yaml\n"),
    );
    write(
        &root,
        "Makefile",
        "RELEASE_DIR := out\nrelease: release-manifests\nrelease-manifests: config/default/manager_image_patch.yaml\n\tkustomize build config/default > $(RELEASE_DIR)/infrastructure-components.yaml\nconfig/default/manager_image_patch.yaml:\n\thack/image-patch.sh > config/default/manager_image_patch.yaml\n",
    );
    let report = init(&root);
    assert!(
        report.contains("note: components: config/default/kustomization.yaml lists config/default/manager_image_patch.yaml, which is not in the repository: `make config/default/manager_image_patch.yaml` writes it (Makefile:6)"),
        "{report}"
    );
    let workflow = read(&root, CALLED);
    assert!(
        workflow.contains("          MAKE_TARGET: config/default/manager_image_patch.yaml\n"),
        "{workflow}"
    );

    // Nothing writes it: said, since kustomize refuses the build.
    std::fs::write(root.join("Makefile"), "").unwrap();
    std::fs::remove_file(root.join("capkg.yaml")).unwrap();
    let report = init(&root);
    assert!(
        report.contains("not found: components: config/default/kustomization.yaml lists config/default/manager_image_patch.yaml, which is not in the repository and no make target writes"),
        "{report}"
    );
}
