//! Source text, byte spans and the translation of a byte offset into a line and column.
//!
//! Findings carry only byte spans; the line and column are computed when a report is rendered,
//! from the line index kept here. The index is built on first use: most texts capkg loads (and
//! every file it writes) never have a position asked for.
//!
//! The index is sparse: the start of every 64th line (as `u32` below 4 GiB) and the line count;
//! a query counts the few line breaks after the nearest kept start with `memchr`. A full table
//! of 8 bytes a line is megabytes of a large file's peak, and a position still costs under a
//! microsecond this way (benches/README.md, "Memory and density").

use std::fmt;
use std::sync::OnceLock;

/// A half-open byte range `start..end` in a [`Source`]'s text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// An empty span at `offset`.
    pub const fn at(offset: usize) -> Self {
        Self {
            start: offset,
            end: offset,
        }
    }

    pub const fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }

    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A 1-based line and column; the column counts characters, as editors do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Bytes as text: invalid UTF-8 sequences become U+FFFD. Valid UTF-8 (nearly always) is
/// borrowed after the standard library's validator, which reads ASCII a word at a time; its
/// lossy decoder reads a byte at a time.
pub fn text_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// A named text (usually a file) with its sparse line index.
#[derive(Debug)]
pub struct Source {
    name: String,
    text: String,
    lines: OnceLock<LineIndex>,
}

impl Source {
    /// `name` is how reports refer to the text (a path as the user gave it, or `<stdin>`).
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
            lines: OnceLock::new(),
        }
    }

    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// The source with the `usize` index a text of 4 GiB or more gets.
    #[cfg(test)]
    fn with_wide_index(self) -> Self {
        let _ = self.lines.set(LineIndex::wide(&self.text));
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text, for a caller done with the source.
    pub fn into_text(self) -> String {
        self.text
    }

    /// The text a span covers (empty when the span is out of range or splits a character).
    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.start..span.end).unwrap_or("")
    }

    /// Number of lines (a trailing newline does not start a new line).
    pub fn line_count(&self) -> usize {
        let lines = self.lines().count;
        match self.text.as_bytes().last() {
            Some(b'\n') => lines - 1,
            _ => lines,
        }
    }

    /// Line and column of a byte offset; offsets past the end clamp to the end.
    pub fn position(&self, offset: usize) -> Position {
        let offset = offset.min(self.text.len());
        let (line_index, line_start) = self.lines().line_of(self.text.as_bytes(), offset);
        let column = self
            .text
            .get(line_start..offset)
            .map_or(offset - line_start, |s| s.chars().count())
            + 1;
        Position {
            line: line_index + 1,
            column,
        }
    }

    /// Byte offset where a 1-based line starts.
    pub fn line_start(&self, line: usize) -> Option<usize> {
        self.lines()
            .start_of(self.text.as_bytes(), line.checked_sub(1)?)
    }

    /// The 1-based line's text without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        let Some(start) = self.line_start(line) else {
            return "";
        };
        let end = memchr::memchr(b'\n', &self.text.as_bytes()[start..])
            .map_or(self.text.len(), |i| start + i + 1);
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }
}

/// Lines per block of the sparse index: the index keeps the start of every `BLOCK`th line, and a
/// query counts at most `BLOCK - 1` line breaks from there (a few KB of text on typical YAML).
/// At 64 a lookup is no slower than the full table's, at a 128th of its size.
const BLOCK: usize = 64;

/// The start of every [`BLOCK`]th line (lines 0, `BLOCK`, `2 * BLOCK`, ...), and how many lines
/// there are (line breaks + 1: the empty "line" after a final break counts here).
#[derive(Debug)]
struct LineIndex {
    starts: Starts,
    count: usize,
}

/// Sampled line starts: `u32` when every offset of the text fits, else `usize`.
#[derive(Debug)]
enum Starts {
    Narrow(Vec<u32>),
    Wide(Vec<usize>),
}

impl LineIndex {
    /// `u32` starts when every offset of the text fits, else `usize` (never truncated).
    fn new(text: &str) -> Self {
        let wide = Self::wide(text);
        let Starts::Wide(starts) = &wide.starts else {
            return wide;
        };
        match starts.iter().map(|&s| u32::try_from(s)).collect() {
            Ok(narrow) => Self {
                starts: Starts::Narrow(narrow),
                count: wide.count,
            },
            Err(_) => wide,
        }
    }

    /// The index with `usize` starts (sampled: a 64th of the lines, so the narrowing copy in
    /// [`LineIndex::new`] is small).
    fn wide(text: &str) -> Self {
        let mut starts = vec![0];
        let mut count = 1;
        for at in memchr::memchr_iter(b'\n', text.as_bytes()) {
            if count % BLOCK == 0 {
                starts.push(at + 1);
            }
            count += 1;
        }
        Self {
            starts: Starts::Wide(starts),
            count,
        }
    }

    /// The sampled start of block `block`.
    fn block_start(&self, block: usize) -> Option<usize> {
        match &self.starts {
            Starts::Narrow(starts) => starts.get(block).map(|&s| s as usize),
            Starts::Wide(starts) => starts.get(block).copied(),
        }
    }

    /// The 0-based line holding `offset` (at most the text's length) and that line's start.
    fn line_of(&self, bytes: &[u8], offset: usize) -> (usize, usize) {
        let after = match &self.starts {
            Starts::Narrow(starts) => starts.partition_point(|&s| s as usize <= offset),
            Starts::Wide(starts) => starts.partition_point(|&s| s <= offset),
        };
        // Block 0 starts at 0, so `after` is at least 1.
        let block = after.saturating_sub(1);
        let block_start = self.block_start(block).unwrap_or(0);
        let Some(before) = bytes.get(block_start..offset) else {
            return (block * BLOCK, block_start);
        };
        let breaks = memchr::memchr_iter(b'\n', before).count();
        let line_start =
            memchr::memrchr(b'\n', before).map_or(block_start, |i| block_start + i + 1);
        (block * BLOCK + breaks, line_start)
    }

    /// Where the 0-based line starts, if the text has that line.
    fn start_of(&self, bytes: &[u8], line: usize) -> Option<usize> {
        if line >= self.count {
            return None;
        }
        let block_start = self.block_start(line / BLOCK)?;
        match line % BLOCK {
            0 => Some(block_start),
            skip => memchr::memchr_iter(b'\n', bytes.get(block_start..)?)
                .nth(skip - 1)
                .map(|i| block_start + i + 1),
        }
    }
}

/// Byte offsets of the start of each line.
pub(crate) fn line_starts(text: &str) -> Vec<usize> {
    const LOW: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const BREAKS: u64 = 0x0A0A_0A0A_0A0A_0A0A;
    let bytes = text.as_bytes();
    let mut starts = Vec::with_capacity(bytes.len() / 32 + 1);
    starts.push(0);
    // Eight bytes at a time: a word's line breaks become its zero bytes, marked by their high
    // bit (exactly: no carry crosses bytes), then one step per line break.
    let mut words = bytes.chunks_exact(8);
    let mut base = 0;
    for word in &mut words {
        let mut array = [0u8; 8];
        array.copy_from_slice(word);
        let x = u64::from_le_bytes(array) ^ BREAKS;
        let mut zeros = !(((x & LOW) + LOW) | x | LOW);
        while zeros != 0 {
            starts.push(base + zeros.trailing_zeros() as usize / 8 + 1);
            zeros &= zeros - 1;
        }
        base += 8;
    }
    starts.extend(
        words
            .remainder()
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .map(|(i, _)| base + i + 1),
    );
    starts
}

/// Maps offsets in a rewritten text back to the original text it was made from.
///
/// Used when a file is only YAML after its `${VAR}` placeholders are substituted: the rewritten
/// text is parsed, and every span is carried back so that diagnostics point into the real file.
/// Each entry says "from `rewritten` on, text corresponds to `original` on"; inside a replaced
/// region every offset maps to the start of the replaced expression.
#[derive(Debug, Clone, Default)]
pub struct OffsetMap {
    /// (rewritten offset, original offset, length of the unchanged run that starts there)
    runs: Vec<(usize, usize, usize)>,
}

impl OffsetMap {
    /// The identity map.
    pub fn identity() -> Self {
        Self::default()
    }

    /// Records that `len` bytes at `rewritten` are an unchanged copy of the original at `original`.
    /// Runs must be pushed in increasing order.
    pub fn push_copy(&mut self, rewritten: usize, original: usize, len: usize) {
        self.runs.push((rewritten, original, len));
    }

    /// Records that the text at `rewritten` replaced original text starting at `original`.
    pub fn push_replacement(&mut self, rewritten: usize, original: usize) {
        self.runs.push((rewritten, original, 0));
    }

    /// The original offset of a rewritten offset.
    pub fn to_original(&self, offset: usize) -> usize {
        if self.runs.is_empty() {
            return offset;
        }
        // The last run starting at or before `offset` (a copy pushed after an empty
        // replacement at the same place wins, as it should).
        let index = match self.runs.partition_point(|run| run.0 <= offset) {
            0 => return offset,
            i => i - 1,
        };
        let (rewritten, original, len) = self.runs[index];
        let delta = offset - rewritten;
        if delta <= len {
            original + delta
        } else {
            original
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let source = Source::new("f.yaml", "a: b\nnäme: x\n");
        assert_eq!(source.position(0), Position { line: 1, column: 1 });
        assert_eq!(source.position(3), Position { line: 1, column: 4 });
        assert_eq!(source.position(5), Position { line: 2, column: 1 });
        // `x` sits after a two-byte character.
        let x = source.text().find('x').unwrap();
        assert_eq!(source.position(x), Position { line: 2, column: 7 });
        assert_eq!(source.line_text(2), "näme: x");
        assert_eq!(source.line_count(), 2);
    }

    #[test]
    fn line_starts_follow_every_break() {
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 200] {
            // Breaks beside other bytes whose arithmetic could carry into them.
            let text: String = (0..len)
                .map(|i| match i % 7 {
                    3 => '\n',
                    4 => '\u{b}',
                    5 => 'é',
                    _ if i == 63 => '\n',
                    _ => '\u{9}',
                })
                .collect();
            let expected: Vec<usize> = std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            assert_eq!(line_starts(&text), expected, "{len}");
        }
    }

    proptest::proptest! {
        #[test]
        fn line_starts_are_every_byte_after_a_break(text in "[\n\t\u{b}\u{8a}\u{10a}é😀x]{0,80}") {
            let expected: Vec<usize> = std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            proptest::prop_assert_eq!(line_starts(&text), expected);
        }
    }

    /// The full line-start table `Source` kept before the sparse index, as it answered.
    struct Reference<'t> {
        text: &'t str,
        starts: Vec<usize>,
    }

    impl<'t> Reference<'t> {
        fn new(text: &'t str) -> Self {
            let starts = std::iter::once(0)
                .chain(text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            Self { text, starts }
        }

        fn line_count(&self) -> usize {
            self.starts.len() - usize::from(self.text.ends_with('\n'))
        }

        fn position(&self, offset: usize) -> Position {
            let offset = offset.min(self.text.len());
            let line_index = match self.starts.binary_search(&offset) {
                Ok(i) => i,
                Err(i) => i - 1,
            };
            let line_start = self.starts[line_index];
            let column = self
                .text
                .get(line_start..offset)
                .map_or(offset - line_start, |s| s.chars().count())
                + 1;
            Position {
                line: line_index + 1,
                column,
            }
        }

        fn line_start(&self, line: usize) -> Option<usize> {
            self.starts.get(line.checked_sub(1)?).copied()
        }

        fn line_text(&self, line: usize) -> &'t str {
            let Some(start) = self.line_start(line) else {
                return "";
            };
            let end = self.starts.get(line).copied().unwrap_or(self.text.len());
            self.text[start..end].trim_end_matches(['\n', '\r'])
        }
    }

    /// Every answer of `source` (both index widths) against the full table: every byte offset
    /// (inside characters too) and a few past the end, every line and a few past the last.
    fn check_against_reference(text: &str) -> Result<(), proptest::test_runner::TestCaseError> {
        let reference = Reference::new(text);
        let narrow = Source::new("t", text);
        let wide = Source::new("t", text).with_wide_index();
        for source in [&narrow, &wide] {
            proptest::prop_assert_eq!(source.line_count(), reference.line_count());
            for offset in (0..text.len() + 3).chain([usize::MAX]) {
                proptest::prop_assert_eq!(
                    source.position(offset),
                    reference.position(offset),
                    "offset {}",
                    offset
                );
            }
            for line in (0..reference.starts.len() + 3).chain([usize::MAX]) {
                proptest::prop_assert_eq!(
                    source.line_start(line),
                    reference.line_start(line),
                    "line {}",
                    line
                );
                proptest::prop_assert_eq!(
                    source.line_text(line),
                    reference.line_text(line),
                    "line {}",
                    line
                );
            }
        }
        Ok(())
    }

    proptest::proptest! {
        /// Up to three blocks of lines, so that queries cross block boundaries.
        #[test]
        fn sparse_index_answers_as_the_full_table(
            lines in proptest::collection::vec(("[xé😀\r]{0,3}", proptest::bool::ANY), 0..3 * BLOCK + 2),
            final_break in proptest::bool::ANY,
        ) {
            let mut text = String::new();
            for (i, (line, crlf)) in lines.iter().enumerate() {
                text.push_str(line);
                if i + 1 < lines.len() || final_break {
                    text.push_str(if *crlf { "\r\n" } else { "\n" });
                }
            }
            check_against_reference(&text)?;
        }

        #[test]
        fn sparse_index_answers_as_the_full_table_on_any_text(text in "[\n\r\t\u{8a}\u{10a}é😀x]{0,400}") {
            check_against_reference(&text)?;
        }
    }

    #[test]
    fn sparse_index_at_block_boundaries() {
        for lines in [0, 1, BLOCK - 1, BLOCK, BLOCK + 1, 2 * BLOCK, 2 * BLOCK + 1] {
            for final_break in [false, true] {
                let mut text = vec!["é"; lines].join("\n");
                if final_break {
                    text.push('\n');
                }
                check_against_reference(&text).unwrap();
            }
        }
    }

    #[test]
    fn offsets_past_the_end_clamp() {
        let source = Source::new("f", "ab");
        assert_eq!(source.position(99), Position { line: 1, column: 3 });
    }

    #[test]
    fn offset_map_carries_offsets_back() {
        // original: "a: ${X}\nb: 1" ; rewritten: "a: \nb: 1"
        let mut map = OffsetMap::identity();
        map.push_copy(0, 0, 3);
        map.push_replacement(3, 3);
        map.push_copy(3, 7, 5);
        assert_eq!(map.to_original(1), 1);
        assert_eq!(map.to_original(3), 7);
        assert_eq!(map.to_original(4), 8);
        assert_eq!(map.to_original(7), 11);
    }
}
