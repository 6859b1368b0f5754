//! `capkg verify SOURCE`: read a published release the way clusterctl does, and check it.
//!
//! SOURCE is what a clusterctl configuration's `url:` holds ([`source`]): a GitHub release URL, a
//! GitLab generic package URL, a `file://` local repository path, or a folder of release files.
//! For a URL, verify
//!
//! 1. resolves `latest` as clusterctl does ([`latest`]; GitLab repositories have no `latest`,
//!    clusterctl uses the version as written);
//! 2. fetches `metadata.yaml` and the components file named by the URL ([`repository`]), then the
//!    cluster templates and ClusterClasses beside them (GitHub and local repositories list their
//!    files; a GitLab package is listed through the `checksums.txt` capkg publishes, else only
//!    `cluster-template.yaml` is tried);
//! 3. checks that `metadata.yaml` has a release series for the version (clusterctl's `init` and
//!    `upgrade` refuse the version otherwise) and, when `checksums.txt` was published, that every
//!    file matches it;
//! 4. lints what it fetched with every rule, for that version.
//!
//! A folder is linted as release folders ([`crate::files::load_releases`]); when a folder sits in
//! a local repository layout (`{provider-label}/{version}/`), the version and provider come from
//! the path and the series check runs too.
//!
//! The library returns a [`VerifyReport`] and never prints; failures to read at all are
//! [`Error`]s. Findings in what was read are in the report (`ok: false`).

pub(crate) mod images_exist;
pub(crate) mod latest;
pub(crate) mod oci;
pub(crate) mod repository;
pub(crate) mod source;

use crate::error::{Classified, ErrorClass};
use std::path::{Path, PathBuf};

use bytes::Bytes;
use reqwest::Url;
use serde::Serialize;

use self::repository::{Fetch, GitHubRepository, GitLabRepository, LocalRepository, Repository};
use self::source::{LATEST, ProviderSource, SourceError};
use crate::checksums::{CHECKSUMS_FILE, sha256_hex};
use crate::diagnostic::{Diagnostic, Summary};
use crate::files::{self, Release};
use crate::forge::Services;
use crate::forge::credential::Credential;
use crate::forge::http::HttpError;
use crate::forge::origin::{Access, Origins, Place, Purpose};
use crate::forge::{self};
use crate::provider::{FileRole, ProviderType};
use crate::rules::{self};
use crate::version::Version;

/// What to verify.
#[derive(Debug, Clone, Default)]
pub(crate) struct VerifyRequest {
    /// SOURCE as given.
    pub source: String,
    /// `--provider`.
    pub provider_name: Option<String>,
    /// `--type`.
    pub provider_type: Option<ProviderType>,
    /// `--version`: the operator's `spec.version` for `oci://` sources (the tag in the reference
    /// when not given); other sources carry their version in the URL.
    pub version: Option<String>,
    /// Look every image the components name up in its registry
    /// ([`crate::verify::images_exist`]); not for folders.
    pub check_images: bool,
    /// Read only: no lint rules and no series check (`capkg diff` compares what was read).
    pub skip_checks: bool,
}

/// A release as read, with what is known of its provider and version: what `capkg diff`
/// compares.
#[derive(Debug, Clone)]
pub(crate) struct ReadRelease {
    pub release: Release,
    pub options: rules::Options,
}

/// Where verify reads from and with which credentials; built from flags and the environment by
/// [`Settings::resolve`].
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    /// The GitHub API for github.com URLs.
    pub github_api: Url,
    /// The run's credentials and where each may go ([`crate::forge::origin`]).
    pub origins: Origins,
    /// Why the release is read: named by the user (the default), or the one before a release.
    pub purpose: Purpose,
}

impl Settings {
    /// The GitHub API as [`crate::forge::github::api_url`] finds it, and the credentials
    /// ([`Origins::new`], the order publish uses too), for a release the user names. Tokens are
    /// optional: public releases need none.
    pub(crate) fn resolve(
        api_url: Option<&str>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, Error> {
        let github_api = forge::github::api_url(api_url, env).map_err(Error::ApiUrl)?;
        Ok(Self {
            origins: Origins::new(github_api.clone(), env),
            github_api,
            purpose: Purpose::Named,
        })
    }

    /// These settings for reading the release before the one published at `target` (its
    /// clusterctl URL, or `oci://REF:TAG`): a credential goes where it would for publishing
    /// there, to that target's own origin, and to the environment's ([`Purpose::Previous`]);
    /// anywhere else a `previous:` or `--previous` names, the release is read anonymously.
    pub(crate) fn for_previous(&self, target: &str) -> Self {
        Self {
            github_api: self.github_api.clone(),
            origins: self.origins.with_target(self.place(target)),
            purpose: Purpose::Previous,
        }
    }

    /// Where reading `source` sends requests; `None` for a folder or a local repository.
    fn place(&self, source: &str) -> Option<Place> {
        if let Some(reference) = oci::oci_source(source) {
            return oci::registry_of(reference).map(Place::Registry);
        }
        match source::parse(source, &|p: &Path| p.is_dir()).ok()?.source {
            ProviderSource::GitHub(_) => Some(Place::GitHub(self.github_api.clone())),
            ProviderSource::GitLab(gitlab) => Url::parse(&gitlab.origin).ok().map(Place::GitLab),
            ProviderSource::Local(_) | ProviderSource::Directory(_) => None,
        }
    }

    /// Which credential reading `source` sends, and which it keeps back, without a request;
    /// `None` when it is read from this machine.
    pub(crate) fn access(&self, source: &str) -> Option<Access> {
        match self.place(source)? {
            Place::Registry(host) => self
                .origins
                .registry(&host, self.purpose)
                .ok()
                .map(|(_, access)| access),
            place => Some(self.origins.forge(&place, self.purpose).1),
        }
    }
}

/// Which kind of repository was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum RepositoryKind {
    Github,
    Gitlab,
    Local,
    Directory,
    Oci,
}

/// One file verify read.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct VerifiedFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
    /// Where it was read from (the clusterctl-facing URL, or the path).
    pub url: String,
}

/// One check besides lint.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Check {
    /// `release-series`, `checksums`.
    pub name: &'static str,
    pub ok: bool,
    pub message: String,
}

/// What verify found.
///
/// JSON (`capkg verify --format json`):
///
/// ```json
/// {
///   "source": "https://github.com/o/r/releases/latest/infrastructure-components.yaml",
///   "repository": "github | gitlab | local | directory",
///   "requested_version": "latest",
///   "version": "v1.2.3",
///   "latest": {"version": "v1.2.3", "skipped": ["v1.3.0-rc.0: ..."]},
///   "provider_label": "infrastructure-azure",
///   "files": [{"name": "metadata.yaml", "size": 1, "sha256": "...", "url": "..."}],
///   "checks": [{"name": "release-series", "ok": true, "message": "..."}],
///   "diagnostics": [{"rule": "...", "severity": "error", "file": "...", "line": 1, ...}],
///   "summary": {"errors": 0, "warnings": 0, "infos": 0, "files": 3},
///   "warnings": ["..."],
///   "ok": true
/// }
/// ```
#[derive(Debug, Clone, Serialize)]
pub(crate) struct VerifyReport {
    pub source: String,
    pub repository: RepositoryKind,
    /// The version in the URL (`latest` or a tag); `None` for a folder.
    pub requested_version: Option<String>,
    /// The version read.
    pub version: Option<String>,
    /// How `latest` was resolved, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latest: Option<latest::Resolution>,
    pub provider_label: Option<String>,
    pub files: Vec<VerifiedFile>,
    pub checks: Vec<Check>,
    #[serde(serialize_with = "crate::diagnostic::serialize_json")]
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
    /// What clusterctl would do differently, or what could not be checked.
    pub warnings: Vec<String>,
    /// No lint errors and every check passed.
    pub ok: bool,
    /// What was read, one entry per provider.
    #[serde(skip)]
    pub releases: Vec<ReadRelease>,
}

impl VerifyReport {
    /// Lint errors plus failed checks.
    pub(crate) fn error_count(&self) -> usize {
        self.summary.errors + self.checks.iter().filter(|c| !c.ok).count()
    }

    /// The report with the maintainer's waivers applied (`lint: allow:`), counted again.
    pub(crate) fn waive(mut self, waivers: &[rules::Waiver], root: &Path) -> Self {
        if waivers.is_empty() {
            return self;
        }
        rules::waivers::apply(&mut self.diagnostics, waivers, root);
        self.finish()
    }

    fn finish(mut self) -> Self {
        let files = self.files.len();
        self.summary = Summary::of(&self.diagnostics, files);
        self.ok = self.error_count() == 0;
        self
    }
}

/// Why verify could not read the release.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("{what} (`{url}`)")]
    NotFound { what: String, url: String },
    #[error("{message}")]
    Refused {
        message: String,
        hint: Option<String>,
    },
    #[error("could not {what}")]
    Http {
        what: String,
        #[source]
        source: Box<HttpError>,
    },
    #[error("`{url}` answered with something capkg cannot read: {reason}")]
    Unexpected { url: String, reason: String },
    #[error("{message}")]
    Local {
        message: String,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("failed to find releases tagged with a valid semantic version number")]
    NoReleases,
    /// `metadata_client.go`: clusterctl's words, the provider named by its manifest label.
    #[error("failed to read \"metadata.yaml\" from the repository for provider {label:?}")]
    Metadata {
        label: String,
        #[source]
        source: Box<Error>,
    },
    /// `components_client.go`, `template_client.go`, `clusterclass_client.go`: the components
    /// file, a cluster template or a ClusterClass could not be read.
    #[error("failed to read {name:?} from provider's repository {label:?}")]
    Components {
        name: String,
        label: String,
        #[source]
        source: Box<Error>,
    },
    /// `repository_github.go`'s `errRateLimit`; the source says what capkg waited for.
    #[error(
        "rate limit for github api has been reached. Please wait one hour or get a personal API token and assign it to the GITHUB_TOKEN environment variable"
    )]
    RateLimited {
        #[source]
        source: Box<HttpError>,
    },
    /// A SOURCE clusterctl refuses before any request (see [`source::clusterctl_refusal`]),
    /// which capkg read anyway, and the read failed.
    #[error("{refusal}")]
    ClusterctlRefuses {
        refusal: String,
        #[source]
        source: Box<Error>,
    },
    #[error(transparent)]
    ProviderName(#[from] crate::provider::NameError),
    #[error(transparent)]
    Files(#[from] files::Error),
    #[error("invalid `--api-url`")]
    ApiUrl(#[source] HttpError),
    /// A list (releases, packages, tags) past a bound, or turning elsewhere.
    #[error(transparent)]
    List(#[from] crate::forge::pages::ListError),
    /// A read made anonymously because the credential capkg holds does not go there, failed.
    #[error(transparent)]
    Withheld(Withheld),
}

/// A failed read of a place a credential capkg holds does not go to: the failure as it is, and
/// the hint says which credential was kept back and why.
#[derive(Debug)]
pub(crate) struct Withheld {
    pub withheld: String,
    pub error: Box<Error>,
}

impl std::fmt::Display for Withheld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for Withheld {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.error)
    }
}

impl Error {
    pub(crate) fn http(what: String, source: HttpError) -> Self {
        Error::Http {
            what,
            source: Box::new(source),
        }
    }

    /// True when what was read (or not found) is wrong (exit 1); false when capkg could not do
    /// its job (exit 2): an unreachable server, an unreadable path, a bad flag.
    fn refusal(&self) -> bool {
        match self {
            // A SOURCE clusterctl refuses is a bad argument, as a bad flag is.
            Error::Source(_) => false,
            Error::NotFound { .. }
            | Error::Refused { .. }
            | Error::NoReleases
            | Error::RateLimited { .. }
            | Error::ProviderName(_) => true,
            // What capkg met reading it decides: a timeout is still capkg's failure.
            Error::ClusterctlRefuses { source, .. } => source.is_refusal(),
            Error::Http { source, .. } => matches!(
                **source,
                HttpError::Rejected(_)
                    | HttpError::WaitTooLong { .. }
                    | HttpError::StillRateLimited { .. }
            ),
            Error::Local { source, .. } => source.kind() == std::io::ErrorKind::NotFound,
            Error::Metadata { source, .. } | Error::Components { source, .. } => {
                source.is_refusal()
            }
            Error::Withheld(withheld) => withheld.error.is_refusal(),
            Error::Files(source) => crate::error::Classified::is_refusal(source),
            // A list past capkg's bounds, as an answer past `--max-download`: exit 2.
            Error::Unexpected { .. } | Error::ApiUrl(_) | Error::List(_) => false,
        }
    }

    /// What to do about it, for errors that know.
    fn hint_text(&self) -> Option<String> {
        match self {
            Error::Source(e) => e.hint.clone(),
            Error::Refused { hint, .. } => hint.clone(),
            Error::Metadata { source, .. } | Error::Components { source, .. } => source.hint(),
            Error::RateLimited { .. } => Some(
                "capkg waits for a rate limit as long as `--max-wait` allows (`capkg verify --max-wait 1h`); a token in GITHUB_TOKEN or GH_TOKEN has a higher limit".into(),
            ),
            Error::ClusterctlRefuses { source, .. } => Some(match source.hint() {
                Some(hint) => format!("{hint}; and clusterctl would refuse this URL before any request: the error above is what capkg met reading it anyway"),
                None => "clusterctl would refuse this URL before any request: the error above is what capkg met reading it anyway (a test server?)".into(),
            }),
            Error::NotFound { what, .. } if what.starts_with(repository::RELEASE_NOT_FOUND) => Some(
                "the release does not exist or is still a draft (drafts are invisible to clusterctl); for GitHub Enterprise or a test server, give its API URL (`capkg verify --api-url`, or `api_url` under `targets.github` in capkg.yaml for `capkg release`)".into(),
            ),
            Error::Http { source, .. } => match source.rejection().map(|r| r.status.as_u16()) {
                Some(401) => Some("the token in GITHUB_TOKEN / GH_TOKEN is wrong or expired".into()),
                Some(403) => Some("the token cannot read this repository, or the API rate limit is exhausted: set GITHUB_TOKEN".into()),
                _ => None,
            },
            Error::Files(e) => crate::error::Classified::hint(e),
            Error::Withheld(Withheld { withheld, error }) => Some(format!(
                "it was read without a login: {withheld}{}",
                error.hint().map(|hint| format!("; {hint}")).unwrap_or_default()
            )),
            _ => None,
        }
    }
}

impl Classified for Error {
    fn class(&self) -> ErrorClass {
        ErrorClass::refusal_if(self.refusal())
    }

    fn hint(&self) -> Option<String> {
        self.hint_text()
    }
}

/// A repository and what its URL says.
struct Opened {
    repository: Box<dyn Repository>,
    kind: RepositoryKind,
    /// The version in the URL.
    version: String,
    /// The components file name.
    components: String,
    /// The provider a local repository's path names.
    local_provider: Option<(ProviderType, String)>,
}

/// Reads SOURCE as clusterctl does and checks it.
pub(crate) async fn verify(
    request: &VerifyRequest,
    settings: &Settings,
    services: Services,
) -> Result<VerifyReport, Error> {
    if let (Some(provider_type), Some(name)) = (request.provider_type, &request.provider_name) {
        crate::provider::validate_name(Some(provider_type), name)?;
    }
    let withheld = settings
        .access(&request.source)
        .and_then(|access| access.withheld);
    let result = if let Some(reference) = oci::oci_source(&request.source) {
        oci::verify(request, reference, settings, services).await
    } else {
        let parsed = source::parse(&request.source, &|p: &Path| p.is_dir())?;
        let refusal = source::clusterctl_refusal(&parsed).map(str::to_string);
        match (
            read_and_check(request, parsed, settings, services).await,
            refusal,
        ) {
            (Err(error), Some(refusal)) => Err(Error::ClusterctlRefuses {
                refusal,
                source: Box::new(error),
            }),
            (result, _) => result,
        }
    };
    // A credential kept back from the place read is said: as a warning, or in the failure.
    match (result, withheld) {
        (Ok(mut report), Some(withheld)) => {
            report
                .warnings
                .push(format!("read without a login: {withheld}"));
            Ok(report)
        }
        (Err(error), Some(withheld)) => Err(Error::Withheld(Withheld {
            withheld,
            error: Box::new(error),
        })),
        (result, None) => result,
    }
}

async fn read_and_check(
    request: &VerifyRequest,
    parsed: source::Parsed,
    settings: &Settings,
    services: Services,
) -> Result<VerifyReport, Error> {
    let opened = match parsed.source {
        ProviderSource::Directory(dir) => {
            let limit = services.policy.max_download;
            return verify_directory(request, &dir, parsed.warnings, limit);
        }
        source => open(source, settings, &services)?,
    };
    let Opened {
        repository,
        kind,
        version,
        components,
        local_provider,
    } = opened;
    let mut warnings = parsed.warnings;
    if kind == RepositoryKind::Local
        && let Some((provider_type, name)) = &local_provider
    {
        let conflicts = request.provider_type.is_some_and(|t| t != *provider_type)
            || request.provider_name.as_deref().is_some_and(|n| n != name);
        if conflicts {
            return Err(Error::Source(SourceError {
                source_text: request.source.clone(),
                message: format!(
                    "invalid path: path {:?} must contain provider {:?} in the format {{basepath}}/{{provider-label}}/{{version}}/{{components.yaml}}",
                    request.source,
                    request
                        .provider_type
                        .unwrap_or(*provider_type)
                        .manifest_label(request.provider_name.as_deref().unwrap_or(name))
                ),
                hint: None,
            }));
        }
    }

    let requested = version.clone();
    let (version, resolution) = if version == LATEST && kind != RepositoryKind::Gitlab {
        let resolution =
            latest::latest_contract_release(repository.as_ref(), latest::CONTRACT).await?;
        (resolution.version.clone(), Some(resolution))
    } else {
        if version == LATEST {
            warnings.push(
                "clusterctl does not resolve `latest` for GitLab packages: it reads a package version literally named `latest`".into(),
            );
        }
        (version, None)
    };

    let label = repository_label(request, local_provider.as_ref(), &components);
    let metadata = repository
        .file(&version, "metadata.yaml")
        .await
        .map_err(|e| Error::Metadata {
            label: label.clone(),
            source: Box::new(e.into_error()),
        })?;
    let components_bytes =
        repository
            .file(&version, &components)
            .await
            .map_err(|e| Error::Components {
                name: components.clone(),
                label: label.clone(),
                source: Box::new(e.into_error()),
            })?;
    let mut fetched: Vec<(String, Bytes)> = vec![
        ("metadata.yaml".to_string(), metadata),
        (components.clone(), components_bytes),
    ];

    // The templates beside the components file, and the checksums capkg publishes.
    let listed = repository.list(&version).await?;
    let mut checksums: Option<Bytes> = None;
    let names = match listed {
        Some(names) => names,
        None => {
            checksums = repository.file(&version, CHECKSUMS_FILE).await.ok();
            match &checksums {
                Some(list) => checksum_names(list),
                None => {
                    warnings.push(format!(
                        "a {} package cannot be listed through clusterctl's URLs and has no `{CHECKSUMS_FILE}`: only `cluster-template.yaml` was looked for",
                        match kind {
                            RepositoryKind::Gitlab => "GitLab",
                            _ => "this",
                        }
                    ));
                    vec!["cluster-template.yaml".to_string()]
                }
            }
        }
    };
    for name in names {
        let is_template = matches!(
            FileRole::from_file_name(&name),
            Some(FileRole::ClusterTemplate { .. } | FileRole::ClusterClass { .. })
        );
        if is_template && !fetched.iter().any(|(n, _)| *n == name) {
            match repository.file(&version, &name).await {
                Ok(bytes) => fetched.push((name, bytes)),
                Err(Fetch::NotFound(_)) => {}
                Err(Fetch::Failed(err)) if kind == RepositoryKind::Gitlab => {
                    if name != "cluster-template.yaml" {
                        warnings.push(format!("`{name}` could not be read: {err}"));
                    }
                }
                Err(Fetch::Failed(err)) => {
                    return Err(Error::Components {
                        name,
                        label,
                        source: Box::new(err),
                    });
                }
            }
        } else if name == CHECKSUMS_FILE && checksums.is_none() {
            checksums = repository.file(&version, CHECKSUMS_FILE).await.ok();
        }
    }

    let files: Vec<VerifiedFile> = fetched
        .iter()
        .map(|(name, bytes)| VerifiedFile {
            name: name.clone(),
            size: bytes.len() as u64,
            sha256: sha256_hex(bytes),
            url: repository.url(&version, name),
        })
        .collect();
    let mut checks = Vec::new();
    if let Some(list) = &checksums {
        checks.push(checksum_check(list, &files));
    }

    let release = Release {
        dir: PathBuf::from(&version),
        files: fetched
            .iter()
            .filter_map(|(name, bytes)| {
                let role = FileRole::from_file_name(name).or(
                    match (name == &components, request.provider_type) {
                        (true, Some(provider_type)) => Some(FileRole::Components {
                            provider_type,
                            suffix: None,
                        }),
                        _ => None,
                    },
                )?;
                Some(files::load_text(
                    name,
                    crate::yaml::text_lossy(bytes).into_owned(),
                    role,
                ))
            })
            .collect(),
        near_misses: Vec::new(),
    };
    if !release.files.iter().any(|f| f.file_name() == components) {
        warnings.push(format!(
            "`{components}` is not named like a components file; pass `--type` to lint it as one"
        ));
    }
    let parsed_version = Version::parse(&version).ok();
    let options = rules::Options {
        provider_type: request
            .provider_type
            .or(local_provider.as_ref().map(|(t, _)| *t)),
        provider_name: request
            .provider_name
            .clone()
            .or(local_provider.as_ref().map(|(_, n)| n.clone())),
        version: parsed_version.clone(),
    };
    let provider = rules::Context::new(&release, &options).provider;
    let label = provider.label();
    match &parsed_version {
        _ if request.skip_checks => {}
        Some(v) => checks.insert(0, series_check(&release, v, label.as_deref())),
        None => warnings.push(format!(
            "`{version}` is not a semantic version: clusterctl cannot install it, and the release series check was skipped"
        )),
    }
    let diagnostics = if request.skip_checks {
        Vec::new()
    } else {
        rules::run(std::slice::from_ref(&release), &options)
    };
    if request.check_images {
        images_check(&[&release], settings, &services, &mut checks, &mut warnings).await;
    }
    Ok(VerifyReport {
        source: request.source.clone(),
        repository: kind,
        requested_version: Some(requested),
        version: Some(version),
        latest: resolution,
        provider_label: label,
        files,
        checks,
        diagnostics,
        summary: Summary::default(),
        warnings,
        ok: false,
        releases: vec![ReadRelease { release, options }],
    }
    .finish())
}

/// The repository a parsed (non-folder) SOURCE names.
fn open(source: ProviderSource, settings: &Settings, services: &Services) -> Result<Opened, Error> {
    let http = |credential: Option<Credential>| {
        services
            .http(credential)
            .map_err(|e| Error::http("start the HTTP client".into(), e))
    };
    Ok(match source {
        ProviderSource::Directory(dir) => {
            return Err(Error::Source(SourceError {
                source_text: dir.display().to_string(),
                message: "a folder is not a repository".into(),
                hint: None,
            }));
        }
        ProviderSource::GitHub(source) => {
            let place = Place::GitHub(settings.github_api.clone());
            let (credential, _) = settings.origins.forge(&place, settings.purpose);
            Opened {
                version: source.version.clone(),
                components: source.components_path.clone(),
                kind: RepositoryKind::Github,
                local_provider: None,
                repository: Box::new(GitHubRepository::new(
                    source,
                    settings.github_api.clone(),
                    http(credential)?,
                )),
            }
        }
        ProviderSource::GitLab(source) => {
            let origin = Url::parse(&source.origin).map_err(|e| Error::Unexpected {
                url: source.origin.clone(),
                reason: e.to_string(),
            })?;
            let (credential, _) = settings
                .origins
                .forge(&Place::GitLab(origin), settings.purpose);
            Opened {
                version: source.version.clone(),
                components: source.components_path.clone(),
                kind: RepositoryKind::Gitlab,
                local_provider: None,
                repository: Box::new(GitLabRepository::new(source, http(credential)?)),
            }
        }
        ProviderSource::Local(source) => Opened {
            version: source.version.clone(),
            components: source.components_path.clone(),
            kind: RepositoryKind::Local,
            local_provider: source.provider().map(|(t, n)| (t, n.to_string())),
            repository: Box::new(LocalRepository::new(source, services.policy.max_download)),
        },
    })
}

/// The newest version SOURCE's repository offers that is older than `than`: what `capkg
/// release` compares a release with. Pre-releases are skipped (users upgrade from releases),
/// unless `than` is one. `None` for the first release. Versions are what the repository
/// publishes ([`Repository::published`]: a GitLab project's packages of the name, through its API).
pub(crate) async fn previous_version(
    source: &str,
    than: &Version,
    settings: &Settings,
    services: &Services,
) -> Result<Option<String>, Error> {
    let parsed = source::parse(source, &|p: &Path| p.is_dir())?;
    if matches!(parsed.source, ProviderSource::Directory(_)) {
        return Ok(None);
    }
    let opened = open(parsed.source, settings, services)?;
    let versions = match opened.repository.published().await {
        Ok(versions) => versions,
        // A local repository without the provider's folder yet: nothing published.
        Err(Error::Local { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    Ok(versions
        .iter()
        .filter_map(|text| Some((Version::parse(text).ok()?, text)))
        .filter(|(v, _)| v < than && (than.is_prerelease() || !v.is_prerelease()))
        .max_by(|(a, _), (b, _)| a.compare(b))
        .map(|(_, text)| text.clone()))
}

/// The provider's manifest label, as clusterctl names it in its messages: from the local
/// repository's path, else `--type` (or the components file's name) and `--provider`; capkg
/// cannot know it before reading the components file otherwise.
fn repository_label(
    request: &VerifyRequest,
    local_provider: Option<&(ProviderType, String)>,
    components: &str,
) -> String {
    if let Some((provider_type, name)) = local_provider {
        return provider_type.manifest_label(name);
    }
    let provider_type = request
        .provider_type
        .or(match FileRole::from_file_name(components) {
            Some(FileRole::Components { provider_type, .. }) => Some(provider_type),
            _ => None,
        });
    match (provider_type, request.provider_name.as_deref()) {
        (Some(provider_type), Some(name)) => provider_type.manifest_label(name),
        (Some(ProviderType::Core), None) => crate::provider::CORE_PROVIDER_NAME.to_string(),
        _ => "(unknown: pass --provider and --type)".to_string(),
    }
}

/// Looks up every image of `releases` and records the result as the `images` check (missing
/// images fail it) and warnings (images that could not be checked).
pub(crate) async fn images_check(
    releases: &[&Release],
    settings: &Settings,
    services: &Services,
    checks: &mut Vec<Check>,
    warnings: &mut Vec<String>,
) {
    let uses = images_exist::image_uses(releases);
    let found = images_exist::check(&uses, &settings.origins, services).await;
    warnings.extend(found.warnings());
    // `ok` only when an image was found: a check that looked nothing up passes nothing.
    if found.found.is_empty() && found.missing.is_empty() {
        if !found.unchecked.is_empty() {
            warnings.push(format!(
                "images: none of the {} image(s) could be checked, so their existence is not known",
                found.unchecked.len()
            ));
        }
        return;
    }
    checks.push(Check {
        name: "images",
        ok: found.ok(),
        message: if found.ok() {
            found.summary()
        } else {
            format!("not in their registry: {}", found.missing_text())
        },
    });
}

/// A folder: lint it; a `{label}/{version}/` folder also gets the series check. Each file is
/// read as a download is: a regular file, at most `limit` bytes.
fn verify_directory(
    request: &VerifyRequest,
    dir: &Path,
    warnings: Vec<String>,
    limit: u64,
) -> Result<VerifyReport, Error> {
    let releases = files::load_releases_within(&[dir.to_path_buf()], request.provider_type, limit)?;
    let mut diagnostics = Vec::new();
    let mut checks = Vec::new();
    let mut files = Vec::new();
    let mut versions = Vec::new();
    let mut labels = Vec::new();
    // `--version` for a folder the path gives no version (`out/`), as `capkg lint --version`.
    let given = match request.version.as_deref() {
        None => None,
        Some(text) => Some(crate::version::Version::parse(text).map_err(|e| {
            Error::Source(SourceError {
                source_text: text.to_string(),
                message: format!("`--version {text}` is not a version: {e}"),
                hint: Some("give the version as tagged, `v1.2.3`".into()),
            })
        })?),
    };
    let mut read = Vec::new();
    for release in releases {
        let (version, from_path) = version_from_path(&release.dir);
        let version = version.or_else(|| given.clone());
        let options = rules::Options {
            provider_type: request
                .provider_type
                .or(from_path.as_ref().map(|(t, _)| *t)),
            provider_name: request.provider_name.clone().or(from_path.map(|(_, n)| n)),
            version: version.clone(),
        };
        let label = rules::Context::new(&release, &options).provider.label();
        if let Some(version) = &version {
            if !request.skip_checks {
                checks.push(series_check(&release, version, label.as_deref()));
            }
            versions.push(version.to_string());
        }
        labels.extend(label);
        if !request.skip_checks {
            diagnostics.extend(rules::run(std::slice::from_ref(&release), &options));
        }
        for file in &release.files {
            let text = file.source().text();
            files.push(VerifiedFile {
                name: file.path.display().to_string(),
                size: text.len() as u64,
                sha256: sha256_hex(text.as_bytes()),
                url: file.path.display().to_string(),
            });
        }
        read.push(ReadRelease { release, options });
    }
    let mut warnings = warnings;
    if versions.is_empty() && !request.skip_checks {
        warnings.push(
            "the folder is not in the `{provider-label}/{version}/` layout, so the version is unknown and the release series check was skipped".into(),
        );
    }
    labels.sort();
    labels.dedup();
    versions.dedup();
    Ok(VerifyReport {
        source: request.source.clone(),
        repository: RepositoryKind::Directory,
        requested_version: None,
        version: (versions.len() == 1).then(|| versions.remove(0)),
        latest: None,
        provider_label: (labels.len() == 1).then(|| labels.remove(0)),
        files,
        checks,
        diagnostics,
        summary: Summary::default(),
        warnings,
        ok: false,
        releases: read,
    }
    .finish())
}

/// `({label}/)?{version}` of a release folder: the version when the folder name is one, and the
/// provider when the folder above is a manifest label.
fn version_from_path(dir: &Path) -> (Option<Version>, Option<(ProviderType, String)>) {
    let name = |p: &Path| p.file_name().and_then(|n| n.to_str()).map(str::to_string);
    let Some(version) = name(dir).and_then(|n| Version::parse(&n).ok()) else {
        return (None, None);
    };
    let provider = dir
        .parent()
        .and_then(name)
        .and_then(|label| ProviderType::split_label(&label).map(|(t, n)| (t, n.to_string())));
    (Some(version), provider)
}

/// clusterctl's `init`/`upgrade` check: the version's major.minor has a release series.
pub(crate) fn series_check(release: &Release, version: &Version, label: Option<&str>) -> Check {
    let Some(metadata) = release.metadata() else {
        return Check {
            name: "release-series",
            ok: false,
            message: "there is no `metadata.yaml`, so clusterctl cannot find a release series for any version".into(),
        };
    };
    let series = rules::release_series(metadata);
    let wanted = (i128::from(version.major()), i128::from(version.minor()));
    let listed: Vec<String> = series
        .iter()
        .filter_map(|s| s.major_minor())
        .map(|(major, minor)| format!("{major}.{minor}"))
        .collect();
    match series.iter().find(|s| s.major_minor() == Some(wanted)) {
        Some(found) => Check {
            name: "release-series",
            ok: true,
            message: format!(
                "release series {}.{} (contract {}) covers {version}",
                version.major(),
                version.minor(),
                found.contract.unwrap_or("none")
            ),
        },
        None => Check {
            name: "release-series",
            ok: false,
            message: format!(
                "invalid provider metadata: version {version} for the provider {} does not match any release series. {}",
                label.unwrap_or("(unknown)"),
                if listed.is_empty() {
                    "No release series found in metadata.".to_string()
                } else {
                    format!("Available series: [{}].", listed.join(", "))
                }
            ),
        },
    }
}

/// The file names a `sha256sum` list names.
fn checksum_names(list: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(list)
        .lines()
        .filter_map(|line| {
            let (_, name) = line.split_once(char::is_whitespace)?;
            let name = name.trim_start().trim_start_matches('*');
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// Every fetched file is in `checksums.txt` with its SHA-256.
fn checksum_check(list: &[u8], files: &[VerifiedFile]) -> Check {
    let text = String::from_utf8_lossy(list);
    let sums: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|line| {
            let (sum, name) = line.split_once(char::is_whitespace)?;
            Some((sum, name.trim_start().trim_start_matches('*')))
        })
        .collect();
    let mut problems = Vec::new();
    for file in files {
        match sums.iter().find(|(_, name)| *name == file.name) {
            Some((sum, _)) if sum.eq_ignore_ascii_case(&file.sha256) => {}
            Some((sum, _)) => problems.push(format!(
                "`{}` has SHA-256 {}, `{CHECKSUMS_FILE}` says {sum}",
                file.name, file.sha256
            )),
            None => problems.push(format!("`{CHECKSUMS_FILE}` does not list `{}`", file.name)),
        }
    }
    checksums_check(
        &problems,
        format!("every file read matches `{CHECKSUMS_FILE}`"),
    )
}

/// The `checksums` check: passed with `all_match`, or failed listing the problems.
pub(crate) fn checksums_check(problems: &[String], all_match: String) -> Check {
    Check {
        name: "checksums",
        ok: problems.is_empty(),
        message: if problems.is_empty() {
            all_match
        } else {
            problems.join("; ")
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_previous_version_is_the_newest_older_release() {
        let dir = tempfile::tempdir().unwrap();
        let label = dir.path().join("infrastructure-x");
        for version in ["v1.2.3", "v1.2.4", "v1.3.0-rc.0", "v1.4.0", "notes"] {
            std::fs::create_dir_all(label.join(version)).unwrap();
        }
        let settings = Settings::resolve(None, &|_| None).unwrap();
        let previous = |than: &str| {
            let source = format!(
                "file://{}/v9.9.9/infrastructure-components.yaml",
                label.display()
            );
            let than = Version::parse(than).unwrap();
            let settings = settings.clone();
            async move {
                previous_version(&source, &than, &settings, &Services::default())
                    .await
                    .unwrap()
            }
        };
        // Releases only, newest first below the version; pre-releases for a pre-release.
        assert_eq!(previous("v1.3.0").await.as_deref(), Some("v1.2.4"));
        assert_eq!(
            previous("v1.3.0-rc.1").await.as_deref(),
            Some("v1.3.0-rc.0")
        );
        assert_eq!(previous("v1.2.3").await, None);
        // No folder for the provider yet: the first release.
        let none = format!(
            "file://{}/infrastructure-y/v1.0.0/infrastructure-components.yaml",
            dir.path().display()
        );
        let found = previous_version(
            &none,
            &Version::parse("v1.0.0").unwrap(),
            &settings,
            &Services::default(),
        )
        .await
        .unwrap();
        assert_eq!(found, None);
    }

    #[test]
    fn checksum_lists_name_their_files() {
        let list = b"aaaa  metadata.yaml\nbbbb *cluster-template.yaml\n\n";
        assert_eq!(
            checksum_names(list),
            ["metadata.yaml", "cluster-template.yaml"]
        );
        let files = [VerifiedFile {
            name: "metadata.yaml".into(),
            size: 1,
            sha256: "AAAA".to_ascii_lowercase(),
            url: String::new(),
        }];
        assert!(checksum_check(list, &files).ok);
        let wrong = [VerifiedFile {
            sha256: "cccc".into(),
            ..files[0].clone()
        }];
        let check = checksum_check(list, &wrong);
        assert!(!check.ok);
        assert!(check.message.contains("says aaaa"), "{}", check.message);
    }

    #[test]
    fn messages_name_the_provider_by_its_manifest_label() {
        let request = |name: Option<&str>, provider_type: Option<ProviderType>| VerifyRequest {
            source: String::new(),
            provider_name: name.map(str::to_string),
            provider_type,
            version: None,
            check_images: false,
            skip_checks: false,
        };
        let local = (ProviderType::Bootstrap, "kubeadm".to_string());
        assert_eq!(
            repository_label(&request(None, None), Some(&local), "x.yaml"),
            "bootstrap-kubeadm"
        );
        assert_eq!(
            repository_label(
                &request(Some("azure"), None),
                None,
                "infrastructure-components.yaml"
            ),
            "infrastructure-azure"
        );
        assert_eq!(
            repository_label(&request(None, None), None, "core-components.yaml"),
            "cluster-api"
        );
        // Never the components file's name (issue 16: `provider "file.yaml"`).
        assert_eq!(
            repository_label(&request(None, None), None, "file.yaml"),
            "(unknown: pass --provider and --type)"
        );
    }

    #[test]
    fn folder_names_give_version_and_provider() {
        let (version, provider) = version_from_path(Path::new("/repo/infrastructure-azure/v1.2.3"));
        assert_eq!(version.unwrap().to_string(), "v1.2.3");
        assert_eq!(
            provider,
            Some((ProviderType::Infrastructure, "azure".to_string()))
        );
        assert_eq!(version_from_path(Path::new("out")), (None, None));
    }

    #[test]
    fn series_check_uses_clusterctl_words() {
        let release = Release {
            dir: "v".into(),
            files: vec![files::load_text(
                "metadata.yaml",
                "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta1\n".into(),
                FileRole::Metadata,
            )],
            near_misses: Vec::new(),
        };
        let ok = series_check(&release, &Version::parse("v1.0.4").unwrap(), None);
        assert!(ok.ok, "{}", ok.message);
        let missing = series_check(
            &release,
            &Version::parse("v1.1.0").unwrap(),
            Some("infrastructure-x"),
        );
        assert!(!missing.ok);
        assert_eq!(
            missing.message,
            "invalid provider metadata: version v1.1.0 for the provider infrastructure-x does not match any release series. Available series: [1.0]."
        );
    }
}
