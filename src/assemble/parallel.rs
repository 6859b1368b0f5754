//! Large components files on both cores: parsing and writing in two parts.
//!
//! Parsing shares documents (and halves of large ones) between the threads
//! ([`yaml::parse_str_on_two_threads`]). Writing is per object, so two halves of the objects
//! written apart and joined with `---` are the same bytes, and their read-backs shifted by the
//! first half's length are the read-back of the whole. Below [`PARALLEL_FROM`] bytes a second
//! thread costs more than it saves and everything runs on the caller's thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::yaml::{self, Document, Limits, Node, Source, YamlFile, write_layout};

/// Texts shorter than this are handled on one thread.
pub(super) const PARALLEL_FROM: usize = crate::threads::TWO_THREADS_FROM;

/// Objects whose source text is this long or longer are written on one thread. The second
/// thread writes its half into a text of its own, joined to the first half's when both are
/// done: on a components file of tens of megabytes that is half the file held twice at the
/// peak, for a step that takes a small part of `capkg assemble` (benches/README.md, "Why a pool
/// of worker threads"). The same size as [`LOAD_ON_TWO_THREADS_UNTIL`]: large input, from which
/// the process trades speed for memory.
pub(super) const WRITE_ON_TWO_THREADS_UNTIL: usize = LOAD_ON_TWO_THREADS_UNTIL;

/// Texts this long or longer are loaded on one thread, as lint loads every file. Each loading
/// thread keeps its own table of the long texts it made (a CustomResourceDefinition cut in two
/// has its descriptions made once per half) and its own partly filled pages, and the pieces are
/// listed twice while they are joined (benches/README.md, "Why a pool of worker threads"). From
/// this size the process trades speed for memory anyway (`files::LARGE_INPUT`).
pub(super) const LOAD_ON_TWO_THREADS_UNTIL: usize = crate::files::LARGE_INPUT as usize;

/// Whether [`parse`] loads a text of `len` bytes on two threads.
fn loads_on_two_threads(len: usize) -> bool {
    (PARALLEL_FROM..LOAD_ON_TWO_THREADS_UNTIL).contains(&len)
}

/// [`yaml::parse_str`], on two threads for texts from [`PARALLEL_FROM`] to
/// [`LOAD_ON_TWO_THREADS_UNTIL`]; the result is the same.
pub(super) fn parse(source: Arc<Source>) -> YamlFile {
    if !loads_on_two_threads(source.text().len()) {
        return yaml::parse_str(source, Limits::default());
    }
    yaml::parse_str_on_two_threads(source, Limits::default())
}

/// `f` over `items`, on two threads when `large`; the results in the items' order, so what a
/// caller makes of them never depends on scheduling. `weights` estimate the items' work, in
/// their order (a missing one counts as nothing): the threads take the heaviest items first,
/// each the next one when it is done ([`crate::threads::in_turn`]), because a components file's
/// work is mostly in a few large CustomResourceDefinitions.
pub(super) fn map_in_order<T: Sync, R: Send>(
    items: &[T],
    large: bool,
    weights: &[usize],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    if !large || items.len() < 2 {
        return items.iter().map(&f).collect();
    }
    let order = heaviest_first(weights, items.len());
    let items: Vec<&T> = items.iter().collect();
    crate::threads::in_turn(items, &order, 2, || (), |(), _, item| Some(f(item)))
        .into_iter()
        .flatten()
        .collect()
}

/// [`map_in_order`] of owned items, each moved into `f`.
pub(super) fn map_owned_in_order<T: Send, R: Send>(
    items: Vec<T>,
    large: bool,
    weights: &[usize],
    f: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    if !large || items.len() < 2 {
        return items.into_iter().map(&f).collect();
    }
    let order = heaviest_first(weights, items.len());
    crate::threads::in_turn(items, &order, 2, || (), |(), _, item| Some(f(item)))
        .into_iter()
        .flatten()
        .collect()
}

/// `f` on every item, on two threads when `large` (as [`map_in_order`] shares them); the error
/// returned is the first in the items' order, the one a loop returns. Once an item fails, the
/// items after it are skipped (they are of no further use), the ones before it still run.
pub(super) fn try_for_each_in_order<T: Send, E: Send>(
    items: &mut [T],
    large: bool,
    weights: &[usize],
    f: impl Fn(&mut T) -> Result<(), E> + Sync,
) -> Result<(), E> {
    if !large || items.len() < 2 {
        return items.iter_mut().try_for_each(&f);
    }
    let order = heaviest_first(weights, items.len());
    let first_failed = AtomicUsize::new(usize::MAX);
    let items: Vec<&mut T> = items.iter_mut().collect();
    let failures = crate::threads::in_turn(
        items,
        &order,
        2,
        || (),
        |(), i, item| {
            if i > first_failed.load(Ordering::Relaxed) {
                return None;
            }
            let error = f(item).err()?;
            first_failed.fetch_min(i, Ordering::Relaxed);
            Some(error)
        },
    );
    match failures.into_iter().flatten().next() {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// The order to take `count` items in: heaviest first by `weights` (in the items' order; a
/// missing weight counts as nothing), equal weights in the items' order.
fn heaviest_first(weights: &[usize], count: usize) -> Vec<usize> {
    let padded: Vec<usize> = (0..count)
        .map(|i| weights.get(i).copied().unwrap_or(0))
        .collect();
    crate::threads::heaviest_first(&padded)
}

/// What [`write_layout_read_back`] wrote.
pub(super) struct Written {
    pub text: String,
    /// The documents a reader loads from the text, or `None` when the caller must parse it.
    pub documents: Option<Vec<Document>>,
}

/// [`write_layout::write_documents_read_back`], on two threads for many objects: the same text,
/// and the same documents (a reader's view of the text, built from the objects themselves). The
/// text is written into `buffer` (memory the caller is done with, such as the source text the
/// objects were loaded from).
pub(super) fn write_layout_read_back(
    mut objects: Vec<Node>,
    input_size: usize,
    buffer: String,
) -> Written {
    if !(PARALLEL_FROM..WRITE_ON_TWO_THREADS_UNTIL).contains(&input_size) || objects.len() < 2 {
        // The text written is about as long as the source, sometimes a little longer (the
        // indentation a source may leave out); one byte past the buffer would double it, the
        // file held twice. Room for a quarter more costs nothing until it is written.
        let room = input_size + input_size / 4;
        let buffer = if buffer.capacity() >= room {
            buffer
        } else {
            drop(buffer);
            String::with_capacity(room)
        };
        let (text, spans) = write_layout::write_documents_as_read(&mut objects, buffer);
        let documents =
            spans.and_then(|spans| write_layout::read_back_documents(objects, spans, 0, 0));
        return Written { text, documents };
    }
    let mut second = objects.split_off(balanced_split(&objects));
    let (first_written, second_written) = crate::threads::both(
        || write_layout::write_documents_as_read(&mut objects, buffer),
        || {
            // About the size of its objects' source text: grown by doubling from nothing, the
            // half's text held up to twice its size at the peak.
            let size: usize = second.iter().map(|o| o.span().len()).sum();
            write_layout::write_documents_as_read(
                &mut second,
                String::with_capacity(size + size / 8),
            )
        },
    );
    let Ok((second_text, second_spans)) = second_written else {
        // A panic in the writer would be a bug. The text is written again from all objects, the
        // second half's documents that were done already read back: the writer's text is a
        // fixed point (its reading writes it again byte for byte, `write_tests`), so they
        // write as they were written.
        objects.extend(second);
        let (text, documents) = write_layout::write_documents_read_back(objects);
        return Written { text, documents };
    };
    let (mut text, first_spans) = first_written;
    // The halves are joined with a separator line, as one writer joins documents.
    let offset = text.len() + 4;
    // Exactly: `text` is the source's buffer, and doubling it would hold twice the file.
    text.reserve_exact(second_text.len() + 4);
    text.push_str("---\n");
    text.push_str(&second_text);
    let (Some(first_spans), Some(second_spans)) = (first_spans, second_spans) else {
        return Written {
            text,
            documents: None,
        };
    };
    let first_count = objects.len();
    let (first, second) = crate::threads::both(
        || write_layout::read_back_documents(objects, first_spans, 0, 0),
        move || write_layout::read_back_documents(second, second_spans, offset, first_count),
    );
    let documents = match (first, second) {
        (Some(mut documents), Ok(Some(second))) => {
            documents.extend(second);
            Some(documents)
        }
        _ => None,
    };
    Written { text, documents }
}

/// Where to cut `objects` so that both halves hold about as much text (a components file's size
/// is mostly in a few large CustomResourceDefinitions): the first index at which the objects
/// before it span half of their source text or more, and never 0 or the end.
fn balanced_split(objects: &[Node]) -> usize {
    let total: usize = objects.iter().map(|o| o.span().len()).sum();
    let mut before = 0;
    let mut cut = objects.len() / 2;
    for (index, object) in objects.iter().enumerate() {
        let after = before + object.span().len();
        if after * 2 >= total {
            // The object that crosses the middle goes to the side it is mostly on.
            cut = if total - before * 2 < after * 2 - total {
                index
            } else {
                index + 1
            };
            break;
        }
        before = after;
    }
    cut.clamp(1, objects.len().saturating_sub(1).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_middle_sized_texts_load_on_two_threads() {
        assert!(!loads_on_two_threads(PARALLEL_FROM - 1));
        assert!(loads_on_two_threads(PARALLEL_FROM));
        assert!(loads_on_two_threads(LOAD_ON_TWO_THREADS_UNTIL - 1));
        // Large input loads as lint loads it (and as the large-input hook has started trading
        // speed for memory).
        assert!(!loads_on_two_threads(LOAD_ON_TWO_THREADS_UNTIL));
        assert_eq!(LOAD_ON_TWO_THREADS_UNTIL as u64, crate::files::LARGE_INPUT);
    }

    #[test]
    fn halves_parse_and_write_like_the_whole() {
        let mut text = String::new();
        for i in 0..6000 {
            text.push_str(&format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  on: 'on'\n  script: |\n    echo {i}\n    --- not a separator\n---\n"
            ));
        }
        text.push_str("---x\n");
        assert!(text.len() > PARALLEL_FROM);
        let source = Arc::new(Source::new("t", text.clone()));
        let whole = yaml::parse_str(source.clone(), Limits::default());
        let halves = parse(source);
        assert_eq!(whole.documents.len(), halves.documents.len());
        for (a, b) in whole.documents.iter().zip(&halves.documents) {
            assert_eq!(a.index, b.index);
            assert_eq!(a.root, b.root);
        }
        assert_eq!(whole.errors, halves.errors);
        let roots: Vec<Node> = whole.roots().cloned().collect();
        let Written {
            text: written,
            documents,
        } = write_layout_read_back(roots.clone(), text.len(), text.clone());
        assert_eq!(written, write_layout::write_documents(&roots));
        // The read-back of the halves is a parse of the whole text written.
        let documents = documents.expect("a read-back");
        let reread = yaml::parse_str(Arc::new(Source::new("t", written)), Limits::default());
        assert!(reread.errors.is_empty());
        assert_eq!(documents.len(), reread.documents.len());
        for (a, b) in documents.iter().zip(&reread.documents) {
            assert_eq!((a.index, a.span), (b.index, b.span));
            assert_eq!(a.root, b.root);
        }
    }

    #[test]
    fn objects_are_split_where_the_text_is_halved() {
        let sized = |sizes: &[usize]| -> Vec<Node> {
            sizes
                .iter()
                .map(|&len| Node::mapping(Vec::new(), crate::yaml::Span::new(0, len)))
                .collect()
        };
        assert_eq!(
            balanced_split(&sized(&[1, 600, 10, 50, 40, 640, 700, 1, 1])),
            6
        );
        assert_eq!(balanced_split(&sized(&[100, 100, 100, 100])), 2);
        assert_eq!(balanced_split(&sized(&[1000, 1, 1])), 1);
        assert_eq!(balanced_split(&sized(&[1, 1, 1000])), 2);
        assert_eq!(balanced_split(&sized(&[0, 0])), 1);
    }

    #[test]
    fn mapping_on_two_threads_keeps_the_items_order() {
        let items: Vec<u32> = (0..101).collect();
        let weights: Vec<usize> = (0..101).map(|n| (n * 7919) % 101).collect();
        let weight = &weights;
        let one = map_in_order(&items, false, weight, |n| n * 3);
        let two = map_in_order(&items, true, weight, |n| n * 3);
        assert_eq!(one, two);
        assert_eq!(two.first(), Some(&0));
        assert_eq!(two.last(), Some(&300));
        assert!(map_in_order(&[] as &[u32], true, weight, |n| *n).is_empty());
        let owned = map_owned_in_order(items.clone(), true, weight, |n| n * 3);
        assert_eq!(owned, one);
    }

    #[test]
    fn the_heaviest_items_are_taken_first() {
        assert_eq!(
            heaviest_first(&[1, 1, 1, 1000, 1, 50], 6),
            vec![3, 5, 0, 1, 2, 4]
        );
        // Missing weights count as nothing; equal weights keep the items' order.
        assert_eq!(heaviest_first(&[7], 3), vec![0, 1, 2]);
    }

    #[test]
    fn the_first_error_in_order_wins_whichever_thread_finds_it_first() {
        // The weights put 7 and 30 on different threads, 30 ahead of its share.
        let weights: Vec<usize> = (0..40).map(|n| if n == 30 { 1000 } else { 1 }).collect();
        let weight = &weights;
        let mut items: Vec<u32> = (0..40).collect();
        let fail_at = |n: &mut u32| if *n == 7 || *n == 30 { Err(*n) } else { Ok(()) };
        assert_eq!(
            try_for_each_in_order(&mut items, true, weight, fail_at),
            Err(7)
        );
        // Only on one thread: that one.
        let fail_late = |n: &mut u32| if *n == 30 { Err(*n) } else { Ok(()) };
        assert_eq!(
            try_for_each_in_order(&mut items, true, weight, fail_late),
            Err(30)
        );
        // No error: every item changed, on either thread.
        let double = |n: &mut u32| {
            *n *= 2;
            Ok::<(), u32>(())
        };
        assert_eq!(
            try_for_each_in_order(&mut items, true, weight, double),
            Ok(())
        );
        assert_eq!(items, (0..40).map(|n| n * 2).collect::<Vec<u32>>());
    }
}
