//! Publishing 20 assets to fake forges that add 100 ms to every request: total time and request
//! counts of a fresh publish and of a re-run of the complete publish, set against the minimum the
//! APIs' rules allow (uploads serial, one request per file; reads may run concurrently).
//!
//! Run with `cargo bench --bench publish`. It runs the release binary once per scenario; the
//! numbers are wall-clock times of one run each, printed as a table.

#![allow(clippy::unwrap_used, clippy::expect_used)] // tests and benchmarks may panic

#[path = "../tests/all/publish_fakes/mod.rs"]
mod publish_fakes;

use std::path::Path;
use std::time::{Duration, Instant};

use publish_fakes::github::FakeGitHub;
use publish_fakes::gitlab::FakeGitLab;
use publish_fakes::server::Incoming;
use publish_fakes::{COMPONENTS, METADATA, capkg, write_release};

const LATENCY: Duration = Duration::from_millis(100);
/// capkg's default read concurrency.
const READ_CONCURRENCY: usize = 8;
const FILES: usize = 20;

fn release(root: &Path) -> std::path::PathBuf {
    let dir = root.join("out");
    let mut files = vec![
        (
            "infrastructure-components.yaml".to_string(),
            COMPONENTS.as_bytes().to_vec(),
        ),
        ("metadata.yaml".to_string(), METADATA.as_bytes().to_vec()),
    ];
    // 17 templates + components + metadata + checksums.txt = 20 assets.
    for i in 0..FILES - 3 {
        files.push((
            format!("cluster-template-flavor{i:02}.yaml"),
            format!("kind: Cluster\nmetadata:\n  name: flavor-{i}\n")
                .repeat(200)
                .into_bytes(),
        ));
    }
    let refs: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, c)| (n.as_str(), c.clone())).collect();
    write_release(&dir, &refs);
    dir
}

struct Measure {
    elapsed: Duration,
    requests: Vec<Incoming>,
}

fn run(args: &[&str], env: &[(&str, &str)], log: impl Fn() -> Vec<Incoming>) -> Measure {
    let before = log().len();
    let start = Instant::now();
    let mut command = capkg();
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().expect("run capkg");
    let elapsed = start.elapsed();
    assert!(
        output.status.success(),
        "capkg failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Measure {
        elapsed,
        requests: log().into_iter().skip(before).collect(),
    }
}

fn rounds(reads: usize) -> usize {
    reads.div_ceil(READ_CONCURRENCY)
}

fn row(
    scenario: &str,
    measured: &Measure,
    min_requests: usize,
    min_serial_steps: usize,
    note: &str,
) {
    let uploads = measured
        .requests
        .iter()
        .filter(|r| r.method == "POST" && r.server == "uploads" || r.method == "PUT")
        .count();
    println!(
        "| {scenario:<22} | {:>6.2} s | {:>6.2} s | {:>4} | {:>4} | {:>3} | {note}",
        measured.elapsed.as_secs_f64(),
        (min_serial_steps as f64) * LATENCY.as_secs_f64(),
        measured.requests.len(),
        min_requests,
        uploads,
    );
}

fn main() {
    // `cargo bench` passes `--bench`; there is nothing to filter.
    let root = tempfile::tempdir().expect("temp dir");
    let dir = release(root.path());
    let dir_text = dir.display().to_string();

    println!(
        "publish benchmark: {FILES} assets, {} ms added to every request\n",
        LATENCY.as_millis()
    );
    println!(
        "| scenario               |  elapsed | minimum  | reqs |  min | up  | minimum counted as"
    );
    println!(
        "|------------------------|----------|----------|------|------|-----|-------------------"
    );

    let github = FakeGitHub::with_latency(LATENCY);
    let token = publish_fakes::github::TOKEN;
    let args = [
        "-q",
        "publish",
        "github",
        &dir_text,
        "--version",
        "v1.2.3",
        "--repo",
        "o/r",
        "--api-url",
        &github.api,
    ];
    let fresh = run(&args, &[("GITHUB_TOKEN", token)], || github.requests());
    // list, create, 20 serial uploads, read-back (API + storage redirect) in rounds, publish.
    row(
        "github fresh",
        &fresh,
        1 + 1 + FILES + 2 * FILES + 1,
        1 + 1 + FILES + 2 * rounds(FILES) + 1,
        "list + create + 20 uploads + 20x(asset GET -> storage GET) + publish; reads 8 at a time",
    );
    let again = run(&args, &[("GITHUB_TOKEN", token)], || github.requests());
    row(
        "github re-run",
        &again,
        1,
        1,
        "one release list (digests match, nothing to do)",
    );

    let gitlab = FakeGitLab::with_latency(LATENCY);
    let token = publish_fakes::gitlab::TOKEN;
    let args = [
        "-q",
        "publish",
        "gitlab",
        &dir_text,
        "--version",
        "v1.2.3",
        "--project",
        "42",
        "--api-url",
        &gitlab.api,
    ];
    let fresh = run(&args, &[("GITLAB_TOKEN", token)], || gitlab.requests());
    row(
        "gitlab fresh",
        &fresh,
        FILES * 3,
        rounds(FILES) + FILES + rounds(FILES),
        "20 existence GETs + 20 serial PUTs + 20 read-back GETs; reads 8 at a time",
    );
    let again = run(&args, &[("GITLAB_TOKEN", token)], || gitlab.requests());
    row(
        "gitlab re-run",
        &again,
        FILES,
        rounds(FILES),
        "20 existence GETs, 8 at a time; no PUT",
    );
    println!(
        "\n`elapsed` includes starting the process and reading and hashing the folder; `minimum` is \
         the latency of the requests that must happen one after another, with reads {READ_CONCURRENCY} \
         at a time as capkg runs them. With unbounded read concurrency the floor would be {:.1} s \
         (GitHub) and {:.1} s (GitLab) for a fresh publish.",
        (1 + 1 + FILES + 2 + 1) as f64 * LATENCY.as_secs_f64(),
        (1 + FILES + 1) as f64 * LATENCY.as_secs_f64(),
    );
}
