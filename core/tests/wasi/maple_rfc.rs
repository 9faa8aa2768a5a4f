//! The `maple-rfc` allocator (spec §11): invariants after every operation of random traces
//! (bump on/off, 1–64 CPUs), the window loop against a brute-force search written here over a
//! sorted Vec of ranges, linux-6.9's addresses with the overlay off (S1), the padding
//! difference (S2), the bump overlay (S4) and the syzbot overlap (S5).

use vmapviz_core::maple::MapleEntry;
use vmapviz_core::maple_rfc::{AllocPath, MapleRfc, MODULES_END, MODULES_VADDR, VMAP_BUMP_CHUNK_SIZE};
use vmapviz_core::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};
use vmapviz_core::workload::Rng;
use vmapviz_core::{NoObserver, Profile, Vmap, VmapError};

const P: u64 = PAGE_SIZE;

/// The occupied ranges (inclusive) in order, read from the tree.
fn occupied(m: &MapleRfc) -> Vec<(u64, u64)> {
    m.occupied().ranges().into_iter().filter(|r| r.2.is_some()).map(|r| (r.0, r.1)).collect()
}

/// Lowest `x >= lo` with `[x, x + len - 1]` inside `[lo, hi]` and clear of every range.
fn brute_lowest(ranges: &[(u64, u64)], lo: u64, hi: u64, len: u64) -> Option<u64> {
    if lo > hi || len == 0 || hi - lo < len - 1 {
        return None;
    }
    let mut x = lo;
    for &(s, e) in ranges {
        if e < x {
            continue;
        }
        if s > x && s - x >= len {
            break;
        }
        if s > hi {
            break;
        }
        // The range blocks [x, x + len): move past it.
        if e == u64::MAX {
            return None;
        }
        x = x.max(e + 1);
    }
    let last = x.checked_add(len - 1)?;
    (last <= hi).then_some(x)
}

/// The spec's window loop (§11.4.3), step by step, over the brute-force search. `None` also
/// when it would take more than `cap` iterations (then the caller skips the comparison).
fn brute_window(ranges: &[(u64, u64)], min: u64, max: u64, size: u64, align: u64, cap: u32) -> Result<Option<u64>, ()> {
    let len = if align > P {
        match size.checked_add(align - 1) {
            Some(l) => l,
            None => return Ok(None),
        }
    } else {
        size
    };
    let mut search = min;
    let mut n = 0;
    while search <= max {
        n += 1;
        if n > cap {
            return Err(());
        }
        let Some(index) = brute_lowest(ranges, search, max, len) else {
            return Ok(None);
        };
        let hole_end = (index + (len - 1)).min(max);
        let cand = (index.wrapping_add(align - 1)) & !(align - 1);
        if cand < index {
            return Ok(None);
        }
        let Some(cand_end) = cand.checked_add(size - 1) else {
            return Ok(None);
        };
        if cand >= search && cand_end <= hole_end {
            return Ok(Some(cand));
        }
        if hole_end == u64::MAX {
            return Ok(None);
        }
        search = hole_end + 1;
    }
    Ok(None)
}

/// Everything a refused operation must leave as it was.
fn fingerprint(m: &MapleRfc) -> String {
    let mut m = m.clone();
    let mut s = String::new();
    m.dump(&mut s);
    m.busy(&mut s);
    s.push_str(&format!("{:?} {:?} {}", m.pools(), m.free_blocks(), m.vmap_lazy_nr()));
    s
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Alloc(u64, u64, u64, u64),
    Free(u64),
    Vfree(u64),
    Purge,
    Reclaim,
    Bump(bool),
    Cpu(u64),
    Pcpu(u64),
}

fn random_op(r: &mut Rng, live: &[u64], cpus: u64, window: (u64, u64)) -> Op {
    let k = r.below(100);
    if k < 50 || live.is_empty() {
        let pages = match r.below(10) {
            0 => r.inclusive(1, 9000),
            1..=3 => r.inclusive(1, 300),
            _ => r.inclusive(1, 8),
        };
        let align = match r.below(8) {
            0 => 1 << r.inclusive(13, 22),
            1 => P,
            _ => 1,
        };
        let (vs, ve) = match r.below(10) {
            0 => {
                let a = window.0 + r.below(1 << 20) * P;
                (a, a + r.inclusive(1, 1 << 16) * P)
            }
            1 => (MODULES_VADDR, MODULES_END),
            2 => {
                // an unaligned window start (the loop's periodic misses)
                let a = window.0 + r.below(1 << 12) * P + r.inclusive(1, P - 1);
                (a, window.1)
            }
            _ => (VMALLOC_START, VMALLOC_END),
        };
        return Op::Alloc(pages * P, align, vs, ve);
    }
    let addr = live[r.below(live.len() as u64) as usize];
    match k {
        50..=64 => Op::Free(addr),
        65..=89 => Op::Vfree(addr),
        90..=91 => Op::Purge,
        92 => Op::Reclaim,
        93..=94 => Op::Bump(r.below(2) == 0),
        95..=97 => Op::Cpu(r.below(cpus)),
        98 => Op::Vfree(addr + P), // interior: refused
        _ => Op::Pcpu(r.inclusive(1, 4)),
    }
}

#[test]
fn random_traces_keep_the_invariants_and_match_the_brute_force() {
    let mut compared = 0u32;
    let mut hits = [0u32; 5];
    let mut diverged = 0u32;
    for seed in 0..48u64 {
        let mut r = Rng::new(0x5eed_0000 + seed);
        let cpus = [1u64, 2, 3, 4, 8, 16, 33, 64][(seed % 8) as usize];
        let mut m = MapleRfc::new();
        m.set_cpus(cpus).unwrap();
        m.set_bump(seed % 3 != 0);
        // Some traces run in a small initialised range, so the seeded tree has content.
        let window = if seed % 4 == 1 {
            let lo = VMALLOC_START + 0x4000_0000;
            m.init(lo, lo + 0x1_0000_0000).unwrap();
            (lo, lo + 0x1_0000_0000)
        } else {
            (VMALLOC_START, VMALLOC_END)
        };
        m.ensure_perf();
        let mut live: Vec<u64> = Vec::new();
        for step in 0..400 {
            let op = random_op(&mut r, &live, cpus, window);
            let before = fingerprint(&m);
            let pre_occ = occupied(&m);
            let (purges, refills) = (m.counters.purges, m.counters.refills);
            let res: Result<Option<u64>, VmapError> = match op {
                Op::Alloc(size, align, vs, ve) => m.alloc(size, align, vs, ve, &mut NoObserver).map(Some),
                Op::Free(a) => m.free(a, &mut NoObserver).map(|_| None),
                Op::Vfree(a) => m.vfree(a, &mut NoObserver).map(|_| None),
                Op::Purge => {
                    m.purge(&mut NoObserver);
                    Ok(None)
                }
                Op::Reclaim => {
                    m.reclaim(&mut NoObserver);
                    Ok(None)
                }
                Op::Bump(on) => {
                    m.set_bump(on);
                    Ok(None)
                }
                Op::Cpu(c) => m.set_cpu(c).map(|_| None),
                Op::Pcpu(n) => {
                    let offs: Vec<u64> = (0..n).map(|i| i * 0x20_0000).collect();
                    let sizes = vec![0x8000; n as usize];
                    match m.pcpu_get_vm_areas(&offs, &sizes, P, &mut NoObserver) {
                        Ok(v) => {
                            live.extend(v);
                            Ok(None)
                        }
                        Err(e) => Err(e),
                    }
                }
            };
            if let Err(e) = m.check() {
                panic!("seed {seed} step {step} {op:?}: {e}");
            }
            match (&op, &res) {
                (Op::Alloc(size, align, vs, ve), Ok(Some(a))) => {
                    live.push(*a);
                    let path = m.last_path;
                    hits[path as usize] += 1;
                    if path == AllocPath::Global && purges == m.counters.purges && refills == m.counters.refills {
                        if let Ok(want) = brute_window(&pre_occ, *vs, ve - 1, *size, *align, 1 << 20) {
                            assert_eq!(want, Some(*a), "seed {seed} step {step} {op:?}");
                            compared += 1;
                        }
                    }
                    if path == AllocPath::Bump {
                        assert!(*size <= 32 << 20 && *vs == VMALLOC_START && *ve == VMALLOC_END);
                    }
                }
                (Op::Alloc(size, align, vs, ve), Err(VmapError::NoSpace { .. })) => {
                    // Failed even after the purge: the brute force finds nothing now either.
                    let now = occupied(&m);
                    if let Ok(want) = brute_window(&now, *vs, ve.wrapping_sub(1), *size, *align, 1 << 20) {
                        assert!(*vs >= *ve || want.is_none(), "seed {seed} step {step} {op:?}: brute {want:x?}");
                    }
                }
                (Op::Free(a) | Op::Vfree(a), Ok(_)) => live.retain(|x| x != a),
                _ => {}
            }
            if let Err(e) = &res {
                if !matches!(e, VmapError::NoSpace { .. }) {
                    assert_eq!(
                        before,
                        fingerprint(&m),
                        "seed {seed} step {step} {op:?} refused ({e}) but changed state"
                    );
                }
            }
        }
        // The RFC's own gaps (a pool hit of a bump area whose chunk was released, an erase of a
        // range not its own) stop the overlap and occupied-tree tests for the rest of a trace.
        if let Some(why) = m.diverged() {
            eprintln!("seed {seed}: diverged: {why}");
            diverged += 1;
        }
    }
    eprintln!("{diverged} of 48 traces diverged");
    assert!(diverged < 8, "{diverged} of 48 traces diverged: the invariants were not tested to their end");
    assert!(compared > 1000, "only {compared} global allocations compared");
    assert!(hits[AllocPath::Bump as usize] > 100 && hits[AllocPath::Pool as usize] > 0, "paths {hits:?}");
}

#[test]
fn find_hole_window_equals_the_brute_force_loop() {
    let mut r = Rng::new(77);
    let mut checked = 0;
    for round in 0..30 {
        // A random occupied state in a 256 MiB region (unaligned boundaries included).
        let mut m = MapleRfc::new();
        let base = VMALLOC_START;
        m.init(base, base + 0x1000_0000).unwrap();
        m.ensure_perf();
        for _ in 0..60 {
            let s = base + r.below(0x1000_0000);
            let e = (s + r.inclusive(1, 64) * if round % 3 == 0 { 1000 } else { P }).min(base + 0x0fff_ffff);
            if s <= e {
                m.occupied_mut().store_range(s, e, Some(MapleEntry::Zero)).unwrap();
            }
            if r.below(3) == 0 {
                let s = base + r.below(0x1000_0000);
                let _ = m.occupied_mut().store_range(s, s + r.inclusive(1, 30) * P, None);
            }
        }
        let ranges = occupied(&m);
        for _ in 0..200 {
            let min = (base + r.below(0x1000_0000)) & !(if r.below(2) == 0 { P - 1 } else { 0 });
            let max = if r.below(4) == 0 { min + r.below(0x100_0000) } else { base + 0x0fff_ffff + r.below(2) };
            let size = r.inclusive(1, 32) * P;
            let align = if r.below(3) == 0 { 1 << r.inclusive(13, 24) } else { 1 << r.below(13) };
            let got = m.find_hole_window(min, max, size, align);
            if let Ok(want) = brute_window(&ranges, min, max, size, align, 1 << 20) {
                assert_eq!(got, want, "round {round}: min {min:#x} max {max:#x} size {size:#x} align {align:#x}");
                checked += 1;
            }
        }
    }
    assert!(checked > 5000, "{checked}");
}

/// S1: with the overlay off and `align <= PAGE_SIZE`, maple-rfc hands out linux-6.9's
/// addresses. With one vmap node every operation is compared; with more nodes only `free`
/// (no vfree), because the pools then fill in a different order: 6.9 purges a node's lazy
/// areas in address order (its lazy tree), the RFC in vfree order (its lazy list) [infer].
#[test]
fn s1_same_addresses_as_linux_6_9_with_bump_off() {
    let mut compared = 0;
    for seed in 0..24u64 {
        let mut r = Rng::new(900 + seed);
        let cpus = [1u64, 2, 4, 7, 16, 64][(seed % 6) as usize];
        let mut v = Vmap::new(Profile::Linux69);
        v.set_cpus(cpus).unwrap();
        let mut m = MapleRfc::new();
        m.set_cpus(cpus).unwrap();
        m.set_bump(false);
        let mut live: Vec<u64> = Vec::new();
        for step in 0..600 {
            let k = r.below(100);
            if k < 55 || live.is_empty() {
                let hi = if r.below(6) == 0 { 600 } else { 8 };
                let size = r.inclusive(1, hi) * P;
                let align = if r.below(2) == 0 { P } else { 1 };
                let (vs, ve) = if r.below(8) == 0 {
                    let a = VMALLOC_START + r.below(1 << 14) * P;
                    (a, a + r.inclusive(1, 1 << 12) * P)
                } else {
                    (VMALLOC_START, VMALLOC_END)
                };
                let a = v.alloc(size, align, vs, ve, &mut NoObserver).ok();
                let b = m.alloc(size, align, vs, ve, &mut NoObserver).ok();
                if a != b {
                    let mut o = String::new();
                    vmapviz_core::replay::dump_busy(&v, &mut o);
                    vmapviz_core::replay::dump_pools(&v, &mut o);
                    m.busy(&mut o);
                    o.push_str(&format!("{:x?}", m.pools()));
                    eprintln!("{o}");
                }
                assert_eq!(a, b, "seed {seed} step {step}: alloc {size:#x} {align:#x} {vs:#x} {ve:#x}");
                compared += 1;
                if let Some(a) = a {
                    live.push(a);
                }
            } else if k < 97 {
                let i = r.below(live.len() as u64) as usize;
                let addr = live.swap_remove(i);
                if cpus > 1 || r.below(3) == 0 {
                    v.free(addr, &mut NoObserver).unwrap();
                    m.free(addr, &mut NoObserver).unwrap();
                } else {
                    v.vfree(addr, &mut NoObserver).unwrap();
                    m.vfree(addr, &mut NoObserver).unwrap();
                }
            } else if k < 99 {
                v.purge(&mut NoObserver);
                m.purge(&mut NoObserver);
            } else {
                let c = r.below(cpus);
                v.set_cpu(c).unwrap();
                m.set_cpu(c).unwrap();
            }
            m.check().unwrap_or_else(|e| panic!("seed {seed} step {step}: {e}"));
        }
    }
    assert!(compared > 5000);
}

fn standard(m: &mut MapleRfc, pages: u64) -> u64 {
    m.alloc(pages * P, 1, VMALLOC_START, VMALLOC_END, &mut NoObserver).unwrap()
}

/// S2: a low 64 KiB-aligned hole that fits `size` but is shorter than `size + align - 1` is
/// skipped by maple-rfc; an exact-range request with `align > PAGE_SIZE` fails there.
#[test]
fn s2_alignment_padding() {
    let mut m = MapleRfc::new();
    m.set_bump(false);
    let mut v = Vmap::new(Profile::Linux69);
    let s = VMALLOC_START;
    // [s, s+0x10000) busy, [s+0x10000, s+0x16000) the hole to be, then busy up to s+0x40000.
    for (a, sz) in [(s, 0x10000), (s + 0x10000, 0x6000), (s + 0x16000, 0x2a000)] {
        assert_eq!(m.alloc(sz, 1, a, a + sz, &mut NoObserver).unwrap(), a);
        assert_eq!(v.alloc(sz, 1, a, a + sz, &mut NoObserver).unwrap(), a);
    }
    m.free(s + 0x10000, &mut NoObserver).unwrap();
    v.free(s + 0x10000, &mut NoObserver).unwrap();
    // 5 pages + guard, aligned to 64 KiB.
    let got = m.alloc(0x6000, 0x10000, VMALLOC_START, VMALLOC_END, &mut NoObserver).unwrap();
    assert_eq!(got, s + 0x40000, "maple-rfc takes the first hole of size + align - 1, aligned up");
    let six = v.alloc(0x6000, 0x10000, VMALLOC_START, VMALLOC_END, &mut NoObserver).unwrap();
    assert_eq!(six, s + 0x10000, "linux-6.9 tests the exact fit on the nodes it visits");
    // Exact range, align > PAGE_SIZE.
    let x = s + 0x100000;
    assert!(m.alloc(0x10000, 0x10000, x, x + 0x10000, &mut NoObserver).is_err());
    assert_eq!(v.alloc(0x10000, 0x10000, x, x + 0x10000, &mut NoObserver).unwrap(), x);
    m.check().unwrap();
}

/// S4: the bump overlay: one 64 MiB XA_ZERO range per CPU, no tree store for the allocations
/// themselves, vfree through page_va, fast reject, refill and retire, release before the purge.
#[test]
fn s4_bump_overlay() {
    let mut m = MapleRfc::new();
    m.set_cpus(4).unwrap();
    let mut firsts = Vec::new();
    for cpu in 0..4 {
        m.set_cpu(cpu).unwrap();
        firsts.push(standard(&mut m, 2));
    }
    assert_eq!(m.chunks().len(), 4);
    assert_eq!(occupied(&m).len(), 4, "one range per chunk");
    for (i, a) in firsts.iter().enumerate() {
        // Chunks from the lowest holes, one after the other, each CPU at its chunk's base.
        assert_eq!(*a, VMALLOC_START + i as u64 * VMAP_BUMP_CHUNK_SIZE);
    }
    m.set_cpu(0).unwrap();
    let stores = m.counters.occupied_stores;
    let mut addrs = Vec::new();
    for _ in 0..1000 {
        addrs.push(standard(&mut m, 2));
    }
    assert_eq!(m.counters.occupied_stores, stores, "1000 bump allocations touch no tree");
    assert!(addrs.windows(2).all(|w| w[1] == w[0] + 2 * P));
    // vfree through page_va; a module address is rejected by lo/hi without a walk.
    let fr = m.counters.fast_reject_hits;
    m.vfree(addrs[10], &mut NoObserver).unwrap();
    assert!(m.vfree(MODULES_VADDR, &mut NoObserver).is_err());
    assert_eq!(m.counters.fast_reject_hits, fr + 1);
    // An interior address is not unlinked by the bump path (and no busy tree has it).
    assert!(matches!(m.vfree(addrs[11] + P, &mut NoObserver), Err(VmapError::UnknownFree { .. })));
    // Exhaust CPU 0's chunk: 8192 two-page areas fill 64 MiB.
    let mut first_chunk = vec![firsts[0]];
    first_chunk.extend(&addrs);
    while m.chunks().iter().find(|c| c.base == firsts[0]).unwrap().bump < firsts[0] + VMAP_BUMP_CHUNK_SIZE {
        first_chunk.push(standard(&mut m, 2));
    }
    let refills = m.counters.refills;
    let next = standard(&mut m, 2);
    assert_eq!(m.counters.refills, refills + 1);
    assert_eq!(next, VMALLOC_START + 4 * VMAP_BUMP_CHUNK_SIZE, "the refill takes the lowest 64 MiB hole");
    let mut out = String::new();
    m.busy(&mut out);
    assert!(
        out.contains(&format!(
            "chunk {:#x} {:#x} bump={:#x} pages=16382 cpu=0 retired",
            firsts[0],
            firsts[0] + VMAP_BUMP_CHUNK_SIZE,
            firsts[0] + VMAP_BUMP_CHUNK_SIZE
        )),
        "{out}"
    );
    // The retired chunk goes back at its last unlink, while its areas are still lazy.
    for a in first_chunk {
        if a != addrs[10] {
            m.vfree(a, &mut NoObserver).unwrap_or_else(|e| panic!("{a:#x}: {e}"));
        }
        m.check().unwrap();
    }
    assert_eq!(m.counters.released_before_flush, 1);
    assert!(m.chunks().iter().all(|c| c.base != firsts[0]));
    assert!(m.vmap_lazy_nr() > 0, "the areas are still lazy");
    let mut out = String::new();
    m.busy(&mut out);
    assert!(out.contains("chunk ") && !out.contains(" retired") && out.contains(" current"), "{out}");
    // The released range is allocatable again before the purge ran.
    m.set_bump(false);
    let reuse = m.alloc(P, 1, VMALLOC_START, VMALLOC_END, &mut NoObserver).unwrap();
    assert_eq!(reuse, firsts[0]);
    m.check().unwrap();
    m.purge(&mut NoObserver);
    m.check().unwrap();
}

/// S5: an area allocated in the module range before the perf-mode switch is in a busy tree but
/// outside the seeded window; the next allocation there trips the overlap check (a warning,
/// nothing changes).
#[test]
fn s5_syzbot_overlap() {
    let mut m = MapleRfc::new();
    let early = m.alloc_early(0x3000, P, MODULES_VADDR, MODULES_END).unwrap();
    assert_eq!(early, MODULES_VADDR);
    assert_eq!(m.last_path, AllocPath::Legacy);
    let before = fingerprint(&m);
    let r = m.alloc(0x2000, P, MODULES_VADDR, MODULES_END, &mut NoObserver);
    match r {
        Err(e @ VmapError::BusyOverlap { start, other, .. }) => {
            assert_eq!(start, MODULES_VADDR);
            assert_eq!(other, (MODULES_VADDR, MODULES_VADDR + 0x3000));
            assert!(!e.is_kernel_bug(), "a warning, not a crash");
            assert!(e.to_string().contains("WARNING in alloc_vmap_area"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(m.counters.overlap_warnings, 1);
    // The switch ran (seeding), but the refused allocation changed nothing after it.
    let mut m2 = m.clone();
    m2.counters = m.counters;
    assert_eq!(fingerprint(&m), fingerprint(&m2));
    assert_ne!(before, "");
    m.check().unwrap();
    // An early area inside the vmalloc window is covered by the seed: no overlap there.
    let mut m = MapleRfc::new();
    m.set_bump(false);
    let a = m.alloc_early(0x3000, P, VMALLOC_START, VMALLOC_END).unwrap();
    let b = m.alloc(0x3000, P, VMALLOC_START, VMALLOC_END, &mut NoObserver).unwrap();
    assert_eq!((a, b), (VMALLOC_START, VMALLOC_START + 0x3000));
    assert_eq!(
        occupied(&m),
        vec![(VMALLOC_START, VMALLOC_START + 0x2fff), (VMALLOC_START + 0x3000, VMALLOC_START + 0x5fff)]
    );
    assert!(m.alloc_early(P, 1, VMALLOC_START, VMALLOC_END).is_err(), "after the switch");
    m.check().unwrap();
}

/// The seed of §11.2.3: the complement of the free tree inside [VMALLOC_START, VMALLOC_END).
#[test]
fn seeding_is_the_complement_of_the_free_tree() {
    let mut m = MapleRfc::new();
    m.ensure_perf();
    assert!(occupied(&m).is_empty(), "empty vmlist, whole space free: nothing seeded");
    let mut m = MapleRfc::new();
    let lo = VMALLOC_START + 0x10_0000;
    m.init(lo, lo + 0x100_0000).unwrap();
    m.ensure_perf();
    assert_eq!(occupied(&m), vec![(VMALLOC_START, lo - 1), (lo + 0x100_0000, VMALLOC_END - 1)]);
    m.check().unwrap();
}

/// pcpu against the stale free tree: the free tree still offers what the hot path took.
#[test]
fn pcpu_stale_free_tree_overlap() {
    let mut m = MapleRfc::new();
    m.set_bump(false);
    // Fill the top of the window through the hot path (the free tree does not see it).
    let top = VMALLOC_END - 0xfff; // highest page start of the window
    let size = 0x10_0000;
    let a = m.alloc(size, P, top - size, VMALLOC_END, &mut NoObserver).unwrap();
    assert_eq!(a, top - size);
    let before = fingerprint(&m);
    let r = m.pcpu_get_vm_areas(&[0], &[0x8000], P, &mut NoObserver);
    assert!(matches!(r, Err(VmapError::StaleFreeOverlap { .. })), "{r:?}");
    assert!(r.unwrap_err().to_string().contains("stale free tree overlap"));
    assert_eq!(before, fingerprint(&m));
    m.check().unwrap();
    // Without anything at the top, pcpu carves from the top and the occupied tree learns it.
    let mut m = MapleRfc::new();
    let got = m.pcpu_get_vm_areas(&[0, 0x20_0000], &[0x8000, 0x8000], P, &mut NoObserver).unwrap();
    assert_eq!(got[1] + 0x8000, (VMALLOC_END & !(P - 1)));
    m.check().unwrap();
    let b = m.alloc(P, 1, got[0], got[0] + 0x10_0000, &mut NoObserver).unwrap();
    assert_eq!(b, got[0] + 0x8000);
}

/// The trace lines of the profile: `bump on|off`, `early`, `dump`, `busy`; typed errors naming
/// the line elsewhere.
#[test]
fn trace_lines_of_the_profile() {
    use vmapviz_core::trace::parse_line;
    use vmapviz_core::{parse_trace, Op, Replayer};
    assert_eq!(parse_line("bump on").unwrap(), Some(Op::Bump(true)));
    assert_eq!(parse_line("bump off").unwrap(), Some(Op::Bump(false)));
    assert!(parse_line("bump maybe").unwrap_err().contains("`on` or `off`"));
    assert!(parse_line("bump").is_err());
    assert!(parse_line("early 0x1000 0x1 0x0").unwrap_err().contains("usage `early SIZE ALIGN VSTART VEND`"));
    assert_eq!(parse_line("profile maple-rfc").unwrap(), Some(Op::Profile(Profile::MapleRfc)));
    // Text round trip.
    for l in ["bump on", "bump off", "early 0x3000 0x1000 0xffffffffa0000000 0xffffffffff000000"] {
        assert_eq!(parse_line(l).unwrap().unwrap().to_string(), l);
    }
    let run = |text: &str| {
        let lines = parse_trace(text).unwrap();
        let mut r = Replayer::default();
        let mut out = String::new();
        let res = r.run(&lines, &mut out, &mut NoObserver);
        (out, res)
    };
    // `bump` under another profile: a typed error naming the line, nothing printed for it.
    let (_, res) = run("profile linux-6.9\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\nbump off\n");
    let e = res.unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.msg.contains("maple-rfc line"), "{e}");
    // `early` after the switch.
    let (_, res) = run(
        "profile maple-rfc\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\nearly 0x1000 0x1 0x0 0x10000\n",
    );
    assert_eq!(res.unwrap_err().line, 3);
    // S5 as a trace: the early area, then the overlap warning answered FAIL; the replay goes on.
    let (out, res) = run("profile maple-rfc\nearly 0x3000 0x1000 0xffffffffa0000000 0xffffffffff000000\n\
         alloc 0x2000 0x1000 0xffffffffa0000000 0xffffffffff000000\nbusy\ndump\n");
    res.unwrap();
    assert!(
        out.starts_with(
            "early -> 0xffffffffa0000000\nalloc -> FAIL\nnode 0\nbusy 0xffffffffa0000000 0xffffffffa0003000\nend\n"
        ),
        "{out}"
    );
    assert!(out.ends_with("dump height=0 nodes=0\nroot NULL\nenddump\n"), "{out}");
    // Bump chunks in `busy`, the occupied tree in `dump`.
    let (out, res) = run("profile maple-rfc\nalloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\nbusy\ndump\n");
    res.unwrap();
    assert_eq!(
        out,
        "alloc -> 0xffffc90000000000\nnode 0\n\
         chunk 0xffffc90000000000 0xffffc90004000000 bump=0xffffc90000002000 pages=2 cpu=0 current\n\
         bump 0xffffc90000000000 0xffffc90000002000\nend\n\
         dump height=1 nodes=1\nnode 0 leaf min=0x0 max=0xffffffffffffffff end=2 | 0:0xffffc8ffffffffff:N 1:0xffffc90003ffffff:E 2:0xffffffffffffffff:N\nenddump\n"
    );
}

/// Every workload replays under maple-rfc (1 and 4 CPUs) with the invariants after each
/// operation; S4 shows a release before the purge, S5 the overlap warning.
#[test]
fn workloads_replay_under_maple_rfc_with_invariants() {
    use vmapviz_core::check::check_invariants;
    use vmapviz_core::workload::{generate, list, WorkloadParams};
    use vmapviz_core::Replayer;
    for w in list() {
        assert!(!w.description.contains("  "), "{}: {}", w.name, w.description);
        for cpus in [1, 4] {
            let p =
                WorkloadParams { profile: Profile::MapleRfc, loops: 30, cpus, keep: Some(40), ..Default::default() };
            let ops = generate(w.name, &p).unwrap();
            let mut r = Replayer::new(Profile::MapleRfc);
            let mut out = String::new();
            for op in &ops {
                r.apply(op, &mut out, &mut NoObserver).unwrap_or_else(|e| panic!("{} {op}: {e}", w.name));
                check_invariants(&r.vmap).unwrap_or_else(|e| panic!("{} cpus {cpus} {op}: {e}", w.name));
            }
            assert!(!out.contains(" unknown"), "{}: {out}", w.name);
            let m = r.vmap.rfc().unwrap();
            match w.name {
                "rfc_s4_bump_overlay" => {
                    assert_eq!(m.counters.released_before_flush, 1, "{out}");
                    assert!(out.contains(" retired\n"), "{out}");
                }
                // The scenario runs on two vmap nodes at least: the first module allocation trips
                // the check, the second starts in node 1's zone and its check misses the early
                // area node 0 keeps.
                "rfc_s5_syzbot_overlap" => {
                    assert_eq!(m.counters.overlap_warnings, 1, "{out}");
                    assert_eq!(m.counters.overlaps_missed, 1, "{out}");
                    assert!(out.contains("alloc -> FAIL\nalloc -> 0xffffffffa0010000\n"), "{out}");
                }
                // The reclaim decays the pools whole, with one vmap node or several (a plain purge
                // would pool these areas when there are several: they would stay occupied).
                "rfc_s3_free_space_without_objects" => {
                    // 48 ranges over 4 leaves; after the reclaim the run is one NULL slot and a leaf is gone.
                    let dumps: Vec<&str> = out.lines().filter(|l| l.starts_with("dump ")).collect();
                    assert_eq!(
                        dumps,
                        ["dump height=2 nodes=5", "dump height=2 nodes=5", "dump height=2 nodes=4"],
                        "{out}"
                    );
                    assert!(out.contains(":0x28000\n") || out.contains(":0x28000 "), "{out}");
                }
                "rfc_s2_alignment_padding" => {
                    assert!(out.contains("alloc -> 0xffffc90000040000\nalloc -> FAIL\n"), "{out}")
                }
                _ => {}
            }
        }
    }
}
