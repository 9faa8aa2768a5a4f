//! The passes of a capture's replay (the layer's doc: [`super`]).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::rc::Rc;

use super::bundle::*;
use super::hash::{HashMap, HashSet};
use super::history::{PoolHistory, PoolRec};
use super::report::*;
use crate::capture::follow::{Follow, Mark};
use crate::capture::oracle::Steered;
use crate::capture::oracle::{HoldTrial, Place, Prediction};
use crate::era::PurgeStop;
use crate::events::NoObserver;
use crate::import::{self, AllocReq, FtraceEvent, InfoKind};
use crate::profile::Profile;
use crate::trace::Op;
use crate::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};

/// What the replay learnt about the start state from what the kernel did later.
#[derive(Clone, Debug, Default)]
pub(super) struct Learnt {
    /// Pool entries before the capture: (node, start, size), in the order they were found
    /// (each at the tail of its pool, behind the ones found before it).
    pooled: Vec<(u32, u64, u64)>,
    /// The starts in `pooled`, so that asking costs no walk of it (a capture that finds an
    /// entry per allocation would otherwise replay in time quadratic in its events).
    pooled_at: HashSet<u64>,
    /// The allocation each entry of `pooled` was read at, by start.
    entry_from: BTreeMap<u64, usize>,
    /// (line, start): entries read at that line that an earlier allocation of their pool
    /// contradicted ([`Pass::revise_entry`]); not read so again there.
    entry_out: HashSet<(usize, u64)>,
    /// Entries of `pooled` read as the head of the entries from before the capture, where a
    /// decay had given back every entry pooled since ([`Pass::decayed_more`]): the others of
    /// that pool stood behind them.
    old_heads: HashSet<u64>,
    /// Busy areas of the "before" file allocated for another node than their address's.
    nodes: BTreeMap<u64, u32>,
    /// Allocations whose shape fact a later allocation contradicted (the same block and search
    /// length, the other way): not read so again.
    shape_out: HashSet<usize>,
    /// Allocations of the capture made for another node than the CPU of their trace line
    /// ([`Pass::decayed_less`]): by line, (the area's start, the node).
    alloc_node: BTreeMap<usize, (u64, u32)>,
    /// Space the "before" file shows free that the kernel held (the free-tree search passed
    /// over it), as [start, end), in the order it was found.
    held: Vec<(u64, u64, usize)>,
    /// Free blocks of the "before" file that the kernel's free-tree search passed over whole
    /// (no free run of the search length in them: pool entries and pieces too short), as
    /// [start, end) and the line that showed it, in the order found.
    blocks: Vec<(u64, u64, usize)>,
    /// Pools whose decay at a purge gave back more than the model's: (purge line, node, pool
    /// index) -> the last of the entries the model's decay kept that went back too (the least
    /// that every later address of the kernel needs). By address, not count: a replay that
    /// reads the start state otherwise (an area's node learnt since) may keep other entries.
    pool_lengths: BTreeMap<(usize, u32, usize), u64>,
    /// The allocation whose address taught each of `pool_lengths` (by the same key).
    pool_length_from: BTreeMap<(usize, u32, usize), usize>,
    /// Allocations whose pool-length reading a later allocation contradicted: the kernel's
    /// search passed over space that reading gave back ([`Pass::revise_length`]). Not read so
    /// again.
    pool_length_out: HashSet<usize>,
    /// Trace lines whose held reading a later allocation contradicted (the kernel allocated in
    /// the held space where the model, with it free again, would not), by line: the first
    /// reading still open there ([`Reading`]): each contradiction moves on to the next.
    revised: BTreeMap<usize, Reading>,
    /// Each revision: the line read again, the line that contradicted it, the readings.
    revisions: Vec<Revision>,
    /// Busy areas of the before file whose node [`Pass::decayed_less`] read at a line: by
    /// area, that line. A later allocation that contradicts the reading revises it.
    node_from: BTreeMap<u64, usize>,
    /// By line of [`Pass::decayed_less`]: the areas whose reading there was contradicted.
    node_ruled_out: BTreeMap<usize, HashSet<u64>>,
    /// Areas whose node [`Pass::flipped_nodes`] read from decay counts: still guesses, that a
    /// later count may read back.
    flip_read: HashSet<u64>,
    /// (line, entry): the kernel's pool still held the entry there ([`Pass::flipped_nodes`]),
    /// what every later reading of the counts keeps.
    held_obs: Vec<(usize, u64)>,
    /// By trace line: what was learnt at that allocation (each unknown once, where the kernel's
    /// address showed it); in a later replay the allocation is explained by it.
    facts: BTreeMap<usize, (Unknown, String)>,
    /// Areas of the before file whose node was learnt from the after file's lazy lists.
    after_nodes: std::collections::BTreeSet<u64>,
    /// Allocations of the capture (by trace line) read as made for the node whose lazy list
    /// the after file shows their area on.
    after_allocs: std::collections::BTreeSet<usize>,
    /// Two nodes and one ascending run of lazy areas in the before file: the index in the run
    /// where node 1's lazy list begins.
    lazy_split: Option<usize>,
    /// The least `lazy_split` can be: the kernel took an area of the run below it from node 0's
    /// pool, so node 1's list begins after that area ([`Pass::set_lazy_split`]).
    lazy_split_min: usize,
    /// By purge or allocation line: the allocations traced after it whose search ran before it
    /// (their index in the events), replayed ahead of it ([`Pass::searched_before_purge`],
    /// [`Pass::searched_before_alloc`]).
    searched_early: BTreeMap<usize, Vec<usize>>,
    /// (purge line, node) -> an allocation line: the kernel took from that node's pool, there,
    /// an entry that the purge's decay of the node gives back, so that decay ran after it
    /// ([`Pass::decayed_after`]); a purge replayed early stops short of it until then.
    decayed_after: BTreeMap<(usize, u32), usize>,
    /// Pools that held, after the capture's first purge, entries from before the capture that
    /// no allocation shows, in front of the known ones ([`Pass::unseen_in_front`]): how many.
    unseen: BTreeMap<(u32, usize), u32>,
    /// Pools whose unseen entries a pop contradicted (the model's pool gave one): read no more.
    unseen_out: HashSet<(u32, usize)>,
    /// Pools that held, from before the capture, entries behind every known one that no
    /// allocation has shown yet ([`Pass::entries_behind`]): how many, and the line that read it.
    unseen_behind: BTreeMap<(u32, usize), (u32, usize)>,
    /// Entries from before the capture read with unseen ones in front of them, which requests
    /// with a misaligned head moved to the tail ([`Pass::entries_behind`]): their pool, how
    /// many, the line that read it and those of them shown since (in pool order); and the
    /// entries whose reading was contradicted.
    unseen_front: BTreeMap<u64, Front>,
    front_out: HashSet<u64>,
    /// The replay reads on after an unexplained allocation ([`replay_parsed`]'s second stage).
    resync: bool,
    /// Allocations of the capture may be read as made for another node than their trace
    /// line's CPU ([`Pass::decayed_less`]; [`replay_parsed`]'s first stage, run again).
    migrations: bool,
    /// In the last replay, such a reading would have explained an allocation that nothing
    /// else did.
    migration_open: bool,
    /// The unexplained allocations a replay of that stage read on from, ascending: each starts
    /// an epoch, and what is learnt in it is about the state there ([`Learnt::epoch`]).
    resync_at: Vec<usize>,
    /// Areas the trace frees twice with no allocation of them traced in between: by (the line
    /// of the first free, start), their size and the line of the second ([`Pass::untraced`]).
    untraced: BTreeMap<(usize, u64), (u64, usize)>,
    /// Something new was learnt in this replay.
    pub(super) changed: bool,
}

impl Learnt {
    /// The epoch of what was learnt at `line`: the last unexplained allocation read on from
    /// before it, or 0 (the start).
    fn epoch(&self, line: usize) -> usize {
        let k = self.resync_at.partition_point(|&r| r < line);
        if k == 0 {
            0
        } else {
            self.resync_at[k - 1]
        }
    }

    /// A pool entry from before the capture: `[x, x + size)` in node `n`'s pool.
    fn pool(&mut self, n: u32, x: u64, size: u64, line: usize) {
        self.pooled.push((n, x, size));
        self.pooled_at.insert(x);
        self.entry_from.insert(x, line);
    }

    /// The readings of each `a` as an entry of node `n`'s pool from before the capture, made at
    /// their lines, are contradicted at `line` (each with its `why`): dropped, and not made
    /// again at their lines.
    fn drop_entries(&mut self, out: Vec<(u64, String)>, n: u32, size: u64, line: usize) {
        let gone: HashSet<u64> = out.iter().map(|(a, _)| *a).collect();
        self.pooled.retain(|(_, b, _)| !gone.contains(b));
        self.old_heads.retain(|b| !gone.contains(b));
        for (a, why) in out {
            let from = self.entry_from.remove(&a).unwrap_or(line);
            self.pooled_at.remove(&a);
            self.entry_out.insert((from, a));
            self.facts.remove(&from);
            self.revisions.push(Revision {
                line: from,
                contradicted_at: line,
                what: format!("where the kernel's {size:#x} bytes at {a:#x} came from"),
                why,
                was: format!("an entry of node {n}'s pool from before the capture"),
                now: "not in that pool".into(),
            });
        }
        self.changed = true;
    }

    /// `by` fewer unseen entries in pool `key` than read ([`Pass::unseen_in_front`]), contradicted
    /// at `line` (`why`); that pool is read so no more.
    fn drop_unseen(&mut self, key: (u32, usize), by: u32, line: usize, why: String) {
        let Some(&had) = self.unseen.get(&key) else { return };
        let left = had.saturating_sub(by);
        if left == 0 {
            self.unseen.remove(&key);
        } else {
            self.unseen.insert(key, left);
        }
        self.unseen_out.insert(key);
        self.revisions.push(Revision {
            line,
            contradicted_at: line,
            what: format!("the unseen entries of node {}'s pool of {} pages", key.0, key.1 + 1),
            why,
            was: format!("{had}"),
            now: format!("{left}"),
        });
        self.changed = true;
    }

    /// One unseen entry fewer behind the known ones of pool `key` than read: the model's pool
    /// gave its stand-in at `line` where the kernel did otherwise. The
    /// allocation that read them is read again.
    fn drop_behind(&mut self, key: (u32, usize), line: usize) {
        let Some((had, from)) = self.one_behind_fewer(key) else { return };
        self.revisions.push(Revision {
            line: from,
            contradicted_at: line,
            what: format!("the unseen entries behind the known ones of node {}'s pool of {} pages", key.0, key.1 + 1),
            why: "the model's pool gave one where the kernel did otherwise".into(),
            was: format!("{had}"),
            now: format!("{}", had - 1),
        });
        self.changed = true;
    }

    /// The unseen entries read in front of `x` are out: the model's pool gave a stand-in of
    /// one at `line` where the kernel did otherwise. The allocation that read them is read
    /// again, without them.
    fn drop_front(&mut self, x: u64, line: usize) {
        let Some(Front { key: (n, idx), count: had, line: from, known }) = self.unseen_front.remove(&x) else { return };
        self.front_out.insert(x);
        for k in known {
            self.pooled_at.remove(&k);
            self.entry_from.remove(&k);
        }
        self.revisions.push(Revision {
            line: from,
            contradicted_at: line,
            what: format!("the unseen entries in front of {x:#x} in node {n}'s pool of {} pages", idx + 1),
            why: "the model's pool gave one where the kernel did otherwise".into(),
            was: format!("{had}"),
            now: "none".into(),
        });
        self.changed = true;
    }

    /// One unseen entry fewer behind the known ones of pool `key`: how many there were, and the
    /// line that read them.
    fn one_behind_fewer(&mut self, key: (u32, usize)) -> Option<(u32, usize)> {
        let (had, from) = self.unseen_behind.remove(&key)?;
        if had > 1 {
            self.unseen_behind.insert(key, (had - 1, from));
        }
        Some((had, from))
    }

    /// `[x, ..)` may be read at `line` as a pool entry from before the capture: not read so
    /// already, and not contradicted there.
    fn entry_open(&self, line: usize, x: u64) -> bool {
        !self.pooled_at.contains(&x) && !self.entry_out.contains(&(line, x))
    }
}

/// Unseen entries read in front of a known one ([`Learnt::unseen_front`]).
#[derive(Clone, Debug)]
struct Front {
    key: (u32, usize),
    count: u32,
    line: usize,
    known: Vec<u64>,
}

/// How the space a free-tree search passed over is read, from the fewest unknowns on: the
/// areas the model's search would take held (one, or up to eight), then whole blocks of unknown
/// layout. A reading a later allocation contradicts gives way to the next, in the next replay.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reading {
    Areas,
    Blocks,
    /// Every reading was contradicted: nothing held there.
    None,
}

impl Reading {
    fn next(self) -> Reading {
        match self {
            Reading::Areas => Reading::Blocks,
            Reading::Blocks | Reading::None => Reading::None,
        }
    }

    fn text(self) -> &'static str {
        match self {
            Reading::Areas => "the areas the model's search would take, held",
            Reading::Blocks => "whole blocks held, their layout unknown",
            Reading::None => "nothing held",
        }
    }
}

/// A free-tree answer of the kernel at space untouched since the start (address, line), or
/// `None` over touched space.
type TreeAnswer = Option<(u64, usize)>;

/// How far ahead an allocation that searched before the one traced now is looked for
/// ([`Pass::searched_before_alloc`]), in events.
const SEARCH_AHEAD: usize = 256;

/// Why an allocation's node can be another than its trace line's CPU's.
const RESCHED: &str = "`node_alloc` takes the CPU's node first; a request served by the free tree reschedules after \
                       its search, and is traced on the CPU the task runs on again";

/// A decay that gave back `k` entries of a pool the model holds `len` long (`len >> 2` from the
/// head): the kernel's pool was shorter by at least this many (`None`: it need not be).
fn shorter_by(len: usize, k: usize) -> Option<usize> {
    len.checked_sub(4 * k + 3).filter(|&m| m > 0)
}

/// Replay a bundle under `profile` and compare (see the module documentation). The trace it
/// returns is the capture's operations in the trace language (start state, then each event),
/// for a replay elsewhere; the report is the comparison.
pub fn replay_capture(b: Bundle<'_>, profile: Profile) -> Result<(Vec<Op>, CaptureReport), CaptureError> {
    if let Some(u) = &b.uname {
        check_uname(u, profile)?;
    }
    let p = parse_bundle(b)?;
    replay_parsed(&p, profile).map(|(ops, report, _)| (ops, report))
}

/// The replays of a parsed bundle, each with what the ones before it learnt, until one learns
/// nothing new (16 at most); the last one's trace and report, and what was learnt.
///
/// Where the last one still has an unexplained allocation, a second stage reads on past it
/// (the model steered to the kernel's address there, as the kernel went): up to 16 more
/// replays that learn after a miss too ([`Pass::read_on`]), so that one miss does not leave
/// every allocation of its pool after it unexplained. What they learn rests on a model
/// already steered, so that stage's last replay is the result only where it learnt nothing
/// new (a fixpoint), misses no earlier than the first stage and no more often, and gives every
/// purge and the final busy set as well; else the first stage's stands.
pub(super) fn replay_parsed(
    p: &Parsed<'_>,
    profile: Profile,
) -> Result<(Vec<Op>, CaptureReport, Learnt), CaptureError> {
    let mut passes = 0;
    let mut stage = |mut learnt: Learnt| -> Result<(Vec<Op>, CaptureReport, Learnt), CaptureError> {
        let mut n = 0;
        // Replays that learn without end go round readings that undo each other (a node read
        // one way at one line, the other way at another): the one of them that explains most,
        // with the readings it ran on, stands.
        let mut best: Option<(Vec<Op>, CaptureReport, Learnt)> = None;
        loop {
            n += 1;
            passes += 1;
            let (ops, mut report, mut new) = run_pass(p, profile, &learnt)?;
            let grew = std::mem::take(&mut new.changed);
            if !grew {
                finish_report(&mut report, &new, passes, false);
                return Ok((ops, report, new));
            }
            if n >= 16 {
                finish_report(&mut report, &new, passes, true);
                return Ok(match best {
                    Some((ops, mut b, l)) if explains_more(&b, &report) => {
                        b.passes = passes;
                        b.notes.push(format!(
                            "stopped after 16 replays that each learnt something new: the one with the fewest \
                             unexplained allocations stands ({} of the last)",
                            report.unexplained
                        ));
                        (ops, b, l)
                    }
                    _ => (ops, report, new),
                });
            }
            if best.as_ref().is_none_or(|(_, b, _)| explains_more(&report, b)) {
                let mut r = report;
                r.revisions = new.revisions.clone();
                best = Some((ops, r, learnt.clone()));
            }
            learnt = new;
        }
    };
    let (ops, report, learnt) = stage(Learnt::default())?;
    if report.unexplained == 0 {
        return Ok((ops, report, learnt));
    }
    // The first stage again, where an allocation of the capture may have been made for another
    // node than its trace line's CPU, run only where such a reading was open in its last
    // replay: kept only if it explains more.
    let again =
        if learnt.migration_open { Some(stage(Learnt { migrations: true, ..Learnt::default() })?) } else { None };
    let (ops, report, mut learnt) = match again {
        Some(again) if again.1.unexplained < report.unexplained && not_worse(&again.1, &report) => again,
        _ => (ops, report, learnt),
    };
    if report.unexplained == 0 {
        let mut report = report;
        report.passes = passes;
        return Ok((ops, report, learnt));
    }
    let base = report.clone();
    let mut best = (ops, report, learnt.clone());
    learnt.resync = true;
    for _ in 0..16 {
        passes += 1;
        let (ops, mut r, mut new) = run_pass(p, profile, &learnt)?;
        if !std::mem::take(&mut new.changed) {
            if not_worse(&r, &base) {
                finish_report(&mut r, &new, passes, false);
                best = (ops, r, new);
            }
            break;
        }
        learnt = new;
    }
    best.1.passes = passes;
    Ok(best)
}

/// Whether replay `r` is no worse than `base`: the first miss no earlier, no more of them,
/// every purge and the final busy set as well.
fn not_worse(r: &CaptureReport, base: &CaptureReport) -> bool {
    r.unexplained_lines.first().is_none_or(|l| Some(l) >= base.unexplained_lines.first())
        && r.unexplained <= base.unexplained
        && r.purges_equal >= base.purges_equal
        && (r.final_busy_equal == Some(true) || r.final_busy_equal == base.final_busy_equal)
}

/// Whether replay `a` explains more of the capture than `b`: no worse, and fewer unexplained
/// allocations or the first of them later.
fn explains_more(a: &CaptureReport, b: &CaptureReport) -> bool {
    not_worse(a, b) && (a.unexplained < b.unexplained || a.unexplained_lines.first() != b.unexplained_lines.first())
}

/// The report's last figures: how many replays it took, and each revision.
pub(super) fn finish_report(report: &mut CaptureReport, learnt: &Learnt, passes: usize, grew: bool) {
    report.passes = passes;
    report.revisions = learnt.revisions.clone();
    if grew {
        report.notes.push("stopped after 16 replays that each learnt something new".into());
    }
}

/// The state of one replay. It owns its parsed bundle when it is carried on as events come
/// ([`super::stream`]); a replay of a whole bundle borrows it.
pub(super) struct Pass<'p, 'a> {
    pub(super) p: Cow<'p, Parsed<'a>>,
    vmap: Steered,
    pub(super) report: CaptureReport,
    pub(super) learnt: Learnt,
    /// Busy areas of the "before" file whose node is a guess (the node of their address, or of
    /// the CPU that traced their allocation while the file was read: `read_prior`).
    guessed_node: HashSet<u64>,
    /// Busy areas of the "before" file allocated while it was read: their node first guessed
    /// from that trace line's CPU, and the line.
    read_prior: HashMap<u64, (u32, usize)>,
    /// Areas the free tree gave in this replay (the default window, a pool's size), their node
    /// the CPU of the trace line, which can be another than `node_alloc`'s: by start, the line.
    tree_alloc: HashMap<u64, usize>,
    /// Space shown free but held: [start, end) and the line that showed it. (Not the model's
    /// handle: a trial copy of the model that is adopted has its objects elsewhere in wasm, so
    /// the model finds held space by its start: [`Steered::release_held_at`].)
    held: Vec<(u64, u64, usize)>,
    /// Held blocks of unknown layout (what is left of them): [start, end), the line that
    /// showed the block.
    blocks: Vec<(u64, u64, usize)>,
    /// The entries each pool (node, index) kept at the last purge's decay, head first, before
    /// the purge pooled its own in front of them; the line of that purge.
    kept: BTreeMap<(u32, usize), Vec<u64>>,
    kept_line: usize,
    /// Entries a pool-length reading gave back in this replay ([start, end) and the reading's
    /// key in `Learnt::pool_lengths`), while the kernel has not allocated over them: free in
    /// the kernel too if the reading holds.
    given_by_length: Vec<(u64, u64, (usize, u32, usize))>,
    /// The entries each pool's decay gave back at that purge, head first, and the pool's
    /// length when it began ([`Pass::decayed_less`]).
    given: BTreeMap<(u32, usize), (Vec<u64>, usize)>,
    /// Shape facts met in this replay: (short block start, its end, search length) -> (it lay
    /// on the kernel's search path, the line that showed it, [`Pass::tree_gen`] then). While the
    /// block lasts: until an allocation takes from it or a purge gives the free tree entries
    /// back; and only for the tree it was read on.
    shapes: BTreeMap<(u64, u64, u64), (bool, usize, u64)>,
    /// Changes of the free tree's shape so far: allocations that removed a free block or split
    /// one in two (a node out or in, and the red-black rebalancing after it). A shape fact
    /// holds for the shape it was read on ([`Pass::shapes`] keeps the count it was read at).
    ///
    /// ```text
    ///   `find_vmap_lowest_match`: left while the left subtree holds a block of the search
    ///   length, else this block if the request fits it (short or not), else right.
    ///   A block shrinking at one edge only lowers subtree maxima above it: the walk turns
    ///   right earlier, onto higher blocks, never onto a short one it passed by before.
    /// ```
    tree_gen: u64,
    /// Untouched space: free in the "before" file (inside the vmalloc window) and allocated by
    /// nothing since, by start -> end. A pool entry from before the capture can only be there.
    untouched: BTreeMap<u64, u64>,
    /// Lazy areas in the order they were freed (model addresses).
    lazy_order: Vec<u64>,
    /// The trace line of each free of the capture, by start (the latest).
    freed_at: HashMap<u64, usize>,
    full_purge_due: bool,
    /// No purge replayed yet: the pools hold only entries from before the capture.
    first_purge: bool,
    /// The trace line from which no pool holds an entry from before the capture: the pools
    /// were drained there (the capture's marker) or the vmap node shrinker scanned them
    /// (`vmap_node_shrink_scan`: a full decay of every pool). `usize::MAX` if neither.
    emptied_at: usize,
    /// (node, pool index) of default-window allocations the kernel served from its free tree:
    /// that node's pool for that size was empty then (or its head misaligned), so it held no
    /// entry from before the capture that it still held later. Each such allocation's address
    /// and line, in trace order, when its space was untouched since the start: that area could
    /// have been the pool's head instead, an entry from before the capture (read so when a later
    /// allocation needs it: [`Pass::first_fit_was_head`]); `None` over touched space.
    tree_served: HashMap<(u32, usize), Vec<TreeAnswer>>,
    /// The stand-ins of unseen pool entries, by start: their pool.
    unseen_at: HashMap<u64, (u32, usize)>,
    /// The stand-ins of unseen entries behind the known ones ([`Learnt::unseen_behind`]).
    behind_at: HashMap<u64, (u32, usize)>,
    /// The stand-ins of unseen entries in front of one ([`Learnt::unseen_front`]): that one.
    front_at: HashMap<u64, u64>,
    /// An unexplained allocation was met in this replay: nothing learnt before it is revised
    /// from here on, and in the first stage nothing more is learnt ([`Pass::diverged`]).
    missed: bool,
    /// The allocation being read rests on a revision made earlier in this replay, nothing new:
    /// no fact is learnt at its line.
    rests_on_revision: bool,
    /// Pools (node, index) whose length this replay revised ([`Pass::decayed_less`]: shorter
    /// than the model's, the areas behind read as another node's, whose pool is so longer):
    /// their entries stay as they were until the next replay, so a later reading of a longer
    /// decay of one of them rests on a count already revised.
    recounted: HashSet<(u32, usize)>,
    /// [`Pass::decayed_more`] met a pool of `recounted`: the allocation waits for the next
    /// replay.
    stale_count: bool,
    /// At a mismatch, the entry the model pools under the kernel's area in the node an earlier
    /// reading gave it ([`Pass::pooled_by_reading`]), with that reading's line.
    read_under: Option<(u64, usize)>,
    /// The unexplained allocation this replay last read on from (0: none): the start of what
    /// it learns now.
    epoch_start: usize,
    /// The model's pool entries at the epoch's start: guesses, as the start state's pools are.
    epoch_pools: HashSet<u64>,
    /// Every entry a purge of the capture pooled (`purge_vmap_node`): the kernel pooled it then,
    /// in front of every entry from before the capture (`node_pool_add_va` adds at the head).
    purge_pooled: HashSet<u64>,
    /// The kernel's allocations by address, for the events so far ([`Pass::taken_first`]).
    alloc_index: Option<Rc<AllocIndex>>,
    /// The index in `p.events` of the event being replayed.
    pos: usize,
    /// Events replayed so far: `p.events[..fed]`.
    pub(super) fed: usize,
    /// A free traced `nr_lazy > nr_lazy_max` since the last purge: the drain work is scheduled
    /// (`free_vmap_area_noflush`), and its purge may run before its event is traced.
    drain_due: bool,
    /// Purge events already replayed earlier, where an allocation showed they had run: by
    /// line, the allocation's line.
    purged_early: HashMap<usize, usize>,
    /// A purge replayed up to a node, its rest not yet.
    split: Option<Split>,
    /// When the before file's lazy areas are one run for two nodes: each one's index in the
    /// run, while it has not been allocated since (its node is then the allocating CPU's).
    lazy_run: BTreeMap<u64, usize>,
    /// How many areas that run had (`lazy_run` loses each allocated since).
    lazy_run_len: usize,
    /// The line of each task's latest event, and of the event's task before it.
    task_line: HashMap<u64, usize>,
    prev_line: Option<usize>,
    /// The model as it was before the latest purge replayed at its event, and that event's line
    /// ([`Pass::searched_before_purge`]).
    before_purge: Option<(usize, Rc<Steered>)>,
    /// The model before the first of the purges traced one after another up to here, and
    /// that purge's line ([`Pass::purge`]).
    purge_run: Option<(usize, Rc<Steered>)>,
    /// Allocations replayed ahead of the purge they were traced after (by line).
    ahead: HashSet<usize>,
    /// The latest traced event at each start: its line, and whether it was a free.
    traced: HashMap<u64, (usize, bool)>,
    /// Of [`Learnt::untraced`], the allocations not made yet in this replay.
    untraced_open: BTreeMap<(usize, u64), (u64, usize)>,
    /// Each pool's purges, the pops and the allocations of this replay ([`Pass::flipped_nodes`]);
    /// `None` from a purge split at a node on (its decays are not one step per purge there).
    hist: Option<PoolHistory>,
    pub(super) ops: Vec<Op>,
}

/// A purge split at a node: its event's line and figures, the areas processed so far, the
/// model's lazy areas when it began.
#[derive(Clone, Copy, Debug)]
struct Split {
    line: usize,
    start: u64,
    end: u64,
    num_purged: u64,
    entries: u32,
    lazy: u64,
    /// The nodes decayed so far (0 up to this).
    decayed: u32,
}

/// Where the stand-ins of unseen pool entries lie (16 TiB into the vmalloc window, far above
/// every area a capture shows), one per stride (a pool's entry is at most 256 pages).
const UNSEEN_BASE: u64 = VMALLOC_START + (16 << 40);
const UNSEEN_STRIDE: u64 = 2 << 20;

/// The lowest stand-in address neither map has taken.
fn stand_in_slot(unseen_at: &HashMap<u64, (u32, usize)>, behind_at: &HashMap<u64, (u32, usize)>) -> u64 {
    (0u64..)
        .map(|i| UNSEEN_BASE + i * UNSEEN_STRIDE)
        .find(|a| !unseen_at.contains_key(a) && !behind_at.contains_key(a))
        .unwrap_or(UNSEEN_BASE)
}

/// Where the stand-ins of unseen entries in front of a known one lie ([`front_slot`]): above
/// the others'.
const FRONT_BASE: u64 = UNSEEN_BASE + (1 << 40);

/// A stand-in for an unseen entry in front of a known one ([`Learnt::unseen_front`]): a page
/// into a free slot, so misaligned for every request aligned above a page, as the kernel's
/// was (its requests moved it to the tail).
fn front_slot(front_at: &HashMap<u64, u64>) -> u64 {
    (0u64..)
        .map(|i| FRONT_BASE + i * UNSEEN_STRIDE + PAGE_SIZE)
        .find(|a| !front_at.contains_key(a))
        .unwrap_or(FRONT_BASE + PAGE_SIZE)
}

/// The most unseen entries [`Pass::entries_behind`] reads behind a known one, and in front of it.
const MAX_BEHIND: u32 = 16;
const MAX_FRONT: u32 = 4;

/// Purges a pool's history keeps ([`Pass::record_purge`]).
const MAX_POOL_HISTORY: usize = 256;

fn run_pass(
    p: &Parsed<'_>,
    profile: Profile,
    learnt: &Learnt,
) -> Result<(Vec<Op>, CaptureReport, Learnt), CaptureError> {
    let mut pass = start_pass(Cow::Borrowed(p), profile, learnt)?;
    pass.learnt.migration_open = false;
    pass.feed_to(p.events.len());
    pass.compare_after();
    Ok((pass.ops, pass.report, pass.learnt))
}

/// A replay set up from the before file and what earlier replays learnt, no event replayed.
pub(super) fn start_pass<'p, 'a>(
    src: Cow<'p, Parsed<'a>>,
    profile: Profile,
    learnt: &Learnt,
) -> Result<Pass<'p, 'a>, CaptureError> {
    let p: &Parsed<'a> = &src;
    let bname = p.bundle.before.name;
    let possible = p.possible.len() as u64;
    let online = p.online.len() as u64;
    let mut vmap = Steered::new(profile);
    vmap.set_cpus(possible).map_err(|e| cerr(p.bundle.cpus.name, 1, e.to_string()))?;
    if online < possible {
        vmap.set_online(online).map_err(|e| cerr(p.bundle.cpus.name, 2, e.to_string()))?;
    }
    vmap.set_defer_drain(true);
    vmap.ensure_init();
    let nodes = vmap.nr_vmap_nodes();
    let mut report = CaptureReport {
        kernel: p.bundle.uname.map(|u| u.text.trim().to_string()),
        profile: Some(profile),
        possible: possible as u32,
        online: online as u32,
        nodes,
        lazy_max_pages: vmap.lazy_max_pages(),
        start_lazy: vec![0; nodes as usize],
        ..Default::default()
    };
    let mut ops = vec![Op::Profile(profile), Op::Cpus(possible)];
    if online < possible {
        ops.push(Op::Online(online));
    }
    ops.push(follow(Follow::DeferDrain));

    // The before file: busy areas, every node's in turn, then the lazy ones, every node's in
    // turn; each list ascending. A drop in address starts the next node's list.
    let busy: Vec<&import::InfoLine> = p.before.iter().filter(|a| a.kind != InfoKind::Unpurged).collect();
    // `vmalloc_info_show` prints every node's busy list, then every lazy list, while the kernel
    // goes on: an area freed between the two prints shows in both. It was busy when the read
    // began; its free, traced during the read, is replayed (the file's lazy line is left out).
    let busy_at: HashSet<(u64, u64)> = busy.iter().map(|a| (a.start, a.end)).collect();
    let (lazy, freed_in_read): (Vec<&import::InfoLine>, Vec<&import::InfoLine>) =
        p.before.iter().filter(|a| a.kind == InfoKind::Unpurged).partition(|a| !busy_at.contains(&(a.start, a.end)));
    if let Some(a) = freed_in_read.first() {
        report.notes.push(format!(
            "{bname} line {}: [{:#x}, {:#x}) is busy and lazy in the file ({} such areas): freed while the file \
             was read; taken as busy, its traced free replayed",
            a.line,
            a.start,
            a.end,
            freed_in_read.len()
        ));
    }
    if let Some(first_lazy) = lazy.first() {
        if let Some(late) = busy.iter().find(|a| a.line > first_lazy.line) {
            report.notes.push(format!(
                "{bname} line {}: a busy area after the first unpurged one (line {}): not the order vmalloc_info_show prints",
                late.line, first_lazy.line
            ));
        }
    }
    let mut prev_node = 0;
    for a in &busy {
        let n = vmap.addr_to_node_id(a.start);
        if n < prev_node && report.notes.len() < 20 {
            report.notes.push(format!(
                "{bname} line {}: [{:#x}, {:#x}) belongs to node {n} by its address but comes after node {prev_node}'s \
                 areas: the file changed while it was read, or {} does not give the kernel's possible CPUs",
                a.line, a.start, a.end, p.bundle.cpus.name
            ));
        }
        prev_node = prev_node.max(n);
    }
    let mut seg = 0u32;
    let mut prev = 0u64;
    let mut lazy_node: Vec<u32> = Vec::with_capacity(lazy.len());
    for a in &lazy {
        if a.start < prev {
            seg += 1;
        }
        prev = a.start;
        lazy_node.push(seg);
    }
    let segs = if lazy.is_empty() { 0 } else { seg + 1 };
    if segs > nodes {
        return Err(cerr(
            bname,
            lazy.get(lazy_node.iter().position(|&s| s == nodes).unwrap_or(0)).map_or(0, |a| a.line),
            format!(
                "{segs} lazy lists (unpurged vm_area runs) but {nodes} vmap nodes: {} does not match",
                p.bundle.cpus.name
            ),
        ));
    }
    // Two nodes, one ascending run: node 0's list then node 1's, either maybe empty. Where
    // node 1's begins is an unknown (first taken to be after the run), learnt when a pool
    // shows it (`Pass::lazy_split_from`).
    let ambiguous = segs == 1 && nodes == 2 && profile.has_vmap_nodes();
    let mut lazy_run = BTreeMap::new();
    if ambiguous {
        let split = learnt.lazy_split.unwrap_or(lazy.len());
        for (i, (n, a)) in lazy_node.iter_mut().zip(&lazy).enumerate() {
            *n = u32::from(i >= split);
            lazy_run.insert(a.start, i);
        }
        report.notes.push(format!(
            "the {} lazy areas of {bname} are one ascending run: node 0's list, then node 1's; {}",
            lazy.len(),
            match learnt.lazy_split {
                None => "taken to be all node 0's (where node 1's begins is learnt when a pool shows it)".to_string(),
                Some(k) => format!("node 1's begins at area {} of the run (learnt from a pool)", k + 1),
            }
        ));
    } else if segs > 0 && segs < nodes {
        report.notes.push(format!(
            "{segs} of the {nodes} nodes print lazy areas: taken to be nodes 0..{} (an empty lazy list prints nothing, \
             so which nodes they are is a guess)",
            segs - 1
        ));
    }

    // A busy area whose allocation was traced while the file was read (left out: the file
    // shows it). `node_alloc` gave it the vn_id of its CPU's node, which that trace line names
    // (still a guess, as for any free-tree answer of the capture: a task that rescheduled after
    // its search is traced on another CPU).
    let mut read_prior: HashMap<u64, (u32, usize)> = HashMap::default();
    for e in p.events.iter().take_while(|e| e.in_read) {
        if let FtraceEvent::Alloc { addr, req, failed: false } = e.ev {
            if busy_at.contains(&(addr, addr.wrapping_add(req.size))) {
                read_prior.insert(addr, (e.cpu % nodes.max(1), e.line));
            }
        }
    }

    // Place every area, in address order (so that each lands in a free block).
    let mut order: Vec<(u64, u64, Option<u32>, usize)> = Vec::new();
    let mut guessed_node = HashSet::default();
    for a in &busy {
        let in_window = a.start >= VMALLOC_START && a.end <= VMALLOC_END;
        let node = if !in_window || nodes < 2 {
            None
        } else if let Some(&n) = learnt.nodes.get(&a.start) {
            if nodes > 2 || learnt.flip_read.contains(&a.start) {
                // One of the other nodes; still a guess until the kernel takes it from a pool.
                guessed_node.insert(a.start);
            }
            Some(n)
        } else {
            guessed_node.insert(a.start);
            Some(read_prior.get(&a.start).map_or_else(|| vmap.addr_to_node_id(a.start), |&(n, _)| n))
        };
        order.push((a.start, a.end, node, a.line));
    }
    for (a, &n) in lazy.iter().zip(&lazy_node) {
        order.push((a.start, a.end, Some(n), a.line));
    }
    order.sort_by_key(|o| o.0);
    let mut untouched = BTreeMap::new();
    let mut cursor = VMALLOC_START;
    for w in order.windows(2) {
        if w[1].0 < w[0].1 {
            return Err(cerr(
                bname,
                w[1].3,
                format!("[{:#x}, {:#x}) overlaps the area of line {}", w[1].0, w[1].1, w[0].3),
            ));
        }
    }
    for &(s, e, node, line) in &order {
        let busy_node = if profile.has_vmap_nodes() { node } else { None };
        vmap.place_busy(s, e, busy_node).map_err(|m| cerr(bname, line, m))?;
        ops.push(follow(Follow::Place { start: s, end: e, node: busy_node }));
        if s > cursor && s <= VMALLOC_END {
            untouched.insert(cursor, s.min(VMALLOC_END));
        }
        cursor = cursor.max(e);
    }
    if cursor < VMALLOC_END {
        untouched.insert(cursor, VMALLOC_END);
    }
    for (a, &n) in lazy.iter().zip(&lazy_node) {
        if profile.has_vmap_nodes() && nodes > 1 {
            // Lazy on node n's list: its vn_id names node n (else it would be on the list of its
            // address's node, which may be n too: then taken to be n as well).
            vmap.make_lazy(a.start, n, Some(n)).map_err(|m| cerr(bname, a.line, m))?;
            ops.push(follow(Follow::Lazy { start: a.start, node: n }));
        } else {
            vmap.vfree(a.start, &mut NoObserver).map_err(|e| cerr(bname, a.line, e.to_string()))?;
            ops.push(Op::Vfree(a.start));
        }
        report.start_lazy[n.min(nodes - 1) as usize] += 1;
    }
    report.start_busy = busy.len();
    let lazy_order: Vec<u64> = lazy.iter().map(|a| a.start).collect();

    // Pool entries learnt in earlier passes, at the tails, in the order the kernel took them
    // (a reading can find an entry taken before those found earlier: [`Pass::first_fit_was_head`]).
    let mut pooled = learnt.pooled.clone();
    pooled.sort_by_key(|&(_, a, _)| learnt.entry_from.get(&a).copied().unwrap_or(usize::MAX));
    // Unseen entries of a pool (their number learnt, their addresses never shown) stand in
    // front of the known ones that the kernel took after the first purge, behind those it took
    // before: stand-ins far above every area, which no search reaches and a decay gives back
    // to a free block of its own.
    let first_purge =
        p.events.iter().find(|e| matches!(e.ev, FtraceEvent::Purge { .. })).map_or(usize::MAX, |e| e.line);
    let mut unseen_at = HashMap::default();
    let mut unseen_left = learnt.unseen.clone();
    let mut place_unseen = |vmap: &mut Steered, ops: &mut Vec<Op>, key: (u32, usize)| {
        let Some(k) = unseen_left.remove(&key) else { return };
        let size = (key.1 as u64 + 1) * PAGE_SIZE;
        for _ in 0..k {
            let start = UNSEEN_BASE + unseen_at.len() as u64 * UNSEEN_STRIDE;
            if vmap.pool_at_tail(start, size, key.0) {
                unseen_at.insert(start, key);
                ops.push(follow(Follow::Pooled { node: key.0, start, size, head: false, behind: 0 }));
            }
        }
    };
    let epoch0 = |line: usize| learnt.epoch(line) == 0;
    let mut front_at = HashMap::default();
    for &(node, start, size) in &pooled {
        if !learnt.entry_from.get(&start).is_none_or(|&l| epoch0(l)) {
            continue;
        }
        if learnt.entry_from.get(&start).is_some_and(|&l| l > first_purge) {
            place_unseen(&mut vmap, &mut ops, (node, pool_idx(size)));
        }
        if let Some(f) = learnt.unseen_front.get(&start) {
            let fsize = (f.key.1 as u64 + 1) * PAGE_SIZE;
            for &k in &f.known {
                if vmap.pool_at_tail(k, fsize, f.key.0) {
                    take_untouched(&mut untouched, k, k + fsize);
                    ops.push(follow(Follow::Pooled { node: f.key.0, start: k, size: fsize, head: false, behind: 0 }));
                }
            }
            for _ in f.known.len() as u32..f.count {
                let s = front_slot(&front_at);
                if vmap.pool_at_tail(s, fsize, f.key.0) {
                    front_at.insert(s, start);
                    ops.push(follow(Follow::Pooled { node: f.key.0, start: s, size: fsize, head: false, behind: 0 }));
                }
            }
        }
        if vmap.pool_at_tail(start, size, node) {
            take_untouched(&mut untouched, start, start + size);
            ops.push(follow(Follow::Pooled { node, start, size, head: false, behind: 0 }));
        }
    }
    for key in learnt.unseen.keys() {
        place_unseen(&mut vmap, &mut ops, *key);
    }
    // Unseen entries behind every known one: the oldest of their pools.
    let mut behind_at = HashMap::default();
    for (&key, &(k, _)) in &learnt.unseen_behind {
        let size = (key.1 as u64 + 1) * PAGE_SIZE;
        for _ in 0..k {
            let start = stand_in_slot(&unseen_at, &behind_at);
            if vmap.pool_at_tail(start, size, key.0) {
                behind_at.insert(start, key);
                ops.push(follow(Follow::Pooled { node: key.0, start, size, head: false, behind: 0 }));
            }
        }
    }

    // From here on, every change the requests do not say is logged for the printed trace.
    vmap.log_oracle(true);
    // Space shown free but held, and blocks of unknown layout, learnt in earlier passes.
    let (held, blocks) = hold_learnt(
        &mut vmap,
        &mut untouched,
        &mut report,
        learnt.held.iter().copied().filter(|h| epoch0(h.2)),
        learnt.blocks.iter().copied().filter(|b| epoch0(b.2)),
    );

    ops.extend(vmap.take_oracle_log().into_iter().map(|c| follow(c.into())));

    let learnt = learnt.clone();
    let untraced_open = learnt.untraced.clone();
    let hist = PoolHistory { held: learnt.held_obs.clone(), ..PoolHistory::default() };
    let mut notes: Vec<String> =
        p.trace_notes.iter().map(|(k, n)| format!("{} line {k}: {n}", p.bundle.trace.name)).collect();
    if let Some(first_free) = p.events.iter().find_map(|e| match e.ev {
        FtraceEvent::Free { va_start, nr_lazy, nr_lazy_max } => Some((e.line, va_start, nr_lazy, nr_lazy_max)),
        _ => None,
    }) {
        let (line, _, _, max) = first_free;
        if max != vmap.lazy_max_pages() {
            notes.push(format!(
                "{} line {line}: nr_lazy_max={max}, but {} online CPUs give lazy_max_pages {}",
                p.bundle.trace.name,
                online,
                vmap.lazy_max_pages()
            ));
        }
    }
    report.notes.extend(notes);
    let scanned = src.events.iter().find(|e| matches!(e.ev, FtraceEvent::Shrink { scanned: true, .. }));
    let emptied_at = src.drained.unwrap_or(usize::MAX).min(scanned.map_or(usize::MAX, |e| e.line));
    report.pools_emptied_at = Some(emptied_at).filter(|&l| l != usize::MAX);
    Ok(Pass {
        p: src,
        vmap,
        report,
        learnt,
        guessed_node,
        read_prior,
        tree_alloc: HashMap::default(),
        held,
        blocks,
        shapes: BTreeMap::new(),
        tree_gen: 0,
        kept: BTreeMap::new(),
        kept_line: 0,
        given_by_length: Vec::new(),
        given: BTreeMap::new(),
        untouched,
        lazy_order,
        freed_at: HashMap::default(),
        full_purge_due: false,
        first_purge: true,
        emptied_at,
        tree_served: HashMap::default(),
        unseen_at,
        behind_at,
        front_at,
        hist: Some(hist),
        untraced_open,
        traced: HashMap::default(),
        missed: false,
        rests_on_revision: false,
        recounted: HashSet::default(),
        stale_count: false,
        read_under: None,
        epoch_start: 0,
        epoch_pools: HashSet::default(),
        purge_pooled: HashSet::default(),
        alloc_index: None,
        pos: 0,
        drain_due: false,
        purged_early: HashMap::default(),
        split: None,
        lazy_run_len: lazy_run.len(),
        lazy_run,
        task_line: HashMap::default(),
        prev_line: None,
        before_purge: None,
        purge_run: None,
        ahead: HashSet::default(),
        ops,
        fed: 0,
    })
}

/// Space held: [start, end) and the line that showed it.
type Span = (u64, u64, usize);

/// Hold what earlier replays learnt held, where it is free now (at the start, or at an epoch's
/// start: [`Pass::read_on`]): the areas `held`, and the blocks of unknown layout `blocks`
/// whole (what of each is free: the pool entries learnt in it are in their pools). The areas
/// held, and the blocks' free pieces.
fn hold_learnt(
    vmap: &mut Steered,
    untouched: &mut BTreeMap<u64, u64>,
    report: &mut CaptureReport,
    held: impl Iterator<Item = Span>,
    blocks: impl Iterator<Item = Span>,
) -> (Vec<Span>, Vec<Span>) {
    let mut areas = Vec::new();
    for (s, e, line) in held {
        if vmap.hold_free(s, e).is_some() {
            take_untouched(untouched, s, e);
            areas.push((s, e, line));
            report.resolved_held_free += 1;
        }
    }
    let mut pieces_held = Vec::new();
    for (s, e, line) in blocks {
        let pieces = hold_free_in(vmap, s, e);
        if !pieces.is_empty() {
            take_untouched(untouched, s, e);
            report.resolved_held_blocks += 1;
        }
        pieces_held.extend(pieces.into_iter().map(|(a, b, _)| (a, b, line)));
    }
    (areas, pieces_held)
}

/// The line of the part of the purge traced at `purge` (in a pool's history `recs`) whose walk
/// of the node's taken list reached `a`: `purge_vmap_node` walks it in address order and pools each
/// area as it goes, so an area read on this node is pooled by the part that walked past it
/// (a purge replayed in parts: [`PoolRec::walked`]).
fn walked_past(recs: &[PoolRec], purge: usize, a: u64) -> usize {
    recs.iter().filter(|r| r.purge == purge).find(|r| r.walked.is_none_or(|w| a <= w)).map_or(purge, |r| r.line)
}

/// What [`Pass::flip_search`] asks of an entry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// The pool's head now.
    Head,
    /// Still in the pool.
    Kept,
    /// Given back by a decay (in neither pool).
    GivenBack,
}

/// A purge's stage, for the report.
fn stage_text(stage: Option<PurgeStop>) -> String {
    match stage {
        Some(PurgeStop::Decayed(0)) => "node 0's pools decayed and its lazy list taken, nothing given back".into(),
        Some(PurgeStop::Decayed(k)) => {
            format!("nodes 0-{k}'s pools decayed and their lazy lists taken, nothing given back")
        }
        Some(PurgeStop::Processed(0)) => "every node decayed, node 0's lazy areas given back".into(),
        Some(PurgeStop::Processed(k)) => format!("every node decayed, nodes 0-{k}'s lazy areas given back"),
        Some(PurgeStop::Through(a)) => {
            format!("every node decayed, the lazy areas of {a:#x}'s node given back in address order up to it")
        }
        None => "all of it done".into(),
    }
}

/// A capture-following line ([`crate::capture::follow`]).
fn follow(f: Follow) -> Op {
    Op::Follow(Box::new(f))
}

/// The index of the pool for `size` (`size_to_va_pool`: one pool per page count).
fn pool_idx(size: u64) -> usize {
    (size.wrapping_sub(1) / PAGE_SIZE) as usize
}

/// Hold every free piece of `[s, e)` (see [`Steered::hold_free`]): (start, end, handle) each.
fn hold_free_in(vmap: &mut Steered, s: u64, e: u64) -> Vec<(u64, u64, u32)> {
    let mut out = Vec::new();
    let mut at = s;
    while let Some((fs, fe)) = vmap.free_block_from(at).filter(|&(fs, _)| fs < e) {
        let (a, t) = (fs.max(at), fe.min(e));
        if let Some(va) = vmap.hold_free(a, t) {
            out.push((a, t, va));
        }
        if t <= at {
            break;
        }
        at = t;
    }
    out
}

/// Whole free blocks held in a trial: start, end, handle.
type HeldBlocks = Vec<(u64, u64, u32)>;

/// Hold, in a trial, each whole free block the model's search for `req` would take below `x`
/// (its space untouched since the start, below `x`) until `done` holds for the prediction. No
/// bound: `find_vmap_lowest_match` passes over any number of blocks too short, and each block
/// held here is untouched space taken out, so the walk ends. The prediction and the blocks (start, end, handle).
/// An entry a decay gave back: its start, size, position among those given, and its pool's
/// lists then (what the decay gave back, what it kept).
type GivenEntry<'l> = (u64, u64, usize, &'l [u64], &'l [u64]);

/// Of entries `(start, size)` a decay gave back inside the free block `blk` below the kernel's
/// answer `x` (ascending), the one the kernel's free-tree search shows it kept: kept alone, it
/// leaves the block no fit for the request below `x`, neither below the entry nor above it
/// (`find_vmap_lowest_match` takes the lowest fit). Else the lowest; `None` if there is none.
fn passed_over_entry(
    entries: impl Iterator<Item = (u64, u64)> + Clone,
    blk: (u64, u64),
    x: u64,
    req: AllocReq,
) -> Option<usize> {
    let (lo, hi) = blk;
    let at =
        |s: u64| s.checked_next_multiple_of(req.align).filter(|b| b.checked_add(req.size).is_some_and(|t| t <= hi));
    let shows =
        |&(a, size): &(u64, u64)| at(lo).is_none_or(|b| b + req.size > a) && at(a + size).is_none_or(|b| b >= x);
    entries.clone().position(|e| shows(&e)).or_else(|| entries.clone().next().map(|_| 0))
}

fn hold_blocks_below(
    untouched: &BTreeMap<u64, u64>,
    trial: &mut HoldTrial<'_>,
    x: u64,
    req: AllocReq,
    pred: Prediction,
    done: impl Fn(&Prediction) -> bool,
) -> Option<(Prediction, HeldBlocks)> {
    match walk_blocks_below(untouched, trial, x, req, pred, done)? {
        Below::Done(p, found) => Some((p, found)),
        Below::Touched(_) => None,
    }
}

/// Where [`walk_blocks_below`] stopped: `done`, with the blocks it held; or at the model's
/// answer in a free block below `x` with no space untouched since the start (the capture knows
/// its layout), the prediction there.
enum Below {
    Done(Prediction, HeldBlocks),
    Touched(Prediction),
}

/// [`hold_blocks_below`]'s walk: each free block the model's search finds below `x`, its space
/// untouched since the start held, until `done`; `None` where the search leaves the free tree
/// or reaches `x` first.
fn walk_blocks_below(
    untouched: &BTreeMap<u64, u64>,
    trial: &mut HoldTrial<'_>,
    x: u64,
    req: AllocReq,
    pred: Prediction,
    done: impl Fn(&Prediction) -> bool,
) -> Option<Below> {
    let AllocReq { size, align, vstart, vend } = req;
    let mut p = pred;
    let mut found = Vec::new();
    while !done(&p) {
        let (None, Some(y)) = (p.pool_hit, p.tree) else { return None };
        let Place::Free { start, end } = trial.locate(y) else { return None };
        // The block holding x too: its part below x was passed over. The kernel's free block
        // began at x (its first fit with no alignment starts a block), or, aligned, less than
        // `align` below it (`find_vmap_lowest_match` takes the lowest block where the aligned
        // start fits, and that start is x): read as beginning at x, the rest held.
        let end = end.min(x);
        if y >= x {
            return None;
        }
        // Its space untouched since the start (the rest was allocated or given back
        // during the capture, and is known): where the entries that split it were.
        let runs = untouched_in(untouched, start, end);
        if runs.is_empty() {
            return Some(Below::Touched(p));
        }
        for (a, b) in runs {
            found.push((a, b, trial.hold_free(a, b)?));
        }
        p = trial.predict_alloc(size, align, vstart, vend);
    }
    Some(Below::Done(p, found))
}

/// Holding and giving back free space: on the model, or on a model under a trial.
trait Holds {
    fn hold_free(&mut self, start: u64, end: u64) -> Option<u32>;
    fn release_held_at(&mut self, start: u64) -> bool;
}

impl Holds for Steered {
    fn hold_free(&mut self, start: u64, end: u64) -> Option<u32> {
        Steered::hold_free(self, start, end)
    }
    fn release_held_at(&mut self, start: u64) -> bool {
        Steered::release_held_at(self, start)
    }
}

impl Holds for HoldTrial<'_> {
    fn hold_free(&mut self, start: u64, end: u64) -> Option<u32> {
        HoldTrial::hold_free(self, start, end)
    }
    fn release_held_at(&mut self, start: u64) -> bool {
        HoldTrial::release_held_at(self, start)
    }
}

/// [`Pass::unhold_blocks`] on a model and its list of held blocks (a trial's copies, or the
/// pass's own).
fn unhold_blocks_in(
    vmap: &mut impl Holds,
    blocks: &mut Vec<(u64, u64, usize)>,
    x: u64,
    end: u64,
) -> Option<(u64, u64, usize)> {
    let mut first = None;
    while let Some(i) = blocks.iter().position(|&(a, b, _)| a < end && x < b) {
        let (a, b, from) = blocks.remove(i);
        first.get_or_insert((a, b, from));
        vmap.release_held_at(a);
        for (s, t) in [(a, x.max(a)), (end.min(b), b)] {
            if t > s && vmap.hold_free(s, t).is_some() {
                blocks.push((s, t, from));
            }
        }
    }
    first
}

/// A purge replayed on `t` to `stage` from the pools `before` it: whether its decays, had they
/// given back more from the head ([`Pass::decayed_more`]: the kernel's `len` counted entries
/// from before the capture), give the kernel's address `x` for `req`. Per pool a node of the
/// stage decayed, every entry the decay kept up to the last one under `[x, x + size)` is given
/// back on `t`; `false` if none lies there. With `own` (the replay exact so far), where that
/// last one is the kernel's area, whole, it stays: the head the longer decay left, which
/// `node_pool_del_va` gave.
fn decayed_more_in(
    t: &mut Steered,
    before: &[(u32, usize, Vec<u64>)],
    stage: Option<PurgeStop>,
    x: u64,
    req: AllocReq,
    own: bool,
) -> bool {
    let AllocReq { size, align, vstart, vend } = req;
    let Some(end) = x.checked_add(size) else { return false };
    let decayed = |n: u32| !matches!(stage, Some(PurgeStop::Decayed(k)) if n > k);
    let mut pooled = pool_starts(t);
    let mut any = false;
    for (_, idx, list) in before.iter().filter(|(n, _, _)| decayed(*n)) {
        let len = (*idx as u64 + 1) * PAGE_SIZE;
        let kept: Vec<u64> = list.iter().copied().filter(|a| pooled.contains(a)).collect();
        let Some(last) = kept.iter().rposition(|&a| a < end && x < a + len) else { continue };
        // The kernel's answer that pool's entry, whole: the head its decay left.
        let upto = if own && kept[last] == x && len == size { last } else { last + 1 };
        for a in &kept[..upto] {
            pooled.remove(a);
            t.unpool_overlapping(*a, PAGE_SIZE);
        }
        any = true;
    }
    any && t.predict_alloc(size, align, vstart, vend).addr() == Some(x)
}

/// Each of `entries` still a pool entry goes back to the free tree (a decay's `len >> 2` from
/// the head, read as longer than the model's).
fn give_back_pooled(t: &mut Steered, entries: &[u64]) {
    for &a in entries {
        if matches!(t.locate(a), Place::Pooled { start, .. } if start == a) {
            t.unpool_overlapping(a, PAGE_SIZE);
        }
    }
}

/// The kernel's allocations by address: the indices in `events` of each address's, in
/// order. Not of a size some request asks more than page alignment for: `node_alloc` moves a
/// head not so aligned to the tail, so that pool's order is not its adds' alone.
pub(super) struct AllocIndex {
    /// The events indexed: `events[..upto]`.
    upto: usize,
    at: HashMap<u64, Vec<usize>>,
}

impl AllocIndex {
    fn new(events: &[Ev]) -> AllocIndex {
        let aligned: HashSet<u64> = events
            .iter()
            .filter_map(|e| match e.ev {
                FtraceEvent::Alloc { req, .. } if req.align > PAGE_SIZE => Some(req.size),
                _ => None,
            })
            .collect();
        let mut at: HashMap<u64, Vec<usize>> = HashMap::default();
        for (i, e) in events.iter().enumerate() {
            if let FtraceEvent::Alloc { addr, req, failed: false } = e.ev {
                if !aligned.contains(&req.size) {
                    at.entry(addr).or_default().push(i);
                }
            }
        }
        AllocIndex { upto: events.len(), at }
    }

    /// The kernel's first allocation at `addr` after `events[pos]`.
    fn first_after<'e>(&self, events: &'e [Ev], pos: usize, addr: u64) -> Option<&'e Ev> {
        let v = self.at.get(&addr)?;
        v.get(v.partition_point(|&i| i <= pos)).and_then(|&i| events.get(i))
    }
}

/// The start of every pool entry of `t` (one walk of the pools, where a lookup per address
/// would walk them each time).
fn pool_starts(t: &Steered) -> HashSet<u64> {
    t.pools_snapshot().into_iter().flat_map(|(_, _, v)| v).collect()
}

/// Remove `[s, e)` from the untouched space.
fn take_untouched(u: &mut BTreeMap<u64, u64>, s: u64, e: u64) {
    let hits: Vec<(u64, u64)> = u.range(..e).rev().take_while(|&(_, &ue)| ue > s).map(|(&a, &b)| (a, b)).collect();
    for (a, b) in hits {
        if b <= s || a >= e {
            continue;
        }
        u.remove(&a);
        if a < s {
            u.insert(a, s);
        }
        if e < b {
            u.insert(e, b);
        }
    }
}

/// Give `[s, e)` back to the untouched space (held space found to be free again), merged with
/// the runs it touches.
fn add_untouched(u: &mut BTreeMap<u64, u64>, s: u64, e: u64) {
    let (mut s, mut e) = (s, e);
    if let Some((&a, &b)) = u.range(..=s).next_back() {
        if b >= s {
            u.remove(&a);
            s = a;
            e = e.max(b);
        }
    }
    while let Some((&a, &b)) = u.range(s..=e).next() {
        u.remove(&a);
        e = e.max(b);
    }
    u.insert(s, e);
}

/// The untouched runs inside `[s, e)`, clipped to it, ascending.
fn untouched_in(u: &BTreeMap<u64, u64>, s: u64, e: u64) -> Vec<(u64, u64)> {
    let first = u.range(..=s).next_back().map_or(s, |(&a, _)| a);
    u.range(first..e).map(|(&a, &b)| (a.max(s), b.min(e))).filter(|(a, b)| a < b).collect()
}

fn is_untouched(u: &BTreeMap<u64, u64>, s: u64, e: u64) -> bool {
    u.range(..=s).next_back().is_some_and(|(_, &ue)| ue >= e)
}

impl<'a> Pass<'_, 'a> {
    /// Replay the events up to `p.events[..end]`.
    pub(super) fn feed_to(&mut self, end: usize) {
        while self.fed < end.min(self.p.events.len()) {
            self.pos = self.fed;
            let e = self.p.events[self.fed].clone();
            self.event(&e);
            if !self.untraced_open.is_empty() {
                self.untraced(e.line);
            }
            self.fed += 1;
        }
    }

    /// A copy of this replay that borrows its parsed bundle: carried on to the end of the
    /// events while this one stays where it is. Its operations are the ones it adds (this
    /// replay's come before them): the copy costs the model, not the events replayed.
    pub(super) fn fork(&self) -> Pass<'_, 'a> {
        Pass {
            p: Cow::Borrowed(&*self.p),
            vmap: self.vmap.clone(),
            report: self.report.clone(),
            learnt: self.learnt.clone(),
            guessed_node: self.guessed_node.clone(),
            read_prior: self.read_prior.clone(),
            tree_alloc: self.tree_alloc.clone(),
            held: self.held.clone(),
            blocks: self.blocks.clone(),
            shapes: self.shapes.clone(),
            tree_gen: self.tree_gen,
            kept: self.kept.clone(),
            kept_line: self.kept_line,
            given_by_length: self.given_by_length.clone(),
            given: self.given.clone(),
            untouched: self.untouched.clone(),
            lazy_order: self.lazy_order.clone(),
            freed_at: self.freed_at.clone(),
            full_purge_due: self.full_purge_due,
            first_purge: self.first_purge,
            emptied_at: self.emptied_at,
            tree_served: self.tree_served.clone(),
            unseen_at: self.unseen_at.clone(),
            behind_at: self.behind_at.clone(),
            front_at: self.front_at.clone(),
            hist: self.hist.clone(),
            untraced_open: self.untraced_open.clone(),
            traced: self.traced.clone(),
            missed: self.missed,
            rests_on_revision: self.rests_on_revision,
            recounted: self.recounted.clone(),
            stale_count: false,
            read_under: None,
            epoch_start: self.epoch_start,
            epoch_pools: self.epoch_pools.clone(),
            purge_pooled: self.purge_pooled.clone(),
            alloc_index: self.alloc_index.clone(),
            pos: self.pos,
            drain_due: self.drain_due,
            purged_early: self.purged_early.clone(),
            split: self.split,
            lazy_run: self.lazy_run.clone(),
            lazy_run_len: self.lazy_run_len,
            task_line: self.task_line.clone(),
            prev_line: self.prev_line,
            before_purge: self.before_purge.clone(),
            purge_run: self.purge_run.clone(),
            ahead: self.ahead.clone(),
            ops: Vec::new(),
            fed: self.fed,
        }
    }

    /// The model's logged changes ([`crate::capture::oracle::OracleChange`]) as trace lines.
    fn drain_log(&mut self) {
        let log = self.vmap.take_oracle_log();
        self.ops.extend(log.into_iter().map(|c| follow(c.into())));
    }

    /// An operation of the printed trace, after the changes made before it.
    fn push(&mut self, op: Op) {
        self.drain_log();
        self.ops.push(op);
    }

    fn tname(&self) -> &str {
        self.p.bundle.trace.name
    }

    fn event(&mut self, e: &Ev) {
        if self.ahead.contains(&e.line) {
            return;
        }
        let what = match e.ev {
            FtraceEvent::Alloc { failed: false, .. } => Some("the one"),
            FtraceEvent::Purge { .. } if !self.purged_early.contains_key(&e.line) => Some("the purge"),
            _ => None,
        };
        if let Some(what) = what {
            self.replay_ahead(e, what);
        }
        self.event_now(e);
    }

    /// The allocations searched before event `e` (`what` it is) and traced after it
    /// ([`Learnt::searched_early`]), each replayed once, before it.
    fn replay_ahead(&mut self, e: &Ev, what: &str) {
        let pos = self.pos;
        for i in self.learnt.searched_early.get(&e.line).cloned().unwrap_or_default() {
            let a = self.p.events[i].clone();
            if !self.ahead.insert(a.line) {
                continue;
            }
            if matches!(e.ev, FtraceEvent::Purge { .. }) {
                self.report.searched_before_purge += 1;
            } else {
                self.report.searched_before_alloc += 1;
            }
            self.note(format!(
                "{} line {}: the allocation searched before {what} traced at line {} (its task yielded at the \
                 cond_resched() after the search and was traced when it ran again): replayed before it",
                self.tname(),
                a.line,
                e.line
            ));
            self.pos = i;
            self.event_now(&a);
        }
        self.pos = pos;
    }

    fn event_now(&mut self, e: &Ev) {
        match e.ev {
            // No task's event (the yield rules read tasks' lines): the shrinker ran in reclaim.
            FtraceEvent::Shrink { cache_items, scanned } => self.shrink(e, cache_items, scanned),
            FtraceEvent::Alloc { addr, req, failed } => {
                if self.task_event(e) {
                    self.alloc(e, addr, req, failed)
                }
            }
            FtraceEvent::Free { va_start, nr_lazy, nr_lazy_max } => {
                if self.task_event(e) {
                    self.drain_due |= nr_lazy > nr_lazy_max;
                    self.free(e, va_start)
                }
            }
            FtraceEvent::Purge { start, end, num_purged } => {
                if self.task_event(e) {
                    self.purge(e, start, end, num_purged)
                }
            }
        }
    }

    /// What every task's event does first: its task's last line kept, the CPU it ran on (or
    /// the node's CPU an allocation was read as made for) switched to. `false` where nothing
    /// more is to be done (a purge replayed early, an event the before file already shows).
    fn task_event(&mut self, e: &Ev) -> bool {
        self.prev_line = self.task_line.insert(e.pid, e.line);
        if matches!(e.ev, FtraceEvent::Purge { .. }) && self.purged_early.contains_key(&e.line) {
            // Replayed before an allocation that saw it; what it left, here.
            if let Some(sp) = self.split.filter(|sp| sp.line == e.line) {
                self.purge_rest(sp);
            }
            return false;
        }
        // An allocation read as made for another node ran `node_alloc` on a CPU of that node.
        let cpu = match (e.ev, self.learnt.alloc_node.get(&e.line)) {
            (FtraceEvent::Alloc { .. }, Some(&(_, n))) => {
                let nodes = self.vmap.nr_vmap_nodes();
                self.p.online.iter().copied().find(|&c| c % nodes == n).unwrap_or(e.cpu)
            }
            _ => e.cpu,
        };
        if (self.vmap.nr_vmap_nodes() > 1 || self.vmap.cpus() > 1) && cpu != self.vmap.cpu() {
            // Checked against the online CPUs when parsing.
            let _ = self.vmap.set_cpu(u64::from(cpu));
            self.push(Op::Cpu(u64::from(cpu)));
        }
        if e.in_read && self.already_in_before(e) {
            return false;
        }
        true
    }

    /// The vmap node shrinker, seen by its `vmscan` event (`mm_shrink_slab_start` of
    /// `vmap_node_shrink_scan`, which `scripts/capture.sh` enables): where `do_shrink_slab` went
    /// on to scan, `vmap_node_shrink_scan` gave back every node's pools whole
    /// (`decay_va_pool_node(vn, true)` on each), which no vmalloc event traces:
    ///
    /// ```text
    ///   before:  node 0 [ e3 e2 e1 ]  node 1 [ f1 ]      free [ .. ]
    ///   after:   node 0 [ ]           node 1 [ ]         free [ .. e1 e2 e3 f1 merged .. ]
    /// ```
    ///
    /// Its count (`vmap_node_shrink_count`, the `cache items` of the event) is every pool's
    /// length summed: where the model's pools hold another number, a note says so. The pools'
    /// history ([`PoolHistory`]), whose readings count decays by purges, is no longer kept
    /// from a scan that gave back entries on (the drain before the events gives back none).
    fn shrink(&mut self, e: &Ev, cache_items: u64, scanned: bool) {
        if !self.vmap.profile().has_vmap_nodes() {
            return;
        }
        let held: usize = self.vmap.pools_snapshot().iter().map(|(_, _, v)| v.len()).sum();
        if e.in_read && held == 0 {
            // Run before the before file was read (the capture's drain): entries from before it.
            self.note(format!(
                "{} line {}: the vmap node shrinker counted {cache_items} pool entries before the before file was read \
                 (the capture's drain)",
                self.tname(),
                e.line
            ));
        } else if held as u64 != cache_items {
            self.note(format!(
                "{} line {}: the vmap node shrinker counted {cache_items} pool entries, the model's pools hold {held}",
                self.tname(),
                e.line
            ));
        }
        if !scanned {
            return;
        }
        self.vmap.shrink_pools(&mut NoObserver);
        self.push(follow(Follow::Shrink));
        // The pools' history counts the purges' decays only: where the scan gave back entries
        // it no longer holds (on empty pools, as at a drain before the events, it is whole).
        if held > 0 {
            self.hist = None;
        }
        self.report.shrinks += 1;
    }

    /// An event traced while the before file was read, that the file already shows: an area it
    /// lists busy where the allocation put it, or lazy where the free sent it. Left out (the
    /// others came after the file printed that node's list, and are replayed).
    ///
    /// `vmalloc_info_show` prints every node's busy list first and the lazy lists last
    /// (`show_purge_info`): an area allocated after its node's busy list was printed and freed
    /// before its lazy list was shows lazy only. Its allocation is in the file as well (the
    /// area is there, lazy); its free, traced during the read, then finds it lazy and is left out
    /// too. (A lazy area the file shows is allocated again only after a purge took it, and a
    /// purge traced before the allocation has taken it off the model's lazy lists.)
    fn already_in_before(&mut self, e: &Ev) -> bool {
        let shown = match e.ev {
            FtraceEvent::Alloc { addr, req, failed: false } => match self.vmap.locate(addr) {
                Place::Busy { start, end, .. } | Place::Lazy { start, end, .. } => {
                    start == addr && end == addr.wrapping_add(req.size)
                }
                _ => false,
            },
            FtraceEvent::Free { va_start, .. } => self.is_lazy(va_start),
            _ => false,
        };
        if shown {
            self.report.in_before_file += 1;
        }
        shown
    }

    fn describe(&self, req: AllocReq, cpu: u32) -> String {
        format!("alloc {:#x} {:#x} {:#x} {:#x} on CPU {cpu}", req.size, req.align, req.vstart, req.vend)
    }

    fn alloc(&mut self, e: &Ev, x: u64, req: AllocReq, failed: bool) {
        let AllocReq { size, align, vstart, vend } = req;
        self.rests_on_revision = false;
        self.read_under = None;
        let pred = self.vmap.predict_alloc(size, align, vstart, vend);
        if failed {
            // The kernel found no space; reclaim_and_purge_vmap_areas follows (a full decay),
            // traced as a purge, then the retry.
            self.full_purge_due = true;
            if let Some(y) = pred.addr() {
                self.report.notes.push(format!(
                    "{} line {}: the kernel's attempt failed, the model would give {y:#x}",
                    self.tname(),
                    e.line
                ));
            }
            return;
        }
        self.report.allocations += 1;
        self.traced.insert(x, (e.line, false));
        // Out of a free block whole (a node removed) or from its middle (a node inserted), the
        // free tree rebalances: its shape changes ([`Pass::tree_gen`]). Clipped at one edge
        // it keeps its shape, a block only shrinking.
        let reshapes = match self.vmap.locate(x) {
            Place::Free { start, end } => (x == start) == (x.saturating_add(size) == end),
            _ => false,
        };
        if let Some(h) = &mut self.hist {
            h.allocs.push((e.line, x, x.saturating_add(size)));
        }
        let mut pred = pred;
        if pred.addr() != Some(x) && !self.diverged() {
            if let Some(p2) = self.purge_early(e, x, req) {
                pred = p2;
            }
        }
        if let (true, Some(n), Some(h)) = (pred.rotate, pred.node, self.hist.as_mut()) {
            if let Some(&head) = self.vmap.pool_entries(n, size).first() {
                h.rots.push((e.line, head, align));
            }
        }
        let searched = pred.addr() != Some(x) && !self.diverged() && self.searched_before_purge(e, x, req, pred.node);
        let mut held_why = None;
        let mut piece = None;
        let mut released_from = None;
        let was_exact = !self.missed;
        // Held space the kernel now allocates: a pool entry from before the capture that its
        // pool gave, or that a decay gave back to the free tree. Free again here.
        if let Some((a, b, from)) = if searched { None } else { self.release_held_over(x, x + size) } {
            released_from = Some(from);
            pred = self.vmap.predict_alloc(size, align, vstart, vend);
            if pred.addr() == Some(x) {
                held_why = Some((
                    Unknown::HeldFree,
                    format!(
                        "[{a:#x}, {b:#x}), held since before the capture (found where a free-tree search passed over \
                         it), was a pool entry: the kernel allocated it (from its pool, or after a decay gave it back)"
                    ),
                ));
            }
        }
        // Held space given back here, and the model still does not give the kernel's address:
        // the reading that held it is contradicted (revised below), not read anew here.
        if pred.addr() != Some(x) && !self.diverged() && released_from.is_none() && !searched {
            // One area held is one unknown, as a pool entry at the kernel's address would be;
            // more only where that reading is out: no pool (outside the default window, or too
            // big), the kernel served this size on this node from its free tree before, the
            // kernel's area was touched since the start (not an entry from before the capture),
            // that reading was contradicted here ([`Pass::revise_entry`]), or the pool's head is
            // misaligned: `node_pool_del_va` moved it to the tail and gave nothing, in the kernel
            // too, and an entry from before the capture lies behind it (`node_pool_add_va` adds at
            // the head), so the kernel's free tree served.
            let entry_out = match pred.node {
                Some(n) => {
                    size > 256 * PAGE_SIZE
                        || self.tree_served.contains_key(&(n, pool_idx(size)))
                        || !is_untouched(&self.untouched, x, x + size)
                        || !self.learnt.entry_open(e.line, x)
                        || pred.rotate
                }
                None => true,
            };
            let found = self.passed_over(x, req, pred, 1, e.line);
            let found = if found.is_none() && entry_out { self.passed_over(x, req, pred, 8, e.line) } else { found };
            if let Some((p2, why)) = found {
                pred = p2;
                held_why = Some((Unknown::HeldFree, why));
            } else if self.covered_by_blocks(x, x + size, false) {
                piece = self.held_piece(x, req, pred, e.line);
            } else if entry_out {
                if let Some((p2, why)) = self.passed_over_blocks(x, req, pred, e.line) {
                    pred = p2;
                    held_why = Some((Unknown::HeldBlock, why));
                }
            }
        }
        let model_head = pred.pool_hit;
        let model_tree = pred.tree;
        // The model's free tree gave the kernel's address (no pool).
        let from_tree = piece.is_none() && (searched || (pred.addr() == Some(x) && pred.pool_hit.is_none()));
        let verdict = if let Some(v) = piece {
            v
        } else if searched {
            Verdict::Equal
        } else if pred.addr() == Some(x) {
            let got = self.vmap.alloc(size, align, vstart, vend, &mut NoObserver);
            debug_assert_eq!(got, Ok(x));
            let tree_node = pred.node.filter(|_| pred.pool_hit.is_none() && !pred.rotate);
            self.taken(x, size, tree_node, e.line);
            if let Some(p) = pred.pool_hit {
                // Taken from a pool: the area is no longer a guess about a node.
                self.guessed_node.remove(&p);
                if let Some(h) = &mut self.hist {
                    h.pops.entry(p).or_default().push(e.line);
                }
            }
            // An equal address that rests on something learnt here before is explained by it.
            if let Some((u, why)) = held_why {
                self.learnt.facts.entry(e.line).or_insert((u, why));
            }
            match self.learnt.facts.get(&e.line) {
                Some((u, why)) => Verdict::Explained(*u, why.clone()),
                None => Verdict::Equal,
            }
        } else {
            let v = self.mismatch(e, x, req, pred);
            // Where a purge stood is no fact of the start state ([`Pass::decayed_after`]): equal
            // in the next replay, where that purge stops short of it.
            // Nor is a reading that rests on revisions this replay made already.
            let no_fact =
                self.learnt.decayed_after.values().any(|&l| l == e.line) | std::mem::take(&mut self.rests_on_revision);
            if let (false, Verdict::Explained(u, why)) = (no_fact, &v) {
                if let std::collections::btree_map::Entry::Vacant(v) = self.learnt.facts.entry(e.line) {
                    v.insert((*u, why.clone()));
                    self.learnt.changed = true;
                }
            }
            v
        };
        // Unexplained only until the next replay, which reads it from the revised count: it
        // revises nothing learnt.
        let was_exact = was_exact && !std::mem::take(&mut self.stale_count);
        if let (Verdict::Unexplained(_), Some(from), true) = (&verdict, released_from, was_exact) {
            // Held space the kernel allocated where neither its search with the space free
            // nor anything else explains: what the search passed over at line `from` was held
            // elsewhere. That line is read again in the next replay, by the next reading.
            // Held space is the areas reading (blocks are held apart, in `blocks`).
            let was = Reading::Areas;
            if self.learnt.revised.get(&from).is_none_or(|&r| r <= was) {
                self.learnt.revised.insert(from, was.next());
                self.learnt.held.retain(|&(_, _, l)| l != from);
                self.learnt.facts.remove(&from);
                self.learnt.revisions.push(Revision {
                    line: from,
                    contradicted_at: e.line,
                    what: "the space its free-tree search passed over".into(),
                    why: "the kernel allocated there what the model, with it free, would not".into(),
                    was: was.text().into(),
                    now: was.next().text().into(),
                });
                self.learnt.changed = true;
            }
        }
        // The model's pool gave a stand-in of an unseen entry where the kernel gave its own head:
        // fewer stood in front, and that pool is read so no more.
        if let (Verdict::Unexplained(_), true, Some(&key)) =
            (&verdict, was_exact, model_head.and_then(|y| self.unseen_at.get(&y)))
        {
            let why = "the model's pool gave one where the kernel's gave another head".to_string();
            self.learnt.drop_unseen(key, 1, e.line, why);
        }
        if let (Verdict::Unexplained(_), true, Some(&key)) =
            (&verdict, was_exact, model_head.and_then(|y| self.behind_at.get(&y)))
        {
            self.learnt.drop_behind(key, e.line);
        }
        if let (Verdict::Unexplained(_), true, Some(&of)) =
            (&verdict, was_exact, model_head.and_then(|y| self.front_at.get(&y)))
        {
            self.learnt.drop_front(of, e.line);
        }
        // (Only an unexplained allocation revises: `revise_entry` changes what was learnt.)
        if matches!(verdict, Verdict::Unexplained(_)) && was_exact && !self.revise_entry(model_head, x, align, e.line) {
            self.revise_node(model_head, x, size, e.line);
            // A search that passed over the model's answer (the kernel's address higher), or the
            // kernel's area an entry given back where the model's pool gives its head. Not where
            // the kernel's area was held space: that held reading is what it contradicts (revised
            // above), and whether its answer came from a search at all (an entry from before the
            // capture, as the next replay may read it) is open.
            match (released_from, model_head, model_tree.filter(|&y| y < x)) {
                (Some(_), ..) => {}
                (None, None, Some(y)) => self.revise_length(y, size, e.line, false),
                (None, Some(_), _) => self.revise_length(x, size, e.line, true),
                (None, None, None) => {}
            }
        }
        // The kernel allocated here: what a pool-length reading gave back under it was free.
        self.given_by_length.retain(|&(a, b, _)| !(a < x + size && x < b));
        // Allocated again: its node from here on is the CPU's, no longer the run's nor a guess.
        self.lazy_run.remove(&x);
        self.guessed_node.remove(&x);
        self.tree_alloc.remove(&x);
        if from_tree
            && vstart == VMALLOC_START
            && vend == VMALLOC_END
            && size <= 256 * PAGE_SIZE
            && self.vmap.nr_vmap_nodes() > 1
            && !self.learnt.alloc_node.contains_key(&e.line)
        {
            self.tree_alloc.insert(x, e.line);
        }
        // A short block the allocation took from is another block from here on: its shape facts
        // end (the kernel's tree changed there too).
        self.shapes.retain(|&(a, b, _), _| !(a < x + size && x < b));
        if reshapes {
            self.tree_gen += 1;
        }
        let mark = match &verdict {
            Verdict::Equal => Mark::Equal,
            Verdict::Explained(u, _) => Mark::Explained(*u),
            Verdict::Unexplained(_) => Mark::Unexplained,
        };
        self.push(follow(Follow::Alloc { size, align, vstart, vend, addr: x, mark }));
        // An epoch an earlier replay read on from, equal or explained now: what was learnt in it
        // is about the state here and is put in place here all the same (else it is put in
        // place nowhere and, read already, is not read again).
        if self.learnt.resync && mark != Mark::Unexplained && self.learnt.resync_at.binary_search(&e.line).is_ok() {
            self.place_epoch(e.line, false);
            self.drain_log();
        }
        match verdict {
            Verdict::Equal => self.report.equal += 1,
            Verdict::Explained(u, why) => {
                self.report.explained += 1;
                if self.missed {
                    self.report.explained_after_miss += 1;
                }
                match u {
                    Unknown::PoolEntry => self.report.resolved_pool_entries += 1,
                    Unknown::AreaNode => self.report.resolved_area_nodes += 1,
                    // The runs are counted where they are taken out.
                    Unknown::HeldFree => self.report.explained_held += 1,
                    Unknown::TreeShape => self.report.search_path += 1,
                    Unknown::HeldBlock => self.report.explained_blocks += 1,
                    Unknown::HeldPiece => self.report.resolved_held_pieces += 1,
                    Unknown::PoolLength => self.report.explained_pool_lengths += 1,
                }

                self.report.explanations.push((e.line, why));
            }
            Verdict::Unexplained(why) => {
                // Past a miss the model is steered to the kernel's address and its state may
                // differ from the kernel's: a resynchronised replay reads on from that state,
                // but not from the pools' history, which counts every decay since the start.
                self.missed = true;
                self.report.unexplained += 1;
                self.report.unexplained_lines.push(e.line);
                if self.report.first_unexplained.is_none() {
                    self.report.first_unexplained = Some(format!("{} line {}: {why}", self.tname(), e.line));
                }
                if self.learnt.resync {
                    self.read_on(e.line);
                }
            }
        }
    }

    /// Read on past the unexplained allocation at `line`, the model steered to the kernel's
    /// address there: `line` starts an epoch. The model's state may differ from the kernel's
    /// from here on, so what is learnt now is about the state at `line`, not at the start: the
    /// pool entries and held space that later allocations read in this epoch (in earlier
    /// replays) are put in place here, and what would change the state before `line` is not
    /// read ([`Pass::before_epoch`]). Nothing learnt before is revised from here on, and the
    /// pools' history (which counts every decay since the start) is no longer kept.
    fn read_on(&mut self, line: usize) {
        if let Err(k) = self.learnt.resync_at.binary_search(&line) {
            self.learnt.resync_at.insert(k, line);
            self.learnt.changed = true;
        }
        self.epoch_start = line;
        self.hist = None;
        // Free-tree answers before here say nothing of the pools here, and a busy area's node
        // is read from the start (where it was placed) only.
        self.tree_served.clear();
        self.guessed_node.clear();
        self.tree_alloc.clear();
        self.place_epoch(line, true);
        self.epoch_pools = pool_starts(&self.vmap);
        // The free space here is this epoch's start, as the before file's was the capture's: a
        // later search that passed over some of it may show it held here.
        self.untouched = crate::frag::free_ranges(self.vmap.vmap())
            .into_iter()
            .map(|(a, b)| (a.max(VMALLOC_START), b.min(VMALLOC_END)))
            .filter(|(a, b)| a < b)
            .collect();
        self.drain_log();
    }

    /// What earlier replays learnt in the epoch that starts at `line`, put in place: its pool
    /// entries at the heads, its held space and blocks. Where the model is not steered there
    /// (`steered` false: the allocation at `line` equal or explained), not an entry of a pool
    /// that the kernel's free tree has served since the start (its pool was empty then, and
    /// `node_alloc` asks the pool first: no entry from before can be in it).
    fn place_epoch(&mut self, line: usize, steered: bool) {
        let learnt = &self.learnt;
        let mine = |l: usize| learnt.epoch(l) == line;
        let mut pooled: Vec<(u32, u64, u64)> = learnt
            .pooled
            .iter()
            .filter(|&&(_, a, _)| learnt.entry_from.get(&a).is_some_and(|&l| mine(l)))
            .copied()
            .collect();
        pooled.sort_by_cached_key(|&(_, a, _)| learnt.entry_from.get(&a).copied());
        let held: Vec<_> = learnt.held.iter().filter(|h| mine(h.2)).copied().collect();
        let blocks: Vec<_> = learnt.blocks.iter().filter(|b| mine(b.2)).copied().collect();
        // At the heads, the first taken first: in front of the model's own entries, which are
        // guesses here (the kernel's pool gave these first). Not so an entry read as the head of
        // its pool's entries from before the capture ([`Learnt::old_heads`]) where the model is
        // not steered (its own entries stand): at the tail, the first taken first, behind every
        // entry pooled since, as that reading says (`node_pool_add_va` adds at the head).
        let (tails, heads): (Vec<_>, Vec<_>) =
            pooled.into_iter().partition(|&(_, a, _)| !steered && learnt.old_heads.contains(&a));
        let order = heads.into_iter().rev().map(|p| (p, true)).chain(tails.into_iter().map(|p| (p, false)));
        // Steered here, a head goes behind the entries a purge of the capture pooled that the
        // kernel takes before it on their node ([`Pass::taken_first`]).
        let taken_first = steered.then(|| self.taken_first());
        let nodes = self.vmap.nr_vmap_nodes().max(1);
        for ((node, start, size), head) in order {
            if !steered && !self.pool_not_seen_empty(node, size, start) {
                continue;
            }
            // Neither in a block held whole nor free (pooled already, or taken): nothing to do,
            // and a miss read on from at every line of a run would look again at every one.
            let free = self.vmap.free_block_from(start).is_some_and(|(fs, fe)| fs <= start && start + size <= fe);
            if !free && !self.blocks.iter().any(|&(a, b, _)| a < start + size && start < b) {
                continue;
            }
            // Inside a block held whole (its layout unknown): that part is this entry.
            self.unhold_blocks(start, start + size);
            let behind = match &taken_first {
                Some(t) if head => {
                    let (events, pos, purged) = (&self.p.events, self.pos, &self.purge_pooled);
                    let mine = t.first_after(events, pos, start).map_or(usize::MAX, |e| e.line);
                    let first = |a: u64| {
                        purged.contains(&a)
                            && t.first_after(events, pos, a).is_some_and(|e| e.cpu % nodes == node && e.line < mine)
                    };
                    self.vmap.pool_front(node, size, &first)
                }
                _ => 0,
            };
            if self.vmap.pool_at_pos(start, size, node, head, behind) {
                take_untouched(&mut self.untouched, start, start + size);
                self.push(follow(Follow::Pooled { node, start, size, head, behind }));
            }
        }
        let (h, b) =
            hold_learnt(&mut self.vmap, &mut self.untouched, &mut self.report, held.into_iter(), blocks.into_iter());
        self.held.extend(h);
        self.blocks.extend(b);
    }

    /// The kernel's allocations by address ([`AllocIndex`]), built once for the events so far:
    /// what it takes after `pos` is the next one there.
    ///
    /// A purge of the capture pooled an entry in front of every entry from before the capture
    /// (`node_pool_add_va` adds at the head), and pops and decays (`node_pool_del_va`,
    /// `decay_va_pool_node`) take from the head: an entry the kernel takes from that node
    /// before the one read here stood in front of it.
    ///
    /// ```text
    ///   model at the miss:  [ p1 p2 | g1 g2 ]   p: pooled by a purge of the capture, g: guesses
    ///   kernel:             takes p1, p2, then x   =>   [ p1 p2 x g1 g2 ]
    /// ```
    fn taken_first(&mut self) -> Rc<AllocIndex> {
        let n = self.p.events.len();
        match &self.alloc_index {
            Some(ix) if ix.upto == n => ix.clone(),
            _ => {
                let ix = Rc::new(AllocIndex::new(&self.p.events));
                self.alloc_index = Some(ix.clone());
                ix
            }
        }
    }

    /// Past a miss ([`Pass::read_on`]): the model's pool gave its head `y`, in that pool since
    /// the epoch's start (a guess), where the kernel's gave `[x, x + size)`, free here and
    /// untouched since that start (or inside a block held whole): the kernel's pool held it
    /// then, in front of `y`. Learnt for the next replay, which puts it there.
    fn epoch_head(&mut self, x: u64, req: AllocReq, pred: Prediction, n: u32, line: usize) -> Option<String> {
        let AllocReq { size, align, .. } = req;
        let y = pred.pool_hit?;
        let end = x.checked_add(size)?;
        if self.epoch_start == 0
            || pred.rotate
            || !self.epoch_pools.contains(&y)
            || x & align.wrapping_sub(1) != 0
            || !self.learnt.entry_open(line, x)
            || !self.entry_space(x, end)
        {
            return None;
        }
        self.learnt.pool(n, x, size, line);
        self.learnt.changed = true;
        Some(format!(
            "[{x:#x}, {end:#x}) was in node {n}'s pool of {} pages at trace line {} (read on from there), in front \
             of {y:#x}, which the model's pool gave: the kernel took it from there",
            size / PAGE_SIZE,
            self.epoch_start
        ))
    }

    /// An unexplained allocation was met in the first stage: the model's state may differ from
    /// the kernel's from here on, so nothing more is learnt in this replay (the second stage
    /// reads on, [`Pass::read_on`]).
    fn diverged(&self) -> bool {
        self.missed && !self.learnt.resync
    }

    /// A reading of what stood at `line` (a purge's decay or its place) would change the replay
    /// before the epoch it is made in ([`Pass::read_on`]): not made.
    fn before_epoch(&self, line: usize) -> bool {
        line <= self.epoch_start
    }

    /// The first unexplained allocation, at `line`, where the model's free-tree answer
    /// `[y, y + size)`, below the kernel's, lies over an entry that a pool-length reading gave
    /// back (and the kernel has not allocated since): with that entry free, `find_vmap_lowest_match` would have found
    /// it (or the block it lies in) before the kernel's address, so the kernel's decay did not
    /// give it back and its pool was not that long. The reading is dropped, the allocation that
    /// taught it is not read so again, and the next replay starts without it.
    ///
    /// Or (`taken`): the model's pool gives its head, an entry that reading kept, and the kernel's
    /// area is an entry it gave back, whole: `node_pool_del_va` gives the head, so the kernel's
    /// pool held that entry in front, not given back.
    fn revise_length(&mut self, y: u64, size: u64, line: usize, taken: bool) {
        let end = y.saturating_add(size);
        let Some(&(a, _, key)) =
            self.given_by_length.iter().find(|&&(a, b, _)| if taken { a == y && b == end } else { a < end && y < b })
        else {
            return;
        };
        let Some(from) = self.learnt.pool_length_from.remove(&key) else {
            return;
        };
        self.learnt.pool_lengths.remove(&key);
        self.learnt.pool_length_out.insert(from);
        self.learnt.facts.remove(&from);
        let (purge, n, idx) = key;
        self.learnt.revisions.push(Revision {
            line: from,
            contradicted_at: line,
            what: format!("the length of node {n}'s pool of {} pages at the purge of trace line {purge}", idx + 1),
            why: if taken {
                format!(
                    "the kernel took {a:#x}, an entry that reading gave back, where the model's pool gives its head"
                )
            } else {
                format!(
                    "the kernel's free-tree search passed over {a:#x}, an entry that reading gave back, where the \
                     model's finds it"
                )
            },
            was: "longer than the model's: its decay gave back more entries from the head".into(),
            now: "the model's own length".into(),
        });
        self.learnt.changed = true;
    }

    /// The first unexplained allocation, at `line`, where the model's pool head `head` is an
    /// entry from before the capture read at a later allocation (`node_pool_del_va` gave it
    /// there). Such an entry is in its pool from the capture's start until taken, or given back
    /// by a decay (`decay_va_pool_node`, to the free tree): it never enters the pool later. Here,
    /// earlier, the kernel's pool gave `x` (or nothing: its free tree served), not it and no
    /// entry in front of it (that one would be `x`, read as such an entry before this): it was
    /// not in the pool. The reading is dropped and not made again at that line; the next replay
    /// starts without it. Whether revised.
    ///
    /// Not where `x` is itself read, here or earlier, as the head of that pool's entries from
    /// before the capture (a decay had given back every entry pooled since,
    /// [`Pass::decayed_more`]): then it stood in front of `y`, and `y` behind it fits the
    /// kernel's answer. The model lost `x` before this line (a decay that counted `y` and its
    /// like gave it back, where the kernel's kept it): that count is what this contradicts,
    /// read by the other rules.
    ///
    /// ```text
    ///   model at a purge:  [ x y y2 .. y6 ]   7 >> 2 = 1: x given back, y its head at `line`
    ///   kernel at `line`:  x its head; y taken later, behind it (its decay gave back others)
    /// ```
    fn revise_entry(&mut self, head: Option<u64>, x: u64, align: u64, line: usize) -> bool {
        let Some(y) = head.filter(|&y| y != x) else {
            return false;
        };
        let Some(&from) = self.learnt.entry_from.get(&y).filter(|&&l| l > line) else {
            return false;
        };
        let Some(&(n, _, size)) = self.learnt.pooled.iter().find(|&&(_, a, _)| a == y) else {
            return false;
        };
        debug_assert!(from > line);
        let x_read_here = self.learnt.old_heads.contains(&x)
            && self.learnt.entry_from.get(&x).is_some_and(|&l| l <= line)
            && self.learnt.pooled.iter().any(|&(m, a, s)| a == x && m == n && s == size);
        if x_read_here {
            return false;
        }
        // The same holds for each entry behind `y` read later too, up to the first the request
        // would not take (misaligned: moved to the tail, the free tree serving) or read before.
        let list = self.vmap.pool_entries(n, size);
        let behind = list.iter().skip_while(|&&a| a != y).skip(1);
        let later = behind
            .take_while(|&&a| a % align == 0 && self.learnt.entry_from.get(&a).is_some_and(|&l| l > line))
            .copied()
            .collect::<Vec<_>>();
        let out = std::iter::once(y)
            .chain(later)
            .map(|a| {
                let behind = if a == y { String::new() } else { format!(" with {a:#x} behind it") };
                let why = format!(
                    "node {n}'s pool gave {x:#x} here, earlier, where the model's gives {y:#x}{behind}: an entry \
                     from before the capture does not enter its pool later"
                );
                (a, why)
            })
            .collect();
        self.learnt.drop_entries(out, n, size, line);
        true
    }

    /// The first unexplained allocation, at `line`, where the model's pool head `head` or the
    /// kernel's `x` is an area whose node [`Pass::decayed_less`] read: the model gave (or held
    /// elsewhere) what the kernel's pools say was not there, so that reading is contradicted.
    /// The area is ruled out at the line that read it (its node is a guess again), and the
    /// next replay reads that line with the areas left (`decayed_less` takes the oldest). So
    /// too where the kernel allocated over an entry that such a reading keeps pooled: its
    /// search takes free-tree space only, and `purge_vmap_node` pools an area in the node of
    /// its vn_id, so no pool of the kernel held it there.
    fn revise_node(&mut self, head: Option<u64>, x: u64, size: u64, line: usize) {
        // The model's head, the kernel's area, or a busy area read so under the kernel's area
        // ([`Pass::pooled_elsewhere`]) whose reading did not give the kernel's address; else an
        // entry the model pools under the kernel's area in the node an earlier reading gave it.
        let end = x.saturating_add(size);
        let under = self.learnt.node_from.iter().find(|&(&a, &l)| l == line && a >= x && a < end);
        let under = under.map(|(&a, &l)| (a, l));
        let Some(((y, from), pooled_over)) = [head, Some(x)]
            .into_iter()
            .flatten()
            .find_map(|y| self.learnt.node_from.get(&y).map(|&l| (y, l)))
            .or(under)
            .map(|f| (f, false))
            .or_else(|| self.read_under.take().map(|f| (f, true)))
        else {
            return;
        };
        let traced = self.learnt.alloc_node.values().find(|&&(a, _)| a == y).map(|&(_, n)| n);
        let was = self.learnt.nodes.remove(&y).or(traced);
        self.learnt.node_from.remove(&y);
        self.learnt.node_ruled_out.entry(from).or_default().insert(y);
        self.learnt.facts.remove(&from);
        // The other areas of that reading go back to guesses with it: a reading stands or falls
        // whole (only `y` is ruled out there).
        let with: Vec<u64> = self.learnt.node_from.iter().filter(|&(_, &l)| l == from).map(|(&a, _)| a).collect();
        for &a in with.iter().chain([y].iter()) {
            self.learnt.nodes.remove(&a);
            self.learnt.node_from.remove(&a);
            self.learnt.alloc_node.retain(|_, &mut (b, _)| b != a);
        }
        self.learnt.revisions.push(Revision {
            line: from,
            contradicted_at: line,
            what: format!("the node of {y:#x}, busy before the capture"),
            why: if head == Some(y) {
                "the model's pool gave it, the kernel's did not".into()
            } else if y == x {
                "the kernel took it where that node's pool could not give it".into()
            } else if pooled_over {
                "the kernel allocated over it, which that reading keeps in that node's pool".into()
            } else {
                "read so, the model still did not give the kernel's address there".into()
            },
            was: format!("node {}", was.unwrap_or(0)),
            now: format!("{}, another area read in its place", self.prior(y).1),
        });
        self.learnt.changed = true;
    }

    /// The lowest entry the model pools under `[x, end)` in the node a reading made at an
    /// earlier line gave it (a busy area of the before file: `purge_vmap_node` pools an area
    /// in the node its vn_id names), with that line. The kernel allocated over it: in the
    /// kernel that pool did not hold it there.
    fn pooled_by_reading(&self, x: u64, end: u64) -> Option<(u64, usize)> {
        let read = |a: u64| self.learnt.node_from.get(&a).copied().zip(self.learnt.nodes.get(&a).copied());
        let (y, ..) = self.pooled_under(x, end, |node, start, _| read(start).is_some_and(|(_, n)| n == node))?;
        Some((y, read(y)?.0))
    }

    /// The lowest entry the model pools under `[x, end)` that `pick(node, start, end)` takes.
    fn pooled_under(&self, x: u64, end: u64, pick: impl Fn(u32, u64, u64) -> bool) -> Option<(u64, u64, u32)> {
        let mut at = x;
        while at < end {
            match self.vmap.locate(at) {
                Place::Pooled { node, start, end: e, .. } => {
                    if pick(node, start, e) {
                        return Some((start, e, node));
                    }
                    at = e;
                }
                Place::Free { end: e, .. } | Place::Busy { end: e, .. } | Place::Lazy { end: e, .. } => at = e,
                Place::Nowhere => at += PAGE_SIZE,
            }
        }
        None
    }

    /// The kernel's free-tree search passed over space the model has free and the before file
    /// shows free, untouched since, below the kernel's address: that space was held before the
    /// capture (pool entries: `vmallocinfo` prints only the busy and the lazy areas). The area
    /// the model's search would take is taken out of its free tree, and the next, at most
    /// `max_runs`, until the model's search gives the kernel's address; if it does not, nothing
    /// is changed. Each area is one unknown. The new prediction and why.
    fn passed_over(
        &mut self,
        x: u64,
        req: AllocReq,
        pred: Prediction,
        max_runs: usize,
        line: usize,
    ) -> Option<(Prediction, String)> {
        let AllocReq { size, align, vstart, vend } = req;
        let reading = Reading::Areas;
        if self.learnt.revised.get(&line).is_some_and(|&r| r > reading) {
            return None;
        }
        let untouched = &self.untouched;
        // The first hold's test before the trial's save, which copies the free tree: most
        // misses fail it.
        match (pred.pool_hit, pred.tree) {
            (None, Some(y))
                if max_runs > 0 && y < x && pred.addr() != Some(x) && is_untouched(untouched, y, y + size) => {}
            _ => return None,
        }
        let (p, runs) = self.vmap.hold_trial(|trial| {
            let mut p = pred;
            let mut runs: Vec<(u64, u32)> = Vec::new();
            while p.addr() != Some(x) {
                let (None, Some(y)) = (p.pool_hit, p.tree) else { return None };
                if runs.len() == max_runs || y >= x || !is_untouched(untouched, y, y + size) {
                    return None;
                }
                runs.push((y, trial.hold_free(y, y + size)?));
                p = trial.predict_alloc(size, align, vstart, vend);
            }
            (!runs.is_empty()).then_some((p, runs))
        })?;
        let mut what = String::new();
        for &(y, _) in &runs {
            take_untouched(&mut self.untouched, y, y + size);
            self.held.push((y, y + size, line));
            self.learnt.held.push((y, y + size, line));
            self.report.resolved_held_free += 1;
            let _ = write!(what, "{}[{y:#x}, {:#x})", if what.is_empty() { "" } else { ", " }, y + size);
        }
        let why = format!(
            "{what}, free in the before file and untouched since, {} held before the capture (by what vmallocinfo \
             does not show: pool entries, or a busy area with no vm_struct yet or any more, which it skips): the \
             kernel's free-tree \
             search passed over {} to {x:#x}",
            if runs.len() == 1 { "was" } else { "were" },
            if runs.len() == 1 { "it" } else { "them" }
        );
        Some((p, why))
    }

    /// The kernel's free-tree search passed over whole free blocks below its address, each free
    /// in the before file and untouched since: `find_vmap_lowest_match` returns the lowest block
    /// with a free run of the search length, so none of them had one. Their free space was split
    /// by pool entries from before the capture (in no tree: vmallocinfo shows them free) into
    /// pieces too short, a layout nothing shows yet. Each block is held whole, one unknown
    /// each, until the kernel allocates pieces of it ([`Pass::held_piece`]); only if the model's
    /// search then gives the kernel's address (else nothing changes). The new prediction and why.
    fn passed_over_blocks(
        &mut self,
        x: u64,
        req: AllocReq,
        pred: Prediction,
        line: usize,
    ) -> Option<(Prediction, String)> {
        if self.learnt.revised.get(&line).is_some_and(|&r| r > Reading::Blocks) {
            return None;
        }
        let untouched = &self.untouched;
        let (p, found) = self.vmap.hold_trial(|trial| {
            hold_blocks_below(untouched, trial, x, req, pred, |p| p.addr() == Some(x))
                .filter(|(_, found)| !found.is_empty())
        })?;
        let what = self.commit_blocks(&found, line);
        let why = format!(
            "{what}, free in the before file and untouched since, had no free run of the search length: the \
             kernel's free-tree search passed over {} whole to {x:#x} (pool entries from before the capture split \
             {}, where only the kernel's later allocations show)",
            if found.len() == 1 { "it" } else { "them" },
            if found.len() == 1 { "it" } else { "them" }
        );
        Some((p, why))
    }

    /// Record blocks held whole, found at `line`; their list for a message.
    fn commit_blocks(&mut self, found: &[(u64, u64, u32)], line: usize) -> String {
        let mut what = String::new();
        for &(s, e, _) in found {
            take_untouched(&mut self.untouched, s, e);
            self.blocks.push((s, e, line));
            self.learnt.blocks.push((s, e, line));
            self.report.resolved_held_blocks += 1;
            let _ = write!(what, "{}[{s:#x}, {e:#x})", if what.is_empty() { "" } else { ", " });
        }
        what
    }

    /// The kernel allocated `[x, x + size)` inside a block held whole (layout unknown): that
    /// piece was a pool entry from before the capture or a free piece of the block, the one
    /// unknown this resolves. Checked against the kernel's rule for each reading, else `None`:
    /// a pool entry only if the model's pool for this size on this node gave nothing
    /// (`node_alloc` pops the head; entries from before the capture are behind those pooled
    /// since), its head was not misaligned (`node_pool_del_va` then moves the head to the tail
    /// and gives nothing: the model rotates it here too, whatever the piece) and the pool not
    /// seen empty ([`Pass::pool_not_seen_empty`]: the free tree's earlier answers of that size
    /// there, if any, read again as its head); a free piece only if no lower free block fits
    /// (`find_vmap_lowest_match`'s first fit), other than whole untouched blocks below `x` that
    /// the search then passed over (held too). The piece is taken, the rest of the block stays
    /// held.
    fn held_piece(&mut self, x: u64, req: AllocReq, pred: Prediction, line: usize) -> Option<Verdict> {
        let AllocReq { size, align, .. } = req;
        let end = x.checked_add(size)?;
        if pred.pool_hit.is_some() || x & align.wrapping_sub(1) != 0 {
            return None;
        }
        // A pool entry from before the capture lies in space untouched since: in held blocks, or
        // across the edge of one into untouched free space beside it.
        let inside = self.covered_by_blocks(x, end, true);
        // A misaligned head: `node_pool_del_va` moved it to the tail and gave nothing, so the
        // kernel's area came from the free tree.
        let pool = pred.node.filter(|&n| {
            !pred.rotate
                && inside
                && size <= 256 * PAGE_SIZE
                && self.pool_not_seen_empty(n, size, x)
                && self.learnt.entry_open(line, x)
        });
        // In a trial (the blocks on a copy), kept only if the piece is taken: nothing
        // half-applied.
        let mut tblocks = self.blocks.clone();
        let untouched = &self.untouched;
        let shapes = &self.shapes;
        let key_len = size.wrapping_add(align).wrapping_sub(1);
        // A block holding an entry the last decay gave back is read by the pools' rules (the
        // kernel's decay kept it: [`Pass::kept_passed_over`]), not as the tree's shape.
        let given = &self.given;
        let decayed_in = |s: u64, e: u64| {
            given.iter().any(|(&(_, idx), (list, _))| {
                let len = (idx as u64 + 1) * PAGE_SIZE;
                list.iter().any(|&a| s <= a && a + len <= e)
            })
        };
        let (found, (a, b, from), short) = self.vmap.hold_trial(|trial| {
            let mut found = Vec::new();
            let mut short = Vec::new();
            if pool.is_none() {
                // Blocks below x shorter than the search length that fit, where the model's
                // search found them: they did not lie on the kernel's search path (the tree's
                // shape, as where both answers are free), unless a replay read that one did.
                let length = trial.search_length(size, align, req.vstart, req.vend);
                let mut p = pred;
                while let (None, Some(y)) = (p.pool_hit, p.tree) {
                    let Place::Free { start, end: e } = trial.locate(y) else { break };
                    if y >= x
                        || e - start >= length
                        || shapes.get(&(start, e, key_len)).is_some_and(|&(on, ..)| on)
                        || decayed_in(start, e)
                    {
                        break;
                    }
                    trial.hold_free(start, e)?;
                    short.push((start, e));
                    p = trial.predict_alloc(size, align, req.vstart, req.vend);
                }
                (_, found) = hold_blocks_below(untouched, trial, x, req, p, |p| p.tree.is_none_or(|y| y > x))?;
                for &(s, _) in &short {
                    trial.release_held_at(s);
                }
            }
            let held = unhold_blocks_in(trial, &mut tblocks, x, end)?;
            trial.take_at(x, size, pred.node)?;
            Some((found, held, short))
        })?;
        if let (true, Some(n)) = (pred.rotate, pred.node) {
            // `node_pool_del_va` moved the misaligned head to the tail before the kernel
            // searched its free tree, whatever the search found.
            self.vmap.rotate_pool_head(n, size);
        }
        self.blocks = tblocks;
        let mut extra = String::new();
        if !found.is_empty() {
            let what = self.commit_blocks(&found, line);
            extra = format!("; below it {what}, untouched since the start, had no free run of the search length");
        }
        for &(s, e) in &short {
            self.shapes.insert((s, e, key_len), (false, line, self.tree_gen));
            self.report.resolved_tree_shapes += 1;
            let _ = write!(
                extra,
                "; below it the free block [{s:#x}, {e:#x}) fits but is shorter than the search length ({size:#x} + \
                 align - 1): it did not lie on the kernel's search path (the free tree's shape, which vmallocinfo does \
                 not show)"
            );
        }
        let reading = match pool {
            Some(n) => format!("an entry of node {n}'s pool of {} pages", size / PAGE_SIZE),
            None if short.is_empty() => "a free piece (the free tree's first fit: no lower block fits)".to_string(),
            None => "a free piece (the free tree's first fit of the search length)".to_string(),
        };
        if let Some(n) = pool {
            extra = self.first_fit_was_head(n, size, line);
        }
        let why = if a <= x && end <= b {
            format!(
                "[{x:#x}, {end:#x}) was {reading} of [{a:#x}, {b:#x}), held whole since trace line {from} (its \
                 layout unknown): the kernel allocated it{extra}"
            )
        } else {
            let beside = if pool.is_some() { "space untouched since the start" } else { "free space" };
            format!(
                "[{x:#x}, {end:#x}) was {reading}, across the edge of [{a:#x}, {b:#x}), held whole since trace line \
                 {from} (its layout unknown), into {beside} beside it: the kernel allocated it{extra}"
            )
        };
        if let Some(n) = pool {
            // In its pool from the start in the next replay, behind the entries found before
            // it: the order in which the kernel's pool gave them.
            self.learnt.pool(n, x, size, line);
            self.learnt.facts.insert(line, (Unknown::HeldPiece, why.clone()));
            self.learnt.changed = true;
        }
        Some(Verdict::Explained(Unknown::HeldPiece, why))
    }

    /// The kernel allocated over entries the model still has pooled, entries the last purge's
    /// decay kept: `decay_va_pool_node` gives back `len >> 2` entries from the head, and the
    /// kernel's `len` counted entries from before the capture that the model's pool does not
    /// hold, so its decay gave back more: every kept entry up to the last one under the
    /// kernel's area (those in front of it went first). Given back in a copy; only if the
    /// model's search then gives the kernel's address (whole blocks below it passed over held
    /// as in [`Pass::passed_over_blocks`]); or, for an entry at the kernel's address in the pool
    /// it asked, if the pool's head is then that entry. One unknown per pool and purge: learnt
    /// as the least count that every such allocation needs, and given back by that purge's
    /// decay itself in the next replay.
    fn decayed_more(&mut self, x: u64, req: AllocReq, pred: Prediction, line: usize) -> Option<(Prediction, String)> {
        let AllocReq { size, align, vstart, vend } = req;
        let end = x.checked_add(size)?;
        if self.kept.is_empty()
            || self.before_epoch(self.kept_line)
            || self.learnt.revised.contains_key(&line)
            || self.learnt.pool_length_out.contains(&line)
        {
            return None;
        }
        // Per pool, the position of the last kept entry still pooled under [x, end).
        let mut hits: BTreeMap<(u32, usize), usize> = BTreeMap::new();
        let pooled = pool_starts(&self.vmap);
        for (&(n, idx), list) in &self.kept {
            let len = (idx as u64 + 1) * PAGE_SIZE;
            for (pos, &a) in list.iter().enumerate() {
                if a < end && x < a + len && pooled.contains(&a) {
                    hits.insert((n, idx), pos);
                }
            }
        }
        // The model's pool head is a kept entry where the kernel's answer is space the model has
        // free: the kernel's decay gave the head back too (and those in front of it).
        let head_kept = match (pred.pool_hit, pred.node) {
            (Some(y), Some(n)) if matches!(self.vmap.locate(x), Place::Free { .. }) || self.in_held_block(x, end) => {
                self.kept.get(&(n, pool_idx(size))).and_then(|l| l.iter().position(|&a| a == y)).map(|pos| (n, pos))
            }
            _ => None,
        };
        // Only the head's reading: whole blocks below are not read on top of it.
        let head_only = hits.is_empty();
        if let Some((n, pos)) = head_kept {
            let e = hits.entry((n, pool_idx(size))).or_insert(pos);
            *e = (*e).max(pos);
        }
        if hits.is_empty() {
            return None;
        }
        // A pool this replay already read as shorter or longer ([`Pass::decayed_less`]): its
        // entries here are still those of the count before that reading, and how far its
        // decays reached is read from the count after it, in the next replay. Not read here:
        // the allocation is left unexplained in this replay (as after a miss, the first stage
        // learns nothing more in it) and revises nothing.
        if hits.keys().any(|k| self.recounted.contains(k)) {
            self.stale_count = true;
            return None;
        }
        // Held blocks under [x, end): the kernel allocated there, so that part of each was free
        // in it (a piece, as in [`Pass::held_piece`]); given back with the entries.
        let give_back = |upto_excl: bool| {
            let mut t = self.vmap.clone();
            let mut tblocks = self.blocks.clone();
            for (&(n, idx), &pos) in &hits {
                give_back_pooled(&mut t, &self.kept[&(n, idx)][..if upto_excl { pos } else { pos + 1 }]);
            }
            unhold_blocks_in(&mut t, &mut tblocks, x, end);
            (t, tblocks)
        };
        // The entry at x, in the pool the request looks at: the kernel's head after its decay.
        let own = hits.len() == 1
            && matches!(self.vmap.locate(x), Place::Pooled { node, start, end: e, .. }
                if start == x && e == end && Some(node) == pred.node);
        let mut done = None;
        if own {
            let (t, tblocks) = give_back(true);
            let p = t.predict_alloc(size, align, vstart, vend);
            if p.pool_hit == Some(x) {
                done = Some((t, tblocks, p, Vec::new()));
            }
        }
        let mut entry = None;
        let mut further = None;
        let mut shape = false;
        if done.is_none() {
            let (mut t, tblocks) = give_back(false);
            let mut p = t.predict_alloc(size, align, vstart, vend);
            // The pool, its head given back, gives the next entry that decay kept, where the
            // kernel's address is space the model has free: the kernel's decay gave that one
            // back too, and so on, the least count that leaves the model giving the kernel's
            // address (its `len` may count any number of entries from before the capture).
            if let (Some((n, hpos)), true) = (head_kept, head_only) {
                let list = &self.kept[&(n, pool_idx(size))];
                let mut pos = hpos;
                while p.addr() != Some(x) {
                    let Some(k) = p.pool_hit.and_then(|y| list.iter().skip(pos + 1).position(|&a| a == y)) else {
                        break;
                    };
                    give_back_pooled(&mut t, &list[pos + 1..=pos + 1 + k]);
                    pos += 1 + k;
                    p = t.predict_alloc(size, align, vstart, vend);
                }
                further = (pos > hpos).then_some(((n, pool_idx(size)), pos));
            }
            // A partial decay never empties a pool (`len - (len >> 2)` entries stay): where the
            // reading empties the request's own pool in the model, the kernel's held entries
            // from before the capture (behind every entry pooled since), and their head was the
            // kernel's answer, unless misaligned for this request (moved to the tail: then the
            // free tree's answer stands).
            let emptied = head_kept.is_some_and(|(hn, _)| p.node == Some(hn)) && p.pool_hit.is_none() && !p.rotate;
            let tree_stands = !emptied || align > PAGE_SIZE;
            if emptied && (p.addr() != Some(x) || !tree_stands) {
                entry = p.node.filter(|&n| self.pre_capture_entry(x, size, align, n, line));
            }
            // The kernel's search can find x given back where the model's finds a higher block:
            // x's free block is shorter than the search length and lay on its search path (the
            // free tree's shape, read in the next replay).
            let on_path = |t: &Steered, y: u64| {
                let o = t.search_outcomes(size, align, vstart, vend);
                y > x && o.contains(&x) && o.contains(&y)
            };
            if p.addr() == Some(x) && (tree_stands || entry.is_some()) {
                done = Some((t, tblocks, p, Vec::new()));
            } else if p.pool_hit.is_none() && tree_stands && entry.is_none() && p.tree.is_some_and(|y| on_path(&t, y)) {
                shape = true;
                done = Some((t, tblocks, Prediction { tree: Some(x), ..p }, Vec::new()));
            } else if entry.is_some() {
                done = Some((t, tblocks, Prediction { pool_hit: Some(x), tree: None, ..p }, Vec::new()));
            } else if !head_only {
                let untouched = &self.untouched;
                done = t
                    .hold_trial(|trial| hold_blocks_below(untouched, trial, x, req, p, |p| p.addr() == Some(x)))
                    .map(|(p, found)| (t, tblocks, p, found));
            }
        }
        let (trial, tblocks, p, found) = done?;
        if let Some((key, pos)) = further {
            hits.insert(key, pos);
        }
        self.vmap = trial;
        self.blocks = tblocks;
        if let Some(n) = entry {
            // In its pool from the start in the next replay, behind the entries found before it.
            self.learnt.pool(n, x, size, line);
            self.learnt.old_heads.insert(x);
        }
        let mut what = String::new();
        for (&(n, idx), &pos) in &hits {
            // Learnt for the next replay, where that purge's decay gives them back itself.
            let more = pos + 1 - usize::from(own);
            if let Some(list) = self.kept.get_mut(&(n, idx)) {
                let given: Vec<u64> = list.drain(..more.min(list.len())).collect();
                if let Some(&last) = given.last() {
                    let key = (self.kept_line, n, idx);
                    self.learnt.pool_lengths.insert(key, last);
                    self.learnt.pool_length_from.insert(key, line);
                    self.learnt.changed = true;
                    let len = (idx as u64 + 1) * PAGE_SIZE;
                    self.given_by_length.extend(given.iter().map(|&a| (a, a + len, key)));
                }
            }
            let _ = write!(
                what,
                "{}node {n}'s pool of {} pages gave back its first {} kept entries",
                if what.is_empty() { "" } else { "; " },
                idx + 1,
                pos + 1 - usize::from(own)
            );
        }
        let mut why = format!(
            "at the purge of trace line {}, {what}: the kernel {} {x:#x}{}, so its decay (len >> 2 from the head) \
             counted more entries than the model's pool holds (entries from before the capture, or areas freed \
             to that node that the model pooled on another)",
            self.kept_line,
            if own { "took" } else { "allocated" },
            if own { ", the entry behind them" } else { " over them" }
        );
        if !found.is_empty() {
            let blocks = self.commit_blocks(&found, line);
            let _ = write!(why, "; below it {blocks}, untouched since the start, had no free run of the search length");
        }
        if shape {
            let _ = write!(
                why,
                "; its free block there is shorter than the search length and lay on the kernel's search path (the \
                 free tree's shape)"
            );
        }
        if entry.is_some() {
            let _ = write!(
                why,
                "; the pool then held only entries from before the capture (behind every entry pooled since), its \
                 head [{x:#x}, {end:#x}) one of them"
            );
        }
        Some((p, why))
    }

    /// `[x, x + size)` can be an entry of node `n`'s pool from before the capture: a pool size,
    /// aligned for the request, untouched since the start (vmallocinfo shows pool entries as
    /// free) or inside a block held whole, not found before, and the kernel never served this size on this node from its
    /// free tree (its pool was empty then: `node_alloc` asks the pool first). Never from where the
    /// pools were emptied on: drained by the capture, or scanned by the vmap node shrinker.
    fn pre_capture_entry(&self, x: u64, size: u64, align: u64, n: u32, line: usize) -> bool {
        line < self.emptied_at
            && size <= 256 * PAGE_SIZE
            && x & align.wrapping_sub(1) == 0
            && !self.tree_served.contains_key(&(n, pool_idx(size)))
            && self.entry_space(x, x + size)
            && self.learnt.entry_open(line, x)
    }

    /// The pool (node `n`, `size`) gives an entry from before the capture at `line`: the
    /// kernel's pool held it since the start, behind nothing pooled since (`node_pool_add_va`
    /// adds at the head, entries from before the capture were there first), so every earlier
    /// allocation of that size on that node that the kernel served from its free tree was its
    /// pool's head instead (`node_alloc` asks the pool first): each at space untouched since the
    /// start ([`Pass::pool_not_seen_empty`]), read again as an entry from before the capture at
    /// the same address, in the order taken, in front of this one. Whatever held space the
    /// free-tree reading needed at that line (a search that passed over held areas or blocks)
    /// goes with it. Those earlier readings are revised; what it adds to the explanation.
    fn first_fit_was_head(&mut self, n: u32, size: u64, line: usize) -> String {
        let Some(served) = self.tree_served.remove(&(n, pool_idx(size))) else {
            return String::new();
        };
        let mut also = String::new();
        for (y, l) in served.into_iter().flatten() {
            self.learnt.pool(n, y, size, l);
            self.learnt.held.retain(|&(_, _, h)| h != l);
            self.learnt.blocks.retain(|&(_, _, h)| h != l);
            let why_y = format!(
                "[{y:#x}, {:#x}) was in node {n}'s pool of {} pages before the capture: the kernel's answer here was \
                 its pool's head, not its free tree's (read so at trace line {line}, where the same pool gave another \
                 entry from before the capture)",
                y + size,
                size / PAGE_SIZE,
            );
            self.learnt.facts.insert(l, (Unknown::PoolEntry, why_y));
            self.learnt.revisions.push(Revision {
                line: l,
                contradicted_at: line,
                what: format!("where the kernel's {size:#x} bytes at {y:#x} came from"),
                why: "the kernel took an entry from before the capture from that pool later".into(),
                was: "its free tree, its pool empty".into(),
                now: "its pool's head, an entry from before the capture at the same address".into(),
            });
            let _ =
                write!(also, "{}[{y:#x}, {:#x}) at trace line {l}", if also.is_empty() { "" } else { ", " }, y + size);
        }
        if also.is_empty() {
            return also;
        }
        format!(
            "; so were the areas in front of it that the kernel allocated, {also} (its pool's head, not its free tree)"
        )
    }

    /// Whether node `n`'s pool for `size` can have held an entry from before the capture, by
    /// what the kernel's free tree served: never that size on that node, or only at space
    /// untouched since the start, never `x`, and not learnt as entries (each of those answers
    /// can be read again as the pool's head: [`Pass::first_fit_was_head`]).
    fn pool_not_seen_empty(&self, n: u32, size: u64, x: u64) -> bool {
        self.tree_served
            .get(&(n, pool_idx(size)))
            .is_none_or(|v| v.iter().all(|s| s.is_some_and(|(y, l)| y != x && self.learnt.entry_open(l, y))))
    }

    /// `[x, end)` lies inside one free block held whole (its layout unknown: pool entries from
    /// before the capture split it), where such an entry can be.
    fn in_held_block(&self, x: u64, end: u64) -> bool {
        self.blocks.iter().any(|&(a, b, _)| a <= x && end <= b)
    }

    /// The kernel took `[x, x + size)` from node `n`'s pool where the model's decay at the last
    /// purge gave it back. `decay_va_pool_node` gives back `len >> 2` entries from the head, so
    /// the kernel's gave back `k` (the entries in front of x), the model's more: the kernel's
    /// `len` was at most `4k + 3`, the model's `L`. The model's pool held at least `L - 4k - 3`
    /// areas the kernel's did not: busy areas of the before file whose node was a guess (the
    /// node of their address; `free_vmap_area_noflush` sends an area to the node of its
    /// `vn_id`, the CPU `node_alloc` ran on, which the file does not show). Those behind x are
    /// read as allocated for another node, the oldest first; the next replay starts from that.
    /// `None` unless the pool is as the purge left it but for its own entries taken since,
    /// and every entry from x on is still free here.
    fn decayed_less(&mut self, x: u64, size: u64, n: u32, line: usize, migrations: bool) -> Option<String> {
        if self.epoch_start > 0 {
            return None;
        }
        let idx = pool_idx(size);
        let (given, len) = self.given.get(&(n, idx))?;
        let len = *len;
        let k = given.iter().position(|&a| a == x)?;
        let kept = self.kept.get(&(n, idx)).cloned().unwrap_or_default();
        // Nothing taken from it since (that purge pooled its own in front of what it kept).
        if !self.vmap.pool_entries(n, size).ends_with(&kept) {
            return None;
        }
        let free = |a: u64| matches!(self.vmap.locate(a), Place::Free { end, .. } if a + size <= end);
        if !given[k..].iter().all(|&a| free(a)) {
            return None;
        }
        let need = shorter_by(len, k)?;
        // Behind x in the pool the decay began with: the rest of what it gave, then what it kept.
        // Not an area whose reading here a later allocation contradicted.
        let out = self.learnt.node_ruled_out.get(&line);
        let open: Vec<u64> =
            given[k + 1..].iter().chain(kept.iter()).copied().filter(|a| !out.is_some_and(|o| o.contains(a))).collect();
        let behind: Vec<u64> = open.iter().copied().filter(|a| self.guessed_node.contains(a)).collect();
        // Too few: areas the free tree gave during the capture too. `node_alloc` takes the
        // CPU's node for the `vn_id` first; a request its pool does not serve searches the free
        // tree and calls `cond_resched()` before it is traced: a task that yields there is
        // traced on the CPU it runs on again, maybe another. (A pool's answer is traced
        // without a reschedule point: its CPU is the trace line's.)
        let traced = if behind.len() < need { self.tree_given(open.iter().copied()) } else { Vec::new() };
        if behind.len() + traced.len() < need {
            return None;
        }
        if !migrations && behind.len() < need {
            self.learnt.migration_open = true;
            return None;
        }
        let nodes = self.vmap.nr_vmap_nodes();
        let to = (n + 1) % nodes;
        let moved: Vec<u64> = behind[behind.len().saturating_sub(need)..].to_vec();
        let moved_traced = &traced[traced.len() + moved.len() - need..];
        for &a in &moved {
            self.read_node(a, to, line);
        }
        let traced_list = self.read_alloc_nodes(moved_traced, to, line);
        self.recounted.extend([(n, idx), (to, idx)]);
        let list = moved.iter().map(|a| format!("{a:#x}")).collect::<Vec<_>>().join(", ");
        let which = match (moved.len(), moved_traced.len()) {
            (_, 0) => format!("{need} of the busy areas of the before file the model had put in it by their address"),
            (0, m) => format!("{m} of the areas its free tree gave during the capture"),
            (g, m) => format!(
                "{g} of the busy areas of the before file the model had put in it by their address ({list}) and {m} \
                 of the areas its free tree gave during the capture"
            ),
        };
        let (list, how) =
            if moved_traced.is_empty() { (list, String::new()) } else { (traced_list, format!(" ({RESCHED})")) };
        Some(format!(
            "[{x:#x}, {:#x}) was still in node {n}'s pool: the decay at the purge of trace line {} gave back {k} of \
             its entries, not the model's {} (len >> 2 of {len}), so that pool held at most {} entries; {which} were \
             allocated for another node{how}: read so, the oldest first ({list})",
            x + size,
            self.kept_line,
            len >> 2,
            4 * k + 3
        ))
    }

    /// Two unknowns at one allocation, each a reading above: the kernel's free-tree search passed
    /// over whole blocks untouched since the start ([`Pass::passed_over_blocks`]), and, in the
    /// free block where its area begins, over an entry below it that the model's last decay gave
    /// back and the kernel's kept ([`Pass::kept_passed_over`]). The blocks are held, in a trial,
    /// until the model's answer lies in that free block below `x`; only if the kept reading then
    /// holds are they held for good. One unknown each.
    fn blocks_then_kept(&mut self, x: u64, req: AllocReq, pred: Prediction, line: usize) -> Option<(Unknown, String)> {
        if self.learnt.revised.get(&line).is_some_and(|&r| r > Reading::Blocks) {
            return None;
        }
        let Place::Free { start: xs, .. } = self.vmap.locate(x) else { return None };
        let in_block = |p: &Prediction| p.pool_hit.is_none() && p.tree.is_some_and(|y| xs <= y && y < x);
        let done = |p: &Prediction| in_block(p) || p.tree.is_none_or(|y| y >= x);
        // First in a trial given up (the kept reading learns, so it runs on the model as it is),
        // then again, kept, once that reading holds.
        let untouched = &self.untouched;
        let mut seen = None;
        self.vmap.hold_trial(|trial| {
            seen = hold_blocks_below(untouched, trial, x, req, pred, done)
                .filter(|(p, found)| !found.is_empty() && in_block(p))
                .map(|(p, _)| p);
            None::<()>
        });
        let p = seen?;
        let (u, why) = self.kept_passed_over(x, req, p, line)?;
        let untouched = &self.untouched;
        let (_, found) = self.vmap.hold_trial(|trial| hold_blocks_below(untouched, trial, x, req, pred, done))?;
        let what = self.commit_blocks(&found, line);
        Some((
            u,
            format!(
                "{what}, free in the before file and untouched since, had no free run of the search length (pool \
                 entries from before the capture split {}); and {why}",
                if found.len() == 1 { "it" } else { "them" }
            ),
        ))
    }

    /// The kernel's `x` lies in a held block where no pool can have given it (that reading was
    /// contradicted at this line), and the model's search finds space below it: untouched since
    /// the start (where entries from before the capture may have split it; held in a trial),
    /// then a block the capture touched, over an entry the last decay gave back
    /// ([`Pass::kept_passed_over`]). Only that reading is made here; the next replay, with the
    /// entry kept, reads the space below and the piece ([`Pass::held_piece`]).
    ///
    /// ```text
    ///   model's search:  [untouched]  [given back | ...]  ...  [held block: x ...]
    ///   kernel's:         passed over  still pooled            first fit
    /// ```
    fn held_then_kept(&mut self, x: u64, req: AllocReq, pred: Prediction, line: usize) -> Option<(Unknown, String)> {
        let untouched = &self.untouched;
        let mut touched = None;
        self.vmap.hold_trial(|trial| {
            let walk = walk_blocks_below(untouched, trial, x, req, pred, |p| p.tree.is_none_or(|y| y >= x));
            if let Some(Below::Touched(p)) = walk {
                touched = Some(p);
            }
            None::<()>
        });
        let (u, why) = self.kept_passed_over(x, req, touched?, line)?;
        Some((u, format!("[{x:#x}, {:#x}) lies in a held block, and no pool gave it: {why}", x + req.size)))
    }

    /// The model's free-tree answer `y` lies below the kernel's `x`, over an entry the model's
    /// decay at the last purge gave back, free since. `find_vmap_lowest_match` takes the lowest
    /// block that fits: the kernel's passed over that space, so that entry was not in its free
    /// tree; it was still pooled, the kernel's decay having given back only the entries in front
    /// of it. Of several, the one that, kept alone, leaves the block no fit below `x`
    /// ([`passed_over_entry`]). [`Pass::decayed_less`] reads why: areas of the before file on
    /// another node; or [`Pass::counted_entries_out`]: entries from before the capture read at
    /// later allocations, counted in the model's `len`, not in the kernel's.
    fn kept_passed_over(&mut self, x: u64, req: AllocReq, pred: Prediction, line: usize) -> Option<(Unknown, String)> {
        let y = pred.tree.filter(|&y| y < x)?;
        let (lo, hi) = match self.vmap.locate(y) {
            Place::Free { start, end } => (start, end),
            _ => return None,
        };
        let mut cands: Vec<(u64, u64, u32)> = Vec::new();
        for (&(n, idx), (list, _)) in &self.given {
            let size = (idx as u64 + 1) * PAGE_SIZE;
            cands.extend(list.iter().filter(|&&a| lo <= a && a + size <= x).map(|&a| (a, size, n)));
        }
        cands.sort_unstable();
        let i = passed_over_entry(cands.iter().map(|&(a, size, _)| (a, size)), (lo, hi), x, req)?;
        let (a, size, n) = cands[i];
        // Its pool shorter in the kernel: areas of the before file on another node, or entries
        // from before the capture read at later allocations that it did not hold.
        let (u, why) = match self.decayed_less(a, size, n, line, self.learnt.migrations) {
            Some(why) => (Unknown::AreaNode, why),
            None => match self.lazy_split_kept(a, n) {
                Some(why) => (Unknown::AreaNode, why),
                None => (Unknown::PoolEntry, self.counted_entries_out(a, size, n, line, false)?),
            },
        };
        Some((
            u,
            format!("the kernel's free-tree search passed over {a:#x} (the model's answer {y:#x}, the kernel's {x:#x}): {why}"),
        ))
    }

    /// The kernel took `x`, an entry from before the capture found here (its pool's head), from
    /// node `n`'s pool, where the model's decays since the first purge gave it back.
    /// `decay_va_pool_node` gives back `len >> 2` from the head: in the kernel's pool other
    /// entries stood in front of it, entries from before the capture that no allocation shows
    /// (never taken, given back by decays), kept by the first purge's decay. The fewest more such
    /// entries that keep `x` the head (up to four in all) are read in that pool, and the next
    /// replay counts them in front of the known ones taken after the first purge.
    fn unseen_in_front(&mut self, x: u64, size: u64, n: u32, line: usize) -> Option<String> {
        let key = (n, pool_idx(size));
        if size > 256 * PAGE_SIZE
            || line >= self.emptied_at
            || !self.learnt.pooled_at.contains(&x)
            || self.learnt.entry_from.get(&x) != Some(&line)
            || self.learnt.unseen_out.contains(&key)
        {
            return None;
        }
        // The pool's history counted again with `more` entries behind those the first purge
        // pooled (in front of the older ones): the fewest that keep `x` its head now and
        // contradict nothing the kernel did ([`PoolHistory::rerun`]).
        let h = self.hist.as_ref()?;
        let recs = h.recs.get(&key)?;
        let first = recs.first().filter(|r| r.behind)?;
        let now = self.vmap.pool_entries(n, size);
        let have = self.learnt.unseen.get(&key).copied().unwrap_or(0);
        let held = h.held_in(recs);
        let more = (1..=4u32.saturating_sub(have)).find(|&m| {
            let inn: HashMap<usize, Vec<u64>> = [(first.line, (1..=u64::from(m)).collect())].into_iter().collect();
            h.rerun_held(recs, &held, &now, &HashSet::default(), &inn, &[], size, line)
                .is_some_and(|k| k.first() == Some(&x))
        })?;
        let k = have + more;
        self.learnt.unseen.insert(key, k);
        self.learnt.changed = true;
        let why = format!(
            "[{x:#x}, {:#x}), in node {n}'s pool of {} pages before the capture, was still there: the decays since the \
             first purge gave back, in the kernel, {k} entr{} in front of it that no allocation shows (read so)",
            x + size,
            size / PAGE_SIZE,
            if k == 1 { "y" } else { "ies" }
        );
        // What this allocation rests on from here on (it was read as an entry of that pool).
        self.learnt.facts.insert(line, (Unknown::PoolEntry, why.clone()));
        Some(why)
    }

    /// The kernel took `[x, x + size)` from node `n`'s pool where the model's decay of that
    /// node, at a purge replayed before its event (an allocation showed it had begun,
    /// [`Pass::purge_early`]), gave it back. `__purge_vmap_area_lazy` decays the nodes one by
    /// one (`decay_va_pool_node`, then the node's lazy list taken), so the purge stood before
    /// node `n`'s decay here: learnt, and the next replay stops that purge short of it until
    /// this line (the allocation that began it is read again). The reading revised, if new.
    fn decayed_after(&mut self, x: u64, size: u64, n: u32, line: usize) -> Option<String> {
        let purge = self.kept_line;
        let from = *self.purged_early.get(&purge)?;
        if self.before_epoch(from)
            || purge <= line
            || !self.given.get(&(n, pool_idx(size))).is_some_and(|(g, _)| g.contains(&x))
        {
            return None;
        }
        if self.learnt.decayed_after.get(&(purge, n)).is_some_and(|&m| m >= line) {
            return None;
        }
        self.learnt.decayed_after.insert((purge, n), line);
        self.learnt.changed = true;
        // The allocation that began it is read again: what it taught goes.
        self.learnt.facts.remove(&from);
        let taught: Vec<_> =
            self.learnt.pool_length_from.iter().filter(|&(_, &l)| l == from).map(|(&k, _)| k).collect();
        for k in taught {
            self.learnt.pool_lengths.remove(&k);
            self.learnt.pool_length_from.remove(&k);
        }
        self.learnt.revisions.push(Revision {
            line: from,
            contradicted_at: line,
            what: format!("where the purge traced at line {purge} stood"),
            why: format!(
                "the kernel took {x:#x} from node {n}'s pool, which that purge's decay of node {n} gives back"
            ),
            was: format!("node {n}'s pools decayed by then"),
            now: format!("node {n}'s pools decayed after trace line {line}"),
        });
        Some(format!(
            "[{x:#x}, {:#x}) was still in node {n}'s pool: the purge traced at line {purge}, replayed from trace line \
             {from} on, had not decayed node {n}'s pools yet (that decay gives it back)",
            x + size
        ))
    }

    /// The node first guessed for a busy area of the before file, and why.
    fn prior(&self, a: u64) -> (u32, String) {
        match self.read_prior.get(&a) {
            Some(&(n, l)) => (
                n,
                format!("the node of the CPU that traced its allocation at trace line {l}, while the file was read"),
            ),
            None => (self.vmap.addr_to_node_id(a), "the node of its address".into()),
        }
    }

    /// A busy area of the before file read as allocated for node `n` (its node a guess no
    /// more), learnt at `line` for the next replay ([`Pass::revise_node`] rules it out there if
    /// an allocation contradicts it).
    fn read_node(&mut self, a: u64, n: u32, line: usize) {
        self.guessed_node.remove(&a);
        self.learnt.nodes.insert(a, n);
        self.learnt.node_from.insert(a, line);
        self.learnt.changed = true;
    }

    /// The kernel took whole from node `n`'s pool `[x, x + size)`, which the model pooled in node
    /// `pn`'s: its last allocation, which the free tree served on a CPU of node `pn`, had been
    /// made for node `n` (the free-tree path reschedules before it traces:
    /// [`Pass::decayed_less`]). Read so where such readings are made ([`Learnt::migrations`]).
    fn made_for(&mut self, x: u64, size: u64, n: u32, pn: u32, line: usize) -> Option<String> {
        let &at = self.tree_alloc.get(&x)?;
        if self.learnt.node_ruled_out.get(&line).is_some_and(|o| o.contains(&x)) {
            return None;
        }
        if !self.learnt.migrations {
            self.learnt.migration_open = true;
            return None;
        }
        self.read_alloc_nodes(&[(x, at)], n, line);
        Some(format!(
            "[{x:#x}, {:#x}), which the free tree gave at trace line {at} on a CPU of node {pn}, had been allocated \
             for node {n}: the kernel took it from node {n}'s pool ({RESCHED})",
            x + size
        ))
    }

    /// Of `areas` (entries of a pool), those the free tree gave in this replay, with the line
    /// of that allocation, in the pool's order.
    fn tree_given(&self, areas: impl Iterator<Item = u64>) -> Vec<(u64, usize)> {
        areas.filter_map(|a| self.tree_alloc.get(&a).map(|&l| (a, l))).collect()
    }

    /// The allocations `(area, trace line)` read as made for node `n` at `line`: the next
    /// replay runs their `node_alloc` on a CPU of that node (revised as [`Pass::read_node`]).
    /// Their list, for the report.
    fn read_alloc_nodes(&mut self, moved: &[(u64, usize)], n: u32, line: usize) -> String {
        for &(a, at) in moved {
            self.tree_alloc.remove(&a);
            self.learnt.alloc_node.insert(at, (a, n));
            self.learnt.node_from.insert(a, line);
        }
        self.learnt.changed = true;
        moved.iter().map(|(a, at)| format!("{a:#x} at trace line {at}")).collect::<Vec<_>>().join(", ")
    }

    /// The kernel allocated `[x, x + size)` on node `n`, where the model has it free and gives
    /// another answer: a busy area of the before file, this very area, whose node was a guess
    /// (the node of its address), freed during the capture and not allocated since. Its purge
    /// pooled it in the node its `vn_id` names (`free_vmap_area_noflush`, `purge_vmap_node`); in
    /// the model, that of its address, whose decays gave it back. `node_alloc` asks node `n`'s
    /// pool first: read as allocated for node `n`, so that the next replay pools it there (and
    /// revises the reading if the allocation still differs: [`Pass::revise_node`]).
    fn freed_guess_taken(&mut self, x: u64, size: u64, n: u32, line: usize) -> Option<String> {
        if !self.guessed_node.contains(&x) || self.learnt.node_ruled_out.get(&line).is_some_and(|o| o.contains(&x)) {
            return None;
        }
        let end = x.checked_add(size)?;
        if !self.p.before.iter().any(|a| a.start == x && a.end == end && a.kind != InfoKind::Unpurged) {
            return None;
        }
        let (guessed, how) = self.prior(x);
        if guessed == n {
            return None;
        }
        self.read_node(x, n, line);
        Some(format!(
            "[{x:#x}, {end:#x}), busy before the capture and freed since, had been allocated for node {n}, not node \
             {guessed} ({how}, assumed; the before file does not say): the kernel took it whole on node {n}, where the \
             model's pool of node {guessed} had given it back"
        ))
    }

    /// The kernel allocated `[x, x + size)` over an entry the model has pooled, a busy area of
    /// the before file whose node was a guess (the node of its address). `free_vmap_area_noflush`
    /// sends an area to the lazy list of the node its vn_id names (the CPU `node_alloc` ran on,
    /// which the file does not show), and `purge_vmap_node` pools it in that node's pool, whose
    /// decays (`len >> 2` from the head) give it back in their own turn: in the kernel it was
    /// not in this pool. (Not where the kernel's area is that entry, whole: a pool gave it.)
    /// Read as allocated for another node, the lowest such entry first, unless
    /// that reading was contradicted at this line before; the next replay checks it (revised by
    /// [`Pass::revise_node`] if the allocation still differs). Why, if read.
    fn pooled_elsewhere(&mut self, x: u64, size: u64, line: usize) -> Option<String> {
        let end = x.checked_add(size)?;
        let out = self.learnt.node_ruled_out.get(&line);
        // Its start under the kernel's area (where a revision finds it again), and not the
        // kernel's area itself: that one a pool can have given (`node_pool_del_va`), and says
        // nothing of the entry's space being free.
        let (y, ye, pn) = self.pooled_under(x, end, |_, start, e| {
            start >= x
                && !(start == x && e == end)
                && self.guessed_node.contains(&start)
                && !out.is_some_and(|o| o.contains(&start))
        })?;
        let nodes = self.vmap.nr_vmap_nodes();
        let other = (pn + 1) % nodes;
        let (_, how) = self.prior(y);
        self.read_node(y, other, line);
        Some(format!(
            "[{y:#x}, {ye:#x}), busy before the capture and freed since, had been allocated for node {other}, not node \
             {pn} ({how}, assumed; the before file does not say): node {pn}'s pool did not hold it, the kernel \
             allocated {x:#x} over it (that node's purge pooled it, its decays gave it back)"
        ))
    }

    /// Allocations between the events' end and the after file's read that a pool gave: busy
    /// in the file, or lazy there (allocated and freed again in that gap), a whole pool entry
    /// here. `node_alloc` looks at the pool of its CPU's node and `node_pool_del_va` takes the
    /// head only, so per pool the longest run from the head of such entries is allocated, each
    /// on a CPU of that node, in the pool's order; an entry behind one the file shows neither
    /// busy nor lazy stays a difference. The ones the file shows lazy are freed after.
    fn pooled_after_trace(&mut self, after: &[import::InfoLine], busy_here: &HashSet<(u64, u64)>) {
        let shown: HashSet<(u64, u64)> = after
            .iter()
            .filter(|a| a.kind != InfoKind::Unpurged && !busy_here.contains(&(a.start, a.end)))
            .map(|a| (a.start, a.end))
            .collect();
        let lazy: HashSet<(u64, u64)> =
            after.iter().filter(|a| a.kind == InfoKind::Unpurged).map(|a| (a.start, a.end)).collect();
        let nodes = self.vmap.nr_vmap_nodes();
        let mut freed = Vec::new();
        for (n, idx, entries) in self.vmap.pools_snapshot() {
            let size = (idx as u64 + 1) * PAGE_SIZE;
            let Some(&cpu) = self.p.online.iter().find(|&&c| c % nodes == n) else { continue };
            for a in entries {
                let was_freed = lazy.contains(&(a, a + size));
                if !shown.contains(&(a, a + size)) && !was_freed {
                    break;
                }
                if self.vmap.cpu() != cpu {
                    let _ = self.vmap.set_cpu(u64::from(cpu));
                    self.push(Op::Cpu(u64::from(cpu)));
                }
                let pred = self.vmap.predict_alloc(size, 1, VMALLOC_START, VMALLOC_END);
                if pred.pool_hit != Some(a)
                    || self.vmap.alloc(size, 1, VMALLOC_START, VMALLOC_END, &mut NoObserver) != Ok(a)
                {
                    break;
                }
                self.push(follow(Follow::Alloc {
                    size,
                    align: 1,
                    vstart: VMALLOC_START,
                    vend: VMALLOC_END,
                    addr: a,
                    mark: Mark::Equal,
                }));
                self.report.allocated_after_trace += 1;
                self.report.pooled_after_trace += 1;
                if was_freed {
                    freed.push(a);
                }
            }
        }
        for a in freed {
            if self.vmap.vfree(a, &mut NoObserver).is_ok() {
                self.push(Op::Vfree(a));
                self.report.freed_after_trace += 1;
            }
        }
    }

    /// The kernel's pool gave `[x, x + size)`, space the model has untouched since the start
    /// or held, where the model's pool gave another head: an entry from before the capture.
    /// `node_pool_add_va` pushes at the head and `node_alloc` and `decay_va_pool_node` take
    /// from it, so such entries are the oldest, behind every entry pooled since; the first
    /// purge's decay gave back only unseen ones in front of them (`behind` in the pools'
    /// history). Where x is the kernel's head here, its pool was longer than the model's and
    /// each decay since gave back more: x, and behind it entries no allocation has shown yet
    /// (stand-ins in the model until one does). Their number is the fewest with which the
    /// pool's history counted again ([`PoolHistory::rerun_held`]) has x its head now.
    ///
    /// ```text
    ///   model:   [ p3 p2 p1 ]                      two decays give back none (3 >> 2 = 0)
    ///   kernel:  [ p3 p2 p1 | x u1 u2 u3 u4 u5 ]   9 >> 2 = 2, then 7 >> 2 = 1: x its head
    /// ```
    ///
    /// Where the model's head is such a stand-in, the kernel's `x` was that entry.
    fn entries_behind(&mut self, x: u64, req: AllocReq, pred: Prediction, line: usize) -> Option<String> {
        let AllocReq { size, align, .. } = req;
        let (Some(n), Some(y)) = (pred.node, pred.pool_hit) else { return None };
        let key = (n, pool_idx(size));
        if y == x || !self.pre_capture_entry(x, size, align, n, line) {
            return None;
        }
        let pages = size / PAGE_SIZE;
        let end = x + size;
        if self.behind_at.get(&y) == Some(&key) {
            let from = self.learnt.one_behind_fewer(key).map_or(line, |(_, l)| l);
            self.behind_at.remove(&y);
            self.vmap.unpool_overlapping(y, PAGE_SIZE);
            self.learnt.pool(n, x, size, line);
            self.learnt.changed = true;
            return Some(format!(
                "[{x:#x}, {end:#x}) was one of the entries of node {n}'s pool of {pages} pages from before the capture \
                 read behind the known ones at trace line {from} (no allocation had shown it): the kernel took it there"
            ));
        }
        if self.learnt.unseen_behind.contains_key(&key) {
            return None;
        }
        let h = self.hist.as_ref()?;
        let recs = h.recs.get(&key)?;
        let now = self.vmap.pool_entries(n, size);
        let held = h.held_in(recs);
        let (none_in, none_out) = (HashMap::default(), HashSet::default());
        // The fewest unseen entries in all; in front of x only where requests with a misaligned
        // head turned the pool (stand-ins misaligned: the kernel moved them to the tail).
        let front_open = !self.learnt.front_out.contains(&x) && h.turns_in(recs);
        let (a, b, k) = (0..=MAX_BEHIND).find_map(|t| {
            (0..=t.min(if front_open { MAX_FRONT } else { 0 })).find_map(|a| {
                let b = t - a;
                let tail: Vec<u64> =
                    (1..=u64::from(a)).chain(std::iter::once(x)).chain(a as u64 + 1..=u64::from(t)).collect();
                h.rerun_held(recs, &held, &now, &none_out, &none_in, &tail, size, line)
                    .filter(|k| k.first() == Some(&x))
                    .map(|k| (a, b, k))
            })
        })?;
        let first = recs.first().map_or(line, |r| r.line);
        self.learnt.pool(n, x, size, line);
        if b > 0 {
            self.learnt.unseen_behind.insert(key, (b, line));
        }
        if a > 0 {
            self.learnt.unseen_front.insert(x, Front { key, count: a, line, known: Vec::new() });
        }
        self.learnt.changed = true;
        // This replay goes on from the kernel's pool, as counted: x taken (by the caller), the
        // rest in its order, stand-ins for the unseen ones (what stood in front of x given back).
        for e in &now {
            self.vmap.unpool_overlapping(*e, PAGE_SIZE);
        }
        let unseen = u64::from(a + b);
        for &e in &k[1..] {
            // The entry itself, or a stand-in: in front of x (`Some(true)`) or behind it.
            let (s, stand_in) = match e {
                e if e > unseen => (e, None),
                e if e <= u64::from(a) => (front_slot(&self.front_at), Some(true)),
                _ => (stand_in_slot(&self.unseen_at, &self.behind_at), Some(false)),
            };
            if !self.vmap.pool_at(s, size, n, false) {
                continue;
            }
            match stand_in {
                Some(true) => {
                    self.front_at.insert(s, x);
                }
                Some(false) => {
                    self.behind_at.insert(s, key);
                }
                None => {}
            }
            self.push(follow(Follow::Pooled { node: n, start: s, size, head: false, behind: 0 }));
        }
        let plural = |k: u32, one: &str, many: &str| if k == 1 { format!("1 {one}") } else { format!("{k} {many}") };
        let behind = match b {
            0 => String::new(),
            b => format!(" and {} behind it that no allocation has shown yet", plural(b, "entry", "entries")),
        };
        if a > 0 {
            return Some(format!(
                "[{x:#x}, {end:#x}) was in node {n}'s pool of {pages} pages from before the capture, behind every entry \
                 pooled since, with {} in front of it that no allocation has shown yet{behind}: the decays since the \
                 purge of trace line {first} (len >> 2 from the head at each) gave back what the capture pooled in front \
                 of them, and the requests that met the unseen ones at the head, misaligned for them, moved them to the \
                 tail (`node_pool_del_va`), so that it was the head here, not the model's {y:#x}",
                plural(a, "entry", "entries")
            ));
        }
        Some(format!(
            "[{x:#x}, {end:#x}) was in node {n}'s pool of {pages} pages from before the capture, behind every entry \
             pooled since: with it{behind}, the decays since the purge of trace line {first} (len >> 2 from the head \
             at each) gave back every entry in front of it, the model's head {y:#x} among them"
        ))
    }

    fn decay_verdict(&mut self, x: u64, req: AllocReq, pred: Prediction, line: usize, whole: String) -> Verdict {
        // The model's head a stand-in of an unseen entry read in front of a known one: the
        // kernel's answer that entry, or that reading is out ([`Learnt::drop_front`]), not read
        // on top of.
        if let Some((y, &of)) = pred.pool_hit.and_then(|y| self.front_at.get(&y).map(|o| (y, o))) {
            return match self.front_was(x, req, y, of, line) {
                Some(why) => Verdict::Explained(Unknown::PoolEntry, why),
                None => Verdict::Unexplained(whole),
            };
        }
        if let Some(why) = self.flipped_gave_back(x, req, line) {
            return Verdict::Explained(Unknown::AreaNode, why);
        }
        match self.decayed_more(x, req, pred, line) {
            Some((_, why)) => Verdict::Explained(Unknown::PoolLength, why),
            None if self.stale_count => Verdict::Unexplained(whole),
            None if let Some(why) = self.entries_behind(x, req, pred, line) => {
                Verdict::Explained(Unknown::PoolEntry, why)
            }
            None => {
                self.searched_before_alloc(x, req, pred, line);
                Verdict::Unexplained(whole)
            }
        }
    }

    /// The model's pool gave `y`, a stand-in of an unseen entry read in front of `of`, where the
    /// kernel's gave `x`, an entry from before the capture: `x` was that entry (unseen until
    /// here), in front of `of` from the start in the next replay. Why, if read so.
    fn front_was(&mut self, x: u64, req: AllocReq, y: u64, of: u64, line: usize) -> Option<String> {
        let AllocReq { size, align, .. } = req;
        let f = self.learnt.unseen_front.get(&of)?;
        let (n, from) = (f.key.0, f.line);
        if (f.known.len() as u32) >= f.count || !self.pre_capture_entry(x, size, align, n, line) {
            return None;
        }
        self.learnt.unseen_front.get_mut(&of)?.known.push(x);
        self.learnt.pooled_at.insert(x);
        self.learnt.entry_from.insert(x, line);
        self.learnt.changed = true;
        self.front_at.remove(&y);
        self.vmap.unpool_overlapping(y, PAGE_SIZE);
        Some(format!(
            "[{x:#x}, {:#x}) was the entry of node {n}'s pool of {} pages from before the capture read in front of \
             {of:#x} at trace line {from} (misaligned, moved to the tail by the requests that met it; no allocation \
             had shown it): the kernel took it there",
            x + size,
            size / PAGE_SIZE
        ))
    }

    /// `alloc_vmap_area` reschedules after a free-tree search and before its event
    /// ([`RESCHED`]): an allocation traced later, by another task, can have searched before this
    /// one. The model's free tree gave `y` where the kernel gave `x`: the first allocation traced
    /// in the next [`SEARCH_AHEAD`] events, whose task has no event in between (it was yielded),
    /// that the model's free tree serves here at the kernel's address over `[y, y + size)` and
    /// after which the model gives `x`, searched first. A purge traced in between does not end
    /// the look: the yielded task's search ran before this one, so before that purge too (the
    /// drain work runs on any CPU while it waits). Learnt for the next replay, which replays it
    /// ahead of this one (no state changes here).
    fn searched_before_alloc(&mut self, x: u64, req: AllocReq, pred: Prediction, line: usize) {
        let AllocReq { size, align, vstart, vend } = req;
        let (None, Some(y)) = (pred.pool_hit, pred.tree) else { return };
        if self.missed || self.diverged() || self.learnt.searched_early.contains_key(&line) {
            return;
        }
        let Some(me) = self.p.events.get(self.pos).filter(|m| m.line == line) else { return };
        let mut seen = HashSet::from_iter([me.pid]);
        let cpu = self.vmap.cpu();
        for (i, n) in self.p.events.iter().enumerate().skip(self.pos + 1).take(SEARCH_AHEAD) {
            match n.ev {
                FtraceEvent::Alloc { addr, req: r, failed: false }
                    if !seen.contains(&n.pid)
                        && !self.ahead.contains(&n.line)
                        && addr < y.saturating_add(size)
                        && y < addr.saturating_add(r.size) =>
                {
                    let mut t = self.vmap.clone();
                    t.log_oracle(false);
                    let _ = t.set_cpu(u64::from(n.cpu));
                    let p = t.predict_alloc(r.size, r.align, r.vstart, r.vend);
                    if p.pool_hit.is_some() || p.tree != Some(addr) {
                        return;
                    }
                    if let (true, Some(pn)) = (p.rotate, p.node) {
                        t.rotate_pool_head(pn, r.size);
                    }
                    if t.take_at(addr, r.size, p.node).is_none() {
                        return;
                    }
                    let _ = t.set_cpu(u64::from(cpu));
                    if t.predict_alloc(size, align, vstart, vend).addr() == Some(x) {
                        self.learnt.searched_early.entry(line).or_default().push(i);
                        self.learnt.changed = true;
                    }
                    return;
                }
                _ => {}
            }
            seen.insert(n.pid);
        }
    }

    /// `[x, end)` is where an entry pooled before the capture can lie: space untouched since the
    /// start, held blocks, or both across a block's edge.
    fn entry_space(&self, x: u64, end: u64) -> bool {
        is_untouched(&self.untouched, x, end) || self.covered_by_blocks(x, end, true)
    }

    /// `[x, end)` lies in held blocks and free space, at least partly in a block: a piece the
    /// kernel could allocate there (the part that is free here was given back since). With
    /// `untouched`, the free part must be untouched since the start, where an entry pooled
    /// before the capture can lie: a held block is the model's guess of a layout, and an entry
    /// can cross its edge into space the model left free beside it.
    fn covered_by_blocks(&self, x: u64, end: u64, untouched: bool) -> bool {
        let mut at = x;
        let mut held = false;
        while at < end {
            if let Some(&(_, b, _)) = self.blocks.iter().find(|&&(a, b, _)| a <= at && at < b) {
                held = true;
                at = b;
            } else if untouched {
                match self.untouched.range(..=at).next_back() {
                    Some((_, &ue)) if ue > at => at = ue,
                    _ => return false,
                }
            } else if let Place::Free { end: fe, .. } = self.vmap.locate(at) {
                at = fe;
            } else {
                return false;
            }
        }
        held
    }

    /// Every held area over `[x, end)` free again (untouched, as it was since the start; one
    /// search may have held several there): the first one's start, end and the line that found it.
    fn release_held_over(&mut self, x: u64, end: u64) -> Option<(u64, u64, usize)> {
        let mut first = None;
        while let Some(i) = self.held.iter().position(|&(a, b, _)| a < end && x < b) {
            let (a, b, from) = self.held.remove(i);
            self.vmap.release_held_at(a);
            add_untouched(&mut self.untouched, a, b);
            first.get_or_insert((a, b, from));
        }
        first
    }

    /// Give `[x, end)` of the held blocks back to the free tree (the rest of each stays held):
    /// the kernel allocated there. The first block met (its start, end, line), if any.
    fn unhold_blocks(&mut self, x: u64, end: u64) -> Option<(u64, u64, usize)> {
        unhold_blocks_in(&mut self.vmap, &mut self.blocks, x, end)
    }

    fn mismatch(&mut self, e: &Ev, x: u64, req: AllocReq, pred: Prediction) -> Verdict {
        let AllocReq { size, align, .. } = req;
        let place = self.vmap.locate(x);
        let ours = match (pred.pool_hit, pred.tree) {
            (Some(y), _) => format!("{y:#x} from node {}'s pool", pred.node.unwrap_or(0)),
            (None, Some(y)) => format!("{y:#x} from the free tree ({})", self.vmap.locate(y)),
            (None, None) => "no space (it would purge and retry)".into(),
        };
        let whole = format!(
            "{}: the kernel got {x:#x}, the model {ours}; in the model {x:#x} is {place}",
            self.describe(req, e.cpu)
        );
        self.read_under = self.pooled_by_reading(x, x.saturating_add(size));
        let pool_size = size <= 256 * PAGE_SIZE;
        let outcomes = self.vmap.search_outcomes(size, align, req.vstart, req.vend);
        // The model's pool gave an area whose node was read from a shorter pool, or the kernel
        // took such an area from another node's pool than the model's: that reading is
        // contradicted ([`Pass::revise_node`]), before any other unknown is tried.
        let node_read = |a: &u64| self.learnt.node_from.contains_key(a);
        let node_contradicted = pred.pool_hit.is_some_and(|y| node_read(&y))
            || matches!(place, Place::Pooled { node: pn, start, .. } if start == x && Some(pn) != pred.node && node_read(&x));
        let verdict = match (place, pred.node) {
            // Kernel took from a pool an area the model has in another node's pool: an area
            // of the before file allocated for another node than its address's.
            // Past a miss: the model's pool head a guess, the kernel's answer in front of it.
            (_, Some(n))
                if !self.diverged()
                    && let Some(why) = self.epoch_head(x, req, pred, n, e.line) =>
            {
                Verdict::Explained(Unknown::PoolEntry, why)
            }
            _ if self.diverged() || node_contradicted => Verdict::Unexplained(whole),
            // Both searched the free tree (the model's pool gave nothing, and the kernel's
            // address is free here) and each found a block the search can find: the lowest of
            // the search length, or a shorter one below it that fits exactly and lay on the
            // search path. Which shorter blocks lie on the path is the tree's shape.
            (Place::Free { .. }, _)
                if pred.pool_hit.is_none()
                    && pred.tree.is_some_and(|y| outcomes.contains(&y))
                    && outcomes.contains(&x)
                    && !self.learnt.shape_out.contains(&e.line) =>
            {
                let y = pred.tree.unwrap_or(0);
                let (lo, on) = if x < y { (x, "lay") } else { (y, "did not lie") };
                // One fact per short block and search length: a repeat rests on the first, a
                // contrary one is no shape of one tree.
                let blk = match self.vmap.locate(lo) {
                    Place::Free { start, end } => (start, end),
                    _ => (lo, lo),
                };
                let key = (blk.0, blk.1, size.wrapping_add(align).wrapping_sub(1));
                let d = self.describe(req, e.cpu);
                // A fact read on another tree does not count: `find_vmap_lowest_match` walks the
                // augmented tree from its root, and a block taken out of it since may have
                // rebalanced it or changed a subtree's largest block, so the path may differ.
                match self.shapes.get(&key).copied().filter(|f| f.2 == self.tree_gen) {
                    None => {
                        self.shapes.insert(key, (x < y, e.line, self.tree_gen));
                        self.report.resolved_tree_shapes += 1;
                        Verdict::Explained(
                            Unknown::TreeShape,
                            format!(
                                "{d}: the kernel got {x:#x}, the model {y:#x}; the free block at {lo:#x} fits but is \
                                 shorter than the search length ({size:#x} + align - 1): it {on} on the kernel's search \
                                 path (the free tree's shape, which vmallocinfo does not show)"
                            ),
                        )
                    }
                    Some((was_on, first, _)) if was_on == (x < y) => Verdict::Explained(
                        Unknown::TreeShape,
                        format!(
                            "{d}: the kernel got {x:#x}, the model {y:#x}; the free block at {lo:#x} {on} on the \
                             kernel's search path for this length, as at trace line {first} (the same shape fact)"
                        ),
                    ),
                    Some((_, first, _)) => {
                        // A contrary fact: no shape of one tree (the block and the search length
                        // the same, the tree's shape unchanged in between: [`Pass::tree_gen`]).
                        // The first was a reading: it is not made there again.
                        if !self.missed && self.learnt.shape_out.insert(first) {
                            self.learnt.facts.remove(&first);
                            self.learnt.revisions.push(Revision {
                                line: first,
                                contradicted_at: e.line,
                                what: format!("the free tree's shape at the block {lo:#x}"),
                                why: format!("the kernel's search for this length {on} on it here"),
                                was: "the shape fact read there".into(),
                                now: "no shape fact there".into(),
                            });
                            self.learnt.changed = true;
                        }
                        Verdict::Unexplained(whole)
                    }
                }
            }
            (Place::Pooled { node: pn, pos, start, end, .. }, Some(n))
                if start == x
                    && end == x + size
                    && (pn != n || pos > 0)
                    && let Some((k, why)) = self.lazy_split_from(x, pn, n, pos) =>
            {
                self.set_lazy_split(k);
                Verdict::Explained(Unknown::AreaNode, why)
            }
            (_, Some(n))
                if let Some(y) = pred.pool_hit.filter(|&y| y != x)
                    && let Some((k, why)) = self.lazy_split_head(x, y, n, size) =>
            {
                self.set_lazy_split(k);
                Verdict::Explained(Unknown::AreaNode, why)
            }
            (Place::Pooled { node: pn, start, end, .. }, Some(n)) if start == x && end == x + size && pn != n => {
                if self.guessed_node.contains(&x) {
                    let (_, how) = self.prior(x);
                    self.guessed_node.remove(&x);
                    self.learnt.nodes.insert(x, n);
                    self.learnt.changed = true;
                    Verdict::Explained(
                        Unknown::AreaNode,
                        format!(
                            "[{x:#x}, {:#x}), busy before the capture, had been allocated for node {n}, not node {pn} \
                             ({how}, assumed): the kernel took it from node {n}'s pool",
                            x + size
                        ),
                    )
                } else if let Some(why) = self.made_for(x, size, n, pn, e.line) {
                    Verdict::Explained(Unknown::AreaNode, why)
                } else {
                    self.decay_verdict(x, req, pred, e.line, whole)
                }
            }
            // The kernel took from its pool an entry that the decay of a purge replayed early
            // (its event still to come) gave back: that node's decay ran after this allocation.
            (Place::Free { .. }, Some(n)) if let Some(why) = self.decayed_after(x, size, n, e.line) => {
                Verdict::Explained(Unknown::PoolLength, why)
            }
            // The kernel took from a pool an entry the model's last decay gave back: its decay
            // gave back fewer, its pool being shorter (areas of the before file in another node).
            (Place::Free { .. }, Some(n))
                if let Some(why) = self.decayed_less(x, size, n, e.line, self.learnt.migrations) =>
            {
                Verdict::Explained(Unknown::AreaNode, why)
            }
            // Both searched the free tree, the kernel's search passed over an entry the model's
            // last decay gave back: the same readings (the kernel's decay kept it). So too where
            // the kernel's area is a piece of a block held whole that no pool can have given:
            // that size on that node was served from the free tree before (its pool was empty
            // then, so nothing from before the capture is in it), and space untouched since the
            // start was pooled by no purge of the capture; or that node's pool has a misaligned
            // head, which `node_pool_del_va` moves to the tail, giving nothing.
            (Place::Free { .. } | Place::Nowhere, _)
                if pred.pool_hit.is_none()
                    && (matches!(place, Place::Free { .. })
                        || (self.in_held_block(x, x + size)
                            && pred.node.is_some_and(|n| pred.rotate || !self.pool_not_seen_empty(n, size, x))))
                    && let Some((u, why)) = self.kept_passed_over(x, req, pred, e.line) =>
            {
                Verdict::Explained(u, why)
            }
            // A piece of a held block that no pool gave (that reading contradicted here), below
            // it untouched space passed over and then an entry the last decay gave back: the
            // kernel's decay kept that entry. The piece and the space are read in the next replay.
            (Place::Nowhere, _)
                if pred.pool_hit.is_none()
                    && self.in_held_block(x, x + size)
                    && !self.learnt.entry_open(e.line, x)
                    && let Some((u, why)) = self.held_then_kept(x, req, pred, e.line) =>
            {
                Verdict::Explained(u, why)
            }
            // Both at once: whole blocks below passed over, and then, in the free block the
            // kernel's area begins in, below it, an entry the kernel's decay kept.
            (Place::Free { .. }, _)
                if pred.pool_hit.is_none()
                    && let Some((u, why)) = self.blocks_then_kept(x, req, pred, e.line) =>
            {
                Verdict::Explained(u, why)
            }
            // The kernel's pool held an entry the model's decays gave back, counted over its
            // pool's whole history: areas of the before file on the other node.
            (Place::Free { .. }, Some(n)) if let Some(why) = self.flipped_nodes(x, size, n, pred, e.line) => {
                Verdict::Explained(Unknown::AreaNode, why)
            }
            // The kernel took from its pool's head an entry from before the capture that the model's
            // decays gave back: entries no allocation shows stood in front of it, and took them.
            (Place::Free { .. }, Some(n)) if let Some(why) = self.unseen_in_front(x, size, n, e.line) => {
                Verdict::Explained(Unknown::PoolEntry, why)
            }
            // The kernel took from its pool's head an entry the model's decays gave back: the
            // model's pool counted entries from before the capture read later that it did not hold.
            (Place::Free { .. }, Some(n)) if let Some(why) = self.counted_entries_out(x, size, n, e.line, true) => {
                Verdict::Explained(Unknown::PoolEntry, why)
            }
            // The kernel took from a pool an area the model has free and nothing has touched
            // since the start: it was pooled before the capture. Not behind a misaligned head
            // (see `entry_out` in [`Pass::alloc`]).
            //
            // If the kernel served this size on this node from its free tree once before, at
            // space untouched since the start, that answer may have been the pool's head instead
            // (an entry from before the capture at the free tree's first fit: `node_alloc` asks
            // the pool first, and the two give the same address): read so, both were entries,
            // in that order. That earlier reading is revised.
            (Place::Free { .. }, Some(n))
                if pool_size
                    && e.line < self.emptied_at
                    && x & align.wrapping_sub(1) == 0
                    && self.pool_not_seen_empty(n, size, x)
                    && is_untouched(&self.untouched, x, x + size)
                    && pred.pool_hit.is_none()
                    && !pred.rotate
                    && self.learnt.entry_open(e.line, x) =>
            {
                let also = self.first_fit_was_head(n, size, e.line);
                self.learnt.pool(n, x, size, e.line);
                self.learnt.changed = true;
                Verdict::Explained(
                    Unknown::PoolEntry,
                    format!(
                    "[{x:#x}, {:#x}) was in node {n}'s pool of {} pages before the capture (vmallocinfo does not show \
                     pools): the kernel took it from there, the model searched the free tree{also}",
                    x + size,
                    size / PAGE_SIZE
                ),
                )
            }
            // The model's pool head is an area of the before file whose node was a guess: the
            // kernel's pool of this node did not hold it, so it was allocated for another node.
            // Where the kernel's area is in that pool too, behind only such areas, none of those
            // was in the kernel's pool (it gave its head): each is read so.
            (_, Some(n)) if pred.pool_hit.is_some_and(|y| self.guessed_node.contains(&y)) => {
                let y = pred.pool_hit.unwrap_or(0);
                let list = self.vmap.pool_entries(n, size);
                let ahead = match list.iter().position(|&a| a == x) {
                    Some(p) if list.first() == Some(&y) && list[..p].iter().all(|a| self.guessed_node.contains(a)) => {
                        list[..p].to_vec()
                    }
                    _ => vec![y],
                };
                let nodes = self.vmap.nr_vmap_nodes();
                for &a in &ahead {
                    self.guessed_node.remove(&a);
                    let other = self.learnt.nodes.get(&a).map_or((n + 1) % nodes, |&m| (m + 1) % nodes);
                    self.learnt.nodes.insert(a, if other == n { (other + 1) % nodes } else { other });
                }
                self.learnt.changed = true;
                let also = match ahead.len() {
                    1 => String::new(),
                    k => format!(
                        "; so were the {} areas behind it, in front of the kernel's {x:#x} in the model's pool",
                        k - 1
                    ),
                };
                Verdict::Explained(
                    Unknown::AreaNode,
                    format!(
                    "[{y:#x}, {:#x}), busy before the capture, had not been allocated for node {n} (the node of its \
                     address was assumed; the before file does not say): the kernel's pool of node {n} did not hold \
                     it{also}",
                    y + size
                ),
                )
            }
            // Over an entry the model pooled that was a busy area of the before file whose node
            // was a guess: read as allocated for another node ([`Pass::pooled_elsewhere`]).
            (_, Some(_)) if let Some(why) = self.pooled_elsewhere(x, size, e.line) => {
                Verdict::Explained(Unknown::AreaNode, why)
            }
            // The kernel's area, whole, a busy area of the before file whose node was a guess,
            // freed since and free here: read as allocated for this node ([`Pass::freed_guess_taken`]).
            (Place::Free { .. }, Some(n))
                if pool_size
                    && pred.addr() != Some(x)
                    && let Some(why) = self.freed_guess_taken(x, size, n, e.line) =>
            {
                Verdict::Explained(Unknown::AreaNode, why)
            }
            // Over entries the model still has pooled: the kernel's decay gave back more.
            _ => self.decay_verdict(x, req, pred, e.line, whole),
        };
        // `node_pool_del_va` looked at the pool once, before the search: where its head was
        // misaligned (in the state the verdict leaves, as the printed trace replays it), it
        // moved that head to the tail, in the kernel as here. The readings above predict
        // with the pool as the kernel found it, not with the next head.
        let now = self.vmap.predict_alloc(size, align, req.vstart, req.vend);
        if let (true, Some(n)) = (now.rotate, now.node) {
            self.vmap.rotate_pool_head(n, size);
        }
        let node = pred.node;
        if self.learnt.resync && matches!(verdict, Verdict::Unexplained(_)) {
            self.gave_head_only(x, size, align, node);
        }
        let mut taken = self.vmap.take_at(x, size, node).is_some();
        if !taken {
            // The kernel allocated over entries the model has pooled: its pool no longer held
            // them (a decay gave them back). So the model's pools give them back too. And over
            // space held since before the capture: that part was free or pooled in the kernel.
            let n = self.vmap.unpool_overlapping(x, size);
            let b = self.unhold_blocks(x, x + size).is_some();
            if n > 0 || b {
                taken = self.vmap.take_at(x, size, node).is_some();
            }
        }
        if !taken {
            self.report.notes.push(format!(
                "{} line {}: the model cannot take {x:#x} as the kernel did ({place}); the replay goes on without it",
                self.tname(),
                e.line
            ));
        } else {
            take_untouched(&mut self.untouched, x, x + size);
        }
        verdict
    }

    /// The model steered to an unexplained address `x` that it holds in the request's own
    /// pool behind other entries: `node_pool_del_va` gives only the head (a misaligned one it
    /// moves to the tail, and the request goes to the free tree), so the kernel's pool held
    /// none of those in front of `x` then. They go back to the free tree, where what leaves a
    /// pool other than by an allocation goes (`decay_va_pool_node`, `len >> 2` from the head):
    ///
    /// ```text
    ///   model:   head [ y1 y2 x z ... ]     kernel gave x: its head
    ///   steered:      [ x z ... ]           y1, y2 free
    /// ```
    fn gave_head_only(&mut self, x: u64, size: u64, align: u64, node: Option<u32>) {
        let Some(n) = node else { return };
        if x & align.wrapping_sub(1) != 0 {
            return;
        }
        let entries = self.vmap.pool_entries(n, size);
        let Some(k) = entries.iter().position(|&a| a == x) else { return };
        // A misaligned entry in front would have turned the request away, not been skipped.
        if k == 0 || entries[..k].iter().any(|&a| a & align.wrapping_sub(1) != 0) {
            return;
        }
        for &a in &entries[..k] {
            self.vmap.unpool_overlapping(a, PAGE_SIZE);
        }
    }

    /// `[x, x + size)` allocated at `line`: no longer untouched; served by node `tree_node`'s
    /// free tree (its pool empty then), recorded in `tree_served`.
    fn taken(&mut self, x: u64, size: u64, tree_node: Option<u32>, line: usize) {
        let was_untouched = is_untouched(&self.untouched, x, x + size);
        take_untouched(&mut self.untouched, x, x + size);
        if let Some(n) = tree_node {
            let first = (was_untouched && size <= 256 * PAGE_SIZE).then_some((x, line));
            self.tree_served.entry((n, pool_idx(size))).or_default().push(first);
        }
    }

    /// `alloc_vmap_area` searches the free tree under `free_vmap_area_lock`, unlocks, calls
    /// `cond_resched()` (the one reschedule point of the vmalloc path) and only then traces: a
    /// task that yields there is traced when it runs again, and the drain work's purge
    /// (`drain_vmap_area_work`, traced when it ends) can run in between:
    ///
    /// ```text
    ///   task      search, unlock, cond_resched |  (yielded)             | trace alloc
    ///   kworker                                | purge ... trace purge  |
    /// ```
    ///
    /// When this task traced nothing since before the latest purge (another task traced it),
    /// the model as it was before that purge gives the kernel's address from its free tree,
    /// and that space is free here (the purge put nothing of it in a pool), the search ran
    /// before the purge: the area is taken here, for `node` (the CPU's), and the next replay
    /// makes it before the purge. The free tree is the same set of blocks either way.
    fn searched_before_purge(&mut self, e: &Ev, x: u64, req: AllocReq, node: Option<u32>) -> bool {
        let Some((pl, before)) = &self.before_purge else { return false };
        let pl = *pl;
        if self.before_epoch(pl) || self.prev_line.is_some_and(|l| l >= pl) {
            return false;
        }
        let was = before.predict_alloc(req.size, req.align, req.vstart, req.vend);
        if was.addr() != Some(x) || was.pool_hit.is_some() || was.rotate {
            return false;
        }
        let end = x.saturating_add(req.size);
        if !matches!(self.vmap.locate(x), Place::Free { end: fe, .. } if end <= fe) {
            return false;
        }
        if self.vmap.take_at(x, req.size, node).is_none() {
            return false;
        }
        self.taken(x, req.size, node, e.line);
        // Learnt: the next replay makes this allocation before that purge (its operations then
        // in the kernel's order).
        self.learnt.searched_early.entry(pl).or_default().push(self.pos);
        self.learnt.changed = true;
        true
    }

    /// The drain's purge runs in a worker and is traced when it ends: allocations traced before
    /// its event can see what it did. `__purge_vmap_area_lazy` decays every pool and takes
    /// every node's lazy list when it begins, then processes the nodes in order (each node's
    /// areas to its pools or back to the free tree), and traces last. When the drain was due
    /// and the next purge, replayed now up to some node, makes the model give the kernel's
    /// address, that purge had got that far by then: it is replayed here, the fewest nodes that
    /// do (the rest at a later allocation that shows it, or at its event).
    fn purge_early(&mut self, e: &Ev, x: u64, req: AllocReq) -> Option<Prediction> {
        let predict = |v: &Steered| v.predict_alloc(req.size, req.align, req.vstart, req.vend);
        let nodes = self.vmap.nr_vmap_nodes();
        // The stages: each node decayed and taken, then each processed (the last, the end:
        // `None`).
        let mut all: Vec<Option<PurgeStop>> = (0..nodes)
            .map(|k| Some(PurgeStop::Decayed(k)))
            .chain((0..nodes.saturating_sub(1)).map(|k| Some(PurgeStop::Processed(k))))
            .chain(std::iter::once(None))
            .collect();
        // `purge_vmap_node` pushes each area to its pool as it walks: another CPU can take it
        // before the walk ends. The area of the kernel's answer, if on a lazy (or taken) list:
        // its node walked to it.
        if self.vmap.purge_list_node(x).is_some() {
            all.push(Some(PurgeStop::Through(x)));
        }
        all.sort_by_key(|&s| self.stage_rank(s));
        // A node's decay that a later allocation showed had not run yet: no stage from it on.
        let short_of = |all: &mut Vec<Option<PurgeStop>>, purge: usize| {
            let cap = self
                .learnt
                .decayed_after
                .range((purge, 0)..=(purge, u32::MAX))
                .filter(|&(_, &upto)| e.line <= upto)
                .map(|(&(_, n), _)| self.stage_rank(Some(PurgeStop::Decayed(n))))
                .min();
            all.retain(|&s| cap.is_none_or(|c| self.stage_rank(s) < c));
        };
        if let Some(sp) = self.split {
            short_of(&mut all, sp.line);
            // A purge part-way: did it get further by now?
            let at = self.stage_rank(self.vmap.purge_stage());
            let later: Vec<Option<PurgeStop>> = all.iter().copied().filter(|&s| self.stage_rank(s) > at).collect();
            let stage = later.iter().copied().find(|&stage| {
                let mut t = self.vmap.clone();
                t.log_oracle(false);
                let _ = match stage {
                    Some(s) => t.purge_to(s, &mut NoObserver),
                    None => t.purge_rest(&mut NoObserver),
                };
                predict(&t).addr() == Some(x)
            })?;
            match stage {
                Some(s) => self.purge_further(sp, s),
                None => self.purge_rest(sp),
            }
            self.note(format!(
                "{} line {}: the purge traced at line {} had got further by then: {} (replayed before this allocation)",
                self.tname(),
                e.line,
                sp.line,
                stage_text(stage)
            ));
            return Some(predict(&self.vmap));
        }
        let lazy_x = matches!(self.vmap.locate(x), Place::Lazy { .. });
        if !self.drain_due && !lazy_x {
            return None;
        }
        // The next purge event, with no failed allocation before it (that one would be a
        // reclaim, the retry's own).
        let next = self.p.events[self.pos + 1..]
            .iter()
            .take_while(|n| !matches!(n.ev, FtraceEvent::Alloc { failed: true, .. }))
            .find(|n| matches!(n.ev, FtraceEvent::Purge { .. }))?
            .clone();
        let FtraceEvent::Purge { start, end, num_purged } = next.ev else { return None };
        short_of(&mut all, next.line);
        let lazy = self.vmap.lazy_count() as u64;
        let keep = self.newest_lazy(lazy.saturating_sub(num_purged) as usize, |_| true);
        // Each stage as it stands; then, where none gives the kernel's address, with its decays
        // having given back more, as [`Pass::decayed_more`] reads them after it.
        let more_open = !self.learnt.revised.contains_key(&e.line) && !self.learnt.pool_length_out.contains(&e.line);
        // Last, with the blocks held whole under the kernel's area released there (it allocated
        // there, so that part was free by then): pieces of a held block next to entries the
        // purge's decay gave back make one free run with them.
        let end_x = x.saturating_add(req.size);
        // Only where both are needed: released alone, the model does not give x either.
        let under_blocks = || {
            self.blocks.iter().any(|&(a, b, _)| a < end_x && x < b) && {
                let mut t = self.vmap.clone();
                t.log_oracle(false);
                unhold_blocks_in(&mut t, &mut self.blocks.clone(), x, end_x);
                predict(&t).addr() != Some(x)
            }
        };
        let try_stage = |stage: Option<PurgeStop>, more: bool, unhold: bool| {
            let mut t = self.vmap.clone();
            t.log_oracle(false);
            let _ = t.hold_lazy(&keep);
            let before = if more { t.pools_snapshot() } else { Vec::new() };
            let _ = match stage {
                Some(s) => t.purge_to(s, &mut NoObserver),
                None => t.purge(&mut NoObserver),
            };
            if unhold {
                unhold_blocks_in(&mut t, &mut self.blocks.clone(), x, end_x);
            }
            // Every list processed that had anything: the whole purge.
            let whole = matches!(stage, Some(PurgeStop::Processed(_))) && t.purging_count() == 0;
            let fits = if more {
                decayed_more_in(&mut t, &before, stage, x, req, !self.missed)
            } else {
                predict(&t).addr() == Some(x)
            };
            fits.then_some((if whole { None } else { stage }, unhold))
        };
        let found = all
            .iter()
            .find_map(|&stage| try_stage(stage, false, false))
            .or_else(|| all.iter().filter(|_| more_open).find_map(|&stage| try_stage(stage, true, false)))
            .or_else(|| under_blocks().then(|| all.iter().find_map(|&stage| try_stage(stage, false, true))).flatten());
        let Some((stage, unhold)) = found else {
            self.early_less(e.line, x, req, &all, &keep);
            return None;
        };
        self.purge_part(&next, start, end, num_purged, stage);
        let released = if unhold { self.unhold_blocks(x, end_x) } else { None };
        self.purged_early.insert(next.line, e.line);
        self.report.purges_early += 1;
        let how = stage_text(stage);
        let held = match released {
            Some((a, b, from)) => format!(
                "; and the part under it of [{a:#x}, {b:#x}), held whole since trace line {from} (its layout unknown), \
                 was free"
            ),
            None => String::new(),
        };
        self.note(format!(
            "{} line {}: the purge traced at line {} had begun by then: {how}{held} (a purge is traced when it ends; \
             replayed before this allocation)",
            self.tname(),
            e.line,
            next.line
        ));
        Some(predict(&self.vmap))
    }

    /// No stage of the purge under way gives the kernel's `x`, but at a node's decay the model's
    /// free-tree answer lies below `x` over an entry that decay gave back: the kernel's decay
    /// kept it, so that pool was shorter (`len >> 2` from the head). As [`Pass::decayed_less`]
    /// reads it after a purge, the oldest areas behind it there that the free tree gave during
    /// the capture were made for another node; learnt for the next replay, where that stage
    /// gives `x`.
    fn early_less(&mut self, line: usize, x: u64, req: AllocReq, all: &[Option<PurgeStop>], keep: &[u64]) {
        let nodes = self.vmap.nr_vmap_nodes();
        if self.epoch_start > 0 || nodes != 2 {
            return;
        }
        let out = self.learnt.node_ruled_out.get(&line).cloned().unwrap_or_default();
        for &stage in all {
            let Some(PurgeStop::Decayed(n)) = stage else { continue };
            let mut t = self.vmap.clone();
            t.log_oracle(false);
            let _ = t.hold_lazy(keep);
            let before = t.pools_snapshot();
            let _ = t.purge_to(PurgeStop::Decayed(n), &mut NoObserver);
            let after = t.pools_snapshot();
            let pred = t.predict_alloc(req.size, req.align, req.vstart, req.vend);
            let Some(y) = pred.tree.filter(|&y| y < x && pred.pool_hit.is_none()) else { continue };
            let Place::Free { start: lo, end: hi } = t.locate(y) else { continue };
            // The entry that decay gave back in [lo, x) that the kernel's search shows (as in
            // [`Pass::kept_passed_over`]), its pool's lists then.
            let mut cands: Vec<GivenEntry<'_>> = Vec::new();
            for (_, idx, list) in before.iter().filter(|(m, _, _)| *m == n) {
                let kept = after.iter().find(|(m, i, _)| *m == n && i == idx).map_or(&[][..], |(_, _, l)| l);
                let Some(given) = list.strip_suffix(kept) else { continue };
                let size = (*idx as u64 + 1) * PAGE_SIZE;
                for (k, &a) in given.iter().enumerate() {
                    if lo <= a && a + size <= x {
                        cands.push((a, size, k, given, kept));
                    }
                }
            }
            cands.sort_unstable_by_key(|c| c.0);
            let Some(i) = passed_over_entry(cands.iter().map(|c| (c.0, c.1)), (lo, hi), x, req) else { continue };
            let (a, _, k, given, kept) = cands[i];
            let (given, kept) = (given.to_vec(), kept.to_vec());
            let len = given.len() + kept.len();
            let Some(need) = shorter_by(len, k) else { continue };
            let traced =
                self.tree_given(given[k + 1..].iter().chain(kept.iter()).copied().filter(|b| !out.contains(b)));
            if traced.len() < need {
                continue;
            }
            if !self.learnt.migrations {
                self.learnt.migration_open = true;
                return;
            }
            let list = self.read_alloc_nodes(&traced[traced.len() - need..], 1 - n, line);
            let why = format!(
                "the purge under way had decayed node {n}'s pools, and its decay gave back fewer than the model's: \
                 [{a:#x}, ...) was still pooled (the kernel's search passed over it), so that pool held at most {} \
                 entries, not {len}; {need} of the areas its free tree gave during the capture were allocated for \
                 node {} ({RESCHED}): read so, the oldest first ({list})",
                4 * k + 3,
                1 - n
            );
            self.learnt.facts.insert(line, (Unknown::AreaNode, why));
            self.learnt.changed = true;
            return;
        }
    }

    /// The kernel took `x`, a lazy area of the before file never allocated since, from node
    /// `n`'s pool, where the model has it in node `pn`'s at `pos`. With the file's lazy areas
    /// one ascending run for two nodes (node 0's list, then node 1's), this says where node 1's
    /// begins: at `x` if node 1 took it from node 0's list in the model; after it if node 0
    /// did; and after it if node 0 took it from behind entries of the run above it (a purge
    /// pools a node's areas with its highest at the head: those were node 1's). The new split
    /// and why, if it moves.
    fn lazy_split_from(&self, x: u64, pn: u32, n: u32, pos: u32) -> Option<(usize, String)> {
        if self.epoch_start > 0 {
            return None;
        }
        let ix = self.lazy_run.get(&x).copied();
        let len = self.lazy_run_len;
        let cur = self.learnt.lazy_split.unwrap_or(len);
        let size = match self.vmap.locate(x) {
            Place::Pooled { start, end, .. } => end - start,
            _ => return None,
        };
        // The run's areas went to the pools at one purge, each node's highest at the head;
        // entries pooled later are in front of them.
        let run_index = |a: &u64| self.lazy_run.get(a).copied();
        let k = match (pn, n, ix) {
            // Node 1's pool would get the areas from x up (of this size, still pooled), at the
            // purge that pooled its own list, in address order with them: x its head only if
            // none above it is pooled there, on either node.
            (0, 1, Some(i)) if i < cur => {
                let moved_above =
                    self.vmap.pool_entries(0, size).iter().any(|a| run_index(a).is_some_and(|j| j > i && j < cur));
                if moved_above || self.vmap.pool_entries(1, size).iter().any(|&a| a > x) {
                    return None;
                }
                i
            }
            // Node 0's would get the areas up to x, above its own: x its head only if node
            // 0's holds nothing but run areas (behind it, lower).
            (1, 0, Some(i)) if i >= cur => {
                if !self.vmap.pool_entries(0, size).iter().all(|a| run_index(a).is_some_and(|j| j < cur)) {
                    return None;
                }
                i + 1
            }
            // The kernel's head was behind entries of the run in the model's pool (x an area
            // of the run or not): those were not on this node's list. Node 0's: they were
            // node 1's, which begins at the lowest of them; node 1's: they were node 0's.
            (m, m2, _) if m == m2 && pos > 0 => {
                let front = self.vmap.pool_entries(m, size);
                let js: Vec<usize> = front.iter().take(pos as usize).map(run_index).collect::<Option<_>>()?;
                let k = if m == 0 {
                    let k = *js.iter().min()?;
                    (k < cur && ix.is_none_or(|i| i < k)).then_some(k)?
                } else {
                    let k = js.iter().max()? + 1;
                    (k > cur && ix.is_none_or(|i| i >= k)).then_some(k)?
                };
                k
            }
            _ => return None,
        };
        Some((k, self.split_why(x, n, k)))
    }

    /// The model's pool of node `n` gives `y`, an area of the before file's one lazy run never
    /// allocated since, where the kernel's gives `x`, which the model's does not hold, before a
    /// second purge. The first purge pooled the run after its decay (`decay_va_pool_node` runs
    /// before a node's lazy list is taken), so no decay has given `y` back since, and it put `y`
    /// at the head of node `n`'s pool in the model only (each node's highest at the head;
    /// nothing pooled since stands in front of it): it was on the other node's list. Node 1's
    /// begins at `y` (the model's node 0) or after it (node 1). The new split and why, if it
    /// moves.
    fn lazy_split_head(&self, x: u64, y: u64, n: u32, size: u64) -> Option<(usize, String)> {
        if self.epoch_start > 0 || self.report.purges != 1 || self.vmap.pool_entries(n, size).contains(&x) {
            return None;
        }
        let j = self.lazy_run.get(&y).copied()?;
        let cur = self.learnt.lazy_split.unwrap_or(self.lazy_run_len);
        let k = if n == 0 { (j < cur).then_some(j)? } else { (j >= cur).then_some(j + 1)? };
        Some((k, self.split_why(x, n, k)))
    }

    /// Node 1's lazy list begins at area `k` of the run, as an allocation of the kernel read it:
    /// a later split (node 0's list longer) is a least one, that no later reading goes below.
    fn set_lazy_split(&mut self, k: usize) {
        if k > self.learnt.lazy_split.unwrap_or(self.lazy_run_len) {
            self.learnt.lazy_split_min = self.learnt.lazy_split_min.max(k);
        }
        self.learnt.lazy_split = Some(k);
        self.learnt.changed = true;
    }

    /// The kernel's free-tree search passed over `a`, an area of the before file's one lazy run
    /// never allocated since, that the model's decays of node 0's pool gave back: the kernel's
    /// pool still held it. The first purge pooled each node's list with its highest area at the
    /// head, and `decay_va_pool_node` gives back `len >> 2` from the head, so in node 0's pool
    /// `a` stood in front of that node's lower areas; on node 1's list it stands behind that
    /// node's higher ones. Node 1's list began at `a` at the latest (not below what an earlier
    /// allocation showed was node 0's):
    ///
    /// ```text
    ///   run:     a0 a1 [a2 ..... a9]     model: node 0 = a0..a9, pool [a9 .. a2 a1 a0]
    ///   kernel:  node 0 = a0 a1          node 1 pool [.. a9 .. a2]: a2 behind, kept
    /// ```
    fn lazy_split_kept(&mut self, a: u64, n: u32) -> Option<String> {
        if self.epoch_start > 0 || n != 0 {
            return None;
        }
        let j = self.lazy_run.get(&a).copied()?;
        let cur = self.learnt.lazy_split.unwrap_or(self.lazy_run_len);
        if j >= cur || j < self.learnt.lazy_split_min {
            return None;
        }
        let why = format!(
            "it is an area of the before file's lazy run that the model's decays of node 0's pool gave back (each \
             node's list pooled with its highest at the head, len >> 2 given back from there): on node 1's list it \
             stood behind that node's higher areas, so it was kept; {}",
            self.split_why_of(j, "")
        );
        self.set_lazy_split(j);
        Some(why)
    }

    /// Why node 1's lazy list begins at area `k` of the run: the kernel took `x` from node
    /// `n`'s pool.
    fn split_why(&self, x: u64, n: u32, k: usize) -> String {
        self.split_why_of(k, &format!("the kernel took {x:#x} from node {n}'s pool, so "))
    }

    /// The reading of split `k` (before it is set): the run, `cause`, and where node 1's list
    /// began in it. One allocation bounds it on one side only: a split below the one read so far
    /// is where it began at the latest (that area was node 1's), one above at the earliest.
    fn split_why_of(&self, k: usize, cause: &str) -> String {
        let len = self.lazy_run_len;
        let first = self.lazy_run.iter().find(|&(_, &j)| j == k).map_or(0, |(&a, _)| a);
        let bound = if k < self.learnt.lazy_split.unwrap_or(len) { "at the latest" } else { "at the earliest" };
        format!(
            "the before file's {len} lazy areas are one ascending run, node 0's lazy list then node 1's \
             (vmallocinfo prints them in turn, and does not say where one ends): {cause}node 1's list began {}, \
             {bound} (the areas' node was the unknown)",
            if k == len { "after the run".to_string() } else { format!("at {first:#x} (area {} of the run)", k + 1) }
        )
    }

    fn note(&mut self, n: String) {
        if self.report.notes.len() < 100 {
            self.report.notes.push(n);
        }
    }

    fn free(&mut self, e: &Ev, va: u64) {
        let prev = self.traced.insert(va, (e.line, true));
        match self.vmap.vfree(va, &mut NoObserver) {
            Ok(()) => {
                self.push(Op::Vfree(va));
                self.lazy_order.push(va);
                self.freed_at.insert(va, e.line);
            }
            Err(_) if self.pcpu_mapped(e, va) => {}
            Err(err) => {
                // Freed before and pooled since: `free_vmap_area_noflush` (the traced free) runs
                // only for an area `find_unlink_vmap_area` found busy, so the kernel allocated it
                // again where the trace shows nothing ([`Pass::untraced`]).
                if let (Some((from, true)), Place::Pooled { start, end, .. }) = (prev, self.vmap.locate(va)) {
                    if start == va && !self.learnt.untraced.contains_key(&(from, va)) {
                        self.learnt.untraced.insert((from, va), (end - start, e.line));
                        self.learnt.changed = true;
                    }
                }
                if self.report.notes.len() < 100 {
                    self.report.notes.push(format!("{} line {}: vfree {va:#x}: {err}; left out", self.tname(), e.line));
                }
            }
        }
    }

    /// A free of an area the per-CPU allocator mapped during the capture. `pcpu_get_vm_areas`
    /// takes a chunk's areas from the free tree itself (top down, `va_clip`) and inserts them
    /// busy without `alloc_vmap_area`, so no event traces them; their free does
    /// (`pcpu_free_vm_areas` -> `free_vm_area` -> `free_unmap_vmap_area` ->
    /// `free_vmap_area_noflush`). Every chunk has the same areas, so their sizes are the ones the
    /// before and after files show with that caller:
    ///
    /// ```text
    ///   model:  [ ....... free ......... ]          free of x, which no area starts at
    ///   kernel: [ ... | x: pcpu chunk | .. ]        mapped there untraced, freed now
    /// ```
    ///
    /// Where a page-aligned area of such a size fits at `va` in one free block, it is placed
    /// busy (vn_id none: the chunk came from no pool) and freed, so it is lazy and purged as in
    /// the kernel. `false` (nothing changed) otherwise.
    fn pcpu_mapped(&mut self, e: &Ev, va: u64) -> bool {
        let Place::Free { end, .. } = self.vmap.locate(va) else { return false };
        let fits = |&&s: &&u64| va & (PAGE_SIZE - 1) == 0 && va.checked_add(s).is_some_and(|x| x <= end);
        let Some(&size) = self.p.pcpu_sizes.iter().find(fits) else { return false };
        if self.vmap.place_busy(va, va + size, None).is_err() {
            return false;
        }
        self.push(follow(Follow::Place { start: va, end: va + size, node: None }));
        if self.vmap.vfree(va, &mut NoObserver).is_err() {
            return false;
        }
        take_untouched(&mut self.untouched, va, va + size);
        self.push(Op::Vfree(va));
        self.lazy_order.push(va);
        self.freed_at.insert(va, e.line);
        self.report.pcpu_mapped += 1;
        true
    }

    /// An allocation the trace does not show: the area freed at line `from` and pooled since
    /// is freed again at a later line with no allocation of it traced in between. The kernel
    /// took it from its pool's head (`node_alloc` -> `node_pool_del_va`, on a CPU of that
    /// node), so here it is taken after the first event (up to `line`) that leaves it the
    /// head: a request of the pool's size gives it to that node's CPU.
    ///
    /// ```text
    ///   trace:  free A ... purge (A pooled, the head) ... ? ... free A
    ///   model:  free A ... purge ... alloc A (untraced) ... free A
    /// ```
    fn untraced(&mut self, line: usize) {
        let nodes = self.vmap.nr_vmap_nodes();
        let due: Vec<((usize, u64), (u64, usize))> =
            self.untraced_open.range(..=(line, u64::MAX)).map(|(&k, &v)| (k, v)).collect();
        for ((from, a), (size, again)) in due {
            let Place::Pooled { node, pos: 0, start, end, .. } = self.vmap.locate(a) else { continue };
            let Some(cpu) = self.p.online.iter().copied().find(|&c| c % nodes.max(1) == node) else { continue };
            if start != a || end != a.saturating_add(size) {
                continue;
            }
            let was = self.vmap.cpu();
            let _ = self.vmap.set_cpu(u64::from(cpu));
            if self.vmap.predict_alloc(size, PAGE_SIZE, VMALLOC_START, VMALLOC_END).pool_hit != Some(a) {
                let _ = self.vmap.set_cpu(u64::from(was));
                continue;
            }
            if cpu != was {
                self.push(Op::Cpu(u64::from(cpu)));
            }
            let got = self.vmap.alloc(size, PAGE_SIZE, VMALLOC_START, VMALLOC_END, &mut NoObserver);
            debug_assert_eq!(got, Ok(a));
            self.untraced_open.remove(&(from, a));
            self.push(follow(Follow::Alloc {
                size,
                align: PAGE_SIZE,
                vstart: VMALLOC_START,
                vend: VMALLOC_END,
                addr: a,
                mark: Mark::Untraced,
            }));
            if let Some(h) = &mut self.hist {
                h.pops.entry(a).or_default().push(line);
                h.allocs.push((line, a, a + size));
            }
            take_untouched(&mut self.untouched, a, a + size);
            self.guessed_node.remove(&a);
            self.tree_alloc.remove(&a);
            self.lazy_run.remove(&a);
            self.report.untraced += 1;
            self.note(format!(
                "{} line {again}: vfree {a:#x} again, no allocation of it traced since its free at line {from} \
                 (free_vmap_area_noflush runs only for a busy area): an allocation the trace does not show took it \
                 from node {node}'s pool of {} pages, made after line {line}, where it is that pool's head",
                self.tname(),
                size / PAGE_SIZE
            ));
        }
    }

    fn purge(&mut self, e: &Ev, start: u64, end: u64, num_purged: u64) {
        // Kept for an allocation traced after it whose search ran before it; not for a reclaim
        // (the failed allocation's own, retried after it). Purges traced one after another (the
        // drain work queued again while it ran) are one stretch for such a search: the model
        // before the first of them.
        // The model is copied only where it can be asked for: an allocation of another task
        // may come next, or the next event is a purge too.
        let ok = !self.diverged() && self.split.is_none() && !self.full_purge_due;
        let is_purge = |i: usize| self.p.events.get(i).is_some_and(|n| matches!(n.ev, FtraceEvent::Purge { .. }));
        let after_purge = self.pos > 0 && is_purge(self.pos - 1);
        let (first, next_purge) = (self.first_after(e), is_purge(self.pos + 1));
        let run = match self.purge_run.take() {
            Some(r) if ok && after_purge => Some(r),
            _ => (ok && (first || next_purge)).then(|| (e.line, Rc::new(self.vmap.clone()))),
        };
        self.before_purge = run.clone().filter(|_| first);
        self.purge_run = run.filter(|_| next_purge);
        self.purge_part(e, start, end, num_purged, None)
    }

    /// Whether an allocation before the next purge is its task's first event since purge `e`
    /// of another task (only such a one can have searched before `e`:
    /// [`Pass::searched_before_purge`]), or the events known end first.
    fn first_after(&self, e: &Ev) -> bool {
        let mut seen = HashSet::from_iter([e.pid]);
        for n in &self.p.events[self.pos + 1..] {
            match n.ev {
                FtraceEvent::Purge { .. } => return false,
                FtraceEvent::Alloc { .. } if !seen.contains(&n.pid) => return true,
                _ => {}
            }
            seen.insert(n.pid);
        }
        true
    }

    /// A purge part-way ([`Pass::purge_part`] with a stage) taken further, not to its end.
    fn purge_further(&mut self, mut sp: Split, stage: PurgeStop) {
        let before = self.vmap.pools_snapshot();
        let r = self.vmap.purge_to(stage, &mut NoObserver);
        self.push(follow(Follow::Purge { full: false, behind: false, stop: Some(stage), keep: Vec::new() }));
        self.shapes.clear();
        let decayed = self.decayed_nodes();
        let at = self.record_line(sp.line);
        self.record_purge(at, sp.line, false, false, |n| sp.decayed <= n && n < decayed, &before);
        sp.entries += r.entries;
        sp.decayed = decayed;
        self.split = Some(sp);
    }

    /// The nodes a purge under way has decayed (0 up to this): all once past the decays.
    fn decayed_nodes(&self) -> u32 {
        match self.vmap.purge_stage() {
            Some(PurgeStop::Decayed(k)) => k + 1,
            _ => self.vmap.nr_vmap_nodes(),
        }
    }

    /// Where a purge (or a part of one) traced at `line` is recorded in the pools' history:
    /// there, or, replayed before the allocation being replayed (which saw it), just before that
    /// allocation (what it pops comes after the decay; what the ones before it popped, before).
    fn record_line(&self, line: usize) -> usize {
        match self.p.events.get(self.pos) {
            Some(now) if now.line < line => now.line - 1,
            _ => line,
        }
    }

    /// The rest of a purge part-way: the nodes not yet taken (their lists take the frees
    /// traced since, but no more than the kernel's count: the newest wait), then every list.
    fn purge_rest(&mut self, sp: Split) {
        self.split = None;
        let taken = self.decayed_nodes();
        let on_untaken = |a: u64| matches!(self.vmap.locate(a), Place::Lazy { node, .. } if node >= taken);
        // Every lazy area on the untaken nodes, oldest first: the newest beyond the kernel's
        // count wait.
        let untaken = self.newest_lazy(usize::MAX, on_untaken);
        let total = u64::from(sp.entries) + self.vmap.purging_count() as u64 + untaken.len() as u64;
        let excess = total.saturating_sub(sp.num_purged) as usize;
        let keep = untaken[untaken.len().saturating_sub(excess)..].to_vec();
        let held = self.vmap.hold_lazy(&keep);
        let before = self.vmap.pools_snapshot();
        let r = self.vmap.purge_rest(&mut NoObserver);
        self.vmap.restore_lazy(held);
        self.push(follow(Follow::PurgeRest { keep }));
        self.shapes.clear();
        let at = self.record_line(sp.line);
        self.record_purge(at, sp.line, false, false, |n| sp.decayed <= n, &before);
        self.purge_count(sp.line, sp.start, sp.end, sp.num_purged, sp.entries + r.entries, sp.lazy);
        self.taken_late(&sp, sp.entries + r.entries, taken);
    }

    /// A purge replayed in parts counted fewer areas than the kernel's: the frees traced after
    /// the allocation that began it, on the nodes whose lists its first part took, were in the
    /// kernel's lists (`__purge_vmap_area_lazy` takes a node's list right after its decay), so
    /// the lowest node of the oldest such frees, as many as the count lacks, was decayed and
    /// taken after them. Learnt as for [`Pass::decayed_after`]: the next replay stops that
    /// purge short of that node's decay until the last of those frees.
    fn taken_late(&mut self, sp: &Split, entries: u32, taken: u32) {
        let short = sp.num_purged.saturating_sub(u64::from(entries)) as usize;
        let Some(&from) = self.purged_early.get(&sp.line) else { return };
        if short == 0 || self.before_epoch(from) {
            return;
        }
        let mut late: Vec<(usize, u32)> = Vec::new();
        for &a in &self.lazy_order {
            if let (Place::Lazy { node, start, .. }, Some(&l)) = (self.vmap.locate(a), self.freed_at.get(&a)) {
                if start == a && node < taken && l > from && l < sp.line {
                    late.push((l, node));
                }
            }
        }
        late.sort_unstable();
        if late.len() < short {
            return;
        }
        let late = &late[..short];
        let (Some(n), Some(&(upto, _))) = (late.iter().map(|&(_, n)| n).min(), late.last()) else { return };
        if self.learnt.decayed_after.get(&(sp.line, n)).is_some_and(|&m| m >= upto) {
            return;
        }
        self.learnt.decayed_after.insert((sp.line, n), upto);
        self.learnt.changed = true;
        self.learnt.facts.remove(&from);
        self.learnt.revisions.push(Revision {
            line: from,
            contradicted_at: sp.line,
            what: format!("how far the purge traced at line {} had got", sp.line),
            why: format!(
                "the kernel's purge counted {short} more areas: frees traced after this allocation (the last at line \
                 {upto}) on the lists its first part had taken, node {n}'s the lowest"
            ),
            was: format!("node {n}'s pools decayed and its lazy list taken by then"),
            now: format!("node {n} decayed and taken after line {upto}"),
        });
    }

    fn purge_count(&mut self, line: usize, start: u64, end: u64, num_purged: u64, entries: u32, lazy: u64) {
        if u64::from(entries) == num_purged {
            self.report.purges_equal += 1;
        } else if self.report.purge_detail.len() < 20 {
            self.report.purge_detail.push(format!(
                "{} line {line}: the kernel purged {num_purged} areas ([{start:#x}, {end:#x})), the model {entries} of \
                 its {lazy} lazy",
                self.tname(),
            ));
        }
    }

    /// A purge, whole or stopped at `stage`, the rest left for [`Pass::purge_rest`].
    fn purge_part(&mut self, e: &Ev, start: u64, end: u64, num_purged: u64, stage: Option<PurgeStop>) {
        self.report.purges += 1;
        self.drain_due = false;
        let lazy = self.vmap.lazy_count() as u64;
        // The kernel's purge took the lazy lists when it began and traced when it ended: frees
        // traced in between were not in it. Keep the newest back.
        let held = if num_purged < lazy {
            let tail = self.newest_lazy((lazy - num_purged) as usize, |_| true);
            self.vmap.hold_lazy(&tail)
        } else {
            Vec::new()
        };
        let full = std::mem::take(&mut self.full_purge_due);
        let pools_before = self.vmap.pools_snapshot();
        // The decay and the purge give the free tree its entries back: new blocks, a new shape.
        self.shapes.clear();
        // The first purge: the pools hold only entries from before the capture, learnt because
        // the kernel took them later; its decay (of len >> 2 from the head) gave back others
        // that no allocation shows, in front of them.
        let behind = std::mem::take(&mut self.first_purge) && !full;
        let before = if behind { self.vmap.hold_pools() } else { Vec::new() };
        let keep: Vec<u64> = held.iter().map(|&(va, _)| self.vmap.arena().area(va).va_start).collect();
        let stop = stage.filter(|_| !full);
        let r = match stop {
            _ if full => self.vmap.reclaim(&mut NoObserver),
            Some(s) => self.vmap.purge_to(s, &mut NoObserver),
            None => self.vmap.purge(&mut NoObserver),
        };
        self.vmap.restore_pools_behind(before);
        let decayed = self.decayed_nodes();
        let at = self.record_line(e.line);
        self.record_purge(at, e.line, full, behind, |n| n < decayed, &pools_before);
        self.push(if behind || stop.is_some() || !keep.is_empty() {
            follow(Follow::Purge { full, behind, stop, keep })
        } else if full {
            Op::Reclaim
        } else {
            Op::Purge
        });
        // What each pool's decay kept, in its order (before the entries this purge pooled).
        let after = pool_starts(&self.vmap);
        self.given = pools_before
            .iter()
            .map(|(n, idx, v)| ((*n, *idx), (v.iter().copied().filter(|a| !after.contains(a)).collect(), v.len())))
            .collect();
        self.kept = pools_before
            .into_iter()
            .map(|(n, idx, v)| ((n, idx), v.into_iter().filter(|a| after.contains(a)).collect::<Vec<u64>>()))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        self.kept_line = e.line;
        // Pools whose decay here gave back more, learnt from later allocations.
        let more: Vec<((u32, usize), u64)> = self
            .learnt
            .pool_lengths
            .range((e.line, 0, 0)..=(e.line, u32::MAX, usize::MAX))
            .map(|(&(_, n, idx), &a)| ((n, idx), a))
            .collect();
        for ((n, idx), last) in more {
            // Up to the entry learnt, if this replay's decay kept it (a fact learnt on another
            // reading of the start state, e.g. an area's node, may not hold here).
            let Some(list) = self.kept.get_mut(&(n, idx)) else { continue };
            if let Some(k) = list.iter().position(|&a| a == last) {
                let len = (idx as u64 + 1) * PAGE_SIZE;
                for a in list.drain(..=k) {
                    if matches!(self.vmap.locate(a), Place::Pooled { start, .. } if start == a) {
                        self.vmap.unpool_overlapping(a, PAGE_SIZE);
                        self.given_by_length.push((a, a + len, (e.line, n, idx)));
                    }
                }
                self.report.resolved_pool_lengths += 1;
            }
        }
        self.drain_log();
        let kept: Vec<u64> = held.iter().map(|&(va, _)| self.vmap.arena().area(va).va_start).collect();
        self.vmap.restore_lazy(held);
        self.lazy_order = kept;
        if self.vmap.purge_stage().is_some() {
            self.split = Some(Split { line: e.line, start, end, num_purged, entries: r.entries, lazy, decayed });
        } else {
            self.purge_count(e.line, start, end, num_purged, r.entries, lazy);
        }
    }

    /// Each pool's list before this purge's decay and after it, for [`Pass::flipped_nodes`]. A
    /// purge replayed in parts is recorded part by part, each where it ran: `decays` names the
    /// nodes decayed in this part (the others' pools only take the areas it pooled).
    #[allow(clippy::too_many_arguments)]
    fn record_purge(
        &mut self,
        line: usize,
        purge: usize,
        full: bool,
        behind: bool,
        decays: impl Fn(u32) -> bool,
        before: &[(u32, usize, Vec<u64>)],
    ) {
        let was: HashSet<u64> = before.iter().flat_map(|(_, _, v)| v.iter().copied()).collect();
        self.purge_pooled.extend(pool_starts(&self.vmap).into_iter().filter(|a| !was.contains(a)));
        // The readings of decay counts rerun a pool's whole history at an allocation: it is kept
        // for the first purges only (a capture of minutes has tens), so that each allocation's
        // cost does not grow with the capture.
        if self.hist.as_ref().is_some_and(|h| h.recs.values().any(|v| v.len() >= MAX_POOL_HISTORY)) {
            self.hist = None;
        }
        let Some(h) = &mut self.hist else { return };
        let mut after: BTreeMap<(u32, usize), Vec<u64>> =
            self.vmap.pools_snapshot().into_iter().map(|(n, idx, v)| ((n, idx), v)).collect();
        for (n, idx, v) in before {
            let a = after.remove(&(*n, *idx)).unwrap_or_default();
            let walked = self.vmap.purge_walked(*n);
            let rec = PoolRec { line, purge, full, behind, decays: decays(*n), walked, before: v.clone(), after: a };
            h.recs.entry((*n, *idx)).or_default().push(rec);
        }
        for ((n, idx), a) in after {
            let walked = self.vmap.purge_walked(n);
            let rec = PoolRec { line, purge, full, behind, decays: decays(n), walked, before: Vec::new(), after: a };
            h.recs.entry((n, idx)).or_default().push(rec);
        }
    }

    /// The kernel's pool still held an entry that the model's decays gave back, counted over
    /// the whole history of its pool: `x`, which the kernel took from node `n`'s pool, or an
    /// entry below `x` that its free-tree search passed over. `decay_va_pool_node` gives back
    /// `len >> 2` from the head at every purge, so one area more or less in a pool changes
    /// what every later decay gives back; the areas whose pool is a guess are the busy ones of
    /// the before file freed during the capture (`free_vmap_area_noflush` sends each to the
    /// node of its `vn_id`, which the file does not show). The fewest of them read as the other
    /// node's (two nodes), one, two or three, such that both pools' histories counted again
    /// keep that entry, give every pop from the head and never hold an entry the kernel
    /// allocated over, are learnt for the next replay. An entry the search passed over may be
    /// such an area itself: read on the other node, it is kept by that node's pool (pooled by
    /// the part of the same purge that walked that node's list: [`walked_past`]).
    ///
    /// ```text
    ///   model:   node 1 [ .. e .. ]  decays give e back; the kernel's search passes over e
    ///   kernel:  node 0 [ .. e .. ]  e's vn_id named node 0: pooled and decayed there
    /// ```
    fn flipped_nodes(&mut self, x: u64, size: u64, n: u32, pred: Prediction, line: usize) -> Option<String> {
        let h = self.hist.as_ref()?;
        if self.vmap.nr_vmap_nodes() != 2 {
            return None;
        }
        let in_pool =
            |key: &(u32, usize), a: u64| h.recs.get(key).is_some_and(|r| r.iter().any(|r| r.before.contains(&a)));
        let own = (n, pool_idx(size));
        let (key, e, head) = if size <= 256 * PAGE_SIZE && in_pool(&own, x) {
            (own, x, true)
        } else {
            // The lowest entry of any pool's history, free here, in the model's block below x.
            let y = pred.tree.filter(|&y| y < x && pred.pool_hit.is_none())?;
            let Place::Free { start: lo, .. } = self.vmap.locate(y) else { return None };
            let mut best: Option<((u32, usize), u64)> = None;
            for (k, recs) in &h.recs {
                let len = (k.1 as u64 + 1) * PAGE_SIZE;
                for r in recs {
                    for &a in &r.before {
                        if lo <= a && a + len <= x && best.is_none_or(|(_, b)| a < b) {
                            best = Some((*k, a));
                        }
                    }
                }
            }
            let (k, a) = best?;
            let len = (k.1 as u64 + 1) * PAGE_SIZE;
            if !matches!(self.vmap.locate(a), Place::Free { end, .. } if a + len <= end) {
                return None;
            }
            (k, a, false)
        };
        let sib = (1 - key.0, key.1);
        let len = (key.1 as u64 + 1) * PAGE_SIZE;
        let want = if head { Want::Head } else { Want::Kept };
        let found = self.flip_search(key, e, want, line);
        let h = self.hist.as_ref()?;
        let none = Vec::new();
        let recs = h.recs.get(&key).unwrap_or(&none);
        let set = found?;
        let first = recs.first().map_or(line, |r| r.line);
        let mut list = Vec::new();
        for &(a, _, mine) in &set {
            let to = if mine { sib.0 } else { key.0 };
            self.read_node(a, to, line);
            self.learnt.flip_read.insert(a);
            list.push(format!("{a:#x} node {to}'s"));
        }
        if !self.learnt.held_obs.contains(&(line, e)) {
            self.learnt.held_obs.push((line, e));
        }
        let took = if head { "the kernel took it from there" } else { "the kernel's free-tree search passed over it" };
        if set.iter().any(|&(a, _, mine)| mine && a == e) {
            return Some(format!(
                "[{e:#x}, {:#x}) was still pooled ({took}), in node {}'s pool of {} pages: the model's decays of node \
                 {}'s since the purge of trace line {first} (len >> 2 from the head at each) gave it back, node {}'s \
                 keep it; it{} on the other node: read so ({})",
                e + len,
                sib.0,
                key.1 + 1,
                key.0,
                sib.0,
                match set.len() - 1 {
                    0 => " was".to_string(),
                    1 => " and 1 other busy area of the before file, whose node was a guess, were".into(),
                    k => format!(" and {k} other busy areas of the before file, whose node was a guess, were"),
                },
                list.join(", ")
            ));
        }
        Some(format!(
            "[{e:#x}, {:#x}) was still in node {}'s pool of {} pages ({took}): the decays since the purge \
             of trace line {first} (len >> 2 from the head at each) kept it with {} of the busy areas of the before \
             file, whose node was a guess, on the other node: read so ({})",
            e + len,
            key.0,
            key.1 + 1,
            set.len(),
            list.join(", ")
        ))
    }

    /// The kernel allocated over an entry the last purge's decay kept, where no pool held an
    /// entry from before the capture then (drained, or scanned by the shrinker: a longer pool
    /// in the kernel is no unseen entry). `decay_va_pool_node` gives back `len >> 2` from the
    /// head, so the kernel's pool had fewer entries in front of it, or more behind: areas of
    /// the before file whose node was a guess, on the other node. The fewest such areas with
    /// which both pools' histories counted again give that entry back
    /// ([`Pass::flip_search`]):
    ///
    /// ```text
    ///   model:   node 1 [ a .. e f g ]   decay len >> 2 gives back a .. (e kept)
    ///   kernel:  node 1 [ .. e f g ]     a was node 0's: e goes back too, allocated over
    /// ```
    fn flipped_gave_back(&mut self, x: u64, req: AllocReq, line: usize) -> Option<String> {
        let end = x.checked_add(req.size)?;
        if self.kept_line < self.emptied_at || self.before_epoch(self.kept_line) || self.vmap.nr_vmap_nodes() != 2 {
            return None;
        }
        // The one pool whose kept entries lie under [x, end) and are still pooled.
        let pooled = pool_starts(&self.vmap);
        let mut under = self.kept.iter().filter_map(|(&(n, idx), list)| {
            let len = (idx as u64 + 1) * PAGE_SIZE;
            let hit: Vec<u64> =
                list.iter().copied().filter(|&a| a < end && x < a + len && pooled.contains(&a)).collect();
            (!hit.is_empty()).then_some(((n, idx), hit))
        });
        let (key, hit) = under.next()?;
        if under.next().is_some() || hit.len() != 1 {
            return None;
        }
        let e = hit[0];
        let set = self.flip_search(key, e, Want::GivenBack, line)?;
        let mut list = Vec::new();
        for &(a, _, mine) in &set {
            let to = if mine { 1 - key.0 } else { key.0 };
            self.read_node(a, to, line);
            self.learnt.flip_read.insert(a);
            list.push(format!("{a:#x} node {to}'s"));
        }
        Some(format!(
            "[{e:#x}, {:#x}), still in node {}'s pool of {} pages in the model, was given back by the decay at the \
             purge of trace line {} in the kernel (it allocated {x:#x} over it; no pool held an entry from before the \
             capture then): the decays since counted again (len >> 2 from the head at each) give it back with {} of \
             the busy areas of the before file, whose node was a guess, on the other node: read so ({})",
            e + (key.1 as u64 + 1) * PAGE_SIZE,
            key.0,
            key.1 + 1,
            self.kept_line,
            set.len(),
            list.join(", ")
        ))
    }

    /// The fewest busy areas of the before file whose node is a guess (one, two or three),
    /// pooled by the purges in pool `key`'s history or its sibling's on the other node, that
    /// read on the other node leave `e` as `want` asks when both pools' histories are counted
    /// again ([`PoolHistory::rerun_held`]: every decay of `len >> 2` from the head, every pop,
    /// every head moved to the tail) and contradict nothing the kernel did: each as (area, the
    /// line of the purge that pooled it, whether it was in `key`'s pool).
    fn flip_search(&self, key: (u32, usize), e: u64, want: Want, line: usize) -> Option<Vec<(u64, usize, bool)>> {
        let h = self.hist.as_ref()?;
        let sib = (1 - key.0, key.1);
        let len = (key.1 as u64 + 1) * PAGE_SIZE;
        let none = Vec::new();
        let recs = h.recs.get(&key).unwrap_or(&none);
        let srecs = h.recs.get(&sib).unwrap_or(&none);
        let ruled_out = self.learnt.node_ruled_out.get(&line);
        // Guessed areas each pool's purges pooled, with the purge's line; this pool's first.
        let pushed = |recs: &[PoolRec], mine: bool| {
            let mut v = Vec::new();
            for r in recs {
                for a in r.pushed() {
                    if self.guessed_node.contains(&a) && !ruled_out.is_some_and(|o| o.contains(&a)) {
                        v.push((a, r.purge, mine));
                    }
                }
            }
            v
        };
        let mut cands = pushed(recs, true);
        cands.extend(pushed(srecs, false));
        // An entry the search passed over may itself be the area on the other node: first.
        if let Some(i) = cands.iter().position(|&(a, _, mine)| mine && a == e).filter(|_| want == Want::Kept) {
            let c = cands.remove(i);
            cands.insert(0, c);
        }
        cands.truncate(16);
        let now = self.vmap.pool_entries(key.0, len);
        let snow = self.vmap.pool_entries(sib.0, len);
        let (held, sheld) = (h.held_in(recs), h.held_in(srecs));
        let holds = |set: &[(u64, usize, bool)]| -> bool {
            let mut out = HashSet::default();
            let mut sout = HashSet::default();
            let mut inn: HashMap<usize, Vec<u64>> = HashMap::default();
            let mut sinn: HashMap<usize, Vec<u64>> = HashMap::default();
            for &(a, l, mine) in set {
                if mine {
                    out.insert(a);
                    sinn.entry(walked_past(srecs, l, a)).or_default().push(a);
                } else {
                    sout.insert(a);
                    inn.entry(walked_past(recs, l, a)).or_default().push(a);
                }
            }
            let Some(k) = h.rerun_held(recs, &held, &now, &out, &inn, &[], len, line) else { return false };
            let Some(sk) = h.rerun_held(srecs, &sheld, &snow, &sout, &sinn, &[], len, line) else { return false };
            match want {
                // Read on the other node, the entry must be kept in that node's pool.
                Want::Head | Want::Kept if out.contains(&e) => want == Want::Kept && sk.contains(&e),
                Want::Head => k.first() == Some(&e),
                Want::Kept => k.contains(&e),
                Want::GivenBack => !out.contains(&e) && !k.contains(&e),
            }
        };
        let m = cands.len();
        let mut found: Option<Vec<(u64, usize, bool)>> = None;
        'search: for want in 1..=3usize {
            if want > m || (want == 3 && m > 10) {
                break;
            }
            let mut idx: Vec<usize> = (0..want).collect();
            loop {
                let set: Vec<(u64, usize, bool)> = idx.iter().map(|&i| cands[i]).collect();
                if holds(&set) {
                    found = Some(set);
                    break 'search;
                }
                // The next combination of `want` of the `m`, in order.
                let Some(i) = (0..want).rev().find(|&i| idx[i] < m - want + i) else { break };
                idx[i] += 1;
                for j in i + 1..want {
                    idx[j] = idx[j - 1] + 1;
                }
            }
        }
        found
    }

    /// The kernel took `[x, x + size)` from node `n`'s pool (its head) where the model's decays
    /// gave it back, and no reading of the busy areas' nodes ([`Pass::flipped_nodes`]) keeps it:
    /// the model's pool also counted entries from before the capture read at later allocations
    /// (in it from the start, so in every `len` since, behind everything pooled: the tail). The
    /// fewest of them, the last read first, that the kernel's pool did not hold at all, so that
    /// the pool's history counted again (every decay of `len >> 2` from the head, every pop
    /// from the head, every head moved to the tail: [`PoolHistory::rerun`]) keeps `x` to the
    /// head now and contradicts nothing the kernel did. Those readings are revised (not made
    /// again at their lines, which the next replay reads otherwise).
    fn counted_entries_out(&mut self, x: u64, size: u64, n: u32, line: usize, head: bool) -> Option<String> {
        if size > 256 * PAGE_SIZE {
            return None;
        }
        let h = self.hist.as_ref()?;
        let key = (n, pool_idx(size));
        let recs = h.recs.get(&key)?;
        if !recs.iter().any(|r| r.before.contains(&x)) {
            return None;
        }
        let read_later = |a: &u64| self.learnt.entry_from.get(a).is_some_and(|&l| l > line);
        let mut cands: Vec<u64> = Vec::new();
        for r in recs {
            for &a in &r.before {
                if read_later(&a) && !cands.contains(&a) {
                    cands.push(a);
                }
            }
        }
        // The last read first: the tail of the pool. Before them, the stand-ins of unseen entries
        // read in this pool (the newest reading).
        cands.sort_by_key(|a| std::cmp::Reverse(self.learnt.entry_from.get(a).copied().unwrap_or(0)));
        let mut stand_ins: Vec<u64> = self.unseen_at.iter().filter(|&(_, &k)| k == key).map(|(&a, _)| a).collect();
        stand_ins.sort_unstable();
        stand_ins.extend(cands);
        let cands = stand_ins;
        let now = self.vmap.pool_entries(n, size);
        let none = HashMap::default();
        // Readings revised earlier in this replay are still in the history it recorded: counted
        // out from the start, or they would decay the entries they no longer stand in front of.
        let already = self.revised_in(recs);
        let mut out = already.clone();
        let held = h.held_in(recs);
        let kept = |k: Vec<u64>| if head { k.first() == Some(&x) } else { k.contains(&x) };
        // The fewest more, the last read first, until the rerun keeps `x`.
        let rerun = |out: &HashSet<u64>| h.rerun_held(recs, &held, &now, out, &none, &[], size, line).is_some_and(kept);
        let mut found = !already.is_empty() && rerun(&out);
        for &a in cands.iter().take(64) {
            if found {
                break;
            }
            out.insert(a);
            found = rerun(&out);
        }
        if !found {
            return None;
        }
        let first = recs.first().map_or(line, |r| r.line);
        if head {
            // The kernel's pool gave it: a pop, for every later reading of this history.
            if let Some(h) = &mut self.hist {
                h.pops.entry(x).or_default().push(line);
            }
        }
        out.retain(|a| !already.contains(a));
        if out.is_empty() {
            self.rests_on_revision = true;
            let mut names: Vec<u64> = already.into_iter().collect();
            names.sort_unstable();
            let names = names.iter().map(|a| format!("{a:#x}")).collect::<Vec<_>>().join(", ");
            return Some(format!(
                "[{x:#x}, {:#x}) was still in node {n}'s pool: the decays since the purge of trace line {first} kept it \
                 without the entries from before the capture that readings revised earlier in this replay counted \
                 there ({names})",
                x + size
            ));
        }
        let (unseen, mut list): (Vec<u64>, Vec<u64>) = out.into_iter().partition(|a| self.unseen_at.contains_key(a));
        list.sort_unstable();
        if !unseen.is_empty() {
            let why = format!("node {n}'s pool still held {x:#x} here, which its decays gave back counting them");
            self.learnt.drop_unseen(key, unseen.len() as u32, line, why);
            if list.is_empty() {
                return Some(format!(
                    "[{x:#x}, {:#x}) was still in node {n}'s pool: the decays since the purge of trace line {first} kept \
                     it without {} of the unseen entries read in front of the known ones: that reading is revised",
                    x + size,
                    unseen.len()
                ));
            }
        }
        let why = format!(
            "node {n}'s pool still held {x:#x} here, which its decays since the purge of trace line {first} gave back, \
             counting that entry"
        );
        self.learnt.drop_entries(list.iter().map(|&a| (a, why.clone())).collect(), n, size, line);
        let names = list.iter().map(|a| format!("{a:#x}")).collect::<Vec<_>>().join(", ");
        Some(format!(
            "[{x:#x}, {:#x}) was still in node {n}'s pool{}: the decays since the purge of trace line {first} (len >> 2 \
             from the head at each) kept it without {} of the entries from before the capture the model counted there, \
             read at later allocations ({names}): those readings are revised",
            x + size,
            if head { ", its head" } else { "" },
            list.len()
        ))
    }

    /// The entries of the pool with history `recs` that a revision of this replay read out of it
    /// (read as pool entries from before the capture at a later line, then contradicted): the
    /// history recorded them, the next replay will not pool them.
    fn revised_in(&self, recs: &[PoolRec]) -> HashSet<u64> {
        let out: HashSet<u64> =
            self.learnt.entry_out.iter().map(|&(_, a)| a).filter(|a| !self.learnt.entry_from.contains_key(a)).collect();
        recs.iter().flat_map(|r| r.before.iter()).copied().filter(|a| out.contains(a)).collect()
    }

    fn is_lazy(&self, a: u64) -> bool {
        matches!(self.vmap.locate(a), Place::Lazy { start, .. } if start == a)
    }

    /// The newest `n` areas lazy in the model that pass `also`, oldest first: frees traced
    /// after the kernel's purge had taken the lazy lists, which it did not purge.
    fn newest_lazy(&self, n: usize, also: impl Fn(u64) -> bool) -> Vec<u64> {
        let still: Vec<u64> = self.lazy_order.iter().copied().filter(|&a| self.is_lazy(a) && also(a)).collect();
        still[still.len().saturating_sub(n)..].to_vec()
    }

    /// Where a stage of the purge under way (or about to begin) comes in the kernel's order:
    /// (phase, node, area). Every node decayed and its list taken (phase 0), then each list
    /// walked (phase 1): through an area of it (its node's walk part-way; an area already
    /// walked, off every list, counts on the node being walked), then to its end; the end of
    /// the whole purge last.
    fn stage_rank(&self, s: Option<PurgeStop>) -> (u32, u32, u64) {
        match s {
            Some(PurgeStop::Decayed(k)) => (0, k, 0),
            Some(PurgeStop::Through(a)) => {
                let walking = self.vmap.era.part_purge().map_or(0, |p| p.processed);
                (1, self.vmap.purge_list_node(a).unwrap_or(walking), a)
            }
            Some(PurgeStop::Processed(k)) => (1, k, u64::MAX),
            None => (2, 0, 0),
        }
    }

    /// The final state against the "after" file: busy areas, and lazy ones per node.
    pub(super) fn compare_after(&mut self) {
        let Some(after) = self.p.after.clone() else {
            self.report.final_detail.push("no vmallocinfo.after: the final state is not compared".into());
            return;
        };
        let aname = self.p.bundle.after.map_or("vmallocinfo.after", |a| a.name);
        // Frees between the events' end and the after file's read are in no trace, but the
        // file shows them: areas busy here that it lists lazy and not busy. Freed here, so that
        // the final state (and the printed trace's) is the file's.
        let shown: HashSet<(u64, u64)> =
            after.iter().filter(|a| a.kind != InfoKind::Unpurged).map(|a| (a.start, a.end)).collect();
        let late: Vec<u64> = after
            .iter()
            .filter(|a| a.kind == InfoKind::Unpurged && !shown.contains(&(a.start, a.end)))
            .filter(|a| matches!(self.vmap.locate(a.start), Place::Busy { start, end, .. } if start == a.start && end == a.end))
            .map(|a| a.start)
            .collect();
        for &a in &late {
            if self.vmap.vfree(a, &mut NoObserver).is_ok() {
                self.push(Op::Vfree(a));
                self.report.freed_after_trace += 1;
            }
        }
        // Allocations in that gap: busy in the file, free here (a range inside one free
        // block). Placed as the start state's areas were. Space held since before the capture
        // under one (a pool entry from then, or a piece of a held block) was free or pooled in
        // the kernel: given back first, as an allocation there during the events does.
        let busy_here: HashSet<(u64, u64)> =
            self.vmap.busy_areas_all().iter().map(|(i, _, _)| (i.va_start.0, i.va_end.0)).collect();
        for a in after.iter().filter(|a| a.kind != InfoKind::Unpurged && !busy_here.contains(&(a.start, a.end))) {
            while self.release_held_over(a.start, a.end).is_some() {}
            if self.covered_by_blocks(a.start, a.end, false) {
                self.unhold_blocks(a.start, a.end);
            }
        }
        let placed: Vec<(u64, u64)> = after
            .iter()
            .filter(|a| a.kind != InfoKind::Unpurged && !busy_here.contains(&(a.start, a.end)))
            .filter(|a| matches!(self.vmap.locate(a.start), Place::Free { end, .. } if a.end <= end))
            .map(|a| (a.start, a.end))
            .collect();
        for (s, e) in placed {
            let node = self.vmap.profile().has_vmap_nodes().then(|| self.vmap.addr_to_node_id(s));
            if self.vmap.place_busy(s, e, node).is_ok() {
                self.push(follow(Follow::Place { start: s, end: e, node }));
                self.report.allocated_after_trace += 1;
            }
        }
        self.pooled_after_trace(&after, &busy_here);
        let placed_free = self.report.allocated_after_trace - self.report.pooled_after_trace;
        if placed_free > 0 {
            self.report.final_detail.push(format!(
                "{placed_free} areas busy in {aname} were free (or held since before the capture) when the events \
                 ended: allocated before it was read (no event traced them); placed here"
            ));
        }
        if self.report.pooled_after_trace > 0 {
            self.report.final_detail.push(format!(
                "{} areas busy in {aname} were the heads of their pools when the events ended: allocated from them \
                 before it was read (node_alloc; no event traced them)",
                self.report.pooled_after_trace
            ));
        }
        if self.report.freed_after_trace > 0 {
            self.report.final_detail.push(format!(
                "{} areas busy when the events ended are lazy in {aname}: freed before it was read (no event traced \
                 them); freed here",
                self.report.freed_after_trace
            ));
        }
        let kernel: Vec<(u64, u64)> =
            after.iter().filter(|a| a.kind != InfoKind::Unpurged).map(|a| (a.start, a.end)).collect();
        let model: Vec<(u64, u64)> =
            self.vmap.busy_areas_all().iter().map(|(i, _, _)| (i.va_start.0, i.va_end.0)).collect();
        let ks: HashSet<(u64, u64)> = kernel.iter().copied().collect();
        let ms: HashSet<(u64, u64)> = model.iter().copied().collect();
        let mut only_k: Vec<&(u64, u64)> = kernel.iter().filter(|a| !ms.contains(a)).collect();
        let mut only_m: Vec<&(u64, u64)> = model.iter().filter(|a| !ks.contains(a)).collect();
        only_k.sort();
        only_m.sort();
        let equal = only_k.is_empty() && only_m.is_empty();
        self.report.final_busy_equal = Some(equal);
        if equal {
            self.report.final_detail.push(format!("busy areas equal to {aname}'s ({})", kernel.len()));
        } else {
            let mut s = format!(
                "busy areas differ from {aname}'s: {} only in the kernel's, {} only in the model's",
                only_k.len(),
                only_m.len()
            );
            if let Some((a, b)) = only_k.first() {
                let _ = write!(s, "; first of the kernel's: [{a:#x}, {b:#x})");
            }
            if let Some((a, b)) = only_m.first() {
                let _ = write!(s, "; first of the model's: [{a:#x}, {b:#x})");
            }
            self.report.final_detail.push(s);
        }
        // Lazy per node: the file's runs against the model's lists.
        let mut klazy: Vec<Vec<(u64, u64)>> = vec![Vec::new()];
        let mut prev = 0;
        for a in after.iter().filter(|a| a.kind == InfoKind::Unpurged) {
            if a.start < prev {
                klazy.push(Vec::new());
            }
            prev = a.start;
            if let Some(v) = klazy.last_mut() {
                v.push((a.start, a.end));
            }
        }
        let mut mlazy: Vec<Vec<(u64, u64)>> = vec![Vec::new(); self.vmap.nr_vmap_nodes() as usize];
        for (n, i) in self.vmap.lazy_areas_by_node() {
            mlazy[n as usize].push((i.va_start.0, i.va_end.0));
        }
        // One run per node in the file: each lazy area's node is known there. An area of the
        // before file whose node was a guess, lazy here on another node's list, was allocated
        // for that node (its vn_id sends it there): learnt for the next replay (no allocation
        // showed it, so none is explained by it).
        if klazy.len() == mlazy.len() && klazy.len() > 1 && !self.diverged() {
            for (k, run) in klazy.iter().enumerate() {
                for &(a, _) in run {
                    let here = mlazy.iter().position(|l| l.iter().any(|&(b, _)| b == a));
                    if here.is_some_and(|m| m != k)
                        && self.guessed_node.contains(&a)
                        && self.learnt.nodes.get(&a) != Some(&(k as u32))
                    {
                        self.learnt.nodes.insert(a, k as u32);
                        self.learnt.after_nodes.insert(a);
                        self.learnt.changed = true;
                    } else if here.is_some_and(|m| m != k) {
                        // Its last allocation, served by the free tree, was made for that node
                        // (`node_alloc` took the CPU's node before a reschedule: [`RESCHED`]).
                        if let Some(&at) = self.tree_alloc.get(&a) {
                            self.read_alloc_nodes(&[(a, at)], k as u32, at);
                            self.learnt.after_allocs.insert(at);
                        }
                    }
                }
            }
        }
        self.report.nodes_from_after = self.learnt.after_nodes.len();
        if self.report.nodes_from_after > 0 {
            self.report.final_detail.push(format!(
                "{} areas of the before file were allocated for the node whose lazy list {aname} shows them on (their \
                 node was a guess, and no allocation showed it)",
                self.report.nodes_from_after
            ));
        }
        let moved = self.learnt.after_allocs.iter().filter(|l| self.learnt.alloc_node.contains_key(l)).count();
        if moved > 0 {
            self.report.final_detail.push(format!(
                "{moved} allocations of the capture, served by the free tree, were made for the node whose lazy list \
                 {aname} shows their area on ({RESCHED})"
            ));
        }
        mlazy.retain(|v| !v.is_empty());
        klazy.retain(|v| !v.is_empty());
        let kn: Vec<usize> = klazy.iter().map(Vec::len).collect();
        let mn: Vec<usize> = mlazy.iter().map(Vec::len).collect();
        // `show_purge_info` prints the lists in node order with nothing between them: where one
        // node's list ends below the next one's start, the file shows one run. The same areas in
        // the same order are the same lists then (each drop in the file is a node's end).
        let verdict = if klazy == mlazy {
            ", equal"
        } else if klazy.concat() == mlazy.concat() {
            ", equal (the file prints them as one run: one node's list ends below the next one's first area)"
        } else {
            ", differ"
        };
        self.report
            .final_detail
            .push(format!("lazy areas per node (non-empty lists): kernel {kn:?}, model {mn:?}{verdict}"));
    }
}
