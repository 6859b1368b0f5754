//! Writing an assembled release: `checksums.txt` and an atomic output folder.
//!
//! The folder is built complete in a temporary folder beside the destination and renamed into
//! place; a destination that already exists is moved aside first and removed only after the new
//! one is in place, so a reader sees the old release or the new one, never half of one. capkg
//! replaces only a folder that holds nothing but release files (the names clusterctl fetches and
//! `checksums.txt`), so a mistyped `--out .` cannot delete a repository.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::provider::FileRole;

/// The name of the checksum list (read back by `capkg publish`).
pub use crate::targets::CHECKSUMS_FILE;

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

/// Lower-case hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `sha256sum` text-mode lines (`<hex>  <name>`), one per file, sorted by name. A name the list
/// cannot hold on one line as written (a newline, a backslash, which `sha256sum` escapes, any
/// character outside [`crate::files::check_release_name`]) is an error, never a line.
pub fn checksums<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a [u8])>,
) -> Result<String, crate::files::BadName> {
    let mut lines: Vec<(&str, String)> = Vec::new();
    for (name, bytes) in files {
        crate::files::check_release_name(name)?;
        lines.push((name, sha256_hex(bytes)));
    }
    lines.sort_by(|a, b| a.0.cmp(b.0));
    Ok(lines
        .into_iter()
        .map(|(name, hash)| format!("{hash}  {name}\n"))
        .collect())
}

/// Writes `files` (name, bytes) as the folder `out`, atomically.
pub fn write_dir(files: &[(String, Vec<u8>)], out: &Path) -> Result<(), WriteError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| WriteError::Io { path, source }
    };
    if let Ok(metadata) = std::fs::symlink_metadata(out) {
        if !metadata.is_dir() {
            return Err(WriteError::NotAFolder {
                path: out.to_path_buf(),
            });
        }
        for entry in std::fs::read_dir(out).map_err(io(out))? {
            let entry = entry.map_err(io(out))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_file = entry.file_type().map_err(io(out))?.is_file();
            if !is_file || (FileRole::from_file_name(&name).is_none() && name != CHECKSUMS_FILE) {
                return Err(WriteError::ForeignContent {
                    dir: out.to_path_buf(),
                    name,
                });
            }
        }
    }
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let staging = tempfile::Builder::new()
        .prefix(".capkg-assemble-")
        .tempdir_in(&parent)
        .map_err(io(&parent))?;
    for (name, bytes) in files {
        let path = staging.path().join(name);
        let mut file = std::fs::File::create(&path).map_err(io(&path))?;
        file.write_all(bytes).map_err(io(&path))?;
        file.sync_all().map_err(io(&path))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksums_are_sha256sum_lines_sorted_by_name() {
        let text = checksums([("b.yaml", &b"b"[..]), ("a.yaml", &b""[..])]).unwrap();
        assert_eq!(
            text,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a.yaml\n3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  b.yaml\n"
        );
        for name in ["a\nb.yaml", "a\\b.yaml", "a\rb.yaml", "a\u{7}.yaml"] {
            assert!(checksums([(name, &b""[..])]).is_err(), "{name:?}");
        }
    }

    #[test]
    fn replaces_a_release_folder_but_not_a_foreign_one() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let files = vec![("metadata.yaml".to_string(), b"one".to_vec())];
        write_dir(&files, &out).unwrap();
        assert_eq!(std::fs::read(out.join("metadata.yaml")).unwrap(), b"one");
        let files = vec![("cluster-template.yaml".to_string(), b"two".to_vec())];
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
}
