//! The HTTP side (axum, on a tokio runtime of its own): 127.0.0.1 only, every request judged by
//! [`Gate`] first, then the build's files or the feed.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderName, Response, StatusCode};
use axum::Router;
use tokio::sync::{mpsc, oneshot, Notify};

use crate::feed::Feed;
use crate::files::Dist;
use crate::gate::{new_token, Gate, Verdict};

/// At most this many pages follow the feed at once (each holds a thread while it waits).
pub const MAX_STREAMS: usize = 16;

/// How long a stop waits for open connections to end before it drops them.
const STOP_GRACE: Duration = Duration::from_secs(2);

pub struct Running {
    pub port: u16,
    pub token: String,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Running {
    /// The address to open (it carries the token: the terminal is the only place it is shown).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/?token={}#live=1", self.port, self.token)
    }

    /// Stop accepting, and end the connections (the feed's streams end when it is closed; those
    /// still open after a moment are dropped).
    pub fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Ctx {
    gate: Gate,
    dist: Dist,
    feed: Arc<Feed>,
    streams: AtomicUsize,
}

/// Serve `dist` and `feed` on 127.0.0.1:`port` (0: any free port).
pub fn serve(dist: Dist, feed: Arc<Feed>, port: u16) -> std::io::Result<Running> {
    let listener = std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port)))?;
    listener.set_nonblocking(true)?;
    let port = listener.local_addr()?.port();
    let gate = Gate { port, token: new_token()? };
    let token = gate.token.clone();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("vmap-live-http")
        .enable_io()
        .enable_time()
        .build()?;
    let listener = {
        let _in = rt.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    let ctx = Arc::new(Ctx { gate, dist, feed, streams: AtomicUsize::new(0) });
    let app = Router::new().fallback(handle).with_state(ctx);
    let (stop, stopped) = oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        rt.block_on(async move {
            let stopping = Arc::new(Notify::new());
            let s = stopping.clone();
            let serving = axum::serve(listener, app).with_graceful_shutdown(async move { s.notified().await });
            tokio::select! {
                _ = serving => {}
                _ = async {
                    // Dropped without a stop: serve on.
                    if stopped.await.is_err() {
                        std::future::pending::<()>().await;
                    }
                    stopping.notify_one();
                    tokio::time::sleep(STOP_GRACE).await;
                } => {}
            }
        });
        // A feed's stream that still waits ends with its next event or keepalive.
        rt.shutdown_background();
    });
    Ok(Running { port, token, stop: Some(stop), thread: Some(thread) })
}

/// Headers on every answer: no caching, no sniffing, no referrer (a URL may carry the token).
const COMMON: [(&str, &str); 5] = [
    ("Cache-Control", "no-store"),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Frame-Options", "DENY"),
    ("Cross-Origin-Resource-Policy", "same-origin"),
];

fn answer(code: u16, headers: &[(&str, &str)], body: Body) -> Response<Body> {
    let mut r = Response::builder().status(StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
    for (k, v) in COMMON.iter().chain(headers) {
        r = r.header(*k, *v);
    }
    r.body(body).unwrap_or_else(|_| Response::new(Body::empty()))
}

fn plain(code: u16, text: &str) -> Response<Body> {
    answer(code, &[("Content-Type", "text/plain; charset=utf-8")], Body::from(format!("{text}\n")))
}

async fn handle(State(ctx): State<Arc<Ctx>>, req: Request) -> Response<Body> {
    // The head only (the body of a GET is empty; axum's body is not shared across threads).
    let (req, _) = req.into_parts();
    let get = |n: HeaderName| req.headers.get(n).and_then(|v| v.to_str().ok());
    let url = req.uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    let verdict = ctx.gate.judge(req.method.as_str(), url, get(header::HOST), get(header::ORIGIN), get(header::COOKIE));
    match verdict {
        Verdict::Refuse(code, why) => plain(code, why),
        Verdict::Admit { location } => {
            answer(303, &[("Set-Cookie", &ctx.gate.set_cookie()), ("Location", &location)], Body::empty())
        }
        Verdict::Serve { path, head } if path == "/feed" => {
            let sse = [("Content-Type", "text/event-stream")];
            if head {
                return answer(200, &sse, Body::empty());
            }
            if ctx.streams.fetch_add(1, Ordering::SeqCst) >= MAX_STREAMS {
                ctx.streams.fetch_sub(1, Ordering::SeqCst);
                return plain(503, "too many pages follow the feed");
            }
            // The feed's reader blocks until there is something new: on a thread of its own,
            // each batch of events one chunk of the stream; it ends when the page has gone.
            let (tx, rx) = mpsc::channel::<Vec<u8>>(4);
            let mut reader = ctx.feed.reader();
            let c = ctx.clone();
            tokio::task::spawn_blocking(move || {
                while let Some(batch) = reader.next_batch() {
                    if tx.blocking_send(batch).is_err() {
                        break;
                    }
                }
                c.streams.fetch_sub(1, Ordering::SeqCst);
            });
            let events = futures_util::stream::unfold(rx, |mut rx| async move {
                rx.recv().await.map(|b| (Ok::<_, Infallible>(b), rx))
            });
            answer(200, &sse, Body::from_stream(events))
        }
        Verdict::Serve { path, head } => {
            let Some(found) = ctx.dist.find(&path, get(header::ACCEPT_ENCODING)) else {
                return plain(404, "not a file of the page's build");
            };
            let file = found.path.clone();
            let Ok(Ok(bytes)) = tokio::task::spawn_blocking(move || std::fs::read(file)).await else {
                return plain(404, "not a file of the page's build");
            };
            let len = bytes.len().to_string();
            let mut hs = vec![("Content-Type", found.mime), ("Vary", "Accept-Encoding"), ("Content-Length", &len)];
            if let Some(e) = found.encoding {
                hs.push(("Content-Encoding", e));
            }
            answer(200, &hs, if head { Body::empty() } else { Body::from(bytes) })
        }
    }
}
