//! `capkg render FILE`: what `clusterctl generate cluster` (a template) or `clusterctl generate
//! provider` (a components file) prints, from local files.

use std::path::PathBuf;

use clap::Args;

use super::{CommandResult, GlobalArgs, ProviderArgs, VariableArgs};

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// A cluster template, a components file, or a provider folder (with `--flavor`).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The cluster's name (`CLUSTER_NAME`); required for templates.
    #[arg(long, value_name = "NAME")]
    pub cluster_name: Option<String>,
    /// Pick `cluster-template-FLAVOR.yaml` from a provider folder.
    #[arg(long, value_name = "FLAVOR")]
    pub flavor: Option<String>,
    /// The namespace every object goes into (`NAMESPACE`).
    #[arg(long, short = 'n', value_name = "NS")]
    pub target_namespace: Option<String>,
    /// `KUBERNETES_VERSION`.
    #[arg(long, value_name = "VERSION")]
    pub kubernetes_version: Option<String>,
    /// `CONTROL_PLANE_MACHINE_COUNT` (default 1).
    #[arg(long, value_name = "N")]
    pub control_plane_machine_count: Option<i64>,
    /// `WORKER_MACHINE_COUNT` (default 0).
    #[arg(long, value_name = "N")]
    pub worker_machine_count: Option<i64>,
    /// Print the variables the template needs instead of rendering it.
    #[arg(long)]
    pub list_variables: bool,
    #[command(flatten)]
    pub variables: VariableArgs,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

pub fn run(_global: &GlobalArgs, _args: RenderArgs) -> CommandResult {
    super::not_yet("render")
}
