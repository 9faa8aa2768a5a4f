//! Lines that follow a real kernel's capture ([`crate::capture`]): the start state its
//! `/proc/vmallocinfo` shows, what the replay learnt that the file cannot show, and the
//! kernel's own answer to each allocation. `vmap-replay --import capture` prints them, so that
//! the page (and any replay) gives the states the capture's replay gave, step by step.
//!
//! ```text
//!   defer-drain                  the lazy threshold schedules the drain; purges come as traced
//!   place START END [node N]     a busy area of the before file, allocated for node N
//!   lazy START node N            that area lazily freed, on node N's lazy list
//!   pooled N START SIZE [head | behind K]
//!                                a pool entry from before the capture, at the tail of N's pool
//!                                (`head`: at its head; `behind K`: behind its first K entries)
//!   hold START END               space shown free that the kernel held (pool entries unseen)
//!   release START                held space the kernel allocated in: free again
//!   unpool START SIZE            pool entries over [START, START + SIZE) back to the free tree
//!                                (a decay gave them back)
//!   alloc SIZE ALIGN VSTART VEND = ADDR [explained KIND | unexplained]
//!                                the kernel returned ADDR: where the model's answer differs,
//!                                the model takes ADDR as the kernel did (and says why)
//!   purge|reclaim [behind] [keep ADDR ...]
//!                                the kernel's purge: the lazy areas kept were freed after it
//!                                took the lists; `behind`: entries pooled before the capture
//!                                stay behind the ones this purge pools
//! ```
//!
//! KIND is the unknown of the start state the allocation resolved: `pool-entry`, `area-node`,
//! `held-free` or `tree-shape` (see [`crate::capture`]).

use std::fmt;

use crate::era::PurgeStop;
use crate::text::{parse_num, quote};

pub use crate::error::{Mark, Unknown};

/// One capture-following line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Follow {
    DeferDrain,
    /// `vmap_node_shrink_scan`: every node's pools given back whole (the vmap node shrinker,
    /// which the `vmscan` event `mm_shrink_slab_start` traces).
    Shrink,
    Place {
        start: u64,
        end: u64,
        node: Option<u32>,
    },
    Lazy {
        start: u64,
        node: u32,
    },
    /// At the tail of the pool, or (`head`) at its head behind its first `behind` entries: an
    /// entry the kernel's pool held at an unexplained allocation the replay read on from, in
    /// front of the model's own guesses.
    Pooled {
        node: u32,
        start: u64,
        size: u64,
        head: bool,
        behind: u32,
    },
    Hold {
        start: u64,
        end: u64,
    },
    Release {
        start: u64,
    },
    Unpool {
        start: u64,
        size: u64,
    },
    Alloc {
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        addr: u64,
        mark: Mark,
    },
    /// `decayed N` / `upto N` / `through ADDR`: stopped part-way ([`Steered::purge_to`]: nodes
    /// `0..=N` decayed and taken; or every node taken and `0..=N` processed; or processed to
    /// the area at ADDR); `purge-rest` does the rest, and such a line while one is part-way
    /// takes it further.
    Purge {
        full: bool,
        behind: bool,
        stop: Option<PurgeStop>,
        keep: Vec<u64>,
    },
    /// The rest of a purge part-way; `keep`: frees on nodes it had not taken yet that came
    /// after it took them all the same (the kernel's count says how many).
    PurgeRest {
        keep: Vec<u64>,
    },
}

fn num(what: &str, t: Option<&&str>) -> Result<u64, String> {
    let t = t.ok_or_else(|| format!("{what} is missing"))?;
    parse_num(t).map_err(|e| format!("{what}: {e}"))
}

fn node(t: Option<&&str>) -> Result<u32, String> {
    node_id(num("node N", t)?)
}

/// A vmap node's number as a follow line may name it: below 2^16.
pub(crate) fn node_id(n: u64) -> Result<u32, String> {
    u32::try_from(n).ok().filter(|&n| n < 1 << 16).ok_or_else(|| format!("node {n} is out of range"))
}

fn done(cmd: &str, rest: &[&str], used: usize, usage: &str) -> Result<(), String> {
    match rest.get(used) {
        None => Ok(()),
        Some(t) => Err(format!("`{cmd}`: unexpected `{}`: usage `{usage}`", quote(t))),
    }
}

impl Follow {
    /// Parse a line whose command is `cmd` (one of `defer-drain`, `shrink`, `place`, `lazy`, `pooled`,
    /// `hold`, `release`, `alloc` with `= ADDR`, `purge`/`reclaim` with arguments).
    pub fn parse(cmd: &str, rest: &[&str]) -> Result<Follow, String> {
        let f = match cmd {
            "defer-drain" => {
                done(cmd, rest, 0, "defer-drain")?;
                Follow::DeferDrain
            }
            "shrink" => {
                done(cmd, rest, 0, "shrink")?;
                Follow::Shrink
            }
            "place" => {
                const U: &str = "place START END [node N]";
                let start = num("place START", rest.first())?;
                let end = num("place END", rest.get(1))?;
                let node = match rest.get(2) {
                    None => None,
                    Some(&"node") => Some(node(rest.get(3))?),
                    Some(t) => return Err(format!("`place`: unexpected `{}`: usage `{U}`", quote(t))),
                };
                done(cmd, rest, if node.is_some() { 4 } else { 2 }, U)?;
                Follow::Place { start, end, node }
            }
            "lazy" => {
                const U: &str = "lazy START node N";
                let start = num("lazy START", rest.first())?;
                if rest.get(1) != Some(&"node") {
                    return Err(format!("`lazy` takes START and `node N`: usage `{U}`"));
                }
                let n = node(rest.get(2))?;
                done(cmd, rest, 3, U)?;
                Follow::Lazy { start, node: n }
            }
            "pooled" => {
                let n = node(rest.first())?;
                let start = num("pooled START", rest.get(1))?;
                let size = num("pooled SIZE", rest.get(2))?;
                const U: &str = "pooled N START SIZE [head | behind K]";
                let (head, behind, used) = match rest.get(3) {
                    Some(&"head") => (true, 0, 4),
                    Some(&"behind") => {
                        let k = num("pooled behind K", rest.get(4))?;
                        let k =
                            u32::try_from(k).map_err(|_| format!("`behind {k:#x}`: too many entries; usage `{U}`"))?;
                        (true, k, 5)
                    }
                    _ => (false, 0, 3),
                };
                done(cmd, rest, used, U)?;
                Follow::Pooled { node: n, start, size, head, behind }
            }
            "hold" => {
                let start = num("hold START", rest.first())?;
                let end = num("hold END", rest.get(1))?;
                done(cmd, rest, 2, "hold START END")?;
                Follow::Hold { start, end }
            }
            "unpool" => {
                let start = num("unpool START", rest.first())?;
                let size = num("unpool SIZE", rest.get(1))?;
                done(cmd, rest, 2, "unpool START SIZE")?;
                Follow::Unpool { start, size }
            }
            "release" => {
                let start = num("release START", rest.first())?;
                done(cmd, rest, 1, "release START")?;
                Follow::Release { start }
            }
            "alloc" => {
                const U: &str = "alloc SIZE ALIGN VSTART VEND = ADDR [explained KIND | unexplained | untraced]";
                if rest.len() < 6 || rest[4] != "=" {
                    return Err(format!("`alloc` with the kernel's answer: usage `{U}`"));
                }
                let size = num("alloc SIZE", rest.first())?;
                let align = num("alloc ALIGN", rest.get(1))?;
                let vstart = num("alloc VSTART", rest.get(2))?;
                let vend = num("alloc VEND", rest.get(3))?;
                let addr = num("alloc ADDR", rest.get(5))?;
                let (mark, used) = match rest.get(6) {
                    None => (Mark::Equal, 6),
                    Some(&"unexplained") => (Mark::Unexplained, 7),
                    Some(&"untraced") => (Mark::Untraced, 7),
                    Some(&"explained") => {
                        let k = rest.get(7).ok_or_else(|| format!("`explained` needs a KIND: usage `{U}`"))?;
                        let u = Unknown::parse(k).ok_or_else(|| {
                            let known = Unknown::ALL.map(Unknown::name).join(", ");
                            format!("unknown KIND `{}` (known: {known})", quote(k))
                        })?;
                        (Mark::Explained(u), 8)
                    }
                    Some(t) => return Err(format!("`alloc`: unexpected `{}`: usage `{U}`", quote(t))),
                };
                done(cmd, rest, used, U)?;
                Follow::Alloc { size, align, vstart, vend, addr, mark }
            }
            "purge-rest" => {
                let mut keep = Vec::new();
                match rest.first() {
                    None => {}
                    Some(&"keep") if rest.len() > 1 => {
                        for t in &rest[1..] {
                            keep.push(parse_num(t).map_err(|e| format!("purge-rest keep ADDR: {e}"))?);
                        }
                    }
                    Some(&"keep") => return Err("`purge-rest keep` needs at least one ADDR".into()),
                    Some(t) => {
                        return Err(format!(
                            "`purge-rest`: unexpected `{}`: usage `purge-rest [keep ADDR ...]`",
                            quote(t)
                        ))
                    }
                }
                Follow::PurgeRest { keep }
            }
            "purge" | "reclaim" => {
                let usage = format!("{cmd} [behind] [decayed N | upto N | through ADDR] [keep ADDR ...]");
                let mut behind = false;
                let mut stop = None;
                let mut keep = Vec::new();
                let mut i = 0;
                if rest.first() == Some(&"behind") {
                    behind = true;
                    i = 1;
                }
                if let Some(&w @ ("upto" | "decayed" | "through")) = rest.get(i) {
                    if cmd == "reclaim" {
                        return Err(format!("`reclaim` takes no `{w}`: a full decay's purge is not split"));
                    }
                    stop = Some(match w {
                        "upto" => PurgeStop::Processed(node(rest.get(i + 1))?),
                        "decayed" => PurgeStop::Decayed(node(rest.get(i + 1))?),
                        _ => PurgeStop::Through(num("purge through ADDR", rest.get(i + 1))?),
                    });
                    i += 2;
                }
                if i < rest.len() {
                    if rest[i] != "keep" {
                        return Err(format!("`{cmd}`: unexpected `{}`: usage `{usage}`", quote(rest[i])));
                    }
                    if i + 1 == rest.len() {
                        return Err(format!("`{cmd} keep` needs at least one ADDR"));
                    }
                    for t in &rest[i + 1..] {
                        keep.push(parse_num(t).map_err(|e| format!("{cmd} keep ADDR: {e}"))?);
                    }
                }
                Follow::Purge { full: cmd == "reclaim", behind, stop, keep }
            }
            _ => return Err(format!("unknown command `{}`", quote(cmd))),
        };
        Ok(f)
    }

    /// The timeline's mark bits of this line (see [`crate::session::MARK_EXPLAINED`]).
    pub fn mark(&self) -> Mark {
        match self {
            Follow::Alloc { mark, .. } => *mark,
            _ => Mark::Equal,
        }
    }
}

impl fmt::Display for Follow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Follow::DeferDrain => f.write_str("defer-drain"),
            Follow::Shrink => f.write_str("shrink"),
            Follow::Place { start, end, node: None } => write!(f, "place {start:#x} {end:#x}"),
            Follow::Place { start, end, node: Some(n) } => write!(f, "place {start:#x} {end:#x} node {n}"),
            Follow::Lazy { start, node } => write!(f, "lazy {start:#x} node {node}"),
            Follow::Pooled { node, start, size, head, behind } => {
                write!(f, "pooled {node} {start:#x} {size:#x}")?;
                match (head, behind) {
                    (false, _) => Ok(()),
                    (true, 0) => f.write_str(" head"),
                    (true, k) => write!(f, " behind {k}"),
                }
            }
            Follow::Hold { start, end } => write!(f, "hold {start:#x} {end:#x}"),
            Follow::Release { start } => write!(f, "release {start:#x}"),
            Follow::Unpool { start, size } => write!(f, "unpool {start:#x} {size:#x}"),
            Follow::Alloc { size, align, vstart, vend, addr, mark } => {
                write!(f, "alloc {size:#x} {align:#x} {vstart:#x} {vend:#x} = {addr:#x}")?;
                match mark {
                    Mark::Equal => Ok(()),
                    Mark::Unexplained => f.write_str(" unexplained"),
                    Mark::Untraced => f.write_str(" untraced"),
                    Mark::Explained(u) => write!(f, " explained {}", u.name()),
                }
            }
            Follow::PurgeRest { keep } => {
                f.write_str("purge-rest")?;
                if !keep.is_empty() {
                    f.write_str(" keep")?;
                    for a in keep {
                        write!(f, " {a:#x}")?;
                    }
                }
                Ok(())
            }
            Follow::Purge { full, behind, stop, keep } => {
                f.write_str(if *full { "reclaim" } else { "purge" })?;
                if *behind {
                    f.write_str(" behind")?;
                }
                match stop {
                    Some(PurgeStop::Decayed(n)) => write!(f, " decayed {n}")?,
                    Some(PurgeStop::Processed(n)) => write!(f, " upto {n}")?,
                    Some(PurgeStop::Through(a)) => write!(f, " through {a:#x}")?,
                    None => {}
                }
                if !keep.is_empty() {
                    f.write_str(" keep")?;
                    for a in keep {
                        write!(f, " {a:#x}")?;
                    }
                }
                Ok(())
            }
        }
    }
}
