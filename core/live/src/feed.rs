//! The page's feed: what the follower last published (the followed trace's lines and the
//! report), sent to each page as Server-Sent Events, only what changed since that page's last
//! event. Each page holds one reader; readers share the published lines (`Arc`), so a page
//! costs its own position only.
//!
//! Events (`data` is one line of JSON):
//! * `trace` `{"from": K, "lines": "..."}`: keep the first K lines, then these (newline-joined);
//! * `report` the report line's figures (`follow::Figures`);
//! * `note` `{"text": "..."}`: something to say plainly (a replay error, the window full);
//! * `end` `{}`: the source ended and the last replay covered all of it.

use std::io::Read;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// tiny_http sends a streamed body in chunks of 8 KiB, each once a byte past it is written, and
/// flushes none early: each batch of events is padded with an SSE comment so that the stream's
/// length is one byte past a whole chunk (the held byte is the comment's newline): every event
/// leaves at once.
pub const CHUNK: usize = 8192;

/// A comment is sent when nothing else was for this long: a closed page is noticed (the write
/// fails) and proxies keep the stream.
const KEEPALIVE: Duration = Duration::from_secs(15);

#[derive(Default)]
struct State {
    version: u64,
    lines: Arc<Vec<String>>,
    report: Option<Arc<String>>,
    note: Option<Arc<String>>,
    ended: bool,
    closed: bool,
}

#[derive(Default)]
pub struct Feed {
    state: Mutex<State>,
    changed: Condvar,
}

impl Feed {
    pub fn new() -> Arc<Feed> {
        Arc::new(Feed::default())
    }

    fn update(&self, f: impl FnOnce(&mut State)) {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut s);
        s.version += 1;
        self.changed.notify_all();
    }

    /// The followed trace's lines (the trace language), all of them.
    pub fn publish(&self, lines: Vec<String>, report_json: String) {
        self.update(|s| {
            s.lines = Arc::new(lines);
            s.report = Some(Arc::new(report_json));
        });
    }

    pub fn note(&self, text: &str) {
        let json = serde_json::json!({ "text": text }).to_string();
        self.update(|s| s.note = Some(Arc::new(json)));
    }

    pub fn end(&self) {
        self.update(|s| s.ended = true);
    }

    /// The server is stopping: every stream ends.
    pub fn close(&self) {
        self.update(|s| s.closed = true);
    }

    /// The lines published last (tests, the end of a session).
    pub fn lines(&self) -> Arc<Vec<String>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).lines.clone()
    }

    /// The report published last (JSON).
    pub fn last_report(&self) -> Option<String> {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).report.as_deref().cloned()
    }

    pub fn reader(self: &Arc<Self>) -> SseReader {
        SseReader {
            feed: self.clone(),
            seen: None,
            sent: Arc::new(Vec::new()),
            report: None,
            note: None,
            ended: false,
            out: Vec::new(),
            at: 0,
            done: false,
            sent_bytes: 0,
        }
    }
}

/// One page's stream: a `Read` that blocks until there is something new.
pub struct SseReader {
    feed: Arc<Feed>,
    seen: Option<u64>,
    sent: Arc<Vec<String>>,
    report: Option<Arc<String>>,
    note: Option<Arc<String>>,
    ended: bool,
    out: Vec<u8>,
    at: usize,
    done: bool,
    /// Bytes of the stream so far.
    sent_bytes: u64,
}

/// The number of leading lines two traces share.
pub fn common_prefix(a: &[String], b: &[String]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

fn event(out: &mut Vec<u8>, name: &str, data: &str) {
    out.extend_from_slice(b"event: ");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\ndata: ");
    out.extend_from_slice(data.as_bytes());
    out.extend_from_slice(b"\n\n");
}

/// Pad `out`, to be sent after `sent` bytes, with a comment: the stream then ends one byte
/// past a whole chunk.
fn pad(out: &mut Vec<u8>, sent: u64) {
    let end = sent as usize % CHUNK + out.len();
    let mut n = end.div_ceil(CHUNK) * CHUNK + 1 - end;
    if n < 2 {
        n += CHUNK;
    }
    out.push(b':');
    out.resize(out.len() + n - 2, b' ');
    out.push(b'\n');
}

impl SseReader {
    /// The events for what changed since this reader's last ones (empty: nothing did).
    fn next_batch(&mut self) -> Option<Vec<u8>> {
        let feed = self.feed.clone();
        let mut s = feed.state.lock().unwrap_or_else(|e| e.into_inner());
        if self.seen.is_some() {
            let mut waited = false;
            while Some(s.version) == self.seen && !s.closed {
                if waited {
                    drop(s);
                    let mut out = b": keepalive\n".to_vec();
                    pad(&mut out, self.sent_bytes);
                    self.sent_bytes += out.len() as u64;
                    return Some(out);
                }
                let (g, t) = feed.changed.wait_timeout(s, KEEPALIVE).unwrap_or_else(|e| e.into_inner());
                s = g;
                waited = t.timed_out();
            }
        }
        if s.closed && self.seen.is_some() {
            return None;
        }
        self.seen = Some(s.version);
        let (lines, report, note, ended) = (s.lines.clone(), s.report.clone(), s.note.clone(), s.ended);
        drop(s);
        let mut out = Vec::new();
        if !Arc::ptr_eq(&lines, &self.sent) {
            let from = common_prefix(&self.sent, &lines);
            if from < lines.len() || from < self.sent.len() {
                let data = serde_json::json!({ "from": from, "lines": lines[from..].join("\n") }).to_string();
                event(&mut out, "trace", &data);
            }
            self.sent = lines;
        }
        if report.is_some() && !opt_eq(&report, &self.report) {
            event(&mut out, "report", report.as_deref().map(String::as_str).unwrap_or("{}"));
            self.report = report;
        }
        if note.is_some() && !opt_eq(&note, &self.note) {
            event(&mut out, "note", note.as_deref().map(String::as_str).unwrap_or("{}"));
            self.note = note;
        }
        if ended && !self.ended {
            event(&mut out, "end", "{}");
            self.ended = true;
        }
        if out.is_empty() {
            out.extend_from_slice(b": open\n");
        }
        pad(&mut out, self.sent_bytes);
        self.sent_bytes += out.len() as u64;
        Some(out)
    }
}

fn opt_eq(a: &Option<Arc<String>>, b: &Option<Arc<String>>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x == y,
        (None, None) => true,
        _ => false,
    }
}

impl Read for SseReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.out.len() {
            if self.done {
                return Ok(0);
            }
            match self.next_batch() {
                Some(b) => {
                    self.out = b;
                    self.at = 0;
                }
                None => {
                    self.done = true;
                    return Ok(0);
                }
            }
        }
        let n = buf.len().min(self.out.len() - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(r: &mut SseReader) -> String {
        let b = r.next_batch().unwrap();
        assert_eq!(r.sent_bytes as usize % CHUNK, 1, "the stream ends one byte past a whole chunk");
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn sends_what_changed() {
        let f = Feed::new();
        let mut r = f.reader();
        assert!(text(&mut r).starts_with(": open\n"));
        f.publish(vec!["a".into(), "b".into()], "{\"n\":1}".into());
        let t = text(&mut r);
        assert!(t.contains("event: trace\ndata: {\"from\":0,\"lines\":\"a\\nb\"}\n\n"), "{t}");
        assert!(t.contains("event: report\ndata: {\"n\":1}\n\n"));
        // Appended: only the new line; the same report is not sent again.
        f.publish(vec!["a".into(), "b".into(), "c".into()], "{\"n\":1}".into());
        let t = text(&mut r);
        assert!(t.contains("data: {\"from\":2,\"lines\":\"c\"}"), "{t}");
        assert!(!t.contains("event: report"));
        // Changed inside: from the first differing line.
        f.publish(vec!["a".into(), "x".into()], "{\"n\":2}".into());
        let t = text(&mut r);
        assert!(t.contains("data: {\"from\":1,\"lines\":\"x\"}"), "{t}");
        f.note("window full");
        f.end();
        let t = text(&mut r);
        assert!(t.contains("event: note\ndata: {\"text\":\"window full\"}"));
        assert!(t.contains("event: end\ndata: {}"));
        // A page that connects now gets it all at once.
        let mut late = f.reader();
        let t = text(&mut late);
        assert!(t.contains("data: {\"from\":0,\"lines\":\"a\\nx\"}") && t.contains("event: end"), "{t}");
        f.close();
        assert!(r.next_batch().is_none());
    }

    #[test]
    fn padding() {
        for sent in [0u64, 1, 8193, 100_001] {
            for n in [0, 1, 8189, 8190, 8191, 8192, 9000] {
                let mut v = vec![b'x'; n];
                pad(&mut v, sent);
                assert_eq!((sent as usize + v.len()) % CHUNK, 1, "{sent} {n}");
                assert!(v.len() >= n + 2);
                assert_eq!(v[n], b':');
                assert_eq!(v.last(), Some(&b'\n'));
            }
        }
    }
}
