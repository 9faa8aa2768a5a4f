//! Step events: the contract between the allocator and whoever watches it.
//!
//! Every operation can report its micro-steps, in order, to an [`Observer`]. The allocator is
//! generic over the observer; with [`NoObserver`] the `ON` constant is `false`, every
//! `if O::ON { ... }` guard is a compile-time constant, and recording costs nothing.
//!
//! Areas are named by their `id` (a serial number given when the `vmap_area` object is
//! created, never reused), so a view can key its nodes by identity and see a rotation *move*
//! a node. Addresses are carried alongside so a narration needs no lookup.

use serde::Serialize;
use ts_rs::TS;

use crate::addr::{Addr, Hex};

use crate::area::{AreaInfo, Arena};
use crate::maple::{MapleEvent, MapleSnap, MapleTree};

/// A read-only view of the augmented red-black free tree.
#[derive(Clone, Copy)]
pub struct TreeView<'a> {
    pub arena: &'a Arena,
    pub root: u32,
}

/// The index an era keeps, as it stands after an event: what an observer may look at. An era
/// reports the structure it has; a new kind of index is a new variant here (and in
/// [`crate::session::IndexSnap`]), not a special case in each consumer.
///
/// ```text
///   linux-5.1 .. linux-6.9   FreeTree  (5.1 keeps it empty: it walks the busy areas)
///   maple-rfc                Maple     the occupied tree between maple operations
///                            MapleNodes  its nodes mid-store, after a gap update
///                            Unchanged   mid-search, or a store before its gap updates
/// ```
#[derive(Clone, Copy)]
pub enum IndexView<'a> {
    /// The augmented red-black free tree.
    FreeTree(TreeView<'a>),
    /// A maple tree, whole (maple-rfc's occupied tree, whose NULL ranges are the free space).
    Maple(&'a MapleTree),
    /// A maple tree's nodes in the middle of a store, right after a gap update (so a player
    /// shows the propagation one level per step, as the maple-tree player does).
    MapleNodes(&'a MapleSnap),
    /// The index cannot be looked at now (inside a maple search, or a store before its first
    /// gap update); the last view handed out still stands.
    Unchanged,
}

impl<'a> IndexView<'a> {
    #[inline(always)]
    pub fn free_tree(arena: &'a Arena, root: u32) -> IndexView<'a> {
        IndexView::FreeTree(TreeView { arena, root })
    }

    /// The free tree, when this is one.
    pub fn as_free_tree(&self) -> Option<TreeView<'a>> {
        match *self {
            IndexView::FreeTree(t) => Some(t),
            _ => None,
        }
    }
}

/// Receives step events. Implementors that record nothing set `ON = false`.
pub trait Observer {
    /// When false, the allocator never builds an event: the calls compile away.
    const ON: bool = true;
    /// True when the observer looks at a maple tree's nodes in the middle of a store (a
    /// player's frames); taking them costs a copy of the nodes per gap update, so it is off by
    /// default and then never done.
    const MAPLE_NODES: bool = false;
    /// True when the observer wants [`Observer::touch`] and [`Observer::touch_pool`]: the
    /// objects and pools an operation changed, for the incremental check ([`crate::check_inc`]).
    /// Off by default, and then every call compiles away.
    const TOUCH: bool = false;
    fn event(&mut self, ev: Event, index: IndexView<'_>);
    /// An object linked, unlinked, resized, re-flagged or moved in or out of a pool, or an
    /// in-order neighbour (or parent) of one that is unlinked.
    #[inline(always)]
    fn touch(&mut self, _h: u32) {}
    /// A size pool of a vmap node that was looked at or changed (linux-6.9).
    #[inline(always)]
    fn touch_pool(&mut self, _nid: u32, _idx: usize) {}
    /// A red-black node whose parent word (parent link or colour) was written: a rotation,
    /// a recolour, a node taking an erased one's place.
    #[inline(always)]
    fn touch_node(&mut self, _h: u32) {}
    /// The state changed without reporting what it touched (a capture's line that takes an
    /// address where the kernel took it): a check of the touched parts must look at the whole.
    #[inline(always)]
    fn untracked(&mut self) {}
    /// An event after which the busy, lazy or pooled areas may differ, with a read-only view
    /// of the allocator's areas (a player snapshots them). By default, just [`Observer::event`].
    #[inline(always)]
    fn areas_event(&mut self, ev: Event, v: &dyn AreasView) {
        self.event(ev, v.index_view());
    }
}

/// What an observer may read of the allocator at an areas event, whichever era's type holds
/// the state: its index and its busy, lazy and pooled areas, nothing to change.
pub trait AreasView {
    /// The index a view draws: the free tree, or maple-rfc's occupied tree.
    fn index_view(&self) -> IndexView<'_>;
    /// Every busy area in address order, with its lazy flag (5.2) and the vmap node holding it.
    fn busy_areas_all(&self) -> Vec<(AreaInfo, bool, u32)>;
    /// Pages waiting for the lazy purge.
    fn lazy_pages(&self) -> u64;
    /// Lazy areas off the busy tree, with the vmap node whose lazy list holds each.
    fn lazy_areas_by_node(&self) -> Vec<(u32, AreaInfo)>;
    /// Pooled areas: (node, pool index, entries in pool order).
    fn pools(&self) -> Vec<(u32, u32, Vec<AreaInfo>)>;
}

/// Report `h` to an observer that wants touches (nothing otherwise: a constant test).
#[inline(always)]
pub(crate) fn touch<O: Observer>(obs: &mut O, h: u32) {
    if O::TOUCH {
        obs.touch(h);
    }
}

/// Report a red-black node whose parent word was written (see [`Observer::touch_node`]).
#[inline(always)]
pub(crate) fn touch_node<O: Observer>(obs: &mut O, h: u32) {
    if O::TOUCH {
        obs.touch_node(h);
    }
}

/// The observer that records nothing; with it the allocator runs at full speed.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoObserver;

impl Observer for NoObserver {
    const ON: bool = false;
    #[inline(always)]
    fn event(&mut self, _ev: Event, _index: IndexView<'_>) {}
    #[inline(always)]
    fn areas_event(&mut self, _ev: Event, _v: &dyn AreasView) {}
}

/// Records every event in order (tests, the replay tool, the wasm facade).
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub events: Vec<Event>,
}

impl Observer for Recorder {
    fn event(&mut self, ev: Event, _index: IndexView<'_>) {
        self.events.push(ev);
    }
}

impl<T: Observer> Observer for &mut T {
    const ON: bool = T::ON;
    const MAPLE_NODES: bool = T::MAPLE_NODES;
    const TOUCH: bool = T::TOUCH;
    #[inline(always)]
    fn event(&mut self, ev: Event, index: IndexView<'_>) {
        (**self).event(ev, index)
    }
    #[inline(always)]
    fn touch(&mut self, h: u32) {
        (**self).touch(h)
    }
    #[inline(always)]
    fn touch_pool(&mut self, nid: u32, idx: usize) {
        (**self).touch_pool(nid, idx)
    }
    #[inline(always)]
    fn touch_node(&mut self, h: u32) {
        (**self).touch_node(h)
    }
    #[inline(always)]
    fn untracked(&mut self) {
        (**self).untracked()
    }
    #[inline(always)]
    fn areas_event(&mut self, ev: Event, v: &dyn AreasView) {
        (**self).areas_event(ev, v)
    }
}

/// The test made at a node during `find_vmap_lowest_match`, and where it led.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Branch {
    /// Left subtree max >= length and vstart < va_start: go left.
    Left,
    /// `is_within_this_va` holds: this block is the answer.
    This,
    /// Right subtree max >= length: go right.
    Right,
    /// Neither child can help: climb back towards the root.
    RollBack,
}

/// What happened at an ancestor during the roll-back walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RollBackStep {
    /// The ancestor itself fits.
    This,
    /// Its right subtree is worth a look (and vstart may move forward).
    Right,
    /// Neither: keep climbing.
    Up,
}

/// The four ways a request can sit inside a free block (plus none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
pub enum FitType {
    #[serde(rename = "NOTHING")]
    NothingFit,
    /// Full fit: the block is consumed whole.
    #[serde(rename = "FL")]
    FlFit,
    /// Left edge: the request starts at the block's start.
    #[serde(rename = "LE")]
    LeFit,
    /// Right edge: the request ends at the block's end.
    #[serde(rename = "RE")]
    ReFit,
    /// No edge: the block splits in two.
    #[serde(rename = "NE")]
    NeFit,
}

impl FitType {
    pub fn short(self) -> &'static str {
        match self {
            FitType::NothingFit => "NOTHING",
            FitType::FlFit => "FL",
            FitType::LeFit => "LE",
            FitType::ReFit => "RE",
            FitType::NeFit => "NE",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Dir {
    Left,
    Right,
}

/// Which red-black routine a rotation or recolour belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RbPhase {
    /// `__rb_insert`
    Insert,
    /// `__rb_erase_color`
    EraseColor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Color {
    Red,
    Black,
}

/// Which augment callback (or which caller) rewrote a node's `subtree_max_size` outside a
/// propagation (`propagate`/`propagate_stop` events are their own kinds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AugmentCause {
    /// The `copy` callback of `__rb_erase_augmented` (cases 2 and 3): the successor takes the
    /// erased node's value.
    Copy,
    /// The `rotate` callback, right after the rotation it belongs to (`phase`, `case`).
    Rotate,
    /// `link_va` after `rb_insert_augmented`: the new node's value is reset to 0 until the
    /// propagation from it sets the real one.
    LinkReset,
}

/// Why linux-5.1 dropped its `free_vmap_cache` hint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum CacheResetWhy {
    Empty,
    SmallerThanHole,
    LowerVstart,
    SmallerAlign,
    BelowVstart,
}

/// Which neighbours a freed block merged with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum MergeKind {
    Next,
    Prev,
    Both,
}

/// Which of maple-rfc's maple trees an [`Event::Maple`] belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum MapleTreeKind {
    /// `occupied_vmap_area_mt`: the index the allocation searches (drawn by the view).
    Occupied,
    /// A vmap node's busy tree (`vn->busy.mt`), the address -> area lookup.
    Busy,
    /// The stale `free_vmap_area_mt`.
    Free,
}

/// Why a purge ran.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PurgeCause {
    /// `purge` in a trace: a forced `purge_vmap_area_lazy`.
    Forced,
    /// `vmap_lazy_nr` went over `lazy_max_pages()`.
    Threshold,
    /// An allocation failed and retries after returning lazy areas.
    AllocRetry,
    /// `reclaim` (6.9): purge with full pool decay.
    Reclaim,
}

/// One micro-step of the allocator.
///
/// Addresses and lengths are [`Addr`] and travel as `"0x…"` text; so, as they always have,
/// `nr_lazy` and `successor`, typed [`Hex`]. Ids, counts and cases are numbers. The types decide
/// the JSON; both are `#[repr(transparent)]` over `u64`, so building an event costs what it did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    // ---- alloc_vmap_area / __alloc_vmap_area / find_vmap_lowest_match ----
    /// A search begins: `length` is the pruning length the profile's rule chose.
    SearchStart {
        size: Addr,
        align: Addr,
        vstart: Addr,
        vend: Addr,
        length: Addr,
    },
    /// A node visited on the way down, the test made and the branch taken.
    Visit {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        left_max: Addr,
        right_max: Addr,
        vstart: Addr,
        branch: Branch,
    },
    /// An ancestor re-examined on the roll-back walk.
    RollBack {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        right_max: Addr,
        vstart: Addr,
        step: RollBackStep,
        /// 5.16+: the vstart the search continues with after entering a right subtree.
        new_vstart: Option<Addr>,
    },
    /// No free block qualifies.
    SearchNone,
    /// The aligned start lands past `vend`: the request fails after the search.
    OutOfRange {
        nva: Addr,
        size: Addr,
        vend: Addr,
    },
    /// `classify_va_fit_type`.
    Fit {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        nva: Addr,
        size: Addr,
        fit: FitType,
    },
    /// `adjust_va_to_fit_type`: the block's bounds before and after; for NE, the new left part.
    Clip {
        id: u32,
        fit: FitType,
        old_start: Addr,
        old_end: Addr,
        new_start: Addr,
        new_end: Addr,
        /// NE only: the new object `[lva_start, lva_end)` left of the request.
        lva: Option<AreaInfo>,
    },
    /// The request is served: `[addr, addr + size)` becomes busy.
    Allocated {
        id: u32,
        addr: Addr,
        size: Addr,
    },
    /// The request fails (after any purge and retry).
    AllocFailed {
        size: Addr,
    },

    // ---- red-black tree (free tree only) ----
    /// A node is linked as a red leaf (`rb_link_node`), before the fix-up.
    Link {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        parent: Option<u32>,
        side: Option<Dir>,
    },
    /// A rotation: `old_top` was the subtree's top, `new_top` takes its place.
    Rotate {
        phase: RbPhase,
        case: u8,
        dir: Dir,
        old_top: u32,
        new_top: u32,
    },
    /// A colour change made by a fix-up case.
    Recolor {
        phase: RbPhase,
        case: u8,
        id: u32,
        color: Color,
    },
    /// The space was reset by `init`: one free block `[start, end)`.
    Reset {
        start: Addr,
        end: Addr,
    },
    /// A node is about to be erased from the free tree.
    Erase {
        id: u32,
        va_start: Addr,
        va_end: Addr,
    },
    /// The erased node is out of the tree, before propagation and the colour fix-up. `case` is
    /// the case of `__rb_erase_augmented`: "1a" (no left child), "1b" (only a left child), "2"
    /// (the successor is the right child), "3" (the successor is deeper); `successor` takes
    /// the node's place in cases 2 and 3.
    Unlinked {
        id: u32,
        case: &'static str,
        successor: Option<Hex>,
    },

    // ---- augmentation ----
    /// `subtree_max_size` of a node changed on a propagation path.
    Propagate {
        id: u32,
        old: Addr,
        new: Addr,
    },
    /// The propagation stopped here: the recomputed value equals the stored one.
    PropagateStop {
        id: u32,
        value: Addr,
    },
    /// A value rewritten by the copy or rotate callback, or reset by `link_va`. For `rotate`,
    /// `phase` and `case` name the rotation it follows (reported just before it, as in
    /// `lib/rbtree.c`, where the callback runs after the pointers moved).
    AugmentSet {
        id: u32,
        old: Addr,
        new: Addr,
        cause: AugmentCause,
        phase: Option<RbPhase>,
        case: Option<u8>,
    },

    // ---- free path: merge_or_add_vmap_area ----
    /// Where a freed block would be linked, and its neighbours in the free list.
    MergeStart {
        va_start: Addr,
        va_end: Addr,
        prev: Option<u32>,
        next: Option<u32>,
    },
    /// The freed block joined a neighbour; `survivor` keeps the merged range, `removed` is gone.
    /// `old_start..old_end` is the survivor's range before this step, `new_start..new_end` after.
    Merge {
        merge: MergeKind,
        survivor: u32,
        removed: Option<u32>,
        old_start: Addr,
        old_end: Addr,
        new_start: Addr,
        new_end: Addr,
    },
    /// The freed block touched no neighbour and is inserted as a node of its own.
    AddBlock {
        id: u32,
        va_start: Addr,
        va_end: Addr,
    },

    // ---- busy tree, lazy list, purge ----
    /// `depth`: nodes passed on the way down the busy tree.
    BusyInsert {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        depth: u32,
    },
    BusyRemove {
        id: u32,
        va_start: Addr,
        va_end: Addr,
    },
    /// An area is freed lazily: `nr_lazy` pages now wait, the threshold is `lazy_max`.
    LazyEnqueue {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        nr_lazy: Hex,
        lazy_max: u64,
    },
    /// A purge begins and will return `count` entries.
    PurgeStart {
        cause: PurgeCause,
        count: u32,
    },
    /// One lazy entry goes back to the free tree.
    PurgeArea {
        va_start: Addr,
        va_end: Addr,
    },
    PurgeEnd {
        purged: u32,
    },

    // ---- linux-5.1: the busy-list walk with free_vmap_cache ----
    /// The cached starting point is dropped (`why`: no cache, smaller size than the noted
    /// hole, lower vstart, smaller align, or the cached end aligned below vstart).
    CacheReset {
        why: CacheResetWhy,
    },
    /// The walk starts after the cached busy area.
    CacheUse {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        addr: Addr,
    },
    /// A busy-tree node passed while looking for the first area ending at or above `addr`.
    WalkTree {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        addr: Addr,
    },
    /// A busy area stepped over in the list walk; `addr` is the candidate after it.
    WalkArea {
        id: u32,
        va_start: Addr,
        va_end: Addr,
        addr: Addr,
        cached_hole_size: Addr,
    },

    // ---- vmap nodes (linux-6.9) ----
    PoolHit {
        node: u32,
        pool: u32,
        va_start: Addr,
        va_end: Addr,
    },
    /// The head of the pool was misaligned and moved to the tail.
    PoolRotate {
        node: u32,
        pool: u32,
        va_start: Addr,
        va_end: Addr,
    },
    PoolMiss {
        node: u32,
        pool: u32,
    },
    /// Pool entries given back during decay (before they coalesce).
    Decay {
        node: u32,
        pool: u32,
        taken: u32,
        kept: u32,
    },
    /// A lazy area is pushed at the head of a pool instead of returning to the tree.
    Pooled {
        node: u32,
        pool: u32,
        va_start: Addr,
        va_end: Addr,
    },
    /// pcpu_get_vm_areas: one area carved.
    PcpuArea {
        index: u32,
        addr: Addr,
        size: Addr,
    },

    // ---- maple-rfc: the maple trees, the window loop, the bump overlay ----
    /// A micro-step of one of maple-rfc's maple trees (`tree`: the occupied tree, a vmap
    /// node's busy tree (`node`), or the stale free tree), in that tree's own words.
    Maple {
        tree: MapleTreeKind,
        node: u32,
        event: MapleEvent,
    },
    /// `find_hole_window` begins: `len` is what each `mas_empty_area` asks for (`size`, or
    /// `size + align - 1` when `align > PAGE_SIZE`).
    WindowStart {
        size: Addr,
        align: Addr,
        min: Addr,
        max: Addr,
        len: Addr,
    },
    /// One iteration of the window loop: the search from `search` found the hole
    /// `[index, hole_end]` (`hole_end = min(mas.last, max)`), aligned up to `candidate`; it fits
    /// when `[candidate, cand_end]` lies inside. When not, `next` is where the loop searches
    /// again (past the hole; `skipped` iterations in the same hole miss alike and are counted
    /// at once), or `None` when it gives up.
    WindowHole {
        iteration: u32,
        search: Addr,
        index: Addr,
        hole_end: Addr,
        candidate: Addr,
        cand_end: Addr,
        fits: bool,
        next: Option<Addr>,
        skipped: u32,
    },
    /// `vmap_bump_alloc` served the request from this CPU's chunk: no maple tree and no busy
    /// tree was touched. `bump` is the chunk's bump pointer after it, `pages` its outstanding pages.
    BumpHit {
        id: u32,
        cpu: u32,
        base: Addr,
        addr: Addr,
        size: Addr,
        bump: Addr,
        pages: u64,
    },
    /// The bump path missed: this CPU has no current chunk (`base` none), or the aligned
    /// request does not fit before the chunk's limit.
    BumpMiss {
        cpu: u32,
        base: Option<Addr>,
        size: Addr,
        align: Addr,
    },
    /// `vmap_bump_refill`: a 64 MiB range became a chunk, current for `cpu`; the chunk that
    /// was current (`retired`) stays on the list with its tail unused.
    BumpRefill {
        cpu: u32,
        base: Addr,
        limit: Addr,
        retired: Option<Addr>,
    },
    /// `vmap_chunk_lookup`: `addr` is outside `[lo, hi)`, so no chunk can hold it (one
    /// comparison pair, no list walk).
    BumpFastReject {
        addr: Addr,
        lo: Addr,
        hi: Addr,
    },
    /// `vmap_bump_unlink`: the area left its chunk's `page_va`; `pages` remain outstanding.
    BumpUnlink {
        id: u32,
        base: Addr,
        va_start: Addr,
        va_end: Addr,
        pages: u64,
    },
    /// The chunk's last area went and the chunk is not its owner's current one: its whole
    /// range goes back to the occupied tree now, before the lazy purge of its areas.
    BumpRelease {
        base: Addr,
        limit: Addr,
        lazy_pending: u32,
    },
    /// The busy-tree insert's overlap check (`validate_vmap_area_range_insert_mt_locked`) looks
    /// only at the neighbours in the busy tree of `node` (`addr_to_node(start)`): none overlaps
    /// `[start, end)`, so the area goes in, although `[other_start, other_end)`, kept by the
    /// busy tree of `other_node`, overlaps it. The syzbot WARN cannot fire for this pair.
    BusyOverlapMissed {
        start: Addr,
        end: Addr,
        node: u32,
        other_start: Addr,
        other_end: Addr,
        other_node: u32,
    },
}

impl Event {
    /// [`Event::Pooled`]: the area `v` is kept in pool `pool` of vmap node `node`.
    pub(crate) fn pooled(node: usize, pool: usize, v: &crate::area::VmapArea) -> Event {
        Event::Pooled { node: node as u32, pool: pool as u32, va_start: Addr(v.va_start), va_end: Addr(v.va_end) }
    }
}
