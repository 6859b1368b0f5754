//! Where capkg reports a condition clusterctl also reports, its first line is clusterctl's text
//! (issue 16): one row per behaviour, each naming the clusterctl source line (path:line in
//! kubernetes-sigs/cluster-api) or test it reproduces. Then the duplicate keys `render` keeps
//! and `lint` still reports, and an asset with a space in its name published to the fake GitHub
//! and read back by `verify` through its percent-encoded URL.

use std::path::Path;
use std::process::Output;

use crate::publish_fakes::github::{FakeGitHub, FaultAction, TOKEN};
use crate::publish_fakes::gitlab::{FakeGitLab, JOB_TOKEN, PROJECT_ID};
use crate::publish_fakes::server::Reply;
use crate::publish_fakes::{
    COMPONENTS, METADATA, TEMPLATE, capkg, release_files, sha256, write_release,
};
use serde_json::json;

const URL_V123: &str = "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml";

/// One clusterctl message capkg reproduces.
struct Row {
    /// The behaviour, as issue 16 lists it.
    behaviour: &'static str,
    /// Where clusterctl says it (cluster-api at the mirrored HEAD).
    upstream: &'static str,
    run: fn(&Path) -> Output,
    exit: i32,
    /// The first line of stderr: `error: ` (or `warning: `) and clusterctl's text.
    first_line: &'static str,
    /// What else stderr holds: capkg's position and hint.
    also: &'static [&'static str],
    /// What stdout holds.
    stdout: &'static [&'static str],
}

const TABLE: &[Row] = &[
    Row {
        behaviour: "missing metadata.yaml (verify, GitHub)",
        upstream: "cmd/clusterctl/client/repository/metadata_client.go:81",
        run: github_without_metadata,
        exit: 1,
        first_line: "error: failed to read \"metadata.yaml\" from the repository for provider \"infrastructure-azure\"",
        also: &["https://github.com/o/r/releases/v1.2.3/metadata.yaml"],
        stdout: &[],
    },
    Row {
        behaviour: "a file missing from a GitHub release",
        upstream: "cmd/clusterctl/client/repository/repository_github.go:457",
        run: github_without_metadata,
        exit: 1,
        first_line: "error: failed to read \"metadata.yaml\"",
        also: &["caused by: failed to get file \"metadata.yaml\" from \"v1.2.3\" release"],
        stdout: &[],
    },
    Row {
        behaviour: "missing components file (verify, GitHub)",
        upstream: "cmd/clusterctl/client/repository/components_client.go:97",
        run: github_without_components,
        exit: 1,
        first_line: "error: failed to read \"infrastructure-components.yaml\" from provider's repository \"infrastructure-azure\"",
        also: &["failed to get file \"infrastructure-components.yaml\" from \"v1.2.3\" release"],
        stdout: &[],
    },
    Row {
        behaviour: "GitHub release not found, with the HTTP status",
        upstream: "cmd/clusterctl/client/repository/repository_github.go:186 (errNotFound :53)",
        run: github_draft_only,
        exit: 1,
        first_line: "error: failed to read \"metadata.yaml\" from the repository for provider \"infrastructure-azure\"",
        also: &[
            "caused by: release not found for version v1.2.3, please retry later or set \"GOPROXY=off\" to get the current stable release: 404 Not Found",
            "hint: the release does not exist or is still a draft",
        ],
        stdout: &[],
    },
    Row {
        behaviour: "GitHub rate limit (verify --max-wait)",
        upstream: "cmd/clusterctl/client/repository/repository_github.go:54 (Test_handleGithubErr)",
        run: github_rate_limited,
        exit: 1,
        first_line: "error: rate limit for github api has been reached. Please wait one hour or get a personal API token and assign it to the GITHUB_TOKEN environment variable",
        also: &[
            "caused by: ",
            "longer than the 1s capkg may wait (`--max-wait`)",
            "capkg verify --max-wait",
        ],
        stdout: &[],
    },
    Row {
        behaviour: "GitHub asset name with an escaped character in the URL",
        upstream: "cmd/clusterctl/client/repository/repository_github.go:219 (rURL.Path, decoded)",
        run: github_spaced_asset,
        // Read and linted: `files/unfetchable-name` says why capkg would not publish the name.
        exit: 1,
        first_line: "",
        also: &[],
        stdout: &["\n  another file.yaml  ", "files/unfetchable-name"],
    },
    Row {
        behaviour: "GitLab URL clusterctl refuses, read fails",
        upstream: "cmd/clusterctl/client/repository/client.go:209 (and :197 for https hosts without `gitlab.`)",
        run: gitlab_on_loopback_without_files,
        exit: 1,
        // Said as a warning before the first request, then as the error's first words.
        first_line: "warning: invalid provider url. there are no provider implementation for \"http\" schema",
        also: &[
            "error: invalid provider url. there are no provider implementation for \"http\" schema",
            "caused by: failed to read \"metadata.yaml\" from the repository for provider",
            "/metadata.yaml\", got 404",
            "clusterctl would refuse this URL before any request",
        ],
        stdout: &[],
    },
    Row {
        behaviour: "GitLab URL on an https host not starting with `gitlab.`: warned before any request",
        upstream: "cmd/clusterctl/client/repository/client.go:197",
        run: gitlab_on_another_host,
        exit: 2,
        first_line: "warning: invalid provider url. Only GitHub and GitLab are supported for \"https\" schema: clusterctl reads GitLab packages only from hosts starting with `gitlab.`, so it would refuse `git.capkg-test.invalid`",
        also: &[
            "error: invalid provider url. Only GitHub and GitLab are supported for \"https\" schema",
        ],
        stdout: &[],
    },
    Row {
        behaviour: "cluster-api with another type (render)",
        upstream: "cmd/clusterctl/client/config/providers_client.go:594 (init_test.go:119)",
        run: render_cluster_api_as_bootstrap,
        exit: 1,
        first_line: "error: name cluster-api must be used with the CoreProvider type (name: cluster-api, type: BootstrapProvider)",
        also: &[],
        stdout: &[],
    },
    Row {
        behaviour: "cluster-api with another type (verify)",
        upstream: "cmd/clusterctl/client/config/providers_client.go:594",
        run: verify_cluster_api_as_bootstrap,
        exit: 1,
        first_line: "error: name cluster-api must be used with the CoreProvider type (name: cluster-api, type: BootstrapProvider)",
        also: &[],
        stdout: &[],
    },
    Row {
        behaviour: "cluster-api with another type (publish, which prints `providers:`)",
        upstream: "cmd/clusterctl/client/config/providers_client.go:594",
        run: publish_cluster_api_as_bootstrap,
        exit: 1,
        first_line: "error: name cluster-api must be used with the CoreProvider type (name: cluster-api, type: BootstrapProvider)",
        also: &[],
        stdout: &[],
    },
    Row {
        behaviour: "YAML error names the document",
        upstream: "util/yaml/yaml.go:56 (yaml_test.go:107), wrapped by cmd/clusterctl/client/repository/template.go:122",
        run: render_second_document_broken,
        exit: 1,
        first_line: "error: failed to parse yaml: failed to unmarshal the 2nd yaml document: ",
        also: &["cluster-template.yaml:7:1: "],
        stdout: &[],
    },
    Row {
        behaviour: "YAML error names the separator",
        upstream: "util/yaml/yaml.go:48 (k8s.io/apimachinery YAMLReader.Read)",
        run: render_bad_separator,
        exit: 1,
        first_line: "error: failed to parse yaml: failed to read yaml: invalid Yaml document separator: foo",
        also: &["cluster-template.yaml:3:5:"],
        stdout: &[],
    },
    Row {
        behaviour: "render keeps the last of duplicate keys, with a warning",
        upstream: "util/yaml/yaml.go:55 (sigs.k8s.io/yaml Unmarshal: the last value wins)",
        run: render_duplicate_keys,
        exit: 0,
        first_line: "warning: ",
        also: &[
            "cluster-template.yaml:8:3: duplicate key `b`",
            "clusterctl keeps the last value",
        ],
        stdout: &[],
    },
    Row {
        behaviour: "missing template in a provider folder (render --flavor)",
        upstream: "cmd/clusterctl/client/repository/template_client.go:96",
        run: render_missing_flavor,
        exit: 1,
        first_line: "error: failed to read \"cluster-template-nope.yaml\" from provider's repository \"infrastructure-azure\"",
        also: &[
            "infrastructure-azure/v1.2.3/cluster-template-nope.yaml",
            "hint: the folder's flavors: (none)",
        ],
        stdout: &[],
    },
    Row {
        behaviour: "missing ClusterClass beside a template (render)",
        upstream: "cmd/clusterctl/client/repository/clusterclass_client.go:87",
        run: render_missing_class,
        exit: 1,
        first_line: "error: failed to read \"clusterclass-quick-start.yaml\" from provider's repository \"infrastructure-azure\"",
        also: &["clusterclass-quick-start.yaml`: "],
        stdout: &[],
    },
    Row {
        behaviour: "missing components file (render)",
        upstream: "cmd/clusterctl/client/repository/components_client.go:97",
        run: render_missing_components,
        exit: 1,
        first_line: "error: failed to read \"infrastructure-components.yaml\" from provider's repository \"infrastructure-azure\"",
        also: &["infrastructure-azure/v1.2.3/infrastructure-components.yaml`"],
        stdout: &[],
    },
];

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn clusterctl_messages_come_first() {
    let mut failures = Vec::new();
    for row in TABLE {
        let dir = tempfile::tempdir().unwrap();
        let output = (row.run)(dir.path());
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        let first = stderr.lines().next().unwrap_or("");
        let mut problems = Vec::new();
        if output.status.code() != Some(row.exit) {
            problems.push(format!(
                "exit {:?}, want {}",
                output.status.code(),
                row.exit
            ));
        }
        if !first.starts_with(row.first_line) {
            problems.push(format!("first line {first:?}"));
        }
        for also in row.also {
            if !stderr.contains(also) {
                problems.push(format!("no {also:?}"));
            }
        }
        let stdout = String::from_utf8_lossy(&output.stdout);
        for want in row.stdout {
            if !stdout.contains(want) {
                problems.push(format!("no {want:?} on stdout"));
            }
        }
        if !problems.is_empty() {
            failures.push(format!(
                "{} ({}): {}\n--- stderr:\n{stderr}--- stdout:\n{}",
                row.behaviour,
                row.upstream,
                problems.join("; "),
                String::from_utf8_lossy(&output.stdout)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// --- the rows' commands ---

fn files_without(name: &str) -> Vec<(String, Vec<u8>)> {
    release_files()
        .into_iter()
        .filter(|(n, _)| *n != name)
        .map(|(n, c)| (n.to_string(), c))
        .collect()
}

fn add_release(github: &FakeGitHub, tag: &str, draft: bool, files: &[(String, Vec<u8>)]) {
    let assets: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_slice()))
        .collect();
    github.add_release(tag, draft, &assets);
}

fn verify_github(github: &FakeGitHub, url: &str, args: &[&str]) -> Output {
    capkg()
        .args([
            "verify",
            url,
            "--api-url",
            &github.api,
            "--provider",
            "azure",
        ])
        .args(args)
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap()
}

fn github_without_metadata(_: &Path) -> Output {
    let github = FakeGitHub::start();
    add_release(&github, "v1.2.3", false, &files_without("metadata.yaml"));
    verify_github(&github, URL_V123, &[])
}

fn github_without_components(_: &Path) -> Output {
    let github = FakeGitHub::start();
    add_release(
        &github,
        "v1.2.3",
        false,
        &files_without("infrastructure-components.yaml"),
    );
    verify_github(&github, URL_V123, &[])
}

fn github_draft_only(_: &Path) -> Output {
    let github = FakeGitHub::start();
    add_release(&github, "v1.2.3", true, &files_without(""));
    verify_github(&github, URL_V123, &[])
}

fn github_rate_limited(_: &Path) -> Output {
    let github = FakeGitHub::start();
    add_release(&github, "v1.2.3", false, &files_without(""));
    github.fault(
        "GET",
        "/releases",
        FaultAction::Reply(
            Reply::json(429, json!({"message": "API rate limit exceeded"}))
                .header("retry-after", "3600"),
        ),
        1,
    );
    verify_github(
        &github,
        "https://github.com/o/r/releases/latest/infrastructure-components.yaml",
        &["--max-wait", "1s"],
    )
}

fn github_spaced_asset(_: &Path) -> Output {
    let github = FakeGitHub::start();
    let mut files = files_without("");
    files.push(("another file.yaml".into(), COMPONENTS.as_bytes().to_vec()));
    add_release(&github, "v1.2.3", false, &files);
    verify_github(
        &github,
        "https://github.com/o/r/releases/v1.2.3/another%20file.yaml",
        &["--type", "infrastructure"],
    )
}

fn gitlab_on_loopback_without_files(_: &Path) -> Output {
    let gitlab = FakeGitLab::start();
    capkg()
        .env("CI_API_V4_URL", &gitlab.api)
        .env("CI_JOB_TOKEN", JOB_TOKEN)
        .args([
            "verify",
            &format!(
                "{}/projects/{PROJECT_ID}/packages/generic/capz/v1.2.3/infrastructure-components.yaml",
                gitlab.api
            ),
        ])
        .output()
        .unwrap()
}

/// A host that resolves nowhere, behind a proxy on a closed loopback port: the first request
/// fails at once, so what stderr says before it is what capkg said before fetching.
fn gitlab_on_another_host(_: &Path) -> Output {
    capkg()
        .env("HTTPS_PROXY", "http://127.0.0.1:9")
        .env("https_proxy", "http://127.0.0.1:9")
        .args([
            "verify",
            "--max-wait",
            "0s",
            "https://git.capkg-test.invalid/api/v4/projects/1/packages/generic/capz/v1.2.3/infrastructure-components.yaml",
        ])
        .output()
        .unwrap()
}

fn render_cluster_api_as_bootstrap(dir: &Path) -> Output {
    let file = dir.join("bootstrap-components.yaml");
    std::fs::write(&file, COMPONENTS).unwrap();
    capkg()
        .arg("render")
        .arg(&file)
        .args(["--provider", "cluster-api", "--type", "bootstrap"])
        .output()
        .unwrap()
}

fn verify_cluster_api_as_bootstrap(dir: &Path) -> Output {
    capkg()
        .arg("verify")
        .arg(dir)
        .args(["--provider", "cluster-api", "--type", "bootstrap"])
        .output()
        .unwrap()
}

fn publish_cluster_api_as_bootstrap(dir: &Path) -> Output {
    let out = dir.join("out");
    let mut files = release_files();
    files[0].0 = "bootstrap-components.yaml";
    write_release(&out, &files);
    capkg()
        .args(["publish", "local"])
        .arg(&out)
        .args([
            "--version",
            "v1.2.3",
            "--provider",
            "cluster-api",
            "--type",
            "bootstrap",
        ])
        .arg("--repository")
        .arg(dir.join("repo"))
        .output()
        .unwrap()
}

/// A provider folder in a local repository layout holding `template` as `cluster-template.yaml`.
fn provider_folder(dir: &Path, template: &str) -> std::path::PathBuf {
    let version = dir.join("infrastructure-azure").join("v1.2.3");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::write(version.join("cluster-template.yaml"), template).unwrap();
    version
}

fn render(path: &Path, args: &[&str]) -> Output {
    capkg()
        .arg("render")
        .arg(path)
        .args(["--cluster-name", "c1"])
        .args(args)
        .output()
        .unwrap()
}

fn render_second_document_broken(dir: &Path) -> Output {
    let folder = provider_folder(
        dir,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nfoobar\nkind: Secret\n",
    );
    render(&folder, &[])
}

fn render_bad_separator(dir: &Path) -> Output {
    let folder = provider_folder(
        dir,
        "apiVersion: v1\nkind: ConfigMap\n--- foo\napiVersion: v1\nkind: Secret\n",
    );
    render(&folder, &[])
}

const DUPLICATE_KEYS: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: a
data:
  a: first
  b: first
  b: last
";

fn render_duplicate_keys(dir: &Path) -> Output {
    let folder = provider_folder(dir, DUPLICATE_KEYS);
    render(&folder.join("cluster-template.yaml"), &[])
}

fn render_missing_flavor(dir: &Path) -> Output {
    let folder = provider_folder(dir, TEMPLATE);
    render(&folder, &["--flavor", "nope"])
}

fn render_missing_class(dir: &Path) -> Output {
    let folder = provider_folder(
        dir,
        "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata:\n  name: ${CLUSTER_NAME}\nspec:\n  topology:\n    class: quick-start\n    version: v1.30.0\n",
    );
    render(&folder, &[])
}

fn render_missing_components(dir: &Path) -> Output {
    let folder = provider_folder(dir, TEMPLATE);
    capkg()
        .arg("render")
        .arg(folder.join("infrastructure-components.yaml"))
        .output()
        .unwrap()
}

// --- behaviours beyond the first line ---

#[test]
fn render_keeps_the_last_duplicate_and_lint_still_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let folder = provider_folder(dir.path(), DUPLICATE_KEYS);
    let output = render(&folder.join("cluster-template.yaml"), &[]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("  b: last\n"), "{text}");
    assert!(!text.contains("b: first"), "{text}");

    let lint = capkg().args(["lint"]).arg(&folder).output().unwrap();
    assert_eq!(lint.status.code(), Some(1));
    let report = String::from_utf8_lossy(&lint.stdout);
    assert!(report.contains("duplicate key `b`"), "{report}");
}

/// The fake GitHub keeps an asset's name as uploaded; real GitHub's upload endpoint renames
/// names with spaces and other special characters (a space becomes `.`), so `capkg publish`
/// refuses such a name before any request, and the asset is put on the fake server directly, as
/// another tool could have left it. `verify` reads it through the percent-encoded URL, as
/// clusterctl decodes `rURL.Path` (`repository_github.go:219`).
#[test]
fn an_asset_with_a_space_is_read_back_through_its_escaped_url() {
    let github = FakeGitHub::start();
    let root = tempfile::tempdir().unwrap();
    let out = root.path().join("out");
    let mut files = release_files();
    files.push((
        "cluster-template-my flavor.yaml",
        TEMPLATE.as_bytes().to_vec(),
    ));
    write_release(&out, &files);
    let published = capkg()
        .args(["publish", "github"])
        .arg(&out)
        .args([
            "--version",
            "v1.2.3",
            "--repo",
            "o/r",
            "--api-url",
            &github.api,
        ])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_eq!(published.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&published.stderr).contains("holds a space"),
        "{}",
        String::from_utf8_lossy(&published.stderr)
    );
    assert!(github.mutations().is_empty(), "{:?}", github.mutations());

    let assets: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (*n, c.as_slice())).collect();
    github.add_release("v1.2.3", false, &assets);
    let verified = capkg()
        .args([
            "--format",
            "json",
            "verify",
            "https://github.com/o/r/releases/v1.2.3/cluster-template-my%20flavor.yaml",
            "--api-url",
            &github.api,
        ])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&verified.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&verified.stdout),
            String::from_utf8_lossy(&verified.stderr)
        )
    });
    let read = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "cluster-template-my flavor.yaml")
        .unwrap_or_else(|| panic!("not read back: {report}"));
    assert_eq!(
        read["url"],
        "https://github.com/o/r/releases/v1.2.3/cluster-template-my%20flavor.yaml"
    );
    assert_eq!(read["sha256"], sha256(TEMPLATE.as_bytes()));
    let asset = github.release("v1.2.3")[0]
        .assets
        .iter()
        .find(|a| a.name == "cluster-template-my flavor.yaml")
        .map(|a| a.id)
        .unwrap();
    assert!(
        github.count("GET", &format!("/releases/assets/{asset}")) >= 1,
        "the asset was not downloaded"
    );
    assert!(
        report["files"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["name"] == "metadata.yaml" && f["sha256"] == sha256(METADATA.as_bytes()))
    );
}
