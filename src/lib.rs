//! capkg: lint, substitute, assemble and publish Cluster API provider releases.
//!
//! Data flows one way: **load** -> **check** -> **transform** -> **write or publish**, with the
//! CLI on top. This list is the module map: each module once, in its layer (a test checks that
//! every module is here, and `tests/all/layering.rs` holds what each layer may import).
//!
//! Foundations:
//! - [`units`]: durations and sizes as people write them.
//! - [`error`]: how failures are classified (refusal or failure) and hinted.
//! - [`version`]: release versions and their order.
//! - [`go_sort`], [`go_unicode`], [`flect`]: Go's sort order, Unicode classes and pluralisation,
//!   where clusterctl's output depends on them.
//! - [`image_ref`]: container image references as Docker parses them.
//! - [`threads`]: two pieces of work at once on the process's worker threads.
//! - [`yaml`]: YAML documents with byte-exact source positions, YAML 1.1 scalar resolution, and
//!   two writers (one keeps the maintainer's layout, one reproduces clusterctl's output).
//! - [`k8s`]: views of Kubernetes objects and clusterctl's notions about them (scope by kind).
//! - [`provider`]: provider types, names, manifest labels and the roles files play in a release.
//! - [`diagnostic`]: a finding (rule, severity, place, message, help) and a run's summary.
//! - [`escape`]: what capkg prints of text a release, a server or a repository holds: visible
//!   escapes, GitHub workflow commands, Markdown and JSON, and the guard on stdout and stderr.
//! - [`subst`]: drone/envsubst's grammar and evaluation, plus clusterctl's variable layer.
//! - [`checksums`]: `checksums.txt` written and read.
//!
//! Load:
//! - [`files`]: finds release files under paths and loads each with its role (regular files only).
//! - [`config`]: reads capkg.yaml, the maintainer's configuration.
//! - [`release_dir`]: an assembled release folder, as publish, release and the operator read it.
//!
//! Check:
//! - [`rules`]: the lint rules, one file per area, in one registry.
//!
//! Transform:
//! - [`assemble`]: builds a release directory from the maintainer's sources.
//! - [`init`]: `capkg init`: reads a provider repository (Makefile, kustomize, workflows, remotes)
//!   and renders the `capkg.yaml` and CI files that fit it.
//! - [`operator`]: cluster-api-operator's view of a release (its ConfigMaps, OCI layers).
//! - [`provenance`]: the release's in-toto/SLSA provenance statement, written and read back, and
//!   the CI and git facts it records.
//! - [`sigstore`]: the statement signed keylessly (OIDC token, Fulcio, Rekor) into a Sigstore
//!   bundle, and a bundle checked against a trusted root and an identity policy.
//!
//! Publish and read back:
//! - [`forge`]: the HTTP client publish and verify share: retries, credentials, redaction; which
//!   credential goes where; bounded lists; the GitHub, GitLab and OCI registry models.
//! - [`targets`]: where a release goes: a local repository, a GitHub release, a GitLab package, an
//!   OCI registry.
//! - [`verify`]: reads a published release as clusterctl or the operator does and checks it.
//! - [`diff`]: compares two releases and reports what breaks an upgrade (`upgrade/…` rules).
//!
//! Orchestration and presentation:
//! - [`settings`]: capkg.yaml, flags and environment resolved once into what a command works
//!   with.
//! - [`release`]: a release planned once (assemble, check) and carried out by one loop
//!   (compare, publish, verify).
//! - [`ci`]: which CI system capkg runs in; GitHub's step summary and outputs files.
//! - [`report`]: renders diagnostics and outcomes as human text, JSON, Markdown or GitHub
//!   annotations (within GitHub's caps): lint's, diff's, verify's and release's. One renderer sits
//!   beside its data: `subst`'s variable listing, which is clusterctl's own text reproduced byte
//!   for byte.
//! - [`cli`]: the command-line surface; the only place that decides exit codes.

pub mod assemble;
pub mod checksums;
pub(crate) mod ci;
pub mod cli;
pub mod config;
pub(crate) mod diagnostic;
pub(crate) mod diff;
pub(crate) mod error;
pub(crate) mod escape;
pub mod files;
pub(crate) mod flect;
pub(crate) mod forge;
pub(crate) mod go_sort;
pub(crate) mod go_unicode;
pub(crate) mod image_ref;
pub mod init;
pub mod k8s;
pub mod operator;
pub(crate) mod provenance;
pub mod provider;
pub(crate) mod release;
pub(crate) mod release_dir;
pub(crate) mod report;
pub mod rules;
pub(crate) mod settings;
pub(crate) mod sigstore;
pub mod subst;
pub(crate) mod targets;
pub(crate) mod threads;
pub(crate) mod units;
pub(crate) mod verify;
pub(crate) mod version;
pub mod yaml;

/// An environment for tests of code that reads settings through a lookup closure.
#[cfg(test)]
pub(crate) mod test_env {
    pub(crate) fn env(
        pairs: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }
}
