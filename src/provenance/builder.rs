//! What the CI environment says about the build: the workflow and run that built the release
//! (SLSA's `builder.id` and `invocationId`), and the repository, ref and commit it ran for.
//! Only the variables the runners set themselves are read (GitHub Actions' `GITHUB_*`, GitLab
//! CI's `CI_*`); outside CI the builder is [`LOCAL_BUILDER`] and the source comes from the
//! checkout ([`super::git`]).

use super::{Builder, Source};

/// `builder.id` of a release not built in a CI system capkg knows.
pub(crate) const LOCAL_BUILDER: &str = "https://github.com/capkg/capkg/provenance/local-builder/v1";

impl Builder {
    /// The CI workflow and run `env` describes, else [`LOCAL_BUILDER`].
    pub(crate) fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Self {
        let value = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        if value("GITHUB_ACTIONS").as_deref() == Some("true") {
            let server = github_server(&value);
            let run = match (value("GITHUB_REPOSITORY"), value("GITHUB_RUN_ID")) {
                (Some(repository), Some(run)) => Some(format!(
                    "{server}/{repository}/actions/runs/{run}/attempts/{}",
                    value("GITHUB_RUN_ATTEMPT").unwrap_or_else(|| "1".into())
                )),
                _ => None,
            };
            if let Some(workflow) = value("GITHUB_WORKFLOW_REF") {
                return Self {
                    id: format!("{server}/{workflow}"),
                    invocation: run,
                };
            }
        }
        if value("GITLAB_CI").as_deref() == Some("true")
            && let Some(project) = value("CI_PROJECT_URL")
        {
            let config = value("CI_CONFIG_PATH").unwrap_or_else(|| ".gitlab-ci.yml".into());
            let at = value("CI_COMMIT_REF_NAME")
                .map(|r| format!("@{r}"))
                .unwrap_or_default();
            return Self {
                id: format!("{project}/-/blob/{config}{at}"),
                invocation: value("CI_JOB_URL"),
            };
        }
        Self {
            id: LOCAL_BUILDER.to_string(),
            invocation: None,
        }
    }
}

/// `GITHUB_SERVER_URL` without a trailing slash, `https://github.com` when unset.
fn github_server(value: &dyn Fn(&str) -> Option<String>) -> String {
    value("GITHUB_SERVER_URL")
        .map(|s| s.trim_end_matches('/').to_string())
        .unwrap_or_else(|| "https://github.com".into())
}

/// The repository, ref and commit the CI run is for; `None` outside a CI system capkg knows.
pub(crate) fn ci_source(env: &dyn Fn(&str) -> Option<String>) -> Option<Source> {
    let value = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    if value("GITHUB_ACTIONS").as_deref() == Some("true") {
        let server = github_server(&value);
        return Some(Source {
            repository: value("GITHUB_REPOSITORY").map(|r| format!("{server}/{r}")),
            reference: value("GITHUB_REF"),
            commit: value("GITHUB_SHA"),
        });
    }
    if value("GITLAB_CI").as_deref() == Some("true") {
        let reference = value("CI_COMMIT_TAG")
            .map(|tag| format!("refs/tags/{tag}"))
            .or_else(|| value("CI_COMMIT_BRANCH").map(|b| format!("refs/heads/{b}")));
        return Some(Source {
            repository: value("CI_PROJECT_URL"),
            reference,
            commit: value("CI_COMMIT_SHA"),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_env::env;

    #[test]
    fn github_actions_names_the_workflow_at_its_ref_and_the_run() {
        let env = env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_SERVER_URL", "https://github.com"),
            ("GITHUB_REPOSITORY", "o/r"),
            (
                "GITHUB_WORKFLOW_REF",
                "o/r/.github/workflows/release.yml@refs/tags/v1.2.3",
            ),
            ("GITHUB_RUN_ID", "42"),
            ("GITHUB_RUN_ATTEMPT", "2"),
            ("GITHUB_REF", "refs/tags/v1.2.3"),
            ("GITHUB_SHA", "0123456789012345678901234567890123456789"),
        ]);
        let builder = Builder::from_env(&env);
        assert_eq!(
            builder.id,
            "https://github.com/o/r/.github/workflows/release.yml@refs/tags/v1.2.3"
        );
        assert_eq!(
            builder.invocation.as_deref(),
            Some("https://github.com/o/r/actions/runs/42/attempts/2")
        );
        let source = ci_source(&env).unwrap();
        assert_eq!(source.repository.as_deref(), Some("https://github.com/o/r"));
        assert_eq!(source.reference.as_deref(), Some("refs/tags/v1.2.3"));
    }

    #[test]
    fn gitlab_ci_names_the_pipeline_file_and_the_job() {
        let env = env(&[
            ("GITLAB_CI", "true"),
            ("CI_PROJECT_URL", "https://gitlab.com/g/p"),
            ("CI_COMMIT_REF_NAME", "v1.2.3"),
            ("CI_COMMIT_TAG", "v1.2.3"),
            ("CI_JOB_URL", "https://gitlab.com/g/p/-/jobs/9"),
            ("CI_COMMIT_SHA", "0123456789012345678901234567890123456789"),
        ]);
        let builder = Builder::from_env(&env);
        assert_eq!(
            builder.id,
            "https://gitlab.com/g/p/-/blob/.gitlab-ci.yml@v1.2.3"
        );
        assert_eq!(
            builder.invocation.as_deref(),
            Some("https://gitlab.com/g/p/-/jobs/9")
        );
        assert_eq!(
            ci_source(&env).unwrap().reference.as_deref(),
            Some("refs/tags/v1.2.3")
        );
    }

    #[test]
    fn outside_ci_the_builder_is_local() {
        let env = env(&[]);
        assert_eq!(Builder::from_env(&env).id, LOCAL_BUILDER);
        assert_eq!(ci_source(&env), None);
    }
}
