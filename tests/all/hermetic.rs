//! No test reaches a real host. `scripts/test.sh` (README's test command, and so `.ci/run`) runs
//! the suite with every proxy variable pointing at a closed port on loopback and `NO_PROXY`
//! limited to loopback: a request for any other host that a test forgot to serve from a fake
//! fails there, instead of passing only where there is no network. (Unit tests also panic on such
//! a request: `src/forge/http.rs`.) These tests check that the guard is in force, and that capkg
//! does send a remote host to the proxy, by name, rather than resolving it itself.

use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::publish_fakes::capkg;
use crate::publish_fakes::server::{self, Handler, Incoming, Reply};

/// The variables curl, git, Go (skopeo) and reqwest (capkg) read.
const PROXY_VARIABLES: [&str; 6] = [
    "HTTPS_PROXY",
    "https_proxy",
    "HTTP_PROXY",
    "http_proxy",
    "ALL_PROXY",
    "all_proxy",
];
const NO_PROXY_VARIABLES: [&str; 2] = ["NO_PROXY", "no_proxy"];
const LOOPBACK_NAMES: [&str; 4] = ["localhost", "127.0.0.1", "::1", "[::1]"];

/// A host that exists nowhere (`.invalid`, RFC 2606): capkg can only reach it through a proxy.
const NOWHERE: &str = "api.capkg-hermetic.invalid";

fn guard_missing(what: &str) -> String {
    format!(
        "{what}: run the tests with scripts/test.sh (README's test command), which points the proxy \
         variables at a closed port on loopback so that no test can reach a real host"
    )
}

#[test]
fn the_suite_runs_behind_a_closed_proxy_on_loopback() {
    for name in PROXY_VARIABLES {
        let value = std::env::var(name).unwrap_or_else(|_| panic!("{}", guard_missing(name)));
        let authority = value
            .strip_prefix("http://")
            .map(|rest| rest.trim_end_matches('/'))
            .unwrap_or_else(|| panic!("{}", guard_missing(&format!("{name}={value}"))));
        let (host, port) = authority
            .rsplit_once(':')
            .unwrap_or_else(|| panic!("{}", guard_missing(&format!("{name}={value}"))));
        assert!(
            LOOPBACK_NAMES.contains(&host) && port.parse::<u16>().is_ok(),
            "{}",
            guard_missing(&format!("{name}={value} is not a port on loopback"))
        );
        let address = format!(
            "{}:{port}",
            if host == "localhost" {
                "127.0.0.1"
            } else {
                host
            }
        );
        let refused = TcpStream::connect_timeout(
            &address.parse().expect("a loopback socket address"),
            Duration::from_secs(5),
        );
        assert!(
            refused.is_err(),
            "{name}={value}: something listens there, so it is no closed port; point the proxy \
             variables at a port nothing listens on"
        );
    }
    for name in NO_PROXY_VARIABLES {
        let value = std::env::var(name).unwrap_or_else(|_| panic!("{}", guard_missing(name)));
        for entry in value.split(',').map(str::trim) {
            assert!(
                LOOPBACK_NAMES.contains(&entry),
                "{name}={value}: `{entry}` would let a test reach a host beyond loopback"
            );
        }
    }
}

/// A proxy on loopback that records each request's first line and refuses to connect anywhere.
struct RecordingProxy {
    seen: Arc<Mutex<Vec<String>>>,
}

impl Handler for RecordingProxy {
    fn handle(&self, request: &Incoming) -> Reply {
        self.seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(format!("{} {}", request.method, request.path));
        Reply::empty(502)
    }
}

fn verify_on_nowhere() -> std::process::Command {
    let mut command = capkg();
    command
        .args([
            "verify",
            "https://github.com/o/r/releases/v1.2.3/infrastructure-components.yaml",
        ])
        .env("GITHUB_API_URL", format!("https://{NOWHERE}"));
    command
}

#[test]
fn capkg_sends_a_remote_host_to_the_proxy_by_name() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let proxy = server::start(
        "proxy",
        Arc::new(RecordingProxy { seen: seen.clone() }),
        Duration::ZERO,
    );
    let mut command = verify_on_nowhere();
    for name in PROXY_VARIABLES {
        command.env(name, &proxy.base);
    }
    let output = command.output().unwrap();
    assert_ne!(output.status.code(), Some(0));
    // The name went to the proxy unresolved: `.invalid` has no address to connect to directly.
    let seen = seen.lock().unwrap_or_else(|p| p.into_inner()).clone();
    assert!(
        seen.iter()
            .any(|line| line == &format!("CONNECT {NOWHERE}:443")),
        "{seen:?}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_request_for_a_remote_host_fails_under_the_guard() {
    // The environment scripts/test.sh gives: the closed proxy. The request fails with a
    // connection error at the proxy, not with a lookup of the name or an answer from the network.
    let output = verify_on_nowhere().output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(NOWHERE), "{stderr}");
    assert!(
        !stderr.contains("dns error") && !stderr.contains("failed to lookup"),
        "capkg looked the name up itself: {stderr}"
    );
}
