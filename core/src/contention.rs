//! A lock-contention model: replay a workload on N simulated CPUs sharing one allocator and
//! charge each operation's work to the locks the kernel takes for it.
//!
//! ```text
//!   cpu0  |--outside--|==free lock==|-busy-|          |--outside--|....wait....|==free==|
//!   cpu1        |--outside--|..wait..|==free lock==|-busy-|
//! ```
//!
//! * Work is measured by the core itself: each step event is one unit (a node touched), a
//!   busy insert costs its descent depth. Work outside any lock (page allocation, mapping)
//!   is a fixed `outside_cost` per operation.
//! * Locks: linux-5.1/5.2/6.1 take one global lock for the free tree and the busy tree (5.x's
//!   lazy list is lock-free); linux-6.9 takes the free-tree lock only when the pool misses,
//!   and per-node locks for busy, lazy and pools. maple-rfc (spec §11.4–§11.5) as 6.9, with its
//!   occupied tree's gap search, window loop and store, a chunk refill and release under the
//!   global `free_vmap_area_lock`, its busy maple trees under the per-node locks, and the bump
//!   overlay's hit, miss, lookup and unlink under no lock at all (per-CPU, preemption off).
//! * The next operation is always the one of the CPU that is ready first (ties: round-robin,
//!   or seeded random); locks are granted in that order.
//!
//! This is a model, not a measurement: it shows where the serialisation is, not real times.

use serde::Serialize;
use ts_rs::TS;

use crate::era::Vmap;
use crate::events::{Event, IndexView, MapleTreeKind, Observer};
use crate::profile::Profile;
use crate::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};
use crate::workload::Rng;

/// How ties between CPUs ready at the same time are broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Interleave {
    RoundRobin,
    Random(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ContentionParams {
    pub profile: Profile,
    pub cpus: u32,
    /// alloc + vfree pairs per CPU.
    pub pairs_per_cpu: usize,
    /// Pages per vmalloc (the guard page is added).
    pub pages: u64,
    /// Work outside any lock per operation, in units.
    pub outside_cost: f64,
    pub interleave: Interleave,
    /// maple-rfc: the per-CPU bump overlay (`bump on|off`); ignored by the other profiles.
    pub bump: bool,
}

impl ContentionParams {
    pub fn new(profile: Profile, cpus: u32) -> Self {
        ContentionParams {
            profile,
            cpus,
            pairs_per_cpu: 2000,
            pages: 1,
            outside_cost: 40.0,
            interleave: Interleave::RoundRobin,
            bump: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct ContentionResult {
    pub profile: Profile,
    pub cpus: u32,
    pub ops: u64,
    /// Simulated time until the last CPU finished, in units.
    pub makespan: f64,
    /// Operations per 1000 units.
    pub throughput: f64,
    /// Share of the makespan during which the global (or free-tree) lock was held.
    pub global_lock_hold: f64,
    /// Share of all CPU time spent waiting for any lock.
    pub wait_share: f64,
    /// Share of operations that took the global (free-tree) lock.
    pub global_lock_ops: f64,
}

/// Work done under no lock (maple-rfc's per-CPU bump overlay).
const NO_LOCK: usize = usize::MAX;

/// Lock 0 is the global (5.x/6.1) or free-tree (6.9) lock; then busy, lazy, pool per node.
struct LockMeter {
    profile: Profile,
    nodes: u64,
    zone: u64,
    phases: Vec<(usize, f64)>,
}

impl LockMeter {
    fn charge(&mut self, lock: usize, units: f64) {
        match self.phases.last_mut() {
            Some((l, u)) if *l == lock => *u += units,
            _ => self.phases.push((lock, units)),
        }
    }
    fn node_of(&self, addr: u64) -> usize {
        ((addr / self.zone) % self.nodes) as usize
    }
    fn per_node(&self, kind: usize, node: usize) -> usize {
        if self.profile.per_cpu() {
            1 + kind * self.nodes as usize + node
        } else {
            0
        }
    }
}

impl Observer for LockMeter {
    fn event(&mut self, ev: Event, _index: IndexView<'_>) {
        match ev {
            Event::BusyInsert { va_start, depth, .. } => {
                let l = self.per_node(0, self.node_of(va_start.0));
                self.charge(l, 1.0 + f64::from(depth));
            }
            Event::BusyRemove { va_start, .. } => {
                let l = self.per_node(0, self.node_of(va_start.0));
                self.charge(l, 4.0);
            }
            Event::LazyEnqueue { va_start, .. } => {
                if self.profile.lazy_in_busy() {
                    // find_vmap_area under vmap_area_lock; then llist_add, lock-free.
                    self.charge(0, 2.0)
                } else {
                    let l = self.per_node(1, self.node_of(va_start.0));
                    self.charge(l, 2.0);
                }
            }
            Event::PoolHit { node, .. }
            | Event::PoolMiss { node, .. }
            | Event::PoolRotate { node, .. }
            | Event::Pooled { node, .. }
            | Event::Decay { node, .. } => {
                let l = self.per_node(2, node as usize);
                self.charge(l, 1.0);
            }
            Event::PurgeStart { .. } | Event::PurgeEnd { .. } | Event::Allocated { .. } | Event::AllocFailed { .. } => {
            }
            // maple-rfc: a node's busy tree under that node's busy lock; the occupied tree, the
            // window loop, refill and release (below, as everything else) under the global lock.
            Event::Maple { tree: MapleTreeKind::Busy, node, .. } | Event::BusyOverlapMissed { node, .. } => {
                let l = self.per_node(0, node as usize);
                self.charge(l, 1.0);
            }
            // The bump overlay's own steps: per-CPU, no lock.
            Event::BumpHit { .. }
            | Event::BumpMiss { .. }
            | Event::BumpFastReject { .. }
            | Event::BumpUnlink { .. } => self.charge(NO_LOCK, 1.0),
            // Everything else is free-tree work (search, clip, rotations, propagation, merges).
            _ => self.charge(0, 1.0),
        }
    }
}

/// Run the model once.
pub fn simulate(p: &ContentionParams) -> ContentionResult {
    let cpus = p.cpus.max(1);
    let mut v = Vmap::new(p.profile);
    // Always valid: 1..=65536 is checked by the caller's clamp.
    let _ = v.set_cpus(u64::from(cpus.min(65536)));
    v.ensure_init();
    // maple-rfc keeps its vmap nodes (and their zone size) in its own state.
    let (nodes, zone) = match v.rfc() {
        Some(r) => (r.nodes.len().max(1), r.zone_size.max(1)),
        None => (v.nr_vmap_nodes() as usize, v.zone_size),
    };
    if p.profile == Profile::MapleRfc {
        v.set_bump(p.bump);
    }
    let nlocks = if p.profile.per_cpu() { 1 + 3 * nodes } else { 1 };
    let mut lock_free = vec![0.0f64; nlocks];
    let mut global_hold = 0.0;
    let mut wait = 0.0;
    let mut global_ops = 0u64;
    let mut ready = vec![0.0f64; cpus as usize];
    let mut held: Vec<Option<u64>> = vec![None; cpus as usize];
    let mut done = vec![0usize; cpus as usize];
    let total_ops = 2 * p.pairs_per_cpu * cpus as usize;
    let mut rng = Rng::new(match p.interleave {
        Interleave::Random(s) => s,
        Interleave::RoundRobin => 0,
    });
    let mut rr = 0usize;
    let size = (p.pages + 1) * PAGE_SIZE;
    let mut meter = LockMeter { profile: p.profile, nodes: nodes as u64, zone, phases: Vec::new() };
    for _ in 0..total_ops {
        // The CPU ready first; ties broken round-robin or at random.
        let mut best = f64::INFINITY;
        let mut cands: Vec<usize> = Vec::new();
        for c in 0..cpus as usize {
            if done[c] >= 2 * p.pairs_per_cpu {
                continue;
            }
            if ready[c] < best {
                best = ready[c];
                cands.clear();
            }
            if ready[c] == best {
                cands.push(c);
            }
        }
        let Some(&first) = cands.first() else { break };
        let c = match p.interleave {
            Interleave::RoundRobin => *cands.iter().find(|&&x| x >= rr).unwrap_or(&first),
            Interleave::Random(_) => cands[rng.below(cands.len() as u64) as usize],
        };
        rr = (c + 1) % cpus as usize;
        let _ = v.set_cpu(c as u64);
        meter.phases.clear();
        match held[c].take() {
            None => {
                if let Ok(a) = v.alloc(size, 1, VMALLOC_START, VMALLOC_END, &mut meter) {
                    held[c] = Some(a);
                }
            }
            Some(a) => {
                let _ = v.vfree(a, &mut meter);
            }
        }
        done[c] += 1;
        let mut t = ready[c] + p.outside_cost;
        if meter.phases.iter().any(|(l, _)| *l == 0) {
            global_ops += 1;
        }
        for &(l, units) in &meter.phases {
            if l == NO_LOCK {
                t += units;
                continue;
            }
            let start = t.max(lock_free[l]);
            wait += start - t;
            lock_free[l] = start + units;
            if l == 0 {
                global_hold += units;
            }
            t = start + units;
        }
        ready[c] = t;
    }
    let makespan = ready.iter().cloned().fold(0.0, f64::max).max(1.0);
    ContentionResult {
        profile: p.profile,
        cpus,
        ops: total_ops as u64,
        makespan,
        throughput: total_ops as f64 * 1000.0 / makespan,
        global_lock_hold: global_hold / makespan,
        wait_share: wait / (makespan * f64::from(cpus)),
        global_lock_ops: global_ops as f64 / total_ops.max(1) as f64,
    }
}

/// The model for each CPU count of `cpus`.
pub fn sweep(profile: Profile, cpus: &[u32], pairs_per_cpu: usize) -> Vec<ContentionResult> {
    sweep_bump(profile, cpus, pairs_per_cpu, true)
}

/// [`sweep`] with maple-rfc's bump overlay on or off.
pub fn sweep_bump(profile: Profile, cpus: &[u32], pairs_per_cpu: usize, bump: bool) -> Vec<ContentionResult> {
    cpus.iter()
        .map(|&n| {
            let mut p = ContentionParams::new(profile, n);
            p.pairs_per_cpu = pairs_per_cpu;
            p.bump = bump;
            simulate(&p)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cpu_never_waits() {
        let r = simulate(&ContentionParams { pairs_per_cpu: 300, ..ContentionParams::new(Profile::Linux52, 1) });
        assert_eq!(r.wait_share, 0.0);
        assert_eq!(r.ops, 600);
    }

    #[test]
    fn nodes_take_the_global_lock_less_often_and_scale_better() {
        let old = simulate(&ContentionParams { pairs_per_cpu: 400, ..ContentionParams::new(Profile::Linux61, 16) });
        let new = simulate(&ContentionParams { pairs_per_cpu: 400, ..ContentionParams::new(Profile::Linux69, 16) });
        assert!(new.global_lock_ops < old.global_lock_ops, "{new:?} vs {old:?}");
        assert!(new.throughput > old.throughput, "{new:?} vs {old:?}");
        // With one global lock every op takes it.
        assert_eq!(old.global_lock_ops, 1.0);
    }

    #[test]
    fn the_bump_overlay_keeps_maple_rfc_off_the_global_lock() {
        let p = |bump| ContentionParams { pairs_per_cpu: 400, bump, ..ContentionParams::new(Profile::MapleRfc, 16) };
        let off = simulate(&p(false));
        let on = simulate(&p(true));
        // Without the overlay every allocation searches and stores under the global lock.
        assert!(off.global_lock_ops >= 0.5, "{off:?}");
        assert!(on.global_lock_ops < off.global_lock_ops / 2.0, "{on:?} vs {off:?}");
        assert!(on.throughput > off.throughput, "{on:?} vs {off:?}");
    }
}
