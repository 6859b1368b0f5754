//! How fast the two YAML writers write the largest components file of the corpus.
//!
//! Throughput is counted in bytes of the source file, so the figures compare with the loader's.
//! Run with `cargo bench --bench yaml_write`.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests and benchmarks may panic

use std::hint::black_box;
use std::path::PathBuf;

use capkg::yaml::json_value::JsonValue;
use capkg::yaml::{Limits, Node, parse_file, write_clusterctl, write_layout};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn largest_components_file() -> PathBuf {
    // The full upstream corpus when it sits beside the repository, else the repository's subset.
    let beside = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus"));
    let corpus = if beside.is_dir() {
        beside
    } else {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/corpus"))
    };
    let mut candidates: Vec<(u64, PathBuf)> = std::fs::read_dir(&corpus)
        .expect("a corpus folder")
        .filter_map(Result::ok)
        .flat_map(|dir| std::fs::read_dir(dir.path()).into_iter().flatten())
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("-components.yaml"))
        })
        .filter_map(|path| Some((std::fs::metadata(&path).ok()?.len(), path)))
        .collect();
    candidates.sort();
    candidates.pop().expect("a components file").1
}

fn bench_writers(c: &mut Criterion) {
    let path = largest_components_file();
    let bytes = std::fs::read(&path).expect("readable");
    let size = bytes.len() as u64;
    let file = parse_file(path.display().to_string(), bytes, Limits::default());
    let roots: Vec<Node> = file.roots().cloned().collect();
    let values: Vec<JsonValue> = roots
        .iter()
        .filter_map(|root| JsonValue::from_node(root).ok())
        .collect();

    let mut group = c.benchmark_group("yaml_write");
    group.throughput(Throughput::Bytes(size));
    group.sample_size(20);
    group.bench_function("layout", |b| {
        b.iter(|| write_layout::write_documents(black_box(&roots)))
    });
    group.bench_function("clusterctl (tree -> JSON value -> YAML)", |b| {
        b.iter(|| write_clusterctl::write_documents(black_box(&roots)))
    });
    group.bench_function("clusterctl (JSON value -> YAML)", |b| {
        b.iter(|| {
            values
                .iter()
                .map(|value| write_clusterctl::write_value(black_box(value)))
                .collect::<Result<Vec<_>, _>>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench_writers);
criterion_main!(benches);
