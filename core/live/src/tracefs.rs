//! This machine's kernel as the source: a tracefs instance of its own
//! (`instances/vmapviz-live-PID`) with the `vmalloc` events, read through its `trace_pipe`;
//! `/proc/vmallocinfo` read with `kptr_restrict` at 1 (real addresses), drained first as
//! scripts/capture.sh does (`echo 2 > /proc/sys/vm/drop_caches`: the vmap node shrinker's full
//! decay empties the pools) unless told to keep them.
//!
//! What it changes is undone on every exit path: [`cleanup`] switches the instance off, removes
//! it and puts `kptr_restrict` back. It runs at the source's end, from the panic hook, and from
//! the signal handler (SIGINT, SIGTERM, SIGHUP; `main.rs`); it is idempotent. SIGKILL cannot be
//! caught: after one, `rmdir /sys/kernel/tracing/instances/vmapviz-live-*` and the old
//! `kptr_restrict` (said on the terminal at the start) are for the user.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use vmapviz_core::capture::BEFORE_READ;

use crate::source::{Finish, Pull, Source, Start};

const KPTR: &str = "/proc/sys/kernel/kptr_restrict";
const O_NONBLOCK: i32 = 0o4000;

/// What to undo: the instance, and `kptr_restrict`'s value before.
struct Undo {
    inst: PathBuf,
    kptr: Option<String>,
}

static UNDO: Mutex<Option<Undo>> = Mutex::new(None);
/// The open `trace_pipe` (an instance with an open file cannot be removed): closed first.
static PIPE: Mutex<Option<File>> = Mutex::new(None);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Undo what the source changed, once; what could not be undone is returned, to be said.
pub fn cleanup() -> Vec<String> {
    lock(&PIPE).take();
    let Some(u) = lock(&UNDO).take() else { return Vec::new() };
    let mut failed = Vec::new();
    if u.inst.is_dir() {
        let _ = std::fs::write(u.inst.join("tracing_on"), "0");
        let _ = std::fs::write(u.inst.join("events/vmalloc/enable"), "0");
        if let Err(e) = std::fs::remove_dir(&u.inst) {
            failed.push(format!("could not remove {}: {e}", u.inst.display()));
        }
    }
    if let Some(k) = u.kptr {
        if let Err(e) = std::fs::write(KPTR, &k) {
            failed.push(format!("could not put kptr_restrict back to {}: {e}", k.trim()));
        }
    }
    failed
}

/// Where tracefs is (mounted now if it was not), with the `vmalloc` events.
pub fn find_tracefs() -> Result<PathBuf, String> {
    let t = Path::new("/sys/kernel/tracing");
    if !t.join("events").exists() {
        let _ = std::process::Command::new("mount").args(["-t", "tracefs", "nodev", "/sys/kernel/tracing"]).status();
    }
    let t = if t.join("events").exists() { t.to_path_buf() } else { PathBuf::from("/sys/kernel/debug/tracing") };
    if !t.join("events").exists() {
        return Err("no tracefs (mount -t tracefs nodev /sys/kernel/tracing failed)".into());
    }
    if !t.join("events/vmalloc/enable").exists() {
        return Err("this kernel has no vmalloc trace events (they came in 6.3: trace/events/vmalloc.h)".into());
    }
    Ok(t)
}

/// Whether this process can use tracefs (root, and tracefs with the vmalloc events).
pub fn available() -> Result<PathBuf, String> {
    let uid = std::fs::read_to_string("/proc/self/status").ok().and_then(|s| {
        s.lines().find(|l| l.starts_with("Uid:")).map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
    });
    if uid.as_deref() != Some("0") {
        return Err("not root".into());
    }
    find_tracefs()
}

pub struct TracefsSource {
    /// Per-CPU ring buffer, KiB.
    pub buffer_kb: u64,
    /// Leave the vmap pools as they are (no drop_caches).
    pub keep: bool,
    inst: PathBuf,
    partial: Vec<u8>,
}

impl TracefsSource {
    pub fn new(buffer_kb: u64, keep: bool) -> TracefsSource {
        TracefsSource { buffer_kb, keep, inst: PathBuf::new(), partial: Vec::new() }
    }

    /// The instance's directory (once started).
    pub fn instance(&self) -> &Path {
        &self.inst
    }

    /// Read what `trace_pipe` has now: whole lines.
    fn drain(&mut self) -> Result<Vec<String>, String> {
        let mut buf = vec![0u8; 1 << 16];
        let mut got = 0usize;
        loop {
            let n = {
                let mut p = lock(&PIPE);
                let Some(f) = p.as_mut() else { break };
                match f.read(&mut buf) {
                    Ok(n) => n,
                    Err(e) if e.kind() == ErrorKind::WouldBlock || e.kind() == ErrorKind::Interrupted => 0,
                    Err(e) => return Err(format!("trace_pipe: {e}")),
                }
            };
            if n == 0 {
                break;
            }
            self.partial.extend_from_slice(&buf[..n]);
            got += n;
            if got >= 1 << 20 {
                break;
            }
        }
        let Some(last) = self.partial.iter().rposition(|&b| b == b'\n') else { return Ok(Vec::new()) };
        let rest = self.partial.split_off(last + 1);
        let whole = std::mem::replace(&mut self.partial, rest);
        Ok(String::from_utf8_lossy(&whole).lines().map(str::to_string).collect())
    }
}

fn write(p: &Path, v: &str) -> Result<(), String> {
    std::fs::write(p, v).map_err(|e| format!("{}: {e}", p.display()))
}

impl Source for TracefsSource {
    fn start(&mut self) -> Result<Start, String> {
        let t = find_tracefs()?;
        let kptr = std::fs::read_to_string(KPTR).map_err(|e| format!("{KPTR}: {e}"))?;
        self.inst = t.join("instances").join(format!("vmapviz-live-{}", std::process::id()));
        *lock(&UNDO) = Some(Undo { inst: self.inst.clone(), kptr: Some(kptr) });
        std::fs::create_dir(&self.inst).map_err(|e| format!("{}: {e}", self.inst.display()))?;
        write(&self.inst.join("tracing_on"), "0")?;
        write(&self.inst.join("buffer_size_kb"), &self.buffer_kb.to_string())?;
        write(&self.inst.join("events/vmalloc/enable"), "1")?;
        let read = |p: &str| std::fs::read_to_string(p).map_err(|e| format!("{p}: {e}"));
        let cpus = format!("{}{}", read("/sys/devices/system/cpu/possible")?, read("/sys/devices/system/cpu/online")?);
        let uname = read("/proc/sys/kernel/osrelease")?;
        if !self.keep {
            write(Path::new("/proc/sys/vm/drop_caches"), "2")?;
        }
        write(Path::new(KPTR), "1")?;
        // The events are on while the before file is read; the marker says when it was read.
        write(&self.inst.join("tracing_on"), "1")?;
        let before = read("/proc/vmallocinfo")?;
        OpenOptions::new()
            .write(true)
            .open(self.inst.join("trace_marker"))
            .and_then(|mut f| f.write_all(BEFORE_READ.as_bytes()))
            .map_err(|e| format!("trace_marker: {e}"))?;
        let pipe = OpenOptions::new()
            .read(true)
            .custom_flags(O_NONBLOCK)
            .open(self.inst.join("trace_pipe"))
            .map_err(|e| format!("trace_pipe: {e}"))?;
        *lock(&PIPE) = Some(pipe);
        Ok(Start { before, cpus, uname: Some(uname) })
    }

    fn pull(&mut self) -> Result<Pull, String> {
        let lines = self.drain()?;
        if lines.is_empty() {
            std::thread::sleep(Duration::from_millis(50));
            return Ok(Pull::Idle);
        }
        Ok(Pull::Lines(lines))
    }

    fn finish(&mut self) -> Result<Finish, String> {
        let mut notes = Vec::new();
        let _ = std::fs::write(self.inst.join("tracing_on"), "0");
        // Read with kptr_restrict still at 1; then the rest of the pipe.
        let after = std::fs::read_to_string("/proc/vmallocinfo").ok();
        let mut tail = self.drain().unwrap_or_default();
        if !self.partial.is_empty() {
            tail.push(String::from_utf8_lossy(&std::mem::take(&mut self.partial)).into_owned());
        }
        let mut lost = 0u64;
        if let Ok(rd) = std::fs::read_dir(self.inst.join("per_cpu")) {
            for e in rd.flatten() {
                let s = std::fs::read_to_string(e.path().join("stats")).unwrap_or_default();
                lost +=
                    s.lines().find_map(|l| l.strip_prefix("overrun:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
            }
        }
        if lost > 0 {
            notes.push(format!(
                "the ring buffer lost {lost} events: run again with a larger --buffer-kb (now {})",
                self.buffer_kb
            ));
        }
        notes.extend(cleanup());
        Ok(Finish { after, notes, lines: tail })
    }

    /// Read while `kptr_restrict` is at 1 (the session's start set it): real addresses.
    fn vmallocinfo(&mut self) -> Option<(String, String)> {
        let text = std::fs::read_to_string("/proc/vmallocinfo").ok()?;
        let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).ok()?.as_secs() % 86_400;
        Some((format!("vmallocinfo at {:02}:{:02}:{:02} UTC", secs / 3600, secs / 60 % 60, secs % 60), text))
    }
}
