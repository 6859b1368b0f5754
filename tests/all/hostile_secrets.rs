//! Secrets a release job holds (issue 30): every one is redacted wherever capkg prints, before
//! any cut, and names and paths an attacker controls cannot steer a request or a write.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::copy_example_provider;

fn capkg() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_capkg"));
    command
        .env("HOME", "/nonexistent")
        .env_remove("DOCKER_CONFIG")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITLAB_CI");
    command
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The example provider with `components:` replaced by `components` (YAML lines).
fn example_with_components(components: &str) -> tempfile::TempDir {
    let project = tempfile::tempdir().unwrap();
    copy_example_provider(project.path());
    let config = std::fs::read_to_string(project.path().join("capkg.yaml")).unwrap();
    let config = config.replace(
        "components:\n  files: [config/crd, config/rbac, config/manager, config/webhook]\n",
        &format!("components:\n{components}"),
    );
    assert!(config.contains(components));
    std::fs::write(project.path().join("capkg.yaml"), config).unwrap();
    project
}

const OCI_PASSWORD: &str = "oci-pass-0123456789";
const OCI_ACCESS_TOKEN: &str = "oci-token-0123456789";
const DOCKER_PASSWORD: &str = "docker-pass-0123456789";

#[test]
fn registry_secrets_are_redacted_from_a_failing_command_everywhere_it_is_shown() {
    let docker = tempfile::tempdir().unwrap();
    let auth = base64_of(&format!("bob:{DOCKER_PASSWORD}"));
    std::fs::write(
        docker.path().join("config.json"),
        format!(r#"{{"auths":{{"registry.example":{{"auth":"{auth}"}}}}}}"#),
    )
    .unwrap();
    // The command prints each secret as a careless build script would: the variables, the
    // Docker config file, and its `auth` decoded.
    let project = example_with_components(
        "  command: \"echo pw=$OCI_PASSWORD at=$OCI_ACCESS_TOKEN >&2; cat $DOCKER_CONFIG/config.json >&2; echo; echo $AUTH | base64 -d >&2; echo; echo $DOCKER_AUTH_CONFIG >&2; exit 3\"\n",
    );
    // GitLab CI's Docker config, in a variable.
    let gitlab_auth = base64_of("ci:gitlab-ci-pass-0123456789");
    let summary = project.path().join("summary.md");
    for format in ["human", "json"] {
        let output = capkg()
            .args(["--format", format, "release", "--dry-run", "--config"])
            .arg(project.path().join("capkg.yaml"))
            .env("OCI_PASSWORD", OCI_PASSWORD)
            .env("OCI_ACCESS_TOKEN", OCI_ACCESS_TOKEN)
            .env("DOCKER_CONFIG", docker.path())
            .env("AUTH", &auth)
            .env(
                "DOCKER_AUTH_CONFIG",
                format!(r#"{{"auths":{{"registry.gitlab.example":{{"auth":"{gitlab_auth}"}}}}}}"#),
            )
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_STEP_SUMMARY", &summary)
            .output()
            .unwrap();
        let shown = format!(
            "{}{}",
            text(&output),
            std::fs::read_to_string(&summary).unwrap_or_default()
        );
        assert_eq!(output.status.code(), Some(1), "{shown}");
        assert!(shown.contains("pw=[redacted]"), "{shown}");
        for secret in [
            OCI_PASSWORD,
            OCI_ACCESS_TOKEN,
            DOCKER_PASSWORD,
            &auth,
            &gitlab_auth,
        ] {
            assert!(
                !shown.contains(secret),
                "{secret} leaked ({format}):\n{shown}"
            );
        }
    }
}

#[test]
fn the_stderr_cut_leaves_no_part_of_a_token() {
    const TOKEN: &str = "ghp_CUTthrough0123456789abcdef";
    // One long line (no newline for the excerpt to start at), the 64 KiB excerpt starting four
    // characters into the token.
    let after = 64 * 1024 - (TOKEN.len() - 4);
    let project = example_with_components(&format!(
        "  command: \"head -c 200000 /dev/zero | tr '\\\\0' x >&2; printf %s $GITHUB_TOKEN >&2; head -c {after} /dev/zero | tr '\\\\0' y >&2; exit 3\"\n"
    ));
    let output = capkg()
        .args(["assemble", "--config"])
        .arg(project.path().join("capkg.yaml"))
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    let shown = text(&output);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        &shown[..2000.min(shown.len())]
    );
    assert!(shown.contains("yyyy"), "the excerpt is shown");
    assert!(!shown.contains(&TOKEN[4..]), "part of the token leaked");
}

fn base64_of(text: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(text)
}

fn assemble(project: &Path) -> Output {
    capkg()
        .args(["assemble", "--config"])
        .arg(project.join("capkg.yaml"))
        .output()
        .unwrap()
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert!(text.contains(from), "{from}");
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn a_namespace_kubernetes_refuses_is_refused_with_its_place_before_anything_is_written() {
    let long = "a".repeat(70);
    for bad in ["Capx_System", long.as_str()] {
        let project = tempfile::tempdir().unwrap();
        copy_example_provider(project.path());
        let config = project.path().join("capkg.yaml");
        edit(
            &config,
            "namespace: capx-system",
            &format!("namespace: {bad}"),
        );
        let output = assemble(project.path());
        // A configuration error, like every other in capkg.yaml.
        assert_eq!(output.status.code(), Some(2), "{}", text(&output));
        assert!(
            text(&output).contains(&format!("capkg.yaml:15:12: `{bad}` cannot be a namespace")),
            "{}",
            text(&output)
        );
        assert!(!project.path().join("out").exists());
    }
    // No `namespace:`: the components' own Namespace is the one, and is checked where it is.
    let project = tempfile::tempdir().unwrap();
    copy_example_provider(project.path());
    edit(
        &project.path().join("capkg.yaml"),
        "namespace: capx-system\n",
        "",
    );
    edit(
        &project.path().join("config/manager/manager.yaml"),
        "name: system",
        "name: Capx_System",
    );
    let output = assemble(project.path());
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    // The components are the folders concatenated; the place is in that text.
    assert!(
        text(&output).contains("config/manager")
            && text(&output).contains(":9: `Capx_System` cannot be a namespace"),
        "{}",
        text(&output)
    );
    assert!(!project.path().join("out").exists());
}

#[test]
fn sources_outside_the_repository_are_refused_by_plain_path_as_by_link() {
    for (from, to) in [
        (
            "metadata: metadata.yaml",
            "metadata: ../outside/metadata.yaml",
        ),
        (
            "  - templates/cluster-template*.yaml",
            "  - ../outside/cluster-template*.yaml",
        ),
        (
            "components:\n  files: [config/crd, config/rbac, config/manager, config/webhook]",
            "components:\n  file: ../outside/components.yaml",
        ),
    ] {
        let root = tempfile::tempdir().unwrap();
        let project = root.path().join("project");
        std::fs::create_dir(&project).unwrap();
        copy_example_provider(&project);
        let outside = root.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        // Files that would assemble: only where they are can be the refusal.
        std::fs::copy(project.join("metadata.yaml"), outside.join("metadata.yaml")).unwrap();
        std::fs::copy(
            project.join("templates/cluster-template.yaml"),
            outside.join("cluster-template-outside.yaml"),
        )
        .unwrap();
        std::fs::copy(
            project.join("config/manager/manager.yaml"),
            outside.join("components.yaml"),
        )
        .unwrap();
        edit(&project.join("capkg.yaml"), from, to);
        let output = assemble(&project);
        assert_eq!(output.status.code(), Some(1), "{to}: {}", text(&output));
        assert!(
            text(&output).contains("outside the repository"),
            "{to}: {}",
            text(&output)
        );
        assert!(!project.join("out").exists(), "{to}");
    }
}

#[test]
fn a_cr_only_template_cannot_be_waived_into_a_release() {
    let project = tempfile::tempdir().unwrap();
    copy_example_provider(project.path());
    let template = project.path().join("templates/cluster-template.yaml");
    let lf = std::fs::read_to_string(&template).unwrap();
    std::fs::write(&template, lf.replace('\n', "\r")).unwrap();
    // In capkg.yaml: refused where the waiver is written.
    let config = project.path().join("capkg.yaml");
    let original = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!(
            "{original}lint:\n  allow:\n    - rule: yaml/line-endings\n      reason: our editor\n"
        ),
    )
    .unwrap();
    let output = assemble(project.path());
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("`yaml/line-endings` cannot be waived"),
        "{}",
        text(&output)
    );
    assert!(!project.path().join("out").exists());
    // On the command line: refused too.
    std::fs::write(&config, &original).unwrap();
    let output = capkg()
        .args(["lint", "--allow", "yaml/line-endings=our editor"])
        .arg(project.path().join("templates"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(
        text(&output).contains("cannot be waived"),
        "{}",
        text(&output)
    );
}
