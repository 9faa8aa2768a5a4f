//! Replaying a trace: apply each operation and print what the kernel's code prints.

use std::fmt::Write;

use crate::addr::Addr;
use crate::area::NIL;
use crate::capture::oracle::Steered;
use crate::era::with_era;
use crate::era::Vmap;
use crate::error::VmapError;
use crate::events::{Event, Observer};
use crate::profile::{Profile, ANY};
use crate::trace::{Op, TraceLine};

/// One era's loop of [`Replayer::run`] (`Replayer::run_as::<P, O>`).
type RunAs<O> = fn(&mut Replayer, &[TraceLine], &mut String, &mut O) -> Result<usize, ReplayError>;

/// A replay that had to stop: the line and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplayError {
    pub line: usize,
    pub msg: String,
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Line 0 is the input as a whole (its size): no line to name.
        if self.line == 0 {
            return f.write_str(&self.msg);
        }
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

impl std::error::Error for ReplayError {}

impl ReplayError {
    /// `e` at trace line `line`.
    pub fn at(line: usize, e: impl std::fmt::Display) -> Self {
        ReplayError { line, msg: e.to_string() }
    }
}

/// The outcome of one operation, besides its printed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report (settings, prints).
    Done,
    /// The kernel answered with a warning or failure, state unchanged (or purged, as it does).
    Warned(VmapError),
}

/// Holds an allocator and applies trace operations to it.
#[derive(Clone, Debug)]
pub struct Replayer {
    /// The model, with what a capture's lines steer beside it.
    pub vmap: Steered,
}

impl Default for Replayer {
    fn default() -> Self {
        Self::new(Profile::default())
    }
}

impl Replayer {
    pub fn new(profile: Profile) -> Self {
        Replayer { vmap: Steered::new(profile) }
    }

    /// Apply one operation, appending its output lines to `out`. An `Err` means the kernel
    /// would crash (BUG) or the request is outside the model; the state is then unchanged.
    ///
    /// Natively, `alloc` and `free` (nearly every line of a workload) are tested for first, each
    /// with a compare and a branch: one `match` over every kind of line compiles to an indirect
    /// jump through a table, which a run that alternates or mixes the two mispredicts
    /// (fixed_s44: 66.6 -> 63.5 ns/op). In wasm the two forms run alike, and the single `match`
    /// is the smaller.
    #[inline(always)]
    pub fn apply<O: Observer>(&mut self, op: &Op, out: &mut String, obs: &mut O) -> Result<Outcome, VmapError> {
        #[cfg(not(target_arch = "wasm32"))]
        match *op {
            Op::Alloc { size, align, vstart, vend } => {
                self.vmap.ensure_init();
                return self.apply_alloc::<ANY, O>(size, align, vstart, vend, out, obs);
            }
            Op::Free(a) => {
                self.vmap.ensure_init();
                return self.apply_free::<ANY, O>(a, out, obs);
            }
            _ => {}
        }
        self.apply_any(op, out, obs)
    }

    /// `alloc SIZE ALIGN VSTART VEND`, on a booted allocator ([`Vmap::ensure_init`]).
    #[inline(always)]
    fn apply_alloc<const P: u8, O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        out: &mut String,
        obs: &mut O,
    ) -> Result<Outcome, VmapError> {
        match self.vmap.alloc_booted::<P, O>(size, align, vstart, vend, obs) {
            Ok(a) => push_line(out, "alloc -> ", a, "\n"),
            Err(e) => {
                if e.is_kernel_bug() {
                    return Err(e);
                }
                out.push_str("alloc -> FAIL\n");
                return Ok(Outcome::Warned(e));
            }
        }
        Ok(Outcome::Done)
    }

    /// `free ADDR`, on a booted allocator.
    #[inline(always)]
    fn apply_free<const P: u8, O: Observer>(
        &mut self,
        a: u64,
        out: &mut String,
        obs: &mut O,
    ) -> Result<Outcome, VmapError> {
        match self.vmap.free_booted::<P, O>(a, obs) {
            Ok(()) => push_line(out, "free ", a, " ok\n"),
            Err(e) => {
                push_line(out, "free ", a, " unknown\n");
                return if e.is_kernel_bug() { Err(e) } else { Ok(Outcome::Warned(e)) };
            }
        }
        Ok(Outcome::Done)
    }

    /// [`Replayer::apply`] for any line (natively: for every line but `alloc` and `free`).
    #[cfg_attr(not(target_arch = "wasm32"), inline(never))]
    #[cfg_attr(target_arch = "wasm32", inline(always))]
    fn apply_any<O: Observer>(&mut self, op: &Op, out: &mut String, obs: &mut O) -> Result<Outcome, VmapError> {
        let v = &mut self.vmap;
        let warn = |e: VmapError| if e.is_kernel_bug() { Err(e) } else { Ok(Outcome::Warned(e)) };
        match *op {
            Op::Profile(p) => {
                let cpus = v.cpus;
                *v = Steered::new(p);
                v.cpus = cpus;
            }
            Op::Init { start, end } => {
                v.init(start, end)?;
                if O::ON {
                    obs.event(Event::Reset { start: Addr(start), end: Addr(end) }, v.index_view());
                }
            }
            Op::Cpus(n) => v.set_cpus(n)?,
            Op::Online(n) => v.set_online(n)?,
            Op::Cpu(n) => v.set_cpu(n)?,
            Op::Alloc { size, align, vstart, vend } => {
                self.vmap.ensure_init();
                return self.apply_alloc::<ANY, O>(size, align, vstart, vend, out, obs);
            }
            Op::Free(a) => {
                self.vmap.ensure_init();
                return self.apply_free::<ANY, O>(a, out, obs);
            }
            Op::Vfree(a) => match v.vfree(a, obs) {
                Ok(()) => push_line(out, "vfree ", a, " ok\n"),
                Err(e) => {
                    push_line(out, "vfree ", a, " unknown\n");
                    return warn(e);
                }
            },
            Op::Purge => {
                let r = v.purge(obs);
                let _ = writeln!(out, "purge {}", r.entries);
            }
            Op::Reclaim => {
                let r = v.reclaim(obs);
                let _ = writeln!(out, "reclaim {}", r.entries);
            }
            Op::Pcpu { align, ref areas } => {
                let offs: Vec<u64> = areas.iter().map(|a| a.0).collect();
                let sizes: Vec<u64> = areas.iter().map(|a| a.1).collect();
                match v.pcpu_get_vm_areas(&offs, &sizes, align, obs) {
                    Ok(addrs) => {
                        out.push_str("pcpu ->");
                        for a in addrs {
                            let _ = write!(out, " {a:#x}");
                        }
                        out.push('\n');
                    }
                    Err(e) => {
                        if e.is_kernel_bug() {
                            return Err(e);
                        }
                        out.push_str("pcpu -> FAIL\n");
                        return Ok(Outcome::Warned(e));
                    }
                }
            }
            Op::Dump => {
                v.ensure_init();
                match v.era.maple_mut() {
                    Some(r) => r.dump(out),
                    None => dump_free_tree(v, out),
                }
            }
            Op::Busy => {
                v.ensure_init();
                match v.era.maple_mut() {
                    Some(r) => r.busy(out),
                    None => dump_busy(v, out),
                }
            }
            Op::Bump(on) => {
                if !v.set_bump(on) {
                    return Err(VmapError::Unsupported {
                        why: format!("`bump` is a maple-rfc line; this trace runs {}", v.profile),
                    });
                }
            }
            Op::Early { size, align, vstart, vend } => {
                v.ensure_init();
                let Some(r) = v.era.maple_mut() else {
                    return Err(VmapError::Unsupported {
                        why: format!("`early` is a maple-rfc line; this trace runs {}", v.profile),
                    });
                };
                match r.alloc_early(size, align, vstart, vend) {
                    Ok(a) => push_line(out, "early -> ", a, "\n"),
                    Err(e) => {
                        if e.is_kernel_bug() {
                            return Err(e);
                        }
                        out.push_str("early -> FAIL\n");
                        return Ok(Outcome::Warned(e));
                    }
                }
            }
            Op::Pools => {
                v.ensure_init();
                dump_pools(v, out);
            }
            #[cfg(feature = "capture")]
            Op::Follow(ref f) => return crate::capture::follow::apply(v, f, out, obs),
        }
        Ok(Outcome::Done)
    }

    /// Replay a parsed trace; stops at the first operation the kernel would crash on.
    ///
    /// The lines are applied as by [`Replayer::apply`], but each run of `alloc` and `free`
    /// lines goes through a loop compiled for the profile's era (see [`crate::profile::ANY`]):
    /// they test neither the profile nor its search rule, as the kernel, built for one
    /// version, does not. Every other line is applied here, between runs (a `profile` line
    /// among them: the next run is compiled for the new era).
    pub fn run<O: Observer>(&mut self, lines: &[TraceLine], out: &mut String, obs: &mut O) -> Result<(), ReplayError> {
        let mut at = 0;
        while at < lines.len() {
            let rest = &lines[at..];
            let run_as: RunAs<O> = with_era!(self.vmap.profile(), _E, ID => Self::run_as::<ID, O>);
            // Called through a pointer the optimisers cannot see through: wasm-opt inlines every
            // function with one caller, `inline(never)` or not, and so made the six eras' loops
            // one function, whose registers V8 then spilled on every operation.
            at += std::hint::black_box(run_as)(self, rest, out, obs)?;
            if let Some(l) = lines.get(at) {
                self.apply_any(&l.op, out, obs).map_err(|e| ReplayError::at(l.line, e))?;
                at += 1;
            }
        }
        Ok(())
    }

    /// [`Replayer::run`]'s `alloc` and `free` lines under the era `P`, up to the first other
    /// line: how many it applied. (The other lines out of it leave a smaller loop: 3 to 6
    /// fewer instructions per operation on the four perf traces.)
    #[inline(never)]
    fn run_as<const P: u8, O: Observer>(
        &mut self,
        lines: &[TraceLine],
        out: &mut String,
        obs: &mut O,
    ) -> Result<usize, ReplayError> {
        // Booted once for the run (not before a first line that is not one of its own: an
        // `init` there must come first).
        if lines.first().is_some_and(|l| matches!(l.op, Op::Alloc { .. } | Op::Free(_))) {
            self.vmap.ensure_init();
        }
        for (i, l) in lines.iter().enumerate() {
            let done = match l.op {
                Op::Alloc { size, align, vstart, vend } => {
                    self.apply_alloc::<P, O>(size, align, vstart, vend, out, obs)
                }
                Op::Free(a) => self.apply_free::<P, O>(a, out, obs),
                _ => return Ok(i),
            };
            done.map_err(|e| ReplayError::at(l.line, e))?;
        }
        Ok(lines.len())
    }
}

/// Append `0x` and the lower-case hex digits of `v` (what `{:#x}` prints, without the
/// formatting machinery: replay output is on the hot path of `--bench`).
#[inline]
pub fn push_hex(out: &mut String, v: u64) {
    push_line(out, "", v, "");
}

/// The 16 lower-case hex digits of `v`, most significant first.
///
/// x86_64 with SSE2 (part of its baseline): the eight bytes are split into sixteen nibbles in one
/// register (high nibble of each byte first), and every nibble becomes ASCII at once with one
/// compare and two adds: about a dozen instructions where the portable version takes sixty.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn hex16(v: u64) -> [u8; 16] {
    use std::arch::x86_64::*;
    // SAFETY: these intrinsics only need SSE2, which this build enables (the `cfg` above; it
    // is part of every x86_64 target's baseline). None of them touches memory.
    unsafe {
        // Most significant byte first, in lane 0.
        let b = _mm_cvtsi64_si128(v.swap_bytes() as i64);
        let low4 = _mm_set1_epi8(0x0f);
        let hi = _mm_and_si128(_mm_srli_epi16::<4>(b), low4);
        let lo = _mm_and_si128(b, low4);
        // Lane 2k: the high nibble of byte k; lane 2k+1: its low nibble.
        let nib = _mm_unpacklo_epi8(hi, lo);
        // 'a' - '0' - 10 = 39 more for the nibbles past 9.
        let letter = _mm_and_si128(_mm_cmpgt_epi8(nib, _mm_set1_epi8(9)), _mm_set1_epi8(39));
        let ascii = _mm_add_epi8(_mm_add_epi8(nib, _mm_set1_epi8(b'0' as i8)), letter);
        std::mem::transmute::<__m128i, [u8; 16]>(ascii)
    }
}

/// wasm with 128-bit SIMD (see .cargo/config.toml), shaped for what V8 emits on x86_64.
/// wasm has no byte swap (V8 spelled `swap_bytes` out in about 30 instructions) and no unsigned
/// byte compare; a shuffle of two vectors is two `pshufb` and an `or`, and each 128-bit
/// constant costs about four instructions at its use. So: one shuffle of one vector puts each
/// byte, most significant first, in two lanes; 16-bit shifts and masks leave its high nibble
/// in the first and its low nibble in the second; a table lookup (`swizzle`) makes the digits.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn hex16(v: u64) -> [u8; 16] {
    use std::arch::wasm32::*;
    // Lane 0: the least significant byte.
    let b = u64x2(v, 0);
    // Lanes 2k and 2k+1: byte 7 - k.
    let w = i8x16_shuffle::<7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0>(b, b);
    // Per 16-bit lane (its low byte first) holding byte B twice: B >> 4 in the low byte, B & 15
    // in the high one.
    let nib = v128_or(v128_and(u16x8_shr(w, 4), u16x8_splat(0x000f)), v128_and(w, u16x8_splat(0x0f00)));
    let table = u8x16(b'0', b'1', b'2', b'3', b'4', b'5', b'6', b'7', b'8', b'9', b'a', b'b', b'c', b'd', b'e', b'f');
    let ascii = i8x16_swizzle(table, nib);
    let mut d = [0u8; 16];
    // SAFETY: a v128 store of 16 bytes into a 16-byte array (no alignment needed).
    unsafe { v128_store(d.as_mut_ptr().cast::<v128>(), ascii) };
    d
}

#[cfg(not(any(
    all(target_arch = "x86_64", target_feature = "sse2"),
    all(target_arch = "wasm32", target_feature = "simd128")
)))]
#[inline(always)]
fn hex16(v: u64) -> [u8; 16] {
    hex16_swar(v)
}

/// The portable [`hex16`] (targets without SSE2 or wasm SIMD), eight digits at a time (SWAR: each nibble
/// is spread into its own byte, then turned into ASCII with adds).
#[cfg_attr(
    any(all(target_arch = "x86_64", target_feature = "sse2"), all(target_arch = "wasm32", target_feature = "simd128")),
    allow(dead_code)
)]
#[inline(always)]
fn hex16_swar(v: u64) -> [u8; 16] {
    /// Nibble `k` of `x` into byte `k` of the result (`k = 0` lowest).
    #[inline(always)]
    fn spread(x: u32) -> u64 {
        let mut v = u64::from(x);
        v = (v | (v << 16)) & 0x0000_ffff_0000_ffff;
        v = (v | (v << 8)) & 0x00ff_00ff_00ff_00ff;
        (v | (v << 4)) & 0x0f0f_0f0f_0f0f_0f0f
    }
    /// Each byte 0..=15 to `'0'..='9'`, `'a'..='f'` (no carry leaves a byte: at most 0x66).
    #[inline(always)]
    fn ascii(n: u64) -> u64 {
        let letter = ((n + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
        n + 0x3030_3030_3030_3030 + letter * 0x27
    }
    let hi = ascii(spread((v >> 32) as u32)).to_be_bytes();
    let lo = ascii(spread(v as u32)).to_be_bytes();
    let mut d = [0u8; 16];
    d[..8].copy_from_slice(&hi);
    d[8..].copy_from_slice(&lo);
    d
}

/// Append `prefix`, `0x` and the hex digits of `v`, and `suffix` as one line, written
/// straight into the string's spare capacity with fixed-size moves (the lengths are constants
/// once inlined), with no UTF-8 validation of bytes written here.
#[inline(always)]
pub fn push_line(out: &mut String, prefix: &str, v: u64, suffix: &str) {
    /// Spare capacity reserved per line: room for the longest line written below.
    const CAP: usize = 64;
    let (p, s) = (prefix.as_bytes(), suffix.as_bytes());
    // The 16 digits are stored whole (only the first `n` are kept), so the suffix and the
    // digits' tail both fit in CAP bytes.
    if p.len() + 2 + 16 + s.len() > CAP {
        out.push_str(prefix);
        out.push_str(&format!("{v:#x}"));
        out.push_str(suffix);
        return;
    }
    // Significant digits (at least one, for 0), shifted to the top of `v` first, so that
    // they lead the 16 (a 64-bit shift: wasm has no 128-bit one to shift the digits by).
    let n = (64 - (v | 1).leading_zeros()).div_ceil(4) as usize;
    let digits = hex16(v << (64 - 4 * n));
    let at = p.len() + 2;
    let len = at + n + s.len();
    out.reserve(CAP);
    // SAFETY: `reserve` left at least CAP bytes of spare capacity after `old`, and every write
    // below ends at most `p.len() + 2 + 16 + s.len() <= CAP` bytes past `old` (checked above),
    // so all of them stay inside the allocation; `len <= CAP` too, so the new length is within
    // the capacity. The bytes that become part of the string, `old..old + len`, are `prefix` (a
    // whole `&str`), ASCII (`0x` and the first `n` bytes of `digits`, all from `hex16`:
    // 0x30..=0x39, 0x61..=0x66; the suffix overwrites the rest) and `suffix` (a whole `&str`),
    // end to end: a concatenation of valid UTF-8 is valid UTF-8.
    unsafe {
        let vec = out.as_mut_vec();
        let old = vec.len();
        let dst = vec.as_mut_ptr().add(old);
        std::ptr::copy_nonoverlapping(p.as_ptr(), dst, p.len());
        std::ptr::copy_nonoverlapping(b"0x".as_ptr(), dst.add(p.len()), 2);
        std::ptr::copy_nonoverlapping(digits.as_ptr(), dst.add(at), 16);
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst.add(at + n), s.len());
        vec.set_len(old + len);
        debug_assert!(std::str::from_utf8(&vec[old..]).is_ok());
    }
}

/// `dump`: the free tree in pre-order with colour and depth.
pub fn dump_free_tree(v: &Vmap, out: &mut String) {
    let a = &v.arena;
    let mut stack = Vec::new();
    if v.free.root != NIL {
        stack.push((v.free.root, 0u32));
    }
    while let Some((n, d)) = stack.pop() {
        let x = a.get(n);
        let c = if x.is_black() { 'B' } else { 'R' };
        let _ = writeln!(out, "node {:#x} {:#x} {:#x} {c} depth={d}", x.va_start, x.va_end, x.subtree_max_size());
        if x.right != NIL {
            stack.push((x.right, d + 1));
        }
        if x.left != NIL {
            stack.push((x.left, d + 1));
        }
    }
    out.push_str("end\n");
}

/// `busy`: busy areas (and lazy ones) in the profile's format.
pub fn dump_busy(v: &Vmap, out: &mut String) {
    match v.profile {
        p if p.has_vmap_nodes() => {
            for (nid, n) in v.nodes.iter().enumerate() {
                let _ = writeln!(out, "node {nid}");
                for (_, x) in n.busy.iter(&v.arena) {
                    let _ = writeln!(out, "busy {:#x} {:#x}", x.va_start, x.va_end);
                }
                for (_, x) in n.lazy.iter(&v.arena) {
                    let _ = writeln!(out, "lazy {:#x} {:#x}", x.va_start, x.va_end);
                }
            }
        }
        _ => {
            for (info, lazy) in v.busy_areas(0) {
                let _ =
                    writeln!(out, "busy {:#x} {:#x}{}", info.va_start, info.va_end, if lazy { " lazy" } else { "" });
            }
            for info in v.lazy_areas() {
                let _ = writeln!(out, "lazy {:#x} {:#x}", info.va_start, info.va_end);
            }
        }
    }
    out.push_str("end\n");
}

/// `pools`: every non-empty pool, entries in pool order.
pub fn dump_pools(v: &Vmap, out: &mut String) {
    for (nid, idx, entries) in v.pools() {
        let _ = write!(out, "pool {nid} {idx} {}", entries.len());
        for e in entries {
            let _ = write!(out, " {:#x}-{:#x}", e.va_start, e.va_end);
        }
        out.push('\n');
    }
    out.push_str("end\n");
}

#[cfg(test)]
mod tests {
    use super::{hex16, hex16_swar, push_hex};
    use crate::trace::parse_trace_limited;

    /// An input refused as a whole (its size) names no line: "line 0:" read as a line of the
    /// trace in the page's link messages.
    #[test]
    fn a_size_refusal_names_no_line() {
        let e = parse_trace_limited("purge\npurge\n", 8).unwrap_err();
        assert_eq!(e.to_string(), "the trace is 12 bytes; the limit is 0 MiB");
        let e = parse_trace_limited("purge\nallok\n", 100).unwrap_err();
        assert!(e.to_string().starts_with("line 2: "), "{e}");
    }

    /// Both digit routines (the one this target runs and the portable one) give the
    /// formatter's 16 digits. (The wasm build's SIMD routine runs in the page's builds: the
    /// contract test replays every conformance vector through them, byte for byte.)
    #[test]
    fn hex16_both_ways_match_the_formatter() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut vals = vec![0u64, 9, 10, 0xf0f0_f0f0_0f0f_0f0f, u64::MAX];
        for k in 0..64 {
            vals.push(1 << k);
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            vals.push(x);
        }
        for v in vals {
            let want = format!("{v:016x}");
            assert_eq!(&hex16(v), want.as_bytes(), "{v:#x}");
            assert_eq!(&hex16_swar(v), want.as_bytes(), "{v:#x} (portable)");
        }
    }

    #[test]
    fn push_hex_prints_like_the_formatter() {
        // Every digit count: each power of 16 and the number just below it.
        let edges = (0..16).flat_map(|k| [1u64 << (4 * k), (1u64 << (4 * k)).wrapping_sub(1)]);
        for v in edges.chain([0xf, 0xffffc90000000000, u64::MAX, 0x1234_5678_9abc_def0, 0xa0b0_c0d0_e0f0_0001]) {
            let mut s = String::new();
            push_hex(&mut s, v);
            assert_eq!(s, format!("{v:#x}"));
        }
    }
}
