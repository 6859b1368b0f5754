//! YAML that loses content without a word: CR-only line endings, NUL bytes, merge keys, empty
//! components files, labels naming another provider and `---` glued to a line. The built binary
//! runs `lint`, `assemble` and `render` on files each test writes.

use std::path::Path;
use std::process::Output;
use std::sync::Arc;

use assert_cmd::Command;
use capkg::yaml::json_value::JsonValue;
use capkg::yaml::{Limits, Source, parse_str};
use serde_json::Value;

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta2\n";

/// A Namespace and a ConfigMap labelled `label`, joined with `---` lines.
fn two_objects(label: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: foo-system\n  labels:\n    cluster.x-k8s.io/provider: {label}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: foo-system\n  labels:\n    cluster.x-k8s.io/provider: {label}\n"
    )
}

fn capkg(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_capkg"));
    cmd.current_dir(dir).env("NO_COLOR", "1");
    cmd
}

/// A release folder `rel/` holding `components` as `infrastructure-components.yaml`.
fn release(dir: &Path, components: &[u8]) {
    let rel = dir.join("rel");
    std::fs::create_dir_all(&rel).unwrap();
    std::fs::write(rel.join("infrastructure-components.yaml"), components).unwrap();
    std::fs::write(rel.join("metadata.yaml"), METADATA).unwrap();
}

/// `capkg lint --format json rel ARGS`: exit code and the findings' (rule, message).
fn lint(dir: &Path, args: &[&str]) -> (i32, Vec<(String, String)>) {
    let output = capkg(dir)
        .args(["lint", "--format", "json", "rel"])
        .args(args)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let findings = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (output.status.code().unwrap(), findings)
}

fn of_rule<'a>(findings: &'a [(String, String)], rule: &str) -> Vec<&'a str> {
    findings
        .iter()
        .filter(|(r, _)| r == rule)
        .map(|(_, m)| m.as_str())
        .collect()
}

/// `capkg assemble` of `components.yaml` (written with `components`) into `out/`.
fn assemble(dir: &Path, components: &[u8]) -> Output {
    std::fs::write(dir.join("components.yaml"), components).unwrap();
    std::fs::write(dir.join("metadata.yaml"), METADATA).unwrap();
    capkg(dir)
        .args([
            "assemble",
            "--type",
            "infrastructure",
            "--provider",
            "foo",
            "--components",
            "components.yaml",
            "--metadata",
            "metadata.yaml",
            "--version",
            "v1.0.0",
            "--out",
            "out",
        ])
        .output()
        .unwrap()
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The documents of a YAML text as clusterctl holds them.
fn objects(text: &str) -> Vec<JsonValue> {
    let file = parse_str(Arc::new(Source::new("t", text)), Limits::default());
    assert!(file.errors.is_empty(), "{:?}\n{text}", file.errors);
    file.roots()
        .map(|root| JsonValue::from_node(root).unwrap())
        .collect()
}

fn config_map(objects: &[JsonValue]) -> &JsonValue {
    objects
        .iter()
        .find(|o| o.get("kind") == Some(&JsonValue::String("ConfigMap".into())))
        .expect("a ConfigMap")
}

#[test]
fn cr_only_line_endings_are_an_error_in_lint_and_assemble() {
    let dir = tempfile::tempdir().unwrap();
    let cr_only = two_objects("infrastructure-foo").replace('\n', "\r");
    release(dir.path(), cr_only.as_bytes());
    let (code, findings) = lint(dir.path(), &[]);
    assert_eq!(code, 1, "{findings:?}");
    let found = of_rule(&findings, "yaml/line-endings");
    assert_eq!(found.len(), 1, "{findings:?}");
    assert!(found[0].contains("first object"), "{}", found[0]);

    let output = assemble(dir.path(), cr_only.as_bytes());
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(
        text(&output).contains("carriage return"),
        "{}",
        text(&output)
    );
    assert!(!dir.path().join("out").exists());

    // CRLF is read as clusterctl reads it: both objects, no finding.
    let crlf = two_objects("infrastructure-foo").replace('\n', "\r\n");
    release(dir.path(), crlf.as_bytes());
    let (code, findings) = lint(dir.path(), &[]);
    assert_eq!(code, 0, "{findings:?}");
    let output = assemble(dir.path(), crlf.as_bytes());
    assert!(output.status.success(), "{}", text(&output));
    let written = std::fs::read_to_string(dir.path().join("out/infrastructure-components.yaml"));
    assert_eq!(objects(&written.unwrap()).len(), 2);
}

#[test]
fn a_nul_byte_is_an_error_at_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = two_objects("infrastructure-foo").into_bytes();
    // In a comment at the end of the ConfigMap: a place a YAML parser would skip.
    bytes.extend_from_slice(b"# trailing \0 text\n");
    release(dir.path(), &bytes);
    let output = capkg(dir.path())
        .args(["lint", "--format", "json", "rel"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let nul: Vec<&Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "yaml/nul-byte")
        .collect();
    assert_eq!(nul.len(), 1, "{report}");
    assert_eq!(
        (nul[0]["line"].as_u64(), nul[0]["column"].as_u64()),
        (Some(15), Some(12))
    );

    let output = assemble(dir.path(), &bytes);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(!dir.path().join("out").exists());
}

const MERGE_KEYS: &str = r#"apiVersion: v1
kind: Namespace
metadata:
  name: foo-system
  labels:
    cluster.x-k8s.io/provider: infrastructure-foo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  namespace: foo-system
  labels: &labels
    cluster.x-k8s.io/provider: infrastructure-foo
  annotations:
    <<: *labels
    extra: x
data:
  base: &base
    a: "1"
    b: "2"
  derived:
    <<: [*base, {c: "3", a: "9"}]
    b: "22"
"#;

#[test]
fn merge_keys_lint_clean_and_assemble_to_what_render_gives() {
    let dir = tempfile::tempdir().unwrap();
    release(dir.path(), MERGE_KEYS.as_bytes());
    let (code, findings) = lint(dir.path(), &[]);
    assert_eq!(code, 0, "{findings:?}");
    assert!(findings.is_empty(), "{findings:?}");

    let output = assemble(dir.path(), MERGE_KEYS.as_bytes());
    assert!(output.status.success(), "{}", text(&output));
    let written =
        std::fs::read_to_string(dir.path().join("out/infrastructure-components.yaml")).unwrap();
    assert!(!written.contains("<<"), "{written}");
    let assembled = objects(&written);

    let render = capkg(dir.path())
        .args(["render", "rel/infrastructure-components.yaml"])
        .output()
        .unwrap();
    assert!(render.status.success(), "{}", text(&render));
    let rendered = objects(&String::from_utf8(render.stdout).unwrap());

    let (ours, theirs) = (config_map(&assembled), config_map(&rendered));
    assert_eq!(ours.get("data"), theirs.get("data"));
    let annotations = |o: &JsonValue| {
        o.get("metadata")
            .and_then(|m| m.get("annotations"))
            .cloned()
    };
    assert_eq!(annotations(ours), annotations(theirs));
    // go-yaml v2: earlier mappings of a merge list win, keys written after the merge win.
    let derived = ours.get("data").and_then(|d| d.get("derived")).unwrap();
    let s = |t: &str| JsonValue::String(t.into());
    assert_eq!(derived.get("a"), Some(&s("1")));
    assert_eq!(derived.get("b"), Some(&s("22")));
    assert_eq!(derived.get("c"), Some(&s("3")));
}

#[test]
fn an_empty_components_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for empty in ["", "# generated\n", "---\n# nothing here\n---\n"] {
        release(dir.path(), empty.as_bytes());
        let (code, findings) = lint(dir.path(), &[]);
        assert_eq!(code, 1, "{empty:?}: {findings:?}");
        assert_eq!(
            of_rule(&findings, "components/empty").len(),
            1,
            "{findings:?}"
        );

        let output = assemble(dir.path(), empty.as_bytes());
        assert_eq!(output.status.code(), Some(1), "{}", text(&output));
        assert!(!dir.path().join("out").exists());
    }
}

#[test]
fn provider_flags_are_checked_against_the_labels() {
    let dir = tempfile::tempdir().unwrap();
    release(dir.path(), two_objects("infrastructure-foo").as_bytes());
    let (code, findings) = lint(dir.path(), &["--provider", "foo"]);
    assert_eq!(code, 0, "{findings:?}");

    let (code, findings) = lint(dir.path(), &["--provider", "bar"]);
    assert_eq!(code, 1, "{findings:?}");
    let found = of_rule(&findings, "components/provider-identity");
    assert_eq!(found.len(), 1, "{findings:?}");
    assert!(found[0].contains("`--provider bar`"), "{}", found[0]);
    assert!(found[0].contains("infrastructure-foo"), "{}", found[0]);

    let (code, findings) = lint(dir.path(), &["--type", "bootstrap"]);
    assert_eq!(code, 1, "{findings:?}");
    assert_eq!(of_rule(&findings, "components/provider-identity").len(), 1);
}

#[test]
fn a_bare_provider_label_is_reported_without_provider() {
    let dir = tempfile::tempdir().unwrap();
    release(dir.path(), two_objects("kubevirt").as_bytes());
    let (_, findings) = lint(dir.path(), &[]);
    let found = of_rule(&findings, "components/provider-label");
    assert_eq!(found.len(), 1, "{findings:?}");
    assert!(found[0].contains("without its type prefix"), "{}", found[0]);
    assert!(
        found[0].contains("`infrastructure-kubevirt`"),
        "{}",
        found[0]
    );
    assert!(of_rule(&findings, "components/provider-identity").is_empty());
}

#[test]
fn a_separator_glued_to_a_line_is_one_duplicate_key_finding() {
    let dir = tempfile::tempdir().unwrap();
    let glued = two_objects("infrastructure-foo")
        .replace("infrastructure-foo\n---\n", "infrastructure-foo---\n");
    release(dir.path(), glued.as_bytes());
    let (code, findings) = lint(dir.path(), &[]);
    assert_eq!(code, 1, "{findings:?}");
    let found = of_rule(&findings, "yaml/duplicate-key");
    assert_eq!(found.len(), 1, "{findings:?}");
    assert!(found[0].contains("`kind`, `metadata`"), "{}", found[0]);
    assert!(found[0].contains("ends with `---`"), "{}", found[0]);
}

/// Nesting close to the loader's cap (512 levels) in a file large enough to be loaded,
/// converted and written on the worker threads: they have the main thread's stack.
#[test]
fn deep_nesting_in_a_large_file_assembles_and_renders() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 500;
    let mut components = two_objects("infrastructure-foo");
    components.push_str("  annotations:\n    filler: |\n");
    for line in 0..2_000 {
        components.push_str(&format!(
            "      line {line} of text that makes the file large\n"
        ));
    }
    components.push_str("deep:\n");
    for level in 0..depth {
        components.push_str(&format!("{}k{level}:\n", "  ".repeat(level + 1)));
    }
    components.push_str(&format!("{}v: 1\n", "  ".repeat(depth + 1)));
    assert!(components.len() > 256 * 1024, "{}", components.len());

    let output = assemble(dir.path(), components.as_bytes());
    assert!(output.status.success(), "{}", text(&output));
    let written =
        std::fs::read_to_string(dir.path().join("out/infrastructure-components.yaml")).unwrap();
    assert!(written.contains(&format!("{}v: 1\n", "  ".repeat(depth + 1))));

    let output = capkg(dir.path())
        .args(["render", "components.yaml", "--type", "infrastructure"])
        .args(["--provider", "foo", "-n", "foo-system"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output));
    let rendered = String::from_utf8(output.stdout).unwrap();
    assert!(
        rendered.contains(&format!("k{}:\n", depth - 1)),
        "{rendered}"
    );
}
