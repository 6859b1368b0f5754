//! The read-back tracer of traced layout writing: where every node went in the text written, and
//! from that the documents a YAML reader loads from the text, without reading it (see the
//! [`super`] module documentation for the span conventions it follows).

use crate::yaml::node::{MAX_OFFSET, Node, ScalarStyle, Value};
use crate::yaml::parse::Document;
use crate::yaml::source::Span;

/// Where [`super::write_documents_traced`] wrote each node, in the order written.
#[derive(Debug)]
pub struct Trace {
    records: Vec<Record>,
    /// Each document's text (what the loader's document splitting makes of it).
    documents: Vec<Span>,
}

/// Where one node went: its span in the text as the loader reports it, and how it was written.
/// Offsets are `u32` (half the size, one record per node of a file of millions); a text past
/// 4 GiB is outside what the trace follows and is read back by parsing instead.
#[derive(Debug, Clone, Copy)]
pub(super) struct Record {
    start: u32,
    end: u32,
    /// The style a scalar was written in.
    pub(super) style: ScalarStyle,
    /// An empty plain key, written (and so read back as) `~`.
    pub(super) tilde: bool,
}

impl Trace {
    /// The documents a reader loads from the traced text: `nodes` (the nodes written, in the same
    /// order) with the spans and styles they were written with. `offset` is where the traced text
    /// starts in the file it is part of, `first_index` the index of its first document there.
    /// `None` when `nodes` are not the nodes traced.
    pub fn into_documents(
        self,
        mut nodes: Vec<Node>,
        offset: usize,
        first_index: usize,
    ) -> Option<Vec<Document>> {
        if nodes.len() != self.documents.len() {
            return None;
        }
        let shift = |span: Span| Span::new(span.start + offset, span.end + offset);
        let mut records = self.records.iter();
        let mut stack: Vec<&mut Node> = nodes.iter_mut().rev().collect();
        while let Some(node) = stack.pop() {
            let record = records.next()?;
            let span = shift(Span::new(record.start as usize, record.end as usize));
            // Past what a node holds (the second half of a text of 4 GiB or more), the caller
            // parses the text instead, and the loader refuses it.
            if span.end > MAX_OFFSET {
                return None;
            }
            node.set_span(span);
            match &mut node.value {
                Value::Scalar { text, style } => {
                    *style = record.style;
                    if record.tilde {
                        *text = compact_str::CompactString::const_new("~");
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
        if records.next().is_some() {
            return None;
        }
        Some(
            nodes
                .into_iter()
                .zip(self.documents)
                .enumerate()
                .map(|(index, (root, span))| Document {
                    index: first_index + index,
                    span: shift(span),
                    root: Some(root),
                })
                .collect(),
        )
    }
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
    /// The trace, unless the tree written is outside the conventions it follows.
    pub(super) fn finish(self) -> Option<Trace> {
        self.supported.then_some(Trace {
            records: self.records,
            documents: self.documents,
        })
    }

    pub(super) fn record(&mut self, style: ScalarStyle) -> usize {
        self.records.push(Record {
            start: 0,
            end: 0,
            style,
            tilde: false,
        });
        self.records.len() - 1
    }

    /// `offset` as a record holds it; past 4 GiB the trace gives up.
    fn offset(&mut self, offset: usize) -> u32 {
        u32::try_from(offset).unwrap_or_else(|_| {
            self.supported = false;
            0
        })
    }

    pub(super) fn set(&mut self, index: usize, span: Span) {
        let (start, end) = (self.offset(span.start), self.offset(span.end));
        if let Some(record) = self.records.get_mut(index) {
            record.start = start;
            record.end = end;
        }
    }

    pub(super) fn set_start(&mut self, index: usize, start: usize) {
        let start = self.offset(start);
        if let Some(record) = self.records.get_mut(index) {
            record.start = start;
        }
    }

    /// A token starts at `offset`: whatever waited for the next token ends there.
    pub(super) fn token(&mut self, offset: usize) {
        let offset = self.offset(offset);
        for (index, empty_block) in self.pending.drain(..) {
            if let Some(record) = self.records.get_mut(index) {
                record.end = offset;
                if empty_block.is_some() {
                    record.start = offset;
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
                record.end = end32;
                if let Some(header) = header {
                    record.start = header;
                }
            }
        }
        self.pending = pending;
        self.documents.push(Span::new(start, end));
    }
}
