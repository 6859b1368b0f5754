//! Reading the maintainer's sources: the components YAML (a file, files and folders to
//! concatenate, or a command's standard output), `metadata.yaml`, and the template files the
//! globs of `capkg.yaml` match.
//!
//! Nothing here parses YAML or judges content; it gathers bytes and names, and says clearly which
//! path or command failed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::config::{Command, ComponentsSource};
use crate::provider::FileRole;

/// Why a source could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot read `{}`", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{}` is not UTF-8 text", path.display())]
    NotText { path: PathBuf },
    #[error("`{}` holds no `.yaml` or `.yml` manifests", path.display())]
    EmptyFolder { path: PathBuf },
    #[error("cannot run `{command}` in `{}`", dir.display())]
    Spawn {
        command: String,
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{command}` failed ({status}){}", stderr_tail(stderr))]
    CommandFailed {
        command: String,
        status: String,
        stderr: String,
    },
    #[error("the standard output of `{command}` is not UTF-8 text")]
    CommandOutputNotText { command: String },
    #[error("the standard output of `{command}` is empty")]
    CommandOutputEmpty { command: String },
    #[error("`{pattern}` is not a valid glob")]
    Glob {
        pattern: String,
        #[source]
        source: globset::Error,
    },
    #[error("no file matches `{pattern}`")]
    NoMatch { pattern: String },
    #[error(
        "`{}` matches the templates globs but clusterctl never fetches a file of that name{}",
        path.display(),
        suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
    )]
    NotATemplate {
        path: PathBuf,
        suggestion: Option<String>,
    },
    #[error("two template files are named `{name}`: `{}` and `{}`", first.display(), second.display())]
    DuplicateName {
        name: String,
        first: PathBuf,
        second: PathBuf,
    },
}

fn stderr_tail(stderr: &str) -> String {
    let trimmed = stderr.trim_end();
    if trimmed.is_empty() {
        String::new()
    } else {
        format!(":\n{trimmed}")
    }
}

/// Components YAML and where it came from (for messages).
#[derive(Debug, Clone)]
pub struct ComponentsText {
    /// A path, or `` `command` `` for a command's output.
    pub origin: String,
    pub text: String,
}

/// Reads a components source; relative paths and commands are taken from `root`. A command gets
/// the version being released, as tagged, in `CAPKG_VERSION`.
pub fn read_components(
    source: &ComponentsSource,
    root: &Path,
    version: Option<&crate::version::Version>,
) -> Result<ComponentsText, SourceError> {
    match source {
        ComponentsSource::File(path) => {
            let path = join(root, path);
            Ok(ComponentsText {
                origin: path.display().to_string(),
                text: read_text(&path)?,
            })
        }
        ComponentsSource::Files(paths) => {
            let mut text = String::new();
            let mut origins = Vec::new();
            for path in paths {
                let path = join(root, path);
                origins.push(path.display().to_string());
                for file in manifest_files(&path)? {
                    append_document(&mut text, &read_text(&file)?);
                }
            }
            Ok(ComponentsText {
                origin: origins.join(", "),
                text,
            })
        }
        ComponentsSource::Command(command) => run(command, root, version),
    }
}

/// Joins documents the way a reader of concatenated manifests expects: each file starts on a new
/// document.
fn append_document(out: &mut String, text: &str) {
    if !out.is_empty() {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("---\n");
    }
    out.push_str(text);
}

/// The manifests a path names: the file itself, or a folder's `.yaml`/`.yml` files in path order
/// (recursively; hidden entries and kustomize's own `kustomization.yaml` skipped).
fn manifest_files(path: &Path) -> Result<Vec<PathBuf>, SourceError> {
    let metadata = std::fs::metadata(path).map_err(|source| SourceError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    if !metadata.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let walker = walkdir::WalkDir::new(path)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        let entry = entry.map_err(|err| SourceError::Read {
            path: err.path().unwrap_or(path).to_path_buf(),
            source: err.into(),
        })?;
        let name = entry.file_name().to_string_lossy();
        let is_manifest = (name.ends_with(".yaml") || name.ends_with(".yml"))
            && !matches!(
                name.as_ref(),
                "kustomization.yaml" | "kustomization.yml" | "Kustomization"
            );
        if entry.file_type().is_file() && is_manifest {
            files.push(entry.into_path());
        }
    }
    if files.is_empty() {
        return Err(SourceError::EmptyFolder {
            path: path.to_path_buf(),
        });
    }
    Ok(files)
}

fn run(
    command: &Command,
    root: &Path,
    version: Option<&crate::version::Version>,
) -> Result<ComponentsText, SourceError> {
    let mut process = match command {
        Command::Argv(argv) => {
            let (program, args) = argv.split_first().ok_or_else(|| SourceError::Spawn {
                command: String::new(),
                dir: root.to_path_buf(),
                source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command"),
            })?;
            let mut process = std::process::Command::new(program);
            process.args(args);
            process
        }
        Command::Shell(line) => {
            let mut process = std::process::Command::new("sh");
            process.arg("-c").arg(line);
            process
        }
    };
    if let Some(version) = version {
        process.env("CAPKG_VERSION", version.to_string());
    }
    let shown = command.to_string();
    let dir = if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    };
    let output = process
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|source| SourceError::Spawn {
            command: shown.clone(),
            dir: dir.to_path_buf(),
            source,
        })?;
    if !output.status.success() {
        return Err(SourceError::CommandFailed {
            command: shown,
            status: output.status.to_string(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        });
    }
    let text = String::from_utf8(output.stdout).map_err(|_| SourceError::CommandOutputNotText {
        command: shown.clone(),
    })?;
    if text.trim().is_empty() {
        return Err(SourceError::CommandOutputEmpty { command: shown });
    }
    Ok(ComponentsText {
        origin: format!("`{shown}`"),
        text,
    })
}

/// Reads a file as text.
pub fn read_text(path: &Path) -> Result<String, SourceError> {
    let bytes = read_bytes(path)?;
    String::from_utf8(bytes).map_err(|_| SourceError::NotText {
        path: path.to_path_buf(),
    })
}

/// Reads a file's bytes.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, SourceError> {
    std::fs::read(path).map_err(|source| SourceError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// The template and ClusterClass files the globs match, by output name. Every glob must match at
/// least one file, every match must be named as clusterctl fetches it, and no two matches may
/// share a name.
pub fn find_templates(
    patterns: &[String],
    root: &Path,
) -> Result<BTreeMap<String, PathBuf>, SourceError> {
    let mut found: BTreeMap<String, PathBuf> = BTreeMap::new();
    for pattern in patterns {
        let matcher = globset::GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|source| SourceError::Glob {
                pattern: pattern.clone(),
                source,
            })?
            .compile_matcher();
        let base = glob_base(pattern);
        let start = join(root, &base);
        let mut matched = false;
        if start.exists() {
            let walker = walkdir::WalkDir::new(&start).sort_by_file_name();
            for entry in walker {
                let entry = entry.map_err(|err| SourceError::Read {
                    path: err.path().unwrap_or(&start).to_path_buf(),
                    source: err.into(),
                })?;
                if !entry.file_type().is_file() {
                    continue;
                }
                let relative = if Path::new(pattern).is_absolute() {
                    entry.path()
                } else {
                    entry
                        .path()
                        .strip_prefix(dir_or_dot(root))
                        .unwrap_or(entry.path())
                };
                if !matcher.is_match(relative) {
                    continue;
                }
                matched = true;
                let path = entry.path().to_path_buf();
                let name = entry.file_name().to_string_lossy().into_owned();
                if !FileRole::from_file_name(&name).is_some_and(|role| role.is_template()) {
                    return Err(SourceError::NotATemplate {
                        suggestion: crate::files::near_miss(&name),
                        path,
                    });
                }
                match found.get(&name) {
                    Some(first) if *first != path => {
                        return Err(SourceError::DuplicateName {
                            name,
                            first: first.clone(),
                            second: path,
                        });
                    }
                    _ => {
                        found.insert(name, path);
                    }
                }
            }
        }
        if !matched {
            return Err(SourceError::NoMatch {
                pattern: pattern.clone(),
            });
        }
    }
    Ok(found)
}

/// The folder part of a glob before its first wildcard (`templates/` for `templates/*.yaml`).
fn glob_base(pattern: &str) -> PathBuf {
    let mut base = PathBuf::from(if pattern.starts_with('/') { "/" } else { "" });
    let components: Vec<&str> = pattern.split('/').collect();
    for (index, part) in components.iter().enumerate() {
        let last = index + 1 == components.len();
        if last || part.contains(['*', '?', '[', '{']) {
            break;
        }
        base.push(part);
    }
    base
}

fn dir_or_dot(root: &Path) -> &Path {
    if root.as_os_str().is_empty() {
        Path::new(".")
    } else {
        root
    }
}

fn join(root: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() || root.as_os_str().is_empty() || root == Path::new(".") {
        path.to_path_buf()
    } else {
        root.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, name: &str, text: &str) {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn folders_are_concatenated_in_name_order_without_kustomizations() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "config/rbac/b.yaml", "kind: B\n");
        write(root, "config/rbac/a.yml", "kind: A");
        write(root, "config/rbac/kustomization.yaml", "resources: []\n");
        write(root, "config/rbac/.hidden.yaml", "kind: Hidden\n");
        write(root, "config/ns.yaml", "kind: Namespace\n");
        let text = read_components(
            &ComponentsSource::Files(vec!["config/ns.yaml".into(), "config/rbac".into()]),
            root,
            None,
        )
        .unwrap();
        assert_eq!(text.text, "kind: Namespace\n---\nkind: A\n---\nkind: B\n");
    }

    #[test]
    fn a_failing_command_shows_its_stderr() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_components(
            &ComponentsSource::Command(Command::Shell("echo oops >&2; exit 3".into())),
            dir.path(),
            None,
        )
        .unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("`echo oops >&2; exit 3` failed (exit status: 3)"),
            "{message}"
        );
        assert!(message.ends_with(":\noops"), "{message}");
        let err = read_components(
            &ComponentsSource::Command(Command::Argv(vec!["capkg-no-such-program".into()])),
            dir.path(),
            None,
        )
        .unwrap_err();
        assert!(matches!(err, SourceError::Spawn { .. }));
    }

    #[test]
    fn commands_run_in_the_root_folder() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "x.yaml", "kind: X\n");
        let text = read_components(
            &ComponentsSource::Command(Command::Argv(vec!["cat".into(), "x.yaml".into()])),
            dir.path(),
            None,
        )
        .unwrap();
        assert_eq!(text.text, "kind: X\n");
    }

    #[test]
    fn commands_get_the_release_version() {
        let dir = tempfile::tempdir().unwrap();
        let version = crate::version::Version::parse("v1.2.3").unwrap();
        let text = read_components(
            &ComponentsSource::Command(Command::Shell("echo \"kind: X$CAPKG_VERSION\"".into())),
            dir.path(),
            Some(&version),
        )
        .unwrap();
        assert_eq!(text.text, "kind: Xv1.2.3\n");
    }

    #[test]
    fn template_globs_match_release_names_only() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "templates/cluster-template.yaml", "");
        write(root, "templates/cluster-template-eks.yaml", "");
        write(root, "templates/clusterclass-quick.yaml", "");
        write(root, "templates/sub/cluster-template-deep.yaml", "");
        let found = find_templates(&["templates/*.yaml".into()], root).unwrap();
        assert_eq!(
            found.keys().collect::<Vec<_>>(),
            [
                "cluster-template-eks.yaml",
                "cluster-template.yaml",
                "clusterclass-quick.yaml"
            ]
        );
        let found = find_templates(&["templates/**/cluster-template-*.yaml".into()], root).unwrap();
        assert_eq!(
            found.keys().collect::<Vec<_>>(),
            ["cluster-template-deep.yaml", "cluster-template-eks.yaml"]
        );
        assert!(matches!(
            find_templates(&["nothing/*.yaml".into()], root),
            Err(SourceError::NoMatch { .. })
        ));
        write(root, "templates/cluster-class.yaml", "");
        let err = find_templates(&["templates/*.yaml".into()], root).unwrap_err();
        assert!(
            err.to_string()
                .contains("did you mean `clusterclass-.yaml`")
                || matches!(err, SourceError::NotATemplate { .. }),
            "{err}"
        );
        write(root, "other/cluster-template.yaml", "");
        let err = find_templates(
            &[
                "templates/cluster-template.yaml".into(),
                "other/*.yaml".into(),
            ],
            root,
        )
        .unwrap_err();
        assert!(matches!(err, SourceError::DuplicateName { .. }), "{err}");
    }
}
