//! Writing an assembled release: an atomic output folder (`checksums.txt` is
//! [`crate::checksums`]').
//!
//! The folder is built complete in a temporary folder beside the destination and renamed into
//! place; a destination that already exists is moved aside first and removed only after the new
//! one is in place, so a reader sees the old release or the new one, never half of one. capkg
//! replaces only a folder that holds nothing but release files (the names clusterctl fetches and
//! `checksums.txt`), so a mistyped `--out .` cannot delete a repository.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::provider::FileRole;

use crate::checksums::CHECKSUMS_FILE;

/// Why the release could not be written.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("cannot write `{}`", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "`{}` holds `{name}`, which is not a release file; capkg only replaces a folder of release files (choose a new or empty folder)",
        dir.display()
    )]
    ForeignContent { dir: PathBuf, name: String },
    #[error("`{}` exists and is not a folder", path.display())]
    NotAFolder { path: PathBuf },
}

/// The output folder could not be written: capkg could not do its job.
impl crate::error::Classified for WriteError {
    fn class(&self) -> crate::error::ErrorClass {
        crate::error::ErrorClass::Fault
    }
}

/// Writes `files` (name, bytes) as the folder `out`, atomically.
pub fn write_dir(files: &[(&str, &[u8])], out: &Path) -> Result<(), WriteError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| WriteError::Io { path, source }
    };
    check_release_dir(out)?;
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".capkg-assemble-")
        .tempdir_in(&parent)
        .map_err(io(&parent))?;
    // No fsync: this is a build folder, like cargo's `target/`. After a crash a file may be
    // empty or cut, and `checksums.txt` then no longer matches it, which `publish` and
    // `release` check before anything leaves the machine; the local repository publish writes
    // is the one capkg syncs. (Syncing was a large share of assemble's wall time.)
    for (name, bytes) in files {
        let path = staging.path().join(name);
        let mut file = std::fs::File::create(&path).map_err(io(&path))?;
        file.write_all(bytes).map_err(io(&path))?;
    }
    let staged = staging.keep();
    let old = if out.exists() {
        let aside = parent.join(format!(
            ".capkg-previous-{}",
            out.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        ));
        if aside.exists() {
            std::fs::remove_dir_all(&aside).map_err(io(&aside))?;
        }
        std::fs::rename(out, &aside).map_err(io(out))?;
        Some(aside)
    } else {
        None
    };
    if let Err(source) = std::fs::rename(&staged, out) {
        // Put the previous release back before reporting.
        if let Some(aside) = &old {
            let _ = std::fs::rename(aside, out);
        }
        let _ = std::fs::remove_dir_all(&staged);
        return Err(WriteError::Io {
            path: out.to_path_buf(),
            source,
        });
    }
    if let Some(aside) = old {
        std::fs::remove_dir_all(&aside).map_err(io(&aside))?;
    }
    Ok(())
}

/// Removes `dir`, a folder of release files written earlier; a folder holding anything else is
/// refused like [`write_dir`] refuses it, and a missing one is fine.
pub fn remove_release_dir(dir: &Path) -> Result<(), WriteError> {
    if check_release_dir(dir)? {
        std::fs::remove_dir_all(dir).map_err(|source| WriteError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    Ok(())
}

/// Whether `dir` exists, refusing one that is not a folder of release files only.
fn check_release_dir(dir: &Path) -> Result<bool, WriteError> {
    let io = |source| WriteError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let Ok(metadata) = std::fs::symlink_metadata(dir) else {
        return Ok(false);
    };
    if !metadata.is_dir() {
        return Err(WriteError::NotAFolder {
            path: dir.to_path_buf(),
        });
    }
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().map_err(io)?.is_file();
        if !is_file || (FileRole::from_file_name(&name).is_none() && name != CHECKSUMS_FILE) {
            return Err(WriteError::ForeignContent {
                dir: dir.to_path_buf(),
                name,
            });
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_release_folder_but_not_a_foreign_one() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let files: Vec<(&str, &[u8])> = vec![("metadata.yaml", b"one")];
        write_dir(&files, &out).unwrap();
        assert_eq!(std::fs::read(out.join("metadata.yaml")).unwrap(), b"one");
        let files: Vec<(&str, &[u8])> = vec![("cluster-template.yaml", b"two")];
        write_dir(&files, &out).unwrap();
        assert!(!out.join("metadata.yaml").exists());
        assert_eq!(
            std::fs::read(out.join("cluster-template.yaml")).unwrap(),
            b"two"
        );
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        let err = write_dir(&files, &out).unwrap_err();
        assert!(matches!(err, WriteError::ForeignContent { .. }), "{err}");
        assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
        // Nothing is left behind beside the destination.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["out"]);
    }

    #[test]
    fn removes_a_release_folder_but_not_a_foreign_one() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out.rejected");
        remove_release_dir(&out).unwrap();
        let files: Vec<(&str, &[u8])> = vec![("metadata.yaml", b"one")];
        write_dir(&files, &out).unwrap();
        remove_release_dir(&out).unwrap();
        assert!(!out.exists());
        write_dir(&files, &out).unwrap();
        std::fs::write(out.join("notes.txt"), "mine").unwrap();
        let err = remove_release_dir(&out).unwrap_err();
        assert!(matches!(err, WriteError::ForeignContent { .. }), "{err}");
        assert!(out.join("notes.txt").exists());
    }
}
