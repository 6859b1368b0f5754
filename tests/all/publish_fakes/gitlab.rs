//! A fake GitLab generic package registry: `PUT`/`GET
//! /api/v4/projects/:id/packages/generic/:package/:version/:file`, `PRIVATE-TOKEN` and
//! `JOB-TOKEN` auth, duplicate files kept (the newest is served) unless duplicates are disabled,
//! then `400 Duplicate package is not allowed`; and the packages API's list, `GET
//! /api/v4/projects/:id/packages`, with GitLab's fuzzy `package_name`, its `package_type` filter,
//! `page`/`per_page` (default 20, at most 100) and its pagination headers (`x-page`,
//! `x-per-page`, `x-total`, `x-total-pages`, `x-next-page`, `x-prev-page`, `Link`).

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
    /// The most packages a page of the list holds (GitLab: 100); lower it to see pagination.
    pub max_per_page: usize,
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
            max_per_page: 100,
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
        if let [project, "packages"] = parts.as_slice() {
            return self.packages(project, request);
        }
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

impl State {
    /// `GET /projects/:id/packages`: one entry per package version, oldest first (GitLab's
    /// default `created_at` order; here, the order of the stored names).
    fn packages(&self, project: &str, request: &Incoming) -> Reply {
        if project != PROJECT_ID && project != PROJECT_PATH {
            return Reply::json(404, json!({"message": "404 Project Not Found"}));
        }
        if request.method != "GET" {
            return Reply::json(405, json!({"error": "405 Method Not Allowed"}));
        }
        let wanted = request
            .query_param("package_name")
            .map(|n| n.to_lowercase());
        let generic = request
            .query_param("package_type")
            .is_none_or(|t| t == "generic");
        let mut versions: Vec<(String, String)> = Vec::new();
        for key in self.files.keys() {
            let mut parts = key.splitn(3, '/');
            let (Some(name), Some(version)) = (parts.next(), parts.next()) else {
                continue;
            };
            let entry = (name.to_string(), version.to_string());
            // GitLab's `package_name` is a fuzzy (substring, any case) match.
            let matches = wanted
                .as_deref()
                .is_none_or(|w| name.to_lowercase().contains(w));
            if generic && matches && !versions.contains(&entry) {
                versions.push(entry);
            }
        }
        let number = |name: &str, default: usize| {
            request
                .query_param(name)
                .and_then(|v| v.parse::<usize>().ok())
                .filter(|v| *v > 0)
                .unwrap_or(default)
        };
        let per_page = number("per_page", 20).min(self.max_per_page);
        let page = number("page", 1);
        let total = versions.len();
        let pages = total.div_ceil(per_page).max(1);
        let items: Vec<serde_json::Value> = versions
            .iter()
            .enumerate()
            .skip((page - 1) * per_page)
            .take(per_page)
            .map(|(i, (name, version))| {
                json!({
                    "id": i + 1, "name": name, "version": version, "package_type": "generic",
                    "status": "default", "created_at": "2026-01-01T00:00:00.000Z", "tags": [],
                })
            })
            .collect();
        let host = request.header("host").unwrap_or("127.0.0.1");
        let link_to = |n: usize| {
            let query: Vec<String> = request
                .query
                .split('&')
                .filter(|p| !p.is_empty() && !p.starts_with("page=") && !p.starts_with("per_page="))
                .map(str::to_string)
                .chain([format!("page={n}"), format!("per_page={per_page}")])
                .collect();
            format!("http://{host}{}?{}", request.path, query.join("&"))
        };
        let mut links = Vec::new();
        if page > 1 {
            links.push(format!("<{}>; rel=\"prev\"", link_to(page - 1)));
        }
        if page < pages {
            links.push(format!("<{}>; rel=\"next\"", link_to(page + 1)));
        }
        links.push(format!("<{}>; rel=\"first\"", link_to(1)));
        links.push(format!("<{}>; rel=\"last\"", link_to(pages)));
        let next = if page < pages {
            (page + 1).to_string()
        } else {
            String::new()
        };
        let prev = if page > 1 {
            (page - 1).to_string()
        } else {
            String::new()
        };
        Reply::json(200, serde_json::Value::Array(items))
            .header("x-page", &page.to_string())
            .header("x-per-page", &per_page.to_string())
            .header("x-total", &total.to_string())
            .header("x-total-pages", &pages.to_string())
            .header("x-next-page", &next)
            .header("x-prev-page", &prev)
            .header("link", &links.join(", "))
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
