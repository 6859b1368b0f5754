//! Tests that hold both writers to the same promises: every tricky value keeps its meaning, every
//! corpus document reads back as it was, output is deterministic and stable.

use std::path::PathBuf;
use std::sync::Arc;

use super::json_value::JsonValue;
use super::node::{Node, ScalarStyle, Value};
use super::resolve::Resolved;
use super::{Limits, Source, Span, parse_file, parse_str, write_clusterctl, write_layout};

/// Strings YAML 1.1 readers misread when they are written plain, or that need care when quoted
/// (the list capkg's YAML crate evaluation used, `docs/yaml-stack.md` §5).
const TRICKY_VALUES: &[&str] = &[
    "y",
    "Y",
    "yes",
    "Yes",
    "YES",
    "n",
    "N",
    "no",
    "No",
    "NO",
    "on",
    "On",
    "ON",
    "off",
    "Off",
    "OFF",
    "true",
    "True",
    "TRUE",
    "false",
    "False",
    "FALSE",
    "~",
    "null",
    "Null",
    "NULL",
    "",
    "0755",
    "0o755",
    "0x1F",
    "0b101",
    "-0b101",
    "08",
    "1e3",
    "1_000",
    "+1",
    "-1",
    ".inf",
    "-.inf",
    ".NaN",
    "12:30",
    "190:20:30",
    "2001-12-14",
    "2001-12-14t21:59:43.10-05:00",
    "2001-12-14 21:59:43.10",
    "<<",
    "=",
    "-",
    "- a",
    "? a",
    ": a",
    "a: b",
    "a #b",
    "#a",
    "!a",
    "&a",
    "*a",
    "|a",
    ">a",
    "'a",
    "\"a",
    "%a",
    "@a",
    "`a",
    "[a",
    "{a",
    "---",
    "...",
    " a",
    "a ",
    " a ",
    "a\tb",
    "a\nb",
    "a\n",
    "\na",
    "a\n\n",
    " a\nb",
    "a \nb",
    "é",
    "😀",
    "\u{feff}bom",
    "1.0",
    "-0",
    "v1.2.3",
    "it's",
    "this is very long line with spaces and it must be longer than 80 so we will repeat that it must be longer that 80",
];

const TRICKY_KEYS: &[&str] = &[
    "y", "no", "on", "null", "~", "", "1", "0755", "1e3", "a: b", "#k", " k", "<<",
];

fn load(text: &str) -> Vec<Node> {
    let file = parse_str(Arc::new(Source::new("out.yaml", text)), Limits::default());
    assert!(file.errors.is_empty(), "{:?}\n{text}", file.errors);
    file.roots().cloned().collect()
}

fn load_one(text: &str) -> Node {
    let mut roots = load(text);
    assert_eq!(roots.len(), 1, "{text}");
    roots.remove(0)
}

fn scalar(text: &str, style: ScalarStyle) -> Node {
    Node::scalar(text, style, Span::default())
}

/// What a YAML 1.1 reader makes of a scalar, comparable across writes.
#[derive(Debug, PartialEq)]
enum Meaning<'n> {
    Null,
    Bool(bool),
    Int(i128),
    /// Bit pattern, so that NaN equals NaN.
    Float(u64),
    Str(&'n str),
    Timestamp(&'n str),
    Merge,
}

fn meaning(node: &Node) -> Option<Meaning<'_>> {
    let text = node.scalar_text()?;
    Some(match node.resolve()? {
        Resolved::Null => Meaning::Null,
        Resolved::Bool(b) => Meaning::Bool(b),
        Resolved::Int(i) => Meaning::Int(i),
        Resolved::Float(f) if f.is_nan() => Meaning::Float(f64::NAN.to_bits()),
        Resolved::Float(f) => Meaning::Float(f.to_bits()),
        Resolved::Str => Meaning::Str(text),
        Resolved::Timestamp => Meaning::Timestamp(text),
        Resolved::Merge => Meaning::Merge,
    })
}

/// Same structure, same key order, same tags, same YAML 1.1 meaning for every scalar.
fn assert_same_meaning(expected: &Node, actual: &Node, context: &str) {
    let mut stack = vec![(expected, actual, String::from("$"))];
    while let Some((e, a, path)) = stack.pop() {
        assert_eq!(e.tag(), a.tag(), "{context}: tag at {path}");
        match (e.value(), a.value()) {
            (Value::Scalar { .. }, Value::Scalar { .. }) => {
                assert_eq!(meaning(e), meaning(a), "{context}: value at {path}");
            }
            (Value::Sequence(es), Value::Sequence(as_)) => {
                assert_eq!(es.len(), as_.len(), "{context}: length at {path}");
                for (i, (e, a)) in es.iter().zip(as_).enumerate() {
                    stack.push((e, a, format!("{path}[{i}]")));
                }
            }
            (Value::Mapping(em), Value::Mapping(am)) => {
                assert_eq!(em.len(), am.len(), "{context}: size at {path}");
                for (i, ((ek, ev), (ak, av))) in em.entries.iter().zip(&am.entries).enumerate() {
                    stack.push((ek, ak, format!("{path}.<key {i}>")));
                    stack.push((
                        ev,
                        av,
                        format!("{path}.{}", ek.scalar_text().unwrap_or("?")),
                    ));
                }
            }
            _ => panic!("{context}: kind differs at {path}: {e:?} vs {a:?}"),
        }
    }
}

fn tricky_document(style_of: impl Fn(&str) -> Node) -> Node {
    let mut entries: Vec<(Node, Node)> = TRICKY_VALUES
        .iter()
        .enumerate()
        .map(|(i, v)| (Node::plain(format!("v{i:03}")), style_of(v)))
        .collect();
    entries.extend(
        TRICKY_KEYS
            .iter()
            .enumerate()
            .map(|(i, k)| (style_of(k), Node::plain(format!("k{i:03}")))),
    );
    Node::mapping(entries, Span::default())
}

#[test]
fn tricky_values_keep_their_meaning_through_the_layout_writer() {
    // Strings capkg builds, then every source style for the same texts: a plain scalar means
    // what YAML 1.1 makes of its text, and must keep meaning exactly that.
    let documents = [
        ("Node::string", tricky_document(|t| Node::string(t))),
        ("plain", tricky_document(|t| scalar(t, ScalarStyle::Plain))),
        (
            "single",
            tricky_document(|t| scalar(t, ScalarStyle::SingleQuoted)),
        ),
        (
            "double",
            tricky_document(|t| scalar(t, ScalarStyle::DoubleQuoted)),
        ),
        (
            "literal",
            tricky_document(|t| scalar(t, ScalarStyle::Literal)),
        ),
    ];
    for (name, document) in documents {
        if name == "plain" {
            // Plain `~`, `null` and `` are all null: keys that collide, which the loader reports.
            // A plain `<<` key is a merge key (of a scalar, which Kubernetes refuses).
            let Value::Mapping(mapping) = document.into_value() else {
                unreachable!("tricky_document builds a mapping")
            };
            let mut entries = mapping.entries.into_vec();
            entries.retain(|(k, _)| !crate::yaml::node::is_merge_key(k));
            let document = Node::mapping(entries, Span::default());
            let text = write_layout::write_document(&document);
            let file = parse_str(
                Arc::new(Source::new("out", text.clone())),
                Limits::default(),
            );
            let root = file.documents[0].root.as_ref().expect("reloads");
            assert_same_meaning(&document, root, name);
            continue;
        }
        let text = write_layout::write_document(&document);
        assert_same_meaning(&document, &load_one(&text), name);
        assert_eq!(
            write_layout::write_document(&load_one(&text)),
            text,
            "{name}: stable"
        );
    }
}

#[test]
fn tricky_values_keep_their_meaning_through_the_clusterctl_writer() {
    // `<<` as a key is written plain, as go-yaml v2 writes it, and would read back as a merge
    // key: go-yaml's own round trip breaks there too, so it is checked on its own below.
    let document = tricky_document(|t| Node::string(t));
    let Value::Mapping(mapping) = document.into_value() else {
        unreachable!("tricky_document builds a mapping")
    };
    let mut entries = mapping.entries.into_vec();
    entries.retain(|(k, _)| k.scalar_text() != Some("<<"));
    let document = Node::mapping(entries, Span::default());
    let expected = JsonValue::from_node(&document).expect("a JSON value");
    let text = write_clusterctl::write_document(&document).expect("writes");
    let reloaded = JsonValue::from_node(&load_one(&text)).expect("a JSON value");
    assert_eq!(reloaded, expected);
    // Every string is still a string.
    let JsonValue::Object(entries) = &reloaded else {
        panic!("not an object")
    };
    for (i, value) in TRICKY_VALUES.iter().enumerate() {
        let key = format!("v{i:03}");
        let found = entries.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
        assert_eq!(found, Some(&JsonValue::String(value.to_string())), "{key}");
    }
    let merge_key = Node::mapping(
        vec![(Node::string("<<"), Node::plain("x"))],
        Span::default(),
    );
    assert_eq!(
        write_clusterctl::write_document(&merge_key).as_deref(),
        Ok("<<: x\n")
    );
}

/// Where two JSON values first differ, as a path.
fn first_difference(expected: &JsonValue, actual: &JsonValue) -> Option<String> {
    let mut stack = vec![(expected, actual, String::from("$"))];
    while let Some((e, a, path)) = stack.pop() {
        match (e, a) {
            (JsonValue::Array(es), JsonValue::Array(as_)) if es.len() == as_.len() => {
                for (i, (e, a)) in es.iter().zip(as_).enumerate() {
                    stack.push((e, a, format!("{path}[{i}]")));
                }
            }
            (JsonValue::Object(es), JsonValue::Object(as_)) if es.len() == as_.len() => {
                for (key, e) in es {
                    let Some(a) = as_.iter().find(|(k, _)| k == key).map(|(_, v)| v) else {
                        return Some(format!("{path}.{key} (missing)"));
                    };
                    stack.push((e, a, format!("{path}.{key}")));
                }
            }
            (e, a) if e == a => {}
            (e, a) => return Some(format!("{path}: {e:?} vs {a:?}")),
        }
    }
    None
}

fn corpus_files() -> Vec<PathBuf> {
    let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/corpus"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(Result::ok)
        .filter(|entry| entry.path().is_dir())
        .flat_map(|dir| std::fs::read_dir(dir.path()).into_iter().flatten())
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(
        files.len() > 50,
        "corpus not found under {}",
        root.display()
    );
    files
}

fn load_corpus_file(path: &PathBuf) -> Vec<Node> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = parse_file(path.display().to_string(), bytes, Limits::default());
    // Documents that are YAML only after substitution fail to load; they are skipped.
    file.roots().cloned().collect()
}

#[test]
fn every_corpus_document_reads_back_from_the_layout_writer() {
    let mut documents = 0;
    for path in corpus_files() {
        let roots = load_corpus_file(&path);
        let name = path.display().to_string();
        for (i, root) in roots.iter().enumerate() {
            let text = write_layout::write_document(root);
            assert_same_meaning(root, &load_one(&text), &format!("{name} #{i}"));
            documents += 1;
        }
        let text = write_layout::write_documents(&roots);
        let again = write_layout::write_documents(&load(&text));
        assert!(again == text, "{name}: second write differs");
    }
    assert!(documents > 400, "{documents} documents");
}

#[test]
fn every_corpus_document_reads_back_from_the_clusterctl_writer() {
    let mut documents = 0;
    for path in corpus_files() {
        let name = path.display().to_string();
        for (i, root) in load_corpus_file(&path).iter().enumerate() {
            let Ok(expected) = JsonValue::from_node(root) else {
                continue;
            };
            let text = write_clusterctl::write_value(&expected)
                .unwrap_or_else(|e| panic!("{name} #{i}: {e}"));
            let reloaded = JsonValue::from_node(&load_one(&text))
                .unwrap_or_else(|e| panic!("{name} #{i}: {e}"));
            if let Some(path) = first_difference(&expected, &reloaded) {
                panic!("{name} #{i}: value differs at {path}");
            }
            documents += 1;
        }
    }
    assert!(documents > 400, "{documents} documents");
}

#[test]
fn both_writers_are_deterministic_on_a_components_file() {
    let path = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/corpus/core-cluster-api/core-components.yaml"
    ));
    let roots = load_corpus_file(&path);
    assert!(roots.len() > 20);
    let layout = write_layout::write_documents(&roots);
    assert_eq!(write_layout::write_documents(&roots), layout);
    let clusterctl = write_clusterctl::write_documents(&roots).expect("writes");
    assert_eq!(
        write_clusterctl::write_documents(&roots).as_deref(),
        Ok(&*clusterctl)
    );
    // And the layout output is itself a stable fixed point.
    assert_eq!(write_layout::write_documents(&load(&layout)), layout);
    assert!(clusterctl.starts_with("apiVersion: "));
    assert!(!clusterctl.ends_with('\n'));
}

/// The first place two trees differ in anything a `Node` holds (spans included), described with
/// the text around both spans.
fn first_node_difference(traced: &Node, parsed: &Node, text: &str) -> Option<String> {
    let around = |offset: usize| {
        let from = offset.saturating_sub(20);
        let to = (offset + 20).min(text.len());
        format!(
            "{:?}^{:?}",
            text.get(from..offset).unwrap_or("?"),
            text.get(offset..to).unwrap_or("?")
        )
    };
    let show = |span: Span| {
        format!(
            "{span:?} start {} end {}",
            around(span.start),
            around(span.end)
        )
    };
    let mut stack = vec![(traced, parsed, String::from("$"))];
    while let Some((t, p, path)) = stack.pop() {
        if t.span() != p.span() || t.tag() != p.tag() {
            return Some(format!(
                "{path}: span/tag {:?} vs {:?}\ntraced: {}\nparsed: {}",
                t.tag(),
                p.tag(),
                show(t.span()),
                show(p.span())
            ));
        }
        match (t.value(), p.value()) {
            (Value::Scalar { .. }, Value::Scalar { .. })
                if t.value() != p.value() || t.scalar_style() != p.scalar_style() =>
            {
                return Some(format!(
                    "{path}: scalar {:?} {:?} vs {:?} {:?} at {}",
                    t.value(),
                    t.scalar_style(),
                    p.value(),
                    p.scalar_style(),
                    show(p.span())
                ));
            }
            (Value::Scalar { .. }, Value::Scalar { .. }) => {}
            (Value::Sequence(ts), Value::Sequence(ps)) if ts.len() == ps.len() => {
                for (i, (t, p)) in ts.iter().zip(ps).enumerate() {
                    stack.push((t, p, format!("{path}[{i}]")));
                }
            }
            (Value::Mapping(tm), Value::Mapping(pm)) if tm.len() == pm.len() => {
                for (i, ((tk, tv), (pk, pv))) in tm.entries.iter().zip(&pm.entries).enumerate() {
                    stack.push((
                        tv,
                        pv,
                        format!("{path}.{}", tk.scalar_text().unwrap_or("?")),
                    ));
                    stack.push((tk, pk, format!("{path}.<key {i}>")));
                }
            }
            _ => {
                return Some(format!(
                    "{path}: kind or size differs at {}",
                    show(p.span())
                ));
            }
        }
    }
    None
}

/// Writes `nodes` with a read-back and, when the writer gives one, holds it against a fresh parse
/// of the text: the documents lint would see are the documents a parser loads. Returns whether
/// there was a read-back.
fn assert_read_back_is_a_parse(nodes: Vec<Node>, name: &str) -> bool {
    let expected_text = write_layout::write_documents(&nodes);
    let (text, documents) = write_layout::write_documents_read_back(nodes);
    assert!(
        text == expected_text,
        "{name}: the read-back writes other bytes"
    );
    let Some(documents) = documents else {
        return false;
    };
    let parsed = parse_str(Arc::new(Source::new(name, text.clone())), Limits::default());
    assert!(
        parsed.errors.is_empty(),
        "{name}: read back, yet a parse fails: {:?}",
        parsed.errors
    );
    assert_eq!(documents.len(), parsed.documents.len(), "{name}: documents");
    for (traced, read) in documents.iter().zip(&parsed.documents) {
        assert_eq!(traced.index, read.index, "{name}: document index");
        assert_eq!(
            traced.span, read.span,
            "{name} #{}: document span",
            read.index
        );
        match (&traced.root, &read.root) {
            (Some(t), Some(p)) => {
                if let Some(difference) = first_node_difference(t, p, &text) {
                    panic!("{name} #{}: {difference}", read.index);
                }
            }
            (t, p) => assert_eq!(t.is_some(), p.is_some(), "{name} #{}: root", read.index),
        }
    }
    true
}

#[test]
fn the_layout_read_back_is_what_a_parser_loads_from_every_corpus_file() {
    let mut read_back = 0;
    for path in corpus_files() {
        let name = path.display().to_string();
        let roots: Vec<Node> = load_corpus_file(&path)
            .into_iter()
            .filter(|root| root.as_mapping().is_some())
            .collect();
        let components = name.contains("-components");
        if assert_read_back_is_a_parse(roots, &name) {
            read_back += 1;
        } else {
            assert!(!components, "{name}: a components file gets a read-back");
        }
    }
    assert!(read_back > 50, "{read_back} files read back");
}

#[test]
fn the_layout_read_back_is_what_a_parser_loads_for_tricky_values() {
    type StyleOf = fn(&str) -> Node;
    let styles: [(&str, StyleOf); 5] = [
        ("Node::string", |t| Node::string(t)),
        ("plain", |t| scalar(t, ScalarStyle::Plain)),
        ("single", |t| scalar(t, ScalarStyle::SingleQuoted)),
        ("double", |t| scalar(t, ScalarStyle::DoubleQuoted)),
        ("literal", |t| scalar(t, ScalarStyle::Literal)),
    ];
    for (name, style_of) in styles {
        let document = tricky_document(style_of);
        let traced = assert_read_back_is_a_parse(vec![document.clone()], name);
        // Plain `~` and `` are both written `~`: a duplicate key, left to the parser.
        assert_eq!(traced, name != "plain", "{name}");
        // Every tricky value as a sequence item, in a nested sequence and under a nested key,
        // each in a document of its own.
        let mut documents = Vec::new();
        for value in TRICKY_VALUES {
            let item = || style_of(value);
            let nested = Node::sequence(vec![item(), item()], Span::default());
            let mapping = Node::mapping(
                vec![(Node::plain("k"), item()), (Node::plain("after"), item())],
                Span::default(),
            );
            documents.push(Node::mapping(
                vec![
                    (
                        Node::plain("items"),
                        Node::sequence(
                            vec![item(), nested.clone(), mapping.clone(), item()],
                            Span::default(),
                        ),
                    ),
                    (Node::plain("nested"), mapping),
                    (Node::plain("last"), item()),
                    (Node::plain("list"), nested),
                ],
                Span::default(),
            ));
        }
        assert!(assert_read_back_is_a_parse(documents, name), "{name}");
    }
}

#[test]
fn a_later_document_outside_the_conventions_leaves_the_whole_text_to_the_parser() {
    // Documents are read back as they are written; one the trace cannot follow, after others
    // it could, still means no read-back for the text, and the same bytes.
    let document = |name: &str| {
        Node::mapping(
            vec![(Node::plain("name"), Node::plain(name))],
            Span::default(),
        )
    };
    let tagged = Node::mapping(
        vec![(Node::plain("k"), {
            let mut value = Node::plain("v");
            value.set_tag(Some(crate::yaml::Tag::new("!custom")));
            value
        })],
        Span::default(),
    );
    let list = Node::sequence(vec![Node::plain("a")], Span::default());
    for late in [tagged, list] {
        let nodes = vec![document("a"), document("b"), late, document("c")];
        assert!(!assert_read_back_is_a_parse(nodes.clone(), "late.yaml"));
        let mut written = nodes.clone();
        let (text, spans) = write_layout::write_documents_as_read(&mut written, String::new());
        assert_eq!((text, spans), (write_layout::write_documents(&nodes), None));
    }
    // Without it, every document reads back, each with its index and span.
    assert!(assert_read_back_is_a_parse(
        vec![document("a"), document("b"), document("c")],
        "all.yaml"
    ));
}

mod generated {
    use super::*;
    use proptest::prelude::*;

    const STYLES: [ScalarStyle; 5] = [
        ScalarStyle::Plain,
        ScalarStyle::SingleQuoted,
        ScalarStyle::DoubleQuoted,
        ScalarStyle::Literal,
        ScalarStyle::Folded,
    ];

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            prop::sample::select(TRICKY_VALUES).prop_map(str::to_string),
            "[a-z]{1,8}",
            "[a-z :#'\"\\-\n\t|>{}\\[\\],.!&*?%@`~é😀\u{85}\u{feff}]{0,10}",
            // Long enough to fold at 80 columns, with single and double spaces and quotes.
            "([a-z']{1,9}  ?){5,25}[a-z]{0,9}",
            // Block-scalar material: leading, inner and trailing empty and indented lines.
            "(\n| |  [a-z]{1,5}|[a-z]{1,5})(\n{0,2}(  )?[a-z ]{0,6}){0,4}\n{0,3}",
        ]
    }

    fn scalar() -> impl Strategy<Value = Node> {
        (text(), prop::sample::select(&STYLES[..]))
            .prop_map(|(text, style)| Node::scalar(text, style, Span::default()))
    }

    fn key() -> impl Strategy<Value = Node> {
        prop_oneof![
            4 => "[a-z]{1,6}".prop_map(Node::plain),
            // A plain `<<` key is a merge key, which the loader resolves away: no loaded tree
            // holds one.
            2 => scalar().prop_filter("a merge key", |k| !crate::yaml::node::is_merge_key(k)),
            1 => Just(Node::plain("")),
        ]
    }

    fn tree() -> impl Strategy<Value = Node> {
        scalar().prop_recursive(4, 40, 5, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5)
                    .prop_map(|items| Node::sequence(items, Span::default())),
                prop::collection::vec((key(), inner), 0..5)
                    .prop_map(|entries| Node::mapping(entries, Span::default())),
            ]
        })
    }

    fn documents() -> impl Strategy<Value = Vec<Node>> {
        prop::collection::vec(
            prop::collection::vec((key(), tree()), 0..6)
                .prop_map(|entries| Node::mapping(entries, Span::default())),
            1..4,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn the_layout_read_back_is_what_a_parser_loads(documents in documents()) {
            assert_read_back_is_a_parse(documents, "generated.yaml");
        }
    }
}
