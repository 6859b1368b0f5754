//! Which release a new one is compared with before publishing (`--previous`, `previous:`),
//! decided once: a version looked up at each target, or a source named explicitly (a path
//! beginning with `/`, `./` or `../`, or a `file://`, `https://`, `http://` or `oci://` URL).
//! A bare word that is neither is refused rather than guessed at: `v0.1.0` once read a folder
//! of that name in the checkout instead of the release at the target.

use std::path::Path;

use crate::version::Version;

/// Which release a new one is compared with before publishing (`capkg diff`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) enum Previous {
    /// The newest version older than this one published at each target.
    #[default]
    Newest,
    /// `none`: no comparison; what said so (`--previous none`, `previous: none` in capkg.yaml).
    Skip(String),
    /// A version, looked up at each target (`v1.2.2`).
    Version {
        version: String,
        /// `capkg.yaml:line:column` when capkg.yaml pins it (a stale pin is warned about).
        pinned_at: Option<String>,
    },
    /// A source `capkg verify` reads, as given (a path joined to capkg.yaml's folder when
    /// capkg.yaml names it).
    Source(String),
}

/// Where a `--previous` value comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Given<'a> {
    /// `--previous`: a relative path is relative to the working folder.
    Flag,
    /// `previous:` at `at` in the capkg.yaml of folder `root`.
    Config { at: &'a str, root: &'a Path },
}

/// The URL schemes `--previous` takes as a source.
const SCHEMES: [&str; 4] = ["file://", "https://", "http://", "oci://"];

impl Previous {
    /// `--previous REF` or `previous: REF`.
    pub(crate) fn parse(text: &str, given: Given<'_>) -> Result<Self, super::Error> {
        let text = text.trim();
        let said = match given {
            Given::Flag => "`--previous none`".to_string(),
            Given::Config { at, .. } => format!("`previous: none` in capkg.yaml ({at})"),
        };
        if text == "none" {
            return Ok(Previous::Skip(said));
        }
        if SCHEMES.iter().any(|scheme| text.starts_with(scheme)) {
            return Ok(Previous::Source(text.to_string()));
        }
        if text.starts_with('/') || text.starts_with("./") || text.starts_with("../") {
            return Ok(Previous::Source(match given {
                Given::Config { root, .. } if !text.starts_with('/') => {
                    root.join(text).display().to_string()
                }
                _ => text.to_string(),
            }));
        }
        if text.starts_with('v') && Version::parse(text).is_ok() {
            return Ok(Previous::Version {
                version: text.to_string(),
                pinned_at: match given {
                    Given::Flag => None,
                    Given::Config { at, .. } => Some(at.to_string()),
                },
            });
        }
        Err(super::Error::PreviousUnclear {
            value: text.to_string(),
            origin: match given {
                Given::Flag => "--previous".to_string(),
                Given::Config { at, .. } => format!("`previous:` in capkg.yaml ({at})"),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flag(text: &str) -> Result<Previous, super::super::Error> {
        Previous::parse(text, Given::Flag)
    }

    #[test]
    fn a_version_is_a_version_and_a_source_is_explicit() {
        assert_eq!(
            flag("v0.1.0").unwrap(),
            Previous::Version {
                version: "v0.1.0".into(),
                pinned_at: None
            }
        );
        assert_eq!(
            flag("v0.1.0+build.1").unwrap(),
            Previous::Version {
                version: "v0.1.0+build.1".into(),
                pinned_at: None
            }
        );
        for source in [
            "./v0.1.0",
            "../v0.1.0",
            "/abs/v0.1.0",
            "file:///r/infrastructure-x/v0.1.0/infrastructure-components.yaml",
            "https://github.com/o/r/releases/v0.1.0/infrastructure-components.yaml",
            "oci://registry.example/capi/x:v0.1.0",
        ] {
            assert_eq!(flag(source).unwrap(), Previous::Source(source.into()));
        }
        assert_eq!(
            flag("none").unwrap(),
            Previous::Skip("`--previous none`".into())
        );
    }

    #[test]
    fn a_bare_word_is_refused_with_both_forms() {
        for word in ["out", "0.1.0", "v0.1", "releases/v0.1.0", "latest"] {
            let error = flag(word).unwrap_err().to_string();
            assert!(error.contains(&format!("`{word}`")), "{error}");
            assert!(error.contains("a version"), "{error}");
            assert!(error.contains("./"), "{error}");
        }
    }

    #[test]
    fn capkg_yaml_paths_are_its_folder_s_and_its_versions_pins() {
        let given = Given::Config {
            at: "capkg.yaml:7:11",
            root: Path::new("/repo"),
        };
        assert_eq!(
            Previous::parse("./old", given).unwrap(),
            Previous::Source("/repo/./old".into())
        );
        assert_eq!(
            Previous::parse("v1.0.0", given).unwrap(),
            Previous::Version {
                version: "v1.0.0".into(),
                pinned_at: Some("capkg.yaml:7:11".into())
            }
        );
        assert_eq!(
            Previous::parse("none", given).unwrap(),
            Previous::Skip("`previous: none` in capkg.yaml (capkg.yaml:7:11)".into())
        );
        let error = Previous::parse("old", given).unwrap_err().to_string();
        assert!(error.contains("capkg.yaml:7:11"), "{error}");
    }
}
