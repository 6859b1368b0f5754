//! `capkg lint [PATH]...`: every rule over files and folders.

use std::path::PathBuf;

use clap::Args;

use super::{CommandResult, Failure, GlobalArgs, ProviderArgs, Status, parse_version};
use crate::report::{self, Style};
use crate::rules::{self, Severity, Summary};
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
}

pub fn run(global: &GlobalArgs, args: LintArgs) -> CommandResult {
    let releases = crate::files::load_releases(&args.paths, args.provider.provider_type).map_err(
        |e| match e {
            crate::files::Error::UnknownRole { .. } => Failure::internal(e),
            other => Failure::internal(other),
        },
    )?;
    let options = rules::Options {
        provider_type: args.provider.provider_type,
        provider_name: args.provider.provider.clone(),
        version: args.version.clone(),
    };
    let mut diagnostics = rules::run(&releases, &options);
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
    )?;
    let failed = summary.errors > 0 || (args.deny_warnings && summary.warnings > 0);
    Ok(if failed {
        Status::Failure
    } else {
        Status::Success
    })
}
