//! Helpers shared by the integration tests.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The example provider in `testdata/`.
pub fn example_provider() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example-provider")
}

/// Copies the example provider's sources into `to`, leaving out what runs of capkg write there
/// (`out/`, `out-repository/`), so a test starts from the repository's state even after a user
/// ran the README's commands.
pub fn copy_example_provider(to: &Path) {
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
