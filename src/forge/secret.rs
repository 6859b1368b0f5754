//! Tokens, and keeping them out of everything capkg prints: a [`Secret`] never shows itself,
//! and [`redact`] removes every secret the process knows (each one read, the token variables'
//! values, the Docker config file's logins) from any text, in plain, percent-encoded and base64
//! forms.

use std::fmt;

use super::docker_config::{docker_auths_secrets, docker_config_file, docker_config_secrets};
use super::encoding::percent_encode;

/// A token. `Debug` never shows it and there is no `Display`; [`Secret::redact`] removes it
/// (and its usual encodings) from text that came back from a server. Every secret made is also
/// remembered for [`redact`], so text from anywhere in the process can be cleaned.
#[derive(Clone)]
pub(crate) struct Secret(String);

/// The one list [`redact`] removes: every secret this process has read, whoever read it.
static KNOWN_SECRETS: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// The variables capkg and the tools around it read secrets from; [`redact`] removes their
/// values even when capkg has not read them yet (a components command runs before a login is
/// resolved, say).
pub(crate) const TOKEN_VARIABLES: &[&str] = &[
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITLAB_TOKEN",
    "GITLAB_ACCESS_TOKEN",
    "CI_JOB_TOKEN",
    "CI_REGISTRY_PASSWORD",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    // OIDC identity tokens for keyless signing (src/sigstore/sign.rs).
    "SIGSTORE_ID_TOKEN",
    "CAPKG_SIGSTORE_ID_TOKEN",
    "OCI_PASSWORD",
    "OCI_ACCESS_TOKEN",
];

impl Secret {
    /// `None` for an empty value (an unset CI variable is often set to "").
    pub(crate) fn new(value: impl Into<String>) -> Option<Secret> {
        let value = value.into();
        let trimmed = value.trim();
        if trimmed.is_empty() {
            return None;
        }
        remember(trimmed);
        Some(Secret(trimmed.to_string()))
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the token, percent-encoded or inside base64 (`Bearer T`,
    /// `user:T`, `x-access-token:T`, `oauth2:T`, any prefix), replaced by `[redacted]`.
    pub(crate) fn redact(&self, text: &str) -> String {
        redact_token(&self.0, text)
    }
}

/// Adds a secret that is not kept as a [`Secret`] (a Docker config's base64 `auth`, say) to
/// the list [`redact`] removes. Blank values are ignored.
pub(crate) fn remember(value: &str) {
    let value = value.trim();
    if value.is_empty() {
        return;
    }
    if let Ok(mut known) = KNOWN_SECRETS.lock()
        && !known.iter().any(|k| k == value)
    {
        known.push(value.to_string());
    }
}

/// `text` with every secret this process knows removed, in plain, percent-encoded and base64
/// forms: each one read so far ([`Secret::new`], [`remember`]), the values of
/// [`TOKEN_VARIABLES`], and the logins of the Docker config file ([`docker_config_file`]), which
/// join the list on the first call whether or not a registry was contacted yet.
/// Call it on any text that may hold a token before it is printed, written or cut: errors,
/// logs, JSON, CI summaries, a subprocess's output. Values shorter than [`MIN_TOKEN`]
/// characters are left alone here (they would match ordinary words; no forge issues tokens
/// that short); [`Secret::redact`] removes its own token whatever its length.
pub(crate) fn redact(text: &str) -> String {
    remember_environment();
    let mut tokens: Vec<String> = KNOWN_SECRETS
        .lock()
        .map(|known| known.clone())
        .unwrap_or_default();
    tokens.retain(|t| t.chars().count() >= MIN_TOKEN);
    // Longer tokens first, so a token that contains another is removed whole.
    tokens.sort_by_key(|t| std::cmp::Reverse(t.len()));
    let mut out = text.to_string();
    for token in &tokens {
        out = redact_token(token, &out);
    }
    out
}

/// Puts the environment's secrets on the list: the variables on every call (cheap, and a
/// variable set later still counts), the Docker config file once.
fn remember_environment() {
    static DOCKER_CONFIG_READ: std::sync::Once = std::sync::Once::new();
    for name in TOKEN_VARIABLES {
        if let Ok(value) = std::env::var(name) {
            remember(&value);
        }
    }
    DOCKER_CONFIG_READ.call_once(|| {
        let env = |name: &str| std::env::var(name).ok();
        if let Some(path) = docker_config_file(&env) {
            for secret in docker_config_secrets(&path) {
                remember(&secret);
            }
        }
        // GitLab CI's Docker config, given as a variable's text.
        if let Some(text) = env("DOCKER_AUTH_CONFIG") {
            for secret in docker_auths_secrets(&text) {
                remember(&secret);
            }
        }
    });
}

/// Shortest value [`redact`] treats as a token.
pub(crate) const MIN_TOKEN: usize = 8;

/// Shortest encoded fragment worth removing: shorter ones would also match ordinary text.
const MIN_FRAGMENT: usize = 6;

fn redact_token(token: &str, text: &str) -> String {
    let mut out = text.to_string();
    for form in token_forms(token) {
        if out.contains(&form) {
            out = out.replace(&form, "[redacted]");
        }
    }
    out
}

/// The token and the strings that encode it: percent-encoded (either hex case), and the part of
/// any base64 text holding `PREFIX + token` that depends only on the token: base64 works in
/// groups of three bytes, so whatever the prefix, the groups wholly inside the token encode to
/// one of three strings (one per prefix length modulo 3), in either alphabet.
fn token_forms(token: &str) -> Vec<String> {
    let mut forms = vec![token.to_string()];
    let upper = percent_encode(token);
    if upper != token {
        forms.push(upper.clone());
        forms.push(lowercase_escapes(&upper));
    }
    let bytes = token.as_bytes();
    for skip in 0..3 {
        let Some(rest) = bytes.get(skip..) else {
            continue;
        };
        let whole = rest.len() / 3 * 3;
        let encoded = base64(
            &rest[..whole],
            &base64::engine::general_purpose::STANDARD_NO_PAD,
        );
        if encoded.len() >= MIN_FRAGMENT {
            forms.push(base64(
                &rest[..whole],
                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            ));
            forms.push(encoded);
        }
    }
    forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
    forms.dedup();
    forms
}

/// Base64 of whole three-byte groups (the callers pass only those), no padding.
fn base64(bytes: &[u8], engine: &base64::engine::GeneralPurpose) -> String {
    base64::Engine::encode(engine, bytes)
}

fn lowercase_escapes(encoded: &str) -> String {
    let mut out = String::with_capacity(encoded.len());
    let mut rest = encoded;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..at]);
        let escape = rest.get(at..at + 3).unwrap_or(&rest[at..]);
        out.push_str(&escape.to_ascii_lowercase());
        rest = &rest[at + escape.len()..];
    }
    out.push_str(rest);
    out
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forge::credential::Credential;

    #[test]
    fn redaction_covers_percent_and_base64_forms_whatever_the_prefix() {
        let token = "glpat-Ab/cD+eF=gh_ij~kl";
        let secret = Secret::new(token).unwrap();
        // Padded with spaces to whole groups, so the test can use the module's encoder.
        let encode = |text: &str, alphabet| {
            let mut bytes = text.as_bytes().to_vec();
            while !bytes.len().is_multiple_of(3) {
                bytes.push(b' ');
            }
            base64(&bytes, alphabet)
        };
        let b64 = |text: &str| encode(text, &base64::engine::general_purpose::STANDARD_NO_PAD);
        let url_safe = |text: &str| encode(text, &base64::engine::general_purpose::URL_SAFE_NO_PAD);
        let forms = [
            token.to_string(),
            "glpat-Ab%2FcD%2BeF%3Dgh_ij~kl".to_string(),
            "glpat-Ab%2fcD%2beF%3dgh_ij~kl".to_string(),
            b64(&format!("Bearer {token}")),
            b64(&format!("user:{token}")),
            b64(&format!("x-access-token:{token}")),
            b64(&format!("oauth2:{token}")),
            b64(&format!("ab:{token}")),
            url_safe(&format!("x-access-token:{token}")),
        ];
        for form in &forms {
            let text = format!("before {form} after");
            let redacted = secret.redact(&text);
            assert!(!redacted.contains(form.as_str()), "{form} -> {redacted}");
            assert!(redacted.contains("[redacted]"), "{redacted}");
            assert!(redacted.starts_with("before ") && redacted.ends_with(" after"));
            assert_eq!(redact(&text), redacted, "the catch-all knows every Secret");
        }
        assert_eq!(secret.redact("nothing here"), "nothing here");
    }

    #[test]
    fn remembered_values_are_redacted() {
        remember("remembered-value-0123");
        assert_eq!(redact("x remembered-value-0123 y"), "x [redacted] y");
        assert!(TOKEN_VARIABLES.contains(&"OCI_PASSWORD"));
        assert!(TOKEN_VARIABLES.contains(&"OCI_ACCESS_TOKEN"));
    }

    #[test]
    fn the_catch_all_leaves_short_values_alone() {
        let _ = Secret::new("abc");
        assert_eq!(redact("abc is a word"), "abc is a word");
    }

    #[test]
    fn secrets_do_not_debug_print() {
        let secret = Secret::new("tok-abc").unwrap();
        assert_eq!(format!("{secret:?}"), "Secret([redacted])");
        let credential = Credential::bearer(secret);
        assert!(!format!("{credential:?}").contains("tok-abc"));
        assert!(Secret::new("  ").is_none());
    }
}
