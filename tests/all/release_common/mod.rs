//! Shared by the `release_*` tests: a provider repository with `capkg.yaml`, the variables GitHub
//! Actions sets on a tag push (with its summary and output files), and a `capkg release` command
//! with no CI variables inherited from the machine running the tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::publish_fakes::{COMPONENTS, TEMPLATE, capkg};

/// A provider repository: sources, `metadata.yaml` and a `capkg.yaml` with these `targets:`.
pub(crate) struct Provider {
    pub dir: tempfile::TempDir,
}

impl Provider {
    pub(crate) fn new(targets: &str, metadata: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("components.yaml"), COMPONENTS).unwrap();
        std::fs::write(root.join("metadata.yaml"), metadata).unwrap();
        std::fs::create_dir_all(root.join("templates")).unwrap();
        std::fs::write(root.join("templates/cluster-template.yaml"), TEMPLATE).unwrap();
        std::fs::write(
            root.join("capkg.yaml"),
            format!(
                "provider:\n  name: azure\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\ntemplates: [\"templates/cluster-template*.yaml\"]\ntargets:\n{targets}"
            ),
        )
        .unwrap();
        Self { dir }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn config(&self) -> PathBuf {
        self.root().join("capkg.yaml")
    }

    /// Makes the folder a git repository with one commit carrying these tags.
    pub(crate) fn tagged(&self, tags: &[&str]) {
        self.git(&["init", "-q"]);
        self.git(&["config", "user.name", "capkg test"]);
        self.git(&["config", "user.email", "test@example.com"]);
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", "provider"]);
        for tag in tags {
            self.git(&["tag", tag]);
        }
    }

    pub(crate) fn git(&self, args: &[&str]) {
        let status = Command::new("git")
            .arg("-C")
            .arg(self.root())
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }
}

/// What GitHub Actions sets on a tag push, with the summary and output files in `work`.
pub(crate) struct Actions {
    pub work: tempfile::TempDir,
}

impl Actions {
    pub(crate) fn new() -> Self {
        Self {
            work: tempfile::tempdir().unwrap(),
        }
    }

    pub(crate) fn summary(&self) -> PathBuf {
        self.work.path().join("step_summary.md")
    }

    pub(crate) fn output(&self) -> PathBuf {
        self.work.path().join("github_output")
    }

    pub(crate) fn apply(&self, command: &mut Command, tag: &str) {
        command
            .env("GITHUB_ACTIONS", "true")
            .env("CI", "true")
            .env("GITHUB_REF_TYPE", "tag")
            .env("GITHUB_REF_NAME", tag)
            .env("GITHUB_REF", format!("refs/tags/{tag}"))
            .env("GITHUB_REPOSITORY", "o/r")
            .env("GITHUB_STEP_SUMMARY", self.summary())
            .env("GITHUB_OUTPUT", self.output());
    }

    /// `name=value` and heredoc outputs, the last value of each name.
    pub(crate) fn outputs(&self) -> Vec<(String, String)> {
        let text = std::fs::read_to_string(self.output()).unwrap_or_default();
        let mut outputs = Vec::new();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            if let Some((name, delimiter)) = line.split_once("<<") {
                let mut value = Vec::new();
                for next in lines.by_ref() {
                    if next == delimiter {
                        break;
                    }
                    value.push(next);
                }
                outputs.push((name.to_string(), value.join("\n")));
            } else if let Some((name, value)) = line.split_once('=') {
                outputs.push((name.to_string(), value.to_string()));
            }
        }
        outputs
    }

    pub(crate) fn output_value(&self, name: &str) -> Option<String> {
        self.outputs()
            .into_iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }
}

pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub(crate) fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            stdout(output),
            stderr(output)
        )
    })
}

/// `capkg` without the CI variables of the machine running the tests.
pub(crate) fn clean_capkg() -> Command {
    let mut command = capkg();
    for name in [
        "CI",
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "GITHUB_REF_NAME",
        "GITHUB_REF_TYPE",
        "GITHUB_REF",
        "GITHUB_REPOSITORY",
        "CI_COMMIT_TAG",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_OUTPUT",
        // A CI's signing identity: a test signs only against the fakes it names.
        "ACTIONS_ID_TOKEN_REQUEST_URL",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "SIGSTORE_ID_TOKEN",
        "CAPKG_SIGSTORE_ID_TOKEN",
        "CAPKG_FULCIO_URL",
        "CAPKG_REKOR_URL",
    ] {
        command.env_remove(name);
    }
    // Hermetic: the fixtures name images on public registries; `oci_e2e` tests the check.
    command.env("CAPKG_CHECK_IMAGES", "false");
    command
}

/// `capkg release --config` for the provider, run in its folder.
pub(crate) fn release(provider: &Provider) -> Command {
    let mut command = clean_capkg();
    command
        .args(["release", "--config"])
        .arg(provider.config())
        .current_dir(provider.root());
    command
}
