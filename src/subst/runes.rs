//! Go's view of text, reproduced on bytes.
//!
//! drone/envsubst works on Go strings: byte slices that are decoded into runes only where the code
//! asks for it, with an invalid byte read as U+FFFD of width 1. Its name rule, its case operators
//! and clusterctl's `%q` quoting all go through Go's `unicode` and `strconv` packages, whose rules
//! differ from Rust's `char` methods (simple one-to-one case mapping, general-category based letter
//! and digit tests). This file holds those primitives so the parser, the evaluator and the listing
//! code agree with Go and with each other.
//!
//! The character classes and case mappings themselves are [`crate::go_unicode`]'s.

use crate::go_unicode;
/// Go's `unicode.ToUpper` and `ToLower`, for the case operators.
pub(crate) use crate::go_unicode::{to_lower as go_to_lower, to_upper as go_to_upper};

/// What Go's `utf8.DecodeRune` returns for an invalid byte (and `string(rune)` for bad runes).
pub(crate) const RUNE_ERROR: char = '\u{FFFD}';

/// Decodes the first rune of `b` exactly like Go's `utf8.DecodeRune`: an invalid or truncated
/// sequence gives `(U+FFFD, 1)`, an empty slice gives `(U+FFFD, 0)`.
#[inline]
pub(crate) fn decode(b: &[u8]) -> (char, usize) {
    let Some(&b0) = b.first() else {
        return (RUNE_ERROR, 0);
    };
    if b0 < 0x80 {
        return (b0 as char, 1);
    }
    decode_multi(b, b0)
}

#[cold]
fn decode_multi(b: &[u8], b0: u8) -> (char, usize) {
    // (number of continuation bytes, allowed range of the first continuation byte)
    let (need, lo, hi) = match b0 {
        0xC2..=0xDF => (1, 0x80, 0xBF),
        0xE0 => (2, 0xA0, 0xBF),
        0xE1..=0xEC | 0xEE..=0xEF => (2, 0x80, 0xBF),
        0xED => (2, 0x80, 0x9F),
        0xF0 => (3, 0x90, 0xBF),
        0xF1..=0xF3 => (3, 0x80, 0xBF),
        0xF4 => (3, 0x80, 0x8F),
        _ => return (RUNE_ERROR, 1),
    };
    if b.len() <= need {
        return (RUNE_ERROR, 1);
    }
    if b[1] < lo || b[1] > hi {
        return (RUNE_ERROR, 1);
    }
    let mut cp = u32::from(b0) & (0x7F >> (need + 1));
    for &c in &b[1..=need] {
        if c & 0xC0 != 0x80 {
            return (RUNE_ERROR, 1);
        }
        cp = (cp << 6) | u32::from(c & 0x3F);
    }
    match char::from_u32(cp) {
        Some(c) => (c, need + 1),
        None => (RUNE_ERROR, 1),
    }
}

/// Iterates the runes of `b` the way Go's `for _, r := range s` does.
pub(crate) fn runes(b: &[u8]) -> impl Iterator<Item = char> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= b.len() {
            return None;
        }
        let (r, w) = decode(&b[i..]);
        i += w;
        Some(r)
    })
}

/// Appends the UTF-8 encoding of `c` (Go's `string(r)` / `WriteRune`).
#[inline]
pub(crate) fn push_char(out: &mut Vec<u8>, c: char) {
    let mut tmp = [0u8; 4];
    out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
}

/// drone's `acceptIdent`: `unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'`, that is a
/// letter of any L* category, a decimal digit (Nd only) or an underscore.
#[inline]
pub(crate) fn is_name_rune(c: char) -> bool {
    c == '_' || go_unicode::is_letter(c) || go_unicode::is_digit(c)
}

/// Go's `strings.ToUpper` / `strings.ToLower`: every rune mapped, invalid bytes become U+FFFD.
pub(crate) fn go_map_case(s: &[u8], upper: bool, out: &mut Vec<u8>) {
    if s.is_ascii() {
        out.extend(s.iter().map(|b| {
            if upper {
                b.to_ascii_uppercase()
            } else {
                b.to_ascii_lowercase()
            }
        }));
        return;
    }
    for r in runes(s) {
        push_char(
            out,
            if upper {
                go_to_upper(r)
            } else {
                go_to_lower(r)
            },
        );
    }
}

/// `strings.ToLower` on a `str` (used for viper's case-insensitive keys).
pub(crate) fn go_lower_str(s: &str) -> String {
    s.chars().map(go_to_lower).collect()
}

/// `strings.ToUpper` on a `str`.
pub(crate) fn go_upper_str(s: &str) -> String {
    s.chars().map(go_to_upper).collect()
}

/// Go's `strconv.Quote` (what `fmt.Sprintf("%q", s)` prints for a string), on bytes.
pub(crate) fn go_quote(s: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut i = 0;
    while i < s.len() {
        let (r, w) = decode(&s[i..]);
        if w == 1 && r == RUNE_ERROR {
            out.push_str("\\x");
            out.push(HEX[usize::from(s[i] >> 4)] as char);
            out.push(HEX[usize::from(s[i] & 0xF)] as char);
            i += 1;
            continue;
        }
        i += w;
        match r {
            '"' | '\\' => {
                out.push('\\');
                out.push(r);
            }
            _ if go_unicode::is_print(r) => out.push(r),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{C}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{B}' => out.push_str("\\v"),
            _ => {
                let v = u32::from(r);
                let (prefix, digits) = if v < 0x20 || v == 0x7F {
                    ("\\x", 2)
                } else if v < 0x10000 {
                    ("\\u", 4)
                } else {
                    ("\\U", 8)
                };
                out.push_str(prefix);
                for k in (0..digits).rev() {
                    out.push(HEX[((v >> (4 * k)) & 0xF) as usize] as char);
                }
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_matches_go() {
        assert_eq!(decode(b""), (RUNE_ERROR, 0));
        assert_eq!(decode(b"a"), ('a', 1));
        assert_eq!(decode("é".as_bytes()), ('é', 2));
        assert_eq!(decode(b"\xC3"), (RUNE_ERROR, 1));
        assert_eq!(decode(b"\xC0\x80"), (RUNE_ERROR, 1)); // overlong
        assert_eq!(decode(b"\xED\xA0\x80"), (RUNE_ERROR, 1)); // surrogate
        assert_eq!(decode(b"\xF4\x90\x80\x80"), (RUNE_ERROR, 1)); // > U+10FFFF
        assert_eq!(decode("😀".as_bytes()), ('😀', 4));
        assert_eq!(decode("\u{FFFD}".as_bytes()), (RUNE_ERROR, 3));
    }

    #[test]
    fn names_use_general_categories() {
        for c in ['a', 'Z', '_', '0', 'é', '\u{663}', 'ª', 'µ'] {
            assert!(is_name_rune(c), "{c:?}");
        }
        for c in [
            '²', 'Ⅻ', '\u{93E}', '\u{301}', '-', '.', ' ', '$', RUNE_ERROR,
        ] {
            assert!(!is_name_rune(c), "{c:?}");
        }
    }

    #[test]
    fn simple_case_mapping() {
        assert_eq!(go_to_upper('ß'), 'ß');
        assert_eq!(go_to_lower('\u{130}'), 'i');
        assert_eq!(go_to_upper('\u{1F80}'), '\u{1F88}');
        assert_eq!(go_to_upper('\u{1FB3}'), '\u{1FBC}');
        assert_eq!(go_to_upper('\u{1F88}'), '\u{1F88}');
        assert_eq!(go_to_lower('Σ'), 'σ');
    }

    #[test]
    fn quote_matches_go() {
        assert_eq!(go_quote(b"abc"), "\"abc\"");
        assert_eq!(
            go_quote(b"a\"b\\c\n\t\x00\x7f"),
            "\"a\\\"b\\\\c\\n\\t\\x00\\x7f\""
        );
        assert_eq!(go_quote(b"\xff\xc3"), "\"\\xff\\xc3\"");
        assert_eq!(
            go_quote("é\u{a0}\u{200b}\u{1F600}\u{E0001}".as_bytes()),
            "\"é\\u00a0\\u200b\u{1F600}\\U000e0001\""
        );
    }
}
