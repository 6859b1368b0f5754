//! `capkg promote`: the draft `capkg release --draft` left, checked and made public once its
//! images exist ([`crate::release::promote`]), reported as `release` reports: text or JSON on
//! stdout, the step summary and outputs in GitHub Actions, the error and its hint on stderr.

use clap::Args;

use super::network::{runtime, services};
use super::release::{ReleaseSelection, write};
use super::{CommandError, CommandResult, GlobalArgs, Status};
use crate::ci::CiContext;
use crate::release::plan::Mode;
use crate::release::{self, Outcome, promote};
use crate::settings::{self, Need};
use crate::targets::Reach;

#[derive(Debug, Args)]
pub struct PromoteArgs {
    #[command(flatten)]
    pub selection: ReleaseSelection,
}

pub(super) fn run(global: &GlobalArgs, args: PromoteArgs) -> CommandResult {
    let env = |name: &str| std::env::var(name).ok();
    let ci = CiContext::detect(&env);
    let services = services(global, &args.selection.limits, &args.selection.read_limits);
    let wait_for_images = args
        .selection
        .wait_for_images
        .map(crate::verify::images_exist::Wait::up_to);
    let line = args.selection.command_line(None);
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
        let run = release::Run {
            reach: Reach::Remote,
            env: &env,
            services: services.clone(),
            checked: &|_| {},
            wait_for_images,
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
