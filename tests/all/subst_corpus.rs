//! Every file of the corpus of real provider files (`testdata/corpus`) goes through the clusterctl
//! layer.
//!
//! `testdata/subst/corpus-variables.txt` holds what the Go code (drone/envsubst + clusterctl's
//! SimpleProcessor) reports for each corpus file: its variable map, or its parse error, and a hash
//! of the substituted output. Every YAML file must list its variables without error, and every file
//! must give the same answer here as recorded there.

use capkg::subst::{self, FnLookup};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The golden file: path -> its lines.
fn golden() -> BTreeMap<String, Vec<String>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/subst/corpus-variables.txt"
    );
    let text = std::fs::read_to_string(path).expect("read corpus-variables.txt");
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = None;
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        if let Some(p) = line.strip_prefix("== ") {
            current = Some(p.to_owned());
            map.insert(p.to_owned(), Vec::new());
        } else if let Some(c) = &current {
            map.get_mut(c).expect("current entry").push(line.to_owned());
        }
    }
    map
}

/// The same lines, computed by `capkg::subst`.
fn ours(data: &[u8]) -> Vec<String> {
    let inv = match subst::inventory(data) {
        Ok(inv) => inv,
        Err(e) => return vec![format!("!error {e}")],
    };
    let mut lines: Vec<String> = inv
        .variable_map()
        .iter()
        .map(|(k, v)| format!("{k}={}", subst::go_quote(v.as_deref().unwrap_or(b""))))
        .collect();
    let lookup = FnLookup(|name: &str| Some(format!("v-{name}").into_bytes()));
    match subst::process(data, &lookup) {
        Ok(out) => lines.push(format!("sha256 {}", hex::encode(Sha256::digest(&out)))),
        Err(e) => lines.push(format!("!process-error {e}")),
    }
    lines
}

#[test]
fn every_corpus_file_lists_its_variables_like_clusterctl() {
    let dir = crate::common::corpus();
    let golden = golden();
    let (mut files, mut yaml_files, mut variables, mut compared) = (0, 0, 0, 0);
    let mut unrecorded = Vec::new();
    let mut failures = Vec::new();
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = entry.expect("walk corpus");
        if !entry.file_type().is_file() {
            continue;
        }
        files += 1;
        let rel = entry
            .path()
            .strip_prefix(&dir)
            .expect("relative path")
            .to_string_lossy()
            .replace('\\', "/");
        let data = std::fs::read(entry.path()).expect("read corpus file");
        let is_yaml = rel.ends_with(".yaml") || rel.ends_with(".yml");
        match subst::inventory(&data) {
            Ok(inv) => {
                variables += inv.variables.len();
                for v in inv.variables.values() {
                    // Spans point into the original file, at `${` … `}`.
                    let s = &data[v.span.start..v.span.end];
                    if !(s.starts_with(b"${") && s.ends_with(b"}")) {
                        failures.push(format!(
                            "{rel}: span of {} is {:?}",
                            v.name,
                            String::from_utf8_lossy(s)
                        ));
                    }
                }
            }
            Err(e) if is_yaml => failures.push(format!("{rel}: {e} at byte {:?}", e.offset())),
            Err(_) => {}
        }
        if is_yaml {
            yaml_files += 1;
        }
        if let Some(want) = golden.get(&rel) {
            compared += 1;
            let got = ours(&data);
            if &got != want {
                failures.push(format!(
                    "{rel}: differs from clusterctl:\n  want {want:?}\n  got  {got:?}"
                ));
            }
        } else {
            unrecorded.push(rel);
        }
    }
    println!(
        "{files} corpus files ({yaml_files} YAML), {variables} variables, {compared} compared with clusterctl's output"
    );
    assert!(yaml_files > 0, "no YAML found under {}", dir.display());
    // The corpus README is this repository's own text; every upstream file has its record, and
    // every record its file.
    assert_eq!(unrecorded, ["README.md"]);
    assert_eq!(compared, golden.len(), "records without a file");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What lint substitutes to check the YAML around each value (`variables/breaks-yaml`) is
/// clusterctl's substitution, byte for byte, on every corpus file, with each value placed where
/// its expression was.
#[test]
fn substitution_with_positions_is_clusterctls_on_every_corpus_file() {
    let dir = crate::common::corpus();
    let lookup = FnLookup(|name: &str| Some(format!("v-{name}").into_bytes()));
    let mut checked = 0;
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name() {
        let entry = entry.expect("walk corpus");
        let path = entry.path();
        if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("UTF-8 corpus file");
        let Ok(expected) = subst::process(text.as_bytes(), &lookup) else {
            continue;
        };
        let mapped = subst::substitute_mapped(&text, &lookup)
            .unwrap_or_else(|| panic!("{}: not substituted", path.display()));
        assert_eq!(
            mapped.text.as_bytes(),
            expected.as_slice(),
            "{}",
            path.display()
        );
        for replaced in &mapped.values {
            let written = &text[replaced.expression.start..replaced.expression.end];
            assert!(
                written.starts_with("${") && written.ends_with('}'),
                "{}: {written}",
                path.display()
            );
            assert_eq!(
                mapped.map.to_original(replaced.value.start),
                replaced.expression.start
            );
        }
        checked += 1;
    }
    assert!(checked > 50, "{checked} files");
}
