//! The OCI target, `verify oci://` and the image check against a real registry: Debian's
//! `docker-registry` (CNCF Distribution) on a loopback port with a temporary configuration, with
//! and without htpasswd auth; every pushed artifact is read back with `skopeo`, an independent
//! client. Both must be installed (`scripts/test.sh` installs them): these tests fail without them.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use serde_json::Value;

use crate::common::copy_example_provider;
use crate::publish_fakes::{capkg, sha256};

/// A user and password the htpasswd registry accepts (`HTPASSWD` holds its bcrypt hash).
pub(crate) const USER: &str = "capkg";
pub(crate) const PASSWORD: &str = "capkg-registry-pass";
const HTPASSWD: &str = "capkg:$2b$04$U/wLODQfv5zRjcoYx8JhJ.yJ0sP57Z7wJp5wr8V/8QE6fkDJLdo7a\n";

/// A `docker-registry` on 127.0.0.1, stopped on drop.
pub(crate) struct LocalRegistry {
    child: Child,
    pub port: u16,
    _dir: tempfile::TempDir,
}

impl LocalRegistry {
    /// Starts a registry; with `htpasswd`, it asks for `USER`/`PASSWORD`.
    pub(crate) fn start(htpasswd: bool) -> Self {
        let binary = "docker-registry";
        assert!(
            Command::new(binary)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success()),
            "`docker-registry` is needed for this test; `scripts/test.sh`, README's test command, installs it (apt-get install -y docker-registry)"
        );
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let auth = if htpasswd {
            std::fs::write(dir.path().join("htpasswd"), HTPASSWD).unwrap();
            format!(
                "auth:\n  htpasswd:\n    realm: capkg-test\n    path: {}\n",
                dir.path().join("htpasswd").display()
            )
        } else {
            String::new()
        };
        let config = format!(
            "version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {}\n  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n{auth}",
            dir.path().join("data").display()
        );
        let config_path = dir.path().join("config.yml");
        std::fs::write(&config_path, config).unwrap();
        let log = std::fs::File::create(dir.path().join("registry.log")).unwrap();
        let child = Command::new(binary)
            .arg("serve")
            .arg(&config_path)
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("start docker-registry");
        let registry = Self {
            child,
            port,
            _dir: dir,
        };
        registry.wait_until_up();
        registry
    }

    fn wait_until_up(&self) {
        // Readiness, not timing: the test proceeds as soon as the port accepts connections.
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("docker-registry did not listen on 127.0.0.1:{}", self.port);
    }

    pub(crate) fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `http://127.0.0.1:PORT/PATH`.
    pub(crate) fn reference(&self, path: &str) -> String {
        format!("http://{}/{path}", self.host())
    }
}

impl Drop for LocalRegistry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `capkg` without OCI logins from the machine: an empty Docker config folder.
pub(crate) fn oci_capkg(docker_config: &Path) -> Command {
    let mut command = capkg();
    for name in [
        "OCI_USERNAME",
        "OCI_PASSWORD",
        "OCI_ACCESS_TOKEN",
        "SOURCE_DATE_EPOCH",
        "GITHUB_ACTIONS",
    ] {
        command.env_remove(name);
    }
    command.env("DOCKER_CONFIG", docker_config);
    command
}

pub(crate) fn text(output: &Output) -> String {
    format!(
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The example provider assembled into `work/out`.
pub(crate) fn assembled_example(work: &Path) -> PathBuf {
    let source = work.join("provider");
    std::fs::create_dir_all(&source).unwrap();
    copy_example_provider(&source);
    let out = capkg()
        .args(["assemble", "--config"])
        .arg(source.join("capkg.yaml"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    source.join("out")
}

fn skopeo(args: &[&str]) -> Output {
    let out = Command::new("skopeo").args(args).output().unwrap_or_else(|e| {
        panic!("`skopeo` is needed for this test; `scripts/test.sh`, README's test command, installs it (apt-get install -y skopeo): {e}")
    });
    assert!(out.status.success(), "skopeo {args:?}: {}", text(&out));
    out
}

/// What skopeo reads at `reference` (`host/path:tag`): the manifest, and every layer's content
/// by title, copied to an `oci:` layout.
pub(crate) fn skopeo_read(
    reference: &str,
    creds: Option<&str>,
) -> (Value, BTreeMap<String, Vec<u8>>) {
    let source = format!("docker://{reference}");
    let mut inspect = vec!["inspect", "--raw", "--tls-verify=false"];
    if let Some(creds) = creds {
        inspect.extend(["--creds", creds]);
    }
    inspect.push(&source);
    let manifest: Value = serde_json::from_slice(&skopeo(&inspect).stdout).unwrap();
    let layout = tempfile::tempdir().unwrap();
    let destination = format!("oci:{}:copy", layout.path().display());
    let mut copy = vec!["copy", "--src-tls-verify=false"];
    if let Some(creds) = creds {
        copy.extend(["--src-creds", creds]);
    }
    copy.extend([source.as_str(), destination.as_str()]);
    skopeo(&copy);
    let mut layers = BTreeMap::new();
    for layer in manifest["layers"].as_array().unwrap() {
        let title = layer["annotations"]["org.opencontainers.image.title"]
            .as_str()
            .unwrap()
            .to_string();
        let digest = layer["digest"].as_str().unwrap();
        let hex = digest.strip_prefix("sha256:").unwrap();
        let content = std::fs::read(layout.path().join("blobs/sha256").join(hex)).unwrap();
        assert_eq!(sha256(&content), hex, "skopeo's copy of `{title}`");
        layers.insert(title, content);
    }
    (manifest, layers)
}

fn publish(dir: &Path, docker_config: &Path, reference: &str) -> Command {
    let mut command = oci_capkg(docker_config);
    command
        .args(["--format", "json", "publish", "oci"])
        .arg(dir)
        .args(["--version", "v0.1.0", "--repository", reference]);
    command
}

fn outcomes(output: &Output) -> Vec<String> {
    let json: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(output)));
    json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["outcome"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn publish_oci_of_the_example_is_read_by_skopeo_and_a_second_run_pushes_nothing() {
    let registry = LocalRegistry::start(false);
    let work = tempfile::tempdir().unwrap();
    let out = assembled_example(work.path());
    let docker = tempfile::tempdir().unwrap();
    let reference = registry.reference("capi/example");

    let first = publish(&out, docker.path(), &reference).output().unwrap();
    assert!(first.status.success(), "{}", text(&first));
    assert!(outcomes(&first).iter().all(|o| o == "uploaded"));

    let tagged = format!("{}/capi/example:v0.1.0", registry.host());
    let (manifest, layers) = skopeo_read(&tagged, None);
    assert_eq!(
        manifest["mediaType"],
        "application/vnd.oci.image.manifest.v1+json"
    );
    assert_eq!(
        manifest["artifactType"],
        "application/vnd.capkg.cluster-api.provider-release.v1"
    );
    assert!(manifest["annotations"]["org.opencontainers.image.created"].is_null());
    let titles: Vec<&str> = layers.keys().map(String::as_str).collect();
    assert_eq!(
        titles,
        [
            "checksums.txt",
            "cluster-template-topology.yaml",
            "cluster-template.yaml",
            "clusterclass-example.yaml",
            "infrastructure-components.yaml",
            "infrastructure-example-v0.1.0-components.yaml",
            "infrastructure-example-v0.1.0-metadata.yaml",
            "metadata.yaml",
        ]
    );
    for (title, content) in &layers {
        let file = match title.as_str() {
            "infrastructure-example-v0.1.0-components.yaml" => "infrastructure-components.yaml",
            "infrastructure-example-v0.1.0-metadata.yaml" => "metadata.yaml",
            other => other,
        };
        assert_eq!(
            content,
            &std::fs::read(out.join(file)).unwrap(),
            "layer `{title}`"
        );
    }
    let digest_before = sha256(
        &skopeo(&[
            "inspect",
            "--raw",
            "--tls-verify=false",
            &format!("docker://{tagged}"),
        ])
        .stdout,
    );

    let second = publish(&out, docker.path(), &reference).output().unwrap();
    assert!(second.status.success(), "{}", text(&second));
    assert!(
        outcomes(&second).iter().all(|o| o == "skipped"),
        "{}",
        text(&second)
    );
    let digest_after = sha256(
        &skopeo(&[
            "inspect",
            "--raw",
            "--tls-verify=false",
            &format!("docker://{tagged}"),
        ])
        .stdout,
    );
    assert_eq!(digest_before, digest_after);
}

#[test]
fn publish_oci_to_a_registry_with_htpasswd_needs_the_login() {
    let registry = LocalRegistry::start(true);
    let work = tempfile::tempdir().unwrap();
    let out = assembled_example(work.path());
    let docker = tempfile::tempdir().unwrap();
    let reference = registry.reference("capi/example");

    let anonymous = publish(&out, docker.path(), &reference).output().unwrap();
    assert_eq!(anonymous.status.code(), Some(1), "{}", text(&anonymous));
    let message = String::from_utf8_lossy(&anonymous.stderr);
    assert!(message.contains(&registry.host()), "{message}");
    assert!(message.contains("without a login"), "{message}");
    assert!(message.contains("OCI_USERNAME"), "{message}");

    let wrong = publish(&out, docker.path(), &reference)
        .env("OCI_USERNAME", USER)
        .env("OCI_PASSWORD", "not-the-password-1")
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(1), "{}", text(&wrong));
    assert!(!text(&wrong).contains("not-the-password-1"));

    let with_env = publish(&out, docker.path(), &reference)
        .env("OCI_USERNAME", USER)
        .env("OCI_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert!(with_env.status.success(), "{}", text(&with_env));
    assert!(!text(&with_env).contains(PASSWORD));

    // The Docker config file's entry for the registry, as `docker login` writes it.
    let auth = base64(format!("{USER}:{PASSWORD}").as_bytes());
    std::fs::write(
        docker.path().join("config.json"),
        format!(
            r#"{{"auths":{{"{}":{{"auth":"{auth}"}}}}}}"#,
            registry.host()
        ),
    )
    .unwrap();
    let with_file = publish(&out, docker.path(), &registry.reference("capi/other"))
        .output()
        .unwrap();
    assert!(with_file.status.success(), "{}", text(&with_file));
    skopeo_read(
        &format!("{}/capi/other:v0.1.0", registry.host()),
        Some(&format!("{USER}:{PASSWORD}")),
    );
}

pub(crate) fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A copy of `testdata/<example>` whose `targets:` is an `oci:` repository.
pub(crate) fn example_with_oci_target(example: &str, repository: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(example);
    for entry in walkdir::WalkDir::new(&from) {
        let entry = entry.unwrap();
        let relative = entry.path().strip_prefix(&from).unwrap();
        if relative.starts_with("out") || relative.starts_with("out-repository") {
            continue;
        }
        let target = dir.path().join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
    let config = dir.path().join("capkg.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    // The example turns the image check off (its image exists nowhere); these tests decide it.
    let text = text.replace("check_images: false\n", "");
    let (head, _) = text.split_once("targets:").unwrap();
    std::fs::write(
        &config,
        format!("{head}targets:\n  oci:\n    repository: {repository}\n"),
    )
    .unwrap();
    dir
}

/// `capkg release` of the provider in `root`, without CI variables or OCI logins.
pub(crate) fn release_oci(root: &Path, docker_config: &Path) -> Command {
    let mut command = crate::release_common::clean_capkg();
    for name in [
        "OCI_USERNAME",
        "OCI_PASSWORD",
        "OCI_ACCESS_TOKEN",
        "SOURCE_DATE_EPOCH",
    ] {
        command.env_remove(name);
    }
    command
        .env("DOCKER_CONFIG", docker_config)
        .args([
            "--format",
            "json",
            "release",
            "--version",
            "v0.1.0",
            "--config",
        ])
        .arg(root.join("capkg.yaml"))
        .current_dir(root);
    command
}

#[test]
fn release_of_both_examples_to_oci_is_read_by_skopeo_and_verify_and_a_rerun_pushes_nothing() {
    let registry = LocalRegistry::start(false);
    let docker = tempfile::tempdir().unwrap();
    let cases: [(&str, &str, &[&str]); 2] = [
        (
            "example-provider",
            "capi/example",
            &["infrastructure-example"],
        ),
        (
            "example-multi-provider",
            "capi/multi",
            &["bootstrap-example", "control-plane-example"],
        ),
    ];
    for (example, path, labels) in cases {
        let provider = example_with_oci_target(example, &registry.reference(path));
        let first = release_oci(provider.path(), docker.path())
            .output()
            .unwrap();
        assert_eq!(first.status.code(), Some(0), "{example}: {}", text(&first));
        let report: Value = serde_json::from_slice(&first.stdout).unwrap();
        assert_eq!(report["status"], "published", "{example}");
        let target = &report["targets"][0];
        assert_eq!(target["target"], "oci");
        let verified: Vec<bool> = target["providers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["verify"]["ok"].as_bool().unwrap())
            .collect();
        assert_eq!(verified, vec![true; labels.len()], "{example}");

        let tagged = format!("{}/{path}:v0.1.0", registry.host());
        let (manifest, layers) = skopeo_read(&tagged, None);
        assert_eq!(manifest["layers"].as_array().unwrap().len(), layers.len());
        for label in labels {
            for kind in ["metadata", "components"] {
                let title = format!("{label}-v0.1.0-{kind}.yaml");
                assert!(layers.contains_key(&title), "{example}: no `{title}`");
            }
        }
        // Several providers: no plain `metadata.yaml`, which would not say whose it is.
        assert_eq!(layers.contains_key("metadata.yaml"), labels.len() == 1);
        assert!(layers.contains_key("checksums.txt"));

        let verify = oci_capkg(docker.path())
            .args(["verify", &format!("oci://http://{tagged}")])
            .output()
            .unwrap();
        assert_eq!(verify.status.code(), Some(0), "{}", text(&verify));

        let second = release_oci(provider.path(), docker.path())
            .output()
            .unwrap();
        assert_eq!(second.status.code(), Some(0), "{}", text(&second));
        let report: Value = serde_json::from_slice(&second.stdout).unwrap();
        let target = &report["targets"][0];
        assert_eq!(target["state"], "unchanged", "{example}");
        assert!(
            target["result"]["files"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["outcome"] == "skipped"),
            "{example}: {target}"
        );
        let stderr = String::from_utf8_lossy(&second.stderr);
        assert!(!stderr.contains("uploaded"), "{stderr}");
    }
}

#[test]
fn verify_oci_reads_as_the_operator_and_says_what_it_lacks() {
    let registry = LocalRegistry::start(false);
    let work = tempfile::tempdir().unwrap();
    let out = assembled_example(work.path());
    let docker = tempfile::tempdir().unwrap();
    let published = publish(&out, docker.path(), &registry.reference("capi/example"))
        .output()
        .unwrap();
    assert!(published.status.success(), "{}", text(&published));
    let source = format!("oci://http://{}/capi/example:v0.1.0", registry.host());

    // `spec.version` names the layers: another version finds only the plain names.
    let other = oci_capkg(docker.path())
        .args(["--format", "json", "verify", &source, "--version", "v0.2.0"])
        .args(["--type", "infrastructure", "--provider", "example"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&other.stdout).unwrap();
    let layers_check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "operator-layers")
        .unwrap();
    assert_eq!(
        layers_check["message"],
        "infrastructure-example: the operator reads `metadata.yaml` and `infrastructure-components.yaml`"
    );

    // A runtime extension's layers are looked for under the operator's type string.
    let missing = oci_capkg(docker.path())
        .args(["--format", "json", "verify", &source])
        .args(["--type", "runtime-extension", "--provider", "example"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1), "{}", text(&missing));
    let report: Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert!(
        report["checks"].as_array().unwrap().iter().any(|c| c["message"]
            == "runtime-extension-example: collected artifact needs to provide components as runtimeextension-example-v0.1.0-components.yaml or runtimeextension-components.yaml or components.yaml file"),
        "{report}"
    );

    let absent = oci_capkg(docker.path())
        .args([
            "verify",
            &format!("oci://http://{}/capi/example:v9", registry.host()),
        ])
        .output()
        .unwrap();
    assert_eq!(absent.status.code(), Some(1), "{}", text(&absent));
    assert!(String::from_utf8_lossy(&absent.stderr).contains("no artifact is tagged `v9`"));
}

/// The example provider with its manager image pinned to `image` (`images:` in capkg.yaml),
/// released to a local repository; `extra` is appended to capkg.yaml.
pub(crate) fn example_naming_image(image: &str, extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_example_provider(dir.path());
    let (name, tag) = image.rsplit_once(':').unwrap();
    let config = dir.path().join("capkg.yaml");
    let mut text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("check_images: false\n", "");
    text.push_str(&format!(
        "images:\n  - name: registry.example.com/capi-example/manager\n    newName: {name}\n    newTag: \"{tag}\"\n# The test registry is on loopback, which users' clusters cannot pull from.\nlint:\n  allow:\n    - rule: components/image-registry\n      reason: the image check is tested against a loopback registry\n{extra}"
    ));
    std::fs::write(&config, text).unwrap();
    dir
}

/// `capkg release` with the image check on (the shared helper turns it off).
pub(crate) fn release_checking_images(root: &Path, docker_config: &Path) -> Command {
    let mut command = release_oci(root, docker_config);
    command.env_remove("CAPKG_CHECK_IMAGES");
    command
}

fn images_check(output: &Output) -> Value {
    let report: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(output)));
    report["checks"]["images"].clone()
}

/// Pushes something under `path:tag` of the registry, as an image would be.
pub(crate) fn push_image(registry: &LocalRegistry, path: &str, creds: Option<(&str, &str)>) {
    let work = tempfile::tempdir().unwrap();
    let out = assembled_example(work.path());
    let docker = tempfile::tempdir().unwrap();
    let (repository, tag) = path.rsplit_once(':').unwrap();
    let mut command = oci_capkg(docker.path());
    command.args(["publish", "oci"]).arg(&out).args([
        "--version",
        tag,
        "--repository",
        &registry.reference(repository),
    ]);
    if let Some((user, password)) = creds {
        command
            .env("OCI_USERNAME", user)
            .env("OCI_PASSWORD", password);
    }
    let pushed = command.output().unwrap();
    assert!(pushed.status.success(), "{}", text(&pushed));
}

#[test]
fn every_image_must_exist_before_a_release_is_made_public() {
    let registry = LocalRegistry::start(false);
    push_image(&registry, "capx/manager:v0.1.0", None);
    let docker = tempfile::tempdir().unwrap();

    // An image pushed there passes.
    let present = format!("{}/capx/manager:v0.1.0", registry.host());
    let provider = example_naming_image(&present, "");
    let released = release_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(released.status.code(), Some(0), "{}", text(&released));
    let check = images_check(&released);
    assert_eq!(check["found"], serde_json::json!([present]));
    assert!(check["skipped"].is_null());

    // A tag that is not there fails, naming the Deployment and the image; nothing is published.
    let absent = format!("{}/capx/manager:v9.9.9", registry.host());
    let provider = example_naming_image(&absent, "");
    let refused = release_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let report: Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(report["status"], "refused");
    let message = report["error"]["message"].as_str().unwrap();
    assert!(message.contains(&absent), "{message}");
    assert!(
        message.contains("Deployment `capx-controller-manager`, container `manager`"),
        "{message}"
    );
    assert!(!provider.path().join("out-repository").exists());

    // `--dry-run` and `check_images: false` say the check was skipped.
    let dry = release_checking_images(provider.path(), docker.path())
        .arg("--dry-run")
        .output()
        .unwrap();
    assert_eq!(dry.status.code(), Some(0), "{}", text(&dry));
    assert!(
        images_check(&dry)["skipped"]
            .as_str()
            .unwrap()
            .contains("--dry-run")
    );
    let off = example_naming_image(&absent, "check_images: false\n");
    let unchecked = release_checking_images(off.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(unchecked.status.code(), Some(0), "{}", text(&unchecked));
    assert!(
        images_check(&unchecked)["skipped"]
            .as_str()
            .unwrap()
            .contains("check_images: false")
    );

    // An unreachable registry is a warning saying what was not checked.
    let closed = format!("127.0.0.1:{}/capx/manager:v0.1.0", free_port());
    let provider = example_naming_image(&closed, "");
    let warned = release_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(warned.status.code(), Some(0), "{}", text(&warned));
    let check = images_check(&warned);
    assert_eq!(check["unchecked"][0]["image"], closed.as_str());
    let report: Value = serde_json::from_slice(&warned.stdout).unwrap();
    assert!(
        report["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .unwrap()
            .contains(&format!("image `{closed}` was not checked"))),
        "{report}"
    );
}

#[test]
fn images_on_a_registry_that_needs_a_login_are_checked_with_its_docker_config_entry() {
    let registry = LocalRegistry::start(true);
    push_image(&registry, "capx/manager:v0.1.0", Some((USER, PASSWORD)));
    let docker = tempfile::tempdir().unwrap();
    let image = format!("{}/capx/manager:v0.1.0", registry.host());
    let provider = example_naming_image(&image, "");

    // Without a login: not checked, and said so. The OCI variables are the OCI target's login,
    // not the login of every registry an image names.
    let anonymous = release_checking_images(provider.path(), docker.path())
        .env("OCI_USERNAME", USER)
        .env("OCI_PASSWORD", PASSWORD)
        .output()
        .unwrap();
    assert_eq!(anonymous.status.code(), Some(0), "{}", text(&anonymous));
    let check = images_check(&anonymous);
    let reason = check["unchecked"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("without a login"), "{reason}");

    // With the registry's entry in the Docker config file: found.
    let provider = example_naming_image(&image, "");
    std::fs::write(
        docker.path().join("config.json"),
        serde_json::json!({"auths": {registry.host(): {"auth": base64(format!("{USER}:{PASSWORD}").as_bytes())}}})
            .to_string(),
    )
    .unwrap();
    let with_login = release_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(with_login.status.code(), Some(0), "{}", text(&with_login));
    assert_eq!(
        images_check(&with_login)["found"],
        serde_json::json!([image])
    );
    assert!(!text(&with_login).contains(PASSWORD));
}

#[test]
fn verify_looks_every_image_up_too() {
    let registry = LocalRegistry::start(false);
    push_image(&registry, "capx/manager:v0.1.0", None);
    let docker = tempfile::tempdir().unwrap();
    for (tag, ok) in [("v0.1.0", true), ("v9.9.9", false)] {
        let image = format!("{}/capx/manager:{tag}", registry.host());
        let provider = example_naming_image(&image, "");
        let assembled = capkg()
            .args(["assemble", "--config"])
            .arg(provider.path().join("capkg.yaml"))
            .output()
            .unwrap();
        assert!(assembled.status.success(), "{}", text(&assembled));
        let path = format!("capi/images-{}", tag.replace('.', "-"));
        let published = publish(
            &provider.path().join("out"),
            docker.path(),
            &registry.reference(&path),
        )
        .output()
        .unwrap();
        assert!(published.status.success(), "{}", text(&published));
        let verified = oci_capkg(docker.path())
            .env_remove("CAPKG_CHECK_IMAGES")
            .args(["--format", "json", "verify"])
            .arg(format!("oci://http://{}/{path}:v0.1.0", registry.host()))
            .arg("--config")
            .arg(provider.path().join("capkg.yaml"))
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&verified.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", text(&verified)));
        let check = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "images")
            .unwrap_or_else(|| panic!("no images check: {report}"))
            .clone();
        assert_eq!(check["ok"], ok, "{check}");
        assert_eq!(verified.status.code(), Some(if ok { 0 } else { 1 }));
        if !ok {
            let message = check["message"].as_str().unwrap();
            assert!(message.contains(&image), "{message}");
            assert!(
                message.contains("Deployment `capx-controller-manager`"),
                "{message}"
            );
        }
    }
}

#[test]
fn a_dry_run_to_oci_lists_the_layers_without_the_network() {
    // Nothing listens there: a dry run must not ask.
    let reference = format!("http://127.0.0.1:{}/capi/multi", free_port());
    let provider = example_with_oci_target("example-multi-provider", &reference);
    let docker = tempfile::tempdir().unwrap();
    let output = release_checking_images(provider.path(), docker.path())
        .arg("--dry-run")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let plan = &report["targets"][0]["plan"];
    let names: Vec<&str> = plan["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "bootstrap-example-v0.1.0-components.yaml",
            "bootstrap-example-v0.1.0-metadata.yaml",
            "capkg-provenance.intoto.json",
            "checksums.txt",
            "control-plane-example-v0.1.0-components.yaml",
            "control-plane-example-v0.1.0-metadata.yaml",
        ]
    );
    let config = plan["clusterctl_config"].as_str().unwrap();
    assert!(config.contains("kind: ControlPlaneProvider"), "{config}");
    assert!(
        config.contains(&format!("oci: \"{reference}:v0.1.0\"")),
        "{config}"
    );
    assert!(
        report["checks"]["images"]["skipped"]
            .as_str()
            .unwrap()
            .contains("--dry-run")
    );
}

/// `capkg promote` of the provider in `root`, the image check on, without CI variables or OCI
/// logins.
fn promote_checking_images(root: &Path, docker_config: &Path) -> Command {
    let mut command = crate::release_common::clean_capkg();
    for name in [
        "OCI_USERNAME",
        "OCI_PASSWORD",
        "OCI_ACCESS_TOKEN",
        "SOURCE_DATE_EPOCH",
        "CAPKG_CHECK_IMAGES",
    ] {
        command.env_remove(name);
    }
    command
        .env("DOCKER_CONFIG", docker_config)
        .args([
            "--format",
            "json",
            "promote",
            "--version",
            "v0.1.0",
            "--config",
        ])
        .arg(root.join("capkg.yaml"))
        .current_dir(root);
    command
}

/// Whether the registry has a manifest under `reference` (`host/path:tag`), asked by skopeo.
fn skopeo_has(reference: &str) -> bool {
    Command::new("skopeo")
        .args(["inspect", "--raw", "--tls-verify=false"])
        .arg(format!("docker://{reference}"))
        .output()
        .unwrap()
        .status
        .success()
}

#[test]
fn an_oci_draft_is_promoted_only_once_its_image_exists_and_then_is_left_alone() {
    let registry = LocalRegistry::start(false);
    let docker = tempfile::tempdir().unwrap();
    // The image is promoted after the tag, as kubernetes-sigs providers' are.
    let image = format!("{}/capx/manager:v0.1.0", registry.host());
    let provider = example_naming_image(&image, "");
    let config = provider.path().join("capkg.yaml");
    let yaml = std::fs::read_to_string(&config).unwrap().replace(
        "targets:\n  local:\n    repository: out-repository\n",
        &format!(
            "targets:\n  oci:\n    repository: {}\n",
            registry.reference("capi/example")
        ),
    );
    std::fs::write(&config, yaml).unwrap();
    let release_tag = format!("{}/capi/example:v0.1.0", registry.host());
    let draft_tag = format!("{}/capi/example:draft-v0.1.0", registry.host());

    let drafted = release_checking_images(provider.path(), docker.path())
        .arg("--draft")
        .output()
        .unwrap();
    assert_eq!(drafted.status.code(), Some(0), "{}", text(&drafted));
    let report: Value = serde_json::from_slice(&drafted.stdout).unwrap();
    assert_eq!(report["status"], "drafted");
    assert!(
        report["checks"]["images"]["skipped"]
            .as_str()
            .unwrap()
            .contains("capkg promote"),
        "{report}"
    );
    let (_, layers) = skopeo_read(&draft_tag, None);
    assert!(layers.contains_key("checksums.txt"), "{:?}", layers.keys());
    assert!(
        !skopeo_has(&release_tag),
        "the operator's tag is not there yet"
    );

    // The image is still missing: refused, nothing tagged.
    let refused = promote_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let report: Value = serde_json::from_slice(&refused.stdout).unwrap();
    assert_eq!(report["status"], "refused");
    assert_eq!(report["mode"], "promote");
    let message = report["error"]["message"].as_str().unwrap();
    assert!(message.contains(&image), "{message}");
    assert!(!skopeo_has(&release_tag));

    push_image(&registry, "capx/manager:v0.1.0", None);
    let promoted = promote_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(promoted.status.code(), Some(0), "{}", text(&promoted));
    let report: Value = serde_json::from_slice(&promoted.stdout).unwrap();
    assert_eq!(report["status"], "promoted");
    assert_eq!(
        report["checks"]["images"]["found"],
        serde_json::json!([image])
    );
    assert_eq!(report["targets"][0]["verify"]["ok"], true, "{report}");
    let (_, released) = skopeo_read(&release_tag, None);
    assert_eq!(released, layers, "the operator reads the draft's layers");

    let again = promote_checking_images(provider.path(), docker.path())
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));
    let report: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(report["status"], "already-promoted");
}
