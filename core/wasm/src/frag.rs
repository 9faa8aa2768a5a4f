//! The instrument's part of the facade (feature `workbench`): the callers of a
//! `/proc/vmallocinfo` (per area and as a table) and the diff of two of them. Every figure is
//! the core's (`vmapviz_core::frag`, `callers`, `vmdiff`); the page only draws them. The
//! figures of a session's states are in `figures.rs`.

use crate::to_json;
use serde::Serialize;
use ts_rs::TS;
use vmapviz_core::callers::{areas_of, callers_of, CallerArea, CallerRow};
use vmapviz_core::frag::{self, Fragmentation};
use vmapviz_core::vmdiff::{self, AddressKind, VmDiff};
use vmapviz_core::Profile;
use wasm_bindgen::prelude::*;

/// One side of a diff: its figures and what they assumed.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct DiffSide {
    pub figures: Fragmentation,
    pub address_kind: AddressKind,
    /// What the import assumed about the whole file, and a warning when its addresses are
    /// hashed or hidden (the free blocks are then of an invented layout).
    pub notes: Vec<String>,
    /// Every line with its caller and flags.
    pub callers: Vec<CallerRow>,
}

/// What `vm_diff(a, b)` returns.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct VmDiffJson {
    pub diff: VmDiff,
    pub a: DiffSide,
    pub b: DiffSide,
}

/// What `vmallocinfo_callers(text)` returns: the areas with their callers, and the table of the
/// callers holding the most space.
#[derive(Clone, Debug, PartialEq, Serialize, TS)]
pub struct CallersJson {
    pub areas: Vec<CallerArea>,
    pub table: Vec<CallerRow>,
}

/// A file's text: gzipped or plain, UTF-8 (errors name the file and the line).
fn file_text(name: &str, bytes: &[u8]) -> Result<String, JsError> {
    vmapviz_core::capture::part_text(name, bytes).map_err(|e| JsError::new(&e.to_string()))
}

fn side(name: &str, text: &str) -> Result<DiffSide, JsError> {
    let e = |e: vmapviz_core::ParseError| JsError::new(&format!("{name}: {e}"));
    let (v, mut notes) = frag::vmallocinfo_state(text, Profile::newest_release(), None).map_err(e)?;
    let address_kind = vmdiff::address_kind_of(text).map_err(e)?;
    if address_kind != AddressKind::Real && !v.busy_areas_all().is_empty() {
        notes.insert(
            0,
            "the addresses are hashed or hidden (kptr_restrict): its free blocks, largest free block and histogram \
             are of an invented layout, not the kernel's"
                .into(),
        );
    }
    Ok(DiffSide {
        figures: frag::fragmentation(&v, v.online_cpus().max(frag::DEFAULT_ONLINE_CPUS)),
        address_kind,
        notes,
        callers: callers_of(text).map_err(e)?,
    })
}

/// JSON [`VmDiffJson`]: the diff of two `/proc/vmallocinfo` files (each plain or gzipped) and
/// both sides' figures (imported as `newest_release`'s, online CPUs as few as keep their lazy
/// pages under the threshold). Throws `NAME: line N: ...` on the first bad line.
#[wasm_bindgen]
pub fn vm_diff(name_a: &str, a: &[u8], name_b: &str, b: &[u8]) -> Result<String, JsError> {
    let (ta, tb) = (file_text(name_a, a)?, file_text(name_b, b)?);
    let diff = vmdiff::diff_texts(&ta, &tb).map_err(|(i, e)| JsError::new(&format!("{}: {e}", [name_a, name_b][i])))?;
    Ok(to_json(&VmDiffJson { diff, a: side(name_a, &ta)?, b: side(name_b, &tb)? }))
}

/// JSON [`CallersJson`] of a `/proc/vmallocinfo` file (plain or gzipped); throws
/// `NAME: line N: ...`.
#[wasm_bindgen]
pub fn vmallocinfo_callers(name: &str, bytes: &[u8]) -> Result<String, JsError> {
    let text = file_text(name, bytes)?;
    let e = |e: vmapviz_core::ParseError| JsError::new(&format!("{name}: {e}"));
    Ok(to_json(&CallersJson { areas: areas_of(&text).map_err(e)?, table: callers_of(&text).map_err(e)? }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callers_keep_caller_and_flags_apart() {
        let text = "0xffffc90000000000-0xffffc90000003000   12288 foo+0x10/0x40 [mymod] pages=2 vmalloc N0=2\n\
                    0xffffc90000005000-0xffffc90000007000    8192 unpurged vm_area\n\
                    0xffffc90000009000-0xffffc9000000b000    8192 bar+0x1/0x8 phys=0x00000000fed00000 ioremap\n";
        let j: serde_json::Value = serde_json::from_str(&vmallocinfo_callers("v", text.as_bytes()).unwrap()).unwrap();
        let a = &j["areas"];
        assert_eq!(a[0]["caller"], "foo+0x10/0x40 [mymod]");
        assert_eq!(a[0]["flags"], "pages=2 vmalloc N0=2");
        assert_eq!(a[0]["start"], "0xffffc90000000000");
        assert_eq!(a[1]["caller"], "(unpurged vm_area)");
        assert_eq!(a[2]["flags"], "phys=0x00000000fed00000 ioremap");
        assert_eq!(j["table"][0]["caller"], "foo [mymod]");
    }
}
