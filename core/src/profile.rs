//! The kernel eras vmapviz models, by name: [`Profile`] is the registry's enum (see
//! `core/src/era/mod.rs`), and its predicates read the era's [`Era`] constants.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::era::Profile;
use crate::era::{with_era, Era};

/// A profile fixed at compile time, as a const generic (`Profile::X as u8`), or [`ANY`].
///
/// A replay's run of lines under one profile is compiled for that era (see
/// `Replayer::run`), as the kernel is built for one version: its alloc and free reach the era's
/// path, search rule and merge style with no test of the profile. Every other caller passes
/// `ANY` and reads the profile at run time, as before.
pub(crate) const ANY: u8 = u8::MAX;

impl Default for Profile {
    /// linux-5.2: a trace that names no profile replays on the 2019 free tree.
    fn default() -> Self {
        Profile::parse("linux-5.2").expect("the registry has linux-5.2")
    }
}

impl Profile {
    /// The era a path compiled for `P` runs: `P` itself, or `run` (the `Vmap`'s own profile)
    /// for [`ANY`]. A constant once `P` is.
    #[inline(always)]
    pub(crate) fn fixed<const P: u8>(run: Profile) -> Profile {
        if P == ANY {
            return run;
        }
        let p = Profile::ALL[P as usize];
        debug_assert_eq!(p, run, "a path compiled for {p:?} ran under {run:?}");
        p
    }

    pub fn name(self) -> &'static str {
        Profile::NAMES[self as usize]
    }

    pub fn parse(s: &str) -> Option<Profile> {
        Profile::ALL.into_iter().find(|p| p.name() == s)
    }

    /// The newest kernel release modelled: what a capture or a vmallocinfo file is read
    /// with unless told otherwise.
    pub fn newest_release() -> Profile {
        Profile::ALL.into_iter().filter(|p| p.first_release().is_some()).max_by_key(|p| p.first_release()).unwrap()
    }

    /// The era of kernel release `(major, minor)`: the newest whose first release is not
    /// later; the oldest era for a release before all of them.
    pub fn of_release(v: (u32, u32)) -> Profile {
        Profile::ALL
            .into_iter()
            .filter(|p| p.first_release().is_some_and(|f| f <= v))
            .max_by_key(|p| p.first_release())
            .unwrap_or(Profile::ALL[0])
    }

    /// [`Era::FIRST_RELEASE`].
    pub fn first_release(self) -> Option<(u32, u32)> {
        with_era!(self, E => E::FIRST_RELEASE)
    }

    /// The search rule of the era.
    #[inline(always)]
    pub fn search_rule(self) -> crate::vmalloc::SearchRule {
        with_era!(self, E => E::SEARCH_RULE)
    }

    /// [`Era::VMAP_NODES`].
    #[inline(always)]
    pub fn has_vmap_nodes(self) -> bool {
        with_era!(self, E => E::VMAP_NODES)
    }

    /// [`Era::PER_CPU`]: the vmap nodes, or maple-rfc's per-CPU bump chunks.
    #[inline(always)]
    pub fn per_cpu(self) -> bool {
        with_era!(self, E => E::PER_CPU)
    }

    /// [`Era::LAZY_IN_BUSY`].
    #[inline(always)]
    pub fn lazy_in_busy(self) -> bool {
        with_era!(self, E => E::LAZY_IN_BUSY)
    }

    /// [`Era::FREE_TREE`].
    #[inline(always)]
    pub fn has_free_tree(self) -> bool {
        with_era!(self, E => E::FREE_TREE)
    }

    /// [`Era::BUG_ON_BAD_REQUEST`].
    pub fn bug_on_bad_request(self) -> bool {
        with_era!(self, E => E::BUG_ON_BAD_REQUEST)
    }

    /// [`Era::MODULE_TESTS`].
    pub fn module_tests(self) -> usize {
        with_era!(self, E => E::MODULE_TESTS)
    }

    #[inline(always)]
    pub fn merge_style(self) -> crate::vmalloc::MergeStyle {
        with_era!(self, E => E::MERGE_STYLE)
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
