//! What lint sees of substitution and wiring that clusterctl trips on later: an unclosed `${`, a
//! substring written for a default, a default that breaks the YAML, the webhook / Certificate /
//! Service wiring, kustomize vars left unsubstituted, and values the image pins leave behind.
//! Each case starts from real provider files (`testdata/lint-wiring/`, its SOURCE.md says
//! whose) with the defect a provider really shipped written into a copy.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::common::corpus;
use crate::release_common::{clean_capkg, stderr, stdout};

/// The rules this file is about.
const RULES: [&str; 9] = [
    "variables/unclosed",
    "variables/substring-as-default",
    "variables/breaks-yaml",
    "components/inject-ca-from",
    "webhook/service",
    "webhook/certificate-dns-names",
    "webhook/certificate-secret",
    "build/kustomize-var",
    "build/dev-image-value",
];

fn testdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/lint-wiring")
        .join(name)
}

/// A copy of `testdata/lint-wiring/NAME` with `edits` (each `from` found exactly once) made to
/// its components file.
fn copy(name: &str, edits: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(testdata(name)).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    edit(&dir.path().join("infrastructure-components.yaml"), edits);
    dir
}

fn edit(path: &Path, edits: &[(&str, &str)]) {
    let mut text = std::fs::read_to_string(path).unwrap();
    for (from, to) in edits {
        assert_eq!(text.matches(from).count(), 1, "{from}");
        text = text.replace(from, to);
    }
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

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}{}", stdout(output), stderr(output)))
}

/// `capkg lint --format json` of a folder: exit code and report.
fn lint(dir: &Path) -> (Option<i32>, Value) {
    let output = run(dir, &["--format", "json", "lint", "."]);
    (output.status.code(), json(&output))
}

/// The findings of `rule`.
fn of<'a>(report: &'a Value, rule: &str) -> Vec<&'a Value> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == rule)
        .collect()
}

/// The findings of this file's rules, as `rule line:column`.
fn ours(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| RULES.contains(&d["rule"].as_str().unwrap()))
        .map(|d| {
            format!(
                "{} {}:{}",
                d["rule"].as_str().unwrap(),
                d["line"],
                d["column"]
            )
        })
        .collect()
}

fn at(finding: &Value) -> (u64, u64) {
    (
        finding["line"].as_u64().unwrap(),
        finding["column"].as_u64().unwrap(),
    )
}

fn text(finding: &Value, field: &str) -> String {
    finding[field].as_str().unwrap().to_string()
}

#[test]
fn real_releases_have_none_of_these_findings() {
    let dir = copy("capz", &[]);
    let (code, report) = lint(dir.path());
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(ours(&report), Vec::<String>::new());
    // Every provider of the corpus: the wiring, the substitution and the build are right there.
    let output = run(&corpus(), &["--format", "json", "lint", "."]);
    assert_eq!(ours(&json(&output)), Vec::<String>::new());
}

#[test]
fn an_unclosed_default_is_an_error_at_its_opening() {
    let dir = copy(
        "capz",
        &[(
            "AZURE_SYNC_PERIOD: ${AZURE_SYNC_PERIOD:=\"\"}",
            "AZURE_SYNC_PERIOD: ${AZURE_SYNC_PERIOD:=\"\"",
        )],
    );
    let (code, report) = lint(dir.path());
    assert_eq!(code, Some(1), "{report}");
    let found = of(&report, "variables/unclosed");
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(at(found[0]), (20, 22));
    assert_eq!(found[0]["end_column"], 45);
    assert_eq!(
        text(found[0], "message"),
        "`${AZURE_SYNC_PERIOD:=\"\"` is not closed on its line: drone/envsubst ends it at the `}` on line 190 (`selfSigned: {}`), so the 170 line(s) up to it are its default: unset, clusterctl writes them back without that `}`; set, they disappear"
    );
    // Only this rule explains it: the lines it swallows are not judged again.
    assert_eq!(ours(&report), ["variables/unclosed 20:22"]);
    // Substitution stays clusterctl's: render fails where clusterctl would.
    let output = run(
        dir.path(),
        &[
            "render",
            "infrastructure-components.yaml",
            "--type",
            "infrastructure",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("failed to parse yaml"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_forgotten_equals_is_an_error_with_the_fix() {
    let dir = copy(
        "capz",
        &[(
            "EdgeZone=${EXP_EDGEZONE:=false}",
            "EdgeZone=${EXP_EDGEZONE:false}",
        )],
    );
    let (code, report) = lint(dir.path());
    assert_eq!(code, Some(1), "{report}");
    let found = of(&report, "variables/substring-as-default");
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["severity"], "error");
    assert_eq!(at(found[0]), (78, 126));
    assert!(
        text(found[0], "message").starts_with(
            "`${EXP_EDGEZONE:false}` is a substring with the offset `false`, not a default"
        ),
        "{}",
        found[0]["message"]
    );
    assert_eq!(
        text(found[0], "help"),
        "write `${EXP_EDGEZONE:=false}` for the default `false`"
    );
    // What clusterctl does with it, unchanged: the gate renders empty.
    let output = run(
        dir.path(),
        &[
            "render",
            "infrastructure-components.yaml",
            "--type",
            "infrastructure",
        ],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains(",EdgeZone=,"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_default_that_breaks_the_yaml_is_an_error_at_its_variable() {
    let dir = tempfile::tempdir().unwrap();
    let docker = corpus().join("infrastructure-docker");
    for name in [
        "metadata.yaml",
        "cluster-template-development.yaml",
        "clusterclass-quick-start.yaml",
    ] {
        std::fs::copy(docker.join(name), dir.path().join(name)).unwrap();
    }
    let template = dir.path().join("cluster-template-development.yaml");
    let (code, report) = lint(dir.path());
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(ours(&report), Vec::<String>::new());
    // The closing quote of the default forgotten: valid YAML as written, not once substituted.
    edit(
        &template,
        &[(
            "${SERVICE_DOMAIN:=\"cluster.local\"}",
            "${SERVICE_DOMAIN:=\"cluster.local}",
        )],
    );
    let (code, report) = lint(dir.path());
    assert_eq!(code, Some(1), "{report}");
    let found = of(&report, "variables/breaks-yaml");
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(at(found[0]), (12, 20));
    assert!(
        text(found[0], "message")
            .contains("gives `\"cluster.local`, and the document no longer parses"),
        "{}",
        found[0]["message"]
    );
    let output = run(
        dir.path(),
        &[
            "render",
            "cluster-template-development.yaml",
            "--cluster-name",
            "c1",
            "--kubernetes-version",
            "v1.31.0",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(stderr(&output).contains("failed to parse yaml"));
    // A default that is a leading `{`: a flow mapping where a value was.
    edit(
        &template,
        &[(
            "${SERVICE_DOMAIN:=\"cluster.local}",
            "${SERVICE_DOMAIN:={cluster.local}}",
        )],
    );
    let (_, report) = lint(dir.path());
    let found = of(&report, "variables/breaks-yaml");
    assert_eq!(found.len(), 1, "{report}");
    assert!(
        text(found[0], "message").contains("its leading `{` as a flow mapping"),
        "{}",
        found[0]["message"]
    );
}

/// A defect written into CAPZ's components: `(from, to)`, and the finding it makes: rule,
/// position, words of the message.
type Case = (
    (&'static str, &'static str),
    &'static str,
    (u64, u64),
    &'static str,
);

#[test]
fn the_webhook_wiring_is_followed_to_the_certificate_and_the_pods() {
    let cases: [Case; 5] = [
        (
            (
                "    cert-manager.io/inject-ca-from: capz-system/capz-serving-cert",
                "    cert-manager.io/inject-ca-from: capz-system/serving-cert",
            ),
            "components/inject-ca-from",
            (196, 37),
            "injects its CA from Certificate `serving-cert`, which the components do not hold (it holds `capz-serving-cert`)",
        ),
        (
            (
                "  name: capz-webhook-service\n  namespace: capz-system\nspec:",
                "  name: capz-webhook\n  namespace: capz-system\nspec:",
            ),
            "webhook/service",
            (206, 13),
            "calls Service `capz-webhook-service`, which the components do not hold (Services: `capz-webhook`)",
        ),
        (
            (
                "  - capz-webhook-service.capz-system.svc\n",
                "  - capz-webhooks.capz-system.svc\n",
            ),
            "webhook/certificate-dns-names",
            (174, 3),
            "does not name `capz-webhook-service.capz-system.svc`, the host the API server calls",
        ),
        (
            (
                "    name: capz-selfsigned-issuer\n  secretName: capz-webhook-service-cert",
                "    name: capz-selfsigned-issuer\n  secretName: capz-webhook-cert",
            ),
            "webhook/certificate-secret",
            (180, 15),
            "writes its key pair to Secret `capz-webhook-cert`, but Deployment `capz-controller-manager` behind Service `capz-webhook-service`",
        ),
        (
            ("    targetPort: webhook-server", "    targetPort: webhook"),
            "webhook/service",
            (46, 17),
            "to the container port named `webhook`, which no container of Deployment `capz-controller-manager` declares",
        ),
    ];
    for ((from, to), rule, position, words) in cases {
        let dir = copy("capz", &[(from, to)]);
        let (code, report) = lint(dir.path());
        assert_eq!(code, Some(1), "{rule}: {report}");
        assert_eq!(ours(&report).len(), 1, "{rule}: {:?}", ours(&report));
        let found = of(&report, rule);
        assert_eq!(found.len(), 1, "{rule}: {report}");
        assert_eq!(at(found[0]), position, "{rule}");
        assert!(
            text(found[0], "message").contains(words),
            "{rule}: {}",
            found[0]["message"]
        );
    }
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn an_unsubstituted_kustomize_var_is_an_error_in_lint_and_in_assemble() {
    // CAPT's release: `capt-system/$(CERTIFICATE_NAME)`.
    let dir = copy("capt", &[]);
    let (code, report) = lint(dir.path());
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(ours(&report), ["build/kustomize-var 12:37"]);
    let found = of(&report, "build/kustomize-var");
    assert!(text(found[0], "message").contains("holds `$(CERTIFICATE_NAME)`"));
    // Assembled, the value keeps its var: refused, the finding in the file as assembled.
    let output = run(
        dir.path(),
        &["--format", "json", "assemble", "--version", "v0.6.0"],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let report = json(&output);
    let found = of(&report, "build/kustomize-var");
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["severity"], "error");
    assert_eq!(
        found[0]["file"],
        "out.rejected/infrastructure-components.yaml"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn a_var_the_transformation_rewrites_is_still_reported_by_assemble() {
    let dir = copy(
        "capt",
        &[(
            "inject-ca-from: capt-system/$(CERTIFICATE_NAME)",
            "inject-ca-from: $(CERTIFICATE_NAMESPACE)/capt-serving-cert",
        )],
    );
    let (code, report) = lint(dir.path());
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(ours(&report), ["build/kustomize-var 12:37"]);
    // assemble writes `capt-system/capt-serving-cert` there, as clusterctl would: the release is
    // right, and the broken build is still said.
    let output = run(
        dir.path(),
        &["--format", "json", "assemble", "--version", "v0.6.0"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    let found = of(&report, "build/kustomize-var");
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["severity"], "warning");
    assert_eq!(found[0]["file"], "out/infrastructure-components.yaml");
    let message = text(found[0], "message");
    assert!(
        message.contains(
            "was `$(CERTIFICATE_NAMESPACE)/capt-serving-cert` in the sources: `$(CERTIFICATE_NAMESPACE)` never substituted"
        ),
        "{message}"
    );
    assert!(message.contains("assemble wrote `capt-system/capt-serving-cert` here"));
    let written =
        std::fs::read_to_string(dir.path().join("out/infrastructure-components.yaml")).unwrap();
    assert!(written.contains("inject-ca-from: capt-system/capt-serving-cert"));
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn a_value_copied_from_the_development_image_is_reported_after_pinning() {
    let dir = copy("capz", &[]);
    let output = run(
        dir.path(),
        &["--format", "json", "assemble", "--version", "v1.26.0"],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = json(&output);
    let found = of(&report, "build/dev-image-value");
    assert_eq!(found.len(), 1, "{report}");
    assert_eq!(found[0]["severity"], "warning");
    assert_eq!(found[0]["file"], "out/infrastructure-components.yaml");
    assert_eq!(
        text(found[0], "message"),
        "`stringData.AZURE_USER_AGENT_SUFFIX` of Secret `aso-controller-settings` is `cluster-api-provider-azure/main`, which ends in `main`, the tag of the development image `gcr.io/k8s-staging-cluster-api-azure/cluster-api-azure-controller:main`; the release runs `registry.k8s.io/cluster-api-azure/cluster-api-azure-controller:v1.26.0` instead (pinned at capkg.yaml:10:5), and this value was not pinned with it"
    );
    // `release` assembles the same way: its dry run says it too.
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    let config = dir.path().join("capkg.yaml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("targets:\n  local:\n    repository: out-repository\n");
    std::fs::write(&config, text).unwrap();
    let output = run(
        dir.path(),
        &[
            "release",
            "--dry-run",
            "--version",
            "v1.26.0",
            "--previous",
            "none",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let all = format!("{}{}", stdout(&output), stderr(&output));
    assert!(all.contains("build/dev-image-value"), "{all}");
    assert!(all.contains("AZURE_USER_AGENT_SUFFIX"), "{all}");
    // Lint alone does not know the pins.
    let (_, report) = lint(dir.path());
    assert!(of(&report, "build/dev-image-value").is_empty());
}

#[test]
fn capkg_rules_explains_each_new_rule() {
    let dir = tempfile::tempdir().unwrap();
    for rule in RULES {
        let output = run(dir.path(), &["rules", rule]);
        assert_eq!(output.status.code(), Some(0), "{rule}: {}", stderr(&output));
        let text = stdout(&output);
        assert!(text.starts_with(rule), "{rule}: {text}");
        assert!(text.contains("https://"), "{rule}: {text}");
    }
    let text = stdout(&run(dir.path(), &["rules", "build/dev-image-value"]));
    let words = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains("`capkg lint` alone does not know the pins"),
        "{text}"
    );
}
