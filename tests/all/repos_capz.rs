//! cluster-api-provider-azure (CAPZ), trimmed in `testdata/repos/`, released with the capkg.yaml
//! its maintainers would write, and compared with what its own `make release` builds: the
//! Makefile sets the manager image and pull policy in `config/capz` with `sed`, then runs
//! `kustomize build config/default`, whose `replacements:` copy the image into the ASO init
//! container and the tag into a Secret's `AZURE_USER_AGENT_SUFFIX`. capkg pins in a copy of the
//! kustomization before the build, so the same values come out; the repository is never
//! modified.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;

use crate::init_repos::checkout;
use crate::release_common::{clean_capkg, json, stderr, stdout};

const NAME: &str = "cluster-api-provider-azure";
const VERSION: &str = "v1.26.0";
const RELEASED: &str = "registry.k8s.io/cluster-api-azure/cluster-api-azure-controller";
const DIGEST: &str = "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945";

fn release(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let output = clean_capkg()
        .args([
            "release",
            "--version",
            VERSION,
            "--target",
            "local",
            "--format",
            "json",
        ])
        .args(extra)
        .envs(env.iter().copied())
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        stdout(&output),
        stderr(&output)
    );
    output
}

/// Every regular file under `root` with its bytes (the repository as the maintainer has it).
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git" && e.file_name() != "out")
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let name = e.path().strip_prefix(root).unwrap().display().to_string();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

const LABEL: &str = "cluster.x-k8s.io/provider";

/// The objects of a YAML stream, each written one canonical way, sorted; with `labelled`, every
/// object carries the provider's label (config/aso's objects lack it upstream: clusterctl adds
/// it at install, and capkg at release).
fn objects(text: &str, labelled: bool) -> Vec<String> {
    use capkg::yaml::json_value::JsonValue;
    let file = capkg::yaml::parse_str(
        std::sync::Arc::new(capkg::yaml::Source::new("c", text.to_string())),
        capkg::yaml::Limits::default(),
    );
    let field = |entries: &mut Vec<(String, JsonValue)>, key: &str| -> usize {
        match entries.iter().position(|(k, _)| k == key) {
            Some(index) => index,
            None => {
                entries.push((key.to_string(), JsonValue::Object(Vec::new())));
                entries.len() - 1
            }
        }
    };
    let mut values: Vec<String> = file
        .roots()
        .map(|r| {
            let mut value = JsonValue::from_node(r).unwrap();
            if labelled && let JsonValue::Object(object) = &mut value {
                let metadata = field(object, "metadata");
                if let JsonValue::Object(metadata) = &mut object[metadata].1 {
                    let labels = field(metadata, "labels");
                    if let JsonValue::Object(labels) = &mut metadata[labels].1
                        && !labels.iter().any(|(k, _)| k == LABEL)
                    {
                        labels.push((
                            LABEL.to_string(),
                            JsonValue::String("infrastructure-azure".into()),
                        ));
                    }
                }
            }
            capkg::yaml::write_clusterctl::write_value(&value).unwrap()
        })
        .collect();
    values.sort();
    values
}

/// The same objects, field by field; only the objects that differ are shown when not.
fn assert_same_objects(ours: &str, upstream: &str) {
    let (ours, upstream) = (objects(ours, false), objects(upstream, true));
    let only_ours: Vec<&String> = ours.iter().filter(|o| !upstream.contains(o)).collect();
    let only_upstream: Vec<&String> = upstream.iter().filter(|o| !ours.contains(o)).collect();
    assert!(
        only_ours.is_empty() && only_upstream.is_empty() && ours.len() == upstream.len(),
        "capkg's only:\n{}\nupstream's only:\n{}",
        only_ours
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("---\n"),
        only_upstream
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("---\n")
    );
}

/// What upstream's `make release` builds with the manager image set to `image`: its two `sed`
/// lines (Makefile's set-manifest-image and set-manifest-pull-policy), then
/// `kustomize build config/default`, in a copy of the trimmed repository.
fn upstream_components(image: &str) -> String {
    let dir = checkout(NAME, None);
    let root = dir.path().join(NAME);
    let edit = |file: &str, prefix: &str, value: &str| {
        let path = root.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let edited: Vec<String> = text
            .lines()
            .map(|line| match line.find(prefix) {
                Some(at) => format!("{}{prefix}{value}", &line[..at]),
                None => line.to_string(),
            })
            .collect();
        assert_ne!(edited.join("\n"), text.trim_end(), "{file}: nothing to set");
        std::fs::write(&path, edited.join("\n") + "\n").unwrap();
    };
    edit("config/capz/manager_image_patch.yaml", "image: ", image);
    edit(
        "config/capz/manager_pull_policy.yaml",
        "imagePullPolicy: ",
        "IfNotPresent",
    );
    let output = std::process::Command::new("kubectl")
        .args(["kustomize", "config/default"])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let built = String::from_utf8(output.stdout).unwrap();
    // The one known difference: capkg's `pullPolicy` sets every container running the pinned
    // image, the ASO init container included; upstream's `sed` sets the manager's only.
    let init = format!("        image: {image}\n        name: migrate-aso-crd-stored-versions\n");
    assert_eq!(built.matches(&init).count(), 1, "{built}");
    built.replace(
        &init,
        &format!("        image: {image}\n        imagePullPolicy: IfNotPresent\n        name: migrate-aso-crd-stored-versions\n"),
    )
}

/// Releases the trimmed CAPZ with its capkg.yaml (`images:` entry edited by `pin`) and returns
/// the published components, after checking the repository was left as it was and the files
/// besides the components are upstream's, byte for byte.
fn release_capz(pin: Option<(&str, &str)>, env: &[(&str, &str)]) -> (String, Output) {
    crate::common::require_kubectl();
    let dir = checkout(
        NAME,
        Some("https://github.com/kubernetes-sigs/cluster-api-provider-azure.git"),
    );
    let root = dir.path().join(NAME);
    if let Some((from, to)) = pin {
        let path = root.join("capkg.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(from).count(), 1, "{from} in {text}");
        std::fs::write(&path, text.replace(from, to)).unwrap();
    }
    let before = snapshot(&root);
    let output = release(&root, &[], env);
    assert_eq!(json(&output)["status"], "published");
    assert_eq!(json(&output)["lint"]["errors"], 0);
    assert_eq!(snapshot(&root), before, "the repository was modified");

    let published = dir
        .path()
        .join("clusterctl-repository/infrastructure-azure")
        .join(VERSION);
    let mut names: Vec<String> = std::fs::read_dir(&published)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "capkg-provenance.intoto.json",
            "checksums.txt",
            "cluster-template-aks.yaml",
            "cluster-template.yaml",
            "infrastructure-components.yaml",
            "metadata.yaml"
        ]
    );
    // release-templates and release-metadata copy these unchanged.
    for (name, source) in [
        ("metadata.yaml", "metadata.yaml"),
        ("cluster-template.yaml", "templates/cluster-template.yaml"),
        (
            "cluster-template-aks.yaml",
            "templates/cluster-template-aks.yaml",
        ),
    ] {
        assert_eq!(
            std::fs::read(published.join(name)).unwrap(),
            std::fs::read(root.join(source)).unwrap(),
            "{name}"
        );
    }
    let components =
        std::fs::read_to_string(published.join("infrastructure-components.yaml")).unwrap();
    (components, output)
}

#[test]
fn capz_releases_what_its_makefile_builds_with_the_replacement_value() {
    let (components, output) = release_capz(None, &[]);
    let image = format!("{RELEASED}:{VERSION}");
    assert!(
        components.contains("AZURE_USER_AGENT_SUFFIX: cluster-api-provider-azure/v1.26.0\n"),
        "{components}"
    );
    // The ASO init container gets the manager's image through the replacement too.
    assert_eq!(components.matches(&format!("image: {image}\n")).count(), 2);
    assert!(!components.contains(":main"), "a development tag survived");
    // Nothing derived from the development image is left to warn about.
    let text = stdout(&output);
    assert!(!text.contains("dev-image-value"), "{text}");
    assert_same_objects(&components, &upstream_components(&image));
}

#[test]
fn capz_with_a_semver_tag_pins_before_the_build() {
    let (components, _) =
        release_capz(Some(("newTag: \"{version}\"", "newTag: \"{semver}\"")), &[]);
    assert!(
        components.contains("AZURE_USER_AGENT_SUFFIX: cluster-api-provider-azure/1.26.0\n"),
        "{components}"
    );
    let image = format!("{RELEASED}:1.26.0");
    assert_same_objects(&components, &upstream_components(&image));
}

#[test]
fn capz_pinned_by_digest_is_written_as_kustomize_writes_it() {
    let (components, _) = release_capz(
        Some((
            "newTag: \"{version}\"",
            &format!("newTag: \"{{version}}\"\n    digest: {DIGEST}"),
        )),
        &[],
    );
    let image = format!("{RELEASED}:{VERSION}@{DIGEST}");
    assert_eq!(components.matches(&format!("image: {image}\n")).count(), 2);
    assert_same_objects(&components, &upstream_components(&image));
}

#[test]
fn capz_pinned_by_a_digest_the_release_job_sets() {
    let (components, _) = release_capz(
        Some((
            "newTag: \"{version}\"",
            "newTag: \"{version}\"\n    digest_env: CAPZ_MANAGER_DIGEST",
        )),
        &[("CAPZ_MANAGER_DIGEST", DIGEST)],
    );
    let image = format!("{RELEASED}:{VERSION}@{DIGEST}");
    assert_eq!(components.matches(&format!("image: {image}\n")).count(), 2);
    assert_same_objects(&components, &upstream_components(&image));
}
