//! The provider's name from `cluster.x-k8s.io/provider` labels: lint, assemble, render and
//! publish follow one rule (`provider::name_from_labels`: the name the labels give most often,
//! a bare label counting as the name, other types' labels ignored), so on the same folder they
//! name the same provider.

use std::path::Path;
use std::process::{Command, Output};

const METADATA: &str = "apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n  - major: 0\n    minor: 1\n    contract: v1beta1\n";

const CONFIG: &str = "provider:\n  type: infrastructure\ncomponents:\n  file: rel/infrastructure-components.yaml\nmetadata: rel/metadata.yaml\nnamespace: capx-system\nversion: v0.1.0\n";

/// A project whose release folder `rel/` holds one ConfigMap per label, in order.
fn project(labels: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rel")).unwrap();
    let components: Vec<String> = labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n  namespace: capx-system\n  labels:\n    cluster.x-k8s.io/provider: {label}\n"
            )
        })
        .collect();
    std::fs::write(
        dir.path().join("rel/infrastructure-components.yaml"),
        components.join("---\n"),
    )
    .unwrap();
    std::fs::write(dir.path().join("rel/metadata.yaml"), METADATA).unwrap();
    std::fs::write(dir.path().join("capkg.yaml"), CONFIG).unwrap();
    dir
}

fn capkg(dir: &Path, args: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_capkg"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "capkg {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The one provider label a components text carries (assemble and render relabel every object).
fn only_label(text: &str) -> String {
    let mut labels: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("cluster.x-k8s.io/provider:"))
        .map(str::trim)
        .collect();
    labels.dedup();
    assert_eq!(labels.len(), 1, "{text}");
    labels[0].to_string()
}

/// What each command takes the provider's label to be: lint, assemble, render, publish.
fn labels_seen(dir: &Path) -> [String; 4] {
    let releases = capkg::files::load_releases(&[dir.join("rel")], None).unwrap();
    let options = capkg::rules::Options::default();
    let lint = capkg::rules::Context::new(&releases[0], &options)
        .provider
        .label()
        .unwrap_or_default();

    capkg(dir, &["assemble", "--config", "capkg.yaml", "--out", "out"]);
    let assembled =
        std::fs::read_to_string(dir.join("out/infrastructure-components.yaml")).unwrap();
    let assemble = only_label(&assembled);

    let rendered = capkg(
        dir,
        &[
            "render",
            "rel/infrastructure-components.yaml",
            "--target-namespace",
            "capx-system",
        ],
    );
    let render = only_label(&String::from_utf8_lossy(&rendered.stdout));

    capkg(
        dir,
        &[
            "publish",
            "local",
            "rel",
            "--version",
            "v0.1.0",
            "--repository",
            "repo",
        ],
    );
    let published: Vec<String> = std::fs::read_dir(dir.join("repo"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(published.len(), 1, "{published:?}");
    [lint, assemble, render, published[0].clone()]
}

#[test]
fn a_unique_label_names_the_provider_everywhere() {
    let dir = project(&["infrastructure-aws", "infrastructure-aws"]);
    assert_eq!(
        labels_seen(dir.path()),
        ["infrastructure-aws"; 4].map(String::from)
    );
}

#[test]
fn ambiguous_labels_name_the_most_common_provider_everywhere() {
    // Publish used to refuse this folder while lint and assemble took `foo`. (Were most labels
    // another type's, assemble would refuse the sources: `release_refuses_a_bootstrap_…`.)
    let dir = project(&[
        "infrastructure-foo",
        "infrastructure-bar",
        "infrastructure-foo",
        "bootstrap-x",
    ]);
    assert_eq!(
        labels_seen(dir.path()),
        ["infrastructure-foo"; 4].map(String::from)
    );
}

#[test]
fn a_bare_label_is_the_name_everywhere() {
    // kubevirt's manifests say `kubevirt` where clusterctl writes `infrastructure-kubevirt`;
    // publish used to refuse the label, render took the first one it met (`other`).
    let dir = project(&["infrastructure-other", "kubevirt", "kubevirt"]);
    assert_eq!(
        labels_seen(dir.path()),
        ["infrastructure-kubevirt"; 4].map(String::from)
    );
}

/// capkg.yaml of a provider `foo` of `provider_type` whose components are `rel/<file>`.
fn release_project(provider_type: &str, file: &str, label: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rel")).unwrap();
    let objects: Vec<String> = ["a", "b"]
        .iter()
        .map(|name| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: capx-system\n  labels:\n    cluster.x-k8s.io/provider: {label}\n"
            )
        })
        .collect();
    std::fs::write(dir.path().join("rel").join(file), objects.join("---\n")).unwrap();
    std::fs::write(dir.path().join("rel/metadata.yaml"), METADATA).unwrap();
    std::fs::write(
        dir.path().join("capkg.yaml"),
        format!(
            "provider:\n  name: foo\n  type: {provider_type}\ncomponents:\n  file: rel/{file}\nmetadata: rel/metadata.yaml\nnamespace: capx-system\nversion: v0.1.0\ntargets:\n  local:\n    repository: repo\n"
        ),
    )
    .unwrap();
    dir
}

fn release(dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_capkg"))
        .current_dir(dir)
        .args(["release", "--target", "local"])
        .env_remove("GITHUB_REF")
        .env_remove("GITHUB_REF_NAME")
        .env_remove("CI_COMMIT_TAG")
        .output()
        .unwrap()
}

#[test]
fn release_refuses_a_bootstrap_provider_released_as_infrastructure() {
    // assemble relabels every object, so the lint of the release never saw the bootstrap labels:
    // the release was published as `infrastructure-foo` with exit 0.
    let dir = release_project("infrastructure", "components.yaml", "bootstrap-foo");
    let output = release(dir.path());
    let said = said(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("components/provider-identity")
            && said.contains("`infrastructure-foo`")
            && said.contains("`cluster.x-k8s.io/provider: bootstrap-foo`"),
        "{said}"
    );
    assert!(!dir.path().join("repo").exists(), "nothing is published");
}

/// stdout and stderr of a run (the finding is on stdout, the refusal on stderr), with the
/// report's line wrapping undone.
fn said(output: &Output) -> String {
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    text.split_whitespace()
        .filter(|word| *word != "│")
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn release_refuses_labels_of_another_provider_name() {
    let dir = release_project("infrastructure", "components.yaml", "infrastructure-bar");
    let output = release(dir.path());
    let said = said(&output);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(said.contains("provider: infrastructure-bar`"), "{said}");
    assert!(!dir.path().join("repo").exists(), "nothing is published");
}

#[test]
fn an_identity_finding_is_waivable_with_a_reason() {
    // The refusal used to be an assembly error that `lint: allow:` could not reach.
    let dir = release_project("infrastructure", "components.yaml", "bootstrap-foo");
    let config = dir.path().join("capkg.yaml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("lint:\n  allow:\n    - rule: components/provider-identity\n      reason: the manifests are shared with our bootstrap provider\n");
    std::fs::write(&config, text).unwrap();
    let output = release(dir.path());
    let said = said(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("the manifests are shared with our bootstrap provider"),
        "{said}"
    );
    assert!(dir.path().join("repo/infrastructure-foo/v0.1.0").is_dir());
}

#[test]
fn an_add_on_labelled_with_its_short_name_is_released_with_a_note() {
    // rancher's fleet add-on labels its objects `fleet`; clusterctl's built-in name is
    // `rancher-fleet` and clusterctl relabels at install. capkg refused the release.
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/identity/rancher-fleet");
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let target = dir.path().join(entry.path().strip_prefix(&from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
    let output = release(dir.path());
    let said = said(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("`cluster.x-k8s.io/provider: fleet`")
            && said.contains("clusterctl labels every object `addon-rancher-fleet` at install"),
        "{said}"
    );
    let published = dir
        .path()
        .join("repository/addon-rancher-fleet/v0.1.0/addon-components.yaml");
    let text = std::fs::read_to_string(&published).unwrap();
    assert_eq!(only_label(&text), "addon-rancher-fleet");
}

#[test]
fn release_refuses_a_components_file_named_for_another_type() {
    let dir = release_project(
        "infrastructure",
        "bootstrap-components.yaml",
        "infrastructure-foo",
    );
    let output = release(dir.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bootstrap-components.yaml") && stderr.contains("`infrastructure`"),
        "{stderr}"
    );
    assert!(!dir.path().join("repo").exists(), "nothing is published");
}

#[test]
#[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
fn release_accepts_the_labels_of_the_provider_it_releases() {
    let dir = release_project("infrastructure", "components.yaml", "infrastructure-foo");
    let output = release(dir.path());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(dir.path().join("repo/infrastructure-foo/v0.1.0").is_dir());
}

#[test]
fn a_dotted_provider_name_is_released_with_clusterctls_refusal_as_a_warning() {
    // Valid in clusterctl's configuration file, refused by `clusterctl init --infrastructure`.
    let dir = release_project(
        "infrastructure",
        "components.yaml",
        "infrastructure-my.provider",
    );
    let config = dir.path().join("capkg.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("name: foo", "name: my.provider");
    std::fs::write(&config, text).unwrap();
    let output = release(dir.path());
    let said = said(&output);
    assert!(output.status.success(), "{said}");
    assert!(
        said.contains("components/provider-name-cli")
            && said.contains("`clusterctl init --infrastructure my.provider` refuses it"),
        "{said}"
    );
    assert!(
        dir.path()
            .join("repo/infrastructure-my.provider/v0.1.0")
            .is_dir()
    );
}
