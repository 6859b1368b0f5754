//! clusterctl's configuration file as a source of variable values.
//!
//! clusterctl reads variables from the top-level keys of `clusterctl.yaml` (through viper), after
//! its own overrides and the environment. Values that are not strings are turned into text the
//! way viper's `GetString` does (`1`, `true`, `1.5`); lists and mappings (`providers`, `images`)
//! are not variables and are skipped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::yaml::resolve::Resolved;
use crate::yaml::{self, Limits, Node, Source, Value};

#[derive(Debug, thiserror::Error)]
pub enum ConfigFileError {
    #[error("cannot read the clusterctl config file `{}`", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the clusterctl config file `{}` is not valid YAML: {message} (line {line}, column {column})", path.display())]
    Syntax {
        path: PathBuf,
        message: String,
        line: usize,
        column: usize,
    },
    #[error("the clusterctl config file `{}` is not a mapping of variables", path.display())]
    NotAMapping { path: PathBuf },
}

/// clusterctl's own config file when it exists: `$XDG_CONFIG_HOME/cluster-api/clusterctl.yaml`
/// (or `~/.config/…`), then `~/.cluster-api/clusterctl.yaml`.
pub fn default_path() -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let xdg = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    let mut candidates = Vec::new();
    if let Some(xdg) = xdg {
        candidates.push(xdg.join("cluster-api"));
    }
    if let Some(home) = home {
        candidates.push(home.join(".cluster-api"));
    }
    candidates.into_iter().find_map(|dir| {
        ["clusterctl.yaml", "clusterctl.yml"]
            .iter()
            .map(|name| dir.join(name))
            .find(|p| p.is_file())
    })
}

/// The variables a clusterctl config file sets: its top-level keys with scalar values.
pub fn read(path: &Path) -> Result<BTreeMap<String, String>, ConfigFileError> {
    let bytes = std::fs::read(path).map_err(|source| ConfigFileError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let file = yaml::parse_file(path.display().to_string(), bytes, Limits::default());
    if let Some(error) = file.errors.first() {
        let position = file.source.position(error.span.start);
        return Err(ConfigFileError::Syntax {
            path: path.to_path_buf(),
            message: error.message.clone(),
            line: position.line,
            column: position.column,
        });
    }
    let Some(root) = file.roots().next() else {
        return Ok(BTreeMap::new());
    };
    let Some(mapping) = root.as_mapping() else {
        return Err(ConfigFileError::NotAMapping {
            path: path.to_path_buf(),
        });
    };
    Ok(mapping
        .iter()
        .filter_map(|(key, _, value)| Some((key.to_string(), viper_string(value)?)))
        .collect())
}

/// Parses config text directly (for tests and standard input).
pub fn read_str(text: &str) -> BTreeMap<String, String> {
    let file = yaml::parse_str(
        Arc::new(Source::new("clusterctl.yaml", text)),
        Limits::default(),
    );
    file.roots()
        .next()
        .and_then(Node::as_mapping)
        .map(|m| {
            m.iter()
                .filter_map(|(key, _, value)| Some((key.to_string(), viper_string(value)?)))
                .collect()
        })
        .unwrap_or_default()
}

/// viper's `GetString` of a YAML value; `None` for lists and mappings.
fn viper_string(node: &Node) -> Option<String> {
    let Value::Scalar { text, .. } = node.value() else {
        return None;
    };
    Some(match node.resolve()? {
        Resolved::Null => String::new(),
        Resolved::Bool(b) => b.to_string(),
        Resolved::Int(i) => i.to_string(),
        Resolved::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{f:.0}"),
        Resolved::Float(f) => f.to_string(),
        Resolved::Str | Resolved::Timestamp | Resolved::Merge => text.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_scalars_become_variables() {
        let vars = read_str(
            "AWS_REGION: eu-west-1\nWORKER_MACHINE_COUNT: 3\nEXP_FEATURE: true\nempty:\nproviders:\n- name: x\nimages:\n  all: {}\n",
        );
        assert_eq!(
            vars.get("AWS_REGION").map(String::as_str),
            Some("eu-west-1")
        );
        assert_eq!(
            vars.get("WORKER_MACHINE_COUNT").map(String::as_str),
            Some("3")
        );
        assert_eq!(vars.get("EXP_FEATURE").map(String::as_str), Some("true"));
        assert_eq!(vars.get("empty").map(String::as_str), Some(""));
        assert!(!vars.contains_key("providers"));
        assert!(!vars.contains_key("images"));
    }

    #[test]
    fn bad_files_name_the_path_and_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("clusterctl.yaml");
        std::fs::write(&path, "a: [1,\n").unwrap();
        let err = read(&path).unwrap_err();
        assert!(err.to_string().contains("clusterctl.yaml"), "{err}");
        assert!(
            matches!(err, ConfigFileError::Syntax { line: 2, .. }),
            "{err:?}"
        );
        let err = read(&dir.path().join("missing.yaml")).unwrap_err();
        assert!(matches!(err, ConfigFileError::Read { .. }));
    }
}
