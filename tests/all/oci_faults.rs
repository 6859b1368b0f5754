//! The OCI target against an in-process fake registry, for what a real registry does not do on
//! demand: 5xx, 429, a blob upload cut in the middle, and a token realm on another origin (to
//! see which credential goes where). A run that meets faults ends complete, and a run that
//! cannot finish leaves no tag on a partial artifact.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::oci_e2e::{oci_capkg, text};
use crate::publish_fakes::server::{self, Decision, Handler, Incoming, Reply};
use crate::publish_fakes::{release_dir, sha256};

const TOKEN: &str = "registry-token-0123456789";

#[derive(Default)]
struct State {
    blobs: BTreeMap<String, Vec<u8>>,
    manifests: BTreeMap<String, Vec<u8>>,
    tags: BTreeMap<String, String>,
    /// `(method, path fragment, status)`: answered once each, in place of the real answer.
    faults: Vec<(&'static str, &'static str, u16)>,
    /// Answer every matching request with this status, forever.
    always: Option<(&'static str, &'static str, u16)>,
    cut_next_blob_put: bool,
    log: Vec<Incoming>,
    uploads: usize,
}

/// A registry on 127.0.0.1 speaking enough of the distribution API for capkg.
struct FakeRegistry {
    state: Mutex<State>,
    /// When set, requests need `Authorization: Bearer TOKEN` from this realm.
    realm: Option<String>,
}

impl FakeRegistry {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn digest(body: &[u8]) -> String {
    format!("sha256:{}", sha256(body))
}

impl Handler for FakeRegistry {
    fn before_body(&self, head: &Incoming) -> Decision {
        let mut state = self.lock();
        if head.method == "PUT" && head.path.contains("/blobs/uploads/") && state.cut_next_blob_put
        {
            state.cut_next_blob_put = false;
            return Decision::CutAfter(16);
        }
        Decision::Proceed
    }

    fn on_cut(&self, head: &Incoming, _partial: &[u8]) {
        self.lock().log.push(head.clone());
    }

    fn handle(&self, request: &Incoming) -> Reply {
        let mut state = self.lock();
        state.log.push(request.clone());
        if let Some(realm) = &self.realm
            && request.header("authorization") != Some(&format!("Bearer {TOKEN}"))
        {
            return Reply::json(401, serde_json::json!({"errors": [{"code": "UNAUTHORIZED"}]}))
                .header(
                    "www-authenticate",
                    &format!(r#"Bearer realm="{realm}",service="fake",scope="repository:capi/example:pull,push""#),
                );
        }
        if let Some((method, fragment, status)) = state.always
            && request.method == method
            && request.path.contains(fragment)
        {
            return Reply::empty(status);
        }
        if let Some(index) = state
            .faults
            .iter()
            .position(|(m, f, _)| request.method == *m && request.path.contains(f))
        {
            let (_, _, status) = state.faults.remove(index);
            let reply = Reply::json(status, serde_json::json!({"errors": [{"code": "FAULT"}]}));
            return if status == 429 {
                reply.header("retry-after", "0")
            } else {
                reply
            };
        }
        let path = request.path.clone();
        let Some(rest) = path.strip_prefix("/v2/capi/example/") else {
            return Reply::empty(if path == "/v2/" { 200 } else { 404 });
        };
        if let Some(reference) = rest.strip_prefix("manifests/") {
            let resolved = state
                .tags
                .get(reference)
                .cloned()
                .unwrap_or_else(|| reference.to_string());
            return match request.method.as_str() {
                "HEAD" | "GET" => match state.manifests.get(&resolved) {
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
                    None => Reply::empty(404),
                },
                "PUT" => {
                    let manifest_digest = digest(&request.body);
                    state
                        .manifests
                        .insert(manifest_digest.clone(), request.body.clone());
                    if !reference.starts_with("sha256:") {
                        state
                            .tags
                            .insert(reference.to_string(), manifest_digest.clone());
                    }
                    Reply::empty(201).header("docker-content-digest", &manifest_digest)
                }
                _ => Reply::empty(405),
            };
        }
        if rest == "blobs/uploads/" && request.method == "POST" {
            state.uploads += 1;
            let location = format!("/v2/capi/example/blobs/uploads/session-{}", state.uploads);
            return Reply::empty(202).header("location", &location);
        }
        if rest.starts_with("blobs/uploads/session-") && request.method == "PUT" {
            let wanted = request.query_param("digest").unwrap_or_default();
            if digest(&request.body) != wanted {
                return Reply::empty(400);
            }
            state.blobs.insert(wanted.clone(), request.body.clone());
            return Reply::empty(201).header("docker-content-digest", &wanted);
        }
        if let Some(blob) = rest.strip_prefix("blobs/") {
            return match state.blobs.get(blob) {
                Some(body) if request.method == "GET" => Reply::bytes(200, body.clone()),
                Some(_) => Reply::empty(200),
                None => Reply::empty(404),
            };
        }
        Reply::empty(404)
    }
}

/// A token realm that answers `TOKEN` to the login `capkg:realm-password-99`.
struct FakeRealm {
    log: Mutex<Vec<Incoming>>,
}

impl Handler for FakeRealm {
    fn handle(&self, request: &Incoming) -> Reply {
        self.log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(request.clone());
        let expected = format!(
            "Basic {}",
            crate::oci_e2e::base64(b"capkg:realm-password-99")
        );
        if request.header("authorization") == Some(expected.as_str()) {
            Reply::json(200, serde_json::json!({"token": TOKEN}))
        } else {
            Reply::json(401, serde_json::json!({"details": "bad login"}))
        }
    }
}

fn registry(realm: Option<String>) -> (Arc<FakeRegistry>, String) {
    let fake = Arc::new(FakeRegistry {
        state: Mutex::new(State::default()),
        realm,
    });
    let server = server::start("registry", fake.clone(), Duration::ZERO);
    (fake, server.base)
}

fn publish(base: &str, docker: &std::path::Path, dir: &std::path::Path) -> std::process::Command {
    let mut command = oci_capkg(docker);
    command
        .args(["publish", "oci"])
        .arg(dir)
        .args(["--version", "v1.2.3", "--retries", "4"])
        .args(["--repository", &format!("{base}/capi/example")]);
    command
}

/// Every layer and the config of the tagged manifest are stored.
fn tagged_artifact_is_complete(fake: &FakeRegistry) -> bool {
    let state = fake.lock();
    let Some(tagged) = state.tags.get("v1.2.3") else {
        return false;
    };
    let manifest: serde_json::Value = serde_json::from_slice(&state.manifests[tagged]).unwrap();
    let mut digests: Vec<&str> = manifest["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["digest"].as_str().unwrap())
        .collect();
    digests.push(manifest["config"]["digest"].as_str().unwrap());
    digests.iter().all(|d| state.blobs.contains_key(*d))
}

#[test]
fn five_hundreds_rate_limits_and_a_cut_upload_end_in_a_complete_artifact() {
    let (fake, base) = registry(None);
    {
        let mut state = fake.lock();
        state.faults = vec![
            ("HEAD", "/manifests/v1.2.3", 503),
            ("POST", "/blobs/uploads/", 429),
            ("POST", "/blobs/uploads/", 500),
            ("GET", "/blobs/", 502),
        ];
        state.cut_next_blob_put = true;
    }
    let (_dir, release) = release_dir();
    let docker = tempfile::tempdir().unwrap();
    let output = publish(&base, docker.path(), &release).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(tagged_artifact_is_complete(&fake));
    let state = fake.lock();
    assert!(
        state.faults.is_empty(),
        "every fault was met: {:?}",
        state.faults
    );
    // The tag is the last write: after every blob and the manifest by digest.
    let writes: Vec<String> = state
        .log
        .iter()
        .filter(|r| r.method == "PUT")
        .map(|r| r.path.clone())
        .collect();
    assert!(
        writes.last().unwrap().ends_with("/manifests/v1.2.3"),
        "{writes:?}"
    );
    assert_eq!(
        writes.iter().filter(|w| w.contains("/manifests/")).count(),
        2,
        "{writes:?}"
    );
}

#[test]
fn an_upload_that_keeps_failing_tags_nothing() {
    let (fake, base) = registry(None);
    fake.lock().always = Some(("PUT", "/blobs/uploads/", 500));
    let (_dir, release) = release_dir();
    let docker = tempfile::tempdir().unwrap();
    let output = publish(&base, docker.path(), &release).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    assert!(String::from_utf8_lossy(&output.stderr).contains("upload"));
    let state = fake.lock();
    assert!(state.tags.is_empty());
    assert!(state.manifests.is_empty());

    // A manifest the registry refuses (a 4xx) is a refusal: exit 1, still no tag.
    drop(state);
    let (fake, base) = registry(None);
    fake.lock().always = Some(("PUT", "/manifests/", 400));
    let output = publish(&base, docker.path(), &release).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", text(&output));
    assert!(fake.lock().tags.is_empty());
}

#[test]
fn the_login_goes_only_to_the_token_realm_and_the_token_only_to_the_registry() {
    let realm = Arc::new(FakeRealm {
        log: Mutex::new(Vec::new()),
    });
    let realm_server = server::start("auth", realm.clone(), Duration::ZERO);
    let (fake, base) = registry(Some(format!("{}/token", realm_server.base)));
    let (_dir, release) = release_dir();
    let docker = tempfile::tempdir().unwrap();

    let anonymous = publish(&base, docker.path(), &release).output().unwrap();
    assert_eq!(anonymous.status.code(), Some(1), "{}", text(&anonymous));
    assert!(String::from_utf8_lossy(&anonymous.stderr).contains("without a login"));

    let output = publish(&base, docker.path(), &release)
        .env("OCI_USERNAME", "capkg")
        .env("OCI_PASSWORD", "realm-password-99")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert!(tagged_artifact_is_complete(&fake));
    assert!(!text(&output).contains("realm-password-99"));
    assert!(!text(&output).contains(TOKEN));

    let realm_log = realm.log.lock().unwrap().clone();
    assert!(!realm_log.is_empty());
    for request in &realm_log {
        let auth = request.header("authorization").unwrap_or_default();
        assert!(!auth.contains(TOKEN), "the realm saw the registry token");
        let scopes = request.query_param("scope").unwrap_or_default();
        assert!(
            scopes.contains("repository:capi/example:pull,push"),
            "{scopes}"
        );
    }
    let state = fake.lock();
    let schemes: BTreeSet<&str> = state
        .log
        .iter()
        .filter_map(|r| r.header("authorization"))
        .map(|a| a.split(' ').next().unwrap_or_default())
        .collect();
    assert_eq!(
        schemes,
        BTreeSet::from(["Bearer"]),
        "the registry saw the login"
    );
}
