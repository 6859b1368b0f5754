//! The YAML tree: nodes with spans, scalars with their raw text and style.
//!
//! Scalars are not resolved on load: `0755`, `on` and `1e3` mean different things to different
//! YAML readers, and rules need to see what was written. [`Node::as_str`] and friends resolve on
//! demand with Kubernetes' YAML 1.1 rules ([`super::resolve`]).

use std::fmt;
use std::ops::Deref;

use compact_str::CompactString;

use super::resolve::{self, Resolved};
use super::source::Span;

pub use saphyr_parser::ScalarStyle;

/// A node: a scalar, a sequence or a mapping, with the span it covers and its tag, if any.
///
/// A large file's tree is mostly nodes (a mapping entry is two), so a node is kept to 48 bytes:
/// its span as two `u32` offsets ([`Node::span`]) and its tag behind one pointer.
#[derive(Clone, PartialEq)]
pub struct Node {
    span: NodeSpan,
    /// The tag as written, with `!!` standing for `tag:yaml.org,2002:` (`!!str`, `!custom`).
    pub tag: Option<Tag>,
    pub value: Value,
}

/// The largest offset a node holds, and so the length of the longest text the loader loads.
pub(super) const MAX_OFFSET: usize = u32::MAX as usize;

/// A node's [`Span`] in 8 bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
struct NodeSpan {
    start: u32,
    end: u32,
}

impl NodeSpan {
    /// Offsets past [`MAX_OFFSET`] (never those of a text the loader took) become
    /// `MAX_OFFSET`, the end of any text they could point into, rather than wrapping.
    fn new(span: Span) -> Self {
        let offset = |at: usize| u32::try_from(at).unwrap_or(u32::MAX);
        Self {
            start: offset(span.start),
            end: offset(span.end),
        }
    }

    fn get(self) -> Span {
        Span::new(self.start as usize, self.end as usize)
    }
}

/// A node's tag, with `!!` standing for `tag:yaml.org,2002:` (`!!str`, `!!merge`, `!custom`).
/// Tags are rare, so a node holds one pointer for it; the text is inline behind it up to 24 bytes.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Tag(Box<CompactString>);

impl Tag {
    pub fn new(text: &str) -> Self {
        Self(Box::new(CompactString::from(text)))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Tag {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("span", &self.span())
            .field("tag", &self.tag)
            .field("value", &self.value)
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `text` is inline up to 24 bytes: most keys and values of a manifest are short, and a
    /// heap string per scalar was most of the memory a large file took.
    Scalar {
        text: CompactString,
        style: ScalarStyle,
    },
    Sequence(Vec<Node>),
    Mapping(Mapping),
}

/// A mapping's entries in source order. Duplicate keys are reported by the loader; lookups return
/// the last entry for a key, as Kubernetes' readers do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mapping {
    pub entries: Vec<(Node, Node)>,
}

impl Mapping {
    /// The value of the last entry whose key is the scalar `key`.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The last entry whose key is the scalar `key`.
    pub fn entry(&self, key: &str) -> Option<&(Node, Node)> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| k.scalar_text() == Some(key))
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.entries
            .iter_mut()
            .rev()
            .find(|(k, _)| k.scalar_text() == Some(key))
            .map(|(_, v)| v)
    }

    /// Entries whose key is a scalar, as `(key text, key node, value node)`.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Node, &Node)> {
        self.entries
            .iter()
            .filter_map(|(k, v)| Some((k.scalar_text()?, k, v)))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// go-yaml v2's `isMerge`: a plain untagged `<<` key, or `<<` tagged `!!merge`.
pub(super) fn is_merge_key(key: &Node) -> bool {
    match &key.value {
        Value::Scalar { text, style } if text == "<<" => match key.tag.as_deref() {
            None => *style == ScalarStyle::Plain,
            Some(tag) => tag == "!!merge",
        },
        _ => false,
    }
}

/// Resolves a mapping's merge keys (`<<: *base`, `<<: [*a, *b]`) the way Kubernetes' YAML reader
/// (go-yaml v2 under sigs.k8s.io/yaml) does when it decodes into a map: entries are applied in
/// order, each overwriting an equal key already there, and a merge applies its mapping's entries
/// at its place, a list of mappings last to first, so that earlier mappings win. A key written
/// after the `<<` therefore wins over a merged one, and a merged one over a key written before
/// the `<<` (YAML 1.1 as go-yaml v2 implements it, unlike the merge key spec and go-yaml v3).
/// A key keeps the place it was first given. Entries without merge keys come back unchanged
/// (repeated keys included: the loader reports those). `Err` is the span of a merge value that
/// is not a mapping or a list of mappings, which go-yaml refuses ("map merge requires map or
/// sequence of maps as the value").
pub(super) fn resolve_merge_keys(entries: Vec<(Node, Node)>) -> Result<Vec<(Node, Node)>, Span> {
    if !entries.iter().any(|(key, _)| is_merge_key(key)) {
        return Ok(entries);
    }
    let mut merged: Vec<(Node, Node)> = Vec::with_capacity(entries.len());
    // Key text -> place in `merged`: a merge may bring many keys.
    let mut places: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut set = |key: Node, value: Node| {
        let Some(text) = key.scalar_text() else {
            merged.push((key, value));
            return;
        };
        match places.get(text).and_then(|&i| merged.get_mut(i)) {
            Some(entry) => entry.1 = value,
            None => {
                places.insert(text.to_string(), merged.len());
                merged.push((key, value));
            }
        }
    };
    for (key, value) in entries {
        if !is_merge_key(&key) {
            set(key, value);
            continue;
        }
        let span = value.span();
        match value.value {
            // The merged mapping's own merge keys were resolved when it was loaded.
            Value::Mapping(mapping) => {
                for (k, v) in mapping.entries {
                    set(k, v);
                }
            }
            Value::Sequence(items) => {
                if let Some(bad) = items.iter().find(|item| item.as_mapping().is_none()) {
                    return Err(bad.span());
                }
                for item in items.into_iter().rev() {
                    if let Value::Mapping(mapping) = item.value {
                        for (k, v) in mapping.entries {
                            set(k, v);
                        }
                    }
                }
            }
            Value::Scalar { .. } => return Err(span),
        }
    }
    Ok(merged)
}

impl Node {
    /// A node covering `span`; an offset past `u32::MAX` (4 GiB) reads back as `u32::MAX`.
    pub fn new(span: Span, tag: Option<Tag>, value: Value) -> Node {
        Node {
            span: NodeSpan::new(span),
            tag,
            value,
        }
    }

    /// The span the node covers in its source.
    pub fn span(&self) -> Span {
        self.span.get()
    }

    /// Moves the node to `span`, as [`Node::new`] takes it.
    pub fn set_span(&mut self, span: Span) {
        self.span = NodeSpan::new(span);
    }

    /// A plain scalar without a meaningful position, for nodes capkg creates.
    pub fn plain(text: impl Into<String>) -> Node {
        Node::scalar(text, ScalarStyle::Plain, Span::default())
    }

    /// A scalar that always reads as the string `text` (quoted when YAML 1.1 would read it otherwise).
    pub fn string(text: impl Into<String>) -> Node {
        let text = text.into();
        let style = if resolve::plain_is_string(&text) {
            ScalarStyle::Plain
        } else {
            ScalarStyle::DoubleQuoted
        };
        Node::scalar(text, style, Span::default())
    }

    pub fn scalar(text: impl Into<String>, style: ScalarStyle, span: Span) -> Node {
        let text = CompactString::from(text.into());
        Node::new(span, None, Value::Scalar { text, style })
    }

    pub fn mapping(entries: Vec<(Node, Node)>, span: Span) -> Node {
        Node::new(span, None, Value::Mapping(Mapping { entries }))
    }

    pub fn sequence(items: Vec<Node>, span: Span) -> Node {
        Node::new(span, None, Value::Sequence(items))
    }

    pub fn as_mapping(&self) -> Option<&Mapping> {
        match &self.value {
            Value::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_mapping_mut(&mut self) -> Option<&mut Mapping> {
        match &mut self.value {
            Value::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_sequence(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Sequence(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_sequence_mut(&mut self) -> Option<&mut Vec<Node>> {
        match &mut self.value {
            Value::Sequence(items) => Some(items),
            _ => None,
        }
    }

    /// The raw text of a scalar, whatever it resolves to.
    pub fn scalar_text(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn scalar_style(&self) -> Option<ScalarStyle> {
        match &self.value {
            Value::Scalar { style, .. } => Some(*style),
            _ => None,
        }
    }

    /// What a YAML 1.1 reader (go-yaml v2, as used by Kubernetes and clusterctl) makes of a scalar.
    pub fn resolve(&self) -> Option<Resolved> {
        match &self.value {
            Value::Scalar { text, style } => {
                Some(resolve::resolve(text, *style, self.tag.as_deref()))
            }
            _ => None,
        }
    }

    /// The scalar's text when a YAML 1.1 reader sees a string (quoted, or plain and not a
    /// boolean, null or number).
    pub fn as_str(&self) -> Option<&str> {
        match (&self.value, self.resolve()) {
            (Value::Scalar { text, .. }, Some(Resolved::Str)) => Some(text),
            _ => None,
        }
    }

    /// True for an explicit or implicit null (`key:`, `~`, `null`).
    pub fn is_null(&self) -> bool {
        matches!(self.resolve(), Some(Resolved::Null))
    }

    /// Mapping lookup; `None` when this is not a mapping or lacks the key.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_mapping()?.get(key)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.as_mapping_mut()?.get_mut(key)
    }

    /// Follows a path of mapping keys.
    pub fn path(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter().try_fold(self, |node, key| node.get(key))
    }

    /// Follows a path of mapping keys and returns the string there.
    pub fn path_str(&self, keys: &[&str]) -> Option<&str> {
        self.path(keys)?.as_str()
    }

    /// The entry (key node, value node) at the end of a path of mapping keys.
    pub fn path_entry(&self, keys: &[&str]) -> Option<&(Node, Node)> {
        let (last, parents) = keys.split_last()?;
        self.path(parents)?.as_mapping()?.entry(last)
    }

    /// Sequence items, or nothing when the node is not a sequence.
    pub fn items(&self) -> &[Node] {
        self.as_sequence().unwrap_or(&[])
    }

    /// Number of nodes in this subtree (keys included).
    pub fn count_nodes(&self) -> usize {
        let mut count = 0;
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            count += 1;
            match &node.value {
                Value::Scalar { .. } => {}
                Value::Sequence(items) => stack.extend(items),
                Value::Mapping(m) => {
                    for (k, v) in &m.entries {
                        stack.push(k);
                        stack.push(v);
                    }
                }
            }
        }
        count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, Node)]) -> Node {
        Node::mapping(
            entries
                .iter()
                .map(|(k, v)| (Node::plain(*k), v.clone()))
                .collect(),
            Span::default(),
        )
    }

    #[test]
    fn lookups_follow_paths_and_prefer_the_last_duplicate() {
        let node = map(&[
            ("a", map(&[("b", Node::plain("first"))])),
            ("a", map(&[("b", Node::plain("second"))])),
        ]);
        assert_eq!(node.path_str(&["a", "b"]), Some("second"));
        assert_eq!(node.path(&["a", "c"]), None);
        assert_eq!(node.count_nodes(), 9);
    }

    #[test]
    fn a_node_is_48_bytes() {
        // A large file's tree is mostly nodes, two per mapping entry: at 64 bytes they were most
        // of the memory `lint` and `assemble` took on a 20 MB components file (issue 17). 48 =
        // the span's two u32 offsets (8) + the tag's one pointer (8) + the value (32).
        assert_eq!(std::mem::size_of::<Node>(), 48);
        assert_eq!(std::mem::size_of::<(Node, Node)>(), 96);
    }

    #[test]
    fn spans_and_tags_read_back() {
        let mut node = Node::plain("x");
        node.set_span(Span::new(3, MAX_OFFSET));
        assert_eq!(node.span(), Span::new(3, MAX_OFFSET));
        // Never wraps: an offset past what a node holds reads back as the largest one.
        node.set_span(Span::new(MAX_OFFSET + 1, MAX_OFFSET + 2));
        assert_eq!(node.span(), Span::at(MAX_OFFSET));
        node.tag = Some(Tag::new("!!str"));
        assert_eq!(node.tag.as_deref(), Some("!!str"));
        assert_eq!(format!("{:?}", node.tag), r#"Some("!!str")"#);
    }

    #[test]
    fn as_str_applies_yaml_1_1() {
        assert_eq!(Node::plain("yes").as_str(), None);
        assert_eq!(Node::plain("0755").as_str(), None);
        assert_eq!(Node::plain("hello").as_str(), Some("hello"));
        assert_eq!(Node::string("yes").as_str(), Some("yes"));
        assert!(Node::plain("~").is_null());
        assert!(Node::plain("").is_null());
    }
}
