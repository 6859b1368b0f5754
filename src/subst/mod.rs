//! Variable substitution exactly as clusterctl does it: drone/envsubst v2 (commit `179042472c46`)
//! plus clusterctl's `SimpleProcessor` layer.
//!
//! Why a port and not a crate: no Rust crate implements drone's dialect (`$$` escapes everywhere,
//! `$NAME` left alone, every default operator meaning "use the word when empty", byte offsets,
//! its glob rules and quirks), and provider maintainers need the output to match clusterctl byte
//! for byte. The rules are in `docs/envsubst-semantics.md`; the tests replay drone's and
//! clusterctl's own test rows from `testdata/subst/`.
//!
//! Two levels, as in drone: [`parse()`] turns the whole input into a [`Template`] (a parse error
//! means no output at all), then [`Template::eval`] substitutes. [`eval()`] is drone's `Eval`
//! (`capkg subst --plain`): names looked up as written, unset reads as empty. The clusterctl layer
//! ([`process`], [`inventory`], [`Values`], the `--list-variables` rendering) lives in
//! `clusterctl.rs` and `listing.rs`.
//!
//! Everything works on bytes: the output may be invalid UTF-8 (byte offsets can split a rune), and
//! every span and error offset is a byte offset into the caller's original input.

mod clusterctl;
pub mod config_file;
mod eval;
mod glob;
mod listing;
mod parse;
mod placeholders;
mod runes;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};

pub use clusterctl::{
    Inventory, Prepass, Reference, Values, Variable, convert_legacy_vars, inventory, process,
    process_env,
};
pub(crate) use eval::go_atoi;
pub use eval::{MAX_EXPANSION, apply};
pub use listing::{
    ClusterVariablesOptions, SET_BY_GENERATE_CLUSTER, go_quote, render_cluster_variables,
    render_yaml_variables, shown_default,
};
pub use parse::{
    CaseOp, DefaultOp, Func, MAX_NESTING, Node, Op, ReplaceOp, Template, Text, TrimOp, parse,
};
pub use placeholders::{
    Replaced, Substituted, reparse_with_placeholders, substitute_defaults, substitute_mapped,
};

/// A byte range `start..end` in the original input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// What went wrong while parsing; `Display` is drone's exact message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParseErrorKind {
    /// `unable to parse variable name`
    VariableName,
    /// `missing closing brace`
    MissingClosingBrace,
    /// `bad substitution`
    BadSubstitution,
    /// `unable to parse substitution within function`
    FuncSubstitution,
    /// `unable to parse default function` (declared by drone, unreachable there and here)
    DefaultFunction,
    /// Nesting deeper than [`MAX_NESTING`] (our limit; drone has none).
    NestingTooDeep,
}

impl ParseErrorKind {
    /// drone's error string (ours for [`ParseErrorKind::NestingTooDeep`]).
    pub fn message(self) -> &'static str {
        match self {
            ParseErrorKind::VariableName => "unable to parse variable name",
            ParseErrorKind::MissingClosingBrace => "missing closing brace",
            ParseErrorKind::BadSubstitution => "bad substitution",
            ParseErrorKind::FuncSubstitution => "unable to parse substitution within function",
            ParseErrorKind::DefaultFunction => "unable to parse default function",
            ParseErrorKind::NestingTooDeep => "expressions nested too deeply",
        }
    }
}

impl std::fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

/// Errors of this module. `Display` gives the exact strings drone and clusterctl print.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The input does not parse. `offset` is the byte in the original input where the problem was
    /// found (the input length when it ran out).
    #[error("{kind}")]
    Parse {
        /// Which drone error.
        kind: ParseErrorKind,
        /// Byte offset into the original input.
        offset: usize,
        /// The `$` of the top-level `${` whose expression did not parse: where an expression
        /// left open to the end of the input starts.
        expression: usize,
    },
    /// A substring expansion that makes Go panic (`slice bounds out of range`), for example
    /// `${A:0:-1}` with `A=abc` or `${A:9223372036854775807:1}`. clusterctl would crash here.
    #[error(
        "substring of {name:?} with offset {offset} and length {length} is out of range (drone/envsubst panics here)"
    )]
    SubstringOutOfRange {
        /// Variable name.
        name: String,
        /// Offset after resolving a negative offset.
        offset: i64,
        /// Requested length.
        length: i64,
        /// The expression in the original input.
        span: Span,
    },
    /// A replace operator whose result would exceed [`MAX_EXPANSION`] bytes (nested replacements
    /// multiply sizes). Go has no limit and would run out of memory.
    #[error(
        "expansion of {name:?} would produce {size} bytes, more than the limit of {MAX_EXPANSION}"
    )]
    ExpansionTooLarge {
        /// Variable name.
        name: String,
        /// The size the result would have had.
        size: u128,
        /// The expression in the original input.
        span: Span,
    },
    /// clusterctl's missing-variables error; names sorted bytewise.
    #[error(
        "value for variables [{}] is not set. Please set the value using os environment variables or the clusterctl config file",
        .names.join(", ")
    )]
    MissingVariables {
        /// The missing names, sorted.
        names: Vec<String>,
    },
}

impl Error {
    /// The byte offset (into the original input) this error points at, if any.
    pub fn offset(&self) -> Option<usize> {
        match self {
            Error::Parse { offset, .. } => Some(*offset),
            Error::SubstringOutOfRange { span, .. } | Error::ExpansionTooLarge { span, .. } => {
                Some(span.start)
            }
            Error::MissingVariables { .. } => None,
        }
    }
}

/// Where variable values come from. `None` means "not set"; drone cannot tell unset from empty,
/// so [`eval()`] reads `None` as empty, while [`process`] uses it for the missing check.
pub trait Lookup {
    /// The value of `name`, as written in the template.
    fn lookup(&self, name: &str) -> Option<Cow<'_, [u8]>>;
}

impl<T: Lookup + ?Sized> Lookup for &T {
    fn lookup(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        (**self).lookup(name)
    }
}

macro_rules! map_lookup {
    ($($t:ty),*) => {$(
        impl Lookup for $t {
            fn lookup(&self, name: &str) -> Option<Cow<'_, [u8]>> {
                self.get(name).map(|v| Cow::Borrowed(AsRef::<[u8]>::as_ref(v)))
            }
        }
    )*};
}
map_lookup!(
    HashMap<String, String>,
    BTreeMap<String, String>,
    HashMap<String, Vec<u8>>,
    BTreeMap<String, Vec<u8>>
);

/// Adapts a closure to [`Lookup`].
pub struct FnLookup<F>(pub F);

impl<F: Fn(&str) -> Option<Vec<u8>>> Lookup for FnLookup<F> {
    fn lookup(&self, name: &str) -> Option<Cow<'_, [u8]>> {
        (self.0)(name).map(Cow::Owned)
    }
}

/// drone's `envsubst.Eval`: parse, then substitute with names looked up exactly as written and
/// unset variables read as empty. No legacy pre-pass, no missing check (`capkg subst --plain`).
pub fn eval(input: &[u8], lookup: &dyn Lookup) -> Result<Vec<u8>, Error> {
    let template = parse(input)?;
    let mut out = Vec::with_capacity(input.len());
    template.eval_into(lookup, &mut out)?;
    Ok(out)
}
