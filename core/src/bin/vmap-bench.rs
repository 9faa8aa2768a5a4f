//! `vmap-bench`: native benchmarks of the allocator, events off.
//!
//! Each shape first records a trace of test_vmalloc-like operations (allocating for real,
//! so frees name real addresses), then times only the replay of that trace on a fresh
//! allocator (best of three runs). Prints one line per shape: ops, ns/op, busy areas (lazy
//! ones included in 5.x) and free blocks at the end.
//!
//! ```text
//! cargo run --release --bin vmap-bench [-- --ops N] [--profile NAME] [--only SHAPE]
//! cargo run --release --bin vmap-bench -- --gen fixed|long_busy|mixed SEED [--ops N] > T.trace
//! ```
//!
//! `--gen` prints a trace in the shape of one of ../shared/perf's, from another seed (for the
//! comparisons with the kernel's C on traces the code was not tuned on).

use std::io::Write;
use std::time::Instant;

use vmapviz_core::trace::Op;
use vmapviz_core::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};
use vmapviz_core::workload::Rng;
use vmapviz_core::{NoObserver, Profile, Replayer};

/// Records operations while running them, so frees can name the addresses handed out.
struct Rec {
    r: Replayer,
    ops: Vec<Op>,
    sink: String,
}

/// maple-rfc runs with the bump overlay off (a leading `bump off` in the recorded trace).
static NO_BUMP: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Rec {
    fn new(p: Profile) -> Self {
        let mut r = Rec { r: Replayer::new(p), ops: Vec::new(), sink: String::new() };
        if p == Profile::MapleRfc && NO_BUMP.load(std::sync::atomic::Ordering::Relaxed) {
            r.r.vmap.set_bump(false);
            r.ops.push(Op::Bump(false));
        }
        r
    }
    /// vmalloc(pages): size plus a guard page, align 1, the vmalloc window.
    fn vmalloc(&mut self, pages: u64, align: u64) -> Option<u64> {
        let size = (pages + 1) * PAGE_SIZE;
        let op = Op::Alloc { size, align, vstart: VMALLOC_START, vend: VMALLOC_END };
        let a = self.r.vmap.alloc(size, align, VMALLOC_START, VMALLOC_END, &mut NoObserver).ok();
        self.ops.push(op);
        a
    }
    fn vfree(&mut self, addr: u64) {
        let _ = self.r.vmap.vfree(addr, &mut NoObserver);
        self.ops.push(Op::Vfree(addr));
    }
    fn untimed(&mut self) -> usize {
        self.sink.clear();
        self.ops.len()
    }
}

fn fixed_size(p: Profile, n: usize) -> (Vec<Op>, usize) {
    let mut r = Rec::new(p);
    while r.ops.len() < n {
        if let Some(a) = r.vmalloc(3, 1) {
            r.vfree(a);
        }
    }
    let skip = 0;
    (r.ops, skip)
}

fn full_fit(p: Profile, n: usize) -> (Vec<Op>, usize) {
    let mut r = Rec::new(p);
    let j = 8192; // fls(1 CPU) * 32 MiB / PAGE_SIZE
    let mut junk = Vec::with_capacity(j);
    for _ in 0..j {
        r.vmalloc(1, 1);
        if let Some(a) = r.vmalloc(1, 1) {
            junk.push(a);
        }
    }
    for a in junk {
        r.vfree(a);
    }
    let setup = r.untimed();
    while r.ops.len() < setup + n {
        if let Some(a) = r.vmalloc(1, 1) {
            r.vfree(a);
        }
    }
    (r.ops, setup)
}

fn long_busy(p: Profile, n: usize, keep: usize) -> (Vec<Op>, usize) {
    let mut r = Rec::new(p);
    for _ in 0..keep {
        r.vmalloc(1, 1);
    }
    let setup = r.untimed();
    while r.ops.len() < setup + n {
        let a = r.vmalloc(100, 1);
        let b = r.vmalloc(1, 1);
        for x in [a, b].into_iter().flatten() {
            r.vfree(x);
        }
    }
    (r.ops, setup)
}

fn mixed(p: Profile, n: usize, live: usize) -> (Vec<Op>, usize) {
    let mut r = Rec::new(p);
    let mut rng = Rng::new(42);
    let mut held: Vec<u64> = Vec::with_capacity(live);
    let alloc = |r: &mut Rec, rng: &mut Rng, held: &mut Vec<u64>| {
        let pages = rng.below(100) + 1;
        let align = if rng.below(4) == 0 { 1 << (12 + rng.below(5)) } else { 1 };
        if let Some(a) = r.vmalloc(pages, align) {
            held.push(a);
        }
    };
    while held.len() < live {
        alloc(&mut r, &mut rng, &mut held);
    }
    let setup = r.untimed();
    while r.ops.len() < setup + n {
        let i = rng.below(held.len() as u64) as usize;
        let a = held.swap_remove(i);
        r.vfree(a);
        alloc(&mut r, &mut rng, &mut held);
    }
    (r.ops, setup)
}

/// Bytes of allocator objects per live (busy, lazy or pooled) area at the end of a run:
/// maple-rfc counts 48-byte objects, 256-byte maple nodes and chunk descriptors (spec §11.11);
/// the rbtree eras 72-byte objects (the kernel's `struct vmap_area` before the RFC), free blocks
/// included.
fn bytes_per_area(v: &vmapviz_core::Vmap) -> f64 {
    vmapviz_core::memory::index_memory(v).per_live_area()
}

/// Best of three runs (the machine may be shared): ns per timed op, busy and free at the end,
/// bytes per live area.
fn time(p: Profile, ops: &[Op], setup: usize) -> (f64, usize, usize, f64) {
    let mut best = (f64::INFINITY, 0, 0, 0.0);
    for _ in 0..3 {
        let mut r = Replayer::new(p);
        let mut out = String::with_capacity(64);
        for op in &ops[..setup] {
            let _ = r.apply(op, &mut out, &mut NoObserver);
            out.clear();
        }
        let timed = &ops[setup..];
        let t = Instant::now();
        for op in timed {
            let _ = r.apply(op, &mut out, &mut NoObserver);
            out.clear();
        }
        let ns = t.elapsed().as_nanos() as f64 / timed.len().max(1) as f64;
        if ns < best.0 {
            best = (ns, r.vmap.busy_count(), r.vmap.free_blocks(), bytes_per_area(&r.vmap));
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// `--gen SHAPE SEED`: perf traces in the shapes of ../shared/perf, of other seeds
// ---------------------------------------------------------------------------------------------

/// The vmalloc window of the perf traces.
const VS: u64 = VMALLOC_START;
const VE: u64 = VMALLOC_END;

/// Writes a perf-shape trace while running it, so every `free` names an address the
/// allocator (the kernel's, byte for byte) returned: `alloc`/`free` lines, frees at once (no
/// lazy path), as the traces of ../shared/perf have.
struct Gen {
    r: Replayer,
    rng: Rng,
    lines: Vec<String>,
}

impl Gen {
    fn new(seed: u64, shape: &str, what: &str) -> Self {
        let lines = vec![
            format!("# vmap-bench --gen {shape} {seed}"),
            "init 0x1 0xffffffffffffffff".to_string(),
            format!("# {shape}: {what}"),
        ];
        // The shape's own stream: the same seed gives other numbers in another shape.
        Gen { r: Replayer::new(Profile::Linux52), rng: Rng::new(seed ^ 0x7065_7266), lines }
    }
    fn alloc(&mut self, size: u64, align: u64, vstart: u64, vend: u64) -> Option<u64> {
        self.lines.push(format!("alloc {size:#x} {align:#x} {vstart:#x} {vend:#x}"));
        self.r.vmap.alloc(size, align, vstart, vend, &mut NoObserver).ok()
    }
    fn free(&mut self, addr: u64) {
        self.lines.push(format!("free {addr:#x}"));
        self.r.vmap.free(addr, &mut NoObserver).expect("a free of an address the allocator gave");
    }
    /// `alloc`/`free` lines so far.
    fn ops(&self) -> usize {
        self.lines.len() - 3
    }
    /// Take a random one of `held` out and free it.
    fn free_one(&mut self, held: &mut Vec<u64>) {
        let i = self.rng.below(held.len() as u64) as usize;
        let a = held.swap_remove(i);
        self.free(a);
    }
}

/// fixed: one-page areas at page alignment; the live count walks at random around `live`.
fn gen_fixed(seed: u64, n: usize) -> Vec<String> {
    let live = 800 + Gen::new(seed, "", "").rng.below(400) as usize;
    let mut g = Gen::new(seed, "fixed", &format!("size=1 pages align=0x1000 target_live={live}"));
    let mut held = Vec::with_capacity(2 * live);
    while g.ops() < n {
        let grow = held.len() < live / 2 || (held.len() < 2 * live && g.rng.below(2) == 0);
        if grow || held.is_empty() {
            if let Some(a) = g.alloc(PAGE_SIZE, PAGE_SIZE, VS, VE) {
                held.push(a);
            }
        } else {
            g.free_one(&mut held);
        }
    }
    g.lines
}

/// long_busy: a first area of a seeded size, `keep` one-page vmallocs (two pages with the
/// guard) kept, then pairs of a 100-page and a 1-page vmalloc, freed at once.
fn gen_long_busy(seed: u64, n: usize) -> Vec<String> {
    let mut g = Gen::new(seed, "long_busy", "");
    let keep = 12_000 + g.rng.below(6_000) as usize;
    let first = (1 + g.rng.below(64)) * PAGE_SIZE;
    g.lines[2] = format!("# long_busy: first {first:#x}, {keep} busy 1-page vmallocs, then 100+1 page alloc/free");
    g.alloc(first, 1, VS, VE);
    for _ in 0..keep {
        g.alloc(2 * PAGE_SIZE, 1, VS, VE);
    }
    while g.ops() < n {
        let a = g.alloc(101 * PAGE_SIZE, 1, VS, VE);
        let b = g.alloc(2 * PAGE_SIZE, 1, VS, VE);
        for x in [a, b].into_iter().flatten() {
            g.free(x);
        }
    }
    g.lines
}

/// mixed: about `live` areas of 1 to 256 pages (uniform half the time, else a power of two),
/// aligned to 2^12..2^20, one in 500 in a sub-window of the space; a random one freed, then
/// one allocated.
fn gen_mixed(seed: u64, n: usize) -> Vec<String> {
    let live = 15_000 + Gen::new(seed, "", "").rng.below(10_000) as usize;
    let what = format!("sizes 1..256 pages, align 2^12..2^20, target_live={live}");
    let mut g = Gen::new(seed, "mixed", &what);
    let mut held: Vec<u64> = Vec::with_capacity(live);
    let alloc = |g: &mut Gen, held: &mut Vec<u64>| {
        let pages = if g.rng.below(2) == 0 { 1 + g.rng.below(256) } else { 1 << g.rng.below(9) };
        let size = pages * PAGE_SIZE;
        let align = 1 << (12 + g.rng.below(9));
        let (vstart, vend) = if g.rng.below(500) == 0 && !held.is_empty() {
            // A window from near a live area, a few times the size wide.
            let at = held[g.rng.below(held.len() as u64) as usize];
            (at, at + size * (1 + g.rng.below(64)))
        } else {
            (VS, VE)
        };
        if let Some(a) = g.alloc(size, align, vstart, vend) {
            held.push(a);
        }
    };
    while held.len() < live {
        alloc(&mut g, &mut held);
    }
    while g.ops() < n {
        g.free_one(&mut held);
        alloc(&mut g, &mut held);
    }
    g.lines
}

/// `vmap-bench --gen SHAPE SEED [--ops N]`: print the trace.
fn generate(shape: &str, seed: u64, n: usize) -> Result<(), String> {
    let lines = match shape {
        "fixed" => gen_fixed(seed, n),
        "long_busy" => gen_long_busy(seed, n),
        "mixed" => gen_mixed(seed, n),
        _ => {
            return Err(format!("no shape {shape:?}: fixed, long_busy or mixed (full fits: scripts/gen-full-fit.mjs)"))
        }
    };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for l in lines {
        writeln!(out, "{l}").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())
}

fn main() {
    let mut n = 1_000_000usize;
    let mut profiles = vec![Profile::Linux52, Profile::Linux61, Profile::Linux69, Profile::MapleRfc];
    let mut bump_modes = vec![false, true];
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--ops" => n = args.next().and_then(|s| s.parse().ok()).unwrap_or(n),
            "--profile" => {
                profiles = args.next().and_then(|s| Profile::parse(&s)).map(|p| vec![p]).unwrap_or(profiles);
            }
            "--only" => only = args.next(),
            "--bump" => {
                bump_modes = match args.next().as_deref() {
                    Some("on") => vec![false],
                    Some("off") => vec![true],
                    _ => {
                        eprintln!("vmap-bench: --bump takes on or off");
                        std::process::exit(2);
                    }
                }
            }
            "--contention" => {
                contention_table();
                return;
            }
            "--gen" => {
                let shape = args.next().unwrap_or_default();
                let seed = args.next().and_then(|s| s.parse().ok());
                if let Some(k) = args.next() {
                    n = if k == "--ops" { args.next().and_then(|s| s.parse().ok()) } else { None }.unwrap_or(0);
                }
                let Some(seed) = seed.filter(|_| n > 0) else {
                    eprintln!("usage: vmap-bench --gen fixed|long_busy|mixed SEED [--ops N]");
                    std::process::exit(2);
                };
                if let Err(e) = generate(&shape, seed, n) {
                    eprintln!("vmap-bench: {e}");
                    std::process::exit(2);
                }
                return;
            }
            _ => {
                eprintln!(
                    "usage: vmap-bench [--ops N] [--profile NAME] [--bump on|off] [--only SHAPE] | --contention | --gen SHAPE SEED [--ops N]"
                );
                std::process::exit(2);
            }
        }
    }
    println!(
        "{:<16} {:<24} {:>9} {:>10} {:>8} {:>8} {:>8}",
        "profile", "shape", "ops", "ns/op", "busy", "free", "B/area"
    );
    type Shape = (&'static str, Box<dyn Fn(Profile, usize) -> (Vec<Op>, usize)>);
    let shapes: Vec<Shape> = vec![
        ("fixed_size", Box::new(fixed_size)),
        ("full_fit", Box::new(full_fit)),
        ("long_busy_15000", Box::new(|p, n| long_busy(p, n, 15000))),
        ("mixed_20000_live", Box::new(|p, n| mixed(p, n, 20000))),
        ("long_busy_1000", Box::new(|p, n| long_busy(p, n, 1000))),
        ("long_busy_10000", Box::new(|p, n| long_busy(p, n, 10000))),
    ];
    for p in &profiles {
        let modes: &[bool] = if *p == Profile::MapleRfc { &bump_modes } else { &[false] };
        for &no_bump in modes {
            NO_BUMP.store(no_bump, std::sync::atomic::Ordering::Relaxed);
            let label = match (*p, no_bump) {
                (Profile::MapleRfc, false) => "maple-rfc/bump".to_string(),
                (Profile::MapleRfc, true) => "maple-rfc/nobump".to_string(),
                _ => p.name().to_string(),
            };
            for (name, f) in &shapes {
                if only.as_deref().is_some_and(|o| o != *name) {
                    continue;
                }
                let (ops, setup) = f(*p, n);
                // The leading `bump off` is set-up, not a timed operation.
                let setup = if setup == 0 && matches!(ops.first(), Some(Op::Bump(_))) { 1 } else { setup };
                let (ns, busy, free, bpa) = time(*p, &ops, setup);
                println!(
                    "{:<16} {:<24} {:>9} {:>10.1} {:>8} {:>8} {:>8.1}",
                    label,
                    name,
                    ops.len() - setup,
                    ns,
                    busy,
                    free,
                    bpa
                );
            }
        }
    }
    println!(
        "memory: {} bytes per vmap_area object (node + tree links + list links + busy index share one object)",
        std::mem::size_of::<vmapviz_core::VmapArea>()
    );
}

/// The lock-contention model (simulated CPUs, costs from the core's counters).
fn contention_table() {
    let cpus = [1u32, 2, 4, 8, 16, 32, 64];
    println!(
        "{:<16} {:>5} {:>12} {:>12} {:>10} {:>12}",
        "profile", "cpus", "ops/1000u", "global-hold", "wait", "global-ops"
    );
    let runs = [
        (Profile::Linux52, true, "linux-5.2"),
        (Profile::Linux61, true, "linux-6.1"),
        (Profile::Linux69, true, "linux-6.9"),
        (Profile::MapleRfc, true, "maple-rfc/bump"),
        (Profile::MapleRfc, false, "maple-rfc/nobump"),
    ];
    for (p, bump, label) in runs {
        for r in vmapviz_core::contention::sweep_bump(p, &cpus, 5000, bump) {
            println!(
                "{:<16} {:>5} {:>12.1} {:>11.1}% {:>9.1}% {:>11.1}%",
                label,
                r.cpus,
                r.throughput,
                100.0 * r.global_lock_hold,
                100.0 * r.wait_share,
                100.0 * r.global_lock_ops
            );
        }
    }
}
