//! What happens to an object when clusterctl converts it to a Go type and back.
//!
//! clusterctl converts Deployments and DaemonSets (to apply image overrides), RoleBindings and
//! ClusterRoleBindings, webhook configurations and CRDs (to move them into the target namespace)
//! from unstructured to their `k8s.io/api` types and back (`scheme.Scheme.Convert`, apimachinery's
//! unstructured converter). The trip is not neutral: fields the Go type lacks are dropped, fields
//! without `omitempty` appear with zero values (`name: ""`, `sideEffects: null`, `status: {}`),
//! structs are never omitted, `resource.Quantity` values come back in canonical form (`0.5` is
//! `500m`, `1000` is `1k`), and the apiVersion and kind become the Go type's.
//!
//! The field sets are data: `typed_schema.txt`, generated from the struct tags of k8s.io/api,
//! k8s.io/apimachinery and k8s.io/apiextensions-apiserver v0.36.3 by
//! `testdata/typed/extract_schema.py`. This module interprets that table with the converter's
//! rules (`pkg/runtime/converter.go`: `isEmpty`, `omitzero`, pointer and nil-slice handling,
//! type checks) and the custom JSON forms (`Quantity`, `IntOrString`, `Time`, the JSON schema
//! unions of apiextensions).

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::yaml::json_value::JsonValue;

/// Why the conversion fails (clusterctl fails on the same objects).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TypedError {
    #[error("{path}: cannot convert {found} to {expected}")]
    Mismatch {
        path: String,
        found: &'static str,
        expected: String,
    },
    #[error(
        "{path}: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' (`{text}`)"
    )]
    Quantity { path: String, text: String },
    #[error("{path}: illegal base64 data")]
    Base64 { path: String },
    #[error("no Go type `{0}` in the schema")]
    UnknownType(String),
}

/// A field's type in the table.
#[derive(Debug, Clone, PartialEq)]
enum Ty {
    String,
    Bool,
    Int,
    Float,
    Bytes,
    Any,
    Quantity,
    IntOrString,
    Time,
    Json,
    /// `JSONSchemaPropsOrArray` of the named props type.
    PropsOrArray(String),
    PropsOrBool(String),
    PropsOrStringArray(String),
    Ptr(Box<Ty>),
    Slice(Box<Ty>),
    Map(Box<Ty>),
    Named(String),
}

#[derive(Debug, Clone)]
struct Field {
    /// Empty for an embedded (inline) struct.
    name: String,
    ty: Ty,
    omitempty: bool,
    omitzero: bool,
    /// Left out of the result when the object lacks it: `omitempty`, and the zero value of its
    /// type is empty ([`empty_when_absent`]). Most fields of a JSON schema node are, and
    /// converting each absent one to a zero value only to drop it was most of the round trip.
    skip_when_absent: bool,
}

#[derive(Debug)]
struct Struct {
    fields: Vec<Field>,
    /// Indices of the named fields, sorted by name, to find the field an entry sets.
    by_name: Vec<usize>,
}

impl Struct {
    fn new(fields: Vec<Field>) -> Self {
        let mut by_name: Vec<usize> = (0..fields.len())
            .filter(|&i| !fields[i].name.is_empty())
            .collect();
        by_name.sort_by(|&a, &b| fields[a].name.cmp(&fields[b].name));
        Self { fields, by_name }
    }

    /// The index of the field (not an embedded struct's) named `name`.
    fn field_named(&self, name: &str) -> Option<usize> {
        self.by_name
            .binary_search_by(|&i| self.fields[i].name.as_str().cmp(name))
            .ok()
            .map(|at| self.by_name[at])
    }
}

#[derive(Debug)]
enum Def {
    Struct(Struct),
    Alias(Ty),
}

/// The type table, by name. Every struct node of a CRD's schema looks its type up, so the names
/// are hashed with FNV-1a, cheaper than the standard library's SipHash (the names are the
/// schema's own, not an attacker's, so SipHash's protection buys nothing).
type Types = HashMap<String, Def, std::hash::BuildHasherDefault<Fnv>>;

#[derive(Default)]
struct Fnv(u64);

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self.0 = hash;
    }
}

struct Schema {
    types: Types,
}

fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| parse_schema(include_str!("typed_schema.txt")))
}

/// Whether [`convert`] gives an empty value (for `omitempty`) for an absent field of type `ty`.
fn empty_when_absent(ty: &Ty, types: &Types) -> bool {
    match ty {
        Ty::String
        | Ty::Bool
        | Ty::Int
        | Ty::Float
        | Ty::Bytes
        | Ty::Any
        | Ty::Ptr(_)
        | Ty::Slice(_)
        | Ty::Map(_) => true,
        Ty::Json
        | Ty::Quantity
        | Ty::IntOrString
        | Ty::Time
        | Ty::PropsOrArray(_)
        | Ty::PropsOrBool(_)
        | Ty::PropsOrStringArray(_) => false,
        Ty::Named(name) => match types.get(name) {
            Some(Def::Alias(alias)) => empty_when_absent(alias, types),
            // Structs are never empty; an unknown type is an error convert reports.
            Some(Def::Struct(_)) | None => false,
        },
    }
}

fn parse_ty(text: &str, package: &str) -> Ty {
    if let Some(rest) = text.strip_prefix('*') {
        return Ty::Ptr(Box::new(parse_ty(rest, package)));
    }
    if let Some(rest) = text.strip_prefix("[]") {
        return Ty::Slice(Box::new(parse_ty(rest, package)));
    }
    if let Some(rest) = text.strip_prefix("map[]") {
        return Ty::Map(Box::new(parse_ty(rest, package)));
    }
    let props = || format!("{package}.JSONSchemaProps");
    match text {
        "string" => Ty::String,
        "bool" => Ty::Bool,
        "int" => Ty::Int,
        "float" => Ty::Float,
        "bytes" => Ty::Bytes,
        "any" => Ty::Any,
        "quantity" => Ty::Quantity,
        "intorstring" => Ty::IntOrString,
        "time" => Ty::Time,
        "json" => Ty::Json,
        "propsorarray" => Ty::PropsOrArray(props()),
        "propsorbool" => Ty::PropsOrBool(props()),
        "propsorstringarray" => Ty::PropsOrStringArray(props()),
        named => Ty::Named(named.to_string()),
    }
}

fn parse_schema(text: &str) -> Schema {
    let mut types = Types::default();
    let mut current: Option<(String, Vec<Field>)> = None;
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(field) = line.strip_prefix("  ") {
            let mut parts = field.split(' ');
            let (Some(name), Some(ty)) = (parts.next(), parts.next()) else {
                continue;
            };
            let flags = parts.next().unwrap_or("");
            if let Some((type_name, fields)) = &mut current {
                let package = type_name.split('.').next().unwrap_or("");
                fields.push(Field {
                    name: if name == "..." {
                        String::new()
                    } else {
                        name.to_string()
                    },
                    ty: parse_ty(ty, package),
                    omitempty: flags.contains('o'),
                    omitzero: flags.contains('z'),
                    skip_when_absent: false,
                });
            }
            continue;
        }
        if let Some((name, fields)) = current.take() {
            types.insert(name, Def::Struct(Struct::new(fields)));
        }
        let mut parts = line.split(' ');
        match (parts.next(), parts.next(), parts.next()) {
            (Some("TYPE"), Some(name), _) => current = Some((name.to_string(), Vec::new())),
            (Some("ALIAS"), Some(name), Some(ty)) => {
                let package = name.split('.').next().unwrap_or("");
                types.insert(name.to_string(), Def::Alias(parse_ty(ty, package)));
            }
            _ => {}
        }
    }
    if let Some((name, fields)) = current.take() {
        types.insert(name, Def::Struct(Struct::new(fields)));
    }
    // Which absent fields are left out needs every alias known.
    let skips: Vec<(String, Vec<bool>)> = types
        .iter()
        .filter_map(|(name, def)| match def {
            Def::Struct(def) => Some((
                name.clone(),
                def.fields
                    .iter()
                    .map(|f| f.omitempty && empty_when_absent(&f.ty, &types))
                    .collect(),
            )),
            Def::Alias(_) => None,
        })
        .collect();
    for (name, skip) in skips {
        if let Some(Def::Struct(def)) = types.get_mut(&name) {
            for (field, skip) in def.fields.iter_mut().zip(skip) {
                field.skip_when_absent = skip;
            }
        }
    }
    Schema { types }
}

/// The Go types clusterctl round-trips, by apiVersion and kind: the schema's name for the type.
pub fn go_type(api_version: &str, kind: &str) -> Option<&'static str> {
    Some(match (api_version, kind) {
        ("apps/v1", "Deployment") => "apps.Deployment",
        ("apps/v1", "DaemonSet") => "apps.DaemonSet",
        ("rbac.authorization.k8s.io/v1", "RoleBinding") => "rbac.RoleBinding",
        ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding") => "rbac.ClusterRoleBinding",
        ("admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration") => {
            "arv1.ValidatingWebhookConfiguration"
        }
        ("admissionregistration.k8s.io/v1", "MutatingWebhookConfiguration") => {
            "arv1.MutatingWebhookConfiguration"
        }
        ("admissionregistration.k8s.io/v1beta1", "ValidatingWebhookConfiguration") => {
            "arv1beta1.ValidatingWebhookConfiguration"
        }
        ("admissionregistration.k8s.io/v1beta1", "MutatingWebhookConfiguration") => {
            "arv1beta1.MutatingWebhookConfiguration"
        }
        ("apiextensions.k8s.io/v1", "CustomResourceDefinition") => "extv1.CustomResourceDefinition",
        ("apiextensions.k8s.io/v1beta1", "CustomResourceDefinition") => {
            "extv1beta1.CustomResourceDefinition"
        }
        _ => return None,
    })
}

/// Converts an object to the named Go type and back, as clusterctl's scheme does; the result
/// carries `api_version` and `kind` (the Go type's group/version and kind).
#[cfg(test)]
pub fn round_trip(
    object: &JsonValue,
    type_name: &str,
    api_version: &str,
    kind: &str,
) -> Result<JsonValue, TypedError> {
    round_trip_owned(object.clone(), type_name, api_version, kind)
}

/// `round_trip`, consuming the object: its strings and lists move into the result instead of
/// being copied (a components file's CRDs are most of its bytes).
pub fn round_trip_owned(
    object: JsonValue,
    type_name: &str,
    api_version: &str,
    kind: &str,
) -> Result<JsonValue, TypedError> {
    let (mut out, _) = convert_named(Some(object), type_name, &Path::Root)?;
    if let JsonValue::Object(entries) = &mut out {
        set(
            entries,
            "apiVersion",
            JsonValue::String(api_version.to_string()),
        );
        set(entries, "kind", JsonValue::String(kind.to_string()));
    }
    Ok(out)
}

fn set(entries: &mut Vec<(String, JsonValue)>, key: &str, value: JsonValue) {
    match entries.iter_mut().find(|(k, _)| k == key) {
        Some((_, v)) => *v = value,
        None => entries.push((key.to_string(), value)),
    }
}

fn type_name(value: &JsonValue) -> &'static str {
    match value {
        JsonValue::Null => "null",
        JsonValue::Bool(_) => "bool",
        JsonValue::Number(_) => "float64",
        JsonValue::String(_) => "string",
        JsonValue::Array(_) => "[]interface {}",
        JsonValue::Object(_) => "map[string]interface {}",
    }
}

/// Where a value sits in the object being converted (`.spec.versions[0].name`), kept as a chain
/// of borrowed steps and written out only when an error names it: formatting the path of every
/// field on the way down was a tenth of `capkg render`'s time on a components file of CRDs.
#[derive(Debug, Clone, Copy)]
enum Path<'p> {
    Root,
    /// `.name` after the parent: a struct field or a map key.
    Field(&'p Path<'p>, &'p str),
    /// `[index]` after the parent.
    Index(&'p Path<'p>, usize),
}

impl Path<'_> {
    /// The path as text (empty at the root).
    fn text(&self) -> String {
        let mut steps = Vec::new();
        let mut at = self;
        loop {
            match at {
                Path::Root => break,
                Path::Field(parent, _) | Path::Index(parent, _) => {
                    steps.push(at);
                    at = parent;
                }
            }
        }
        let mut out = String::new();
        for step in steps.iter().rev() {
            match step {
                Path::Root => {}
                Path::Field(_, name) => {
                    out.push('.');
                    out.push_str(name);
                }
                Path::Index(_, index) => {
                    out.push('[');
                    out.push_str(&index.to_string());
                    out.push(']');
                }
            }
        }
        out
    }
}

fn mismatch(path: &Path<'_>, found: &JsonValue, expected: &str) -> TypedError {
    let path = path.text();
    TypedError::Mismatch {
        path: if path.is_empty() {
            ".".to_string()
        } else {
            path
        },
        found: type_name(found),
        expected: expected.to_string(),
    }
}

/// Converts `input` (`None`: absent or null) to `ty` and back. Returns the unstructured value
/// and whether the Go value is "empty" for `omitempty`.
fn convert(
    input: Option<JsonValue>,
    ty: &Ty,
    path: &Path<'_>,
) -> Result<(JsonValue, bool), TypedError> {
    let input = input.filter(|v| !matches!(v, JsonValue::Null));
    Ok(match ty {
        Ty::String => match input {
            None => (JsonValue::String(String::new()), true),
            Some(JsonValue::String(s)) => {
                let empty = s.is_empty();
                (JsonValue::String(s), empty)
            }
            Some(other) => return Err(mismatch(path, &other, "string")),
        },
        Ty::Bool => match input {
            None => (JsonValue::Bool(false), true),
            Some(JsonValue::Bool(b)) => (JsonValue::Bool(b), !b),
            Some(other) => return Err(mismatch(path, &other, "bool")),
        },
        Ty::Int => match input {
            None => (JsonValue::Number(0.0), true),
            Some(JsonValue::Number(n)) if n.trunc() == n => (JsonValue::Number(n), n == 0.0),
            Some(other) => return Err(mismatch(path, &other, "int64")),
        },
        Ty::Float => match input {
            None => (JsonValue::Number(0.0), true),
            Some(JsonValue::Number(n)) => (JsonValue::Number(n), n == 0.0),
            Some(other) => return Err(mismatch(path, &other, "float64")),
        },
        Ty::Bytes => match input {
            None => (JsonValue::Null, true),
            Some(JsonValue::String(s)) => {
                let bytes =
                    base64_decode(&s).ok_or_else(|| TypedError::Base64 { path: path.text() })?;
                (JsonValue::String(base64_encode(&bytes)), bytes.is_empty())
            }
            Some(other) => return Err(mismatch(path, &other, "[]uint8")),
        },
        Ty::Any => match input {
            None => (JsonValue::Null, true),
            Some(value) => (value, false),
        },
        Ty::Json => (input.unwrap_or(JsonValue::Null), false),
        Ty::Quantity => {
            let text = match input {
                None => "0".to_string(),
                Some(JsonValue::String(s)) => s.trim().to_string(),
                Some(JsonValue::Number(n)) => json_number(n),
                Some(other) => return Err(mismatch(path, &other, "resource.Quantity")),
            };
            let canonical = quantity::canonical(&text).ok_or_else(|| TypedError::Quantity {
                path: path.text(),
                text: text.clone(),
            })?;
            (JsonValue::String(canonical), false)
        }
        Ty::IntOrString => match input {
            None => (JsonValue::Number(0.0), false),
            Some(JsonValue::Number(n)) if n.trunc() == n => (JsonValue::Number(n), false),
            Some(JsonValue::String(s)) => (JsonValue::String(s), false),
            Some(other) => return Err(mismatch(path, &other, "intstr.IntOrString")),
        },
        Ty::Time => match input {
            None => (JsonValue::Null, false),
            Some(JsonValue::String(s)) => (JsonValue::String(s), false),
            Some(other) => return Err(mismatch(path, &other, "metav1.Time")),
        },
        Ty::PropsOrArray(props) => match input {
            Some(object @ JsonValue::Object(_)) => convert_named(Some(object), props, path)?,
            Some(JsonValue::Array(items)) if !items.is_empty() => {
                let mut out = Vec::with_capacity(items.len());
                for (index, item) in items.into_iter().enumerate() {
                    out.push(convert_named(Some(item), props, &Path::Index(path, index))?.0);
                }
                (JsonValue::Array(out), false)
            }
            _ => (JsonValue::Null, false),
        },
        Ty::PropsOrBool(props) => match input {
            Some(object @ JsonValue::Object(_)) => convert_named(Some(object), props, path)?,
            Some(JsonValue::Bool(b)) => (JsonValue::Bool(b), false),
            None => (JsonValue::Bool(false), false),
            Some(other) => return Err(mismatch(path, &other, "boolean or JSON schema")),
        },
        Ty::PropsOrStringArray(props) => match input {
            Some(object @ JsonValue::Object(_)) => convert_named(Some(object), props, path)?,
            Some(JsonValue::Array(items)) if !items.is_empty() => {
                for item in &items {
                    if !matches!(item, JsonValue::String(_)) {
                        return Err(mismatch(path, item, "string"));
                    }
                }
                (JsonValue::Array(items), false)
            }
            _ => (JsonValue::Null, false),
        },
        Ty::Ptr(inner) => match input {
            None => (JsonValue::Null, true),
            Some(value) => (convert(Some(value), inner, path)?.0, false),
        },
        Ty::Slice(inner) => match input {
            None => (JsonValue::Null, true),
            Some(JsonValue::Array(items)) => {
                let mut out = Vec::with_capacity(items.len());
                for (index, item) in items.into_iter().enumerate() {
                    out.push(convert(Some(item), inner, &Path::Index(path, index))?.0);
                }
                let empty = out.is_empty();
                (JsonValue::Array(out), empty)
            }
            Some(other) => return Err(mismatch(path, &other, "slice")),
        },
        Ty::Map(inner) => match input {
            None => (JsonValue::Null, true),
            Some(JsonValue::Object(entries)) => {
                let mut out = Vec::with_capacity(entries.len());
                for (key, value) in entries {
                    let converted = convert(Some(value), inner, &Path::Field(path, &key))?.0;
                    out.push((key, converted));
                }
                let empty = out.is_empty();
                (JsonValue::Object(out), empty)
            }
            Some(other) => return Err(mismatch(path, &other, "map")),
        },
        Ty::Named(name) => convert_named(input, name, path)?,
    })
}

/// [`convert`] to the named type.
fn convert_named(
    input: Option<JsonValue>,
    name: &str,
    path: &Path<'_>,
) -> Result<(JsonValue, bool), TypedError> {
    let input = input.filter(|v| !matches!(v, JsonValue::Null));
    Ok(match schema().types.get(name) {
        Some(Def::Alias(alias)) => convert(input, alias, path)?,
        Some(Def::Struct(def)) => {
            let mut entries = match input {
                None => Vec::new(),
                Some(JsonValue::Object(entries)) => entries,
                Some(other) => {
                    return Err(TypedError::Mismatch {
                        path: path.text(),
                        found: type_name(&other),
                        expected: format!("struct {name}"),
                    });
                }
            };
            let mut out = Vec::with_capacity(entries.len());
            convert_struct(&mut entries, def, path, &mut out)?;
            (JsonValue::Object(out), false)
        }
        None => return Err(TypedError::UnknownType(name.to_string())),
    })
}

/// Converts the entries of a struct's object field by field, in the struct's order, into `out`.
/// Each field's value is taken out of `entries` (the last entry of its name, as Go's decoder
/// keeps): a struct's fields, embedded ones included, have distinct names (a test checks the
/// schema), so no field reads an entry another field took, and each is written once.
fn convert_struct(
    entries: &mut [(String, JsonValue)],
    def: &Struct,
    path: &Path<'_>,
    out: &mut Vec<(String, JsonValue)>,
) -> Result<(), TypedError> {
    // (field, entry) for the entries this struct's own fields read, last entry of a name first.
    let mut read: Vec<(usize, usize)> = Vec::with_capacity(entries.len());
    for (at, (key, _)) in entries.iter().enumerate().rev() {
        if let Some(field) = def.field_named(key)
            && !read.iter().any(|&(f, _)| f == field)
        {
            read.push((field, at));
        }
    }
    read.sort_unstable();
    let mut read = read.into_iter().peekable();
    for (index, field) in def.fields.iter().enumerate() {
        if field.name.is_empty() {
            // An embedded struct reads and writes the same map.
            let Ty::Named(name) = &field.ty else { continue };
            match schema().types.get(name) {
                Some(Def::Struct(inner)) => convert_struct(entries, inner, path, out)?,
                _ => return Err(TypedError::UnknownType(name.clone())),
            }
            continue;
        }
        let entry = read.next_if(|&(f, _)| f == index).map(|(_, at)| at);
        // The entry's key is the field's name: it moves into the result with the value.
        let (key, value) = match entry.and_then(|at| entries.get_mut(at)) {
            Some((key, value)) => (
                Some(std::mem::take(key)),
                Some(std::mem::replace(value, JsonValue::Null)),
            ),
            None if field.skip_when_absent => continue,
            None => (None, None),
        };
        let (converted, empty) = convert(value, &field.ty, &Path::Field(path, &field.name))?;
        if field.omitempty && empty {
            continue;
        }
        // `omitzero` (only `creationTimestamp` here): a zero Time is left out.
        if field.omitzero && matches!(converted, JsonValue::Null) {
            continue;
        }
        out.push((key.unwrap_or_else(|| field.name.clone()), converted));
    }
    Ok(())
}

/// A float64 as Go's `encoding/json` writes it, for the values a quantity can hold: whole numbers
/// without a fraction, others in shortest decimal form.
fn json_number(n: f64) -> String {
    if n.trunc() == n && n.abs() < 1e21 {
        format!("{n:.0}")
    } else {
        format!("{n}")
    }
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Go's `base64.StdEncoding.DecodeString` (line breaks are ignored, as Go does).
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let symbols: Vec<u8> = text
        .bytes()
        .filter(|b| *b != b'\n' && *b != b'\r')
        .collect();
    if !symbols.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(symbols.len() / 4 * 3);
    for chunk in symbols.chunks(4) {
        let mut value = 0u32;
        let mut padding = 0;
        for (index, &symbol) in chunk.iter().enumerate() {
            let digit = if symbol == b'=' {
                if index < 2 {
                    return None;
                }
                padding += 1;
                0
            } else {
                if padding > 0 {
                    return None;
                }
                BASE64.iter().position(|&c| c == symbol)? as u32
            };
            value = value << 6 | digit;
        }
        let bytes = value.to_be_bytes();
        out.extend_from_slice(&bytes[1..4 - padding]);
    }
    Some(out)
}

fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let mut block = [0u8; 3];
        block[..chunk.len()].copy_from_slice(chunk);
        let value = u32::from(block[0]) << 16 | u32::from(block[1]) << 8 | u32::from(block[2]);
        for index in 0..4 {
            if index <= chunk.len() {
                out.push(char::from(
                    BASE64[(value >> (18 - 6 * index) & 63) as usize],
                ));
            } else {
                out.push('=');
            }
        }
    }
    out
}

pub mod quantity;

#[cfg(test)]
mod tests {
    use super::*;

    fn json(text: &str) -> JsonValue {
        let file = crate::yaml::parse_str(
            std::sync::Arc::new(crate::yaml::Source::new("t", text)),
            crate::yaml::Limits::default(),
        );
        JsonValue::from_node(file.roots().next().unwrap()).unwrap()
    }

    fn yaml(value: &JsonValue) -> String {
        crate::yaml::write_clusterctl::write_value(value).unwrap()
    }

    #[test]
    fn the_schema_loads_and_names_every_type_it_uses() {
        let schema = schema();
        assert!(schema.types.len() > 150);
        fn names(ty: &Ty, out: &mut Vec<String>) {
            match ty {
                Ty::Named(n)
                | Ty::PropsOrArray(n)
                | Ty::PropsOrBool(n)
                | Ty::PropsOrStringArray(n) => out.push(n.clone()),
                Ty::Ptr(t) | Ty::Slice(t) | Ty::Map(t) => names(t, out),
                _ => {}
            }
        }
        let mut used = Vec::new();
        for def in schema.types.values() {
            match def {
                Def::Struct(def) => def.fields.iter().for_each(|f| names(&f.ty, &mut used)),
                Def::Alias(ty) => names(ty, &mut used),
            }
        }
        for name in used {
            assert!(schema.types.contains_key(&name), "{name}");
        }
    }

    #[test]
    fn webhooks_gain_their_required_fields() {
        // components_test.go: a v1 webhook without name, sideEffects or admissionReviewVersions.
        let input = json(
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: w\nwebhooks:\n- clientConfig:\n    service:\n      name: s\n      namespace: ns\n",
        );
        let out = round_trip(
            &input,
            "arv1.ValidatingWebhookConfiguration",
            "admissionregistration.k8s.io/v1",
            "ValidatingWebhookConfiguration",
        )
        .unwrap();
        assert_eq!(
            yaml(&out),
            "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: w\nwebhooks:\n- admissionReviewVersions: null\n  clientConfig:\n    service:\n      name: s\n      namespace: ns\n  name: \"\"\n  sideEffects: null\n"
        );
    }

    #[test]
    fn deployments_gain_zero_structs_and_canonical_quantities() {
        let input = json(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  creationTimestamp: null\nspec:\n  typo: dropped\n  template:\n    spec:\n      containers:\n      - name: m\n        image: r.io/m:v1\n        resources:\n          limits:\n            cpu: 0.5\n            memory: 1024Mi\n        ports:\n        - containerPort: 9443\n",
        );
        let out = round_trip(&input, "apps.Deployment", "apps/v1", "Deployment").unwrap();
        assert_eq!(
            yaml(&out),
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector: null\n  strategy: {}\n  template:\n    metadata: {}\n    spec:\n      containers:\n      - image: r.io/m:v1\n        name: m\n        ports:\n        - containerPort: 9443\n        resources:\n          limits:\n            cpu: 500m\n            memory: 1Gi\nstatus: {}\n"
        );
    }

    #[test]
    fn type_mismatches_fail_as_the_converter_does() {
        let input = json("kind: RoleBinding\nsubjects: x\n");
        let err = round_trip(
            &input,
            "rbac.RoleBinding",
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
        )
        .unwrap_err();
        assert_eq!(err.to_string(), ".subjects: cannot convert string to slice");
    }

    #[test]
    fn errors_name_the_nested_path_of_the_value() {
        // The path is written out only when an error needs it; it must read as it did when every
        // step formatted it on the way down.
        let input = json(
            "kind: RoleBinding\nsubjects:\n- kind: User\n  name: a\n- kind: User\n  name: [b]\n",
        );
        let err = round_trip(
            &input,
            "rbac.RoleBinding",
            "rbac.authorization.k8s.io/v1",
            "RoleBinding",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            ".subjects[1].name: cannot convert []interface {} to string"
        );
        let deployment = json(
            "kind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: m\n        resources:\n          limits:\n            cpu: lots\n",
        );
        let err = round_trip(&deployment, "apps.Deployment", "apps/v1", "Deployment").unwrap_err();
        assert!(
            err.to_string()
                .starts_with(".spec.template.spec.containers[0].resources.limits.cpu: quantities"),
            "{err}"
        );
    }

    #[test]
    fn absent_fields_are_skipped_exactly_where_converting_them_would_drop_them() {
        let mut skipped = 0;
        for (type_name, def) in &schema().types {
            let Def::Struct(def) = def else { continue };
            for field in &def.fields {
                if field.name.is_empty() {
                    continue;
                }
                let dropped = match convert(None, &field.ty, &Path::Root) {
                    Ok((value, empty)) => {
                        field.omitempty && empty
                            || field.omitzero && matches!(value, JsonValue::Null)
                    }
                    Err(_) => false,
                };
                if field.skip_when_absent {
                    skipped += 1;
                    assert!(dropped, "{type_name}.{}", field.name);
                }
                if field.omitempty && !field.omitzero {
                    assert_eq!(
                        field.skip_when_absent, dropped,
                        "{type_name}.{}",
                        field.name
                    );
                }
            }
        }
        assert!(skipped > 100, "{skipped}");
    }

    #[test]
    fn struct_fields_have_distinct_names_embedded_ones_included() {
        fn names(fields: &[Field], out: &mut Vec<String>) {
            for field in fields {
                match (&field.ty, field.name.is_empty()) {
                    (Ty::Named(name), true) => match schema().types.get(name) {
                        Some(Def::Struct(inner)) => names(&inner.fields, out),
                        _ => panic!("embedded {name} is no struct"),
                    },
                    _ => out.push(field.name.clone()),
                }
            }
        }
        for (type_name, def) in &schema().types {
            let Def::Struct(def) = def else { continue };
            let mut all = Vec::new();
            names(&def.fields, &mut all);
            let count = all.len();
            all.sort();
            all.dedup();
            assert_eq!(all.len(), count, "{type_name} repeats a field name");
        }
    }

    #[test]
    fn base64_round_trips() {
        for text in ["", "Cg==", "YWJj", "YWI=", "LS0tLS1CRUdJTiBDRVJU"] {
            assert_eq!(base64_encode(&base64_decode(text).unwrap()), text);
        }
        assert_eq!(base64_decode("abc"), None);
        assert_eq!(base64_decode("a==="), None);
    }
}

#[cfg(test)]
mod corpus {
    //! Every object of the corpus that clusterctl round-trips keeps every field it has: the
    //! schema knows all of them, and the only value that changes is a quantity written in a
    //! non-canonical form.

    use super::*;

    fn removed(before: &JsonValue, after: &JsonValue, path: &str, out: &mut Vec<String>) {
        match (before, after) {
            (JsonValue::Object(a), JsonValue::Object(b)) => {
                for (k, v) in a {
                    match b.iter().find(|(k2, _)| k2 == k) {
                        Some((_, v2)) => removed(v, v2, &format!("{path}.{k}"), out),
                        None if !matches!(v, JsonValue::Null) => out.push(format!("{path}.{k}")),
                        None => {}
                    }
                }
            }
            (JsonValue::Array(a), JsonValue::Array(b)) => {
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    removed(x, y, &format!("{path}[{i}]"), out);
                }
            }
            (a, b) if a != b => out.push(format!("{path}: {a:?} -> {b:?}")),
            _ => {}
        }
    }

    #[test]
    fn corpus_objects_lose_nothing_in_the_round_trip() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus");
        let mut changes = Vec::new();
        let mut converted = 0;
        for entry in walkdir::WalkDir::new(&corpus).sort_by_file_name() {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.contains("-components") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            let file = crate::yaml::parse_str(
                std::sync::Arc::new(crate::yaml::Source::new("c", text)),
                crate::yaml::Limits::default(),
            );
            for root in file.roots() {
                let Ok(value) = JsonValue::from_node(root) else {
                    continue;
                };
                let kind = value.get("kind").and_then(JsonValue::as_str).unwrap_or("");
                let api = value
                    .get("apiVersion")
                    .and_then(JsonValue::as_str)
                    .unwrap_or("");
                let Some(ty) = go_type(api, kind) else {
                    continue;
                };
                let after = round_trip(&value, ty, api, kind)
                    .unwrap_or_else(|e| panic!("{name} {kind}: {e}"));
                converted += 1;
                let mut out = Vec::new();
                removed(&value, &after, "", &mut out);
                changes.extend(out.into_iter().map(|o| format!("{name} {kind}: {o}")));
            }
        }
        assert!(converted > 100, "{converted}");
        assert_eq!(
            changes,
            [
                "infrastructure-components.yaml Deployment: .spec.template.spec.containers[0].resources.requests.cpu: String(\"1000m\") -> String(\"1\")"
            ]
        );
    }
}
