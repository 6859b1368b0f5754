//! The record of a run: what `capkg release --format json` prints, what the CI summary and
//! outputs are made of ([`crate::report::release`]), and how a stopped run says what is done, what is
//! not, and what a re-run does.

use serde::{Serialize, Serializer};

use super::error::Error;
use super::plan::{Mode, Phase, ReleasePlan};
use super::tags::TagCheck;
use crate::diagnostic::{Diagnostic, Summary};
use crate::error::{Classified, ErrorClass};
use crate::settings::ResolvedVersion;
use crate::targets::{
    self, Action, FileResult, Plan, ProviderDestination, ProviderSummary, ReleaseDir, TargetKind,
};
use crate::verify::{Check, VerifyReport, images_exist};

/// Where a run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Stage {
    Version,
    Assemble,
    Checks,
    Plan,
    Publish,
    Verify,
}

/// A target's step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Step {
    Plan,
    Upload,
    ReadBack,
    Publish,
    Verify,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Step::Plan => "planning",
            Step::Upload => "uploading",
            Step::ReadBack => "reading back",
            Step::Publish => "making the release visible",
            Step::Verify => "verifying",
        })
    }
}

/// How the run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Status {
    /// Published (and verified) everywhere.
    Published,
    /// Every destination already held exactly this release (and it verified).
    Unchanged,
    /// `--dry-run`: nothing was written.
    DryRun,
    /// Stopped before writing anything because the input is wrong.
    Refused,
    /// Stopped before writing anything because capkg could not do its job.
    Failed,
    /// Stopped while publishing: some targets are done, some are not.
    Incomplete,
    /// `release --draft`: every target holds the draft.
    Drafted,
    /// `promote`: the draft is public (and verified) everywhere.
    Promoted,
    /// `promote`: every target had made it public already (and it verified).
    AlreadyPromoted,
}

/// What happened at one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TargetState {
    NotStarted,
    Planned,
    Published,
    /// `release --draft`: the draft is there, nobody installs from it yet.
    Drafted,
    Unchanged,
    Failed,
}

/// One provider at one target: its clusterctl URL and what verifying it found.
#[derive(Debug, Serialize)]
pub(crate) struct ProviderReport {
    pub label: String,
    pub clusterctl_url: String,
    pub verify: Option<VerifyReport>,
}

/// One provider's upgrade from the previous release at one target.
#[derive(Debug, Serialize)]
pub(crate) struct UpgradeReport {
    pub label: String,
    /// The version compared with; `None` when nothing was.
    pub previous: Option<String>,
    /// Where the previous release was read.
    pub source: Option<String>,
    /// With which credential it was read, and which was kept back and why (over the network
    /// only: a previous release on this machine has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub access: Option<crate::forge::origin::Access>,
    /// Why nothing was compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Why this previous release was chosen, and what was passed over for it (drafts,
    /// pre-releases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chosen: Option<String>,
    /// What `capkg diff` found (see [`crate::diff::DiffReport`] for the shape).
    pub diff: Option<crate::diff::DiffReport>,
}

impl UpgradeReport {
    /// Nothing compared yet.
    pub(crate) fn new(label: &str) -> Self {
        Self {
            label: label.to_string(),
            previous: None,
            source: None,
            access: None,
            note: None,
            chosen: None,
            diff: None,
        }
    }
}

/// One target in an [`Outcome`].
#[derive(Debug, Serialize)]
pub(crate) struct TargetReport {
    pub target: TargetKind,
    pub state: TargetState,
    /// The first provider's URL (the only one of a single-provider release).
    pub clusterctl_url: Option<String>,
    /// Every provider's URL and verification.
    pub providers: Vec<ProviderReport>,
    pub plan: Option<TargetPlan>,
    /// What publishing did (see [`crate::targets`] for the shape).
    pub result: Option<targets::Outcome>,
    /// The first provider's verification (each provider's is in `providers`).
    pub verify: Option<VerifyReport>,
    /// Each provider's upgrade from the previous release here (`capkg diff`).
    pub upgrade: Vec<UpgradeReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_step: Option<Step>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl TargetReport {
    pub(super) fn new(target: TargetKind) -> Self {
        Self {
            target,
            state: TargetState::NotStarted,
            clusterctl_url: None,
            providers: Vec::new(),
            plan: None,
            result: None,
            verify: None,
            upgrade: Vec::new(),
            failed_step: None,
            error: None,
        }
    }

    /// Each provider's clusterctl URL at this target, keeping what was verified already.
    pub(super) fn set_providers(&mut self, providers: &[ProviderDestination]) {
        self.providers = providers
            .iter()
            .map(|p| ProviderReport {
                label: p.label.clone(),
                clusterctl_url: p.clusterctl_url.clone(),
                verify: None,
            })
            .collect();
    }

    /// Records the verification of provider `index`; the first provider's is also `verify`.
    pub(super) fn record_verify(&mut self, index: usize, report: VerifyReport) {
        if index == 0 {
            self.verify = Some(report.clone());
        }
        if let Some(provider) = self.providers.get_mut(index) {
            provider.verify = Some(report);
        }
    }

    /// Planned: where the release goes and what will be done there; `verified_by` adds the
    /// verification of each provider to the steps (clusterctl, or the operator, reads it).
    pub(super) fn planned(&mut self, plan: &Plan, verified_by: Option<&str>) {
        let mut shown = TargetPlan::from(plan);
        if let Some(reader) = verified_by {
            for provider in &plan.destination.providers {
                shown.steps.push(format!(
                    "verify `{}` as {reader} reads it",
                    provider.clusterctl_url
                ));
            }
        }
        self.state = TargetState::Planned;
        self.clusterctl_url = Some(plan.destination.clusterctl_url.clone());
        self.set_providers(&plan.destination.providers);
        self.plan = Some(shown);
    }

    /// Published (or found there unchanged): what publishing did.
    pub(super) fn published(&mut self, result: targets::Outcome, unchanged: bool) {
        self.state = if unchanged {
            TargetState::Unchanged
        } else {
            TargetState::Published
        };
        self.clusterctl_url = Some(result.destination.clusterctl_url.clone());
        self.set_providers(&result.destination.providers);
        self.result = Some(result);
    }

    pub(super) fn fail(&mut self, step: Step, error: &targets::Error) {
        self.state = TargetState::Failed;
        self.failed_step = Some(step);
        self.error = Some(chain(error));
    }

    /// True when this target is published and verified (or holds it unchanged).
    pub(crate) fn is_done(&self) -> bool {
        matches!(
            self.state,
            TargetState::Published | TargetState::Drafted | TargetState::Unchanged
        ) && self.failed_step.is_none()
    }
}

/// One provider of the release, as JSON shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ReleaseProviderSummary {
    /// clusterctl's type name (`BootstrapProvider`).
    #[serde(rename = "type")]
    pub provider_type: String,
    pub name: String,
    pub label: String,
    /// Its components files, the one clusterctl's URL names first.
    pub components: Vec<String>,
}

/// One file of the release.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileSummary {
    pub name: String,
    pub size: u64,
    pub sha256: String,
}

/// The checks besides lint.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Checks {
    pub version_series: Option<Check>,
    pub tags: TagCheck,
    /// The commit built and its tags ([`super::head`]).
    pub head: super::head::HeadCheck,
    /// Every image exists ([`images_exist`]); `skipped` says why it did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub images: Option<images_exist::ImageCheck>,
}

/// Why a run stopped.
#[derive(Debug, Clone)]
pub(crate) struct ErrorReport {
    pub stage: Stage,
    pub message: String,
    pub hint: Option<String>,
    /// Refused (the input is wrong or the remote said no) or failed (capkg could not do its job).
    pub class: ErrorClass,
}

/// The report is the error `capkg release` exits with: its message is the whole story (the
/// cause chain, what was done, what a re-run does), already flattened and redacted.
impl std::fmt::Display for ErrorReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ErrorReport {}

impl Classified for ErrorReport {
    fn class(&self) -> ErrorClass {
        self.class
    }

    fn hint(&self) -> Option<String> {
        self.hint.clone()
    }
}

/// `{"stage", "message", "hint", "exit_code"}`: the error object every command prints with
/// `--format json` (`message`, `hint`, `exit_code`), plus the stage.
impl Serialize for ErrorReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut object = s.serialize_struct("ErrorReport", 4)?;
        object.serialize_field("stage", &self.stage)?;
        object.serialize_field("message", &self.message)?;
        object.serialize_field("hint", &self.hint)?;
        object.serialize_field("exit_code", &self.class.exit_code())?;
        object.end()
    }
}

/// The record of a run: what `--format json` prints, what summaries and outputs are made of.
#[derive(Debug, Serialize)]
pub(crate) struct Outcome {
    pub status: Status,
    /// `release`, `draft` (`release --draft`) or `promote`.
    pub mode: Mode,
    pub dry_run: bool,
    pub version: Option<String>,
    pub version_source: Option<String>,
    /// The provider of a single-provider release; `None` for several (see `providers`).
    pub provider: Option<ProviderSummary>,
    pub provider_label: Option<String>,
    /// Every provider of the release.
    pub providers: Vec<ReleaseProviderSummary>,
    pub files: Vec<FileSummary>,
    #[serde(serialize_with = "crate::diagnostic::serialize_json")]
    pub diagnostics: Vec<Diagnostic>,
    pub lint: Summary,
    pub checks: Checks,
    /// The phases of the run, in order, as the dry run printed them (a dry run only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<Phase>,
    pub targets: Vec<TargetReport>,
    pub warnings: Vec<String>,
    pub error: Option<ErrorReport>,
}

/// An error and its causes, `: `-separated (`github: uploading failed: could not …`), every
/// known token removed: this text goes into JSON and CI summaries.
pub(super) fn chain(error: &dyn std::error::Error) -> String {
    crate::forge::http::redact(&chain_text(error))
}

fn chain_text(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

impl Outcome {
    /// The record of a run that stopped before a plan existed.
    pub(crate) fn failed(error: &Error, version: Option<&ResolvedVersion>) -> Self {
        let mut outcome = Self {
            status: Status::Failed,
            mode: Mode::Release,
            dry_run: false,
            version: version.map(|v| v.version.to_string()),
            version_source: version.map(|v| v.source.clone()),
            provider: None,
            provider_label: None,
            providers: Vec::new(),
            files: Vec::new(),
            diagnostics: Vec::new(),
            lint: Summary::default(),
            checks: Checks {
                version_series: None,
                tags: TagCheck::default(),
                head: Default::default(),
                images: None,
            },
            phases: Vec::new(),
            targets: Vec::new(),
            warnings: Vec::new(),
            error: None,
        };
        outcome.set_error_once(error.stage(), error);
        if error.is_refusal() {
            outcome.status = Status::Refused;
        }
        outcome
    }

    pub(super) fn from_plan(plan: &ReleasePlan, status: Status, dry_run: bool) -> Self {
        let single = plan.release.as_ref().filter(|r| !r.has_several_providers());
        let provider = single.map(|r| ProviderSummary {
            provider_type: r.primary().provider_type.clusterctl_name().to_string(),
            name: r.primary().name.clone(),
        });
        let providers = plan
            .release
            .iter()
            .flat_map(|r| r.providers.iter())
            .map(|p| ReleaseProviderSummary {
                provider_type: p.provider_type.clusterctl_name().to_string(),
                name: p.name.clone(),
                label: p.label(),
                components: p.components.clone(),
            })
            .collect();
        Self {
            status,
            mode: plan.mode,
            dry_run,
            version: Some(plan.version.version.to_string()),
            version_source: Some(plan.version.source.clone()),
            provider,
            provider_label: single.map(ReleaseDir::provider_label),
            providers,
            files: plan
                .files
                .iter()
                .map(|f| FileSummary {
                    name: f.name.clone(),
                    size: f.size,
                    sha256: f.sha256.clone(),
                })
                .collect(),
            lint: Summary::of(
                &plan.diagnostics,
                plan.files.iter().filter(|f| f.role.is_some()).count(),
            ),
            diagnostics: plan.diagnostics.clone(),
            checks: Checks {
                version_series: plan.version_series.clone(),
                tags: plan.tags.clone(),
                head: plan.head.clone(),
                images: plan
                    .image_check
                    .off_reason()
                    .map(images_exist::ImageCheck::skipped),
            },
            phases: if dry_run { plan.phases() } else { Vec::new() },
            targets: Vec::new(),
            warnings: plan.warnings.clone(),
            error: None,
        }
    }

    /// The exit code: 0, or the error's.
    #[cfg(test)]
    pub(crate) fn exit_code(&self) -> u8 {
        self.error.as_ref().map_or(0, |e| e.class.exit_code())
    }

    pub(super) fn set_error_once(&mut self, stage: Stage, error: &Error) {
        if self.error.is_none() {
            self.error = Some(ErrorReport {
                stage,
                message: chain(error),
                hint: error.hint(),
                class: error.class(),
            });
        }
    }

    /// Blocked by checks: every blocker is reported, nothing was touched.
    pub(super) fn refuse(&mut self, plan: &ReleasePlan) {
        let refusal = plan.blockers.iter().all(Classified::is_refusal);
        let message = plan
            .blockers
            .iter()
            .map(|e| chain(e))
            .collect::<Vec<_>>()
            .join("; ");
        let hint = plan.blockers.iter().find_map(Classified::hint);
        self.status = if refusal {
            Status::Refused
        } else {
            Status::Failed
        };
        self.error = Some(ErrorReport {
            stage: Stage::Checks,
            message: format!("release refused, nothing was published: {message}"),
            hint,
            class: ErrorClass::refusal_if(refusal),
        });
    }

    pub(super) fn stop_before_publishing(&mut self, error: &Error) {
        self.status = if error.is_refusal() {
            Status::Refused
        } else {
            Status::Failed
        };
        self.set_error_once(Stage::Plan, error);
        if let Some(report) = &mut self.error {
            report.message = format!("{}; nothing was published", report.message);
        }
    }

    /// Stopped at target `index`: says what is done and what a re-run will do.
    pub(super) fn stop_while_publishing(&mut self, index: usize, error: &Error) {
        self.status = Status::Incomplete;
        let done: Vec<String> = self
            .targets
            .iter()
            .filter(|t| t.is_done())
            .map(|t| {
                let what = match (t.state, t.verify.is_some()) {
                    (TargetState::Unchanged, true) => "already there, verified",
                    (TargetState::Unchanged, false) => "already there",
                    (TargetState::Drafted, _) => "drafted",
                    (_, true) => "published and verified",
                    (_, false) => "published",
                };
                format!("{} ({what})", t.target)
            })
            .collect();
        let stopped = self.targets.get(index).map(|t| {
            let step = t.failed_step.unwrap_or(Step::Upload);
            let state = match (t.target, step) {
                (_, Step::Verify) => "published, but verifying it failed".to_string(),
                (TargetKind::Gitlab, _) => {
                    let uploaded = t.result.as_ref().map_or(0, |r| r.count(FileResult::Uploaded));
                    format!(
                        "stopped while {step}; files uploaded so far stay in the package{}, and `metadata.yaml` goes last, so clusterctl cannot use the package yet",
                        if uploaded > 0 { format!(" ({uploaded})") } else { String::new() }
                    )
                }
                (TargetKind::Github, _) => format!(
                    "stopped while {step}; the release is still a draft, invisible to clusterctl"
                ),
                (TargetKind::Local, _) => format!(
                    "stopped while {step}; the version folder was not put in place"
                ),
                (TargetKind::Oci, _) => format!(
                    "stopped while {step}; the artifact was not tagged, so the operator cannot see it"
                ),
                #[cfg(test)]
                (TargetKind::Memory, _) => format!("stopped while {step}"),
            };
            format!("{} ({state})", t.target)
        });
        let not_started: Vec<String> = self
            .targets
            .iter()
            .skip(index + 1)
            .map(|t| t.target.to_string())
            .collect();
        let mut message = chain(error);
        message.push_str(". Done: ");
        message.push_str(&if done.is_empty() {
            "nothing".to_string()
        } else {
            done.join(", ")
        });
        if let Some(stopped) = stopped {
            message.push_str(&format!(". Stopped: {stopped}"));
        }
        if !not_started.is_empty() {
            message.push_str(&format!(". Not started: {}", not_started.join(", ")));
        }
        message.push_str(
            ". Run the same command again to finish: files already published are skipped, the rest are published",
        );
        self.error = Some(ErrorReport {
            stage: if matches!(error, Error::Verify { .. } | Error::VerifyFailed { .. }) {
                Stage::Verify
            } else {
                Stage::Publish
            },
            message,
            hint: error.hint(),
            class: error.class(),
        });
    }
}

/// One file in a [`TargetPlan`].
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
    pub url: String,
    /// `upload`, `skip`, `replace`; `null` when the destination was not looked at.
    pub action: Option<Action>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a target will do, as `capkg release` reports it: the target's [`Plan`], with no action
/// for the files of an offline plan (a dry run).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetPlan {
    pub target: TargetKind,
    pub destination: String,
    /// The first provider's URL.
    pub clusterctl_url: String,
    /// Every provider's URL.
    pub providers: Vec<ProviderDestination>,
    pub clusterctl_config: String,
    /// Whether the destination was looked at.
    pub remote_checked: bool,
    pub steps: Vec<String>,
    pub files: Vec<TargetFile>,
    pub warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl From<&Plan> for TargetPlan {
    fn from(plan: &Plan) -> Self {
        let d = &plan.destination;
        let checked = plan.remote_checked;
        Self {
            target: d.target,
            destination: d.destination.clone(),
            clusterctl_url: d.clusterctl_url.clone(),
            providers: d.providers.clone(),
            clusterctl_config: d.clusterctl_config.clone(),
            remote_checked: checked,
            steps: plan.steps.clone(),
            files: plan
                .files
                .iter()
                .map(|f| TargetFile {
                    name: f.name.clone(),
                    size: f.size,
                    sha256: f.sha256.clone(),
                    url: f.url.clone(),
                    action: checked.then_some(f.action),
                    reason: f.reason.clone(),
                })
                .collect(),
            warnings: d.warnings.clone(),
            note: (!checked).then(|| {
                "not compared with what the destination holds: a dry run makes no network requests; a real run compares every file before writing any"
                    .to_string()
            }),
        }
    }
}
