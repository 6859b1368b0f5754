//! A fast reader for the YAML that manifests are written in, giving the events saphyr-parser
//! gives, at the same places, or giving up.
//!
//! saphyr-parser reads every character through a lookahead buffer and builds every scalar in a
//! new `String`, which made it most of what a parse of a components file cost. Generated
//! manifests use a small part of YAML: block mappings and sequences, plain and quoted scalars,
//! literal and folded block scalars, single-line flow sequences of scalars and empty flow
//! mappings. This reader reads that part a line at a time, borrows single-line scalars from the
//! text, and hands the events to the same tree builder. Anything else (anchors, aliases, tags,
//! flow mappings with content, nested flow collections, tabs, carriage returns, anything
//! saphyr-parser would refuse) makes it give up with [`Unsupported`], and the document is read
//! again by saphyr-parser, which also reports every syntax error. So what the fast reader must
//! match is saphyr-parser's events and their spans on the YAML it accepts: the tests compare the
//! two on every YAML file in `testdata/` and on mutated documents.
//!
//! Spans follow saphyr-parser's markers: a block collection starts at its first key or dash (an
//! indentless sequence where its first item's token is) and ends where the next token starts
//! (the first character of the next line holding more than a comment, or the end of the text);
//! an empty mapping value is at its `:`, an empty sequence item at the end of its line; a quoted
//! scalar or a flow collection's closing bracket ends after the spaces and comment behind it; a
//! block scalar starts at its first content character and ends behind the indentation of the
//! line that ends it. Nesting is followed by recursion, up to [`MAX_NESTING`] levels. The block
//! structure is read here, scalars and flow sequences in `scalars`.

use std::borrow::Cow;

use saphyr_parser::{Event, ScalarStyle};

use super::Error;

mod scalars;

/// The fast reader stopped before the end of the document: the document uses YAML this reader
/// leaves to saphyr-parser, is not valid YAML, or the tree builder refused an event (too deep, a
/// bad merge key; saphyr-parser's reading then finds the same, or a syntax error before it).
pub(super) struct Unsupported;

#[cfg(test)]
thread_local! {
    /// The source line of the last give-up, for the tests' statistics.
    static GAVE_UP_AT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

fn give_up(_line: u32) -> Unsupported {
    #[cfg(test)]
    GAVE_UP_AT.with(|at| at.set(_line));
    Unsupported
}

/// Receives each event with its start and end offsets in the document's text.
pub(super) type Sink<'s, 't> = dyn FnMut(Event<'t>, usize, usize) -> Result<(), Error> + 's;

/// Nesting this reader follows before leaving a document to saphyr-parser (which has no
/// recursion, and whose tree builder enforces the real limit).
const MAX_NESTING: usize = 64;

/// Keys longer than this are left to saphyr-parser, which refuses implicit keys over 1024
/// characters.
const MAX_KEY_BYTES: usize = 1000;

/// Reads one document's text (no `---` line inside), handing its events to `sink`.
pub(super) fn read<'t>(text: &'t str, sink: &mut Sink<'_, 't>) -> Result<(), Unsupported> {
    if has_unsupported_bytes(text.as_bytes()) {
        return Err(give_up(line!()));
    }
    let mut reader = Reader {
        text,
        bytes: text.as_bytes(),
        sink,
        last_line: std::cell::Cell::new((usize::MAX, 0)),
    };
    reader.document()
}

/// Tabs, carriage returns, other control characters and byte order marks: saphyr-parser gives
/// each of them meanings (or errors) this reader does not reproduce.
fn has_unsupported_bytes(bytes: &[u8]) -> bool {
    // Blocks without an early exit inside, so that the compiler checks many bytes at once: the
    // check reads every byte of the file.
    let control = |block: &[u8]| {
        block.iter().fold(false, |found, &b| {
            found | ((b < 0x20) & (b != b'\n')) | (b == 0x7f)
        })
    };
    bytes.chunks(256).any(control) || memchr::memmem::find(bytes, "\u{FEFF}".as_bytes()).is_some()
}

/// A line holding more than spaces and a comment.
#[derive(Clone, Copy)]
struct Line {
    start: usize,
    indent: usize,
    /// Offset of its first character that is not a space.
    first: usize,
}

/// What follows a quoted scalar on its line.
enum AfterQuoted {
    /// `:` at this offset: the scalar is a key.
    Colon(usize),
    /// Nothing but spaces and a comment; the scalar's span ends at this offset.
    LineEnd(usize),
}

/// A key, read up to its `:`.
struct Key<'t> {
    text: Cow<'t, str>,
    style: ScalarStyle,
    end: usize,
    colon: usize,
}

type Read<T = usize> = Result<T, Unsupported>;

struct Reader<'t, 's, 'k> {
    text: &'t str,
    bytes: &'t [u8],
    sink: &'k mut Sink<'s, 't>,
    /// The last line [`Reader::line_end`] found, as `(from, line break)`: a key's line is asked
    /// for its end by the key, its value and what follows.
    last_line: std::cell::Cell<(usize, usize)>,
}

impl<'t> Reader<'t, '_, '_> {
    fn emit(&mut self, event: Event<'t>, start: usize, end: usize) -> Read<()> {
        (self.sink)(event, start, end).map_err(|_| give_up(line!()))
    }

    fn scalar(
        &mut self,
        text: Cow<'t, str>,
        style: ScalarStyle,
        start: usize,
        end: usize,
    ) -> Read<()> {
        self.emit(Event::Scalar(text, style, 0, None), start, end)
    }

    fn byte(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    /// True at a line break or the end of the text.
    fn at_line_end(&self, at: usize) -> bool {
        matches!(self.byte(at), None | Some(b'\n'))
    }

    /// True at a space, a line break or the end of the text.
    fn at_blank(&self, at: usize) -> bool {
        matches!(self.byte(at), None | Some(b' ' | b'\n'))
    }

    fn skip_spaces(&self, mut at: usize) -> usize {
        // Eight bytes a step: the indentation of a CRD's deep schemas is tens of spaces on
        // every line. The first byte that is not a space is the lowest non-zero byte of the
        // word XOR eight spaces.
        while let Some(eight) = self
            .bytes
            .get(at..)
            .and_then(|rest| rest.first_chunk::<8>())
        {
            let others = u64::from_le_bytes(*eight) ^ u64::from_le_bytes([b' '; 8]);
            if others != 0 {
                return at + (others.trailing_zeros() / 8) as usize;
            }
            at += 8;
        }
        while self.byte(at) == Some(b' ') {
            at += 1;
        }
        at
    }

    /// The offset of the line break ending the line `at` is on, or the end of the text.
    fn line_end(&self, at: usize) -> usize {
        let (from, end) = self.last_line.get();
        if from <= at && at <= end {
            return end;
        }
        let rest = self.bytes.get(at..).unwrap_or_default();
        let end = memchr::memchr(b'\n', rest).map_or(self.bytes.len(), |i| at + i);
        self.last_line.set((at, end));
        end
    }

    /// The start of the line after the one `at` is on, or the end of the text.
    fn next_line(&self, at: usize) -> usize {
        (self.line_end(at) + 1).min(self.bytes.len())
    }

    /// The first line from the line start `at` on that holds more than spaces and a comment.
    fn content_line(&self, mut at: usize) -> Read<Option<Line>> {
        loop {
            let first = self.skip_spaces(at);
            match self.byte(first) {
                None => return Ok(None),
                Some(b'\n') => at = first + 1,
                Some(b'#') => at = self.next_line(first),
                Some(_) => {
                    let indent = first - at;
                    // A document end marker (`...`): saphyr-parser ends the document there.
                    if indent == 0 && self.bytes[first..].starts_with(b"...") {
                        return Err(give_up(line!()));
                    }
                    return Ok(Some(Line {
                        start: at,
                        indent,
                        first,
                    }));
                }
            }
        }
    }

    /// `-` followed by a space or a line end: a block sequence entry.
    fn is_dash(&self, at: usize) -> bool {
        self.byte(at) == Some(b'-') && self.at_blank(at + 1)
    }

    /// Whether a plain scalar may start at `at` (in a flow collection when `in_flow`).
    fn plain_starts(&self, at: usize, in_flow: bool) -> bool {
        let Some(b) = self.byte(at) else {
            return false;
        };
        match b {
            b'-' => {
                let flow_indicator =
                    matches!(self.byte(at + 1), Some(b',' | b'[' | b']' | b'{' | b'}'));
                !(self.at_blank(at + 1) || (in_flow && flow_indicator))
            }
            b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|'
            | b'>' | b'\'' | b'"' | b'%' | b'@' | b'`' | b' ' | b'\n' => false,
            _ => true,
        }
    }

    fn document(&mut self) -> Read<()> {
        let Some(line) = self.content_line(0)? else {
            return Err(give_up(line!()));
        };
        let next = if self.is_dash(line.first) {
            self.block_sequence(line.indent, line.first, false, 0)?
        } else if let Some(key) = self.key_at(line.first)? {
            self.block_mapping(line.indent, line.first, key, 0)?
        } else {
            return Err(give_up(line!()));
        };
        match self.content_line(next)? {
            None => Ok(()),
            Some(_) => Err(give_up(line!())),
        }
    }

    /// A block mapping whose first key, `key` (already read), starts at `first`, in column
    /// `column`. Returns the start of the line after it.
    fn block_mapping(&mut self, column: usize, first: usize, key: Key<'t>, depth: usize) -> Read {
        if depth > MAX_NESTING {
            return Err(give_up(line!()));
        }
        self.emit(Event::MappingStart(0, None), first, first)?;
        let (mut at, mut key) = (first, key);
        loop {
            self.scalar(key.text, key.style, at, key.end)?;
            let next = self.mapping_value(column, key.colon, depth + 1)?;
            match self.content_line(next)? {
                None => {
                    let end = self.bytes.len();
                    self.emit(Event::MappingEnd, end, end)?;
                    return Ok(end);
                }
                Some(line) if line.indent == column && !self.is_dash(line.first) => {
                    at = line.first;
                    key = self.key_at(at)?.ok_or_else(|| give_up(line!()))?;
                }
                Some(line) if line.indent < column => {
                    self.emit(Event::MappingEnd, line.first, line.first)?;
                    return Ok(line.start);
                }
                Some(_) => return Err(give_up(line!())),
            }
        }
    }

    /// A block sequence whose first dash is at `dash`, in column `column`; `indentless` when it is
    /// a mapping value in the mapping's own column. Returns the start of the line after it.
    fn block_sequence(
        &mut self,
        column: usize,
        dash: usize,
        indentless: bool,
        depth: usize,
    ) -> Read {
        if depth > MAX_NESTING {
            return Err(give_up(line!()));
        }
        if !indentless {
            self.emit(Event::SequenceStart(0, None), dash, dash)?;
        }
        let mut dash = dash;
        let mut first_item = true;
        loop {
            let at = self.skip_spaces(dash + 1);
            if indentless && first_item {
                // saphyr-parser starts an indentless sequence where the first item's token is
                // (the end of the line for an item on the lines below).
                if self.byte(at) == Some(b'#') {
                    return Err(give_up(line!()));
                }
                self.emit(Event::SequenceStart(0, None), at, at)?;
            }
            first_item = false;
            let next = if self.at_line_end(at) || self.byte(at) == Some(b'#') {
                let line_end = self.line_end(at);
                match self.content_line(self.next_line(at))? {
                    Some(line) if line.indent > column => {
                        self.node(line.first, line.indent, column as isize, depth + 1)?
                    }
                    _ => {
                        self.scalar(Cow::Borrowed(""), ScalarStyle::Plain, line_end, line_end)?;
                        self.next_line(at)
                    }
                }
            } else {
                let item_column = column + (at - dash);
                self.node(at, item_column, column as isize, depth + 1)?
            };
            match self.content_line(next)? {
                None => {
                    let end = self.bytes.len();
                    self.emit(Event::SequenceEnd, end, end)?;
                    return Ok(end);
                }
                Some(line) if line.indent == column && self.is_dash(line.first) => {
                    dash = line.first
                }
                Some(line) if line.indent < column || (indentless && line.indent == column) => {
                    self.emit(Event::SequenceEnd, line.first, line.first)?;
                    return Ok(line.start);
                }
                Some(_) => return Err(give_up(line!())),
            }
        }
    }

    /// The value of the key whose `:` is at `colon`, in a mapping in column `column`.
    fn mapping_value(&mut self, column: usize, colon: usize, depth: usize) -> Read {
        let at = self.skip_spaces(colon + 1);
        if !self.at_line_end(at) && self.byte(at) != Some(b'#') {
            // On the key's line: a scalar or a flow collection (a key or a dash there is an
            // error saphyr-parser reports).
            if self.is_dash(at) {
                return Err(give_up(line!()));
            }
            return self.inline_value(at, column as isize);
        }
        let after = self.next_line(at);
        match self.content_line(after)? {
            Some(line) if line.indent == column && self.is_dash(line.first) => {
                self.block_sequence(column, line.first, true, depth)
            }
            Some(line) if line.indent > column => {
                self.node(line.first, line.indent, column as isize, depth)
            }
            _ => {
                self.scalar(Cow::Borrowed(""), ScalarStyle::Plain, colon, colon)?;
                Ok(after)
            }
        }
    }

    /// A node starting at `at` (column `column`) on a line of its own or behind a dash, where it
    /// may be a block mapping or sequence. `parent` is the column of the enclosing block
    /// collection.
    fn node(&mut self, at: usize, column: usize, parent: isize, depth: usize) -> Read {
        if self.is_dash(at) {
            return self.block_sequence(column, at, false, depth);
        }
        if let Some(key) = self.key_at(at)? {
            return self.block_mapping(column, at, key, depth);
        }
        self.inline_value(at, parent)
    }

    /// A scalar or flow collection starting at `at`, that is not a key, in a block collection in
    /// column `parent`.
    fn inline_value(&mut self, at: usize, parent: isize) -> Read {
        match self.byte(at) {
            Some(b'"' | b'\'') => {
                let (text, style, after) = self.quoted(at, Some(parent.max(0) as usize))?;
                match self.after_quoted(after)? {
                    AfterQuoted::Colon(_) => Err(give_up(line!())),
                    AfterQuoted::LineEnd(end) => {
                        self.scalar(text, style, at, end)?;
                        Ok(self.next_line(end))
                    }
                }
            }
            Some(b'[' | b'{') => self.flow(at),
            Some(b'|' | b'>') => self.block_scalar(at, parent),
            _ if self.plain_starts(at, false) => self.plain(at, parent),
            _ => Err(give_up(line!())),
        }
    }

    /// The key starting at `at`, if the line holds one there; `Err` for what this reader leaves to
    /// saphyr-parser.
    fn key_at(&self, at: usize) -> Read<Option<Key<'t>>> {
        match self.byte(at) {
            Some(b'"' | b'\'') => {
                let (text, style, after) = self.quoted(at, None)?;
                Ok(match self.after_quoted(after)? {
                    AfterQuoted::Colon(colon) => Some(Key {
                        text,
                        style,
                        end: colon,
                        colon,
                    }),
                    AfterQuoted::LineEnd(_) => None,
                })
            }
            _ if self.plain_starts(at, false) => {
                let line_end = self.line_end(at);
                let mut i = at;
                while i < line_end {
                    match self.bytes[i] {
                        b':' if self.at_blank(i + 1) => {
                            let end = at + self.text[at..i].trim_end_matches(' ').len();
                            if end - at > MAX_KEY_BYTES {
                                return Err(give_up(line!()));
                            }
                            return Ok(Some(Key {
                                text: Cow::Borrowed(&self.text[at..end]),
                                style: ScalarStyle::Plain,
                                end,
                                colon: i,
                            }));
                        }
                        b'#' if self.bytes[i - 1] == b' ' => return Ok(None),
                        _ => i += 1,
                    }
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;

    use saphyr_parser::Parser;

    use super::*;
    use crate::yaml::parse::{Limits, Loader, is_blank, split_documents};
    use crate::yaml::source::OffsetMap;

    #[test]
    fn spaces_are_skipped_to_the_first_other_byte_or_the_end() {
        let mut sink = |_: Event<'_>, _: usize, _: usize| Ok(());
        for before in 0..3 {
            for spaces in 0..20 {
                for after in ["", "x", "\n", "xx: y"] {
                    let text = format!("{}{}{after}", "k".repeat(before), " ".repeat(spaces));
                    let reader = Reader {
                        text: &text,
                        bytes: text.as_bytes(),
                        sink: &mut sink,
                        last_line: std::cell::Cell::new((usize::MAX, 0)),
                    };
                    assert_eq!(reader.skip_spaces(before), before + spaces, "{text:?}");
                }
            }
        }
    }

    /// An event as the tree builder uses it: a collection's start offset, its end's end offset,
    /// a scalar's text, style and both offsets.
    fn describe(event: &Event<'_>, start: usize, end: usize) -> Option<String> {
        Some(match event {
            Event::Scalar(text, style, anchor, tag) => {
                format!("scalar {style:?} {text:?} {anchor} {tag:?} {start}..{end}")
            }
            Event::SequenceStart(anchor, tag) => format!("[ {anchor} {tag:?} {start}"),
            Event::MappingStart(anchor, tag) => format!("{{ {anchor} {tag:?} {start}"),
            Event::SequenceEnd => format!("] {end}"),
            Event::MappingEnd => format!("}} {end}"),
            Event::Alias(id) => format!("* {id} {start}..{end}"),
            _ => return None,
        })
    }

    /// saphyr-parser's events for a chunk, offsets in bytes; `None` when it reports an error.
    fn saphyr_events(chunk: &str) -> Option<Vec<String>> {
        let byte_of: Vec<usize> = chunk
            .char_indices()
            .map(|(i, _)| i)
            .chain([chunk.len()])
            .collect();
        let byte = |chars: usize| byte_of.get(chars).copied().unwrap_or(chunk.len());
        let mut events = Vec::new();
        let mut documents = 0;
        for event in Parser::new_from_str(chunk) {
            let (event, span) = event.ok()?;
            if let Event::DocumentStart(_) = event {
                documents += 1;
                if documents > 1 {
                    break;
                }
            }
            let (start, end) = (byte(span.start.index()), byte(span.end.index()));
            events.extend(describe(&event, start, end));
        }
        Some(events)
    }

    /// The fast reader's events, or the source line where it gave up.
    fn fast_events(chunk: &str) -> Result<Vec<String>, u32> {
        let mut events = Vec::new();
        let read = read(chunk, &mut |event, start, end| {
            events.extend(describe(&event, start, end));
            Ok(())
        });
        match read {
            Ok(()) => Ok(events),
            Err(Unsupported) => Err(GAVE_UP_AT.with(|at| at.get())),
        }
    }

    /// Compares the two readers on one chunk: `Ok(true)` when the fast one read it.
    fn compare(chunk: &str) -> Result<bool, String> {
        let expected = saphyr_events(chunk);
        match (fast_events(chunk), expected) {
            (Ok(fast), Some(saphyr)) if fast == saphyr => Ok(true),
            (Ok(fast), Some(saphyr)) => {
                let at = fast.iter().zip(&saphyr).position(|(a, b)| a != b);
                let at = at.unwrap_or(fast.len().min(saphyr.len()));
                Err(format!(
                    "event {at}: fast {:?}, saphyr-parser {:?}",
                    fast.get(at),
                    saphyr.get(at)
                ))
            }
            (Ok(_), None) => Err("read a chunk saphyr-parser refuses".into()),
            (Err(_), _) => Ok(false),
        }
    }

    fn chunks(text: &str) -> Vec<&str> {
        let identity = OffsetMap::identity();
        let mut loader = Loader::new(Limits::default(), &identity);
        split_documents(text, &mut loader)
            .into_iter()
            .map(|span| &text[span.start..span.end])
            .filter(|chunk| !is_blank(chunk))
            .collect()
    }

    fn yaml_files(dir: &Path, found: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                yaml_files(&path, found);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            ) {
                found.push(path);
            }
        }
    }

    /// Every YAML document under `testdata/` (and under the folders `CAPKG_FAST_READER_DIRS`
    /// lists): wherever the fast reader reads one, its events are saphyr-parser's, and it
    /// reads nearly all of them.
    #[test]
    fn gives_saphyr_parsers_events_on_every_testdata_document() {
        let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")];
        if let Ok(more) = std::env::var("CAPKG_FAST_READER_DIRS") {
            dirs.extend(std::env::split_paths(&more));
        }
        let mut files = Vec::new();
        for dir in &dirs {
            yaml_files(dir, &mut files);
        }
        files.sort();
        let (mut total, mut read_fast, mut bytes, mut bytes_fast) = (0, 0, 0, 0);
        let mut gave_up: BTreeMap<u32, (usize, String)> = BTreeMap::new();
        let mut differences = Vec::new();
        for path in &files {
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            for chunk in chunks(&text) {
                total += 1;
                bytes += chunk.len();
                match compare(chunk) {
                    Ok(true) => {
                        read_fast += 1;
                        bytes_fast += chunk.len();
                    }
                    Ok(false) => {
                        let line = GAVE_UP_AT.with(|at| at.get());
                        let entry = gave_up
                            .entry(line)
                            .or_insert((0, path.display().to_string()));
                        entry.0 += 1;
                    }
                    Err(difference) => {
                        differences.push(format!("{}: {difference}", path.display()))
                    }
                }
            }
        }
        eprintln!(
            "fast reader: {read_fast} of {total} documents, {bytes_fast} of {bytes} bytes; gave up at (line: count, first file) {gave_up:?}"
        );
        assert!(differences.is_empty(), "{}", differences.join("\n"));
        assert!(total > 1000, "{total} documents");
        if dirs.len() == 1 {
            assert!(
                bytes_fast * 10 >= bytes * 9,
                "{bytes_fast} of {bytes} bytes read fast"
            );
        }
    }

    /// Small documents in the shapes manifests use, to be mutated.
    const SEEDS: &[&str] = &[
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n    a: \"b\"\ndata:\n  key: |\n    line one\n      more\n\n    end\n  other: >-\n    folded\n    text\n",
        "spec:\n  containers:\n  - name: manager\n    args:\n    - --leader-elect\n    - \"--metrics=:8080\"\n    image: 'repo/image:v1'\n    ports: []\n    resources: {}\n  volumes:\n    - name: cert\n      secret:\n        secretName: x # comment\n",
        "description: This is a long\n  plain scalar that goes\n\n  on over lines.\ntype: object\nrequired: [a, \"b\", 'c']\nenum:\n- A\n- B\n-\n- - nested\n  - seq\n",
        "key: \"a \\\"quoted\\\" \\u00e9 text\n  over lines\\\n  \\ joined\"\nsingle: 'it''s\n\n  here'\nempty:\nlast: value\n",
        "items:\n- name: a\n  value: |+\n    kept\n\n  # comment\n- \"quoted\": key\n  'other': [x]\n- |\n  block item\n- [a]\n- {}\n-\n  below: 1\nnext:\n  - - x\n    - y\n  -   spaced\n  - # empty\n",
        "# leading comment\nmetadata:\n  annotations:\n    \"helm.sh/hook\": pre-install   # trailing\n    ünïcode: wert \u{2014} über\n\n\n  name: 'x'\n    # indented comment\nspec: >\n  a\n   b\n\n  c\nend: x",
        "a:\n  b:\n    c:\n      d: [\"e\", 'f' , g]\n      h: >+\n        i\n\n      j: k\n    l: \"m\"\n  n: o\n    p\n     q\np: ''''\nr: \"\\t\\x41\\U0001F600\\/\"\n",
    ];

    /// A small xorshift generator: the same cases on every run.
    struct Random(u64);

    impl Random {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    fn mutate(text: &str, random: &mut Random) -> String {
        const PIECES: &[&str] = &[
            " ", "  ", "\n", "- ", "-", ":", ": ", "#", " #", "'", "\"", "|", ">", "|-", "[", "]",
            "{", "}", ",", "\\", "\\\n", "...", "&a ", "*a", "!t ", "? ", "\n  ", "\n- ", "é",
        ];
        let mut text = text.to_string();
        for _ in 0..1 + random.below(3) {
            let boundaries: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            let at = boundaries[random.below(boundaries.len())];
            match random.below(3) {
                0 => text.insert_str(at, PIECES[random.below(PIECES.len())]),
                1 => {
                    if let Some(c) = text[at..].chars().next() {
                        text.replace_range(at..at + c.len_utf8(), "");
                    }
                }
                _ => {
                    // Re-indent a line.
                    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                    match random.below(2) {
                        0 => text.insert(start, ' '),
                        _ if text[start..].starts_with(' ') => {
                            text.remove(start);
                        }
                        _ => {}
                    }
                }
            }
        }
        text
    }

    /// Mutated documents: where the fast reader reads one, saphyr-parser reads it too, with the
    /// same events. `CAPKG_FAST_READER_CASES` runs more cases.
    #[test]
    fn agrees_with_saphyr_parser_on_mutated_documents() {
        let cases: usize = std::env::var("CAPKG_FAST_READER_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(20_000);
        for seed in SEEDS {
            assert_eq!(compare(seed), Ok(true), "{seed:?}");
        }
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let (mut read_fast, mut differences) = (0, Vec::new());
        for case in 0..cases {
            let seed = SEEDS[case % SEEDS.len()];
            let text = mutate(seed, &mut random);
            for chunk in chunks(&text) {
                match compare(chunk) {
                    Ok(true) => read_fast += 1,
                    Ok(false) => {}
                    Err(difference) => differences.push(format!("{chunk:?}: {difference}")),
                }
            }
        }
        assert!(
            differences.is_empty(),
            "{} differences, the first:\n{}",
            differences.len(),
            differences
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join("\n")
        );
        // The mutations leave most documents readable.
        assert!(read_fast * 4 > cases, "{read_fast} of {cases} read fast");
    }
}
