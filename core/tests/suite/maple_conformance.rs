//! Every vector in ../shared/conformance-maple replays byte for byte, with `validate()` (the
//! `mt_validate` checks) after every operation.

use std::path::{Path, PathBuf};

use vmapviz_core::maple::MapleReplay;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance-maple")
}

fn run(name: &str) {
    let trace = std::fs::read_to_string(dir().join(format!("{name}.trace"))).expect("trace");
    let expected = std::fs::read_to_string(dir().join(format!("{name}.expected"))).expect("expected");
    let mut r = MapleReplay::new();
    r.check = true;
    let mut out = Vec::new();
    for (i, line) in trace.lines().enumerate() {
        if let Err(e) = r.apply_line(i + 1, line, &mut out) {
            panic!("{name}: {e}");
        }
    }
    let got = String::from_utf8(out).expect("utf8");
    if got != expected {
        let (gl, el): (Vec<_>, Vec<_>) = (got.lines().collect(), expected.lines().collect());
        let at = gl.iter().zip(el.iter()).position(|(a, b)| a != b).unwrap_or(gl.len().min(el.len()));
        let from = at.saturating_sub(6);
        panic!(
            "{name}: first difference at output line {}\n--- expected\n{}\n--- got\n{}",
            at + 1,
            el[from..(at + 3).min(el.len())].join("\n"),
            gl[from..(at + 3).min(gl.len())].join("\n")
        );
    }
}

#[test]
fn every_vector_is_tested() {
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("conformance-maple dir")
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".trace")).map(String::from))
        .collect();
    names.sort();
    // At least the 15 vectors named below; any vector added beside them is replayed too.
    assert!(names.len() >= 15, "{names:?}");
    for name in &names {
        run(name);
    }
}

macro_rules! vector {
    ($f:ident, $name:expr) => {
        #[test]
        fn $f() {
            run($name);
        }
    };
}

vector!(v01_root_leaf, "01_root_leaf");
vector!(v02_leaf_split, "02_leaf_split");
vector!(v03_arange_gaps, "03_arange_gaps");
vector!(v04_empty_area, "04_empty_area");
vector!(v05_null_merge, "05_null_merge");
vector!(v06_rebalance, "06_rebalance");
vector!(v07_spanning, "07_spanning");
vector!(v08_height3, "08_height3");
vector!(v09_gap_propagation, "09_gap_propagation");
vector!(v10_vmalloc_like, "10_vmalloc_like");
vector!(v11_random_mixed, "11_random_mixed");
vector!(v12_random_churn, "12_random_churn");
vector!(v13_random_aligned, "13_random_aligned");
vector!(v14_random_spanning, "14_random_spanning");
vector!(v15_meta_gap_tie, "15_meta_gap_tie");

/// The `vmap-replay` binary itself (with `--check`) prints every vector byte for byte.
#[test]
fn vmap_replay_prints_every_vector() {
    let mut n = 0;
    for entry in std::fs::read_dir(dir()).expect("dir") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("trace") {
            continue;
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_vmap-replay"))
            .arg("--check")
            .arg(&path)
            .output()
            .expect("run vmap-replay");
        assert!(out.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
        let expected = std::fs::read(path.with_extension("expected")).expect("expected");
        assert!(out.stdout == expected, "{}: output differs", path.display());
        n += 1;
    }
    assert!(n >= 15, "{n} vectors");
}
