//! What every command owes its reader, whatever happens: human output for findings at any
//! column (no panic), an exit code that is the verdict even when stdout is closed early (`|
//! head -c1` under `pipefail`), and with `--format json` exactly one JSON document on stdout.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use proptest::prelude::*;
use serde_json::Value;

use crate::publish_fakes::{COMPONENTS, METADATA, TEMPLATE};

/// A line of 70,000 characters before a `${` that does not close: a `variables/syntax` error at
/// column 70,0xx, in a mapping value that stays on one line when assemble rewrites the YAML.
fn long_line_components() -> String {
    let padding = "x".repeat(70_000);
    COMPONENTS.replacen(
        "  name: capz-controller-manager\n",
        &format!(
            "  name: capz-controller-manager\n  annotations:\n    note: \"{padding}${{BROKEN\"\n"
        ),
        1,
    )
}

/// Components with many findings (a `latest` image and no `manager` container in each of 300
/// Deployments): output far larger than a pipe's buffer, so a reader that leaves after one byte
/// closes the pipe while capkg still writes.
fn noisy_components() -> String {
    let mut text = COMPONENTS.to_string();
    for i in 0..300 {
        text.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d{i}\n  namespace: capz-system\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-azure\nspec:\n  template:\n    spec:\n      containers:\n      - name: c{i}\n        image: registry.k8s.io/capz:latest\n"
        ));
    }
    text
}

/// A repository with capkg.yaml (a local target) and components `components`.
fn repository(dir: &Path, components: &str) -> PathBuf {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("src/components.yaml"), components).unwrap();
    std::fs::write(dir.join("metadata.yaml"), METADATA).unwrap();
    std::fs::write(dir.join("cluster-template.yaml"), TEMPLATE).unwrap();
    std::fs::write(
        dir.join("capkg.yaml"),
        "provider:\n  name: azure\n  type: infrastructure\ncomponents:\n  files: [src/components.yaml]\nmetadata: metadata.yaml\ntemplates: [cluster-template.yaml]\nversion: v1.2.3\noutput: out\ntargets:\n  local:\n    repository: repo\n",
    )
    .unwrap();
    dir.join("capkg.yaml")
}

/// A release folder holding `components` as its components file.
fn release_dir(dir: &Path, components: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("infrastructure-components.yaml"), components).unwrap();
    std::fs::write(dir.join("metadata.yaml"), METADATA).unwrap();
    std::fs::write(dir.join("cluster-template.yaml"), TEMPLATE).unwrap();
    dir.to_path_buf()
}

fn capkg_in(dir: &Path) -> Command {
    in_clean_env(Command::new(env!("CARGO_BIN_EXE_capkg")), dir)
}

/// No tokens, no CI, no user configuration: the same environment for capkg and for the shell
/// that pipes it.
fn in_clean_env(mut command: Command, dir: &Path) -> Command {
    for name in [
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_API_URL",
        "GITLAB_TOKEN",
        "CI_JOB_TOKEN",
        "CI_API_V4_URL",
        "CI_PROJECT_ID",
        "NO_COLOR",
        "GITHUB_ACTIONS",
        "GITLAB_CI",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_OUTPUT",
        "GITHUB_REF_NAME",
        "GITHUB_REF_TYPE",
        "CI_COMMIT_TAG",
        "XDG_CONFIG_HOME",
    ] {
        command.env_remove(name);
    }
    command.env("HOME", dir).current_dir(dir);
    command
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_no_panic(output: &Output, what: &str) {
    let stderr = text(&output.stderr);
    assert!(
        !stderr.contains("panicked"),
        "{what} panicked: {}",
        &stderr[..stderr.len().min(2000)]
    );
}

#[test]
fn a_finding_at_column_70000_is_shown_in_lint_verify_and_assemble() {
    let temp = tempfile::tempdir().unwrap();
    let components = long_line_components();
    let release = release_dir(&temp.path().join("rel"), &components);
    let config = repository(&temp.path().join("repo"), &components);
    let runs: [(&str, Vec<&str>); 3] = [
        ("lint", vec!["lint", release.to_str().unwrap()]),
        ("verify", vec!["verify", release.to_str().unwrap()]),
        (
            "assemble",
            vec!["assemble", "--config", config.to_str().unwrap()],
        ),
    ];
    for (what, args) in runs {
        let output = capkg_in(temp.path())
            .args(["--color", "never"])
            .args(&args)
            .output()
            .unwrap();
        assert_no_panic(&output, what);
        assert_eq!(output.status.code(), Some(1), "{what}: {output:?}");
        let stdout = text(&output.stdout);
        assert!(stdout.contains("variables/syntax"), "{what}: {stdout}");
        assert!(stdout.contains("missing closing brace"), "{what}: {stdout}");
        // The real position, and a snippet cut around it rather than the 70,000 characters.
        assert!(
            stdout.contains(":700"),
            "{what}: no column 700xx in {stdout}"
        );
        assert!(stdout.contains("${BROKEN"), "{what}: {stdout}");
        assert!(stdout.len() < 5_000, "{what}: {} bytes", stdout.len());
    }
}

/// Exit code of `capkg ARGS` with stdout to a file, and under `set -o pipefail` into `head -c1`.
fn exit_codes(dir: &Path, args: &[&str]) -> (Option<i32>, Option<i32>) {
    let to_file = capkg_in(dir)
        .args(args)
        .stdout(std::fs::File::create(dir.join("stdout.txt")).unwrap())
        .output()
        .unwrap();
    assert_no_panic(&to_file, &args.join(" "));
    let mut bash = Command::new("bash");
    bash.arg("-c")
        .arg("set -o pipefail; \"$@\" | head -c1 >/dev/null")
        .arg("bash")
        .arg(env!("CARGO_BIN_EXE_capkg"))
        .args(args);
    let piped = in_clean_env(bash, dir).output().unwrap();
    assert_no_panic(&piped, &args.join(" "));
    (to_file.status.code(), piped.status.code())
}

#[test]
fn a_closed_stdout_never_changes_the_exit_code() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let noisy = noisy_components();
    let bad = release_dir(&dir.join("bad"), &noisy);
    let good = release_dir(&dir.join("good"), COMPONENTS);
    let bad_config = repository(&dir.join("bad-repo"), &noisy);
    let good_config = repository(&dir.join("good-repo"), COMPONENTS);
    // A large input for the commands whose output is the data.
    let big = dir.join("big.yaml");
    std::fs::write(&big, "a: ${A:=x}\n".repeat(20_000)).unwrap();
    let template = dir.join("good/cluster-template.yaml");
    let (bad, good, bad_config, good_config, big, template) = (
        bad.to_str().unwrap(),
        good.to_str().unwrap(),
        bad_config.to_str().unwrap(),
        good_config.to_str().unwrap(),
        big.to_str().unwrap(),
        template.to_str().unwrap(),
    );
    let init_dir = dir.join("init");
    std::fs::create_dir_all(&init_dir).unwrap();
    let init_dir = init_dir.to_str().unwrap();
    let local_repo = dir.join("local-repo");
    let local_repo = local_repo.to_str().unwrap();
    let cases: Vec<(Vec<&str>, i32)> = vec![
        (vec!["lint", bad], 1),
        (vec!["--format", "json", "lint", bad], 1),
        (vec!["--format", "github", "lint", bad], 1),
        (vec!["lint", good], 0),
        (vec!["lint", "missing-folder"], 2),
        (vec!["verify", bad], 1),
        (vec!["--format", "json", "verify", bad], 1),
        (vec!["verify", good], 0),
        (vec!["assemble", "--config", bad_config], 1),
        (
            vec!["--format", "json", "assemble", "--config", bad_config],
            1,
        ),
        (vec!["assemble", "--config", good_config], 0),
        (vec!["release", "--config", bad_config, "--dry-run"], 1),
        (
            vec![
                "--format",
                "json",
                "release",
                "--config",
                bad_config,
                "--dry-run",
            ],
            1,
        ),
        (vec!["release", "--config", good_config, "--dry-run"], 0),
        (vec!["rules"], 0),
        (vec!["rules", "no/such-rule"], 2),
        (vec!["subst", big], 0),
        (vec!["subst", "missing.yaml"], 2),
        (vec!["vars", big], 0),
        (vec!["render", template, "--cluster-name", "c1"], 0),
        (vec!["init", init_dir], 0),
        (
            vec![
                "publish",
                "local",
                good,
                "--repository",
                local_repo,
                "--dry-run",
                "--version",
                "v1.2.3",
            ],
            0,
        ),
        (vec!["completions", "bash"], 0),
        (vec!["completions", "zsh"], 0),
        (vec!["lint", "--no-such-flag"], 2),
    ];
    for (args, expected) in cases {
        let (to_file, piped) = exit_codes(dir, &args);
        assert_eq!(to_file, Some(expected), "capkg {} > file", args.join(" "));
        assert_eq!(piped, to_file, "capkg {} | head -c1", args.join(" "));
    }
}

/// Exactly one JSON document, whatever is in it.
fn one_document(stdout: &[u8]) -> Result<Value, String> {
    let mut documents = serde_json::Deserializer::from_slice(stdout).into_iter::<Value>();
    let first = match documents.next() {
        Some(Ok(value)) => value,
        Some(Err(e)) => return Err(format!("not JSON: {e}")),
        None => return Err("empty stdout".into()),
    };
    match documents.next() {
        None => Ok(first),
        Some(_) => Err("more than one document".into()),
    }
}

/// The inputs the generated command lines choose from.
struct Inputs {
    _temp: tempfile::TempDir,
    dir: PathBuf,
}

impl Inputs {
    fn new() -> Self {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().to_path_buf();
        release_dir(&dir.join("good"), COMPONENTS);
        release_dir(&dir.join("bad"), &long_line_components());
        repository(&dir.join("good-repo"), COMPONENTS);
        repository(&dir.join("bad-repo"), &noisy_components());
        std::fs::write(dir.join("garbage.yaml"), b"a: [\n\xff\xfe ${X\n").unwrap();
        std::fs::write(dir.join("vars.yaml"), "a: ${A}\nb: ${B:=2}\n").unwrap();
        Self { _temp: temp, dir }
    }

    /// A path argument: good, bad, missing or garbage, as `kind` picks.
    fn path(&self, kind: usize, good: &str, bad: &str) -> String {
        let name = match kind % 4 {
            0 => good,
            1 => bad,
            2 => "does-not-exist",
            _ => "garbage.yaml",
        };
        self.dir.join(name).display().to_string()
    }

    fn command_line(&self, command: usize, kind: usize, extra: usize) -> Vec<String> {
        let mut args: Vec<String> = vec!["--format".into(), "json".into()];
        let words = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        match command % 11 {
            0 => args.extend(words(&["lint", &self.path(kind, "good", "bad")])),
            1 => args.extend(words(&["verify", &self.path(kind, "good", "bad")])),
            2 => {
                let rule = ["yaml/syntax", "no/such-rule", "", "crd"][kind % 4];
                args.push("rules".into());
                if !rule.is_empty() {
                    args.push(rule.into());
                }
            }
            3 => args.extend(words(&[
                "subst",
                &self.path(kind, "vars.yaml", "vars.yaml"),
            ])),
            4 => args.extend(words(&[
                "vars",
                &self.path(kind, "vars.yaml", "garbage.yaml"),
            ])),
            5 => args.extend(words(&[
                "render",
                &self.path(kind, "good/cluster-template.yaml", "vars.yaml"),
                "--cluster-name",
                "c1",
            ])),
            6 => {
                let config = self.path(kind, "good-repo/capkg.yaml", "bad-repo/capkg.yaml");
                let out = self.dir.join(format!("out-{kind}-{extra}"));
                args.extend(words(&[
                    "assemble",
                    "--config",
                    &config,
                    "--out",
                    &out.display().to_string(),
                ]));
            }
            7 => {
                let target = self.dir.join(format!("init-{kind}-{extra}"));
                if kind.is_multiple_of(2) {
                    std::fs::create_dir_all(&target).unwrap();
                }
                args.extend(words(&["init", &target.display().to_string()]));
            }
            8 => {
                let repo = self.dir.join(format!("local-{kind}-{extra}"));
                args.extend(words(&[
                    "publish",
                    "local",
                    &self.path(kind, "good", "bad"),
                    "--repository",
                    &repo.display().to_string(),
                    "--version",
                    "v1.2.3",
                ]));
                if extra.is_multiple_of(2) {
                    args.push("--dry-run".into());
                }
            }
            9 => args.extend(words(&[
                "release",
                "--config",
                &self.path(kind, "good-repo/capkg.yaml", "bad-repo/capkg.yaml"),
                "--dry-run",
            ])),
            _ => args.extend(words(&[
                "completions",
                ["bash", "fish", "nosh", "zsh"][kind % 4],
            ])),
        }
        match extra % 5 {
            1 => args.push("-q".into()),
            2 => args.push("--no-such-flag".into()),
            3 if command % 11 <= 1 => args.extend(words(&["--version", "not-a-version"])),
            _ => {}
        }
        args
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn every_outcome_is_one_json_document(command in 0usize..11, kind in 0usize..4, extra in 0usize..5) {
        thread_local! {
            static INPUTS: Inputs = Inputs::new();
        }
        INPUTS.with(|inputs| {
            let args = inputs.command_line(command, kind, extra);
            let output = capkg_in(&inputs.dir).args(&args).output().unwrap();
            assert_no_panic(&output, &args.join(" "));
            let document = one_document(&output.stdout).unwrap_or_else(|e| {
                panic!(
                    "capkg {}: {e}\nstdout: {}\nstderr: {}",
                    args.join(" "),
                    text(&output.stdout),
                    text(&output.stderr)
                )
            });
            let code = output.status.code().unwrap_or(-1);
            // A failure that did not come with its own report says why in the error object.
            if let Some(error) = document.get("error").filter(|e| e.is_object()) {
                let exit_code = error.get("exit_code").and_then(Value::as_i64);
                assert_eq!(exit_code, Some(i64::from(code)), "capkg {}: {document}", args.join(" "));
                assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{document}");
                assert!(error.get("hint").is_some(), "{document}");
            } else if code == 2 {
                panic!("capkg {} exited 2 without an error object: {document}", args.join(" "));
            }
        });
    }
}

#[test]
fn lint_quiet_counts_the_warnings_it_hides() {
    let temp = tempfile::tempdir().unwrap();
    let components = COMPONENTS.replace("capz:v1.2.3", "capz:latest");
    let release = release_dir(&temp.path().join("rel"), &components);
    let output = capkg_in(temp.path())
        .args(["-q", "lint", release.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = text(&output.stdout);
    assert!(!stdout.contains("no problems"), "{stdout}");
    assert!(stdout.contains("1 warning"), "{stdout}");
}

#[test]
fn a_successful_assemble_prints_its_warnings_in_every_format() {
    let temp = tempfile::tempdir().unwrap();
    let components = COMPONENTS.replace("capz:v1.2.3", "capz:latest");
    let config = repository(&temp.path().join("repo"), &components);
    // Without a version a moving tag is a warning (with one, the release cannot run it).
    let written = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, written.replace("version: v1.2.3\n", "")).unwrap();
    for format in ["human", "json", "github"] {
        let out = temp.path().join(format!("out-{format}"));
        let output = capkg_in(temp.path())
            .args([
                "--color", "never", "--format", format, "assemble", "--config",
            ])
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{format}: {output:?}");
        let stdout = text(&output.stdout);
        assert!(
            stdout.contains("components/image-tag"),
            "{format}: {stdout}"
        );
        assert!(stdout.contains("latest"), "{format}: {stdout}");
        if format == "json" {
            let document = one_document(&output.stdout).unwrap();
            assert_eq!(document["summary"]["warnings"], 1, "{document}");
        }
        assert!(out.join("infrastructure-components.yaml").is_file());
    }
}

#[test]
fn data_commands_wrap_their_output_in_json() {
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("t.yaml");
    std::fs::write(&file, "name: ${NAME:=x}\n").unwrap();
    let output = capkg_in(temp.path())
        .args(["--format", "json", "subst"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let document = one_document(&output.stdout).unwrap();
    assert_eq!(document["output"], "name: x\n");

    let init = temp.path().join("init");
    std::fs::create_dir_all(&init).unwrap();
    let output = capkg_in(temp.path())
        .args(["--format", "json", "init"])
        .arg(&init)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let document = one_document(&output.stdout).unwrap();
    assert!(
        document["written"]
            .as_array()
            .is_some_and(|w| w.iter().any(|p| p == "capkg.yaml")),
        "{document}"
    );
    assert!(document["kept"].as_array().is_some_and(Vec::is_empty));

    let output = capkg_in(temp.path())
        .args(["--format", "json", "completions", "bash"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let document = one_document(&output.stdout).unwrap();
    assert_eq!(document["error"]["exit_code"], 2, "{document}");
}
