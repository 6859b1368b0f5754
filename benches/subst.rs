//! Throughput of `capkg::subst` on a large template: every `cluster-template*.yaml` of the corpus
//! concatenated 20 times (about 17 MB with the full upstream corpus beside the repository, about
//! 8 MB with `testdata/corpus`), or a synthetic template when neither is there.
//! `benches/subst.sh` compares the same input against GNU envsubst end to end.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests and benchmarks may panic

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;

use capkg::subst::{self, Values};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn template() -> Vec<u8> {
    let beside = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let dir = if beside.is_dir() {
        beside
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/corpus")
    };
    let mut files: Vec<_> = walkdir::WalkDir::new(&dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("cluster-template")
        })
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect();
    if files.is_empty() {
        let chunk = "metadata:\n  name: ${CLUSTER_NAME}\n  namespace: ${NAMESPACE:=default}\nspec:\n  version: ${KUBERNETES_VERSION}\n  replicas: ${WORKER_MACHINE_COUNT}\n  script: echo $$HOME\n";
        files.push(chunk.repeat(8_000).into_bytes());
    }
    let one = files.concat();
    one.repeat(20)
}

fn bench(c: &mut Criterion) {
    let input = template();
    let inv = subst::inventory(&input).expect("corpus templates parse");
    // Every variable set, so the clusterctl path gets past its missing check.
    let values: BTreeMap<String, String> = inv
        .names()
        .iter()
        .map(|n| (n.to_string(), format!("v-{n}")))
        .collect();
    let viper = Values::new().with_env(values.clone());
    // drone's plain Eval rejects the legacy `${ NAME }` spacing one corpus template uses.
    let plain = subst::convert_legacy_vars(&input).text.into_owned();
    subst::eval(&plain, &values).expect("plain input evaluates");
    subst::process(&input, &viper).expect("clusterctl input evaluates");
    let mut g = c.benchmark_group("subst");
    g.throughput(Throughput::Bytes(input.len() as u64));
    g.sample_size(20);
    g.bench_function("parse", |b| {
        b.iter(|| subst::parse(black_box(&plain)).map(|t| t.nodes.len()))
    });
    g.bench_function("eval_plain", |b| {
        b.iter(|| subst::eval(black_box(&plain), &values).map(|o| o.len()))
    });
    g.bench_function("process_clusterctl", |b| {
        b.iter(|| subst::process(black_box(&input), &viper).map(|o| o.len()))
    });
    g.bench_function("inventory", |b| {
        b.iter(|| subst::inventory(black_box(&input)).map(|i| i.variables.len()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
