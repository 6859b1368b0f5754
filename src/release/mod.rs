//! `capkg release`: from a tag to a checked, installable release in one step, as one plan.
//!
//! 1. **Version** ([`version`]): `--version`, else the CI tag; `v`-prefixed semver.
//! 2. **Assemble** ([`assembly`]): the configuration and the release files, in memory.
//! 3. **Checks**, all before anything is written, all reported together: lint (every rule, for
//!    this version), `metadata.yaml` has a series for the version, and — in a git checkout —
//!    for every tag `clusterctl upgrade plan` will ask about ([`tags`]).
//! 4. **Plan** every target ([`destinations`]): each looks at its destination and decides per
//!    file. Conflicts (a different file already published) stop the run here. `--dry-run`
//!    stops before this step and prints plans made without network access, compared with the
//!    previous release where that is on this machine.
//! 5. **Publish** to each target in turn: apply, read back, make visible.
//! 6. **Verify** each target's clusterctl URL as clusterctl reads it ([`crate::verify`]).
//!
//! Anything failing in steps 1–4 leaves nothing public. A failure in 5 or 6 is reported with
//! what is done, what is not, and that running the same command again finishes the job:
//! publishing skips identical files, so a re-run only does what is missing.
//!
//! The library never prints: [`plan`], [`dry_run`] and [`publish_after_checks`] return an [`Outcome`], the
//! object `capkg release --format json` prints; [`summary`] renders it as Markdown for a CI step
//! summary and as CI outputs.
//!
//! # JSON shape
//!
//! ```json
//! {
//!   "status": "published | unchanged | dry-run | refused | failed | incomplete",
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
//!     "tags": {"checked": true, "tags": 4, "from_series": "1.0", "uncovered": [], "newer_uncovered": []}
//!   },
//!   "targets": [{
//!     "target": "github", "state": "published | unchanged | planned | failed | not-started",
//!     "clusterctl_url": "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml",
//!     "providers": [{"label": "infrastructure-azure", "clusterctl_url": "...", "verify": {...}}],
//!     "plan": {"destination": "...", "remote_checked": true, "steps": [], "files": [...]},
//!     "result": {... the publish outcome, see crate::targets ...},
//!     "verify": {... see crate::verify::VerifyReport ...},
//!     "failed_step": "upload | read-back | publish | verify",
//!     "error": "..."
//!   }],
//!   "warnings": ["..."],
//!   "error": {"stage": "checks", "message": "...", "hint": "...", "exit": 1}
//! }
//! ```
//!
//! A release of several providers (capkg.yaml `providers:`) is one tag holding every provider's
//! files: `providers` lists them all, `provider` and `provider_label` are `null`, and each
//! target's `providers` has every provider's clusterctl URL and verification (`clusterctl_url`
//! and `verify` of a target are the first provider's).

pub(crate) mod assembly;
pub(crate) mod destinations;
use crate::verify::images_exist;
pub(crate) mod summary;
pub(crate) mod tags;
pub(crate) mod version;

use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};

use self::assembly::{Assembled, Assembler};
use self::destinations::TargetPlan;
use self::tags::{GitTags, TagCheck};
use self::version::ResolvedVersion;
use crate::ci::CiContext;
use crate::diagnostic::{Diagnostic, Severity, Summary};
use crate::error::{Classified, ErrorClass};
use crate::files;
use crate::provider::{ProviderType, ReleaseProvider};
use crate::rules::{self};
use crate::targets::github::GitHubRequest;
use crate::targets::{
    self, FileResult, ProviderDestination, ProviderSummary, Reach, ReleaseDir, Services,
    TargetKind, TargetRequest,
};
use crate::verify::{self, Check, VerifyReport, VerifyRequest};
use crate::version::{Version, VersionError};

/// What `capkg release` was asked.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReleaseRequest {
    /// `--version`; default the CI tag.
    pub version: Option<Version>,
    /// `--target`; empty: every configured target.
    pub targets: Vec<TargetKind>,
    pub provider_type: Option<ProviderType>,
    pub provider_name: Option<String>,
    /// `--previous`; wins over capkg.yaml `previous:`.
    pub previous: Option<Previous>,
}

/// Which release the new one is compared with before publishing (`capkg diff`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Previous {
    /// The newest version older than this one published at each target.
    #[default]
    Newest,
    /// `none`: no comparison.
    Skip,
    /// A version, looked up at each target (`v1.2.2`), or a source `capkg verify` reads.
    Given(String),
}

impl Previous {
    /// `--previous REF` or `previous: REF`.
    pub(crate) fn parse(text: &str) -> Self {
        match text.trim() {
            "none" => Previous::Skip,
            "" => Previous::Newest,
            other => Previous::Given(other.to_string()),
        }
    }
}

/// Everything decided before publishing: the release, the checks, the destinations.
#[derive(Debug)]
pub(crate) struct ReleasePlan {
    pub version: ResolvedVersion,
    /// The configuration's folder.
    pub root: PathBuf,
    pub files: Vec<targets::ReleaseFile>,
    /// The release as publish sees it; `None` when its files do not make one (see `blockers`).
    pub release: Option<ReleaseDir>,
    pub diagnostics: Vec<Diagnostic>,
    pub version_series: Option<Check>,
    pub tags: TagCheck,
    /// Where it goes, in publishing order. Public so that tests can point a plan elsewhere.
    pub destinations: Vec<TargetRequest>,
    /// What stops the release before anything is written.
    pub blockers: Vec<Error>,
    /// `lint: allow:`, applied to what verify finds in the published release too.
    pub waivers: Vec<rules::Waiver>,
    pub warnings: Vec<String>,
    /// The images the components name, looked up before publishing ([`images_exist`]).
    pub images: Vec<images_exist::ImageUse>,
    /// Why the image check is off (`check_images: false`), when it is.
    pub images_off: Option<String>,
    /// The release to compare with, at each target.
    pub previous: Previous,
    /// The new release per provider (in the release's provider order), as `capkg diff` reads
    /// one.
    pub compared: Vec<verify::ReadRelease>,
}

impl ReleasePlan {
    pub(crate) fn is_blocked(&self) -> bool {
        !self.blockers.is_empty()
    }
}

/// Steps 1–3 and the choice of targets: no network, nothing written.
pub(crate) fn plan(
    request: &ReleaseRequest,
    ci: &CiContext,
    assembler: &dyn Assembler,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ReleasePlan, Error> {
    let version = version::resolve(request.version.as_ref(), ci, &|| {
        assembler.default_version()
    })?;
    let assembled = assembler.assemble(&version.version)?;
    let mut warnings: Vec<String> = version.warning.iter().cloned().collect();
    warnings.extend(assembled.findings_note.clone());
    let destinations =
        destinations::choose(&assembled.targets, &assembled.root, &request.targets, env)?;
    let Assembled {
        root,
        files: release_files,
        diagnostics,
        providers,
        targets: _,
        waivers,
        check_images,
        findings_note: _,
        previous,
    } = assembled;
    let previous = request
        .previous
        .clone()
        .or(previous.as_deref().map(Previous::parse))
        .unwrap_or_default();
    // Flags describe the one provider of a single-provider release (the assembler refuses them
    // for several); lint below runs only when the assembler did not.
    let single = match providers.as_slice() {
        [only] => Some(only),
        _ => None,
    };
    let provider_type = request.provider_type.or(single.map(|p| p.provider_type));
    let provider_name = request
        .provider_name
        .clone()
        .or(single.map(|p| p.name.clone()));

    // The assemble step lints with the version when it can; otherwise lint here.
    let linted = lint_release(
        &root,
        &release_files,
        provider_type,
        provider_name.as_deref(),
        &version.version,
        diagnostics.is_none(),
    );
    let diagnostics = diagnostics.unwrap_or_else(|| linted.diagnostics.clone());
    let mut blockers = Vec::new();
    let summary = Summary::of(&diagnostics, release_files.len());
    if summary.errors > 0 {
        blockers.push(Error::LintErrors {
            errors: summary.errors,
            warnings: summary.warnings,
        });
    }

    let label = if providers.len() > 1 {
        Some(
            providers
                .iter()
                .map(ReleaseProvider::label)
                .collect::<Vec<_>>()
                .join(", "),
        )
    } else {
        linted.label.clone()
    };
    let version_series = linted
        .release
        .metadata()
        .map(|_| verify::series_check(&linted.release, &version.version, label.as_deref()));
    if let Some(check) = version_series.as_ref().filter(|c| !c.ok) {
        blockers.push(Error::VersionNotCovered {
            version: version.version.to_string(),
            message: check.message.clone(),
        });
    }

    let tags = match linted.series.as_deref() {
        None => TagCheck {
            note: Some("no readable metadata.yaml: tags were not checked".into()),
            ..TagCheck::default()
        },
        Some(series) => match tags::git_tags(&root)? {
            GitTags::NotACheckout { reason } => TagCheck {
                note: Some(format!("not a git checkout, tags not checked: {reason}")),
                ..TagCheck::default()
            },
            GitTags::Tags { tags, shallow } => {
                let mut check = tags::check(&tags, series, &version.version);
                if shallow {
                    let note = "the checkout is shallow, so tags may be missing (with actions/checkout use `fetch-depth: 0`)";
                    check.note = Some(match check.note.take() {
                        Some(other) => format!("{note}; {other}"),
                        None => note.to_string(),
                    });
                }
                check
            }
        },
    };
    if !tags.uncovered.is_empty() {
        blockers.push(Error::TagsNotCovered {
            series: tags::missing_series(&tags.uncovered),
            tags: tags.uncovered.clone(),
        });
    }

    let release = if providers.is_empty() {
        ReleaseDir::from_files(
            &root,
            version.version.clone(),
            provider_type,
            provider_name.as_deref(),
            release_files.clone(),
            Vec::new(),
        )
    } else {
        ReleaseDir::with_providers(
            &root,
            version.version.clone(),
            providers,
            release_files.clone(),
            Vec::new(),
        )
    };
    let release = match release {
        Ok(release) => Some(release),
        Err(err) => {
            // Lint has said why already when it found errors.
            if summary.errors == 0 {
                blockers.push(Error::Release(err.into()));
            }
            None
        }
    };
    let compared = release
        .as_ref()
        .map(|r| compared_releases(r, &linted.release, &version.version))
        .unwrap_or_default();
    Ok(ReleasePlan {
        version,
        root,
        files: release_files,
        release,
        diagnostics,
        version_series,
        tags,
        destinations,
        blockers,
        waivers,
        warnings,
        images: images_exist::image_uses(&[&linted.release]),
        images_off: if !check_images {
            Some("`check_images: false` in capkg.yaml".to_string())
        } else if env("CAPKG_CHECK_IMAGES").is_some_and(|v| v.trim() == "false") {
            Some("CAPKG_CHECK_IMAGES=false".to_string())
        } else {
            None
        },
        previous,
        compared,
    })
}

/// Each provider's part of the release: `metadata.yaml`, its components files, and the templates
/// and ClusterClass files for the provider they belong to, as a local repository keeps them.
fn compared_releases(
    release: &ReleaseDir,
    files: &files::Release,
    version: &Version,
) -> Vec<verify::ReadRelease> {
    let templates_owner = crate::provider::templates_owner(&release.providers);
    release
        .providers
        .iter()
        .enumerate()
        .map(|(index, provider)| verify::ReadRelease {
            release: files::Release {
                dir: files.dir.clone(),
                files: files
                    .files
                    .iter()
                    .filter(|f| {
                        f.role == crate::provider::FileRole::Metadata
                            || provider.components.iter().any(|c| c == f.file_name())
                            || (f.role.is_template() && templates_owner == Some(index))
                    })
                    .cloned()
                    .collect(),
                near_misses: Vec::new(),
            },
            options: rules::Options {
                provider_type: Some(provider.provider_type),
                provider_name: Some(provider.name.clone()),
                version: Some(version.clone()),
            },
        })
        .collect()
}

/// The release files as lint sees them, the provider label and the release series.
struct Linted {
    release: files::Release,
    diagnostics: Vec<Diagnostic>,
    label: Option<String>,
    series: Option<Vec<tags::Series>>,
}

fn lint_release(
    root: &Path,
    release_files: &[targets::ReleaseFile],
    provider_type: Option<ProviderType>,
    provider_name: Option<&str>,
    version: &Version,
    run_rules: bool,
) -> Linted {
    let release = files::Release {
        dir: root.to_path_buf(),
        files: release_files
            .iter()
            .filter_map(|f| {
                let role = f.role.clone()?;
                Some(files::load_text(
                    &f.name,
                    crate::yaml::text_lossy(&f.contents).into_owned(),
                    role,
                ))
            })
            .collect(),
        near_misses: Vec::new(),
    };
    let options = rules::Options {
        provider_type,
        provider_name: provider_name.map(str::to_string),
        version: Some(version.clone()),
    };
    let label = rules::Context::new(&release, &options).provider.label();
    let diagnostics = if run_rules {
        rules::run(std::slice::from_ref(&release), &options)
    } else {
        Vec::new()
    };
    let series = release
        .metadata()
        .filter(|m| m.yaml.errors.is_empty())
        .map(|m| {
            rules::release_series(m)
                .iter()
                .filter_map(|s| {
                    let (major, minor) = s.major_minor()?;
                    Some(tags::Series {
                        major: u64::try_from(major).ok()?,
                        minor: u64::try_from(minor).ok()?,
                        contract: s.contract.map(str::to_string),
                    })
                })
                .collect()
        });
    Linted {
        release,
        diagnostics,
        label,
        series,
    }
}

/// `--dry-run`: the plan of every target without network access (the local target plans for
/// real: it reads only the file system).
pub(crate) async fn dry_run(
    plan: &ReleasePlan,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    services: Services,
) -> Outcome {
    let mut outcome = Outcome::from_plan(plan, Status::DryRun, true);
    if outcome.checks.images.is_none() {
        outcome.checks.images = Some(images_exist::ImageCheck::skipped(
            "--dry-run makes no network requests",
        ));
    }
    if plan.is_blocked() {
        outcome.refuse(plan);
    }
    let Some(release) = &plan.release else {
        return outcome;
    };
    for spec in &plan.destinations {
        let mut report = TargetReport::new(spec.kind());
        // Every target plans offline: the real plan code, no network requests.
        let mut destination_providers = Vec::new();
        let planned = match targets::open(spec.clone(), env, services.clone(), Reach::Offline) {
            Ok(target) => target.plan(release).await.map(|p| {
                destination_providers = p.destination.providers.clone();
                let mut target_plan = TargetPlan::from(&p);
                let reader = match spec.kind() {
                    TargetKind::Oci => "cluster-api-operator",
                    _ => "clusterctl",
                };
                for provider in &p.destination.providers {
                    target_plan.steps.push(format!(
                        "verify `{}` as {reader} reads it",
                        provider.clusterctl_url
                    ));
                }
                target_plan
            }),
            Err(err) => Err(err),
        };
        match planned {
            Ok(target_plan) => {
                report.state = TargetState::Planned;
                report.clusterctl_url = Some(target_plan.clusterctl_url.clone());
                report.set_providers(&target_plan.providers);
                report.plan = Some(target_plan);
                // The upgrade check a real run makes, where the previous release is on this
                // machine; a break refuses the dry run as it would the release.
                let index = outcome.targets.len();
                let compared = match verify::Settings::resolve(None, env)
                    .and_then(|default| target_settings(plan, index, env, &default))
                {
                    Ok(settings) => {
                        upgrade_from_previous(
                            plan,
                            spec.kind(),
                            &destination_providers,
                            &settings,
                            &services,
                            Reach::Offline,
                        )
                        .await
                    }
                    Err(source) => Err(Error::Previous {
                        target: spec.kind(),
                        source,
                    }),
                };
                match compared {
                    Ok(upgrades) => {
                        if let Some(error) = upgrade_break(spec.kind(), &upgrades) {
                            outcome.set_error_once(Stage::Plan, &error);
                        }
                        report.upgrade = upgrades;
                    }
                    Err(error) => outcome.set_error_once(Stage::Plan, &error),
                }
            }
            Err(err) => {
                report.state = TargetState::Failed;
                report.error = Some(chain(&err));
                outcome.set_error_once(
                    Stage::Plan,
                    &Error::Target {
                        target: spec.kind(),
                        step: Step::Plan,
                        source: err,
                    },
                );
            }
        }
        outcome.targets.push(report);
    }
    if outcome.error.is_some() && outcome.status == Status::DryRun {
        outcome.status = Status::Refused;
    }
    outcome
}

/// Steps 4–6: plan every target, then publish to and verify each in turn.
#[cfg(test)]
pub(crate) async fn publish(
    plan: &ReleasePlan,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    services: Services,
) -> Outcome {
    publish_after_checks(plan, env, services, &|_| {}).await
}

/// Steps 4–6 as `publish` runs them, calling `checked` with the outcome so far once every check passed (lint, series,
/// tags, images) and before any target is opened: the command prints the checks then, before
/// the upload progress.
pub(crate) async fn publish_after_checks(
    plan: &ReleasePlan,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    services: Services,
    checked: &(dyn Fn(&Outcome) + Sync),
) -> Outcome {
    let mut outcome = Outcome::from_plan(plan, Status::Published, false);
    if plan.is_blocked() {
        outcome.refuse(plan);
        return outcome;
    }
    let Some(release) = &plan.release else {
        outcome.refuse(plan);
        return outcome;
    };
    outcome.targets = plan
        .destinations
        .iter()
        .map(|spec| TargetReport::new(spec.kind()))
        .collect();

    // Verify reads through the same API and tokens the targets use.
    let verify_settings = match verify::Settings::resolve(None, env) {
        Ok(settings) => settings,
        Err(err) => {
            let error = Error::Verify {
                target: plan
                    .destinations
                    .first()
                    .map_or(TargetKind::Local, TargetRequest::kind),
                source: err,
            };
            outcome.stop_before_publishing(&error);
            return outcome;
        }
    };

    // Every image exists, before anything is made public.
    if plan.images_off.is_none() {
        let found = images_exist::check(&plan.images, &verify_settings.origins, &services).await;
        outcome.warnings.extend(found.warnings());
        let missing = (!found.ok()).then(|| Error::ImagesMissing {
            count: found.missing.len(),
            images: found.missing_text(),
        });
        outcome.checks.images = Some(found);
        if let Some(error) = missing {
            outcome.stop_before_publishing(&error);
            return outcome;
        }
    }

    checked(&outcome);

    // Open and plan every target before any of them writes.
    let mut opened = Vec::new();
    for (spec, report) in plan.destinations.iter().zip(outcome.targets.iter_mut()) {
        let result = targets::open(spec.clone(), env, services.clone(), Reach::Remote);
        let target = match result {
            Ok(target) => target,
            Err(err) => {
                report.fail(Step::Plan, &err);
                let error = Error::Target {
                    target: spec.kind(),
                    step: Step::Plan,
                    source: err,
                };
                outcome.stop_before_publishing(&error);
                return outcome;
            }
        };
        match target.plan(release).await {
            Ok(target_plan) => {
                report.state = TargetState::Planned;
                report.clusterctl_url = Some(target_plan.destination.clusterctl_url.clone());
                report.set_providers(&target_plan.destination.providers);
                report.plan = Some(TargetPlan::from(&target_plan));
                opened.push((target, target_plan));
            }
            Err(err) => {
                report.fail(Step::Plan, &err);
                let error = Error::Target {
                    target: spec.kind(),
                    step: Step::Plan,
                    source: err,
                };
                outcome.stop_before_publishing(&error);
                return outcome;
            }
        }
    }

    // The upgrade from the previous release at every target, before any of them writes.
    for (index, (target, target_plan)) in opened.iter().enumerate() {
        let kind = target.kind();
        let compared = match target_settings(plan, index, env, &verify_settings) {
            Ok(settings) => {
                upgrade_from_previous(
                    plan,
                    kind,
                    &target_plan.destination.providers,
                    &settings,
                    &services,
                    Reach::Remote,
                )
                .await
            }
            Err(source) => Err(Error::Previous {
                target: kind,
                source,
            }),
        };
        let upgrades = match compared {
            Ok(upgrades) => upgrades,
            Err(error) => {
                outcome.stop_before_publishing(&error);
                return outcome;
            }
        };
        let broken = upgrade_break(kind, &upgrades);
        if let Some(report) = outcome.targets.get_mut(index) {
            report.upgrade = upgrades;
        }
        if let Some(error) = broken {
            outcome.stop_before_publishing(&error);
            return outcome;
        }
    }

    for (index, (target, target_plan)) in opened.into_iter().enumerate() {
        let kind = target.kind();
        let unchanged = target_plan.is_noop();
        let step_result = targets::carry_out(target.as_ref(), release, target_plan, &|_| {})
            .await
            .map_err(|(stage, e)| {
                let step = match stage {
                    targets::Stage::Apply => Step::Upload,
                    targets::Stage::ReadBack => Step::ReadBack,
                    targets::Stage::Finish => Step::Publish,
                };
                (step, e)
            });
        let Some(report) = outcome.targets.get_mut(index) else {
            break;
        };
        let result = match step_result {
            Ok(result) => result,
            Err((step, err)) => {
                report.fail(step, &err);
                let error = Error::Target {
                    target: kind,
                    step,
                    source: err,
                };
                outcome.stop_while_publishing(index, &error);
                return outcome;
            }
        };
        report.state = if unchanged {
            TargetState::Unchanged
        } else {
            TargetState::Published
        };
        let url = result.destination.clusterctl_url.clone();
        report.clusterctl_url = Some(url.clone());
        report.set_providers(&result.destination.providers);
        let provider_urls = result.destination.providers.clone();
        report.result = Some(result);

        // Verify through each provider's clusterctl URL, as clusterctl reads it.
        if kind == TargetKind::Memory {
            continue;
        }
        let settings = match target_settings(plan, index, env, &verify_settings) {
            Ok(settings) => settings,
            Err(err) => {
                let error = Error::Verify {
                    target: kind,
                    source: err,
                };
                if let Some(report) = outcome.targets.get_mut(index) {
                    report.failed_step = Some(Step::Verify);
                    report.error = Some(chain(&error));
                }
                outcome.stop_while_publishing(index, &error);
                return outcome;
            }
        };
        for (provider_index, (provider, destination)) in
            release.providers.iter().zip(&provider_urls).enumerate()
        {
            let url = destination.clusterctl_url.clone();
            let verified = verify::verify(
                &VerifyRequest {
                    source: url.clone(),
                    provider_name: Some(provider.name.clone()),
                    provider_type: Some(provider.provider_type),
                    version: Some(release.version.to_string()),
                    // Looked up before publishing already.
                    check_images: false,
                    skip_checks: false,
                },
                &settings,
                services.clone(),
            )
            .await
            .map(|report| report.waive(&plan.waivers, &plan.root));
            let Some(report) = outcome.targets.get_mut(index) else {
                break;
            };
            match verified {
                Ok(verify_report) if verify_report.ok => {
                    report.record_verify(provider_index, verify_report);
                }
                Ok(verify_report) => {
                    let error = Error::VerifyFailed {
                        target: kind,
                        url,
                        errors: verify_report.error_count(),
                        first: first_problem(&verify_report),
                    };
                    report.failed_step = Some(Step::Verify);
                    report.error = Some(chain(&error));
                    report.record_verify(provider_index, verify_report);
                    outcome.stop_while_publishing(index, &error);
                    return outcome;
                }
                Err(err) => {
                    let error = Error::Verify {
                        target: kind,
                        source: err,
                    };
                    report.failed_step = Some(Step::Verify);
                    report.error = Some(chain(&error));
                    outcome.stop_while_publishing(index, &error);
                    return outcome;
                }
            }
        }
    }
    if outcome
        .targets
        .iter()
        .all(|t| t.state == TargetState::Unchanged)
    {
        outcome.status = Status::Unchanged;
    }
    outcome
}

/// How verify reads target `index`: a GitHub target configured with its own API through it.
fn target_settings(
    plan: &ReleasePlan,
    index: usize,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    default: &verify::Settings,
) -> Result<verify::Settings, verify::Error> {
    match plan.destinations.get(index) {
        Some(TargetRequest::GitHub(GitHubRequest {
            api_url: Some(api), ..
        })) => verify::Settings::resolve(Some(api), env),
        _ => Ok(default.clone()),
    }
}

/// The previous release of each provider at one target, compared with this one. With
/// `Reach::Offline` (a dry run) only a previous release on this machine is read (a local
/// repository, a folder or `file://` given as `--previous`); for one behind the network the
/// report says it was not compared.
async fn upgrade_from_previous(
    plan: &ReleasePlan,
    kind: TargetKind,
    providers: &[ProviderDestination],
    settings: &verify::Settings,
    services: &Services,
    reach: Reach,
) -> Result<Vec<UpgradeReport>, Error> {
    let this = &plan.version.version;
    let mut reports = Vec::new();
    for (destination, new) in providers.iter().zip(&plan.compared) {
        let mut report = UpgradeReport {
            label: destination.label.clone(),
            previous: None,
            source: None,
            access: None,
            note: None,
            diff: None,
        };
        let url = &destination.clusterctl_url;
        // Credentials go to this target's own origin only ([`verify::Settings::for_previous`]).
        let settings = &settings.for_previous(url);
        // The version's path segment of the URL, for another version.
        let at_version =
            |version: &str| url.replacen(&format!("/{this}/"), &format!("/{version}/"), 1);
        let previous_error = |source| Error::Previous {
            target: kind,
            source,
        };
        let this_text = this.to_string();
        if reach == Reach::Offline
            && kind != TargetKind::Memory
            && previous_needs_network(&plan.previous, url)
        {
            report.note = Some(
                "not compared with the previous release: a dry run makes no network requests (`capkg diff` compares two releases wherever they are)".into(),
            );
            reports.push(report);
            continue;
        }
        // Where the previous release is, and its version where the source does not say it.
        let source: Option<(String, Option<String>)> = match (&plan.previous, kind) {
            (_, TargetKind::Memory) => continue,
            (Previous::Skip, _) => {
                report.note = Some("not compared: `--previous none`".into());
                None
            }
            (Previous::Given(given), _) if is_source(given) => Some((given.clone(), None)),
            (Previous::Given(version), TargetKind::Oci) => {
                let found =
                    verify::oci::previous_at(url, &this_text, version).map_err(previous_error)?;
                Some((found.source, Some(found.version)))
            }
            (Previous::Given(version), _) => Some((at_version(version), None)),
            (Previous::Newest, TargetKind::Oci)
                if !verify::oci::tag_holds_version(url, &this_text) =>
            {
                report.note = Some(
                    "the tag does not hold the version, so older releases cannot be found among the tags: pass `--previous oci://REF:TAG` to compare".into(),
                );
                None
            }
            (Previous::Newest, TargetKind::Oci) => {
                verify::oci::previous_tag(url, this, settings, services)
                    .await
                    .map_err(previous_error)?
                    .map(|found| (found.source, Some(found.version)))
            }
            (Previous::Newest, _) => verify::previous_version(url, this, settings, services)
                .await
                .map_err(previous_error)?
                .map(|version| (at_version(&version), None)),
        };
        let Some((source, version)) = source else {
            if report.note.is_none() {
                report.note = Some(format!(
                    "first release of {} here: nothing to compare",
                    destination.label
                ));
            }
            reports.push(report);
            continue;
        };
        let request = crate::diff::DiffRequest {
            provider_name: new.options.provider_name.clone(),
            provider_type: new.options.provider_type,
            version,
            ..crate::diff::DiffRequest::default()
        };
        report.access = settings.access(&source);
        let old = crate::diff::read(&source, &request, settings, services.clone())
            .await
            .map_err(|source| Error::Previous {
                target: kind,
                source,
            })?;
        let mut diff = crate::diff::compare(&old.releases, std::slice::from_ref(new));
        diff.old = crate::diff::side(&old);
        diff.new = crate::diff::SideInfo {
            source: url.clone(),
            version: Some(this.to_string()),
            provider_label: Some(destination.label.clone()),
        };
        report.previous = old.version.clone();
        report.source = Some(source);
        report.diff = Some(diff.waive(&plan.waivers, &plan.root));
        reports.push(report);
    }
    Ok(reports)
}

/// The first upgrade at one target that an error (after waivers) breaks, as the error that
/// refuses the release.
fn upgrade_break(kind: TargetKind, upgrades: &[UpgradeReport]) -> Option<Error> {
    upgrades.iter().find_map(|u| {
        let diff = u.diff.as_ref().filter(|d| !d.ok)?;
        Some(Error::UpgradeBreaks {
            target: kind,
            label: u.label.clone(),
            previous: u.previous.clone().unwrap_or_default(),
            errors: diff.summary.errors,
            first: diff
                .diagnostics
                .iter()
                .find(|d| d.is_blocking_error())
                .map(|d| format!("{}: {}", d.rule, d.message))
                .unwrap_or_default(),
        })
    })
}

/// Reading the previous release needs the network: a source given by URL other than `file://`,
/// or, for a version or the newest one, a target that is not on this machine (`target_url`, the
/// new release's clusterctl URL there).
fn previous_needs_network(previous: &Previous, target_url: &str) -> bool {
    let remote = |url: &str| url.contains("://") && !url.starts_with("file://");
    match previous {
        Previous::Skip => false,
        Previous::Given(given) if is_source(given) => remote(given),
        Previous::Given(_) | Previous::Newest => remote(target_url),
    }
}

/// `--previous` names a source rather than a version.
fn is_source(text: &str) -> bool {
    text.contains("://") || text.contains('/') || Path::new(text).is_dir()
}

fn first_problem(report: &VerifyReport) -> String {
    report
        .checks
        .iter()
        .find(|c| !c.ok)
        .map(|c| c.message.clone())
        .or_else(|| {
            report
                .diagnostics
                .iter()
                .find(|d| d.severity == Severity::Error)
                .map(|d| format!("{}: {}", d.rule, d.message))
        })
        .unwrap_or_default()
}

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
}

/// What happened at one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TargetState {
    NotStarted,
    Planned,
    Published,
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
    /// What `capkg diff` found (see [`crate::diff::DiffReport`] for the shape).
    pub diff: Option<crate::diff::DiffReport>,
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
    fn new(target: TargetKind) -> Self {
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
    fn set_providers(&mut self, providers: &[ProviderDestination]) {
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
    fn record_verify(&mut self, index: usize, report: VerifyReport) {
        if index == 0 {
            self.verify = Some(report.clone());
        }
        if let Some(provider) = self.providers.get_mut(index) {
            provider.verify = Some(report);
        }
    }

    fn fail(&mut self, step: Step, error: &targets::Error) {
        self.state = TargetState::Failed;
        self.failed_step = Some(step);
        self.error = Some(chain(error));
    }

    /// True when this target is published and verified (or holds it unchanged).
    pub(crate) fn is_done(&self) -> bool {
        matches!(self.state, TargetState::Published | TargetState::Unchanged)
            && self.failed_step.is_none()
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

/// `{"stage", "message", "hint", "exit", "exit_code"}`: the error object every command prints
/// with `--format json` (`message`, `hint`, `exit_code`), plus the stage and the older `exit`.
impl Serialize for ErrorReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut object = s.serialize_struct("ErrorReport", 5)?;
        object.serialize_field("stage", &self.stage)?;
        object.serialize_field("message", &self.message)?;
        object.serialize_field("hint", &self.hint)?;
        object.serialize_field("exit", &self.class.exit_code())?;
        object.serialize_field("exit_code", &self.class.exit_code())?;
        object.end()
    }
}

/// The record of a run: what `--format json` prints, what summaries and outputs are made of.
#[derive(Debug, Serialize)]
pub(crate) struct Outcome {
    pub status: Status,
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
    pub targets: Vec<TargetReport>,
    pub warnings: Vec<String>,
    pub error: Option<ErrorReport>,
}

/// An error and its causes, `: `-separated (`github: uploading failed: could not …`), every
/// known token removed: this text goes into JSON and CI summaries.
fn chain(error: &dyn std::error::Error) -> String {
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
                images: None,
            },
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

    fn from_plan(plan: &ReleasePlan, status: Status, dry_run: bool) -> Self {
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
                images: plan
                    .images_off
                    .clone()
                    .map(images_exist::ImageCheck::skipped),
            },
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

    fn set_error_once(&mut self, stage: Stage, error: &Error) {
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
    fn refuse(&mut self, plan: &ReleasePlan) {
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

    fn stop_before_publishing(&mut self, error: &Error) {
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
    fn stop_while_publishing(&mut self, index: usize, error: &Error) {
        self.status = Status::Incomplete;
        let done: Vec<String> = self
            .targets
            .iter()
            .filter(|t| t.is_done())
            .map(|t| {
                let what = match (t.state, t.verify.is_some()) {
                    (TargetState::Unchanged, true) => "already there, verified",
                    (TargetState::Unchanged, false) => "already there",
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

/// Why a release stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    #[error("{count} image(s) the components name are not in their registry: {images}")]
    ImagesMissing { count: usize, images: String },
    #[error(
        "no version to release: pass `--version vX.Y.Z`, or run on a tag push (GITHUB_REF_NAME with GITHUB_REF_TYPE=tag, CI_COMMIT_TAG)"
    )]
    NoVersion,
    #[error("the tag `{tag}` ({variable}) is not a semantic version")]
    TagNotSemver {
        tag: String,
        variable: &'static str,
        #[source]
        source: VersionError,
    },
    #[error(
        "the version `{version}` ({origin}) lacks the `v` prefix: clusterctl looks releases up as `v` + MAJOR.MINOR.PATCH, so it would never find this one"
    )]
    VersionNeedsV { version: String, origin: String },
    #[error(
        "no capkg.yaml in `{}` or above it (up to the repository root): `capkg init` writes one, or pass `--config`",
        dir.display()
    )]
    NoConfig { dir: PathBuf },
    #[error(transparent)]
    Config { source: crate::config::ConfigError },
    #[error(transparent)]
    SeveralProviders {
        source: crate::config::SeveralProviders,
    },
    #[error("cannot assemble the release")]
    Assemble(#[source] crate::assemble::Error),
    #[error("lint found {errors} error(s) ({warnings} warning(s))")]
    LintErrors { errors: usize, warnings: usize },
    #[error("metadata.yaml does not cover the version {version}: {message}")]
    VersionNotCovered { version: String, message: String },
    #[error(
        "metadata.yaml has no release series for the git tag(s) {} (series {series}): `clusterctl upgrade plan` reads the newest metadata.yaml and fails for every version without a series",
        tags.join(", ")
    )]
    TagsNotCovered { tags: Vec<String>, series: String },
    #[error("git failed in `{}`: {message}", dir.display())]
    Git { dir: PathBuf, message: String },
    #[error(
        "the configuration names no targets: add `targets:` (local, github, gitlab) to capkg.yaml"
    )]
    NoTargets,
    #[error("`--target {target}` is not configured in capkg.yaml `targets:`")]
    TargetNotConfigured { target: TargetKind },
    #[error("the assembled files are not a release")]
    Release(#[source] targets::Error),
    #[error("{target}: {step} failed")]
    Target {
        target: TargetKind,
        step: Step,
        #[source]
        source: targets::Error,
    },
    #[error("{target}: could not verify the published release")]
    Verify {
        target: TargetKind,
        #[source]
        source: verify::Error,
    },
    #[error("{target}: could not read the previous release to compare with")]
    Previous {
        target: TargetKind,
        #[source]
        source: verify::Error,
    },
    #[error(
        "{target}: upgrading {label} from {previous} breaks ({errors} error(s) after waivers; {first})"
    )]
    UpgradeBreaks {
        target: TargetKind,
        label: String,
        previous: String,
        errors: usize,
        first: String,
    },
    #[error(
        "{target}: `{url}` does not verify as clusterctl reads it ({errors} error(s): {first})"
    )]
    VerifyFailed {
        target: TargetKind,
        url: String,
        errors: usize,
        first: String,
    },
}

impl Classified for Error {
    /// The input is wrong or a remote refused (exit 1), or capkg could not do its job (exit 2);
    /// a wrapped error keeps its own class.
    fn class(&self) -> ErrorClass {
        match self {
            // `--version 1.2.3` is a bad argument, as `--version v1.2` is.
            Error::VersionNeedsV { origin, .. } if origin == "--version" => ErrorClass::Fault,
            Error::NoVersion
            | Error::NoConfig { .. }
            | Error::Config { .. }
            | Error::SeveralProviders { .. }
            | Error::Git { .. }
            | Error::NoTargets
            | Error::TargetNotConfigured { .. } => ErrorClass::Fault,
            Error::TagNotSemver { .. }
            | Error::VersionNeedsV { .. }
            | Error::LintErrors { .. }
            | Error::VersionNotCovered { .. }
            | Error::TagsNotCovered { .. }
            | Error::VerifyFailed { .. }
            | Error::UpgradeBreaks { .. }
            | Error::ImagesMissing { .. } => ErrorClass::Refusal,
            Error::Assemble(source) => source.class(),
            Error::Release(source) | Error::Target { source, .. } => {
                ErrorClass::refusal_if(source.is_refusal())
            }
            Error::Verify { source, .. } => ErrorClass::refusal_if(source.is_refusal()),
            // The previous release is there but unreadable: capkg cannot compare.
            Error::Previous { .. } => ErrorClass::Fault,
        }
    }

    /// What to do about it.
    fn hint(&self) -> Option<String> {
        match self {
            Error::TagsNotCovered { series, .. } => Some(format!(
                "add release series {series} to metadata.yaml (`- major: …`, `minor: …`, `contract: …`), then tag again"
            )),
            Error::VersionNotCovered { .. } => Some(
                "add the version's major.minor to `releaseSeries` in metadata.yaml before tagging".into(),
            ),
            Error::LintErrors { .. } => Some("fix the errors above; `capkg rules RULE` explains each rule".into()),
            Error::UpgradeBreaks { .. } => Some(
                "fix what breaks the upgrade, or accept a finding you have judged in capkg.yaml `lint: allow:` with the reason (`capkg rules RULE` explains each; `capkg diff OLD NEW` shows the whole diff)".into(),
            ),
            Error::Previous { source, .. } => Some(source.hint().map_or_else(
                || "`--previous VERSION` names another release to compare with, `--previous none` skips the comparison".to_string(),
                |hint| format!("{hint}; `--previous none` skips the comparison"),
            )),
            Error::ImagesMissing { .. } => Some(
                "push the images first (or fix their names or tags in the components or capkg.yaml `images:`); `check_images: false` in capkg.yaml turns the check off".into(),
            ),
            // `capkg release` never replaces what is published, and has no flag to.
            Error::Target {
                source: targets::Error::Differs { .. } | targets::Error::FolderDiffers { .. },
                ..
            } => Some(
                "`capkg release` never replaces published files: release a new version; if nobody can have used this one yet, delete it at the target and run again".into(),
            ),
            Error::Release(source) | Error::Target { source, .. } => source.hint(),
            Error::Verify { source, .. } => source.hint(),
            Error::Git { .. } => Some(
                "in a container, git may refuse a checkout owned by another user: `git config --global --add safe.directory \"$PWD\"`".into(),
            ),
            _ => None,
        }
    }
}

impl Error {
    /// The stage this error belongs to.
    pub(crate) fn stage(&self) -> Stage {
        match self {
            Error::NoVersion | Error::TagNotSemver { .. } | Error::VersionNeedsV { .. } => {
                Stage::Version
            }
            Error::NoConfig { .. }
            | Error::Config { .. }
            | Error::SeveralProviders { .. }
            | Error::Assemble(_)
            | Error::NoTargets
            | Error::TargetNotConfigured { .. } => Stage::Assemble,
            Error::LintErrors { .. }
            | Error::VersionNotCovered { .. }
            | Error::TagsNotCovered { .. }
            | Error::Git { .. }
            | Error::ImagesMissing { .. }
            | Error::UpgradeBreaks { .. }
            | Error::Previous { .. }
            | Error::Release(_) => Stage::Checks,
            Error::Target {
                step: Step::Plan, ..
            } => Stage::Plan,
            Error::Target { .. } => Stage::Publish,
            Error::Verify { .. } | Error::VerifyFailed { .. } => Stage::Verify,
        }
    }
}

#[cfg(test)]
mod tests;
