//! Reading the maintainer's sources: the components YAML (a file, files and folders to
//! concatenate, or a command's standard output), `metadata.yaml`, and the template files the
//! globs of `capkg.yaml` match.
//!
//! Nothing here parses YAML or judges content; it gathers bytes and names, and says clearly which
//! path or command failed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::{CommandLimits, ComponentsSource};
use crate::error::{Classified, ErrorClass};
use crate::files::{BadName, NotRegular, ReadError};
use crate::provider::FileRole;
use crate::yaml::Position;

mod command;

use command::run;

/// How much of a failing command's standard error its error carries: the end, where the reason is.
pub const STDERR_EXCERPT: usize = 64 * 1024;

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
        /// The end of its standard error (at most [`STDERR_EXCERPT`] bytes), tokens redacted.
        stderr: String,
    },
    #[error("`{command}` did not finish within {}; it was stopped (with its child processes){}", show_duration(*timeout), stderr_tail(stderr))]
    CommandTimedOut {
        command: String,
        timeout: Duration,
        stderr: String,
    },
    #[error(
        "`{command}` printed more than {limit} bytes; it was stopped (with its child processes)"
    )]
    CommandOutputTooLarge { command: String, limit: u64 },
    #[error(transparent)]
    NotRegular(#[from] NotRegular),
    #[error(
        "`{}` is a symbolic link to `{}`, outside the repository `{}`; capkg follows links only inside it",
        path.display(),
        target.display(),
        root.display()
    )]
    OutsideRepository {
        path: PathBuf,
        target: PathBuf,
        root: PathBuf,
    },
    #[error(
        "`{}` is outside the repository `{}` (it is `{}`); capkg reads sources only inside it",
        path.display(),
        root.display(),
        target.display()
    )]
    PathOutsideRepository {
        path: PathBuf,
        target: PathBuf,
        root: PathBuf,
    },
    #[error(transparent)]
    BadName(#[from] BadName),
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
    #[error("cannot set the release images in `{}` (on a copy, before the kustomize build): {message}", path.display())]
    Kustomization { path: PathBuf, message: String },
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

impl From<ReadError> for SourceError {
    fn from(error: ReadError) -> Self {
        match error {
            ReadError::NotRegular(not_regular) => SourceError::NotRegular(not_regular),
            ReadError::Io { path, source } => SourceError::Read { path, source },
        }
    }
}

impl Classified for SourceError {
    /// Sources that are wrong (a command that fails, a file outside the repository, a name
    /// clusterctl cannot fetch) are refused; a file capkg cannot read is a failure.
    fn class(&self) -> ErrorClass {
        ErrorClass::refusal_if(matches!(
            self,
            SourceError::CommandFailed { .. }
                | SourceError::CommandTimedOut { .. }
                | SourceError::CommandOutputTooLarge { .. }
                | SourceError::NotRegular(_)
                | SourceError::OutsideRepository { .. }
                | SourceError::PathOutsideRepository { .. }
                | SourceError::BadName(_)
                | SourceError::CommandOutputEmpty { .. }
                | SourceError::CommandOutputNotText { .. }
                | SourceError::Kustomization { .. }
                | SourceError::NotText { .. }
                | SourceError::NotATemplate { .. }
                | SourceError::DuplicateName { .. }
        ))
    }

    /// The capkg.yaml key that raises the bound a command hit, or where the file should be.
    fn hint(&self) -> Option<String> {
        match self {
            SourceError::CommandTimedOut { .. } => Some(
                "raise `timeout` in the components entry of capkg.yaml (`timeout: 30m`) if the command needs longer".to_string(),
            ),
            SourceError::CommandOutputTooLarge { .. } => Some(
                "raise `output_limit` in the components entry of capkg.yaml (`output_limit: 1GiB`) if the output is right".to_string(),
            ),
            SourceError::OutsideRepository { .. }
            | SourceError::PathOutsideRepository { .. }
            | SourceError::NotRegular(_) => Some(
                "copy the file into the repository, or point capkg.yaml at the real file".to_string(),
            ),
            _ => None,
        }
    }
}

fn show_duration(duration: Duration) -> String {
    let secs = duration.as_secs();
    if duration.subsec_millis() != 0 || secs == 0 {
        format!("{}ms", duration.as_millis())
    } else if secs.is_multiple_of(3600) {
        format!("{}h", secs / 3600)
    } else if secs.is_multiple_of(60) {
        format!("{}m", secs / 60)
    } else {
        format!("{secs}s")
    }
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
    /// For `files:`, each file and the line of `text` its first line is on, in order; a
    /// position in `text` is reported in the file it came from ([`ComponentsText::locate`]).
    pub parts: Vec<(String, usize)>,
}

impl ComponentsText {
    fn whole(origin: String, text: String) -> ComponentsText {
        ComponentsText {
            parts: vec![(origin.clone(), 1)],
            origin,
            text,
        }
    }

    /// The file and position in it of a position in [`ComponentsText::text`].
    pub fn locate(&self, position: Position) -> (String, Position) {
        Self::locate_in(&self.parts, &self.origin, position)
    }

    /// [`ComponentsText::locate`] over the `parts` and `origin` of a text already parsed.
    pub fn locate_in(
        parts: &[(String, usize)],
        origin: &str,
        position: Position,
    ) -> (String, Position) {
        match parts
            .iter()
            .rev()
            .find(|(_, first_line)| *first_line <= position.line)
        {
            Some((file, first_line)) => (
                file.clone(),
                Position {
                    line: position.line - first_line + 1,
                    column: position.column,
                },
            ),
            None => (origin.to_string(), position),
        }
    }
}

/// Reads a components source; relative paths and commands are taken from `root`. A command is
/// bounded by `limits` and gets the version being released, as tagged, in `CAPKG_VERSION`.
pub fn read_components(
    source: &ComponentsSource,
    limits: &CommandLimits,
    root: &Path,
    version: Option<&crate::version::Version>,
) -> Result<ComponentsText, SourceError> {
    let repository = Repository::of(root);
    match source {
        ComponentsSource::File(path) => {
            let joined = join(root, path);
            Ok(ComponentsText::whole(
                joined.display().to_string(),
                repository.read_text(&joined)?,
            ))
        }
        ComponentsSource::Files(paths) => {
            let mut text = String::new();
            let mut origins = Vec::new();
            let mut parts = Vec::new();
            // Lines of `text` so far: the next file starts on the line after them.
            let mut lines = 0;
            for path in paths {
                let path = join(root, path);
                origins.push(path.display().to_string());
                for file in manifest_files(&path, &repository)? {
                    let file_text = repository.read_text(&file)?;
                    let before = text.len();
                    append_document(&mut text, &file_text);
                    let start = text.len() - file_text.len();
                    lines += text[before..start].matches('\n').count();
                    parts.push((file.display().to_string(), lines + 1));
                    lines += file_text.matches('\n').count();
                }
            }
            Ok(ComponentsText {
                origin: origins.join(", "),
                text,
                parts,
            })
        }
        ComponentsSource::Command(command) => run(command, limits, root, version),
    }
}

/// The folder sources may live in when a symbolic link is followed: the repository holding the
/// configuration (the nearest folder with `.git`), else the configuration's own folder.
pub struct Repository {
    root: PathBuf,
}

impl Repository {
    /// The repository's folder, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn of(config_root: &Path) -> Repository {
        let start = std::path::absolute(dir_or_dot(config_root))
            .unwrap_or_else(|_| config_root.to_path_buf());
        let root = start
            .ancestors()
            .find(|dir| dir.join(".git").exists())
            .unwrap_or(&start);
        Repository {
            root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
        }
    }

    /// The path to read for `path`: itself, or for a symbolic link the file it resolves to. Either
    /// must be inside the repository: a plain path (`../../x`, `/etc/x`, or under a linked
    /// folder) is held to the same rule as a link.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, SourceError> {
        let metadata = std::fs::symlink_metadata(path).map_err(|source| SourceError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if metadata.file_type().is_symlink() {
            return self.inside(path);
        }
        let real = std::fs::canonicalize(path).map_err(|source| SourceError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if !real.starts_with(&self.root) {
            return Err(SourceError::PathOutsideRepository {
                path: path.to_path_buf(),
                target: real,
                root: self.root.clone(),
            });
        }
        Ok(path.to_path_buf())
    }

    /// Where the link `path` leads, when that is inside the repository.
    fn inside(&self, path: &Path) -> Result<PathBuf, SourceError> {
        let target = std::fs::canonicalize(path).map_err(|source| SourceError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if !target.starts_with(&self.root) {
            return Err(SourceError::OutsideRepository {
                path: path.to_path_buf(),
                target,
                root: self.root.clone(),
            });
        }
        Ok(target)
    }

    /// Reads a source file (following a link inside the repository) as text.
    pub fn read_text(&self, path: &Path) -> Result<String, SourceError> {
        let bytes = self.read_bytes(path)?;
        String::from_utf8(bytes).map_err(|_| SourceError::NotText {
            path: path.to_path_buf(),
        })
    }

    /// Reads a source file's bytes; it must be (or link inside the repository to) a regular
    /// file, named as given in messages.
    pub fn read_bytes(&self, path: &Path) -> Result<Vec<u8>, SourceError> {
        let resolved = self.resolve(path)?;
        crate::files::read_regular(&resolved).map_err(|error| match error {
            ReadError::NotRegular(not_regular) => SourceError::NotRegular(NotRegular {
                path: path.to_path_buf(),
                kind: not_regular.kind,
            }),
            ReadError::Io { source, .. } => SourceError::Read {
                path: path.to_path_buf(),
                source,
            },
        })
    }

    /// Checks an entry a folder walk (following links) found: a link must lead inside the
    /// repository, and a file must be a regular file.
    fn check_entry(&self, entry: &walkdir::DirEntry) -> Result<(), SourceError> {
        if entry.path_is_symlink() {
            self.inside(entry.path())?;
        }
        let file_type = entry.file_type();
        if !file_type.is_dir() && !file_type.is_file() {
            return Err(SourceError::NotRegular(NotRegular {
                path: entry.path().to_path_buf(),
                kind: crate::files::kind_of(file_type),
            }));
        }
        Ok(())
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
/// Symbolic links inside the repository are followed (to files and folders); a link leading out of
/// it, or a manifest that is a FIFO or a device, is an error.
fn manifest_files(path: &Path, repository: &Repository) -> Result<Vec<PathBuf>, SourceError> {
    let metadata =
        std::fs::metadata(repository.resolve(path)?).map_err(|source| SourceError::Read {
            path: path.to_path_buf(),
            source,
        })?;
    if !metadata.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    let walker = walkdir::WalkDir::new(path)
        .follow_links(true)
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
        if entry.file_type().is_dir() || is_manifest {
            repository.check_entry(&entry)?;
        }
        if !entry.file_type().is_dir() && is_manifest {
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

/// The template and ClusterClass files the globs match, by output name. Every glob must match at
/// least one file, every match must be named as clusterctl fetches it, and no two matches may
/// share a name.
pub fn find_templates(
    patterns: &[String],
    root: &Path,
) -> Result<BTreeMap<String, PathBuf>, SourceError> {
    let repository = Repository::of(root);
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
        if std::fs::symlink_metadata(&start).is_ok() {
            repository.resolve(&start)?;
            // Links inside the repository are followed, to files and folders alike.
            let walker = walkdir::WalkDir::new(&start)
                .follow_links(true)
                .sort_by_file_name();
            for entry in walker {
                let entry = entry.map_err(|err| SourceError::Read {
                    path: err.path().unwrap_or(&start).to_path_buf(),
                    source: err.into(),
                })?;
                if entry.file_type().is_dir() {
                    if entry.depth() > 0 {
                        repository.check_entry(&entry)?;
                    }
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
                repository.check_entry(&entry)?;
                matched = true;
                let path = entry.path().to_path_buf();
                let name = entry.file_name().to_string_lossy().into_owned();
                crate::files::check_release_name(&name)?;
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

pub(crate) fn dir_or_dot(root: &Path) -> &Path {
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
    use crate::config::Command;

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
            &CommandLimits::default(),
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
            &CommandLimits::default(),
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
            &CommandLimits::default(),
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
            &CommandLimits::default(),
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
            &CommandLimits::default(),
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
