//! linux-5.2, the 2019 augmented free tree as merged (kept until 5.15). Allocation searches the
//! free tree and a freed area merges back into it ([`super::free_tree`], with 5.2's search rule:
//! the padded length, vstart kept on roll-back). The lazy path is 5.1's, unchanged
//! ([`Vmap::vfree`] pushes on the lock-free list); what changed is where a purge sends an area:
//!
//! ```text
//!   vfree -> marked lazy, stays in the busy tree, pushed on vmap_purge_list (LIFO)
//!   purge (threshold, forced, or an allocation that failed once) -> newest first, merged
//!                                                                   into the free tree
//! ```

use crate::error::VmapError;
use crate::events::{Observer, PurgeCause};
use crate::vmalloc::{MergeStyle, SearchRule};
use super::ANY;

use super::{Drain, Era, Llist, PurgeResult, PurgeStop, Vmap};

/// linux-5.2: the augmented free tree, 5.1's lazy list.
pub struct V52;

impl Era for V52 {
    /// The lock-free lazy list.
    type State = Llist;
    const NAME: &'static str = "linux-5.2";
    const FIRST_RELEASE: Option<(u32, u32)> = Some((5, 2));
    const SEARCH_RULE: SearchRule = SearchRule { adjust_search_size: false, move_vstart: false };
    const MERGE_STYLE: MergeStyle = MergeStyle::E52;
    const LAZY_IN_BUSY: bool = true;
    const BUG_ON_BAD_REQUEST: bool = true;
    const PCPU_COMBINED_TEST: bool = true;
    /// `single_cpu_test`'s 8.
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
        v.alloc_from_free_tree::<P, O>(size, align, vstart, vend, 0, obs)
    }

    fn vfree<O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        v.vfree_llist::<Self, O>(addr, obs)
    }

    fn purge<O: Observer>(v: &mut Vmap, cause: PurgeCause, _: Option<PurgeStop>, obs: &mut O) -> PurgeResult {
        v.purge_v52(cause, obs)
    }

    fn relocate_state(s: &mut Llist, f: &impl Fn(u32) -> u32) {
        s.relocate(f);
    }

    fn lazy_list(s: &Llist) -> &[u32] {
        &s.lazy_list
    }
}

impl Vmap {
    /// linux-5.2 `__purge_vmap_area_lazy`: the lock-free list, newest first, each area merged
    /// back into the free tree.
    pub(super) fn purge_v52<O: Observer>(&mut self, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        self.purge_llist::<V52, O>(cause, obs, |vmap, va, obs| vmap.__free_vmap_area::<ANY, _>(0, va, obs))
    }
}
