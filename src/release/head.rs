//! Which sources a release builds: the commit checked out where capkg.yaml is, and whether the
//! version being released is a tag of that commit.
//!
//! `release --version v1.2.0` builds whatever the configuration's checkout holds: run from a
//! branch, or with `--config` pointing at another checkout, that is not `v1.2.0`'s sources. So a
//! real release refuses when HEAD of that checkout is not tagged with the version
//! (`--allow-untagged-head` releases it anyway, with a warning naming the commit); a dry run
//! warns. A version from `version:` in capkg.yaml is the checkout's own (an example, a pinned
//! development build): the commit is said, not refused. On a CI tag push the pipeline checked the tag out itself, so the
//! version from `GITHUB_REF_NAME`/`CI_COMMIT_TAG` (or `--version` equal to it) is not checked:
//! the default path stays green even in a checkout without tags. The commit built is said
//! whenever the configuration's checkout is another than the current folder's.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;

use super::Error;
use crate::settings::ResolvedVersion;

/// What the check of HEAD found, as the release's JSON shows it (`checks.head`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub(crate) struct HeadCheck {
    /// False when it was not run (see `note`).
    pub checked: bool,
    /// The commit built (HEAD of the configuration's checkout).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The tags at that commit.
    pub tags: Vec<String>,
    /// The top folder of the configuration's checkout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checkout: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// HEAD of the checkout around `root` against `version`: what was found, what to warn about,
/// and the refusal a real run stops with (`allow_untagged` turns it into a warning).
pub(crate) fn check(
    root: &Path,
    version: &ResolvedVersion,
    allow_untagged: bool,
) -> (HeadCheck, Vec<String>, Option<Error>) {
    let tag = version.version.to_string();
    let Some(checkout) = Checkout::at(root) else {
        let note = format!(
            "`{}` is not in a git work tree (or git cannot read it): the commit built is not known",
            root.display()
        );
        return (
            HeadCheck {
                note: Some(note),
                ..HeadCheck::default()
            },
            Vec::new(),
            None,
        );
    };
    let mut warnings = Vec::new();
    let commit = short(&checkout.commit);
    let elsewhere = Checkout::at(Path::new("."))
        .is_none_or(|here| here.top != checkout.top)
        .then(|| {
            format!(
                "the sources built are the checkout `{}` at commit {commit}{}, not the current folder's",
                checkout.top.display(),
                tagged(&checkout.tags)
            )
        });
    warnings.extend(elsewhere);
    let mut found = HeadCheck {
        checked: true,
        commit: Some(checkout.commit.clone()),
        tags: checkout.tags.clone(),
        checkout: Some(checkout.top.clone()),
        note: None,
    };
    if version.from_ci_tag {
        found.checked = false;
        found.note = Some(format!(
            "the CI pipeline checked out the tag `{tag}` ({}): HEAD is not compared with it",
            version.source
        ));
        return (found, warnings, None);
    }
    if checkout.tags.contains(&tag) {
        return (found, warnings, None);
    }
    // `version:` in capkg.yaml names the version of the checkout as it is (a repository's own
    // example, a pinned development build): said, not refused; `--version` asks for a tag.
    if version.source == crate::settings::version::CONFIG_SOURCE {
        found.note = Some(format!(
            "commit {commit}{} is not tagged `{tag}`: `version:` in capkg.yaml releases the checkout as it is (`--version {tag}` would refuse it)",
            tagged(&checkout.tags)
        ));
        return (found, warnings, None);
    }
    let refusal = Error::HeadNotTagged(Box::new(UntaggedHead {
        version: tag.clone(),
        origin: version.source.clone(),
        checkout: checkout.top.clone(),
        commit: commit.to_string(),
        at_head: tagged(&checkout.tags),
        tag_is: checkout.commit_of(&tag).map(|c| short(&c).to_string()),
    }));
    if allow_untagged {
        warnings.push(format!(
            "`{tag}` is released from commit {commit} of `{}`{}, which is not tagged `{tag}` (`--allow-untagged-head`)",
            checkout.top.display(),
            tagged(&checkout.tags)
        ));
        return (found, warnings, None);
    }
    (found, warnings, Some(refusal))
}

/// A version to be released from a HEAD not tagged with it: what the refusal says.
#[derive(Debug)]
pub(crate) struct UntaggedHead {
    pub version: String,
    /// Where the version came from (`--version`, `version: in capkg.yaml`).
    pub origin: String,
    pub checkout: PathBuf,
    /// HEAD, shortened.
    pub commit: String,
    /// ` (tagged …)`, or empty.
    pub at_head: String,
    /// The commit the tag names, where the checkout has the tag.
    pub tag_is: Option<String>,
}

impl std::fmt::Display for UntaggedHead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let version = &self.version;
        write!(
            f,
            "`{version}` ({}) would be released from `{}` at commit {}{}, which is not tagged `{version}` ",
            self.origin,
            self.checkout.display(),
            self.commit,
            self.at_head
        )?;
        match &self.tag_is {
            Some(commit) => write!(f, "(`{version}` is commit {commit})"),
            None => write!(f, "(no tag `{version}` in this checkout)"),
        }
    }
}

/// ` (tagged v1, v2)`, or nothing.
fn tagged(tags: &[String]) -> String {
    match tags {
        [] => String::new(),
        tags => format!(" (tagged {})", tags.join(", ")),
    }
}

fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// A git work tree as far as the check needs it.
struct Checkout {
    top: PathBuf,
    commit: String,
    tags: Vec<String>,
}

impl Checkout {
    /// The work tree around `dir`; `None` outside one, without git, or without a commit.
    fn at(dir: &Path) -> Option<Checkout> {
        let top = git(dir, &["rev-parse", "--show-toplevel"])?;
        let commit = git(dir, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])?;
        let tags = git(dir, &["tag", "--points-at", "HEAD"]).unwrap_or_default();
        let top = PathBuf::from(top);
        Some(Checkout {
            top: top.canonicalize().unwrap_or(top),
            commit,
            tags: tags.lines().map(str::trim).map(str::to_string).collect(),
        })
    }

    /// The commit `tag` names in this checkout, where it exists.
    fn commit_of(&self, tag: &str) -> Option<String> {
        let reference = format!("refs/tags/{tag}^{{commit}}");
        git(&self.top, &["rev-parse", "--verify", "--quiet", &reference])
    }
}

/// git's trimmed output, `None` when it fails or says nothing.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
    (output.status.success() && !text.is_empty()).then_some(text)
}
