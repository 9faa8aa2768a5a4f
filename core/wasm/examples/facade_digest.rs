//! A digest of every JSON-returning facade call over the conformance vectors, one line per
//! vector: run it before and after a change that must not change the contract's bytes, and
//! diff the two outputs. (How the change to typed addresses, issue 12, was checked: 22,842
//! calls, 1.35 GB of JSON, identical to the text scanner's output it replaced.)
//!
//!   cargo run --release -p vmapviz-wasm --example facade_digest > before.txt

use vmapviz_wasm::*;

/// FNV-1a over the bytes, with a separator after each string.
fn fnv(h: &mut u64, s: &str) {
    for b in s.bytes().chain([0xffu8]) {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    let mut files: Vec<_> = ["conformance", "conformance-nodes"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).expect("../shared beside the repository"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    files.sort();
    let (mut calls, mut bytes) = (0usize, 0usize);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else { continue };
        let Ok(v) = Vmapviz::load(&text) else { continue };
        let n = v.len();
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        let stride = if n > 800 { 7 } else { 1 };
        let mut k = 0;
        while k <= n {
            for s in [v.state(k), v.frames(k)] {
                bytes += s.len();
                fnv(&mut h, &s);
                calls += 1;
            }
            k += if k + stride > n && k < n { n - k } else { stride };
        }
        fnv(&mut h, &v.summaries(0, n));
        fnv(&mut h, &v.counters(0, n));
        fnv(&mut h, &v.counters(n / 3, n / 2));
        calls += 3;
        let mut s = Vmapviz::new("").expect("the default profile");
        for line in text.lines().filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#')).take(40) {
            if line.starts_with("profile") {
                continue;
            }
            if let Ok(j) = s.push(line) {
                fnv(&mut h, &j);
                calls += 1;
            }
        }
        let r = import_text("trace", &text, "").ok().map(|r| r.report());
        fnv(&mut h, r.as_deref().unwrap_or("-"));
        println!("{} ops={n} {h:016x}", f.file_name().unwrap_or_default().to_string_lossy());
    }
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for p in ["linux-5.1", "linux-5.2", "linux-6.1", "linux-6.9"] {
        for j in [
            cost_sweep(p, "random", "10,100", 50, None),
            cost_sweep(p, "long_busy", "10,100", 50, None),
            contention(p, "1,2,8", 100, None),
        ] {
            fnv(&mut h, &j.unwrap_or_default());
        }
    }
    fnv(&mut h, &workloads());
    for pre in ["", "performance", "stress", "smoke"] {
        fnv(&mut h, &workload_params("{}", pre).unwrap_or_default());
        fnv(&mut h, &workload_params(r#"{"seed": 7, "cpus": 4, "profile": "linux-6.9"}"#, pre).unwrap_or_default());
    }
    let vi = "0xffffc90000000000-0xffffc90000005000   20480 load_module+0x1/0x2 pages=4 vmalloc\n\
              0xffffc90000005000-0xffffc90000008000   12288 foo+0x1/0x2 pages=2 vmalloc\n";
    fnv(&mut h, &import_text("vmallocinfo", vi, "").map(|r| r.report()).unwrap_or_default());
    println!("workbench {h:016x}");
    println!("calls={calls} bytes={bytes}");
}
