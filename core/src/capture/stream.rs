//! A capture replayed as its events come: the live instrument's follower.
//!
//! [`replay_capture`](super::replay_capture) replays a whole bundle, from the before file, as
//! often as it learns something new about the start state. A live session cannot start over at
//! every batch of events: its replay is carried on instead.
//!
//! ```text
//!   events:  0 ..................... fed ........... len
//!            [ replayed once, kept  ][ MARGIN: again ]
//!                      ^ the carried replay             ^ a fork of it, to the end
//! ```
//!
//! The carried replay stops `MARGIN` events short of the end: an allocation can be explained by
//! a purge traced after it (the drain runs in a worker while allocations go on), so the events
//! near the end are replayed again by a fork once more has come. A round first carries the
//! replay on to `MARGIN` short of the new end, then forks it (the model and what capture keeps
//! beside it, not its operations) and feeds the fork to the end: the round's result is the
//! carried replay's operations and the fork's. A round costs the new events, the margin and one
//! copy of the model, not the events held. A replay that learns something new about the start
//! state (a pool entry, a held block, an area's node), a before-file marker or a lost-events
//! note arriving late: the replay starts over from the before file, as `replay_capture` does,
//! and is carried on from there.
//!
//! At the end of the session it is replayed whole: its last result is what `replay_capture`
//! gives for the session's bundle (tested on the captures of `core/tests/data`, fed in pieces).

use std::borrow::Cow;

use super::bundle::*;
use super::pass::{finish_report, replay_parsed, start_pass, Pass};
use super::report::CaptureReport;
use crate::profile::Profile;
use crate::trace::Op;

/// Events replayed again by every fork (see the module's documentation).
pub const MARGIN: usize = 4096;

/// The parts' names, as in a bundle folder ([`PARTS`]).
const BEFORE: &str = PARTS[0];
const TRACE: &str = PARTS[1];
const AFTER: &str = PARTS[2];
const CPUS: &str = PARTS[3];
const UNAME: &str = PARTS[4];

/// A capture's replay, carried on as its trace comes in pieces.
pub struct StreamReplay {
    profile: Profile,
    /// `uname -r` as read (the report's kernel).
    uname: Option<String>,
    /// The carried replay; it owns the parsed bundle (the events so far).
    cp: Pass<'static, 'static>,
    /// Replays the last start-over took.
    passes: usize,
    /// Trace lines read so far (the next piece's lines are numbered after them).
    lines: usize,
    /// The carried replay is built on a start that is no longer the one the events give.
    stale: bool,
    /// Events the forks replay again ([`MARGIN`] unless set).
    margin: usize,
    /// The session ended ([`StreamReplay::end`]).
    ended: bool,
    /// Start-overs so far (the first replay's included).
    starts: usize,
    /// Leading operations of the carried replay that the last result began with too.
    shared: usize,
}

/// A round's result ([`StreamReplay::round`]): the carried replay's operations, then the
/// round's own, and the report.
pub struct Round<'s> {
    /// The carried replay's operations this result begins with.
    pub head: &'s [Op],
    /// The rest of the result.
    pub tail: Vec<Op>,
    /// Leading operations this result shares with the last one (0 for the first).
    pub same: usize,
    pub report: CaptureReport,
    /// The replay started over from the before file in this round.
    pub over: bool,
}

impl Round<'_> {
    /// Operations in the result.
    pub fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The operations from the `from`th on.
    pub fn ops_from(&self, from: usize) -> impl Iterator<Item = &Op> {
        let h = from.min(self.head.len());
        self.head[h..].iter().chain(self.tail[from.saturating_sub(self.head.len()).min(self.tail.len())..].iter())
    }

    /// The whole result.
    pub fn ops(&self) -> Vec<Op> {
        self.ops_from(0).cloned().collect()
    }
}

impl StreamReplay {
    /// The replay of a session that starts from `before` on the CPUs of `cpus`, under
    /// `profile` (checked against `uname` as `replay_capture` does).
    pub fn new(before: &str, cpus: &str, uname: Option<&str>, profile: Profile) -> Result<StreamReplay, CaptureError> {
        if let Some(u) = uname {
            check_uname(&Part { name: UNAME, text: u }, profile)?;
        }
        let (possible, online) = parse_cpus(Part { name: CPUS, text: cpus })?;
        let before = parse_info(Part { name: BEFORE, text: before })?;
        let empty = |name| Part { name, text: "" };
        let mut p: Parsed<'static> = Parsed {
            bundle: Bundle {
                before: empty(BEFORE),
                trace: empty(TRACE),
                after: None,
                cpus: empty(CPUS),
                uname: uname.map(|_| empty(UNAME)),
            },
            before,
            after: None,
            events: Vec::new(),
            trace_notes: Vec::new(),
            possible,
            online,
            pcpu_sizes: Vec::new(),
            drained: None,
        };
        p.set_pcpu_sizes();
        let uname = uname.map(|u| u.trim().to_string());
        let mut cp = start_pass(Cow::Owned(p), profile, &Default::default())?;
        cp.report.kernel.clone_from(&uname);
        Ok(StreamReplay {
            profile,
            uname,
            cp,
            passes: 1,
            lines: 0,
            stale: false,
            margin: MARGIN,
            ended: false,
            starts: 0,
            shared: 0,
        })
    }

    /// Replay again the last `margin` events at each [`replay`](Self::replay) (at least 1).
    pub fn set_margin(&mut self, margin: usize) {
        self.margin = margin.max(1);
    }

    /// How many times the replay started over from the before file.
    pub fn starts(&self) -> usize {
        self.starts
    }

    /// Operations of the carried replay. Every later result begins with them, until a replay
    /// starts over ([`starts`](Self::starts) then grows).
    pub fn kept(&self) -> usize {
        self.cp.ops.len()
    }

    /// Events read so far.
    pub fn events(&self) -> usize {
        self.cp.p.events.len()
    }

    /// The next piece of the trace: whole lines. A line the capture replay refuses is an error
    /// naming it; nothing of the piece is then taken.
    pub fn push(&mut self, text: &str) -> Result<(), CaptureError> {
        let mut evs = Vec::new();
        let mut notes = Vec::new();
        let markers = parse_trace_lines(Part { name: TRACE, text }, self.lines, &mut evs, &mut notes)?;
        let marker = markers.before_read;
        let p = &self.cp.p;
        let max_cpu = p.possible.last().copied().unwrap_or(0);
        if let Some(e) = evs.iter().find(|e| e.cpu > max_cpu || !p.online.contains(&e.cpu)) {
            return Err(cerr(TRACE, e.line, format!("CPU {} is not online in {CPUS} (online: {:?})", e.cpu, p.online)));
        }
        let had_free = p.events.iter().any(is_free);
        // The start reads these: the first free's `nr_lazy_max`, the notes, the marker.
        self.stale |= (marker && !p.events.is_empty())
            || (markers.drained.is_some() && p.drained.is_none() && !p.events.is_empty())
            || !notes.is_empty()
            || (!had_free && evs.iter().any(is_free));
        self.lines += text.lines().count();
        let p = self.cp.p.to_mut();
        if marker {
            for e in &mut p.events {
                e.in_read = true;
            }
        }
        p.drained = p.drained.or(markers.drained);
        p.events.extend(evs);
        p.trace_notes.extend(notes);
        Ok(())
    }

    /// The session ended, with its after file if it has one: the next [`replay`](Self::replay)
    /// replays the whole session from the before file, as `replay_capture` does its bundle.
    pub fn end(&mut self, after: Option<&str>) -> Result<(), CaptureError> {
        if let Some(a) = after {
            let a = parse_info(Part { name: AFTER, text: a })?;
            let p = self.cp.p.to_mut();
            p.after = Some(a);
            p.bundle.after = Some(Part { name: AFTER, text: "" });
            p.set_pcpu_sizes();
        }
        self.ended = true;
        Ok(())
    }

    /// The followed trace and the report for the events so far (and the after file, once
    /// [`end`](Self::end) gave it): [`round`](Self::round)'s operations, whole.
    pub fn replay(&mut self) -> Result<(Vec<Op>, CaptureReport), CaptureError> {
        let r = self.round()?;
        Ok((r.ops(), r.report))
    }

    /// The followed trace and the report for the events so far (and the after file, once
    /// [`end`](Self::end) gave it), with how much of it the last result had already.
    ///
    /// While the session goes on, the carried replay uses what it learnt about the start state
    /// up to its last start-over; `replay_capture` of the same events learns it all from them
    /// at once, and where an event near the end of that start-over's events was read without
    /// the ones after it (a purge traced after the allocation it explains), the two can
    /// differ until the next start-over. At the end the session is replayed whole: the last
    /// result is `replay_capture`'s of the session's bundle.
    pub fn round(&mut self) -> Result<Round<'_>, CaptureError> {
        let len = self.cp.p.events.len();
        if len == 0 {
            return Err(cerr(TRACE, 0, "no vmalloc event (enable events/vmalloc before the workload)"));
        }
        if !self.stale && !self.ended {
            // The carried replay goes where the fork of the last round went, with the events
            // after them read: what it learns, the fork would have learnt on its way.
            self.cp.feed_to(len.saturating_sub(self.margin));
            if !self.cp.learnt.changed {
                let mut f = self.cp.fork();
                f.feed_to(len);
                if !f.learnt.changed {
                    f.compare_after();
                    if !f.learnt.changed {
                        let mut report = f.report;
                        finish_report(&mut report, &f.learnt, self.passes, false);
                        let tail = f.ops;
                        // The last result began with the carried replay's operations up to
                        // where it stood then; this one begins with all of them.
                        let same = self.shared;
                        self.shared = self.cp.ops.len();
                        return Ok(Round { head: &self.cp.ops, tail, same, report, over: false });
                    }
                }
            }
        }
        self.start_over()
    }

    /// Replay every event from the before file again, as `replay_capture` does, and carry the
    /// last replay's start on.
    fn start_over(&mut self) -> Result<Round<'_>, CaptureError> {
        let (mut ops, mut report, learnt) = replay_parsed(&self.cp.p, self.profile)?;
        report.kernel.clone_from(&self.uname);
        self.passes = report.passes;
        self.starts += 1;
        // What the last result and this one share: the carried replay's operations the last
        // result began with, as far as this one has them too.
        let same = common_prefix(&ops, &self.cp.ops[..self.shared]);
        let p = std::mem::take(&mut self.cp.p);
        let len = p.events.len();
        let mut learnt = learnt;
        learnt.changed = false;
        let mut cp = start_pass(p, self.profile, &learnt)?;
        cp.report.kernel.clone_from(&self.uname);
        cp.feed_to(len.saturating_sub(self.margin));
        self.stale = cp.learnt.changed;
        self.cp = cp;
        // The new carried replay gives the start of this result (the last replay's start, the
        // same events), unless that replay learnt more on its way to the end.
        self.shared = common_prefix(&ops, &self.cp.ops);
        let tail = ops.split_off(self.shared);
        Ok(Round { head: &self.cp.ops[..self.shared], tail, same, report, over: true })
    }
}

/// How many leading operations `a` and `b` share.
fn common_prefix(a: &[Op], b: &[Op]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn is_free(e: &Ev) -> bool {
    matches!(e.ev, crate::import::FtraceEvent::Free { .. })
}
