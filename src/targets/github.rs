//! The GitHub target: a GitHub release whose assets are the release files, which clusterctl
//! reads as `https://github.com/OWNER/NAME/releases/{version}/{components file}`.
//!
//! The flow is draft first, publish last, so users never see half a release and immutable
//! releases work: find the release for the tag by *listing* releases (the by-tag endpoint hides
//! drafts; several drafts for one tag is an error), create it as a draft when absent, upload
//! every file that is missing or different, read each uploaded asset back and compare SHA-256,
//! and only then publish the draft (unless `--draft`; `prerelease` is set for semver
//! pre-releases). An existing asset with the same SHA-256 (GitHub's `digest`, or a download when
//! the server has no digests) is skipped; a different one is an error unless `--clobber`.
//!
//! `--clobber` replaces an asset without an upload-long gap: the new content is uploaded under a
//! temporary name, the old asset renamed aside, the new one renamed into place, the old one
//! deleted. GitHub cannot hold two assets with one name, so the name is missing for the one
//! rename request between those steps (and only on a published release: a draft has no
//! readers); a failed rename puts the old asset back. Leftovers of an interrupted replace
//! (`capkg-tmp-…`, `capkg-old-…`) are deleted by the next run.
//!
//! An upload cut off mid-way or answered with a 5xx may or may not have created the asset
//! (GitHub documents 502s that leave an empty `starter` asset, and uploads that "successfully
//! fail" and then report `already_exists`), so uploads are never blindly repeated: capkg lists
//! the release's assets, keeps a complete asset with the right digest, deletes a broken one, and
//! only then uploads again.
//!
//! The token goes to the API's origin and GitHub's documented upload origin only
//! (`uploads.github.com` for `api.github.com`, `uploads.TENANT.ghe.com` for
//! `api.TENANT.ghe.com`; GitHub Enterprise Server and test servers upload on the API's own
//! origin). A release whose `upload_url` is anywhere else is refused before any upload; a `Link`
//! to another origin is read without the token.
//!
//! # Requests
//!
//! The models ([`Release`], [`Asset`], which carry `digest` and `immutable`), URL building,
//! pagination and the token come from [`crate::forge::github`], which verify shares. Every call
//! goes through capkg's HTTP client ([`crate::forge::http`]) with one retry policy: uploads are
//! never blindly repeated, waits are bounded by `--max-wait`, and downloads drop the token on a
//! redirect to the storage host.

use std::collections::BTreeMap;

use futures_util::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::{
    Action, BoxFuture, Destination, Env, Error, Event, FileOutcome, OFFLINE_REASON, Outcome, Plan,
    PlannedFile, Reach, ReleaseDir, ReleaseFile, ReleaseSummary, Secret, Services, Target,
    TargetKind, Transfer,
};
use crate::checksums::sha256_hex;
use crate::forge::credential::Credential;
use crate::forge::github::{self as forge, Asset, Release, TOKEN_VARIABLES};
use crate::forge::http::{self, Http, HttpError, Request, Retry};

const FORGE: &str = "GitHub";
/// Name prefixes of the temporary assets of a `--clobber` replace.
const TEMP_PREFIX: &str = "capkg-tmp-";
const OLD_PREFIX: &str = "capkg-old-";

/// What `targets.github` of capkg.yaml or `capkg publish github`'s flags ask for; the
/// environment is read when the target opens ([`GitHubTarget::new`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct GitHubRequest {
    /// `OWNER/NAME`.
    pub repo: String,
    /// API base URL (GitHub Enterprise); default `GITHUB_API_URL`, else the public API.
    pub api_url: Option<String>,
    /// Replace assets whose content differs.
    pub clobber: bool,
    /// Leave the release a draft.
    pub draft: bool,
    /// Mark the release a pre-release (also automatic for semver pre-releases).
    pub prerelease: bool,
}

impl From<&crate::config::GitHubTarget> for GitHubRequest {
    fn from(section: &crate::config::GitHubTarget) -> Self {
        Self {
            repo: section.repo.clone(),
            api_url: section.api_url.clone(),
            ..Self::default()
        }
    }
}

/// A request with the environment read.
#[derive(Debug, Clone)]
struct Settings {
    owner: String,
    repo: String,
    api_url: Url,
    /// Always set for [`Reach::Remote`]; an offline plan needs none.
    token: Option<Secret>,
    clobber: bool,
    draft: bool,
    prerelease: bool,
}

impl Settings {
    /// The token from `GITHUB_TOKEN`, else `GH_TOKEN`; the API from `api_url`, else
    /// `GITHUB_API_URL`, else `https://api.github.com`.
    fn resolve(request: GitHubRequest, env: Env<'_>, reach: Reach) -> Result<Self, Error> {
        let (owner, name) = request
            .repo
            .split_once('/')
            .filter(|(o, n)| is_name(o) && is_name(n))
            .ok_or_else(|| Error::Invalid {
                what: "repository",
                value: request.repo.clone(),
                reason: "use `OWNER/NAME`".into(),
            })?;
        if let Some(reason) = crate::forge::url::dot_or_empty_part(&request.repo) {
            return Err(Error::Invalid {
                what: "repository",
                value: request.repo.clone(),
                reason: format!("{reason}; use `OWNER/NAME`"),
            });
        }
        let api_url =
            forge::api_url(request.api_url.as_deref(), env).map_err(|e| Error::Url(Box::new(e)))?;
        let token = forge::token(env);
        if token.is_none() && reach == Reach::Remote {
            return Err(Error::MissingToken {
                forge: FORGE,
                variables: TOKEN_VARIABLES,
            });
        }
        Ok(Self {
            owner: owner.to_string(),
            repo: name.to_string(),
            api_url,
            token,
            clobber: request.clobber,
            draft: request.draft,
            prerelease: request.prerelease,
        })
    }
}

fn is_name(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.')
}

/// A GitHub (or GitHub Enterprise) release.
pub(crate) struct GitHubTarget {
    request: Settings,
    reach: Reach,
    http: Http,
}

/// What the plan found and decided.
struct GitHubPlan {
    release: Option<Release>,
    /// Existing assets the plan will replace, by file name.
    replaced: BTreeMap<String, Asset>,
    /// Leftovers of an interrupted replace, to delete.
    leftovers: Vec<Asset>,
    prerelease: bool,
}

/// What `apply` leaves for `read_back` and `finish`.
struct GitHubApplied {
    release: Release,
    /// Assets written in this run, by file name: these are read back.
    written: BTreeMap<String, u64>,
    prerelease: bool,
}

impl GitHubTarget {
    pub(crate) fn new(
        request: GitHubRequest,
        env: Env<'_>,
        services: Services,
        reach: Reach,
    ) -> Result<Self, Error> {
        let request = Settings::resolve(request, env, reach)?;
        let http = services
            .http(
                request
                    .token
                    .as_ref()
                    .map(|token| credential(token, &request.api_url)),
            )
            .map_err(|e| Error::Url(Box::new(e)))?;
        Ok(Self {
            request,
            reach,
            http,
        })
    }

    fn repo_path(&self) -> String {
        format!("{}/{}", self.request.owner, self.request.repo)
    }

    fn api(&self, path: &str) -> Result<Url, Error> {
        let text = forge::repo_api(
            &self.request.api_url,
            &self.request.owner,
            &self.request.repo,
            path,
        );
        Url::parse(&text).map_err(|err| Error::Invalid {
            what: "GitHub API URL",
            value: text,
            reason: err.to_string(),
        })
    }

    fn web_base(&self) -> String {
        forge::web_base(&self.request.api_url)
    }

    fn tag_url(&self, tag: &str) -> String {
        forge::tag_url(&self.web_base(), &self.repo_path(), tag)
    }

    fn download_url(&self, tag: &str, name: &str) -> String {
        forge::download_url(&self.web_base(), &self.repo_path(), tag, name)
    }

    fn call(&self, method: Method, url: Url, what: String) -> Request {
        forge::request(method, url, what)
    }

    async fn send_json<T: DeserializeOwned>(
        &self,
        request: Request,
        action: &str,
    ) -> Result<(T, http::Response), Error> {
        let response = self
            .http
            .send(request)
            .await
            .map_err(|err| self.error(err, action))?;
        let value = serde_json::from_slice(&response.body).map_err(|err| Error::Unexpected {
            forge: FORGE,
            url: response.url.to_string(),
            reason: err.to_string(),
        })?;
        Ok((value, response))
    }

    /// Turns an HTTP failure into an error that says what was refused and what to do.
    fn error(&self, err: HttpError, action: &str) -> Error {
        let repo = self.repo_path();
        match err {
            HttpError::Rejected(rejection) => match rejection.status {
                StatusCode::UNAUTHORIZED => Error::Unauthorized {
                    forge: FORGE,
                    message: rejection.message.clone(),
                    variables: TOKEN_VARIABLES,
                },
                StatusCode::FORBIDDEN => Error::Forbidden {
                    forge: FORGE,
                    action: action.to_string(),
                    needed: github_permission(&rejection),
                },
                StatusCode::NOT_FOUND => Error::NotFound {
                    forge: FORGE,
                    what: format!("repository `{repo}` (trying to {action})"),
                    url: rejection.url.to_string(),
                    hint: Some(
                        "check `--repo`; GitHub also answers 404 when the token cannot see the repository, e.g. a fine-grained token not given access to it".into(),
                    ),
                },
                _ => Error::Refused {
                    forge: FORGE,
                    action: action.to_string(),
                    source: Box::new(HttpError::Rejected(rejection)),
                },
            },
            err @ (HttpError::WaitTooLong { .. } | HttpError::StillRateLimited { .. }) => {
                Error::RateLimited {
                    forge: FORGE,
                    source: Box::new(err),
                }
            }
            err @ (HttpError::Insecure { .. } | HttpError::BadUrl { .. }) => {
                Error::Url(Box::new(err))
            }
            err => Error::Unreachable {
                forge: FORGE,
                action: action.to_string(),
                source: Box::new(err),
            },
        }
    }

    /// Every release of the repository, drafts included (listing is the only way to see drafts).
    async fn list_releases(&self) -> Result<Vec<Release>, Error> {
        let action = format!("list the releases of `{}`", self.repo_path());
        let first = self.api("/releases?per_page=100")?;
        self.all_pages(first, &action).await
    }

    /// Every item of a paginated list.
    async fn all_pages<T: DeserializeOwned>(
        &self,
        first: Url,
        action: &str,
    ) -> Result<Vec<T>, Error> {
        let list = first.to_string();
        crate::forge::pages::all_pages(
            first,
            action,
            self.http.policy(),
            |url| async move {
                let request = self.call(Method::GET, url, action.to_string());
                let (items, response): (Vec<T>, _) = self.send_json(request, action).await?;
                Ok(crate::forge::pages::Page {
                    items,
                    bytes: response.body.len(),
                    link: response.header("link").map(str::to_string),
                })
            },
            |err| Error::Unexpected {
                forge: FORGE,
                url: list.clone(),
                reason: err.to_string(),
            },
        )
        .await
    }

    /// The release for `tag`: the published one, else the only draft.
    async fn find_release(&self, tag: &str) -> Result<(Option<Release>, Vec<String>), Error> {
        let matching: Vec<Release> = self
            .list_releases()
            .await?
            .into_iter()
            .filter(|r| r.tag_name == tag)
            .collect();
        let (published, drafts): (Vec<Release>, Vec<Release>) =
            matching.into_iter().partition(|r| !r.draft);
        let mut warnings = Vec::new();
        if let Some(release) = published.into_iter().next() {
            if !drafts.is_empty() {
                warnings.push(format!(
                    "{} draft release(s) also have the tag `{tag}`; capkg uses the published one",
                    drafts.len()
                ));
            }
            return Ok((Some(release), warnings));
        }
        if drafts.len() > 1 {
            return Err(Error::SeveralDrafts {
                tag: tag.to_string(),
                count: drafts.len(),
                urls: drafts.iter().map(|r| r.html_url.to_string()).collect(),
            });
        }
        Ok((drafts.into_iter().next(), warnings))
    }

    /// The SHA-256 of an asset: its `digest`, else a download.
    async fn asset_sha256(&self, asset: &Asset) -> Result<String, Error> {
        if let Some(digest) = asset
            .digest
            .as_deref()
            .and_then(|d| d.strip_prefix("sha256:"))
        {
            return Ok(digest.to_ascii_lowercase());
        }
        let bytes = self.download(asset.id, &asset.name).await?;
        Ok(sha256_hex(&bytes))
    }

    async fn download(&self, asset_id: u64, name: &str) -> Result<bytes::Bytes, Error> {
        let action = format!("download the asset `{name}`");
        let url = self.api(&format!("/releases/assets/{asset_id}"))?;
        let request = self
            .call(Method::GET, url, action.clone())
            .header(ACCEPT, "application/octet-stream")
            .follow_redirects();
        let response = self
            .http
            .send(request)
            .await
            .map_err(|err| self.error(err, &action))?;
        Ok(response.body)
    }

    /// An existing asset for `file` and, when it is complete, its SHA-256.
    async fn compare<'f>(
        &self,
        file: &'f ReleaseFile,
        existing: Option<Asset>,
    ) -> Result<(&'f ReleaseFile, Option<(Asset, Option<String>)>), Error> {
        let verdict = match existing {
            None => None,
            Some(asset) if !asset.is_uploaded() => Some((asset, None)),
            Some(asset) => {
                let sha = self.asset_sha256(&asset).await?;
                Some((asset, Some(sha)))
            }
        };
        Ok((file, verdict))
    }

    async fn plan_now(&self, release: &ReleaseDir) -> Result<Plan, Error> {
        let tag = release.version.to_string();
        let remote = self.reach == Reach::Remote;
        let (found, mut warnings) = if remote {
            self.find_release(&tag).await?
        } else {
            (None, Vec::new())
        };
        let prerelease = self.request.prerelease || release.version.is_prerelease();
        let assets: Vec<Asset> = found.as_ref().map(|r| r.assets.clone()).unwrap_or_default();

        // Compare existing assets; reads run concurrently.
        let pending: Vec<_> = release
            .files
            .iter()
            .map(|file| self.compare(file, assets.iter().find(|a| a.name == file.name).cloned()))
            .collect();
        let checks = futures_util::stream::iter(pending)
            .buffered(self.http.policy().read_concurrency.max(1))
            .collect::<Vec<_>>()
            .await;

        let mut files = Vec::new();
        let mut replaced = BTreeMap::new();
        for check in checks {
            let (file, verdict) = check?;
            let url = self.download_url(&tag, &file.name);
            let (action, reason) = match verdict {
                None => (
                    Action::Upload,
                    (!remote).then(|| OFFLINE_REASON.to_string()),
                ),
                Some((asset, None)) => {
                    replaced.insert(file.name.clone(), asset);
                    (
                        Action::Replace,
                        Some("an earlier upload did not finish".to_string()),
                    )
                }
                Some((_, Some(sha))) if sha == file.sha256 => {
                    (Action::Skip, Some("identical".to_string()))
                }
                Some((asset, Some(sha))) => {
                    if !self.request.clobber {
                        return Err(Error::Differs {
                            name: file.name.clone(),
                            url,
                            existing: sha,
                            ours: file.sha256.clone(),
                            flag: "--clobber",
                        });
                    }
                    replaced.insert(file.name.clone(), asset);
                    (Action::Replace, Some("different content".to_string()))
                }
            };
            files.push(PlannedFile {
                name: file.name.clone(),
                size: file.size,
                sha256: file.sha256.clone(),
                action,
                url,
                reason,
            });
        }

        let changing: Vec<&str> = files
            .iter()
            .filter(|f| f.action != Action::Skip)
            .map(|f| f.name.as_str())
            .collect();
        if let Some(existing) = &found
            && !existing.draft
            && existing.immutable == Some(true)
            && !changing.is_empty()
        {
            return Err(Error::ImmutableRelease {
                tag,
                files: changing.join(", "),
            });
        }
        let leftovers: Vec<Asset> = assets
            .iter()
            .filter(|a| a.name.starts_with(TEMP_PREFIX) || a.name.starts_with(OLD_PREFIX))
            .cloned()
            .collect();

        let mut steps = Vec::new();
        match &found {
            None if !remote => steps.push(format!(
                "find release `{tag}` in `{}` (drafts included), or create it as a draft",
                self.repo_path()
            )),
            None => steps.push(format!(
                "create draft release `{tag}` in `{}`",
                self.repo_path()
            )),
            Some(existing) if existing.draft => {}
            Some(_) if !changing.is_empty() => warnings.push(format!(
                "release `{tag}` is already published: its assets change while users can see it"
            )),
            Some(_) => {}
        }
        for leftover in &leftovers {
            steps.push(format!(
                "delete `{}`, left over from an interrupted replace",
                leftover.name
            ));
        }
        let will_be_draft = found.as_ref().is_none_or(|r| r.draft);
        if will_be_draft {
            if self.request.draft {
                warnings.push(
                    "the release stays a draft (`--draft`): clusterctl cannot read it until it is published"
                        .to_string(),
                );
            } else {
                steps.push(format!(
                    "publish the release{}",
                    if prerelease { " as a pre-release" } else { "" }
                ));
            }
        }

        let destination_url = found
            .as_ref()
            .map_or_else(|| self.tag_url(&tag), |r| r.html_url.to_string());
        // clusterctl's GitHub URLs have no `download/`; one per provider of the release.
        let urls = release
            .providers
            .iter()
            .map(|p| forge::clusterctl_url(&self.repo_path(), &tag, &p.components_name()))
            .collect();
        if self.request.api_url.host_str() != Some("api.github.com") {
            warnings.push(format!(
                "clusterctl reads GitHub releases only from github.com; it cannot use a release on `{}`",
                self.request.api_url.host_str().unwrap_or_default()
            ));
        }
        let mut destination = Destination::new(TargetKind::Github, release, destination_url, urls);
        destination.release = Some(ReleaseSummary {
            id: found.as_ref().map(|r| r.id),
            url: destination.destination.clone(),
            draft: will_be_draft,
            prerelease: found.as_ref().map_or(prerelease, |r| r.prerelease),
        });
        destination.warnings.extend(warnings);
        Ok(Plan {
            destination,
            steps,
            files,
            remote_checked: remote,
            state: Box::new(GitHubPlan {
                release: found,
                replaced,
                leftovers,
                prerelease,
            }),
        })
    }

    async fn create_draft(&self, tag: &str, prerelease: bool) -> Result<Release, Error> {
        let action = format!("create the draft release `{tag}`");
        self.http.progress().event(&Event::Step(&action));
        let policy = self.http.policy().clone();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let request = self
                .call(Method::POST, self.api("/releases")?, action.clone())
                .json(&json!({
                    "tag_name": tag,
                    "name": tag,
                    "draft": true,
                    "prerelease": prerelease,
                }));
            let failure = match self.http.send(request).await {
                Ok(response) => {
                    return serde_json::from_slice(&response.body).map_err(|err| {
                        Error::Unexpected {
                            forge: FORGE,
                            url: response.url.to_string(),
                            reason: err.to_string(),
                        }
                    });
                }
                Err(err) => err,
            };
            let already_exists = failure
                .rejection()
                .is_some_and(|r| r.error_codes().contains(&"already_exists"));
            if !already_exists && !failure.is_uncertain() {
                return Err(self.error(failure, &action));
            }
            // Someone else created it since the plan listed the releases, or the answer was lost
            // after this request created it: use that release rather than create another.
            if let (Some(release), _) = self.find_release(tag).await? {
                return Ok(release);
            }
            if already_exists || attempt >= policy.attempts {
                return Err(self.error(failure, &action));
            }
            self.backoff(&action, &failure, attempt).await;
        }
    }

    /// Waits before repeating a request whose effect was uncertain.
    async fn backoff(&self, action: &str, failure: &HttpError, attempt: u32) {
        let delay = self.http.policy().backoff(attempt);
        let reason = self.http.redact(&format!("{action}: {failure}; retrying"));
        self.http.progress().event(&Event::Waiting {
            reason: &reason,
            delay,
        });
        self.http.clock().sleep(delay).await;
    }

    async fn list_assets(&self, release_id: u64) -> Result<Vec<Asset>, Error> {
        let action = "list the release's assets";
        let first = self.api(&format!("/releases/{release_id}/assets?per_page=100"))?;
        self.all_pages(first, action).await
    }

    async fn delete_asset(&self, asset: &Asset) -> Result<(), Error> {
        let action = format!("delete the asset `{}`", asset.name);
        let url = self.api(&format!("/releases/assets/{}", asset.id))?;
        match self
            .http
            .send(self.call(Method::DELETE, url, action.clone()))
            .await
        {
            Ok(_) => Ok(()),
            Err(err)
                if err
                    .rejection()
                    .is_some_and(|r| r.status == StatusCode::NOT_FOUND) =>
            {
                Ok(())
            }
            Err(err) => Err(self.error(err, &action)),
        }
    }

    async fn rename_asset(&self, asset_id: u64, from: &str, to: &str) -> Result<Asset, Error> {
        let action = format!("rename the asset `{from}` to `{to}`");
        let url = self.api(&format!("/releases/assets/{asset_id}"))?;
        let request = self
            .call(Method::PATCH, url, action.clone())
            .json(&json!({ "name": to }))
            // Renaming to a fixed name is safe to repeat.
            .retry(Retry::Idempotent);
        Ok(self.send_json::<Asset>(request, &action).await?.0)
    }

    /// Uploads `file` as an asset called `name`, repairing what an uncertain failure left.
    async fn upload(
        &self,
        release: &Release,
        file: &ReleaseFile,
        name: &str,
    ) -> Result<Asset, Error> {
        let action = format!("upload `{name}`");
        let base = release.upload_url.split('{').next().unwrap_or_default();
        let mut url = Url::parse(base).map_err(|err| Error::Unexpected {
            forge: FORGE,
            url: release.upload_url.clone(),
            reason: format!("`upload_url` is not a URL: {err}"),
        })?;
        url.query_pairs_mut().append_pair("name", name);
        let trusted = self.http.credential().is_some_and(|c| c.allows(&url));
        if !trusted {
            return Err(Error::Unexpected {
                forge: FORGE,
                url: release.upload_url.clone(),
                reason: format!(
                    "the release's `upload_url` is not on the API's origin (`{}`) or GitHub's documented upload host, so capkg does not send the token there",
                    self.request.api_url.origin().ascii_serialization()
                ),
            });
        }
        let policy = self.http.policy().clone();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let request = self
                .call(Method::POST, url.clone(), action.clone())
                .header(CONTENT_TYPE, content_type(name))
                .body(file.contents.clone());
            let failure = match self.http.send(request).await {
                Ok(response) => {
                    return serde_json::from_slice(&response.body).map_err(|err| {
                        Error::Unexpected {
                            forge: FORGE,
                            url: response.url.to_string(),
                            reason: err.to_string(),
                        }
                    });
                }
                Err(err) => err,
            };
            let already_exists = failure.rejection().is_some_and(|r| {
                r.status == StatusCode::UNPROCESSABLE_ENTITY
                    && r.error_codes().contains(&"already_exists")
            });
            if !already_exists && !failure.is_uncertain() {
                return Err(self.error(failure, &action));
            }
            // Look at what the server kept before trying again.
            let existing = self
                .list_assets(release.id)
                .await?
                .into_iter()
                .find(|a| a.name == name);
            match existing {
                Some(asset) if asset.is_uploaded() => {
                    let sha = self.asset_sha256(&asset).await?;
                    if sha == file.sha256 {
                        // The upload went through although the answer said otherwise.
                        return Ok(asset);
                    }
                    // Complete, with other content: someone else uploaded it since the plan.
                    return Err(Error::Differs {
                        name: name.to_string(),
                        url: self.download_url(&release.tag_name, name),
                        existing: sha,
                        ours: file.sha256.clone(),
                        flag: "--clobber",
                    });
                }
                Some(broken) => self.delete_asset(&broken).await?,
                None => {}
            }
            if attempt >= policy.attempts {
                return Err(self.error(failure, &action));
            }
            if failure.is_uncertain() {
                self.backoff(&action, &failure, attempt).await;
            }
        }
    }

    /// Replaces `old` with `file`'s content: upload under a temporary name, rename the old asset
    /// aside, rename the new one into place, delete the old one.
    async fn swap(
        &self,
        release: &Release,
        file: &ReleaseFile,
        old: &Asset,
    ) -> Result<Asset, Error> {
        let nonce = nonce();
        let temp_name = format!("{TEMP_PREFIX}{nonce}-{}", file.name);
        let aside_name = format!("{OLD_PREFIX}{nonce}-{}", file.name);
        let new = self.upload(release, file, &temp_name).await?;
        let old_id = old.id;
        self.rename_asset(old_id, &file.name, &aside_name).await?;
        match self.rename_asset(new.id, &temp_name, &file.name).await {
            Ok(renamed) => {
                self.delete_asset(old).await?;
                Ok(renamed)
            }
            Err(err) => {
                // Put the old asset back; the new one stays under its temporary name and the
                // next run deletes it.
                let _ = self.rename_asset(old_id, &aside_name, &file.name).await;
                Err(err)
            }
        }
    }

    async fn apply_now(&self, release: &ReleaseDir, mut plan: Plan) -> Result<Outcome, Error> {
        let state: GitHubPlan = plan.take_state()?;
        let tag = release.version.to_string();
        let progress = self.http.progress().clone();
        let gh_release = match state.release {
            Some(found) => found,
            None => self.create_draft(&tag, state.prerelease).await?,
        };
        for leftover in &state.leftovers {
            let step = format!("delete the leftover asset `{}`", leftover.name);
            progress.event(&Event::Step(&step));
            self.delete_asset(leftover).await?;
        }
        let mut written = BTreeMap::new();
        let mut outcomes = Vec::new();
        for planned in &plan.files {
            let file = release.file(&planned.name).ok_or(Error::ForeignPlan)?;
            let asset = match planned.action {
                Action::Skip => None,
                Action::Upload => {
                    progress.event(&Event::Started {
                        name: &file.name,
                        size: file.size,
                        transfer: Transfer::Upload,
                    });
                    Some(self.upload(&gh_release, file, &file.name).await?)
                }
                Action::Replace => {
                    progress.event(&Event::Started {
                        name: &file.name,
                        size: file.size,
                        transfer: Transfer::Upload,
                    });
                    let old = state.replaced.get(&file.name).ok_or(Error::ForeignPlan)?;
                    if old.is_uploaded() {
                        Some(self.swap(&gh_release, file, old).await?)
                    } else {
                        self.delete_asset(old).await?;
                        Some(self.upload(&gh_release, file, &file.name).await?)
                    }
                }
            };
            if let Some(asset) = asset {
                progress.event(&Event::Finished {
                    name: &file.name,
                    size: file.size,
                    transfer: Transfer::Upload,
                });
                written.insert(file.name.clone(), asset.id);
            }
            outcomes.push(FileOutcome {
                name: planned.name.clone(),
                size: planned.size,
                sha256: planned.sha256.clone(),
                outcome: planned.action.into(),
                url: planned.url.clone(),
            });
        }
        if let Some(summary) = plan.destination.release.as_mut() {
            summary.id = Some(gh_release.id);
            summary.url = gh_release.html_url.to_string();
        }
        plan.destination.destination = gh_release.html_url.to_string();
        Ok(Outcome {
            destination: plan.destination,
            files: outcomes,
            verified: false,
            state: Box::new(GitHubApplied {
                release: gh_release,
                written,
                prerelease: state.prerelease,
            }),
        })
    }

    async fn read_back_now(
        &self,
        release: &ReleaseDir,
        outcome: &mut Outcome,
    ) -> Result<(), Error> {
        let written = outcome.state_mut::<GitHubApplied>()?.written.clone();
        let progress = self.http.progress().clone();
        let tag = release.version.to_string();
        let reads = futures_util::stream::iter(written.into_iter().map(|(name, id)| {
            let progress = progress.clone();
            let tag = tag.clone();
            async move {
                let file = release.file(&name).ok_or(Error::ForeignPlan)?;
                progress.event(&Event::Started {
                    name: &name,
                    size: file.size,
                    transfer: Transfer::ReadBack,
                });
                let bytes = self.download(id, &name).await?;
                let actual = sha256_hex(&bytes);
                if actual != file.sha256 {
                    return Err(Error::ReadBackMismatch {
                        url: self.download_url(&tag, &name),
                        name,
                        expected: file.sha256.clone(),
                        actual,
                    });
                }
                progress.event(&Event::Finished {
                    name: &name,
                    size: file.size,
                    transfer: Transfer::ReadBack,
                });
                Ok(())
            }
        }))
        .buffer_unordered(self.http.policy().read_concurrency.max(1))
        .collect::<Vec<Result<(), Error>>>()
        .await;
        for read in reads {
            read?;
        }
        outcome.verified = true;
        Ok(())
    }

    async fn finish_now(&self, outcome: &mut Outcome) -> Result<(), Error> {
        let applied = outcome.state_mut::<GitHubApplied>()?;
        if !applied.release.draft || self.request.draft {
            return Ok(());
        }
        let id = applied.release.id;
        let prerelease = applied.prerelease;
        let action = format!("publish the release `{}`", applied.release.tag_name);
        self.http.progress().event(&Event::Step(&action));
        let mut body = json!({ "draft": false, "prerelease": prerelease });
        if !prerelease {
            // "legacy": latest by date and semver, so a patch of an older series published
            // after a newer minor does not become "latest".
            body["make_latest"] = json!("legacy");
        }
        let request = self
            .call(
                Method::PATCH,
                self.api(&format!("/releases/{id}"))?,
                action.clone(),
            )
            .json(&body)
            .retry(Retry::Idempotent);
        let (published, _): (Release, _) = self.send_json(request, &action).await?;
        applied.release.draft = published.draft;
        if let Some(summary) = outcome.destination.release.as_mut() {
            summary.draft = published.draft;
            summary.prerelease = published.prerelease;
            summary.url = published.html_url.to_string();
        }
        outcome.destination.destination = published.html_url.to_string();
        Ok(())
    }
}

impl Target for GitHubTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Github
    }

    fn plan<'a>(&'a self, release: &'a ReleaseDir) -> BoxFuture<'a, Result<Plan, Error>> {
        Box::pin(self.plan_now(release))
    }

    fn apply<'a>(
        &'a self,
        release: &'a ReleaseDir,
        plan: Plan,
    ) -> BoxFuture<'a, Result<Outcome, Error>> {
        Box::pin(self.apply_now(release, plan))
    }

    fn read_back<'a>(
        &'a self,
        release: &'a ReleaseDir,
        outcome: &'a mut Outcome,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(self.read_back_now(release, outcome))
    }

    fn finish<'a>(&'a self, outcome: &'a mut Outcome) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(self.finish_now(outcome))
    }
}

/// What a bare 403 says is missing: GitHub's `x-accepted-github-permissions` (fine-grained
/// tokens, GitHub Apps) or `x-accepted-oauth-scopes` (classic tokens), else what releases need.
fn github_permission(rejection: &http::Rejection) -> String {
    let named = |header: &str| {
        rejection
            .header(header)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let mut needed = if let Some(permissions) = named("x-accepted-github-permissions") {
        format!("GitHub names the permission it accepts: `{permissions}`")
    } else if let Some(scopes) = named("x-accepted-oauth-scopes") {
        format!("GitHub accepts the token scopes `{scopes}`")
    } else if rejection.method == Method::GET {
        "reading releases needs `contents: read`, and seeing drafts needs push access".to_string()
    } else {
        "changing releases needs `contents: write` on the repository".to_string()
    };
    if !rejection.message.is_empty() {
        needed.push_str(&format!("; GitHub said: {}", rejection.message));
    }
    needed
}

/// The token, for the API's origin and GitHub's documented upload origin: `uploads.github.com`
/// for `api.github.com`, `uploads.TENANT.ghe.com` for `api.TENANT.ghe.com`. GitHub Enterprise
/// Server (`HOST/api/v3`, uploads at `HOST/api/uploads`) and test servers upload on the API's
/// own origin. Nothing else gets it.
fn credential(token: &Secret, api: &Url) -> Credential {
    let credential = Credential::bearer(token.clone()).for_origin(api);
    match upload_origin(api) {
        Some(uploads) => credential.for_origin(&uploads),
        None => credential,
    }
}

/// GitHub's upload host for an API host that has a separate one.
fn upload_origin(api: &Url) -> Option<Url> {
    let host = api.host_str()?;
    let uploads = if host == "api.github.com" {
        "uploads.github.com".to_string()
    } else {
        let tenant = host
            .strip_prefix("api.")
            .filter(|h| h.ends_with(".ghe.com"))?;
        format!("uploads.{tenant}")
    };
    Url::parse(&format!("https://{uploads}")).ok()
}

fn content_type(name: &str) -> &'static str {
    if name.ends_with(".yaml") || name.ends_with(".yml") {
        "application/yaml"
    } else if name.ends_with(".txt") {
        "text/plain"
    } else {
        "application/octet-stream"
    }
}

/// A short value that keeps temporary asset names of concurrent runs apart.
fn nonce() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{:x}{:05x}", std::process::id() & 0xffff, nanos & 0xfffff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env::env;

    fn asked(repo: &str, api_url: Option<&str>) -> GitHubRequest {
        GitHubRequest {
            repo: repo.to_string(),
            api_url: api_url.map(str::to_string),
            ..GitHubRequest::default()
        }
    }

    #[test]
    fn settings_come_from_flags_then_environment() {
        let settings = Settings::resolve(
            asked("o/r", None),
            &env(&[
                ("GH_TOKEN", "t2"),
                ("GITHUB_API_URL", "https://ghe.example.com/api/v3"),
            ]),
            Reach::Remote,
        )
        .unwrap();
        assert_eq!(settings.token.unwrap().expose(), "t2");
        assert_eq!(settings.api_url.as_str(), "https://ghe.example.com/api/v3");
        let settings = Settings::resolve(
            asked("o/r", Some("https://api.github.com/")),
            &env(&[("GITHUB_TOKEN", "t1"), ("GH_TOKEN", "t2")]),
            Reach::Remote,
        )
        .unwrap();
        assert_eq!(settings.token.unwrap().expose(), "t1");
        let err = Settings::resolve(
            asked("o/r", None),
            &env(&[("GITHUB_TOKEN", "")]),
            Reach::Remote,
        )
        .unwrap_err();
        assert!(matches!(err, Error::MissingToken { .. }));
        let err = Settings::resolve(
            asked("o", None),
            &env(&[("GITHUB_TOKEN", "t")]),
            Reach::Remote,
        )
        .unwrap_err();
        assert!(err.to_string().contains("OWNER/NAME"), "{err}");
        for dotted in ["o/..", "../x", "./r", "o/."] {
            let err = Settings::resolve(
                asked(dotted, None),
                &env(&[("GITHUB_TOKEN", "t")]),
                Reach::Remote,
            )
            .map(|_| ())
            .unwrap_err();
            assert!(err.to_string().contains("OWNER/NAME"), "{dotted}: {err}");
        }
        let err = Settings::resolve(
            asked("o/r", Some("http://ghe.example.com")),
            &env(&[("GITHUB_TOKEN", "t")]),
            Reach::Remote,
        )
        .unwrap_err();
        assert!(matches!(err, Error::Url(ref e) if matches!(**e, HttpError::Insecure { .. })));
    }

    #[test]
    fn an_offline_plan_needs_no_token_and_cannot_be_carried_out() {
        let release = ReleaseDir::sample("v1.2.3");
        let target = GitHubTarget::new(
            asked("o/r", None),
            &env(&[]),
            Services::default(),
            Reach::Offline,
        )
        .unwrap();
        let plan = crate::targets::plan_offline(&target, &release);
        assert!(
            plan.steps[0].starts_with("find release"),
            "{:?}",
            plan.steps
        );
        assert!(
            plan.destination
                .clusterctl_url
                .starts_with("https://github.com/o/r/releases/"),
            "{}",
            plan.destination.clusterctl_url
        );
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let err = runtime
            .block_on(crate::targets::carry_out(&target, &release, plan, &|_| {}))
            .unwrap_err();
        assert!(matches!(err.1, Error::OfflinePlan), "{}", err.1);
        assert!(
            GitHubTarget::new(
                asked("o/r", None),
                &env(&[]),
                Services::default(),
                Reach::Remote
            )
            .is_err()
        );
    }

    #[test]
    fn web_addresses_follow_the_api_host() {
        let target = |api: &str| {
            GitHubTarget::new(
                asked("o/r", Some(api)),
                &env(&[("GITHUB_TOKEN", "t")]),
                Services::default(),
                Reach::Remote,
            )
            .unwrap()
        };
        assert_eq!(
            target("https://api.github.com").web_base(),
            "https://github.com"
        );
        assert_eq!(
            target("https://ghe.example.com/api/v3").web_base(),
            "https://ghe.example.com"
        );
        assert_eq!(
            target("https://api.acme.ghe.com").web_base(),
            "https://acme.ghe.com"
        );
        assert_eq!(
            target("https://api.github.com").download_url("v1.0.0", "metadata.yaml"),
            "https://github.com/o/r/releases/download/v1.0.0/metadata.yaml"
        );
    }

    #[test]
    fn the_token_goes_to_the_api_and_its_documented_upload_host_only() {
        let token = Secret::new("t-upload-origins").unwrap();
        let url = |text: &str| Url::parse(text).unwrap();
        let github = credential(&token, &url("https://api.github.com"));
        assert!(github.allows(&url("https://api.github.com/repos/o/r/releases")));
        assert!(github.allows(&url(
            "https://uploads.github.com/repos/o/r/releases/1/assets"
        )));
        assert!(!github.allows(&url("https://evil.example.com/repos")));
        assert!(!github.allows(&url("http://api.github.com/repos")));
        assert!(!github.allows(&url("https://api.github.com:8443/repos")));
        let tenant = credential(&token, &url("https://api.acme.ghe.com"));
        assert!(tenant.allows(&url("https://uploads.acme.ghe.com/x")));
        let server = credential(&token, &url("https://ghe.example.com/api/v3"));
        assert!(server.allows(&url("https://ghe.example.com/api/uploads/repos/o/r")));
        assert!(!server.allows(&url("https://uploads.ghe.example.com/x")));
        let local = credential(&token, &url("http://127.0.0.1:8080"));
        assert!(!local.allows(&url("http://127.0.0.1:8081/x")));
    }
}
