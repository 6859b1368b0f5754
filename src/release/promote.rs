//! `capkg promote`: a draft left by `capkg release --draft` made public, once its images exist.
//!
//! The draft is read back from the first target that holds one (in publishing order) and held
//! to the `checksums.txt` published with it ([`targets::check_draft`]): a file changed, missing
//! or added since is refused, named, before anything is made public. The draft's files are then
//! the release: [`promotion_plan`] plans them as `capkg release` plans assembled files (the
//! release series and git tags checked, the images looked up now, no comparison: the upgrade
//! gate ran when the draft was made), and the one loop ([`super::execute()`]) publishes them to
//! every target as a release, which makes the draft public where it is one (a GitHub draft
//! published) and copies it into place where the draft is a location of its own (the local
//! folder, OCI tag and GitLab package version `draft-v1.2.3`, which are kept), then verifies
//! each as clusterctl or the operator reads it.
//!
//! Publishing skips what is already there, so a promote that stopped midway finishes on a
//! re-run, and one after success changes nothing ([`super::Status::AlreadyPromoted`]).

use super::assembly::{Assembled, Assembler};
use super::error::Error;
use super::plan::{Mode, ReleasePlan, plan};
use crate::files::{self, Release};
use crate::provider::{FileRole, ReleaseProvider};
use crate::rules;
use crate::settings::{Previous, Settings};
use crate::targets::{self, PublishFile, Reach, ReleaseDir, Services, TargetKind};
use crate::verify::ReadRelease;

/// Reads the draft of the settings' version at the first target that holds one, checked
/// against its own `checksums.txt`.
pub(crate) async fn read_draft(
    settings: &Settings,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
    services: &Services,
) -> Result<Vec<PublishFile>, Error> {
    let version = settings
        .version
        .as_ref()
        .ok_or(crate::settings::Error::NoVersion)?;
    let label = configured_label(settings);
    let mut looked = Vec::new();
    for destination in &settings.targets {
        let kind = destination.kind();
        let draft_error = |source| Error::Draft {
            target: kind,
            source,
        };
        let request = destination.request.clone().into_draft();
        let target =
            targets::open(request, env, services.clone(), Reach::Remote).map_err(draft_error)?;
        let found = target
            .read_draft(&version.version, label.as_deref())
            .await
            .map_err(draft_error)?;
        match found {
            Some(drafted) => return targets::check_draft(drafted).map_err(draft_error),
            None => looked.push(kind),
        }
    }
    Err(Error::NothingDrafted {
        version: version.version.to_string(),
        targets: looked
            .iter()
            .map(TargetKind::to_string)
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// The provider's label when capkg.yaml names its one provider's type and name: where a draft's
/// location depends on it (GitLab's default package name).
fn configured_label(settings: &Settings) -> Option<String> {
    match settings.sources.providers.as_slice() {
        [only] => {
            let provider = ReleaseProvider {
                provider_type: only.provider_type?,
                name: only.name.clone()?,
                components: Vec::new(),
            };
            Some(provider.label())
        }
        _ => None,
    }
}

/// The plan of a promotion: the draft's files planned as a release, the images looked up, no
/// comparison (the draft was compared when it was made).
pub(crate) fn promotion_plan(
    settings: &Settings,
    drafted: Vec<PublishFile>,
) -> Result<ReleasePlan, Error> {
    let mut settings = settings.clone();
    settings.previous = Previous::Skip("the draft was compared when it was made".into());
    // The draft carries the statement made when it was drafted; a new one would name this run.
    settings.provenance = None;
    let mut planned = plan(&settings, &DraftAssembler { files: drafted })?;
    planned.mode = Mode::Promote;
    // The draft's files are published, not the checkout's: where HEAD is does not matter.
    planned.head_refusal = None;
    Ok(planned)
}

/// The draft's files as the release: the providers named by the components files and their
/// labels, as `capkg publish` names a release folder's.
struct DraftAssembler {
    files: Vec<PublishFile>,
}

impl Assembler for DraftAssembler {
    fn assemble(&self, settings: &Settings) -> Result<Assembled, Error> {
        let version = settings.version().cloned();
        let single = match settings.sources.providers.as_slice() {
            [only] => Some(only),
            _ => None,
        };
        let release = ReleaseDir::from_files(
            &settings.root,
            version.clone().ok_or(crate::settings::Error::NoVersion)?,
            single.and_then(|p| p.provider_type),
            single.and_then(|p| p.name.as_deref()),
            self.files.clone(),
            Vec::new(),
        )
        .map_err(|e| Error::Release(e.into()))?;
        let parts = (0..release.providers.len())
            .map(|index| {
                let part = release.for_provider(index);
                let provider = part.primary().clone();
                ReadRelease {
                    release: loaded(&part),
                    options: rules::Options {
                        provider_type: Some(provider.provider_type),
                        provider_name: Some(provider.name),
                        version: version.clone(),
                    },
                }
            })
            .collect();
        Ok(Assembled {
            files: release.files.clone(),
            // Lint ran when the draft was made; the draft is held to its checksums.
            diagnostics: Vec::new(),
            providers: release.providers.clone(),
            parts,
            findings_note: None,
        })
    }
}

/// A provider's part parsed as the checks read it.
fn loaded(part: &ReleaseDir) -> Release {
    Release {
        dir: part.dir.clone(),
        files: part
            .files
            .iter()
            .filter_map(|file| {
                let role: FileRole = file.role.clone()?;
                let text = String::from_utf8_lossy(&file.contents).into_owned();
                Some(files::load_text(&file.name, text, role))
            })
            .collect(),
        near_misses: Vec::new(),
    }
}
