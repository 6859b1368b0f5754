//! Registry logins: where each comes from, in which order ([`Login::resolve`]):
//!
//! - the variables (`OCI_ACCESS_TOKEN`, `OCI_USERNAME` and `OCI_PASSWORD`, and `GITHUB_TOKEN` for
//!   `ghcr.io` in GitHub Actions) are the login of the registry the user named
//!   ([`RegistryRole::Named`]);
//! - any other registry gets only the Docker config file's entry for that very registry, else
//!   nothing: anonymous tokens from its own realm ([`RegistryRole::FromContent`]).
//!
//! Which role a registry has for a request is [`crate::forge::origin`]'s decision, the one every
//! credential follows. Where a login is then sent is [`crate::forge::oci::Registry`]'s part: to
//! the registry's own origin, and (Basic) to the token realm that registry's own challenge names,
//! over https or to loopback; never to an origin a redirect or a `Location` leads to.

use std::path::{Path, PathBuf};

use crate::forge::secret::Secret;

/// A Docker config file that could not be read or is not one: the login it may hold is unknown.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the Docker config file `{}`: {reason}", path.display())]
pub(crate) struct LoginError {
    pub path: PathBuf,
    pub reason: String,
}

/// The credentials for one registry.
#[derive(Clone, Debug)]
pub(crate) enum Login {
    /// A user and password: Basic to the registry, or to its token realm for a token.
    Basic { user: String, password: Secret },
    /// A bearer token sent to the registry as it is (`OCI_ACCESS_TOKEN`).
    Token(Secret),
}

/// Where a login was found, for messages (never the value).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LoginSource {
    Environment(&'static str),
    DockerConfig(PathBuf),
}

impl std::fmt::Display for LoginSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoginSource::Environment(names) => f.write_str(names),
            LoginSource::DockerConfig(path) => write!(f, "`{}`", path.display()),
        }
    }
}

/// The variables and file a login may come from, for hints.
pub(crate) const LOGIN_SOURCES: &str = "OCI_USERNAME and OCI_PASSWORD, OCI_ACCESS_TOKEN, or the Docker config file (`docker login`; DOCKER_CONFIG)";

/// Whose registry a login is asked for: it decides which sources may give one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RegistryRole {
    /// The registry the user named as the place to publish to or read from: the OCI target
    /// (`publish oci --repository`, `targets: oci:`) or the REF of `verify oci://REF`.
    Named,
    /// A registry named by what capkg reads (the images of a release's components): the user
    /// did not choose it, so the variables, which are the named registry's login, never go there.
    FromContent,
}

impl Login {
    /// The login for `registry` (`host[:port]`) in `role`, `None` for anonymous.
    ///
    /// [`RegistryRole::Named`]: `OCI_ACCESS_TOKEN`, else `OCI_USERNAME` and `OCI_PASSWORD`, else
    /// `GITHUB_TOKEN` for `ghcr.io` when `GITHUB_ACTIONS` is `true`, else the Docker config
    /// file's entry for `registry`. [`RegistryRole::FromContent`]: the Docker config file's entry
    /// for `registry` only (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`).
    pub(crate) fn resolve(
        registry: &str,
        role: RegistryRole,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Option<(Login, LoginSource)>, LoginError> {
        let non_empty = |name: &str| env(name).filter(|v| !v.trim().is_empty());
        if role == RegistryRole::Named
            && let Some(login) = variables_login(registry, &non_empty)
        {
            return Ok(Some(login));
        }
        match crate::forge::docker_config::docker_config_file(env) {
            Some(path) => docker_config_login(&path, registry),
            None => Ok(None),
        }
    }
}

/// The login the environment variables give the named registry.
fn variables_login(
    registry: &str,
    non_empty: &dyn Fn(&str) -> Option<String>,
) -> Option<(Login, LoginSource)> {
    if let Some(token) = non_empty("OCI_ACCESS_TOKEN").and_then(Secret::new) {
        return Some((
            Login::Token(token),
            LoginSource::Environment("OCI_ACCESS_TOKEN"),
        ));
    }
    if let (Some(user), Some(password)) = (
        non_empty("OCI_USERNAME"),
        non_empty("OCI_PASSWORD").and_then(Secret::new),
    ) {
        return Some((
            Login::Basic { user, password },
            LoginSource::Environment("OCI_USERNAME and OCI_PASSWORD"),
        ));
    }
    if registry == "ghcr.io"
        && non_empty("GITHUB_ACTIONS").as_deref() == Some("true")
        && let Some(token) = non_empty("GITHUB_TOKEN").and_then(Secret::new)
    {
        // ghcr.io takes any user name with a token as the password.
        let user = non_empty("GITHUB_ACTOR").unwrap_or_else(|| "github-actions".into());
        return Some((
            Login::Basic {
                user,
                password: token,
            },
            LoginSource::Environment("GITHUB_TOKEN"),
        ));
    }
    None
}

/// The `auths` entry for `registry` in a Docker config file: `auth` (base64 `user:password`) or
/// `username` and `password`. A missing file is no login; an unreadable or malformed one is an
/// error naming it. Credential helpers (`credsStore`, `credHelpers`) are not run.
pub(crate) fn docker_config_login(
    path: &Path,
    registry: &str,
) -> Result<Option<(Login, LoginSource)>, LoginError> {
    let text = match crate::forge::docker_config::read_docker_config(path) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(None),
        Err(source) => {
            return Err(LoginError {
                path: path.to_path_buf(),
                reason: source.to_string(),
            });
        }
    };
    let bad = |reason: String| LoginError {
        path: path.to_path_buf(),
        reason,
    };
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|err| bad(format!("not JSON: {err}")))?;
    let Some(auths) = json.get("auths").and_then(|a| a.as_object()) else {
        return Ok(None);
    };
    let keys = [
        registry.to_string(),
        format!("https://{registry}"),
        format!("http://{registry}"),
        format!("https://{registry}/v2/"),
        format!("https://{registry}/v1/"),
    ];
    let docker_hub = matches!(
        registry,
        "docker.io" | "registry-1.docker.io" | "index.docker.io"
    );
    let entry = keys.iter().find_map(|key| auths.get(key)).or_else(|| {
        docker_hub
            .then(|| auths.get("https://index.docker.io/v1/"))
            .flatten()
    });
    let Some(entry) = entry else {
        return Ok(None);
    };
    let source = LoginSource::DockerConfig(path.to_path_buf());
    let field = |name: &str| {
        entry
            .get(name)
            .and_then(|v| v.as_str())
            .filter(|v| !v.is_empty())
    };
    if let Some(auth) = field("auth") {
        let decoded = crate::forge::encoding::base64_decode(auth)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .ok_or_else(|| bad(format!("the `auth` of `{registry}` is not base64 text")))?;
        let Some((user, password)) = decoded.split_once(':') else {
            return Err(bad(format!(
                "the `auth` of `{registry}` is not `user:password`"
            )));
        };
        return Ok(Secret::new(password).map(|password| {
            (
                Login::Basic {
                    user: user.to_string(),
                    password,
                },
                source,
            )
        }));
    }
    if let (Some(user), Some(password)) = (field("username"), field("password")) {
        return Ok(Secret::new(password).map(|password| {
            (
                Login::Basic {
                    user: user.to_string(),
                    password,
                },
                source,
            )
        }));
    }
    Ok(None)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn docker_config_entries_give_logins() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let auth = crate::forge::encoding::base64_padded(b"alice:s3cret-pass");
        std::fs::write(
            &path,
            format!(
                r#"{{"auths":{{"registry.example:5000":{{"auth":"{auth}"}},"https://other.example":{{"username":"bob","password":"pw-bob-123"}}}}}}"#
            ),
        )
        .unwrap();
        let Some((Login::Basic { user, password }, _)) =
            docker_config_login(&path, "registry.example:5000").unwrap()
        else {
            panic!("no login");
        };
        assert_eq!((user.as_str(), password.expose()), ("alice", "s3cret-pass"));
        let Some((Login::Basic { user, .. }, _)) =
            docker_config_login(&path, "other.example").unwrap()
        else {
            panic!("no login");
        };
        assert_eq!(user, "bob");
        assert!(
            docker_config_login(&path, "third.example")
                .unwrap()
                .is_none()
        );
        assert!(
            docker_config_login(&dir.path().join("missing.json"), "x")
                .unwrap()
                .is_none()
        );
        std::fs::write(&path, "{not json").unwrap();
        let err = docker_config_login(&path, "x").unwrap_err().to_string();
        assert!(err.contains("config.json"), "{err}");
    }

    #[test]
    fn logins_come_from_the_operator_variables_first() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let token = Login::resolve(
            "r.example",
            RegistryRole::Named,
            &env(&[("OCI_ACCESS_TOKEN", "tok-123456789")]),
        )
        .unwrap();
        assert!(matches!(token, Some((Login::Token(_), _))));
        let basic = Login::resolve(
            "r.example",
            RegistryRole::Named,
            &env(&[("OCI_USERNAME", "u"), ("OCI_PASSWORD", "p-123456789")]),
        )
        .unwrap();
        assert!(matches!(basic, Some((Login::Basic { .. }, _))));
        let ghcr = env(&[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_TOKEN", "ghs_abcdefgh12345"),
        ]);
        assert!(matches!(
            Login::resolve("ghcr.io", RegistryRole::Named, &ghcr).unwrap(),
            Some((
                Login::Basic { .. },
                LoginSource::Environment("GITHUB_TOKEN")
            ))
        ));
        // The GitHub token goes to ghcr.io only.
        assert!(
            Login::resolve("quay.io", RegistryRole::Named, &ghcr)
                .unwrap()
                .is_none()
        );
    }

    /// A Docker config folder whose one `auths` entry, for `registry`, is `user:password`.
    pub(crate) fn docker_config_with(registry: &str, user_password: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let auth = crate::forge::encoding::base64_padded(user_password.as_bytes());
        std::fs::write(
            dir.path().join("config.json"),
            format!(r#"{{"auths":{{"{registry}":{{"auth":"{auth}"}}}}}}"#),
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_registry_named_by_content_gets_only_its_own_docker_config_entry() {
        let dir = docker_config_with("images.example", "carol:docker-pass-123");
        let docker_config = dir.path().display().to_string();
        let env = |name: &str| match name {
            "OCI_ACCESS_TOKEN" => Some("tok-123456789".to_string()),
            "OCI_USERNAME" => Some("u".to_string()),
            "OCI_PASSWORD" => Some("p-123456789".to_string()),
            "GITHUB_ACTIONS" => Some("true".to_string()),
            "GITHUB_TOKEN" => Some("ghs_abcdefgh12345".to_string()),
            "DOCKER_CONFIG" => Some(docker_config.clone()),
            _ => None,
        };
        for registry in ["other.example", "ghcr.io"] {
            assert!(
                Login::resolve(registry, RegistryRole::FromContent, &env)
                    .unwrap()
                    .is_none(),
                "{registry}"
            );
        }
        let Some((Login::Basic { user, .. }, LoginSource::DockerConfig(_))) =
            Login::resolve("images.example", RegistryRole::FromContent, &env).unwrap()
        else {
            panic!("no Docker config login");
        };
        assert_eq!(user, "carol");
        // The named registry takes the variables first.
        assert!(matches!(
            Login::resolve("images.example", RegistryRole::Named, &env).unwrap(),
            Some((Login::Token(_), _))
        ));
    }
}
