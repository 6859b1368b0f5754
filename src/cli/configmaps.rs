//! `capkg configmaps DIR --version V`: the ConfigMaps cluster-api-operator reads the release's
//! providers from (`spec.fetchConfig.selector`, or found by its labels as `capioperator preload`
//! leaves them), printed as `preload` prints them.
//!
//! Named like `vars`, `rules` and `completions`, the commands that print something derived from
//! their input, rather than a verb: it writes nothing anywhere but stdout or `--output`.
//!
//! stdout gets the YAML (with `--format json`, `{"output": "<yaml>"}`); with `--output FILE` the
//! YAML goes to the file through a temporary file beside it, so a failed run leaves no partial
//! file, and stdout gets nothing (with `--format json`, `{"file", "config_maps"}`).

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status};
use crate::escape;
use crate::operator::configmap::{self, Components, DEFAULT_NAMESPACE, ProviderConfigMap};
use crate::report::{Format, json};

#[derive(Debug, Args)]
pub struct ConfigmapsArgs {
    /// The assembled release directory (as `capkg publish` reads it).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The release's version (`v1.2.3`): the operator's `spec.version` and the ConfigMap's
    /// version label.
    #[arg(long, value_name = "VERSION")]
    pub version: String,
    /// The namespace of the provider's custom resource, where the operator looks for its
    /// ConfigMaps (`capioperator preload`'s default); `""` writes none, so that
    /// `kubectl create -n NAMESPACE -f` chooses.
    #[arg(long, short = 'n', value_name = "NAMESPACE", default_value = DEFAULT_NAMESPACE)]
    pub namespace: String,
    /// Write the ConfigMaps to this file instead of stdout.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

#[derive(Serialize)]
struct JsonWritten<'a> {
    file: &'a std::path::Path,
    config_maps: Vec<JsonConfigMap<'a>>,
}

#[derive(Serialize)]
struct JsonConfigMap<'a> {
    name: &'a str,
    namespace: &'a str,
    compressed: bool,
}

pub(super) fn run(global: &GlobalArgs, args: ConfigmapsArgs) -> CommandResult {
    let config_maps = configmap::from_folder(
        &args.dir,
        &args.version,
        &args.namespace,
        args.provider.provider_type,
        args.provider.provider.as_deref(),
    )
    .map_err(CommandError::from_classified)?;
    let yaml = configmap::write_all(&config_maps).map_err(CommandError::from_classified)?;
    if global.verbose > 0 {
        for config_map in &config_maps {
            let _ = writeln!(super::stderr(), "{}", escape::text(&describe(config_map)));
        }
    }
    let Some(path) = &args.output else {
        super::write_output(global, yaml.as_bytes())?;
        return Ok(Status::Success);
    };
    crate::files::write_atomically(path, yaml.as_bytes()).map_err(|e| {
        CommandError::fault(
            anyhow::Error::new(e).context(format!("cannot write `{}`", path.display())),
        )
    })?;
    match global.format {
        Format::Json => {
            let document = JsonWritten {
                file: path,
                config_maps: config_maps
                    .iter()
                    .map(|c| JsonConfigMap {
                        name: &c.name,
                        namespace: &c.namespace,
                        compressed: matches!(c.components, Components::Gzip(_)),
                    })
                    .collect(),
            };
            json::write_value(&mut super::stdout(), &document).map_err(CommandError::fault)?;
        }
        Format::Human | Format::Github | Format::Markdown if !global.quiet => {
            let _ = writeln!(
                super::stderr(),
                "wrote {} ConfigMap{} to {}",
                config_maps.len(),
                if config_maps.len() == 1 { "" } else { "s" },
                path.display()
            );
        }
        _ => {}
    }
    Ok(Status::Success)
}

/// `infrastructure-aws-v1.2.3 in capi-operator-system (components gzipped)`.
fn describe(config_map: &ProviderConfigMap) -> String {
    let how = match &config_map.components {
        Components::Text(_) => "components as text",
        Components::Gzip(_) => "components gzipped: metadata and components exceed 1 MiB",
    };
    format!("{} in {} ({how})", config_map.name, config_map.namespace)
}
