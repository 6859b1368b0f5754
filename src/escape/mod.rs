//! What capkg prints of text it did not write: object names, images, file names, versions,
//! server messages, anything a release, a server or a repository holds. Such text is data, and
//! capkg's output goes to terminals and CI logs that act on some characters, so every renderer
//! escapes it here, one rule per kind of output:
//!
//! - [`text`]: plain lines (human and compact output, log lines, errors). Control characters,
//!   line breaks and the Unicode characters that reorder or break lines are shown as visible
//!   escapes (`\n`, `\u{1b}`, `\u{202e}`), so a name can neither start a line of its own nor
//!   send a terminal escape sequence. Backslashes are left as they are (capkg's own messages
//!   quote commands such as `tr '\r' '\n'`), so the escapes are for reading, not for decoding:
//!   `--format json` gives the exact text.
//! - [`workflow_data`] and [`workflow_property`]: the message and the properties of a GitHub
//!   Actions workflow command, escaped as GitHub's toolkit does, which the runner undoes.
//! - [`code_span`], [`inline`] and [`cell`]: Markdown (step summaries, `capkg diff --format
//!   markdown`): a name cannot leave its code span or its table cell, and text outside code spans
//!   makes no link, image or HTML.
//! - [`JsonEscapes`]: JSON, with what serde_json leaves raw escaped too.
//!
//! At the boundary, [`Guard`] checks every line capkg writes to stdout and stderr, whatever wrote
//! it: no line can be a GitHub workflow command unless capkg writes it as one
//! ([`Output::command`]), and no control character reaches the terminal raw but capkg's own
//! colours. The escapes above make the guard's work nothing in practice; it is there so that a
//! path that forgot cannot be used.

mod guard;
#[cfg(test)]
mod tests;

pub(crate) use guard::{Guard, Output};

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

/// Whether [`text`] shows `c` as an escape: C0 and C1 control characters and DEL (terminal
/// control, line breaks, tabs), the Unicode line and paragraph separators, and the
/// bidirectional formatting characters, which make a reader see text in another order than it
/// is (CVE-2021-42574).
pub(crate) fn is_escaped(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `c` as [`text`] shows it: `\n`, `\r`, `\t`, else `\u{HEX}`.
pub(crate) fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

/// Whether `text` holds a character [`is_escaped`] is true for (a tab aside when `tabs_too` is
/// false), decided on its bytes: output is mostly ASCII and box drawing, which this passes over
/// without decoding a character.
pub(crate) fn holds_escaped(text: &str, tabs_too: bool) -> bool {
    let bytes = text.as_bytes();
    let control = |b: u8| (b < 0x20 && (tabs_too || b != b'\t')) || b == 0x7f;
    // A fold, not `any`: without an early exit the compiler checks many bytes at once.
    if bytes.iter().fold(false, |found, &b| found | control(b)) {
        return true;
    }
    if bytes.is_ascii() {
        return false;
    }
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    // Only the lead bytes of the characters looked for are looked at: box drawing (`E2 94`) and
    // `·` (`C2 B7`) are passed over after one byte.
    memchr::memchr3_iter(0xc2, 0xd8, 0xe2, bytes).any(|i| match bytes[i] {
        // C1 controls: U+0080 to U+009F.
        0xc2 => (0x80..0xa0).contains(&at(i + 1)),
        // U+061C.
        0xd8 => at(i + 1) == 0x9c,
        // U+200E, U+200F, U+2028 to U+202E; U+2066 to U+2069.
        _ => match at(i + 1) {
            0x80 => matches!(at(i + 2), 0x8e | 0x8f | 0xa8..=0xae),
            0x81 => matches!(at(i + 2), 0xa6..=0xa9),
            _ => false,
        },
    })
}

/// Whether `text` holds `##[`, the GitHub runner's legacy workflow command (looked for only
/// where a `#` is: most text has none).
pub(crate) fn holds_legacy_command(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr(b'#', bytes)
        .is_some_and(|at| memchr::memmem::find(&bytes[at..], b"##[").is_some())
}

/// `text` for a plain line of output: every character [`is_escaped`] is true for shown as an
/// escape. Ordinary text comes back as it is, unallocated.
pub(crate) fn text(text: &str) -> Cow<'_, str> {
    if !holds_escaped(text, true) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_escaped(c) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// `text` for a message that may quote several lines (a failing command's stderr in an error):
/// each line as [`text`] shows it, and every line after the first starting with `prefix`, so that
/// none can pass for a line of capkg's own.
pub(crate) fn lines(content: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(content.len() + 8);
    for (i, line) in content.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(prefix);
        }
        out.push_str(&text(line));
    }
    out
}

/// The message of a workflow command (after `::`), as GitHub's toolkit escapes it
/// (`escapeData`): `%`, CR and LF. The runner undoes it before it shows the annotation.
pub(crate) fn workflow_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value of a workflow command (`file=…`, `title=…`), as the toolkit escapes it
/// (`escapeProperty`): [`workflow_data`]'s and `:` and `,`, which end a property.
pub(crate) fn workflow_property(text: &str) -> String {
    workflow_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// `text` as a Markdown code span: shown exactly as [`text`] shows it, whatever backticks it
/// holds. The fence is one backtick longer than the longest run inside (CommonMark), and a
/// space pads content that starts or ends with a backtick or a space, which CommonMark strips
/// again. In a table cell, pass the result through [`cell`].
pub(crate) fn code_span(content: &str) -> String {
    let content = self::text(content);
    if content.is_empty() {
        return "` `".to_string();
    }
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest + 1);
    let pad = if content.starts_with(['`', ' ']) || content.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{content}{pad}{fence}")
}

/// `text` as Markdown inline text whose backtick code spans stay code spans (capkg's messages
/// quote names in backticks): [`text`]'s escapes, and outside code spans `<` written `&lt;` (no
/// HTML tag, comment or autolink) and a `]` before `(` or `[` escaped (no link, image or
/// reference), with a backslash before a `\` or `]` doubled so that the text cannot undo those
/// escapes. Code spans are found as CommonMark finds them (a run of backticks closed by the next
/// run of the same length); their content is literal in Markdown already. Ordinary text comes
/// back as it is.
pub(crate) fn inline(content: &str) -> String {
    let content = self::text(content);
    let bytes = content.as_bytes();
    let mut out = String::with_capacity(content.len() + 8);
    let mut at = 0;
    while at < content.len() {
        let Some(tick) = content[at..].find('`').map(|i| at + i) else {
            push_outside_code(&mut out, &content[at..]);
            break;
        };
        push_outside_code(&mut out, &content[at..tick]);
        let run = bytes[tick..].iter().take_while(|&&b| b == b'`').count();
        let after = tick + run;
        match closing_run(&content[after..], run) {
            Some(end) => {
                // The whole span, fences included, as it is.
                out.push_str(&content[tick..after + end + run]);
                at = after + end + run;
            }
            None => {
                // No closing run: the backticks are literal, and what follows is text.
                out.push_str(&content[tick..after]);
                at = after;
            }
        }
    }
    out
}

/// Where in `rest` a run of exactly `run` backticks starts.
fn closing_run(rest: &str, run: usize) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let length = bytes[at..].iter().take_while(|&&b| b == b'`').count();
            if length == run {
                return Some(at);
            }
            at += length;
        } else {
            at += 1;
        }
    }
    None
}

fn push_outside_code(out: &mut String, text: &str) {
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        match c {
            '\\' if matches!(next, Some('\\' | ']')) => out.push_str("\\\\"),
            ']' if matches!(next, Some('(' | '[')) => out.push_str("\\]"),
            '<' => out.push_str("&lt;"),
            _ => out.push(c),
        }
    }
}

/// Markdown (from [`inline`], [`code_span`] or capkg's own) made fit for a GFM table cell: each
/// `|` escaped, as GFM wants even inside a code span (its table parser ends a cell only at a
/// pipe with no backslash before it, and then drops that backslash). Line breaks, which would
/// end the row, are escapes already.
pub(crate) fn cell(markdown: &str) -> String {
    markdown.replace('|', "\\|")
}

/// `url` as the destination of a Markdown link (`[text](url)`): every byte outside the URL
/// characters that mean nothing to Markdown percent-encoded (parentheses, angle brackets,
/// backslashes, pipes, backticks, spaces, quotes, control and non-ASCII characters), which a URL
/// reads the same. `None` for a URL with a scheme other than `http`, `https` or `file`
/// (`javascript:`): shown, not linked. A path (no scheme) is a relative link.
pub(crate) fn link_destination(url: &str) -> Option<String> {
    let scheme = url.split_once(':').map(|(s, _)| s).filter(|s| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    });
    if let Some(scheme) = scheme
        && !["https", "http", "file"].contains(&scheme.to_ascii_lowercase().as_str())
    {
        return None;
    }
    let mut out = String::with_capacity(url.len());
    for byte in url.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~:/?#@!$&*+,;=%".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    Some(out)
}

/// A serde_json [`Formatter`](serde_json::ser::Formatter) that escapes, as `\uXXXX`, what
/// serde_json writes raw but a terminal or a CI runner acts on: DEL, the C1 controls (`\u009b`
/// starts a terminal sequence), the line and paragraph separators and the bidirectional
/// formatting characters ([`is_escaped`]), and the `[` of `##[`, the GitHub runner's legacy
/// workflow command, which it finds anywhere in a line. The text decodes to the same string.
pub(crate) struct JsonEscapes<F>(pub F);

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for JsonEscapes<F> {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json cuts fragments only at what it escapes itself, which `##[` is not.
        let mut rest = fragment;
        while let Some((at, c, width)) = next_json_escape(rest) {
            writer.write_all(&rest.as_bytes()[..at])?;
            write!(writer, "\\u{:04x}", u32::from(c))?;
            rest = &rest[at + width..];
        }
        writer.write_all(rest.as_bytes())
    }

    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }

    fn end_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_key(w)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// The first character of `text` that [`JsonEscapes`] escapes: its offset, itself and its
/// length in bytes.
fn next_json_escape(text: &str) -> Option<(usize, char, usize)> {
    if !holds_escaped(text, true) && !holds_legacy_command(text) {
        return None;
    }
    text.char_indices().find_map(|(at, c)| {
        let legacy_command = c == '[' && text[..at].ends_with("##");
        (is_escaped(c) || legacy_command).then_some((at, c, c.len_utf8()))
    })
}
