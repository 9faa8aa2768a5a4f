//! `vmap-maple-bench`: the maple tree alone (issue 13), events off. For trees of 10^3..10^6
//! one-page entries with one-page holes between them (an `MT_FLAGS_ALLOC_RANGE` tree storing
//! the zero entry, as the `maple-rfc` occupied tree does), times random erases, the stores that
//! put the same entries back, and `mas_empty_area` searches from random window starts; prints
//! ns/op and nodes touched per op (nodes walked by the store or the search, plus nodes created).
//!
//! ```text
//! cargo run --release --bin vmap-maple-bench [-- --max N] [--ops K]
//! ```

use std::time::Instant;

use vmapviz_core::maple::{MapleEntry, MapleTree};
use vmapviz_core::workload::Rng;

const PAGE: u64 = 0x1000;
const BASE: u64 = 0xffff_c900_0000_0000;
const END: u64 = 0xffff_e8ff_ffff_fffe;

fn main() {
    let mut max = 1_000_000u64;
    let mut ops = 200_000u64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--max" => max = args.next().and_then(|s| s.parse().ok()).unwrap_or(max),
            "--ops" => ops = args.next().and_then(|s| s.parse().ok()).unwrap_or(ops),
            _ => {
                eprintln!("usage: vmap-maple-bench [--max N] [--ops K]");
                std::process::exit(2);
            }
        }
    }
    println!(
        "{:>9} {:>6} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "entries", "height", "nodes", "erase ns", "touched", "store ns", "touched", "empty ns", "touched"
    );
    let mut n = 1000u64;
    while n <= max {
        let mut t = MapleTree::new(true);
        for i in 0..n {
            let a = BASE + i * 2 * PAGE;
            t.store_range(a, a + PAGE - 1, Some(MapleEntry::Zero)).expect("store");
        }
        let k = ops.min(n);
        let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15 ^ n);
        // k distinct victims: a random stride walk over the entries.
        let stride = (rng.next_u64() % n) | 1;
        let stride = if gcd(stride, n) == 1 { stride } else { 1 };
        let start = rng.next_u64() % n;
        let victims: Vec<u64> = (0..k).map(|j| BASE + ((start + j * stride) % n) * 2 * PAGE).collect();
        t.take_touched();
        let t0 = Instant::now();
        for &a in &victims {
            t.store_range(a, a + PAGE - 1, None).expect("erase");
        }
        let erase_ns = t0.elapsed().as_nanos() as f64 / k as f64;
        let erase_touch = t.take_touched() as f64 / k as f64;
        let t0 = Instant::now();
        for &a in &victims {
            t.store_range(a, a + PAGE - 1, Some(MapleEntry::Zero)).expect("store");
        }
        let store_ns = t0.elapsed().as_nanos() as f64 / k as f64;
        let store_touch = t.take_touched() as f64 / k as f64;
        let span = n * 2 * PAGE;
        let starts: Vec<u64> = (0..k).map(|_| BASE + (rng.next_u64() % span) / PAGE * PAGE).collect();
        let mut found = 0u64;
        let t0 = Instant::now();
        for &s in &starts {
            if let Ok((i, _)) = t.empty_area(s, END, PAGE) {
                found = found.wrapping_add(i);
            }
        }
        let empty_ns = t0.elapsed().as_nanos() as f64 / k as f64;
        let empty_touch = t.take_touched() as f64 / k as f64;
        std::hint::black_box(found);
        t.validate().expect("valid tree");
        println!(
            "{:>9} {:>6} {:>7} {:>9.0} {:>9.1} {:>9.0} {:>9.1} {:>9.0} {:>9.1}",
            n,
            t.height(),
            t.node_count(),
            erase_ns,
            erase_touch,
            store_ns,
            store_touch,
            empty_ns,
            empty_touch
        );
        n *= 10;
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
