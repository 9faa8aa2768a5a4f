//! The server over a real socket: what it refuses and what it serves.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use vmapviz_live::feed::Feed;
use vmapviz_live::files::Dist;
use vmapviz_live::server::{serve, Running};

/// A build of three files, a sub-folder, and a link that points outside it.
fn dist() -> (PathBuf, PathBuf) {
    let base =
        std::env::temp_dir().join(format!("vmap-live-sec-{}-{:?}", std::process::id(), std::thread::current().id()));
    let _ = std::fs::remove_dir_all(&base);
    let d = base.join("dist");
    std::fs::create_dir_all(d.join("assets")).unwrap();
    std::fs::write(d.join("index.html"), "<!doctype html><title>the page</title>").unwrap();
    std::fs::write(d.join("assets/a.js"), "console.log('plain')").unwrap();
    std::fs::write(d.join("assets/a.js.gz"), "GZ-BYTES").unwrap();
    std::fs::write(d.join("assets/m.wasm"), "\0asm").unwrap();
    std::fs::write(base.join("secret.txt"), "SECRET OUTSIDE THE BUILD").unwrap();
    std::os::unix::fs::symlink(base.join("secret.txt"), d.join("assets/link.txt")).unwrap();
    std::os::unix::fs::symlink(&base, d.join("up")).unwrap();
    (base, d)
}

struct Reply {
    status: u16,
    head: String,
    body: String,
}

fn send(port: u16, raw: &str) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(raw.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let _ = s.read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    Reply { status, head: head.to_string(), body: body.to_string() }
}

fn get(r: &Running, path: &str, extra: &str) -> Reply {
    send(r.port, &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n{extra}\r\n", r.port))
}

fn cookie(r: &Running) -> String {
    format!("Cookie: vmap_live_{}={}\r\n", r.port, r.token)
}

fn start() -> (Running, PathBuf) {
    let (base, d) = dist();
    (serve(Dist::new(&d).unwrap(), Feed::new(), 0).unwrap(), base)
}

#[test]
fn the_token_admits_once_then_the_cookie() {
    let (r, _) = start();
    assert_eq!(r.token.len(), 32);
    assert!(r.url().starts_with(&format!("http://127.0.0.1:{}/?token={}", r.port, r.token)));
    let a = get(&r, &format!("/?token={}", r.token), "");
    assert_eq!(a.status, 303, "{}", a.head);
    let h = a.head.to_ascii_lowercase();
    assert!(
        h.contains(&format!("set-cookie: vmap_live_{}={}; path=/; httponly; samesite=strict", r.port, r.token)),
        "{h}"
    );
    assert!(h.contains("location: /\r\n") || h.ends_with("location: /"), "{h}");
    let ok = get(&r, "/", &cookie(&r));
    assert_eq!(ok.status, 200);
    assert!(ok.body.contains("the page"));
    assert!(ok.head.to_ascii_lowercase().contains("content-type: text/html"));
    let ok = send(
        r.port,
        &format!("GET / HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\n{}\r\n", r.port, cookie(&r)),
    );
    assert_eq!(ok.status, 200);
    r.stop();
}

#[test]
fn no_token_or_a_wrong_one_is_refused() {
    let (r, _) = start();
    for (path, extra) in [
        ("/", String::new()),
        ("/assets/a.js", String::new()),
        ("/feed", String::new()),
        ("/?token=00000000000000000000000000000000", String::new()),
        ("/?token=", String::new()),
        (&format!("/?token={}0", r.token) as &str, String::new()),
        ("/", format!("Cookie: vmap_live_{}=00000000000000000000000000000000\r\n", r.port)),
        ("/", format!("Cookie: vmap_live_1={}\r\n", r.token)),
    ] {
        let a = get(&r, path, &extra);
        assert_eq!(a.status, 403, "{path} {extra}: {}", a.head);
        assert!(!a.body.contains("the page"));
    }
    r.stop();
}

#[test]
fn foreign_host_or_origin_is_refused() {
    let (r, _) = start();
    let c = cookie(&r);
    for host in ["evil.example", "evil.example:80", "127.0.0.1", "127.0.0.1:1", "localhost", "[::1]:80"] {
        let a = send(r.port, &format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{c}\r\n"));
        assert_eq!(a.status, 403, "Host {host}");
    }
    // A rebound name with the token in the query: still refused.
    let a = send(
        r.port,
        &format!("GET /?token={} HTTP/1.1\r\nHost: rebind.example:{}\r\nConnection: close\r\n\r\n", r.token, r.port),
    );
    assert_eq!(a.status, 403);
    for origin in [
        "http://evil.example",
        "null",
        &format!("http://127.0.0.1:{}0", r.port),
        &format!("https://127.0.0.1:{}", r.port),
    ] {
        let a = get(&r, "/feed", &format!("{c}Origin: {origin}\r\n"));
        assert_eq!(a.status, 403, "Origin {origin}");
    }
    let ok = get(&r, "/", &format!("{c}Origin: http://127.0.0.1:{}\r\n", r.port));
    assert_eq!(ok.status, 200);
    r.stop();
}

#[test]
fn paths_outside_the_build_are_refused() {
    let (r, _) = start();
    let c = cookie(&r);
    for path in [
        "/../Cargo.toml",
        "/../secret.txt",
        "/assets/../../secret.txt",
        "/%2e%2e/secret.txt",
        "/%2E%2E/secret.txt",
        "/%2e%2e%2fsecret.txt",
        "/assets/%2e%2e/%2e%2e/secret.txt",
        "/assets%2f..%2f..%2fsecret.txt",
        "/assets/link.txt",
        "/up/secret.txt",
        "/..%5csecret.txt",
        "/%00",
        "/.hidden",
        "//etc/passwd",
        "/etc/passwd",
    ] {
        let a = get(&r, path, &c);
        assert!(a.status == 404 || a.status == 403 || a.status == 400, "{path}: {}", a.head);
        assert!(!a.body.contains("SECRET") && !a.body.contains("root:"), "{path}: {}", a.body);
    }
    r.stop();
}

#[test]
fn only_get_and_head() {
    let (r, _) = start();
    let c = cookie(&r);
    for m in ["POST", "PUT", "DELETE", "OPTIONS", "PATCH"] {
        let a = send(
            r.port,
            &format!(
                "{m} / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Length: 0\r\nConnection: close\r\n{c}\r\n",
                r.port
            ),
        );
        assert_eq!(a.status, 405, "{m}");
    }
    let a = send(
        r.port,
        &format!("HEAD /assets/a.js HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n{c}\r\n", r.port),
    );
    assert_eq!(a.status, 200);
    assert_eq!(a.body, "");
    r.stop();
}

#[test]
fn types_and_compressed_siblings() {
    let (r, _) = start();
    let c = cookie(&r);
    let a = get(&r, "/assets/a.js", &c);
    assert_eq!(a.status, 200);
    assert_eq!(a.body, "console.log('plain')");
    assert!(a.head.to_ascii_lowercase().contains("content-type: text/javascript"));
    let gz = get(&r, "/assets/a.js", &format!("{c}Accept-Encoding: br, gzip\r\n"));
    assert_eq!(gz.body, "GZ-BYTES");
    let h = gz.head.to_ascii_lowercase();
    assert!(h.contains("content-encoding: gzip") && h.contains("content-type: text/javascript"), "{h}");
    let w = get(&r, "/assets/m.wasm", &c);
    assert!(w.head.to_ascii_lowercase().contains("content-type: application/wasm"));
    assert_eq!(get(&r, "/missing.js", &c).status, 404);
    r.stop();
}

#[test]
fn the_feed_streams_events() {
    let (base, d) = dist();
    let feed = Feed::new();
    let r = serve(Dist::new(&d).unwrap(), feed.clone(), 0).unwrap();
    let mut s = TcpStream::connect(("127.0.0.1", r.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(format!("GET /feed HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{}\r\n", r.port, cookie(&r)).as_bytes()).unwrap();
    let read_until = |s: &mut TcpStream, what: &str| {
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&got).contains(what) {
            let n = s.read(&mut buf).expect("the event arrives without waiting for more");
            assert!(n > 0, "closed before `{what}`");
            got.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&got).into_owned()
    };
    let first = read_until(&mut s, ": open");
    assert!(first.to_ascii_lowercase().contains("content-type: text/event-stream"));
    feed.publish(vec!["profile linux-6.18".into(), "cpus 2".into()], "{\"allocations\":0}".into());
    let t = read_until(&mut s, "event: report");
    assert!(t.contains("\"from\":0,\"lines\":\"profile linux-6.18\\ncpus 2\""), "{t}");
    feed.close();
    r.stop();
    let _ = Arc::strong_count(&feed);
    let _ = std::fs::remove_dir_all(base);
}
