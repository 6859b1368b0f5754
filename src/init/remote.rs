//! Where the repository is published and what it is called, read from git's configuration
//! (the `origin` remote, else the first) and kubebuilder's `PROJECT`: a remote's user, password,
//! port, query and fragment are dropped unprinted, and a path that is not a project's is refused.

use std::path::Path;

use super::repository::Repository;
use super::{Detected, Forge};

pub(super) fn detect_forge(repo: &Repository, detected: &mut Detected, in_git: bool) {
    let remote = in_git
        .then(|| repo.read(Path::new(".git/config"), ""))
        .flatten()
        .and_then(|config| origin_url(&config));
    let mut remote_name = None;
    match remote.as_deref().map(split_remote) {
        Some(Ok((host, path))) => {
            remote_name = path.rsplit('/').next().map(str::to_string);
            if host == "github.com" {
                detected.forge = Forge::GitHub(path.clone());
            } else if host == "gitlab.com" || host.starts_with("gitlab.") {
                detected.forge = Forge::GitLab(Some(path.clone()));
            }
            detected.found.push(format!("git remote: {host}/{path}"));
        }
        Some(Err(refused)) => detected.missing.push(format!(
            "git remote `origin`: {refused}; the publish target is left for you"
        )),
        None => detected
            .missing
            .push("no git remote `origin`: the publish target is left for you".to_string()),
    }
    if detected.forge == Forge::Unknown && detected.gitlab_ci_exists {
        detected.forge = Forge::GitLab(None);
        detected
            .found
            .push(".gitlab-ci.yml: publishing from GitLab CI".to_string());
    }
    match &detected.forge {
        Forge::GitHub(repo) => detected.found.push(format!("forge: GitHub ({repo})")),
        Forge::GitLab(project) => detected.found.push(format!(
            "forge: GitLab ({})",
            project.as_deref().unwrap_or("the project running the pipeline")
        )),
        Forge::Unknown => detected.missing.push(
            "forge: neither GitHub nor GitLab; no CI files written (`capkg release` runs in any CI)"
                .to_string(),
        ),
    }
    detected.repository = remote_name
        .or_else(|| kubebuilder_repository(repo))
        .or_else(|| {
            detected
                .root
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        });
}

/// The URL of `[remote "origin"]`, else of the first remote.
fn origin_url(config: &str) -> Option<String> {
    let mut section = String::new();
    let mut first = None;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_string();
            continue;
        }
        let Some(url) = line
            .strip_prefix("url")
            .and_then(|rest| rest.trim_start().strip_prefix('='))
        else {
            continue;
        };
        let url = url.trim().to_string();
        if section == "[remote \"origin\"]" {
            return Some(url);
        }
        first.get_or_insert(url);
    }
    first
}

/// `(host, path)` of `https://host/path(.git)`, `ssh://git@host/path` or `git@host:path`: the
/// user and password (up to the last `@` before the path: a password may hold a raw `@`), a
/// port, a query and a fragment are dropped, and never printed. A path with an empty part, a `.`
/// or `..` part, or a character a project name cannot hold is refused (the reason names no part
/// of the URL).
fn split_remote(url: &str) -> Result<(String, String), &'static str> {
    let rest = ["https://", "http://", "ssh://", "git://"]
        .iter()
        .find_map(|scheme| url.strip_prefix(scheme))
        .unwrap_or(url);
    let authority_end = rest.find('/').unwrap_or(rest.len());
    let rest = match rest[..authority_end].rfind('@') {
        Some(at) => &rest[at + 1..],
        None => rest,
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    let not_a_remote = "not a URL of a forge's project";
    let (host, path) = rest.split_once(['/', ':']).ok_or(not_a_remote)?;
    // `ssh://git@host:2222/path`: a port is not part of the path.
    let path = match path.split_once('/') {
        Some((port, tail)) if !port.is_empty() && port.chars().all(|c| c.is_ascii_digit()) => tail,
        _ => path,
    };
    let path = path.strip_suffix('/').unwrap_or(path);
    let path = path.strip_suffix(".git").unwrap_or(path);
    let host_ok = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-');
    if !host_ok {
        return Err(not_a_remote);
    }
    let name_chars = |c: char| c.is_ascii_alphanumeric() || "._-/".contains(c);
    if !path.contains('/')
        || !path.chars().all(name_chars)
        || crate::forge::url::dot_or_empty_part(path).is_some()
    {
        return Err(
            "its path is not a project path (OWNER/NAME: no empty, `.` or `..` part, letters, digits, `.`, `_` and `-` only)",
        );
    }
    Ok((host.to_ascii_lowercase(), path.to_string()))
}

/// The repository name of kubebuilder's `PROJECT` (`repo: sigs.k8s.io/cluster-api-provider-aws`).
fn kubebuilder_repository(repo: &Repository) -> Option<String> {
    let text = repo.read(Path::new("PROJECT"), "")?;
    text.lines().find_map(|line| {
        let repo = line.strip_prefix("repo:")?.trim().trim_matches(['"', '\'']);
        repo.rsplit('/').next().map(str::to_string)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remotes_name_their_host_and_project() {
        let ok = |host: &str, path: &str| Ok((host.to_string(), path.to_string()));
        assert_eq!(
            split_remote("git@github.com:acme/cluster-api-provider-x.git"),
            ok("github.com", "acme/cluster-api-provider-x")
        );
        assert_eq!(
            split_remote("https://gitlab.example.com/group/sub/proj.git"),
            ok("gitlab.example.com", "group/sub/proj")
        );
        assert_eq!(
            split_remote("ssh://git@gitlab.corp:2222/g/p.git"),
            ok("gitlab.corp", "g/p")
        );
        assert!(split_remote("/srv/git/repo").is_err());
        assert_eq!(
            origin_url("[remote \"fork\"]\n\turl = a\n[remote \"origin\"]\n\turl = b\n"),
            Some("b".into())
        );
    }

    #[test]
    fn remotes_lose_their_credentials_and_queries_and_refuse_dot_segments() {
        let ok = |host: &str, path: &str| Ok((host.to_string(), path.to_string()));
        // A raw `@` in the password: the user information ends at the last `@`.
        assert_eq!(
            split_remote("https://ci:p@ss@w0rd@github.com/o/r.git"),
            ok("github.com", "o/r")
        );
        assert_eq!(
            split_remote("https://github.com/o/r.git?access_token=abc#frag"),
            ok("github.com", "o/r")
        );
        assert_eq!(
            split_remote("https://oauth2:t@gitlab.com:443/g/p?private_token=x"),
            ok("gitlab.com", "g/p")
        );
        for crafted in [
            "https://github.com/o/..",
            "https://github.com/o/.",
            "https://github.com/../r",
            "git@github.com:o//r.git",
            "https://github.com/o/%2e%2e",
            "https://github.com//r",
            "https://github.com/o",
            "https://gith ub.com/o/r",
        ] {
            let refused = split_remote(crafted);
            assert!(refused.is_err(), "{crafted}: {refused:?}");
        }
    }
}
