//! Regular files, read and written safely: a release file is opened only as a regular file (no
//! link, FIFO or device, checked again once open), read within a size limit, and written
//! atomically; and the path and file-type facts the messages about them give.

use std::path::{Path, PathBuf};

use super::{Error, NotRegular, ReadError, TooLarge};

/// `path` as an absolute path from the working directory, `.` and `..` resolved by name (not by
/// following links): two spellings of one file (`../out/a.yaml` from `config/`, `out/a.yaml`
/// from the root) compare equal.
pub fn lexical_absolute(path: &Path) -> std::io::Result<PathBuf> {
    let joined = match path.is_absolute() {
        true => path.to_path_buf(),
        false => std::env::current_dir()?.join(path),
    };
    let mut clean = PathBuf::new();
    for component in joined.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    Ok(clean)
}

/// What a file type is, for messages.
pub fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_block_device() || file_type.is_char_device() {
            return "a device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_symlink() {
        "a symbolic link"
    } else if file_type.is_dir() {
        "a folder"
    } else if file_type.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Files of this many bytes or more are large input: the process then keeps less memory in
/// reserve ([`on_large_input`]).
pub const LARGE_INPUT: u64 = 16 * 1024 * 1024;

static LARGE_INPUT_HOOK: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Registers what to do when [`read_regular`] reads a file of [`LARGE_INPUT`] bytes or more (the
/// binary gives memory its allocator frees back to the system at once, rather than keeping it a
/// while for reuse, and stops asking for huge pages: a large file's peak holds less, small files
/// stay fast). The first registration holds; the hook may run more than once, on any thread.
pub fn on_large_input(hook: fn()) {
    let _ = LARGE_INPUT_HOOK.set(hook);
}

/// Opens `path` for reading, which must be a regular file itself: a symbolic link (even to a
/// regular file), a FIFO or a device is refused, naming it. On unix the file is opened with
/// `O_NOFOLLOW` (so a link swapped in after the check is not followed) and `O_NONBLOCK` (so a FIFO
/// swapped in does not hang the open), and the opened file is checked again.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, std::fs::Metadata), ReadError> {
    let io = |source| ReadError::Io {
        path: path.to_path_buf(),
        source,
    };
    let not_regular = |kind| {
        ReadError::NotRegular(NotRegular {
            path: path.to_path_buf(),
            kind,
        })
    };
    let metadata = std::fs::symlink_metadata(path).map_err(io)?;
    if !metadata.file_type().is_file() {
        return Err(not_regular(kind_of(metadata.file_type())));
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        #[cfg(unix)]
        Err(err) if err.raw_os_error() == Some(libc::ELOOP) => {
            return Err(not_regular("a symbolic link"));
        }
        Err(err) => return Err(io(err)),
    };
    let opened = file.metadata().map_err(io)?;
    if !opened.file_type().is_file() {
        return Err(not_regular(kind_of(opened.file_type())));
    }
    Ok((file, opened))
}

/// Reads `path`, which must be a regular file itself: a symbolic link (even to a regular file), a
/// FIFO or a device is refused, naming it ([`open_regular`]).
pub fn read_regular(path: &Path) -> Result<Vec<u8>, ReadError> {
    read_regular_within(path, u64::MAX).map_err(|error| match error {
        Error::NotRegular(not_regular) => ReadError::NotRegular(not_regular),
        Error::Read { path, source } => ReadError::Io { path, source },
        // Not reached: no file holds more than `u64::MAX` bytes.
        other => ReadError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        },
    })
}

/// [`read_regular`], refusing a file of more than `limit` bytes ([`Error::TooLarge`]): before
/// reading when the file system says so, else (a file growing while read, a `/proc` file) after
/// `limit + 1` bytes, so that no more than that is ever held. Its errors are
/// [`Error::NotRegular`], [`Error::TooLarge`] and [`Error::Read`].
pub fn read_regular_within(path: &Path, limit: u64) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let io = |source| Error::Read {
        path: path.to_path_buf(),
        source,
    };
    let too_large = |size| {
        Error::TooLarge(TooLarge {
            path: path.to_path_buf(),
            size,
            limit,
        })
    };
    let (file, opened) = open_regular(path)?;
    if opened.len() > limit {
        return Err(too_large(Some(opened.len())));
    }
    // The hook before the workers start: each thread's first small objects would otherwise
    // hold a whole 2 MiB huge page.
    if opened.len() >= LARGE_INPUT
        && let Some(hook) = LARGE_INPUT_HOOK.get()
    {
        hook();
    }
    crate::threads::start_for(opened.len());
    let mut bytes = Vec::with_capacity(usize::try_from(opened.len()).unwrap_or(0));
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(None));
    }
    Ok(bytes)
}

/// Writes `bytes` to `path` whole or not at all: through a temporary file beside it, synced, then
/// renamed over it. The file gets `0666` less the umask (`0644` under the usual `022`), as a file
/// any other tool writes, and as assemble and publish write theirs (a temporary file alone would
/// be `0600`).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".capkg-");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut file = builder.tempfile_in(parent)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|e| e.error)?;
    Ok(())
}
