//! What a forge client or a target is doing, reported to whoever shows progress. The library
//! never prints: it reports [`Event`]s to a [`Progress`] the caller implements (progress bars,
//! log lines). Lives in `forge` because the HTTP client reports its waits here, and both
//! publishing and verify use that client.

use std::time::Duration;

/// Receives what a target is doing, for progress bars or log lines. Never sees a token.
pub(crate) trait Progress: Send + Sync {
    fn event(&self, event: &Event<'_>);
}

/// Ignores every event.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct NoProgress;

impl Progress for NoProgress {
    fn event(&self, _event: &Event<'_>) {}
}

/// Something a target is doing.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub(crate) enum Event<'a> {
    /// A step besides moving files ("create draft release `v1.2.3`").
    Step(&'a str),
    /// A file transfer starts.
    Started {
        name: &'a str,
        size: u64,
        transfer: Transfer,
    },
    /// A file transfer ended well.
    Finished {
        name: &'a str,
        size: u64,
        transfer: Transfer,
    },
    /// Waiting before a retry (rate limit, backoff).
    Waiting { reason: &'a str, delay: Duration },
}

/// The direction of a transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Transfer {
    /// Writing a file to the destination.
    Upload,
    /// Reading a file back from the destination to compare it.
    ReadBack,
}
