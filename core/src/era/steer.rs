//! Steering: the few changes a replay that follows a real kernel's capture makes to the model
//! besides the requests ([`Steer`]). The kernel made them on other CPUs, or before the
//! capture began, where no trace line shows them: an area placed busy at an address the file
//! shows, an area made lazy on the node whose list printed it, space taken out of the free
//! tree into no structure (pool entries from before the capture) and given back, a pool entry
//! moved, a purge stopped at a stage. The capture layer ([`crate::capture::oracle::Steered`])
//! decides when; this trait only does, on the allocator's own structures, what the kernel's
//! code would have left there. The vmap-node eras (6.9 and later) use all of it; elsewhere the
//! calls still work (one node, no pools).
//!
//! ```text
//!   capture::oracle::Steered  --(decides, logs, holds)-->  Steer (this trait)  -->  Vmap
//! ```

use super::ANY;
use crate::area::{VaTree, VmapArea, NIL, VN_SHIFT};
use crate::events::{NoObserver, Observer};
use crate::rbtree::Plain;
use crate::vmalloc::*;

use super::{Era, PurgeCause, PurgeResult, PurgeStop, Vmap, MAX_VA_SIZE_PAGES};

/// Where an address is in the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In a free block of the free tree.
    Free { start: u64, end: u64 },
    /// An entry of a node's pool (`idx + 1` pages), `pos` from the head.
    Pooled { node: u32, idx: u32, pos: u32, start: u64, end: u64 },
    /// In a busy area of a node.
    Busy { node: u32, start: u64, end: u64 },
    /// In a lazily freed area on a node's lazy list.
    Lazy { node: u32, start: u64, end: u64 },
    /// In none of them (outside the space, or a pool entry's interior is reported as pooled).
    Nowhere,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Place::Free { start, end } => write!(f, "in the free block [{start:#x}, {end:#x})"),
            Place::Pooled { node, idx, pos, start, end } => write!(
                f,
                "pooled: node {node}'s pool of {} pages, position {pos} from the head ([{start:#x}, {end:#x}))",
                idx + 1
            ),
            Place::Busy { node, start, end } => write!(f, "busy in node {node} ([{start:#x}, {end:#x}))"),
            Place::Lazy { node, start, end } => {
                write!(f, "lazily freed, on node {node}'s lazy list ([{start:#x}, {end:#x}))")
            }
            Place::Nowhere => f.write_str("outside every free block, pool, busy and lazy area"),
        }
    }
}

/// Where `addr` is: a free block, a pool entry, a busy or a lazy area (a purge part-way's
/// taken lists count as lazy).
pub fn locate(v: &Vmap, addr: u64) -> Place {
    let f = v.free.find_containing(&v.arena, addr);
    if let Some(x) = v.arena.try_get(f) {
        return Place::Free { start: x.va_start, end: x.va_end };
    }
    for (nid, n) in v.nodes.iter().enumerate() {
        let b = n.busy.find_containing(&v.arena, addr);
        if let Some(x) = v.arena.try_get(b) {
            return Place::Busy { node: nid as u32, start: x.va_start, end: x.va_end };
        }
        let l = n.lazy.find_containing(&v.arena, addr);
        if let Some(x) = v.arena.try_get(l) {
            return Place::Lazy { node: nid as u32, start: x.va_start, end: x.va_end };
        }
    }
    for (nid, list) in v.era.part_purge().into_iter().flat_map(|p| &p.lists).enumerate() {
        for &va in list {
            let x = v.arena.get(va);
            if x.va_start <= addr && addr < x.va_end {
                return Place::Lazy { node: nid as u32, start: x.va_start, end: x.va_end };
            }
        }
    }
    for (nid, n) in v.nodes.iter().enumerate() {
        for (idx, q) in n.pools.iter().enumerate() {
            for (pos, &va) in q.iter().enumerate() {
                let x = v.arena.get(va);
                if x.va_start <= addr && addr < x.va_end {
                    let (node, idx, pos) = (nid as u32, idx as u32, pos as u32);
                    return Place::Pooled { node, idx, pos, start: x.va_start, end: x.va_end };
                }
            }
        }
    }
    Place::Nowhere
}

/// The free tree as it was before a trial of takes ([`Steer::save_free`]): its objects and
/// root, and where the arena's objects ended.
pub struct FreeSaved {
    free: VaTree,
    objects: Vec<(u32, VmapArea)>,
    mark: crate::area::ArenaMark,
}

/// What the capture layer may change in the model besides the requests (see the module).
pub trait Steer {
    /// Put a busy area at exactly `[start, end)` (it must lie in a free block), marked as
    /// allocated for `node` (its vn_id: where `vfree` sends it; `None`: the node of its
    /// address, and back to the free tree at the purge).
    fn place_busy(&mut self, start: u64, end: u64, node: Option<u32>) -> Result<(), String>;
    /// Move the busy area at `start` to `node`'s lazy list, as `vfree` does for an area whose
    /// vn_id names `vn`, without the lazy threshold.
    fn make_lazy(&mut self, start: u64, node: u32, vn: Option<u32>) -> Result<(), String>;
    /// Say which node the busy area at `start` was allocated for (its vn_id).
    fn set_area_node(&mut self, start: u64, node: u32) -> Result<(), String>;
    /// Take `[start, end)` out of the free tree into nothing (no tree, no pool); the handle,
    /// or `None` (nothing changed) when the range is not a page-aligned part of one free block.
    fn take_free(&mut self, start: u64, end: u64) -> Option<u32>;
    /// Give an area that is in no tree and no pool back to the free tree, merged with its
    /// neighbours (as `reclaim_list_global` does).
    fn give_back(&mut self, va: u32);
    /// Take `[x, x + size)` out of the free tree into `node`'s pool of its size, at the tail
    /// (or the head, `head`). `false` (nothing changed) when the range is not inside one free
    /// block or has no pool.
    fn pool_at(&mut self, x: u64, size: u64, node: u32, head: bool) -> bool;
    /// [`Steer::pool_at`], at the head: behind the first `behind` entries (as many as stand).
    fn pool_at_pos(&mut self, x: u64, size: u64, node: u32, head: bool, behind: u32) -> bool;
    /// How many entries at the head of `node`'s pool for `size` `front` names (by their start),
    /// one after another.
    fn pool_front(&self, node: u32, size: u64, front: &dyn Fn(u64) -> bool) -> u32;
    /// Make the pool entry at `pos` of `node`'s pool `idx` busy, allocated for `vn`.
    fn take_pooled(&mut self, node: u32, idx: u32, pos: u32, vn: Option<u32>) -> bool;
    /// Take every pool entry that overlaps `[x, x + size)` out of its pool, into nothing.
    fn unpool_overlapping(&mut self, x: u64, size: u64) -> Vec<u32>;
    /// `node_pool_del_va`'s move of a misaligned head to the tail, alone.
    fn rotate_pool_head(&mut self, node: u32, size: u64);
    /// Take the lazy areas starting at `starts` off their lazy lists: handles and nodes.
    fn hold_lazy(&mut self, starts: &[u64]) -> Vec<(u32, u32)>;
    /// Put areas taken by [`Steer::hold_lazy`] back on their lazy lists.
    fn restore_lazy(&mut self, held: Vec<(u32, u32)>);
    /// Take every pool's entries out: (node, pool index, entries head first).
    fn hold_pools(&mut self) -> Vec<(u32, usize, Vec<u32>)>;
    /// `vmap_node_shrink_scan`: `decay_va_pool_node(vn, true)` on every node, each pool given
    /// back whole. How many entries.
    fn shrink_pools<O: Observer>(&mut self, obs: &mut O) -> usize;
    /// Put entries taken by [`Steer::hold_pools`] back, behind the ones pooled since.
    fn restore_pools_behind(&mut self, held: Vec<(u32, usize, Vec<u32>)>);
    /// Save the free tree before takes that may be undone ([`Steer::restore_free`]).
    fn save_free(&mut self) -> FreeSaved;
    /// Keep what was taken since `saved` (`true`) or undo it, objects and all (`false`).
    fn end_free_trial(&mut self, saved: FreeSaved, keep: bool);
    /// The drain's purge (6.9+) begun, or one begun taken further, to `stop` and no further:
    /// the rest waits for [`Steer::purge_rest`] (or the next purge). Other eras: the whole
    /// purge. What it processed.
    fn purge_to<O: Observer>(&mut self, stop: PurgeStop, obs: &mut O) -> PurgeResult;
    /// The rest of a purge stopped by [`Steer::purge_to`]: the nodes not yet taken, then every
    /// list not yet processed, in node order.
    fn purge_rest<O: Observer>(&mut self, obs: &mut O) -> PurgeResult;
}

/// The vn_id `alloc_vmap_area` gives an area allocated on `node` (default window).
fn vn_flags(node: Option<u32>) -> u32 {
    node.map_or(0, |n| Vmap::encode_vn_id(n) << VN_SHIFT)
}

/// The index of the pool for `size`.
fn pool_idx(size: u64) -> usize {
    (size.wrapping_sub(1) / PAGE_SIZE) as usize
}

impl Vmap {
    /// Clip `[start, end)` out of the free block holding it, into a fresh area in no tree.
    fn clip_free(&mut self, start: u64, end: u64) -> Option<u32> {
        match self.__alloc_vmap_area::<ANY, _>(end.wrapping_sub(start), 1, start, end, &mut NoObserver) {
            Ok(Some((a, _))) if a == start => Some(self.arena.alloc(start, end)),
            _ => None,
        }
    }
}

impl Steer for Vmap {
    fn place_busy(&mut self, start: u64, end: u64, node: Option<u32>) -> Result<(), String> {
        self.ensure_init();
        if end <= start || start & (PAGE_SIZE - 1) != 0 || end & (PAGE_SIZE - 1) != 0 {
            return Err(format!("[{start:#x}, {end:#x}) is not a page-aligned range"));
        }
        if node.is_some_and(|n| n >= self.nodes.len() as u32) {
            return Err(format!("node {} does not exist ({} vmap nodes)", node.unwrap_or(0), self.nodes.len()));
        }
        let Some(va) = self.clip_free(start, end) else {
            return Err(format!("[{start:#x}, {end:#x}) is not free: {}", locate(self, start)));
        };
        self.arena.at(va).set_flags(vn_flags(node));
        self.busy_insert(va, &mut NoObserver);
        Ok(())
    }

    fn make_lazy(&mut self, start: u64, node: u32, vn: Option<u32>) -> Result<(), String> {
        if node >= self.nodes.len() as u32 || !self.profile.has_vmap_nodes() {
            return Err(format!("node {node} has no lazy list ({} vmap nodes, {})", self.nodes.len(), self.profile));
        }
        let (nid, va) = self.find_busy(start).map_err(|e| e.to_string())?;
        self.busy_remove(nid, va, &mut NoObserver);
        self.arena.at(va).set_flags(vn_flags(vn));
        self.vmap_lazy_nr += self.arena.get(va).size() >> PAGE_SHIFT;
        insert_vmap_area::<Plain, NoObserver>(
            &mut self.arena,
            &mut self.nodes[node as usize].lazy,
            va,
            &mut NoObserver,
        );
        Ok(())
    }

    fn set_area_node(&mut self, start: u64, node: u32) -> Result<(), String> {
        if node >= self.nodes.len() as u32 {
            return Err(format!("node {node} does not exist"));
        }
        let (_, va) = self.find_busy(start).map_err(|e| e.to_string())?;
        self.arena.at(va).set_flags(vn_flags(Some(node)));
        Ok(())
    }

    fn take_free(&mut self, start: u64, end: u64) -> Option<u32> {
        if end <= start || start & (PAGE_SIZE - 1) != 0 || end & (PAGE_SIZE - 1) != 0 {
            return None;
        }
        let va = self.clip_free(start, end)?;
        self.arena.detach(va);
        Some(va)
    }

    fn give_back(&mut self, va: u32) {
        self.arena.detach(va);
        self.arena.at(va).set_flags(0);
        self.free_tree_add::<ANY, _>(va, &mut NoObserver);
    }

    fn pool_at(&mut self, x: u64, size: u64, node: u32, head: bool) -> bool {
        let idx = pool_idx(size);
        if node >= self.nodes.len() as u32 || size == 0 || idx >= MAX_VA_SIZE_PAGES {
            return false;
        }
        let Some(va) = self.clip_free(x, x.wrapping_add(size)) else {
            return false;
        };
        self.arena.at(va).set_flags(vn_flags(Some(node)));
        self.arena.detach(va);
        let pools = &mut self.nodes[node as usize].pools;
        if pools.len() <= idx {
            pools.resize_with(MAX_VA_SIZE_PAGES, Default::default);
        }
        if head {
            pools[idx].push_front(va);
        } else {
            pools[idx].push_back(va);
        }
        true
    }

    fn pool_at_pos(&mut self, x: u64, size: u64, node: u32, head: bool, behind: u32) -> bool {
        if !self.pool_at(x, size, node, head) {
            return false;
        }
        if head {
            // Walked down from the head to its place.
            let q = &mut self.nodes[node as usize].pools[pool_idx(size)];
            for i in 0..(behind as usize).min(q.len() - 1) {
                q.swap(i, i + 1);
            }
        }
        true
    }

    fn pool_front(&self, node: u32, size: u64, front: &dyn Fn(u64) -> bool) -> u32 {
        let arena = &self.arena;
        let q = self.nodes.get(node as usize).and_then(|n| n.pools.get(pool_idx(size)));
        q.map_or(0, |q| q.iter().take_while(|&&va| front(arena.get(va).va_start)).count() as u32)
    }

    fn take_pooled(&mut self, node: u32, idx: u32, pos: u32, vn: Option<u32>) -> bool {
        let Some(va) = self
            .nodes
            .get_mut(node as usize)
            .and_then(|n| n.pools.get_mut(idx as usize))
            .and_then(|q| q.remove(pos as usize))
        else {
            return false;
        };
        self.arena.at(va).set_flags(vn_flags(vn));
        self.busy_insert(va, &mut NoObserver);
        true
    }

    fn unpool_overlapping(&mut self, x: u64, size: u64) -> Vec<u32> {
        let end = x.saturating_add(size);
        let mut found = Vec::new();
        for n in self.nodes.iter_mut() {
            for q in n.pools.iter_mut() {
                let arena = &self.arena;
                // Looked at first, rewritten only where an entry goes.
                if !q.iter().any(|&va| {
                    let v = arena.get(va);
                    v.va_start < end && x < v.va_end
                }) {
                    continue;
                }
                q.retain(|&va| {
                    let v = arena.get(va);
                    let hit = v.va_start < end && x < v.va_end;
                    if hit {
                        found.push(va);
                    }
                    !hit
                });
            }
        }
        found
    }

    fn rotate_pool_head(&mut self, node: u32, size: u64) {
        let idx = pool_idx(size);
        if let Some(q) = self.nodes.get_mut(node as usize).and_then(|n| n.pools.get_mut(idx)) {
            if let Some(h) = q.pop_front() {
                q.push_back(h);
            }
        }
    }

    fn hold_lazy(&mut self, starts: &[u64]) -> Vec<(u32, u32)> {
        let mut held = Vec::new();
        for &s in starts {
            for nid in 0..self.nodes.len() {
                let va = self.nodes[nid].lazy.find_start(&self.arena, s);
                if va != NIL {
                    unlink_va::<Plain, NoObserver>(&mut self.arena, &mut self.nodes[nid].lazy, va, &mut NoObserver);
                    self.vmap_lazy_nr -= self.arena.get(va).size() >> PAGE_SHIFT;
                    held.push((va, nid as u32));
                    break;
                }
            }
        }
        held
    }

    fn restore_lazy(&mut self, held: Vec<(u32, u32)>) {
        for (va, nid) in held {
            self.arena.detach(va);
            self.vmap_lazy_nr += self.arena.get(va).size() >> PAGE_SHIFT;
            insert_vmap_area::<Plain, NoObserver>(
                &mut self.arena,
                &mut self.nodes[nid as usize].lazy,
                va,
                &mut NoObserver,
            );
        }
    }

    fn shrink_pools<O: Observer>(&mut self, obs: &mut O) -> usize {
        self.ensure_init();
        let n = self.nodes.iter().map(|n| n.pools.iter().map(|q| q.len()).sum::<usize>()).sum();
        for nid in 0..self.nodes.len() as u32 {
            self.decay_pools(nid, true, |len, _| len, obs);
        }
        n
    }

    fn hold_pools(&mut self) -> Vec<(u32, usize, Vec<u32>)> {
        let mut held = Vec::new();
        for (nid, n) in self.nodes.iter_mut().enumerate() {
            for (idx, q) in n.pools.iter_mut().enumerate() {
                if !q.is_empty() {
                    held.push((nid as u32, idx, q.drain(..).collect()));
                }
            }
        }
        held
    }

    fn restore_pools_behind(&mut self, held: Vec<(u32, usize, Vec<u32>)>) {
        for (nid, idx, entries) in held {
            let pools = &mut self.nodes[nid as usize].pools;
            if pools.len() <= idx {
                pools.resize_with(MAX_VA_SIZE_PAGES, Default::default);
            }
            pools[idx].extend(entries);
        }
    }

    /// The free tree's objects, the only ones a take changes (besides those it allocates,
    /// which lie past the slab's end until kept), so a trial costs the free tree, where a copy
    /// of the model costs every area:
    ///
    /// ```text
    ///   slab:  [ busy, lazy, pooled: untouched ][ free tree: saved ]...[ trial's own objects ]
    ///                                                                   ^ dropped, or kept
    /// ```
    fn save_free(&mut self) -> FreeSaved {
        let mut objects = Vec::with_capacity(self.free.len());
        objects.extend(self.free.iter(&self.arena).map(|(h, v)| (h, *v)));
        FreeSaved { free: self.free, objects, mark: self.arena.mark() }
    }

    fn end_free_trial(&mut self, saved: FreeSaved, keep: bool) {
        if keep {
            self.arena.settle(saved.mark);
            return;
        }
        self.arena.rewind(saved.mark);
        for (h, v) in saved.objects {
            *self.arena.at(h) = v;
        }
        self.free = saved.free;
    }

    fn purge_to<O: Observer>(&mut self, stop: PurgeStop, obs: &mut O) -> PurgeResult {
        self.ensure_init();
        if self.era.part_purge().is_some() {
            let decay = self.era_decay::<O>();
            return PurgeResult { entries: self.purge_advance(Some(stop), decay, obs) };
        }
        super::with_era!(self.profile, E => E::purge(self, PurgeCause::Forced, Some(stop), obs))
    }

    fn purge_rest<O: Observer>(&mut self, obs: &mut O) -> PurgeResult {
        self.ensure_init();
        if self.era.part_purge().is_none() {
            return PurgeResult { entries: 0 };
        }
        let decay = self.era_decay::<O>();
        PurgeResult { entries: self.purge_advance(None, decay, obs) }
    }
}
