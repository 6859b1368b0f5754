//! clusterctl's layer on top of drone/envsubst (`yamlprocessor/simple_processor.go`).
//!
//! clusterctl does three things around `envsubst.Eval`: a legacy pre-pass that turns `${ VAR }`
//! into `${VAR}`, an inventory of the top-level variables (first occurrence decides whether a
//! variable has a default), and a missing-variables check that fails before anything is
//! substituted. Values come from viper: program overrides, then the environment (upper-cased key,
//! `-` to `_`, empty counts as set), then the config file (case-insensitive keys). All of that is
//! reproduced here; the only addition is that every span and offset refers to the caller's
//! original input, so the linter can point at the right line even when the pre-pass rewrote it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::parse::{Func, Node, Op, Template, parse, parse_each};
use super::runes::{go_lower_str, go_upper_str};
use super::{Error, Lookup, Span};

/// The result of the legacy whitespace pre-pass, with a map back to the original offsets.
#[derive(Debug, Clone)]
pub struct Prepass<'a> {
    /// The rewritten text (borrowed when nothing was rewritten).
    pub text: Cow<'a, [u8]>,
    edits: Vec<Edit>,
}

/// One rewritten `${ NAME }`: where it was, where its `${NAME}` is now, where NAME was.
#[derive(Debug, Clone, Copy)]
struct Edit {
    orig: Span,
    new: Span,
    name_start: usize,
    name_len: usize,
}

const fn is_ws(b: u8) -> bool {
    // Go RE2's \s: [\t\n\f\r ]
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

const fn is_legacy_name(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$'
}

/// clusterctl's `convertLegacyVars`: every match of
/// `(\${(\s+([A-Za-z0-9_$]+)\s+)})|(\${(\s+([A-Za-z0-9_$]+))})|(\${(([A-Za-z0-9_$]+)\s+)})`
/// loses its whitespace. That is `${`, optional whitespace, a run of `[A-Za-z0-9_$]`, optional
/// whitespace and `}`, with whitespace on at least one side. The character classes are disjoint,
/// so at each `${` there is at most one candidate; matches are taken left to right and never
/// overlap, as Go's `ReplaceAllStringFunc` does. Escapes and nesting are ignored, like the regex.
pub fn convert_legacy_vars(input: &[u8]) -> Prepass<'_> {
    let mut edits = Vec::new();
    let mut out: Option<Vec<u8>> = None;
    let mut copied = 0; // input consumed into `out`
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'$', &input[i..]) {
        let j = i + k;
        i = j + 1;
        if input.get(j + 1) != Some(&b'{') {
            continue;
        }
        let mut p = j + 2;
        while p < input.len() && is_ws(input[p]) {
            p += 1;
        }
        let lead = p - (j + 2);
        let name_start = p;
        while p < input.len() && is_legacy_name(input[p]) {
            p += 1;
        }
        let name_len = p - name_start;
        if name_len == 0 {
            continue;
        }
        let trail_start = p;
        while p < input.len() && is_ws(input[p]) {
            p += 1;
        }
        let trail = p - trail_start;
        if input.get(p) != Some(&b'}') || (lead == 0 && trail == 0) {
            continue;
        }
        let end = p + 1;
        let buf = out.get_or_insert_with(|| Vec::with_capacity(input.len()));
        buf.extend_from_slice(&input[copied..j]);
        let new_start = buf.len();
        buf.extend_from_slice(b"${");
        buf.extend_from_slice(&input[name_start..name_start + name_len]);
        buf.push(b'}');
        edits.push(Edit {
            orig: Span { start: j, end },
            new: Span {
                start: new_start,
                end: buf.len(),
            },
            name_start,
            name_len,
        });
        copied = end;
        i = end;
    }
    let text = match out {
        None => Cow::Borrowed(input),
        Some(mut buf) => {
            buf.extend_from_slice(&input[copied..]);
            Cow::Owned(buf)
        }
    };
    Prepass { text, edits }
}

impl Prepass<'_> {
    /// Whether the pre-pass changed anything.
    pub fn changed(&self) -> bool {
        !self.edits.is_empty()
    }

    /// The spans (in the original input) of the `${ NAME }` forms that were rewritten.
    pub fn rewrites(&self) -> impl Iterator<Item = Span> + '_ {
        self.edits.iter().map(|e| e.orig)
    }

    /// Maps a byte offset in [`Prepass::text`] to the corresponding offset in the original input.
    pub fn to_original(&self, offset: usize) -> usize {
        let idx = self.edits.partition_point(|e| e.new.start <= offset);
        let Some(e) = idx.checked_sub(1).and_then(|i| self.edits.get(i)) else {
            return offset;
        };
        if offset >= e.new.end {
            return offset - e.new.end + e.orig.end;
        }
        let rel = offset - e.new.start;
        if rel < 2 {
            e.orig.start + rel
        } else if rel < 2 + e.name_len {
            e.name_start + (rel - 2)
        } else {
            e.orig.end - 1
        }
    }

    /// Maps a span in [`Prepass::text`] to the original input.
    pub fn span_to_original(&self, span: Span) -> Span {
        let start = self.to_original(span.start);
        let end = if span.end > span.start {
            self.to_original(span.end - 1) + 1
        } else {
            start
        };
        Span { start, end }
    }

    /// Rewrites the offsets inside an error to the original input.
    pub fn map_error(&self, e: Error) -> Error {
        match e {
            Error::Parse {
                kind,
                offset,
                expression,
            } => Error::Parse {
                kind,
                offset: self.to_original(offset),
                expression: self.to_original(expression),
            },
            Error::SubstringOutOfRange {
                name,
                offset,
                length,
                span,
            } => Error::SubstringOutOfRange {
                name,
                offset,
                length,
                span: self.span_to_original(span),
            },
            Error::ExpansionTooLarge { name, size, span } => Error::ExpansionTooLarge {
                name,
                size,
                span: self.span_to_original(span),
            },
            other => other,
        }
    }
}

/// One variable as clusterctl's `GetVariableMap` sees it (its first top-level occurrence).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// Name as written.
    pub name: String,
    /// The default string of the first occurrence; `None` (empty string) means required.
    pub default: Option<Vec<u8>>,
    /// The first occurrence, in the original input.
    pub span: Span,
}

/// Every `${…}` in the input, nested ones included, for diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// Name as written.
    pub name: String,
    /// The operator.
    pub op: Op,
    /// clusterctl's default string for this occurrence (see [`Inventory`]).
    pub default: Vec<u8>,
    /// The expression in the original input.
    pub span: Span,
    /// 0 at top level; nested references are neither listed nor checked by clusterctl.
    pub depth: usize,
}

/// clusterctl's variable inventory (`inspectVariables`) of one input.
///
/// Only top-level expressions count. A variable's default string is built from the arguments of
/// its first occurrence: text verbatim, a nested expression as `${NAME}`. Any argument makes a
/// variable optional (`${A:0:2}` has the default `02`); an empty string means required.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inventory {
    /// Variables by name (bytewise order, as Go's `sort.Strings`).
    pub variables: BTreeMap<String, Variable>,
    /// All references in input order (outer before inner).
    pub references: Vec<Reference>,
    /// Each top-level `$$` that clusterctl turns into `$` (also inside shell scripts), as the
    /// two-byte span in the original input.
    pub escapes: Vec<Span>,
    /// Each legacy `${ NAME }` the pre-pass rewrote, in the original input.
    pub legacy: Vec<Span>,
}

/// Parses `input` after the legacy pre-pass and takes the variable inventory (clusterctl's
/// `GetVariables` / `GetVariableMap`). Spans and error offsets refer to `input`.
pub fn inventory(input: &[u8]) -> Result<Inventory, Error> {
    let pre = convert_legacy_vars(input);
    // Node by node: the template of a large components file need not be kept whole.
    let mut inv = Inventory::new(&pre);
    parse_each(&pre.text, |node| inv.add(&node, &pre)).map_err(|e| pre.map_error(e))?;
    Ok(inv)
}

fn default_string(f: &Func<'_>) -> Vec<u8> {
    let mut b = Vec::new();
    for a in &f.args {
        match a {
            Node::Text(t) => t.write_to(&mut b),
            Node::Func(g) => {
                b.extend_from_slice(b"${");
                b.extend_from_slice(g.name.as_bytes());
                b.push(b'}');
            }
        }
    }
    b
}

impl Inventory {
    /// The inventory of an already parsed template; `pre` maps spans back to the original input.
    pub fn of(template: &Template<'_>, pre: &Prepass<'_>) -> Inventory {
        let mut inv = Inventory::new(pre);
        for node in &template.nodes {
            inv.add(node, pre);
        }
        inv
    }

    fn new(pre: &Prepass<'_>) -> Inventory {
        Inventory {
            legacy: pre.rewrites().collect(),
            ..Inventory::default()
        }
    }

    /// Takes in the template's next top-level node.
    fn add(&mut self, node: &Node<'_>, pre: &Prepass<'_>) {
        match node {
            // Only text that lost a `$$` owns its value; find the escapes in its span again.
            Node::Text(t) if t.had_escapes() => {
                let text = &pre.text[t.span.start..t.span.end];
                let mut i = 0;
                while let Some(k) = memchr::memchr(b'$', &text[i..]) {
                    let j = i + k;
                    if text.get(j + 1) == Some(&b'$') {
                        let at = t.span.start + j;
                        self.escapes.push(pre.span_to_original(Span {
                            start: at,
                            end: at + 2,
                        }));
                        i = j + 2;
                    } else {
                        i = j + 1;
                    }
                }
            }
            Node::Text(_) => {}
            Node::Func(f) => {
                let default = default_string(f);
                let span = pre.span_to_original(f.span);
                if !self.variables.contains_key(f.name) {
                    self.variables.insert(
                        f.name.to_owned(),
                        Variable {
                            name: f.name.to_owned(),
                            default: (!default.is_empty()).then(|| default.clone()),
                            span,
                        },
                    );
                }
                self.references.push(Reference {
                    name: f.name.to_owned(),
                    op: f.op,
                    default,
                    span,
                    depth: 0,
                });
                self.push_nested(f, pre, 1);
            }
        }
    }

    fn push_nested(&mut self, f: &Func<'_>, pre: &Prepass<'_>, depth: usize) {
        for a in &f.args {
            if let Node::Func(g) = a {
                self.references.push(Reference {
                    name: g.name.to_owned(),
                    op: g.op,
                    default: default_string(g),
                    span: pre.span_to_original(g.span),
                    depth,
                });
                self.push_nested(g, pre, depth + 1);
            }
        }
    }

    /// The sorted variable names (clusterctl's `GetVariables`).
    pub fn names(&self) -> Vec<&str> {
        self.variables.keys().map(String::as_str).collect()
    }

    /// Name to default (clusterctl's `GetVariableMap`): `None` for required variables.
    pub fn variable_map(&self) -> BTreeMap<String, Option<Vec<u8>>> {
        self.variables
            .iter()
            .map(|(k, v)| (k.clone(), v.default.clone()))
            .collect()
    }

    /// The variables without a default that `lookup` does not know, sorted (clusterctl's
    /// missing check).
    pub fn missing(&self, lookup: &dyn Lookup) -> Vec<String> {
        self.variables
            .values()
            .filter(|v| v.default.is_none() && lookup.lookup(&v.name).is_none())
            .map(|v| v.name.clone())
            .collect()
    }
}

/// The missing check without building an [`Inventory`]: a first occurrence has a non-empty
/// default string exactly when it has a non-empty text argument or any nested expression.
fn missing_names(template: &Template<'_>, lookup: &dyn Lookup) -> Vec<String> {
    let mut first: std::collections::HashMap<&str, bool> = std::collections::HashMap::new();
    for f in template.funcs() {
        first.entry(f.name).or_insert_with(|| {
            f.args.iter().any(|a| match a {
                Node::Text(t) => !t.is_empty(),
                Node::Func(_) => true,
            })
        });
    }
    let mut missing: Vec<String> = first
        .into_iter()
        .filter(|&(name, has_default)| !has_default && lookup.lookup(name).is_none())
        .map(|(name, _)| name.to_owned())
        .collect();
    missing.sort_unstable();
    missing
}

/// clusterctl's `SimpleProcessor.Process`: legacy pre-pass, parse, missing check, then drone's
/// evaluation with "value, or empty when not set". On error nothing is substituted (clusterctl
/// returns the raw input alongside the error; callers keep theirs).
pub fn process(input: &[u8], lookup: &dyn Lookup) -> Result<Vec<u8>, Error> {
    let pre = convert_legacy_vars(input);
    let template = parse(&pre.text).map_err(|e| pre.map_error(e))?;
    let missing = missing_names(&template, lookup);
    if !missing.is_empty() {
        return Err(Error::MissingVariables { names: missing });
    }
    let mut out = Vec::with_capacity(pre.text.len());
    template
        .eval_into(lookup, &mut out)
        .map_err(|e| pre.map_error(e))?;
    Ok(out)
}

/// The process environment as an exact-name map (a [`Lookup`] for drone's plain `Eval`, i.e.
/// `EvalEnv`). Variables whose names are not UTF-8 are skipped; values are kept as bytes.
pub fn process_env() -> BTreeMap<String, Vec<u8>> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_encoded_bytes())))
        .collect()
}

/// Variable values the way clusterctl's viper-backed `VariablesClient` resolves them.
///
/// Order: values set by the program (`generate cluster` sets NAMESPACE, CLUSTER_NAME, …), then the
/// environment under the upper-cased name with `-` replaced by `_` (a variable set to "" counts
/// as set), then the top-level keys of the clusterctl config file, compared case-insensitively.
/// Program overrides are case-insensitive too (viper lower-cases every key).
#[derive(Debug, Clone, Default)]
pub struct Values {
    overrides: BTreeMap<String, Vec<u8>>,
    env: BTreeMap<String, Vec<u8>>,
    config: BTreeMap<String, String>,
}

impl Values {
    /// No values at all.
    pub fn new() -> Self {
        Values::default()
    }

    /// Uses `env` as the environment (injectable for tests).
    pub fn with_env<I, K, V>(mut self, env: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<Vec<u8>>,
    {
        self.env = env.into_iter().map(|(k, v)| (k.into(), v.into())).collect();
        self
    }

    /// Uses the process environment (see [`process_env`]).
    pub fn with_process_env(self) -> Self {
        self.with_env(process_env())
    }

    /// Uses the top-level keys of a clusterctl config file, values already stringified. Keys are
    /// matched case-insensitively; if two keys differ only in case the first in map order wins
    /// (viper leaves this undefined).
    pub fn with_config(mut self, config: BTreeMap<String, String>) -> Self {
        let mut lowered = BTreeMap::new();
        for (k, v) in config {
            lowered.entry(go_lower_str(&k)).or_insert(v);
        }
        self.config = lowered;
        self
    }

    /// Sets a value the way clusterctl's own `Set` does (wins over env and config).
    pub fn set(&mut self, name: &str, value: impl Into<Vec<u8>>) {
        self.overrides.insert(go_lower_str(name), value.into());
    }

    /// The environment variable viper reads for `name`.
    pub fn env_key(name: &str) -> String {
        go_upper_str(&go_lower_str(name)).replace('-', "_")
    }
}

impl Lookup for Values {
    fn lookup(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        // Template names are usually already in env-var form; skip the case mapping then.
        let plain_upper = name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        let lower = || -> Cow<'_, str> {
            if name
                .bytes()
                .all(|b| !b.is_ascii_uppercase() && b.is_ascii())
            {
                Cow::Borrowed(name)
            } else {
                Cow::Owned(go_lower_str(name))
            }
        };
        if !self.overrides.is_empty()
            && let Some(v) = self.overrides.get(lower().as_ref())
        {
            return Some(Cow::Borrowed(v));
        }
        let env_value = if plain_upper {
            self.env.get(name)
        } else {
            self.env.get(&Values::env_key(name))
        };
        if let Some(v) = env_value {
            return Some(Cow::Borrowed(v));
        }
        if self.config.is_empty() {
            return None;
        }
        self.config
            .get(lower().as_ref())
            .map(|v| Cow::Borrowed(v.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepass_maps_offsets_back() {
        let input = b"a ${ FOO } b ${BAR\t} ${ok} ${ X:-y }";
        let pre = convert_legacy_vars(input);
        assert_eq!(&*pre.text, b"a ${FOO} b ${BAR} ${ok} ${ X:-y }");
        // `${FOO}` at 2..8 was 2..10
        assert_eq!(
            pre.span_to_original(Span { start: 2, end: 8 }),
            Span { start: 2, end: 10 }
        );
        // the F of FOO
        assert_eq!(pre.to_original(4), 5);
        // `b` after the first edit
        assert_eq!(pre.to_original(9), 11);
        // `${BAR}` at 11..17 was 13..20
        assert_eq!(
            pre.span_to_original(Span { start: 11, end: 17 }),
            Span { start: 13, end: 20 }
        );
        // the text after both edits
        assert_eq!(pre.to_original(18), 21);
        assert_eq!(pre.to_original(pre.text.len()), input.len());
    }

    #[test]
    fn inventory_reports_escapes_and_legacy_forms_in_original_offsets() {
        let input = b"a: ${ X }\nb: echo $$HOME $${Y} $$$${Z} ${W:-$$}\n";
        let inv = inventory(input).expect("parses");
        let at = |s: Span| &input[s.start..s.end];
        assert_eq!(
            inv.legacy.iter().map(|s| at(*s)).collect::<Vec<_>>(),
            [&b"${ X }"[..]]
        );
        let starts: Vec<usize> = inv.escapes.iter().map(|s| s.start).collect();
        // `$$HOME`, `$${Y}`, and the two pairs of `$$$${Z}`; the `$$` in the default word is not one.
        assert_eq!(starts, [18, 25, 31, 33]);
        assert!(inv.escapes.iter().all(|s| at(*s) == b"$$"));
        assert_eq!(inv.names(), ["W", "X"]);
        let w = &inv.variables["W"];
        assert_eq!(at(w.span), b"${W:-$$}");
        assert_eq!(w.default.as_deref(), Some(&b"$$"[..]));
    }

    #[test]
    fn values_resolve_like_viper() {
        let mut v = Values::new()
            .with_env([("CLUSTER_NAME", "env"), ("EMPTY", ""), ("MY_KEY", "dash")])
            .with_config(BTreeMap::from([
                ("Cluster_Name".to_owned(), "cfg".to_owned()),
                ("only_cfg".to_owned(), "c".to_owned()),
            ]));
        assert_eq!(v.lookup("cluster_name").as_deref(), Some(&b"env"[..]));
        assert_eq!(v.lookup("EMPTY").as_deref(), Some(&b""[..]));
        assert_eq!(v.lookup("my-key").as_deref(), Some(&b"dash"[..]));
        assert_eq!(v.lookup("ONLY_CFG").as_deref(), Some(&b"c"[..]));
        assert_eq!(v.lookup("nope"), None);
        v.set("Cluster_Name", "set");
        assert_eq!(v.lookup("CLUSTER_NAME").as_deref(), Some(&b"set"[..]));
    }
}
