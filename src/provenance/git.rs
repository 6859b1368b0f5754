//! What the checkout says about the build (its commit, its `origin`, where capkg.yaml sits in it)
//! and a copy of one commit for `verify --rebuild`, made without touching the checkout it came
//! from. git is run as a program, as the tag check runs it.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::Source;

/// Runs git in `dir`; its trimmed standard output when it succeeds.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| format!("git could not be run ({e})"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let first = stderr.lines().next().unwrap_or("").trim();
        return Err(format!(
            "`git {}` failed: {:?}",
            args.join(" "),
            first
                .trim_start_matches("fatal: ")
                .trim_start_matches("error: ")
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// The commit checked out in `dir`, its `origin` remote (credentials removed), and
/// `refs/tags/{tag}` when that tag names the commit; `None` where `dir` is not in a git work
/// tree.
pub(crate) fn checkout_source(dir: &Path, tag: &str) -> Option<Source> {
    let commit = git(dir, &["rev-parse", "--verify", "HEAD"]).ok()?;
    let tag_ref = format!("refs/tags/{tag}");
    let reference = git(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{tag_ref}^{{commit}}"),
        ],
    )
    .ok()
    .filter(|tagged| *tagged == commit)
    .map(|_| tag_ref);
    let repository = git(dir, &["remote", "get-url", "origin"])
        .ok()
        .map(|url| without_credentials(&url));
    Some(Source {
        repository,
        reference,
        commit: Some(commit),
    })
}

/// `file` (in a work tree) as a path from the repository's root, with `/`.
pub(crate) fn path_in_repository(file: &Path) -> Option<String> {
    let dir = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let prefix = git(dir, &["rev-parse", "--show-prefix"]).ok()?;
    let name = file.file_name()?.to_str()?;
    Some(format!("{prefix}{name}"))
}

/// A URL as it may be published: without the `user:token@` some checkouts keep in `origin`.
fn without_credentials(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    match rest.get(..host_end).and_then(|host| host.rfind('@')) {
        Some(at) => format!("{scheme}://{}", rest.get(at + 1..).unwrap_or_default()),
        None => url.to_string(),
    }
}

/// A copy of `repository` at `commit` in a new temporary folder: a clone that shares the
/// repository's objects (nothing is written into the repository), with the commit checked out.
pub(crate) fn checkout_copy(repository: &Path, commit: &str) -> Result<CommitCopy, String> {
    if commit.is_empty() || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{commit}` is not a commit id"));
    }
    let folder = tempfile::Builder::new()
        .prefix("capkg-rebuild-")
        .tempdir()
        .map_err(|e| format!("cannot make a temporary folder ({e})"))?;
    let tree = folder.path().join("source");
    let tree_text = tree.to_string_lossy().into_owned();
    let from = repository.to_string_lossy().into_owned();
    git(
        Path::new("."),
        &[
            "clone",
            "--quiet",
            "--shared",
            "--no-checkout",
            &from,
            &tree_text,
        ],
    )?;
    git(&tree, &["checkout", "--quiet", "--detach", commit])?;
    Ok(CommitCopy {
        tree,
        _folder: folder,
    })
}

/// A checked-out copy, removed when dropped.
#[derive(Debug)]
pub(crate) struct CommitCopy {
    pub tree: PathBuf,
    _folder: tempfile::TempDir,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_taken_out_of_remote_urls() {
        assert_eq!(
            without_credentials("https://x-access-token:secret@github.com/o/r.git"),
            "https://github.com/o/r.git"
        );
        assert_eq!(
            without_credentials("https://github.com/o/r"),
            "https://github.com/o/r"
        );
        assert_eq!(
            without_credentials("git@github.com:o/r.git"),
            "git@github.com:o/r.git"
        );
    }

    #[test]
    fn a_commit_is_copied_without_touching_the_checkout() {
        let repo = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let status = Command::new("git")
                .arg("-C")
                .arg(repo.path())
                .args(args)
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@t.invalid")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@t.invalid")
                .status()
                .unwrap();
            assert!(status.success());
        };
        run(&["init", "--quiet"]);
        std::fs::create_dir(repo.path().join("deploy")).unwrap();
        std::fs::write(repo.path().join("deploy/capkg.yaml"), "first\n").unwrap();
        run(&["add", "."]);
        run(&["commit", "--quiet", "-m", "one"]);
        run(&["tag", "v1.0.0"]);
        let source = checkout_source(repo.path(), "v1.0.0").unwrap();
        assert_eq!(source.reference.as_deref(), Some("refs/tags/v1.0.0"));
        let first = source.commit.unwrap();
        std::fs::write(repo.path().join("deploy/capkg.yaml"), "second\n").unwrap();
        run(&["commit", "--quiet", "-am", "two"]);
        // The tag no longer names the commit checked out.
        assert_eq!(
            checkout_source(repo.path(), "v1.0.0").unwrap().reference,
            None
        );
        assert_eq!(
            path_in_repository(&repo.path().join("deploy/capkg.yaml")).as_deref(),
            Some("deploy/capkg.yaml")
        );

        let copy = checkout_copy(repo.path(), &first).unwrap();
        assert_eq!(
            std::fs::read_to_string(copy.tree.join("deploy/capkg.yaml")).unwrap(),
            "first\n"
        );
        // The checkout keeps its files and its single work tree.
        assert_eq!(
            std::fs::read_to_string(repo.path().join("deploy/capkg.yaml")).unwrap(),
            "second\n"
        );
        assert_eq!(
            git(repo.path(), &["worktree", "list"])
                .unwrap()
                .lines()
                .count(),
            1
        );
        assert!(checkout_copy(repo.path(), "--upload-pack=x").is_err());
    }
}
