//! The YAML tree: nodes with spans, scalars with their raw text and style.
//!
//! Scalars are not resolved on load: `0755`, `on` and `1e3` mean different things to different
//! YAML readers, and rules need to see what was written. [`Node::as_str`] and friends resolve on
//! demand with Kubernetes' YAML 1.1 rules ([`super::resolve`]).

use std::fmt;
use std::ops::Deref;

use compact_str::CompactString;

use super::compact::PackedBox;
pub use super::compact::{Items, ScalarText};
use super::resolve::{self, Resolved};
use super::source::Span;

pub use saphyr_parser::ScalarStyle;

/// A node: a scalar, a sequence or a mapping, with the span it covers, its tag if any, and a
/// scalar's style.
///
/// A large file's tree is mostly nodes (a mapping entry is two), so a node is kept to 20 bytes,
/// aligned to 4:
/// - its span as two offsets of 29 bits, with a scalar's style in the spare bits of the end
///   ([`NodeSpan`]), which is why the loader takes texts under 512 MiB ([`MAX_OFFSET`]);
/// - its value in 12 bytes aligned to 1 ([`super::compact`]): a scalar's text inline up to 11
///   bytes (a longer one shared with the equal texts the loader made, CustomResourceDefinitions'
///   descriptions above all), a collection's items as a packed boxed slice (they never grow after
///   loading but in a transformation's few insertions), and the variant in the text's spare
///   values;
/// - tags are rare: a tagged node holds its tag and value behind one pointer, in the value's
///   place ([`Repr`]).
///
/// The tree is most of what `lint` and `assemble` hold on a large components file, so its size
/// per mapping entry sets their peak (benches/README.md, "Memory and density").
#[derive(Clone, PartialEq)]
pub struct Node {
    span: NodeSpan,
    repr: Repr,
}

/// A node's value, and its tag when it has one: 12 bytes aligned to 1, the tag's box too
/// ([`PackedBox`]), so that a node is its span and this.
#[derive(Clone, PartialEq)]
enum Repr {
    Untagged(Value),
    Tagged(PackedBox<Tagged>),
}

#[derive(Clone, PartialEq)]
struct Tagged {
    tag: Tag,
    value: Value,
}

impl Repr {
    fn new(tag: Option<Tag>, value: Value) -> Self {
        match tag {
            None => Repr::Untagged(value),
            Some(tag) => Repr::Tagged(PackedBox::new(Tagged { tag, value })),
        }
    }
}

/// The largest offset a node holds, and so the length of the longest text the loader loads
/// (512 MiB - 1).
pub(super) const MAX_OFFSET: usize = OFFSET_MASK as usize;

/// A node's offsets are this many bits; the bits above them hold flags (the style).
pub(super) const OFFSET_BITS: u32 = 29;
pub(super) const OFFSET_MASK: u32 = (1 << OFFSET_BITS) - 1;

/// A node's [`Span`] and a scalar's [`ScalarStyle`] in 8 bytes: the style in the top three bits
/// of the end offset.
#[derive(Clone, Copy, PartialEq, Eq)]
struct NodeSpan {
    start: u32,
    end_and_style: u32,
}

impl NodeSpan {
    /// Offsets past [`MAX_OFFSET`] (never those of a text the loader took) become
    /// `MAX_OFFSET`, the end of any text they could point into, rather than wrapping.
    fn new(span: Span, style: ScalarStyle) -> Self {
        let offset = |at: usize| u32::try_from(at.min(MAX_OFFSET)).unwrap_or(OFFSET_MASK);
        Self {
            start: offset(span.start),
            end_and_style: offset(span.end) | (style_bits(style) << OFFSET_BITS),
        }
    }

    fn get(self) -> Span {
        Span::new(
            self.start as usize,
            (self.end_and_style & OFFSET_MASK) as usize,
        )
    }

    fn style(self) -> ScalarStyle {
        style_from_bits(self.end_and_style >> OFFSET_BITS)
    }
}

/// A style as three bits, and back ([`style_from_bits`]).
pub(super) fn style_bits(style: ScalarStyle) -> u32 {
    match style {
        ScalarStyle::Plain => 0,
        ScalarStyle::SingleQuoted => 1,
        ScalarStyle::DoubleQuoted => 2,
        ScalarStyle::Literal => 3,
        ScalarStyle::Folded => 4,
    }
}

pub(super) fn style_from_bits(bits: u32) -> ScalarStyle {
    match bits & 0b111 {
        1 => ScalarStyle::SingleQuoted,
        2 => ScalarStyle::DoubleQuoted,
        3 => ScalarStyle::Literal,
        4 => ScalarStyle::Folded,
        _ => ScalarStyle::Plain,
    }
}

/// A node's tag, with `!!` standing for `tag:yaml.org,2002:` (`!!str`, `!!merge`, `!custom`);
/// inline up to 24 bytes.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Tag(CompactString);

impl Tag {
    pub fn new(text: &str) -> Self {
        Self(CompactString::from(text))
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
        let mut out = f.debug_struct("Node");
        out.field("span", &self.span()).field("tag", &self.tag());
        if let Some(style) = self.scalar_style() {
            out.field("style", &style);
        }
        out.field("value", self.value()).finish()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `text` is inline up to 11 bytes: most keys and values of a manifest are short, and a
    /// heap string per scalar was most of the memory a large file took; a longer text may be
    /// shared with equal ones. The style is the node's ([`Node::scalar_style`]).
    Scalar {
        text: ScalarText,
    },
    Sequence(Items<Node>),
    Mapping(Mapping),
}

/// A mapping's entries in source order. Duplicate keys are reported by the loader; lookups return
/// the last entry for a key, as Kubernetes' readers do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Mapping {
    pub entries: Items<(Node, Node)>,
}

impl Mapping {
    pub fn new(entries: Vec<(Node, Node)>) -> Self {
        Self {
            entries: Items::from(entries),
        }
    }

    /// Inserts an entry at `index` (at the end when past it).
    pub fn insert(&mut self, index: usize, entry: (Node, Node)) {
        self.entries
            .edit(|entries| entries.insert(index.min(entries.len()), entry));
    }

    /// Appends entries.
    pub fn extend(&mut self, more: impl IntoIterator<Item = (Node, Node)>) {
        self.entries.edit(|entries| entries.extend(more));
    }

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
    match key.value() {
        Value::Scalar { text } if text == "<<" => match key.tag() {
            None => key.scalar_style() == Some(ScalarStyle::Plain),
            Some(tag) => tag.as_str() == "!!merge",
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
        match value.into_value() {
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
                    if let Value::Mapping(mapping) = item.into_value() {
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
    /// A node covering `span`; an offset past [`MAX_OFFSET`] (512 MiB) reads back as
    /// `MAX_OFFSET`. A scalar made this way is plain ([`Node::scalar`] takes a style).
    pub fn new(span: Span, tag: Option<Tag>, value: Value) -> Node {
        Node {
            span: NodeSpan::new(span, ScalarStyle::Plain),
            repr: Repr::new(tag, value),
        }
    }

    /// The span the node covers in its source.
    pub fn span(&self) -> Span {
        self.span.get()
    }

    /// Moves the node to `span`, as [`Node::new`] takes it.
    pub fn set_span(&mut self, span: Span) {
        self.span = NodeSpan::new(span, self.span.style());
    }

    /// The tag as written, with `!!` standing for `tag:yaml.org,2002:` (`!!str`, `!custom`).
    pub fn tag(&self) -> Option<&Tag> {
        match &self.repr {
            Repr::Untagged(_) => None,
            Repr::Tagged(tagged) => Some(&tagged.tag),
        }
    }

    pub fn set_tag(&mut self, tag: Option<Tag>) {
        let value = std::mem::replace(
            self.value_mut(),
            Value::Scalar {
                text: ScalarText::empty(),
            },
        );
        self.repr = Repr::new(tag, value);
    }

    pub fn value(&self) -> &Value {
        match &self.repr {
            Repr::Untagged(value) => value,
            Repr::Tagged(tagged) => &tagged.value,
        }
    }

    pub fn value_mut(&mut self) -> &mut Value {
        match &mut self.repr {
            Repr::Untagged(value) => value,
            Repr::Tagged(tagged) => &mut tagged.value,
        }
    }

    pub fn into_value(self) -> Value {
        match self.repr {
            Repr::Untagged(value) => value,
            Repr::Tagged(tagged) => tagged.into_inner().value,
        }
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
        Node::scalar_text_in(ScalarText::from(text.into()), style, span, None)
    }

    /// A scalar with its text already in a [`ScalarText`], and its tag.
    pub(super) fn scalar_text_in(
        text: ScalarText,
        style: ScalarStyle,
        span: Span,
        tag: Option<Tag>,
    ) -> Node {
        Node {
            span: NodeSpan::new(span, style),
            repr: Repr::new(tag, Value::Scalar { text }),
        }
    }

    pub fn mapping(entries: Vec<(Node, Node)>, span: Span) -> Node {
        Node::new(span, None, Value::Mapping(Mapping::new(entries)))
    }

    pub fn sequence(items: Vec<Node>, span: Span) -> Node {
        Node::new(span, None, Value::Sequence(Items::from(items)))
    }

    pub fn as_mapping(&self) -> Option<&Mapping> {
        match self.value() {
            Value::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_mapping_mut(&mut self) -> Option<&mut Mapping> {
        match self.value_mut() {
            Value::Mapping(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_sequence(&self) -> Option<&[Node]> {
        match self.value() {
            Value::Sequence(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_sequence_mut(&mut self) -> Option<&mut [Node]> {
        match self.value_mut() {
            Value::Sequence(items) => Some(items),
            _ => None,
        }
    }

    /// Appends items to a sequence; false when this is not one.
    pub fn extend_sequence(&mut self, more: impl IntoIterator<Item = Node>) -> bool {
        let Value::Sequence(items) = self.value_mut() else {
            return false;
        };
        items.edit(|items| items.extend(more));
        true
    }

    /// The raw text of a scalar, whatever it resolves to.
    pub fn scalar_text(&self) -> Option<&str> {
        match self.value() {
            Value::Scalar { text } => Some(text),
            _ => None,
        }
    }

    pub fn scalar_style(&self) -> Option<ScalarStyle> {
        match self.value() {
            Value::Scalar { .. } => Some(self.span.style()),
            _ => None,
        }
    }

    /// Gives a scalar the style it is written in; nothing for a collection.
    pub fn set_scalar_style(&mut self, style: ScalarStyle) {
        if matches!(self.value(), Value::Scalar { .. }) {
            self.span = NodeSpan::new(self.span(), style);
        }
    }

    /// What a YAML 1.1 reader (go-yaml v2, as used by Kubernetes and clusterctl) makes of a scalar.
    pub fn resolve(&self) -> Option<Resolved> {
        match self.value() {
            Value::Scalar { text } => Some(resolve::resolve(
                text,
                self.span.style(),
                self.tag().map(Tag::as_str),
            )),
            _ => None,
        }
    }

    /// The scalar's text when a YAML 1.1 reader sees a string (quoted, or plain and not a
    /// boolean, null or number).
    pub fn as_str(&self) -> Option<&str> {
        match (self.value(), self.resolve()) {
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
            match node.value() {
                Value::Scalar { .. } => {}
                Value::Sequence(items) => stack.extend(items),
                Value::Mapping(m) => {
                    for (k, v) in m.entries.iter() {
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
    fn a_node_is_20_bytes() {
        // A large file's tree is mostly nodes, two per mapping entry (issue 17). 20 = the span
        // with the style (8) + the value, or the pointer to a tagged one (12), aligned to 4.
        assert_eq!(std::mem::size_of::<Value>(), 12);
        assert_eq!(std::mem::size_of::<Repr>(), 12);
        assert_eq!(std::mem::size_of::<Node>(), 20);
        assert_eq!(std::mem::align_of::<Node>(), 4);
        assert_eq!(std::mem::size_of::<(Node, Node)>(), 40);
        assert_eq!(std::mem::size_of::<Option<Node>>(), 20);
    }

    #[test]
    fn styles_and_tags_survive_spans_and_each_other() {
        let styles = [
            ScalarStyle::Plain,
            ScalarStyle::SingleQuoted,
            ScalarStyle::DoubleQuoted,
            ScalarStyle::Literal,
            ScalarStyle::Folded,
        ];
        for style in styles {
            let mut node = Node::scalar("x", style, Span::new(1, MAX_OFFSET));
            assert_eq!(node.scalar_style(), Some(style));
            assert_eq!(node.span(), Span::new(1, MAX_OFFSET));
            node.set_span(Span::new(7, MAX_OFFSET + 9));
            assert_eq!(
                (node.span(), node.scalar_style()),
                (Span::new(7, MAX_OFFSET), Some(style))
            );
            node.set_tag(Some(Tag::new("!!str")));
            assert_eq!(node.scalar_style(), Some(style));
            assert_eq!(node.scalar_text(), Some("x"));
            assert_eq!(node.tag().map(Tag::as_str), Some("!!str"));
            node.set_tag(None);
            assert_eq!(node, Node::scalar("x", style, Span::new(7, MAX_OFFSET)));
        }
        let mut mapping =
            Node::mapping(vec![(Node::plain("a"), Node::plain("b"))], Span::new(0, 4));
        mapping.set_scalar_style(ScalarStyle::Literal);
        assert_eq!(mapping.scalar_style(), None);
        assert_eq!(mapping.path_str(&["a"]), Some("b"));
    }

    #[test]
    fn collections_grow_in_place() {
        let mut node = Node::sequence(vec![Node::plain("a")], Span::default());
        assert!(node.extend_sequence([Node::plain("b")]));
        assert_eq!(node.items().len(), 2);
        assert!(!Node::plain("x").extend_sequence([Node::plain("b")]));
        let mut mapping = Mapping::new(vec![(Node::plain("a"), Node::plain("1"))]);
        mapping.insert(0, (Node::plain("z"), Node::plain("0")));
        mapping.insert(9, (Node::plain("y"), Node::plain("2")));
        mapping.extend([(Node::plain("x"), Node::plain("3"))]);
        let keys: Vec<&str> = mapping.iter().map(|(k, _, _)| k).collect();
        assert_eq!(keys, ["z", "a", "y", "x"]);
    }

    #[test]
    fn spans_and_tags_read_back() {
        let mut node = Node::plain("x");
        node.set_span(Span::new(3, MAX_OFFSET));
        assert_eq!(node.span(), Span::new(3, MAX_OFFSET));
        // Never wraps: an offset past what a node holds reads back as the largest one.
        node.set_span(Span::new(MAX_OFFSET + 1, MAX_OFFSET + 2));
        assert_eq!(node.span(), Span::at(MAX_OFFSET));
        node.set_tag(Some(Tag::new("!!str")));
        assert_eq!(node.tag().map(Tag::as_str), Some("!!str"));
        assert_eq!(format!("{:?}", node.tag()), r#"Some("!!str")"#);
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
