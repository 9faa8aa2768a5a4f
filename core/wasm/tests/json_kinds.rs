//! Which JSON kind each field of the facade's output has, checked against a reference that does
//! not use the Rust types: the list of keys whose integers are plain JSON numbers (ids, counts,
//! depths), as the contract has always had them; every other integer is `"0x…"` text. The
//! output is read back, its hex text turned into integers, and the reference's rule applied to
//! that: the result must be the output again. A field whose kind changes (an id sent as hex, an
//! address sent as a number) fails here, whatever its Rust type says.

use serde_json::Value;
use vmapviz_wasm::*;

/// Keys whose integers are JSON numbers (the elements of an array stand under its key).
const NUMBER_KEYS: &[&str] = &[
    "id",
    "parent",
    "left",
    "right",
    "survivor",
    "removed",
    "old_top",
    "new_top",
    "prev",
    "next",
    "node",
    "pool",
    "case",
    "taken",
    "kept",
    "count",
    "purged",
    "index",
    "line",
    "tree",
    "depth",
    "cpus",
    "cpu",
    "nr_nodes",
    "lazy_nr",
    "lazy_max",
    "root",
    "ops",
    "bit",
    "seed",
    "loops",
    "nr_pages",
    "nr_threads",
    "test_repeat_count",
    "run_test_mask",
    "keep",
    "threads",
    "mask",
    "module_tests",
    "live",
    "mapped",
    "purge_events",
    "mismatches",
    "total",
    "done",
    "del",
    "areas",
    "busy_del",
    // maple-rfc's bump chunks (pages in use, the owner CPU) and the index memory of a state.
    "pages",
    "owner_cpu",
    "vmap_area_bytes",
    "objects",
    "free_blocks",
    "live_areas",
    "occupied_nodes",
    "busy_tree_nodes",
    "free_tree_nodes",
    "chunks",
    "index_bytes",
    // The fragmentation figures, the callers and the diff (sizes in bytes or pages, as
    // `vmap-replay --json` prints them: JSON numbers, below 2^53 in any window).
    "bytes",
    "busy_areas",
    "busy_bytes",
    "lazy_areas",
    "lazy_bytes",
    "pooled_areas",
    "pooled_bytes",
    "free_bytes",
    "min_pages",
    "max_pages",
    "blocks",
    "online_cpus",
    "lazy_max_pages",
    "lazy_pages",
    "largest_free",
    "largest_hole",
    "step",
    "unchanged",
];

/// `0x` text back to an integer (the reference decides again which integers are text).
fn unhex(v: Value) -> Value {
    match v {
        Value::String(s)
            if s.len() > 2 && s.len() <= 18 && s.starts_with("0x") && s[2..].bytes().all(|b| b.is_ascii_hexdigit()) =>
        {
            Value::from(u64::from_str_radix(&s[2..], 16).unwrap())
        }
        Value::Array(a) => Value::Array(a.into_iter().map(unhex).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, x)| (k, unhex(x))).collect()),
        other => other,
    }
}

/// The reference rule: a non-negative integer becomes hex text unless its key is a number key.
fn hexify(v: Value, key: &str) -> Value {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(u) if !NUMBER_KEYS.contains(&key) => Value::String(format!("{u:#x}")),
            _ => Value::Number(n),
        },
        Value::Array(a) => Value::Array(a.into_iter().map(|x| hexify(x, key)).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, x)| (k.clone(), hexify(x, &k))).collect()),
        other => other,
    }
}

/// Checks one output; returns how many hex strings and numbers it held.
fn same_as_reference(what: &str, json: &str) -> (usize, usize) {
    let out: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"));
    let reference = hexify(unhex(out.clone()), "");
    if out != reference {
        panic!("{what}: a field has another kind than the reference\n out: {out}\n ref: {reference}");
    }
    fn count(v: &Value) -> (usize, usize) {
        match v {
            Value::String(s) if s.starts_with("0x") => (1, 0),
            Value::Number(_) => (0, 1),
            Value::Array(a) => a.iter().map(count).fold((0, 0), |x, y| (x.0 + y.0, x.1 + y.1)),
            Value::Object(o) => o.values().map(count).fold((0, 0), |x, y| (x.0 + y.0, x.1 + y.1)),
            _ => (0, 0),
        }
    }
    count(&out)
}

fn vectors() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let mut out = Vec::new();
    for dir in ["conformance", "conformance-nodes"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "trace"))
            .collect();
        files.sort();
        out.extend(files.into_iter().map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap())));
    }
    out
}

#[test]
fn every_page_call_on_every_vector() {
    let (mut hex, mut num) = (0, 0);
    let extra = "profile linux-5.1\ninit 0x100000 0x200000\nalloc 0x2000 0x1000 0x100000 0x200000\n\
                 alloc 0x2000 0x1000 0x100000 0x200000\nalloc 0x2000 0x1000 0x100000 0x200000\nfree 0x102000\n\
                 alloc 0x3000 0x1000 0x100000 0x200000\nalloc 0x2000 0x1000 0x100000 0x200000\n\
                 pcpu 0x1000 0x0:0x2000 0x4000:0x2000\nalloc 0x100000 0x1000 0x100000 0x200000\n";
    let mut all = vectors();
    all.push(("linux-5.1 walk".into(), extra.into()));
    all.push(("pcpu".into(), "profile linux-6.9\ncpus 2\npcpu 0x1000 0x0:0x2000 0x4000:0x2000\n".into()));
    for (name, text) in &all {
        let v = Vmapviz::load(text).unwrap();
        let n = v.len();
        let stride = if n > 400 { n / 40 } else { 1 };
        let mut k = 0;
        loop {
            for (what, json) in [("state", v.state(k)), ("frames", v.frames(k))] {
                let (h, m) = same_as_reference(&format!("{name} {what}({k})"), &json);
                hex += h;
                num += m;
            }
            if k == n {
                break;
            }
            k = (k + stride).min(n);
        }
        same_as_reference(&format!("{name} summaries"), &v.summaries(0, n));
        same_as_reference(&format!("{name} counters"), &v.counters(0, n));
    }
    let mut s = Vmapviz::new("linux-6.9").unwrap();
    for l in
        ["cpus 4", "alloc 0x3000 0x1000 0xffffc90000000000 0xffffe8ffffffffff", "vfree 0xffffc90000000000", "reclaim"]
    {
        same_as_reference(l, &s.push(l).unwrap());
    }
    assert!(hex > 100_000 && num > 100_000, "{hex} hex strings and {num} numbers checked");
}

#[test]
fn every_workbench_call() {
    for p in ["linux-5.1", "linux-5.2", "linux-6.1", "linux-6.9"] {
        same_as_reference("cost_sweep", &cost_sweep(p, "random", "10,100", 30, None).unwrap());
        same_as_reference("cost_sweep", &cost_sweep(p, "long_busy", "10,100", 30, None).unwrap());
        same_as_reference("contention", &contention(p, "1,2,8", 50, None).unwrap());
    }
    for bump in [None, Some(true), Some(false)] {
        same_as_reference("contention", &contention("maple-rfc", "1,2,8", 50, bump).unwrap());
    }
    same_as_reference("workloads", &workloads());
    for pre in ["", "performance", "stress", "smoke"] {
        same_as_reference("workload_params", &workload_params("{}", pre).unwrap());
        let p = r#"{"seed": 7, "cpus": 4, "keep": 20, "nr_pages": 3, "run_test_mask": 5, "profile": "linux-6.9"}"#;
        same_as_reference("workload_params", &workload_params(p, pre).unwrap());
    }
    let vi = "0xffffc90000000000-0xffffc90000005000   20480 load_module+0x1/0x2 pages=4 vmalloc\n\
              0xffffc90000005000-0xffffc90000008000   12288 foo+0x1/0x2 pages=2 vmalloc\n\
              0xffffc90000008000-0xffffc9000000a000    8192 unpurged vm_area\n";
    let r = import_text("vmallocinfo", vi, "").map_err(|_| "import").unwrap();
    let (_, numbers) = same_as_reference("import report", &r.report());
    assert!(numbers >= 3);
    let (hex, _) = same_as_reference("vmallocinfo_callers", &vmallocinfo_callers("vi", vi.as_bytes()).unwrap());
    assert_eq!(hex, 6, "each area's start and end");
    let later = vi.replace("foo+0x1/0x2 pages=2 vmalloc", "unpurged vm_area");
    let (hex, numbers) = same_as_reference("vm_diff", &vm_diff("a", vi.as_bytes(), "b", later.as_bytes()).unwrap());
    assert!(hex >= 8 && numbers >= 20, "{hex} {numbers}");
    let v = Vmapviz::load(
        "profile linux-6.9\ncpus 2\nalloc 0x3000 0x1000 0xffffc90000000000 0xffffe8ffffffffff\n\
         vfree 0xffffc90000000000\npurge\n",
    )
    .unwrap();
    for k in 0..=v.len() {
        same_as_reference("fragmentation", &v.fragmentation(k));
    }
    same_as_reference("frag_series", &v.frag_series(0, v.len(), 1));
}
