//! `capkg assemble`: the release directory from `capkg.yaml` and the sources.

use std::path::PathBuf;

use clap::Args;

use super::{CommandResult, GlobalArgs, ProviderArgs, parse_version};
use crate::version::Version;

#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// capkg's configuration file; default: `capkg.yaml` at the repository root.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The version being released (`v1.2.3`).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Option<Version>,
    /// Where to write the release (default `out/`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

pub fn run(_global: &GlobalArgs, _args: AssembleArgs) -> CommandResult {
    super::not_yet("assemble")
}
