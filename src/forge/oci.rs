//! A container registry, spoken to with the distribution API (`/v2/<repository>/…`) on the
//! shared [`Http`] client: manifests (HEAD, GET, PUT), blob existence, blob reads and monolithic
//! blob uploads (`POST` a session, `PUT` the bytes with their digest).
//!
//! Why not the `oci-client` crate: it builds its own reqwest client and sends the credential by
//! its own rules (the login goes to whatever token realm a registry names; plain http is a
//! client-wide switch), with neither capkg's retries, rate-limit waits and timeouts nor its
//! redaction. Here every request goes through [`Http::send`], whose [`Credential`] is bound to
//! origins: the login (Basic) only to the registry and the token realm it names, the bearer token
//! only to the registry, and neither over plain http except to loopback addresses.
//!
//! Authentication follows the registry's `401` challenge (`WWW-Authenticate`):
//! - `Bearer realm=…,service=…,scope=…`: a token is fetched from the realm (anonymously, or with
//!   the login as Basic credentials), then sent as `Authorization: Bearer` to the registry;
//! - `Basic realm=…`: the login is sent to the registry as Basic credentials.
//!
//! An access token (`OCI_ACCESS_TOKEN`, as cluster-api-operator reads it) is sent as a bearer
//! token from the first request on. Which login a registry gets is [`crate::forge::login`]'s
//! rule; where it goes is this module's: the registry's own origin, and the token realm that
//! origin's own challenge names. A challenge from another origin (after a redirect) is answered
//! anonymously, and an upload `Location` on another origin is refused.

use std::sync::Mutex;

use bytes::Bytes;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, StatusCode, Url};

use crate::error::{Classified, ErrorClass};
use crate::forge::credential::Credential;
use crate::forge::http::{Http, HttpError, Request, Retry};
use crate::forge::login::{LOGIN_SOURCES, Login, LoginError};
use crate::forge::pages::{self, Page};
use crate::forge::secret::Secret;

mod reference;

pub(crate) use reference::{Reference, valid_tag};

/// An OCI image manifest.
pub(crate) const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";
/// Every manifest type capkg accepts when it looks an image up.
pub(crate) const MANIFEST_ACCEPT: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json, application/vnd.docker.distribution.manifest.v1+prettyjws";

const DIGEST_HEADER: &str = "docker-content-digest";

/// A registry's `401` challenge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Challenge {
    Bearer {
        realm: String,
        service: Option<String>,
        scope: Option<String>,
    },
    Basic,
}

/// Parses `WWW-Authenticate` (`Bearer realm="…",service="…",scope="…"` or `Basic realm="…"`).
pub(crate) fn parse_challenge(header: &str) -> Option<Challenge> {
    let header = header.trim();
    let (scheme, params) = header.split_once(' ').unwrap_or((header, ""));
    if scheme.eq_ignore_ascii_case("basic") {
        return Some(Challenge::Basic);
    }
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let mut realm = None;
    let mut service = None;
    let mut scope = None;
    let mut rest = params.trim();
    while !rest.is_empty() {
        let (key, after) = rest.split_once('=')?;
        let key = key
            .trim()
            .trim_start_matches(',')
            .trim()
            .to_ascii_lowercase();
        let after = after.trim_start();
        let (value, remaining) = if let Some(quoted) = after.strip_prefix('"') {
            let end = quoted.find('"')?;
            (&quoted[..end], &quoted[end + 1..])
        } else {
            let end = after.find(',').unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        match key.as_str() {
            "realm" => realm = Some(value.to_string()),
            "service" => service = Some(value.to_string()),
            "scope" => scope = Some(value.to_string()),
            _ => {}
        }
        rest = remaining.trim_start().trim_start_matches(',').trim_start();
    }
    Some(Challenge::Bearer {
        realm: realm?,
        service,
        scope,
    })
}

/// A manifest as the registry described it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ManifestInfo {
    /// `sha256:…`, from `Docker-Content-Digest` (or computed from the body).
    pub digest: Option<String>,
    pub media_type: Option<String>,
}

/// One repository of one registry, with the session's token.
pub(crate) struct Registry {
    http: Http,
    base: Url,
    reference: Reference,
    login: Option<Login>,
    /// `pull` or `pull,push`: the scope asked of a token realm.
    actions: &'static str,
    /// The credential requests carry now (none, Basic, or the realm's token).
    current: Mutex<Option<Credential>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("base", &self.base.as_str())
            .field("repository", &self.reference.repository)
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// `http`'s own credential is ignored: the registry's comes from `login` and the challenge.
    pub(crate) fn new(
        http: &Http,
        reference: &Reference,
        login: Option<Login>,
        push: bool,
    ) -> Result<Registry, OciError> {
        let base = reference.base_url()?;
        crate::forge::http::check_url(&base).map_err(|err| OciError::Http(Box::new(err)))?;
        let current = match &login {
            Some(Login::Token(token)) => Some(Credential::bearer(token.clone()).for_origin(&base)),
            _ => None,
        };
        Ok(Registry {
            http: http.with_credential(None),
            base,
            reference: reference.clone(),
            login,
            actions: if push { "pull,push" } else { "pull" },
            current: Mutex::new(current),
        })
    }

    fn url(&self, tail: &str) -> Result<Url, OciError> {
        let text = format!(
            "{}v2/{}/{tail}",
            self.base.as_str(),
            self.reference.repository
        );
        Url::parse(&text).map_err(|err| OciError::BadReference {
            reference: text,
            reason: err.to_string(),
        })
    }

    fn credential(&self) -> Option<Credential> {
        self.current.lock().ok().and_then(|c| c.clone())
    }

    /// Sends `request` with the session's credential; on a `401`, answers the challenge once
    /// and sends it again.
    async fn send(&self, request: Request) -> Result<crate::forge::http::Response, OciError> {
        self.send_with(&self.http, request).await
    }

    /// [`Registry::send`] on `http` (the session's client with other bounds).
    async fn send_with(
        &self,
        http: &Http,
        request: Request,
    ) -> Result<crate::forge::http::Response, OciError> {
        let first = http
            .with_credential(self.credential())
            .send(request.clone())
            .await;
        let rejection = match &first {
            Err(HttpError::Rejected(rejection)) if rejection.status == StatusCode::UNAUTHORIZED => {
                rejection
            }
            _ => return first.map_err(|err| OciError::Http(Box::new(err))),
        };
        let challenge = rejection
            .header("www-authenticate")
            .and_then(parse_challenge);
        let message = rejection.message.clone();
        // After a redirect (registry.k8s.io sends pulls to a regional Artifact Registry) the
        // challenge comes from the storage registry: its token is for it.
        let challenger = rejection.url.clone();
        let Some(challenge) = challenge else {
            return Err(self.unauthorized(message));
        };
        let credential = self.answer(&challenge, &challenger).await?;
        let Some(credential) = credential else {
            return Err(self.unauthorized(message));
        };
        if let Ok(mut current) = self.current.lock() {
            *current = Some(credential.clone());
        }
        match http.with_credential(Some(credential)).send(request).await {
            Err(HttpError::Rejected(rejection)) if rejection.status == StatusCode::UNAUTHORIZED => {
                Err(self.unauthorized(rejection.message.clone()))
            }
            other => other.map_err(|err| OciError::Http(Box::new(err))),
        }
    }

    fn unauthorized(&self, message: String) -> OciError {
        OciError::Unauthorized {
            registry: self.reference.registry.clone(),
            repository: self.reference.repository.clone(),
            message,
            with_login: self.login.is_some(),
        }
    }

    /// The credential that answers `challenge`, or `None` when there is nothing to answer with.
    /// Only the registry's own origin answers with the login: a challenge from another origin
    /// (the storage a redirect led to) gets an anonymous token from its realm, for it alone.
    async fn answer(
        &self,
        challenge: &Challenge,
        challenger: &Url,
    ) -> Result<Option<Credential>, OciError> {
        let own = crate::forge::url::same_origin(challenger, &self.base);
        let login = if own { self.login.as_ref() } else { None };
        match challenge {
            Challenge::Basic => Ok(match login {
                Some(Login::Basic { user, password }) => {
                    Credential::basic(user, password).map(|c| c.for_origin(&self.base))
                }
                _ => None,
            }),
            Challenge::Bearer {
                realm,
                service,
                scope,
            } => {
                if matches!(login, Some(Login::Token(_))) {
                    // The access token was refused as it is; there is nothing else to try.
                    return Ok(None);
                }
                let mut url = Url::parse(realm).map_err(|err| OciError::Unexpected {
                    url: self.base.to_string(),
                    reason: format!("its token realm `{realm}` is not a URL: {err}"),
                })?;
                let what = format!("get a token for `{}`", self.reference.name());
                crate::forge::http::check_hop(challenger, &url, &what)
                    .map_err(|err| OciError::Http(Box::new(err)))?;
                let ours = format!("repository:{}:{}", self.reference.repository, self.actions);
                {
                    let mut query = url.query_pairs_mut();
                    if let Some(service) = service {
                        query.append_pair("service", service);
                    }
                    query.append_pair("scope", &ours);
                    if let Some(scope) = scope
                        && scope != &ours
                    {
                        query.append_pair("scope", scope);
                    }
                }
                let login = match login {
                    Some(Login::Basic { user, password }) => {
                        Credential::basic(user, password).map(|c| c.for_origin(&url))
                    }
                    _ => None,
                };
                let response = self
                    .http
                    .with_credential(login)
                    .send(Request::new(Method::GET, url.clone(), what))
                    .await
                    .map_err(|err| match err {
                        HttpError::Rejected(rejection)
                            if matches!(rejection.status.as_u16(), 401 | 403) =>
                        {
                            self.unauthorized(rejection.message.clone())
                        }
                        other => OciError::Http(Box::new(other)),
                    })?;
                let json: serde_json::Value =
                    serde_json::from_slice(&response.body).map_err(|_| OciError::Unexpected {
                        url: without_query(&url),
                        reason: "the token answer is not JSON".into(),
                    })?;
                let token = json
                    .get("token")
                    .or_else(|| json.get("access_token"))
                    .and_then(|t| t.as_str())
                    .and_then(Secret::new)
                    .ok_or_else(|| OciError::Unexpected {
                        url: without_query(&url),
                        reason: "the token answer has no `token`".into(),
                    })?;
                Ok(Some(Credential::bearer(token).for_origin(challenger)))
            }
        }
    }

    /// The manifest `reference` (a tag or a digest) points at, or `None` when there is none.
    pub(crate) async fn head_manifest(
        &self,
        reference: &str,
    ) -> Result<Option<ManifestInfo>, OciError> {
        let url = self.url(&format!("manifests/{reference}"))?;
        let what = format!("look up `{}:{reference}`", self.reference.name());
        let request = Request::new(Method::HEAD, url, what)
            .header(ACCEPT, MANIFEST_ACCEPT)
            .follow_redirects();
        match self.send(request).await {
            Ok(response) => Ok(Some(ManifestInfo {
                digest: response.header(DIGEST_HEADER).map(str::to_string),
                media_type: response.header("content-type").map(str::to_string),
            })),
            Err(err) if err.is_not_found() => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// The manifest's bytes and media type; `None` when there is none.
    pub(crate) async fn get_manifest(
        &self,
        reference: &str,
    ) -> Result<Option<(Bytes, ManifestInfo)>, OciError> {
        let url = self.url(&format!("manifests/{reference}"))?;
        let what = format!("read the manifest `{}:{reference}`", self.reference.name());
        let request = Request::new(Method::GET, url, what)
            .header(ACCEPT, MANIFEST_ACCEPT)
            .follow_redirects();
        match self.send(request).await {
            Ok(response) => {
                let computed = digest_of(&response.body);
                Ok(Some((
                    response.body.clone(),
                    ManifestInfo {
                        digest: Some(computed),
                        media_type: response.header("content-type").map(str::to_string),
                    },
                )))
            }
            Err(err) if err.is_not_found() => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// Stores a manifest under `reference` (a tag or its digest); returns the digest the
    /// registry reports. The same bytes may be put again harmlessly, so it is retried.
    pub(crate) async fn put_manifest(
        &self,
        reference: &str,
        media_type: &str,
        body: Bytes,
    ) -> Result<Option<String>, OciError> {
        let url = self.url(&format!("manifests/{reference}"))?;
        let what = format!("push the manifest `{}:{reference}`", self.reference.name());
        let request = Request::new(Method::PUT, url, what)
            .header(CONTENT_TYPE, media_type)
            .body(body)
            .retry(Retry::Idempotent);
        let response = self.send(request).await?;
        Ok(response.header(DIGEST_HEADER).map(str::to_string))
    }

    /// Every tag of the repository (`GET /v2/<name>/tags/list`), every page of its `Link: <…>;
    /// rel="next"` within [`pages`]' bounds, on the registry's own origin only (the login goes
    /// nowhere else); empty when the repository does not exist yet (`404 NAME_UNKNOWN`).
    pub(crate) async fn tags(&self) -> Result<Vec<String>, OciError> {
        #[derive(serde::Deserialize)]
        struct TagList {
            // Some registries answer `"tags": null` for a repository without tags.
            #[serde(default)]
            tags: Option<Vec<String>>,
        }
        let what = format!("list the tags of `{}`", self.reference.name());
        let first = self.url("tags/list")?;
        let what = what.as_str();
        let first_page = &first;
        pages::all_pages(
            first.clone(),
            what,
            self.http.policy(),
            |url| async move {
                let request = Request::new(Method::GET, url.clone(), what.to_string());
                let response = match self.send(request).await {
                    Ok(response) => response,
                    Err(err) if err.is_not_found() && url == *first_page => {
                        return Ok(Page {
                            items: Vec::new(),
                            bytes: 0,
                            link: None,
                        });
                    }
                    Err(err) => return Err(err),
                };
                let page: TagList =
                    serde_json::from_slice(&response.body).map_err(|err| OciError::Unexpected {
                        url: without_query(&url),
                        reason: format!("the tag list is not JSON with `tags`: {err}"),
                    })?;
                Ok(Page {
                    items: page.tags.unwrap_or_default(),
                    bytes: response.body.len(),
                    link: response.header("link").map(str::to_string),
                })
            },
            OciError::List,
        )
        .await
    }

    /// Whether the repository holds the blob.
    pub(crate) async fn blob_exists(&self, digest: &str) -> Result<bool, OciError> {
        let url = self.blob_url(digest)?;
        let what = format!("look up blob `{digest}` in `{}`", self.reference.name());
        match self.send(Request::new(Method::HEAD, url, what)).await {
            Ok(_) => Ok(true),
            Err(err) if err.is_not_found() => Ok(false),
            Err(err) => Err(err),
        }
    }

    /// The blob's bytes (registries may redirect to storage, which gets no credential).
    pub(crate) async fn get_blob(&self, digest: &str) -> Result<Bytes, OciError> {
        self.get_blob_within(digest, self.http.policy().max_download)
            .await
    }

    /// The blob's bytes, refused beyond `limit` bytes: what is left of a bound several reads
    /// share.
    pub(crate) async fn get_blob_within(
        &self,
        digest: &str,
        limit: u64,
    ) -> Result<Bytes, OciError> {
        let url = self.blob_url(digest)?;
        let what = format!("read blob `{digest}` from `{}`", self.reference.name());
        let response = self
            .send_with(
                &self.http.with_max_download(limit),
                Request::new(Method::GET, url, what).follow_redirects(),
            )
            .await?;
        Ok(response.body)
    }

    /// `…/blobs/<digest>`, for a digest that is one: a manifest's text never steers a request
    /// to another path of the registry.
    fn blob_url(&self, digest: &str) -> Result<Url, OciError> {
        if !valid_digest(digest) {
            return Err(OciError::BadDigest {
                digest: digest.chars().take(80).collect(),
            });
        }
        self.url(&format!("blobs/{digest}"))
    }

    /// Uploads a blob in one piece: `POST` opens a session, `PUT` sends the bytes with their
    /// digest. A failure whose effect is unknown (a cut connection, a 5xx) is followed by a
    /// look at what the registry kept, and the whole upload is tried again when the blob is not
    /// there: a blob is stored under its digest, so uploading it twice does no harm.
    pub(crate) async fn upload_blob(&self, digest: &str, body: Bytes) -> Result<(), OciError> {
        let attempts = self.http.policy().attempts.max(1);
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.upload_blob_once(digest, body.clone()).await {
                Ok(()) => return Ok(()),
                Err(err) if err.is_uncertain() && attempt < attempts => {
                    if self.blob_exists(digest).await.unwrap_or(false) {
                        return Ok(());
                    }
                    let delay = self.http.policy().backoff(attempt);
                    self.http.clock().sleep(delay).await;
                }
                Err(err) => return Err(err),
            }
        }
    }

    async fn upload_blob_once(&self, digest: &str, body: Bytes) -> Result<(), OciError> {
        let url = self.url("blobs/uploads/")?;
        let name = self.reference.name();
        // Opening a session changes nothing visible: safe to repeat.
        let start = Request::new(
            Method::POST,
            url.clone(),
            format!("start an upload to `{name}`"),
        )
        .retry(Retry::Idempotent);
        let response = self.send(start).await?;
        let location = response
            .header("location")
            .ok_or_else(|| OciError::Unexpected {
                url: url.to_string(),
                reason: "the upload session has no `Location`".into(),
            })?;
        let mut put_url = url.join(location).map_err(|err| OciError::Unexpected {
            url: url.to_string(),
            reason: format!("its upload `Location` is not a URL: {err}"),
        })?;
        // The blobs and the login are for this registry: a session elsewhere is not followed.
        if !crate::forge::url::same_origin(&put_url, &self.base) {
            return Err(OciError::ForeignUpload {
                registry: self.reference.registry.clone(),
                location: origin_text(&put_url),
            });
        }
        put_url.query_pairs_mut().append_pair("digest", digest);
        let put = Request::new(
            Method::PUT,
            put_url,
            format!("upload blob `{digest}` to `{name}`"),
        )
        .header(CONTENT_TYPE, "application/octet-stream")
        .body(body)
        .retry(Retry::RateLimitsOnly);
        self.send(put).await?;
        Ok(())
    }
}

/// `scheme://host[:port]` of `url`, for messages (no path, query or user).
fn origin_text(url: &Url) -> String {
    url.origin().ascii_serialization()
}

fn without_query(url: &Url) -> String {
    let mut clean = url.clone();
    clean.set_query(None);
    clean.to_string()
}

/// `sha256:` and 64 lower-case hex digits, or `sha512:` and 128: the digests registries store
/// blobs under (the OCI image spec's registered algorithms).
pub(crate) fn valid_digest(text: &str) -> bool {
    let hex_of = |hex: &str, len: usize| {
        hex.len() == len
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    match text.split_once(':') {
        Some(("sha256", hex)) => hex_of(hex, 64),
        Some(("sha512", hex)) => hex_of(hex, 128),
        _ => false,
    }
}

/// `sha256:<hex>` of `bytes`.
pub(crate) fn digest_of(bytes: &[u8]) -> String {
    format!("sha256:{}", crate::checksums::sha256_hex(bytes))
}

/// A registry tag with every character it may not hold replaced (`+` of semver build metadata
/// becomes `_`, as Helm does).
pub(crate) fn tag_for(version: &str) -> String {
    version
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Why talking to a registry failed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OciError {
    #[error("`{reference}` is not a registry reference: {reason}")]
    BadReference { reference: String, reason: String },
    #[error(transparent)]
    Login(#[from] LoginError),
    #[error(
        "the registry `{registry}` refused access to `{repository}`{}{}",
        if *with_login { " with the login given" } else { " without a login" },
        if message.is_empty() { String::new() } else { format!(" ({message})") }
    )]
    Unauthorized {
        registry: String,
        repository: String,
        message: String,
        with_login: bool,
    },
    #[error("the registry answered `{url}` with something capkg cannot read: {reason}")]
    Unexpected { url: String, reason: String },
    #[error(
        "the registry `{registry}` asked for the upload to go to `{location}`, another host: capkg sends blobs and the login only to the registry named"
    )]
    ForeignUpload { registry: String, location: String },
    #[error(
        "`{digest}` is not a digest: a layer's digest is `sha256:` and 64 lower-case hex digits, or `sha512:` and 128"
    )]
    BadDigest { digest: String },
    #[error(transparent)]
    Http(Box<HttpError>),
    #[error(transparent)]
    List(pages::ListError),
}

impl OciError {
    /// A `404` (or the `401`/`403` some registries give for a repository that does not exist
    /// is not treated so: that is a refusal).
    pub(crate) fn is_not_found(&self) -> bool {
        matches!(self, OciError::Http(err) if err.rejection().is_some_and(|r| r.status == StatusCode::NOT_FOUND))
    }

    /// A cut connection or a 5xx: what the registry did is unknown.
    pub(crate) fn is_uncertain(&self) -> bool {
        matches!(self, OciError::Http(err) if err.is_uncertain())
    }
}

impl Classified for OciError {
    fn class(&self) -> ErrorClass {
        match self {
            OciError::BadReference { .. }
            | OciError::Unauthorized { .. }
            | OciError::ForeignUpload { .. }
            | OciError::BadDigest { .. } => ErrorClass::Refusal,
            OciError::Http(err) if err.rejection().is_some() => ErrorClass::Refusal,
            OciError::Http(err) if matches!(**err, HttpError::Insecure { .. }) => {
                ErrorClass::Refusal
            }
            _ => ErrorClass::Fault,
        }
    }

    fn hint(&self) -> Option<String> {
        match self {
            OciError::Unauthorized {
                with_login: false, ..
            } => Some(format!("give a login: {LOGIN_SOURCES}")),
            OciError::Unauthorized {
                with_login: true, ..
            } => Some(format!(
                "the login is wrong, expired or lacks access to the repository; check {LOGIN_SOURCES}"
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_parse_with_and_without_tag_port_and_scheme() {
        let r = Reference::parse("ghcr.io/org/providers/aws:v1.2.3").unwrap();
        assert_eq!(
            (
                r.plain_http,
                r.registry.as_str(),
                r.repository.as_str(),
                r.tag.as_deref()
            ),
            (false, "ghcr.io", "org/providers/aws", Some("v1.2.3"))
        );
        let r = Reference::parse("http://127.0.0.1:5000/capi/aws").unwrap();
        assert!(r.plain_http);
        assert_eq!(r.registry, "127.0.0.1:5000");
        assert_eq!(r.tag, None);
        assert_eq!(r.base_url().unwrap().as_str(), "http://127.0.0.1:5000/");
        let r = Reference::parse("oci://localhost:5000/a/b:latest").unwrap();
        assert_eq!(r.tag.as_deref(), Some("latest"));
        assert!(Reference::parse("ghcr.io").is_err());
        assert!(Reference::parse("ghcr.io/Org/aws").is_err());
        assert!(Reference::parse("ghcr.io/org/aws@sha256:00").is_err());
        assert!(Reference::parse("ghcr.io/org/aws:-bad").is_err());
        assert!(Reference::parse("ghcr.io/org//aws").is_err());
    }

    #[test]
    fn digests_are_an_algorithm_and_its_hex() {
        let hex64 = "0123456789abcdef".repeat(4);
        assert!(valid_digest(&format!("sha256:{hex64}")));
        assert!(valid_digest(&format!("sha512:{hex64}{hex64}")));
        for bad in [
            format!("sha256:{}", hex64.to_uppercase()),
            format!("sha256:{hex64}0"),
            format!("sha512:{hex64}"),
            format!("md5:{}", &hex64[..32]),
            "sha256:../../other/manifests/latest".to_string(),
            format!("sha256:{}/..", &hex64[..61]),
            String::new(),
        ] {
            assert!(!valid_digest(&bad), "{bad}");
        }
    }

    #[test]
    fn a_reference_with_a_login_is_refused_without_repeating_it() {
        for text in [
            "user:hunter2-pass@ghcr.io/org/aws",
            "https://user:hunter2-pass@ghcr.io/org/aws:v1",
            "oci://hunter2-pass@127.0.0.1:5000/org/aws",
            "a:b@c:hunter2-pass@ghcr.io/org/aws",
        ] {
            let err = Reference::parse(text).unwrap_err().to_string();
            assert!(!err.contains("hunter2"), "{err}");
            assert!(err.contains("[redacted]@"), "{err}");
            assert!(err.contains("/org/aws"), "{err}");
        }
    }

    #[test]
    fn challenges_parse_bearer_and_basic() {
        assert_eq!(
            parse_challenge(
                r#"Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull""#
            ),
            Some(Challenge::Bearer {
                realm: "https://auth.example/token".into(),
                service: Some("registry.example".into()),
                scope: Some("repository:a/b:pull".into()),
            })
        );
        assert_eq!(
            parse_challenge(r#"Basic realm="Registry Realm""#),
            Some(Challenge::Basic)
        );
        assert_eq!(parse_challenge("Negotiate"), None);
        assert_eq!(parse_challenge(r#"Bearer service="x""#), None);
    }

    #[tokio::test]
    async fn a_redirected_lookup_answers_the_storage_registrys_challenge() {
        use wiremock::matchers::{header, method, path};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let front = MockServer::start().await;
        let storage = MockServer::start().await;
        const TOKEN: &str = "storage-token-0123456789";
        Mock::given(method("HEAD"))
            .and(path("/v2/pause/manifests/3.9"))
            .respond_with(ResponseTemplate::new(307).insert_header(
                "location",
                format!("{}/v2/pause/manifests/3.9", storage.uri()).as_str(),
            ))
            .mount(&front)
            .await;
        Mock::given(method("HEAD"))
            .and(path("/v2/pause/manifests/3.9"))
            .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
            .respond_with(
                ResponseTemplate::new(200).insert_header("docker-content-digest", "sha256:abc"),
            )
            .with_priority(1)
            .mount(&storage)
            .await;
        Mock::given(method("HEAD"))
            .and(path("/v2/pause/manifests/3.9"))
            .respond_with(
                ResponseTemplate::new(401).insert_header(
                    "www-authenticate",
                    format!(
                        r#"Bearer realm="{}/token",service="storage""#,
                        storage.uri()
                    )
                    .as_str(),
                ),
            )
            .with_priority(2)
            .mount(&storage)
            .await;
        Mock::given(method("GET"))
            .and(path("/token"))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(serde_json::json!({"token": TOKEN})),
            )
            .mount(&storage)
            .await;
        let http = crate::forge::Services::default().http(None).unwrap();
        let reference = Reference::parse(&format!("{}/pause", front.uri())).unwrap();
        let registry = Registry::new(&http, &reference, None, false).unwrap();
        let found = registry.head_manifest("3.9").await.unwrap();
        assert_eq!(found.and_then(|f| f.digest).as_deref(), Some("sha256:abc"));
    }

    /// Distribution's pagination: the next page as a path in `Link`, `last` and `n` in its query.
    #[tokio::test]
    async fn tags_follow_the_next_page_on_the_registry_only() {
        use wiremock::matchers::{method, path, query_param};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let registry_server = MockServer::start().await;
        let elsewhere = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/v2/capi/x/tags/list"))
            .and(query_param("last", "v1.0.0"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(serde_json::json!({"name": "capi/x", "tags": ["v1.1.0"]})),
            )
            .with_priority(1)
            .mount(&registry_server)
            .await;
        Mock::given(method("GET"))
            .and(path("/v2/capi/x/tags/list"))
            .respond_with(
                ResponseTemplate::new(200)
                    .insert_header(
                        "link",
                        r#"</v2/capi/x/tags/list?last=v1.0.0&n=1>; rel="next""#,
                    )
                    .set_body_json(serde_json::json!({"name": "capi/x", "tags": ["v1.0.0"]})),
            )
            .with_priority(2)
            .mount(&registry_server)
            .await;
        Mock::given(method("GET"))
            .and(path("/v2/capi/away/tags/list"))
            .respond_with(
                ResponseTemplate::new(200)
                    .insert_header(
                        "link",
                        format!(
                            r#"<{}/v2/capi/away/tags/list?last=a>; rel="next""#,
                            elsewhere.uri()
                        )
                        .as_str(),
                    )
                    .set_body_json(serde_json::json!({"name": "capi/away", "tags": ["a"]})),
            )
            .mount(&registry_server)
            .await;
        Mock::given(method("GET"))
            .and(path("/v2/capi/none/tags/list"))
            .respond_with(ResponseTemplate::new(404).set_body_json(serde_json::json!(
                {"errors": [{"code": "NAME_UNKNOWN", "message": "repository name not known to registry"}]}
            )))
            .mount(&registry_server)
            .await;
        let http = crate::forge::Services::default().http(None).unwrap();
        let open = |name: &str| {
            let reference =
                Reference::parse(&format!("{}/capi/{name}", registry_server.uri())).unwrap();
            Registry::new(&http, &reference, None, false).unwrap()
        };
        assert_eq!(open("x").tags().await.unwrap(), ["v1.0.0", "v1.1.0"]);
        assert!(open("none").tags().await.unwrap().is_empty());
        let err = open("away").tags().await.unwrap_err().to_string();
        assert!(err.contains("where the list began"), "{err}");
        assert!(elsewhere.received_requests().await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn an_endless_tag_list_ends_at_the_page_bound_with_an_error() {
        use wiremock::matchers::{method, path};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let server = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/v2/capi/x/tags/list"))
            .respond_with(
                ResponseTemplate::new(200)
                    .insert_header("link", r#"</v2/capi/x/tags/list?last=a>; rel="next""#)
                    .set_body_json(serde_json::json!({"name": "capi/x", "tags": ["a"]})),
            )
            .mount(&server)
            .await;
        let services = crate::forge::Services {
            policy: crate::forge::policy::RetryPolicy {
                max_list_pages: 4,
                ..Default::default()
            },
            ..Default::default()
        };
        let http = services.http(None).unwrap();
        let reference = Reference::parse(&format!("{}/capi/x", server.uri())).unwrap();
        let registry = Registry::new(&http, &reference, None, false).unwrap();
        let err = registry.tags().await.unwrap_err().to_string();
        assert!(err.contains("list the tags of"), "{err}");
        assert!(err.contains("past 4 pages"), "{err}");
        assert_eq!(server.received_requests().await.unwrap().len(), 4);
    }

    #[tokio::test]
    async fn a_remote_registry_cannot_name_a_token_realm_on_this_machine() {
        let http = crate::forge::Services::default().http(None).unwrap();
        let reference = Reference::parse("registry.example/o/a").unwrap();
        let login = Login::Basic {
            user: "u".into(),
            password: Secret::new("pw-0123456789").unwrap(),
        };
        let registry = Registry::new(&http, &reference, Some(login), false).unwrap();
        let challenge = Challenge::Bearer {
            realm: "http://127.0.0.1:9/token".into(),
            service: None,
            scope: None,
        };
        let err = registry
            .answer(&challenge, &reference.base_url().unwrap())
            .await
            .unwrap_err()
            .to_string();
        assert!(err.contains("local network"), "{err}");
    }

    #[test]
    fn tags_replace_what_a_tag_cannot_hold() {
        assert_eq!(tag_for("v1.2.3+build.5"), "v1.2.3_build.5");
        assert!(valid_tag(&tag_for("v1.2.3-rc.1")));
    }
}
