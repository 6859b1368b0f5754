//! Which credential goes where: the one decision every read of a release, a list of versions, a
//! file or an image asks, in `verify`, `diff` and `release` ([`Origins::allows`]). Publishing
//! binds a target's credential to that target's own API (`crate::targets`), the publish column
//! of the book's table.
//!
//! A credential has homes, the places it belongs to, and goes nowhere else. A place named by a
//! file a pull request can change (capkg.yaml `previous:`), by `--previous`, by a release (an
//! image) or by a server (a `Link`, a redirect) is never made a home by being named:
//!
//! | credential | its homes |
//! |---|---|
//! | `GITHUB_TOKEN`, `GH_TOKEN` | the GitHub API capkg reads GitHub through (`--api-url`, `GITHUB_API_URL`, `https://api.github.com`), and a GitHub target's API |
//! | `GITLAB_TOKEN`, `GITLAB_ACCESS_TOKEN` | `CI_API_V4_URL`'s instance, a GitLab target's instance, and an instance the user names ([`Purpose::Named`]) |
//! | `CI_JOB_TOKEN` | `CI_API_V4_URL`'s instance only: a job token belongs to its pipeline's GitLab |
//! | `OCI_ACCESS_TOKEN`, `OCI_USERNAME`/`OCI_PASSWORD`, `GITHUB_TOKEN` for `ghcr.io` | the registry the user names: the OCI target, `verify`/`diff` `oci://REF` ([`Purpose::Named`]); for the previous release, the OCI target's registry only |
//! | a Docker config `auths` entry | its own registry |
//!
//! What a credential does at its home (an origin, never across a redirect; a registry's own token
//! realm) is [`super::http`]'s and [`super::oci`]'s part. A target can own its decisions: it
//! makes [`Origins::with_target`] with its own [`Place`], and every read of the release before
//! the new one asks with [`Purpose::Previous`].

use std::collections::BTreeMap;

use reqwest::Url;
use serde::Serialize;

use super::credential::Credential;
use super::gitlab::GitLabToken;
use super::login::{Login, LoginSource, RegistryRole};
use super::oci::OciError;
use super::secret::Secret;
use super::url::same_origin;

/// Why a request is made, which decides whether the place it goes to may be the user's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Read or write a place the user named: an argument (`verify SOURCE`, `diff OLD NEW`), a
    /// flag, or the release's target (its publish, read-back and verify).
    Named,
    /// Read the release before the one being released, to compare: its place may come from
    /// capkg.yaml `previous:` or `--previous`, so only the target's own origin and the
    /// environment's are homes.
    Previous,
    /// Look up something a release names (an image): never a place the user chose.
    Content,
}

/// Where a request goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    /// A GitHub REST API root.
    GitHub(Url),
    /// A GitLab instance (any URL on its origin).
    GitLab(Url),
    /// A container registry, `host[:port]`.
    Registry(String),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::GitHub(url) | Place::GitLab(url) => {
                write!(f, "`{}`", url.origin().ascii_serialization())
            }
            Place::Registry(host) => write!(f, "`{host}`"),
        }
    }
}

/// The GitLab instance of the pipeline capkg runs in (`CI_API_V4_URL`), when it names one.
pub(crate) fn pipeline_gitlab(env: &dyn Fn(&str) -> Option<String>) -> Option<Url> {
    env("CI_API_V4_URL")
        .filter(|v| !v.trim().is_empty())
        .and_then(|text| super::http::parse_base_url(&text).ok())
}

/// Whether `CI_JOB_TOKEN` may go to the GitLab at `at`: only to its pipeline's, `ci`
/// (`CI_API_V4_URL`); `Err` says why not.
pub(crate) fn job_token_reaches(ci: Option<&Url>, at: &Url) -> Result<(), String> {
    match ci {
        Some(ci) if same_origin(ci, at) => Ok(()),
        Some(ci) => Err(format!(
            "a job token goes only to its pipeline's GitLab, `{}` (CI_API_V4_URL)",
            ci.origin().ascii_serialization()
        )),
        None => Err(
            "a job token goes only to its pipeline's GitLab, and CI_API_V4_URL, which names it, is not set"
                .into(),
        ),
    }
}

/// A credential capkg may hold, by the homes it has (the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `GITHUB_TOKEN`, `GH_TOKEN`.
    GitHubToken,
    /// `GITLAB_TOKEN`, `GITLAB_ACCESS_TOKEN`: a person's, a project's or a group's.
    GitLabPersonal,
    /// `CI_JOB_TOKEN`.
    GitLabJob,
    /// `OCI_ACCESS_TOKEN`, `OCI_USERNAME` and `OCI_PASSWORD`, `GITHUB_TOKEN` for `ghcr.io`.
    RegistryVariables,
    /// The Docker config file's `auths` entry of the registry asked.
    DockerConfig,
}

/// What a request to a place carries, for reports: which credential, and which one capkg holds
/// but keeps from it. Never a value.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Access {
    /// Where the credential that goes there comes from (`GITHUB_TOKEN`, the Docker config
    /// file); `None`: the place is read anonymously.
    pub login: Option<String>,
    /// A credential capkg holds that is not sent there, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<String>,
}

/// The variables a registry login may be read from ([`Login::resolve`]).
const REGISTRY_VARIABLES: [&str; 8] = [
    "OCI_USERNAME",
    "OCI_PASSWORD",
    "OCI_ACCESS_TOKEN",
    "GITHUB_ACTIONS",
    "GITHUB_TOKEN",
    "GITHUB_ACTOR",
    "DOCKER_CONFIG",
    "HOME",
];

/// The credentials of this run and their homes, read from the environment once.
#[derive(Clone)]
pub(crate) struct Origins {
    github: Option<(Secret, &'static str)>,
    /// The GitHub API capkg reads GitHub through.
    github_api: Url,
    gitlab: Option<GitLabToken>,
    /// `CI_API_V4_URL`: the GitLab instance of the pipeline capkg runs in.
    ci_gitlab: Option<Url>,
    registry_env: BTreeMap<String, String>,
    /// The release's target, whose own origin is a home of what publishing sends there.
    target: Option<Place>,
}

impl std::fmt::Debug for Origins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Origins")
            .field("github_api", &self.github_api.as_str())
            .field("ci_gitlab", &self.ci_gitlab.as_ref().map(Url::as_str))
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl Origins {
    /// The tokens as [`super::github::token`], [`super::gitlab::token`] and
    /// [`Login::resolve`] find them; `github_api` is where GitHub is read.
    pub(crate) fn new(github_api: Url, env: &dyn Fn(&str) -> Option<String>) -> Self {
        Self {
            github: super::github::token_and_variable(env),
            github_api,
            gitlab: super::gitlab::token(env),
            ci_gitlab: pipeline_gitlab(env),
            registry_env: REGISTRY_VARIABLES
                .iter()
                .filter_map(|name| env(name).map(|value| (name.to_string(), value)))
                .collect(),
            target: None,
        }
    }

    /// The same credentials for a run that publishes to `target`.
    pub(crate) fn with_target(&self, target: Option<Place>) -> Self {
        Self {
            target,
            ..self.clone()
        }
    }

    /// A variable a registry login is read from.
    pub(crate) fn registry_variable(&self, name: &str) -> Option<String> {
        self.registry_env.get(name).cloned()
    }

    /// The decision table: whether a credential of `kind` may go to `place` for `purpose`;
    /// `Err` says why not, for reports.
    pub(crate) fn allows(&self, kind: Kind, place: &Place, purpose: Purpose) -> Result<(), String> {
        let target_is = |wanted: &dyn Fn(&Place) -> bool| self.target.as_ref().is_some_and(wanted);
        match (kind, place) {
            (Kind::GitHubToken, Place::GitHub(api)) => {
                let target = target_is(&|t| matches!(t, Place::GitHub(t) if same_origin(t, api)));
                if same_origin(api, &self.github_api) || target {
                    Ok(())
                } else {
                    Err(format!(
                        "it is not the GitHub API capkg reads GitHub through (`{}`)",
                        self.github_api.origin().ascii_serialization()
                    ))
                }
            }
            (Kind::GitLabJob, Place::GitLab(at)) => job_token_reaches(self.ci_gitlab.as_ref(), at),
            (Kind::GitLabPersonal, Place::GitLab(at)) => {
                let ci = self.ci_gitlab.as_ref().is_some_and(|ci| same_origin(ci, at));
                let target = target_is(&|t| matches!(t, Place::GitLab(t) if same_origin(t, at)));
                if ci || target || purpose == Purpose::Named {
                    Ok(())
                } else {
                    Err(format!(
                        "it is neither the target's GitLab{} nor CI_API_V4_URL's{}, and was not named on the command line",
                        match &self.target {
                            Some(target @ Place::GitLab(_)) => format!(" ({target})"),
                            _ => String::new(),
                        },
                        self.ci_gitlab
                            .as_ref()
                            .map(|ci| format!(" (`{}`)", ci.origin().ascii_serialization()))
                            .unwrap_or_default(),
                    ))
                }
            }
            (Kind::RegistryVariables, Place::Registry(host)) => match purpose {
                Purpose::Named => Ok(()),
                Purpose::Previous
                    if target_is(&|t| matches!(t, Place::Registry(t) if t.eq_ignore_ascii_case(host))) =>
                {
                    Ok(())
                }
                Purpose::Previous => Err(format!(
                    "the OCI login goes to the registry you name only, and for the previous release that is the OCI target's{}",
                    match &self.target {
                        Some(target @ Place::Registry(_)) => format!(" ({target})"),
                        _ => String::new(),
                    }
                )),
                Purpose::Content => Err(
                    "the OCI login goes to the registry you name only, never to one a release names"
                        .into(),
                ),
            },
            (Kind::DockerConfig, Place::Registry(_)) => Ok(()),
            _ => Err(format!("it is no credential for {place}")),
        }
    }

    /// The token a request to a forge API at `place` carries, bound to that origin, and the
    /// report of it. Registries answer through [`Origins::registry`].
    pub(crate) fn forge(&self, place: &Place, purpose: Purpose) -> (Option<Credential>, Access) {
        let (kind, variable, credential, origin) = match (place, &self.github, &self.gitlab) {
            (Place::GitHub(api), Some((token, variable)), _) => (
                Kind::GitHubToken,
                *variable,
                Credential::bearer(token.clone()),
                api,
            ),
            (Place::GitLab(at), _, Some(token)) => {
                let kind = match token {
                    GitLabToken::Job(_) => Kind::GitLabJob,
                    GitLabToken::Private(_) | GitLabToken::Bearer(_) => Kind::GitLabPersonal,
                };
                (kind, token.variable(), token.credential(), at)
            }
            _ => return (None, Access::default()),
        };
        match self.allows(kind, place, purpose) {
            Ok(()) => (
                Some(credential.for_origin(origin)),
                Access {
                    login: Some(variable.to_string()),
                    withheld: None,
                },
            ),
            Err(why) => (
                None,
                Access {
                    login: None,
                    withheld: Some(format!("{variable} not sent to {place}: {why}")),
                },
            ),
        }
    }

    /// The login a registry (`host[:port]`) is answered with for `purpose`, and the report of
    /// it: the variables where they may go, else its own Docker config entry, else none.
    pub(crate) fn registry(
        &self,
        registry: &str,
        purpose: Purpose,
    ) -> Result<(Option<Login>, Access), OciError> {
        let place = Place::Registry(registry.to_string());
        let env = |name: &str| self.registry_variable(name);
        let named = self.allows(Kind::RegistryVariables, &place, purpose);
        let found = if named.is_ok() {
            Login::resolve(registry, RegistryRole::Named, &env)?
        } else if self.allows(Kind::DockerConfig, &place, purpose).is_ok() {
            Login::resolve(registry, RegistryRole::FromContent, &env)?
        } else {
            None
        };
        let withheld = match named {
            Err(why) => match Login::resolve(registry, RegistryRole::Named, &env)? {
                Some((_, LoginSource::Environment(variables))) => {
                    Some(format!("{variables} not sent to {place}: {why}"))
                }
                _ => None,
            },
            Ok(()) => None,
        };
        let login = found.as_ref().map(|(_, source)| match source {
            LoginSource::Environment(variables) => variables.to_string(),
            LoginSource::DockerConfig(path) => {
                format!("the Docker config file `{}`", path.display())
            }
        });
        Ok((found.map(|(login, _)| login), Access { login, withheld }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    /// Every credential set, `CI_API_V4_URL` at `gitlab.ci.example`.
    fn origins(extra: &[(&'static str, &'static str)]) -> Origins {
        let mut pairs = vec![
            ("GITHUB_TOKEN", "ghp_github-token-1"),
            ("GITLAB_TOKEN", "glpat-personal-1"),
            ("CI_JOB_TOKEN", "glcbt-job-token-1"),
            ("CI_API_V4_URL", "https://gitlab.ci.example/api/v4"),
            ("OCI_ACCESS_TOKEN", "oci-access-token-1"),
        ];
        pairs.extend_from_slice(extra);
        let env = move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        };
        Origins::new(url("https://api.github.com"), &env)
    }

    const PURPOSES: [Purpose; 3] = [Purpose::Named, Purpose::Previous, Purpose::Content];

    /// Each row: a credential, a place, and whether it may go there for each purpose
    /// (named, previous, content), for a run whose target is `target`.
    #[test]
    fn the_decision_table() {
        let github = Place::GitHub(url("https://api.github.com"));
        let ghe = Place::GitHub(url("https://ghe.example/api/v3"));
        let ci = Place::GitLab(url("https://gitlab.ci.example/api/v4/projects/1"));
        let other = Place::GitLab(url("https://gitlab.other.example/api/v4/projects/1"));
        let target_gitlab = Place::GitLab(url("https://gitlab.target.example/api/v4"));
        let registry = Place::Registry("registry.example".into());
        let evil = Place::Registry("evil.example".into());
        let rows: Vec<(Option<Place>, Kind, &Place, [bool; 3])> = vec![
            // The GitHub token: its API, whoever names the repository; no other API.
            (None, Kind::GitHubToken, &github, [true, true, true]),
            (None, Kind::GitHubToken, &ghe, [false, false, false]),
            (
                Some(ghe.clone()),
                Kind::GitHubToken,
                &ghe,
                [true, true, true],
            ),
            // A job token: CI_API_V4_URL's instance only, even for the target's instance.
            (None, Kind::GitLabJob, &ci, [true, true, true]),
            (None, Kind::GitLabJob, &other, [false, false, false]),
            (
                Some(target_gitlab.clone()),
                Kind::GitLabJob,
                &target_gitlab,
                [false, false, false],
            ),
            // A personal token: CI's and the target's instance, and one the user names.
            (None, Kind::GitLabPersonal, &ci, [true, true, true]),
            (None, Kind::GitLabPersonal, &other, [true, false, false]),
            (
                Some(target_gitlab.clone()),
                Kind::GitLabPersonal,
                &target_gitlab,
                [true, true, true],
            ),
            // The OCI variables: the registry the user names; for the previous release, the
            // target's registry only; never a registry a release names.
            (None, Kind::RegistryVariables, &evil, [true, false, false]),
            (
                Some(registry.clone()),
                Kind::RegistryVariables,
                &registry,
                [true, true, false],
            ),
            (
                Some(registry.clone()),
                Kind::RegistryVariables,
                &evil,
                [true, false, false],
            ),
            // A Docker config entry: its own registry, always.
            (None, Kind::DockerConfig, &evil, [true, true, true]),
            // No credential crosses to another forge.
            (None, Kind::GitHubToken, &ci, [false, false, false]),
            (None, Kind::GitLabPersonal, &github, [false, false, false]),
            (
                None,
                Kind::RegistryVariables,
                &github,
                [false, false, false],
            ),
        ];
        for (target, kind, place, expected) in rows {
            let origins = origins(&[]).with_target(target.clone());
            for (purpose, expected) in PURPOSES.into_iter().zip(expected) {
                assert_eq!(
                    origins.allows(kind, place, purpose).is_ok(),
                    expected,
                    "{kind:?} to {place} for {purpose:?} (target {target:?})"
                );
            }
        }
    }

    #[test]
    fn a_job_token_without_ci_api_v4_url_has_no_home() {
        let env = |name: &str| (name == "CI_JOB_TOKEN").then(|| "glcbt-job-token-2".to_string());
        let origins = Origins::new(url("https://api.github.com"), &env);
        let place = Place::GitLab(url("https://gitlab.example"));
        let (credential, access) = origins.forge(&place, Purpose::Named);
        assert!(credential.is_none());
        let withheld = access.withheld.unwrap();
        assert!(withheld.starts_with("CI_JOB_TOKEN not sent to `https://gitlab.example`"));
        assert!(withheld.contains("CI_API_V4_URL"), "{withheld}");
    }

    #[test]
    fn forge_credentials_are_bound_to_the_place_and_reported_by_name() {
        let origins = origins(&[]);
        let place = Place::GitLab(url("https://gitlab.ci.example/api/v4"));
        let (credential, access) = origins.forge(&place, Purpose::Previous);
        let credential = credential.unwrap();
        assert!(credential.allows(&url("https://gitlab.ci.example/x")));
        assert!(!credential.allows(&url("https://gitlab.other.example/x")));
        assert_eq!(access.login.as_deref(), Some("GITLAB_TOKEN"));

        let other = Place::GitLab(url("https://gitlab.other.example/api/v4"));
        let (credential, access) = origins.forge(&other, Purpose::Previous);
        assert!(credential.is_none());
        assert_eq!(access.login, None);
        let withheld = access.withheld.unwrap();
        assert!(
            withheld.starts_with("GITLAB_TOKEN not sent to `https://gitlab.other.example`"),
            "{withheld}"
        );
        // The value never appears.
        assert!(!withheld.contains("glpat-personal-1"));
    }

    #[test]
    fn registry_variables_stay_home_and_a_docker_config_entry_goes_to_its_registry() {
        let dir =
            crate::forge::login::tests::docker_config_with("evil.example", "carol:docker-pass-777");
        let config = dir.path().display().to_string();
        let env = move |name: &str| match name {
            "OCI_ACCESS_TOKEN" => Some("oci-access-token-2".to_string()),
            "DOCKER_CONFIG" => Some(config.clone()),
            _ => None,
        };
        let origins = Origins::new(url("https://api.github.com"), &env)
            .with_target(Some(Place::Registry("registry.example".into())));
        let (login, access) = origins
            .registry("registry.example", Purpose::Previous)
            .unwrap();
        assert!(matches!(login, Some(Login::Token(_))));
        assert_eq!(access.login.as_deref(), Some("OCI_ACCESS_TOKEN"));
        let (login, access) = origins.registry("evil.example", Purpose::Previous).unwrap();
        assert!(matches!(login, Some(Login::Basic { .. })), "its own entry");
        assert!(access.login.unwrap().contains("Docker config"));
        let withheld = access.withheld.unwrap();
        assert!(
            withheld.starts_with("OCI_ACCESS_TOKEN not sent to `evil.example`"),
            "{withheld}"
        );
        let (login, access) = origins.registry("third.example", Purpose::Content).unwrap();
        assert!(login.is_none());
        assert!(access.withheld.is_some());
    }
}
