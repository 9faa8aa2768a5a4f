//! TypeScript names for the core types of the JSON contract that do not derive `TS`
//! themselves (see [`crate::addr`] for the address type, and `core/wasm/tests/contract.rs`,
//! which writes `web/src/contract/`).

use ts_rs::{Config, TS};

use crate::profile::Profile;

/// A profile travels as its name (`"linux-5.2"`, ...): the union of [`Profile::ALL`]'s names.
impl TS for Profile {
    type WithoutGenerics = Profile;
    type OptionInnerType = Profile;

    fn name(_: &Config) -> String {
        "Profile".to_owned()
    }

    fn inline(_: &Config) -> String {
        Profile::ALL.iter().map(|p| format!("\"{}\"", p.name())).collect::<Vec<_>>().join(" | ")
    }

    fn decl(cfg: &Config) -> String {
        format!("type Profile = {};", Profile::inline(cfg))
    }

    fn decl_concrete(cfg: &Config) -> String {
        Profile::decl(cfg)
    }

    fn docs() -> Option<String> {
        Some("/**\n * A kernel era the core models (`Profile` in core/src/profile.rs).\n */\n".to_owned())
    }

    fn output_path() -> Option<std::path::PathBuf> {
        Some(std::path::PathBuf::from("Profile.ts"))
    }
}
