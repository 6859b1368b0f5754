//! `capkg subst [FILE]`: clusterctl's variable substitution, to stdout.
//!
//! The output is bytes, not re-serialised YAML: exactly what clusterctl substitutes before it
//! parses anything. On a missing variable or a parse error nothing is written to stdout.
//! `--format json` prints `{"output": "<text>"}` instead (UTF-8 output only).

use std::io::Read;
use std::path::PathBuf;

use clap::Args;

use super::{CommandError, CommandResult, GlobalArgs, Status, VariableArgs};
use crate::subst::{self, Error};

#[derive(Debug, Args)]
pub struct SubstArgs {
    /// The file to substitute; standard input when absent or `-`.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub variables: VariableArgs,
    /// Exactly drone/envsubst's `Eval`: no `${ VAR }` pre-pass, no missing-variable check, names
    /// looked up as written in the environment and `--var`, unset variables empty.
    #[arg(long)]
    pub plain: bool,
}

/// Reads FILE, or standard input for `None` and `-`.
pub(super) fn read_input(file: Option<&PathBuf>) -> Result<(String, Vec<u8>), CommandError> {
    match file {
        Some(path) if path.as_os_str() != "-" => std::fs::read(path)
            .map(|bytes| (path.display().to_string(), bytes))
            .map_err(|e| {
                CommandError::fault(
                    anyhow::Error::new(e).context(format!("cannot read `{}`", path.display())),
                )
            }),
        _ => {
            let mut bytes = Vec::new();
            std::io::stdin().read_to_end(&mut bytes).map_err(|e| {
                CommandError::fault(anyhow::Error::new(e).context("cannot read standard input"))
            })?;
            Ok(("<stdin>".to_string(), bytes))
        }
    }
}

/// A substitution error as the input's fault (exit 1), located when it has an offset.
pub(super) fn input_error(name: &str, bytes: &[u8], error: Error) -> CommandError {
    let located = match error.offset() {
        Some(offset) => {
            let text = String::from_utf8_lossy(&bytes[..offset.min(bytes.len())]);
            let line = text.matches('\n').count() + 1;
            let column = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("{name}:{line}:{column}: {error}")
        }
        None => format!("{name}: {error}"),
    };
    let failure = CommandError::refusal(anyhow::anyhow!(located));
    match error {
        Error::MissingVariables { .. } => {
            failure.with_hint("set them with `--var NAME=VALUE`, in the environment, or in the clusterctl config file")
        }
        _ => failure,
    }
}

pub(super) fn run(global: &GlobalArgs, args: SubstArgs) -> CommandResult {
    let (name, bytes) = read_input(args.file.as_ref())?;
    let output = if args.plain {
        let mut env = subst::process_env();
        for (key, value) in &args.variables.vars {
            env.insert(key.clone(), value.clone().into_bytes());
        }
        subst::eval(&bytes, &env)
    } else {
        let values = super::variables::values(&args.variables)?;
        subst::process(&bytes, &values)
    }
    .map_err(|e| input_error(&name, &bytes, e))?;
    super::write_output(global, &output)?;
    Ok(Status::Success)
}
