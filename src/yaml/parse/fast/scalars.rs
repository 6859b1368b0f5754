//! The scalars and flow sequences of the fast reader: plain, quoted (with their escapes and
//! line folding) and block scalars, and single-line flow sequences of scalars, each read as
//! saphyr-parser reads it, at the same places, or given up.

use std::borrow::Cow;

use saphyr_parser::{Event, ScalarStyle};

use super::{AfterQuoted, Read, Reader, give_up};

/// Where a quoted scalar goes on after a line break.
struct Continuation {
    /// The first character of the next line that is not blank.
    at: usize,
    /// Blank lines between.
    blank_lines: usize,
}

/// How a block scalar treats its final line breaks.
#[derive(Clone, Copy, PartialEq)]
enum Chomping {
    Clip,
    Strip,
    Keep,
}

impl<'t> Reader<'t, '_, '_> {
    /// A plain scalar starting at `at`, not a key, continued on the lines indented more than
    /// `parent`. Returns the start of the line after it.
    pub(super) fn plain(&mut self, at: usize, parent: isize) -> Read {
        let (first_end, comment, line_end) = self.plain_line(at)?;
        let mut after = self.next_line(line_end);
        if comment {
            // A continuation after a comment is an error saphyr-parser reports.
            if let Some(line) = self.content_line(after)?
                && line.indent as isize > parent
            {
                return Err(give_up(line!()));
            }
            self.scalar(
                Cow::Borrowed(&self.text[at..first_end]),
                ScalarStyle::Plain,
                at,
                first_end,
            )?;
            return Ok(after);
        }
        let mut folded: Option<String> = None;
        let mut end = first_end;
        let mut breaks = 0;
        loop {
            let first = self.skip_spaces(after);
            let indent = first - after;
            if self.at_line_end(first) {
                if first >= self.bytes.len() {
                    break;
                }
                breaks += 1;
                after = first + 1;
                continue;
            }
            if indent as isize <= parent || self.byte(first) == Some(b'#') {
                break;
            }
            if indent == 0 && self.bytes[first..].starts_with(b"...") {
                return Err(give_up(line!()));
            }
            // Any character but `#` continues the scalar (`: ` in it is refused below).
            let (content_end, comment, line_end) = self.plain_line(first)?;
            if comment {
                return Err(give_up(line!()));
            }
            let text = folded.get_or_insert_with(|| self.text[at..first_end].to_string());
            match breaks {
                0 => text.push(' '),
                n => text.extend(std::iter::repeat_n('\n', n)),
            }
            text.push_str(&self.text[first..content_end]);
            end = content_end;
            breaks = 0;
            after = self.next_line(line_end);
        }
        let text = match folded {
            Some(text) => Cow::Owned(text),
            None => Cow::Borrowed(&self.text[at..first_end]),
        };
        self.scalar(text, ScalarStyle::Plain, at, end)?;
        // Blank lines after the scalar are not part of it; `after` is past them, which is where
        // the next token is looked for anyway.
        Ok(after)
    }

    /// One line of a plain scalar from `at`: the end of its content, whether a comment ends it,
    /// and the line's end. `: ` in it (a key where a value is) is left to saphyr-parser.
    fn plain_line(&self, at: usize) -> Read<(usize, bool, usize)> {
        let line_end = self.line_end(at);
        // The content ends before the spaces ahead of a comment or of the line's end.
        let content_end = |end: usize| at + self.text[at..end].trim_end_matches(' ').len();
        let mut i = at;
        // Only a `:` or a `#` can end the line early: jumped to rather than stepped to.
        while let Some(found) = memchr::memchr2(b':', b'#', &self.bytes[i..line_end]) {
            i += found;
            match self.bytes[i] {
                b':' if self.at_blank(i + 1) => return Err(give_up(line!())),
                b'#' if i > at && self.bytes[i - 1] == b' ' => {
                    return Ok((content_end(i), true, line_end));
                }
                _ => i += 1,
            }
        }
        Ok((content_end(line_end), false, line_end))
    }

    /// A quoted scalar starting at `at` (its opening quote). With `continued`, it may go on over
    /// lines indented deeper than that column (a value's); without, it must end on its
    /// line (a key, or an item of a flow sequence). Returns its text, style and the offset after
    /// its closing quote.
    pub(super) fn quoted(
        &self,
        at: usize,
        continued: Option<usize>,
    ) -> Read<(Cow<'t, str>, ScalarStyle, usize)> {
        let double = self.bytes[at] == b'"';
        let style = match double {
            true => ScalarStyle::DoubleQuoted,
            false => ScalarStyle::SingleQuoted,
        };
        let mut owned: Option<String> = None;
        let mut piece = at + 1;
        let mut i = at + 1;
        loop {
            match self.byte(i) {
                None => return Err(give_up(line!())),
                Some(b'\n') => {
                    let Some(column) = continued else {
                        return Err(give_up(line!()));
                    };
                    // A line break folds: the spaces around it go, a break becomes a space and
                    // blank lines after it line feeds.
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(self.text[piece..i].trim_end_matches(' '));
                    let next = self.continuation(i + 1, column)?;
                    match next.blank_lines {
                        0 => text.push(' '),
                        n => text.extend(std::iter::repeat_n('\n', n)),
                    }
                    piece = next.at;
                    i = next.at;
                }
                Some(b'\\') if double && self.byte(i + 1) == Some(b'\n') => {
                    let Some(column) = continued else {
                        return Err(give_up(line!()));
                    };
                    // An escaped line break joins the lines: the spaces before it stay, those
                    // after it go, and blank lines after it are line feeds.
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[piece..i]);
                    let next = self.continuation(i + 2, column)?;
                    text.extend(std::iter::repeat_n('\n', next.blank_lines));
                    piece = next.at;
                    i = next.at;
                }
                Some(b'"') if double => break,
                Some(b'\'') if !double => {
                    if self.byte(i + 1) != Some(b'\'') {
                        break;
                    }
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[piece..=i]);
                    i += 2;
                    piece = i;
                }
                Some(b'\\') if double => {
                    let (c, length) = self.escape(i + 1)?;
                    let text = owned.get_or_insert_with(String::new);
                    text.push_str(&self.text[piece..i]);
                    text.push(c);
                    i += 1 + length;
                    piece = i;
                }
                Some(_) => i += 1,
            }
        }
        let text = match owned {
            Some(mut text) => {
                text.push_str(&self.text[piece..i]);
                Cow::Owned(text)
            }
            None => Cow::Borrowed(&self.text[piece..i]),
        };
        Ok((text, style, i + 1))
    }

    /// Where a quoted scalar goes on after a line break, from the line start `line`: past blank
    /// lines and the next line's indentation, which must be deeper than `column`.
    fn continuation(&self, mut line: usize, column: usize) -> Read<Continuation> {
        let mut blank_lines = 0;
        loop {
            let at = self.skip_spaces(line);
            match self.byte(at) {
                None => return Err(give_up(line!())),
                Some(b'\n') => {
                    blank_lines += 1;
                    line = at + 1;
                }
                Some(_) => {
                    let indent = at - line;
                    let marker = self.bytes[at..].starts_with(b"---")
                        || self.bytes[at..].starts_with(b"...");
                    if indent <= column || (indent == 0 && marker) {
                        return Err(give_up(line!()));
                    }
                    return Ok(Continuation { at, blank_lines });
                }
            }
        }
    }

    /// The escape whose letter is at `at` (after a backslash): the character and how many bytes
    /// the escape takes after the backslash.
    fn escape(&self, at: usize) -> Read<(char, usize)> {
        let simple = match self.byte(at) {
            Some(b'0') => '\0',
            Some(b'a') => '\x07',
            Some(b'b') => '\x08',
            Some(b't') => '\t',
            Some(b'n') => '\n',
            Some(b'v') => '\x0b',
            Some(b'f') => '\x0c',
            Some(b'r') => '\r',
            Some(b'e') => '\x1b',
            Some(b' ') => ' ',
            Some(b'"') => '"',
            Some(b'/') => '/',
            Some(b'\\') => '\\',
            Some(b'N') => '\u{85}',
            Some(b'_') => '\u{a0}',
            Some(b'L') => '\u{2028}',
            Some(b'P') => '\u{2029}',
            Some(b'x') => return self.hex_escape(at, 2),
            Some(b'u') => return self.hex_escape(at, 4),
            Some(b'U') => return self.hex_escape(at, 8),
            _ => return Err(give_up(line!())),
        };
        Ok((simple, 1))
    }

    fn hex_escape(&self, at: usize, digits: usize) -> Read<(char, usize)> {
        let hex = self
            .text
            .get(at + 1..at + 1 + digits)
            .ok_or_else(|| give_up(line!()))?;
        if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(give_up(line!()));
        }
        let value = u32::from_str_radix(hex, 16).map_err(|_| give_up(line!()))?;
        let c = char::from_u32(value).ok_or_else(|| give_up(line!()))?;
        Ok((c, 1 + digits))
    }

    /// What follows a quoted scalar whose closing quote ends at `after`.
    pub(super) fn after_quoted(&self, after: usize) -> Read<AfterQuoted> {
        let at = self.skip_spaces(after);
        match self.byte(at) {
            Some(b':') if self.at_blank(at + 1) => Ok(AfterQuoted::Colon(at)),
            None | Some(b'\n') => Ok(AfterQuoted::LineEnd(at)),
            Some(b'#') if at > after => Ok(AfterQuoted::LineEnd(self.line_end(at))),
            _ => Err(give_up(line!())),
        }
    }

    /// A flow collection on one line: `{}`, or a sequence of plain and quoted scalars. Returns
    /// the start of the line after it.
    pub(super) fn flow(&mut self, at: usize) -> Read {
        if self.bytes[at] == b'{' {
            let close = self.skip_spaces(at + 1);
            if self.byte(close) != Some(b'}') {
                return Err(give_up(line!()));
            }
            let end = self.after_flow(close + 1)?;
            self.emit(Event::MappingStart(0, None), at, at + 1)?;
            self.emit(Event::MappingEnd, close, end)?;
            return Ok(self.next_line(end));
        }
        self.emit(Event::SequenceStart(0, None), at, at + 1)?;
        let mut i = self.skip_spaces(at + 1);
        if self.byte(i) != Some(b']') {
            loop {
                i = self.flow_item(i)?;
                match self.byte(i) {
                    Some(b',') => {
                        i = self.skip_spaces(i + 1);
                        if self.byte(i) == Some(b']') {
                            return Err(give_up(line!()));
                        }
                    }
                    Some(b']') => break,
                    _ => return Err(give_up(line!())),
                }
            }
        }
        let end = self.after_flow(i + 1)?;
        self.emit(Event::SequenceEnd, i, end)?;
        Ok(self.next_line(end))
    }

    /// One scalar of a flow sequence at `at`; returns the offset of the `,` or `]` after it.
    fn flow_item(&mut self, at: usize) -> Read {
        if matches!(self.byte(at), Some(b'"' | b'\'')) {
            let (text, style, after) = self.quoted(at, None)?;
            let next = self.skip_spaces(after);
            self.scalar(text, style, at, next)?;
            return Ok(next);
        }
        if !self.plain_starts(at, true) {
            return Err(give_up(line!()));
        }
        let mut i = at;
        let mut content_end = at;
        loop {
            match self.byte(i) {
                Some(b',' | b']') => break,
                None | Some(b'\n' | b'[' | b'{' | b'}' | b':' | b'#') => {
                    return Err(give_up(line!()));
                }
                Some(b' ') => i += 1,
                Some(_) => {
                    i += 1;
                    content_end = i;
                }
            }
        }
        self.scalar(
            Cow::Borrowed(&self.text[at..content_end]),
            ScalarStyle::Plain,
            at,
            content_end,
        )?;
        Ok(i)
    }

    /// Where the span of a flow collection's closing bracket at `after - 1` ends: behind the
    /// spaces and comment that follow it, which must end the line.
    fn after_flow(&self, after: usize) -> Read {
        let at = self.skip_spaces(after);
        match self.byte(at) {
            None | Some(b'\n') => Ok(at),
            Some(b'#') if at > after => Ok(self.line_end(at)),
            _ => Err(give_up(line!())),
        }
    }

    /// A literal (`|`) or folded (`>`) block scalar whose header starts at `at`, in a collection
    /// in column `parent`. Returns the start of the line that ends it.
    pub(super) fn block_scalar(&mut self, at: usize, parent: isize) -> Read {
        let literal = self.bytes[at] == b'|';
        let mut i = at + 1;
        let chomping = match self.byte(i) {
            Some(b'-') => Chomping::Strip,
            Some(b'+') => Chomping::Keep,
            _ => Chomping::Clip,
        };
        if chomping != Chomping::Clip {
            i += 1;
        }
        let header_end = self.skip_spaces(i);
        match self.byte(header_end) {
            Some(b'\n') => {}
            Some(b'#') if header_end > i => {}
            // An indentation indicator, or no content at all.
            _ => return Err(give_up(line!())),
        }
        let first_line = self.next_line(header_end);
        let content = self.skip_spaces(first_line);
        let indent = content - first_line;
        // Leading blank lines, and empty scalars, are left to saphyr-parser.
        if self.at_line_end(content) || indent as isize <= parent {
            return Err(give_up(line!()));
        }
        let mut out = String::new();
        let mut leading_break = false;
        let mut leading_blank = false;
        let mut trailing_breaks = 0;
        let mut line = first_line;
        let (end, ending_line) = loop {
            let start = line + indent;
            let line_end = self.line_end(start);
            if line_end >= self.bytes.len() {
                // saphyr-parser ends a last line without a line break as if it had one.
                return Err(give_up(line!()));
            }
            let trailing_blank = self.byte(start) == Some(b' ');
            if !literal && leading_break && !leading_blank && !trailing_blank {
                if trailing_breaks == 0 {
                    out.push(' ');
                }
            } else if leading_break {
                out.push('\n');
            }
            out.extend(std::iter::repeat_n('\n', trailing_breaks));
            trailing_breaks = 0;
            leading_blank = trailing_blank;
            out.push_str(&self.text[start..line_end]);
            leading_break = true;
            line = line_end + 1;
            // Blank lines, up to the next content line or the end.
            let ended = loop {
                let first = self.skip_spaces(line);
                let spaces = first - line;
                if first >= self.bytes.len() {
                    break Some((self.bytes.len(), self.bytes.len()));
                }
                if self.bytes[first] == b'\n' {
                    if spaces > indent {
                        return Err(give_up(line!()));
                    }
                    trailing_breaks += 1;
                    line = first + 1;
                    continue;
                }
                if spaces < indent {
                    break Some((first, line));
                }
                break None;
            };
            if let Some(ended) = ended {
                break ended;
            }
        };
        match chomping {
            Chomping::Strip => {}
            Chomping::Clip => out.push('\n'),
            Chomping::Keep => {
                out.push('\n');
                out.extend(std::iter::repeat_n('\n', trailing_breaks));
            }
        }
        let style = match literal {
            true => ScalarStyle::Literal,
            false => ScalarStyle::Folded,
        };
        self.scalar(Cow::Owned(out), style, first_line + indent, end)?;
        Ok(ending_line)
    }
}
