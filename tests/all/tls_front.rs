//! A TLS front for tests where HTTPS matters, that is where a host must not be loopback
//! (`https://evil.example`, `https://gitlab.other.example`): a test CA made at test time, and an
//! HTTP `CONNECT` proxy on 127.0.0.1 that terminates TLS for any host name with a certificate
//! from that CA and forwards the bytes inside to the loopback server the test routes that host
//! to (a fake forge, a registry; they see the host's name in `Host:`).
//!
//! capkg reaches the front as it reaches any host that is not loopback: through `HTTPS_PROXY`,
//! trusting the CA through `SSL_CERT_FILE`, which reqwest's platform verifier reads on Linux
//! (rustls-native-certs: the file replaces the system's roots). [`TlsFront::apply`] sets both
//! on a command and clears every other proxy variable.
//!
//! The front records every `CONNECT` and, per host, every byte the client sent inside TLS, so a
//! test can assert that a secret never reached a host, in any of the forms it travels in
//! ([`TlsFront::reached`]). A host not routed gets `502` and its name is still recorded.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};

use rcgen::{
    BasicConstraints, CertificateParams, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::rustls;

/// The CA and the proxy, stopped with the test process.
pub(crate) struct TlsFront {
    /// `http://127.0.0.1:PORT`.
    pub proxy: String,
    /// The CA certificate (PEM), for `SSL_CERT_FILE`.
    pub ca_file: PathBuf,
    _dir: tempfile::TempDir,
    shared: Arc<Shared>,
}

struct Shared {
    issuer: Issuer<'static, KeyPair>,
    /// Host name -> `127.0.0.1:PORT`.
    routes: Mutex<HashMap<String, String>>,
    /// Every `CONNECT` target (`host:port`), in order.
    connects: Mutex<Vec<String>>,
    /// Host name -> every byte clients sent to it inside TLS.
    sent: Mutex<HashMap<String, Vec<u8>>>,
}

impl TlsFront {
    pub(crate) fn start() -> Self {
        let ca_key = KeyPair::generate().expect("CA key");
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "capkg test CA");
        let ca = params.self_signed(&ca_key).expect("CA certificate");
        let dir = tempfile::tempdir().unwrap();
        let ca_file = dir.path().join("ca.pem");
        std::fs::write(&ca_file, ca.pem()).unwrap();
        let shared = Arc::new(Shared {
            issuer: Issuer::new(params, ca_key),
            routes: Mutex::new(HashMap::new()),
            connects: Mutex::new(Vec::new()),
            sent: Mutex::new(HashMap::new()),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let serving = shared.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
                while let Ok((stream, _)) = listener.accept().await {
                    tokio::spawn(tunnel(stream, serving.clone()));
                }
            });
        });
        Self {
            proxy: format!("http://127.0.0.1:{port}"),
            ca_file,
            _dir: dir,
            shared,
        }
    }

    /// Sends `host`'s connections to `backend` (`http://127.0.0.1:PORT`, a fake's base).
    pub(crate) fn route(&self, host: &str, backend: &str) {
        let address = backend
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .split('/')
            .next()
            .unwrap_or_default()
            .to_string();
        lock(&self.shared.routes).insert(host.to_ascii_lowercase(), address);
    }

    /// Points `command` at the front: `HTTPS_PROXY` (both spellings), `SSL_CERT_FILE`, and no
    /// other proxy or exemption from the environment running the tests.
    pub(crate) fn apply<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        for name in [
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
            "NO_PROXY",
            "no_proxy",
            "SSL_CERT_DIR",
        ] {
            command.env_remove(name);
        }
        command
            .env("HTTPS_PROXY", &self.proxy)
            .env("https_proxy", &self.proxy)
            .env("SSL_CERT_FILE", &self.ca_file)
    }

    /// Every `CONNECT` target so far (`host:port`).
    pub(crate) fn connects(&self) -> Vec<String> {
        lock(&self.shared.connects).clone()
    }

    /// Every byte clients sent to `host` inside TLS, as text (requests are text up to bodies).
    pub(crate) fn sent_to(&self, host: &str) -> String {
        lock(&self.shared.sent)
            .get(&host.to_ascii_lowercase())
            .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
            .unwrap_or_default()
    }

    /// Whether `secret` reached `host` as it is, or inside the base64 of `Basic` credentials
    /// (`user:secret`) for any of `users`.
    pub(crate) fn reached(&self, host: &str, secret: &str, users: &[&str]) -> bool {
        let sent = self.sent_to(host);
        sent.contains(secret)
            || users
                .iter()
                .any(|user| sent.contains(&base64(format!("{user}:{secret}").as_bytes())))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// One client: `CONNECT host:port`, then TLS as `host`, then bytes both ways to its route.
async fn tunnel(mut client: tokio::net::TcpStream, shared: Arc<Shared>) {
    let Some(target) = read_connect(&mut client).await else {
        return;
    };
    lock(&shared.connects).push(target.clone());
    let host = target
        .rsplit_once(':')
        .map_or(target.as_str(), |(host, _)| host)
        .to_ascii_lowercase();
    let route = lock(&shared.routes).get(&host).cloned();
    let Some(route) = route else {
        let _ = client
            .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
            .await;
        return;
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        .await
        .is_err()
    {
        return;
    }
    let Ok(acceptor) = acceptor_for(&host, &shared.issuer) else {
        return;
    };
    let Ok(tls) = acceptor.accept(client).await else {
        return;
    };
    let Ok(backend) = tokio::net::TcpStream::connect(&route).await else {
        return;
    };
    let (mut from_client, mut to_client) = tokio::io::split(tls);
    let (mut from_backend, mut to_backend) = backend.into_split();
    let upstream = async {
        let mut buffer = vec![0u8; 16 * 1024];
        loop {
            let n = match from_client.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            lock(&shared.sent)
                .entry(host.clone())
                .or_default()
                .extend_from_slice(&buffer[..n]);
            if to_backend.write_all(&buffer[..n]).await.is_err() {
                break;
            }
        }
        let _ = to_backend.shutdown().await;
    };
    let downstream = async {
        let _ = tokio::io::copy(&mut from_backend, &mut to_client).await;
        let _ = to_client.shutdown().await;
    };
    tokio::join!(upstream, downstream);
}

/// The `host:port` of a `CONNECT` request, its head read to the blank line (the client sends
/// nothing more before the answer).
async fn read_connect(client: &mut tokio::net::TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 16 * 1024 || client.read(&mut byte).await.ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head);
    let mut words = text.split_whitespace();
    (words.next()? == "CONNECT").then(|| words.next().map(str::to_string))?
}

/// A TLS acceptor presenting a certificate for `host` signed by the test CA.
fn acceptor_for(
    host: &str,
    issuer: &Issuer<'static, KeyPair>,
) -> Result<tokio_rustls::TlsAcceptor, Box<dyn std::error::Error>> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(vec![host.to_string()])?;
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let certificate = params.signed_by(&key, issuer)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(
            vec![certificate.der().clone()],
            rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )?;
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// Standard base64 with padding, as `Basic` credentials are written.
pub(crate) fn base64(bytes: &[u8]) -> String {
    base64::Engine::encode(&base64::engine::general_purpose::STANDARD, bytes)
}
