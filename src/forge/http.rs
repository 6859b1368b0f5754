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
//! Tokens live in [`super::secret::Secret`], whose `Debug` is redacted and which has no `Display`;
//! a [`Credential`] binds one to the origins it may go to.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use reqwest::{Method, StatusCode, Url};

use super::clock::Clock;
use super::credential::Credential;
use super::policy::RetryPolicy;
use super::progress::{Event, Progress};
use super::rate::{Meter, metered, watch_rate};
// `release/mod.rs` calls redaction by this path until its split; `secret` is its home.
pub(crate) use super::secret::redact;
use super::url::redact_userinfo_text;

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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::time::SystemTime;

    use wiremock::matchers::{header, header_exists, method, path};
    use wiremock::{Mock, MockServer, ResponseTemplate};

    use super::*;
    use crate::forge::clock::BoxFuture;
    use crate::forge::progress::NoProgress;
    use crate::forge::secret::Secret;

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
}
