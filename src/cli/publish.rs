//! `capkg publish local|github|gitlab DIR`: publish an assembled release directory.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{CommandResult, GlobalArgs, ProviderArgs, parse_version};
use crate::version::Version;

#[derive(Debug, Args)]
pub struct PublishArgs {
    #[command(subcommand)]
    pub target: PublishTarget,
}

/// Flags every publish target takes.
#[derive(Debug, Args)]
pub struct CommonPublishArgs {
    /// The assembled release directory.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// The version being published (`v1.2.3`).
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Version,
    /// Print the plan and touch nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub provider: ProviderArgs,
}

#[derive(Debug, Subcommand)]
pub enum PublishTarget {
    /// A local repository clusterctl reads as `file://…/{provider-label}/{version}/{file}`.
    Local {
        #[command(flatten)]
        common: CommonPublishArgs,
        /// The repository's base folder.
        #[arg(long, value_name = "PATH")]
        repository: PathBuf,
        /// Replace an existing, different version folder.
        #[arg(long)]
        force: bool,
        /// Also print the overrides layout clusterctl reads from this folder.
        #[arg(long, value_name = "DIR")]
        overrides: Option<PathBuf>,
    },
    /// A GitHub release (token from GITHUB_TOKEN or GH_TOKEN).
    Github {
        #[command(flatten)]
        common: CommonPublishArgs,
        /// The repository, `OWNER/NAME`.
        #[arg(long, value_name = "OWNER/NAME")]
        repo: String,
        /// API base URL; default GITHUB_API_URL, else https://api.github.com.
        #[arg(long, value_name = "URL")]
        api_url: Option<String>,
        /// Replace assets whose content differs.
        #[arg(long)]
        clobber: bool,
        /// Leave the release as a draft.
        #[arg(long)]
        draft: bool,
        /// Mark the release as a pre-release (automatic for semver pre-releases).
        #[arg(long)]
        prerelease: bool,
    },
    /// A GitLab generic package (token from GITLAB_TOKEN or CI_JOB_TOKEN).
    Gitlab {
        #[command(flatten)]
        common: CommonPublishArgs,
        /// Project id or path; default CI_PROJECT_ID.
        #[arg(long, value_name = "ID_OR_PATH")]
        project: Option<String>,
        /// Package name (default: the provider label).
        #[arg(long, value_name = "NAME")]
        package: Option<String>,
        /// API base URL; default CI_API_V4_URL.
        #[arg(long, value_name = "URL")]
        api_url: Option<String>,
    },
}

pub fn run(_global: &GlobalArgs, _args: PublishArgs) -> CommandResult {
    super::not_yet("publish")
}
