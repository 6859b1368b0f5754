//! One `openAPIV3Schema` against another, property by property: kubernetes-sigs/crdify's checks
//! with OLM v1's defaults (description changes are not findings, added enum values are allowed,
//! a change no check understands is an error).
//!
//! Both schemas are flattened into `path -> property schema` (`^.spec.region`, `[*]` for list
//! items, `.*` for map values); each property present in both is compared on its own keywords,
//! with its children left to their own paths, so one change is reported once, where it is.

use std::collections::BTreeMap;

use crate::rules::Rule;
use crate::rules::upgrade as rules;
use crate::yaml::Node;
use crate::yaml::json_value::JsonValue;

/// What a [`Delta`] says of a property only one side has.
pub(crate) const FIELD_ADDED: &str = "field added";
pub(crate) const FIELD_REMOVED: &str = "field removed";

/// One difference between two property schemas.
#[derive(Debug)]
pub(crate) struct Delta<'a> {
    pub path: String,
    /// The rule it breaks; `None` for a compatible change.
    pub rule: Option<&'static Rule>,
    /// `maxLength: 10 -> 5`, `field added`.
    pub what: String,
    /// Where to point in the new schema: the property, else its nearest ancestor.
    pub at: &'a Node,
}

/// A flattened schema: each property's path, node and parent path.
struct Flat<'a> {
    props: BTreeMap<String, (&'a Node, Option<String>)>,
}

impl<'a> Flat<'a> {
    fn new(schema: &'a Node) -> Self {
        let mut props = BTreeMap::new();
        walk(schema, "^".to_string(), None, &mut props);
        Flat { props }
    }

    /// The node at `path`, else at its nearest ancestor present here.
    fn nearest(&self, mut path: Option<String>, other: &Flat<'_>) -> Option<&'a Node> {
        while let Some(p) = path {
            if let Some((node, _)) = self.props.get(&p) {
                return Some(node);
            }
            path = other.props.get(&p).and_then(|(_, parent)| parent.clone());
        }
        None
    }
}

fn walk<'a>(
    node: &'a Node,
    path: String,
    parent: Option<String>,
    out: &mut BTreeMap<String, (&'a Node, Option<String>)>,
) {
    if node.as_mapping().is_none() {
        return;
    }
    if let Some(properties) = node.get("properties").and_then(Node::as_mapping) {
        for (name, _, child) in properties.iter() {
            walk(child, format!("{path}.{name}"), Some(path.clone()), out);
        }
    }
    if let Some(items) = node.get("items").filter(|i| i.as_mapping().is_some()) {
        walk(items, format!("{path}[*]"), Some(path.clone()), out);
    }
    if let Some(values) = node
        .get("additionalProperties")
        .filter(|i| i.as_mapping().is_some())
    {
        walk(values, format!("{path}.*"), Some(path.clone()), out);
    }
    out.insert(path, (node, parent));
}

/// Keywords whose children are compared at their own paths, or never (descriptions).
fn is_structural(key: &str, value: &Node) -> bool {
    match key {
        "properties" | "description" => true,
        "items" | "additionalProperties" => value.as_mapping().is_some(),
        _ => false,
    }
}

/// Every difference from `old` to `new`, in path order; incompatible ones carry their rule.
pub(crate) fn compare<'a>(old: &Node, new: &'a Node) -> Vec<Delta<'a>> {
    let old_flat = Flat::new(old);
    let new_flat = Flat::new(new);
    let mut out = Vec::new();
    for (path, (old_node, old_parent)) in &old_flat.props {
        match new_flat.props.get(path) {
            Some((new_node, _)) => keywords(path, old_node, new_node, &mut out),
            None => {
                // Only the topmost removed property: its children went with it.
                if old_parent
                    .as_ref()
                    .is_some_and(|p| !new_flat.props.contains_key(p))
                {
                    continue;
                }
                let at = new_flat
                    .nearest(old_parent.clone(), &old_flat)
                    .unwrap_or(new);
                out.push(Delta {
                    path: path.clone(),
                    rule: Some(&rules::FIELD_REMOVED),
                    what: FIELD_REMOVED.into(),
                    at,
                });
            }
        }
    }
    for (path, (node, parent)) in &new_flat.props {
        let parent_is_new = parent
            .as_ref()
            .is_some_and(|p| !old_flat.props.contains_key(p));
        if !old_flat.props.contains_key(path) && !parent_is_new {
            out.push(Delta {
                path: path.clone(),
                rule: None,
                what: FIELD_ADDED.into(),
                at: node,
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// True when nothing in `deltas` breaks existing objects.
pub(crate) fn compatible(deltas: &[Delta<'_>]) -> bool {
    deltas.iter().all(|d| d.rule.is_none())
}

fn json(node: Option<&Node>) -> Option<JsonValue> {
    node.map(|n| JsonValue::from_node(n).unwrap_or(JsonValue::Null))
}

/// Compact JSON text of a value, for messages.
pub(crate) fn text(value: &JsonValue) -> String {
    match value {
        JsonValue::Null => "null".into(),
        JsonValue::Bool(b) => b.to_string(),
        JsonValue::Number(n) => {
            if n.fract() == 0.0 && n.abs() < 1e15 {
                format!("{}", *n as i64)
            } else {
                n.to_string()
            }
        }
        JsonValue::String(s) => serde_json::to_string(s).unwrap_or_default(),
        JsonValue::Array(items) => {
            let inner: Vec<String> = items.iter().map(text).collect();
            format!("[{}]", inner.join(","))
        }
        JsonValue::Object(entries) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| {
                    format!(
                        "{}:{}",
                        serde_json::to_string(k).unwrap_or_default(),
                        text(v)
                    )
                })
                .collect();
            format!("{{{}}}", inner.join(","))
        }
    }
}

fn shown(value: &Option<JsonValue>) -> String {
    value.as_ref().map(text).unwrap_or_else(|| "(none)".into())
}

fn number(value: &Option<JsonValue>) -> Option<f64> {
    match value {
        Some(JsonValue::Number(n)) => Some(*n),
        _ => None,
    }
}

fn strings(value: &Option<JsonValue>) -> Vec<String> {
    match value {
        Some(JsonValue::Array(items)) => items.iter().map(text).collect(),
        _ => Vec::new(),
    }
}

const MAXIMUMS: [&str; 4] = ["maximum", "maxItems", "maxLength", "maxProperties"];
const MINIMUMS: [&str; 4] = ["minimum", "minItems", "minLength", "minProperties"];

/// The property's own keywords, old against new.
fn keywords<'a>(path: &str, old: &Node, new: &'a Node, out: &mut Vec<Delta<'a>>) {
    let mut keys: Vec<&str> = Vec::new();
    for node in [old, new] {
        for (key, _, value) in node.as_mapping().into_iter().flat_map(|m| m.iter()) {
            if !is_structural(key, value) && !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    for key in keys {
        let (o, n) = (json(old.get(key)), json(new.get(key)));
        if o == n {
            continue;
        }
        let at = new.path_entry(&[key]).map(|(k, _)| k).unwrap_or(new);
        let mut push = |rule: Option<&'static Rule>, what: String| {
            out.push(Delta {
                path: path.to_string(),
                rule,
                what,
                at,
            })
        };
        let change = format!("{key}: {} -> {}", shown(&o), shown(&n));
        match key {
            "type" => push(Some(&rules::TYPE_CHANGED), change),
            "default" => push(Some(&rules::DEFAULT_CHANGED), change),
            "oneOf" => push(Some(&rules::ONE_OF_CHANGED), "oneOf changed".into()),
            "nullable" => {
                let on = |v: &Option<JsonValue>| matches!(v, Some(JsonValue::Bool(true)));
                let rule = (on(&o) != on(&n)).then_some(&rules::NULLABLE_CHANGED);
                push(rule, change);
            }
            "pattern" => {
                let rule = n.is_some().then_some(&rules::PATTERN_CHANGED);
                push(rule, change);
            }
            "enum" => {
                let (before, after) = (strings(&o), strings(&n));
                let removed: Vec<&String> = before.iter().filter(|v| !after.contains(v)).collect();
                let added: Vec<&String> = after.iter().filter(|v| !before.contains(v)).collect();
                if before.is_empty() && !after.is_empty() {
                    push(
                        Some(&rules::ENUM_NARROWED),
                        format!("enum added: {}", after.join(", ")),
                    );
                } else if !removed.is_empty() {
                    let removed: Vec<&str> = removed.iter().map(|s| s.as_str()).collect();
                    push(
                        Some(&rules::ENUM_NARROWED),
                        format!("enum values removed: {}", removed.join(", ")),
                    );
                } else {
                    let added: Vec<&str> = added.iter().map(|s| s.as_str()).collect();
                    push(None, format!("enum values added: {}", added.join(", ")));
                }
            }
            "required" => {
                let (before, after) = (strings(&o), strings(&n));
                let added: Vec<&str> = after
                    .iter()
                    .filter(|v| !before.contains(v))
                    .map(String::as_str)
                    .collect();
                if added.is_empty() {
                    push(None, change);
                } else {
                    push(
                        Some(&rules::REQUIRED_ADDED),
                        format!("newly required: {}", added.join(", ")),
                    );
                }
            }
            _ if MAXIMUMS.contains(&key) => {
                let tighter = match (number(&o), number(&n)) {
                    (None, Some(_)) => true,
                    (Some(before), Some(after)) => after < before,
                    _ => false,
                };
                push(tighter.then_some(&rules::MAXIMUM_LOWERED), change);
            }
            _ if MINIMUMS.contains(&key) => {
                let tighter = match (number(&o), number(&n)) {
                    (None, Some(_)) => true,
                    (Some(before), Some(after)) => after > before,
                    _ => false,
                };
                push(tighter.then_some(&rules::MINIMUM_RAISED), change);
            }
            _ => push(Some(&rules::SCHEMA_CHANGED), change),
        }
    }
}

#[cfg(test)]
pub(in crate::diff) mod tests {
    use super::*;

    /// The first document of `text`, for tests of the diff's modules.
    pub(in crate::diff) fn node(text: &str) -> Node {
        let source = std::sync::Arc::new(crate::yaml::Source::new("t.yaml", text));
        let file = crate::yaml::parse_str(source, crate::yaml::Limits::default());
        file.roots().next().cloned().expect("a document")
    }

    fn deltas(old: &str, new: &str) -> Vec<(String, Option<&'static str>, String)> {
        let old = node(old);
        let new = node(new);
        compare(&old, &new)
            .into_iter()
            .map(|d| (d.path, d.rule.map(|r| r.id), d.what))
            .collect()
    }

    fn rules_of(old: &str, new: &str) -> Vec<&'static str> {
        deltas(old, new).into_iter().filter_map(|d| d.1).collect()
    }

    /// A property `spec.field` with the given keywords (crdify's test data has this shape).
    fn field(keywords: &str) -> String {
        let mut text = "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      field:\n        type: string\n".to_string();
        for line in keywords.lines() {
            text.push_str("        ");
            text.push_str(line);
            text.push('\n');
        }
        text
    }

    #[test]
    fn description_changes_are_not_findings() {
        let d = deltas(&field("description: old"), &field("description: new words"));
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn enum_values_removed_or_a_new_enum_fire_and_added_values_do_not() {
        let base = field("enum: [a, b]");
        assert_eq!(
            rules_of(&base, &field("enum: [a]")),
            ["upgrade/crd-enum-narrowed"]
        );
        assert_eq!(
            rules_of(&field(""), &field("enum: [a]")),
            ["upgrade/crd-enum-narrowed"]
        );
        let added = deltas(&base, &field("enum: [a, b, c]"));
        assert_eq!(added.len(), 1);
        assert_eq!(added[0].1, None);
        assert_eq!(added[0].2, "enum values added: \"c\"");
    }

    #[test]
    fn defaults_added_removed_or_changed_fire() {
        let rule = ["upgrade/crd-default-changed"];
        assert_eq!(rules_of(&field("default: a"), &field("default: b")), rule);
        assert_eq!(rules_of(&field(""), &field("default: b")), rule);
        assert_eq!(rules_of(&field("default: a"), &field("")), rule);
        assert!(rules_of(&field("default: a"), &field("default: \"a\"")).is_empty());
    }

    #[test]
    fn maximums_lowered_or_added_fire_raised_or_removed_do_not() {
        for key in MAXIMUMS {
            let rule = ["upgrade/crd-maximum-lowered"];
            let at = |v: u32| field(&format!("{key}: {v}"));
            assert_eq!(rules_of(&at(10), &at(5)), rule, "{key}");
            assert_eq!(rules_of(&field(""), &at(5)), rule, "{key}");
            assert!(rules_of(&at(10), &at(20)).is_empty(), "{key}");
            assert!(rules_of(&at(10), &field("")).is_empty(), "{key}");
        }
    }

    #[test]
    fn minimums_raised_or_added_fire_lowered_or_removed_do_not() {
        for key in MINIMUMS {
            let rule = ["upgrade/crd-minimum-raised"];
            let at = |v: u32| field(&format!("{key}: {v}"));
            assert_eq!(rules_of(&at(1), &at(2)), rule, "{key}");
            assert_eq!(rules_of(&field(""), &at(1)), rule, "{key}");
            assert!(rules_of(&at(2), &at(1)).is_empty(), "{key}");
            assert!(rules_of(&at(2), &field("")).is_empty(), "{key}");
        }
    }

    #[test]
    fn newly_required_fields_fire_and_dropped_requirements_do_not() {
        let old = "type: object\nproperties:\n  spec:\n    type: object\n    required: [a]\n    properties:\n      a: {type: string}\n      b: {type: string}\n";
        let new = old.replace("required: [a]", "required: [a, b]");
        assert_eq!(rules_of(old, &new), ["upgrade/crd-required-added"]);
        assert!(rules_of(&new, old).is_empty());
    }

    #[test]
    fn type_changes_fire() {
        assert_eq!(
            rules_of(
                &field(""),
                &field("").replace("type: string", "type: integer")
            ),
            ["upgrade/crd-type-changed"]
        );
    }

    #[test]
    fn patterns_added_or_changed_fire_and_removed_do_not() {
        let rule = ["upgrade/crd-pattern-changed"];
        assert_eq!(rules_of(&field(""), &field("pattern: ^a$")), rule);
        assert_eq!(
            rules_of(&field("pattern: ^a$"), &field("pattern: ^b$")),
            rule
        );
        assert!(rules_of(&field("pattern: ^a$"), &field("")).is_empty());
    }

    #[test]
    fn nullable_changes_fire_both_ways_but_an_explicit_false_does_not() {
        let rule = ["upgrade/crd-nullable-changed"];
        assert_eq!(rules_of(&field(""), &field("nullable: true")), rule);
        assert_eq!(rules_of(&field("nullable: true"), &field("")), rule);
        assert!(rules_of(&field(""), &field("nullable: false")).is_empty());
    }

    #[test]
    fn one_of_changes_fire() {
        let old = field("oneOf:\n- required: [a]\n- required: [b]");
        let new = field("oneOf:\n- required: [a]");
        assert_eq!(rules_of(&old, &new), ["upgrade/crd-one-of-changed"]);
        assert!(rules_of(&old, &old).is_empty());
    }

    #[test]
    fn removed_fields_fire_once_at_the_top_and_added_fields_do_not() {
        let old = "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      gone:\n        type: object\n        properties:\n          inner: {type: string}\n";
        let new = "type: object\nproperties:\n  spec:\n    type: object\n";
        let d = deltas(old, new);
        assert_eq!(
            d,
            [(
                "^.spec.gone".to_string(),
                Some("upgrade/crd-field-removed"),
                "field removed".to_string()
            )]
        );
        let added = deltas(new, old);
        assert_eq!(added.len(), 1, "{added:?}");
        assert_eq!(added[0].1, None);
    }

    #[test]
    fn changes_no_check_understands_are_errors() {
        let old = field("x-kubernetes-validations:\n- rule: self.size() > 0");
        let new = field("x-kubernetes-validations:\n- rule: self.size() > 1");
        assert_eq!(rules_of(&old, &new), ["upgrade/crd-schema-changed"]);
        assert_eq!(
            rules_of(&field(""), &field("format: date-time")),
            ["upgrade/crd-schema-changed"]
        );
    }

    #[test]
    fn list_items_and_map_values_have_their_own_paths() {
        let old = "type: object\nproperties:\n  list:\n    type: array\n    items:\n      type: string\n      maxLength: 10\n  map:\n    type: object\n    additionalProperties:\n      type: string\n";
        let new = old.replace("maxLength: 10", "maxLength: 5").replace(
            "additionalProperties:\n      type: string",
            "additionalProperties:\n      type: integer",
        );
        let d = deltas(old, &new);
        assert_eq!(d[0].0, "^.list[*]");
        assert_eq!(d[1].0, "^.map.*");
    }

    /// crdify's `test/validchanges`: new optional fields, one with an enum, one an object with
    /// required fields of its own; none breaks existing objects.
    #[test]
    fn crdify_valid_changes_are_not_findings() {
        let old = "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      size:\n        type: integer\n";
        let new = format!(
            "{old}      colour:\n        type: string\n      zone:\n        type: string\n        enum: [North, South]\n      settings:\n        type: object\n        required: [key, source]\n        properties:\n          key: {{type: string}}\n          source: {{type: string}}\n"
        );
        let d = deltas(old, &new);
        assert_eq!(d.len(), 3, "{d:?}");
        assert!(
            d.iter()
                .all(|(_, rule, what)| rule.is_none() && what == "field added")
        );
    }

    /// crdify's `test/multipleincompatible` (its scope change is a CRD-level check): a raised
    /// maximum and an added enum value pass, a raised minimum and a new required field fail.
    #[test]
    fn crdify_multiple_incompatible_changes_are_each_reported() {
        let old = "type: object\nproperties:\n  spec:\n    type: object\n    required: [count]\n    properties:\n      count:\n        type: integer\n        maximum: 5\n        minimum: 2\n      level:\n        type: string\n        enum: [Low, High]\n";
        let new = old
            .replace("maximum: 5", "maximum: 50")
            .replace("minimum: 2", "minimum: 4")
            .replace("enum: [Low, High]", "enum: [Low, High, Max]")
            .replace("required: [count]", "required: [count, level]");
        assert_eq!(
            deltas(old, &new)
                .into_iter()
                .map(|(path, rule, _)| (path, rule))
                .collect::<Vec<_>>(),
            [
                ("^.spec".to_string(), Some("upgrade/crd-required-added")),
                ("^.spec.count".to_string(), None),
                (
                    "^.spec.count".to_string(),
                    Some("upgrade/crd-minimum-raised")
                ),
                ("^.spec.level".to_string(), None),
            ]
        );
    }
}
