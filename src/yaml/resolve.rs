//! What a YAML 1.1 reader makes of a scalar: go-yaml v2's resolver, as Kubernetes and clusterctl
//! use it (through sigs.k8s.io/yaml).
//!
//! YAML 1.2 libraries read `on`, `y`, `0755` and `1_000` differently from go-yaml v2, so capkg
//! cannot take a Rust YAML crate's resolution for what a cluster will see. This module decides,
//! from a scalar's raw text, style and tag, what go-yaml v2 resolves it to; the writers use
//! [`plain_is_string`] to decide which strings must be quoted to keep their meaning.

use saphyr_parser::ScalarStyle;

/// A resolved scalar, as go-yaml v2 resolves it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Resolved {
    Null,
    Bool(bool),
    /// Integers that fit in an `i64`, and unsigned ones that only fit in a `u64`.
    Int(i128),
    Float(f64),
    /// A string; also what timestamps become when decoded into untyped data.
    Str,
    /// A plain scalar in timestamp form (`2001-12-14`): a string for untyped readers, but one a
    /// writer must quote.
    Timestamp,
    /// The merge key `<<`.
    Merge,
}

impl Resolved {
    /// True when an untyped reader ends up with a string.
    pub fn is_string(self) -> bool {
        matches!(self, Resolved::Str | Resolved::Timestamp)
    }

    /// The YAML type name used in messages (`bool`, `int`, …).
    pub fn type_name(self) -> &'static str {
        match self {
            Resolved::Null => "null",
            Resolved::Bool(_) => "bool",
            Resolved::Int(_) => "int",
            Resolved::Float(_) => "float",
            Resolved::Str | Resolved::Timestamp => "string",
            Resolved::Merge => "merge key",
        }
    }
}

/// Resolves a scalar with its style and tag (`!!str`-style shorthand, or `None`).
pub fn resolve(text: &str, style: ScalarStyle, tag: Option<&str>) -> Resolved {
    match tag {
        None | Some("!") => {}
        Some("!!str") | Some("!!binary") => return Resolved::Str,
        Some("!!null") | Some("!!bool") | Some("!!int") | Some("!!float") | Some("!!timestamp") => {
            // An explicit core tag: resolve the text as if plain (go-yaml then checks the type).
            return resolve_plain(text, tag == Some("!!timestamp"));
        }
        // Custom tags are left to the application: treat the text as a string.
        Some(_) => return Resolved::Str,
    }
    if style != ScalarStyle::Plain {
        return Resolved::Str;
    }
    resolve_plain(text, true)
}

/// True when `text` written as a plain scalar reads back as the same string.
pub fn plain_is_string(text: &str) -> bool {
    resolve_plain(text, true) == Resolved::Str
}

fn resolve_plain(text: &str, try_timestamp: bool) -> Resolved {
    if let Some(resolved) = resolve_word(text) {
        return resolved;
    }
    let Some(&first) = text.as_bytes().first() else {
        return Resolved::Null;
    };
    match first {
        b'.' => match parse_go_float(text) {
            Some(f) => Resolved::Float(f),
            None => Resolved::Str,
        },
        b'0'..=b'9' | b'+' | b'-' => {
            if try_timestamp && is_timestamp(text) {
                return Resolved::Timestamp;
            }
            let plain: String = text.chars().filter(|&c| c != '_').collect();
            if let Some(i) = parse_go_int(&plain) {
                return Resolved::Int(i);
            }
            if is_yaml_style_float(&plain)
                && let Some(f) = parse_go_float(&plain)
            {
                return Resolved::Float(f);
            }
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

fn resolve_word(text: &str) -> Option<Resolved> {
    Some(match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Resolved::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Resolved::Float(f64::NEG_INFINITY),
        "<<" => Resolved::Merge,
        _ => return None,
    })
}

/// Go's `strconv.ParseInt(s, 0, 64)`, falling back to `ParseUint(s, 0, 64)` as go-yaml does.
/// Underscores must already be removed.
fn parse_go_int(s: &str) -> Option<i128> {
    let (negative, unsigned) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(rest) = unsigned
        .strip_prefix("0x")
        .or_else(|| unsigned.strip_prefix("0X"))
    {
        (16, rest)
    } else if let Some(rest) = unsigned
        .strip_prefix("0o")
        .or_else(|| unsigned.strip_prefix("0O"))
    {
        (8, rest)
    } else if let Some(rest) = unsigned
        .strip_prefix("0b")
        .or_else(|| unsigned.strip_prefix("0B"))
    {
        (2, rest)
    } else if unsigned.len() > 1 && unsigned.starts_with('0') {
        (8, &unsigned[1..])
    } else {
        (10, unsigned)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = u128::from_str_radix(digits, radix).ok()?;
    if negative {
        // ParseInt's range is down to i64::MIN; ParseUint takes no sign.
        (magnitude <= i64::MIN.unsigned_abs() as u128).then(|| -(magnitude as i128))
    } else if magnitude <= u64::MAX as u128 {
        // Up to i64::MAX from ParseInt, beyond that from ParseUint.
        Some(magnitude as i128)
    } else {
        None
    }
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go's `strconv.ParseFloat(s, 64)` for the decimal forms YAML produces (`.5`, `1e3`, `-2.`),
/// plus the infinity and NaN words Go accepts.
fn parse_go_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    let unsigned = lower.trim_start_matches(['+', '-']);
    if matches!(unsigned, "inf" | "infinity" | "nan") {
        return lower.parse().ok();
    }
    if !s
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    s.parse().ok()
}

/// go-yaml v2's `parseTimestamp`: `YYYY-M-D`, optionally followed by a time
/// (`T`/`t`/space, `H:M:S`, optional fraction, optional `Z` or `±hh:mm` after `T`/`t`).
fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let mut i = 5;
    let number = |i: &mut usize, max_digits: usize| -> Option<u32> {
        let start = *i;
        while *i < b.len() && *i - start < max_digits && b[*i].is_ascii_digit() {
            *i += 1;
        }
        if *i == start {
            return None;
        }
        std::str::from_utf8(&b[start..*i]).ok()?.parse().ok()
    };
    let year: u32 = match s[..4].parse() {
        Ok(y) => y,
        Err(_) => return false,
    };
    let Some(month) = number(&mut i, 2) else {
        return false;
    };
    if b.get(i) != Some(&b'-') {
        return false;
    }
    i += 1;
    let Some(day) = number(&mut i, 2) else {
        return false;
    };
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return false;
    }
    if i == b.len() {
        return true;
    }
    let zone_allowed = match b[i] {
        b'T' | b't' => true,
        b' ' => false,
        _ => return false,
    };
    i += 1;
    let Some(hour) = number(&mut i, 2) else {
        return false;
    };
    if b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    let Some(minute) = number(&mut i, 2) else {
        return false;
    };
    if b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    let Some(second) = number(&mut i, 2) else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 59 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    if i == b.len() {
        return true;
    }
    if !zone_allowed {
        return false;
    }
    match b[i] {
        b'Z' => i + 1 == b.len(),
        b'+' | b'-' => {
            let rest = &b[i + 1..];
            rest.len() == 5
                && rest[0].is_ascii_digit()
                && rest[1].is_ascii_digit()
                && rest[2] == b':'
                && rest[3].is_ascii_digit()
                && rest[4].is_ascii_digit()
        }
        _ => false,
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(s: &str) -> Resolved {
        resolve(s, ScalarStyle::Plain, None)
    }

    #[test]
    fn yaml_1_1_words() {
        for word in ["y", "Y", "yes", "on", "ON", "True"] {
            assert_eq!(plain(word), Resolved::Bool(true), "{word}");
        }
        for word in ["n", "N", "no", "off", "Off", "FALSE"] {
            assert_eq!(plain(word), Resolved::Bool(false), "{word}");
        }
        for word in ["", "~", "null", "Null"] {
            assert_eq!(plain(word), Resolved::Null, "{word}");
        }
        assert_eq!(plain("<<"), Resolved::Merge);
        assert_eq!(plain("yEs"), Resolved::Str);
        assert_eq!(plain("nil"), Resolved::Str);
    }

    #[test]
    fn numbers_as_go_yaml_v2_reads_them() {
        assert_eq!(plain("0755"), Resolved::Int(493));
        assert_eq!(plain("0o755"), Resolved::Int(493));
        assert_eq!(plain("0x1F"), Resolved::Int(31));
        assert_eq!(plain("0b101"), Resolved::Int(5));
        assert_eq!(plain("-0b101"), Resolved::Int(-5));
        assert_eq!(plain("1_000"), Resolved::Int(1000));
        assert_eq!(plain("+1"), Resolved::Int(1));
        assert_eq!(plain("08"), Resolved::Float(8.0));
        assert_eq!(plain("1e3"), Resolved::Float(1000.0));
        assert_eq!(plain(".5"), Resolved::Float(0.5));
        assert_eq!(plain("1."), Resolved::Float(1.0));
        assert_eq!(
            plain("18446744073709551615"),
            Resolved::Int(u64::MAX as i128)
        );
        assert_eq!(
            plain("18446744073709551616"),
            Resolved::Float(18446744073709551616.0)
        );
        assert!(matches!(plain(".inf"), Resolved::Float(f) if f.is_infinite()));
        assert_eq!(plain("12:30"), Resolved::Str);
        assert_eq!(plain("1.2.3"), Resolved::Str);
        assert_eq!(plain("v1.2.3"), Resolved::Str);
        assert_eq!(plain("0x"), Resolved::Str);
        assert_eq!(plain("-"), Resolved::Str);
        assert_eq!(plain("1e"), Resolved::Str);
    }

    #[test]
    fn timestamps_are_strings_that_need_quoting() {
        assert_eq!(plain("2001-12-14"), Resolved::Timestamp);
        assert_eq!(plain("2001-12-14t21:59:43.10-05:00"), Resolved::Timestamp);
        assert_eq!(plain("2001-12-14 21:59:43.10"), Resolved::Timestamp);
        assert_eq!(plain("2001-02-30"), Resolved::Str);
        assert_eq!(plain("2001-12-14x"), Resolved::Str);
        assert!(!plain_is_string("2001-12-14"));
        assert!(plain("2001-12-14").is_string());
    }

    #[test]
    fn quoting_and_tags_make_strings() {
        assert_eq!(
            resolve("yes", ScalarStyle::SingleQuoted, None),
            Resolved::Str
        );
        assert_eq!(
            resolve("123", ScalarStyle::Plain, Some("!!str")),
            Resolved::Str
        );
        assert_eq!(resolve("123", ScalarStyle::Literal, None), Resolved::Str);
        assert_eq!(
            resolve("123", ScalarStyle::Plain, Some("!!int")),
            Resolved::Int(123)
        );
    }
}
