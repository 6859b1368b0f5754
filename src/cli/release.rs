//! `capkg release`: tag -> assemble -> lint -> publish -> verify, for CI.
//!
//! Resolves flags, capkg.yaml and the environment into [`settings`], plans the release
//! ([`release::plan()`]), carries the plan out ([`release::execute()`], dry or real), and reports the
//! [`Outcome`]:
//!
//! - stdout: the JSON object (`--format json`), or text: lint findings (annotations in GitHub
//!   Actions, within GitHub's caps), checks, each target's plan or result, warnings, a verdict;
//!   in GitLab CI the Markdown summary follows, as GitLab has no summary page;
//! - GitHub Actions: the Markdown summary appended to `GITHUB_STEP_SUMMARY`, outputs appended to
//!   `GITHUB_OUTPUT`, whatever the format;
//! - stderr: progress lines, and the error with its hint.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Args, ValueEnum};

use super::network::{runtime, services};
use super::output::{plain_style, uses_annotations, write_annotations};
use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status, parse_version};
use crate::assemble::images;
use crate::ci::{self, CiContext};
use crate::diagnostic::{Diagnostic, Severity};
use crate::escape::{self, Output};
use crate::release::assembly::SourcesAssembler;
use crate::release::outcome::{TargetPlan, TargetReport};
use crate::release::{self, Outcome, TargetState};
use crate::report::release as summary;
use crate::report::{self, Format};
use crate::settings::{self, CommandLine, Need};
use crate::targets;
use crate::targets::Reach;
use crate::version::Version;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetKind {
    Github,
    Gitlab,
    Local,
    Oci,
}

impl From<TargetKind> for targets::TargetKind {
    fn from(kind: TargetKind) -> Self {
        match kind {
            TargetKind::Github => targets::TargetKind::Github,
            TargetKind::Gitlab => targets::TargetKind::Gitlab,
            TargetKind::Local => targets::TargetKind::Local,
            TargetKind::Oci => targets::TargetKind::Oci,
        }
    }
}

/// What `release` and `promote` share: which release (the configuration, the version) and
/// where (the targets), and how the network is used.
#[derive(Debug, Args)]
pub struct ReleaseSelection {
    /// capkg's configuration file; default: `capkg.yaml` at the repository root.
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// The version to release; default: the CI tag (`GITHUB_REF_NAME` on a tag push,
    /// `CI_COMMIT_TAG`), else `version:` in capkg.yaml (the order `assemble` follows).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Option<Version>,
    /// Publish only to these targets of the configuration (repeatable).
    #[arg(long, value_enum, value_name = "TARGET")]
    pub target: Vec<TargetKind>,
    /// When images the components name are not in their registry yet (an image build running
    /// beside the release), look again with backoff for up to this long (`90s`, `15m`) before
    /// refusing; default: look once.
    #[arg(long, value_name = "DURATION", value_parser = crate::units::parse_duration)]
    pub wait_for_images: Option<std::time::Duration>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    #[command(flatten)]
    pub limits: super::publish::HttpLimitArgs,
    #[command(flatten)]
    pub read_limits: super::publish::ReadLimitArgs,
}

impl ReleaseSelection {
    /// The command line settings resolve; `previous` is `release`'s alone.
    pub(super) fn command_line(self, previous: Option<String>) -> CommandLine {
        CommandLine {
            config: self.config,
            provider_type: self.provider.provider_type,
            provider_name: self.provider.provider,
            version: self.version,
            targets: self.target.into_iter().map(Into::into).collect(),
            previous,
            ..CommandLine::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    #[command(flatten)]
    pub selection: ReleaseSelection,
    /// Print the plan and touch nothing: no network access, nothing written (the upgrade check
    /// runs where the previous release is on this machine).
    #[arg(long)]
    pub dry_run: bool,
    /// Publish where nobody installs from it yet and stop: a GitHub draft release; the local
    /// folder, OCI tag and GitLab package version `draft-VERSION`. The images are not looked
    /// up; `capkg promote` does that, makes the draft public and verifies it.
    #[arg(long)]
    pub draft: bool,
    /// The release to compare with before publishing (`capkg diff`): a version looked up at
    /// each target (`v1.2.2`), a source `capkg verify` reads, or `none`; default: capkg.yaml
    /// `previous:`, else the newest version older than this one at each target.
    #[arg(long, value_name = "REF|none")]
    pub previous: Option<String>,
    /// Release the sources where capkg.yaml is although their HEAD is not tagged with the
    /// version (`--version` or `version:`; a CI tag push is never checked). Without it a release
    /// refuses such sources and a dry run warns.
    #[arg(long)]
    pub allow_untagged_head: bool,
}

pub(super) fn run(global: &GlobalArgs, args: ReleaseArgs) -> CommandResult {
    let env = |name: &str| std::env::var(name).ok();
    let (previous, login_warning) = match args.previous.as_deref().map(super::given_reference) {
        Some((previous, warning)) => (Some(previous), warning),
        None => (None, None),
    };
    let ci = CiContext::detect(&env);
    let services = services(global, &args.selection.limits, &args.selection.read_limits);
    let wait_for_images = args.selection.wait_for_images;
    let line = CommandLine {
        allow_untagged_head: args.allow_untagged_head,
        ..args.selection.command_line(previous)
    };
    let checks_shown = AtomicBool::new(false);
    let runtime = runtime()?;
    let planned = settings::resolve(&line, Need::Release, &ci, &env)
        .and_then(|mut settings| {
            // `digest: from-registry` is asked of the registry before the build; a dry run
            // makes no request and plans the image without its digest.
            if images::registry_lookups(&settings.sources.pins).is_empty() {
                return Ok(settings);
            }
            if args.dry_run {
                let _ = writeln!(
                    super::stderr(),
                    "warning: --dry-run asks no registry: the images pinned with `digest: from-registry` are planned without their digest"
                );
                return Ok(settings);
            }
            settings.sources.pins = runtime.block_on(settings::registry_digests(
                &settings.sources.pins,
                &settings.reading.origins,
                &services,
            ))?;
            Ok(settings)
        })
        .map_err(release::Error::from)
        .and_then(|settings| release::plan(&settings, &SourcesAssembler))
        .map(|plan| if args.draft { plan.into_draft() } else { plan });
    let outcome = match planned {
        Err(err) => Outcome {
            // Stopped before a plan: still the run that was asked for.
            dry_run: args.dry_run,
            mode: if args.draft {
                release::plan::Mode::Draft
            } else {
                release::plan::Mode::Release
            },
            ..Outcome::failed(&err, None)
        },
        Ok(plan) => {
            // The checks are printed as soon as they pass, before the upload progress.
            let print_checks = |so_far: &Outcome| {
                if global.format != Format::Json {
                    let mut out = super::stdout();
                    let written =
                        write_checks(&mut out, global, &ci, so_far).and_then(|()| out.flush());
                    checks_shown.store(written.is_ok(), Ordering::Relaxed);
                }
            };
            let run = release::Run {
                reach: if args.dry_run {
                    Reach::Offline
                } else {
                    Reach::Remote
                },
                env: &env,
                services,
                checked: &print_checks,
                wait_for_images: wait_for_images.map(crate::verify::images_exist::Wait::up_to),
            };
            runtime.block_on(release::execute(&plan, run))
        }
    };
    let mut outcome = outcome;
    outcome.warnings.extend(login_warning);
    without_logins(&mut outcome);
    write(global, &ci, &outcome, checks_shown.load(Ordering::Relaxed))?;
    match &outcome.error {
        None => Ok(Status::Success),
        Some(error) => Err(CommandError::from_classified(error.clone())),
    }
}

/// Where the previous releases were read, shown without a user name and password: capkg.yaml's
/// `previous:` may hold a URL with them (`--previous` is redacted before it is read).
fn without_logins(outcome: &mut Outcome) {
    let redact = crate::forge::url::redact_userinfo;
    for upgrade in outcome
        .targets
        .iter_mut()
        .flat_map(|t| t.upgrade.iter_mut())
    {
        if let Some(source) = &mut upgrade.source {
            *source = redact(source);
        }
        if let Some(diff) = &mut upgrade.diff {
            diff.old.source = redact(&diff.old.source);
            diff.new.source = redact(&diff.new.source);
        }
    }
}

/// Every channel: stdout, and in CI the summary and outputs.
pub(super) fn write(
    global: &GlobalArgs,
    ci: &CiContext,
    outcome: &Outcome,
    checks_shown: bool,
) -> Result<(), CommandError> {
    let mut out = super::stdout();
    if global.format == Format::Json {
        report::json::write_value(&mut out, outcome).map_err(CommandError::fault)?;
    } else {
        write_text(&mut out, global, ci, outcome, checks_shown).map_err(CommandError::fault)?;
        if ci.is_gitlab() && !global.quiet {
            writeln!(out, "\n{}", summary::markdown(outcome)).map_err(CommandError::fault)?;
        }
    }
    if ci.is_github() {
        if let Some(path) = &ci.step_summary {
            ci::append_step_summary(path, &summary::markdown(outcome))
                .map_err(CommandError::fault)?;
        }
        if let Some(path) = &ci.output {
            ci::append_outputs(path, &summary::outputs(outcome)).map_err(CommandError::fault)?;
        }
    }
    Ok(())
}

fn write_text(
    out: &mut dyn Output,
    global: &GlobalArgs,
    ci: &CiContext,
    outcome: &Outcome,
    checks_shown: bool,
) -> std::io::Result<()> {
    let annotations = uses_annotations(global, ci);
    if !checks_shown {
        write_checks(out, global, ci, outcome)?;
    }
    if !global.quiet && !outcome.phases.is_empty() {
        writeln!(
            out,
            "\nThe release, as it will run (a dry run stops before the network):"
        )?;
        for (number, phase) in outcome.phases.iter().enumerate() {
            writeln!(
                out,
                "  {}. {}{}: {}",
                number + 1,
                phase.phase,
                if phase.network { " (network)" } else { "" },
                escape::text(&phase.what)
            )?;
        }
    }
    for target in &outcome.targets {
        write_target(out, global.quiet, target)?;
    }
    // A draft's URLs are where nobody installs from: no configuration to copy.
    if !global.quiet
        && outcome.error.is_none()
        && outcome.mode != release::plan::Mode::Draft
        && let Some(config) = outcome
            .targets
            .iter()
            .find_map(|t| t.plan.as_ref().map(|p| p.clusterctl_config.clone()))
    {
        writeln!(
            out,
            "\nclusterctl configuration:\n{}",
            escape::lines(&config, "")
        )?;
    }
    let warnings = outcome.warnings.iter().chain(
        outcome
            .targets
            .iter()
            .filter_map(|t| t.plan.as_ref())
            .flat_map(|p| p.warnings.iter()),
    );
    if annotations {
        // The run's error first, so that it is always annotated; then findings, then warnings,
        // all within GitHub's per-step caps together.
        let mut all: Vec<Diagnostic> = outcome
            .error
            .iter()
            .map(|e| {
                Diagnostic::new(
                    "capkg/release",
                    Severity::Error,
                    None,
                    None,
                    e.message.clone(),
                    e.hint.clone().unwrap_or_default(),
                )
            })
            .collect();
        all.extend(outcome.diagnostics.iter().cloned());
        all.extend(warnings.map(|w| {
            Diagnostic::new(
                "capkg/release",
                Severity::Warning,
                None,
                None,
                w.clone(),
                "",
            )
        }));
        write_annotations(out, &all)?;
    } else if !global.quiet {
        for warning in warnings {
            writeln!(out, "warning: {}", escape::text(warning))?;
        }
    }
    let promoting = outcome.mode == release::plan::Mode::Promote;
    let verdict = match outcome.status {
        release::Status::Refused if promoting => "Refused: nothing was made public.",
        release::Status::Failed if promoting => "Failed: nothing was made public.",
        release::Status::Published => "Published.",
        release::Status::Unchanged => "Already published: nothing changed.",
        release::Status::DryRun => "Dry run: nothing was changed and no network request was made.",
        release::Status::Refused => "Refused: nothing was published.",
        release::Status::Failed => "Failed: nothing was published.",
        release::Status::Incomplete => {
            "Incomplete: see the error below; run the same command again to finish."
        }
        release::Status::Drafted => {
            "Drafted: nobody can install it yet; `capkg promote` checks the images, makes it public and verifies it."
        }
        release::Status::Promoted => "Promoted: the release is public and verified.",
        release::Status::AlreadyPromoted => "Already promoted: nothing changed.",
    };
    writeln!(out, "{verdict}")?;
    Ok(())
}

/// The lint findings, the release line and the checks: what `release` knows before it uploads.
fn write_checks(
    out: &mut dyn Write,
    global: &GlobalArgs,
    ci: &CiContext,
    outcome: &Outcome,
) -> std::io::Result<()> {
    // A promotion does not lint: the draft was linted when it was made.
    if !uses_annotations(global, ci) && outcome.mode != release::plan::Mode::Promote {
        let mut shown = outcome.diagnostics.clone();
        if global.quiet {
            shown.retain(|d| d.severity == Severity::Error);
        }
        if !shown.is_empty() || (!global.quiet && outcome.lint.files > 0) {
            report::human::write_diagnostics(out, plain_style(global, ci), &shown, &outcome.lint)?;
        }
    }
    if let Some(version) = &outcome.version {
        let labels: Vec<&str> = outcome.providers.iter().map(|p| p.label.as_str()).collect();
        writeln!(
            out,
            "Release {} {}{}",
            if labels.is_empty() {
                "(provider unknown)".to_string()
            } else {
                escape::text(&labels.join(", ")).into_owned()
            },
            escape::text(version),
            outcome
                .version_source
                .as_deref()
                .map_or_else(String::new, |s| format!(" (from {})", escape::text(s)))
        )?;
    }
    if !global.quiet {
        if let Some(check) = &outcome.checks.version_series {
            writeln!(
                out,
                "{} {}",
                if check.ok { "ok  " } else { "FAIL" },
                escape::text(&check.message)
            )?;
        }
        let tags = &outcome.checks.tags;
        if let Some(note) = &tags.note {
            let state = if tags.checked { "note" } else { "skip" };
            writeln!(out, "{state} {}", escape::text(note))?;
        }
        if tags.checked {
            if tags.uncovered.is_empty() {
                writeln!(
                    out,
                    "ok   git tags: {} semver tag(s) checked from series {}",
                    tags.tags,
                    escape::text(tags.from_series.as_deref().unwrap_or("-"))
                )?;
            } else {
                let (state, waived) = match &tags.waived {
                    Some(reason) => ("ok  ", format!(" (waived: {reason})")),
                    None => ("FAIL", String::new()),
                };
                writeln!(
                    out,
                    "{state} git tags without a release series: {}{}",
                    escape::text(&tags.uncovered.join(", ")),
                    escape::text(&waived)
                )?;
            }
        }
        if let Some(line) = head_line(outcome) {
            writeln!(out, "{line}")?;
        }
        if let Some(images) = &outcome.checks.images {
            // `ok` only for images looked up and found; a check that looked nothing up is a skip.
            let state = if images.skipped.is_some() {
                "skip"
            } else if !images.ok() {
                "FAIL"
            } else if images.found.is_empty() {
                "skip"
            } else {
                "ok  "
            };
            writeln!(out, "{state} {}", escape::text(&images.summary()))?;
        }
    }
    Ok(())
}

/// The commit built, as the checks list it: `ok` when it is tagged with the version.
fn head_line(outcome: &Outcome) -> Option<String> {
    let head = &outcome.checks.head;
    let commit = head.commit.as_deref().map(|c| c.get(..12).unwrap_or(c));
    let tagged = outcome
        .version
        .as_ref()
        .is_some_and(|v| head.tags.contains(v));
    let what = commit.map(|commit| {
        format!(
            "sources: commit {commit} of `{}`{}",
            head.checkout
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            match head.tags.as_slice() {
                [] => String::new(),
                tags => format!(" (tagged {})", tags.join(", ")),
            }
        )
    });
    let line = match (what, &head.note) {
        (Some(what), _) if head.checked && tagged => format!("ok   {what}"),
        (Some(what), None) => format!("note {what}"),
        (Some(what), Some(note)) => format!("note {what}; {note}"),
        (None, Some(note)) => format!("skip {note}"),
        (None, None) => return None,
    };
    Some(escape::text(&line).into_owned())
}

fn write_target(out: &mut dyn Write, quiet: bool, target: &TargetReport) -> std::io::Result<()> {
    writeln!(
        out,
        "\n{}: {}",
        target.target,
        escape::text(&summary::target_result(target))
    )?;
    if quiet {
        write_urls(out, target)?;
        return Ok(());
    }
    match (&target.result, &target.plan) {
        (Some(result), _) => {
            let names: Vec<_> = result.files.iter().map(|f| escape::text(&f.name)).collect();
            let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
            for (file, name) in result.files.iter().zip(&names) {
                writeln!(
                    out,
                    "  {:<9} {:<width$}  {}",
                    file.outcome,
                    name,
                    escape::text(&file.url)
                )?;
            }
            writeln!(
                out,
                "  destination: {}",
                escape::text(&result.destination.destination)
            )?;
        }
        (None, Some(plan)) if target.state == TargetState::Planned => write_plan(out, plan)?,
        _ => {}
    }
    let several = target.providers.len() > 1;
    for provider in &target.providers {
        let Some(verify) = &provider.verify else {
            continue;
        };
        let prefix = if several {
            format!("{} ", escape::text(&provider.label))
        } else {
            String::new()
        };
        for check in &verify.checks {
            writeln!(
                out,
                "  verify {prefix}{} {}: {}",
                if check.ok { "ok" } else { "FAIL" },
                check.name,
                escape::text(&check.message)
            )?;
        }
    }
    for upgrade in &target.upgrade {
        let prefix = if several {
            format!("{} ", escape::text(&upgrade.label))
        } else {
            String::new()
        };
        match (&upgrade.diff, &upgrade.note) {
            (Some(diff), _) => {
                writeln!(
                    out,
                    "  upgrade {prefix}from {}: {}",
                    escape::text(
                        upgrade
                            .previous
                            .as_deref()
                            .unwrap_or("the previous release")
                    ),
                    crate::report::diff::verdict(diff)
                )?;
                crate::report::diff::write_compact(out, diff, "    ")?;
            }
            (None, Some(note)) => writeln!(out, "  upgrade {prefix}{}", escape::text(note))?,
            (None, None) => {}
        }
        if let Some(chosen) = &upgrade.chosen {
            writeln!(out, "    previous release: {}", escape::text(chosen))?;
        }
        if let Some(withheld) = upgrade.access.as_ref().and_then(|a| a.withheld.as_ref()) {
            writeln!(out, "    read without a login: {withheld}")?;
        }
    }
    write_urls(out, target)
}

/// The clusterctl URL, one line per provider when the release has several.
fn write_urls(out: &mut dyn Write, target: &TargetReport) -> std::io::Result<()> {
    let providers = target
        .providers
        .iter()
        .map(|p| (p.label.as_str(), p.clusterctl_url.as_str()));
    super::write_clusterctl_urls(
        out,
        "  ",
        target.target,
        providers,
        target.clusterctl_url.as_deref(),
    )
}

fn write_plan(out: &mut dyn Write, plan: &TargetPlan) -> std::io::Result<()> {
    writeln!(out, "  destination: {}", escape::text(&plan.destination))?;
    let names: Vec<_> = plan.files.iter().map(|f| escape::text(&f.name)).collect();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    for (file, name) in plan.files.iter().zip(&names) {
        let action = file
            .action
            .map_or_else(|| "upload?".to_string(), |a| a.to_string());
        writeln!(
            out,
            "  {action:<8} {:<width$}  {:>7}  {}  {}",
            name,
            file.size,
            escape::text(&file.sha256),
            escape::text(&file.url)
        )?;
    }
    for step in &plan.steps {
        writeln!(out, "  - {}", escape::text(step))?;
    }
    if let Some(note) = &plan.note {
        writeln!(out, "  note: {}", escape::text(note))?;
    }
    Ok(())
}
