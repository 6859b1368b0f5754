//! Release-pinned images (`images:`), what a release may run (moving tags, local registries,
//! placeholders: errors with a version, warnings without), and waivers (`lint: allow:`,
//! `--allow`) in every output format, on a small provider written by each test.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::release_common::{clean_capkg, stderr, stdout};

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 2\n  contract: v1beta2\n";

/// A one-Deployment provider whose manager runs `image`, with `extra` appended to capkg.yaml.
fn provider(image: &str, extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let components = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\nspec:\n  selector:\n    matchLabels: {{app: m}}\n  template:\n    metadata:\n      labels: {{app: m}}\n    spec:\n      containers:\n      - name: manager\n        image: {image}\n"
    );
    write(dir.path(), "components.yaml", &components);
    write(dir.path(), "metadata.yaml", METADATA);
    write(
        dir.path(),
        "capkg.yaml",
        &format!(
            "provider:\n  name: capx\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\n{extra}"
        ),
    );
    dir
}

fn write(root: &Path, name: &str, text: &str) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn run(dir: &Path, args: &[&str]) -> Output {
    clean_capkg()
        .args(args)
        .args(["--color", "never"])
        .current_dir(dir)
        .output()
        .unwrap()
}

fn lint_json(dir: &Path, extra: &[&str]) -> (Option<i32>, Value) {
    let mut args = vec![
        "lint",
        "--format",
        "json",
        "components.yaml",
        "metadata.yaml",
    ];
    args.extend_from_slice(extra);
    // Lint reads the components file under its release name.
    let release = dir.join("release");
    std::fs::create_dir_all(&release).unwrap();
    std::fs::copy(
        dir.join("components.yaml"),
        release.join("infrastructure-components.yaml"),
    )
    .unwrap();
    std::fs::copy(dir.join("metadata.yaml"), release.join("metadata.yaml")).unwrap();
    args.retain(|a| *a != "components.yaml" && *a != "metadata.yaml");
    args.push("release");
    let output = run(dir, &args);
    let json = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", stdout(&output), stderr(&output)));
    (output.status.code(), json)
}

fn findings<'a>(json: &'a Value, rule: &str) -> Vec<&'a Value> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == rule)
        .collect()
}

/// Each image a release cannot run, the rule that reports it, and the `images:` entry the hint
/// shows.
const CASES: [(&str, &str, &str); 4] = [
    (
        "gcr.io/capx/manager:latest",
        "components/image-tag",
        "{name: gcr.io/capx/manager, newTag: \"{version}\"}",
    ),
    (
        "gcr.io/capx/manager",
        "components/image-tag",
        "{name: gcr.io/capx/manager, newTag: \"{version}\"}",
    ),
    (
        "localhost:5000/capx/manager:v1.2.0",
        "components/image-registry",
        "newName: <registry>/capx/manager",
    ),
    (
        "example.com/capx/manager:v1.2.0",
        "components/image-placeholder",
        "{name: \"example.com/capx/manager\", newName: <registry>/<image>",
    ),
];

#[test]
fn unreleasable_images_are_errors_with_a_version_and_warnings_without() {
    for (image, rule, hint) in CASES {
        let dir = provider(image, "");
        let (code, json) = lint_json(dir.path(), &[]);
        let found = findings(&json, rule);
        assert_eq!(found.len(), 1, "{image}: {json}");
        assert_eq!(found[0]["severity"], "warning", "{image}");
        assert_eq!(code, Some(0), "{image}: warnings do not fail lint");

        let (code, json) = lint_json(dir.path(), &["--version", "v1.2.0"]);
        let found = findings(&json, rule);
        assert_eq!(found.len(), 1, "{image}: {json}");
        assert_eq!(found[0]["severity"], "error", "{image}");
        assert!(
            found[0]["help"].as_str().unwrap().contains(hint),
            "{image}: {}",
            found[0]["help"]
        );
        assert_eq!(code, Some(1), "{image}");

        // assemble: written without a version, refused with one.
        let output = run(dir.path(), &["assemble"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{image}: {}",
            stderr(&output)
        );
        assert!(
            dir.path()
                .join("out/infrastructure-components.yaml")
                .is_file()
        );
        std::fs::remove_dir_all(dir.path().join("out")).unwrap();
        let output = run(dir.path(), &["assemble", "--version", "v1.2.0"]);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{image}: {}",
            stderr(&output)
        );
        assert!(
            stdout(&output).contains(rule),
            "{image}: {}",
            stdout(&output)
        );
        assert!(!dir.path().join("out").exists(), "{image}: nothing written");
    }
}

#[test]
fn an_images_pin_fixes_what_a_release_cannot_run() {
    for (image, _, _) in CASES {
        let name = image
            .rsplit_once(':')
            .map_or(image, |(n, t)| if t.contains('/') { image } else { n });
        let dir = provider(
            image,
            &format!(
                "images:\n  - name: \"{name}\"\n    newName: registry.k8s.io/capx/manager\n    newTag: \"{{version}}\"\n"
            ),
        );
        let output = run(dir.path(), &["assemble", "--version", "v1.2.0"]);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{image}: {}",
            stdout(&output)
        );
        let written =
            std::fs::read_to_string(dir.path().join("out/infrastructure-components.yaml")).unwrap();
        assert!(
            written.contains("image: registry.k8s.io/capx/manager:v1.2.0"),
            "{image}: {written}"
        );
    }
}

#[test]
fn kubebuilders_controller_image_is_a_placeholder() {
    let dir = provider("controller:latest", "");
    let (_, json) = lint_json(dir.path(), &["--version", "v1.2.0"]);
    let found = findings(&json, "components/image-placeholder");
    assert_eq!(found.len(), 1, "{json}");
    assert_eq!(found[0]["severity"], "error");
    assert!(
        found[0]["message"]
            .as_str()
            .unwrap()
            .contains("kubebuilder")
    );
    let dir = provider(
        "controller:latest",
        "images:\n  - name: controller\n    newName: registry.k8s.io/capx/manager\n    newTag: \"{version}\"\n",
    );
    let output = run(dir.path(), &["assemble", "--version", "v1.2.0"]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
}

#[test]
fn an_images_entry_that_matches_nothing_is_an_error_with_and_without_a_version() {
    let dir = provider(
        "gcr.io/capx/manager:v1.2.0",
        "images:\n  - name: gcr.io/capx/manger\n    newTag: \"{version}\"\n",
    );
    for args in [&["assemble", "--version", "v1.2.0"][..], &["assemble"][..]] {
        let output = run(dir.path(), args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&output)
        );
        let text = stderr(&output);
        if args.len() > 1 {
            assert!(text.contains("capkg.yaml:8:5: the `images` entry `gcr.io/capx/manger` matches no image in the components (images found: `gcr.io/capx/manager:v1.2.0`)"), "{text}");
        } else {
            // Without a version, `{version}` cannot be filled in: that is said first.
            assert!(
                text.contains(
                    "capkg.yaml:8:5: `newTag: \"{version}\"` needs the version being released"
                ),
                "{text}"
            );
        }
        assert!(!dir.path().join("out").exists());
    }
    let dir = provider(
        "gcr.io/capx/manager:v1.2.0",
        "images:\n  - name: gcr.io/capx/manger\n    newName: registry.k8s.io/capx/manager\n",
    );
    let output = run(dir.path(), &["assemble"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("matches no image"),
        "{}",
        stderr(&output)
    );
}

/// Every image string of a YAML stream, in order.
fn images_of(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.trim().trim_start_matches("- ").strip_prefix("image: "))
        .map(|s| s.trim_matches('"').to_string())
        .collect()
}

const WORKLOADS: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: capx-controller-manager
  namespace: capx-system
spec:
  template:
    spec:
      initContainers:
      - name: init
        image: gcr.io/capx/init:dev
      containers:
      - name: manager
        image: gcr.io/capx/manager:main
      - name: proxy
        image: gcr.io/kubebuilder/kube-rbac-proxy:v0.15.0
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: capx-agent
  namespace: capx-system
spec:
  template:
    spec:
      containers:
      - name: agent
        image: localhost:5000/capx/agent@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: capx-gc
  namespace: capx-system
spec:
  schedule: '@daily'
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: gc
            image: gcr.io/capx/gc
";

/// The same entries for capkg (with placeholders) and kustomize (with them filled in).
const PINS: &str = "images:
  - name: gcr.io/capx/manager
    newName: registry.k8s.io/capx/manager
    newTag: \"{version}\"
  - name: gcr.io/capx/init
    newTag: \"{semver}\"
  - name: localhost:5000/capx/agent
    newName: registry.k8s.io/capx/agent
    newTag: \"{version}\"
  - name: gcr.io/capx/gc
    digest: sha256:1111111111111111111111111111111111111111111111111111111111111111
";

#[test]
fn images_pin_every_workload_as_kubectl_kustomize_does() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "components.yaml",
        &format!(
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n---\n{WORKLOADS}"
        ),
    );
    write(dir.path(), "metadata.yaml", METADATA);
    write(
        dir.path(),
        "capkg.yaml",
        &format!(
            "provider:\n  name: capx\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\n{PINS}"
        ),
    );
    let output = run(dir.path(), &["assemble", "--version", "v1.2.3", "-v"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    assert!(
        stderr(&output)
            .contains("image `gcr.io/capx/manager:main` -> `registry.k8s.io/capx/manager:v1.2.3`"),
        "the change is listed: {}",
        stderr(&output)
    );
    let written =
        std::fs::read_to_string(dir.path().join("out/infrastructure-components.yaml")).unwrap();
    let ours = images_of(&written);
    let expected = [
        "gcr.io/capx/init:1.2.3",
        "registry.k8s.io/capx/manager:v1.2.3",
        "gcr.io/kubebuilder/kube-rbac-proxy:v0.15.0",
        "registry.k8s.io/capx/agent:v1.2.3",
        "gcr.io/capx/gc@sha256:1111111111111111111111111111111111111111111111111111111111111111",
    ];
    let mut sorted = ours.clone();
    sorted.sort();
    let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
    want.sort();
    assert_eq!(sorted, want, "{written}");

    // kubectl kustomize with the same entries, placeholders filled in, gives the same images.
    let kustomize = dir.path().join("kustomize");
    write(&kustomize, "workloads.yaml", WORKLOADS);
    write(
        &kustomize,
        "kustomization.yaml",
        &format!(
            "resources: [workloads.yaml]\n{}",
            PINS.replace("{version}", "v1.2.3")
                .replace("{semver}", "1.2.3")
        ),
    );
    let Ok(output) = std::process::Command::new("kubectl")
        .args(["kustomize"])
        .arg(&kustomize)
        .output()
    else {
        eprintln!("kubectl not found; compared with the recorded kustomize result only");
        return;
    };
    assert!(output.status.success(), "{}", stderr(&output));
    let mut theirs = images_of(&stdout(&output));
    theirs.sort();
    assert_eq!(sorted, theirs, "capkg and kubectl kustomize differ");
}

#[test]
fn a_components_command_gets_the_release_version() {
    let dir = provider("gcr.io/capx/manager:VERSION", "");
    let config = std::fs::read_to_string(dir.path().join("capkg.yaml"))
        .unwrap()
        .replace(
            "  file: components.yaml",
            "  command: sed \"s/VERSION/$CAPKG_VERSION/\" components.yaml",
        );
    write(dir.path(), "capkg.yaml", &config);
    let output = run(dir.path(), &["assemble", "--version", "v1.2.0"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    let written =
        std::fs::read_to_string(dir.path().join("out/infrastructure-components.yaml")).unwrap();
    assert!(
        written.contains("image: gcr.io/capx/manager:v1.2.0"),
        "{written}"
    );
}

const WAIVER: &str = "lint:\n  allow:\n    - rule: components/image-tag\n      files: [\"infrastructure-components.yaml\"]\n      reason: the e2e suite pins this image itself\n";

#[test]
fn a_waived_finding_is_shown_in_every_format_and_does_not_fail() {
    let dir = provider("gcr.io/capx/manager:latest", WAIVER);
    let (code, json) = lint_json(dir.path(), &["--version", "v1.2.0"]);
    assert_eq!(code, Some(0), "{json}");
    let found = findings(&json, "components/image-tag");
    assert_eq!(found.len(), 1, "{json}");
    assert_eq!(found[0]["severity"], "error");
    assert_eq!(found[0]["waived"], "the e2e suite pins this image itself");
    assert_eq!(json["summary"]["errors"], 0);
    assert_eq!(json["summary"]["waived"], 1);
    assert!(findings(&json, "lint/unused-waiver").is_empty());

    let output = run(dir.path(), &["lint", "--version", "v1.2.0", "release"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(
        text.contains("components/image-tag error (waived)"),
        "{text}"
    );
    assert!(
        text.contains("waived: the e2e suite pins this image itself"),
        "{text}"
    );
    assert!(text.contains("1 waived"), "{text}");

    let output = run(
        dir.path(),
        &[
            "lint",
            "--format",
            "github",
            "--version",
            "v1.2.0",
            "release",
        ],
    );
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let line = text
        .lines()
        .find(|l| l.contains("components/image-tag"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.starts_with("::notice ")
            && line.contains("title=components/image-tag error (waived)")
            && line.contains("waived: the e2e suite pins this image itself"),
        "{line}"
    );
    assert!(text.contains("0 errors"), "{text}");

    // assemble writes the release with the finding waived.
    let output = run(dir.path(), &["assemble", "--version", "v1.2.0"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
}

#[test]
fn allow_on_the_command_line_waives_without_a_configuration() {
    let dir = provider("gcr.io/capx/manager:latest", "");
    std::fs::remove_file(dir.path().join("capkg.yaml")).unwrap();
    let (code, json) = lint_json(
        dir.path(),
        &[
            "--version",
            "v1.2.0",
            "--allow",
            "components/image-tag=judged by hand",
        ],
    );
    assert_eq!(code, Some(0), "{json}");
    assert_eq!(
        findings(&json, "components/image-tag")[0]["waived"],
        "judged by hand"
    );
    let (code, json) = lint_json(
        dir.path(),
        &["--version", "v1.2.0", "--allow", "components/image-tag"],
    );
    assert_eq!(code, Some(0), "{json}");
    assert!(
        findings(&json, "components/image-tag")[0]["waived"]
            .as_str()
            .unwrap()
            .contains("--allow")
    );
    let output = run(
        dir.path(),
        &["lint", "--allow", "components/nope", "release"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("there is no rule `components/nope`"));
}

#[test]
fn a_stale_waiver_is_a_warning_at_its_line() {
    let dir = provider(
        "gcr.io/capx/manager:v1.2.0",
        "lint:\n  allow:\n    - rule: templates/clusterclass-file\n      reason: the class ships with the e2e suite\n",
    );
    let (code, json) = lint_json(dir.path(), &["--version", "v1.2.0"]);
    assert_eq!(code, Some(0), "{json}");
    let stale = findings(&json, "lint/unused-waiver");
    assert_eq!(stale.len(), 1, "{json}");
    assert_eq!(stale[0]["severity"], "warning");
    assert_eq!(stale[0]["line"], 9);
    assert!(stale[0]["file"].as_str().unwrap().ends_with("capkg.yaml"));
    assert!(
        stale[0]["message"]
            .as_str()
            .unwrap()
            .contains("`templates/clusterclass-file`")
    );
}

#[test]
fn a_waiver_without_a_reason_or_with_an_unknown_rule_is_refused() {
    let dir = provider(
        "gcr.io/capx/manager:latest",
        "lint:\n  allow:\n    - rule: components/image-tag\n",
    );
    for args in [
        &["lint", "release"][..],
        &["assemble", "--version", "v1.2.0"][..],
    ] {
        std::fs::create_dir_all(dir.path().join("release")).unwrap();
        let output = run(dir.path(), args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&output)
                .contains("capkg.yaml:9:7: the waiver of `components/image-tag` needs a `reason`"),
            "{}",
            stderr(&output)
        );
    }
    let dir = provider(
        "gcr.io/capx/manager:latest",
        "lint:\n  allow:\n    - rule: components/imagetag\n      reason: x\n",
    );
    let output = run(dir.path(), &["assemble"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("capkg.yaml:9:13: there is no rule `components/imagetag`"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn rules_say_how_to_waive() {
    let output = run(Path::new("."), &["rules", "templates/single-namespace"]);
    let text = stdout(&output);
    assert!(
        text.contains("templates/single-namespace (warning)"),
        "{text}"
    );
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("lint: allow:"), "{text}");
    assert!(
        text.contains("--allow templates/single-namespace=<why>"),
        "{text}"
    );
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn the_release_summary_counts_waivers_and_urls_have_no_dot_dot() {
    let dir = provider(
        "gcr.io/capx/manager:latest",
        &format!("{WAIVER}targets:\n  local:\n    repository: sub/../repo\n"),
    );
    std::fs::create_dir_all(dir.path().join("sub")).unwrap();
    let summary = dir.path().join("summary.md");
    let output: Output = clean_capkg()
        .args([
            "release",
            "--target",
            "local",
            "--version",
            "v1.2.0",
            "--format",
            "json",
        ])
        .current_dir(dir.path())
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap();
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}{}", stderr(&output));
    let outcome: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(outcome["lint"]["waived"], 1, "{text}");
    assert_eq!(outcome["lint"]["errors"], 0, "{text}");
    assert_eq!(outcome["status"], "published");
    assert!(
        outcome["targets"][0]["verify"]["ok"].as_bool().unwrap(),
        "{text}"
    );
    let url = outcome["targets"][0]["clusterctl_url"].as_str().unwrap();
    assert!(
        url.starts_with("file:///") && !url.contains("/../") && !url.contains("/./"),
        "{url}"
    );
    assert!(
        url.ends_with("/repo/infrastructure-capx/v1.2.0/infrastructure-components.yaml"),
        "{url}"
    );
    let markdown = std::fs::read_to_string(summary).unwrap();
    assert!(
        markdown.contains("0 error(s), 0 warning(s), 0 info(s), 1 waived"),
        "{markdown}"
    );
    assert!(
        markdown.contains("waived: the e2e suite pins this image itself"),
        "{markdown}"
    );
    let _: PathBuf = dir.path().to_path_buf();
}
