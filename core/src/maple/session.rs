//! A replayable `profile maple-tree` trace for a player: the operations, what each printed,
//! checkpoints of the tree, and on-demand frames (one per [`MapleEvent`], with the tree's nodes
//! in force after it), the maple counterpart of [`crate::session::Session`].
//!
//! ```text
//!   state_before(k) = clone(C[k - k % every]) + replay the ops in between, events off
//!   frames(k)       = state_before(k) + replay op k with a recorder (events, and the nodes
//!                     after every gap update: propagation shows one level per step)
//! ```
//! The tree changes shape only when a store replaces nodes; its nodes are taken before the
//! operation, after every gap update and after the operation, so a frame shows the tree the
//! kernel's code would see at that point, and stepping back is exact.

use super::trace::{parse_maple_line, MapleOp, MapleTraceError, MapleTraceErrorKind};
use super::tree::{MapleEntry, MapleError, MapleEvent, MapleObserver, MapleTree, NodeSummary};
use crate::trace::MAX_TRACE_BYTES;

/// The tree at one point: its height and its nodes in pre-order (what a view draws). An
/// allocator profile that keeps a maple tree can hand a view the same type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapleSnap {
    pub height: u32,
    pub nodes: Vec<NodeSummary>,
}

impl MapleSnap {
    pub fn of<O: MapleObserver>(t: &MapleTree<O>) -> MapleSnap {
        MapleSnap { height: t.height(), nodes: t.nodes() }
    }
}

/// One operation line of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapleOpLine {
    /// 1-based line of the trace text.
    pub line: usize,
    pub text: String,
    pub op: MapleOp,
}

/// One frame: an event and the index of the tree in force after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapleFrame {
    pub event: MapleEvent,
    pub tree: usize,
}

/// All the micro-steps of one operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapleOpFrames {
    pub index: usize,
    pub line: usize,
    pub text: String,
    pub output: String,
    /// `trees[0]` is the tree before the operation, the last one the tree after it.
    pub trees: Vec<MapleSnap>,
    pub frames: Vec<MapleFrame>,
}

/// Records events and the nodes after each gap update.
#[derive(Default)]
struct Recorder {
    frames: Vec<MapleFrame>,
    trees: Vec<MapleSnap>,
}

impl MapleObserver for Recorder {
    const NODES: bool = true;
    fn event(&mut self, ev: MapleEvent) {
        let tree = self.trees.len().saturating_sub(1);
        self.frames.push(MapleFrame { event: ev, tree });
    }
    fn nodes(&mut self, nodes: Vec<NodeSummary>, height: u32) {
        self.trees.push(MapleSnap { height, nodes });
        if let Some(f) = self.frames.last_mut() {
            f.tree = self.trees.len() - 1;
        }
    }
}

/// Apply one operation; its output line(s) as the conformance vectors print them.
fn apply<O: MapleObserver>(t: &mut MapleTree<O>, op: MapleOp) -> String {
    match op {
        MapleOp::Nothing => String::new(),
        MapleOp::Store(a, b) => {
            format!("store {a:#x} {b:#x} {}\n", status(t.store_range(a, b, Some(MapleEntry::Zero))))
        }
        MapleOp::Erase(a, b) => format!("erase {a:#x} {b:#x} {}\n", status(t.store_range(a, b, None))),
        MapleOp::Empty(min, max, size) => match t.empty_area(min, max, size) {
            Ok((i, l)) => format!("empty {min:#x} {max:#x} {size:#x} -> {i:#x} {l:#x}\n"),
            Err(MapleError::Busy) => format!("empty {min:#x} {max:#x} {size:#x} -> EBUSY\n"),
            Err(MapleError::Invalid) => format!("empty {min:#x} {max:#x} {size:#x} -> EINVAL\n"),
        },
        MapleOp::Dump => t.dump(),
    }
}

fn status(r: Result<(), MapleError>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => format!("err {}", e.errno()),
    }
}

/// A `profile maple-tree` trace replayed with checkpoints.
#[derive(Clone)]
pub struct MapleSession {
    ops: Vec<MapleOpLine>,
    outputs: Vec<String>,
    /// `checkpoints[i]` is the tree before op `i * every`.
    checkpoints: Vec<MapleTree>,
    current: MapleTree,
    every: usize,
    /// Line number the next pushed line gets.
    next_line: usize,
}

impl Default for MapleSession {
    fn default() -> Self {
        MapleSession::new()
    }
}

fn err(line_no: usize, line: &str, kind: MapleTraceErrorKind) -> MapleTraceError {
    let t = line.trim();
    let mut quote: String = t.chars().take(80).collect();
    if t.chars().count() > 80 {
        quote.push('…');
    }
    MapleTraceError { line_no, quote, kind }
}

impl MapleSession {
    /// An empty tree (`MT_FLAGS_ALLOC_RANGE`), no operations.
    pub fn new() -> MapleSession {
        MapleSession::with_checkpoint_every(256)
    }

    pub fn with_checkpoint_every(every: usize) -> MapleSession {
        MapleSession {
            ops: Vec::new(),
            outputs: Vec::new(),
            checkpoints: vec![MapleTree::new(true)],
            current: MapleTree::new(true),
            every: every.max(1),
            // Line 1 is the `profile maple-tree` line of `trace_text`.
            next_line: 2,
        }
    }

    /// Parse and replay a whole trace; the first line that is neither blank nor a comment must
    /// be `profile maple-tree`. A bad line is an error naming it; nothing is kept.
    pub fn load(text: &str) -> Result<MapleSession, MapleTraceError> {
        if text.len() > MAX_TRACE_BYTES {
            return Err(err(1, "", MapleTraceErrorKind::Io(format!("the trace is over {MAX_TRACE_BYTES} bytes"))));
        }
        let mut s = MapleSession::new();
        let mut seen_profile = false;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let op = parse_maple_line(i + 1, line)?;
            if !seen_profile {
                // parse_maple_line accepts only `profile maple-tree` as a profile line.
                if op != MapleOp::Nothing {
                    return Err(err(i + 1, line, MapleTraceErrorKind::Profile));
                }
                seen_profile = true;
                continue;
            }
            if op == MapleOp::Nothing {
                return Err(err(
                    i + 1,
                    line,
                    MapleTraceErrorKind::Io("`profile` must be the first line of the trace".into()),
                ));
            }
            s.apply_op(MapleOpLine { line: i + 1, text: t.to_string(), op });
        }
        s.next_line = text.lines().count() + 1;
        Ok(s)
    }

    fn apply_op(&mut self, l: MapleOpLine) {
        let k = self.ops.len();
        if k > 0 && k.is_multiple_of(self.every) && self.checkpoints.len() <= k / self.every {
            self.checkpoints.push(self.current.clone());
        }
        let out = apply(&mut self.current, l.op);
        self.outputs.push(out);
        self.ops.push(l);
    }

    /// Append one operation line (`store`, `erase`, `empty`, `dump`); a bad line is refused
    /// with the core's message and changes nothing.
    pub fn push_text(&mut self, line: &str) -> Result<(), MapleTraceError> {
        let line_no = self.next_line;
        let op = parse_maple_line(line_no, line)?;
        if op == MapleOp::Nothing {
            return Err(err(line_no, line, MapleTraceErrorKind::Io("not an operation of the maple tree".into())));
        }
        self.next_line += 1;
        self.apply_op(MapleOpLine { line: line_no, text: line.trim().to_string(), op });
        Ok(())
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    pub fn op(&self, k: usize) -> Option<&MapleOpLine> {
        self.ops.get(k)
    }

    pub fn op_output(&self, k: usize) -> &str {
        self.outputs.get(k).map_or("", String::as_str)
    }

    /// Drop the operations from `k` on.
    pub fn truncate(&mut self, k: usize) {
        if k >= self.ops.len() {
            return;
        }
        self.current = self.tree_before(k);
        self.ops.truncate(k);
        self.outputs.truncate(k);
        self.checkpoints.truncate(k / self.every + 1);
        self.next_line = self.ops.last().map_or(2, |l| l.line + 1);
    }

    /// The trace as text (`profile maple-tree`, then one operation a line).
    pub fn trace_text(&self) -> String {
        let mut s = String::from("profile maple-tree\n");
        for l in &self.ops {
            s.push_str(&l.text);
            s.push('\n');
        }
        s
    }

    /// Everything the replay printed (the conformance output).
    pub fn output(&self) -> String {
        self.outputs.concat()
    }

    /// The tree before op `k` (clamped; `k == len()` is the current tree).
    fn tree_before(&self, k: usize) -> MapleTree {
        let k = k.min(self.ops.len());
        if k == self.ops.len() {
            return self.current.clone();
        }
        let c = (k / self.every).min(self.checkpoints.len().saturating_sub(1));
        let mut t = self.checkpoints.get(c).cloned().unwrap_or_else(|| MapleTree::new(true));
        for l in &self.ops[c * self.every..k] {
            apply(&mut t, l.op);
        }
        t
    }

    /// The tree's nodes before op `k` (`k == len()` for the current tree).
    pub fn state_before(&self, k: usize) -> MapleSnap {
        MapleSnap::of(&self.tree_before(k))
    }

    /// Frames of op `k`, or `None` past the end.
    pub fn frames(&self, k: usize) -> Option<MapleOpFrames> {
        let l = self.ops.get(k)?;
        let t = self.tree_before(k);
        let before = MapleSnap::of(&t);
        let mut t = t.with_obs(Recorder { frames: Vec::new(), trees: vec![before] });
        let output = apply(&mut t, l.op);
        let after = MapleSnap::of(&t);
        let mut rec = t.obs;
        if rec.trees.last() != Some(&after) {
            rec.trees.push(after);
        }
        // The store's last event shows the tree as the store left it.
        let last = rec.trees.len() - 1;
        for f in rec.frames.iter_mut().rev() {
            if matches!(f.event, MapleEvent::StoreDone { .. }) {
                f.tree = last;
                break;
            }
        }
        Some(MapleOpFrames {
            index: k,
            line: l.line,
            text: l.text.clone(),
            output,
            trees: rec.trees,
            frames: rec.frames,
        })
    }
}
