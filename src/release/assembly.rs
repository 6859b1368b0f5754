//! The one place `release` meets `assemble`: the release built in memory from the settings'
//! sources, its files' bytes and each provider's part as lint parsed it.
//!
//! Everything else in [`super`] works on [`Assembled`], so the orchestration can be tested with
//! any [`Assembler`] (the unit tests build releases by hand) and depends on the assemble module's
//! API in this file only.

use super::error::Error;
use crate::assemble;
use crate::diagnostic::Diagnostic;
use crate::provider::ReleaseProvider;
use crate::settings::Settings;
use crate::targets::PublishFile;
use crate::verify::ReadRelease;

/// A release built in memory.
#[derive(Debug, Clone)]
pub(crate) struct Assembled {
    /// The release files (and `checksums.txt`), as they will be published.
    pub files: Vec<PublishFile>,
    /// Lint's findings, before waivers.
    pub diagnostics: Vec<Diagnostic>,
    /// Every provider of the release with its components files.
    pub providers: Vec<ReleaseProvider>,
    /// Each provider's part of the release as lint parsed it.
    pub parts: Vec<ReadRelease>,
    /// Where the assembled files were written because findings point into them, or why they
    /// could not be: said with the findings.
    pub findings_note: Option<String>,
}

/// Builds the release the settings describe.
pub(crate) trait Assembler {
    fn assemble(&self, settings: &Settings) -> Result<Assembled, Error>;
}

/// The assembler `capkg release` uses: the sources capkg.yaml names.
#[derive(Debug, Default)]
pub(crate) struct SourcesAssembler;

impl Assembler for SourcesAssembler {
    fn assemble(&self, settings: &Settings) -> Result<Assembled, Error> {
        let mut release = assemble::build(
            &settings.sources,
            // `capkg release` does not print what assembling changed.
            &settings.assemble_options(false),
        )
        .map_err(Error::Assemble)?;
        let mut diagnostics = std::mem::take(&mut release.diagnostics);
        let findings_note = write_for_findings(settings, &release, &mut diagnostics);
        let providers = std::mem::take(&mut release.providers);
        let parts = std::mem::take(&mut release.parts)
            .into_iter()
            .map(|(release, options)| ReadRelease { release, options })
            .collect();
        let files = release
            .into_files()
            .into_iter()
            .map(|(name, bytes)| PublishFile::from_bytes(&name, bytes))
            .collect();
        Ok(Assembled {
            files,
            diagnostics,
            providers,
            parts,
            findings_note,
        })
    }
}

/// Findings about an assembled components file name it in the output folder (`out/`), where
/// `capkg assemble` writes it; `release` builds it in memory. So that the file and line a
/// finding names can be opened, the release as assembled is written there (whole and
/// atomically, as `assemble` would, findings or not), and `release` says so. Nothing is
/// published from that folder.
fn write_for_findings(
    settings: &Settings,
    release: &assemble::AssembledRelease,
    diagnostics: &mut [Diagnostic],
) -> Option<String> {
    let out = &settings.output;
    // The findings stand either way: a folder that cannot be written is said, not an error.
    Some(match release.write_for_findings(diagnostics, out, out)? {
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
