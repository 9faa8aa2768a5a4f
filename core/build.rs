//! One name for when the hot searches are inlined (`cfg(inline_search)`): always natively, and in
//! wasm with the `inline-search` feature (see core/Cargo.toml). The functions concerned test it
//! instead of repeating the rule.
fn main() {
    println!("cargo::rustc-check-cfg=cfg(inline_search)");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    if !wasm || std::env::var_os("CARGO_FEATURE_INLINE_SEARCH").is_some() {
        println!("cargo::rustc-cfg=inline_search");
    }
}
