//! Work shared out on the process's worker threads: two pieces at once ([`both`]), or a list of
//! items taken heaviest first, each thread taking the next when it is done ([`in_turn`]).
//!
//! capkg cuts its large steps in two (loading a components file, converting and writing its
//! objects, writing a release's layout, hashing beside linting) and runs the halves at once. The
//! workers are a rayon pool started on first use and kept: a thread spawned for every step paid
//! its start and a fresh allocator heap each time (benches/README.md, "Why a pool of worker
//! threads"). Steps nest (the file as written loads beside the substituted file, each in
//! two halves), so the pool has up to four workers.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Mutex, OnceLock};

/// Texts shorter than this are handled on the caller's thread: a second thread costs more than
/// it saves.
pub(crate) const TWO_THREADS_FROM: usize = 256 * 1024;

/// Workers beyond this add nothing: every step is cut in two, and nesting goes two deep; a lint
/// of a release folder loads a handful of files.
const MAX_WORKERS: usize = 4;

/// How many threads work at once: the cores, at most [`MAX_WORKERS`]. The one worker count every
/// parallel step uses.
pub(crate) fn workers() -> usize {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, MAX_WORKERS)
}

/// A worker's stack: the main thread's size on Linux, because the work of the main thread
/// (converting and writing trees up to the loader's 512 levels, recursively) runs on workers now.
const STACK_BYTES: usize = 8 << 20;

/// The pool, or `None` when its threads could not be started (the work then runs in turn).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(workers())
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

/// The indices of `weights`, heaviest first; equal weights keep their order.
pub(crate) fn heaviest_first<W: Ord + Copy>(weights: &[W]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(weights[i]));
    order
}

/// `run` on every item, taken in `order` (indices into `items`, usually [`heaviest_first`]) by
/// up to `threads` threads at once (at most [`workers`]), each taking the next item when it is
/// done: the longest-processing-time rule. The first item is taken on the calling thread, which
/// goes on taking items with the others rather than only waiting. Each thread makes its own
/// `state` (a loader's table of texts, say) and keeps it across its items. The results come back
/// in the items' order, `None` where `run` gave none or `order` did not name the item. A panic on
/// any thread is raised again here once the others are done.
pub(crate) fn in_turn<T, R, S>(
    items: Vec<T>,
    order: &[usize],
    threads: usize,
    state: impl Fn() -> S + Sync,
    run: impl Fn(&mut S, usize, T) -> Option<R> + Sync,
) -> Vec<Option<R>>
where
    T: Send,
    R: Send,
{
    let count = items.len();
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    let queue: Vec<(usize, T)> = order
        .iter()
        .filter_map(|&i| Some((i, slots.get_mut(i)?.take()?)))
        .collect();
    let threads = threads.clamp(1, workers()).min(queue.len().max(1));
    let queue = Mutex::new(queue.into_iter());
    let done: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::with_capacity(count));
    let work = || {
        let mut own = state();
        let mut results = Vec::new();
        loop {
            // A poisoned lock means another thread panicked; its panic is raised at the end.
            let next = match queue.lock() {
                Ok(mut queue) => queue.next(),
                Err(_) => None,
            };
            let Some((i, item)) = next else { break };
            if let Some(result) = run(&mut own, i, item) {
                results.push((i, result));
            }
        }
        done.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend(results);
    };
    match pool() {
        Some(pool) if threads > 1 => pool.in_place_scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|_| work());
            }
            work();
        }),
        _ => work(),
    }
    let mut results: Vec<Option<R>> = (0..count).map(|_| None).collect();
    for (i, result) in done
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
    {
        if let Some(slot) = results.get_mut(i) {
            *slot = Some(result);
        }
    }
    results
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_turn_takes_the_heaviest_first_and_gives_results_in_order() {
        let weights = [3u64, 9, 1, 9, 5];
        assert_eq!(heaviest_first(&weights), vec![1, 3, 4, 0, 2]);
        let taken = Mutex::new(Vec::new());
        let results = in_turn(
            weights.to_vec(),
            &heaviest_first(&weights),
            1,
            || (),
            |(), i, weight| {
                taken.lock().unwrap().push(i);
                (weight != 5).then_some(weight * 10)
            },
        );
        // One thread: exactly the order given.
        assert_eq!(taken.into_inner().unwrap(), vec![1, 3, 4, 0, 2]);
        assert_eq!(results, vec![Some(30), Some(90), Some(10), Some(90), None]);
    }

    #[test]
    fn in_turn_shares_items_between_threads_each_with_its_own_state() {
        let items: Vec<u32> = (0..200).collect();
        let order: Vec<usize> = (0..items.len()).collect();
        let threads_seen = Mutex::new(std::collections::HashSet::new());
        let results = in_turn(
            items,
            &order,
            2,
            || 0usize,
            |taken_here, _, item| {
                *taken_here += 1;
                threads_seen
                    .lock()
                    .unwrap()
                    .insert(std::thread::current().id());
                // Slow enough that the other thread takes some.
                std::thread::sleep(std::time::Duration::from_micros(200));
                Some((item, *taken_here))
            },
        );
        assert!(
            results
                .iter()
                .enumerate()
                .all(|(i, r)| r.unwrap().0 == i as u32)
        );
        if workers() > 1 {
            assert_eq!(threads_seen.into_inner().unwrap().len(), 2);
            // Each thread counted only its own items.
            assert!(results.iter().all(|r| r.unwrap().1 < 200));
        }
    }

    #[test]
    fn a_panic_in_turn_is_raised_on_the_calling_thread() {
        let caught = catch_unwind(|| {
            in_turn(
                vec![1, 2, 3, 4],
                &[0, 1, 2, 3],
                2,
                || (),
                |(), _, item| {
                    assert!(item != 3, "item 3");
                    Some(item)
                },
            )
        });
        assert!(caught.is_err());
    }

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
