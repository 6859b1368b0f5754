//! Loading templates that are YAML only after substitution.
//!
//! Real templates inject YAML through variables: metal3 has a bare
//! `${CTLPLANE_KUBEADM_EXTRA_CONFIG}` line, Proxmox writes `sshAuthorizedKeys: [${VM_SSH_KEYS}]`.
//! Neither parses as written. To lint such a file, each top-level `${…}` is replaced by what
//! clusterctl would substitute when no value is set (its default, or nothing), the result is
//! parsed, and every span is carried back to the real file through an [`OffsetMap`].

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Lookup, Node, Span, Template, convert_legacy_vars, parse};
use crate::yaml::{self, Limits, OffsetMap, YamlFile};

/// Re-parses a template whose raw text is not YAML, with its placeholders substituted. Returns
/// the file unchanged (and `false`) when it parsed already, when substituting does not make it
/// parse, or when its variables do not parse.
pub fn reparse_with_placeholders(file: YamlFile) -> (YamlFile, bool) {
    let has_syntax_errors = file
        .errors
        .iter()
        .any(|e| e.kind == yaml::ErrorKind::Syntax);
    if !has_syntax_errors || !file.source.text().contains("${") {
        return (file, false);
    }
    let Some((rewritten, map)) = substitute_defaults(file.source.text()) else {
        return (file, false);
    };
    let reparsed = yaml::parse_rewritten(
        Arc::clone(&file.source),
        Some((&rewritten, &map)),
        Limits::default(),
    );
    let remaining = reparsed
        .errors
        .iter()
        .filter(|e| e.kind == yaml::ErrorKind::Syntax)
        .count();
    if remaining == 0 {
        (reparsed, true)
    } else {
        (file, false)
    }
}

/// The text with every top-level expression replaced by its value when no variable is set, and
/// the map from the new text back to the original.
pub fn substitute_defaults(text: &str) -> Option<(String, OffsetMap)> {
    let unset: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let substituted = substitute_mapped(text, &unset)?;
    Some((substituted.text, substituted.map))
}

/// A text substituted with every position kept: what [`substitute_mapped`] gives.
#[derive(Debug, Clone)]
pub struct Substituted {
    /// The substituted text.
    pub text: String,
    /// From the substituted text back to the original.
    pub map: OffsetMap,
    /// Each top-level expression, in order: where it was and where its value is.
    pub values: Vec<Replaced>,
}

/// One top-level expression and its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replaced {
    /// The expression in the original text.
    pub expression: Span,
    /// Its value in the substituted text.
    pub value: Span,
}

/// clusterctl's substitution of `text` (legacy pre-pass, then drone's evaluation with `lookup`,
/// unset variables reading as empty; no missing check) with a map back to the original and the
/// place of every expression's value. `None` when the text does not parse, an expression cannot
/// be evaluated, or the result is not UTF-8.
pub fn substitute_mapped(text: &str, lookup: &dyn Lookup) -> Option<Substituted> {
    let prepass = convert_legacy_vars(text.as_bytes());
    let template = parse(&prepass.text).ok()?;
    let mut out: Vec<u8> = Vec::with_capacity(text.len());
    let mut map = OffsetMap::identity();
    let mut values = Vec::new();
    for node in &template.nodes {
        let original = prepass.span_to_original(node.span());
        match node {
            Node::Text(t) if t.len() == original.end - original.start => {
                map.push_copy(out.len(), original.start, t.len());
                t.write_to(&mut out);
            }
            Node::Text(t) => {
                // `$$` escapes were removed: the text no longer lines up byte for byte.
                map.push_replacement(out.len(), original.start);
                t.write_to(&mut out);
            }
            Node::Func(_) => {
                // One node evaluates as it would within the whole text: drone concatenates.
                let value = Template {
                    nodes: vec![node.clone()],
                }
                .eval(lookup)
                .ok()?;
                let start = out.len();
                map.push_replacement(start, original.start);
                out.extend_from_slice(&value);
                values.push(Replaced {
                    expression: original,
                    value: Span {
                        start,
                        end: out.len(),
                    },
                });
                // The text after the expression continues at its end.
                map.push_copy(out.len(), original.end, 0);
            }
        }
    }
    let text = String::from_utf8(out).ok()?;
    Some(Substituted { text, map, values })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::Source;

    fn load(text: &str) -> YamlFile {
        yaml::parse_str(Arc::new(Source::new("t.yaml", text)), Limits::default())
    }

    #[test]
    fn flow_sequences_of_variables_are_read_after_substitution() {
        let text = "users:\n- name: root\n  keys: [${VM_SSH_KEYS}]\nafter: x\n";
        let (file, substituted) = reparse_with_placeholders(load(text));
        assert!(substituted);
        assert!(file.errors.is_empty(), "{:?}", file.errors);
        let root = file.documents[0].root.as_ref().unwrap();
        let after = root.get("after").unwrap();
        assert_eq!(&text[after.span().start..after.span().end], "x");
        assert_eq!(file.source.position(after.span().start).line, 4);
    }

    #[test]
    fn injected_lines_and_defaults() {
        let text = "spec:\n  cidr: ${SERVICE_CIDR:=[\"10.96.0.0/12\"]}\n${EXTRA_CONFIG}\nnext: ${ NAME }-suffix\n";
        let (file, substituted) = reparse_with_placeholders(load(text));
        assert!(substituted, "{:?}", file.errors);
        let root = file.documents[0].root.as_ref().unwrap();
        let cidr = root.path(&["spec", "cidr"]).unwrap();
        assert_eq!(cidr.items().len(), 1);
        assert_eq!(file.source.position(cidr.span().start).line, 2);
        let next = root.get("next").unwrap();
        // The scalar is the text after the (empty) placeholder.
        assert_eq!(&text[next.span().start..next.span().start + 7], "-suffix");
    }

    #[test]
    fn each_value_is_placed_and_mapped_back() {
        let values: BTreeMap<String, Vec<u8>> =
            BTreeMap::from([("NAME".to_string(), b"capx".to_vec())]);
        let text = "a: ${ NAME }-x\nb: $$${B:=yes}\n";
        let done = substitute_mapped(text, &values).unwrap();
        assert_eq!(done.text, "a: capx-x\nb: $yes\n");
        let spans: Vec<(&str, &str)> = done
            .values
            .iter()
            .map(|r| {
                (
                    &text[r.expression.start..r.expression.end],
                    &done.text[r.value.start..r.value.end],
                )
            })
            .collect();
        assert_eq!(spans, [("${ NAME }", "capx"), ("${B:=yes}", "yes")]);
        assert_eq!(done.map.to_original(done.values[1].value.start), 20);
        assert!(substitute_mapped("a: ${A-x}", &values).is_none());
    }

    #[test]
    fn valid_files_are_left_alone() {
        let (file, substituted) = reparse_with_placeholders(load("a: ${A}\n"));
        assert!(!substituted);
        assert!(file.errors.is_empty());
        let (file, substituted) = reparse_with_placeholders(load("a: [\n"));
        assert!(!substituted);
        assert_eq!(file.errors.len(), 1);
    }
}
