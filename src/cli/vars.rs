//! `capkg vars FILE...`: the variables files need, required or optional with defaults.

use std::path::PathBuf;

use clap::Args;

use super::{CommandResult, GlobalArgs};

#[derive(Debug, Args)]
pub struct VarsArgs {
    /// Templates or components files.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

pub fn run(_global: &GlobalArgs, _args: VarsArgs) -> CommandResult {
    super::not_yet("vars")
}
