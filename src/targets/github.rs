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
//! The calls themselves are [`api`]'s; this file holds the flow (plan, apply, read back, publish).
//! The models ([`Release`], [`Asset`], which carry `digest` and `immutable`), URL building,
//! pagination and the token come from [`crate::forge::github`], which verify shares. Every call
//! goes through capkg's HTTP client ([`crate::forge::http`]) with one retry policy: uploads are
//! never blindly repeated, waits are bounded by `--max-wait`, and downloads drop the token on a
//! redirect to the storage host.

use std::collections::BTreeMap;

use futures_util::StreamExt;
use reqwest::{Method, Url};
use serde_json::json;

use super::{
    Action, BoxFuture, Destination, Drafted, Env, Error, Event, FileOutcome, History,
    OFFLINE_REASON, Outcome, Plan, PlannedFile, PublishFile, Reach, ReleaseDir, ReleaseSummary,
    Secret, Services, Target, TargetKind, Transfer, VersionedSource,
};
use crate::checksums::sha256_hex;
use crate::forge::credential::Credential;
use crate::forge::github::{self as forge, Asset, Release, TOKEN_VARIABLES};
use crate::forge::http::{Http, Retry};

mod api;

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

    /// An existing asset for `file` and, when it is complete, its SHA-256.
    async fn compare<'f>(
        &self,
        file: &'f PublishFile,
        existing: Option<Asset>,
    ) -> Result<(&'f PublishFile, Option<(Asset, Option<String>)>), Error> {
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
                Some((_, Some(_)))
                    if super::keeps_published_statement(&file.name, self.request.clobber) =>
                {
                    (Action::Skip, Some(super::STATEMENT_KEPT.to_string()))
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
            Some(_) if self.request.draft => warnings.push(format!(
                "release `{tag}` is already published: `--draft` leaves it as it is"
            )),
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

    fn read_draft<'a>(
        &'a self,
        version: &'a crate::version::Version,
        _label: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<Drafted>, Error>> {
        Box::pin(async move {
            // The draft and the release it becomes are one object: found by listing, drafts
            // included.
            let (found, _) = self.find_release(&version.to_string()).await?;
            let Some(found) = found else {
                return Ok(None);
            };
            let mut files = Vec::new();
            for asset in &found.assets {
                let wanted = asset.name == crate::checksums::CHECKSUMS_FILE
                    || crate::provider::FileRole::from_file_name(&asset.name).is_some();
                if !wanted {
                    continue;
                }
                let bytes = self.download(asset.id, &asset.name).await?;
                files.push(PublishFile::from_bytes(&asset.name, bytes));
            }
            Ok(Some(Drafted {
                location: found.html_url.to_string(),
                files,
            }))
        })
    }

    fn history(&self, release: &ReleaseDir, provider: usize) -> History {
        let Some(provider) = release.providers.get(provider) else {
            return History::Nothing;
        };
        let components = provider.components_name();
        VersionedSource::of(|version| {
            forge::clusterctl_url(&self.repo_path(), version, &components)
        })
        .map_or(History::Nothing, History::Versioned)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forge::http::HttpError;
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
