//! A document as clusterctl holds it: the JSON value `sigs.k8s.io/yaml.Unmarshal` produces when
//! it decodes YAML into `map[string]interface{}`.
//!
//! That call reads the YAML with go-yaml v2 (YAML 1.1: `on` is `true`, `0755` is 493), expands
//! merge keys the go-yaml v2 way (a merged mapping overwrites keys written before the `<<` and is
//! overwritten by keys written after it), turns non-string keys into strings (`1` -> `"1"`,
//! `true` -> `"true"`, `1.5` -> float32 formatting), refuses `null` and very large integer keys,
//! and then passes everything through `encoding/json`, so every number becomes a float64 and
//! `.inf`/`.nan` are refused. [`JsonValue::from_node`] reproduces that on capkg's tree (whose
//! aliases the loader has already expanded). Writing the value back out is
//! [`super::write_clusterctl`]'s job.
//!
//! Two keys that differ in YAML but become the same string (`1` and `"1"`) make Go keep one of
//! them at random; here the later one in the document wins.

use std::collections::HashMap;

use super::go_float;
use super::node::{Node, Tag, Value, is_merge_key, resolve_merge_keys};
use super::parse::Limits;
use super::resolve::{self, Resolved};
use super::source::Span;

/// A JSON value. Objects keep their keys unique, in the order first seen; two objects are equal
/// when they hold the same keys with equal values, in any order (JSON objects, like Go maps, have
/// no order).
#[derive(Debug, Clone)]
pub enum JsonValue {
    Null,
    Bool(bool),
    /// Every JSON number is a float64 once `encoding/json` has decoded it.
    Number(f64),
    String(String),
    Array(Vec<JsonValue>),
    Object(Vec<(String, JsonValue)>),
}

impl PartialEq for JsonValue {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (JsonValue::Null, JsonValue::Null) => true,
            (JsonValue::Bool(a), JsonValue::Bool(b)) => a == b,
            (JsonValue::Number(a), JsonValue::Number(b)) => a == b,
            (JsonValue::String(a), JsonValue::String(b)) => a == b,
            (JsonValue::Array(a), JsonValue::Array(b)) => a == b,
            (JsonValue::Object(a), JsonValue::Object(b)) => {
                let same_order = || a.iter().zip(b).all(|(x, y)| x == y);
                a.len() == b.len()
                    && (same_order()
                        || a.iter().all(|(key, value)| {
                            b.iter()
                                .any(|(other_key, other)| other_key == key && other == value)
                        }))
            }
            _ => false,
        }
    }
}

/// Why a document cannot become a JSON value (clusterctl fails on the same documents).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToJsonError {
    #[error(
        "the map key `{text}` is {kind}, which sigs.k8s.io/yaml cannot turn into a JSON key (clusterctl fails with \"unsupported map key\"); quote it to make it a string"
    )]
    UnsupportedKey {
        span: Span,
        text: String,
        kind: &'static str,
    },
    #[error("a sequence or mapping is used as a map key; JSON keys must be strings")]
    CollectionKey { span: Span },
    #[error("the merge key `<<` needs a mapping or a sequence of mappings as its value")]
    BadMerge { span: Span },
    #[error("`{text}` is not a number JSON can hold (clusterctl fails with \"unsupported value\")")]
    NonFiniteNumber { span: Span, text: String },
    #[error("`{text}` cannot be read as {tag}")]
    TagMismatch {
        span: Span,
        text: String,
        tag: String,
    },
    #[error("the !!binary value `{text}` is not valid base64")]
    InvalidBinary { span: Span, text: String },
    #[error("nesting deeper than {max} levels")]
    TooDeep { span: Span, max: usize },
}

impl ToJsonError {
    /// Where in the source the problem is.
    pub fn span(&self) -> Span {
        match self {
            ToJsonError::UnsupportedKey { span, .. }
            | ToJsonError::CollectionKey { span }
            | ToJsonError::BadMerge { span }
            | ToJsonError::NonFiniteNumber { span, .. }
            | ToJsonError::TagMismatch { span, .. }
            | ToJsonError::InvalidBinary { span, .. }
            | ToJsonError::TooDeep { span, .. } => *span,
        }
    }
}

/// A scalar as go-yaml v2 decodes it into `interface{}`.
#[derive(Debug, Clone, PartialEq)]
enum GoScalar {
    Null,
    Bool(bool),
    /// A Go `int`.
    Int(i64),
    /// A Go `uint64` (positive integers beyond `i64::MAX`).
    Uint(u64),
    Float(f64),
    String(String),
}

impl JsonValue {
    /// The value clusterctl holds for a document (or any node), or why it would fail to load it.
    /// (A copy of the tree, converted: `capkg render` consumes its trees with
    /// [`JsonValue::from_node_owned`]; this serves the writers' tests and `write_document`.)
    pub fn from_node(node: &Node) -> Result<JsonValue, ToJsonError> {
        convert_owned(node.clone(), 0)
    }

    /// [`JsonValue::from_node`], consuming the tree: string scalars move into the value instead of
    /// being copied.
    pub fn from_node_owned(node: Node) -> Result<JsonValue, ToJsonError> {
        convert_owned(node, 0)
    }

    /// The value at a path of object keys.
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        match self {
            JsonValue::Object(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// About how much work writing or converting the value is: its strings' bytes and a few
    /// bytes per value. What [`crate::assemble`] shares work between threads by.
    pub fn weight(&self) -> usize {
        const PER_VALUE: usize = 8;
        PER_VALUE
            + match self {
                JsonValue::Null | JsonValue::Bool(_) | JsonValue::Number(_) => 0,
                JsonValue::String(s) => s.len(),
                JsonValue::Array(items) => items.iter().map(JsonValue::weight).sum(),
                JsonValue::Object(entries) => entries
                    .iter()
                    .map(|(key, value)| key.len() + value.weight())
                    .sum(),
            }
    }
}

fn max_depth() -> usize {
    Limits::default().max_depth
}

/// go-yaml v2's decoding of a node into an `interface{}`, then JSON, consuming the node.
fn convert_owned(node: Node, depth: usize) -> Result<JsonValue, ToJsonError> {
    if depth > max_depth() {
        return Err(ToJsonError::TooDeep {
            span: node.span(),
            max: max_depth(),
        });
    }
    match node.value() {
        Value::Scalar { .. } => {
            let scalar = match decode_scalar(&node)? {
                Decoded::Other(GoScalar::Float(f)) if !f.is_finite() => {
                    return Err(ToJsonError::NonFiniteNumber {
                        span: node.span(),
                        text: node.scalar_text().unwrap_or_default().to_string(),
                    });
                }
                Decoded::Other(scalar) => scalar,
                Decoded::Text => own_text(node),
            };
            Ok(match scalar {
                GoScalar::Null => JsonValue::Null,
                GoScalar::Bool(b) => JsonValue::Bool(b),
                GoScalar::Int(i) => JsonValue::Number(i as f64),
                GoScalar::Uint(u) => JsonValue::Number(u as f64),
                // Non-finite ones were refused above.
                GoScalar::Float(f) => JsonValue::Number(f),
                GoScalar::String(s) => JsonValue::String(s),
            })
        }
        Value::Sequence(_) => {
            let Value::Sequence(items) = node.into_value() else {
                return Ok(JsonValue::Array(Vec::new()));
            };
            items
                .into_iter()
                .map(|item| convert_owned(item, depth + 1))
                .collect::<Result<_, _>>()
                .map(JsonValue::Array)
        }
        Value::Mapping(_) => {
            let mut map = GoMap::new();
            fill_owned(&mut map, node, depth)?;
            Ok(JsonValue::Object(map.into_json_object()?))
        }
    }
}

/// Mappings with more entries than this get a hash index of their string keys; smaller ones (nearly
/// all of a manifest's) are searched linearly, which costs less than hashing and copying every key.
const INDEX_FROM: usize = 16;

/// A Go `map[interface{}]interface{}` being decoded: keys compare as Go compares them.
struct GoMap {
    entries: Vec<(GoScalar, Span, JsonValue)>,
    /// Where each string key's entry is, once the map has [`INDEX_FROM`] entries (string keys are
    /// nearly all keys; others are few and searched linearly).
    strings: HashMap<String, usize>,
    /// Whether every key is a string (then the keys' texts are distinct already).
    only_strings: bool,
}

impl GoMap {
    fn new() -> Self {
        GoMap {
            entries: Vec::new(),
            strings: HashMap::new(),
            only_strings: true,
        }
    }

    fn set(&mut self, key: GoScalar, span: Span, value: JsonValue) {
        let existing = match &key {
            GoScalar::String(text) if self.entries.len() > INDEX_FROM => {
                self.strings.get(text).copied()
            }
            GoScalar::String(text) => self
                .entries
                .iter()
                .position(|(k, _, _)| matches!(k, GoScalar::String(s) if s == text)),
            // NaN keys never equal each other in Go, so each one is a new entry.
            other => self.entries.iter().position(|(k, _, _)| k == other),
        };
        match existing.and_then(|i| self.entries.get_mut(i)) {
            Some(entry) => {
                entry.1 = span;
                entry.2 = value;
            }
            None => {
                match &key {
                    GoScalar::String(_) => {}
                    _ => self.only_strings = false,
                }
                self.entries.push((key, span, value));
                if self.entries.len() == INDEX_FROM + 1 {
                    // The index covers every string key from here on.
                    for (index, (k, _, _)) in self.entries.iter().enumerate() {
                        if let GoScalar::String(text) = k {
                            self.strings.insert(text.clone(), index);
                        }
                    }
                } else if self.entries.len() > INDEX_FROM + 1
                    && let Some((GoScalar::String(text), _, _)) = self.entries.last()
                {
                    self.strings.insert(text.clone(), self.entries.len() - 1);
                }
            }
        }
    }

    /// sigs.k8s.io/yaml's `convertToJSONableObject` for one map.
    fn into_json_object(self) -> Result<Vec<(String, JsonValue)>, ToJsonError> {
        if self.only_strings {
            // Distinct strings already: nothing to merge.
            return Ok(self
                .entries
                .into_iter()
                .filter_map(|(key, _, value)| match key {
                    GoScalar::String(s) => Some((s, value)),
                    _ => None,
                })
                .collect());
        }
        let mut object: Vec<(String, JsonValue)> = Vec::with_capacity(self.entries.len());
        let mut positions: HashMap<String, usize> = HashMap::with_capacity(self.entries.len());
        for (key, span, value) in self.entries {
            let text = match key {
                GoScalar::String(s) => s,
                GoScalar::Int(i) => i.to_string(),
                GoScalar::Bool(b) => b.to_string(),
                GoScalar::Float(f) => match go_float::format_g32(f).as_str() {
                    "+Inf" => ".inf".to_string(),
                    "-Inf" => "-.inf".to_string(),
                    "NaN" => ".nan".to_string(),
                    other => other.to_string(),
                },
                GoScalar::Uint(u) => {
                    return Err(ToJsonError::UnsupportedKey {
                        span,
                        text: u.to_string(),
                        kind: "an integer beyond int64",
                    });
                }
                GoScalar::Null => {
                    return Err(ToJsonError::UnsupportedKey {
                        span,
                        text: "null".into(),
                        kind: "null",
                    });
                }
            };
            match positions.get(&text).and_then(|&i| object.get_mut(i)) {
                Some(entry) => entry.1 = value,
                None => {
                    positions.insert(text.clone(), object.len());
                    object.push((text, value));
                }
            }
        }
        Ok(object)
    }
}

/// Decodes a mapping node's entries into `map`, go-yaml v2 style. The loader has resolved merge
/// keys already; a tree built otherwise has them resolved here, by the same function.
fn fill_owned(map: &mut GoMap, node: Node, depth: usize) -> Result<(), ToJsonError> {
    if depth > max_depth() {
        return Err(ToJsonError::TooDeep {
            span: node.span(),
            max: max_depth(),
        });
    }
    let span = node.span();
    let Value::Mapping(mapping) = node.into_value() else {
        return Err(ToJsonError::BadMerge { span });
    };
    let entries = if mapping.entries.iter().any(|(key, _)| is_merge_key(key)) {
        resolve_merge_keys(mapping.entries.into_vec())
            .map_err(|span| ToJsonError::BadMerge { span })?
    } else {
        mapping.entries.into_vec()
    };
    for (key, value) in entries {
        let span = key.span();
        let go_key = match key.value() {
            Value::Scalar { .. } => go_scalar_owned(key)?,
            _ => return Err(ToJsonError::CollectionKey { span }),
        };
        let json = convert_owned(value, depth + 1)?;
        map.set(go_key, span, json);
    }
    Ok(())
}

/// What a scalar decodes to: its own text (most scalars, left to the caller to copy or move) or
/// another value.
enum Decoded {
    Text,
    Other(GoScalar),
}

/// go-yaml v2's `decoder.scalar` into an `interface{}`, consuming the node.
fn go_scalar_owned(node: Node) -> Result<GoScalar, ToJsonError> {
    Ok(match decode_scalar(&node)? {
        Decoded::Other(scalar) => scalar,
        Decoded::Text => own_text(node),
    })
}

/// A scalar node's text, moved out.
fn own_text(node: Node) -> GoScalar {
    match node.into_value() {
        Value::Scalar { text, .. } => GoScalar::String(text.into_string()),
        _ => GoScalar::String(String::new()),
    }
}

/// go-yaml v2's `decoder.scalar` into an `interface{}`, the scalar's own text left uncopied.
fn decode_scalar(node: &Node) -> Result<Decoded, ToJsonError> {
    let (Value::Scalar { text }, Some(style)) = (node.value(), node.scalar_style()) else {
        return Err(ToJsonError::CollectionKey { span: node.span() });
    };
    let tag = node.tag().map(Tag::as_str);
    match tag {
        Some("!!binary") => {
            return decode_binary(text, node.span()).map(|s| Decoded::Other(GoScalar::String(s)));
        }
        // go-yaml keeps the non-specific tag `!`, which no resolver knows: a string.
        Some("!") => return Ok(Decoded::Text),
        _ => {}
    }
    let resolved = resolve::resolve(text, style, tag);
    // `None`: the text itself.
    let scalar = match resolved {
        Resolved::Null => Some(GoScalar::Null),
        Resolved::Bool(b) => Some(GoScalar::Bool(b)),
        Resolved::Int(i) => Some(match i64::try_from(i) {
            Ok(i) => GoScalar::Int(i),
            Err(_) => GoScalar::Uint(u64::try_from(i).unwrap_or(u64::MAX)),
        }),
        Resolved::Float(f) => Some(GoScalar::Float(f)),
        // A timestamp decoded into interface{} stays the string as written; `<<` outside a key
        // is the string "<<".
        Resolved::Str | Resolved::Timestamp | Resolved::Merge => None,
    };
    // An explicit core tag must match what the text resolves to (an int may become a float).
    let expected = match tag {
        Some("!!int") => Some(matches!(scalar, Some(GoScalar::Int(_) | GoScalar::Uint(_)))),
        Some("!!float") => Some(matches!(
            scalar,
            Some(GoScalar::Float(_) | GoScalar::Int(_) | GoScalar::Uint(_))
        )),
        Some("!!bool") => Some(matches!(scalar, Some(GoScalar::Bool(_)))),
        Some("!!null") => Some(scalar == Some(GoScalar::Null)),
        Some("!!timestamp") => Some(resolved == Resolved::Timestamp),
        _ => None,
    };
    if expected == Some(false) {
        return Err(ToJsonError::TagMismatch {
            span: node.span(),
            text: text.to_string(),
            tag: tag.unwrap_or_default().to_string(),
        });
    }
    Ok(match (tag, scalar) {
        (Some("!!float"), Some(GoScalar::Int(i))) => Decoded::Other(GoScalar::Float(i as f64)),
        (Some("!!float"), Some(GoScalar::Uint(u))) => Decoded::Other(GoScalar::Float(u as f64)),
        (_, Some(scalar)) => Decoded::Other(scalar),
        (_, None) => Decoded::Text,
    })
}

/// Go's `base64.StdEncoding.DecodeString` (line breaks ignored, padding required), then the bytes
/// as `encoding/json` writes them: each byte that does not start a valid UTF-8 sequence becomes
/// U+FFFD.
fn decode_binary(text: &str, span: Span) -> Result<String, ToJsonError> {
    let invalid = || ToJsonError::InvalidBinary {
        span,
        text: text.to_string(),
    };
    let symbols: Vec<u8> = text.bytes().filter(|&b| b != b'\n' && b != b'\r').collect();
    if !symbols.len().is_multiple_of(4) {
        return Err(invalid());
    }
    let mut bytes = Vec::with_capacity(symbols.len() / 4 * 3);
    for (index, quad) in symbols.chunks(4).enumerate() {
        let last = index + 1 == symbols.len() / 4;
        let padding = quad.iter().rev().take_while(|&&b| b == b'=').count();
        if padding > 2 || (padding > 0 && !last) {
            return Err(invalid());
        }
        let mut acc: u32 = 0;
        for &symbol in &quad[..4 - padding] {
            let value = match symbol {
                b'A'..=b'Z' => symbol - b'A',
                b'a'..=b'z' => symbol - b'a' + 26,
                b'0'..=b'9' => symbol - b'0' + 52,
                b'+' => 62,
                b'/' => 63,
                _ => return Err(invalid()),
            };
            acc = (acc << 6) | u32::from(value);
        }
        acc <<= 6 * padding as u32;
        let decoded = [(acc >> 16) as u8, (acc >> 8) as u8, acc as u8];
        bytes.extend_from_slice(&decoded[..3 - padding]);
    }
    Ok(go_lossy_utf8(&bytes))
}

/// Go's replacement of invalid UTF-8: one U+FFFD per byte that does not start a valid sequence.
fn go_lossy_utf8(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                break;
            }
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{FFFD}');
                rest = after.get(1..).unwrap_or_default();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{ErrorKind, Source, parse_str};
    use std::sync::Arc;

    fn json(text: &str) -> Result<JsonValue, ToJsonError> {
        let file = parse_str(Arc::new(Source::new("t.yaml", text)), Limits::default());
        // Duplicate keys are reported, and still loaded (the last one wins).
        assert!(
            file.errors
                .iter()
                .all(|e| e.kind == ErrorKind::DuplicateKey),
            "{:?}",
            file.errors
        );
        let root = file.documents[0].root.as_ref().expect("a document");
        let borrowed = JsonValue::from_node(root);
        // The consuming conversion gives the same value or the same error.
        assert_eq!(
            format!("{:?}", JsonValue::from_node_owned(root.clone())),
            format!("{borrowed:?}")
        );
        borrowed
    }

    fn object(entries: &[(&str, JsonValue)]) -> JsonValue {
        JsonValue::Object(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn s(text: &str) -> JsonValue {
        JsonValue::String(text.into())
    }

    #[test]
    fn scalars_resolve_as_yaml_1_1_and_numbers_become_floats() {
        let value = json(
            "a: on\nb: 0755\nc: 1e3\nd: 2001-12-14\ne: ~\nf: '0755'\ng: 9007199254740993\nh: -0\ni: 1.0\n",
        )
        .unwrap();
        assert_eq!(
            value,
            object(&[
                ("a", JsonValue::Bool(true)),
                ("b", JsonValue::Number(493.0)),
                ("c", JsonValue::Number(1000.0)),
                ("d", s("2001-12-14")),
                ("e", JsonValue::Null),
                ("f", s("0755")),
                ("g", JsonValue::Number(9007199254740992.0)),
                ("h", JsonValue::Number(0.0)),
                ("i", JsonValue::Number(1.0)),
            ])
        );
    }

    #[test]
    fn keys_become_strings_the_sigs_yaml_way() {
        // Rows from sigs.k8s.io/yaml v1.6.0 TestYAMLToJSON.
        assert_eq!(json("True: a").unwrap(), object(&[("true", s("a"))]));
        assert_eq!(json("no: a").unwrap(), object(&[("false", s("a"))]));
        assert_eq!(json("1: a").unwrap(), object(&[("1", s("a"))]));
        assert_eq!(json("1.2: a").unwrap(), object(&[("1.2", s("a"))]));
        assert_eq!(
            json("1000000000000000000000000000000000000: a").unwrap(),
            object(&[("1e+36", s("a"))])
        );
        assert_eq!(json("1e+36: a").unwrap(), object(&[("1e+36", s("a"))]));
        assert_eq!(json("\"1e+36\": a").unwrap(), object(&[("1e+36", s("a"))]));
        assert!(matches!(
            json("~: a"),
            Err(ToJsonError::UnsupportedKey { kind: "null", .. })
        ));
        assert!(matches!(
            json("null: a"),
            Err(ToJsonError::UnsupportedKey { .. })
        ));
        assert!(matches!(
            json("18446744073709551615: a"),
            Err(ToJsonError::UnsupportedKey { .. })
        ));
        assert_eq!(json(".inf: a").unwrap(), object(&[(".inf", s("a"))]));
        assert!(matches!(
            json("[a]: b"),
            Err(ToJsonError::CollectionKey { .. })
        ));
    }

    #[test]
    fn binary_is_decoded_and_invalid_utf8_replaced() {
        // sigs.k8s.io/yaml TestYAMLToJSON "binary data".
        assert_eq!(
            json("a: !!binary gIGC").unwrap(),
            object(&[("a", s("\u{FFFD}\u{FFFD}\u{FFFD}"))])
        );
        assert_eq!(
            json("a: !!binary aGVsbG8=").unwrap(),
            object(&[("a", s("hello"))])
        );
        assert!(matches!(
            json("a: !!binary 'a?=='"),
            Err(ToJsonError::InvalidBinary { .. })
        ));
    }

    #[test]
    fn merge_keys_follow_go_yaml_v2() {
        // The merged mapping overwrites keys written before `<<`; keys after it win.
        let value = json("base: &b {p: 1, q: 2}\nm:\n  p: 0\n  <<: *b\n  q: 3\n").unwrap();
        assert_eq!(
            value.get("m").unwrap(),
            &object(&[("p", JsonValue::Number(1.0)), ("q", JsonValue::Number(3.0))])
        );
        // `y` is a YAML 1.1 boolean, also as a key.
        assert_eq!(
            json("y: 1").unwrap(),
            object(&[("true", JsonValue::Number(1.0))])
        );
        // In a list of merges the earlier mapping wins.
        let value = json("a: &a {k: 1}\nb: &b {k: 2, l: 2}\nm:\n  <<: [*a, *b]\n").unwrap();
        assert_eq!(
            value.get("m").unwrap(),
            &object(&[("k", JsonValue::Number(1.0)), ("l", JsonValue::Number(2.0))])
        );
        // The loader refuses a merge of a scalar; a tree built otherwise is refused here.
        let file = parse_str(
            Arc::new(Source::new("t", "m:\n  <<: 1\n")),
            Limits::default(),
        );
        assert_eq!(file.errors[0].kind, ErrorKind::BadMerge);
        let built = Node::mapping(vec![(Node::plain("<<"), Node::plain("1"))], Span::default());
        assert!(matches!(
            JsonValue::from_node(&built),
            Err(ToJsonError::BadMerge { .. })
        ));
        assert!(matches!(
            JsonValue::from_node_owned(built),
            Err(ToJsonError::BadMerge { .. })
        ));
        // A quoted `<<` is an ordinary key.
        assert_eq!(
            json("'<<': 1").unwrap(),
            object(&[("<<", JsonValue::Number(1.0))])
        );
    }

    #[test]
    fn duplicates_last_wins_and_non_finite_numbers_fail() {
        assert_eq!(
            json("a: 1\nb: 2\na: 3\n").unwrap(),
            object(&[("a", JsonValue::Number(3.0)), ("b", JsonValue::Number(2.0))])
        );
        assert!(matches!(
            json("a: .inf"),
            Err(ToJsonError::NonFiniteNumber { .. })
        ));
        assert!(matches!(
            json("a: .nan"),
            Err(ToJsonError::NonFiniteNumber { .. })
        ));
    }

    #[test]
    fn tags_are_checked_like_go_yaml() {
        assert_eq!(json("a: !!str 123").unwrap(), object(&[("a", s("123"))]));
        assert_eq!(
            json("a: !!float 1").unwrap(),
            object(&[("a", JsonValue::Number(1.0))])
        );
        assert_eq!(
            json("a: !!int \"12\"").unwrap(),
            object(&[("a", JsonValue::Number(12.0))])
        );
        assert!(matches!(
            json("a: !!int abc"),
            Err(ToJsonError::TagMismatch { .. })
        ));
        assert_eq!(json("a: !custom 12").unwrap(), object(&[("a", s("12"))]));
        assert_eq!(json("a: ! 12").unwrap(), object(&[("a", s("12"))]));
    }

    #[test]
    fn lossy_utf8_replaces_byte_by_byte() {
        assert_eq!(go_lossy_utf8(b"a\xe2\x82b"), "a\u{FFFD}\u{FFFD}b");
        assert_eq!(go_lossy_utf8("é".as_bytes()), "é");
    }
}
