//! The kernel's maple tree (`lib/maple_tree.c`, Linux v6.16, 64-bit node layout), exact.
//!
//! A B-tree of ranges: `maple_leaf_64` leaves (16 slots, 15 pivots), and internal nodes that are
//! `maple_range_64` (same shape) or, in a tree with `MT_FLAGS_ALLOC_RANGE`, `maple_arange_64`
//! (10 slots, 9 pivots, a `gap[]` per child and metadata naming the slot of the largest gap).
//! Nodes live in an arena and are named by `u32` ids handed out when a node is created; an id is
//! stable while its node lives and is reused after it is freed.
//!
//! The write path follows the kernel's store dispatch (`mas_wr_store_type`): exact fit, new root,
//! append, slot store, node store, split (`mas_split` with `mab_calc_split`'s cut point and the
//! push to a sibling), rebalance (`mas_rebalance`) and spanning store
//! (`mas_wr_spanning_store`), with the same gap bookkeeping (`mas_update_gap` and its early
//! stop). `empty_area` is `mas_empty_area`. The function names match the kernel's so the two
//! can be read side by side; the code and its comments are our own.
//!
//! No allocator logic lives here: the tree stores opaque entries ([`MapleEntry`]).

pub mod session;
pub mod snap;
pub mod trace;
mod tree;

pub use session::{MapleFrame, MapleOpFrames, MapleOpLine, MapleSession, MapleSnap};
pub use snap::MapleTreeJson;
pub use trace::{is_maple_trace, replay_maple_text, MapleReplay, MapleTraceError, MapleTraceErrorKind};
pub use tree::{
    MapleEntry, MapleError, MapleEvent, MapleObserver, MapleTree, NoMapleObserver, NodeKind, NodeSummary, RevCursor,
    StoreType, ValidateError,
};
