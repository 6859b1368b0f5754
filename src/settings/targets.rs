//! Where a release goes: capkg.yaml's `targets:`, narrowed by `--target`, turned into the
//! [`crate::targets`] requests that publish it.
//!
//! Publishing order is fixed: local, then OCI, then GitHub, then GitLab. A local repository is
//! private to the machine; an OCI tag and a GitHub release stay invisible until their last step;
//! a GitLab package has no drafts, so it goes last, when everything before it has worked.

use std::path::Path;

use super::{Error, TargetSettings};
use crate::config::Targets as TargetsConfig;
use crate::targets::github::GitHubRequest;
use crate::targets::gitlab::GitLabRequest;
use crate::targets::local::LocalRequest;
use crate::targets::oci::OciRequest;
use crate::targets::{TargetKind, TargetRequest};
use crate::verify;

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
            #[cfg(test)]
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

/// A target with how what it serves is read back: a GitHub target configured with its own API
/// is read through it, every other target as the run reads.
pub(crate) fn with_reading(
    request: TargetRequest,
    reading: &verify::Settings,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<TargetSettings, Error> {
    let reading = match &request {
        TargetRequest::GitHub(GitHubRequest {
            api_url: Some(api), ..
        }) => verify::Settings::resolve(Some(api), env)
            .map_err(|e| Error::Reading(std::sync::Arc::new(e)))?,
        _ => reading.clone(),
    };
    Ok(TargetSettings { request, reading })
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
