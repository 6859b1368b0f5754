//! The compare phase: each provider's new release against the release before it at each target,
//! as `capkg diff` compares two releases. The target says where its earlier releases are
//! ([`crate::targets::History`]); `--previous` or `previous:` may name another version there, or
//! a source of its own. With [`Reach::Offline`] (a dry run) only a previous release on this
//! machine is read (a local repository, a folder or `file://`); one behind the network is said
//! not compared.

use super::error::Error;
use super::outcome::UpgradeReport;
use super::plan::{Mode, ReleasePlan};
use crate::diff::{self, DiffRequest, SideInfo};
use crate::settings::Previous;
use crate::targets::{
    History, ProviderDestination, Reach, ReleaseDir, Services, Target, TargetKind,
};
use crate::verify;
use crate::version::Version;

/// Each provider's upgrade from the previous release at `target`, and warnings (a `previous:`
/// pin older than the newest earlier release there).
pub(super) async fn upgrades(
    plan: &ReleasePlan,
    release: &ReleaseDir,
    target: &dyn Target,
    providers: &[ProviderDestination],
    settings: &verify::Settings,
    services: &Services,
    reach: Reach,
) -> Result<(Vec<UpgradeReport>, Vec<String>), Error> {
    let kind = target.kind();
    let this = &plan.version.version;
    let mut reports = Vec::new();
    let mut warnings = Vec::new();
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
        // Where the previous release is, and the version looked up there.
        let found: Option<(String, Option<String>)> = match (&plan.previous, &history) {
            (Previous::Skip(said), _) => {
                report.note = Some(if plan.mode == Mode::Promote {
                    "not compared again: `capkg release --draft` compared the draft".into()
                } else {
                    format!("not compared: {said}")
                });
                None
            }
            (Previous::Source(given), _) => Some((given.clone(), None)),
            (Previous::Version { version, .. }, History::Unversioned(why)) => {
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
            (Previous::Version { version, pinned_at }, History::Versioned(at)) => {
                if let Some(pinned_at) = pinned_at {
                    let newest = verify::newest_older(at, this, settings, services).await;
                    warnings.extend(stale_pin(version, pinned_at, newest, kind, this));
                }
                report.chosen = Some(match pinned_at {
                    Some(at) => format!("{version}, as `previous:` in capkg.yaml ({at}) says"),
                    None => format!("{version}, as `--previous` says"),
                });
                Some((at.at(version), Some(version.clone())))
            }
            (Previous::Newest, History::Versioned(at)) => {
                let chosen = verify::newest_older(at, this, settings, services)
                    .await
                    .map_err(previous_error)?;
                chosen.map(|chosen| {
                    report.chosen = Some(why_chosen(&chosen, this, kind));
                    (at.at(&chosen.version), Some(chosen.version))
                })
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
        // An OCI tag does not say its version: the lookup does ([`History::Versioned`]).
        let tagged = matches!(&history, History::Versioned(at) if at.is_tag())
            && matches!(&plan.previous, Previous::Version { .. } | Previous::Newest);
        let request = DiffRequest {
            provider_name: new.options.provider_name.clone(),
            provider_type: new.options.provider_type,
            version: version.clone().filter(|_| tagged),
            ..DiffRequest::default()
        };
        report.access = settings.access(&source);
        // Fails closed: a previous release that cannot be read is never "no breaking change".
        let old = diff::read(&source, &request, settings, services.clone())
            .await
            .map_err(|error| Error::PreviousUnreadable {
                target: kind,
                version: version.unwrap_or_else(|| format!("`{source}`")),
                tried: source.clone(),
                source: Box::new(error),
            })?;
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
    Ok((reports, warnings))
}

/// Why the newest older release was chosen, and what was passed over for it.
fn why_chosen(chosen: &verify::Chosen, this: &Version, kind: TargetKind) -> String {
    let mut why = format!(
        "{}, the newest release older than {this} at {kind}",
        chosen.version
    );
    if !chosen.passed_over.is_empty() {
        why.push_str(&format!("; passed over: {}", chosen.passed_over.join(", ")));
    }
    why
}

/// A warning when capkg.yaml pins `previous:` to a version older than the newest release older
/// than this one at the target: the pin, written for an earlier release, would compare this one
/// with an old release and let a break since then pass.
fn stale_pin(
    pinned: &str,
    pinned_at: &str,
    newest: Result<Option<verify::Chosen>, verify::Error>,
    kind: TargetKind,
    this: &Version,
) -> Option<String> {
    let newest = match newest {
        Ok(newest) => newest?,
        Err(error) => {
            return Some(format!(
                "{pinned_at}: could not check whether `previous: {pinned}` is still the newest release before {this} at {kind}: {error}"
            ));
        }
    };
    let (Ok(pin), Ok(found)) = (Version::parse(pinned), Version::parse(&newest.version)) else {
        return None;
    };
    (found.compare(&pin) == std::cmp::Ordering::Greater).then(|| {
        format!(
            "{pinned_at}: `previous: {pinned}` is older than {}, the newest release before {this} at {kind}: compared with {pinned} as pinned; a break since {} is not checked (remove the pin to compare with the newest)",
            newest.version, newest.version
        )
    })
}

/// The first upgrade at one target that an error (after waivers) breaks, as the error that
/// refuses the release.
pub(super) fn first_break(kind: TargetKind, upgrades: &[UpgradeReport]) -> Option<Error> {
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
        Previous::Skip(_) => false,
        Previous::Source(given) => remote(given),
        Previous::Version { .. } | Previous::Newest => remote(target_url),
    }
}
