//! Replaying a trace: apply each operation and print what the kernel's code prints.

use std::fmt::Write;

use crate::addr::Addr;
use crate::area::NIL;
use crate::capture::oracle::Steered;
use crate::era::with_era;
use crate::era::Vmap;
pub use crate::error::Outcome;
use crate::error::VmapError;
use crate::events::{Event, Observer};
use crate::profile::{Profile, ANY};
pub use crate::text::{push_hex, push_line};
use crate::text::{push_line_reserved, LINE_ROOM};
use crate::trace::{Op, TraceLine};

/// One era's loop of [`Replayer::run`] (`Replayer::run_as::<P, O>`).
type RunAs<O> = fn(&mut Replayer, &[TraceLine], &mut String, &mut O) -> Result<usize, ReplayError>;

/// Lines of a run of `alloc` and `free` lines ([`Replayer::run_as`]) the output's room is
/// reserved for at once: 16 KiB.
const RUN_BLOCK: usize = 256;

/// [`push_line`], into room reserved beforehand when `RESERVED`.
///
/// # Safety
///
/// With `RESERVED`, `out` has at least [`LINE_ROOM`] bytes of spare capacity.
#[inline(always)]
unsafe fn put<const RESERVED: bool>(out: &mut String, prefix: &str, v: u64, suffix: &str) {
    if RESERVED {
        // SAFETY: the caller's.
        unsafe { push_line_reserved(out, prefix, v, suffix) }
    } else {
        push_line(out, prefix, v, suffix)
    }
}

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
                // SAFETY: not `RESERVED`.
                return unsafe { self.apply_alloc::<ANY, false, O>(size, align, vstart, vend, out, obs) };
            }
            Op::Free(a) => {
                self.vmap.ensure_init();
                // SAFETY: not `RESERVED`.
                return unsafe { self.apply_free::<ANY, false, O>(a, out, obs) };
            }
            _ => {}
        }
        self.apply_any(op, out, obs)
    }

    /// `alloc SIZE ALIGN VSTART VEND`, on a booted allocator ([`Vmap::ensure_init`]). It
    /// writes one line of at most [`LINE_ROOM`] bytes; `RESERVED`: into room the caller
    /// reserved ([`push_line_reserved`]).
    ///
    /// # Safety
    ///
    /// With `RESERVED`, `out` has at least [`LINE_ROOM`] bytes of spare capacity.
    #[inline(always)]
    unsafe fn apply_alloc<const P: u8, const RESERVED: bool, O: Observer>(
        &mut self,
        size: u64,
        align: u64,
        vstart: u64,
        vend: u64,
        out: &mut String,
        obs: &mut O,
    ) -> Result<Outcome, VmapError> {
        match self.vmap.alloc_booted::<P, O>(size, align, vstart, vend, obs) {
            // SAFETY: the caller's (`put`).
            Ok(a) => unsafe { put::<RESERVED>(out, "alloc -> ", a, "\n") },
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

    /// `free ADDR`, on a booted allocator; one line, as [`Replayer::apply_alloc`].
    ///
    /// # Safety
    ///
    /// As [`Replayer::apply_alloc`]'s.
    #[inline(always)]
    unsafe fn apply_free<const P: u8, const RESERVED: bool, O: Observer>(
        &mut self,
        a: u64,
        out: &mut String,
        obs: &mut O,
    ) -> Result<Outcome, VmapError> {
        match self.vmap.free_booted::<P, O>(a, obs) {
            // SAFETY: the caller's (`put`).
            Ok(()) => unsafe { put::<RESERVED>(out, "free ", a, " ok\n") },
            Err(e) => {
                // SAFETY: the caller's (`put`).
                unsafe { put::<RESERVED>(out, "free ", a, " unknown\n") };
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
                // SAFETY: not `RESERVED`.
                return unsafe { self.apply_alloc::<ANY, false, O>(size, align, vstart, vend, out, obs) };
            }
            Op::Free(a) => {
                self.vmap.ensure_init();
                // SAFETY: not `RESERVED`.
                return unsafe { self.apply_free::<ANY, false, O>(a, out, obs) };
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
            Op::Follow(ref f) => return crate::capture::apply::follow(v, f, out, obs),
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
        // Each line writes one line of output at most, of at most LINE_ROOM bytes: the room
        // is reserved once a block, not tested at every line.
        let mut base = 0;
        for block in lines.chunks(RUN_BLOCK) {
            out.reserve(LINE_ROOM * block.len());
            for (i, l) in block.iter().enumerate() {
                // SAFETY: the reserve above left LINE_ROOM bytes for each line of the block
                // still to come, and each line writes at most that.
                let done = match l.op {
                    Op::Alloc { size, align, vstart, vend } => unsafe {
                        self.apply_alloc::<P, true, O>(size, align, vstart, vend, out, obs)
                    },
                    Op::Free(a) => unsafe { self.apply_free::<P, true, O>(a, out, obs) },
                    _ => return Ok(base + i),
                };
                done.map_err(|e| ReplayError::at(l.line, e))?;
            }
            base += block.len();
        }
        Ok(lines.len())
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
    use super::{Replayer, RUN_BLOCK};
    use crate::events::NoObserver;
    use crate::profile::Profile;
    use crate::trace::{parse_trace, parse_trace_limited};

    /// A run of `alloc` and `free` lines longer than two blocks of reserved room, with a line
    /// of another kind inside it, writes every line whole: one-page requests from the window's
    /// start land one after another (the lowest fit: each is the free block's first page), and
    /// each free of one of them is `ok`, of an address never allocated `unknown`.
    #[test]
    fn a_run_over_several_blocks_writes_every_line() {
        const START: u64 = 0xffff_c900_0000_0000;
        let n = 2 * RUN_BLOCK as u64 + 5;
        let mut text = String::new();
        let mut want = String::new();
        for k in 0..n {
            text += "alloc 0x1000 0x1 0xffffc90000000000 0xffffe8ffffffffff\n";
            want += &format!("alloc -> {:#x}\n", START + 0x1000 * k);
            if k == RUN_BLOCK as u64 - 1 {
                text += "purge\n";
                want += "purge 0\n";
            }
        }
        for k in 0..n {
            text += &format!("free {:#x}\n", START + 0x1000 * k);
            want += &format!("free {:#x} ok\n", START + 0x1000 * k);
        }
        text += "free 0x1000\n";
        want += "free 0x1000 unknown\n";
        let lines = parse_trace(&text).expect("parses");
        let mut r = Replayer::new(Profile::Linux52);
        let mut out = String::new();
        r.run(&lines, &mut out, &mut NoObserver).expect("replays");
        assert!(out == want, "the run's output, {} bytes, is not the {} expected", out.len(), want.len());
    }

    /// An input refused as a whole (its size) names no line: "line 0:" read as a line of the
    /// trace in the page's link messages.
    #[test]
    fn a_size_refusal_names_no_line() {
        let e = parse_trace_limited("purge\npurge\n", 8).unwrap_err();
        assert_eq!(e.to_string(), "the trace is 12 bytes; the limit is 0 MiB");
        let e = parse_trace_limited("purge\nallok\n", 100).unwrap_err();
        assert!(e.to_string().starts_with("line 2: "), "{e}");
    }
}
