//! `capkg lint` throughput: the largest corpus components file, and a synthetic one ten times
//! larger (its documents repeated, the Namespace kept once).
//!
//! Run with `cargo bench --bench lint` (benches/README.md, "How to run each bench").

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests and benchmarks may panic

use std::path::{Path, PathBuf};

use capkg::files::{self, Release};
use capkg::provider::FileRole;
use capkg::rules::{self, Options};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The full upstream corpus when it sits beside the repository (`../shared/corpus`), else the
/// subset the repository carries (`testdata/corpus`).
fn corpus() -> PathBuf {
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if beside.is_dir() {
        beside
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus")
    }
}

fn largest_components() -> Option<PathBuf> {
    let corpus = corpus();
    let mut best: Option<(u64, PathBuf)> = None;
    for provider in std::fs::read_dir(corpus).ok()? {
        let Ok(provider) = provider else { continue };
        let Ok(entries) = std::fs::read_dir(provider.path()) else {
            continue;
        };
        for file in entries {
            let Ok(file) = file else { continue };
            let name = file.file_name().to_string_lossy().into_owned();
            if !matches!(
                FileRole::from_file_name(&name),
                Some(FileRole::Components { .. })
            ) {
                continue;
            }
            let size = file.metadata().map(|m| m.len()).unwrap_or(0);
            if best.as_ref().is_none_or(|(s, _)| size > *s) {
                best = Some((size, file.path()));
            }
        }
    }
    best.map(|(_, p)| p)
}

/// The documents of `text` repeated `times` times, with its Namespace object kept once.
fn synthetic(text: &str, times: usize) -> String {
    let docs: Vec<&str> = text.split("\n---\n").collect();
    let (namespaces, rest): (Vec<&str>, Vec<&str>) = docs
        .into_iter()
        .partition(|d| d.contains("\nkind: Namespace\n") || d.starts_with("kind: Namespace\n"));
    let mut out = namespaces.join("\n---\n");
    for _ in 0..times {
        for doc in &rest {
            out.push_str("\n---\n");
            out.push_str(doc);
        }
    }
    out
}

fn lint(name: &str, text: &str) -> usize {
    let role = FileRole::Components {
        provider_type: capkg::provider::ProviderType::ControlPlane,
        suffix: None,
    };
    let release = Release {
        dir: PathBuf::from("bench"),
        files: vec![files::load_text(name, text.to_string(), role)],
        near_misses: Vec::new(),
    };
    rules::run(std::slice::from_ref(&release), &Options::default()).len()
}

fn bench(c: &mut Criterion) {
    let Some(path) = largest_components() else {
        eprintln!("corpus not found; nothing to measure");
        return;
    };
    let text = std::fs::read_to_string(&path).expect("corpus file is UTF-8");
    let big = synthetic(&text, 10);
    let mut group = c.benchmark_group("lint");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("largest corpus components", |b| {
        b.iter(|| lint("c.yaml", &text))
    });
    group.throughput(Throughput::Bytes(big.len() as u64));
    group.bench_function("10x synthetic components", |b| {
        b.iter(|| lint("c.yaml", &big))
    });
    group.finish();
    eprintln!(
        "inputs: {} ({} bytes), synthetic ({} bytes)",
        path.display(),
        text.len(),
        big.len()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
