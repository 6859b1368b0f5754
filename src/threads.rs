//! Two pieces of work at once, on the process's worker threads.
//!
//! capkg cuts its large steps in two (loading a components file, converting and writing its
//! objects, writing a release's layout, hashing beside linting) and runs the halves at once. The
//! workers are a rayon pool started on first use and kept: a thread spawned for every step paid
//! its start and a fresh allocator heap each time (benches/README.md, "Why a pool of worker
//! threads"). Steps nest (the file as written loads beside the substituted file, each in
//! two halves), so the pool has up to four workers.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

/// Texts shorter than this are handled on the caller's thread: a second thread costs more than
/// it saves.
pub(crate) const TWO_THREADS_FROM: usize = 256 * 1024;

/// Workers beyond this add nothing: every step is cut in two, and nesting goes two deep.
const MAX_WORKERS: usize = 4;

/// A worker's stack: the main thread's size on Linux, because the work of the main thread
/// (converting and writing trees up to the loader's 512 levels, recursively) runs on workers now.
const STACK_BYTES: usize = 8 << 20;

/// The pool, or `None` when its threads could not be started (the work then runs in turn).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        rayon::ThreadPoolBuilder::new()
            .num_threads(cores.clamp(1, MAX_WORKERS))
            .stack_size(STACK_BYTES)
            .thread_name(|i| format!("capkg-worker-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Starts the workers if they are not running yet and a text of `bytes` bytes is about to be
/// read that is long enough for them ([`TWO_THREADS_FROM`]), so that they start while it is read
/// rather than keep the first step on two threads waiting.
pub(crate) fn start_for(bytes: u64) {
    if bytes >= TWO_THREADS_FROM as u64 {
        let _ = pool();
    }
}

/// Runs `first` and `second` at once and returns both results. A panic in `first` is raised
/// again; one in `second` comes back as `Err`, for callers that can do its work another way.
pub(crate) fn both<A, B>(
    first: impl FnOnce() -> A + Send,
    second: impl FnOnce() -> B + Send,
) -> (A, std::thread::Result<B>)
where
    A: Send,
    B: Send,
{
    let second = || catch_unwind(AssertUnwindSafe(second));
    match pool() {
        Some(pool) => pool.install(|| rayon::join(first, second)),
        None => (first(), second()),
    }
}

/// Runs `work` on a worker without waiting for it (freeing a large tree the caller is done with).
pub(crate) fn in_background(work: impl FnOnce() + Send + 'static) {
    match pool() {
        Some(pool) => pool.spawn(work),
        None => work(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_run_and_a_panic_in_the_second_comes_back() {
        let (a, b) = both(|| 1 + 1, || "two");
        assert_eq!((a, b.ok()), (2, Some("two")));
        let (a, b) = both(|| "first", || -> u8 { panic!("second") });
        assert_eq!(a, "first");
        assert!(b.is_err());
    }

    #[test]
    fn work_nests() {
        let (a, b) = both(|| both(|| 1, || 2), || both(|| 3, || 4));
        let (a1, a2) = a;
        let (b1, b2) = b.unwrap();
        assert_eq!((a1, a2.unwrap(), b1, b2.unwrap()), (1, 2, 3, 4));
    }
}
