//! Capture bundles: a real kernel's `/proc/vmallocinfo` read before and after a workload, the
//! ftrace `vmalloc` events in between, and its CPUs (`scripts/capture.sh` writes one), replayed
//! from the state of the "before" file and compared with the kernel address by address.
//!
//! ```text
//!   vmallocinfo.before --> start state: busy areas (node of their address), lazy areas on the
//!                          lazy list of the node that printed them (its vn_id), in file order
//!   cpus.txt           --> vmap nodes = possible CPUs (clamp 1..128), lazy_max_pages = online
//!   trace.txt          --> alloc_vmap_area on its CPU, free_vmap_area_noflush, and each
//!                          purge_vmap_area_lazy where it was traced, with as many lazy areas as
//!                          the kernel purged (num_purged: a free traced just before the purge's
//!                          event can belong to the next one)
//!   vmallocinfo.after  --> the final busy set compared
//! ```
//!
//! `scripts/capture.sh` drains the pools before the before file is read (the vmap node
//! shrinker's full decay), so that in its bundles the pools start empty; the rules below that
//! read pool entries from before the capture serve bundles taken without (`-k`).
//!
//! A purge is traced when it ends (`trace_purge_vmap_area_lazy` is the last thing
//! `__purge_vmap_area_lazy` does), and the drain runs it in a worker while allocations go on.
//! The kernel first decays each node's pools and takes its lazy list, node by node, then gives
//! each taken list back (to its pools or the free tree), node by node:
//!
//! ```text
//!   D0 .. D(n-1)      nodes 0..k decayed and taken (later frees to them wait for the next purge)
//!   through A         every node taken; the nodes before A's given back, A's walked up to A
//!                     (each area pooled as the walk passes it; the rest freed when it ends)
//!   P0 .. P(n-1)      every node taken; nodes 0..k given back; P(n-1) is the whole purge
//! ```
//!
//! When an allocation traced before the event differs, and the drain was due (a free traced
//! `nr_lazy > nr_lazy_max`) or its address is lazy in the model, the first stage at which the
//! model gives the kernel's address is where the purge stood: it is replayed to there before
//! the allocation (`Steered::purge_to`), taken further by a later allocation that shows it, and
//! finished at its event. Not an unknown of the start state: the report counts these apart.
//!
//! `alloc_vmap_area` searches the free tree, then calls `cond_resched()`, then traces: a task
//! that yields there is traced after events that came after its search. An allocation whose
//! task traced nothing since before the last purge, and which the model as it was before that
//! purge serves at the kernel's address, is replayed before it; one traced within 256 events
//! after an allocation the model's free tree answers lower, by a task that traced nothing in
//! between, that took that answer's space and leaves the model giving the kernel's address, is
//! replayed before that allocation. The kernel's timing too, counted apart.
//!
//! What the files cannot tell is an explicit unknown, resolved from what the kernel did later:
//! * **a pool's contents before the capture** (`vmallocinfo` never shows pools): when the
//!   kernel's address was in space the "before" file shows free and nothing has touched since,
//!   and the request would have looked at a pool, the area was in that node's pool: it is put
//!   there (behind every entry pooled during the capture) and the replay starts over. Not if
//!   the kernel served that size on that node from its free tree before: the pool was empty
//!   then, and an entry from before the capture would have been in it. Such an entry is in its
//!   pool from the start until taken or given back by a decay, never put there later: where an
//!   earlier request of that pool, in the next replay, is given it by the model's pool and the
//!   kernel's answer was another, the reading is revised (not made again at that line);
//! * **the node a busy area of the "before" file was allocated for** (its vn_id, where `vfree`
//!   sends it): first taken to be the node of its address; when the kernel takes it from another
//!   node's pool, it was that node, and the replay starts over; when the kernel allocates over
//!   its entry in the model's pool (freed during the capture), it was another node's, whose
//!   decays gave it back (revised if the next replay still differs there);
//! * **the node an allocation of the capture was made for**: its trace line's CPU, unless the
//!   free tree served it (`node_alloc` took the CPU's node, then the search and
//!   `cond_resched()`, then the trace, maybe on another CPU) and a decay kept more than the
//!   model's with too few busy areas of the "before" file behind it: the oldest such areas in
//!   that pool were made for another node; or the kernel takes such an area whole from another
//!   node's pool than the model's: it was made for that node; or, with a purge under way, the
//!   model's answer at a node's decay lies over an entry that decay gave back. Tried only in a first stage run again where the
//!   replays end unexplained, and kept only where it explains more;
//! * **where node 1's lazy list begins** (two nodes): `vmallocinfo` prints node 0's lazy list,
//!   then node 1's, each ascending, so a drop in address starts node 1's; with none, the lazy
//!   areas are one run, node 0's first and node 1's after, either maybe empty. First taken to
//!   be all node 0's; learnt where a pool shows it (a purge pools a node's list with its highest
//!   area at the head): the kernel took an area of the run from the other node's pool, or a
//!   pool's head was behind areas of the run in the model's pool;
//! * **space the "before" file shows free that was held** (pool entries again: an entry is in no
//!   tree, so the file shows its space free): when the kernel's free-tree search passed over
//!   space untouched since the start to a higher address, and taking out the area the model
//!   would take there makes the model's search give the kernel's address, that area was held
//!   (several areas, one unknown each, only where a pool entry at the kernel's address is
//!   ruled out). Addresses rising through free space are the free tree's first fit, not a
//!   pool's (a purge pools its areas with the highest at the head). The space is held until
//!   the kernel allocates in it (its pool gave the entry, or a decay gave it back), and is then
//!   free; if nothing then explains the kernel's address, that reading was wrong: it is
//!   **revised** (the report names the line, the line that contradicted it, and the reading
//!   that follows), the allocation that found it is read as whole blocks below (next), and the
//!   replay starts over from there;
//! * **a free block whose layout is unknown** (the same pool entries, many): where that
//!   area-by-area reading does not reach (more than eight areas, a pool entry at the kernel's
//!   address possible, or the reading revised), `find_vmap_lowest_match` still says that every free block
//!   below the kernel's address that the model's search would take had no free run of the
//!   search length. Each (its part untouched since the start, and only the part below the
//!   kernel's address of the block holding it; any number, as the search passes over any
//!   number) is held whole, one unknown per block, if the
//!   model's search then gives the kernel's address. What the kernel allocates inside one later
//!   is **a piece** of it, one unknown each: an entry of the pool the request looks at (if
//!   that pool gave nothing here and never had its size served from the free tree: learnt
//!   into the pool, so that the next replay checks its order), or a free piece (the first fit:
//!   nothing lower fits). The rest stays held; an allocation the model cannot take gives back
//!   the held space under it;
//! * **a pool's length at a purge**: `decay_va_pool_node` gives back `len >> 2` entries from
//!   the head, and `len` counts the entries from before the capture, so the kernel's decay can
//!   give back more than the model's. When the kernel allocates over entries that the last
//!   purge's decay kept in the model, it gave back every kept entry up to them. Learnt as the
//!   least count all such allocations need, one unknown per pool and purge, and given back by
//!   that purge's decay in the next replay; the allocations that showed it are explained by it.
//!   Revised when a later allocation's search passed over an entry it gave back (the model's
//!   free-tree answer, below the kernel's, lies over it): that decay kept it.
//!
//! One more thing the files cannot show is the free tree's shape: `find_vmap_lowest_match`
//! looks for the search length (size plus the alignment's overhead) and meets a shorter block
//! that fits only if it lies on its path. When the kernel and the model each found a block the
//! search can find (`Steered::search_outcomes`), the allocation is explained by the shape: one
//! fact per short block and search length, while the block lasts (until an allocation takes
//! from it or a purge gives the free tree entries back); a repeat rests on it, a contrary one
//! is unexplained. Nothing is learnt: the trees stay as they are.
//!
//! These are learnt only while the replay is exact (every allocation so far equal or explained):
//! after an unexplained one the model's free space may not be the kernel's, and a different
//! answer shows nothing about the start state. A pool's entries from before the capture that
//! the kernel took after the first purge survived that purge's decay (`len >> 2` from the head):
//! the entries it gave back were in front of them and no allocation shows them, so the first
//! purge's decay leaves the learnt ones alone, behind the entries pooled by that purge.
//!
//! The replay follows the kernel: where its address differs, the report says why (or that
//! nothing known explains it, showing the first such allocation whole) and the model takes the
//! kernel's address, so that one difference does not hide the rest.
//!
//! A second stage reads on past such a miss: each unexplained allocation starts an **epoch**,
//! and what the allocations after it show is learnt about the state there, as the before file's
//! is about the capture's start (its free space may have been held, its pools' entries are
//! guesses, and what is learnt is put in place right after that allocation). Nothing that would
//! change the replay before the epoch is read in it, nothing before it is revised, and the
//! stage's result is kept only at a fixpoint that misses no earlier and no more
//! (`replay_parsed`).
//!
//! The layer: [`oracle`] steers the allocator where the kernel went, the passes replay the
//! bundle, [`follow`] prints and reads back what they learnt as trace lines and [`apply`]
//! applies those lines to the steered model, [`stream`]
//! carries a replay on as a live session's events come; `hash` keys their sets and maps, `history` keeps each pool's purges
//! in a replay and counts their decays again with areas on another node.

pub mod oracle;

#[cfg(feature = "capture")]
pub mod apply;
#[cfg(feature = "capture")]
mod bundle;
#[cfg(feature = "capture")]
pub mod follow;
#[cfg(feature = "capture")]
mod hash;
#[cfg(feature = "capture")]
mod history;
#[cfg(feature = "capture")]
mod pass;
#[cfg(feature = "capture")]
mod report;
#[cfg(feature = "capture")]
pub mod stream;
#[cfg(feature = "capture")]
pub use bundle::{parse_cpulist, parse_cpus, part_text, Bundle, CaptureError, Part, BEFORE_READ, PARTS, POOLS_DRAINED};
#[cfg(feature = "capture")]
pub use pass::replay_capture;
#[cfg(feature = "capture")]
pub use report::{CaptureReport, NOTES_SHOWN};
#[cfg(feature = "capture")]
pub use stream::{Round, StreamReplay};
