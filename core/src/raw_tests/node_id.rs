//! `addr_to_node_id` against the plain formula it replaces (issue 17).

use crate::{Profile, Vmap};

/// `addr_to_node_id` is `(addr / zone_size) % nr_vmap_nodes`, whatever the node count and
/// zone size (power of two or not).
#[test]
fn addr_to_node_id_is_the_division_formula() {
    let addrs: Vec<u64> = {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut v = vec![0, 1, 0xfff, 0x1000, 0xffff, 0x10000, 0xffffc90000000000, u64::MAX, u64::MAX - 0x1000];
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(x);
            v.push(x & 0xffff_ffff);
        }
        v
    };
    for cpus in [1u64, 2, 3, 4, 5, 7, 8, 64, 100, 128, 200] {
        for zone in [None, Some(1u64), Some(4096), Some(3 * 4096), Some(12345)] {
            let mut v = Vmap::new(Profile::Linux69);
            v.set_cpus(cpus).unwrap();
            v.init(1, u64::MAX).unwrap();
            if let Some(z) = zone {
                v.zone_size = z;
            }
            let nr = v.nodes().len() as u64;
            assert_eq!(nr, cpus.min(128));
            for &a in &addrs {
                let want = ((a / v.zone_size()) % nr) as u32;
                assert_eq!(v.addr_to_node_id(a), want, "addr {a:#x} zone {:#x} nodes {nr}", v.zone_size());
            }
        }
    }
}
