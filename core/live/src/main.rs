//! vmap-live: follow this machine's vmalloc space (or a recorded capture played as if live)
//! and serve the page, with a live feed, on 127.0.0.1. See docs/kernel-developers.md, "Live".

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use vmapviz_live::bundle::{default_dir, Recorder};
use vmapviz_live::feed::Feed;
use vmapviz_live::files::Dist;
use vmapviz_live::follow::{self, Shared};
use vmapviz_live::server;
use vmapviz_live::source::{BundleSource, Pull, Source, Speed};
use vmapviz_live::tracefs::{self, TracefsSource};

const USAGE: &str = "\
usage: vmap-live [--port N] [--out DIR] [--dist DIR] [--max-events N] [--callers-every S] [-k] [--buffer-kb KB]
       vmap-live --live-from BUNDLE_DIR [--speed N|max] [--exit-at-end] [--port N] [--out DIR] [--dist DIR]
  (no --live-from)  this machine, as root: the vmalloc events in a tracefs instance of its own
                    (instances/vmapviz-live-PID), /proc/vmallocinfo read with kptr_restrict=1
  --live-from DIR   a capture bundle (scripts/capture.sh, or a session of vmap-live) played as if live
  --speed N|max     its pace: N times the recorded one (by the events' timestamps), or max (default 1)
  --exit-at-end     stop once the bundle has played and the page's feed says so (default: serve on)
  --port N          the port on 127.0.0.1 (default 0: any free one); the URL to open is printed
  --out DIR         where the session's bundle is written (default vmap-live-RELEASE-DATE)
  --dist DIR        the built page (default: ./dist, else the repository's dist/ beside target/)
  --max-events N    events the model follows (memory); later ones go to the bundle only (default 200000)
  --callers-every S /proc/vmallocinfo read again every S seconds for the areas' callers, sent to the
                    page when it changed (default 10; a bundle's reads are its before and after files)
  -k                keep the vmap pools as they are (default: drain them first, as capture.sh does)
  --buffer-kb KB    the instance's ring buffer per CPU, KiB (default 65536)
Stop with Ctrl-C (or SIGTERM, SIGHUP): the tracefs instance is removed, kptr_restrict put back, and
the session's bundle finished (replay it with vmap-replay --import capture DIR).";

struct Args {
    port: u16,
    from: Option<PathBuf>,
    speed: Speed,
    exit_at_end: bool,
    out: Option<PathBuf>,
    dist: Option<PathBuf>,
    max_events: usize,
    callers_every: Duration,
    keep: bool,
    buffer_kb: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        port: 0,
        from: None,
        speed: Speed::Times(1.0),
        exit_at_end: false,
        out: None,
        dist: None,
        max_events: 200_000,
        callers_every: Duration::from_secs(10),
        keep: false,
        buffer_kb: 65536,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut val = |what: &str| it.next().ok_or_else(|| format!("{arg} takes {what}"));
        match arg.as_str() {
            "--port" => a.port = val("a port")?.parse().map_err(|_| "--port takes a number 0-65535".to_string())?,
            "--live-from" => a.from = Some(PathBuf::from(val("a bundle directory")?)),
            "--speed" => a.speed = Speed::parse(&val("N or max")?).ok_or("--speed takes a positive number or max")?,
            "--exit-at-end" => a.exit_at_end = true,
            "--out" => a.out = Some(PathBuf::from(val("a directory")?)),
            "--dist" => a.dist = Some(PathBuf::from(val("a directory")?)),
            "--max-events" => {
                a.max_events =
                    val("a number")?.parse().ok().filter(|&n| n > 0).ok_or("--max-events takes a number > 0")?
            }
            "--callers-every" => {
                a.callers_every = val("seconds")?
                    .parse::<f64>()
                    .ok()
                    .filter(|&n| n.is_finite() && n > 0.0 && n < 1e9)
                    .map(Duration::from_secs_f64)
                    .ok_or("--callers-every takes a number of seconds > 0")?
            }
            "-k" => a.keep = true,
            "--buffer-kb" => {
                a.buffer_kb = val("KiB")?.parse().ok().filter(|&n| n > 0).ok_or("--buffer-kb takes a number > 0")?
            }
            "-h" | "--help" => return Err(String::new()),
            _ => return Err(format!("unknown argument `{arg}`")),
        }
    }
    Ok(a)
}

fn find_dist(given: Option<PathBuf>) -> Result<Dist, String> {
    let mut tries = Vec::new();
    match given {
        Some(d) => tries.push(d),
        None => {
            tries.push(PathBuf::from("dist"));
            if let Ok(exe) = std::env::current_exe() {
                // target/release/vmap-live -> the repository's dist/
                if let Some(repo) = exe.parent().and_then(|p| p.parent()).and_then(|p| p.parent()) {
                    tries.push(repo.join("dist"));
                }
            }
        }
    }
    let mut last = String::new();
    for d in tries {
        match Dist::new(&d) {
            Ok(x) => return Ok(x),
            Err(e) => last = format!("{}: {e}", d.display()),
        }
    }
    Err(format!("no built page ({last}): build it with `npx vite build`, or name it with --dist"))
}

static STOP: AtomicBool = AtomicBool::new(false);
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("vmap-live: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let dist = match find_dist(args.dist.clone()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("vmap-live: {e}");
            return ExitCode::from(1);
        }
    };
    // Every exit path puts the machine back: a panic anywhere ends the session.
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        for f in tracefs::cleanup() {
            eprintln!("vmap-live: {f}");
        }
        prev(info);
        eprintln!("vmap-live: stopped by a panic; the tracefs instance is removed and kptr_restrict put back");
        std::process::exit(101);
    }));
    // SIGINT, SIGTERM, SIGHUP: the first stops the session in order (the bundle finished); a
    // second one while it stops undoes what tracefs needs undone at once and exits.
    if let Err(e) = ctrlc::set_handler(|| {
        if SIGNALS.fetch_add(1, Ordering::SeqCst) == 0 {
            STOP.store(true, Ordering::SeqCst);
        } else {
            let _ = tracefs::cleanup();
            std::process::exit(130);
        }
    }) {
        eprintln!("vmap-live: cannot handle signals: {e}");
        return ExitCode::from(1);
    }
    let mut source: Box<dyn Source> = match &args.from {
        Some(dir) => match BundleSource::open(dir, args.speed) {
            Ok(s) => Box::new(s),
            Err(e) => {
                eprintln!("vmap-live: {e}");
                return ExitCode::from(1);
            }
        },
        None => {
            if let Err(e) = tracefs::available() {
                eprintln!("vmap-live: following this machine needs root and tracefs ({e}); or replay a bundle with --live-from DIR");
                return ExitCode::from(1);
            }
            Box::new(TracefsSource::new(args.buffer_kb, args.keep))
        }
    };
    let code = run(&args, dist, source.as_mut());
    for f in tracefs::cleanup() {
        eprintln!("vmap-live: {f}");
    }
    code
}

fn run(args: &Args, dist: Dist, source: &mut dyn Source) -> ExitCode {
    let start = match source.start() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("vmap-live: {e}");
            return ExitCode::from(1);
        }
    };
    let out = args.out.clone().unwrap_or_else(|| default_dir(start.uname.as_deref()));
    let mut rec = match Recorder::create(&out, &start.before, &start.cpus, start.uname.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("vmap-live: {}: {e}", out.display());
            return ExitCode::from(1);
        }
    };
    let feed = Feed::new();
    feed.callers(vmapviz_core::capture::PARTS[0], &start.before, true);
    let shared = Shared::new();
    shared.update(|i| {
        i.before = start.before;
        i.cpus = start.cpus;
        i.uname = start.uname;
    });
    let srv = match server::serve(dist, feed.clone(), args.port) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("vmap-live: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::from(1);
        }
    };
    println!("vmap-live: open {}", srv.url());
    println!("vmap-live: the session's bundle goes to {}", rec.dir().display());
    let follower = {
        let (s, f) = (shared.clone(), feed.clone());
        std::thread::spawn(move || follow::run(s, f))
    };
    let panic_at =
        std::env::var("VMAP_LIVE_TEST_PANIC_MS").ok().and_then(|v| v.parse().ok()).map(Duration::from_millis);
    let t0 = Instant::now();
    let mut status = ExitCode::SUCCESS;
    let mut went_to_disk_only = false;
    let mut callers_read = Instant::now();
    while !STOP.load(Ordering::SeqCst) {
        if callers_read.elapsed() >= args.callers_every {
            callers_read = Instant::now();
            if let Some((name, text)) = source.vmallocinfo() {
                feed.callers(&name, &text, false);
            }
        }
        if panic_at.is_some_and(|p| t0.elapsed() >= p) {
            panic!("VMAP_LIVE_TEST_PANIC_MS: a panic on purpose");
        }
        match source.pull() {
            Ok(Pull::Lines(lines)) => {
                if let Err(e) = rec.append(&lines) {
                    eprintln!("vmap-live: {}: {e}", rec.dir().display());
                    status = ExitCode::from(1);
                    break;
                }
                if !shared.push(&lines, args.max_events) && !went_to_disk_only {
                    went_to_disk_only = true;
                    eprintln!(
                        "vmap-live: {} events followed (--max-events); the rest go to the bundle only",
                        args.max_events
                    );
                }
            }
            Ok(Pull::Idle) => {}
            Ok(Pull::End) => break,
            Err(e) => {
                eprintln!("vmap-live: {e}");
                status = ExitCode::from(1);
                break;
            }
        }
    }
    let fin = match source.finish() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("vmap-live: {e}");
            vmapviz_live::source::Finish { after: None, notes: Vec::new(), lines: Vec::new() }
        }
    };
    for n in &fin.notes {
        eprintln!("vmap-live: {n}");
    }
    let _ = rec.append(&fin.lines);
    shared.push(&fin.lines, args.max_events);
    let events = rec.lines;
    let dir = match rec.finish(fin.after.as_deref()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("vmap-live: writing the bundle: {e}");
            return ExitCode::from(1);
        }
    };
    if let Some(a) = fin.after.as_deref() {
        feed.callers(vmapviz_core::capture::PARTS[2], a, false);
    }
    shared.update(|i| {
        i.after = fin.after;
        i.ended = true;
    });
    let _ = follower.join();
    println!(
        "vmap-live: wrote the session's bundle ({events} trace lines) to {}: replay it with vmap-replay --import capture {}",
        dir.display(),
        dir.display()
    );
    if let Some(json) = feed.last_report() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&json) {
            println!("vmap-live: {}", v["summary"].as_str().unwrap_or(""));
        }
    }
    // A bundle played out serves on, for the page to be looked at, until a signal.
    if !args.exit_at_end && args.from.is_some() && !STOP.load(Ordering::SeqCst) {
        println!("vmap-live: the bundle has played; serving until Ctrl-C");
        while !STOP.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(100));
        }
    } else {
        // Pages take the last events before the streams close.
        std::thread::sleep(Duration::from_millis(300));
    }
    feed.close();
    srv.stop();
    status
}
