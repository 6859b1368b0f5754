//! Running a components command: in the repository, in its own process group, its standard
//! output read up to a bound and its standard error's end kept, stopped with its children at the
//! timeout or when it writes too much.

use std::io::Read;
use std::path::Path;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::{ComponentsText, STDERR_EXCERPT, SourceError, dir_or_dot};
use crate::config::{Command, CommandLimits};

pub(super) fn run(
    command: &Command,
    limits: &CommandLimits,
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
    let dir = dir_or_dot(root);
    // Its own process group, so that a timeout stops what it started too (`sh -c` children,
    // `make` recipes).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut process, 0);
    let mut child = process
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| SourceError::Spawn {
            command: shown.clone(),
            dir: dir.to_path_buf(),
            source,
        })?;
    let overflow = Arc::new(AtomicBool::new(false));
    let readers_done = Arc::new(AtomicUsize::new(0));
    let stdout_reader = child.stdout.take().map(|pipe| {
        let overflow = overflow.clone();
        let done = readers_done.clone();
        let limit = limits.output_limit;
        std::thread::spawn(move || {
            let bytes = read_limited(pipe, limit, &overflow);
            done.fetch_add(1, Ordering::SeqCst);
            bytes
        })
    });
    let stderr_reader = child.stderr.take().map(|pipe| {
        let done = readers_done.clone();
        std::thread::spawn(move || {
            let excerpt = stderr_excerpt(pipe, STDERR_EXCERPT);
            done.fetch_add(1, Ordering::SeqCst);
            excerpt
        })
    });
    let readers = usize::from(stdout_reader.is_some()) + usize::from(stderr_reader.is_some());
    let deadline = Instant::now() + limits.timeout;
    let mut status = None;
    let stopped = loop {
        if status.is_none() {
            status = child.try_wait().map_err(|source| SourceError::Spawn {
                command: shown.clone(),
                dir: dir.to_path_buf(),
                source,
            })?;
        }
        if overflow.load(Ordering::SeqCst) {
            break Some(Stop::Overflow);
        }
        // Done when the command exited and its output is read to the end (a background child
        // still holding the pipes counts as still running).
        if status.is_some() && readers_done.load(Ordering::SeqCst) == readers {
            break None;
        }
        let now = Instant::now();
        if now >= deadline {
            break Some(Stop::Timeout);
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(10)));
    };
    if stopped.is_some() {
        kill_group(&mut child);
        let _ = child.wait();
    }
    let stdout = stdout_reader
        .map(|reader| reader.join().unwrap_or_default())
        .unwrap_or_default();
    let stderr = stderr_reader
        .map(|reader| reader.join().unwrap_or_default())
        .unwrap_or_default();
    match stopped {
        Some(Stop::Overflow) => {
            return Err(SourceError::CommandOutputTooLarge {
                command: shown,
                limit: limits.output_limit,
            });
        }
        Some(Stop::Timeout) => {
            return Err(SourceError::CommandTimedOut {
                command: shown,
                timeout: limits.timeout,
                stderr,
            });
        }
        None => {}
    }
    let status = status.ok_or_else(|| SourceError::Spawn {
        command: shown.clone(),
        dir: dir.to_path_buf(),
        source: std::io::Error::other("the command's exit status is unknown"),
    })?;
    if !status.success() {
        return Err(SourceError::CommandFailed {
            command: shown,
            status: status.to_string(),
            stderr,
        });
    }
    let text = String::from_utf8(stdout).map_err(|_| SourceError::CommandOutputNotText {
        command: shown.clone(),
    })?;
    if text.trim().is_empty() {
        return Err(SourceError::CommandOutputEmpty { command: shown });
    }
    Ok(ComponentsText::whole(format!("`{shown}`"), text))
}

/// Why a command was stopped.
enum Stop {
    Timeout,
    Overflow,
}

/// Reads a pipe to its end, keeping at most `limit` bytes; sets `overflow` and stops reading when
/// there is more.
fn read_limited(mut pipe: impl Read, limit: u64, overflow: &AtomicBool) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buffer) {
            Ok(0) => return bytes,
            Ok(n) => {
                if bytes.len() as u64 + n as u64 > limit {
                    overflow.store(true, Ordering::SeqCst);
                    return bytes;
                }
                bytes.extend_from_slice(&buffer[..n]);
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return bytes,
        }
    }
}

/// The end of a command's standard error as its error shows it: at most `keep` bytes, every
/// known secret removed before anything is cut, so no cut can split a token and leave part of it.
fn stderr_excerpt(pipe: impl Read, keep: usize) -> String {
    // Read with room to spare: the reading may cut through a token at the window's start, and
    // that start is dropped after redaction (which removes every whole token) and before the
    // excerpt is cut (which then only cuts redacted text).
    let spare = keep;
    let (raw, cut) = read_tail(pipe, keep + spare);
    let mut text = crate::forge::secret::redact(&String::from_utf8_lossy(&raw));
    if cut {
        let mut through = text
            .bytes()
            .take(spare)
            .position(|b| b == b'\n')
            .map_or(spare.min(text.len()), |newline| newline + 1);
        while !text.is_char_boundary(through) {
            through += 1;
        }
        text.drain(..through);
    }
    if text.len() <= keep {
        return text;
    }
    let mut start = text.len() - keep;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let tail = &text[start..];
    // From a line's start when one starts in the first half.
    match tail[..tail.len() / 2].find('\n') {
        Some(newline) => tail[newline + 1..].to_string(),
        None => tail.to_string(),
    }
}

/// Reads a pipe to its end, keeping only its last `keep` bytes; `true` when some were dropped.
fn read_tail(mut pipe: impl Read, keep: usize) -> (Vec<u8>, bool) {
    let mut tail: Vec<u8> = Vec::new();
    let mut buffer = vec![0u8; 64 * 1024];
    let mut cut = false;
    loop {
        match pipe.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                tail.extend_from_slice(&buffer[..n]);
                if tail.len() > 2 * keep {
                    tail.drain(..tail.len() - keep);
                    cut = true;
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    if tail.len() > keep {
        tail.drain(..tail.len() - keep);
        cut = true;
    }
    (tail, cut)
}

/// Stops a command and every process in its group.
#[allow(unsafe_code)] // killpg: the standard library kills one process, not a group
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: killpg only sends a signal; the group id is the child's own pid, set by
        // `process_group(0)` at spawn, and the child is not yet reaped, so the id is not reused.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
        return;
    }
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_keeps_its_last_lines() {
        let text: Vec<u8> = (0..100_000)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        let tail = stderr_excerpt(&text[..], STDERR_EXCERPT);
        assert!(tail.len() <= STDERR_EXCERPT);
        assert!(tail.ends_with("line 99999\n"));
        assert!(tail.starts_with("line "));
        assert_eq!(stderr_excerpt(&b"short"[..], STDERR_EXCERPT), "short");
    }

    #[test]
    fn no_cut_leaves_part_of_a_token() {
        let token = "ghp_CUTsplit0123456789abcdef";
        let _ = crate::forge::secret::Secret::new(token);
        // The token four characters before the excerpt's start, then on one long line, in
        // several places relative to the cut.
        for before_cut in [1, 4, token.len() - 1] {
            for keep in [64usize, 100, 4096] {
                let mut text = "x".repeat(3 * keep).into_bytes();
                text.extend_from_slice(token.as_bytes());
                text.extend(std::iter::repeat_n(b'y', keep - (token.len() - before_cut)));
                let excerpt = stderr_excerpt(&text[..], keep);
                assert!(excerpt.len() <= keep, "{}", excerpt.len());
                assert!(
                    !excerpt.contains(&token[before_cut..]),
                    "{before_cut} {keep}: {excerpt}"
                );
            }
        }
    }
}
