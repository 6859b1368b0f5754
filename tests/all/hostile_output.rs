//! Nothing a release holds is executable output (issue 36): line breaks, terminal escape
//! sequences and GitHub workflow commands inside object names, container names and images of a
//! release, and a login inside a reference the user gave, through `capkg diff`, `lint`, `verify`
//! and `release --dry-run`, in every format, with GitHub Actions' summary and output files.
//!
//! What the runner would run is judged as the runner judges it (`actions/runner`,
//! `ActionCommand.cs`): a line (ended by LF or CR) that starts with `::` once leading white space
//! is trimmed, or that holds the legacy `##[` anywhere.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use crate::publish_fakes::github::{self, FakeGitHub};
use crate::release_common::{Actions, clean_capkg as capkg, stderr, stdout};

/// An image whose line breaks would make the next lines workflow commands.
const IMAGE: &str = "x\n::warning::pwned\n::set-output name=clusterctl-url::http://evil\n::stop-commands::abc\n##[error]legacy";
/// The same as a YAML double-quoted scalar.
const IMAGE_YAML: &str = r#""x\n::warning::pwned\n::set-output name=clusterctl-url::http://evil\n::stop-commands::abc\n##[error]legacy""#;
/// A name that sets the terminal's title, clears the screen and turns the text around.
const NAME_YAML: &str = r#""rb\x1b]0;title\x07\x1b[2J\u202ex""#;
const NAME: &str = "rb\u{1b}]0;title\u{7}\u{1b}[2J\u{202e}x";
const CONTAINER_YAML: &str = r#""manager\n::error::container""#;

/// What the runner would take for a workflow command in `text`: each such line.
fn runner_commands(text: &str) -> Vec<&str> {
    text.split(['\n', '\r'])
        .filter(|line| {
            let trimmed = line.trim_start();
            trimmed.starts_with("::") || line.contains("##[")
        })
        .collect()
}

/// stdout and stderr hold no terminal control (ESC, C1, CR, bidirectional controls), and the only
/// workflow commands are capkg's own annotations, each one line; returns those.
fn assert_inert(output: &Output) -> Vec<String> {
    let mut own = Vec::new();
    for (stream, text) in [("stdout", stdout(output)), ("stderr", stderr(output))] {
        for c in text.chars() {
            let control = c.is_control() && c != '\n';
            let bidi = ('\u{202a}'..='\u{202e}').contains(&c);
            assert!(!control && !bidi, "{stream} holds {c:?}:\n{text}");
        }
        for line in runner_commands(&text) {
            let annotation = ["::error ", "::warning ", "::notice "]
                .iter()
                .any(|c| line.starts_with(c))
                && line.contains("title=")
                && !line.contains("##[");
            assert!(
                annotation,
                "{stream} line is a command capkg did not write: {line}"
            );
            own.push(line.to_string());
        }
    }
    own
}

/// GFM's cells of a table row: split at pipes without a backslash before them.
fn cells(row: &str) -> usize {
    let row = row.trim().trim_start_matches('|');
    let mut count = 0;
    let mut previous = ' ';
    for c in row.chars() {
        if c == '|' && previous != '\\' {
            count += 1;
        }
        previous = c;
    }
    count
}

/// A step summary: no control character, and every table row as many cells as its header.
fn assert_summary_shape(summary: &str) {
    assert!(
        !summary.chars().any(|c| c.is_control() && c != '\n'),
        "{summary}"
    );
    let mut columns = None;
    for line in summary.lines() {
        if line.starts_with('|') {
            let n = cells(line);
            let expected = *columns.get_or_insert(n);
            assert_eq!(n, expected, "a row with other cells: {line}\n{summary}");
        } else {
            columns = None;
        }
    }
}

/// CAPD as `v1.14.0` and, as `v1.15.0`, the same with the hostile image, container and names.
fn hostile_pair() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/diff/infrastructure-docker");
    let components =
        std::fs::read_to_string(source.join("infrastructure-components.yaml")).unwrap();
    let hostile = components
        .replacen(
            "image: gcr.io/k8s-staging-cluster-api/capd-manager:main",
            &format!("image: {IMAGE_YAML}"),
            1,
        )
        .replacen(
            "        name: manager\n",
            &format!("        name: {CONTAINER_YAML}\n"),
            1,
        )
        .replacen(
            "  name: capd-manager-rolebinding",
            &format!("  name: {NAME_YAML}"),
            1,
        );
    assert_ne!(hostile, components);
    let mut folders = Vec::new();
    for (version, text) in [("v1.14.0", &components), ("v1.15.0", &hostile)] {
        let folder = dir.path().join("infrastructure-docker").join(version);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(source.join("metadata.yaml"), folder.join("metadata.yaml")).unwrap();
        std::fs::write(folder.join("infrastructure-components.yaml"), text).unwrap();
        folders.push(folder);
    }
    let new = folders.pop().unwrap();
    (dir, folders.pop().unwrap(), new)
}

/// `capkg ARGS --format FORMAT` in GitHub Actions, with its summary and output files.
fn in_actions(args: &[&str], format: &str, cwd: &Path) -> (Output, Actions) {
    in_actions_with(args, format, cwd, &[])
}

fn in_actions_with(
    args: &[&str],
    format: &str,
    cwd: &Path,
    env: &[(&str, &str)],
) -> (Output, Actions) {
    let actions = Actions::new();
    let mut command = capkg();
    command
        .args(args)
        .args(["--format", format])
        .current_dir(cwd);
    actions.apply(&mut command, "v1.2.4");
    command.envs(env.iter().copied());
    (command.output().unwrap(), actions)
}

/// The change in a diff report's JSON whose subject holds `needle`.
fn change<'a>(report: &'a Value, needle: &str) -> &'a Value {
    report["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["subject"].as_str().unwrap().contains(needle))
        .unwrap_or_else(|| panic!("no change about {needle}: {report}"))
}

#[test]
fn diff_shows_what_a_release_holds_without_running_it_in_every_format() {
    let (dir, old, new) = hostile_pair();
    let args = ["diff", old.to_str().unwrap(), new.to_str().unwrap()];
    for format in ["human", "github", "markdown", "json"] {
        let (output, actions) = in_actions(&args, format, dir.path());
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        assert!(assert_inert(&output).is_empty(), "{}", stdout(&output));
        let text = stdout(&output);
        match format {
            "human" | "github" => {
                let lines: Vec<&str> = text.lines().collect();
                assert!(
                    lines.contains(&"  + Deployment capd-system/capd-controller-manager container manager\\n::error::container: x\\n::warning::pwned\\n::set-output name=clusterctl-url::http://evil\\n::stop-commands::abc\\n##\\u{5b}error]legacy"),
                    "{text}"
                );
                assert!(
                    lines.contains(
                        &"  + ClusterRoleBinding rb\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{202e}x"
                    ),
                    "{text}"
                );
            }
            "markdown" => assert!(
                text.contains(
                    "| + | ClusterRoleBinding rb\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{202e}x |"
                ),
                "{text}"
            ),
            _ => {
                // JSON gives the exact text, and nothing the runner acts on.
                let report: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(change(&report, "container manager\n::error")["new"], IMAGE);
                assert_eq!(
                    change(&report, "ClusterRoleBinding rb")["subject"],
                    format!("ClusterRoleBinding {NAME}")
                );
            }
        }
        let summary = std::fs::read_to_string(actions.summary()).unwrap();
        assert_summary_shape(&summary);
        assert!(
            summary
                .contains("| + | ClusterRoleBinding rb\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{202e}x |"),
            "{summary}"
        );
    }
}

#[test]
fn lint_and_verify_annotate_a_hostile_release_with_capkgs_commands_only() {
    let (dir, _, new) = hostile_pair();
    for command in ["lint", "verify"] {
        for format in ["human", "github", "json"] {
            let (output, actions) =
                in_actions(&[command, new.to_str().unwrap()], format, dir.path());
            assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
            let annotations = assert_inert(&output);
            let text = stdout(&output);
            if format == "json" {
                let report: Value = serde_json::from_str(&text).unwrap();
                let message = report["diagnostics"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|d| d["rule"] == "components/image-reference")
                    .unwrap()["message"]
                    .as_str()
                    .unwrap()
                    .to_string();
                assert!(
                    message.starts_with(&format!("image `{IMAGE}` of container")),
                    "{message}"
                );
                assert!(!text.contains("##["), "{text}");
            } else if format == "github" || command == "verify" {
                // Annotations: capkg's own (one per finding of the trimmed release), each one
                // line, what they quote escaped.
                for rule in [
                    "components/image-reference",
                    "components/manager-container",
                    "crd/template",
                ] {
                    assert!(
                        annotations
                            .iter()
                            .any(|a| a.contains(&format!("title={rule}::"))),
                        "{rule}: {text}"
                    );
                }
                assert!(
                    annotations
                        .iter()
                        .all(|a| a.starts_with("::error file=") || a.starts_with("::warning file=")),
                    "{text}"
                );
                let image = annotations
                    .iter()
                    .find(|a| a.contains("title=components/image-reference"))
                    .unwrap();
                assert!(
                    image.contains("image `x\\n::warning::pwned\\n::set-output name=clusterctl-url::http://evil\\n::stop-commands::abc\\n##\\u{5b}error]legacy` of container `manager\\n::error::container`"),
                    "{image}"
                );
            } else {
                // miette wraps the message at the terminal's width.
                assert!(
                    text.contains(
                        "image `x\\n::warning::pwned\\n::set-output name=clusterctl-url::http://"
                    ),
                    "{text}"
                );
            }
            if command == "verify" {
                assert_summary_shape(&std::fs::read_to_string(actions.summary()).unwrap());
            }
        }
    }
}

/// A provider releasing `v1.2.4` to a local repository whose `v1.2.3`, the previous release, is
/// hostile.
fn provider_after_a_hostile_release() -> crate::release_common::Provider {
    let metadata = crate::publish_fakes::METADATA;
    let provider =
        crate::release_common::Provider::new("  local:\n    repository: repo\n", metadata);
    let previous = provider.root().join("repo/infrastructure-azure/v1.2.3");
    std::fs::create_dir_all(&previous).unwrap();
    std::fs::write(previous.join("metadata.yaml"), metadata).unwrap();
    let components = crate::publish_fakes::COMPONENTS
        .replace("registry.k8s.io/capz:v1.2.3", IMAGE_YAML)
        .replacen(
            "  name: capz-controller-manager",
            "  name: \"capz-controller-manager\\n::stop-commands::tok\"",
            1,
        )
        + &format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {NAME_YAML}\n  namespace: capz-system\n"
        );
    std::fs::write(previous.join("infrastructure-components.yaml"), components).unwrap();
    provider
}

#[test]
fn release_dry_run_shows_the_previous_release_without_running_it() {
    let provider = provider_after_a_hostile_release();
    for format in ["human", "github", "json"] {
        let (output, actions) = in_actions(
            &[
                "release",
                "--dry-run",
                "--config",
                provider.config().to_str().unwrap(),
            ],
            format,
            provider.root(),
        );
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        // capkg's own annotations (the release's lint warnings) are all there is.
        assert_inert(&output);
        let text = stdout(&output);
        if format == "json" {
            let report: Value = serde_json::from_str(&text).unwrap();
            let diff = &report["targets"][0]["upgrade"][0]["diff"];
            assert_eq!(change(diff, "container manager")["old"], IMAGE);
        } else {
            assert!(
                text.lines().any(|l| l == "    - Objects Deployment capz-system/capz-controller-manager\\n::stop-commands::tok"),
                "{text}"
            );
        }
        // The outputs are capkg's, each once, the URL the real one.
        let outputs = actions.outputs();
        let names: Vec<&str> = outputs.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "version",
                "status",
                "provider-label",
                "clusterctl-url",
                "infrastructure-azure-clusterctl-url",
                "local-infrastructure-azure-clusterctl-url",
                "local-clusterctl-url",
                "local-url",
                "clusterctl-config",
            ],
            "{outputs:?}"
        );
        let url = actions.output_value("clusterctl-url").unwrap();
        assert!(
            url.starts_with("file://")
                && url
                    .ends_with("/repo/infrastructure-azure/v1.2.4/infrastructure-components.yaml"),
            "{url}"
        );
        let summary = std::fs::read_to_string(actions.summary()).unwrap();
        assert_summary_shape(&summary);
        assert!(
            summary.contains(
                "| - | ConfigMap capz-system/rb\\u{1b}]0;title\\u{7}\\u{1b}[2J\\u{202e}x |"
            ),
            "{summary}"
        );
    }
}

const PASSWORD: &str = "s3cret-Passw0rd";

/// Neither stream nor the summary shows the password; the reference is shown redacted.
fn assert_no_password(output: &Output, summary: &str) {
    for (what, text) in [
        ("stdout", stdout(output)),
        ("stderr", stderr(output)),
        ("summary", summary.to_string()),
    ] {
        assert!(
            !text.contains(PASSWORD),
            "{what} shows the password: {text}"
        );
    }
}

#[test]
fn a_refused_reference_does_not_echo_its_password() {
    let dir = tempfile::tempdir().unwrap();
    for reference in [
        format!("oci://user:{PASSWORD}@127.0.0.1:1/repo:tag"),
        format!("oci://http://user:{PASSWORD}@127.0.0.1:1/repo:tag"),
    ] {
        for format in ["human", "github", "json"] {
            for args in [
                vec!["verify", reference.as_str()],
                vec!["diff", reference.as_str(), reference.as_str()],
            ] {
                let (output, actions) = in_actions(&args, format, dir.path());
                assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
                let summary = std::fs::read_to_string(actions.summary()).unwrap_or_default();
                assert_no_password(&output, &summary);
                let first = stderr(&output)
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                assert!(
                    first.starts_with("error: `oci://")
                        && first.contains("[redacted]@127.0.0.1:1/repo:tag`"),
                    "{first}"
                );
            }
        }
    }
}

/// A GitHub URL with a login, read from the fake GitHub: the login is never sent, and no
/// report, warning or summary of `verify`, `diff` or `release` (`previous:`) shows it.
#[test]
fn a_reference_read_with_a_login_in_it_is_shown_without_it() {
    let fake = FakeGitHub::start();
    let files = crate::publish_fakes::release_files();
    let assets: Vec<(&str, &[u8])> = files.iter().map(|(n, c)| (*n, c.as_slice())).collect();
    fake.add_release("v1.2.3", false, &assets);
    let url = format!(
        "https://user:{PASSWORD}@github.com/o/r/releases/v1.2.3/infrastructure-components.yaml"
    );
    let (_dir, folder) = crate::publish_fakes::release_dir();
    for format in ["human", "json"] {
        for args in [
            vec!["verify", url.as_str(), "--api-url", fake.api.as_str()],
            vec![
                "diff",
                url.as_str(),
                folder.to_str().unwrap(),
                "--api-url",
                fake.api.as_str(),
            ],
        ] {
            let token = [("GITHUB_TOKEN", github::TOKEN)];
            let (output, actions) = in_actions_with(&args, format, folder.as_path(), &token);
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
            let summary = std::fs::read_to_string(actions.summary()).unwrap();
            assert_no_password(&output, &summary);
            let text = stdout(&output);
            assert!(
                text.contains("https://[redacted]@github.com/o/r/releases/v1.2.3/"),
                "{text}"
            );
            assert!(
                text.contains("held a user name or password, which capkg does not send"),
                "{text}"
            );
        }
    }
    // The token from the environment went to the API; the URL's login went nowhere.
    for request in fake.requests() {
        let authorization = request.header("authorization").unwrap_or_default();
        assert!(
            authorization.is_empty() || authorization.ends_with(github::TOKEN),
            "{authorization}"
        );
    }

    // `previous:` in capkg.yaml, read by a real release to a local repository.
    let provider = crate::release_common::Provider::new(
        "  local:\n    repository: repo\n",
        crate::publish_fakes::METADATA,
    );
    let config = std::fs::read_to_string(provider.config()).unwrap();
    std::fs::write(provider.config(), format!("{config}previous: {url}\n")).unwrap();
    for format in ["human", "json"] {
        let actions = Actions::new();
        let mut command = capkg();
        command
            .args(["release", "--format", format, "--config"])
            .arg(provider.config())
            .current_dir(provider.root())
            .env("GITHUB_API_URL", &fake.api)
            .env("GITHUB_TOKEN", github::TOKEN);
        actions.apply(
            &mut command,
            if format == "json" { "v1.2.5" } else { "v1.2.4" },
        );
        let output = command.output().unwrap();
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let summary = std::fs::read_to_string(actions.summary()).unwrap();
        let outputs = std::fs::read_to_string(actions.output()).unwrap();
        assert_no_password(&output, &format!("{summary}{outputs}"));
        assert!(
            summary.contains("https://[redacted]@github.com/o/r/releases/v1.2.3/"),
            "{summary}"
        );
    }
}

/// Every line capkg prints passes the guard (`src/escape/guard.rs`): only `src/cli/mod.rs`, which
/// hands out the guarded stdout and stderr (and the unguarded stdout for data asked for as it is),
/// may name the process's streams; nothing prints past it.
#[test]
fn every_print_goes_through_the_guard() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offenders = Vec::new();
    for entry in walkdir::WalkDir::new(&src) {
        let entry = entry.unwrap();
        let path = entry.path();
        let relative = path.strip_prefix(&src).unwrap().display().to_string();
        let name = path.file_name().unwrap().to_string_lossy();
        if path.extension().is_none_or(|e| e != "rs")
            || relative == "cli/mod.rs"
            || name == "tests.rs"
            || name.ends_with("_tests.rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for (index, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            if trimmed.starts_with("#[cfg(test)]") {
                break;
            }
            if trimmed.starts_with("//") || line.contains("is_terminal()") {
                continue;
            }
            let prints = ["println!", "print!(", "eprintln!", "eprint!(", "dbg!("]
                .iter()
                .any(|p| line.contains(p));
            let streams = ["io::stdout()", "io::stderr()"]
                .iter()
                .any(|p| line.contains(p));
            if prints || streams {
                offenders.push(format!("src/{relative}:{}: {}", index + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "print through `cli::stdout()` / `cli::stderr()` (escape::Guard):\n{}",
        offenders.join("\n")
    );
}
