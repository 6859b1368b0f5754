//! The release before this one is an untrusted download (issue 36): its place may come from
//! capkg.yaml `previous:`, which a pull request can change, or from a server's answer. Which
//! credential goes where is one rule ([`capkg`'s `forge::origin`]); these cases hold it against
//! hosts that are not loopback, served through the [`TlsFront`]:
//!
//! - an OCI `previous:` on another registry gets neither `OCI_ACCESS_TOKEN` nor, as Basic to the
//!   realm it names, `OCI_USERNAME`/`OCI_PASSWORD`; the release says it read it anonymously;
//! - a GitLab `previous:` on another instance than the target's and `CI_API_V4_URL`'s gets no
//!   token; `capkg diff` sends a job token to `CI_API_V4_URL`'s instance only, a personal token
//!   to the instance named on the command line;
//! - a release list's next page on loopback is not requested;
//! - every list is bounded in pages and bytes, with an error naming the bound.

use std::process::Output;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::oci_e2e::LocalRegistry;
use crate::publish_fakes::github::{self, FakeGitHub, FaultAction};
use crate::publish_fakes::gitlab::{self, FakeGitLab, PROJECT_ID};
use crate::publish_fakes::server::{self, Handler, Incoming, Reply};
use crate::publish_fakes::{METADATA, capkg};
use crate::release_common::{Actions, Provider, json, release};
use crate::tls_front::TlsFront;

const OCI_TOKEN: &str = "oci-access-TOKEN-0123456789";
const OCI_USER: &str = "robot";
const OCI_PASSWORD: &str = "oci-PASSWORD-0123456789";

fn text(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A loopback server that records every request and answers with `answer`.
struct Answering {
    seen: Mutex<Vec<Incoming>>,
    answer: fn(&Incoming) -> Reply,
}

impl Handler for Answering {
    fn handle(&self, request: &Incoming) -> Reply {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(request.clone());
        (self.answer)(request)
    }
}

/// Starts an [`Answering`] server; returns its base and the handler.
fn answering(answer: fn(&Incoming) -> Reply) -> (String, Arc<Answering>) {
    let handler = Arc::new(Answering {
        seen: Mutex::new(Vec::new()),
        answer,
    });
    let server = server::start("answering", handler.clone(), Duration::ZERO);
    (server.base, handler)
}

impl Answering {
    fn requests(&self) -> Vec<Incoming> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The upgrade report of the first provider at the first target.
fn upgrade(report: &Value) -> &Value {
    &report["targets"][0]["upgrade"][0]
}

/// `capkg release --format json` of `provider` for `tag` in GitHub Actions, through `front`.
fn release_through(
    provider: &Provider,
    front: &TlsFront,
    tag: &str,
    env: &[(&str, &str)],
) -> (Output, String) {
    release_as(provider, front, tag, env, "json")
}

/// [`release_through`] with output in `format`.
fn release_as(
    provider: &Provider,
    front: &TlsFront,
    tag: &str,
    env: &[(&str, &str)],
    format: &str,
) -> (Output, String) {
    let actions = Actions::new();
    let mut command = release(provider);
    command.args(["--format", format]);
    actions.apply(&mut command, tag);
    front.apply(&mut command);
    for (name, value) in env {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    let summary = std::fs::read_to_string(actions.summary()).unwrap_or_default();
    (output, summary)
}

fn add_previous(provider: &Provider, previous: &str) {
    let config = provider.config();
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}previous: {previous}\n")).unwrap();
}

// --- OCI ---

/// `previous: oci://evil.example/…` in capkg.yaml: the OCI variables are the OCI target's login
/// and never go to another registry. evil.example is a real registry here (behind the front),
/// so the comparison is made, anonymously, and the report says so.
#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "the test CA reaches capkg through SSL_CERT_FILE, read on Linux only"
)]
fn an_oci_previous_on_another_registry_gets_no_oci_login() {
    let front = TlsFront::start();
    let evil = LocalRegistry::start(false);
    front.route("evil.example", &format!("http://{}", evil.host()));
    // v1.2.3, published to the registry that will answer as evil.example.
    let first = Provider::new(
        &format!("  oci:\n    repository: {}\n", evil.reference("capi/azure")),
        METADATA,
    );
    let (output, _) = release_through(&first, &front, "v1.2.3", &[]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));

    let target = LocalRegistry::start(false);
    let provider = Provider::new(
        &format!(
            "  oci:\n    repository: {}\n",
            target.reference("capi/azure")
        ),
        METADATA,
    );
    add_previous(&provider, "oci://evil.example/capi/azure:v1.2.3");
    let (output, summary) = release_through(
        &provider,
        &front,
        "v1.2.4",
        &[("OCI_ACCESS_TOKEN", OCI_TOKEN)],
    );
    assert!(
        front.connects().iter().any(|c| c == "evil.example:443"),
        "the previous release was read through the front: {:?}\n{}",
        front.connects(),
        text(&output)
    );
    assert!(
        !front.reached("evil.example", OCI_TOKEN, &[]),
        "OCI_ACCESS_TOKEN reached evil.example:\n{}",
        front.sent_to("evil.example")
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let report = json(&output);
    let access = &upgrade(&report)["access"];
    assert_eq!(access["login"], Value::Null, "{report}");
    let withheld = access["withheld"].as_str().unwrap();
    assert!(
        withheld.starts_with("OCI_ACCESS_TOKEN not sent to `evil.example`"),
        "{withheld}"
    );
    assert_eq!(upgrade(&report)["previous"], "v1.2.3");
    assert!(
        summary.contains("Read without a login: OCI_ACCESS_TOKEN"),
        "{summary}"
    );

    // The human report says it too.
    let (output, _) = release_as(
        &provider,
        &front,
        "v1.2.5",
        &[("OCI_ACCESS_TOKEN", OCI_TOKEN)],
        "human",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("read without a login: OCI_ACCESS_TOKEN not sent to `evil.example`"),
        "{stdout}"
    );
    assert!(!front.reached("evil.example", OCI_TOKEN, &[]));
}

/// A registry whose every answer is a `401` naming a token realm on itself: a login that went
/// there would be sent as Basic to the realm.
fn challenging(_request: &Incoming) -> Reply {
    Reply::json(
        401,
        json!({"errors": [{"code": "UNAUTHORIZED", "message": "authentication required"}]}),
    )
    .header(
        "www-authenticate",
        r#"Bearer realm="https://evil.example/token",service="evil.example""#,
    )
}

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "the test CA reaches capkg through SSL_CERT_FILE, read on Linux only"
)]
fn an_oci_previous_on_another_registry_never_gets_basic_credentials_for_its_realm() {
    let front = TlsFront::start();
    let (evil, _) = answering(challenging);
    front.route("evil.example", &evil);
    let target = LocalRegistry::start(false);
    let provider = Provider::new(
        &format!(
            "  oci:\n    repository: {}\n",
            target.reference("capi/azure")
        ),
        METADATA,
    );
    add_previous(&provider, "oci://evil.example/capi/azure:v1.2.3");
    let (output, _) = release_through(
        &provider,
        &front,
        "v1.2.4",
        &[("OCI_USERNAME", OCI_USER), ("OCI_PASSWORD", OCI_PASSWORD)],
    );
    let sent = front.sent_to("evil.example");
    assert!(sent.contains("GET /token"), "the realm was asked: {sent}");
    assert!(
        !front.reached("evil.example", OCI_PASSWORD, &[OCI_USER]),
        "the OCI login reached evil.example:\n{sent}"
    );
    // Unreadable anonymously: the release stops before publishing, and says why it had no login.
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let report = json(&output);
    let hint = report["error"]["hint"].as_str().unwrap_or_default();
    assert!(
        hint.contains("OCI_USERNAME and OCI_PASSWORD not sent to `evil.example`"),
        "{report}"
    );
}

// --- GitLab ---

/// Two GitLab instances behind the front, one fake holding the packages: `gitlab.example` is
/// `CI_API_V4_URL`'s, `gitlab.other.example` is another.
struct TwoGitLabs {
    front: TlsFront,
    fake: FakeGitLab,
}

const CI_GITLAB: &str = "https://gitlab.example/api/v4";

impl TwoGitLabs {
    fn start() -> Self {
        let front = TlsFront::start();
        let fake = FakeGitLab::start();
        let base = fake.api.trim_end_matches("/api/v4").to_string();
        front.route("gitlab.example", &base);
        front.route("gitlab.other.example", &base);
        Self { front, fake }
    }

    fn package_url(host: &str, version: &str) -> String {
        format!(
            "https://{host}/api/v4/projects/{PROJECT_ID}/packages/generic/infrastructure-azure/{version}/infrastructure-components.yaml"
        )
    }

    /// Which GitLab tokens reached `host`.
    fn tokens_at(&self, host: &str) -> Vec<&'static str> {
        let sent = self.front.sent_to(host);
        [gitlab::TOKEN, gitlab::JOB_TOKEN]
            .into_iter()
            .filter(|token| sent.contains(token))
            .collect()
    }
}

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "the test CA reaches capkg through SSL_CERT_FILE, read on Linux only"
)]
fn a_gitlab_previous_on_another_instance_gets_no_token() {
    let gitlabs = TwoGitLabs::start();
    let provider = Provider::new("  gitlab:\n    package: infrastructure-azure\n", METADATA);
    let ci = |token: (&'static str, &'static str)| {
        vec![
            ("CI_API_V4_URL", CI_GITLAB),
            ("CI_PROJECT_ID", PROJECT_ID),
            token,
        ]
    };
    let job = ("CI_JOB_TOKEN", gitlab::JOB_TOKEN);
    let (output, _) = release_through(&provider, &gitlabs.front, "v1.2.3", &ci(job));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));

    // On the target's own instance, the previous release is read with the token.
    add_previous(
        &provider,
        &TwoGitLabs::package_url("gitlab.example", "v1.2.3"),
    );
    let (output, _) = release_through(&provider, &gitlabs.front, "v1.2.4", &ci(job));
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    let report = json(&output);
    assert_eq!(upgrade(&report)["access"], json!({"login": "CI_JOB_TOKEN"}));

    // On another instance, neither a job token nor a personal token goes there.
    let config = std::fs::read_to_string(provider.config()).unwrap();
    std::fs::write(
        provider.config(),
        config.replace("https://gitlab.example/", "https://gitlab.other.example/"),
    )
    .unwrap();
    for token in [job, ("GITLAB_TOKEN", gitlab::TOKEN)] {
        let (output, _) = release_through(&provider, &gitlabs.front, "v1.2.5", &ci(token));
        assert!(
            gitlabs
                .front
                .sent_to("gitlab.other.example")
                .contains("GET /api/v4/projects/42/packages/generic/infrastructure-azure/v1.2.3/"),
            "the previous release was asked for: {}",
            text(&output)
        );
        assert_eq!(
            gitlabs.tokens_at("gitlab.other.example"),
            Vec::<&str>::new(),
            "{}",
            text(&output)
        );
        // The fake wants a token: read anonymously, the previous release cannot be read.
        assert_eq!(output.status.code(), Some(2), "{}", text(&output));
        let report = json(&output);
        let hint = report["error"]["hint"].as_str().unwrap_or_default();
        assert!(
            hint.contains(&format!(
                "{} not sent to `https://gitlab.other.example`",
                token.0
            )),
            "{report}"
        );
    }
    assert!(
        gitlabs
            .fake
            .state()
            .files
            .keys()
            .all(|k| !k.contains("v1.2.5")),
        "nothing was published"
    );
}

/// A GitLab that serves generic package files to anyone, as a public project does.
fn public_packages(request: &Incoming) -> Reply {
    let components = crate::publish_fakes::COMPONENTS.as_bytes().to_vec();
    let metadata = METADATA.as_bytes().to_vec();
    if request.path.ends_with("/infrastructure-components.yaml") {
        Reply::bytes(200, components)
    } else if request.path.ends_with("/metadata.yaml") {
        Reply::bytes(200, metadata)
    } else {
        Reply::json(404, json!({"message": "404 Not Found"}))
    }
}

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "the test CA reaches capkg through SSL_CERT_FILE, read on Linux only"
)]
fn diff_sends_a_job_token_only_to_ci_api_v4_urls_gitlab() {
    let gitlabs = TwoGitLabs::start();
    let (public, _) = answering(public_packages);
    gitlabs.front.route("gitlab.public.example", &public);
    for version in ["v1.2.3", "v1.2.4"] {
        gitlabs.fake.put_file(
            "infrastructure-azure",
            version,
            "infrastructure-components.yaml",
            crate::publish_fakes::COMPONENTS.as_bytes(),
        );
        gitlabs.fake.put_file(
            "infrastructure-azure",
            version,
            "metadata.yaml",
            METADATA.as_bytes(),
        );
    }
    let diff = |host: &str, token: (&str, &str), format: &str| {
        let mut command = capkg();
        command.args([
            "--format",
            format,
            "diff",
            &TwoGitLabs::package_url(host, "v1.2.3"),
            &TwoGitLabs::package_url(host, "v1.2.4"),
        ]);
        gitlabs.front.apply(&mut command);
        command
            .env("CI_API_V4_URL", CI_GITLAB)
            .env(token.0, token.1)
            .output()
            .unwrap()
    };
    let job = ("CI_JOB_TOKEN", gitlab::JOB_TOKEN);

    // The pipeline's own instance: the job token goes.
    let output = diff("gitlab.example", job, "human");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(gitlabs.tokens_at("gitlab.example"), [gitlab::JOB_TOKEN]);

    // Another instance: the job token does not go, and the failure says why.
    let output = diff("gitlab.other.example", job, "human");
    assert_eq!(
        gitlabs.tokens_at("gitlab.other.example"),
        Vec::<&str>::new()
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("CI_JOB_TOKEN not sent to `https://gitlab.other.example`"),
        "{stderr}"
    );

    // A personal token goes to the instance named on the command line.
    let output = diff(
        "gitlab.other.example",
        ("GITLAB_TOKEN", gitlab::TOKEN),
        "human",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
    assert_eq!(gitlabs.tokens_at("gitlab.other.example"), [gitlab::TOKEN]);

    // A public package elsewhere is read anonymously, and the output says so.
    for format in ["human", "json"] {
        let output = diff("gitlab.public.example", job, format);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains(
                "old: read without a login: CI_JOB_TOKEN not sent to `https://gitlab.public.example`"
            ),
            "{format}: {stdout}"
        );
    }
    assert!(
        !gitlabs
            .front
            .reached("gitlab.public.example", gitlab::JOB_TOKEN, &[])
    );
}

// --- lists ---

/// `verify` resolving `latest` on a GitHub API at `api.github.example`.
fn verify_latest(api: &str, front: Option<&TlsFront>, extra: &[&str]) -> Output {
    let mut command = capkg();
    command
        .args([
            "verify",
            "https://github.com/o/r/releases/latest/infrastructure-components.yaml",
            "--api-url",
            api,
        ])
        .args(extra)
        .env("GITHUB_TOKEN", github::TOKEN);
    if let Some(front) = front {
        front.apply(&mut command);
    }
    command.output().unwrap()
}

#[test]
#[cfg_attr(
    not(target_os = "linux"),
    ignore = "the test CA reaches capkg through SSL_CERT_FILE, read on Linux only"
)]
fn a_release_lists_next_page_on_loopback_is_not_requested() {
    let front = TlsFront::start();
    let fake = FakeGitHub::start();
    front.route("api.github.example", &fake.api);
    let (elsewhere, recorder) = answering(|_| Reply::json(200, json!([])));
    fake.fault(
        "GET",
        "/releases",
        FaultAction::Reply(Reply::json(200, json!([])).header(
            "link",
            &format!("<{elsewhere}/repos/o/r/releases?per_page=100&page=2>; rel=\"next\""),
        )),
        1,
    );
    let output = verify_latest("https://api.github.example", Some(&front), &[]);
    assert!(
        front
            .sent_to("api.github.example")
            .contains("GET /repos/o/r/releases"),
        "{}",
        text(&output)
    );
    assert_eq!(
        recorder.requests().len(),
        0,
        "the next page on loopback was requested: {}",
        text(&output)
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("list the releases of `o/r`") && stderr.contains("where the list began"),
        "{stderr}"
    );
}

/// A release list page whose `Link` names the same page again: a list without end.
fn endless_release_list(fake: &FakeGitHub, padding: usize) {
    let page = Reply::json(
        200,
        json!([{"id": 1, "tag_name": "v1.0.0", "body": "x".repeat(padding), "assets": []}]),
    )
    .header(
        "link",
        &format!(
            "<{}/repos/o/r/releases?per_page=100&page=2>; rel=\"next\"",
            fake.api
        ),
    );
    fake.fault(
        "GET",
        "/repos/o/r/releases",
        FaultAction::Reply(page),
        usize::MAX,
    );
}

fn list_requests(fake: &FakeGitHub) -> usize {
    fake.requests()
        .iter()
        .filter(|r| r.method == "GET" && r.path == "/repos/o/r/releases")
        .count()
}

#[test]
fn an_endless_release_list_ends_at_the_page_bound_with_an_error() {
    let fake = FakeGitHub::start();
    endless_release_list(&fake, 0);
    let output = verify_latest(&fake.api, None, &[]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("list the releases of `o/r`: the list goes on past 1000 pages"),
        "{stderr}"
    );
    assert!(stderr.contains("--max-list-pages"), "{stderr}");
    assert_eq!(list_requests(&fake), 1000);
}

#[test]
fn a_release_list_is_held_to_the_download_bound_in_all() {
    let fake = FakeGitHub::start();
    endless_release_list(&fake, 300 * 1024);
    let output = verify_latest(&fake.api, None, &["--max-download", "1MiB"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("its pages hold more than 1048576 bytes in all"),
        "{stderr}"
    );
    assert!(stderr.contains("--max-download"), "{stderr}");
    // Four pages of 300 KiB pass 1 MiB: the fifth is never asked for.
    assert_eq!(list_requests(&fake), 4);
}

/// A GitLab whose package list never ends (each page links to the next) and holds no file.
fn endless_packages(request: &Incoming) -> Reply {
    if !request.path.ends_with("/packages") {
        return Reply::json(404, json!({"message": "404 Not Found"}));
    }
    let page: usize = request
        .query_param("page")
        .and_then(|p| p.parse().ok())
        .unwrap_or(1);
    Reply::json(
        200,
        json!([{"name": "infrastructure-azure", "version": format!("v1.0.{page}"), "status": "default"}]),
    )
    .header(
        "link",
        &format!(
            "<{}?package_type=generic&package_name=infrastructure-azure&per_page=100&page={}>; rel=\"next\"",
            request.path,
            page + 1
        ),
    )
}

#[test]
fn an_endless_package_list_stops_the_release_at_the_page_bound() {
    let (base, handler) = answering(endless_packages);
    let provider = Provider::new("  gitlab:\n    package: infrastructure-azure\n", METADATA);
    let actions = Actions::new();
    let mut command = release(&provider);
    command.args(["--format", "json"]);
    actions.apply(&mut command, "v1.2.3");
    let output = command
        .env("CI_API_V4_URL", format!("{base}/api/v4"))
        .env("CI_PROJECT_ID", PROJECT_ID)
        .env("CI_JOB_TOKEN", gitlab::JOB_TOKEN)
        .env("CAPKG_MAX_LIST_PAGES", "3")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let report = json(&output);
    let message = report["error"].to_string();
    assert!(
        message.contains(
            "list the versions of package `infrastructure-azure`: the list goes on past 3 pages"
        ),
        "{message}"
    );
    assert!(message.contains("CAPKG_MAX_LIST_PAGES"), "{message}");
    let lists = handler
        .requests()
        .iter()
        .filter(|r| r.path.ends_with("/packages"))
        .count();
    assert_eq!(lists, 3);
    let uploads = handler
        .requests()
        .iter()
        .filter(|r| r.method == "PUT")
        .count();
    assert_eq!(uploads, 0, "nothing was published");
}
