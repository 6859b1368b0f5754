//! The HTTP client every remote target shares: one reqwest client with capkg's user agent and
//! timeouts, and one request loop that retries, honours rate limits, follows redirects safely and
//! keeps the token out of everything it reports.
//!
//! Where the token goes is decided here, not at call sites: a [`Credential`] names the origins
//! (scheme, host, port) it is for, and [`Http`] attaches it only to a request whose URL is on one
//! of them. A URL taken from an answer (a `Link` header, a release's `upload_url`, a redirect, an
//! asset URL) on another origin is requested without it. A credential is never sent over plain
//! http except to a loopback address, and loopback addresses are never sent through a proxy
//! (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` apply to other hosts, with `NO_PROXY`).
//!
//! Every try is bounded ([`RetryPolicy`]): a total deadline (`timeout`), a minimum transfer rate
//! while a body moves, judged over 30-second windows (`min_rate`; waiting for the server to
//! answer after an upload is not a transfer), and a largest answer body (`max_download`, refused
//! unread when announced). A try that hits the deadline or the rate is not repeated by the loop:
//! it says which limit and which flag raises it.
//!
//! What the loop does with an answer:
//! - `2xx`: returned.
//! - `3xx` (when the call follows redirects): followed up to five times. A redirect to another
//!   origin (scheme, host, port) drops the credential: asset downloads are redirected to storage
//!   hosts that must not see the token. A redirect to plain `http://` off loopback is refused, and
//!   so is one from a remote host to this machine or its network ([`check_hop`]).
//! - `429`, and `403` with a rate-limit signal (`retry-after`, `x-ratelimit-remaining: 0`, or a
//!   message that says "rate limit"): wait as long as the server asks (`retry-after` seconds, else
//!   until `x-ratelimit-reset`/`ratelimit-reset`), else [`RetryPolicy::unsignalled_rate_limit_wait`]
//!   doubling on each repeat, then retry. Nothing was done by such a request, so this holds for
//!   every method. A wait longer than [`RetryPolicy::max_wait`] is not attempted: the call fails at
//!   once and says how long the server asked for.
//! - `5xx` and cut connections: retried with exponential backoff for [`Retry::Idempotent`] calls.
//!   [`Retry::RateLimitsOnly`] calls (uploads, whose effect a cut connection leaves unknown) get
//!   the failure back and decide themselves, after looking at what the server kept.
//! - any other `4xx`: returned as a [`Rejection`] holding the status, the server's message (with
//!   the token redacted) and the headers, for the forge module to explain.
//!
//! Time comes from a [`Clock`] passed in, so tests can run rate-limit scenarios without waiting.
//! Tokens live in [`Secret`], whose `Debug` is redacted and which has no `Display`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode, Url};

use super::progress::{Event, Progress};

/// A boxed future, so that [`crate::targets::Target`] can be used as a trait object.
pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The time source and the sleeper, passed in so tests control time.
pub(crate) trait Clock: Send + Sync {
    fn now(&self) -> SystemTime;
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

/// Real time, with tokio's timer.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> SystemTime {
        SystemTime::now()
    }

    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// How hard to try, and how long to wait.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// Tries per call, the first included, for retryable failures (5xx, cut connections, rate
    /// limits).
    pub attempts: u32,
    /// The first backoff after a 5xx or a cut connection; it doubles on each further failure.
    pub first_backoff: Duration,
    /// The longest backoff.
    pub max_backoff: Duration,
    /// The longest single wait capkg accepts. A server that asks for more (an hour until the
    /// primary rate limit resets) makes the call fail at once, saying how long it asked for.
    pub max_wait: Duration,
    /// The wait after a rate limit that names no time (GitHub: "at least one minute").
    pub unsignalled_rate_limit_wait: Duration,
    /// How many reads (read-back downloads, existence checks) run at once.
    pub read_concurrency: usize,
    /// The longest one try of a request may take, from connecting to the last byte of the
    /// answer (`--http-timeout`).
    pub timeout: Duration,
    /// The slowest transfer accepted, in bytes per second, judged over every
    /// [`RetryPolicy::rate_window`] while a body is moving (`--min-transfer-rate`; 0: no check).
    pub min_rate: u64,
    /// The window the transfer rate is judged over.
    pub rate_window: Duration,
    /// The largest answer body capkg reads; a larger one is refused, unread when the server
    /// announces its length (`--max-download`). `verify oci://` holds an artifact's layers to
    /// it in all, not each.
    pub max_download: u64,
    /// The most layers `verify oci://` reads from one artifact (`--max-layers`).
    pub max_layers: usize,
    /// The most pages capkg reads of one list: releases, packages, tags (`--max-list-pages`;
    /// [`super::pages`] holds a list to `max_download` bytes in all too).
    pub max_list_pages: usize,
    /// The time every image lookup of one check shares (`--images-timeout`).
    pub images_deadline: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempts: 5,
            first_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(30),
            max_wait: Duration::from_secs(600),
            unsignalled_rate_limit_wait: Duration::from_secs(60),
            read_concurrency: 8,
            timeout: DEFAULT_TIMEOUT,
            min_rate: DEFAULT_MIN_RATE,
            rate_window: Duration::from_secs(30),
            max_download: DEFAULT_MAX_DOWNLOAD,
            max_layers: DEFAULT_MAX_LAYERS,
            max_list_pages: super::pages::DEFAULT_MAX_LIST_PAGES,
            images_deadline: DEFAULT_IMAGES_DEADLINE,
        }
    }
}

/// Ten minutes: a 100 MB upload needs 170 KB/s, far below what GitHub and GitLab runners get.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// 1 KiB/s, i.e. 30 KiB per 30 s window: only a stalled or trickling connection is this slow.
pub(crate) const DEFAULT_MIN_RATE: u64 = 1024;
/// 256 MiB: far above any release file clusterctl reads, far below a runner's memory.
pub(crate) const DEFAULT_MAX_DOWNLOAD: u64 = 256 * 1024 * 1024;
/// 64: capkg's artifacts have a few layers per provider plus the templates; the operator reads
/// every layer into memory.
pub(crate) const DEFAULT_MAX_LAYERS: usize = 64;
/// One minute for all of a release's image lookups: a healthy registry answers in well under a
/// second, and a stalled one must not hold a release for the connection timeouts.
pub(crate) const DEFAULT_IMAGES_DEADLINE: Duration = Duration::from_secs(60);

impl RetryPolicy {
    /// The backoff before try `attempt + 1` (`attempt` counts from 1).
    pub fn backoff(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.first_backoff
            .saturating_mul(factor)
            .min(self.max_backoff)
            .min(self.max_wait)
    }
}

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

/// The Docker config file: `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`.
/// (`DOCKER_AUTH_CONFIG`, the same text in a variable, joins the list too.)
pub(crate) fn docker_config_file(
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<std::path::PathBuf> {
    let non_empty = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    match non_empty("DOCKER_CONFIG") {
        Some(dir) => Some(std::path::Path::new(&dir).join("config.json")),
        None => {
            non_empty("HOME").map(|home| std::path::Path::new(&home).join(".docker/config.json"))
        }
    }
}

/// Largest Docker config file capkg reads: a real one is a few kilobytes.
const DOCKER_CONFIG_LIMIT: u64 = 4 * 1024 * 1024;

/// The text of a Docker config file, `None` when there is none. It must be a regular file (a
/// link to one is fine: mounted secrets are links) of at most 4 MiB, opened without blocking so
/// that a FIFO put there cannot hang the run. Logins ([`super::login`]) and redaction read it
/// through here.
pub(crate) fn read_docker_config(path: &std::path::Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    if !metadata.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if metadata.len() > DOCKER_CONFIG_LIMIT {
        return Err(std::io::Error::other(format!(
            "larger than {DOCKER_CONFIG_LIMIT} bytes"
        )));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut text = String::new();
    options
        .open(path)?
        .take(DOCKER_CONFIG_LIMIT)
        .read_to_string(&mut text)?;
    Ok(Some(text))
}

/// Every secret of a Docker config file's `auths`: each `auth` (base64 `user:password`) as
/// written and its password, `password`, `identitytoken` and `registrytoken`. A missing,
/// unreadable, oversized or malformed file gives none (reading logins reports those).
fn docker_config_secrets(path: &std::path::Path) -> Vec<String> {
    match read_docker_config(path) {
        Ok(Some(text)) => docker_auths_secrets(&text),
        _ => Vec::new(),
    }
}

/// The secrets of a Docker config's text ([`docker_config_secrets`]); none when it is not one.
fn docker_auths_secrets(text: &str) -> Vec<String> {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let Some(auths) = json.get("auths").and_then(|a| a.as_object()) else {
        return Vec::new();
    };
    let mut secrets = Vec::new();
    for entry in auths.values() {
        let field = |name: &str| entry.get(name).and_then(|v| v.as_str());
        if let Some(auth) = field("auth") {
            secrets.push(auth.to_string());
            if let Some((_, password)) = decode_basic_auth(auth) {
                secrets.push(password);
            }
        }
        for name in ["password", "identitytoken", "registrytoken"] {
            if let Some(value) = field(name) {
                secrets.push(value.to_string());
            }
        }
    }
    secrets.retain(|s| !s.trim().is_empty());
    secrets
}

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

/// A Docker config `auth`, [`base64_decode`] of `user:password`, as `(user, password)`; `None`
/// when it is not that.
pub(crate) fn decode_basic_auth(auth: &str) -> Option<(String, String)> {
    let text = String::from_utf8(base64_decode(auth)?).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_string(), password.to_string()))
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

/// A token, the header that carries it, and the origins (scheme, host, port) it may be sent
/// to. The client attaches it only to a request whose URL is on one of those origins, so a URL
/// a server hands back (a `Link`, an `upload_url`, a redirect) on another origin never gets it.
#[derive(Clone, Debug)]
pub(crate) struct Credential {
    header: HeaderName,
    prefix: &'static str,
    secret: Secret,
    origins: Vec<Url>,
}

impl Credential {
    #[cfg(test)]
    pub(crate) fn header_name(&self) -> &HeaderName {
        &self.header
    }

    /// `Authorization: Bearer <token>`, sent nowhere until [`Credential::for_origin`].
    pub(crate) fn bearer(secret: Secret) -> Self {
        Self {
            header: reqwest::header::AUTHORIZATION,
            prefix: "Bearer ",
            secret,
            origins: Vec::new(),
        }
    }

    /// The token as the whole value of a custom header (`PRIVATE-TOKEN`, `JOB-TOKEN`), sent
    /// nowhere until [`Credential::for_origin`].
    pub(crate) fn header(header: &'static str, secret: Secret) -> Self {
        Self {
            header: HeaderName::from_static(header),
            prefix: "",
            secret,
            origins: Vec::new(),
        }
    }

    /// `Authorization: Basic base64(user:password)` (a registry or its token realm), sent nowhere
    /// until [`Credential::for_origin`]. The password and the encoded pair are both redacted.
    pub(crate) fn basic(user: &str, password: &Secret) -> Option<Self> {
        let encoded = base64_padded(format!("{user}:{}", password.expose()).as_bytes());
        Some(Self {
            header: reqwest::header::AUTHORIZATION,
            prefix: "Basic ",
            secret: Secret::new(encoded)?,
            origins: Vec::new(),
        })
    }

    /// Sends the token to requests on `origin`'s origin (scheme, host, port): the configured
    /// API, a forge's documented upload host.
    pub(crate) fn for_origin(mut self, origin: &Url) -> Self {
        if !self.allows(origin) {
            self.origins.push(origin.clone());
        }
        self
    }

    /// Whether `url` is on an origin this credential is for.
    pub(crate) fn allows(&self, url: &Url) -> bool {
        self.origins.iter().any(|origin| same_origin(origin, url))
    }

    fn value(&self) -> Option<HeaderValue> {
        let mut value =
            HeaderValue::from_str(&format!("{}{}", self.prefix, self.secret.expose())).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}

/// Why a request could not be made or did not succeed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HttpError {
    #[error(
        "`{url}` uses plain http: capkg sends tokens only over https (plain http is accepted for loopback addresses)"
    )]
    Insecure { url: String },
    #[error("`{url}` is not a usable URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("{0}")]
    Rejected(Box<Rejection>),
    #[error(
        "{what}: `{url}` is rate limited and asks to wait {}, longer than the {} capkg may wait (`--max-wait`)",
        crate::units::format_duration(*wait),
        crate::units::format_duration(*max_wait)
    )]
    WaitTooLong {
        what: String,
        url: String,
        wait: Duration,
        max_wait: Duration,
    },
    #[error("{what}: `{url}` was still rate limited after {attempts} attempts")]
    StillRateLimited {
        what: String,
        url: String,
        attempts: u32,
    },
    #[error("{what}: `{url}` answered {status} ({message}) after {attempts} attempts")]
    Server {
        what: String,
        url: String,
        status: StatusCode,
        message: String,
        attempts: u32,
    },
    #[error("{what}: no answer from `{url}` after {attempts} attempts")]
    Transport {
        what: String,
        url: String,
        attempts: u32,
        #[source]
        source: reqwest::Error,
    },
    #[error(
        "{what}: `{url}` did not finish within {} (`--http-timeout`, CAPKG_HTTP_TIMEOUT)",
        crate::units::format_duration(*after)
    )]
    TimedOut {
        what: String,
        url: String,
        after: Duration,
    },
    #[error(
        "{what}: `{url}` moved only {moved} bytes in {}, slower than the {min_rate} bytes/s capkg accepts (`--min-transfer-rate`, CAPKG_HTTP_MIN_RATE)",
        crate::units::format_duration(*window)
    )]
    TooSlow {
        what: String,
        url: String,
        moved: u64,
        window: Duration,
        min_rate: u64,
    },
    #[error(
        "{what}: `{url}` answered with more than {limit} bytes{}, more than capkg reads (`--max-download`, CAPKG_MAX_DOWNLOAD)",
        announced.map(|n| format!(" ({n} announced)")).unwrap_or_default()
    )]
    TooLarge {
        what: String,
        url: String,
        limit: u64,
        announced: Option<u64>,
    },
    #[error(
        "{what}: refusing to send the token over plain http to `{url}`, which is not a loopback address"
    )]
    CleartextCredential { what: String, url: String },
    #[error(
        "{what}: `{from}` points to `{to}`, an address of this machine or its local network; capkg does not follow a remote server there"
    )]
    LocalRedirect {
        what: String,
        from: String,
        to: String,
    },
    #[error("{what}: too many redirects, the last to `{url}`")]
    Redirects { what: String, url: String },
    #[error("cannot build the HTTP client")]
    Client {
        #[source]
        source: reqwest::Error,
    },
}

impl HttpError {
    /// The rejection, when the server answered with a 4xx it meant.
    pub(crate) fn rejection(&self) -> Option<&Rejection> {
        match self {
            HttpError::Rejected(rejection) => Some(rejection),
            _ => None,
        }
    }

    /// True when the failure says nothing about what the server did with the request: a cut
    /// connection or a 5xx (GitHub documents that a 502 may leave a half-uploaded asset).
    pub(crate) fn is_uncertain(&self) -> bool {
        matches!(
            self,
            HttpError::Transport { .. }
                | HttpError::Server { .. }
                | HttpError::TimedOut { .. }
                | HttpError::TooSlow { .. }
        )
    }
}

/// A 4xx the server meant: status, message, headers.
#[derive(Debug)]
pub(crate) struct Rejection {
    pub what: String,
    pub url: Url,
    pub method: Method,
    pub status: StatusCode,
    /// The server's `message`, or the start of its body; the token is redacted.
    pub message: String,
    /// The body as JSON, when it is JSON (tokens redacted from its text first).
    pub json: Option<serde_json::Value>,
    pub headers: HeaderMap,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: `{}` answered {}",
            self.what,
            self.url,
            self.status.as_u16()
        )?;
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

impl Rejection {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }

    /// The `code`s of GitHub's `errors` array (`already_exists`, `invalid`).
    pub(crate) fn error_codes(&self) -> Vec<&str> {
        self.json
            .as_ref()
            .and_then(|json| json.get("errors"))
            .and_then(|errors| errors.as_array())
            .map(|errors| {
                errors
                    .iter()
                    .filter_map(|e| e.get("code").and_then(|c| c.as_str()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Whether a failed call may be repeated by the loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Retry {
    /// Repeating it is harmless: retry 5xx and cut connections.
    Idempotent,
    /// Its effect is unknown after a cut connection or a 5xx: retry only what the server
    /// explicitly refused to do yet (rate limits); hand everything else back.
    RateLimitsOnly,
}

/// One call.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: Method,
    pub url: Url,
    pub headers: HeaderMap,
    pub body: Option<Bytes>,
    pub retry: Retry,
    pub follow_redirects: bool,
    /// What the call is for, in messages ("list releases of `o/r`").
    pub what: String,
}

impl Request {
    pub(crate) fn new(method: Method, url: Url, what: impl Into<String>) -> Self {
        let retry = if method == Method::GET || method == Method::HEAD || method == Method::DELETE {
            Retry::Idempotent
        } else {
            Retry::RateLimitsOnly
        };
        Self {
            method,
            url,
            headers: HeaderMap::new(),
            body: None,
            retry,
            follow_redirects: false,
            what: what.into(),
        }
    }

    pub(crate) fn header(mut self, name: HeaderName, value: &str) -> Self {
        if let Ok(value) = HeaderValue::from_str(value) {
            self.headers.insert(name, value);
        }
        self
    }

    pub(crate) fn body(mut self, body: Bytes) -> Self {
        self.body = Some(body);
        self
    }

    pub(crate) fn json(self, value: &serde_json::Value) -> Self {
        let body = Bytes::from(value.to_string());
        self.header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
    }

    pub(crate) fn retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    pub(crate) fn follow_redirects(mut self) -> Self {
        self.follow_redirects = true;
        self
    }
}

/// A successful answer, body read.
#[derive(Debug)]
pub(crate) struct Response {
    pub headers: HeaderMap,
    pub body: Bytes,
    /// The URL that answered (after redirects).
    pub url: Url,
}

impl Response {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }
}

/// Checks a URL capkg is about to send a token to: https, or http to a loopback address; no
/// user name or password in it (tokens come from the environment only).
pub(crate) fn check_url(url: &Url) -> Result<(), HttpError> {
    if !url.username().is_empty() || url.password().is_some() {
        return Err(HttpError::BadUrl {
            url: without_userinfo(url),
            reason: "it holds credentials; pass tokens through the environment instead".into(),
        });
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(url) => Ok(()),
        "http" => Err(HttpError::Insecure {
            url: url.to_string(),
        }),
        other => Err(HttpError::BadUrl {
            url: url.to_string(),
            reason: format!("the `{other}` scheme is not supported; use https"),
        }),
    }
}

/// Parses and checks a base URL given by a flag or variable.
pub(crate) fn parse_base_url(text: &str) -> Result<Url, HttpError> {
    let trimmed = text.trim().trim_end_matches('/');
    let url = Url::parse(trimmed).map_err(|err| HttpError::BadUrl {
        url: redact_userinfo_text(trimmed),
        reason: err.to_string(),
    })?;
    check_url(&url)?;
    Ok(url)
}

fn without_userinfo(url: &Url) -> String {
    let mut clean = url.clone();
    let _ = clean.set_username("");
    let _ = clean.set_password(None);
    clean.to_string()
}

/// `text` with the user name and password of a URL replaced by `[redacted]`. A password may
/// hold a raw `@` (or `/`, `?`, `#`, which end the authority), so everything up to the last `@`
/// goes unless the text parses as a URL without credentials.
pub(crate) fn redact_userinfo_text(text: &str) -> String {
    if Url::parse(text).is_ok_and(|url| url.username().is_empty() && url.password().is_none()) {
        return text.to_string();
    }
    match (text.find("://"), text.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            format!("{}://[redacted]@{}", &text[..scheme_end], &text[at + 1..])
        }
        _ => text.to_string(),
    }
}

fn is_loopback(url: &Url) -> bool {
    url.host_str().is_some_and(super::url::is_loopback_host)
}

/// A remote server may not point capkg at this machine or its network (a port only reachable
/// from here): a redirect or a token realm from a host that is not loopback, private or
/// link-local to one that is is refused. Host names are judged as written, not resolved.
pub(crate) fn check_hop(from: &Url, to: &Url, what: &str) -> Result<(), HttpError> {
    let local = |url: &Url| {
        url.host_str()
            .is_some_and(super::url::is_local_network_host)
    };
    if !local(from) && local(to) {
        return Err(HttpError::LocalRedirect {
            what: what.to_string(),
            from: from.origin().ascii_serialization(),
            to: to.origin().ascii_serialization(),
        });
    }
    Ok(())
}

/// Same scheme, host and port.
pub(crate) fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// The user agent every request carries (GitHub rejects requests without one).
pub(crate) fn user_agent() -> String {
    format!("capkg/{}", env!("CARGO_PKG_VERSION"))
}

/// Installs rustls' ring provider once per process (reqwest is built without one).
fn install_crypto_provider() {
    // An error means a provider is already installed, which is all we need.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The shared client: reqwest with capkg's settings, the retry loop, the clock and the events.
#[derive(Clone)]
pub(crate) struct Http {
    client: reqwest::Client,
    /// The same client without proxies, for loopback addresses: a proxy must never see a
    /// plain-http request to a local server, token included.
    direct: reqwest::Client,
    policy: RetryPolicy,
    clock: Arc<dyn Clock>,
    progress: Arc<dyn Progress>,
    credential: Option<Credential>,
}

impl fmt::Debug for Http {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Http")
            .field("policy", &self.policy)
            .field("credential", &self.credential)
            .finish_non_exhaustive()
    }
}

impl Http {
    /// Builds the client: user agent, connect and read timeouts, no automatic redirects (the loop
    /// follows them itself, to drop the credential across origins), the environment's proxies
    /// (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, `NO_PROXY`) except for loopback addresses.
    pub(crate) fn new(
        policy: RetryPolicy,
        clock: Arc<dyn Clock>,
        progress: Arc<dyn Progress>,
        credential: Option<Credential>,
    ) -> Result<Self, HttpError> {
        install_crypto_provider();
        let builder = || {
            reqwest::Client::builder()
                .user_agent(user_agent())
                .connect_timeout(Duration::from_secs(30))
                .read_timeout(Duration::from_secs(120))
                .redirect(reqwest::redirect::Policy::none())
        };
        let client = builder()
            .build()
            .map_err(|source| HttpError::Client { source })?;
        let direct = builder()
            .no_proxy()
            .build()
            .map_err(|source| HttpError::Client { source })?;
        Ok(Self {
            client,
            direct,
            policy,
            clock,
            progress,
            credential,
        })
    }

    pub(crate) fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    pub(crate) fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    pub(crate) fn progress(&self) -> &Arc<dyn Progress> {
        &self.progress
    }

    pub(crate) fn credential(&self) -> Option<&Credential> {
        self.credential.as_ref()
    }

    /// The same client with another largest answer: a caller that bounds several reads in all
    /// gives each what is left.
    pub(crate) fn with_max_download(&self, max_download: u64) -> Http {
        Http {
            policy: RetryPolicy {
                max_download,
                ..self.policy.clone()
            },
            ..self.clone()
        }
    }

    /// The same client (connections, policy, clock, progress) with another credential: a
    /// registry's token changes during a session (anonymous, then the realm's token).
    pub(crate) fn with_credential(&self, credential: Option<Credential>) -> Http {
        Http {
            credential,
            ..self.clone()
        }
    }

    /// Removes the token from text that may have come from a server.
    pub(crate) fn redact(&self, text: &str) -> String {
        match &self.credential {
            Some(credential) => credential.secret.redact(text),
            None => text.to_string(),
        }
    }

    /// Makes the call, with retries, rate-limit waits and redirects as the module describes.
    pub(crate) async fn send(&self, request: Request) -> Result<Response, HttpError> {
        check_url(&request.url)?;
        let mut url = request.url.clone();
        let mut attempt: u32 = 0;
        let mut redirects = 0;
        let mut unsignalled_waits: u32 = 0;
        loop {
            attempt += 1;
            let outcome = self.attempt(&request, &url).await;
            let (status, headers, body) = match outcome {
                Ok(parts) => parts,
                Err(Failed::Final(err)) => return Err(err),
                Err(Failed::Transport(source)) => {
                    if request.retry == Retry::Idempotent && attempt < self.policy.attempts {
                        let delay = self.policy.backoff(attempt);
                        self.wait(
                            &format!("{}: connection failed, retrying", request.what),
                            delay,
                        )
                        .await;
                        continue;
                    }
                    return Err(HttpError::Transport {
                        what: request.what.clone(),
                        url: url.to_string(),
                        attempts: attempt,
                        source: source.without_url(),
                    });
                }
            };

            if status.is_success() {
                return Ok(Response { headers, body, url });
            }

            if status.is_redirection() && request.follow_redirects {
                redirects += 1;
                let next = headers
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|location| url.join(location).ok());
                match next {
                    Some(next) if redirects <= 5 => {
                        check_url(&next)?;
                        check_hop(&url, &next, &request.what)?;
                        url = next;
                        // A redirect is not a failure: it does not use up a try.
                        attempt -= 1;
                        continue;
                    }
                    _ => {
                        return Err(HttpError::Redirects {
                            what: request.what.clone(),
                            url: url.to_string(),
                        });
                    }
                }
            }

            let message = self.server_message(&body);
            if let Some(wait) = self.rate_limit_wait(status, &headers, &message) {
                let wait = match wait {
                    Some(asked) => asked,
                    None => {
                        unsignalled_waits += 1;
                        self.policy
                            .unsignalled_rate_limit_wait
                            .saturating_mul(2u32.saturating_pow(unsignalled_waits - 1))
                    }
                };
                if wait > self.policy.max_wait {
                    return Err(HttpError::WaitTooLong {
                        what: request.what.clone(),
                        url: url.to_string(),
                        wait,
                        max_wait: self.policy.max_wait,
                    });
                }
                if attempt >= self.policy.attempts {
                    return Err(HttpError::StillRateLimited {
                        what: request.what.clone(),
                        url: url.to_string(),
                        attempts: attempt,
                    });
                }
                self.wait(
                    &format!(
                        "{}: rate limited by {}",
                        request.what,
                        url.host_str().unwrap_or("the server")
                    ),
                    wait,
                )
                .await;
                continue;
            }

            if status.is_server_error() {
                if request.retry == Retry::Idempotent && attempt < self.policy.attempts {
                    let delay = self.policy.backoff(attempt);
                    self.wait(
                        &format!(
                            "{}: server answered {}, retrying",
                            request.what,
                            status.as_u16()
                        ),
                        delay,
                    )
                    .await;
                    continue;
                }
                return Err(HttpError::Server {
                    what: request.what.clone(),
                    url: url.to_string(),
                    status,
                    message,
                    attempts: attempt,
                });
            }

            let redacted = self.redact(&String::from_utf8_lossy(&body));
            return Err(HttpError::Rejected(Box::new(Rejection {
                what: request.what.clone(),
                url,
                method: request.method.clone(),
                status,
                message,
                json: serde_json::from_str(&redacted).ok(),
                headers,
            })));
        }
    }

    /// One try: the credential only on its origins, the loopback client for loopback
    /// addresses, the body streamed out and in through a meter that a watchdog reads, the
    /// whole try under the policy's deadline.
    async fn attempt(
        &self,
        request: &Request,
        url: &Url,
    ) -> Result<(StatusCode, HeaderMap, Bytes), Failed> {
        let credential = match &self.credential {
            Some(credential) if credential.allows(url) => {
                if url.scheme() != "https" && !is_loopback(url) {
                    return Err(Failed::Final(HttpError::CleartextCredential {
                        what: request.what.clone(),
                        url: url.to_string(),
                    }));
                }
                credential
                    .value()
                    .map(|value| (credential.header.clone(), value))
            }
            _ => None,
        };
        let client = if is_loopback(url) {
            &self.direct
        } else {
            // Unit tests start their servers on loopback: a lookup of another host passes only
            // where there is no network, so it fails here, loudly (scripts/test.sh's closed proxy
            // does the same for the binary the integration tests run).
            if cfg!(test) {
                panic!("a unit test tried to reach {url}: serve it from a loopback fake");
            }
            &self.client
        };
        let meter = Arc::new(Meter::default());
        let limit = self.policy.max_download;
        let work = async {
            let mut builder = client
                .request(request.method.clone(), url.clone())
                .headers(request.headers.clone());
            if let Some((name, value)) = credential {
                builder = builder.header(name, value);
            }
            if let Some(body) = &request.body {
                builder = builder
                    .header(reqwest::header::CONTENT_LENGTH, body.len())
                    .body(reqwest::Body::wrap_stream(metered(
                        body.clone(),
                        meter.clone(),
                    )));
            }
            let mut response = builder.send().await.map_err(Failed::Transport)?;
            let status = response.status();
            let headers = response.headers().clone();
            let too_large = |announced| {
                Failed::Final(HttpError::TooLarge {
                    what: request.what.clone(),
                    url: url.to_string(),
                    limit,
                    announced,
                })
            };
            if let Some(announced) = response.content_length()
                && announced > limit
            {
                return Err(too_large(Some(announced)));
            }
            meter.start();
            let mut body = bytes::BytesMut::new();
            while let Some(chunk) = response.chunk().await.map_err(Failed::Transport)? {
                meter.add(chunk.len());
                if (body.len() + chunk.len()) as u64 > limit {
                    return Err(too_large(None));
                }
                body.extend_from_slice(&chunk);
            }
            meter.stop();
            Ok((status, headers, body.freeze()))
        };
        let deadline = self.policy.timeout;
        tokio::select! {
            outcome = tokio::time::timeout(deadline, work) => match outcome {
                Ok(result) => result,
                Err(_) => Err(Failed::Final(HttpError::TimedOut {
                    what: request.what.clone(),
                    url: url.to_string(),
                    after: deadline,
                })),
            },
            (moved, window) = watch_rate(&meter, self.policy.rate_window, self.policy.min_rate) => {
                Err(Failed::Final(HttpError::TooSlow {
                    what: request.what.clone(),
                    url: url.to_string(),
                    moved,
                    window,
                    min_rate: self.policy.min_rate,
                }))
            }
        }
    }

    async fn wait(&self, reason: &str, delay: Duration) {
        self.progress.event(&Event::Waiting { reason, delay });
        self.clock.sleep(delay).await;
    }

    /// `Some(Some(wait))` when the answer is a rate limit naming a wait, `Some(None)` when it is
    /// one naming none, `None` when it is not a rate limit.
    fn rate_limit_wait(
        &self,
        status: StatusCode,
        headers: &HeaderMap,
        message: &str,
    ) -> Option<Option<Duration>> {
        let number =
            |name: &str| -> Option<u64> { headers.get(name)?.to_str().ok()?.trim().parse().ok() };
        let retry_after = number("retry-after");
        let exhausted =
            number("x-ratelimit-remaining") == Some(0) || number("ratelimit-remaining") == Some(0);
        let says_rate_limit = message.to_ascii_lowercase().contains("rate limit");
        let is_rate_limit = status == StatusCode::TOO_MANY_REQUESTS
            || (status == StatusCode::FORBIDDEN
                && (retry_after.is_some() || exhausted || says_rate_limit));
        if !is_rate_limit {
            return None;
        }
        if let Some(seconds) = retry_after {
            return Some(Some(Duration::from_secs(seconds)));
        }
        if exhausted
            && let Some(reset) = number("x-ratelimit-reset").or_else(|| number("ratelimit-reset"))
        {
            let now = self
                .clock
                .now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            // One second more: the reset time is rounded down to the second.
            return Some(Some(Duration::from_secs(reset.saturating_sub(now) + 1)));
        }
        Some(None)
    }

    /// The `message` of a JSON error body, else the start of the body; token redacted.
    fn server_message(&self, body: &[u8]) -> String {
        // Redacted before it is cut to 200 characters, so the cut cannot split a token.
        let text = redact(&self.redact(&String::from_utf8_lossy(body)));
        let message = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(
                |json| match json.get("message").or_else(|| json.get("error")) {
                    Some(serde_json::Value::String(message)) => Some(message.clone()),
                    Some(other) => Some(other.to_string()),
                    None => None,
                },
            )
            .unwrap_or_else(|| text.chars().take(200).collect::<String>());
        self.redact(message.trim())
    }
}

/// How one try ended when it did not bring an answer.
enum Failed {
    /// A cut connection or a failed connect: retried for idempotent calls.
    Transport(reqwest::Error),
    /// Deadline, stall, size limit, refused cleartext: not retried by the loop.
    Final(HttpError),
}

/// Bytes moved by one try, and whether a body is moving now. `phase` counts starts and stops
/// (odd: moving), so the watchdog judges only windows in which one body moved throughout:
/// waiting for the server to answer after an upload is not a stall.
#[derive(Default)]
struct Meter {
    moved: AtomicU64,
    phase: AtomicU64,
}

impl Meter {
    fn add(&self, bytes: usize) {
        self.moved.fetch_add(bytes as u64, Ordering::Relaxed);
    }

    fn start(&self) {
        self.phase.fetch_add(1, Ordering::AcqRel);
    }

    fn stop(&self) {
        self.phase.fetch_add(1, Ordering::AcqRel);
    }

    fn read(&self) -> (u64, u64) {
        (
            self.phase.load(Ordering::Acquire),
            self.moved.load(Ordering::Relaxed),
        )
    }
}

/// Resolves with (bytes moved, window) when a body moved slower than `min_rate` over a whole
/// window; never resolves when `min_rate` is 0.
async fn watch_rate(meter: &Meter, window: Duration, min_rate: u64) -> (u64, Duration) {
    if min_rate == 0 || window.is_zero() {
        return std::future::pending().await;
    }
    let needed = (min_rate as f64 * window.as_secs_f64()) as u64;
    let (mut phase, mut moved) = meter.read();
    loop {
        tokio::time::sleep(window).await;
        let (now_phase, now_moved) = meter.read();
        let delta = now_moved.saturating_sub(moved);
        if now_phase == phase && phase % 2 == 1 && delta < needed {
            return (delta, window);
        }
        (phase, moved) = (now_phase, now_moved);
    }
}

/// A request body as a stream of chunks that counts what the connection takes.
fn metered(
    body: Bytes,
    meter: Arc<Meter>,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    const CHUNK: usize = 64 * 1024;
    futures_util::stream::unfold(
        (body, meter, false),
        |(mut rest, meter, started)| async move {
            if !started {
                meter.start();
            }
            if rest.is_empty() {
                meter.stop();
                return None;
            }
            let chunk = rest.split_to(rest.len().min(CHUNK));
            meter.add(chunk.len());
            Some((Ok(chunk), (rest, meter, true)))
        },
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use wiremock::matchers::{header, header_exists, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;
    use crate::forge::progress::NoProgress;

    /// A clock that never sleeps and records what it was asked to wait.
    #[derive(Default)]
    struct RecordingClock {
        sleeps: Mutex<Vec<Duration>>,
    }

    impl Clock for RecordingClock {
        fn now(&self) -> SystemTime {
            UNIX_EPOCH + Duration::from_secs(1_000_000)
        }

        fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()> {
            self.sleeps.lock().unwrap().push(duration);
            Box::pin(async {})
        }
    }

    fn client(clock: Arc<RecordingClock>, token: Option<(&str, &MockServer)>) -> Http {
        client_with(RetryPolicy::default(), clock, token)
    }

    /// A client whose token (if any) is for `server`'s origin.
    fn client_with(
        policy: RetryPolicy,
        clock: Arc<RecordingClock>,
        token: Option<(&str, &MockServer)>,
    ) -> Http {
        Http::new(
            policy,
            clock,
            Arc::new(NoProgress),
            token.map(|(t, server)| {
                Credential::bearer(Secret::new(t).unwrap())
                    .for_origin(&Url::parse(&server.uri()).unwrap())
            }),
        )
        .unwrap()
    }

    fn get(server: &MockServer, route: &str) -> Request {
        Request::new(
            Method::GET,
            Url::parse(&format!("{}{route}", server.uri())).unwrap(),
            "test call",
        )
    }

    #[tokio::test]
    async fn retry_after_is_honoured_exactly_without_real_waiting() {
        let server = MockServer::start().await;
        Mock::given(path("/x"))
            .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "120"))
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(path("/x"))
            .respond_with(ResponseTemplate::new(200).set_body_string("ok"))
            .mount(&server)
            .await;
        let clock = Arc::new(RecordingClock::default());
        let response = client(clock.clone(), None)
            .send(get(&server, "/x"))
            .await
            .unwrap();
        assert_eq!(&response.body[..], b"ok");
        assert_eq!(*clock.sleeps.lock().unwrap(), [Duration::from_secs(120)]);
    }

    #[tokio::test]
    async fn primary_rate_limit_waits_until_the_reset_time() {
        let server = MockServer::start().await;
        Mock::given(path("/x"))
            .respond_with(
                ResponseTemplate::new(403)
                    .insert_header("x-ratelimit-remaining", "0")
                    .insert_header("x-ratelimit-reset", "1000030")
                    .set_body_string(r#"{"message":"API rate limit exceeded"}"#),
            )
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(path("/x"))
            .respond_with(ResponseTemplate::new(200))
            .mount(&server)
            .await;
        let clock = Arc::new(RecordingClock::default());
        client(clock.clone(), None)
            .send(get(&server, "/x"))
            .await
            .unwrap();
        assert_eq!(*clock.sleeps.lock().unwrap(), [Duration::from_secs(31)]);
    }

    #[tokio::test]
    async fn a_wait_longer_than_the_cap_fails_at_once_and_says_how_long() {
        let server = MockServer::start().await;
        Mock::given(path("/x"))
            .respond_with(ResponseTemplate::new(429).insert_header("retry-after", "3600"))
            .expect(1)
            .mount(&server)
            .await;
        let clock = Arc::new(RecordingClock::default());
        let err = client(clock.clone(), None)
            .send(get(&server, "/x"))
            .await
            .unwrap_err();
        assert!(matches!(err, HttpError::WaitTooLong { .. }), "{err}");
        assert!(err.to_string().contains("1h 0m"), "{err}");
        assert!(clock.sleeps.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn secondary_rate_limit_without_headers_waits_a_minute_then_doubles() {
        let server = MockServer::start().await;
        Mock::given(path("/x"))
            .respond_with(ResponseTemplate::new(403).set_body_string(
                r#"{"message":"You have exceeded a secondary rate limit. Please wait a few minutes."}"#,
            ))
            .up_to_n_times(2)
            .mount(&server)
            .await;
        Mock::given(path("/x"))
            .respond_with(ResponseTemplate::new(200))
            .mount(&server)
            .await;
        let clock = Arc::new(RecordingClock::default());
        client(clock.clone(), None)
            .send(get(&server, "/x"))
            .await
            .unwrap();
        assert_eq!(
            *clock.sleeps.lock().unwrap(),
            [Duration::from_secs(60), Duration::from_secs(120)]
        );
    }

    #[tokio::test]
    async fn a_bare_403_is_returned_not_retried() {
        let server = MockServer::start().await;
        Mock::given(path("/x"))
            .respond_with(
                ResponseTemplate::new(403)
                    .insert_header("x-accepted-github-permissions", "contents=write")
                    .set_body_string(r#"{"message":"Resource not accessible by integration"}"#),
            )
            .expect(1)
            .mount(&server)
            .await;
        let clock = Arc::new(RecordingClock::default());
        let err = client(clock.clone(), None)
            .send(get(&server, "/x"))
            .await
            .unwrap_err();
        let rejection = err.rejection().unwrap();
        assert_eq!(rejection.status, StatusCode::FORBIDDEN);
        assert_eq!(
            rejection.header("x-accepted-github-permissions"),
            Some("contents=write")
        );
        assert_eq!(rejection.message, "Resource not accessible by integration");
    }

    #[tokio::test]
    async fn server_errors_back_off_exponentially_for_idempotent_calls_only() {
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(502))
            .up_to_n_times(3)
            .mount(&server)
            .await;
        Mock::given(method("GET"))
            .respond_with(ResponseTemplate::new(200))
            .mount(&server)
            .await;
        Mock::given(method("POST"))
            .respond_with(ResponseTemplate::new(502))
            .expect(1)
            .mount(&server)
            .await;
        let clock = Arc::new(RecordingClock::default());
        let http = client(clock.clone(), None);
        http.send(get(&server, "/x")).await.unwrap();
        assert_eq!(
            *clock.sleeps.lock().unwrap(),
            [1, 2, 4].map(Duration::from_secs)
        );
        let post = Request::new(
            Method::POST,
            Url::parse(&format!("{}/x", server.uri())).unwrap(),
            "upload",
        );
        let err = http.send(post).await.unwrap_err();
        assert!(err.is_uncertain());
        assert!(matches!(err, HttpError::Server { attempts: 1, .. }));
    }

    #[tokio::test]
    async fn redirects_to_another_origin_drop_the_token() {
        let api = MockServer::start().await;
        let storage = MockServer::start().await;
        Mock::given(path("/asset"))
            .and(header("authorization", "Bearer tok-123"))
            .respond_with(
                ResponseTemplate::new(302)
                    .insert_header("location", format!("{}/blob", storage.uri()).as_str()),
            )
            .expect(1)
            .mount(&api)
            .await;
        Mock::given(path("/blob"))
            .and(header_exists("authorization"))
            .respond_with(ResponseTemplate::new(500))
            .expect(0)
            .mount(&storage)
            .await;
        Mock::given(path("/blob"))
            .respond_with(ResponseTemplate::new(200).set_body_string("content"))
            .expect(1)
            .mount(&storage)
            .await;
        let clock = Arc::new(RecordingClock::default());
        let response = client(clock, Some(("tok-123", &api)))
            .send(get(&api, "/asset").follow_redirects())
            .await
            .unwrap();
        assert_eq!(&response.body[..], b"content");
    }

    #[test]
    fn a_remote_server_cannot_redirect_to_this_machine_or_its_network() {
        let url = |text: &str| Url::parse(text).unwrap();
        for to in [
            "http://127.0.0.1:5000/v2/",
            "http://localhost/x",
            "https://10.0.0.5/x",
            "http://169.254.169.254/latest/meta-data/",
            "https://[fd00::1]/x",
        ] {
            let err = check_hop(&url("https://registry.example/v2/a"), &url(to), "look up")
                .unwrap_err()
                .to_string();
            assert!(err.contains("local network"), "{to}: {err}");
        }
        // Remote to remote, and local to local (a test registry on loopback), are followed.
        check_hop(
            &url("https://registry.example/v2/a"),
            &url("https://storage.example/blob"),
            "x",
        )
        .unwrap();
        check_hop(
            &url("http://127.0.0.1:5000/v2/a"),
            &url("http://127.0.0.1:5001/blob"),
            "x",
        )
        .unwrap();
    }

    #[tokio::test]
    async fn server_messages_have_the_token_redacted() {
        let server = MockServer::start().await;
        Mock::given(path("/x"))
            .respond_with(
                ResponseTemplate::new(401)
                    .set_body_string(r#"{"message":"Bad credentials for tok-SECRET-99"}"#),
            )
            .mount(&server)
            .await;
        let clock = Arc::new(RecordingClock::default());
        let err = client(clock, Some(("tok-SECRET-99", &server)))
            .send(get(&server, "/x"))
            .await
            .unwrap_err();
        let text = format!("{err} {err:?}");
        assert!(!text.contains("tok-SECRET-99"), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
    }

    #[test]
    fn plain_http_is_refused_off_loopback() {
        for ok in [
            "https://api.github.com",
            "http://127.0.0.1:8080/api",
            "http://localhost:1",
            "http://[::1]:9/",
        ] {
            assert!(parse_base_url(ok).is_ok(), "{ok}");
        }
        for bad in ["http://example.com", "http://10.0.0.1", "ftp://x"] {
            assert!(parse_base_url(bad).is_err(), "{bad}");
        }
        let err = parse_base_url("https://user:hunter2@example.com").unwrap_err();
        assert!(!err.to_string().contains("hunter2"), "{err}");
        // A raw `@` in the password, in a URL that parses and in one that does not.
        for text in [
            "https://user:hun@ter2@example.com",
            "https://user:hun@ter2@bad host",
            "https://user:hun#ter2@bad host",
        ] {
            let err = parse_base_url(text).unwrap_err().to_string();
            assert!(!err.contains("ter2") && !err.contains("hun"), "{err}");
        }
        assert_eq!(
            redact_userinfo_text("https://github.com/o/r/releases/v1/@x.yaml"),
            "https://github.com/o/r/releases/v1/@x.yaml"
        );
    }

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
    fn every_login_of_a_docker_config_joins_the_list() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let auth = base64_padded(b"bob:hunter2-docker-pass");
        std::fs::write(
            &path,
            format!(
                r#"{{"auths":{{"a.example":{{"auth":"{auth}"}},"b.example":{{"username":"u","password":"plain-pass-123"}},"c.example":{{"identitytoken":"id-token-456789"}}}}}}"#
            ),
        )
        .unwrap();
        let secrets = docker_config_secrets(&path);
        for expected in [
            auth.as_str(),
            "hunter2-docker-pass",
            "plain-pass-123",
            "id-token-456789",
        ] {
            assert!(
                secrets.iter().any(|s| s == expected),
                "{expected}: {secrets:?}"
            );
        }
        assert!(docker_config_secrets(&dir.path().join("missing.json")).is_empty());
        std::fs::write(&path, "not json").unwrap();
        assert!(docker_config_secrets(&path).is_empty());
        assert_eq!(
            decode_basic_auth("dTpwOnc"),
            Some(("u".into(), "p:w".into())),
            "unpadded, and the password keeps its colons"
        );
        assert_eq!(decode_basic_auth("no colon"), None);
        let from_variable = docker_auths_secrets(&format!(
            r#"{{"auths":{{"registry.gitlab.example":{{"auth":"{auth}"}}}}}}"#
        ));
        assert!(from_variable.iter().any(|s| s == "hunter2-docker-pass"));
    }

    #[test]
    fn remembered_values_are_redacted() {
        remember("remembered-value-0123");
        assert_eq!(redact("x remembered-value-0123 y"), "x [redacted] y");
        assert!(TOKEN_VARIABLES.contains(&"OCI_PASSWORD"));
        assert!(TOKEN_VARIABLES.contains(&"OCI_ACCESS_TOKEN"));
    }

    #[tokio::test]
    async fn a_server_message_is_redacted_before_it_is_cut() {
        let server = MockServer::start().await;
        let token = "tok-CUT-0123456789";
        // Not JSON: the message is the body's first 200 characters, which end inside the token.
        Mock::given(path("/cut"))
            .respond_with(
                ResponseTemplate::new(400).set_body_string(format!("{}{token}", "x".repeat(195))),
            )
            .mount(&server)
            .await;
        let clock = Arc::new(RecordingClock::default());
        let err = client(clock, Some((token, &server)))
            .send(get(&server, "/cut"))
            .await
            .unwrap_err();
        let text = format!("{err} {err:?}");
        assert!(!text.contains(&token[..5]), "{text}");
    }

    #[test]
    fn the_catch_all_leaves_short_values_alone() {
        let _ = Secret::new("abc");
        assert_eq!(redact("abc is a word"), "abc is a word");
    }

    #[test]
    fn one_percent_escaping() {
        assert_eq!(percent_encode("group/sub/p.x"), "group%2Fsub%2Fp.x");
        assert_eq!(percent_encode("v1.2.3+build.1"), "v1.2.3%2Bbuild.1");
        assert_eq!(percent_decode("a%2fb%2Fc%zz%"), b"a/b/c%zz%");
        // Two hex digits or nothing: a sign is not a digit.
        assert_eq!(percent_decode("a%+Fb%-1c"), b"a%+Fb%-1c");
        assert_eq!(percent_encode("caf\u{e9} ~x"), "caf%C3%A9%20~x");
    }

    #[tokio::test]
    async fn a_credential_goes_only_to_its_origins() {
        let api = MockServer::start().await;
        let other = MockServer::start().await;
        Mock::given(header_exists("authorization"))
            .respond_with(ResponseTemplate::new(200).set_body_string("with"))
            .mount(&other)
            .await;
        Mock::given(path("/x"))
            .respond_with(ResponseTemplate::new(200).set_body_string("without"))
            .mount(&other)
            .await;
        Mock::given(header("authorization", "Bearer tok-origin-1"))
            .respond_with(ResponseTemplate::new(200).set_body_string("with"))
            .mount(&api)
            .await;
        let clock = Arc::new(RecordingClock::default());
        let http = client(clock, Some(("tok-origin-1", &api)));
        let answer = |r: Response| String::from_utf8_lossy(&r.body).into_owned();
        assert_eq!(answer(http.send(get(&api, "/x")).await.unwrap()), "with");
        assert_eq!(
            answer(http.send(get(&other, "/x")).await.unwrap()),
            "without"
        );
    }

    /// A server on loopback that answers 200 with a 1000-byte body, one byte per 100 ms.
    async fn trickling_server() -> String {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let mut head = [0u8; 4096];
                    let _ = stream.read(&mut head).await;
                    let _ = stream
                        .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n")
                        .await;
                    for _ in 0..1000 {
                        if stream.write_all(b"x").await.is_err() {
                            return;
                        }
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                });
            }
        });
        base
    }

    #[tokio::test]
    async fn a_transfer_slower_than_the_minimum_rate_fails_after_one_window() {
        let base = trickling_server().await;
        let policy = RetryPolicy {
            min_rate: 100,
            rate_window: Duration::from_millis(500),
            ..RetryPolicy::default()
        };
        let http = client_with(policy, Arc::new(RecordingClock::default()), None);
        let request = Request::new(Method::GET, Url::parse(&base).unwrap(), "trickle");
        let err = http.send(request).await.unwrap_err();
        assert!(matches!(err, HttpError::TooSlow { .. }), "{err}");
        assert!(err.to_string().contains("--min-transfer-rate"), "{err}");
        assert!(err.is_uncertain());
    }

    #[tokio::test]
    async fn a_body_larger_than_the_limit_is_refused() {
        let server = MockServer::start().await;
        Mock::given(path("/big"))
            .respond_with(ResponseTemplate::new(200).set_body_bytes(vec![b'x'; 4096]))
            .mount(&server)
            .await;
        let policy = RetryPolicy {
            max_download: 1000,
            ..RetryPolicy::default()
        };
        let http = client_with(policy, Arc::new(RecordingClock::default()), None);
        let err = http.send(get(&server, "/big")).await.unwrap_err();
        assert!(
            matches!(
                err,
                HttpError::TooLarge {
                    limit: 1000,
                    announced: Some(4096),
                    ..
                }
            ),
            "{err}"
        );
    }

    #[test]
    fn secrets_do_not_debug_print() {
        let secret = Secret::new("tok-abc").unwrap();
        assert_eq!(format!("{secret:?}"), "Secret([redacted])");
        let credential = Credential::bearer(secret);
        assert!(!format!("{credential:?}").contains("tok-abc"));
        assert!(Secret::new("  ").is_none());
    }

    #[test]
    fn durations_read_as_people_write_them() {}
}
