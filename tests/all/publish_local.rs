//! `capkg publish local`: the clusterctl local repository layout, atomic writes (a child process
//! killed mid-way leaves no partial version folder), idempotent re-runs, and the clusterctl
//! configuration it prints.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use crate::publish_fakes::{
    COMPONENTS, METADATA, capkg, release_dir, release_files, write_release,
};
use serde_json::Value;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

fn finish(output: Output) -> Run {
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn publish(dir: &Path, repository: &Path, version: &str, args: &[&str]) -> Run {
    let output = capkg()
        .args(["--format", "json", "publish", "local"])
        .arg(dir)
        .args(["--version", version, "--repository"])
        .arg(repository)
        .args(args)
        .output()
        .unwrap();
    finish(output)
}

fn assert_ok(run: &Run) {
    assert_eq!(
        run.code, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
}

/// The names in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The version folder is absent (`false`) or holds exactly the release's files (`true`).
fn none_or_complete(version_dir: &Path, release: &Path) -> bool {
    if !version_dir.exists() {
        return false;
    }
    assert_eq!(
        names(version_dir),
        names(release),
        "a partial version folder"
    );
    for name in names(release) {
        assert_eq!(
            std::fs::read(version_dir.join(&name)).unwrap(),
            std::fs::read(release.join(&name)).unwrap(),
            "{name} differs"
        );
    }
    true
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn writes_the_layout_clusterctl_reads_and_prints_its_configuration() {
    let (root, dir) = release_dir();
    let repo = root.path().join("repo");
    let run = publish(&dir, &repo, "v1.2.3", &[]);
    assert_ok(&run);
    let version_dir = repo.join("infrastructure-azure/v1.2.3");
    assert!(none_or_complete(&version_dir, &dir));
    assert_eq!(
        names(&repo.join("infrastructure-azure")),
        ["v1.2.3"],
        "no staging folder left"
    );

    let json = run.json();
    assert_eq!(json["target"], "local");
    assert_eq!(json["verified"], true);
    let url = format!(
        "file://{}/infrastructure-components.yaml",
        version_dir.display()
    );
    assert_eq!(json["clusterctl_url"], url);
    assert_eq!(
        json["clusterctl_config"],
        format!(
            "providers:\n  - name: \"azure\"\n    url: \"{url}\"\n    type: \"InfrastructureProvider\"\n"
        )
    );
    assert!(
        json["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["outcome"] == "uploaded")
    );
}

#[test]
fn human_output_is_the_clusterctl_configuration() {
    let (root, dir) = release_dir();
    let repo = root.path().join("repo");
    let output = capkg()
        .args(["publish", "local"])
        .arg(&dir)
        .args(["--version", "v1.2.3", "--repository"])
        .arg(&repo)
        .output()
        .unwrap();
    let run = finish(output);
    assert_ok(&run);
    assert!(
        run.stdout
            .contains("clusterctl configuration:\nproviders:\n  - name: \"azure\""),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("4 uploaded, 0 replaced, 0 skipped"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_relative_repository_path_is_made_absolute() {
    let (root, dir) = release_dir();
    let output = capkg()
        .current_dir(root.path())
        .args(["--format", "json", "publish", "local"])
        .arg(&dir)
        .args(["--version", "v1.2.3", "--repository", "repo"])
        .output()
        .unwrap();
    let run = finish(output);
    assert_ok(&run);
    let url = run.json()["clusterctl_url"].as_str().unwrap().to_string();
    assert!(url.starts_with("file:///"), "{url}");
    assert!(
        url.ends_with("/repo/infrastructure-azure/v1.2.3/infrastructure-components.yaml"),
        "{url}"
    );
}

#[test]
fn an_identical_existing_version_is_a_no_op() {
    let (root, dir) = release_dir();
    let repo = root.path().join("repo");
    assert_ok(&publish(&dir, &repo, "v1.2.3", &[]));
    let file = repo.join("infrastructure-azure/v1.2.3/metadata.yaml");
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    let run = publish(&dir, &repo, "v1.2.3", &[]);
    assert_ok(&run);
    assert!(
        run.json()["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["outcome"] == "skipped")
    );
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        before,
        "not rewritten"
    );
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: replacing a published version folder")]
fn a_different_existing_version_needs_force() {
    let (root, dir) = release_dir();
    let repo = root.path().join("repo");
    assert_ok(&publish(&dir, &repo, "v1.2.3", &[]));
    let mut files = release_files();
    files[1].1 = format!("{METADATA}# changed\n").into_bytes();
    let changed = root.path().join("changed");
    write_release(&changed, &files);

    let run = publish(&changed, &repo, "v1.2.3", &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("`metadata.yaml` differs"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert!(
        none_or_complete(&repo.join("infrastructure-azure/v1.2.3"), &dir),
        "untouched"
    );

    let run = publish(&changed, &repo, "v1.2.3", &["--force"]);
    assert_ok(&run);
    assert!(none_or_complete(
        &repo.join("infrastructure-azure/v1.2.3"),
        &changed
    ));
    assert_eq!(names(&repo.join("infrastructure-azure")), ["v1.2.3"]);
    let outcomes: Vec<String> = run.json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {}",
                f["name"].as_str().unwrap(),
                f["outcome"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        outcomes.contains(&"metadata.yaml replaced".to_string()),
        "{outcomes:?}"
    );
    assert!(
        outcomes.contains(&"cluster-template.yaml skipped".to_string()),
        "{outcomes:?}"
    );
}

#[test]
fn a_version_without_v_is_refused() {
    let (root, dir) = release_dir();
    let run = publish(&dir, &root.path().join("repo"), "1.2.3", &[]);
    // A bad argument, as `--version v1.2` is (exit 2).
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("`--version v1.2.3`"), "{}", run.stderr);
    assert!(!root.path().join("repo").exists());
}

#[test]
fn overrides_print_the_layout_clusterctl_reads() {
    let (root, dir) = release_dir();
    let overrides = root.path().join("overrides");
    let run = publish(
        &dir,
        &root.path().join("repo"),
        "v1.2.3",
        &["--overrides", overrides.to_str().unwrap()],
    );
    assert_ok(&run);
    let json = run.json();
    assert_eq!(json["overrides"]["folder"], overrides.display().to_string());
    let files: Vec<PathBuf> = json["overrides"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| PathBuf::from(f.as_str().unwrap()))
        .collect();
    assert!(
        files.contains(
            &overrides.join("infrastructure-azure/v1.2.3/infrastructure-components.yaml")
        )
    );
    assert_eq!(files.len(), 4);
    assert!(
        json["clusterctl_config"]
            .as_str()
            .unwrap()
            .contains(&format!("overridesFolder: \"{}\"", overrides.display()))
    );
}

#[test]
fn files_that_do_not_match_checksums_are_not_published() {
    let (root, dir) = release_dir();
    std::fs::write(dir.join("metadata.yaml"), "tampered").unwrap();
    let repo = root.path().join("repo");
    let run = publish(&dir, &repo, "v1.2.3", &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`metadata.yaml` does not match `checksums.txt`"),
        "{}",
        run.stderr
    );
    assert!(!repo.exists());
}

#[test]
fn the_provider_comes_from_flags_when_labels_do_not_name_it() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("out");
    write_release(
        &dir,
        &[
            (
                "bootstrap-components.yaml",
                b"kind: Namespace\nmetadata:\n  name: x\n".to_vec(),
            ),
            ("metadata.yaml", METADATA.as_bytes().to_vec()),
        ],
    );
    let repo = root.path().join("repo");
    let run = publish(&dir, &repo, "v0.1.0", &[]);
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("pass `--provider NAME`"),
        "{}",
        run.stderr
    );
    let run = publish(&dir, &repo, "v0.1.0", &["--provider", "talos"]);
    assert_ok(&run);
    assert!(
        repo.join("bootstrap-talos/v0.1.0/bootstrap-components.yaml")
            .is_file()
    );
    let run = publish(
        &dir,
        &repo,
        "v0.1.0",
        &["--provider", "talos", "--type", "infrastructure"],
    );
    assert_eq!(run.code, 1);
    assert!(
        run.stderr
            .contains("`--type infrastructure` does not match"),
        "{}",
        run.stderr
    );
}

#[test]
fn dry_run_touches_nothing() {
    let (root, dir) = release_dir();
    let repo = root.path().join("repo");
    let run = publish(&dir, &repo, "v1.2.3", &["--dry-run"]);
    assert_ok(&run);
    let json = run.json();
    assert_eq!(json["dry_run"], true);
    assert!(
        json["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["action"] == "upload")
    );
    assert!(!repo.exists());
}

/// Many files of some size, so that a kill lands while the staging folder is being written or
/// read back.
fn big_release(root: &Path) -> PathBuf {
    let dir = root.join("big");
    let mut files = vec![
        (
            "infrastructure-components.yaml".to_string(),
            COMPONENTS.as_bytes().to_vec(),
        ),
        ("metadata.yaml".to_string(), METADATA.as_bytes().to_vec()),
    ];
    for i in 0..40 {
        let line = format!("# filler line for template {i}, to make the file bigger\n");
        files.push((
            format!("cluster-template-f{i:02}.yaml"),
            line.repeat(2000).into_bytes(),
        ));
    }
    let refs: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, c)| (n.as_str(), c.clone())).collect();
    write_release(&dir, &refs);
    dir
}

#[test]
fn a_publish_killed_at_any_point_leaves_no_partial_version_folder() {
    let root = tempfile::tempdir().unwrap();
    let dir = big_release(root.path());
    let mut killed_before_rename = 0;
    // Kill right after these progress lines: early and late in the writing, during the read-back.
    let kill_points = [
        "uploading cluster-template-f00.yaml",
        "uploaded cluster-template-f05.yaml",
        "uploaded cluster-template-f30.yaml",
        "verified cluster-template-f00.yaml",
        "verified metadata.yaml",
    ];
    for (round, kill_after) in kill_points.iter().enumerate() {
        let repo = root.path().join(format!("repo{round}"));
        let mut child = capkg()
            .args(["publish", "local"])
            .arg(&dir)
            .args(["--version", "v1.2.3", "--repository"])
            .arg(&repo)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap());
        let mut seen = Vec::new();
        loop {
            let mut line = String::new();
            if lines.read_line(&mut line).unwrap() == 0 {
                break;
            }
            let line = line.trim_end().to_string();
            let hit = line == *kill_after || line.starts_with(&format!("{kill_after} ("));
            seen.push(line);
            if hit {
                child.kill().unwrap();
                break;
            }
        }
        let status = child.wait().unwrap();
        assert!(
            seen.iter().any(|l| l.starts_with(kill_after)),
            "never saw `{kill_after}`: {seen:?}"
        );
        let version_dir = repo.join("infrastructure-azure/v1.2.3");
        if !none_or_complete(&version_dir, &dir) {
            killed_before_rename += 1;
            assert!(!status.success());
        }
        // Whatever the kill left, publishing again completes the release.
        let run = publish(&dir, &repo, "v1.2.3", &[]);
        assert_ok(&run);
        assert!(none_or_complete(&version_dir, &dir));
        let visible: Vec<String> = names(&repo.join("infrastructure-azure"))
            .into_iter()
            .filter(|n| !n.starts_with('.'))
            .collect();
        assert_eq!(
            visible,
            ["v1.2.3"],
            "only hidden staging folders may be left"
        );
    }
    eprintln!(
        "kills before the rename: {killed_before_rename} of {}",
        kill_points.len()
    );
    assert!(killed_before_rename > 0, "no kill landed before the rename");
}

#[test]
fn files_that_are_not_release_files_are_named_and_not_published() {
    let (root, dir) = release_dir();
    std::fs::write(dir.join("README.md"), "notes").unwrap();
    let repo = root.path().join("repo");
    let run = publish(&dir, &repo, "v1.2.3", &[]);
    assert_ok(&run);
    assert!(
        run.json()["warnings"].to_string().contains("`README.md`"),
        "{}",
        run.stdout
    );
    assert!(!repo.join("infrastructure-azure/v1.2.3/README.md").exists());
}
