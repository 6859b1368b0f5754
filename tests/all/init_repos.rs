//! `capkg init` on trimmed copies of real provider repositories (`testdata/repos/`, each with a
//! SOURCE note): every provider with its name, type, components source and manager image, the
//! release's metadata and templates, the forge's CI files only, `.gitignore`, the repository root
//! found from a sub-folder, and `TODO` placeholders `assemble` refuses when nothing can be found.
//!
//! The written `capkg.yaml` is compared with `testdata/repos/<name>/expected-capkg.yaml`; run with
//! `CAPKG_BLESS=1` to rewrite those after a deliberate change, and review the diff.

use std::path::{Path, PathBuf};
use std::process::Output;

use assert_cmd::Command;

fn repos() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/repos")
}

/// A copy of `testdata/repos/<name>` in a temporary folder, made a git repository with `remote`
/// as `origin` (none when `None`).
pub(crate) fn checkout(name: &str, remote: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = repos().join(name);
    let to = dir.path().join(name);
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
    std::fs::remove_file(to.join("expected-capkg.yaml")).ok();
    git(&to, &["init", "-q"]);
    if let Some(remote) = remote {
        git(&to, &["remote", "add", "origin", remote]);
    }
    dir
}

fn git(dir: &Path, args: &[&str]) {
    let status = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

fn capkg(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capkg"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_REF_TYPE")
        .env_remove("GITHUB_REF_NAME")
        .env_remove("CI_COMMIT_TAG")
        .output()
        .unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// What init must find in one repository.
struct Expected {
    name: &'static str,
    remote: &'static str,
    /// Where init is run from, inside the repository.
    from: &'static str,
    /// Make targets the release workflow runs before capkg (they write git-ignored templates).
    prepare: &'static [&'static str],
    /// `label: kubectl kustomize DIR` lines it reports.
    providers: &'static [(&'static str, &'static str)],
    /// Manager images (as the manifests name them) and the name the release gives them.
    images: &'static [(&'static str, Option<&'static str>)],
}

const REPOSITORIES: [Expected; 11] = [
    Expected {
        name: "cluster-api",
        remote: "https://github.com/kubernetes-sigs/cluster-api.git",
        from: "core/config",
        prepare: &[],
        providers: &[
            ("cluster-api", "core/config/default"),
            ("bootstrap-kubeadm", "bootstrap/kubeadm/config/default"),
            (
                "control-plane-kubeadm",
                "controlplane/kubeadm/config/default",
            ),
            (
                "infrastructure-docker",
                "test/infrastructure/docker/config/default",
            ),
            (
                "runtime-extension-test-extension",
                "test/extension/config/default",
            ),
        ],
        images: &[
            (
                "gcr.io/k8s-staging-cluster-api/cluster-api-controller",
                Some("registry.k8s.io/cluster-api/cluster-api-controller"),
            ),
            (
                "gcr.io/k8s-staging-cluster-api/kubeadm-bootstrap-controller",
                Some("registry.k8s.io/cluster-api/kubeadm-bootstrap-controller"),
            ),
            (
                "gcr.io/k8s-staging-cluster-api/kubeadm-control-plane-controller",
                Some("registry.k8s.io/cluster-api/kubeadm-control-plane-controller"),
            ),
            // The release keeps Docker's development image in the staging registry.
            ("gcr.io/k8s-staging-cluster-api/capd-manager", None),
            ("gcr.io/k8s-staging-cluster-api/test-extension", None),
        ],
    },
    Expected {
        name: "cluster-api-provider-aws",
        remote: "git@github.com:kubernetes-sigs/cluster-api-provider-aws.git",
        from: "templates",
        prepare: &[],
        providers: &[("infrastructure-aws", "config/default")],
        images: &[(
            "gcr.io/k8s-staging-cluster-api-aws/cluster-api-aws-controller",
            Some("registry.k8s.io/cluster-api-aws/cluster-api-aws-controller"),
        )],
    },
    Expected {
        name: "cluster-api-provider-vsphere",
        remote: "https://github.com/kubernetes-sigs/cluster-api-provider-vsphere",
        from: "config/supervisor/crd",
        prepare: &[],
        providers: &[
            ("infrastructure-vsphere", "config/default"),
            ("infrastructure-vsphere", "config/supervisor"),
        ],
        images: &[(
            "gcr.io/k8s-staging-capi-vsphere/cluster-api-vsphere-controller",
            Some("registry.k8s.io/cluster-api-vsphere/cluster-api-vsphere-controller"),
        )],
    },
    Expected {
        name: "cluster-api-provider-metal3",
        remote: "https://github.com/metal3-io/cluster-api-provider-metal3.git",
        from: ".",
        prepare: &[],
        providers: &[("infrastructure-metal3", "config/default")],
        images: &[("quay.io/metal3-io/cluster-api-provider-metal3", None)],
    },
    Expected {
        // The source's bare label `helm`; pull policy rewritten; samples/ are not templates.
        name: "cluster-api-addon-provider-helm",
        remote: "https://github.com/kubernetes-sigs/cluster-api-addon-provider-helm.git",
        from: "config",
        prepare: &[],
        providers: &[("addon-helm", "config/default")],
        images: &[(
            "gcr.io/k8s-staging-cluster-api-helm/cluster-api-helm-controller",
            Some("registry.k8s.io/cluster-api-helm/cluster-api-helm-controller"),
        )],
    },
    Expected {
        name: "cluster-api-provider-gcp",
        remote: "https://github.com/kubernetes-sigs/cluster-api-provider-gcp.git",
        from: ".",
        prepare: &[],
        providers: &[("infrastructure-gcp", "config/default")],
        images: &[(
            "gcr.io/k8s-staging-cluster-api-gcp/cluster-api-gcp-controller",
            Some("registry.k8s.io/cluster-api-gcp/cluster-api-gcp-controller"),
        )],
    },
    Expected {
        // The image's name changes at release; templates built into git-ignored generated/.
        name: "cluster-api-provider-hetzner",
        remote: "https://github.com/syself/cluster-api-provider-hetzner.git",
        from: "templates",
        prepare: &["cluster-templates"],
        providers: &[("infrastructure-hetzner", "config/default")],
        images: &[("ghcr.io/syself/caph-staging", Some("ghcr.io/syself/caph"))],
    },
    Expected {
        // clusterctl's name `linode-linode`, not the label's `linode`; script-made templates.
        name: "cluster-api-provider-linode",
        remote: "https://github.com/linode/cluster-api-provider-linode.git",
        from: ".",
        prepare: &["generate-flavors"],
        providers: &[("infrastructure-linode-linode", "config/default")],
        images: &[("docker.io/linode/cluster-api-provider-linode", None)],
    },
    Expected {
        // The release builds a generated kustomization over config/default.
        name: "cluster-api-provider-openstack",
        remote: "https://github.com/kubernetes-sigs/cluster-api-provider-openstack.git",
        from: ".",
        prepare: &[],
        providers: &[("infrastructure-openstack", "config/default")],
        images: &[(
            "gcr.io/k8s-staging-capi-openstack/capi-openstack-controller",
            Some("registry.k8s.io/capi-openstack/capi-openstack-controller"),
        )],
    },
    Expected {
        // `kustomize edit set image` keeps the name, sets the tag.
        name: "cluster-api-provider-proxmox",
        remote: "https://github.com/ionos-cloud/cluster-api-provider-proxmox.git",
        from: ".",
        prepare: &[],
        providers: &[("infrastructure-proxmox", "config/default")],
        images: &[("ghcr.io/ionos-cloud/cluster-api-provider-proxmox", None)],
    },
    Expected {
        // Three providers per tag, one image, one unprefixed label.
        name: "k0smotron",
        remote: "https://github.com/k0sproject/k0smotron.git",
        from: ".",
        prepare: &[],
        providers: &[
            (
                "bootstrap-k0sproject-k0smotron",
                "config/clusterapi/bootstrap",
            ),
            (
                "control-plane-k0sproject-k0smotron",
                "config/clusterapi/controlplane",
            ),
            (
                "infrastructure-k0sproject-k0smotron",
                "config/clusterapi/infrastructure",
            ),
        ],
        images: &[("k0s/k0smotron", Some("quay.io/k0sproject/k0smotron"))],
    },
];

#[test]
fn every_repository_is_read_as_its_maintainer_would() {
    for expected in &REPOSITORIES {
        let dir = checkout(expected.name, Some(expected.remote));
        let root = dir.path().join(expected.name);
        let output = capkg(&root.join(expected.from), &["init"]);
        let report = stderr(&output);
        assert!(output.status.success(), "{}: {report}", expected.name);

        for (label, components) in expected.providers {
            let line = format!("found: {label}: components `kubectl kustomize {components}`");
            assert!(
                report.contains(&line),
                "{}: {line:?} in\n{report}",
                expected.name
            );
        }
        for (image, released) in expected.images {
            let line = format!("found: manager image {image}:");
            assert!(
                report.contains(&line),
                "{}: {line:?} in\n{report}",
                expected.name
            );
            let released_line = released.map(|r| format!("released as {r}"));
            if let Some(released_line) = released_line {
                assert!(report.contains(&released_line), "{report}");
            }
        }

        // Written at the root, whatever folder init ran in; the golden file holds the rest.
        let written = std::fs::read_to_string(root.join("capkg.yaml")).unwrap();
        let golden = repos().join(expected.name).join("expected-capkg.yaml");
        if std::env::var_os("CAPKG_BLESS").is_some() {
            std::fs::write(&golden, &written).unwrap();
        }
        assert_eq!(
            written,
            std::fs::read_to_string(&golden).unwrap_or_default(),
            "{}: capkg.yaml differs from {} (CAPKG_BLESS=1 rewrites it)",
            expected.name,
            golden.display()
        );
        for (image, released) in expected.images {
            let mut entry = format!("  - name: {image}  #");
            assert!(written.contains(&entry), "{entry:?} in\n{written}");
            if let Some(released) = released {
                entry = format!("    newName: {released}\n    newTag: \"{{version}}\"");
                assert!(written.contains(&entry), "{entry:?} in\n{written}");
            }
        }
        assert!(
            !root.join(expected.from).join("capkg.yaml").exists() || expected.from == ".",
            "written in the sub-folder"
        );

        // GitHub remote: the workflow, and no GitLab files.
        let workflow =
            std::fs::read_to_string(root.join(".github/workflows/capkg-release.yaml")).unwrap();
        // Each make step passes its target through `env:`, never pasted into the script.
        let steps: Vec<&str> = workflow
            .lines()
            .filter_map(|l| l.trim().strip_prefix("MAKE_TARGET: "))
            .collect();
        assert_eq!(steps, expected.prepare, "{}: {workflow}", expected.name);
        let runs: Vec<&str> = workflow
            .lines()
            .filter_map(|l| l.trim().strip_prefix("run: "))
            .collect();
        assert_eq!(runs.len(), steps.len(), "{workflow}");
        assert!(
            runs.iter()
                .all(|r| r.starts_with("make \"$MAKE_TARGET\" #")),
            "{workflow}"
        );
        assert!(!root.join(".gitlab").exists() && !root.join(".gitlab-ci.yml").exists());
        let gitignore = std::fs::read_to_string(root.join(".gitignore")).unwrap();
        // Added, or already ignored by the repository's own rules (`/out`).
        let ignored = std::process::Command::new("git")
            .args(["check-ignore", "-q", "out/x"])
            .current_dir(&root)
            .status()
            .unwrap();
        assert!(ignored.success(), "{}: out/ not ignored", expected.name);
        let rejected = std::process::Command::new("git")
            .args(["check-ignore", "-q", "out.rejected/x"])
            .current_dir(&root)
            .status()
            .unwrap();
        assert!(
            rejected.success(),
            "{}: out.rejected/ not ignored",
            expected.name
        );

        // A configuration capkg reads, holding no placeholder.
        let config = crate::common::load_written_config(&root.join("capkg.yaml"));
        config.refuse_placeholders().unwrap();
        assert_eq!(config.metadata, Some(PathBuf::from("metadata.yaml")));
        assert_eq!(config.output, Some(PathBuf::from("out")));
        assert!(config.targets.github.is_some());

        // Run again: nothing replaced, .gitignore not extended twice.
        let again = capkg(&root, &["init"]);
        assert!(again.status.success());
        assert!(stderr(&again).contains("kept capkg.yaml"));
        assert_eq!(
            std::fs::read_to_string(root.join(".gitignore")).unwrap(),
            gitignore
        );
    }
}

#[test]
fn every_components_command_builds_with_kubectl_kustomize() {
    crate::common::require_kubectl();
    for expected in &REPOSITORIES {
        let root = repos().join(expected.name);
        for (_, components) in expected.providers {
            let output = std::process::Command::new("kubectl")
                .args(["kustomize", components])
                .current_dir(&root)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "{}/{components}: {}",
                expected.name,
                String::from_utf8_lossy(&output.stderr)
            );
            let yaml = String::from_utf8_lossy(&output.stdout);
            let image = expected
                .images
                .iter()
                .find(|(image, _)| yaml.contains(&format!("image: {image}:")));
            assert!(
                image.is_some(),
                "{}/{components}: no manager image",
                expected.name
            );
        }
    }
}

#[test]
fn single_provider_with_metal3_assembles_with_kubectl() {
    crate::common::require_kubectl();
    let dir = checkout(
        "cluster-api-provider-metal3",
        Some("https://github.com/metal3-io/cluster-api-provider-metal3.git"),
    );
    let root = dir.path().join("cluster-api-provider-metal3");
    assert!(capkg(&root, &["init"]).status.success());
    // The configuration init wrote, `images:` pins included, assembles as it is.
    let config = crate::common::load_written_config(&root.join("capkg.yaml"));
    assert_eq!(config.providers[0].name.as_deref(), Some("metal3"));
    let output = capkg(&root, &["assemble", "--version", "v1.2.3"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let components =
        std::fs::read_to_string(root.join("out/infrastructure-components.yaml")).unwrap();
    assert!(components.contains("cluster.x-k8s.io/provider: infrastructure-metal3"));
}

#[test]
fn a_bare_label_takes_its_type_from_the_repository_name() {
    let dir = checkout("cluster-api-provider-metal3", None);
    let root = dir.path().join("cluster-api-provider-metal3");
    let kustomization = root.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(
        &kustomization,
        text.replace("provider: infrastructure-metal3", "provider: metal3"),
    )
    .unwrap();
    let output = capkg(&root, &["init"]);
    let report = stderr(&output);
    assert!(output.status.success(), "{report}");
    assert!(
        report.contains("bare label `metal3` in config/default/kustomization.yaml:4, type infrastructure from the file the Makefile writes"),
        "{report}"
    );
    // No remote: no forge, no CI files, and an empty (valid) `targets:`.
    assert!(
        report.contains("not found: no git remote `origin`"),
        "{report}"
    );
    assert!(report.contains("no CI files written"), "{report}");
    assert!(!root.join(".github").exists() && !root.join(".gitlab-ci.yml").exists());
    let config = crate::common::load_written_config(&root.join("capkg.yaml"));
    assert_eq!(config.providers[0].name.as_deref(), Some("metal3"));
    assert_eq!(
        config.providers[0].provider_type,
        Some(capkg::provider::ProviderType::Infrastructure)
    );
    assert_eq!(config.targets, capkg::config::Targets::default());
}

#[test]
fn a_gitlab_remote_gets_the_gitlab_job_only() {
    let dir = checkout(
        "cluster-api-provider-metal3",
        Some("git@gitlab.example.com:infra/capm3.git"),
    );
    let root = dir.path().join("cluster-api-provider-metal3");
    let output = capkg(&root.join("config"), &["init"]);
    assert!(output.status.success(), "{}", stderr(&output));
    // `capkg release` assembles in memory: the job collects no `out/` it never writes.
    let job = std::fs::read_to_string(root.join(".gitlab/capkg-release.gitlab-ci.yml")).unwrap();
    assert!(job.contains("capkg release --version"), "{job}");
    assert!(
        !job.contains("artifacts:") && !job.contains("out/"),
        "{job}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".gitlab-ci.yml")).unwrap(),
        "include:\n  - local: .gitlab/capkg-release.gitlab-ci.yml\n"
    );
    assert!(!root.join(".github").exists());
    let config = crate::common::load_written_config(&root.join("capkg.yaml"));
    assert_eq!(
        config.targets.gitlab.and_then(|g| g.project).as_deref(),
        Some("infra/capm3")
    );
}

#[test]
fn nothing_found_is_a_placeholder_that_assemble_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("my-operator");
    std::fs::create_dir_all(root.join("deep/folder")).unwrap();
    git(&root, &["init", "-q"]);
    let output = capkg(&root.join("deep/folder"), &["init"]);
    let report = stderr(&output);
    assert!(output.status.success(), "{report}");
    for missing in [
        "not found: components: no kustomization",
        "not found: metadata: no metadata.yaml",
        "not found: templates:",
        "not found: no git remote",
    ] {
        assert!(report.contains(missing), "{missing:?} in\n{report}");
    }
    let written = std::fs::read_to_string(root.join("capkg.yaml")).unwrap();
    assert!(written.contains("  name: \"TODO: "), "{written}");
    assert!(written.contains("targets: {}"), "{written}");
    // capkg reads it ...
    let config = capkg::config::Config::load(&root.join("capkg.yaml")).unwrap();
    assert_eq!(config.placeholders.len(), 4, "{:?}", config.placeholders);
    // ... and refuses to build a release from it, naming the key and its place.
    let output = capkg(&root, &["assemble", "--version", "v1.2.3"]);
    assert_eq!(output.status.code(), Some(2));
    let refused = stderr(&output);
    assert!(
        refused.contains("capkg.yaml:9:9: `provider.name` is still a placeholder"),
        "{refused}"
    );
    assert!(!root.join("out").exists());
    let output = capkg(
        &root,
        &["release", "--version", "v1.2.3", "--target", "local"],
    );
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(stderr(&output).contains("`provider.name` is still a placeholder"));
}
