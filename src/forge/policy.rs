//! How hard capkg tries, and how long it waits: retries and backoff, the longest wait, and the
//! bounds on every request (timeout, minimum transfer rate, largest answer) and on what one
//! operation reads (layers, list pages, image lookups). The flags and variables that set them
//! are the CLI's; [`super::http`] and [`super::pages`] hold requests and lists to them.

use std::time::Duration;

/// How hard to try, and how long to wait.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Tries per call, the first included, for retryable failures (5xx, cut connections, rate
    /// limits).
    pub attempts: u32,
    /// The first backoff after a 5xx or a cut connection; it doubles on each further failure.
    pub first_backoff: Duration,
    /// The longest backoff.
    pub max_backoff: Duration,
    /// The longest single wait capkg accepts. A server that asks for more (an hour until the
    /// primary rate limit resets) makes the call fail at once, saying how long it asked for.
    pub max_wait: Duration,
    /// The wait after a rate limit that names no time (GitHub: "at least one minute").
    pub unsignalled_rate_limit_wait: Duration,
    /// How many reads (read-back downloads, existence checks) run at once.
    pub read_concurrency: usize,
    /// The longest one try of a request may take, from connecting to the last byte of the
    /// answer (`--http-timeout`).
    pub timeout: Duration,
    /// The slowest transfer accepted, in bytes per second, judged over every
    /// [`RetryPolicy::rate_window`] while a body is moving (`--min-transfer-rate`; 0: no check).
    pub min_rate: u64,
    /// The window the transfer rate is judged over.
    pub rate_window: Duration,
    /// The largest answer body capkg reads; a larger one is refused, unread when the server
    /// announces its length (`--max-download`). `verify oci://` holds an artifact's layers to
    /// it in all, not each.
    pub max_download: u64,
    /// The most layers `verify oci://` reads from one artifact (`--max-layers`).
    pub max_layers: usize,
    /// The most pages capkg reads of one list: releases, packages, tags (`--max-list-pages`;
    /// [`super::pages`] holds a list to `max_download` bytes in all too).
    pub max_list_pages: usize,
    /// The time every image lookup of one check shares (`--images-timeout`).
    pub images_deadline: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 5,
            first_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            max_wait: Duration::from_secs(600),
            unsignalled_rate_limit_wait: Duration::from_secs(60),
            read_concurrency: 8,
            timeout: DEFAULT_TIMEOUT,
            min_rate: DEFAULT_MIN_RATE,
            rate_window: Duration::from_secs(30),
            max_download: DEFAULT_MAX_DOWNLOAD,
            max_layers: DEFAULT_MAX_LAYERS,
            max_list_pages: DEFAULT_MAX_LIST_PAGES,
            images_deadline: DEFAULT_IMAGES_DEADLINE,
        }
    }
}

/// Ten minutes: a 100 MB upload needs 170 KB/s, far below what GitHub and GitLab runners get.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// 1 KiB/s, i.e. 30 KiB per 30 s window: only a stalled or trickling connection is this slow.
pub(crate) const DEFAULT_MIN_RATE: u64 = 1024;
/// 256 MiB: far above any release file clusterctl reads, far below a runner's memory.
pub(crate) const DEFAULT_MAX_DOWNLOAD: u64 = 256 * 1024 * 1024;
/// 64: capkg's artifacts have a few layers per provider plus the templates; the operator reads
/// every layer into memory.
pub(crate) const DEFAULT_MAX_LAYERS: usize = 64;
/// The most pages of one list capkg reads unless told otherwise: 100,000 GitHub releases or
/// GitLab packages at 100 a page, far past any provider's; a registry chooses its own page size.
pub(crate) const DEFAULT_MAX_LIST_PAGES: usize = 1000;
/// One minute for all of a release's image lookups: a healthy registry answers in well under a
/// second, and a stalled one must not hold a release for the connection timeouts.
pub(crate) const DEFAULT_IMAGES_DEADLINE: Duration = Duration::from_secs(60);

impl RetryPolicy {
    /// The backoff before try `attempt + 1` (`attempt` counts from 1).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.first_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
            .min(self.max_wait)
    }
}
