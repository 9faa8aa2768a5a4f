//! linux-6.18, the long-term kernel of late 2025: 6.9's vmap nodes, pools and decay
//! ([`super::v69`]) with what changed in `mm/vmalloc.c` since 6.9 that an address, a pool or
//! a purge can show. Read against 6.18's file, function by function (`alloc_vmap_area`,
//! `node_alloc`, `node_pool_del_va`, `free_vmap_area_noflush`, `__purge_vmap_area_lazy`,
//! `purge_vmap_node`, `decay_va_pool_node`, `vmap_init_nodes`, `pcpu_get_vm_areas`,
//! `vmalloc_info_show`); each change by its commit's subject:
//!
//! Shown by a replay (modelled here):
//! * "mm/vmalloc.c: optimize code in decay_va_pool_node() a little bit" (2025, in 6.16): the
//!   non-full decay counts down from `len >> 2` and tests before it takes, so a pool of one to
//!   three entries keeps them all (6.9 tested after the decrement: the counter wrapped and the
//!   whole pool went back). A full decay, and a pool of four or more, are as in 6.9; the kept
//!   entries are put back in their order, and the purge then pushes its new ones in front of
//!   them (`purge_vmap_node` runs after the decay).
//!
//! Not shown (same addresses, pools and purges; listed so that nobody looks again):
//! * "mm/vmalloc.c: find the vmap of vmap_nodes in reverse order" (6.16): `find_vmap_area`
//!   walks the nodes i, i-1, ...; busy areas never overlap, so the area found is the same (the
//!   model walks that way already).
//! * "mm: vmalloc: optimize vmap_lazy_nr arithmetic when purging each vmap_area" (6.11): the
//!   purge subtracts its pages once per node instead of once per area; the same total by the
//!   time anything reads it in a sequential replay.
//! * "mm/vmalloc.c: change purge_ndoes as local static variable", "mm/vmalloc: optimize
//!   function vm_unmap_aliases()", "mm/vmalloc.c: return explicit error value in
//!   alloc_vmap_area()" (6.16), and the `for_each_vmap_node()` helper: no change of order or
//!   result.
//!
//! Unchanged, though easy to suspect: `node_alloc` (the pool of `cpu % nr_vmap_nodes`, head
//! only, a misaligned head moved to the tail), the lazy threshold `fls(num_online_cpus())`
//! × 32 MiB, the deferred drain (`schedule_work(&drain_vmap_work)`, one non-full purge), the
//! node count `clamp(num_possible_cpus(), 1, 128)` with 16-page zones, and the shrinker's full
//! decay.

use crate::events::{Observer, PurgeCause};

use super::{PurgeResult, Vmap};

impl Vmap {
    /// How many of a pool's `len` entries a 6.18 decay gives back: all on a full decay, else
    /// `len >> 2` (nothing from a pool of one to three).
    pub fn n_decay_v618(len: usize, full: bool) -> usize {
        if full {
            len
        } else {
            len >> 2
        }
    }

    /// `decay_va_pool_node` of 6.18.
    pub(super) fn decay_va_pool_node_v618<O: Observer>(&mut self, nid: u32, full: bool, obs: &mut O) {
        self.decay_pools(nid, full, Self::n_decay_v618, obs)
    }

    /// `__purge_vmap_area_lazy` of 6.18: 6.9's, with 6.18's decay.
    /// `stop`: where it stops part-way ([`Vmap::purge_to`]); `None`: the whole purge.
    pub(super) fn purge_v618<O: Observer>(
        &mut self,
        cause: PurgeCause,
        stop: Option<super::PurgeStop>,
        obs: &mut O,
    ) -> PurgeResult {
        let full = matches!(cause, PurgeCause::Reclaim | PurgeCause::AllocRetry);
        self.purge_nodes(full, cause, Self::decay_va_pool_node_v618, stop, obs)
    }
}
