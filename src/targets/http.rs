//! The HTTP client every remote target shares: one reqwest client with capkg's user agent and
//! timeouts, and one request loop that retries, honours rate limits, follows redirects safely and
//! keeps the token out of everything it reports.
//!
//! What the loop does with an answer:
//! - `2xx`: returned.
//! - `3xx` (when the call follows redirects): followed up to five times. A redirect to another
//!   origin (scheme, host, port) drops the credential: asset downloads are redirected to storage
//!   hosts that must not see the token. A redirect to plain `http://` off loopback is refused.
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
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode, Url};

use super::{Event, Progress};

/// A boxed future, so that [`super::Target`] can be used as a trait object.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The time source and the sleeper, passed in so tests control time.
pub trait Clock: Send + Sync {
    fn now(&self) -> SystemTime;
    fn sleep(&self, duration: Duration) -> BoxFuture<'static, ()>;
}

/// Real time, with tokio's timer.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

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
        }
    }
}

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
/// from text that came back from a server.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// `None` for an empty value (an unset CI variable is often set to "").
    pub fn new(value: impl Into<String>) -> Option<Secret> {
        let value = value.into();
        let trimmed = value.trim();
        (!trimmed.is_empty()).then(|| Secret(trimmed.to_string()))
    }

    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the token replaced by `[redacted]`.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.0, "[redacted]")
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

/// A token and the header that carries it.
#[derive(Clone, Debug)]
pub struct Credential {
    header: HeaderName,
    prefix: &'static str,
    secret: Secret,
}

impl Credential {
    /// `Authorization: Bearer <token>`.
    pub fn bearer(secret: Secret) -> Self {
        Self {
            header: reqwest::header::AUTHORIZATION,
            prefix: "Bearer ",
            secret,
        }
    }

    /// The token as the whole value of a custom header (`PRIVATE-TOKEN`, `JOB-TOKEN`).
    pub fn header(header: &'static str, secret: Secret) -> Self {
        Self {
            header: HeaderName::from_static(header),
            prefix: "",
            secret,
        }
    }

    pub fn header_name(&self) -> &HeaderName {
        &self.header
    }

    pub fn secret(&self) -> &Secret {
        &self.secret
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
pub enum HttpError {
    #[error(
        "`{url}` uses plain http: capkg sends tokens only over https (plain http is accepted for loopback addresses)"
    )]
    Insecure { url: String },
    #[error("`{url}` is not a usable URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("{0}")]
    Rejected(Box<Rejection>),
    #[error(
        "{what}: `{url}` is rate limited and asks to wait {}, longer than the {} capkg may wait (`capkg publish --max-wait`)",
        human_duration(*wait),
        human_duration(*max_wait)
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
    pub fn rejection(&self) -> Option<&Rejection> {
        match self {
            HttpError::Rejected(rejection) => Some(rejection),
            _ => None,
        }
    }

    /// True when the failure says nothing about what the server did with the request: a cut
    /// connection or a 5xx (GitHub documents that a 502 may leave a half-uploaded asset).
    pub fn is_uncertain(&self) -> bool {
        matches!(self, HttpError::Transport { .. } | HttpError::Server { .. })
    }
}

/// A 4xx the server meant: status, message, headers.
#[derive(Debug)]
pub struct Rejection {
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
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }

    /// The `code`s of GitHub's `errors` array (`already_exists`, `invalid`).
    pub fn error_codes(&self) -> Vec<&str> {
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
pub enum Retry {
    /// Repeating it is harmless: retry 5xx and cut connections.
    Idempotent,
    /// Its effect is unknown after a cut connection or a 5xx: retry only what the server
    /// explicitly refused to do yet (rate limits); hand everything else back.
    RateLimitsOnly,
}

/// One call.
#[derive(Debug, Clone)]
pub struct Request {
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
    pub fn new(method: Method, url: Url, what: impl Into<String>) -> Self {
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

    pub fn header(mut self, name: HeaderName, value: &str) -> Self {
        if let Ok(value) = HeaderValue::from_str(value) {
            self.headers.insert(name, value);
        }
        self
    }

    pub fn body(mut self, body: Bytes) -> Self {
        self.body = Some(body);
        self
    }

    pub fn json(self, value: &serde_json::Value) -> Self {
        let body = Bytes::from(value.to_string());
        self.header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
    }

    pub fn retry(mut self, retry: Retry) -> Self {
        self.retry = retry;
        self
    }

    pub fn follow_redirects(mut self) -> Self {
        self.follow_redirects = true;
        self
    }
}

/// A successful answer, body read.
#[derive(Debug)]
pub struct Response {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
    /// The URL that answered (after redirects).
    pub url: Url,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name)?.to_str().ok()
    }
}

/// Checks a URL capkg is about to send a token to: https, or http to a loopback address; no
/// user name or password in it (tokens come from the environment only).
pub fn check_url(url: &Url) -> Result<(), HttpError> {
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
pub fn parse_base_url(text: &str) -> Result<Url, HttpError> {
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

fn redact_userinfo_text(text: &str) -> String {
    match (text.find("://"), text.find('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            format!("{}://[redacted]@{}", &text[..scheme_end], &text[at + 1..])
        }
        _ => text.to_string(),
    }
}

fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => bare.eq_ignore_ascii_case("localhost"),
    }
}

/// Same scheme, host and port.
pub fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

/// `1h 2m`, `45s`, `250ms`: for messages.
pub fn human_duration(duration: Duration) -> String {
    let secs = duration.as_secs();
    if secs == 0 {
        return format!("{}ms", duration.as_millis());
    }
    let (h, m, s) = (secs / 3600, secs % 3600 / 60, secs % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m {s}s"),
        (h, m, _) => format!("{h}h {m}m"),
    }
}

/// The user agent every request carries (GitHub rejects requests without one).
pub fn user_agent() -> String {
    format!("capkg/{}", env!("CARGO_PKG_VERSION"))
}

/// Installs rustls' ring provider once per process (reqwest is built without one).
fn install_crypto_provider() {
    // An error means a provider is already installed, which is all we need.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The shared client: reqwest with capkg's settings, the retry loop, the clock and the events.
#[derive(Clone)]
pub struct Http {
    client: reqwest::Client,
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
    /// follows them itself, to drop the credential across origins).
    pub fn new(
        policy: RetryPolicy,
        clock: Arc<dyn Clock>,
        progress: Arc<dyn Progress>,
        credential: Option<Credential>,
    ) -> Result<Self, HttpError> {
        install_crypto_provider();
        let client = reqwest::Client::builder()
            .user_agent(user_agent())
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(Duration::from_secs(120))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|source| HttpError::Client { source })?;
        Ok(Self {
            client,
            policy,
            clock,
            progress,
            credential,
        })
    }

    pub fn policy(&self) -> &RetryPolicy {
        &self.policy
    }

    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.clock
    }

    pub fn progress(&self) -> &Arc<dyn Progress> {
        &self.progress
    }

    /// Removes the token from text that may have come from a server.
    pub fn redact(&self, text: &str) -> String {
        match &self.credential {
            Some(credential) => credential.secret.redact(text),
            None => text.to_string(),
        }
    }

    /// Makes the call, with retries, rate-limit waits and redirects as the module describes.
    pub async fn send(&self, request: Request) -> Result<Response, HttpError> {
        check_url(&request.url)?;
        let origin = request.url.clone();
        let mut url = request.url.clone();
        let mut attempt: u32 = 0;
        let mut redirects = 0;
        let mut unsignalled_waits: u32 = 0;
        loop {
            attempt += 1;
            let with_credential = same_origin(&url, &origin);
            let outcome = self.attempt(&request, &url, with_credential).await;
            let (status, headers, body) = match outcome {
                Ok(parts) => parts,
                Err(source) => {
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
                return Ok(Response {
                    status,
                    headers,
                    body,
                    url,
                });
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

    async fn attempt(
        &self,
        request: &Request,
        url: &Url,
        with_credential: bool,
    ) -> Result<(StatusCode, HeaderMap, Bytes), reqwest::Error> {
        let mut builder = self
            .client
            .request(request.method.clone(), url.clone())
            .headers(request.headers.clone());
        if with_credential
            && let Some(credential) = &self.credential
            && let Some(value) = credential.value()
        {
            builder = builder.header(credential.header.clone(), value);
        }
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        let response = builder.send().await?;
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await?;
        Ok((status, headers, body))
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
        let text = String::from_utf8_lossy(body);
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use wiremock::matchers::{header, header_exists, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;
    use crate::targets::NoProgress;

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

    fn client(clock: Arc<RecordingClock>, token: Option<&str>) -> Http {
        Http::new(
            RetryPolicy::default(),
            clock,
            Arc::new(NoProgress),
            token.map(|t| Credential::bearer(Secret::new(t).unwrap())),
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
        let response = client(clock, Some("tok-123"))
            .send(get(&api, "/asset").follow_redirects())
            .await
            .unwrap();
        assert_eq!(&response.body[..], b"content");
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
        let err = client(clock, Some("tok-SECRET-99"))
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
    fn durations_read_as_people_write_them() {
        assert_eq!(human_duration(Duration::from_secs(3600)), "1h 0m");
        assert_eq!(human_duration(Duration::from_secs(90)), "1m 30s");
        assert_eq!(human_duration(Duration::from_secs(45)), "45s");
        assert_eq!(human_duration(Duration::from_millis(250)), "250ms");
    }
}
