//! A fake GitHub with the release endpoints capkg uses, behaving as the REST docs describe:
//! the by-tag endpoint hides drafts, uploads go to the upload URL taken from `upload_url` (on
//! the API's own origin under `/api/uploads`, as GitHub Enterprise Server has it; a test can
//! point it at the separate `uploads` server instead), a second asset with a taken name is a 422 `already_exists`, downloads redirect to
//! a storage host, and faults can be queued per endpoint.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::server::{self, Decision, Handler, Incoming, Reply};

pub(crate) const TOKEN: &str = "ghp_FAKE0123456789TOKEN";

#[derive(Debug, Clone)]
pub(crate) struct FakeAsset {
    pub id: u64,
    pub name: String,
    /// `uploaded`, or `starter` for an upload that did not finish.
    pub state: String,
    pub content: Vec<u8>,
}

#[derive(Debug, Clone)]
pub(crate) struct FakeRelease {
    pub id: u64,
    pub tag: String,
    pub draft: bool,
    pub prerelease: bool,
    pub immutable: bool,
    pub make_latest: Option<String>,
    pub assets: Vec<FakeAsset>,
}

/// What a fault does instead of (or besides) the normal answer.
pub(crate) enum FaultAction {
    /// Answer this instead.
    Reply(Reply),
    /// Do the work, then answer this (GitHub's uploads that "successfully fail").
    StoreThenReply(Reply),
    /// Leave a `starter` asset (for an upload), then answer this.
    StarterThenReply(Reply),
    /// Read this many body bytes and drop the connection (an upload leaves a `starter` asset).
    Cut(usize),
}

pub(crate) struct Fault {
    pub method: &'static str,
    pub path_contains: String,
    pub action: FaultAction,
    pub times: usize,
}

pub(crate) struct State {
    pub releases: Vec<FakeRelease>,
    next_id: u64,
    /// Whether assets carry `digest` (newer API versions).
    pub digests: bool,
    pub corrupt_downloads: bool,
    /// A hostile server that repeats the Authorization header in its 401 message.
    pub echo_token: bool,
    pub faults: Vec<Fault>,
    pub log: Vec<Incoming>,
    /// Asset names of every release after each request, in request order.
    pub snapshots: Vec<(String, BTreeSet<String>)>,
    api: String,
    /// The base of `upload_url`: `{api}/api/uploads` unless a test changes it.
    pub uploads: String,
    objects: String,
}

pub(crate) struct FakeGitHub {
    state: Arc<Mutex<State>>,
    pub api: String,
    /// A separate upload server on another port (another origin than the API).
    pub uploads: String,
    pub objects: String,
}

struct Endpoint {
    server: &'static str,
    state: Arc<Mutex<State>>,
}

impl FakeGitHub {
    pub(crate) fn start() -> Self {
        Self::with_latency(Duration::ZERO)
    }

    pub(crate) fn with_latency(latency: Duration) -> Self {
        let state = Arc::new(Mutex::new(State {
            releases: Vec::new(),
            next_id: 100,
            digests: true,
            corrupt_downloads: false,
            echo_token: false,
            faults: Vec::new(),
            log: Vec::new(),
            snapshots: Vec::new(),
            api: String::new(),
            uploads: String::new(),
            objects: String::new(),
        }));
        let start = |name| {
            server::start(
                name,
                Arc::new(Endpoint {
                    server: name,
                    state: state.clone(),
                }),
                latency,
            )
        };
        let api = start("api").base;
        let uploads = start("uploads").base;
        let objects = start("objects").base;
        {
            let mut s = state.lock().unwrap();
            s.api = api.clone();
            s.uploads = format!("{api}/api/uploads");
            s.objects = objects.clone();
        }
        Self {
            state,
            api,
            uploads,
            objects,
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds a release with these assets (all complete); returns its id.
    pub(crate) fn add_release(&self, tag: &str, draft: bool, assets: &[(&str, &[u8])]) -> u64 {
        let mut s = self.state();
        let id = s.next_id();
        let assets = assets
            .iter()
            .map(|(name, content)| FakeAsset {
                id: s.next_id(),
                name: name.to_string(),
                state: "uploaded".into(),
                content: content.to_vec(),
            })
            .collect();
        s.releases.push(FakeRelease {
            id,
            tag: tag.to_string(),
            draft,
            prerelease: false,
            immutable: false,
            make_latest: None,
            assets,
        });
        id
    }

    pub(crate) fn fault(
        &self,
        method: &'static str,
        path_contains: &str,
        action: FaultAction,
        times: usize,
    ) {
        self.state().faults.push(Fault {
            method,
            path_contains: path_contains.to_string(),
            action,
            times,
        });
    }

    pub(crate) fn requests(&self) -> Vec<Incoming> {
        self.state().log.clone()
    }

    /// Requests that change something.
    pub(crate) fn mutations(&self) -> Vec<String> {
        self.requests()
            .iter()
            .filter(|r| r.method != "GET" && r.method != "HEAD")
            .map(|r| format!("{} {}", r.method, r.path))
            .collect()
    }

    pub(crate) fn count(&self, method: &str, path_contains: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.is(method, path_contains))
            .count()
    }

    /// Requests to exactly this path (no query), on any host.
    pub(crate) fn count_exact(&self, method: &str, path: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method == method && r.path == path)
            .count()
    }

    pub(crate) fn release(&self, tag: &str) -> Vec<FakeRelease> {
        self.state()
            .releases
            .iter()
            .filter(|r| r.tag == tag)
            .cloned()
            .collect()
    }
}

impl State {
    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn take_fault(&mut self, request: &Incoming, cut: bool) -> Option<FaultAction> {
        let index = self.faults.iter().position(|f| {
            f.times > 0
                && request.method == f.method
                && request.path.contains(&f.path_contains)
                && matches!(f.action, FaultAction::Cut(_)) == cut
        })?;
        let fault = &mut self.faults[index];
        fault.times -= 1;
        Some(match &fault.action {
            FaultAction::Reply(r) => FaultAction::Reply(r.clone()),
            FaultAction::StoreThenReply(r) => FaultAction::StoreThenReply(r.clone()),
            FaultAction::StarterThenReply(r) => FaultAction::StarterThenReply(r.clone()),
            FaultAction::Cut(n) => FaultAction::Cut(*n),
        })
    }

    fn web(&self) -> String {
        self.api.clone()
    }

    fn asset_json(&self, release: &FakeRelease, asset: &FakeAsset) -> Value {
        let digest = self
            .digests
            .then(|| format!("sha256:{}", hex::encode(Sha256::digest(&asset.content))));
        json!({
            "url": format!("{}/repos/o/r/releases/assets/{}", self.api, asset.id),
            "browser_download_url": format!("{}/o/r/releases/download/{}/{}", self.web(), release.tag, asset.name),
            "id": asset.id,
            "node_id": format!("RA_{}", asset.id),
            "name": asset.name,
            "label": null,
            "state": asset.state,
            "content_type": "application/yaml",
            "size": asset.content.len(),
            "digest": digest,
            "download_count": 0,
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "uploader": null,
        })
    }

    fn release_json(&self, release: &FakeRelease) -> Value {
        let html_tag = if release.draft {
            format!("untagged-{}", release.id)
        } else {
            release.tag.clone()
        };
        json!({
            "url": format!("{}/repos/o/r/releases/{}", self.api, release.id),
            "html_url": format!("{}/o/r/releases/tag/{}", self.web(), html_tag),
            "assets_url": format!("{}/repos/o/r/releases/{}/assets", self.api, release.id),
            "upload_url": format!("{}/repos/o/r/releases/{}/assets{{?name,label}}", self.uploads, release.id),
            "tarball_url": null,
            "zipball_url": null,
            "id": release.id,
            "node_id": format!("RE_{}", release.id),
            "tag_name": release.tag,
            "target_commitish": "main",
            "name": release.tag,
            "body": null,
            "draft": release.draft,
            "prerelease": release.prerelease,
            "immutable": release.immutable,
            "created_at": "2026-01-01T00:00:00Z",
            "published_at": if release.draft { Value::Null } else { json!("2026-01-02T00:00:00Z") },
            "author": null,
            "assets": release.assets.iter().map(|a| self.asset_json(release, a)).collect::<Vec<_>>(),
        })
    }

    fn find_asset(&self, id: u64) -> Option<(usize, usize)> {
        self.releases
            .iter()
            .enumerate()
            .find_map(|(ri, r)| r.assets.iter().position(|a| a.id == id).map(|ai| (ri, ai)))
    }

    fn snapshot(&mut self, request: &Incoming) {
        let names = self
            .releases
            .iter()
            .flat_map(|r| r.assets.iter().map(|a| a.name.clone()))
            .collect();
        self.snapshots
            .push((format!("{} {}", request.method, request.path), names));
    }

    /// Stores an upload; `None` when the name is taken.
    fn store_upload(&mut self, request: &Incoming, state: &str) -> Result<Value, Reply> {
        let release_id: u64 = request
            .path
            .trim_start_matches("/repos/o/r/releases/")
            .trim_end_matches("/assets")
            .parse()
            .map_err(|_| Reply::json(404, json!({"message": "Not Found"})))?;
        let name = request
            .query_param("name")
            .ok_or_else(|| Reply::json(422, json!({"message": "name is required"})))?;
        let id = self.next_id();
        let Some(ri) = self.releases.iter().position(|r| r.id == release_id) else {
            return Err(Reply::json(404, json!({"message": "Not Found"})));
        };
        if self.releases[ri].assets.iter().any(|a| a.name == name) {
            return Err(Reply::json(
                422,
                json!({
                    "message": "Validation Failed",
                    "errors": [{"resource": "ReleaseAsset", "code": "already_exists", "field": "name"}],
                    "documentation_url": "https://docs.github.com/rest/releases/assets#upload-a-release-asset"
                }),
            ));
        }
        let asset = FakeAsset {
            id,
            name,
            state: state.to_string(),
            content: if state == "uploaded" {
                request.body.clone()
            } else {
                Vec::new()
            },
        };
        self.releases[ri].assets.push(asset.clone());
        let release = self.releases[ri].clone();
        Ok(self.asset_json(&release, &asset))
    }

    fn route(&mut self, server: &'static str, request: &Incoming) -> Reply {
        let not_found = || {
            Reply::json(
                404,
                json!({"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}),
            )
        };
        if server == "objects" {
            let id: u64 = request.path.trim_start_matches('/').parse().unwrap_or(0);
            return match self.find_asset(id) {
                Some((ri, ai)) => {
                    let mut content = self.releases[ri].assets[ai].content.clone();
                    if self.corrupt_downloads {
                        content.extend_from_slice(b"# corrupted\n");
                    }
                    Reply::bytes(200, content)
                }
                None => not_found(),
            };
        }
        let expected = format!("Bearer {TOKEN}");
        if request.header("authorization") != Some(expected.as_str()) {
            let message = if self.echo_token {
                format!(
                    "Bad credentials: {}",
                    request.header("authorization").unwrap_or("")
                )
            } else {
                "Bad credentials".to_string()
            };
            return Reply::json(401, json!({"message": message}));
        }
        if request.header("user-agent").is_none() {
            return Reply::json(
                403,
                json!({"message": "Request forbidden by administrative rules. Please make sure your request has a User-Agent header"}),
            );
        }
        if server == "uploads" {
            if request.method != "POST" {
                return not_found();
            }
            return match self.store_upload(request, "uploaded") {
                Ok(asset) => Reply::json(201, asset),
                Err(reply) => reply,
            };
        }
        let Some(rest) = request.path.strip_prefix("/repos/o/r") else {
            return not_found();
        };
        let segments: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
        match (request.method.as_str(), segments.as_slice()) {
            ("GET", ["releases"]) => {
                let per_page: usize = request
                    .query_param("per_page")
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(30);
                let page: usize = request
                    .query_param("page")
                    .and_then(|p| p.parse().ok())
                    .unwrap_or(1);
                // Newest first, as GitHub lists them.
                let all: Vec<Value> = self
                    .releases
                    .iter()
                    .rev()
                    .map(|r| self.release_json(r))
                    .collect();
                let chunk: Vec<Value> = all
                    .iter()
                    .skip((page - 1) * per_page)
                    .take(per_page)
                    .cloned()
                    .collect();
                let mut reply = Reply::json(200, Value::Array(chunk));
                if page * per_page < all.len() {
                    reply = reply.header(
                        "link",
                        &format!(
                            "<{}/repos/o/r/releases?per_page={per_page}&page={}>; rel=\"next\"",
                            self.api,
                            page + 1
                        ),
                    );
                }
                reply
            }
            ("GET", ["releases", "tags", tag]) => {
                match self.releases.iter().find(|r| r.tag == *tag && !r.draft) {
                    Some(r) => Reply::json(200, self.release_json(r)),
                    None => not_found(),
                }
            }
            ("POST", ["releases"]) => {
                let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
                let tag = body["tag_name"].as_str().unwrap_or_default().to_string();
                if self.releases.iter().any(|r| r.tag == tag && !r.draft) {
                    return Reply::json(
                        422,
                        json!({"message": "Validation Failed", "errors": [{"resource": "Release", "code": "already_exists", "field": "tag_name"}]}),
                    );
                }
                let id = self.next_id();
                let release = FakeRelease {
                    id,
                    tag,
                    draft: body["draft"].as_bool().unwrap_or(false),
                    prerelease: body["prerelease"].as_bool().unwrap_or(false),
                    immutable: false,
                    make_latest: None,
                    assets: Vec::new(),
                };
                let json = self.release_json(&release);
                self.releases.push(release);
                Reply::json(201, json)
            }
            ("PATCH", ["releases", id]) => {
                let id: u64 = id.parse().unwrap_or(0);
                let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
                let Some(release) = self.releases.iter_mut().find(|r| r.id == id) else {
                    return not_found();
                };
                if let Some(draft) = body["draft"].as_bool() {
                    release.draft = draft;
                }
                if let Some(prerelease) = body["prerelease"].as_bool() {
                    release.prerelease = prerelease;
                }
                if let Some(latest) = body["make_latest"].as_str() {
                    release.make_latest = Some(latest.to_string());
                }
                let release = release.clone();
                Reply::json(200, self.release_json(&release))
            }
            ("GET", ["releases", id, "assets"]) => {
                let id: u64 = id.parse().unwrap_or(0);
                match self.releases.iter().find(|r| r.id == id) {
                    Some(r) => Reply::json(
                        200,
                        Value::Array(r.assets.iter().map(|a| self.asset_json(r, a)).collect()),
                    ),
                    None => not_found(),
                }
            }
            ("GET", ["releases", "assets", id]) => {
                let id: u64 = id.parse().unwrap_or(0);
                let Some((ri, ai)) = self.find_asset(id) else {
                    return not_found();
                };
                if request.header("accept") == Some("application/octet-stream") {
                    Reply::empty(302).header("location", &format!("{}/{id}", self.objects))
                } else {
                    let release = self.releases[ri].clone();
                    Reply::json(200, self.asset_json(&release, &release.assets[ai]))
                }
            }
            ("PATCH", ["releases", "assets", id]) => {
                let id: u64 = id.parse().unwrap_or(0);
                let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
                let Some((ri, ai)) = self.find_asset(id) else {
                    return not_found();
                };
                if let Some(name) = body["name"].as_str() {
                    if self.releases[ri]
                        .assets
                        .iter()
                        .any(|a| a.name == name && a.id != id)
                    {
                        return Reply::json(
                            422,
                            json!({"message": "Validation Failed", "errors": [{"resource": "ReleaseAsset", "code": "already_exists", "field": "name"}]}),
                        );
                    }
                    self.releases[ri].assets[ai].name = name.to_string();
                }
                let release = self.releases[ri].clone();
                Reply::json(200, self.asset_json(&release, &release.assets[ai]))
            }
            ("DELETE", ["releases", "assets", id]) => {
                let id: u64 = id.parse().unwrap_or(0);
                match self.find_asset(id) {
                    Some((ri, ai)) => {
                        self.releases[ri].assets.remove(ai);
                        Reply::empty(204)
                    }
                    None => not_found(),
                }
            }
            _ => not_found(),
        }
    }
}

impl Endpoint {
    /// Which fake server a request is for: uploads under `/api/uploads` on the API server are
    /// the upload server's, with that prefix taken off.
    fn routed(&self, request: &Incoming) -> (&'static str, Incoming) {
        match request.path.strip_prefix("/api/uploads") {
            Some(rest) if self.server == "api" => {
                let mut upload = request.clone();
                upload.server = "uploads";
                upload.path = rest.to_string();
                ("uploads", upload)
            }
            _ => (self.server, request.clone()),
        }
    }
}

impl Handler for Endpoint {
    fn before_body(&self, head: &Incoming) -> Decision {
        let (_, head) = self.routed(head);
        let head = &head;
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match s.take_fault(head, true) {
            Some(FaultAction::Cut(n)) => {
                s.log.push(head.clone());
                Decision::CutAfter(n)
            }
            _ => Decision::Proceed,
        }
    }

    fn on_cut(&self, head: &Incoming, _partial: &[u8]) {
        let (server, head) = self.routed(head);
        let head = &head;
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if server == "uploads" {
            let _ = s.store_upload(head, "starter");
        }
        s.snapshot(head);
    }

    fn handle(&self, request: &Incoming) -> Reply {
        let (server, request) = self.routed(request);
        let request = &request;
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.log.push(request.clone());
        let reply = match s.take_fault(request, false) {
            Some(FaultAction::Reply(reply)) => reply,
            Some(FaultAction::StoreThenReply(reply)) => {
                let _ = s.route(server, request);
                reply
            }
            Some(FaultAction::StarterThenReply(reply)) => {
                let _ = s.store_upload(request, "starter");
                reply
            }
            _ => s.route(server, request),
        };
        s.snapshot(request);
        reply
    }
}
