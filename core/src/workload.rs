//! Workload generators: the tests of the kernel's `lib/test_vmalloc.c` (spec §7) and a few
//! teaching scenarios, as deterministic producers of trace operations ([`Op`]).
//!
//! A generator cannot know in advance which address the allocator will return, yet a `vfree`
//! must name it. So the generator *runs the allocator while it generates*: it holds a [`Vmap`],
//! applies every operation as it emits it (events off), and emits `vfree <the returned address>`.
//! Replaying the emitted trace therefore reproduces exactly the state the generator saw.
//!
//! ```text
//!   worker 0: test program --call--+                 +--> Sink (Vec<Op> + notes, or a writer)
//!   worker 1: test program --call--+--> Driver ------+
//!        ...   (round-robin,       |    vmalloc(): PAGE_ALIGN + guard page (+ page array)
//!              one call a turn)    |    vm_map_ram(): per-CPU vmap blocks
//!                                  +--> Vmap (the allocator; gives back addresses)
//! ```
//!
//! Modelling choices (each documented where it is made):
//! * Random numbers come from a seeded splitmix64 generator ([`Rng`]); no wall clock. Every
//!   worker has its own stream, derived from the seed and the worker index.
//! * `vmalloc(size)` asks `alloc_vmap_area` for `PAGE_ALIGN(size) + PAGE_SIZE` (the guard page),
//!   align as given (1 for `vmalloc`), window `VMALLOC_START..VMALLOC_END`; when the page-pointer
//!   array exceeds a page (more than 512 pages) it is itself vmalloc'd right after the area and
//!   vfree'd right after it (spec §2.1). `vfree` is the lazy path (`vfree ADDR`).
//! * Workers run in lockstep, round-robin, one kernel call (vmalloc, vfree, vm_map_ram, …) per
//!   turn. Worker `k` runs on CPU `k % cpus`; with the `linux-6.9` profile (where the CPU picks
//!   the vmap node) a `cpu N` line precedes each worker's operations when the CPU changes.
//! * A test whose checked allocation fails stops as the kernel's does and runs its clean-up
//!   (frees of what it still holds); `vfree(NULL)` emits nothing.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};
use ts_rs::TS;

use crate::era::Vmap;
use crate::events::NoObserver;
use crate::profile::Profile;
use crate::trace::{parse_line, parse_trace, Op};
use crate::vmalloc::{fls, PAGE_SHIFT, PAGE_SIZE, VMALLOC_END, VMALLOC_START};

/// `test_loop_count`'s default in the kernel module.
pub const DEFAULT_LOOPS: u64 = 1_000_000;
/// `INT_MAX`: the default `run_test_mask` of the 5.2 and 6.x modules.
pub const INT_MAX_MASK: u64 = 0x7fff_ffff;
/// The newest module's default `run_test_mask` (the first three tests).
pub const NEWEST_DEFAULT_MASK: u64 = 7;
/// x86_64 `THREAD_ALIGN` (16 KiB, without KASAN): `fix_align_alloc_test` uses `THREAD_ALIGN << 1`.
pub const THREAD_ALIGN: u64 = 16 << 10;
/// Build-time `NR_CPUS` assumed for `VMAP_BLOCK_SIZE` (x86_64 defconfig).
pub const NR_CPUS: u64 = 64;
/// `VMAP_MAX_ALLOC`: `vm_map_ram` of at most this many pages uses per-CPU vmap blocks.
pub const VMAP_MAX_ALLOC: u64 = 64;
/// `PMD_SIZE` on x86_64: the percpu atom size, used as the chunk alignment.
pub const PMD_SIZE: u64 = 2 << 20;
/// The modelled percpu unit size: one unit per CPU, each `PCPU_UNIT_SIZE` bytes.
pub const PCPU_UNIT_SIZE: u64 = PMD_SIZE;
/// Default `kvfree_rcu` grace period, in loop iterations (see [`WorkloadParams::keep`]).
pub const DEFAULT_RCU_PERIOD: u64 = 16;
/// Largest `keep` accepted (the generator holds that many areas).
pub const MAX_KEEP: u64 = 1 << 20;
/// Most workers accepted.
pub const MAX_THREADS: u32 = 1024;
/// Most CPUs accepted (the allocator's own limit).
pub const MAX_CPUS: u32 = 65536;

/// `VMAP_BLOCK_SIZE` on 64-bit for a build-time `NR_CPUS` (spec §2.1):
/// `min(1024, max(128, (128 GiB / PAGE_SIZE) / roundup_pow_of_two(NR_CPUS) / 16)) * PAGE_SIZE`.
/// With `NR_CPUS = 64` this is 1024 pages, 4 MiB.
pub fn vmap_block_size(nr_cpus: u64) -> u64 {
    let pages = ((128u64 << 30) / PAGE_SIZE) / nr_cpus.max(1).next_power_of_two() / 16;
    pages.clamp(VMAP_MAX_ALLOC * 2, 1024) * PAGE_SIZE
}

// ----------------------------------------------------------------------
// Random numbers
// ----------------------------------------------------------------------

/// A tiny deterministic PRNG (splitmix64). Stands in for the kernel's RNG; the kernel's own
/// sequence cannot be reproduced, only its distributions.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)` (`get_random_u32_below`); `n` must be > 0.
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `[lo, hi]` (`get_random_u32_inclusive`).
    pub fn inclusive(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    pub fn u8(&mut self) -> u8 {
        (self.next_u64() >> 56) as u8
    }
}

/// The module's run order (spec §7.1): `0..n`, shuffled unless sequential: for `i` from `n-1`
/// down to 1, pick `j` uniformly in `[0, i-1]` and swap (Sattolo: one single cycle).
pub fn run_order(n: usize, sequential: bool, rng: &mut Rng) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    if !sequential {
        for i in (1..n).rev() {
            let j = rng.below(i as u64) as usize;
            v.swap(i, j);
        }
    }
    v
}

// ----------------------------------------------------------------------
// Parameters, presets, the catalogue
// ----------------------------------------------------------------------

/// The knobs of `test_vmalloc` plus the model's own.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct WorkloadParams {
    pub seed: u64,
    /// `test_loop_count` (kernel default 1,000,000; 0 counts as 1, as in the module).
    pub loops: u64,
    /// `nr_pages` (None or 0: the test's default, 1 page; `fix_size_alloc_test` of 5.2: 3).
    pub nr_pages: Option<u64>,
    /// Online CPUs: `lazy_max_pages()`, full_fit's J, the 6.9 node count, the percpu units.
    pub cpus: u32,
    /// Workers (`nr_threads`). None: the module's default for the profile's era: 5.2 runs one
    /// worker per online CPU, 6.x one worker.
    pub nr_threads: Option<u32>,
    pub sequential_test_order: bool,
    /// `test_repeat_count` (0 counts as 1).
    pub test_repeat_count: u32,
    /// `run_test_mask` (bit `1 << index` in table order) for `test_vmalloc`. None: the era's
    /// default (5.2 and 6.1: INT_MAX; 6.9, the newest module: 7).
    pub run_test_mask: Option<u64>,
    /// The size knob: `long_busy_list_alloc_test`'s kept areas (15000), `full_fit_alloc_test`'s
    /// J (`lazy_max_pages`), `pcpu_alloc_test`'s objects (35000), the kvfree_rcu tests' grace
    /// period in loop iterations (16; 0 frees at once). None: those defaults.
    pub keep: Option<u64>,
    #[serde(with = "profile_name")]
    #[ts(as = "Profile")]
    pub profile: Profile,
}

/// A profile as its name, both ways (an unknown name is an error naming it).
mod profile_name {
    use super::{Deserialize, Deserializer, Profile};

    pub fn serialize<S: serde::Serializer>(p: &Profile, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(p.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Profile, D::Error> {
        let s = String::deserialize(d)?;
        Profile::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown profile `{s}`")))
    }
}

impl Default for WorkloadParams {
    fn default() -> Self {
        WorkloadParams {
            seed: 0,
            loops: DEFAULT_LOOPS,
            nr_pages: None,
            cpus: 1,
            nr_threads: None,
            sequential_test_order: false,
            test_repeat_count: 1,
            run_test_mask: None,
            keep: None,
            profile: Profile::default(),
        }
    }
}

impl WorkloadParams {
    /// Workers that will run.
    pub fn threads(&self) -> u32 {
        self.nr_threads.unwrap_or(if old_module(self.profile) { self.cpus } else { 1 }).max(1)
    }

    /// The `run_test_mask` in force.
    pub fn mask(&self) -> u64 {
        // The newest module (6.9 onwards) runs a subset by default.
        self.run_test_mask.unwrap_or(if self.profile.module_tests() >= 13 { NEWEST_DEFAULT_MASK } else { INT_MAX_MASK })
    }

    fn validate(&self) -> Result<(), String> {
        if self.cpus == 0 || self.cpus > MAX_CPUS {
            return Err(format!("cpus {} is out of range: 1..={MAX_CPUS}", self.cpus));
        }
        if let Some(t) = self.nr_threads {
            if t == 0 || t > MAX_THREADS {
                return Err(format!("threads {t} is out of range: 1..={MAX_THREADS}"));
            }
        }
        if let Some(k) = self.keep {
            if k > MAX_KEEP {
                return Err(format!("keep {k} is too large: at most {MAX_KEEP}"));
            }
        }
        if let Some(n) = self.nr_pages {
            if n > 1 << 24 {
                return Err(format!("nr_pages {n} is too large: at most {}", 1u64 << 24));
            }
        }
        Ok(())
    }
}

/// The modes of `test_vmalloc.sh` (spec §7.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// `sequential_test_order=1 test_repeat_count=3`, one worker.
    Performance,
    /// `nr_threads=$NUM_CPUS test_repeat_count=20`.
    Stress,
    /// `test_loop_count=10000 test_repeat_count=10`, one worker.
    Smoke,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Performance, Preset::Stress, Preset::Smoke];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Performance => "performance",
            Preset::Stress => "stress",
            Preset::Smoke => "smoke",
        }
    }

    pub fn parse(s: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == s)
    }

    /// Set the parameters the script passes to the module (the newest script's
    /// `nr_pcpu_objects=35000` is the default `keep` already).
    pub fn apply(self, p: &mut WorkloadParams) {
        match self {
            Preset::Performance => {
                p.sequential_test_order = true;
                p.test_repeat_count = 3;
                p.nr_threads = Some(1);
            }
            Preset::Stress => {
                p.test_repeat_count = 20;
                p.nr_threads = Some(p.cpus.min(MAX_THREADS));
            }
            Preset::Smoke => {
                p.loops = 10_000;
                p.test_repeat_count = 10;
                p.nr_threads = Some(1);
            }
        }
    }
}

/// What kind of workload an entry of [`list`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum WorkloadKind {
    /// One test of `lib/test_vmalloc.c`.
    KernelTest,
    /// The whole module: run order, mask and repeat count.
    Module,
    /// A short hand-written trace that shows one mechanism.
    Teaching,
}

/// One entry of the catalogue.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct WorkloadInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// The test's `run_test_mask` bit (`1 << index`), for kernel tests.
    pub bit: Option<u32>,
    pub kind: WorkloadKind,
}

struct TestDef {
    name: &'static str,
    description: &'static str,
    make: fn(&Ctx, Rng) -> Program,
}

/// The test table of the newest module, in its order (bit = `1 << index`).
const TESTS: [TestDef; 13] = [
    TestDef {
        name: "fix_size_alloc_test",
        description: "loop × { vmalloc(nr_pages or 1 page; 3 pages in 5.2); vfree }: LE fits",
        make: fix_size,
    },
    TestDef {
        name: "full_fit_alloc_test",
        description: "J = lazy_max_pages interleaved 1-page areas, every other one freed (J 2-page holes), \
                      then loop × { vmalloc(1 page); vfree }: FL fits",
        make: full_fit,
    },
    TestDef {
        name: "long_busy_list_alloc_test",
        description: "keeps 15000 1-page areas busy, then loop × { vmalloc(100 pages); vmalloc(1 page); vfree both }",
        make: long_busy,
    },
    TestDef {
        name: "random_size_alloc_test",
        description: "loop × { vmalloc(uniform 1..=100 pages); vfree }",
        make: random_size,
    },
    TestDef {
        name: "fix_align_alloc_test",
        description: "loop × { __vmalloc_node(5 pages, align THREAD_ALIGN << 1 = 32 KiB); vfree }: NE fits",
        make: fix_align,
    },
    TestDef {
        name: "random_size_align_alloc_test",
        description: "loop × { r random; __vmalloc_node((r % 10 + 1) pages, align 1 << (r % 23)); vfree }",
        make: random_size_align,
    },
    TestDef {
        name: "align_shift_alloc_test",
        description: "for i in 0..64: __vmalloc_node(PAGE_SIZE, align 1 << i) until the first failure \
                      (expected to fail: ALIGN wraps past the window)",
        make: align_shift,
    },
    TestDef {
        name: "pcpu_alloc_test",
        description: "35000 percpu objects (1..=1024 bytes, align 2..=2048) in chunks made by pcpu_get_vm_areas \
                      (one 2 MiB unit per CPU, align PMD_SIZE), then all freed",
        make: pcpu_alloc,
    },
    TestDef {
        name: "kvfree_rcu_1_arg_vmalloc_test",
        description: "loop × { vmalloc(1 page); kvfree_rcu(p) }: the vfree waits for a grace period \
                      (modelled as batches of `keep` iterations)",
        make: kvfree_rcu,
    },
    TestDef {
        name: "kvfree_rcu_2_arg_vmalloc_test",
        description: "the same with kvfree_rcu(p, rcu): the same grace-period model",
        make: kvfree_rcu,
    },
    TestDef {
        name: "vm_map_ram_test",
        description: "loop × { vm_map_ram(nr_pages or 1); vm_unmap_ram }: per-CPU 4 MiB vmap blocks \
                      (align = block size), freed lazily when fully dirty",
        make: vm_map_ram,
    },
    TestDef {
        name: "no_block_alloc_test",
        description: "loop × { __vmalloc(nr_pages or 1, GFP_ATOMIC or GFP_NOWAIT); vfree } (expected to fail \
                      only when no space is left; a non-blocking request does not purge in the newest kernels, \
                      which the trace language cannot express)",
        make: no_block,
    },
    TestDef {
        name: "vrealloc_test",
        description: "loop × { vrealloc(NULL, 1 page); grow to 4 pages (new area, old one vfreed); shrinks and the \
                      regrow to 1 page stay in place; vfree }",
        make: vrealloc,
    },
];

/// The 5.1/5.2 module (`single_cpu_test`, 8 tests, 5.2's sizes and random widths).
fn old_module(p: Profile) -> bool {
    p.module_tests() == 8
}

/// Number of tests in the module of a profile's era (the run order shuffles this many):
/// 5.2 has 8; 6.1 adds the two kvfree_rcu tests; 6.9 stands for the newest module (13).
pub fn module_tests(profile: Profile) -> usize {
    profile.module_tests()
}

const MODULE_NAME: &str = "test_vmalloc";
const MODULE_DESCRIPTION: &str = "the whole module: each worker shuffles the era's test table (Sattolo) unless \
                                  sequential, skips tests not in run_test_mask, runs each test_repeat_count times";

struct Teaching {
    name: &'static str,
    description: &'static str,
    trace: &'static str,
}

const TEACHING: [Teaching; 6] = [
    Teaching {
        name: "first_allocation",
        description: "first allocation: vmalloc(4096) splits the one boot block [1, 2^64-1) with a no-edge (NE) fit; \
                      the second is a left-edge (LE) fit",
        trace: "\
# First allocation: the free tree is the single block [1, 2^64 - 1).
# vmalloc(4096) asks for 0x2000 (one page + the guard page) at VMALLOC_START or above:
# the block is split around it (NE fit): [1, VMALLOC_START) becomes a new left node.
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
dump
# The second one starts where the right part starts: a left-edge (LE) fit, no new node.
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
dump
",
    },
    Teaching {
        name: "fit_types",
        description: "each fit type in a 128 KiB window: LE (at the block start), RE (at its end), NE (in the \
                      middle, the block splits), FL (the block is used up)",
        trace: "\
# Free space [0x10000, 0x30000).
init 0x10000 0x30000
# LE: the request starts at the block's start; the block shrinks from the left.
alloc 0x1000 0x1000 0x10000 0x30000
dump
# RE: vstart puts the request at the very end of the block; it shrinks from the right.
alloc 0x1000 0x1000 0x2f000 0x30000
dump
# NE: a 64 KiB alignment lands in the middle: the block splits, a new left node appears.
alloc 0x1000 0x10000 0x10000 0x30000
dump
# FL: exactly the gap [0x21000, 0x2f000): the block leaves the tree.
alloc 0xe000 0x1000 0x21000 0x30000
dump
",
    },
    Teaching {
        name: "merge_both_neighbours",
        description: "merge with both neighbours: freeing the area between two free blocks joins all three \
                      into one, and the tree loses a node",
        trace: "\
init 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
# Two isolated free blocks, [0x100000, 0x101000) and [0x102000, 0x103000):
free 0x100000
free 0x102000
dump
# Freeing [0x101000, 0x102000) touches both: one block [0x100000, 0x103000) remains.
free 0x101000
dump
",
    },
    Teaching {
        name: "rotation_during_insert",
        description:
            "a rotation during insert: the second isolated free block lands as the right child of a red node; \
                      the fix-up rotates left, then right (insert cases 2 and 3)",
        trace: "\
init 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
alloc 0x1000 0x1 0x100000 0x200000
dump
# An isolated free block: a red left child of the black root [0x105000, 0x200000).
free 0x101000
dump
# The next one goes right of it: red under red, black (missing) uncle: rotate left, then right.
free 0x103000
dump
",
    },
    Teaching {
        name: "propagation_stops_early",
        description: "propagation that stops early: a block shrinks and its subtree maximum changes, but its \
                      parent's maximum comes from the big tail block, so the walk stops below the root",
        trace: "\
init 0x100000 0x400000
alloc 0x4000 0x1000 0x100000 0x400000
alloc 0x1000 0x1000 0x100000 0x400000
alloc 0x2000 0x1000 0x100000 0x400000
alloc 0x1000 0x1000 0x100000 0x400000
alloc 0x8000 0x1000 0x100000 0x400000
alloc 0x1000 0x1000 0x100000 0x400000
alloc 0x3000 0x1000 0x100000 0x400000
alloc 0x1000 0x1000 0x100000 0x400000
# Four holes of 16, 8, 32 and 12 KiB below the big tail block [0x115000, 0x400000).
free 0x100000
free 0x105000
free 0x108000
free 0x111000
dump
# A page from the 32 KiB hole (vstart 0x108000): a left-edge fit. That node's maximum drops
# to 28 KiB; its parent [0x111000, 0x114000) still has the tail block's size below it, so the
# propagation stops there, one level below the root.
alloc 0x1000 0x1000 0x108000 0x400000
dump
",
    },
    Teaching {
        name: "alignment_not_lowest",
        description: "alignment makes the result not the lowest: with align 32 KiB the search prunes with \
                      size + align - 1, skips the 12 KiB hole at 0x0 that could hold the page, and returns 0x8000",
        trace: "\
init 0x0 0x100000
alloc 0x3000 0x1000 0x0 0x100000
alloc 0x1000 0x1000 0x0 0x100000
# A 12 KiB hole at 0x0: a 4 KiB page aligned to 32 KiB fits at 0x0 ...
free 0x0
dump
# ... but the search prunes subtrees smaller than 0x1000 + 0x8000 - 1: the answer is 0x8000.
alloc 0x1000 0x8000 0x0 0x100000
dump
",
    },
];

/// The maple-rfc scenarios of spec §11.10 (S1–S5). They replay under every profile, for
/// comparison: `bump` lines are left out of other profiles, and `early` is a plain `alloc` there.
struct RfcScenario {
    name: &'static str,
    description: &'static str,
    make: fn(&WorkloadParams) -> String,
}

const VMALLOC_WINDOW: &str = "0xffffc90000000000 0xffffe8ffffffffff";

const RFC_SCENARIOS: [RfcScenario; 5] = [
    RfcScenario {
        name: "rfc_s1_two_trees",
        description: "maple-rfc S1: 200 vmalloc(4 KiB), 100 random vfrees and a purge with the bump overlay off: the same addresses as linux-6.9, an rbtree there and maple trees here",
        make: rfc_s1,
    },
    RfcScenario {
        name: "rfc_s2_alignment_padding",
        description: "maple-rfc S2: a 64 KiB-aligned hole of 5 pages + guard is skipped (the window loop wants size + align - 1), 6.9 takes it; an exact-range request with align > 4 KiB fails on maple-rfc",
        make: rfc_s2,
    },
    RfcScenario {
        name: "rfc_s3_free_space_without_objects",
        description: "maple-rfc S3: vfree a run of 20 adjacent areas and reclaim (the purge with the pools' full decay): XA_ZERO ranges become NULL, NULL neighbours fuse into one slot, the parent's gap grows to the whole run, the tree loses a leaf",
        make: rfc_s3,
    },
    RfcScenario {
        name: "rfc_s4_bump_overlay",
        description: "maple-rfc S4: one 64 MiB chunk per CPU, allocations that touch no tree, a refill that retires a chunk, and its range back in the allocator at the last vfree, before the lazy purge",
        make: rfc_s4,
    },
    RfcScenario {
        name: "rfc_s5_syzbot_overlap",
        description: "maple-rfc S5 (the syzbot report, our hypothesis): a module-area area from before the perf-mode switch is outside the seeded window, so module allocations overlap it: WARN and FAIL when the area's node holds it, inserted unseen when it starts in another node's zone",
        make: rfc_s5,
    },
];

fn rfc_s1(p: &WorkloadParams) -> String {
    let mut t = String::from("# Bump overlay off: the state after patch 09.\nbump off\n# 200 x vmalloc(4096): a page + the guard page each.\n");
    for _ in 0..200 {
        t += &format!("alloc 0x2000 0x1 {VMALLOC_WINDOW}\n");
    }
    let mut r = Rng::new(p.seed ^ 0x51);
    let mut live: Vec<u64> = (0..200).map(|i| VMALLOC_START + i * 0x2000).collect();
    t += "# 100 random vfrees (lazy: the ranges stay occupied until the purge).\n";
    for _ in 0..100 {
        let i = r.below(live.len() as u64) as usize;
        t += &format!("vfree {:#x}\n", live.swap_remove(i));
    }
    t += "purge\n# The index: 6.9's free rbtree, maple-rfc's occupied maple tree.\ndump\n";
    t
}

fn rfc_s2(_: &WorkloadParams) -> String {
    "\
bump off
# Busy [S, S+64K), the future hole [S+64K, S+88K) (5 pages + guard), busy up to S+256K.
alloc 0x10000 0x1 0xffffc90000000000 0xffffc90000010000
alloc 0x6000 0x1 0xffffc90000010000 0xffffc90000016000
alloc 0x2a000 0x1 0xffffc90000016000 0xffffc90000040000
free 0xffffc90000010000
# __vmalloc_node(5 pages, 64 KiB): 6.9 tests the exact fit on the nodes it visits and takes the low
# hole; maple-rfc searches for size + align - 1 = 0x15fff and lands at S+256K.
alloc 0x6000 0x10000 0xffffc90000000000 0xffffe8ffffffffff
# An exact-range request with align > PAGE_SIZE: 6.9 drops the padding, maple-rfc does not (FAIL).
alloc 0x10000 0x10000 0xffffc90000100000 0xffffc90000110000
dump
"
    .to_string()
}

fn rfc_s3(_: &WorkloadParams) -> String {
    let mut t = String::from("bump off\n# 48 areas of 2 pages: 48 XA_ZERO ranges over several leaves.\n");
    for _ in 0..48 {
        t += &format!("alloc 0x2000 0x1 {VMALLOC_WINDOW}\n");
    }
    t += "dump\n# vfree 20 adjacent areas: lazy, still occupied.\n";
    for i in 10..30u64 {
        t += &format!("vfree {:#x}\n", VMALLOC_START + i * 0x2000);
    }
    t += "dump\n# A reclaim purges with the pools' full decay (a plain purge may keep areas this small in the\n";
    t += "# vmap nodes' pools, as linux-6.9 does, and the tree would not change): NULL stores over the\n";
    t += "# 20 ranges in vfree order, one NULL slot remains, the gap climbs, a leaf goes.\nreclaim\ndump\n";
    t
}

fn rfc_s4(_: &WorkloadParams) -> String {
    "\
# One CPU: the first vmalloc reserves a 64 MiB XA_ZERO range (the chunk); the next ones bump.
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
dump
# Four CPUs: each one's first vmalloc takes a chunk of its own.
cpus 4
cpu 1
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
cpu 2
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
cpu 3
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
cpu 0
# 32 MiB fits in CPU 0's chunk; the next 32 MiB does not: refill, the old chunk is retired.
alloc 0x2000000 0x1 0xffffc90000000000 0xffffe8ffffffffff
alloc 0x2000000 0x1 0xffffc90000000000 0xffffe8ffffffffff
busy
# vfree resolves through page_va; the last one drains the retired chunk: its 64 MiB go back now,
# before the lazy purge of its areas (reused before flush).
vfree 0xffffc90000000000
vfree 0xffffc90000002000
vfree 0xffffc90000004000
vfree 0xffffc90000006000
busy
dump
bump off
alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff
purge
busy
"
    .to_string()
}

fn rfc_s5(p: &WorkloadParams) -> String {
    let mut t = String::new();
    if p.cpus < 2 {
        t += "# Two vmap nodes at least: the module area's 64 KiB zones alternate between them.\ncpus 2\n";
    }
    t += "\
# Before the perf-mode switch: an execmem allocation of 128 KiB in the module area (legacy free-tree
# path). It spans two zones, node 0's and node 1's; node 0's busy tree (the node of its start) keeps it.
early 0x20000 0x1000 0xffffffffa0000000 0xffffffffff000000
# The switch seeds the occupied tree inside [VMALLOC_START, VMALLOC_END) only: the module area looks
# free there, the busy tree holds it. An execmem-style allocation at the area's start: node 0's busy
# tree has the early area as neighbour, the overlap check fires (WARN), the allocation fails.
alloc 0x2000 0x1000 0xffffffffa0000000 0xffffffffff000000
# One from the second zone on: the check looks only at node 1's busy tree, which is empty. The area
# goes in over the early one: the overlap the check cannot see.
alloc 0x2000 0x1000 0xffffffffa0010000 0xffffffffff000000
busy
";
    t
}

/// Every workload: the 13 kernel tests (in table order), the module, the teaching scenarios.
pub fn list() -> Vec<WorkloadInfo> {
    let mut v: Vec<WorkloadInfo> = TESTS
        .iter()
        .enumerate()
        .map(|(i, t)| WorkloadInfo {
            name: t.name,
            description: t.description,
            bit: Some(1 << i),
            kind: WorkloadKind::KernelTest,
        })
        .collect();
    v.push(WorkloadInfo { name: MODULE_NAME, description: MODULE_DESCRIPTION, bit: None, kind: WorkloadKind::Module });
    v.extend(TEACHING.iter().map(|t| WorkloadInfo {
        name: t.name,
        description: t.description,
        bit: None,
        kind: WorkloadKind::Teaching,
    }));
    v.extend(RFC_SCENARIOS.iter().map(|t| WorkloadInfo {
        name: t.name,
        description: t.description,
        bit: None,
        kind: WorkloadKind::Teaching,
    }));
    v
}

/// The hand-written trace of a teaching scenario (with its comments).
pub fn teaching_trace(name: &str) -> Option<&'static str> {
    TEACHING.iter().find(|t| t.name == name).map(|t| t.trace)
}

// ----------------------------------------------------------------------
// Output: a sink of operations and notes
// ----------------------------------------------------------------------

/// Where generated operations go. A note explains the operation that follows it.
pub trait Sink {
    fn op(&mut self, op: &Op);
    fn note(&mut self, text: &str);
}

/// A generated workload: the operations and notes, each note placed before `ops[index]`
/// (`index == ops.len()` means after the last operation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Workload {
    pub ops: Vec<Op>,
    pub notes: Vec<(usize, String)>,
}

impl Sink for Workload {
    fn op(&mut self, op: &Op) {
        self.ops.push(op.clone());
    }
    fn note(&mut self, text: &str) {
        self.notes.push((self.ops.len(), text.to_string()));
    }
}

impl Workload {
    /// The trace text with the notes as `#` comments before the operations they explain.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let mut notes = self.notes.iter().peekable();
        for (i, op) in self.ops.iter().enumerate() {
            while let Some((_, n)) = notes.next_if(|(at, _)| *at <= i) {
                push_note(&mut s, n);
            }
            s.push_str(&op.to_string());
            s.push('\n');
        }
        for (_, n) in notes {
            push_note(&mut s, n);
        }
        s
    }
}

fn push_note(s: &mut String, n: &str) {
    for l in n.lines() {
        s.push_str("# ");
        s.push_str(l);
        s.push('\n');
    }
}

/// A sink writing the trace text (notes as comments) to any writer, for large workloads.
pub struct TextSink<W: std::io::Write> {
    pub out: W,
    pub err: Option<std::io::Error>,
}

impl<W: std::io::Write> TextSink<W> {
    pub fn new(out: W) -> Self {
        TextSink { out, err: None }
    }
}

impl<W: std::io::Write> Sink for TextSink<W> {
    fn op(&mut self, op: &Op) {
        if self.err.is_none() {
            if let Err(e) = writeln!(self.out, "{op}") {
                self.err = Some(e);
            }
        }
    }
    fn note(&mut self, text: &str) {
        for l in text.lines() {
            if self.err.is_none() {
                if let Err(e) = writeln!(self.out, "# {l}") {
                    self.err = Some(e);
                }
            }
        }
    }
}

// ----------------------------------------------------------------------
// Entry points
// ----------------------------------------------------------------------

/// Generate a workload's operations.
pub fn generate(name: &str, params: &WorkloadParams) -> Result<Vec<Op>, String> {
    Ok(generate_annotated(name, params)?.ops)
}

/// Generate a workload's operations with notes (which test starts where, expected failures).
pub fn generate_annotated(name: &str, params: &WorkloadParams) -> Result<Workload, String> {
    let mut w = Workload::default();
    generate_into(name, params, &mut w)?;
    Ok(w)
}

/// Generate into a sink (the CLI streams a 10^6-loop workload to stdout this way).
pub fn generate_into(name: &str, params: &WorkloadParams, sink: &mut dyn Sink) -> Result<(), String> {
    params.validate()?;
    if let Some(t) = TEACHING.iter().find(|t| t.name == name) {
        sink.note(&format!("{}: {}", t.name, t.description));
        sink.op(&Op::Profile(params.profile));
        if params.cpus > 1 {
            sink.op(&Op::Cpus(u64::from(params.cpus)));
        }
        // The scenario's comments become notes on the operations they explain.
        parse_trace(t.trace).map_err(|e| format!("teaching scenario {}: {e}", t.name))?;
        for l in t.trace.lines() {
            match l.trim().strip_prefix('#') {
                Some(c) => sink.note(c.trim()),
                None => {
                    if let Some(op) = parse_line(l)? {
                        sink.op(&op);
                    }
                }
            }
        }
        return Ok(());
    }
    if let Some(t) = RFC_SCENARIOS.iter().find(|t| t.name == name) {
        sink.note(&format!("{}: {}", t.name, t.description));
        sink.op(&Op::Profile(params.profile));
        if params.cpus > 1 {
            sink.op(&Op::Cpus(u64::from(params.cpus)));
        }
        let rfc = params.profile == Profile::MapleRfc;
        let text = (t.make)(params);
        parse_trace(&text).map_err(|e| format!("scenario {}: {e}", t.name))?;
        for l in text.lines() {
            match l.trim().strip_prefix('#') {
                Some(c) => sink.note(c.trim()),
                None => match parse_line(l)? {
                    Some(Op::Bump(_)) if !rfc => sink.note(&format!("({} is a maple-rfc line)", l.trim())),
                    Some(Op::Early { size, align, vstart, vend }) if !rfc => {
                        sink.op(&Op::Alloc { size, align, vstart, vend })
                    }
                    Some(op) => sink.op(&op),
                    None => {}
                },
            }
        }
        return Ok(());
    }
    let tests: Vec<usize> = if name == MODULE_NAME {
        let n = module_tests(params.profile);
        let mask = params.mask();
        (0..n).filter(|i| mask & (1 << i) != 0).collect()
    } else if let Some(i) = TESTS.iter().position(|t| t.name == name) {
        vec![i]
    } else {
        let names: Vec<&str> = list().iter().map(|w| w.name).collect();
        return Err(format!("unknown workload `{name}` (known: {})", names.join(", ")));
    };
    run_module(name, params, tests, name == MODULE_NAME, sink)
}

// ----------------------------------------------------------------------
// Test programs
// ----------------------------------------------------------------------

/// Resolved parameters a test program is built from.
struct Ctx {
    profile: Profile,
    loops: u64,
    nr_pages: Option<u64>,
    cpus: u32,
    keep: Option<u64>,
}

impl Ctx {
    fn pages(&self) -> u64 {
        self.nr_pages.filter(|&n| n > 0).unwrap_or(1)
    }
}

/// One kernel call a test makes. Handles (`h`) name what a test holds, like its pointers.
#[derive(Clone, Debug)]
enum Call {
    /// `vmalloc`/`__vmalloc_node(size, align)` into handle `h`; a failure stops the test when `check`.
    Vmalloc { h: usize, size: u64, align: u64, check: bool },
    /// `vfree` (or `free_vm_area`) of what handle `h` holds; nothing when it holds nothing.
    Vfree { h: usize },
    /// `pcpu_get_vm_areas` for a new percpu chunk, into handle `h`.
    Pcpu { h: usize, align: u64, areas: Vec<(u64, u64)> },
    /// `vm_map_ram(count pages)` into handle `h`.
    MapRam { h: usize, count: u64 },
    /// `vm_unmap_ram` of handle `h`.
    UnmapRam { h: usize },
}

/// What a handle holds.
#[derive(Clone, Debug)]
enum Held {
    /// Areas freed lazily, in this order (a vmalloc area and its page array; a percpu chunk).
    Lazy(Vec<u64>),
    /// A `vm_map_ram` mapping.
    Map { addr: u64, count: u64 },
}

type Calls = Box<dyn Iterator<Item = Call>>;

/// A running test: its calls, and the clean-up it jumps to when a checked allocation fails.
struct Program {
    name: &'static str,
    body: Calls,
    tail: Calls,
    in_tail: bool,
    held: Vec<Option<Held>>,
    failed: bool,
    /// A note about this program was given already.
    warned: bool,
}

impl Program {
    fn new(body: impl Iterator<Item = Call> + 'static, tail: impl Iterator<Item = Call> + 'static) -> Self {
        Program {
            name: "",
            body: Box::new(body),
            tail: Box::new(tail),
            in_tail: false,
            held: Vec::new(),
            failed: false,
            warned: false,
        }
    }

    fn next_call(&mut self) -> Option<Call> {
        if !self.in_tail {
            if let Some(c) = self.body.next() {
                return Some(c);
            }
            self.in_tail = true;
        }
        self.tail.next()
    }

    fn fail(&mut self) {
        self.failed = true;
        self.in_tail = true;
        self.body = Box::new(std::iter::empty());
    }

    fn hold(&mut self, h: usize, v: Held) {
        if self.held.len() <= h {
            self.held.resize(h + 1, None);
        }
        self.held[h] = Some(v);
    }

    fn take(&mut self, h: usize) -> Option<Held> {
        self.held.get_mut(h).and_then(Option::take)
    }
}

fn vm(h: usize, size: u64, align: u64) -> Call {
    Call::Vmalloc { h, size, align, check: true }
}

fn vm_unchecked(h: usize, size: u64, align: u64) -> Call {
    Call::Vmalloc { h, size, align, check: false }
}

fn vf(h: usize) -> Call {
    Call::Vfree { h }
}

fn no_calls() -> std::iter::Empty<Call> {
    std::iter::empty()
}

/// `fix_size_alloc_test`.
fn fix_size(c: &Ctx, _rng: Rng) -> Program {
    let pages = match c.nr_pages.filter(|&n| n > 0) {
        Some(n) => n,
        None if old_module(c.profile) => 3,
        None => 1,
    };
    Program::new((0..c.loops).flat_map(move |_| [vm(0, pages * PAGE_SIZE, 1), vf(0)]), no_calls())
}

/// `full_fit_alloc_test`: handles 0 = ptr array, 1 = junk array, 2 + 2i = ptr[i],
/// 3 + 2i = junk[i], 2 + 2J = tmp. Allocation failures inside the fill loop are not checked.
fn full_fit(c: &Ctx, _rng: Rng) -> Program {
    let j = c.keep.unwrap_or(u64::from(fls(u64::from(c.cpus))) * (32 * 1024 * 1024 / PAGE_SIZE));
    let tmp = 2 + 2 * j as usize;
    let loops = c.loops;
    let body = [vm(0, j * 8, 1), vm(1, j * 8, 1)]
        .into_iter()
        .chain(
            (0..j as usize)
                .flat_map(|i| [vm_unchecked(2 + 2 * i, PAGE_SIZE, 1), vm_unchecked(3 + 2 * i, PAGE_SIZE, 1)]),
        )
        .chain((0..j as usize).map(|i| vf(3 + 2 * i)))
        .chain((0..loops).flat_map(move |_| [vm(tmp, PAGE_SIZE, 1), vf(tmp)]));
    let tail = (0..j as usize).map(|i| vf(2 + 2 * i)).chain([vf(0), vf(1)]);
    Program::new(body, tail)
}

/// `long_busy_list_alloc_test`: handle 0 = the array, 1..=K the kept areas, K+1 and K+2 the
/// loop's two areas.
fn long_busy(c: &Ctx, _rng: Rng) -> Program {
    let k = c.keep.unwrap_or(15000) as usize;
    let (p1, p2) = (k + 1, k + 2);
    let body = [vm(0, k as u64 * 8, 1)]
        .into_iter()
        .chain((0..k).map(|i| vm_unchecked(1 + i, PAGE_SIZE, 1)))
        .chain((0..c.loops).flat_map(move |_| [vm(p1, 100 * PAGE_SIZE, 1), vm(p2, PAGE_SIZE, 1), vf(p1), vf(p2)]));
    let tail = [vf(p1), vf(p2)].into_iter().chain((0..k).map(|i| vf(1 + i))).chain([vf(0)]);
    Program::new(body, tail)
}

/// `random_size_alloc_test`.
fn random_size(c: &Ctx, mut rng: Rng) -> Program {
    Program::new(
        (0..c.loops).flat_map(move |_| {
            let n = rng.inclusive(1, 100);
            [vm(0, n * PAGE_SIZE, 1), vf(0)]
        }),
        no_calls(),
    )
}

/// `fix_align_alloc_test`: 5 pages aligned to `THREAD_ALIGN << 1`.
fn fix_align(c: &Ctx, _rng: Rng) -> Program {
    Program::new((0..c.loops).flat_map(|_| [vm(0, 5 * PAGE_SIZE, THREAD_ALIGN << 1), vf(0)]), no_calls())
}

/// `random_size_align_alloc_test`: `r` is a u8 in 6.x, a u64 in 5.2.
fn random_size_align(c: &Ctx, mut rng: Rng) -> Program {
    let wide = old_module(c.profile);
    Program::new(
        (0..c.loops).flat_map(move |_| {
            let r = if wide { rng.next_u64() } else { u64::from(rng.u8()) };
            let align = 1u64 << (r % 23);
            let size = (r % 10 + 1) * PAGE_SIZE;
            [vm(0, size, align), vf(0)]
        }),
        no_calls(),
    )
}

/// `align_shift_alloc_test`: no loop count; stops at the first failure.
fn align_shift(_c: &Ctx, _rng: Rng) -> Program {
    Program::new((0..64).flat_map(|i| [vm(0, PAGE_SIZE, 1u64 << i), vf(0)]), no_calls())
}

/// `pcpu_alloc_test`. The percpu allocator is modelled simply: one group holding one unit per
/// CPU, each unit [`PCPU_UNIT_SIZE`] bytes, so a chunk is `pcpu PMD_SIZE 0x0:cpus*UNIT`.
/// Objects are placed in the current chunk's unit by a bump pointer (size rounded up to 4
/// bytes, start aligned); when one does not fit, a new chunk is made. There is no percpu
/// first chunk and no spare chunk: every chunk is freed at the end (`free_vm_area`, i.e. the
/// lazy path), in creation order, then the pointer array.
fn pcpu_alloc(c: &Ctx, mut rng: Rng) -> Program {
    let n = c.keep.unwrap_or(35000);
    let era52 = old_module(c.profile);
    let group = u64::from(c.cpus) * PCPU_UNIT_SIZE;
    let mut used = PCPU_UNIT_SIZE; // no chunk yet: the first object makes one
    let mut chunks = 0usize;
    let objects = (0..n).filter_map(move |i| {
        let size = (rng.inclusive(1, PAGE_SIZE / 4) + 3) & !3;
        let shift = if era52 { (i % 11) + 1 } else { rng.inclusive(1, 11) };
        let align = 1u64 << shift;
        let off = (used + align - 1) & !(align - 1);
        if off + size <= PCPU_UNIT_SIZE {
            used = off + size;
            None
        } else {
            used = size;
            chunks += 1;
            Some(Call::Pcpu { h: chunks, align: PMD_SIZE, areas: vec![(0, group)] })
        }
    });
    let body = std::iter::once(vm(0, n * 8, 1)).chain(objects);
    // Chunk handles are 1..; free every one that exists (an empty handle frees nothing).
    let most = (n as usize).max(1);
    let tail = (1..=most).map(vf).chain([vf(0)]);
    Program::new(body, tail)
}

/// `kvfree_rcu_{1,2}_arg_vmalloc_test`. The grace period is modelled as batches of `N = keep`
/// loop iterations (default 16): at the end of batch `b` the areas queued in batch `b - 1` are
/// vfreed, in queue order; after the loop everything still queued is vfreed (`rcu_barrier`).
/// `N = 0` frees each area right after its allocation (the spec's "deferred work runs at once").
fn kvfree_rcu(c: &Ctx, _rng: Rng) -> Program {
    let n = c.keep.unwrap_or(DEFAULT_RCU_PERIOD);
    let loops = c.loops;
    if n == 0 {
        return Program::new((0..loops).flat_map(|_| [vm(0, PAGE_SIZE, 1), vf(0)]), no_calls());
    }
    let slots = 2 * n;
    let body = (0..loops).flat_map(move |k| {
        let mut v = vec![vm((k % slots) as usize, PAGE_SIZE, 1)];
        if (k + 1) % n == 0 && k + 1 >= 2 * n {
            v.extend((k + 1 - 2 * n..k + 1 - n).map(|j| vf((j % slots) as usize)));
        }
        v
    });
    let batches = loops / n;
    let start = if batches >= 1 { (batches - 1) * n } else { 0 };
    let drain = (start..loops).map(move |j| vf((j % slots) as usize));
    let tail = (0..slots as usize).map(vf);
    Program::new(body.chain(drain), tail)
}

/// `vm_map_ram_test`.
fn vm_map_ram(c: &Ctx, _rng: Rng) -> Program {
    let count = c.pages();
    Program::new((0..c.loops).flat_map(move |_| [Call::MapRam { h: 0, count }, Call::UnmapRam { h: 0 }]), no_calls())
}

/// `no_block_alloc_test`: the GFP choice (atomic or nowait) is drawn but changes nothing here.
fn no_block(c: &Ctx, mut rng: Rng) -> Program {
    let size = c.pages() * PAGE_SIZE;
    Program::new(
        (0..c.loops).flat_map(move |_| {
            let _atomic = rng.u8() % 2 == 1;
            [vm(0, size, 1), vf(0)]
        }),
        no_calls(),
    )
}

/// `vrealloc_test`: growing to 4 pages allocates a new area and vfrees the old one; the
/// shrinks and the regrow to one page stay in place. A failed grow leaks the old area (the
/// kernel test sets its pointer to NULL), as here.
fn vrealloc(c: &Ctx, _rng: Rng) -> Program {
    Program::new((0..c.loops).flat_map(|_| [vm(0, PAGE_SIZE, 1), vm(1, 4 * PAGE_SIZE, 1), vf(0), vf(1)]), no_calls())
}

// ----------------------------------------------------------------------
// The driver: applies calls to the allocator and emits operations
// ----------------------------------------------------------------------

/// One per-CPU vmap block (`struct vmap_block`): pages handed out and pages given back.
#[derive(Clone, Debug)]
struct VmapBlock {
    start: u64,
    free: u64,
    dirty: u64,
}

struct Driver<'s> {
    vmap: Vmap,
    sink: &'s mut dyn Sink,
    /// `cpu N` lines are emitted (linux-6.9).
    emit_cpu: bool,
    cur_cpu: u32,
    want_cpu: u32,
    block_pages: u64,
    /// Live vmap blocks by start address.
    blocks: std::collections::BTreeMap<u64, VmapBlock>,
    /// Per-CPU free lists of blocks (starts), in list order.
    vbq: Vec<Vec<u64>>,
    pending_note: Option<String>,
}

impl<'s> Driver<'s> {
    fn op(&mut self, op: Op) {
        if let Some(n) = self.pending_note.take() {
            self.sink.note(&n);
        }
        self.sink.op(&op);
    }

    /// A note for the next operation.
    fn add_note(&mut self, n: String) {
        self.pending_note = Some(match self.pending_note.take() {
            Some(prev) => format!("{prev}\n{n}"),
            None => n,
        });
    }

    fn sync_cpu(&mut self) -> Result<(), String> {
        if self.emit_cpu && self.want_cpu != self.cur_cpu {
            self.vmap.set_cpu(u64::from(self.want_cpu)).map_err(|e| e.to_string())?;
            self.cur_cpu = self.want_cpu;
            self.op(Op::Cpu(u64::from(self.want_cpu)));
        }
        Ok(())
    }

    fn alloc(&mut self, size: u64, align: u64, vstart: u64, vend: u64) -> Result<Option<u64>, String> {
        self.sync_cpu()?;
        let r = self.vmap.alloc(size, align, vstart, vend, &mut NoObserver);
        self.op(Op::Alloc { size, align, vstart, vend });
        match r {
            Ok(a) => Ok(Some(a)),
            Err(e) if e.is_kernel_bug() => Err(format!("generator bug: {e}")),
            Err(_) => Ok(None),
        }
    }

    fn vfree(&mut self, addr: u64) -> Result<(), String> {
        self.sync_cpu()?;
        self.vmap.vfree(addr, &mut NoObserver).map_err(|e| format!("generator bug: vfree {addr:#x}: {e}"))?;
        self.op(Op::Vfree(addr));
        Ok(())
    }

    /// `vmalloc`-family: `PAGE_ALIGN(size)` plus the guard page; a page array over one page is
    /// vmalloc'd right after. Returns the areas to vfree, main area first.
    fn vmalloc(&mut self, size: u64, align: u64) -> Result<Option<Vec<u64>>, String> {
        let size = match size.checked_add(PAGE_SIZE - 1) {
            Some(s) => s & !(PAGE_SIZE - 1),
            None => return Ok(None),
        };
        if size == 0 || size > (1 << 46) {
            return Ok(None);
        }
        let Some(a) = self.alloc(size + PAGE_SIZE, align, VMALLOC_START, VMALLOC_END)? else {
            return Ok(None);
        };
        let mut areas = vec![a];
        let array = (size >> PAGE_SHIFT) * 8;
        if array > PAGE_SIZE {
            match self.vmalloc(array, 1)? {
                Some(more) => areas.extend(more),
                None => {
                    self.vfree(a)?;
                    return Ok(None);
                }
            }
        }
        Ok(Some(areas))
    }

    /// `vm_map_ram(count)`: up to `VMAP_MAX_ALLOC` pages from a per-CPU vmap block
    /// (`vb_alloc`), else an area of its own (no guard page, align PAGE_SIZE).
    fn map_ram(&mut self, cpu: u32, count: u64) -> Result<Option<Held>, String> {
        if count > VMAP_MAX_ALLOC {
            let a = self.alloc(count * PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END)?;
            return Ok(a.map(|addr| Held::Map { addr, count }));
        }
        let need = count.next_power_of_two();
        let q = cpu as usize;
        if self.vbq.len() <= q {
            self.vbq.resize(q + 1, Vec::new());
        }
        let found = self.vbq[q].iter().position(|s| self.blocks[s].free >= need);
        let start = match found {
            Some(i) => self.vbq[q][i],
            None => {
                // new_vmap_block: an aligned block, added at the tail of this CPU's free list.
                let bs = self.block_pages * PAGE_SIZE;
                let Some(s) = self.alloc(bs, bs, VMALLOC_START, VMALLOC_END)? else {
                    return Ok(None);
                };
                self.blocks.insert(s, VmapBlock { start: s, free: self.block_pages, dirty: 0 });
                self.vbq[q].push(s);
                s
            }
        };
        let b = self.blocks.get_mut(&start).expect("block on the free list");
        let off = self.block_pages - b.free;
        b.free -= need;
        if b.free == 0 {
            self.vbq[q].retain(|&s| s != start);
        }
        Ok(Some(Held::Map { addr: start + off * PAGE_SIZE, count }))
    }

    /// `vm_unmap_ram`: a block mapping dirties its pages (`vb_free`); a fully dirty block is
    /// freed lazily (`free_vmap_block`). A large mapping is freed lazily at once.
    fn unmap_ram(&mut self, addr: u64, count: u64) -> Result<(), String> {
        if count > VMAP_MAX_ALLOC {
            return self.vfree(addr);
        }
        let need = count.next_power_of_two();
        let (&start, b) = self.blocks.range_mut(..=addr).next_back().ok_or("generator bug: no vmap block")?;
        b.dirty += need;
        if b.dirty == self.block_pages {
            let b = self.blocks.remove(&start).expect("block");
            for q in &mut self.vbq {
                q.retain(|&s| s != b.start);
            }
            self.vfree(start)?;
        }
        Ok(())
    }

    /// Run one call of a worker's program. Returns false when a checked allocation failed.
    fn exec(&mut self, prog: &mut Program, cpu: u32, call: Call) -> Result<bool, String> {
        self.want_cpu = cpu;
        match call {
            Call::Vmalloc { h, size, align, check } => match self.vmalloc(size, align)? {
                Some(areas) => prog.hold(h, Held::Lazy(areas)),
                None => {
                    prog.take(h);
                    return Ok(!check);
                }
            },
            Call::Vfree { h } | Call::UnmapRam { h } => match prog.take(h) {
                Some(Held::Lazy(areas)) => {
                    for a in areas {
                        self.vfree(a)?;
                    }
                }
                Some(Held::Map { addr, count }) => self.unmap_ram(addr, count)?,
                None => {}
            },
            Call::Pcpu { h, align, areas } => {
                self.sync_cpu()?;
                let offs: Vec<u64> = areas.iter().map(|a| a.0).collect();
                let sizes: Vec<u64> = areas.iter().map(|a| a.1).collect();
                match self.vmap.pcpu_get_vm_areas(&offs, &sizes, align, &mut NoObserver) {
                    Ok(addrs) => {
                        self.op(Op::Pcpu { align, areas });
                        prog.hold(h, Held::Lazy(addrs));
                    }
                    Err(e) if e.is_kernel_bug() => {
                        // A group the kernel would BUG() on (the generator makes none): leave the chunk out, say so once.
                        if !prog.warned {
                            prog.warned = true;
                            self.add_note(format!("{}: chunk left out: {e}", prog.name));
                        }
                    }
                    Err(_) => self.op(Op::Pcpu { align, areas }),
                }
            }
            Call::MapRam { h, count } => match self.map_ram(cpu, count)? {
                Some(m) => prog.hold(h, m),
                None => return Ok(false),
            },
        }
        Ok(true)
    }
}

struct Worker {
    id: u32,
    cpu: u32,
    rng: Rng,
    /// Test indices still to run (front first), with their repeat number.
    queue: std::collections::VecDeque<(usize, u32)>,
    prog: Option<Program>,
}

fn run_module(
    name: &str,
    p: &WorkloadParams,
    tests: Vec<usize>,
    module: bool,
    sink: &mut dyn Sink,
) -> Result<(), String> {
    let threads = p.threads();
    let repeat = p.test_repeat_count.max(1);
    let ctx = Ctx { profile: p.profile, loops: p.loops.max(1), nr_pages: p.nr_pages, cpus: p.cpus, keep: p.keep };
    let mut header = format!(
        "workload {name}: profile {} seed {} loops {} cpus {} threads {threads} repeat {repeat}",
        p.profile, p.seed, ctx.loops, p.cpus
    );
    if module {
        header +=
            &format!(" mask {:#x} order {}", p.mask(), if p.sequential_test_order { "sequential" } else { "shuffled" });
    }
    if let Some(k) = p.keep {
        header += &format!(" keep {k}");
    }
    if let Some(n) = p.nr_pages {
        header += &format!(" nr_pages {n}");
    }
    sink.note(&header);

    let mut d = Driver {
        vmap: Vmap::new(p.profile),
        sink,
        emit_cpu: p.profile.per_cpu(),
        cur_cpu: 0,
        want_cpu: 0,
        block_pages: vmap_block_size(NR_CPUS) / PAGE_SIZE,
        blocks: Default::default(),
        vbq: Vec::new(),
        pending_note: None,
    };
    d.op(Op::Profile(p.profile));
    if p.cpus > 1 {
        d.vmap.set_cpus(u64::from(p.cpus)).map_err(|e| e.to_string())?;
        d.op(Op::Cpus(u64::from(p.cpus)));
    }

    let mut workers: Vec<Worker> = (0..threads)
        .map(|k| {
            let mut rng = Rng::new(p.seed ^ (u64::from(k) + 1).wrapping_mul(0xa076_1d64_78bd_642f));
            let order = if module {
                run_order(module_tests(p.profile), p.sequential_test_order, &mut rng)
            } else {
                tests.clone()
            };
            let queue = order
                .into_iter()
                .filter(|i| tests.contains(i))
                .flat_map(|i| (1..=repeat).map(move |r| (i, r)))
                .collect();
            Worker { id: k, cpu: k % p.cpus, rng, queue, prog: None }
        })
        .collect();

    let mut live = workers.len();
    while live > 0 {
        live = 0;
        for w in workers.iter_mut() {
            if step(&mut d, w, &ctx, threads, repeat)? {
                live += 1;
            }
        }
    }
    if let Some(n) = d.pending_note.take() {
        d.sink.note(&n);
    }
    Ok(())
}

/// One turn of a worker: its next call. False when it has nothing left to do.
fn step(d: &mut Driver<'_>, w: &mut Worker, ctx: &Ctx, threads: u32, repeat: u32) -> Result<bool, String> {
    loop {
        if w.prog.is_none() {
            let Some((t, r)) = w.queue.pop_front() else {
                return Ok(false);
            };
            let def = &TESTS[t];
            let mut prog = (def.make)(ctx, Rng::new(w.rng.next_u64()));
            prog.name = def.name;
            w.prog = Some(prog);
            let mut n = String::new();
            if threads > 1 {
                n += &format!("worker {} (cpu {}): ", w.id, w.cpu);
            }
            n += def.name;
            if repeat > 1 {
                n += &format!(" (run {r} of {repeat})");
            }
            d.add_note(n);
        }
        let prog = w.prog.as_mut().expect("program");
        let Some(call) = prog.next_call() else {
            w.prog = None;
            continue;
        };
        let what = match &call {
            Call::Vmalloc { size, align, .. } => Some((*size, *align)),
            _ => None,
        };
        if !d.exec(prog, w.cpu, call)? {
            let (size, align) = what.unwrap_or((0, 0));
            let expected = if prog.name == "align_shift_alloc_test" { " (expected)" } else { "" };
            let msg = if what.is_some() {
                format!(
                    "^ FAIL{expected}: {} cannot get {size:#x} bytes aligned to {align:#x}; the test returns -1",
                    prog.name
                )
            } else {
                format!("^ FAIL: {}: the request fails; the test returns -1", prog.name)
            };
            d.add_note(msg);
            prog.fail();
        }
        return Ok(true);
    }
}

impl fmt::Display for WorkloadInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:<32} {}", self.name, self.description)
    }
}
