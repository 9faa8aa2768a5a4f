//! The maple player session (`maple::MapleSession`): every conformance vector replays byte for
//! byte through it; its snapshots print the vectors' own dumps; each operation's frames start
//! on the state before it and end on the state after it; every snapshot is a well-formed tree;
//! a gap-update frame shows the gap it reports; checkpoints change nothing; bad lines change
//! nothing.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use vmapviz_core::maple::{MapleEvent, MapleSession, MapleSnap, NodeKind};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance-maple")
}

fn vectors() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("conformance-maple dir")
        .filter_map(|e| {
            let n = e.ok()?.file_name().into_string().ok()?;
            n.strip_suffix(".trace").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 14, "{names:?}");
    names
}

fn read(name: &str, ext: &str) -> String {
    std::fs::read_to_string(dir().join(format!("{name}.{ext}"))).expect("vector")
}

/// A snapshot printed in the dump format of the vectors' README, independently of `dump()`.
fn print(s: &MapleSnap) -> String {
    let mut out = format!("dump height={} nodes={}\n", s.height, s.nodes.len());
    if s.nodes.is_empty() {
        out.push_str("root NULL\n");
    }
    for n in &s.nodes {
        let ty = match n.kind {
            NodeKind::Leaf => "leaf",
            NodeKind::Arange => "arange",
            NodeKind::Range => "range",
        };
        write!(out, "node {} {ty} min={:#x} max={:#x} end={}", n.depth, n.min, n.max, n.end).unwrap();
        if n.kind == NodeKind::Arange {
            write!(out, " mgap={}", n.meta_gap).unwrap();
        }
        out.push_str(" |");
        for i in 0..=n.end {
            let k = if n.kind == NodeKind::Leaf {
                if n.entries[i].is_some() {
                    'E'
                } else {
                    'N'
                }
            } else {
                'C'
            };
            write!(out, " {i}:{:#x}:{k}", n.pivots[i]).unwrap();
            if n.kind == NodeKind::Arange {
                write!(out, ":{:#x}", n.gaps[i]).unwrap();
            }
        }
        out.push('\n');
    }
    out.push_str("enddump\n");
    out
}

/// Pre-order, depths, limits: each child covers its slot's range; leaves all at height - 1.
fn well_formed(s: &MapleSnap, what: &str) {
    let mut stack: Vec<(u32, u64, u64)> = Vec::new();
    for (i, n) in s.nodes.iter().enumerate() {
        if i == 0 {
            assert_eq!((n.depth, n.min, n.max), (0, 0, u64::MAX), "{what}: root");
        } else {
            let (d, lo, hi) = stack.pop().unwrap_or_else(|| panic!("{what}: node {} has no slot", n.id));
            assert_eq!((n.depth, n.min, n.max), (d, lo, hi), "{what}: node {}", n.id);
        }
        assert_eq!(n.pivots.len(), n.end + 1, "{what}");
        assert_eq!(*n.pivots.last().unwrap(), n.max, "{what}: node {} ends at its max", n.id);
        if n.kind == NodeKind::Leaf {
            assert_eq!(n.depth + 1, s.height, "{what}: leaf depth");
        } else {
            assert_eq!(n.children.len(), n.end + 1, "{what}");
            let mut lo = n.min;
            let mut kids = Vec::new();
            for &p in &n.pivots {
                kids.push((n.depth + 1, lo, p));
                lo = p.wrapping_add(1);
            }
            stack.extend(kids.into_iter().rev());
        }
    }
    assert!(stack.is_empty(), "{what}: {} slots without a node", stack.len());
}

#[test]
fn every_vector_replays_and_its_snapshots_print_its_dumps() {
    for name in vectors() {
        let trace = read(&name, "trace");
        let expected = read(&name, "expected");
        let s = MapleSession::load(&trace).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.output(), expected, "{name}");
        let mut dumps = 0;
        for k in 0..s.len() {
            if s.op(k).unwrap().text == "dump" {
                assert_eq!(print(&s.state_before(k)), s.op_output(k), "{name} op {k}");
                dumps += 1;
            }
        }
        assert!(dumps > 0, "{name} has dumps");
    }
}

#[test]
fn frames_start_before_and_end_after_each_operation_and_every_snapshot_is_a_tree() {
    let (mut splits, mut early_stops, mut gap_frames, mut visits) = (0, 0, 0, 0);
    for name in vectors() {
        let trace = read(&name, "trace");
        let s = MapleSession::load(&trace).unwrap();
        // The long random vectors: the first 600 operations are enough (and keep the test fast).
        let n = s.len().min(600);
        let mut before = s.state_before(0);
        for k in 0..n {
            let f = s.frames(k).unwrap();
            let after = s.state_before(k + 1);
            assert_eq!(f.trees.first(), Some(&before), "{name} op {k}: first tree");
            assert_eq!(f.trees.last(), Some(&after), "{name} op {k}: last tree");
            assert_eq!(f.output, s.op_output(k), "{name} op {k}");
            for (i, t) in f.trees.iter().enumerate() {
                well_formed(t, &format!("{name} op {k} tree {i}"));
            }
            let mut prev_tree = 0;
            for (i, fr) in f.frames.iter().enumerate() {
                assert!(fr.tree < f.trees.len() && fr.tree >= prev_tree, "{name} op {k} frame {i}");
                prev_tree = fr.tree;
                match fr.event {
                    MapleEvent::GapUpdate { node, slot, gap, stop } => {
                        gap_frames += 1;
                        let t = &f.trees[fr.tree];
                        let nd = t.nodes.iter().find(|x| x.id == node).unwrap_or_else(|| {
                            panic!("{name} op {k} frame {i}: node {node} of the gap update is in the tree")
                        });
                        // The event carries the value written into gap[slot], or (when that slot
                        // held the node's largest gap and it shrank) the node's new largest gap.
                        assert!(
                            nd.gaps[slot] == gap.0 || nd.gaps[nd.meta_gap] == gap.0,
                            "{name} op {k} frame {i}: the frame shows the new gap {gap:#x}: {:?}",
                            nd.gaps
                        );
                        if stop && nd.depth > 0 {
                            early_stops += 1;
                        }
                    }
                    MapleEvent::Split { .. } => splits += 1,
                    MapleEvent::NodeVisited { node, min, max } => {
                        visits += 1;
                        let t = &f.trees[fr.tree];
                        let nd = t.nodes.iter().find(|x| x.id == node).unwrap();
                        assert_eq!((nd.min, nd.max), (min.0, max.0), "{name} op {k}: visited node's limits");
                    }
                    _ => {}
                }
            }
            before = after;
        }
    }
    assert!(
        splits > 10 && early_stops > 10 && gap_frames > 100 && visits > 100,
        "{splits} {early_stops} {gap_frames} {visits}"
    );
}

#[test]
fn checkpoints_change_nothing() {
    let trace = read("08_height3", "trace");
    let a = MapleSession::load(&trace).unwrap();
    let mut b = MapleSession::with_checkpoint_every(3);
    for l in trace.lines().skip_while(|l| !l.starts_with("profile")).skip(1) {
        if l.trim().is_empty() || l.trim().starts_with('#') {
            continue;
        }
        b.push_text(l).unwrap();
    }
    assert_eq!(a.len(), b.len());
    assert_eq!(a.output(), b.output());
    for k in 0..=a.len() {
        assert_eq!(a.state_before(k), b.state_before(k), "op {k}");
        let (fa, fb) = (a.frames(k), b.frames(k));
        assert_eq!(fa.is_some(), k < a.len());
        if let (Some(fa), Some(fb)) = (fa, fb) {
            assert_eq!(
                (&fa.trees, &fa.frames, &fa.output, &fa.text),
                (&fb.trees, &fb.frames, &fb.output, &fb.text),
                "op {k}"
            );
        }
    }
    // Truncating and replaying the same lines gives the same session.
    let mut c = b.clone();
    c.truncate(5);
    assert_eq!(c.len(), 5);
    assert_eq!(c.state_before(5), a.state_before(5));
    for k in 5..a.len() {
        c.push_text(&a.op(k).unwrap().text).unwrap();
    }
    assert_eq!(c.output(), a.output());
    assert_eq!(MapleSession::load(&a.trace_text()).unwrap().output(), a.output());
}

#[test]
fn bad_lines_name_the_line_and_change_nothing() {
    let e = MapleSession::load("profile maple-tree\nstore 1 2\nstore 0x zz\n").err().unwrap();
    assert_eq!(e.line_no, 3);
    assert!(e.to_string().starts_with("line 3: argument 1 is not a 64-bit number"), "{e}");
    let e = MapleSession::load("# c\nstore 1 2\n").err().unwrap();
    assert_eq!(e.line_no, 2);
    assert!(e.to_string().contains("expected `profile maple-tree`"), "{e}");
    let e = MapleSession::load("profile maple-tree\nstore 1 2\nprofile maple-tree\n").err().unwrap();
    assert_eq!(e.line_no, 3);
    let e = MapleSession::load("profile linux-6.9\n").err().unwrap();
    assert_eq!(e.line_no, 1);
    let mut s = MapleSession::load("profile maple-tree\nstore 0x1000 0x1fff\n").unwrap();
    let out = s.output();
    for bad in ["stor 1 2", "store 1", "empty 1 2 3 4", "store 1 99999999999999999999", "# just a comment", ""] {
        assert!(s.push_text(bad).is_err(), "{bad:?}");
        assert_eq!((s.len(), s.output()), (1, out.clone()), "{bad:?} changed nothing");
    }
    s.push_text("erase 0x1000 0x1fff").unwrap();
    assert_eq!(s.op(1).unwrap().line, 3);
    // The kernel's own answers are operations, not errors.
    s.push_text("store 5 4").unwrap();
    assert_eq!(s.op_output(2), "store 0x5 0x4 err -22\n");
}
