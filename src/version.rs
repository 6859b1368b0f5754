//! Semantic versions as Kubernetes parses them (placeholder until the exact port lands).

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    inner: semver::Version,
    v_prefix: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{input}` is not a semantic version (expected e.g. v1.2.3)")]
pub struct ParseError {
    pub input: String,
}

impl Version {
    pub fn parse(input: &str) -> Result<Version, ParseError> {
        let trimmed = input.trim();
        let (v_prefix, rest) = match trimmed.strip_prefix('v') {
            Some(rest) => (true, rest),
            None => (false, trimmed),
        };
        semver::Version::parse(rest)
            .map(|inner| Version { inner, v_prefix })
            .map_err(|_| ParseError {
                input: input.to_string(),
            })
    }

    pub fn major(&self) -> u64 {
        self.inner.major
    }

    pub fn minor(&self) -> u64 {
        self.inner.minor
    }

    pub fn patch(&self) -> u64 {
        self.inner.patch
    }

    pub fn is_prerelease(&self) -> bool {
        !self.inner.pre.is_empty()
    }

    pub fn has_v_prefix(&self) -> bool {
        self.v_prefix
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.v_prefix {
            write!(f, "v{}", self.inner)
        } else {
            write!(f, "{}", self.inner)
        }
    }
}
