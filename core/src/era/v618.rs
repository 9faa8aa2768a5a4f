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

use crate::error::VmapError;
use crate::events::{Observer, PurgeCause};
use crate::vmalloc::{MergeStyle, SearchRule};

use super::v69::{NodesState, V69};
use super::{Drain, AreaInfo, Era, PartPurge, PurgeResult, PurgeStop, Vmap};

/// linux-6.18: [`V69`] with 6.18's decay.
pub struct V618;

impl Era for V618 {
    type State = NodesState;
    const NAME: &'static str = "linux-6.18";
    const FIRST_RELEASE: Option<(u32, u32)> = Some((6, 18));
    const SEARCH_RULE: SearchRule = V69::SEARCH_RULE;
    const MERGE_STYLE: MergeStyle = V69::MERGE_STYLE;
    const VMAP_NODES: bool = true;
    const MODULE_TESTS: usize = V69::MODULE_TESTS;

    #[inline(always)]
    fn alloc<const P: u8, O: Observer>(
        v: &mut Vmap,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        V69::alloc::<P, O>(v, size, align, vstart, vend, obs)
    }

    fn vfree<O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        V69::vfree(v, addr, obs)
    }

    fn purge<O: Observer>(v: &mut Vmap, cause: PurgeCause, stop: Option<PurgeStop>, obs: &mut O) -> PurgeResult {
        v.purge_nodes_of::<Self, O>(cause, stop, obs)
    }

    /// All on a full decay, else `len >> 2` (nothing from a pool of one to three).
    fn n_decay(len: usize, full: bool) -> usize {
        Vmap::n_decay_v618(len, full)
    }

    fn lazy_areas_by_node(v: &Vmap) -> Vec<(u32, AreaInfo)> {
        V69::lazy_areas_by_node(v)
    }

    fn relocate_state(s: &mut NodesState, f: &impl Fn(u32) -> u32) {
        V69::relocate_state(s, f)
    }

    fn part_purge(s: &NodesState) -> Option<&PartPurge> {
        V69::part_purge(s)
    }

    fn part_purge_slot(s: &mut NodesState) -> Option<&mut Option<Box<PartPurge>>> {
        V69::part_purge_slot(s)
    }
}

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
}
