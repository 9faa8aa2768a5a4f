//! The allocator as a whole: `alloc_vmap_area`, the immediate and lazy free paths, the
//! purge, `pcpu_get_vm_areas`, and (linux-6.9) the vmap nodes with their pools.
//!
//! ```text
//!                 alloc                         vfree
//!   free tree  ---------->  busy tree(s)  ---------------->  lazy (5.2: llist, 6.1: purge tree,
//!   (augmented)  <---------                                         6.9: per-node lazy trees)
//!        ^         free                                              |
//!        |                                                           | purge
//!        +-----------------------------------------------------------+
//!        |                          (6.9: or into a node's size pool, and back on decay)
//! ```

use std::collections::VecDeque;

use crate::area::{AreaInfo, Arena, VaTree, F_LAZY, NIL, VN_SHIFT};
use crate::error::VmapError;
use crate::events::{Event, FitType, NoObserver, Observer, PurgeCause, TreeView};
use crate::profile::Profile;
use crate::rbtree::{Plain, SubtreeMax};
use crate::vmalloc::*;

/// `MAX_VA_SIZE_PAGES`: pools per node (sizes up to 1 MiB, guard page included).
pub const MAX_VA_SIZE_PAGES: usize = 256;
/// Most CPUs a trace may declare.
pub const MAX_CPUS: u64 = 65536;
/// `nr_vmap_nodes` is clamped to this.
pub const MAX_NODES: u32 = 128;

/// One vmap node (linux-6.9); the other profiles have a single node holding the busy tree.
#[derive(Clone, Debug, Default)]
pub struct VmapNode {
    pub busy: VaTree,
    pub lazy: VaTree,
    /// `pool[i]` holds areas of exactly `i + 1` pages; front = first entry.
    pub pools: Vec<VecDeque<u32>>,
}

/// The whole simulated allocator.
#[derive(Clone, Debug)]
pub struct Vmap {
    pub profile: Profile,
    pub arena: Arena,
    pub free: VaTree,
    pub nodes: Vec<VmapNode>,
    /// linux-5.2: `vmap_purge_list`, oldest first (iterate backwards for newest first).
    pub lazy_list: Vec<u32>,
    /// linux-6.1: `purge_vmap_area_root` / `purge_vmap_area_list`.
    pub purge_tree: VaTree,
    /// `vmap_lazy_nr`, in pages.
    pub vmap_lazy_nr: u64,
    pub cpus: u32,
    pub cpu: u32,
    /// `vmap_zone_size` (6.9).
    pub zone_size: u64,
    /// The range the free space was initialised with.
    pub space: (u64, u64),
    initialized: bool,
    /// linux-5.1: the busy area after which the next search starts (`free_vmap_cache`).
    pub free_vmap_cache: u32,
    /// linux-5.1: the largest hole noticed below the cached area.
    pub cached_hole_size: u64,
    pub cached_vstart: u64,
    pub cached_align: u64,
    /// linux-5.1: where `pcpu_get_vm_areas` starts looking, downwards (`vmap_area_pcpu_hole`).
    pub vmap_area_pcpu_hole: u64,
}

/// What a purge returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PurgeResult {
    pub entries: u32,
}

impl Vmap {
    pub fn new(profile: Profile) -> Self {
        Vmap {
            profile,
            arena: Arena::new(),
            free: VaTree::default(),
            nodes: vec![VmapNode::default()],
            lazy_list: Vec::new(),
            purge_tree: VaTree::default(),
            vmap_lazy_nr: 0,
            cpus: 1,
            cpu: 0,
            zone_size: 1,
            space: (1, ULONG_MAX),
            initialized: false,
            free_vmap_cache: NIL,
            cached_hole_size: 0,
            cached_vstart: 0,
            cached_align: 0,
            vmap_area_pcpu_hole: VMALLOC_END,
        }
    }

    pub fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// `vmap_init_free_space` with an empty early list: one free block `[start, end)`.
    pub fn init(&mut self, start: u64, end: u64) -> Result<(), VmapError> {
        if start >= end {
            return Err(VmapError::BadRange { start, end });
        }
        let nr = if self.profile == Profile::Linux69 { self.cpus.clamp(1, MAX_NODES) } else { 1 };
        self.arena = Arena::new();
        self.free = VaTree::default();
        self.nodes = (0..nr).map(|_| VmapNode::default()).collect();
        self.zone_size = if nr > 1 { 16 * PAGE_SIZE } else { 1 };
        self.lazy_list.clear();
        self.purge_tree = VaTree::default();
        self.vmap_lazy_nr = 0;
        self.space = (start, end);
        self.free_vmap_cache = NIL;
        self.cached_hole_size = 0;
        self.cached_vstart = 0;
        self.cached_align = 0;
        self.vmap_area_pcpu_hole = VMALLOC_END;
        if self.profile != Profile::Linux51 {
            // 5.1 has no free tree: free space is whatever no busy area covers.
            let va = self.arena.alloc(start, end);
            insert_vmap_area_augment(&mut self.arena, &mut self.free, va, NIL, &mut NoObserver);
        }
        self.initialized = true;
        Ok(())
    }

    /// The boot default `[1, ULONG_MAX)` unless an `init` came first.
    pub fn ensure_init(&mut self) {
        if !self.initialized {
            // Cannot fail: 1 < ULONG_MAX.
            let _ = self.init(1, ULONG_MAX);
        }
    }

    pub fn set_cpus(&mut self, n: u64) -> Result<(), VmapError> {
        if n == 0 || n > MAX_CPUS {
            return Err(VmapError::BadCpus { cpus: n });
        }
        if n <= u64::from(self.cpu) {
            return Err(VmapError::CpuOffline { cpu: self.cpu, cpus: n });
        }
        self.cpus = n as u32;
        Ok(())
    }

    pub fn set_cpu(&mut self, n: u64) -> Result<(), VmapError> {
        if n >= u64::from(self.cpus) {
            return Err(VmapError::BadCpu { cpu: n, cpus: self.cpus });
        }
        self.cpu = n as u32;
        Ok(())
    }

    /// `lazy_max_pages()`: `fls(ncpu) * 32 MiB / PAGE_SIZE`.
    pub fn lazy_max_pages(&self) -> u64 {
        u64::from(fls(u64::from(self.cpus))) * (32 * 1024 * 1024 / PAGE_SIZE)
    }

    pub fn nr_vmap_nodes(&self) -> u32 {
        self.nodes.len() as u32
    }

    /// `addr_to_node_id`: `(addr / zone_size) % nr_vmap_nodes`. Every profile but a
    /// multi-node linux-6.9 has one node, and the zone size is a power of two, so the two
    /// 64-bit divisions are skipped or become a shift and a mask (same result).
    #[inline(always)]
    pub fn addr_to_node_id(&self, addr: u64) -> u32 {
        let nr = self.nodes.len() as u64;
        if nr <= 1 {
            return 0;
        }
        let zone = self.zone_size;
        let q = if zone.is_power_of_two() { addr >> zone.trailing_zeros() } else { addr / zone };
        (if nr.is_power_of_two() { q & (nr - 1) } else { q % nr }) as u32
    }

    #[inline(always)]
    fn encode_vn_id(id: u32) -> u32 {
        id + 1
    }

    #[inline(always)]
    fn decode_vn_id(&self, v: u32) -> Option<u32> {
        let id = v.wrapping_sub(1);
        (v != 0 && id < self.nodes.len() as u32).then_some(id)
    }

    #[inline(always)]
    fn tree_view(&self) -> TreeView<'_> {
        TreeView { arena: &self.arena, root: self.free.root }
    }

    fn validate(&self, size: u64, align: u64) -> Result<(), VmapError> {
        let profile = self.profile;
        if size == 0 {
            return Err(VmapError::SizeZero { profile });
        }
        if size & (PAGE_SIZE - 1) != 0 {
            return Err(VmapError::SizeNotPageMultiple { size, profile });
        }
        if !align.is_power_of_two() {
            return Err(VmapError::BadAlign { align, profile });
        }
        Ok(())
    }

    // ------------------------------------------------------------------
    // Allocation
    // ------------------------------------------------------------------

    /// `__alloc_vmap_area`: search, check `vend`, clip. `Ok(None)` on failure (the tree is
    /// unchanged); `Err` when the kernel's search would never return.
    fn __alloc_vmap_area<O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<Option<u64>, VmapError> {
        let rule = self.profile.search_rule();
        let length = rule.length(size, align, vstart, vend);
        if O::ON {
            obs.event(Event::SearchStart { size, align, vstart, vend, length }, self.tree_view());
        }
        let va = find_vmap_lowest_match(&self.arena, &self.free, size, align, vstart, length, rule, obs)
            .map_err(|_| VmapError::EndlessSearch { size, align, vstart, profile: self.profile })?;
        if va == NIL {
            return Ok(None);
        }
        let vs = self.arena.get(va).va_start;
        let nva = if vs > vstart { align_up(vs, align) } else { align_up(vstart, align) };
        if nva.wrapping_add(size) > vend {
            if O::ON {
                obs.event(Event::OutOfRange { nva, size, vend }, self.tree_view());
            }
            return Ok(None);
        }
        let ty = classify_va_fit_type(&self.arena, va, nva, size);
        if O::ON {
            let v = self.arena.get(va);
            let ev = Event::Fit { id: v.id, va_start: v.va_start, va_end: v.va_end, nva, size, fit: ty };
            obs.event(ev, self.tree_view());
        }
        if ty == FitType::NothingFit {
            return Ok(None);
        }
        adjust_va_to_fit_type(&mut self.arena, &mut self.free, va, nva, size, ty, obs);
        Ok(Some(nva))
    }

    /// `insert_vmap_area` into the busy tree of the area's node.
    fn busy_insert<O: Observer>(&mut self, va: u32, obs: &mut O) {
        let nid = self.addr_to_node_id(self.arena.get(va).va_start) as usize;
        insert_vmap_area::<Plain, O>(&mut self.arena, &mut self.nodes[nid].busy, va, obs);
        if O::ON {
            let v = *self.arena.get(va);
            let mut depth = 0;
            let mut p = v.parent;
            while p != NIL {
                depth += 1;
                p = self.arena.get(p).parent;
            }
            obs.areas_event(Event::BusyInsert { id: v.id, va_start: v.va_start, va_end: v.va_end, depth }, self);
        }
    }

    /// `alloc_vmap_area`: returns the start of the new busy area.
    pub fn alloc<O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        self.ensure_init();
        self.validate(size, align)?;
        let mut vn_flags = 0;
        if self.profile == Profile::Linux69 && vstart == VMALLOC_START && vend == VMALLOC_END && self.nodes.len() > 1 {
            let nid = self.cpu % self.nodes.len() as u32;
            vn_flags = Self::encode_vn_id(nid) << VN_SHIFT;
            if let Some(va) = self.node_pool_del_va(nid, size, align, vstart, vend, obs) {
                self.arena.at(va).flags = vn_flags;
                self.busy_insert(va, obs);
                if O::ON {
                    let v = *self.arena.get(va);
                    obs.event(Event::Allocated { id: v.id, addr: v.va_start, size }, self.tree_view());
                }
                return Ok(self.arena.get(va).va_start);
            }
        }
        let mut purged = false;
        loop {
            let found = if self.profile == Profile::Linux51 {
                self.alloc_v51(size, align, vstart, vend, obs)
            } else {
                self.__alloc_vmap_area(size, align, vstart, vend, obs)?
            };
            if let Some(addr) = found {
                let va = self.arena.alloc(addr, addr.wrapping_add(size));
                self.arena.at(va).flags = vn_flags;
                self.busy_insert(va, obs);
                if self.profile == Profile::Linux51 {
                    self.free_vmap_cache = va;
                }
                if O::ON {
                    let id = self.arena.get(va).id;
                    obs.event(Event::Allocated { id, addr, size }, self.tree_view());
                }
                return Ok(addr);
            }
            if purged {
                break;
            }
            // Overflow: return lazy areas (6.9: with a full pool decay) and try again once.
            purged = true;
            self.refuse_endless_retry(size, align, vstart, vend)?;
            if self.profile == Profile::Linux69 {
                self.purge_nodes(true, PurgeCause::AllocRetry, obs);
            } else {
                self.purge_lazy(PurgeCause::AllocRetry, obs);
            }
        }
        if O::ON {
            obs.event(Event::AllocFailed { size }, self.tree_view());
        }
        Err(VmapError::NoSpace { size, align, vstart, vend })
    }

    /// Before the purge-and-retry of a request whose padded length wraps (the one case where
    /// linux-5.2's search can loop forever): try the retry on a copy, so that a retry that would
    /// never return is refused before the purge changes anything. Other requests cost one test.
    fn refuse_endless_retry(&self, size: u64, align: u64, vstart: u64, vend: u64) -> Result<(), VmapError> {
        let rule = self.profile.search_rule();
        if rule.move_vstart || self.profile == Profile::Linux51 || size.checked_add(align - 1).is_some() {
            return Ok(());
        }
        let mut trial = self.clone();
        trial.purge_lazy(PurgeCause::AllocRetry, &mut NoObserver);
        trial.__alloc_vmap_area(size, align, vstart, vend, &mut NoObserver).map(|_| ())
    }

    // ------------------------------------------------------------------
    // Free paths
    // ------------------------------------------------------------------

    /// The busy area starting exactly at `addr` (searching the node of `addr` first).
    fn find_busy(&self, addr: u64) -> Result<(usize, u32), VmapError> {
        let nr = self.nodes.len();
        let mut nid = self.addr_to_node_id(addr) as usize;
        let mut interior = None;
        for k in 0..nr {
            // The kernel walks i, i-1, i-2, ... wrapping.
            if k > 0 {
                nid = if nid == 0 { nr - 1 } else { nid - 1 };
            }
            let va = self.nodes[nid].busy.find_containing(&self.arena, addr);
            if va != NIL {
                let v = self.arena.get(va);
                if v.va_start == addr {
                    if v.is_lazy() {
                        return Err(VmapError::AlreadyLazy { addr });
                    }
                    return Ok((nid, va));
                }
                interior = Some((v.va_start, v.va_end));
            }
        }
        Err(VmapError::UnknownFree { addr, interior_of: interior })
    }

    fn busy_remove<O: Observer>(&mut self, nid: usize, va: u32, obs: &mut O) {
        unlink_va::<Plain, O>(&mut self.arena, &mut self.nodes[nid].busy, va, obs);
        if O::ON {
            let v = *self.arena.get(va);
            obs.areas_event(Event::BusyRemove { id: v.id, va_start: v.va_start, va_end: v.va_end }, self);
        }
    }

    /// `merge_or_add_vmap_area` into the free tree in the profile's style.
    fn free_tree_add<O: Observer>(&mut self, va: u32, obs: &mut O) {
        let style = self.profile.merge_style();
        // Busy and lazy areas never overlap the free tree, so this cannot fail.
        merge_or_add_vmap_area::<SubtreeMax, O>(&mut self.arena, &mut self.free, va, style, obs);
    }

    /// `free_vmap_area`: give the busy area at `addr` back to the free tree at once.
    pub fn free<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        self.ensure_init();
        let (nid, va) = self.find_busy(addr)?;
        self.__free_vmap_area(nid, va, obs);
        Ok(())
    }

    /// `__free_vmap_area`: unlink from busy and return the range to free space.
    fn __free_vmap_area<O: Observer>(&mut self, nid: usize, va: u32, obs: &mut O) {
        if self.profile == Profile::Linux51 {
            self.free_v51(va, obs);
            return;
        }
        self.busy_remove(nid, va, obs);
        self.arena.at(va).flags = 0;
        self.free_tree_add(va, obs);
    }

    /// linux-5.1 `alloc_vmap_area`'s search: walk the busy areas in address order from a
    /// starting point (the cached area, or the first area ending at or above vstart) until
    /// the gap before the next area is big enough.
    ///
    /// ```text
    ///   busy:   [A)    [B)      [C)          [D)
    ///               ^addr  ^addr    ^addr+size fits before D?  -> found
    /// ```
    fn alloc_v51<O: Observer>(&mut self, size: u64, align: u64, vstart: u64, vend: u64, obs: &mut O) -> Option<u64> {
        use crate::events::CacheResetWhy as Why;
        // The model's `init` range bounds the window (the kernel had no such setting).
        let vstart = vstart.max(self.space.0);
        let vend = vend.min(self.space.1);
        let why = if self.free_vmap_cache == NIL {
            Some(Why::Empty)
        } else if size < self.cached_hole_size {
            Some(Why::SmallerThanHole)
        } else if vstart < self.cached_vstart {
            Some(Why::LowerVstart)
        } else if align < self.cached_align {
            Some(Why::SmallerAlign)
        } else {
            None
        };
        if let Some(why) = why {
            self.reset_cache_v51(why, obs);
        }
        self.cached_vstart = vstart;
        self.cached_align = align;
        let busy = self.nodes[0].busy;
        let mut addr;
        let mut first = NIL;
        if self.free_vmap_cache != NIL {
            let c = *self.arena.get(self.free_vmap_cache);
            addr = align_up(c.va_end, align);
            if addr < vstart {
                // goto nocache
                self.reset_cache_v51(Why::BelowVstart, obs);
                self.cached_vstart = vstart;
                self.cached_align = align;
            } else {
                if O::ON {
                    let ev = Event::CacheUse { id: c.id, va_start: c.va_start, va_end: c.va_end, addr };
                    obs.event(ev, self.tree_view());
                }
                if addr.wrapping_add(size) < addr {
                    return None;
                }
                first = self.free_vmap_cache;
            }
        }
        if self.free_vmap_cache == NIL {
            addr = align_up(vstart, align);
            if addr.wrapping_add(size) < addr {
                return None;
            }
            let mut n = busy.root;
            while n != NIL {
                let t = *self.arena.get(n);
                if O::ON {
                    let ev = Event::WalkTree { id: t.id, va_start: t.va_start, va_end: t.va_end, addr };
                    obs.event(ev, self.tree_view());
                }
                if t.va_end >= addr {
                    first = n;
                    if t.va_start <= addr {
                        break;
                    }
                    n = t.left;
                } else {
                    n = t.right;
                }
            }
        } else {
            addr = align_up(self.arena.get(first).va_end, align);
        }
        if first != NIL {
            loop {
                let f = *self.arena.get(first);
                let end = addr.wrapping_add(size);
                if !(end > f.va_start && end <= vend) {
                    break;
                }
                if addr.wrapping_add(self.cached_hole_size) < f.va_start {
                    self.cached_hole_size = f.va_start - addr;
                }
                addr = align_up(f.va_end, align);
                if O::ON {
                    let ev = Event::WalkArea {
                        id: f.id,
                        va_start: f.va_start,
                        va_end: f.va_end,
                        addr,
                        cached_hole_size: self.cached_hole_size,
                    };
                    obs.event(ev, self.tree_view());
                }
                if addr.wrapping_add(size) < addr {
                    return None;
                }
                if f.next == NIL {
                    break;
                }
                first = f.next;
            }
        }
        // found: the aligned address can wrap to 0 with a huge align.
        if addr.wrapping_add(size) > vend || addr < vstart {
            return None;
        }
        Some(addr)
    }

    fn reset_cache_v51<O: Observer>(&mut self, why: crate::events::CacheResetWhy, obs: &mut O) {
        self.cached_hole_size = 0;
        self.free_vmap_cache = NIL;
        if O::ON {
            obs.event(Event::CacheReset { why }, self.tree_view());
        }
    }

    /// linux-5.1 `__free_vmap_area`: move the cache below a freed area, then unlink it.
    fn free_v51<O: Observer>(&mut self, va: u32, obs: &mut O) {
        let v = *self.arena.get(va);
        if self.free_vmap_cache != NIL {
            if v.va_end < self.cached_vstart {
                self.reset_cache_v51(crate::events::CacheResetWhy::LowerVstart, obs);
            } else if v.va_start <= self.arena.get(self.free_vmap_cache).va_start {
                self.free_vmap_cache = crate::rbtree::rb_prev(&self.arena, va);
            }
        }
        self.busy_remove(0, va, obs);
        self.arena.release(va);
    }

    /// `vfree`: the lazy path (`remove_vm_area` + `free_vmap_area_noflush`).
    pub fn vfree<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        self.ensure_init();
        if !self.profile.lazy_in_busy() && addr & (PAGE_SIZE - 1) != 0 {
            // EB/EC `remove_vm_area` warns on an unaligned address and does nothing.
            return Err(VmapError::UnalignedFree { addr });
        }
        let (nid, va) = self.find_busy(addr)?;
        let (vs, ve, vid) = {
            let v = self.arena.get(va);
            (v.va_start, v.va_end, v.id)
        };
        let nr_lazy = self.vmap_lazy_nr + ((ve - vs) >> PAGE_SHIFT);
        self.vmap_lazy_nr = nr_lazy;
        match self.profile {
            Profile::Linux51 | Profile::Linux52 => {
                // Stays in the busy tree, marked, and is pushed on the lock-free list.
                self.arena.at(va).flags |= F_LAZY;
                self.lazy_list.push(va);
            }
            Profile::Linux61 => {
                self.busy_remove(nid, va, obs);
                merge_or_add_vmap_area::<Plain, O>(&mut self.arena, &mut self.purge_tree, va, MergeStyle::Eb, obs);
            }
            Profile::Linux69 => {
                self.busy_remove(nid, va, obs);
                let vn = self.arena.get(va).vn_id();
                let lnid = match self.decode_vn_id(vn) {
                    Some(id) => id as usize,
                    None => self.addr_to_node_id(vs) as usize,
                };
                insert_vmap_area::<Plain, O>(&mut self.arena, &mut self.nodes[lnid].lazy, va, obs);
            }
        }
        let lazy_max = self.lazy_max_pages();
        if O::ON {
            obs.areas_event(Event::LazyEnqueue { id: vid, va_start: vs, va_end: ve, nr_lazy, lazy_max }, self);
        }
        if nr_lazy > lazy_max {
            match self.profile {
                Profile::Linux69 => {
                    self.purge_nodes(false, PurgeCause::Threshold, obs);
                }
                _ => {
                    self.purge_lazy(PurgeCause::Threshold, obs);
                }
            }
        }
        Ok(())
    }

    /// A forced purge (`purge` in a trace). 6.9: the drain path.
    pub fn purge<O: Observer>(&mut self, obs: &mut O) -> PurgeResult {
        self.ensure_init();
        match self.profile {
            Profile::Linux69 => self.purge_nodes(false, PurgeCause::Forced, obs),
            _ => self.purge_lazy(PurgeCause::Forced, obs),
        }
    }

    /// `reclaim_and_purge_vmap_areas` (6.9: full decay); the plain purge elsewhere.
    pub fn reclaim<O: Observer>(&mut self, obs: &mut O) -> PurgeResult {
        self.ensure_init();
        match self.profile {
            Profile::Linux69 => self.purge_nodes(true, PurgeCause::Reclaim, obs),
            _ => self.purge_lazy(PurgeCause::Reclaim, obs),
        }
    }

    /// `__purge_vmap_area_lazy` for linux-5.2 and linux-6.1.
    fn purge_lazy<O: Observer>(&mut self, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        let mut count = 0u32;
        match self.profile {
            Profile::Linux51 | Profile::Linux52 => {
                // llist_del_all: newest first.
                let list = std::mem::take(&mut self.lazy_list);
                if O::ON {
                    obs.areas_event(Event::PurgeStart { cause, count: list.len() as u32 }, self);
                }
                for &va in list.iter().rev() {
                    let v = *self.arena.get(va);
                    if O::ON {
                        obs.event(Event::PurgeArea { va_start: v.va_start, va_end: v.va_end }, self.tree_view());
                    }
                    self.__free_vmap_area(0, va, obs);
                    self.vmap_lazy_nr -= v.size() >> PAGE_SHIFT;
                    count += 1;
                }
                self.lazy_list = list;
                self.lazy_list.clear();
            }
            _ => {
                // Detach the purge list (ascending, already coalesced).
                let list = std::mem::take(&mut self.purge_tree);
                if O::ON {
                    obs.areas_event(Event::PurgeStart { cause, count: list.len as u32 }, self);
                }
                let mut va = list.first;
                while va != NIL {
                    let v = *self.arena.get(va);
                    let next = v.next;
                    if O::ON {
                        obs.event(Event::PurgeArea { va_start: v.va_start, va_end: v.va_end }, self.tree_view());
                    }
                    self.arena.detach(va);
                    self.arena.at(va).flags = 0;
                    self.free_tree_add(va, obs);
                    self.vmap_lazy_nr -= v.size() >> PAGE_SHIFT;
                    count += 1;
                    va = next;
                }
            }
        }
        if O::ON {
            obs.areas_event(Event::PurgeEnd { purged: count }, self);
        }
        PurgeResult { entries: count }
    }

    // ------------------------------------------------------------------
    // linux-6.9: vmap nodes and pools
    // ------------------------------------------------------------------

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
    fn node_pool_del_va<O: Observer>(
        &mut self,
        nid: u32,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Option<u32> {
        let idx = Self::pool_index(size)?;
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
                let ev = Event::PoolHit { node: nid, pool: idx as u32, va_start: v.va_start, va_end: v.va_end };
                obs.areas_event(ev, self);
            }
            Some(va)
        } else {
            let p = self.pool_mut(nid, idx);
            p.pop_front();
            p.push_back(va);
            if O::ON {
                let ev = Event::PoolRotate { node: nid, pool: idx as u32, va_start: v.va_start, va_end: v.va_end };
                obs.areas_event(ev, self);
            }
            None
        }
    }

    /// `reclaim_list_global`: merge a list of detached areas into the free tree, in order.
    fn reclaim_list_global<O: Observer>(&mut self, list: &[u32], obs: &mut O) {
        for &va in list {
            self.arena.detach(va);
            self.arena.at(va).flags = 0;
            self.free_tree_add(va, obs);
        }
    }

    /// `decay_va_pool_node`: give back a quarter of each pool (all of it when `full`, or when
    /// a quarter rounds to nothing, as 6.9 does), coalesced, in ascending order.
    fn decay_va_pool_node<O: Observer>(&mut self, nid: u32, full: bool, obs: &mut O) {
        let mut decay = VaTree::default();
        for idx in 0..self.nodes[nid as usize].pools.len() {
            let len = self.nodes[nid as usize].pools[idx].len();
            if len == 0 {
                continue;
            }
            let quarter = len >> 2;
            let n = if full || quarter == 0 { len } else { quarter };
            let taken: Vec<u32> = self.nodes[nid as usize].pools[idx].drain(..n).collect();
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

    /// `__purge_vmap_area_lazy` of 6.9: decay every node's pools, then purge every node's lazy
    /// areas (into its pools unless `full`, else back to the free tree, descending).
    fn purge_nodes<O: Observer>(&mut self, full: bool, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        let nr = self.nodes.len();
        let mut purge_lists: Vec<Vec<u32>> = Vec::with_capacity(nr);
        let total: usize = self.nodes.iter().map(|n| n.lazy.len).sum();
        if O::ON {
            obs.areas_event(Event::PurgeStart { cause, count: total as u32 }, self);
        }
        for nid in 0..nr {
            self.decay_va_pool_node(nid as u32, full, obs);
            let lazy = std::mem::take(&mut self.nodes[nid].lazy);
            let list: Vec<u32> = lazy.iter(&self.arena).map(|(i, _)| i).collect();
            purge_lists.push(list);
        }
        let mut count = 0u32;
        for (nid, list) in purge_lists.into_iter().enumerate() {
            if list.is_empty() {
                continue;
            }
            let mut local: Vec<u32> = Vec::new();
            let mut pages = 0;
            for va in list {
                let v = *self.arena.get(va);
                pages += v.size() >> PAGE_SHIFT;
                count += 1;
                if O::ON {
                    obs.event(Event::PurgeArea { va_start: v.va_start, va_end: v.va_end }, self.tree_view());
                }
                if !full && self.decode_vn_id(v.vn_id()).is_some() {
                    if let Some(idx) = Self::pool_index(v.size()) {
                        self.arena.detach(va);
                        self.pool_mut(nid as u32, idx).push_front(va);
                        if O::ON {
                            let ev = Event::Pooled {
                                node: nid as u32,
                                pool: idx as u32,
                                va_start: v.va_start,
                                va_end: v.va_end,
                            };
                            obs.areas_event(ev, self);
                        }
                        continue;
                    }
                }
                local.push(va);
            }
            self.vmap_lazy_nr -= pages;
            // The local list was built by pushing at the head: descending order.
            local.reverse();
            self.reclaim_list_global(&local, obs);
        }
        if O::ON {
            obs.areas_event(Event::PurgeEnd { purged: count }, self);
        }
        PurgeResult { entries: count }
    }

    // ------------------------------------------------------------------
    // pcpu_get_vm_areas
    // ------------------------------------------------------------------

    /// `pvm_find_va_enclose_addr`: the free block enclosing `addr` (end inclusive), or the
    /// highest block starting at or below it.
    fn pvm_find_va_enclose_addr(&self, addr: u64) -> u32 {
        let mut n = self.free.root;
        let mut va = NIL;
        while n != NIL {
            let v = self.arena.get(n);
            if v.va_start <= addr {
                va = n;
                if v.va_end >= addr {
                    break;
                }
                n = v.right;
            } else {
                n = v.left;
            }
        }
        va
    }

    /// `pvm_determine_end_from_reverse`: walking the free list backwards from `*va`, the
    /// highest aligned end a block can offer; 0 (and `*va = NIL`) when none can.
    fn pvm_determine_end_from_reverse(&self, va: &mut u32, align: u64) -> u64 {
        let vmalloc_end = VMALLOC_END & !(align - 1);
        while *va != NIL {
            let v = self.arena.get(*va);
            let addr = (v.va_end & !(align - 1)).min(vmalloc_end);
            if v.va_start < addr {
                return addr;
            }
            *va = v.prev;
        }
        0
    }

    /// `pcpu_get_vm_areas`: `offsets.len()` congruent areas placed as high as possible below
    /// VMALLOC_END, all at the same base. Returns their start addresses.
    pub fn pcpu_get_vm_areas<O: Observer>(
        &mut self,
        offsets: &[u64],
        sizes: &[u64],
        align: u64,
        obs: &mut O,
    ) -> Result<Vec<u64>, VmapError> {
        self.ensure_init();
        let nr = offsets.len();
        let bad = |why: String| Err(VmapError::BadPcpu { why });
        if nr == 0 || nr != sizes.len() {
            return bad("needs at least one OFFSET:SIZE pair".into());
        }
        if align & (PAGE_SIZE - 1) != 0 || !align.is_power_of_two() {
            return bad(format!("align {align:#x} must be a power of two and a multiple of PAGE_SIZE"));
        }
        let vs = align_up(VMALLOC_START, align);
        let ve = VMALLOC_END & !(align - 1);
        let mut last_area = 0;
        for i in 0..nr {
            let (s, sz) = (offsets[i], sizes[i]);
            if s & (align - 1) != 0 || sz & (align - 1) != 0 {
                return bad(format!("area {i}: offset {s:#x} and size {sz:#x} must be multiples of align {align:#x}"));
            }
            if sz == 0 {
                return bad(format!("area {i} has size 0"));
            }
            let Some(e) = s.checked_add(sz) else {
                return bad(format!("area {i}: offset + size overflows"));
            };
            if s > offsets[last_area] {
                last_area = i;
            }
            for j in 0..nr {
                if i == j {
                    continue;
                }
                let (s2, e2) = (offsets[j], offsets[j].wrapping_add(sizes[j]));
                if s2 < e && s < e2 {
                    return bad(format!("areas {i} and {j} overlap"));
                }
            }
        }
        let last_end = offsets[last_area] + sizes[last_area];
        if ve.wrapping_sub(vs) < last_end {
            // WARN_ON: no purge, no retry.
            return Err(VmapError::NoSpace { size: last_end, align, vstart: vs, vend: ve });
        }
        if self.profile == Profile::Linux51 {
            return self.pcpu_get_vm_areas_v51(offsets, sizes, align, last_area, obs);
        }
        let combined_test = self.profile == Profile::Linux52;
        let mut purged = false;
        let mut before_purge: Option<Box<Vmap>> = None;
        'retry: loop {
            let mut area = last_area;
            let mut term = last_area;
            let mut start = offsets[area];
            let mut end = start + sizes[area];
            let mut va = self.pvm_find_va_enclose_addr(ve);
            let mut base = self.pvm_determine_end_from_reverse(&mut va, align).wrapping_sub(end);
            let mut budget = self.pcpu_walk_budget(nr);
            let found = loop {
                if base.wrapping_add(last_end) < vs.wrapping_add(last_end) || va == NIL {
                    break false;
                }
                if budget == 0 {
                    if let Some(b) = before_purge {
                        *self = *b;
                    }
                    return Err(VmapError::EndlessWalk { what: "pcpu_get_vm_areas" });
                }
                budget -= 1;
                let v = *self.arena.get(va);
                if combined_test {
                    if base.wrapping_add(start) < v.va_start || base.wrapping_add(end) > v.va_end {
                        va = crate::rbtree::rb_prev(&self.arena, va);
                        base = self.pvm_determine_end_from_reverse(&mut va, align).wrapping_sub(end);
                        term = area;
                        continue;
                    }
                } else {
                    if base.wrapping_add(end) > v.va_end {
                        base = self.pvm_determine_end_from_reverse(&mut va, align).wrapping_sub(end);
                        term = area;
                        continue;
                    }
                    if base.wrapping_add(start) < v.va_start {
                        va = crate::rbtree::rb_prev(&self.arena, va);
                        base = self.pvm_determine_end_from_reverse(&mut va, align).wrapping_sub(end);
                        term = area;
                        continue;
                    }
                }
                area = (area + nr - 1) % nr;
                if area == term {
                    break true;
                }
                start = offsets[area];
                end = start + sizes[area];
                va = self.pvm_find_va_enclose_addr(base.wrapping_add(end));
            };
            if !found {
                if !purged {
                    purged = true;
                    before_purge = Some(Box::new(self.clone()));
                    if self.profile == Profile::Linux69 {
                        self.purge_nodes(true, PurgeCause::AllocRetry, obs);
                    } else {
                        self.purge_lazy(PurgeCause::AllocRetry, obs);
                    }
                    continue 'retry;
                }
                if O::ON {
                    obs.event(Event::AllocFailed { size: last_end }, self.tree_view());
                }
                return Err(VmapError::NoSpace { size: last_end, align, vstart: vs, vend: ve });
            }
            // Carve every area at the common base.
            let mut carved: Vec<u64> = Vec::with_capacity(nr);
            for i in 0..nr {
                let s = base.wrapping_add(offsets[i]);
                let size = sizes[i];
                let va = self.pvm_find_va_enclose_addr(s);
                let ty = if va == NIL { FitType::NothingFit } else { classify_va_fit_type(&self.arena, va, s, size) };
                if O::ON && va != NIL {
                    let v = self.arena.get(va);
                    let ev = Event::Fit { id: v.id, va_start: v.va_start, va_end: v.va_end, nva: s, size, fit: ty };
                    obs.event(ev, self.tree_view());
                }
                if ty == FitType::NothingFit {
                    // Recovery: give back what was carved, then fail.
                    for (j, &c) in carved.iter().enumerate() {
                        let back = self.arena.alloc(c, c.wrapping_add(sizes[j]));
                        self.free_tree_add(back, obs);
                    }
                    return Err(VmapError::NoSpace { size: last_end, align, vstart: vs, vend: ve });
                }
                adjust_va_to_fit_type(&mut self.arena, &mut self.free, va, s, size, ty, obs);
                carved.push(s);
            }
            for (i, &s) in carved.iter().enumerate() {
                let va = self.arena.alloc(s, s.wrapping_add(sizes[i]));
                self.busy_insert(va, obs);
                if O::ON {
                    obs.event(Event::PcpuArea { index: i as u32, addr: s, size: sizes[i] }, self.tree_view());
                }
            }
            return Ok(carved);
        }
    }

    /// A bound on the steps of one pcpu walk. Each reset of the base moves it below an area
    /// boundary it has not passed before (at most `areas * group` resets, one per area and
    /// group member), and between resets the walk steps through the group at most once: so
    /// `(areas + 2) * (group + 2)^2` steps are never exceeded by a walk that ends.
    fn pcpu_walk_budget(&self, nr: usize) -> u64 {
        let g = nr as u64 + 2;
        (self.arena.nodes.len() as u64 + 2).saturating_mul(g).saturating_mul(g)
    }

    /// linux-5.1 `pcpu_get_vm_areas` (parameters already checked): one base for every area,
    /// searched downwards over the busy areas (lazy ones included: they are still busy) from
    /// `vmap_area_pcpu_hole`, the base of the previous group. The areas are tried from the
    /// highest down, round and round, until a whole round needs no move:
    ///
    /// ```text
    ///            prev        next
    ///   busy:  [....)       [......)
    ///   want:        [ area k )            overlaps next: base drops so the area ends
    ///                  [ area k )  <-      at next's start (aligned down); overlaps
    ///                                      prev: next = prev, and again
    /// ```
    fn pcpu_get_vm_areas_v51<O: Observer>(
        &mut self,
        offsets: &[u64],
        sizes: &[u64],
        align: u64,
        last_area: usize,
        obs: &mut O,
    ) -> Result<Vec<u64>, VmapError> {
        let nr = offsets.len();
        // The model's `init` range bounds the window, as for the 5.1 search.
        let vs = align_up(VMALLOC_START.max(self.space.0), align);
        let ve = VMALLOC_END.min(self.space.1) & !(align - 1);
        let last_end = offsets[last_area] + sizes[last_area];
        let no_space = Err(VmapError::NoSpace { size: last_end, align, vstart: vs, vend: ve });
        if vs > ve || ve - vs < last_end {
            return no_space;
        }
        let mut purged = false;
        // The state before the purge, kept only on the (rare) retry path: a placement refused
        // after it must leave nothing changed.
        let mut before_purge: Option<Box<Vmap>> = None;
        let base = 'retry: loop {
            let mut area = last_area;
            let mut term = last_area;
            let mut start = offsets[area];
            let mut end = start + sizes[area];
            let Some((mut next, mut prev)) = self.pvm_find_next_prev(self.vmap_area_pcpu_hole) else {
                break ve - last_end;
            };
            let mut base = self.pvm_determine_end(&mut next, &mut prev, align, ve).wrapping_sub(end);
            let mut budget = self.pcpu_walk_budget(nr);
            loop {
                if budget == 0 {
                    if let Some(b) = before_purge {
                        *self = *b;
                    }
                    return Err(VmapError::EndlessWalk { what: "pcpu_get_vm_areas" });
                }
                budget -= 1;
                // `base` may have wrapped below zero: compare with last_end added.
                if base.wrapping_add(last_end) < vs.wrapping_add(last_end) {
                    if !purged {
                        purged = true;
                        before_purge = Some(Box::new(self.clone()));
                        self.purge_lazy(PurgeCause::AllocRetry, obs);
                        continue 'retry;
                    }
                    if O::ON {
                        obs.event(Event::AllocFailed { size: last_end }, self.tree_view());
                    }
                    return no_space;
                }
                if next != NIL && self.arena.get(next).va_start < base.wrapping_add(end) {
                    base = self.pvm_determine_end(&mut next, &mut prev, align, ve).wrapping_sub(end);
                    term = area;
                    continue;
                }
                if prev != NIL && self.arena.get(prev).va_end > base.wrapping_add(start) {
                    next = prev;
                    prev = crate::rbtree::rb_prev(&self.arena, next);
                    base = self.pvm_determine_end(&mut next, &mut prev, align, ve).wrapping_sub(end);
                    term = area;
                    continue;
                }
                area = (area + nr - 1) % nr;
                if area == term {
                    break 'retry base;
                }
                start = offsets[area];
                end = start + sizes[area];
                (next, prev) = self.pvm_find_next_prev(base.wrapping_add(end)).unwrap_or((NIL, NIL));
            }
        };
        // 5.1 checks neither `ALIGN(VMALLOC_START, align)` nor `base` for wrapping past 2^64 or
        // below 0: a huge alignment or a window near the top of the space can send the areas
        // outside the vmalloc space. The model cannot hand out such addresses: refuse.
        let (lo, hi) = (VMALLOC_START.max(self.space.0), VMALLOC_END.min(self.space.1));
        let outside = offsets.iter().zip(sizes).any(|(&o, &sz)| {
            let s = base.wrapping_add(o);
            s < lo || s.checked_add(sz).is_none_or(|e| e > hi)
        });
        if outside {
            if let Some(b) = before_purge {
                *self = *b;
            }
            return Err(VmapError::PcpuOutside { base, start: lo, end: hi });
        }
        let mut out = Vec::with_capacity(nr);
        for i in 0..nr {
            let s = base + offsets[i];
            let va = self.arena.alloc(s, s + sizes[i]);
            self.busy_insert(va, obs);
            if O::ON {
                obs.event(Event::PcpuArea { index: i as u32, addr: s, size: sizes[i] }, self.tree_view());
            }
            out.push(s);
        }
        self.vmap_area_pcpu_hole = base + offsets[last_area];
        Ok(out)
    }

    /// linux-5.1 `pvm_find_next_prev`: the busy areas around `end`, `next` the first whose end
    /// is above it and `prev` the one before; `None` when nothing is busy.
    fn pvm_find_next_prev(&self, end: u64) -> Option<(u32, u32)> {
        let mut n = self.nodes[0].busy.root;
        let mut va = NIL;
        while n != NIL {
            va = n;
            let v = self.arena.get(n);
            if end < v.va_end {
                n = v.left;
            } else if end > v.va_end {
                n = v.right;
            } else {
                break;
            }
        }
        if va == NIL {
            return None;
        }
        Some(if self.arena.get(va).va_end > end {
            (va, crate::rbtree::rb_prev(&self.arena, va))
        } else {
            (crate::rbtree::rb_next(&self.arena, va), va)
        })
    }

    /// linux-5.1 `pvm_determine_end`: the highest aligned end below `next` (at most the
    /// window's end), with `next`/`prev` moved down past every area that ends above it.
    fn pvm_determine_end(&self, next: &mut u32, prev: &mut u32, align: u64, ve: u64) -> u64 {
        let addr = if *next != NIL { (self.arena.get(*next).va_start & !(align - 1)).min(ve) } else { ve };
        while *prev != NIL && self.arena.get(*prev).va_end > addr {
            *next = *prev;
            *prev = crate::rbtree::rb_prev(&self.arena, *next);
        }
        addr
    }

    // ------------------------------------------------------------------
    // Inspection
    // ------------------------------------------------------------------

    /// Busy areas of a node, in address order, with the lazy flag (5.2).
    pub fn busy_areas(&self, nid: usize) -> impl Iterator<Item = (AreaInfo, bool)> + '_ {
        self.nodes[nid]
            .busy
            .iter(&self.arena)
            .map(|(_, v)| (AreaInfo { id: v.id, va_start: v.va_start, va_end: v.va_end }, v.is_lazy()))
    }

    /// Lazy areas that left the busy tree (6.1: purge tree; 6.9: node lazy trees).
    pub fn lazy_areas(&self) -> Vec<AreaInfo> {
        self.lazy_areas_by_node().into_iter().map(|(_, a)| a).collect()
    }

    /// [`Vmap::lazy_areas`] with the vmap node whose lazy list holds each (0 before 6.9).
    pub fn lazy_areas_by_node(&self) -> Vec<(u32, AreaInfo)> {
        let mut out = Vec::new();
        let info = |v: &crate::area::VmapArea| AreaInfo { id: v.id, va_start: v.va_start, va_end: v.va_end };
        match self.profile {
            Profile::Linux51 | Profile::Linux52 => {}
            Profile::Linux61 => out.extend(self.purge_tree.iter(&self.arena).map(|(_, v)| (0, info(v)))),
            Profile::Linux69 => {
                for (nid, n) in self.nodes.iter().enumerate() {
                    out.extend(n.lazy.iter(&self.arena).map(|(_, v)| (nid as u32, info(v))));
                }
            }
        }
        out
    }

    /// Pooled areas: (node, pool index, entries in pool order).
    pub fn pools(&self) -> Vec<(u32, u32, Vec<AreaInfo>)> {
        let mut out = Vec::new();
        for (nid, n) in self.nodes.iter().enumerate() {
            for (idx, p) in n.pools.iter().enumerate() {
                if !p.is_empty() {
                    let entries = p
                        .iter()
                        .map(|&va| {
                            let v = self.arena.get(va);
                            AreaInfo { id: v.id, va_start: v.va_start, va_end: v.va_end }
                        })
                        .collect();
                    out.push((nid as u32, idx as u32, entries));
                }
            }
        }
        out
    }

    /// Number of free blocks.
    pub fn free_blocks(&self) -> usize {
        self.free.len
    }

    /// Number of busy areas (lazy ones of 5.2 included).
    pub fn busy_count(&self) -> usize {
        self.nodes.iter().map(|n| n.busy.len).sum()
    }
}
