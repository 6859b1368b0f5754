//! `capkg assemble` over every provider of the corpus, as a maintainer would run it: a
//! `capkg.yaml` pointing at the provider's components file(s), `metadata.yaml` and templates, the
//! version taken from the newest release series of its metadata.
//!
//! Each corpus folder is already a release, so assembling it must either succeed (and `capkg lint
//! --version` must pass on the result, and a second run must give the same bytes), or be refused
//! with exactly the real defects the lint tests record (and then nothing is written to the output
//! folder).

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

use crate::common::corpus_providers;

/// `v{major}.{minor}.0` of the newest series in `metadata.yaml`.
fn newest_series(metadata: &Path) -> String {
    let text = std::fs::read_to_string(metadata).unwrap();
    let file = capkg::yaml::parse_str(
        std::sync::Arc::new(capkg::yaml::Source::new("m", text)),
        capkg::yaml::Limits::default(),
    );
    let root = file.roots().next().unwrap();
    let mut best = (0u64, 0u64);
    for series in root.get("releaseSeries").unwrap().items() {
        let number = |key| {
            series
                .get(key)
                .and_then(|n| n.scalar_text())
                .unwrap()
                .parse::<u64>()
                .unwrap()
        };
        best = best.max((number("major"), number("minor")));
    }
    format!("v{}.{}.0", best.0, best.1)
}

/// A capkg.yaml for a corpus folder: its components file(s), metadata and templates.
fn config_for(dir: &Path, name: &str) -> String {
    let mut components = Vec::new();
    let mut templates = Vec::new();
    let mut entries: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    entries.sort();
    let mut provider_type = String::new();
    for file in &entries {
        if let Some((prefix, rest)) = file
            .strip_suffix(".yaml")
            .and_then(|s| s.split_once("-components"))
        {
            provider_type = prefix.to_string();
            let path = dir.join(file).display().to_string();
            match rest.strip_prefix('-') {
                Some(suffix) => {
                    components.push(format!("  - {{file: '{path}', suffix: {suffix}}}"))
                }
                None => components.push(format!("  - file: '{path}'")),
            }
        } else if file.starts_with("cluster-template") || file.starts_with("clusterclass-") {
            templates.push(format!("  - '{}'", dir.join(file).display()));
        }
    }
    let mut config = format!(
        "provider:\n  name: {name}\n  type: {provider_type}\ncomponents:\n{}\nmetadata: '{}'\n",
        components.join("\n"),
        dir.join("metadata.yaml").display()
    );
    if !templates.is_empty() {
        config.push_str(&format!("templates:\n{}\n", templates.join("\n")));
    }
    // The corpus is built from development sources, whose images carry `:main` or `:dev`: an
    // error when a version is released, accepted here as a maintainer would for a test build.
    config.push_str(&format!(
        "lint:\n  allow:\n    - rule: components/image-tag\n      reason: \"{DEV_IMAGES}\"\n"
    ));
    config
}

const DEV_IMAGES: &str = "the corpus is built from development sources";

struct Run {
    code: i32,
    errors: BTreeMap<String, usize>,
}

fn assemble(config: &Path, out: &Path, version: &str) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .args(["--format", "json", "assemble", "--config"])
        .arg(config)
        .arg("--out")
        .arg(out)
        .args(["--version", version])
        .output()
        .unwrap();
    let json: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: stdout {} stderr {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let mut errors = BTreeMap::new();
    for d in json["diagnostics"].as_array().unwrap() {
        // A waived finding is shown but not counted: it blocks nothing.
        if d["severity"] == "error" && d.get("waived").is_none() {
            *errors
                .entry(d["rule"].as_str().unwrap().to_string())
                .or_insert(0) += 1;
        }
    }
    Run {
        code: output.status.code().unwrap(),
        errors,
    }
}

fn read_dir(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Assembles, checks lint passes on the folder and a second run is byte-identical.
fn assert_assembles(provider: &str, config: &Path, work: &Path, version: &str) {
    let first = work.join("first");
    let second = work.join("second");
    let run = assemble(config, &first, version);
    assert_eq!((run.code, &run.errors), (0, &BTreeMap::new()), "{provider}");
    let run = assemble(config, &second, version);
    assert_eq!(run.code, 0, "{provider}");
    let (a, b) = (read_dir(&first), read_dir(&second));
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (name, bytes) in &a {
        assert!(bytes == &b[name], "{provider}: {name} differs between runs");
    }
    assert!(a.contains_key("checksums.txt") && a.contains_key("metadata.yaml"));
    let lint = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .args(["lint", "-q", "--version", version])
        .arg("--allow")
        .arg(format!("components/image-tag={DEV_IMAGES}"))
        .arg(&first)
        .output()
        .unwrap();
    assert_eq!(
        lint.status.code(),
        Some(0),
        "{provider}: lint of the assembled folder: {}",
        String::from_utf8_lossy(&lint.stdout)
    );
}

/// Why lint refuses a corpus provider at its newest release series.
struct Refusal {
    errors: &'static [(&'static str, usize)],
    sound_version: &'static str,
}

#[test]
fn every_corpus_provider_assembles_or_is_refused_for_its_real_defects() {
    // Folder -> the lint errors that make assembly refuse, with the newest series as version
    // (the real defects `lint.rs` and `lint_contract.rs` record), and a version the same files
    // are sound for.
    let refused: BTreeMap<&str, Refusal> = [
        // v1beta2 series, but four CRDs carry only the v1beta1 contract label; the labels are
        // right for the older, v1beta1 series.
        (
            "infrastructure-linode",
            Refusal {
                errors: &[("crd/contract-label", 4)],
                sound_version: "v0.9.0",
            },
        ),
    ]
    .into_iter()
    .collect();
    let providers = corpus_providers();
    let work = tempfile::tempdir().unwrap();
    for dir in &providers {
        let folder = dir.file_name().unwrap().to_str().unwrap();
        let name = match folder.strip_prefix("core-") {
            Some(core) => core,
            None => capkg::provider::ProviderType::split_label(folder)
                .map(|(_, name)| name)
                .unwrap_or(folder),
        };
        let version = newest_series(&dir.join("metadata.yaml"));
        // Sources must be inside the repository of capkg.yaml (here the work folder).
        let sources = work.path().join("sources").join(folder);
        std::fs::create_dir_all(&sources).unwrap();
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), sources.join(entry.file_name())).unwrap();
        }
        let config = work.path().join(format!("{folder}.yaml"));
        std::fs::write(&config, config_for(&sources, name)).unwrap();
        let here = work.path().join(folder);
        match refused.get(folder) {
            None => assert_assembles(folder, &config, &here, &version),
            Some(Refusal {
                errors: expected,
                sound_version,
            }) => {
                let out = here.join("refused");
                let run = assemble(&config, &out, &version);
                let expected: BTreeMap<String, usize> =
                    expected.iter().map(|(r, n)| (r.to_string(), *n)).collect();
                assert_eq!((run.code, run.errors), (1, expected), "{folder}");
                assert!(!out.exists(), "{folder}: a refused release wrote files");
                // Beside it at most the rejected release its findings name, to read them.
                let left: Vec<String> = std::fs::read_dir(&here)
                    .map(|d| {
                        d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                            .collect()
                    })
                    .unwrap_or_default();
                assert!(
                    left.iter().all(|name| name == "refused.rejected"),
                    "{folder}: a refused release left {left:?} behind"
                );
                // The same files assemble for the version they are right for.
                assert_assembles(folder, &config, &here, sound_version);
            }
        }
    }
}
