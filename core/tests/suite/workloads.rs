//! The workload generators: every workload replays, deterministically, with the kernel's sizes;
//! run order, mask, repeat, presets and workers behave as in the module; each teaching scenario
//! shows what it claims.

use vmapviz_core::check::check_invariants;
use vmapviz_core::events::{Event, FitType, IndexView, MergeKind, Observer, RbPhase};
use vmapviz_core::trace::format_trace;
use vmapviz_core::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};
use vmapviz_core::workload::*;
use vmapviz_core::{parse_trace, NoObserver, Op, Profile, Recorder, Replayer, NIL};

fn params(profile: Profile, loops: u64) -> WorkloadParams {
    WorkloadParams { seed: 7, loops, profile, ..Default::default() }
}

/// Replay operations; returns the printed output. Panics on a kernel-bug error or a broken invariant.
fn replay(ops: &[Op]) -> String {
    let mut r = Replayer::default();
    let mut out = String::new();
    for (i, op) in ops.iter().enumerate() {
        r.apply(op, &mut out, &mut NoObserver).unwrap_or_else(|e| panic!("op {i} `{op}`: {e}"));
    }
    check_invariants(&r.vmap).unwrap_or_else(|e| panic!("invariant: {e}"));
    out
}

fn replay_recorded(ops: &[Op]) -> (String, Vec<Vec<Event>>) {
    let mut r = Replayer::default();
    let mut out = String::new();
    let mut evs = Vec::new();
    for op in ops {
        let mut rec = Recorder::default();
        r.apply(op, &mut out, &mut rec).unwrap();
        evs.push(rec.events);
    }
    (out, evs)
}

fn allocs(ops: &[Op]) -> Vec<(u64, u64, u64, u64)> {
    ops.iter()
        .filter_map(|o| match *o {
            Op::Alloc { size, align, vstart, vend } => Some((size, align, vstart, vend)),
            _ => None,
        })
        .collect()
}

fn count(ops: &[Op], f: impl Fn(&Op) -> bool) -> usize {
    ops.iter().filter(|o| f(o)).count()
}

const KERNEL_TESTS: [&str; 13] = [
    "fix_size_alloc_test",
    "full_fit_alloc_test",
    "long_busy_list_alloc_test",
    "random_size_alloc_test",
    "fix_align_alloc_test",
    "random_size_align_alloc_test",
    "align_shift_alloc_test",
    "pcpu_alloc_test",
    "kvfree_rcu_1_arg_vmalloc_test",
    "kvfree_rcu_2_arg_vmalloc_test",
    "vm_map_ram_test",
    "no_block_alloc_test",
    "vrealloc_test",
];

#[test]
fn catalogue_lists_the_module_table_in_order() {
    let l = list();
    for (i, name) in KERNEL_TESTS.iter().enumerate() {
        assert_eq!(l[i].name, *name);
        assert_eq!(l[i].bit, Some(1 << i));
        assert_eq!(l[i].kind, WorkloadKind::KernelTest);
    }
    assert_eq!(l.iter().filter(|w| w.kind == WorkloadKind::Module).count(), 1);
    assert_eq!(l.iter().filter(|w| w.kind == WorkloadKind::Teaching).count(), 6 + 5, "6 scenarios and maple-rfc S1-S5");
    for w in &l {
        assert!(!w.description.is_empty() && !w.description.contains('\n'), "{}", w.name);
    }
    assert!(generate("no_such_test", &WorkloadParams::default()).unwrap_err().contains("unknown workload"));
}

#[test]
fn every_workload_replays_under_every_profile_and_is_deterministic() {
    for w in list() {
        for profile in Profile::ALL {
            let mut p = params(profile, 40);
            p.keep = Some(60);
            p.cpus = 2;
            let a = generate_annotated(w.name, &p).unwrap_or_else(|e| panic!("{} {profile}: {e}", w.name));
            assert!(a.ops.len() > 2, "{} {profile}", w.name);
            assert_eq!(a.ops[0], Op::Profile(profile), "{}: the profile comes first", w.name);
            assert_eq!(a.ops[1], Op::Cpus(2), "{}: then the CPU count", w.name);
            // Text (with notes as comments) parses back to the same operations.
            let back: Vec<Op> = parse_trace(&a.to_text()).unwrap().into_iter().map(|l| l.op).collect();
            assert_eq!(back, a.ops, "{} {profile}: text round trip", w.name);
            let plain: Vec<Op> = parse_trace(&format_trace(&a.ops)).unwrap().into_iter().map(|l| l.op).collect();
            assert_eq!(plain, a.ops);
            let out = replay(&a.ops);
            // Every free names an address the replay knows.
            assert!(!out.contains(" unknown"), "{} {profile}: a free of an unknown area\n{out}", w.name);
            assert_eq!(generate_annotated(w.name, &p).unwrap(), a, "{} {profile}: not deterministic", w.name);
        }
    }
}

#[test]
fn seeds_change_only_the_random_tests() {
    let mut a = params(Profile::Linux61, 200);
    let mut b = a.clone();
    a.seed = 1;
    b.seed = 2;
    for name in ["random_size_alloc_test", "random_size_align_alloc_test"] {
        assert_ne!(generate(name, &a).unwrap(), generate(name, &b).unwrap(), "{name}");
    }
    for name in ["fix_size_alloc_test", "fix_align_alloc_test", "long_busy_list_alloc_test", "vrealloc_test"] {
        assert_eq!(generate(name, &a).unwrap(), generate(name, &b).unwrap(), "{name}");
    }
}

#[test]
fn sizes_follow_vmalloc_with_the_guard_page() {
    // fix_size: 5.2 uses 3 pages, 6.x nr_pages or 1; plus the guard page.
    let ops = generate("fix_size_alloc_test", &params(Profile::Linux52, 10)).unwrap();
    assert!(allocs(&ops).iter().all(|a| *a == (0x4000, 1, VMALLOC_START, VMALLOC_END)));
    let ops = generate("fix_size_alloc_test", &params(Profile::Linux61, 10)).unwrap();
    assert!(allocs(&ops).iter().all(|a| *a == (0x2000, 1, VMALLOC_START, VMALLOC_END)));
    let mut p = params(Profile::Linux61, 10);
    p.nr_pages = Some(7);
    let ops = generate("fix_size_alloc_test", &p).unwrap();
    assert!(allocs(&ops).iter().all(|a| a.0 == 0x8000));
    // A vmalloc of more than 512 pages vmallocs its page array too, and frees it after the area.
    p.nr_pages = Some(1000);
    let ops = generate("fix_size_alloc_test", &p).unwrap();
    let a = allocs(&ops);
    assert_eq!(a[0].0, 1001 * PAGE_SIZE);
    assert_eq!(a[1].0, 2 * PAGE_SIZE + PAGE_SIZE, "8000 bytes of page pointers: 2 pages + guard");
    let v: Vec<&Op> = ops.iter().filter(|o| matches!(o, Op::Vfree(_))).take(2).collect();
    let out = replay(&ops);
    assert!(out.starts_with("alloc -> 0xffffc90000000000\nalloc -> 0xffffc900003e9000\nvfree 0xffffc90000000000 ok\n"));
    assert_eq!(v, [&Op::Vfree(VMALLOC_START), &Op::Vfree(VMALLOC_START + 1001 * PAGE_SIZE)]);

    // long_busy: the array of 15000 pointers is 30 pages (+ guard), then 15000 one-page areas.
    let ops = generate("long_busy_list_alloc_test", &params(Profile::Linux52, 3)).unwrap();
    let a = allocs(&ops);
    assert_eq!(a[0].0, 0x1f000);
    assert_eq!(a.len(), 1 + 15000 + 3 * 2);
    assert!(a[1..15001].iter().all(|x| x.0 == 0x2000));
    assert_eq!(a[15001].0, 101 * PAGE_SIZE);
    assert_eq!(a[15002].0, 2 * PAGE_SIZE);
    assert_eq!(count(&ops, |o| matches!(o, Op::Vfree(_))), a.len(), "everything is freed at the end");

    // fix_align: 5 pages + guard, aligned to THREAD_ALIGN << 1 = 32 KiB.
    let ops = generate("fix_align_alloc_test", &params(Profile::Linux61, 10)).unwrap();
    assert!(allocs(&ops).iter().all(|a| a.0 == 0x6000 && a.1 == 0x8000));

    // random_size_align: sizes 1..=10 pages (+ guard), aligns 1 << 0..=22.
    let ops = generate("random_size_align_alloc_test", &params(Profile::Linux61, 500)).unwrap();
    for a in allocs(&ops) {
        assert!((2 * PAGE_SIZE..=11 * PAGE_SIZE).contains(&a.0) && a.0 % PAGE_SIZE == 0);
        assert!(a.1.is_power_of_two() && a.1 <= 1 << 22);
    }
    // random_size: 1..=100 pages.
    let ops = generate("random_size_alloc_test", &params(Profile::Linux61, 500)).unwrap();
    let sizes: Vec<u64> = allocs(&ops).iter().map(|a| a.0 / PAGE_SIZE - 1).collect();
    assert!(sizes.iter().all(|&n| (1..=100).contains(&n)));
    assert!(sizes.contains(&1) || sizes.contains(&100) || sizes.iter().any(|&n| n > 90));
}

#[test]
fn full_fit_fills_holes_exactly() {
    let mut p = params(Profile::Linux52, 300);
    p.cpus = 1;
    let ops = generate("full_fit_alloc_test", &p).unwrap();
    let a = allocs(&ops);
    // J = fls(1) * 8192: two arrays of J pointers (16 pages + guard), then 2J one-page areas.
    assert_eq!(a[0].0, 17 * PAGE_SIZE);
    assert_eq!(a[1].0, 17 * PAGE_SIZE);
    assert_eq!(a.len(), 2 + 2 * 8192 + 300);
    let (out, evs) = replay_recorded(&ops);
    assert!(!out.contains("FAIL"));
    // The loop's allocations (the last 300) take a 2-page hole whole: FL fits.
    let mut fl = 0;
    let mut loop_allocs = 0;
    let first_loop = ops.iter().position(|o| matches!(o, Op::Vfree(_))).unwrap() + 8192;
    for (i, op) in ops.iter().enumerate().skip(first_loop) {
        if let Op::Alloc { .. } = op {
            loop_allocs += 1;
            if evs[i].iter().any(|e| matches!(e, Event::Fit { fit: FitType::FlFit, .. })) {
                fl += 1;
            }
        }
    }
    assert_eq!(loop_allocs, 300);
    assert!(fl >= 290, "only {fl} of 300 loop allocations were full fits");
    // J follows the CPU count: fls(4) * 8192.
    let mut p4 = params(Profile::Linux61, 1);
    p4.cpus = 4;
    p4.nr_threads = Some(1);
    let a = allocs(&generate("full_fit_alloc_test", &p4).unwrap());
    assert_eq!(a.len(), 2 + 2 * 24576 + 1);
}

#[test]
fn fix_align_makes_no_edge_fits() {
    let ops = generate("fix_align_alloc_test", &params(Profile::Linux61, 50)).unwrap();
    let (_, evs) = replay_recorded(&ops);
    let ne = evs.iter().flatten().filter(|e| matches!(e, Event::Fit { fit: FitType::NeFit, .. })).count();
    assert!(ne >= 1, "no NE fit in fix_align_alloc_test");
}

#[test]
fn align_shift_fails_where_align_wraps() {
    for profile in Profile::ALL {
        let w = generate_annotated("align_shift_alloc_test", &params(profile, 1)).unwrap();
        let out = replay(&w.ops);
        assert_eq!(out.matches("alloc -> FAIL").count(), 1, "{profile}");
        assert!(out.trim_end().ends_with("alloc -> FAIL"), "{profile}: the failure is the last operation");
        // ALIGN(VMALLOC_START, 1 << 46) wraps to 0: the first impossible alignment. maple-rfc
        // fails one step earlier: its window loop searches for size + align - 1 bytes, and with
        // align 1 << 45 that is longer than the whole window (2^45 - 1 bytes).
        let first_fail = if profile == Profile::MapleRfc { 1 << 45 } else { 1 << 46 };
        let last = allocs(&w.ops).pop().unwrap();
        assert_eq!(last, (0x2000, first_fail, VMALLOC_START, VMALLOC_END), "{profile}");
        let note = &w.notes.last().unwrap();
        assert_eq!(note.0, w.ops.len(), "the note follows the failing line");
        assert!(note.1.contains("FAIL (expected)"), "{}", note.1);
        assert!(w.to_text().trim_end().ends_with("the test returns -1"));
    }
}

#[test]
fn pcpu_chunks_come_from_pcpu_get_vm_areas() {
    let mut p = params(Profile::Linux61, 1);
    p.cpus = 2;
    p.nr_threads = Some(1);
    let ops = generate("pcpu_alloc_test", &p).unwrap();
    let chunks: Vec<&Op> = ops.iter().filter(|o| matches!(o, Op::Pcpu { .. })).collect();
    // 35000 objects of about 700 bytes with padding: a dozen 2 MiB units.
    assert!((8..=20).contains(&chunks.len()), "{} chunks", chunks.len());
    for c in &chunks {
        assert_eq!(**c, Op::Pcpu { align: PMD_SIZE, areas: vec![(0, 2 * PCPU_UNIT_SIZE)] });
    }
    // The pointer array: 35000 * 8 bytes = 69 pages, plus guard.
    assert_eq!(allocs(&ops)[0].0, 70 * PAGE_SIZE);
    let out = replay(&ops);
    assert_eq!(out.matches("pcpu -> 0x").count(), chunks.len());
    // Every chunk and the array are freed at the end.
    assert_eq!(count(&ops, |o| matches!(o, Op::Vfree(_))), chunks.len() + 1);
    // The knob: fewer objects, fewer chunks.
    p.keep = Some(100);
    assert_eq!(count(&generate("pcpu_alloc_test", &p).unwrap(), |o| matches!(o, Op::Pcpu { .. })), 1);
}

#[test]
fn kvfree_rcu_defers_frees_by_grace_periods() {
    for name in ["kvfree_rcu_1_arg_vmalloc_test", "kvfree_rcu_2_arg_vmalloc_test"] {
        let mut p = params(Profile::Linux61, 23);
        p.keep = Some(4);
        let ops = generate(name, &p).unwrap();
        let out = replay(&ops);
        let mut held = std::collections::BTreeSet::new();
        let mut most = 0;
        let mut addrs = out.lines().filter_map(|l| l.strip_prefix("alloc -> "));
        for op in &ops {
            match op {
                Op::Alloc { .. } => {
                    held.insert(u64::from_str_radix(&addrs.next().unwrap()[2..], 16).unwrap());
                }
                Op::Vfree(a) => assert!(held.remove(a), "{name}: {a:#x} freed twice or never allocated"),
                _ => {}
            }
            most = most.max(held.len());
        }
        assert!(held.is_empty(), "{name}: everything is freed by the end (rcu_barrier)");
        assert_eq!(most, 8, "{name}: at most two grace periods of 4 outstanding");
        // 0: freed at once, like fix_size.
        p.keep = Some(0);
        let ops = generate(name, &p).unwrap();
        assert!(ops[1..].chunks(2).all(|c| matches!(c, [Op::Alloc { .. }, Op::Vfree(_)])));
    }
}

#[test]
fn vm_map_ram_uses_vmap_blocks() {
    assert_eq!(vmap_block_size(NR_CPUS), 0x400000);
    assert_eq!(vmap_block_size(8192), 256 * PAGE_SIZE);
    assert_eq!(vmap_block_size(1), 1024 * PAGE_SIZE);
    assert_eq!(vmap_block_size(1 << 20), 128 * PAGE_SIZE);
    // One page a map: a 1024-page block serves 1024 loops, then it is fully dirty and freed.
    let ops = generate("vm_map_ram_test", &params(Profile::Linux61, 3000)).unwrap();
    let a = allocs(&ops);
    assert_eq!(a.len(), 3);
    assert!(a.iter().all(|x| *x == (0x400000, 0x400000, VMALLOC_START, VMALLOC_END)));
    assert_eq!(count(&ops, |o| matches!(o, Op::Vfree(_))), 2);
    let out = replay(&ops);
    assert!(out.lines().all(|l| l.ends_with(" ok") || l.starts_with("alloc -> 0x")));
    // 3 pages round up to an order-2 (4 page) piece: 256 maps a block.
    let mut p = params(Profile::Linux61, 1024);
    p.nr_pages = Some(3);
    assert_eq!(allocs(&generate("vm_map_ram_test", &p).unwrap()).len(), 4);
    // Over VMAP_MAX_ALLOC pages: an area of its own, no guard page, align PAGE_SIZE.
    p.nr_pages = Some(100);
    p.loops = 5;
    let ops = generate("vm_map_ram_test", &p).unwrap();
    assert!(allocs(&ops).iter().all(|x| *x == (100 * PAGE_SIZE, PAGE_SIZE, VMALLOC_START, VMALLOC_END)));
    assert_eq!(count(&ops, |o| matches!(o, Op::Vfree(_))), 5);
}

#[test]
fn vrealloc_grows_into_a_new_area() {
    let ops = generate("vrealloc_test", &params(Profile::Linux69, 3)).unwrap();
    let out = replay(&ops);
    let body: Vec<&Op> = ops.iter().filter(|o| o.is_timed()).collect();
    assert_eq!(body.len(), 12);
    for c in body.chunks(4) {
        assert!(matches!(c[0], Op::Alloc { size: 0x2000, .. }));
        assert!(matches!(c[1], Op::Alloc { size: 0x5000, .. }));
        assert!(matches!(c[2], Op::Vfree(_)) && matches!(c[3], Op::Vfree(_)));
    }
    assert!(!out.contains("unknown"));
}

#[test]
fn run_order_is_a_sattolo_cycle() {
    for seed in 0..200 {
        let mut rng = Rng::new(seed);
        let n = 13;
        let order = run_order(n, false, &mut rng);
        let mut seen = vec![false; n];
        let mut i = 0;
        for _ in 0..n {
            assert!(!seen[i]);
            seen[i] = true;
            i = order[i];
        }
        assert_eq!(i, 0, "seed {seed}: {order:?} is not a single cycle");
    }
    assert_eq!(run_order(8, true, &mut Rng::new(1)), (0..8).collect::<Vec<_>>());
}

fn started_tests(w: &Workload) -> Vec<String> {
    w.notes
        .iter()
        .flat_map(|(_, n)| n.lines())
        .filter(|l| l.ends_with("_test") || l.contains("_test (run"))
        .map(String::from)
        .collect()
}

#[test]
fn module_mask_order_and_repeat() {
    let mut p = params(Profile::Linux61, 2);
    p.keep = Some(10);
    p.run_test_mask = Some(0b101);
    p.sequential_test_order = true;
    let w = generate_annotated("test_vmalloc", &p).unwrap();
    assert_eq!(started_tests(&w), ["fix_size_alloc_test", "long_busy_list_alloc_test"]);
    p.test_repeat_count = 2;
    let w = generate_annotated("test_vmalloc", &p).unwrap();
    assert_eq!(
        started_tests(&w),
        [
            "fix_size_alloc_test (run 1 of 2)",
            "fix_size_alloc_test (run 2 of 2)",
            "long_busy_list_alloc_test (run 1 of 2)",
            "long_busy_list_alloc_test (run 2 of 2)"
        ]
    );
    // Default masks: INT_MAX runs the whole table of the era; the newest module runs 3 tests.
    let mut p = params(Profile::Linux52, 2);
    p.keep = Some(10);
    p.sequential_test_order = true;
    let w = generate_annotated("test_vmalloc", &p).unwrap();
    assert_eq!(started_tests(&w), KERNEL_TESTS[..8].to_vec());
    p.profile = Profile::Linux61;
    assert_eq!(started_tests(&generate_annotated("test_vmalloc", &p).unwrap()), KERNEL_TESTS[..10].to_vec());
    p.profile = Profile::Linux69;
    assert_eq!(started_tests(&generate_annotated("test_vmalloc", &p).unwrap()), KERNEL_TESTS[..3].to_vec());
    p.run_test_mask = Some(INT_MAX_MASK);
    assert_eq!(started_tests(&generate_annotated("test_vmalloc", &p).unwrap()), KERNEL_TESTS.to_vec());
    // Shuffled: the same set in another order, which depends on the seed.
    p.sequential_test_order = false;
    let a = started_tests(&generate_annotated("test_vmalloc", &p).unwrap());
    let mut sorted = a.clone();
    sorted.sort();
    let mut all = KERNEL_TESTS.map(String::from).to_vec();
    all.sort();
    assert_eq!(sorted, all);
    assert_ne!(a, KERNEL_TESTS.to_vec());
    p.seed += 1;
    assert_ne!(started_tests(&generate_annotated("test_vmalloc", &p).unwrap()), a);
}

#[test]
fn presets_set_the_script_parameters() {
    let mut p = WorkloadParams { cpus: 8, ..Default::default() };
    Preset::Performance.apply(&mut p);
    assert!(p.sequential_test_order);
    assert_eq!((p.test_repeat_count, p.nr_threads, p.loops), (3, Some(1), DEFAULT_LOOPS));
    let mut p = WorkloadParams { cpus: 8, ..Default::default() };
    Preset::Stress.apply(&mut p);
    assert_eq!((p.test_repeat_count, p.nr_threads), (20, Some(8)));
    let mut p = WorkloadParams { cpus: 8, ..Default::default() };
    Preset::Smoke.apply(&mut p);
    assert_eq!((p.test_repeat_count, p.nr_threads, p.loops), (10, Some(1), 10_000));
    for pr in Preset::ALL {
        assert_eq!(Preset::parse(pr.name()), Some(pr));
    }
    // A smoke run of one test: 10 repeats of 10,000 loops.
    let mut p = params(Profile::Linux61, 0);
    Preset::Smoke.apply(&mut p);
    let ops = generate("fix_size_alloc_test", &p).unwrap();
    assert_eq!(allocs(&ops).len(), 100_000);
}

#[test]
fn workers_interleave_round_robin() {
    // linux-6.9: the CPU picks the vmap node, so each worker's operations follow a `cpu` line.
    let mut p = params(Profile::Linux69, 3);
    p.cpus = 2;
    p.nr_threads = Some(2);
    let ops = generate("fix_size_alloc_test", &p).unwrap();
    assert_eq!(&ops[..2], &[Op::Profile(Profile::Linux69), Op::Cpus(2)]);
    let rest: Vec<String> = ops[2..].iter().map(|o| o.to_string().split(' ').next().unwrap().to_string()).collect();
    assert_eq!(
        rest[..8],
        ["alloc", "cpu", "alloc", "cpu", "vfree", "cpu", "vfree", "cpu"].map(String::from),
        "{rest:?}"
    );
    assert_eq!(count(&ops, |o| *o == Op::Cpu(1)), 6);
    let out = replay(&ops);
    assert_eq!(out.matches("vfree").count(), 6);
    // linux-5.2: one worker per CPU by default, no `cpu` lines.
    let mut p = params(Profile::Linux52, 3);
    p.cpus = 4;
    let ops = generate("fix_size_alloc_test", &p).unwrap();
    assert_eq!(allocs(&ops).len(), 12);
    assert_eq!(count(&ops, |o| matches!(o, Op::Cpu(_))), 0);
    assert!(matches!(&ops[2..6], [Op::Alloc { .. }, Op::Alloc { .. }, Op::Alloc { .. }, Op::Alloc { .. }]));
    replay(&ops);
    // linux-6.1: one worker unless asked.
    let mut p = params(Profile::Linux61, 3);
    p.cpus = 4;
    assert_eq!(allocs(&generate("fix_size_alloc_test", &p).unwrap()).len(), 3);
}

#[test]
fn bad_parameters_are_refused() {
    let mut p = params(Profile::Linux61, 1);
    p.cpus = 0;
    assert!(generate("fix_size_alloc_test", &p).unwrap_err().contains("cpus"));
    let mut p = params(Profile::Linux61, 1);
    p.keep = Some(u64::MAX);
    assert!(generate("long_busy_list_alloc_test", &p).unwrap_err().contains("keep"));
    let mut p = params(Profile::Linux61, 1);
    p.nr_threads = Some(0);
    assert!(generate("fix_size_alloc_test", &p).unwrap_err().contains("threads"));
}

// ----------------------------------------------------------------------
// Teaching scenarios: each shows what its description says.
// ----------------------------------------------------------------------

/// Records each event with the id of the free tree's root at that moment.
#[derive(Default)]
struct RootRec(Vec<(Event, Option<u32>)>);

impl Observer for RootRec {
    fn event(&mut self, ev: Event, t: IndexView<'_>) {
        let root = t.as_free_tree().and_then(|t| (t.root != NIL).then(|| t.arena.area(t.root).id));
        self.0.push((ev, root));
    }
}

/// An event and the root's id when it happened.
type Rooted = (Event, Option<u32>);

/// Replay a teaching scenario; per operation, its events with the root id.
fn teach(name: &str) -> (Vec<Op>, Vec<Vec<Rooted>>, Replayer) {
    let ops = generate(name, &params(Profile::Linux52, 1)).unwrap();
    let mut r = Replayer::default();
    let mut out = String::new();
    let mut all = Vec::new();
    for op in &ops {
        let mut rec = RootRec::default();
        r.apply(op, &mut out, &mut rec).unwrap();
        check_invariants(&r.vmap).unwrap();
        all.push(rec.0);
    }
    assert!(!out.contains("FAIL") && !out.contains("unknown"), "{name}:\n{out}");
    (ops, all, r)
}

fn fits(evs: &[Rooted]) -> Vec<FitType> {
    evs.iter()
        .filter_map(|(e, _)| match e {
            Event::Fit { fit, .. } => Some(*fit),
            _ => None,
        })
        .collect()
}

#[test]
fn teaching_first_allocation_is_an_ne_split() {
    let (ops, evs, _) = teach("first_allocation");
    let a: Vec<usize> = (0..ops.len()).filter(|&i| matches!(ops[i], Op::Alloc { .. })).collect();
    assert_eq!(fits(&evs[a[0]]), [FitType::NeFit]);
    assert!(evs[a[0]]
        .iter()
        .any(|(e, _)| matches!(e, Event::Clip { lva: Some(l), .. } if l.va_start == 1 && l.va_end == VMALLOC_START)));
    assert_eq!(fits(&evs[a[1]]), [FitType::LeFit]);
}

#[test]
fn teaching_fit_types_shows_each_type() {
    let (_, evs, _) = teach("fit_types");
    let all: Vec<FitType> = evs.iter().flat_map(|e| fits(e)).collect();
    assert_eq!(all, [FitType::LeFit, FitType::ReFit, FitType::NeFit, FitType::FlFit]);
}

#[test]
fn teaching_merge_with_both_neighbours() {
    let (ops, evs, r) = teach("merge_both_neighbours");
    let last_free = (0..ops.len()).rev().find(|&i| matches!(ops[i], Op::Free(_))).unwrap();
    assert!(evs[last_free].iter().any(|(e, _)| matches!(e, Event::Merge { merge: MergeKind::Both, .. })));
    assert!(evs[last_free].iter().any(|(e, _)| matches!(e, Event::Erase { .. })), "the tree loses a node");
    let blocks: Vec<(u64, u64)> =
        r.vmap.free_tree().iter(r.vmap.arena()).map(|(_, v)| (v.va_start, v.va_end)).collect();
    assert_eq!(blocks, [(0x100000, 0x103000), (0x104000, 0x200000)]);
}

#[test]
fn teaching_rotation_during_insert() {
    let (ops, evs, _) = teach("rotation_during_insert");
    let last_free = (0..ops.len()).rev().find(|&i| matches!(ops[i], Op::Free(_))).unwrap();
    let rot: Vec<u8> = evs[last_free]
        .iter()
        .filter_map(|(e, _)| match e {
            Event::Rotate { phase: RbPhase::Insert, case, .. } => Some(*case),
            _ => None,
        })
        .collect();
    assert_eq!(rot, [2, 3], "insert case 2 then case 3");
    // Before that free, no rotation at all.
    assert!(!evs[..last_free].iter().flatten().any(|(e, _)| matches!(e, Event::Rotate { .. })));
}

#[test]
fn teaching_propagation_stops_below_the_root() {
    let (ops, evs, _) = teach("propagation_stops_early");
    let last_alloc = (0..ops.len()).rev().find(|&i| matches!(ops[i], Op::Alloc { .. })).unwrap();
    let e = &evs[last_alloc];
    assert_eq!(fits(e), [FitType::LeFit]);
    let changed = e.iter().filter(|(ev, _)| matches!(ev, Event::Propagate { .. })).count();
    assert!(changed >= 1, "the shrunk node's maximum changes");
    let stop = e.iter().find_map(|(ev, root)| match ev {
        Event::PropagateStop { id, .. } => Some((*id, root.unwrap())),
        _ => None,
    });
    let (id, root) = stop.expect("a PropagateStop");
    assert_ne!(id, root, "the walk stops before the root");
}

#[test]
fn teaching_alignment_result_is_not_the_lowest() {
    let ops = generate("alignment_not_lowest", &params(Profile::Linux52, 1)).unwrap();
    for profile in [Profile::Linux52, Profile::Linux61] {
        let mut r = Replayer::new(profile);
        let mut out = String::new();
        let last = (0..ops.len()).rev().find(|&i| matches!(ops[i], Op::Alloc { .. })).unwrap();
        for op in ops[1..last].iter() {
            r.apply(op, &mut out, &mut NoObserver).unwrap();
        }
        let Op::Alloc { size, align, vstart, vend } = ops[last] else { unreachable!() };
        let v = &r.vmap;
        let lin = v.lowest_linear_match(size, align, vstart);
        assert_ne!(lin, NIL);
        let lowest = v.arena().area(lin).va_start.max(vstart).next_multiple_of(align);
        let got = r.vmap.alloc(size, align, vstart, vend, &mut NoObserver).unwrap();
        assert_eq!((lowest, got), (0x0, 0x8000), "{profile}");
        assert!(got > lowest);
    }
}

#[test]
fn params_and_catalogue_as_json_for_the_page() {
    let p: WorkloadParams =
        serde_json::from_str(r#"{"seed": 5, "loops": 100, "cpus": 4, "keep": 20, "profile": "linux-6.1"}"#).unwrap();
    assert_eq!((p.seed, p.loops, p.cpus, p.keep, p.profile), (5, 100, 4, Some(20), Profile::Linux61));
    assert_eq!((p.test_repeat_count, p.nr_threads, p.run_test_mask), (1, None, None), "the rest are defaults");
    let back: WorkloadParams = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
    assert_eq!(back, p);
    assert!(serde_json::from_str::<WorkloadParams>(r#"{"profile": "linux-9"}"#)
        .unwrap_err()
        .to_string()
        .contains("linux-9"));
    let l = serde_json::to_string(&list()).unwrap();
    assert!(
        l.contains(r#"{"name":"fix_size_alloc_test","description":"#) && l.contains(r#""bit":1,"kind":"kernel_test"}"#)
    );
}
