//! YAML documents with exact source positions.
//!
//! Every diagnostic capkg prints points at a file, a line and a column, so the document model keeps
//! a byte [`Span`] on every node, key and value. Files are split into documents the way clusterctl
//! splits them (a line starting with `---` ends a document), each document is parsed with
//! saphyr-parser's event API into a [`Node`] tree by an iterative loader (no recursion, bounded
//! depth, bounded alias expansion), and scalars keep their raw text and quoting style so that rules
//! can reason about what Kubernetes' YAML 1.1 readers will make of them ([`resolve`]).
//!
//! Writing lives beside reading: [`write_layout`] keeps the maintainer's key order and formatting
//! choices, [`write_clusterctl`] reproduces what clusterctl (sigs.k8s.io/yaml over go-yaml v2) prints.

// The one module of the library with `unsafe`: the packed node layout (its docs say why).
#[allow(unsafe_code)]
mod compact;
pub mod de;
mod go_float;
pub mod json_value;
mod key_order;
mod node;
mod parse;
pub mod resolve;
mod scalar_analysis;
mod source;
pub mod write_clusterctl;
pub mod write_layout;
#[cfg(test)]
mod write_tests;

pub use node::{Items, Mapping, Node, ScalarStyle, ScalarText, Tag, Value};
pub use parse::{
    AsWritten, Differing, Document, Error, ErrorKind, Limits, YamlFile, load_beside,
    load_differing, parse_file, parse_rewritten, parse_str, parse_str_on_two_threads,
};
pub use source::{OffsetMap, Position, Source, Span, text_lossy};
