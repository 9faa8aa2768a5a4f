//! The kernel eras vmapviz models, by name: [`Profile`] is the registry's enum, with its
//! names and predicates (`core/src/era/mod.rs`); here, how it is written and read.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use crate::era::Profile;
pub(crate) use crate::era::ANY;

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
