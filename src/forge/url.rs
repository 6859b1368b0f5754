//! URL facts shared by publish, release and verify, each decided here once: the `file://` URL of
//! a local path (clusterctl's spelling, Windows included), whether a host is the loopback
//! interface (the one place plain http is allowed), and a reference as it may be shown.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use reqwest::Url;

/// `file:///abs/path`, as clusterctl's `providers:` entries spell local URLs: without `.` or
/// `..` components (a `repository: ../repo` would otherwise print `/work/x/../repo`).
pub(crate) fn file_url(path: &Path) -> String {
    let text = lexically_normal(path).display().to_string();
    if text.starts_with('/') {
        format!("file://{text}")
    } else {
        // Windows: `file:///C:/...`, with forward slashes.
        format!("file:///{}", text.replace('\\', "/"))
    }
}

/// `path` with `.` dropped and each `..` taking away the component before it, without asking
/// the file system (a `..` after a symbolic link means the same to clusterctl's `file://` reader,
/// which does the same cleaning with Go's `filepath.Clean`).
pub(crate) fn lexically_normal(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let last = out.components().next_back();
                match last {
                    Some(Component::Normal(_)) => {
                        out.pop();
                    }
                    Some(Component::RootDir | Component::Prefix(_)) => {}
                    _ => out.push(".."),
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// Why `path` (a forge name: `OWNER/NAME`, a GitLab project path or id, a package name, one
/// `/`-separated part or several) cannot go into an API URL: an empty part, or `.` or `..`
/// (also percent-encoded: URL parsers resolve `%2e%2e` too), which would turn the request, with
/// its token, to another path of the same host. `None`: every part is a name.
pub(crate) fn dot_or_empty_part(path: &str) -> Option<&'static str> {
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8_lossy();
    decoded.split('/').find_map(|part| match part {
        "" => Some("it has an empty part"),
        "." | ".." => Some("`.` and `..` are not names"),
        _ => None,
    })
}

/// `text`, a URL or reference the user gave (a SOURCE, `--previous`, `previous:`), as capkg
/// shows it: any user name and password replaced by `[redacted]`
/// ([`redact_userinfo_text`]), also inside the `oci://` of a plain-http registry
/// (`oci://http://USER:PASSWORD@HOST/…`), where the URL is the part after `oci://`.
pub(crate) fn redact_userinfo(text: &str) -> String {
    match text.trim_start().strip_prefix("oci://") {
        Some(inner) if inner.contains("://") => {
            format!("oci://{}", redact_userinfo_text(inner))
        }
        _ => redact_userinfo_text(text),
    }
}

/// `localhost` or a loopback IP address (`127.0.0.0/8`, `::1`, with or without brackets).
pub(crate) fn is_loopback_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    match bare.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => bare.eq_ignore_ascii_case("localhost"),
    }
}

/// A loopback, private (RFC 1918, unique local `fc00::/7`, shared `100.64.0.0/10`), link-local or
/// unspecified address, or `localhost`: an address of this machine or its local network.
pub(crate) fn is_local_network_host(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let v4 = |ip: std::net::Ipv4Addr| {
        let [a, b, ..] = ip.octets();
        ip.is_loopback()
            || ip.is_private()
            || ip.is_link_local()
            || ip.is_unspecified()
            || (a == 100 && (64..128).contains(&b))
    };
    match bare.parse::<IpAddr>() {
        Ok(IpAddr::V4(ip)) => v4(ip),
        Ok(IpAddr::V6(ip)) => {
            let first = ip.segments()[0];
            ip.is_loopback()
                || ip.is_unspecified()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || ip.to_ipv4_mapped().is_some_and(v4)
        }
        Err(_) => is_loopback_host(bare),
    }
}

/// `text` with the user name and password of a URL replaced by `[redacted]`. A password may
/// hold a raw `@` (or `/`, `?`, `#`, which end the authority), so everything up to the last `@`
/// goes unless the text parses as a URL without credentials.
pub(crate) fn redact_userinfo_text(text: &str) -> String {
    if Url::parse(text).is_ok_and(|url| url.username().is_empty() && url.password().is_none()) {
        return text.to_string();
    }
    match (text.find("://"), text.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            format!("{}://[redacted]@{}", &text[..scheme_end], &text[at + 1..])
        }
        _ => text.to_string(),
    }
}

/// Same scheme, host and port.
pub(crate) fn same_origin(a: &Url, b: &Url) -> bool {
    a.scheme() == b.scheme()
        && a.host_str() == b.host_str()
        && a.port_or_known_default() == b.port_or_known_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(windows, ignore = "Windows gap: file:// URLs of local repositories")]
    fn file_urls_have_no_dot_components() {
        assert_eq!(
            file_url(Path::new(
                "/work/x/../repo/./infrastructure-a/v1.0.0/c.yaml"
            )),
            "file:///work/repo/infrastructure-a/v1.0.0/c.yaml"
        );
        assert_eq!(lexically_normal(Path::new("/../a")), PathBuf::from("/a"));
        assert_eq!(
            lexically_normal(Path::new("../a/b/..")),
            PathBuf::from("../a")
        );
    }

    #[test]
    fn references_are_shown_without_their_login() {
        for (given, shown) in [
            (
                "oci://user:pass@host/repo:tag",
                "oci://[redacted]@host/repo:tag",
            ),
            (
                "oci://http://user:pa@ss@127.0.0.1:5000/r:v1",
                "oci://http://[redacted]@127.0.0.1:5000/r:v1",
            ),
            (
                "https://token@github.com/o/r/releases/v1/c.yaml",
                "https://[redacted]@github.com/o/r/releases/v1/c.yaml",
            ),
            (
                "file://u:p@localhost/r/c.yaml",
                "file://[redacted]@localhost/r/c.yaml",
            ),
        ] {
            assert_eq!(redact_userinfo(given), shown, "{given}");
        }
        for plain in [
            "oci://ghcr.io/o/r@sha256:0123",
            "oci://http://127.0.0.1:5000/o/r:v1",
            "https://github.com/o/r/releases/v1/c.yaml",
            "/repo/infrastructure-a/v1.0.0/c.yaml",
            "v1.2.3",
        ] {
            assert_eq!(redact_userinfo(plain), plain);
        }
    }

    #[test]
    fn forge_names_have_no_dot_or_empty_parts() {
        for ok in ["o/r", "group/sub/p", "42", "a.b", "..x", "v1.2.3"] {
            assert_eq!(dot_or_empty_part(ok), None, "{ok}");
        }
        for bad in [
            "o/..", "../x", "..", ".", "o/", "/r", "a//b", "g%2F..", "%2e%2E", "o/./r",
        ] {
            assert!(dot_or_empty_part(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn loopback_hosts() {
        for host in [
            "localhost",
            "LOCALHOST",
            "127.0.0.1",
            "127.1.2.3",
            "[::1]",
            "::1",
        ] {
            assert!(is_loopback_host(host), "{host}");
        }
        for host in ["example.com", "10.0.0.1", "[::2]", "localhost.example.com"] {
            assert!(!is_loopback_host(host), "{host}");
        }
    }

    #[test]
    fn local_network_hosts() {
        for host in [
            "localhost",
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "[::1]",
            "[fd00::1]",
            "[fe80::1]",
            "[::ffff:10.0.0.1]",
        ] {
            assert!(is_local_network_host(host), "{host}");
        }
        for host in [
            "example.com",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "[2001:db8::1]",
            "[::ffff:8.8.8.8]",
        ] {
            assert!(!is_local_network_host(host), "{host}");
        }
    }
}
