//! An index from `va_start` to busy area: ours, not the kernel's.
//!
//! The kernel finds the busy area of a `free` by descending the busy tree (`__find_vmap_area`),
//! and the place of a new busy area by descending it again (`find_va_links`). Both walks are
//! unobservable: only the tree they leave behind is (its shape is in the step events and the
//! checks). So the allocator may find an area by address any way it likes, and this table
//! makes the usual case one probe of one cache line:
//!
//! ```text
//!   group g = high half of (hash(va_start) * groups)       8 slots of u32 per group (32 bytes)
//!   slot:  0 EMPTY | (handle + 1) << 7 | tag                  tag = 64 | 6 more bits of the hash
//!   find:    the slots of g whose tag matches -> compare that area's va_start; then, when no
//!            entry went past g (passed[g] == 0), the search ends, else go on to g + 1
//!
//!   home g   g+1      g+2                    passed[g]: entries whose home is before g
//!   [full]   [full]   [x . . .]              (cyclically) and that sit past it
//!     ^ x's probe went past g and g+1: passed[g] and passed[g+1] count it
//! ```
//!
//! A slot holds the handle of the area in words ([`Arena::word`]), not its start (the key is read from the area
//! itself, which the caller needs next anyway), plus 6 more bits of the hash, so that a probe
//! reads one area in the usual case and the slots of a group are compared all at once. Each
//! group counts the entries whose probe went past it (`passed`, the overflow counts of
//! Facebook's F14 tables), so a removal always writes EMPTY and takes its entry off the counts
//! of the groups it passed: no tombstones, so a steady number of areas never forces a rebuild
//! (with tombstones, full groups filled with them and forced one every ~50,000 frees: 1.4 % of a
//! replay natively, 3.5 % in Chromium). The table is rebuilt only when its entries pass 4/5 of
//! it (to a load of 0.55) or fall under 1/2 (to 0.64), so the index costs 5.5 to 9 bytes per busy
//! area.
//!
//! In wasm, `find`, `insert` and the probe of `remove` are inlined only with the core's
//! `inline-search` feature (the workbench and benchmark builds); the page's first-screen build
//! keeps them as calls, 1.7 KB lighter. They used to be calls in every wasm build: wasm-opt had
//! merged all the eras' replay loops into one very large function, which V8 compiled worse with
//! them inlined (fixed_s44 193 ns/op inlined, 142 not); since each era's loop is a function of its
//! own again (`Replayer::run`), inlining them and `find_vmap_lowest_match` saves 7 % of V8's
//! instructions on long_busy_s43 (`scripts/wasm-ir.sh`). `remove`'s first test (the slot
//! `find` just gave) is inline everywhere: a call saved per `free`.
//!
//! The index is a cache, not the truth: every entry names a busy area with that start (kept
//! exact by [`BusyIndex::insert`]/[`BusyIndex::remove`] at the two places an area enters and
//! leaves a busy tree), but an area whose handle is 2^25 - 1 or more in words (past 5.5 million
//! objects; in wasm, where a handle is an address, at 256 MiB and up) is not indexed. So a hit is an answer and a miss only means "ask the tree".

use std::cell::Cell;

use crate::area::{Arena, NIL};

const TAG_BITS: u32 = 7;
const TAG_MASK: u32 = (1 << TAG_BITS) - 1;
/// Handles whose [`Arena::word`] is past this are not indexed: past 5.5 million objects (268 MB
/// of them) with word offsets; in wasm, whose handles are addresses, objects at 256 MiB and up.
const MAX_HANDLE: u32 = (u32::MAX >> TAG_BITS) - 1;
const EMPTY: u32 = 0;
/// Slots per group.
const GROUP: usize = 8;
/// The smallest table, in groups.
const MIN_GROUPS: usize = 2;

/// One group: 32 bytes, aligned so that it never straddles two cache lines.
#[derive(Clone, Copy, Debug)]
#[repr(align(32))]
struct Group([u32; GROUP]);

#[derive(Clone, Debug)]
pub struct BusyIndex {
    groups: Vec<Group>,
    /// `passed[g]`: the entries whose home group is before `g` (cyclically) and that sit past
    /// it. A search goes on past `g` only when this is not 0. Read only when a search misses in
    /// a group, written only when an insert passes a full group or a removal takes an entry
    /// that sits past its home.
    passed: Vec<u32>,
    /// Entries.
    len: usize,
    /// Rebuild when entries reach this (4/5 of the slots)...
    grow_at: usize,
    /// ... or when entries fall below this (1/2 of the slots, in a table past the smallest).
    shrink_below: usize,
    /// The entry [`BusyIndex::find`] last found in its home group: its handle, and its slot
    /// (group × 8 + slot). A `free` finds its area, then removes it, and the removal of that
    /// handle empties that slot and is done: no hash, no probe, and no counts to take it off
    /// (it sat in its home group). Forgotten (`last_h = NIL`) whenever an entry leaves a slot or
    /// the table is rebuilt, so while it is set, that slot still holds that entry.
    last: Cell<usize>,
    last_h: Cell<u32>,
}

/// The smallest table, empty: a table always has groups, so a search never asks first.
impl Default for BusyIndex {
    fn default() -> Self {
        BusyIndex {
            groups: vec![Group([EMPTY; GROUP]); MIN_GROUPS],
            passed: vec![0; MIN_GROUPS],
            len: 0,
            grow_at: MIN_GROUPS * GROUP * 4 / 5,
            shrink_below: 0,
            last: Cell::new(0),
            last_h: Cell::new(NIL),
        }
    }
}

#[inline(always)]
fn handle_of(a: &Arena, s: u32) -> u32 {
    a.handle_of_word((s >> TAG_BITS) - 1)
}

/// The slots of a group that pass a test: bits `2i` and `2i + 1` set for slot `i` (the form one
/// `pmovmskb` gives of the eight compares packed to 16-bit lanes, so the mask is one move away
/// from the compares, and the same mask serves the test and the slot's number).
#[derive(Clone, Copy, Debug)]
struct Mask(u32);

impl Mask {
    #[inline(always)]
    fn any(self) -> bool {
        self.0 != 0
    }
    /// The first slot set (`& 7` changes nothing when one is: it spares the bounds test of the
    /// slot's read).
    #[inline(always)]
    fn first(self) -> usize {
        (self.0.trailing_zeros() / 2) as usize & (GROUP - 1)
    }
    /// The mask without its first slot.
    #[inline(always)]
    fn rest(self) -> Mask {
        Mask(self.0 & !(3u32 << self.0.trailing_zeros()))
    }
    #[cfg(test)]
    fn count(self) -> u32 {
        self.0.count_ones() / 2
    }
}

/// The slots of `g` where `slot & and == x`: two SSE2 compares on x86_64 (part of its
/// baseline), two SIMD128 compares in wasm, a loop elsewhere.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn mask(g: &[u32; GROUP], and: u32, x: u32) -> Mask {
    use std::arch::x86_64::*;
    // SAFETY: the two unaligned loads read the 32 bytes of `g`, which is a `[u32; 8]`; the other
    // intrinsics only compute on registers (SSE2 is enabled, see the cfg).
    unsafe {
        let p = g.as_ptr().cast::<__m128i>();
        let (lo, hi) = (_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)));
        let (and, x) = (_mm_set1_epi32(and as i32), _mm_set1_epi32(x as i32));
        let lo = _mm_cmpeq_epi32(_mm_and_si128(lo, and), x);
        let hi = _mm_cmpeq_epi32(_mm_and_si128(hi, and), x);
        // Each lane is 0 or -1, which the signed narrowing keeps.
        Mask(_mm_movemask_epi8(_mm_packs_epi32(lo, hi)) as u32)
    }
}
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn mask(g: &[u32; GROUP], and: u32, x: u32) -> Mask {
    use std::arch::wasm32::*;
    // SAFETY: the two loads read the 32 bytes of `g`, which is a `[u32; 8]` (v128 loads need
    // no alignment).
    unsafe {
        let p = g.as_ptr().cast::<v128>();
        let (lo, hi) = (v128_load(p), v128_load(p.add(1)));
        let (and, x) = (u32x4_splat(and), u32x4_splat(x));
        let lo = u32x4_eq(v128_and(lo, and), x);
        let hi = u32x4_eq(v128_and(hi, and), x);
        Mask(u32::from(i8x16_bitmask(i16x8_narrow_i32x4(lo, hi))))
    }
}
#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
#[inline(always)]
fn mask(g: &[u32; GROUP], and: u32, x: u32) -> Mask {
    let mut m = 0;
    for (i, &s) in g.iter().enumerate() {
        m |= u32::from(s & and == x) * 3 << (2 * i);
    }
    Mask(m)
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
        self.groups.len() * GROUP
    }

    pub fn clear(&mut self) {
        *self = BusyIndex::default();
    }

    /// The home group and the tag of `key` in a table of `groups` groups: the top 32 bits of a
    /// Fibonacci hash times `groups`, its high half the group (any number of groups works),
    /// the top bits of its low half (where in the group's share of hash values the key fell)
    /// the tag. All in 64 bits: wasm has no 128-bit multiply (a call to `__multi3` there).
    #[inline(always)]
    fn hash(key: u64, groups: usize) -> (usize, u32) {
        debug_assert!(groups as u64 <= u64::from(u32::MAX));
        let p = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) * groups as u64;
        // Bit 6 always set: a tag is never EMPTY.
        ((p >> 32) as usize, (p as u32 >> 26) | 0x40)
    }

    #[inline(always)]
    fn group(&self, g: usize) -> &[u32; GROUP] {
        &self.groups[g].0
    }

    /// [`BusyIndex::group`] for a group that [`BusyIndex::hash`] gave: with no bounds test, as
    /// such a group is always in the table (`(2^32 - 1) × groups >> 32 < groups`).
    #[inline(always)]
    fn home_slots(&self, g: usize) -> &[u32; GROUP] {
        debug_assert!(g < self.groups.len());
        // SAFETY: as for `home_group`.
        unsafe { &self.groups.get_unchecked(g).0 }
    }

    /// [`BusyIndex::home_slots`], for writing.
    #[inline(always)]
    fn home_group(&mut self, g: usize) -> &mut [u32; GROUP] {
        debug_assert!(g < self.groups.len());
        // SAFETY: `g` came from `hash(_, self.groups.len())`, whose group is below its second
        // argument for any key (see above).
        unsafe { &mut self.groups.get_unchecked_mut(g).0 }
    }

    /// The busy area starting at `key`, or `NIL` when it is not indexed (the caller then asks
    /// the tree).
    ///
    /// The usual case, where the key's entry is the first slot of its home group with its tag,
    /// is straight-line code; the rest of the search is [`BusyIndex::find_past`]. A loop costs
    /// more in wasm than its one iteration: V8 puts a stack check at each loop header and keeps
    /// the loop's values in stack slots around it (measured with `scripts/wasm-ir.sh`).
    #[cfg_attr(inline_search, inline(always))]
    #[cfg_attr(not(inline_search), inline(never))]
    pub(crate) fn find(&self, a: &Arena, key: u64) -> u32 {
        self.find_as::<true>(a, key)
    }

    /// [`BusyIndex::find`] for a search no removal follows (the successor of a new area): it
    /// leaves the entry found unremembered, two stores less. (In wasm it is `find`: one copy
    /// of the search there.)
    #[inline(always)]
    pub(crate) fn find_succ(&self, a: &Arena, key: u64) -> u32 {
        if cfg!(target_arch = "wasm32") {
            self.find(a, key)
        } else {
            self.find_as::<false>(a, key)
        }
    }

    #[inline(always)]
    fn find_as<const MARK: bool>(&self, a: &Arena, key: u64) -> u32 {
        let (home, tag) = Self::hash(key, self.groups.len());
        let grp = self.home_slots(home);
        let m = mask(grp, TAG_MASK, tag);
        if m.any() {
            let i = m.first();
            let h = handle_of(a, grp[i]);
            if a.try_get(h).is_some_and(|v| v.va_start == key) {
                if MARK {
                    self.last.set(home * GROUP + i);
                    self.last_h.set(h);
                }
                return h;
            }
        }
        self.find_past(a, key, home, tag)
    }

    /// [`BusyIndex::find`] from the start, past its usual case: every slot of the home group
    /// with the key's tag, then the groups after it while entries went past them. (The first
    /// candidate is tested again, and fails again.)
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", cold, inline(never))]
    fn find_past(&self, a: &Arena, key: u64, home: usize, tag: u32) -> u32 {
        let groups = self.groups.len();
        let mut g = home;
        for _ in 0..groups {
            let grp = self.group(g);
            let mut m = mask(grp, TAG_MASK, tag);
            while m.any() {
                let i = m.first();
                let h = handle_of(a, grp[i]);
                if a.try_get(h).is_some_and(|v| v.va_start == key) {
                    // Only an entry in its home group is removed by its slot alone.
                    if g == home {
                        self.last.set(g * GROUP + i);
                        self.last_h.set(h);
                    }
                    return h;
                }
                m = m.rest();
            }
            if self.passed[g] == 0 {
                break;
            }
            g = if g + 1 == groups { 0 } else { g + 1 };
        }
        NIL
    }

    /// Index the busy area `h` (which must be in a busy tree, starting at `key`, and not
    /// indexed yet).
    #[cfg_attr(inline_search, inline(always))]
    #[cfg_attr(not(inline_search), inline(never))]
    pub(crate) fn insert(&mut self, a: &Arena, key: u64, h: u32) {
        let h = a.word(h);
        if h > MAX_HANDLE {
            return;
        }
        if self.len >= self.grow_at {
            // Room for 45 % more before the next rebuild (at 0.64, more groups fill and more
            // searches go past their home).
            self.resize(a, self.len + 1, 55);
        }
        self.place(key, h);
    }

    /// Put `h` in the first EMPTY slot of its probe sequence (the load bound guarantees one),
    /// counting it on each full group it goes past. The usual case, a home group with room, is
    /// straight-line code, as in [`BusyIndex::find`].
    #[inline(always)]
    fn place(&mut self, key: u64, h: u32) {
        let (g, tag) = Self::hash(key, self.groups.len());
        let grp = self.home_group(g);
        let m = mask(grp, !0, EMPTY);
        if m.any() {
            grp[m.first()] = ((h + 1) << TAG_BITS) | tag;
            self.len += 1;
            return;
        }
        self.place_past(g, ((h + 1) << TAG_BITS) | tag);
    }

    /// [`BusyIndex::place`] past a full home group `g`: `slot` goes to the first group after it
    /// with room, and each full group on the way counts it.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", cold, inline(never))]
    fn place_past(&mut self, mut g: usize, slot: u32) {
        let groups = self.groups.len();
        for _ in 0..groups {
            let m = mask(self.group(g), !0, EMPTY);
            if m.any() {
                self.groups[g].0[m.first()] = slot;
                self.len += 1;
                return;
            }
            self.passed[g] += 1;
            g = if g + 1 == groups { 0 } else { g + 1 };
        }
    }

    /// Forget the busy area `h` starting at `key` (it leaves its busy tree). No-op when it was
    /// not indexed.
    #[inline(always)]
    pub(crate) fn remove(&mut self, a: &Arena, key: u64, h: u32) {
        debug_assert!(h != NIL);
        // The entry `find` just gave (a free's usual case: a compare, inline even in wasm), else
        // a probe (the arena index alone names the entry).
        if self.last_h.get() == h {
            let s = self.last.get();
            self.empty_slot(a, s / GROUP, s % GROUP);
            return;
        }
        self.remove_probe(a, key, h);
    }

    #[cfg_attr(inline_search, inline(always))]
    #[cfg_attr(not(inline_search), inline(never))]
    fn remove_probe(&mut self, a: &Arena, key: u64, h: u32) {
        let groups = self.groups.len();
        let h = a.word(h);
        if h > MAX_HANDLE {
            return;
        }
        let (home, tag) = Self::hash(key, groups);
        let want = ((h + 1) << TAG_BITS) | tag;
        let mut g = home;
        for _ in 0..groups {
            let grp = self.group(g);
            let m = mask(grp, !0, want);
            if m.any() {
                self.take(a, home, g, m.first());
                return;
            }
            if self.passed[g] == 0 {
                return;
            }
            g = if g + 1 == groups { 0 } else { g + 1 };
        }
    }

    /// Empty slot `i` of group `g`, which holds an entry whose home group is `home`, and take
    /// that entry off the counts of the groups from its home up to its slot.
    #[inline(always)]
    fn take(&mut self, a: &Arena, mut home: usize, g: usize, i: usize) {
        let groups = self.groups.len();
        while home != g {
            self.passed[home] -= 1;
            home = if home + 1 == groups { 0 } else { home + 1 };
        }
        self.empty_slot(a, g, i);
    }

    /// Empty slot `i` of group `g` and count its entry out (an entry in its home group, or one
    /// whose counts [`BusyIndex::take`] has just put right).
    #[inline(always)]
    fn empty_slot(&mut self, a: &Arena, g: usize, i: usize) {
        debug_assert!(g < self.groups.len());
        // SAFETY: `g` is a group of the table: a probe's (below the size), or the one `last`
        // names while `last_h` is set (set only by `find`, with its home group; forgotten on a
        // rebuild).
        unsafe { self.groups.get_unchecked_mut(g).0[i & (GROUP - 1)] = EMPTY };
        // The slot may take another entry next: forget the one `find` saw.
        self.last_h.set(NIL);
        self.len -= 1;
        if self.len < self.shrink_below {
            self.resize(a, self.len, 64);
        }
    }

    /// Rebuild for `n` entries at a load of about `pct` % (inside the bounds 1/2 and 4/5).
    #[cold]
    fn resize(&mut self, a: &Arena, n: usize, pct: usize) {
        self.rebuild(a, n, pct, &|h| h);
    }

    /// Map every indexed handle through `f` (a copy of the arena lies elsewhere: see
    /// [`crate::era::Vmap::relocate`]; `a` is the copy). In place when every mapped handle still
    /// fits a slot (an entry's group and tag depend on its key alone), else rebuilt without
    /// those that do not.
    pub(crate) fn relocate(&mut self, a: &Arena, f: &impl Fn(u32) -> u32) {
        self.last_h.set(NIL);
        let fits = |s: u32| a.word(f(handle_of(a, s))) <= MAX_HANDLE;
        if self.groups.iter().flat_map(|g| g.0).all(|s| s == EMPTY || fits(s)) {
            for s in self.groups.iter_mut().flat_map(|g| g.0.iter_mut()).filter(|s| **s != EMPTY) {
                *s = ((a.word(f(handle_of(a, *s))) + 1) << TAG_BITS) | (*s & TAG_MASK);
            }
        } else {
            self.rebuild(a, self.len, 64, f);
        }
    }

    fn rebuild(&mut self, a: &Arena, n: usize, pct: usize, f: &impl Fn(u32) -> u32) {
        // n / load slots, rounded to whole groups without leaving [1/2, 4/5].
        let mut groups = (n * 100 / pct / GROUP).max(MIN_GROUPS);
        if n * 5 > groups * GROUP * 4 {
            groups += 1;
        }
        let old = std::mem::replace(&mut self.groups, vec![Group([EMPTY; GROUP]); groups]);
        // Entries move only here: forget where `find` saw one (its slot is stale).
        self.last_h.set(NIL);
        self.passed = vec![0; groups];
        self.len = 0;
        self.grow_at = groups * GROUP * 4 / 5;
        self.shrink_below = if groups > MIN_GROUPS { groups * GROUP / 2 } else { 0 };
        for s in old.iter().flat_map(|g| g.0) {
            if s != EMPTY {
                let h = f(handle_of(a, s));
                if let Some(v) = a.try_get(h).filter(|_| a.word(h) <= MAX_HANDLE) {
                    self.place(v.va_start, a.word(h));
                }
            }
        }
    }

    /// Every indexed handle (for the invariant checks).
    pub fn handles<'a>(&'a self, a: &'a Arena) -> impl Iterator<Item = u32> + 'a {
        self.groups.iter().flat_map(|g| g.0).filter(|&s| s != EMPTY).map(move |s| handle_of(a, s))
    }

    /// Every entry carries its key's tag, and each group's `passed` count is the number of
    /// entries whose probe went past it (so every entry is reachable from its home group); the
    /// entry count is right. `Err` names the first slot or group that is not.
    pub fn check(&self, a: &Arena) -> Result<(), String> {
        let groups = self.groups.len();
        if self.passed.len() != groups {
            return Err(format!("busy index: {} groups, {} pass counts", groups, self.passed.len()));
        }
        let mut passed = vec![0u32; groups];
        let mut n = 0;
        for (pos, s) in self.groups.iter().flat_map(|g| g.0).enumerate() {
            if s == EMPTY {
                continue;
            }
            n += 1;
            let Some(v) = a.try_area(handle_of(a, s)) else {
                return Err(format!("busy index slot {pos} names no object"));
            };
            let (mut g, tag) = Self::hash(v.va_start, groups);
            if s & TAG_MASK != tag {
                return Err(format!("busy index slot {pos}: tag {}, the key's is {tag}", s & TAG_MASK));
            }
            while g != pos / GROUP {
                passed[g] += 1;
                g = if g + 1 == groups { 0 } else { g + 1 };
            }
        }
        if let Some(g) = (0..groups).find(|&g| passed[g] != self.passed[g]) {
            return Err(format!(
                "busy index group {g}: {} entries went past it, it counts {}",
                passed[g], self.passed[g]
            ));
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
                    // As a `free` does (for two keys in three): find, then remove from the slot
                    // found; else a removal with no find before it, which must not trust a slot
                    // an earlier find gave (it may since hold another entry, with another home).
                    if k % 3 != 0 {
                        assert_eq!(ix.find(&a, key), h);
                    }
                    ix.remove(&a, key, h);
                    a.release(h);
                    model.remove(&key);
                }
                _ => {}
            }
            ix.check(&a).unwrap();
            assert_eq!(ix.len(), model.len(), "ordinary keys are never left out");
            // Load stays within [1/2, 4/5] once past the smallest table.
            if ix.capacity() > MIN_GROUPS * GROUP {
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

    /// Keys that all share home group 0 (for tables of up to 16 groups): they spill into the
    /// next groups and are counted on each group they pass; a removal from the full group
    /// leaves an EMPTY slot and the spilled ones stay in reach (the count, not the slot, lets
    /// the search go on); an insert reuses the slot; removing a spilled key takes it off the
    /// counts, and the search then stops at its home again.
    #[test]
    fn keys_sharing_a_group_spill_and_stay_in_reach() {
        let mut keys = Vec::new();
        let mut k = 0u64;
        while keys.len() < 13 {
            k += 0x1000;
            if BusyIndex::hash(k, 16).0 == 0 && BusyIndex::hash(k, 2).0 == 0 {
                keys.push(k);
            }
        }
        let mut a = Arena::new();
        let mut ix = BusyIndex::default();
        let hs: Vec<u32> = keys.iter().map(|&k| a.alloc(k, k + 0x1000)).collect();
        for (&k, &h) in keys.iter().zip(&hs).take(12) {
            ix.insert(&a, k, h);
            ix.check(&a).unwrap();
        }
        assert!(ix.capacity() <= 16 * GROUP);
        for (&k, &h) in keys.iter().zip(&hs).take(12) {
            assert_eq!(ix.find(&a, k), h);
        }
        // Group 0 holds 8 of them; the other 4 went past it into group 1.
        assert_eq!((ix.passed[0], ix.passed[1]), (4, 0));
        ix.remove(&a, keys[0], hs[0]);
        ix.check(&a).unwrap();
        assert_eq!(mask(ix.group(0), !0, EMPTY).count(), 1, "the removal leaves an EMPTY slot");
        assert_eq!(ix.passed[0], 4);
        for (&k, &h) in keys.iter().zip(&hs).skip(1).take(11) {
            assert_eq!(ix.find(&a, k), h, "a spilled key is still found past the EMPTY slot");
        }
        assert_eq!(ix.find(&a, keys[0]), NIL);
        ix.insert(&a, keys[12], hs[12]);
        ix.check(&a).unwrap();
        assert_eq!(ix.find(&a, keys[12]), hs[12]);
        assert_eq!(mask(ix.group(0), !0, EMPTY).count(), 0, "the EMPTY slot is reused");
        // The spilled ones (keys 8..12) leave: each takes itself off group 0's count.
        for (&k, &h) in keys.iter().zip(&hs).skip(8).take(4) {
            ix.remove(&a, k, h);
            ix.check(&a).unwrap();
        }
        assert_eq!(ix.passed[0], 0);
        assert_eq!(ix.find(&a, keys[8]), NIL);
    }

    /// A removal of the handle `find` saw trusts that slot to hold it in its home group, so the
    /// slot must be forgotten once its entry leaves: here it is taken next by an entry from
    /// another home (with the same, reused, handle), whose removal with no find before it must
    /// take it off the count of the group it passed.
    #[test]
    fn a_slot_found_then_emptied_is_not_trusted_for_its_next_entry() {
        let home = |g: usize| {
            let mut k = 0u64;
            std::iter::from_fn(move || loop {
                k += 0x1000;
                if BusyIndex::hash(k, 2).0 == g {
                    return Some(k);
                }
            })
        };
        let (zeros, y): (Vec<u64>, u64) = (home(0).take(9).collect(), home(1).next().unwrap());
        let mut a = Arena::new();
        let mut ix = BusyIndex::default();
        let hy = a.alloc(y, y + 0x1000);
        ix.insert(&a, y, hy);
        assert_eq!(ix.groups.len(), 2);
        let hz: Vec<u32> = zeros[..8].iter().map(|&k| a.alloc(k, k + 0x1000)).collect();
        for (&k, &h) in zeros.iter().zip(&hz) {
            ix.insert(&a, k, h);
        }
        assert_eq!(ix.groups.len(), 2, "9 entries in 16 slots: no rebuild");
        // y sits in group 1; find it, then remove it from the slot found.
        assert_eq!(ix.find(&a, y), hy);
        ix.remove(&a, y, hy);
        a.release(hy);
        ix.check(&a).unwrap();
        // The 9th key of home 0 passes full group 0 into the slot y left, with y's handle.
        let hx = a.alloc(zeros[8], zeros[8] + 0x1000);
        assert_eq!(hx, hy, "the arena hands the released handle out again");
        ix.insert(&a, zeros[8], hx);
        assert_eq!(ix.passed[0], 1);
        ix.remove(&a, zeros[8], hx);
        ix.check(&a).unwrap();
        assert_eq!(ix.passed[0], 0);
    }
}
