//! `Session`: all-or-nothing loading, checkpoints (`replayer_before`), frames and truncation,
//! checked against fresh replays of the same trace.

use vmapviz_core::check::check_invariants;
use vmapviz_core::replay::{dump_busy, dump_free_tree, dump_pools};
use vmapviz_core::session::{snapshot_state, StateSnap};
use vmapviz_core::trace::{format_trace, parse_trace};
use vmapviz_core::vmalloc::{VMALLOC_END, VMALLOC_START};
use vmapviz_core::{NoObserver, Op, Profile, Replayer, Session, TraceLine};

/// The eras this suite covers (the tree-based allocators).
const PROFILES: [Profile; 3] = [Profile::Linux52, Profile::Linux61, Profile::Linux69];

/// xorshift64*: deterministic pseudo-random numbers.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random but valid trace of `n` operations for `p` (the first line is the profile).
fn random_trace(p: Profile, n: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut ops = vec![Op::Profile(p)];
    let (start, end, vstart, vend) = if p == Profile::Linux69 {
        ops.push(Op::Cpus(4));
        (VMALLOC_START - 0x40000, VMALLOC_START + 0x200000, VMALLOC_START, VMALLOC_END)
    } else {
        (0x100000, 0x300000, 0x100000, 0x300000)
    };
    ops.push(Op::Init { start, end });
    // Simulate to know which addresses are live (the allocator under test is fine for that:
    // this file tests the session, not the allocator).
    let mut r = Replayer::new(p);
    let mut live: Vec<u64> = Vec::new();
    let mut sink = String::new();
    for op in &ops {
        r.apply(op, &mut sink, &mut NoObserver).unwrap();
    }
    while ops.len() < n {
        let roll = rng.below(100);
        let op = if roll < 45 || live.is_empty() {
            let size = (1 + rng.below(8)) << 12;
            let align = 1u64 << [0, 12, 12, 13, 14, 16][rng.below(6) as usize];
            let (vs, ve) = if rng.below(4) == 0 { (start, end) } else { (vstart, vend) };
            Op::Alloc { size, align, vstart: vs, vend: ve }
        } else if roll < 65 {
            Op::Free(live.swap_remove(rng.below(live.len() as u64) as usize))
        } else if roll < 85 {
            Op::Vfree(live.swap_remove(rng.below(live.len() as u64) as usize))
        } else if roll < 88 {
            Op::Purge
        } else if roll < 91 {
            Op::Dump
        } else if roll < 93 {
            Op::Busy
        } else if roll < 95 && p == Profile::Linux69 {
            Op::Cpu(rng.below(4))
        } else if roll < 97 && p == Profile::Linux69 {
            Op::Reclaim
        } else if roll < 98 && p == Profile::Linux69 {
            Op::Pools
        } else {
            // An unknown address: a warning, not a crash.
            Op::Free(start + (rng.below(0x100) << 12) + 0x800)
        };
        sink.clear();
        r.apply(&op, &mut sink, &mut NoObserver).unwrap();
        if let Some(a) = sink.strip_prefix("alloc -> 0x") {
            live.push(u64::from_str_radix(a.trim(), 16).unwrap());
        }
        ops.push(op);
    }
    format_trace(&ops)
}

/// Everything observable about a replayer's allocator.
#[derive(Debug, PartialEq)]
struct Observed {
    snap: StateSnap,
    text: String,
}

fn observe(r: &Replayer) -> Observed {
    let mut text = String::new();
    dump_free_tree(&r.vmap, &mut text);
    dump_busy(&r.vmap, &mut text);
    dump_pools(&r.vmap, &mut text);
    text += &format!("lazy_nr={} lazy_list={:?}", r.vmap.vmap_lazy_nr(), r.vmap.lazy_list().len());
    Observed { snap: snapshot_state(&r.vmap), text }
}

/// A fresh replay of the first `k` operations.
fn fresh(lines: &[TraceLine], k: usize) -> (Replayer, String) {
    let mut r = Replayer::default();
    let mut out = String::new();
    r.run(&lines[..k], &mut out, &mut NoObserver).unwrap();
    (r, out)
}

/// What `replayer_before(k)` must equal: a fresh replay of the first `k` ops, except that a
/// leading `profile` line also defines the state before op 0 (the session's initial state).
fn expected_before(lines: &[TraceLine], k: usize) -> Replayer {
    let k = if k == 0 && matches!(lines.first().map(|l| &l.op), Some(Op::Profile(_))) { 1 } else { k };
    fresh(lines, k).0
}

/// Operation indices to probe: both sides of every checkpoint boundary, plus a few others.
fn probes(len: usize) -> Vec<usize> {
    let mut ks = vec![0, 1, 2, 100, 255, 256, 257, 300, 511, 512, 513, 600, len - 2, len - 1, len];
    ks.retain(|&k| k <= len);
    ks.dedup();
    ks
}

const LEN: usize = 700;

#[test]
fn load_replays_the_whole_trace() {
    for (i, p) in PROFILES.into_iter().enumerate() {
        let text = random_trace(p, LEN, 0x5eed + i as u64);
        let lines = parse_trace(&text).unwrap();
        let s = Session::load(&text).unwrap();
        assert_eq!(s.len(), LEN);
        assert_eq!(s.ops(), &lines[..]);
        let (r, out) = fresh(&lines, lines.len());
        assert_eq!(s.output(), out, "{p}");
        assert_eq!(observe(s.current()), observe(&r), "{p}");
        // Each op's output is its slice of the whole output.
        let joined: String = (0..s.len()).map(|k| s.op_output(k)).collect();
        assert_eq!(joined, out);
        // The trace text round-trips.
        assert_eq!(
            parse_trace(&s.trace_text()).unwrap().iter().map(|l| &l.op).collect::<Vec<_>>(),
            lines.iter().map(|l| &l.op).collect::<Vec<_>>()
        );
    }
}

#[test]
fn replayer_before_matches_a_fresh_replay_across_checkpoints() {
    for (i, p) in PROFILES.into_iter().enumerate() {
        let text = random_trace(p, LEN, 0xc0ffee + i as u64);
        let lines = parse_trace(&text).unwrap();
        let s = Session::load(&text).unwrap();
        for k in probes(LEN) {
            let r = expected_before(&lines, k);
            let before = s.replayer_before(k);
            assert_eq!(observe(&before), observe(&r), "{p}: replayer_before({k})");
            check_invariants(&before.vmap).unwrap();
            assert_eq!(s.state_before(k), snapshot_state(&r.vmap), "{p}: state_before({k})");
        }
        // Past the end: the current state.
        assert_eq!(observe(&s.replayer_before(LEN + 10)), observe(s.current()));
    }
}

#[test]
fn frames_replay_one_operation_consistently() {
    for (i, p) in PROFILES.into_iter().enumerate() {
        let text = random_trace(p, LEN, 0xf4a3e5 + i as u64);
        let s = Session::load(&text).unwrap();
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            assert_eq!(f.index, k);
            assert_eq!(f.line, s.ops()[k].line);
            assert_eq!(f.output, s.op_output(k), "{p}: op {k}");
            assert_eq!(f.before, s.state_before(k), "{p}: op {k}");
            let after = s.state_before(k + 1);
            assert_eq!(f.after, after, "{p}: op {k}");
            // The tree snapshots: the first is the tree before; frame indices point into them
            // and never go back.
            assert!(!f.trees.is_empty());
            assert_eq!(f.trees[0], f.before.index, "{p}: op {k}");
            let mut last = 0;
            for fr in &f.frames {
                assert!(fr.tree < f.trees.len() && fr.tree >= last, "{p}: op {k}");
                last = fr.tree;
            }
        }
        assert!(s.frames(s.len()).is_none());
    }
}

/// The frames of op `k` are a player's animation of it: the last tree shown must be the tree
/// after the operation.
fn last_tree_is_the_tree_after(s: &Session, ops: std::ops::Range<usize>) -> Vec<String> {
    let mut bad = Vec::new();
    for k in ops {
        let f = s.frames(k).unwrap();
        if f.trees.last() != Some(&s.state_before(k + 1).index) {
            bad.push(format!("op {k} `{}`", s.ops()[k].op));
        }
    }
    bad
}

#[test]
fn frames_end_on_the_tree_after_the_operation_when_no_node_is_erased() {
    // Allocations by LE/NE fits and frees that insert or merge with one neighbour never erase
    // a free-tree node without a later tree-changing event.
    let text = "profile linux-6.1\ninit 0x1000 0x100000\nalloc 0x1000 1 0x1000 0x100000\n\
                alloc 0x1000 1 0x1000 0x100000\nalloc 0x1000 1 0x1000 0x100000\nfree 0x2000\n\
                alloc 0x2000 0x4000 0x1000 0x100000\nfree 0x1000\nfree 0x3000\nfree 0x4000\n";
    let s = Session::load(text).unwrap();
    // From op 2 on (op 1, `init`, is the subject of frames_end_on_the_tree_after_init).
    assert_eq!(last_tree_is_the_tree_after(&s, 2..s.len()), Vec::<String>::new());
}

#[test]
fn frames_end_on_the_tree_after_an_fl_fit() {
    // The free tree is [0x4000,0x10000) with the red leaf [0x2000,0x3000). The next page takes
    // the leaf whole (FL): `unlink_va` reports `Erase` *before* erasing, the erase of a red leaf
    // makes no rotation or recolouring, and the propagation from the parent stops at once
    // (`PropagateStop` does not snapshot). So the last snapshot still holds the leaf.
    let text = "init 0x1000 0x10000\nalloc 0x1000 1 0x1000 0x10000\nalloc 0x1000 1 0x1000 0x10000\n\
                alloc 0x1000 1 0x1000 0x10000\nfree 0x2000\nalloc 0x1000 1 0x1000 0x10000\n";
    let s = Session::load(text).unwrap();
    let k = s.len() - 1;
    let f = s.frames(k).unwrap();
    let after = s.state_before(k + 1).index;
    assert_eq!(after.free_nodes().len(), 1);
    assert_eq!(f.trees.last(), Some(&after), "the animation ends on a tree that still holds the FL block");
}

#[test]

fn frames_end_on_the_tree_after_init() {
    let s = Session::load("alloc 0x1000 1 0 0x10000\ninit 0x1000 0x10000\n").unwrap();
    let f = s.frames(1).unwrap();
    assert_eq!(f.after.index.free_nodes().len(), 1);
    assert_eq!(f.trees.last(), Some(&f.after.index), "the animation of `init` ends on the tree before it");
}

#[test]
fn frames_end_on_the_tree_after_every_operation() {
    for (i, p) in PROFILES.into_iter().enumerate() {
        let s = Session::load(&random_trace(p, LEN, 0xf4a3e5 + i as u64)).unwrap();
        let bad = last_tree_is_the_tree_after(&s, 0..s.len());
        assert!(bad.is_empty(), "{p}: {} ops end on a stale tree, first: {}", bad.len(), bad[0]);
    }
}

#[test]
fn truncate_then_replay_the_rest() {
    for (i, p) in PROFILES.into_iter().enumerate() {
        let text = random_trace(p, LEN, 0x7e57 + i as u64);
        let full = Session::load(&text).unwrap();
        let lines = parse_trace(&text).unwrap();
        for k in probes(LEN) {
            let mut s = full.clone();
            s.truncate(k);
            assert_eq!(s.len(), k, "{p}: truncate({k})");
            let (_, out) = fresh(&lines, k);
            assert_eq!(s.output(), out, "{p}: truncate({k})");
            assert_eq!(observe(s.current()), observe(&expected_before(&lines, k)), "{p}: truncate({k})");
            // Checkpoints still work below k.
            for j in [0, k / 2, k.saturating_sub(1)] {
                assert_eq!(observe(&s.replayer_before(j)), observe(&expected_before(&lines, j)), "{p}: {k} {j}");
            }
            // Push the rest back: the same session as before.
            for l in &lines[k..] {
                s.push_line(l.clone()).unwrap();
            }
            assert_eq!(s.output(), full.output(), "{p}: truncate({k}) + push");
            assert_eq!(observe(s.current()), observe(full.current()));
            for j in probes(LEN) {
                assert_eq!(s.state_before(j), full.state_before(j), "{p}: {k} {j}");
            }
        }
        // Truncating at or past the end changes nothing.
        let mut s = full.clone();
        s.truncate(LEN + 3);
        assert_eq!(s.len(), LEN);
        assert_eq!(s.output(), full.output());
    }
}

#[test]
fn truncate_to_zero_keeps_the_profile_of_the_empty_session() {
    let mut s = Session::load("profile linux-6.1\nalloc 0x1000 1 0 0x10000\n").unwrap();
    s.truncate(0);
    assert!(s.is_empty());
    assert_eq!(s.output(), "");
    // Replaying from scratch works again, with a profile line first.
    s.push_text("profile linux-6.1").unwrap();
    s.push_text("alloc 0x1000 1 0 0x10000").unwrap();
    assert_eq!(s.output(), "alloc -> 0x1\n");
    assert_eq!(s.current().vmap.profile(), Profile::Linux61);
}

#[test]
fn load_is_all_or_nothing() {
    // A parse error anywhere: nothing loads, and the line is reported.
    let e = Session::load("alloc 0x1000 1 0 0x10000\nalloc 0x1000 1 0 0x10000\nfoo\n").unwrap_err();
    assert_eq!(e.line, 3);
    assert!(e.to_string().starts_with("line 3: "));
    // A kernel crash (5.2 BUG_ON) on line 4 after valid lines: nothing loads either.
    let e =
        Session::load("# x\nalloc 0x1000 1 0 0x10000\nalloc 0x1000 1 0 0x10000\nalloc 0 1 0 0x10000\n").unwrap_err();
    assert_eq!(e.line, 4);
    // The same request under 6.1 is a warning: the session loads with `alloc -> FAIL`.
    let s = Session::load("profile linux-6.1\nalloc 0x1000 1 0 0x10000\nalloc 0 1 0 0x10000\n").unwrap();
    assert_eq!(s.output(), "alloc -> 0x1\nalloc -> FAIL\n");
    assert!(s.summary(2).warning.is_some());
    assert!(s.summary(1).warning.is_none());
    // Setting errors stop the load too.
    assert_eq!(Session::load("cpus 2\ncpu 2\n").unwrap_err().line, 2);
    assert_eq!(Session::load("init 0x2000 0x1000\n").unwrap_err().line, 1);
}

#[test]
fn a_failed_push_changes_nothing() {
    let text = random_trace(Profile::Linux52, 300, 42);
    let mut s = Session::load(&text).unwrap();
    let (len, out, cur) = (s.len(), s.output().to_string(), observe(s.current()));
    let before_200 = s.state_before(200);
    for bad in [
        "alloc 0 1 0 0x1000",
        "alloc 0x1000 3 0 0x1000",
        "cpus 0",
        "cpu 7",
        "init 5 5",
        "frobnicate",
        "",
        "profile linux-6.1",
    ] {
        assert!(s.push_text(bad).is_err(), "{bad}");
        assert_eq!((s.len(), s.output()), (len, out.as_str()), "{bad}");
        assert_eq!(observe(s.current()), cur, "{bad}");
        assert_eq!(s.state_before(200), before_200);
    }
    // And a good push still works afterwards, with the next line number.
    s.push_text("dump").unwrap();
    assert_eq!(s.len(), len + 1);
    assert_eq!(s.ops()[len].line, s.ops()[len - 1].line + 1);
}

#[test]
fn a_failed_push_at_a_checkpoint_boundary_changes_nothing() {
    // 256 ops: the next push is op 256, where a checkpoint is taken.
    let text = random_trace(Profile::Linux61, 256, 7);
    let lines = parse_trace(&text).unwrap();
    let mut s = Session::load(&text).unwrap();
    assert_eq!(s.len(), 256);
    assert!(s.push_text("cpus 0").is_err());
    assert!(s.push_text("profile linux-5.2").is_err());
    assert_eq!(s.len(), 256);
    assert_eq!(observe(&s.replayer_before(256)), observe(&fresh(&lines, 256).0));
    // Then two good pushes: the states before them are the fresh replays.
    s.push_text("alloc 0x3000 1 0x100000 0x300000").unwrap();
    s.push_text("purge").unwrap();
    let lines = parse_trace(&s.trace_text()).unwrap();
    for k in [255, 256, 257, 258] {
        assert_eq!(observe(&s.replayer_before(k)), observe(&fresh(&lines, k).0), "replayer_before({k})");
    }
}

/// A session built with a small checkpoint spacing (and one with a spacing larger than the
/// trace) gives, before every operation and after truncations, the states of a fresh replay.
#[test]
fn any_checkpoint_spacing_gives_the_same_states() {
    let p = Profile::Linux61;
    let text = random_trace(p, 120, 0xc4ec);
    let lines = parse_trace(&text).unwrap();
    for every in [0, 1, 7, 1000] {
        let mut s = Session::with_checkpoint_every(Profile::default(), every);
        for l in &lines {
            s.push_line(l.clone()).unwrap();
        }
        for k in 0..=lines.len() {
            assert_eq!(
                observe(&s.replayer_before(k)),
                observe(&expected_before(&lines, k)),
                "spacing {every}, before op {k}"
            );
        }
        s.truncate(50);
        assert_eq!(s.len(), 50);
        assert_eq!(observe(s.current()), observe(&expected_before(&lines, 50)), "spacing {every}");
        assert_eq!(observe(&s.replayer_before(13)), observe(&expected_before(&lines, 13)), "spacing {every}");
    }
    assert_eq!(Session::spacing_for(10), 256);
    assert_eq!(Session::spacing_for(1 << 20), 4096);
}

/// `Session::counters` over a range starts from the checkpointed state: split anywhere, the
/// two halves' operations are the whole range's, and the totals add up.
#[test]
fn counters_of_a_range_match_the_whole_replay() {
    use vmapviz_core::counters::CounterObserver;
    let p = Profile::Linux52;
    let text = random_trace(p, 600, 0xc0de);
    let lines = parse_trace(&text).unwrap();
    let s = Session::load(&text).unwrap();
    // A fresh replay with the counting observer, op by op.
    let mut r = Replayer::default();
    let mut c = CounterObserver::default();
    let mut sink = String::new();
    let mut expected = Vec::new();
    for l in &lines {
        r.apply(&l.op, &mut sink, &mut c).unwrap();
        expected.push(c.end_op());
    }
    let (all, total) = s.counters(0, s.len());
    assert_eq!(all, expected);
    assert_eq!(total, c.total);
    assert!(total.ops == 600 && total.nodes_visited.0 > 0, "{total:?}");
    for split in [1, 255, 256, 257, 599] {
        let (a, _) = s.counters(0, split);
        let (b, _) = s.counters(split, usize::MAX);
        assert_eq!([a, b].concat(), expected, "split at {split}");
    }
    assert_eq!(s.counters(700, 800).0.len(), 0);
}

/// `Session::marks` says of each operation what its events say: an NE clip, a merge, a rotation.
#[test]
fn marks_match_the_events_of_each_operation() {
    use vmapviz_core::events::FitType;
    use vmapviz_core::session::{MARK_MERGE, MARK_ROTATE, MARK_SPLIT};
    use vmapviz_core::Event;
    for (i, p) in PROFILES.into_iter().enumerate() {
        let text = random_trace(p, 600, 0x3a7c + i as u64);
        let s = Session::load(&text).unwrap();
        let marks = s.marks(0, s.len());
        assert_eq!(marks.len(), s.len());
        let mut seen = 0;
        for (k, &m) in marks.iter().enumerate() {
            let mut want = 0;
            for f in s.frames(k).unwrap().frames {
                want |= match f.event {
                    Event::Clip { fit: FitType::NeFit, .. } => MARK_SPLIT,
                    Event::Merge { .. } => MARK_MERGE,
                    Event::Rotate { .. } => MARK_ROTATE,
                    _ => 0,
                };
            }
            assert_eq!(m, want, "{p}: op {k}");
            seen |= m;
        }
        assert_eq!(seen, MARK_SPLIT | MARK_MERGE | MARK_ROTATE, "{p}: the trace has all three");
        // A range starts from its checkpoint and gives the same bytes.
        assert_eq!(s.marks(255, 300), marks[255..300].to_vec());
        assert!(s.marks(600, 900).is_empty());
    }
}

/// The state's lazy areas name the node whose lazy list holds them, as the `busy` listing
/// (the conformance format, per node) prints them; before 6.9 they are all on node 0.
#[test]
fn lazy_areas_carry_their_node() {
    for (i, p) in PROFILES.into_iter().enumerate() {
        let text = random_trace(p, 300, 0x1a2e + i as u64);
        let s = Session::load(&text).unwrap();
        let mut on_other_nodes = 0;
        for k in (0..=s.len()).step_by(7) {
            let r = s.replayer_before(k);
            let mut listing = String::new();
            dump_busy(&r.vmap, &mut listing);
            let (mut node, mut want) = (0u32, Vec::new());
            for l in listing.lines() {
                let w: Vec<&str> = l.split_whitespace().collect();
                match w.as_slice() {
                    ["node", n] => node = n.parse().unwrap(),
                    ["lazy", a, b] => want.push((node, a.to_string(), b.to_string())),
                    _ => {}
                }
            }
            let got: Vec<(u32, String, String)> = snapshot_state(&r.vmap)
                .lazy
                .iter()
                .map(|l| (l.node, format!("{:#x}", l.va_start), format!("{:#x}", l.va_end)))
                .collect();
            assert_eq!(got, want, "{p}, before op {k}");
            on_other_nodes += got.iter().filter(|l| l.0 != 0).count();
        }
        if p == Profile::Linux69 {
            assert!(on_other_nodes > 0, "the 6.9 trace leaves lazy areas on nodes other than 0");
        }
    }
}

// ---------------------------------------------------------------------------------------
// What a player shows at each micro-step: the causes of augment updates in the kernel's
// order, merges with their range before and after, and the areas in force after each event.

/// The conformance vectors 01-07 and the lazy ones, as sessions.
fn teaching_sessions() -> Vec<(String, Session)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance");
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
    names.sort();
    for p in names.into_iter().filter(|p| p.extension().is_some_and(|x| x == "trace")) {
        let text = std::fs::read_to_string(&p).unwrap();
        out.push((p.file_name().unwrap().to_string_lossy().into_owned(), Session::load(&text).unwrap()));
    }
    for (i, p) in PROFILES.into_iter().enumerate() {
        out.push((format!("random {p:?}"), Session::load(&random_trace(p, 300, 0xabc + i as u64)).unwrap()));
    }
    out
}

/// The id, augmented value and place in the tree of every node of a snapshot.
fn by_id(t: &[vmapviz_core::session::NodeSnap]) -> std::collections::HashMap<u32, &vmapviz_core::session::NodeSnap> {
    t.iter().map(|n| (n.id, n)).collect()
}

#[test]
fn augment_updates_carry_their_cause_in_the_kernels_order() {
    use vmapviz_core::events::{AugmentCause, Event};
    let (mut rotate, mut copy, mut reset) = (0, 0, 0);
    for (name, s) in teaching_sessions() {
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            // The last event that is not an augment update, and the nodes linked so far.
            let mut last: Option<&Event> = None;
            let mut linked = Vec::new();
            let mut erasing = false;
            for (i, fr) in f.frames.iter().enumerate() {
                let at = format!("{name} op {k} frame {i}");
                let tree = by_id(f.trees[fr.tree].free_nodes());
                match &fr.event {
                    Event::AugmentSet { id, old, new, cause, phase, case } => {
                        assert_ne!(old, new, "{at}: an update changes the value");
                        // (In erase case 3 the successor is off the tree, between its two links, when it copies.)
                        if let Some(n) = tree.get(id) {
                            assert_eq!(n.subtree_max_size, *new, "{at}: the snapshot holds the new value");
                        } else {
                            assert_eq!(*cause, AugmentCause::Copy, "{at}: #{id} is in the tree");
                        }
                        match cause {
                            AugmentCause::Rotate => {
                                rotate += 1;
                                // Reported after the rotation it belongs to, as lib/rbtree.c calls it.
                                match last {
                                    Some(Event::Rotate { phase: p, case: c, old_top, new_top, .. }) => {
                                        assert_eq!((Some(*p), Some(*c)), (*phase, *case), "{at}");
                                        assert!(id == old_top || id == new_top, "{at}: a node of the rotation");
                                    }
                                    other => panic!("{at}: a rotate update after {other:?}"),
                                }
                            }
                            AugmentCause::Copy => {
                                copy += 1;
                                assert!(erasing, "{at}: copy belongs to an erase");
                                assert_eq!((*phase, *case), (None, None), "{at}");
                            }
                            AugmentCause::LinkReset => {
                                reset += 1;
                                assert_eq!(*new, 0, "{at}: link_va resets to 0");
                                assert!(linked.contains(id), "{at}: the node just linked");
                            }
                        }
                        continue;
                    }
                    Event::Link { id, .. } => linked.push(*id),
                    Event::Erase { .. } => erasing = true,
                    Event::Unlinked { .. } => erasing = false,
                    Event::Propagate { id, new, .. } => {
                        assert_eq!(tree[id].subtree_max_size, *new, "{at}");
                    }
                    _ => {}
                }
                last = Some(&fr.event);
            }
        }
    }
    assert!(rotate > 20 && copy > 5 && reset > 20, "each cause is seen: rotate {rotate}, copy {copy}, reset {reset}");
}

#[test]
fn merges_report_the_range_before_and_after() {
    use vmapviz_core::events::{Event, MergeKind};
    let mut seen = [0; 3];
    for (name, s) in teaching_sessions() {
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            let mut before = by_id(f.before.index.free_nodes());
            for (i, fr) in f.frames.iter().enumerate() {
                let tree = by_id(f.trees[fr.tree].free_nodes());
                if let Event::Merge { merge, survivor, old_start, old_end, new_start, new_end, .. } = &fr.event {
                    let at = format!("{name} op {k} frame {i}");
                    let was = before[survivor];
                    assert_eq!((was.va_start, was.va_end), (*old_start, *old_end), "{at}: the survivor's range before");
                    let now = tree[survivor];
                    assert_eq!((now.va_start, now.va_end), (*new_start, *new_end), "{at}: and after");
                    assert_ne!((old_start, old_end), (new_start, new_end), "{at}");
                    match merge {
                        MergeKind::Next => {
                            seen[0] += 1;
                            assert!(new_start < old_start && new_end == old_end, "{at}: grows down");
                        }
                        MergeKind::Prev => {
                            seen[1] += 1;
                            assert!(new_start == old_start && new_end > old_end, "{at}: grows up");
                        }
                        MergeKind::Both => {
                            seen[2] += 1;
                            assert!(new_start == old_start && new_end > old_end, "{at}: prev grows up over both");
                        }
                    }
                }
                before = tree;
            }
        }
    }
    assert!(seen.iter().all(|&n| n > 3), "every merge kind is seen: {seen:?}");
}

#[test]
fn each_frame_names_the_areas_in_force_after_its_event() {
    use vmapviz_core::events::Event;
    use vmapviz_core::session::AreasSnap;
    let mut checked = 0;
    for (name, s) in teaching_sessions() {
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            assert_eq!(f.areas[0], AreasSnap::of_state(&f.before), "{name} op {k}: starts on the state before");
            let last = f.frames.last().map_or(0, |fr| fr.areas);
            assert_eq!(f.areas[last], AreasSnap::of_state(&f.after), "{name} op {k}: ends on the state after");
            let mut prev = 0;
            for (i, fr) in f.frames.iter().enumerate() {
                let at = format!("{name} op {k} frame {i}");
                assert!(fr.areas >= prev && fr.areas < f.areas.len(), "{at}");
                prev = fr.areas;
                let a = &f.areas[fr.areas];
                let busy = |id: &u32| a.busy.iter().find(|b| b.id == *id);
                match &fr.event {
                    Event::BusyRemove { id, .. } => {
                        assert!(busy(id).is_none(), "{at}: no longer busy");
                        checked += 1;
                    }
                    Event::BusyInsert { id, .. } => {
                        assert!(busy(id).is_some_and(|b| !b.lazy), "{at}: busy now");
                        checked += 1;
                    }
                    Event::LazyEnqueue { id, va_start, va_end, .. } => {
                        // 6.1 coalesces the purge tree: the range may now be part of a larger entry.
                        let lazy = busy(id).is_some_and(|b| b.lazy)
                            || a.lazy.iter().any(|l| l.va_start.0 <= va_start.0 && va_end.0 <= l.va_end.0);
                        assert!(lazy, "{at}: lazy now");
                        checked += 1;
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(checked > 500, "{checked} area events checked");
}

/// Opening a trace a slice at a time gives the session `Session::load` gives, and the same
/// error for a bad trace, whatever the slice size.
#[test]
fn session_builder_matches_load_in_any_slice_size() {
    use vmapviz_core::session::{Opening, SessionBuilder};
    let mut good = String::from("# header\nprofile linux-6.1\n\n");
    for i in 0..300u64 {
        good.push_str("alloc 0x3000 0x1 0xffffc90000000000 0xffffe8ffffffffff\r\n");
        if i % 4 == 1 {
            good.push_str(&format!("vfree {:#x}\n", VMALLOC_START + (i - 1) * 0x3000));
        }
    }
    good.push_str("dump");
    let bad_parse = good.replace("vfree 0xffffc9000000c000", "vfree 0xzz");
    let bad_replay = format!("{good}\ninit 0x10 0x1\n");
    let late_profile = format!("{good}\nprofile linux-5.2\n");
    for text in [&good, &bad_parse, &bad_replay, &late_profile] {
        let want = Session::load(text);
        for n in [1, 7, 1000] {
            let mut b = SessionBuilder::new(text.clone()).unwrap();
            // Progress only moves forward: within a phase `done` grows, and parsing comes first.
            let mut last = (0u8, 0usize);
            let got = loop {
                match b.advance(n) {
                    Err(e) => break Err(e),
                    Ok(Opening::Done) => break Ok(b.finish().expect("done")),
                    Ok(st @ (Opening::Parsing { done, total } | Opening::Replaying { done, total })) => {
                        assert!(done <= total);
                        let phase = u8::from(matches!(st, Opening::Replaying { .. }));
                        assert!((phase, done) > last || (phase, done) == (1, 0), "progress went back: {st:?}");
                        last = (phase, done);
                    }
                }
            };
            match (&want, &got) {
                (Ok(w), Ok(g)) => {
                    assert_eq!(w.output(), g.output(), "slice {n}");
                    assert_eq!(w.ops(), g.ops(), "slice {n}");
                    assert_eq!(w.len(), 377, "profile + 300 allocs + 75 vfrees + dump");
                }
                (Err(w), Err(g)) => assert_eq!(w, g, "slice {n}"),
                _ => panic!("slice {n}: load gave {:?}, the builder {:?}", want.is_ok(), got.is_ok()),
            }
        }
    }
    assert!(matches!(Session::load(&bad_parse), Err(e) if e.msg.contains("0xzz")));
    assert!(matches!(Session::load(&bad_replay), Err(e) if e.msg.contains("init range")));
}

/// Colours of the free tree at each event, to check what a player shows at each micro-step.
#[derive(Default)]
struct Colours {
    last: std::collections::HashMap<u32, bool>,
    recolours: usize,
    failures: Vec<String>,
}

impl vmapviz_core::Observer for Colours {
    fn event(&mut self, ev: vmapviz_core::Event, index: vmapviz_core::IndexView<'_>) {
        let Some(tv) = index.as_free_tree() else { return };
        let now: std::collections::HashMap<u32, bool> =
            vmapviz_core::session::snapshot_tree(tv).into_iter().map(|n| (n.id, n.black)).collect();
        if let vmapviz_core::Event::Recolor { id, color, .. } = ev {
            self.recolours += 1;
            let black = color == vmapviz_core::events::Color::Black;
            if now.get(&id) != Some(&black) {
                self.failures.push(format!("{ev:?}: the tree shows #{id} as {:?}", now.get(&id)));
            }
            for (other, was) in &self.last {
                if *other != id && now.get(other).is_some_and(|b| b != was) {
                    self.failures.push(format!("{ev:?}: #{other} changed colour too"));
                }
            }
        }
        self.last = now;
    }
}

#[test]
fn a_recolour_step_shows_that_recolour_alone() {
    // A player draws the tree each event carries: a recolour must carry the tree with that
    // recolour done and no other (insert case 1 makes three, each its own micro-step).
    for (i, p) in PROFILES.into_iter().enumerate() {
        let text = random_trace(p, LEN, 0xc0105 + i as u64);
        let lines = parse_trace(&text).unwrap();
        let mut r = Replayer::new(p);
        let mut obs = Colours::default();
        let mut sink = String::new();
        for l in &lines {
            r.apply(&l.op, &mut sink, &mut obs).unwrap();
        }
        assert!(obs.recolours > 100, "{p:?}: only {} recolours", obs.recolours);
        assert!(obs.failures.is_empty(), "{p:?}: {:#?}", &obs.failures[..obs.failures.len().min(5)]);
    }
}
