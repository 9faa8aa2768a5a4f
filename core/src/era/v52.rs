//! linux-5.2, the 2019 augmented free tree as merged (kept until 5.15). Allocation searches the
//! free tree and a freed area merges back into it ([`super::free_tree`], with 5.2's search rule:
//! the padded length, vstart kept on roll-back). What is 5.2's own is the lazy path, kept from
//! 5.1:
//!
//! ```text
//!   vfree -> marked lazy, stays in the busy tree, pushed on vmap_purge_list (LIFO)
//!   purge (threshold, forced, or an allocation that failed once) -> newest first, to the free tree
//! ```

use crate::area::F_LAZY;
use crate::error::VmapError;
use crate::events::{Observer, PurgeCause};
use crate::vmalloc::*;

use super::{PurgeResult, Vmap};

impl Vmap {
    /// linux-5.2 `vfree`: the area stays in the busy tree, marked lazy, and is pushed on the
    /// lock-free purge list (as in 5.1).
    pub(super) fn vfree_v52<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        let (_, va) = self.find_busy(addr)?;
        let nr_lazy = self.vmap_lazy_nr + (self.arena.get(va).size() >> PAGE_SHIFT);
        self.vmap_lazy_nr = nr_lazy;
        self.arena.at(va).flags |= F_LAZY;
        self.lazy_list.push(va);
        self.lazy_enqueued(va, nr_lazy, obs);
        Ok(())
    }

    /// linux-5.2 `__purge_vmap_area_lazy`: the lock-free list, newest first, each area merged
    /// back into the free tree.
    pub(super) fn purge_v52<O: Observer>(&mut self, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        self.purge_llist(cause, obs, |vmap, va, obs| vmap.__free_vmap_area(0, va, obs))
    }
}
