//! Servers that try to get the token or to hold capkg: a `Link` header (not followed), an
//! `upload_url` (refused) and a redirect (followed without the token) pointing at another origin
//! (a loopback server on another port that records what it gets), a proxy on loopback, a server
//! that trickles bytes, one that announces a huge body, one that echoes the token in its usual
//! encodings; and `--project` given in its escaped form.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use serde_json::json;

use crate::publish_fakes::github::{FakeGitHub, FaultAction};
use crate::publish_fakes::gitlab::{self, FakeGitLab};
use crate::publish_fakes::server::{self, Handler, Incoming, Reply};
use crate::publish_fakes::{capkg, release_dir, release_files, sha256};

const TOKEN: &str = crate::publish_fakes::github::TOKEN;

/// A loopback server on its own port that records every request and answers `reply`.
struct Recorder {
    base: String,
    seen: Arc<Mutex<Vec<Incoming>>>,
}

struct Recording {
    seen: Arc<Mutex<Vec<Incoming>>>,
    reply: Reply,
}

impl Handler for Recording {
    fn handle(&self, request: &Incoming) -> Reply {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(request.clone());
        self.reply.clone()
    }
}

impl Recorder {
    fn start(reply: Reply) -> Self {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let server = server::start(
            "recorder",
            Arc::new(Recording {
                seen: seen.clone(),
                reply,
            }),
            Duration::ZERO,
        );
        Self {
            base: server.base,
            seen,
        }
    }

    fn requests(&self) -> Vec<Incoming> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Every credential header a request brought.
    fn credentials(&self) -> Vec<String> {
        self.requests()
            .iter()
            .flat_map(|r| {
                ["authorization", "private-token", "job-token"]
                    .iter()
                    .filter_map(|h| r.header(h).map(|v| format!("{} {h}: {v}", r.path)))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

fn text(output: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn publish_github(fake: &FakeGitHub, dir: &Path) -> Command {
    let mut command = capkg();
    command
        .args(["--format", "json", "publish", "github"])
        .arg(dir)
        .args([
            "--version",
            "v1.2.3",
            "--repo",
            "o/r",
            "--api-url",
            &fake.api,
        ])
        .env("GITHUB_TOKEN", TOKEN);
    command
}

/// The standard release files with their `checksums.txt`, as assets.
fn add_release(fake: &FakeGitHub, tag: &str) {
    let mut files: Vec<(String, Vec<u8>)> = release_files()
        .into_iter()
        .map(|(n, c)| (n.to_string(), c))
        .collect();
    let sums: String = files
        .iter()
        .map(|(n, c)| format!("{}  {n}\n", sha256(c)))
        .collect();
    files.push(("checksums.txt".into(), sums.into_bytes()));
    let assets: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, c)| (n.as_str(), c.as_slice()))
        .collect();
    fake.add_release(tag, false, &assets);
}

/// The first release listing answers `[]` with a `Link` to `next`.
fn link_first_page_to(fake: &FakeGitHub, next: &str) {
    fake.fault(
        "GET",
        "/releases",
        FaultAction::Reply(Reply::json(200, json!([])).header(
            "link",
            &format!("<{next}/repos/o/r/releases?per_page=100&page=2>; rel=\"next\""),
        )),
        1,
    );
}

/// A list's next page on another origin is neither requested nor silently dropped: the run
/// fails naming the list (issue 36: a list is read from the origin it began on only).
fn assert_link_not_followed(elsewhere: &Recorder, output: &Output) {
    assert_eq!(
        elsewhere.requests().len(),
        0,
        "the next page elsewhere was read: {}",
        text(output)
    );
    assert_eq!(output.status.code(), Some(2), "{}", text(output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("where the list began"), "{stderr}");
}

#[test]
fn publish_github_does_not_send_the_token_to_a_link_on_another_port() {
    let fake = FakeGitHub::start();
    let elsewhere = Recorder::start(Reply::json(200, json!([])));
    link_first_page_to(&fake, &elsewhere.base);
    let (_root, dir) = release_dir();
    let output = publish_github(&fake, &dir).output().unwrap();
    assert_link_not_followed(&elsewhere, &output);
}

#[test]
fn verify_latest_does_not_send_the_token_to_a_link_on_another_port() {
    let fake = FakeGitHub::start();
    add_release(&fake, "v1.2.3");
    let elsewhere = Recorder::start(Reply::json(200, json!([])));
    link_first_page_to(&fake, &elsewhere.base);
    let output = capkg()
        .args([
            "verify",
            "https://github.com/o/r/releases/latest/infrastructure-components.yaml",
            "--api-url",
            &fake.api,
        ])
        .env("GITHUB_TOKEN", TOKEN)
        .output()
        .unwrap();
    assert_link_not_followed(&elsewhere, &output);
}

#[test]
fn an_upload_url_on_another_origin_is_refused_and_gets_no_token() {
    let fake = FakeGitHub::start();
    // The release's upload_url names the fake's separate upload server, on another port.
    fake.state().uploads = fake.uploads.clone();
    let (_root, dir) = release_dir();
    let output = publish_github(&fake, &dir).output().unwrap();
    let leaked: Vec<String> = fake
        .requests()
        .iter()
        .filter(|r| r.server == "uploads" && r.header("authorization").is_some())
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(leaked, Vec::<String>::new(), "{}", text(&output));
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("upload_url"), "{stderr}");
}

#[test]
fn a_redirect_to_another_origin_gets_no_token() {
    // GitLab package files may redirect to object storage.
    let storage = Recorder::start(Reply::bytes(200, b"kind: Nothing\n".to_vec()));
    let gitlab = RedirectingGitLab::start(&storage.base);
    let url = format!(
        "{}/api/v4/projects/42/packages/generic/p/v1.2.3/infrastructure-components.yaml",
        gitlab.base
    );
    let output = capkg()
        .args(["verify", &url])
        .env("GITLAB_TOKEN", gitlab::TOKEN)
        .output()
        .unwrap();
    assert!(!storage.requests().is_empty(), "{}", text(&output));
    assert_eq!(storage.credentials(), Vec::<String>::new());
    assert!(
        gitlab
            .recorder
            .credentials()
            .iter()
            .all(|c| c.contains(gitlab::TOKEN)),
        "the API itself gets the token"
    );
}

/// A GitLab API that answers every request with a redirect to `storage`.
struct RedirectingGitLab {
    base: String,
    recorder: Recorder,
}

impl RedirectingGitLab {
    fn start(storage: &str) -> Self {
        let recorder =
            Recorder::start(Reply::empty(302).header("location", &format!("{storage}/blob")));
        Self {
            base: recorder.base.clone(),
            recorder,
        }
    }
}

#[test]
fn a_proxy_on_loopback_receives_nothing() {
    let proxy = Recorder::start(Reply::empty(502));
    let fake = FakeGitHub::start();
    let (_root, dir) = release_dir();
    let mut command = publish_github(&fake, &dir);
    for name in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        command.env(name, &proxy.base);
    }
    command.env_remove("NO_PROXY").env_remove("no_proxy");
    let output = command.output().unwrap();
    assert_eq!(
        proxy
            .requests()
            .iter()
            .map(|r| format!("{} {}", r.method, r.path))
            .collect::<Vec<_>>(),
        Vec::<String>::new()
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
}

/// A raw server: reads each request's head, then runs `answer` on the connection.
fn raw_server(answer: fn(&mut TcpStream)) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
                    if line == "\r\n" {
                        break;
                    }
                    line.clear();
                }
                answer(&mut stream);
            });
        }
    });
    format!("http://127.0.0.1:{port}")
}

fn gitlab_file_url(base: &str) -> String {
    format!("{base}/api/v4/projects/42/packages/generic/p/v1.2.3/infrastructure-components.yaml")
}

#[test]
fn a_server_that_trickles_bytes_fails_at_the_deadline_with_exit_2() {
    let base = raw_server(|stream| {
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n");
        for _ in 0..100 {
            if stream.write_all(b"x").is_err() {
                return;
            }
            thread::sleep(Duration::from_secs(1));
        }
    });
    let output = capkg()
        .args(["verify", &gitlab_file_url(&base), "--http-timeout", "2s"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("did not finish within 2s"), "{stderr}");
    assert!(stderr.contains("--http-timeout"), "{stderr}");
}

#[test]
fn verify_refuses_a_file_over_the_size_limit_without_reading_it() {
    // Announces 100 MiB and sends none of it: reading it would wait for the deadline.
    let base = raw_server(|stream| {
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 104857600\r\n\r\n");
        thread::sleep(Duration::from_secs(60));
    });
    let output = capkg()
        .args(["verify", &gitlab_file_url(&base), "--max-download", "1KiB"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("more than 1024 bytes (104857600 announced)"),
        "{stderr}"
    );
    assert!(stderr.contains("--max-download"), "{stderr}");
}

#[test]
fn verify_stops_reading_an_unannounced_body_at_the_size_limit() {
    // No content-length: the body runs until the server closes, which it never does.
    let base = raw_server(|stream| {
        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n");
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..16 * 1024 {
            if stream.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let output = capkg()
        .args(["verify", &gitlab_file_url(&base), "--max-download", "1MiB"])
        .env("CAPKG_HTTP_TIMEOUT", "60s")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{}", text(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("more than 1048576 bytes"), "{stderr}");
}

/// Base64 with padding, for the test's hostile server.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for group in bytes.chunks(3) {
        let b = [
            group[0],
            *group.get(1).unwrap_or(&0),
            *group.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= group.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn a_server_echoing_the_token_encoded_gets_it_redacted_from_errors_and_json() {
    let token = "ghp_S3cr3t/T0ken+With=Signs";
    let percent = "ghp_S3cr3t%2FT0ken%2BWith%3DSigns";
    let encodings = [
        token.to_string(),
        percent.to_string(),
        "ghp_S3cr3t%2fT0ken%2bWith%3dSigns".to_string(),
        base64(format!("Bearer {token}").as_bytes()),
        base64(format!("x-access-token:{token}").as_bytes()),
        base64(format!("oauth2:{token}").as_bytes()),
        base64(format!("user:{token}").as_bytes()),
    ];
    let hostile = Recorder::start(Reply::json(
        422,
        json!({"message": format!("cannot accept {}", encodings.join(" and "))}),
    ));
    let (_root, dir) = release_dir();
    for format in ["human", "json"] {
        let output = capkg()
            .args(["--format", format, "publish", "github"])
            .arg(&dir)
            .args([
                "--version",
                "v1.2.3",
                "--repo",
                "o/r",
                "--api-url",
                &hostile.base,
            ])
            .env("GITHUB_TOKEN", token)
            .output()
            .unwrap();
        let all = text(&output);
        assert_eq!(output.status.code(), Some(1), "{all}");
        assert!(all.contains("cannot accept"), "the message is shown: {all}");
        for encoded in &encodings {
            assert!(!all.contains(encoded.as_str()), "`{encoded}` leaked: {all}");
        }
        assert!(all.contains("[redacted]"), "{all}");
    }
}

#[test]
fn an_escaped_project_path_is_escaped_once() {
    let fake = FakeGitLab::start();
    let (_root, dir) = release_dir();
    let output = capkg()
        .args(["--format", "json", "publish", "gitlab"])
        .arg(&dir)
        .args([
            "--version",
            "v1.2.3",
            "--project",
            gitlab::PROJECT_PATH,
            "--api-url",
            &fake.api,
        ])
        .env("GITLAB_TOKEN", gitlab::TOKEN)
        .output()
        .unwrap();
    let paths: Vec<String> = fake.requests().iter().map(|r| r.path.clone()).collect();
    let wanted = format!("/api/v4/projects/{}/", gitlab::PROJECT_PATH);
    assert!(!paths.is_empty(), "{}", text(&output));
    for path in &paths {
        assert!(path.starts_with(&wanted), "{path}");
    }
    assert_eq!(output.status.code(), Some(0), "{}", text(&output));
}
