//! Typed errors. Each message says what was wrong and what the kernel would have done.

use std::fmt;

/// A bad input file: its name, the line (0: the file as a whole) and what is wrong. A capture
/// bundle's parts ([`crate::capture::CaptureError`]) and the reports' inputs
/// ([`crate::report::ReportError`]) say it so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileError {
    pub file: String,
    pub line: usize,
    pub msg: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.msg)
        } else {
            write!(f, "{}: line {}: {}", self.file, self.line, self.msg)
        }
    }
}

impl std::error::Error for FileError {}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VmapError {
    /// `alloc` with size 0. `bug_on`: the era hits `BUG_ON` on a bad request (a crash) where
    /// later kernels return -EINVAL (`Era::BUG_ON_BAD_REQUEST`).
    SizeZero { bug_on: bool },
    /// `alloc` with a size that is not a multiple of PAGE_SIZE.
    SizeNotPageMultiple { size: u64, bug_on: bool },
    /// `alloc` with align 0 or not a power of two.
    BadAlign { align: u64, bug_on: bool },
    /// No free block can hold the request, even after returning lazy areas.
    NoSpace { size: u64, align: u64, vstart: u64, vend: u64 },
    /// `free`/`vfree` of an address that starts no busy area.
    UnknownFree { addr: u64, interior_of: Option<(u64, u64)> },
    /// linux-6.1/6.9 `vfree` of an address that is not page aligned.
    UnalignedFree { addr: u64 },
    /// `free`/`vfree` of an area that is already lazily freed.
    AlreadyLazy { addr: u64 },
    /// `init` with start >= end.
    BadRange { start: u64, end: u64 },
    /// `cpus 0`, or more than the model supports.
    BadCpus { cpus: u64 },
    /// `cpu N` with N >= the CPU count.
    BadCpu { cpu: u64, cpus: u32 },
    /// `online N` with N = 0 or N above the CPU count.
    BadOnline { online: u64, cpus: u32 },
    /// `pcpu` with an invalid layout (the kernel BUGs).
    BadPcpu { why: String },
    /// `cpus` lowered to or below the current CPU.
    CpuOffline { cpu: u32, cpus: u64 },
    /// linux-5.1 `pcpu_get_vm_areas` would place the group outside the vmalloc space (its
    /// arithmetic wraps): `base` as the kernel computes it, and the window.
    PcpuOutside { base: u64, start: u64, end: u64 },
    /// A walk exceeded its proven step bound (a guard no input is known to reach).
    EndlessWalk { what: &'static str },
    /// The free-tree search would loop forever (linux-5.2: `size + align - 1` wraps past 2^64);
    /// `profile`: the era's name.
    EndlessSearch { size: u64, align: u64, vstart: u64, profile: &'static str },
    /// maple-rfc: the busy-tree insert found an overlapping area (`[start, end)` against
    /// `other`): the kernel WARNs in `alloc_vmap_area` and fails (the syzbot report); nothing
    /// changes.
    BusyOverlap { start: u64, end: u64, other: (u64, u64) },
    /// maple-rfc: `pcpu_get_vm_areas` found a group in the stale free tree that the occupied
    /// tree already holds; refused, nothing changes.
    StaleFreeOverlap { start: u64, end: u64, occupied: (u64, u64) },
    /// A request the model cannot take at this point (said why).
    Unsupported { why: String },
    /// A capture's allocation (`alloc ... = ADDR`): the kernel returned `kernel`, the model's
    /// own answer was `model`; what explains it (or nothing), and whether the model could take
    /// the kernel's area. A note, not a failure.
    #[cfg(feature = "capture")]
    Followed { kernel: u64, model: Option<u64>, mark: Mark, taken: bool },
    /// A capture-following line (`alloc ... = ADDR`, `lazy`, `pooled`, `unpool`, `purge keep`,
    /// ...) that the model's state contradicts: refused before it applies, nothing changes.
    #[cfg(feature = "capture")]
    Steering { line: String, why: String },
}

impl VmapError {
    /// True when the kernel would crash (BUG) on this request, so a replay must stop.
    pub fn is_kernel_bug(&self) -> bool {
        match self {
            VmapError::SizeZero { bug_on }
            | VmapError::SizeNotPageMultiple { bug_on, .. }
            | VmapError::BadAlign { bug_on, .. } => *bug_on,
            VmapError::BadRange { .. }
            | VmapError::BadCpus { .. }
            | VmapError::BadCpu { .. }
            | VmapError::BadOnline { .. }
            | VmapError::BadPcpu { .. }
            | VmapError::CpuOffline { .. }
            | VmapError::EndlessSearch { .. }
            | VmapError::PcpuOutside { .. }
            | VmapError::Unsupported { .. }
            | VmapError::EndlessWalk { .. } => true,
            VmapError::BusyOverlap { .. } | VmapError::StaleFreeOverlap { .. } => false,
            #[cfg(feature = "capture")]
            VmapError::Followed { .. } => false,
            #[cfg(feature = "capture")]
            VmapError::Steering { .. } => true,
            VmapError::NoSpace { .. }
            | VmapError::UnknownFree { .. }
            | VmapError::UnalignedFree { .. }
            | VmapError::AlreadyLazy { .. } => false,
        }
    }
}

impl VmapError {
    /// True when the request itself is wrong rather than the allocator's state: a free of an
    /// address no busy area starts at, a double free, an unaligned `vfree`, an empty window, a
    /// size or alignment the kernel rejects (and everything the kernel crashes on). The kernel
    /// answers these with a warning, `-EINVAL` or `BUG()`; a trace replays them as it would,
    /// while input typed into the page is refused ([`crate::session::Session::push_checked`]).
    /// An allocation that finds no room in a non-empty window is the allocator's answer, not
    /// the caller's mistake.
    pub fn is_caller_error(&self) -> bool {
        match self {
            VmapError::NoSpace { vstart, vend, .. } => vstart >= vend,
            VmapError::SizeZero { .. }
            | VmapError::SizeNotPageMultiple { .. }
            | VmapError::BadAlign { .. }
            | VmapError::UnknownFree { .. }
            | VmapError::UnalignedFree { .. }
            | VmapError::AlreadyLazy { .. } => true,
            _ => self.is_kernel_bug(),
        }
    }

    /// Why typed input is refused, in the words of someone who typed one line.
    pub fn refusal(&self) -> String {
        match self {
            VmapError::UnknownFree { addr, interior_of: None } => format!(
                "No busy area starts at {addr:#x} at the end of the trace, where the operation would go: nothing to free \
                 (the kernel would warn \"Trying to vfree() nonexistent vm area\")"
            ),
            VmapError::UnknownFree { addr, interior_of: Some((s, e)) } => format!(
                "No busy area starts at {addr:#x}: it lies inside the busy area [{s:#x}, {e:#x}); a free names the start of an area"
            ),
            VmapError::AlreadyLazy { addr } => {
                format!("The area at {addr:#x} is already freed lazily (it waits for a purge): freeing it again is a double free")
            }
            VmapError::NoSpace { vstart, vend, .. } if vstart >= vend => {
                format!("the window is empty: vstart {vstart:#x} must be below vend {vend:#x}")
            }
            e => e.to_string(),
        }
    }
}

fn kernel_reply(bug_on: bool) -> &'static str {
    if bug_on {
        "this kernel hits BUG_ON here (a crash)"
    } else {
        "the kernel returns -EINVAL and changes nothing"
    }
}

impl fmt::Display for VmapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VmapError::SizeZero { bug_on } => {
                write!(f, "alloc size is 0: {}", kernel_reply(*bug_on))
            }
            VmapError::SizeNotPageMultiple { size, bug_on } => {
                write!(f, "alloc size {size:#x} is not a multiple of PAGE_SIZE (0x1000): {}", kernel_reply(*bug_on))
            }
            VmapError::BadAlign { align, bug_on } => {
                write!(f, "alloc align {align:#x} is not a power of two: {}", kernel_reply(*bug_on))
            }
            VmapError::NoSpace { size, align, vstart, vend } => {
                if vstart >= vend {
                    write!(
                        f,
                        "no room for {size:#x} bytes: the window vstart {vstart:#x} >= vend {vend:#x} is empty; \
                         the kernel purges lazy areas, retries, warns \"vmap allocation for size {size} failed\" and returns -EBUSY"
                    )
                } else {
                    write!(
                        f,
                        "no free block holds {size:#x} bytes aligned to {align:#x} in [{vstart:#x}, {vend:#x}); \
                         the kernel purges lazy areas, retries, then warns \"vmap allocation for size {size} failed\" and returns -EBUSY"
                    )
                }
            }
            VmapError::UnknownFree { addr, interior_of: Some((s, e)) } => write!(
                f,
                "{addr:#x} lies inside the busy area [{s:#x}, {e:#x}) but does not start it; \
                 a free must name the start (the kernel's vfree would look it up by containment and free \
                 the whole area; the trace language requires the exact start, so nothing changes)"
            ),
            VmapError::UnknownFree { addr, interior_of: None } => write!(
                f,
                "no busy area starts at {addr:#x} (never allocated or already freed); \
                 the kernel warns \"Trying to vfree() nonexistent vm area\" and changes nothing"
            ),
            VmapError::UnalignedFree { addr } => write!(
                f,
                "vfree of {addr:#x}, which is not page aligned: the kernel warns in remove_vm_area and changes nothing"
            ),
            VmapError::AlreadyLazy { addr } => write!(
                f,
                "the area at {addr:#x} is already lazily freed (a double free); the kernel warns and changes nothing"
            ),
            VmapError::BadRange { start, end } => {
                write!(f, "init range [{start:#x}, {end:#x}) is empty: start must be below end")
            }
            VmapError::BadCpus { cpus } => write!(f, "cpus {cpus} is out of range: it must be 1..=65536"),
            VmapError::BadOnline { online, cpus } => {
                write!(f, "online {online}: between 1 and the {cpus} possible CPUs (`cpus`) can be online")
            }
            VmapError::BadCpu { cpu, cpus } => {
                write!(f, "cpu {cpu} is not online: there are {cpus} CPUs (0..={})", cpus - 1)
            }
            VmapError::CpuOffline { cpu, cpus } => {
                write!(f, "cpus {cpus} would take the current CPU {cpu} offline; switch with `cpu` first")
            }
            VmapError::BadPcpu { why } => write!(f, "pcpu_get_vm_areas: {why} (the kernel hits BUG_ON)"),
            VmapError::EndlessWalk { what } => write!(
                f,
                "{what}: the walk did not end within its step bound, so the kernel would loop here; refused, nothing changes"
            ),
            VmapError::PcpuOutside { base, start, end } => write!(
                f,
                "linux-5.1 pcpu_get_vm_areas would place the group at base {base:#x}, outside the window \
                 [{start:#x}, {end:#x}): ALIGN(VMALLOC_START, align) or base wraps past 2^64 and 5.1 checks neither, \
                 so the kernel would hand out addresses outside the vmalloc space; refused, nothing changes"
            ),
            VmapError::EndlessSearch { size, align, vstart, profile } => write!(
                f,
                "{profile} would never return from this search: the search length size + align - 1 \
                 ({size:#x} + {align:#x} - 1) wraps past 2^64, so a subtree that cannot hold the request looks \
                 large enough and the roll-back re-enters it from vstart {vstart:#x} forever \
                 (linux-5.16 added the moving vstart that ends this loop); refused, nothing changes"
            ),
            VmapError::BusyOverlap { start, end, other: (os, oe) } => write!(
                f,
                "WARNING in alloc_vmap_area: the occupied tree offered [{start:#x}, {end:#x}), but the busy area \
                 [{os:#x}, {oe:#x}) overlaps it (the busy-tree insert's overlap check, as in the syzbot report); \
                 the allocation fails and nothing changes"
            ),
            VmapError::StaleFreeOverlap { start, end, occupied: (os, oe) } => write!(
                f,
                "stale free tree overlap: pcpu_get_vm_areas placed [{start:#x}, {end:#x}) from the free tree, which \
                 the hot path no longer updates, but the occupied tree holds [{os:#x}, {oe:#x}); refused, nothing changes"
            ),
            VmapError::Unsupported { why } => write!(f, "{why}"),
            #[cfg(feature = "capture")]
            VmapError::Steering { line, why } => write!(f, "`{line}` refused: {why}; nothing changes"),
            #[cfg(feature = "capture")]
            VmapError::Followed { kernel, model, mark, taken } => {
                let ours = match model {
                    Some(m) if m == kernel => "the model's answer too".to_string(),
                    Some(m) => format!("the model's answer was {m:#x}"),
                    None => "the model found no space".to_string(),
                };
                match mark {
                    Mark::Unexplained => write!(f, "unexplained: the kernel returned {kernel:#x}, {ours}; nothing known explains it")?,
                    Mark::Equal => write!(f, "the kernel returned {kernel:#x}, {ours}")?,
                    Mark::Untraced => write!(
                        f,
                        "untraced: an allocation the trace does not show (its area is freed twice with none traced in \
                         between), made where the kernel's pool gave it: {kernel:#x}, {ours}"
                    )?,
                    Mark::Explained(u) => write!(f, "explained: the kernel returned {kernel:#x}, {ours}; this resolved an unknown of the start state: {}", u.words())?,
                }
                if *model != Some(*kernel) {
                    f.write_str(if *taken {
                        "; the model takes the kernel's area, as the kernel did"
                    } else {
                        "; the model cannot take the kernel's area, and goes on without it"
                    })?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for VmapError {}

/// The outcome of one operation, besides its printed text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to report (settings, prints).
    Done,
    /// The kernel answered with a warning or failure, state unchanged (or purged, as it does).
    Warned(VmapError),
}

/// What the capture's replay said of one allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// The model's answer was the kernel's, with nothing learnt.
    Equal,
    /// The kernel's address resolved this unknown of the start state.
    Explained(Unknown),
    /// Nothing known explains the kernel's address.
    Unexplained,
    /// An allocation the trace does not show: its area is freed twice with none traced in
    /// between, and the replay makes it where the kernel's pool gave it.
    Untraced,
}

/// The unknowns of the start state (what the before file cannot show) that an explanation of
/// an allocation resolves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unknown {
    /// An entry of a node's pool before the capture (`vmallocinfo` shows no pools).
    PoolEntry,
    /// The node a busy area of the before file was allocated for (the file does not say).
    AreaNode,
    /// Space the before file shows free that was held (pool entries it cannot show).
    HeldFree,
    /// The free tree's shape (which blocks shorter than the search length lie on the search
    /// path): the kernel's tree was built by its whole history, the model's from the file.
    TreeShape,
    /// A free block of the before file whose layout was unknown: the kernel's search passed
    /// over it whole, so pool entries from before the capture split it.
    HeldBlock,
    /// A piece of such a block that the kernel allocated: a pool entry or a free piece there.
    HeldPiece,
    /// How many entries a node's pool of one size held at a purge: `decay_va_pool_node`
    /// gives back `len >> 2` from the head, and `len` counts entries from before the capture.
    PoolLength,
}

impl Unknown {
    /// Every unknown, in the order a message lists them.
    pub const ALL: [Unknown; 7] = [
        Unknown::PoolEntry,
        Unknown::AreaNode,
        Unknown::HeldFree,
        Unknown::TreeShape,
        Unknown::HeldBlock,
        Unknown::HeldPiece,
        Unknown::PoolLength,
    ];

    /// Its name in a capture-following line (`alloc ... = ADDR explained KIND`).
    pub fn name(self) -> &'static str {
        match self {
            Unknown::PoolEntry => "pool-entry",
            Unknown::AreaNode => "area-node",
            Unknown::HeldFree => "held-free",
            Unknown::TreeShape => "tree-shape",
            Unknown::HeldBlock => "held-block",
            Unknown::HeldPiece => "held-piece",
            Unknown::PoolLength => "pool-length",
        }
    }

    /// The unknown named `name` ([`Unknown::name`]).
    pub fn parse(name: &str) -> Option<Unknown> {
        Unknown::ALL.into_iter().find(|u| u.name() == name)
    }

    /// The unknown in words, for a message.
    pub fn words(self) -> &'static str {
        match self {
            Unknown::PoolEntry => "a pool entry from before the capture (vmallocinfo shows no pools)",
            Unknown::AreaNode => "the node a busy area of the before file was allocated for (vmallocinfo does not say)",
            Unknown::HeldFree => {
                "space the before file shows free was held (pool entries from before the capture, which vmallocinfo \
                 does not show)"
            }
            Unknown::TreeShape => {
                "the free tree's shape: which blocks shorter than the search length lie on the search path \
                 (vmallocinfo does not show the tree)"
            }
            Unknown::HeldBlock => {
                "a free block of the before file had no free run long enough: pool entries from before the capture \
                 split it (vmallocinfo shows them free)"
            }
            Unknown::HeldPiece => {
                "a piece of a block split by pool entries from before the capture: an entry of the pool, or a free piece"
            }
            Unknown::PoolLength => {
                "how many entries a pool held at a purge (vmallocinfo does not show pools; the decay gives back a \
                 quarter of them, from the head)"
            }
        }
    }
}
