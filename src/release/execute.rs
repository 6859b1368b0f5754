//! The one loop that carries a [`ReleasePlan`] out, phase after phase: check the images, plan
//! at each target, compare with the previous release there, then publish to and verify each
//! target in turn. A dry run is the same loop with [`Reach::Offline`]: every target plans
//! without asking its remote, the comparison reads only what is on this machine, and the loop
//! stops before the first step that would need the network or write (images, publishing).
//!
//! Before publishing, a dry run reports every target and every problem (a plan to read, not a
//! run to stop); a real run stops at the first problem, with nothing published. Once publishing
//! has begun, a failure stops the run with what is done, what is not, and that running the same
//! command again finishes the job: publishing skips identical files.

use super::attest;
use super::compare;
use super::error::Error;
use super::outcome::{Outcome, Stage, Status, Step, TargetReport, TargetState, chain};
use super::plan::{Mode, ReleasePlan};
use crate::diagnostic::Severity;
use crate::targets::{self, Reach, Services, Target};
use crate::verify::{self, VerifyReport, VerifyRequest, images_exist};

/// What the run may do, and whom to tell when the checks have passed.
pub(crate) struct Run<'a> {
    /// `Offline`: a dry run.
    pub reach: Reach,
    pub env: &'a (dyn Fn(&str) -> Option<String> + Sync),
    pub services: Services,
    /// Called with the outcome so far once every check passed (lint, series, tags, images) and
    /// before any target is opened: the command prints the checks then, before the upload
    /// progress. Not called in a dry run.
    pub checked: &'a (dyn Fn(&Outcome) + Sync),
    /// `--wait-for-images`: how long missing images are waited for before the release stops.
    pub wait_for_images: Option<images_exist::Wait>,
}

/// Carries `plan` out as far as `run` allows.
pub(crate) async fn execute(plan: &ReleasePlan, run: Run<'_>) -> Outcome {
    let dry = run.reach == Reach::Offline;
    let mut outcome = Outcome::from_plan(
        plan,
        if dry {
            Status::DryRun
        } else {
            Status::Published
        },
        dry,
    );
    if plan.is_blocked() {
        outcome.refuse(plan);
        if !dry {
            return outcome;
        }
    }
    let Some(release) = &plan.release else {
        if outcome.error.is_none() {
            outcome.refuse(plan);
        }
        return outcome;
    };

    // The sources are the version's: a dry run (before tagging, say) is told, a real run stops.
    if let Some(refusal) = &plan.head_refusal {
        if dry {
            outcome
                .warnings
                .push(format!("{}; a real run refuses", chain(refusal)));
        } else {
            outcome.stop_before_publishing(refusal);
            return outcome;
        }
    }
    // Every image exists, before anything is made public.
    if dry {
        if outcome.checks.images.is_none() {
            outcome.checks.images = Some(images_exist::ImageCheck::skipped(
                "--dry-run makes no network requests",
            ));
        }
    } else if plan.mode == Mode::Draft {
        if outcome.checks.images.is_none() {
            outcome.checks.images = Some(images_exist::ImageCheck::skipped(
                "a draft: `capkg promote` looks the images up before making it public",
            ));
        }
    } else if plan.image_check.is_on() {
        let (found, _) = images_exist::check_waiting(
            &plan.images,
            &plan.reading.origins,
            &run.services,
            run.wait_for_images,
        )
        .await;
        outcome.warnings.extend(found.warnings());
        let missing = (!found.ok()).then(|| Error::ImagesMissing {
            count: found.missing.len(),
            images: match run.wait_for_images {
                Some(wait) => format!(
                    "{} (still missing after waiting {})",
                    found.missing_text(),
                    crate::units::format_duration(wait.limit)
                ),
                None => found.missing_text(),
            },
        });
        outcome.checks.images = Some(found);
        if let Some(error) = missing {
            outcome.stop_before_publishing(&error);
            return outcome;
        }
    }
    if !dry {
        (run.checked)(&outcome);
    }

    // The statement signed before any target plans, so that every target publishes the bundle.
    let signed;
    let release = match plan.attestation.as_ref().filter(|a| a.signed && !dry) {
        None => release,
        Some(_) => match attest::sign(release, run.env, &run.services).await {
            Ok(with_bundle) => {
                signed = with_bundle;
                &signed
            }
            Err(error) => {
                outcome.stop_before_publishing(&error);
                return outcome;
            }
        },
    };

    // Plan at every target before any of them writes; every target is in the report, those
    // not reached too.
    outcome.targets = plan
        .destinations
        .iter()
        .map(|destination| TargetReport::new(destination.kind()))
        .collect();
    let mut opened: Vec<(usize, Box<dyn Target>, targets::Plan)> = Vec::new();
    for (index, destination) in plan.destinations.iter().enumerate() {
        let spec = &destination.request;
        let planned = match targets::open(spec.clone(), run.env, run.services.clone(), run.reach) {
            Ok(target) => target.plan(release).await.map(|p| (target, p)),
            Err(err) => Err(err),
        };
        let Some(report) = outcome.targets.get_mut(index) else {
            break;
        };
        match planned {
            Ok((target, target_plan)) => {
                // A dry run shows the verification each provider will get.
                let verified_by = (dry && plan.mode != Mode::Draft)
                    .then(|| target.read_by())
                    .flatten();
                report.planned(&target_plan, verified_by);
                opened.push((index, target, target_plan));
            }
            Err(err) => {
                report.fail(Step::Plan, &err);
                let error = Error::Target {
                    target: spec.kind(),
                    step: Step::Plan,
                    source: err,
                };
                if !stop(&mut outcome, dry, &error) {
                    return outcome;
                }
            }
        }
    }

    // The upgrade from the previous release at every target, before any of them writes.
    for (index, target, target_plan) in &opened {
        let (index, kind) = (*index, target.kind());
        let Some(reading) = plan.destinations.get(index).map(|d| &d.reading) else {
            continue;
        };
        let compared = compare::upgrades(
            plan,
            release,
            target.as_ref(),
            &target_plan.destination.providers,
            reading,
            &run.services,
            run.reach,
        )
        .await;
        let upgrades = match compared {
            Ok((upgrades, warnings)) => {
                outcome.warnings.extend(warnings);
                upgrades
            }
            Err(error) => {
                if !stop(&mut outcome, dry, &error) {
                    return outcome;
                }
                continue;
            }
        };
        let broken = compare::first_break(kind, &upgrades);
        if let Some(report) = outcome.targets.get_mut(index) {
            report.upgrade = upgrades;
        }
        if let Some(error) = broken
            && !stop(&mut outcome, dry, &error)
        {
            return outcome;
        }
    }
    if dry {
        if outcome.error.is_some() && outcome.status == Status::DryRun {
            outcome.status = Status::Refused;
        }
        return outcome;
    }

    // Publish to and verify each target in turn.
    for (index, target, target_plan) in opened {
        let published = publish_one(
            plan,
            release,
            (target.as_ref(), target_plan, index),
            &run,
            &mut outcome,
        )
        .await;
        if !published {
            return outcome;
        }
    }
    let unchanged = outcome
        .targets
        .iter()
        .all(|t| t.state == TargetState::Unchanged);
    outcome.status = match (plan.mode, unchanged) {
        (Mode::Release, true) => Status::Unchanged,
        (Mode::Release, false) => Status::Published,
        (Mode::Draft, _) => Status::Drafted,
        (Mode::Promote, true) => Status::AlreadyPromoted,
        (Mode::Promote, false) => Status::Promoted,
    };
    outcome
}

/// A problem before publishing: a dry run notes the first and goes on (true); a real run stops
/// with nothing published (false).
fn stop(outcome: &mut Outcome, dry: bool, error: &Error) -> bool {
    if dry {
        outcome.set_error_once(Stage::Plan, error);
        true
    } else {
        outcome.stop_before_publishing(error);
        false
    }
}

/// Publishes to one target and verifies each provider there; false when the run stops.
async fn publish_one(
    plan: &ReleasePlan,
    release: &targets::ReleaseDir,
    (target, target_plan, index): (&dyn Target, targets::Plan, usize),
    run: &Run<'_>,
    outcome: &mut Outcome,
) -> bool {
    let kind = target.kind();
    let unchanged = target_plan.is_noop();
    let step_result = targets::carry_out(target, release, target_plan, &|_| {})
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
        return false;
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
            return false;
        }
    };
    report.published(result, unchanged);
    if plan.mode == Mode::Draft && !unchanged {
        report.state = TargetState::Drafted;
    }
    let provider_urls: Vec<String> = report
        .providers
        .iter()
        .map(|p| p.clusterctl_url.clone())
        .collect();

    // Verify through each provider's clusterctl URL, as clusterctl (or the operator) reads it;
    // a draft is verified when it is promoted.
    if target.read_by().is_none() || plan.mode == Mode::Draft {
        return true;
    }
    let Some(settings) = plan.destinations.get(index).map(|d| &d.reading) else {
        return false;
    };
    for (provider_index, (provider, url)) in release.providers.iter().zip(provider_urls).enumerate()
    {
        let verified = verify::verify(
            &VerifyRequest {
                source: url.clone(),
                provider_name: Some(provider.name.clone()),
                provider_type: Some(provider.provider_type),
                version: Some(release.version.to_string()),
                // Looked up before publishing already.
                check_images: false,
                skip_checks: false,
                // The statement is checked when the release has one.
                provenance: verify::provenance::Requirement::WhenPresent,
                signature: None,
            },
            settings,
            run.services.clone(),
        )
        .await
        // Judged where the release was assembled: this read only applies them.
        .map(|report| report.waive(&plan.waivers, crate::rules::waivers::Judged::Nothing));
        let Some(report) = outcome.targets.get_mut(index) else {
            return false;
        };
        let error = match verified {
            Ok(verify_report) if verify_report.ok => {
                report.record_verify(provider_index, verify_report);
                continue;
            }
            Ok(verify_report) => {
                let error = Error::VerifyFailed {
                    target: kind,
                    url,
                    errors: verify_report.error_count(),
                    first: first_problem(&verify_report),
                };
                report.record_verify(provider_index, verify_report);
                error
            }
            Err(err) => Error::Verify {
                target: kind,
                source: err,
            },
        };
        report.failed_step = Some(Step::Verify);
        report.error = Some(chain(&error));
        outcome.stop_while_publishing(index, &error);
        return false;
    }
    true
}

/// The first thing a failed verification names.
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
