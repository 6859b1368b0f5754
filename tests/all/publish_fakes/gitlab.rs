//! A fake GitLab generic package registry: `PUT`/`GET
//! /api/v4/projects/:id/packages/generic/:package/:version/:file`, `PRIVATE-TOKEN` and
//! `JOB-TOKEN` auth, duplicate files kept (the newest is served) unless duplicates are disabled,
//! then `400 Duplicate package is not allowed`.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::json;
use sha2::{Digest, Sha256};

use super::server::{self, Decision, Handler, Incoming, Reply};

pub(crate) const TOKEN: &str = "glpat-FAKE0123456789TOKEN";
pub(crate) const JOB_TOKEN: &str = "glcbt-FAKEJOBTOKEN";
/// The project's id and its escaped path.
pub(crate) const PROJECT_ID: &str = "42";
pub(crate) const PROJECT_PATH: &str = "group%2Fsub%2Fprovider";

pub(crate) enum FaultAction {
    Reply(Reply),
    /// Store the file, then answer this.
    StoreThenReply(Reply),
    Cut(usize),
}

pub(crate) struct Fault {
    pub method: &'static str,
    pub path_contains: String,
    pub action: FaultAction,
    pub times: usize,
}

pub(crate) struct State {
    /// `package/version/file` -> every upload, oldest first.
    pub files: BTreeMap<String, Vec<Vec<u8>>>,
    pub duplicates_allowed: bool,
    pub faults: Vec<Fault>,
    pub log: Vec<Incoming>,
}

pub(crate) struct FakeGitLab {
    state: Arc<Mutex<State>>,
    /// `http://127.0.0.1:PORT/api/v4`
    pub api: String,
}

struct Endpoint {
    state: Arc<Mutex<State>>,
}

impl FakeGitLab {
    pub(crate) fn start() -> Self {
        Self::with_latency(Duration::ZERO)
    }

    pub(crate) fn with_latency(latency: Duration) -> Self {
        let state = Arc::new(Mutex::new(State {
            files: BTreeMap::new(),
            duplicates_allowed: true,
            faults: Vec::new(),
            log: Vec::new(),
        }));
        let server = server::start(
            "gitlab",
            Arc::new(Endpoint {
                state: state.clone(),
            }),
            latency,
        );
        Self {
            state,
            api: format!("{}/api/v4", server.base),
        }
    }

    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn put_file(&self, package: &str, version: &str, file: &str, content: &[u8]) {
        self.state()
            .files
            .entry(format!("{package}/{version}/{file}"))
            .or_default()
            .push(content.to_vec());
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

    pub(crate) fn count(&self, method: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method == method)
            .count()
    }
}

impl State {
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
            FaultAction::Cut(n) => FaultAction::Cut(*n),
        })
    }

    fn route(&mut self, request: &Incoming) -> Reply {
        let authorized = request.header("private-token") == Some(TOKEN)
            || request.header("job-token") == Some(JOB_TOKEN)
            || request.header("authorization") == Some(format!("Bearer {TOKEN}").as_str());
        if !authorized {
            return Reply::json(401, json!({"message": "401 Unauthorized"}));
        }
        let Some(rest) = request.path.strip_prefix("/api/v4/projects/") else {
            return Reply::json(404, json!({"error": "404 Not Found"}));
        };
        let parts: Vec<&str> = rest.split('/').collect();
        let [project, "packages", "generic", package, version, file] = parts.as_slice() else {
            return Reply::json(404, json!({"error": "404 Not Found"}));
        };
        if *project != PROJECT_ID && *project != PROJECT_PATH {
            return Reply::json(404, json!({"message": "404 Project Not Found"}));
        }
        let key = format!("{package}/{version}/{file}");
        match request.method.as_str() {
            "PUT" => {
                let exists = self.files.contains_key(&key);
                if exists && !self.duplicates_allowed {
                    return Reply::json(
                        400,
                        json!({"message": "Duplicate package is not allowed"}),
                    );
                }
                self.files
                    .entry(key)
                    .or_default()
                    .push(request.body.clone());
                if request.query_param("select").as_deref() == Some("package_file") {
                    Reply::json(
                        201,
                        json!({
                            "id": 1, "package_id": 1, "file_name": file, "size": request.body.len(),
                            "file_sha256": hex::encode(Sha256::digest(&request.body)),
                        }),
                    )
                } else {
                    Reply::json(201, json!({"message": "201 Created"}))
                }
            }
            "GET" => match self.files.get(&key).and_then(|uploads| uploads.last()) {
                Some(content) => Reply::bytes(200, content.clone()),
                None => Reply::json(404, json!({"message": "404 Package Not Found"})),
            },
            _ => Reply::json(405, json!({"error": "405 Method Not Allowed"})),
        }
    }
}

impl Handler for Endpoint {
    fn before_body(&self, head: &Incoming) -> Decision {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match s.take_fault(head, true) {
            Some(FaultAction::Cut(n)) => {
                s.log.push(head.clone());
                Decision::CutAfter(n)
            }
            _ => Decision::Proceed,
        }
    }

    fn handle(&self, request: &Incoming) -> Reply {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.log.push(request.clone());
        match s.take_fault(request, false) {
            Some(FaultAction::Reply(reply)) => reply,
            Some(FaultAction::StoreThenReply(reply)) => {
                let _ = s.route(request);
                reply
            }
            _ => s.route(request),
        }
    }
}
