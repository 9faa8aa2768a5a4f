//! Capture bundles on disk: reading one (the parts of `vmapviz_core::capture::PARTS`, each
//! plain or gzipped) and writing the session's own as it goes (the trace streamed to disk).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use vmapviz_core::capture::{part_text, PARTS};

/// A part's text, or None when neither NAME nor NAME.gz is in `dir`.
pub fn read_part(dir: &Path, name: &str) -> Result<Option<String>, String> {
    for n in [name.to_string(), format!("{name}.gz")] {
        let path = dir.join(&n);
        match std::fs::read(&path) {
            Ok(bytes) => return part_text(&path.display().to_string(), &bytes).map(Some).map_err(|e| e.to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(format!("{}: {e}", path.display())),
        }
    }
    Ok(None)
}

/// A whole bundle's parts in `PARTS` order; the before file, the trace and cpus.txt required.
pub fn read_bundle(dir: &Path) -> Result<[Option<String>; 5], String> {
    let mut out: [Option<String>; 5] = Default::default();
    for (i, name) in PARTS.iter().enumerate() {
        out[i] = read_part(dir, name)?;
        if out[i].is_none() && [0, 1, 3].contains(&i) {
            return Err(format!("{}: missing (nor {name}.gz): every bundle has it", dir.join(name).display()));
        }
    }
    Ok(out)
}

/// The session's bundle, written as the session goes: the before file, cpus and uname at the
/// start, each trace line as it comes, the after file at the end.
pub struct Recorder {
    dir: PathBuf,
    trace: BufWriter<File>,
    pub lines: u64,
}

impl Recorder {
    pub fn create(dir: &Path, before: &str, cpus: &str, uname: Option<&str>) -> std::io::Result<Recorder> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("vmallocinfo.before"), before)?;
        std::fs::write(dir.join("cpus.txt"), cpus)?;
        if let Some(u) = uname {
            std::fs::write(dir.join("uname.txt"), u)?;
        }
        let trace = BufWriter::new(File::create(dir.join("trace.txt"))?);
        Ok(Recorder { dir: dir.to_path_buf(), trace, lines: 0 })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Trace lines (without their newline), on disk once this returns (flushed).
    pub fn append(&mut self, lines: &[String]) -> std::io::Result<()> {
        for l in lines {
            self.trace.write_all(l.as_bytes())?;
            self.trace.write_all(b"\n")?;
        }
        self.lines += lines.len() as u64;
        self.trace.flush()
    }

    pub fn finish(mut self, after: Option<&str>) -> std::io::Result<PathBuf> {
        self.trace.flush()?;
        if let Some(a) = after {
            std::fs::write(self.dir.join("vmallocinfo.after"), a)?;
        }
        Ok(self.dir)
    }
}

/// `vmap-live-<release>-<YYYYmmdd-HHMMSS>` (UTC) in the current directory.
pub fn default_dir(uname: Option<&str>) -> PathBuf {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (days, rem) = (secs / 86400, secs % 86400);
    let (y, m, d) = civil(days as i64);
    let rel = uname.and_then(|u| u.lines().next()).map(str::trim).filter(|u| !u.is_empty()).unwrap_or("unknown");
    let rel: String =
        rel.chars().map(|c| if c.is_ascii_alphanumeric() || ".-_".contains(c) { c } else { '_' }).collect();
    PathBuf::from(format!("vmap-live-{rel}-{y:04}{m:02}{d:02}-{:02}{:02}{:02}", rem / 3600, rem / 60 % 60, rem % 60))
}

/// Days since 1970-01-01 as (year, month, day) of the Gregorian calendar.
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn civil_dates() {
        assert_eq!(super::civil(0), (1970, 1, 1));
        assert_eq!(super::civil(11_016), (2000, 2, 29));
        assert_eq!(super::civil(20_788), (2026, 12, 1));
    }
}
