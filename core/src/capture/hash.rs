//! The replay's sets and maps of addresses, lines and pool keys, with a hasher of a few
//! multiplies instead of SipHash: a capture's replay looks up such keys millions of times.
//!
//! The keys come from the input, so the mix must spread page-aligned addresses (low twelve
//! bits zero, the rest close together) over the table's low bits: each word is folded in
//! with a multiply, and `finish` runs a full avalanche (the `fmix64` finaliser) over it.
//! The seed is fixed, so a replay is the same on every run; nothing in the replay depends
//! on the order a set is walked in.

use std::hash::{BuildHasherDefault, Hasher};

/// A map keyed by addresses, lines or (node, pool) pairs.
pub(super) type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<KeyHasher>>;
/// A set of addresses, lines or (node, pool) pairs.
pub(super) type HashSet<K> = std::collections::HashSet<K, BuildHasherDefault<KeyHasher>>;

const SEED: u64 = 0x243f_6a88_85a3_08d3;
const MUL: u64 = 0x9e37_79b9_7f4a_7c15;

#[derive(Clone, Copy)]
pub(super) struct KeyHasher(u64);

impl Default for KeyHasher {
    fn default() -> Self {
        Self(SEED)
    }
}

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(23) ^ x).wrapping_mul(MUL);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(u64::from(x));
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    // Page-aligned addresses one page apart fill the low bits of the hash: 4,096 of them
    // leave no bucket of a 4,096-slot table's low 12 bits holding more than a handful.
    #[test]
    fn page_aligned_addresses_spread_over_the_low_bits() {
        let b = BuildHasherDefault::<KeyHasher>::default();
        let mut count = vec![0u32; 4096];
        for i in 0..4096u64 {
            let h = b.hash_one(0xffff_c900_0000_0000u64 + i * 0x1000);
            count[(h & 0xfff) as usize] += 1;
        }
        assert!(*count.iter().max().unwrap() <= 8, "max {}", count.iter().max().unwrap());
    }

    #[test]
    fn tuples_of_the_same_words_in_another_order_differ() {
        let b = BuildHasherDefault::<KeyHasher>::default();
        assert_ne!(b.hash_one((1u32, 2usize)), b.hash_one((2u32, 1usize)));
        assert_ne!(b.hash_one((5usize, 0x1000u64)), b.hash_one((0x1000usize, 5u64)));
    }
}
