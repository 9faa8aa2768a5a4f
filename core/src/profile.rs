//! The kernel eras vmapviz models, by name: [`Profile`] is the registry's enum, with its
//! names and predicates (`core/src/era/mod.rs`); here, how it is written and read, and
//! [`EraInfo`], what the registry tells the page of each era.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use ts_rs::TS;

pub use crate::era::Profile;
pub(crate) use crate::era::ANY;
use crate::era::{with_era, Era};

/// One era as the registry describes it: its name and the constants of its [`Era`]. The page
/// builds every list of profiles (import, compare, the charts), their colours and its
/// per-era views from these, in this order, and names no era itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, TS)]
pub struct EraInfo {
    /// [`Era::NAME`].
    pub name: Profile,
    /// [`Era::FIRST_RELEASE`] `[major, minor]`; null: not a kernel release (an RFC).
    pub first_release: Option<(u32, u32)>,
    /// The era of a trace that names none ([`Profile::default`]).
    pub default: bool,
    /// [`Era::FREE_TREE`]: false for the list walk of 5.1.
    pub free_tree: bool,
    /// [`Era::LAZY_IN_BUSY`].
    pub lazy_in_busy: bool,
    /// [`Era::VMAP_NODES`]: per-CPU vmap nodes with their pools (`reclaim`, the nodes panel).
    pub vmap_nodes: bool,
    /// [`Era::PER_CPU`]: where an allocation lands depends on the CPU (`cpu N`).
    pub per_cpu: bool,
    /// [`Era::BUMP_OVERLAY`]: `bump on|off` switches a per-CPU bump overlay.
    pub bump_overlay: bool,
    /// [`Era::BUG_ON_BAD_REQUEST`].
    pub bug_on_bad_request: bool,
    /// [`Era::MODULE_TESTS`].
    pub module_tests: u32,
}

impl EraInfo {
    /// The era of `p`, from its type's constants.
    pub fn of(p: Profile) -> EraInfo {
        with_era!(p, E => EraInfo {
            name: p,
            first_release: E::FIRST_RELEASE,
            default: p == Profile::default(),
            free_tree: E::FREE_TREE,
            lazy_in_busy: E::LAZY_IN_BUSY,
            vmap_nodes: E::VMAP_NODES,
            per_cpu: E::PER_CPU,
            bump_overlay: E::BUMP_OVERLAY,
            bug_on_bad_request: E::BUG_ON_BAD_REQUEST,
            module_tests: E::MODULE_TESTS as u32,
        })
    }

    /// Every era, in the registry's order ([`Profile::ALL`]).
    pub fn all() -> Vec<EraInfo> {
        Profile::ALL.into_iter().map(EraInfo::of).collect()
    }
}

/// A profile travels as its name.
impl Serialize for Profile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Profile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Profile, D::Error> {
        let s = String::deserialize(d)?;
        Profile::parse(&s).ok_or_else(|| serde::de::Error::unknown_variant(&s, &Profile::NAMES))
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
