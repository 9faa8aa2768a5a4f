//! vmapviz core: the Linux kernel's vmalloc address-space allocator, bit-exact.
//!
//! * [`rbtree`]: the kernel's red-black tree with augment callbacks, index-based.
//! * [`vmalloc`]: the free tree: `find_vmap_lowest_match`, `classify_va_fit_type`,
//!   `adjust_va_to_fit_type`, `merge_or_add_vmap_area`, `augment_tree_propagate_from`.
//! * [`era`]: the allocator as a whole, one module per kernel era ([`Profile`]) behind one
//!   interface ([`Vmap`]): alloc, free, vfree, purge, `pcpu_get_vm_areas`, vmap nodes.
//! * [`events`]: the step events a view animates; [`NoObserver`] makes them free.
//! * [`trace`] and [`replay`]: the trace language and the conformance output; [`capture::follow`]: the
//!   lines a capture's replay prints to follow a real kernel ([`capture`]); [`trace_bytes`]: the
//!   operations as bytes, handed from one instance of the core to another.
//! * [`addr`]: [`Addr`], the address type of the JSON contract (`"0x…"` text).
//! * [`check`]: invariants for tests and `vmap-replay --check`; [`check_inc`]: the same after
//!   each operation for what it touched only, with a full check every N operations.

pub mod addr;
pub mod area;
pub mod busy_index;
pub mod callers;
pub mod capture;
pub mod check;
pub mod check_inc;
pub mod contention;
pub mod contract;
pub mod counters;
pub mod era;
pub mod error;
pub mod events;
pub mod frag;
pub mod import;
pub mod maple;
pub mod memory;
pub use era::maple_rfc;
pub mod profile;
pub mod rbtree;
pub mod replay;
#[cfg(feature = "capture")]
pub mod report;
pub mod session;
pub mod sweep;
pub mod text;
pub mod trace;
pub mod trace_bytes;
pub mod vmalloc;
pub mod vmdiff;
pub mod workload;

pub use addr::{Addr, Hex};
pub use area::{AreaInfo, Arena, VaTree, VmapArea, NIL};
pub use era::{PurgeStop, Vmap};
pub use error::VmapError;
pub use events::{Event, IndexView, NoObserver, Observer, Recorder, TreeView};
pub use profile::Profile;
pub use replay::{ReplayError, Replayer};
pub use session::Session;
pub use trace::{parse_trace, Op, ParseError, TraceLine};
#[cfg(test)]
mod raw_tests;
