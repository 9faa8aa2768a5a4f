//! The model follows the kernel: `replay_capture` over the before file and the events so far,
//! run again as events come. This is the first form: each replay starts from the before file,
//! and replays are spaced so that they take at most a fifth of one CPU (the next starts no
//! sooner than four times the last one's duration after it). An incremental follower (one
//! replay carried on as events arrive) is the next step.
//!
//! Memory is bounded: the events are held for the replay up to `max_events`; past that the
//! model stops where it is (the page says so) and the events only go to the session's bundle
//! on disk.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use vmapviz_core::capture::{replay_capture, Bundle, Part};
use vmapviz_core::Profile;

use crate::feed::Feed;

/// What the replay reads: the source's start and the events so far.
#[derive(Default)]
pub struct Input {
    pub before: String,
    pub cpus: String,
    pub uname: Option<String>,
    /// Trace lines, newline-terminated.
    pub trace: String,
    pub events: usize,
    pub after: Option<String>,
    /// The source ended: the after file (if any) is in.
    pub ended: bool,
    /// The window is full: no more events are held.
    pub full: bool,
    version: u64,
}

/// The shared input and its change signal.
#[derive(Default)]
pub struct Shared {
    input: Mutex<Input>,
    changed: Condvar,
}

impl Shared {
    pub fn new() -> Arc<Shared> {
        Arc::new(Shared::default())
    }

    pub fn update(&self, f: impl FnOnce(&mut Input)) {
        let mut i = self.input.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut i);
        i.version += 1;
        self.changed.notify_all();
    }

    /// Add trace lines unless the window is full (then false: they were not held).
    pub fn push(&self, lines: &[String], max_events: usize) -> bool {
        let mut i = self.input.lock().unwrap_or_else(|e| e.into_inner());
        if i.full {
            return false;
        }
        for l in lines {
            i.trace.push_str(l);
            i.trace.push('\n');
            if !l.trim_start().starts_with('#') && !l.trim().is_empty() {
                i.events += 1;
            }
        }
        if i.events >= max_events {
            i.full = true;
        }
        i.version += 1;
        self.changed.notify_all();
        true
    }
}

/// The report line's figures, as the page shows them.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Figures {
    pub events: usize,
    pub allocations: usize,
    pub equal: usize,
    pub explained: usize,
    pub unexplained: usize,
    /// `CaptureReport::summary_line`, as `vmap-replay --import capture` ends its report.
    pub summary: String,
    /// The trace's operations (the followed trace's lines, comments aside).
    pub ops: usize,
    pub replay_ms: f64,
    pub ended: bool,
    pub full: bool,
}

/// The profile of a `uname -r` (its era), or the newest.
pub fn profile_of(uname: Option<&str>) -> Profile {
    let v = uname.and_then(|u| {
        let mut it = u.trim().split(|c: char| !c.is_ascii_digit());
        Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
    });
    v.map(Profile::of_release).unwrap_or(Profile::newest_release())
}

/// One replay of what came so far: the followed trace's lines and the figures.
pub fn replay(i: &Input) -> Result<(Vec<String>, Figures), String> {
    let b = Bundle {
        before: Part { name: "vmallocinfo.before", text: &i.before },
        trace: Part { name: "trace.txt", text: &i.trace },
        after: i.after.as_deref().filter(|_| i.ended && !i.full).map(|t| Part { name: "vmallocinfo.after", text: t }),
        cpus: Part { name: "cpus.txt", text: &i.cpus },
        uname: i.uname.as_deref().map(|t| Part { name: "uname.txt", text: t }),
    };
    let t0 = Instant::now();
    let (ops, r) = replay_capture(b, profile_of(i.uname.as_deref())).map_err(|e| e.to_string())?;
    let text = vmapviz_core::trace::format_trace(&ops);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let f = Figures {
        events: i.events,
        allocations: r.allocations,
        equal: r.equal,
        explained: r.explained,
        unexplained: r.unexplained,
        summary: r.summary_line(),
        ops: ops.len(),
        replay_ms: t0.elapsed().as_secs_f64() * 1e3,
        ended: i.ended,
        full: i.full,
    };
    Ok((lines, f))
}

/// Replays spaced by at least this.
const MIN_GAP: Duration = Duration::from_millis(200);

/// Follow `shared` into `feed` until the source ended and the last replay covered it all.
pub fn run(shared: Arc<Shared>, feed: Arc<Feed>) {
    let mut seen = 0u64;
    let mut gap = Duration::ZERO;
    let mut last_note = String::new();
    let mut said_full = false;
    loop {
        std::thread::sleep(gap.max(MIN_GAP));
        let snapshot = {
            let mut i = shared.input.lock().unwrap_or_else(|e| e.into_inner());
            while i.version == seen {
                i = shared.changed.wait(i).unwrap_or_else(|e| e.into_inner());
            }
            seen = i.version;
            if i.events == 0 && !i.ended {
                continue;
            }
            Input {
                before: i.before.clone(),
                cpus: i.cpus.clone(),
                uname: i.uname.clone(),
                trace: i.trace.clone(),
                events: i.events,
                after: i.after.clone(),
                ended: i.ended,
                full: i.full,
                version: i.version,
            }
        };
        let t0 = Instant::now();
        match replay(&snapshot) {
            Ok((lines, f)) => {
                let json = serde_json::to_string(&f).unwrap_or_default();
                feed.publish(lines, json);
                if snapshot.full && !said_full {
                    said_full = true;
                    feed.note(&format!(
                        "the model stops at {} events (--max-events): the session's bundle keeps recording; replay it afterwards with vmap-replay --import capture",
                        snapshot.events
                    ));
                }
            }
            Err(e) => {
                if e != last_note {
                    feed.note(&format!("the replay stopped: {e}"));
                    last_note = e;
                }
            }
        }
        gap = t0.elapsed() * 4;
        if snapshot.ended {
            feed.end();
            return;
        }
    }
}
