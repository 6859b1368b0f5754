//! The lines `init` adds to `.gitignore`: the folders `capkg assemble` writes.

use super::OUTPUT_DIR;

/// The folders `capkg assemble` writes beside the sources: the release, and the release it
/// refused (`out.rejected/`, for reading the findings); git should ignore both.
pub const IGNORED_DIRS: [&str; 2] = [OUTPUT_DIR, "out.rejected"];

/// `.gitignore` with the folders of [`IGNORED_DIRS`] it does not ignore yet added, and which
/// they were; `None` when it ignores them all.
pub fn gitignore_with_output(existing: Option<&str>) -> Option<(String, Vec<&'static str>)> {
    let existing = existing.unwrap_or_default();
    let ignores = |dir: &str| {
        existing.lines().any(|line| {
            let line = line.trim().trim_start_matches('/').trim_end_matches("/*");
            line.trim_end_matches('/') == dir
        })
    };
    let missing: Vec<&'static str> = IGNORED_DIRS
        .into_iter()
        .filter(|dir| !ignores(dir))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut text = existing.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# capkg assemble's release folder (and the release it refused)\n");
    for dir in &missing {
        text.push_str(&format!("/{dir}/\n"));
    }
    Some((text, missing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_gains_the_output_folders_once() {
        let text = |existing| gitignore_with_output(existing).map(|(text, _)| text);
        assert_eq!(
            text(Some("target")).as_deref(),
            Some(
                "target\n# capkg assemble's release folder (and the release it refused)\n/out/\n/out.rejected/\n"
            )
        );
        for ignored in [
            "out\nout.rejected",
            "/out\n/out.rejected/",
            "out/\nout.rejected/*\n",
        ] {
            assert_eq!(gitignore_with_output(Some(ignored)), None, "{ignored}");
        }
        // Only what is missing is added.
        assert_eq!(
            gitignore_with_output(Some("/out/\n")).map(|(_, added)| added),
            Some(vec!["out.rejected"])
        );
        assert!(gitignore_with_output(None).is_some());
        assert_eq!(
            IGNORED_DIRS[1],
            format!("{OUTPUT_DIR}{}", crate::release_dir::REJECTED_SUFFIX)
        );
    }
}
