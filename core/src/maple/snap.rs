//! A maple tree as the page draws it, in the facade's JSON: one shape for a `profile maple-tree`
//! trace's player ([`super::MapleSnap`]) and for an allocator profile's occupied tree
//! (`maple-rfc`: [`crate::session::StateSnap::occupied`]), so one view draws both.
//!
//! ```text
//!   { height, nodes: [ { id, parent, parent_slot, depth, type, min, max, end, mgap,
//!                        slots: [ { piv, k: E|N|C, child, gap } ... ] } ... ] }   (pre-order)
//! ```

use serde::Serialize;
use ts_rs::TS;

use super::tree::{MapleEntry, MapleObserver, MapleTree, NodeKind, NodeSummary};
use super::MapleSnap;
use crate::addr::Addr;

/// What a slot holds: an entry (`E`, in use), nothing (`N`, a hole) or a child node (`C`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
pub enum MapleSlotKind {
    E,
    N,
    C,
}

/// A node's type, as `mt_dump` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum MapleNodeType {
    Leaf,
    Arange,
    Range,
}

/// One used slot: its pivot (inclusive end), content, child id and, in an `arange` node, `gap[]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct MapleSlotJson {
    pub piv: Addr,
    pub k: MapleSlotKind,
    pub child: Option<u32>,
    pub gap: Option<Addr>,
}

/// One node: its place, type, range `[min, max]`, `ma_data_end` and the `meta.gap` slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct MapleNodeJson {
    pub id: u32,
    pub parent: Option<u32>,
    pub parent_slot: u32,
    pub depth: u32,
    #[serde(rename = "type")]
    #[ts(rename = "type")]
    pub kind: MapleNodeType,
    pub min: Addr,
    pub max: Addr,
    pub end: u32,
    pub mgap: u32,
    pub slots: Vec<MapleSlotJson>,
}

/// The whole tree: its height and its nodes in pre-order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct MapleTreeJson {
    pub height: u32,
    pub nodes: Vec<MapleNodeJson>,
}

impl MapleTreeJson {
    pub fn of<O: MapleObserver>(t: &MapleTree<O>) -> MapleTreeJson {
        MapleTreeJson::from_snap(&MapleSnap::of(t))
    }

    pub fn from_snap(s: &MapleSnap) -> MapleTreeJson {
        MapleTreeJson { height: s.height, nodes: s.nodes.iter().map(node).collect() }
    }
}

fn node(n: &NodeSummary) -> MapleNodeJson {
    let leaf = n.kind == NodeKind::Leaf;
    let slots = n
        .pivots
        .iter()
        .enumerate()
        .map(|(j, &piv)| {
            let (k, child) = if leaf {
                match n.entries.get(j).copied().flatten() {
                    Some(MapleEntry::Zero) | Some(MapleEntry::Value(_)) => (MapleSlotKind::E, None),
                    None => (MapleSlotKind::N, None),
                }
            } else {
                match n.children.get(j) {
                    Some(&c) => (MapleSlotKind::C, Some(c)),
                    None => (MapleSlotKind::N, None),
                }
            };
            MapleSlotJson { piv: Addr(piv), k, child, gap: n.gaps.get(j).map(|&g| Addr(g)) }
        })
        .collect();
    MapleNodeJson {
        id: n.id,
        parent: (n.parent != u32::MAX).then_some(n.parent),
        parent_slot: n.parent_slot as u32,
        depth: n.depth,
        kind: match n.kind {
            NodeKind::Leaf => MapleNodeType::Leaf,
            NodeKind::Arange => MapleNodeType::Arange,
            NodeKind::Range => MapleNodeType::Range,
        },
        min: Addr(n.min),
        max: Addr(n.max),
        end: n.end as u32,
        mgap: n.meta_gap as u32,
        slots,
    }
}
