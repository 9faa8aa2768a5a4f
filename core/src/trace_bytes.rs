//! Operations as bytes: how one instance of the core hands a trace it holds to another (the
//! page's worker, after a capture's replay, to the main view) with no text in between, so the
//! receiver steps the operations into its session without printing or parsing a line.
//!
//! ```text
//!   "vmop" 1 | COUNT | op ... op          every number a LEB128 varint, unless said
//!   op:      TAG field ...                TAG one byte: 0..=15 the trace language's
//!                                         commands, 32..=44 a capture's follow lines
//!   profile: LEN NAME                     the profile's name, as the trace prints it
//!   vectors: N item ...                   pcpu areas, purge keep addresses
//! ```
//!
//! Not a file format: both ends are the same build (the version byte only catches a mix-up).
//! Decoding is all or nothing and checks what the trace's parser checks (a node below 2^16, no
//! stop for `reclaim`); an error names the operation and the byte, never panics, and allocates
//! no more than the input's length allows.

use std::fmt;

#[cfg(feature = "capture")]
use crate::capture::follow::Follow;
#[cfg(feature = "capture")]
use crate::era::PurgeStop;
#[cfg(feature = "capture")]
use crate::error::{Mark, Unknown};
use crate::profile::Profile;
use crate::text::quote;
use crate::trace::Op;

const MAGIC: &[u8; 4] = b"vmop";
const VERSION: u8 = 1;
/// An `alloc … = ADDR untraced` line's mark byte (the others: 0 equal, 1 unexplained, 2 + the
/// unknown's index explained).
const UNTRACED: u8 = 0xff;

/// Why bytes are not operations: the operation (0-based; `None` before the first) and the
/// byte offset where decoding stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BytesError {
    pub op: Option<usize>,
    pub offset: usize,
    pub msg: String,
}

impl fmt::Display for BytesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Some(k) => write!(f, "operation {} (byte {}): {}", k + 1, self.offset, self.msg),
            None => write!(f, "byte {}: {}", self.offset, self.msg),
        }
    }
}

impl std::error::Error for BytesError {}

fn put(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn put_all(out: &mut Vec<u8>, vs: &[u64]) {
    for &v in vs {
        put(out, v);
    }
}

/// The operations as bytes ([`decode`] gives them back).
pub fn encode<'a>(ops: impl ExactSizeIterator<Item = &'a Op>) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + ops.len() * 16);
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    put(&mut out, ops.len() as u64);
    for op in ops {
        encode_op(&mut out, op);
    }
    out
}

fn encode_op(out: &mut Vec<u8>, op: &Op) {
    match op {
        Op::Profile(p) => {
            out.push(0);
            let name = p.name().as_bytes();
            put(out, name.len() as u64);
            out.extend_from_slice(name);
        }
        Op::Init { start, end } => {
            out.push(1);
            put_all(out, &[*start, *end]);
        }
        Op::Cpus(n) => {
            out.push(2);
            put(out, *n);
        }
        Op::Online(n) => {
            out.push(3);
            put(out, *n);
        }
        Op::Cpu(n) => {
            out.push(4);
            put(out, *n);
        }
        Op::Alloc { size, align, vstart, vend } => {
            out.push(5);
            put_all(out, &[*size, *align, *vstart, *vend]);
        }
        Op::Free(a) => {
            out.push(6);
            put(out, *a);
        }
        Op::Vfree(a) => {
            out.push(7);
            put(out, *a);
        }
        Op::Purge => out.push(8),
        Op::Reclaim => out.push(9),
        Op::Pcpu { align, areas } => {
            out.push(10);
            put_all(out, &[*align, areas.len() as u64]);
            for &(o, s) in areas {
                put_all(out, &[o, s]);
            }
        }
        Op::Dump => out.push(11),
        Op::Busy => out.push(12),
        Op::Pools => out.push(13),
        Op::Bump(on) => {
            out.push(14);
            out.push(u8::from(*on));
        }
        Op::Early { size, align, vstart, vend } => {
            out.push(15);
            put_all(out, &[*size, *align, *vstart, *vend]);
        }
        #[cfg(feature = "capture")]
        Op::Follow(f) => encode_follow(out, f),
    }
}

#[cfg(feature = "capture")]
fn encode_follow(out: &mut Vec<u8>, f: &Follow) {
    let keep = |out: &mut Vec<u8>, keep: &[u64]| {
        put(out, keep.len() as u64);
        put_all(out, keep);
    };
    match f {
        Follow::DeferDrain => out.push(32),
        Follow::Shrink => out.push(43),
        Follow::Place { start, end, node } => {
            out.push(33);
            put_all(out, &[*start, *end, node.map_or(0, |n| u64::from(n) + 1)]);
        }
        Follow::Lazy { start, node } => {
            out.push(34);
            put_all(out, &[*start, u64::from(*node)]);
        }
        Follow::Pooled { node, start, size, head, behind } => {
            out.push(match (head, behind) {
                (false, _) => 35,
                (true, 0) => 42,
                (true, _) => 44,
            });
            put_all(out, &[u64::from(*node), *start, *size]);
            if *head && *behind > 0 {
                put(out, u64::from(*behind));
            }
        }
        Follow::Hold { start, end } => {
            out.push(36);
            put_all(out, &[*start, *end]);
        }
        Follow::Release { start } => {
            out.push(37);
            put(out, *start);
        }
        Follow::Unpool { start, size } => {
            out.push(38);
            put_all(out, &[*start, *size]);
        }
        Follow::Alloc { size, align, vstart, vend, addr, mark } => {
            out.push(39);
            put_all(out, &[*size, *align, *vstart, *vend, *addr]);
            out.push(match mark {
                Mark::Equal => 0,
                Mark::Unexplained => 1,
                Mark::Untraced => UNTRACED,
                Mark::Explained(u) => 2 + Unknown::ALL.iter().position(|x| x == u).unwrap_or(0) as u8,
            });
        }
        Follow::Purge { full, behind, stop, keep: k } => {
            out.push(40);
            out.push(u8::from(*full) | u8::from(*behind) << 1);
            match stop {
                None => out.push(0),
                Some(PurgeStop::Decayed(n)) => {
                    out.push(1);
                    put(out, u64::from(*n));
                }
                Some(PurgeStop::Processed(n)) => {
                    out.push(2);
                    put(out, u64::from(*n));
                }
                Some(PurgeStop::Through(a)) => {
                    out.push(3);
                    put(out, *a);
                }
            }
            keep(out, k);
        }
        Follow::PurgeRest { keep: k } => {
            out.push(41);
            keep(out, k);
        }
    }
}

/// A cursor over the input; `op` is the operation being read, for errors.
struct Rd<'a> {
    b: &'a [u8],
    pos: usize,
    op: Option<usize>,
}

impl Rd<'_> {
    fn err(&self, msg: impl Into<String>) -> BytesError {
        self.err_at(self.pos, msg)
    }

    fn err_at(&self, at: usize, msg: impl Into<String>) -> BytesError {
        BytesError { op: self.op, offset: at, msg: msg.into() }
    }

    /// The byte just read was wrong.
    fn bad(&self, msg: impl Into<String>) -> BytesError {
        self.err_at(self.pos - 1, msg)
    }

    fn byte(&mut self) -> Result<u8, BytesError> {
        let b = *self.b.get(self.pos).ok_or_else(|| self.err("the bytes end inside it"))?;
        self.pos += 1;
        Ok(b)
    }

    fn num(&mut self) -> Result<u64, BytesError> {
        let at = self.pos;
        let mut v = 0u64;
        for i in 0..10 {
            let b = self.byte()?;
            // The tenth byte holds bit 63 alone.
            if i == 9 && b > 1 {
                return Err(self.err_at(at, "a number past 64 bits"));
            }
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err_at(at, "a number past 64 bits"))
    }

    fn nums<const N: usize>(&mut self) -> Result<[u64; N], BytesError> {
        let mut out = [0; N];
        for x in &mut out {
            *x = self.num()?;
        }
        Ok(out)
    }

    /// A count of items of at least one byte each: no more than the bytes left.
    fn count(&mut self) -> Result<usize, BytesError> {
        let at = self.pos;
        let n = self.num()?;
        let left = self.b.len() - self.pos;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= left)
            .ok_or_else(|| self.err_at(at, format!("a count of {n} with {left} bytes left")))
    }

    #[cfg(feature = "capture")]
    fn node(&mut self) -> Result<u32, BytesError> {
        let at = self.pos;
        let n = self.num()?;
        crate::capture::follow::node_id(n).map_err(|m| self.err_at(at, m))
    }

    #[cfg(feature = "capture")]
    fn addrs(&mut self) -> Result<Vec<u64>, BytesError> {
        let n = self.count()?;
        (0..n).map(|_| self.num()).collect()
    }
}

/// The operations of [`encode`]'s bytes; all or nothing.
pub fn decode(b: &[u8]) -> Result<Vec<Op>, BytesError> {
    let mut r = Rd { b, pos: 0, op: None };
    if b.len() < MAGIC.len() + 1 || &b[..MAGIC.len()] != MAGIC {
        return Err(r.err("not operations as bytes (no `vmop` header)"));
    }
    r.pos = MAGIC.len();
    let v = r.byte()?;
    if v != VERSION {
        return Err(r.bad(format!("version {v}; this core reads version {VERSION}")));
    }
    let n = r.count()?;
    let mut ops = Vec::with_capacity(n);
    for k in 0..n {
        r.op = Some(k);
        ops.push(decode_op(&mut r)?);
    }
    r.op = None;
    if r.pos != b.len() {
        return Err(r.err(format!("{} bytes after the last operation", b.len() - r.pos)));
    }
    Ok(ops)
}

fn decode_op(r: &mut Rd<'_>) -> Result<Op, BytesError> {
    let tag = r.byte()?;
    Ok(match tag {
        0 => {
            let n = r.count()?;
            let name = &r.b[r.pos..r.pos + n];
            let p = std::str::from_utf8(name).ok().and_then(Profile::parse);
            let p = p.ok_or_else(|| r.err(format!("unknown profile `{}`", quote(&String::from_utf8_lossy(name)))))?;
            r.pos += n;
            Op::Profile(p)
        }
        1 => {
            let [start, end] = r.nums()?;
            Op::Init { start, end }
        }
        2 => Op::Cpus(r.num()?),
        3 => Op::Online(r.num()?),
        4 => Op::Cpu(r.num()?),
        5 => {
            let [size, align, vstart, vend] = r.nums()?;
            Op::Alloc { size, align, vstart, vend }
        }
        6 => Op::Free(r.num()?),
        7 => Op::Vfree(r.num()?),
        8 => Op::Purge,
        9 => Op::Reclaim,
        10 => {
            let align = r.num()?;
            let n = r.count()?;
            if n == 0 {
                return Err(r.err("`pcpu` takes at least one OFFSET:SIZE"));
            }
            let areas = (0..n).map(|_| r.nums::<2>().map(|[o, s]| (o, s))).collect::<Result<_, _>>()?;
            Op::Pcpu { align, areas }
        }
        11 => Op::Dump,
        12 => Op::Busy,
        13 => Op::Pools,
        14 => match r.byte()? {
            0 => Op::Bump(false),
            1 => Op::Bump(true),
            x => return Err(r.bad(format!("`bump` is on or off, not {x}"))),
        },
        15 => {
            let [size, align, vstart, vend] = r.nums()?;
            Op::Early { size, align, vstart, vend }
        }
        #[cfg(feature = "capture")]
        32..=44 => Op::Follow(Box::new(decode_follow(r, tag)?)),
        #[cfg(not(feature = "capture"))]
        32..=44 => {
            return Err(r.bad("a line that follows a kernel's capture: this build of the core has no capture replay"))
        }
        x => return Err(r.bad(format!("unknown operation tag {x}"))),
    })
}

#[cfg(feature = "capture")]
fn decode_follow(r: &mut Rd<'_>, tag: u8) -> Result<Follow, BytesError> {
    Ok(match tag {
        32 => Follow::DeferDrain,
        43 => Follow::Shrink,
        33 => {
            let [start, end] = r.nums()?;
            let at = r.pos;
            let node = match r.num()? {
                0 => None,
                n => Some(crate::capture::follow::node_id(n - 1).map_err(|m| r.err_at(at, m))?),
            };
            Follow::Place { start, end, node }
        }
        34 => {
            let start = r.num()?;
            Follow::Lazy { start, node: r.node()? }
        }
        35 | 42 | 44 => {
            let node = r.node()?;
            let [start, size] = r.nums()?;
            let at = r.pos;
            let behind = if tag == 44 { r.num()? } else { 0 };
            let behind = u32::try_from(behind).map_err(|_| r.err_at(at, "`behind`: too many entries"))?;
            Follow::Pooled { node, start, size, head: tag != 35, behind }
        }
        36 => {
            let [start, end] = r.nums()?;
            Follow::Hold { start, end }
        }
        37 => Follow::Release { start: r.num()? },
        38 => {
            let [start, size] = r.nums()?;
            Follow::Unpool { start, size }
        }
        39 => {
            let [size, align, vstart, vend, addr] = r.nums()?;
            let mark = match r.byte()? {
                0 => Mark::Equal,
                1 => Mark::Unexplained,
                UNTRACED => Mark::Untraced,
                m => Mark::Explained(
                    *Unknown::ALL.get(usize::from(m) - 2).ok_or_else(|| r.bad(format!("unknown mark {m}")))?,
                ),
            };
            Follow::Alloc { size, align, vstart, vend, addr, mark }
        }
        40 => {
            let flags = r.byte()?;
            if flags > 3 {
                return Err(r.bad(format!("purge flags {flags:#x}")));
            }
            let full = flags & 1 != 0;
            let stop = match r.byte()? {
                0 => None,
                1 => Some(PurgeStop::Decayed(r.node()?)),
                2 => Some(PurgeStop::Processed(r.node()?)),
                3 => Some(PurgeStop::Through(r.num()?)),
                s => return Err(r.bad(format!("unknown purge stop {s}"))),
            };
            if full && stop.is_some() {
                return Err(r.err("`reclaim` takes no stop: a full decay's purge is not split"));
            }
            Follow::Purge { full, behind: flags & 2 != 0, stop, keep: r.addrs()? }
        }
        _ => Follow::PurgeRest { keep: r.addrs()? },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse_trace;

    /// Every command of the trace language (and every follow line and mark with the capture
    /// replay), with numbers at the ends of their ranges.
    fn every_op() -> Vec<Op> {
        let mut text = String::from(
            "profile linux-6.18\ncpus 4\nonline 2\ncpu 3\ninit 0x1000 0xffffffffffffffff\n\
             alloc 0x2000 0x1 0xffffc90000000000 0xffffe8ffffffffff\nfree 0x0\nvfree 0xffffffffffffffff\n\
             purge\nreclaim\npcpu 0x1000 0x0:0x2000 0x100000:0x1000\ndump\nbusy\npools\nbump on\nbump off\n\
             early 0x1000 0x1000 0x1000 0x80000000\n",
        );
        if cfg!(feature = "capture") {
            text.push_str(
                "defer-drain\nplace 0x1000 0x3000\nplace 0x1000 0x3000 node 65535\nlazy 0x5000 node 1\n\
                 pooled 1 0x7000 0x2000\npooled 0 0x7000 0x2000 head\npooled 0 0x7000 0x2000 behind 300\nhold 0x9000 0xb000\nrelease 0x9000\nunpool 0x7000 0x2000\n\
                 alloc 0x2000 0x1 0x1000 0x100000 = 0x4000\nalloc 0x2000 0x1 0x1000 0x100000 = 0x4000 unexplained\n\
                 purge behind decayed 0 keep 0x5000 0x6000\npurge upto 1\npurge through 0xffffc90000004000\n\
                 reclaim keep 0x1000\npurge behind\npurge-rest\npurge-rest keep 0x9000\nshrink\n",
            );
            #[cfg(feature = "capture")]
            for u in Unknown::ALL {
                text.push_str(&format!("alloc 0x1000 0x1000 0x0 0x10000 = 0x3000 explained {}\n", u.name()));
            }
        }
        parse_trace(&text).unwrap().into_iter().map(|l| l.op).collect()
    }

    #[test]
    fn every_operation_comes_back() {
        let ops = every_op();
        let b = encode(ops.iter());
        assert_eq!(decode(&b).unwrap(), ops);
        // And prints as the text it was parsed from.
        assert_eq!(crate::trace::format_trace(&decode(&b).unwrap()), crate::trace::format_trace(&ops));
        assert_eq!(decode(&encode([].iter())).unwrap(), Vec::<Op>::new());
    }

    /// Every cut of the bytes, and every byte changed to each of a few values: an error or
    /// some operations, never a panic; a cut is always an error (the count says more follow).
    #[test]
    fn damaged_bytes_are_refused_without_panic() {
        let b = encode(every_op().iter());
        for cut in 0..b.len() {
            let e = decode(&b[..cut]).unwrap_err();
            assert!(e.offset <= cut, "cut {cut}: {e}");
        }
        for i in 0..b.len() {
            for x in [0u8, 1, 2, 0x7f, 0x80, 0xff] {
                let mut d = b.clone();
                d[i] = x;
                let _ = decode(&d);
            }
        }
        let mut long = b.clone();
        long.push(0);
        assert_eq!(
            decode(&long).unwrap_err().to_string(),
            format!("byte {}: 1 bytes after the last operation", b.len())
        );
    }

    #[test]
    fn errors_name_the_operation_and_the_byte() {
        assert_eq!(decode(b"text").unwrap_err().to_string(), "byte 0: not operations as bytes (no `vmop` header)");
        assert_eq!(decode(b"vmop\x02\x00").unwrap_err().to_string(), "byte 4: version 2; this core reads version 1");
        // A count larger than the bytes left is refused before anything is allocated.
        let e = decode(b"vmop\x01\xff\xff\xff\xff\x0f").unwrap_err();
        assert_eq!(e.to_string(), "byte 5: a count of 4294967295 with 0 bytes left");
        // The second operation's tag.
        assert_eq!(
            decode(b"vmop\x01\x02\x08\x63").unwrap_err().to_string(),
            "operation 2 (byte 7): unknown operation tag 99"
        );
        // Eleven bytes of a number.
        let e = decode(b"vmop\x01\x01\x06\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f").unwrap_err();
        assert_eq!(e.to_string(), "operation 1 (byte 7): a number past 64 bits");
        assert_eq!(
            decode(b"vmop\x01\x01\x00\x03abc").unwrap_err().to_string(),
            "operation 1 (byte 8): unknown profile `abc`"
        );
    }

    #[cfg(feature = "capture")]
    #[test]
    fn follow_lines_are_checked_as_the_parser_checks_them() {
        // `lazy 0x1000 node 65536`: the parser's range.
        let e = decode(b"vmop\x01\x01\x22\x80\x20\x80\x80\x04").unwrap_err();
        assert_eq!(e.to_string(), "operation 1 (byte 9): node 65536 is out of range");
        // `reclaim upto 0`, which the parser refuses too.
        let e = decode(b"vmop\x01\x01\x28\x01\x02\x00\x00").unwrap_err();
        assert!(e.to_string().contains("`reclaim` takes no stop"), "{e}");
        assert!(parse_trace("reclaim upto 0\n").is_err());
    }
}
