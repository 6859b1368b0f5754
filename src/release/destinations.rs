//! Where a release goes: the configuration's `targets:`, narrowed by `--target`, turned into the
//! [`crate::targets`] requests that publish it, and the report form of a target's plan.
//!
//! Publishing order is fixed: local, then OCI, then GitHub, then GitLab. A local repository is
//! private to the machine; an OCI tag and a GitHub release stay invisible until their last step;
//! a GitLab package has no drafts, so it goes last, when everything before it has worked.
//!
//! A dry run never touches the network: every target plans [`crate::targets::Reach::Offline`], the same plan
//! code as a real run with the questions to the remote left out (the local target's plan reads
//! only the file system, so it is complete). Files the remote was not asked about have no action
//! and the reason "upload unless an identical file is there", with `remote_checked: false` and a
//! note saying so. A real run plans every target against the remote before any of them writes
//! anything.

use std::path::Path;

use serde::Serialize;

use super::Error;
use crate::targets::github::GitHubRequest;
use crate::targets::gitlab::GitLabRequest;
use crate::targets::local::LocalRequest;
use crate::targets::oci::OciRequest;
use crate::targets::{Action, Plan, ProviderDestination, TargetKind, TargetRequest};

/// `targets:` of the configuration: the types `config` reads, under the names release uses (one
/// owner for a target's capkg.yaml section).
pub(crate) use crate::config::Targets as TargetsConfig;

/// The targets to publish to: the configured ones, or those of `wanted`. A wanted target that
/// is not configured is taken from CI variables when it can be (`GITHUB_REPOSITORY`,
/// `CI_PROJECT_ID`).
pub(crate) fn choose(
    config: &TargetsConfig,
    root: &Path,
    wanted: &[TargetKind],
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<TargetRequest>, Error> {
    let non_empty = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let wants = |kind| wanted.is_empty() || wanted.contains(&kind);
    // Only a target named with `--target` may come from CI variables alone.
    let from_ci = |variable: &str| (!wanted.is_empty()).then(|| non_empty(variable)).flatten();
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
        let request = match kind {
            TargetKind::Local => config
                .local
                .as_ref()
                .map(|local| TargetRequest::Local(LocalRequest::from_config(local, root))),
            TargetKind::Github => match &config.github {
                Some(github) => Some(TargetRequest::GitHub(github.into())),
                None => from_ci("GITHUB_REPOSITORY").map(|repo| {
                    TargetRequest::GitHub(GitHubRequest {
                        repo,
                        ..GitHubRequest::default()
                    })
                }),
            },
            TargetKind::Gitlab => match &config.gitlab {
                Some(gitlab) => Some(TargetRequest::GitLab(gitlab.into())),
                None => from_ci("CI_PROJECT_ID")
                    .map(|_| TargetRequest::GitLab(GitLabRequest::default())),
            },
            TargetKind::Oci => config
                .oci
                .as_ref()
                .map(|oci| TargetRequest::Oci(OciRequest::from(oci))),
            TargetKind::Memory => None,
        };
        match request {
            Some(request) => chosen.push(request),
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

/// What a target will do, as `capkg release` reports it: the target's [`Plan`], with no action
/// for the files of an offline plan (a dry run).
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
        let checked = plan.remote_checked;
        Self {
            target: d.target,
            destination: d.destination.clone(),
            clusterctl_url: d.clusterctl_url.clone(),
            providers: d.providers.clone(),
            clusterctl_config: d.clusterctl_config.clone(),
            remote_checked: checked,
            steps: plan.steps.clone(),
            files: plan
                .files
                .iter()
                .map(|f| TargetFile {
                    name: f.name.clone(),
                    size: f.size,
                    sha256: f.sha256.clone(),
                    url: f.url.clone(),
                    action: checked.then_some(f.action),
                    reason: f.reason.clone(),
                })
                .collect(),
            warnings: d.warnings.clone(),
            note: (!checked).then(|| {
                "not compared with what the destination holds: a dry run makes no network requests; a real run compares every file before writing any"
                    .to_string()
            }),
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
        let kinds: Vec<TargetKind> = chosen.iter().map(TargetRequest::kind).collect();
        assert_eq!(kinds, [TargetKind::Local, TargetKind::Github]);
        let TargetRequest::Local(local) = &chosen[0] else {
            panic!("not local")
        };
        assert_eq!(local.repository, Path::new("/src/repo"));
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
}
