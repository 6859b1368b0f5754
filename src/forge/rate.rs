//! The transfer-rate meter: what a request body and an answer moved, and the watchdog that ends
//! a try when a body moves slower than the policy's minimum rate over a whole window.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;

/// Bytes moved by one try, and whether a body is moving now. `phase` counts starts and stops
/// (odd: moving), so the watchdog judges only windows in which one body moved throughout:
/// waiting for the server to answer after an upload is not a stall.
#[derive(Default)]
pub(super) struct Meter {
    moved: AtomicU64,
    phase: AtomicU64,
}

impl Meter {
    pub(super) fn add(&self, bytes: usize) {
        self.moved.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    pub(super) fn start(&self) {
        self.phase.fetch_add(1, Ordering::AcqRel);
    }

    pub(super) fn stop(&self) {
        self.phase.fetch_add(1, Ordering::AcqRel);
    }

    fn read(&self) -> (u64, u64) {
        (
            self.phase.load(Ordering::Acquire),
            self.moved.load(Ordering::Relaxed),
        )
    }
}

/// Resolves with (bytes moved, window) when a body moved slower than `min_rate` over a whole
/// window; never resolves when `min_rate` is 0.
pub(super) async fn watch_rate(meter: &Meter, window: Duration, min_rate: u64) -> (u64, Duration) {
    if min_rate == 0 || window.is_zero() {
        return std::future::pending().await;
    }
    let needed = (min_rate as f64 * window.as_secs_f64()) as u64;
    let (mut phase, mut moved) = meter.read();
    loop {
        tokio::time::sleep(window).await;
        let (now_phase, now_moved) = meter.read();
        let delta = now_moved.saturating_sub(moved);
        if now_phase == phase && phase % 2 == 1 && delta < needed {
            return (delta, window);
        }
        (phase, moved) = (now_phase, now_moved);
    }
}

/// A request body as a stream of chunks that counts what the connection takes.
pub(super) fn metered(
    body: Bytes,
    meter: Arc<Meter>,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    const CHUNK: usize = 64 * 1024;
    futures_util::stream::unfold(
        (body, meter, false),
        |(mut rest, meter, started)| async move {
            if !started {
                meter.start();
            }
            if rest.is_empty() {
                meter.stop();
                return None;
            }
            let chunk = rest.split_to(rest.len().min(CHUNK));
            meter.add(chunk.len());
            Some((Ok(chunk), (rest, meter, true)))
        },
    )
}
