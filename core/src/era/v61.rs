//! linux-6.1 (5.19–6.8): the free tree of 5.2 with the adjusted search size and vstart moved
//! on roll-back ([`super::free_tree`], the profile's search rule), and a new lazy path:
//!
//! ```text
//!   vfree -> out of the busy tree, merged into the purge tree (address order, coalesced)
//!   purge (threshold, forced, or an allocation that failed once) -> ascending, to the free tree
//! ```

use crate::addr::Addr;
use crate::area::{VaTree, NIL};
use crate::error::VmapError;
use crate::events::{Event, Observer, PurgeCause};
use super::ANY;
use crate::rbtree::Plain;
use crate::vmalloc::*;

use super::{Drain, AreaInfo, Era, EraSlot, PurgeResult, PurgeStop, Vmap};

/// linux-6.1 (5.19–6.8): the purge tree.
pub struct V61;

impl Era for V61 {
    /// `purge_vmap_area_root` / `purge_vmap_area_list`: the lazily freed areas, out of the busy
    /// tree, merged in address order.
    type State = VaTree;
    const NAME: &'static str = "linux-6.1";
    const FIRST_RELEASE: Option<(u32, u32)> = Some((5, 19));
    const SEARCH_RULE: SearchRule = SearchRule { adjust_search_size: true, move_vstart: true };
    const MERGE_STYLE: MergeStyle = MergeStyle::Eb;
    /// 5.2's 8 and the two kvfree_rcu tests.
    const MODULE_TESTS: usize = 10;

    #[inline(always)]
    fn alloc<const P: u8, O: Observer>(
        v: &mut Vmap,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        v.alloc_from_free_tree::<P, O>(size, align, vstart, vend, 0, obs)
    }

    fn vfree<O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        v.vfree_v61(addr, obs)
    }

    fn purge<O: Observer>(v: &mut Vmap, cause: PurgeCause, _: Option<PurgeStop>, obs: &mut O) -> PurgeResult {
        v.purge_v61(cause, obs)
    }

    fn lazy_areas_by_node(v: &Vmap) -> Vec<(u32, AreaInfo)> {
        let info = |x: &crate::area::VmapArea| AreaInfo { id: x.id, va_start: Addr(x.va_start), va_end: Addr(x.va_end) };
        Self::st(&v.era).iter(&v.arena).map(|(_, x)| (0, info(x))).collect()
    }

    fn relocate_state(s: &mut VaTree, f: &impl Fn(u32) -> u32) {
        s.relocate(f);
    }

    fn purge_tree(s: &VaTree) -> Option<&VaTree> {
        Some(s)
    }
}

impl Vmap {
    /// linux-6.1 `vfree` (`remove_vm_area` + `free_vmap_area_noflush`): out of the busy tree and
    /// merged into the purge tree.
    pub(super) fn vfree_v61<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        if addr & (PAGE_SIZE - 1) != 0 {
            // `remove_vm_area` warns on an unaligned address and does nothing.
            return Err(VmapError::UnalignedFree { addr });
        }
        let (nid, va) = self.find_busy(addr)?;
        let nr_lazy = self.vmap_lazy_nr + (self.arena.get(va).size() >> PAGE_SHIFT);
        self.vmap_lazy_nr = nr_lazy;
        self.busy_remove(nid, va, obs);
        merge_or_add_vmap_area::<Plain, O>(&mut self.arena, V61::st_mut(&mut self.era), va, MergeStyle::Eb, obs);
        Ok(self.lazy_enqueued(va, nr_lazy, obs))
    }

    /// linux-6.1 `__purge_vmap_area_lazy`: detach the purge tree and merge its areas into the
    /// free tree in address order.
    pub(super) fn purge_v61<O: Observer>(&mut self, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        // Detach the purge list (ascending, already coalesced).
        let list = std::mem::take(V61::st_mut(&mut self.era));
        if O::ON {
            obs.areas_event(Event::PurgeStart { cause, count: list.len as u32 }, self);
        }
        let mut count = 0u32;
        let mut va = list.first;
        while va != NIL {
            let v = *self.arena.get(va);
            let next = v.next;
            if O::ON {
                obs.event(Event::PurgeArea { va_start: Addr(v.va_start), va_end: Addr(v.va_end) }, self.tree_view());
            }
            self.arena.detach(va);
            self.arena.at(va).set_flags(0);
            crate::events::touch(obs, va);
            self.free_tree_add::<ANY, O>(va, obs);
            self.vmap_lazy_nr -= v.size() >> PAGE_SHIFT;
            count += 1;
            va = next;
        }
        if O::ON {
            obs.areas_event(Event::PurgeEnd { purged: count }, self);
        }
        PurgeResult { entries: count }
    }
}
