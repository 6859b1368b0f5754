//! The book's walkthrough (docs/book/src/adopt.md) as a maintainer runs it: from a sub-folder
//! of the checkout (capkg.yaml found up to the repository root, with its waivers), `lint` and
//! `verify` of the assembled folder agreeing with `assemble`, and errors naming the file the
//! maintainer has to open.

use std::path::Path;
use std::process::Output;

use crate::release_common::clean_capkg;

fn run(dir: &Path, args: &[&str]) -> Output {
    clean_capkg()
        .args(args)
        .args(["--color", "never"])
        .current_dir(dir)
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

fn write(root: &Path, name: &str, text: &str) {
    let path = root.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_readme_walkthrough_runs_from_core() {
    // The book, "Adopt capkg in an existing provider repository": `cd cluster-api/core && capkg
    // init`, then `capkg assemble` and `capkg lint` of what it wrote, all from `core/`.
    let checkout = crate::init_repos::checkout(
        "cluster-api",
        Some("https://github.com/kubernetes-sigs/cluster-api.git"),
    );
    let root = checkout.path().join("cluster-api");
    let core = root.join("core");

    let init = run(&core, &["init"]);
    assert!(init.status.success(), "init: {}", text(&init));
    assert!(root.join("capkg.yaml").is_file());

    let assemble = run(&core, &["assemble", "--version", "v1.11.0"]);
    assert!(assemble.status.success(), "assemble: {}", text(&assemble));
    assert!(root.join("out/core-components.yaml").is_file());

    // The same files, the same verdict: lint and verify read the folder as assemble built it,
    // one provider per components type.
    let lint = run(&core, &["lint", "../out", "--version", "v1.11.0"]);
    assert!(lint.status.success(), "lint: {}", text(&lint));
    assert!(!text(&lint).contains("<type>-<name>"), "{}", text(&lint));
    let verify = run(&core, &["verify", "../out", "--version", "v1.11.0"]);
    assert!(verify.status.success(), "verify: {}", text(&verify));
    // `--version` is the version of `out/`, as for lint: the series check runs.
    assert!(
        !text(&verify).contains("check was skipped"),
        "{}",
        text(&verify)
    );
    assert!(text(&verify).contains("v1.11.0"), "{}", text(&verify));
}

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 0\n  minor: 1\n  contract: v1beta1\n";

/// A repository whose release folder `rel/` runs a `:latest` image, waived for `rel/` in
/// capkg.yaml.
fn waived_repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        "rel/infrastructure-components.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-capx\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: gcr.io/capx/manager:latest\n",
    );
    write(dir.path(), "rel/metadata.yaml", METADATA);
    write(
        dir.path(),
        "capkg.yaml",
        "lint:\n  allow:\n    - rule: components/image-tag\n      files: [\"rel/*.yaml\"]\n      reason: judged\n",
    );
    dir
}

#[test]
fn lint_in_a_sub_folder_honours_the_waivers() {
    let dir = waived_repository();
    let at_root = run(dir.path(), &["lint", "rel", "--version", "v0.1.0"]);
    assert_eq!(at_root.status.code(), Some(0), "{}", text(&at_root));
    // The same files from inside `rel/`: the waiver's `rel/*.yaml` still matches.
    let inside = run(
        &dir.path().join("rel"),
        &["lint", ".", "--version", "v0.1.0"],
    );
    assert_eq!(inside.status.code(), Some(0), "{}", text(&inside));
    assert!(text(&inside).contains("(waived)"), "{}", text(&inside));
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn a_yaml_error_in_components_files_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        "config/crd/a.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
    );
    write(
        dir.path(),
        "config/manager/manager.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  labels: [a\n",
    );
    write(dir.path(), "metadata.yaml", METADATA);
    write(
        dir.path(),
        "capkg.yaml",
        "provider:\n  name: capx\n  type: infrastructure\ncomponents:\n  files: [config/crd, config/manager]\nmetadata: metadata.yaml\n",
    );
    // From the root (the file and line) and from `config/` (capkg.yaml found above it).
    for from in [dir.path().to_path_buf(), dir.path().join("config")] {
        let output = run(&from, &["assemble", "--version", "v0.1.0"]);
        let said = text(&output);
        assert_eq!(output.status.code(), Some(1), "{said}");
        assert!(said.contains("config/manager/manager.yaml:"), "{said}");
        assert!(!said.contains("config/crd, "), "{said}");
        // The line in manager.yaml, not in the files joined together (7 lines further down).
        let at = said
            .split("manager.yaml:")
            .nth(1)
            .and_then(|rest| rest.split(':').next())
            .and_then(|line| line.parse::<usize>().ok());
        assert!(matches!(at, Some(5..=6)), "{said}");
    }
}

#[test]
fn assemble_takes_the_ci_tag_before_version_and_says_so() {
    // `release` took the tag and `assemble` took `version:`, silently.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        "components.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: gcr.io/capx/manager:main\n",
    );
    write(
        dir.path(),
        "metadata.yaml",
        "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 0\n  minor: 1\n  contract: v1beta1\n- major: 0\n  minor: 2\n  contract: v1beta1\n",
    );
    write(
        dir.path(),
        "capkg.yaml",
        "provider:\n  name: capx\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\nnamespace: capx-system\nversion: v0.1.0\nimages:\n  - name: gcr.io/capx/manager\n    newTag: \"{version}\"\n",
    );
    let output = clean_capkg()
        .args(["assemble", "--color", "never"])
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_REF_TYPE", "tag")
        .env("GITHUB_REF_NAME", "v0.2.0")
        .current_dir(dir.path())
        .output()
        .unwrap();
    let said = text(&output);
    assert!(output.status.success(), "{said}");
    let written =
        std::fs::read_to_string(dir.path().join("out/infrastructure-components.yaml")).unwrap();
    assert!(written.contains("gcr.io/capx/manager:v0.2.0"), "{written}");
    assert!(
        said.contains("warning:") && said.contains("`version: v0.1.0`"),
        "{said}"
    );
}

#[test]
#[cfg_attr(
    windows,
    ignore = "Windows gap: paths shown and matched with backslashes"
)]
fn release_findings_name_files_that_exist() {
    // `release` assembles in memory: its findings named `out/infrastructure-components.yaml`,
    // which nothing wrote.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        "components.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: gcr.io/capx/manager:latest\n",
    );
    write(dir.path(), "metadata.yaml", METADATA);
    write(
        dir.path(),
        "capkg.yaml",
        "provider:\n  name: capx\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\nnamespace: capx-system\ntargets:\n  local:\n    repository: repo\n",
    );
    let output = run(
        dir.path(),
        &["release", "--version", "v0.1.0", "--target", "local"],
    );
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("components/image-tag"), "{said}");
    let named: Vec<&str> = said
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']' || c == '`')
        .filter(|word| word.contains("components.yaml:"))
        .collect();
    assert!(!named.is_empty(), "{said}");
    for word in named {
        let file = word.split(':').next().unwrap();
        assert!(dir.path().join(file).is_file(), "`{file}` named in: {said}");
    }
    assert!(!dir.path().join("repo").exists(), "nothing published");
    // `.git` here is an empty folder: git's own `fatal: …` is not printed as it is.
    assert!(said.contains("not in a git work tree"), "{said}");
    assert!(!said.contains("fatal:"), "{said}");
}

#[test]
fn assemble_findings_name_files_that_exist() {
    // `assemble` refuses a release with lint errors and writes nothing to `out/`: its findings
    // named `out/infrastructure-components.yaml`, which did not exist.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    write(
        dir.path(),
        "components.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: gcr.io/capx/manager:latest\n",
    );
    write(dir.path(), "metadata.yaml", METADATA);
    write(
        dir.path(),
        "capkg.yaml",
        "provider:\n  name: capx\n  type: infrastructure\ncomponents:\n  file: components.yaml\nmetadata: metadata.yaml\nnamespace: capx-system\n",
    );
    let output = run(dir.path(), &["assemble", "--version", "v0.1.0"]);
    let said = text(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("components/image-tag"), "{said}");
    let named: Vec<&str> = said
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']' || c == '`')
        .filter(|word| word.contains(".yaml:"))
        .collect();
    assert!(!named.is_empty(), "{said}");
    for word in named {
        let file = word.split(':').next().unwrap();
        assert!(dir.path().join(file).is_file(), "`{file}` named in: {said}");
    }
    // The release folder is left alone: what was rejected is never mistaken for a release.
    assert!(!dir.path().join("out").exists(), "{said}");
    assert!(said.contains("out.rejected"), "{said}");
    // Nor can it be published by mistake.
    let repository = dir.path().join("repository");
    let published = run(
        dir.path(),
        &[
            "publish",
            "local",
            "out.rejected",
            "--version",
            "v0.1.0",
            "--repository",
            repository.to_str().unwrap(),
        ],
    );
    assert_eq!(published.status.code(), Some(1), "{}", text(&published));
    assert!(
        text(&published).contains("a release `capkg assemble` refused"),
        "{}",
        text(&published)
    );
    assert!(!repository.exists());
    // Once the sources are fixed, the release is written and the rejected one is gone.
    write(
        dir.path(),
        "components.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: gcr.io/capx/manager:v0.1.0\n",
    );
    let output = run(dir.path(), &["assemble", "--version", "v0.1.0"]);
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        dir.path()
            .join("out/infrastructure-components.yaml")
            .is_file()
    );
    assert!(!dir.path().join("out.rejected").exists());
}
