//! Waivers that say what they accept (issue 38): narrowed to a field path and, for `upgrade/…`
//! rules, to the previous release they were judged against; a waiver that matched nothing warns
//! in each command that could have matched it, and only there.
//!
//! The releases are CAPD trimmed to one CRD (`testdata/diff/infrastructure-docker`), published
//! to a local repository as three patch releases of series 1.15: v1.15.1 drops the v1beta2
//! schema's `status`, v1.15.2 then drops its `spec`.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::release_common::{clean_capkg as capkg, json, stderr, stdout};

const LABEL: &str = "infrastructure-docker";
const CRD: &str = "CustomResourceDefinition/devclusters.infrastructure.cluster.x-k8s.io";
const STATUS: &str = "spec.versions[v1beta2].schema.openAPIV3Schema.status";
const SPEC: &str = "spec.versions[v1beta2].schema.openAPIV3Schema.spec";

fn provider() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff/infrastructure-docker")
}

/// The v1beta2 version's top-level schema property `property` renamed, so the old name is gone.
fn drop_v1beta2_property(text: &str, property: &str) -> String {
    let (head, tail) = text.split_once("    name: v1beta2\n").unwrap();
    let key = format!("\n          {property}:\n            description: ");
    assert_eq!(tail.matches(&key).count(), 1, "{key}");
    let renamed = format!("\n          {property}Gone:\n            description: ");
    format!(
        "{head}    name: v1beta2\n{}",
        tail.replacen(&key, &renamed, 1)
    )
}

/// A local repository holding v1.15.0, v1.15.1 (no `status`) and v1.15.2 (no `status`, no
/// `spec`), with `waivers` as capkg.yaml's `lint: allow:` entries.
struct Releases {
    dir: tempfile::TempDir,
}

impl Releases {
    fn new(waivers: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base =
            std::fs::read_to_string(provider().join("infrastructure-components.yaml")).unwrap();
        let without_status = drop_v1beta2_property(&base, "status");
        let without_both = drop_v1beta2_property(&without_status, "spec");
        for (version, components) in [
            ("v1.15.0", &base),
            ("v1.15.1", &without_status),
            ("v1.15.2", &without_both),
        ] {
            let folder = dir.path().join(LABEL).join(version);
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::copy(
                provider().join("metadata.yaml"),
                folder.join("metadata.yaml"),
            )
            .unwrap();
            std::fs::write(folder.join("infrastructure-components.yaml"), components).unwrap();
        }
        std::fs::write(
            dir.path().join("capkg.yaml"),
            format!("lint:\n  allow:\n{waivers}"),
        )
        .unwrap();
        Self { dir }
    }

    fn folder(&self, version: &str) -> String {
        self.dir
            .path()
            .join(LABEL)
            .join(version)
            .display()
            .to_string()
    }

    fn diff(&self, old: &str, new: &str) -> Output {
        capkg()
            .current_dir(self.dir.path())
            .args(["diff", &self.folder(old), &self.folder(new)])
            .args(["--format", "json"])
            .output()
            .unwrap()
    }
}

fn findings<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == rule)
        .collect()
}

fn field_removed<'a>(report: &'a Value, field: &str) -> &'a Value {
    findings(report, "upgrade/crd-field-removed")
        .into_iter()
        .find(|d| d["field"] == field)
        .unwrap_or_else(|| panic!("no crd-field-removed at {field}: {report}"))
}

/// The waiver for v1.15.1's removal of `status`, as its release notes would justify it.
fn status_waiver(narrowing: &str) -> String {
    format!(
        "  - rule: upgrade/crd-field-removed\n    objects: [\"{CRD}\"]\n{narrowing}    reason: status moved to the v1beta2 conditions, announced in v1.15.1\n"
    )
}

#[test]
fn a_waiver_for_one_removal_no_longer_accepts_the_next_release_removing_another_field() {
    let releases = Releases::new(&status_waiver(&format!(
        "    field: {STATUS}\n    previous: v1.15.0\n"
    )));

    // v1.15.0 -> v1.15.1: the removal the waiver was written for.
    let output = releases.diff("v1.15.0", "v1.15.1");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    let status = field_removed(&report, STATUS);
    assert_eq!(status["previous"], "v1.15.0", "{report}");
    assert_eq!(
        status["waived"],
        "status moved to the v1beta2 conditions, announced in v1.15.1"
    );
    assert!(
        findings(&report, "lint/unused-waiver").is_empty(),
        "{report}"
    );

    // v1.15.1 -> v1.15.2: `spec` removed, another release, another field; refused.
    let output = releases.diff("v1.15.1", "v1.15.2");
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report = json(&output);
    let spec = field_removed(&report, SPEC);
    assert_eq!(spec["waived"], Value::Null, "{report}");
    assert_eq!(spec["previous"], "v1.15.1");
    assert_eq!(report["ok"], false);
    // The waiver matched nothing: a warning at its capkg.yaml line, saying what it names.
    let unused = findings(&report, "lint/unused-waiver");
    assert_eq!(unused.len(), 1, "{report}");
    assert_eq!(unused[0]["line"], 3);
    assert!(unused[0]["file"].as_str().unwrap().ends_with("capkg.yaml"));
    let message = unused[0]["message"].as_str().unwrap();
    assert!(message.contains(&format!("at field {STATUS}")), "{message}");
    assert!(
        message.contains("against previous release v1.15.0"),
        "{message}"
    );
}

#[test]
fn a_field_alone_accepts_that_field_and_what_is_below_it_in_any_comparison() {
    let releases = Releases::new(&status_waiver(&format!("    field: {STATUS}\n")));
    // v1.15.0 -> v1.15.2 removes both: `status` is waived, `spec` is not.
    let output = releases.diff("v1.15.0", "v1.15.2");
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report = json(&output);
    assert!(field_removed(&report, STATUS)["waived"].is_string());
    assert_eq!(field_removed(&report, SPEC)["waived"], Value::Null);

    // A version's field holds every property of its schema, and nothing of another version.
    let releases = Releases::new(&status_waiver("    field: spec.versions[v1beta2]\n"));
    let output = releases.diff("v1.15.0", "v1.15.2");
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let releases = Releases::new(&status_waiver("    field: spec.versions[v1beta1]\n"));
    let output = releases.diff("v1.15.0", "v1.15.2");
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(
        findings(&json(&output), "lint/unused-waiver").len(),
        1,
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_previous_version_alone_accepts_only_the_comparison_against_that_release() {
    let releases = Releases::new(&status_waiver("    previous: v1.15.0\n"));
    let output = releases.diff("v1.15.0", "v1.15.2");
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    // Judged against v1.15.1, the next removal (`spec`) is not what the waiver accepted.
    let output = releases.diff("v1.15.1", "v1.15.2");
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    let report = json(&output);
    assert_eq!(field_removed(&report, SPEC)["waived"], Value::Null);
}

#[test]
fn narrowing_a_lint_waiver_by_field_or_previous_release_is_refused_with_the_line() {
    for (entry, column, said) in [
        (
            "  - rule: components/image-tag\n    field: spec.template\n    reason: x\n",
            12,
            "`field` narrows a waiver of an `upgrade/…` rule",
        ),
        (
            "  - rule: components/image-tag\n    previous: v1.0.0\n    reason: x\n",
            15,
            "`previous` narrows a waiver of an `upgrade/…` rule",
        ),
        (
            "  - rule: upgrade/crd-field-removed\n    previous: last-one\n    reason: x\n",
            15,
            "`previous: last-one` is not a release version",
        ),
        (
            "  - rule: upgrade/crd-field-removed\n    field: \"\"\n    reason: x\n",
            12,
            "is not a field path",
        ),
    ] {
        let releases = Releases::new(entry);
        let output = releases.diff("v1.15.0", "v1.15.1");
        assert_eq!(
            output.status.code(),
            Some(2),
            "{entry}: {}",
            stdout(&output)
        );
        let text = stderr(&output);
        assert!(
            text.contains(&format!("capkg.yaml:4:{column}: ")) && text.contains(said),
            "{entry}: {text}"
        );
    }
}

#[test]
fn each_command_reports_unused_only_the_waivers_it_could_have_matched() {
    // One capkg.yaml: an upgrade waiver, one for a finding only `assemble` makes, one lint
    // waiver whose finding is gone, one naming a checkout path.
    let waivers = "  - rule: upgrade/crd-field-removed\n    reason: announced\n  - rule: build/dev-image-value\n    reason: the user agent keeps the development suffix\n  - rule: templates/clusterclass-file\n    reason: the class ships with the e2e suite\n  - rule: components/object-namespace\n    files: [\"config/rbac/*.yaml\"]\n    reason: kustomize sets it\n";
    let releases = Releases::new(waivers);
    let unused = |output: &Output| -> Vec<String> {
        findings(&json(output), "lint/unused-waiver")
            .iter()
            .map(|d| d["message"].as_str().unwrap().to_string())
            .collect()
    };
    let names = |messages: &[String], rule: &str| messages.iter().any(|m| m.contains(rule));

    // lint: its own waivers, not the upgrade one nor the one only assemble can match.
    let output = capkg()
        .current_dir(releases.dir.path())
        .args(["lint", "--format", "json", &releases.folder("v1.15.0")])
        .output()
        .unwrap();
    let lint = unused(&output);
    assert!(names(&lint, "`templates/clusterclass-file`"), "{lint:?}");
    assert!(names(&lint, "`components/object-namespace`"), "{lint:?}");
    assert!(!names(&lint, "`upgrade/crd-field-removed`"), "{lint:?}");
    assert!(!names(&lint, "`build/dev-image-value`"), "{lint:?}");

    // verify: a published release's files have no checkout path either.
    let output = capkg()
        .current_dir(releases.dir.path())
        .args(["verify", "--format", "json", &releases.folder("v1.15.0")])
        .output()
        .unwrap();
    let verify = unused(&output);
    assert!(
        names(&verify, "`templates/clusterclass-file`"),
        "{verify:?}"
    );
    assert!(
        !names(&verify, "`components/object-namespace`"),
        "{verify:?}"
    );
    assert!(!names(&verify, "`upgrade/crd-field-removed`"), "{verify:?}");
    assert!(!names(&verify, "`build/dev-image-value`"), "{verify:?}");

    // diff: the upgrade waiver only, once a comparison ran.
    let output = releases.diff("v1.15.0", "v1.15.0");
    let diff = unused(&output);
    assert_eq!(diff.len(), 1, "{diff:?}");
    assert!(names(&diff, "`upgrade/crd-field-removed`"), "{diff:?}");
}

/// A one-Deployment provider released to a local repository, with two waivers that match
/// nothing: one of lint's, one of an upgrade rule.
fn small_provider() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
    write(
        "components.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\nspec:\n  selector:\n    matchLabels: {app: m}\n  template:\n    metadata:\n      labels: {app: m}\n    spec:\n      containers:\n      - name: manager\n        image: gcr.io/capx/manager:v1.2.0\n",
    );
    write(
        "metadata.yaml",
        "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 2\n  contract: v1beta2\n",
    );
    write(
        "capkg.yaml",
        "provider:\n  name: capx\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\nlint:\n  allow:\n    - rule: templates/clusterclass-file\n      reason: the class ships with the e2e suite\n    - rule: upgrade/crd-field-removed\n      reason: announced\ntargets:\n  local:\n    repository: repo\n",
    );
    dir
}

#[test]
fn a_release_reports_each_unused_waiver_once_and_upgrade_ones_only_once_compared() {
    let dir = small_provider();
    let release = |version: &str| -> Vec<String> {
        let output = capkg()
            .current_dir(dir.path())
            .args(["release", "--version", version, "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let text = stdout(&output);
        // Wherever the report carries them: the lint, each target's comparison and read-back.
        text.match_indices("the waiver of `")
            .map(|(at, _)| text[at..].split('`').nth(1).unwrap().to_string())
            .collect()
    };
    // The first release: nothing to compare with, so the upgrade waiver is not judged; the lint
    // one is said once, by the lint of what was assembled, not again by the read-back.
    assert_eq!(release("v1.2.0"), ["templates/clusterclass-file"]);
    // The next one is compared with it: the upgrade waiver matched nothing there.
    assert_eq!(
        release("v1.2.1"),
        ["templates/clusterclass-file", "upgrade/crd-field-removed"]
    );
}

/// The book's diff chapter lists every `upgrade/…` rule `capkg rules` knows, each with its
/// example and the field its findings carry for a waiver.
#[test]
fn the_diff_chapter_lists_every_upgrade_rule_with_an_example_and_its_field() {
    let output = capkg()
        .args(["rules", "--format", "json"])
        .output()
        .unwrap();
    let rules = json(&output);
    let chapter = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/book/src/diff.md"),
    )
    .unwrap();
    let (_, waivers) = chapter
        .split_once("## Waivers that say what they accept")
        .unwrap();
    let upgrade: Vec<&str> = rules["rules"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_str())
        .filter(|id| id.starts_with("upgrade/"))
        .collect();
    assert!(upgrade.len() > 20, "{upgrade:?}");
    for id in upgrade {
        let row = chapter
            .lines()
            .find(|line| line.starts_with(&format!("| `{id}` |")))
            .unwrap_or_else(|| panic!("{id} has no row in a rule table"));
        // rule | severity | fires when | example: the example is not empty.
        let example = row.trim_end_matches('|').rsplit('|').next().unwrap().trim();
        assert!(!example.is_empty(), "{id}: {row}");
        assert!(
            waivers
                .lines()
                .any(|line| line.starts_with('|') && line.contains(&format!("`{id}`"))),
            "{id} is not in the waivers' field table"
        );
    }
}
