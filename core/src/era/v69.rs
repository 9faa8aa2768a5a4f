//! linux-6.9: vmap nodes. The busy areas are spread over `nr_vmap_nodes` nodes by address
//! (`addr_to_node_id`); each node keeps its lazily freed areas in its own tree and, for areas
//! of up to 256 pages allocated in the default window, a pool per size that the next
//! allocation of that size on the node's CPU takes from before it searches the free tree.
//!
//! ```text
//!   alloc(size) -- CPU's node pool[size] head fits? --yes--> busy tree of node(addr)
//!        |no                                                   |
//!        v                                                     | vfree
//!   free tree search (super::free_tree)                         v
//!        ^                                        node lazy tree -- purge --> pool[size]
//!        +---------- decay (a quarter, or all) <--------------------------------+
//!                    and full purges (reclaim, a failed allocation)
//! ```

use std::collections::VecDeque;

use crate::addr::Addr;
use crate::area::{VaTree, VN_SHIFT};
use crate::error::VmapError;
use crate::events::{Event, Observer, PurgeCause};
use super::ANY;
use crate::rbtree::Plain;
use crate::vmalloc::*;

use super::{Drain, AreaInfo, Era, PartPurge, PurgeResult, PurgeStop, Vmap, MAX_VA_SIZE_PAGES};

/// linux-6.9: vmap nodes with size pools and decay.
pub struct V69;

/// What the vmap-node eras keep besides their nodes: the purge under way, while
/// `__purge_vmap_area_lazy` runs (each node's taken `purge_list`, the walk's local list). A
/// sequential replay purges in one go and leaves it `None`; a capture can stop a purge
/// part-way ([`Vmap::purge_to`]) where the kernel traced another CPU's allocation in between.
#[derive(Clone, Debug, Default)]
pub struct NodesState {
    pub(crate) purge: Option<Box<PartPurge>>,
}

impl NodesState {
    pub(crate) fn relocate(&mut self, f: &impl Fn(u32) -> u32) {
        if let Some(p) = self.purge.as_mut() {
            let list = |l: &mut [u32]| l.iter_mut().for_each(|h| *h = f(*h));
            p.lists.iter_mut().for_each(|l| list(l));
            list(&mut p.local);
        }
    }
}

impl Era for V69 {
    type State = NodesState;
    const NAME: &'static str = "linux-6.9";
    const FIRST_RELEASE: Option<(u32, u32)> = Some((6, 9));
    const SEARCH_RULE: SearchRule = SearchRule { adjust_search_size: true, move_vstart: true };
    const MERGE_STYLE: MergeStyle = MergeStyle::Eb;
    const VMAP_NODES: bool = true;
    /// The newest module (13 tests).
    const MODULE_TESTS: usize = 13;

    #[inline(always)]
    fn alloc<const P: u8, O: Observer>(
        v: &mut Vmap,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        v.alloc_v69(size, align, vstart, vend, obs)
    }

    fn vfree<O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        v.vfree_v69(addr, obs)
    }

    fn purge<O: Observer>(v: &mut Vmap, cause: PurgeCause, stop: Option<PurgeStop>, obs: &mut O) -> PurgeResult {
        v.purge_nodes_of::<Self, O>(cause, stop, obs)
    }

    fn lazy_areas_by_node(v: &Vmap) -> Vec<(u32, AreaInfo)> {
        v.nodes_lazy_areas()
    }

    fn relocate_state(s: &mut NodesState, f: &impl Fn(u32) -> u32) {
        s.relocate(f);
    }

    fn part_purge(s: &NodesState) -> Option<&PartPurge> {
        s.purge.as_deref()
    }

    fn part_purge_slot(s: &mut NodesState) -> Option<&mut Option<Box<PartPurge>>> {
        Some(&mut s.purge)
    }
}

impl Vmap {
    /// linux-6.9 `alloc_vmap_area`: in the default window with several nodes, first the pool
    /// of this CPU's node (`node_alloc`); then the free tree, with one full purge and retry.
    pub(super) fn alloc_v69<O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        let mut vn_flags = 0;
        if vstart == VMALLOC_START && vend == VMALLOC_END && self.nodes.len() > 1 {
            let nid = self.cpu % self.nodes.len() as u32;
            vn_flags = Self::encode_vn_id(nid) << VN_SHIFT;
            if let Some(va) = self.node_pool_del_va(nid, size, align, vstart, vend, obs) {
                self.arena.at(va).set_flags(vn_flags);
                crate::events::touch(obs, va);
                self.busy_insert(va, obs);
                if O::ON {
                    let v = *self.arena.get(va);
                    obs.event(
                        Event::Allocated { id: v.id, addr: Addr(v.va_start), size: Addr(size) },
                        self.tree_view(),
                    );
                }
                return Ok(self.arena.get(va).va_start);
            }
        }
        self.alloc_from_free_tree::<ANY, O>(size, align, vstart, vend, vn_flags, obs)
    }

    /// linux-6.9 `vfree`: out of the busy tree into the lazy tree of the node the area was
    /// allocated for (encoded in its flags), or of the node of its address.
    pub(super) fn vfree_v69<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        if addr & (PAGE_SIZE - 1) != 0 {
            // `remove_vm_area` warns on an unaligned address and does nothing.
            return Err(VmapError::UnalignedFree { addr });
        }
        let (nid, va) = self.find_busy(addr)?;
        let (vs, ve) = {
            let v = self.arena.get(va);
            (v.va_start, v.va_end)
        };
        let nr_lazy = self.vmap_lazy_nr + ((ve - vs) >> PAGE_SHIFT);
        self.vmap_lazy_nr = nr_lazy;
        self.busy_remove(nid, va, obs);
        let vn = self.arena.get(va).vn_id();
        let lnid = match self.decode_vn_id(vn) {
            Some(id) => id as usize,
            None => self.addr_to_node_id(vs) as usize,
        };
        insert_vmap_area::<Plain, O>(&mut self.arena, &mut self.nodes[lnid].lazy, va, obs);
        Ok(self.lazy_enqueued(va, nr_lazy, obs))
    }

    fn pool_index(size: u64) -> Option<usize> {
        let idx = (size.wrapping_sub(1) / PAGE_SIZE) as usize;
        (size != 0 && idx < MAX_VA_SIZE_PAGES).then_some(idx)
    }

    fn pool_mut(&mut self, nid: u32, idx: usize) -> &mut VecDeque<u32> {
        let pools = &mut self.nodes[nid as usize].pools;
        if pools.len() <= idx {
            pools.resize_with(MAX_VA_SIZE_PAGES, VecDeque::new);
        }
        &mut pools[idx]
    }

    /// `node_pool_del_va`: look at the first entry of the pool for `size` only.
    pub(super) fn node_pool_del_va<O: Observer>(
        &mut self,
        nid: u32,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Option<u32> {
        let idx = Self::pool_index(size)?;
        if O::TOUCH {
            obs.touch_pool(nid, idx);
        }
        let head = self.nodes[nid as usize].pools.get(idx).and_then(|p| p.front().copied());
        let Some(va) = head else {
            if O::ON {
                obs.event(Event::PoolMiss { node: nid, pool: idx as u32 }, self.tree_view());
            }
            return None;
        };
        let v = *self.arena.get(va);
        if v.va_start & align.wrapping_sub(1) == 0 {
            // The kernel's sanity checks; on failure it warns and leaves the entry.
            if v.size() != size || v.va_start < vstart || v.va_end > vend {
                if O::ON {
                    obs.event(Event::PoolMiss { node: nid, pool: idx as u32 }, self.tree_view());
                }
                return None;
            }
            self.pool_mut(nid, idx).pop_front();
            if O::ON {
                let ev =
                    Event::PoolHit { node: nid, pool: idx as u32, va_start: Addr(v.va_start), va_end: Addr(v.va_end) };
                obs.areas_event(ev, self);
            }
            Some(va)
        } else {
            let p = self.pool_mut(nid, idx);
            p.pop_front();
            p.push_back(va);
            if O::ON {
                let ev = Event::PoolRotate {
                    node: nid,
                    pool: idx as u32,
                    va_start: Addr(v.va_start),
                    va_end: Addr(v.va_end),
                };
                obs.areas_event(ev, self);
            }
            None
        }
    }

    /// `reclaim_list_global`: merge a list of detached areas into the free tree, in order.
    fn reclaim_list_global<O: Observer>(&mut self, list: &[u32], obs: &mut O) {
        for &va in list {
            self.arena.detach(va);
            self.arena.at(va).set_flags(0);
            crate::events::touch(obs, va);
            self.free_tree_add::<ANY, O>(va, obs);
        }
    }

    /// `decay_va_pool_node` of the era `E`: give back [`Era::n_decay`] entries of each pool,
    /// coalesced, in ascending order.
    pub(super) fn decay_va_pool_node<E: Era, O: Observer>(&mut self, nid: u32, full: bool, obs: &mut O) {
        self.decay_pools(nid, full, E::n_decay, obs)
    }

    /// `__purge_vmap_area_lazy` of the vmap-node era `E`: a full decay for a reclaim or a
    /// failed allocation. `stop`: where it stops part-way ([`Vmap::purge_to`]); `None`: the
    /// whole purge.
    pub(super) fn purge_nodes_of<E: Era, O: Observer>(
        &mut self,
        cause: PurgeCause,
        stop: Option<PurgeStop>,
        obs: &mut O,
    ) -> PurgeResult {
        let full = matches!(cause, PurgeCause::Reclaim | PurgeCause::AllocRetry);
        self.purge_nodes(full, cause, Self::decay_va_pool_node::<E, O>, stop, obs)
    }

    /// The lazy areas of every node, with those a purge part-way has taken.
    fn nodes_lazy_areas(&self) -> Vec<(u32, AreaInfo)> {
        let info = |v: &crate::area::VmapArea| AreaInfo { id: v.id, va_start: Addr(v.va_start), va_end: Addr(v.va_end) };
        let mut out = Vec::new();
        for (nid, n) in self.nodes.iter().enumerate() {
            out.extend(n.lazy.iter(&self.arena).map(|(_, v)| (nid as u32, info(v))));
            if let Some(list) = self.era.part_purge().and_then(|p| p.lists.get(nid)) {
                out.extend(list.iter().map(|&va| (nid as u32, info(self.arena.get(va)))));
            }
        }
        out
    }

    /// How many of a pool's `len` entries 6.9 decays: the counter starts at `len >> 2` and is
    /// tested after its decrement, so a quarter that rounds to nothing takes the whole pool.
    pub fn n_decay_v69(len: usize, full: bool) -> usize {
        let quarter = len >> 2;
        if full || quarter == 0 {
            len
        } else {
            quarter
        }
    }

    /// The body every era's `decay_va_pool_node` shares: from each non-empty pool take the
    /// first `n_decay(len, full)` entries (the most recently pooled), coalesce them in a local
    /// tree and give that back to the free tree in ascending order; the rest stay in their
    /// order.
    pub(super) fn decay_pools<O: Observer>(
        &mut self,
        nid: u32,
        full: bool,
        n_decay: fn(usize, bool) -> usize,
        obs: &mut O,
    ) {
        let mut decay = VaTree::default();
        for idx in 0..self.nodes[nid as usize].pools.len() {
            let len = self.nodes[nid as usize].pools[idx].len();
            if len == 0 {
                continue;
            }
            let n = n_decay(len, full).min(len);
            let taken: Vec<u32> = self.nodes[nid as usize].pools[idx].drain(..n).collect();
            if O::TOUCH {
                obs.touch_pool(nid, idx);
                taken.iter().for_each(|&va| obs.touch(va));
            }
            if O::ON {
                let ev = Event::Decay { node: nid, pool: idx as u32, taken: n as u32, kept: (len - n) as u32 };
                obs.areas_event(ev, self);
            }
            for va in taken {
                self.arena.detach(va);
                merge_or_add_vmap_area::<Plain, O>(&mut self.arena, &mut decay, va, MergeStyle::Eb, obs);
            }
        }
        let list: Vec<u32> = decay.iter(&self.arena).map(|(i, _)| i).collect();
        self.reclaim_list_global(&list, obs);
    }

    /// `__purge_vmap_area_lazy` of 6.9 and later: decay every node's pools (with the era's
    /// `decay_va_pool_node`), then purge every node's lazy areas (into its pools unless
    /// `full`, else back to the free tree, descending).
    pub(super) fn purge_nodes<O: Observer>(
        &mut self,
        full: bool,
        cause: PurgeCause,
        decay_va_pool_node: fn(&mut Vmap, u32, bool, &mut O),
        stop: Option<PurgeStop>,
        obs: &mut O,
    ) -> PurgeResult {
        // A purge left part-done ends before the next begins (vmap_purge_lock): its areas
        // count here.
        let mut count = if self.era.part_purge().is_some() { self.purge_advance(None, decay_va_pool_node, obs) } else { 0 };
        let nr = self.nodes.len();
        let total: usize = self.nodes.iter().map(|n| n.lazy.len).sum();
        if O::ON {
            obs.areas_event(Event::PurgeStart { cause, count: total as u32 }, self);
        }
        self.era.set_part_purge(Some(Box::new(PartPurge { lists: vec![Vec::new(); nr], full, ..PartPurge::default() })));
        count += self.purge_advance(stop, decay_va_pool_node, obs);
        PurgeResult { entries: count }
    }

    /// `__purge_vmap_area_lazy`'s two loops, from where the purge stands to `stop` (`None`: to
    /// its end). First every node in turn: its pools decayed and its lazy list taken (frees to
    /// a node taken wait for the next purge; to the others, this one takes them). Then every
    /// taken list processed in node order. What it processed.
    pub(super) fn purge_advance<O: Observer>(
        &mut self,
        stop: Option<PurgeStop>,
        decay_va_pool_node: fn(&mut Vmap, u32, bool, &mut O),
        obs: &mut O,
    ) -> u32 {
        let nr = self.nodes.len() as u32;
        let (take, process) = match stop {
            Some(PurgeStop::Decayed(k)) => (k.saturating_add(1).min(nr), 0),
            Some(PurgeStop::Processed(k)) => (nr, k.saturating_add(1).min(nr)),
            Some(PurgeStop::Through(_)) | None => (nr, nr),
        };
        let Some(full) = self.era.part_purge().map(|p| p.full) else {
            return 0;
        };
        while let Some(nid) = self.era.part_purge().map(|p| p.taken).filter(|&t| t < take) {
            let nid = nid as usize;
            decay_va_pool_node(self, nid as u32, full, obs);
            let lazy = std::mem::take(&mut self.nodes[nid].lazy);
            let list: Vec<u32> = lazy.iter(&self.arena).map(|(i, _)| i).collect();
            for &va in &list {
                self.arena.detach(va);
            }
            if let Some(p) = self.era.part_purge_mut() {
                p.lists[nid] = list;
                p.taken += 1;
            }
        }
        let mut count = 0;
        // Through an area: the nodes before its list's given back whole, its own walked to it.
        let through = match (stop, self.era.part_purge()) {
            (Some(PurgeStop::Through(a)), Some(p)) => (p.processed as usize..nr as usize)
                .find(|&m| p.lists[m].iter().any(|&va| self.arena.get(va).va_start == a))
                .map(|m| (m as u32, a)),
            _ => None,
        };
        let process = through.map_or(process, |(m, _)| m);
        while let Some(nid) = self.era.part_purge().map(|p| p.processed).filter(|&d| d < process) {
            count += self.purge_vmap_node(nid as usize, None, obs);
            if let Some(p) = self.era.part_purge_mut() {
                p.processed += 1;
            }
        }
        if let Some((m, a)) = through {
            count += self.purge_vmap_node(m as usize, Some(a), obs);
        }
        if self.era.part_purge().is_some_and(|p| p.processed == nr) {
            self.era.set_part_purge(None);
            if O::ON {
                obs.areas_event(Event::PurgeEnd { purged: count }, self);
            }
        }
        count
    }

    /// `purge_vmap_node`, walking node `nid`'s taken list in address order up to and
    /// including the area at `through` (`None`: to its end): each area to that node's pool
    /// (if it was allocated for a node and the purge pools), at once, as the kernel pushes it;
    /// the rest onto a local list, which goes back to the free tree, merged, when the walk
    /// ends, with `vmap_lazy_nr` lowered once for the node. What it walked.
    fn purge_vmap_node<O: Observer>(&mut self, nid: usize, through: Option<u64>, obs: &mut O) -> u32 {
        let Some(p) = self.era.part_purge_mut() else {
            return 0;
        };
        let full = p.full;
        let list = &mut p.lists[nid];
        let n = match through {
            None => list.len(),
            Some(a) => list.iter().position(|&va| self.arena.get(va).va_start == a).map_or(0, |i| i + 1),
        };
        let walked: Vec<u32> = list.drain(..n).collect();
        let (mut count, mut pages, mut local) = (0, 0, Vec::new());
        for va in walked {
            let v = *self.arena.get(va);
            pages += v.size() >> PAGE_SHIFT;
            count += 1;
            if O::ON {
                obs.event(Event::PurgeArea { va_start: Addr(v.va_start), va_end: Addr(v.va_end) }, self.tree_view());
            }
            if !full && self.decode_vn_id(v.vn_id()).is_some() {
                if let Some(idx) = Self::pool_index(v.size()) {
                    self.arena.detach(va);
                    self.pool_mut(nid as u32, idx).push_front(va);
                    if O::TOUCH {
                        obs.touch_pool(nid as u32, idx);
                        obs.touch(va);
                    }
                    if O::ON {
                        obs.areas_event(Event::pooled(nid, idx, &v), self);
                    }
                    continue;
                }
            }
            local.push(va);
        }
        let Some(p) = self.era.part_purge_mut() else {
            return count;
        };
        p.walked_pages += pages;
        p.local.extend(local);
        if through.is_some() {
            if count > 0 {
                p.through = through;
            }
            return count;
        }
        p.through = None;
        self.vmap_lazy_nr -= std::mem::take(&mut p.walked_pages);
        // The local list was built by pushing at the head: descending order.
        let mut local = std::mem::take(&mut p.local);
        local.reverse();
        self.reclaim_list_global(&local, obs);
        count
    }
}
