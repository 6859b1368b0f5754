//! The plan: everything decided before anything leaves the machine. [`plan`] assembles the
//! release (once: its files' bytes and their parsed trees travel together from here to
//! publishing), runs the checks that need no network (lint, the provider's identity, the
//! release series, the git tags), and lays out the phases [`super::execute()`] carries out: check
//! the images, compare with the previous release at each target, publish to each target, verify
//! what each serves. `--dry-run` prints this plan and runs it up to the first step that needs
//! the network.

use serde::Serialize;

use super::assembly::{Assembled, Assembler};
use super::attest::{self, Attestation};
use super::error::Error;
use super::head::{self, HeadCheck};
use super::tags::{self, TagCheck};
use crate::diagnostic::{Diagnostic, Summary};
use crate::provider::ReleaseProvider;
use crate::rules::{self, Waivers};
use crate::settings::{ImageCheck, Previous, ResolvedVersion, Settings, TargetSettings};
use crate::sigstore::BUNDLE_FILE;
use crate::targets::{PublishFile, ReleaseDir, TargetKind};
use crate::verify::{self, Check, ReadRelease, images_exist};

/// Everything decided before publishing: the release, the checks, the phases.
#[derive(Debug)]
pub(crate) struct ReleasePlan {
    pub version: ResolvedVersion,
    /// The files as they will be published.
    pub files: Vec<PublishFile>,
    /// The release as publish sees it; `None` when its files do not make one (see `blockers`).
    pub release: Option<ReleaseDir>,
    /// Each provider's part of the release, parsed once at assembly: what the checks read and
    /// what the previous release is compared with.
    pub parts: Vec<ReadRelease>,
    /// Lint's findings, waived.
    pub diagnostics: Vec<Diagnostic>,
    pub version_series: Option<Check>,
    pub tags: TagCheck,
    /// The commit built, and whether it is tagged with the version ([`head`]).
    pub head: HeadCheck,
    /// What a real run stops with when HEAD is not tagged with the version; a dry run warns.
    pub head_refusal: Option<Error>,
    /// Where it goes, in publishing order, each with how it is read back. Public so that tests
    /// can point a plan elsewhere.
    pub destinations: Vec<TargetSettings>,
    /// How releases are read: the images' registries, the previous release, the published one.
    pub reading: verify::Settings,
    /// What stops the release before anything is written.
    pub blockers: Vec<Error>,
    /// `lint: allow:`, applied to what the comparison and verify find too.
    pub waivers: Waivers,
    pub warnings: Vec<String>,
    /// The images the components name, looked up before publishing ([`images_exist`]).
    pub images: Vec<images_exist::ImageUse>,
    /// Whether the images are looked up.
    pub image_check: ImageCheck,
    /// The release to compare with, at each target.
    pub previous: Previous,
    /// The provenance statement among [`ReleasePlan::files`], what it says.
    pub attestation: Option<Attestation>,
    /// A release, a draft of one, or a draft's promotion.
    pub mode: Mode,
}

/// What a run makes of the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Mode {
    /// `capkg release`: published and verified.
    Release,
    /// `capkg release --draft`: uploaded and read back where nobody installs from it yet; the
    /// images are looked up and the release verified by `capkg promote`.
    Draft,
    /// `capkg promote`: a draft, checked, made public and verified.
    Promote,
}

impl ReleasePlan {
    /// The same plan, published as a draft: every target writes where nobody installs from
    /// ([`crate::targets::draft_name`], a GitHub draft release).
    pub(crate) fn into_draft(mut self) -> Self {
        self.mode = Mode::Draft;
        for destination in &mut self.destinations {
            destination.request = destination.request.clone().into_draft();
        }
        self
    }

    pub(crate) fn is_blocked(&self) -> bool {
        !self.blockers.is_empty()
    }

    /// The phases, in the order they run, as `--dry-run` shows them.
    pub(crate) fn phases(&self) -> Vec<Phase> {
        let kinds: Vec<TargetKind> = self.destinations.iter().map(TargetSettings::kind).collect();
        let names = kinds
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let lint = Summary::of(&self.diagnostics, self.parts_files());
        // A local repository is on this machine; every other target is behind the network.
        let remote = kinds.iter().any(|kind| *kind != TargetKind::Local);
        let mut phases = vec![
            Phase {
                phase: PhaseKind::Assemble,
                network: false,
                what: format!(
                    "{} files of {} for {}",
                    self.files.len(),
                    self.labels(),
                    self.version.version
                ),
            },
            Phase {
                phase: PhaseKind::Check,
                network: false,
                what: format!(
                    "lint ({} error(s), {} warning(s)), the release series, the git tags, the commit built",
                    lint.errors, lint.warnings
                ),
            },
        ];
        if let Some(attestation) = &self.attestation {
            phases.push(Phase {
                phase: PhaseKind::Attest,
                network: false,
                what: format!(
                    "`{}`: in-toto statement with SLSA provenance over {} file(s), built by {}{}; {}",
                    attestation.file,
                    attestation.subjects,
                    attestation.builder,
                    attestation
                        .commit
                        .as_deref()
                        .map(|c| format!(" from commit {c}"))
                        .unwrap_or_default(),
                    if attestation.signed {
                        format!("signed keylessly (Fulcio, Rekor) into `{BUNDLE_FILE}`")
                    } else {
                        "unsigned: no OIDC identity (GitHub Actions `permissions: id-token: write`, GitLab `id_tokens: SIGSTORE_ID_TOKEN`, or CAPKG_SIGSTORE_ID_TOKEN)".to_string()
                    }
                ),
            });
        }
        if self.image_check.is_on() && self.mode != Mode::Draft {
            phases.push(Phase {
                phase: PhaseKind::Check,
                network: true,
                what: format!("{} image(s) exist in their registries", self.images.len()),
            });
        }
        phases.push(Phase {
            phase: PhaseKind::Publish,
            network: remote,
            what: format!("plan at each target ({names}): what it holds, what to upload"),
        });
        phases.push(Phase {
            phase: PhaseKind::Compare,
            network: remote,
            what: match &self.previous {
                Previous::Skip(said) => format!("nothing ({said})"),
                Previous::Newest => {
                    format!("with the newest older release at each target ({names})")
                }
                Previous::Version { version, .. } => {
                    format!("with `{version}` at each target ({names})")
                }
                Previous::Source(source) => format!("with `{source}`"),
            },
        });
        if self.mode == Mode::Draft {
            phases.push(Phase {
                phase: PhaseKind::Draft,
                network: remote,
                what: format!(
                    "upload and read back, one target after the other ({names}), where nobody installs from it: a GitHub draft release, `{}` as the local folder, OCI tag and GitLab package version; `capkg promote` checks the images, makes it public and verifies it",
                    crate::targets::draft_name(&self.version.version.to_string())
                ),
            });
            return phases;
        }
        phases.push(Phase {
            phase: PhaseKind::Publish,
            network: remote,
            what: format!(
                "upload, read back and make visible, one target after the other ({names})"
            ),
        });
        phases.push(Phase {
            phase: PhaseKind::Verify,
            network: remote,
            what: "read each target's release as clusterctl (or the operator) reads it".to_string(),
        });
        phases
    }

    fn labels(&self) -> String {
        match &self.release {
            Some(release) => release.provider_labels(),
            None => "the release".to_string(),
        }
    }

    /// The release files lint read.
    fn parts_files(&self) -> usize {
        self.files.iter().filter(|f| f.role.is_some()).count()
    }
}

/// A step of the release, in the order they run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum PhaseKind {
    Assemble,
    Check,
    Attest,
    Compare,
    Publish,
    /// `release --draft`: published where nobody installs from it yet.
    Draft,
    Verify,
}

impl std::fmt::Display for PhaseKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PhaseKind::Assemble => "assemble",
            PhaseKind::Check => "check",
            PhaseKind::Attest => "attest",
            PhaseKind::Compare => "compare",
            PhaseKind::Publish => "publish",
            PhaseKind::Draft => "draft",
            PhaseKind::Verify => "verify",
        })
    }
}

/// One phase of the plan as `--dry-run` shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Phase {
    pub phase: PhaseKind,
    /// What it does.
    pub what: String,
    /// Whether it needs the network (a dry run stops before it).
    pub network: bool,
}

/// Assembles the release and makes every decision that needs no network: nothing is written
/// but the release for reading findings ([`super::assembly`]).
pub(crate) fn plan(settings: &Settings, assembler: &dyn Assembler) -> Result<ReleasePlan, Error> {
    let version = settings
        .version
        .clone()
        .ok_or(crate::settings::Error::NoVersion)?;
    let reading = settings.reading.clone();
    let assembled = assembler.assemble(settings)?;
    let mut warnings: Vec<String> = version.warning.iter().cloned().collect();
    warnings.extend(assembled.findings_note.clone());
    let Assembled {
        files: mut release_files,
        mut diagnostics,
        providers,
        parts,
        findings_note: _,
    } = assembled;
    // Every part holds the release's one `metadata.yaml`.
    let with_metadata = parts.iter().find(|p| p.release.metadata().is_some());
    let metadata = with_metadata.and_then(|p| p.release.metadata());
    // The git tags are judged with the lint findings, so that a waiver accepts a tag check too.
    let tags = tags::in_checkout(&settings.root, metadata, Some(&version.version))?;
    let tag_finding = metadata.and_then(|m| tags::finding(&tags, m));
    diagnostics.extend(tag_finding);
    let waivers = settings.waivers.clone();
    waivers.apply(&mut diagnostics);
    let tag_finding = diagnostics.iter().find(|d| d.rule == rules::TAG_SERIES_ID);
    let tags_blocking = tag_finding.is_some_and(|d| d.is_blocking_error());
    let tags = TagCheck {
        waived: tag_finding.and_then(|d| d.waived.clone()),
        ..tags
    };

    let mut blockers = Vec::new();
    let summary = Summary::of(&diagnostics, release_files.len());
    // The tag finding refuses the release as its own error, which names the series to add.
    let lint_errors = summary.errors - usize::from(tags_blocking);
    if lint_errors > 0 {
        blockers.push(Error::LintErrors {
            errors: lint_errors,
            warnings: summary.warnings,
        });
    }

    let label = labels(&providers, &parts);
    let version_series = with_metadata
        .map(|part| verify::series_check(&part.release, &version.version, label.as_deref()));
    if let Some(check) = version_series.as_ref().filter(|c| !c.ok) {
        blockers.push(Error::VersionNotCovered {
            version: version.version.to_string(),
            message: check.message.clone(),
        });
    }

    let (head, head_warnings, head_refusal) =
        head::check(&settings.root, &version, settings.allow_untagged_head);
    warnings.extend(head_warnings);
    if tags_blocking {
        blockers.push(Error::TagsNotCovered {
            series: tags::missing_series(&tags.uncovered),
            tags: tags.uncovered.clone(),
        });
    }

    // The statement names every file, so it is made last and published with them.
    let attestation = attest::attest(settings, &version.version, &release_files).map(
        |(statement, attestation)| {
            release_files.push(statement);
            attestation
        },
    );
    let release = ReleaseDir::with_providers(
        &settings.root,
        version.version.clone(),
        providers,
        release_files.clone(),
        Vec::new(),
    );
    let release = match release {
        Ok(release) => Some(release),
        Err(err) => {
            // Lint has said why already when it found errors.
            if summary.errors == 0 {
                blockers.push(Error::Release(err.into()));
            }
            None
        }
    };
    let images = images_exist::image_uses(&parts.iter().map(|p| &p.release).collect::<Vec<_>>());
    Ok(ReleasePlan {
        version,
        files: release_files,
        release,
        parts,
        diagnostics,
        version_series,
        tags,
        head,
        head_refusal,
        destinations: settings.targets.clone(),
        reading,
        blockers,
        waivers,
        warnings,
        images,
        image_check: settings.images.clone(),
        previous: settings.previous.clone(),
        mode: Mode::Release,
        attestation,
    })
}

/// The provider label the series check names: the one provider's, or every provider's.
fn labels(providers: &[ReleaseProvider], parts: &[ReadRelease]) -> Option<String> {
    match (providers, parts) {
        ([], [part]) | ([_], [part]) => rules::Context::new(&part.release, &part.options)
            .provider
            .label(),
        _ => Some(
            providers
                .iter()
                .map(ReleaseProvider::label)
                .collect::<Vec<_>>()
                .join(", "),
        ),
    }
}
