//! The module map src/lib.rs lists, enforced: data flows load -> check -> transform ->
//! write or publish, and presentation sits on top. A module may import only from the layers the
//! table below allows; this test reads `src/` and fails naming the file and line of an import that
//! goes the wrong way, so the layering cannot erode one convenient `use` at a time.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Modules nothing else builds on: each may import only the modules listed with it.
const ALLOWED: &[(&str, &[&str])] = &[
    // Foundations.
    ("units", &[]),
    ("error", &[]),
    ("version", &[]),
    ("go_sort", &[]),
    ("go_unicode", &[]),
    ("flect", &["go_unicode"]),
    ("image_ref", &[]),
    ("threads", &[]),
    ("yaml", &["units", "error", "go_unicode", "threads"]),
    ("provider", &["error", "yaml", "k8s"]),
    ("diagnostic", &["yaml"]),
    ("escape", &[]),
    ("k8s", &["yaml"]),
    ("subst", &["yaml", "error", "units", "go_unicode"]),
    ("checksums", &["error", "files"]),
    // Load and check.
    (
        "files",
        &[
            "provider",
            "subst",
            "yaml",
            "error",
            "units",
            "diagnostic",
            "threads",
        ],
    ),
    (
        "rules",
        &[
            "diagnostic",
            "files",
            "flect",
            "image_ref",
            "k8s",
            "provider",
            "subst",
            "version",
            "yaml",
            "error",
            "go_sort",
            "checksums",
        ],
    ),
    // A release folder read and checked, as publish, release and the operator's ConfigMaps take it.
    (
        "release_dir",
        &[
            "error",
            "checksums",
            "files",
            "provider",
            "version",
            "provenance",
        ],
    ),
    // The provenance statement: plain data in, JSON out; the CI's and git's facts.
    ("provenance", &["checksums", "sigstore"]),
    // Keyless signing and its checks: Fulcio and Rekor through the forge's HTTP client.
    ("sigstore", &["checksums", "forge", "provenance"]),
    // The forge layer talks HTTP for publish and verify; it knows nothing of either.
    (
        "forge",
        &["error", "units", "version", "provider", "checksums"],
    ),
    // Where CI wants things written; it reads diagnostics, not rules.
    ("ci", &["diagnostic", "escape", "forge", "error", "yaml"]),
];

/// Modules with many allowed imports, given instead as what they must never import. `init` is a
/// command of its own: only `cli` imports it.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "config",
        &[
            "cli", "report", "release", "verify", "targets", "ci", "settings", "init",
        ],
    ),
    (
        "assemble",
        &[
            "cli", "report", "release", "verify", "targets", "ci", "settings", "init",
        ],
    ),
    // init reads a repository and proposes a capkg.yaml: it may read assemble's and config's
    // types, and publishes, verifies and reports nothing.
    (
        "init",
        &[
            "cli", "report", "release", "verify", "targets", "ci", "diff", "operator", "settings",
        ],
    ),
    (
        "targets",
        &[
            "cli", "report", "release", "verify", "ci", "settings", "init",
        ],
    ),
    (
        "operator",
        &[
            "cli", "report", "release", "verify", "ci", "targets", "settings", "init",
        ],
    ),
    (
        "verify",
        &["cli", "report", "release", "targets", "settings", "init"],
    ),
    // diff reads through verify; `report::diff` renders what it found.
    (
        "diff",
        &["cli", "report", "release", "targets", "settings", "init"],
    ),
    // Settings are resolved above the steps that use them and handed down as their own types.
    (
        "settings",
        &["cli", "report", "release", "diff", "operator", "init"],
    ),
    ("release", &["cli", "report", "init"]),
    ("report", &["cli", "init"]),
];

/// The crate's modules: what a `crate::NAME` path can start with.
fn modules(src: &Path) -> BTreeSet<String> {
    std::fs::read_dir(src)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter_map(|path| {
            let name = path.file_stem()?.to_str()?.to_string();
            (path.is_dir() || path.extension()? == "rs").then_some(name)
        })
        .filter(|name| name != "lib" && name != "main")
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `(line number, imported module)` for every `crate::NAME` in the file's non-test code. A
/// `#[cfg(test)]` line ends the scan (unit tests sit at the bottom and may reach anywhere);
/// comment lines are skipped.
fn imports(text: &str, known: &BTreeSet<String>) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]") {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let tail = &rest[at + "crate::".len()..];
            let name: String = tail
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if known.contains(&name) {
                found.push((index + 1, name));
            }
            rest = tail;
        }
    }
    found
}

#[test]
fn modules_import_only_from_the_layers_below_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let known = modules(&src);
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut violations = Vec::new();
    for file in files {
        let relative = file.strip_prefix(&src).unwrap();
        let module = relative
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_str()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        let name = relative.file_name().unwrap().to_str().unwrap();
        if name == "tests.rs" || name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, imported) in imports(&text, &known) {
            if imported == module {
                continue;
            }
            let allowed = ALLOWED.iter().find(|(m, _)| *m == module);
            let forbidden = FORBIDDEN.iter().find(|(m, _)| *m == module);
            let wrong = match (allowed, forbidden) {
                (Some((_, ok)), _) => !ok.contains(&imported.as_str()),
                (None, Some((_, no))) => no.contains(&imported.as_str()),
                (None, None) => false,
            };
            if wrong {
                violations.push(format!(
                    "src/{}:{line}: `{module}` imports `crate::{imported}`",
                    relative.display()
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports against the module map (src/lib.rs, tests/all/layering.rs):\n{}",
        violations.join("\n")
    );
}

#[test]
fn only_the_cli_knows_clap() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let offenders: Vec<String> = files
        .iter()
        .filter(|file| !file.starts_with(src.join("cli")) && !file.ends_with("main.rs"))
        .filter(|file| std::fs::read_to_string(file).unwrap().contains("clap::"))
        .map(|file| file.strip_prefix(&src).unwrap().display().to_string())
        .collect();
    assert!(offenders.is_empty(), "clap outside src/cli/: {offenders:?}");
}

/// `unsafe_code` is denied crate-wide; these are the only places that lift it, each for a reason
/// its comment gives (contributing.md, "`unsafe`"). A new one is a decision to make in review,
/// not a line that slips in: add it here with the reason.
#[test]
fn unsafe_code_is_allowed_only_where_the_list_says() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut allowed: Vec<String> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (index, line) in text.lines().enumerate() {
            if line.contains("allow(unsafe_code)") && !line.trim_start().starts_with("//") {
                // An inner attribute covers its file; an outer one the item on the next line.
                let item = match line.trim_start().starts_with("#![") {
                    true => "the whole file",
                    false => text.lines().nth(index + 1).unwrap_or("").trim(),
                };
                // Written with `/` on every system, as the list below is.
                let place = file
                    .strip_prefix(&src)
                    .unwrap()
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                allowed.push(format!(
                    "{place}: {}",
                    item.split(['(', '{']).next().unwrap_or("")
                ));
            }
        }
    }
    allowed.sort();
    assert_eq!(
        allowed,
        [
            "assemble/sources/command.rs: fn kill_group",
            "main.rs: the whole file",
            "yaml/mod.rs: mod compact;",
        ],
        "the places allowed `unsafe`"
    );
    // And the crate-wide denial is still there for everything else.
    let manifest = std::fs::read_to_string(src.with_file_name("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("unsafe_code = \"deny\""),
        "Cargo.toml [lints] denies unsafe_code"
    );
}

#[test]
fn every_module_of_the_crate_is_placed_in_the_map() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let placed: BTreeSet<&str> = ALLOWED
        .iter()
        .chain(FORBIDDEN)
        .map(|(m, _)| *m)
        .chain(["cli"])
        .collect();
    let unplaced: Vec<String> = modules(&src)
        .into_iter()
        .filter(|m| !placed.contains(m.as_str()))
        .collect();
    assert!(
        unplaced.is_empty(),
        "modules missing from tests/all/layering.rs: {unplaced:?}"
    );
}

/// The module map is src/lib.rs's list: every module the crate declares is in it once, and it
/// names no module that is gone.
#[test]
fn the_module_map_in_lib_rs_lists_every_module_once() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let declared: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            let rest = line
                .strip_prefix("pub mod ")
                .or_else(|| line.strip_prefix("pub(crate) mod "))
                .or_else(|| line.strip_prefix("mod "))?;
            Some(rest.trim_end_matches(';').to_string())
        })
        .filter(|name| !name.contains(' ') && !name.contains('{'))
        .collect();
    let mut listed = Vec::new();
    for line in lib.lines().filter(|l| l.starts_with("//! - ")) {
        let head = line.split_once("]:").map_or(line, |(head, _)| head);
        for part in head.split("[`").skip(1) {
            listed.push(part.trim_end_matches(['`', ']', ',', ' ']).to_string());
        }
    }
    let listed_set: BTreeSet<String> = listed.iter().cloned().collect();
    assert_eq!(
        listed.len(),
        listed_set.len(),
        "a module listed twice: {listed:?}"
    );
    let missing: Vec<&String> = declared.difference(&listed_set).collect();
    let gone: Vec<&String> = listed_set.difference(&declared).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "src/lib.rs's module map: not listed {missing:?}, listed but not declared {gone:?}"
    );
}
