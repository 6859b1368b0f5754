//! Writes YAML exactly as clusterctl prints it: `sigs.k8s.io/yaml.Marshal` of each object, joined
//! by cluster-api's `JoinYaml`.
//!
//! `Marshal` is `encoding/json` followed by `JSONToYAML`, which reads the JSON back with go-yaml v2
//! (so a whole float64 up to the uint64 range becomes an integer again, anything else a float) and
//! writes it with go-yaml v2's emitter. This module reproduces that chain on a [`JsonValue`] (what
//! clusterctl holds after reading a document, see [`super::json_value`]):
//!
//! - keys sorted with go-yaml's comparator ([`super::key_order`]), block style, two-space indent,
//!   sequences not indented under their key, empty collections as `{}` and `[]`;
//! - numbers as Go prints them after the JSON round trip (`1`, `1.5`, `1e+06`,
//!   `12345678901234567000`, `1e+21`);
//! - strings plain when go-yaml v2 would read them back as the same string and its emitter allows
//!   it, otherwise single-quoted, double-quoted (escapes, `"true"`, `"1.0"`, `"2001-12-14"`,
//!   `"12:30"`) or as literal blocks (`|`, `|-`, `|+`, with an indentation indicator when the text
//!   starts with a space); long plain and quoted strings folded at 80 columns;
//! - the quirks that come with it: a string starting with U+FEFF is escaped character by
//!   character, characters outside the Basic Multilingual Plane are escaped (`\U0001F600`), a raw
//!   U+0085 is folded like a line break when go-yaml re-reads the JSON, and DEL, C1 controls,
//!   U+FFFE and U+FFFF make `Marshal` fail ("control characters are not allowed").
//!
//! The emitter ([`emitter`]) is a port of the part of go-yaml v2's `emitterc.go` state machine that these
//! events reach; it runs over an event list with explicit stacks, so nesting depth costs heap, not
//! call stack. It never panics on any value.
//!
//! Any value can be written, as `Marshal` writes any value; clusterctl itself only ever holds
//! mappings (it refuses other documents when it reads them). Where clusterctl's own output is not
//! deterministic (two YAML keys that become one JSON key, key sets go-yaml's comparator cannot
//! order consistently) capkg picks one of its possible outputs, always the same.

mod emitter;

use std::borrow::Cow;

use super::go_float;
use super::json_value::{JsonValue, ToJsonError};
use super::key_order;
use super::node::Node;
use super::resolve::{self, Resolved};

/// Why clusterctl's serialisation would fail.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WriteError {
    /// The document cannot be held as JSON (see [`ToJsonError`]).
    #[error(transparent)]
    Json(#[from] ToJsonError),
    /// A string holds a character go-yaml refuses to read back from the JSON text (DEL, a C1
    /// control other than U+0085, U+FFFE or U+FFFF).
    #[error(
        "the string {text:?} holds the character U+{code:04X}, which go-yaml refuses (\"control characters are not allowed\"); clusterctl cannot print it"
    )]
    ControlCharacter { text: String, code: u32 },
    /// A map key go-yaml cannot read back from the JSON text as a key: one holding U+0085 (a
    /// line break to go-yaml, and a key must fit on one line), or one whose JSON form is longer
    /// than the 1024 characters YAML allows an implicit key.
    #[error(
        "the map key {key:?} cannot be printed by clusterctl: go-yaml cannot read it back as a key ({reason})"
    )]
    UnreadableKey { key: String, reason: &'static str },
}

/// What `sigs.k8s.io/yaml.Marshal` returns for the value: YAML ending with a line break.
pub fn write_value(value: &JsonValue) -> Result<String, WriteError> {
    write_value_sized(value, 0)
}

/// [`write_value`] of a value read from a document of `size` bytes. Its events and its text are
/// allocated at about their final size from the start: grown by doubling, they were most of the
/// memory `capkg render` allocates, all of it fresh pages to fault in.
pub fn write_value_sized(value: &JsonValue, size: usize) -> Result<String, WriteError> {
    /// Bytes of a components file per event, measured on the corpus (about 37).
    const BYTES_PER_EVENT: usize = 32;
    let events = events_for(value, size / BYTES_PER_EVENT)?;
    // The text is about as long as the document; a little room for what the round trips add.
    let capacity = if size == 0 { 0 } else { size + size / 16 + 64 };
    Ok(String::from_utf8(emitter::emit(&events, capacity))
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
}

/// What clusterctl prints for a document: [`JsonValue::from_node`] then [`write_value`].
pub fn write_document(node: &Node) -> Result<String, WriteError> {
    write_value(&JsonValue::from_node(node)?)
}

/// cluster-api's `JoinYaml`: each part gets a line break at its start and end if it lacks one,
/// parts are joined with `---`, then one leading and one trailing line break are removed. The
/// result has no leading `---` and no final line break.
pub fn join_documents<S: AsRef<str>>(parts: &[S]) -> String {
    // Built once at its final size, plus the line break callers add at the end: a components
    // file's text is megabytes, and each copy or regrowth of it is fresh memory to fault in.
    let size: usize = join_pieces(parts).map(str::len).sum();
    let mut joined = String::with_capacity(size + 1);
    for (index, piece) in join_pieces(parts).enumerate() {
        // The first piece starts with a line break and the last ends with one (each part is
        // put between two): JoinYaml removes both.
        joined.push_str(if index == 0 { &piece[1..] } else { piece });
    }
    joined.pop();
    joined
}

/// [`join_documents`] and the final line break clusterctl prints after them.
pub fn printed_documents<S: AsRef<str>>(parts: &[S]) -> String {
    let mut printed = join_documents(parts);
    printed.push('\n');
    printed
}

/// [`printed_documents`], written to `out` piece by piece: the same bytes without the joined
/// copy of the whole text. The last piece ends with the line break `JoinYaml` removes and the
/// printer adds back, so it is written as it is.
pub fn write_joined_documents<S: AsRef<str>>(
    parts: &[S],
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    // A lone line break is both the one removed at the start and the one at the end.
    if join_pieces(parts).map(str::len).sum::<usize>() <= 1 {
        return out.write_all(b"\n");
    }
    for (index, piece) in join_pieces(parts).enumerate() {
        out.write_all(if index == 0 {
            &piece.as_bytes()[1..]
        } else {
            piece.as_bytes()
        })?;
    }
    Ok(())
}

/// The pieces `JoinYaml` concatenates: `---` between parts, and a line break before and after
/// each part that lacks one. The first piece starts with a line break and the last ends with
/// one.
fn join_pieces<S: AsRef<str>>(parts: &[S]) -> impl Iterator<Item = &str> {
    parts
        .iter()
        .enumerate()
        .flat_map(|(index, part)| {
            let part = part.as_ref();
            [
                if index > 0 { "---" } else { "" },
                if part.starts_with('\n') { "" } else { "\n" },
                part,
                if part.ends_with('\n') { "" } else { "\n" },
            ]
        })
        .filter(|piece| !piece.is_empty())
}

/// cluster-api's `FromUnstructured`: every document written, then joined.
pub fn write_documents<'a>(
    nodes: impl IntoIterator<Item = &'a Node>,
) -> Result<String, WriteError> {
    let parts = nodes
        .into_iter()
        .map(write_document)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(join_documents(&parts))
}

// ---------------------------------------------------------------------------------------------
// From a JSON value to go-yaml events.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

/// A scalar's text borrows from the value written where it can (nearly always).
#[derive(Debug, Clone, PartialEq)]
enum Event<'v> {
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    SequenceStart,
    SequenceEnd,
    MappingStart,
    MappingEnd,
    Scalar {
        value: Cow<'v, str>,
        style: ScalarStyle,
    },
}

/// The events go-yaml's encoder produces for the value that `JSONToYAML` decodes from
/// `json.Marshal(value)`.
fn events_for(value: &JsonValue, capacity: usize) -> Result<Vec<Event<'_>>, WriteError> {
    enum Task<'v> {
        Value(&'v JsonValue),
        Key(&'v str),
        End(Event<'v>),
    }
    let mut events = Vec::with_capacity(capacity.max(8));
    events.extend([Event::StreamStart, Event::DocumentStart]);
    let mut tasks = vec![Task::Value(value)];
    while let Some(task) = tasks.pop() {
        match task {
            Task::End(event) => events.push(event),
            Task::Key(key) => {
                check_key(key)?;
                events.push(string_event(key)?);
            }
            Task::Value(JsonValue::Null) => events.push(plain("null")),
            Task::Value(JsonValue::Bool(b)) => {
                events.push(plain(if *b { "true" } else { "false" }))
            }
            Task::Value(JsonValue::Number(n)) => events.push(Event::Scalar {
                value: Cow::Owned(number_text(*n)),
                style: ScalarStyle::Plain,
            }),
            Task::Value(JsonValue::String(s)) => events.push(string_event(s)?),
            Task::Value(JsonValue::Array(items)) => {
                events.push(Event::SequenceStart);
                tasks.push(Task::End(Event::SequenceEnd));
                tasks.extend(items.iter().rev().map(Task::Value));
            }
            Task::Value(JsonValue::Object(entries)) => {
                events.push(Event::MappingStart);
                tasks.push(Task::End(Event::MappingEnd));
                let mut sorted: Vec<&(String, JsonValue)> = entries.iter().collect();
                key_order::sort_keys(&mut sorted, |entry| entry.0.as_str());
                for (key, value) in sorted.into_iter().rev() {
                    tasks.push(Task::Value(value));
                    tasks.push(Task::Key(key));
                }
            }
        }
    }
    events.push(Event::DocumentEnd);
    events.push(Event::StreamEnd);
    Ok(events)
}

fn plain(text: &'static str) -> Event<'static> {
    Event::Scalar {
        value: Cow::Borrowed(text),
        style: ScalarStyle::Plain,
    }
}

/// A float64 as it comes out of `json.Marshal` -> go-yaml's resolver -> go-yaml's encoder: whole
/// numbers that `encoding/json` writes without an exponent and that fit an int64 or uint64 print
/// as integers, everything else through `strconv.FormatFloat(f, 'g', -1, 64)`.
fn number_text(value: f64) -> String {
    if let Some(text) = go_float::json_integer_text(value) {
        if let Ok(i) = text.parse::<i64>() {
            return i.to_string();
        }
        if text.parse::<u64>().is_ok() {
            return text;
        }
    }
    go_float::format_g64(value)
}

/// go-yaml's `encoder.stringv` for a string that went through JSON and back.
fn string_event(text: &str) -> Result<Event<'_>, WriteError> {
    let value = reread_from_json(text)?;
    let style = if value.contains('\n') {
        ScalarStyle::Literal
    } else if plain_reads_back(&value) {
        ScalarStyle::Plain
    } else {
        ScalarStyle::DoubleQuoted
    };
    Ok(Event::Scalar { value, style })
}

/// Keys that go-yaml's scanner refuses when `JSONToYAML` reads the JSON text: a key is a simple
/// key there, which must stay on one line and end (at its `:`) within 1024 characters of where it
/// starts, quotes and escapes included.
fn check_key(key: &str) -> Result<(), WriteError> {
    if key.contains('\u{85}') {
        return Err(WriteError::UnreadableKey {
            key: key.to_string(),
            reason: "it holds U+0085, a line break in YAML 1.1",
        });
    }
    // A character is at most six in JSON: a key of up to 170 bytes (nearly every key) is within
    // the limit without counting.
    if 2 + 6 * key.len() <= 1024 {
        return Ok(());
    }
    let json_chars: usize = 2 + key.chars().map(json_escaped_chars).sum::<usize>();
    if json_chars > 1024 {
        return Err(WriteError::UnreadableKey {
            key: key.to_string(),
            reason: "its JSON form is longer than 1024 characters",
        });
    }
    Ok(())
}

/// How many characters `encoding/json` (Go 1.22 and later) writes for a character of a string.
fn json_escaped_chars(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => 6,
        c if (c as u32) < 0x20 => 6,
        _ => 1,
    }
}

/// go-yaml's `resolve("", s)` gives `!!str` and `s` is not a YAML 1.1 base-60 float.
fn plain_reads_back(text: &str) -> bool {
    // go-yaml's resolver only consults its table of special words for text starting with one of
    // `+-0123456789.yYnNtTfFoO~`, so `<<` resolves to a string here, unlike in a mapping key.
    let resolves_to_string = matches!(
        resolve::resolve(text, saphyr_parser::ScalarStyle::Plain, None),
        Resolved::Str | Resolved::Merge
    );
    resolves_to_string && !is_base60_float(text)
}

/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`
fn is_base60_float(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        i += 1;
        // `[0-5]?[0-9]`: one digit, or two with the first in 0..=5.
        match (b.get(i), b.get(i + 1)) {
            (Some(d1 @ b'0'..=b'5'), Some(d2)) if d2.is_ascii_digit() => {
                let _ = d1;
                i += 2;
            }
            (Some(d), _) if d.is_ascii_digit() => i += 1,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// The string go-yaml reads back from the JSON text `encoding/json` wrote for `text`.
///
/// `encoding/json` escapes control characters below U+0020, quotes, backslashes, `<`, `>`, `&`,
/// U+2028 and U+2029, and writes everything else raw. go-yaml's reader refuses DEL, the C1
/// controls except U+0085, U+FFFE and U+FFFF; and inside a double-quoted scalar it treats a raw
/// U+0085 as a line break, folding it (with the spaces around it) like any line break.
fn reread_from_json(text: &str) -> Result<Cow<'_, str>, WriteError> {
    if text.is_ascii() {
        // Of the characters refused below, ASCII has only DEL; and it has no NEL.
        return match memchr::memchr(0x7F, text.as_bytes()) {
            Some(_) => Err(WriteError::ControlCharacter {
                text: text.to_string(),
                code: 0x7F,
            }),
            None => Ok(Cow::Borrowed(text)),
        };
    }
    if let Some(c) = text.chars().find(|&c| {
        let code = c as u32;
        code == 0x7F
            || ((0x80..=0x9F).contains(&code) && code != 0x85)
            || code == 0xFFFE
            || code == 0xFFFF
    }) {
        return Err(WriteError::ControlCharacter {
            text: text.to_string(),
            code: c as u32,
        });
    }
    if !text.contains('\u{85}') {
        return Ok(Cow::Borrowed(text));
    }
    // Runs of spaces and NELs: without a NEL the spaces stay; with one, the spaces before it go,
    // the spaces after each NEL are indentation, and the breaks fold: one NEL is a space, n NELs
    // are n-1 line feeds.
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != ' ' && c != '\u{85}' {
            out.push(c);
            continue;
        }
        let mut run = String::from(c);
        while let Some(&next) = chars.peek() {
            if next != ' ' && next != '\u{85}' {
                break;
            }
            run.push(next);
            chars.next();
        }
        let breaks = run.chars().filter(|&c| c == '\u{85}').count();
        match breaks {
            0 => out.push_str(&run),
            1 => out.push(' '),
            n => out.extend(std::iter::repeat_n('\n', n - 1)),
        }
    }
    Ok(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{Limits, Source, parse_str};
    use std::sync::Arc;

    /// Loads `yaml` with capkg's loader and prints it as clusterctl does.
    fn clusterctl(yaml: &str) -> Result<String, WriteError> {
        let file = parse_str(Arc::new(Source::new("t.yaml", yaml)), Limits::default());
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        write_documents(file.roots())
    }

    fn printed(yaml: &str) -> String {
        clusterctl(yaml).unwrap_or_else(|e| panic!("{yaml:?}: {e}"))
    }

    /// Expected output transcribed from cluster-api's tests (util/yaml, cmd/clusterctl/client).
    #[test]
    fn cluster_api_expectations() {
        // util/yaml/yaml_test.go TestFromUnstructured.
        assert_eq!(
            printed("kind: ConfigMap\napiVersion: v1\n"),
            "apiVersion: v1\nkind: ConfigMap"
        );
        // cmd/clusterctl/client/init_test.go templateYAML("ns1", "test"), what
        // config_test.go expects GetClusterTemplate(...).Yaml() to return.
        assert_eq!(
            printed("apiVersion: v1\nkind: Cluster\nmetadata:\n  namespace: ns1\n  name: test\n"),
            "apiVersion: v1\nkind: Cluster\nmetadata:\n  name: test\n  namespace: ns1"
        );
        // config_test.go Test_clusterctlClient_ProcessYAML, after substitution.
        assert_eq!(
            printed("v1: default1\nv2: default2\nv3: default3"),
            "v1: default1\nv2: default2\nv3: default3"
        );
        // repository/template_test.go and clusterclass_client_test.go check for this line.
        assert!(
            printed("apiVersion: v1\ndata:\n  variable: foo\nkind: ConfigMap\nmetadata:\n  name: manager")
                .contains("variable: foo")
        );
    }

    /// `JoinYaml` over the inputs cluster-api's tests build with it.
    #[test]
    fn join_yaml_rows() {
        // init_test.go componentsYAML(ns): two parts without trailing line breaks.
        let namespace = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1";
        let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: manager";
        assert_eq!(
            join_documents(&[namespace, pod]),
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns1\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: manager"
        );
        // components_client_test.go: controllerYaml ends with a line break, the others do not.
        let controller = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-controller\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: docker.io/library/image:latest\n";
        let config_map = "apiVersion: v1\ndata:\n  variable: ${FOO}\nkind: ConfigMap\nmetadata:\n  name: manager";
        let joined = join_documents(&[namespace, controller, config_map]);
        assert_eq!(
            joined,
            format!("{namespace}\n---\n{controller}---\n{config_map}")
        );
        // Parts that already start or end with line breaks keep the extra ones.
        assert_eq!(
            join_documents(&["\na: 1\n\n", "b: 2\n"]),
            "a: 1\n\n---\nb: 2"
        );
        assert_eq!(join_documents::<&str>(&[]), "");
        assert_eq!(join_documents(&["a: 1\n"]), "a: 1");
        assert_eq!(join_documents(&[""]), "");
        assert_eq!(join_documents(&["", ""]), "\n---\n");
        assert_eq!(join_documents(&["\n"]), "");
        // Room for the caller's final line break.
        let joined = join_documents(&["a: 1", "b: 2"]);
        assert_eq!(joined, "a: 1\n---\nb: 2");
        assert!(joined.capacity() > joined.len());
        // Written piece by piece, the same bytes and the final line break.
        let rows: &[&[&str]] = &[
            &[namespace, pod],
            &[namespace, controller, config_map],
            &["\na: 1\n\n", "b: 2\n"],
            &[],
            &["a: 1\n"],
            &[""],
            &["", ""],
            &["\n"],
            &["\n\n", "\n"],
        ];
        for parts in rows {
            let mut written = Vec::new();
            write_joined_documents(parts, &mut written).unwrap();
            assert_eq!(
                String::from_utf8(written).unwrap(),
                format!("{}\n", join_documents(parts)),
                "{parts:?}"
            );
            assert_eq!(
                printed_documents(parts),
                format!("{}\n", join_documents(parts))
            );
        }
    }

    /// Rows of sigs.k8s.io/yaml v1.6.0 TestYAMLToJSON, YAML -> JSON -> YAML. Through
    /// `Unmarshal` into a map every number is a float64, so "integer value (2^53 + 1)" prints as
    /// 2^53 here (`JSONToYAML` alone would keep it).
    #[test]
    fn sigs_yaml_round_trip_rows() {
        let rows: &[(&str, &str)] = &[
            ("t: a\n", "t: a\n"),
            ("t: null\n", "t: null\n"),
            ("t: True\n", "t: true\n"),
            ("t: no\n", "t: false\n"),
            ("t: 9007199254740993\n", "t: 9007199254740992\n"),
            ("t: 1000000000000000000000000000000000000\n", "t: 1e+36\n"),
            (
                "t: this is very long line with spaces and it must be longer than 80 so we will repeat\n  that it must be longer that 80\n",
                "t: this is very long line with spaces and it must be longer than 80 so we will repeat\n  that it must be longer that 80\n",
            ),
            ("t: ", "t: null\n"),
            ("True: a", "\"true\": a\n"),
            ("no: a", "\"false\": a\n"),
            ("1: a", "\"1\": a\n"),
            ("1.2: a", "\"1.2\": a\n"),
            ("1000000000000000000000000000000000000: a", "\"1e+36\": a\n"),
            ("1e+36: a", "\"1e+36\": a\n"),
            ("\"1e+36\": a\n", "\"1e+36\": a\n"),
            ("\"1.2\": a\n", "\"1.2\": a\n"),
            ("- t: a\n", "- t: a\n"),
            (
                "- t: a\n- t:\n    b: 1\n    c: 2\n",
                "- t: a\n- t:\n    b: 1\n    c: 2\n",
            ),
            (
                "[{t: a}, {t: {b: 1, c: 2}}]",
                "- t: a\n- t:\n    b: 1\n    c: 2\n",
            ),
            ("- t: ", "- t: null\n"),
            ("- t: null\n", "- t: null\n"),
            ("a: !!binary gIGC", "a: \u{FFFD}\u{FFFD}\u{FFFD}\n"),
        ];
        for (yaml, expected) in rows {
            let file = parse_str(Arc::new(Source::new("t.yaml", *yaml)), Limits::default());
            let root = file.documents[0].root.as_ref().expect("a document");
            assert_eq!(write_document(root).as_deref(), Ok(*expected), "{yaml:?}");
        }
        // The "~ key" and "null key" rows fail.
        for yaml in ["~: a", "null: a"] {
            assert!(matches!(
                clusterctl(yaml),
                Err(WriteError::Json(ToJsonError::UnsupportedKey { .. }))
            ));
        }
    }

    /// Rows of go-yaml v2.4.2's encode_test.go marshalTests (and TestLineWrapping) whose values
    /// a JSON document can hold, written here as YAML input.
    #[test]
    fn go_yaml_marshal_rows() {
        let rows: &[(&str, &str)] = &[
            ("v: hi", "v: hi\n"),
            ("v: 'true'", "v: \"true\"\n"),
            ("v: 'false'", "v: \"false\"\n"),
            ("v: true", "v: true\n"),
            ("v: false", "v: false\n"),
            ("v: 10", "v: 10\n"),
            ("v: -10", "v: -10\n"),
            ("v: 42", "v: 42\n"),
            ("v: 4294967296", "v: 4294967296\n"),
            ("v: '10'", "v: \"10\"\n"),
            ("v: 0.1", "v: 0.1\n"),
            ("v: 0.99", "v: 0.99\n"),
            ("v: -0.1", "v: -0.1\n"),
            ("v: null", "v: null\n"),
            ("v: ''", "v: \"\"\n"),
            ("v: [A, B]", "v:\n- A\n- B\n"),
            ("v: [A, \"B\\nC\"]", "v:\n- A\n- |-\n  B\n  C\n"),
            (
                "v: [A, 1, {B: [2, 3]}]",
                "v:\n- A\n- 1\n- B:\n  - 2\n  - 3\n",
            ),
            ("a: {b: c}", "a:\n  b: c\n"),
            ("a: '-'", "a: '-'\n"),
            ("{}", "{}\n"),
            ("a: '<foo>'", "a: <foo>\n"),
            ("a: '1:1'", "a: \"1:1\"\n"),
            ("a: \"\\0\"", "a: \"\\0\"\n"),
            ("a: 你好", "a: 你好\n"),
            ("a: '2015-02-24T18:19:39Z'", "a: \"2015-02-24T18:19:39Z\"\n"),
            ("a: 'b: c'", "a: 'b: c'\n"),
            ("a: 'Hello #comment'", "a: 'Hello #comment'\n"),
            ("a: '你好 #comment'", "a: '你好 #comment'\n"),
            ("a: 5", "a: 5\n"),
            ("a: 100.5", "a: 100.5\n"),
            ("a: bogus", "a: bogus\n"),
            (
                "a: 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 '",
                "a: 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 abcdefghijklmnopqrstuvwxyz\n  ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 '\n",
            ),
        ];
        for (yaml, expected) in rows {
            assert_eq!(printed(yaml) + "\n", *expected, "{yaml:?}");
        }
    }

    /// Outputs confirmed by running sigs.k8s.io/yaml v1.6.0 over go-yaml v2.4.2 (Go 1.19).
    #[test]
    fn go_yaml_emitter_quirks() {
        let yaml = concat!(
            "bom: \"\\uFEFFbom\"\n",
            "emoji: \"a😀b\"\n",
            "nel: \"a\\Nb\"\n",
            "nels: \"a \\N\\N  b\"\n",
            "lead: \" lead\\nx\"\n",
            "trail: \"a \\nb\"\n",
            "tabs: \"a\\tb\"\n",
            "only_newline: \"\\n\"\n",
            "two_newlines: \"a\\n\\n\"\n",
            "cr: \"a\\r\\nb\"\n",
            "long_key_130_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx: v\n",
            "\"multi\\nline\": v\n",
            "quote_long: \"it's a very long string with a single ' quote in it that goes on and on past the eighty column mark \"\n",
            "dq_long: \"tab\\there tab\\there tab\\there tab\\there tab\\there tab\\there tab\\there tab\\there tab\\there\"\n",
            "dq_spaces: \"x\\tx                                                                              two  spaces  here\"\n",
            "nested:\n- - a\n  - b\n- k: v\n  l: [1, 2]\n- {}\n- []\n- null\n",
        );
        let expected = concat!(
            "bom: \"\\uFEFF\\x62\\x6F\\x6D\"\n",
            "cr: \"a\\r\\nb\"\n",
            "dq_long: \"tab\\there tab\\there tab\\there tab\\there tab\\there tab\\there tab\\there tab\\there\n",
            "  tab\\there\"\n",
            "dq_spaces: \"x\\tx                                                                              two\n",
            "  \\ spaces  here\"\n",
            "emoji: \"a\\U0001F600b\"\n",
            "lead: |2-\n   lead\n  x\n",
            "? long_key_130_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
            ": v\n",
            "? |-\n  multi\n  line\n: v\n",
            "nel: a b\n",
            "nels: |-\n  a\n  b\n",
            "nested:\n- - a\n  - b\n- k: v\n  l:\n  - 1\n  - 2\n- {}\n- []\n- null\n",
            "only_newline: |2+\n\n",
            "quote_long: 'it''s a very long string with a single '' quote in it that goes on and\n",
            "  on past the eighty column mark '\n",
            "tabs: \"a\\tb\"\n",
            "trail: \"a \\nb\"\n",
            "two_newlines: |+\n  a\n",
        );
        assert_eq!(printed(yaml), expected);
        // Documents that are not mappings, as sigs.k8s.io/yaml.Marshal prints them.
        assert_eq!(
            printed(
                "\"2\"\n---\n- |\n  x\n---\n\"  lead\\nb\"\n---\n\"plain root string that is rather long and will need to be folded at eighty columns ok\"\n---\n12345.5\n"
            ),
            "\"2\"\n---\n- |\n  x\n---\n|2-\n    lead\n  b\n---\nplain root string that is rather long and will need to be folded at eighty columns\n  ok\n---\n12345.5"
        );
    }

    /// Every plain word go-yaml v2 would read as something else is double-quoted; what it reads
    /// as a string stays plain (outputs confirmed with go-yaml v2.4.2).
    #[test]
    fn strings_are_quoted_exactly_when_go_yaml_needs_it() {
        let rows: &[(&str, &str)] = &[
            ("y", "\"y\""),
            ("NO", "\"NO\""),
            ("Off", "\"Off\""),
            ("~", "\"~\""),
            ("0o755", "\"0o755\""),
            ("-0b101", "\"-0b101\""),
            ("08", "\"08\""),
            ("1_000", "\"1_000\""),
            (".NaN", "\".NaN\""),
            ("12:30", "\"12:30\""),
            ("190:20:30", "\"190:20:30\""),
            ("2001-12-14 21:59:43.10", "\"2001-12-14 21:59:43.10\""),
            ("<<", "<<"),
            ("=", "="),
            ("?a", "?a"),
            ("? a", "'? a'"),
            (":a", ":a"),
            ("a :b", "a :b"),
            ("a#b", "a#b"),
            ("---", "'---'"),
            ("----", "'----'"),
            ("._", "._"),
            ("1e", "1e"),
            ("0x", "0x"),
            ("123456789012345678901", "\"123456789012345678901\""),
            ("v1.2.3", "v1.2.3"),
            ("a'b", "a'b"),
            ("'quoted'", "'''quoted'''"),
            ("\u{a0}nbsp", "\u{a0}nbsp"),
            ("nbsp\u{a0}", "nbsp\u{a0}"),
            ("\\", "\\"),
        ];
        for (text, expected) in rows {
            let yaml = format!("v: {}", serde_json::to_string(text).unwrap_or_default());
            assert_eq!(printed(&yaml), format!("v: {expected}"), "{text:?}");
        }
    }

    /// Numbers as Go prints them after the float64 and JSON round trip (confirmed with Go).
    #[test]
    fn numbers_print_as_go_prints_them() {
        let rows: &[(&str, &str)] = &[
            ("0", "0"),
            ("-0", "0"),
            ("-0.0", "0"),
            ("1.0", "1"),
            ("1e3", "1000"),
            ("1e6", "1000000"),
            ("1e-7", "1e-07"),
            ("1e20", "1e+20"),
            ("1e21", "1e+21"),
            ("123456.7", "123456.7"),
            ("1234567.5", "1.2345675e+06"),
            ("0.000001", "1e-06"),
            ("9223372036854775807", "9223372036854776000"),
            ("18446744073709551615", "1.8446744073709552e+19"),
            ("18446744073709551616", "1.8446744073709552e+19"),
            ("-9223372036854775809", "-9.223372036854776e+18"),
            ("12345678901234567890", "12345678901234567000"),
            ("-12345678901234567890", "-1.2345678901234567e+19"),
            ("0x7FFFFFFFFFFFFFFF", "9223372036854776000"),
            ("0o777", "511"),
            ("0755", "493"),
            ("1_000_000", "1000000"),
            ("+12", "12"),
            ("3.14159265358979323846", "3.141592653589793"),
            ("6.02e23", "6.02e+23"),
            ("5e-324", "5e-324"),
            (".5", "0.5"),
            ("1.", "1"),
        ];
        for (text, expected) in rows {
            assert_eq!(
                printed(&format!("v: {text}")),
                format!("v: {expected}"),
                "{text}"
            );
        }
    }

    #[test]
    fn what_clusterctl_cannot_print_is_an_error() {
        assert!(matches!(
            clusterctl("a: \"x\\x7Fy\""),
            Err(WriteError::ControlCharacter { code: 0x7F, .. })
        ));
        assert!(matches!(
            clusterctl("a: \"\\x90\""),
            Err(WriteError::ControlCharacter { .. })
        ));
        assert!(matches!(
            clusterctl("a: \"x\\uFFFEy\""),
            Err(WriteError::ControlCharacter { .. })
        ));
        assert!(matches!(
            clusterctl("\"a\\Nb\": 1"),
            Err(WriteError::UnreadableKey { .. })
        ));
        // A key is read back as a simple key, at most 1024 characters of JSON: 1010 + 12 + 2
        // is fine, one more is not.
        let key = |n: usize| format!("\"{}<<\": 1", "k".repeat(n));
        assert!(clusterctl(&key(1010)).is_ok());
        assert!(matches!(
            clusterctl(&key(1011)),
            Err(WriteError::UnreadableKey { .. })
        ));
        assert!(matches!(
            clusterctl("a: .inf"),
            Err(WriteError::Json(ToJsonError::NonFiniteNumber { .. }))
        ));
    }

    #[test]
    fn keys_sort_with_go_yaml_comparator() {
        assert_eq!(
            printed("b10: 1\nb9: 2\nb-1: 3\nB: 4\na: 5\n\"\": 6\n"),
            "\"\": 6\nB: 4\na: 5\nb-1: 3\nb9: 2\nb10: 1"
        );
    }

    #[test]
    fn output_is_deterministic() {
        let yaml = "z: 1\ny: [a, {q: 1, p: 2}]\nx: 'long text long text long text long text long text long text long text long text'\n";
        let first = printed(yaml);
        for _ in 0..3 {
            assert_eq!(printed(yaml), first);
        }
    }

    #[test]
    fn deep_nesting_is_written_without_recursion() {
        // Built (and dropped) iteratively-enough: 5,000 levels of single-item arrays.
        let mut value = JsonValue::String("x".into());
        for _ in 0..5000 {
            value = JsonValue::Array(vec![value]);
        }
        let text = write_value(&value).expect("writes");
        assert!(text.starts_with("- - - "));
        assert!(text.trim_end().ends_with("- x"));
        let mut value = Some(value);
        // Drop level by level so the test does not rely on a deep recursive drop.
        while let Some(JsonValue::Array(mut items)) = value.take() {
            value = items.pop();
        }
    }

    #[test]
    fn base60_floats() {
        assert!(is_base60_float("12:30"));
        assert!(is_base60_float("-1:20"));
        assert!(is_base60_float("1:2:3.5"));
        assert!(is_base60_float("190:20:30"));
        assert!(is_base60_float("1_0:59"));
        assert!(!is_base60_float("1:60"));
        assert!(!is_base60_float("12:"));
        assert!(!is_base60_float(":30"));
        assert!(!is_base60_float("1:2:3a"));
        assert!(!is_base60_float("a1:20"));
    }

    /// A key's JSON form may be 1024 characters, quotes included, and no more: at the limit with
    /// one-column characters, and on either side of the byte length below which nothing is
    /// counted (`<` and U+2028 are six characters each in Go's JSON).
    #[test]
    fn keys_longer_than_1024_json_characters_are_refused() {
        let write =
            |key: String| write_value(&JsonValue::Object(vec![(key, JsonValue::Bool(true))]));
        assert!(write("a".repeat(1022)).is_ok());
        assert!(matches!(
            write("a".repeat(1023)),
            Err(WriteError::UnreadableKey { .. })
        ));
        assert!(write("<".repeat(170)).is_ok());
        assert!(matches!(
            write("<".repeat(171)),
            Err(WriteError::UnreadableKey { .. })
        ));
        assert!(write("\u{2028}".repeat(170)).is_ok());
        assert!(matches!(
            write("\u{2028}".repeat(171)),
            Err(WriteError::UnreadableKey { .. })
        ));
    }
}
