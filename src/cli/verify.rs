//! `capkg verify SOURCE`: read a published release as clusterctl does and lint it.

use clap::Args;

use super::{CommandResult, GlobalArgs, ProviderArgs};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// A provider URL as in clusterctl's configuration (GitHub release, GitLab package,
    /// `file://`), or a directory.
    #[arg(value_name = "SOURCE")]
    pub source: String,
    /// API base URL (GitHub Enterprise, a test server).
    #[arg(long, value_name = "URL")]
    pub api_url: Option<String>,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

pub fn run(_global: &GlobalArgs, _args: VerifyArgs) -> CommandResult {
    super::not_yet("verify")
}
