//! The invariant checks against a corrupted gap (`VaTree::gap`), a state no public call reaches.

use crate::{Profile, Vmap};

/// The invariant checks hold a tree's gap to two neighbours of its list: a gap naming two
/// areas with another between them is reported.
#[test]
fn the_checks_catch_a_gap_that_is_not_two_neighbours() {
    use crate::check::check_invariants;
    use crate::NoObserver;
    let mut v = Vmap::new(Profile::Linux52);
    let addrs: Vec<u64> = (0..4).map(|_| v.alloc(0x2000, 0x1000, 0, u64::MAX, &mut NoObserver).unwrap()).collect();
    v.free(addrs[1], &mut NoObserver).unwrap();
    let gap = v.nodes[0].busy.gap.expect("a free leaves a gap in the busy tree");
    check_invariants(&v).unwrap();
    let list: Vec<u32> = v.nodes[0].busy.iter(&v.arena).map(|(h, _)| h).collect();
    assert_eq!(gap, (list[0], list[1]), "the neighbours of the freed area");
    v.nodes[0].busy.gap = Some((list[0], list[2]));
    let e = check_invariants(&v).unwrap_err();
    assert!(e.contains("gap"), "{e}");
    v.nodes[0].busy.gap = Some((gap.1, gap.0));
    assert!(check_invariants(&v).is_err());
}
