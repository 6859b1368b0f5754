//! go-yaml v2's scalar analysis (`yaml_emitter_analyze_scalar` and its character classes), which
//! both writers use to decide which styles can carry a scalar's text: [`super::write_clusterctl`]
//! as go-yaml's emitter does, [`super::write_layout`] to keep a maintainer's plain scalars plain
//! only where go-yaml would.

/// go-yaml's `yaml_emitter_analyze_scalar` results: which styles can carry a scalar's text.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Analysis {
    pub multiline: bool,
    pub flow_plain_allowed: bool,
    pub block_plain_allowed: bool,
    pub single_quoted_allowed: bool,
    pub block_allowed: bool,
}

/// Start of the character that ends just before byte `end`.
pub(super) fn last_char_start(s: &[u8], end: usize) -> usize {
    let mut i = end.saturating_sub(1);
    while i > 0 && s[i] & 0xC0 == 0x80 {
        i -= 1;
    }
    i
}

/// go-yaml's `width`: the length of the UTF-8 sequence starting at `i` (1 for a stray byte, so
/// loops always advance).
pub(super) fn char_width(s: &[u8], i: usize) -> usize {
    match s.get(i) {
        Some(b) if b & 0x80 == 0x00 => 1,
        Some(b) if b & 0xE0 == 0xC0 => 2,
        Some(b) if b & 0xF0 == 0xE0 => 3,
        Some(b) if b & 0xF8 == 0xF0 => 4,
        _ => 1,
    }
}

fn byte_at(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

pub(super) fn is_space(s: &[u8], i: usize) -> bool {
    byte_at(s, i) == b' '
}

fn is_blank(s: &[u8], i: usize) -> bool {
    matches!(byte_at(s, i), b' ' | b'\t')
}

/// CR, LF, NEL, LS, PS.
pub(super) fn is_break(s: &[u8], i: usize) -> bool {
    match byte_at(s, i) {
        b'\r' | b'\n' => true,
        0xC2 => byte_at(s, i + 1) == 0x85,
        0xE2 => byte_at(s, i + 1) == 0x80 && matches!(byte_at(s, i + 2), 0xA8 | 0xA9),
        _ => false,
    }
}

/// A blank, a break, or the end of the text.
fn is_blankz(s: &[u8], i: usize) -> bool {
    i >= s.len() || is_blank(s, i) || is_break(s, i) || byte_at(s, i) == 0
}

/// go-yaml's `is_printable` (which, among other things, counts no four-byte character as
/// printable).
pub(super) fn is_printable(s: &[u8], i: usize) -> bool {
    let b0 = byte_at(s, i);
    let b1 = byte_at(s, i + 1);
    let b2 = byte_at(s, i + 2);
    b0 == 0x0A
        || (0x20..=0x7E).contains(&b0)
        || (b0 == 0xC2 && b1 >= 0xA0)
        || (b0 > 0xC2 && b0 < 0xED)
        || (b0 == 0xED && b1 < 0xA0)
        || b0 == 0xEE
        || (b0 == 0xEF
            && !(b1 == 0xBB && b2 == 0xBF)
            && !(b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF)))
}

/// go-yaml's `is_bom(value, i)` looks at the start of the value whatever `i` is, so a value
/// starting with U+FEFF has every character escaped.
pub(super) fn starts_with_bom(s: &[u8]) -> bool {
    s.starts_with(&[0xEF, 0xBB, 0xBF])
}

/// Printable ASCII other than space and the characters that count as indicators after a
/// scalar's first character (`,?[]{}:#`): such a byte, past the first, changes nothing in
/// [`analyze_scalar`] but the "previous" flags.
const fn is_inert(b: u8) -> bool {
    matches!(b, 0x21..=0x7E) && !matches!(b, b',' | b'?' | b'[' | b']' | b'{' | b'}' | b':' | b'#')
}

/// [`is_inert`] or a space, by byte: one load per byte where descriptions are long runs of words.
static INERT_OR_SPACE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b == b' ' as usize || is_inert(b as u8);
        b += 1;
    }
    table
};

/// go-yaml's `yaml_emitter_analyze_scalar` (with unicode output enabled).
pub(super) fn analyze_scalar(value: &[u8]) -> Analysis {
    walk(value, true)
}

/// The analysis: go-yaml's byte-by-byte walk, with runs of inert bytes skipped in one search
/// when `skip_inert_runs` (the tests hold both ways to the same answer).
#[inline(always)]
fn walk(value: &[u8], skip_inert_runs: bool) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_indicators = false;
    let mut flow_indicators = false;
    let mut line_breaks = false;
    let mut special_characters = false;
    let mut leading_space = false;
    let mut leading_break = false;
    let mut trailing_space = false;
    let mut trailing_break = false;
    let mut break_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    let mut previous_break = false;

    if value.starts_with(b"---") || value.starts_with(b"...") {
        block_indicators = true;
        flow_indicators = true;
    }
    let mut preceded_by_whitespace = true;
    let mut i = 0;
    while i < value.len() {
        if skip_inert_runs && i > 0 && is_inert(value[i]) {
            // A run of printable ASCII that is neither indicator after the first character nor
            // space, with spaces inside it (words): an inert byte only clears the "previous"
            // flags, and a space between inert bytes sets only `previous_space` (it is neither
            // first nor last, and follows no break), which the next inert byte clears again. So
            // the run is skipped in one search, up to its last inert byte.
            let mut end = i + 1;
            // Eight bytes a step while all eight are in the run (one branch for eight, where
            // descriptions are long runs), then a byte a step.
            while let Some(eight) = value.get(end..end + 8) {
                if !eight
                    .iter()
                    .fold(true, |all, &b| all & INERT_OR_SPACE[usize::from(b)])
                {
                    break;
                }
                end += 8;
            }
            while end < value.len() && INERT_OR_SPACE[usize::from(value[end])] {
                end += 1;
            }
            while value[end - 1] == b' ' {
                end -= 1;
            }
            i = end;
            previous_space = false;
            previous_break = false;
            preceded_by_whitespace = false;
            continue;
        }
        let width = char_width(value, i);
        let followed_by_whitespace = i + width >= value.len() || is_blank(value, i + width);
        let c = value[i];
        if i == 0 {
            match c {
                b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>'
                | b'\'' | b'"' | b'%' | b'@' | b'`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                b'?' | b':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                b'-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                b',' | b'?' | b'[' | b']' | b'{' | b'}' => flow_indicators = true,
                b':' => {
                    flow_indicators = true;
                    if followed_by_whitespace {
                        block_indicators = true;
                    }
                }
                b'#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        if !is_printable(value, i) {
            special_characters = true;
        }
        if is_space(value, i) {
            if i == 0 {
                leading_space = true;
            }
            if i + width == value.len() {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break(value, i) {
            line_breaks = true;
            if i == 0 {
                leading_break = true;
            }
            if i + width == value.len() {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blankz(value, i);
        i += width;
    }

    let mut analysis = Analysis {
        multiline: line_breaks,
        flow_plain_allowed: true,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        analysis.flow_plain_allowed = false;
        analysis.block_plain_allowed = false;
    }
    if trailing_space {
        analysis.block_allowed = false;
    }
    if break_space {
        analysis.flow_plain_allowed = false;
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
    }
    if space_break || special_characters {
        analysis.flow_plain_allowed = false;
        analysis.block_plain_allowed = false;
        analysis.single_quoted_allowed = false;
        analysis.block_allowed = false;
    }
    if line_breaks {
        analysis.flow_plain_allowed = false;
        analysis.block_plain_allowed = false;
    }
    if flow_indicators {
        analysis.flow_plain_allowed = false;
    }
    if block_indicators {
        analysis.block_plain_allowed = false;
    }
    analysis
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte walk as go-yaml writes it, without [`is_inert`]'s shortcut.
    fn reference(value: &[u8]) -> Analysis {
        walk(value, false)
    }

    #[test]
    fn the_shortcut_gives_the_walk_s_answer() {
        let pieces = [
            "a",
            " ",
            "  ",
            "a b",
            " a  b ",
            "a #",
            "\n",
            "\r\n",
            "\t",
            ":",
            ": ",
            "#",
            " #",
            "-",
            "- ",
            "?",
            "? ",
            ",",
            "[",
            "]",
            "{",
            "}",
            "---",
            "...",
            "x",
            "abc",
            "é",
            "\u{2028}",
            "\u{85}",
            "\u{feff}",
            "\u{1F600}",
            "'",
            "\"",
            "|",
            ">",
            "%",
            "@",
            "`",
            "&",
            "*",
            "!",
            "\u{0}",
            "\u{7f}",
        ];
        let mut texts: Vec<String> = Vec::new();
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    texts.push(format!("{a}{b}{c}"));
                    texts.push(format!("{a}word{b}more{c}"));
                }
            }
        }
        for text in &texts {
            assert_eq!(
                format!("{:?}", analyze_scalar(text.as_bytes())),
                format!("{:?}", reference(text.as_bytes())),
                "{text:?}"
            );
        }
    }
}
