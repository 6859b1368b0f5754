//! The repeated keys of a text, reusing the load of a near copy of it.
//!
//! `capkg render` warns about the keys a components file repeats as written, while it loads the
//! file substituted. Substitution changes a few documents (those holding a `${VAR}` or a `$$`);
//! the rest are the same text in both. Each document is loaded on its own ([`super::parse_str`]
//! splits at `---` lines first), and a repeated-key error's message depends on the document's
//! text only, so a document whose text is the same has the same errors, shifted by where it
//! starts. Only the documents that differ are loaded again.

use std::sync::Arc;

use super::{Error, ErrorKind, Limits, Loader, YamlFile, is_blank, parse_str, split_documents};
use crate::yaml::source::{OffsetMap, Source, Span};

/// The errors of kind [`ErrorKind::DuplicateKey`] that [`parse_str`] gives for `source`, in
/// the same order, given `near`: a loaded text whose documents are mostly the same text as
/// `source`'s (the same file substituted). Where anything could make the two loads differ
/// beyond their texts (bytes the loader rewrites, an error that stops a document early, aliases,
/// whose budget counts across documents, a different number of documents), `source` is loaded
/// whole.
pub fn repeated_keys_reusing(source: Arc<Source>, near: &YamlFile, limits: Limits) -> Vec<Error> {
    reuse(&source, near, limits).unwrap_or_else(|| repeated_keys(parse_str(source, limits)))
}

fn repeated_keys(file: YamlFile) -> Vec<Error> {
    file.errors
        .into_iter()
        .filter(|e| e.kind == ErrorKind::DuplicateKey)
        .collect()
}

/// `None` when `source` must be loaded whole.
fn reuse(source: &Source, near: &YamlFile, limits: Limits) -> Option<Vec<Error>> {
    let text = source.text();
    let near_text = near.source.text();
    if super::split::has_hostile_bytes(text) || super::split::has_hostile_bytes(near_text) {
        return None;
    }
    let reusable = near
        .errors
        .iter()
        .all(|e| matches!(e.kind, ErrorKind::DuplicateKey | ErrorKind::Separator));
    if !reusable {
        return None;
    }
    let identity = OffsetMap::identity();
    // Separator errors are not wanted; the loader only collects them.
    let mut scratch = Loader::new(limits, &identity);
    let chunks: Vec<Span> = split_documents(text, &mut scratch)
        .into_iter()
        .filter(|chunk| !is_blank(&text[chunk.start..chunk.end]))
        .collect();
    if chunks.len() != near.documents.len() {
        return None;
    }
    let mut errors = Vec::new();
    let mut near_errors = near
        .errors
        .iter()
        .filter(|e| e.kind == ErrorKind::DuplicateKey)
        .peekable();
    for (chunk, document) in chunks.iter().zip(&near.documents) {
        let theirs = document.span;
        let mut in_document = Vec::new();
        while let Some(error) = near_errors.next_if(|e| e.span.start < theirs.end) {
            in_document.push(error);
        }
        if text.get(chunk.start..chunk.end) == near_text.get(theirs.start..theirs.end) {
            let shift = |span: Span| {
                Span::new(
                    span.start - theirs.start + chunk.start,
                    span.end - theirs.start + chunk.start,
                )
            };
            for error in in_document {
                if error.span.start < theirs.start {
                    return None;
                }
                errors.push(Error {
                    span: shift(error.span),
                    related: error
                        .related
                        .as_ref()
                        .map(|(span, note)| (shift(*span), note.clone())),
                    ..error.clone()
                });
            }
        } else {
            let mut loader = Loader::new(limits, &identity);
            loader.load_document(text, *chunk);
            if loader.alias_nodes > 0 {
                return None;
            }
            for error in loader.errors {
                match error.kind {
                    ErrorKind::DuplicateKey => errors.push(error),
                    _ => return None,
                }
            }
        }
    }
    Some(errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> YamlFile {
        parse_str(Arc::new(Source::new("t", text)), Limits::default())
    }

    /// What reusing `near` gives, `None` when the raw text is loaded whole.
    fn reused(raw: &str, near: &str) -> Option<Vec<Error>> {
        reuse(&Source::new("raw", raw), &load(near), Limits::default())
    }

    /// The public function: the reuse, else the whole load.
    fn either(raw: &str, near: &str) -> Vec<Error> {
        let source = Arc::new(Source::new("raw", raw));
        repeated_keys_reusing(source, &load(near), Limits::default())
    }

    /// What loading the raw text whole gives.
    fn whole(raw: &str) -> Vec<Error> {
        repeated_keys(load(raw))
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
    }

    #[test]
    fn anything_the_documents_alone_cannot_tell_loads_the_text_whole() {
        let raw = "a: 1\na: 2\n---\nb: *x\n";
        let aliased = "x: &x 1\nx: 2\n---\nb: *x\n";
        let nul = "a: 1\na: 2\n---\nb: \0\n";
        let cases = [
            // An error that stops a document early in the near copy.
            (raw, "a: 1\na: 2\n---\nb: [\n"),
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
        }
        // Blank documents are not counted on either side.
        let blank = "# only a comment\n---\na: 1\na: 2\n";
        assert_eq!(reused(blank, "a: 1\na: 2\n"), Some(whole(blank)));
    }
}
