//! A small HTTP/1.1 server on 127.0.0.1 for fakes of GitHub and GitLab: keep-alive, a fixed
//! latency per request, a log of every request, and the one thing wiremock cannot do, cutting a
//! connection in the middle of a request body.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// A request as the fake saw it.
#[derive(Debug, Clone)]
pub(crate) struct Incoming {
    /// Which of a fake's servers got it (`api`, `uploads`, `objects`).
    pub server: &'static str,
    pub method: String,
    /// The raw path, percent-escapes kept.
    pub path: String,
    pub query: String,
    /// Names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Incoming {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn query_param(&self, name: &str) -> Option<String> {
        self.query.split('&').find_map(|pair| {
            let (k, v) = pair.split_once('=')?;
            (k == name).then(|| percent_decode(v))
        })
    }

    pub(crate) fn is(&self, method: &str, path_contains: &str) -> bool {
        self.method == method && self.path.contains(path_contains)
    }
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(b) => {
                        out.push(b);
                        i += 3;
                    }
                    Err(_) => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// An answer.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub(crate) fn json(status: u16, value: serde_json::Value) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: value.to_string().into_bytes(),
        }
    }

    pub(crate) fn bytes(status: u16, body: Vec<u8>) -> Self {
        Self {
            status,
            headers: vec![("content-type".into(), "application/octet-stream".into())],
            body,
        }
    }

    pub(crate) fn empty(status: u16) -> Self {
        Self {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }
}

/// What to do with a request once its head is read.
pub(crate) enum Decision {
    Proceed,
    /// Read this many body bytes, then drop the connection without answering.
    CutAfter(usize),
}

pub(crate) trait Handler: Send + Sync + 'static {
    fn before_body(&self, _head: &Incoming) -> Decision {
        Decision::Proceed
    }
    fn on_cut(&self, _head: &Incoming, _partial: &[u8]) {}
    fn handle(&self, request: &Incoming) -> Reply;
}

/// A running server.
pub(crate) struct Server {
    pub base: String,
}

pub(crate) fn start(name: &'static str, handler: Arc<dyn Handler>, latency: Duration) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local address").port();
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let handler = handler.clone();
            thread::spawn(move || {
                let _ = serve(stream, name, handler.as_ref(), latency);
            });
        }
    });
    Server {
        base: format!("http://127.0.0.1:{port}"),
    }
}

fn serve(
    stream: TcpStream,
    name: &'static str,
    handler: &dyn Handler,
    latency: Duration,
) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let line = line.trim_end();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split(' ');
        let method = parts.next().unwrap_or_default().to_string();
        let target = parts.next().unwrap_or_default().to_string();
        let mut headers = Vec::new();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 {
                return Ok(());
            }
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some((k, v)) = header.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let length: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p.to_string(), q.to_string()),
            None => (target.clone(), String::new()),
        };
        let mut request = Incoming {
            server: name,
            method,
            path,
            query,
            headers,
            body: Vec::new(),
        };
        if let Decision::CutAfter(n) = handler.before_body(&request) {
            let mut partial = vec![0; n.min(length)];
            reader.read_exact(&mut partial)?;
            handler.on_cut(&request, &partial);
            let _ = writer.shutdown(Shutdown::Both);
            return Ok(());
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        request.body = body;
        if !latency.is_zero() {
            thread::sleep(latency);
        }
        let reply = handler.handle(&request);
        let mut head = format!(
            "HTTP/1.1 {} Fake\r\ncontent-length: {}\r\n",
            reply.status,
            reply.body.len()
        );
        for (k, v) in &reply.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        // One write, so Nagle's algorithm and delayed ACKs do not hold the body back.
        let mut message = head.into_bytes();
        message.extend_from_slice(&reply.body);
        writer.write_all(&message)?;
        writer.flush()?;
    }
}
