//! `capkg init` copies names it read from a repository into files that run (issue 36): on a
//! trimmed hostile repository (the example provider with a crafted Makefile target or manager
//! image), nothing it read reaches the generated workflow's scripts or expressions, and
//! `capkg.yaml` holds only scalars that read back as themselves; what cannot be written safely is
//! left out with a note naming where it came from.

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;

/// The example provider, as a GitHub repository, without its `capkg.yaml`.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    crate::common::copy_example_provider(dir.path());
    std::fs::remove_file(dir.path().join("capkg.yaml")).unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::write(
        dir.path().join(".git/config"),
        "[remote \"origin\"]\n\turl = https://github.com/acme/cluster-api-provider-example.git\n",
    )
    .unwrap();
    dir
}

fn init(dir: &Path) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .arg("init")
        .arg(dir)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn read(dir: &Path, file: &str) -> String {
    std::fs::read_to_string(dir.join(file)).unwrap()
}

/// Every `${{ … }}` of a workflow, as written.
fn expressions(workflow: &str) -> Vec<&str> {
    workflow
        .match_indices("${{")
        .map(|(at, _)| {
            let end = workflow[at..]
                .find("}}")
                .map_or(workflow.len(), |e| at + e + 2);
            &workflow[at..end]
        })
        .collect()
}

/// The workflow is YAML, and its only expressions are the template's own.
fn assert_workflow_runs_nothing_it_read(workflow: &str) {
    let parsed = capkg::yaml::parse_str(
        std::sync::Arc::new(capkg::yaml::Source::new("capkg-release.yaml", workflow)),
        capkg::yaml::Limits::default(),
    );
    assert!(parsed.errors.is_empty(), "{:?}\n{workflow}", parsed.errors);
    assert_eq!(
        expressions(workflow),
        [
            "${{ github.workflow }}",
            "${{ github.ref }}",
            "${{ secrets.GITHUB_TOKEN }}"
        ],
        "{workflow}"
    );
}

/// A make target named `gen${{github.token}}x$(id)` that writes the templates the release
/// copies: GitHub would paste the token into a `run:` script holding it, and bash would run
/// `id`. It gets no step (a note names it and its Makefile line); a plain one gets a step that
/// passes it through `env:`.
#[test]
fn a_hostile_make_target_never_reaches_the_workflow() {
    let makefile = |target: &str| {
        format!(
            "RELEASE_DIR := out\n\nrelease: {target}\n\tcp generated/cluster-template* $(RELEASE_DIR)/\n\n{target}:\n\tbash hack/generate-flavors.sh\n"
        )
    };
    let repo = repository();
    // `$$` is make's `$`: the target's name is `gen${{github.token}}x$(id)`.
    std::fs::write(
        repo.path().join("Makefile"),
        makefile("gen$${{github.token}}x$$(id)"),
    )
    .unwrap();
    let output = init(repo.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let workflow = read(repo.path(), ".github/workflows/capkg-release.yaml");
    assert!(
        !workflow.contains("github.token")
            && !workflow.contains("$(id)")
            && !workflow.contains("make"),
        "{workflow}"
    );
    assert_workflow_runs_nothing_it_read(&workflow);
    assert!(
        stderr.contains(
            "note: templates: generated/cluster-template*.yaml is made by the make target `gen${{github.token}}x$(id)` (Makefile:7), whose name holds `$`"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("by hand"), "{stderr}");
    crate::common::load_written_config(&repo.path().join("capkg.yaml"));

    // The same release with a plain target: a step, the target passed through `env:`.
    let repo = repository();
    std::fs::write(repo.path().join("Makefile"), makefile("generate-flavors")).unwrap();
    init(repo.path());
    let workflow = read(repo.path(), ".github/workflows/capkg-release.yaml");
    assert!(
        workflow.contains(
            "        run: make \"$MAKE_TARGET\" # writes generated/cluster-template*.yaml, as the Makefile's release does\n        env:\n          MAKE_TARGET: generate-flavors\n"
        ),
        "{workflow}"
    );
    assert_workflow_runs_nothing_it_read(&workflow);
}

/// A manager image holding line breaks would write keys of its own into `capkg.yaml` (here a
/// `newName` renaming the real manager image); it is not written, and the note says where it is.
/// An image name with a port is quoted, and reads back as itself.
#[test]
fn a_manager_image_with_line_breaks_is_not_written_into_capkg_yaml() {
    let repo = repository();
    let manager = repo.path().join("config/manager/manager.yaml");
    let text = std::fs::read_to_string(&manager).unwrap();
    let hostile = text.replace(
        "image: registry.example.com/capi-example/manager:v0.1.0",
        "image: \"registry.example.com/capi-example/manager\\n    newName: evil.example/manager\"",
    );
    assert_ne!(hostile, text);
    std::fs::write(&manager, hostile).unwrap();
    let output = init(repo.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let written = read(repo.path(), "capkg.yaml");
    assert!(!written.contains("evil.example"), "{written}");
    assert!(
        written.contains("# images:\n"),
        "no `images:` entry: {written}"
    );
    assert!(
        stderr.contains(
            "note: manager image `registry.example.com/capi-example/manager\\n    newName: evil.example/manager` (config/manager/manager.yaml:28) is not an image name docker accepts"
        ),
        "{stderr}"
    );
    let config = crate::common::load_written_config(&repo.path().join("capkg.yaml"));
    assert!(config.images.is_empty());

    let repo = repository();
    let manager = repo.path().join("config/manager/manager.yaml");
    let text = std::fs::read_to_string(&manager).unwrap().replace(
        "registry.example.com/capi-example/manager:v0.1.0",
        "localhost:5000/capi-example/manager:dev",
    );
    std::fs::write(&manager, text).unwrap();
    init(repo.path());
    let written = read(repo.path(), "capkg.yaml");
    assert!(
        written.contains(
            "  - name: \"localhost:5000/capi-example/manager\"  # config/manager/manager.yaml\n"
        ),
        "{written}"
    );
    let config = crate::common::load_written_config(&repo.path().join("capkg.yaml"));
    assert_eq!(config.images[0].name, "localhost:5000/capi-example/manager");
}
