//! Where a release goes: the configuration's `targets:`, narrowed by `--target`, turned into the
//! [`crate::targets`] requests that publish it, and (for `--dry-run`) into plans made without
//! network access.
//!
//! Publishing order is fixed: local, then GitHub, then GitLab. A local repository is private to
//! the machine; a GitHub release stays a draft (invisible to clusterctl) until its last step;
//! a GitLab package has no drafts, so it goes last, when everything before it has worked.
//!
//! A dry run never touches the network: the local target plans for real (it reads only the
//! file system), GitHub and GitLab get the plan they would follow, with every file marked as
//! "upload unless identical", `remote_checked: false` and a note saying so. A real run plans
//! every target against the remote before any of them writes anything.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Error;
use crate::forge;
use crate::targets::github::GitHubRequest;
use crate::targets::gitlab::GitLabRequest;
use crate::targets::local::LocalRequest;
#[cfg(test)]
use crate::targets::memory::MemoryStore;
use crate::targets::{
    self, Action, Destination, Plan, ProviderDestination, ReleaseDir, TargetKind, TargetRequest,
};

/// `targets:` of the configuration: the types `config` reads, under the names release uses (one
/// owner for a target's capkg.yaml section).
pub(crate) use crate::config::Targets as TargetsConfig;

/// One destination of this release.
#[derive(Debug, Clone)]
pub(crate) enum TargetSpec {
    Local {
        repository: PathBuf,
    },
    GitHub {
        repo: String,
        api_url: Option<String>,
    },
    GitLab {
        project: Option<String>,
        package: Option<String>,
        api_url: Option<String>,
    },
    Oci {
        repository: String,
        tag: Option<String>,
    },
    /// For tests of the layers above.
    #[cfg(test)]
    Memory(std::sync::Arc<MemoryStore>),
}

impl TargetSpec {
    pub(crate) fn kind(&self) -> TargetKind {
        match self {
            TargetSpec::Local { .. } => TargetKind::Local,
            TargetSpec::GitHub { .. } => TargetKind::Github,
            TargetSpec::GitLab { .. } => TargetKind::Gitlab,
            TargetSpec::Oci { .. } => TargetKind::Oci,
            #[cfg(test)]
            TargetSpec::Memory(_) => TargetKind::Memory,
        }
    }

    /// The request publishing needs (tokens and API URLs from the environment).
    pub(crate) fn request(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<TargetRequest, targets::Error> {
        Ok(match self {
            TargetSpec::Local { repository } => TargetRequest::Local(LocalRequest {
                repository: repository.clone(),
                force: false,
                overrides: None,
            }),
            TargetSpec::GitHub { repo, api_url } => {
                TargetRequest::GitHub(GitHubRequest::resolve(repo, api_url.as_deref(), env)?)
            }
            TargetSpec::GitLab {
                project,
                package,
                api_url,
            } => TargetRequest::GitLab(GitLabRequest::resolve(
                project.as_deref(),
                package.as_deref(),
                api_url.as_deref(),
                env,
            )?),
            TargetSpec::Oci { repository, tag } => TargetRequest::Oci(
                targets::oci::OciRequest::resolve(repository, tag.as_deref(), env)?,
            ),
            #[cfg(test)]
            TargetSpec::Memory(store) => TargetRequest::Memory(store.clone()),
        })
    }

    /// The plan this target would follow, made without network access.
    pub(crate) fn intended(
        &self,
        release: &ReleaseDir,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> TargetPlan {
        let version = release.version.to_string();
        let non_empty = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        // Per target: the destination, the folder URL files go to, the steps besides verifying.
        let (destination, url_prefix, mut steps) = match self {
            TargetSpec::GitHub { repo, api_url } => (
                forge::github::tag_url(&github_web(api_url.as_deref()), repo, &version),
                forge::github::download_url(&github_web(api_url.as_deref()), repo, &version, ""),
                vec![
                    format!(
                        "find the release `{version}` of `{repo}` (drafts included), or create it as a draft"
                    ),
                    "upload every file that is missing; identical files are skipped, different ones stop the run".into(),
                    "read every uploaded file back and compare SHA-256".into(),
                    format!(
                        "publish the release{}",
                        if release.version.is_prerelease() { " as a pre-release" } else { "" }
                    ),
                ],
            ),
            TargetSpec::GitLab {
                project,
                package,
                api_url,
            } => {
                let api = api_url
                    .clone()
                    .or_else(|| non_empty("CI_API_V4_URL"))
                    .unwrap_or_else(|| "$CI_API_V4_URL".into());
                let project = project
                    .clone()
                    .or_else(|| non_empty("CI_PROJECT_ID"))
                    .unwrap_or_else(|| "$CI_PROJECT_ID".into());
                let package = package.clone().unwrap_or_else(|| release.provider_label());
                let base = forge::gitlab::package_base(
                    &api,
                    &escape_project(&project),
                    &package,
                    &version,
                );
                (
                    base.clone(),
                    base,
                    vec![
                        format!(
                            "fetch each file from package `{package}` version `{version}`; identical files are skipped, different ones stop the run"
                        ),
                        "upload the missing files, `metadata.yaml` last".into(),
                        "read every uploaded file back and compare SHA-256".into(),
                    ],
                )
            }
            TargetSpec::Local { repository } => {
                // A folder per provider; the file URLs below are the first provider's.
                let dirs: Vec<PathBuf> = release
                    .providers
                    .iter()
                    .map(|p| repository.join(p.label()).join(&version))
                    .collect();
                let dir = dirs.first().cloned().unwrap_or_else(|| repository.clone());
                (
                    dir.display().to_string(),
                    format!("{}/", crate::forge::url::file_url(&dir)),
                    dirs.iter()
                        .map(|d| {
                            format!(
                                "write the files to `{}` through a staging folder",
                                d.display()
                            )
                        })
                        .collect(),
                )
            }
            TargetSpec::Oci { repository, tag } => {
                let reference = oci_reference(repository, tag.as_deref(), &version);
                (
                    reference.clone(),
                    String::new(),
                    vec![
                        format!("look the tag up in `{reference}`; a different artifact there stops the run"),
                        "upload the missing layers, push the manifest untagged".into(),
                        "read the manifest and every uploaded layer back and compare digests".into(),
                        "tag the manifest".into(),
                    ],
                )
            }
            #[cfg(test)]
            TargetSpec::Memory(_) => {
                let base = format!("memory://{}/{version}/", release.provider_label());
                (base.clone(), base, vec!["store the files".into()])
            }
        };
        let urls: Vec<String> = release
            .providers
            .iter()
            .map(|provider| {
                let components = provider.components_name();
                match self {
                    // clusterctl's GitHub URLs have no `download/`.
                    TargetSpec::GitHub { repo, .. } => {
                        forge::github::clusterctl_url(repo, &version, &components)
                    }
                    TargetSpec::Local { repository } => format!(
                        "{}/{components}",
                        crate::forge::url::file_url(
                            &repository.join(provider.label()).join(&version)
                        )
                    ),
                    #[cfg(test)]
                    TargetSpec::Memory(_) => {
                        format!("memory://{}/{version}/{components}", provider.label())
                    }
                    TargetSpec::GitLab { .. } => format!("{url_prefix}{components}"),
                    TargetSpec::Oci { repository, tag } => {
                        format!(
                            "oci://{}",
                            oci_reference(repository, tag.as_deref(), &version)
                        )
                    }
                }
            })
            .collect();
        for url in &urls {
            steps.push(format!("verify `{url}` as clusterctl reads it"));
        }
        let providers = ProviderDestination::all(release, &urls);
        let mut plan = TargetPlan {
            target: self.kind(),
            destination,
            clusterctl_config: Destination::providers_snippet(release, &urls),
            clusterctl_url: urls.first().cloned().unwrap_or_default(),
            providers,
            remote_checked: false,
            steps,
            files: release
                .files
                .iter()
                .map(|f| TargetFile {
                    name: f.name.clone(),
                    size: f.size,
                    sha256: f.sha256.clone(),
                    url: format!("{url_prefix}{}", f.name),
                    action: None,
                    reason: Some("upload unless an identical file is there".into()),
                })
                .collect(),
            warnings: Vec::new(),
            note: Some(
                "not compared with what the destination holds: a dry run makes no network requests; a real run compares every file before writing any"
                    .into(),
            ),
        };
        if let TargetSpec::Oci { .. } = self {
            // The artifact's layers (their digests need no network), and the operator's
            // provider resources instead of clusterctl's configuration.
            let reference = plan.destination.clone();
            let bare = reference.trim_start_matches("http://");
            let name = bare.rsplit_once(':').map_or(bare, |(n, _)| n);
            let artifact = targets::oci::artifact(release, None);
            plan.files = artifact
                .layers
                .iter()
                .map(|layer| TargetFile {
                    name: layer.title.clone(),
                    size: layer.contents.len() as u64,
                    sha256: layer.digest.trim_start_matches("sha256:").to_string(),
                    url: format!("{name}@{}", layer.digest),
                    action: None,
                    reason: Some("upload unless the repository has the blob".into()),
                })
                .collect();
            plan.clusterctl_config = targets::oci::operator_snippet(release, &reference);
            plan.warnings.push(
                "clusterctl cannot read an OCI artifact: the URL and configuration printed are cluster-api-operator's `spec.fetchConfig.oci`".into(),
            );
        }
        plan
    }
}

/// The operator's `spec.fetchConfig.oci` for a release at `version` (the repository as written
/// when it cannot be parsed: the configuration was checked when it was read).
fn oci_reference(repository: &str, tag: Option<&str>, version: &str) -> String {
    let Ok(reference) = crate::forge::oci::Reference::parse(repository) else {
        return repository.to_string();
    };
    let request = targets::oci::OciRequest {
        reference,
        tag: tag.map(str::to_string),
        force: false,
        login: None,
        source_date_epoch: None,
    };
    match request.tag_for(version) {
        Ok(t) => targets::oci::operator_reference(&request.reference, &t),
        Err(_) => repository.to_string(),
    }
}

/// The web host of a configured GitHub target: its `api_url`'s, else github.com. A dry run reads
/// no environment for it, so its URLs do not depend on where it runs.
fn github_web(api_url: Option<&str>) -> String {
    api_url
        .and_then(|text| forge::http::parse_base_url(text).ok())
        .map_or_else(
            || "https://github.com".to_string(),
            |api| forge::github::web_base(&api),
        )
}

/// `group/project` -> `group%2Fproject`, as GitLab's API wants a project path (escaped once,
/// as publish escapes it); `$CI_PROJECT_ID`-style placeholders stay.
fn escape_project(project: &str) -> String {
    if project.starts_with('$') {
        return project.to_string();
    }
    crate::forge::gitlab::escape_project(project)
}

/// The targets to publish to: the configured ones, or those of `wanted`. A wanted target that
/// is not configured is taken from CI variables when it can be (`GITHUB_REPOSITORY`,
/// `CI_PROJECT_ID`).
pub(crate) fn choose(
    config: &TargetsConfig,
    root: &Path,
    wanted: &[TargetKind],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<TargetSpec>, Error> {
    let non_empty = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let wants = |kind| wanted.is_empty() || wanted.contains(&kind);
    let mut chosen = Vec::new();
    for kind in [
        TargetKind::Local,
        TargetKind::Oci,
        TargetKind::Github,
        TargetKind::Gitlab,
    ] {
        if !wants(kind) {
            continue;
        }
        let spec = match kind {
            TargetKind::Local => config.local.as_ref().map(|local| TargetSpec::Local {
                repository: if local.repository.is_absolute() {
                    local.repository.clone()
                } else {
                    root.join(&local.repository)
                },
            }),
            TargetKind::Github => config
                .github
                .as_ref()
                .map(|g| TargetSpec::GitHub {
                    repo: g.repo.clone(),
                    api_url: g.api_url.clone(),
                })
                .or_else(|| {
                    (!wanted.is_empty())
                        .then(|| non_empty("GITHUB_REPOSITORY"))
                        .flatten()
                        .map(|repo| TargetSpec::GitHub {
                            repo,
                            api_url: None,
                        })
                }),
            TargetKind::Gitlab => match &config.gitlab {
                Some(g) => Some(TargetSpec::GitLab {
                    project: g.project.clone(),
                    package: g.package.clone(),
                    api_url: g.api_url.clone(),
                }),
                None if !wanted.is_empty() && non_empty("CI_PROJECT_ID").is_some() => {
                    Some(TargetSpec::GitLab {
                        project: None,
                        package: None,
                        api_url: None,
                    })
                }
                None => None,
            },
            TargetKind::Oci => config.oci.as_ref().map(|o| TargetSpec::Oci {
                repository: o.repository.clone(),
                tag: o.tag.clone(),
            }),
            TargetKind::Memory => None,
        };
        match spec {
            Some(spec) => chosen.push(spec),
            None if !wanted.is_empty() => return Err(Error::TargetNotConfigured { target: kind }),
            None => {}
        }
    }
    if chosen.is_empty() {
        return Err(Error::NoTargets);
    }
    Ok(chosen)
}

/// One file in a [`TargetPlan`].
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetFile {
    pub name: String,
    pub size: u64,
    pub sha256: String,
    pub url: String,
    /// `upload`, `skip`, `replace`; `null` when the destination was not looked at.
    pub action: Option<Action>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// What a target will do: the target's own [`Plan`], or the intended one of a dry run.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TargetPlan {
    pub target: TargetKind,
    pub destination: String,
    /// The first provider's URL.
    pub clusterctl_url: String,
    /// Every provider's URL.
    pub providers: Vec<ProviderDestination>,
    pub clusterctl_config: String,
    /// Whether the destination was looked at.
    pub remote_checked: bool,
    pub steps: Vec<String>,
    pub files: Vec<TargetFile>,
    pub warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl From<&Plan> for TargetPlan {
    fn from(plan: &Plan) -> Self {
        let d = &plan.destination;
        Self {
            target: d.target,
            destination: d.destination.clone(),
            clusterctl_url: d.clusterctl_url.clone(),
            providers: d.providers.clone(),
            clusterctl_config: d.clusterctl_config.clone(),
            remote_checked: true,
            steps: plan.steps.clone(),
            files: plan
                .files
                .iter()
                .map(|f| TargetFile {
                    name: f.name.clone(),
                    size: f.size,
                    sha256: f.sha256.clone(),
                    url: f.url.clone(),
                    action: Some(f.action),
                    reason: f.reason.clone(),
                })
                .collect(),
            warnings: d.warnings.clone(),
            note: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{GitHubTarget as GitHubConfig, LocalTarget as LocalConfig};
    use crate::test_env::env;

    fn config() -> TargetsConfig {
        TargetsConfig {
            local: Some(LocalConfig {
                repository: "repo".into(),
            }),
            github: Some(GitHubConfig {
                repo: "o/r".into(),
                api_url: None,
            }),
            gitlab: None,
            oci: None,
        }
    }

    #[test]
    fn configured_targets_in_publishing_order() {
        let chosen = choose(&config(), Path::new("/src"), &[], &env(&[])).unwrap();
        let kinds: Vec<TargetKind> = chosen.iter().map(TargetSpec::kind).collect();
        assert_eq!(kinds, [TargetKind::Local, TargetKind::Github]);
        let TargetSpec::Local { repository } = &chosen[0] else {
            panic!("not local")
        };
        assert_eq!(repository, Path::new("/src/repo"));
    }

    #[test]
    fn target_flags_narrow_or_come_from_ci() {
        let only = choose(
            &config(),
            Path::new("/src"),
            &[TargetKind::Github],
            &env(&[]),
        )
        .unwrap();
        assert_eq!(only.len(), 1);
        let gitlab = choose(
            &config(),
            Path::new("/src"),
            &[TargetKind::Gitlab],
            &env(&[("CI_PROJECT_ID", "42")]),
        )
        .unwrap();
        assert_eq!(gitlab[0].kind(), TargetKind::Gitlab);
        let err = choose(
            &config(),
            Path::new("/src"),
            &[TargetKind::Gitlab],
            &env(&[]),
        )
        .unwrap_err();
        assert!(matches!(err, Error::TargetNotConfigured { .. }), "{err}");
        let err = choose(&TargetsConfig::default(), Path::new("/src"), &[], &env(&[])).unwrap_err();
        assert!(matches!(err, Error::NoTargets));
    }

    #[test]
    fn project_paths_are_escaped() {
        assert_eq!(escape_project("group/sub/p"), "group%2Fsub%2Fp");
        assert_eq!(escape_project("42"), "42");
    }
}
