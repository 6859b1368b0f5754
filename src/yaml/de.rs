//! serde over a loaded [`Node`]: a file's schema is a set of derived structs, and every error
//! still names the place in the file it comes from.
//!
//! Written for capkg's own files (`capkg.yaml`), where a typo must be an error at its line, so
//! the deserializer is strict where serde's defaults are lenient:
//!
//! - a struct is a mapping whose keys are strings among its fields; anything else is an error at
//!   the key, naming the struct by its serde name (`#[serde(rename = "`targets.github`")]`) and
//!   listing the fields it has, in the order they are declared;
//! - a missing field is "`{struct}` needs `{field}`", at the mapping;
//! - `Option<T>` is `None` only when the key is absent: `key:` with no value is handed to `T`
//!   (and so is an error for a string), never silently dropped;
//! - a string is any scalar but null, as written (`1.10` stays `1.10`); a boolean is `true` or
//!   `false`, as written.
//!
//! [`Spanned`] keeps where a value (and its key) is, for the checks a schema cannot express;
//! [`OneOrMany`] and [`Strings`] read YAML's usual "one, or a list of them"; [`NullableString`]
//! is for a field where `key:` with no value means something.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};

use super::{Node, Value};

/// Reads `T` from `node`.
pub fn from_node<'de, T: Deserialize<'de>>(node: &'de Node) -> Result<T, Error> {
    T::deserialize(NodeDeserializer { node, key: None })
}

/// What went wrong, and where (the byte offset of the node or key; [`from_node`] always gives
/// one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
    offset: Option<usize>,
    /// Set by serde's `missing_field` until the struct that misses it names itself.
    missing: Option<&'static str>,
}

impl Error {
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The byte offset in the source the error is about.
    pub fn offset(&self) -> Option<usize> {
        self.offset
    }

    /// The innermost place wins: a node's error keeps the place it was given deeper down.
    fn at(mut self, offset: usize) -> Self {
        self.offset.get_or_insert(offset);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Error {
            message: message.to_string(),
            offset: None,
            missing: None,
        }
    }

    fn invalid_type(_: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Error::custom(format_args!("expected {expected}"))
    }

    fn invalid_value(_: de::Unexpected<'_>, expected: &dyn de::Expected) -> Self {
        Error::custom(format_args!("expected {expected}"))
    }

    fn missing_field(field: &'static str) -> Self {
        Error {
            missing: Some(field),
            ..Error::custom(format_args!("needs `{field}`"))
        }
    }
}

/// A value with the byte offsets of its node and, for a mapping's value, of its key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spanned<T> {
    pub start: usize,
    pub key_start: Option<usize>,
    pub value: T,
}

/// The struct name [`NodeDeserializer`] answers with the node's place instead of its content
/// (as toml's `Spanned` does); no field of a real file can be named so.
const SPANNED: &str = "$capkg::yaml::de::Spanned";
const SPANNED_FIELDS: &[&str] = &["$start", "$key_start", "$value"];
/// The newtype name [`NodeDeserializer`] answers with a list of one for anything not a list.
const ONE_OR_MANY: &str = "$capkg::yaml::de::OneOrMany";

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SpannedVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for SpannedVisitor<T> {
            type Value = Spanned<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a YAML node")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Spanned<T>, A::Error> {
                let (mut start, mut key_start, mut value) = (None, None, None);
                while let Some(field) = map.next_key::<&str>()? {
                    match field {
                        "$start" => start = Some(map.next_value::<u64>()?),
                        "$key_start" => key_start = Some(map.next_value::<u64>()?),
                        _ => value = Some(map.next_value::<T>()?),
                    }
                }
                let offset = |n: u64| usize::try_from(n).map_err(de::Error::custom);
                Ok(Spanned {
                    start: offset(start.ok_or_else(|| de::Error::missing_field("$start"))?)?,
                    key_start: key_start.map(offset).transpose()?,
                    value: value.ok_or_else(|| de::Error::missing_field("$value"))?,
                })
            }
        }

        deserializer.deserialize_struct(SPANNED, SPANNED_FIELDS, SpannedVisitor(PhantomData))
    }
}

/// One `T`, or a list of them (`components: {file: …}` or `components: [{file: …}, …]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneOrMany<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ListVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for ListVisitor<T> {
            type Value = OneOrMany<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("one value or a list")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<OneOrMany<T>, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element()? {
                    items.push(item);
                }
                Ok(OneOrMany(items))
            }
        }

        deserializer.deserialize_newtype_struct(ONE_OR_MANY, ListVisitor(PhantomData))
    }
}

/// A string or a list of strings (`templates: a.yaml` or `templates: [a.yaml, b.yaml]`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Strings(pub Vec<String>);

impl<'de> Deserialize<'de> for Strings {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct StringsVisitor;

        impl<'de> Visitor<'de> for StringsVisitor {
            type Value = Strings;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a list of strings")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Strings, E> {
                Ok(Strings(vec![text.to_string()]))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strings, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<String>()? {
                    items.push(item);
                }
                Ok(Strings(items))
            }
        }

        deserializer.deserialize_any(StringsVisitor)
    }
}

/// A string, or null (`key:`, `~`) read as `None`: for a field where "nothing" is a value of its
/// own, unlike [`Option`], which stands for an absent key only.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NullableString(pub Option<String>);

impl<'de> Deserialize<'de> for NullableString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct NullableVisitor;

        impl<'de> Visitor<'de> for NullableVisitor {
            type Value = NullableString;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<NullableString, E> {
                Ok(NullableString(Some(text.to_string())))
            }

            fn visit_unit<E: de::Error>(self) -> Result<NullableString, E> {
                Ok(NullableString(None))
            }
        }

        deserializer.deserialize_any(NullableVisitor)
    }
}

/// A list whose wrong shape (and, with `empty`, whose emptiness) is the caller's own sentence,
/// for a field where "expected a sequence" would not tell the user what to write. Used from a
/// `#[serde(deserialize_with = …)]` function.
pub fn list_of<'de, D, T>(
    deserializer: D,
    wrong_shape: &'static str,
    empty: Option<&'static str>,
) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct ListOf<T> {
        wrong_shape: &'static str,
        empty: Option<&'static str>,
        item: PhantomData<T>,
    }

    impl<'de, T: Deserialize<'de>> Visitor<'de> for ListOf<T> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut items = Vec::new();
            while let Some(item) = seq.next_element()? {
                items.push(item);
            }
            match self.empty {
                Some(message) if items.is_empty() => Err(de::Error::custom(message)),
                _ => Ok(items),
            }
        }

        fn visit_str<E: de::Error>(self, _: &str) -> Result<Vec<T>, E> {
            Err(E::custom(self.wrong_shape))
        }

        fn visit_unit<E: de::Error>(self) -> Result<Vec<T>, E> {
            Err(E::custom(self.wrong_shape))
        }

        fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Vec<T>, A::Error> {
            Err(de::Error::custom(self.wrong_shape))
        }
    }

    deserializer.deserialize_seq(ListOf {
        wrong_shape,
        empty,
        item: PhantomData,
    })
}

/// One node; `key` is the key it is the value of, for messages that name it.
#[derive(Clone, Copy)]
struct NodeDeserializer<'de> {
    node: &'de Node,
    key: Option<&'de Node>,
}

impl<'de> NodeDeserializer<'de> {
    fn start(&self) -> usize {
        self.node.span().start
    }

    fn scalar(&self) -> Option<&'de str> {
        match self.node.value() {
            Value::Scalar { text } if !self.node.is_null() => Some(text),
            _ => None,
        }
    }

    /// What the node is, for serde's "invalid type" (which capkg words as "expected …").
    fn unexpected(&self) -> de::Unexpected<'de> {
        match (self.node.value(), self.scalar()) {
            (Value::Scalar { .. }, Some(text)) => de::Unexpected::Str(text),
            (Value::Scalar { .. }, None) => de::Unexpected::Unit,
            (Value::Sequence(_), _) => de::Unexpected::Seq,
            (Value::Mapping(_), _) => de::Unexpected::Map,
        }
    }

    fn items(&self) -> Items<'de> {
        Items {
            nodes: self.node.items().iter(),
        }
    }
}

impl<'de> Deserializer<'de> for NodeDeserializer<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let result = match self.node.value() {
            Value::Scalar { .. } => match self.scalar() {
                Some(text) => visitor.visit_borrowed_str(text),
                None => visitor.visit_unit(),
            },
            Value::Sequence(_) => visitor.visit_seq(self.items()),
            Value::Mapping(mapping) => visitor.visit_map(Entries::new(&mapping.entries, None)),
        };
        result.map_err(|e| e.at(self.start()))
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.scalar() {
            Some("true") => visitor.visit_bool(true),
            Some("false") => visitor.visit_bool(false),
            _ => Err(<Error as de::Error>::custom(
                match self.key.and_then(Node::scalar_text) {
                    Some(key) => format!("`{key}` is `true` or `false`"),
                    None => "expected `true` or `false`".to_string(),
                },
            )),
        }
        .map_err(|e| e.at(self.start()))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.scalar() {
            Some(text) => visitor.visit_borrowed_str(text),
            None => Err(<Error as de::Error>::invalid_type(
                self.unexpected(),
                &visitor,
            )),
        }
        .map_err(|e| e.at(self.start()))
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    /// Present means `Some`, whatever the value: `None` is for an absent key only.
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    /// Not a list: the visitor decides (its own message, or "expected …").
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_any(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let result = match (name, self.node.value()) {
            (ONE_OR_MANY, Value::Sequence(_)) => visitor.visit_seq(self.items()),
            (ONE_OR_MANY, _) => visitor.visit_seq(Items {
                nodes: std::slice::from_ref(self.node).iter(),
            }),
            _ => visitor.visit_newtype_struct(self),
        };
        result.map_err(|e| e.at(self.start()))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == SPANNED {
            return visitor.visit_map(Place::new(self));
        }
        let Value::Mapping(mapping) = self.node.value() else {
            return Err(
                <Error as de::Error>::custom(format_args!("{name} must be a mapping"))
                    .at(self.start()),
            );
        };
        visitor
            .visit_map(Entries::new(&mapping.entries, Some((name, fields))))
            .map_err(|mut e| {
                if let Some(field) = e.missing.take() {
                    e.message = format!("{name} needs `{field}`");
                }
                e.at(self.start())
            })
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit unit_struct
        tuple tuple_struct map enum ignored_any
    }
}

/// A sequence's items (or a single node read as a list of one).
struct Items<'de> {
    nodes: std::slice::Iter<'de, Node>,
}

impl<'de> SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        match self.nodes.next() {
            Some(node) => seed
                .deserialize(NodeDeserializer { node, key: None })
                .map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.nodes.len())
    }
}

/// A mapping's entries; for a struct (`fields` given), keys are checked against its fields.
struct Entries<'de> {
    entries: std::slice::Iter<'de, (Node, Node)>,
    fields: Option<(&'static str, &'static [&'static str])>,
    value: Option<(&'de Node, &'de Node)>,
}

impl<'de> Entries<'de> {
    fn new(
        entries: &'de [(Node, Node)],
        fields: Option<(&'static str, &'static [&'static str])>,
    ) -> Self {
        Entries {
            entries: entries.iter(),
            fields,
            value: None,
        }
    }
}

impl<'de> MapAccess<'de> for Entries<'de> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        let Some((name, fields)) = self.fields else {
            return seed
                .deserialize(NodeDeserializer {
                    node: key,
                    key: None,
                })
                .map(Some);
        };
        let at = key.span().start;
        let Some(text) = key.as_str() else {
            return Err(<Error as de::Error>::custom(format_args!(
                "keys in {name} must be strings"
            ))
            .at(at));
        };
        if !fields.contains(&text) {
            return Err(<Error as de::Error>::custom(format_args!(
                "unknown field `{text}` in {name}; expected one of: {}",
                fields.join(", ")
            ))
            .at(at));
        }
        seed.deserialize(BorrowedStrDeserializer::new(text))
            .map(Some)
            .map_err(|e: Error| e.at(at))
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        match self.value.take() {
            Some((key, node)) => seed.deserialize(NodeDeserializer {
                node,
                key: Some(key),
            }),
            None => Err(de::Error::custom("a value was asked for before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// The three entries a [`Spanned`] reads: the node's offset, its key's, and the node itself.
struct Place<'de> {
    node: NodeDeserializer<'de>,
    next: usize,
}

impl<'de> Place<'de> {
    fn new(node: NodeDeserializer<'de>) -> Self {
        Place { node, next: 0 }
    }
}

impl<'de> MapAccess<'de> for Place<'de> {
    type Error = Error;

    fn next_key_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        if self.next == 1 && self.node.key.is_none() {
            self.next = 2;
        }
        match SPANNED_FIELDS.get(self.next) {
            Some(field) => seed
                .deserialize(BorrowedStrDeserializer::new(field))
                .map(Some),
            None => Ok(None),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let field = self.next;
        self.next += 1;
        let offset = |at: usize| (at as u64).into_deserializer();
        match (field, self.node.key) {
            (0, _) => seed.deserialize(offset(self.node.start())),
            (1, Some(key)) => seed.deserialize(offset(key.span().start)),
            _ => seed.deserialize(self.node),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, Source, parse_str};
    use std::sync::Arc;

    fn read<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, (String, usize)> {
        let file = parse_str(Arc::new(Source::new("t.yaml", text)), Limits::default());
        let root = file.documents[0].root.as_ref().expect("a document");
        from_node(root).map_err(|e| (e.message().to_string(), e.offset().unwrap_or(usize::MAX)))
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename = "`thing`", deny_unknown_fields)]
    struct Thing {
        name: Spanned<String>,
        enabled: Option<bool>,
        tags: Option<Strings>,
        parts: Option<OneOrMany<Part>>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename = "a part", deny_unknown_fields)]
    struct Part {
        id: String,
    }

    #[test]
    fn fields_read_with_their_places() {
        let thing: Thing = read("name: a\nenabled: true\ntags: x\nparts: {id: p}\n").unwrap();
        assert_eq!((thing.name.value.as_str(), thing.name.start), ("a", 6));
        assert_eq!(thing.name.key_start, Some(0));
        assert_eq!(thing.enabled, Some(true));
        assert_eq!(thing.tags, Some(Strings(vec!["x".into()])));
        assert_eq!(thing.parts.unwrap().0, vec![Part { id: "p".into() }]);
        let listed: Thing = read("name: 1.10\ntags: [a, b]\nparts: [{id: p}, {id: q}]\n").unwrap();
        assert_eq!(
            listed.name.value, "1.10",
            "a string is the scalar as written"
        );
        assert_eq!(listed.tags.unwrap().0, ["a", "b"]);
        assert_eq!(listed.parts.unwrap().0.len(), 2);
    }

    #[test]
    fn errors_name_the_struct_the_field_and_the_place() {
        let unknown = read::<Thing>("name: a\nnmae: b\n").unwrap_err();
        assert_eq!(
            unknown,
            (
                "unknown field `nmae` in `thing`; expected one of: name, enabled, tags, parts"
                    .into(),
                8
            )
        );
        assert_eq!(
            read::<Thing>("enabled: true\n").unwrap_err(),
            ("`thing` needs `name`".into(), 0)
        );
        assert_eq!(
            read::<Thing>("name: a\nenabled: yes\n").unwrap_err(),
            ("`enabled` is `true` or `false`".into(), 17)
        );
        assert_eq!(
            read::<Thing>("name:\n").unwrap_err().0,
            "expected a string",
            "a key without a value is not an absent key"
        );
        assert_eq!(
            read::<Thing>("name: a\nparts: [{id: p}, {id: [q]}]\n").unwrap_err(),
            ("expected a string".into(), 30)
        );
        assert_eq!(
            read::<Thing>("name: a\ntags: {a: b}\n").unwrap_err(),
            ("expected a string or a list of strings".into(), 14)
        );
        #[derive(Debug, Deserialize)]
        struct Note {
            note: NullableString,
        }
        assert_eq!(read::<Note>("note:\n").unwrap().note, NullableString(None));
        assert_eq!(
            read::<Note>("note: ~\n").unwrap().note,
            NullableString(None)
        );
        assert_eq!(
            read::<Note>("note: ''\n").unwrap().note.0.as_deref(),
            Some("")
        );
        assert_eq!(
            read::<Note>("note: [a]\n").unwrap_err(),
            ("expected a string".into(), 6)
        );
        assert_eq!(
            read::<Thing>("[a]\n").unwrap_err(),
            ("`thing` must be a mapping".into(), 0)
        );
        assert_eq!(
            read::<Thing>("name: a\n1: b\n").unwrap_err(),
            ("keys in `thing` must be strings".into(), 8)
        );
    }

    #[test]
    fn a_list_of_gives_its_own_message() {
        #[derive(Debug, Deserialize)]
        struct Holder {
            #[serde(deserialize_with = "parts")]
            parts: Vec<Part>,
        }
        fn parts<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Part>, D::Error> {
            list_of(
                d,
                "`parts` must be a list of parts",
                Some("`parts` needs a part"),
            )
        }
        assert_eq!(read::<Holder>("parts: [{id: a}]\n").unwrap().parts.len(), 1);
        assert_eq!(
            read::<Holder>("parts: {id: a}\n").unwrap_err(),
            ("`parts` must be a list of parts".into(), 7)
        );
        assert_eq!(
            read::<Holder>("parts: []\n").unwrap_err(),
            ("`parts` needs a part".into(), 7)
        );
    }
}
