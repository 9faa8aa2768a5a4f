//! The memory an allocator's index takes, per live area (spec §11.11, "memory"): what the
//! workbench's struct panel shows for the current state and what `vmap-bench` prints.
//!
//! * The free-tree eras (5.1 to 6.9): every `struct vmap_area` is 72 bytes on 64-bit (its
//!   `rb_node` and the `subtree_max_size`/`vm` union included), and the free space is made of
//!   such objects too (free blocks), so the bytes per live area are
//!   `72 × (live areas + free blocks) / live areas`.
//! * maple-rfc: 48-byte objects (no `rb_node`, no union), no free-block objects, plus the maple
//!   nodes of every tree (256 bytes each: occupied, stale free, busy per vmap node) and the bump
//!   chunk descriptors with their 128 KiB `page_va` array.

use serde::Serialize;
use ts_rs::TS;

use crate::era::Vmap;

/// `struct vmap_area` before the RFC (linux-6.9), 64-bit.
pub const VMAP_AREA_BYTES: u64 = 72;
/// `struct vmap_area` in the maple-rfc profile (spec §11.2.1).
pub const VMAP_AREA_BYTES_RFC: u64 = 48;
/// One maple node (`maple_leaf_64`, `maple_range_64`, `maple_arange_64` alike), 256-aligned.
pub const MAPLE_NODE_BYTES: u64 = 256;
/// A bump chunk's descriptor: 16384 `page_va` pointers and its head.
pub const CHUNK_DESCRIPTOR_BYTES: u64 = 128 * 1024 + 64;

/// What the index of one state takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, TS)]
pub struct IndexMemory {
    /// Bytes of one `struct vmap_area` in this profile (72, or 48 for maple-rfc).
    pub vmap_area_bytes: u32,
    /// Live `struct vmap_area` objects: busy, lazy and pooled areas, and free blocks.
    pub objects: u64,
    /// Objects that describe free space (0 in maple-rfc, whose free space is NULL ranges).
    pub free_blocks: u64,
    /// Busy, lazy and pooled areas: what the figure is "per".
    pub live_areas: u64,
    /// Maple nodes of the occupied tree, of the busy trees, of the stale free tree (maple-rfc).
    pub occupied_nodes: u64,
    pub busy_tree_nodes: u64,
    pub free_tree_nodes: u64,
    /// Bump chunk descriptors (maple-rfc).
    pub chunks: u64,
    /// All of it, in bytes.
    pub index_bytes: u64,
}

impl IndexMemory {
    /// Bytes per live area (a state with none counts as one).
    pub fn per_live_area(&self) -> f64 {
        self.index_bytes as f64 / self.live_areas.max(1) as f64
    }
}

/// The index memory of a state.
pub fn index_memory(v: &Vmap) -> IndexMemory {
    if let Some(m) = v.rfc() {
        let s = m.structure();
        let busy_tree_nodes = s.busy_nodes as u64;
        return IndexMemory {
            vmap_area_bytes: VMAP_AREA_BYTES_RFC as u32,
            objects: m.live_areas() as u64,
            free_blocks: 0,
            live_areas: m.live_areas() as u64,
            occupied_nodes: s.occupied_nodes as u64,
            busy_tree_nodes,
            free_tree_nodes: s.free_nodes as u64,
            chunks: s.chunks as u64,
            index_bytes: m.index_bytes(),
        };
    }
    let objects = v.arena.live() as u64;
    let free_blocks = v.free_blocks() as u64;
    IndexMemory {
        vmap_area_bytes: VMAP_AREA_BYTES as u32,
        objects,
        free_blocks,
        live_areas: objects.saturating_sub(free_blocks),
        index_bytes: VMAP_AREA_BYTES * objects,
        ..IndexMemory::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::NoObserver;
    use crate::profile::Profile;
    use crate::vmalloc::{VMALLOC_END, VMALLOC_START};

    /// The fields of each struct, as the kernel and the RFC lay them out on 64-bit.
    #[test]
    fn the_struct_sizes_are_the_sum_of_their_fields() {
        // va_start, va_end, rb_node (3 words), list (2), subtree_max_size/vm union, flags.
        assert_eq!(VMAP_AREA_BYTES, 8 + 8 + 24 + 16 + 8 + 8);
        // va_start, va_end, list, vm, flags.
        assert_eq!(VMAP_AREA_BYTES_RFC, 8 + 8 + 16 + 8 + 8);
        assert_eq!(CHUNK_DESCRIPTOR_BYTES - 64, 16384 * 8);
    }

    #[test]
    fn a_free_tree_era_counts_its_free_blocks() {
        let mut v = Vmap::new(Profile::Linux52);
        for _ in 0..3 {
            v.alloc(0x2000, 1, VMALLOC_START, VMALLOC_END, &mut NoObserver).unwrap();
        }
        // [1, VMALLOC_START) and [VMALLOC_START + 0x6000, 2^64 - 1): two free blocks.
        let m = index_memory(&v);
        assert_eq!((m.objects, m.free_blocks, m.live_areas), (5, 2, 3));
        assert_eq!(m.index_bytes, 5 * 72);
        assert_eq!(m.per_live_area(), 120.0);
    }

    #[test]
    fn maple_rfc_counts_objects_nodes_and_chunks() {
        let mut v = Vmap::new(Profile::MapleRfc);
        for _ in 0..3 {
            v.alloc(0x2000, 1, VMALLOC_START, VMALLOC_END, &mut NoObserver).unwrap();
        }
        let m = index_memory(&v);
        // Bump on: the first vmalloc took one chunk, the three areas live in it.
        assert_eq!((m.objects, m.free_blocks, m.live_areas, m.chunks), (3, 0, 3, 1));
        // The occupied tree's nodes as its own dump lists them.
        let r = v.rfc().unwrap();
        let dumped = r.occupied.dump().lines().filter(|l| l.starts_with("node ")).count() as u64;
        assert_eq!(m.occupied_nodes, dumped);
        let nodes = m.occupied_nodes + m.busy_tree_nodes + m.free_tree_nodes;
        assert_eq!(m.index_bytes, 3 * 48 + 256 * nodes + 131_136);
    }
}
