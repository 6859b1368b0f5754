//! The end-to-end walk on trimmed copies of real provider repositories
//! (`testdata/repos/`): `capkg init`, then the edits a maintainer makes to the written
//! `capkg.yaml` (image names, waivers with their reasons, a local target), then `capkg release`
//! publishes every provider with its controllers' images at the release tag, `capkg verify`
//! passes on every clusterctl URL and a second release changes nothing. Cluster API's providers
//! are also released to the fake GitHub server as one release.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::init_repos::checkout;
use crate::publish_fakes::capkg;
use crate::publish_fakes::github::{self, FakeGitHub};
use crate::release_common::{clean_capkg, json, stderr, stdout};

const VERSION: &str = "v1.2.3";

/// One repository and what its maintainer changes in the `capkg.yaml` init wrote.
struct Repository {
    name: &'static str,
    remote: &'static str,
    /// `(what init wrote, what the maintainer writes instead)`, each found exactly once.
    edits: &'static [(&'static str, &'static str)],
    /// The `lint:` section the maintainer adds (empty when nothing is waived).
    lint: &'static str,
    /// The labels released, in `providers:` order.
    labels: &'static [&'static str],
    /// Findings the waivers accept (shown as waived, never hidden).
    waived: u64,
}

/// Cluster API releases core, kubeadm bootstrap, kubeadm control plane and the Docker provider
/// (`release-manifests` and `release-manifests-dev` in its Makefile). The test extension under
/// `test/extension` is built only by the e2e suite: it is not a release artefact, so the
/// maintainer drops it and its image entry (an entry matching no image is an error).
const CLUSTER_API_EDITS: &[(&str, &str)] = &[
    (
        "  - name: test-extension
    type: runtime-extension
    components:
      - suffix: development
        command: [kubectl, kustomize, test/extension/config/default]
",
        "  # test/extension is the e2e suite's runtime extension, never released: not listed.
",
    ),
    (
        "  - name: gcr.io/k8s-staging-cluster-api/test-extension  # test/extension/config/default/manager_image_patch.yaml
    newTag: \"{version}\"
    pullPolicy: IfNotPresent
",
        "",
    ),
];

/// The Docker provider's DevMachinePool CRDs carry the `cluster.x-k8s.io/v1beta1: v1beta1`
/// label while serving only v1beta2, as upstream ships them: a defect of the development
/// provider that upstream releases anyway, so the maintainer waives it for that file.
const CLUSTER_API_LINT: &str = "
lint:
  allow:
    - rule: crd/contract-label-versions
      files: [\"infrastructure-components-development.yaml\"]
      reason: >-
        upstream's DevMachinePool CRDs keep the v1beta1 contract label while serving only
        v1beta2; the Docker provider is a development provider released as it is
";

/// CAPA's two ClusterClass templates define their ClusterClass inside the template instead of
/// shipping `clusterclass-<class>.yaml`: `clusterctl generate cluster` cannot fetch the class,
/// users apply these flavours directly, as CAPA's documentation says.
const AWS_LINT: &str = "
lint:
  allow:
    - rule: templates/clusterclass-file
      files:
        - cluster-template-simple-clusterclass.yaml
        - cluster-template-multitenancy-clusterclass.yaml
      reason: >-
        these flavours carry their ClusterClass inside the template and are applied directly,
        as CAPA documents them; upstream ships no clusterclass-<class>.yaml for them
";

const REPOSITORIES: [Repository; 4] = [
    Repository {
        name: "cluster-api",
        remote: "https://github.com/kubernetes-sigs/cluster-api.git",
        edits: CLUSTER_API_EDITS,
        lint: CLUSTER_API_LINT,
        labels: &[
            "cluster-api",
            "bootstrap-kubeadm",
            "control-plane-kubeadm",
            "infrastructure-docker",
        ],
        waived: 2,
    },
    Repository {
        name: "cluster-api-provider-aws",
        remote: "git@github.com:kubernetes-sigs/cluster-api-provider-aws.git",
        edits: &[],
        lint: AWS_LINT,
        labels: &["infrastructure-aws"],
        waived: 2,
    },
    Repository {
        name: "cluster-api-provider-vsphere",
        remote: "https://github.com/kubernetes-sigs/cluster-api-provider-vsphere",
        edits: &[],
        lint: "",
        labels: &["infrastructure-vsphere"],
        waived: 0,
    },
    Repository {
        // init proposes no `newName`: metal3 pushes its release images to quay.io under the
        // development name, so the maintainer keeps it.
        name: "cluster-api-provider-metal3",
        remote: "https://github.com/metal3-io/cluster-api-provider-metal3.git",
        edits: &[],
        lint: "",
        labels: &["infrastructure-metal3"],
        waived: 0,
    },
];

fn assert_exit(output: &Output, code: i32, what: &str) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{what}\nstdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
}

/// `capkg init` in the copy, then the maintainer's edits and `targets:` replaced by `targets`.
fn init_and_edit(repository: &Repository, root: &Path, targets: &str) {
    let output = clean_capkg()
        .arg("init")
        .current_dir(root)
        .output()
        .unwrap();
    assert_exit(&output, 0, repository.name);
    let path = root.join("capkg.yaml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in repository.edits {
        assert_eq!(
            text.matches(from).count(),
            1,
            "{}: {from:?} in\n{text}",
            repository.name
        );
        text = text.replacen(from, to, 1);
    }
    // init found everything in these repositories: no `"TODO: ..."` placeholder to fill.
    assert!(!text.contains("\"TODO:"), "{}: {text}", repository.name);
    let (head, _) = text
        .split_once("\ntargets:")
        .unwrap_or_else(|| panic!("{}: no targets: in\n{text}", repository.name));
    std::fs::write(
        &path,
        format!("{head}{}\ntargets:\n{targets}", repository.lint),
    )
    .unwrap();
}

fn release(root: &Path, extra: &[&str]) -> Output {
    clean_capkg()
        .args(["release", "--version", VERSION, "--format", "json"])
        .args(extra)
        .current_dir(root)
        .output()
        .unwrap()
}

/// The images of every container of every Deployment (the provider's own controllers).
fn deployment_images(components: &str) -> Vec<String> {
    components
        .split("\n---\n")
        .filter(|document| document.lines().any(|line| line == "kind: Deployment"))
        .flat_map(|document| {
            document.lines().filter_map(|line| {
                let line = line.trim_start().trim_start_matches("- ");
                line.strip_prefix("image: ")
                    .map(|image| image.trim_matches('"').to_string())
            })
        })
        .collect()
}

/// The clusterctl URLs the release reported, per provider label, for its only target.
fn reported_urls(outcome: &Value) -> Vec<(String, String)> {
    outcome["targets"][0]["providers"]
        .as_array()
        .unwrap_or_else(|| panic!("no providers in {outcome}"))
        .iter()
        .map(|p| {
            (
                p["label"].as_str().unwrap_or_default().to_string(),
                p["clusterctl_url"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn every_repository_releases_to_a_local_repository_and_verifies() {
    crate::common::require_kubectl();
    for repository in &REPOSITORIES {
        let dir = checkout(repository.name, Some(repository.remote));
        let root = dir.path().join(repository.name);
        let published = dir.path().join("clusterctl-repository");
        init_and_edit(
            repository,
            &root,
            &format!("  local:\n    repository: {}\n", published.display()),
        );

        let output = release(&root, &["--target", "local"]);
        assert_exit(&output, 0, repository.name);
        let outcome = json(&output);
        assert_eq!(outcome["status"], "published", "{}", repository.name);
        assert_eq!(outcome["lint"]["errors"], 0, "{}", repository.name);
        assert_eq!(
            outcome["lint"]["waived"], repository.waived,
            "{}",
            repository.name
        );
        let urls = reported_urls(&outcome);
        let labels: Vec<&str> = urls.iter().map(|(label, _)| label.as_str()).collect();
        assert_eq!(labels, repository.labels, "{}", repository.name);

        let mut folders: Vec<String> = std::fs::read_dir(&published)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        folders.sort();
        let mut expected_folders: Vec<&str> = repository.labels.to_vec();
        expected_folders.sort_unstable();
        assert_eq!(folders, expected_folders, "{}", repository.name);

        for (label, url) in &urls {
            let folder = published.join(label).join(VERSION);
            let path = url
                .strip_prefix("file://")
                .unwrap_or_else(|| panic!("{label}: {url}"));
            assert!(
                Path::new(path).starts_with(&folder),
                "{label}: {url} outside {}",
                folder.display()
            );
            // Every components file of the provider (vSphere has a supervisor flavour too):
            // its controllers run the release's images, and clusterctl's reading verifies.
            let components_files: Vec<_> = std::fs::read_dir(&folder)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.contains("-components"))
                })
                .collect();
            assert!(
                components_files.iter().any(|p| p == Path::new(path)),
                "{label}: {url} not among {components_files:?}"
            );
            for file in &components_files {
                let text = std::fs::read_to_string(file).unwrap();
                let images = deployment_images(&text);
                assert!(!images.is_empty(), "{}: no Deployment", file.display());
                for image in &images {
                    assert!(
                        image.ends_with(&format!(":{VERSION}")),
                        "{}: {image} is not at the release tag",
                        file.display()
                    );
                }
                // Run in the repository, as its maintainer does: verify applies the
                // repository's `lint: allow:` waivers, as release did.
                let verified = capkg()
                    .args(["verify", &format!("file://{}", file.display())])
                    .current_dir(&root)
                    .output()
                    .unwrap();
                assert_exit(&verified, 0, &file.display().to_string());
            }
        }

        let again = release(&root, &["--target", "local"]);
        assert_exit(&again, 0, repository.name);
        assert_eq!(json(&again)["status"], "unchanged", "{}", repository.name);
    }
}

#[test]
fn cluster_api_is_one_github_release_with_every_providers_files() {
    crate::common::require_kubectl();
    let fake = FakeGitHub::start();
    let repository = &REPOSITORIES[0];
    let dir = checkout(repository.name, Some(repository.remote));
    let root = dir.path().join(repository.name);
    init_and_edit(repository, &root, "  github:\n    repo: o/r\n");
    let run = || {
        clean_capkg()
            .args(["release", "--version", VERSION, "--format", "json"])
            .args(["--target", "github"])
            .current_dir(&root)
            .env("GITHUB_API_URL", &fake.api)
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap()
    };
    let output = run();
    assert_exit(&output, 0, "first release");
    let outcome = json(&output);
    assert_eq!(outcome["status"], "published");

    let releases = fake.release(VERSION);
    assert_eq!(releases.len(), 1, "one release for the tag");
    let mut names: Vec<&str> = releases[0].assets.iter().map(|a| a.name.as_str()).collect();
    names.sort_unstable();
    for file in [
        "core-components.yaml",
        "bootstrap-components.yaml",
        "control-plane-components.yaml",
        "infrastructure-components-development.yaml",
        "metadata.yaml",
    ] {
        assert!(names.contains(&file), "{file} in {names:?}");
    }
    assert!(
        names.iter().any(|n| n.starts_with("cluster-template")),
        "{names:?}"
    );
    assert_eq!(
        names.iter().filter(|n| **n == "checksums.txt").count(),
        1,
        "{names:?}"
    );

    let urls = reported_urls(&outcome);
    let labels: Vec<&str> = urls.iter().map(|(label, _)| label.as_str()).collect();
    assert_eq!(labels, repository.labels);
    for (label, url) in &urls {
        assert!(
            url.starts_with(&format!("https://github.com/o/r/releases/{VERSION}/")),
            "{label}: {url}"
        );
        let verified = capkg()
            .args(["verify", url, "--api-url", &fake.api])
            .current_dir(&root)
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap();
        assert_exit(&verified, 0, url);
    }

    let writes = fake.mutations();
    let output = run();
    assert_exit(&output, 0, "second release");
    assert_eq!(json(&output)["status"], "unchanged");
    assert_eq!(
        fake.mutations(),
        writes,
        "a second release must change nothing"
    );
}
