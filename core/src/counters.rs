//! Work counters, gathered by an observer: zero cost when not used.
//!
//! Counted from the step events, per operation and in total:
//! * `nodes_visited`: free-tree nodes visited by the search (descent and roll-back), busy-tree
//!   nodes passed by `find_va_links` on busy insert, and linux-5.1 busy-tree descents;
//! * `list_walked`: busy areas stepped over by linux-5.1's list walk;
//! * `comparisons`: the key/size tests those visits made (an estimate: the number of tests the
//!   kernel code evaluates at each visited node for the branch it takes);
//! * `rotations`, `recolors`, `propagations` (each `subtree_max_size` recomputation);
//! * `cache_lines`: distinct nodes touched during the operation (one line per 48-byte node).
//!
//! maple-rfc (spec §11.11), from its maple trees' events: `nodes_visited` counts the nodes the
//! gap search enters, `comparisons` the slots it scans (one gap test each), `propagations` the
//! gap updates, `cache_lines` the distinct maple nodes touched (one line per node visited,
//! scanned, written or restructured: a 256-byte node is four lines, its header and the slot it
//! reads share one, so one line per node is the floor); and of its own: `slots_scanned`,
//! `wasted_descents` (a descent that climbs back out), `ascents` (`mas_skip_node`),
//! `window_iterations`, `splits`, `rebalances`, `spanning_stores`, `bump_hits`.

use serde::Serialize;
use ts_rs::TS;

use crate::addr::Hex;
use crate::events::{Branch, Event, IndexView, MapleTreeKind, Observer, RollBackStep};
use crate::maple::MapleEvent;

/// The work of one operation or a sum. In JSON `ops` is a number and the counts travel as hex
/// text, as they always have: they are [`Hex`], which the observer adds to like a `u64`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, TS)]
pub struct Counters {
    pub ops: u64,
    pub nodes_visited: Hex,
    pub list_walked: Hex,
    pub comparisons: Hex,
    pub rotations: Hex,
    pub recolors: Hex,
    pub propagations: Hex,
    pub cache_lines: Hex,
    pub slots_scanned: Hex,
    pub wasted_descents: Hex,
    pub ascents: Hex,
    pub window_iterations: Hex,
    pub splits: Hex,
    pub rebalances: Hex,
    pub spanning_stores: Hex,
    pub bump_hits: Hex,
}

impl Counters {
    pub fn add(&mut self, o: &Counters) {
        self.ops += o.ops;
        self.nodes_visited += o.nodes_visited.0;
        self.list_walked += o.list_walked.0;
        self.comparisons += o.comparisons.0;
        self.rotations += o.rotations.0;
        self.recolors += o.recolors.0;
        self.propagations += o.propagations.0;
        self.cache_lines += o.cache_lines.0;
        self.slots_scanned += o.slots_scanned.0;
        self.wasted_descents += o.wasted_descents.0;
        self.ascents += o.ascents.0;
        self.window_iterations += o.window_iterations.0;
        self.splits += o.splits.0;
        self.rebalances += o.rebalances.0;
        self.spanning_stores += o.spanning_stores.0;
        self.bump_hits += o.bump_hits.0;
    }

    /// A single cost figure: node visits, list steps, propagation steps and rotations.
    pub fn work(&self) -> u64 {
        self.nodes_visited.0 + self.list_walked.0 + self.propagations.0 + self.rotations.0
    }
}

/// Counts the events of the current operation; call [`CounterObserver::end_op`] after each.
#[derive(Clone, Debug, Default)]
pub struct CounterObserver {
    pub op: Counters,
    pub total: Counters,
    touched: Vec<u32>,
    /// Maple nodes touched: (tree, vmap node of a busy tree, maple node id).
    maple_touched: Vec<(MapleTreeKind, u32, u32)>,
    /// A gap search descended and has not yet found, skipped or climbed back.
    descended: bool,
}

impl CounterObserver {
    fn touch(&mut self, id: u32) {
        if !self.touched.contains(&id) {
            self.touched.push(id);
        }
    }

    fn touch_maple(&mut self, t: (MapleTreeKind, u32, u32)) {
        if t.2 != u32::MAX && !self.maple_touched.contains(&t) {
            self.maple_touched.push(t);
        }
    }

    /// One maple tree's event (maple-rfc).
    fn maple(&mut self, tree: MapleTreeKind, vn: u32, ev: &MapleEvent) {
        let node = match *ev {
            MapleEvent::NodeVisited { node, .. } => {
                self.op.nodes_visited += 1;
                node
            }
            MapleEvent::SlotScanned { node, .. } => {
                self.op.slots_scanned += 1;
                self.op.comparisons += 1;
                node
            }
            MapleEvent::Descend { node, .. } => {
                self.descended = true;
                node
            }
            MapleEvent::Skip { node, .. } => {
                self.descended = false;
                node
            }
            MapleEvent::Ascend { node } => {
                self.op.ascents += 1;
                if std::mem::take(&mut self.descended) {
                    self.op.wasted_descents += 1;
                }
                node
            }
            MapleEvent::HoleFound { .. } => {
                self.descended = false;
                u32::MAX
            }
            MapleEvent::NoHole { .. } => {
                self.descended = false;
                // A window-loop iteration whose search failed (the loop then gives up): the
                // others end in a `WindowHole`.
                if tree == MapleTreeKind::Occupied {
                    self.op.window_iterations += 1;
                }
                u32::MAX
            }
            MapleEvent::GapUpdate { node, .. } => {
                self.op.propagations += 1;
                node
            }
            MapleEvent::StoreTypeChosen { node, .. } => node,
            MapleEvent::Rebalance { node } => {
                self.op.rebalances += 1;
                node
            }
            MapleEvent::Split { .. } => {
                self.op.splits += 1;
                u32::MAX
            }
            MapleEvent::Spanning { .. } => {
                self.op.spanning_stores += 1;
                u32::MAX
            }
            MapleEvent::StoreBegin { .. } | MapleEvent::PushToSibling { .. } | MapleEvent::StoreDone { .. } => u32::MAX,
        };
        self.touch_maple((tree, vn, node));
    }

    /// Close the current operation: fold it into the total and return it.
    pub fn end_op(&mut self) -> Counters {
        self.op.ops = 1;
        self.op.cache_lines = Hex((self.touched.len() + self.maple_touched.len()) as u64);
        self.touched.clear();
        self.maple_touched.clear();
        self.descended = false;
        let op = self.op;
        self.total.add(&op);
        self.op = Counters::default();
        op
    }
}

impl Observer for CounterObserver {
    fn event(&mut self, ev: Event, _index: IndexView<'_>) {
        match ev {
            Event::Visit { id, branch, .. } => {
                self.op.nodes_visited += 1;
                self.op.comparisons += match branch {
                    Branch::Left => 2,
                    Branch::This => 3,
                    Branch::Right | Branch::RollBack => 4,
                };
                self.touch(id);
            }
            Event::RollBack { id, step, .. } => {
                self.op.nodes_visited += 1;
                self.op.comparisons += if step == RollBackStep::This { 1 } else { 3 };
                self.touch(id);
            }
            Event::WalkTree { id, .. } => {
                self.op.nodes_visited += 1;
                self.op.comparisons += 2;
                self.touch(id);
            }
            Event::WalkArea { id, .. } => {
                self.op.list_walked += 1;
                self.op.comparisons += 3;
                self.touch(id);
            }
            Event::BusyInsert { id, depth, .. } => {
                self.op.nodes_visited += u64::from(depth);
                self.op.comparisons += 2 * u64::from(depth);
                self.touch(id);
            }
            Event::Rotate { old_top, new_top, .. } => {
                self.op.rotations += 1;
                self.touch(old_top);
                self.touch(new_top);
            }
            Event::Recolor { id, .. } => {
                self.op.recolors += 1;
                self.touch(id);
            }
            Event::Propagate { id, .. } | Event::PropagateStop { id, .. } => {
                self.op.propagations += 1;
                self.touch(id);
            }
            Event::Maple { tree, node, ref event } => self.maple(tree, node, event),
            Event::WindowHole { skipped, .. } => self.op.window_iterations += 1 + u64::from(skipped),
            Event::BumpHit { .. } => self.op.bump_hits += 1,
            Event::Link { id, .. }
            | Event::Erase { id, .. }
            | Event::Clip { id, .. }
            | Event::AugmentSet { id, .. } => self.touch(id),
            _ => {}
        }
    }
}
