//! What a replay that follows a real kernel's capture ([`crate::capture`]) needs besides the
//! trace language: build the state `/proc/vmallocinfo` shows (busy areas, and lazy ones in the
//! vmap node whose list prints them), ask what an allocation would return without making it,
//! say where an address is in the model, and, where the capture shows the kernel did something
//! else, take that address where the kernel took it. The vmap-node eras only (6.9 and later);
//! the other eras have one node and no pools, and the calls still work there.

use crate::area::{NIL, VN_SHIFT};
use crate::events::NoObserver;
use crate::rbtree::Plain;
use crate::vmalloc::*;

use crate::era::Vmap;
use crate::profile::ANY;

/// What [`Vmap::predict_alloc`] found.
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

/// A model under [`Vmap::hold_trial`]: it can hold free space and be read, nothing else.
pub struct HoldTrial<'a>(&'a mut Vmap);

impl HoldTrial<'_> {
    /// [`Vmap::hold_free`].
    pub fn hold_free(&mut self, start: u64, end: u64) -> Option<u32> {
        self.0.hold_free(start, end)
    }
}

impl std::ops::Deref for HoldTrial<'_> {
    type Target = Vmap;
    fn deref(&self) -> &Vmap {
        self.0
    }
}

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

/// A change to the model that a capture's replay made besides the requests (held space, pool
/// entries given back), logged in order while [`Vmap::log_oracle`] is on: the printed trace
/// says each (core/src/capture/follow.rs), so that it replays to the same states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OracleChange {
    Hold(u64, u64),
    Release(u64),
    Unpool(u64, u64),
}

impl Vmap {
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

    /// The vn_id `alloc_vmap_area` gives an area allocated on `node` (default window).
    fn vn_flags(node: Option<u32>) -> u32 {
        node.map_or(0, |n| Self::encode_vn_id(n) << VN_SHIFT)
    }

    /// Put a busy area at exactly `[start, end)` (it must lie in a free block), marked as
    /// allocated for `node` (its vn_id: where `vfree` sends it; `None`: the node of its address,
    /// and back to the free tree at the purge).
    pub fn place_busy(&mut self, start: u64, end: u64, node: Option<u32>) -> Result<(), String> {
        self.ensure_init();
        if end <= start || start & (PAGE_SIZE - 1) != 0 || end & (PAGE_SIZE - 1) != 0 {
            return Err(format!("[{start:#x}, {end:#x}) is not a page-aligned range"));
        }
        if node.is_some_and(|n| n >= self.nodes.len() as u32) {
            return Err(format!("node {} does not exist ({} vmap nodes)", node.unwrap_or(0), self.nodes.len()));
        }
        let size = end - start;
        match self.__alloc_vmap_area::<ANY, _>(size, 1, start, end, &mut NoObserver) {
            Ok(Some((addr, _))) if addr == start => {}
            _ => return Err(format!("[{start:#x}, {end:#x}) is not free: {}", self.locate(start))),
        }
        let va = self.arena.alloc(start, end);
        self.arena.at(va).set_flags(Self::vn_flags(node));
        self.busy_insert(va, &mut NoObserver);
        Ok(())
    }

    /// Move the busy area at `start` to `node`'s lazy list, as `vfree` does for an area whose
    /// vn_id names `node` (the file showed it there), without the lazy threshold.
    pub fn make_lazy(&mut self, start: u64, node: u32, vn: Option<u32>) -> Result<(), String> {
        if node >= self.nodes.len() as u32 || !self.profile.has_vmap_nodes() {
            return Err(format!("node {node} has no lazy list ({} vmap nodes, {})", self.nodes.len(), self.profile));
        }
        let (nid, va) = self.find_busy(start).map_err(|e| e.to_string())?;
        self.busy_remove(nid, va, &mut NoObserver);
        self.arena.at(va).set_flags(Self::vn_flags(vn));
        self.vmap_lazy_nr += self.arena.get(va).size() >> PAGE_SHIFT;
        insert_vmap_area::<Plain, NoObserver>(
            &mut self.arena,
            &mut self.nodes[node as usize].lazy,
            va,
            &mut NoObserver,
        );
        Ok(())
    }

    /// Say which node the busy area at `start` was allocated for (its vn_id).
    pub fn set_area_node(&mut self, start: u64, node: u32) -> Result<(), String> {
        if node >= self.nodes.len() as u32 {
            return Err(format!("node {node} does not exist"));
        }
        let (_, va) = self.find_busy(start).map_err(|e| e.to_string())?;
        self.arena.at(va).set_flags(Self::vn_flags(Some(node)));
        Ok(())
    }

    /// The node the busy area at `start` will be lazily freed to (its vn_id, else its address).
    pub fn area_node(&self, start: u64) -> Option<u32> {
        let (_, va) = self.find_busy(start).ok()?;
        Some(self.decode_vn_id(self.arena.get(va).vn_id()).unwrap_or_else(|| self.addr_to_node_id(start)))
    }

    /// What `alloc` would return now on the current CPU, changing nothing: the pool of the
    /// CPU's node first (default window, several nodes, vmap-node eras), then the free tree.
    pub fn predict_alloc(&self, size: u64, align: u64, vstart: u64, vend: u64) -> Prediction {
        let mut p = Prediction { node: None, pool_hit: None, rotate: false, tree: None };
        if self.profile.has_vmap_nodes() && vstart == VMALLOC_START && vend == VMALLOC_END && self.nodes.len() > 1 {
            let nid = self.cpu % self.nodes.len() as u32;
            p.node = Some(nid);
            let idx = (size.wrapping_sub(1) / PAGE_SIZE) as usize;
            if let Some(&va) = self.nodes[nid as usize].pools.get(idx).and_then(|q| q.front()) {
                let v = self.arena.get(va);
                if v.va_start & align.wrapping_sub(1) != 0 {
                    p.rotate = true;
                } else if v.size() == size && v.va_start >= vstart && v.va_end <= vend {
                    p.pool_hit = Some(v.va_start);
                    return p;
                }
            }
        }
        let rule = self.profile.search_rule();
        let length = rule.length(size, align, vstart, vend);
        if let Ok(va) =
            find_vmap_lowest_match(&self.arena, &self.free, size, align, vstart, length, rule, &mut NoObserver)
        {
            if let Some(v) = self.arena.try_get(va) {
                let nva = if v.va_start > vstart { align_up(v.va_start, align) } else { align_up(vstart, align) };
                if nva.checked_add(size).is_some_and(|e| e <= vend && e <= v.va_end) && nva >= v.va_start {
                    p.tree = Some(nva);
                }
            }
        }
        p
    }

    /// What `find_vmap_lowest_match` may return for this request whatever the free tree's
    /// shape: the address in the lowest free block of at least the search length (size plus
    /// the alignment's overhead: that block is found by the subtree sizes alone), and the
    /// addresses in the lower blocks that fit the request exactly but are shorter than the
    /// search length (found only if one lies on the path to that block, where the walk turns
    /// right: the tree's shape decides). Ascending.
    pub fn search_outcomes(&self, size: u64, align: u64, vstart: u64, vend: u64) -> Vec<u64> {
        let length = self.profile.search_rule().length(size, align, vstart, vend);
        let mut out = Vec::new();
        for (va, _) in self.free.iter(&self.arena) {
            let v = self.arena.get(va);
            if v.va_end <= vstart {
                continue;
            }
            if v.va_start >= vend {
                break;
            }
            let nva = align_up(v.va_start.max(vstart), align);
            let fits = nva >= v.va_start && nva.checked_add(size).is_some_and(|e| e <= v.va_end && e <= vend);
            if !fits {
                continue;
            }
            out.push(nva);
            if v.va_end - v.va_start >= length && v.va_start >= vstart {
                break;
            }
        }
        out
    }

    /// Where `addr` is: a free block, a pool entry, a busy or a lazy area.
    pub fn locate(&self, addr: u64) -> Place {
        let f = self.free.find_containing(&self.arena, addr);
        if let Some(v) = self.arena.try_get(f) {
            return Place::Free { start: v.va_start, end: v.va_end };
        }
        for (nid, n) in self.nodes.iter().enumerate() {
            let b = n.busy.find_containing(&self.arena, addr);
            if let Some(v) = self.arena.try_get(b) {
                return Place::Busy { node: nid as u32, start: v.va_start, end: v.va_end };
            }
            let l = n.lazy.find_containing(&self.arena, addr);
            if let Some(v) = self.arena.try_get(l) {
                return Place::Lazy { node: nid as u32, start: v.va_start, end: v.va_end };
            }
        }
        for (nid, list) in self.era.part_purge().into_iter().flat_map(|p| &p.lists).enumerate() {
            for &va in list {
                let v = self.arena.get(va);
                if v.va_start <= addr && addr < v.va_end {
                    return Place::Lazy { node: nid as u32, start: v.va_start, end: v.va_end };
                }
            }
        }
        for (nid, n) in self.nodes.iter().enumerate() {
            for (idx, q) in n.pools.iter().enumerate() {
                for (pos, &va) in q.iter().enumerate() {
                    let v = self.arena.get(va);
                    if v.va_start <= addr && addr < v.va_end {
                        return Place::Pooled {
                            node: nid as u32,
                            idx: idx as u32,
                            pos: pos as u32,
                            start: v.va_start,
                            end: v.va_end,
                        };
                    }
                }
            }
        }
        Place::Nowhere
    }

    /// Make the allocation the kernel made: `[x, x + size)` taken from a pool entry starting
    /// at `x` (any node, any position) or clipped out of the free block holding it, and made
    /// busy for `node`. `None` (nothing changed) when it is neither.
    pub fn take_at(&mut self, x: u64, size: u64, node: Option<u32>) -> Option<Place> {
        let end = x.checked_add(size)?;
        let place = self.locate(x);
        match place {
            Place::Pooled { node: pn, idx, pos, start, end: e } if start == x && e == end => {
                let va = self.nodes[pn as usize].pools[idx as usize].remove(pos as usize)?;
                self.arena.at(va).set_flags(Self::vn_flags(node));
                self.busy_insert(va, &mut NoObserver);
            }
            Place::Free { end: e, .. } if end <= e => {
                self.place_busy(x, end, node).ok()?;
            }
            _ => return None,
        }
        Some(place)
    }

    /// Take `[x, x + size)` out of the free tree into `node`'s pool of its size, at the tail
    /// (an entry that was pooled before the capture: behind every entry pooled since). `false`
    /// (nothing changed) when the range is not inside one free block or has no pool.
    pub fn pool_at_tail(&mut self, x: u64, size: u64, node: u32) -> bool {
        let idx = (size.wrapping_sub(1) / PAGE_SIZE) as usize;
        if node >= self.nodes.len() as u32 || size == 0 || idx >= crate::era::MAX_VA_SIZE_PAGES {
            return false;
        }
        match self.__alloc_vmap_area::<ANY, _>(size, 1, x, x.wrapping_add(size), &mut NoObserver) {
            Ok(Some((a, _))) if a == x => {}
            _ => return false,
        }
        let va = self.arena.alloc(x, x + size);
        self.arena.at(va).set_flags(Self::vn_flags(Some(node)));
        self.arena.detach(va);
        let pools = &mut self.nodes[node as usize].pools;
        if pools.len() <= idx {
            pools.resize_with(crate::era::MAX_VA_SIZE_PAGES, Default::default);
        }
        pools[idx].push_back(va);
        true
    }

    /// Take `[start, end)` out of the free tree into nothing (no tree, no pool): space the
    /// before file shows free that the kernel held all the same (pool entries from before the
    /// capture, whose sizes and nodes nothing shows). The handle, for [`Vmap::release_held`];
    /// `None` (nothing changed) when the range is not inside one free block.
    pub fn hold_free(&mut self, start: u64, end: u64) -> Option<u32> {
        if end <= start || start & (PAGE_SIZE - 1) != 0 || end & (PAGE_SIZE - 1) != 0 {
            return None;
        }
        match self.__alloc_vmap_area::<ANY, _>(end - start, 1, start, end, &mut NoObserver) {
            Ok(Some((a, _))) if a == start => {}
            _ => return None,
        }
        let va = self.arena.alloc(start, end);
        self.arena.detach(va);
        self.held.push(va);
        self.logged(OracleChange::Hold(start, end));
        Some(va)
    }

    /// Try holds ([`Vmap::hold_free`]) and keep them only if `f` answers `Some`: else the
    /// model is as it was. A trial saves the free tree's objects, the only ones a hold changes
    /// (besides those it allocates, which lie past the slab's end until kept), so it costs the
    /// free tree, where a copy of the model costs every area:
    ///
    /// ```text
    ///   slab:  [ busy, lazy, pooled: untouched ][ free tree: saved ]...[ trial's own objects ]
    ///                                                                   ^ dropped, or kept
    /// ```
    pub fn hold_trial<T>(&mut self, f: impl FnOnce(&mut HoldTrial<'_>) -> Option<T>) -> Option<T> {
        let free = self.free;
        let saved: Vec<(u32, crate::area::VmapArea)> = self.free.iter(&self.arena).map(|(h, v)| (h, *v)).collect();
        let held = self.held.len();
        let logged = self.oracle_log.as_ref().map(Vec::len);
        let mark = self.arena.mark();
        let out = f(&mut HoldTrial(self));
        if out.is_some() {
            self.arena.settle(mark);
            return out;
        }
        self.arena.rewind(mark);
        for (h, v) in saved {
            *self.arena.at(h) = v;
        }
        self.free = free;
        self.held.truncate(held);
        if let (Some(l), Some(n)) = (self.oracle_log.as_mut(), logged) {
            l.truncate(n);
        }
        None
    }

    /// The space held since [`Vmap::hold_free`] that starts at `start`, if any.
    pub fn held_at(&self, start: u64) -> Option<u32> {
        self.held.iter().copied().find(|&va| self.arena.get(va).va_start == start)
    }

    /// Give space taken by [`Vmap::hold_free`] back to the free tree (merged with its
    /// neighbours, as `reclaim_list_global` does).
    pub fn release_held(&mut self, va: u32) {
        let start = self.arena.get(va).va_start;
        self.logged(OracleChange::Release(start));
        self.give_back(va);
    }

    /// [`Vmap::release_held`] of the held space that starts at `start`, if any: for a caller
    /// that keeps starts, not handles (a copy of the model has its objects elsewhere in wasm,
    /// where handles are addresses).
    pub fn release_held_at(&mut self, start: u64) -> bool {
        let a = &self.arena;
        let Some(va) = self.held.iter().copied().find(|&h| a.get(h).va_start == start) else {
            return false;
        };
        self.release_held(va);
        true
    }

    /// Space out of every tree and pool back to the free tree, merged with its neighbours.
    fn give_back(&mut self, va: u32) {
        self.held.retain(|&h| h != va);
        self.arena.detach(va);
        self.arena.at(va).set_flags(0);
        self.free_tree_add::<ANY, _>(va, &mut NoObserver);
    }

    /// Give back to the free tree every pool entry that overlaps `[x, x + size)` (a decay the
    /// kernel made gave them back, or they were never there: the kernel allocated over them).
    /// How many.
    pub fn unpool_overlapping(&mut self, x: u64, size: u64) -> usize {
        let end = x.saturating_add(size);
        let mut found = Vec::new();
        for n in self.nodes.iter_mut() {
            for q in n.pools.iter_mut() {
                let arena = &self.arena;
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
        for &va in &found {
            self.give_back(va);
        }
        if !found.is_empty() {
            self.logged(OracleChange::Unpool(x, size));
        }
        found.len()
    }

    /// Entries of `node`'s pool for `size`, head first.
    pub fn pool_entries(&self, node: u32, size: u64) -> Vec<u64> {
        let idx = (size.wrapping_sub(1) / PAGE_SIZE) as usize;
        self.nodes
            .get(node as usize)
            .and_then(|n| n.pools.get(idx))
            .map_or_else(Vec::new, |q| q.iter().map(|&va| self.arena.get(va).va_start).collect())
    }

    /// Every non-empty pool: (node, index, its entries' starts, head first).
    pub fn pools_snapshot(&self) -> Vec<(u32, usize, Vec<u64>)> {
        let mut out = Vec::new();
        for (nid, n) in self.nodes.iter().enumerate() {
            for (idx, q) in n.pools.iter().enumerate() {
                if !q.is_empty() {
                    out.push((nid as u32, idx, q.iter().map(|&va| self.arena.get(va).va_start).collect()));
                }
            }
        }
        out
    }

    /// Take the lazy areas starting at `starts` off their lazy lists for a while (a purge the
    /// kernel made before they were freed, though it traced them first): their handles and
    /// nodes, for [`Vmap::restore_lazy`].
    pub fn hold_lazy(&mut self, starts: &[u64]) -> Vec<(u32, u32)> {
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

    /// Put areas taken by [`Vmap::hold_lazy`] back on their lazy lists.
    pub fn restore_lazy(&mut self, held: Vec<(u32, u32)>) {
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

    /// Take every pool's entries out (for [`Vmap::restore_pools_behind`]): at the first purge of
    /// a capture the pools hold only entries from before it, and those the kernel took later
    /// were not among the ones its decay gave back.
    pub fn hold_pools(&mut self) -> Vec<(u32, usize, Vec<u32>)> {
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

    /// Put entries taken by [`Vmap::hold_pools`] back, behind the ones pooled since.
    pub fn restore_pools_behind(&mut self, held: Vec<(u32, usize, Vec<u32>)>) {
        for (nid, idx, entries) in held {
            let pools = &mut self.nodes[nid as usize].pools;
            if pools.len() <= idx {
                pools.resize_with(crate::era::MAX_VA_SIZE_PAGES, Default::default);
            }
            pools[idx].extend(entries);
        }
    }

    /// Lazy areas on every node's list.
    pub fn lazy_count(&self) -> usize {
        self.nodes.iter().map(|n| n.lazy.len).sum()
    }

    /// `node_pool_del_va`'s move of a misaligned head to the tail, alone.
    pub fn rotate_pool_head(&mut self, node: u32, size: u64) {
        let idx = (size.wrapping_sub(1) / PAGE_SIZE) as usize;
        if let Some(q) = self.nodes.get_mut(node as usize).and_then(|n| n.pools.get_mut(idx)) {
            if let Some(h) = q.pop_front() {
                q.push_back(h);
            }
        }
    }

    /// The lazy threshold schedules the drain instead of purging (see `defer_drain`).
    pub fn set_defer_drain(&mut self, on: bool) {
        self.defer_drain = on;
    }
}
