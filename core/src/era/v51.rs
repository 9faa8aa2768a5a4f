//! linux-5.1, the design before 2019: no free tree. Free space is whatever no busy area
//! covers; `alloc_vmap_area` walks the busy areas in address order from a cached starting
//! point (`free_vmap_cache`), and `pcpu_get_vm_areas` walks them downwards from
//! `vmap_area_pcpu_hole`. Lazily freed areas stay busy on the lock-free list until the purge.

use crate::addr::Addr;
use crate::area::NIL;
use crate::error::VmapError;
use crate::events::{Event, Observer, PurgeCause};
use crate::vmalloc::*;

use super::{search_purge_retry, Drain, pcpu_check_args, Era, EraSlot, Llist, PurgeResult, PurgeStop, Vmap};

/// linux-5.1: the busy-list walk.
pub struct V51;

/// What linux-5.1 keeps besides the busy tree: the search cache, the pcpu hole and the
/// lock-free lazy list.
#[derive(Clone, Debug)]
pub struct V51State {
    /// The busy area after which the next search starts (`free_vmap_cache`).
    pub(crate) free_vmap_cache: u32,
    /// The largest hole noticed below the cached area.
    pub(crate) cached_hole_size: u64,
    pub(crate) cached_vstart: u64,
    pub(crate) cached_align: u64,
    /// Where `pcpu_get_vm_areas` starts looking, downwards (`vmap_area_pcpu_hole`).
    pub(crate) vmap_area_pcpu_hole: u64,
    pub(crate) llist: Llist,
}

impl Default for V51State {
    fn default() -> Self {
        V51State {
            free_vmap_cache: NIL,
            cached_hole_size: 0,
            cached_vstart: 0,
            cached_align: 0,
            vmap_area_pcpu_hole: VMALLOC_END,
            llist: Llist::default(),
        }
    }
}

impl AsMut<Llist> for V51State {
    fn as_mut(&mut self) -> &mut Llist {
        &mut self.llist
    }
}

impl Era for V51 {
    type State = V51State;
    const NAME: &'static str = "linux-5.1";
    /// The busy-list walk with `free_vmap_cache` came with `vmap_area` (2.6.28).
    const FIRST_RELEASE: Option<(u32, u32)> = Some((2, 6));
    const SEARCH_RULE: SearchRule = SearchRule { adjust_search_size: false, move_vstart: false };
    const MERGE_STYLE: MergeStyle = MergeStyle::E52;
    const FREE_TREE: bool = false;
    const LAZY_IN_BUSY: bool = true;
    const BUG_ON_BAD_REQUEST: bool = true;
    const MODULE_TESTS: usize = 8;

    #[inline(always)]
    fn alloc<const P: u8, O: Observer>(
        v: &mut Vmap,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        v.alloc_v51(size, align, vstart, vend, obs)
    }

    #[inline(always)]
    fn free<const P: u8, O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        let (_, va) = v.find_busy(addr)?;
        v.free_v51(va, obs);
        Ok(())
    }

    fn vfree<O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        v.vfree_llist::<Self, O>(addr, obs)
    }

    fn purge<O: Observer>(v: &mut Vmap, cause: PurgeCause, _: Option<PurgeStop>, obs: &mut O) -> PurgeResult {
        v.purge_v51(cause, obs)
    }

    fn pcpu_get_vm_areas<O: Observer>(
        v: &mut Vmap,
        offsets: &[u64],
        sizes: &[u64],
        align: u64,
        obs: &mut O,
    ) -> Result<Vec<u64>, VmapError> {
        let last_area = pcpu_check_args(offsets, sizes, align)?;
        v.pcpu_get_vm_areas_v51(offsets, sizes, align, last_area, obs)
    }

    fn relocate_state(s: &mut V51State, f: &impl Fn(u32) -> u32) {
        s.free_vmap_cache = f(s.free_vmap_cache);
        s.llist.relocate(f);
    }

    fn lazy_list(s: &V51State) -> &[u32] {
        &s.llist.lazy_list
    }
}

impl Vmap {
    /// linux-5.1: `vmap_area_pcpu_hole` (`VMALLOC_END` in the other eras).
    pub fn vmap_area_pcpu_hole(&self) -> u64 {
        match self.profile {
            super::Profile::Linux51 => V51::st(&self.era).vmap_area_pcpu_hole,
            _ => VMALLOC_END,
        }
    }

    /// linux-5.1 `alloc_vmap_area`: the busy-list search, then the new area goes into the busy
    /// tree and becomes the cache; on failure purge the lazy areas once and search again.
    pub(super) fn alloc_v51<O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        let search = |v: &mut Vmap, obs: &mut O| -> Result<Option<u64>, VmapError> {
            let Some(addr) = v.search_v51(size, align, vstart, vend, obs) else {
                return Ok(None);
            };
            let va = v.arena.alloc(addr, addr.wrapping_add(size));
            v.busy_insert(va, obs);
            V51::st_mut(&mut v.era).free_vmap_cache = va;
            if O::ON {
                let id = v.arena.get(va).id;
                obs.event(Event::Allocated { id, addr: Addr(addr), size: Addr(size) }, v.tree_view());
            }
            Ok(Some(addr))
        };
        let purge = |v: &mut Vmap, obs: &mut O| -> Result<(), VmapError> {
            v.purge_v51(PurgeCause::AllocRetry, obs);
            Ok(())
        };
        search_purge_retry(self, [size, align, vstart, vend], obs, search, purge, Vmap::tree_view)
    }

    /// linux-5.1 `alloc_vmap_area`'s search: walk the busy areas in address order from a
    /// starting point (the cached area, or the first area ending at or above vstart) until
    /// the gap before the next area is big enough.
    ///
    /// ```text
    ///   busy:   [A)    [B)      [C)          [D)
    ///               ^addr  ^addr    ^addr+size fits before D?  -> found
    /// ```
    fn search_v51<O: Observer>(&mut self, size: u64, align: u64, vstart: u64, vend: u64, obs: &mut O) -> Option<u64> {
        use crate::events::CacheResetWhy as Why;
        // The model's `init` range bounds the window (the kernel had no such setting).
        let vstart = vstart.max(self.space.0);
        let vend = vend.min(self.space.1);
        let why = if V51::st(&self.era).free_vmap_cache == NIL {
            Some(Why::Empty)
        } else if size < V51::st(&self.era).cached_hole_size {
            Some(Why::SmallerThanHole)
        } else if vstart < V51::st(&self.era).cached_vstart {
            Some(Why::LowerVstart)
        } else if align < V51::st(&self.era).cached_align {
            Some(Why::SmallerAlign)
        } else {
            None
        };
        if let Some(why) = why {
            self.reset_cache_v51(why, obs);
        }
        V51::st_mut(&mut self.era).cached_vstart = vstart;
        V51::st_mut(&mut self.era).cached_align = align;
        let busy = self.nodes[0].busy;
        let mut addr;
        let mut first = NIL;
        if V51::st(&self.era).free_vmap_cache != NIL {
            let c = *self.arena.get(V51::st(&self.era).free_vmap_cache);
            addr = align_up(c.va_end, align);
            if addr < vstart {
                // goto nocache
                self.reset_cache_v51(Why::BelowVstart, obs);
                V51::st_mut(&mut self.era).cached_vstart = vstart;
                V51::st_mut(&mut self.era).cached_align = align;
            } else {
                if O::ON {
                    let ev = Event::CacheUse {
                        id: c.id,
                        va_start: Addr(c.va_start),
                        va_end: Addr(c.va_end),
                        addr: Addr(addr),
                    };
                    obs.event(ev, self.tree_view());
                }
                if addr.wrapping_add(size) < addr {
                    return None;
                }
                first = V51::st(&self.era).free_vmap_cache;
            }
        }
        if V51::st(&self.era).free_vmap_cache == NIL {
            addr = align_up(vstart, align);
            if addr.wrapping_add(size) < addr {
                return None;
            }
            let mut n = busy.root;
            while n != NIL {
                let t = *self.arena.get(n);
                if O::ON {
                    let ev = Event::WalkTree {
                        id: t.id,
                        va_start: Addr(t.va_start),
                        va_end: Addr(t.va_end),
                        addr: Addr(addr),
                    };
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
                if addr.wrapping_add(V51::st(&self.era).cached_hole_size) < f.va_start {
                    V51::st_mut(&mut self.era).cached_hole_size = f.va_start - addr;
                }
                addr = align_up(f.va_end, align);
                if O::ON {
                    let ev = Event::WalkArea {
                        id: f.id,
                        va_start: Addr(f.va_start),
                        va_end: Addr(f.va_end),
                        addr: Addr(addr),
                        cached_hole_size: Addr(V51::st(&self.era).cached_hole_size),
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
        V51::st_mut(&mut self.era).cached_hole_size = 0;
        V51::st_mut(&mut self.era).free_vmap_cache = NIL;
        if O::ON {
            obs.event(Event::CacheReset { why }, self.tree_view());
        }
    }

    /// linux-5.1 `__free_vmap_area`: move the cache below a freed area, then unlink it.
    pub(super) fn free_v51<O: Observer>(&mut self, va: u32, obs: &mut O) {
        let v = *self.arena.get(va);
        if V51::st(&self.era).free_vmap_cache != NIL {
            if v.va_end < V51::st(&self.era).cached_vstart {
                self.reset_cache_v51(crate::events::CacheResetWhy::LowerVstart, obs);
            } else if v.va_start <= self.arena.get(V51::st(&self.era).free_vmap_cache).va_start {
                V51::st_mut(&mut self.era).free_vmap_cache = crate::rbtree::rb_prev(&self.arena, va);
            }
        }
        self.busy_remove(0, va, obs);
        self.arena.release(va);
    }

    /// linux-5.1 `__purge_vmap_area_lazy`: unlink the listed areas, newest first.
    pub(super) fn purge_v51<O: Observer>(&mut self, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        self.purge_llist::<V51, O>(cause, obs, |vmap, va, obs| vmap.free_v51(va, obs))
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
    pub(super) fn pcpu_get_vm_areas_v51<O: Observer>(
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
            let Some((mut next, mut prev)) = self.pvm_find_next_prev(V51::st(&self.era).vmap_area_pcpu_hole) else {
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
                        self.purge_v51(PurgeCause::AllocRetry, obs);
                        continue 'retry;
                    }
                    if O::ON {
                        obs.event(Event::AllocFailed { size: Addr(last_end) }, self.tree_view());
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
                obs.event(Event::PcpuArea { index: i as u32, addr: Addr(s), size: Addr(sizes[i]) }, self.tree_view());
            }
            out.push(s);
        }
        V51::st_mut(&mut self.era).vmap_area_pcpu_hole = base + offsets[last_area];
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
}
