//! linux-6.18 against linux-6.9: each difference of the 6.18 profile shown by a small trace
//! that the two profiles replay differently, the expected output argued from the kernel's rule
//! (spec §5.3, "decay_va_pool_node"; `core/src/era/v618.rs` names the commits). And what did
//! not change: the traces where both must agree.

use vmapviz_core::check::check_invariants;
use vmapviz_core::{parse_trace, NoObserver, Profile, Replayer};

/// Replay `body` under `profile` (invariants after each line) and return the output.
fn run(profile: &str, body: &str) -> String {
    let text = format!("profile {profile}\n{body}");
    let lines = parse_trace(&text).unwrap();
    let mut r = Replayer::new(Profile::parse(profile).unwrap());
    let mut out = String::new();
    for l in &lines {
        r.apply(&l.op, &mut out, &mut NoObserver).unwrap_or_else(|e| panic!("line {}: {e}", l.line));
        check_invariants(&r.vmap).unwrap_or_else(|e| panic!("{profile} line {}: {e}", l.line));
    }
    out
}

// The default window, where the pools are used (with more than one node).
const A: &str = "0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff";

/// A pool of one entry at a non-full decay. Three 2-page areas C, A, B from VMALLOC_START on
/// CPU 0 (node 0's vn_id); A is vfreed and a purge pools it (node 0, pool 1: 2 pages); C is
/// freed at once, so the free block below VMALLOC_START now ends at A. The next purge decays
/// node 0's pool 1 of length 1: 1 >> 2 = 0.
/// * 6.9 counts down after taking: the counter wraps and the whole pool goes back, A merges
///   into the block below, and the next 2-page request on CPU 0 finds the pool empty and takes
///   the lowest fit from VMALLOC_START: C's old place, 0x...0000.
/// * 6.18 tests before taking: nothing is taken, A stays pooled (`pools` shows it), and the
///   next request on CPU 0 pops it: 0x...2000.
#[test]
fn a_pool_of_one_is_left_alone_by_a_non_full_decay() {
    let body = format!(
        "cpus 2\ncpu 0\nalloc {A}\nalloc {A}\nalloc {A}\nvfree 0xffffc90000002000\npurge\nfree 0xffffc90000000000\n\
         purge\npools\nalloc {A}\n"
    );
    let common = "alloc -> 0xffffc90000000000\nalloc -> 0xffffc90000002000\nalloc -> 0xffffc90000004000\n\
                  vfree 0xffffc90000002000 ok\npurge 1\nfree 0xffffc90000000000 ok\npurge 0\n";
    assert_eq!(run("linux-6.9", &body), format!("{common}end\nalloc -> 0xffffc90000000000\n"));
    assert_eq!(
        run("linux-6.18", &body),
        format!("{common}pool 0 1 1 0xffffc90000002000-0xffffc90000004000\nend\nalloc -> 0xffffc90000002000\n")
    );
}

/// Pools of two and three entries, the rest of "1–3": 2 >> 2 = 3 >> 2 = 0. On CPU 0, two
/// 1-page requests (pool 0) and three 2-page ones (pool 1) from VMALLOC_START, all vfreed
/// (node 0's lazy tree: their vn_id) and purged: each is pushed at the head of its pool in the
/// ascending purge order, so the highest address comes first. A second purge decays: 6.9
/// empties both pools (each counter wraps), 6.18 keeps both whole, in their order.
#[test]
fn pools_of_two_and_three_keep_their_entries_in_order() {
    let one = "0x1000 0x1 0xffffc90000000000 0xffffe8ffffffffff";
    let body = format!(
        "cpus 2\ncpu 0\nalloc {one}\nalloc {one}\nalloc {A}\nalloc {A}\nalloc {A}\n\
         vfree 0xffffc90000000000\nvfree 0xffffc90000001000\nvfree 0xffffc90000002000\nvfree 0xffffc90000004000\n\
         vfree 0xffffc90000006000\npurge\npools\npurge\npools\n"
    );
    let common = "alloc -> 0xffffc90000000000\nalloc -> 0xffffc90000001000\nalloc -> 0xffffc90000002000\n\
                  alloc -> 0xffffc90000004000\nalloc -> 0xffffc90000006000\n\
                  vfree 0xffffc90000000000 ok\nvfree 0xffffc90000001000 ok\nvfree 0xffffc90000002000 ok\n\
                  vfree 0xffffc90000004000 ok\nvfree 0xffffc90000006000 ok\npurge 5\n";
    let pooled = "pool 0 0 2 0xffffc90000001000-0xffffc90000002000 0xffffc90000000000-0xffffc90000001000\n\
                  pool 0 1 3 0xffffc90000006000-0xffffc90000008000 0xffffc90000004000-0xffffc90000006000 \
                  0xffffc90000002000-0xffffc90000004000\nend\n";
    assert_eq!(run("linux-6.9", &body), format!("{common}{pooled}purge 0\nend\n"));
    assert_eq!(run("linux-6.18", &body), format!("{common}{pooled}purge 0\n{pooled}"));
}

/// The entries a 6.18 decay keeps go back in their order, and the purge that follows pushes
/// its new entries in front of them (`purge_vmap_node` runs after the node's decay). Four
/// 2-page areas C, A, B, D from VMALLOC_START on CPU 0; as in the first test A is pooled, C
/// freed at once and a purge decays node 0's pool 1 of one entry (6.18 keeps A, 6.9 gives it
/// back: the free block below now ends at B). Then D is vfreed and purged: the decay meets a
/// pool of one again (6.18 keeps A; 6.9's pool is empty), and D is pushed at the head. 6.18:
/// [D, A], and two requests on CPU 0 pop D, then A. 6.9: [D], then the lowest fit, 0x...0000.
#[test]
fn kept_entries_stay_behind_the_newly_pooled_ones() {
    let body = format!(
        "cpus 2\ncpu 0\nalloc {A}\nalloc {A}\nalloc {A}\nalloc {A}\nvfree 0xffffc90000002000\npurge\n\
         free 0xffffc90000000000\npurge\nvfree 0xffffc90000006000\npurge\npools\nalloc {A}\nalloc {A}\n"
    );
    let common = "alloc -> 0xffffc90000000000\nalloc -> 0xffffc90000002000\nalloc -> 0xffffc90000004000\n\
                  alloc -> 0xffffc90000006000\nvfree 0xffffc90000002000 ok\npurge 1\nfree 0xffffc90000000000 ok\n\
                  purge 0\nvfree 0xffffc90000006000 ok\npurge 1\n";
    assert_eq!(
        run("linux-6.9", &body),
        format!(
            "{common}pool 0 1 1 0xffffc90000006000-0xffffc90000008000\nend\nalloc -> 0xffffc90000006000\n\
             alloc -> 0xffffc90000000000\n"
        )
    );
    assert_eq!(
        run("linux-6.18", &body),
        format!(
            "{common}pool 0 1 2 0xffffc90000006000-0xffffc90000008000 0xffffc90000002000-0xffffc90000004000\nend\n\
             alloc -> 0xffffc90000006000\nalloc -> 0xffffc90000002000\n"
        )
    );
}

/// What did not change: a pool of five decays by 5 >> 2 = 1 (its head) in both, and a reclaim
/// (full decay, `reclaim_and_purge_vmap_areas`) empties every pool in both. The replays agree
/// line for line.
#[test]
fn four_or_more_and_full_decays_are_as_in_6_9() {
    let mut body = String::from("cpus 2\ncpu 0\n");
    for _ in 0..6 {
        body.push_str(&format!("alloc {A}\n"));
    }
    for i in 0..5u64 {
        body.push_str(&format!("vfree {:#x}\n", 0xffffc90000000000u64 + i * 0x2000));
    }
    body.push_str("purge\npools\npurge\npools\nreclaim\npools\n");
    let six = run("linux-6.9", &body);
    assert_eq!(six, run("linux-6.18", &body));
    // Five pooled, highest first; the decay takes the head (0x...8000); the reclaim all.
    assert!(six.contains("purge 5\npool 0 1 5 0xffffc90000008000-"), "{six}");
    assert!(six.contains("purge 0\npool 0 1 4 0xffffc90000006000-"), "{six}");
    assert!(six.ends_with("reclaim 0\nend\n"), "{six}");
}
