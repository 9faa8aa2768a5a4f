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

use crate::events::{Observer, PurgeCause};
use crate::profile::ANY;

use super::{PurgeResult, Vmap};

impl Vmap {
    /// linux-5.2 `__purge_vmap_area_lazy`: the lock-free list, newest first, each area merged
    /// back into the free tree.
    pub(super) fn purge_v52<O: Observer>(&mut self, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        self.purge_llist(cause, obs, |vmap, va, obs| vmap.__free_vmap_area::<ANY, _>(0, va, obs))
    }
}
