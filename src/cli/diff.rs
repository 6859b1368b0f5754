//! `capkg diff OLD NEW`: compare two releases as a reviewer would, and fail on what breaks an
//! upgrade ([`crate::diff`]). Exit 1 when an `upgrade/…` error remains after waivers.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use clap::Args;

use super::network::{runtime, services};
use super::output::{plain_style, uses_annotations, write_annotations};
use super::publish::{HttpLimitArgs, ReadLimitArgs};
use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status, parse_version};
use crate::ci::{self, CiContext};
use crate::diff::{self, DiffReport, DiffRequest};
use crate::error::Classified;
use crate::report::{self, Format};
use crate::rules::Waiver;
use crate::settings::{self, CommandLine, Need};

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The previous release: anything `capkg verify` reads (a release folder, `file://`, a
    /// GitHub or GitLab URL, `oci://REF`).
    #[arg(value_name = "OLD")]
    pub old: String,
    /// The new release, in the same forms.
    #[arg(value_name = "NEW")]
    pub new: String,
    /// The new release's version (`v1.2.3`), where NEW does not say it (a folder such as `out/`).
    ///
    /// NEW's own release series is checked and its contract read for this version. Without it, a
    /// folder outside the `{provider-label}/{version}/` layout has no version, and the diff says
    /// which checks it skipped.
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Option<crate::version::Version>,
    /// The previous release's version, where OLD does not say it.
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub old_version: Option<crate::version::Version>,
    /// API base URL for github.com sources (GitHub Enterprise, a test server); default
    /// GITHUB_API_URL, else https://api.github.com.
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Accept an `upgrade/…` rule's findings (repeatable): `--allow RULE=REASON`. Waived
    /// findings are still shown, with the reason; `lint: allow:` in capkg.yaml says the same.
    #[arg(long, value_name = "RULE[=REASON]", value_parser = parse_allow)]
    pub allow: Vec<Waiver>,
    /// capkg's configuration file, for its `lint: allow:` waivers; default: the nearest
    /// `capkg.yaml` up to the repository root, if there is one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The longest capkg waits before a retry (`90s`, `10m`, `1h`).
    #[arg(long, value_name = "DURATION", default_value = "10m", value_parser = crate::units::parse_duration)]
    pub max_wait: std::time::Duration,
    #[command(flatten)]
    pub limits: HttpLimitArgs,
    #[command(flatten)]
    pub read_limits: ReadLimitArgs,
}

fn parse_allow(text: &str) -> Result<Waiver, String> {
    Waiver::from_flag(text)
}

pub(super) fn run(global: &GlobalArgs, args: DiffArgs) -> CommandResult {
    let env = |name: &str| std::env::var(name).ok();
    let ci = CiContext::detect(&env);
    let line = CommandLine {
        config: args.config.clone(),
        allow: args.allow.clone(),
        api_url: args.api_url.clone(),
        ..CommandLine::default()
    };
    let resolved =
        settings::resolve(&line, Need::Read, &ci, &env).map_err(CommandError::from_classified)?;
    let (settings, waivers) = (resolved.reading, resolved.waivers);
    for (side, source) in [("OLD", &args.old), ("NEW", &args.new)] {
        folder_exists(side, source)?;
    }
    let (old, old_warning) = super::given_reference(&args.old);
    let (new, new_warning) = super::given_reference(&args.new);
    let request = DiffRequest {
        old,
        new,
        provider_name: args.provider.provider,
        provider_type: args.provider.provider_type,
        version: args.old_version.map(|v| v.to_string()),
        new_version: args.version.map(|v| v.to_string()),
    };
    let mut services = services(global, &args.limits, &args.read_limits);
    services.policy.max_wait = args.max_wait;
    let report = runtime()?
        .block_on(diff::diff(&request, &settings, services))
        // A release that cannot be read at all: capkg could not compare (exit 2).
        .map_err(|e| {
            let hint = e
                .hint()
                .unwrap_or_else(|| "OLD and NEW take what `capkg verify` reads".into());
            CommandError::fault(anyhow::Error::new(e)).with_hint(hint)
        })?
        .waive(&waivers);
    let mut report = report;
    report
        .warnings
        .extend(old_warning.into_iter().chain(new_warning));
    write(global, &ci, &report).map_err(CommandError::fault)?;
    if let Some(path) = ci.step_summary.as_deref().filter(|_| ci.is_github()) {
        ci::append_step_summary(path, &report::diff::markdown(&report, "###"))
            .map_err(CommandError::fault)?;
    }
    Ok(if report.ok {
        Status::Success
    } else {
        Status::Findings
    })
}

/// A source without a scheme is a path on this machine: one that is not there is said as such
/// (exit 2), before it is read as a local repository's `{base}/{label}/{version}/{file}` and
/// refused for its form. A `latest` version folder is left to that reading, which resolves it.
fn folder_exists(side: &str, source: &str) -> Result<(), CommandError> {
    let text = source.trim();
    if text.contains("://") {
        return Ok(());
    }
    let path = Path::new(text);
    if path.exists() {
        return Ok(());
    }
    let latest = path
        .parent()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n == crate::verify::source::LATEST)
        })
        .and_then(Path::parent)
        .is_some_and(Path::is_dir);
    if latest {
        return Ok(());
    }
    let looked = if path.is_absolute() {
        String::new()
    } else {
        let cwd = std::env::current_dir().map_or_else(|_| ".".into(), |d| d.display().to_string());
        format!(" in `{cwd}`")
    };
    Err(CommandError::fault(anyhow::anyhow!(
        "no such folder: `{text}` ({side}; nothing there{looked})"
    ))
    .with_hint(
        "give a release folder (`out/`, `infrastructure-foo/v1.4.2/`), a `file://` path to its components file, a GitHub or GitLab release URL, or `oci://REF`",
    ))
}

fn write(global: &GlobalArgs, ci: &CiContext, report: &DiffReport) -> std::io::Result<()> {
    let mut out = super::stdout();
    match global.format {
        Format::Json => report::json::write_value(&mut out, report)?,
        Format::Markdown => out.write_all(report::diff::markdown(report, "##").as_bytes())?,
        Format::Human | Format::Github => {
            if !global.quiet {
                report::diff::write_changes(&mut out, report)?;
            }
            if uses_annotations(global, ci) {
                write_annotations(&mut out, &report.diagnostics)?;
            } else {
                report::human::write_diagnostics(
                    &mut out,
                    plain_style(global, ci),
                    &report.diagnostics,
                    &report.summary,
                )?;
            }
            writeln!(out, "{}", report::diff::verdict(report))?;
        }
    }
    Ok(())
}
