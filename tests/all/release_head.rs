//! `release --version V` builds the sources where capkg.yaml is: refused when their HEAD is not
//! tagged V (a dry run warns, `--allow-untagged-head` releases them with a warning), never
//! checked on a CI tag push, and an older tag is released from a `git worktree` of it with the
//! commit built said (issue 39).

use std::path::Path;
use std::process::{Command, Output};

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n  - major: 0\n    minor: 1\n    contract: v1beta1\n";

const CONFIG: &str = "provider:\n  name: foo\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\nnamespace: capx-system\ncheck_images: false\ntargets:\n  local:\n    repository: ../repository\n";

fn components(data: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: capx-system\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-foo\ndata:\n  release: \"{data}\"\n"
    )
}

fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "capkg test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "capkg test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// `<tmp>/checkout`: v0.1.0 tagged on the first commit, and a second commit (HEAD) after it.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("checkout");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(root.join("capkg.yaml"), CONFIG).unwrap();
    std::fs::write(root.join("metadata.yaml"), METADATA).unwrap();
    std::fs::write(root.join("components.yaml"), components("v0.1.0")).unwrap();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "v0.1.0"]);
    git(&root, &["tag", "v0.1.0"]);
    std::fs::write(root.join("components.yaml"), components("main")).unwrap();
    git(&root, &["commit", "-q", "-am", "after v0.1.0"]);
    dir
}

fn release(cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_capkg"));
    command
        .current_dir(cwd)
        .arg("release")
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1");
    for variable in [
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "GITHUB_REF",
        "GITHUB_REF_NAME",
        "GITHUB_REF_TYPE",
        "CI_COMMIT_TAG",
    ] {
        command.env_remove(variable);
    }
    command.envs(env.iter().copied());
    command.output().unwrap()
}

fn said(output: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn published(dir: &Path) -> Option<String> {
    std::fs::read_to_string(
        dir.join("repository/infrastructure-foo/v0.1.0/infrastructure-components.yaml"),
    )
    .ok()
}

#[test]
fn a_version_head_is_not_tagged_with_is_refused() {
    let dir = project();
    let root = dir.path().join("checkout");
    let output = release(&root, &["--version", "v0.1.0"], &[]);
    let said = said(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    let head = git(&root, &["rev-parse", "HEAD"]);
    let tagged = git(&root, &["rev-parse", "v0.1.0^{commit}"]);
    assert!(
        said.contains("which is not tagged `v0.1.0`")
            && said.contains(&head[..12])
            && said.contains(&format!("(`v0.1.0` is commit {})", &tagged[..12])),
        "{said}"
    );
    assert!(said.contains("git worktree add"), "{said}");
    assert!(said.contains("--allow-untagged-head"), "{said}");
    assert_eq!(published(dir.path()), None, "nothing is published");
}

#[test]
fn a_dry_run_warns_about_an_untagged_head() {
    let dir = project();
    let root = dir.path().join("checkout");
    let output = release(&root, &["--version", "v0.1.0", "--dry-run"], &[]);
    let said = said(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("which is not tagged `v0.1.0`") && said.contains("a real run refuses"),
        "{said}"
    );
}

#[test]
fn allow_untagged_head_releases_head_and_names_it() {
    let dir = project();
    let root = dir.path().join("checkout");
    let output = release(
        &root,
        &["--version", "v0.1.0", "--allow-untagged-head"],
        &[],
    );
    let said = said(&output);
    assert!(output.status.success(), "{said}");
    let head = git(&root, &["rev-parse", "HEAD"]);
    assert!(
        said.contains(&format!("released from commit {}", &head[..12]))
            && said.contains("`--allow-untagged-head`"),
        "{said}"
    );
    assert!(published(dir.path()).unwrap().contains("release: \"main\""));
}

#[test]
fn a_ci_tag_push_is_not_compared_with_head() {
    // The default path: the workflow runs for the tag, whatever the checkout's tags say.
    let dir = project();
    let root = dir.path().join("checkout");
    let output = release(
        &root,
        &[],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_REF_TYPE", "tag"),
            ("GITHUB_REF_NAME", "v0.1.0"),
        ],
    );
    let said = said(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("the CI pipeline checked out the tag `v0.1.0`"),
        "{said}"
    );
    // GitLab's documented job passes the tag as `--version`: the same.
    let dir = project();
    let root = dir.path().join("checkout");
    let output = release(
        &root,
        &["--version", "v0.1.0"],
        &[("GITLAB_CI", "true"), ("CI_COMMIT_TAG", "v0.1.0")],
    );
    assert!(output.status.success(), "{}", self::said(&output));
}

#[test]
fn an_older_tag_is_released_from_a_worktree_of_it() {
    let dir = project();
    let root = dir.path().join("checkout");
    let worktree = dir.path().join("v0.1.0");
    git(
        &root,
        &[
            "worktree",
            "add",
            "-q",
            worktree.to_str().unwrap(),
            "v0.1.0",
        ],
    );
    // From the main checkout, with `--config` naming the worktree's capkg.yaml.
    let output = release(
        &root,
        &[
            "--config",
            worktree.join("capkg.yaml").to_str().unwrap(),
            "--version",
            "v0.1.0",
        ],
        &[],
    );
    let said = said(&output);
    assert!(output.status.success(), "{said}");
    let tagged = git(&root, &["rev-parse", "v0.1.0^{commit}"]);
    assert!(
        said.contains(&format!(
            "the sources built are the checkout `{}` at commit {} (tagged v0.1.0), not the current folder's",
            worktree.canonicalize().unwrap().display(),
            &tagged[..12]
        )),
        "{said}"
    );
    assert!(said.contains("ok sources: commit"), "{said}");
    // The worktree's repository is `../repository` from it: the tag's sources were released.
    let released = std::fs::read_to_string(
        dir.path()
            .join("repository/infrastructure-foo/v0.1.0/infrastructure-components.yaml"),
    )
    .unwrap();
    assert!(released.contains("release: \"v0.1.0\""), "{released}");
}

/// `version:` in capkg.yaml is the checkout's own version (the README's example provider is
/// released from capkg's own untagged checkout): the commit is said, nothing refused.
#[test]
fn a_version_from_capkg_yaml_releases_the_checkout_and_says_its_commit() {
    let dir = project();
    let root = dir.path().join("checkout");
    let config = format!("version: v0.1.0\n{CONFIG}");
    std::fs::write(root.join("capkg.yaml"), config).unwrap();
    git(&root, &["commit", "-q", "-am", "version: in capkg.yaml"]);
    let output = release(&root, &[], &[]);
    let said = said(&output);
    assert!(output.status.success(), "{said}");
    let head = git(&root, &["rev-parse", "HEAD"]);
    assert!(
        said.contains(&format!("commit {} is not tagged `v0.1.0`", &head[..12]))
            && said.contains("`--version v0.1.0` would refuse it"),
        "{said}"
    );
    assert!(published(dir.path()).is_some_and(|c| c.contains("release: \"main\"")));
}
