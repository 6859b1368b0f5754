//! `checksums.txt`: the `sha256sum` list capkg writes beside a release and reads back before
//! publishing and when verifying. One owner for its name, its SHA-256 form, how it is written
//! and how strictly it is read.
//!
//! Written: text-mode lines `<64 lower-case hex digits>  <name>\n`, sorted by name, for names
//! [`crate::files::check_release_name`] accepts (so no name needs `sha256sum`'s escaping).
//!
//! Read, strictly: every non-blank line is `<64 hex digits>  <name>` or, as `sha256sum -b`
//! writes it, `<64 hex digits> *<name>`, with an optional `\r` before the newline (a list saved on
//! Windows). Anything else is an error naming the line: a list capkg cannot read is not a list it
//! can check files against, and guessing at a hand-edited line could pass a file it should not.

/// The name of the list, in a release folder and among the published assets.
pub const CHECKSUMS_FILE: &str = "checksums.txt";

/// Lower-case hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// `sha256sum` text-mode lines (`<hex>  <name>`), one per file, sorted by name. A name the list
/// cannot hold on one line as written (a newline, a backslash, which `sha256sum` escapes, any
/// character outside [`crate::files::check_release_name`]) is an error, never a line.
pub fn write<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Result<String, crate::files::BadName> {
    let mut lines: Vec<(&str, String)> = Vec::new();
    for (name, bytes) in files {
        crate::files::check_release_name(name)?;
        lines.push((name, sha256_hex(bytes)));
    }
    lines.sort_by(|a, b| a.0.cmp(b.0));
    Ok(lines
        .into_iter()
        .map(|(name, hash)| format!("{hash}  {name}\n"))
        .collect())
}

/// One line of a list: the file's name and its SHA-256 in lower-case hex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub name: String,
    pub sha256: String,
}

/// A line that is not a `sha256sum` line; `line` counts from 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: not a `sha256sum` line (`<64 hex digits>  <file>`)")]
pub struct SyntaxError {
    pub line: usize,
}

/// Every entry of a list, in its order; blank lines are skipped, any other line that is not a
/// `sha256sum` line is an error (the module's documentation says why).
pub fn parse(list: &[u8]) -> Result<Vec<Entry>, SyntaxError> {
    let text = String::from_utf8_lossy(list);
    let mut entries = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (digest, name) = parse_line(line).ok_or(SyntaxError { line: index + 1 })?;
        entries.push(Entry {
            name: name.to_string(),
            sha256: digest.to_ascii_lowercase(),
        });
    }
    Ok(entries)
}

/// `<hex>  <name>` or `<hex> *<name>` (binary mode): the digest as written and the name.
fn parse_line(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_end_matches('\r');
    let digest = line.get(..64)?;
    if !digest.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let rest = line.get(64..)?;
    let name = rest
        .strip_prefix("  ")
        .or_else(|| rest.strip_prefix(" *"))?;
    (!name.is_empty()).then_some((digest, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_are_sha256sum_lines_sorted_by_name() {
        let text = write([("b.yaml", &b"b"[..]), ("a.yaml", &b""[..])]).unwrap();
        assert_eq!(
            text,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.yaml\n\
             3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b.yaml\n"
        );
        for name in ["a\nb.yaml", "a\\b.yaml", "a\rb.yaml", "a\u{7}.yaml"] {
            assert!(write([(name, &b""[..])]).is_err(), "{name:?}");
        }
    }

    #[test]
    fn what_is_written_reads_back() {
        let text = write([("x.yaml", &b"x"[..]), ("metadata.yaml", &b"m"[..])]).unwrap();
        let entries = parse(text.as_bytes()).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].name, "metadata.yaml");
        assert_eq!(entries[1].sha256, sha256_hex(b"x"));
    }

    #[test]
    fn lines_in_both_modes_with_windows_endings_and_upper_case() {
        let hex = "A".repeat(64);
        let list = format!("{hex}  x.yaml\r\n\n{hex} *y.yaml\n");
        let entries = parse(list.as_bytes()).unwrap();
        assert_eq!(
            entries,
            [
                Entry {
                    name: "x.yaml".into(),
                    sha256: "a".repeat(64)
                },
                Entry {
                    name: "y.yaml".into(),
                    sha256: "a".repeat(64)
                },
            ]
        );
    }

    #[test]
    fn anything_else_is_an_error_naming_its_line() {
        let hex = "a".repeat(64);
        for bad in [
            format!("{hex} x.yaml"),
            format!("{hex}  "),
            "zz  x".to_string(),
            format!("{}  x.yaml", &hex[..63]),
            "aaaa  metadata.yaml".to_string(),
        ] {
            let list = format!("{hex}  ok.yaml\n{bad}\n");
            assert_eq!(
                parse(list.as_bytes()),
                Err(SyntaxError { line: 2 }),
                "{bad}"
            );
        }
    }
}
