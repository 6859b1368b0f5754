//! How a scalar is written: plain as written when it can stand plain, quoted in the style it
//! had while the text allows it, a literal block with the right header, or double-quoted with
//! escapes for what no other style can carry (see [`super`]'s documentation).

use crate::yaml::node::{Node, ScalarStyle, Value};
use crate::yaml::resolve::Resolved;
use crate::yaml::scalar_analysis::{analyze_scalar, is_printable};

/// How a scalar is written.
pub(super) enum Form<'t> {
    /// Plain text (possibly empty: an empty plain null).
    Plain(&'t str),
    /// Text to write in single quotes (not yet escaped).
    Single(&'t str),
    /// A complete double-quoted scalar, escapes included.
    Double(String),
    /// A literal block: the header (`|`, `|2-`, …) and the text.
    Block { header: &'static str, text: &'t str },
}

/// Which quoting styles can carry a text (go-yaml's analysis, as far as this writer uses it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Quoting {
    /// Plain in block context, on one line.
    plain: bool,
    /// Single quotes, on one line.
    single: bool,
}

impl Quoting {
    fn of(text: &str) -> Quoting {
        if let Some(quoting) = Quoting::of_printable_ascii(text.as_bytes()) {
            return quoting;
        }
        let analysis = analyze_scalar(text.as_bytes());
        Quoting {
            plain: analysis.block_plain_allowed && !analysis.multiline,
            single: analysis.single_quoted_allowed && !analysis.multiline,
        }
    }

    /// [`analyze_scalar`]'s answer for a non-empty text of printable ASCII (no line break, no
    /// tab), computed with a few vectorised searches instead of a walk through the text; `None`
    /// for other texts.
    fn of_printable_ascii(text: &[u8]) -> Option<Quoting> {
        let (&first, &last) = (text.first()?, text.last()?);
        if !is_printable_ascii(text) {
            return None;
        }
        // Without breaks or special characters, single quotes always do.
        let single = true;
        let followed_by_space = text.get(1).is_none_or(|&b| b == b' ');
        let indicator = text.starts_with(b"---")
            || text.starts_with(b"...")
            || matches!(
                first,
                b'#' | b','
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'&'
                    | b'*'
                    | b'!'
                    | b'|'
                    | b'>'
                    | b'\''
                    | b'"'
                    | b'%'
                    | b'@'
                    | b'`'
            )
            || (matches!(first, b'?' | b':' | b'-') && followed_by_space)
            // `:` before a space or at the end, `#` after a space.
            || memchr::memchr2_iter(b':', b'#', text).any(|i| {
                if text[i] == b':' {
                    i > 0 && text.get(i + 1).is_none_or(|&b| b == b' ')
                } else {
                    i > 0 && text[i - 1] == b' '
                }
            });
        let plain = first != b' ' && last != b' ' && !indicator;
        Some(Quoting { plain, single })
    }
}

/// Every byte printable ASCII (no line break, no tab); a loop without early exit, which the
/// compiler vectorises.
fn is_printable_ascii(text: &[u8]) -> bool {
    text.iter()
        .fold(true, |all, &b| all & (b.wrapping_sub(0x20) < 0x5F))
}

/// Chooses how to write a scalar (see the module documentation).
pub(super) fn scalar_form(node: &Node, is_key: bool) -> Form<'_> {
    let (Value::Scalar { text }, Some(style)) = (node.value(), node.scalar_style()) else {
        return Form::Plain("");
    };
    match style {
        ScalarStyle::Plain => {
            if text.is_empty() {
                return Form::Plain(text);
            }
            let quoting = Quoting::of(text);
            if quoting.plain || !node.resolve().is_none_or(Resolved::is_string) {
                // As written: for a non-string the text is all the reader sees.
                Form::Plain(text)
            } else {
                let block = !is_key && text.contains('\n');
                quoted_or_block(text, Some(quoting), block, true)
            }
        }
        ScalarStyle::SingleQuoted => quoted_or_block(text, None, false, true),
        ScalarStyle::DoubleQuoted => Form::Double(double_quoted(text)),
        ScalarStyle::Literal | ScalarStyle::Folded => quoted_or_block(text, None, !is_key, false),
    }
}

/// A literal block when `block` and a literal block can carry the text; otherwise single quotes
/// when `prefer_single` and the text allows them; otherwise double quotes.
fn quoted_or_block<'t>(
    text: &'t str,
    quoting: Option<Quoting>,
    block: bool,
    prefer_single: bool,
) -> Form<'t> {
    if block && let Some(header) = literal_header(text) {
        return Form::Block { header, text };
    }
    if prefer_single && quoting.unwrap_or_else(|| Quoting::of(text)).single {
        return Form::Single(text);
    }
    Form::Double(double_quoted(text))
}

/// The literal block header for `text`, or `None` when a literal block cannot carry it.
fn literal_header(text: &str) -> Option<&'static str> {
    if text.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let plain_ascii = bytes.iter().fold(true, |all, &b| {
        all & (b.wrapping_sub(0x20) < 0x5F || b == b'\n' || b == b'\t')
    });
    let carries = plain_ascii
        || text.char_indices().all(|(i, c)| {
            c == '\t'
                || (c != '\r' && c != '\u{85}' && !matches!(c, '\u{2028}' | '\u{2029}') && {
                    // Four-byte characters are printable to YAML, if not to go-yaml's emitter.
                    c.len_utf8() == 4 || is_printable(bytes, i)
                })
        });
    if !carries {
        return None;
    }
    // Auto-detected indentation comes from the first line with a non-space character, and
    // all-space lines before it may not be longer: spell the indentation out in those cases.
    let mut needs_indicator = false;
    for line in text.split('\n') {
        let content = line.trim_start_matches(' ');
        if content.is_empty() {
            if !line.is_empty() {
                needs_indicator = true;
                break;
            }
            continue;
        }
        needs_indicator = line.starts_with([' ', '\t']);
        break;
    }
    let trailing_breaks = text.len() - text.trim_end_matches('\n').len();
    let header = match (needs_indicator, trailing_breaks) {
        (false, 0) => "|-",
        (true, 0) => "|2-",
        // `|` would drop trailing empty lines, and all of an all-empty text.
        (false, n) if n > 1 || n == text.len() => "|+",
        (true, n) if n > 1 || n == text.len() => "|2+",
        (false, _) => "|",
        (true, _) => "|2",
    };
    Some(header)
}

/// Writes `text` in single quotes, doubling the quotes inside.
pub(super) fn push_single_quoted(out: &mut String, text: &str) {
    out.push('\'');
    push_doubling_quotes(out, text);
    out.push('\'');
}

/// Writes `text` with every single quote doubled.
pub(super) fn push_doubling_quotes(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(at) = memchr::memchr(b'\'', rest.as_bytes()) {
        out.push_str(&rest[..=at]);
        out.push('\'');
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// Number of characters, counted without decoding them.
pub(super) fn char_count(text: &str) -> usize {
    text.bytes().filter(|&b| b & 0xC0 != 0x80).count()
}

/// A double-quoted scalar with YAML escapes for everything that is not printable.
pub(crate) fn double_quoted(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for (i, c) in text.char_indices() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{b}' => out.push_str("\\v"),
            '\u{c}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1b}' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if c.len_utf8() == 4 || is_printable(bytes, i) => out.push(c),
            c if (c as u32) <= 0xFF => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_headers() {
        assert_eq!(literal_header("a"), Some("|-"));
        assert_eq!(literal_header("a\n"), Some("|"));
        assert_eq!(literal_header("a\n\n"), Some("|+"));
        assert_eq!(literal_header("\n"), Some("|+"));
        assert_eq!(literal_header(" a\n"), Some("|2"));
        assert_eq!(literal_header("\n a"), Some("|2-"));
        assert_eq!(literal_header("  \nb\n"), Some("|2"));
        assert_eq!(literal_header("\tx\n"), Some("|2"));
        assert_eq!(literal_header("a\tb\n"), Some("|"));
        assert_eq!(literal_header("😀\n"), Some("|"));
        assert_eq!(literal_header(""), None);
        assert_eq!(literal_header("a\u{85}b"), None);
        assert_eq!(literal_header("a\u{feff}b"), None);
        assert_eq!(literal_header("a\u{7f}"), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn the_printable_ascii_shortcut_agrees_with_go_yamls_analysis(
            text in "[-a-z :#,?\\[\\]{}&*!|>'\"%@`.~=]{1,8}|(---|\\.\\.\\.)[a-z :#]{0,3}",
        ) {
            let analysis = analyze_scalar(text.as_bytes());
            let expected = Quoting {
                plain: analysis.block_plain_allowed && !analysis.multiline,
                single: analysis.single_quoted_allowed && !analysis.multiline,
            };
            proptest::prop_assert_eq!(Quoting::of_printable_ascii(text.as_bytes()), Some(expected));
        }
    }

    #[test]
    fn the_printable_ascii_shortcut_leaves_other_texts_to_the_analysis() {
        for text in ["", "a\nb", "a\tb", "é", "a\u{7f}"] {
            assert_eq!(
                Quoting::of_printable_ascii(text.as_bytes()),
                None,
                "{text:?}"
            );
        }
    }
}
