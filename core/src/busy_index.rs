//! An index from `va_start` to busy area: ours, not the kernel's.
//!
//! The kernel finds the busy area of a `free` by descending the busy tree (`__find_vmap_area`),
//! and the place of a new busy area by descending it again (`find_va_links`). Both walks are
//! unobservable: only the tree they leave behind is (its shape is in the step events and the
//! checks). So the allocator may find an area by address any way it likes, and this table
//! makes the usual case one probe:
//!
//! ```text
//!   slots: [ idx+1 | dib ] [ 0 ] [ idx+1 | dib ] [ idx+1 | dib ] [ 0 ] ...   one u32 each
//!            26 bits  6 bits       (0 = empty)
//!   home(va_start) = high half of (hash(va_start) * cap)     Robin Hood linear probing
//! ```
//!
//! A slot holds the arena index of the area (not its address: the key is read from the area
//! itself when a probe needs it) and its distance from its home slot (`dib`). Robin Hood order
//! means a lookup compares only the entries whose home is its own, and a removal shifts the
//! entries after it back without reading any key. Load stays between 1/2 and 4/5 (the table
//! is resized, never grown by doubling), so the index costs 5 to 8 bytes per busy area.
//!
//! The index is a cache, not the truth: every entry names a busy area with that start (kept
//! exact by [`BusyIndex::insert`]/[`BusyIndex::remove`] at the two places an area enters and
//! leaves a busy tree), but an area may be missing from it (past 2^26 - 2 objects, or pushed
//! out of reach of 63 probes by an adversarial set of addresses). So a hit is an answer and a
//! miss only means "ask the tree".

use crate::area::{Arena, NIL};

/// `dib` bits in a slot.
const DIB_BITS: u32 = 6;
const MAX_DIB: u32 = (1 << DIB_BITS) - 1;
/// Objects past this arena index are not indexed.
const MAX_IDX: u32 = (u32::MAX >> DIB_BITS) - 1;
const EMPTY: u32 = 0;
/// The smallest table.
const MIN_CAP: usize = 16;

#[derive(Clone, Debug, Default)]
pub struct BusyIndex {
    slots: Vec<u32>,
    len: usize,
}

#[inline(always)]
fn pack(idx: u32, dib: u32) -> u32 {
    ((idx + 1) << DIB_BITS) | dib
}
#[inline(always)]
fn idx_of(s: u32) -> u32 {
    (s >> DIB_BITS) - 1
}
#[inline(always)]
fn dib_of(s: u32) -> u32 {
    s & MAX_DIB
}

impl BusyIndex {
    /// Entries (indexed busy areas).
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Slots allocated (what the index costs: 4 bytes each).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    pub fn clear(&mut self) {
        *self = BusyIndex::default();
    }

    /// The home slot of `key` in a table of `cap` slots: the high half of `hash * cap`, so any
    /// size of table works (no power of two needed).
    #[inline(always)]
    fn home(key: u64, cap: usize) -> usize {
        let h = (key ^ (key >> 12) ^ (key >> 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((h as u128 * cap as u128) >> 64) as usize
    }

    #[inline(always)]
    fn next(pos: usize, cap: usize) -> usize {
        if pos + 1 == cap {
            0
        } else {
            pos + 1
        }
    }

    /// The busy area starting at `key`, or `NIL` when it is not indexed (the caller then asks
    /// the tree).
    #[inline(always)]
    pub fn find(&self, a: &Arena, key: u64) -> u32 {
        let cap = self.slots.len();
        if cap == 0 {
            return NIL;
        }
        let mut pos = Self::home(key, cap);
        let mut d = 0;
        loop {
            let s = self.slots[pos];
            // Empty, or an entry nearer its home than we are from ours: the key is not here.
            if s == EMPTY || dib_of(s) < d {
                return NIL;
            }
            if dib_of(s) == d {
                let h = a.handle_of(idx_of(s));
                if a.try_get(h).is_some_and(|v| v.va_start == key) {
                    return h;
                }
            }
            d += 1;
            pos = Self::next(pos, cap);
        }
    }

    /// Index the busy area `h` (which must be in a busy tree, starting at `key`, and not
    /// indexed yet).
    #[inline]
    pub fn insert(&mut self, a: &Arena, key: u64, h: u32) {
        if (self.len + 1) * 5 > self.slots.len() * 4 {
            self.resize(a, self.len + 1);
        }
        let idx = a.index_of(h);
        if idx <= MAX_IDX && self.place(key, idx) {
            self.len += 1;
        }
    }

    /// Put `idx` in its Robin Hood place. `true` when the table holds one entry more; `false`
    /// when some entry (the new one, or one it displaced) would have to sit more than `MAX_DIB`
    /// slots from its home and was left out instead (it stays in its tree, and a lookup that
    /// misses asks the tree).
    #[inline(always)]
    fn place(&mut self, key: u64, idx: u32) -> bool {
        let cap = self.slots.len();
        let mut pos = Self::home(key, cap);
        let mut cur = pack(idx, 0);
        let mut d = 0;
        loop {
            let s = self.slots[pos];
            if s == EMPTY {
                self.slots[pos] = (cur & !MAX_DIB) | d;
                return true;
            }
            if dib_of(s) < d {
                // Take the slot of the entry nearer its home; carry that one on.
                self.slots[pos] = (cur & !MAX_DIB) | d;
                cur = s;
                d = dib_of(s);
            }
            d += 1;
            if d > MAX_DIB {
                return false;
            }
            pos = Self::next(pos, cap);
        }
    }

    /// Forget the busy area `h` starting at `key` (it leaves its busy tree). No-op when it was
    /// not indexed.
    #[inline]
    pub fn remove(&mut self, a: &Arena, key: u64, h: u32) {
        let cap = self.slots.len();
        if cap == 0 {
            return;
        }
        let idx = a.index_of(h);
        let mut pos = Self::home(key, cap);
        let mut d = 0;
        loop {
            let s = self.slots[pos];
            if s == EMPTY || dib_of(s) < d {
                return;
            }
            if dib_of(s) == d && idx_of(s) == idx {
                break;
            }
            d += 1;
            pos = Self::next(pos, cap);
        }
        // Backward shift: pull the following entries one slot nearer their homes.
        loop {
            let nxt = Self::next(pos, cap);
            let s = self.slots[nxt];
            if s == EMPTY || dib_of(s) == 0 {
                self.slots[pos] = EMPTY;
                break;
            }
            self.slots[pos] = s - 1;
            pos = nxt;
        }
        self.len -= 1;
        if self.len * 2 < self.slots.len() && self.slots.len() > MIN_CAP {
            self.resize(a, self.len);
        }
    }

    /// Rebuild for `n` entries at a load of about 0.64 (between the bounds 1/2 and 4/5).
    #[cold]
    fn resize(&mut self, a: &Arena, n: usize) {
        let cap = (n * 25 / 16).max(MIN_CAP);
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; cap]);
        self.len = 0;
        for s in old {
            if s != EMPTY {
                let idx = idx_of(s);
                if let Some(v) = a.try_get(a.handle_of(idx)) {
                    if self.place(v.va_start, idx) {
                        self.len += 1;
                    }
                }
            }
        }
    }

    /// Every indexed handle (for the invariant checks).
    pub fn handles<'a>(&'a self, a: &'a Arena) -> impl Iterator<Item = u32> + 'a {
        self.slots.iter().filter(|&&s| s != EMPTY).map(move |&s| a.handle_of(idx_of(s)))
    }

    /// Every entry sits at its distance from its home (the Robin Hood invariant), for the
    /// checks: `Err` names the first slot that does not.
    pub fn check(&self, a: &Arena) -> Result<(), String> {
        let cap = self.slots.len();
        let mut n = 0;
        for (pos, &s) in self.slots.iter().enumerate() {
            if s == EMPTY {
                continue;
            }
            n += 1;
            let h = a.handle_of(idx_of(s));
            let Some(v) = a.try_get(h) else {
                return Err(format!("busy index slot {pos} names no object"));
            };
            let home = Self::home(v.va_start, cap);
            let dist = (pos + cap - home) % cap;
            if dist as u32 != dib_of(s) {
                return Err(format!("busy index slot {pos}: distance {dist}, recorded {}", dib_of(s)));
            }
        }
        if n != self.len {
            return Err(format!("busy index counts {} entries, holds {n}", self.len));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    /// A model: key -> handle, and the index beside it, over one arena.
    fn run(ops: &[(bool, u16)]) {
        let mut a = Arena::new();
        let mut ix = BusyIndex::default();
        let mut model: HashMap<u64, u32> = HashMap::new();
        for &(add, k) in ops {
            let key = 0xffff_c900_0000_0000 + u64::from(k) * 0x1000;
            match (add, model.get(&key).copied()) {
                (true, None) => {
                    let h = a.alloc(key, key + 0x1000);
                    ix.insert(&a, key, h);
                    model.insert(key, h);
                }
                (false, Some(h)) => {
                    ix.remove(&a, key, h);
                    a.release(h);
                    model.remove(&key);
                }
                _ => {}
            }
            ix.check(&a).unwrap();
            assert_eq!(ix.len(), model.len(), "ordinary keys are never left out");
            // Load stays within [1/2, 4/5] once past the smallest table.
            if ix.capacity() > MIN_CAP {
                assert!(
                    ix.len() * 2 >= ix.capacity() && ix.len() * 5 <= ix.capacity() * 4,
                    "load {}/{}",
                    ix.len(),
                    ix.capacity()
                );
            }
        }
        for (&key, &h) in &model {
            assert_eq!(ix.find(&a, key), h);
            assert_eq!(ix.find(&a, key + 0x800), NIL, "an address inside an area is not a start");
        }
        assert_eq!(ix.find(&a, 0x1000), NIL);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn agrees_with_a_map(ops in proptest::collection::vec((any::<bool>(), 0u16..600), 1..1500)) {
            run(&ops);
        }
    }

    #[test]
    fn grows_and_shrinks_through_many_entries() {
        let mut ops: Vec<(bool, u16)> = (0..5000).map(|k| (true, k)).collect();
        ops.extend((0..5000).rev().filter(|k| k % 7 != 0).map(|k| (false, k)));
        run(&ops);
    }

    /// Keys that all share home slot 0 while the table has at most 128 slots: past 63 probes
    /// entries are left out, the rest stay exact, and a removal still finds what is there.
    #[test]
    fn entries_out_of_reach_are_left_out_not_lost() {
        let mut keys = Vec::new();
        let mut k = 0u64;
        while keys.len() < 90 {
            k += 0x1000;
            if BusyIndex::home(k, 128) == 0 && BusyIndex::home(k, 16) == 0 {
                keys.push(k);
            }
        }
        let mut a = Arena::new();
        let mut ix = BusyIndex::default();
        let hs: Vec<u32> = keys.iter().map(|&k| a.alloc(k, k + 0x1000)).collect();
        for (&k, &h) in keys.iter().zip(&hs) {
            ix.insert(&a, k, h);
            ix.check(&a).unwrap();
        }
        assert!(ix.capacity() <= 128);
        let found = keys.iter().zip(&hs).filter(|&(&k, &h)| ix.find(&a, k) == h).count();
        let missing = keys.iter().filter(|&&k| ix.find(&a, k) == NIL).count();
        assert_eq!(found + missing, keys.len(), "a key is found as itself or not at all");
        assert_eq!(found, ix.len());
        assert!(missing > 0 && found >= 60, "found {found}, missing {missing}");
        for (&k, &h) in keys.iter().zip(&hs) {
            ix.remove(&a, k, h);
            ix.check(&a).unwrap();
        }
        assert_eq!(ix.len(), 0);
    }
}
