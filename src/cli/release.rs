//! `capkg release`: tag -> assemble -> lint -> publish -> verify, for CI.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{CommandResult, GlobalArgs, ProviderArgs, parse_version};
use crate::version::Version;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TargetKind {
    Github,
    Gitlab,
    Local,
}

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    /// capkg's configuration file; default: `capkg.yaml` at the repository root.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The version to release; default: the CI tag (GITHUB_REF_NAME, CI_COMMIT_TAG).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Option<Version>,
    /// Publish only to these targets of the configuration (repeatable).
    #[arg(long, value_enum, value_name = "TARGET")]
    pub target: Vec<TargetKind>,
    /// Print the plan and touch nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

pub fn run(_global: &GlobalArgs, _args: ReleaseArgs) -> CommandResult {
    super::not_yet("release")
}
