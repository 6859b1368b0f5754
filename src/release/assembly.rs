//! The one place `release` meets `assemble`: the configuration's targets and the release files
//! built in memory for a version.
//!
//! Everything else in [`super`] works on [`Assembled`], so the orchestration can be tested with
//! any [`Assembler`] (the tests build releases by hand) and depends on the assemble module's
//! API in this file only.

use std::path::{Path, PathBuf};

use super::Error;
use super::destinations::TargetsConfig;
use crate::provider::ProviderType;
use crate::rules::Diagnostic;
use crate::targets::ReleaseFile;
use crate::version::Version;

/// A release built in memory, and where it goes.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The folder of the configuration file: git tags are listed here, relative paths of the
    /// configuration are resolved from here.
    pub root: PathBuf,
    /// The release files (and `checksums.txt`), as they will be published.
    pub files: Vec<ReleaseFile>,
    /// Lint findings, when the assemble step ran lint itself; `None` lets `release` lint.
    pub diagnostics: Option<Vec<Diagnostic>>,
    pub provider_type: Option<ProviderType>,
    pub provider_name: Option<String>,
    /// The configuration's `targets:`.
    pub targets: TargetsConfig,
}

/// Builds the release for a version.
pub trait Assembler {
    fn assemble(&self, version: &Version) -> Result<Assembled, Error>;
}

/// The assembler `capkg release` uses: `capkg.yaml` (or `--config`) and the sources it names.
#[derive(Debug, Clone)]
pub struct ConfigAssembler {
    /// `--config`; default `capkg.yaml` in the current folder.
    pub config: Option<PathBuf>,
    pub provider_type: Option<ProviderType>,
    pub provider_name: Option<String>,
}

impl ConfigAssembler {
    pub fn config_path(&self) -> PathBuf {
        self.config
            .clone()
            .unwrap_or_else(|| PathBuf::from("capkg.yaml"))
    }

    /// The folder holding the configuration file.
    pub fn root(path: &Path) -> PathBuf {
        match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }
}

impl Assembler for ConfigAssembler {
    fn assemble(&self, _version: &Version) -> Result<Assembled, Error> {
        Err(Error::AssembleUnavailable {
            config: self.config_path(),
        })
    }
}
