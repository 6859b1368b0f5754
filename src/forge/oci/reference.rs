//! A repository in a registry as capkg is given it (`[http://]HOST[:PORT]/PATH[:TAG]`), parsed
//! and checked as distribution/reference checks names and tags.

use reqwest::Url;

use super::OciError;
use crate::forge::login::LOGIN_SOURCES;

/// A repository in a registry, as `capkg publish oci --repository` and `targets: oci:` name it:
/// `[http://]HOST[:PORT]/PATH[:TAG]` (an `oci://` or `https://` prefix is accepted too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reference {
    /// `http://` was written: the registry speaks plain http (capkg accepts it for loopback
    /// addresses only).
    pub plain_http: bool,
    /// `host[:port]`.
    pub registry: String,
    /// The path inside the registry (`org/providers/aws`).
    pub repository: String,
    pub tag: Option<String>,
}

impl Reference {
    pub(crate) fn parse(text: &str) -> Result<Reference, OciError> {
        let bad = |reason: &str| OciError::BadReference {
            reference: text.to_string(),
            reason: reason.to_string(),
        };
        let trimmed = text.trim();
        let (plain_http, rest) = if let Some(rest) = trimmed.strip_prefix("http://") {
            (true, rest)
        } else if let Some(rest) = trimmed.strip_prefix("https://") {
            (false, rest)
        } else {
            (false, trimmed.strip_prefix("oci://").unwrap_or(trimmed))
        };
        let host_part = rest.split('/').next().unwrap_or_default();
        if let Some((_, after)) = host_part.rsplit_once('@') {
            // `user:password@host`: the message must not repeat what stands before the `@`.
            return Err(OciError::BadReference {
                reference: format!(
                    "{}[redacted]@{after}{}",
                    &trimmed[..trimmed.len() - rest.len()],
                    &rest[host_part.len()..]
                ),
                reason: format!(
                    "it holds a user name or password; give the login through {LOGIN_SOURCES}"
                ),
            });
        }
        if rest.contains('@') {
            return Err(bad(
                "a digest (`@sha256:…`) cannot be published to; name a tag or leave it out",
            ));
        }
        let Some((registry, path)) = rest.split_once('/') else {
            return Err(bad(
                "it names no repository: write `HOST[:PORT]/PATH[:TAG]` (`ghcr.io/org/provider`)",
            ));
        };
        if registry.is_empty()
            || !registry
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
        {
            return Err(bad(&format!("`{registry}` is not a registry host")));
        }
        let (repository, tag) = match path.rsplit_once(':') {
            Some((repository, tag)) if !tag.contains('/') => (repository, Some(tag)),
            _ => (path, None),
        };
        for component in repository.split('/') {
            if !valid_path_component(component) {
                return Err(bad(&format!(
                    "the path component `{component}` must be lower-case letters and digits, separated by `.`, `_`, `__` or `-`"
                )));
            }
        }
        if let Some(tag) = tag
            && !valid_tag(tag)
        {
            return Err(bad(&format!(
                "the tag `{tag}` must be 1 to 128 letters, digits, `_`, `.` or `-`, not starting with `.` or `-`"
            )));
        }
        Ok(Reference {
            plain_http,
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag: tag.map(str::to_string),
        })
    }

    /// `http://host:port` or `https://host[:port]`.
    pub(crate) fn base_url(&self) -> Result<Url, OciError> {
        let scheme = if self.plain_http { "http" } else { "https" };
        Url::parse(&format!("{scheme}://{}", self.registry)).map_err(|err| OciError::BadReference {
            reference: self.registry.clone(),
            reason: err.to_string(),
        })
    }

    /// `host/repository` (without tag).
    pub(crate) fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }
}

fn valid_path_component(component: &str) -> bool {
    // distribution/reference: [a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*
    let bytes = component.as_bytes();
    if bytes.is_empty()
        || !bytes[0].is_ascii_alphanumeric()
        || !bytes[bytes.len() - 1].is_ascii_alphanumeric()
    {
        return false;
    }
    let mut separator = String::new();
    for &b in bytes {
        if b.is_ascii_lowercase() || b.is_ascii_digit() {
            if !matches!(separator.as_str(), "" | "." | "_" | "__")
                && !separator.bytes().all(|c| c == b'-')
            {
                return false;
            }
            separator.clear();
        } else if matches!(b, b'.' | b'_' | b'-') {
            separator.push(char::from(b));
        } else {
            return false;
        }
    }
    true
}

/// `[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`.
pub(crate) fn valid_tag(tag: &str) -> bool {
    let bytes = tag.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 128
        && (bytes[0].is_ascii_alphanumeric() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}
