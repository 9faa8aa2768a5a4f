//! `Vmap::relocate`, natively: a copy of the allocator whose objects lie in reverse order (every
//! handle it holds mapped) must go on exactly as the original. In wasm every copy of the
//! allocator is such a move (its handles are addresses: see `area::Arena`); natively a copy's
//! handles are the original's, so only this test shows that the map reaches every handle: a tree
//! root, list, pool, purge list, cache or index entry it missed would name another object after
//! the reversal. The expected output is the kernel's, from the shared conformance vectors, and
//! the invariant checks run after every operation (a stale busy-index entry, which the output
//! would not show, fails them).

use std::path::{Path, PathBuf};

use crate::check::check_invariants;
use crate::events::NoObserver;
use crate::replay::Replayer;
use crate::trace::parse_trace;

fn vectors(dir: &str) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared").join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    v.sort();
    v
}

/// Replays every vector of `dir`, moving the allocator to a reversed copy before every
/// `every`-th operation (`offset` shifts which), and compares with the kernel's output.
fn replay_moved(dir: &str, every: usize, offset: usize) -> usize {
    let traces = vectors(dir);
    assert!(!traces.is_empty(), "no vectors in {dir}");
    let mut failures = Vec::new();
    for t in &traces {
        let text = std::fs::read_to_string(t).unwrap();
        let expected = std::fs::read_to_string(t.with_extension("expected")).unwrap();
        let lines = parse_trace(&text).unwrap_or_else(|e| panic!("{}: {e}", t.display()));
        let mut r = Replayer::default();
        let mut out = String::new();
        let mut bad = None;
        for (k, l) in lines.iter().enumerate() {
            if (k + offset).is_multiple_of(every) {
                *r.vmap = r.vmap.clone_reversed();
                if let Err(e) = check_invariants(&r.vmap) {
                    bad.get_or_insert(format!("after the move before line {}: {e}", l.line));
                }
            }
            r.apply(&l.op, &mut out, &mut NoObserver)
                .unwrap_or_else(|e| panic!("{}: line {}: {e}", t.display(), l.line));
            if let Err(e) = check_invariants(&r.vmap) {
                bad.get_or_insert(format!("line {}: {e}", l.line));
            }
        }
        let name = t.file_name().unwrap().to_string_lossy().to_string();
        if let Some(e) = bad {
            failures.push(format!("{name}: invariant: {e}"));
        }
        if out != expected {
            let line = out.lines().zip(expected.lines()).position(|(a, b)| a != b).unwrap_or(0);
            failures.push(format!("{name}: output differs at output line {}", line + 1));
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors fail:\n{}", failures.len(), traces.len(), failures.join("\n"));
    traces.len()
}

#[test]
fn a_moved_copy_replays_the_vectors_as_the_kernel() {
    // Every operation, then every third at each phase: moves land between any two operations,
    // and runs of unmoved operations build state that a later move must carry.
    assert!(replay_moved("conformance", 1, 0) >= 28);
    for offset in 0..3 {
        replay_moved("conformance", 3, offset);
    }
}

#[test]
fn a_moved_copy_replays_the_node_vectors_as_the_kernel() {
    replay_moved("conformance-nodes", 1, 0);
    for offset in 0..3 {
        replay_moved("conformance-nodes", 3, offset);
    }
}

/// The test can fail: a copy that maps its objects' links but not the trees' roots is caught.
#[test]
#[cfg(not(target_arch = "wasm32"))]
fn a_move_that_misses_a_root_is_caught() {
    let t = &vectors("conformance")[0];
    let lines = parse_trace(&std::fs::read_to_string(t).unwrap()).unwrap();
    let mut r = Replayer::default();
    let mut out = String::new();
    for l in &lines {
        r.apply(&l.op, &mut out, &mut NoObserver).unwrap();
    }
    assert!(!r.vmap.free.is_empty());
    let mut v = r.vmap.clone();
    let f = v.arena.reverse();
    let root = v.free.root;
    v.relocate(&f);
    v.free.root = root;
    assert!(check_invariants(&v).is_err(), "a stale free-tree root passed the checks");
}
