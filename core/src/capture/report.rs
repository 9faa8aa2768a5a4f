//! What a capture's replay found, allocation by allocation, and its text and JSON.

use std::fmt;

use crate::profile::Profile;

pub(super) use crate::error::Unknown;

/// How one allocation compared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Equal,
    Explained(Unknown, String),
    Unexplained(String),
}

/// The whole comparison (`vmap-replay --import capture --report json` prints it as JSON).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct CaptureReport {
    pub kernel: Option<String>,
    pub profile: Option<Profile>,
    pub possible: u32,
    pub online: u32,
    pub nodes: u32,
    pub lazy_max_pages: u64,
    pub start_busy: usize,
    pub start_lazy: Vec<usize>,
    pub allocations: usize,
    pub equal: usize,
    pub explained: usize,
    pub unexplained: usize,
    /// Each explained allocation: (trace line, why).
    pub explanations: Vec<(usize, String)>,
    /// Unknowns of the start state resolved (one per explained allocation): pool entries from
    /// before the capture, and busy areas of the before file whose node was learnt.
    pub resolved_pool_entries: usize,
    pub resolved_area_nodes: usize,
    /// Runs of space the before file shows free that the kernel held (one allocation can show
    /// several), and the allocations that showed them or showed one taken at last.
    pub resolved_held_free: usize,
    pub explained_held: usize,
    /// Allocations where the kernel's free-tree search and the model's met different blocks
    /// shorter than the search length (the trees' shapes differ), and the shape facts they
    /// showed (one per short block and search length: a repeat rests on the first).
    pub search_path: usize,
    pub resolved_tree_shapes: usize,
    /// Free blocks of the before file the kernel's search passed over whole (layout unknown),
    /// the allocations that showed them, and the pieces of them the kernel allocated later
    /// (one unknown and one allocation each).
    pub resolved_held_blocks: usize,
    pub explained_blocks: usize,
    pub resolved_held_pieces: usize,
    /// Pools whose length at a purge was learnt (their decay gave back more entries than the
    /// model's: entries from before the capture counted), and the allocations that showed it.
    pub resolved_pool_lengths: usize,
    pub explained_pool_lengths: usize,
    /// Of the explained allocations, those after the first unexplained one: read on from a
    /// model steered to the kernel's address there ([`super::pass`]'s second stage).
    pub explained_after_miss: usize,
    /// Events traced while the before file was read that it already shows (left out).
    pub in_before_file: usize,
    /// The first unexplained allocation, whole.
    pub first_unexplained: Option<String>,
    pub unexplained_lines: Vec<usize>,
    /// `None`: no "after" file.
    pub final_busy_equal: Option<bool>,
    pub final_detail: Vec<String>,
    pub purges: usize,
    pub purges_equal: usize,
    pub purge_detail: Vec<String>,
    /// Purges replayed before their event, where an allocation showed they had run.
    pub purges_early: usize,
    /// Allocations traced after a purge whose search ran before it (the task yielded at
    /// `alloc_vmap_area`'s `cond_resched()`, between its search and its event).
    pub searched_before_purge: usize,
    /// Allocations traced after another allocation whose search ran after theirs (the same
    /// yield, while the other task searched).
    pub searched_before_alloc: usize,
    /// Areas the after file shows lazy that were busy when the events ended (freed untraced),
    /// and busy areas it shows that were free then (allocated untraced).
    pub freed_after_trace: usize,
    pub allocated_after_trace: usize,
    /// Of those, the ones a pool's head gave ([`Pass::pooled_after_trace`]).
    pub pooled_after_trace: usize,
    /// Allocations the trace does not show: areas freed twice with none traced in between,
    /// taken from their pool's head in between ([`super::pass`]).
    pub untraced: usize,
    /// Scans of the vmap node shrinker (its `vmscan` event), each giving back every pool whole.
    pub shrinks: usize,
    /// The trace line from which no pool held an entry from before the capture: the capture's
    /// marker that it drained them, or the shrinker's first scan. `None`: every pool may have.
    pub pools_emptied_at: Option<usize>,
    /// Areas the per-CPU allocator mapped during the capture (`pcpu_get_vm_areas`, which no event
    /// traces), placed where their traced free showed them.
    pub pcpu_mapped: usize,
    /// Areas of the before file whose node the after file's lazy lists showed (no allocation did).
    pub nodes_from_after: usize,
    pub notes: Vec<String>,
    /// Replays run (each learnt something about the start state and started over).
    pub passes: usize,
    /// Inferences a later event contradicted, each revised and replayed from: the line read
    /// again, the line that contradicted it, the reading given up and the one that followed.
    pub revisions: Vec<Revision>,
}

/// An inference about the start state that a later allocation contradicted.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Revision {
    pub line: usize,
    pub contradicted_at: usize,
    /// What was inferred at `line` (the space a search passed over, a busy area's node).
    pub what: String,
    /// How `contradicted_at` contradicted it.
    pub why: String,
    pub was: String,
    pub now: String,
}

impl CaptureReport {
    /// The last line, for scripts.
    pub fn summary_line(&self) -> String {
        let fin = match self.final_busy_equal {
            Some(true) => "equal",
            Some(false) | None => "differs",
        };
        format!(
            "capture: {} allocations, {} equal, {} explained, {} unexplained; final busy {fin}; purges {} of {} equal",
            self.allocations, self.equal, self.explained, self.unexplained, self.purges_equal, self.purges
        )
    }
}

impl fmt::Display for CaptureReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(k) = &self.kernel {
            writeln!(f, "kernel {k}")?;
        }
        if let Some(p) = self.profile {
            writeln!(
                f,
                "replayed under {p}: {} possible CPUs ({} vmap nodes), {} online (lazy_max_pages {})",
                self.possible, self.nodes, self.online, self.lazy_max_pages
            )?;
        }
        let lazy: Vec<String> = self.start_lazy.iter().enumerate().map(|(i, n)| format!("node {i}: {n}")).collect();
        writeln!(f, "start: {} busy areas, lazy areas {}", self.start_busy, lazy.join(", "))?;
        if let Some(l) = self.pools_emptied_at {
            writeln!(
                f,
                "pools empty from trace line {l} (drained, or scanned by the vmap node shrinker): no entry from before \
                 the capture is read after it"
            )?;
        }
        if self.in_before_file > 0 {
            writeln!(
                f,
                "{} events traced while the before file was read are already in it: left out",
                self.in_before_file
            )?;
        }
        for n in self.notes.iter().take(NOTES_SHOWN) {
            writeln!(f, "note: {n}")?;
        }
        if self.notes.len() > NOTES_SHOWN {
            writeln!(f, "note: … and {} more", self.notes.len() - NOTES_SHOWN)?;
        }
        if self.passes > 1 {
            writeln!(
                f,
                "{} replays: each learnt from the kernel's addresses what the before file cannot show, and started over",
                self.passes
            )?;
        }
        for r in &self.revisions {
            writeln!(
                f,
                "revised, trace line {}: {}, read as {}, was contradicted at trace line {} ({}): read as {}",
                r.line, r.what, r.was, r.contradicted_at, r.why, r.now
            )?;
        }
        for (line, why) in &self.explanations {
            writeln!(f, "explained, trace line {line}: {why}")?;
        }
        if self.explained > 0 {
            writeln!(
                f,
                "unknowns of the start state resolved: {} pool entries from before the capture, {} busy areas' nodes, \
                 {} areas shown free but held (each once; {} allocations showed them or their end)",
                self.resolved_pool_entries, self.resolved_area_nodes, self.resolved_held_free, self.explained_held
            )?;
            if self.resolved_held_blocks > 0 {
                writeln!(
                    f,
                    "{} free blocks of the before file held whole (a free-tree search passed over them: pool entries \
                     split them; {} allocations showed them), {} pieces of them allocated later (one unknown each)",
                    self.resolved_held_blocks, self.explained_blocks, self.resolved_held_pieces
                )?;
            }
            if self.resolved_pool_lengths > 0 {
                writeln!(
                    f,
                    "{} pools whose length at a purge counted entries from before the capture (their decay gave back \
                     more; each once, {} allocations showed them)",
                    self.resolved_pool_lengths, self.explained_pool_lengths
                )?;
            }
            if self.search_path > 0 {
                writeln!(
                    f,
                    "{} allocations explained by the free tree's shape (blocks shorter than the search length that lie \
                     on the kernel's search path, or not: vmallocinfo does not show the tree), {} shape facts (one per \
                     short block and search length)",
                    self.search_path, self.resolved_tree_shapes
                )?;
            }
        }
        if self.explained_after_miss > 0 {
            writeln!(
                f,
                "{} of the explained allocations come after an unexplained one: read on from the model steered to the \
                 kernel's address there (what they rest on is about the state at that allocation, not at the start)",
                self.explained_after_miss
            )?;
        }
        if let Some(u) = &self.first_unexplained {
            writeln!(f, "first unexplained: {u}")?;
            if self.unexplained_lines.len() > 1 {
                let more: Vec<String> = self.unexplained_lines.iter().skip(1).take(20).map(|l| l.to_string()).collect();
                writeln!(
                    f,
                    "unexplained also at trace lines {}{}",
                    more.join(", "),
                    if self.unexplained_lines.len() > 21 { ", ..." } else { "" }
                )?;
            }
        }
        if self.purges_early > 0 {
            writeln!(
                f,
                "{} purges replayed before their event (an allocation traced before it saw what they did: a purge is \
                 traced when it ends)",
                self.purges_early
            )?;
        }
        if self.searched_before_purge > 0 {
            writeln!(
                f,
                "{} allocations searched before a purge traced ahead of them (the task yielded at the cond_resched() \
                 after its search and was traced when it ran again)",
                self.searched_before_purge
            )?;
        }
        if self.searched_before_alloc > 0 {
            writeln!(
                f,
                "{} allocations searched before an allocation traced ahead of them (the task yielded at the \
                 cond_resched() after its search and was traced when it ran again)",
                self.searched_before_alloc
            )?;
        }
        if self.untraced > 0 {
            writeln!(
                f,
                "{} allocations the trace does not show: areas freed twice with none traced in between, taken from \
                 their pool's head in between",
                self.untraced
            )?;
        }
        if self.shrinks > 0 {
            writeln!(
                f,
                "{} scans of the vmap node shrinker (mm_shrink_slab_start of vmap_node_shrink_scan): every pool \
                 given back whole",
                self.shrinks
            )?;
        }
        if self.pcpu_mapped > 0 {
            writeln!(
                f,
                "{} areas the per-CPU allocator mapped (pcpu_get_vm_areas, which no event traces): placed where their \
                 traced frees showed them",
                self.pcpu_mapped
            )?;
        }
        for d in &self.purge_detail {
            writeln!(f, "purge: {d}")?;
        }
        for d in &self.final_detail {
            writeln!(f, "final: {d}")?;
        }
        writeln!(f, "{}", self.summary_line())
    }
}

/// The most notes the report prints (the rest are counted).
pub const NOTES_SHOWN: usize = 20;
