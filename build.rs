//! Embeds the commit capkg's release tag `v{version}` names, when the build can know it, as
//! `CAPKG_RELEASE_COMMIT`: `capkg init` then pins capkg's GitHub Action by that commit in the
//! workflow it writes, as Dependabot and Renovate keep pins (src/init/render.rs).
//! A future release's commit is unknown to the code, only to the build of that release:
//! - GitHub Actions building the tag `v{version}` of capkg/capkg (`GITHUB_REF`, `GITHUB_SHA`);
//! - a git checkout holding the tag `v{version}` (the commit it names, wherever HEAD is);
//! - a crates.io package of the version (`.cargo_vcs_info.json`, which `cargo publish` writes
//!   from a clean checkout).
//!
//! Otherwise nothing is embedded and the workflow names the tag, with how to pin it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let version = format!(
        "v{}",
        std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
    );
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    println!("cargo:rerun-if-changed=build.rs");
    for name in ["GITHUB_REF", "GITHUB_SHA", "GITHUB_REPOSITORY"] {
        println!("cargo:rerun-if-env-changed={name}");
    }
    let commit = from_github_actions(&version)
        .or_else(|| from_git(&dir, &version))
        .or_else(|| from_package(&dir));
    if let Some(commit) = commit.filter(|c| is_commit(c)) {
        println!("cargo:rustc-env=CAPKG_RELEASE_COMMIT={commit}");
    }
}

fn is_commit(text: &str) -> bool {
    text.len() == 40
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// capkg's own release job: a push of the tag in capkg/capkg.
fn from_github_actions(version: &str) -> Option<String> {
    let var = |name| std::env::var(name).ok();
    (var("GITHUB_REPOSITORY")?.eq_ignore_ascii_case("capkg/capkg")
        && var("GITHUB_REF")? == format!("refs/tags/{version}"))
    .then(|| var("GITHUB_SHA"))?
}

/// The commit the checkout's tag names; the tags are watched, so a tag fetched later counts.
fn from_git(dir: &Path, version: &str) -> Option<String> {
    let git = |args: &[&str]| {
        let output = Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()?;
        output
            .status
            .success()
            .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
    };
    // Only paths that exist: cargo reruns the script on every build for a missing one.
    for watched in ["refs/tags", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", watched]) {
            let path = dir.join(path);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    git(&[
        "rev-parse",
        "--verify",
        "--quiet",
        &format!("refs/tags/{version}^{{commit}}"),
    ])
}

/// `{"git": {"sha1": "…"}}` of a package made from a clean checkout (`"dirty": true` otherwise).
fn from_package(dir: &Path) -> Option<String> {
    let path = dir.join(".cargo_vcs_info.json");
    if !path.exists() {
        return None;
    }
    println!("cargo:rerun-if-changed={}", path.display());
    let text = std::fs::read_to_string(path).ok()?;
    if text.contains("\"dirty\": true") || text.contains("\"dirty\":true") {
        return None;
    }
    let rest = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let rest = &rest[rest.find('"')? + 1..];
    Some(rest[..rest.find('"')?].to_string())
}
