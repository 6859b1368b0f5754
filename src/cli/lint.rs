//! `capkg lint [PATH]...`: every rule over files and folders.

use std::path::PathBuf;

use clap::Args;

use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status, parse_version};
use crate::ci::CiContext;
use crate::diagnostic::{Severity, Summary};
use crate::report::{self, Style};
use crate::rules::{self};
use crate::settings::{self, CommandLine, Need};
use crate::version::Version;

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files and folders to check (folders are searched for release files).
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// The version being released (`v1.2.3`): checks `metadata.yaml` covers it and images carry it.
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Option<Version>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Accept a rule's findings (repeatable): `--allow RULE=REASON`, or `--allow RULE` (the
    /// reason then says it came from the command line). Waived findings are still shown, with
    /// the reason, and do not fail the run; `lint: allow:` in capkg.yaml says the same per file.
    #[arg(long, value_name = "RULE[=REASON]", value_parser = parse_allow)]
    pub allow: Vec<rules::Waiver>,
    /// capkg's configuration file, for its `lint: allow:` waivers; default: the nearest
    /// `capkg.yaml` up to the repository root, if there is one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

fn parse_allow(text: &str) -> Result<rules::Waiver, String> {
    rules::Waiver::from_flag(text)
}

pub(super) fn run(global: &GlobalArgs, args: LintArgs) -> CommandResult {
    // The waivers first: a configuration capkg cannot read is reported before anything else.
    let env = |name: &str| std::env::var(name).ok();
    let line = CommandLine {
        config: args.config.clone(),
        allow: args.allow.clone(),
        ..CommandLine::default()
    };
    let settings = settings::resolve(&line, Need::Lint, &CiContext::detect(&env), &env)
        .map_err(CommandError::from_classified)?;
    let releases = crate::files::load_releases(&args.paths, args.provider.provider_type)
        .map_err(CommandError::from_classified)?;
    let options = rules::Options {
        provider_type: args.provider.provider_type,
        provider_name: args.provider.provider.clone(),
        version: args.version.clone(),
    };
    let mut diagnostics = rules::run(&releases, &options);
    settings.waivers.apply_judged(
        &mut diagnostics,
        rules::waivers::Scope::Lint,
        rules::waivers::Judged::Linted,
    );
    let files = releases.iter().map(|r| r.files.len()).sum();
    // The summary counts every finding: `-q` hides warnings, it does not make them go away.
    let summary = Summary::of(&diagnostics, files);
    if global.quiet {
        diagnostics.retain(|d| d.severity == Severity::Error);
    }
    let mut out = super::stdout();
    report::write_lint(
        &mut out,
        global.format,
        Style::for_stdout(global.color),
        &diagnostics,
        &summary,
    )
    .map_err(CommandError::fault)?;
    let failed = summary.errors > 0 || (args.deny_warnings && summary.warnings > 0);
    Ok(if failed {
        Status::Findings
    } else {
        Status::Success
    })
}
