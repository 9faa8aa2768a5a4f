//! The page's feed: what the follower last published (the followed trace's lines and the
//! report), sent to each page as Server-Sent Events, only what changed since that page's last
//! event. Each page holds one reader; readers share the published lines (`Arc`), so a page
//! costs its own position only.
//!
//! Events (`data` is one line of JSON):
//! * `trace` `{"from": K, "lines": "..."}`: keep the first K lines, then these (newline-joined);
//! * `report` the report line's figures (`follow::Figures`);
//! * `note` `{"text": "..."}`: something to say plainly (a replay error, the window full);
//! * `callers` `{"name": "...", "text": "..."}`: a `/proc/vmallocinfo` read (the before file, a
//!   read while the session goes on, the after file): the areas' callers and flags;
//! * `end` `{}`: the source ended and the last replay covered all of it.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A comment is sent when nothing else was for this long: a closed page is noticed (the write
/// fails) and proxies keep the stream.
const KEEPALIVE: Duration = Duration::from_secs(15);

/// Changes of the lines remembered: a reader further behind is sent all the lines again.
const EDITS: usize = 1024;

#[derive(Default)]
struct State {
    version: u64,
    lines: Arc<Vec<String>>,
    /// Changes of `lines` so far (0: none yet).
    lines_version: u64,
    /// The last changes of `lines`: (the `lines_version` it made, the first line it changed).
    edits: VecDeque<(u64, usize)>,
    report: Option<Arc<String>>,
    note: Option<Arc<String>>,
    /// The `callers` reads kept: the before file's, and the latest one since.
    callers: [Option<Arc<String>>; 2],
    /// Their texts (a read that finds its text unchanged sends nothing).
    callers_text: [String; 2],
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
        self.publish_from(0, lines, report_json);
    }

    /// The followed trace's lines from line `same` on (`tail`); the first `same` lines are those
    /// published last. Only lines that differ from the last ones are replaced (none copied).
    pub fn publish_from(&self, same: usize, tail: Vec<String>, report_json: String) {
        self.update(|s| {
            let same = same.min(s.lines.len());
            let d = common_prefix(&s.lines[same..], &tail);
            let from = same + d;
            if from < s.lines.len() || d < tail.len() {
                let v = Arc::make_mut(&mut s.lines);
                v.truncate(from);
                v.extend(tail.into_iter().skip(d));
                s.lines_version += 1;
                let e = (s.lines_version, from);
                s.edits.push_back(e);
                if s.edits.len() > EDITS {
                    s.edits.pop_front();
                }
            }
            s.report = Some(Arc::new(report_json));
        });
    }

    /// A `/proc/vmallocinfo` read named `name`, for the areas' callers: the session's before file
    /// (`before`), kept for pages that come later, or a later read, which replaces the one
    /// before it. Sent when its text is not that of the read it replaces.
    pub fn callers(&self, name: &str, text: &str, before: bool) {
        let k = usize::from(!before);
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.callers[k].is_some() && s.callers_text[k] == text {
            return;
        }
        drop(s);
        let json = serde_json::json!({ "name": name, "text": text }).to_string();
        self.update(|s| {
            s.callers[k] = Some(Arc::new(json));
            s.callers_text[k] = text.to_string();
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
            sent_version: 0,
            sent_len: 0,
            report: None,
            note: None,
            callers: [None, None],
            ended: false,
        }
    }
}

/// One page's stream: [`SseReader::next_batch`] blocks until there is something new.
pub struct SseReader {
    feed: Arc<Feed>,
    seen: Option<u64>,
    /// The `lines_version` of the lines this page has, and how many it has.
    sent_version: u64,
    sent_len: usize,
    report: Option<Arc<String>>,
    note: Option<Arc<String>>,
    callers: [Option<Arc<String>>; 2],
    ended: bool,
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

impl SseReader {
    /// The events for what changed since this reader's last ones, once there are any (a comment
    /// when nothing did for a while); None once the feed is closed.
    pub fn next_batch(&mut self) -> Option<Vec<u8>> {
        let feed = self.feed.clone();
        let mut s = feed.state.lock().unwrap_or_else(|e| e.into_inner());
        if self.seen.is_some() {
            let mut waited = false;
            while Some(s.version) == self.seen && !s.closed {
                if waited {
                    drop(s);
                    return Some(b": keepalive\n\n".to_vec());
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
        let trace = (s.lines_version != self.sent_version).then(|| {
            // The first line changed since this page's lines: the edits since, if remembered.
            let remembered = s.edits.front().is_some_and(|&(v, _)| v <= self.sent_version + 1);
            let from = if self.sent_version == 0 || !remembered {
                0
            } else {
                s.edits.iter().filter(|&&(v, _)| v > self.sent_version).map(|&(_, f)| f).min().unwrap_or(0)
            };
            (s.lines.clone(), from.min(self.sent_len), s.lines_version)
        });
        let (report, note, callers, ended) = (s.report.clone(), s.note.clone(), s.callers.clone(), s.ended);
        drop(s);
        let mut out = Vec::new();
        if let Some((lines, from, v)) = trace {
            if from < lines.len() || from < self.sent_len {
                let data = serde_json::json!({ "from": from, "lines": lines[from..].join("\n") }).to_string();
                event(&mut out, "trace", &data);
            }
            self.sent_version = v;
            self.sent_len = lines.len();
        }
        if report.is_some() && !opt_eq(&report, &self.report) {
            event(&mut out, "report", report.as_deref().map(String::as_str).unwrap_or("{}"));
            self.report = report;
        }
        if note.is_some() && !opt_eq(&note, &self.note) {
            event(&mut out, "note", note.as_deref().map(String::as_str).unwrap_or("{}"));
            self.note = note;
        }
        for (c, mine) in callers.into_iter().zip(&mut self.callers) {
            if c.is_some() && !opt_eq(&c, mine) {
                event(&mut out, "callers", c.as_deref().map(String::as_str).unwrap_or("{}"));
                *mine = c;
            }
        }
        if ended && !self.ended {
            event(&mut out, "end", "{}");
            self.ended = true;
        }
        if out.is_empty() {
            out.extend_from_slice(b": open\n\n");
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn text(r: &mut SseReader) -> String {
        let b = r.next_batch().unwrap();
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

    fn v(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn publish_from_replaces_only_what_differs() {
        let f = Feed::new();
        let mut r = f.reader();
        text(&mut r);
        f.publish(v("a b c"), "{}".into());
        assert!(text(&mut r).contains("data: {\"from\":0,\"lines\":\"a\\nb\\nc\"}"));
        // Two lines known the same; the third given again unchanged, then one new.
        f.publish_from(2, v("c d"), "{}".into());
        assert_eq!(*f.lines(), v("a b c d"));
        let t = text(&mut r);
        assert!(t.contains("data: {\"from\":3,\"lines\":\"d\"}"), "{t}");
        // Changed past the known lines: from the first differing one.
        f.publish_from(1, v("b x"), "{}".into());
        assert_eq!(*f.lines(), v("a b x"));
        assert!(text(&mut r).contains("data: {\"from\":2,\"lines\":\"x\"}"));
        // Nothing changed: no trace event.
        f.publish_from(3, Vec::new(), "{\"n\":2}".into());
        let t = text(&mut r);
        assert!(!t.contains("event: trace") && t.contains("event: report"), "{t}");
        // A reader two changes behind gets the lines from the first line either changed.
        f.publish_from(3, v("y"), "{}".into());
        f.publish_from(1, v("q r s y z"), "{}".into());
        assert_eq!(*f.lines(), v("a q r s y z"));
        let t = text(&mut r);
        assert!(t.contains("data: {\"from\":1,\"lines\":\"q\\nr\\ns\\ny\\nz\"}"), "{t}");
    }

    #[test]
    fn a_reader_behind_the_remembered_changes_gets_all_lines() {
        let f = Feed::new();
        f.publish(v("a"), "{}".into());
        let mut r = f.reader();
        text(&mut r);
        for i in 0..EDITS + 5 {
            f.publish_from(1, vec![format!("l{i}")], "{}".into());
        }
        let t = text(&mut r);
        assert!(t.contains(&format!("data: {{\"from\":0,\"lines\":\"a\\nl{}\"}}", EDITS + 4)), "{t}");
        // Within the remembered ones: from the first line changed.
        f.publish_from(2, v("m"), "{}".into());
        assert!(text(&mut r).contains("data: {\"from\":2,\"lines\":\"m\"}"));
    }

    #[test]
    fn callers_are_sent_when_their_text_changes() {
        let f = Feed::new();
        let mut r = f.reader();
        f.callers("vmallocinfo.before", "0x1-0x2 4096 a+0x1/0x2 vmalloc\n", true);
        let t = text(&mut r);
        assert!(t.contains("event: callers\ndata: {\"name\":\"vmallocinfo.before\",\"text\":\"0x1-0x2 4096 a+0x1/0x2 vmalloc\\n\"}"), "{t}");
        // The same text read again: nothing to send.
        f.callers("vmallocinfo.before", "0x1-0x2 4096 a+0x1/0x2 vmalloc\n", true);
        f.note("n");
        let t = text(&mut r);
        assert!(!t.contains("event: callers"), "{t}");
        f.callers("vmallocinfo at 10:00:00 UTC", "0x1-0x2 4096 a+0x1/0x2 vmalloc\n", false);
        assert!(text(&mut r).contains("event: callers\ndata: {\"name\":\"vmallocinfo at 10:00:00 UTC\""));
        f.callers("vmallocinfo at 10:00:10 UTC", "0x1-0x2 4096 a+0x1/0x2 vmalloc\n", false);
        f.note("m");
        assert!(!text(&mut r).contains("event: callers"));
        f.callers("vmallocinfo.after", "", false);
        let t = text(&mut r);
        assert!(t.contains("event: callers\ndata: {\"name\":\"vmallocinfo.after\",\"text\":\"\"}"), "{t}");
        assert!(!t.contains("before"), "{t}");
        // A page that connects now gets the before file and the last read.
        let t = text(&mut f.reader());
        assert!(t.contains("\"name\":\"vmallocinfo.before\"") && t.contains("\"name\":\"vmallocinfo.after\""), "{t}");
        assert!(!t.contains("10:00"), "{t}");
    }
}
