//! Step events of the maple tree: replay conformance vectors with a recording observer and check
//! that the events tell the same story as the tree (and as the expected output).

use std::collections::HashMap;
use std::path::Path;

use vmapviz_core::maple::trace::{parse_maple_line, MapleOp};
use vmapviz_core::maple::{MapleEntry, MapleError, MapleEvent, MapleTree, NodeKind, NodeSummary, StoreType};

fn read(name: &str) -> (String, String) {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance-maple");
    (
        std::fs::read_to_string(d.join(format!("{name}.trace"))).unwrap(),
        std::fs::read_to_string(d.join(format!("{name}.expected"))).unwrap(),
    )
}

/// Replay a vector on a recording tree; returns the tree and the events of each line.
type Replayed = (MapleTree<Vec<MapleEvent>>, Vec<(MapleOp, Vec<MapleEvent>)>, String);

fn replay(name: &str) -> Replayed {
    let (trace, expected) = read(name);
    let mut t = MapleTree::with_observer(true, Vec::new());
    let mut per_line = Vec::new();
    for (i, line) in trace.lines().enumerate() {
        let op = parse_maple_line(i + 1, line).unwrap();
        match op {
            MapleOp::Store(a, b) => {
                let _ = t.store_range(a, b, Some(MapleEntry::Zero));
            }
            MapleOp::Erase(a, b) => {
                let _ = t.store_range(a, b, None);
            }
            MapleOp::Empty(a, b, s) => {
                let _ = t.empty_area(a, b, s);
            }
            MapleOp::Dump | MapleOp::Nothing => continue,
        }
        per_line.push((op, std::mem::take(&mut t.obs)));
    }
    (t, per_line, expected)
}

/// Check a gap search's events against the tree it ran on (node limits, gaps, descents, result).
fn check_search(nodes: &HashMap<u32, NodeSummary>, evs: &[MapleEvent], result: Result<(u64, u64), MapleError>) {
    let mut expect_child: Option<u32> = None;
    let mut saw_result = false;
    for ev in evs {
        match ev {
            MapleEvent::NodeVisited { node, min, max } => {
                let n = &nodes[node];
                assert_eq!((n.min, n.max), (min.0, max.0), "visited node {node} with other limits");
                if let Some(c) = expect_child.take() {
                    assert_eq!(c, *node, "descent did not lead into the child");
                }
            }
            MapleEvent::SlotScanned { node, slot, gap, fits: _ } => {
                let n = &nodes[node];
                if n.kind == NodeKind::Arange {
                    assert_eq!(n.gaps[*slot], gap.0, "scanned gap differs from the tree's gap[]");
                } else {
                    assert_eq!(n.entries[*slot], None, "a gap test on a non-NULL leaf slot");
                }
            }
            MapleEvent::Descend { node, slot } => {
                expect_child = Some(nodes[node].children[*slot]);
            }
            MapleEvent::HoleFound { index, last } => {
                assert_eq!(result, Ok((index.0, last.0)));
                saw_result = true;
            }
            MapleEvent::NoHole { err } => {
                assert_eq!(result.map_err(|e| e.errno()), Err(*err));
                saw_result = true;
            }
            _ => {}
        }
    }
    assert!(saw_result || result.is_ok(), "a failed search without a NoHole event");
}

fn by_id(t: &MapleTree<Vec<MapleEvent>>) -> HashMap<u32, NodeSummary> {
    t.nodes().into_iter().map(|n| (n.id, n)).collect()
}

#[test]
fn events_describe_the_final_tree() {
    let mut descents = 0;
    for name in ["08_height3", "10_vmalloc_like", "11_random_mixed"] {
        let (mut t, per_line, expected) = replay(name);
        let mut outputs =
            expected.lines().filter(|l| l.starts_with("empty ") || l.starts_with("store ") || l.starts_with("erase "));
        let mut stores = 0;
        for (op, evs) in &per_line {
            let out = outputs.next().unwrap();
            match op {
                MapleOp::Store(a, b) | MapleOp::Erase(a, b) if a <= b => {
                    stores += 1;
                    assert!(matches!(evs.first(), Some(MapleEvent::StoreBegin { .. })), "{name}: {out}");
                    assert!(matches!(evs.get(1), Some(MapleEvent::StoreTypeChosen { .. })), "{name}: {out}");
                    assert!(matches!(evs.last(), Some(MapleEvent::StoreDone { .. })), "{name}: {out}");
                    // Every gap-update chain ends with exactly one stop.
                    let ups: Vec<_> = evs.iter().filter(|e| matches!(e, MapleEvent::GapUpdate { .. })).collect();
                    if let Some(MapleEvent::GapUpdate { stop, .. }) = ups.last() {
                        assert!(*stop, "{name}: {out}: gap propagation without a stop");
                    }
                }
                MapleOp::Empty(..) => {
                    // The result event matches the kernel's printed answer.
                    let hole = evs.iter().find_map(|e| match e {
                        MapleEvent::HoleFound { index, last } => Some(format!("-> {index:#x} {last:#x}")),
                        MapleEvent::NoHole { err: -16 } => Some("-> EBUSY".into()),
                        MapleEvent::NoHole { err: -22 } => Some("-> EINVAL".into()),
                        _ => None,
                    });
                    if let Some(h) = hole {
                        assert!(out.ends_with(&h), "{name}: {out} vs event {h}");
                    } else {
                        assert!(out.ends_with("-> EBUSY") || out.contains("-> 0x"), "{name}: {out}");
                    }
                }
                _ => {}
            }
        }
        assert!(stores > 0);
        // The last store's StoreDone is the final tree's height and node count.
        let done = per_line
            .iter()
            .rev()
            .flat_map(|(_, e)| e.iter().rev())
            .find_map(|e| match e {
                MapleEvent::StoreDone { height, nodes } => Some((*height, *nodes)),
                _ => None,
            })
            .unwrap();
        assert_eq!(done, (t.height(), t.nodes().len()), "{name}");
        // Gap searches on the final tree: every step names real nodes, limits and gaps.
        let nodes = by_id(&t);
        let (lo, hi) = (0xffff_c900_0000_0000u64, 0xffff_e8ff_ffff_fffeu64);
        let mut visited = 0;
        for k in 0..24 {
            for start in [0, lo, lo + (1 << 30), lo + (1 << 38)] {
                let size = 1u64 << (12 + k);
                let r = t.empty_area(start, hi, size);
                let evs = std::mem::take(&mut t.obs);
                visited += evs.iter().filter(|e| matches!(e, MapleEvent::NodeVisited { .. })).count();
                descents += evs.iter().filter(|e| matches!(e, MapleEvent::Descend { .. })).count();
                check_search(&nodes, &evs, r);
            }
        }
        assert!(visited >= 96, "{name}: {visited} visits");
    }
    assert!(descents > 100, "{descents} descents");
}

#[test]
fn store_types_and_structure_events_appear_where_the_vectors_exercise_them() {
    let count = |name: &str, pred: &dyn Fn(&MapleEvent) -> bool| -> usize {
        let (_, per_line, _) = replay(name);
        per_line.iter().flat_map(|(_, e)| e.iter()).filter(|e| pred(e)).count()
    };
    let is_type =
        |st: StoreType| move |e: &MapleEvent| matches!(e, MapleEvent::StoreTypeChosen { store, .. } if *store == st);
    assert!(count("02_leaf_split", &is_type(StoreType::SplitStore)) > 0);
    assert!(count("02_leaf_split", &|e| matches!(e, MapleEvent::Split { .. })) > 0);
    assert!(count("02_leaf_split", &is_type(StoreType::Append)) > 0);
    assert!(count("06_rebalance", &is_type(StoreType::Rebalance)) > 0);
    assert!(count("06_rebalance", &|e| matches!(e, MapleEvent::Rebalance { .. })) > 0);
    assert!(count("07_spanning", &is_type(StoreType::SpanningStore)) > 0);
    assert!(count("07_spanning", &|e| matches!(e, MapleEvent::Spanning { .. })) > 0);
    assert!(
        count("05_null_merge", &is_type(StoreType::ExactFit)) + count("05_null_merge", &is_type(StoreType::NodeStore))
            > 0
    );
    assert!(count("09_gap_propagation", &|e| matches!(e, MapleEvent::GapUpdate { stop: false, .. })) > 0);
    assert!(count("04_empty_area", &|e| matches!(e, MapleEvent::Ascend { .. })) > 0, "the wasted descent of 04");
}

#[test]
fn split_events_carry_the_cut() {
    let (_, per_line, _) = replay("02_leaf_split");
    let cuts: Vec<(usize, usize)> = per_line
        .iter()
        .flat_map(|(_, e)| e.iter())
        .filter_map(|e| match e {
            MapleEvent::Split { b_end, cut, .. } => Some((*b_end, *cut)),
            _ => None,
        })
        .collect();
    assert!(!cuts.is_empty());
    for (b_end, cut) in cuts {
        assert!(cut < b_end && cut + 1 >= 6, "cut {cut} of {b_end}");
    }
}

/// A split names the node it cuts: the first split of a store that chose `wr_split_store` is
/// of the leaf the store was at (`mas_split` starts from it; the view draws the cut there).
#[test]
fn a_split_names_the_leaf_its_store_chose() {
    let (_, per_line, _) = replay("02_leaf_split");
    let mut checked = 0;
    for (_, events) in &per_line {
        let mut leaf = None;
        for e in events {
            match e {
                MapleEvent::StoreTypeChosen { store: StoreType::SplitStore, node, .. } => leaf = Some(*node),
                MapleEvent::Split { node, .. } => {
                    if let Some(l) = leaf.take() {
                        assert_eq!(*node, l, "the first split is of the store's leaf");
                        checked += 1;
                    }
                }
                _ => {}
            }
        }
    }
    assert!(checked > 0);
}
