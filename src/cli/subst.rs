//! `capkg subst [FILE]`: clusterctl's variable substitution, to stdout.

use std::path::PathBuf;

use clap::Args;

use super::{CommandResult, GlobalArgs, VariableArgs};

#[derive(Debug, Args)]
pub struct SubstArgs {
    /// The file to substitute; standard input when absent.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub variables: VariableArgs,
    /// Exactly drone/envsubst's `Eval`: no `${ VAR }` pre-pass, no missing-variable check, names
    /// looked up as written, unset variables empty.
    #[arg(long)]
    pub plain: bool,
}

pub fn run(_global: &GlobalArgs, _args: SubstArgs) -> CommandResult {
    super::not_yet("subst")
}
