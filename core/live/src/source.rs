//! Where the session's events come from, behind one trait: a recorded bundle played as if
//! live ([`BundleSource`]), or this machine's tracefs ([`crate::tracefs::TracefsSource`]).
//! What comes after the source (recording, following, the feed) is the same for both.

use std::path::Path;
use std::time::{Duration, Instant};

use vmapviz_core::import::split_ftrace;

/// What a source gives before its first event.
pub struct Start {
    pub before: String,
    pub cpus: String,
    pub uname: Option<String>,
}

/// One pull of events.
pub enum Pull {
    /// Trace lines, each without its newline.
    Lines(Vec<String>),
    /// Nothing now (the source waited a little already).
    Idle,
    /// No more events will come.
    End,
}

/// What a source gives at its end: the after file, what to say (lost events), the last lines.
pub struct Finish {
    pub after: Option<String>,
    pub notes: Vec<String>,
    /// The last trace lines, read while stopping.
    pub lines: Vec<String>,
}

pub trait Source {
    fn start(&mut self) -> Result<Start, String>;
    fn pull(&mut self) -> Result<Pull, String>;
    /// Stop (also before the events ended: Ctrl-C) and give the after file.
    fn finish(&mut self) -> Result<Finish, String>;
    /// `/proc/vmallocinfo` as it is now, named (for the areas' callers, read on a slow cadence
    /// while the session goes on), or None when it cannot be read.
    fn vmallocinfo(&mut self) -> Option<(String, String)>;
}

/// How fast a recorded bundle plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Speed {
    /// As fast as it is read, in batches.
    Max,
    /// This many times the recorded pace (by the events' timestamps).
    Times(f64),
}

impl Speed {
    pub fn parse(s: &str) -> Option<Speed> {
        if s == "max" {
            return Some(Speed::Max);
        }
        s.parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0).map(Speed::Times)
    }
}

/// At most this many lines a pull at `--speed max`.
pub const BATCH: usize = 512;

/// A capture bundle (scripts/capture.sh, or a session of vmap-live) played as if it were live:
/// its before file, then its trace lines at `speed`, then its after file.
pub struct BundleSource {
    parts: [Option<String>; 5],
    lines: Vec<String>,
    next: usize,
    speed: Speed,
    /// The first event's timestamp and when it was played.
    origin: Option<(f64, Instant)>,
}

impl BundleSource {
    pub fn open(dir: &Path, speed: Speed) -> Result<BundleSource, String> {
        let mut parts = crate::bundle::read_bundle(dir)?;
        let lines = parts[1].take().unwrap_or_default().lines().map(str::to_string).collect();
        Ok(BundleSource { parts, lines, next: 0, speed, origin: None })
    }
}

fn timestamp(line: &str) -> Option<f64> {
    split_ftrace(line)?.timestamp.trim_end_matches(':').parse().ok()
}

impl Source for BundleSource {
    fn start(&mut self) -> Result<Start, String> {
        Ok(Start {
            before: self.parts[0].clone().unwrap_or_default(),
            cpus: self.parts[3].clone().unwrap_or_default(),
            uname: self.parts[4].clone(),
        })
    }

    fn pull(&mut self) -> Result<Pull, String> {
        if self.next >= self.lines.len() {
            return Ok(Pull::End);
        }
        let from = self.next;
        let to = match self.speed {
            Speed::Max => (from + BATCH).min(self.lines.len()),
            Speed::Times(k) => {
                let mut to = from;
                while to < self.lines.len() {
                    // Header and comment lines go with the next event.
                    let Some(t) = timestamp(&self.lines[to]) else {
                        to += 1;
                        continue;
                    };
                    let (t0, at) = *self.origin.get_or_insert((t, Instant::now()));
                    let due = at + Duration::from_secs_f64(((t - t0) / k).max(0.0));
                    if due > Instant::now() {
                        break;
                    }
                    to += 1;
                }
                to
            }
        };
        if to == from {
            std::thread::sleep(Duration::from_millis(20));
            return Ok(Pull::Idle);
        }
        self.next = to;
        Ok(Pull::Lines(self.lines[from..to].to_vec()))
    }

    fn finish(&mut self) -> Result<Finish, String> {
        let mut notes = Vec::new();
        if self.next < self.lines.len() {
            notes.push(format!("stopped after {} of the bundle's {} trace lines", self.next, self.lines.len()));
        }
        // The bundle's after file belongs to its whole trace only.
        let after = if self.next >= self.lines.len() { self.parts[2].clone() } else { None };
        Ok(Finish { after, notes, lines: Vec::new() })
    }

    /// The recorded after file stands for the reads once the trace has played (none before: the
    /// before file was read at the start).
    fn vmallocinfo(&mut self) -> Option<(String, String)> {
        let after = self.parts[2].as_ref().filter(|_| self.next >= self.lines.len())?;
        Some((vmapviz_core::capture::PARTS[2].into(), after.clone()))
    }
}
