//! capkg: lint, substitute, assemble and publish Cluster API provider releases.
//!
//! Data flows one way: **load** ([`yaml`], [`files`]) -> **check** ([`rules`]) -> **transform**
//! ([`subst`], [`assemble`]) -> **write or publish** ([`targets`], [`release`]). The CLI in
//! [`cli`] turns flags into requests for these modules and hands their results to [`report`].
//!
//! - [`yaml`]: YAML documents with byte-exact source positions, YAML 1.1 scalar resolution, and
//!   two writers (one keeps the maintainer's layout, one reproduces clusterctl's output).
//! - [`k8s`]: views of Kubernetes objects and clusterctl's notions about them (scope by kind).
//! - [`provider`]: provider types, names, manifest labels and the roles files play in a release.
//! - [`files`]: finds release files under paths and loads each with its role.
//! - [`diagnostic`]: a finding (rule, severity, place, message, help) and a run's summary.
//! - [`error`]: how failures are classified (refusal or failure) and hinted.
//! - [`forge`]: the HTTP client publish and verify share: retries, credentials, redaction.
//! - [`rules`]: the lint rules, one file per area, in one registry; findings are [`diagnostic::Diagnostic`]s.
//! - [`subst`]: drone/envsubst's grammar and evaluation, plus clusterctl's variable layer.
//! - [`assemble`]: builds a release directory from the maintainer's sources.
//! - [`targets`]: where a release goes: a local repository, a GitHub release, a GitLab package.
//! - [`release`]: tag -> assemble -> lint -> publish -> verify, as one plan.
//! - [`verify`]: reads a published release as clusterctl does and checks it.
//! - [`diff`]: compares two releases and reports what breaks an upgrade (`upgrade/…` rules).
//! - [`operator`]: cluster-api-operator's view of a release (its ConfigMaps).
//! - [`ci`]: which CI system capkg runs in; GitHub's annotations caps, step summary and outputs.
//! - [`report`]: renders diagnostics and outcomes as human text, JSON or GitHub annotations.
//! - [`cli`]: the command-line surface; the only place that decides exit codes.

pub mod assemble;
pub mod checksums;
pub(crate) mod ci;
pub mod cli;
pub mod config;
pub(crate) mod diagnostic;
pub(crate) mod diff;
pub(crate) mod error;
pub mod files;
pub(crate) mod flect;
pub(crate) mod forge;
pub(crate) mod go_sort;
pub(crate) mod go_unicode;
pub(crate) mod image_ref;
pub mod k8s;
pub mod operator;
pub mod provider;
pub(crate) mod release;
pub(crate) mod release_dir;
pub(crate) mod report;
pub mod rules;
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
