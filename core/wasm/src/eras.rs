//! The era registry for the page (both builds): every profile's name and constants, in the
//! registry's order, from which the page builds its profile lists, colours and per-era views.

use vmapviz_core::profile::EraInfo;
use wasm_bindgen::prelude::*;

use crate::to_json;

/// JSON `Array<EraInfo>`: every era the core models, in the registry's order.
#[wasm_bindgen]
pub fn eras() -> String {
    to_json(&EraInfo::all())
}

#[cfg(test)]
mod tests {
    use vmapviz_core::Profile;

    use super::*;

    /// The facade's list is the registry: `Profile::ALL` in order, each with its era's constants
    /// as `Profile`'s predicates read them (the registry's `with_era!`, asked one way, then the
    /// other), and the JSON the page reads names them as the trace language does.
    #[test]
    fn eras_are_the_registry() {
        let v: Vec<serde_json::Value> = serde_json::from_str(&eras()).unwrap();
        assert_eq!(v.len(), Profile::ALL.len());
        for (j, p) in v.iter().zip(Profile::ALL) {
            let want = serde_json::json!({
                "name": p.name(),
                "first_release": p.first_release().map(|(a, b)| [a, b]),
                "default": p == Profile::default(),
                "free_tree": p.has_free_tree(),
                "lazy_in_busy": p.lazy_in_busy(),
                "vmap_nodes": p.has_vmap_nodes(),
                "per_cpu": p.per_cpu(),
                "bump_overlay": p.bump_overlay(),
                "bug_on_bad_request": p.bug_on_bad_request(),
                "module_tests": p.module_tests(),
            });
            assert_eq!(j, &want, "{p}");
            assert_eq!(Profile::parse(j["name"].as_str().unwrap()), Some(p));
        }
    }

    /// What the kernel's history says of each era, written out: the list walk of 5.1 before the
    /// free tree (5.2), the lazy areas in the busy tree until 6.1's purge tree, the vmap nodes of
    /// 6.9 (6.18 keeps them), maple-rfc's per-CPU bump overlay on the 6.9 nodes.
    #[test]
    fn eras_say_what_each_kernel_has() {
        let v: Vec<serde_json::Value> = serde_json::from_str(&eras()).unwrap();
        let row = |name: &str| v.iter().find(|e| e["name"] == name).unwrap_or_else(|| panic!("{name}")).clone();
        let names: Vec<&str> = v.iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["linux-5.1", "linux-5.2", "linux-6.1", "linux-6.9", "linux-6.18", "maple-rfc"]);
        let flags = |name: &str| {
            let r = row(name);
            ["free_tree", "lazy_in_busy", "vmap_nodes", "per_cpu", "bump_overlay", "default"]
                .map(|k| r[k].as_bool().unwrap())
        };
        //                                free   lazy-busy nodes  per-cpu bump   default
        assert_eq!(flags("linux-5.1"), [false, true, false, false, false, false]);
        assert_eq!(flags("linux-5.2"), [true, true, false, false, false, true]);
        assert_eq!(flags("linux-6.1"), [true, false, false, false, false, false]);
        assert_eq!(flags("linux-6.9"), [true, false, true, true, false, false]);
        assert_eq!(flags("linux-6.18"), [true, false, true, true, false, false]);
        assert_eq!(flags("maple-rfc")[2..5], [false, true, true]);
        assert_eq!(row("linux-6.9")["first_release"], serde_json::json!([6, 9]));
        assert_eq!(row("linux-6.18")["first_release"], serde_json::json!([6, 18]));
        assert_eq!(row("maple-rfc")["first_release"], serde_json::Value::Null);
    }
}
