//! GitLab's API as publish and verify both use it: the token and the header it goes in, and the
//! project path in a URL. GitLab has no default API: it is `--api-url` or `CI_API_V4_URL`.

use super::credential::Credential;
use super::encoding::{percent_decode, percent_encode};
use super::secret::Secret;

/// The variables [`token`] reads, in its order, for messages.
pub(crate) const TOKEN_VARIABLES: &str = "GITLAB_TOKEN, GITLAB_ACCESS_TOKEN or CI_JOB_TOKEN";

/// A GitLab token and the header it goes in.
#[derive(Debug, Clone)]
pub(crate) enum GitLabToken {
    /// A personal, project or group access token from `GITLAB_TOKEN`: `PRIVATE-TOKEN`.
    Private(Secret),
    /// clusterctl's `GITLAB_ACCESS_TOKEN`: `Authorization: Bearer`, as clusterctl sends it.
    Bearer(Secret),
    /// `CI_JOB_TOKEN`: `JOB-TOKEN`.
    Job(Secret),
}

impl GitLabToken {
    /// The variable it came from, for reports.
    pub(crate) fn variable(&self) -> &'static str {
        match self {
            GitLabToken::Private(_) => "GITLAB_TOKEN",
            GitLabToken::Bearer(_) => "GITLAB_ACCESS_TOKEN",
            GitLabToken::Job(_) => "CI_JOB_TOKEN",
        }
    }

    /// The token in its header; bind it to an origin with [`Credential::for_origin`].
    pub(crate) fn credential(&self) -> Credential {
        match self {
            GitLabToken::Private(secret) => Credential::header("private-token", secret.clone()),
            GitLabToken::Bearer(secret) => Credential::bearer(secret.clone()),
            GitLabToken::Job(secret) => Credential::header("job-token", secret.clone()),
        }
    }
}

/// The token for GitLab, the one order publish, release and verify share: `GITLAB_TOKEN`
/// (capkg's own, `PRIVATE-TOKEN`), else `GITLAB_ACCESS_TOKEN` (the variable clusterctl reads,
/// as a bearer token), else `CI_JOB_TOKEN` (`JOB-TOKEN`, the pipeline's own and narrowest).
/// Empty values count as unset.
pub(crate) fn token(env: &dyn Fn(&str) -> Option<String>) -> Option<GitLabToken> {
    let secret = |name: &str| env(name).and_then(Secret::new);
    secret("GITLAB_TOKEN")
        .map(GitLabToken::Private)
        .or_else(|| secret("GITLAB_ACCESS_TOKEN").map(GitLabToken::Bearer))
        .or_else(|| secret("CI_JOB_TOKEN").map(GitLabToken::Job))
}

/// `group/sub/project` -> `group%2Fsub%2Fproject`; a numeric id stays as it is; an already
/// escaped path (`group%2Fproject`, the form GitLab's URLs show) is escaped once, not again.
/// GitLab paths hold no `%`, so decoding first is lossless.
pub(crate) fn escape_project(project: &str) -> String {
    percent_encode(&String::from_utf8_lossy(&percent_decode(project)))
}

/// `{api}/projects/{project}/packages/generic/{package}/{version}/`: where a generic package's
/// files are, and (with the components file's name) clusterctl's URL. `project` is already in
/// its URL form ([`escape_project`], or a `$CI_PROJECT_ID` placeholder in a dry run).
pub(crate) fn package_base(api: &str, project: &str, package: &str, version: &str) -> String {
    format!(
        "{}/projects/{project}/packages/generic/{package}/{version}/",
        api.trim_end_matches('/')
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    }

    fn chosen(pairs: &'static [(&'static str, &'static str)]) -> Option<(String, String)> {
        token(&env(pairs)).map(|t| match t {
            GitLabToken::Private(s) => ("private".into(), s.expose().to_string()),
            GitLabToken::Bearer(s) => ("bearer".into(), s.expose().to_string()),
            GitLabToken::Job(s) => ("job".into(), s.expose().to_string()),
        })
    }

    #[test]
    fn gitlab_token_order_is_gitlab_token_access_token_job_token() {
        let all = &[
            ("CI_JOB_TOKEN", "job-token-1"),
            ("GITLAB_ACCESS_TOKEN", "access-token-1"),
            ("GITLAB_TOKEN", "private-token-1"),
        ];
        assert_eq!(
            chosen(all),
            Some(("private".into(), "private-token-1".into()))
        );
        let no_private = &[
            ("CI_JOB_TOKEN", "job-token-1"),
            ("GITLAB_ACCESS_TOKEN", "access-token-1"),
            ("GITLAB_TOKEN", " "),
        ];
        assert_eq!(
            chosen(no_private),
            Some(("bearer".into(), "access-token-1".into()))
        );
        assert_eq!(
            chosen(&[("CI_JOB_TOKEN", "job-token-1")]),
            Some(("job".into(), "job-token-1".into()))
        );
        assert_eq!(chosen(&[]), None);
    }

    #[test]
    fn project_paths_are_escaped_once() {
        assert_eq!(escape_project("42"), "42");
        assert_eq!(escape_project("group/sub/my.proj"), "group%2Fsub%2Fmy.proj");
        assert_eq!(escape_project("a%2Fb"), "a%2Fb");
        assert_eq!(escape_project("grp%2fsub%2Fproj"), "grp%2Fsub%2Fproj");
        assert_eq!(escape_project(&escape_project("a/b")), "a%2Fb");
        assert_eq!(escape_project("g%+Fp"), "g%25%2BFp", "`%+F` is no escape");
    }
}
