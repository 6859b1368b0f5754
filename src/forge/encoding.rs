//! The two encodings forges and registries use: base64 (Docker config `auth`s, HTTP Basic
//! credentials) and percent-encoding (a project path or a tag in a URL path segment).

/// Standard or URL-safe base64, padding optional (as Docker config `auth`s are written); `None`
/// for anything else.
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    use base64::Engine;
    use base64::engine::general_purpose::{
        STANDARD_NO_PAD_INDIFFERENT, URL_SAFE_NO_PAD_INDIFFERENT,
    };
    let text = text.trim();
    STANDARD_NO_PAD_INDIFFERENT
        .decode(text)
        .or_else(|_| URL_SAFE_NO_PAD_INDIFFERENT.decode(text))
        .ok()
}

/// Standard base64 with `=` padding (HTTP Basic credentials).
pub(crate) fn base64_padded(bytes: &[u8]) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes)
}

/// What [`percent_encode`] escapes: everything but RFC 3986's unreserved characters.
const NOT_UNRESERVED: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// Percent-encodes everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`), in
/// upper-case hex: the one escaping capkg uses for a URL path segment (a GitLab project path, a
/// tag).
pub(crate) fn percent_encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, NOT_UNRESERVED).to_string()
}

/// Decodes `%XX` escapes (`XX` two hex digits); any other `%` stays as it is.
pub(crate) fn percent_decode(text: &str) -> Vec<u8> {
    percent_encoding::percent_decode_str(text).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_percent_escaping() {
        assert_eq!(percent_encode("group/sub/p.x"), "group%2Fsub%2Fp.x");
        assert_eq!(percent_encode("v1.2.3+build.1"), "v1.2.3%2Bbuild.1");
        assert_eq!(percent_decode("a%2fb%2Fc%zz%"), b"a/b/c%zz%");
        // Two hex digits or nothing: a sign is not a digit.
        assert_eq!(percent_decode("a%+Fb%-1c"), b"a%+Fb%-1c");
        assert_eq!(percent_encode("caf\u{e9} ~x"), "caf%C3%A9%20~x");
    }

    #[test]
    fn base64_round_trips() {
        for text in ["", "a", "ab", "abc", "user:pässword"] {
            let encoded = base64_padded(text.as_bytes());
            assert_eq!(base64_decode(&encoded).unwrap(), text.as_bytes());
        }
        assert_eq!(base64_padded(b"ab"), "YWI=");
        assert!(base64_decode("a*b").is_none());
    }
}
