//! The built page's files (`dist/`): a request's path resolved inside it, or nothing. Only
//! regular files whose real path (symbolic links followed) lies inside the build are served.

use std::path::{Path, PathBuf};

/// A file to send: its path on disk, its type, and its encoding when a compressed sibling
/// (`.br`, `.gz`) is sent in its place.
#[derive(Debug, PartialEq, Eq)]
pub struct Found {
    pub path: PathBuf,
    pub mime: &'static str,
    pub encoding: Option<&'static str>,
}

/// The built page's root, canonical.
#[derive(Clone, Debug)]
pub struct Dist {
    root: PathBuf,
}

impl Dist {
    pub fn new(dir: &Path) -> std::io::Result<Dist> {
        let root = dir.canonicalize()?;
        if !root.join("index.html").is_file() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{}: no index.html (build the page first: npx vite build)", root.display()),
            ));
        }
        Ok(Dist { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The file a URL path names (`/` and directories: their index.html), with `accept` the
    /// request's Accept-Encoding. None for anything outside the build, hidden, or not a file.
    pub fn find(&self, url_path: &str, accept: Option<&str>) -> Option<Found> {
        let rel = decode(url_path)?;
        let mut p = self.root.clone();
        for seg in rel.split('/') {
            if seg.is_empty() {
                continue;
            }
            // No `..`, no `.`, no hidden files, no backslashes (one name, one segment).
            if seg.starts_with('.') || seg.contains('\\') {
                return None;
            }
            p.push(seg);
        }
        let mut real = p.canonicalize().ok()?;
        if real.is_dir() {
            real = real.join("index.html").canonicalize().ok()?;
        }
        if !real.starts_with(&self.root) || !real.is_file() {
            return None;
        }
        let mime = mime(&real);
        let accepts =
            |enc: &str| accept.is_some_and(|a| a.split(',').any(|e| e.split(';').next().unwrap_or("").trim() == enc));
        for (enc, ext) in [("br", "br"), ("gzip", "gz")] {
            if !accepts(enc) {
                continue;
            }
            let mut name = real.clone().into_os_string();
            name.push(".");
            name.push(ext);
            let sib = PathBuf::from(name);
            if let Ok(s) = sib.canonicalize() {
                if s.starts_with(&self.root) && s.is_file() {
                    return Some(Found { path: s, mime, encoding: Some(enc) });
                }
            }
        }
        Some(Found { path: real, mime, encoding: None })
    }
}

/// A URL path percent-decoded, or None when it decodes to something no file of the build is
/// named (a NUL, a backslash, bytes that are not UTF-8, a bad escape).
fn decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    let t = String::from_utf8(out).ok()?;
    if t.contains('\0') || t.contains('\\') {
        return None;
    }
    Some(t)
}

/// The MIME type of a file of the build by its extension.
pub fn mime(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding() {
        assert_eq!(decode("/a%20b").as_deref(), Some("/a b"));
        assert_eq!(decode("/%2e%2e/x").as_deref(), Some("/../x"));
        assert_eq!(decode("/a%2"), None);
        assert_eq!(decode("/a%zz"), None);
        assert_eq!(decode("/a%00"), None);
        assert_eq!(decode("/a%5cb"), None);
        assert_eq!(decode("/%ff"), None);
    }
}
