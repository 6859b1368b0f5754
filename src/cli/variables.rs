//! Variable values for commands that substitute: `--var`, the environment, and the clusterctl
//! config file (`--clusterctl-config`, else clusterctl's own when it exists), in clusterctl's
//! order of precedence.

use super::{CommandError, VariableArgs};
use crate::subst::{Values, config_file};

/// The values clusterctl would see, with `--var` playing the part of clusterctl's own overrides.
pub(super) fn values(args: &VariableArgs) -> Result<Values, CommandError> {
    let config_path = match &args.clusterctl_config {
        Some(path) => Some(path.clone()),
        None => config_file::default_path(),
    };
    let config = match &config_path {
        Some(path) => config_file::read(path).map_err(|e| {
            let explicit = args.clusterctl_config.is_some();
            let failure = CommandError::fault(e);
            if explicit {
                failure
            } else {
                failure.with_hint("pass `--clusterctl-config` to use another file")
            }
        })?,
        None => Default::default(),
    };
    let mut values = Values::new().with_process_env().with_config(config);
    for (name, value) in &args.vars {
        values.set(name, value.as_bytes());
    }
    Ok(values)
}
