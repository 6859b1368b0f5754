//! What a `capkg verify SOURCE` names, read as clusterctl reads a provider URL
//! (`docs/clusterctl-behaviour.md` §5, `repositoryFactory` and the three repository constructors).
//!
//! - `https://github.com/{owner}/{repo}/releases/{latest|tag}/{path…}`: a GitHub release. The host
//!   must be exactly `github.com`, as for clusterctl; `--api-url` decides where the files are
//!   fetched from (GitHub Enterprise, a test server), not the URL.
//! - `https://{gitlab.…}/api/v4/projects/{project}/packages/generic/{package}/{version}/{file}`:
//!   a GitLab generic package, exactly nine escaped path segments.
//! - `file:///{base}/{provider-label}/{version|latest}/{file}` or the same path without a scheme:
//!   a local repository.
//! - anything without a scheme that is a folder: a release folder, linted as it is.
//!
//! Where capkg is more lenient than clusterctl it says so in a warning instead of failing, so that
//! releases on test servers can be checked: a GitLab package URL on a host not starting with
//! `gitlab.`, or on plain `http://` to a loopback address, is read, with a warning that clusterctl
//! would not read it. Error texts are clusterctl's where it has one.

use std::path::{Component, Path, PathBuf};

use reqwest::Url;

use crate::provider::ProviderType;
use crate::version::Version;

/// The version clusterctl resolves `latest` for.
pub(crate) const LATEST: &str = "latest";

const GITHUB_FORM: &str = "invalid url: a GitHub repository url should be in the form https://github.com/{owner}/{Repository}/releases/{latest|version-tag}/{componentsClient.yaml}";
const GITLAB_FORM: &str = "invalid url: a GitLab repository url should be in the form https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{defaultVersion}/{componentsPath}";
/// `repositoryFactory` (`cmd/clusterctl/client/repository/client.go`): an https URL that is
/// neither github.com nor a `gitlab.` host.
pub(crate) const HTTPS_ONLY_GITHUB_GITLAB: &str =
    "invalid provider url. Only GitHub and GitLab are supported for \"https\" schema";
/// `gitlabHostPrefix` (`repository_gitlab.go`).
const GITLAB_HOST_PREFIX: &str = "gitlab.";
const LOCAL_FORM: &str = "invalid path: path should be in the form {basepath}/{provider-name}/{version}/{components.yaml}";

/// A parsed SOURCE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProviderSource {
    GitHub(GitHubSource),
    GitLab(GitLabSource),
    Local(LocalSource),
    /// A folder of release files.
    Directory(PathBuf),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitHubSource {
    pub owner: String,
    pub repo: String,
    /// `latest` or the tag, as written.
    pub version: String,
    /// The folder part of the path after the version (`.` for a plain file name).
    pub root_path: String,
    /// The components file name.
    pub components_path: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct GitLabSource {
    /// `scheme://host[:port]`.
    pub origin: String,
    /// As escaped in the URL (`42`, `group%2Fproject`).
    pub project: String,
    pub package: String,
    /// Used as written: clusterctl does not resolve `latest` for GitLab.
    pub version: String,
    pub components_path: String,
}

impl GitLabSource {
    /// The URL clusterctl fetches `file` of `version` from.
    pub(crate) fn file_url(&self, version: &str, file: &str) -> String {
        format!(
            "{}/api/v4/projects/{}/packages/generic/{}/{version}/{file}",
            self.origin, self.project, self.package
        )
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LocalSource {
    /// The repository's base folder.
    pub base: PathBuf,
    /// The folder above the version: the provider's manifest label.
    pub label: String,
    /// `latest` or the version folder's name.
    pub version: String,
    pub components_path: String,
}

impl LocalSource {
    pub(crate) fn provider(&self) -> Option<(ProviderType, &str)> {
        ProviderType::split_label(&self.label)
    }
}

/// A SOURCE and what capkg noticed while reading it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    pub source: ProviderSource,
    /// Ways in which clusterctl would not accept the URL although capkg can read it.
    pub warnings: Vec<String>,
}

/// Why a SOURCE cannot be read. The SOURCE is shown without the user name and password a URL
/// may hold, however the error was made: the first word of a refusal gives no secret away.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{}`: {message}", crate::forge::url::redact_userinfo(.source_text))]
pub(crate) struct SourceError {
    pub source_text: String,
    /// clusterctl's message where it has one.
    pub message: String,
    pub hint: Option<String>,
}

/// Reads SOURCE. `is_dir` tells whether a path is a folder (the file system in the CLI).
pub(crate) fn parse(text: &str, is_dir: &dyn Fn(&Path) -> bool) -> Result<Parsed, SourceError> {
    let fail = |message: &str| SourceError {
        source_text: crate::forge::url::redact_userinfo(text),
        message: message.to_string(),
        hint: None,
    };
    let trimmed = text.trim();
    let Some((scheme, _)) = trimmed.split_once("://").filter(|(s, _)| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    }) else {
        let path = Path::new(trimmed);
        if is_dir(path) {
            return Ok(Parsed {
                source: ProviderSource::Directory(path.to_path_buf()),
                warnings: Vec::new(),
            });
        }
        return local(text, trimmed).map(|source| Parsed {
            source: ProviderSource::Local(source),
            warnings: Vec::new(),
        });
    };
    let scheme = scheme.to_ascii_lowercase();
    // Messages show the URL without its user name and password.
    let shown = crate::forge::url::redact_userinfo(trimmed);
    if scheme == "file" {
        let url = Url::parse(trimmed).map_err(|e| fail(&format!("invalid url: {e}")))?;
        let path =
            decoded_path(&url).ok_or_else(|| fail("invalid url: the path is not valid UTF-8"))?;
        return local(text, &path).map(|source| Parsed {
            source: ProviderSource::Local(source),
            warnings: Vec::new(),
        });
    }
    if scheme != "https" && scheme != "http" {
        return Err(fail(&no_implementation(&scheme)));
    }
    let url =
        Url::parse(trimmed).map_err(|e| fail(&format!("invalid url: parse {shown:?}: {e}")))?;
    let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
    if scheme == "https" && host == "github.com" {
        return github(text, &url).map(|source| Parsed {
            source: ProviderSource::GitHub(source),
            warnings: Vec::new(),
        });
    }
    if url.path().starts_with("/api/v4/projects/") {
        let mut warnings = Vec::new();
        if scheme != "https" {
            if !crate::forge::url::is_loopback_host(&host) {
                return Err(fail(&no_implementation(&scheme)));
            }
            warnings.push(format!(
                "{}: clusterctl reads provider URLs only over https; `{shown}` is read here because it is a loopback address",
                no_implementation(&scheme)
            ));
        } else if !host.starts_with(GITLAB_HOST_PREFIX) {
            warnings.push(format!(
                "{HTTPS_ONLY_GITHUB_GITLAB}: clusterctl reads GitLab packages only from hosts starting with `{GITLAB_HOST_PREFIX}`, so it would refuse `{host}`; capkg reads it anyway (a test server?)"
            ));
        }
        return gitlab(text, &url).map(|source| Parsed {
            source: ProviderSource::GitLab(source),
            warnings,
        });
    }
    if scheme == "https" {
        let mut error = fail(HTTPS_ONLY_GITHUB_GITLAB);
        if url.path().contains("/releases/") {
            error.hint = Some(
                "clusterctl reads GitHub releases only from https://github.com; for GitHub Enterprise or a test server, verify the github.com form of the URL and pass `--api-url`".into(),
            );
        }
        return Err(error);
    }
    Err(fail(&no_implementation(&scheme)))
}

/// clusterctl's refusal of a URL scheme it has no repository for.
fn no_implementation(scheme: &str) -> String {
    format!("invalid provider url. there are no provider implementation for {scheme:?} schema")
}

/// What clusterctl says about a SOURCE capkg reads although clusterctl would not (a GitLab
/// package on another host, or over plain http to a loopback address): its first words, so
/// that a failed read still tells the user clusterctl would not even have tried.
pub(crate) fn clusterctl_refusal(parsed: &Parsed) -> Option<&str> {
    match parsed.source {
        ProviderSource::GitLab(_) => parsed
            .warnings
            .iter()
            .find_map(|w| w.split_once(": ").map(|(refusal, _)| refusal))
            .filter(|refusal| refusal.starts_with("invalid provider url.")),
        _ => None,
    }
}

fn github(text: &str, url: &Url) -> Result<GitHubSource, SourceError> {
    let fail = |message: &str, hint: Option<String>| SourceError {
        source_text: crate::forge::url::redact_userinfo(text),
        message: message.to_string(),
        hint,
    };
    // clusterctl splits `rURL.Path`, the decoded path: `another%20file` names `another file`.
    let decoded = decoded_path(url).ok_or_else(|| fail(GITHUB_FORM, None))?;
    let path = decoded.trim_start_matches('/');
    let segments: Vec<&str> = path.split('/').collect();
    let [owner, repo, releases, version, rest @ ..] = segments.as_slice() else {
        return Err(fail(GITHUB_FORM, None));
    };
    if *releases != "releases" || rest.is_empty() {
        return Err(fail(GITHUB_FORM, None));
    }
    // The API request (with the token) would go to another path of the host.
    if let Some(reason) = crate::forge::url::dot_or_empty_part(&format!("{owner}/{repo}")) {
        return Err(fail(
            &format!("`{owner}/{repo}` is not a repository: {reason}"),
            None,
        ));
    }
    if let Some(reason) = crate::forge::url::dot_or_empty_part(version) {
        return Err(fail(&format!("`{version}` is not a tag: {reason}"), None));
    }
    if *version == "download" {
        // clusterctl parses this without error and then fails on every file.
        return Err(fail(
            "this is the browser download URL (`/releases/download/TAG/FILE`): clusterctl would read `download` as the version and find nothing",
            Some(format!(
                "use `https://github.com/{owner}/{repo}/releases/{}`",
                rest.join("/")
            )),
        ));
    }
    let path = rest.join("/");
    let (root_path, components_path) = match path.rsplit_once('/') {
        Some((dir, file)) => (dir.to_string(), file.to_string()),
        None => (".".to_string(), path.clone()),
    };
    Ok(GitHubSource {
        owner: owner.to_string(),
        repo: repo.to_string(),
        version: version.to_string(),
        root_path,
        components_path,
    })
}

fn gitlab(text: &str, url: &Url) -> Result<GitLabSource, SourceError> {
    let fail = || SourceError {
        source_text: crate::forge::url::redact_userinfo(text),
        message: GITLAB_FORM.to_string(),
        hint: None,
    };
    let segments: Vec<&str> = url.path().trim_start_matches('/').split('/').collect();
    let [
        "api",
        "v4",
        "projects",
        project,
        "packages",
        "generic",
        package,
        version,
        file,
    ] = segments.as_slice()
    else {
        let mut error = fail();
        if segments.len() > 9 {
            error.hint = Some(
                "a project path must be URL-encoded (`group%2Fproject`) and the file cannot be in a sub-folder".into(),
            );
        }
        return Err(error);
    };
    if [project, package, version, file]
        .iter()
        .any(|s| s.is_empty())
    {
        return Err(fail());
    }
    // Decoded, a `..` (`%2E%2E`, `group%2F..`) would turn the request, with the token, to
    // another path of the host.
    for part in [project, package, version, file] {
        if let Some(reason) = crate::forge::url::dot_or_empty_part(part) {
            let mut error = fail();
            error.message = format!("{GITLAB_FORM}; `{part}` is not a name: {reason}");
            return Err(error);
        }
    }
    Ok(GitLabSource {
        origin: url.origin().ascii_serialization(),
        project: project.to_string(),
        package: package.to_string(),
        version: version.to_string(),
        components_path: file.to_string(),
    })
}

fn local(text: &str, path: &str) -> Result<LocalSource, SourceError> {
    let fail = |message: String| SourceError {
        source_text: crate::forge::url::redact_userinfo(text),
        message,
        hint: None,
    };
    let text = crate::forge::url::redact_userinfo(text);
    if !Path::new(path).is_absolute() {
        return Err(fail(format!(
            "invalid path: path {text:?} must be an absolute path"
        )));
    }
    let segments: Vec<&str> = path.split('/').collect();
    let [.., label, version, file] = segments.as_slice() else {
        return Err(fail(LOCAL_FORM.to_string()));
    };
    if *version != LATEST && Version::parse(version).is_err() {
        return Err(fail(format!(
            "invalid version: {version:?}. Version must obey the syntax and semantics of the \"Semantic Versioning\" specification (http://semver.org/) and path format {{basepath}}/{{provider-name}}/{{version}}/{{components.yaml}}"
        )));
    }
    if ProviderType::split_label(label).is_none() {
        let mut error = fail(format!(
            "invalid path: path {text:?} must contain the provider label in the format {{basepath}}/{{provider-label}}/{{version}}/{{components.yaml}}; `{label}` is not a provider label"
        ));
        error.hint = Some(
            "the folder above the version is the provider's manifest label: `infrastructure-NAME`, `bootstrap-NAME`, `control-plane-NAME`, `ipam-NAME`, `runtime-extension-NAME`, `addon-NAME` or `cluster-api`".into(),
        );
        return Err(error);
    }
    let suffix_len = label.len() + version.len() + file.len() + 2;
    let base = path
        .get(..path.len().saturating_sub(suffix_len))
        .unwrap_or("/");
    Ok(LocalSource {
        base: clean(Path::new(if base.is_empty() { "/" } else { base })),
        label: label.to_string(),
        version: version.to_string(),
        components_path: file.to_string(),
    })
}

/// The path of a `file:` URL, percent-decoded, whatever its host (Go's `url.Path`).
fn decoded_path(url: &Url) -> Option<String> {
    String::from_utf8(crate::forge::encoding::percent_decode(url.path())).ok()
}

/// Go's `filepath.Clean` for absolute paths: no `.`, `..` resolved, no trailing `/`.
fn clean(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<ProviderSource, SourceError> {
        parse(text, &|p| {
            p == Path::new("out") || p == Path::new("/tmp/rel")
        })
        .map(|p| p.source)
    }

    fn message(text: &str) -> String {
        read(text).unwrap_err().message
    }

    /// However a refusal is made, it shows the SOURCE without its login, from its first word.
    #[test]
    fn a_refused_source_never_shows_its_password() {
        for source in [
            "oci://user:s3cret-pw@host/repo:tag",
            "oci://http://user:s3cret-pw@127.0.0.1:5000/repo:tag",
            "https://user:s3cret-pw@example.com/x",
            "ftp://user:s3cret-pw@example.com/x",
            "https://user:s3cret-pw@github.com/o/r/releases/download/v1/c.yaml",
            "https://user:s3cret-pw@gitlab.example/api/v4/projects/1/packages/generic/p",
            "file://user:s3cret-pw@localhost/r/c.yaml",
        ] {
            // What `parse` refuses, and what callers that refuse later build: the SOURCE as given.
            let later = SourceError {
                source_text: source.to_string(),
                message: "refused later".into(),
                hint: None,
            };
            for error in [read(source).unwrap_err(), later] {
                let shown = error.to_string();
                assert!(!shown.contains("s3cret"), "{shown}");
                assert!(
                    shown.starts_with('`') && shown.contains("[redacted]@"),
                    "{shown}"
                );
            }
        }
    }

    // Rows from clusterctl's `Test_gitHubRepository_newGitHubRepository`.
    #[test]
    fn github_urls() {
        assert_eq!(
            read("https://github.com/o/r/releases/v1.0.0/path").unwrap(),
            ProviderSource::GitHub(GitHubSource {
                owner: "o".into(),
                repo: "r".into(),
                version: "v1.0.0".into(),
                root_path: ".".into(),
                components_path: "path".into(),
            })
        );
        let ProviderSource::GitHub(nested) =
            read("https://github.com/o/r/releases/latest/dir/file.yaml").unwrap()
        else {
            panic!("not github")
        };
        assert_eq!(nested.version, "latest");
        assert_eq!(nested.root_path, "dir");
        assert_eq!(nested.components_path, "file.yaml");
        let ProviderSource::GitHub(spaced) =
            read("https://github.com/o/r/releases/v1.0.0/another%20file").unwrap()
        else {
            panic!("not github")
        };
        assert_eq!(spaced.components_path, "another file");
        assert_eq!(
            message("https://github.com/o/r/releases/v1.0.0"),
            GITHUB_FORM
        );
        assert_eq!(message("https://github.com/o/r/tags/v1/file"), GITHUB_FORM);
        assert_eq!(
            message("https://example.com/o/r/releases/v1.0.0/file"),
            "invalid provider url. Only GitHub and GitLab are supported for \"https\" schema"
        );
        assert_eq!(
            message("http://github.com/o/r/releases/v1.0.0/file"),
            "invalid provider url. there are no provider implementation for \"http\" schema"
        );
        let download = read("https://github.com/o/r/releases/download/v1.0.0/f.yaml").unwrap_err();
        assert!(download.message.contains("browser download URL"));
        assert_eq!(
            download.hint.as_deref(),
            Some("use `https://github.com/o/r/releases/v1.0.0/f.yaml`")
        );
    }

    // Rows from clusterctl's `Test_gitLabRepository_newGitLabRepository`.
    #[test]
    fn no_message_shows_a_password() {
        for url in [
            "https://u:sec@ret@github.com/o/r/releases/download/c.yaml",
            "https://u:sec@ret@github.com/o/r",
            "https://u:sec@ret@bad host/x",
            "https://u:sec@ret@example.com/releases/x",
            "ftp://u:sec@ret@example.com/x",
        ] {
            let shown = read(url).unwrap_err().to_string();
            assert!(!shown.contains("sec") && !shown.contains("ret@"), "{shown}");
        }
    }

    #[test]
    fn forge_urls_with_dot_parts_are_refused() {
        for url in [
            "https://github.com/%2E%2E/r/releases/v1.0.0/c.yaml",
            "https://github.com/o/%2e%2e/releases/v1.0.0/c.yaml",
            "https://github.com/o/r/releases/%2E%2E/c.yaml",
            "https://gitlab.example.org/api/v4/projects/group%2F../packages/generic/p/v1/c.yaml",
            "https://gitlab.example.org/api/v4/projects/1/packages/generic/%2E%2E/v1/c.yaml",
            "https://gitlab.example.org/api/v4/projects/1/packages/generic/p/%2e/c.yaml",
        ] {
            assert!(read(url).is_err(), "{url}");
        }
    }

    #[test]
    fn gitlab_urls() {
        let parsed = parse(
            "https://gitlab.example.org/api/v4/projects/group%2Fproject/packages/generic/my-package/v1.0/path",
            &|_| false,
        )
        .unwrap();
        assert!(parsed.warnings.is_empty());
        assert_eq!(
            parsed.source,
            ProviderSource::GitLab(GitLabSource {
                origin: "https://gitlab.example.org".into(),
                project: "group%2Fproject".into(),
                package: "my-package".into(),
                version: "v1.0".into(),
                components_path: "path".into(),
            })
        );
        for bad in [
            "https://gitlab.example.org/api/v4/projects/group/project/packages/generic/my-package/v1.0/path",
            "https://gitlab.example.org/api/v4/projects/group%2Fproject/packages/generic/my-package/v1.0/path/",
            "https://gitlab.example.org/api/v4/projects/group%2Fproject/packages/other/my-package/v1.0/path",
            "https://gitlab.example.org/api/v4/projects/group%2Fproject/packages/generic/my-package/path",
        ] {
            assert_eq!(message(bad), GITLAB_FORM, "{bad}");
        }
        let test_server = parse(
            "http://127.0.0.1:8080/api/v4/projects/42/packages/generic/p/v1.0.0/f.yaml",
            &|_| false,
        )
        .unwrap();
        assert_eq!(test_server.warnings.len(), 1);
        let other_host = parse(
            "https://git.example.org/api/v4/projects/42/packages/generic/p/v1.0.0/f.yaml",
            &|_| false,
        )
        .unwrap();
        assert!(other_host.warnings[0].contains("`gitlab.`"));
        assert_eq!(
            clusterctl_refusal(&other_host),
            Some(HTTPS_ONLY_GITHUB_GITLAB)
        );
        assert_eq!(
            clusterctl_refusal(&test_server),
            Some("invalid provider url. there are no provider implementation for \"http\" schema")
        );
        assert_eq!(
            message("http://gitlab.example.org/api/v4/projects/42/packages/generic/p/v1/f"),
            "invalid provider url. there are no provider implementation for \"http\" schema"
        );
    }

    // Rows from clusterctl's `Test_localRepository_newLocalRepository`.
    #[test]
    fn local_paths() {
        assert_eq!(
            read("/base/path/bootstrap-foo/v1.0.0/bootstrap-components.yaml").unwrap(),
            ProviderSource::Local(LocalSource {
                base: "/base/path".into(),
                label: "bootstrap-foo".into(),
                version: "v1.0.0".into(),
                components_path: "bootstrap-components.yaml".into(),
            })
        );
        let ProviderSource::Local(root) =
            read("file:///bootstrap-foo/latest/bootstrap-components.yaml").unwrap()
        else {
            panic!("not local")
        };
        assert_eq!(root.base, Path::new("/"));
        assert_eq!(root.version, "latest");
        let ProviderSource::Local(spaced) =
            read("file:///a%20b/infrastructure-x/v1.0.0/f.yaml").unwrap()
        else {
            panic!("not local")
        };
        assert_eq!(spaced.base, Path::new("/a b"));
        // `%+F` is no escape (a sign is not a hex digit): the folder is named so.
        let ProviderSource::Local(signed) =
            read("file:///a%+Fb/infrastructure-x/v1.0.0/f.yaml").unwrap()
        else {
            panic!("not local")
        };
        assert_eq!(signed.base, Path::new("/a%+Fb"));
        assert_eq!(
            message("relative/bootstrap-foo/v1.0.0/bootstrap-components.yaml"),
            "invalid path: path \"relative/bootstrap-foo/v1.0.0/bootstrap-components.yaml\" must be an absolute path"
        );
        assert!(
            message("/base/bootstrap-foo/foo.bar/bootstrap-components.yaml")
                .starts_with("invalid version: \"foo.bar\"")
        );
        assert!(
            message("/base/foo/v1.0.0/bootstrap-components.yaml").contains("not a provider label")
        );
        assert_eq!(
            message("oci://registry/x"),
            "invalid provider url. there are no provider implementation for \"oci\" schema"
        );
    }

    #[test]
    fn folders_are_release_directories() {
        assert_eq!(
            read("out").unwrap(),
            ProviderSource::Directory("out".into())
        );
        assert_eq!(
            read("/tmp/rel").unwrap(),
            ProviderSource::Directory("/tmp/rel".into())
        );
    }
}
