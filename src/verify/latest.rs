//! `latest` as clusterctl resolves it (`repository_versions.go`, `docs/clusterctl-behaviour.md`
//! §5.4): `latestContractRelease(repository, "v1beta2")`.
//!
//! 1. `latestPatchRelease`: the repository's versions that parse as semantic versions (optionally
//!    only one major.minor), stable releases before pre-releases, each group newest first (Go's
//!    `sort.SliceStable` with clusterctl's comparator, run by [`crate::go_sort`]); the first five;
//!    the first whose `metadata.yaml` can be read wins, as `v` + the version. A "not found"
//!    (a GitHub release that does not exist) skips the candidate; any other failure stops.
//! 2. The winner's `metadata.yaml`: when its newest release series for the contract has another
//!    major.minor than the winner, the latest patch of that series wins instead. A metadata file
//!    that cannot be read or decoded keeps the first winner.

use super::Error;
use super::repository::{Fetch, Repository};
use crate::files;
use crate::provider::FileRole;
use crate::rules;
use crate::version::Version;

/// The contract clusterctl resolves `latest` for.
pub(crate) const CONTRACT: &str = "v1beta2";

/// How `latest` was resolved, for the report.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub(crate) struct Resolution {
    /// The version chosen.
    pub version: String,
    /// Candidates skipped, with the reason (`v1.3.0: release not found`).
    pub skipped: Vec<String>,
    /// Set when the contract's series moved the choice to another major.minor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract_series: Option<String>,
}

/// `latestContractRelease(repository, contract)`.
pub(crate) async fn latest_contract_release(
    repository: &dyn Repository,
    contract: &str,
) -> Result<Resolution, Error> {
    let mut resolution = latest_patch_release(repository, None).await?;
    let bytes = match repository.file(&resolution.version, "metadata.yaml").await {
        Ok(bytes) => bytes,
        Err(Fetch::NotFound(err)) => return Err(err),
        Err(Fetch::Failed(_)) => return Ok(resolution),
    };
    let Some((major, minor)) = series_for_contract(&bytes, contract) else {
        return Ok(resolution);
    };
    let Ok(latest) = Version::parse(&resolution.version) else {
        return Ok(resolution);
    };
    if latest.major() != major || latest.minor() != minor {
        let mut moved = latest_patch_release(repository, Some((major, minor))).await?;
        moved.skipped.splice(0..0, resolution.skipped.drain(..));
        moved.contract_series = Some(format!(
            "{major}.{minor}, the newest release series for contract {contract} in {}'s metadata.yaml",
            resolution.version
        ));
        resolution = moved;
    }
    Ok(resolution)
}

/// `latestPatchRelease(repository, major, minor)`.
pub(crate) async fn latest_patch_release(
    repository: &dyn Repository,
    series: Option<(u64, u64)>,
) -> Result<Resolution, Error> {
    let versions = repository.versions().await?;
    let mut candidates: Vec<Version> = versions
        .iter()
        .filter_map(|v| Version::parse(v).ok())
        .filter(|v| series.is_none_or(|(major, minor)| v.major() == major && v.minor() == minor))
        .collect();
    if candidates.is_empty() {
        return Err(Error::NoReleases);
    }
    crate::go_sort::slice_stable(&mut candidates, |a, b| {
        match (a.is_prerelease(), b.is_prerelease()) {
            (true, false) => false,
            (false, true) => true,
            _ => b.less_than(a),
        }
    });
    let mut skipped = Vec::new();
    for candidate in candidates.iter().take(5) {
        let tag = format!("v{}", candidate.go_string());
        match repository.file(&tag, "metadata.yaml").await {
            Ok(_) => {
                return Ok(Resolution {
                    version: tag,
                    skipped,
                    contract_series: None,
                });
            }
            Err(Fetch::NotFound(err)) => skipped.push(format!("{tag}: {err}")),
            Err(Fetch::Failed(err)) => return Err(err),
        }
    }
    Err(Error::NoReleases)
}

/// `GetReleaseSeriesForContract`: the highest major.minor among the series with this contract
/// (the later entry wins a tie); `None` when the file does not decode or has none.
fn series_for_contract(bytes: &[u8], contract: &str) -> Option<(u64, u64)> {
    let text = String::from_utf8(bytes.to_vec()).ok()?;
    let file = files::load_text("metadata.yaml", text, FileRole::Metadata);
    if !file.yaml.errors.is_empty() {
        return None;
    }
    let mut best: Option<(u64, u64)> = None;
    for series in rules::release_series(&file) {
        if series.contract != Some(contract) {
            continue;
        }
        let (Some(major), Some(minor)) = (series.major, series.minor) else {
            continue;
        };
        let (Ok(major), Ok(minor)) = (u64::try_from(major), u64::try_from(minor)) else {
            continue;
        };
        if best.is_none_or(|(bm, bn)| (major, minor) >= (bm, bn)) {
            best = Some((major, minor));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use bytes::Bytes;

    use super::*;
    use crate::forge::clock::BoxFuture;

    /// A repository in memory: versions, and files per version (absent release = not found).
    struct Fake {
        versions: Vec<&'static str>,
        releases: BTreeMap<&'static str, Option<&'static str>>,
    }

    impl Repository for Fake {
        fn versions(&self) -> BoxFuture<'_, Result<Vec<String>, Error>> {
            let versions = self.versions.iter().map(|v| v.to_string()).collect();
            Box::pin(async move { Ok(versions) })
        }

        fn file<'a>(
            &'a self,
            version: &'a str,
            _name: &'a str,
        ) -> BoxFuture<'a, Result<Bytes, Fetch>> {
            let found = self.releases.get(version).copied();
            Box::pin(async move {
                match found {
                    None => Err(Fetch::NotFound(Error::NoReleases)),
                    Some(None) => Err(Fetch::Failed(Error::NoReleases)),
                    Some(Some(text)) => Ok(Bytes::from(text)),
                }
            })
        }

        fn list<'a>(
            &'a self,
            _version: &'a str,
        ) -> BoxFuture<'a, Result<Option<Vec<String>>, Error>> {
            Box::pin(async { Ok(None) })
        }

        fn url(&self, version: &str, name: &str) -> String {
            format!("fake/{version}/{name}")
        }
    }

    const V1BETA2_1_1: &str = "releaseSeries:\n- major: 1\n  minor: 1\n  contract: v1beta2\n- major: 1\n  minor: 0\n  contract: v1beta1\n";
    const V1BETA1_ONLY: &str = "releaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta1\n";

    fn resolve(fake: Fake) -> Result<Resolution, Error> {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(latest_contract_release(&fake, CONTRACT))
    }

    // Rows after clusterctl's `Test_latestContractRelease` and `Test_latestPatchRelease`.
    #[test]
    fn stable_releases_win_over_newer_pre_releases() {
        let found = resolve(Fake {
            versions: vec!["v1.0.0", "v1.1.0", "v1.2.0-rc.0", "not-a-version"],
            releases: BTreeMap::from([
                ("v1.1.0", Some(V1BETA1_ONLY)),
                ("v1.2.0-rc.0", Some(V1BETA1_ONLY)),
                ("v1.0.0", Some(V1BETA1_ONLY)),
            ]),
        })
        .unwrap();
        assert_eq!(found.version, "v1.1.0");
    }

    #[test]
    fn versions_without_a_release_are_skipped() {
        let found = resolve(Fake {
            versions: vec!["v1.0.0", "v1.1.0"],
            releases: BTreeMap::from([("v1.0.0", Some(V1BETA1_ONLY))]),
        })
        .unwrap();
        assert_eq!(found.version, "v1.0.0");
        assert_eq!(found.skipped.len(), 1);
        assert!(found.skipped[0].starts_with("v1.1.0: "));
    }

    #[test]
    fn other_failures_stop_the_search() {
        let err = resolve(Fake {
            versions: vec!["v1.0.0", "v1.1.0"],
            releases: BTreeMap::from([("v1.0.0", Some(V1BETA1_ONLY)), ("v1.1.0", None)]),
        })
        .unwrap_err();
        assert!(matches!(err, Error::NoReleases));
    }

    #[test]
    fn only_five_candidates_are_tried() {
        let err = resolve(Fake {
            versions: vec!["v1.0.0", "v1.0.1", "v1.0.2", "v1.0.3", "v1.0.4", "v1.0.5"],
            releases: BTreeMap::from([("v1.0.0", Some(V1BETA1_ONLY))]),
        })
        .unwrap_err();
        assert!(matches!(err, Error::NoReleases));
    }

    #[test]
    fn the_contract_series_moves_latest_to_its_newest_patch() {
        // v2.0.0 is newest, but its metadata says v1beta2 is implemented by 1.1.
        let found = resolve(Fake {
            versions: vec!["v1.0.0", "v1.1.0", "v1.1.1", "v2.0.0"],
            releases: BTreeMap::from([
                ("v2.0.0", Some(V1BETA2_1_1)),
                ("v1.1.1", Some(V1BETA2_1_1)),
                ("v1.1.0", Some(V1BETA2_1_1)),
                ("v1.0.0", Some(V1BETA1_ONLY)),
            ]),
        })
        .unwrap();
        assert_eq!(found.version, "v1.1.1");
        assert!(found.contract_series.unwrap().starts_with("1.1,"));
        // Without a series for the contract, latest stays.
        let found = resolve(Fake {
            versions: vec!["v1.0.0"],
            releases: BTreeMap::from([("v1.0.0", Some(V1BETA1_ONLY))]),
        })
        .unwrap();
        assert_eq!(found.version, "v1.0.0");
    }

    #[test]
    fn versions_are_looked_up_with_a_v() {
        let found = resolve(Fake {
            versions: vec!["1.0.0"],
            releases: BTreeMap::from([("v1.0.0", Some(V1BETA1_ONLY))]),
        })
        .unwrap();
        assert_eq!(found.version, "v1.0.0");
        let none = resolve(Fake {
            versions: vec!["main", "latest"],
            releases: BTreeMap::new(),
        })
        .unwrap_err();
        assert_eq!(
            none.to_string(),
            "failed to find releases tagged with a valid semantic version number"
        );
    }
}
