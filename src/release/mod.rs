//! `capkg release`: from a tag to a checked, installable release in one step, planned once and
//! carried out by one loop.
//!
//! The command resolves its [`crate::settings::Settings`] (capkg.yaml, flags and environment:
//! the version, the targets, the previous release, the waivers), then:
//!
//! 1. **Plan** ([`plan()`]), offline: **assemble** the release in memory ([`assembly`]: each
//!    file's bytes and its parsed tree, kept together from here to publishing) and **check**
//!    what needs no network: lint (every rule, for this version; waivers applied), the
//!    provider's identity (in assembly), `metadata.yaml` has a series for the version, and — in
//!    a git checkout — every tag `clusterctl upgrade plan` will ask about has one ([`tags`]),
//!    and the commit built is tagged with the version ([`head`]; a real run refuses otherwise).
//!    Then **attest** ([`attest`]): the provenance statement over every file, published with
//!    them. The plan lists the phases that follow ([`plan::ReleasePlan::phases`]).
//! 2. **Execute** ([`execute()`]), the phases in order: check that every image exists; plan at
//!    every target (each looks at its destination and decides per file; a conflict stops the
//!    run); **compare** each provider with the release before it at each target ([`compare`]:
//!    the target says where its earlier releases are); **publish** to each target in turn
//!    (apply, read back, make visible) and **verify** what it serves as clusterctl or the
//!    operator reads it ([`crate::verify`]).
//!
//! `--dry-run` is the same loop with the network out of reach: it plans every target offline,
//! compares where the previous release is on this machine, and stops before publishing. Nothing
//! before publishing leaves anything public. A failure while publishing is reported with what is
//! done, what is not, and that running the same command again finishes the job: publishing
//! skips identical files, so a re-run only does what is missing.
//!
//! `--draft` ([`plan::Mode::Draft`]) publishes where nobody installs from and stops before the
//! images and verify; `capkg promote` ([`promote`]) makes such a draft public through the same
//! loop.
//!
//! The library never prints: [`execute::execute`] returns an [`Outcome`], the object `capkg
//! release --format json` prints; [`crate::report::release`] renders it as Markdown for a CI step
//! summary and as CI outputs.
//!
//! # JSON shape
//!
//! ```json
//! {
//!   "schema_version": 1,
//!   "status": "published | unchanged | dry-run | refused | failed | incomplete | drafted | promoted | already-promoted",
//!   "mode": "release | draft | promote",
//!   "dry_run": false,
//!   "version": "v1.2.3", "version_source": "GITHUB_REF_NAME",
//!   "provider": {"type": "InfrastructureProvider", "name": "azure"},
//!   "provider_label": "infrastructure-azure",
//!   "providers": [{"type": "InfrastructureProvider", "name": "azure",
//!                  "label": "infrastructure-azure", "components": ["infrastructure-components.yaml"]}],
//!   "files": [{"name": "metadata.yaml", "size": 123, "sha256": "..."}],
//!   "diagnostics": [{"rule": "...", "severity": "warning", "file": "...", "line": 1, ...}],
//!   "lint": {"errors": 0, "warnings": 1, "infos": 0, "files": 3},
//!   "checks": {
//!     "version_series": {"name": "release-series", "ok": true, "message": "..."},
//!     "tags": {"checked": true, "tags": 4, "from_series": "1.0", "uncovered": [], "newer_uncovered": []},
//!     "head": {"checked": true, "commit": "<sha>", "tags": ["v1.2.3"], "checkout": "/src/capz", "note": "..."}
//!   },
//!   "phases": [{"phase": "assemble | check | attest | compare | publish | draft | verify", "what": "...", "network": false}],
//!   "targets": [{
//!     "target": "github", "state": "published | drafted | unchanged | planned | failed | not-started",
//!     "clusterctl_url": "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml",
//!     "providers": [{"label": "infrastructure-azure", "clusterctl_url": "...", "verify": {...}}],
//!     "plan": {"destination": "...", "remote_checked": true, "steps": [], "files": [...]},
//!     "result": {... the publish outcome, see crate::targets ...},
//!     "verify": {... see crate::verify::VerifyReport ...},
//!     "failed_step": "upload | read-back | publish | verify",
//!     "error": "..."
//!   }],
//!   "warnings": ["..."],
//!   "error": {"stage": "checks", "message": "...", "hint": "...", "exit_code": 1}
//! }
//! ```
//!
//! `phases` is a dry run's only. A release of several providers (capkg.yaml `providers:`) is one
//! tag holding every provider's files: `providers` lists them all, `provider` and
//! `provider_label` are `null`, and each target's `providers` has every provider's clusterctl
//! URL and verification (`clusterctl_url` and `verify` of a target are the first provider's).

pub(crate) mod assembly;
mod attest;
mod compare;
pub(crate) mod error;
pub(crate) mod execute;
pub(crate) mod head;
pub(crate) mod outcome;
pub(crate) mod plan;
pub(crate) mod promote;
pub(crate) mod rebuild;
pub(crate) mod tags;

pub(crate) use self::error::Error;
pub(crate) use self::execute::{Run, execute};
pub(crate) use self::outcome::{Outcome, Status, TargetState};
pub(crate) use self::plan::plan;

#[cfg(test)]
mod tests;
