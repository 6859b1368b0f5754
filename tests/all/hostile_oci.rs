//! Registries and releases that try to get a credential, steer capkg, or stall it: which login
//! goes where (the OCI variables to the named registry only, a Docker config entry to its own
//! registry only, nothing across a redirect or an upload `Location`), `verify oci://` bounded per
//! artifact, image lookups under one deadline, a tag moved by another publisher, and references
//! and dates that must not be echoed or written as they are.

use std::collections::BTreeMap;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::oci_e2e::{base64, oci_capkg, text};
use crate::publish_fakes::server::{self, Handler, Incoming, Reply};
use crate::publish_fakes::{METADATA, release_dir, sha256};

const OCI_TOKEN: &str = "oci-access-token-0123456789";
const OCI_USER: &str = "oci-user";
const OCI_PASSWORD: &str = "oci-password-0123456789";
const DOCKER_USER: &str = "docker-user";
const DOCKER_PASSWORD: &str = "docker-password-0123456789";
const REALM_TOKEN: &str = "realm-token-0123456789";
const REPOSITORY: &str = "capi/example";

fn digest(body: &[u8]) -> String {
    format!("sha256:{}", sha256(body))
}

fn basic(user: &str, password: &str) -> String {
    format!("Basic {}", base64(format!("{user}:{password}").as_bytes()))
}

/// What a fake registry does beyond storing and serving.
#[derive(Default)]
struct Knobs {
    /// Every request needs this `Authorization`; else `401` with `challenge`.
    required_auth: Option<String>,
    challenge: Option<String>,
    /// `HEAD`/`GET` of manifests are redirected to this base URL (same path).
    redirect_manifests_to: Option<String>,
    /// The upload session's `Location`.
    upload_location: Option<String>,
    /// On the second look at this tag, another publisher points it at another manifest.
    moves_tag_on_second_look: Option<String>,
    /// Answers `GET /token` with `REALM_TOKEN` (anonymous or not).
    realm: bool,
}

#[derive(Default)]
struct Stored {
    blobs: BTreeMap<String, Vec<u8>>,
    manifests: BTreeMap<String, Vec<u8>>,
    tags: BTreeMap<String, String>,
    looks: BTreeMap<String, usize>,
    uploads: usize,
}

/// A registry on 127.0.0.1 speaking enough of the distribution API for capkg, logging every
/// request.
struct FakeRegistry {
    knobs: Knobs,
    stored: Mutex<Stored>,
    log: Mutex<Vec<Incoming>>,
    base: Mutex<String>,
}

impl FakeRegistry {
    fn start(knobs: Knobs) -> Arc<FakeRegistry> {
        let fake = Arc::new(FakeRegistry {
            knobs,
            stored: Mutex::new(Stored::default()),
            log: Mutex::new(Vec::new()),
            base: Mutex::new(String::new()),
        });
        let server = server::start("registry", fake.clone(), Duration::ZERO);
        *fake.base.lock().unwrap() = server.base;
        fake
    }

    fn base(&self) -> String {
        self.base.lock().unwrap().clone()
    }

    fn host(&self) -> String {
        self.base().trim_start_matches("http://").to_string()
    }

    fn log(&self) -> Vec<Incoming> {
        self.log.lock().unwrap().clone()
    }

    fn stored(&self) -> std::sync::MutexGuard<'_, Stored> {
        self.stored.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Stores an artifact of `layers` (title, digest, content) tagged `tag`.
    fn put_artifact(&self, tag: &str, layers: &[(String, String, Vec<u8>)]) {
        let layer_json: Vec<Value> = layers
            .iter()
            .map(|(title, digest, content)| {
                json!({
                    "mediaType": "application/yaml",
                    "digest": digest,
                    "size": content.len(),
                    "annotations": {"org.opencontainers.image.title": title},
                })
            })
            .collect();
        let manifest = json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": digest(b"{}"), "size": 2},
            "layers": layer_json,
        })
        .to_string()
        .into_bytes();
        let mut stored = self.stored();
        for (_, digest, content) in layers {
            stored.blobs.insert(digest.clone(), content.clone());
        }
        let manifest_digest = digest(&manifest);
        stored.manifests.insert(manifest_digest.clone(), manifest);
        stored.tags.insert(tag.to_string(), manifest_digest);
    }

    fn manifest_reply(&self, request: &Incoming, reference: &str) -> Reply {
        let mut stored = self.stored();
        let looks = {
            let count = stored.looks.entry(reference.to_string()).or_default();
            *count += 1;
            *count
        };
        if self.knobs.moves_tag_on_second_look.as_deref() == Some(reference) && looks == 2 {
            let other = b"{\"schemaVersion\":2,\"layers\":[]}".to_vec();
            let other_digest = digest(&other);
            stored.manifests.insert(other_digest.clone(), other);
            stored.tags.insert(reference.to_string(), other_digest);
        }
        let resolved = stored
            .tags
            .get(reference)
            .cloned()
            .unwrap_or_else(|| reference.to_string());
        match stored.manifests.get(&resolved) {
            Some(body) => {
                let body = if request.method == "GET" {
                    body.clone()
                } else {
                    Vec::new()
                };
                Reply::bytes(200, body)
                    .header("docker-content-digest", &resolved)
                    .header("content-type", "application/vnd.oci.image.manifest.v1+json")
            }
            None => Reply::json(404, json!({"errors": [{"code": "MANIFEST_UNKNOWN"}]})),
        }
    }
}

impl Handler for FakeRegistry {
    fn handle(&self, request: &Incoming) -> Reply {
        self.log.lock().unwrap().push(request.clone());
        if self.knobs.realm && request.path == "/token" {
            return Reply::json(200, json!({"token": REALM_TOKEN}));
        }
        if let Some(required) = &self.knobs.required_auth
            && request.header("authorization") != Some(required.as_str())
        {
            let mut reply = Reply::json(401, json!({"errors": [{"code": "UNAUTHORIZED"}]}));
            if let Some(challenge) = &self.knobs.challenge {
                reply = reply.header("www-authenticate", challenge);
            }
            return reply;
        }
        let prefix = "/v2/";
        let Some(rest) = request.path.strip_prefix(prefix) else {
            return Reply::empty(404);
        };
        if let Some((_, reference)) = rest.rsplit_once("/manifests/") {
            if let Some(to) = &self.knobs.redirect_manifests_to
                && matches!(request.method.as_str(), "HEAD" | "GET")
            {
                return Reply::empty(307).header("location", &format!("{to}{}", request.path));
            }
            return match request.method.as_str() {
                "HEAD" | "GET" => self.manifest_reply(request, reference),
                "PUT" => {
                    let manifest_digest = digest(&request.body);
                    let mut stored = self.stored();
                    stored
                        .manifests
                        .insert(manifest_digest.clone(), request.body.clone());
                    if !reference.starts_with("sha256:") {
                        stored
                            .tags
                            .insert(reference.to_string(), manifest_digest.clone());
                    }
                    Reply::empty(201).header("docker-content-digest", &manifest_digest)
                }
                _ => Reply::empty(405),
            };
        }
        if rest.ends_with("/blobs/uploads/") && request.method == "POST" {
            let mut stored = self.stored();
            stored.uploads += 1;
            let location = match &self.knobs.upload_location {
                Some(location) => location.clone(),
                None => format!("/v2/{REPOSITORY}/blobs/uploads/session-{}", stored.uploads),
            };
            return Reply::empty(202).header("location", &location);
        }
        if rest.contains("/blobs/uploads/session-") && request.method == "PUT" {
            let wanted = request.query_param("digest").unwrap_or_default();
            if digest(&request.body) != wanted {
                return Reply::empty(400);
            }
            self.stored()
                .blobs
                .insert(wanted.clone(), request.body.clone());
            return Reply::empty(201).header("docker-content-digest", &wanted);
        }
        if let Some((_, blob)) = rest.rsplit_once("/blobs/") {
            return match self.stored().blobs.get(blob) {
                Some(body) if request.method == "GET" => Reply::bytes(200, body.clone()),
                Some(_) => Reply::empty(200),
                None => Reply::json(404, json!({"errors": [{"code": "BLOB_UNKNOWN"}]})),
            };
        }
        Reply::empty(404)
    }
}

/// An image's manifest stored under `tag` of `fake` (any repository), as a pushed image would be.
fn store_image(fake: &FakeRegistry, tag: &str) {
    let manifest = json!({"schemaVersion": 2, "layers": []})
        .to_string()
        .into_bytes();
    let mut stored = fake.stored();
    let manifest_digest = digest(&manifest);
    stored.manifests.insert(manifest_digest.clone(), manifest);
    stored.tags.insert(tag.to_string(), manifest_digest);
}

/// A Docker config folder whose `auths` holds `DOCKER_USER` for `host`.
fn docker_config_for(host: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let auth = base64(format!("{DOCKER_USER}:{DOCKER_PASSWORD}").as_bytes());
    std::fs::write(
        dir.path().join("config.json"),
        json!({"auths": {host: {"auth": auth}}}).to_string(),
    )
    .unwrap();
    dir
}

/// The secrets of the OCI variables, in every form they could be sent in.
fn oci_secrets() -> Vec<String> {
    vec![
        OCI_TOKEN.to_string(),
        OCI_PASSWORD.to_string(),
        base64(format!("{OCI_USER}:{OCI_PASSWORD}").as_bytes()),
    ]
}

fn with_oci_variables(command: &mut Command) -> &mut Command {
    command
        .env("OCI_ACCESS_TOKEN", OCI_TOKEN)
        .env("OCI_USERNAME", OCI_USER)
        .env("OCI_PASSWORD", OCI_PASSWORD)
}

/// Requests of `log` whose headers or query hold any of `secrets`.
fn carrying<'a>(log: &'a [Incoming], secrets: &[String]) -> Vec<&'a Incoming> {
    log.iter()
        .filter(|r| {
            secrets.iter().any(|secret| {
                r.query.contains(secret.as_str())
                    || r.headers.iter().any(|(_, v)| v.contains(secret.as_str()))
            })
        })
        .collect()
}

/// Components of provider `infrastructure-example` whose Deployment runs `images`.
fn components_naming(images: &[String]) -> String {
    let mut text = String::from(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capx-system\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-example\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capx-controller-manager\n  namespace: capx-system\n  labels:\n    cluster.x-k8s.io/provider: infrastructure-example\nspec:\n  template:\n    spec:\n      containers:\n",
    );
    for (index, image) in images.iter().enumerate() {
        text.push_str(&format!("      - name: c{index}\n        image: {image}\n"));
    }
    text
}

/// An operator artifact of provider `infrastructure-example` `v1.2.3` on `fake`, whose
/// components name `images`.
fn store_provider_artifact(fake: &FakeRegistry, images: &[String]) {
    let components = components_naming(images).into_bytes();
    let metadata = METADATA.as_bytes().to_vec();
    fake.put_artifact(
        "v1.2.3",
        &[
            (
                "infrastructure-example-v1.2.3-components.yaml".into(),
                digest(&components),
                components,
            ),
            (
                "infrastructure-example-v1.2.3-metadata.yaml".into(),
                digest(&metadata),
                metadata,
            ),
        ],
    );
}

/// `capkg --format json verify oci://http://FAKE/capi/example:v1.2.3`, checking images.
fn verify_oci(fake: &FakeRegistry, docker_config: &Path) -> Command {
    let mut command = oci_capkg(docker_config);
    command
        .env_remove("CAPKG_CHECK_IMAGES")
        .args(["--format", "json", "verify"])
        .arg(format!("oci://http://{}/{REPOSITORY}:v1.2.3", fake.host()));
    command
}

fn report(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", text(output)))
}

fn images_check(report: &Value) -> Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "images")
        .cloned()
        .unwrap_or_else(|| panic!("no images check: {report}"))
}

#[test]
fn the_oci_variables_go_to_the_named_registry_and_never_to_an_images_registry() {
    // The images' registry asks for a login; the artifact's registry is open.
    let images = FakeRegistry::start(Knobs {
        required_auth: Some(basic(DOCKER_USER, DOCKER_PASSWORD)),
        challenge: Some(r#"Basic realm="images""#.into()),
        ..Knobs::default()
    });
    store_image(&images, "v1");
    let named = FakeRegistry::start(Knobs::default());
    let image = format!("{}/capx/manager:v1", images.host());
    store_provider_artifact(&named, std::slice::from_ref(&image));

    // With only the variables: the images' registry sees none of them, and the image is
    // reported unchecked for want of a login.
    let empty = tempfile::tempdir().unwrap();
    let output = with_oci_variables(&mut verify_oci(&named, empty.path()))
        .output()
        .unwrap();
    let seen = images.log();
    assert!(
        !seen.is_empty(),
        "the image was not looked up: {}",
        text(&output)
    );
    let leaked = carrying(&seen, &oci_secrets());
    assert!(
        leaked.is_empty(),
        "the images' registry received the OCI login: {leaked:?}"
    );
    // Nothing could be looked up: no `images` check passes, and a warning names the image.
    let unchecked = report(&output);
    let warnings = unchecked["warnings"].to_string();
    assert!(
        warnings.contains("was not checked") && warnings.contains("without a login"),
        "{unchecked}"
    );
    // The named registry may get them: the user named it.
    assert!(!carrying(&named.log(), &oci_secrets()).is_empty());

    // With a Docker config entry for the images' registry: that login, and the image is found.
    let docker = docker_config_for(&images.host());
    let output = with_oci_variables(&mut verify_oci(&named, docker.path()))
        .output()
        .unwrap();
    let check = images_check(&report(&output));
    assert!(
        check["message"].as_str().unwrap().contains("1 found"),
        "{check}: {}",
        text(&output)
    );
    assert!(carrying(&images.log(), &oci_secrets()).is_empty());
}

#[test]
fn release_sends_no_oci_variable_to_the_registry_of_an_image() {
    let images = FakeRegistry::start(Knobs {
        required_auth: Some(basic(DOCKER_USER, DOCKER_PASSWORD)),
        challenge: Some(r#"Basic realm="images""#.into()),
        ..Knobs::default()
    });
    store_image(&images, "v0.1.0");
    let image = format!("{}/capx/manager:v0.1.0", images.host());
    let provider = crate::oci_e2e::example_naming_image(&image, "");
    let docker = tempfile::tempdir().unwrap();
    let mut command = crate::oci_e2e::release_checking_images(provider.path(), docker.path());
    let output = with_oci_variables(&mut command).output().unwrap();
    assert!(!images.log().is_empty(), "{}", text(&output));
    let seen = images.log();
    let leaked = carrying(&seen, &oci_secrets());
    assert!(
        leaked.is_empty(),
        "the image's registry received the OCI login: {leaked:?}"
    );
    let check = &report(&output)["checks"]["images"];
    let reason = check["unchecked"][0]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("without a login"), "{check}");
}

#[test]
fn a_redirect_to_another_registry_never_gets_the_login_nor_does_its_realm() {
    // `storage` challenges with a realm of its own; `front` redirects lookups there and holds the
    // Docker config login.
    let storage = Arc::new(FakeRegistryWithChallenge {
        inner: FakeRegistry::start(Knobs {
            required_auth: Some(format!("Bearer {REALM_TOKEN}")),
            realm: true,
            ..Knobs::default()
        }),
        challenge: Mutex::new(String::new()),
    });
    let storage_base = storage.start();
    store_image(&storage.inner, "v1");
    let front = FakeRegistry::start(Knobs {
        redirect_manifests_to: Some(storage_base.clone()),
        ..Knobs::default()
    });
    let named = FakeRegistry::start(Knobs::default());
    let image = format!("{}/capx/manager:v1", front.host());
    store_provider_artifact(&named, std::slice::from_ref(&image));
    let docker = docker_config_for(&front.host());
    let output = verify_oci(&named, docker.path()).output().unwrap();

    let seen = storage.inner.log();
    assert!(
        !seen.is_empty(),
        "nothing reached storage: {}",
        text(&output)
    );
    let secrets = vec![
        DOCKER_PASSWORD.to_string(),
        base64(format!("{DOCKER_USER}:{DOCKER_PASSWORD}").as_bytes()),
    ];
    let leaked = carrying(&seen, &secrets);
    assert!(
        leaked.is_empty(),
        "the redirected-to registry or its realm received front's login: {leaked:?}"
    );
    // Storage's anonymous token answers its challenge: the image is found.
    let check = images_check(&report(&output));
    assert!(
        check["message"].as_str().unwrap().contains("1 found"),
        "{check}: {}",
        text(&output)
    );
}

/// A [`FakeRegistry`] whose `401` names a realm known only after it listens: requests go
/// through this wrapper, which adds the challenge.
struct FakeRegistryWithChallenge {
    inner: Arc<FakeRegistry>,
    challenge: Mutex<String>,
}

impl FakeRegistryWithChallenge {
    /// Starts a second listener in front of `inner`; its `401`s name its own `/token`.
    fn start(self: &Arc<Self>) -> String {
        let server = server::start("storage", self.clone(), Duration::ZERO);
        *self.challenge.lock().unwrap() =
            format!(r#"Bearer realm="{}/token",service="storage""#, server.base);
        server.base
    }
}

impl Handler for FakeRegistryWithChallenge {
    fn handle(&self, request: &Incoming) -> Reply {
        let mut reply = self.inner.handle(request);
        if reply.status == 401 {
            reply = reply.header("www-authenticate", &self.challenge.lock().unwrap());
        }
        reply
    }
}

#[test]
fn an_upload_location_on_another_origin_is_refused_and_gets_nothing() {
    let elsewhere = FakeRegistry::start(Knobs::default());
    let registry = FakeRegistry::start(Knobs {
        upload_location: Some(format!(
            "{}/v2/{REPOSITORY}/blobs/uploads/session-x",
            elsewhere.base()
        )),
        ..Knobs::default()
    });
    let (_dir, release) = release_dir();
    let docker = tempfile::tempdir().unwrap();
    let output = oci_capkg(docker.path())
        .args(["publish", "oci"])
        .arg(&release)
        .args(["--version", "v1.2.3", "--retries", "1"])
        .args(["--repository", &format!("{}/{REPOSITORY}", registry.base())])
        .env("OCI_USERNAME", OCI_USER)
        .env("OCI_PASSWORD", OCI_PASSWORD)
        .output()
        .unwrap();
    assert_ne!(output.status.code(), Some(0), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&elsewhere.host()), "{stderr}");
    assert!(
        elsewhere.log().is_empty(),
        "blobs went to another origin: {:?}",
        elsewhere.log()
    );
    assert!(registry.stored().tags.is_empty());
}

#[test]
fn a_tag_moved_by_another_publisher_before_tagging_is_refused_without_force() {
    let registry = FakeRegistry::start(Knobs {
        moves_tag_on_second_look: Some("v1.2.3".into()),
        ..Knobs::default()
    });
    let (_dir, release) = release_dir();
    let docker = tempfile::tempdir().unwrap();
    let output = oci_capkg(docker.path())
        .args(["publish", "oci"])
        .arg(&release)
        .args(["--version", "v1.2.3"])
        .args(["--repository", &format!("{}/{REPOSITORY}", registry.base())])
        .output()
        .unwrap();
    let tag_puts: Vec<_> = registry
        .log()
        .into_iter()
        .filter(|r| r.is("PUT", "/manifests/v1.2.3"))
        .collect();
    assert!(
        tag_puts.is_empty(),
        "the moved tag was re-pointed: {}",
        text(&output)
    );
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--force"), "{stderr}");
}

/// A fake holding an artifact of `count` layers, each naming the blob `content`.
fn artifact_of_layers(
    count: usize,
    content: &[u8],
    layer_digest: Option<&str>,
) -> Arc<FakeRegistry> {
    let registry = FakeRegistry::start(Knobs::default());
    let blob_digest = layer_digest.map_or_else(|| digest(content), str::to_string);
    let layers: Vec<(String, String, Vec<u8>)> = (0..count)
        .map(|i| {
            (
                format!("file-{i}.yaml"),
                blob_digest.clone(),
                content.to_vec(),
            )
        })
        .collect();
    registry.put_artifact("v1.2.3", &layers);
    registry
}

fn blob_reads(registry: &FakeRegistry) -> usize {
    registry
        .log()
        .iter()
        .filter(|r| r.is("GET", "/blobs/"))
        .count()
}

#[test]
fn verify_oci_bounds_the_whole_artifact_not_each_file() {
    // Twelve layers naming one 1 KiB blob: each read is under the bound, the artifact is not.
    let registry = artifact_of_layers(12, &[b'x'; 1024], None);
    let docker = tempfile::tempdir().unwrap();
    let output = verify_oci(&registry, docker.path())
        .args(["--max-download", "4KiB"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--max-download"), "{stderr}");
    assert!(
        blob_reads(&registry) <= 4,
        "{} blob reads",
        blob_reads(&registry)
    );
}

#[test]
fn verify_oci_refuses_more_layers_than_the_bound_before_reading_any() {
    let registry = artifact_of_layers(65, b"x", None);
    let docker = tempfile::tempdir().unwrap();
    let output = verify_oci(&registry, docker.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("65 layers"), "{stderr}");
    assert!(stderr.contains("--max-layers"), "{stderr}");
    assert_eq!(blob_reads(&registry), 0);

    // The bound is raised with the flag.
    let raised = verify_oci(&registry, docker.path())
        .args(["--max-layers", "100"])
        .output()
        .unwrap();
    assert!(
        !String::from_utf8_lossy(&raised.stderr).contains("--max-layers"),
        "{}",
        text(&raised)
    );
    assert!(blob_reads(&registry) > 0);
}

#[test]
fn verify_oci_refuses_a_layer_digest_that_is_not_a_digest() {
    for bad in [
        "sha256:../../../other/manifests/latest",
        "sha256:ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789",
        "sha256:abc",
        "md5:0123456789abcdef0123456789abcdef",
        "sha512:0123",
    ] {
        let registry = artifact_of_layers(1, b"x", Some(bad));
        let docker = tempfile::tempdir().unwrap();
        let output = verify_oci(&registry, docker.path()).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{bad}: {}", text(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("not a digest"), "{bad}: {stderr}");
        let strays: Vec<String> = registry
            .log()
            .iter()
            .filter(|r| !r.path.contains("/manifests/v1.2.3"))
            .map(|r| r.path.clone())
            .collect();
        assert!(strays.is_empty(), "{bad}: requested {strays:?}");
    }
}

/// A server on 127.0.0.1 that accepts connections and never answers.
fn stalled_server() -> (String, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let host = format!("127.0.0.1:{}", listener.local_addr().unwrap().port());
    let handle = std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            match stream {
                Ok(stream) => held.push(stream),
                Err(_) => return,
            }
        }
    });
    (host, handle)
}

/// Waits for `child`, killing it after `limit`: a hang fails the test instead of stalling it.
fn output_within(mut command: Command, limit: Duration) -> Output {
    command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!("still running after {limit:?}: {}", text(&out));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn stalled_image_registries_cost_one_deadline_and_are_named() {
    let stalled: Vec<String> = (0..3).map(|_| stalled_server().0).collect();
    let images: Vec<String> = stalled
        .iter()
        .map(|host| format!("{host}/capx/manager:v1"))
        .collect();
    let named = FakeRegistry::start(Knobs::default());
    store_provider_artifact(&named, &images);
    let docker = tempfile::tempdir().unwrap();
    let mut command = verify_oci(&named, docker.path());
    command.args(["--images-timeout", "2s"]);
    let output = output_within(command, Duration::from_secs(90));
    let report = report(&output);
    let warnings = report["warnings"].to_string();
    for image in &images {
        assert!(
            warnings.contains(&format!("image `{image}` was not checked")),
            "{image}: {warnings}"
        );
    }
    assert!(warnings.contains("--images-timeout"), "{warnings}");
}

#[test]
fn a_reference_with_a_password_is_refused_without_echoing_it() {
    let (_dir, release) = release_dir();
    let docker = tempfile::tempdir().unwrap();
    for reference in [
        "someone:hunter2-secret-pass@127.0.0.1:5000/capi/example",
        "http://someone:hunter2-secret-pass@127.0.0.1:5000/capi/example",
        "oci://someone:hunter2-secret-pass@ghcr.io/capi/example:v1",
    ] {
        let output = oci_capkg(docker.path())
            .args(["publish", "oci"])
            .arg(&release)
            .args(["--version", "v1.2.3", "--repository", reference])
            .output()
            .unwrap();
        assert_ne!(output.status.code(), Some(0), "{}", text(&output));
        assert!(
            !text(&output).contains("hunter2-secret-pass"),
            "{}",
            text(&output)
        );
    }
}

#[test]
fn an_extreme_source_date_epoch_is_refused() {
    // Refused before any request: the registry sees nothing.
    let registry = FakeRegistry::start(Knobs::default());
    let (_dir, release) = release_dir();
    let docker = tempfile::tempdir().unwrap();
    for epoch in ["253402300800", "-1", "-62167219200", "9223372036854775807"] {
        let output = oci_capkg(docker.path())
            .args(["publish", "oci", "--dry-run"])
            .arg(&release)
            .args(["--version", "v1.2.3", "--repository"])
            .arg(format!("{}/{REPOSITORY}", registry.base()))
            .env("SOURCE_DATE_EPOCH", epoch)
            .output()
            .unwrap();
        assert_ne!(output.status.code(), Some(0), "{epoch}: {}", text(&output));
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("SOURCE_DATE_EPOCH"),
            "{epoch}: {}",
            text(&output)
        );
    }
    assert!(registry.log().is_empty());
}
