//! The model follows the kernel: the capture replay of the before file and the events so far,
//! carried on as events come ([`StreamReplay`]: it replays again only the last few thousand
//! events, and starts over only when it learns something new about the start state), with the
//! figures of `vmap-replay --import capture`'s report line.
//!
//! Memory is bounded: the events are held for the replay up to `max_events`; past that the
//! model stops where it is (the page says so) and the events only go to the session's bundle
//! on disk.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use vmapviz_core::capture::{CaptureReport, StreamReplay};
use vmapviz_core::trace::Op;
use vmapviz_core::Profile;

use crate::feed::Feed;

/// What the replay reads: the source's start and the events so far.
#[derive(Default)]
pub struct Input {
    pub before: String,
    pub cpus: String,
    pub uname: Option<String>,
    /// Trace lines not yet taken by the follower, newline-terminated.
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

/// The report line's figures of a replay of `events` events.
fn figures(ops: usize, r: &CaptureReport, events: usize, ms: f64, ended: bool, full: bool) -> Figures {
    Figures {
        events,
        allocations: r.allocations,
        equal: r.equal,
        explained: r.explained,
        unexplained: r.unexplained,
        summary: r.summary_line(),
        ops,
        replay_ms: ms,
        ended,
        full,
    }
}

/// The lines of `ops[from..]`, one an operation, as `format_trace` writes them.
pub fn format_from(ops: &[Op], from: usize) -> Vec<String> {
    ops[from.min(ops.len())..].iter().map(Op::to_string).collect()
}

/// Replays spaced by at least this.
const MIN_GAP: Duration = Duration::from_millis(200);

/// What the follower takes from the input at once: the trace lines that came since, and the
/// state of the source.
struct Taken {
    trace: String,
    events: usize,
    after: Option<String>,
    ended: bool,
    full: bool,
}

/// Follow `shared` into `feed` until the source ended and the last replay covered it all.
///
/// The replay is carried on ([`StreamReplay`]): each round reads only the lines that came
/// since the last one, and the input holds only those (the session's bundle on disk has them
/// all). Rounds are spaced so that they take at most a fifth of one CPU (the next starts no
/// sooner than four times the last one's duration after it).
pub fn run(shared: Arc<Shared>, feed: Arc<Feed>) {
    let mut seen = 0u64;
    let mut gap = Duration::ZERO;
    let mut said_full = false;
    let mut stream: Option<StreamReplay> = None;
    // A line the replay refused, or a start it could not read: the follower stops there.
    let mut stopped = false;
    let mut ended_given = false;
    let mut started = false;
    loop {
        std::thread::sleep(gap.max(MIN_GAP));
        let (taken, start) = {
            let mut i = shared.input.lock().unwrap_or_else(|e| e.into_inner());
            while i.version == seen {
                i = shared.changed.wait(i).unwrap_or_else(|e| e.into_inner());
            }
            seen = i.version;
            if i.events == 0 && !i.ended {
                continue;
            }
            let start = (!started).then(|| (i.before.clone(), i.cpus.clone(), i.uname.clone()));
            started = true;
            let t = Taken {
                trace: std::mem::take(&mut i.trace),
                events: i.events,
                after: if i.ended && !ended_given { i.after.clone() } else { None },
                ended: i.ended,
                full: i.full,
            };
            (t, start)
        };
        let t0 = Instant::now();
        if let Some((before, cpus, uname)) = start {
            match StreamReplay::new(&before, &cpus, uname.as_deref(), profile_of(uname.as_deref())) {
                Ok(s) => stream = Some(s),
                Err(e) => {
                    feed.note(&format!("the replay stopped: {e}"));
                    stopped = true;
                }
            }
        }
        if let (Some(s), false) = (stream.as_mut(), stopped) {
            let mut result = s.push(&taken.trace);
            if result.is_ok() && taken.ended && !ended_given {
                ended_given = true;
                result = s.end(taken.after.as_deref().filter(|_| !taken.full));
            }
            match result.and_then(|()| s.round()) {
                Ok(r) => {
                    let ms = t0.elapsed().as_secs_f64() * 1e3;
                    // The lines the last result shares with this one are published already:
                    // only the rest is formatted.
                    let tail: Vec<String> = r.ops_from(r.same).map(Op::to_string).collect();
                    let f = figures(r.len(), &r.report, taken.events, ms, taken.ended, taken.full);
                    feed.publish_from(r.same, tail, serde_json::to_string(&f).unwrap_or_default());
                    if taken.full && !said_full {
                        said_full = true;
                        feed.note(&format!(
                            "the model stops at {} events (--max-events): the session's bundle keeps recording; replay it afterwards with vmap-replay --import capture",
                            taken.events
                        ));
                    }
                }
                Err(e) => {
                    feed.note(&format!("the replay stopped: {e}"));
                    stopped = true;
                }
            }
        }
        gap = t0.elapsed() * 4;
        if taken.ended {
            feed.end();
            return;
        }
    }
}
