//! A replayable session for players: the trace, each operation's output, checkpoints, and
//! on-demand frames (one per step event, with a snapshot of the free tree after it).
//!
//! ```text
//!   ops:          0   1   2   3 ... 255 256 257 ...
//!   checkpoints:  C0                    C256          (state *before* the op)
//!   state_before(k) = clone(C[k - k % every]) + replay the ops in between, events off
//!   frames(k)       = state_before(k) + replay op k with a snapshotting observer
//! ```
//! Stepping back is therefore exact and cheap on long traces.

use std::collections::VecDeque;
use std::fmt::Write;

use serde::Serialize;
use ts_rs::TS;

use crate::addr::Addr;

use crate::area::{AreaInfo, NIL};
use crate::counters::{CounterObserver, Counters};
use crate::era::Vmap;
use crate::error::VmapError;
use crate::events::{AreasView, Event, FitType, IndexView, NoObserver, Observer, TreeView};
use crate::maple::MapleTreeJson;
use crate::profile::Profile;
use crate::replay::{Outcome, ReplayError, Replayer};
use crate::trace::{parse_trace, LineParser, Op, TraceLine, MAX_TRACE_BYTES};

/// One free-tree node as a view draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct NodeSnap {
    pub id: u32,
    pub va_start: Addr,
    pub va_end: Addr,
    pub subtree_max_size: Addr,
    pub black: bool,
    pub parent: Option<u32>,
    pub left: Option<u32>,
    pub right: Option<u32>,
    pub depth: u32,
}

/// A busy (or 5.2 lazy-in-busy) area.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct BusySnap {
    pub id: u32,
    pub va_start: Addr,
    pub va_end: Addr,
    pub lazy: bool,
    pub node: u32,
}

/// A lazily freed area outside the busy tree (6.1 purge tree, 6.9 per-node lazy lists), with
/// the node whose list holds it (6.9: the node of the CPU that allocated it; 0 before).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct LazySnap {
    pub id: u32,
    pub va_start: Addr,
    pub va_end: Addr,
    pub node: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct PoolSnap {
    pub node: u32,
    pub pool: u32,
    pub entries: Vec<AreaInfo>,
}

/// One 64 MiB chunk of maple-rfc's per-CPU bump overlay (spec §11.5): `[base, limit)`, the
/// bump pointer (the next free address), the pages its areas hold (`alloced`), the CPU that owns
/// it and whether it is still that CPU's current chunk (else retired).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct ChunkSnap {
    pub base: Addr,
    pub limit: Addr,
    pub bump: Addr,
    pub pages: u64,
    pub owner_cpu: u32,
    pub current: bool,
}

/// Everything a view shows of the allocator at one point.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct StateSnap {
    /// False before the first operation: the free space shown is the boot default it will get.
    pub initialized: bool,
    pub profile: Profile,
    pub cpus: u32,
    pub cpu: u32,
    pub lazy_nr: u64,
    pub lazy_max: u64,
    pub nr_nodes: u32,
    pub zone_size: Addr,
    pub space: (Addr, Addr),
    /// The era's index: the free tree, or maple-rfc's occupied maple tree.
    pub index: IndexSnap,
    pub busy: Vec<BusySnap>,
    pub lazy: Vec<LazySnap>,
    pub pools: Vec<PoolSnap>,
    /// maple-rfc's bump chunks, newest first (empty for the other eras).
    pub chunks: Vec<ChunkSnap>,
    /// The index's memory: objects, maple nodes, chunk descriptors, bytes per live area.
    pub memory: crate::memory::IndexMemory,
}

/// A snapshot of the index an era keeps, tagged by its kind (`{"kind": "free_tree", ...}`):
/// what a view draws in the tree's place. The snapshot side of [`IndexView`]; a new kind of
/// index is a new variant of both.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum IndexSnap {
    /// The augmented red-black free tree: its root and its nodes in pre-order (linux-5.1
    /// keeps none: empty).
    FreeTree { root: Option<u32>, nodes: Vec<NodeSnap> },
    /// A maple tree (maple-rfc's occupied tree: its NULL ranges are the free space).
    Maple { tree: MapleTreeJson },
}

impl IndexSnap {
    /// The snapshot of what `v` shows; `None` for [`IndexView::Unchanged`].
    pub fn of(v: IndexView<'_>) -> Option<IndexSnap> {
        match v {
            IndexView::FreeTree(t) => {
                let nodes = snapshot_tree(t);
                Some(IndexSnap::FreeTree { root: nodes.first().map(|n| n.id), nodes })
            }
            IndexView::Maple(t) => Some(IndexSnap::Maple { tree: MapleTreeJson::of(t) }),
            IndexView::MapleNodes(s) => Some(IndexSnap::Maple { tree: MapleTreeJson::from_snap(s) }),
            IndexView::Unchanged => None,
        }
    }

    /// The free tree's nodes (pre-order), empty for another kind of index.
    pub fn free_nodes(&self) -> &[NodeSnap] {
        match self {
            IndexSnap::FreeTree { nodes, .. } => nodes,
            IndexSnap::Maple { .. } => &[],
        }
    }

    /// The maple tree, for a maple index.
    pub fn maple(&self) -> Option<&MapleTreeJson> {
        match self {
            IndexSnap::Maple { tree } => Some(tree),
            IndexSnap::FreeTree { .. } => None,
        }
    }
}

/// Pre-order snapshot of the free tree from its root (children before siblings). Reads through
/// the checked accessor: a `TreeView` is plain data anyone can build.
pub fn snapshot_tree(tv: TreeView<'_>) -> Vec<NodeSnap> {
    let a = tv.arena;
    let mut out = Vec::new();
    let mut stack = Vec::new();
    if tv.root != NIL {
        stack.push((tv.root, NIL, 0u32));
    }
    while let Some((n, parent, depth)) = stack.pop() {
        // Checked: the view may come from outside the crate.
        let v = a.area(n);
        out.push(NodeSnap {
            id: v.id,
            va_start: Addr(v.va_start),
            va_end: Addr(v.va_end),
            subtree_max_size: Addr(v.subtree_max_size()),
            black: v.is_black(),
            parent: a.id_of(parent),
            left: a.id_of(v.left),
            right: a.id_of(v.right),
            depth,
        });
        if v.right != NIL {
            stack.push((v.right, n, depth + 1));
        }
        if v.left != NIL {
            stack.push((v.left, n, depth + 1));
        }
    }
    out
}

/// The busy, lazy and pooled areas (and the lazy page count) at one point: what the address
/// bar shows besides the free tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct AreasSnap {
    pub lazy_nr: u64,
    pub busy: Vec<BusySnap>,
    pub lazy: Vec<LazySnap>,
    pub pools: Vec<PoolSnap>,
}

impl AreasSnap {
    pub fn of_state(s: &StateSnap) -> AreasSnap {
        AreasSnap { lazy_nr: s.lazy_nr, busy: s.busy.clone(), lazy: s.lazy.clone(), pools: s.pools.clone() }
    }
}

pub fn snapshot_areas(v: &Vmap) -> AreasSnap {
    // maple-rfc's areas are all its own (its Vmap keeps one empty node): the same snapshot as
    // the one its purge reports from inside, by construction (`AreasView for Vmap`).
    snapshot_view(v)
}

/// [`snapshot_areas`] of whatever an observer is shown ([`AreasView`]).
pub fn snapshot_view(v: &dyn AreasView) -> AreasSnap {
    let busy = v
        .busy_areas_all()
        .into_iter()
        .map(|(i, lazy, node)| BusySnap { id: i.id, va_start: i.va_start, va_end: i.va_end, lazy, node })
        .collect();
    AreasSnap {
        lazy_nr: v.lazy_pages(),
        busy,
        lazy: v
            .lazy_areas_by_node()
            .into_iter()
            .map(|(node, a)| LazySnap { id: a.id, va_start: a.va_start, va_end: a.va_end, node })
            .collect(),
        pools: v.pools().into_iter().map(|(node, pool, entries)| PoolSnap { node, pool, entries }).collect(),
    }
}

/// maple-rfc's bump chunks, newest first, as `busy` lists them.
pub fn snapshot_chunks(v: &Vmap) -> Vec<ChunkSnap> {
    v.bump_chunks()
        .into_iter()
        .map(|(c, current)| ChunkSnap {
            base: Addr(c.base),
            limit: Addr(c.limit),
            bump: Addr(c.bump),
            pages: c.alloced,
            owner_cpu: c.owner_cpu,
            current,
        })
        .collect()
}

pub fn snapshot_state(v: &Vmap) -> StateSnap {
    if !v.is_initialized() {
        let mut booted = v.clone();
        booted.ensure_init();
        return StateSnap { initialized: false, ..snapshot_state(&booted) };
    }
    let AreasSnap { lazy_nr, busy, lazy, pools } = snapshot_areas(v);
    StateSnap {
        initialized: true,
        profile: v.profile,
        cpus: v.cpus,
        cpu: v.cpu,
        lazy_nr,
        lazy_max: v.lazy_max_pages(),
        nr_nodes: v.nr_vmap_nodes(),
        zone_size: Addr(v.zone_size),
        space: (Addr(v.space.0), Addr(v.space.1)),
        index: snapshot_index(v),
        busy,
        lazy,
        pools,
        chunks: snapshot_chunks(v),
        memory: crate::memory::index_memory(v),
    }
}

/// The index `v` keeps, as a snapshot: whatever [`Vmap::index_view`] shows for its era.
pub fn snapshot_index(v: &Vmap) -> IndexSnap {
    IndexSnap::of(v.index_view()).unwrap_or(IndexSnap::FreeTree { root: None, nodes: Vec::new() })
}

/// One frame: an event and the indices of the index and area snapshots in force after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct Frame {
    pub event: Event,
    /// Index into [`OpFrames::trees`]: the era's index (free tree or maple tree) after this event.
    pub tree: usize,
    /// Index into [`OpFrames::areas`]: the busy, lazy and pooled areas after this event.
    pub areas: usize,
}

/// Records events, an index snapshot whenever an event may have changed the index, and an
/// area snapshot after every event that may have changed the busy, lazy or pooled areas (a
/// new one only when they differ from the last).
#[derive(Default)]
pub struct FrameRecorder {
    pub frames: Vec<Frame>,
    pub trees: Vec<IndexSnap>,
    pub areas: Vec<AreasSnap>,
}

/// Whether a free-tree event may have changed the free tree (a maple tree's snapshot is
/// compared with the last instead).
fn changes_tree(ev: &Event) -> bool {
    matches!(
        ev,
        Event::Clip { .. }
            | Event::Link { .. }
            | Event::Rotate { .. }
            | Event::Recolor { .. }
            | Event::Erase { .. }
            | Event::Unlinked { .. }
            | Event::Reset { .. }
            | Event::Propagate { .. }
            | Event::AugmentSet { .. }
            | Event::Merge { .. }
    )
}

impl Observer for FrameRecorder {
    const MAPLE_NODES: bool = true;

    fn event(&mut self, ev: Event, index: IndexView<'_>) {
        match index {
            IndexView::FreeTree(_) if !self.trees.is_empty() && !changes_tree(&ev) => {}
            IndexView::Unchanged => {}
            _ => {
                if let Some(s) = IndexSnap::of(index) {
                    // A maple tree is handed with every event: keep the snapshots that differ.
                    if matches!(index, IndexView::FreeTree(_)) || self.trees.last() != Some(&s) {
                        self.trees.push(s);
                    }
                }
            }
        }
        let areas = self.areas.len().saturating_sub(1);
        self.frames.push(Frame { event: ev, tree: self.trees.len().saturating_sub(1), areas });
    }

    fn areas_event(&mut self, ev: Event, v: &dyn AreasView) {
        let now = snapshot_view(v);
        if self.areas.last() != Some(&now) {
            self.areas.push(now);
        }
        self.event(ev, v.index_view());
    }
}

/// [`Session::marks`]: the operation split a block in two (an NE fit).
pub const MARK_SPLIT: u8 = 1;
/// [`Session::marks`]: the operation merged a freed block with a neighbour.
pub const MARK_MERGE: u8 = 2;
/// [`Session::marks`]: the operation rotated the free tree.
pub const MARK_ROTATE: u8 = 4;
/// A capture's allocation that an unknown of its start state explains ([`crate::capture::follow`]).
pub const MARK_EXPLAINED: u8 = 8;
/// A capture's allocation that nothing known explains.
pub const MARK_UNEXPLAINED: u8 = 16;
/// A capture's allocation that the trace does not show, made where the kernel's pool gave it.
pub const MARK_UNTRACED: u8 = 32;

struct MarkObserver(u8);

impl Observer for MarkObserver {
    fn event(&mut self, ev: Event, _index: IndexView<'_>) {
        self.0 |= match ev {
            Event::Clip { fit: FitType::NeFit, .. } => MARK_SPLIT,
            Event::Merge { .. } => MARK_MERGE,
            Event::Rotate { .. } => MARK_ROTATE,
            _ => 0,
        };
    }
}

/// All that one operation did, for a player.
#[derive(Clone, Debug, Serialize)]
pub struct OpFrames {
    pub index: usize,
    pub line: usize,
    pub text: String,
    pub output: String,
    pub warning: Option<String>,
    pub before: StateSnap,
    pub after: StateSnap,
    pub frames: Vec<Frame>,
    /// The index after each frame that changed it; `trees[0]` is `before`'s.
    pub trees: Vec<IndexSnap>,
    /// `areas[0]` is `before`'s; each frame names the one in force after its event.
    pub areas: Vec<AreasSnap>,
}

/// Summary of one operation (no frames).
#[derive(Clone, Debug, Serialize, TS)]
pub struct OpSummary {
    pub index: usize,
    pub line: usize,
    pub text: String,
    pub output: String,
    pub warning: Option<String>,
}

/// A trace replayed with checkpoints.
#[derive(Clone, Debug)]
pub struct Session {
    initial: Replayer,
    ops: Vec<TraceLine>,
    /// Concatenated output; `out_ends[k]` is where op k's output ends.
    output: String,
    out_ends: Vec<usize>,
    /// `(operation, error)` of each operation that warned, in operation order. The error, not
    /// its message: worded only when asked, so a trace of 10^6 refused frees keeps 10^6 small
    /// records, not 10^6 sentences.
    warnings: Vec<(usize, VmapError)>,
    checkpoints: Vec<Replayer>,
    every: usize,
    /// Live objects the checkpoints hold together (their memory grows with it).
    held: usize,
    current: Replayer,
}

/// The most live objects all checkpoints may hold together (about 60 bytes each in a copy of
/// the allocator: some 120 MB). Past it, every other checkpoint is dropped and the spacing
/// doubles, so a trace that keeps 555,000 areas alive keeps a few copies, not 256 (4 GB).
pub const CHECKPOINT_OBJECTS: usize = 2 << 20;

/// What a checkpoint holds: the allocator's live objects (areas, free blocks), at least 1.
fn weight(r: &Replayer) -> usize {
    r.vmap.rfc().map_or_else(|| r.vmap.arena.live(), |m| m.live_areas()) + 1
}

/// One operation with no one listening, out of line: the session's quiet callers (`push_line`,
/// the trial of `push_checked`, `replayer_before`) share one copy of the allocator's paths
/// rather than inline one each ([`Replayer::apply`] is inlined for the streaming replay).
#[inline(never)]
fn apply_quiet(r: &mut Replayer, op: &Op, out: &mut String) -> Result<Outcome, VmapError> {
    r.apply(op, out, &mut NoObserver)
}

impl Session {
    pub fn new(profile: Profile) -> Session {
        Session::with_checkpoint_every(profile, 256)
    }

    /// An empty session that keeps a copy of the allocator every `every` operations (at least
    /// 1): a larger spacing saves memory on long traces, a smaller one makes jumps cheaper.
    pub fn with_checkpoint_every(profile: Profile, every: usize) -> Session {
        let r = Replayer::new(profile);
        Session {
            initial: r.clone(),
            ops: Vec::new(),
            output: String::new(),
            out_ends: Vec::new(),
            warnings: Vec::new(),
            held: weight(&r),
            checkpoints: vec![r.clone()],
            every: every.max(1),
            current: r,
        }
    }

    /// Parse and replay a whole trace. All or nothing: on error nothing is kept.
    pub fn load(text: &str) -> Result<Session, ReplayError> {
        let lines = parse_trace(text).map_err(|e| ReplayError { line: e.line, msg: e.msg })?;
        let mut s = Session::with_checkpoint_every(Profile::default(), Session::spacing_for(lines.len()));
        for l in lines {
            s.push_line(l)?;
        }
        Ok(s)
    }

    /// The checkpoint spacing `load` uses for `n` operations: about 256 checkpoints whatever
    /// the length, never closer than 256 operations.
    pub fn spacing_for(n: usize) -> usize {
        (n / 256).max(256)
    }

    /// Apply one more operation at the end. On error the session is unchanged.
    pub fn push_line(&mut self, l: TraceLine) -> Result<(), ReplayError> {
        let k = self.ops.len();
        if k > 0 && k.is_multiple_of(self.every) && self.checkpoints.len() <= k / self.every {
            self.checkpoints.push(self.current.clone());
            self.held += weight(&self.current);
            self.thin_checkpoints();
        }
        if let Op::Profile(_) = l.op {
            if k > 0 {
                return Err(ReplayError {
                    line: l.line,
                    msg: "`profile` must come before every other operation".into(),
                });
            }
        }
        let mut out = std::mem::take(&mut self.output);
        let mark = out.len();
        // `apply` changes nothing when it fails, so no copy is needed for all-or-nothing.
        let res = apply_quiet(&mut self.current, &l.op, &mut out);
        match res {
            Ok(outcome) => {
                if let Outcome::Warned(e) = outcome {
                    self.warnings.push((k, e));
                }
                self.output = out;
                self.out_ends.push(self.output.len());
                if k == 0 {
                    if let Op::Profile(_) = l.op {
                        // A leading profile line defines the initial state too.
                        self.initial = self.current.clone();
                        self.checkpoints[0] = self.current.clone();
                    }
                }
                self.ops.push(l);
                Ok(())
            }
            Err(e) => {
                out.truncate(mark);
                self.output = out;
                Err(ReplayError::at(l.line, e))
            }
        }
    }

    /// Past [`CHECKPOINT_OBJECTS`], keep C0, C2, C4, ... and double the spacing (checkpoint `i`
    /// stays the state before op `i * every`), until the rest fit.
    fn thin_checkpoints(&mut self) {
        while self.held > CHECKPOINT_OBJECTS && self.checkpoints.len() > 2 {
            let mut i = 0;
            self.checkpoints.retain(|_| {
                i += 1;
                i % 2 == 1
            });
            self.every *= 2;
            self.held = self.checkpoints.iter().map(weight).sum();
        }
    }

    /// The spacing of the checkpoints now (doubled each time they were thinned).
    pub fn checkpoint_every(&self) -> usize {
        self.every
    }

    /// Parse one line and append it.
    pub fn push_text(&mut self, text: &str) -> Result<(), ReplayError> {
        let line = self.ops.last().map_or(1, |l| l.line + 1);
        match crate::trace::parse_line(text) {
            Ok(Some(op)) => self.push_line(TraceLine { line, op }),
            Ok(None) => Err(ReplayError { line, msg: "empty line".into() }),
            Err(msg) => Err(ReplayError { line, msg }),
        }
    }

    /// Apply one more line as a person typed it (the page's forms and its "Add an operation"
    /// field): like [`Session::push_text`], but a request that
    /// [`VmapError::is_caller_error`](crate::error::VmapError::is_caller_error) calls wrong
    /// (a free of nothing, a double free, an empty window, ...) is refused with
    /// [`VmapError::refusal`](crate::error::VmapError::refusal) instead of recorded with the
    /// kernel's warning. On error the session is unchanged.
    pub fn push_checked(&mut self, text: &str) -> Result<(), ReplayError> {
        let line = self.ops.last().map_or(1, |l| l.line + 1);
        let op = match crate::trace::parse_line(text) {
            Ok(Some(op)) => op,
            Ok(None) => return Err(ReplayError { line, msg: "empty line".into() }),
            Err(msg) => return Err(ReplayError { line, msg }),
        };
        // A trial on a copy: what the operation would answer at the end of the trace.
        let mut probe = self.current.clone();
        let mut out = String::new();
        match apply_quiet(&mut probe, &op, &mut out) {
            Ok(Outcome::Warned(e)) if e.is_caller_error() => return Err(ReplayError { line, msg: e.refusal() }),
            Err(e) => return Err(ReplayError { line, msg: e.refusal() }),
            _ => {}
        }
        self.push_line(TraceLine { line, op })
    }

    /// Drop every operation from `k` on.
    pub fn truncate(&mut self, k: usize) {
        if k >= self.ops.len() {
            return;
        }
        self.current = self.replayer_before(k);
        self.ops.truncate(k);
        self.out_ends.truncate(k);
        self.output.truncate(self.out_ends.last().copied().unwrap_or(0));
        self.warnings.retain(|w| w.0 < k);
        let keep = if k == 0 { 1 } else { (k - 1) / self.every + 1 };
        self.checkpoints.truncate(keep.max(1));
        if k == 0 {
            self.checkpoints[0] = self.initial.clone();
        }
        self.held = self.checkpoints.iter().map(weight).sum();
    }

    pub fn len(&self) -> usize {
        self.ops.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    pub fn ops(&self) -> &[TraceLine] {
        &self.ops
    }

    /// The whole output so far, as `vmap-replay` prints it.
    pub fn output(&self) -> &str {
        &self.output
    }

    pub fn op_output(&self, k: usize) -> &str {
        let s = if k == 0 { 0 } else { self.out_ends[k - 1] };
        &self.output[s..self.out_ends[k]]
    }

    fn warning(&self, k: usize) -> Option<String> {
        // Pushed in operation order (and `truncate` keeps a prefix): a binary search, so asking
        // every operation's summary stays linear however many operations warned.
        self.warnings.binary_search_by_key(&k, |w| w.0).ok().map(|i| self.warnings[i].1.to_string())
    }

    /// The trace as text.
    pub fn trace_text(&self) -> String {
        let ops: Vec<Op> = self.ops.iter().map(|l| l.op.clone()).collect();
        crate::trace::format_trace(&ops)
    }

    /// The allocator state before op `k` (`k == len()` gives the current state).
    pub fn replayer_before(&self, k: usize) -> Replayer {
        let k = k.min(self.ops.len());
        if k == self.ops.len() {
            return self.current.clone();
        }
        let c = (k / self.every).min(self.checkpoints.len() - 1);
        let mut r = self.checkpoints[c].clone();
        let mut sink = String::new();
        for l in &self.ops[c * self.every..k] {
            // These ops succeeded when pushed, so they succeed again.
            let _ = apply_quiet(&mut r, &l.op, &mut sink);
            sink.clear();
        }
        r
    }

    /// Replay ops `from..to` (clamped) from the nearest checkpoint with `obs`, calling `each`
    /// after every one of them.
    fn replay_range<O: Observer>(&self, from: usize, to: usize, obs: &mut O, mut each: impl FnMut(&mut O)) {
        let to = to.min(self.ops.len());
        let from = from.min(to);
        let mut r = self.replayer_before(from);
        let mut sink = String::new();
        for l in &self.ops[from..to] {
            // These ops succeeded when pushed, so they succeed again.
            let _ = r.apply(&l.op, &mut sink, obs);
            sink.clear();
            each(obs);
        }
    }

    /// The work counters of each operation in `from..to` (clamped) and their total, counted
    /// on a replay of that range (time proportional to it).
    pub fn counters(&self, from: usize, to: usize) -> (Vec<Counters>, Counters) {
        let mut c = CounterObserver::default();
        let mut per_op = Vec::new();
        self.replay_range(from, to, &mut c, |c| per_op.push(c.end_op()));
        (per_op, c.total)
    }

    /// What each operation in `from..to` (clamped) did that a timeline marks: a bit set of
    /// [`MARK_SPLIT`] (an NE fit), [`MARK_MERGE`] and [`MARK_ROTATE`], and a capture's
    /// [`MARK_EXPLAINED`], [`MARK_UNEXPLAINED`] and [`MARK_UNTRACED`] allocations. A replay without
    /// snapshots, for traces too large to ask every operation for its frames.
    pub fn marks(&self, from: usize, to: usize) -> Vec<u8> {
        let mut m = MarkObserver(0);
        let mut out = Vec::new();
        self.replay_range(from, to, &mut m, |m| out.push(std::mem::take(&mut m.0)));
        #[cfg(feature = "capture")]
        for (k, bits) in (from..).zip(out.iter_mut()) {
            if let Some(Op::Follow(f)) = self.ops.get(k).map(|l| &l.op) {
                *bits |= match f.mark() {
                    crate::capture::follow::Mark::Equal => 0,
                    crate::capture::follow::Mark::Untraced => MARK_UNTRACED,
                    crate::capture::follow::Mark::Unexplained => MARK_UNEXPLAINED,
                    _ => MARK_EXPLAINED,
                };
            }
        }
        out
    }

    pub fn state_before(&self, k: usize) -> StateSnap {
        snapshot_state(&self.replayer_before(k).vmap)
    }

    pub fn current(&self) -> &Replayer {
        &self.current
    }

    pub fn summary(&self, k: usize) -> OpSummary {
        let l = &self.ops[k];
        OpSummary {
            index: k,
            line: l.line,
            text: l.op.to_string(),
            output: self.op_output(k).to_string(),
            warning: self.warning(k),
        }
    }

    /// Every micro-step of op `k`, with the states around it.
    pub fn frames(&self, k: usize) -> Option<OpFrames> {
        let l = self.ops.get(k)?;
        let mut r = self.replayer_before(k);
        let before = snapshot_state(&r.vmap);
        let mut rec = FrameRecorder::default();
        rec.trees.push(before.index.clone());
        rec.areas.push(AreasSnap::of_state(&before));
        let mut out = String::new();
        let _ = r.apply(&l.op, &mut out, &mut rec);
        Some(OpFrames {
            index: k,
            line: l.line,
            text: l.op.to_string(),
            output: out,
            warning: self.warning(k),
            before,
            after: snapshot_state(&r.vmap),
            frames: rec.frames,
            trees: rec.trees,
            areas: rec.areas,
        })
    }
}

/// A session opened a slice at a time, so that a caller with a frame budget (the page's main
/// thread) or a progress bar (its worker) never waits long: first the whole text is parsed (all
/// or nothing, as [`Session::load`]: the first bad line wins), then the operations are replayed.
/// Operations already in hand (a capture's replay, a generated workload) skip the text:
/// [`SessionBuilder::from_ops`].
///
/// ```text
///   new(text) -> advance(n) ... advance(n) == Done -> finish()
///                 parse n lines     replay n operations
///   from_ops(ops) ----------------> replay n operations
///   from_bytes(b) ----------------> replay n operations    (another instance's to_bytes())
/// ```
pub struct SessionBuilder {
    text: String,
    /// Byte offset of the next line to parse.
    pos: usize,
    line: usize,
    parser: LineParser,
    /// The lines parsed so far; once parsing is done, the lines still to replay, first first.
    lines: VecDeque<TraceLine>,
    /// Set once parsing is done: the operations replayed so far are its.
    session: Option<Session>,
}

/// [`SessionBuilder::lines`]: the lines replayed, then those still to replay.
struct Lines<'a> {
    done: std::slice::Iter<'a, TraceLine>,
    rest: std::collections::vec_deque::Iter<'a, TraceLine>,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a TraceLine;

    fn next(&mut self) -> Option<&'a TraceLine> {
        self.done.next().or_else(|| self.rest.next())
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.done.len() + self.rest.len();
        (n, Some(n))
    }
}

impl ExactSizeIterator for Lines<'_> {}

/// Where a [`SessionBuilder`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opening {
    /// Parsing: bytes done of the text's length.
    Parsing { done: usize, total: usize },
    /// Replaying: operations done of the trace's count.
    Replaying { done: usize, total: usize },
    /// Ready for [`SessionBuilder::finish`].
    Done,
}

impl SessionBuilder {
    pub fn new(text: String) -> Result<SessionBuilder, ReplayError> {
        if text.len() > MAX_TRACE_BYTES {
            return Err(ReplayError {
                line: 0,
                msg: format!("the trace is {} bytes; the limit is {} MiB", text.len(), MAX_TRACE_BYTES >> 20),
            });
        }
        Ok(SessionBuilder {
            text,
            pos: 0,
            line: 0,
            parser: LineParser::default(),
            lines: VecDeque::new(),
            session: None,
        })
    }

    /// Lines parsed already: only the replay is left. Checkpoints are spaced as
    /// [`Session::load`] spaces them for this length.
    pub fn from_lines(lines: Vec<TraceLine>) -> SessionBuilder {
        let every = Session::spacing_for(lines.len());
        SessionBuilder {
            text: String::new(),
            pos: 0,
            line: 0,
            parser: LineParser::default(),
            lines: lines.into(),
            session: Some(Session::with_checkpoint_every(Profile::default(), every)),
        }
    }

    /// Operations with no text behind them: operation `i` is line `i + 1`, the line it has in
    /// the trace [`format_trace`](crate::trace::format_trace) prints of them (one a line).
    pub fn from_ops(ops: Vec<Op>) -> SessionBuilder {
        SessionBuilder::from_lines(ops.into_iter().zip(1..).map(|(op, line)| TraceLine { line, op }).collect())
    }

    /// Do at most `n` lines of work (at least one); on error nothing is kept.
    pub fn advance(&mut self, n: usize) -> Result<Opening, ReplayError> {
        let n = n.max(1);
        if self.session.is_none() {
            for _ in 0..n {
                if self.pos >= self.text.len() {
                    // The lines hold what the replay needs: the text (up to 64 MiB) goes.
                    self.text = String::new();
                    self.pos = 0;
                    let every = Session::spacing_for(self.lines.len());
                    self.session = Some(Session::with_checkpoint_every(Profile::default(), every));
                    return Ok(self.status());
                }
                let rest = &self.text[self.pos..];
                let (l, step) = match rest.find('\n') {
                    Some(i) => (&rest[..i], i + 1),
                    None => (rest, rest.len()),
                };
                // `str::lines` drops a `\r` before the line break: so does this.
                let l = l.strip_suffix('\r').unwrap_or(l);
                self.line += 1;
                self.pos += step;
                if let Some(tl) =
                    self.parser.feed(self.line, l).map_err(|e| ReplayError { line: e.line, msg: e.msg })?
                {
                    self.lines.push_back(tl);
                }
            }
            return Ok(self.status());
        }
        if let Some(s) = self.session.as_mut() {
            for _ in 0..n {
                let Some(l) = self.lines.pop_front() else { break };
                s.push_line(l)?;
            }
        }
        Ok(self.status())
    }

    pub fn status(&self) -> Opening {
        match &self.session {
            None => Opening::Parsing { done: self.pos, total: self.text.len() },
            Some(s) if !self.lines.is_empty() => {
                Opening::Replaying { done: s.len(), total: s.len() + self.lines.len() }
            }
            Some(_) => Opening::Done,
        }
    }

    /// Every line parsed so far, replayed or not, in order.
    pub fn lines(&self) -> impl ExactSizeIterator<Item = &TraceLine> + '_ {
        let done = self.session.as_ref().map_or(&[][..], |s| s.ops());
        // `Chain` is not `ExactSizeIterator`; both parts are counted.
        Lines { done: done.iter(), rest: self.lines.iter() }
    }

    /// The trace of every line parsed so far, replayed or not, formatted now (the page asks for
    /// it only to show or export it).
    pub fn trace_text(&self) -> String {
        let mut out = String::new();
        for l in self.lines() {
            let _ = writeln!(out, "{}", l.op);
        }
        out
    }

    /// Every line parsed so far as bytes ([`crate::trace_bytes`]): what another instance of the
    /// core opens with [`SessionBuilder::from_bytes`], with no text in between.
    pub fn to_bytes(&self) -> Vec<u8> {
        crate::trace_bytes::encode(self.lines().map(|l| &l.op))
    }

    /// Operations from [`SessionBuilder::to_bytes`], ready to replay ([`SessionBuilder::from_ops`]).
    pub fn from_bytes(b: &[u8]) -> Result<SessionBuilder, crate::trace_bytes::BytesError> {
        crate::trace_bytes::decode(b).map(SessionBuilder::from_ops)
    }

    /// The session, once [`Opening::Done`]; `None` before.
    pub fn finish(self) -> Option<Session> {
        if self.status() == Opening::Done {
            self.session
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    /// A session refuses an input over its limit as a whole (its size), naming no line.
    #[test]
    fn a_size_refusal_names_no_line() {
        let e = super::SessionBuilder::new("purge\n".repeat((64 << 20) / 6 + 1)).err().unwrap();
        assert!(e.to_string().starts_with("the trace is 67108866 bytes; the limit is 64 MiB"), "{e}");
    }
}
