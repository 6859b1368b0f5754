//! Why a release stops, how each reason is classified (refused or failed), the hint that goes
//! with it, and the stage it belongs to.

use std::path::PathBuf;

use super::outcome::{Stage, Step};
use crate::error::{Classified, ErrorClass};
use crate::targets::{self, TargetKind};
use crate::verify;

/// Why a release stopped.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    #[error("{count} image(s) the components name are not in their registry: {images}")]
    ImagesMissing { count: usize, images: String },
    /// The command line, capkg.yaml or the environment (the version, the targets).
    #[error(transparent)]
    Settings(#[from] crate::settings::Error),
    #[error("cannot assemble the release")]
    Assemble(#[source] crate::assemble::Error),
    #[error("lint found {errors} error(s) ({warnings} warning(s))")]
    LintErrors { errors: usize, warnings: usize },
    #[error("metadata.yaml does not cover the version {version}: {message}")]
    VersionNotCovered { version: String, message: String },
    #[error(
        "metadata.yaml has no release series for the git tag(s) {} (series {series}): `clusterctl upgrade plan` reads the newest metadata.yaml and fails for every version without a series",
        tags.join(", ")
    )]
    TagsNotCovered { tags: Vec<String>, series: String },
    /// HEAD of the configuration's checkout is not tagged with the version ([`super::head`]).
    #[error("{0}")]
    HeadNotTagged(Box<super::head::UntaggedHead>),
    #[error("git failed in `{}`: {message}", dir.display())]
    Git { dir: PathBuf, message: String },
    #[error("the assembled files are not a release")]
    Release(#[source] targets::Error),
    #[error("{target}: {step} failed")]
    Target {
        target: TargetKind,
        step: Step,
        #[source]
        source: targets::Error,
    },
    #[error("no draft of {version} at any target ({targets}): `capkg release --draft` makes one")]
    NothingDrafted { version: String, targets: String },
    #[error("{target}: cannot promote the draft")]
    Draft {
        target: TargetKind,
        #[source]
        source: targets::Error,
    },
    #[error("{target}: could not verify the published release")]
    Verify {
        target: TargetKind,
        #[source]
        source: verify::Error,
    },
    #[error("{target}: could not read the previous release to compare with")]
    Previous {
        target: TargetKind,
        #[source]
        source: verify::Error,
    },
    #[error(
        "{target}: the previous release {version} cannot be compared with, so the upgrade is not checked"
    )]
    PreviousUnreadable {
        target: TargetKind,
        /// The version looked up at the target, or the source given (`--previous ./v1.2.2`).
        version: String,
        /// The URL or path read.
        tried: String,
        #[source]
        source: Box<verify::Error>,
    },
    #[error("{target}: cannot find the release `{previous}` to compare with: {why}")]
    NotComparable {
        target: TargetKind,
        previous: String,
        why: String,
    },
    #[error(
        "{target}: upgrading {label} from {previous} breaks ({errors} error(s) after waivers; {first})"
    )]
    UpgradeBreaks {
        target: TargetKind,
        label: String,
        previous: String,
        errors: usize,
        first: String,
    },
    #[error("cannot sign the provenance statement: {0}")]
    Signing(#[source] crate::sigstore::sign::SignError),
    #[error(
        "{target}: `{url}` does not verify as clusterctl reads it ({errors} error(s): {first})"
    )]
    VerifyFailed {
        target: TargetKind,
        url: String,
        errors: usize,
        first: String,
    },
}

impl Classified for Error {
    /// The input is wrong or a remote refused (exit 1), or capkg could not do its job (exit 2);
    /// a wrapped error keeps its own class.
    fn class(&self) -> ErrorClass {
        match self {
            Error::Settings(source) => source.class(),
            Error::Git { .. } => ErrorClass::Fault,
            Error::LintErrors { .. }
            | Error::VersionNotCovered { .. }
            | Error::TagsNotCovered { .. }
            | Error::VerifyFailed { .. }
            | Error::UpgradeBreaks { .. }
            | Error::ImagesMissing { .. }
            | Error::HeadNotTagged(_) => ErrorClass::Refusal,
            Error::Assemble(source) => source.class(),
            Error::Release(source) | Error::Target { source, .. } | Error::Draft { source, .. } => {
                ErrorClass::refusal_if(source.is_refusal())
            }
            Error::NothingDrafted { .. } => ErrorClass::Refusal,
            Error::Signing(source) => ErrorClass::refusal_if(!matches!(
                source,
                crate::sigstore::sign::SignError::Service { .. }
            )),
            Error::Verify { source, .. } => ErrorClass::refusal_if(source.is_refusal()),
            // The previous release is there but unreadable: capkg cannot compare.
            Error::Previous { .. }
            | Error::PreviousUnreadable { .. }
            | Error::NotComparable { .. } => ErrorClass::Fault,
        }
    }

    /// What to do about it.
    fn hint(&self) -> Option<String> {
        match self {
            Error::TagsNotCovered { series, .. } => Some(format!(
                "add release series {series} to metadata.yaml (`- major: …`, `minor: …`, `contract: …`), then tag again"
            )),
            Error::VersionNotCovered { .. } => Some(
                "add the version's major.minor to `releaseSeries` in metadata.yaml before tagging".into(),
            ),
            Error::LintErrors { .. } => Some("fix the errors above; `capkg rules RULE` explains each rule".into()),
            Error::UpgradeBreaks { .. } => Some(
                "fix what breaks the upgrade, or accept a finding you have judged in capkg.yaml `lint: allow:` with the reason (`capkg rules RULE` explains each; `capkg diff OLD NEW` shows the whole diff)".into(),
            ),
            Error::Previous { source, .. } => Some(source.hint().map_or_else(
                || "`--previous VERSION` names another release to compare with, `--previous none` skips the comparison".to_string(),
                |hint| format!("{hint}; `--previous none` skips the comparison"),
            )),
            Error::PreviousUnreadable { source, tried, .. } => Some(format!(
                "{}the upgrade gate fails closed: `capkg verify {tried}` shows what is wrong with that release; publish it again whole, name another with `--previous VERSION`, or skip the comparison with `--previous none` (`previous: none` in capkg.yaml)",
                match source.as_ref() {
                    verify::Error::NotARelease { .. } => String::new(),
                    other => other.hint().map(|hint| format!("{hint}; ")).unwrap_or_default(),
                }
            )),
            Error::NotComparable { .. } => Some(
                "pass `--previous oci://REF:TAG` (or `previous:` in capkg.yaml) to name the release to compare with; `--previous none` skips the comparison".into(),
            ),
            Error::ImagesMissing { .. } => Some(
                "push the images first (or fix their names or tags in the components or capkg.yaml `images:`); `check_images: false` in capkg.yaml turns the check off; after `capkg release --draft`, run `capkg promote` again once they are promoted".into(),
            ),
            // `capkg release` never replaces what is published, and has no flag to.
            Error::Target {
                source: targets::Error::Differs { .. } | targets::Error::FolderDiffers { .. },
                ..
            } => Some(
                "`capkg release` never replaces published files: release a new version; if nobody can have used this one yet, delete it at the target and run again".into(),
            ),
            Error::Release(source) | Error::Target { source, .. } | Error::Draft { source, .. } => {
                source.hint()
            }
            Error::Verify { source, .. } => source.hint(),
            Error::HeadNotTagged(head) => Some(format!(
                "check the tag out where capkg.yaml is (for an older tag: `git worktree add ../{version} {version}`, then run capkg there), or pass `--allow-untagged-head` to release these sources as `{version}`",
                version = head.version
            )),
            Error::Signing(_) => Some(
                "signing runs when an OIDC identity is offered: in GitHub Actions the job needs `permissions: id-token: write`; in GitLab CI `id_tokens: SIGSTORE_ID_TOKEN: aud: sigstore`; CAPKG_FULCIO_URL and CAPKG_REKOR_URL name a private Sigstore instance".into(),
            ),
            Error::Git { .. } => Some(
                "in a container, git may refuse a checkout owned by another user: `git config --global --add safe.directory \"$PWD\"`".into(),
            ),
            _ => None,
        }
    }
}

impl Error {
    /// The stage this error belongs to.
    pub(crate) fn stage(&self) -> Stage {
        match self {
            Error::Settings(source) if source.is_about_the_version() => Stage::Version,
            Error::Settings(_) | Error::Assemble(_) => Stage::Assemble,
            Error::LintErrors { .. }
            | Error::VersionNotCovered { .. }
            | Error::TagsNotCovered { .. }
            | Error::Git { .. }
            | Error::HeadNotTagged(_)
            | Error::ImagesMissing { .. }
            | Error::UpgradeBreaks { .. }
            | Error::Previous { .. }
            | Error::PreviousUnreadable { .. }
            | Error::NotComparable { .. }
            | Error::Release(_)
            | Error::NothingDrafted { .. }
            | Error::Signing(_)
            | Error::Draft { .. } => Stage::Checks,
            Error::Target {
                step: Step::Plan, ..
            } => Stage::Plan,
            Error::Target { .. } => Stage::Publish,
            Error::Verify { .. } | Error::VerifyFailed { .. } => Stage::Verify,
        }
    }
}
