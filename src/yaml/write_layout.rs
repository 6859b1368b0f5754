//! Writes a [`Node`] tree in the maintainer's layout: keys in the order written, block style,
//! two-space indentation, sequences not indented under their key (`key:` then `- item`, as
//! kustomize and kubectl write them and as the provider components files in the corpus are
//! written), and every value meaning to Kubernetes' YAML 1.1 readers (go-yaml v2) what it meant
//! in the source.
//!
//! Scalars:
//! - a plain scalar is written as written when it can stand plain (its text, resolution and tag
//!   then read back identically: `on` stays the boolean, `0755` the octal number, `2001-12-14`
//!   the timestamp); a plain string that cannot (text built by capkg, or a multi-line plain
//!   scalar) is quoted or written as a literal block;
//! - quoted scalars keep their quotes: single quotes while the text allows them, double quotes
//!   otherwise;
//! - block scalars (`|`, `|-`, `|+`, `>`) become literal blocks with the same content: the
//!   chomping indicator follows the trailing line breaks, and an indentation indicator is added
//!   when the first line starts with a space; text a literal block cannot carry (control
//!   characters, U+0085, U+2028, U+2029, U+FEFF) is double-quoted with escapes instead;
//! - tags are written before their node; an empty plain key (a null key) is written `~`.
//!
//! Comments are not part of the tree, so this writer drops them; callers that must keep comments
//! patch the source text through spans instead. Flow collections are written in block style
//! (empty ones as `{}` and `[]`). Documents are joined with `---` lines. The writer walks the tree
//! with an explicit stack, so nesting depth costs heap, not call stack; output is deterministic.
//!
//! [`write_documents_read_back`] also says what a YAML reader loads from the text written, without
//! reading it: the writer notes where every node of a document went, and the nodes themselves
//! become the loaded tree (spans into the new text, the styles written). `capkg assemble` lints its
//! output that way instead of parsing two megabytes a second time. The spans follow saphyr-parser's
//! conventions exactly (a block collection or literal block ends where the next token starts; an
//! indentless sequence starts after its first `- `), which tests hold against a fresh parse of
//! every corpus components file, the tricky-value tables and generated trees. Trees the conventions
//! are not established for (tags, explicit `? key` entries, a document that is not a mapping,
//! duplicate keys, nesting the loader refuses) get no read-back: the caller parses.

use std::collections::HashSet;

use super::node::{Node, ScalarStyle, Tag, Value};
use super::parse::{Document, Limits};
use super::source::Span;

mod scalars;
mod trace;

pub(crate) use scalars::double_quoted;
use scalars::{Form, char_count, push_doubling_quotes, push_single_quoted, scalar_form};
use trace::Tracer;
pub use trace::read_back_documents;

/// Longest key written as an implicit (`key: value`) key; YAML allows 1024 characters.
const MAX_IMPLICIT_KEY: usize = 1024;

/// go-yaml v2's preferred line width, past which plain and single-quoted scalars are folded.
const BEST_WIDTH: usize = 80;

/// One document, ending with a line break.
pub fn write_document(node: &Node) -> String {
    let mut writer = Writer::new(false);
    writer.run(node);
    writer.out
}

/// Several documents, each ending with a line break, separated by `---` lines.
pub fn write_documents<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> String {
    let mut writer = Writer::new(false);
    writer.write_all(nodes);
    writer.out
}

/// Writes `nodes` as [`write_documents`] does, into `buffer` (emptied first: memory a caller is
/// done with, such as a large source text, is cheaper to write than fresh memory), and makes each
/// node what a YAML reader loads from the text: the span and the style it was written with.
/// Returns the text and each document's span in it; `None` when the tree is outside the
/// conventions the read-back follows (see the module documentation), and the caller must parse
/// the text: the nodes are then partly moved.
///
/// Each document is read back as soon as it is written, so the writer's notes of where its nodes
/// went are held for one document at a time: 8 bytes a node of the largest, not of the whole
/// tree (benches/README.md, "Memory and density").
pub fn write_documents_as_read(nodes: &mut [Node], buffer: String) -> (String, Option<Vec<Span>>) {
    let mut writer = Writer::new(true);
    writer.out = buffer;
    writer.out.clear();
    writer.out.reserve(nodes.len() * 64);
    for (index, node) in nodes.iter_mut().enumerate() {
        writer.write_one(index, node);
        if let Some(tracer) = &mut writer.tracer
            && !tracer.read_back(node)
        {
            // The caller parses the text: the rest is written without notes (the same bytes).
            writer.tracer = None;
        }
    }
    let spans = writer.tracer.and_then(Tracer::finish);
    (writer.out, spans)
}

/// Writes `nodes` as [`write_documents`] does and returns the text with the documents a YAML
/// reader loads from it (what [`super::parse_str`] returns for the text, its errors being none),
/// built from the nodes themselves; `None` when the tree is outside the conventions the read-back
/// follows, and the caller must parse the text.
pub fn write_documents_read_back(mut nodes: Vec<Node>) -> (String, Option<Vec<Document>>) {
    let (text, spans) = write_documents_as_read(&mut nodes, String::new());
    let documents = spans.and_then(|spans| read_back_documents(nodes, spans, 0, 0));
    (text, documents)
}

/// Where a node is written: at the start of a document, after `key:`, or after an indicator
/// (`-`, `?`, `:`) whose column is given. Children of indicator slots start two columns in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    Root,
    /// After `key:` with the key at this column.
    MapValue(usize),
    /// After `-`, `?` or `:` at this column.
    Indicator(usize),
}

impl Slot {
    /// The column a block scalar's content and an indicator slot's children are written at.
    fn child_column(self) -> usize {
        match self {
            Slot::Root => 0,
            Slot::MapValue(column) | Slot::Indicator(column) => column + 2,
        }
    }

    /// The column of a block scalar's content: two in from the slot's indicator or key (YAML 1.1
    /// readers count an indentation indicator from there), and two at the document root.
    fn block_column(self) -> usize {
        match self {
            Slot::Root => 2,
            slot => slot.child_column(),
        }
    }

    /// Text between what is already on the line and the node's own text.
    fn separator(self) -> &'static str {
        match self {
            Slot::Root => "",
            _ => " ",
        }
    }
}

/// How the start of a sequence is known from its first item's `-` (traced writing only).
#[derive(Debug, Clone, Copy)]
enum SequenceStart {
    /// Not the first item, or not traced.
    None,
    /// A sequence under a key (`key:` then `- item`): it starts after `- `.
    Indentless(usize),
    /// A sequence in an indicator slot (`- - item`): it starts at the `-`.
    AtDash(usize),
}

enum Task<'n> {
    Node {
        node: &'n Node,
        slot: Slot,
        /// Collections around the node.
        depth: usize,
    },
    /// A mapping entry whose key starts at `column`; `inline` when the line already holds an
    /// indicator (`- key: value`).
    Entry {
        key: &'n Node,
        value: &'n Node,
        column: usize,
        inline: bool,
        depth: usize,
        /// The record of the mapping, for its first entry (traced writing only).
        mapping: Option<usize>,
    },
    /// A sequence item whose `-` is at `column`.
    Item {
        node: &'n Node,
        column: usize,
        inline: bool,
        depth: usize,
        start: SequenceStart,
    },
    /// The `:` line of an explicit (`? key`) entry.
    ExplicitValue {
        value: &'n Node,
        column: usize,
        depth: usize,
    },
    /// The end of a block collection's children (traced writing only).
    Close(usize),
}

struct Writer {
    out: String,
    tracer: Option<Tracer>,
}

impl Writer {
    /// Writes `nodes` as documents separated by `---` lines, tracing each when tracing.
    fn write_all<'a>(&mut self, nodes: impl IntoIterator<Item = &'a Node>) {
        for (index, node) in nodes.into_iter().enumerate() {
            self.write_one(index, node);
        }
    }

    /// The document at `index` of those written: after a `---` line unless it is the first.
    fn write_one(&mut self, index: usize, node: &Node) {
        if index > 0 {
            self.out.push_str("---\n");
        }
        let start = self.out.len();
        if let Some(tracer) = &mut self.tracer
            && !matches!(node.value(), Value::Mapping(_))
        {
            tracer.supported = false;
        }
        self.run(node);
        let end = self.out.len();
        if let Some(tracer) = &mut self.tracer {
            tracer.end_document(start, end);
        }
    }

    fn new(traced: bool) -> Self {
        Writer {
            out: String::new(),
            tracer: traced.then(|| Tracer {
                records: Vec::new(),
                pending: Vec::new(),
                documents: Vec::new(),
                supported: true,
            }),
        }
    }

    fn run(&mut self, root: &Node) {
        let mut tasks = vec![Task::Node {
            node: root,
            slot: Slot::Root,
            depth: 0,
        }];
        while let Some(task) = tasks.pop() {
            match task {
                Task::Node { node, slot, depth } => self.node(node, slot, depth, &mut tasks),
                Task::Entry {
                    key,
                    value,
                    column,
                    inline,
                    depth,
                    mapping,
                } => self.entry(key, value, column, inline, depth, mapping, &mut tasks),
                Task::Item {
                    node,
                    column,
                    inline,
                    depth,
                    start,
                } => {
                    self.start_line(column, inline);
                    let dash = self.token();
                    self.out.push('-');
                    if let Some(tracer) = &mut self.tracer {
                        match start {
                            SequenceStart::None => {}
                            SequenceStart::Indentless(sequence) => {
                                let gap = if is_empty_plain(node) { 1 } else { 2 };
                                tracer.set_start(sequence, dash + gap);
                            }
                            SequenceStart::AtDash(sequence) => tracer.set_start(sequence, dash),
                        }
                    }
                    tasks.push(Task::Node {
                        node,
                        slot: Slot::Indicator(column),
                        depth,
                    });
                }
                Task::ExplicitValue {
                    value,
                    column,
                    depth,
                } => {
                    self.start_line(column, false);
                    self.token();
                    self.out.push(':');
                    tasks.push(Task::Node {
                        node: value,
                        slot: Slot::Indicator(column),
                        depth,
                    });
                }
                Task::Close(index) => {
                    if let Some(tracer) = &mut self.tracer {
                        tracer.pending.push((index, None));
                    }
                }
            }
        }
    }

    /// Notes that a token starts at the end of the output; returns that offset.
    fn token(&mut self) -> usize {
        let offset = self.out.len();
        if let Some(tracer) = &mut self.tracer
            && !tracer.pending.is_empty()
        {
            tracer.token(offset);
        }
        offset
    }

    fn unsupported(&mut self) {
        if let Some(tracer) = &mut self.tracer {
            tracer.supported = false;
        }
    }

    fn start_line(&mut self, column: usize, inline: bool) {
        if inline {
            self.out.push(' ');
        } else {
            self.indent(column);
        }
    }

    fn indent(&mut self, column: usize) {
        const SPACES: &str = "                                                                ";
        let mut left = column;
        while left > 0 {
            let n = left.min(SPACES.len());
            self.out.push_str(&SPACES[..n]);
            left -= n;
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn entry<'n>(
        &mut self,
        key: &'n Node,
        value: &'n Node,
        column: usize,
        inline: bool,
        depth: usize,
        mapping: Option<usize>,
        tasks: &mut Vec<Task<'n>>,
    ) {
        self.start_line(column, inline);
        let record = self.tracer.as_mut().map(|tracer| {
            let style = key.scalar_style().unwrap_or(ScalarStyle::Plain);
            tracer.record(style)
        });
        let start = self.token();
        if self.push_implicit_key(key, record) {
            let end = self.out.len();
            if let (Some(tracer), Some(record)) = (&mut self.tracer, record) {
                tracer.set(record, Span::new(start, end));
                if let Some(mapping) = mapping {
                    tracer.set_start(mapping, start);
                }
            }
            self.out.push(':');
            tasks.push(Task::Node {
                node: value,
                slot: Slot::MapValue(column),
                depth,
            });
        } else {
            self.unsupported();
            self.out.push('?');
            tasks.push(Task::ExplicitValue {
                value,
                column,
                depth,
            });
            tasks.push(Task::Node {
                node: key,
                slot: Slot::Indicator(column),
                depth,
            });
        }
    }

    /// Writes a scalar key that can be written as `key:`; writes nothing and returns false when
    /// the key needs the explicit `? key` form (a collection, or text longer than YAML allows an
    /// implicit key).
    fn push_implicit_key(&mut self, key: &Node, record: Option<usize>) -> bool {
        if !matches!(key.value(), Value::Scalar { .. }) {
            return false;
        }
        let start = self.out.len();
        if let Some(tag) = key.tag().map(Tag::as_str) {
            self.unsupported();
            push_tag(&mut self.out, tag);
            self.out.push(' ');
        }
        let form = scalar_form(key, true);
        let style = match form {
            Form::Plain("") => {
                if let (Some(tracer), Some(record)) = (&mut self.tracer, record)
                    && let Some(record) = tracer.records.get_mut(record)
                {
                    record.set_tilde();
                }
                self.out.push('~');
                ScalarStyle::Plain
            }
            Form::Plain(text) => {
                self.out.push_str(text);
                ScalarStyle::Plain
            }
            Form::Double(text) => {
                self.out.push_str(&text);
                ScalarStyle::DoubleQuoted
            }
            Form::Single(text) => {
                push_single_quoted(&mut self.out, text);
                ScalarStyle::SingleQuoted
            }
            Form::Block { .. } => {
                self.out.truncate(start);
                return false;
            }
        };
        let written = self.out.len() - start;
        if written > MAX_IMPLICIT_KEY && self.out[start..].chars().count() > MAX_IMPLICIT_KEY {
            self.out.truncate(start);
            return false;
        }
        if let (Some(tracer), Some(record)) = (&mut self.tracer, record)
            && let Some(record) = tracer.records.get_mut(record)
        {
            record.set_style(style);
        }
        true
    }

    fn node<'n>(&mut self, node: &'n Node, slot: Slot, depth: usize, tasks: &mut Vec<Task<'n>>) {
        let record = self
            .tracer
            .as_mut()
            .map(|tracer| tracer.record(node.scalar_style().unwrap_or(ScalarStyle::Plain)));
        let tag = node.tag().map(Tag::as_str);
        if tag.is_some() {
            self.unsupported();
        }
        match node.value() {
            Value::Scalar { .. } => self.scalar(node, slot, tag, record),
            Value::Mapping(mapping) => {
                self.check_collection(depth);
                if mapping.entries.is_empty() {
                    self.empty_collection(slot, tag, "{}", record);
                    return;
                }
                if self.tracer.is_some() && has_duplicate_keys(&mapping.entries) {
                    self.unsupported();
                }
                let (column, first_inline) = self.open_collection(slot, tag, false);
                if let Some(record) = record {
                    tasks.push(Task::Close(record));
                }
                for (index, (key, value)) in mapping.entries.iter().enumerate().rev() {
                    tasks.push(Task::Entry {
                        key,
                        value,
                        column,
                        inline: index == 0 && first_inline,
                        depth: depth + 1,
                        mapping: record.filter(|_| index == 0),
                    });
                }
            }
            Value::Sequence(items) => {
                self.check_collection(depth);
                if items.is_empty() {
                    self.empty_collection(slot, tag, "[]", record);
                    return;
                }
                let (column, first_inline) = self.open_collection(slot, tag, true);
                if let Some(record) = record {
                    tasks.push(Task::Close(record));
                }
                let start = match (record, slot) {
                    (None, _) => SequenceStart::None,
                    (Some(record), Slot::MapValue(_)) => SequenceStart::Indentless(record),
                    (Some(record), _) => SequenceStart::AtDash(record),
                };
                for (index, item) in items.iter().enumerate().rev() {
                    tasks.push(Task::Item {
                        node: item,
                        column,
                        inline: index == 0 && first_inline,
                        depth: depth + 1,
                        start: if index == 0 {
                            start
                        } else {
                            SequenceStart::None
                        },
                    });
                }
            }
        }
    }

    /// A collection nested as deep as the loader refuses cannot be read back.
    fn check_collection(&mut self, depth: usize) {
        if depth >= Limits::default().max_depth {
            self.unsupported();
        }
    }

    fn scalar(&mut self, node: &Node, slot: Slot, tag: Option<&str>, record: Option<usize>) {
        let form = scalar_form(node, false);
        // At the document root YAML readers disagree on what an indentation indicator
        // counts from, so such a block is double-quoted instead.
        let form = match form {
            Form::Block { text, header } if slot == Slot::Root && header.contains('2') => {
                Form::Double(double_quoted(text))
            }
            form => form,
        };
        let mut written = false;
        if let Some(tag) = tag {
            self.out.push_str(slot.separator());
            push_tag(&mut self.out, tag);
            written = true;
        }
        let separator = if written { " " } else { slot.separator() };
        let continuation = slot.block_column();
        let (style, span) = match form {
            Form::Plain("") => {
                // Nothing is written; the loader places the empty scalar at the `:` of its key,
                // or just after the `-` of its item.
                let at = match slot {
                    Slot::MapValue(_) => self.out.len().saturating_sub(1),
                    _ => self.out.len(),
                };
                (ScalarStyle::Plain, Span::at(at))
            }
            Form::Plain(text) => {
                self.out.push_str(separator);
                let start = self.token();
                self.push_folded(text, continuation, false);
                (ScalarStyle::Plain, Span::new(start, self.out.len()))
            }
            Form::Single(text) => {
                self.out.push_str(separator);
                let start = self.token();
                self.push_folded(text, continuation, true);
                (ScalarStyle::SingleQuoted, Span::new(start, self.out.len()))
            }
            Form::Double(text) => {
                self.out.push_str(separator);
                let start = self.token();
                self.out.push_str(&text);
                (ScalarStyle::DoubleQuoted, Span::new(start, self.out.len()))
            }
            Form::Block { header, text } => {
                self.out.push_str(separator);
                let header_at = self.token();
                self.out.push_str(header);
                self.out.push('\n');
                let content = self.block_lines(text, continuation);
                if let (Some(tracer), Some(record)) = (&mut self.tracer, record) {
                    if let Some(record) = tracer.records.get_mut(record) {
                        record.set_style(ScalarStyle::Literal);
                    }
                    match content {
                        Some(start) => {
                            tracer.set_start(record, start);
                            tracer.pending.push((record, None));
                        }
                        None => tracer.pending.push((record, Some(header_at))),
                    }
                }
                return;
            }
        };
        self.out.push('\n');
        if let (Some(tracer), Some(record)) = (&mut self.tracer, record) {
            if let Some(record) = tracer.records.get_mut(record) {
                record.set_style(style);
            }
            tracer.set(record, span);
        }
    }

    fn empty_collection(
        &mut self,
        slot: Slot,
        tag: Option<&str>,
        text: &str,
        record: Option<usize>,
    ) {
        self.out.push_str(slot.separator());
        if let Some(tag) = tag {
            push_tag(&mut self.out, tag);
            self.out.push(' ');
        }
        let start = self.token();
        self.out.push_str(text);
        let end = self.out.len();
        self.out.push('\n');
        if let (Some(tracer), Some(record)) = (&mut self.tracer, record) {
            tracer.set(record, Span::new(start, end));
        }
    }

    /// Writes what precedes a non-empty collection's first child; returns the children's column
    /// and whether the first child continues the current line.
    fn open_collection(&mut self, slot: Slot, tag: Option<&str>, sequence: bool) -> (usize, bool) {
        let column = match slot {
            Slot::Root => 0,
            // Sequences sit at their key's column, mappings two columns in.
            Slot::MapValue(key_column) if sequence => key_column,
            Slot::MapValue(key_column) => key_column + 2,
            Slot::Indicator(indicator_column) => indicator_column + 2,
        };
        if let Some(tag) = tag {
            self.out.push_str(slot.separator());
            push_tag(&mut self.out, tag);
            self.out.push('\n');
            return (column, false);
        }
        match slot {
            Slot::Root => {
                if sequence {
                    // Where a root sequence starts is not among the conventions traced.
                    self.unsupported();
                }
                (column, false)
            }
            Slot::MapValue(_) => {
                self.out.push('\n');
                (column, false)
            }
            Slot::Indicator(_) => (column, true),
        }
    }

    /// Writes a plain or single-quoted scalar, breaking it at a space once the line is past 80
    /// columns, as go-yaml v2 (and so controller-gen and kubectl) fold long values: the break
    /// replaces one space between two non-spaces, which YAML folds back into that space.
    fn push_folded(&mut self, text: &str, continuation: usize, quoted: bool) {
        let line_start = memchr::memrchr(b'\n', self.out.as_bytes()).map_or(0, |i| i + 1);
        let line_bytes = self.out.len() - line_start;
        // Bytes bound characters: a text that ends by column 80 has no space past it.
        if line_bytes + usize::from(quoted) + text.len() <= BEST_WIDTH + 1 || !text.contains(' ') {
            if quoted {
                push_single_quoted(&mut self.out, text);
            } else {
                self.out.push_str(text);
            }
            return;
        }
        let mut column = self.out[line_start..].chars().count();
        if quoted {
            self.out.push('\'');
            column += 1;
        }
        // Word by word: only a space can become a line break.
        let bytes = text.as_bytes();
        let mut after_space = false;
        let mut word_start = 0;
        loop {
            let space = memchr::memchr(b' ', &bytes[word_start..]).map(|i| word_start + i);
            let word = &text[word_start..space.unwrap_or(text.len())];
            if !word.is_empty() {
                column += char_count(word);
                if quoted {
                    let quotes = memchr::memchr_iter(b'\'', word.as_bytes()).count();
                    push_doubling_quotes(&mut self.out, word);
                    column += quotes;
                } else {
                    self.out.push_str(word);
                }
                after_space = false;
            }
            let Some(space) = space else { break };
            let next_is_space = bytes.get(space + 1) == Some(&b' ');
            let inner = !quoted || (space > 0 && space + 1 < text.len());
            if !after_space && column > BEST_WIDTH && !next_is_space && inner {
                self.out.push('\n');
                self.indent(continuation);
                column = continuation;
            } else {
                self.out.push(' ');
                column += 1;
            }
            after_space = true;
            word_start = space + 1;
        }
        if quoted {
            self.out.push('\'');
        }
    }

    /// Writes a literal block's lines; returns where its first content character went (the
    /// first line that is not empty), if any.
    fn block_lines(&mut self, text: &str, column: usize) -> Option<usize> {
        let body = text.strip_suffix('\n').unwrap_or(text);
        let mut content = None;
        for line in body.split('\n') {
            if !line.is_empty() {
                self.indent(column);
                content.get_or_insert(self.out.len());
                self.out.push_str(line);
            }
            self.out.push('\n');
        }
        content
    }
}

/// Writes a tag as written in YAML: shorthands (`!!str`, `!custom`) as they are, full URIs
/// verbatim.
fn push_tag(out: &mut String, tag: &str) {
    if tag.starts_with('!') {
        out.push_str(tag);
    } else {
        out.push_str("!<");
        out.push_str(tag);
        out.push('>');
    }
}

/// An empty plain scalar: written as nothing at all.
fn is_empty_plain(node: &Node) -> bool {
    node.scalar_style() == Some(ScalarStyle::Plain) && node.scalar_text() == Some("")
}

/// Whether two scalar keys of a mapping read back as the same text (an empty plain key is
/// written `~`), which the loader reports as a duplicate.
fn has_duplicate_keys(entries: &[(Node, Node)]) -> bool {
    const HASH_FROM: usize = 16;
    fn written(key: &Node) -> Option<&str> {
        key.scalar_text()
            .map(|text| if is_empty_plain(key) { "~" } else { text })
    }
    if entries.len() < HASH_FROM {
        return entries.iter().enumerate().any(|(i, (key, _))| {
            written(key).is_some_and(|text| {
                entries[..i]
                    .iter()
                    .any(|(earlier, _)| written(earlier) == Some(text))
            })
        });
    }
    let mut seen = HashSet::with_capacity(entries.len());
    entries
        .iter()
        .filter_map(|(k, _)| written(k))
        .any(|key| !seen.insert(key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, Source, Span, parse_str};
    use std::sync::Arc;

    fn load(text: &str) -> Vec<Node> {
        let file = parse_str(Arc::new(Source::new("t.yaml", text)), Limits::default());
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        file.roots().cloned().collect()
    }

    /// Loads and writes back.
    fn layout(text: &str) -> String {
        write_documents(&load(text))
    }

    fn scalar(text: &str, style: ScalarStyle) -> Node {
        Node::scalar(text, style, Span::default())
    }

    fn map(entries: Vec<(&str, Node)>) -> Node {
        Node::mapping(
            entries
                .into_iter()
                .map(|(k, v)| (Node::plain(k), v))
                .collect(),
            Span::default(),
        )
    }

    #[test]
    fn keeps_order_and_writes_compact_sequences() {
        let text = "kind: Deployment\napiVersion: apps/v1\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        args:\n        - --leader-elect\n        ports: []\n        env: {}\n      - - nested\n        - items\n";
        assert_eq!(layout(text), text);
        // Indented sequences and flow collections come out in the one block convention.
        assert_eq!(
            layout("a:\n    - 1\n    - {b: [x, y], c: d}\n"),
            "a:\n- 1\n- b:\n  - x\n  - y\n  c: d\n"
        );
    }

    #[test]
    fn scalars_keep_their_meaning_and_quoting() {
        let text = "a: on\nb: 0755\nc: ~\nd:\ne: 1e3\nf: 2001-12-14\ng: 'on'\nh: \"0755\"\ni: 'it''s'\nj: \"tab\\tthere\"\nk: !!str 123\nl: !custom x\nm: ''\nn: \"\"\no: <<\n";
        assert_eq!(layout(text), text);
    }

    #[test]
    fn plain_strings_that_cannot_stand_plain_are_quoted() {
        let node = map(vec![
            ("colon", scalar("a: b", ScalarStyle::Plain)),
            ("hash", scalar("#x", ScalarStyle::Plain)),
            ("lead", scalar(" x", ScalarStyle::Plain)),
            ("dash", scalar("- x", ScalarStyle::Plain)),
            ("tab", scalar("a\tb", ScalarStyle::Plain)),
            ("lines", scalar("a\nb", ScalarStyle::Plain)),
            ("string_yes", Node::string("yes")),
            ("string_num", Node::string("0755")),
        ]);
        assert_eq!(
            write_document(&node),
            "colon: 'a: b'\nhash: '#x'\nlead: ' x'\ndash: '- x'\ntab: \"a\\tb\"\nlines: |-\n  a\n  b\nstring_yes: \"yes\"\nstring_num: \"0755\"\n"
        );
        // Single-quoted text that single quotes cannot carry switches to double quotes.
        assert_eq!(
            write_document(&map(vec![("s", scalar("a\nb", ScalarStyle::SingleQuoted))])),
            "s: \"a\\nb\"\n"
        );
    }

    #[test]
    fn block_scalars_keep_their_content() {
        let text = "a: |\n  line1\n    indented\nb: |-\n  stripped\nc: |+\n  kept\n\nd: |2\n    leading\n  x\ne:\n- |\n  in a sequence\n- - |-\n    nested\nf: |+\n\ng: |2-\n\n    after a blank line\n";
        assert_eq!(layout(text), text);
        // Folded blocks become literal blocks with the folded content.
        assert_eq!(
            layout("d: >\n  folded text\n  continues\n\n  para\n"),
            "d: |\n  folded text continues\n  para\n"
        );
        // Text a literal block cannot carry is double-quoted.
        let node = map(vec![("cr", scalar("a\r\nb\n", ScalarStyle::Literal))]);
        assert_eq!(write_document(&node), "cr: \"a\\r\\nb\\n\"\n");
        // At the root an indentation indicator is avoided.
        let root = scalar("  lead\nx\n", ScalarStyle::Literal);
        assert_eq!(write_document(&root), "\"  lead\\nx\\n\"\n");
        assert_eq!(
            write_document(&scalar("a\nb\n", ScalarStyle::Literal)),
            "|\n  a\n  b\n"
        );
    }

    #[test]
    fn long_values_fold_at_80_columns_like_controller_gen() {
        // As in core-components.yaml: the break comes at the first space past column 80.
        let text = "a:\n  b:\n    c:\n      d:\n        description: ClusterClass is a template which can be used to create managed\n          topologies.\n        quoted: 'type must not be one of: Ready, Available, HealthCheckSucceeded, OwnerRemediated'\n";
        let written = layout(text);
        assert_eq!(
            written,
            "a:\n  b:\n    c:\n      d:\n        description: ClusterClass is a template which can be used to create managed\n          topologies.\n        quoted: 'type must not be one of: Ready, Available, HealthCheckSucceeded,\n          OwnerRemediated'\n"
        );
        assert_eq!(layout(&written), written);
        // Double spaces are never broken, so the text reads back the same.
        let long = format!("a: {}\n", "x  ".repeat(40));
        assert_eq!(layout(&long).lines().count(), 1);
    }

    #[test]
    fn keys_that_cannot_be_implicit_use_the_explicit_form() {
        assert_eq!(
            layout("? [complex, key]\n: value\n? {a: 1}\n: v2\n"),
            "? - complex\n  - key\n: value\n? a: 1\n: v2\n"
        );
        let long_key = "k".repeat(1100);
        assert_eq!(
            write_document(&map(vec![(long_key.as_str(), Node::plain("v"))])),
            format!("? {long_key}\n: v\n")
        );
        assert_eq!(layout("\"multi\\nline\": v\n"), "\"multi\\nline\": v\n");
        assert_eq!(layout("? \n: v\n"), "~: v\n");
        assert_eq!(layout("'1': a\n2: b\n"), "'1': a\n2: b\n");
    }

    #[test]
    fn tags_are_kept_on_every_kind_of_node() {
        let text = "a: !!map\n  b: !!seq\n  - !!str 1\n  - !custom\n    c: d\n  e: !!set {}\nf: !<tag:example.com,2000:x> y\n";
        assert_eq!(
            layout(text),
            "a: !!map\n  b: !!seq\n  - !!str 1\n  - !custom\n    c: d\n  e: !!set {}\nf: !<tag:example.com,2000:x> y\n"
        );
    }

    #[test]
    fn documents_are_joined_with_separators() {
        assert_eq!(
            layout("a: 1\n---\n# comment only\n---\nb: 2\n"),
            "a: 1\n---\nb: 2\n"
        );
        assert_eq!(write_documents(std::iter::empty()), "");
    }

    #[test]
    fn deep_nesting_is_written_without_recursion() {
        let mut node = Node::plain("x");
        for _ in 0..5000 {
            node = Node::sequence(vec![node], Span::default());
        }
        let text = write_document(&node);
        assert!(text.starts_with("- - - "));
        assert!(text.ends_with("- x\n"));
        // Dropped a level at a time: a recursive drop of 5000 levels could overflow the stack.
        let mut node = Some(node);
        while let Some(Value::Sequence(items)) = node.take().map(Node::into_value) {
            node = items.into_vec().pop();
        }
    }
}
