//! linux-6.1 (5.19–6.8): the free tree of 5.2 with the adjusted search size and vstart moved
//! on roll-back ([`super::free_tree`], the profile's search rule), and a new lazy path:
//!
//! ```text
//!   vfree -> out of the busy tree, merged into the purge tree (address order, coalesced)
//!   purge (threshold, forced, or an allocation that failed once) -> ascending, to the free tree
//! ```

use crate::addr::Addr;
use crate::area::NIL;
use crate::error::VmapError;
use crate::events::{Event, Observer, PurgeCause};
use crate::profile::ANY;
use crate::rbtree::Plain;
use crate::vmalloc::*;

use super::{PurgeResult, Vmap};

impl Vmap {
    /// linux-6.1 `vfree` (`remove_vm_area` + `free_vmap_area_noflush`): out of the busy tree and
    /// merged into the purge tree.
    pub(super) fn vfree_v61<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        if addr & (PAGE_SIZE - 1) != 0 {
            // `remove_vm_area` warns on an unaligned address and does nothing.
            return Err(VmapError::UnalignedFree { addr });
        }
        let (nid, va) = self.find_busy(addr)?;
        let nr_lazy = self.vmap_lazy_nr + (self.arena.get(va).size() >> PAGE_SHIFT);
        self.vmap_lazy_nr = nr_lazy;
        self.busy_remove(nid, va, obs);
        merge_or_add_vmap_area::<Plain, O>(&mut self.arena, &mut self.purge_tree, va, MergeStyle::Eb, obs);
        self.lazy_enqueued(va, nr_lazy, obs);
        Ok(())
    }

    /// linux-6.1 `__purge_vmap_area_lazy`: detach the purge tree and merge its areas into the
    /// free tree in address order.
    pub(super) fn purge_v61<O: Observer>(&mut self, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        // Detach the purge list (ascending, already coalesced).
        let list = std::mem::take(&mut self.purge_tree);
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
