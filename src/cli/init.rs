//! `capkg init`: scaffold `capkg.yaml`, a GitHub Actions workflow and a GitLab CI job.

use std::path::PathBuf;

use clap::Args;

use super::{CommandResult, GlobalArgs, ProviderArgs};

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The repository to scaffold (default: the current folder).
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
    /// Overwrite files that already exist.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

pub fn run(_global: &GlobalArgs, _args: InitArgs) -> CommandResult {
    super::not_yet("init")
}
