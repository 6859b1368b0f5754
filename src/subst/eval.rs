//! The evaluator: a parsed [`Template`] plus a variable lookup to output bytes.
//!
//! This reproduces drone/envsubst's `template.go` (arguments evaluated first, then the variable
//! looked up, then the operator applied) and its operator functions in `funcs.go`, which in turn
//! lean on Go's `strings` and `strconv` packages. Those library semantics are spelled out here on
//! bytes: `strconv.Atoi` for substring numbers, `strings.Replace` (including its empty-pattern
//! behaviour), rune-wise reversal for the `%` trims, simple case mapping. Where Go would panic (a
//! substring slice out of range) an [`Error::SubstringOutOfRange`] is returned instead.

use std::borrow::Cow;

use super::glob::glob_match;
use super::parse::{CaseOp, Func, Node, Op, ReplaceOp, Template, TrimOp};
use super::runes::{decode, go_map_case, go_to_lower, go_to_upper, push_char, runes};
use super::{Error, Lookup, Span};

impl Template<'_> {
    /// Evaluates the template, appending the output to `out`. Unset variables read as empty, as in
    /// drone's `Eval`. On error `out` may hold a partial result; callers should discard it.
    pub fn eval_into(&self, lookup: &dyn Lookup, out: &mut Vec<u8>) -> Result<(), Error> {
        for node in &self.nodes {
            match node {
                Node::Text(t) => t.write_to(out),
                Node::Func(f) => eval_func(f, lookup, out)?,
            }
        }
        Ok(())
    }

    /// Evaluates the template into a new buffer.
    pub fn eval(&self, lookup: &dyn Lookup) -> Result<Vec<u8>, Error> {
        // The input length is a good first guess for the output length.
        let mut out = Vec::with_capacity(self.nodes.last().map_or(0, |n| n.span().end));
        self.eval_into(lookup, &mut out)?;
        Ok(out)
    }
}

fn eval_func(f: &Func<'_>, lookup: &dyn Lookup, out: &mut Vec<u8>) -> Result<(), Error> {
    let mut args: Vec<Cow<'_, [u8]>> = Vec::with_capacity(f.args.len());
    for a in &f.args {
        match a {
            Node::Text(t) => args.push(t.value()),
            Node::Func(g) => {
                let mut buf = Vec::new();
                eval_func(g, lookup, &mut buf)?;
                args.push(Cow::Owned(buf));
            }
        }
    }
    let value = lookup.lookup(f.name).unwrap_or(Cow::Borrowed(b""));
    apply_into(f.op, &value, &args, out).map_err(|e| e.at(f.name, f.span))
}

/// Why an operator function failed: where Go panics, or where the result would be absurdly large.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// Go's `s[pos:end]` with `end < pos`.
    Slice { offset: i64, length: i64 },
    /// A replacement result above [`MAX_EXPANSION`] bytes.
    TooLarge { size: u128 },
}

/// The largest result one replace operator may produce. Nested replacements multiply sizes
/// (`${A//${E}/${A//${E}/…}}`), so a small template could otherwise exhaust memory; Go has no
/// limit and would run out of memory instead.
pub const MAX_EXPANSION: usize = 1 << 28;

impl Failure {
    fn at(self, name: &str, span: Span) -> Error {
        match self {
            Failure::Slice { offset, length } => Error::SubstringOutOfRange {
                name: name.to_owned(),
                offset,
                length,
                span,
            },
            Failure::TooLarge { size } => Error::ExpansionTooLarge {
                name: name.to_owned(),
                size,
                span,
            },
        }
    }
}

/// Applies one operator's function (drone's `toLen`, `toSubstr`, `trimShortestPrefix`, …) to a
/// value and its evaluated arguments. Exposed so the operator functions can be tested on their
/// own. (drone selects `toLen` or `trimShortestPrefix` for `#` by argument count; the parser
/// already tells them apart, so here each [`Op`] is one function.)
pub fn apply(op: Op, value: &[u8], args: &[&[u8]]) -> Result<Vec<u8>, Error> {
    let args: Vec<Cow<'_, [u8]>> = args.iter().map(|a| Cow::Borrowed(*a)).collect();
    let mut out = Vec::new();
    apply_into(op, value, &args, &mut out).map_err(|e| e.at("", Span { start: 0, end: 0 }))?;
    Ok(out)
}

fn apply_into(op: Op, s: &[u8], args: &[Cow<'_, [u8]>], out: &mut Vec<u8>) -> Result<(), Failure> {
    match op {
        Op::Plain | Op::Case(CaseOp::UpperLower | CaseOp::LowerUpper) | Op::Default(_) => {
            // toDefault
            if s.is_empty() && !args.is_empty() {
                for a in args {
                    out.extend_from_slice(a);
                }
            } else {
                out.extend_from_slice(s);
            }
        }
        Op::Length => {
            let mut buf = itoa_buf(s.len());
            out.append(&mut buf);
        }
        Op::Trim(TrimOp::ShortestPrefix) => match args.first() {
            Some(p) => trim(s, p, true, out),
            None => out.extend_from_slice(s),
        },
        Op::Trim(TrimOp::LongestPrefix) => match args.first() {
            Some(p) => trim(s, p, false, out),
            None => out.extend_from_slice(s),
        },
        Op::Trim(TrimOp::ShortestSuffix | TrimOp::LongestSuffix) => match args.first() {
            Some(p) => {
                let rs = reverse(s);
                let rp = reverse(p);
                let mut t = Vec::new();
                trim(&rs, &rp, op == Op::Trim(TrimOp::ShortestSuffix), &mut t);
                out.extend_from_slice(&reverse(&t));
            }
            None => out.extend_from_slice(s),
        },
        Op::Case(c) => case(s, c, out),
        Op::Substring => substr(s, args, out)?,
        Op::Replace(r) => replace_op(s, r, args, out)?,
    }
    Ok(())
}

fn itoa_buf(n: usize) -> Vec<u8> {
    n.to_string().into_bytes()
}

fn case(s: &[u8], c: CaseOp, out: &mut Vec<u8>) {
    match c {
        CaseOp::UpperAll => go_map_case(s, true, out),
        CaseOp::LowerAll => go_map_case(s, false, out),
        CaseOp::UpperFirst | CaseOp::LowerFirst => {
            if s.is_empty() {
                return;
            }
            let (r, n) = decode(s);
            let m = if c == CaseOp::UpperFirst {
                go_to_upper(r)
            } else {
                go_to_lower(r)
            };
            push_char(out, m);
            out.extend_from_slice(&s[n..]);
        }
        CaseOp::UpperLower | CaseOp::LowerUpper => out.extend_from_slice(s),
    }
}

/// Go's `strconv.Atoi` on a 64-bit platform: optional sign, at least one ASCII digit, no
/// underscores, no prefixes, in `i64` range.
pub(crate) fn go_atoi(s: &[u8]) -> Option<i64> {
    let (neg, digits) = match s.first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        let d = i64::from(d - b'0');
        v = v.checked_mul(10)?;
        v = if neg {
            v.checked_sub(d)?
        } else {
            v.checked_add(d)?
        };
    }
    Some(v)
}

/// drone's `toSubstr`, with Go's int arithmetic (offset + length wraps) and slice checks.
fn substr(s: &[u8], args: &[Cow<'_, [u8]>], out: &mut Vec<u8>) -> Result<(), Failure> {
    let Some(a0) = args.first() else {
        out.extend_from_slice(s);
        return Ok(());
    };
    let Some(mut pos) = go_atoi(a0) else {
        out.extend_from_slice(s);
        return Ok(());
    };
    // A Go string is never longer than i64::MAX.
    let len = i64::try_from(s.len()).unwrap_or(i64::MAX);
    if pos < 0 {
        pos = (len + pos).max(0);
    }
    // 0 <= pos here; `rest` is s[pos:] when pos < len.
    let rest = |pos: i64| -> &[u8] { if pos < len { &s[pos as usize..] } else { b"" } };
    let Some(a1) = args.get(1) else {
        out.extend_from_slice(rest(pos));
        return Ok(());
    };
    let Some(length) = go_atoi(a1) else {
        out.extend_from_slice(s);
        return Ok(());
    };
    let end = pos.wrapping_add(length);
    if end >= len {
        out.extend_from_slice(rest(pos));
        return Ok(());
    }
    // Go evaluates s[pos:end]: it panics unless pos <= end (end < len holds here).
    if end < pos {
        return Err(Failure::Slice {
            offset: pos,
            length,
        });
    }
    out.extend_from_slice(&s[pos as usize..end as usize]);
    Ok(())
}

/// drone's `trimShortest` (shortest = true) and `trimLongest`: the candidates are the prefixes of
/// `s` from full length down to one byte; a pattern error returns `s` unchanged.
fn trim(s: &[u8], pattern: &[u8], shortest: bool, out: &mut Vec<u8>) {
    let mut found: Option<usize> = None;
    for l in (1..=s.len()).rev() {
        match glob_match(pattern, &s[..l]) {
            Err(_) => {
                out.extend_from_slice(s);
                return;
            }
            Ok(true) => {
                found = Some(l);
                if !shortest {
                    break;
                }
            }
            Ok(false) => {}
        }
    }
    match found {
        Some(l) => out.extend_from_slice(&s[l..]),
        None => out.extend_from_slice(s),
    }
}

/// drone's `reverse`: `[]rune(s)` reversed and re-encoded (invalid bytes become U+FFFD).
fn reverse(s: &[u8]) -> Vec<u8> {
    let rs: Vec<char> = runes(s).collect();
    let mut out = Vec::with_capacity(s.len());
    for &r in rs.iter().rev() {
        push_char(&mut out, r);
    }
    out
}

fn replace_op(
    s: &[u8],
    op: ReplaceOp,
    args: &[Cow<'_, [u8]>],
    out: &mut Vec<u8>,
) -> Result<(), Failure> {
    let empty: &[u8] = b"";
    match (op, args) {
        (ReplaceOp::First | ReplaceOp::All, []) => out.extend_from_slice(s),
        (ReplaceOp::First | ReplaceOp::All, [old, rest @ ..]) => {
            let new = rest.first().map_or(empty, |n| &**n);
            let n = if op == ReplaceOp::First {
                Some(1)
            } else {
                None
            };
            go_replace(s, old, new, n, out)?;
        }
        (ReplaceOp::Prefix, [old, new]) => {
            if s.starts_with(old) {
                go_replace(s, old, new, Some(1), out)?;
            } else {
                out.extend_from_slice(s);
            }
        }
        (ReplaceOp::Suffix, [old, new]) => {
            if s.ends_with(old) {
                out.extend_from_slice(&s[..s.len() - old.len()]);
                out.extend_from_slice(new);
            } else {
                out.extend_from_slice(s);
            }
        }
        // `/#` and `/%` need exactly two arguments; otherwise the value is returned unchanged.
        _ => out.extend_from_slice(s),
    }
    Ok(())
}

/// Go's `strings.Replace(s, old, new, n)` with `n` = `None` for -1. An empty `old` matches
/// before every rune and at the end. Fails when the result would exceed [`MAX_EXPANSION`].
fn go_replace(
    s: &[u8],
    old: &[u8],
    new: &[u8],
    n: Option<usize>,
    out: &mut Vec<u8>,
) -> Result<(), Failure> {
    let limit = n.unwrap_or(usize::MAX);
    if old.is_empty() {
        // Go: Count(s, "") = RuneCount(s) + 1 insertion points.
        let points = runes(s).count() + 1;
        let count = points.min(limit);
        check_size(s.len(), count, new.len(), 0)?;
        let mut start = 0;
        for i in 0..count {
            if i > 0 {
                let (_, w) = decode(&s[start..]);
                out.extend_from_slice(&s[start..start + w]);
                start += w;
            }
            out.extend_from_slice(new);
        }
        out.extend_from_slice(&s[start..]);
        return Ok(());
    }
    let finder = memchr::memmem::Finder::new(old);
    if new.len() > old.len() {
        let count = finder.find_iter(s).take(limit).count();
        check_size(s.len(), count, new.len(), old.len())?;
    }
    let mut start = 0;
    for _ in 0..limit {
        let Some(k) = finder.find(&s[start..]) else {
            break;
        };
        out.extend_from_slice(&s[start..start + k]);
        out.extend_from_slice(new);
        start += k + old.len();
    }
    out.extend_from_slice(&s[start..]);
    Ok(())
}

fn check_size(len: usize, count: usize, new: usize, old: usize) -> Result<(), Failure> {
    let size = len as u128 + count as u128 * new as u128 - count as u128 * old as u128;
    if size > MAX_EXPANSION as u128 {
        return Err(Failure::TooLarge { size });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rep(s: &str, old: &str, new: &str, n: Option<usize>) -> String {
        let mut out = Vec::new();
        go_replace(s.as_bytes(), old.as_bytes(), new.as_bytes(), n, &mut out).unwrap_or_default();
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn replace_like_go() {
        assert_eq!(rep("abc", "", "x", None), "xaxbxcx");
        assert_eq!(rep("abc", "", "x", Some(1)), "xabc");
        assert_eq!(rep("", "", "x", None), "x");
        assert_eq!(rep("banana", "a", "", None), "bnn");
        assert_eq!(rep("aaa", "aa", "b", None), "ba");
        assert_eq!(rep("éa", "", "-", None), "-é-a-");
    }

    #[test]
    fn atoi_like_go() {
        assert_eq!(go_atoi(b"0"), Some(0));
        assert_eq!(go_atoi(b"+7"), Some(7));
        assert_eq!(go_atoi(b"-007"), Some(-7));
        assert_eq!(go_atoi(b"-9223372036854775808"), Some(i64::MIN));
        assert_eq!(go_atoi(b"9223372036854775808"), None);
        assert_eq!(go_atoi(b""), None);
        assert_eq!(go_atoi(b"-"), None);
        assert_eq!(go_atoi(b" 1"), None);
        assert_eq!(go_atoi(b"1_0"), None);
        assert_eq!(go_atoi(b"0x1"), None);
    }
}
