//! The GitLab target: a generic package, `PUT /projects/:id/packages/generic/:package/:version/:file`,
//! which clusterctl reads as
//! `https://{host}/api/v4/projects/{project}/packages/generic/{package}/{version}/{file}`.
//!
//! The version is used exactly as given (the `v` is kept, unlike goreleaser), because that is the
//! version segment of the clusterctl URL. Each file is first fetched from its package URL (the
//! read clusterctl makes): an identical file is skipped, a different one is an error unless
//! `--clobber`, which uploads the new file beside it (GitLab serves the newest file of a name).
//! Groups can forbid duplicate files; GitLab then answers 400, which capkg explains. Replacements
//! go first, so such a refusal comes before any new file is uploaded, and `metadata.yaml` goes
//! last, so that clusterctl (which reads it first) never finds half a release: GitLab has no
//! drafts.
//!
//! Uploads are serial (GitLab documents failures for concurrent uploads to a new package). A cut
//! connection or a 5xx leaves the upload's effect unknown; capkg fetches the file and uploads
//! again only when it is not there.
//!
//! clusterctl recognises a GitLab URL only when the host starts with `gitlab.` and cannot list
//! the versions of a GitLab package; both are reported as warnings.

use futures_util::StreamExt;
use reqwest::header::CONTENT_TYPE;
use reqwest::{Method, StatusCode, Url};

use super::{
    Action, BoxFuture, Destination, Drafted, Env, Error, Event, FileOutcome, History,
    OFFLINE_REASON, Outcome, Plan, PlannedFile, PublishFile, Reach, ReleaseDir, Services, Target,
    TargetKind, Transfer, VersionedSource,
};
use crate::checksums::sha256_hex;
pub(crate) use crate::forge::gitlab::GitLabToken;
use crate::forge::gitlab::{TOKEN_VARIABLES, escape_project};
use crate::forge::http::{self, Http, HttpError, Request};

const FORGE: &str = "GitLab";
/// What `targets.gitlab` of capkg.yaml or `capkg publish gitlab`'s flags ask for; the
/// environment is read when the target opens ([`GitLabTarget::new`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct GitLabRequest {
    /// Numeric project id or `group/project` path; default `CI_PROJECT_ID`.
    pub project: Option<String>,
    /// The package name; default: the provider label.
    pub package: Option<String>,
    /// The API root (`https://gitlab.example.com/api/v4`); default `CI_API_V4_URL`.
    pub api_url: Option<String>,
    /// Upload a file whose content differs from the one already there.
    pub clobber: bool,
    /// Upload to the package version `draft-{version}` ([`super::draft_name`]) rather than the
    /// version: clusterctl reads only the version its URL names, and users name the release's.
    /// GitLab generic packages have no drafts of their own (and a `hidden` package can still
    /// be downloaded), so a draft is a version nobody asks for.
    pub draft: bool,
}

impl From<&crate::config::GitLabTarget> for GitLabRequest {
    fn from(section: &crate::config::GitLabTarget) -> Self {
        Self {
            project: section.project.clone(),
            package: section.package.clone(),
            api_url: section.api_url.clone(),
            clobber: false,
            draft: false,
        }
    }
}

/// What an offline plan shows for a CI variable that is not set.
const API_PLACEHOLDER: &str = "$CI_API_V4_URL";
const PROJECT_PLACEHOLDER: &str = "$CI_PROJECT_ID";

/// A request with the environment read.
#[derive(Debug, Clone)]
struct Settings {
    /// The API root; `None` only offline, when neither the flag nor `CI_API_V4_URL` gives it.
    api_url: Option<Url>,
    /// Numeric id or `group/project` path, or the placeholder offline.
    project: String,
    package: Option<String>,
    /// Always set for [`Reach::Remote`].
    token: Option<GitLabToken>,
    clobber: bool,
    draft: bool,
}

/// A job token belongs to its pipeline's GitLab (`CI_API_V4_URL`): a target on another instance
/// needs a token of its own, as the origin rule says for reading ([`crate::forge::origin`]).
fn job_token_may_reach(api: &Url, env: Env<'_>) -> Result<(), Error> {
    let pipeline = crate::forge::origin::pipeline_gitlab(env);
    let Err(reason) = crate::forge::origin::job_token_reaches(pipeline.as_ref(), api) else {
        return Ok(());
    };
    Err(Error::TokenNotForHere {
        forge: FORGE,
        variable: "CI_JOB_TOKEN",
        host: api.origin().ascii_serialization(),
        reason,
        variables: "GITLAB_TOKEN or GITLAB_ACCESS_TOKEN",
    })
}

impl Settings {
    /// API from `api_url`, else `CI_API_V4_URL`; project from `project`, else
    /// `CI_PROJECT_ID`; the token as [`crate::forge::gitlab::token`] finds it. Offline, what is
    /// missing becomes a `$NAME` placeholder.
    fn resolve(request: GitLabRequest, env: Env<'_>, reach: Reach) -> Result<Self, Error> {
        let non_empty = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        let offline = reach == Reach::Offline;
        let api_url = match request.api_url.or_else(|| non_empty("CI_API_V4_URL")) {
            Some(text) => Some(http::parse_base_url(&text).map_err(|e| Error::Url(Box::new(e)))?),
            None if offline => None,
            None => {
                return Err(Error::Missing {
                    what: "GitLab API URL",
                    flag: "--api-url https://HOST/api/v4",
                    env: Some("CI_API_V4_URL"),
                });
            }
        };
        let project = match request.project.or_else(|| non_empty("CI_PROJECT_ID")) {
            Some(project) => {
                let project = project.trim().to_string();
                if let Some(reason) = crate::forge::url::dot_or_empty_part(&project) {
                    return Err(Error::Invalid {
                        what: "GitLab project",
                        value: project,
                        reason: format!("{reason}; use the numeric id or `group/project`"),
                    });
                }
                project
            }
            None if offline => PROJECT_PLACEHOLDER.to_string(),
            None => {
                return Err(Error::Missing {
                    what: "GitLab project",
                    flag: "--project ID_OR_PATH",
                    env: Some("CI_PROJECT_ID"),
                });
            }
        };
        let token = crate::forge::gitlab::token(env);
        if let (Some(GitLabToken::Job(_)), Some(api)) = (&token, &api_url) {
            job_token_may_reach(api, env)?;
        }
        if token.is_none() && !offline {
            return Err(Error::MissingToken {
                forge: FORGE,
                variables: TOKEN_VARIABLES,
            });
        }
        if let Some(package) = &request.package {
            check_file_name("package name", package)?;
        }
        Ok(Self {
            api_url,
            project,
            package: request.package,
            token,
            clobber: request.clobber,
            draft: request.draft,
        })
    }

    /// The project as its URL segment: escaped once, a placeholder left as it is.
    fn project_segment(&self) -> String {
        if self.project == PROJECT_PLACEHOLDER {
            return self.project.clone();
        }
        escape_project(&self.project)
    }
}

/// A GitLab generic package.
pub(crate) struct GitLabTarget {
    request: Settings,
    reach: Reach,
    http: Http,
}

struct GitLabApplied {
    /// Files written in this run: these are read back.
    written: Vec<String>,
}

impl GitLabTarget {
    pub(crate) fn new(
        request: GitLabRequest,
        env: Env<'_>,
        services: Services,
        reach: Reach,
    ) -> Result<Self, Error> {
        let request = Settings::resolve(request, env, reach)?;
        // GitLab uploads go to the API's own origin: nothing else gets the token.
        let credential = match (&request.token, &request.api_url) {
            (Some(token), Some(api)) => Some(token.credential().for_origin(api)),
            _ => None,
        };
        let http = services
            .http(credential)
            .map_err(|e| Error::Url(Box::new(e)))?;
        Ok(Self {
            request,
            reach,
            http,
        })
    }

    fn package(&self, release: &ReleaseDir) -> String {
        self.request
            .package
            .clone()
            .unwrap_or_else(|| release.provider_label())
    }

    /// The package version this release is uploaded to: the version, or its draft's.
    fn package_version(&self, version: &crate::version::Version) -> String {
        let version = version.to_string();
        if self.request.draft {
            super::draft_name(&version)
        } else {
            version
        }
    }

    /// `{api}/projects/{project}/packages/generic/{package}/{version}/`, the project escaped.
    fn package_base(&self, release: &ReleaseDir) -> String {
        self.package_base_at(release, &self.package_version(&release.version))
    }

    /// [`GitLabTarget::package_base`] for another version of the package.
    fn package_base_at(&self, release: &ReleaseDir, version: &str) -> String {
        self.base_of(&self.package(release), version)
    }

    fn base_of(&self, package: &str, version: &str) -> String {
        crate::forge::gitlab::package_base(
            self.request
                .api_url
                .as_ref()
                .map_or(API_PLACEHOLDER, Url::as_str),
            &self.request.project_segment(),
            package,
            version,
        )
    }

    /// A file's package URL as reports show it (with placeholders in an offline plan).
    fn shown_url(&self, release: &ReleaseDir, name: &str) -> String {
        match self.file_url(release, name) {
            Ok(url) => url.to_string(),
            Err(_) => format!("{}{name}", self.package_base(release)),
        }
    }

    fn file_url(&self, release: &ReleaseDir, name: &str) -> Result<Url, Error> {
        let text = format!("{}{name}", self.package_base(release));
        Url::parse(&text).map_err(|err| Error::Invalid {
            what: "GitLab package URL",
            value: text,
            reason: err.to_string(),
        })
    }

    fn error(&self, err: HttpError, action: &str) -> Error {
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
                    needed: format!(
                        "publishing needs a token with the `api` scope and the Developer role, or the project's CI_JOB_TOKEN; GitLab said: {}",
                        rejection.message
                    ),
                },
                StatusCode::NOT_FOUND => Error::NotFound {
                    forge: FORGE,
                    what: format!("project `{}`", self.request.project),
                    url: rejection.url.to_string(),
                    hint: Some(format!(
                        "GitLab said `{}`; check `--project`, and that the token can see the project",
                        rejection.message
                    )),
                },
                _ => Error::from_http(FORGE, action, HttpError::Rejected(rejection)),
            },
            err => Error::from_http(FORGE, action, err),
        }
    }

    /// The file at `url`, or `None` when the package has no such file.
    async fn fetch(&self, url: &Url, name: &str) -> Result<Option<bytes::Bytes>, Error> {
        let action = format!("fetch `{name}`");
        let request = Request::new(Method::GET, url.clone(), action.clone()).follow_redirects();
        match self.http.send(request).await {
            Ok(response) => Ok(Some(response.body)),
            Err(HttpError::Rejected(rejection))
                if rejection.status == StatusCode::NOT_FOUND
                    && !rejection.message.to_ascii_lowercase().contains("project") =>
            {
                Ok(None)
            }
            Err(err) => Err(self.error(err, &action)),
        }
    }

    /// The file's package URL and the SHA-256 of what is there, if anything.
    async fn compare<'f>(
        &self,
        release: &ReleaseDir,
        file: &'f PublishFile,
    ) -> Result<(&'f PublishFile, String, Option<String>), Error> {
        let url = self.file_url(release, &file.name)?;
        let existing = self.fetch(&url, &file.name).await?;
        Ok((
            file,
            url.to_string(),
            existing.map(|bytes| sha256_hex(&bytes)),
        ))
    }

    async fn plan_now(&self, release: &ReleaseDir) -> Result<Plan, Error> {
        let package = self.package(release);
        check_file_name("package name", &package)?;
        check_version(&release.version.to_string())?;
        for file in &release.files {
            check_file_name("file name", &file.name)?;
        }
        let remote = self.reach == Reach::Remote;
        let checks = if remote {
            let pending: Vec<_> = release
                .files
                .iter()
                .map(|file| self.compare(release, file))
                .collect();
            futures_util::stream::iter(pending)
                .buffered(self.http.policy().read_concurrency.max(1))
                .collect::<Vec<_>>()
                .await
        } else {
            release
                .files
                .iter()
                .map(|file| Ok::<_, Error>((file, self.shown_url(release, &file.name), None)))
                .collect()
        };

        let mut files = Vec::new();
        for check in checks {
            let (file, url, existing) = check?;
            let (action, reason) = match existing {
                None => (
                    Action::Upload,
                    (!remote).then(|| OFFLINE_REASON.to_string()),
                ),
                Some(sha) if sha == file.sha256 => (Action::Skip, Some("identical".to_string())),
                Some(_) if super::keeps_published_statement(&file.name, self.request.clobber) => {
                    (Action::Skip, Some(super::STATEMENT_KEPT.to_string()))
                }
                Some(sha) if !self.request.clobber => {
                    return Err(Error::Differs {
                        name: file.name.clone(),
                        url: url.to_string(),
                        existing: sha,
                        ours: file.sha256.clone(),
                        flag: "--clobber",
                    });
                }
                Some(_) => (
                    Action::Replace,
                    Some("different content: GitLab will serve the new file".to_string()),
                ),
            };
            files.push(PlannedFile {
                name: file.name.clone(),
                size: file.size,
                sha256: file.sha256.clone(),
                action,
                url: url.to_string(),
                reason,
            });
        }
        // Replacements first: a group that forbids duplicates refuses them before anything new
        // is uploaded. The sort is stable, so `metadata.yaml` stays last among the rest.
        files.sort_by_key(|f| f.action != Action::Replace);

        let urls = release
            .providers
            .iter()
            .map(|provider| self.shown_url(release, &provider.components_name()))
            .collect();
        let mut destination = Destination::new(
            TargetKind::Gitlab,
            release,
            self.package_base(release),
            urls,
        );
        if let Some(api) = &self.request.api_url {
            let host = api.host_str().unwrap_or_default();
            if !host.starts_with("gitlab.") {
                destination.warnings.push(format!(
                    "clusterctl will refuse this URL with `invalid provider url. Only GitHub and GitLab are supported for \"https\" schema`: it takes a URL for GitLab only on a host starting with `gitlab.`, and `{host}` does not"
                ));
            }
            if api.scheme() != "https" {
                destination
                    .warnings
                    .push("clusterctl reads GitLab provider URLs only over https".to_string());
            }
        }
        destination.warnings.push(format!(
            "clusterctl cannot list the versions of a GitLab package: users must name the version (`clusterctl init {}`)",
            release
                .providers
                .iter()
                .map(|p| format!("--{} {}:{}", p.provider_type.short_name(), p.name, release.version))
                .collect::<Vec<_>>()
                .join(" ")
        ));
        let uploads = files.iter().filter(|f| f.action != Action::Skip).count();
        let mut steps = Vec::new();
        if !remote {
            steps.push(format!(
                "fetch each file from package `{package}` version `{}`; identical files are skipped, different ones stop the run",
                self.package_version(&release.version)
            ));
        }
        if uploads > 0 {
            steps.push(format!(
                "upload {uploads} file(s) to package `{package}` version `{}`",
                self.package_version(&release.version)
            ));
        }
        Ok(Plan {
            destination,
            steps,
            files,
            remote_checked: remote,
            state: Box::new(()),
        })
    }

    async fn upload(&self, release: &ReleaseDir, file: &PublishFile) -> Result<(), Error> {
        let action = format!("upload `{}`", file.name);
        let url = self.file_url(release, &file.name)?;
        let mut put_url = url.clone();
        put_url
            .query_pairs_mut()
            .append_pair("select", "package_file");
        let policy = self.http.policy().clone();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let request = Request::new(Method::PUT, put_url.clone(), action.clone())
                .header(CONTENT_TYPE, "application/octet-stream")
                .body(file.contents.clone());
            let failure = match self.http.send(request).await {
                Ok(response) => {
                    let stored = serde_json::from_slice::<serde_json::Value>(&response.body)
                        .ok()
                        .and_then(|v| v.get("file_sha256")?.as_str().map(str::to_ascii_lowercase));
                    if let Some(stored) = stored
                        && stored != file.sha256
                    {
                        return Err(Error::ReadBackMismatch {
                            name: file.name.clone(),
                            url: url.to_string(),
                            expected: file.sha256.clone(),
                            actual: stored,
                        });
                    }
                    return Ok(());
                }
                Err(err) => err,
            };
            if let Some(rejection) = failure.rejection()
                && rejection.status == StatusCode::BAD_REQUEST
                && rejection.message.to_ascii_lowercase().contains("duplicate")
            {
                return Err(Error::DuplicateRefused {
                    name: file.name.clone(),
                    package: self.package(release),
                    version: self.package_version(&release.version),
                    message: rejection.message.clone(),
                });
            }
            if !failure.is_uncertain() {
                return Err(self.error(failure, &action));
            }
            // The upload may have gone through: look before sending it again.
            if let Some(bytes) = self.fetch(&url, &file.name).await?
                && sha256_hex(&bytes) == file.sha256
            {
                return Ok(());
            }
            if attempt >= policy.attempts {
                return Err(self.error(failure, &action));
            }
            let delay = policy.backoff(attempt);
            let reason = self.http.redact(&format!("{action}: {failure}; retrying"));
            self.http.progress().event(&Event::Waiting {
                reason: &reason,
                delay,
            });
            self.http.clock().sleep(delay).await;
        }
    }

    async fn apply_now(&self, release: &ReleaseDir, plan: Plan) -> Result<Outcome, Error> {
        let progress = self.http.progress().clone();
        let mut written = Vec::new();
        let mut outcomes = Vec::new();
        for planned in &plan.files {
            if planned.action != Action::Skip {
                let file = release.file(&planned.name).ok_or(Error::ForeignPlan)?;
                progress.event(&Event::Started {
                    name: &file.name,
                    size: file.size,
                    transfer: Transfer::Upload,
                });
                self.upload(release, file).await?;
                progress.event(&Event::Finished {
                    name: &file.name,
                    size: file.size,
                    transfer: Transfer::Upload,
                });
                written.push(file.name.clone());
            }
            outcomes.push(FileOutcome {
                name: planned.name.clone(),
                size: planned.size,
                sha256: planned.sha256.clone(),
                outcome: planned.action.into(),
                url: planned.url.clone(),
            });
        }
        Ok(Outcome {
            destination: plan.destination,
            files: outcomes,
            verified: false,
            state: Box::new(GitLabApplied { written }),
        })
    }

    async fn read_back_now(
        &self,
        release: &ReleaseDir,
        outcome: &mut Outcome,
    ) -> Result<(), Error> {
        let written = outcome.state_mut::<GitLabApplied>()?.written.clone();
        let progress = self.http.progress().clone();
        let reads = futures_util::stream::iter(written.into_iter().map(|name| {
            let progress = progress.clone();
            async move {
                let file = release.file(&name).ok_or(Error::ForeignPlan)?;
                let url = self.file_url(release, &name)?;
                progress.event(&Event::Started {
                    name: &name,
                    size: file.size,
                    transfer: Transfer::ReadBack,
                });
                let actual = self
                    .fetch(&url, &name)
                    .await?
                    .map_or_else(|| "nothing (404)".to_string(), |bytes| sha256_hex(&bytes));
                if actual != file.sha256 {
                    return Err(Error::ReadBackMismatch {
                        name,
                        url: url.to_string(),
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
}

impl Target for GitLabTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Gitlab
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

    fn finish<'a>(&'a self, _outcome: &'a mut Outcome) -> BoxFuture<'a, Result<(), Error>> {
        // GitLab has no drafts: files are visible as soon as they are uploaded.
        Box::pin(async { Ok(()) })
    }

    fn read_draft<'a>(
        &'a self,
        version: &'a crate::version::Version,
        label: Option<&'a str>,
    ) -> BoxFuture<'a, Result<Option<Drafted>, Error>> {
        Box::pin(async move {
            let Some(package) = self.request.package.as_deref().or(label) else {
                return Err(Error::Missing {
                    what: "GitLab package name to find the draft in",
                    flag: "`package:` in capkg.yaml's `targets.gitlab` (or the provider's `name:` and `type:`)",
                    env: None,
                });
            };
            let base = self.base_of(package, &self.package_version(version));
            let url_of = |name: &str| {
                let text = format!("{base}{name}");
                Url::parse(&text).map_err(|err| Error::Invalid {
                    what: "GitLab package URL",
                    value: text,
                    reason: err.to_string(),
                })
            };
            // A package cannot be listed by name and version here; the draft's list names its
            // files.
            let list_name = crate::checksums::CHECKSUMS_FILE;
            let Some(list) = self.fetch(&url_of(list_name)?, list_name).await? else {
                return Ok(None);
            };
            let mut files = vec![PublishFile::from_bytes(list_name, list.clone())];
            for entry in crate::checksums::parse(&list).unwrap_or_default() {
                if crate::files::check_release_name(&entry.name).is_err() {
                    continue;
                }
                if let Some(bytes) = self.fetch(&url_of(&entry.name)?, &entry.name).await? {
                    files.push(PublishFile::from_bytes(&entry.name, bytes));
                }
            }
            // The provenance statement names checksums.txt, so that list cannot name it.
            let statement = crate::provenance::STATEMENT_FILE;
            if let Some(bytes) = self.fetch(&url_of(statement)?, statement).await? {
                files.push(PublishFile::from_bytes(statement, bytes));
            }
            Ok(Some(Drafted {
                location: base,
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
            format!("{}{components}", self.package_base_at(release, version))
        })
        .map_or(History::Nothing, History::Versioned)
    }
}

/// GitLab's rule for package and file names (`A-Z a-z 0-9 . - _`); clusterctl also needs a file
/// name to be one path segment.
fn check_file_name(what: &'static str, name: &str) -> Result<(), Error> {
    // `.` and `..` pass the character rule but are path steps, not names.
    let ok = crate::forge::url::dot_or_empty_part(name).is_none()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    if ok {
        Ok(())
    } else {
        Err(Error::Invalid {
            what,
            value: name.to_string(),
            reason: "GitLab generic packages allow only letters, digits, `.`, `-` and `_`, and a name is not `.` or `..`".into(),
        })
    }
}

/// GitLab's version rule, `\A(\.?[\w\+-]+\.?)+\z`: word characters, `+`, `-`, with at most one
/// dot before the first and after the last, and at most two between.
fn check_version(version: &str) -> Result<(), Error> {
    let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-');
    let all_allowed = version.chars().all(|c| word(c) || c == '.');
    let runs: Vec<usize> = version.split(|c: char| word(c)).map(str::len).collect();
    let inner_ok = runs
        .iter()
        .skip(1)
        .take(runs.len().saturating_sub(2))
        .all(|&n| n <= 2);
    let ends_ok = runs.first().is_some_and(|&n| n <= 1) && runs.last().is_some_and(|&n| n <= 1);
    if all_allowed && version.chars().any(word) && inner_ok && ends_ok {
        Ok(())
    } else {
        Err(Error::Invalid {
            what: "GitLab package version",
            value: version.to_string(),
            reason: "GitLab accepts letters, digits, `_`, `+`, `-` and single dots".into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env::env;

    fn asked(project: Option<&str>, api_url: Option<&str>) -> GitLabRequest {
        GitLabRequest {
            project: project.map(str::to_string),
            api_url: api_url.map(str::to_string),
            ..GitLabRequest::default()
        }
    }

    #[test]
    fn a_job_token_is_not_sent_to_another_gitlab() {
        let err = Settings::resolve(
            asked(Some("g/p"), Some("https://gitlab.other.example/api/v4")),
            &env(&[
                ("CI_API_V4_URL", "https://gitlab.example.com/api/v4"),
                ("CI_JOB_TOKEN", "job-secret-1"),
            ]),
            Reach::Remote,
        )
        .unwrap_err();
        assert!(matches!(err, Error::TokenNotForHere { .. }), "{err}");
        let message = err.to_string();
        assert!(
            message.contains("`https://gitlab.other.example`"),
            "{message}"
        );
        assert!(message.contains("GITLAB_TOKEN"), "{message}");
        assert!(!message.contains("job-secret-1"), "{message}");
        // Without CI_API_V4_URL nothing says which GitLab the job token belongs to.
        let err = Settings::resolve(
            asked(Some("g/p"), Some("https://gitlab.example.com/api/v4")),
            &env(&[("CI_JOB_TOKEN", "job-secret-1")]),
            Reach::Remote,
        )
        .unwrap_err();
        assert!(matches!(err, Error::TokenNotForHere { .. }), "{err}");
        // A token of the user's own goes where the target is.
        Settings::resolve(
            asked(Some("g/p"), Some("https://gitlab.other.example/api/v4")),
            &env(&[
                ("CI_API_V4_URL", "https://gitlab.example.com/api/v4"),
                ("CI_JOB_TOKEN", "job-secret-1"),
                ("GITLAB_TOKEN", "pat"),
            ]),
            Reach::Remote,
        )
        .unwrap();
    }

    #[test]
    fn settings_come_from_flags_then_ci_variables() {
        let settings = Settings::resolve(
            asked(None, None),
            &env(&[
                ("CI_API_V4_URL", "https://gitlab.example.com/api/v4"),
                ("CI_PROJECT_ID", "42"),
                ("CI_JOB_TOKEN", "job"),
            ]),
            Reach::Remote,
        )
        .unwrap();
        assert_eq!(settings.project, "42");
        let token = settings.token.unwrap();
        assert!(matches!(token, GitLabToken::Job(_)));
        assert_eq!(token.credential().header_name().as_str(), "job-token");
        let settings = Settings::resolve(
            asked(Some("g/p"), Some("https://gitlab.example.com/api/v4")),
            &env(&[("GITLAB_TOKEN", "pat"), ("CI_JOB_TOKEN", "job")]),
            Reach::Remote,
        )
        .unwrap();
        assert_eq!(
            settings
                .token
                .as_ref()
                .unwrap()
                .credential()
                .header_name()
                .as_str(),
            "private-token"
        );
        assert_eq!(settings.project_segment(), "g%2Fp");
        let err = Settings::resolve(
            asked(Some("1"), None),
            &env(&[("GITLAB_TOKEN", "t")]),
            Reach::Remote,
        )
        .unwrap_err();
        assert!(err.to_string().contains("CI_API_V4_URL"), "{err}");
        let err = Settings::resolve(
            asked(None, Some("https://gitlab.example.com/api/v4")),
            &env(&[("GITLAB_TOKEN", "t")]),
            Reach::Remote,
        )
        .unwrap_err();
        assert!(err.to_string().contains("CI_PROJECT_ID"), "{err}");
    }

    #[test]
    fn an_offline_plan_shows_unset_ci_variables_as_placeholders() {
        let release = ReleaseDir::sample("v1.2.3");
        let target = GitLabTarget::new(
            asked(None, None),
            &env(&[]),
            Services::default(),
            Reach::Offline,
        )
        .unwrap();
        let plan = crate::targets::plan_offline(&target, &release);
        assert_eq!(
            plan.destination.clusterctl_url,
            "$CI_API_V4_URL/projects/$CI_PROJECT_ID/packages/generic/infrastructure-aws/v1.2.3/infrastructure-components.yaml"
        );
        // With the variables set, the offline plan's URLs are the real run's.
        let ci = env(&[
            ("CI_API_V4_URL", "https://gitlab.example.com/api/v4"),
            ("CI_PROJECT_ID", "g/p"),
        ]);
        let target =
            GitLabTarget::new(asked(None, None), &ci, Services::default(), Reach::Offline).unwrap();
        let plan = crate::targets::plan_offline(&target, &release);
        assert_eq!(
            plan.destination.clusterctl_url,
            "https://gitlab.example.com/api/v4/projects/g%2Fp/packages/generic/infrastructure-aws/v1.2.3/infrastructure-components.yaml"
        );
        assert!(
            GitLabTarget::new(asked(None, None), &ci, Services::default(), Reach::Remote).is_err(),
            "a real run needs a token"
        );
    }

    #[test]
    fn project_paths_are_escaped() {
        assert_eq!(escape_project("42"), "42");
        assert_eq!(escape_project("group/sub/my.proj"), "group%2Fsub%2Fmy.proj");
        assert_eq!(escape_project("grp%2Fproj"), "grp%2Fproj");
        assert_eq!(escape_project("grp%2fsub%2Fproj"), "grp%2Fsub%2Fproj");
    }

    #[test]
    fn versions_follow_gitlabs_rule() {
        for ok in ["v1.2.3", "1.0.0-rc.1", "v1.2.3+build.5", ".1", "1.", "1..2"] {
            assert!(check_version(ok).is_ok(), "{ok}");
        }
        for bad in ["", "..1", "1...2", "1..", "v1/2", "v 1"] {
            assert!(check_version(bad).is_err(), "{bad}");
        }
        assert!(check_file_name("file name", "a/b.yaml").is_err());
        assert!(check_file_name("file name", "cluster-template_x.yaml").is_ok());
    }

    #[test]
    fn projects_and_packages_have_no_dot_or_empty_parts() {
        let token = env(&[
            ("GITLAB_TOKEN", "t"),
            ("CI_API_V4_URL", "https://gl.example/api/v4"),
        ]);
        for project in ["..", "g/..", "g%2F..", "g//p", "%2e%2e"] {
            let err = Settings::resolve(asked(Some(project), None), &token, Reach::Remote)
                .map(|_| ())
                .unwrap_err();
            assert!(
                err.to_string().contains("GitLab project"),
                "{project}: {err}"
            );
        }
        for package in ["..", "."] {
            let request = GitLabRequest {
                package: Some(package.into()),
                ..asked(Some("g/p"), None)
            };
            assert!(
                Settings::resolve(request, &token, Reach::Remote).is_err(),
                "{package}"
            );
        }
        assert!(Settings::resolve(asked(Some("g/sub/p"), None), &token, Reach::Remote).is_ok());
    }
}
