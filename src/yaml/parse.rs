//! Loading: bytes -> documents -> node trees, with positions and clear errors.
//!
//! Documents are split the way clusterctl splits them (apimachinery's YAML reader): a line that
//! starts with `---` ends a document, and only whitespace or a comment may follow the marker. Each
//! document is then parsed on its own, so a syntax error in one document does not hide the others.
//!
//! The tree is built from saphyr-parser's events with an explicit stack: no recursion (a file of
//! 100,000 nested sequences cannot overflow the stack), a depth cap, duplicate keys reported at the
//! second key with the first one named, and aliases expanded under a node budget, so that a
//! "billion laughs" file is refused after a bounded amount of work.

use std::collections::HashMap;
use std::sync::Arc;

use saphyr_parser::{Event, Marker, Parser, ScanError};

mod split;

pub use split::parse_str_on_two_threads;

use super::node::{Mapping, Node, Value};
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
    let identity = OffsetMap::identity();
    let (text, map) = rewritten.unwrap_or((source.text(), &identity));
    let mut loader = Loader::new(limits, map);
    let mut documents = Vec::new();
    for chunk in split_documents(text, &mut loader) {
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
}

/// A collection being built.
enum Frame {
    Sequence {
        start: usize,
        tag: Option<Box<str>>,
        anchor: usize,
        /// Where its items start in [`Loader::items`].
        first: usize,
    },
    Mapping {
        start: usize,
        tag: Option<Box<str>>,
        anchor: usize,
        /// Where its entries start in [`Loader::entries`].
        first: usize,
        key: Option<Node>,
        /// Key text -> index of its entry, built once a mapping grows past a few keys.
        index: Option<HashMap<String, usize>>,
    },
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

    fn build(&mut self, chunk: &str, offsets: &mut Offsets<'_>) -> Result<Option<Node>, Error> {
        // What a document that failed left behind.
        self.items.clear();
        self.entries.clear();
        let mut stack: Vec<Frame> = Vec::new();
        let mut anchors: HashMap<usize, (Node, usize)> = HashMap::new();
        let mut root: Option<Node> = None;
        let mut documents_seen = 0;
        for event in Parser::new_from_str(chunk) {
            let (event, span) = event.map_err(|e| self.scan_error(&e, offsets))?;
            let start = offsets.byte(&span.start);
            let end = offsets.byte(&span.end);
            let node = match event {
                Event::StreamStart | Event::StreamEnd | Event::Nothing | Event::DocumentEnd => {
                    continue;
                }
                Event::DocumentStart(_) => {
                    documents_seen += 1;
                    if documents_seen > 1 {
                        // A `...` end marker followed by more content: clusterctl's reader keeps
                        // only the first document of such a chunk, and so do we.
                        break;
                    }
                    continue;
                }
                Event::Scalar(text, style, anchor, tag) => {
                    let node = Node {
                        span: self.original(Span::new(start, end)),
                        tag: tag.map(|t| tag_text(&t)),
                        value: Value::Scalar {
                            text: text.into_owned(),
                            style,
                        },
                    };
                    if anchor != 0 {
                        anchors.insert(anchor, (node.clone(), 1));
                    }
                    node
                }
                Event::Alias(id) => {
                    let Some((node, count)) = anchors.get(&id) else {
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
                    node.span = self.original(Span::new(start, end));
                    node
                }
                Event::SequenceStart(anchor, tag) => {
                    self.check_depth(&stack, Span::new(start, end))?;
                    stack.push(Frame::Sequence {
                        start,
                        tag: tag.map(|t| tag_text(&t)),
                        anchor,
                        first: self.items.len(),
                    });
                    continue;
                }
                Event::MappingStart(anchor, tag) => {
                    self.check_depth(&stack, Span::new(start, end))?;
                    stack.push(Frame::Mapping {
                        start,
                        tag: tag.map(|t| tag_text(&t)),
                        anchor,
                        first: self.entries.len(),
                        key: None,
                        index: None,
                    });
                    continue;
                }
                Event::SequenceEnd | Event::MappingEnd => {
                    let Some(frame) = stack.pop() else {
                        continue;
                    };
                    let (node, anchor) = match frame {
                        Frame::Sequence {
                            start: s,
                            tag,
                            anchor,
                            first,
                        } => {
                            let items = self.items.drain(first..).collect();
                            let node = Node {
                                span: self.original(Span::new(s, end.max(s))),
                                tag,
                                value: Value::Sequence(items),
                            };
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
                            let node = Node {
                                span: self.original(Span::new(s, end.max(s))),
                                tag,
                                value: Value::Mapping(Mapping { entries }),
                            };
                            (node, anchor)
                        }
                    };
                    if anchor != 0 {
                        let count = node.count_nodes();
                        anchors.insert(anchor, (node.clone(), count));
                    }
                    node
                }
            };
            match stack.last_mut() {
                None => root = Some(node),
                Some(Frame::Sequence { .. }) => self.items.push(node),
                Some(Frame::Mapping {
                    first: entries_start,
                    key,
                    index,
                    ..
                }) => match key.take() {
                    Some(k) => self.entries.push((k, node)),
                    None => {
                        let entries = self.entries.get(*entries_start..).unwrap_or_default();
                        if let Some(first) = find_duplicate(entries, index, &node) {
                            let name = node.scalar_text().unwrap_or_default();
                            let first_pos = first;
                            self.errors.push(Error {
                                kind: ErrorKind::DuplicateKey,
                                message: format!("duplicate key `{name}`"),
                                span: node.span,
                                related: Some((first_pos, format!("`{name}` first defined here"))),
                            });
                        }
                        *key = Some(node);
                    }
                },
            }
        }
        Ok(root.filter(|node| !node.is_null() || node.tag.is_some()))
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
            .map(|(k, _)| k.span);
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
        Some(&i) => entries.get(i).map(|(k, _)| k.span),
        None => {
            index.insert(text.to_string(), entries.len());
            None
        }
    }
}

fn tag_text(tag: &saphyr_parser::Tag) -> Box<str> {
    if tag.handle == "!!" || tag.handle == "tag:yaml.org,2002:" {
        format!("!!{}", tag.suffix).into()
    } else {
        format!("{}{}", tag.handle, tag.suffix).into()
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
        assert_eq!(position(&file, name.span), (7, 9));
        let (key, _) = ns.path_entry(&["metadata", "name"]).unwrap();
        assert_eq!(position(&file, key.span), (7, 3));
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
        assert_eq!(&file.source.text()[b.span.start..b.span.end], "x");
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
        assert_eq!(&original[b.span.start..b.span.end], "1");
    }
}
