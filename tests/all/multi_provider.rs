//! Several providers in one release (capkg.yaml `providers:`), on the example in
//! `testdata/example-multi-provider/` (a bootstrap and a control-plane provider): `assemble`
//! writes every provider's components and one `checksums.txt`; `release --target local` writes a
//! folder per provider that `capkg verify` reads as clusterctl does; `release` to the fake GitHub
//! server makes one release holding every provider's files (and to the fake GitLab one package);
//! flags that describe one provider are refused.

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::publish_fakes::capkg;
use crate::publish_fakes::github::{self, FakeGitHub};
use crate::publish_fakes::gitlab::{self, FakeGitLab, PROJECT_ID};
use crate::release_common::{Actions, clean_capkg, json, stderr, stdout};

const LABELS: [&str; 2] = ["bootstrap-example", "control-plane-example"];

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/example-multi-provider")
}

/// The example's sources in a temporary folder (without what earlier runs wrote), with its
/// `targets:` replaced when `targets` is given.
fn copy_example(targets: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = example();
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let relative = entry.path().strip_prefix(&from).unwrap();
        if relative.starts_with("out") || relative.starts_with("out-repository") {
            continue;
        }
        let target = dir.path().join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
    if let Some(targets) = targets {
        let config = dir.path().join("capkg.yaml");
        let text = std::fs::read_to_string(&config).unwrap();
        let (head, _) = text.split_once("targets:").unwrap();
        std::fs::write(&config, format!("{head}targets:\n{targets}")).unwrap();
    }
    dir
}

fn release_in(root: &Path) -> std::process::Command {
    let mut command = clean_capkg();
    command
        .args(["release", "--config"])
        .arg(root.join("capkg.yaml"))
        .current_dir(root);
    command
}

fn assert_exit(output: &Output, code: i32) {
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `sha256sum`-style lines as (name, digest).
fn checksum_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(|line| {
            let (sum, name) = line.split_once("  ").unwrap();
            (name.to_string(), sum.to_string())
        })
        .collect()
}

#[test]
fn assemble_writes_every_providers_components_and_one_checksums_list() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let output = capkg()
        .arg("assemble")
        .arg("--config")
        .arg(example().join("capkg.yaml"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_exit(&output, 0);
    assert!(
        stderr(&output).contains("assembled bootstrap-example, control-plane-example v0.1.0"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        names_in(&out),
        [
            "bootstrap-components.yaml",
            "checksums.txt",
            "control-plane-components.yaml",
            "metadata.yaml"
        ]
    );
    let sums = checksum_lines(&std::fs::read_to_string(out.join("checksums.txt")).unwrap());
    let listed: Vec<&str> = sums.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        listed,
        [
            "bootstrap-components.yaml",
            "control-plane-components.yaml",
            "metadata.yaml"
        ]
    );
    for (name, sum) in &sums {
        let bytes = std::fs::read(out.join(name)).unwrap();
        assert_eq!(&crate::publish_fakes::sha256(&bytes), sum, "{name}");
    }
    // Each provider's components carry its own label and go to its own namespace.
    let bootstrap = std::fs::read_to_string(out.join("bootstrap-components.yaml")).unwrap();
    assert!(bootstrap.contains("cluster.x-k8s.io/provider: bootstrap-example"));
    assert!(bootstrap.contains("namespace: capxb-system"));
    assert!(!bootstrap.contains("control-plane-example"));
    let control_plane = std::fs::read_to_string(out.join("control-plane-components.yaml")).unwrap();
    assert!(control_plane.contains("cluster.x-k8s.io/provider: control-plane-example"));
    assert!(control_plane.contains("namespace: capxcp-system"));
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn release_to_a_local_repository_writes_a_verified_folder_per_provider() {
    let example = copy_example(None);
    let root = example.path();
    let actions = Actions::new();
    let mut first = release_in(root);
    first.args(["--target", "local", "--format", "json"]);
    actions.apply(&mut first, "v0.1.0");
    let output = first.output().unwrap();
    assert_exit(&output, 0);
    let outcome = json(&output);
    assert_eq!(outcome["status"], "published");
    // Several providers: no single `provider`, a `providers` array instead.
    assert!(outcome["provider"].is_null());
    let labels: Vec<&str> = outcome["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, LABELS);
    let target = &outcome["targets"][0];
    assert_eq!(target["providers"].as_array().unwrap().len(), 2);
    for provider in target["providers"].as_array().unwrap() {
        assert_eq!(provider["verify"]["ok"], true, "{provider}");
    }

    let repository = root.join("out-repository");
    assert_eq!(names_in(&repository), LABELS);
    for (label, components) in LABELS
        .iter()
        .zip(["bootstrap-components.yaml", "control-plane-components.yaml"])
    {
        let folder = repository.join(label).join("v0.1.0");
        let mut files = vec![components, "checksums.txt", "metadata.yaml"];
        files.sort_unstable();
        assert_eq!(names_in(&folder), files);
        // Each folder's checksums cover exactly its own files.
        let sums = checksum_lines(&std::fs::read_to_string(folder.join("checksums.txt")).unwrap());
        let listed: Vec<&str> = sums.iter().map(|(n, _)| n.as_str()).collect();
        let mut expected = vec![components, "metadata.yaml"];
        expected.sort_unstable();
        assert_eq!(listed, expected);

        // The URL the release printed, per provider, in the outputs too.
        let url = actions
            .output_value(&format!("{label}-clusterctl-url"))
            .unwrap();
        assert_eq!(
            url,
            format!("file://{}", folder.join(components).display()),
            "{label}"
        );
        let verified = capkg().args(["verify", &url]).output().unwrap();
        assert_exit(&verified, 0);
    }
    // One `providers:` entry per provider in the clusterctl configuration.
    let config = actions.output_value("clusterctl-config").unwrap();
    assert_eq!(config.matches("- name: \"example\"").count(), 2, "{config}");
    assert!(config.contains("type: \"BootstrapProvider\""), "{config}");
    assert!(
        config.contains("type: \"ControlPlaneProvider\""),
        "{config}"
    );

    let mut second = release_in(root);
    second.args(["--target", "local"]);
    let output = second.output().unwrap();
    assert_exit(&output, 0);
    let text = stdout(&output);
    assert!(
        text.contains("Already published: nothing changed."),
        "{text}"
    );
    assert!(
        text.contains("clusterctl URL (bootstrap-example): file://"),
        "{text}"
    );
    assert!(
        text.contains("clusterctl URL (control-plane-example): file://"),
        "{text}"
    );
}

#[test]
fn release_to_github_is_one_release_with_every_providers_files() {
    let fake = FakeGitHub::start();
    let example = copy_example(Some("  github:\n    repo: o/r\n"));
    let root = example.path();
    let actions = Actions::new();
    let run = || {
        let mut command = release_in(root);
        command.args(["--format", "json"]);
        actions.apply(&mut command, "v0.1.0");
        command
            .env("GITHUB_API_URL", &fake.api)
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap()
    };
    let output = run();
    assert_exit(&output, 0);
    let outcome = json(&output);
    assert_eq!(outcome["status"], "published");

    let published = fake.release("v0.1.0");
    assert_eq!(published.len(), 1, "one release for the tag");
    assert!(!published[0].draft);
    let mut names: Vec<&str> = published[0]
        .assets
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "bootstrap-components.yaml",
            "capkg-provenance.intoto.json",
            "checksums.txt",
            "control-plane-components.yaml",
            "metadata.yaml"
        ]
    );
    let urls: Vec<String> = outcome["targets"][0]["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["clusterctl_url"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        urls,
        [
            "https://github.com/o/r/releases/v0.1.0/bootstrap-components.yaml",
            "https://github.com/o/r/releases/v0.1.0/control-plane-components.yaml"
        ]
    );
    assert_eq!(
        actions
            .output_value("github-control-plane-example-clusterctl-url")
            .as_deref(),
        Some(urls[1].as_str())
    );
    for url in &urls {
        let verified = capkg()
            .args(["verify", url, "--api-url", &fake.api, "--format", "json"])
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap();
        assert_exit(&verified, 0);
        let report = json(&verified);
        let checks: Vec<&str> = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert!(checks.contains(&"checksums"), "{report}");
    }

    // A second run uploads nothing.
    let writes = fake.mutations();
    let output = run();
    assert_exit(&output, 0);
    assert_eq!(json(&output)["status"], "unchanged");
    assert_eq!(
        fake.mutations(),
        writes,
        "a second release must change nothing"
    );
}

#[test]
fn release_to_gitlab_is_one_package_with_every_providers_files() {
    let fake = FakeGitLab::start();
    let example = copy_example(Some("  gitlab:\n    package: capi-example\n"));
    let root = example.path();
    let run = || {
        release_in(root)
            .env("GITLAB_CI", "true")
            .env("CI", "true")
            .env("CI_COMMIT_TAG", "v0.1.0")
            .env("CI_API_V4_URL", &fake.api)
            .env("CI_PROJECT_ID", PROJECT_ID)
            .env("CI_JOB_TOKEN", gitlab::JOB_TOKEN)
            .output()
            .unwrap()
    };
    let output = run();
    assert_exit(&output, 0);
    // Every file once: two components files, metadata.yaml, one checksums.txt and the
    // provenance statement.
    assert_eq!(fake.count("PUT"), 5);
    let text = stdout(&output);
    assert!(
        text.contains("Providers `bootstrap-example`, `control-plane-example`"),
        "{text}"
    );
    for components in ["bootstrap-components.yaml", "control-plane-components.yaml"] {
        let url = format!(
            "{}/projects/{PROJECT_ID}/packages/generic/capi-example/v0.1.0/{components}",
            fake.api
        );
        assert!(text.contains(&url), "{text}");
        let verified = capkg()
            .args(["verify", &url])
            .env("CI_API_V4_URL", &fake.api)
            .env("CI_JOB_TOKEN", gitlab::JOB_TOKEN)
            .output()
            .unwrap();
        assert_exit(&verified, 0);
    }
    let output = run();
    assert_exit(&output, 0);
    assert!(stdout(&output).contains("already published, nothing changed"));
    assert_eq!(fake.count("PUT"), 5, "a second release must upload nothing");
}

#[test]
fn a_different_published_file_is_refused_with_a_hint_release_can_follow() {
    let fake = FakeGitHub::start();
    fake.add_release(
        "v0.1.0",
        false,
        &[("checksums.txt", b"not ours\n".as_slice())],
    );
    let example = copy_example(Some("  github:\n    repo: o/r\n"));
    let mut command = release_in(example.path());
    let output = command
        .env("GITHUB_API_URL", &fake.api)
        .env("GITHUB_TOKEN", github::TOKEN)
        .args(["--version", "v0.1.0"])
        .output()
        .unwrap();
    assert_exit(&output, 1);
    let all = format!("{}{}", stdout(&output), stderr(&output));
    assert!(all.contains("`checksums.txt` is already at"), "{all}");
    // `release` has no `--clobber`: the hint must not name it.
    assert!(!all.contains("--clobber"), "{all}");
    assert!(all.contains("never replaces published files"), "{all}");
}

#[test]
fn flags_that_describe_one_provider_are_refused_with_several() {
    let example = copy_example(None);
    let root = example.path();
    let config = root.join("capkg.yaml");
    let out = root.join("flag-out");
    let cases: [&[&str]; 4] = [
        &[
            "release",
            "--target",
            "local",
            "--version",
            "v0.1.0",
            "--provider",
            "other",
        ],
        &[
            "release",
            "--target",
            "local",
            "--version",
            "v0.1.0",
            "--type",
            "bootstrap",
        ],
        &["assemble", "--type", "bootstrap"],
        &["assemble", "--components", "bootstrap/config/crd"],
    ];
    for args in cases {
        let output = clean_capkg()
            .args(args)
            .arg("--config")
            .arg(&config)
            .arg(if args[0] == "assemble" {
                "--out"
            } else {
                "--dry-run"
            })
            .args((args[0] == "assemble").then_some(&out))
            .current_dir(root)
            .output()
            .unwrap();
        assert_exit(&output, 2);
        let all = format!("{}{}", stdout(&output), stderr(&output));
        assert!(
            all.contains("releases several providers (bootstrap-example, control-plane-example)"),
            "{args:?}: {all}"
        );
        assert!(all.contains("`providers:` entry"), "{args:?}: {all}");
    }
    assert!(!out.exists(), "nothing is written");
    assert!(
        !root.join("out-repository").exists(),
        "nothing is published"
    );
}

#[test]
fn publish_carries_every_provider_of_an_assembled_folder() {
    let fake = FakeGitHub::start();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let assembled = capkg()
        .arg("assemble")
        .arg("--config")
        .arg(example().join("capkg.yaml"))
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_exit(&assembled, 0);
    let publish = |extra: &[&str]| {
        capkg()
            .args(["publish", "github"])
            .arg(&out)
            .args([
                "--version",
                "v0.1.0",
                "--repo",
                "o/r",
                "--api-url",
                &fake.api,
            ])
            .args(extra)
            .env("GITHUB_TOKEN", github::TOKEN)
            .output()
            .unwrap()
    };
    let refused = publish(&["--provider", "example"]);
    assert_exit(&refused, 2);
    assert!(
        stderr(&refused).contains("holds the components of several providers"),
        "{}",
        stderr(&refused)
    );
    let output = publish(&[]);
    assert_exit(&output, 0);
    let text = stdout(&output);
    assert!(
        text.contains("Published bootstrap-example, control-plane-example v0.1.0"),
        "{text}"
    );
    assert!(
        text.contains(
            "clusterctl URL (control-plane-example): https://github.com/o/r/releases/v0.1.0/control-plane-components.yaml"
        ),
        "{text}"
    );
    assert_eq!(fake.release("v0.1.0")[0].assets.len(), 4);
}
