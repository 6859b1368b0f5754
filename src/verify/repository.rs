//! Reading files from a provider repository the way clusterctl's repository clients do:
//! `GetVersions` and `GetFile(version, file)` for GitHub, GitLab and local repositories, with
//! clusterctl's notion of which failures mean "not found" (§5.2, §5.3, §5.5).
//!
//! Requests go through [`crate::forge::http`], so retries, rate limits, redirects that drop the
//! token, the https-only rule and redaction are the same as publishing's.
//!
//! GitHub is read through its REST API (clusterctl with `GOPROXY=off`): the go proxy and the
//! `github.com/…/releases/download/…` URLs cannot be pointed at GitHub Enterprise or a test
//! server, the API can (`--api-url`). The github.com URL maps to the API as
//! `https://github.com/{o}/{r}/releases/{tag}/{file}` ->
//! `GET {api}/repos/{o}/{r}/releases/tags/{tag}` (the release and its assets), then
//! `GET {api}/repos/{o}/{r}/releases/assets/{id}` with `Accept: application/octet-stream`
//! (following the redirect to the storage host without the token); versions come from
//! `GET {api}/repos/{o}/{r}/releases?per_page=100`, every page.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use bytes::Bytes;
use reqwest::header::ACCEPT;
use reqwest::{Method, StatusCode, Url};

use super::Error;
use super::source::{GitHubSource, GitLabSource, LocalSource};
use crate::checksums::CHECKSUMS_FILE;
use crate::forge::clock::BoxFuture;
use crate::forge::github::{self as forge, Release};
use crate::forge::http::{Http, HttpError, Request};
use crate::forge::pages::{self, Page};
use crate::forge::url::file_url;
use crate::provider::FileRole;
use crate::version::Version;

/// Why a file could not be read; `NotFound` is what clusterctl's latest resolution skips.
#[derive(Debug)]
pub(crate) enum Fetch {
    /// clusterctl's `errNotFound`: the release does not exist (yet).
    NotFound(Error),
    Failed(Error),
}

impl Fetch {
    pub(crate) fn into_error(self) -> Error {
        match self {
            Fetch::NotFound(e) | Fetch::Failed(e) => e,
        }
    }
}

/// A version a repository holds, as [`Repository::published`] lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listed {
    pub version: String,
    /// A GitHub release still a draft: listed to those who may publish, but no release
    /// clusterctl can download (the by-tag lookup hides it).
    pub draft: bool,
}

impl Listed {
    pub(crate) fn release(version: String) -> Self {
        Self {
            version,
            draft: false,
        }
    }

    /// Versions that are all releases (no repository but GitHub has drafts).
    fn releases(versions: Vec<String>) -> Vec<Self> {
        versions.into_iter().map(Self::release).collect()
    }
}

/// A provider repository.
pub(crate) trait Repository: Send + Sync {
    /// The versions the repository offers, as clusterctl's `GetVersions` lists them.
    fn versions(&self) -> BoxFuture<'_, Result<Vec<String>, Error>>;

    /// Every version published here, for finding the release before a new one (`capkg
    /// release`); the versions clusterctl lists unless the repository can say more.
    fn published(&self) -> BoxFuture<'_, Result<Vec<Listed>, Error>> {
        Box::pin(async move { Ok(Listed::releases(self.versions().await?)) })
    }

    /// One file of one version.
    fn file<'a>(&'a self, version: &'a str, name: &'a str) -> BoxFuture<'a, Result<Bytes, Fetch>>;

    /// The names of the files of a version, when the repository can list them.
    fn list<'a>(&'a self, version: &'a str) -> BoxFuture<'a, Result<Option<Vec<String>>, Error>>;

    /// Where a file is, for reports.
    fn url(&self, version: &str, name: &str) -> String;
}

// --- GitHub ---

pub(crate) struct GitHubRepository {
    source: GitHubSource,
    api: Url,
    http: Http,
    releases: Mutex<HashMap<String, Option<Release>>>,
}

impl GitHubRepository {
    pub(crate) fn new(source: GitHubSource, api: Url, http: Http) -> Self {
        Self {
            source,
            api,
            http,
            releases: Mutex::new(HashMap::new()),
        }
    }

    fn repo(&self) -> String {
        format!("{}/{}", self.source.owner, self.source.repo)
    }

    fn api_url(&self, path: &str) -> Result<Url, Error> {
        let text = forge::repo_api(&self.api, &self.source.owner, &self.source.repo, path);
        Url::parse(&text).map_err(|e| Error::Unexpected {
            url: text,
            reason: e.to_string(),
        })
    }

    fn call(&self, url: Url, what: String) -> Request {
        forge::request(Method::GET, url, what)
    }

    /// The release for `tag`, `None` on 404 (drafts are hidden by this endpoint, as for
    /// clusterctl).
    async fn release(&self, tag: &str) -> Result<Option<Release>, Error> {
        if let Ok(cache) = self.releases.lock()
            && let Some(found) = cache.get(tag)
        {
            return Ok(found.clone());
        }
        let url = self.api_url(&format!("/releases/tags/{}", escape_segment(tag)))?;
        let what = format!("read the release `{tag}` of `{}`", self.repo());
        let found = match self.http.send(self.call(url, what.clone())).await {
            Ok(response) => Some(json::<Release>(&response.body, &response.url)?),
            Err(HttpError::Rejected(rejection)) if rejection.status == StatusCode::NOT_FOUND => {
                None
            }
            Err(err) => return Err(github_error(what, err)),
        };
        if let Ok(mut cache) = self.releases.lock() {
            cache.insert(tag.to_string(), found.clone());
        }
        Ok(found)
    }

    fn asset_name(&self, file: &str) -> String {
        if self.source.root_path == "." {
            file.to_string()
        } else {
            format!("{}/{file}", self.source.root_path)
        }
    }

    async fn fetch(&self, version: &str, file: &str) -> Result<Bytes, Fetch> {
        let release = self
            .release(version)
            .await
            .map_err(Fetch::Failed)?
            .ok_or_else(|| {
                // `repository_github.go`: errNotFound ("404 Not Found") wrapped.
                Fetch::NotFound(Error::NotFound {
                    what: format!(
                        "{RELEASE_NOT_FOUND} {version}, please retry later or set \"GOPROXY=off\" to get the current stable release: 404 Not Found"
                    ),
                    url: self.web_url(version, file),
                })
            })?;
        let name = self.asset_name(file);
        let asset = release
            .assets
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| {
                Fetch::Failed(Error::NotFound {
                    what: format!(
                        "failed to get file {file:?} from {:?} release",
                        release.tag_name
                    ),
                    url: self.web_url(version, file),
                })
            })?;
        if !asset.is_uploaded() {
            return Err(Fetch::Failed(Error::NotFound {
                what: format!(
                    "the asset {name:?} of release {version:?} is not completely uploaded"
                ),
                url: self.web_url(version, file),
            }));
        }
        let url = self
            .api_url(&format!("/releases/assets/{}", asset.id))
            .map_err(Fetch::Failed)?;
        let what = format!("download `{name}` of release `{version}`");
        let request = self
            .call(url, what.clone())
            .header(ACCEPT, "application/octet-stream")
            .follow_redirects();
        self.http
            .send(request)
            .await
            .map(|r| r.body)
            .map_err(|e| Fetch::Failed(github_error(what, e)))
    }

    async fn list_versions(&self) -> Result<Vec<Listed>, Error> {
        /// Only the tag of each release and whether it is a draft are kept: the list is held in
        /// memory whole.
        #[derive(serde::Deserialize)]
        struct Tagged {
            tag_name: String,
            #[serde(default)]
            draft: bool,
        }
        let what = format!("list the releases of `{}`", self.repo());
        let first = self.api_url("/releases?per_page=100")?;
        let what = what.as_str();
        let releases: Vec<Tagged> = pages::all_pages(
            first,
            what,
            self.http.policy(),
            |url| async move {
                let response = self
                    .http
                    .send(self.call(url, what.to_string()))
                    .await
                    .map_err(|e| github_error(what.to_string(), e))?;
                Ok(Page {
                    items: json(&response.body, &response.url)?,
                    bytes: response.body.len(),
                    link: response.header("link").map(str::to_string),
                })
            },
            Error::List,
        )
        .await?;
        Ok(releases
            .into_iter()
            .filter(|r| Version::parse(&r.tag_name).is_ok())
            .map(|r| Listed {
                version: r.tag_name,
                draft: r.draft,
            })
            .collect())
    }

    /// The github.com URL clusterctl's configuration holds, each segment escaped as in a URL
    /// (`another file` is `another%20file`).
    fn web_url(&self, version: &str, file: &str) -> String {
        let path: Vec<String> = self
            .asset_name(file)
            .split('/')
            .map(escape_segment)
            .collect();
        format!(
            "https://github.com/{}/releases/{}/{}",
            self.repo(),
            escape_segment(version),
            path.join("/")
        )
    }
}

impl Repository for GitHubRepository {
    /// Drafts too, as clusterctl lists them with a token that may see them (its latest
    /// resolution then skips them: the by-tag lookup does not find a draft).
    fn versions(&self) -> BoxFuture<'_, Result<Vec<String>, Error>> {
        Box::pin(async move {
            Ok(self
                .list_versions()
                .await?
                .into_iter()
                .map(|listed| listed.version)
                .collect())
        })
    }

    fn published(&self) -> BoxFuture<'_, Result<Vec<Listed>, Error>> {
        Box::pin(self.list_versions())
    }

    fn file<'a>(&'a self, version: &'a str, name: &'a str) -> BoxFuture<'a, Result<Bytes, Fetch>> {
        Box::pin(self.fetch(version, name))
    }

    fn list<'a>(&'a self, version: &'a str) -> BoxFuture<'a, Result<Option<Vec<String>>, Error>> {
        Box::pin(async move {
            let prefix = if self.source.root_path == "." {
                String::new()
            } else {
                format!("{}/", self.source.root_path)
            };
            Ok(self.release(version).await?.map(|release| {
                release
                    .assets
                    .into_iter()
                    .filter_map(|a| a.name.strip_prefix(&prefix).map(str::to_string))
                    .collect()
            }))
        })
    }

    fn url(&self, version: &str, name: &str) -> String {
        self.web_url(version, name)
    }
}

/// The start of clusterctl's message for a tag without a release.
pub(super) const RELEASE_NOT_FOUND: &str = "release not found for version";

/// A failed GitHub call; a rate limit capkg could not wait out is clusterctl's `errRateLimit`.
fn github_error(what: String, error: HttpError) -> Error {
    match error {
        HttpError::WaitTooLong { .. } | HttpError::StillRateLimited { .. } => Error::RateLimited {
            source: Box::new(error),
        },
        other => Error::http(what, other),
    }
}

fn json<T: serde::de::DeserializeOwned>(body: &[u8], url: &Url) -> Result<T, Error> {
    serde_json::from_slice(body).map_err(|e| Error::Unexpected {
        url: url.to_string(),
        reason: e.to_string(),
    })
}

/// Percent-escapes what a path segment cannot hold (tags may contain `+`, `/` is not allowed).
fn escape_segment(text: &str) -> String {
    crate::forge::encoding::percent_encode(text)
}

// --- GitLab ---

pub(crate) struct GitLabRepository {
    source: GitLabSource,
    http: Http,
}

impl GitLabRepository {
    pub(crate) fn new(source: GitLabSource, http: Http) -> Self {
        Self { source, http }
    }

    async fn fetch(&self, version: &str, file: &str) -> Result<Bytes, Fetch> {
        let text = self.source.file_url(version, file);
        let url = Url::parse(&text).map_err(|e| {
            Fetch::Failed(Error::Unexpected {
                url: text.clone(),
                reason: e.to_string(),
            })
        })?;
        let what = format!("fetch `{file}` of package version `{version}`");
        match self
            .http
            .send(Request::new(Method::GET, url, what.clone()).follow_redirects())
            .await
        {
            Ok(response) => Ok(response.body),
            Err(HttpError::Rejected(rejection)) if rejection.status == StatusCode::UNAUTHORIZED => {
                Err(Fetch::Failed(Error::Refused {
                    message: format!(
                        "failed to get file {file:?} with version {version:?} from {text:?}: unauthorized access, please check your credentials"
                    ),
                    hint: Some(
                        "set GITLAB_ACCESS_TOKEN (the variable clusterctl reads), GITLAB_TOKEN or CI_JOB_TOKEN".into(),
                    ),
                }))
            }
            Err(HttpError::Rejected(rejection)) => Err(Fetch::Failed(Error::NotFound {
                what: format!(
                    "failed to get file {file:?} with version {version:?} from {text:?}, got {}",
                    rejection.status.as_u16()
                ),
                url: text,
            })),
            Err(err) => Err(Fetch::Failed(Error::http(what, err))),
        }
    }

    /// The versions of the project's generic packages named as this one, through the packages
    /// API (`GET {api}/projects/:id/packages?package_type=generic&package_name=NAME`, every page
    /// of its `Link: rel="next"`, within [`pages`]' bounds): GitLab matches the name fuzzily, so
    /// only exact names count, and only packages in the `default` state (not hidden, still
    /// processing, failed or being deleted).
    async fn package_versions(&self) -> Result<Vec<String>, Error> {
        #[derive(serde::Deserialize)]
        struct Package {
            name: String,
            version: String,
            #[serde(default)]
            status: Option<String>,
        }
        let source = &self.source;
        let text = format!(
            "{}/api/v4/projects/{}/packages?package_type=generic&package_name={}&per_page=100",
            source.origin,
            source.project,
            crate::forge::encoding::percent_encode(&source.package)
        );
        let first = Url::parse(&text).map_err(|e| Error::Unexpected {
            url: text.clone(),
            reason: e.to_string(),
        })?;
        let what = format!("list the versions of package `{}`", source.package);
        let what = what.as_str();
        let packages: Vec<Package> = pages::all_pages(
            first,
            what,
            self.http.policy(),
            |url| async move {
                let response = self
                    .http
                    .send(Request::new(Method::GET, url, what.to_string()))
                    .await
                    .map_err(|e| gitlab_error(what, e))?;
                Ok(Page {
                    items: json(&response.body, &response.url)?,
                    bytes: response.body.len(),
                    link: response.header("link").map(str::to_string),
                })
            },
            Error::List,
        )
        .await?;
        Ok(packages
            .into_iter()
            .filter(|p| p.name == source.package)
            .filter(|p| p.status.as_deref().is_none_or(|s| s == "default"))
            .map(|p| p.version)
            .collect())
    }
}

/// A failed GitLab API call; a refused token says which variables give one.
fn gitlab_error(what: &str, error: HttpError) -> Error {
    match error {
        HttpError::Rejected(rejection) if matches!(rejection.status.as_u16(), 401 | 403) => {
            Error::Refused {
                message: format!(
                    "GitLab refused to {what} ({}): the packages API needs a token that may read the project",
                    rejection.status.as_u16()
                ),
                hint: Some(format!(
                    "set {} to a token with `read_api` (or pass `--previous VERSION`)",
                    crate::forge::gitlab::TOKEN_VARIABLES
                )),
            }
        }
        other => Error::http(what.to_string(), other),
    }
}

impl Repository for GitLabRepository {
    /// clusterctl lists only the version in the URL (it cannot discover others).
    fn versions(&self) -> BoxFuture<'_, Result<Vec<String>, Error>> {
        let version = self.source.version.clone();
        Box::pin(async move { Ok(vec![version]) })
    }

    fn published(&self) -> BoxFuture<'_, Result<Vec<Listed>, Error>> {
        Box::pin(async move { Ok(Listed::releases(self.package_versions().await?)) })
    }

    fn file<'a>(&'a self, version: &'a str, name: &'a str) -> BoxFuture<'a, Result<Bytes, Fetch>> {
        Box::pin(self.fetch(version, name))
    }

    /// A generic package cannot be listed through the URLs clusterctl uses.
    fn list<'a>(&'a self, _version: &'a str) -> BoxFuture<'a, Result<Option<Vec<String>>, Error>> {
        Box::pin(async { Ok(None) })
    }

    fn url(&self, version: &str, name: &str) -> String {
        self.source.file_url(version, name)
    }
}

// --- local ---

/// A local repository, `{base}/{provider-label}/{version}/{file}`, read as a download is: nothing
/// below the base through a link (the provider and version folders are folders, each file a
/// regular file, opened as [`crate::files::open_regular`] opens release files), and no file of
/// more than `max_bytes` (`--max-download`). A release in a folder is input like a download: a
/// link to `/proc/self/environ`, a FIFO or `/dev/zero` is refused, naming it.
pub(crate) struct LocalRepository {
    source: LocalSource,
    max_bytes: u64,
}

impl LocalRepository {
    pub(crate) fn new(source: LocalSource, max_bytes: u64) -> Self {
        Self { source, max_bytes }
    }

    fn path(&self, version: &str, name: &str) -> PathBuf {
        self.source
            .base
            .join(&self.source.label)
            .join(version)
            .join(name)
    }

    /// The provider's folder, or one of its version folders: refused when it, or the provider
    /// folder above it, is a symbolic link. A missing folder is left to the read that follows,
    /// which says so in clusterctl's words.
    fn folder(&self, version: Option<&str>) -> Result<PathBuf, Error> {
        let mut path = self.source.base.clone();
        for part in std::iter::once(self.source.label.as_str()).chain(version) {
            path.push(part);
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(Error::Refused {
                    message: format!(
                        "`{}` is a symbolic link: capkg reads a local repository's provider and version folders only where they are folders themselves, never through a link (which could lead anywhere on this machine)",
                        path.display()
                    ),
                    hint: Some(
                        "put the release itself in the repository (`cp -R`), or name the folder the link leads to: `--previous FOLDER`, `capkg diff FOLDER NEW`".into(),
                    ),
                });
            }
        }
        Ok(path)
    }

    fn fetch(&self, version: &str, name: &str) -> Result<Bytes, Fetch> {
        let path = self.path(version, name);
        // Every failure is a hard error here: clusterctl's local repository never reports
        // "not found", so a candidate without `metadata.yaml` stops latest resolution.
        let unreadable = |source| {
            Fetch::Failed(Error::Local {
                message: format!(
                    "failed to read file {:?} from local release {version}",
                    path.display().to_string()
                ),
                path: path.clone(),
                source,
            })
        };
        self.folder(Some(version)).map_err(Fetch::Failed)?;
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir()) {
            return Err(Fetch::Failed(Error::NotFound {
                what: format!(
                    "invalid path: file {name:?} is actually a directory {:?}",
                    path.display().to_string()
                ),
                url: file_url(&path),
            }));
        }
        match crate::files::read_regular_within(&path, self.max_bytes) {
            Ok(bytes) => Ok(Bytes::from(bytes)),
            Err(crate::files::Error::Read { source, .. }) => Err(unreadable(source)),
            Err(refused) => Err(Fetch::Failed(Error::Files(refused))),
        }
    }
}

impl Repository for LocalRepository {
    fn versions(&self) -> BoxFuture<'_, Result<Vec<String>, Error>> {
        Box::pin(async move {
            let dir = self.folder(None)?;
            let entries = std::fs::read_dir(&dir).map_err(|source| Error::Local {
                message: "failed to list release directories".into(),
                path: dir.clone(),
                source,
            })?;
            let mut versions = Vec::new();
            for entry in entries.flatten() {
                // A linked version folder is not a version here (nor for clusterctl, whose
                // listing does not follow links either).
                let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                if let (true, Some(name)) = (is_dir, entry.file_name().to_str())
                    && Version::parse(name).is_ok()
                {
                    versions.push(name.to_string());
                }
            }
            versions.sort();
            Ok(versions)
        })
    }

    fn file<'a>(&'a self, version: &'a str, name: &'a str) -> BoxFuture<'a, Result<Bytes, Fetch>> {
        Box::pin(async move { self.fetch(version, name) })
    }

    /// The regular files of the version folder; a release file (a name clusterctl fetches, or
    /// `checksums.txt`) that is a link, a FIFO or a device is refused, not skipped.
    fn list<'a>(&'a self, version: &'a str) -> BoxFuture<'a, Result<Option<Vec<String>>, Error>> {
        Box::pin(async move {
            let dir = self.folder(Some(version))?;
            let Ok(entries) = std::fs::read_dir(&dir) else {
                return Ok(None);
            };
            let mut names = Vec::new();
            for entry in entries.flatten() {
                let (Ok(file_type), Some(name)) = (
                    entry.file_type(),
                    entry.file_name().to_str().map(str::to_string),
                ) else {
                    continue;
                };
                if file_type.is_file() {
                    names.push(name);
                } else if !file_type.is_dir()
                    && (FileRole::from_file_name(&name).is_some() || name == CHECKSUMS_FILE)
                {
                    return Err(Error::Files(crate::files::Error::NotRegular(
                        crate::files::NotRegular {
                            path: entry.path(),
                            kind: crate::files::kind_of(file_type),
                        },
                    )));
                }
            }
            names.sort();
            Ok(Some(names))
        })
    }

    fn url(&self, version: &str, name: &str) -> String {
        file_url(&self.path(version, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The package list's next page elsewhere is not read, and a refused token names the
    /// variables that give one.
    #[tokio::test]
    async fn gitlab_package_lists_stay_on_their_host() {
        use wiremock::matchers::{method, path};
        use wiremock::{Mock, MockServer, ResponseTemplate};
        let gitlab = MockServer::start().await;
        let elsewhere = MockServer::start().await;
        Mock::given(method("GET"))
            .and(path("/api/v4/projects/42/packages"))
            .respond_with(
                ResponseTemplate::new(200)
                    .insert_header(
                        "link",
                        format!(
                            r#"<{}/api/v4/projects/42/packages?page=2>; rel="next""#,
                            elsewhere.uri()
                        )
                        .as_str(),
                    )
                    .set_body_json(serde_json::json!([
                        {"name": "infrastructure-x", "version": "v1.0.0", "status": "default"}
                    ])),
            )
            .mount(&gitlab)
            .await;
        Mock::given(method("GET"))
            .and(path("/api/v4/projects/7/packages"))
            .respond_with(
                ResponseTemplate::new(403)
                    .set_body_json(serde_json::json!({"message": "403 Forbidden"})),
            )
            .mount(&gitlab)
            .await;
        let http = crate::forge::Services::default().http(None).unwrap();
        let repository = |project: &str| {
            GitLabRepository::new(
                GitLabSource {
                    origin: gitlab.uri(),
                    project: project.into(),
                    package: "infrastructure-x".into(),
                    version: "v1.1.0".into(),
                    components_path: "infrastructure-components.yaml".into(),
                },
                http.clone(),
            )
        };
        let err = repository("42").published().await.unwrap_err().to_string();
        assert!(err.contains("where the list began"), "{err}");
        assert!(elsewhere.received_requests().await.unwrap().is_empty());
        let err = repository("7").published().await.unwrap_err();
        assert!(err.to_string().contains("403"), "{err}");
        let hint = crate::error::Classified::hint(&err).unwrap_or_default();
        assert!(hint.contains("GITLAB_TOKEN"), "{hint}");
    }

    #[test]
    fn tags_are_escaped_as_path_segments() {
        assert_eq!(escape_segment("v1.2.3"), "v1.2.3");
        assert_eq!(escape_segment("v1.2.3+build.1"), "v1.2.3%2Bbuild.1");
    }

    /// `{base}/infrastructure-x`, read with `max_bytes` per file.
    fn local_repository(base: &std::path::Path, max_bytes: u64) -> LocalRepository {
        LocalRepository::new(
            LocalSource {
                base: base.to_path_buf(),
                label: "infrastructure-x".into(),
                version: "latest".into(),
                components_path: "infrastructure-components.yaml".into(),
            },
            max_bytes,
        )
    }

    /// A local repository is read as a download is: regular files only, bounded, and no folder
    /// below its base through a link; each refusal names the path.
    #[cfg(unix)]
    #[test]
    fn local_releases_are_read_through_no_link_fifo_or_device_and_bounded() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let version = dir.path().join("infrastructure-x/v1.0.0");
        std::fs::create_dir_all(&version).unwrap();
        std::fs::write(version.join("metadata.yaml"), "kind: Metadata\n").unwrap();
        symlink(
            "/proc/self/environ",
            version.join("infrastructure-components.yaml"),
        )
        .unwrap();
        symlink("/dev/zero", version.join("cluster-template.yaml")).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(version.join("checksums.txt"))
            .status()
            .unwrap();
        assert!(made.success());
        std::fs::write(version.join("cluster-template-big.yaml"), "x".repeat(100)).unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere/v2.0.0")).unwrap();
        symlink(
            dir.path().join("elsewhere/v2.0.0"),
            dir.path().join("infrastructure-x/v2.0.0"),
        )
        .unwrap();
        let repo = local_repository(dir.path(), 64);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let read = |name: &str, version: &str| {
            runtime
                .block_on(repo.file(version, name))
                .map(|b| b.len())
                .map_err(|e| e.into_error().to_string())
        };
        assert_eq!(read("metadata.yaml", "v1.0.0"), Ok(15));
        for (name, kind) in [
            ("infrastructure-components.yaml", "a symbolic link"),
            ("cluster-template.yaml", "a symbolic link"),
            ("checksums.txt", "a FIFO"),
        ] {
            let refused = read(name, "v1.0.0").unwrap_err();
            assert!(refused.contains(&format!("{name}` is {kind}")), "{refused}");
        }
        let large = read("cluster-template-big.yaml", "v1.0.0").unwrap_err();
        assert!(large.contains("--max-download"), "{large}");
        let linked = read("metadata.yaml", "v2.0.0").unwrap_err();
        assert!(linked.contains("v2.0.0` is a symbolic link"), "{linked}");
        // The listing refuses a release file that is not a regular file, and lists no linked
        // version.
        let listed = runtime
            .block_on(repo.list("v1.0.0"))
            .unwrap_err()
            .to_string();
        assert!(listed.contains("not a regular file"), "{listed}");
        assert_eq!(runtime.block_on(repo.versions()).unwrap(), ["v1.0.0"]);
    }

    #[test]
    fn local_versions_are_the_semver_folders() {
        let dir = tempfile::tempdir().unwrap();
        let label = dir.path().join("infrastructure-x");
        for name in ["v1.0.0", "v1.1.0-rc.0", "1.2.0", "Foo.Bar"] {
            std::fs::create_dir_all(label.join(name)).unwrap();
        }
        std::fs::write(label.join("v9.9.9"), "a file, not a folder").unwrap();
        let repo = local_repository(dir.path(), u64::MAX);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let versions = runtime.block_on(repo.versions()).unwrap();
        assert_eq!(versions, ["1.2.0", "v1.0.0", "v1.1.0-rc.0"]);
        let missing = runtime
            .block_on(repo.file("v1.0.0", "metadata.yaml"))
            .unwrap_err();
        assert!(matches!(missing, Fetch::Failed(_)));
        assert!(
            missing
                .into_error()
                .to_string()
                .contains("failed to read file")
        );
    }
}
