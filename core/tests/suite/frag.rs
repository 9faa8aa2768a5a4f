//! Fragmentation figures, the callers table and the diff of two snapshots, on hand-written
//! `/proc/vmallocinfo` fixtures whose figures are worked out below from the kernel's rules
//! (free space is what no area covers; `lazy_max_pages() = fls(num_online_cpus()) * 8192`
//! with 4 KiB pages), and on the real capture in ../shared/captures (invariants, checked
//! against a computation of the test's own).

use std::path::PathBuf;
use std::process::Command;

use vmapviz_core::callers::callers_of;
use vmapviz_core::frag::{fragmentation, lazy_max_pages, vmallocinfo_state, MODULES_END, MODULES_VADDR};
use vmapviz_core::report::{self, Options};
use vmapviz_core::vmalloc::{VMALLOC_END, VMALLOC_START};
use vmapviz_core::vmdiff::{diff_texts, MatchedBy};
use vmapviz_core::{parse_trace, NoObserver, Profile, Replayer};

const S: u64 = VMALLOC_START;

/// Four areas in the vmalloc window (one lazy) and one in the modules window.
fn fixture_a() -> String {
    [
        format!("{:#x}-{:#x}   12288 foo+0x10/0x40 pages=2 vmalloc N0=2", S, S + 0x3000),
        format!("{:#x}-{:#x}    8192 bar+0x1/0x8 phys=0x00000000fed00000 ioremap", S + 0x5000, S + 0x7000),
        format!("{:#x}-{:#x}    8192 unpurged vm_area", S + 0x9000, S + 0xb000),
        format!("{:#x}-{:#x}    8192 foo+0x20/0x40 pages=1 vmalloc N0=1", S + 0x13000, S + 0x15000),
        "0xffffffffc0000000-0xffffffffc0002000    8192 baz+0x0/0x10 [mymod] pages=1 vmalloc N0=1".to_string(),
    ]
    .join("\n")
        + "\n"
}

/// A a few seconds later: foo's first area freed lazily, the lazy area purged, qux allocated
/// in the hole at 0x3000, the range at 0x13000 handed to another caller.
fn fixture_b() -> String {
    [
        format!("{:#x}-{:#x}   12288 unpurged vm_area", S, S + 0x3000),
        format!("{:#x}-{:#x}    8192 qux+0x5/0x50 pages=1 vmalloc N0=1", S + 0x3000, S + 0x5000),
        format!("{:#x}-{:#x}    8192 bar+0x1/0x8 phys=0x00000000fed00000 ioremap", S + 0x5000, S + 0x7000),
        format!("{:#x}-{:#x}    8192 other+0x1/0x2 vmap", S + 0x13000, S + 0x15000),
        "0xffffffffc0000000-0xffffffffc0002000    8192 baz+0x0/0x10 [mymod] pages=1 vmalloc N0=1".to_string(),
    ]
    .join("\n")
        + "\n"
}

#[test]
fn lazy_max_pages_is_the_kernels() {
    // fls(1) = 1, fls(2) = fls(3) = 2, fls(4) = 3, fls(16) = 5; 32 MiB is 8192 pages.
    assert_eq!(lazy_max_pages(1), 8192);
    assert_eq!(lazy_max_pages(2), 16384);
    assert_eq!(lazy_max_pages(3), 16384);
    assert_eq!(lazy_max_pages(4), 24576);
    assert_eq!(lazy_max_pages(16), 40960);
}

#[test]
fn fixture_figures_by_hand() {
    let (v, _) = vmallocinfo_state(&fixture_a(), Profile::Linux618, None).unwrap();
    let f = fragmentation(&v, 3);
    assert_eq!(f.windows.len(), 2, "the modules window is seen: an area lies there");
    let w = &f.windows[0];
    assert_eq!((w.name.as_str(), w.start.0, w.end.0), ("vmalloc", S, VMALLOC_END));
    assert_eq!((w.busy_areas, w.busy_bytes), (3, 12288 + 8192 + 8192));
    assert_eq!((w.lazy_areas, w.lazy_bytes), (1, 8192));
    // Free: [0x3000,0x5000) 2 pages, [0x7000,0x9000) 2 pages, [0xb000,0x13000) 8 pages (the lazy
    // area between is not free), and [0x15000, VMALLOC_END): VMALLOC_END - S = 2^45 - 1.
    let top = (1u64 << 45) - 1 - 0x15000;
    assert_eq!(w.free_blocks, 4);
    assert_eq!(w.free_bytes, 0x2000 + 0x2000 + 0x8000 + top);
    let l = w.largest_free.unwrap();
    assert_eq!((l.start.0, l.bytes), (S + 0x15000, top));
    // Below the largest block (the top one): the 8-page hole at 0xb000.
    let hole = w.largest_hole.unwrap();
    assert_eq!((hole.start.0, hole.bytes), (S + 0xb000, 0x8000));
    let h: Vec<(u64, u64, u64, u64)> =
        w.histogram.iter().map(|c| (c.min_pages, c.max_pages, c.blocks, c.bytes)).collect();
    // top / 4096 = 2^33 - 0x15 - 1 (the last byte below VMALLOC_END is not a page): class 2^32.
    assert_eq!(h, vec![(2, 4, 2, 0x4000), (8, 16, 1, 0x8000), (1 << 32, 1 << 33, 1, top)]);
    let m = &f.windows[1];
    assert_eq!((m.name.as_str(), m.start.0, m.end.0), ("modules", MODULES_VADDR, MODULES_END));
    assert_eq!((m.busy_areas, m.busy_bytes, m.lazy_areas), (1, 8192, 0));
    // [0xffffffffc0002000, 0xffffffffff000000): 0x3effe000 bytes, 258046 pages.
    assert_eq!((m.free_blocks, m.free_bytes), (1, 0x3effe000));
    assert_eq!(m.largest_free.unwrap().start.0, 0xffff_ffff_c000_2000);
    assert_eq!(m.histogram.len(), 1);
    assert_eq!((m.histogram[0].min_pages, m.histogram[0].max_pages), (131072, 262144));
    // One lazy area of 2 pages; 3 online CPUs: fls(3) = 2, so 16384.
    assert_eq!((f.lazy.pages, f.lazy.areas, f.lazy.online_cpus, f.lazy.lazy_max_pages), (2, 1, 3, 16384));
    // 6.18 has vmap nodes: one per possible CPU (1 here), its pools empty after an import.
    assert_eq!(f.nodes.len(), 1);
    assert_eq!((f.nodes[0].areas, f.nodes[0].bytes), (0, 0));
}

#[test]
fn no_modules_window_without_areas_there() {
    let text = format!("{:#x}-{:#x}    8192 foo+0x1/0x2 vmalloc\n", S + 0x1000, S + 0x3000);
    let (v, _) = vmallocinfo_state(&text, Profile::Linux618, None).unwrap();
    let f = fragmentation(&v, 1);
    assert_eq!(f.windows.len(), 1);
    // [S, S+0x1000) is one page below the area, the rest above it.
    let w = &f.windows[0];
    assert_eq!(w.free_blocks, 2);
    assert_eq!(w.histogram[0].min_pages, 1);
    assert_eq!(w.histogram[0].blocks, 1);
    assert_eq!(w.histogram[0].bytes, 0x1000);
}

/// linux-6.18, two CPUs: areas allocated on CPU 0 (2 and 3 pages) and CPU 1 (2 pages) over
/// the whole vmalloc window, vfreed, purged: `purge_vmap_node` adds each to the pool of the
/// node its `vn_id` names (the allocating CPU's, `raw_smp_processor_id() % nr_vmap_nodes`),
/// and the decay leaves pools of one entry alone. Nothing is lazy after the purge, and the
/// pooled areas are not free.
#[test]
fn node_pools_by_hand() {
    let w = format!("{S:#x} {VMALLOC_END:#x}");
    let trace = format!(
        "profile linux-6.18\ncpus 2\nalloc 0x2000 0x1000 {w}\nalloc 0x3000 0x1000 {w}\ncpu 1\nalloc 0x2000 0x1000 {w}\n\
         vfree {:#x}\nvfree {:#x}\nvfree {:#x}\npurge\n",
        S,
        S + 0x2000,
        S + 0x5000
    );
    let mut r = Replayer::new(Profile::Linux618);
    let mut out = String::new();
    r.run(&parse_trace(&trace).unwrap(), &mut out, &mut NoObserver).unwrap();
    let f = fragmentation(&r.vmap, 2);
    assert_eq!(f.nodes.len(), 2);
    let sizes = |n: usize| f.nodes[n].sizes.iter().map(|s| (s.pages, s.areas)).collect::<Vec<_>>();
    assert_eq!(sizes(0), vec![(2, 1), (3, 1)]);
    assert_eq!((f.nodes[0].areas, f.nodes[0].bytes), (2, 0x5000));
    assert_eq!(sizes(1), vec![(2, 1)]);
    assert_eq!((f.nodes[1].areas, f.nodes[1].bytes), (1, 0x2000));
    let v = &f.windows[0];
    assert_eq!((v.pooled_areas, v.pooled_bytes), (3, 0x7000));
    assert_eq!((v.busy_areas, v.lazy_areas, f.lazy.pages), (0, 0, 0));
    assert_eq!(v.free_blocks, 1);
    assert_eq!(v.largest_free.unwrap().start.0, S + 0x7000);
}

#[test]
fn callers_by_hand() {
    let rows = callers_of(&fixture_a()).unwrap();
    let got: Vec<(&str, u64, u64)> = rows.iter().map(|r| (r.caller.as_str(), r.areas, r.bytes)).collect();
    // foo: 12288 + 8192; the three of 8192 by name ('(' sorts before letters).
    assert_eq!(
        got,
        vec![("foo", 2, 20480), ("(unpurged vm_area)", 1, 8192), ("bar", 1, 8192), ("baz [mymod]", 1, 8192)]
    );
    // 20480 of 45056 bytes.
    assert!((rows[0].share - 45.4545).abs() < 0.001, "{}", rows[0].share);
    assert_eq!(rows[2].kinds, vec!["ioremap"]);
}

#[test]
fn diff_by_hand() {
    let d = diff_texts(&fixture_a(), &fixture_b()).unwrap();
    assert_eq!(d.matched_by, MatchedBy::Address);
    let starts = |l: &[vmapviz_core::vmdiff::DiffArea]| l.iter().map(|a| a.start.0 - S).collect::<Vec<_>>();
    assert_eq!(starts(&d.appeared), vec![0x3000, 0x13000]);
    assert_eq!(d.appeared[1].caller, "other+0x1/0x2");
    assert_eq!(starts(&d.disappeared), vec![0x9000, 0x13000]);
    assert_eq!(d.disappeared[0].kind, "unpurged");
    assert_eq!(starts(&d.became_lazy), vec![0]);
    assert_eq!((d.became_lazy[0].caller.as_str(), d.became_lazy[0].bytes), ("foo+0x10/0x40", 12288));
    assert_eq!(d.unchanged, 2);
}

#[test]
fn diff_with_hidden_addresses_matches_by_caller_and_size() {
    let a = "0x0000000000000000-0x0000000000000000    8192 foo+0x1/0x2 vmalloc\n\
             0x0000000000000000-0x0000000000000000    8192 foo+0x1/0x2 vmalloc\n";
    let b = "0x0000000000000000-0x0000000000000000    8192 foo+0x1/0x2 vmalloc\n\
             0x0000000000000000-0x0000000000000000   16384 bar+0x1/0x2 vmalloc\n";
    let d = diff_texts(a, b).unwrap();
    assert_eq!(d.matched_by, MatchedBy::CallerAndSize);
    assert_eq!((d.appeared.len(), d.disappeared.len(), d.unchanged), (1, 1, 1));
    assert_eq!(d.appeared[0].caller, "bar+0x1/0x2");
}

fn tmp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("vmapviz-frag-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn bad_input_names_file_and_line_bounded() {
    let long = "x".repeat(5000);
    let text = format!(
        "{}\n{:#x}-{:#x} 12{long} foo+0x1/0x2 vmalloc\n",
        fixture_a().lines().next().unwrap(),
        S + 0x20000,
        S + 0x21000
    );
    let p = tmp("bad.txt", &text);
    let o = Options::default();
    for e in [
        report::fragmentation_report(&p, &o).unwrap_err(),
        report::callers_report(&p, &o).unwrap_err(),
        report::diff_report(&tmp("a.txt", &fixture_a()), &p, &o).unwrap_err(),
    ] {
        assert_eq!((e.file.as_str(), e.line), (p.as_str(), 2), "{e}");
        assert!(e.msg.contains("is not a decimal number"), "{e}");
        assert!(e.to_string().len() < 400, "unbounded: {} bytes", e.to_string().len());
    }
    // A range whose size column disagrees; a missing file; binary data.
    let p2 = tmp("range.txt", &format!("{:#x}-{:#x} 8192 foo+0x1/0x2 vmalloc\n", S, S + 0x3000));
    let e = report::fragmentation_report(&p2, &o).unwrap_err();
    assert_eq!(e.line, 1, "{e}");
    let e = report::fragmentation_report("/nonexistent/vmallocinfo", &o).unwrap_err();
    assert_eq!((e.file.as_str(), e.line), ("/nonexistent/vmallocinfo", 0));
    let p3 = tmp("bin.txt", "0xffffc90000000000-0xffffc90000001000 4096 foo\n\0\0\0");
    let e = report::fragmentation_report(&p3, &o).unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    // Callers of a trace: refused, naming the line.
    let p4 = tmp("trace.txt", "# a trace\nalloc 0x1000 0x1000 0x1000 0x100000\n");
    let e = report::callers_report(&p4, &o).unwrap_err();
    assert_eq!(e.line, 2, "{e}");
}

#[test]
fn reports_render_and_cap() {
    let (a, b) = (tmp("ra.txt", &fixture_a()), tmp("rb.txt", &fixture_b()));
    let o = Options { cpus: Some(2), ..Options::default() };
    let t = report::diff_report(&a, &b, &o).unwrap();
    let last = t.lines().last().unwrap();
    assert!(
        last.starts_with(
            "diff: 2 appeared (+16.0 KiB), 2 disappeared (-16.0 KiB), 1 became lazy (12.0 KiB), 2 unchanged"
        ),
        "{last}"
    );
    assert!(last.contains("lazy pages 2 -> 3"), "{last}");
    // The cap: 2 areas shown of 2 with a limit of 1 leave "… and 1 more".
    let d = diff_texts(&fixture_a(), &fixture_b()).unwrap();
    let r = vmapviz_core::vmdiff::render(&d, Some(1));
    assert_eq!(r.matches("… and 1 more").count(), 2, "{r}");
    assert!(!vmapviz_core::vmdiff::render(&d, None).contains("more"));
    let j: serde_json::Value =
        serde_json::from_str(&report::fragmentation_report(&a, &Options { json: true, ..o }).unwrap()).unwrap();
    let w = &j["states"][0]["figures"]["windows"][0];
    assert_eq!(w["free_blocks"], 4);
    assert_eq!(w["largest_free"]["start"], format!("{:#x}", S + 0x15000));
    assert_eq!(j["states"][0]["figures"]["lazy"]["lazy_max_pages"], 16384);
}

#[test]
fn cli_report_and_diff() {
    let (a, b) = (tmp("ca.txt", &fixture_a()), tmp("cb.txt", &fixture_b()));
    let bin = env!("CARGO_BIN_EXE_vmap-replay");
    let out = Command::new(bin).args(["--diff", &a, &b, "--cpus", "1"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("became lazy: 1 areas, 12288 bytes"), "{s}");
    let out = Command::new(bin).args(["--report", "callers", &a]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("baz [mymod]"));
    let out = Command::new(bin).args(["--report", "nonsense", &a]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(bin).args(["--report", "fragmentation", "/nonexistent"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("vmap-replay: /nonexistent: "));
}

fn capture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/captures/linux-6.18-mixed")
}

fn gunzip(p: PathBuf) -> String {
    let bytes = std::fs::read(&p).unwrap();
    vmapviz_core::capture::part_text(&p.display().to_string(), &bytes).unwrap()
}

/// The capture's after file: the figures against the gaps between its areas, sorted here.
#[test]
fn real_capture_invariants() {
    let dir = capture_dir();
    if !dir.exists() {
        eprintln!("skipped: {} is not there", dir.display());
        return;
    }
    let text = gunzip(dir.join("vmallocinfo.after.gz"));
    let mut ranges: Vec<(u64, u64)> = text
        .lines()
        .map(|l| {
            let r = l.split_whitespace().next().unwrap();
            let (a, b) = r.split_once('-').unwrap();
            (u64::from_str_radix(&a[2..], 16).unwrap(), u64::from_str_radix(&b[2..], 16).unwrap())
        })
        .collect();
    ranges.sort();
    let (v, _) = vmallocinfo_state(&text, Profile::Linux618, Some(2)).unwrap();
    let f = fragmentation(&v, 2);
    for (i, (lo, hi)) in [(VMALLOC_START, VMALLOC_END), (MODULES_VADDR, MODULES_END)].into_iter().enumerate() {
        let mut gaps = Vec::new();
        let mut at = lo;
        for &(s, e) in ranges.iter().filter(|r| r.1 > lo && r.0 < hi) {
            if s > at {
                gaps.push(s - at);
            }
            at = at.max(e);
        }
        if hi > at {
            gaps.push(hi - at);
        }
        let w = &f.windows[i];
        assert_eq!(w.free_blocks, gaps.len() as u64, "{}", w.name);
        assert_eq!(w.free_bytes, gaps.iter().sum::<u64>(), "{}", w.name);
        assert_eq!(w.largest_free.unwrap().bytes, *gaps.iter().max().unwrap(), "{}", w.name);
        // Below the largest gap (the first of equal ones).
        let top = gaps.iter().max().unwrap();
        let at = gaps.iter().position(|g| g == top).unwrap();
        assert_eq!(w.largest_hole.map(|b| b.bytes), gaps[..at].iter().max().copied(), "{}", w.name);
        assert_eq!(w.histogram.iter().map(|c| c.bytes).sum::<u64>(), w.free_bytes);
        assert_eq!(w.histogram.iter().map(|c| c.blocks).sum::<u64>(), w.free_blocks);
        for c in &w.histogram {
            assert!(c.bytes >= c.blocks * c.min_pages * 4096 && c.bytes < c.blocks * c.max_pages.saturating_mul(4096));
        }
    }
    let lazy_lines = text.lines().filter(|l| l.ends_with("unpurged vm_area")).count() as u64;
    assert_eq!(f.lazy.areas, lazy_lines);
    // The replay of the whole capture reports the same busy areas as the kernel's after file.
    let o = Options { json: true, ..Options::default() };
    let j: serde_json::Value =
        serde_json::from_str(&report::fragmentation_report(&dir.display().to_string(), &o).unwrap()).unwrap();
    let states = j["states"].as_array().unwrap();
    assert_eq!(states.len(), 3);
    assert_eq!(states[1]["figures"]["windows"][0]["busy_bytes"], states[2]["figures"]["windows"][0]["busy_bytes"]);
    assert_eq!(states[2]["figures"]["windows"][0]["free_blocks"], f.windows[0].free_blocks);
}

/// The diff of the capture's two files against a set difference computed here.
#[test]
fn real_capture_diff_against_set_difference() {
    let dir = capture_dir();
    if !dir.exists() {
        eprintln!("skipped: {} is not there", dir.display());
        return;
    }
    let (a, b) = (gunzip(dir.join("vmallocinfo.before.gz")), gunzip(dir.join("vmallocinfo.after.gz")));
    let d = diff_texts(&a, &b).unwrap();
    use std::collections::HashMap;
    let parse = |t: &str| -> HashMap<String, String> {
        t.lines()
            .map(|l| {
                let mut w = l.split_whitespace();
                let r = w.next().unwrap().to_string();
                let _size = w.next();
                (r, w.next().unwrap_or("").to_string())
            })
            .collect()
    };
    let (ma, mb) = (parse(&a), parse(&b));
    let lazy = |c: &str| c == "unpurged";
    let mut appeared = 0;
    let mut disappeared = 0;
    let mut became_lazy = 0;
    for (r, cb) in &mb {
        match ma.get(r) {
            None => appeared += 1,
            Some(ca) if !lazy(ca) && lazy(cb) => became_lazy += 1,
            Some(ca) if ca != cb => {
                appeared += 1;
                disappeared += 1;
            }
            _ => {}
        }
    }
    disappeared += ma.keys().filter(|r| !mb.contains_key(*r)).count();
    assert_eq!((d.appeared.len(), d.disappeared.len(), d.became_lazy.len()), (appeared, disappeared, became_lazy));
    // Every line of B is new, changed (its old line counted as disappeared too), lazy now, or
    // unchanged.
    let new_b = mb.keys().filter(|r| !ma.contains_key(*r)).count();
    let changed = appeared - new_b;
    assert_eq!(d.unchanged as usize + became_lazy + changed + new_b, mb.len());
    assert!(d.unchanged > 0 && !d.appeared.is_empty() && !d.disappeared.is_empty());
}
