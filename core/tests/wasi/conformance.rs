//! Every vector in ../shared/conformance and ../shared/conformance-nodes replays byte for byte.

use std::path::{Path, PathBuf};

use vmapviz_core::check::check_invariants;
use vmapviz_core::{parse_trace, NoObserver, Replayer};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

fn run_dir(dir: &str) -> usize {
    let d = shared().join(dir);
    let mut traces: Vec<PathBuf> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", d.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    traces.sort();
    assert!(!traces.is_empty(), "no vectors in {}", d.display());
    let mut failures = Vec::new();
    for t in &traces {
        let text = std::fs::read_to_string(t).unwrap();
        let expected = std::fs::read_to_string(t.with_extension("expected")).unwrap();
        let lines = parse_trace(&text).unwrap_or_else(|e| panic!("{}: {e}", t.display()));
        let mut r = Replayer::default();
        let mut out = String::new();
        let mut bad_inv = None;
        for l in &lines {
            r.apply(&l.op, &mut out, &mut NoObserver)
                .unwrap_or_else(|e| panic!("{}: line {}: {e}", t.display(), l.line));
            if bad_inv.is_none() {
                if let Err(e) = check_invariants(&r.vmap) {
                    bad_inv = Some(format!("line {}: {e}", l.line));
                }
            }
        }
        let name = t.file_name().unwrap().to_string_lossy().to_string();
        // The same lines through `Replayer::run`, whose loops are compiled per era (a
        // `profile` line switches loops): the same output.
        let mut whole = String::new();
        Replayer::default()
            .run(&lines, &mut whole, &mut NoObserver)
            .unwrap_or_else(|e| panic!("{}: Replayer::run: {e}", t.display()));
        if whole != expected {
            failures.push(format!("{name}: Replayer::run's output differs from the vector's"));
        }
        if let Some(e) = bad_inv {
            failures.push(format!("{name}: invariant: {e}"));
        }
        if out != expected {
            let line = out
                .lines()
                .zip(expected.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(out.lines().count().min(expected.lines().count()));
            failures.push(format!(
                "{name}: output differs at output line {}: got {:?}, expected {:?}",
                line + 1,
                out.lines().nth(line),
                expected.lines().nth(line)
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} vectors fail:\n{}", failures.len(), traces.len(), failures.join("\n"));
    traces.len()
}

#[test]
fn conformance_vectors_match_byte_for_byte() {
    let n = run_dir("conformance");
    assert!(n >= 28, "expected the 28 vectors of shared/conformance, found {n}");
}

#[test]
fn conformance_nodes_vectors_match_byte_for_byte() {
    let n = run_dir("conformance-nodes");
    assert!(n >= 11);
}
