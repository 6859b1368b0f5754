//! Shared by the `publish_*` tests and the publish benchmark: fake forges on local HTTP servers,
//! a release folder to publish, and a `capkg` command with a clean environment.
#![allow(dead_code)]

pub(crate) mod github;
pub(crate) mod gitlab;
pub(crate) mod server;

use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

pub(crate) const COMPONENTS: &str = "\
apiVersion: v1
kind: Namespace
metadata:
  name: capz-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-azure
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: capz-controller-manager
  namespace: capz-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-azure
spec:
  template:
    spec:
      containers:
      - name: manager
        image: registry.k8s.io/capz:v1.2.3
";

pub(crate) const METADATA: &str = "\
apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3
kind: Metadata
releaseSeries:
- major: 1
  minor: 2
  contract: v1beta1
";

pub(crate) const TEMPLATE: &str = "\
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata:
  name: ${CLUSTER_NAME}
";

/// The files of the standard test release.
pub(crate) fn release_files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "infrastructure-components.yaml",
            COMPONENTS.as_bytes().to_vec(),
        ),
        ("metadata.yaml", METADATA.as_bytes().to_vec()),
        ("cluster-template.yaml", TEMPLATE.as_bytes().to_vec()),
    ]
}

/// Writes `files` plus a `checksums.txt` over them into `dir`.
pub(crate) fn write_release(dir: &Path, files: &[(&str, Vec<u8>)]) {
    std::fs::create_dir_all(dir).unwrap();
    let mut sums = String::new();
    for (name, content) in files {
        std::fs::write(dir.join(name), content).unwrap();
        sums.push_str(&format!("{}  {name}\n", sha256(content)));
    }
    std::fs::write(dir.join("checksums.txt"), sums).unwrap();
}

/// A temporary folder holding the standard release in `out/`.
pub(crate) fn release_dir() -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    write_release(&out, &release_files());
    (root, out)
}

pub(crate) fn sha256(data: &[u8]) -> String {
    hex::encode(Sha256::digest(data))
}

/// `capkg` with none of the variables publish reads.
pub(crate) fn capkg() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_capkg"));
    for name in [
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_API_URL",
        "GITLAB_TOKEN",
        "CI_JOB_TOKEN",
        "CI_API_V4_URL",
        "CI_PROJECT_ID",
        "NO_COLOR",
        "CAPKG_HTTP_TIMEOUT",
        "CAPKG_HTTP_MIN_RATE",
        "CAPKG_MAX_DOWNLOAD",
        "CAPKG_MAX_LAYERS",
        "CAPKG_MAX_LIST_PAGES",
        "CAPKG_IMAGES_TIMEOUT",
    ] {
        command.env_remove(name);
    }
    // Hermetic: the fixtures name images on public registries; `oci_e2e` tests the image check.
    command.env("CAPKG_CHECK_IMAGES", "false");
    command
}
