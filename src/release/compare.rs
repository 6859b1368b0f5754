//! The compare phase: each provider's new release against the release before it at each target,
//! as `capkg diff` compares two releases. The target says where its earlier releases are
//! ([`crate::targets::History`]); `--previous` or `previous:` may name another version there, or
//! a source of its own. With [`Reach::Offline`] (a dry run) only a previous release on this
//! machine is read (a local repository, a folder or `file://`); one behind the network is said
//! not compared.

use std::path::Path;

use super::error::Error;
use super::outcome::UpgradeReport;
use super::plan::{Mode, ReleasePlan};
use crate::diff::{self, DiffRequest, SideInfo};
use crate::settings::Previous;
use crate::targets::{History, ProviderDestination, Reach, ReleaseDir, Services, Target};
use crate::verify;

/// Each provider's upgrade from the previous release at `target`.
pub(super) async fn upgrades(
    plan: &ReleasePlan,
    release: &ReleaseDir,
    target: &dyn Target,
    providers: &[ProviderDestination],
    settings: &verify::Settings,
    services: &Services,
    reach: Reach,
) -> Result<Vec<UpgradeReport>, Error> {
    let kind = target.kind();
    let this = &plan.version.version;
    let mut reports = Vec::new();
    for (index, (destination, new)) in providers.iter().zip(&plan.parts).enumerate() {
        let history = target.history(release, index);
        if history == History::Nothing {
            continue;
        }
        let mut report = UpgradeReport::new(&destination.label);
        let url = &destination.clusterctl_url;
        // Credentials go to this target's own origin only ([`verify::Settings::for_previous`]).
        let settings = &settings.for_previous(url);
        let previous_error = |source| Error::Previous {
            target: kind,
            source,
        };
        if reach == Reach::Offline && needs_network(&plan.previous, url) {
            report.note = Some(
                "not compared with the previous release: a dry run makes no network requests (`capkg diff` compares two releases wherever they are)".into(),
            );
            reports.push(report);
            continue;
        }
        // Where the previous release is, and its version where the source does not say it.
        let found: Option<(String, Option<String>)> = match (&plan.previous, &history) {
            (Previous::Skip, _) => {
                report.note = Some(if plan.mode == Mode::Promote {
                    "not compared again: `capkg release --draft` compared the draft".into()
                } else {
                    "not compared: `--previous none`".into()
                });
                None
            }
            (Previous::Given(given), _) if is_source(given) => Some((given.clone(), None)),
            (Previous::Given(version), History::Unversioned(why)) => {
                return Err(Error::NotComparable {
                    target: kind,
                    previous: version.clone(),
                    why: why.clone(),
                });
            }
            (Previous::Newest, History::Unversioned(why)) => {
                report.note = Some(why.clone());
                None
            }
            (_, History::Nothing) => None,
            (Previous::Given(version), History::Versioned(at)) => {
                Some((at.at(version), at.is_tag().then(|| version.clone())))
            }
            (Previous::Newest, History::Versioned(at)) => {
                verify::newest_older(at, this, settings, services)
                    .await
                    .map_err(previous_error)?
                    .map(|version| (at.at(&version), at.is_tag().then_some(version)))
            }
        };
        let Some((source, version)) = found else {
            if report.note.is_none() {
                report.note = Some(format!(
                    "first release of {} here: nothing to compare",
                    destination.label
                ));
            }
            reports.push(report);
            continue;
        };
        let request = DiffRequest {
            provider_name: new.options.provider_name.clone(),
            provider_type: new.options.provider_type,
            version,
            ..DiffRequest::default()
        };
        report.access = settings.access(&source);
        let old = diff::read(&source, &request, settings, services.clone())
            .await
            .map_err(previous_error)?;
        let mut compared = diff::compare(&old.releases, std::slice::from_ref(new));
        compared.old = diff::side(&old);
        compared.new = SideInfo {
            source: url.clone(),
            version: Some(this.to_string()),
            provider_label: Some(destination.label.clone()),
        };
        report.previous = old.version.clone();
        report.source = Some(source);
        report.diff = Some(compared.waive(&plan.waivers));
        reports.push(report);
    }
    Ok(reports)
}

/// The first upgrade at one target that an error (after waivers) breaks, as the error that
/// refuses the release.
pub(super) fn first_break(
    kind: crate::targets::TargetKind,
    upgrades: &[UpgradeReport],
) -> Option<Error> {
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
fn needs_network(previous: &Previous, target_url: &str) -> bool {
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
