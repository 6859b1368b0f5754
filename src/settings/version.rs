//! Which version a release is: `--version`, else the tag the CI pipeline runs for
//! (`GITHUB_REF_NAME` on a tag push, `CI_COMMIT_TAG` in GitLab CI).
//!
//! `version:` in capkg.yaml is the last resort (a local `--dry-run`); in CI the tag wins over it.
//! Every command that takes a version from capkg.yaml (`assemble`, `release`) follows this one
//! order, and says so when `version:` is passed over for a different tag.
//!
//! The version must be a semantic version as Kubernetes parses it and carry the `v`: clusterctl
//! looks releases up as `"v" + version` (latest resolution, local repositories), so a tag
//! `1.2.3` would be published but never found.

use super::Error;
use crate::ci::CiContext;
use crate::version::Version;

/// Where the version came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ResolvedVersion {
    pub version: Version,
    /// `--version`, or the variable that held the tag.
    pub source: String,
    /// Said when `--version` and the CI tag disagree.
    pub warning: Option<String>,
    /// The CI pipeline runs for this very tag (its variable, or `--version` equal to it), so
    /// its checkout is the tag's commit.
    pub from_ci_tag: bool,
}

/// The source named for a version from the configuration.
pub(crate) const CONFIG_SOURCE: &str = "version: in capkg.yaml";

/// `--version`, else the CI tag, else the configuration's; `v`-prefixed semver either way.
pub(crate) fn resolve(
    flag: Option<&Version>,
    ci: &CiContext,
    configured: &dyn Fn() -> Result<Option<Version>, Error>,
) -> Result<ResolvedVersion, Error> {
    if let Some(version) = flag {
        if !version.has_v_prefix() {
            return Err(Error::VersionNeedsV {
                version: version.to_string(),
                origin: "--version".into(),
            });
        }
        let warning = ci
            .tag
            .as_ref()
            .filter(|tag| Version::parse(&tag.tag).ok().as_ref() != Some(version))
            .map(|tag| {
                format!(
                    "`--version {version}` is released, not the CI tag `{}` ({})",
                    tag.tag, tag.variable
                )
            });
        return Ok(ResolvedVersion {
            version: version.clone(),
            source: "--version".into(),
            from_ci_tag: ci.tag.is_some() && warning.is_none(),
            warning,
        });
    }
    let Some(tag) = &ci.tag else {
        return match configured()?.as_ref() {
            Some(version) if !version.has_v_prefix() => Err(Error::VersionNeedsV {
                version: version.to_string(),
                origin: CONFIG_SOURCE.into(),
            }),
            Some(version) => Ok(ResolvedVersion {
                version: version.clone(),
                source: CONFIG_SOURCE.into(),
                warning: None,
                from_ci_tag: false,
            }),
            None => Err(Error::NoVersion),
        };
    };
    let version = Version::parse(&tag.tag).map_err(|source| Error::TagNotSemver {
        tag: tag.tag.clone(),
        variable: tag.variable,
        source,
    })?;
    if !version.has_v_prefix() {
        return Err(Error::VersionNeedsV {
            version: tag.tag.clone(),
            origin: tag.variable.to_string(),
        });
    }
    // A capkg.yaml that cannot be read is reported by the step that needs it, not here.
    let warning = configured()
        .ok()
        .flatten()
        .filter(|configured| *configured != version)
        .map(|configured| {
            format!(
                "the CI tag `{}` ({}) is released, not `version: {configured}` in capkg.yaml (the order: `--version`, the CI tag, `version:`)",
                tag.tag, tag.variable
            )
        });
    Ok(ResolvedVersion {
        version,
        source: tag.variable.to_string(),
        warning,
        from_ci_tag: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ci::CiTag;
    use crate::error::Classified;

    fn none() -> Result<Option<Version>, Error> {
        Ok(None)
    }

    fn ci(tag: Option<&str>) -> CiContext {
        CiContext {
            tag: tag.map(|t| CiTag {
                tag: t.to_string(),
                variable: "GITHUB_REF_NAME",
            }),
            ..CiContext::default()
        }
    }

    #[test]
    fn the_flag_wins_and_says_so_when_the_tag_differs() {
        let flag = Version::parse("v1.2.3").unwrap();
        let resolved = resolve(Some(&flag), &ci(Some("v1.2.4")), &none).unwrap();
        assert_eq!(resolved.version.to_string(), "v1.2.3");
        assert_eq!(resolved.source, "--version");
        assert!(resolved.warning.unwrap().contains("`v1.2.4`"));
        assert!(
            resolve(Some(&flag), &ci(Some("v1.2.3")), &none)
                .unwrap()
                .warning
                .is_none()
        );
    }

    #[test]
    fn the_ci_tag_is_used_when_there_is_no_flag() {
        let resolved = resolve(None, &ci(Some("v0.5.0-rc.1")), &none).unwrap();
        assert_eq!(resolved.version.to_string(), "v0.5.0-rc.1");
        assert_eq!(resolved.source, "GITHUB_REF_NAME");
    }

    #[test]
    fn versions_must_be_v_prefixed_semver() {
        let err = resolve(None, &ci(Some("1.2.3")), &none).unwrap_err();
        assert!(matches!(err, Error::VersionNeedsV { .. }), "{err}");
        let err = resolve(None, &ci(Some("release-1.2")), &none).unwrap_err();
        assert!(err.to_string().contains("`release-1.2`"), "{err}");
        assert!(err.is_refusal());
        let flag = Version::parse("1.2.3").unwrap();
        assert!(matches!(
            resolve(Some(&flag), &ci(None), &none),
            Err(Error::VersionNeedsV { .. })
        ));
        let err = resolve(None, &ci(None), &none).unwrap_err();
        assert!(matches!(err, Error::NoVersion));
        assert!(!err.is_refusal());
    }

    #[test]
    fn the_configured_version_is_the_last_resort() {
        let configured = Version::parse("v0.1.0").unwrap();
        let resolved = resolve(None, &ci(None), &|| Ok(Some(configured.clone()))).unwrap();
        assert_eq!(resolved.version.to_string(), "v0.1.0");
        assert_eq!(resolved.source, CONFIG_SOURCE);
        let tagged = resolve(None, &ci(Some("v0.2.0")), &|| Ok(Some(configured.clone()))).unwrap();
        assert_eq!(tagged.version.to_string(), "v0.2.0");
        let warning = tagged.warning.unwrap_or_default();
        assert!(
            warning.contains("`v0.2.0`") && warning.contains("`version: v0.1.0`"),
            "{warning}"
        );
        let same = resolve(None, &ci(Some("v0.1.0")), &|| Ok(Some(configured.clone()))).unwrap();
        assert_eq!(same.warning, None);
    }
}
