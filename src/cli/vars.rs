//! `capkg vars FILE...`: the variables files need, as `clusterctl generate cluster
//! --list-variables` shows them.
//!
//! Human output is clusterctl's own listing (Required / Optional with defaults); `--format json`
//! gives `{"variables":[{"name","required","default"}]}`, sorted by name as clusterctl sorts
//! (bytewise). Over several files a variable is required when any file requires it; its default
//! is the first one found.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{CommandError, CommandResult, GlobalArgs, Status};
use crate::report::{Format, json};
use crate::subst::{self, ClusterVariablesOptions};

#[derive(Debug, Args)]
pub struct VarsArgs {
    /// Templates or components files (`-` for standard input).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
}

#[derive(Serialize)]
struct JsonVariables {
    variables: Vec<JsonVariable>,
}

#[derive(Serialize)]
struct JsonVariable {
    name: String,
    required: bool,
    default: Option<String>,
}

/// Name -> default (None: required), merged over files.
pub(super) fn collect(
    files: &[PathBuf],
) -> Result<BTreeMap<String, Option<Vec<u8>>>, CommandError> {
    let mut merged: BTreeMap<String, Option<Vec<u8>>> = BTreeMap::new();
    for file in files {
        let (name, bytes) = super::subst::read_input(Some(file))?;
        let inventory =
            subst::inventory(&bytes).map_err(|e| super::subst::input_error(&name, &bytes, e))?;
        for (variable, default) in inventory.variable_map() {
            match merged.get_mut(&variable) {
                None => {
                    merged.insert(variable, default);
                }
                // Required anywhere means required.
                Some(existing) if default.is_none() => *existing = None,
                Some(_) => {}
            }
        }
    }
    Ok(merged)
}

pub(super) fn run(global: &GlobalArgs, args: VarsArgs) -> CommandResult {
    let variables = collect(&args.files)?;
    let mut out = super::stdout();
    match global.format {
        Format::Json => {
            let list: Vec<JsonVariable> = variables
                .iter()
                .map(|(name, default)| JsonVariable {
                    name: name.clone(),
                    required: default.is_none(),
                    default: default
                        .as_ref()
                        .map(|d| String::from_utf8_lossy(d).into_owned()),
                })
                .collect();
            json::write_value(&mut out, &JsonVariables { variables: list })
                .map_err(CommandError::fault)?;
        }
        Format::Human | Format::Github | Format::Markdown => {
            use std::io::Write;
            // Plain listing, without generate cluster's special cases for its own flags.
            let text =
                subst::render_cluster_variables(&variables, &ClusterVariablesOptions::plain());
            out.write_all(&text).map_err(CommandError::fault)?;
        }
    }
    Ok(Status::Success)
}
