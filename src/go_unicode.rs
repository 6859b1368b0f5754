//! Go's `unicode` package, for the places capkg must answer as a Go program would: drone/envsubst's
//! variable names, case operators and `%q` quoting, flect's word splitting (CRD names) and go-yaml's key order.
//!
//! Go's classes are general categories (`IsLetter` is L*, `IsDigit` is Nd, `IsUpper` is Lu,
//! `IsPunct` is P*), not Rust's `char` properties (`is_alphabetic` adds Other_Alphabetic,
//! `is_numeric` adds No and Nl, `is_uppercase` adds Other_Uppercase such as Roman numerals). Its
//! case mappings are the simple, one rune to one rune ones.
//!
//! Unicode version: the category tables come from `unicode-general-category` (Unicode 16.0) and
//! the case tables from Rust's core library; Go 1.21+ ships Unicode 15.0. Characters assigned after
//! 15.0 can therefore differ; nothing in a real manifest is affected.

use unicode_general_category::{GeneralCategory, get_general_category};

/// `unicode.IsLetter`: categories Lu, Ll, Lt, Lm, Lo.
pub(crate) fn is_letter(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphabetic();
    }
    matches!(
        get_general_category(c),
        GeneralCategory::UppercaseLetter
            | GeneralCategory::LowercaseLetter
            | GeneralCategory::TitlecaseLetter
            | GeneralCategory::ModifierLetter
            | GeneralCategory::OtherLetter
    )
}

/// `unicode.IsDigit`: category Nd (so not `²` or `¼`).
pub(crate) fn is_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    get_general_category(c) == GeneralCategory::DecimalNumber
}

/// `unicode.IsUpper`: category Lu (so not `Ⅰ` or `Ⓐ`, which Rust's `is_uppercase` accepts).
pub(crate) fn is_upper(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_uppercase();
    }
    get_general_category(c) == GeneralCategory::UppercaseLetter
}

/// `unicode.IsPunct`: categories P*. In ASCII that leaves out the symbols `$ + < = > ^ `` | ~`,
/// which Rust's `is_ascii_punctuation` includes.
pub(crate) fn is_punct(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::ConnectorPunctuation
            | GeneralCategory::DashPunctuation
            | GeneralCategory::OpenPunctuation
            | GeneralCategory::ClosePunctuation
            | GeneralCategory::InitialPunctuation
            | GeneralCategory::FinalPunctuation
            | GeneralCategory::OtherPunctuation
    )
}

/// `strconv.IsPrint` (what `%q` leaves unescaped): letters, marks, numbers, punctuation,
/// symbols and the ASCII space.
pub(crate) fn is_print(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    use GeneralCategory as G;
    !matches!(
        get_general_category(c),
        G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
            | G::Control
            | G::Format
            | G::PrivateUse
            | G::Surrogate
            | G::Unassigned
    )
}

/// `unicode.ToUpper`: the simple (one rune to one rune) uppercase mapping.
pub(crate) fn to_upper(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    let mut it = c.to_uppercase();
    match (it.next(), it.next()) {
        (Some(u), None) => u,
        // Rust applies SpecialCasing; where that expands to several chars the simple mapping is
        // either the identity or, for the Greek letters with ypogegrammeni, the titlecase letter.
        _ => match u32::from(c) {
            0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => {
                char::from_u32(u32::from(c) + 8).unwrap_or(c)
            }
            0x1FB3 => '\u{1FBC}',
            0x1FC3 => '\u{1FCC}',
            0x1FF3 => '\u{1FFC}',
            _ => c,
        },
    }
}

/// `unicode.ToLower`: the simple (one rune to one rune) lowercase mapping.
pub(crate) fn to_lower(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    let mut it = c.to_lowercase();
    match (it.next(), it.next()) {
        (Some(l), None) => l,
        // Only U+0130 has a multi-char full lowercase mapping; its simple mapping is `i`.
        _ if c == '\u{130}' => 'i',
        _ => c,
    }
}

/// `unicode.ToTitle`: as [`to_upper`] except for the four Latin digraphs with a title-case form.
pub(crate) fn to_title(c: char) -> char {
    match c {
        '\u{1C4}'..='\u{1C6}' => '\u{1C5}',
        '\u{1C7}'..='\u{1C9}' => '\u{1C8}',
        '\u{1CA}'..='\u{1CC}' => '\u{1CB}',
        '\u{1F1}'..='\u{1F3}' => '\u{1F2}',
        c => to_upper(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_are_general_categories_not_rust_properties() {
        // Letters of every L* category; not Other_Alphabetic marks.
        assert!(is_letter('ǅ') && is_letter('ʰ') && is_letter('中') && is_letter('é'));
        assert!(!is_letter('\u{345}') && '\u{345}'.is_alphabetic());
        // Nd only: not superscripts, fractions or Roman numerals.
        assert!(is_digit('7') && is_digit('٣'));
        assert!(!is_digit('²') && !is_digit('¼') && !is_digit('Ⅳ') && 'Ⅳ'.is_numeric());
        // Lu only: not Other_Uppercase.
        assert!(is_upper('Ä') && is_upper('Σ'));
        assert!(!is_upper('\u{2160}') && !is_upper('Ⓐ') && 'Ⓐ'.is_uppercase());
        // P* only: not ASCII symbols.
        assert!(is_punct('_') && is_punct('-') && is_punct('¿') && is_punct('、'));
        for symbol in ['$', '+', '<', '=', '>', '^', '`', '|', '~'] {
            assert!(!is_punct(symbol), "{symbol}");
        }
    }

    #[test]
    fn printable_is_strconvs() {
        assert!(is_print(' ') && is_print('é') && is_print('€') && is_print('\u{301}'));
        assert!(!is_print('\t') && !is_print('\u{A0}') && !is_print('\u{200B}'));
        assert!(!is_print('\u{E000}') && !is_print('\u{2028}'));
    }

    #[test]
    fn case_mappings_are_simple() {
        assert_eq!(to_upper('ß'), 'ß');
        assert_eq!(to_upper('\u{1F80}'), '\u{1F88}');
        assert_eq!(to_upper('ǆ'), 'Ǆ');
        assert_eq!(to_lower('\u{130}'), 'i');
        assert_eq!(to_lower('Σ'), 'σ');
        assert_eq!(to_title('ǆ'), 'ǅ');
        assert_eq!(to_title('\u{1F80}'), '\u{1F88}');
        assert_eq!(to_title('a'), 'A');
    }
}
