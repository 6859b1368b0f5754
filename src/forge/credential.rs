//! A token bound to where it may go: the header that carries it and the origins (scheme, host,
//! port) it is for. [`super::http::Http`] attaches it only to a request on one of them.

use reqwest::Url;
use reqwest::header::{HeaderName, HeaderValue};

use super::encoding::base64_padded;
use super::secret::Secret;
use super::url::same_origin;

/// A token, the header that carries it, and the origins (scheme, host, port) it may be sent
/// to. The client attaches it only to a request whose URL is on one of those origins, so a URL
/// a server hands back (a `Link`, an `upload_url`, a redirect) on another origin never gets it.
#[derive(Clone, Debug)]
pub(crate) struct Credential {
    pub(super) header: HeaderName,
    prefix: &'static str,
    pub(super) secret: Secret,
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

    /// The header value: the prefix and the token, marked sensitive.
    pub(super) fn value(&self) -> Option<HeaderValue> {
        let mut value =
            HeaderValue::from_str(&format!("{}{}", self.prefix, self.secret.expose())).ok()?;
        value.set_sensitive(true);
        Some(value)
    }
}
