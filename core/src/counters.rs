//! Work counters, gathered by an observer: zero cost when not used.
//!
//! Counted from the step events, per operation and in total:
//! * `nodes_visited`: free-tree nodes visited by the search (descent and roll-back), busy-tree
//!   nodes passed by `find_va_links` on busy insert, and linux-5.1 busy-tree descents;
//! * `list_walked`: busy areas stepped over by linux-5.1's list walk;
//! * `comparisons`: the key/size tests those visits made (an estimate: the number of tests the
//!   kernel code evaluates at each visited node for the branch it takes);
//! * `rotations`, `recolors`, `propagations` (each `subtree_max_size` recomputation);
//! * `cache_lines`: distinct nodes touched during the operation (one line per 56-byte node).

use serde::Serialize;
use ts_rs::TS;

use crate::events::{Branch, Event, IndexView, Observer, RollBackStep};

/// The work of one operation or a sum. In JSON `ops` is a number and the counts travel as hex
/// text (`Hex`), as they always have; the observer adds to them on every event, hence `u64`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, TS)]
pub struct Counters {
    pub ops: u64,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Hex")]
    pub nodes_visited: u64,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Hex")]
    pub list_walked: u64,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Hex")]
    pub comparisons: u64,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Hex")]
    pub rotations: u64,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Hex")]
    pub recolors: u64,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Hex")]
    pub propagations: u64,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Hex")]
    pub cache_lines: u64,
}

impl Counters {
    pub fn add(&mut self, o: &Counters) {
        self.ops += o.ops;
        self.nodes_visited += o.nodes_visited;
        self.list_walked += o.list_walked;
        self.comparisons += o.comparisons;
        self.rotations += o.rotations;
        self.recolors += o.recolors;
        self.propagations += o.propagations;
        self.cache_lines += o.cache_lines;
    }

    /// A single cost figure: node visits, list steps, propagation steps and rotations.
    pub fn work(&self) -> u64 {
        self.nodes_visited + self.list_walked + self.propagations + self.rotations
    }
}

/// Counts the events of the current operation; call [`CounterObserver::end_op`] after each.
#[derive(Clone, Debug, Default)]
pub struct CounterObserver {
    pub op: Counters,
    pub total: Counters,
    touched: Vec<u32>,
}

impl CounterObserver {
    fn touch(&mut self, id: u32) {
        if !self.touched.contains(&id) {
            self.touched.push(id);
        }
    }

    /// Close the current operation: fold it into the total and return it.
    pub fn end_op(&mut self) -> Counters {
        self.op.ops = 1;
        self.op.cache_lines = self.touched.len() as u64;
        self.touched.clear();
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
            Event::Link { id, .. }
            | Event::Erase { id, .. }
            | Event::Clip { id, .. }
            | Event::AugmentSet { id, .. } => self.touch(id),
            _ => {}
        }
    }
}
