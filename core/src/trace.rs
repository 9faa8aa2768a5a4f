//! The trace language of `../shared/conformance/README.md`, one operation a line:
//!
//! ```text
//!   profile linux-6.1            # first line, optional
//!   cpus 4                       # CPUs (6.9 nodes: possible; lazy_max_pages: online)
//!   online 2                     # fewer of them online (lazy_max_pages only)
//!   cpu 1                        # current CPU
//!   init 0x1000 0x100000         # reset: free space [START, END)
//!   alloc SIZE ALIGN VSTART VEND # alloc_vmap_area
//!   free ADDR | vfree ADDR       # immediate / lazy free of the area starting at ADDR
//!   purge | reclaim              # forced purge; 6.9 reclaim (full decay)
//!   pcpu ALIGN OFF:SIZE ...      # pcpu_get_vm_areas
//!   dump | busy | pools          # print the free tree, busy/lazy areas, pools
//! ```
//!
//! A replay of a real kernel's capture adds the lines of `crate::capture::follow` (`place`, `lazy`,
//! `pooled`, `hold`, `release`, `defer-drain`, `alloc ... = ADDR`, `purge keep ...`).
//!
//! Numbers are hexadecimal with `0x` or decimal; `#` starts a comment.

use std::fmt;

#[cfg(feature = "capture")]
use crate::capture::follow::Follow;
use crate::profile::{Profile, ProfileName};
pub use crate::text::{bounded, escaped, parse_num, quote, MESSAGE_MAX, QUOTE_MAX};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Profile(Profile),
    Init {
        start: u64,
        end: u64,
    },
    Cpus(u64),
    /// `online N`: N of the `cpus` CPUs are online (`lazy_max_pages`); `cpus` alone means all.
    Online(u64),
    Cpu(u64),
    Alloc {
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
    },
    Free(u64),
    Vfree(u64),
    Purge,
    Reclaim,
    Pcpu {
        align: u64,
        areas: Vec<(u64, u64)>,
    },
    Dump,
    Busy,
    Pools,
    /// maple-rfc: `bump on|off`, the per-CPU bump overlay.
    Bump(bool),
    /// maple-rfc: `early SIZE ALIGN VSTART VEND`, an allocation before the perf-mode switch
    /// (the legacy free-tree path); only before every other operation.
    Early {
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
    },
    /// A line that follows a real kernel's capture (`crate::capture::follow`).
    #[cfg(feature = "capture")]
    Follow(Box<crate::capture::follow::Follow>),
}

impl Op {
    /// Operations that act on the allocator (counted by `--bench`).
    pub fn is_timed(&self) -> bool {
        matches!(self, Op::Alloc { .. } | Op::Free(_) | Op::Vfree(_) | Op::Purge)
    }

    /// Lines that only print the state (`dump`, `busy`, `pools`): they change nothing, and a
    /// timed replay leaves them out.
    pub fn is_print(&self) -> bool {
        matches!(self, Op::Dump | Op::Busy | Op::Pools)
    }

    /// Lines that only set the stage (profile, CPUs, the bump overlay) or print: an import of
    /// these alone has nothing to show, and is refused.
    pub fn is_setting(&self) -> bool {
        self.is_print() || matches!(self, Op::Profile(_) | Op::Cpus(_) | Op::Online(_) | Op::Cpu(_) | Op::Bump(_))
    }
}

/// One parsed line: its 1-based line number and operation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceLine {
    pub line: usize,
    pub op: Op,
}

/// A trace that does not parse: which line, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Line 0 is the input as a whole (its size): no line to name.
        if self.line == 0 {
            return f.write_str(&self.msg);
        }
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

impl std::error::Error for ParseError {}

fn args<const N: usize>(cmd: &str, rest: &[&str], names: [&str; N]) -> Result<[u64; N], String> {
    if rest.len() != N {
        let usage = std::iter::once(cmd).chain(names.iter().copied()).collect::<Vec<_>>().join(" ");
        return Err(format!(
            "`{cmd}` takes {N} argument{}, got {}: usage `{usage}`",
            if N == 1 { "" } else { "s" },
            rest.len()
        ));
    }
    let mut out = [0u64; N];
    for (i, t) in rest.iter().enumerate() {
        out[i] = parse_num(t).map_err(|e| format!("{cmd} {}: {e}", names[i]))?;
    }
    Ok(out)
}

/// Parse one line (without comment handling). `Ok(None)` for blank or comment lines.
pub fn parse_line(text: &str) -> Result<Option<Op>, String> {
    let text = text.trim();
    if text.is_empty() || text.starts_with('#') {
        return Ok(None);
    }
    let toks: Vec<&str> = text.split_whitespace().collect();
    let (cmd, rest) = (toks[0], &toks[1..]);
    let op = match cmd {
        "profile" => {
            if rest.len() != 1 {
                return Err(format!("`profile` takes one name: {}", ProfileName::known()));
            }
            match ProfileName::parse(rest[0]) {
                Some(ProfileName::Era(p)) => Op::Profile(p),
                Some(ProfileName::MapleTree) => {
                    return Err(
                        "`profile maple-tree` starts a maple-tree trace: it must be the first line, before every operation".into()
                    )
                }
                None => return Err(format!("unknown profile `{}` (known: {})", quote(rest[0]), ProfileName::known())),
            }
        }
        "bump" => match rest {
            ["on"] => Op::Bump(true),
            ["off"] => Op::Bump(false),
            _ => return Err("`bump` takes `on` or `off` (maple-rfc's per-CPU bump overlay)".into()),
        },
        "early" => {
            let [size, align, vstart, vend] = args(cmd, rest, ["SIZE", "ALIGN", "VSTART", "VEND"])?;
            Op::Early { size, align, vstart, vend }
        }
        "init" => {
            let [start, end] = args(cmd, rest, ["START", "END"])?;
            Op::Init { start, end }
        }
        "cpus" => Op::Cpus(args(cmd, rest, ["N"])?[0]),
        "online" => Op::Online(args(cmd, rest, ["N"])?[0]),
        "cpu" => Op::Cpu(args(cmd, rest, ["N"])?[0]),
        #[cfg(feature = "capture")]
        "alloc" if rest.len() > 4 && rest[4] == "=" => Op::Follow(Box::new(Follow::parse(cmd, rest)?)),
        #[cfg(feature = "capture")]
        "purge" | "reclaim" if !rest.is_empty() => Op::Follow(Box::new(Follow::parse(cmd, rest)?)),
        #[cfg(feature = "capture")]
        "defer-drain" | "shrink" | "place" | "lazy" | "pooled" | "hold" | "release" | "unpool" | "purge-rest" => Op::Follow(Box::new(Follow::parse(cmd, rest)?)),
        #[cfg(not(feature = "capture"))]
        "defer-drain" | "shrink" | "place" | "lazy" | "pooled" | "hold" | "release" | "unpool" | "purge-rest" => {
            return Err(format!("`{cmd}` follows a kernel's capture: this build of the core has no capture replay"))
        }
        "alloc" => {
            let [size, align, vstart, vend] = args(cmd, rest, ["SIZE", "ALIGN", "VSTART", "VEND"])?;
            Op::Alloc { size, align, vstart, vend }
        }
        "free" => Op::Free(args(cmd, rest, ["ADDR"])?[0]),
        "vfree" => Op::Vfree(args(cmd, rest, ["ADDR"])?[0]),
        "purge" | "reclaim" | "dump" | "busy" | "pools" => {
            if !rest.is_empty() {
                return Err(format!("`{cmd}` takes no argument"));
            }
            match cmd {
                "purge" => Op::Purge,
                "reclaim" => Op::Reclaim,
                "dump" => Op::Dump,
                "busy" => Op::Busy,
                _ => Op::Pools,
            }
        }
        "pcpu" => {
            if rest.len() < 2 {
                return Err("`pcpu` takes ALIGN and at least one OFFSET:SIZE".into());
            }
            let align = parse_num(rest[0]).map_err(|e| format!("pcpu ALIGN: {e}"))?;
            let mut areas = Vec::new();
            for t in &rest[1..] {
                let (o, s) = t.split_once(':').ok_or_else(|| format!("pcpu area `{}` is not OFFSET:SIZE", quote(t)))?;
                areas.push((parse_num(o).map_err(|e| format!("pcpu OFFSET: {e}"))?, parse_num(s).map_err(|e| format!("pcpu SIZE: {e}"))?));
            }
            Op::Pcpu { align, areas }
        }
        other => {
            return Err(format!(
                "unknown command `{}` (known: profile, cpus, online, cpu, init, alloc, free, vfree, purge, reclaim, pcpu, dump, busy, pools, bump, early; following a capture: defer-drain, shrink, place, lazy, pooled, hold, release, unpool)",
                quote(other)
            ))
        }
    };
    Ok(Some(op))
}

/// Largest trace text accepted, in bytes.
pub const MAX_TRACE_BYTES: usize = 64 << 20;

/// Parse a whole trace. All or nothing: the first bad line is reported.
pub fn parse_trace(text: &str) -> Result<Vec<TraceLine>, ParseError> {
    parse_trace_limited(text, MAX_TRACE_BYTES)
}

/// [`parse_trace`] with a size limit of the caller's choosing (`usize::MAX` for none).
pub fn parse_trace_limited(text: &str, max_bytes: usize) -> Result<Vec<TraceLine>, ParseError> {
    if text.len() > max_bytes {
        return Err(ParseError {
            line: 0,
            msg: format!("the trace is {} bytes; the limit is {} MiB", text.len(), max_bytes >> 20),
        });
    }
    let mut out = Vec::new();
    let mut p = LineParser::default();
    for (i, l) in text.lines().enumerate() {
        if let Some(tl) = p.feed(i + 1, l)? {
            out.push(tl);
        }
    }
    Ok(out)
}

/// The trace parser's per-line rules (NUL bytes, syntax, `profile` first), for callers that
/// parse a text a slice at a time.
#[derive(Clone, Debug, Default)]
pub struct LineParser {
    seen_op: bool,
}

impl LineParser {
    /// Parse line number `line` (1-based); `Ok(None)` for a blank or comment line.
    pub fn feed(&mut self, line: usize, text: &str) -> Result<Option<TraceLine>, ParseError> {
        // A byte-order mark before the first line (an editor's UTF-8 file, pasted or linked) is
        // not part of it: a file read by the page loses it, a paste or a link must too.
        let text = if line == 1 { text.strip_prefix('\u{feff}').unwrap_or(text) } else { text };
        if text.contains('\0') {
            return Err(ParseError { line, msg: "binary data (a NUL byte): this is not a trace".into() });
        }
        match parse_line(text) {
            Ok(None) => Ok(None),
            Ok(Some(op)) => {
                if let Op::Profile(_) = op {
                    if self.seen_op {
                        return Err(ParseError {
                            line,
                            msg: "`profile` must come before every other operation".into(),
                        });
                    }
                }
                self.seen_op = true;
                Ok(Some(TraceLine { line, op }))
            }
            Err(msg) => Err(ParseError { line, msg: bounded(msg) }),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Op::Profile(p) => write!(f, "profile {p}"),
            Op::Init { start, end } => write!(f, "init {start:#x} {end:#x}"),
            Op::Cpus(n) => write!(f, "cpus {n}"),
            Op::Online(n) => write!(f, "online {n}"),
            Op::Cpu(n) => write!(f, "cpu {n}"),
            Op::Alloc { size, align, vstart, vend } => write!(f, "alloc {size:#x} {align:#x} {vstart:#x} {vend:#x}"),
            Op::Free(a) => write!(f, "free {a:#x}"),
            Op::Vfree(a) => write!(f, "vfree {a:#x}"),
            Op::Purge => f.write_str("purge"),
            Op::Reclaim => f.write_str("reclaim"),
            Op::Pcpu { align, areas } => {
                write!(f, "pcpu {align:#x}")?;
                for (o, s) in areas {
                    write!(f, " {o:#x}:{s:#x}")?;
                }
                Ok(())
            }
            Op::Dump => f.write_str("dump"),
            Op::Busy => f.write_str("busy"),
            Op::Pools => f.write_str("pools"),
            Op::Bump(on) => f.write_str(if *on { "bump on" } else { "bump off" }),
            Op::Early { size, align, vstart, vend } => write!(f, "early {size:#x} {align:#x} {vstart:#x} {vend:#x}"),
            #[cfg(feature = "capture")]
            Op::Follow(x) => write!(f, "{x}"),
        }
    }
}

/// Print operations back as trace text (one line each, with a final newline).
pub fn format_trace(ops: &[Op]) -> String {
    let mut s = String::new();
    for op in ops {
        s.push_str(&op.to_string());
        s.push('\n');
    }
    s
}
