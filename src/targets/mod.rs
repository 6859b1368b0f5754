//! Where a release goes: a local clusterctl repository, an OCI artifact, a GitHub release, a
//! GitLab generic package, or (for tests of the layers above) memory.
//!
//! Every target goes through the same four steps, and nothing acts before the plan exists:
//!
//! 1. [`Target::plan`] looks at the destination and decides, per file, [`Action::Upload`],
//!    [`Action::Skip`] (identical content is already there) or [`Action::Replace`] (different
//!    content is there and the caller allowed replacing it). Conflicts that would need a flag fail
//!    here, before anything is touched. `capkg publish --dry-run` prints this plan and stops;
//!    `capkg release --dry-run` plans [`Reach::Offline`]: the same code without asking the
//!    remote, a plan that cannot be carried out.
//! 2. [`Target::apply`] carries the plan out (a staging folder, a draft release, package files).
//! 3. [`Target::read_back`] reads every file it wrote back and compares SHA-256.
//! 4. [`Target::finish`] makes the result visible (renames the staging folder into place,
//!    publishes the draft); a release that failed its read-back is never made visible.
//!
//! [`carry_out`] runs the last three in order. The target is built once, by [`open`], from a
//! [`TargetRequest`]: what capkg.yaml or the flags asked for; each target reads its own
//! environment when it opens. Retry policy, clock and progress reporting come in through [`Services`];
//! the library never prints: it reports [`Event`]s to a [`Progress`] the caller implements.
//!
//! # JSON shape
//!
//! [`Plan`] and [`Outcome`] serialise to the object `capkg publish --format json` prints (the CLI
//! adds `"dry_run"`):
//!
//! ```json
//! {
//!   "target": "local | github | gitlab | memory | oci",
//!   "version": "v1.2.3",
//!   "provider": {"type": "InfrastructureProvider", "name": "aws"},
//!   "provider_label": "infrastructure-aws",
//!   "providers": [{"type": "InfrastructureProvider", "name": "aws",
//!                  "label": "infrastructure-aws", "clusterctl_url": "..."}],
//!   "destination": "where the files go (folder, release page, package URL)",
//!   "clusterctl_url": "the components URL for clusterctl's `providers:` entry",
//!   "clusterctl_config": "a clusterctl.yaml `providers:` snippet using it",
//!   "overrides": {"folder": "...", "files": ["{folder}/{label}/{version}/{file}"]},
//!   "release": {"id": 1, "url": "...", "draft": false, "prerelease": false},
//!   "warnings": ["..."],
//!   "steps": ["create draft release `v1.2.3`", "..."],
//!   "files": [{"name": "metadata.yaml", "size": 123, "sha256": "...",
//!              "action": "upload | skip | replace", "reason": "..."}],
//!   "verified": true
//! }
//! ```
//!
//! Every file has `name`, `size`, `sha256` and `url` (where it ends up). In a plan (`"dry_run":
//! true`) each file has `action` (`upload`, `skip`, `replace`) and maybe `reason`; in an outcome,
//! `outcome` (`uploaded`, `skipped`, `replaced`) instead. `overrides` appears for the local target
//! with `--overrides`, `release` for GitHub; `steps` only in a plan, `verified` only in an
//! outcome. `warnings` holds what the user should know (clusterctl cannot read GitHub Enterprise
//! or non-`gitlab.` hosts, files in the folder that are not published).
//!
//! A release of several providers has one entry per provider in `providers`, each with its own
//! clusterctl URL, and `clusterctl_config` lists them all; `provider`, `provider_label` and
//! `clusterctl_url` name the first provider. The local target writes a folder per provider, so
//! its file names carry the folder (`bootstrap-kubeadm/metadata.yaml`).

mod draft;
pub(crate) mod github;
pub(crate) mod gitlab;
pub(crate) mod local;
#[cfg(test)]
pub(crate) mod memory;
pub(crate) mod oci;

use crate::error::{Classified, ErrorClass};
use std::any::Any;
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

pub(crate) use crate::forge::Services;
pub(crate) use crate::forge::clock::{BoxFuture, SystemClock};
pub(crate) use crate::forge::history::{History, VersionedSource};
pub(crate) use crate::forge::http::HttpError;
pub(crate) use crate::forge::policy::RetryPolicy;
pub(crate) use crate::forge::progress::{Event, Progress, Transfer};
pub(crate) use crate::forge::secret::Secret;
pub(crate) use crate::release_dir::{PublishFile, ReleaseDir};
pub(crate) use draft::{Drafted, check_draft, draft_name};

/// A provenance statement (and its Sigstore bundle) already published beside the same files is
/// kept, not replaced: a re-run (another CI run, capkg.yaml edited) makes a statement that names
/// another run or configuration and signs it anew, but the files it attests are the same, and the
/// release stays as it was: the published statement and bundle keep attesting each other.
pub(crate) fn keeps_published_statement(name: &str, replacing: bool) -> bool {
    (name == crate::provenance::STATEMENT_FILE || name == crate::sigstore::BUNDLE_FILE)
        && !replacing
}

/// Why a published statement is kept ([`keeps_published_statement`]).
pub(crate) const STATEMENT_KEPT: &str =
    "kept: the statement there attests these same files (from the run that first published them)";

/// Which kind of destination a target writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TargetKind {
    Local,
    Github,
    Gitlab,
    /// Tests' in-memory destination.
    #[cfg(test)]
    Memory,
    Oci,
}

impl fmt::Display for TargetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            TargetKind::Local => "local",
            TargetKind::Github => "github",
            TargetKind::Gitlab => "gitlab",
            #[cfg(test)]
            TargetKind::Memory => "memory",
            TargetKind::Oci => "oci",
        })
    }
}

/// A place a release can be published to. Implementations: [`local::LocalTarget`],
/// [`github::GitHubTarget`], [`gitlab::GitLabTarget`], `memory::MemoryTarget` (tests).
pub(crate) trait Target: Send + Sync {
    fn kind(&self) -> TargetKind;

    /// Looks at the destination and decides what to do with each file; changes nothing.
    fn plan<'a>(&'a self, release: &'a ReleaseDir) -> BoxFuture<'a, Result<Plan, Error>>;

    /// Carries out a plan made by this target for this release.
    fn apply<'a>(
        &'a self,
        release: &'a ReleaseDir,
        plan: Plan,
    ) -> BoxFuture<'a, Result<Outcome, Error>>;

    /// Reads back what `apply` wrote and compares SHA-256; sets [`Outcome::verified`].
    fn read_back<'a>(
        &'a self,
        release: &'a ReleaseDir,
        outcome: &'a mut Outcome,
    ) -> BoxFuture<'a, Result<(), Error>>;

    /// Makes the verified result visible (rename into place, publish the draft).
    fn finish<'a>(&'a self, outcome: &'a mut Outcome) -> BoxFuture<'a, Result<(), Error>>;

    /// How the releases of provider `provider` of `release` published here before are found by
    /// version: what `capkg release` compares the new one with.
    fn history(&self, release: &ReleaseDir, provider: usize) -> History;

    /// Who installs from here and is read as it reads (`capkg release` verifies the published
    /// release so): `clusterctl`, `cluster-api-operator`; `None` for what nobody installs from.
    fn read_by(&self) -> Option<&'static str> {
        Some("clusterctl")
    }

    /// The files `release --draft` left here for `version` ([`draft_name`]), or, once promoted,
    /// those of the release it became: what `capkg promote` checks and makes public. `None`
    /// when there is neither. `label` names the provider where the location depends on it and
    /// the settings do not say (GitLab's default package name).
    fn read_draft<'a>(
        &'a self,
        version: &'a crate::version::Version,
        label: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<Drafted>, Error>>;
}

/// The step after the plan that failed, for callers that report it (`release` does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    Apply,
    ReadBack,
    Finish,
}

/// Plan, apply, read back and finish, in that order (what `capkg publish` does, for tests).
#[cfg(test)]
pub(crate) async fn publish(target: &dyn Target, release: &ReleaseDir) -> Result<Outcome, Error> {
    let plan = target.plan(release).await?;
    carry_out(target, release, plan, &|_| {})
        .await
        .map_err(|(_, err)| err)
}

/// An offline plan of `target`, checked for what every offline plan is: not remote-checked,
/// every file an upload for [`OFFLINE_REASON`].
#[cfg(test)]
pub(crate) fn plan_offline(target: &dyn Target, release: &ReleaseDir) -> Plan {
    let runtime = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(runtime) => runtime,
        Err(err) => panic!("runtime: {err}"),
    };
    let plan = match runtime.block_on(target.plan(release)) {
        Ok(plan) => plan,
        Err(err) => panic!("offline plan: {err}"),
    };
    assert!(!plan.remote_checked);
    assert!(
        plan.files
            .iter()
            .all(|f| f.action == Action::Upload && f.reason.as_deref() == Some(OFFLINE_REASON)),
        "{:?}",
        plan.files
    );
    plan
}

/// Carries out a plan: apply, read back, finish. The one place this order is written; `publish`,
/// `capkg publish` and `capkg release` all go through it. `before_read_back` sees what was
/// written before it is read back (the CLI switches its progress display there).
pub(crate) async fn carry_out(
    target: &dyn Target,
    release: &ReleaseDir,
    plan: Plan,
    before_read_back: &(dyn Fn(&Outcome) + Sync),
) -> Result<Outcome, (Stage, Error)> {
    if !plan.remote_checked {
        return Err((Stage::Apply, Error::OfflinePlan));
    }
    let mut outcome = target
        .apply(release, plan)
        .await
        .map_err(|e| (Stage::Apply, e))?;
    before_read_back(&outcome);
    target
        .read_back(release, &mut outcome)
        .await
        .map_err(|e| (Stage::ReadBack, e))?;
    target
        .finish(&mut outcome)
        .await
        .map_err(|e| (Stage::Finish, e))?;
    Ok(outcome)
}

/// What to publish to: one variant per target, each holding what was asked for (its
/// `targets:` section of capkg.yaml, or the flags of `capkg publish <target>`). The environment
/// (tokens, CI variables, API URLs) is read when the target opens, so that a missing token is
/// that target's failure, reported with it.
#[derive(Debug, Clone)]
pub(crate) enum TargetRequest {
    Local(local::LocalRequest),
    GitHub(github::GitHubRequest),
    GitLab(gitlab::GitLabRequest),
    Oci(oci::OciRequest),
    #[cfg(test)]
    Memory(std::sync::Arc<memory::MemoryStore>),
}

impl TargetRequest {
    /// The same target, publishing a draft: what `release --draft` writes ([`draft_name`]; a
    /// GitHub release left a draft).
    pub(crate) fn into_draft(self) -> Self {
        match self {
            TargetRequest::Local(request) => TargetRequest::Local(local::LocalRequest {
                draft: true,
                ..request
            }),
            TargetRequest::GitHub(request) => TargetRequest::GitHub(github::GitHubRequest {
                draft: true,
                ..request
            }),
            TargetRequest::GitLab(request) => TargetRequest::GitLab(gitlab::GitLabRequest {
                draft: true,
                ..request
            }),
            TargetRequest::Oci(request) => TargetRequest::Oci(oci::OciRequest {
                draft: true,
                ..request
            }),
            #[cfg(test)]
            TargetRequest::Memory(store) => TargetRequest::Memory(store),
        }
    }

    pub(crate) fn kind(&self) -> TargetKind {
        match self {
            TargetRequest::Local(_) => TargetKind::Local,
            TargetRequest::GitHub(_) => TargetKind::Github,
            TargetRequest::GitLab(_) => TargetKind::Gitlab,
            TargetRequest::Oci(_) => TargetKind::Oci,
            #[cfg(test)]
            TargetRequest::Memory(_) => TargetKind::Memory,
        }
    }
}

/// Whether planning may ask the destination what it already holds.
///
/// A dry run of `capkg release` plans `Offline`: the same plan code, with the questions to the
/// remote left out, so a dry run and a real run cannot describe different URLs or steps. An
/// offline plan marks every file "upload unless identical", needs no token, shows the CI
/// variables a remote target would read as `$NAME` when they are unset, and cannot be carried
/// out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    Remote,
    Offline,
}

/// Why a file of an offline plan is listed.
pub(crate) const OFFLINE_REASON: &str = "upload unless an identical file is there";

/// The environment a target reads (a function, so tests pass their own).
pub(crate) type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The factory: builds the target for a request, reading the environment it needs. Adding a
/// target is one line here.
pub(crate) fn open(
    request: TargetRequest,
    env: Env<'_>,
    services: Services,
    reach: Reach,
) -> Result<Box<dyn Target>, Error> {
    Ok(match request {
        TargetRequest::Local(request) => Box::new(local::LocalTarget::new(request, services)),
        TargetRequest::GitHub(request) => {
            Box::new(github::GitHubTarget::new(request, env, services, reach)?)
        }
        TargetRequest::GitLab(request) => {
            Box::new(gitlab::GitLabTarget::new(request, env, services, reach)?)
        }
        TargetRequest::Oci(request) => {
            Box::new(oci::OciTarget::new(request, env, services, reach)?)
        }
        #[cfg(test)]
        TargetRequest::Memory(store) => Box::new(memory::MemoryTarget::new(store, services)),
    })
}

/// What a target will do with one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Action {
    /// Not there yet: write it.
    Upload,
    /// Identical content is there: leave it.
    Skip,
    /// Different content is there and replacing was allowed: replace it.
    Replace,
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Action::Upload => "upload",
            Action::Skip => "skip",
            Action::Replace => "replace",
        })
    }
}

/// What a target did with one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum FileResult {
    Uploaded,
    Skipped,
    Replaced,
}

impl fmt::Display for FileResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            FileResult::Uploaded => "uploaded",
            FileResult::Skipped => "skipped",
            FileResult::Replaced => "replaced",
        })
    }
}

impl From<Action> for FileResult {
    fn from(action: Action) -> Self {
        match action {
            Action::Upload => FileResult::Uploaded,
            Action::Skip => FileResult::Skipped,
            Action::Replace => FileResult::Replaced,
        }
    }
}

/// The provider, as JSON shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ProviderSummary {
    /// clusterctl's type name (`InfrastructureProvider`).
    #[serde(rename = "type")]
    pub provider_type: String,
    pub name: String,
}

/// One provider of a destination and the URL clusterctl reads it from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ProviderDestination {
    /// clusterctl's type name (`BootstrapProvider`).
    #[serde(rename = "type")]
    pub provider_type: String,
    pub name: String,
    pub label: String,
    pub clusterctl_url: String,
}

impl ProviderDestination {
    /// Every provider of `release` with its clusterctl URL (`urls` in the release's provider
    /// order).
    pub(crate) fn all(release: &ReleaseDir, urls: &[String]) -> Vec<ProviderDestination> {
        release
            .providers
            .iter()
            .zip(urls)
            .map(|(p, url)| ProviderDestination {
                provider_type: p.provider_type.clusterctl_name().to_string(),
                name: p.name.clone(),
                label: p.label(),
                clusterctl_url: url.clone(),
            })
            .collect()
    }
}

/// The local overrides layout clusterctl reads (`--overrides`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Overrides {
    pub folder: PathBuf,
    /// `{folder}/{provider-label}/{version}/{file}` for every file.
    pub files: Vec<PathBuf>,
}

/// A GitHub release, as JSON shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct ReleaseSummary {
    /// `None` in a plan for a release that does not exist yet.
    pub id: Option<u64>,
    pub url: String,
    pub draft: bool,
    pub prerelease: bool,
}

/// What plans and outcomes share: where the release goes and how clusterctl finds it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Destination {
    pub target: TargetKind,
    pub version: String,
    /// The first provider (the only one of a single-provider release).
    pub provider: ProviderSummary,
    pub provider_label: String,
    /// Every provider with its clusterctl URL.
    pub providers: Vec<ProviderDestination>,
    /// The folder, release page or package URL the files go to.
    pub destination: String,
    /// The first provider's components URL for clusterctl's `providers:` entry.
    pub clusterctl_url: String,
    /// A clusterctl configuration snippet (`providers:`, one entry per provider) that uses the
    /// destination.
    pub clusterctl_config: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overrides: Option<Overrides>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<ReleaseSummary>,
    /// Things the user should know (clusterctl limitations, leftovers cleaned up).
    pub warnings: Vec<String>,
}

impl Destination {
    /// The `providers:` snippet of a clusterctl configuration: one entry per provider of the
    /// release, with the URL of the same index in `urls`.
    pub(crate) fn providers_snippet(release: &ReleaseDir, urls: &[String]) -> String {
        let mut snippet = "providers:\n".to_string();
        for (provider, url) in release.providers.iter().zip(urls) {
            snippet.push_str(&format!(
                "  - name: \"{}\"\n    url: \"{}\"\n    type: \"{}\"\n",
                provider.name,
                url,
                provider.provider_type.clusterctl_name()
            ));
        }
        snippet
    }

    /// `urls`: each provider's clusterctl URL, in the release's provider order.
    pub(crate) fn new(
        target: TargetKind,
        release: &ReleaseDir,
        destination: String,
        urls: Vec<String>,
    ) -> Self {
        let clusterctl_config = Self::providers_snippet(release, &urls);
        let providers = ProviderDestination::all(release, &urls);
        let clusterctl_url = urls.into_iter().next().unwrap_or_default();
        let mut warnings = Vec::new();
        if !release.ignored.is_empty() {
            warnings.push(format!(
                "not published, as they are not release files: {}",
                release
                    .ignored
                    .iter()
                    .map(|name| format!("`{name}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        Self {
            target,
            version: release.version.to_string(),
            provider: ProviderSummary {
                provider_type: release
                    .primary()
                    .provider_type
                    .clusterctl_name()
                    .to_string(),
                name: release.primary().name.clone(),
            },
            provider_label: release.provider_label(),
            providers,
            destination,
            clusterctl_url,
            clusterctl_config,
            overrides: None,
            release: None,
            warnings,
        }
    }
}

/// One file in a plan.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PlannedFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
    pub action: Action,
    /// Where the file ends up.
    pub url: String,
    /// Why a file is skipped or replaced ("identical", "different content", "broken upload").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a target will do, decided before it does anything.
#[derive(Serialize)]
pub(crate) struct Plan {
    #[serde(flatten)]
    pub destination: Destination,
    /// Steps besides moving files, in order ("create draft release `v1.2.3`").
    pub steps: Vec<String>,
    /// Every file, in the order the target will handle them.
    pub files: Vec<PlannedFile>,
    /// False for a plan made [`Reach::Offline`]: the destination was not looked at.
    #[serde(skip)]
    pub remote_checked: bool,
    /// What the target learned while planning, for `apply`.
    #[serde(skip)]
    pub(crate) state: Box<dyn Any + Send + Sync>,
}

impl fmt::Debug for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plan")
            .field("destination", &self.destination)
            .field("steps", &self.steps)
            .field("files", &self.files)
            .finish_non_exhaustive()
    }
}

impl Plan {
    pub(crate) fn count(&self, action: Action) -> usize {
        self.files.iter().filter(|f| f.action == action).count()
    }

    /// True when the destination already holds exactly this release.
    pub(crate) fn is_noop(&self) -> bool {
        self.steps.is_empty() && self.files.iter().all(|f| f.action == Action::Skip)
    }

    /// The state `apply` left for this target, or an error for a plan made by another.
    pub(crate) fn take_state<T: 'static>(&mut self) -> Result<T, Error> {
        let state = std::mem::replace(&mut self.state, Box::new(()));
        state
            .downcast::<T>()
            .map(|boxed| *boxed)
            .map_err(|_| Error::ForeignPlan)
    }
}

/// One file in an outcome.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileOutcome {
    pub name: String,
    pub size: u64,
    pub sha256: String,
    pub outcome: FileResult,
    pub url: String,
}

/// What a target did.
#[derive(Serialize)]
pub(crate) struct Outcome {
    #[serde(flatten)]
    pub destination: Destination,
    pub files: Vec<FileOutcome>,
    /// True once every file written in this run was read back and matched.
    pub verified: bool,
    #[serde(skip)]
    pub(crate) state: Box<dyn Any + Send + Sync>,
}

impl fmt::Debug for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Outcome")
            .field("destination", &self.destination)
            .field("files", &self.files)
            .field("verified", &self.verified)
            .finish_non_exhaustive()
    }
}

impl Outcome {
    pub(crate) fn count(&self, result: FileResult) -> usize {
        self.files.iter().filter(|f| f.outcome == result).count()
    }

    pub(crate) fn state_mut<T: 'static>(&mut self) -> Result<&mut T, Error> {
        self.state.downcast_mut::<T>().ok_or(Error::ForeignPlan)
    }
}

/// Why a publish failed. [`Error::is_refusal`] tells a refusal (the input or the remote said no:
/// exit 1) from capkg failing to do its job (exit 2).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    // --- the release folder ---
    #[error(transparent)]
    ReleaseDir(#[from] crate::release_dir::Error),
    #[error("cannot read `{}`", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    // --- what was asked ---
    #[error(
        "a local repository needs a `v`-prefixed version folder (clusterctl looks versions up as `v` + MAJOR.MINOR.PATCH): use `--version v{version}`"
    )]
    VersionNeedsV { version: String },
    #[error("no {what}: pass `{flag}`{}", env.map(|e| format!(" or set `{e}`")).unwrap_or_default())]
    Missing {
        what: &'static str,
        flag: &'static str,
        env: Option<&'static str>,
    },
    #[error("no {forge} token: set {variables}")]
    MissingToken {
        forge: &'static str,
        variables: &'static str,
    },
    /// The only token set may not go to the target's host ([`crate::forge::origin`]).
    #[error("{forge}: {variable} is not sent to `{host}`: {reason}; set {variables} instead")]
    TokenNotForHere {
        forge: &'static str,
        variable: &'static str,
        host: String,
        reason: String,
        variables: &'static str,
    },
    #[error("`{value}` is not a valid {what}: {reason}")]
    Invalid {
        what: &'static str,
        value: String,
        reason: String,
    },
    #[error(transparent)]
    Url(Box<HttpError>),

    // --- the local target ---
    // The flag that replaces it is the hint's, as `capkg release` has none.
    #[error(
        "`{}` already holds a different release ({})",
        path.display(),
        differences.join("; ")
    )]
    FolderDiffers {
        path: PathBuf,
        differences: Vec<String>,
    },
    #[error("`{}` exists and is not a folder", path.display())]
    NotAVersionFolder { path: PathBuf },
    #[error(
        "another publish of `{version}` to `{}` is in progress or has just finished; nothing was written",
        path.display()
    )]
    PublishInProgress { version: String, path: PathBuf },
    #[error("cannot write `{}`", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    // --- remote targets ---
    #[error("{forge} rejected the token ({message}); check {variables}")]
    Unauthorized {
        forge: &'static str,
        message: String,
        variables: &'static str,
    },
    #[error("{forge} refused to {action}: the token lacks the permission ({needed})")]
    Forbidden {
        forge: &'static str,
        action: String,
        needed: String,
    },
    #[error("{forge}: {what} not found at `{url}`")]
    NotFound {
        forge: &'static str,
        what: String,
        url: String,
        hint: Option<String>,
    },
    #[error("{forge} refused to {action}")]
    Refused {
        forge: &'static str,
        action: String,
        #[source]
        source: Box<HttpError>,
    },
    #[error("{forge} is rate limiting capkg")]
    RateLimited {
        forge: &'static str,
        #[source]
        source: Box<HttpError>,
    },
    #[error("could not {action} on {forge}")]
    Unreachable {
        forge: &'static str,
        action: String,
        #[source]
        source: Box<HttpError>,
    },
    #[error("{forge} answered `{url}` with something capkg cannot read: {reason}")]
    Unexpected {
        forge: &'static str,
        url: String,
        reason: String,
    },
    #[error(
        "{count} draft releases have the tag `{tag}` ({}); delete all but one and run again",
        urls.join(", ")
    )]
    SeveralDrafts {
        tag: String,
        count: usize,
        urls: Vec<String>,
    },
    #[error(
        "the release `{tag}` is published and immutable, so its assets cannot change ({files} would); publish a new version"
    )]
    ImmutableRelease { tag: String, files: String },
    #[error(
        "`{name}` is already at `{url}` with different content (SHA-256 {existing}, ours {ours})"
    )]
    Differs {
        name: String,
        url: String,
        existing: String,
        ours: String,
        flag: &'static str,
    },
    #[error(
        "GitLab refused a second `{name}` in package `{package}` version `{version}` (400: {message}): duplicate files are not allowed for this project. Publish a new version, delete the package version in GitLab, or allow duplicates in the group's package registry settings"
    )]
    DuplicateRefused {
        name: String,
        package: String,
        version: String,
        message: String,
    },
    #[error(
        "read-back of `{name}` from `{url}` does not match: SHA-256 {actual}, expected {expected}"
    )]
    ReadBackMismatch {
        name: String,
        url: String,
        expected: String,
        actual: String,
    },
    #[error(
        "the draft at `{location}` was changed since `capkg release --draft`: `{name}` {reason}"
    )]
    DraftChanged {
        name: String,
        location: String,
        reason: String,
    },
    #[error("the plan was made by another target or already used")]
    ForeignPlan,
    #[error("a plan made without looking at the destination (a dry run) cannot be carried out")]
    OfflinePlan,
    #[cfg(test)]
    #[error("the in-memory target was told to fail at `{name}`")]
    Injected { name: String },
}

impl Error {
    /// An HTTP failure no forge-specific reading took: a rate limit that would not clear, a URL
    /// capkg refuses, another answer that said no, or no answer at all.
    pub(crate) fn from_http(forge: &'static str, action: &str, err: HttpError) -> Error {
        match err {
            HttpError::WaitTooLong { .. } | HttpError::StillRateLimited { .. } => {
                Error::RateLimited {
                    forge,
                    source: Box::new(err),
                }
            }
            HttpError::Insecure { .. } | HttpError::BadUrl { .. } => Error::Url(Box::new(err)),
            _ if err.rejection().is_some() => Error::Refused {
                forge,
                action: action.to_string(),
                source: Box::new(err),
            },
            _ => Error::Unreachable {
                forge,
                action: action.to_string(),
                source: Box::new(err),
            },
        }
    }

    /// True when the input or the remote said no (exit 1): a bad release folder, a conflicting
    /// existing release, a refused token or permission, a rate limit that would not clear. False
    /// when capkg could not do its job (exit 2): unreadable paths, missing settings, unreachable
    /// servers, a read-back that does not match.
    fn refusal(&self) -> bool {
        match self {
            Error::Read { .. }
            | Error::Missing { .. }
            | Error::MissingToken { .. }
            | Error::TokenNotForHere { .. }
            | Error::Invalid { .. }
            | Error::Url(_)
            | Error::Write { .. }
            | Error::Unreachable { .. }
            | Error::Unexpected { .. }
            | Error::ReadBackMismatch { .. }
            | Error::ForeignPlan
            | Error::OfflinePlan
            // `--version 1.2.3` is a bad argument, as `--version v1.2` is.
            | Error::VersionNeedsV { .. } => false,
            #[cfg(test)]
            Error::Injected { .. } => false,
            Error::ReleaseDir(source) => crate::error::Classified::is_refusal(source),
            Error::FolderDiffers { .. }
            | Error::NotAVersionFolder { .. }
            | Error::PublishInProgress { .. }
            | Error::Unauthorized { .. }
            | Error::Forbidden { .. }
            | Error::NotFound { .. }
            | Error::Refused { .. }
            | Error::RateLimited { .. }
            | Error::SeveralDrafts { .. }
            | Error::ImmutableRelease { .. }
            | Error::Differs { .. }
            | Error::DraftChanged { .. }
            | Error::DuplicateRefused { .. } => true,
        }
    }

    /// What to do about it, for errors that know.
    fn hint_text(&self) -> Option<String> {
        match self {
            Error::ReleaseDir(source) => source.hint(),
            Error::Unauthorized { variables, .. } => Some(format!(
                "the token in {variables} is missing, expired or for another server"
            )),
            Error::Forbidden { forge: "GitHub", .. } => Some(
                "in GitHub Actions add `permissions: contents: write` to the job; a fine-grained token needs \"Contents: Read and write\" on the repository".into(),
            ),
            Error::Forbidden { forge: "GitLab", .. } => Some(
                "use a token with the `api` scope and at least the Developer role, or CI_JOB_TOKEN in the project's own pipeline; the package registry must be enabled for the project".into(),
            ),
            Error::NotFound { hint, .. } => hint.clone(),
            Error::RateLimited { .. } => Some(
                "wait until the limit resets and run the command again; `capkg publish` waits longer with `--max-wait`".into(),
            ),
            Error::FolderDiffers { .. } => {
                Some("pass `--force` to replace the version folder".into())
            }
            Error::Differs { flag, .. } => Some(format!("pass `{flag}` to replace it")),
            Error::DraftChanged { .. } => Some(
                "nothing was made public; find out who changed the draft, delete it (the `draft-…` folder, OCI tag or GitLab package version, or the GitHub draft release), run `capkg release --draft` again and promote that".into(),
            ),
            Error::Unreachable { .. } => {
                Some("the server did not answer in time or failed repeatedly; run the same command again: publishing resumes where it stopped".into())
            }
            _ => None,
        }
    }
}

impl Classified for Error {
    fn class(&self) -> ErrorClass {
        ErrorClass::refusal_if(self.refusal())
    }

    fn hint(&self) -> Option<String> {
        self.hint_text()
    }
}
