//! The kernel eras vmapviz models.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Profile {
    /// Before 2019: walk the busy areas for a hole, with the `free_vmap_cache` hint (O(N)).
    #[serde(rename = "linux-5.1")]
    Linux51,
    /// The 2019 augmented-tree design as merged in 5.2 (kept until 5.15).
    #[default]
    #[serde(rename = "linux-5.2")]
    Linux52,
    /// 5.19–6.8: `adjust_search_size`, the purge tree, vstart moved on roll-back.
    #[serde(rename = "linux-6.1")]
    Linux61,
    /// 6.9+: per-CPU vmap nodes with size pools and decay.
    #[serde(rename = "linux-6.9")]
    Linux69,
    /// 6.18, the long-term kernel of late 2025: 6.9 with the 2025 pool decay (a pool of one to
    /// three entries is left alone).
    #[serde(rename = "linux-6.18")]
    Linux618,
    /// The June 2026 RFC (v1, unmerged): maple trees instead of the rbtrees, the per-CPU bump
    /// overlay, on the 6.9 nodes (spec §11).
    #[serde(rename = "maple-rfc")]
    MapleRfc,
}

/// A profile fixed at compile time, as a const generic (`Profile::Linux52 as u8`), or [`ANY`].
///
/// A replay's run of lines under one profile is compiled for that era (see
/// `Replayer::run`), as the kernel is built for one version: its alloc and free reach the era's
/// path, search rule and merge style with no test of the profile. Every other caller passes
/// `ANY` and reads the profile at run time, as before.
pub(crate) const ANY: u8 = u8::MAX;
pub(crate) const P51: u8 = Profile::Linux51 as u8;
pub(crate) const P52: u8 = Profile::Linux52 as u8;
pub(crate) const P61: u8 = Profile::Linux61 as u8;
pub(crate) const P69: u8 = Profile::Linux69 as u8;
pub(crate) const P618: u8 = Profile::Linux618 as u8;
pub(crate) const PRFC: u8 = Profile::MapleRfc as u8;

impl Profile {
    /// The era a path compiled for `P` runs: `P` itself, or `run` (the `Vmap`'s own profile)
    /// for [`ANY`]. A constant once `P` is.
    #[inline(always)]
    pub(crate) fn fixed<const P: u8>(run: Profile) -> Profile {
        let p = match P {
            P51 => Profile::Linux51,
            P52 => Profile::Linux52,
            P61 => Profile::Linux61,
            P69 => Profile::Linux69,
            P618 => Profile::Linux618,
            PRFC => Profile::MapleRfc,
            _ => return run,
        };
        debug_assert_eq!(p, run, "a path compiled for {p:?} ran under {run:?}");
        p
    }

    pub const ALL: [Profile; 6] =
        [Profile::Linux51, Profile::Linux52, Profile::Linux61, Profile::Linux69, Profile::Linux618, Profile::MapleRfc];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Linux51 => "linux-5.1",
            Profile::Linux52 => "linux-5.2",
            Profile::Linux61 => "linux-6.1",
            Profile::Linux69 => "linux-6.9",
            Profile::Linux618 => "linux-6.18",
            Profile::MapleRfc => "maple-rfc",
        }
    }

    pub fn parse(s: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == s)
    }

    /// The search rule of the era.
    pub fn search_rule(self) -> crate::vmalloc::SearchRule {
        let modern = !matches!(self, Profile::Linux51 | Profile::Linux52);
        crate::vmalloc::SearchRule { adjust_search_size: modern, move_vstart: modern }
    }

    /// linux-6.9 and later: vmap nodes (one per possible CPU, up to 128), each with its busy and
    /// lazy trees and size pools; an allocation in the default window goes through the pool
    /// of the current CPU's node.
    pub fn has_vmap_nodes(self) -> bool {
        matches!(self, Profile::Linux69 | Profile::Linux618)
    }

    /// An allocation depends on the CPU it runs on (`cpu N` matters): the vmap nodes, or
    /// maple-rfc's per-CPU bump chunks.
    pub fn per_cpu(self) -> bool {
        self.has_vmap_nodes() || self == Profile::MapleRfc
    }

    /// Lazily freed areas stay in the busy tree on a LIFO list until the purge (5.1, 5.2).
    pub fn lazy_in_busy(self) -> bool {
        matches!(self, Profile::Linux51 | Profile::Linux52)
    }

    pub fn merge_style(self) -> crate::vmalloc::MergeStyle {
        match self {
            Profile::Linux51 | Profile::Linux52 => crate::vmalloc::MergeStyle::E52,
            _ => crate::vmalloc::MergeStyle::Eb,
        }
    }
}

impl std::fmt::Display for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// `profile maple-tree`: the trace acts on one maple tree (`core/src/maple/trace.rs`), not on an
/// allocator of some era.
pub const MAPLE_TREE: &str = "maple-tree";

/// What a trace's `profile` line and the CLI's `--profile` name: an era, or `maple-tree`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProfileName {
    Era(Profile),
    MapleTree,
}

impl ProfileName {
    /// Every name, in one list for the trace parser and the CLI: the eras, then `maple-tree`.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Profile::ALL.into_iter().map(Profile::name).chain([MAPLE_TREE])
    }

    /// The names for a message: "linux-5.1, ..., maple-rfc, maple-tree".
    pub fn known() -> String {
        Self::names().collect::<Vec<_>>().join(", ")
    }

    pub fn parse(s: &str) -> Option<ProfileName> {
        if s == MAPLE_TREE {
            Some(ProfileName::MapleTree)
        } else {
            Profile::parse(s).map(ProfileName::Era)
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ProfileName::Era(p) => p.name(),
            ProfileName::MapleTree => MAPLE_TREE,
        }
    }
}
