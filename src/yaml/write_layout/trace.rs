//! The read-back tracer of traced layout writing: where every node of a document went in the text
//! written, and from that the documents a YAML reader loads from the text, without reading it
//! (see the [`super`] module documentation for the span conventions it follows).

use crate::yaml::node::{
    MAX_OFFSET, Node, OFFSET_BITS, OFFSET_MASK, ScalarStyle, ScalarText, Value, style_bits,
    style_from_bits,
};
use crate::yaml::parse::Document;
use crate::yaml::source::Span;

/// Where one node went: its span in the text as the loader reports it, and how it was written.
/// 8 bytes, one record per node of a file of millions: offsets of 29 bits as a node holds them,
/// the style in the end's top bits and `~` in the start's. A text past [`MAX_OFFSET`] is outside
/// what the trace follows and is read back by parsing instead.
#[derive(Debug, Clone, Copy)]
pub(super) struct Record {
    start_and_tilde: u32,
    end_and_style: u32,
}

const TILDE: u32 = 1 << OFFSET_BITS;

impl Record {
    fn new(style: ScalarStyle) -> Self {
        Self {
            start_and_tilde: 0,
            end_and_style: style_bits(style) << OFFSET_BITS,
        }
    }

    fn span(self) -> Span {
        Span::new(
            (self.start_and_tilde & OFFSET_MASK) as usize,
            (self.end_and_style & OFFSET_MASK) as usize,
        )
    }

    /// The style a scalar was written in.
    fn style(self) -> ScalarStyle {
        style_from_bits(self.end_and_style >> OFFSET_BITS)
    }

    /// An empty plain key, written (and so read back as) `~`.
    fn tilde(self) -> bool {
        self.start_and_tilde & TILDE != 0
    }

    pub(super) fn set_style(&mut self, style: ScalarStyle) {
        self.end_and_style =
            (self.end_and_style & OFFSET_MASK) | (style_bits(style) << OFFSET_BITS);
    }

    pub(super) fn set_tilde(&mut self) {
        self.start_and_tilde |= TILDE;
    }

    /// `start` is at most [`MAX_OFFSET`] ([`Tracer::offset`]).
    fn set_start(&mut self, start: u32) {
        self.start_and_tilde = (self.start_and_tilde & !OFFSET_MASK) | start;
    }

    fn set_end(&mut self, end: u32) {
        self.end_and_style = (self.end_and_style & !OFFSET_MASK) | end;
    }
}

/// The documents a reader loads from a text written by [`super::write_documents_as_read`]: its
/// `nodes`, read back, with the document `spans` it returned. `offset` is where that text starts
/// in the file it is part of, `first_index` the index of its first document there. `None` when
/// the spans and nodes do not pair up, or a span moved by `offset` is past what a node holds
/// (the second half of a text of 512 MiB or more: the caller parses the text, and the loader
/// refuses it).
pub fn read_back_documents(
    mut nodes: Vec<Node>,
    spans: Vec<Span>,
    offset: usize,
    first_index: usize,
) -> Option<Vec<Document>> {
    if nodes.len() != spans.len() {
        return None;
    }
    if offset > 0 {
        let mut stack: Vec<&mut Node> = nodes.iter_mut().collect();
        while let Some(node) = stack.pop() {
            let span = node.span();
            if span.end + offset > MAX_OFFSET {
                return None;
            }
            node.set_span(Span::new(span.start + offset, span.end + offset));
            match node.value_mut() {
                Value::Scalar { .. } => {}
                Value::Sequence(items) => stack.extend(items.iter_mut()),
                Value::Mapping(mapping) => {
                    for (key, value) in mapping.entries.iter_mut() {
                        stack.push(key);
                        stack.push(value);
                    }
                }
            }
        }
    }
    Some(
        nodes
            .into_iter()
            .zip(spans)
            .enumerate()
            .map(|(index, (root, span))| Document {
                index: first_index + index,
                span: Span::new(span.start + offset, span.end + offset),
                root: Some(root),
            })
            .collect(),
    )
}

/// The span bookkeeping of traced writing.
pub(super) struct Tracer {
    /// One per node (keys included), in the order written.
    pub(super) records: Vec<Record>,
    /// Records whose end is where the next token starts: a block collection's, a literal
    /// block's. A literal block without content lines starts there too, or at its header
    /// (`Some(header)`) when the document ends first.
    pub(super) pending: Vec<(usize, Option<usize>)>,
    pub(super) documents: Vec<Span>,
    pub(super) supported: bool,
}

impl Tracer {
    /// The documents' spans, unless the tree written is outside the conventions the trace
    /// follows.
    pub(super) fn finish(self) -> Option<Vec<Span>> {
        self.supported.then_some(self.documents)
    }

    /// Gives `root`, the document written last, the spans and styles its nodes were written with
    /// (an empty plain key becomes the `~` written), and forgets them for the next document.
    /// False when the trace cannot say what a reader loads: the records are not `root`'s nodes,
    /// or the tree is outside the conventions the trace follows.
    pub(super) fn read_back(&mut self, root: &mut Node) -> bool {
        if !self.supported {
            return false;
        }
        let mut records = self.records.drain(..);
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let Some(record) = records.next() else {
                return false;
            };
            node.set_span(record.span());
            node.set_scalar_style(record.style());
            match node.value_mut() {
                Value::Scalar { text } => {
                    if record.tilde() {
                        *text = ScalarText::from("~");
                    }
                }
                Value::Sequence(items) => stack.extend(items.iter_mut().rev()),
                Value::Mapping(mapping) => {
                    for (key, value) in mapping.entries.iter_mut().rev() {
                        stack.push(value);
                        stack.push(key);
                    }
                }
            }
        }
        records.next().is_none()
    }

    pub(super) fn record(&mut self, style: ScalarStyle) -> usize {
        self.records.push(Record::new(style));
        self.records.len() - 1
    }

    /// `offset` as a record holds it; past [`MAX_OFFSET`] the trace gives up.
    fn offset(&mut self, offset: usize) -> u32 {
        match u32::try_from(offset) {
            Ok(offset) if offset <= OFFSET_MASK => offset,
            _ => {
                self.supported = false;
                0
            }
        }
    }

    pub(super) fn set(&mut self, index: usize, span: Span) {
        let (start, end) = (self.offset(span.start), self.offset(span.end));
        if let Some(record) = self.records.get_mut(index) {
            record.set_start(start);
            record.set_end(end);
        }
    }

    pub(super) fn set_start(&mut self, index: usize, start: usize) {
        let start = self.offset(start);
        if let Some(record) = self.records.get_mut(index) {
            record.set_start(start);
        }
    }

    /// A token starts at `offset`: whatever waited for the next token ends there.
    pub(super) fn token(&mut self, offset: usize) {
        let offset = self.offset(offset);
        for (index, empty_block) in self.pending.drain(..) {
            if let Some(record) = self.records.get_mut(index) {
                record.set_end(offset);
                if empty_block.is_some() {
                    record.set_start(offset);
                }
            }
        }
    }

    /// A document's text ends at `end`: what waits for a token ends with it.
    pub(super) fn end_document(&mut self, start: usize, end: usize) {
        let end32 = self.offset(end);
        let mut pending = std::mem::take(&mut self.pending);
        for (index, empty_block) in pending.drain(..) {
            let header = empty_block.map(|header| self.offset(header));
            if let Some(record) = self.records.get_mut(index) {
                record.set_end(end32);
                if let Some(header) = header {
                    record.set_start(header);
                }
            }
        }
        self.pending = pending;
        self.documents.push(Span::new(start, end));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_keeps_its_span_style_and_tilde_apart() {
        assert_eq!(std::mem::size_of::<Record>(), 8);
        for style in [
            ScalarStyle::Plain,
            ScalarStyle::SingleQuoted,
            ScalarStyle::DoubleQuoted,
            ScalarStyle::Literal,
            ScalarStyle::Folded,
        ] {
            let mut record = Record::new(style);
            record.set_start(OFFSET_MASK);
            record.set_end(OFFSET_MASK);
            assert_eq!(record.span(), Span::new(MAX_OFFSET, MAX_OFFSET));
            assert_eq!((record.style(), record.tilde()), (style, false));
            record.set_tilde();
            record.set_start(3);
            record.set_end(5);
            record.set_style(ScalarStyle::Literal);
            assert_eq!(record.span(), Span::new(3, 5));
            assert_eq!(
                (record.style(), record.tilde()),
                (ScalarStyle::Literal, true)
            );
        }
    }

    #[test]
    fn the_trace_gives_up_past_what_a_record_holds() {
        let mut tracer = Tracer {
            records: Vec::new(),
            pending: Vec::new(),
            documents: Vec::new(),
            supported: true,
        };
        assert_eq!(tracer.offset(MAX_OFFSET), OFFSET_MASK);
        assert!(tracer.supported);
        assert_eq!(tracer.offset(MAX_OFFSET + 1), 0);
        assert!(!tracer.supported);
    }
}
