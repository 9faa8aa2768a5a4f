//! What a replay that follows a real kernel's capture ([`crate::capture`]) needs besides the
//! trace language: build the state `/proc/vmallocinfo` shows (busy areas, and lazy ones in the
//! vmap node whose list prints them), ask what an allocation would return without making it,
//! say where an address is in the model, and, where the capture shows the kernel did something
//! else, take that address where the kernel took it. The vmap-node eras only (6.9 and later);
//! the other eras have one node and no pools, and the calls still work there.
//!
//! [`Steered`] is the model with what capture keeps beside it (space held, the log of the
//! changes made, whether the drain waits for the trace); it changes the model only through
//! the era layer's steering trait ([`Steer`]).

#[cfg(feature = "capture")]
use crate::capture::follow::Follow;
use crate::era::steer::{FreeSaved, Steer};
use crate::era::{Drain, Profile, PurgeResult, PurgeStop, Vmap};
use crate::error::VmapError;
use crate::events::{NoObserver, Observer};
use crate::vmalloc::*;

pub use crate::era::steer::{locate, Place};

/// What [`Steered::predict_alloc`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prediction {
    /// The node whose pool `node_alloc` looks at (default window, several nodes).
    pub node: Option<u32>,
    /// The pool's head, when `node_pool_del_va` takes it.
    pub pool_hit: Option<u64>,
    /// The pool's head was not aligned: `node_pool_del_va` moves it to the tail.
    pub rotate: bool,
    /// The free tree's answer (when the pool gave nothing): `None` when nothing fits (the
    /// kernel would purge and retry).
    pub tree: Option<u64>,
}

impl Prediction {
    /// The address the allocation returns (before any purge-and-retry).
    pub fn addr(&self) -> Option<u64> {
        self.pool_hit.or(self.tree)
    }
}

/// A model under [`Steered::hold_trial`]: it can hold free space, give held space back, take
/// free space as its last step and be read, nothing else. What it changes is saved at its
/// first change: a trial that only reads costs nothing.
pub struct HoldTrial<'a>(&'a mut Steered, Option<TrialSaved>);

/// The model before a trial's first change: the free tree, the held space and the log.
struct TrialSaved {
    free: FreeSaved,
    held: Vec<u32>,
    held_objects: Vec<crate::area::VmapArea>,
    logged: Option<usize>,
}

impl HoldTrial<'_> {
    /// Save what the trial may change, once, before its first change.
    fn save(&mut self) -> &mut Steered {
        if self.1.is_none() {
            let s = &mut *self.0;
            let free = s.vmap.save_free();
            let held = s.held.clone();
            let held_objects = held.iter().map(|&va| *s.vmap.arena.get(va)).collect();
            let logged = s.oracle_log.as_ref().map(Vec::len);
            self.1 = Some(TrialSaved { free, held, held_objects, logged });
        }
        self.0
    }

    /// [`Steered::hold_free`].
    pub fn hold_free(&mut self, start: u64, end: u64) -> Option<u32> {
        self.save().hold_free(start, end)
    }

    /// [`Steered::release_held_at`].
    pub fn release_held_at(&mut self, start: u64) -> bool {
        self.save().release_held_at(start)
    }

    /// [`Steered::take_at`], as a trial's last step: the trial is kept when it succeeds, and a
    /// failure changes nothing.
    pub fn take_at(&mut self, x: u64, size: u64, node: Option<u32>) -> Option<Place> {
        self.save().take_at(x, size, node)
    }
}

impl std::ops::Deref for HoldTrial<'_> {
    type Target = Steered;
    fn deref(&self) -> &Steered {
        self.0
    }
}

/// A change to the model that a capture's replay made besides the requests (held space, pool
/// entries given back), logged in order while [`Steered::log_oracle`] is on: the printed trace
/// says each (core/src/capture/follow.rs), so that it replays to the same states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OracleChange {
    Hold(u64, u64),
    Release(u64),
    Unpool(u64, u64),
}

/// The model a capture steers, with what capture keeps beside it. Reads as the [`Vmap`] it
/// holds (`Deref`); the requests (`alloc`, `free`) go to the model unchanged, `vfree` leaves
/// the drain it schedules to the trace once [`Steered::set_defer_drain`] is on.
#[derive(Debug)]
pub struct Steered {
    vmap: Vmap,
    /// Space taken out of the free tree into no tree and no pool ([`Steered::hold_free`]):
    /// what a capture's before file shows free but the kernel held (pool entries it cannot
    /// show).
    held: Vec<u32>,
    /// What the replay changed besides the requests, in order, while it is `Some` (see
    /// [`OracleChange`]); cloned with the model, so a trial that is adopted brings its changes
    /// along.
    oracle_log: Option<Vec<OracleChange>>,
    /// `vfree` past the lazy threshold schedules the drain work and does not run it: a replay
    /// that follows a capture purges where the kernel traced the purge.
    defer_drain: bool,
}

impl std::ops::Deref for Steered {
    type Target = Vmap;
    #[inline(always)]
    fn deref(&self) -> &Vmap {
        &self.vmap
    }
}

impl std::ops::DerefMut for Steered {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut Vmap {
        &mut self.vmap
    }
}

/// A copy whose held handles reach the copy's objects (see [`Vmap::clone`]).
impl Clone for Steered {
    fn clone(&self) -> Self {
        let (vmap, reloc) = self.vmap.clone_relocating();
        let held = match reloc {
            Some(r) => self.held.iter().map(|&h| r.map(h)).collect(),
            None => self.held.clone(),
        };
        Steered { vmap, held, oracle_log: self.oracle_log.clone(), defer_drain: self.defer_drain }
    }
}

impl From<Vmap> for Steered {
    fn from(vmap: Vmap) -> Self {
        Steered { vmap, held: Vec::new(), oracle_log: None, defer_drain: false }
    }
}

impl Steered {
    pub fn new(profile: Profile) -> Self {
        Vmap::new(profile).into()
    }

    /// The model alone.
    pub fn vmap(&self) -> &Vmap {
        &self.vmap
    }

    /// The model, without what capture kept beside it.
    pub fn into_vmap(self) -> Vmap {
        self.vmap
    }

    /// The areas of the space held ([`Steered::hold_free`]): in no tree and no pool.
    pub fn held(&self) -> &[u32] {
        &self.held
    }

    /// `vfree`; the drain it schedules runs at once unless [`Steered::set_defer_drain`] is on
    /// (the capture's trace then says where it ran).
    pub fn vfree<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        if self.vmap.vfree_noflush(addr, obs)? == Drain::Scheduled && !self.defer_drain {
            self.vmap.drain(obs);
        }
        Ok(())
    }

    /// The lazy threshold schedules the drain instead of purging (see [`Steered::vfree`]).
    pub fn set_defer_drain(&mut self, on: bool) {
        self.defer_drain = on;
    }

    /// Log the changes of [`OracleChange`] from now on (`true`), or stop; what was logged is
    /// dropped either way.
    pub fn log_oracle(&mut self, on: bool) {
        self.oracle_log = on.then(Vec::new);
    }

    /// The changes logged since the last call.
    pub fn take_oracle_log(&mut self) -> Vec<OracleChange> {
        self.oracle_log.as_mut().map(std::mem::take).unwrap_or_default()
    }

    fn logged(&mut self, c: OracleChange) {
        if let Some(l) = self.oracle_log.as_mut() {
            l.push(c);
        }
    }

    /// [`Steer::place_busy`].
    pub fn place_busy(&mut self, start: u64, end: u64, node: Option<u32>) -> Result<(), String> {
        self.vmap.place_busy(start, end, node)
    }

    /// [`Steer::make_lazy`].
    pub fn make_lazy(&mut self, start: u64, node: u32, vn: Option<u32>) -> Result<(), String> {
        self.vmap.make_lazy(start, node, vn)
    }

    /// [`Steer::set_area_node`].
    pub fn set_area_node(&mut self, start: u64, node: u32) -> Result<(), String> {
        self.vmap.set_area_node(start, node)
    }

    /// The node the busy area at `start` will be lazily freed to (its vn_id, else its address).
    pub fn area_node(&self, start: u64) -> Option<u32> {
        let v = &self.vmap;
        let (_, va) = v.find_busy(start).ok()?;
        Some(v.decode_vn_id(v.arena.get(va).vn_id()).unwrap_or_else(|| v.addr_to_node_id(start)))
    }

    /// What `alloc` would return now on the current CPU, changing nothing: the pool of the
    /// CPU's node first (default window, several nodes, vmap-node eras), then the free tree.
    pub fn predict_alloc(&self, size: u64, align: u64, vstart: u64, vend: u64) -> Prediction {
        let v = &self.vmap;
        let mut p = Prediction { node: None, pool_hit: None, rotate: false, tree: None };
        if v.profile.has_vmap_nodes() && vstart == VMALLOC_START && vend == VMALLOC_END && v.nodes.len() > 1 {
            let nid = v.cpu % v.nodes.len() as u32;
            p.node = Some(nid);
            let idx = (size.wrapping_sub(1) / PAGE_SIZE) as usize;
            if let Some(&va) = v.nodes[nid as usize].pools.get(idx).and_then(|q| q.front()) {
                let x = v.arena.get(va);
                if x.va_start & align.wrapping_sub(1) != 0 {
                    p.rotate = true;
                } else if x.size() == size && x.va_start >= vstart && x.va_end <= vend {
                    p.pool_hit = Some(x.va_start);
                    return p;
                }
            }
        }
        let rule = v.profile.search_rule();
        let length = rule.length(size, align, vstart, vend);
        if let Ok(va) = find_vmap_lowest_match(&v.arena, &v.free, size, align, vstart, length, rule, &mut NoObserver) {
            if let Some(x) = v.arena.try_get(va) {
                let nva = if x.va_start > vstart { align_up(x.va_start, align) } else { align_up(vstart, align) };
                if nva.checked_add(size).is_some_and(|e| e <= vend && e <= x.va_end) && nva >= x.va_start {
                    p.tree = Some(nva);
                }
            }
        }
        p
    }

    /// The length `find_vmap_lowest_match` looks for (the size plus the alignment's overhead,
    /// where the era adjusts it): a block of it is found by the subtree sizes alone.
    pub fn search_length(&self, size: u64, align: u64, vstart: u64, vend: u64) -> u64 {
        self.vmap.profile.search_rule().length(size, align, vstart, vend)
    }

    /// What `find_vmap_lowest_match` may return for this request whatever the free tree's
    /// shape: the address in the lowest free block of at least the search length (size plus
    /// the alignment's overhead: that block is found by the subtree sizes alone), and the
    /// addresses in the lower blocks that fit the request exactly but are shorter than the
    /// search length (found only if one lies on the path to that block, where the walk turns
    /// right: the tree's shape decides). Ascending.
    pub fn search_outcomes(&self, size: u64, align: u64, vstart: u64, vend: u64) -> Vec<u64> {
        let v = &self.vmap;
        let length = self.search_length(size, align, vstart, vend);
        let mut out = Vec::new();
        for (_, x) in v.free.iter(&v.arena) {
            if x.va_end <= vstart {
                continue;
            }
            if x.va_start >= vend {
                break;
            }
            let nva = align_up(x.va_start.max(vstart), align);
            let fits = nva >= x.va_start && nva.checked_add(size).is_some_and(|e| e <= x.va_end && e <= vend);
            if !fits {
                continue;
            }
            out.push(nva);
            if x.va_end - x.va_start >= length && x.va_start >= vstart {
                break;
            }
        }
        out
    }

    /// Where `addr` is: a free block, a pool entry, a busy or a lazy area.
    pub fn locate(&self, addr: u64) -> Place {
        locate(&self.vmap, addr)
    }

    /// Make the allocation the kernel made: `[x, x + size)` taken from a pool entry starting
    /// at `x` (any node, any position) or clipped out of the free block holding it, and made
    /// busy for `node`. `None` (nothing changed) when it is neither.
    pub fn take_at(&mut self, x: u64, size: u64, node: Option<u32>) -> Option<Place> {
        let end = x.checked_add(size)?;
        let place = self.locate(x);
        match place {
            Place::Pooled { node: pn, idx, pos, start, end: e } if start == x && e == end => {
                if !self.vmap.take_pooled(pn, idx, pos, node) {
                    return None;
                }
            }
            Place::Free { end: e, .. } if end <= e => {
                self.vmap.place_busy(x, end, node).ok()?;
            }
            _ => return None,
        }
        Some(place)
    }

    /// [`Steer::pool_at_tail`]: an entry that was pooled before the capture, behind every
    /// entry pooled since.
    pub fn pool_at_tail(&mut self, x: u64, size: u64, node: u32) -> bool {
        self.vmap.pool_at(x, size, node, false)
    }

    /// [`Steer::pool_at`]: at the tail, or at the head (`head`).
    pub fn pool_at(&mut self, x: u64, size: u64, node: u32, head: bool) -> bool {
        self.vmap.pool_at(x, size, node, head)
    }

    /// [`Steer::pool_at_pos`].
    pub fn pool_at_pos(&mut self, x: u64, size: u64, node: u32, head: bool, behind: u32) -> bool {
        self.vmap.pool_at_pos(x, size, node, head, behind)
    }

    /// [`Steer::pool_front`].
    pub fn pool_front(&self, node: u32, size: u64, front: &dyn Fn(u64) -> bool) -> u32 {
        self.vmap.pool_front(node, size, front)
    }

    /// Take `[start, end)` out of the free tree into nothing (no tree, no pool): space the
    /// before file shows free that the kernel held all the same (pool entries from before the
    /// capture, whose sizes and nodes nothing shows). The handle, for
    /// [`Steered::release_held`]; `None` (nothing changed) when the range is not inside one
    /// free block.
    pub fn hold_free(&mut self, start: u64, end: u64) -> Option<u32> {
        let va = self.vmap.take_free(start, end)?;
        self.held.push(va);
        self.logged(OracleChange::Hold(start, end));
        Some(va)
    }

    /// Try holds and releases ([`Steered::hold_free`], [`Steered::release_held_at`]) and keep
    /// them only if `f` answers `Some`: else the model is as it was (see [`Steer::save_free`];
    /// the held space's objects are saved beside the free tree's, at the trial's first change).
    /// The cost is the free tree's and the held space's, not the model's.
    pub fn hold_trial<T>(&mut self, f: impl FnOnce(&mut HoldTrial<'_>) -> Option<T>) -> Option<T> {
        let mut trial = HoldTrial(self, None);
        let out = f(&mut trial);
        let Some(saved) = trial.1 else { return out };
        let keep = out.is_some();
        self.vmap.end_free_trial(saved.free, keep);
        if !keep {
            for (&va, v) in saved.held.iter().zip(saved.held_objects) {
                *self.vmap.arena.at(va) = v;
            }
            self.held = saved.held;
            if let (Some(l), Some(n)) = (self.oracle_log.as_mut(), saved.logged) {
                l.truncate(n);
            }
        }
        out
    }

    /// The space held since [`Steered::hold_free`] that starts at `start`, if any.
    pub fn held_at(&self, start: u64) -> Option<u32> {
        self.held.iter().copied().find(|&va| self.vmap.arena.get(va).va_start == start)
    }

    /// Give space taken by [`Steered::hold_free`] back to the free tree (merged with its
    /// neighbours, as `reclaim_list_global` does).
    pub fn release_held(&mut self, va: u32) {
        let start = self.vmap.arena.get(va).va_start;
        self.logged(OracleChange::Release(start));
        self.held.retain(|&h| h != va);
        self.vmap.give_back(va);
    }

    /// [`Steered::release_held`] of the held space that starts at `start`, if any: for a
    /// caller that keeps starts, not handles (a copy of the model has its objects elsewhere in
    /// wasm, where handles are addresses).
    pub fn release_held_at(&mut self, start: u64) -> bool {
        let Some(va) = self.held_at(start) else {
            return false;
        };
        self.release_held(va);
        true
    }

    /// Give back to the free tree every pool entry that overlaps `[x, x + size)` (a decay the
    /// kernel made gave them back, or they were never there: the kernel allocated over them).
    /// How many.
    pub fn unpool_overlapping(&mut self, x: u64, size: u64) -> usize {
        let found = self.vmap.unpool_overlapping(x, size);
        for &va in &found {
            self.vmap.give_back(va);
        }
        if !found.is_empty() {
            self.logged(OracleChange::Unpool(x, size));
        }
        found.len()
    }

    /// The lowest free block ending above `addr` (holding it, or the next one up).
    pub fn free_block_from(&self, addr: u64) -> Option<(u64, u64)> {
        let v = &self.vmap;
        v.arena.try_get(v.free.find_end_above(&v.arena, addr)).map(|x| (x.va_start, x.va_end))
    }

    /// Entries of `node`'s pool for `size`, head first.
    pub fn pool_entries(&self, node: u32, size: u64) -> Vec<u64> {
        let v = &self.vmap;
        let idx = (size.wrapping_sub(1) / PAGE_SIZE) as usize;
        v.nodes
            .get(node as usize)
            .and_then(|n| n.pools.get(idx))
            .map_or_else(Vec::new, |q| q.iter().map(|&va| v.arena.get(va).va_start).collect())
    }

    /// Every non-empty pool: (node, index, its entries' starts, head first).
    pub fn pools_snapshot(&self) -> Vec<(u32, usize, Vec<u64>)> {
        let v = &self.vmap;
        let mut out = Vec::new();
        for (nid, n) in v.nodes.iter().enumerate() {
            for (idx, q) in n.pools.iter().enumerate() {
                if !q.is_empty() {
                    out.push((nid as u32, idx, q.iter().map(|&va| v.arena.get(va).va_start).collect()));
                }
            }
        }
        out
    }

    /// Take the lazy areas starting at `starts` off their lazy lists for a while (a purge the
    /// kernel made before they were freed, though it traced them first): their handles and
    /// nodes, for [`Steered::restore_lazy`].
    pub fn hold_lazy(&mut self, starts: &[u64]) -> Vec<(u32, u32)> {
        self.vmap.hold_lazy(starts)
    }

    /// Put areas taken by [`Steered::hold_lazy`] back on their lazy lists.
    pub fn restore_lazy(&mut self, held: Vec<(u32, u32)>) {
        self.vmap.restore_lazy(held)
    }

    /// Take every pool's entries out (for [`Steered::restore_pools_behind`]): at the first
    /// purge of a capture the pools hold only entries from before it, and those the kernel took
    /// later were not among the ones its decay gave back.
    pub fn hold_pools(&mut self) -> Vec<(u32, usize, Vec<u32>)> {
        self.vmap.hold_pools()
    }

    /// The vmap node shrinker's scan ([`Steer::shrink_pools`]): every pool given back whole.
    /// How many entries.
    pub fn shrink_pools<O: Observer>(&mut self, obs: &mut O) -> usize {
        self.vmap.shrink_pools(obs)
    }

    /// Put entries taken by [`Steered::hold_pools`] back, behind the ones pooled since.
    pub fn restore_pools_behind(&mut self, held: Vec<(u32, usize, Vec<u32>)>) {
        self.vmap.restore_pools_behind(held)
    }

    /// Lazy areas on every node's list.
    pub fn lazy_count(&self) -> usize {
        self.vmap.nodes.iter().map(|n| n.lazy.len).sum()
    }

    /// `node_pool_del_va`'s move of a misaligned head to the tail, alone.
    pub fn rotate_pool_head(&mut self, node: u32, size: u64) {
        self.vmap.rotate_pool_head(node, size)
    }

    /// [`Steer::purge_to`].
    pub fn purge_to<O: Observer>(&mut self, stop: PurgeStop, obs: &mut O) -> PurgeResult {
        self.vmap.purge_to(stop, obs)
    }

    /// [`Steer::purge_rest`].
    pub fn purge_rest<O: Observer>(&mut self, obs: &mut O) -> PurgeResult {
        self.vmap.purge_rest(obs)
    }
}

/// A logged change as the line that makes it again.
#[cfg(feature = "capture")]
impl From<OracleChange> for Follow {
    fn from(c: OracleChange) -> Follow {
        use OracleChange as C;
        match c {
            C::Hold(start, end) => Follow::Hold { start, end },
            C::Release(start) => Follow::Release { start },
            C::Unpool(start, size) => Follow::Unpool { start, size },
        }
    }
}
