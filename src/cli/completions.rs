//! `capkg completions SHELL`: shell completion scripts, generated from the command definition.
//!
//! The files in the repository's `completions/` folder are this command's output; a test fails
//! when they are stale. `--format json` is refused (exit 2, with the JSON error object).

use std::io::Write;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Cli, CommandError, CommandResult, GlobalArgs, Status};
use crate::report::Format;

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The completion script for a shell.
pub(super) fn script(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "capkg", &mut out);
    out
}

pub(super) fn run(global: &GlobalArgs, args: CompletionsArgs) -> CommandResult {
    if global.format == Format::Json {
        // A completion script is for a shell, never for a program reading JSON.
        return Err(CommandError::fault(anyhow::anyhow!(
            "`capkg completions` prints a shell script; it has no JSON form"
        ))
        .with_hint("drop `--format json`"));
    }
    // capkg's own script, for a file: as it is.
    super::raw_stdout()
        .write_all(&script(args.shell))
        .map_err(CommandError::fault)?;
    Ok(Status::Success)
}
