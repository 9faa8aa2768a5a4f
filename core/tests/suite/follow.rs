//! The trace a capture's replay prints (core/src/capture/follow.rs lines: the before file's start state,
//! what was learnt, each allocation with the kernel's answer) replays, on its own and checked
//! after every operation, to the kernel's own addresses and purge counts, and ends with the
//! after file's busy areas. Everything compared here is read from the kernel's files directly.

use std::path::Path;

use vmapviz_core::capture::follow::{Follow, Mark};
use vmapviz_core::capture::{part_text, replay_capture, Bundle, Part, PARTS};
use vmapviz_core::check_inc::IncrementalCheck;
use vmapviz_core::session::{Opening, SessionBuilder};
use vmapviz_core::trace::{format_trace, parse_trace};
use vmapviz_core::{NoObserver, Op, Profile, Replayer, Session};

fn read_part(dir: &Path, name: &str) -> Option<(String, String)> {
    for n in [name.to_string(), format!("{name}.gz")] {
        if let Ok(b) = std::fs::read(dir.join(&n)) {
            return Some((n.clone(), part_text(&n, &b).unwrap()));
        }
    }
    None
}

/// The numbers after `key` on a tracefs line (`va_start: 123`, `num_purged=4`).
fn field(line: &str, key: &str) -> Option<u64> {
    let rest = &line[line.find(key)? + key.len()..];
    let tok = rest.trim_start().split(|c: char| c.is_whitespace()).next()?;
    match tok.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => tok.parse().ok(),
    }
}

fn check_dir(dir: &Path) {
    let parts: Vec<Option<(String, String)>> = PARTS.iter().map(|n| read_part(dir, n)).collect();
    let part = |i: usize| parts[i].as_ref().map(|(n, t)| Part { name: n, text: t });
    let b = Bundle {
        before: part(0).unwrap(),
        trace: part(1).unwrap(),
        after: part(2),
        cpus: part(3).unwrap(),
        uname: part(4),
    };
    let (ops, report) = replay_capture(b, Profile::Linux618).unwrap();

    // The kernel's answers and purges, in trace order, straight from tracefs's lines.
    let trace = &parts[1].as_ref().unwrap().1;
    let mut kernel_addrs = Vec::new();
    let mut kernel_purged = Vec::new();
    for l in trace.lines() {
        if l.contains("alloc_vmap_area:") && l.contains("failed=0") {
            kernel_addrs.push(field(l, "va_start:").unwrap());
        } else if l.contains("purge_vmap_area_lazy:") {
            kernel_purged.push(field(l, "num_purged=").unwrap());
        }
    }

    // The printed trace, parsed back and replayed alone, checked after every operation.
    let text = format_trace(&ops);
    let lines = parse_trace(&text).unwrap();
    assert_eq!(lines.len(), ops.len());
    same_session(dir, ops.clone(), &text);
    let mut r = Replayer::new(Profile::Linux618);
    let mut check = IncrementalCheck::new(4096);
    let mut got_addrs = Vec::new();
    let mut got_purged = Vec::new();
    let mut marked = [0usize; 3];
    let mut untraced = 0;
    for l in &lines {
        let mut out = String::new();
        // A purge part-way: the lines that take it further count with it.
        let pending = r.vmap.purge_stage().is_some();
        r.apply(&l.op, &mut out, &mut check).unwrap_or_else(|e| panic!("line {}: {e}", l.line));
        check.after_op(&r.vmap, &l.op, &out).unwrap_or_else(|e| panic!("{}: line {}: {e}", dir.display(), l.line));
        let follow = match &l.op {
            Op::Follow(f) => Some(&**f),
            _ => None,
        };
        if let Some(Follow::Alloc { mark, .. }) = follow {
            let a = out.trim().strip_prefix("alloc -> 0x").unwrap_or_else(|| panic!("line {}: {out}", l.line));
            // An allocation the trace does not show: none of the kernel's traced ones.
            if *mark == Mark::Untraced {
                untraced += 1;
                continue;
            }
            got_addrs.push(u64::from_str_radix(a, 16).unwrap());
            marked[match mark {
                Mark::Equal => 0,
                Mark::Unexplained => 2,
                _ => 1,
            }] += 1;
        }
        let n = || out.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap();
        if pending && matches!(follow, Some(Follow::Purge { .. } | Follow::PurgeRest { .. })) {
            *got_purged.last_mut().unwrap() += n();
        } else if matches!(l.op, Op::Purge | Op::Reclaim) || matches!(follow, Some(Follow::Purge { .. })) {
            got_purged.push(n());
        }
    }
    check.finish(&r.vmap).unwrap();

    // Every allocation the kernel made, in order, but those the before file already showed.
    let mut k = kernel_addrs.iter();
    for (i, a) in got_addrs.iter().enumerate() {
        assert!(k.any(|x| x == a), "{}: allocation {i} ({a:#x}) is not the kernel's next one", dir.display());
    }
    assert!(kernel_addrs.len() - got_addrs.len() <= report.in_before_file, "{}", dir.display());
    assert_eq!(marked, [report.equal, report.explained, report.unexplained], "{}", dir.display());
    assert_eq!(untraced, report.untraced, "{}", dir.display());
    assert_eq!(got_purged.len(), kernel_purged.len(), "{}", dir.display());
    let equal = got_purged.iter().zip(&kernel_purged).filter(|(a, b)| a == b).count();
    assert_eq!(equal, report.purges_equal, "{}", dir.display());

    // The final busy set is the after file's.
    let after = &parts[2].as_ref().unwrap().1;
    let mut want: Vec<(u64, u64)> = after
        .lines()
        .filter(|l| !l.contains("unpurged vm_area"))
        .filter_map(|l| {
            let (s, e) = l.split_whitespace().next()?.split_once('-')?;
            Some((
                u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()?,
                u64::from_str_radix(e.strip_prefix("0x")?, 16).ok()?,
            ))
        })
        .collect();
    let mut have: Vec<(u64, u64)> =
        r.vmap.busy_areas_all().iter().map(|(i, _, _)| (i.va_start.0, i.va_end.0)).collect();
    want.sort_unstable();
    have.sort_unstable();
    assert_eq!(have, want, "{}", dir.display());
}

/// The session the page opens a capture into, stepped from the replay's operations as its
/// worker steps it (`SessionBuilder::from_ops`: no text printed and parsed again), is the one
/// the printed trace opens into (`Session::load`, parsed and replayed): the same operations at
/// the same lines, outputs, warnings, marks, states and frames; and its text, printed only when
/// asked, is the printed trace. Handed over as bytes, the operations come back as they were.
fn same_session(dir: &Path, ops: Vec<Op>, text: &str) {
    let d = dir.display();
    let want = Session::load(text).unwrap_or_else(|e| panic!("{d}: {e}"));
    let n = ops.len();
    // Up to 20,000 operations the page's worker hands them to the main view as bytes, which
    // opens them as they came (`SessionBuilder::from_bytes`): the same operations, so the same
    // session as the one checked below.
    let bytes = SessionBuilder::from_ops(ops.clone()).to_bytes();
    let handed = SessionBuilder::from_bytes(&bytes).unwrap_or_else(|e| panic!("{d}: {e}"));
    assert!(handed.lines().map(|l| &l.op).eq(ops.iter()), "{d}: the operations from their bytes");
    assert!(handed.lines().map(|l| l.line).eq(1..=n), "{d}: operation i is line i + 1");
    assert_eq!(handed.trace_text(), text, "{d}: from bytes");
    let mut b = SessionBuilder::from_ops(ops);
    assert_eq!(b.status(), Opening::Replaying { done: 0, total: n }, "{d}");
    assert_eq!(b.trace_text(), text, "{d}: before the replay");
    let mut done = 0;
    loop {
        match b.advance(1000).unwrap_or_else(|e| panic!("{d}: {e}")) {
            Opening::Replaying { done: now, total } => {
                assert_eq!((now, total), ((done + 1000).min(n), n), "{d}: progress");
                assert_eq!(b.trace_text(), text, "{d}: part-way ({now})");
                done = now;
            }
            Opening::Done => break,
            o => panic!("{d}: {o:?}"),
        }
    }
    assert_eq!(b.trace_text(), text, "{d}: replayed");
    let got = b.finish().unwrap_or_else(|| panic!("{d}: not done"));
    assert_eq!((got.len(), got.checkpoint_every()), (want.len(), want.checkpoint_every()), "{d}");
    assert_eq!(got.trace_text(), text, "{d}");
    assert_eq!(got.output(), want.output(), "{d}");
    assert_eq!(got.marks(0, n), want.marks(0, n), "{d}");
    for k in 0..n {
        let (g, w) = (got.summary(k), want.summary(k));
        assert_eq!((g.line, g.text, g.output, g.warning), (w.line, w.text, w.output, w.warning), "{d}: op {k}");
    }
    for k in (0..n).step_by(41).chain([n - 1, n]) {
        assert!(got.state_before(k) == want.state_before(k), "{d}: the state before op {k}");
    }
    for k in (0..n).step_by(499).chain([n - 1]) {
        let (g, w) = (got.frames(k).unwrap(), want.frames(k).unwrap());
        assert!(g.before == w.before && g.after == w.after, "{d}: op {k}'s states");
        assert!(g.frames == w.frames && g.trees == w.trees && g.areas == w.areas, "{d}: op {k}'s frames");
    }
}

#[test]
fn a_printed_capture_replays_to_the_kernels_addresses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shared = root.join("../../shared/captures/linux-6.18-mixed");
    if shared.is_dir() {
        check_dir(&shared);
    }
    for c in [
        "small",
        "seed7",
        "workload",
        "drained-s1",
        "drained-s3",
        "drained-s4",
        "drained-s7",
        "drained-s8",
        "drained-s11",
    ] {
        check_dir(&root.join(format!("tests/data/capture-6.18-{c}")));
    }
}

/// `pooled N START SIZE`: at the tail of node N's pool; `head`: at its head; `behind K`: at
/// the head, behind its first K entries (all of them where fewer stand).
#[test]
fn pooled_lines_go_where_they_say() {
    let a = |k: u64| 0xffffc90000000000 + k * 0x4000;
    let lines = [
        format!("pooled 1 {:#x} 0x2000", a(0)),
        format!("pooled 1 {:#x} 0x2000 head", a(1)),
        format!("pooled 1 {:#x} 0x2000 head", a(2)),
        format!("pooled 1 {:#x} 0x2000 behind 1", a(3)),
        format!("pooled 1 {:#x} 0x2000 behind 9", a(4)),
        format!("pooled 0 {:#x} 0x2000 behind 2", a(5)),
    ];
    let trace = format!("profile linux-6.18\ncpus 2\n{}\n", lines.join("\n"));
    let mut r = Replayer::new(Profile::Linux618);
    r.run(&parse_trace(&trace).unwrap(), &mut String::new(), &mut NoObserver).unwrap();
    assert_eq!(r.vmap.pool_entries(1, 0x2000), vec![a(2), a(3), a(1), a(0), a(4)]);
    assert_eq!(r.vmap.pool_entries(0, 0x2000), vec![a(5)]);
    assert!(vmapviz_core::check::check_invariants(&r.vmap).is_ok());
}

/// Each line's syntax, and what is refused: a line that cannot apply changes nothing.
#[test]
fn follow_lines_parse_print_and_refuse() {
    let good = [
        "defer-drain",
        "shrink",
        "place 0xffffc90000000000 0xffffc90000002000",
        "place 0xffffc90000000000 0xffffc90000002000 node 1",
        "lazy 0xffffc90000000000 node 1",
        "pooled 0 0xffffc90000004000 0x2000",
        "pooled 0 0xffffc90000004000 0x2000 head",
        "pooled 1 0xffffc90000004000 0x2000 behind 3",
        "hold 0xffffc90000004000 0xffffc90000006000",
        "release 0xffffc90000004000",
        "alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff = 0xffffc90000004000",
        "alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff = 0xffffc90000004000 explained pool-entry",
        "alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff = 0xffffc90000004000 unexplained",
        "purge behind keep 0xffffc90000000000 0xffffc90000008000",
        "reclaim keep 0xffffc90000000000",
        "purge behind",
        "purge upto 0",
        "purge behind upto 1 keep 0xffffc90000000000",
        "purge decayed 1",
        "purge through 0xffffc90000010000",
        "purge-rest",
        "purge-rest keep 0xffffc90000000000",
    ];
    for g in good {
        let ops = parse_trace(g).unwrap_or_else(|e| panic!("{g}: {e}"));
        assert_eq!(ops[0].op.to_string(), g);
    }
    for (bad, says) in [
        ("place 0x1000", "END is missing"),
        ("place 0x1000 0x2000 node", "node N is missing"),
        ("place 0x1000 0x2000 nod 1", "unexpected `nod`"),
        ("lazy 0x1000 1", "`node N`"),
        ("alloc 0x1000 0x1 0x0 0x10000 = ", "usage"),
        ("alloc 0x1000 0x1 0x0 0x10000 = 0x2000 explained maybe", "unknown KIND `maybe`"),
        ("purge keep", "at least one ADDR"),
        ("purge soon", "unexpected `soon`"),
        ("release 0x1000 0x2000", "unexpected `0x2000`"),
        ("purge upto", "node N is missing"),
        ("purge upto x", "node N"),
        ("reclaim upto 0", "takes no `upto`"),
        ("purge keep 0x1000 upto 0", "keep ADDR"),
        ("purge-rest 0", "unexpected `0`"),
        ("shrink 0", "unexpected `0`: usage `shrink`"),
        ("purge-rest keep", "at least one ADDR"),
        ("purge decayed", "node N is missing"),
        ("purge through", "purge through ADDR is missing"),
        ("pooled 0 0x1000 0x1000 behind", "pooled behind K is missing"),
        ("pooled 0 0x1000 0x1000 behind 0x100000000", "too many entries"),
        ("pooled 0 0x1000 0x1000 behind 1 head", "unexpected `head`"),
        ("reclaim through 0x1000", "takes no `through`"),
    ] {
        let e = parse_trace(bad).unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
    // No pools to give back before the vmap-node eras.
    let mut r = Replayer::new(Profile::Linux52);
    let e = r.apply(&parse_trace("shrink").unwrap()[0].op, &mut String::new(), &mut NoObserver).unwrap_err();
    assert!(e.to_string().contains("linux-5.2 has no vmap pools"), "{e}");
    // Two nodes; the area at VS is placed, so a second place over it, a lazy of an area that is
    // not busy, a hold over busy space and a release of nothing held are refused, state unchanged.
    let start = "profile linux-6.18\ncpus 2\ndefer-drain\nplace 0xffffc90000000000 0xffffc90000002000 node 1\n";
    let mut r = Replayer::new(Profile::Linux618);
    let mut out = String::new();
    r.run(&parse_trace(start).unwrap(), &mut out, &mut NoObserver).unwrap();
    let before = format!("{:?}", r.vmap.busy_areas_all());
    for bad in [
        "place 0xffffc90000001000 0xffffc90000003000",
        "lazy 0xffffc90000004000 node 0",
        "lazy 0xffffc90000000000 node 7",
        "hold 0xffffc90000000000 0xffffc90000001000",
        "release 0xffffc90000000000",
        "pooled 0 0xffffc90000001000 0x1000",
        // No purge was split.
        "purge-rest",
    ] {
        let op = &parse_trace(bad).unwrap()[0].op;
        assert!(r.apply(op, &mut out, &mut NoObserver).is_err(), "{bad}");
        assert_eq!(format!("{:?}", r.vmap.busy_areas_all()), before, "{bad}");
        assert!(vmapviz_core::check::check_invariants(&r.vmap).is_ok(), "{bad}");
    }
    // The kernel's answer where the model's differs: the model takes the kernel's area (the
    // lowest free block is right after the placed area; the kernel took one higher up), and the
    // operation warns with both addresses.
    let op = &parse_trace("alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff = 0xffffc90000010000 unexplained")
        .unwrap()[0]
        .op;
    let mut out = String::new();
    let w = r.apply(op, &mut out, &mut NoObserver).unwrap();
    assert_eq!(out, "alloc -> 0xffffc90000010000\n");
    let msg = format!("{w:?}");
    assert!(msg.contains("Followed"), "{msg}");
    let vmapviz_core::replay::Outcome::Warned(e) = w else { panic!() };
    let m = e.to_string();
    assert!(m.starts_with("unexplained: the kernel returned 0xffffc90000010000"), "{m}");
    assert!(m.contains("the model's answer was 0xffffc90000002000"), "{m}");
    assert!(vmapviz_core::check::check_invariants(&r.vmap).is_ok());
    // Not under maple-rfc, whose state is a maple tree.
    let mut m = Replayer::new(Profile::MapleRfc);
    for line in [
        "defer-drain",
        "alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff = 0xffffc90000010000 unexplained",
        "purge upto 0 keep 0xffffc90000000000",
    ] {
        let e = m.apply(&parse_trace(line).unwrap()[0].op, &mut out, &mut NoObserver).unwrap_err().to_string();
        // The refusal quotes the line refused.
        assert!(e.contains(&format!("`{line}`")), "{line}: {e}");
    }
}

/// `purge upto N` then `purge-rest`: the kernel's purge takes every node's lazy list when it
/// begins and then processes the nodes in order, so stopping after node 0 and doing the rest
/// later ends in the same state as the whole purge when nothing happens in between. Two areas
/// lazy on node 0's list and one on node 1's (2 pages each, vn_id valid: to their list's pool),
/// one more of 300 pages on node 0's (too big for a pool: back to the free tree).
#[test]
fn a_split_purge_ends_as_the_whole_one() {
    let setup = "profile linux-6.18\ncpus 2\ndefer-drain\n\
        place 0xffffc90000000000 0xffffc90000002000 node 0\n\
        place 0xffffc90000010000 0xffffc90000012000 node 1\n\
        place 0xffffc90000020000 0xffffc90000022000 node 0\n\
        place 0xffffc90000100000 0xffffc9000022c000 node 0\n\
        lazy 0xffffc90000000000 node 0\nlazy 0xffffc90000020000 node 0\nlazy 0xffffc90000100000 node 0\n\
        lazy 0xffffc90000010000 node 1\n";
    let run = |extra: &str| {
        let mut r = Replayer::new(Profile::Linux618);
        let mut out = String::new();
        r.run(&parse_trace(&format!("{setup}{extra}")).unwrap(), &mut out, &mut NoObserver).unwrap();
        (r, out)
    };
    let free = |v: &vmapviz_core::Vmap| -> Vec<(u64, u64)> {
        v.free_tree().iter(v.arena()).map(|(_, a)| (a.va_start, a.va_end)).collect()
    };
    let (whole, out_w) = run("purge\n");
    let (split, out_s) = run("purge upto 0\n");
    // After node 0: its three areas are done (two pooled, one back to the free tree); node 1's
    // waits, still lazy (on its purge list), its pages still in vmap_lazy_nr.
    assert!(out_s.ends_with("purge 3\n"), "{out_s}");
    assert_eq!(split.vmap.purging_count(), 1);
    assert_eq!(split.vmap.lazy_areas_by_node().len(), 1);
    assert_eq!(split.vmap.pool_entries(1, 0x2000), Vec::<u64>::new());
    assert_eq!(split.vmap.pool_entries(0, 0x2000), vec![0xffffc90000020000, 0xffffc90000000000]);
    assert!(vmapviz_core::check::check_invariants(&split.vmap).is_ok());
    // Node 0 decayed and its list taken, nothing given back: its three areas are off the
    // lazy list and in no pool or tree; node 1's list is still there.
    let (d0, out_d) = run("purge decayed 0\n");
    assert!(out_d.ends_with("purge 0\n"), "{out_d}");
    assert_eq!(d0.vmap.purging_count(), 3);
    assert_eq!(d0.vmap.purge_stage(), Some(vmapviz_core::PurgeStop::Decayed(0)));
    assert!(vmapviz_core::check::check_invariants(&d0.vmap).is_ok());
    let (d0, out_d) = run("purge decayed 0\npurge upto 0\npurge-rest\n");
    assert!(out_d.ends_with("purge 0\npurge 3\npurge-rest 1\n"), "{out_d}");
    assert_eq!(free(&d0.vmap), free(&whole.vmap));
    assert_eq!(format!("{:?}", d0.vmap.pools()), format!("{:?}", whole.vmap.pools()));
    let (split, out_s) = run("purge upto 0\npurge-rest\n");
    assert!(out_s.ends_with("purge 3\npurge-rest 1\n"), "{out_s}");
    assert!(out_w.ends_with("purge 4\n"), "{out_w}");
    assert_eq!(split.vmap.purging_count(), 0);
    assert_eq!(free(&split.vmap), free(&whole.vmap));
    assert_eq!(format!("{:?}", split.vmap.pools()), format!("{:?}", whole.vmap.pools()));
    assert_eq!(split.vmap.lazy_max_pages(), whole.vmap.lazy_max_pages());
    assert!(vmapviz_core::check::check_invariants(&split.vmap).is_ok());
}
