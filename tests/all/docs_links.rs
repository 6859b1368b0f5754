//! README.md links into the book and the chapters link to each other: every relative link of
//! README.md, `docs/book/src/*.md` and `docs/*.md` names a file that exists, and a `#anchor` on
//! a Markdown file names one of its headings (as mdBook and GitHub spell heading ids), so moving
//! or renaming a section cannot leave a dead link.

use std::path::{Path, PathBuf};

/// The id mdBook (and GitHub, for these headings) gives a heading: lower case, spaces to `-`,
/// only letters, digits, `-` and `_` kept.
fn heading_id(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The heading ids of a Markdown file, following a chapter that is one `{{#include FILE}}`.
fn heading_ids(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap();
    if let Some(included) = text
        .trim()
        .strip_prefix("{{#include ")
        .and_then(|rest| rest.strip_suffix("}}"))
        .filter(|file| !file.contains(':'))
    {
        return heading_ids(&path.parent().unwrap().join(included));
    }
    let mut ids = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            let heading = line.trim_start_matches('#');
            if heading.starts_with(' ') {
                ids.push(heading_id(heading));
            }
        }
    }
    ids
}

/// The targets of the inline links `[text](target)` of a Markdown text, outside code.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                targets.push(rest[..end].to_string());
                rest = &rest[end..];
            }
        }
    }
    targets
}

fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for dir in ["docs/book/src", "docs"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        found.sort();
        files.extend(found);
    }
    files
}

#[test]
fn every_relative_link_names_a_file_and_heading_that_exist() {
    let mut dead = Vec::new();
    let mut checked = 0;
    for file in sources() {
        let text = std::fs::read_to_string(&file).unwrap();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") || target.contains(' ') {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let linked = if path.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(path)
            };
            if !linked.exists() {
                dead.push(format!("{}: `{target}`: no such file", file.display()));
            } else if !anchor.is_empty()
                && linked.extension().is_some_and(|x| x == "md")
                && !heading_ids(&linked).iter().any(|id| id == anchor)
            {
                dead.push(format!("{}: `{target}`: no such heading", file.display()));
            }
        }
    }
    assert!(dead.is_empty(), "{}", dead.join("\n"));
    // README's links into the book are among them.
    assert!(checked > 40, "only {checked} links found");
}

#[test]
fn heading_ids_are_spelled_as_mdbook_spells_them() {
    assert_eq!(
        heading_id(" Waivers: `lint: allow:` and `--allow`"),
        "waivers-lint-allow-and---allow"
    );
    assert_eq!(
        heading_id(" ConfigMaps: `capkg configmaps`"),
        "configmaps-capkg-configmaps"
    );
    assert_eq!(
        link_targets("see [a](b.md#c) and [d](e.md)\n```\n[x](y)\n```\n"),
        ["b.md#c", "e.md"]
    );
}
