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
    // Publish used to refuse this folder while lint and assemble took `foo`.
    let dir = project(&[
        "infrastructure-foo",
        "infrastructure-bar",
        "infrastructure-foo",
        "bootstrap-x",
        "bootstrap-x",
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
