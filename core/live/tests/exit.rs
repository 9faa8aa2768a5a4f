//! Every exit path of `vmap-live` (Ctrl-C, SIGTERM, SIGHUP, a panic, the source's end): the
//! session's bundle is written (a panic aside: its trace is on disk as far as it got) and, with
//! tracefs, the instance is removed and `kptr_restrict` put back. The tracefs tests run when
//! this is root with tracefs and the vmalloc events, and say so plainly when they skip.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use vmapviz_core::capture::{replay_capture, Bundle, Part};

const BIN: &str = env!("CARGO_BIN_EXE_vmap-live");

fn bundle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/captures/linux-6.18-mixed")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("vmap-live-exit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("dist")).unwrap();
    std::fs::write(d.join("dist/index.html"), "<!doctype html>").unwrap();
    d
}

/// Start vmap-live and wait for its URL line (the session has started).
fn start(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Child {
    start_url(args, dir, env).0
}

/// Start vmap-live: it, and the URL it printed.
fn start_url(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> (Child, String) {
    let mut c = Command::new(BIN);
    c.args(args).arg("--dist").arg(dir.join("dist")).arg("--out").arg(dir.join("out"));
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(20)).expect("vmap-live prints its URL");
    assert!(line.starts_with("vmap-live: open http://127.0.0.1:"), "{line}");
    (child, line["vmap-live: open ".len()..].to_string())
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill").args([&format!("-{sig}"), &child.id().to_string()]).status().unwrap();
    assert!(ok.success());
}

fn wait(mut child: Child) -> (i32, String) {
    let t0 = Instant::now();
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            return (st.code().unwrap_or(-1), err);
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "vmap-live did not exit");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The written bundle replays (as `vmap-replay --import capture` would).
fn replays(out: &Path) -> usize {
    let (before, trace, cpus) =
        (read(&out.join("vmallocinfo.before")), read(&out.join("trace.txt")), read(&out.join("cpus.txt")));
    let after = std::fs::read_to_string(out.join("vmallocinfo.after")).ok();
    let uname = std::fs::read_to_string(out.join("uname.txt")).ok();
    let b = Bundle {
        before: Part { name: "vmallocinfo.before", text: &before },
        trace: Part { name: "trace.txt", text: &trace },
        after: after.as_deref().map(|t| Part { name: "vmallocinfo.after", text: t }),
        cpus: Part { name: "cpus.txt", text: &cpus },
        uname: uname.as_deref().map(|t| Part { name: "uname.txt", text: t }),
    };
    let profile = vmapviz_live::follow::profile_of(uname.as_deref());
    replay_capture(b, profile).expect("the session's bundle replays").1.allocations
}

#[test]
fn a_bundle_played_out_ends_with_the_same_bundle() {
    let d = scratch("end");
    let child = start(&["--live-from", bundle_dir().to_str().unwrap(), "--speed", "max", "--exit-at-end"], &d, &[]);
    let (code, err) = wait(child);
    assert_eq!(code, 0, "{err}");
    let out = d.join("out");
    assert!(out.join("vmallocinfo.after").is_file(), "the after file of a bundle played out");
    assert_eq!(replays(&out), 4311);
}

#[test]
fn each_signal_stops_in_order_and_writes_the_bundle() {
    for sig in ["INT", "TERM", "HUP"] {
        let d = scratch(sig);
        let child = start(&["--live-from", bundle_dir().to_str().unwrap(), "--speed", "2", "--exit-at-end"], &d, &[]);
        std::thread::sleep(Duration::from_millis(1500));
        signal(&child, sig);
        let (code, err) = wait(child);
        assert_eq!(code, 0, "SIG{sig}: {err}");
        let out = d.join("out");
        let lines = read(&out.join("trace.txt")).lines().count();
        assert!(lines > 12 && lines < 8649, "SIG{sig}: stopped part way: {lines} lines");
        assert!(!out.join("vmallocinfo.after").exists(), "a bundle stopped part way has no after file of its own");
        assert!(replays(&out) > 0, "SIG{sig}");
    }
}

#[test]
fn a_panic_ends_the_session() {
    let d = scratch("panic");
    let child = start(
        &["--live-from", bundle_dir().to_str().unwrap(), "--speed", "2"],
        &d,
        &[("VMAP_LIVE_TEST_PANIC_MS", "800")],
    );
    let (code, err) = wait(child);
    assert_eq!(code, 101, "{err}");
    assert!(err.contains("a panic on purpose"), "{err}");
    assert!(read(&d.join("out/trace.txt")).lines().count() > 0, "the trace so far is on disk");
}

// ---------- this machine's tracefs ----------

const KPTR: &str = "/proc/sys/kernel/kptr_restrict";

/// One tracefs session at a time (each puts back the `kptr_restrict` it found).
static TRACEFS: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn tracefs_or_skip(test: &str) -> bool {
    match vmapviz_live::tracefs::available() {
        Ok(_) => true,
        Err(why) => {
            println!("SKIPPED {test}: needs root and tracefs with the vmalloc events ({why})");
            false
        }
    }
}

fn instances() -> Vec<String> {
    let t = vmapviz_live::tracefs::find_tracefs().unwrap().join("instances");
    std::fs::read_dir(t)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("vmapviz-live-"))
        .collect()
}

/// One tracefs session ended by `how` (a signal's name, or PANIC): the instance is gone and
/// kptr_restrict is as it was.
fn tracefs_exit(how: &str) {
    let was = read(Path::new(KPTR));
    // A value the session changes (it sets 1), to see it put back.
    let set = if was.trim() == "1" { "0" } else { was.trim() };
    std::fs::write(KPTR, set).unwrap();
    let d = scratch(&format!("tracefs-{how}"));
    let env: &[(&str, &str)] = if how == "PANIC" { &[("VMAP_LIVE_TEST_PANIC_MS", "1500")] } else { &[] };
    let args: &[&str] = if how == "INT" { &["--buffer-kb", "1024"] } else { &["-k", "--buffer-kb", "1024"] };
    let child = start(args, &d, env);
    let pid = child.id();
    let ours = format!("vmapviz-live-{pid}");
    assert!(instances().contains(&ours), "{how}: the instance {ours} is there while it runs");
    assert_eq!(read(Path::new(KPTR)).trim(), "1", "{how}: kptr_restrict is 1 while it runs");
    // Some vmalloc activity: a thread's stack is a vmalloc area.
    for _ in 0..20 {
        std::thread::spawn(|| std::thread::sleep(Duration::from_millis(10))).join().unwrap();
    }
    if how != "PANIC" {
        std::thread::sleep(Duration::from_millis(700));
        signal(&child, how);
    }
    let (code, err) = wait(child);
    let now = read(Path::new(KPTR));
    std::fs::write(KPTR, &was).unwrap();
    assert!(!instances().contains(&ours), "{how}: the instance is removed ({err})");
    assert_eq!(now.trim(), set, "{how}: kptr_restrict put back ({err})");
    let out = d.join("out");
    let before = read(&out.join("vmallocinfo.before"));
    assert!(before.lines().next().is_some_and(|l| l.starts_with("0xffff")), "{how}: real addresses in the before file");
    if how == "PANIC" {
        assert_eq!(code, 101, "{err}");
    } else {
        assert_eq!(code, 0, "{how}: {err}");
        assert!(out.join("vmallocinfo.after").is_file());
        assert!(read(&out.join("trace.txt")).contains(vmapviz_core::capture::BEFORE_READ));
        assert!(read(&out.join("uname.txt")).trim().starts_with(char::is_numeric));
    }
}

#[test]
fn tracefs_cleanup_on_every_exit_path() {
    if !tracefs_or_skip("tracefs_cleanup_on_every_exit_path") {
        return;
    }
    let _one = TRACEFS.lock().unwrap_or_else(|e| e.into_inner());
    for how in ["INT", "TERM", "HUP", "PANIC"] {
        tracefs_exit(how);
    }
}

/// `/proc/vmallocinfo` is read again on its cadence while the session goes on (real addresses:
/// `kptr_restrict` is 1), and the page's feed sends the read.
#[test]
fn tracefs_callers_are_read_again_on_their_cadence() {
    use std::io::{Read, Write};
    if !tracefs_or_skip("tracefs_callers_are_read_again_on_their_cadence") {
        return;
    }
    let _one = TRACEFS.lock().unwrap_or_else(|e| e.into_inner());
    let d = scratch("tracefs-callers");
    let (child, url) = start_url(&["-k", "--buffer-kb", "1024", "--callers-every", "0.5"], &d, &[]);
    let port: u16 = url["http://127.0.0.1:".len()..].split('/').next().unwrap().parse().unwrap();
    let token = url.split("token=").nth(1).unwrap().split('#').next().unwrap().to_string();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET /feed HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: vmap_live_{port}={token}\r\n\r\n").unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 65536];
    let t0 = Instant::now();
    let want = "event: callers\ndata: {\"name\":\"vmallocinfo at ";
    while !String::from_utf8_lossy(&got).contains(want) {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "a read within 5 s (every 0.5 s): {}",
            String::from_utf8_lossy(&got)
        );
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&got).into_owned();
    signal(&child, "TERM");
    let (code, err) = wait(child);
    assert_eq!(code, 0, "{err}");
    // The before file first, then the read, each with the file's real addresses.
    let before = text.find("{\"name\":\"vmallocinfo.before\",\"text\":\"0xffff").expect("the before file");
    let again = text.find(want).expect("a read again");
    assert!(before < again, "{text}");
    assert!(text[again..].contains(" UTC\",\"text\":\"0xffff"), "real addresses in the read");
}
