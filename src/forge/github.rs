//! GitHub's REST API as publish and verify both use it: the default API, the headers every call
//! carries, URL building, the token and the parts of the release and asset objects capkg reads
//! (its lists are read by [`super::pages`]).
//!
//! The models are capkg's own, with only the fields read (GitHub sends many more; serde ignores
//! them), so a response that lacks a field capkg does not need still parses.

use reqwest::header::{ACCEPT, HeaderName};
use reqwest::{Method, Url};
use serde::Deserialize;

use super::http::{self, HttpError, Request};
use super::secret::Secret;

/// github.com's API; `--api-url` or `GITHUB_API_URL` point elsewhere (GitHub Enterprise, tests).
pub(crate) const DEFAULT_API: &str = "https://api.github.com";
/// The REST API version capkg is written against.
pub(crate) const API_VERSION: &str = "2022-11-28";
/// The variables [`token`] reads, in its order, for messages.
pub(crate) const TOKEN_VARIABLES: &str = "GITHUB_TOKEN or GH_TOKEN";

/// A release, as `GET /repos/{o}/{r}/releases` and friends return it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Release {
    pub id: u64,
    pub tag_name: String,
    #[serde(default)]
    pub html_url: String,
    #[serde(default)]
    pub upload_url: String,
    #[serde(default)]
    pub draft: bool,
    #[serde(default)]
    pub prerelease: bool,
    /// Set on releases of repositories with immutable releases turned on.
    #[serde(default)]
    pub immutable: Option<bool>,
    #[serde(default)]
    pub assets: Vec<Asset>,
}

/// A release asset.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Asset {
    pub id: u64,
    pub name: String,
    /// `uploaded` once complete; `starter` for an upload that did not finish.
    #[serde(default)]
    pub state: Option<String>,
    /// `sha256:HEX` where GitHub computed it (not on older servers).
    #[serde(default)]
    pub digest: Option<String>,
}

impl Asset {
    /// Complete: `state` is `uploaded` (or absent, as on servers that do not report it).
    pub(crate) fn is_uploaded(&self) -> bool {
        self.state
            .as_deref()
            .is_none_or(|state| state == "uploaded")
    }
}

/// The token for GitHub: `GITHUB_TOKEN`, else `GH_TOKEN` (the GitHub CLI's). Empty values count
/// as unset. The one place the order is decided, for publish, release and verify.
pub(crate) fn token(env: &dyn Fn(&str) -> Option<String>) -> Option<Secret> {
    token_and_variable(env).map(|(token, _)| token)
}

/// [`token`] and the variable it came from, for reports.
pub(crate) fn token_and_variable(
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<(Secret, &'static str)> {
    ["GITHUB_TOKEN", "GH_TOKEN"]
        .into_iter()
        .find_map(|name| env(name).and_then(Secret::new).map(|token| (token, name)))
}

/// The API root: the flag, else `GITHUB_API_URL` (set in GitHub Actions), else [`DEFAULT_API`].
pub(crate) fn api_url(
    flag: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Url, HttpError> {
    let text = flag
        .map(str::to_string)
        .or_else(|| env("GITHUB_API_URL").filter(|v| !v.trim().is_empty()))
        .unwrap_or_else(|| DEFAULT_API.to_string());
    http::parse_base_url(&text)
}

/// `{api}/repos/{owner}/{repo}{path}`, as text (callers wrap a parse failure in their error).
pub(crate) fn repo_api(api: &Url, owner: &str, repo: &str, path: &str) -> String {
    format!(
        "{}/repos/{owner}/{repo}{path}",
        api.as_str().trim_end_matches('/')
    )
}

/// The web host of an API: `api.github.com` -> `github.com`, `api.TENANT.ghe.com` ->
/// `TENANT.ghe.com`, `HOST/api/v3` -> `HOST`; anything else (a test server) is its own web host.
pub(crate) fn web_base(api: &Url) -> String {
    let host = api.host_str().unwrap_or_default();
    if host == "api.github.com" {
        "https://github.com".to_string()
    } else if let Some(tenant) = host
        .strip_prefix("api.")
        .filter(|h| h.ends_with(".ghe.com"))
    {
        format!("https://{tenant}")
    } else if api.path().trim_end_matches('/').ends_with("/api/v3") {
        api.origin().ascii_serialization()
    } else {
        api.as_str().trim_end_matches('/').to_string()
    }
}

/// A release's page: `{web}/{owner}/{repo}/releases/tag/{tag}` (`web` from [`web_base`]).
pub(crate) fn tag_url(web: &str, repo_path: &str, tag: &str) -> String {
    format!("{web}/{repo_path}/releases/tag/{tag}")
}

/// Where an asset downloads from: `{web}/{owner}/{repo}/releases/download/{tag}/{name}`.
pub(crate) fn download_url(web: &str, repo_path: &str, tag: &str, name: &str) -> String {
    format!("{web}/{repo_path}/releases/download/{tag}/{name}")
}

/// The URL clusterctl's `providers:` entry uses: github.com (the only host clusterctl reads
/// GitHub releases from), no `download/`.
pub(crate) fn clusterctl_url(repo_path: &str, tag: &str, components: &str) -> String {
    format!("https://github.com/{repo_path}/releases/{tag}/{components}")
}

/// A request with the headers every GitHub API call carries.
pub(crate) fn request(method: Method, url: Url, what: String) -> Request {
    Request::new(method, url, what)
        .header(ACCEPT, "application/vnd.github+json")
        .header(HeaderName::from_static("x-github-api-version"), API_VERSION)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_token_is_github_token_then_gh_token() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let both = env(&[
            ("GITHUB_TOKEN", "first-token"),
            ("GH_TOKEN", "second-token"),
        ]);
        assert_eq!(
            token(&both).map(|s| s.expose().to_string()).as_deref(),
            Some("first-token")
        );
        let empty_first = env(&[("GITHUB_TOKEN", ""), ("GH_TOKEN", "second-token")]);
        assert_eq!(
            token(&empty_first)
                .map(|s| s.expose().to_string())
                .as_deref(),
            Some("second-token")
        );
        assert!(token(&env(&[])).is_none());
    }

    #[test]
    fn models_parse_with_only_the_fields_read() {
        let release: Release = serde_json::from_str(
            r#"{"id": 7, "tag_name": "v1.0.0", "assets": [{"id": 3, "name": "a.yaml", "extra": 1}]}"#,
        )
        .unwrap();
        assert_eq!(release.id, 7);
        assert!(!release.draft);
        assert!(release.assets[0].is_uploaded());
        let starter: Asset =
            serde_json::from_str(r#"{"id": 4, "name": "b", "state": "starter"}"#).unwrap();
        assert!(!starter.is_uploaded());
    }
}
