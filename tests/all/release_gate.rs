//! The upgrade gate fails closed (issue 38): a previous release that cannot be read, parsed or
//! matched to a version stops `capkg release` (exit 2, nothing published) naming the target,
//! the version and what was read, never "no breaking change"; a leftover draft GitHub release
//! is not a previous release and the choice is said; `--previous` is a version looked up at the
//! target or an explicit path or URL, never a folder guessed from a bare word; a `previous:`
//! pin older than the newest earlier release warns; `previous: none` is the way out, said so.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::publish_fakes::github::{self, FakeGitHub};
use crate::publish_fakes::{COMPONENTS, METADATA, capkg};
use crate::release_common::{Provider, json, release, stderr, stdout};

const HTML: &str = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head>\n<body>Sign in to continue</body></html>\n";

const LOCAL: &str = "  local:\n    repository: repo\n";

/// `capkg release --version TAG --format json`, with `env` and `extra` flags.
fn run(provider: &Provider, tag: &str, extra: &[&str], env: &[(&str, &str)]) -> (Output, Value) {
    let mut command = release(provider);
    command
        .args(["--version", tag, "--format", "json"])
        .args(extra);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    let report = json(&output);
    (output, report)
}

fn upgrade(report: &Value) -> &Value {
    &report["targets"][0]["upgrade"][0]
}

fn message(report: &Value) -> &str {
    report["error"]["message"].as_str().unwrap_or_default()
}

/// The local repository's folder of one version.
fn published(provider: &Provider, tag: &str) -> PathBuf {
    provider.root().join("repo/infrastructure-azure").join(tag)
}

/// A release of the standard components into `repo/`, checked.
fn publish_local(provider: &Provider, tag: &str) {
    let (output, _) = run(provider, tag, &[], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(published(provider, tag).join("metadata.yaml").is_file());
}

/// Asserts a run stopped because the previous release `previous` could not be compared with,
/// the error saying `why`, with nothing of `tag` published.
fn assert_fails_closed(output: &Output, report: &Value, previous: &str, why: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", stdout(output));
    assert_eq!(report["status"], "failed", "{report}");
    let message = message(report);
    assert!(
        message.contains(&format!(
            "the previous release {previous} cannot be compared with, so the upgrade is not checked"
        )),
        "{message}"
    );
    assert!(message.contains(why), "{why} in {message}");
    assert!(
        report["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("--previous none"),
        "{}",
        report["error"]
    );
}

#[test]
fn an_unreadable_previous_release_in_a_local_repository_stops_the_release() {
    let provider = Provider::new(LOCAL, METADATA);
    publish_local(&provider, "v1.2.3");
    let old = published(&provider, "v1.2.3");
    let components = old.join("infrastructure-components.yaml");
    let metadata = old.join("metadata.yaml");
    type Damage = fn(&Path, &Path);
    let cases: [(&str, Damage, &str); 5] = [
        (
            "empty components",
            |components, _| std::fs::write(components, "").unwrap(),
            "the components file holds no objects",
        ),
        (
            "components an HTML page",
            |components, _| std::fs::write(components, HTML).unwrap(),
            "it is an HTML page",
        ),
        (
            "metadata.yaml missing",
            |_, metadata| std::fs::remove_file(metadata).unwrap(),
            "metadata.yaml",
        ),
        (
            "metadata.yaml that does not parse",
            |_, metadata| std::fs::write(metadata, "releaseSeries: [\n").unwrap(),
            "metadata.yaml:2",
        ),
        (
            "metadata.yaml without release series",
            |_, metadata| std::fs::write(metadata, "foo: bar\n").unwrap(),
            "no `releaseSeries`",
        ),
    ];
    for (case, damage, why) in cases {
        damage(&components, &metadata);
        let (output, report) = run(&provider, "v1.2.4", &[], &[]);
        assert_fails_closed(&output, &report, "v1.2.3", why);
        assert!(
            message(&report).contains(&format!("{}", components.display()))
                || case.contains("metadata"),
            "{case}: the path read is named: {}",
            message(&report)
        );
        assert!(
            !published(&provider, "v1.2.4").exists(),
            "{case}: nothing published"
        );
        // A dry run stops the same way.
        let (output, report) = run(&provider, "v1.2.4", &["--dry-run"], &[]);
        assert_eq!(output.status.code(), Some(2), "{case}: {}", stdout(&output));
        assert!(
            message(&report).contains("cannot be compared with"),
            "{case}: {}",
            message(&report)
        );
        std::fs::write(&components, COMPONENTS).unwrap();
        std::fs::write(&metadata, METADATA).unwrap();
    }
    // Whole again: compared, and published.
    let (output, report) = run(&provider, "v1.2.4", &[], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(upgrade(&report)["previous"], "v1.2.3");
    assert_eq!(upgrade(&report)["diff"]["ok"], true);
}

/// The fake GitHub with v1.2.3 published through capkg.
fn github_with_a_release() -> (FakeGitHub, Provider, [(&'static str, String); 2]) {
    let fake = FakeGitHub::start();
    let provider = Provider::new("  github:\n    repo: o/r\n", METADATA);
    let env = [
        ("GITHUB_API_URL", fake.api.clone()),
        ("GITHUB_TOKEN", github::TOKEN.to_string()),
    ];
    let (output, _) = run(&provider, "v1.2.3", &[], &pairs(&env));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    (fake, provider, env)
}

fn pairs<'a>(env: &'a [(&'static str, String); 2]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn a_previous_github_release_served_as_a_login_page_or_missing_a_file_stops_the_release() {
    let (fake, provider, env) = github_with_a_release();
    let set_components = |content: Option<&[u8]>| {
        let mut state = fake.state();
        let release = state
            .releases
            .iter_mut()
            .find(|r| r.tag == "v1.2.3")
            .unwrap();
        match content {
            Some(content) => {
                for asset in &mut release.assets {
                    if asset.name == "infrastructure-components.yaml" {
                        asset.content = content.to_vec();
                    }
                }
            }
            None => release
                .assets
                .retain(|a| a.name != "infrastructure-components.yaml"),
        }
    };
    // A login page served with 200 in place of the components.
    set_components(Some(HTML.as_bytes()));
    let (output, report) = run(&provider, "v1.2.4", &[], &pairs(&env));
    assert_fails_closed(&output, &report, "v1.2.3", "it is an HTML page");
    assert!(
        message(&report).starts_with("github: "),
        "{}",
        message(&report)
    );
    assert!(
        message(&report)
            .contains("https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml"),
        "{}",
        message(&report)
    );
    assert!(
        fake.release("v1.2.4").is_empty(),
        "no release, not even a draft"
    );
    // An empty one.
    set_components(Some(b""));
    let (output, report) = run(&provider, "v1.2.4", &[], &pairs(&env));
    assert_fails_closed(&output, &report, "v1.2.3", "holds no objects");
    // A version listed whose components cannot be fetched.
    set_components(None);
    let (output, report) = run(&provider, "v1.2.4", &[], &pairs(&env));
    assert_fails_closed(&output, &report, "v1.2.3", "failed to get file");
    assert!(fake.release("v1.2.4").is_empty());
}

#[test]
fn a_draft_is_not_the_previous_release_and_the_choice_is_said() {
    let (fake, provider, env) = github_with_a_release();
    // A leftover draft, whose files clusterctl cannot download, and a pre-release.
    let files: Vec<(&str, &[u8])> = vec![
        ("infrastructure-components.yaml", HTML.as_bytes()),
        ("metadata.yaml", METADATA.as_bytes()),
    ];
    fake.add_release("v1.2.4", true, &files);
    fake.add_release("v1.2.5-rc.0", false, &files);
    let (output, report) = run(&provider, "v1.2.5", &[], &pairs(&env));
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let upgrade = upgrade(&report);
    assert_eq!(upgrade["previous"], "v1.2.3", "{upgrade}");
    let chosen = upgrade["chosen"].as_str().unwrap();
    assert!(
        chosen.starts_with("v1.2.3, the newest release older than v1.2.5 at github"),
        "{chosen}"
    );
    assert!(
        chosen.contains("v1.2.5-rc.0 (a pre-release, and this release is not one)"),
        "{chosen}"
    );
    assert!(chosen.contains("v1.2.4 (a draft: clusterctl cannot download a draft's files)"));
    // The text output says it too.
    let mut command = release(&provider);
    command.args(["--version", "v1.2.5"]);
    for (name, value) in pairs(&env) {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("previous release: v1.2.3, the newest release older than v1.2.5"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn previous_is_a_version_at_the_target_or_an_explicit_path_never_a_guess() {
    let provider = Provider::new(LOCAL, METADATA);
    publish_local(&provider, "v1.2.3");
    // A folder of the version's name in the checkout, holding something else.
    let checkout = provider.root().join("v1.2.3");
    std::fs::create_dir_all(&checkout).unwrap();
    std::fs::write(checkout.join("infrastructure-components.yaml"), "").unwrap();
    std::fs::write(checkout.join("metadata.yaml"), METADATA).unwrap();

    let (output, report) = run(&provider, "v1.2.4", &["--previous", "v1.2.3"], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let source = upgrade(&report)["source"].as_str().unwrap();
    assert!(
        source.ends_with("repo/infrastructure-azure/v1.2.3/infrastructure-components.yaml"),
        "the release at the target, not the folder: {source}"
    );
    assert_eq!(upgrade(&report)["chosen"], "v1.2.3, as `--previous` says");

    // The folder, named as one: read, and refused for what it holds.
    let (output, report) = run(&provider, "v1.2.5", &["--previous", "./v1.2.3"], &[]);
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(
        message(&report).contains("`./v1.2.3`"),
        "{}",
        message(&report)
    );
    assert!(
        message(&report).contains("holds no objects"),
        "{}",
        message(&report)
    );

    // A bare word is neither: refused, with both forms.
    for word in ["old", "1.2.3", "releases/v1.2.3"] {
        let (output, report) = run(&provider, "v1.2.5", &["--previous", word], &[]);
        assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
        let message = message(&report);
        assert!(
            message.contains(&format!(
                "--previous `{word}` is neither a version nor an explicit path or URL"
            )),
            "{message}"
        );
        assert!(message.contains("(`v1.2.3`)") && message.contains(&format!("`./{word}`")));
    }
    assert!(!published(&provider, "v1.2.5").exists());
}

/// The line `previous:` will be on once appended to the provider's capkg.yaml.
fn append_previous(provider: &Provider, value: &str) -> usize {
    let config = provider.config();
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}previous: {value}\n")).unwrap();
    text.lines().count() + 1
}

#[test]
fn previous_none_in_capkg_yaml_is_the_way_out_and_is_said() {
    let provider = Provider::new(LOCAL, METADATA);
    publish_local(&provider, "v1.2.3");
    std::fs::write(
        published(&provider, "v1.2.3").join("infrastructure-components.yaml"),
        HTML,
    )
    .unwrap();
    let line = append_previous(&provider, "none");
    let (output, report) = run(&provider, "v1.2.4", &[], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let note = upgrade(&report)["note"].as_str().unwrap();
    assert!(
        note.starts_with("not compared: `previous: none` in capkg.yaml (")
            && note.contains(&format!("capkg.yaml:{line}:")),
        "{note}"
    );
}

#[test]
fn a_stale_previous_pin_warns_and_the_pin_is_still_compared_with() {
    let provider = Provider::new(LOCAL, METADATA);
    publish_local(&provider, "v1.2.3");
    publish_local(&provider, "v1.2.4");
    let line = append_previous(&provider, "v1.2.3");
    let (output, report) = run(&provider, "v1.2.5", &[], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(upgrade(&report)["previous"], "v1.2.3");
    let warnings: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .filter(|w| w.contains("previous:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains(&format!("capkg.yaml:{line}:11: `previous: v1.2.3` is older than v1.2.4, the newest release before v1.2.5 at local")),
        "{}",
        warnings[0]
    );
    // Not stale: no warning.
    let (output, report) = run(&provider, "v1.2.4", &["--dry-run"], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert!(
        !report["warnings"].to_string().contains("is older than"),
        "{}",
        report["warnings"]
    );
}

#[test]
fn diff_refuses_to_compare_with_what_is_not_a_release() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    for (folder, components) in [(&old, HTML), (&new, COMPONENTS)] {
        std::fs::create_dir_all(folder).unwrap();
        std::fs::write(folder.join("infrastructure-components.yaml"), components).unwrap();
        std::fs::write(folder.join("metadata.yaml"), METADATA).unwrap();
    }
    let output = capkg().arg("diff").arg(&old).arg(&new).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    let text = stderr(&output);
    assert!(
        text.contains("is not a release capkg can compare") && text.contains("HTML page"),
        "{text}"
    );
    assert!(
        !stdout(&output).contains("No changes"),
        "{}",
        stdout(&output)
    );
}

const TWO_SERIES: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 0\n  minor: 9\n  contract: v1alpha4\n- major: 1\n  minor: 0\n  contract: v1beta1\n- major: 1\n  minor: 2\n  contract: v1beta1\n";

/// The git tag check is a finding (`metadata/tag-series`) that `capkg assemble` and `release
/// --dry-run` report before CI does, that a waiver accepts with its reason, and that old tags
/// (before the oldest series current clusterctl supports) do not trip.
#[test]
fn the_tag_check_runs_in_assemble_and_a_dry_run_and_is_waivable() {
    let provider = Provider::new(LOCAL, TWO_SERIES);
    // v0.8.0 and v0.9.0 predate series 1.0, the oldest with a supported contract.
    provider.tagged(&["v0.8.0", "v0.9.0", "v1.0.0", "v1.1.0"]);
    let assemble = || {
        crate::release_common::clean_capkg()
            .args(["assemble", "--config"])
            .arg(provider.config())
            .args(["--version", "v1.2.3", "--format", "json"])
            .current_dir(provider.root())
            .output()
            .unwrap()
    };
    let output = assemble();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let findings = json(&output);
    let tag_findings: Vec<&Value> = findings["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "metadata/tag-series")
        .collect();
    assert_eq!(tag_findings.len(), 1, "{findings}");
    let said = tag_findings[0]["message"].as_str().unwrap();
    assert!(
        said.starts_with("no release series for the git tag(s) v1.1.0 (series 1.1)"),
        "{said}"
    );
    assert_eq!(tag_findings[0]["line"], 4, "at the list of `releaseSeries`");

    let (output, report) = run(&provider, "v1.2.3", &["--dry-run"], &[]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        message(&report).contains("metadata.yaml has no release series for the git tag(s) v1.1.0"),
        "{}",
        report["error"]
    );
    assert_eq!(report["checks"]["tags"]["uncovered"][0], "v1.1.0");

    // Waived with its reason: assembled, and a dry run that would publish.
    let config = provider.config();
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}lint:\n  allow:\n  - rule: metadata/tag-series\n    reason: v1.1.0 was tagged by mistake and never released\n"),
    )
    .unwrap();
    let output = assemble();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (output, report) = run(&provider, "v1.2.3", &["--dry-run"], &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(
        report["checks"]["tags"]["waived"],
        "v1.1.0 was tagged by mistake and never released"
    );
    // The rule is listed with the others.
    let output = capkg()
        .args(["rules", "metadata/tag-series"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("upgrade plan"),
        "{}",
        stdout(&output)
    );
}
