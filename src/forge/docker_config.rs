//! The Docker config file (`$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`): found,
//! read within bounds, and its logins listed, for registry logins ([`super::login`]) and for
//! redaction ([`super::secret`]).

use super::encoding::base64_decode;

/// The Docker config file: `$DOCKER_CONFIG/config.json`, else `~/.docker/config.json`.
/// (`DOCKER_AUTH_CONFIG`, the same text in a variable, joins the list too.)
pub(crate) fn docker_config_file(
    env: &dyn Fn(&str) -> Option<String>,
) -> Option<std::path::PathBuf> {
    let non_empty = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    match non_empty("DOCKER_CONFIG") {
        Some(dir) => Some(std::path::Path::new(&dir).join("config.json")),
        None => {
            non_empty("HOME").map(|home| std::path::Path::new(&home).join(".docker/config.json"))
        }
    }
}

/// Largest Docker config file capkg reads: a real one is a few kilobytes.
const DOCKER_CONFIG_LIMIT: u64 = 4 * 1024 * 1024;

/// The text of a Docker config file, `None` when there is none. It must be a regular file (a
/// link to one is fine: mounted secrets are links) of at most 4 MiB, opened without blocking so
/// that a FIFO put there cannot hang the run. Logins ([`super::login`]) and redaction read it
/// through here.
pub(crate) fn read_docker_config(path: &std::path::Path) -> std::io::Result<Option<String>> {
    use std::io::Read;
    let metadata = match std::fs::metadata(path) {
        Ok(metadata) => metadata,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err),
    };
    if !metadata.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if metadata.len() > DOCKER_CONFIG_LIMIT {
        return Err(std::io::Error::other(format!(
            "larger than {DOCKER_CONFIG_LIMIT} bytes"
        )));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut text = String::new();
    options
        .open(path)?
        .take(DOCKER_CONFIG_LIMIT)
        .read_to_string(&mut text)?;
    Ok(Some(text))
}

/// Every secret of a Docker config file's `auths`: each `auth` (base64 `user:password`) as
/// written and its password, `password`, `identitytoken` and `registrytoken`. A missing,
/// unreadable, oversized or malformed file gives none (reading logins reports those).
pub(crate) fn docker_config_secrets(path: &std::path::Path) -> Vec<String> {
    match read_docker_config(path) {
        Ok(Some(text)) => docker_auths_secrets(&text),
        _ => Vec::new(),
    }
}

/// The secrets of a Docker config's text ([`docker_config_secrets`]); none when it is not one.
pub(crate) fn docker_auths_secrets(text: &str) -> Vec<String> {
    let Ok(json) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let Some(auths) = json.get("auths").and_then(|a| a.as_object()) else {
        return Vec::new();
    };
    let mut secrets = Vec::new();
    for entry in auths.values() {
        let field = |name: &str| entry.get(name).and_then(|v| v.as_str());
        if let Some(auth) = field("auth") {
            secrets.push(auth.to_string());
            if let Some((_, password)) = decode_basic_auth(auth) {
                secrets.push(password);
            }
        }
        for name in ["password", "identitytoken", "registrytoken"] {
            if let Some(value) = field(name) {
                secrets.push(value.to_string());
            }
        }
    }
    secrets.retain(|s| !s.trim().is_empty());
    secrets
}

/// A Docker config `auth`, [`base64_decode`] of `user:password`, as `(user, password)`; `None`
/// when it is not that.
pub(crate) fn decode_basic_auth(auth: &str) -> Option<(String, String)> {
    let text = String::from_utf8(base64_decode(auth)?).ok()?;
    let (user, password) = text.split_once(':')?;
    Some((user.to_string(), password.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::forge::encoding::base64_padded;

    #[test]
    fn every_login_of_a_docker_config_joins_the_list() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let auth = base64_padded(b"bob:hunter2-docker-pass");
        std::fs::write(
            &path,
            format!(
                r#"{{"auths":{{"a.example":{{"auth":"{auth}"}},"b.example":{{"username":"u","password":"plain-pass-123"}},"c.example":{{"identitytoken":"id-token-456789"}}}}}}"#
            ),
        )
        .unwrap();
        let secrets = docker_config_secrets(&path);
        for expected in [
            auth.as_str(),
            "hunter2-docker-pass",
            "plain-pass-123",
            "id-token-456789",
        ] {
            assert!(
                secrets.iter().any(|s| s == expected),
                "{expected}: {secrets:?}"
            );
        }
        assert!(docker_config_secrets(&dir.path().join("missing.json")).is_empty());
        std::fs::write(&path, "not json").unwrap();
        assert!(docker_config_secrets(&path).is_empty());
        assert_eq!(
            decode_basic_auth("dTpwOnc"),
            Some(("u".into(), "p:w".into())),
            "unpadded, and the password keeps its colons"
        );
        assert_eq!(decode_basic_auth("no colon"), None);
        let from_variable = docker_auths_secrets(&format!(
            r#"{{"auths":{{"registry.gitlab.example":{{"auth":"{auth}"}}}}}}"#
        ));
        assert!(from_variable.iter().any(|s| s == "hunter2-docker-pass"));
    }
}
