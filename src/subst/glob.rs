//! The glob matcher behind the trim operators (`#`, `##`, `%`, `%%`).
//!
//! drone/envsubst ships a modified copy of Go's `path.Match` (`path/match.go`): `*` and `?` also
//! match `/`, a trailing `*` matches the rest of the name, `^` (not `!`) negates a class, and the
//! last chunk must exhaust the name. Malformed patterns are reported as an error, which the trim
//! functions turn into "leave the value unchanged". This is a behavioural re-implementation on
//! bytes; like Go it decodes runes only for `?` and classes (an invalid byte is one U+FFFD rune).

use super::runes::{RUNE_ERROR, decode};

/// The pattern is malformed (Go's `ErrBadPattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadPattern;

/// Reports whether `name` matches `pattern` as a whole.
pub(crate) fn glob_match(mut pattern: &[u8], mut name: &[u8]) -> Result<bool, BadPattern> {
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            // A trailing star matches the rest of the name, slashes included.
            return Ok(true);
        }
        let (t, ok, err) = match_chunk(chunk, name);
        // The last chunk must exhaust the name, otherwise a star may still make it match.
        if ok && (t.is_empty() || !pattern.is_empty()) {
            name = t;
            continue;
        }
        if let Some(e) = err {
            return Err(e);
        }
        if star {
            // Leftmost match after skipping i+1 bytes.
            for i in 0..name.len() {
                let (t, ok, err) = match_chunk(chunk, &name[i + 1..]);
                if ok {
                    if pattern.is_empty() && !t.is_empty() {
                        continue;
                    }
                    name = t;
                    continue 'pattern;
                }
                if let Some(e) = err {
                    return Err(e);
                }
            }
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// Splits off the next chunk: leading stars, then everything up to the next star outside a class.
fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while let [b'*', rest @ ..] = pattern {
        pattern = rest;
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            // A trailing backslash is reported by match_chunk.
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &pattern[..i], &pattern[i..])
}

/// Matches a star-free chunk against the start of `s`; on success returns the rest of `s`.
fn match_chunk<'s>(mut chunk: &[u8], mut s: &'s [u8]) -> (&'s [u8], bool, Option<BadPattern>) {
    const FAIL: (&[u8], bool, Option<BadPattern>) = (b"", false, None);
    const BAD: (&[u8], bool, Option<BadPattern>) = (b"", false, Some(BadPattern));
    while let Some(&c) = chunk.first() {
        if s.is_empty() {
            return FAIL;
        }
        match c {
            b'[' => {
                let (r, n) = decode(s);
                s = &s[n..];
                chunk = &chunk[1..];
                let mut negated = false;
                if chunk.first() == Some(&b'^') {
                    negated = true;
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut nrange = 0;
                loop {
                    if chunk.first() == Some(&b']') && nrange > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let Ok((lo, rest)) = get_esc(chunk) else {
                        return BAD;
                    };
                    chunk = rest;
                    let mut hi = lo;
                    // get_esc guarantees a non-empty rest.
                    if chunk.first() == Some(&b'-') {
                        let Ok((h, rest)) = get_esc(&chunk[1..]) else {
                            return BAD;
                        };
                        hi = h;
                        chunk = rest;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    nrange += 1;
                }
                if matched == negated {
                    return FAIL;
                }
            }
            b'?' => {
                let (_, n) = decode(s);
                s = &s[n..];
                chunk = &chunk[1..];
            }
            _ => {
                let lit = if c == b'\\' {
                    chunk = &chunk[1..];
                    match chunk.first() {
                        Some(&l) => l,
                        None => return BAD,
                    }
                } else {
                    c
                };
                if lit != s[0] {
                    return FAIL;
                }
                s = &s[1..];
                chunk = &chunk[1..];
            }
        }
    }
    (s, true, None)
}

/// Reads one possibly escaped character of a class; errors on `-`, `]`, an invalid byte, or when
/// nothing would follow it (a class must be closed).
fn get_esc(mut chunk: &[u8]) -> Result<(char, &[u8]), BadPattern> {
    match chunk.first() {
        None | Some(b'-') | Some(b']') => return Err(BadPattern),
        Some(b'\\') => {
            chunk = &chunk[1..];
            if chunk.is_empty() {
                return Err(BadPattern);
            }
        }
        Some(_) => {}
    }
    let (r, n) = decode(chunk);
    if r == RUNE_ERROR && n == 1 {
        return Err(BadPattern);
    }
    let rest = &chunk[n..];
    if rest.is_empty() {
        return Err(BadPattern);
    }
    Ok((r, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> Result<bool, BadPattern> {
        glob_match(p.as_bytes(), n.as_bytes())
    }

    #[test]
    fn basics() {
        assert_eq!(m("*", "a/b"), Ok(true));
        assert_eq!(m("*.", "bash."), Ok(true));
        assert_eq!(m("a?c", "a/c"), Ok(true));
        assert_eq!(m("[!a]", "!"), Ok(true));
        assert_eq!(m("[^a]", "a"), Ok(false));
        assert_eq!(m("[a-c]x", "bx"), Ok(true));
        assert_eq!(m("\\*", "*"), Ok(true));
        assert_eq!(m("a\\", "ab"), Err(BadPattern));
        assert_eq!(m("[", "a"), Err(BadPattern));
        assert_eq!(m("[]", "a"), Err(BadPattern));
        assert_eq!(m("a*b*c", "axxbyyc"), Ok(true));
        assert_eq!(m("a*b", "abab"), Ok(true));
        assert_eq!(m("", ""), Ok(true));
        assert_eq!(m("", "a"), Ok(false));
        // An empty name never reaches the chunk, so a malformed pattern is not reported.
        assert_eq!(m("[", ""), Ok(false));
    }
}
