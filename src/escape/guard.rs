//! The last check on every line capkg writes to stdout and stderr ([`Guard`]).
//!
//! The GitHub Actions runner reads a step's output line by line (a line ends at LF, CR or
//! CRLF) and runs as a workflow command a line that starts with `::` once leading white space is
//! trimmed (`::warning::…`, `::stop-commands::…`, `::add-mask::…`), and, in its legacy form,
//! any line holding `##[` (`##[set-output name=x;]…`) wherever it is. A terminal acts on escape
//! sequences. The guard lets through neither unless capkg means it: a workflow command only when
//! written with [`Output::command`], and of the escape sequences only the SGR ones
//! (`ESC [ … m`) capkg's colours are made of. Anything else is shown as [`super::text`] shows it.

use std::borrow::Cow;
use std::io::{self, Write};

use super::{is_escaped, push_escape};

/// Output that can carry GitHub Actions workflow commands: the one way capkg writes one.
pub(crate) trait Output: Write {
    /// Writes `line` (`::error file=…::message`, its data and properties already escaped) as a
    /// line of its own, so that the runner reads it as a command.
    fn command(&mut self, line: &str) -> io::Result<()>;
}

/// A writer whose every line is checked on its way out (see the module). It holds back the
/// end of a line until the line is complete, because a command is told by the start of its line
/// (and a writer may cut a character in two); dropping the guard writes what is left.
pub(crate) struct Guard<W: Write> {
    /// The part of the current line not yet written.
    pending: Vec<u8>,
    /// What a write passes on, kept between writes.
    out: Vec<u8>,
    inner: W,
}

impl<W: Write> Guard<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            pending: Vec::new(),
            out: Vec::new(),
            inner,
        }
    }

    /// The line held back (with its line break, if it has one), checked and added to what is
    /// passed on: as an ordinary line, or as capkg's command. capkg writes only text through the
    /// guard; bytes that are not UTF-8 are replaced.
    fn check_pending(&mut self, command: bool) {
        let text = match std::str::from_utf8(&self.pending) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&self.pending),
        };
        match checked_line(&text, command) {
            // A line as it is, alone (a JSON document): handed on without a copy.
            Cow::Borrowed(_) if self.out.is_empty() && matches!(text, Cow::Borrowed(_)) => {
                std::mem::swap(&mut self.out, &mut self.pending);
            }
            checked => self.out.extend_from_slice(checked.as_bytes()),
        }
        self.pending.clear();
    }

    /// Writes what the checks passed on.
    fn pass_on(&mut self) -> io::Result<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        let written = self.inner.write_all(&self.out);
        self.out.clear();
        written
    }
}

impl<W: Write> Write for Guard<W> {
    /// Passes on every line `buf` completes, in one write (the lines of a buffered block stay
    /// one block: stdout's line buffering would otherwise make a system call of each).
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        // A block of whole lines with nothing to look at (most of capkg's output) goes on as it
        // is; a block that might hold something is checked line by line.
        if self.pending.is_empty()
            && let Some(end) = memchr::memrchr(b'\n', buf)
            && plain_lines(&buf[..=end])
        {
            self.inner.write_all(&buf[..=end])?;
            rest = &buf[end + 1..];
        }
        while let Some(at) = memchr::memchr(b'\n', rest) {
            self.pending.extend_from_slice(&rest[..=at]);
            self.check_pending(false);
            rest = &rest[at + 1..];
        }
        self.pending.extend_from_slice(rest);
        self.pass_on()?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Output for Guard<W> {
    fn command(&mut self, line: &str) -> io::Result<()> {
        // A command must start its line.
        if !self.pending.is_empty() {
            self.pending.push(b'\n');
            self.check_pending(false);
        }
        // The data is escaped already; a line break left in it would end the command.
        let line = line.replace('\r', "%0D").replace('\n', "%0A");
        self.pending.extend_from_slice(line.as_bytes());
        self.pending.push(b'\n');
        self.check_pending(true);
        self.pass_on()
    }
}

impl<W: Write> Drop for Guard<W> {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            self.check_pending(false);
            let _ = self.pass_on();
        }
        let _ = self.inner.flush();
    }
}

/// Whether whole lines (`block`, ending with a line break) certainly hold nothing
/// [`checked_line`] would change: no control character but line breaks and tabs, no `::` or
/// `##[` at all, and none of the non-ASCII characters [`super::is_escaped`] is true for (whose
/// UTF-8 starts `C2 8x`, `C2 9x`, `D8 9C`, `E2 80` or `E2 81`). Each is one fast search over the
/// block; when one finds anything, the lines are looked at one by one.
pub(super) fn plain_lines(block: &[u8]) -> bool {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;
    static SEQUENCES: LazyLock<[Finder<'static>; 5]> = LazyLock::new(|| {
        [
            b"::" as &[u8],
            b"##[",
            b"\xd8\x9c",
            b"\xe2\x80",
            b"\xe2\x81",
        ]
        .map(Finder::new)
    });
    let control = |b: u8| (b < 0x20 && b != b'\n' && b != b'\t') || b == 0x7f;
    !block.iter().fold(false, |found, &b| found | control(b))
        && (block.is_ascii()
            || !memchr::memchr_iter(0xc2, block)
                .any(|at| block.get(at + 1).is_some_and(|b| (0x80..0xa0).contains(b))))
        && SEQUENCES.iter().all(|finder| finder.find(block).is_none())
}

/// `line` (with its line break, if it has one) as it may be written: every control character but
/// the final LF, a tab and an SGR sequence shown as an escape, a CR included (the runner ends a
/// line there); `##[` anywhere and, unless `command`, `::` at the start after white space
/// shown with an escaped character, so that the runner sees no command.
pub(crate) fn checked_line(line: &str, command: bool) -> Cow<'_, str> {
    let body = line.strip_suffix('\n').unwrap_or(line);
    let starts_command = !command && {
        let trimmed = body.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        trimmed.starts_with("::")
    };
    let risky =
        starts_command || super::holds_legacy_command(body) || super::holds_escaped(body, false);
    if !risky {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len() + 16);
    let mut command_broken = !starts_command;
    let mut chars = body.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c == '\u{1b}'
            && let Some(length) = sgr_length(&body[at..])
        {
            out.push_str(&body[at..at + length]);
            // Skip the rest of the sequence.
            while chars.peek().is_some_and(|(next, _)| *next < at + length) {
                chars.next();
            }
            continue;
        }
        if c == ':' && !command_broken {
            push_escape(&mut out, c);
            command_broken = true;
            continue;
        }
        if c == '[' && body[..at].ends_with("##") {
            push_escape(&mut out, c);
            continue;
        }
        if is_escaped(c) && c != '\t' {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    if line.ends_with('\n') {
        out.push('\n');
    }
    Cow::Owned(out)
}
/// The length of the SGR sequence (`ESC [ digits and ; m`, a colour or a reset) `text` starts
/// with, if it starts with one.
fn sgr_length(text: &str) -> Option<usize> {
    let rest = text.strip_prefix("\u{1b}[")?;
    let parameters = rest
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b';')
        .count();
    (rest.as_bytes().get(parameters) == Some(&b'm')).then_some(2 + parameters + 1)
}
