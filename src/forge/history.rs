//! Where a destination keeps the releases it published before, as the compare phase of
//! `capkg release` asks for them: each target says how one provider's release of a version is
//! read there ([`History`]), built from the same code that names the new release's URL, so that
//! no caller rewrites a URL or knows a target's kind.

use super::oci;

/// How the releases of one provider at one destination are found by version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum History {
    /// Each version's release is read from [`VersionedSource::at`]; the versions held are listed
    /// by the reader of the same source.
    Versioned(VersionedSource),
    /// Releases cannot be told apart by version here: why, and what to pass instead.
    Unversioned(String),
    /// Nothing to compare with (the memory target of tests).
    Nothing,
}

/// A release's source (what `capkg verify` reads: a clusterctl URL, a local repository's
/// components file, `oci://REF:TAG`) with the place of its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VersionedSource {
    before: String,
    after: String,
    /// The version is spelled as an OCI tag (`v1.0.0+build.1` is tagged `v1.0.0_build.1`).
    tag: bool,
}

/// A version no release has: where a source built for it has its version.
const MARK: &str = "\u{1}capkg-version\u{1}";

impl VersionedSource {
    /// The source `build` names for a version, whatever the version.
    pub(crate) fn of(build: impl Fn(&str) -> String) -> Option<Self> {
        let marked = build(MARK);
        let (before, after) = marked.split_once(MARK)?;
        Some(Self {
            before: before.to_string(),
            after: after.to_string(),
            tag: false,
        })
    }

    /// As [`VersionedSource::of`], for an OCI reference whose tag holds the version as
    /// [`oci::tag_for`] spells it.
    pub(crate) fn of_tag(build: impl Fn(&str) -> String) -> Option<Self> {
        Self::of(build).map(|source| Self {
            tag: true,
            ..source
        })
    }

    /// The source of the release of `version`.
    pub(crate) fn at(&self, version: &str) -> String {
        let spelled = if self.tag {
            oci::tag_for(version)
        } else {
            version.to_string()
        };
        format!("{}{spelled}{}", self.before, self.after)
    }

    /// True when the versions are an OCI repository's tags.
    pub(crate) fn is_tag(&self) -> bool {
        self.tag
    }

    /// The version a listed name (a version folder, a release tag, a package version, an OCI
    /// tag) holds as this source spells it; for a tag, the version it was written for:
    /// `v1.0.0_build.1` is `v1.0.0+build.1` (a tag cannot hold `+`; no semantic version has `_`).
    pub(crate) fn version_in(&self, listed: &str) -> Option<String> {
        if !self.tag {
            return Some(listed.to_string());
        }
        let (prefix, suffix) = self.tag_affixes()?;
        let inner = listed.strip_prefix(prefix)?.strip_suffix(suffix)?;
        Some(inner.replacen('_', "+", 1))
    }

    /// The text of an OCI tag around its version (`provider-{version}`), from the reference.
    fn tag_affixes(&self) -> Option<(&str, &str)> {
        let (_, prefix) = self.before.rsplit_once(':')?;
        Some((prefix, self.after.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_names_each_version_as_its_builder_does() {
        let github = VersionedSource::of(|v| {
            format!("https://github.com/o/r/releases/{v}/infrastructure-components.yaml")
        })
        .unwrap();
        assert_eq!(
            github.at("v1.2.2"),
            "https://github.com/o/r/releases/v1.2.2/infrastructure-components.yaml"
        );
        assert_eq!(github.version_in("v1.2.2").as_deref(), Some("v1.2.2"));
        assert!(!github.is_tag());
    }

    #[test]
    fn an_oci_tag_is_read_back_as_the_version_it_was_written_for() {
        let source =
            VersionedSource::of_tag(|v| format!("oci://registry.example/capi/x:provider-{v}"))
                .unwrap();
        assert_eq!(
            source.at("v0.1.0+build.1"),
            "oci://registry.example/capi/x:provider-v0.1.0_build.1"
        );
        assert_eq!(
            source.version_in("provider-v0.1.0_build.1").as_deref(),
            Some("v0.1.0+build.1")
        );
        assert_eq!(source.version_in("other-v0.1.0"), None);
    }

    #[test]
    fn a_builder_that_drops_the_version_has_no_versioned_source() {
        assert_eq!(
            VersionedSource::of(|_| "oci://r/x:latest".to_string()),
            None
        );
    }
}
