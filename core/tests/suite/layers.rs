//! The module graph of `core/src`: every `crate::…`, `super::…` and `self::…` path of every
//! file, resolved to the file that holds it, makes an edge; the graph must have no cycle.
//! (A module that imports one that imports it back cannot be read, changed or tested
//! alone.) The checker is tested on planted graphs first, so a cycle it missed would show.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Module path (`era::v51`, `""` for the crate root) -> source text.
type Files = BTreeMap<String, String>;

/// `core/src`'s files, library only (`bin/` are crates of their own).
fn read_src() -> Files {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Files::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            if p.is_dir() {
                if rel != "bin" {
                    stack.push(p);
                }
            } else if let Some(stem) = rel.strip_suffix(".rs") {
                let m = stem.trim_end_matches("/mod").trim_end_matches("lib");
                let m = if stem == "lib" { "" } else { m };
                files.insert(m.replace('/', "::"), std::fs::read_to_string(&p).unwrap());
            }
        }
    }
    files
}

/// The text with comments, string and char literals blanked (braces in them would
/// mislead the module nesting; paths in them are not imports).
fn code_only(s: &str) -> String {
    let b: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && !b[..i].last().is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                i += if b[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{..}'), else a lifetime.
            if next == Some('\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Every path that starts with `crate`, `super` or `self`, with the inline modules it sits in
/// (`mod x { … }` nesting inside the file), groups (`use crate::{a::B, c}`) expanded.
fn paths(code: &str) -> Vec<(Vec<String>, Vec<String>)> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    // The inline modules open at each brace depth.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '{' {
            depth += 1;
            if let Some(m) = pending_mod.take() {
                inline.push((m, depth));
            }
            i += 1;
            continue;
        }
        if ch == '}' {
            if inline.last().is_some_and(|(_, d)| *d == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
            continue;
        }
        if ch == ';' {
            pending_mod = None;
        }
        if is_ident(ch) && (i == 0 || !is_ident(c[i - 1]) && c[i - 1] != ':') {
            let start = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            if word == "mod" {
                let mut j = i;
                while j < c.len() && c[j].is_whitespace() {
                    j += 1;
                }
                let s = j;
                while j < c.len() && is_ident(c[j]) {
                    j += 1;
                }
                pending_mod = Some(c[s..j].iter().collect());
                continue;
            }
            if matches!(word.as_str(), "crate" | "super" | "self")
                && c.get(i) == Some(&':')
                && c.get(i + 1) == Some(&':')
            {
                let nest: Vec<String> = inline.iter().map(|(m, _)| m.clone()).collect();
                let mut found = Vec::new();
                i = tree(&c, i, vec![word], &mut found);
                out.extend(found.into_iter().map(|p| (nest.clone(), p)));
            }
            continue;
        }
        i += 1;
    }
    out
}

/// Read `::seg::seg…` or `::{…}` after `prefix` from `i`; push each full path; return where it
/// ends.
fn tree(c: &[char], mut i: usize, prefix: Vec<String>, found: &mut Vec<Vec<String>>) -> usize {
    let skip_ws = |i: &mut usize| {
        while *i < c.len() && c[*i].is_whitespace() {
            *i += 1;
        }
    };
    let mut path = prefix;
    loop {
        skip_ws(&mut i);
        if !(c.get(i) == Some(&':') && c.get(i + 1) == Some(&':')) {
            found.push(path);
            return i;
        }
        i += 2;
        skip_ws(&mut i);
        if c.get(i) == Some(&'{') {
            i += 1;
            loop {
                skip_ws(&mut i);
                match c.get(i) {
                    Some('}') => return i + 1,
                    Some(',') => i += 1,
                    None => return i,
                    _ => {
                        let s = i;
                        while i < c.len() && (is_ident(c[i]) || c[i] == '*') {
                            i += 1;
                        }
                        if s == i {
                            i += 1;
                            continue;
                        }
                        let mut p = path.clone();
                        p.push(c[s..i].iter().collect());
                        i = tree(c, i, p, found);
                        // `as name`
                        skip_ws(&mut i);
                        if c[i..].starts_with(&['a', 's']) && c.get(i + 2).is_some_and(|x| x.is_whitespace()) {
                            i += 2;
                            skip_ws(&mut i);
                            while i < c.len() && is_ident(c[i]) {
                                i += 1;
                            }
                        }
                    }
                }
            }
        }
        let s = i;
        while i < c.len() && (is_ident(c[i]) || c[i] == '*') {
            i += 1;
        }
        if s == i {
            found.push(path);
            return i;
        }
        path.push(c[s..i].iter().collect());
    }
}

/// The module graph: module -> the modules its paths name (itself excluded). A name the
/// crate root re-exports (`pub use era::Vmap` in lib.rs) is followed to its module.
fn graph(files: &Files) -> BTreeMap<String, BTreeSet<String>> {
    let split = |m: &str| -> Vec<String> { m.split("::").filter(|s| !s.is_empty()).map(String::from).collect() };
    // The root's re-exports: name -> module path.
    let mut reexport: BTreeMap<String, Vec<String>> = BTreeMap::new();
    if let Some(lib) = files.get("") {
        for (_, p) in paths(&code_only(&lib.replace("pub use ", "pub use crate::"))) {
            if p.len() >= 2 {
                reexport.insert(p.last().unwrap().clone(), p[1..p.len() - 1].to_vec());
            }
        }
    }
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, text) in files {
        let here = split(m);
        let edges = g.entry(m.clone()).or_default();
        for (nest, p) in paths(&code_only(text)) {
            // Where the path starts: the crate root, or the module it sits in (inline modules
            // included), one level up per `super`.
            let mut at: Vec<String> =
                if p[0] == "crate" { Vec::new() } else { here.iter().chain(&nest).cloned().collect() };
            let mut rest = &p[1..];
            if p[0] == "super" {
                at.pop();
            }
            while rest.first().is_some_and(|s| s == "super") {
                at.pop();
                rest = &rest[1..];
            }
            let mut full = at;
            if full.is_empty() {
                if let Some(r) = rest.first().and_then(|n| reexport.get(n)) {
                    if !files.contains_key(&rest[0]) {
                        full = r.clone();
                    }
                }
            }
            full.extend(rest.iter().cloned());
            // The longest prefix that is a file.
            let target = (0..=full.len())
                .rev()
                .map(|k| full[..k].join("::"))
                .find(|k| files.contains_key(k))
                .unwrap_or_default();
            if target != *m && !target.is_empty() {
                edges.insert(target);
            }
        }
    }
    g
}

/// The strongly connected components with more than one module, each as one cycle through
/// them (`a -> b -> a`).
fn cycles(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    // Tarjan.
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        on: BTreeSet<&'a str>,
        stack: Vec<&'a str>,
        sccs: Vec<Vec<&'a str>>,
    }
    fn visit<'a>(t: &mut T<'a>, v: &'a str) {
        let n = t.index.len();
        t.index.insert(v, n);
        t.low.insert(v, n);
        t.stack.push(v);
        t.on.insert(v);
        for w in t.g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                visit(t, w);
                let lw = t.low[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on.remove(w);
                scc.push(w);
                if w == v {
                    break;
                }
            }
            t.sccs.push(scc);
        }
    }
    let mut t =
        T { g, index: BTreeMap::new(), low: BTreeMap::new(), on: BTreeSet::new(), stack: Vec::new(), sccs: Vec::new() };
    for v in g.keys() {
        if !t.index.contains_key(v.as_str()) {
            visit(&mut t, v);
        }
    }
    let mut out = Vec::new();
    for scc in t.sccs.iter().filter(|s| s.len() > 1) {
        let set: BTreeSet<&str> = scc.iter().copied().collect();
        let start = *set.iter().next().unwrap();
        // A shortest way back to `start` inside the component (breadth first).
        let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut last = None;
        'bfs: while let Some(v) = queue.pop_front() {
            for w in g[v].iter().map(String::as_str).filter(|w| set.contains(w)) {
                if w == start {
                    last = Some(v);
                    break 'bfs;
                }
                if !prev.contains_key(w) {
                    prev.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        let mut way = vec![start];
        let mut v = last.unwrap();
        while v != start {
            way.push(v);
            v = prev[v];
        }
        way.push(start);
        let n = way.len();
        way[1..n - 1].reverse();
        let name = |m: &str| if m.is_empty() { "lib".to_string() } else { m.to_string() };
        out.push(format!(
            "{} (a circle of {} modules: {})",
            way.iter().map(|m| name(m)).collect::<Vec<_>>().join(" -> "),
            scc.len(),
            set.iter().map(|m| name(m)).collect::<Vec<_>>().join(", ")
        ));
    }
    out
}

fn files(list: &[(&str, &str)]) -> Files {
    list.iter().map(|(m, t)| (m.to_string(), t.to_string())).collect()
}

#[test]
fn the_checker_finds_a_planted_circle() {
    let f = files(&[
        ("", "pub mod a; pub mod b; pub mod c;\npub use b::Thing;"),
        ("a", "use crate::b::{x, y::{Z as W}};\nfn f() {}"),
        ("b", "// use crate::a::Nope;\nconst S: &str = \"crate::a::Nope\";\npub struct Thing;\nuse super::c;"),
        ("c", "fn g() -> crate::Thing { todo!() }"),
    ]);
    let g = graph(&f);
    assert_eq!(g["a"], BTreeSet::from(["b".to_string()]));
    assert_eq!(g["b"], BTreeSet::from(["c".to_string()]), "comments and strings are not imports");
    assert_eq!(g["c"], BTreeSet::from(["b".to_string()]), "a root re-export leads to its module");
    assert_eq!(cycles(&g), vec!["b -> c -> b (a circle of 2 modules: b, c)".to_string()]);
}

#[test]
fn the_checker_follows_super_and_inline_modules() {
    let f = files(&[
        ("", "pub mod p;"),
        ("p", "pub mod q; pub mod r;"),
        ("p::q", "use super::r::X;\n#[cfg(test)]\nmod tests { use super::*; use super::super::r; }"),
        ("p::r", "pub struct X; fn f() { let _ = '{'; }\nmod inner { use super::super::q; }"),
    ]);
    let g = graph(&f);
    assert_eq!(g["p::q"], BTreeSet::from(["p::r".to_string()]));
    assert_eq!(g["p::r"], BTreeSet::from(["p::q".to_string()]), "`super` in an inline module is the file's module");
    assert_eq!(cycles(&g).len(), 1);
}

#[test]
fn core_src_has_no_import_circle() {
    let f = read_src();
    assert!(f.contains_key("era") && f.contains_key("era::v51"), "core/src read: {:?}", f.keys().collect::<Vec<_>>());
    let found = cycles(&graph(&f));
    assert!(found.is_empty(), "import circles in core/src:\n{}", found.join("\n"));
}

#[test]
fn the_check_fails_on_a_circle_planted_in_core_src() {
    let mut f = read_src();
    // `addr` is below everything; make it reach `era` (which reaches it back).
    f.get_mut("addr").unwrap().push_str("\nuse crate::era::Vmap;\n");
    let found = cycles(&graph(&f));
    let through_addr = |c: &String| c.split(" (").next().unwrap().split(" -> ").any(|m| m == "addr");
    assert!(found.iter().any(through_addr), "{found:?}");
}
