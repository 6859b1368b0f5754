//! The git tags a release's `metadata.yaml` must cover.
//!
//! `clusterctl upgrade plan` reads the `metadata.yaml` of the newest version in the repository and
//! fails (`version … (one of the available versions) … does not match any release series`) when
//! any version newer than the installed one has no series there. So the metadata being released
//! must have a series for every semver tag from the oldest series current clusterctl supports
//! (the lowest major.minor whose contract is `v1beta1` or `v1beta2`) up to the version itself.
//!
//! Tags of a newer major.minor than the version being released are not required: a patch of an
//! older series is not the newest release, and the newer series' own metadata is what clusterctl
//! reads. They are reported as notes. The version being released is checked separately.
//!
//! Tags come from `git tag --list` in the configuration's folder. A folder that is not a git
//! checkout (or a machine without git) skips the check with a note; a shallow clone is checked
//! with a note that tags may be missing (`actions/checkout` needs `fetch-depth: 0`).

use std::path::Path;
use std::process::Command;

use serde::Serialize;

use super::Error;
use crate::diagnostic::Diagnostic;
use crate::files::ReleaseFile;
use crate::rules::{self, SUPPORTED_CONTRACTS};
use crate::version::Version;

/// One release series of `metadata.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Series {
    pub major: u64,
    pub minor: u64,
    pub contract: Option<String>,
}

/// What the tag check found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct TagCheck {
    /// False when it was skipped (see `note`).
    pub checked: bool,
    /// Semantic-version tags found.
    pub tags: usize,
    /// The lowest major.minor checked (`1.5`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_series: Option<String>,
    /// Tags that need a series and have none: the release is refused.
    pub uncovered: Vec<String>,
    /// Tags of a newer series than the release without a series here (a note only).
    pub newer_uncovered: Vec<String>,
    /// Why the maintainer accepts `uncovered` (a `metadata/tag-series` waiver): not refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waived: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The tags of the checkout around `dir`, or why there are none to check.
pub(crate) enum GitTags {
    Tags { tags: Vec<String>, shallow: bool },
    NotACheckout { reason: String },
}

/// Runs `git` in `dir`: is it a work tree, is it shallow, which tags exist.
pub(crate) fn git_tags(dir: &Path) -> Result<GitTags, Error> {
    let git = |args: &[&str]| Command::new("git").arg("-C").arg(dir).args(args).output();
    let inside = match git(&["rev-parse", "--is-inside-work-tree"]) {
        Err(err) => {
            return Ok(GitTags::NotACheckout {
                reason: format!("git could not be run ({err})"),
            });
        }
        Ok(output) => output,
    };
    if !inside.status.success() || String::from_utf8_lossy(&inside.stdout).trim() != "true" {
        let stderr = String::from_utf8_lossy(&inside.stderr);
        let reason = if stderr.contains("dubious ownership") {
            // Containers often run as another user than the one owning the checkout.
            "git refuses a checkout owned by another user (to check tags, run `git config --global --add safe.directory \"$PWD\"` first)".to_string()
        } else if stderr.trim().is_empty() || stderr.contains("not a git repository") {
            format!("`{}` is not in a git work tree", dir.display())
        } else {
            format!("git cannot read the checkout ({})", git_words(&stderr))
        };
        return Ok(GitTags::NotACheckout { reason });
    }
    let listed = git(&["tag", "--list"]).map_err(|source| Error::Git {
        dir: dir.to_path_buf(),
        message: source.to_string(),
    })?;
    if !listed.status.success() {
        return Err(Error::Git {
            dir: dir.to_path_buf(),
            message: git_words(&String::from_utf8_lossy(&listed.stderr)),
        });
    }
    let shallow = git(&["rev-parse", "--is-shallow-repository"])
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "true");
    Ok(GitTags::Tags {
        tags: String::from_utf8_lossy(&listed.stdout)
            .lines()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect(),
        shallow,
    })
}

/// git's first line of complaint, quoted and without its `fatal:`/`error:` prefix, so that a
/// message shows git's words as a quotation and not as capkg's own output.
fn git_words(stderr: &str) -> String {
    let line = stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let line = ["fatal:", "error:"]
        .iter()
        .find_map(|prefix| line.strip_prefix(prefix))
        .unwrap_or(line)
        .trim();
    format!("git says \"{line}\"")
}

/// The tag check of the checkout around `root` against `metadata`, for a release of `releasing`
/// (without a version, as `capkg assemble` may be run, every tag from the oldest supported
/// series up needs a series).
pub(crate) fn in_checkout(
    root: &Path,
    metadata: Option<&ReleaseFile>,
    releasing: Option<&Version>,
) -> Result<TagCheck, Error> {
    let Some(series) = metadata.filter(|m| m.yaml.errors.is_empty()).map(series_of) else {
        return Ok(TagCheck {
            note: Some("no readable metadata.yaml: tags were not checked".into()),
            ..TagCheck::default()
        });
    };
    Ok(match git_tags(root)? {
        GitTags::NotACheckout { reason } => TagCheck {
            note: Some(format!("not a git checkout, tags not checked: {reason}")),
            ..TagCheck::default()
        },
        GitTags::Tags { tags, shallow } => {
            let mut check = check(&tags, &series, releasing);
            if shallow {
                let note = "the checkout is shallow, so tags may be missing (with actions/checkout use `fetch-depth: 0`)";
                check.note = Some(match check.note.take() {
                    Some(other) => format!("{note}; {other}"),
                    None => note.to_string(),
                });
            }
            check
        }
    })
}

/// The release series of a `metadata.yaml` that could be read as numbers.
fn series_of(metadata: &ReleaseFile) -> Vec<Series> {
    rules::release_series(metadata)
        .iter()
        .filter_map(|s| {
            let (major, minor) = s.major_minor()?;
            Some(Series {
                major: u64::try_from(major).ok()?,
                minor: u64::try_from(minor).ok()?,
                contract: s.contract.map(str::to_string),
            })
        })
        .collect()
}

/// The `metadata/tag-series` finding for the tags `check` found uncovered, on `metadata`'s
/// `releaseSeries`; waivable as every finding is.
pub(crate) fn finding(check: &TagCheck, metadata: &ReleaseFile) -> Option<Diagnostic> {
    if check.uncovered.is_empty() {
        return None;
    }
    let rule = rules::find(rules::TAG_SERIES_ID)?;
    let series = missing_series(&check.uncovered);
    let span = metadata
        .yaml
        .roots()
        .next()
        .and_then(|root| root.get("releaseSeries"))
        .map(|node| node.span());
    Some(Diagnostic::new(
        rule.id,
        rule.severity,
        Some(metadata.source().clone()),
        span,
        format!(
            "no release series for the git tag(s) {} (series {series}): `clusterctl upgrade plan` reads the newest metadata.yaml and fails for every version without a series",
            check.uncovered.join(", ")
        ),
        format!(
            "add release series {series} to metadata.yaml (`- major: …`, `minor: …`, `contract: …`), then tag again; or waive `{}` with the reason in capkg.yaml `lint: allow:`",
            rule.id
        ),
    ))
}

/// Checks `tags` against the series, for a release of `releasing` (every tag, without one).
pub(crate) fn check(tags: &[String], series: &[Series], releasing: Option<&Version>) -> TagCheck {
    let supported = series
        .iter()
        .filter(|s| {
            s.contract
                .as_deref()
                .is_some_and(|c| SUPPORTED_CONTRACTS.contains(&c))
        })
        .map(|s| (s.major, s.minor))
        .min();
    let from = supported.or_else(|| series.iter().map(|s| (s.major, s.minor)).min());
    let mut result = TagCheck {
        checked: true,
        from_series: from.map(|(major, minor)| format!("{major}.{minor}")),
        ..TagCheck::default()
    };
    let covered = |v: &Version| {
        series
            .iter()
            .any(|s| s.major == v.major() && s.minor == v.minor())
    };
    let releasing_series = releasing.map(|v| (v.major(), v.minor()));
    for tag in tags {
        let Ok(version) = Version::parse(tag) else {
            continue;
        };
        result.tags += 1;
        let own = (version.major(), version.minor());
        if from.is_none_or(|from| own < from) || Some(&version) == releasing || covered(&version) {
            continue;
        }
        if releasing_series.is_some_and(|releasing| own > releasing) {
            result.newer_uncovered.push(tag.clone());
        } else {
            result.uncovered.push(tag.clone());
        }
    }
    if !result.newer_uncovered.is_empty() {
        result.note = Some(format!(
            "tags of newer series have no series in this metadata.yaml ({}); that is fine for a patch of an older series, as their own releases' metadata is what clusterctl reads",
            result.newer_uncovered.join(", ")
        ));
    }
    result
}

/// The series an uncovered tag list needs, `1.1, 1.3`.
pub(crate) fn missing_series(tags: &[String]) -> String {
    let mut series: Vec<(u64, u64)> = tags
        .iter()
        .filter_map(|t| Version::parse(t).ok())
        .map(|v| (v.major(), v.minor()))
        .collect();
    series.sort_unstable();
    series.dedup();
    series
        .iter()
        .map(|(major, minor)| format!("{major}.{minor}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(list: &[(u64, u64, &str)]) -> Vec<Series> {
        list.iter()
            .map(|(major, minor, contract)| Series {
                major: *major,
                minor: *minor,
                contract: Some(contract.to_string()),
            })
            .collect()
    }

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn tags_from_the_oldest_supported_series_up_need_a_series() {
        let metadata = series(&[(0, 3, "v1alpha3"), (1, 0, "v1beta1"), (1, 2, "v1beta1")]);
        let found = check(
            &tags(&[
                "v0.3.9",
                "v0.4.0",
                "v1.0.0",
                "v1.1.0",
                "v1.1.1-rc.0",
                "v1.2.0",
                "nightly",
            ]),
            &metadata,
            Some(&Version::parse("v1.2.1").unwrap()),
        );
        assert!(found.checked);
        assert_eq!(found.tags, 6);
        assert_eq!(found.from_series.as_deref(), Some("1.0"));
        // 0.4 is older than the oldest supported series: clusterctl cannot manage it anyway.
        assert_eq!(found.uncovered, ["v1.1.0", "v1.1.1-rc.0"]);
        assert_eq!(missing_series(&found.uncovered), "1.1");
    }

    #[test]
    fn newer_series_are_only_noted_for_a_patch_of_an_older_one() {
        let metadata = series(&[(1, 2, "v1beta1")]);
        let found = check(
            &tags(&["v1.2.0", "v1.3.0", "v1.2.5"]),
            &metadata,
            Some(&Version::parse("v1.2.5").unwrap()),
        );
        assert!(found.uncovered.is_empty());
        assert_eq!(found.newer_uncovered, ["v1.3.0"]);
        assert!(found.note.unwrap().contains("v1.3.0"));
    }

    #[test]
    fn the_release_itself_is_left_to_the_version_check() {
        let metadata = series(&[(1, 2, "v1beta2")]);
        let found = check(
            &tags(&["v1.3.0"]),
            &metadata,
            Some(&Version::parse("v1.3.0").unwrap()),
        );
        assert!(found.uncovered.is_empty());
    }

    #[test]
    fn a_folder_outside_git_is_not_a_checkout() {
        let dir = tempfile::tempdir().unwrap();
        // GIT_CEILING_DIRECTORIES is not needed: temporary folders are not inside a work tree.
        match git_tags(dir.path()).unwrap() {
            GitTags::NotACheckout { reason } => assert!(!reason.is_empty()),
            GitTags::Tags { .. } => panic!("a fresh temporary folder is not a checkout"),
        }
    }
}
