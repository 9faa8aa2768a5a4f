//! `struct vmap_area` objects, kept in an arena and linked by `u32` indices.
//!
//! One object lives in exactly one container at a time (free tree, a busy tree, a lazy or
//! purge tree, a pool), exactly as in the kernel, so one set of links serves them all:
//!
//! ```text
//!   +----------+----------+------------------+--------+------+-------+------+------+-------+----+
//!   | va_start |  va_end  | subtree_max_size | parent | left | right | prev | next | flags | id |
//!   +----------+----------+------------------+--------+------+-------+------+------+-------+----+
//!        8          8              8              4       4      4       4      4      4     4  = 56 bytes
//! ```

use serde::Serialize;

/// The null link.
pub const NIL: u32 = u32::MAX;

/// Colour bit in `flags`: set means black (the kernel keeps it in bit 0 of the parent word).
pub(crate) const F_BLACK: u32 = 1;
/// linux-5.2: lazily freed, still in the busy tree (`VM_LAZY_FREE`).
pub(crate) const F_LAZY: u32 = 2;
/// linux-6.9: the encoded node id `(id + 1) << 8` lives in bits 8 and up; 0 means none.
pub(crate) const VN_SHIFT: u32 = 8;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmapArea {
    pub va_start: u64,
    pub va_end: u64,
    pub subtree_max_size: u64,
    pub(crate) parent: u32,
    pub(crate) left: u32,
    pub(crate) right: u32,
    pub(crate) prev: u32,
    pub(crate) next: u32,
    pub(crate) flags: u32,
    /// Identity for views: never reused.
    pub id: u32,
}

impl VmapArea {
    #[inline(always)]
    pub fn size(&self) -> u64 {
        self.va_end.wrapping_sub(self.va_start)
    }
    #[inline(always)]
    pub fn is_black(&self) -> bool {
        self.flags & F_BLACK != 0
    }
    #[inline(always)]
    pub fn is_lazy(&self) -> bool {
        self.flags & F_LAZY != 0
    }
    /// Encoded vmap node id (0 = none).
    #[inline(always)]
    pub(crate) fn vn_id(&self) -> u32 {
        self.flags >> VN_SHIFT
    }
}

/// Slab of `vmap_area` objects.
#[derive(Clone, Debug, Default)]
pub struct Arena {
    pub(crate) nodes: Vec<VmapArea>,
    free_slots: Vec<u32>,
    next_id: u32,
}

impl Arena {
    pub fn new() -> Self {
        Self::default()
    }

    /// `kmem_cache_alloc(vmap_area_cachep)`.
    #[inline]
    pub fn alloc(&mut self, va_start: u64, va_end: u64) -> u32 {
        let va = VmapArea {
            va_start,
            va_end,
            subtree_max_size: 0,
            parent: NIL,
            left: NIL,
            right: NIL,
            prev: NIL,
            next: NIL,
            flags: 0,
            id: self.next_id,
        };
        self.next_id = self.next_id.wrapping_add(1);
        match self.free_slots.pop() {
            Some(i) => {
                self.nodes[i as usize] = va;
                i
            }
            None => {
                // Indices are u32 and `NIL` must stay past the end: 2^32 - 1 objects would be
                // 224 GiB, so this cannot happen before memory runs out.
                assert!(self.nodes.len() < NIL as usize, "vmap_area arena full");
                self.nodes.push(va);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    /// `kmem_cache_free`.
    #[inline]
    pub fn release(&mut self, i: u32) {
        self.free_slots.push(i);
    }

    #[inline(always)]
    pub fn get(&self, i: u32) -> &VmapArea {
        &self.nodes[i as usize]
    }

    /// The object at `i`, or `None` for `NIL`. One comparison does both the null test and the
    /// bounds check: `NIL` is past the end of every arena (an arena never holds `u32::MAX`
    /// objects: see [`Arena::alloc`]), and no link holds any other index past the end.
    #[inline(always)]
    pub fn try_get(&self, i: u32) -> Option<&VmapArea> {
        self.nodes.get(i as usize)
    }
    #[inline(always)]
    pub(crate) fn at(&mut self, i: u32) -> &mut VmapArea {
        &mut self.nodes[i as usize]
    }

    /// Clear the tree and list links of an area that has left its containers (the state
    /// `RB_CLEAR_NODE` + `INIT_LIST_HEAD` leave it in), ready to be linked elsewhere.
    #[inline]
    pub(crate) fn detach(&mut self, i: u32) {
        let a = &mut self.nodes[i as usize];
        a.parent = NIL;
        a.left = NIL;
        a.right = NIL;
        a.prev = NIL;
        a.next = NIL;
    }

    /// `subtree_max_size` of a possibly-null node.
    #[inline(always)]
    pub fn smax(&self, i: u32) -> u64 {
        self.try_get(i).map_or(0, |v| v.subtree_max_size)
    }

    /// Objects currently allocated (in some container).
    pub fn live(&self) -> usize {
        self.nodes.len() - self.free_slots.len()
    }

    pub fn id_of(&self, i: u32) -> Option<u32> {
        (i != NIL).then(|| self.nodes[i as usize].id)
    }
}

/// A red-black tree root plus the address-sorted list threaded through the same objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VaTree {
    pub root: u32,
    pub first: u32,
    pub last: u32,
    pub len: usize,
}

impl Default for VaTree {
    fn default() -> Self {
        VaTree { root: NIL, first: NIL, last: NIL, len: 0 }
    }
}

impl VaTree {
    pub fn is_empty(&self) -> bool {
        self.root == NIL
    }

    /// `list_add(va, after)`: `after == NIL` means at the head of the list.
    #[inline]
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

    #[inline]
    pub(crate) fn list_del(&mut self, a: &mut Arena, va: u32) {
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
        let v = a.at(va);
        v.prev = NIL;
        v.next = NIL;
        self.len -= 1;
    }

    /// The list in address order.
    pub fn iter<'a>(&self, a: &'a Arena) -> ListIter<'a> {
        ListIter { a, cur: self.first }
    }

    /// Exact lookup: the area starting at `addr`, or `NIL`. One comparison per level (the
    /// areas of a tree never overlap, so at most one starts at `addr`).
    #[inline]
    pub fn find_start(&self, a: &Arena, addr: u64) -> u32 {
        let mut n = self.root;
        while let Some(v) = a.try_get(n) {
            if addr == v.va_start {
                return n;
            }
            n = if addr < v.va_start { v.left } else { v.right };
        }
        NIL
    }

    /// Containment lookup: the area with `va_start <= addr < va_end`.
    pub fn find_containing(&self, a: &Arena, addr: u64) -> u32 {
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
        let v = self.a.get(i);
        self.cur = v.next;
        Some((i, v))
    }
}

/// A plain snapshot of one area, as views and tests want it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ts_rs::TS)]
pub struct AreaInfo {
    pub id: u32,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Addr")]
    pub va_start: u64,
    #[serde(with = "crate::addr::hex")]
    #[ts(as = "crate::addr::Addr")]
    pub va_end: u64,
}
