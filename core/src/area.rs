//! `struct vmap_area` objects, kept in an arena and linked by `u32` indices.
//!
//! One object lives in exactly one container at a time (free tree, a busy tree, a lazy or
//! purge tree, a pool), exactly as in the kernel, so one set of links serves them all:
//!
//! ```text
//!   +----------+----------+------------------+---------+------+-------+------+------+----+
//!   | va_start |  va_end  | subtree_max_size | parent  | left | right | prev | next | id |
//!   |          |          |    or flags      | +colour |      |       |      |      |    |
//!   +----------+----------+------------------+---------+------+-------+------+------+----+
//!        8          8              8              4        4      4       4      4     4   = 48 bytes
//! ```
//!
//! The parent link carries the node's colour in bit 0, as the kernel's `__rb_parent_color`
//! does (1 = black): handles are even (see [`Arena`]), so the bit is free. The accessors
//! below are `lib/rbtree.c`'s `rb_parent`, `rb_is_black`, `rb_set_parent`,
//! `rb_set_parent_color` and `rb_set_black`. The third word is `subtree_max_size` while the
//! area is in the free tree and its flags everywhere else, as the kernel's union (see
//! [`VmapArea::flags`]).

use crate::addr::{align_up, Addr};
use serde::Serialize;

/// The null link. Even, like every handle, so that a parent word of `NIL` with the colour
/// bit masked off is still `NIL`; natively above every handle the arena gives out. In wasm32
/// it is [`NULL_GAP`], the address of memory that reads as a null object (see [`Arena`]).
pub const NIL: u32 = if cfg!(target_arch = "wasm32") { NULL_GAP } else { u32::MAX - 1 };

/// wasm32: the first byte past the stack, where the link (`.cargo/config.toml`: `-z
/// stack-size=1048576`, `--global-base=1048640`) leaves [`NULL_GAP_LEN`] bytes to no one before
/// the first static data:
///
/// ```text
///   0 .. 1 MiB: the stack (grows down from here)   1 MiB: the gap, 64 bytes   then data, heap
/// ```
///
/// The stack stays below it, no static or heap block lies in it, and wasm memory starts
/// zeroed: it reads as an all-zero `VmapArea` for as long as the page runs. Absolute handles
/// use it as their null object ([`Arena::smax`] of `NIL` with no test); a build linked without
/// those arguments is refused when its first arena is made ([`Arena::new`]).
pub(crate) const NULL_GAP: u32 = 1 << 20;
/// The gap's size: a `VmapArea` (48 bytes) fits.
pub(crate) const NULL_GAP_LEN: u32 = 64;
const _: () = assert!(std::mem::size_of::<VmapArea>() <= NULL_GAP_LEN as usize);

/// Bit 0 of the parent word: set means black (`RB_BLACK`).
pub(crate) const RB_BLACK: u32 = 1;
/// linux-5.2: lazily freed, still in the busy tree (`VM_LAZY_FREE`).
pub(crate) const F_LAZY: u32 = 2;
/// `debug_assertions` only: the upper half of a word that holds nonzero flags (see
/// [`VmapArea::flags`]). A size with exactly this upper half (a free block of about 2^63.9
/// bytes, within 4 GiB of one exact value) is one no test builds.
const FLAGS_TAG: u64 = 0xf1a9_5a5e << 32;
const FLAGS_TAG_MASK: u64 = 0xffff_ffff << 32;
/// linux-6.9: the encoded node id `(id + 1) << 8` lives in bits 8 and up; 0 means none.
pub(crate) const VN_SHIFT: u32 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmapArea {
    pub va_start: u64,
    pub va_end: u64,
    /// `subtree_max_size` in the free tree, `flags` everywhere else: see [`VmapArea::flags`].
    word: u64,
    /// `__rb_parent_color`: the parent's handle, the colour in bit 0.
    parent_color: u32,
    pub(crate) left: u32,
    pub(crate) right: u32,
    pub(crate) prev: u32,
    pub(crate) next: u32,
    /// Identity for views: never reused.
    pub id: u32,
}

// 48 bytes, and no implicit padding: the fields above (3 × 8 + 6 × 4) add up to the size.
const _: () = assert!(std::mem::size_of::<VmapArea>() == 48);
const _: () = assert!(std::mem::size_of::<VmapArea>() == 3 * 8 + 6 * 4);
const _: () = assert!(std::mem::align_of::<VmapArea>() == 8);

impl VmapArea {
    /// An object on no tree and no list: every link `NIL`, no flags.
    const fn unlinked(va_start: u64, va_end: u64, id: u32) -> Self {
        VmapArea { va_start, va_end, word: 0, parent_color: NIL, left: NIL, right: NIL, prev: NIL, next: NIL, id }
    }
}

/// The slab grows by this many objects (12 KiB) at a time; see [`Arena::grow`].
const BLOCK: usize = 256;

/// A handle counts the object's byte offset in the slab in units of this many bytes: `u64`
/// words, the slab's alignment.
const UNIT: usize = std::mem::size_of::<u64>();
/// A handle is the object's byte offset in the slab in [`UNIT`]s: index × 6.
pub(crate) const STRIDE: u32 = (std::mem::size_of::<VmapArea>() / UNIT) as u32;
// Every handle is even: bit 0 of a parent word is the colour.
const _: () = assert!(STRIDE.is_multiple_of(2) && std::mem::size_of::<VmapArea>() == STRIDE as usize * UNIT);

impl VmapArea {
    #[inline(always)]
    pub fn size(&self) -> u64 {
        self.va_end.wrapping_sub(self.va_start)
    }
    /// `rb_parent`.
    #[inline(always)]
    pub fn parent(&self) -> u32 {
        self.parent_color & !RB_BLACK
    }
    /// `rb_left` and `rb_right` (`NIL` for none).
    #[inline(always)]
    pub fn left(&self) -> u32 {
        self.left
    }
    #[inline(always)]
    pub fn right(&self) -> u32 {
        self.right
    }
    /// `rb_is_black`.
    #[inline(always)]
    pub fn is_black(&self) -> bool {
        self.parent_color & RB_BLACK != 0
    }
    /// `rb_set_parent`: the colour stays.
    #[inline(always)]
    pub(crate) fn set_parent(&mut self, p: u32) {
        debug_assert!(p & RB_BLACK == 0, "odd handle {p}");
        self.parent_color = p | (self.parent_color & RB_BLACK);
    }
    /// `rb_set_parent_color`.
    #[inline(always)]
    pub(crate) fn set_parent_color(&mut self, p: u32, black: bool) {
        debug_assert!(p & RB_BLACK == 0, "odd handle {p}");
        self.parent_color = p | u32::from(black);
    }
    /// `rb_set_black`.
    #[inline(always)]
    pub(crate) fn set_black(&mut self) {
        self.parent_color |= RB_BLACK;
    }
    /// The whole parent word (`__rb_parent_color`), to be copied as one.
    #[inline(always)]
    pub(crate) fn parent_color(&self) -> u32 {
        self.parent_color
    }
    #[inline(always)]
    pub(crate) fn set_parent_color_word(&mut self, pc: u32) {
        self.parent_color = pc;
    }
    #[inline(always)]
    pub fn is_lazy(&self) -> bool {
        self.flags() & F_LAZY != 0
    }
    /// Encoded vmap node id (0 = none).
    #[inline(always)]
    pub(crate) fn vn_id(&self) -> u32 {
        self.flags() >> VN_SHIFT
    }

    /// The largest `va_size` in this node's subtree: meaningful only while the area is in an
    /// augmented tree (the free tree), whose augment callbacks write it.
    #[inline(always)]
    pub fn subtree_max_size(&self) -> u64 {
        debug_assert!(self.word & FLAGS_TAG_MASK != FLAGS_TAG, "subtree_max_size read of a flags word");
        self.word
    }
    #[inline(always)]
    pub(crate) fn set_subtree_max_size(&mut self, v: u64) {
        self.word = v;
    }

    /// The flags of an area outside the free tree (busy, lazy, purge, pooled; every maple-rfc
    /// area). They share one word with `subtree_max_size`, as the kernel's `struct vmap_area`
    /// has since 5.4 put `subtree_max_size` (in the "free" tree) and `vm` (in the "busy" tree)
    /// in one union: an area is in one container at a time, and only the free tree is
    /// augmented. So an area entering the free tree gets its size from the augment code
    /// (`link_va` zeroes it, the propagation computes it), one leaving it for a busy tree is a
    /// fresh object or gets its flags written, and a busy area returned to free space has its
    /// flags cleared first (0 reads as both "no flags" and "size 0").
    ///
    /// With `debug_assertions`, nonzero flags are stored tagged in the upper half of the word,
    /// so that reading flags from a size word or a size from a flags word trips an assertion.
    #[inline(always)]
    pub(crate) fn flags(&self) -> u32 {
        debug_assert!(
            self.word == 0 || self.word & FLAGS_TAG_MASK == FLAGS_TAG,
            "flags read of a subtree_max_size word {:#x}",
            self.word
        );
        self.word as u32
    }
    #[inline(always)]
    pub(crate) fn set_flags(&mut self, f: u32) {
        self.word = u64::from(f) | if cfg!(debug_assertions) && f != 0 { FLAGS_TAG } else { 0 };
    }
    #[inline(always)]
    pub(crate) fn add_flags(&mut self, f: u32) {
        self.set_flags(self.flags() | f);
    }
    #[inline(always)]
    pub(crate) fn clear_flags(&mut self, f: u32) {
        self.set_flags(self.flags() & !f);
    }
}

/// Whether the allocator's own accesses ([`Arena::get`], [`Arena::try_get`], [`Arena::at`])
/// leave out the bounds test: in every optimised build (native and WebAssembly) without
/// `debug_assertions`, unless the feature `checked-arena` is on, which the crate's own tests turn
/// on (a dev-dependency of the crate on itself), so that the test suite, `--release` included,
/// turns any stray handle into a panic rather than a wild read. In wasm, V8 kept the test's
/// operands (`lim`, the handle) live across the red-black fix-ups and spilled them; natively the
/// test was 2 instructions per access, 76–88 per operation on the perf traces (callgrind,
/// `scripts/bench-perf.sh --callgrind`).
///
/// Leaving it out is sound because of an ownership invariant:
///
/// 1. Every handle stored in a link of any object in the slab, and in any field of the
///    structures that own the arena (trees, lists, pools, caches, the busy index), is `NIL` or
///    one [`Arena::alloc`] gave out, so below `lim`; `lim` never decreases, and a new block's
///    objects have only `NIL` links.
/// 2. Only the crate writes those: the link fields, the fields of `VaTree`, `Vmap` and
///    `MapleRfc` that carry handles, and every function that links, unlinks or follows links
///    from a handle or a tree of its caller's choosing are crate-private. Code outside the crate
///    reads objects only through the checked [`Arena::area`] and [`Arena::try_area`] (and
///    [`VaTree::iter`], [`crate::check`], the snapshots, which use them).
/// 3. The crate dereferences with `get`/`at` only handles that are not `NIL` by the invariants
///    of the structure they come from (which `check::check_invariants` verifies after every
///    operation of the test suite).
pub(crate) const UNCHECKED: bool = cfg!(not(any(debug_assertions, feature = "checked-arena")));

/// Slab of `vmap_area` objects, addressed by `u32` handles.
///
/// A handle is not an index but the object's offset in [`UNIT`]s (index × [`STRIDE`]), so
/// reaching an object from a link is one scaled load (`base + UNIT * handle`), as a kernel
/// pointer is one load, with no multiply by the object's size on the pointer-chasing path.
/// The stride is even, so every handle is: bit 0 of a parent link is free for the colour.
/// Any handle below `lim` is read or written as a `VmapArea` that lies wholly inside the slab
/// at an 8-byte boundary, and every byte of the slab is an initialised integer (the type has
/// no padding), so even a handle the arena never gave out reads integers, never memory
/// outside the slab: the one bounds compare is all a checked access needs, and it doubles as
/// the null test (natively `NIL` is never below `lim`; in wasm it is tested too). Handles the
/// allocator stores all come from [`Arena::alloc`] (multiples of [`STRIDE`], `debug_assert`ed);
/// see [`UNCHECKED`] for the accesses that leave the compare out.
///
/// Object 0 is never handed out: it is the null object, all zeros, which [`Arena::smax`]
/// reads for `NIL`. Natively `NIL` is -2 as an `i32`, and a node's `subtree_max_size` is its
/// word 2, so "word `handle + 2`", taken with the handle sign-extended, is the null object's
/// first word for `NIL` (the kernel's `get_subtree_max_size(NULL)` is 0, with a test for NULL):
///
/// ```text
///   word:   0                      6 = STRIDE          6h    6h+2
///           [ null object: zeros ][ first handle ]...[ va | va_end | smax | ... ]
///           ^ NIL + 2 = 0                                       ^ h + 2
/// ```
///
/// So a child's `subtree_max_size` is one load with no branch, as in a descent's tests and
/// every recompute of a node's value.
///
/// **Absolute handles** (`A`, the default in wasm: [`ABS`]). There a handle is the object's
/// address in linear memory, so that V8 reaches a field in one access (`membase + handle +
/// offset`) where a word offset costs a `lea` of `slab + 8 * handle` first, plus the slab's base
/// reloaded after stores and kept in a register (5–9 % of the replay's time in
/// Node). Objects then must never move: the slab is a list of segments, each allocated once at
/// its full capacity and never reallocated (a full one stays where it is and a new one, as
/// large as all before it, takes the next blocks):
///
/// ```text
///   segs[0]: [null][obj][obj]...      segs[1]: [obj]...[obj]      nodes: [obj]..[obj]  (spare)
///   handle = address of the object: bit 0 free; NIL = the null gap's address, never one
/// ```
///
/// A copy of the slab lies elsewhere, so [`Arena::clone_relocated`] gives the copy together with
/// the map from old handles to new, which the owner applies to every handle it holds
/// ([`crate::era::Vmap`]'s `Clone`); `Arena<true>` has no `Clone` of its own. `smax(NIL)` reads
/// the null gap ([`NULL_GAP`]: zeros the link keeps free at a fixed address), again one load with
/// no test (a static null object cost a compare and a select per read: 4 % of full_fit_s45's
/// instructions in Chromium, by `scripts/chromium-ir.mjs`). The other arenas (maple-rfc's, which
/// is not on a hot path and holds its handles in maple trees) keep word offsets: `Arena<false>`.
#[derive(Debug)]
pub struct Arena<const A: bool = ABS> {
    /// `nodes[0]` is the null object; handles reach `nodes[1..]`. With absolute handles: the
    /// current segment (`segs` holds the full ones), which never grows past its capacity.
    nodes: Vec<VmapArea>,
    /// Absolute handles only: the earlier segments, full, in order (the first begins with the
    /// null object); each still where it was allocated.
    segs: Vec<Vec<VmapArea>>,
    /// `(nodes.len() - 1) * STRIDE + 1`: handles below it (and not 0) have their object in the
    /// slab.
    lim: u32,
    free_slots: Vec<u32>,
    next_id: u32,
}

/// The slab as [`Arena::mark`] found it.
pub(crate) struct ArenaMark {
    segs: usize,
    len: usize,
    lim: u32,
    next_id: u32,
    /// The free slots set aside, and a copy of those left to the trial ([`MARK_SLOTS`]).
    free_slots: Vec<u32>,
    top: Vec<u32>,
}

/// Free slots a trial ([`Arena::mark`]) may reuse before the slab grows: its objects are
/// few, and a slab grown by a block at every trial would grow without end.
const MARK_SLOTS: usize = 32;

/// `subtree_max_size`'s word in a `VmapArea`.
const SMAX_WORD: isize = 2;
const _: () = assert!(std::mem::offset_of!(VmapArea, word) == SMAX_WORD as usize * UNIT);
// Natively `NIL + SMAX_WORD` is word 0 of the slab: the null object's `va_start`.
const _: () = assert!(cfg!(target_arch = "wasm32") || NIL as i32 as isize + SMAX_WORD == 0);
const _: () = assert!(std::mem::offset_of!(VmapArea, va_start) == 0);

/// Whether an [`Arena`]'s handles are absolute addresses by default: in wasm32, whose addresses
/// are `u32`s (natively they are 64-bit).
pub(crate) const ABS: bool = cfg!(target_arch = "wasm32");

/// The first byte of [`NULL_GAP`] that is not zero: `None` while the null object is intact
/// (and always natively, where there is no gap). [`crate::check::check_invariants`] asks.
pub(crate) fn null_gap_written() -> Option<usize> {
    #[cfg(target_arch = "wasm32")]
    for k in 0..NULL_GAP_LEN as usize {
        let p = std::ptr::with_exposed_provenance::<u8>(NULL_GAP as usize + k);
        // SAFETY: wasm memory below its current size is always readable (the gap lies below
        // the first static data); a volatile read, as of memory no Rust object owns.
        if unsafe { p.read_volatile() } != 0 {
            return Some(k);
        }
    }
    None
}

/// wasm32: whether the link left [`NULL_GAP`] to no one: the stack ends at or below it and the
/// first static data begins past it (the linker's own symbols say where).
#[cfg(target_arch = "wasm32")]
fn null_gap_reserved() -> bool {
    extern "C" {
        static __stack_high: u8;
        static __global_base: u8;
    }
    // Only the symbols' addresses are taken; nothing is read through them.
    let (stack_top, data) = (&raw const __stack_high as usize, &raw const __global_base as usize);
    stack_top <= NULL_GAP as usize && NULL_GAP as usize + NULL_GAP_LEN as usize <= data
}

/// Where a copy of an absolute-handle slab put each object ([`Arena::clone_relocated`]): per old
/// segment its address, its length and the new address of its first object.
pub(crate) struct Relocation {
    map: Vec<(usize, usize, usize)>,
}

impl Relocation {
    /// The handle in the copy of the object at `h`; `NIL` stays `NIL`, the colour bit stays.
    pub(crate) fn map(&self, h: u32) -> u32 {
        let (a, bit) = (h & !RB_BLACK, h & RB_BLACK);
        if a == NIL {
            return h;
        }
        for &(old, len, new) in &self.map {
            let off = (a as usize).wrapping_sub(old);
            if off < len * std::mem::size_of::<VmapArea>() {
                return (new + off) as u32 | bit;
            }
        }
        // Not an object of the slab, so not a handle (a freed object's stale word): as it is.
        h
    }
}

impl<const A: bool> Default for Arena<A> {
    fn default() -> Self {
        Self::empty()
    }
}

/// Word offsets are plain data: a copy's handles are the original's.
impl Clone for Arena<false> {
    fn clone(&self) -> Self {
        Arena {
            nodes: self.nodes.clone(),
            segs: Vec::new(),
            lim: self.lim,
            free_slots: self.free_slots.clone(),
            next_id: self.next_id,
        }
    }
}

impl Arena {
    pub fn new() -> Self {
        #[cfg(target_arch = "wasm32")]
        assert!(
            null_gap_reserved(),
            "this wasm build was linked without the null gap (.cargo/config.toml's link arguments)"
        );
        Self::empty()
    }
}

impl<const A: bool> Arena<A> {
    /// An empty arena of either kind of handle ([`Arena::new`]: the default kind).
    pub(crate) fn empty() -> Self {
        const { assert!(!A || usize::BITS == 32, "absolute handles are 32-bit addresses") };
        let mut nodes = Vec::with_capacity(if A { 1 + BLOCK } else { 1 });
        nodes.push(VmapArea::unlinked(0, 0, 0));
        Arena { nodes, segs: Vec::new(), lim: 1, free_slots: Vec::new(), next_id: 0 }
    }

    /// A copy of the arena, and where its objects went: `None` with word offsets (the copy's
    /// handles are the original's), else the map every holder of a handle must apply.
    pub(crate) fn clone_relocated(&self) -> (Self, Option<Relocation>) {
        let mut nodes = Vec::with_capacity(self.slots() + if A { BLOCK } else { 0 });
        let mut map = Vec::new();
        for s in self.segs.iter().chain(std::iter::once(&self.nodes)) {
            map.push((s.as_ptr().expose_provenance(), s.len(), nodes.len()));
            nodes.extend_from_slice(s);
        }
        let base = nodes.as_mut_ptr().expose_provenance();
        for m in &mut map {
            m.2 = base + m.2 * std::mem::size_of::<VmapArea>();
        }
        let mut a = Arena {
            nodes,
            segs: Vec::new(),
            lim: self.lim,
            free_slots: self.free_slots.clone(),
            next_id: self.next_id,
        };
        if !A {
            return (a, None);
        }
        let r = Relocation { map };
        a.relocate_links(&|h| r.map(h));
        (a, Some(r))
    }

    /// Map every handle the arena itself holds (its objects' links, its free slots) through
    /// `f`, which maps `NIL` to `NIL`.
    fn relocate_links(&mut self, f: &impl Fn(u32) -> u32) {
        for h in &mut self.free_slots {
            *h = f(*h);
        }
        for v in self.segs.iter_mut().flatten().chain(self.nodes.iter_mut()) {
            v.parent_color = f(v.parent()) | (v.parent_color & RB_BLACK);
            for l in [&mut v.left, &mut v.right, &mut v.prev, &mut v.next] {
                *l = f(*l);
            }
        }
    }

    /// For the tests of [`crate::era::Vmap::relocate`] natively, where a copy's handles are the
    /// original's: the objects in reverse order (the null object stays first), links and free
    /// slots mapped; returns the map from old handles to new for the owner's handles.
    #[cfg(test)]
    pub(crate) fn reverse(&mut self) -> impl Fn(u32) -> u32 {
        assert!(!A && self.segs.is_empty());
        let n = self.nodes.len() as u32;
        let f = move |h: u32| if h == NIL { NIL } else { (n - h / STRIDE) * STRIDE };
        self.nodes[1..].reverse();
        self.relocate_links(&f);
        f
    }

    /// A dense number for handle `i`, below [`Arena::dense_len`], for tables keyed by handle
    /// ([`crate::check_inc`]): half the word offset (handles are even; no division), or with
    /// absolute handles the object number (a walk of the segments); past the table for a handle
    /// the slab does not hold.
    #[inline]
    pub(crate) fn dense(&self, i: u32) -> usize {
        if A {
            self.index_of(i).unwrap_or(usize::MAX)
        } else {
            (i >> 1) as usize
        }
    }
    /// The size a table keyed by [`Arena::dense`] needs.
    pub(crate) fn dense_len(&self) -> usize {
        self.slots() * if A { 1 } else { (STRIDE / 2) as usize }
    }

    /// With absolute handles: the object number of `i` (0 is the null object), if `i` is one of
    /// the slab's objects (word offsets answer this with `lim` and a shift: see `in_slab`).
    fn index_of(&self, i: u32) -> Option<usize> {
        debug_assert!(A, "a walk of the segments, for absolute handles");
        let mut before = 0;
        for s in self.segs.iter().chain(std::iter::once(&self.nodes)) {
            let off = (i as usize).wrapping_sub(s.as_ptr().expose_provenance());
            if off < s.len() * std::mem::size_of::<VmapArea>() {
                return off
                    .is_multiple_of(std::mem::size_of::<VmapArea>())
                    .then_some(before + off / std::mem::size_of::<VmapArea>());
            }
            before += s.len();
        }
        None
    }

    /// Whether `i` is a handle whose object is in the slab: not 0 (the null object), not `NIL`,
    /// below `lim`. One compare with word offsets; a walk of the segments with absolute handles
    /// (only the checked accessors ask).
    #[inline(always)]
    fn in_slab(&self, i: u32) -> bool {
        if A {
            return self.index_of(i).is_some_and(|k| k != 0);
        }
        i.wrapping_sub(1) < self.lim - 1 && (!cfg!(target_arch = "wasm32") || i != NIL)
    }

    /// A handle as a word number, for tables keyed by handle ([`crate::busy_index`]): the
    /// handle itself with word offsets, the address in words with absolute handles.
    #[inline(always)]
    pub(crate) fn word(&self, i: u32) -> u32 {
        if A {
            i >> 3
        } else {
            i
        }
    }
    /// The handle of a [`Arena::word`].
    #[inline(always)]
    pub(crate) fn handle_of_word(&self, w: u32) -> u32 {
        if A {
            w << 3
        } else {
            w
        }
    }

    /// `kmem_cache_alloc(vmap_area_cachep)`.
    #[inline]
    pub fn alloc(&mut self, va_start: u64, va_end: u64) -> u32 {
        let va = VmapArea::unlinked(va_start, va_end, self.next_id);
        self.next_id = self.next_id.wrapping_add(1);
        let h = match self.free_slots.pop() {
            Some(h) => h,
            None => self.grow(),
        };
        *self.at(h) = va;
        h
    }

    /// The slab is full: add a block of [`BLOCK`] objects and queue them for [`Arena::alloc`],
    /// returning the first. Handed out in address order, areas allocated 2^k apart (as a
    /// tree's ancestors often are in address rank) would lie exactly 2^k × 48 bytes apart: for
    /// k >= 8 a multiple of 4 KiB, the same L1 cache set, so that a descent's nodes evict one
    /// another (long_busy_s43 with 56-byte objects in address order: 11.8 simulated L1 misses
    /// per operation in a 32 KiB 8-way L1, 1.5 with the same capacity fully associative). So a
    /// block is 256 objects (48 × 256 = 12 KiB: no two objects of one block lie a multiple of
    /// 4 KiB apart), and block `b` is handed out in order but starting at object `rot(b)`, the
    /// top 8 bits of `b × 0x9e3779b9` (Fibonacci hashing), wrapping: neighbours in time stay
    /// neighbours in memory, and the same position in blocks `2^j` apart lands in unrelated
    /// sets for every `j` (a linear `37 × b mod 256` would repeat every 256 blocks, k >= 16).
    #[cold]
    fn grow(&mut self) -> u32 {
        let total = self.slots();
        // Handles are u32, `NIL` must stay above every one, and [`Arena::smax`] sign-extends
        // them: 2^31 / STRIDE objects would be 17 GiB, so this cannot happen before memory runs
        // out. (In wasm32, where `NIL` is 2^20: absolute handles are addresses of the heap, past
        // the null gap; word offsets are multiples of STRIDE, which 2^20 is not.)
        assert!(A || total + BLOCK < (i32::MAX as u32 / STRIDE) as usize - 1, "vmap_area arena full");
        if A && self.nodes.capacity() - self.nodes.len() < BLOCK {
            // The segment is full: it stays where it is, and a new one as large as the whole
            // slab so far takes the next blocks.
            let next = Vec::with_capacity(total.max(BLOCK));
            self.segs.push(std::mem::replace(&mut self.nodes, next));
        }
        let n = self.nodes.len();
        let blank = VmapArea::unlinked(0, 0, 0);
        let before = self.nodes.as_ptr();
        self.nodes.resize(n + BLOCK, blank);
        debug_assert!(!A || self.nodes.as_ptr() == before, "a segment moved");
        self.lim = (n + BLOCK - 1) as u32 * STRIDE + 1;
        let rot = ((total / BLOCK) as u32).wrapping_mul(0x9e37_79b9) as usize >> 24;
        const _: () = assert!(BLOCK == 1 << 8);
        self.free_slots.reserve(BLOCK);
        let base = self.nodes.as_mut_ptr().expose_provenance();
        for j in (0..BLOCK).rev() {
            let k = n + (j + rot) % BLOCK;
            self.free_slots.push(if A {
                (base + k * std::mem::size_of::<VmapArea>()) as u32
            } else {
                k as u32 * STRIDE
            });
        }
        self.free_slots.pop().unwrap_or(NIL)
    }

    /// Set the free slots aside but the last [`MARK_SLOTS`], so that every object allocated
    /// from now on lies in one of those (free before: nothing to save) or past the current end
    /// ([`Arena::rewind`] drops them, [`Arena::settle`] keeps them). The objects already handed
    /// out are not saved: the caller saves those it lets change.
    pub(crate) fn mark(&mut self) -> ArenaMark {
        let top = self.free_slots.split_off(self.free_slots.len().saturating_sub(MARK_SLOTS));
        ArenaMark {
            segs: self.segs.len(),
            len: self.nodes.len(),
            lim: self.lim,
            next_id: self.next_id,
            free_slots: std::mem::replace(&mut self.free_slots, top.clone()),
            top,
        }
    }

    /// Back to the slab of `m`: the objects allocated since are gone, and so are the handles
    /// released since (their objects are the caller's to put back).
    pub(crate) fn rewind(&mut self, m: ArenaMark) {
        if self.segs.len() > m.segs {
            // Segments added since go; the one that was current is current again.
            self.nodes = self.segs.swap_remove(m.segs);
            self.segs.truncate(m.segs);
        }
        self.nodes.truncate(m.len);
        self.lim = m.lim;
        self.next_id = m.next_id;
        self.free_slots = m.free_slots;
        self.free_slots.extend_from_slice(&m.top);
    }

    /// Keep what was allocated and released since `m`: the slots set aside are free again,
    /// under those freed or added since (which go first).
    pub(crate) fn settle(&mut self, m: ArenaMark) {
        let mut slots = m.free_slots;
        slots.extend_from_slice(&self.free_slots);
        self.free_slots = slots;
    }

    /// `kmem_cache_free`.
    #[inline]
    pub(crate) fn release(&mut self, i: u32) {
        self.free_slots.push(i);
    }

    /// The object at handle `i`, for code outside the crate.
    ///
    /// # Panics
    /// On `NIL` or a handle past the slab.
    #[inline]
    pub fn area(&self, i: u32) -> &VmapArea {
        match self.try_area(i) {
            Some(v) => v,
            None => out_of_slab(i, self.lim),
        }
    }

    /// The object at `i`, or `None` for `NIL` or a handle past the slab. One comparison does
    /// both the null test and the bounds check: `NIL` is above every handle.
    #[inline(always)]
    pub fn try_area(&self, i: u32) -> Option<&VmapArea> {
        // SAFETY: `i < lim` (see `slot`).
        self.in_slab(i).then(|| unsafe { self.slot(i) })
    }

    /// The object at word `i` of the slab, unchecked.
    ///
    /// # Safety
    /// `i < lim`: the object at word `i` (byte `UNIT * i`) then lies inside `nodes` (unit
    /// `i + STRIDE` is at most `nodes.len() * STRIDE`) at an 8-byte boundary (the slab's
    /// alignment); every byte there is an initialised `u64`/`u32` field of some object (no
    /// padding), and any bit pattern is a valid `VmapArea`.
    /// (Addressed as `u64` words, not bytes: with a byte offset the compiler merged the two arms
    /// of a descent into one load through a selected field offset, four more instructions per
    /// level in `find_va_links`.)
    #[inline(always)]
    unsafe fn slot(&self, i: u32) -> &VmapArea {
        if A {
            debug_assert!(self.in_slab(i), "handle {i:#x} is not one of the slab's objects");
            // SAFETY: `i` is the address of one of the slab's objects, exposed when its
            // segment was allocated; segments never move.
            return unsafe { &*std::ptr::with_exposed_provenance::<VmapArea>(i as usize) };
        }
        debug_assert!(i < self.lim, "handle {i:#x} outside the slab (below {:#x})", self.lim);
        debug_assert!(i.is_multiple_of(STRIDE), "handle {i} is not one the arena gave out");
        unsafe { &*self.nodes.as_ptr().cast::<u64>().add(i as usize).cast::<VmapArea>() }
    }
    /// Ask the cache for object `i` ahead of its use: one `prefetcht0`, which never faults
    /// (`NIL` and stale handles included) and changes nothing but timing. x86_64 only; wasm
    /// has no prefetch.
    #[inline(always)]
    pub(crate) fn prefetch(&self, i: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: `_mm_prefetch` only hints the cache: it reads no memory the program sees
            // and cannot fault on any address; `wrapping_add` keeps the address computation
            // itself defined for any `i` (`NIL` points past the slab).
            unsafe {
                use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
                let p = self.nodes.as_ptr().cast::<u64>().wrapping_add(i as usize);
                _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }
    /// As [`Arena::slot`], for writing: through `as_mut_ptr` (a pointer from `as_ptr` may not
    /// be written through), and `&mut self` makes it the only reference into the slab.
    ///
    /// # Safety
    /// `i < lim`, as for [`Arena::slot`].
    #[inline(always)]
    unsafe fn slot_mut(&mut self, i: u32) -> &mut VmapArea {
        if A {
            debug_assert!(self.in_slab(i), "handle {i:#x} is not one of the slab's objects");
            // SAFETY: as in `slot`; `&mut self` makes it the only reference into the slab.
            return unsafe { &mut *std::ptr::with_exposed_provenance_mut::<VmapArea>(i as usize) };
        }
        debug_assert!(i < self.lim, "handle {i:#x} outside the slab (below {:#x})", self.lim);
        debug_assert!(i.is_multiple_of(STRIDE), "handle {i} is not one the arena gave out");
        unsafe { &mut *self.nodes.as_mut_ptr().cast::<u64>().add(i as usize).cast::<VmapArea>() }
    }

    /// The object at handle `i`, on the allocator's own paths: `i` comes from a link or a field
    /// of the structures that own this arena and is not `NIL` by their invariants (see
    /// [`UNCHECKED`] for when the bounds test is left out).
    #[inline(always)]
    pub(crate) fn get(&self, i: u32) -> &VmapArea {
        if UNCHECKED {
            // SAFETY: `i < lim` by the ownership invariant of `UNCHECKED`.
            unsafe { self.slot(i) }
        } else {
            self.area(i)
        }
    }

    /// The object at `i`, or `None` for `NIL`, on the allocator's own paths.
    #[inline(always)]
    pub(crate) fn try_get(&self, i: u32) -> Option<&VmapArea> {
        if UNCHECKED {
            // SAFETY: `i` is `NIL` or below `lim` by the ownership invariant of `UNCHECKED`.
            (i != NIL).then(|| unsafe { self.slot(i) })
        } else {
            self.try_area(i)
        }
    }

    #[inline(always)]
    pub(crate) fn at(&mut self, i: u32) -> &mut VmapArea {
        if UNCHECKED || self.in_slab(i) {
            // SAFETY: `i < lim` (tested, or by the ownership invariant of `UNCHECKED`).
            unsafe { self.slot_mut(i) }
        } else {
            out_of_slab(i, self.lim)
        }
    }

    /// Objects handed out so far, freed ones included.
    pub(crate) fn slots(&self) -> usize {
        self.segs.iter().map(Vec::len).sum::<usize>() + self.nodes.len()
    }

    /// Clear the tree and list links of an area that has left its containers (the state
    /// `RB_CLEAR_NODE` + `INIT_LIST_HEAD` leave it in), ready to be linked elsewhere.
    #[inline]
    pub(crate) fn detach(&mut self, i: u32) {
        let a = self.at(i);
        a.set_parent(NIL);
        a.left = NIL;
        a.right = NIL;
        a.prev = NIL;
        a.next = NIL;
    }

    /// `subtree_max_size` of a possibly-null node (`get_subtree_max_size`): 0 for `NIL`, read
    /// from the null object with no test (see [`Arena`]).
    #[inline(always)]
    pub(crate) fn smax(&self, i: u32) -> u64 {
        if !UNCHECKED && i != NIL {
            return self.area(i).subtree_max_size();
        }
        if A {
            // SAFETY: an object of the slab (as in `slot`), or for `NIL` the null gap: 64 bytes
            // of wasm memory that are always mapped, zero and written by no one (`NULL_GAP`).
            return unsafe { (*std::ptr::with_exposed_provenance::<VmapArea>(i as usize)).word };
        }
        if cfg!(target_arch = "wasm32") && i == NIL {
            // Word offsets in wasm (maple-rfc's arena): `NIL` is not -2 there.
            return 0;
        }
        // Word `i + 2` of the slab, `i` sign-extended: `NIL` reaches word 0.
        let w = (i as i32 as isize + SMAX_WORD) as usize;
        debug_assert!(i == NIL || (w as u32) < self.lim + SMAX_WORD as u32);
        // SAFETY: `i` is `NIL` or a handle below `lim` (the ownership invariant of `UNCHECKED`;
        // tested above otherwise): word `w` is then word 0 (`nodes` is never empty) or the
        // `word` field of an object in the slab; both are initialised `u64`s.
        unsafe { *self.nodes.as_ptr().cast::<u64>().add(w) }
    }

    /// Objects currently allocated (in some container).
    pub fn live(&self) -> usize {
        self.slots() - 1 - self.free_slots.len()
    }

    /// The view identity of the object at `i`, `None` for `NIL`.
    ///
    /// # Panics
    /// On a handle past the slab.
    pub fn id_of(&self, i: u32) -> Option<u32> {
        (i != NIL).then(|| self.area(i).id)
    }
}

/// A red-black tree root plus the address-sorted list threaded through the same objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VaTree {
    pub(crate) root: u32,
    pub(crate) first: u32,
    pub(crate) last: u32,
    pub(crate) len: usize,
    /// Ours, not the kernel's: the list neighbours `(prev, next)` (`NIL` at an end) of the
    /// object erased last, as long as nothing was linked or erased since (`link_va` and
    /// `unlink_va` forget it). They are then still neighbours, so a range that fits between
    /// them is linked there without the descent (`vmalloc::gap_links`). Set in the free tree by
    /// a whole-block clip (`FL_FIT_TYPE`: the free of that area will give the range back), in a
    /// busy tree by a free (the next allocation often takes the same range again).
    ///
    /// ```text
    ///   prev            (erased)            next
    ///   [----)      [==== gap ====)      [--------)     prev.next == next
    /// ```
    pub(crate) gap: Option<(u32, u32)>,
    /// Ours, not the kernel's, and only in the free tree: the lowest block that fits each of the
    /// last two unaligned requests, kept up to date as blocks come, go, grow and shrink (see
    /// [`LowestFits`]).
    pub(crate) low: LowestFits,
}

impl Default for VaTree {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl VaTree {
    /// A tree with nothing in it.
    pub const EMPTY: VaTree = VaTree { root: NIL, first: NIL, last: NIL, len: 0, gap: None, low: LowestFits::NONE };

    /// Map every handle the tree holds outside its objects (see [`crate::era::Vmap::relocate`]).
    pub(crate) fn relocate(&mut self, f: &impl Fn(u32) -> u32) {
        self.root = f(self.root);
        self.first = f(self.first);
        self.last = f(self.last);
        self.gap = self.gap.map(|(p, n)| (f(p), f(n)));
        self.low.relocate(f);
    }

    pub fn is_empty(&self) -> bool {
        self.root == NIL
    }
    /// The root's handle (`NIL` when empty).
    pub fn root(&self) -> u32 {
        self.root
    }
    /// The lowest and the highest area of the list (`NIL` when empty).
    pub fn first(&self) -> u32 {
        self.first
    }
    pub fn last(&self) -> u32 {
        self.last
    }
    /// Areas in the tree.
    pub fn len(&self) -> usize {
        self.len
    }
    /// See the field `gap`.
    pub fn gap(&self) -> Option<(u32, u32)> {
        self.gap
    }

    /// `list_add(va, after)`: `after == NIL` means at the head of the list.
    #[inline(always)]
    pub(crate) fn list_add_after(&mut self, a: &mut Arena, va: u32, after: u32) {
        let next = if after == NIL { self.first } else { a.get(after).next };
        {
            let v = a.at(va);
            v.prev = after;
            v.next = next;
        }
        if after == NIL {
            self.first = va;
        } else {
            a.at(after).next = va;
        }
        if next == NIL {
            self.last = va;
        } else {
            a.at(next).prev = va;
        }
        self.len += 1;
    }

    /// `list_del`; returns the neighbours `va` had, `(prev, next)`. Its own links are left as
    /// they were (the kernel poisons them): nothing reads them before `va` is added to a list
    /// again or released.
    #[inline]
    pub(crate) fn list_del(&mut self, a: &mut Arena, va: u32) -> (u32, u32) {
        let (p, n) = {
            let v = a.get(va);
            (v.prev, v.next)
        };
        if p == NIL {
            self.first = n;
        } else {
            a.at(p).next = n;
        }
        if n == NIL {
            self.last = p;
        } else {
            a.at(n).prev = p;
        }
        self.len -= 1;
        (p, n)
    }

    /// The list in address order.
    pub fn iter<'a>(&self, a: &'a Arena) -> ListIter<'a> {
        ListIter { a, cur: self.first }
    }

    /// Exact lookup: the area starting at `addr`, or `NIL`. One comparison per level (the
    /// areas of a tree never overlap, so at most one starts at `addr`).
    #[inline]
    pub(crate) fn find_start(&self, a: &Arena, addr: u64) -> u32 {
        let mut n = self.root;
        while let Some(v) = a.try_get(n) {
            if addr == v.va_start {
                return n;
            }
            n = if addr < v.va_start { v.left } else { v.right };
        }
        NIL
    }

    /// The lowest area ending above `addr`: the one holding it, else the next one up; `NIL`
    /// if none (the areas of a tree never overlap, so their ends are in address order too).
    pub(crate) fn find_end_above(&self, a: &Arena, addr: u64) -> u32 {
        let mut n = self.root;
        let mut best = NIL;
        while let Some(v) = a.try_get(n) {
            if v.va_end > addr {
                best = n;
                n = v.left;
            } else {
                n = v.right;
            }
        }
        best
    }

    /// Containment lookup: the area with `va_start <= addr < va_end`.
    pub(crate) fn find_containing(&self, a: &Arena, addr: u64) -> u32 {
        let mut n = self.root;
        while let Some(v) = a.try_get(n) {
            if addr < v.va_start {
                n = v.left;
            } else if addr >= v.va_end {
                n = v.right;
            } else {
                return n;
            }
        }
        NIL
    }
}

pub struct ListIter<'a> {
    a: &'a Arena,
    cur: u32,
}

impl<'a> Iterator for ListIter<'a> {
    type Item = (u32, &'a VmapArea);
    fn next(&mut self) -> Option<Self::Item> {
        if self.cur == NIL {
            return None;
        }
        let i = self.cur;
        let v = self.a.area(i);
        self.cur = v.next;
        Some((i, v))
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn out_of_slab(i: u32, lim: u32) -> ! {
    panic!("vmap_area handle {i:#x} outside the slab (handles below {lim:#x})")
}

/// A plain snapshot of one area, as views and tests want it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct AreaInfo {
    pub id: u32,
    pub va_start: Addr,
    pub va_end: Addr,
}

/// The word-offset layout (handles, cache sets); absolute handles have `raw_tests::relocate` and
/// the whole suite on wasm32-wasip1 (scripts/test-wasi.mjs).
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::{Arena, NIL, STRIDE, UNCHECKED, UNIT};

    /// Handles from `alloc` reach their own object, stay distinct, and a released handle is
    /// handed out again with a fresh id; `NIL` and everything past the slab read as nothing.
    #[test]
    fn handles_reach_their_objects() {
        let mut a = Arena::new();
        assert!(a.try_area(0).is_none() && a.try_area(NIL).is_none());
        let hs: Vec<u32> = (0..1000u64).map(|k| a.alloc(k << 12, (k + 1) << 12)).collect();
        for (k, &h) in hs.iter().enumerate() {
            let v = a.get(h);
            assert_eq!((v.va_start, v.va_end, v.id), ((k as u64) << 12, (k as u64 + 1) << 12, k as u32));
        }
        let mut sorted = hs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), hs.len());
        // Past the slab (which grows by doubling, so it may hold unused objects): nothing.
        assert!(a.try_area(a.slots() as u32 * STRIDE).is_none() && a.try_area(NIL).is_none());
        assert_eq!(a.try_area(hs[7]).map(|v| v.va_start), Some(7 << 12));
        a.at(hs[10]).left = hs[20];
        assert_eq!(a.get(hs[10]).left, hs[20]);
        assert_eq!(a.get(hs[20]).va_start, 20 << 12);
        a.release(hs[500]);
        let again = a.alloc(7, 9);
        assert_eq!(again, hs[500]);
        assert_eq!((a.get(again).va_start, a.get(again).id), (7, 1000));
        assert_eq!(a.live(), 1000);
        assert_eq!(a.id_of(NIL), None);
        assert_eq!(a.id_of(hs[3]), Some(3));
    }

    /// Fresh objects are not laid out purely in allocation order: areas allocated 2^k apart (k >= 8)
    /// mostly land in different L1 sets (byte offset / 64 mod 64), where in allocation order
    /// they would all share one (48 * 2^k is a multiple of 4 KiB).
    #[test]
    fn fresh_objects_spread_over_cache_sets() {
        let mut a = Arena::new();
        let hs: Vec<u32> = (0..16384u64).map(|k| a.alloc(k << 12, (k + 1) << 12)).collect();
        let set = |h: u32| (h as usize * UNIT / 64) % 64;
        let (mut same, mut pairs) = (0, 0);
        for k in 8..14 {
            for r in 0..hs.len() - (1 << k) {
                pairs += 1;
                same += usize::from(set(hs[r]) == set(hs[r + (1 << k)]));
            }
        }
        // Uniformly spread would be 1/64 of the pairs; allocation order gives all of them.
        assert!(same * 16 < pairs, "{same} of {pairs} pairs share a set");
        // Every object of the slab is handed out exactly once before the slab grows again.
        let mut sorted = hs.clone();
        sorted.sort_unstable();
        assert!(sorted.iter().enumerate().all(|(i, &h)| h == (i as u32 + 1) * STRIDE));
    }

    /// The tests run with the bounds test on, `--release` included (the dev-dependency turns on
    /// `checked-arena`): `get_nil_panics` below relies on it.
    #[test]
    fn tests_keep_the_bounds_test() {
        const { assert!(!UNCHECKED) };
    }

    #[test]
    #[should_panic(expected = "outside the slab")]
    fn get_nil_panics() {
        let mut a = Arena::new();
        a.alloc(1, 2);
        let _ = a.get(NIL);
    }

    /// The public accessor checks every handle, whatever the build: code outside the crate
    /// may hold any `u32`.
    #[test]
    #[should_panic(expected = "outside the slab")]
    fn area_past_the_slab_panics() {
        let mut a = Arena::new();
        a.alloc(1, 2);
        let _ = a.area(a.slots() as u32 * STRIDE);
    }
}

/// Both kinds of handle, natively and on wasm32-wasip1.
#[cfg(test)]
mod null_tests {
    use super::{Arena, NIL};

    /// `smax(NIL)` reads 0 with no test, in both kinds of arena: natively word 0 of the slab; in
    /// wasm the null gap, which the link must leave to no one (checked on the linker's own
    /// symbols) and which is still zero (as `check_invariants` checks after every operation).
    #[test]
    fn smax_of_nil_is_zero() {
        let mut a = Arena::new();
        let h = a.alloc(1 << 12, 3 << 12);
        assert_eq!((a.smax(NIL), a.smax(h)), (0, 0));
        let mut w = Arena::<false>::empty();
        w.alloc(1 << 12, 3 << 12);
        assert_eq!(w.smax(NIL), 0);
        #[cfg(target_arch = "wasm32")]
        assert!(super::null_gap_reserved());
        assert_eq!(super::null_gap_written(), None);
    }

    /// A write into the gap is seen (the check above can fail), and `smax(NIL)` would read it.
    #[cfg(target_arch = "wasm32")]
    #[test]
    fn a_written_null_gap_is_seen() {
        let p = std::ptr::with_exposed_provenance_mut::<u8>(super::NULL_GAP as usize + 17);
        // SAFETY: the gap is plain wasm memory that nothing else uses; the tests run one at a
        // time on WASI, and the byte is put back before any other code reads it.
        unsafe { p.write_volatile(1) };
        let (seen, read) = (super::null_gap_written(), Arena::new().smax(NIL));
        unsafe { p.write_volatile(0) };
        assert_eq!((seen, read), (Some(17), 1 << 8));
        assert_eq!(super::null_gap_written(), None);
    }
}

// ------------------------------------------------------------------
// The free tree's lowest-fit memos (kept in its VaTree)
// ------------------------------------------------------------------

/// `is_within_this_va` (`crate::vmalloc`) on the object itself.
#[inline(always)]
pub(crate) fn is_within(v: &VmapArea, size: u64, align: u64, vstart: u64) -> bool {
    // `ALIGN` of the larger of the two: the kernel's two-armed `if`, with one `ALIGN`.
    let nva = align_up(v.va_start.max(vstart), align);
    // A wrapped ALIGN (below vstart) cannot fit, nor can a wrapped end: `nva + size <= va_end`
    // without wrapping is `nva <= va_end` and `va_end - nva >= size`.
    nva >= vstart && v.va_end.checked_sub(nva).is_some_and(|room| room >= size)
}

/// Ours, not the kernel's: the block [`crate::vmalloc::find_vmap_lowest_match`] returns for an unaligned
/// request `(size, vstart)`, remembered from one search to the next (for the last two such
/// requests: workloads often alternate two sizes).
///
/// With `align == 1` the search length is the size itself (every era), and then the search
/// returns the lowest block in address order that fits, whatever the tree's shape: a subtree
/// it does not enter holds no block of `size` bytes or more, so no block that fits; a subtree
/// it enters to the right of a block at or above `vstart` holds one that fits, and the descent
/// takes the lowest; the one block that may straddle `vstart` lies on the way down to it. (With
/// a larger alignment a block of exactly the size may fit and still be pruned by the padded
/// length: the shape decides, and nothing is remembered.) So the answer depends only on the
/// set of blocks, and it is kept up to date as that set changes:
///
/// ```text
///   key:  known lowest fit R (node)     or  a bound: no block starting below key fits
///   a block appears or grows:  it fits and starts at or below key  -> it is the lowest fit
///   R shrinks:                 still fits -> R (key = its start); else bound at its start,
///                              pred = R
///   R leaves the tree:         bound at its end (nothing below R fitted; nothing starts in R),
///                              pred = R.prev
///   pred shrinks:              the bound rises to its start (what it gave up is busy)
///   pred leaves the tree:      pred = NIL
///   any other change:          nothing (a block that did not fit never fits by shrinking)
/// ```
///
/// A bound with `pred` still answers without the descent: no block starting at or below
/// `pred` fits, so when the block after it in the list fits, that block is the lowest fit. A
/// full fit erases the lowest hole, and the next hole is often of the same size: so a run of
/// full fits (holes filled while the frees wait in the lazy list) needs no descent either.
///
/// Without an observer, a search whose request is remembered with a known block takes it
/// without the descent, and any other search of an unaligned request records its answer. With
/// an observer the descent always runs (the player shows it) and records nothing, but the memos
/// are kept up to date all the same. [`crate::check::check_invariants`] checks both memos against the blocks themselves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LowestFit {
    /// The request's size; 0 when no request is remembered.
    size: u64,
    vstart: u64,
    /// The lowest block that fits, or `NIL` when only the bound is known.
    node: u32,
    /// With a bound only: a free block at or below it that does not fit, whose list successor
    /// is then the first candidate; `NIL` when there is none.
    pred: u32,
    /// `node`'s start when known, else the bound.
    key: u64,
    /// Whether this memo has answered a search since it was recorded.
    hit: bool,
}

impl LowestFit {
    const NONE: LowestFit = LowestFit { size: 0, vstart: 0, node: NIL, pred: NIL, key: 0, hit: false };

    /// Whether this memo is the one of request `(size, vstart)`.
    #[inline(always)]
    pub(crate) fn holds(&self, size: u64, vstart: u64) -> bool {
        self.size == size && self.vstart == vstart
    }

    /// The free block `x` was linked, or grew.
    #[inline(always)]
    pub(crate) fn grown(&mut self, v: &VmapArea, x: u32) {
        // (`pred`, if any, lies at or below the bound: a block of its own that grows to fit is
        // taken here.)
        if self.size != 0 && v.va_start <= self.key && is_within(v, self.size, 1, self.vstart) {
            self.node = x;
            self.key = v.va_start;
        }
    }

    /// The free block `x` shrank (it stays in the tree).
    #[inline(always)]
    pub(crate) fn shrunk(&mut self, v: &VmapArea, x: u32) {
        if self.node == x {
            self.key = v.va_start;
            if !is_within(v, self.size, 1, self.vstart) {
                self.node = NIL;
                self.pred = x;
            }
        } else if self.node == NIL && self.pred == x && v.va_start > self.key {
            // pred clipped at its start: what it gave up is busy, so the bound rises with it
            // (a block freed there later is then tested against the bound when it appears).
            self.key = v.va_start;
        }
    }

    /// The free block `x` is leaving the tree.
    #[inline(always)]
    pub(crate) fn erased(&mut self, v: &VmapArea, x: u32) {
        if self.node == x {
            self.node = NIL;
            self.key = v.va_end;
            self.pred = v.prev;
        } else if self.pred == x {
            self.pred = NIL;
        }
    }

    /// The lowest fit this memo knows: its block, or the block after `pred` when that fits.
    #[inline(always)]
    pub(crate) fn answer(&self, a: &Arena) -> Option<u32> {
        if self.node != NIL {
            return Some(self.node);
        }
        let next = a.try_get(self.pred)?.next;
        a.try_get(next).is_some_and(|n| is_within(n, self.size, 1, self.vstart)).then_some(next)
    }
}

/// The [`LowestFit`] memos of the free tree: the request recorded last first.
///
/// A memo costs a test at every change of the free tree, and pays only when a search hits
/// it. A workload of many sizes (three or more in turn, or random ones) evicts memos that
/// never answered: after [`STRIKES`] such evictions in a row the memos are dropped and no
/// search records for the next [`REST`] searches, so the changes cost one test again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LowestFits {
    pub(crate) memo: [LowestFit; 2],
    /// Memos evicted in a row that never answered a search.
    strikes: u8,
    /// Searches still to pass without recording.
    rest: u16,
}

/// In wasm, a free tree of fewer blocks than this is searched, not remembered: its descent is
/// a few steps, cheaper there than keeping the memos up to date at every change (long_busy's
/// free tree holds 2 or 3 blocks: 4 % of its time in Chromium). Natively the memos still pay
/// on such a tree (long_busy_s43: 397.1 Ir/op with them, 404.6 without), so the bound is 0
/// there, except in the crate's unit tests, which check the wasm rule with the invariants of
/// every step.
pub(crate) const MEMO_MIN_BLOCKS: usize = if cfg!(any(target_arch = "wasm32", test)) { 16 } else { 0 };
/// Evictions of memos that never answered, in a row, that drop the memos.
const STRIKES: u8 = 4;
/// Searches that do not record after the memos are dropped.
const REST: u16 = 256;

impl LowestFits {
    /// Map the remembered blocks' handles (see [`crate::era::Vmap::relocate`]).
    pub(crate) fn relocate(&mut self, f: &impl Fn(u32) -> u32) {
        for m in &mut self.memo {
            m.node = f(m.node);
            m.pred = f(m.pred);
        }
    }

    pub(crate) const NONE: LowestFits = LowestFits { memo: [LowestFit::NONE; 2], strikes: 0, rest: 0 };

    /// The remembered lowest fit of `(size, vstart)` with `align == 1`, when known.
    #[inline(always)]
    pub(crate) fn lookup(&mut self, a: &Arena, size: u64, vstart: u64) -> Option<u32> {
        // The memo is chosen by index, not by a branch: a workload that alternates two sizes
        // would mispredict a test of the first memo on every search.
        let m = &mut self.memo[usize::from(!self.memo[0].holds(size, vstart))];
        if !m.holds(size, vstart) {
            return None;
        }
        let found = m.answer(a);
        m.hit |= found.is_some();
        found
    }

    /// What a search of `(size, vstart)` with `align == 1` returned: `va`, or `NIL` when no
    /// block fits at all. It replaces that request's memo, or else the older one.
    // Out of line: it runs after a descent only; inlined, the perf traces ran 3-6 Ir/op more.
    #[inline(never)]
    pub(crate) fn record(&mut self, a: &Arena, size: u64, vstart: u64, va: u32) {
        if self.rest > 0 {
            self.rest -= 1;
            return;
        }
        let key = a.try_get(va).map_or(u64::MAX, |v| v.va_start);
        let m = LowestFit { size, vstart, node: va, pred: NIL, key, hit: false };
        if !self.memo[0].holds(size, vstart) {
            let out = self.memo[1];
            self.strikes = if out.size != 0 && !out.hit { self.strikes + 1 } else { 0 };
            if self.strikes >= STRIKES {
                *self = LowestFits { rest: REST, ..LowestFits::NONE };
                return;
            }
            self.memo[1] = self.memo[0];
        }
        self.memo[0] = m;
    }

    /// Whether any request is remembered: the first memo is filled first, so one test
    /// tells, and a workload without unaligned requests pays only that test per change.
    /// Never without the feature `lowest-fit`: then no memo is filled and the code goes.
    #[inline(always)]
    pub(crate) fn active(&self) -> bool {
        cfg!(feature = "lowest-fit") && self.memo[0].size != 0
    }

    /// Drop the memos (the free tree became small: see [`MEMO_MIN_BLOCKS`]).
    #[cold]
    pub(crate) fn forget(&mut self) {
        *self = LowestFits::NONE;
    }

    /// For the checks: `(size, vstart, node, key, pred)` of each memo that holds a request.
    pub(crate) fn states(&self) -> impl Iterator<Item = (u64, u64, u32, u64, u32)> + '_ {
        self.memo.iter().filter(|m| self.active() && m.size != 0).map(|m| (m.size, m.vstart, m.node, m.key, m.pred))
    }

    /// For the checks: what [`LowestFits::lookup`] answers for `(size, vstart)`.
    pub(crate) fn answer_of(&self, a: &Arena, size: u64, vstart: u64) -> Option<u32> {
        let mut copy = *self;
        copy.lookup(a, size, vstart)
    }

    /// For the tests: the first memo left with a bound only, and `pred` as given.
    #[cfg(test)]
    pub(crate) fn plant_pred(&mut self, pred: u32) {
        self.memo[0].node = NIL;
        self.memo[0].pred = pred;
    }

    /// Whether recording is suspended (for the tests).
    #[cfg(test)]
    pub(crate) fn resting(&self) -> bool {
        self.rest > 0
    }
}
