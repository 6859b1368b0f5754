//! What verify found: the files it read, the checks besides lint and the findings, and whether
//! the release passed ([`VerifyReport`], also the JSON `capkg verify --format json` prints).

use serde::Serialize;

use super::{ReadRelease, latest};
use crate::diagnostic::{Diagnostic, Summary};
use crate::rules;

/// Which kind of repository was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RepositoryKind {
    Github,
    Gitlab,
    Local,
    Directory,
    Oci,
}

/// One file verify read.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct VerifiedFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
    /// Where it was read from (the clusterctl-facing URL, or the path).
    pub url: String,
}

/// One check besides lint.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    /// `release-series`, `checksums`.
    pub name: &'static str,
    pub ok: bool,
    pub message: String,
}

/// What verify found.
///
/// JSON (`capkg verify --format json`):
///
/// ```json
/// {
///   "source": "https://github.com/o/r/releases/latest/infrastructure-components.yaml",
///   "repository": "github | gitlab | local | directory",
///   "requested_version": "latest",
///   "version": "v1.2.3",
///   "latest": {"version": "v1.2.3", "skipped": ["v1.3.0-rc.0: ..."]},
///   "provider_label": "infrastructure-azure",
///   "files": [{"name": "metadata.yaml", "size": 1, "sha256": "...", "url": "..."}],
///   "checks": [{"name": "release-series", "ok": true, "message": "..."}],
///   "diagnostics": [{"rule": "...", "severity": "error", "file": "...", "line": 1, ...}],
///   "summary": {"errors": 0, "warnings": 0, "infos": 0, "files": 3},
///   "warnings": ["..."],
///   "ok": true
/// }
/// ```
#[derive(Debug, Clone, Serialize)]
pub(crate) struct VerifyReport {
    pub source: String,
    pub repository: RepositoryKind,
    /// The version in the URL (`latest` or a tag); `None` for a folder.
    pub requested_version: Option<String>,
    /// The version read.
    pub version: Option<String>,
    /// How `latest` was resolved, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest: Option<latest::Resolution>,
    pub provider_label: Option<String>,
    pub files: Vec<VerifiedFile>,
    pub checks: Vec<Check>,
    #[serde(serialize_with = "crate::diagnostic::serialize_json")]
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
    /// What clusterctl would do differently, or what could not be checked.
    pub warnings: Vec<String>,
    /// No lint errors and every check passed.
    pub ok: bool,
    /// What was read, one entry per provider.
    #[serde(skip)]
    pub releases: Vec<ReadRelease>,
    /// The provenance statement and the files it names, as served (`verify --rebuild`).
    #[serde(skip)]
    pub attested: super::provenance::Attested,
}

impl VerifyReport {
    /// Lint errors plus failed checks.
    pub(crate) fn error_count(&self) -> usize {
        self.summary.errors + self.checks.iter().filter(|c| !c.ok).count()
    }

    /// The report with the maintainer's waivers applied (`lint: allow:`), counted again; those
    /// `judged` says this read could have matched and that matched nothing are reported unused.
    pub(crate) fn waive(
        mut self,
        waivers: &rules::Waivers,
        judged: rules::waivers::Judged,
    ) -> Self {
        if waivers.is_empty() {
            return self;
        }
        waivers.apply_judged(&mut self.diagnostics, rules::waivers::Scope::Lint, judged);
        self.finish()
    }

    /// The report with one more check (`verify --rebuild`'s), counted again.
    pub(crate) fn with_check(mut self, check: Check) -> Self {
        self.checks.push(check);
        self.finish()
    }

    pub(super) fn finish(mut self) -> Self {
        let files = self.files.len();
        self.summary = Summary::of(&self.diagnostics, files);
        self.ok = self.error_count() == 0;
        self
    }
}
