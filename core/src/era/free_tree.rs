//! The augmented free tree, linux-5.2 onwards (shared by the 5.2, 6.1 and 6.9 eras):
//! `__alloc_vmap_area` (lowest-match search, `vend` check, clip), the return of a range to
//! free space (`merge_or_add_vmap_area`), and `pcpu_get_vm_areas`' downward walk over the
//! free blocks.
//!
//! ```text
//!   free tree:   [ free A )      [   free B   )        [ free C )
//!   alloc:                       [nva, nva+size)  <- clipped out of the lowest block that fits
//!   free:                         merged back with the neighbours it touches
//! ```

use super::{Profile, ANY};
use crate::addr::Addr;
use crate::area::NIL;
use crate::error::VmapError;
use crate::events::{Event, FitType, NoObserver, Observer, PurgeCause};
use crate::rbtree::SubtreeMax;
use crate::vmalloc::*;

use super::{purge_retry, with_era, Era, Vmap};

impl Vmap {
    /// `alloc_vmap_area` from the free tree (5.2, 6.1, and 6.9 after its pools): clip the
    /// lowest fitting free block and insert the new area, with `flags`, into the busy tree of
    /// its node; on failure purge the lazy areas once (6.9: with a full decay) and search again.
    #[inline(always)]
    pub(super) fn alloc_from_free_tree<const P: u8, O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        flags: u32,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        // The retry is out of line: the first search is the only one the hot path holds, and
        // it holds no closure (whose captures were kept on the stack across the search).
        if let Some(addr) = self.alloc_from_free_tree_once::<P, O>(size, align, vstart, vend, flags, obs)? {
            return Ok(addr);
        }
        self.alloc_from_free_tree_retry::<P, O>(size, align, vstart, vend, flags, obs)
    }

    /// One search of [`Vmap::alloc_from_free_tree`]: the new area's start, `Ok(None)` where no
    /// free block fits (nothing changed).
    #[inline(always)]
    fn alloc_from_free_tree_once<const P: u8, O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        flags: u32,
        obs: &mut O,
    ) -> Result<Option<u64>, VmapError> {
        let Some((addr, hole_end)) = self.__alloc_vmap_area::<P, O>(size, align, vstart, vend, obs)? else {
            return Ok(None);
        };
        let va = self.arena.alloc(addr, addr.wrapping_add(size));
        // (A new object's flags are 0 already: 5.2 and 6.1 pass 0, and write nothing.)
        if flags != 0 {
            self.arena.at(va).set_flags(flags);
        }
        self.busy_insert_after_clip(va, addr, addr.wrapping_add(size), hole_end, obs);
        if O::ON {
            let id = self.arena.get(va).id;
            obs.event(Event::Allocated { id, addr: Addr(addr), size: Addr(size) }, self.tree_view());
        }
        Ok(Some(addr))
    }

    /// [`Vmap::alloc_from_free_tree`] once its first search found no room: purge, search again.
    #[cold]
    #[inline(never)]
    fn alloc_from_free_tree_retry<const P: u8, O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        flags: u32,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        let search =
            |v: &mut Vmap, obs: &mut O| v.alloc_from_free_tree_once::<P, O>(size, align, vstart, vend, flags, obs);
        let purge = |v: &mut Vmap, obs: &mut O| -> Result<(), VmapError> {
            v.refuse_endless_retry(size, align, vstart, vend)?;
            v.purge_era(PurgeCause::AllocRetry, obs);
            Ok(())
        };
        purge_retry(self, [size, align, vstart, vend], obs, search, purge, Vmap::tree_view)
    }

    /// Before the purge-and-retry of a request whose padded length wraps (the one case where
    /// linux-5.2's search can loop forever): try the retry on a copy, so that a retry that would
    /// never return is refused before the purge changes anything. Other requests cost one test.
    fn refuse_endless_retry(&self, size: u64, align: u64, vstart: u64, vend: u64) -> Result<(), VmapError> {
        let rule = self.profile.search_rule();
        if rule.move_vstart || size.checked_add(align - 1).is_some() {
            return Ok(());
        }
        let mut trial = self.clone();
        trial.purge_era(PurgeCause::AllocRetry, &mut NoObserver);
        trial.__alloc_vmap_area::<ANY, _>(size, align, vstart, vend, &mut NoObserver).map(|_| ())
    }

    /// `__alloc_vmap_area`: search, check `vend`, clip. The new area's start and the end of
    /// the free block it was clipped from; `Ok(None)` on failure (the tree is unchanged); `Err`
    /// when the kernel's search would never return.
    #[inline(always)]
    pub(crate) fn __alloc_vmap_area<const P: u8, O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<Option<(u64, u64)>, VmapError> {
        let rule = Profile::fixed::<P>(self.profile).search_rule();
        let length = rule.length(size, align, vstart, vend);
        if O::ON {
            obs.event(
                Event::SearchStart {
                    size: Addr(size),
                    align: Addr(align),
                    vstart: Addr(vstart),
                    vend: Addr(vend),
                    length: Addr(length),
                },
                self.tree_view(),
            );
        }
        // An unaligned request remembered with its lowest fit needs no descent (see
        // `LowestFit`), unless an observer follows the descent step by step.
        // A small tree is searched (see `MEMO_MIN_BLOCKS`), and an unaligned request's search
        // there drops what the memos remembered (an aligned one, which uses no memo, does not
        // look: in wasm the test cost fixed_s44 20 Ir/op).
        let mut memo = cfg!(feature = "lowest-fit") && align == 1 && !O::ON;
        #[allow(clippy::absurd_extreme_comparisons)] // 0 natively: no test at all
        if memo && self.free.len() < MEMO_MIN_BLOCKS {
            memo = false;
            if self.free.low.active() {
                self.free.low.forget();
            }
        }
        let known = if memo { self.free.low.lookup(&self.arena, size, vstart) } else { None };
        let va = match known {
            Some(va) => va,
            None => {
                let va = find_vmap_lowest_match(&self.arena, &self.free, size, align, vstart, length, rule, obs)
                    .map_err(|_| VmapError::EndlessSearch { size, align, vstart, profile: self.profile.name() })?;
                // (With an observer the memos are still kept up to date, but not filled.)
                if memo {
                    self.free.low.record(&self.arena, size, vstart, va);
                }
                va
            }
        };
        if va == NIL {
            return Ok(None);
        }
        let vs = self.arena.get(va).va_start;
        let nva = if vs > vstart { align_up(vs, align) } else { align_up(vstart, align) };
        if nva.wrapping_add(size) > vend {
            if O::ON {
                obs.event(Event::OutOfRange { nva: Addr(nva), size: Addr(size), vend: Addr(vend) }, self.tree_view());
            }
            return Ok(None);
        }
        let ty = classify_va_fit_type(&self.arena, va, nva, size);
        if O::ON {
            let v = self.arena.get(va);
            let ev = Event::Fit {
                id: v.id,
                va_start: Addr(v.va_start),
                va_end: Addr(v.va_end),
                nva: Addr(nva),
                size: Addr(size),
                fit: ty,
            };
            obs.event(ev, self.tree_view());
        }
        if ty == FitType::NothingFit {
            return Ok(None);
        }
        let hole_end = self.arena.get(va).va_end;
        adjust_va_to_fit_type(&mut self.arena, &mut self.free, va, nva, size, ty, obs);
        Ok(Some((nva, hole_end)))
    }

    /// `merge_or_add_vmap_area` into the free tree in the profile's style.
    pub(crate) fn free_tree_add<const P: u8, O: Observer>(&mut self, va: u32, obs: &mut O) {
        let style = Profile::fixed::<P>(self.profile).merge_style();
        // Busy and lazy areas never overlap the free tree, so this cannot fail.
        merge_or_add_vmap_area::<SubtreeMax, O>(&mut self.arena, &mut self.free, va, style, obs);
    }

    /// `__free_vmap_area`: unlink from busy and return the range to free space.
    #[inline(always)]
    pub(super) fn __free_vmap_area<const P: u8, O: Observer>(&mut self, nid: usize, va: u32, obs: &mut O) {
        self.busy_remove(nid, va, obs);
        self.arena.at(va).set_flags(0);
        self.free_tree_add::<P, O>(va, obs);
    }

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

    /// The free-tree walk of `pcpu_get_vm_areas` (parameters already checked): one base for
    /// every area, found from the top of the space downwards; purge once and retry on failure.
    /// linux-5.2 tests both ends of an area in one condition, later kernels one at a time.
    pub(super) fn pcpu_get_vm_areas_free_tree<O: Observer>(
        &mut self,
        offsets: &[u64],
        sizes: &[u64],
        align: u64,
        last_area: usize,
        obs: &mut O,
    ) -> Result<Vec<u64>, VmapError> {
        let nr = offsets.len();
        let vs = align_up(VMALLOC_START, align);
        let ve = VMALLOC_END & !(align - 1);
        let last_end = offsets[last_area] + sizes[last_area];
        let combined_test = with_era!(self.profile, E => E::PCPU_COMBINED_TEST);
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
                    self.purge_era(PurgeCause::AllocRetry, obs);
                    continue 'retry;
                }
                if O::ON {
                    obs.event(Event::AllocFailed { size: Addr(last_end) }, self.tree_view());
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
                    let ev = Event::Fit {
                        id: v.id,
                        va_start: Addr(v.va_start),
                        va_end: Addr(v.va_end),
                        nva: Addr(s),
                        size: Addr(size),
                        fit: ty,
                    };
                    obs.event(ev, self.tree_view());
                }
                if ty == FitType::NothingFit {
                    // Recovery: give back what was carved, then fail.
                    for (j, &c) in carved.iter().enumerate() {
                        let back = self.arena.alloc(c, c.wrapping_add(sizes[j]));
                        self.free_tree_add::<ANY, O>(back, obs);
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
                    obs.event(
                        Event::PcpuArea { index: i as u32, addr: Addr(s), size: Addr(sizes[i]) },
                        self.tree_view(),
                    );
                }
            }
            return Ok(carved);
        }
    }
}
