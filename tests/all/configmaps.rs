//! `capkg configmaps`: the ConfigMaps cluster-api-operator reads providers from, for the example
//! provider, the multi-provider example and a release over 1 MiB. The bytes are compared with
//! what kubectl (Go's sigs.k8s.io/yaml, the serialiser `capioperator preload` uses) prints for
//! the same ConfigMap, the gzip is decoded with the system's `gzip`, and bad versions, names and
//! namespaces are refused before anything is written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use base64::Engine;
use capkg::operator::configmap::load;
use capkg::yaml::json_value::JsonValue;
use capkg::yaml::{Limits, Source, parse_str};

use crate::common::{copy_example_provider, require_kubectl};
use crate::publish_fakes::{COMPONENTS, METADATA, capkg, release_dir, write_release};

fn run(args: &[&str]) -> Output {
    capkg().args(args).output().unwrap()
}

fn stdout(output: &Output) -> String {
    assert!(
        output.status.success(),
        "exit {:?}\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn configmaps(dir: &Path, version: &str, extra: &[&str]) -> String {
    let mut command = capkg();
    command
        .arg("configmaps")
        .arg(dir)
        .args(["--version", version])
        .args(extra);
    stdout(&command.output().unwrap())
}

/// The ConfigMaps in capkg's output, each as the JSON value a YAML reader makes of it.
fn parse(yaml: &str) -> Vec<JsonValue> {
    assert!(yaml.starts_with("---\n"), "{yaml}");
    let file = parse_str(Arc::new(Source::new("out", yaml)), Limits::default());
    assert!(file.errors.is_empty(), "{:?}", file.errors);
    file.roots()
        .map(|root| JsonValue::from_node(root).unwrap())
        .collect()
}

fn text<'a>(value: &'a JsonValue, path: &[&str]) -> &'a str {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(JsonValue::as_str)
        .unwrap_or_else(|| panic!("no {path:?} in {value:?}"))
}

/// Assembles a testdata example into a temporary folder; returns the folder and the release.
fn assembled(example: &str) -> (tempfile::TempDir, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let source = root.path().join("source");
    if example == "example-provider" {
        copy_example_provider(&source);
    } else {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(example);
        for entry in walkdir::WalkDir::new(&from) {
            let entry = entry.unwrap();
            let target = source.join(entry.path().strip_prefix(&from).unwrap());
            if entry.file_type().is_dir() {
                std::fs::create_dir_all(&target).unwrap();
            } else {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
    let out = root.path().join("out");
    let output = capkg()
        .current_dir(&source)
        .args(["-q", "assemble", "--version", "v0.1.0", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    stdout(&output);
    (root, out)
}

/// What kubectl prints for the ConfigMap capkg should print: `create configmap` from the two
/// files (a file that is not UTF-8, the gzip, lands in `binaryData` as the operator puts it),
/// then the labels and the annotation with `--local`. No cluster is needed.
fn kubectl_configmap(
    name: &str,
    namespace: &str,
    metadata: &Path,
    components: &Path,
    labels: &[(&str, &str)],
    compressed: bool,
) -> String {
    require_kubectl();
    let work = tempfile::tempdir().unwrap();
    let step = |args: Vec<String>| -> String {
        let output = Command::new("kubectl").args(&args).output().unwrap();
        assert!(
            output.status.success(),
            "kubectl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let created = step(vec![
        "create".into(),
        "configmap".into(),
        name.into(),
        "-n".into(),
        namespace.into(),
        format!("--from-file=components={}", components.display()),
        format!("--from-file=metadata={}", metadata.display()),
        "--dry-run=client".into(),
        "-o".into(),
        "yaml".into(),
    ]);
    let file = work.path().join("cm.yaml");
    std::fs::write(&file, created).unwrap();
    let mut label = vec!["label".into(), "--local".into(), "-o".into(), "yaml".into()];
    label.push("-f".into());
    label.push(file.display().to_string());
    label.extend(labels.iter().map(|(k, v)| format!("{k}={v}")));
    let mut yaml = step(label);
    if compressed {
        std::fs::write(&file, &yaml).unwrap();
        yaml = step(vec![
            "annotate".into(),
            "--local".into(),
            "-o".into(),
            "yaml".into(),
            "-f".into(),
            file.display().to_string(),
            "provider.cluster.x-k8s.io/compressed=true".into(),
        ]);
    }
    // kubectl built with k8s.io/apimachinery before 0.34 writes the unset creation time as
    // `null`; the operator (0.34 and later, `omitzero`) leaves it out.
    yaml.replace("  creationTimestamp: null\n", "")
}

fn labels<'a>(name: &'a str, provider_type: &'a str, version: &'a str) -> [(&'a str, &'a str); 4] {
    [
        ("managed-by.operator.cluster.x-k8s.io", "true"),
        ("provider.cluster.x-k8s.io/name", name),
        ("provider.cluster.x-k8s.io/type", provider_type),
        ("provider.cluster.x-k8s.io/version", version),
    ]
}

#[test]
fn the_example_providers_configmap_is_byte_for_byte_what_go_prints() {
    let (_root, out) = assembled("example-provider");
    let yaml = configmaps(&out, "v0.1.0", &[]);
    let expected = kubectl_configmap(
        "infrastructure-example-v0.1.0",
        "capi-operator-system",
        &out.join("metadata.yaml"),
        &out.join("infrastructure-components.yaml"),
        &labels("example", "infrastructure", "v0.1.0"),
        false,
    );
    assert_eq!(yaml, format!("---\n{expected}"));
    let maps = parse(&yaml);
    assert_eq!(maps.len(), 1);
    let components = std::fs::read_to_string(out.join("infrastructure-components.yaml")).unwrap();
    assert_eq!(text(&maps[0], &["data", "components"]), components);
    let metadata = std::fs::read_to_string(out.join("metadata.yaml")).unwrap();
    assert_eq!(text(&maps[0], &["data", "metadata"]), metadata);
    assert_eq!(text(&maps[0], &["kind"]), "ConfigMap");
    assert!(maps[0].get("binaryData").is_none());
    assert!(
        maps[0]
            .get("metadata")
            .unwrap()
            .get("annotations")
            .is_none()
    );
}

#[test]
fn a_multi_provider_release_gives_one_configmap_per_provider_in_the_namespace_asked() {
    let (_root, out) = assembled("example-multi-provider");
    let yaml = configmaps(&out, "v0.1.0", &["--namespace", "capi-kubeadm-system"]);
    let maps = parse(&yaml);
    let names: Vec<&str> = maps
        .iter()
        .map(|m| text(m, &["metadata", "name"]))
        .collect();
    assert_eq!(
        names,
        ["bootstrap-example-v0.1.0", "control-plane-example-v0.1.0"]
    );
    for (map, (provider_type, file)) in maps.iter().zip([
        ("bootstrap", "bootstrap-components.yaml"),
        ("control-plane", "control-plane-components.yaml"),
    ]) {
        assert_eq!(text(map, &["metadata", "namespace"]), "capi-kubeadm-system");
        assert_eq!(
            text(
                map,
                &["metadata", "labels", "provider.cluster.x-k8s.io/type"]
            ),
            provider_type
        );
        assert_eq!(
            text(map, &["data", "components"]),
            std::fs::read_to_string(out.join(file)).unwrap()
        );
        let loaded = load(map, usize::MAX).unwrap();
        assert_eq!(loaded.components, std::fs::read(out.join(file)).unwrap());
        assert_eq!(
            loaded.metadata,
            std::fs::read_to_string(out.join("metadata.yaml")).unwrap()
        );
    }
    // Each is what Go prints for it.
    let second = kubectl_configmap(
        "control-plane-example-v0.1.0",
        "capi-kubeadm-system",
        &out.join("metadata.yaml"),
        &out.join("control-plane-components.yaml"),
        &labels("example", "control-plane", "v0.1.0"),
        false,
    );
    assert!(yaml.ends_with(&format!("---\n{second}")), "{yaml}");
}

/// The standard test release with components padded past 1 MiB (metadata plus components).
fn large_release(root: &Path) -> (PathBuf, Vec<u8>) {
    let mut components = COMPONENTS.to_string();
    components.push_str("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: padding\n  namespace: capz-system\ndata:\n  padding: |\n");
    let mut n = 0u32;
    while components.len() + METADATA.len() <= 1024 * 1024 {
        components.push_str(&format!(
            "    line {n} of the padding that pushes the file past 1 MiB\n"
        ));
        n += 1;
    }
    let out = root.join("out");
    write_release(
        &out,
        &[
            (
                "infrastructure-components.yaml",
                components.clone().into_bytes(),
            ),
            ("metadata.yaml", METADATA.as_bytes().to_vec()),
        ],
    );
    (out, components.into_bytes())
}

#[test]
fn over_one_mebibyte_the_components_are_gzipped_reproducibly_and_decode_to_the_file() {
    let root = tempfile::tempdir().unwrap();
    let (out, components) = large_release(root.path());
    let yaml = configmaps(&out, "v1.2.3", &[]);
    assert_eq!(
        yaml,
        configmaps(&out, "v1.2.3", &[]),
        "a second run prints the same bytes"
    );
    assert!(yaml.len() < components.len() / 4, "{} bytes", yaml.len());
    let maps = parse(&yaml);
    assert_eq!(
        text(
            &maps[0],
            &[
                "metadata",
                "annotations",
                "provider.cluster.x-k8s.io/compressed"
            ]
        ),
        "true"
    );
    assert!(maps[0].get("data").unwrap().get("components").is_none());
    let gzipped = base64::engine::general_purpose::STANDARD
        .decode(text(&maps[0], &["binaryData", "components"]))
        .unwrap();
    // Decoded by the system's gzip, not capkg's reader.
    let gz = root.path().join("components.gz");
    std::fs::write(&gz, &gzipped).unwrap();
    let decoded = Command::new("gzip").arg("-dc").arg(&gz).output().unwrap();
    assert!(decoded.status.success());
    assert!(
        decoded.stdout == components,
        "gunzip differs from the components file"
    );
    // And as the operator loads it for `fetchConfig.selector`.
    let loaded = load(&maps[0], usize::MAX).unwrap();
    assert!(loaded.components == components);
    assert_eq!(loaded.version, "v1.2.3");
    let expected = kubectl_configmap(
        "infrastructure-azure-v1.2.3",
        "capi-operator-system",
        &out.join("metadata.yaml"),
        &gz,
        &labels("azure", "infrastructure", "v1.2.3"),
        true,
    );
    assert_eq!(yaml, format!("---\n{expected}"));
}

#[test]
fn a_version_the_operator_refuses_is_refused_in_its_words() {
    let (_root, out) = release_dir();
    let dir = out.to_str().unwrap();
    let output = run(&["configmaps", dir, "--version", "v1.2"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("ConfigMap capi-operator-system/infrastructure-azure-v1.2 has invalid version:v1.2 (from the Label provider.cluster.x-k8s.io/version)"),
        "{stderr}"
    );
    assert!(stderr.contains("hint:"), "{stderr}");
    assert!(output.stdout.is_empty());
    // The operator reads the ConfigMap, then refuses a version metadata.yaml has no series for.
    let output = run(&["configmaps", dir, "--version", "v1.3.0"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(
            "invalid provider metadata: version v1.3.0 for the provider azure does not match any release series"
        ),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for bad in [
        vec!["--version", "v1.2.3+build.5"],
        vec!["--version", "v1.2.3-RC.1"],
        vec!["--version", "v1.2.3", "--namespace", "Capz_System"],
    ] {
        let output = run(&[&["configmaps", dir][..], &bad].concat());
        assert_eq!(output.status.code(), Some(1), "{bad:?}");
        assert!(output.stdout.is_empty(), "{bad:?}");
    }
}

#[test]
fn output_files_are_written_whole_or_left_alone() {
    let (root, out) = release_dir();
    let dir = out.to_str().unwrap();
    let file = root.path().join("configmaps.yaml");
    let path = file.to_str().unwrap();
    let printed = stdout(&run(&["configmaps", dir, "--version", "v1.2.3"]));
    let output = run(&["configmaps", dir, "--version", "v1.2.3", "-o", path]);
    assert!(stdout(&output).is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("wrote 1 ConfigMap to"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), printed);
    // A failing run leaves the earlier file as it was, and no temporary file beside it.
    let output = run(&["configmaps", dir, "--version", "1.2", "-o", path]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), printed);
    let names: Vec<String> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // JSON names the file and what went into it.
    let output = run(&[
        "--format",
        "json",
        "configmaps",
        dir,
        "--version",
        "v1.2.3",
        "-o",
        path,
    ]);
    let document: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(document["file"], path);
    assert_eq!(
        document["config_maps"][0]["name"],
        "infrastructure-azure-v1.2.3"
    );
    assert_eq!(document["config_maps"][0]["compressed"], false);
}

#[cfg(unix)] // file modes and the umask: Unix only
#[test]
fn output_files_get_the_mode_the_umask_gives_like_every_other_file() {
    use std::os::unix::fs::PermissionsExt;
    let (root, out) = release_dir();
    for (umask, mode) in [("022", 0o644), ("027", 0o640), ("077", 0o600)] {
        let file = root.path().join(format!("configmaps-{umask}.yaml"));
        // The umask of a shell that runs capkg, as a CI step's would be.
        let output = Command::new("sh")
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
            .arg(env!("CARGO_BIN_EXE_capkg"))
            .arg("configmaps")
            .arg(&out)
            .args(["--version", "v1.2.3", "-o"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        let actual = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(actual, mode, "umask {umask}: {actual:o}");
    }
}

#[test]
fn json_carries_the_yaml_and_flags_name_the_provider() {
    let (_root, out) = release_dir();
    let dir = out.to_str().unwrap();
    let output = run(&["--format", "json", "configmaps", dir, "--version", "v1.2.3"]);
    let document: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let yaml = document["output"].as_str().unwrap();
    assert_eq!(
        yaml,
        stdout(&run(&["configmaps", dir, "--version", "v1.2.3"]))
    );
    let renamed = configmaps(&out, "v1.2.3", &["--provider", "az"]);
    assert_eq!(
        text(&parse(&renamed)[0], &["metadata", "name"]),
        "infrastructure-az-v1.2.3"
    );
    // `--namespace ""` leaves the namespace to `kubectl create -n`.
    let unplaced = configmaps(&out, "v1.2.3", &["--namespace", ""]);
    assert!(
        parse(&unplaced)[0]
            .get("metadata")
            .unwrap()
            .get("namespace")
            .is_none()
    );
    assert_eq!(
        unplaced,
        configmaps(&out, "v1.2.3", &[]).replace("  namespace: capi-operator-system\n", "")
    );
    // A folder that is not a release: exit 1 from the release reader, nothing printed.
    let empty = tempfile::tempdir().unwrap();
    let output = run(&[
        "configmaps",
        empty.path().to_str().unwrap(),
        "--version",
        "v1.2.3",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
}
