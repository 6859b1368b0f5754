//! Loading a large text on two threads, with the result [`super::parse_str`] gives.
//!
//! Documents are loaded one by one anyway, so they are shared out between the threads, largest
//! first. A components file's size is mostly in a few CustomResourceDefinitions, so a large
//! document is also cut in two at an item of a shallow block sequence (`  - name: v1beta2` under
//! `versions:`): the first part is loaded as it is, the second behind a copy of the key lines that
//! lead to the sequence (`spec:`, `  versions:`), so that the reader is in the same place there as
//! in the whole document, and the two trees are joined. A cut is kept only when both trees confirm
//! it (the first part ends inside that very sequence under those very keys, the second starts with
//! them), neither part has a problem, and no key is repeated across the cut; otherwise the
//! document is loaded whole. A file with an alias goes to the one-thread loader, whose alias
//! budget counts across documents.

use std::sync::Arc;

use super::{Document, Error, Limits, Loader, YamlFile, is_blank, parse_str, split_documents};
use crate::yaml::compact::SharedTexts;
use crate::yaml::node::{MAX_OFFSET, Node, ScalarStyle, Value};
use crate::yaml::source::{OffsetMap, Source, Span};

/// Documents at least this large are cut in two when they can be.
const CUT_FROM: usize = 64 * 1024;

/// Deepest indentation of a sequence item a document is cut at.
const MAX_CUT_INDENT: usize = 4;

/// Cut points tried per document before it is loaded whole.
const MAX_CUT_TRIES: usize = 4;

/// [`parse_str`] on the calling thread and one more; the same file.
pub fn parse_str_on_two_threads(source: Arc<Source>, limits: Limits) -> YamlFile {
    load(source, limits, CUT_FROM)
}

/// Documents of `cut_from` bytes or more are cut when they can be.
fn load(source: Arc<Source>, limits: Limits, cut_from: usize) -> YamlFile {
    load_routed(source, limits, cut_from).0
}

/// Which way [`load_routed`] loaded a file. Both ways give the same file, so only this tells a
/// test that the two-thread path still runs rather than always falling back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// On two threads, with this many documents loaded in two parts and joined.
    TwoThreads { joined: usize },
    /// By the one-thread loader, for this reason.
    OneThread(Fallback),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fallback {
    /// NUL bytes, lone CRs, or a text too large to load.
    HostileBytes,
    /// The second thread panicked.
    Panicked,
    /// A piece expanded an alias: the alias budget counts across documents.
    Alias,
    /// The pieces did not come back as they were given out (a bug).
    Mismatch,
}

fn load_routed(source: Arc<Source>, limits: Limits, cut_from: usize) -> (YamlFile, Route) {
    let one_thread = |source, why| (parse_str(source, limits), Route::OneThread(why));
    let text = source.text();
    // NUL bytes and lone CRs are reported, and loaded around, by the one-thread loader; a text
    // too large to load is refused there.
    if has_hostile_bytes(text) || text.len() > MAX_OFFSET {
        return one_thread(source, Fallback::HostileBytes);
    }
    let identity = OffsetMap::identity();
    let mut loader = Loader::new(limits, &identity);
    let chunks: Vec<Span> = split_documents(text, &mut loader)
        .into_iter()
        .filter(|chunk| !is_blank(&text[chunk.start..chunk.end]))
        .collect();
    let separator_errors = loader.errors;

    let mut pieces = Vec::new();
    for (document, &chunk) in chunks.iter().enumerate() {
        match find_cut(text, chunk, cut_from) {
            Some(cut) => {
                pieces.push(Piece::First {
                    document,
                    span: Span::new(chunk.start, cut.at),
                });
                pieces.push(Piece::Second { document, cut });
            }
            None => pieces.push(Piece::Whole {
                document,
                span: chunk,
            }),
        }
    }
    // Largest first, each thread taking the next piece when it is done: bytes are only an
    // estimate of a piece's work, and a static split by bytes left one thread idle.
    let sizes: Vec<usize> = pieces.iter().map(Piece::len).collect();
    let order = crate::threads::heaviest_first(&sizes);
    let shared: Vec<&Piece> = pieces.iter().collect();
    let loaded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::threads::in_turn(
            shared,
            &order,
            2,
            // One table of long texts per thread, across its pieces: CustomResourceDefinitions
            // repeat each other's descriptions.
            SharedTexts::default,
            |texts, _, piece| Some(load_piece(text, piece, limits, texts)),
        )
    }));
    let Ok(loaded) = loaded else {
        // A panic in the loader would be a bug; load the ordinary way.
        return one_thread(source, Fallback::Panicked);
    };
    if loaded
        .iter()
        .any(|l| l.as_ref().is_none_or(|l| l.aliases > 0))
    {
        return one_thread(source, Fallback::Alias);
    }

    let mut errors = separator_errors;
    let mut documents = Vec::with_capacity(chunks.len());
    let mut joined_count = 0;
    let mut loaded = pieces.iter().zip(loaded.into_iter().flatten()).peekable();
    while let Some((piece, first)) = loaded.next() {
        let (document, root) = match piece {
            Piece::Whole { document, .. } => {
                errors.extend(first.errors);
                (*document, first.root)
            }
            Piece::First { document, .. } => {
                let Some((Piece::Second { cut, document: of }, second)) = loaded.next() else {
                    return one_thread(source, Fallback::Mismatch);
                };
                if of != document {
                    return one_thread(source, Fallback::Mismatch);
                }
                let joined = match (first, second) {
                    (first, second) if first.errors.is_empty() && second.errors.is_empty() => first
                        .root
                        .zip(second.root)
                        .and_then(|(a, b)| join(text, a, b, cut)),
                    _ => None,
                };
                match joined {
                    Some(root) => {
                        joined_count += 1;
                        (*document, Some(root))
                    }
                    None => {
                        let Some(&chunk) = chunks.get(*document) else {
                            return one_thread(source, Fallback::Mismatch);
                        };
                        let whole = load_piece(
                            text,
                            &Piece::Whole {
                                document: *document,
                                span: chunk,
                            },
                            limits,
                            &mut SharedTexts::default(),
                        );
                        if whole.aliases > 0 {
                            return one_thread(source, Fallback::Alias);
                        }
                        errors.extend(whole.errors);
                        (*document, whole.root)
                    }
                }
            }
            Piece::Second { .. } => return one_thread(source, Fallback::Mismatch),
        };
        let Some(&span) = chunks.get(document) else {
            return one_thread(source, Fallback::Mismatch);
        };
        documents.push(Document {
            index: document,
            span,
            root,
        });
    }
    let file = YamlFile {
        source,
        documents,
        errors,
    };
    (
        file,
        Route::TwoThreads {
            joined: joined_count,
        },
    )
}

/// True when the text has a NUL byte or a CR not followed by LF.
pub(super) fn has_hostile_bytes(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr(0, bytes).is_some()
        || memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n'))
}

/// Part of the text to load on its own.
enum Piece {
    /// A document.
    Whole { document: usize, span: Span },
    /// A document's text up to a cut.
    First { document: usize, span: Span },
    /// A document's text from a cut, behind the key lines that lead there.
    Second { document: usize, cut: Cut },
}

impl Piece {
    fn len(&self) -> usize {
        match self {
            Piece::Whole { span, .. } | Piece::First { span, .. } => span.len(),
            Piece::Second { cut, .. } => cut.end - cut.at,
        }
    }
}

/// What loading a piece gave.
struct Loaded {
    root: Option<Node>,
    errors: Vec<Error>,
    /// Nodes alias expansion created.
    aliases: usize,
}

fn load_piece(text: &str, piece: &Piece, limits: Limits, texts: &mut SharedTexts) -> Loaded {
    let identity = OffsetMap::identity();
    let (root, loader) = match piece {
        Piece::Whole { span, .. } | Piece::First { span, .. } => {
            let mut loader = Loader::new(limits, &identity);
            let root = loader.load_document_sharing(texts, text, *span);
            (root, loader)
        }
        Piece::Second { cut, .. } => {
            let rest = text.get(cut.at..cut.end).unwrap_or_default();
            let mut second = String::with_capacity(cut.prefix.len() + rest.len());
            second.push_str(&cut.prefix);
            second.push_str(rest);
            // The copied key lines stand for the place of the cut; the rest is the text itself.
            let mut map = OffsetMap::identity();
            map.push_replacement(0, cut.at);
            map.push_copy(cut.prefix.len(), cut.at, rest.len());
            let mut loader = Loader::new(limits, &map);
            let root = loader.load_document_sharing(texts, &second, Span::new(0, second.len()));
            return Loaded {
                root,
                errors: loader.errors,
                aliases: loader.alias_nodes,
            };
        }
    };
    Loaded {
        root,
        errors: loader.errors,
        aliases: loader.alias_nodes,
    }
}

/// Where a document is cut and what leads there.
struct Cut {
    /// The start of the line of the sequence item the second part starts with.
    at: usize,
    /// The end of the document.
    end: usize,
    /// The column of the item's `-`.
    dash_column: usize,
    /// The key lines from the document's root mapping to the sequence, outermost first: where
    /// each key starts, and the key.
    keys: Vec<(usize, String)>,
    /// Those lines, as written.
    prefix: String,
}

/// A cut near the middle of a large document: the start of a line `- …` at a shallow column
/// whose lines above lead to it through plain `key:` lines only.
fn find_cut(text: &str, chunk: Span, cut_from: usize) -> Option<Cut> {
    if chunk.len() < cut_from {
        return None;
    }
    let document = text.get(chunk.start..chunk.end)?;
    let bytes = document.as_bytes();
    // A document end marker inside would end the document early in one part only.
    if bytes.starts_with(b"...") || memchr::memmem::find(bytes, b"\n...").is_some() {
        return None;
    }
    // Items of shallow sequences, nearest the middle first.
    let middle = bytes.len() / 2;
    let mut candidates: Vec<(usize, usize)> = memchr::memchr_iter(b'\n', bytes)
        .filter_map(|newline| {
            let line = newline + 1;
            let rest = bytes.get(line..)?;
            let indent = rest
                .iter()
                .take(MAX_CUT_INDENT + 1)
                .take_while(|&&b| b == b' ')
                .count();
            (indent <= MAX_CUT_INDENT && rest.get(indent..)?.starts_with(b"- "))
                .then_some((line, indent))
        })
        .collect();
    candidates.sort_by_key(|&(line, _)| line.abs_diff(middle));
    candidates
        .into_iter()
        .take(MAX_CUT_TRIES)
        .find_map(|(line, indent)| {
            let (keys, prefix) = keys_before(document, line, indent)?;
            Some(Cut {
                at: chunk.start + line,
                end: chunk.end,
                dash_column: indent,
                keys: keys
                    .into_iter()
                    .map(|(at, key)| (chunk.start + at, key))
                    .collect(),
                prefix,
            })
        })
}

/// The `key:` lines that lead from the document's root to the sequence whose item starts at
/// `line` with its `-` at `column`, outermost first, and their text. Blank and comment lines are
/// passed over; any other line in the way ends the search.
fn keys_before(
    document: &str,
    line: usize,
    column: usize,
) -> Option<(Vec<(usize, String)>, String)> {
    let mut keys: Vec<(usize, usize, usize)> = Vec::new(); // (line start, key start, line end)
    let mut end = line;
    // The sequence's key: the nearest line before at the item's column or less that is not an
    // item of the sequence (an indentless sequence has its key at the same column).
    let mut deepest = column;
    let mut allow_same = true;
    // The item must not be the sequence's first: the first part ends inside the sequence.
    let mut earlier_items = false;
    let bytes = document.as_bytes();
    while end > 0 {
        let start = memchr::memrchr(b'\n', &bytes[..end - 1]).map_or(0, |i| i + 1);
        let text = &document[start..end - 1];
        end = start;
        // Most lines are deeper than any line looked for: count no further than needed.
        let limit = if allow_same {
            deepest
        } else {
            deepest.saturating_sub(1)
        };
        let indent = text
            .bytes()
            .take(limit + 1)
            .take_while(|&b| b == b' ')
            .count();
        if indent > limit {
            continue;
        }
        let rest = &text[indent..];
        if rest.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r')) || rest.starts_with('#') {
            continue;
        }
        if allow_same && indent == column && (rest.starts_with("- ") || rest == "-") {
            // An earlier item of the same sequence.
            earlier_items = true;
            continue;
        }
        if allow_same && !earlier_items {
            return None;
        }
        let key = rest.strip_suffix(':')?;
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./".contains(&b))
        {
            return None;
        }
        keys.push((start, start + indent, start + text.len()));
        if indent == 0 {
            break;
        }
        deepest = indent;
        allow_same = false;
    }
    if keys.last().is_none_or(|&(start, key, _)| key != start) {
        return None;
    }
    keys.reverse();
    let mut prefix = String::new();
    let mut found = Vec::with_capacity(keys.len());
    for (start, key, line_end) in keys {
        let line = document.get(start..line_end)?;
        prefix.push_str(line);
        prefix.push('\n');
        found.push((key, document.get(key..line_end - 1)?.to_string()));
    }
    Some((found, prefix))
}

/// The document loaded in two parts, joined; `None` when the parts do not confirm the cut or a
/// key is repeated across it.
fn join(text: &str, mut first: Node, second: Node, cut: &Cut) -> Option<Node> {
    // The second part: the copied keys, each the first entry of its mapping, then the
    // sequence's remaining items.
    let mut tails: Vec<(Vec<(Node, Node)>, Span)> = Vec::with_capacity(cut.keys.len());
    let mut node = second;
    for (_, key) in &cut.keys {
        let span = node.span();
        let Value::Mapping(mapping) = node.into_value() else {
            return None;
        };
        let mut entries = mapping.entries.into_iter();
        let (copied, value) = entries.next()?;
        if copied.scalar_text() != Some(key.as_str()) || copied.span().start != cut.at {
            return None;
        }
        tails.push((entries.collect(), span));
        node = value;
    }
    let sequence_end = node.span().end;
    if node.tag().is_some() {
        return None;
    }
    let Value::Sequence(items) = node.into_value() else {
        return None;
    };
    if items.is_empty() {
        return None;
    }

    // The first part: the same keys, each the last entry of its mapping, then the sequence.
    let mut place = &mut first;
    for ((at, key), (tail, span)) in cut.keys.iter().zip(tails) {
        place.set_span(Span::new(place.span().start, span.end));
        if place.tag().is_some() {
            return None;
        }
        let Value::Mapping(mapping) = place.value_mut() else {
            return None;
        };
        let (last_key, _) = mapping.entries.last()?;
        if last_key.scalar_text() != Some(key.as_str()) || last_key.span().start != *at {
            return None;
        }
        let repeated = tail.iter().any(|(k, _)| {
            k.scalar_text().is_some_and(|t| {
                mapping
                    .entries
                    .iter()
                    .any(|(earlier, _)| earlier.scalar_text() == Some(t))
            })
        });
        if repeated {
            return None;
        }
        let last = mapping.entries.len() - 1;
        mapping.extend(tail);
        place = &mut mapping.entries.get_mut(last)?.1;
    }
    if place.tag().is_some() || !is_block_sequence_at(text, place, cut.dash_column) {
        return None;
    }
    // What the first part ends with ended at its end; in the whole document it ends where the
    // next item's `-` is.
    let next_token = cut.at + cut.dash_column;
    let mut last = place.as_sequence_mut()?.last_mut();
    while let Some(node) = last {
        if node.span().end != cut.at {
            break;
        }
        node.set_span(Span::new(node.span().start, next_token));
        let style = node.scalar_style();
        last = match node.value_mut() {
            Value::Sequence(items) => items.last_mut(),
            Value::Mapping(mapping) => mapping.entries.last_mut().map(|(_, value)| value),
            Value::Scalar { text } => {
                // A block scalar without content lines starts at its header when the text
                // ends there, and at the next token otherwise.
                let block = matches!(style, Some(ScalarStyle::Literal | ScalarStyle::Folded));
                if block && text.trim_end_matches('\n').is_empty() {
                    return None;
                }
                None
            }
        };
    }
    place.set_span(Span::new(place.span().start, sequence_end));
    place.extend_sequence(items).then_some(first)
}

/// True for a non-empty block sequence whose first item's `-` is at `column`.
fn is_block_sequence_at(text: &str, node: &Node, column: usize) -> bool {
    let Some(first) = node.items().first() else {
        return false;
    };
    let line_start = text
        .get(..first.span().start)
        .and_then(|before| before.rfind('\n'))
        .map_or(0, |i| i + 1);
    text.get(line_start + column..)
        .is_some_and(|rest| rest.starts_with("- "))
        && text
            .get(line_start..line_start + column)
            .is_some_and(|indent| indent.bytes().all(|b| b == b' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file [`load`] gives, with every document of `cut_from` bytes or more cut where it can
    /// be, is the file [`parse_str`] gives; returns how many documents were loaded in two parts.
    fn assert_same_as_one_thread(name: &str, text: &str, cut_from: usize) -> usize {
        let source = Arc::new(Source::new(name, text));
        let whole = parse_str(source.clone(), Limits::default());
        let (split, route) = load_routed(source, Limits::default(), cut_from);
        assert_eq!(split.errors, whole.errors, "{name}: errors");
        assert_eq!(split.documents.len(), whole.documents.len(), "{name}");
        for (s, w) in split.documents.iter().zip(&whole.documents) {
            assert_eq!((s.index, s.span), (w.index, w.span), "{name}");
            if s.root != w.root {
                let index = w.index;
                let (Some(s), Some(w)) = (&s.root, &w.root) else {
                    panic!("{name} #{index}: a root is missing");
                };
                panic!("{name} #{index}: {}", first_difference(s, w));
            }
        }
        let identity = OffsetMap::identity();
        let mut loader = Loader::new(Limits::default(), &identity);
        let cut = split_documents(text, &mut loader)
            .into_iter()
            .filter(|&chunk| {
                find_cut(text, chunk, cut_from).is_some_and(|cut| {
                    let first = Loader::new(Limits::default(), &identity)
                        .load_document(text, Span::new(chunk.start, cut.at));
                    let second = load_piece(
                        text,
                        &Piece::Second { document: 0, cut },
                        Limits::default(),
                        &mut SharedTexts::default(),
                    );
                    first.is_some() && second.errors.is_empty()
                })
            })
            .count();
        // The same file is not enough: it must have come the two-thread way, unless the text
        // holds what sends it to the one-thread loader on purpose.
        match route {
            Route::TwoThreads { joined } => assert!(joined <= cut, "{name}: {joined} > {cut}"),
            Route::OneThread(Fallback::Alias) => {
                assert!(
                    text.contains('*'),
                    "{name}: alias fallback without an alias"
                )
            }
            Route::OneThread(Fallback::HostileBytes) => assert!(has_hostile_bytes(text)),
            Route::OneThread(why) => panic!("{name}: fell back to one thread ({why:?})"),
        }
        cut
    }

    #[test]
    fn large_files_take_the_two_thread_path_and_join_their_cuts() {
        let root =
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/corpus"));
        let text = std::fs::read_to_string(root.join("core-cluster-api/core-components.yaml"))
            .expect("testdata/corpus/core-cluster-api/core-components.yaml");
        let (_, route) = load_routed(
            Arc::new(Source::new("core", &text)),
            Limits::default(),
            CUT_FROM,
        );
        let Route::TwoThreads { joined } = route else {
            panic!("core's components fell back: {route:?}");
        };
        // Its CustomResourceDefinitions of 64 KiB or more are each loaded in two parts.
        assert!(joined >= 2, "only {joined} documents joined");
        // What falls back, falls back for its reason.
        let alias = "a: &x [1]\nb: *x\n".repeat(10);
        let (_, route) = load_routed(Arc::new(Source::new("alias", &alias)), Limits::default(), 0);
        assert_eq!(route, Route::OneThread(Fallback::Alias));
        let (_, route) = load_routed(
            Arc::new(Source::new("cr", "a: 1\rb: 2\n")),
            Limits::default(),
            0,
        );
        assert_eq!(route, Route::OneThread(Fallback::HostileBytes));
    }

    /// Where two trees first differ.
    fn first_difference(split: &Node, whole: &Node) -> String {
        let mut stack = vec![(split, whole, String::from("$"))];
        while let Some((s, w, path)) = stack.pop() {
            if s.span() != w.span() || s.tag() != w.tag() || s.scalar_style() != w.scalar_style() {
                return format!(
                    "{path}: {:?} {:?} {:?} vs {:?} {:?} {:?}",
                    s.span(),
                    s.tag(),
                    s.scalar_style(),
                    w.span(),
                    w.tag(),
                    w.scalar_style()
                );
            }
            match (s.value(), w.value()) {
                (Value::Sequence(si), Value::Sequence(wi)) if si.len() == wi.len() => {
                    for (i, (s, w)) in si.iter().zip(wi).enumerate() {
                        stack.push((s, w, format!("{path}[{i}]")));
                    }
                }
                (Value::Mapping(sm), Value::Mapping(wm)) if sm.len() == wm.len() => {
                    for ((sk, sv), (wk, wv)) in sm.entries.iter().zip(&wm.entries) {
                        let key = wk.scalar_text().unwrap_or("?");
                        stack.push((sk, wk, format!("{path}.<{key}>")));
                        stack.push((sv, wv, format!("{path}.{key}")));
                    }
                }
                (s, w) if s == w => {}
                (s, w) => return format!("{path}: {s:?} vs {w:?}"),
            }
        }
        "no difference".to_string()
    }

    #[test]
    fn every_corpus_document_cut_at_its_middle_loads_as_a_whole() {
        let root =
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/corpus"));
        let mut files = Vec::new();
        for dir in std::fs::read_dir(&root).expect("corpus").flatten() {
            for file in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if file.path().extension().is_some_and(|e| e == "yaml") {
                    files.push(file.path());
                }
            }
        }
        assert!(files.len() > 50, "{}", files.len());
        let mut cut = 0;
        for path in files {
            let text = std::fs::read_to_string(&path).expect("reads");
            cut += assert_same_as_one_thread(&path.display().to_string(), &text, 0);
        }
        assert!(cut > 80, "{cut} documents cut");
    }

    /// Damaged corpus documents (a line dropped, doubled, or given a tab or a stray quote)
    /// still load as the one-thread loader loads them: a cut never hides or moves a problem.
    #[test]
    fn damaged_documents_cut_anywhere_load_as_a_whole() {
        let root =
            std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/corpus"));
        let text = std::fs::read_to_string(root.join("core-cluster-api/core-components.yaml"))
            .expect("testdata/corpus/core-cluster-api/core-components.yaml");
        let lines: Vec<&str> = text.lines().collect();
        // A fixed linear congruential sequence: the same damage on every run.
        let mut state: u64 = 0x5eed;
        let mut next = |bound: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % bound
        };
        for round in 0..10 {
            let mut damaged: Vec<String> = lines.iter().map(|line| line.to_string()).collect();
            for _ in 0..3 {
                let at = next(damaged.len());
                match next(4) {
                    0 => {
                        damaged.remove(at);
                    }
                    1 => damaged.insert(at, damaged[at].clone()),
                    2 => damaged[at].insert(0, '\t'),
                    _ => damaged[at].push_str(" \"x"),
                }
            }
            let damaged = damaged.join("\n");
            assert_same_as_one_thread(&format!("round {round}"), &damaged, 0);
        }
    }

    fn crd(versions: &[&str], after: &str) -> String {
        let mut text = String::from(
            "apiVersion: v1\nkind: CustomResourceDefinition\nspec:\n  group: x\n  versions:\n",
        );
        for version in versions {
            text.push_str(&format!("  - name: {version}\n    schema:\n      description: |\n        text\n        - not an item\n      items:\n      - a\n      - b\n"));
        }
        text.push_str(after);
        text
    }

    #[test]
    fn cuts_join_where_the_sequence_and_its_mappings_go_on() {
        let cases = [
            crd(&["v1", "v2", "v3", "v4"], ""),
            crd(
                &["v1", "v2", "v3", "v4"],
                "  scope: Namespaced\nstatus:\n  stored: []\n",
            ),
            crd(&["v1", "v2", "v3"], "# a comment\n\n  scope: x\n"),
            // Keys repeated across the cut are the loader's to report.
            crd(&["v1", "v2", "v3", "v4"], "  group: again\n"),
            crd(&["v1", "v2", "v3", "v4"], "kind: again\n"),
            // Problems in either part.
            crd(&["v1", "v2", "v3", "v4"], "  bad: [unclosed\n"),
            format!("a: [1,\n{}", crd(&["v1", "v2", "v3", "v4"], "")),
            // An anchor before the cut and its alias after it.
            crd(&["v1", "v2", "v3", "v4"], "")
                .replace("name: v1", "name: &n v1")
                .replace("name: v4", "name: *n"),
            // A quoted scalar or a flow collection across the cut.
            crd(&["v1", "v2"], "").replace("  - name: v2", "  - name: \"v2\n  - name: v3\""),
            crd(&["v1", "v2"], "").replace("  - name: v2", "  - name: [v2,\n  - name, v3]"),
            // A block scalar that swallows what looks like items.
            String::from("a: |\n  - one\n  - two\n  - three\nb:\n- c\n- d\n- e\n- f\n"),
            // Items of a sequence at the root, and an indented sequence.
            String::from("- a: 1\n- b: 2\n- c: 3\n- d: 4\n"),
            String::from("spec:\n  items:\n    - a\n    - b\n    - c\n    - d\n  after: x\n"),
            // A document end marker.
            crd(&["v1", "v2", "v3", "v4"], "...\nignored: x\n"),
        ];
        let mut cut = 0;
        for (i, text) in cases.iter().enumerate() {
            cut += assert_same_as_one_thread(&format!("case {i}"), text, 0);
            cut += assert_same_as_one_thread(
                &format!("case {i} doubled"),
                &format!("{text}---\n{text}"),
                0,
            );
        }
        assert!(cut >= 10, "{cut} documents cut");
    }
}
