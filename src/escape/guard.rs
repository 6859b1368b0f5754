//! The last check on every line capkg writes to stdout and stderr ([`Guard`]).
//!
//! The GitHub Actions runner reads a step's output line by line (a line ends at LF, CR or
//! CRLF) and runs as a workflow command a line that starts with `::` once leading white space is
//! trimmed (`::warning::…`, `::stop-commands::…`, `::add-mask::…`), and, in its legacy form,
//! any line holding `##[` (`##[set-output name=x;]…`) wherever it is. A terminal acts on escape
//! sequences. The guard lets through neither unless capkg means it: a workflow command only when
//! written with [`Output::command`], and of the escape sequences only the SGR ones
//! (`ESC [ … m`) capkg's colours are made of. Anything else is shown as [`super::text`] shows it.

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
    inner: W,
}

impl<W: Write> Guard<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            pending: Vec::new(),
            inner,
        }
    }

    /// The line held back (with its line break, if it has one), checked and added to `out`: as
    /// an ordinary line, or as capkg's command. capkg writes only text through the guard; bytes
    /// that are not UTF-8 are replaced.
    fn check_pending(&mut self, command: bool, out: &mut Vec<u8>) {
        let text = String::from_utf8_lossy(&self.pending);
        out.extend_from_slice(checked_line(&text, command).as_bytes());
        self.pending.clear();
    }
}

impl<W: Write> Write for Guard<W> {
    /// Passes on every line `buf` completes, in one write (the lines of a buffered block stay
    /// one block: stdout's line buffering would otherwise make a system call of each).
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut out = Vec::new();
        let mut rest = buf;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            self.pending.extend_from_slice(&rest[..=at]);
            self.check_pending(false, &mut out);
            rest = &rest[at + 1..];
        }
        self.pending.extend_from_slice(rest);
        if !out.is_empty() {
            self.inner.write_all(&out)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Output for Guard<W> {
    fn command(&mut self, line: &str) -> io::Result<()> {
        let mut out = Vec::new();
        // A command must start its line.
        if !self.pending.is_empty() {
            self.pending.push(b'\n');
            self.check_pending(false, &mut out);
        }
        // The data is escaped already; a line break left in it would end the command.
        let line = line.replace('\r', "%0D").replace('\n', "%0A");
        self.pending = line.into_bytes();
        self.pending.push(b'\n');
        self.check_pending(true, &mut out);
        self.inner.write_all(&out)
    }
}

impl<W: Write> Drop for Guard<W> {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            let mut out = Vec::new();
            self.check_pending(false, &mut out);
            let _ = self.inner.write_all(&out);
        }
        let _ = self.inner.flush();
    }
}

/// `line` (with its line break, if it has one) as it may be written: every control character but
/// the final LF, a tab and an SGR sequence shown as an escape, a CR included (the runner ends a
/// line there); `##[` anywhere and, unless `command`, `::` at the start after white space
/// shown with an escaped character, so that the runner sees no command.
pub(crate) fn checked_line(line: &str, command: bool) -> std::borrow::Cow<'_, str> {
    let body = line.strip_suffix('\n').unwrap_or(line);
    let starts_command = !command && {
        let trimmed = body.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        trimmed.starts_with("::")
    };
    let risky = starts_command || body.contains("##[") || super::holds_escaped(body, false);
    if !risky {
        return std::borrow::Cow::Borrowed(line);
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
    std::borrow::Cow::Owned(out)
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
