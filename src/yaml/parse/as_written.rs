//! A file as written, loaded beside a near copy of it.
//!
//! `capkg render` loads a components file substituted, and also needs the file as written: its
//! repeated keys (a warning) and, without `--provider`, its `cluster.x-k8s.io/provider` labels.
//! Substitution changes a few documents (those holding a `${VAR}` or a `$$`); the rest are the
//! same text in both. Each document is loaded on its own ([`super::parse_str`] splits at `---`
//! lines first), and what loading a document gives (its tree, a repeated-key error's message)
//! depends on its text only, so a document whose text is the same is taken from the near copy's
//! load, its positions shifted by where it starts. Only the documents that differ are loaded.

use std::sync::Arc;

use super::{Error, ErrorKind, Limits, Loader, YamlFile, is_blank, parse_str, split_documents};
use crate::yaml::node::Node;
use crate::yaml::source::{OffsetMap, Source, Span};

/// A text loaded beside a near copy of it ([`load_beside`]).
#[derive(Debug)]
pub struct AsWritten {
    source: Arc<Source>,
    documents: Vec<WrittenDocument>,
    repeated_keys: Vec<Error>,
}

/// One non-empty document of the text.
#[derive(Debug)]
enum WrittenDocument {
    /// The same text as the near copy's document at this index.
    Near(usize),
    /// Loaded from the text (`None`: it holds only `null`, or did not load).
    Own(Option<Node>),
}

impl AsWritten {
    pub fn source(&self) -> &Arc<Source> {
        &self.source
    }

    /// The errors of kind [`ErrorKind::DuplicateKey`] that [`parse_str`] gives for the text, in
    /// its order.
    pub fn repeated_keys(&self) -> &[Error] {
        &self.repeated_keys
    }

    /// The documents' roots, in order, as [`parse_str`] loads them but for positions: a document
    /// the near copy has is its root there. `near` is the copy this was loaded beside.
    pub fn roots<'a>(&'a self, near: &'a YamlFile) -> impl Iterator<Item = &'a Node> {
        self.documents
            .iter()
            .filter_map(move |document| match document {
                WrittenDocument::Near(index) => near.documents.get(*index)?.root.as_ref(),
                WrittenDocument::Own(root) => root.as_ref(),
            })
    }
}

/// The documents of a text that differ from those of a near copy of it, loaded: the part of
/// [`load_beside`] that needs only the two texts, so that it can run while the copy is loaded.
#[derive(Debug)]
pub struct Differing {
    source: Arc<Source>,
    limits: Limits,
    /// `None` when the text must be loaded whole.
    documents: Option<Vec<Pairing>>,
}

/// A non-empty document of the text and the near copy's at the same place.
#[derive(Debug)]
struct Pairing {
    chunk: Span,
    near_chunk: Span,
    /// For a document whose text differs: its root and its repeated-key errors.
    loaded: Option<(Option<Node>, Vec<Error>)>,
}

/// Splits `source` and `near_text` into documents and loads those of `source` whose text
/// differs.
pub fn load_differing(source: Arc<Source>, near_text: &str, limits: Limits) -> Differing {
    let documents = pair_and_load(source.text(), near_text, limits);
    Differing {
        source,
        limits,
        documents,
    }
}

fn pair_and_load(text: &str, near_text: &str, limits: Limits) -> Option<Vec<Pairing>> {
    if super::split::has_hostile_bytes(text) || super::split::has_hostile_bytes(near_text) {
        return None;
    }
    let identity = OffsetMap::identity();
    let chunks_of = |text: &str| -> Vec<Span> {
        // Separator errors are not wanted; the loader only collects them.
        let mut scratch = Loader::new(limits, &identity);
        split_documents(text, &mut scratch)
            .into_iter()
            .filter(|chunk| !is_blank(&text[chunk.start..chunk.end]))
            .collect()
    };
    let (chunks, near_chunks) = (chunks_of(text), chunks_of(near_text));
    if chunks.len() != near_chunks.len() {
        return None;
    }
    let mut documents = Vec::with_capacity(chunks.len());
    for (chunk, near_chunk) in chunks.into_iter().zip(near_chunks) {
        let same =
            text.get(chunk.start..chunk.end) == near_text.get(near_chunk.start..near_chunk.end);
        let loaded = if same {
            None
        } else {
            let mut loader = Loader::new(limits, &identity);
            let root = loader.load_document(text, chunk);
            let repeated_keys_only = loader
                .errors
                .iter()
                .all(|e| e.kind == ErrorKind::DuplicateKey);
            if loader.alias_nodes > 0 || !repeated_keys_only {
                return None;
            }
            Some((root, loader.errors))
        };
        documents.push(Pairing {
            chunk,
            near_chunk,
            loaded,
        });
    }
    Some(documents)
}

/// Loads the text of `differing` beside `near`, the load of the near copy it was split against:
/// a loaded text whose documents are mostly the same text (the same file substituted). Where
/// anything could make the two loads differ beyond their texts (bytes the loader rewrites, an
/// error that stops a document early, aliases, whose budget counts across documents, a
/// different number of documents), the text is loaded whole.
pub fn load_beside(differing: Differing, near: &YamlFile) -> AsWritten {
    let Differing {
        source,
        limits,
        documents,
    } = differing;
    if let Some(reused) = documents.and_then(|documents| reuse(&source, documents, near)) {
        return reused;
    }
    let file = parse_str(source, limits);
    AsWritten {
        source: file.source,
        documents: file
            .documents
            .into_iter()
            .map(|document| WrittenDocument::Own(document.root))
            .collect(),
        repeated_keys: file
            .errors
            .into_iter()
            .filter(|e| e.kind == ErrorKind::DuplicateKey)
            .collect(),
    }
}

/// `None` when the text must be loaded whole.
fn reuse(source: &Arc<Source>, pairings: Vec<Pairing>, near: &YamlFile) -> Option<AsWritten> {
    let reusable = near
        .errors
        .iter()
        .all(|e| matches!(e.kind, ErrorKind::DuplicateKey | ErrorKind::Separator));
    // The near copy's documents must be the ones it was split into here.
    let same_documents = near.documents.len() == pairings.len()
        && near
            .documents
            .iter()
            .zip(&pairings)
            .all(|(document, pairing)| document.span == pairing.near_chunk);
    if !reusable || !same_documents {
        return None;
    }
    let mut documents = Vec::with_capacity(pairings.len());
    let mut repeated_keys = Vec::new();
    let mut near_errors = near
        .errors
        .iter()
        .filter(|e| e.kind == ErrorKind::DuplicateKey)
        .peekable();
    for (index, pairing) in pairings.into_iter().enumerate() {
        let theirs = pairing.near_chunk;
        let mut in_document = Vec::new();
        while let Some(error) = near_errors.next_if(|e| e.span.start < theirs.end) {
            in_document.push(error);
        }
        match pairing.loaded {
            None => {
                let shift = |span: Span| {
                    Span::new(
                        span.start - theirs.start + pairing.chunk.start,
                        span.end - theirs.start + pairing.chunk.start,
                    )
                };
                for error in in_document {
                    if error.span.start < theirs.start {
                        return None;
                    }
                    repeated_keys.push(Error {
                        span: shift(error.span),
                        related: error
                            .related
                            .as_ref()
                            .map(|(span, note)| (shift(*span), note.clone())),
                        ..error.clone()
                    });
                }
                documents.push(WrittenDocument::Near(index));
            }
            Some((root, errors)) => {
                repeated_keys.extend(errors);
                documents.push(WrittenDocument::Own(root));
            }
        }
    }
    Some(AsWritten {
        source: source.clone(),
        documents,
        repeated_keys,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> YamlFile {
        parse_str(Arc::new(Source::new("t", text)), Limits::default())
    }

    fn source(text: &str) -> Arc<Source> {
        Arc::new(Source::new("raw", text))
    }

    /// The repeated keys reusing `near` gives, `None` when the raw text is loaded whole.
    fn reused(raw: &str, near: &str) -> Option<Vec<Error>> {
        let pairings = pair_and_load(raw, near, Limits::default())?;
        reuse(&source(raw), pairings, &load(near)).map(|w| w.repeated_keys)
    }

    fn beside(raw: &str, near: &YamlFile) -> AsWritten {
        let differing = load_differing(source(raw), near.source.text(), Limits::default());
        load_beside(differing, near)
    }

    /// The public functions: the reuse, else the whole load.
    fn either(raw: &str, near: &str) -> Vec<Error> {
        beside(raw, &load(near)).repeated_keys
    }

    /// What loading the raw text whole gives.
    fn whole(raw: &str) -> Vec<Error> {
        load(raw)
            .errors
            .into_iter()
            .filter(|e| e.kind == ErrorKind::DuplicateKey)
            .collect()
    }

    /// The roots as written, beside `near`, against those of the whole load.
    fn assert_same_roots(raw: &str, near: &str) {
        let near = load(near);
        let beside = beside(raw, &near);
        let whole = load(raw);
        let strip = |node: &Node| crate::yaml::json_value::JsonValue::from_node(node).ok();
        let ours: Vec<_> = beside.roots(&near).map(strip).collect();
        let theirs: Vec<_> = whole.roots().map(strip).collect();
        assert_eq!(ours, theirs);
    }

    #[test]
    fn unchanged_documents_keep_their_errors_shifted_and_changed_ones_are_loaded() {
        let raw = "a: 1\na: 2\n---\nb: ${X}\nb: 3\n---\nc: $$d\nkeep: ${Y}\n---\nd: 1\nd: 2\ne: 1\ne: 2\n";
        // Substituted: the second document loses its repetition, the third gains one, and the
        // lengths change so that the fourth starts elsewhere.
        let near = "a: 1\na: 2\n---\nbee: 1\nb: 3\n---\nc: $d\nc: 1\n---\nd: 1\nd: 2\ne: 1\ne: 2\n";
        let got = reused(raw, near).expect("reused");
        assert_eq!(got, whole(raw));
        assert_eq!(either(raw, near), got);
        let at: Vec<usize> = got.iter().map(|e| e.span.start).collect();
        assert_eq!(at, vec![5, 22, 58]);
        assert!(got[2].message.contains("`d`") && got[2].message.contains("`e`"));
        assert_eq!(got[1].related.as_ref().map(|(s, _)| s.start), Some(14));
        assert_same_roots(raw, near);
    }

    #[test]
    fn anything_the_documents_alone_cannot_tell_loads_the_text_whole() {
        let raw = "a: 1\na: 2\n---\nb: *x\n";
        let aliased = "x: &x 1\nx: 2\n---\nb: *x\n";
        let nul = "a: 1\na: 2\n---\nb: \0\n";
        let cases = [
            // An error that stops a document early in the near copy.
            ("a: 1\na: 2\n---\nb: 1\n", "a: 1\na: 2\n---\nb: [\n"),
            // An error in a document that differs.
            (raw, "a: 1\na: 2\n---\nb: 1\n"),
            // A different number of documents.
            (raw, "a: 1\na: 2\n"),
            // An alias in a document that differs.
            (aliased, "x: &x 1\nx: 2\n---\nb: 1\n"),
            // A NUL byte, which the loader rewrites.
            (nul, "a: 1\na: 2\n---\nb: 1\n"),
        ];
        for (raw, near) in cases {
            assert_eq!(reused(raw, near), None, "{raw:?} beside {near:?}");
            assert_eq!(either(raw, near), whole(raw));
            assert_eq!(whole(raw).len(), 1);
            assert_same_roots(raw, near);
        }
        // Blank documents are not counted on either side.
        let blank = "# only a comment\n---\na: 1\na: 2\n";
        assert_eq!(reused(blank, "a: 1\na: 2\n"), Some(whole(blank)));
    }
}
