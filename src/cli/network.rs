//! What every command that talks to a forge or registry shares: the async runtime, the forge
//! services with the HTTP bounds of its flags, and progress as plain lines on stderr.

use std::io::Write;
use std::sync::Arc;

use super::publish::{HttpLimitArgs, ReadLimitArgs};
use super::{CommandError, GlobalArgs};
use crate::escape;
use crate::forge::Services;
use crate::forge::progress::{Event, Progress};

/// The runtime network commands run on.
pub(super) fn runtime() -> Result<tokio::runtime::Runtime, CommandError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            CommandError::fault(anyhow::Error::new(e).context("cannot start the async runtime"))
        })
}

/// Default retries and clock, the HTTP bounds of the flags, with waits and steps reported on
/// stderr.
pub(super) fn services(
    global: &GlobalArgs,
    limits: &HttpLimitArgs,
    read_limits: &ReadLimitArgs,
) -> Services {
    let defaults = Services::default();
    Services {
        progress: Arc::new(LogProgress {
            quiet: global.quiet,
        }),
        policy: read_limits.apply(limits.apply(defaults.policy.clone())),
        ..defaults
    }
}

/// Progress as plain lines on stderr: steps, waits and finished transfers (no bars: these
/// commands run mostly in CI logs).
pub(super) struct LogProgress {
    pub quiet: bool,
}

impl Progress for LogProgress {
    fn event(&self, event: &Event<'_>) {
        if self.quiet {
            return;
        }
        let line = match *event {
            Event::Step(step) => step.to_string(),
            Event::Waiting { reason, delay } => {
                format!("waiting {}: {reason}", crate::units::format_duration(delay))
            }
            Event::Finished {
                name,
                transfer: crate::targets::Transfer::Upload,
                ..
            } => format!("uploaded {name}"),
            Event::Finished {
                name,
                transfer: crate::targets::Transfer::ReadBack,
                ..
            } => format!("read back {name}"),
            _ => return,
        };
        let line = crate::forge::secret::redact(&line);
        let _ = writeln!(super::stderr(), "{}", escape::text(&line));
    }
}
