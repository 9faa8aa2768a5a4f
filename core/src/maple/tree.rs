//! The maple tree itself: node arena, the write path, the gap search, dump and validation.
//!
//! Offsets, ends and split points are kept as `usize`; where the kernel relies on `unsigned char`
//! or `unsigned long` wrap-around the code says so with `wrapping_*`.

use std::fmt::Write as _;

use serde::Serialize;
use ts_rs::TS;

use crate::addr::Addr;

const MAX: u64 = u64::MAX;
/// `MAPLE_NODE_SLOTS` on 64-bit: the "no slot" marker `mas_empty_area` tests for.
const MAPLE_NODE_SLOTS: usize = 31;
/// Room in the big node (`maple_big_node` holds 34 slots; a little slack keeps stray writes safe).
const BIG: usize = 40;
const NIL: u32 = u32::MAX;
const EINVAL: i32 = -22;
const EBUSY: i32 = -16;

/// What a leaf slot holds besides NULL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MapleEntry {
    /// `XA_ZERO_ENTRY`: an internal entry, so never kept in the root pointer.
    Zero,
    /// An opaque value (an xarray value entry), e.g. an area id for an allocator profile.
    Value(u32),
}

/// A slot: NULL, a leaf entry, or (in internal nodes) a child node id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Null,
    Entry(MapleEntry),
    Node(u32),
}

impl Slot {
    #[inline]
    fn is_null(self) -> bool {
        matches!(self, Slot::Null)
    }
    fn from_entry(e: Option<MapleEntry>) -> Slot {
        match e {
            None => Slot::Null,
            Some(e) => Slot::Entry(e),
        }
    }
}

/// The node types of a 64-bit maple tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// `maple_leaf_64`: 16 slots, 15 pivots.
    Leaf,
    /// `maple_range_64`: internal node of a tree without `MT_FLAGS_ALLOC_RANGE`.
    Range,
    /// `maple_arange_64`: internal node of an allocation tree: 10 slots, 9 pivots, gaps.
    Arange,
}

impl NodeKind {
    #[inline]
    fn slots(self) -> usize {
        match self {
            NodeKind::Leaf | NodeKind::Range => 16,
            NodeKind::Arange => 10,
        }
    }
    #[inline]
    fn pivots(self) -> usize {
        self.slots() - 1
    }
    /// `mt_min_slots`.
    #[inline]
    fn min_slots(self) -> usize {
        match self {
            NodeKind::Leaf | NodeKind::Range => 6,
            NodeKind::Arange => 4,
        }
    }
    #[inline]
    fn is_leaf(self) -> bool {
        self == NodeKind::Leaf
    }
}

/// The parent link as the kernel encodes it: none yet (a fresh node), the tree, or a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Parent {
    Null,
    Root,
    Node(u32, u8),
}

#[derive(Clone, Debug)]
struct Node {
    kind: NodeKind,
    parent: Parent,
    pivot: [u64; 15],
    slot: [Slot; 16],
    gap: [u64; 10],
    meta_end: u8,
    meta_gap: u8,
    live: bool,
}

impl Node {
    /// The first slot in `from..end` whose pivot is at or above `index`, else `end` (or `from`
    /// past `end`). The kernel walks the pivots one by one; they rise strictly up to the data
    /// end, so halving the range lands on the same slot.
    #[inline]
    fn pivot_slot(&self, from: usize, end: usize, index: u64) -> usize {
        match self.pivot.get(from..end) {
            Some(p) => from + p.partition_point(|&x| x < index),
            None => from,
        }
    }

    /// `pivot_slot` from slot 0 with `end <= 15`: the pivots below `index` among the first
    /// `end`, counted by halving steps of 8, 4, 2 and 1 (they rise strictly up to the data end,
    /// so the count is the first slot at or above `index`). No step reads past pivot 14.
    #[inline]
    fn pivot_below(&self, end: usize, index: u64) -> usize {
        let mut off = 0;
        for step in [8, 4, 2, 1] {
            if off + step <= end && self.pivot[off + step - 1] < index {
                off += step;
            }
        }
        off
    }

    /// `ma_data_end` (a node of 16 slots fills them all when its last pivot is set and is not
    /// the limit).
    #[inline]
    fn data_end(&self, max: u64) -> usize {
        if self.kind == NodeKind::Arange {
            return self.meta_end as usize;
        }
        match self.pivot[14] {
            0 => self.meta_end as usize,
            p if p == max => 14,
            _ => 15,
        }
    }

    fn new(kind: NodeKind) -> Node {
        Node {
            kind,
            parent: Parent::Null,
            pivot: [0; 15],
            slot: [Slot::Null; 16],
            gap: [0; 10],
            meta_end: 0,
            meta_gap: 0,
            live: true,
        }
    }
}

/// One node as [`MapleTree::nodes`] reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSummary {
    pub id: u32,
    /// Parent node id (`u32::MAX` for the root) and the slot this node sits in.
    pub parent: u32,
    pub parent_slot: usize,
    pub depth: u32,
    pub kind: NodeKind,
    pub min: u64,
    pub max: u64,
    /// `ma_data_end`: slots `0..=end` are used.
    pub end: usize,
    /// Arange nodes: the slot the metadata names as holding the largest gap.
    pub meta_gap: usize,
    /// Pivot of every used slot (the node's max for a slot without a pivot field).
    pub pivots: Vec<u64>,
    /// Internal nodes: child ids by slot.
    pub children: Vec<u32>,
    /// Leaves: entry by slot (`None` = NULL).
    pub entries: Vec<Option<MapleEntry>>,
    /// Arange nodes: `gap[]` by slot.
    pub gaps: Vec<u64>,
}

/// The kernel's `enum store_type`, as chosen by `mas_wr_store_type` (in JSON its kernel name,
/// `wr_…`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
pub enum StoreType {
    #[serde(rename = "wr_store_root")]
    StoreRoot,
    #[serde(rename = "wr_spanning_store")]
    SpanningStore,
    #[serde(rename = "wr_exact_fit")]
    ExactFit,
    #[serde(rename = "wr_new_root")]
    NewRoot,
    #[serde(rename = "wr_rebalance")]
    Rebalance,
    #[serde(rename = "wr_node_store")]
    NodeStore,
    #[serde(rename = "wr_split_store")]
    SplitStore,
    #[serde(rename = "wr_append")]
    Append,
    #[serde(rename = "wr_slot_store")]
    SlotStore,
}

/// A node id that may be "none" (`u32::MAX`): JSON `null` then (`#[serde(with = ...)]`).
mod nil_null {
    pub fn serialize<S: serde::Serializer>(v: &u32, s: S) -> Result<S::Ok, S::Error> {
        if *v == super::NIL {
            s.serialize_none()
        } else {
            s.serialize_some(v)
        }
    }
}

/// Step events of the maple tree's work. In JSON (an allocator's `Event::Maple`) the `kind`
/// names are those of the maple player's events (`core/wasm/src/maple.rs`), limits and gaps
/// `"0x…"` text, node ids, slots and counts numbers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MapleEvent {
    /// A store begins: the range and whether the entry is NULL (an erase).
    StoreBegin { first: Addr, last: Addr, erase: bool },
    /// `mas_wr_store_type` chose this store type (at leaf `node`, or `NIL` for a root store).
    #[serde(rename = "store_type")]
    StoreTypeChosen {
        store: StoreType,
        #[serde(with = "nil_null")]
        #[ts(as = "Option<u32>")]
        node: u32,
        new_end: usize,
    },
    /// `mab_calc_split` cut the big node after slot `cut` (`mid` for a 3-way split); the big
    /// node holds the data of `node` (the left one of a spanning store) with the new entries.
    Split { node: u32, b_end: usize, cut: usize, mid: usize },
    /// A node was pushed into a sibling instead of splitting further.
    #[serde(rename = "push_sibling")]
    PushToSibling { left: bool },
    /// `mas_rebalance`: a node below minimum fill is combined with a sibling.
    Rebalance { node: u32 },
    /// `mas_wr_spanning_store`: the write crosses node boundaries.
    Spanning { first: Addr, last: Addr },
    /// A gap was written into `node`'s `gap[slot]`; `stop` is true when propagation ends here.
    GapUpdate { node: u32, slot: usize, gap: Addr, stop: bool },
    /// Gap search: a node entered with its limits.
    #[serde(rename = "visit")]
    NodeVisited { node: u32, min: Addr, max: Addr },
    /// Gap search: a slot's gap tested against the size.
    #[serde(rename = "scan")]
    SlotScanned { node: u32, slot: usize, gap: Addr, fits: bool },
    /// Gap search: descent into a child.
    Descend { node: u32, slot: usize },
    /// Gap search: `mas_skip_node` moved to the next slot of an ancestor.
    Skip { node: u32, slot: usize },
    /// Gap search: an ascent to the parent.
    Ascend { node: u32 },
    /// Gap search result.
    #[serde(rename = "found")]
    HoleFound { index: Addr, last: Addr },
    /// Gap search failed.
    NoHole { err: i32 },
    /// The store finished; the tree's height and node count.
    StoreDone { height: u32, nodes: usize },
}

/// Receives maple step events; `ON = false` compiles every emission away.
pub trait MapleObserver {
    const ON: bool = true;
    /// True when the observer also wants the tree's nodes after each gap update (a player's
    /// frames: one level of propagation per step); off by default, and never called when off.
    const NODES: bool = false;
    fn event(&mut self, ev: MapleEvent);
    /// The tree's nodes (pre-order, as [`MapleTree::nodes`]) and height right after the last
    /// event, when `NODES` is true.
    fn nodes(&mut self, _nodes: Vec<NodeSummary>, _height: u32) {}
    /// `mab_mas_cp` filled `node` from a big node: every node the write path creates (its
    /// metadata set from the copied gaps). `gaps` is its `gap[0..=end]` (empty unless arange).
    /// Not a step event of the JSON stream; like them, never called when `ON` is false.
    fn node_filled(&mut self, _node: u32, _kind: NodeKind, _gaps: &[u64]) {}
    /// `mas_parent_gap` wrote `gap` into `node`'s `gap[slot]` (before it looks at the metadata).
    fn gap_written(&mut self, _node: u32, _slot: usize, _gap: u64) {}
}

/// Records nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMapleObserver;

impl MapleObserver for NoMapleObserver {
    const ON: bool = false;
    #[inline(always)]
    fn event(&mut self, _ev: MapleEvent) {}
}

impl MapleObserver for Vec<MapleEvent> {
    fn event(&mut self, ev: MapleEvent) {
        self.push(ev);
    }
}

/// Errors of the tree's operations (the kernel's error numbers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapleError {
    /// -EINVAL: FIRST > LAST, size 0, MIN > MAX or a window smaller than the size.
    Invalid,
    /// -EBUSY: no gap of the size in the window.
    Busy,
}

impl MapleError {
    pub fn errno(self) -> i32 {
        match self {
            MapleError::Invalid => EINVAL,
            MapleError::Busy => EBUSY,
        }
    }
}

/// A broken invariant found by [`MapleTree::validate`] (the checks of `mt_validate`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValidateError {
    Parent { node: u32, detail: String },
    Pivot { node: u32, detail: String },
    Fill { node: u32, end: usize },
    Gap { node: u32, slot: usize, stored: u64, actual: u64 },
    MetaGap { node: u32, meta: usize },
    AdjacentNull { at: u64 },
    Height { node: u32, depth: u32, height: u32 },
    Shape { node: u32, detail: String },
}

impl std::fmt::Display for ValidateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self:?}")
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Start,
    Active,
    None,
    Root,
    Err(i32),
}

/// `struct ma_state`.
#[derive(Clone, Copy, Debug)]
struct Mas {
    node: u32,
    min: u64,
    max: u64,
    index: u64,
    last: u64,
    offset: usize,
    end: usize,
    depth: u32,
    status: Status,
}

impl Mas {
    fn new(index: u64, last: u64) -> Mas {
        Mas { node: NIL, min: 0, max: MAX, index, last, offset: 0, end: 0, depth: 0, status: Status::Start }
    }
    fn is_none(&self) -> bool {
        self.status == Status::None
    }
    fn is_err(&self) -> bool {
        matches!(self.status, Status::Err(_))
    }
}

/// `struct ma_wr_state` (the maple state itself is passed alongside).
#[derive(Clone, Copy, Debug)]
struct WrMas {
    kind: NodeKind,
    r_min: u64,
    r_max: u64,
    end_piv: u64,
    offset_end: usize,
    content: Slot,
    entry: Slot,
}

impl WrMas {
    fn new(entry: Slot) -> WrMas {
        WrMas { kind: NodeKind::Leaf, r_min: 0, r_max: 0, end_piv: 0, offset_end: 0, content: Slot::Null, entry }
    }
}

/// `struct maple_big_node`.
#[derive(Clone)]
struct BigNode {
    pivot: [u64; BIG],
    slot: [Slot; BIG],
    gap: [u64; BIG],
    b_end: usize,
    kind: NodeKind,
}

impl BigNode {
    fn new() -> BigNode {
        BigNode { pivot: [0; BIG], slot: [Slot::Null; BIG], gap: [0; BIG], b_end: 0, kind: NodeKind::Leaf }
    }
    fn clear(&mut self) {
        *self = BigNode::new();
    }
}

/// `struct maple_subtree_state`, holding its maple states by value.
struct Mast {
    orig_l: Mas,
    orig_r: Mas,
    l: Mas,
    m: Mas,
    r: Mas,
    bn: BigNode,
}

/// The root pointer: empty, a single entry kept in the pointer, or a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Root {
    Empty,
    Ptr(MapleEntry),
    Node(u32),
}

/// A maple tree. `alloc` selects `MT_FLAGS_ALLOC_RANGE` (arange internal nodes with gaps).
#[derive(Clone)]
pub struct MapleTree<O: MapleObserver = NoMapleObserver> {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: Root,
    height: u32,
    alloc: bool,
    /// Nodes touched (walked by a store or a search, or created) since the counter was reset.
    touched: std::cell::Cell<u64>,
    /// Scratch for `topiary_replace`'s walks over the new and the replaced nodes (kept, so a
    /// split does not allocate).
    stack: Vec<u32>,
    pub obs: O,
}

impl Default for MapleTree {
    fn default() -> Self {
        MapleTree::new(true)
    }
}

impl MapleTree {
    /// An empty tree; `alloc` = `MT_FLAGS_ALLOC_RANGE`.
    pub fn new(alloc: bool) -> MapleTree {
        MapleTree::with_observer(alloc, NoMapleObserver)
    }
}

impl<O: MapleObserver> MapleTree<O> {
    pub fn with_observer(alloc: bool, obs: O) -> MapleTree<O> {
        MapleTree {
            nodes: Vec::new(),
            free: Vec::new(),
            root: Root::Empty,
            height: 0,
            alloc,
            touched: Default::default(),
            stack: Vec::new(),
            obs,
        }
    }

    /// The same tree with another observer (a player replays one operation with a recorder).
    pub fn with_obs<P: MapleObserver>(self, obs: P) -> MapleTree<P> {
        MapleTree {
            nodes: self.nodes,
            free: self.free,
            root: self.root,
            height: self.height,
            alloc: self.alloc,
            touched: self.touched,
            stack: self.stack,
            obs,
        }
    }

    /// The same tree with another observer, and the observer it had (an allocator lends its
    /// tree an observer for one operation and takes both back).
    pub fn replace_obs<P: MapleObserver>(self, obs: P) -> (MapleTree<P>, O) {
        let t = MapleTree {
            nodes: self.nodes,
            free: self.free,
            root: self.root,
            height: self.height,
            alloc: self.alloc,
            touched: self.touched,
            stack: self.stack,
            obs,
        };
        (t, self.obs)
    }

    /// The tree's height (0 empty, 1 a single leaf).
    pub fn height(&self) -> u32 {
        self.height
    }

    /// Live nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len() - self.free.len()
    }

    pub fn is_alloc(&self) -> bool {
        self.alloc
    }

    // ---------------------------------------------------------------- arena

    /// Nodes touched (walked by a store or a search, or created) since the last call; resets.
    pub fn take_touched(&mut self) -> u64 {
        self.touched.replace(0)
    }

    /// Room for `n` more nodes than the free list holds (no node is made; ids are unchanged).
    pub fn reserve_nodes(&mut self, n: usize) {
        let more = n.saturating_sub(self.free.len());
        self.nodes.reserve(more);
    }

    fn alloc_node(&mut self, kind: NodeKind) -> u32 {
        self.touched.set(self.touched.get() + 1);
        if let Some(id) = self.free.pop() {
            self.nodes[id as usize] = Node::new(kind);
            id
        } else {
            self.nodes.push(Node::new(kind));
            (self.nodes.len() - 1) as u32
        }
    }

    fn free_node(&mut self, id: u32) {
        if let Some(n) = self.nodes.get_mut(id as usize) {
            if n.live {
                n.live = false;
                self.free.push(id);
            }
        }
    }

    #[inline]
    fn n(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }
    #[inline]
    fn nm(&mut self, id: u32) -> &mut Node {
        &mut self.nodes[id as usize]
    }
    #[inline]
    fn kind(&self, id: u32) -> NodeKind {
        self.n(id).kind
    }
    #[inline]
    fn is_leaf(&self, id: u32) -> bool {
        self.kind(id).is_leaf()
    }
    #[inline]
    fn is_root(&self, id: u32) -> bool {
        self.n(id).parent == Parent::Root
    }
    #[inline]
    fn child(&self, id: u32, off: usize) -> u32 {
        match self.n(id).slot.get(off) {
            Some(Slot::Node(c)) => *c,
            _ => NIL,
        }
    }
    fn parent_kind(&self) -> NodeKind {
        if self.alloc {
            NodeKind::Arange
        } else {
            NodeKind::Range
        }
    }
    /// `mte_parent_slot`.
    #[inline]
    fn parent_slot(&self, id: u32) -> usize {
        match self.n(id).parent {
            Parent::Node(_, s) => s as usize,
            _ => 0,
        }
    }
    /// `mte_parent`.
    #[inline]
    fn parent_of(&self, id: u32) -> u32 {
        match self.n(id).parent {
            Parent::Node(p, _) => p,
            _ => NIL,
        }
    }
    fn set_parent(&mut self, child: u32, parent: u32, slot: usize) {
        self.nm(child).parent = Parent::Node(parent, slot as u8);
    }

    // ---------------------------------------------------------------- node reading

    /// `ma_data_end`.
    fn data_end(&self, id: u32, max: u64) -> usize {
        self.n(id).data_end(max)
    }

    fn mas_data_end(&self, mas: &Mas) -> usize {
        self.data_end(mas.node, mas.max)
    }

    /// `mas_safe_pivot`.
    #[inline]
    fn safe_pivot(&self, id: u32, piv: usize, max: u64) -> u64 {
        let n = self.n(id);
        if piv >= n.kind.pivots() {
            max
        } else {
            n.pivot[piv]
        }
    }

    /// `mas_safe_min`.
    #[inline]
    fn safe_min(&self, id: u32, offset: usize, min: u64) -> u64 {
        if offset > 0 {
            self.n(id).pivot[offset - 1].wrapping_add(1)
        } else {
            min
        }
    }

    /// `mas_leaf_max_gap`.
    fn leaf_max_gap(&self, mas: &Mas) -> u64 {
        let n = self.n(mas.node);
        let mut max_gap: u64 = 0;
        let mut i;
        if n.slot[0].is_null() {
            max_gap = n.pivot[0].wrapping_sub(mas.min).wrapping_add(1);
            i = 2;
        } else {
            i = 1;
        }
        let de = self.data_end(mas.node, mas.max);
        if de == 0 {
            return max_gap;
        }
        let max_piv = de - 1;
        if mas.max == MAX && n.slot[max_piv + 1].is_null() {
            let gap = MAX - n.pivot[max_piv];
            if gap > max_gap {
                max_gap = gap;
            }
            if max_gap > n.pivot[max_piv].wrapping_sub(mas.min) {
                return max_gap;
            }
        }
        while i <= max_piv {
            if !n.slot[i].is_null() {
                i += 1;
                continue;
            }
            let gap = n.pivot[i].wrapping_sub(n.pivot[i - 1]);
            if gap > max_gap {
                max_gap = gap;
            }
            i += 2;
        }
        max_gap
    }

    /// `ma_max_gap`: the largest gap of an arange node and its slot (ties: the highest slot).
    fn ma_max_gap(&self, id: u32) -> (u64, usize) {
        let n = self.n(id);
        let end = (n.meta_end as usize).min(9);
        let mut offset = end;
        let mut max_gap = 0;
        let mut i = end as isize;
        while i >= 0 {
            let g = n.gap[i as usize];
            if g > max_gap {
                max_gap = g;
                offset = i as usize;
            }
            i -= 1;
        }
        (max_gap, offset)
    }

    /// `mas_max_gap`.
    fn mas_max_gap(&self, mas: &Mas) -> u64 {
        if self.is_leaf(mas.node) {
            return self.leaf_max_gap(mas);
        }
        let n = self.n(mas.node);
        n.gap[(n.meta_gap as usize).min(9)]
    }

    /// `mas_parent_gap`: write `new` into the parent's gap slot and climb while it matters.
    fn parent_gap(&mut self, node: u32, mut offset: usize, mut new: u64) {
        let mut pnode = self.parent_of(node);
        loop {
            let meta_offset = self.n(pnode).meta_gap as usize;
            let meta_gap = self.n(pnode).gap[meta_offset.min(9)];
            self.nm(pnode).gap[offset] = new;
            if O::ON {
                self.obs.gap_written(pnode, offset, new);
            }
            if meta_gap == new {
                if O::ON {
                    self.obs.event(MapleEvent::GapUpdate { node: pnode, slot: offset, gap: Addr(new), stop: true });
                    self.gap_snapshot();
                }
                return;
            }
            if offset != meta_offset {
                if meta_gap > new {
                    if O::ON {
                        self.obs.event(MapleEvent::GapUpdate { node: pnode, slot: offset, gap: Addr(new), stop: true });
                        self.gap_snapshot();
                    }
                    return;
                }
                self.nm(pnode).meta_gap = offset as u8;
            } else if new < meta_gap {
                let (g, off) = self.ma_max_gap(pnode);
                new = g;
                self.nm(pnode).meta_gap = off as u8;
            }
            let at_root = self.is_root(pnode);
            if O::ON {
                self.obs.event(MapleEvent::GapUpdate { node: pnode, slot: offset, gap: Addr(new), stop: at_root });
                self.gap_snapshot();
            }
            if at_root {
                return;
            }
            offset = self.parent_slot(pnode);
            pnode = self.parent_of(pnode);
        }
    }

    /// Hand the observer the nodes after a gap update, when it asks for them.
    #[inline]
    fn gap_snapshot(&mut self) {
        if O::NODES {
            let nodes = self.nodes();
            let h = self.height;
            self.obs.nodes(nodes, h);
        }
    }

    /// `mas_update_gap`.
    fn update_gap(&mut self, mas: &Mas) {
        if !self.alloc || self.is_root(mas.node) {
            return;
        }
        let max_gap = self.mas_max_gap(mas);
        let pslot = self.parent_slot(mas.node);
        let p = self.parent_of(mas.node);
        if self.n(p).gap[pslot] != max_gap {
            self.parent_gap(mas.node, pslot, max_gap);
        } else if O::ON {
            self.obs.event(MapleEvent::GapUpdate { node: p, slot: pslot, gap: Addr(max_gap), stop: true });
            self.gap_snapshot();
        }
    }

    // ---------------------------------------------------------------- moving a maple state

    /// `mas_descend`.
    fn descend(&self, mas: &mut Mas) {
        let n = self.n(mas.node);
        if mas.offset > 0 {
            mas.min = n.pivot[mas.offset - 1].wrapping_add(1);
        }
        mas.max = self.safe_pivot(mas.node, mas.offset, mas.max);
        mas.node = self.child(mas.node, mas.offset);
    }

    /// `mas_ascend`: go to the parent and recompute its limits from the ancestors' pivots.
    fn ascend(&self, mas: &mut Mas) {
        if self.is_root(mas.node) {
            mas.offset = 0;
            return;
        }
        let p = self.parent_of(mas.node);
        if p == NIL {
            return;
        }
        mas.offset = self.parent_slot(mas.node);
        mas.node = p;
        if self.is_root(p) {
            mas.max = MAX;
            mas.min = 0;
            return;
        }
        let mut min = 0;
        let mut max = MAX;
        let mut set_min = false;
        let mut set_max = false;
        if mas.offset == 0 {
            min = mas.min;
            set_min = true;
        }
        if mas.max == MAX {
            set_max = true;
        }
        let mut cur = p;
        loop {
            let a_node = self.parent_of(cur);
            let a_slot = self.parent_slot(cur);
            if a_node == NIL {
                break;
            }
            let an = self.n(a_node);
            if !set_min && a_slot > 0 {
                set_min = true;
                min = an.pivot[a_slot - 1].wrapping_add(1);
            }
            if !set_max && a_slot < an.kind.pivots() {
                set_max = true;
                max = an.pivot[a_slot];
            }
            if self.is_root(a_node) {
                break;
            }
            cur = a_node;
            if set_min && set_max {
                break;
            }
        }
        mas.max = max;
        mas.min = min;
    }

    /// `mas_prev_sibling`.
    fn prev_sibling(&self, mas: &mut Mas) -> bool {
        let p_slot = self.parent_slot(mas.node);
        if p_slot == 0 {
            return false;
        }
        self.ascend(mas);
        mas.offset = p_slot - 1;
        self.descend(mas);
        true
    }

    /// `mas_next_sibling`.
    fn next_sibling(&self, mas: &mut Mas) -> bool {
        if self.is_root(mas.node) {
            return false;
        }
        let mut parent = *mas;
        self.ascend(&mut parent);
        parent.offset = self.parent_slot(mas.node) + 1;
        if parent.offset > self.mas_data_end(&parent) {
            return false;
        }
        *mas = parent;
        self.descend(mas);
        true
    }

    // ---------------------------------------------------------------- big node copies

    /// `mas_mab_cp`: copy slots `mas_start..=mas_end` of `mas.node` into `bn` at `mab_start`.
    fn mas_mab_cp(&self, mas: &Mas, mas_start: usize, mas_end: usize, bn: &mut BigNode, mab_start: usize) {
        let n = self.n(mas.node);
        let kind = n.kind;
        let mut i = mas_start;
        let mut j = mab_start;
        'complete: {
            if i == 0 {
                bn.pivot[j] = n.pivot[0];
                i += 1;
                if i > mas_end {
                    break 'complete;
                }
                j += 1;
            }
            let piv_end = mas_end.min(kind.pivots());
            while i < piv_end {
                bn.pivot[j] = n.pivot[i];
                if bn.pivot[j] == 0 || bn.pivot[j] == mas.max {
                    break 'complete;
                }
                i += 1;
                j += 1;
            }
            bn.pivot[j] = self.safe_pivot(mas.node, i, mas.max);
        }
        j += 1;
        bn.b_end = j;
        // Slots (and gaps) past the node's own read as NULL (and 0).
        let count = j - mab_start;
        let dst = &mut bn.slot[mab_start..j];
        let have = kind.slots().saturating_sub(mas_start).min(count);
        let from = mas_start.min(n.slot.len());
        dst[..have].copy_from_slice(&n.slot[from..from + have]);
        dst[have..].fill(Slot::Null);
        if !kind.is_leaf() && self.alloc {
            let dst = &mut bn.gap[mab_start..j];
            let have = 10usize.saturating_sub(mas_start).min(count);
            let from = mas_start.min(n.gap.len());
            dst[..have].copy_from_slice(&n.gap[from..from + have]);
            dst[have..].fill(0);
        }
    }

    /// `mab_mas_cp`: copy `bn[mab_start..=mab_end]` into the (fresh) node `mas.node`.
    fn mab_mas_cp(&mut self, bn: &BigNode, mab_start: usize, mut mab_end: usize, mas: &mut Mas, new_max: bool) {
        let alloc = self.alloc;
        let id = mas.node;
        let kind = self.kind(id);
        let npiv = kind.pivots();
        if mab_end.wrapping_sub(mab_start) > npiv && mab_end > mab_start {
            mab_end -= 1;
        }
        let node = &mut self.nodes[id as usize];
        if node.pivot[npiv - 1] == 0 {
            node.slot[npiv] = Slot::Null;
        }
        // The first pivot always, then on up to `mab_end` while the pivots are set.
        let stop = (mab_end + 1).min(BIG);
        let count = 1 + bn.pivot.get(mab_start + 1..stop).map_or(0, |p| p.iter().take_while(|&&x| x != 0).count());
        let mut i = mab_start + count;
        let mut j = count;
        let np = count.min(npiv);
        node.pivot[..np].copy_from_slice(&bn.pivot[mab_start..mab_start + np]);
        let ns = count.min(kind.slots());
        node.slot[..ns].copy_from_slice(&bn.slot[mab_start..mab_start + ns]);
        if new_max {
            mas.max = bn.pivot[i - 1];
        }
        let end = j - 1;
        if !kind.is_leaf() && alloc {
            let mut max_gap = 0;
            let mut offset = 0;
            loop {
                j -= 1;
                i -= 1;
                if j < 10 {
                    node.gap[j] = bn.gap[i];
                    if node.gap[j] > max_gap {
                        offset = j;
                        max_gap = node.gap[j];
                    }
                }
                if j == 0 {
                    break;
                }
            }
            node.meta_gap = offset as u8;
            node.meta_end = end as u8;
        } else if end < kind.slots() - 1 {
            node.meta_gap = 0;
            node.meta_end = end as u8;
        }
        if O::ON {
            let gaps = self.nodes[id as usize].gap;
            let n = if kind == NodeKind::Arange && alloc { (end + 1).min(gaps.len()) } else { 0 };
            self.obs.node_filled(id, kind, &gaps[..n]);
        }
    }

    /// `mab_shift_right`.
    fn mab_shift_right(bn: &mut BigNode, shift: usize) {
        let size = bn.b_end;
        if size + shift > BIG {
            return;
        }
        bn.pivot.copy_within(0..size, shift);
        bn.slot.copy_within(0..size, shift);
        if bn.kind == NodeKind::Arange {
            bn.gap.copy_within(0..size, shift);
        }
    }

    /// `mab_middle_node`.
    fn mab_middle_node(bn: &BigNode, split: usize, slot_count: usize) -> bool {
        let size = bn.b_end;
        if size >= 2 * slot_count {
            return true;
        }
        bn.slot[split].is_null() && size >= 2 * slot_count - 1
    }

    /// `mab_no_null_split`.
    fn mab_no_null_split(bn: &BigNode, split: usize, slot_count: usize) -> usize {
        if bn.slot[split].is_null() {
            if split < slot_count - 1 && (bn.b_end as isize - split as isize) > bn.kind.min_slots() as isize {
                return split + 1;
            }
            return split.saturating_sub(1);
        }
        split
    }

    /// `mab_calc_split`: where to cut the big node (and the second cut of a 3-way split). As in
    /// v6.16 the cut is the middle (left favoured: `b_end` is one past the data); the older loop
    /// that pushed the cut right while the left side spanned fewer than `slot_count` indices is
    /// gone (upstream 4f6a6bed0bfe, "maple_tree: simplify split calculation", v6.13).
    fn mab_calc_split(bn: &BigNode) -> (usize, usize) {
        let b_end = bn.b_end;
        let mut split = b_end / 2;
        let slot_count = bn.kind.slots();
        let mut mid_split = 0;
        if Self::mab_middle_node(bn, split, slot_count) {
            split = b_end / 3;
            mid_split = split * 2;
        }
        split = Self::mab_no_null_split(bn, split, slot_count);
        if mid_split != 0 {
            mid_split = Self::mab_no_null_split(bn, mid_split, slot_count);
        }
        (split, mid_split)
    }

    /// `mab_set_b_end`: append a (new) child node to the big node.
    fn mab_set_b_end(&self, bn: &mut BigNode, mas: &Mas, entry: u32) {
        if entry == NIL {
            return;
        }
        bn.slot[bn.b_end] = Slot::Node(entry);
        if self.alloc {
            bn.gap[bn.b_end] = self.mas_max_gap(mas);
        }
        bn.pivot[bn.b_end] = mas.max;
        bn.b_end += 1;
    }

    /// `mas_store_b_node`: the node's contents with the write applied, into `bn`.
    fn store_b_node(&self, mas: &mut Mas, wr: &mut WrMas, bn: &mut BigNode, offset_end: usize) {
        bn.kind = wr.kind;
        let mut b_end = 0;
        let slot = mas.offset;
        let mut piv;
        if slot > 0 {
            self.mas_mab_cp(mas, 0, slot - 1, bn, 0);
            b_end = bn.b_end;
            piv = bn.pivot[b_end - 1];
        } else {
            piv = mas.min.wrapping_sub(1);
        }
        if piv.wrapping_add(1) < mas.index {
            bn.slot[b_end] = wr.content;
            if wr.content.is_null() {
                bn.gap[b_end] = mas.index.wrapping_sub(1).wrapping_sub(piv);
            }
            bn.pivot[b_end] = mas.index - 1;
            b_end += 1;
        }
        mas.offset = b_end;
        bn.slot[b_end] = wr.entry;
        bn.pivot[b_end] = mas.last;
        if mas.last >= mas.max {
            bn.b_end = b_end;
            return;
        }
        piv = self.safe_pivot(mas.node, offset_end, mas.max);
        if piv > mas.last {
            if offset_end != slot {
                wr.content = self.n(mas.node).slot[offset_end];
            }
            b_end += 1;
            bn.slot[b_end] = wr.content;
            if wr.content.is_null() {
                bn.gap[b_end] = piv - mas.last + 1;
            }
            bn.pivot[b_end] = piv;
        }
        let slot = offset_end + 1;
        if slot > mas.end {
            bn.b_end = b_end;
            return;
        }
        self.mas_mab_cp(mas, slot, mas.end + 1, bn, b_end + 1);
        bn.b_end -= 1;
    }

    // ---------------------------------------------------------------- write walk

    /// `mas_start`: returns the root entry when the tree is a root pointer and index is 0.
    fn mas_start(&self, mas: &mut Mas) -> Slot {
        mas.min = 0;
        mas.max = MAX;
        mas.depth = 0;
        match self.root {
            Root::Node(id) => {
                mas.depth = 1;
                mas.status = Status::Active;
                mas.node = id;
                mas.offset = 0;
                Slot::Null
            }
            Root::Empty => {
                mas.node = NIL;
                mas.status = Status::None;
                mas.offset = MAPLE_NODE_SLOTS;
                Slot::Null
            }
            Root::Ptr(e) => {
                mas.node = NIL;
                mas.status = Status::Root;
                mas.offset = MAPLE_NODE_SLOTS;
                if mas.index > 0 {
                    Slot::Null
                } else {
                    Slot::Entry(e)
                }
            }
        }
    }

    /// `mas_wr_node_walk`.
    fn wr_node_walk(&self, mas: &mut Mas, wr: &mut WrMas) {
        self.touched.set(self.touched.get() + 1);
        let count = self.data_end(mas.node, mas.max);
        mas.end = count;
        let n = self.n(mas.node);
        let offset = n.pivot_slot(mas.offset, count, mas.index);
        wr.r_max = if offset < count { n.pivot[offset] } else { mas.max };
        wr.r_min = self.safe_min(mas.node, offset, mas.min);
        wr.offset_end = offset;
        mas.offset = offset;
    }

    fn wr_walk_descend(&self, mas: &mut Mas, wr: &mut WrMas) {
        wr.kind = self.kind(mas.node);
        self.wr_node_walk(mas, wr);
    }

    fn wr_walk_traverse(&self, mas: &mut Mas, wr: &WrMas) {
        mas.max = wr.r_max;
        mas.min = wr.r_min;
        mas.node = match wr.content {
            Slot::Node(c) => c,
            _ => NIL,
        };
        mas.offset = 0;
        mas.depth += 1;
    }

    /// `mas_wr_walk`: false when the write spans nodes.
    /// Each level is `mas_wr_walk_descend`, `mas_is_span_wr` and `mas_wr_walk_traverse`, run on
    /// locals and written back to `mas` and `wr` once at the end.
    fn wr_walk(&self, mas: &mut Mas, wr: &mut WrMas) -> bool {
        let (index, last) = (mas.index, mas.last);
        // mas_is_span_wr: a write ending on the limit does not span, unless it stores NULL
        // below MAX.
        let stay = !wr.entry.is_null() || last == MAX;
        let (mut node, mut min, mut max, mut offset) = (mas.node, mas.min, mas.max, mas.offset);
        let depth0 = mas.depth;
        let mut depth = depth0;
        let mut content = wr.content;
        let (kind, end, off, r_min, r_max, leaf) = loop {
            let n = self.n(node);
            let kind = n.kind;
            let end = n.data_end(max);
            let lim = end.min(15);
            let off = n.pivot_below(lim, index).max(offset.min(lim));
            let r_max = if off < lim { n.pivot[off] } else { max };
            let r_min = if off > 0 { n.pivot[off - 1].wrapping_add(1) } else { min };
            if last >= r_max {
                let top = if kind.is_leaf() { max } else { r_max };
                if last >= top && !(last == top && stay) {
                    break (kind, end, off, r_min, r_max, false);
                }
            }
            content = n.slot[off];
            if kind.is_leaf() {
                break (kind, end, off, r_min, r_max, true);
            }
            (min, max) = (r_min, r_max);
            node = match content {
                Slot::Node(c) => c,
                _ => NIL,
            };
            offset = 0;
            depth += 1;
        };
        self.touched.set(self.touched.get() + u64::from(depth - depth0) + 1);
        (mas.node, mas.min, mas.max, mas.offset, mas.end, mas.depth) = (node, min, max, off, end, depth);
        (wr.kind, wr.r_min, wr.r_max, wr.offset_end, wr.content) = (kind, r_min, r_max, off, content);
        leaf
    }

    /// `mas_wr_walk_index`.
    fn wr_walk_index(&self, mas: &mut Mas, wr: &mut WrMas) {
        loop {
            self.wr_walk_descend(mas, wr);
            wr.content = self.n(mas.node).slot[mas.offset];
            if wr.kind.is_leaf() {
                return;
            }
            self.wr_walk_traverse(mas, wr);
        }
    }

    /// `mas_wr_end_piv`.
    fn wr_end_piv(&self, mas: &Mas, wr: &mut WrMas) {
        let n = self.n(mas.node);
        while wr.offset_end < mas.end && mas.last > n.pivot[wr.offset_end] {
            wr.offset_end += 1;
        }
        wr.end_piv = if wr.offset_end < mas.end { n.pivot[wr.offset_end] } else { mas.max };
    }

    /// `mas_wr_extend_null`: a NULL store swallows the NULL ranges beside it.
    fn wr_extend_null(&self, mas: &mut Mas, wr: &mut WrMas) {
        let n = self.n(mas.node);
        if n.slot[wr.offset_end].is_null() {
            mas.last = wr.end_piv;
        } else if mas.last == wr.end_piv
            && mas.end != wr.offset_end
            && n.slot.get(wr.offset_end + 1).is_some_and(|s| s.is_null())
        {
            wr.offset_end += 1;
            if wr.offset_end == mas.end {
                mas.last = mas.max;
            } else {
                mas.last = n.pivot[wr.offset_end];
            }
            wr.end_piv = mas.last;
        }
        if wr.content.is_null() {
            mas.index = wr.r_min;
        } else if mas.index == wr.r_min && mas.offset > 0 && n.slot[mas.offset - 1].is_null() {
            mas.offset -= 1;
            mas.index = self.safe_min(mas.node, mas.offset, mas.min);
            wr.r_min = mas.index;
            wr.r_max = n.pivot[mas.offset];
        }
    }

    /// `mas_wr_new_end`.
    fn wr_new_end(mas: &Mas, wr: &WrMas) -> usize {
        let mut new_end = mas.end as isize + 2;
        new_end -= wr.offset_end as isize - mas.offset as isize;
        if wr.r_min == mas.index {
            new_end -= 1;
        }
        if wr.end_piv == mas.last {
            new_end -= 1;
        }
        new_end.max(0) as usize
    }

    /// `mas_wr_store_type`.
    fn wr_store_type(&self, mas: &mut Mas, wr: &mut WrMas) -> StoreType {
        if mas.is_none() || mas.status == Status::Root {
            return StoreType::StoreRoot;
        }
        if !self.wr_walk(mas, wr) {
            return StoreType::SpanningStore;
        }
        self.wr_end_piv(mas, wr);
        if wr.entry.is_null() {
            self.wr_extend_null(mas, wr);
        }
        if wr.r_min == mas.index && wr.r_max == mas.last {
            return StoreType::ExactFit;
        }
        if mas.index == 0 && mas.last == MAX {
            return StoreType::NewRoot;
        }
        let new_end = Self::wr_new_end(mas, wr);
        if new_end < wr.kind.min_slots() {
            if !self.is_root(mas.node) {
                return StoreType::Rebalance;
            }
            return StoreType::NodeStore;
        }
        if new_end >= wr.kind.slots() {
            return StoreType::SplitStore;
        }
        if mas.offset == mas.end {
            return StoreType::Append;
        }
        if new_end == mas.end {
            return StoreType::SlotStore;
        }
        StoreType::NodeStore
    }

    // ---------------------------------------------------------------- public operations

    /// `mtree_store_range(first, last, entry)`; `None` stores NULL (an erase of the range).
    pub fn store_range(&mut self, first: u64, last: u64, entry: Option<MapleEntry>) -> Result<(), MapleError> {
        if first > last {
            return Err(MapleError::Invalid);
        }
        if O::ON {
            self.obs.event(MapleEvent::StoreBegin { first: Addr(first), last: Addr(last), erase: entry.is_none() });
        }
        let mut mas = Mas::new(first, last);
        let mut wr = WrMas::new(Slot::from_entry(entry));
        wr.content = self.mas_start(&mut mas);
        let st = self.wr_store_type(&mut mas, &mut wr);
        let new_end = Self::wr_new_end(&mas, &wr);
        if O::ON {
            let node = if matches!(st, StoreType::StoreRoot) { NIL } else { mas.node };
            self.obs.event(MapleEvent::StoreTypeChosen { store: st, node, new_end });
        }
        match st {
            StoreType::NewRoot => self.new_root(&mut mas, wr.entry),
            StoreType::StoreRoot => self.store_root(&mut mas, wr.entry),
            StoreType::ExactFit => {
                self.nm(mas.node).slot[mas.offset] = wr.entry;
                if wr.entry.is_null() != wr.content.is_null() {
                    self.update_gap(&mas);
                }
            }
            StoreType::Append => self.wr_append(&mut mas, &mut wr, new_end),
            StoreType::SlotStore => self.wr_slot_store(&mut mas, &mut wr),
            StoreType::NodeStore => self.wr_node_store(&mut mas, &mut wr, new_end),
            StoreType::SpanningStore => self.wr_spanning_store(&mut mas, &mut wr),
            StoreType::Rebalance => {
                let mut bn = BigNode::new();
                let oe = wr.offset_end;
                self.store_b_node(&mut mas, &mut wr, &mut bn, oe);
                self.rebalance(&mut mas, bn);
            }
            StoreType::SplitStore => {
                // The split's state is built here, its big node filled in place (not moved).
                let blank = Mas::new(mas.index, mas.last);
                let mut mast = Mast { orig_l: blank, orig_r: blank, l: blank, m: blank, r: blank, bn: BigNode::new() };
                let oe = wr.offset_end;
                self.store_b_node(&mut mas, &mut wr, &mut mast.bn, oe);
                self.split(&mut mas, &mut mast);
            }
        }
        if O::ON {
            let nodes = self.node_count();
            self.obs.event(MapleEvent::StoreDone { height: self.height, nodes });
        }
        Ok(())
    }

    /// Erase = a NULL store over the range.
    pub fn erase_range(&mut self, first: u64, last: u64) -> Result<(), MapleError> {
        self.store_range(first, last, None)
    }

    /// `mtree_load` (returns the raw entry, the zero entry included).
    pub fn load(&self, index: u64) -> Option<MapleEntry> {
        let mut id = match self.root {
            Root::Empty => return None,
            Root::Ptr(e) => return if index == 0 { Some(e) } else { None },
            Root::Node(id) => id,
        };
        loop {
            let n = self.n(id);
            let np = n.kind.pivots();
            let mut off = 0;
            while off < np && n.pivot[off] < index {
                off += 1;
            }
            match n.slot[off] {
                Slot::Node(c) => id = c,
                Slot::Entry(e) => return Some(e),
                Slot::Null => return None,
            }
        }
    }

    /// The range holding `index` (`mas_walk`): `(first, last, entry)`, NULL ranges included.
    pub fn range_at(&self, index: u64) -> (u64, u64, Option<MapleEntry>) {
        let (mut id, mut min, mut max) = match self.root {
            Root::Empty => return (0, MAX, None),
            Root::Ptr(e) => return if index == 0 { (0, 0, Some(e)) } else { (1, MAX, None) },
            Root::Node(id) => (id, 0, MAX),
        };
        loop {
            let n = self.n(id);
            let end = self.data_end(id, max).min(n.kind.slots() - 1);
            let off = n.pivot_slot(0, end, index);
            let lo = if off == 0 { min } else { n.pivot[off - 1].wrapping_add(1) };
            let hi = if off == end { max } else { n.pivot[off] };
            match self.n(id).slot[off] {
                Slot::Node(c) => {
                    id = c;
                    min = lo;
                    max = hi;
                }
                Slot::Entry(e) => return (lo, hi, Some(e)),
                Slot::Null => return (lo, hi, None),
            }
        }
    }

    /// Every range of the tree in order, NULL ranges included: `(first, last, entry)`.
    pub fn ranges(&self) -> Vec<(u64, u64, Option<MapleEntry>)> {
        let mut out = Vec::new();
        match self.root {
            Root::Empty => out.push((0, MAX, None)),
            Root::Ptr(e) => {
                out.push((0, 0, Some(e)));
                out.push((1, MAX, None));
            }
            Root::Node(id) => self.collect(id, 0, MAX, &mut out),
        }
        out
    }

    fn collect(&self, id: u32, min: u64, max: u64, out: &mut Vec<(u64, u64, Option<MapleEntry>)>) {
        let end = self.data_end(id, max);
        let mut lo = min;
        for i in 0..=end {
            let hi = self.safe_pivot(id, i, max);
            match self.n(id).slot[i] {
                Slot::Node(c) => self.collect(c, lo, hi, out),
                Slot::Entry(e) => out.push((lo, hi, Some(e))),
                Slot::Null => out.push((lo, hi, None)),
            }
            if hi == MAX {
                break;
            }
            lo = hi + 1;
        }
    }

    /// The stored (non-NULL) ranges in order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64, MapleEntry)> {
        self.ranges().into_iter().filter_map(|(a, b, e)| e.map(|e| (a, b, e)))
    }

    /// The stored range at or below `index`, with a cursor to walk on downwards.
    pub fn rev_cursor(&self, index: u64) -> (RevCursor, Option<(u64, u64, MapleEntry)>) {
        let mut c = RevCursor::default();
        let r = c.seek(self, index);
        (c, r)
    }

    // ---------------------------------------------------------------- root stores

    /// `mas_new_root`.
    fn new_root(&mut self, mas: &mut Mas, entry: Slot) {
        let old = self.root;
        if entry.is_null() {
            mas.depth = 0;
            self.height = 0;
            self.root = Root::Empty;
        } else {
            let id = self.alloc_node(NodeKind::Leaf);
            let n = self.nm(id);
            n.parent = Parent::Root;
            n.slot[0] = entry;
            n.pivot[0] = mas.last;
            self.height = 1;
            self.root = Root::Node(id);
        }
        if let Root::Node(o) = old {
            self.destroy_subtree(o);
        }
    }

    fn destroy_subtree(&mut self, id: u32) {
        let mut stack = vec![id];
        while let Some(x) = stack.pop() {
            if !self.is_leaf(x) {
                for s in self.n(x).slot {
                    if let Slot::Node(c) = s {
                        if self.parent_of(c) == x {
                            stack.push(c);
                        }
                    }
                }
            }
            self.free_node(x);
        }
    }

    /// `mas_store_root`.
    fn store_root(&mut self, mas: &mut Mas, entry: Slot) {
        match entry {
            Slot::Null => {
                if mas.index == 0 {
                    self.root = Root::Empty;
                }
            }
            Slot::Entry(e) => {
                if mas.last != 0 || mas.index != 0 || e == MapleEntry::Zero {
                    self.root_expand(mas, entry);
                } else {
                    self.root = Root::Ptr(e);
                }
            }
            Slot::Node(_) => {}
        }
    }

    /// `mas_root_expand`.
    fn root_expand(&mut self, mas: &mut Mas, entry: Slot) {
        let contents = match self.root {
            Root::Ptr(e) => Slot::Entry(e),
            _ => Slot::Null,
        };
        let id = self.alloc_node(NodeKind::Leaf);
        let n = &mut self.nodes[id as usize];
        n.parent = Parent::Root;
        let mut slot = 0;
        if mas.index > 0 {
            if !contents.is_null() {
                n.slot[slot] = contents;
                if mas.index > 1 {
                    slot += 1;
                }
            }
            n.pivot[slot] = mas.index - 1;
            slot += 1;
        }
        n.slot[slot] = entry;
        mas.offset = slot;
        n.pivot[slot] = mas.last;
        if mas.last != MAX {
            slot += 1;
            n.pivot[slot] = MAX;
        }
        n.meta_gap = 0;
        n.meta_end = slot as u8;
        mas.depth = 1;
        self.height = 1;
        mas.node = id;
        mas.status = Status::Active;
        self.root = Root::Node(id);
    }

    // ---------------------------------------------------------------- in-place stores

    /// `mas_wr_append`.
    fn wr_append(&mut self, mas: &mut Mas, wr: &mut WrMas, new_end: usize) {
        let end = mas.end;
        let kind = wr.kind;
        let n = &mut self.nodes[mas.node as usize];
        if new_end < kind.pivots() {
            n.pivot[new_end] = n.pivot[end];
            n.meta_gap = 0;
            n.meta_end = new_end as u8;
        }
        if new_end == end + 1 {
            if mas.last == wr.r_max {
                n.slot[new_end] = wr.entry;
                n.pivot[end] = mas.index - 1;
                mas.offset = new_end;
            } else {
                n.slot[new_end] = wr.content;
                n.pivot[end] = mas.last;
                n.slot[end] = wr.entry;
            }
        } else {
            n.slot[new_end] = wr.content;
            n.pivot[end + 1] = mas.last;
            n.slot[end + 1] = wr.entry;
            n.pivot[end] = mas.index - 1;
            mas.offset = end + 1;
        }
        if wr.content.is_null() || wr.entry.is_null() {
            self.update_gap(mas);
        }
        mas.end = new_end;
    }

    /// `mas_wr_slot_store`.
    fn wr_slot_store(&mut self, mas: &mut Mas, wr: &mut WrMas) {
        let offset = mas.offset;
        let n = &mut self.nodes[mas.node as usize];
        let mut gap = n.slot[offset].is_null() || n.slot[offset + 1].is_null();
        if wr.offset_end - offset == 1 {
            if mas.index == wr.r_min {
                n.slot[offset] = wr.entry;
                n.pivot[offset] = mas.last;
            } else {
                n.slot[offset + 1] = wr.entry;
                n.pivot[offset] = mas.index - 1;
                mas.offset += 1;
            }
        } else {
            gap |= n.slot[offset + 2].is_null();
            n.slot[offset + 1] = wr.entry;
            n.pivot[offset] = mas.index - 1;
            n.pivot[offset + 1] = mas.last;
            mas.offset += 1;
        }
        if wr.entry.is_null() || gap {
            self.update_gap(mas);
        }
    }

    /// `mas_wr_node_store`: rewrite the leaf (in place: the tree is not in RCU mode).
    fn wr_node_store(&mut self, mas: &mut Mas, wr: &mut WrMas, new_end: usize) {
        let mut offset_end = wr.offset_end;
        let node_pivots = wr.kind.pivots();
        if mas.last == wr.end_piv {
            offset_end += 1;
        }
        // A fresh node of the same kind and parent, built in place from a copy of the old one's
        // pivots and slots.
        let nn = &mut self.nodes[mas.node as usize];
        let old_pivot = nn.pivot;
        let old_slot = nn.slot;
        nn.pivot = [0; 15];
        nn.slot = [Slot::Null; 16];
        nn.gap = [0; 10];
        nn.meta_end = 0;
        nn.meta_gap = 0;
        nn.pivot[..mas.offset].copy_from_slice(&old_pivot[..mas.offset]);
        nn.slot[..mas.offset].copy_from_slice(&old_slot[..mas.offset]);
        if wr.r_min < mas.index {
            nn.slot[mas.offset] = wr.content;
            nn.pivot[mas.offset] = mas.index - 1;
            mas.offset += 1;
        }
        if mas.offset < node_pivots {
            nn.pivot[mas.offset] = mas.last;
        }
        nn.slot[mas.offset] = wr.entry;
        if offset_end <= mas.end {
            let dst_offset = mas.offset + 1;
            let copy_size = mas.end - offset_end + 1;
            // The tail: `copy_size` slots and one pivot fewer, as far as both nodes reach.
            let room = |len: usize| len.saturating_sub(dst_offset).min(len.saturating_sub(offset_end));
            let ns = copy_size.min(room(16));
            nn.slot[dst_offset..dst_offset + ns].copy_from_slice(&old_slot[offset_end..offset_end + ns]);
            let np = (copy_size - 1).min(room(15));
            nn.pivot[dst_offset..dst_offset + np].copy_from_slice(&old_pivot[offset_end..offset_end + np]);
            if new_end < node_pivots {
                nn.pivot[new_end] = mas.max;
            }
        }
        if new_end < 15 {
            nn.meta_gap = 0;
            nn.meta_end = new_end as u8;
        }
        self.update_gap(mas);
        mas.end = new_end;
    }

    // ---------------------------------------------------------------- replacing subtrees

    /// `mas_put_in_tree`.
    fn put_in_tree(&mut self, mas: &Mas) {
        if self.is_root(mas.node) {
            self.root = Root::Node(mas.node);
            self.height = mas.depth;
        } else {
            let p = self.parent_of(mas.node);
            let s = self.parent_slot(mas.node);
            self.nm(p).slot[s] = Slot::Node(mas.node);
        }
    }

    /// `mas_topiary_replace`: link the new subtree in, fix the parent links below it, free the
    /// nodes it replaced.
    fn topiary_replace(&mut self, mas: &Mas, old: u32) {
        self.put_in_tree(mas);
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        // Children of new nodes point at them already; adopt all children of every new node.
        stack.push(mas.node);
        while let Some(x) = stack.pop() {
            let n = self.n(x);
            if n.kind.is_leaf() {
                continue;
            }
            let (slots, count) = (n.slot, n.kind.slots());
            for (i, &sl) in slots[..count].iter().enumerate() {
                if let Slot::Node(c) = sl {
                    let child = self.nm(c);
                    let was_new = matches!(child.parent, Parent::Node(p, _) if p == x);
                    child.parent = Parent::Node(x, i as u8);
                    if was_new {
                        stack.push(c);
                    }
                }
            }
        }
        // The replaced nodes: the old top and, below it, every node still pointing at a dead one.
        stack.push(old);
        while let Some(x) = stack.pop() {
            let n = self.n(x);
            if !n.kind.is_leaf() {
                for &sl in &n.slot {
                    if let Slot::Node(c) = sl {
                        let child = self.n(c);
                        if child.live && matches!(child.parent, Parent::Node(p, _) if p == x) {
                            stack.push(c);
                        }
                    }
                }
            }
            self.free_node(x);
        }
        self.stack = stack;
    }

    /// `mas_wmb_replace`.
    fn wmb_replace(&mut self, mas: &Mas, old: u32) {
        self.topiary_replace(mas, old);
        if self.is_leaf(mas.node) {
            return;
        }
        self.update_gap(mas);
    }

    // ---------------------------------------------------------------- rebalance and spanning

    fn mast_rebalance_next(&self, mast: &mut Mast) {
        let b_end = mast.bn.b_end;
        let sc = self.kind(mast.orig_r.node).slots();
        self.mas_mab_cp(&mast.orig_r, 0, sc, &mut mast.bn, b_end);
        mast.orig_r.last = mast.orig_r.max;
    }

    fn mast_rebalance_prev(&self, mast: &mut Mast) {
        let end = self.mas_data_end(&mast.orig_l) + 1;
        let b_end = mast.bn.b_end;
        Self::mab_shift_right(&mut mast.bn, end);
        self.mas_mab_cp(&mast.orig_l, 0, end - 1, &mut mast.bn, 0);
        mast.l.min = mast.orig_l.min;
        mast.orig_l.index = mast.orig_l.min;
        mast.bn.b_end = end + b_end;
        mast.l.offset += end;
    }

    /// `mast_spanning_rebalance`: pull in the nearest neighbour (right first) at the lowest level
    /// that has one.
    fn mast_spanning_rebalance(&self, mast: &mut Mast) -> bool {
        let r_tmp = mast.orig_r;
        let l_tmp = mast.orig_l;
        let mut depth = 0;
        loop {
            self.ascend(&mut mast.orig_r);
            self.ascend(&mut mast.orig_l);
            depth += 1;
            if mast.orig_r.offset < self.mas_data_end(&mast.orig_r) {
                mast.orig_r.offset += 1;
                loop {
                    self.descend(&mut mast.orig_r);
                    mast.orig_r.offset = 0;
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                self.mast_rebalance_next(mast);
                mast.orig_l = l_tmp;
                return true;
            } else if mast.orig_l.offset != 0 {
                mast.orig_l.offset -= 1;
                loop {
                    self.descend(&mut mast.orig_l);
                    mast.orig_l.offset = self.mas_data_end(&mast.orig_l);
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                self.mast_rebalance_prev(mast);
                mast.orig_r = r_tmp;
                return true;
            }
            if self.is_root(mast.orig_r.node) {
                break;
            }
        }
        mast.orig_r = r_tmp;
        mast.orig_l = l_tmp;
        false
    }

    /// `mast_ascend`.
    fn mast_ascend(&self, mast: &mut Mast) {
        self.ascend(&mut mast.orig_l);
        self.ascend(&mut mast.orig_r);
        mast.orig_r.offset = 0;
        mast.orig_r.index = mast.r.max;
        if mast.orig_r.last < mast.orig_r.index {
            mast.orig_r.last = mast.orig_r.index;
        }
        let mut wr = WrMas::new(Slot::Null);
        wr.kind = self.kind(mast.orig_r.node);
        self.wr_node_walk(&mut mast.orig_r, &mut wr);
        mast.orig_l.offset = 0;
        mast.orig_l.index = mast.l.min;
        wr.kind = self.kind(mast.orig_l.node);
        self.wr_node_walk(&mut mast.orig_l, &mut wr);
        mast.bn.kind = wr.kind;
    }

    /// `mas_mab_to_node`: allocate left (and right, middle) for the big node; the cut points.
    fn mab_to_node(&mut self, bn: &BigNode, node: u32) -> (u32, u32, u32, usize, usize) {
        let slot_count = bn.kind.slots();
        let left = self.alloc_node(bn.kind);
        let mut right = NIL;
        let mut middle = NIL;
        let split;
        let mut mid_split = 0;
        if bn.b_end < slot_count {
            split = bn.b_end;
        } else {
            let (s, m) = Self::mab_calc_split(bn);
            split = s;
            mid_split = m;
            if O::ON {
                self.obs.event(MapleEvent::Split { node, b_end: bn.b_end, cut: s, mid: m });
            }
            right = self.alloc_node(bn.kind);
        }
        if mid_split != 0 {
            middle = self.alloc_node(bn.kind);
        }
        (left, right, middle, split, mid_split)
    }

    /// `mas_set_split_parent`.
    fn set_split_parent(&mut self, mas: &Mas, left: u32, right: u32, slot: &mut usize, split: usize) {
        if mas.is_none() {
            return;
        }
        if *slot <= split {
            self.set_parent(mas.node, left, *slot);
        } else if right != NIL {
            self.set_parent(mas.node, right, *slot - split - 1);
        }
        *slot += 1;
    }

    /// `mast_set_split_parents`.
    fn mast_set_split_parents(
        &mut self,
        mast: &Mast,
        left: u32,
        middle: u32,
        right: u32,
        split: usize,
        mid_split: usize,
    ) {
        if mast.l.is_none() {
            return;
        }
        let mut l = left;
        let mut r = right;
        let mut split = split;
        if middle != NIL {
            r = middle;
        }
        let mut slot = mast.l.offset;
        let check = |l: &mut u32, r: &mut u32, split: &mut usize, slot: usize| {
            if *r == right || slot < mid_split {
                return;
            }
            *l = *r;
            *r = right;
            *split = mid_split;
        };
        check(&mut l, &mut r, &mut split, slot);
        self.set_split_parent(&mast.l, l, r, &mut slot, split);
        check(&mut l, &mut r, &mut split, slot);
        self.set_split_parent(&mast.m, l, r, &mut slot, split);
        check(&mut l, &mut r, &mut split, slot);
        self.set_split_parent(&mast.r, l, r, &mut slot, split);
    }

    fn node_or_none(mas: &mut Mas, node: u32) {
        if node != NIL {
            mas.node = node;
            mas.status = Status::Active;
        } else {
            mas.node = NIL;
            mas.status = Status::None;
        }
    }

    /// `mast_cp_to_nodes`.
    fn mast_cp_to_nodes(
        &mut self,
        mast: &mut Mast,
        left: u32,
        middle: u32,
        right: u32,
        split: usize,
        mid_split: usize,
    ) {
        let mut split = split;
        Self::node_or_none(&mut mast.l, left);
        Self::node_or_none(&mut mast.m, middle);
        Self::node_or_none(&mut mast.r, right);
        mast.l.min = mast.orig_l.min;
        let mut new_lmax = true;
        if split == mast.bn.b_end {
            mast.l.max = mast.orig_r.max;
            new_lmax = false;
        }
        let bn = &mast.bn;
        self.mab_mas_cp(bn, 0, split, &mut mast.l, new_lmax);
        if middle != NIL {
            self.mab_mas_cp(bn, 1 + split, mid_split, &mut mast.m, true);
            mast.m.min = bn.pivot[split].wrapping_add(1);
            split = mid_split;
        }
        mast.r.max = mast.orig_r.max;
        if right != NIL {
            self.mab_mas_cp(bn, 1 + split, bn.b_end, &mut mast.r, false);
            mast.r.min = bn.pivot[split].wrapping_add(1);
        }
    }

    fn mast_combine_cp_left(&self, mast: &mut Mast) {
        let l_slot = mast.orig_l.offset;
        if l_slot == 0 {
            return;
        }
        self.mas_mab_cp(&mast.orig_l, 0, l_slot - 1, &mut mast.bn, 0);
    }

    fn mast_combine_cp_right(&self, mast: &mut Mast) {
        if mast.bn.b_end == 0 || mast.bn.pivot[mast.bn.b_end - 1] >= mast.orig_r.max {
            return;
        }
        let sc = self.kind(mast.orig_r.node).slots();
        let be = mast.bn.b_end;
        self.mas_mab_cp(&mast.orig_r, mast.orig_r.offset + 1, sc, &mut mast.bn, be);
        mast.orig_r.last = mast.orig_r.max;
    }

    fn is_root_limits(mas: &Mas) -> bool {
        mas.min == 0 && mas.max == MAX
    }

    /// `mas_spanning_rebalance`: rebuild the levels from the leaves up until the data fits.
    fn spanning_rebalance(&mut self, mas: &mut Mas, mast: &mut Mast, mut count: u32) {
        let mut slot = 0;
        let (mut left, mut middle, mut right) = (NIL, NIL, NIL);
        mast.l = Mas::new(mas.index, mas.index);
        mast.m = Mas::new(mas.index, mas.index);
        mast.r = Mas::new(mas.index, mas.last);
        mast.l.status = Status::None;
        mast.m.status = Status::None;
        mast.r.status = Status::None;
        if (mast.orig_l.min != 0 || mast.orig_r.max != MAX) && mast.bn.b_end <= mast.bn.kind.min_slots() {
            self.mast_spanning_rebalance(mast);
        }
        mast.l.depth = 0;
        let mut new_root_jump = false;
        while count > 0 {
            count -= 1;
            mast.bn.b_end = mast.bn.b_end.saturating_sub(1);
            mast.bn.kind = self.kind(mast.orig_l.node);
            let (l, r, m, split, mid_split) = self.mab_to_node(&mast.bn, mast.orig_l.node);
            left = l;
            right = r;
            middle = m;
            self.mast_set_split_parents(mast, left, middle, right, split, mid_split);
            self.mast_cp_to_nodes(mast, left, middle, right, split, mid_split);
            mast.bn.clear();
            mast.bn.kind = self.kind(left);
            mast.l.depth += 1;
            if Self::is_root_limits(&mast.l) {
                new_root_jump = true;
                break;
            }
            self.mast_ascend(mast);
            self.mast_combine_cp_left(mast);
            mast.l.offset = mast.bn.b_end;
            let (lm, mm, rm) = (mast.l, mast.m, mast.r);
            self.mab_set_b_end(&mut mast.bn, &lm, left);
            self.mab_set_b_end(&mut mast.bn, &mm, middle);
            self.mab_set_b_end(&mut mast.bn, &rm, right);
            self.mast_combine_cp_right(mast);
            mast.orig_l.last = mast.orig_l.max;
            // mast_sufficient
            if mast.bn.b_end > self.kind(mast.orig_l.node).min_slots() {
                // mast_overflow: strictly more entries than slots (b_end is one past the last,
                // so a big node of exactly `slots` entries still fits one node).
                if mast.bn.b_end > self.kind(mast.orig_l.node).slots() {
                    continue;
                }
                // v6.16: when both sides reached one node and its data fits, that node is the
                // last one rebuilt; the levels above keep their nodes (and their metadata), and
                // only the gap is carried up by `mas_wmb_replace`.
                if mast.orig_l.node == mast.orig_r.node {
                    slot = mast.l.offset;
                    break;
                }
                continue;
            }
            if Self::is_root_limits(&mast.orig_l) {
                break;
            }
            self.mast_spanning_rebalance(mast);
            if count == 0 {
                count += 1;
            }
        }
        if !new_root_jump {
            let top = self.alloc_node(self.kind(mast.orig_l.node));
            mast.l.node = top;
            mast.l.depth += 1;
            let bn = &mast.bn;
            let last = bn.kind.slots() - 1;
            self.mab_mas_cp(bn, 0, last, &mut mast.l, true);
            self.set_parent(left, top, slot);
            if middle != NIL {
                slot += 1;
                self.set_parent(middle, top, slot);
            }
            if right != NIL {
                slot += 1;
                self.set_parent(right, top, slot);
            }
        }
        if new_root_jump || Self::is_root_limits(&mast.l) {
            let ln = mast.l.node;
            self.nm(ln).parent = Parent::Root;
            while !self.is_root(mast.orig_l.node) {
                self.mast_ascend(mast);
            }
        } else {
            let p = self.n(mast.orig_l.node).parent;
            let ln = mast.l.node;
            self.nm(ln).parent = p;
        }
        let old = mast.orig_l.node;
        mas.depth = mast.l.depth;
        mas.node = mast.l.node;
        mas.min = mast.l.min;
        mas.max = mast.l.max;
        mas.offset = mast.l.offset;
        self.wmb_replace(mas, old);
    }

    /// `mas_rebalance`.
    fn rebalance(&mut self, mas: &mut Mas, mut bn: BigNode) {
        if O::ON {
            self.obs.event(MapleEvent::Rebalance { node: mas.node });
        }
        let empty_count = self.height;
        bn.b_end += 1;
        let b_end = bn.b_end;
        bn.kind = self.kind(mas.node);
        let mut l_mas = *mas;
        let mut r_mas = *mas;
        if self.next_sibling(&mut r_mas) {
            let sc = self.kind(r_mas.node).slots();
            self.mas_mab_cp(&r_mas, 0, sc, &mut bn, b_end);
            r_mas.last = r_mas.max;
            r_mas.index = r_mas.max;
        } else {
            self.prev_sibling(&mut l_mas);
            let shift = self.mas_data_end(&l_mas) + 1;
            Self::mab_shift_right(&mut bn, shift);
            mas.offset += shift;
            self.mas_mab_cp(&l_mas, 0, shift - 1, &mut bn, 0);
            bn.b_end = shift + b_end;
            l_mas.index = l_mas.min;
            l_mas.last = l_mas.min;
        }
        let mut mast = Mast { orig_l: l_mas, orig_r: r_mas, l: *mas, m: *mas, r: *mas, bn };
        self.spanning_rebalance(mas, &mut mast, empty_count);
    }

    /// `mas_extend_spanning_null`.
    fn extend_spanning_null(&self, l_mas: &mut Mas, l_wr: &WrMas, r_mas: &mut Mas, r_wr: &WrMas) {
        let l_slot = l_mas.offset;
        if l_wr.content.is_null() {
            l_mas.index = l_wr.r_min;
        }
        if l_mas.index == l_wr.r_min && l_slot > 0 && self.n(l_mas.node).slot[l_slot - 1].is_null() {
            if l_slot > 1 {
                l_mas.index = self.n(l_mas.node).pivot[l_slot - 2].wrapping_add(1);
            } else {
                l_mas.index = l_mas.min;
            }
            l_mas.offset = l_slot - 1;
        }
        if r_wr.content.is_null() {
            if r_mas.last < r_wr.r_max {
                r_mas.last = r_wr.r_max;
            }
            r_mas.offset += 1;
        } else if r_mas.last == r_wr.r_max
            && r_mas.last < r_mas.max
            && self.n(r_mas.node).slot.get(r_mas.offset + 1).is_some_and(|s| s.is_null())
        {
            r_mas.last = self.safe_pivot(r_mas.node, r_mas.offset + 1, r_mas.max);
            r_mas.offset += 1;
        }
    }

    /// `mas_wr_spanning_store`.
    fn wr_spanning_store(&mut self, mas: &mut Mas, wr: &mut WrMas) {
        if O::ON {
            self.obs.event(MapleEvent::Spanning { first: Addr(mas.index), last: Addr(mas.last) });
        }
        if mas.index == 0 && mas.last == MAX {
            self.new_root(mas, wr.entry);
            return;
        }
        let height = self.height;
        let mut r_mas = *mas;
        let mut r_wr = WrMas::new(wr.entry);
        if r_mas.last != MAX {
            r_mas.last += 1;
        }
        r_mas.index = r_mas.last;
        self.wr_walk_index(&mut r_mas, &mut r_wr);
        r_mas.last = mas.last;
        r_mas.index = mas.last;
        let mut l_mas = *mas;
        let mut l_wr = WrMas::new(wr.entry);
        self.wr_walk_index(&mut l_mas, &mut l_wr);
        if wr.entry.is_null() {
            self.extend_spanning_null(&mut l_mas, &l_wr, &mut r_mas, &r_wr);
            mas.offset = l_mas.offset;
            mas.index = l_mas.index;
            mas.last = r_mas.last;
            l_mas.last = r_mas.last;
        }
        if l_mas.index == 0 && r_mas.last == MAX {
            mas.index = 0;
            mas.last = MAX;
            self.new_root(mas, wr.entry);
            return;
        }
        let mut bn = BigNode::new();
        let le = l_mas.end;
        self.store_b_node(&mut l_mas, &mut l_wr, &mut bn, le);
        if r_mas.max > r_mas.last {
            let be = bn.b_end + 1;
            self.mas_mab_cp(&r_mas, r_mas.offset, r_mas.end, &mut bn, be);
        } else {
            bn.b_end += 1;
        }
        l_mas.index = mas.index;
        l_mas.last = mas.index;
        let mut mast = Mast { orig_l: l_mas, orig_r: r_mas, l: *mas, m: *mas, r: *mas, bn };
        self.spanning_rebalance(mas, &mut mast, height + 1);
    }

    // ---------------------------------------------------------------- split

    /// `mas_split_final_node`.
    fn split_final_node(&mut self, mast: &mut Mast, mas: &mut Mas, height: u32) {
        if self.is_root(mas.node) {
            mast.bn.kind = self.parent_kind();
            mas.depth = height;
        }
        let ancestor = self.alloc_node(mast.bn.kind);
        self.set_parent(mast.l.node, ancestor, mast.l.offset);
        self.set_parent(mast.r.node, ancestor, mast.r.offset);
        let p = self.n(mas.node).parent;
        self.nm(ancestor).parent = p;
        mast.l.node = ancestor;
        let bn = &mast.bn;
        let last = bn.kind.slots() - 1;
        self.mab_mas_cp(bn, 0, last, &mut mast.l, true);
        mas.offset = mast.bn.b_end.wrapping_sub(1);
    }

    /// `mast_fill_bnode`: the parent's contents with the two new children in place of the old.
    fn mast_fill_bnode(&self, mast: &mut Mast, mas: &mut Mas, skip: usize) {
        let mut cp = true;
        mast.bn.clear();
        if self.is_root(mas.node) {
            cp = false;
        } else {
            self.ascend(mas);
            mas.offset = self.parent_slot(mas.node);
        }
        if cp && mast.l.offset > 0 {
            self.mas_mab_cp(mas, 0, mast.l.offset - 1, &mut mast.bn, 0);
        }
        let split = mast.bn.b_end;
        let (l, r) = (mast.l, mast.r);
        self.mab_set_b_end(&mut mast.bn, &l, l.node);
        mast.r.offset = mast.bn.b_end;
        self.mab_set_b_end(&mut mast.bn, &r, r.node);
        if mast.bn.pivot[mast.bn.b_end - 1] == mas.max {
            cp = false;
        }
        if cp {
            let sc = self.kind(mas.node).slots();
            let be = mast.bn.b_end;
            self.mas_mab_cp(mas, split + skip, sc - 1, &mut mast.bn, be);
        }
        mast.bn.b_end -= 1;
        mast.bn.kind = self.kind(mas.node);
    }

    /// `mast_split_data`.
    fn mast_split_data(&mut self, mast: &mut Mast, mas: &Mas, split: usize) {
        let bn = &mast.bn;
        self.mab_mas_cp(bn, 0, split, &mut mast.l, true);
        let rn = mast.r.node;
        let rmax = mast.r.max;
        self.nm(rn).pivot[0] = rmax;
        self.mab_mas_cp(bn, split + 1, bn.b_end, &mut mast.r, false);
        mast.l.offset = self.parent_slot(mas.node);
        mast.l.max = bn.pivot[split];
        mast.r.min = mast.l.max.wrapping_add(1);
        if self.is_leaf(mas.node) {
            return;
        }
        let mut p_slot = mast.orig_l.offset;
        let (ol, or, ln, rn) = (mast.orig_l, mast.orig_r, mast.l.node, mast.r.node);
        self.set_split_parent(&ol, ln, rn, &mut p_slot, split);
        self.set_split_parent(&or, ln, rn, &mut p_slot, split);
    }

    /// `mas_push_data`: move data into a sibling with room instead of splitting further.
    fn push_data(&mut self, mas: &mut Mas, height: u32, mast: &mut Mast, left: bool) -> bool {
        let mut slot_total = mast.bn.b_end;
        let mut tmp = *mas;
        tmp.depth = mast.l.depth;
        let has_sibling = if left { self.prev_sibling(&mut tmp) } else { self.next_sibling(&mut tmp) };
        if !has_sibling {
            return false;
        }
        let end = self.mas_data_end(&tmp);
        slot_total += end;
        let mut space = 2 * self.kind(mas.node).slots() - 2;
        if mast.bn.kind.is_leaf() {
            space -= 1;
        }
        if mas.max == MAX {
            space -= 1;
        }
        if slot_total >= space {
            return false;
        }
        if O::ON {
            self.obs.event(MapleEvent::PushToSibling { left });
        }
        mast.bn.b_end += 1;
        if left {
            Self::mab_shift_right(&mut mast.bn, end + 1);
            self.mas_mab_cp(&tmp, 0, end, &mut mast.bn, 0);
            mast.bn.b_end = slot_total + 1;
        } else {
            let be = mast.bn.b_end;
            self.mas_mab_cp(&tmp, 0, end, &mut mast.bn, be);
        }
        let mut split = mast.bn.kind.slots() - 2;
        if left {
            *mas = tmp;
            tmp.node = mast.l.node;
            mast.l = tmp;
        } else {
            tmp.node = mast.r.node;
            mast.r = tmp;
            split = slot_total.saturating_sub(split);
        }
        split = Self::mab_no_null_split(&mast.bn, split, mast.bn.kind.slots());
        if left {
            mast.orig_l.offset += end + 1;
        }
        self.mast_split_data(mast, mas, split);
        self.mast_fill_bnode(mast, mas, 2);
        self.split_final_node(mast, mas, height + 1);
        true
    }

    /// `mas_split`: split upwards from the leaf until a level absorbs the new node.
    /// `mast` comes blank (every maple state `Mas::new(index, last)`) with the big node filled.
    fn split(&mut self, mas: &mut Mas, mast: &mut Mast) {
        mas.depth = self.height;
        let mut height = 0;
        while height <= mas.depth {
            height += 1;
            if mast.bn.kind.slots() > mast.bn.b_end {
                self.split_final_node(mast, mas, height);
                break;
            }
            mast.l = *mas;
            mast.r = *mas;
            mast.l.node = self.alloc_node(mast.bn.kind);
            mast.r.node = self.alloc_node(mast.bn.kind);
            if self.push_data(mas, height, mast, true) {
                break;
            }
            if self.push_data(mas, height, mast, false) {
                break;
            }
            let (split, _mid) = Self::mab_calc_split(&mast.bn);
            if O::ON {
                self.obs.event(MapleEvent::Split { node: mas.node, b_end: mast.bn.b_end, cut: split, mid: 0 });
            }
            self.mast_split_data(mast, mas, split);
            mast.r.max = mas.max;
            self.mast_fill_bnode(mast, mas, 1);
            mast.orig_l = mast.l;
            mast.orig_r = mast.r;
        }
        let old = mas.node;
        mas.node = mast.l.node;
        self.wmb_replace(mas, old);
    }

    // ---------------------------------------------------------------- gap search

    /// `mas_empty_area(min, max, size)` on a fresh maple state: the lowest fit `(index, last)`.
    pub fn empty_area(&mut self, min: u64, max: u64, size: u64) -> Result<(u64, u64), MapleError> {
        if min > max || size == 0 || max - min < size - 1 {
            if O::ON {
                self.obs.event(MapleEvent::NoHole { err: EINVAL });
            }
            return Err(MapleError::Invalid);
        }
        let mut mas = Mas::new(0, 0);
        self.mas_start(&mut mas);
        if mas.is_none() || mas.status == Status::Root {
            // mas_sparse_area
            let mut lo = min;
            if !mas.is_none() && lo == 0 {
                lo += 1;
                if lo > max || max - lo + 1 < size {
                    return Err(MapleError::Busy);
                }
            }
            return Ok((lo, lo.wrapping_add(size - 1)));
        }
        mas.index = min;
        mas.last = max;
        self.awalk(&mut mas, size);
        if let Status::Err(e) = mas.status {
            if O::ON {
                self.obs.event(MapleEvent::NoHole { err: e });
            }
            return Err(if e == EINVAL { MapleError::Invalid } else { MapleError::Busy });
        }
        if mas.offset == MAPLE_NODE_SLOTS {
            return Err(MapleError::Busy);
        }
        let smin = self.safe_min(mas.node, mas.offset, mas.min);
        if mas.index < smin {
            mas.index = smin;
        }
        let last = mas.index.wrapping_add(size - 1);
        if O::ON {
            self.obs.event(MapleEvent::HoleFound { index: Addr(mas.index), last: Addr(last) });
        }
        Ok((mas.index, last))
    }

    /// `mas_awalk`.
    fn awalk(&mut self, mas: &mut Mas, size: u64) {
        let mut last = NIL;
        while !mas.is_err() && !self.anode_descend(mas, size) {
            if last == mas.node {
                self.skip_node(mas);
            } else {
                last = mas.node;
            }
        }
    }

    /// `mas_skip_node`.
    fn skip_node(&mut self, mas: &mut Mas) -> bool {
        if mas.is_err() {
            return false;
        }
        loop {
            if self.is_root(mas.node) {
                if mas.offset >= self.mas_data_end(mas) {
                    mas.status = Status::Err(EBUSY);
                    return false;
                }
            } else {
                self.ascend(mas);
                if O::ON {
                    self.obs.event(MapleEvent::Ascend { node: mas.node });
                }
            }
            if mas.offset < self.mas_data_end(mas) {
                break;
            }
        }
        mas.offset += 1;
        if O::ON {
            self.obs.event(MapleEvent::Skip { node: mas.node, slot: mas.offset });
        }
        true
    }

    /// `mas_anode_descend`: scan one node for a gap of `size`; true when done (found or error).
    fn anode_descend(&mut self, mas: &mut Mas, size: u64) -> bool {
        self.touched.set(self.touched.get() + 1);
        let id = mas.node;
        let kind = self.kind(id);
        if O::ON {
            self.obs.event(MapleEvent::NodeVisited { node: id, min: Addr(mas.min), max: Addr(mas.max) });
        }
        let mut offset = mas.offset;
        let mut min = self.safe_min(id, offset, mas.min);
        let data_end = self.data_end(id, mas.max);
        while offset <= data_end {
            let pivot = self.safe_pivot(id, offset, mas.max);
            let mut test = None;
            if mas.index <= pivot {
                let n = self.n(id);
                if kind == NodeKind::Arange {
                    test = Some(n.gap[offset]);
                } else if n.slot[offset].is_null() {
                    test = Some(pivot.min(mas.last).wrapping_sub(mas.index.max(min)).wrapping_add(1));
                }
            }
            if let Some(gap) = test {
                let fits = gap >= size;
                if O::ON {
                    self.obs.event(MapleEvent::SlotScanned { node: id, slot: offset, gap: Addr(gap), fits });
                }
                if fits {
                    if kind.is_leaf() {
                        mas.offset = offset;
                        return true;
                    }
                    if mas.index <= pivot {
                        if O::ON {
                            self.obs.event(MapleEvent::Descend { node: id, slot: offset });
                        }
                        mas.node = self.child(id, offset);
                        mas.min = min;
                        mas.max = pivot;
                        offset = 0;
                        break;
                    }
                }
            }
            min = pivot.wrapping_add(1);
            if mas.last <= pivot {
                mas.status = Status::Err(EBUSY);
                return true;
            }
            offset += 1;
        }
        // v6.16 has no "root scanned, so found" case here (older kernels had one); a root's last
        // slot ends at ULONG_MAX, so its scan ends found, descended or -EBUSY anyway.
        mas.offset = offset;
        false
    }

    // ---------------------------------------------------------------- dump and validate

    /// Every node of the tree in pre-order (a node, then its children from slot 0 up), with the
    /// limits implied by its parent and what the dump prints.
    pub fn nodes(&self) -> Vec<NodeSummary> {
        let mut out = Vec::new();
        let Root::Node(root) = self.root else {
            return out;
        };
        let mut stack = vec![(root, NIL, 0usize, 0u32, 0u64, MAX)];
        while let Some((id, parent, parent_slot, depth, min, max)) = stack.pop() {
            let n = self.n(id);
            let end = self.data_end(id, max).min(n.kind.slots() - 1);
            let mut s = NodeSummary {
                id,
                parent,
                parent_slot,
                depth,
                kind: n.kind,
                min,
                max,
                end,
                meta_gap: n.meta_gap as usize,
                pivots: Vec::with_capacity(end + 1),
                children: Vec::new(),
                entries: Vec::new(),
                gaps: Vec::new(),
            };
            for i in 0..=end {
                s.pivots.push(self.safe_pivot(id, i, max));
                match n.slot[i] {
                    Slot::Node(c) => s.children.push(c),
                    Slot::Entry(e) => s.entries.push(Some(e)),
                    Slot::Null => s.entries.push(None),
                }
                if n.kind == NodeKind::Arange {
                    s.gaps.push(n.gap[i]);
                }
            }
            let mut lo = min;
            let mut kids = Vec::new();
            for (i, &c) in s.children.iter().enumerate() {
                let hi = s.pivots[i];
                kids.push((c, id, i, depth + 1, lo, hi));
                lo = hi.wrapping_add(1);
            }
            out.push(s);
            stack.extend(kids.into_iter().rev());
        }
        out
    }

    /// The conformance dump block (`dump height=H nodes=N` ... `enddump`), each line ending in `\n`.
    pub fn dump(&self) -> String {
        let mut lines = String::new();
        let mut count = 0usize;
        if let Root::Node(id) = self.root {
            let mut stack = vec![(id, 0u32, 0u64, MAX)];
            while let Some((x, depth, min, max)) = stack.pop() {
                count += 1;
                let n = self.n(x);
                let end = self.data_end(x, max);
                let ty = match n.kind {
                    NodeKind::Leaf => "leaf",
                    NodeKind::Range => "range",
                    NodeKind::Arange => "arange",
                };
                let _ = write!(lines, "node {depth} {ty} min={min:#x} max={max:#x} end={end}");
                if n.kind == NodeKind::Arange {
                    let _ = write!(lines, " mgap={}", n.meta_gap);
                }
                lines.push_str(" |");
                let mut kids = Vec::new();
                let mut lo = min;
                for i in 0..=end.min(n.kind.slots() - 1) {
                    let piv = self.safe_pivot(x, i, max);
                    let k = match n.slot[i] {
                        Slot::Null => 'N',
                        Slot::Entry(_) => 'E',
                        Slot::Node(c) => {
                            kids.push((c, depth + 1, lo, piv));
                            'C'
                        }
                    };
                    let _ = write!(lines, " {i}:{piv:#x}:{k}");
                    if n.kind == NodeKind::Arange {
                        let _ = write!(lines, ":{:#x}", n.gap[i]);
                    }
                    lo = piv.wrapping_add(1);
                }
                lines.push('\n');
                for k in kids.into_iter().rev() {
                    stack.push(k);
                }
            }
        }
        let mut out = format!("dump height={} nodes={}\n", self.height, count);
        if count == 0 {
            match self.root {
                Root::Ptr(_) => out.push_str("root ENTRY\n"),
                _ => out.push_str("root NULL\n"),
            }
        }
        out.push_str(&lines);
        out.push_str("enddump\n");
        out
    }

    /// The invariants of `mt_validate`: parent links, pivot order and limits, minimum fill, gaps
    /// equal to recomputed gaps (and the metadata naming a largest one), no adjacent NULLs
    /// (within a leaf and across leaves), every leaf at depth `height - 1`.
    pub fn validate(&self) -> Result<(), ValidateError> {
        self.validate_in(None)
    }

    /// [`MapleTree::validate`] restricted to the nodes whose range meets one of `ranges`
    /// (inclusive, sorted or not): the paths a store or erase of those indices walked and
    /// rewrote, with each of those nodes checked whole (its pivots, slots, every child's gap,
    /// the metadata), and NULL runs across two visited leaves that touch. The count of live
    /// nodes is not checked (that needs the whole tree).
    pub fn validate_ranges(&self, ranges: &[(u64, u64)]) -> Result<(), ValidateError> {
        self.validate_in(Some(ranges))
    }

    fn validate_in(&self, filter: Option<&[(u64, u64)]>) -> Result<(), ValidateError> {
        // The ranges sorted and merged, so "does [lo, hi] meet one" is a binary search (a purge
        // hands in one range per area it took: a scan of all of them per node was quadratic).
        let merged: Option<Vec<(u64, u64)>> = filter.map(|f| {
            let mut v = f.to_vec();
            v.sort_unstable();
            let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
            for (a, b) in v {
                match out.last_mut() {
                    Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                    _ => out.push((a, b)),
                }
            }
            out
        });
        let meets = |lo: u64, hi: u64| {
            merged.as_deref().is_none_or(|f| {
                // The first range ending at or after lo; it meets [lo, hi] when it starts by hi.
                let k = f.partition_point(|&(_, b)| b < lo);
                f.get(k).is_some_and(|&(a, _)| a <= hi)
            })
        };
        // With a filter, the max of the last leaf visited: a NULL ending it matters to the next
        // leaf only when that one starts right after it.
        let mut prev_leaf_max: Option<u64> = None;
        let root = match self.root {
            Root::Empty | Root::Ptr(_) => {
                return if self.height == 0 || matches!(self.root, Root::Ptr(_)) {
                    Ok(())
                } else {
                    Err(ValidateError::Height { node: NIL, depth: 0, height: self.height })
                };
            }
            Root::Node(id) => id,
        };
        if self.n(root).parent != Parent::Root {
            return Err(ValidateError::Parent { node: root, detail: "root without root parent".into() });
        }
        let mut prev_null_end = false; // did the previous leaf end on NULL?
        let mut first_leaf = true;
        let mut stack = vec![(root, 0u32, 0u64, MAX)];
        let mut seen = 0usize;
        while let Some((x, depth, min, max)) = stack.pop() {
            seen += 1;
            if seen > self.nodes.len() {
                return Err(ValidateError::Shape { node: x, detail: "cycle".into() });
            }
            let n = self.n(x);
            if !n.live {
                return Err(ValidateError::Shape { node: x, detail: "dead node in the tree".into() });
            }
            let kind = n.kind;
            if self.alloc && !kind.is_leaf() && kind != NodeKind::Arange {
                return Err(ValidateError::Shape { node: x, detail: "internal node is not arange".into() });
            }
            let end = self.data_end(x, max);
            if end >= kind.slots() {
                return Err(ValidateError::Shape { node: x, detail: format!("end {end}") });
            }
            let is_root = x == root;
            if !is_root && end < kind.min_slots() && max != MAX {
                return Err(ValidateError::Fill { node: x, end });
            }
            // Pivots: strictly increasing inside [min, max], the last one the node's max.
            let mut lo = min;
            for i in 0..=end {
                let piv = self.safe_pivot(x, i, max);
                if piv < lo || piv > max {
                    return Err(ValidateError::Pivot {
                        node: x,
                        detail: format!("slot {i} pivot {piv:#x} outside [{lo:#x}, {max:#x}]"),
                    });
                }
                if i == end && piv != max {
                    return Err(ValidateError::Pivot {
                        node: x,
                        detail: format!("last pivot {piv:#x} != max {max:#x}"),
                    });
                }
                lo = piv.wrapping_add(1);
            }
            for i in end + 1..kind.pivots() {
                if n.pivot[i] != 0 {
                    return Err(ValidateError::Pivot { node: x, detail: format!("stale pivot at {i}") });
                }
            }
            if kind.is_leaf() {
                if depth + 1 != self.height {
                    return Err(ValidateError::Height { node: x, depth, height: self.height });
                }
                let mut lo = min;
                for i in 0..=end {
                    let piv = self.safe_pivot(x, i, max);
                    match n.slot[i] {
                        Slot::Node(_) => {
                            return Err(ValidateError::Shape { node: x, detail: format!("child in leaf slot {i}") })
                        }
                        Slot::Null => {
                            let joined = filter.is_none() || prev_leaf_max.is_some_and(|m| m.wrapping_add(1) == min);
                            let prev_null =
                                if i == 0 { !first_leaf && joined && prev_null_end } else { n.slot[i - 1].is_null() };
                            if prev_null {
                                return Err(ValidateError::AdjacentNull { at: lo });
                            }
                        }
                        Slot::Entry(_) => {}
                    }
                    lo = piv.wrapping_add(1);
                }
                prev_null_end = n.slot[end].is_null();
                prev_leaf_max = Some(max);
                first_leaf = false;
            } else {
                let mut lo = min;
                let mut kids = Vec::new();
                for i in 0..=end {
                    let piv = self.safe_pivot(x, i, max);
                    let c = match n.slot[i] {
                        Slot::Node(c) => c,
                        _ => return Err(ValidateError::Shape { node: x, detail: format!("slot {i} is not a child") }),
                    };
                    if self.n(c).parent != Parent::Node(x, i as u8) {
                        return Err(ValidateError::Parent { node: c, detail: format!("expected parent {x} slot {i}") });
                    }
                    if self.alloc {
                        let cm = Mas { node: c, min: lo, max: piv, ..Mas::new(0, 0) };
                        let actual =
                            if self.is_leaf(c) { self.leaf_max_gap_exact(c, lo, piv) } else { self.mas_max_gap(&cm) };
                        if n.gap[i] != actual {
                            return Err(ValidateError::Gap { node: x, slot: i, stored: n.gap[i], actual });
                        }
                    }
                    if meets(lo, piv) {
                        kids.push((c, depth + 1, lo, piv));
                    }
                    lo = piv.wrapping_add(1);
                }
                if self.alloc {
                    let mg = n.meta_gap as usize;
                    let best = (0..=end).map(|i| n.gap[i]).max().unwrap_or(0);
                    if mg > end || n.gap[mg] != best {
                        return Err(ValidateError::MetaGap { node: x, meta: mg });
                    }
                }
                for k in kids.into_iter().rev() {
                    stack.push(k);
                }
            }
        }
        if filter.is_none() && seen != self.node_count() {
            return Err(ValidateError::Shape {
                node: root,
                detail: format!("{} live nodes, {seen} in the tree", self.node_count()),
            });
        }
        Ok(())
    }

    /// A leaf's largest NULL run recomputed slot by slot (the check for `mas_leaf_max_gap`).
    fn leaf_max_gap_exact(&self, id: u32, min: u64, max: u64) -> u64 {
        let end = self.data_end(id, max);
        let n = self.n(id);
        let mut lo = min;
        let mut best = 0;
        for i in 0..=end {
            let piv = self.safe_pivot(id, i, max);
            if n.slot[i].is_null() {
                best = best.max(piv.wrapping_sub(lo).wrapping_add(1));
            }
            lo = piv.wrapping_add(1);
        }
        best
    }
}

/// Test hooks for the incremental check's tests (`raw_tests::check_inc`): damage one field.
#[cfg(test)]
impl MapleTree {
    pub(crate) fn root_id(&self) -> Option<u32> {
        match self.root {
            Root::Node(id) => Some(id),
            _ => None,
        }
    }
    /// The last used slot of the root (whose max is `MAX`).
    pub(crate) fn node_end(&self, id: u32) -> usize {
        self.data_end(id, MAX)
    }
    pub(crate) fn corrupt_gap(&mut self, id: u32, slot: usize) {
        self.nm(id).gap[slot] += 1;
    }
    pub(crate) fn corrupt_pivot(&mut self, id: u32, i: usize) {
        let p = self.n(id).pivot[i - 1];
        self.nm(id).pivot[i] = p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grown() -> MapleTree {
        let mut t = MapleTree::new(true);
        for i in 0..400u64 {
            let a = 0x10_0000 + i * 0x3000;
            t.store_range(a, a + 0xfff, Some(MapleEntry::Zero)).unwrap();
        }
        t.validate().unwrap();
        assert!(t.height() >= 3);
        t
    }

    fn some_arange(t: &MapleTree) -> NodeSummary {
        t.nodes().into_iter().find(|n| n.kind == NodeKind::Arange && n.depth == 1).unwrap()
    }

    #[test]
    fn validate_catches_a_wrong_gap() {
        let mut t = grown();
        let a = some_arange(&t);
        t.nm(a.id).gap[0] += 1;
        assert!(matches!(t.validate(), Err(ValidateError::Gap { .. }) | Err(ValidateError::MetaGap { .. })));
    }

    #[test]
    fn validate_catches_a_wrong_meta_gap() {
        let mut t = grown();
        let a = some_arange(&t);
        let wrong = (0..=a.end).find(|&i| a.gaps[i] < a.gaps[a.meta_gap]).unwrap();
        t.nm(a.id).meta_gap = wrong as u8;
        // The parent's gap check (which reads gap[meta_gap]) or the node's own check fires.
        assert!(matches!(t.validate(), Err(ValidateError::MetaGap { .. }) | Err(ValidateError::Gap { .. })));
    }

    #[test]
    fn validate_catches_a_wrong_parent_link() {
        let mut t = grown();
        let a = some_arange(&t);
        let c = a.children[1];
        t.nm(c).parent = Parent::Node(a.id, 0);
        assert!(matches!(t.validate(), Err(ValidateError::Parent { .. })));
    }

    #[test]
    fn validate_catches_pivot_disorder_and_adjacent_nulls() {
        let mut t = grown();
        let leaf = t.nodes().into_iter().find(|n| n.kind == NodeKind::Leaf && n.end > 4).unwrap();
        let p = t.n(leaf.id).pivot[1];
        t.nm(leaf.id).pivot[2] = p;
        assert!(matches!(t.validate(), Err(ValidateError::Pivot { .. })));
        let mut t = grown();
        let (id, i) = {
            let n = t.nodes().into_iter().find(|n| n.kind == NodeKind::Leaf && n.end > 4).unwrap();
            let i = (1..n.end).find(|&i| n.entries[i].is_none()).unwrap();
            (n.id, i)
        };
        t.nm(id).slot[i + 1] = Slot::Null;
        assert!(matches!(t.validate(), Err(ValidateError::AdjacentNull { .. }) | Err(ValidateError::Gap { .. })));
    }

    #[test]
    fn validate_catches_an_underfilled_node() {
        let mut t = grown();
        let leaf = t.nodes().into_iter().find(|n| n.kind == NodeKind::Leaf && n.max != MAX).unwrap();
        // Make the leaf end at slot 2 (the pivot there becomes the node's max).
        let max = leaf.max;
        let n = t.nm(leaf.id);
        n.pivot[2] = max;
        for i in 3..15 {
            n.pivot[i] = 0;
            n.slot[i] = Slot::Null;
        }
        n.slot[15] = Slot::Null;
        n.meta_end = 2;
        assert!(matches!(t.validate(), Err(ValidateError::Fill { .. }) | Err(ValidateError::Gap { .. })));
    }

    /// v6.16 `mas_spanning_rebalance`: `mast_overflow` is `b_end > mt_slot_count`, so when the
    /// rebuilt level holds exactly `slot_count` entries and both sides meet in one node, that
    /// node is the last one rebuilt (`slot = mast->l->offset; break;`): the root above keeps its
    /// node (and its metadata); only its gap is written by `mas_wmb_replace`.
    #[test]
    fn spanning_store_keeps_the_root_when_a_full_level_fits() {
        // 360 one-page entries a page apart: height 3, the last depth-1 node has 10 leaves.
        let mut t = MapleTree::new(true);
        for i in 0..360u64 {
            let a = 0x10_0000 + i * 0x3000;
            t.store_range(a, a + 0xfff, Some(MapleEntry::Zero)).unwrap();
        }
        let Root::Node(root) = t.root else { panic!() };
        assert_eq!(t.height(), 3);
        // A depth-1 node with 10 children and two neighbouring leaves holding enough data that
        // the erase below leaves two leaves (the level above keeps 10 entries).
        let x = t.nodes().into_iter().find(|n| n.depth == 1 && n.end == 9).expect("a full depth-1 node");
        let leaves: Vec<NodeSummary> = t.nodes().into_iter().filter(|n| n.parent == x.id).collect();
        let k = (0..9).find(|&k| leaves[k].end + leaves[k + 1].end >= 22).expect("two full leaves");
        let (l1, l2) = (&leaves[k], &leaves[k + 1]);
        // From the last entry of l1 to the first entry of l2: a spanning NULL store.
        assert!(l1.entries[l1.end].is_some());
        let first = l1.pivots[l1.end - 1] + 1;
        let j = (0..=l2.end).find(|&j| l2.entries[j].is_some()).unwrap();
        let last = l2.pivots[j];
        t.store_range(first, last, None).unwrap();
        t.validate().unwrap();
        assert_eq!(t.root, Root::Node(root), "the root was rebuilt");
        let x2 = t.nodes().into_iter().find(|n| n.depth == 1 && n.min == x.min).unwrap();
        assert_ne!(x2.id, x.id, "the spanning level is rebuilt");
        assert_eq!(x2.end, 9);
    }

    /// v6.16 `mab_calc_split` cuts a big node in the middle (`b_end / 2`); the loop that moved the
    /// cut right while the left side spanned fewer than 15 indices went in upstream 4f6a6bed0bfe.
    /// Sixteen one-index entries 0..=15 then the NULL tail: the big node has b_end 16, the cut is
    /// slot 8, so the left leaf is [0, 8] and the right one starts at 9.
    #[test]
    fn split_cuts_in_the_middle_for_small_ranges() {
        let mut t = MapleTree::new(true);
        for i in 0..=15u64 {
            t.store_range(i, i, Some(MapleEntry::Zero)).unwrap();
        }
        t.validate().unwrap();
        assert_eq!(t.height(), 2);
        let leaves: Vec<NodeSummary> = t.nodes().into_iter().filter(|n| n.kind == NodeKind::Leaf).collect();
        assert_eq!(leaves.len(), 2);
        assert_eq!((leaves[0].min, leaves[0].max, leaves[0].end), (0, 8, 8));
        assert_eq!((leaves[1].min, leaves[1].max), (9, MAX));
    }

    #[test]
    fn node_size() {
        // The arena's node: 15 pivots, 16 slots, 10 gaps, parent link, metadata.
        assert!(std::mem::size_of::<Node>() <= 344, "{}", std::mem::size_of::<Node>());
    }
}

/// A cursor over the stored (non-NULL) ranges, walking downwards as `mas_prev` does: `seek`
/// finds the range at or below an index (one descent), `prev` the one before, amortised O(1)
/// a step (up to the first ancestor with a slot to the left, then down its rightmost edge).
#[derive(Clone, Debug, Default)]
pub struct RevCursor {
    /// Per level from the root: node, its min and max, the slot at hand.
    path: Vec<(u32, u64, u64, usize)>,
}

impl RevCursor {
    /// A cursor with room for a path down `t` (no growth on the way).
    pub fn for_tree<O: MapleObserver>(t: &MapleTree<O>) -> RevCursor {
        RevCursor { path: Vec::with_capacity(t.height as usize + 1) }
    }

    /// The stored range holding `index`, else the nearest one below it.
    pub fn seek<O: MapleObserver>(&mut self, t: &MapleTree<O>, index: u64) -> Option<(u64, u64, MapleEntry)> {
        self.path.clear();
        let (mut id, mut min, mut max) = match t.root {
            Root::Empty => return None,
            Root::Ptr(e) => return Some((0, 0, e)),
            Root::Node(id) => (id, 0, MAX),
        };
        loop {
            let n = t.n(id);
            let end = t.data_end(id, max).min(n.kind.slots() - 1);
            let off = n.pivot_slot(0, end, index);
            let lo = if off == 0 { min } else { n.pivot[off - 1].wrapping_add(1) };
            let hi = if off == end { max } else { n.pivot[off] };
            self.path.push((id, min, max, off));
            match t.n(id).slot[off] {
                Slot::Node(c) => {
                    id = c;
                    min = lo;
                    max = hi;
                }
                Slot::Entry(e) => return Some((lo, hi, e)),
                Slot::Null => return self.prev(t),
            }
        }
    }

    /// The stored range before the one at hand, or `None` at the bottom of the tree.
    pub fn prev<O: MapleObserver>(&mut self, t: &MapleTree<O>) -> Option<(u64, u64, MapleEntry)> {
        loop {
            let top = self.path.last_mut()?;
            if top.3 == 0 {
                self.path.pop();
                continue;
            }
            top.3 -= 1;
            let (id, min, _, off) = *top;
            // Left of the slot at hand: a full pivot on the right.
            let n = t.n(id);
            let hi = n.pivot[off];
            let lo = if off == 0 { min } else { n.pivot[off - 1].wrapping_add(1) };
            match n.slot[off] {
                Slot::Entry(e) => return Some((lo, hi, e)),
                Slot::Null => continue,
                Slot::Node(c) => {
                    // Down the rightmost edge of the child to its last range.
                    let (mut id, mut min, max) = (c, lo, hi);
                    loop {
                        let end = t.data_end(id, max).min(t.kind(id).slots() - 1);
                        self.path.push((id, min, max, end));
                        let n = t.n(id);
                        let lo = if end == 0 { min } else { n.pivot[end - 1].wrapping_add(1) };
                        match n.slot[end] {
                            Slot::Node(c) => (id, min) = (c, lo),
                            Slot::Entry(e) => return Some((lo, max, e)),
                            Slot::Null => break,
                        }
                    }
                }
            }
        }
    }
}
