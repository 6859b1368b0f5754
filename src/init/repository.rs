//! The repository `init` reads and writes, and nothing beyond it: a repository is input, and a
//! hostile one may link its files to `/dev/zero`, `/proc/self/environ`, a FIFO or another checkout.
//!
//! Reads take regular files inside the root only (opened as release files are,
//! [`crate::files::open_regular`]), at most [`MAX_FILE`] bytes each; whatever is skipped is said
//! once in [`Repository::notes`], and what lies outside the root is never proposed. Writes go
//! through a temporary file renamed in the file's real folder, mode 0644 under the umask, and
//! refuse a link out of the repository on the way or a link where the file goes.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use crate::files::{Error as FilesError, kind_of};

/// The most `init` reads of one file: Makefiles, kustomizations and manifests are far smaller.
pub const MAX_FILE: u64 = 4 * 1024 * 1024;

/// A repository root (canonical) and what reading it skipped.
#[derive(Debug)]
pub struct Repository {
    root: PathBuf,
    notes: RefCell<BTreeSet<String>>,
}

/// Why `init` does not write a file.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(
        "`{}` is a symbolic link{}: capkg init writes only inside the repository and never through a link; remove the link, or write the file yourself",
        shown.display(),
        target.as_ref().map(|t| format!(" to `{}`", t.display())).unwrap_or_default()
    )]
    Link {
        shown: PathBuf,
        target: Option<PathBuf>,
    },
    #[error("`{}` is {kind}, not a {expected}", shown.display())]
    NotRegular {
        shown: PathBuf,
        kind: &'static str,
        expected: &'static str,
    },
    #[error("cannot write `{}`", shown.display())]
    Io {
        shown: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A link or a special file where init writes: the repository is wrong for it; an I/O error:
/// init could not do its job.
impl crate::error::Classified for WriteError {
    fn class(&self) -> crate::error::ErrorClass {
        match self {
            WriteError::Link { .. } | WriteError::NotRegular { .. } => {
                crate::error::ErrorClass::Refusal
            }
            WriteError::Io { .. } => crate::error::ErrorClass::Fault,
        }
    }
}

impl Repository {
    /// The repository at `root`, which must exist.
    pub fn new(root: &Path) -> std::io::Result<Repository> {
        Ok(Repository {
            root: root.canonicalize()?,
            notes: RefCell::new(BTreeSet::new()),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What was skipped, sorted, once each.
    pub fn notes(&self) -> Vec<String> {
        self.notes.borrow().iter().cloned().collect()
    }

    fn note(&self, text: String) {
        self.notes.borrow_mut().insert(text);
    }

    /// `path` (absolute, or relative to the root) as the repository names it: relative to the
    /// root, `.` and `..` resolved lexically (`../other/x` when it climbs out).
    pub fn shown(&self, path: &Path) -> String {
        let joined = self.root.join(path);
        let mut parts: Vec<String> = Vec::new();
        for part in joined.components() {
            match part {
                Component::ParentDir => {
                    parts.pop();
                }
                Component::CurDir => {}
                Component::RootDir | Component::Prefix(_) => parts.clear(),
                Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            }
        }
        let root: Vec<String> = self
            .root
            .components()
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let common = root.iter().zip(&parts).take_while(|(a, b)| a == b).count();
        let climbs = root.len() - common;
        let mut shown: Vec<String> = vec!["..".to_string(); climbs];
        shown.extend(parts.into_iter().skip(common));
        if shown.is_empty() {
            ".".to_string()
        } else {
            shown.join("/")
        }
    }

    /// The real path of `path` when it exists inside the repository; a path that resolves
    /// outside (by `..`, an absolute path or a link) is noted with `why` and is `None`.
    pub fn inside(&self, path: &Path, why: &str) -> Option<PathBuf> {
        let real = self.root.join(path).canonicalize().ok()?;
        if real.starts_with(&self.root) {
            return Some(real);
        }
        let why = if why.is_empty() {
            String::new()
        } else {
            format!(" ({why})")
        };
        self.note(format!(
            "`{}`{why} is outside the repository: not read, not proposed",
            self.shown(path)
        ));
        None
    }

    /// A folder inside the repository.
    pub fn is_dir(&self, path: &Path, why: &str) -> bool {
        self.inside(path, why).is_some_and(|real| real.is_dir())
    }

    /// A regular file inside the repository.
    pub fn is_file(&self, path: &Path, why: &str) -> bool {
        self.inside(path, why).is_some_and(|real| real.is_file())
    }

    /// The text of a regular file inside the repository, at most [`MAX_FILE`] bytes; anything
    /// else (missing, outside, a FIFO or device, too large, not UTF-8) is `None`, noted unless
    /// missing.
    pub fn read(&self, path: &Path, why: &str) -> Option<String> {
        let real = self.inside(path, why)?;
        let shown = self.shown(path);
        let bytes = match crate::files::read_regular_within(&real, MAX_FILE) {
            Ok(bytes) => bytes,
            Err(FilesError::NotRegular(not_regular)) => {
                self.note(format!(
                    "`{shown}` is {}, not a regular file: not read",
                    not_regular.kind
                ));
                return None;
            }
            Err(FilesError::TooLarge(_)) => {
                self.note(too_large(&shown));
                return None;
            }
            Err(other) => {
                let reason = match other {
                    FilesError::Read { source, .. } => source.to_string(),
                    other => other.to_string(),
                };
                self.note(format!("`{shown}` cannot be read ({reason}): not read"));
                return None;
            }
        };
        match String::from_utf8(bytes) {
            Ok(text) => Some(text),
            Err(_) => {
                self.note(format!("`{shown}` is not UTF-8 text: not read"));
                None
            }
        }
    }

    /// The entries of a folder inside the repository that are real folders (links are not
    /// followed; one leading out of the repository is noted), by name.
    pub fn subfolders(&self, dir: &Path) -> Vec<String> {
        let Some(real) = self.inside(dir, "") else {
            return Vec::new();
        };
        let Ok(entries) = std::fs::read_dir(&real) else {
            return Vec::new();
        };
        let mut names = Vec::new();
        for entry in entries.flatten() {
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            if file_type.is_dir() {
                names.push(name);
            } else if file_type.is_symlink() && entry.path().is_dir() {
                // Said when it leads out; a link inside is a second name for a folder searched.
                let _ = self.inside(&dir.join(&name), "a linked folder");
            }
        }
        names.sort();
        names
    }

    /// Names of the regular files (not links) of a folder inside the repository.
    pub fn file_names(&self, dir: &Path) -> BTreeSet<String> {
        let Some(real) = self.inside(dir, "") else {
            return BTreeSet::new();
        };
        std::fs::read_dir(real)
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether something (a link included, even a dangling one) is at `relative`.
    pub fn exists(&self, relative: &Path) -> bool {
        std::fs::symlink_metadata(self.root.join(relative)).is_ok()
    }

    /// Checks that `relative` can be written: every existing folder on the way is a folder
    /// inside the repository, and the file itself, if it exists, a regular file.
    pub fn check_writable(&self, relative: &Path) -> Result<(), WriteError> {
        self.real_folder(relative, false).map(|_| ())
    }

    /// Writes `relative` through a temporary file renamed in its real folder (created when
    /// missing), mode 0644 under the umask.
    pub fn write(&self, relative: &Path, bytes: &[u8]) -> Result<(), WriteError> {
        let shown = relative.to_path_buf();
        let io = |source| WriteError::Io {
            shown: shown.clone(),
            source,
        };
        let Some(folder) = self.real_folder(relative, true)? else {
            return Err(io(std::io::Error::other("no folder")));
        };
        let name = relative
            .file_name()
            .ok_or_else(|| io(std::io::Error::other("no file name")))?;
        crate::files::write_atomically(&folder.join(name), bytes).map_err(io)
    }

    /// The real folder `relative` goes in (`None` when a folder on the way is missing and not
    /// `create`d), refusing links out of the repository and a file that is not a regular one.
    fn real_folder(&self, relative: &Path, create: bool) -> Result<Option<PathBuf>, WriteError> {
        let mut real = self.root.clone();
        let mut shown = PathBuf::new();
        let parts: Vec<Component> = relative.components().collect();
        let Some((last, folders)) = parts.split_last() else {
            return Ok(None);
        };
        for part in folders {
            let Component::Normal(name) = part else {
                return Err(WriteError::Link {
                    shown: relative.to_path_buf(),
                    target: None,
                });
            };
            shown.push(name);
            let next = real.join(name);
            match std::fs::symlink_metadata(&next) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    if !create {
                        return Ok(None);
                    }
                    std::fs::create_dir(&next).map_err(|source| WriteError::Io {
                        shown: shown.clone(),
                        source,
                    })?;
                    real = next;
                }
                Err(source) => {
                    return Err(WriteError::Io {
                        shown: shown.clone(),
                        source,
                    });
                }
                Ok(metadata) if metadata.file_type().is_symlink() => {
                    let target = next.canonicalize().ok();
                    match target {
                        Some(target) if target.starts_with(&self.root) && target.is_dir() => {
                            real = target;
                        }
                        _ => {
                            return Err(WriteError::Link {
                                shown,
                                target: std::fs::read_link(&next).ok(),
                            });
                        }
                    }
                }
                Ok(metadata) if metadata.is_dir() => real = next,
                Ok(metadata) => {
                    return Err(WriteError::NotRegular {
                        shown,
                        kind: kind_of(metadata.file_type()),
                        expected: "folder",
                    });
                }
            }
        }
        let file = real.join(last);
        if let Ok(metadata) = std::fs::symlink_metadata(&file) {
            if metadata.file_type().is_symlink() {
                return Err(WriteError::Link {
                    shown: relative.to_path_buf(),
                    target: std::fs::read_link(&file).ok(),
                });
            }
            if !metadata.is_file() {
                return Err(WriteError::NotRegular {
                    shown: relative.to_path_buf(),
                    kind: kind_of(metadata.file_type()),
                    expected: "regular file",
                });
            }
        }
        Ok(Some(real))
    }
}

fn too_large(shown: &str) -> String {
    format!(
        "`{shown}` is larger than {} MiB: not read",
        MAX_FILE / 1024 / 1024
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_relative_to_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let repo = Repository::new(dir.path()).unwrap();
        assert_eq!(
            repo.shown(Path::new("config/default/../manager")),
            "config/manager"
        );
        assert_eq!(repo.shown(Path::new("config/../../other/x")), "../other/x");
        assert_eq!(repo.shown(Path::new(".")), ".");
        let outside = repo.shown(Path::new("/dev/zero"));
        assert!(
            outside.starts_with("../") && outside.ends_with("/dev/zero"),
            "{outside}"
        );
    }
}
