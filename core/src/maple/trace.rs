//! `profile maple-tree` traces: one tree operation a line, printed the way the conformance
//! vectors in `shared/conformance-maple/` expect (see that folder's README).
//!
//! A line is parsed completely before anything is applied, so a bad line changes nothing.
//! `store`/`erase` with FIRST > LAST and `empty` with size 0 or an impossible window are not
//! parse errors: the kernel answers them (`err -22`, `-> EINVAL`) and so do we.

use std::fmt;
use std::io::Write;

use super::tree::{MapleEntry, MapleError, MapleTree};

/// The longest part of a bad line quoted in an error.
const QUOTE_MAX: usize = 80;

/// What is wrong with a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapleTraceErrorKind {
    /// The first word is not an operation of maple-tree traces.
    UnknownOp(String),
    /// Wrong number of arguments.
    ArgCount { op: &'static str, expected: usize, got: usize },
    /// An argument is not a number (decimal, or hex with `0x`) that fits in 64 bits.
    BadNumber { arg: usize },
    /// A `profile` line naming another profile (or none).
    Profile,
    /// Writing the output failed.
    Io(String),
}

/// A typed error naming the line (1-based) and quoting at most 80 characters of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapleTraceError {
    pub line_no: usize,
    pub quote: String,
    pub kind: MapleTraceErrorKind,
}

impl fmt::Display for MapleTraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: ", self.line_no)?;
        match &self.kind {
            MapleTraceErrorKind::UnknownOp(w) => write!(f, "unknown operation `{w}`")?,
            MapleTraceErrorKind::ArgCount { op, expected, got } => {
                write!(f, "`{op}` takes {expected} arguments, got {got}")?
            }
            MapleTraceErrorKind::BadNumber { arg } => {
                write!(f, "argument {arg} is not a 64-bit number (decimal or 0x hex)")?
            }
            MapleTraceErrorKind::Profile => write!(f, "expected `profile maple-tree`")?,
            MapleTraceErrorKind::Io(e) => write!(f, "output: {e}")?,
        }
        write!(f, ": `{}`", self.quote)
    }
}

impl std::error::Error for MapleTraceError {}

fn quote(line: &str) -> String {
    let t = line.trim();
    let mut q: String = t.chars().take(QUOTE_MAX).collect();
    if t.chars().count() > QUOTE_MAX {
        q.push('…');
    }
    q
}

/// Parse a number: decimal, or hexadecimal with a `0x`/`0X` prefix; `None` if not a u64.
pub fn parse_num(s: &str) -> Option<u64> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if h.is_empty() || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(h, 16).ok()
    } else {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    }
}

/// One parsed line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapleOp {
    Nothing,
    Store(u64, u64),
    Erase(u64, u64),
    Empty(u64, u64, u64),
    Dump,
}

/// Parse one line (no side effects).
pub fn parse_maple_line(line_no: usize, line: &str) -> Result<MapleOp, MapleTraceError> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(MapleOp::Nothing);
    }
    let err = |kind| MapleTraceError { line_no, quote: quote(line), kind };
    let words: Vec<&str> = t.split_whitespace().collect();
    let op = words[0];
    let args = &words[1..];
    let want = |name: &'static str, n: usize| -> Result<Vec<u64>, MapleTraceError> {
        if args.len() != n {
            return Err(err(MapleTraceErrorKind::ArgCount { op: name, expected: n, got: args.len() }));
        }
        args.iter()
            .enumerate()
            .map(|(i, a)| parse_num(a).ok_or_else(|| err(MapleTraceErrorKind::BadNumber { arg: i + 1 })))
            .collect()
    };
    match op {
        "profile" => {
            if args.len() == 1 && args[0] == "maple-tree" {
                Ok(MapleOp::Nothing)
            } else {
                Err(err(MapleTraceErrorKind::Profile))
            }
        }
        "store" => want("store", 2).map(|v| MapleOp::Store(v[0], v[1])),
        "erase" => want("erase", 2).map(|v| MapleOp::Erase(v[0], v[1])),
        "empty" => want("empty", 3).map(|v| MapleOp::Empty(v[0], v[1], v[2])),
        "dump" => want("dump", 0).map(|_| MapleOp::Dump),
        other => Err(err(MapleTraceErrorKind::UnknownOp(other.chars().take(QUOTE_MAX).collect()))),
    }
}

/// Replays a maple-tree trace line by line onto one `MT_FLAGS_ALLOC_RANGE` tree storing the
/// zero entry, as the conformance vectors were made.
pub struct MapleReplay {
    pub tree: MapleTree,
    /// After every store or erase, validate the nodes on the paths to the range and its two
    /// neighbours (`MapleTree::validate_ranges`); fail on the first broken invariant.
    pub check: bool,
    /// Validate the whole tree after every N-th operation (and at [`MapleReplay::finish`]).
    pub check_every: Option<u64>,
    ops: u64,
}

impl Default for MapleReplay {
    fn default() -> Self {
        Self::new()
    }
}

impl MapleReplay {
    pub fn new() -> MapleReplay {
        MapleReplay { tree: MapleTree::new(true), check: false, check_every: None, ops: 0 }
    }

    /// Apply one line and write its output (if any).
    pub fn apply_line(&mut self, line_no: usize, line: &str, out: &mut impl Write) -> Result<(), MapleTraceError> {
        let op = parse_maple_line(line_no, line)?;
        let touched = match op {
            MapleOp::Store(a, b) | MapleOp::Erase(a, b) => Some((a.saturating_sub(1), b.saturating_add(1))),
            _ => None,
        };
        let text = match op {
            MapleOp::Nothing => return Ok(()),
            MapleOp::Store(a, b) => {
                let r = self.tree.store_range(a, b, Some(MapleEntry::Zero));
                format!("store {a:#x} {b:#x} {}\n", status(r))
            }
            MapleOp::Erase(a, b) => {
                let r = self.tree.store_range(a, b, None);
                format!("erase {a:#x} {b:#x} {}\n", status(r))
            }
            MapleOp::Empty(min, max, size) => match self.tree.empty_area(min, max, size) {
                Ok((i, l)) => format!("empty {min:#x} {max:#x} {size:#x} -> {i:#x} {l:#x}\n"),
                Err(MapleError::Busy) => format!("empty {min:#x} {max:#x} {size:#x} -> EBUSY\n"),
                Err(MapleError::Invalid) => format!("empty {min:#x} {max:#x} {size:#x} -> EINVAL\n"),
            },
            MapleOp::Dump => self.tree.dump(),
        };
        if !matches!(op, MapleOp::Nothing) {
            self.ops += 1;
        }
        let full = self.check_every.is_some_and(|n| self.ops.is_multiple_of(n));
        let r = match touched {
            _ if full => self.tree.validate(),
            Some(range) if self.check => self.tree.validate_ranges(&[range]),
            _ => Ok(()),
        };
        if let Err(e) = r {
            return Err(MapleTraceError {
                line_no,
                quote: quote(line),
                kind: MapleTraceErrorKind::Io(format!("invariant broken: {e}")),
            });
        }
        out.write_all(text.as_bytes()).map_err(|e| MapleTraceError {
            line_no,
            quote: quote(line),
            kind: MapleTraceErrorKind::Io(e.to_string()),
        })
    }
}

impl MapleReplay {
    /// The check at the end of a trace: the whole tree, when any check is on.
    pub fn finish(&self) -> Result<(), String> {
        if self.check || self.check_every.is_some() {
            self.tree.validate().map_err(|e| format!("invariant broken: {e}"))?;
        }
        Ok(())
    }
}

fn status(r: Result<(), MapleError>) -> String {
    match r {
        Ok(()) => "ok".to_string(),
        Err(e) => format!("err {}", e.errno()),
    }
}

/// Replay a whole trace text; the output of every line, or the first error.
pub fn replay_maple_text(text: &str) -> Result<String, MapleTraceError> {
    let mut r = MapleReplay::new();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        r.apply_line(i + 1, line, &mut out)?;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// True when the first line that is neither blank nor a comment is `profile maple-tree`.
pub fn is_maple_trace(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .is_some_and(|l| l.split_whitespace().collect::<Vec<_>>() == ["profile", "maple-tree"])
}
