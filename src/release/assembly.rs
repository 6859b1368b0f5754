//! The one place `release` meets `assemble`: the configuration's targets and the release files
//! built in memory for a version.
//!
//! Everything else in [`super`] works on [`Assembled`], so the orchestration can be tested with
//! any [`Assembler`] (the unit tests build releases by hand) and depends on the assemble module's
//! API in this file only.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::Error;
use super::destinations::TargetsConfig;
use crate::assemble::{self, AssembleOptions};
use crate::config::Config;
use crate::diagnostic::Diagnostic;
use crate::provider::{ProviderType, ReleaseProvider};
use crate::targets::ReleaseFile;
use crate::version::Version;

/// A release built in memory, and where it goes.
#[derive(Debug, Clone)]
pub(crate) struct Assembled {
    /// The folder of the configuration file: git tags are listed here, relative paths of the
    /// configuration are resolved from here.
    pub root: PathBuf,
    /// The release files (and `checksums.txt`), as they will be published.
    pub files: Vec<ReleaseFile>,
    /// Lint findings, when the assemble step ran lint itself; `None` lets `release` lint.
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// Every provider of the release with its components files; empty when the files (and the
    /// request's `--type` and `--provider`) tell.
    pub providers: Vec<ReleaseProvider>,
    /// The configuration's `targets:`.
    pub targets: TargetsConfig,
    /// The configuration's `lint: allow:`, applied again when the published release is verified.
    pub waivers: Vec<crate::rules::Waiver>,
    /// `check_images:` (default true): look every image up before publishing.
    pub check_images: bool,
    /// Where the assembled files were written because findings point into them, or why they
    /// could not be: said with the findings.
    pub findings_note: Option<String>,
    /// `previous:`: the release to compare with (see [`super::Previous`]).
    pub previous: Option<String>,
}

/// Builds the release for a version.
pub(crate) trait Assembler {
    /// The version to release when neither `--version` nor a CI tag gives one.
    fn default_version(&self) -> Result<Option<Version>, Error> {
        Ok(None)
    }

    fn assemble(&self, version: &Version) -> Result<Assembled, Error>;
}

/// The assembler `capkg release` uses: `capkg.yaml` and the sources it names. The file is read
/// when first needed, so that a missing version is reported before a missing configuration.
#[derive(Debug)]
pub(crate) struct ConfigAssembler {
    /// `--config`.
    path: Option<PathBuf>,
    /// Where to look for `capkg.yaml` without `--config`.
    start: PathBuf,
    provider_type: Option<ProviderType>,
    provider_name: Option<String>,
    loaded: OnceLock<Config>,
}

impl ConfigAssembler {
    /// `config`, else the `capkg.yaml` found from `start` up to the repository root; `--type`
    /// and `--provider` win over the file.
    pub(crate) fn new(
        config: Option<&Path>,
        start: &Path,
        provider_type: Option<ProviderType>,
        provider_name: Option<&str>,
    ) -> Self {
        Self {
            path: config.map(Path::to_path_buf),
            start: start.to_path_buf(),
            provider_type,
            provider_name: provider_name.map(str::to_string),
            loaded: OnceLock::new(),
        }
    }

    /// The configuration, read on first use. `--type` and `--provider` describe one provider:
    /// they are refused for a configuration that releases several.
    pub(crate) fn config(&self) -> Result<&Config, Error> {
        if let Some(config) = self.loaded.get() {
            return Ok(config);
        }
        let path = match &self.path {
            Some(path) => path.clone(),
            None => Config::discover(&self.start).ok_or_else(|| Error::NoConfig {
                dir: self.start.clone(),
            })?,
        };
        let mut config = Config::load(&path).map_err(|source| Error::Config { source })?;
        if self.provider_name.is_some() || self.provider_type.is_some() {
            let provider = config
                .single_provider_mut()
                .map_err(|source| Error::SeveralProviders { source })?;
            if let Some(name) = &self.provider_name {
                provider.name = Some(name.clone());
            }
            if let Some(provider_type) = self.provider_type {
                provider.provider_type = Some(provider_type);
            }
        }
        config
            .refuse_placeholders()
            .map_err(|source| Error::Config { source })?;
        Ok(self.loaded.get_or_init(|| config))
    }
}

impl Assembler for ConfigAssembler {
    fn default_version(&self) -> Result<Option<Version>, Error> {
        Ok(self.config()?.version.clone())
    }

    fn assemble(&self, version: &Version) -> Result<Assembled, Error> {
        let config = self.config()?;
        let mut release = assemble::plan(
            config,
            &AssembleOptions {
                version: Some(version.clone()),
                out_dir: None,
                // `capkg release` does not print them.
                record_changes: false,
            },
        )
        .map_err(Error::Assemble)?;
        let mut diagnostics = std::mem::take(&mut release.diagnostics);
        let findings_note = write_for_findings(config, &release, &mut diagnostics);
        let providers = std::mem::take(&mut release.providers);
        let files = release
            .into_files()
            .into_iter()
            .map(|(name, bytes)| ReleaseFile::from_bytes(&name, bytes))
            .collect();
        Ok(Assembled {
            root: config.root.clone(),
            files,
            diagnostics: Some(diagnostics),
            providers,
            targets: config.targets.clone(),
            waivers: config.waivers.clone(),
            check_images: config.check_images.unwrap_or(true),
            findings_note,
            previous: config.previous.clone(),
        })
    }
}

/// Findings about an assembled components file name it in the output folder (`out/`), where
/// `capkg assemble` writes it; `release` builds it in memory. So that the file and line a
/// finding names can be opened, the release as assembled is written there (whole and
/// atomically, as `assemble` would, findings or not), and `release` says so. Nothing is
/// published from that folder.
fn write_for_findings(
    config: &Config,
    release: &assemble::AssembledRelease,
    diagnostics: &mut [Diagnostic],
) -> Option<String> {
    let out = config.resolve(config.output.as_deref().unwrap_or(Path::new("out")));
    // The findings stand either way: a folder that cannot be written is said, not an error.
    Some(match release.write_for_findings(diagnostics, &out, &out)? {
        Ok(()) => format!(
            "the findings name the release as assembled: written to `{0}` to read them (`capkg lint {0}` shows them again); nothing is published from there",
            out.display()
        ),
        Err(error) => format!(
            "the findings name the release as assembled in `{}`, which could not be written ({error}); `capkg assemble` writes it",
            out.display()
        ),
    })
}
