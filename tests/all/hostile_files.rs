//! Hostile release folders and sources (issue 12): symbolic links, FIFOs, commands that hang,
//! flood or print a token, names clusterctl cannot fetch, concurrent local publishes.

#[cfg(unix)]
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Output;

use crate::common::copy_example_provider;
use crate::publish_fakes::{capkg, release_files, write_release};

const TOKEN: &str = "ghp_FAKEhostile0123456789";

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn publish_local(dir: &Path, repository: &Path) -> Output {
    capkg()
        .args(["publish", "local"])
        .arg(dir)
        .args(["--version", "v1.2.3", "--repository"])
        .arg(repository)
        .output()
        .unwrap()
}

fn assemble(project: &Path, extra: &[&str]) -> Output {
    capkg()
        .args(extra)
        .arg("assemble")
        .arg("--config")
        .arg(project.join("capkg.yaml"))
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap()
}

/// Every byte under `dir`, for "the token is nowhere" checks.
#[cfg(unix)]
fn all_bytes(dir: &Path) -> String {
    let mut all = String::new();
    for entry in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if entry.file_type().is_file() {
            all.push_str(&String::from_utf8_lossy(
                &std::fs::read(entry.path()).unwrap(),
            ));
        }
    }
    all
}

/// The example provider with `components:` replaced by `components` (YAML lines).
fn example_with_components(components: &str) -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    copy_example_provider(project.path());
    let config = std::fs::read_to_string(project.path().join("capkg.yaml")).unwrap();
    let config = config.replace(
        "components:\n  files: [config/crd, config/rbac, config/manager, config/webhook]\n",
        &format!("components:\n{components}"),
    );
    assert!(config.contains(components));
    std::fs::write(project.path().join("capkg.yaml"), config).unwrap();
    project
}

#[cfg(unix)] // symbolic links and FIFOs as Unix makes them
#[test]
fn a_symlinked_release_file_is_refused_and_its_target_never_published() {
    let root = tempfile::tempdir().unwrap();
    let secret = root.path().join("environ");
    let secret_text = format!("GITHUB_TOKEN={TOKEN}\n");
    std::fs::write(&secret, &secret_text).unwrap();
    // checksums.txt agrees with the link's target, so only the link itself can be the refusal.
    let mut files = release_files();
    files.push(("cluster-template-leak.yaml", secret_text.into_bytes()));
    let out = root.path().join("out");
    write_release(&out, &files);
    std::fs::remove_file(out.join("cluster-template-leak.yaml")).unwrap();
    symlink(&secret, out.join("cluster-template-leak.yaml")).unwrap();
    let repository = root.path().join("repo");

    let output = publish_local(&out, &repository);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(1), "{shown}");
    assert!(shown.contains("cluster-template-leak.yaml"), "{shown}");
    assert!(shown.contains("symbolic link"), "{shown}");
    assert!(!shown.contains(TOKEN));
    if repository.exists() {
        assert!(!all_bytes(&repository).contains(TOKEN));
    }

    let lint = capkg().arg("lint").arg(&out).output().unwrap();
    assert_eq!(lint.status.code(), Some(1), "{}", text(&lint));
    assert!(text(&lint).contains("cluster-template-leak.yaml"));
    assert!(!text(&lint).contains(TOKEN));
}

#[cfg(unix)] // symbolic links and FIFOs as Unix makes them
#[test]
fn a_fifo_in_a_release_folder_is_refused_without_hanging() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    write_release(&out, &release_files());
    let fifo = out.join("cluster-template-pipe.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let output = publish_local(&out, &root.path().join("repo"));
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("cluster-template-pipe.yaml is a FIFO")
            || text(&output).contains("`") && text(&output).contains("a FIFO")
    );
}

#[cfg(unix)] // symbolic links and FIFOs as Unix makes them
#[test]
fn a_symlinked_manifest_inside_the_repository_is_followed() {
    let project = tempfile::tempdir().unwrap();
    copy_example_provider(project.path());
    std::fs::create_dir_all(project.path().join("extra")).unwrap();
    std::fs::write(
        project.path().join("extra/linked.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: linked-config\n  namespace: system\n",
    )
    .unwrap();
    symlink(
        "../../extra/linked.yaml",
        project.path().join("config/rbac/linked.yaml"),
    )
    .unwrap();
    // A template reached through a link inside the repository is part of the release too.
    std::fs::rename(
        project
            .path()
            .join("templates/cluster-template-topology.yaml"),
        project.path().join("extra/topology.yaml"),
    )
    .unwrap();
    symlink(
        "../extra/topology.yaml",
        project
            .path()
            .join("templates/cluster-template-topology.yaml"),
    )
    .unwrap();
    let output = assemble(project.path(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let components =
        std::fs::read_to_string(project.path().join("out/infrastructure-components.yaml")).unwrap();
    assert!(components.contains("linked-config"));
    assert!(
        project
            .path()
            .join("out/cluster-template-topology.yaml")
            .is_file()
    );
}

#[cfg(unix)] // symbolic links and FIFOs as Unix makes them
#[test]
fn a_symlinked_source_outside_the_repository_is_an_error() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.yaml"),
        format!("token: {TOKEN}\n"),
    )
    .unwrap();
    let project = tempfile::tempdir().unwrap();
    copy_example_provider(project.path());
    symlink(
        outside.path().join("secret.yaml"),
        project.path().join("config/rbac/secret.yaml"),
    )
    .unwrap();
    let output = assemble(project.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("outside the repository"),
        "{}",
        text(&output)
    );
    assert!(!text(&output).contains(TOKEN));
    assert!(!project.path().join("out").exists());

    // The same for a template.
    let project = tempfile::tempdir().unwrap();
    copy_example_provider(project.path());
    symlink(
        outside.path().join("secret.yaml"),
        project.path().join("templates/cluster-template-leak.yaml"),
    )
    .unwrap();
    let output = assemble(project.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(text(&output).contains("cluster-template-leak.yaml"));
    assert!(!project.path().join("out").exists());
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: a command's children outlive its timeout"
)]
fn a_command_that_hangs_is_stopped_at_its_timeout() {
    let project = example_with_components("  command: \"sleep 60 & sleep 60\"\n  timeout: 1s\n");
    let started = std::time::Instant::now();
    let output = assemble(project.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("did not finish within 1s"),
        "{}",
        text(&output)
    );
    assert!(text(&output).contains("`timeout`"), "{}", text(&output));
    // Not a timing test: only "it did not wait for the sleeps".
    assert!(started.elapsed() < std::time::Duration::from_secs(50));
}

#[test]
fn a_command_that_prints_forever_is_stopped_at_its_output_limit() {
    let project = example_with_components("  command: [yes]\n  output_limit: 1MiB\n");
    let output = assemble(project.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("printed more than 1048576 bytes"),
        "{}",
        text(&output)
    );
    assert!(
        text(&output).contains("`output_limit`"),
        "{}",
        text(&output)
    );
}

#[test]
fn a_failing_command_shows_a_redacted_excerpt_of_its_stderr() {
    let project = example_with_components(
        "  command: \"head -c 3000000 /dev/zero | tr '\\\\0' x >&2; echo >&2; echo \\\"token $GITHUB_TOKEN\\\" >&2; exit 3\"\n",
    );
    for format in [&[][..], &["--format", "json"][..]] {
        let output = assemble(project.path(), format);
        let shown = text(&output);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{}",
            &shown[shown.len().saturating_sub(2000)..]
        );
        assert!(!shown.contains(TOKEN), "the token leaked");
        assert!(
            shown.contains("token [redacted]"),
            "{}",
            &shown[shown.len().saturating_sub(2000)..]
        );
        // An excerpt, not the 3 MB: at most 64 KiB and a few lines, on each stream (with
        // `--format json` the error is both the stdout document and the stderr log).
        for stream in [&output.stdout, &output.stderr] {
            assert!(
                stream.len() < 70 * 1024,
                "{} bytes on a stream",
                stream.len()
            );
        }
    }
}

#[test]
#[cfg_attr(windows, ignore = "makes file names Windows cannot hold")]
fn names_clusterctl_cannot_fetch_are_refused() {
    let project = tempfile::tempdir().unwrap();
    copy_example_provider(project.path());
    std::fs::copy(
        project.path().join("templates/cluster-template.yaml"),
        project.path().join("templates/cluster-template-a\nb.yaml"),
    )
    .unwrap();
    let output = assemble(project.path(), &[]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(text(&output).contains("a newline"), "{}", text(&output));
    assert!(!project.path().join("out").exists(), "no checksums.txt");

    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let mut files = release_files();
    files.push(("cluster-template-a#b.yaml", files[2].1.clone()));
    write_release(&out, &files);
    let lint = capkg().arg("lint").arg(&out).output().unwrap();
    assert_eq!(lint.status.code(), Some(1), "{}", text(&lint));
    assert!(
        text(&lint).contains("files/unfetchable-name"),
        "{}",
        text(&lint)
    );
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: replacing a published version folder")]
fn a_publish_while_another_holds_the_provider_folder_exits_1_and_leaves_nothing() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    write_release(&out, &release_files());
    let repository = root.path().join("repo");
    let label_dir = repository.join("infrastructure-azure");
    std::fs::create_dir_all(&label_dir).unwrap();
    // Another publish in progress holds the folder's lock.
    let held = std::fs::File::open(&label_dir).unwrap();
    held.lock().unwrap();
    let output = publish_local(&out, &repository);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("another publish of `v1.2.3`"),
        "{}",
        text(&output)
    );
    assert_eq!(std::fs::read_dir(&label_dir).unwrap().count(), 0);
    held.unlock().unwrap();
    let output = publish_local(&out, &repository);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
}

#[test]
fn two_concurrent_publishes_end_with_one_complete_folder() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    write_release(&out, &release_files());
    let repository = root.path().join("repo");
    let spawn = || {
        capkg()
            .args(["publish", "local"])
            .arg(&out)
            .args(["--version", "v1.2.3", "--repository"])
            .arg(&repository)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for output in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
        let code = output.status.code();
        assert!(code == Some(0) || code == Some(1), "{}", text(&output));
        if code == Some(1) {
            assert!(
                text(&output).contains("another publish"),
                "{}",
                text(&output)
            );
        }
    }
    let names: Vec<String> = std::fs::read_dir(repository.join("infrastructure-azure"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["v1.2.3"]);
}

#[test]
fn a_later_publish_removes_stale_staging_folders_only() {
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    write_release(&out, &release_files());
    let repository = root.path().join("repo");
    let label_dir = repository.join("infrastructure-azure");
    for name in [
        ".v1.2.3.Ab12Cd.partial",
        ".v1.2.3.Xy34Zw.old",
        ".notes",
        ".v1.2.4.Ab12Cd.partial",
    ] {
        std::fs::create_dir_all(label_dir.join(name)).unwrap();
    }
    let output = publish_local(&out, &repository);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let mut names: Vec<String> = std::fs::read_dir(&label_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, [".notes", ".v1.2.4.Ab12Cd.partial", "v1.2.3"]);
}
