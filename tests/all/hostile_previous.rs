//! A previous release on this machine is input like a download (issue 36): the local repository
//! `release` compares with, a `file://` URL and a folder `capkg diff` or `--previous` names are
//! read as regular files only, never through a link, and no more than `--max-download`. Every
//! run is stopped after a minute (a FIFO would hang it), so a hang fails the test, not the suite.

#[cfg(unix)]
use std::os::unix::fs::symlink;
#[cfg(unix)]
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use crate::publish_fakes::{COMPONENTS, METADATA, capkg};
#[cfg(unix)]
use crate::release_common::{Provider, release};

/// In capkg's environment: what a link to `/proc/self/environ` would read.
const SECRET: &str = "capkg-hostile-previous-0123456789";

fn bounded(command: Command) -> Output {
    let mut command = assert_cmd::Command::from_std(command);
    command
        .env("CAPKG_TEST_SECRET", SECRET)
        .timeout(Duration::from_secs(60));
    command.output().unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[cfg(unix)] // FIFOs, /proc and /dev: Unix only
/// What a hostile previous release holds in place of its components file.
#[derive(Clone, Copy, Debug)]
enum Hostile {
    Fifo,
    Environ,
    Zero,
}

#[cfg(unix)] // FIFOs, /proc and /dev: Unix only
impl Hostile {
    const ALL: [Hostile; 3] = [Hostile::Fifo, Hostile::Environ, Hostile::Zero];

    fn make(self, path: &Path) {
        match self {
            Hostile::Fifo => {
                let made = Command::new("mkfifo").arg(path).status().unwrap();
                assert!(made.success());
            }
            Hostile::Environ => symlink("/proc/self/environ", path).unwrap(),
            Hostile::Zero => symlink("/dev/zero", path).unwrap(),
        }
    }

    /// How the refusal names it.
    fn kind(self) -> &'static str {
        match self {
            Hostile::Fifo => "is a FIFO, not a regular file",
            Hostile::Environ | Hostile::Zero => "is a symbolic link, not a regular file",
        }
    }
}

#[cfg(unix)] // FIFOs, /proc and /dev: Unix only
/// `{repository}/infrastructure-azure/v1.2.3/` with a real `metadata.yaml` and a hostile
/// components file; the version folder.
fn hostile_version(repository: &Path, hostile: Hostile) -> PathBuf {
    let version = repository.join("infrastructure-azure/v1.2.3");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::write(version.join("metadata.yaml"), METADATA).unwrap();
    hostile.make(&version.join("infrastructure-components.yaml"));
    version
}

#[cfg(unix)] // FIFOs, /proc and /dev: Unix only
fn assert_refused(output: &Output, path: &Path, hostile: Hostile) {
    let shown = text(output);
    assert_eq!(output.status.code(), Some(2), "{hostile:?}: {shown}");
    assert!(
        shown.contains(&format!("`{}` {}", path.display(), hostile.kind())),
        "{hostile:?}: {shown}"
    );
    assert!(!shown.contains(SECRET), "{hostile:?}: {shown}");
}

#[cfg(unix)] // FIFOs, /proc and /dev: Unix only
/// `capkg release` at a local target compares with the newest older version there: one whose
/// components file is a FIFO, a link to the environment or to `/dev/zero` is refused before
/// anything is published, naming the file.
#[test]
fn release_refuses_a_previous_local_release_read_through_special_files() {
    for hostile in Hostile::ALL {
        let provider = Provider::new("  local:\n    repository: repo\n", METADATA);
        let version = hostile_version(&provider.root().join("repo"), hostile);
        let mut command = release(&provider);
        command.args(["--version", "v1.2.4"]);
        let output = bounded(command);
        assert_refused(
            &output,
            &version.join("infrastructure-components.yaml"),
            hostile,
        );
        assert!(
            !provider
                .root()
                .join("repo/infrastructure-azure/v1.2.4")
                .exists(),
            "{hostile:?}: published"
        );
    }
}

#[cfg(unix)] // FIFOs, /proc and /dev: Unix only
/// `capkg diff` of a local repository (`file://`, or the path) reads its files the same way, and
/// so does `release --previous` naming one.
#[test]
fn diff_and_previous_refuse_a_local_release_read_through_special_files() {
    for hostile in Hostile::ALL {
        let root = tempfile::tempdir().unwrap();
        let version = hostile_version(&root.path().join("repo"), hostile);
        let components = version.join("infrastructure-components.yaml");
        let new = root.path().join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(new.join("metadata.yaml"), METADATA).unwrap();
        std::fs::write(new.join("infrastructure-components.yaml"), COMPONENTS).unwrap();
        for old in [
            format!("file://{}", components.display()),
            components.display().to_string(),
        ] {
            let mut command = capkg();
            command.arg("diff").arg(&old).arg(&new);
            assert_refused(&bounded(command), &components, hostile);
        }

        let provider = Provider::new("  local:\n    repository: repo\n", METADATA);
        let mut command = release(&provider);
        command
            .args(["--version", "v1.2.4", "--dry-run", "--previous"])
            .arg(format!("file://{}", components.display()));
        assert_refused(&bounded(command), &components, hostile);
    }
}

#[cfg(unix)] // FIFOs, /proc and /dev: Unix only
/// A provider or version folder that is a link is not read through either: the release it leads
/// to is elsewhere on this machine.
#[test]
fn a_linked_version_folder_is_refused_naming_it() {
    let root = tempfile::tempdir().unwrap();
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("metadata.yaml"), METADATA).unwrap();
    std::fs::write(elsewhere.join("infrastructure-components.yaml"), COMPONENTS).unwrap();
    let label = root.path().join("repo/infrastructure-azure");
    std::fs::create_dir_all(&label).unwrap();
    symlink(&elsewhere, label.join("v1.2.3")).unwrap();
    let mut command = capkg();
    command
        .arg("diff")
        .arg(format!(
            "file://{}/v1.2.3/infrastructure-components.yaml",
            label.display()
        ))
        .arg(&elsewhere);
    let output = bounded(command);
    let shown = text(&output);
    assert_eq!(output.status.code(), Some(2), "{shown}");
    assert!(
        shown.contains(&format!("`{}/v1.2.3` is a symbolic link", label.display())),
        "{shown}"
    );
}

/// A previous release's file larger than `--max-download` is refused before it is read, in a
/// local repository and in a folder, with what to do.
#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn a_previous_release_is_read_within_max_download() {
    let root = tempfile::tempdir().unwrap();
    let version = root.path().join("repo/infrastructure-azure/v1.2.3");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::write(version.join("metadata.yaml"), METADATA).unwrap();
    let components = version.join("infrastructure-components.yaml");
    // Sparse: 2 MiB that take no disk.
    let file = std::fs::File::create(&components).unwrap();
    file.set_len(2 << 20).unwrap();
    drop(file);
    let new = root.path().join("new");
    std::fs::create_dir_all(&new).unwrap();
    std::fs::write(new.join("metadata.yaml"), METADATA).unwrap();
    std::fs::write(new.join("infrastructure-components.yaml"), COMPONENTS).unwrap();
    for old in [
        format!("file://{}", components.display()),
        version.display().to_string(),
    ] {
        let mut command = capkg();
        command
            .arg("diff")
            .arg(&old)
            .arg(&new)
            .args(["--max-download", "1MiB"]);
        let output = bounded(command);
        let shown = text(&output);
        assert_eq!(output.status.code(), Some(2), "{old}: {shown}");
        assert!(
            shown.contains(&format!(
                "`{}` is 2.0 MiB, more than the 1.0 MiB capkg reads of one release file (`--max-download`, CAPKG_MAX_DOWNLOAD)",
                components.display()
            )),
            "{old}: {shown}"
        );
        assert!(shown.contains("--max-download 1GiB"), "{old}: {shown}");
    }
    // Within the limit it is read (and, being NUL bytes, is no YAML: the diff says so).
    let mut command = capkg();
    command.arg("diff").arg(&version).arg(&new);
    let output = bounded(command);
    assert!(
        !text(&output).contains("--max-download"),
        "{}",
        text(&output)
    );
}
