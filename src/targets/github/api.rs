//! The GitHub REST calls the target makes: releases listed, found and created as drafts, their
//! assets listed, downloaded, uploaded (repairing what an uncertain failure left), renamed,
//! swapped and deleted; and what a refusal means, for the error a maintainer reads.

use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::{FORGE, GitHubTarget, OLD_PREFIX, TEMP_PREFIX};
use crate::checksums::sha256_hex;
use crate::forge::github::{self as forge, Asset, Release, TOKEN_VARIABLES};
use crate::forge::http::{self, HttpError, Request, Retry};
use crate::targets::{Error, Event, PublishFile};

impl GitHubTarget {
    pub(super) fn repo_path(&self) -> String {
        format!("{}/{}", self.request.owner, self.request.repo)
    }

    pub(super) fn api(&self, path: &str) -> Result<Url, Error> {
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

    pub(super) fn web_base(&self) -> String {
        forge::web_base(&self.request.api_url)
    }

    pub(super) fn tag_url(&self, tag: &str) -> String {
        forge::tag_url(&self.web_base(), &self.repo_path(), tag)
    }

    pub(super) fn download_url(&self, tag: &str, name: &str) -> String {
        forge::download_url(&self.web_base(), &self.repo_path(), tag, name)
    }

    pub(super) fn call(&self, method: Method, url: Url, what: String) -> Request {
        forge::request(method, url, what)
    }

    pub(super) async fn send_json<T: DeserializeOwned>(
        &self,
        request: Request,
        action: &str,
    ) -> Result<(T, http::Response), Error> {
        let response = self
            .http
            .send(request)
            .await
            .map_err(|err| self.error(err, action))?;
        let value = parsed(&response)?;
        Ok((value, response))
    }

    /// Turns an HTTP failure into an error that says what was refused and what to do.
    pub(super) fn error(&self, err: HttpError, action: &str) -> Error {
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
                _ => Error::from_http(FORGE, action, HttpError::Rejected(rejection)),
            },
            err => Error::from_http(FORGE, action, err),
        }
    }

    /// Every release of the repository, drafts included (listing is the only way to see drafts).
    pub(super) async fn list_releases(&self) -> Result<Vec<Release>, Error> {
        let action = format!("list the releases of `{}`", self.repo_path());
        let first = self.api("/releases?per_page=100")?;
        self.all_pages(first, &action).await
    }

    /// Every item of a paginated list.
    pub(super) async fn all_pages<T: DeserializeOwned>(
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
    pub(super) async fn find_release(
        &self,
        tag: &str,
    ) -> Result<(Option<Release>, Vec<String>), Error> {
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
    pub(super) async fn asset_sha256(&self, asset: &Asset) -> Result<String, Error> {
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

    pub(super) async fn download(&self, asset_id: u64, name: &str) -> Result<bytes::Bytes, Error> {
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

    pub(super) async fn create_draft(&self, tag: &str, prerelease: bool) -> Result<Release, Error> {
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
                Ok(response) => return parsed(&response),
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
    pub(super) async fn backoff(&self, action: &str, failure: &HttpError, attempt: u32) {
        let delay = self.http.policy().backoff(attempt);
        let reason = self.http.redact(&format!("{action}: {failure}; retrying"));
        self.http.progress().event(&Event::Waiting {
            reason: &reason,
            delay,
        });
        self.http.clock().sleep(delay).await;
    }

    pub(super) async fn list_assets(&self, release_id: u64) -> Result<Vec<Asset>, Error> {
        let action = "list the release's assets";
        let first = self.api(&format!("/releases/{release_id}/assets?per_page=100"))?;
        self.all_pages(first, action).await
    }

    pub(super) async fn delete_asset(&self, asset: &Asset) -> Result<(), Error> {
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

    pub(super) async fn rename_asset(
        &self,
        asset_id: u64,
        from: &str,
        to: &str,
    ) -> Result<Asset, Error> {
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
    pub(super) async fn upload(
        &self,
        release: &Release,
        file: &PublishFile,
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
                Ok(response) => return parsed(&response),
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
    pub(super) async fn swap(
        &self,
        release: &Release,
        file: &PublishFile,
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
}

/// What a bare 403 says is missing: GitHub's `x-accepted-github-permissions` (fine-grained
/// tokens, GitHub Apps) or `x-accepted-oauth-scopes` (classic tokens), else what releases need.
/// An answer's body read as the JSON GitHub documents for it.
fn parsed<T: DeserializeOwned>(response: &http::Response) -> Result<T, Error> {
    serde_json::from_slice(&response.body).map_err(|err| Error::Unexpected {
        forge: FORGE,
        url: response.url.to_string(),
        reason: err.to_string(),
    })
}

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
