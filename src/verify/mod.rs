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
//! The library returns a [`VerifyReport`] ([`report`]) and never prints; failures to read at all
//! are [`Error`]s. Findings in what was read are in the report (`ok: false`). Reading is
//! [`read`]'s, the checks besides lint (series, checksums, images) are [`checks`]'.

mod checks;
pub(crate) mod images_exist;
pub(crate) mod latest;
pub(crate) mod oci;
pub(crate) mod provenance;
mod read;
mod report;
pub(crate) mod repository;
pub(crate) mod source;

pub(crate) use checks::{checksums_check, images_check, series_check};
pub(crate) use report::{Check, RepositoryKind, VerifiedFile, VerifyReport};

use crate::error::{Classified, ErrorClass};
use std::path::{Path, PathBuf};

use reqwest::Url;

use self::source::{ProviderSource, SourceError};
use crate::checksums::sha256_hex;
use crate::files::{self, Release};
use crate::forge::Services;
use crate::forge::history::VersionedSource;
use crate::forge::http::HttpError;
use crate::forge::origin::{Access, Origins, Place, Purpose};
use crate::forge::{self};
use crate::provider::ProviderType;
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
    /// Read only: no lint rules, no series or provenance check (`capkg diff` compares what
    /// was read).
    pub skip_checks: bool,
    /// `--require-provenance`: the release's provenance statement must be there (it is checked
    /// whenever it is).
    pub provenance: provenance::Requirement,
    /// `--trusted-root` with the identity flags: the statement's signature is required and
    /// checked.
    pub signature: Option<provenance::SignaturePolicy>,
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
    /// A release read whole that is not one (an empty components file, an HTML page, a
    /// `metadata.yaml` without release series): `capkg diff` cannot compare with it.
    #[error("`{url}` is not a release capkg can compare: {problems}")]
    NotARelease { url: String, problems: String },
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
            // capkg cannot do its job, compare: never a verdict on the upgrade.
            Error::NotARelease { .. } => false,
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
            Error::NotARelease { .. } => Some(
                "`capkg verify SOURCE` shows every problem of that release; publish it again whole, or compare with another".into(),
            ),
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

/// What clusterctl would say about SOURCE before it reads anything (a GitLab package on a host
/// not starting with `gitlab.`, plain http to a loopback address), so that the command says it
/// first, before any request. The report carries the same warnings.
pub(crate) fn warnings_before_reading(source: &str) -> Vec<String> {
    if oci::oci_source(source).is_some() {
        return Vec::new();
    }
    source::parse(source, &|p: &Path| p.is_dir())
        .map(|parsed| parsed.warnings)
        .unwrap_or_default()
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
            read::read_and_check(request, parsed, settings, services).await,
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

/// The release before a new one, as [`newest_older`] chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Chosen {
    /// The version, as listed there.
    pub version: String,
    /// Newer versions older than the new one that were passed over, each with why
    /// (`v1.3.0-rc.0 (a pre-release)`), newest first.
    pub passed_over: Vec<String>,
}

/// The newest release older than `than` where `source` keeps its releases (the source of one
/// version: a clusterctl URL, a local repository's file, `oci://REF:TAG`), as clusterctl can
/// read it: a draft GitHub release is not one (clusterctl cannot download its assets), and
/// pre-releases are skipped unless `than` is one. `None` for the first release (nothing
/// published there yet, or nothing older).
pub(crate) async fn newest_older(
    source: &VersionedSource,
    than: &Version,
    settings: &Settings,
    services: &Services,
) -> Result<Option<Chosen>, Error> {
    let this = source.at(&than.to_string());
    let listed = if source.is_tag() {
        oci::tags(&this, settings, services)
            .await?
            .into_iter()
            .map(repository::Listed::release)
            .collect()
    } else {
        let parsed = source::parse(&this, &|p: &Path| p.is_dir())?;
        if matches!(parsed.source, ProviderSource::Directory(_)) {
            return Ok(None);
        }
        let opened = read::open(parsed.source, settings, services)?;
        match opened.repository.published().await {
            Ok(versions) => versions,
            // A local repository without the provider's folder yet: nothing published.
            Err(Error::Local { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(e),
        }
    };
    let mut older: Vec<(Version, String, Option<&str>)> = listed
        .iter()
        .filter_map(|listed| {
            let text = source.version_in(&listed.version)?;
            let version = Version::parse(&text).ok()?;
            let skipped = if listed.draft {
                Some("a draft: clusterctl cannot download a draft's files")
            } else if version.is_prerelease() && !than.is_prerelease() {
                Some("a pre-release, and this release is not one")
            } else {
                None
            };
            Some((version, text, skipped))
        })
        .filter(|(version, _, _)| version < than)
        .collect();
    older.sort_by(|(a, _, _), (b, _, _)| b.compare(a));
    let mut passed_over = Vec::new();
    for (_, text, skipped) in older {
        match skipped {
            Some(why) => passed_over.push(format!("{text} ({why})")),
            None => {
                return Ok(Some(Chosen {
                    version: text,
                    passed_over,
                }));
            }
        }
    }
    Ok(None)
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
            let source = VersionedSource::of(|version| {
                format!(
                    "file://{}/{version}/infrastructure-components.yaml",
                    label.display()
                )
            })
            .unwrap();
            let than = Version::parse(than).unwrap();
            let settings = settings.clone();
            async move {
                newest_older(&source, &than, &settings, &Services::default())
                    .await
                    .unwrap()
            }
        };
        // Releases only, newest first below the version; pre-releases for a pre-release.
        let chosen = previous("v1.4.0").await.unwrap();
        assert_eq!(chosen.version, "v1.2.4");
        assert_eq!(
            chosen.passed_over,
            ["v1.3.0-rc.0 (a pre-release, and this release is not one)"]
        );
        assert_eq!(
            previous("v1.3.0-rc.1").await.map(|c| c.version).as_deref(),
            Some("v1.3.0-rc.0")
        );
        assert_eq!(previous("v1.2.3").await, None);
        // No folder for the provider yet: the first release.
        let none = VersionedSource::of(|version| {
            format!(
                "file://{}/infrastructure-y/{version}/infrastructure-components.yaml",
                dir.path().display()
            )
        })
        .unwrap();
        let found = newest_older(
            &none,
            &Version::parse("v1.0.0").unwrap(),
            &settings,
            &Services::default(),
        )
        .await
        .unwrap();
        assert_eq!(found, None);
    }
}
