//! Unstructured accessors, as `unstructured.Unstructured` has them: an object's fields read and
//! set by path, and the parts of its identity clusterctl's pipeline looks at.

use crate::yaml::json_value::JsonValue;

pub(super) fn get<'v>(value: &'v JsonValue, path: &[&str]) -> Option<&'v JsonValue> {
    path.iter().try_fold(value, |v, key| v.get(key))
}

pub(super) fn get_mut<'v>(value: &'v mut JsonValue, path: &[&str]) -> Option<&'v mut JsonValue> {
    path.iter().try_fold(value, |v, key| match v {
        JsonValue::Object(entries) => entries.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
        _ => None,
    })
}

pub(super) fn string_at(value: &JsonValue, path: &[&str]) -> String {
    get(value, path)
        .and_then(JsonValue::as_str)
        .unwrap_or_default()
        .to_string()
}

/// `SetNestedField`: creates missing maps on the way; gives up on a non-map.
pub(super) fn set_at(value: &mut JsonValue, path: &[&str], new: JsonValue) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut current = value;
    for key in parents {
        let JsonValue::Object(entries) = current else {
            return;
        };
        let index = match entries.iter().position(|(k, _)| k == key) {
            Some(index) => index,
            None => {
                entries.push((key.to_string(), JsonValue::Object(Vec::new())));
                entries.len() - 1
            }
        };
        current = &mut entries[index].1;
    }
    if let JsonValue::Object(entries) = current {
        match entries.iter_mut().find(|(k, _)| k == last) {
            Some((_, v)) => *v = new,
            None => entries.push((last.to_string(), new)),
        }
    }
}

pub(super) fn kind(value: &JsonValue) -> String {
    string_at(value, &["kind"])
}

pub(super) fn name(value: &JsonValue) -> String {
    string_at(value, &["metadata", "name"])
}

pub(super) fn api_version(value: &JsonValue) -> String {
    string_at(value, &["apiVersion"])
}

pub(super) fn group(value: &JsonValue) -> String {
    let version = api_version(value);
    version
        .rsplit_once('/')
        .map_or(String::new(), |(g, _)| g.to_string())
}

pub(super) fn version_part(value: &JsonValue) -> String {
    let version = api_version(value);
    version
        .rsplit_once('/')
        .map_or(version.clone(), |(_, v)| v.to_string())
}

/// `NestedNullCoercingStringMap`: `None` when a value is neither a string nor null.
pub(super) fn string_map(value: &JsonValue, path: &[&str]) -> Option<Vec<(String, String)>> {
    match get(value, path)? {
        JsonValue::Object(entries) => entries
            .iter()
            .map(|(k, v)| match v {
                JsonValue::String(s) => Some((k.clone(), s.clone())),
                JsonValue::Null => Some((k.clone(), String::new())),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

pub(super) fn set_string_map(value: &mut JsonValue, path: &[&str], map: Vec<(String, String)>) {
    let object = map
        .into_iter()
        .map(|(k, v)| (k, JsonValue::String(v)))
        .collect();
    set_at(value, path, JsonValue::Object(object));
}
