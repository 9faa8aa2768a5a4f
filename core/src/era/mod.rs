//! The allocator as a whole, one file per kernel era behind one interface ([`Era`]).
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
//!
//! [`Vmap`] holds the state the eras share (the arena of `vmap_area`s, the busy trees of the
//! vmap nodes, the lazy page count, the CPUs) and the public operations. Each operation checks
//! what all eras check, then dispatches once, by profile, to its era's [`Era`] implementation,
//! where the kernel's path of that era reads top to bottom. The eras are listed once, in the
//! registry below ([`eras!`]): it declares each era's module and gives [`Profile`] its variants,
//! names and dispatch (`with_era!`). Each era's file says what it adds; [`free_tree`] holds the
//! augmented free tree of 5.2 onwards, which several eras share.
//!
//! Shared here, named as in `mm/vmalloc.c`: the busy-area bookkeeping (`insert_vmap_area` into
//! the node of the address, the lookup on free), the pcpu argument checks, and inspection.

pub mod free_tree;
pub mod steer;

/// What makes one kernel era: its constants (read by the rest of the crate through
/// [`Profile`]'s predicates) and its paths through the shared state. Every method is
/// monomorphic: a replay's loop is compiled for one era (`Replayer::run`), and a caller that
/// holds only a [`Profile`] reaches the era by one `match` (`with_era!`).
pub trait Era {
    /// The kernel state only this era has (5.1's search cache, 5.2's lock-free lazy list,
    /// 6.1's purge tree, 6.9's purge under way, maple-rfc's whole allocator). [`Vmap`] holds it
    /// in [`EraState`], the registry's enum, and the era reaches its own through [`EraSlot`].
    type State: Clone + std::fmt::Debug + Default;

    /// The profile's name in traces, the CLI and the page.
    const NAME: &'static str;
    /// The first kernel release `(major, minor)` this era stands for; `None`: not a release.
    const FIRST_RELEASE: Option<(u32, u32)>;
    /// The search rule of `__alloc_vmap_area`.
    const SEARCH_RULE: SearchRule;
    /// How a range merges back into the free tree.
    const MERGE_STYLE: MergeStyle;
    /// An augmented free tree holds the free space (5.1: whatever no busy area covers).
    const FREE_TREE: bool = true;
    /// Lazily freed areas stay in the busy tree on a LIFO list until the purge (5.1, 5.2).
    const LAZY_IN_BUSY: bool = false;
    /// Vmap nodes (one per possible CPU, up to 128), each with its busy and lazy trees and
    /// size pools; an allocation in the default window goes through the current CPU's pool.
    const VMAP_NODES: bool = false;
    /// An allocation depends on the CPU it runs on (`cpu N` matters).
    const PER_CPU: bool = Self::VMAP_NODES;
    /// A per-CPU bump overlay in front of the search, switched by `bump on|off` (maple-rfc).
    const BUMP_OVERLAY: bool = false;
    /// A request of size 0, a size not a multiple of PAGE_SIZE or an align not a power of two
    /// hits `BUG_ON` (a crash) instead of `-EINVAL`.
    const BUG_ON_BAD_REQUEST: bool = false;
    /// `pcpu_get_vm_areas` tests the next area and the base in one condition (5.2).
    const PCPU_COMBINED_TEST: bool = false;
    /// Tests in the era's `test_vmalloc` module (the run order shuffles this many).
    const MODULE_TESTS: usize;

    /// `alloc_vmap_area` once the request is valid, compiled for `P` (see [`ANY`]).
    fn alloc<const P: u8, O: Observer>(
        v: &mut Vmap,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError>;

    /// `free_vmap_area` of the busy area at `addr`, compiled for `P`.
    #[inline(always)]
    fn free<const P: u8, O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        let (nid, va) = v.find_busy(addr)?;
        v.__free_vmap_area::<P, O>(nid, va, obs);
        Ok(())
    }

    /// `vfree`: the lazy path (`remove_vm_area` + `free_vmap_area_noflush`), up to the drain
    /// it schedules past the lazy threshold, which it reports and does not run.
    fn vfree<O: Observer>(v: &mut Vmap, addr: u64, obs: &mut O) -> Result<Drain, VmapError>;

    /// `__purge_vmap_area_lazy` (with `reclaim_and_purge_vmap_areas` for
    /// [`PurgeCause::Reclaim`]), stopped at `stop` where the era purges in stages (vmap nodes;
    /// elsewhere the whole purge).
    fn purge<O: Observer>(v: &mut Vmap, cause: PurgeCause, stop: Option<PurgeStop>, obs: &mut O) -> PurgeResult;

    /// How many of a pool's `len` entries `decay_va_pool_node` gives back (eras with vmap
    /// nodes).
    fn n_decay(len: usize, full: bool) -> usize {
        Vmap::n_decay_v69(len, full)
    }

    /// `pcpu_get_vm_areas`: `offsets.len()` congruent areas placed as high as possible below
    /// VMALLOC_END, all at the same base; the free tree's walk unless the era has its own.
    fn pcpu_get_vm_areas<O: Observer>(
        v: &mut Vmap,
        offsets: &[u64],
        sizes: &[u64],
        align: u64,
        obs: &mut O,
    ) -> Result<Vec<u64>, VmapError> {
        let last_area = pcpu_check_args(offsets, sizes, align)?;
        v.pcpu_get_vm_areas_free_tree(offsets, sizes, align, last_area, obs)
    }

    /// Lazy areas that left the busy tree, with the vmap node whose lazy list holds each.
    fn lazy_areas_by_node(_v: &Vmap) -> Vec<(u32, AreaInfo)> {
        Vec::new()
    }

    /// Map every arena handle the era's state holds through `f` (see [`Vmap::relocate`]).
    fn relocate_state(_s: &mut Self::State, _f: &impl Fn(u32) -> u32) {}

    /// The lock-free lazy list (`vmap_purge_list`, oldest first) where the era has one.
    fn lazy_list(_s: &Self::State) -> &[u32] {
        &[]
    }

    /// The purge tree (`purge_vmap_area_root`) where the era has one.
    fn purge_tree(_s: &Self::State) -> Option<&VaTree> {
        None
    }

    /// The purge under way of the vmap-node eras, stopped part-way (`None` between purges and
    /// in the other eras).
    fn part_purge(_s: &Self::State) -> Option<&PartPurge> {
        None
    }

    /// The slot of that purge (`None`: the era purges in one go), so that a purge can begin
    /// and end.
    fn part_purge_slot(_s: &mut Self::State) -> Option<&mut Option<Box<PartPurge>>> {
        None
    }

    /// The whole allocator where the era keeps its own (maple-rfc).
    fn maple(_s: &Self::State) -> Option<&maple_rfc::MapleRfc> {
        None
    }

    /// The same, writable.
    fn maple_mut(_s: &mut Self::State) -> Option<&mut maple_rfc::MapleRfc> {
        None
    }
}

/// An era's own state in [`EraState`], by its type: implemented by the registry for every era
/// (the variant the registry gave it). A [`Vmap`] holds the variant of its profile from
/// [`Vmap::new`] on, so any other variant is a broken invariant.
pub trait EraSlot: Era {
    fn st(s: &EraState) -> &Self::State;
    fn st_mut(s: &mut EraState) -> &mut Self::State;
}

#[cold]
#[inline(never)]
fn wrong_era(want: &str) -> ! {
    unreachable!("the era state of a Vmap is its profile's, not {want}'s")
}

/// The registry: one line per era, `module::Type => ProfileVariant`, in the order the eras
/// came. It declares the modules, the [`Profile`] enum (names from [`Era::NAME`]) and
/// `with_era!(profile, E => expr)` (with `E` the era's type; `with_era!(profile, E, ID =>
/// expr)` also binds `ID`, the era as a const generic `u8`).
macro_rules! eras {
    ($d:tt $($module:ident :: $ty:ident => $variant:ident,)*) => {
        $(pub mod $module;)*

        /// A kernel era vmapviz models (see the registry in `core/src/era/mod.rs`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Profile {
            $($variant,)*
        }

        impl Profile {
            /// Every era, in the registry's order.
            pub const ALL: [Profile; [$(Profile::$variant),*].len()] = [$(Profile::$variant),*];
            /// Every era's name, in the same order.
            pub const NAMES: [&'static str; [$(Profile::$variant),*].len()] = [$(<$module::$ty as Era>::NAME),*];
        }

        /// The state of the era a [`Vmap`] runs ([`Era::State`]), one variant per era.
        #[derive(Clone, Debug)]
        pub enum EraState {
            $($variant(<$module::$ty as Era>::State),)*
        }

        $(impl EraSlot for $module::$ty {
            #[inline(always)]
            fn st(s: &EraState) -> &Self::State {
                match s {
                    EraState::$variant(x) => x,
                    #[allow(unreachable_patterns)]
                    _ => wrong_era(Self::NAME),
                }
            }
            #[inline(always)]
            fn st_mut(s: &mut EraState) -> &mut Self::State {
                match s {
                    EraState::$variant(x) => x,
                    #[allow(unreachable_patterns)]
                    _ => wrong_era(Self::NAME),
                }
            }
        })*

        impl EraState {
            /// The fresh state of `p`'s era.
            pub fn new(p: Profile) -> Self {
                match p {
                    $(Profile::$variant => EraState::$variant(Default::default()),)*
                }
            }
            pub(crate) fn relocate(&mut self, f: &impl Fn(u32) -> u32) {
                match self {
                    $(EraState::$variant(x) => <$module::$ty as Era>::relocate_state(x, f),)*
                }
            }
            /// [`Era::lazy_list`] of the era.
            pub fn lazy_list(&self) -> &[u32] {
                match self {
                    $(EraState::$variant(x) => <$module::$ty as Era>::lazy_list(x),)*
                }
            }
            /// [`Era::purge_tree`] of the era.
            pub fn purge_tree(&self) -> Option<&VaTree> {
                match self {
                    $(EraState::$variant(x) => <$module::$ty as Era>::purge_tree(x),)*
                }
            }
            /// [`Era::part_purge`] of the era.
            pub(crate) fn part_purge(&self) -> Option<&PartPurge> {
                match self {
                    $(EraState::$variant(x) => <$module::$ty as Era>::part_purge(x),)*
                }
            }
            /// [`Era::part_purge_slot`] of the era.
            pub(crate) fn part_purge_slot(&mut self) -> Option<&mut Option<Box<PartPurge>>> {
                match self {
                    $(EraState::$variant(x) => <$module::$ty as Era>::part_purge_slot(x),)*
                }
            }
            /// [`Era::maple`] of the era.
            pub fn maple(&self) -> Option<&maple_rfc::MapleRfc> {
                match self {
                    $(EraState::$variant(x) => <$module::$ty as Era>::maple(x),)*
                }
            }
            /// [`Era::maple_mut`] of the era.
            pub fn maple_mut(&mut self) -> Option<&mut maple_rfc::MapleRfc> {
                match self {
                    $(EraState::$variant(x) => <$module::$ty as Era>::maple_mut(x),)*
                }
            }
        }

        macro_rules! with_era {
            ($d p:expr, $d e:ident => $d body:expr) => {
                match $d p {
                    $(crate::era::Profile::$variant => {
                        type $d e = crate::era::$module::$ty;
                        $d body
                    })*
                }
            };
            ($d p:expr, $d e:ident, $d id:ident => $d body:expr) => {
                match $d p {
                    $(crate::era::Profile::$variant => {
                        type $d e = crate::era::$module::$ty;
                        const $d id: u8 = crate::era::Profile::$variant as u8;
                        $d body
                    })*
                }
            };
        }
        pub(crate) use with_era;
    };
}

eras! { $
    v51::V51 => Linux51,
    v52::V52 => Linux52,
    v61::V61 => Linux61,
    v69::V69 => Linux69,
    v618::V618 => Linux618,
    maple_rfc::MapleRfcEra => MapleRfc,
}

use std::collections::VecDeque;

use crate::addr::{Addr, Hex};
use crate::area::{AreaInfo, Arena, VaTree, F_LAZY, NIL};
use crate::busy_index::BusyIndex;
use crate::error::VmapError;
use crate::events::{Event, IndexView, NoObserver, Observer, PurgeCause};
use crate::rbtree::Plain;
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
#[derive(Debug)]
pub struct Vmap {
    pub(crate) profile: Profile,
    pub(crate) arena: Arena,
    pub(crate) free: VaTree,
    pub(crate) nodes: Vec<VmapNode>,
    /// `vmap_lazy_nr`, in pages.
    pub(crate) vmap_lazy_nr: u64,
    pub(crate) cpus: u32,
    /// Online CPUs when fewer than `cpus` (the possible ones): `lazy_max_pages()` counts online
    /// CPUs, `vmap_init_nodes` possible ones. 0: all possible CPUs are online.
    pub(crate) online: u32,
    pub(crate) cpu: u32,
    /// `vmap_zone_size` (6.9).
    pub(crate) zone_size: u64,
    /// The range the free space was initialised with.
    pub(crate) space: (u64, u64),
    initialized: bool,
    /// What only this era has ([`Era::State`]).
    pub(crate) era: EraState,
    /// Every busy tree's areas by `va_start` (ours: the kernel descends the tree), see
    /// [`crate::busy_index`].
    pub(crate) busy_index: BusyIndex,
    /// Link a clipped-out busy area next to its neighbour instead of descending the busy tree
    /// (see `busy_insert_after_clip`). Always on; the tests turn it off
    /// ([`Vmap::set_busy_link_hints`]) to check that both ways build the same tree.
    pub(crate) busy_link_hints: bool,
}

/// A purge of the vmap-node eras under way, stopped part-way ([`Vmap::purge_to`]): what a
/// capture's replay shows when an allocation traced before the purge's event saw it half done.
///
/// ```text
///   node:        0          1          2
///   lists:    [taken]    [taken]     (lazy)      nodes 0..taken: decayed, lazy list taken
///             processed  walking                 nodes 0..processed: walked to the end
///                        ^ through: local holds the areas walked and not pooled
/// ```
#[derive(Clone, Debug, Default)]
pub struct PartPurge {
    /// `lists[n]`: node n's lazy list once taken and until walked (the kernel's
    /// `vn->purge_list`; its pages still count in `vmap_lazy_nr`).
    pub(crate) lists: Vec<Vec<u32>>,
    pub(crate) taken: u32,
    pub(crate) processed: u32,
    /// The node being walked ([`PurgeStop::Through`]): its areas walked and not pooled (in no
    /// tree until the walk ends), the pages walked (still in `vmap_lazy_nr` till then), and
    /// the last area walked.
    pub(crate) local: Vec<u32>,
    pub(crate) walked_pages: u64,
    pub(crate) through: Option<u64>,
    /// The purge's `skip_populate` (a full decay pools nothing).
    pub(crate) full: bool,
}

impl EraState {
    /// The purge under way, writable.
    pub(crate) fn part_purge_mut(&mut self) -> Option<&mut PartPurge> {
        self.part_purge_slot()?.as_deref_mut()
    }
    /// Begin (`Some`) or end (`None`) a purge in stages, where the era purges so.
    pub(crate) fn set_part_purge(&mut self, p: Option<Box<PartPurge>>) {
        if let Some(slot) = self.part_purge_slot() {
            *slot = p;
        }
    }
}

/// The lock-free lazy list of 5.1 and 5.2 (`vmap_purge_list`): lazily freed areas stay in
/// the busy tree, marked lazy, until the purge takes the list whole.
#[derive(Clone, Debug, Default)]
pub struct Llist {
    /// Oldest first (iterate backwards for newest first).
    pub(crate) lazy_list: Vec<u32>,
}

impl AsMut<Llist> for Llist {
    fn as_mut(&mut self) -> &mut Llist {
        self
    }
}

impl Llist {
    pub(crate) fn relocate(&mut self, f: &impl Fn(u32) -> u32) {
        self.lazy_list.iter_mut().for_each(|h| *h = f(*h));
    }
}

/// Where a purge of the vmap-node eras stops part-way ([`Vmap::purge_to`]):
/// `__purge_vmap_area_lazy` first decays each node's pools and takes its lazy list, node by
/// node, then processes the taken lists, node by node; an allocation on another CPU can come
/// between any two of those steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PurgeStop {
    /// Nodes `0..=k` decayed and their lists taken; none processed.
    Decayed(u32),
    /// Every node decayed and taken; nodes `0..=k` processed.
    Processed(u32),
    /// Every node decayed and taken; the nodes before the one whose list holds the area at
    /// this address processed, that one walked to it: its pooled areas are in its pools (the
    /// area at the head of its own), the others wait in no tree until the walk ends.
    Through(u64),
}

/// Whether a `vfree` scheduled the drain work (`schedule_work(&drain_vmap_work)`, past the
/// lazy threshold): the caller runs it ([`Vmap::drain`]) when the kernel would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub enum Drain {
    None,
    Scheduled,
}

/// What a purge returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PurgeResult {
    pub entries: u32,
}

/// Read access to the state, for views and tests. The fields are the crate's to write: most
/// carry handles into the arena, which the allocator follows without a bounds test in an
/// optimised build (see [`crate::area::UNCHECKED`]), and the others (the profile, the node
/// layout) decide which structure holds which area.
impl Vmap {
    pub fn profile(&self) -> Profile {
        self.profile
    }
    pub fn arena(&self) -> &Arena {
        &self.arena
    }
    /// The free tree (`free_vmap_area_root` / `free_vmap_area_list`).
    pub fn free_tree(&self) -> &VaTree {
        &self.free
    }
    /// The vmap nodes (one before linux-6.9).
    pub fn nodes(&self) -> &[VmapNode] {
        &self.nodes
    }
    /// linux-5.1 and 5.2: `vmap_purge_list`, oldest first (empty in the other eras).
    pub fn lazy_list(&self) -> &[u32] {
        self.era.lazy_list()
    }
    /// linux-6.1: the purge tree (empty in the other eras).
    pub fn purge_tree(&self) -> &VaTree {
        static EMPTY: VaTree = VaTree::EMPTY;
        self.era.purge_tree().unwrap_or(&EMPTY)
    }
    /// What only this era has ([`Era::State`]).
    pub fn era_state(&self) -> &EraState {
        &self.era
    }
    /// `vmap_lazy_nr`, in pages.
    pub fn vmap_lazy_nr(&self) -> u64 {
        self.vmap_lazy_nr
    }
    pub fn cpus(&self) -> u32 {
        self.cpus
    }
    pub fn cpu(&self) -> u32 {
        self.cpu
    }
    /// `vmap_zone_size` (linux-6.9).
    pub fn zone_size(&self) -> u64 {
        self.zone_size
    }
    /// The range the free space was initialised with.
    pub fn space(&self) -> (u64, u64) {
        self.space
    }
    /// maple-rfc: the whole allocator of that profile.
    pub fn rfc(&self) -> Option<&maple_rfc::MapleRfc> {
        self.era.maple()
    }
    pub fn busy_index(&self) -> &BusyIndex {
        &self.busy_index
    }

    /// The lowest free block a request fits in, by the tree search of linux-5.2 and later
    /// (`find_vmap_lowest_match`, with the padded `length`), for tests: `NIL` for none.
    pub fn lowest_match(
        &self,
        size: u64,
        align: u64,
        vstart: u64,
        length: u64,
        rule: SearchRule,
    ) -> Result<u32, EndlessSearch> {
        find_vmap_lowest_match(&self.arena, &self.free, size, align, vstart, length, rule, &mut NoObserver)
    }
    /// The same by a walk of the free list (`find_vmap_lowest_linear_match`), for tests.
    pub fn lowest_linear_match(&self, size: u64, align: u64, vstart: u64) -> u32 {
        find_vmap_lowest_linear_match(&self.arena, &self.free, size, align, vstart)
    }
    /// Link busy areas clipped out of a free block by a descent of the busy tree, as the kernel
    /// does (`false`), or next to their neighbour (`true`, the default): for tests that check
    /// both ways build the same tree. Either way is correct.
    pub fn set_busy_link_hints(&mut self, on: bool) {
        self.busy_link_hints = on;
    }
    /// Forget the free tree's gap (`VaTree::gap`), so the next free that would use it descends
    /// instead: for tests that check both ways build the same tree (with `busy_link_hints`).
    /// Always safe: without a gap the allocator takes the kernel's path.
    pub fn forget_free_gap(&mut self) {
        self.free.gap = None;
    }
    /// Whether freeing `[vs, ve)` now would link it into the free tree at the gap an erase
    /// left (`VaTree::gap`) rather than by a descent, for tests.
    pub fn free_gap_fits(&self, vs: u64, ve: u64) -> bool {
        gap_links(&self.arena, &self.free, vs, ve).is_some()
    }
}

/// A copy whose handles reach its own objects: with absolute handles (wasm) the copy's slab lies
/// elsewhere, so every handle the copy holds is mapped to its new address ([`Vmap::relocate`]).
impl Clone for Vmap {
    fn clone(&self) -> Self {
        self.clone_relocating().0
    }
}

impl Vmap {
    /// [`Clone::clone`], with the map of the copy's handles when they moved (absolute handles):
    /// for a caller that keeps handles of its own into the model.
    pub(crate) fn clone_relocating(&self) -> (Vmap, Option<crate::area::Relocation>) {
        let (arena, reloc) = self.arena.clone_relocated();
        let mut v = Vmap {
            profile: self.profile,
            arena,
            free: self.free,
            nodes: self.nodes.clone(),
            vmap_lazy_nr: self.vmap_lazy_nr,
            cpus: self.cpus,
            online: self.online,
            cpu: self.cpu,
            zone_size: self.zone_size,
            space: self.space,
            initialized: self.initialized,
            era: self.era.clone(),
            busy_index: self.busy_index.clone(),
            busy_link_hints: self.busy_link_hints,
        };
        if let Some(r) = reloc.as_ref() {
            v.relocate(&|h| r.map(h));
        }
        (v, reloc)
    }
}

impl Vmap {
    /// Map every handle held outside the slab through `f` (the links inside it are the arena's
    /// to map): the trees, pools, the era's state and the busy index.
    /// maple-rfc's allocator keeps its own arena, of word offsets, and is left alone.
    pub(crate) fn relocate(&mut self, f: &impl Fn(u32) -> u32) {
        self.free.relocate(f);
        for n in &mut self.nodes {
            n.busy.relocate(f);
            n.lazy.relocate(f);
            for p in &mut n.pools {
                p.iter_mut().for_each(|h| *h = f(*h));
            }
        }
        self.era.relocate(f);
        self.busy_index.relocate(&self.arena, f);
    }

    /// A copy whose objects lie in reverse order, every handle mapped: natively a copy's handles
    /// are the original's, so the tests check [`Vmap::relocate`] with this one (with absolute
    /// handles, a plain copy).
    #[cfg(test)]
    pub(crate) fn clone_reversed(&self) -> Vmap {
        if crate::area::ABS {
            // Every copy is a move there: its slab lies elsewhere.
            return self.clone();
        }
        let mut v = self.clone();
        let f = v.arena.reverse();
        v.relocate(&f);
        v
    }

    pub fn new(profile: Profile) -> Self {
        Vmap {
            profile,
            arena: Arena::new(),
            free: VaTree::default(),
            nodes: vec![VmapNode::default()],
            vmap_lazy_nr: 0,
            cpus: 1,
            online: 0,
            cpu: 0,
            zone_size: 1,
            space: (1, ULONG_MAX),
            initialized: false,
            era: EraState::new(profile),
            busy_index: BusyIndex::default(),
            busy_link_hints: true,
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
        if let Some(r) = self.era.maple_mut() {
            r.cpus = self.cpus;
            r.cpu = self.cpu;
            r.init(start, end)?;
            self.space = (start, end);
            self.initialized = true;
            return Ok(());
        }
        let nr = if self.profile.has_vmap_nodes() { self.cpus.clamp(1, MAX_NODES) } else { 1 };
        self.arena = Arena::new();
        self.free = VaTree::default();
        self.nodes = (0..nr).map(|_| VmapNode::default()).collect();
        self.zone_size = if nr > 1 { 16 * PAGE_SIZE } else { 1 };
        self.era = EraState::new(self.profile);
        self.busy_index.clear();
        self.vmap_lazy_nr = 0;
        self.space = (start, end);
        if self.profile.has_free_tree() {
            // 5.1 has no free tree: free space is whatever no busy area covers.
            let va = self.arena.alloc(start, end);
            insert_vmap_area_augment(&mut self.arena, &mut self.free, va, NIL, &mut NoObserver);
        }
        self.initialized = true;
        Ok(())
    }

    /// The boot default `[1, ULONG_MAX)` unless an `init` came first. (Every operation asks:
    /// the test stays inline, the boot out of line.)
    #[inline(always)]
    pub fn ensure_init(&mut self) {
        if !self.initialized {
            self.boot();
        }
    }

    #[cold]
    #[inline(never)]
    fn boot(&mut self) {
        // Cannot fail: 1 < ULONG_MAX.
        let _ = self.init(1, ULONG_MAX);
    }

    pub fn set_cpus(&mut self, n: u64) -> Result<(), VmapError> {
        if n == 0 || n > MAX_CPUS {
            return Err(VmapError::BadCpus { cpus: n });
        }
        if n <= u64::from(self.cpu) {
            return Err(VmapError::CpuOffline { cpu: self.cpu, cpus: n });
        }
        if let Some(r) = self.era.maple_mut() {
            r.cpus = self.cpus;
            r.set_cpus(n)?;
        }
        self.cpus = n as u32;
        self.online = 0;
        Ok(())
    }

    /// `online N`: N of the `cpus` possible CPUs are online (the lazy threshold counts them;
    /// the vmap nodes count the possible ones).
    pub fn set_online(&mut self, n: u64) -> Result<(), VmapError> {
        if n == 0 || n > u64::from(self.cpus) {
            return Err(VmapError::BadOnline { online: n, cpus: self.cpus });
        }
        if self.era.maple().is_some() {
            return Err(VmapError::Unsupported { why: "`online` is not modelled for maple-rfc".into() });
        }
        self.online = if n == u64::from(self.cpus) { 0 } else { n as u32 };
        Ok(())
    }

    /// Online CPUs (`num_online_cpus()`).
    pub fn online_cpus(&self) -> u32 {
        if self.online == 0 {
            self.cpus
        } else {
            self.online
        }
    }

    pub fn set_cpu(&mut self, n: u64) -> Result<(), VmapError> {
        if n >= u64::from(self.cpus) {
            return Err(VmapError::BadCpu { cpu: n, cpus: self.cpus });
        }
        if let Some(r) = self.era.maple_mut() {
            r.cpus = self.cpus;
            r.set_cpu(n)?;
        }
        self.cpu = n as u32;
        Ok(())
    }

    /// `lazy_max_pages()`: `fls(num_online_cpus()) * 32 MiB / PAGE_SIZE`.
    pub fn lazy_max_pages(&self) -> u64 {
        u64::from(fls(u64::from(self.online_cpus()))) * (32 * 1024 * 1024 / PAGE_SIZE)
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
    pub(crate) fn encode_vn_id(id: u32) -> u32 {
        id + 1
    }

    #[inline(always)]
    pub(crate) fn decode_vn_id(&self, v: u32) -> Option<u32> {
        let id = v.wrapping_sub(1);
        (v != 0 && id < self.nodes.len() as u32).then_some(id)
    }

    #[inline(always)]
    fn tree_view(&self) -> IndexView<'_> {
        IndexView::free_tree(&self.arena, self.free.root)
    }

    /// The index this era keeps, for an observer: the free tree, or maple-rfc's occupied tree.
    #[inline(always)]
    pub fn index_view(&self) -> IndexView<'_> {
        match self.era.maple() {
            Some(r) => IndexView::Maple(&r.occupied),
            None => self.tree_view(),
        }
    }

    // ------------------------------------------------------------------
    // The interface: each operation dispatches once to its era
    // ------------------------------------------------------------------

    /// `alloc_vmap_area`: returns the start of the new busy area.
    #[inline(always)]
    pub fn alloc<O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        self.ensure_init();
        self.alloc_booted::<ANY, O>(size, align, vstart, vend, obs)
    }

    /// [`Vmap::alloc`] compiled for the era `P` (see [`ANY`]), once [`Vmap::ensure_init`] has
    /// run (a replay asks once per run of `alloc` and `free` lines, not per line).
    #[inline(always)]
    pub(crate) fn alloc_booted<const P: u8, O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        obs: &mut O,
    ) -> Result<u64, VmapError> {
        debug_assert!(self.initialized);
        check_request(Profile::fixed::<P>(self.profile), size, align)?;
        with_era!(Profile::fixed::<P>(self.profile), E => E::alloc::<P, O>(self, size, align, vstart, vend, obs))
    }

    /// `free_vmap_area`: give the busy area at `addr` back to free space at once.
    #[inline(always)]
    pub fn free<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        self.ensure_init();
        self.free_booted::<ANY, O>(addr, obs)
    }

    /// [`Vmap::free`] compiled for the era `P`, once [`Vmap::ensure_init`] has run (see
    /// [`Vmap::alloc_booted`]).
    #[inline(always)]
    pub(crate) fn free_booted<const P: u8, O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        debug_assert!(self.initialized);
        with_era!(Profile::fixed::<P>(self.profile), E => E::free::<P, O>(self, addr, obs))
    }

    /// `vfree`: the lazy path (`remove_vm_area` + `free_vmap_area_noflush`), and the drain it
    /// scheduled, at once (as a sequential replay sees it: the work runs before the next
    /// request).
    pub fn vfree<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<(), VmapError> {
        if self.vfree_noflush(addr, obs)? == Drain::Scheduled {
            self.drain(obs);
        }
        Ok(())
    }

    /// `vfree` up to the drain: past the lazy threshold `free_vmap_area_noflush` only
    /// schedules `drain_vmap_work` (`schedule_work`), which this reports; [`Vmap::drain`] runs
    /// it.
    pub fn vfree_noflush<O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<Drain, VmapError> {
        self.ensure_init();
        with_era!(self.profile, E => E::vfree(self, addr, obs))
    }

    /// `drain_vmap_area_work`: the purge the lazy threshold scheduled.
    pub fn drain<O: Observer>(&mut self, obs: &mut O) -> PurgeResult {
        self.ensure_init();
        self.purge_era(PurgeCause::Threshold, obs)
    }

    /// A forced purge (`purge` in a trace). 6.9: the drain path.
    pub fn purge<O: Observer>(&mut self, obs: &mut O) -> PurgeResult {
        self.ensure_init();
        self.purge_era(PurgeCause::Forced, obs)
    }

    /// Where a purge stopped part-way stands: `None` when none is.
    pub fn purge_stage(&self) -> Option<PurgeStop> {
        let p = self.era.part_purge()?;
        Some(if let Some(a) = p.through {
            PurgeStop::Through(a)
        } else if p.processed > 0 {
            PurgeStop::Processed(p.processed - 1)
        } else {
            PurgeStop::Decayed(p.taken.saturating_sub(1))
        })
    }

    /// How far a purge under way has walked node `node`'s taken list (`purge_vmap_node` walks
    /// it in address order): `None` when no purge is under way or that list is walked to its
    /// end, `Some(a)` up to and including the area at `a` (`Some(0)`: not begun).
    pub fn purge_walked(&self, node: u32) -> Option<u64> {
        let p = self.era.part_purge()?;
        if node < p.processed {
            return None;
        }
        Some(p.through.filter(|_| node == p.processed).unwrap_or(0))
    }

    /// The node whose lazy list (or, a purge part-way, whose taken list) holds the area
    /// starting at `addr`.
    pub fn purge_list_node(&self, addr: u64) -> Option<u32> {
        let on = |list: &[u32]| list.iter().any(|&va| self.arena.get(va).va_start == addr);
        if let Some(n) = self.era.part_purge().iter().flat_map(|p| &p.lists).position(|l| on(l)) {
            return Some(n as u32);
        }
        self.nodes.iter().position(|n| n.lazy.find_start(&self.arena, addr) != NIL).map(|n| n as u32)
    }

    /// Areas a purge stopped part-way has taken and not processed yet.
    pub fn purging_count(&self) -> usize {
        self.purge_taken_areas().count()
    }

    /// The areas a purge stopped part-way has taken and not walked yet (lazy, in no tree).
    pub(crate) fn purge_taken_areas(&self) -> impl Iterator<Item = u32> + '_ {
        self.era.part_purge().into_iter().flat_map(|p| p.lists.iter().flatten().copied())
    }

    /// The era's `decay_va_pool_node`.
    fn era_decay<O: Observer>(&self) -> fn(&mut Vmap, u32, bool, &mut O) {
        with_era!(self.profile, E => Self::decay_va_pool_node::<E, O>)
    }

    /// `reclaim_and_purge_vmap_areas` (6.9: full decay); the plain purge elsewhere.
    pub fn reclaim<O: Observer>(&mut self, obs: &mut O) -> PurgeResult {
        self.ensure_init();
        self.purge_era(PurgeCause::Reclaim, obs)
    }

    /// The era's `__purge_vmap_area_lazy`; a full decay of 6.9's pools unless the purge is
    /// forced (the drain path) or comes from the lazy threshold.
    fn purge_era<O: Observer>(&mut self, cause: PurgeCause, obs: &mut O) -> PurgeResult {
        with_era!(self.profile, E => E::purge(self, cause, None, obs))
    }

    /// `vfree` of 5.1, kept by 5.2: the area stays in the busy tree, marked lazy, and is pushed
    /// on the lock-free purge list (`vmap_purge_list`).
    fn vfree_llist<E: EraSlot, O: Observer>(&mut self, addr: u64, obs: &mut O) -> Result<Drain, VmapError>
    where
        E::State: AsMut<Llist>,
    {
        let (_, va) = self.find_busy(addr)?;
        let nr_lazy = self.vmap_lazy_nr + (self.arena.get(va).size() >> PAGE_SHIFT);
        self.vmap_lazy_nr = nr_lazy;
        self.arena.at(va).add_flags(F_LAZY);
        crate::events::touch(obs, va);
        E::st_mut(&mut self.era).as_mut().lazy_list.push(va);
        Ok(self.lazy_enqueued(va, nr_lazy, obs))
    }

    /// The lock-free lazy list of 5.1 and 5.2 (`vmap_purge_list`): take it whole and give each
    /// area back with the era's `__free_vmap_area`, newest first (`llist_del_all` order).
    fn purge_llist<E: EraSlot, O: Observer>(
        &mut self,
        cause: PurgeCause,
        obs: &mut O,
        free_one: fn(&mut Vmap, u32, &mut O),
    ) -> PurgeResult
    where
        E::State: AsMut<Llist>,
    {
        let list = std::mem::take(&mut E::st_mut(&mut self.era).as_mut().lazy_list);
        if O::ON {
            obs.areas_event(Event::PurgeStart { cause, count: list.len() as u32 }, self);
        }
        let mut count = 0u32;
        for &va in list.iter().rev() {
            let v = *self.arena.get(va);
            if O::ON {
                obs.event(Event::PurgeArea { va_start: Addr(v.va_start), va_end: Addr(v.va_end) }, self.tree_view());
            }
            free_one(self, va, obs);
            self.vmap_lazy_nr -= v.size() >> PAGE_SHIFT;
            count += 1;
        }
        // Keep the list's allocation for the next round.
        let kept = &mut E::st_mut(&mut self.era).as_mut().lazy_list;
        *kept = list;
        kept.clear();
        if O::ON {
            obs.areas_event(Event::PurgeEnd { purged: count }, self);
        }
        PurgeResult { entries: count }
    }

    /// What `vfree` of every era ends with: report the enqueue, and past the threshold, the
    /// drain scheduled.
    fn lazy_enqueued<O: Observer>(&mut self, va: u32, nr_lazy: u64, obs: &mut O) -> Drain {
        let lazy_max = self.lazy_max_pages();
        if O::ON {
            let v = *self.arena.get(va);
            let ev = Event::LazyEnqueue {
                id: v.id,
                va_start: Addr(v.va_start),
                va_end: Addr(v.va_end),
                nr_lazy: Hex(nr_lazy),
                lazy_max,
            };
            obs.areas_event(ev, self);
        }
        if nr_lazy > lazy_max {
            Drain::Scheduled
        } else {
            Drain::None
        }
    }

    // ------------------------------------------------------------------
    // Busy-area bookkeeping (every era)
    // ------------------------------------------------------------------

    /// `insert_vmap_area` into the busy tree of the area's node.
    #[inline(always)]
    pub(crate) fn busy_insert<O: Observer>(&mut self, va: u32, obs: &mut O) {
        let (s, e) = (self.arena.get(va).va_start, self.arena.get(va).va_end);
        let nid = self.addr_to_node_id(s) as usize;
        match find_va_links(&self.arena, &self.nodes[nid].busy, s, e, NIL) {
            Some(l) => self.busy_link(nid, va, s, l, obs),
            // An overlap: the kernel warns and leaves the area out of the tree; the event still
            // says what was asked. (The area may be a free block just erased, whose links an
            // erase leaves as they were: the event's depth walk must not follow them.)
            None => {
                self.arena.detach(va);
                self.busy_inserted(va, obs)
            }
        }
    }

    /// `insert_vmap_area` of a new area `[s, e)` clipped out of the free block that ended at
    /// `hole_end`: the busy area starting there, when there is one, is usually the new area's
    /// successor (free and busy areas tile the space), which puts it in the tree without the
    /// descent. The candidate is checked against its list predecessor, so a wrong guess costs
    /// the descent and nothing else.
    ///
    /// ```text
    ///      P (S.prev)            new            S = index[hole_end]
    ///   [--------)  ...  [nva, nva+size)  ...  [--------)
    ///   P.va_end <= nva  and  nva + size <= S.va_start:  the new key sits between P and S, so
    ///   its link is S.left if S has no left child, else P.right (P is then the rightmost node
    ///   of S's left subtree): the very link the descent would reach.
    /// ```
    #[inline(always)]
    fn busy_insert_after_clip<O: Observer>(&mut self, va: u32, s: u64, e: u64, hole_end: u64, obs: &mut O) {
        if self.nodes.len() == 1 && self.busy_link_hints {
            if let Some(l) = self.busy_links_between(s, e, hole_end) {
                self.busy_link(0, va, s, l, obs);
                return;
            }
        }
        self.busy_insert(va, obs)
    }

    /// The link of `[s, e)` in the (single) busy tree, found from the area starting at
    /// `succ`; `None` when that area is not the successor (or not indexed). First, though: a
    /// new area past the last busy one (its free block ran to the end of the space, or past the
    /// last area) is the new maximum, linked at the last area's right, which is free; the index
    /// would only miss there. Then, for an area that ends where its free block ended, the tree's
    /// gap (see [`VaTree::gap`]): the place of the area freed last, when nothing was linked or
    /// erased since and the new area fits there.
    #[inline(always)]
    fn busy_links_between(&self, s: u64, e: u64, succ: u64) -> Option<Links> {
        let last = self.nodes[0].busy.last;
        if self.arena.try_get(last).is_some_and(|l| l.va_end <= s) {
            return Some(Links { parent: last, left: false });
        }
        // A new area that fills its free block to the end is often the one freed there last
        // (a hole filled again by the same size): the place that area left, if it fits there.
        if e == succ {
            if let Some(l) = gap_links(&self.arena, &self.nodes[0].busy, s, e) {
                return Some(l);
            }
        }
        let sx = self.busy_index.find_succ(&self.arena, succ);
        let sv = self.arena.try_get(sx)?;
        links_between(&self.arena, sv.prev, sx, s, e)
    }

    /// Link `va` into node `nid`'s busy tree at `l` and index it.
    #[inline(always)]
    fn busy_link<O: Observer>(&mut self, nid: usize, va: u32, s: u64, l: Links, obs: &mut O) {
        link_va::<Plain, O>(&mut self.arena, &mut self.nodes[nid].busy, va, l, obs);
        self.busy_index.insert(&self.arena, s, va);
        self.busy_inserted(va, obs);
    }

    /// The `BusyInsert` event, with the depth the area reached.
    #[inline(always)]
    fn busy_inserted<O: Observer>(&mut self, va: u32, obs: &mut O) {
        if O::ON {
            let v = *self.arena.get(va);
            let mut depth = 0;
            let mut p = v.parent();
            while p != NIL {
                depth += 1;
                p = self.arena.get(p).parent();
            }
            obs.areas_event(
                Event::BusyInsert { id: v.id, va_start: Addr(v.va_start), va_end: Addr(v.va_end), depth },
                self,
            );
        }
    }

    // ------------------------------------------------------------------

    /// The busy area starting exactly at `addr` (searching the node of `addr` first).
    ///
    /// Inlined: the usual case (one node, an area starts at `addr` and is not lazy) is one
    /// exact-start descent; everything else, errors included, is [`Vmap::find_busy_slow`],
    /// which decides the whole question again.
    #[inline(always)]
    pub(crate) fn find_busy(&self, addr: u64) -> Result<(usize, u32), VmapError> {
        if self.nodes.len() == 1 {
            let va = self.busy_index.find(&self.arena, addr);
            if let Some(v) = self.arena.try_get(va) {
                if v.va_end > addr && !v.is_lazy() {
                    return Ok((0, va));
                }
            }
        }
        self.find_busy_slow(addr)
    }

    #[cold]
    #[inline(never)]
    fn find_busy_slow(&self, addr: u64) -> Result<(usize, u32), VmapError> {
        if let [node] = self.nodes.as_slice() {
            // One node (every profile but a multi-node linux-6.9): the exact-start descent,
            // one comparison per level; the containment descent only to name a miss.
            // Busy areas never overlap, so an area starting at `addr` is the one containing it
            // (the `va_end` test keeps that true even for an empty or wrapped range).
            let va = node.busy.find_start(&self.arena, addr);
            return match self.arena.try_get(va) {
                Some(v) if v.va_end > addr && v.is_lazy() => Err(VmapError::AlreadyLazy { addr }),
                Some(v) if v.va_end > addr => Ok((0, va)),
                _ => {
                    let inside = self.arena.try_get(node.busy.find_containing(&self.arena, addr));
                    Err(VmapError::UnknownFree { addr, interior_of: inside.map(|v| (v.va_start, v.va_end)) })
                }
            };
        }
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

    #[inline(always)]
    pub(crate) fn busy_remove<O: Observer>(&mut self, nid: usize, va: u32, obs: &mut O) {
        let t = &mut self.nodes[nid].busy;
        t.gap = Some(unlink_va::<Plain, O>(&mut self.arena, t, va, obs));
        let s = self.arena.get(va).va_start;
        self.busy_index.remove(&self.arena, s, va);
        if O::ON {
            let v = *self.arena.get(va);
            obs.areas_event(Event::BusyRemove { id: v.id, va_start: Addr(v.va_start), va_end: Addr(v.va_end) }, self);
        }
    }

    // ------------------------------------------------------------------
    // pcpu_get_vm_areas
    // ------------------------------------------------------------------

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
        with_era!(self.profile, E => E::pcpu_get_vm_areas(self, offsets, sizes, align, obs))
    }

    /// A bound on the steps of one pcpu walk. Each reset of the base moves it below an area
    /// boundary it has not passed before (at most `areas * group` resets, one per area and
    /// group member), and between resets the walk steps through the group at most once: so
    /// `(areas + 2) * (group + 2)^2` steps are never exceeded by a walk that ends.
    fn pcpu_walk_budget(&self, nr: usize) -> u64 {
        let g = nr as u64 + 2;
        (self.arena.slots() as u64 + 2).saturating_mul(g).saturating_mul(g)
    }

    // ------------------------------------------------------------------
    // Inspection
    // ------------------------------------------------------------------

    /// Busy areas of a node, in address order, with the lazy flag (5.2).
    pub fn busy_areas(&self, nid: usize) -> impl Iterator<Item = (AreaInfo, bool)> + '_ {
        self.nodes[nid]
            .busy
            .iter(&self.arena)
            .map(|(_, v)| (AreaInfo { id: v.id, va_start: Addr(v.va_start), va_end: Addr(v.va_end) }, v.is_lazy()))
    }

    /// Every busy area in address order, with its lazy flag (5.2) and the vmap node that holds
    /// it; maple-rfc adds the areas handed out from bump chunks.
    pub fn busy_areas_all(&self) -> Vec<(AreaInfo, bool, u32)> {
        let mut out = Vec::new();
        if let Some(r) = self.era.maple() {
            out.extend(r.busy_areas().into_iter().map(|i| (i, false, r.addr_to_node_id(i.va_start.0))));
        }
        for nid in 0..self.nodes.len() {
            out.extend(self.busy_areas(nid).map(|(i, lazy)| (i, lazy, nid as u32)));
        }
        if self.nodes.len() > 1 {
            out.sort_by_key(|b| b.0.va_start);
        }
        out
    }

    /// Pages waiting for the lazy purge.
    pub fn lazy_pages(&self) -> u64 {
        self.era.maple().map_or(self.vmap_lazy_nr, |r| r.vmap_lazy_nr)
    }

    /// maple-rfc's bump chunks, newest first, each with whether it is its CPU's current one
    /// (none for the other eras).
    pub fn bump_chunks(&self) -> Vec<(&maple_rfc::BumpChunk, bool)> {
        self.era.maple().map_or_else(Vec::new, |r| r.chunk_states().collect())
    }

    /// Lazy areas that left the busy tree (6.1: purge tree; 6.9: node lazy trees).
    pub fn lazy_areas(&self) -> Vec<AreaInfo> {
        self.lazy_areas_by_node().into_iter().map(|(_, a)| a).collect()
    }

    /// [`Vmap::lazy_areas`] with the vmap node whose lazy list holds each (0 before 6.9).
    pub fn lazy_areas_by_node(&self) -> Vec<(u32, AreaInfo)> {
        with_era!(self.profile, E => E::lazy_areas_by_node(self))
    }

    /// Pooled areas: (node, pool index, entries in pool order).
    pub fn pools(&self) -> Vec<(u32, u32, Vec<AreaInfo>)> {
        if let Some(r) = self.era.maple() {
            return r.pools();
        }
        let mut out = Vec::new();
        for (nid, n) in self.nodes.iter().enumerate() {
            for (idx, p) in n.pools.iter().enumerate() {
                if !p.is_empty() {
                    let entries = p
                        .iter()
                        .map(|&va| {
                            let v = self.arena.get(va);
                            AreaInfo { id: v.id, va_start: Addr(v.va_start), va_end: Addr(v.va_end) }
                        })
                        .collect();
                    out.push((nid as u32, idx as u32, entries));
                }
            }
        }
        out
    }

    /// Number of free blocks (maple-rfc: NULL ranges of the occupied tree).
    pub fn free_blocks(&self) -> usize {
        if let Some(r) = self.era.maple() {
            return r.occupied.ranges().iter().filter(|x| x.2.is_none()).count();
        }
        self.free.len
    }

    /// Number of busy areas (lazy ones of 5.2 included).
    pub fn busy_count(&self) -> usize {
        if let Some(r) = self.era.maple() {
            return r.busy_areas().len();
        }
        self.nodes.iter().map(|n| n.busy.len).sum()
    }

    /// Whether the bump overlay is on (`None`: the era has none).
    pub fn bump_on(&self) -> Option<bool> {
        self.era.maple().map(|r| r.bump_on)
    }

    /// `bump on|off` (maple-rfc only: `false` elsewhere).
    pub fn set_bump(&mut self, on: bool) -> bool {
        match self.era.maple_mut() {
            Some(r) => {
                r.set_bump(on);
                true
            }
            None => false,
        }
    }
}

/// What `alloc_vmap_area` checks of a request before anything else, the same in every era: a
/// size that is a non-zero multiple of PAGE_SIZE and an align that is a power of two. The era
/// answers a bad one with `BUG_ON` or -EINVAL ([`Era::BUG_ON_BAD_REQUEST`]).
#[inline(always)]
pub(crate) fn check_request(p: Profile, size: u64, align: u64) -> Result<(), VmapError> {
    if size == 0 {
        return Err(VmapError::SizeZero { bug_on: p.bug_on_bad_request() });
    }
    if size & (PAGE_SIZE - 1) != 0 {
        return Err(VmapError::SizeNotPageMultiple { size, bug_on: p.bug_on_bad_request() });
    }
    if !align.is_power_of_two() {
        return Err(VmapError::BadAlign { align, bug_on: p.bug_on_bad_request() });
    }
    Ok(())
}

/// What `alloc_vmap_area` does around its search in every era: where the search finds no room,
/// purge the lazy areas once and search again; where it finds none then either, report
/// `AllocFailed` and fail with `NoSpace`. `search` makes the allocation where it finds room
/// (`Ok(None)`: no room); `purge` is the era's purge before the retry; `view` the index the
/// era shows an observer.
#[inline(always)]
pub(crate) fn search_purge_retry<M, O: Observer>(
    m: &mut M,
    [size, align, vstart, vend]: [u64; 4],
    obs: &mut O,
    mut search: impl FnMut(&mut M, &mut O) -> Result<Option<u64>, VmapError>,
    purge: impl FnOnce(&mut M, &mut O) -> Result<(), VmapError>,
    view: fn(&M) -> IndexView<'_>,
) -> Result<u64, VmapError> {
    // The search is called from one place, so that it is inlined (called from two, it was not:
    // 31 more instructions per operation on fixed_s44); the purge runs once at most.
    let mut purge = Some(purge);
    loop {
        if let Some(addr) = search(m, obs)? {
            return Ok(addr);
        }
        let Some(purge) = purge.take() else { break };
        purge(m, obs)?;
    }
    if O::ON {
        obs.event(Event::AllocFailed { size: Addr(size) }, view(m));
    }
    Err(VmapError::NoSpace { size, align, vstart, vend })
}

/// [`search_purge_retry`] once the first search found no room: purge, search again, or fail
/// (for an era that makes the first search on its hot path and the rest out of line).
#[inline(always)]
pub(crate) fn purge_retry<M, O: Observer>(
    m: &mut M,
    [size, align, vstart, vend]: [u64; 4],
    obs: &mut O,
    mut search: impl FnMut(&mut M, &mut O) -> Result<Option<u64>, VmapError>,
    purge: impl FnOnce(&mut M, &mut O) -> Result<(), VmapError>,
    view: fn(&M) -> IndexView<'_>,
) -> Result<u64, VmapError> {
    purge(m, obs)?;
    if let Some(addr) = search(m, obs)? {
        return Ok(addr);
    }
    if O::ON {
        obs.event(Event::AllocFailed { size: Addr(size) }, view(m));
    }
    Err(VmapError::NoSpace { size, align, vstart, vend })
}

/// What `pcpu_get_vm_areas` checks before any walk, the same in every era: at least one
/// `OFFSET:SIZE` pair, an align that is a power of two and a multiple of PAGE_SIZE, areas
/// that are aligned, non-empty and disjoint, and a span that fits in the aligned window
/// (else `WARN_ON`: no purge, no retry). Returns the index of the highest area.
pub(crate) fn pcpu_check_args(offsets: &[u64], sizes: &[u64], align: u64) -> Result<usize, VmapError> {
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
    // The pairwise overlap check (every area against every other, the ends of the others
    // wrapping) in O(n log n): the areas by offset, and per prefix of that order the two
    // furthest ends with their areas.
    let mut order: Vec<usize> = (0..nr).collect();
    order.sort_unstable_by_key(|&j| offsets[j]);
    type Reach = Option<(u64, usize)>;
    let mut reach: Vec<(Reach, Reach)> = Vec::with_capacity(nr);
    let (mut r1, mut r2): (Reach, Reach) = (None, None);
    for &j in &order {
        let c = (offsets[j].wrapping_add(sizes[j]), j);
        if r1.is_none_or(|(e1, _)| c.0 > e1) {
            r2 = r1;
            r1 = Some(c);
        } else if r2.is_none_or(|(e2, _)| c.0 > e2) {
            r2 = Some(c);
        }
        reach.push((r1, r2));
    }
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
        // Does any other area meet [s, e)? Among the areas starting below e, the one reaching
        // furthest (the other one when that is area i).
        let k = order.partition_point(|&j| offsets[j] < e);
        let far = k.checked_sub(1).and_then(|k| match reach[k] {
            (Some((_, a)), b) if a == i => b,
            (a, _) => a,
        });
        if far.is_some_and(|(e2, _)| s < e2) {
            // The first such area, as the pairwise check finds it.
            let j = (0..nr).find(|&j| j != i && offsets[j] < e && s < offsets[j].wrapping_add(sizes[j])).unwrap_or(i);
            return bad(format!("areas {i} and {j} overlap"));
        }
    }
    let last_end = offsets[last_area] + sizes[last_area];
    if ve.wrapping_sub(vs) < last_end {
        // WARN_ON: no purge, no retry.
        return Err(VmapError::NoSpace { size: last_end, align, vstart: vs, vend: ve });
    }
    Ok(last_area)
}

/// What an observer reads: maple-rfc's own state where it has one (its `Vmap` keeps one
/// empty node), else the allocator's.
impl crate::events::AreasView for Vmap {
    fn index_view(&self) -> IndexView<'_> {
        Vmap::index_view(self)
    }
    fn busy_areas_all(&self) -> Vec<(AreaInfo, bool, u32)> {
        match self.era.maple() {
            Some(r) => crate::events::AreasView::busy_areas_all(r),
            None => Vmap::busy_areas_all(self),
        }
    }
    fn lazy_pages(&self) -> u64 {
        Vmap::lazy_pages(self)
    }
    fn lazy_areas_by_node(&self) -> Vec<(u32, AreaInfo)> {
        match self.era.maple() {
            Some(r) => r.lazy_areas_by_node(),
            None => Vmap::lazy_areas_by_node(self),
        }
    }
    fn pools(&self) -> Vec<(u32, u32, Vec<AreaInfo>)> {
        Vmap::pools(self)
    }
}

// ------------------------------------------------------------------
// Profile: the registry's enum, its names and the era constants it reads
// ------------------------------------------------------------------

/// A profile fixed at compile time, as a const generic (`Profile::X as u8`), or [`ANY`].
///
/// A replay's run of lines under one profile is compiled for that era (see
/// `Replayer::run`), as the kernel is built for one version: its alloc and free reach the era's
/// path, search rule and merge style with no test of the profile. Every other caller passes
/// `ANY` and reads the profile at run time, as before.
pub(crate) const ANY: u8 = u8::MAX;

impl Default for Profile {
    /// linux-5.2: a trace that names no profile replays on the 2019 free tree.
    fn default() -> Self {
        Profile::parse("linux-5.2").expect("the registry has linux-5.2")
    }
}

impl Profile {
    /// The era a path compiled for `P` runs: `P` itself, or `run` (the `Vmap`'s own profile)
    /// for [`ANY`]. A constant once `P` is.
    #[inline(always)]
    pub(crate) fn fixed<const P: u8>(run: Profile) -> Profile {
        if P == ANY {
            return run;
        }
        let p = Profile::ALL[P as usize];
        debug_assert_eq!(p, run, "a path compiled for {p:?} ran under {run:?}");
        p
    }

    pub fn name(self) -> &'static str {
        Profile::NAMES[self as usize]
    }

    pub fn parse(s: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == s)
    }

    /// The newest kernel release modelled: what a capture or a vmallocinfo file is read
    /// with unless told otherwise.
    pub fn newest_release() -> Profile {
        Profile::ALL.into_iter().filter(|p| p.first_release().is_some()).max_by_key(|p| p.first_release()).unwrap()
    }

    /// The era of kernel release `(major, minor)`: the newest whose first release is not
    /// later; the oldest era for a release before all of them.
    pub fn of_release(v: (u32, u32)) -> Profile {
        Profile::ALL
            .into_iter()
            .filter(|p| p.first_release().is_some_and(|f| f <= v))
            .max_by_key(|p| p.first_release())
            .unwrap_or(Profile::ALL[0])
    }

    /// [`Era::FIRST_RELEASE`].
    pub fn first_release(self) -> Option<(u32, u32)> {
        with_era!(self, E => E::FIRST_RELEASE)
    }

    /// The search rule of the era.
    #[inline(always)]
    pub fn search_rule(self) -> crate::vmalloc::SearchRule {
        with_era!(self, E => E::SEARCH_RULE)
    }

    /// [`Era::VMAP_NODES`].
    #[inline(always)]
    pub fn has_vmap_nodes(self) -> bool {
        with_era!(self, E => E::VMAP_NODES)
    }

    /// [`Era::PER_CPU`]: the vmap nodes, or maple-rfc's per-CPU bump chunks.
    #[inline(always)]
    pub fn per_cpu(self) -> bool {
        with_era!(self, E => E::PER_CPU)
    }

    /// [`Era::BUMP_OVERLAY`].
    pub fn bump_overlay(self) -> bool {
        with_era!(self, E => E::BUMP_OVERLAY)
    }

    /// [`Era::LAZY_IN_BUSY`].
    #[inline(always)]
    pub fn lazy_in_busy(self) -> bool {
        with_era!(self, E => E::LAZY_IN_BUSY)
    }

    /// [`Era::FREE_TREE`].
    #[inline(always)]
    pub fn has_free_tree(self) -> bool {
        with_era!(self, E => E::FREE_TREE)
    }

    /// [`Era::BUG_ON_BAD_REQUEST`].
    pub fn bug_on_bad_request(self) -> bool {
        with_era!(self, E => E::BUG_ON_BAD_REQUEST)
    }

    /// [`Era::MODULE_TESTS`].
    pub fn module_tests(self) -> usize {
        with_era!(self, E => E::MODULE_TESTS)
    }

    #[inline(always)]
    pub fn merge_style(self) -> crate::vmalloc::MergeStyle {
        with_era!(self, E => E::MERGE_STYLE)
    }
}
