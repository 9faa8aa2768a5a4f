//! `vmap-threads`: the two locking designs with real threads, the Rust core doing the work.
//!
//! * `global` (5.2 – 6.8): one `Mutex<Vmap>` (profile linux-6.1) guards the free tree, the
//!   busy tree and the lazy list; every vmalloc and vfree takes it.
//! * `nodes` (6.9): each thread's CPU maps to a vmap node with its own `Mutex` over per-size
//!   pools and a lazy list; the global `Mutex<Vmap>` (the free tree, via the core) is taken
//!   only on a pool miss, when a purge returns decayed areas, or when a pool cannot take an
//!   area. The node layer mirrors 6.9's structure (pools by page count, front insertion,
//!   first-entry use, 25 % decay); the tree work is the core's own.
//!
//! ```text
//! cargo run --release --bin vmap-threads [-- --ops N] [--threads 1,2,4]
//! ```
//! Limits: this machine has 2 cores, so more threads than cores measure contention under
//! time-slicing, not parallel speed-up; `std::sync::Mutex` is not a kernel spinlock.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use vmapviz_core::vmalloc::{PAGE_SIZE, VMALLOC_END, VMALLOC_START};
use vmapviz_core::{NoObserver, Profile, Vmap};

const LAZY_MAX_PAGES: u64 = 8192 * 2;

fn size_of(pages: u64) -> u64 {
    (pages + 1) * PAGE_SIZE
}

/// Operation mix per thread: vmalloc 1–4 pages, vfree it, repeat.
fn pages_for(i: usize, t: usize) -> u64 {
    ((i * 7 + t * 3) % 4 + 1) as u64
}

fn global(threads: usize, ops: usize) -> f64 {
    let v = Arc::new(Mutex::new(Vmap::new(Profile::Linux61)));
    let t0 = Instant::now();
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            let v = Arc::clone(&v);
            std::thread::spawn(move || {
                // The busy tree lives in the Vmap, under the same global lock.
                for i in 0..ops / 2 {
                    let size = size_of(pages_for(i, t));
                    let a = v.lock().map(|mut g| g.alloc(size, 1, VMALLOC_START, VMALLOC_END, &mut NoObserver));
                    if let Ok(Ok(a)) = a {
                        if let Ok(mut g) = v.lock() {
                            let _ = g.vfree(a, &mut NoObserver);
                        }
                    }
                }
            })
        })
        .collect();
    for h in hs {
        let _ = h.join();
    }
    (threads * (ops / 2) * 2) as f64 / t0.elapsed().as_secs_f64()
}

#[derive(Default)]
struct Node {
    /// pages -> areas, front first.
    pools: HashMap<u64, VecDeque<u64>>,
    /// The node's busy tree (6.9 keeps one per node, under the node's lock).
    busy: BTreeSet<u64>,
    lazy: Vec<(u64, u64)>,
    lazy_pages: u64,
}

fn nodes(threads: usize, ops: usize) -> f64 {
    let v = Arc::new(Mutex::new(Vmap::new(Profile::Linux61)));
    let nodes: Arc<Vec<Mutex<Node>>> = Arc::new((0..threads).map(|_| Mutex::new(Node::default())).collect());
    let t0 = Instant::now();
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            let v = Arc::clone(&v);
            let nodes = Arc::clone(&nodes);
            std::thread::spawn(move || {
                let me = &nodes[t];
                for i in 0..ops / 2 {
                    let pages = pages_for(i, t);
                    let size = size_of(pages);
                    // node_alloc: the first entry of this node's pool, if any.
                    let hit = me.lock().ok().and_then(|mut n| n.pools.get_mut(&pages)?.pop_front());
                    let a = match hit {
                        Some(a) => a,
                        None => {
                            match v.lock().map(|mut g| g.alloc(size, 1, VMALLOC_START, VMALLOC_END, &mut NoObserver)) {
                                Ok(Ok(a)) => a,
                                _ => continue,
                            }
                        }
                    };
                    if let Ok(mut n) = me.lock() {
                        n.busy.insert(a);
                    }
                    // vfree: out of busy, into the node's lazy list; over the threshold, purge.
                    let purge = me.lock().ok().and_then(|mut n| {
                        n.busy.remove(&a);
                        n.lazy.push((a, pages));
                        n.lazy_pages += pages + 1;
                        if n.lazy_pages > LAZY_MAX_PAGES / threads as u64 {
                            n.lazy_pages = 0;
                            Some(std::mem::take(&mut n.lazy))
                        } else {
                            None
                        }
                    });
                    if let Some(list) = purge {
                        // Decay a quarter of each pool back to the tree, then pool the lazy areas.
                        let decayed: Vec<u64> = me
                            .lock()
                            .map(|mut n| {
                                let mut out = Vec::new();
                                for p in n.pools.values_mut() {
                                    let k = (p.len() >> 2).max(p.len().min(1));
                                    out.extend(p.drain(..k));
                                }
                                for (a, pages) in list {
                                    n.pools.entry(pages).or_default().push_front(a);
                                }
                                out
                            })
                            .unwrap_or_default();
                        if !decayed.is_empty() {
                            if let Ok(mut g) = v.lock() {
                                for a in decayed {
                                    let _ = g.free(a, &mut NoObserver);
                                }
                            }
                        }
                    }
                }
            })
        })
        .collect();
    for h in hs {
        let _ = h.join();
    }
    (threads * (ops / 2) * 2) as f64 / t0.elapsed().as_secs_f64()
}

fn main() {
    let mut ops = 400_000usize;
    let mut threads = vec![1usize, 2, 4, 8];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--ops" => ops = args.next().and_then(|s| s.parse().ok()).unwrap_or(ops),
            "--threads" => {
                threads =
                    args.next().map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect()).unwrap_or(threads)
            }
            _ => {
                eprintln!("usage: vmap-threads [--ops N per thread] [--threads 1,2,4]");
                std::process::exit(2);
            }
        }
    }
    println!("cores available: {}", std::thread::available_parallelism().map_or(1, |n| n.get()));
    println!("{:>8} {:>16} {:>16} {:>8}", "threads", "global ops/s", "nodes ops/s", "ratio");
    for &t in &threads {
        let g = global(t, ops);
        let n = nodes(t, ops);
        println!("{t:>8} {g:>16.0} {n:>16.0} {:>8.2}", n / g);
    }
}
