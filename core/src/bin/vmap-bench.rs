//! `vmap-bench`: native benchmarks of the allocator, events off.
//!
//! Each shape first records a trace of test_vmalloc-like operations (allocating for real,
//! so frees name real addresses), then times only the replay of that trace on a fresh
//! allocator (best of three runs). Prints one line per shape: ops, ns/op, busy areas (lazy
//! ones included in 5.x) and free blocks at the end.
//!
//! ```text
//! cargo run --release --bin vmap-bench [-- --ops N] [--profile NAME] [--only SHAPE]
//! ```

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
            _ => {
                eprintln!("usage: vmap-bench [--ops N] [--profile NAME] [--bump on|off] [--only SHAPE] | --contention");
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
