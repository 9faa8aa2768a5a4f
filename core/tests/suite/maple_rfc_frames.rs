//! maple-rfc step by step (issues 14/15): the events the profile reports when someone listens —
//! its maple trees' own events forwarded as `Event::Maple`, the window loop, the bump overlay —
//! and the frames a player builds from them. Checked here against what the allocator did (its
//! output with no observer, its state after the operation), not against the code that emits them.

use vmapviz_core::events::MapleTreeKind;
use vmapviz_core::maple::MapleEvent;
use vmapviz_core::session::IndexSnap;
use vmapviz_core::workload::Rng;
use vmapviz_core::{Event, Session};

const VS: u64 = 0xffff_c900_0000_0000;
const VE: u64 = 0xffff_e8ff_ffff_ffff;

/// A random maple-rfc trace: allocations of 1–40 pages (some aligned up to 1 MiB, some in a
/// narrow window), frees and vfrees of live areas, purges; bump on or off, 1–4 CPUs.
fn trace(seed: u64, bump: bool, cpus: u64, ops: usize) -> String {
    let mut r = Rng::new(seed);
    let mut t = format!("profile maple-rfc\nbump {}\ncpus {cpus}\n", if bump { "on" } else { "off" });
    // Addresses handed out so far, found by replaying the text as it grows.
    let mut s = Session::load(&t).unwrap();
    let mut live: Vec<u64> = Vec::new();
    for _ in 0..ops {
        let pick = r.below(10);
        let line = if pick < 5 || live.is_empty() {
            let size = r.inclusive(1, 40) * 0x1000;
            let align = match r.below(4) {
                0 => 0x1000 << r.below(9),
                _ => 1,
            };
            if r.below(5) == 0 {
                format!("alloc {size:#x} {align:#x} {:#x} {:#x}", VS, VS + 0x400_0000)
            } else {
                format!("alloc {size:#x} {align:#x} {VS:#x} {VE:#x}")
            }
        } else if pick < 9 {
            let a = live.swap_remove(r.below(live.len() as u64) as usize);
            if r.below(2) == 0 {
                format!("vfree {a:#x}")
            } else {
                format!("free {a:#x}")
            }
        } else if cpus > 1 && r.below(2) == 0 {
            format!("cpu {}", r.below(cpus))
        } else {
            "purge".to_string()
        };
        s.push_text(&line).unwrap();
        let out = s.op_output(s.len() - 1);
        if let Some(a) = out.trim().strip_prefix("alloc -> 0x") {
            live.push(u64::from_str_radix(a, 16).unwrap());
        }
        t.push_str(&line);
        t.push('\n');
    }
    t
}

fn maple(ev: &Event) -> Option<(MapleTreeKind, &MapleEvent)> {
    match ev {
        Event::Maple { tree, event, .. } => Some((*tree, event)),
        _ => None,
    }
}

/// Listening changes nothing: the same trace gives the same output and the same state whether
/// the frames are recorded or not; each operation's frames start on the index before it and end
/// on the index after it; every frame points at a snapshot that exists, never going back.
#[test]
fn frames_start_and_end_on_the_states_around_each_operation() {
    let mut checked = 0;
    for (seed, bump, cpus) in [(1, false, 1), (2, true, 1), (3, true, 4), (4, false, 2)] {
        let text = trace(seed, bump, cpus, 160);
        let s = Session::load(&text).unwrap();
        let mut out = String::new();
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            out.push_str(&f.output);
            assert_eq!(f.output, s.op_output(k), "seed {seed} op {k}: recording changed the output");
            assert_eq!(f.after, s.state_before(k + 1), "seed {seed} op {k}: recording changed the state");
            assert!(matches!(f.before.index, IndexSnap::Maple { .. }), "maple-rfc reports a maple tree");
            assert_eq!(f.trees.first(), Some(&f.before.index), "seed {seed} op {k}");
            if !f.frames.is_empty() {
                assert_eq!(
                    f.trees.last(),
                    Some(&f.after.index),
                    "seed {seed} op {k} `{}`: ends on the tree after",
                    f.text
                );
            }
            let mut last = 0;
            for fr in &f.frames {
                assert!(fr.tree < f.trees.len() && fr.tree >= last, "seed {seed} op {k}");
                last = fr.tree;
            }
            checked += f.frames.len();
        }
        assert_eq!(out, s.output());
    }
    assert!(checked > 2000, "{checked} frames");
}

/// The window loop's events tell what it did: each iteration follows the maple tree's
/// `HoleFound` for the same hole; the candidate is the hole's start aligned up; a fitting
/// candidate is the address the allocation returned; a miss names the next search start past
/// the hole (or past the skipped steps in it).
#[test]
fn window_loop_events_follow_the_maple_search_and_end_on_the_address() {
    let (mut fits, mut misses) = (0, 0);
    for (seed, bump) in [(11, false), (12, true), (13, false)] {
        // Page-aligned requests in a window that starts mid-page: the hole's start is not
        // aligned, the candidate overshoots it and the loop searches again past it.
        let mut text = trace(seed, bump, 1, 200);
        for i in 0..4u64 {
            text.push_str(&format!("alloc {:#x} 0x1000 {:#x} {VE:#x}\n", 0x1000 * (i + 1), VS + 0x1_0000_0800));
        }
        let s = Session::load(&text).unwrap();
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            let evs: Vec<&Event> = f.frames.iter().map(|fr| &fr.event).collect();
            let mut window: Option<(u64, u64)> = None; // (size, align)
            let mut last_found: Option<(u64, u64)> = None;
            for (i, ev) in evs.iter().enumerate() {
                match ev {
                    Event::WindowStart { size, align, len, .. } => {
                        let (size, align, len) = (&size.0, &align.0, &len.0);
                        let want = if *align > 0x1000 { size + align - 1 } else { *size };
                        assert_eq!(*len, want, "op {k}: the padded length");
                        window = Some((*size, *align));
                        last_found = None;
                    }
                    Event::Maple {
                        tree: MapleTreeKind::Occupied,
                        event: MapleEvent::HoleFound { index, last },
                        ..
                    } => {
                        last_found = Some((index.0, last.0));
                    }
                    Event::WindowHole {
                        index, hole_end, candidate, cand_end, fits: ok, next, skipped, search, ..
                    } => {
                        let (index, hole_end, candidate, cand_end, search) =
                            (&index.0, &hole_end.0, &candidate.0, &cand_end.0, &search.0);
                        let next = &next.map(u64::from);
                        let (size, align) = window.expect("an iteration inside a window loop");
                        // Each iteration follows its gap search's result, but for an empty tree,
                        // where `mas_empty_area` answers at once (`mas_sparse_area`) without a walk.
                        match last_found.take() {
                            Some((fi, fl)) => {
                                assert_eq!(*index, fi, "op {k} frame {i}");
                                assert!(*hole_end <= fl, "op {k} frame {i}");
                            }
                            None => {
                                let IndexSnap::Maple { tree } = &f.trees[f.frames[i].tree] else { panic!() };
                                assert!(tree.nodes.is_empty(), "op {k} frame {i}: a search with no result");
                                assert_eq!(*index, *search, "op {k} frame {i}");
                            }
                        }
                        assert_eq!(*candidate, index.div_ceil(align) * align, "op {k} frame {i}: aligned up");
                        assert_eq!(*cand_end, candidate + size - 1, "op {k} frame {i}");
                        assert_eq!(*ok, candidate >= search && cand_end <= hole_end, "op {k} frame {i}");
                        if *ok {
                            fits += 1;
                            assert_eq!(*next, None);
                            // The address returned: the next Allocated, or the chunk a refill took.
                            let addr = evs[i..].iter().find_map(|e| match e {
                                Event::Allocated { addr, .. } => Some(addr.0),
                                Event::BumpRefill { base, .. } => Some(base.0),
                                _ => None,
                            });
                            assert_eq!(addr, Some(*candidate), "op {k} frame {i}: {}", f.text);
                        } else if let Some(n) = next {
                            misses += 1;
                            assert!(*n > *hole_end || *skipped > 0, "op {k} frame {i}: searches again past the hole");
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(fits > 100, "{fits} fitting iterations");
    assert!(misses > 0, "{misses} iterations that searched again");
}

/// A bump hit touches no tree: between the hit and the end of the operation there is no maple
/// event, and the occupied tree is the same before and after. A refill stores exactly one
/// 64 MiB range in the occupied tree.
#[test]
fn a_bump_hit_touches_no_tree() {
    let s = Session::load(&trace(21, true, 2, 200)).unwrap();
    let (mut hits, mut refills) = (0, 0);
    for k in 0..s.len() {
        let f = s.frames(k).unwrap();
        let evs: Vec<&Event> = f.frames.iter().map(|fr| &fr.event).collect();
        if let Some(i) = evs.iter().position(|e| matches!(e, Event::BumpHit { .. })) {
            hits += 1;
            assert!(evs[i..].iter().all(|e| maple(e).is_none()), "op {k}: a tree was touched after the hit");
            if !evs.iter().any(|e| matches!(e, Event::BumpRefill { .. })) {
                assert!(evs.iter().all(|e| maple(e).is_none()), "op {k}: no tree for a plain hit");
                assert_eq!(f.before.index, f.after.index, "op {k}");
            }
        }
        if let Some(Event::BumpRefill { base, limit, .. }) =
            evs.iter().find(|e| matches!(e, Event::BumpRefill { .. })).copied()
        {
            refills += 1;
            let (base, limit) = (&base.0, limit.0);
            assert_eq!(limit - base, 64 << 20);
            let stores: Vec<_> = evs
                .iter()
                .filter_map(|e| match maple(e) {
                    Some((MapleTreeKind::Occupied, MapleEvent::StoreBegin { first, last, erase })) => {
                        Some((first.0, last.0, *erase))
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(stores.first(), Some(&(*base, limit - 1, false)), "op {k}: the chunk's range is stored");
        }
    }
    assert!(hits > 50 && refills >= 2, "{hits} hits, {refills} refills");
}

/// A gap update that climbs shows one level per step: after each occupied-tree `GapUpdate`, the
/// frame's tree holds the written gap in the named node's slot.
#[test]
fn each_gap_update_frame_shows_the_gap_it_wrote() {
    let mut seen = 0;
    let mut stops_early = 0;
    // 600 areas, then every third one freed and purged: a tree of height 3, NULL stores that
    // change a leaf's largest gap (or not) and climb.
    let mut text = String::from("profile maple-rfc\nbump off\n");
    for i in 0..600u64 {
        text.push_str(&format!("alloc {:#x} 0x1 {VS:#x} {VE:#x}\n", (i % 3 + 1) * 0x1000));
    }
    let mut a = VS;
    for i in 0..600u64 {
        if i % 3 == 1 {
            text.push_str(&format!("vfree {a:#x}\n"));
        }
        a += (i % 3 + 1) * 0x1000;
    }
    text.push_str("purge\n");
    for (seed, bump) in [(31, false), (32, false)] {
        let s =
            if seed == 31 { Session::load(&text).unwrap() } else { Session::load(&trace(seed, bump, 1, 300)).unwrap() };
        for k in 0..s.len() {
            let f = s.frames(k).unwrap();
            for fr in &f.frames {
                if let Event::Maple {
                    tree: MapleTreeKind::Occupied,
                    event: MapleEvent::GapUpdate { node, slot, gap, stop },
                    ..
                } = &fr.event
                {
                    let IndexSnap::Maple { tree } = &f.trees[fr.tree] else { panic!("a maple index") };
                    let n = tree.nodes.iter().find(|n| n.id == *node).expect("the node is in the frame's tree");
                    assert_eq!(n.slots[*slot].gap.map(|g| g.0), Some(gap.0), "op {k}: gap of node {node} slot {slot}");
                    seen += 1;
                    if *stop && n.parent.is_some() {
                        stops_early += 1;
                    }
                }
            }
        }
    }
    assert!(seen > 100, "{seen} gap updates");
    assert!(stops_early > 10, "{stops_early} propagations that stop below the root");
}

/// One source for the counters: the work counted from the events (`CounterObserver`, what
/// `vmap-replay --counters`, the facade and the sweeps report) agrees with the allocator's own
/// bookkeeping where both count the same thing (window iterations, bump hits), and the maple
/// search figures are there.
#[test]
fn counters_count_the_maple_work_from_the_events() {
    use vmapviz_core::counters::CounterObserver;
    use vmapviz_core::replay::Replayer;
    use vmapviz_core::trace::parse_trace;
    for (seed, bump, cpus) in [(41, false, 1), (42, true, 2), (43, true, 1)] {
        let mut text = trace(seed, bump, cpus, 200);
        text.push_str(&format!("alloc 0x3000 0x1000 {:#x} {VE:#x}\n", VS + 0x1_0000_0800));
        let mut r = Replayer::default();
        let mut c = CounterObserver::default();
        let mut out = String::new();
        for l in parse_trace(&text).unwrap() {
            let _ = r.apply(&l.op, &mut out, &mut c);
            c.end_op();
        }
        let m = r.vmap.rfc().expect("a maple-rfc allocator");
        assert_eq!(c.total.window_iterations.0, m.counters.window_iterations, "seed {seed}");
        assert_eq!(c.total.bump_hits.0, m.counters.bump_hits, "seed {seed}");
        assert!(c.total.nodes_visited.0 > 0 && c.total.slots_scanned.0 > 0 && c.total.cache_lines.0 > 0, "seed {seed}");
        if !bump {
            // Without the overlay the tree grows past one leaf: its gaps are updated.
            assert!(c.total.propagations.0 > 0, "seed {seed}: gap updates");
        }
        if bump {
            assert!(c.total.bump_hits.0 > 0, "seed {seed}");
        }
    }
}

/// A purge's frames follow it area by area (issue 33: S3's reclaim drew the 20 purged areas lazy
/// for all of its micro-steps while the occupied tree already showed them gone). The areas in
/// force at each `purge_area` frame hold one lazy area fewer than at the one before; a pooled
/// area is in its pool from its `pooled` frame on; after the purge none is lazy.
#[test]
fn a_purge_takes_its_lazy_areas_one_frame_at_a_time() {
    let mut t = String::from("profile maple-rfc\nbump off\ncpus 2\n");
    for _ in 0..12 {
        t += &format!("alloc 0x2000 0x1 {VS:#x} {VE:#x}\n");
    }
    let s = Session::load(&t).unwrap();
    let addrs: Vec<u64> = (3..s.len())
        .map(|k| u64::from_str_radix(s.op_output(k).trim().trim_start_matches("alloc -> 0x"), 16).unwrap())
        .collect();
    for a in &addrs {
        t += &format!("vfree {a:#x}\n");
    }
    for purge in ["purge", "reclaim"] {
        let mut t = t.clone();
        t += &format!("{purge}\n");
        let s = Session::load(&t).unwrap();
        let f = s.frames(s.len() - 1).unwrap();
        assert_eq!(f.before.lazy.len(), 12, "{purge}: 12 lazy areas before");
        let mut lazy_seen = Vec::new();
        let mut pooled_after = 0;
        for fr in &f.frames {
            let a = &f.areas[fr.areas];
            match fr.event {
                Event::PurgeArea { .. } => lazy_seen.push(a.lazy.len()),
                Event::Pooled { .. } => pooled_after = a.pools.iter().map(|p| p.entries.len()).sum(),
                _ => {}
            }
        }
        assert_eq!(lazy_seen, (0..12).rev().collect::<Vec<usize>>(), "{purge}: one lazy area fewer at each purge_area");
        assert!(f.after.lazy.is_empty());
        if purge == "purge" {
            // A plain purge pools areas of at most 256 pages (purge_vmap_node): all 12 here.
            assert_eq!(pooled_after, 12, "the last pooled frame shows every area in a pool");
        } else {
            // reclaim purges with full = true: nothing is pooled, every range becomes NULL.
            assert_eq!(pooled_after, 0);
        }
    }
}
