//! `capkg promote`: the draft `capkg release --draft` left, checked and made public once its
//! images exist ([`crate::release::promote`]), reported as `release` reports: text or JSON on
//! stdout, the step summary and outputs in GitHub Actions, the error and its hint on stderr.

use clap::Args;

use super::network::{runtime, services};
use super::release::{TargetKind, write};
use super::{CommandError, CommandResult, GlobalArgs, ProviderArgs, Status, parse_version};
use crate::ci::CiContext;
use crate::release::plan::Mode;
use crate::release::{self, Outcome, promote};
use crate::settings::{self, CommandLine, Need};
use crate::targets::Reach;
use crate::version::Version;

#[derive(Debug, Args)]
pub struct PromoteArgs {
    /// capkg's configuration file; default: `capkg.yaml` at the repository root.
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,
    /// The version to promote; default: the CI tag (`GITHUB_REF_NAME` on a tag push,
    /// `CI_COMMIT_TAG`), else `version:` in capkg.yaml, as `release` finds it.
    #[arg(long, value_name = "VERSION", value_parser = parse_version)]
    pub version: Option<Version>,
    /// Promote only at these targets of the configuration (repeatable).
    #[arg(long, value_enum, value_name = "TARGET")]
    pub target: Vec<TargetKind>,
    #[command(flatten)]
    pub provider: ProviderArgs,
    #[command(flatten)]
    pub limits: super::publish::HttpLimitArgs,
    #[command(flatten)]
    pub read_limits: super::publish::ReadLimitArgs,
}

pub(super) fn run(global: &GlobalArgs, args: PromoteArgs) -> CommandResult {
    let env = |name: &str| std::env::var(name).ok();
    let ci = CiContext::detect(&env);
    let line = CommandLine {
        config: args.config,
        provider_type: args.provider.provider_type,
        provider_name: args.provider.provider,
        version: args.version,
        targets: args.target.into_iter().map(Into::into).collect(),
        ..CommandLine::default()
    };
    let services = services(global, &args.limits, &args.read_limits);
    let runtime = runtime()?;
    let outcome = runtime.block_on(async {
        let settings = match settings::resolve(&line, Need::Release, &ci, &env) {
            Ok(settings) => settings,
            Err(err) => return failed(&release::Error::from(err)),
        };
        let drafted = match promote::read_draft(&settings, &env, &services).await {
            Ok(files) => files,
            Err(err) => return failed(&err),
        };
        let plan = match promote::promotion_plan(&settings, drafted) {
            Ok(plan) => plan,
            Err(err) => return failed(&err),
        };
        // A hook for waiting on images (`--wait-for-images`) belongs here, before the loop
        // looks them up.
        let run = release::Run {
            reach: Reach::Remote,
            env: &env,
            services: services.clone(),
            checked: &|_| {},
        };
        release::execute(&plan, run).await
    });
    write(global, &ci, &outcome, false)?;
    match &outcome.error {
        None => Ok(Status::Success),
        Some(error) => Err(CommandError::from_classified(error.clone())),
    }
}

/// The record of a promotion that stopped before its plan.
fn failed(error: &release::Error) -> Outcome {
    Outcome {
        mode: Mode::Promote,
        ..Outcome::failed(error, None)
    }
}
