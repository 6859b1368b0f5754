//! Loading: bytes -> documents -> node trees, with positions and clear errors.
//!
//! Documents are split the way clusterctl splits them (apimachinery's YAML reader): a line that
//! starts with `---` ends a document, and only whitespace or a comment may follow the marker. Each
//! document is then parsed on its own, so a syntax error in one document does not hide the others.
//!
//! The tree is built from saphyr-parser's events, or the same events from the fast reader
//! ([`fast`]) for the YAML manifests are written in, with an explicit stack: no recursion (a file of
//! 100,000 nested sequences cannot overflow the stack), a depth cap, duplicate keys reported at the
//! second key with the first one named, and aliases expanded under a node budget, so that a
//! "billion laughs" file is refused after a bounded amount of work.

use std::collections::HashMap;
use std::sync::Arc;

use saphyr_parser::{Event, Marker, Parser, ScanError};

mod as_written;
mod fast;
mod split;

pub use as_written::{AsWritten, Differing, load_beside, load_differing};
pub use split::parse_str_on_two_threads;

use super::compact::SharedTexts;
use super::node::{Items, MAX_OFFSET, Mapping, Node, Tag, Value, is_merge_key, resolve_merge_keys};
use super::source::{OffsetMap, Source, Span, line_starts};

/// Limits that keep hostile input cheap.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Deepest nesting of sequences and mappings.
    pub max_depth: usize,
    /// Nodes that alias expansion may create in one file.
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_depth: 512,
            max_alias_nodes: 1_000_000,
        }
    }
}

/// What went wrong while loading.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The bytes are not UTF-8.
    InvalidUtf8,
    /// The YAML scanner or parser rejected the text (tabs used as indentation, an unclosed
    /// bracket, a bad indentation, …).
    Syntax,
    /// A mapping repeats a key.
    DuplicateKey,
    /// A `---` line followed by something other than a comment.
    Separator,
    /// Nesting deeper than [`Limits::max_depth`].
    TooDeep,
    /// Alias expansion would exceed [`Limits::max_alias_nodes`].
    AliasBudget,
    /// An alias names no anchor seen before it.
    UnknownAlias,
    /// A merge key `<<` whose value is not a mapping or a list of mappings.
    BadMerge,
    /// A NUL byte: go-yaml refuses control characters, and capkg's parser would stop there.
    NulByte,
    /// A carriage return not followed by a line feed: clusterctl splits documents only at `\n---`.
    LineEndings,
    /// A text of 512 MiB or more, which is not loaded: a node's span holds 29-bit offsets.
    TooLarge,
}

/// A loading problem, located in the source.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    pub span: Span,
    /// Another place the message refers to (the first of two duplicate keys).
    pub related: Option<(Span, String)>,
}

/// One document of a file. Documents holding only comments or whitespace are not listed.
#[derive(Debug, Clone)]
pub struct Document {
    /// 0-based index among the file's non-empty documents (clusterctl counts the same way).
    pub index: usize,
    /// The document's text, from its first line to the line before the next separator.
    pub span: Span,
    /// `None` when the document failed to parse (its error is in [`YamlFile::errors`]) or holds
    /// only `null`.
    pub root: Option<Node>,
}

/// A loaded file: its source, its documents and the problems found while loading.
#[derive(Debug, Clone)]
pub struct YamlFile {
    pub source: Arc<Source>,
    pub documents: Vec<Document>,
    pub errors: Vec<Error>,
}

impl YamlFile {
    /// The roots of the documents that parsed.
    pub fn roots(&self) -> impl Iterator<Item = &Node> {
        self.documents.iter().filter_map(|d| d.root.as_ref())
    }
}

/// Loads a file's bytes. Invalid UTF-8 yields a file with no documents and one error at the
/// first bad byte.
pub fn parse_file(name: impl Into<String>, bytes: Vec<u8>, limits: Limits) -> YamlFile {
    match String::from_utf8(bytes) {
        Ok(text) => parse_str(Arc::new(Source::new(name, text)), limits),
        Err(err) => {
            let valid_up_to = err.utf8_error().valid_up_to();
            let bad = err.as_bytes().get(valid_up_to).copied().unwrap_or(0);
            let text = String::from_utf8_lossy(err.as_bytes()).into_owned();
            // The lossy text has the same bytes up to the first bad one.
            let source = Arc::new(Source::new(name, text));
            YamlFile {
                errors: vec![Error {
                    kind: ErrorKind::InvalidUtf8,
                    message: format!("invalid UTF-8: byte 0x{bad:02x} at offset {valid_up_to}"),
                    span: Span::new(valid_up_to, valid_up_to + 1),
                    related: None,
                }],
                source,
                documents: Vec::new(),
            }
        }
    }
}

/// Loads a source's text.
pub fn parse_str(source: Arc<Source>, limits: Limits) -> YamlFile {
    parse_rewritten(source, None, limits)
}

/// Loads `rewritten` (a version of the source's text with placeholders substituted) and carries
/// every span back to the source through `map`. With `None`, the source's own text is loaded.
pub fn parse_rewritten(
    source: Arc<Source>,
    rewritten: Option<(&str, &OffsetMap)>,
    limits: Limits,
) -> YamlFile {
    // Nodes hold offsets into the source (a rewritten text's are carried back to it).
    if let Some(error) = too_large(source.text()) {
        return YamlFile {
            source,
            documents: Vec::new(),
            errors: vec![error],
        };
    }
    let identity = OffsetMap::identity();
    let (text, map) = rewritten.unwrap_or((source.text(), &identity));
    let mut loader = Loader::new(limits, map);
    let cleaned = check_bytes(text, &mut loader);
    let text = cleaned.as_deref().unwrap_or(text);
    let chunks = split_documents(text, &mut loader);
    let mut documents = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        if is_blank(&text[chunk.start..chunk.end]) {
            continue;
        }
        let index = documents.len();
        let root = loader.load_document(text, chunk);
        documents.push(Document {
            index,
            span: Span::new(map.to_original(chunk.start), map.to_original(chunk.end)),
            root,
        });
    }
    YamlFile {
        source,
        documents,
        errors: loader.errors,
    }
}

/// Refuses a text whose offsets a node cannot hold ([`MAX_OFFSET`]), rather than let them wrap.
fn too_large(text: &str) -> Option<Error> {
    (text.len() > MAX_OFFSET).then(|| Error {
        kind: ErrorKind::TooLarge,
        message: format!(
            "the file is {} bytes; capkg loads YAML files smaller than 512 MiB",
            text.len()
        ),
        span: Span::at(0),
        related: None,
    })
}

/// Reports the bytes that make clusterctl read a file otherwise than a parser would: NUL bytes
/// (go-yaml refuses control characters; saphyr stops at the NUL, leaving the rest of the document
/// unchecked) and carriage returns not followed by a line feed (clusterctl splits documents only
/// at `\n---`, so behind CR-only line endings it reads one document and keeps its first object).
/// Returns a copy of the text to load instead, of the same length so that every span stays
/// valid: NULs become spaces and lone CRs line feeds, so that everything behind them is still
/// checked.
fn check_bytes(text: &str, loader: &mut Loader<'_>) -> Option<String> {
    let bytes = text.as_bytes();
    let nuls = memchr::memchr_iter(0, bytes).count();
    let lone_crs: Vec<usize> = memchr::memchr_iter(b'\r', bytes)
        .filter(|&i| bytes.get(i + 1) != Some(&b'\n'))
        .collect();
    if nuls == 0 && lone_crs.is_empty() {
        return None;
    }
    if let Some(first) = memchr::memchr(0, bytes) {
        let more = match nuls {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        loader.error(
            ErrorKind::NulByte,
            format!(
                "NUL byte{more}: Kubernetes' YAML reader refuses control characters, so clusterctl cannot read this file"
            ),
            Span::new(first, first + 1),
        );
    }
    if let Some(&first) = lone_crs.first() {
        let hidden = lone_crs
            .iter()
            .filter(|&&i| bytes.get(i + 1..i + 4) == Some(b"---"))
            .count();
        let loss = match hidden {
            0 => "clusterctl splits documents only at a line feed followed by `---`, and counts lines differently from editors".to_string(),
            n => format!(
                "clusterctl splits documents only at a line feed followed by `---`, so it reads this file as one document and keeps only its first object: the {n} `---` separator(s) behind a lone CR and the object(s) after them are lost"
            ),
        };
        loader.error(
            ErrorKind::LineEndings,
            format!(
                "{} line(s) end with a carriage return alone (CR-only line endings); {loss}",
                lone_crs.len()
            ),
            Span::new(first, first + 1),
        );
    }
    let mut cleaned = bytes.to_vec();
    for byte in cleaned.iter_mut().filter(|b| **b == 0) {
        *byte = b' ';
    }
    for &i in &lone_crs {
        if let Some(byte) = cleaned.get_mut(i) {
            *byte = b'\n';
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    String::from_utf8(cleaned).ok()
}

/// True when a chunk holds nothing but whitespace and comments.
fn is_blank(chunk: &str) -> bool {
    chunk.lines().all(|line| {
        let line = line.trim_start();
        line.is_empty() || line.starts_with('#')
    })
}

/// Splits the text at `---` lines, reporting separators followed by anything but a comment.
fn split_documents(text: &str, loader: &mut Loader<'_>) -> Vec<Span> {
    let bytes = text.as_bytes();
    let mut chunks = Vec::new();
    let mut start = 0;
    let first_line = bytes.starts_with(b"---").then_some(0);
    let later_lines = memchr::memmem::find_iter(bytes, b"\n---").map(|i| i + 1);
    for line_start in first_line.into_iter().chain(later_lines) {
        let line_end =
            memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i);
        let line = &text[line_start..line_end];
        let rest = &line[3..];
        chunks.push(Span::new(start, line_start));
        let trimmed = rest.trim();
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            let rest_start = line_start + 3 + (rest.len() - rest.trim_start().len());
            loader.error(
                ErrorKind::Separator,
                format!("invalid document separator: `{}`", line.trim_end()),
                Span::new(rest_start, line_start + line.trim_end().len()),
            );
        }
        start = (line_end + 1).min(bytes.len());
    }
    chunks.push(Span::new(start, bytes.len()));
    chunks
}

struct Loader<'m> {
    limits: Limits,
    map: &'m OffsetMap,
    alias_nodes: usize,
    errors: Vec<Error>,
    /// The items of the sequences being built, innermost last; each collection takes its own
    /// when it ends, in a vector of exactly their number (growing a vector per collection would
    /// copy and waste memory a large file pays for in page faults).
    items: Vec<Node>,
    /// The entries of the mappings being built, likewise.
    entries: Vec<(Node, Node)>,
    /// The long scalar texts made so far, which an equal text shares (a loader on each thread
    /// keeps its own across the documents it loads).
    texts: SharedTexts,
}

/// A collection being built.
enum Frame {
    Sequence {
        start: usize,
        tag: Option<Tag>,
        anchor: usize,
        /// Where its items start in [`Loader::items`].
        first: usize,
    },
    Mapping {
        start: usize,
        tag: Option<Tag>,
        anchor: usize,
        /// Where its entries start in [`Loader::entries`].
        first: usize,
        key: Option<Node>,
        /// Key text -> index of its entry, built once a mapping grows past a few keys.
        index: Option<HashMap<String, usize>>,
        /// The mapping's one duplicate-key error (in [`Loader::errors`]): every key a defect
        /// repeats (a `---` glued to a line merges two objects) is listed in one message.
        duplicates: Option<Duplicates>,
    },
}

/// A document's tree while it is built from events.
#[derive(Default)]
struct Tree {
    stack: Vec<Frame>,
    anchors: HashMap<usize, (Node, usize)>,
    root: Option<Node>,
    documents_seen: usize,
}

impl Tree {
    fn finish(self) -> Option<Node> {
        self.root
            .filter(|node| !node.is_null() || node.tag().is_some())
    }
}

/// The repeated keys of one mapping.
struct Duplicates {
    /// Where the error is in [`Loader::errors`].
    error: usize,
    /// The first repeated key, and the others.
    first: String,
    others: Vec<String>,
    /// The line before the first repeated key ends with `---`.
    glued: bool,
}

impl Duplicates {
    fn message(&self) -> String {
        let mut message = format!("duplicate key `{}`", self.first);
        if !self.others.is_empty() {
            let others: Vec<String> = self.others.iter().map(|k| format!("`{k}`")).collect();
            message.push_str(&format!(
                "; this mapping also repeats {}",
                others.join(", ")
            ));
        }
        if self.glued {
            message.push_str(
                "; the line before ends with `---`: a document separator glued to the end of a line joins two objects into one, and the first one is lost",
            );
        }
        message
    }
}

/// True when the line before the one `at` is on ends with `---`.
fn glued_separator_before(chunk: &str, at: usize) -> bool {
    let Some(before) = chunk.get(..at) else {
        return false;
    };
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    before[..line_start].trim_end().ends_with("---")
}

/// Turns chunk-local saphyr markers into byte offsets in the parsed text.
struct Offsets<'t> {
    base: usize,
    chunk: &'t str,
    ascii: bool,
    line_starts: Option<Vec<usize>>,
}

impl Offsets<'_> {
    fn byte(&mut self, marker: &Marker) -> usize {
        if self.ascii {
            return self.base + marker.index().min(self.chunk.len());
        }
        let starts = self
            .line_starts
            .get_or_insert_with(|| line_starts(self.chunk));
        let line = marker.line().max(1) - 1;
        let Some(&line_start) = starts.get(line) else {
            return self.base + self.chunk.len();
        };
        let line_text = &self.chunk[line_start..];
        let within = line_text
            .char_indices()
            .nth(marker.col())
            .map_or(line_text.len(), |(i, _)| i);
        self.base + line_start + within
    }
}

impl<'m> Loader<'m> {
    fn new(limits: Limits, map: &'m OffsetMap) -> Self {
        Loader {
            limits,
            map,
            alias_nodes: 0,
            errors: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            texts: SharedTexts::default(),
        }
    }

    fn error(&mut self, kind: ErrorKind, message: String, span: Span) {
        self.errors.push(Error {
            kind,
            message,
            span: self.original(span),
            related: None,
        });
    }

    fn original(&self, span: Span) -> Span {
        Span::new(
            self.map.to_original(span.start),
            self.map.to_original(span.end),
        )
    }

    /// Parses one chunk; returns its root, or `None` after recording an error.
    fn load_document(&mut self, text: &str, chunk: Span) -> Option<Node> {
        let chunk_text = &text[chunk.start..chunk.end];
        let mut offsets = Offsets {
            base: chunk.start,
            chunk: chunk_text,
            ascii: chunk_text.is_ascii(),
            line_starts: None,
        };
        match self.build(chunk_text, &mut offsets) {
            Ok(root) => root,
            Err(error) => {
                self.errors.push(error);
                None
            }
        }
    }

    /// [`Self::load_document`] with the long texts of `texts` (a thread's table, kept across
    /// the loaders of its pieces), which it gives back with the texts this chunk added.
    fn load_document_sharing(
        &mut self,
        texts: &mut SharedTexts,
        text: &str,
        chunk: Span,
    ) -> Option<Node> {
        std::mem::swap(&mut self.texts, texts);
        let root = self.load_document(text, chunk);
        std::mem::swap(&mut self.texts, texts);
        root
    }

    /// Loads one chunk: with the fast reader when it can read it, otherwise with saphyr-parser
    /// (see [`fast`]), which gives the same tree.
    fn build(&mut self, chunk: &str, offsets: &mut Offsets<'_>) -> Result<Option<Node>, Error> {
        let errors = self.errors.len();
        let base = offsets.base;
        let mut tree = Tree::default();
        // What a document that failed left behind.
        self.items.clear();
        self.entries.clear();
        let read = fast::read(chunk, &mut |event, start, end| {
            self.add(&mut tree, chunk, base, event, base + start, base + end)
                .map(|_| ())
        });
        if read.is_ok() {
            return Ok(tree.finish());
        }
        self.errors.truncate(errors);
        self.items.clear();
        self.entries.clear();
        let mut tree = Tree::default();
        for event in Parser::new_from_str(chunk) {
            let (event, span) = event.map_err(|e| self.scan_error(&e, offsets))?;
            let start = offsets.byte(&span.start);
            let end = offsets.byte(&span.end);
            if !self.add(&mut tree, chunk, base, event, start, end)? {
                break;
            }
        }
        Ok(tree.finish())
    }

    /// Adds one event to the tree being built; `false` when the chunk's first document is done.
    fn add(
        &mut self,
        tree: &mut Tree,
        chunk: &str,
        base: usize,
        event: Event<'_>,
        start: usize,
        end: usize,
    ) -> Result<bool, Error> {
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => {
                return Ok(true);
            }
            Event::DocumentStart(_) => {
                tree.documents_seen += 1;
                if tree.documents_seen > 1 {
                    // A `...` end marker followed by more content: clusterctl's reader keeps
                    // only the first document of such a chunk, and so do we.
                    return Ok(false);
                }
                return Ok(true);
            }
            Event::Scalar(text, style, anchor, tag) => {
                // Copied, not moved: the scanner's string keeps room to grow (64 bytes
                // for a 40-byte image reference), and a moved one would keep it in the tree;
                // and a long text already seen is shared.
                let node = Node::scalar_text_in(
                    self.texts.text(&text),
                    style,
                    self.original(Span::new(start, end)),
                    tag.map(|t| tag_text(&t)),
                );
                if anchor != 0 {
                    tree.anchors.insert(anchor, (node.clone(), 1));
                }
                node
            }
            Event::Alias(id) => {
                let Some((node, count)) = tree.anchors.get(&id) else {
                    return Err(self.located(
                        ErrorKind::UnknownAlias,
                        "alias refers to an unknown anchor".into(),
                        Span::new(start, end),
                    ));
                };
                self.alias_nodes += count;
                if self.alias_nodes > self.limits.max_alias_nodes {
                    return Err(self.located(
                        ErrorKind::AliasBudget,
                        format!(
                            "alias expansion would create more than {} nodes; refusing to expand (is this a \"billion laughs\" file?)",
                            self.limits.max_alias_nodes
                        ),
                        Span::new(start, end),
                    ));
                }
                let mut node = node.clone();
                // The alias stands where it is written.
                node.set_span(self.original(Span::new(start, end)));
                node
            }
            Event::SequenceStart(anchor, tag) => {
                self.check_depth(&tree.stack, Span::new(start, end))?;
                tree.stack.push(Frame::Sequence {
                    start,
                    tag: tag.map(|t| tag_text(&t)),
                    anchor,
                    first: self.items.len(),
                });
                return Ok(true);
            }
            Event::MappingStart(anchor, tag) => {
                self.check_depth(&tree.stack, Span::new(start, end))?;
                tree.stack.push(Frame::Mapping {
                    start,
                    tag: tag.map(|t| tag_text(&t)),
                    anchor,
                    first: self.entries.len(),
                    key: None,
                    index: None,
                    duplicates: None,
                });
                return Ok(true);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = tree.stack.pop() else {
                    return Ok(true);
                };
                let (node, anchor) = match frame {
                    Frame::Sequence {
                        start: s,
                        tag,
                        anchor,
                        first,
                    } => {
                        let items = self.items.drain(first..).collect::<Items<Node>>();
                        let node = Node::new(
                            self.original(Span::new(s, end.max(s))),
                            tag,
                            Value::Sequence(items),
                        );
                        (node, anchor)
                    }
                    Frame::Mapping {
                        start: s,
                        tag,
                        anchor,
                        first,
                        ..
                    } => {
                        let entries = self.entries.drain(first..).collect();
                        let entries = resolve_merge_keys(entries).map_err(|span| Error {
                            kind: ErrorKind::BadMerge,
                            message: "the merge key `<<` needs a mapping or a list of mappings as its value (Kubernetes' YAML reader fails with \"map merge requires map or sequence of maps as the value\")".into(),
                            span,
                            related: None,
                        })?;
                        let node = Node::new(
                            self.original(Span::new(s, end.max(s))),
                            tag,
                            Value::Mapping(Mapping::new(entries)),
                        );
                        (node, anchor)
                    }
                };
                if anchor != 0 {
                    let count = node.count_nodes();
                    tree.anchors.insert(anchor, (node.clone(), count));
                }
                node
            }
        };
        match tree.stack.last_mut() {
            None => tree.root = Some(node),
            Some(Frame::Sequence { .. }) => self.items.push(node),
            Some(Frame::Mapping {
                first: entries_start,
                key,
                index,
                duplicates,
                ..
            }) => match key.take() {
                Some(k) => self.entries.push((k, node)),
                None => {
                    let entries = self.entries.get(*entries_start..).unwrap_or_default();
                    // Merge keys may repeat: go-yaml applies each in turn.
                    let first = match is_merge_key(&node) {
                        true => None,
                        false => find_duplicate(entries, index, &node),
                    };
                    if let Some(first) = first {
                        let name = node.scalar_text().unwrap_or_default().to_string();
                        match duplicates {
                            Some(found) => {
                                found.others.push(name);
                                let message = found.message();
                                if let Some(error) = self.errors.get_mut(found.error) {
                                    error.message = message;
                                }
                            }
                            None => {
                                let found = Duplicates {
                                    error: self.errors.len(),
                                    first: name.clone(),
                                    others: Vec::new(),
                                    glued: glued_separator_before(
                                        chunk,
                                        start.saturating_sub(base),
                                    ),
                                };
                                self.errors.push(Error {
                                    kind: ErrorKind::DuplicateKey,
                                    message: found.message(),
                                    span: node.span(),
                                    related: Some((first, format!("`{name}` first defined here"))),
                                });
                                *duplicates = Some(found);
                            }
                        }
                    }
                    *key = Some(node);
                }
            },
        }
        Ok(true)
    }

    fn check_depth(&self, stack: &[Frame], span: Span) -> Result<(), Error> {
        if stack.len() >= self.limits.max_depth {
            return Err(self.located(
                ErrorKind::TooDeep,
                format!(
                    "nesting deeper than {} levels; refusing to load",
                    self.limits.max_depth
                ),
                span,
            ));
        }
        Ok(())
    }

    fn located(&self, kind: ErrorKind, message: String, span: Span) -> Error {
        Error {
            kind,
            message,
            span: self.original(span),
            related: None,
        }
    }

    fn scan_error(&self, error: &ScanError, offsets: &mut Offsets<'_>) -> Error {
        let at = offsets.byte(error.marker());
        self.located(ErrorKind::Syntax, error.info().to_string(), Span::at(at))
    }
}

/// Looks for an earlier entry with the same scalar key; returns the earlier key's span.
fn find_duplicate(
    entries: &[(Node, Node)],
    index: &mut Option<HashMap<String, usize>>,
    key: &Node,
) -> Option<Span> {
    const INDEX_FROM: usize = 16;
    let text = key.scalar_text()?;
    if entries.len() < INDEX_FROM {
        return entries
            .iter()
            .find(|(k, _)| k.scalar_text() == Some(text))
            .map(|(k, _)| k.span());
    }
    let index = index.get_or_insert_with(|| {
        entries
            .iter()
            .enumerate()
            .filter_map(|(i, (k, _))| Some((k.scalar_text()?.to_string(), i)))
            .collect()
    });
    // Entries added since the index was built.
    for (i, (k, _)) in entries.iter().enumerate().skip(index.len()) {
        if let Some(t) = k.scalar_text() {
            index.entry(t.to_string()).or_insert(i);
        }
    }
    match index.get(text) {
        Some(&i) => entries.get(i).map(|(k, _)| k.span()),
        None => {
            index.insert(text.to_string(), entries.len());
            None
        }
    }
}

fn tag_text(tag: &saphyr_parser::Tag) -> Tag {
    if tag.handle == "!!" || tag.handle == "tag:yaml.org,2002:" {
        Tag::new(&format!("!!{}", tag.suffix))
    } else {
        Tag::new(&format!("{}{}", tag.handle, tag.suffix))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> YamlFile {
        parse_str(Arc::new(Source::new("t.yaml", text)), Limits::default())
    }

    fn position(file: &YamlFile, span: Span) -> (usize, usize) {
        let p = file.source.position(span.start);
        (p.line, p.column)
    }

    #[test]
    fn splits_documents_like_clusterctl_and_keeps_positions() {
        let file =
            load("a: 1\n---\n# only a comment\n---\nkind: Namespace\nmetadata:\n  name: x\n");
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        assert_eq!(file.documents.len(), 2);
        let ns = file.documents[1].root.as_ref().unwrap();
        assert_eq!(file.documents[1].index, 1);
        let name = ns.path(&["metadata", "name"]).unwrap();
        assert_eq!(name.as_str(), Some("x"));
        assert_eq!(position(&file, name.span()), (7, 9));
        let (key, _) = ns.path_entry(&["metadata", "name"]).unwrap();
        assert_eq!(position(&file, key.span()), (7, 3));
    }

    #[test]
    fn equal_long_texts_are_loaded_once_across_documents() {
        let description = "Standard object's metadata, described in every CustomResourceDefinition";
        let text = format!(
            "description: {description}\n---\nspec:\n  description: |-\n    {description}\n  \"{description}\": {description}\n"
        );
        let on_two_threads = split::parse_str_on_two_threads(
            Arc::new(Source::new("t.yaml", text.as_str())),
            Limits::default(),
        );
        // Each thread of the two-thread loader has its own table: documents loaded on different
        // threads may keep a copy each.
        for (file, across_documents) in [(load(&text), true), (on_two_threads, false)] {
            assert!(file.errors.is_empty(), "{:?}", file.errors);
            let root = |i: usize| file.documents[i].root.as_ref().expect("a root");
            let first = root(0).path_str(&["description"]).expect("plain");
            let literal = root(1).path_str(&["spec", "description"]).expect("literal");
            let (key, value) = root(1)
                .as_mapping()
                .and_then(|m| m.get("spec")?.as_mapping()?.entries.get(1))
                .expect("an entry with a quoted key");
            let (key, value) = (key.as_str().expect("key"), value.as_str().expect("value"));
            assert_eq!(first, description);
            for other in [literal, key, value] {
                assert_eq!(other, description);
                // Literal, quoted, key or value: one text in memory.
                assert_eq!(other.as_ptr(), literal.as_ptr());
            }
            if across_documents {
                assert_eq!(first.as_ptr(), literal.as_ptr());
            }
        }
    }

    #[test]
    fn separator_followed_by_text_is_an_error() {
        let file = load("a: 1\n--- !tag\nb: 2\n");
        assert_eq!(file.errors.len(), 1);
        assert_eq!(file.errors[0].kind, ErrorKind::Separator);
        assert_eq!(position(&file, file.errors[0].span), (2, 5));
        // A comment after the marker is fine.
        assert!(load("a: 1\n--- # next\nb: 2\n").errors.is_empty());
    }

    #[test]
    fn duplicate_key_is_reported_at_the_second_key_naming_the_first() {
        let file = load("metadata:\n  name: a\n  labels: {}\n  name: b\n");
        assert_eq!(file.errors.len(), 1);
        let error = &file.errors[0];
        assert_eq!(error.kind, ErrorKind::DuplicateKey);
        assert!(error.message.contains("`name`"));
        assert_eq!(position(&file, error.span), (4, 3));
        let (first, _) = error.related.clone().unwrap();
        assert_eq!(position(&file, first), (2, 3));
    }

    #[test]
    fn duplicate_keys_in_large_mappings_are_found() {
        let mut text: String = (0..40).map(|i| format!("k{i}: {i}\n")).collect();
        text.push_str("k7: again\n");
        let file = load(&text);
        assert_eq!(file.errors.len(), 1);
        assert_eq!(position(&file, file.errors[0].span), (41, 1));
        assert_eq!(
            position(&file, file.errors[0].related.clone().unwrap().0),
            (8, 1)
        );
    }

    #[test]
    fn tab_indentation_is_a_positioned_syntax_error() {
        let file = load("metadata:\n\tname: x\n");
        assert_eq!(file.errors.len(), 1);
        assert_eq!(file.errors[0].kind, ErrorKind::Syntax);
        assert!(
            file.errors[0].message.contains("tab"),
            "{}",
            file.errors[0].message
        );
        assert_eq!(position(&file, file.errors[0].span).0, 2);
        assert!(file.documents[0].root.is_none());
    }

    #[test]
    fn an_error_in_one_document_leaves_the_others() {
        let file = load("a: [1, 2\n---\nb: 2\n");
        assert_eq!(file.errors.len(), 1);
        assert!(file.documents[0].root.is_none());
        assert_eq!(
            file.documents[1].root.as_ref().unwrap().path_str(&["b"]),
            None
        );
        assert!(file.documents[1].root.as_ref().unwrap().get("b").is_some());
    }

    #[test]
    fn a_text_of_512_mib_or_more_is_refused() {
        // Zero bytes: the allocation is the kernel's shared zero page until written to.
        let text = String::from_utf8(vec![0; MAX_OFFSET + 1]).unwrap();
        let source = Arc::new(Source::new("huge.yaml", text));
        for file in [
            parse_str(source.clone(), Limits::default()),
            parse_str_on_two_threads(source.clone(), Limits::default()),
        ] {
            assert!(file.documents.is_empty());
            assert_eq!(file.errors.len(), 1);
            assert_eq!(file.errors[0].kind, ErrorKind::TooLarge);
            assert_eq!(
                file.errors[0].message,
                "the file is 536870912 bytes; capkg loads YAML files smaller than 512 MiB"
            );
        }
        assert!(too_large(&"a".repeat(1000)).is_none());
    }

    #[test]
    fn invalid_utf8_is_located() {
        let mut bytes = b"a: caf".to_vec();
        bytes.push(0xe9);
        bytes.extend_from_slice(b"\n");
        let file = parse_file("bad.yaml", bytes, Limits::default());
        assert_eq!(file.errors[0].kind, ErrorKind::InvalidUtf8);
        assert_eq!(file.errors[0].span.start, 6);
        assert!(file.documents.is_empty());
    }

    #[test]
    fn billion_laughs_is_refused_quickly() {
        let mut text = String::from(
            "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
        );
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        for pair in names.windows(2) {
            let refs = vec![format!("*{}", pair[0]); 9].join(",");
            text.push_str(&format!("{}: &{} [{}]\n", pair[1], pair[1], refs));
        }
        let started = std::time::Instant::now();
        let file = load(&text);
        assert!(
            file.errors.iter().any(|e| e.kind == ErrorKind::AliasBudget),
            "{:?}",
            file.errors
        );
        // Generous bound: the budget stops the expansion long before it grows.
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn small_aliases_expand() {
        let file = load("base: &b {x: 1}\nother: *b\n");
        assert!(file.errors.is_empty());
        let root = file.documents[0].root.as_ref().unwrap();
        assert!(root.path(&["other", "x"]).is_some());
    }

    #[test]
    fn deep_nesting_is_refused_without_overflowing_the_stack() {
        let text = "- ".repeat(100_000) + "x\n";
        let file = load(&text);
        assert!(
            file.errors
                .iter()
                .any(|e| matches!(e.kind, ErrorKind::TooDeep | ErrorKind::Syntax))
        );
    }

    #[test]
    fn unterminated_flow_and_empty_files() {
        let file = load("args: [--foo, --bar\n");
        assert_eq!(file.errors.len(), 1);
        let empty = load("");
        assert!(empty.documents.is_empty() && empty.errors.is_empty());
        let only_null = load("---\nnull\n");
        assert_eq!(only_null.documents.len(), 1);
        assert!(only_null.documents[0].root.is_none());
    }

    #[test]
    fn positions_after_multibyte_characters_are_byte_offsets() {
        let file = load("a: \"héllo\"\nb: x\n");
        let root = file.documents[0].root.as_ref().unwrap();
        let b = root.get("b").unwrap();
        assert_eq!(&file.source.text()[b.span().start..b.span().end], "x");
    }

    #[test]
    fn cr_only_line_endings_are_an_error_and_every_object_is_still_loaded() {
        let text = "kind: A\r---\rkind: B\r---\rkind: C\r";
        let file = load(text);
        let errors: Vec<_> = file.errors.iter().map(|e| e.kind).collect();
        assert_eq!(errors, [ErrorKind::LineEndings]);
        assert_eq!(file.errors[0].span, Span::new(7, 8));
        assert!(file.errors[0].message.contains("2 `---` separator(s)"));
        assert_eq!(file.documents.len(), 3);
        let kinds: Vec<_> = file.roots().filter_map(|r| r.path_str(&["kind"])).collect();
        assert_eq!(kinds, ["A", "B", "C"]);
        // CRLF is what Windows editors write; clusterctl's reader handles it.
        let crlf = load("kind: A\r\n---\r\nkind: B\r\n");
        assert!(crlf.errors.is_empty(), "{:?}", crlf.errors);
        assert_eq!(crlf.documents.len(), 2);
        // The two-thread loader gives the same.
        let two = parse_str_on_two_threads(Arc::new(Source::new("t", text)), Limits::default());
        assert_eq!(two.errors, file.errors);
        assert_eq!(two.documents.len(), 3);
    }

    #[test]
    fn a_nul_byte_is_an_error_at_its_place_and_the_rest_is_still_checked() {
        let file = load("a: 1\nb: x\0y\nc: [unclosed\n");
        let kinds: Vec<_> = file.errors.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, [ErrorKind::NulByte, ErrorKind::Syntax]);
        assert_eq!(position(&file, file.errors[0].span), (2, 5));
        assert_eq!(file.errors[0].span.len(), 1);
        // In a document of comments only, too.
        let comment = load("a: 1\n---\n# \0\n");
        assert_eq!(comment.errors.len(), 1);
        assert_eq!(comment.errors[0].kind, ErrorKind::NulByte);
    }

    #[test]
    fn merge_keys_are_resolved_as_go_yaml_v2_resolves_them() {
        let file = load(
            "base: &b {p: 1, q: 2}\nother: &o {q: 20, r: 30}\nm:\n  <<: [*b, *o]\n  r: 3\n  s: 4\n",
        );
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        let root = file.documents[0].root.as_ref().unwrap();
        let m = root.get("m").unwrap().as_mapping().unwrap();
        let keys: Vec<_> = m
            .iter()
            .map(|(k, _, v)| (k, v.scalar_text().unwrap()))
            .collect();
        // The earlier mapping wins within the list, a key written after the merge wins over it.
        assert_eq!(keys, [("q", "2"), ("r", "3"), ("p", "1"), ("s", "4")]);
        // A merge key is not a duplicate key, even twice; a key written twice still is.
        assert!(
            load("a: &a {x: 1}\nm:\n  <<: *a\n  <<: {y: 2}\n")
                .errors
                .is_empty()
        );
        let twice = load("a: &a {x: 1}\nm:\n  <<: *a\n  z: 1\n  z: 2\n");
        assert_eq!(twice.errors[0].kind, ErrorKind::DuplicateKey);
        // A quoted `<<` is an ordinary key.
        let quoted = load("'<<': 1\n");
        assert!(
            quoted.documents[0]
                .root
                .as_ref()
                .unwrap()
                .get("<<")
                .is_some()
        );
        // Go refuses to merge a scalar.
        let bad = load("m:\n  <<: [{a: 1}, 2]\n");
        assert_eq!(bad.errors[0].kind, ErrorKind::BadMerge);
        assert_eq!(position(&bad, bad.errors[0].span), (2, 16));
    }

    #[test]
    fn a_glued_separator_is_one_duplicate_key_error_naming_the_cause() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n";
        let file = load(text);
        assert_eq!(file.errors.len(), 1, "{:?}", file.errors);
        let error = &file.errors[0];
        assert_eq!(error.kind, ErrorKind::DuplicateKey);
        assert_eq!(position(&file, error.span), (5, 1));
        assert!(
            error.message.contains("also repeats `kind`, `metadata`"),
            "{}",
            error.message
        );
        assert!(
            error.message.contains("ends with `---`"),
            "{}",
            error.message
        );
        // Two defects in two mappings are two errors.
        let two = load("a:\n  x: 1\n  x: 2\nb:\n  y: 1\n  y: 2\n");
        assert_eq!(two.errors.len(), 2);
        assert!(!two.errors[0].message.contains("---"));
    }

    #[test]
    fn rewritten_text_maps_positions_back() {
        // Original: "a: [${K}]\nb: 1\n"; rewritten with `${K}` removed.
        let original = "a: [${K}]\nb: 1\n";
        let rewritten = "a: []\nb: 1\n";
        let mut map = OffsetMap::identity();
        map.push_copy(0, 0, 4);
        map.push_replacement(4, 4);
        map.push_copy(4, 8, rewritten.len() - 4);
        let source = Arc::new(Source::new("t", original));
        let file = parse_rewritten(source, Some((rewritten, &map)), Limits::default());
        let b = file.documents[0].root.as_ref().unwrap().get("b").unwrap();
        assert_eq!(&original[b.span().start..b.span().end], "1");
    }
}
