//! The end-to-end walk on trimmed copies of real provider repositories
//! (`testdata/repos/`): `capkg init`, then the edits a maintainer makes to the written
//! `capkg.yaml` (image names, waivers with their reasons, a local target), then `capkg release`
//! publishes every provider with its controllers' images at the release tag, `capkg verify`
//! passes on every clusterctl URL and a second release changes nothing. Cluster API's providers
//! are also released to the fake GitHub server as one release. The seven repositories whose
//! release differs most (one test each) are compared with their UPSTREAM-RELEASE.md: the files
//! published, the controllers' image names and pull policy, after the judged source fixes and
//! the steps their release job runs first (git-ignored templates).

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
    /// The version released (one metadata.yaml covers: upstream's latest tag there).
    version: &'static str,
    /// Judged source fixes the maintainer makes: `(file, text, replacement)`.
    fixes: &'static [(&'static str, &'static str, &'static str)],
    /// Git-ignored templates the release job makes first: `(kustomization, output)`, built
    /// with `kubectl kustomize --load-restrictor LoadRestrictionsNone` as the make target does.
    prepare: &'static [(&'static str, &'static str)],
    /// Every file the release publishes besides `checksums.txt` (all providers' folders), as
    /// testdata/repos/<name>/UPSTREAM-RELEASE.md lists them; empty: not compared here.
    files: &'static [&'static str],
    /// The images every controller runs, without the tag (the tag is `version`); empty: any.
    images: &'static [&'static str],
    /// The `imagePullPolicy` of every controller, when the release sets one.
    pull_policy: Option<&'static str>,
    /// A script the release job runs first (linode's flavour generator), with `kustomize build`
    /// on the PATH running `kubectl kustomize`.
    script: Option<&'static str>,
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
        version: VERSION,
        fixes: &[],
        prepare: &[],
        files: &[],
        images: &[],
        pull_policy: None,
        script: None,
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
        version: VERSION,
        fixes: &[],
        prepare: &[],
        files: &[],
        images: &[],
        pull_policy: None,
        script: None,
        edits: &[],
        lint: AWS_LINT,
        labels: &["infrastructure-aws"],
        waived: 2,
    },
    Repository {
        name: "cluster-api-provider-vsphere",
        remote: "https://github.com/kubernetes-sigs/cluster-api-provider-vsphere",
        version: VERSION,
        fixes: &[],
        prepare: &[],
        files: &[],
        images: &[],
        pull_policy: None,
        script: None,
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
        version: VERSION,
        fixes: &[],
        prepare: &[],
        files: &[],
        images: &[],
        pull_policy: None,
        script: None,
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

fn release(root: &Path, version: &str, extra: &[&str]) -> Output {
    clean_capkg()
        .args(["release", "--version", version, "--format", "json"])
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
        release_to_a_local_repository(repository);
    }
}

/// The maintainer's fixes to the sources, then what the release job makes first.
fn fix_and_prepare(repository: &Repository, root: &Path) {
    for (file, from, to) in repository.fixes {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(from).count(), 1, "{file}: {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    }
    if let Some(script) = repository.script {
        let shims = root.join(".shims");
        std::fs::create_dir_all(&shims).unwrap();
        let kustomize = shims.join("kustomize");
        std::fs::write(
            &kustomize,
            "#!/bin/sh\n[ \"$1\" = build ] && shift\nexec kubectl kustomize \"$@\"\n",
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&kustomize, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let path = crate::common::path_with(&shims);
        let ran = std::process::Command::new("bash")
            .arg(script)
            .env("PATH", path)
            .current_dir(root)
            .output()
            .unwrap();
        assert!(ran.status.success(), "{script}: {}", stderr(&ran));
    }
    for (kustomization, output) in repository.prepare {
        let built = std::process::Command::new("kubectl")
            .args([
                "kustomize",
                kustomization,
                "--load-restrictor",
                "LoadRestrictionsNone",
            ])
            .current_dir(root)
            .output()
            .unwrap();
        assert!(
            built.status.success(),
            "{kustomization}: {}",
            stderr(&built)
        );
        let path = root.join(output);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, built.stdout).unwrap();
    }
}

/// `capkg init`, the maintainer's edits, `capkg release --target local`: every provider with
/// the files and images upstream's release has, verified as clusterctl reads it, and a second
/// release that changes nothing.
fn release_to_a_local_repository(repository: &Repository) {
    let version = repository.version;
    let dir = checkout(repository.name, Some(repository.remote));
    let root = dir.path().join(repository.name);
    let published = dir.path().join("clusterctl-repository");
    init_and_edit(
        repository,
        &root,
        &format!("  local:\n    repository: {}\n", published.display()),
    );
    fix_and_prepare(repository, &root);

    let output = release(&root, version, &["--target", "local"]);
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

    let mut files: Vec<String> = Vec::new();
    for (label, url) in &urls {
        let folder = published.join(label).join(version);
        let path = url
            .strip_prefix("file://")
            .unwrap_or_else(|| panic!("{label}: {url}"));
        assert!(
            Path::new(path).starts_with(&folder),
            "{label}: {url} outside {}",
            folder.display()
        );
        let names: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        files.extend(names.iter().filter(|n| *n != "checksums.txt").cloned());
        // Every components file of the provider (vSphere has a supervisor flavour too):
        // its controllers run the release's images, and clusterctl's reading verifies.
        let components_files: Vec<_> = names
            .iter()
            .filter(|n| n.contains("-components"))
            .map(|n| folder.join(n))
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
                    image.ends_with(&format!(":{version}")),
                    "{}: {image} is not at the release tag",
                    file.display()
                );
                let name = image.rsplit_once(':').map_or(image.as_str(), |(n, _)| n);
                assert!(
                    repository.images.is_empty() || repository.images.contains(&name),
                    "{}: {image} is not one of {:?}",
                    file.display(),
                    repository.images
                );
            }
            if let Some(policy) = repository.pull_policy {
                let policies: Vec<&str> = text
                    .lines()
                    .filter_map(|l| l.trim().strip_prefix("imagePullPolicy: "))
                    .collect();
                assert!(
                    !policies.is_empty() && policies.iter().all(|p| *p == policy),
                    "{}: {policies:?}",
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
    if !repository.files.is_empty() {
        files.sort();
        let mut expected: Vec<&str> = repository.files.to_vec();
        // Upstream's files, and capkg's provenance statement over them (a release of several
        // providers has a folder per provider in a local repository, without it).
        if repository.labels.len() == 1 {
            expected.push("capkg-provenance.intoto.json");
        }
        expected.sort_unstable();
        assert_eq!(files, expected, "{}", repository.name);
    }

    let again = release(&root, version, &["--target", "local"]);
    assert_exit(&again, 0, repository.name);
    assert_eq!(json(&again)["status"], "unchanged", "{}", repository.name);
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

/// Hetzner's own `make cluster-templates`: six flavours built into git-ignored generated/.
const HETZNER_TEMPLATES: &[(&str, &str)] = &[
    (
        "templates/cluster-templates/v1beta1/hcloud",
        "generated/cluster-template.yaml",
    ),
    (
        "templates/cluster-templates/v1beta1/hcloud",
        "generated/cluster-template-hcloud.yaml",
    ),
    (
        "templates/cluster-templates/v1beta1/hcloud-network",
        "generated/cluster-template-hcloud-network.yaml",
    ),
    (
        "templates/cluster-templates/v1beta1/hetzner-hcloud-control-planes",
        "generated/cluster-template-hetzner-hcloud-control-planes.yaml",
    ),
    (
        "templates/cluster-templates/v1beta1/hetzner-baremetal-control-planes",
        "generated/cluster-template-hetzner-baremetal-control-planes.yaml",
    ),
    (
        "templates/cluster-templates/v1beta1/hetzner-baremetal-control-planes-remediation",
        "generated/cluster-template-hetzner-baremetal-control-planes-remediation.yaml",
    ),
];

/// Linode's release series 0.10 declares contract v1beta2 while its CRDs carry only the
/// v1beta1 contract label, as upstream ships them; judged per CRD.
const LINODE_LINT: &str = "
lint:
  allow:
    - rule: crd/contract-label
      objects:
        - CustomResourceDefinition/linodeclusters.infrastructure.cluster.x-k8s.io
        - CustomResourceDefinition/linodeclustertemplates.infrastructure.cluster.x-k8s.io
        - CustomResourceDefinition/linodemachines.infrastructure.cluster.x-k8s.io
        - CustomResourceDefinition/linodemachinetemplates.infrastructure.cluster.x-k8s.io
      reason: >-
        upstream's v0.10 release ships these CRDs with only the v1beta1 contract label;
        released as upstream releases them until upstream relabels them
";

/// k0smotron's K0sControllerConfig and PooledRemoteMachine have no `...Template` kinds: they
/// are not used by MachineDeployments, as upstream releases them; judged per object.
const K0SMOTRON_LINT: &str = "
lint:
  allow:
    - rule: crd/template
      objects:
        - CustomResourceDefinition/k0scontrollerconfigs.bootstrap.cluster.x-k8s.io
        - CustomResourceDefinition/pooledremotemachines.infrastructure.cluster.x-k8s.io
      reason: >-
        control-plane machines' configs and pooled machines are never cloned by a
        MachineDeployment; upstream ships no template kinds for them
";

/// The seven repositories whose release differs most (testdata/repos/README.md), each released
/// as init wrote it plus the fixes and waivers named, compared with UPSTREAM-RELEASE.md.
const MORE: [Repository; 7] = [
    Repository {
        // The source's bare label `helm`; pull policy rewritten to IfNotPresent.
        name: "cluster-api-addon-provider-helm",
        remote: "https://github.com/kubernetes-sigs/cluster-api-addon-provider-helm.git",
        version: "v0.6.4",
        fixes: &[],
        prepare: &[],
        files: &["addon-components.yaml", "metadata.yaml"],
        images: &["registry.k8s.io/cluster-api-helm/cluster-api-helm-controller"],
        pull_policy: Some("IfNotPresent"),
        script: None,
        edits: &[],
        lint: "",
        labels: &["addon-helm"],
        waived: 0,
    },
    Repository {
        name: "cluster-api-provider-gcp",
        remote: "https://github.com/kubernetes-sigs/cluster-api-provider-gcp.git",
        version: "v1.12.0",
        fixes: &[],
        prepare: &[],
        files: &[
            "infrastructure-components.yaml",
            "metadata.yaml",
            "cluster-template.yaml",
            "cluster-template-topology.yaml",
            "cluster-template-clusterclass.yaml",
            "cluster-template-gke.yaml",
            "cluster-template-gke-topology.yaml",
            "cluster-template-gke-clusterclass.yaml",
            "cluster-template-gke-autopilot.yaml",
            "cluster-template-gke-autopilot-topology.yaml",
            "cluster-template-gke-autopilot-clusterclass.yaml",
        ],
        images: &["registry.k8s.io/cluster-api-gcp/cluster-api-gcp-controller"],
        pull_policy: Some("IfNotPresent"),
        script: None,
        edits: &[],
        lint: "",
        labels: &["infrastructure-gcp"],
        waived: 0,
    },
    Repository {
        // Upstream also ships cluster-class.yaml and cluster-class-topology-example.yaml, names
        // capkg does not publish (init says so): not here.
        name: "cluster-api-provider-hetzner",
        remote: "https://github.com/syself/cluster-api-provider-hetzner.git",
        version: "v1.1.8",
        fixes: &[],
        prepare: HETZNER_TEMPLATES,
        files: &[
            "infrastructure-components.yaml",
            "metadata.yaml",
            "cluster-template.yaml",
            "cluster-template-hcloud.yaml",
            "cluster-template-hcloud-network.yaml",
            "cluster-template-hetzner-hcloud-control-planes.yaml",
            "cluster-template-hetzner-baremetal-control-planes.yaml",
            "cluster-template-hetzner-baremetal-control-planes-remediation.yaml",
        ],
        images: &["ghcr.io/syself/caph"],
        pull_policy: Some("IfNotPresent"),
        script: None,
        edits: &[],
        lint: "",
        labels: &["infrastructure-hetzner"],
        waived: 0,
    },
    Repository {
        // clusterctl's name: the CRDs' label is fixed to it (init says where). Upstream also
        // attaches scripts/pre-kubeadminit.sh, which capkg does not publish.
        name: "cluster-api-provider-linode",
        remote: "https://github.com/linode/cluster-api-provider-linode.git",
        version: "v0.10.10",
        fixes: &[(
            "config/crd/kustomization.yaml",
            "cluster.x-k8s.io/provider: \"infrastructure-linode\"",
            "cluster.x-k8s.io/provider: \"infrastructure-linode-linode\"",
        )],
        prepare: &[],
        // 34 cluster-template*.yaml and clusterclass-kubeadm.yaml from the flavour script.
        files: &[
            "cluster-template-clusterclass-kubeadm.yaml",
            "cluster-template-k3s-cluster-autoscaler.yaml",
            "cluster-template-k3s-dns-loadbalancing.yaml",
            "cluster-template-k3s-dual-stack.yaml",
            "cluster-template-k3s-etcd-backup-restore.yaml",
            "cluster-template-k3s-full-vpcless.yaml",
            "cluster-template-k3s-full.yaml",
            "cluster-template-k3s-self-healing.yaml",
            "cluster-template-k3s-vpcless.yaml",
            "cluster-template-k3s.yaml",
            "cluster-template-kubeadm-cluster-autoscaler.yaml",
            "cluster-template-kubeadm-dns-loadbalancing.yaml",
            "cluster-template-kubeadm-dual-stack-dns-loadbalancing.yaml",
            "cluster-template-kubeadm-dual-stack-vpcless.yaml",
            "cluster-template-kubeadm-dual-stack.yaml",
            "cluster-template-kubeadm-etcd-backup-restore.yaml",
            "cluster-template-kubeadm-etcd-disk.yaml",
            "cluster-template-kubeadm-flatcar.yaml",
            "cluster-template-kubeadm-full-vpcless.yaml",
            "cluster-template-kubeadm-full.yaml",
            "cluster-template-kubeadm-konnectivity.yaml",
            "cluster-template-kubeadm-self-healing.yaml",
            "cluster-template-kubeadm-vpcless.yaml",
            "cluster-template-rke2-cluster-autoscaler.yaml",
            "cluster-template-rke2-dns-loadbalancing.yaml",
            "cluster-template-rke2-etcd-backup-restore.yaml",
            "cluster-template-rke2-etcd-disk.yaml",
            "cluster-template-rke2-full-vpcless.yaml",
            "cluster-template-rke2-full.yaml",
            "cluster-template-rke2-self-healing.yaml",
            "cluster-template-rke2-vlan.yaml",
            "cluster-template-rke2-vpcless.yaml",
            "cluster-template-rke2.yaml",
            "cluster-template.yaml",
            "clusterclass-kubeadm.yaml",
            "infrastructure-components.yaml",
            "metadata.yaml",
        ],
        images: &["docker.io/linode/cluster-api-provider-linode"],
        pull_policy: None,
        script: Some("hack/generate-flavors.sh"),
        edits: &[],
        lint: LINODE_LINT,
        labels: &["infrastructure-linode-linode"],
        waived: 4,
    },
    Repository {
        // Upstream also ships image-template-bastion.yaml and image-template-node.yaml (ORC
        // images, not templates), which capkg does not publish (init says so): not here.
        name: "cluster-api-provider-openstack",
        remote: "https://github.com/kubernetes-sigs/cluster-api-provider-openstack.git",
        version: "v0.15.0-beta.0",
        fixes: &[],
        prepare: &[],
        files: &[
            "infrastructure-components.yaml",
            "metadata.yaml",
            "cluster-template.yaml",
            "cluster-template-without-lb.yaml",
            "cluster-template-flatcar.yaml",
            "cluster-template-flatcar-sysext.yaml",
            "cluster-template-capi-v1beta1.yaml",
            "cluster-template-topology.yaml",
            "clusterclass-dev-test.yaml",
        ],
        images: &["registry.k8s.io/capi-openstack/capi-openstack-controller"],
        pull_policy: Some("IfNotPresent"),
        script: None,
        edits: &[],
        lint: "",
        labels: &["infrastructure-openstack"],
        waived: 0,
    },
    Repository {
        name: "cluster-api-provider-proxmox",
        remote: "https://github.com/ionos-cloud/cluster-api-provider-proxmox.git",
        version: "v0.9.0",
        fixes: &[],
        prepare: &[],
        files: &[
            "infrastructure-components.yaml",
            "metadata.yaml",
            "cluster-template.yaml",
            "cluster-template-auto-image.yaml",
            "cluster-template-calico.yaml",
            "cluster-template-cilium.yaml",
            "cluster-template-cilium-load-balancer.yaml",
            "cluster-template-dual-stack.yaml",
            "cluster-template-external-creds.yaml",
            "cluster-template-flatcar.yaml",
            "cluster-template-multiple-vlans.yaml",
            "cluster-template-proxmox-labels.yaml",
        ],
        images: &["ghcr.io/ionos-cloud/cluster-api-provider-proxmox"],
        pull_policy: None,
        script: None,
        edits: &[],
        lint: "",
        labels: &["infrastructure-proxmox"],
        waived: 0,
    },
    Repository {
        // metadata.yaml gains the `kind: Metadata` clusterctl before v1.11.1 requires.
        name: "k0smotron",
        remote: "https://github.com/k0sproject/k0smotron.git",
        version: "v2.1.0",
        fixes: &[(
            "metadata.yaml",
            "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\n",
            "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\n",
        )],
        prepare: &[],
        files: &[
            "bootstrap-components.yaml",
            "control-plane-components.yaml",
            "infrastructure-components.yaml",
            "metadata.yaml",
            "metadata.yaml",
            "metadata.yaml",
            "cluster-template.yaml",
            "cluster-template-hcp.yaml",
        ],
        images: &["quay.io/k0sproject/k0smotron"],
        pull_policy: None,
        script: None,
        edits: &[],
        lint: K0SMOTRON_LINT,
        labels: &[
            "bootstrap-k0sproject-k0smotron",
            "control-plane-k0sproject-k0smotron",
            "infrastructure-k0sproject-k0smotron",
        ],
        waived: 2,
    },
];

#[test]
fn helm_releases_as_upstream_does() {
    crate::common::require_kubectl();
    release_to_a_local_repository(&MORE[0]);
}

#[test]
fn gcp_releases_as_upstream_does() {
    crate::common::require_kubectl();
    release_to_a_local_repository(&MORE[1]);
}

#[test]
fn hetzner_releases_as_upstream_does() {
    crate::common::require_kubectl();
    release_to_a_local_repository(&MORE[2]);
}

#[test]
fn linode_releases_as_upstream_does() {
    crate::common::require_kubectl();
    release_to_a_local_repository(&MORE[3]);
}

#[test]
fn openstack_releases_as_upstream_does() {
    crate::common::require_kubectl();
    release_to_a_local_repository(&MORE[4]);
}

#[test]
fn proxmox_releases_as_upstream_does() {
    crate::common::require_kubectl();
    release_to_a_local_repository(&MORE[5]);
}

#[test]
fn k0smotron_releases_as_upstream_does() {
    crate::common::require_kubectl();
    release_to_a_local_repository(&MORE[6]);
}
