//! go-yaml v2's emitter (`emitterc.go`), for untagged, anchorless, non-canonical output: the
//! state machine that turns [`super::events_for`]'s events into bytes, with explicit stacks so
//! nesting depth costs heap, not call stack. It never panics on any event list.

use super::{Event, ScalarStyle};
use crate::yaml::scalar_analysis::{
    Analysis, analyze_scalar, char_width, is_break, is_printable, is_space, last_char_start,
    starts_with_bom,
};

/// Writes the events as go-yaml's emitter does.
/// Writes the events; `capacity` is the expected length of the text (0 when unknown).
pub(super) fn emit(events: &[Event<'_>], capacity: usize) -> Vec<u8> {
    let mut emitter = Emitter::new(events);
    emitter.out.reserve_exact(capacity);
    emitter.run();
    emitter.out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    FirstDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    FlowSequenceFirstItem,
    FlowSequenceItem,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingSimpleValue,
    FlowMappingValue,
    BlockSequenceFirstItem,
    BlockSequenceItem,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingSimpleValue,
    BlockMappingValue,
    End,
}

const BEST_INDENT: i64 = 2;
const BEST_WIDTH: usize = 80;

struct Emitter<'e> {
    events: &'e [Event<'e>],
    head: usize,
    /// Output bytes; only whole UTF-8 sequences of the (valid) input and ASCII are copied in.
    out: Vec<u8>,
    state: State,
    states: Vec<State>,
    indent: i64,
    indents: Vec<i64>,
    flow_level: usize,
    root_context: bool,
    sequence_context: bool,
    mapping_context: bool,
    simple_key_context: bool,
    column: usize,
    whitespace: bool,
    indention: bool,
    open_ended: bool,
    analysis: Analysis,
    style: ScalarStyle,
}

impl<'e> Emitter<'e> {
    fn new(events: &'e [Event<'e>]) -> Self {
        Self {
            events,
            head: 0,
            out: Vec::new(),
            state: State::StreamStart,
            states: Vec::new(),
            indent: -1,
            indents: Vec::new(),
            flow_level: 0,
            root_context: false,
            sequence_context: false,
            mapping_context: false,
            simple_key_context: false,
            column: 0,
            whitespace: true,
            indention: true,
            open_ended: false,
            analysis: Analysis::default(),
            style: ScalarStyle::Plain,
        }
    }

    fn run(&mut self) {
        while self.head < self.events.len() {
            if let Some(Event::Scalar { value, .. }) = self.events.get(self.head) {
                self.analysis = analyze_scalar(value.as_bytes());
            }
            self.dispatch();
            self.head += 1;
        }
    }

    fn event(&self) -> &'e Event<'e> {
        // `run` only dispatches while `head` is in range.
        &self.events[self.head.min(self.events.len() - 1)]
    }

    fn next_event(&self) -> Option<&'e Event<'e>> {
        self.events.get(self.head + 1)
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::End);
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn dispatch(&mut self) {
        match self.state {
            State::StreamStart => {
                self.indent = -1;
                self.column = 0;
                self.whitespace = true;
                self.indention = true;
                self.state = State::FirstDocumentStart;
            }
            State::FirstDocumentStart | State::DocumentStart => {
                // Only implicit documents reach here; a StreamEnd ends the output.
                self.state = match self.event() {
                    Event::DocumentStart => State::DocumentContent,
                    _ => State::End,
                };
            }
            State::DocumentContent => {
                self.states.push(State::DocumentEnd);
                self.emit_node(true, false, false, false);
            }
            State::DocumentEnd => {
                self.write_indent();
                self.state = State::DocumentStart;
            }
            State::FlowSequenceFirstItem => self.emit_flow_sequence_item(true),
            State::FlowSequenceItem => self.emit_flow_sequence_item(false),
            State::FlowMappingFirstKey => self.emit_flow_mapping_key(true),
            State::FlowMappingKey => self.emit_flow_mapping_key(false),
            State::FlowMappingSimpleValue => self.emit_flow_mapping_value(true),
            State::FlowMappingValue => self.emit_flow_mapping_value(false),
            State::BlockSequenceFirstItem => self.emit_block_sequence_item(true),
            State::BlockSequenceItem => self.emit_block_sequence_item(false),
            State::BlockMappingFirstKey => self.emit_block_mapping_key(true),
            State::BlockMappingKey => self.emit_block_mapping_key(false),
            State::BlockMappingSimpleValue => self.emit_block_mapping_value(true),
            State::BlockMappingValue => self.emit_block_mapping_value(false),
            State::End => {}
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn emit_flow_sequence_item(&mut self, first: bool) {
        if first {
            self.write_indicator("[", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
        }
        if *self.event() == Event::SequenceEnd {
            self.flow_level = self.flow_level.saturating_sub(1);
            self.pop_indent();
            self.write_indicator("]", false, false, false);
            self.pop_state();
            return;
        }
        if !first {
            self.write_indicator(",", false, false, false);
        }
        if self.column > BEST_WIDTH {
            self.write_indent();
        }
        self.states.push(State::FlowSequenceItem);
        self.emit_node(false, true, false, false);
    }

    fn emit_flow_mapping_key(&mut self, first: bool) {
        if first {
            self.write_indicator("{", true, true, false);
            self.increase_indent(true, false);
            self.flow_level += 1;
        }
        if *self.event() == Event::MappingEnd {
            self.flow_level = self.flow_level.saturating_sub(1);
            self.pop_indent();
            self.write_indicator("}", false, false, false);
            self.pop_state();
            return;
        }
        if !first {
            self.write_indicator(",", false, false, false);
        }
        if self.column > BEST_WIDTH {
            self.write_indent();
        }
        if self.check_simple_key() {
            self.states.push(State::FlowMappingSimpleValue);
            self.emit_node(false, false, true, true);
        } else {
            self.write_indicator("?", true, false, false);
            self.states.push(State::FlowMappingValue);
            self.emit_node(false, false, true, false);
        }
    }

    fn emit_flow_mapping_value(&mut self, simple: bool) {
        if simple {
            self.write_indicator(":", false, false, false);
        } else {
            if self.column > BEST_WIDTH {
                self.write_indent();
            }
            self.write_indicator(":", true, false, false);
        }
        self.states.push(State::FlowMappingKey);
        self.emit_node(false, false, true, false);
    }

    fn emit_block_sequence_item(&mut self, first: bool) {
        if first {
            let indentless = self.mapping_context && !self.indention;
            self.increase_indent(false, indentless);
        }
        if *self.event() == Event::SequenceEnd {
            self.pop_indent();
            self.pop_state();
            return;
        }
        self.write_indent();
        self.write_indicator("-", true, false, true);
        self.states.push(State::BlockSequenceItem);
        self.emit_node(false, true, false, false);
    }

    fn emit_block_mapping_key(&mut self, first: bool) {
        if first {
            self.increase_indent(false, false);
        }
        if *self.event() == Event::MappingEnd {
            self.pop_indent();
            self.pop_state();
            return;
        }
        self.write_indent();
        if self.check_simple_key() {
            self.states.push(State::BlockMappingSimpleValue);
            self.emit_node(false, false, true, true);
        } else {
            self.write_indicator("?", true, false, true);
            self.states.push(State::BlockMappingValue);
            self.emit_node(false, false, true, false);
        }
    }

    fn emit_block_mapping_value(&mut self, simple: bool) {
        if simple {
            self.write_indicator(":", false, false, false);
        } else {
            self.write_indent();
            self.write_indicator(":", true, false, true);
        }
        self.states.push(State::BlockMappingKey);
        self.emit_node(false, false, true, false);
    }

    fn emit_node(&mut self, root: bool, sequence: bool, mapping: bool, simple_key: bool) {
        self.root_context = root;
        self.sequence_context = sequence;
        self.mapping_context = mapping;
        self.simple_key_context = simple_key;
        match self.event() {
            Event::Scalar { value, style } => self.emit_scalar(value, *style),
            Event::SequenceStart => {
                self.state = if self.flow_level > 0 || self.check_empty(Event::SequenceEnd) {
                    State::FlowSequenceFirstItem
                } else {
                    State::BlockSequenceFirstItem
                };
            }
            Event::MappingStart => {
                self.state = if self.flow_level > 0 || self.check_empty(Event::MappingEnd) {
                    State::FlowMappingFirstKey
                } else {
                    State::BlockMappingFirstKey
                };
            }
            // The event list is well formed; anything else ends the output.
            _ => self.state = State::End,
        }
    }

    /// The collection starting at `head` is empty (its end event follows at once).
    fn check_empty(&self, end: Event<'_>) -> bool {
        self.next_event() == Some(&end)
    }

    fn check_simple_key(&self) -> bool {
        match self.event() {
            Event::Scalar { value, .. } => !self.analysis.multiline && value.len() <= 128,
            Event::SequenceStart => self.check_empty(Event::SequenceEnd),
            Event::MappingStart => self.check_empty(Event::MappingEnd),
            _ => false,
        }
    }

    fn emit_scalar(&mut self, value: &str, requested: ScalarStyle) {
        self.select_scalar_style(value, requested);
        self.increase_indent(true, false);
        let value = value.as_bytes();
        let allow_breaks = !self.simple_key_context;
        match self.style {
            ScalarStyle::Plain => self.write_plain(value, allow_breaks),
            ScalarStyle::SingleQuoted => self.write_single_quoted(value, allow_breaks),
            ScalarStyle::DoubleQuoted => self.write_double_quoted(value, allow_breaks),
            ScalarStyle::Literal => self.write_literal(value),
        }
        self.pop_indent();
        self.pop_state();
    }

    fn select_scalar_style(&mut self, value: &str, requested: ScalarStyle) {
        let a = self.analysis;
        let mut style = requested;
        if self.simple_key_context && a.multiline {
            style = ScalarStyle::DoubleQuoted;
        }
        if style == ScalarStyle::Plain {
            if (self.flow_level > 0 && !a.flow_plain_allowed)
                || (self.flow_level == 0 && !a.block_plain_allowed)
            {
                style = ScalarStyle::SingleQuoted;
            }
            if value.is_empty() && (self.flow_level > 0 || self.simple_key_context) {
                style = ScalarStyle::SingleQuoted;
            }
        }
        if style == ScalarStyle::SingleQuoted && !a.single_quoted_allowed {
            style = ScalarStyle::DoubleQuoted;
        }
        if style == ScalarStyle::Literal
            && (!a.block_allowed || self.flow_level > 0 || self.simple_key_context)
        {
            style = ScalarStyle::DoubleQuoted;
        }
        self.style = style;
    }

    // --- output primitives -------------------------------------------------------------------

    fn put(&mut self, byte: u8) {
        self.out.push(byte);
        self.column += 1;
    }

    fn put_break(&mut self) {
        self.out.push(b'\n');
        self.column = 0;
    }

    /// Copies the character at `*i` and advances past it.
    fn write(&mut self, s: &[u8], i: &mut usize) {
        let width = char_width(s, *i);
        if let Some(bytes) = s.get(*i..*i + width) {
            self.out.extend_from_slice(bytes);
        }
        self.column += 1;
        *i += width;
    }

    /// Copies the bytes from `i` on while `plain` holds for them (ASCII bytes only: one column
    /// each), as many [`Emitter::write`] calls would.
    fn write_run(&mut self, s: &[u8], i: &mut usize, plain: impl Fn(u8) -> bool) {
        let start = *i;
        let end = s[start..]
            .iter()
            .position(|&b| !b.is_ascii() || !plain(b))
            .map_or(s.len(), |n| start + n);
        self.out.extend_from_slice(&s[start..end]);
        self.column += end - start;
        *i = end;
    }

    fn write_all(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            self.write(bytes, &mut i);
        }
    }

    fn write_break(&mut self, s: &[u8], i: &mut usize) {
        if s.get(*i) == Some(&b'\n') {
            self.put_break();
            *i += 1;
        } else {
            self.write(s, i);
            self.column = 0;
        }
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        if self.column < indent {
            // At once: CRDs nest deep, and a space at a time showed in the writer's profile.
            let spaces = indent - self.column;
            self.out.resize(self.out.len() + spaces, b' ');
            self.column = indent;
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(b' ');
        }
        self.write_all(indicator);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    // --- scalar writers ----------------------------------------------------------------------

    fn write_plain(&mut self, value: &[u8], allow_breaks: bool) {
        if !self.whitespace {
            self.put(b' ');
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && !is_space(value, i + 1) {
                    self.write_indent();
                    i += char_width(value, i);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(value, &mut i);
                // The visible ASCII after it goes through this branch too, a byte and a column
                // each, with nothing else to do: copied at once.
                self.write_run(value, &mut i, |b| (0x21..=0x7E).contains(&b));
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
        if self.root_context {
            self.open_ended = true;
        }
    }

    fn write_single_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut i = 0;
        while i < value.len() {
            if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < value.len() - 1
                    && !is_space(value, i + 1)
                {
                    self.write_indent();
                    i += char_width(value, i);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else if is_break(value, i) {
                if !breaks && value[i] == b'\n' {
                    self.put_break();
                }
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if value[i] == b'\'' {
                    self.put(b'\'');
                }
                self.write(value, &mut i);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_double_quoted(&mut self, value: &[u8], allow_breaks: bool) {
        let mut spaces = false;
        self.write_indicator("\"", true, false, false);
        let mut i = 0;
        while i < value.len() {
            let octet = value[i];
            if !is_printable(value, i)
                || starts_with_bom(value)
                || is_break(value, i)
                || octet == b'"'
                || octet == b'\\'
            {
                let width = char_width(value, i);
                let code = value
                    .get(i..i + width)
                    .and_then(|b| std::str::from_utf8(b).ok())
                    .and_then(|s| s.chars().next())
                    .map_or(u32::from(octet), |c| c as u32);
                i += width.max(1);
                self.put(b'\\');
                match code {
                    0x00 => self.put(b'0'),
                    0x07 => self.put(b'a'),
                    0x08 => self.put(b'b'),
                    0x09 => self.put(b't'),
                    0x0A => self.put(b'n'),
                    0x0B => self.put(b'v'),
                    0x0C => self.put(b'f'),
                    0x0D => self.put(b'r'),
                    0x1B => self.put(b'e'),
                    0x22 => self.put(b'"'),
                    0x5C => self.put(b'\\'),
                    0x85 => self.put(b'N'),
                    0xA0 => self.put(b'_'),
                    0x2028 => self.put(b'L'),
                    0x2029 => self.put(b'P'),
                    _ => {
                        let (letter, digits) = if code <= 0xFF {
                            (b'x', 2)
                        } else if code <= 0xFFFF {
                            (b'u', 4)
                        } else {
                            (b'U', 8)
                        };
                        self.put(letter);
                        for k in (0..digits).rev() {
                            let digit = ((code >> (4 * k)) & 0x0F) as u8;
                            self.put(if digit < 10 {
                                b'0' + digit
                            } else {
                                b'A' + digit - 10
                            });
                        }
                    }
                }
                spaces = false;
            } else if is_space(value, i) {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < value.len() - 1
                {
                    self.write_indent();
                    if is_space(value, i + 1) {
                        self.put(b'\\');
                    }
                    i += char_width(value, i);
                } else {
                    self.write(value, &mut i);
                }
                spaces = true;
            } else {
                self.write(value, &mut i);
                if !starts_with_bom(value) {
                    // Visible ASCII but `"` and `\\` needs no escape: copied at once.
                    self.write_run(value, &mut i, |b| {
                        (0x21..=0x7E).contains(&b) && b != b'"' && b != b'\\'
                    });
                }
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn write_block_scalar_hints(&mut self, value: &[u8]) {
        if is_space(value, 0) || is_break(value, 0) {
            let hint = [b'0' + BEST_INDENT as u8];
            self.write_indicator(
                std::str::from_utf8(&hint).unwrap_or("2"),
                false,
                false,
                false,
            );
        }
        self.open_ended = false;
        let chomp = if value.is_empty() {
            Some("-")
        } else {
            let last = last_char_start(value, value.len());
            if !is_break(value, last) {
                Some("-")
            } else if last == 0 || is_break(value, last_char_start(value, last)) {
                // A lone break, or two at the end: keep them all.
                self.open_ended = true;
                Some("+")
            } else {
                None
            }
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
    }

    fn write_literal(&mut self, value: &[u8]) {
        self.write_indicator("|", true, false, false);
        self.write_block_scalar_hints(value);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        let mut i = 0;
        while i < value.len() {
            if is_break(value, i) {
                self.write_break(value, &mut i);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.write(value, &mut i);
                // ASCII other than CR and LF is no break: copied at once, a column a byte.
                self.write_run(value, &mut i, |b| b.is_ascii() && b != b'\r' && b != b'\n');
                self.indention = false;
                breaks = false;
            }
        }
    }
}
