//! The HTTP side (tiny_http): 127.0.0.1 only, every request judged by [`Gate`] first, then the
//! build's files or the feed.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use tiny_http::{Header, Request, Response, StatusCode};

use crate::feed::Feed;
use crate::files::Dist;
use crate::gate::{new_token, Gate, Verdict};

/// At most this many pages follow the feed at once (each holds a thread).
pub const MAX_STREAMS: usize = 16;

pub struct Running {
    pub port: u16,
    pub token: String,
    server: Arc<tiny_http::Server>,
    thread: Option<JoinHandle<()>>,
}

impl Running {
    /// The address to open (it carries the token: the terminal is the only place it is shown).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}#live=1", self.port, self.token)
    }

    /// Stop accepting; streams end when the feed is closed.
    pub fn stop(mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Serve `dist` and `feed` on 127.0.0.1:`port` (0: any free port).
pub fn serve(dist: Dist, feed: Arc<Feed>, port: u16) -> std::io::Result<Running> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let server = Arc::new(tiny_http::Server::http(addr).map_err(std::io::Error::other)?);
    let port = server.server_addr().to_ip().map(|a| a.port()).ok_or_else(|| std::io::Error::other("no port"))?;
    let gate = Arc::new(Gate { port, token: new_token()? });
    let token = gate.token.clone();
    let dist = Arc::new(dist);
    let streams = Arc::new(AtomicUsize::new(0));
    let s = server.clone();
    let thread = std::thread::spawn(move || {
        for req in s.incoming_requests() {
            let (gate, dist, feed, streams) = (gate.clone(), dist.clone(), feed.clone(), streams.clone());
            std::thread::spawn(move || handle(req, &gate, &dist, &feed, &streams));
        }
    });
    Ok(Running { port, token, server, thread: Some(thread) })
}

fn header<'a>(req: &'a Request, name: &'static str) -> Option<&'a str> {
    req.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str())
}

fn h(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("a valid header")
}

/// Headers on every answer: no caching, no sniffing, no referrer (a URL may carry the token).
fn common() -> Vec<Header> {
    vec![
        h("Cache-Control", "no-store"),
        h("X-Content-Type-Options", "nosniff"),
        h("Referrer-Policy", "no-referrer"),
        h("X-Frame-Options", "DENY"),
        h("Cross-Origin-Resource-Policy", "same-origin"),
    ]
}

fn plain(req: Request, code: u16, text: &str) {
    let mut r = Response::from_string(format!("{text}\n")).with_status_code(StatusCode(code));
    for x in common() {
        r.add_header(x);
    }
    r.add_header(h("Content-Type", "text/plain; charset=utf-8"));
    let _ = req.respond(r);
}

fn handle(req: Request, gate: &Gate, dist: &Dist, feed: &Arc<Feed>, streams: &AtomicUsize) {
    let method = req.method().as_str().to_string();
    let verdict = gate.judge(&method, req.url(), header(&req, "Host"), header(&req, "Origin"), header(&req, "Cookie"));
    match verdict {
        Verdict::Refuse(code, why) => plain(req, code, why),
        Verdict::Admit { location } => {
            let mut r = Response::empty(StatusCode(303));
            for x in common() {
                r.add_header(x);
            }
            r.add_header(h("Set-Cookie", &gate.set_cookie()));
            r.add_header(h("Location", &location));
            let _ = req.respond(r);
        }
        Verdict::Serve { path, head } if path == "/feed" => {
            if streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
                streams.fetch_sub(1, Ordering::SeqCst);
                return plain(req, 503, "too many pages follow the feed");
            }
            let mut hs = common();
            hs.push(h("Content-Type", "text/event-stream"));
            if head {
                let _ = req.respond(Response::new(StatusCode(200), hs, std::io::empty(), Some(0), None));
            } else {
                let _ = req.respond(Response::new(StatusCode(200), hs, feed.reader(), None, None));
            }
            streams.fetch_sub(1, Ordering::SeqCst);
        }
        Verdict::Serve { path, head } => {
            let Some(found) = dist.find(&path, header(&req, "Accept-Encoding")) else {
                return plain(req, 404, "not a file of the page's build");
            };
            let Ok(file) = std::fs::File::open(&found.path) else {
                return plain(req, 404, "not a file of the page's build");
            };
            let len = file.metadata().map(|m| m.len() as usize).ok();
            let mut hs = common();
            hs.push(h("Content-Type", found.mime));
            hs.push(h("Vary", "Accept-Encoding"));
            if let Some(e) = found.encoding {
                hs.push(h("Content-Encoding", e));
            }
            if head {
                let _ = req.respond(Response::new(StatusCode(200), hs, std::io::empty(), len, None));
            } else {
                let _ = req.respond(Response::new(StatusCode(200), hs, file, len, None));
            }
        }
    }
}
