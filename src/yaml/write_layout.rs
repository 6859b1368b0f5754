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

use super::node::{Node, ScalarStyle, Value};
use super::resolve::Resolved;
use super::write_clusterctl::{Analysis, analyze_scalar, is_printable};

/// Longest key written as an implicit (`key: value`) key; YAML allows 1024 characters.
const MAX_IMPLICIT_KEY: usize = 1024;

/// One document, ending with a line break.
pub fn write_document(node: &Node) -> String {
    let mut writer = Writer::default();
    writer.run(node);
    writer.out
}

/// Several documents, each ending with a line break, separated by `---` lines.
pub fn write_documents<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> String {
    let mut out = String::new();
    for (index, node) in nodes.into_iter().enumerate() {
        if index > 0 {
            out.push_str("---\n");
        }
        out.push_str(&write_document(node));
    }
    out
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

enum Task<'n> {
    Node(&'n Node, Slot),
    /// A mapping entry whose key starts at `column`; `inline` when the line already holds an
    /// indicator (`- key: value`).
    Entry {
        key: &'n Node,
        value: &'n Node,
        column: usize,
        inline: bool,
    },
    /// A sequence item whose `-` is at `column`.
    Item {
        node: &'n Node,
        column: usize,
        inline: bool,
    },
    /// The `:` line of an explicit (`? key`) entry.
    ExplicitValue {
        value: &'n Node,
        column: usize,
    },
}

#[derive(Default)]
struct Writer {
    out: String,
}

impl Writer {
    fn run(&mut self, root: &Node) {
        let mut tasks = vec![Task::Node(root, Slot::Root)];
        while let Some(task) = tasks.pop() {
            match task {
                Task::Node(node, slot) => self.node(node, slot, &mut tasks),
                Task::Entry {
                    key,
                    value,
                    column,
                    inline,
                } => self.entry(key, value, column, inline, &mut tasks),
                Task::Item {
                    node,
                    column,
                    inline,
                } => {
                    self.start_line(column, inline);
                    self.out.push('-');
                    tasks.push(Task::Node(node, Slot::Indicator(column)));
                }
                Task::ExplicitValue { value, column } => {
                    self.start_line(column, false);
                    self.out.push(':');
                    tasks.push(Task::Node(value, Slot::Indicator(column)));
                }
            }
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
        self.out.extend(std::iter::repeat_n(' ', column));
    }

    fn entry<'n>(
        &mut self,
        key: &'n Node,
        value: &'n Node,
        column: usize,
        inline: bool,
        tasks: &mut Vec<Task<'n>>,
    ) {
        self.start_line(column, inline);
        if let Some(text) = implicit_key_text(key) {
            self.out.push_str(&text);
            self.out.push(':');
            tasks.push(Task::Node(value, Slot::MapValue(column)));
        } else {
            self.out.push('?');
            tasks.push(Task::ExplicitValue { value, column });
            tasks.push(Task::Node(key, Slot::Indicator(column)));
        }
    }

    fn node<'n>(&mut self, node: &'n Node, slot: Slot, tasks: &mut Vec<Task<'n>>) {
        let tag = node.tag.as_deref().map(tag_text);
        match &node.value {
            Value::Scalar { .. } => {
                let form = scalar_form(node, false);
                // At the document root YAML readers disagree on what an indentation indicator
                // counts from, so such a block is double-quoted instead.
                let form = match form {
                    Form::Block { text, header } if slot == Slot::Root && header.contains('2') => {
                        Form::Double(double_quoted(&text))
                    }
                    form => form,
                };
                let mut written = false;
                if let Some(tag) = &tag {
                    self.out.push_str(slot.separator());
                    self.out.push_str(tag);
                    written = true;
                }
                let separator = if written { " " } else { slot.separator() };
                let continuation = slot.block_column();
                match form {
                    Form::Plain(text) if text.is_empty() => {}
                    Form::Plain(text) => {
                        self.out.push_str(separator);
                        self.push_folded(&text, continuation, false);
                    }
                    Form::Single(text) => {
                        self.out.push_str(separator);
                        self.push_folded(&text, continuation, true);
                    }
                    Form::Double(text) => {
                        self.out.push_str(separator);
                        self.out.push_str(&text);
                    }
                    Form::Block { header, text } => {
                        self.out.push_str(separator);
                        self.out.push_str(&header);
                        self.out.push('\n');
                        self.block_lines(&text, continuation);
                        return;
                    }
                }
                self.out.push('\n');
            }
            Value::Mapping(mapping) => {
                if mapping.entries.is_empty() {
                    self.empty_collection(slot, tag.as_deref(), "{}");
                    return;
                }
                let (column, first_inline) = self.open_collection(slot, tag.as_deref(), false);
                for (index, (key, value)) in mapping.entries.iter().enumerate().rev() {
                    tasks.push(Task::Entry {
                        key,
                        value,
                        column,
                        inline: index == 0 && first_inline,
                    });
                }
            }
            Value::Sequence(items) => {
                if items.is_empty() {
                    self.empty_collection(slot, tag.as_deref(), "[]");
                    return;
                }
                let (column, first_inline) = self.open_collection(slot, tag.as_deref(), true);
                for (index, item) in items.iter().enumerate().rev() {
                    tasks.push(Task::Item {
                        node: item,
                        column,
                        inline: index == 0 && first_inline,
                    });
                }
            }
        }
    }

    fn empty_collection(&mut self, slot: Slot, tag: Option<&str>, text: &str) {
        self.out.push_str(slot.separator());
        if let Some(tag) = tag {
            self.out.push_str(tag);
            self.out.push(' ');
        }
        self.out.push_str(text);
        self.out.push('\n');
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
            self.out.push_str(tag);
            self.out.push('\n');
            return (column, false);
        }
        match slot {
            Slot::Root => (column, false),
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
        const BEST_WIDTH: usize = 80;
        let line_start = self.out.rfind('\n').map_or(0, |i| i + 1);
        let mut column = self.out[line_start..].chars().count();
        if quoted {
            self.out.push('\'');
            column += 1;
        }
        let chars: Vec<char> = text.chars().collect();
        let mut after_space = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                let next_is_space = chars.get(i + 1) == Some(&' ');
                let inner = !quoted || (i > 0 && i + 1 < chars.len());
                if !after_space && column > BEST_WIDTH && !next_is_space && inner {
                    self.out.push('\n');
                    self.indent(continuation);
                    column = continuation;
                } else {
                    self.out.push(' ');
                    column += 1;
                }
                after_space = true;
                continue;
            }
            if quoted && c == '\'' {
                self.out.push('\'');
                column += 1;
            }
            self.out.push(c);
            column += 1;
            after_space = false;
        }
        if quoted {
            self.out.push('\'');
        }
    }

    fn block_lines(&mut self, text: &str, column: usize) {
        let body = text.strip_suffix('\n').unwrap_or(text);
        for line in body.split('\n') {
            if !line.is_empty() {
                self.indent(column);
                self.out.push_str(line);
            }
            self.out.push('\n');
        }
    }
}

/// How a scalar is written.
enum Form {
    /// Plain text (possibly empty: an empty plain null).
    Plain(String),
    /// Text to write in single quotes (not yet escaped).
    Single(String),
    /// A complete double-quoted scalar, escapes included.
    Double(String),
    /// A literal block: the header (`|`, `|2-`, …) and the text.
    Block { header: String, text: String },
}

/// The text of a scalar key that can be written as `key:`, or `None` when the key needs the
/// explicit `? key` form (a collection, or text longer than YAML allows an implicit key).
fn implicit_key_text(key: &Node) -> Option<String> {
    if !matches!(key.value, Value::Scalar { .. }) {
        return None;
    }
    let text = match scalar_form(key, true) {
        Form::Plain(text) if text.is_empty() => "~".to_string(),
        Form::Plain(text) | Form::Double(text) => text,
        Form::Single(text) => single_quoted(&text),
        Form::Block { .. } => return None,
    };
    let text = match key.tag.as_deref().map(tag_text) {
        Some(tag) => format!("{tag} {text}"),
        None => text,
    };
    (text.chars().count() <= MAX_IMPLICIT_KEY).then_some(text)
}

/// Chooses how to write a scalar (see the module documentation).
fn scalar_form(node: &Node, is_key: bool) -> Form {
    let Value::Scalar { text, style } = &node.value else {
        return Form::Plain(String::new());
    };
    let analysis = analyze_scalar(text.as_bytes());
    let plain_ok = analysis.block_plain_allowed && !analysis.multiline;
    match style {
        ScalarStyle::Plain => {
            let is_string = node.resolve().is_none_or(Resolved::is_string);
            if text.is_empty() || plain_ok || !is_string {
                // As written: for a non-string the text is all the reader sees.
                Form::Plain(text.clone())
            } else {
                let block = !is_key && text.contains('\n');
                quoted_or_block(text, &analysis, block, true)
            }
        }
        ScalarStyle::SingleQuoted => quoted_or_block(text, &analysis, false, true),
        ScalarStyle::DoubleQuoted => Form::Double(double_quoted(text)),
        ScalarStyle::Literal | ScalarStyle::Folded => {
            quoted_or_block(text, &analysis, !is_key, false)
        }
    }
}

/// A literal block when `block` and a literal block can carry the text; otherwise single quotes
/// when `prefer_single` and the text allows them; otherwise double quotes.
fn quoted_or_block(text: &str, analysis: &Analysis, block: bool, prefer_single: bool) -> Form {
    if block && let Some(header) = literal_header(text) {
        return Form::Block {
            header,
            text: text.to_string(),
        };
    }
    if prefer_single && analysis.single_quoted_allowed && !analysis.multiline {
        return Form::Single(text.to_string());
    }
    Form::Double(double_quoted(text))
}

/// The literal block header for `text`, or `None` when a literal block cannot carry it.
fn literal_header(text: &str) -> Option<String> {
    if text.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let carries = text.char_indices().all(|(i, c)| {
        c == '\t'
            || (c != '\r' && c != '\u{85}' && !matches!(c, '\u{2028}' | '\u{2029}') && {
                // Four-byte characters are printable to YAML, if not to go-yaml's emitter.
                c.len_utf8() == 4 || is_printable(bytes, i)
            })
    });
    if !carries {
        return None;
    }
    let mut header = String::from("|");
    // Auto-detected indentation comes from the first line with a non-space character, and
    // all-space lines before it may not be longer: spell the indentation out in those cases.
    let mut needs_indicator = false;
    for line in text.split('\n') {
        let content = line.trim_start_matches(' ');
        if content.is_empty() {
            if !line.is_empty() {
                needs_indicator = true;
                break;
            }
            continue;
        }
        needs_indicator = line.starts_with([' ', '\t']);
        break;
    }
    if needs_indicator {
        header.push('2');
    }
    let trailing_breaks = text.len() - text.trim_end_matches('\n').len();
    if trailing_breaks == 0 {
        header.push('-');
    } else if trailing_breaks > 1 || trailing_breaks == text.len() {
        // `|` would drop trailing empty lines, and all of an all-empty text.
        header.push('+');
    }
    Some(header)
}

fn single_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// A double-quoted scalar with YAML escapes for everything that is not printable.
fn double_quoted(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for (i, c) in text.char_indices() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if c.len_utf8() == 4 || is_printable(bytes, i) => out.push(c),
            c if (c as u32) <= 0xFF => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// A tag as written in YAML: shorthands (`!!str`, `!custom`) as they are, full URIs verbatim.
fn tag_text(tag: &str) -> String {
    if tag.starts_with('!') {
        tag.to_string()
    } else {
        format!("!<{tag}>")
    }
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
    fn literal_headers() {
        assert_eq!(literal_header("a").as_deref(), Some("|-"));
        assert_eq!(literal_header("a\n").as_deref(), Some("|"));
        assert_eq!(literal_header("a\n\n").as_deref(), Some("|+"));
        assert_eq!(literal_header("\n").as_deref(), Some("|+"));
        assert_eq!(literal_header(" a\n").as_deref(), Some("|2"));
        assert_eq!(literal_header("\n a").as_deref(), Some("|2-"));
        assert_eq!(literal_header("  \nb\n").as_deref(), Some("|2"));
        assert_eq!(literal_header("\tx\n").as_deref(), Some("|2"));
        assert_eq!(literal_header("a\tb\n").as_deref(), Some("|"));
        assert_eq!(literal_header("😀\n").as_deref(), Some("|"));
        assert_eq!(literal_header(""), None);
        assert_eq!(literal_header("a\u{85}b"), None);
        assert_eq!(literal_header("a\u{feff}b"), None);
        assert_eq!(literal_header("a\u{7f}"), None);
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
        let mut node = Some(node);
        while let Some(Node {
            value: Value::Sequence(mut items),
            ..
        }) = node.take()
        {
            node = items.pop();
        }
    }
}
