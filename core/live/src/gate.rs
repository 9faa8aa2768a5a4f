//! Who may be served: the request's method, `Host`, `Origin` and token, judged before anything
//! is read from disk. Loopback only is not enough on its own: any page the browser shows can
//! make it send requests to 127.0.0.1 (a form, an image, a DNS name rebound to 127.0.0.1), so
//! every request must also carry the token printed on the terminal, or the cookie it set.

/// What to do with a request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Refused: the status and why (said in the body, never the token).
    Refuse(u16, &'static str),
    /// The right token in the query: set the cookie and send the browser to `location`.
    Admit { location: String },
    /// Serve this path (percent-encoded as it came, without the query).
    Serve { path: String, head: bool },
}

/// The server's own figures.
#[derive(Clone, Debug)]
pub struct Gate {
    pub port: u16,
    /// 32 hex digits: 128 random bits.
    pub token: String,
}

impl Gate {
    /// The cookie's name: one per port, so that two sessions do not overwrite each other's.
    pub fn cookie_name(&self) -> String {
        format!("vmap_live_{}", self.port)
    }

    /// The `Set-Cookie` value given on admission: not readable by scripts, never sent along
    /// with another site's request.
    pub fn set_cookie(&self) -> String {
        format!("{}={}; Path=/; HttpOnly; SameSite=Strict", self.cookie_name(), self.token)
    }

    /// Judge a request from its method, its URL as sent (`/path?query`) and its headers
    /// (`Host`, `Origin`, `Cookie`: each the first of its name, or None).
    pub fn judge(
        &self,
        method: &str,
        url: &str,
        host: Option<&str>,
        origin: Option<&str>,
        cookie: Option<&str>,
    ) -> Verdict {
        let head = match method {
            "GET" => false,
            "HEAD" => true,
            _ => return Verdict::Refuse(405, "only GET and HEAD are served: the feed is read-only"),
        };
        let ours = [format!("127.0.0.1:{}", self.port), format!("localhost:{}", self.port)];
        let Some(host) = host.filter(|h| ours.iter().any(|o| o == h)) else {
            return Verdict::Refuse(403, "Host is not 127.0.0.1:PORT or localhost:PORT (a rebound DNS name?)");
        };
        if let Some(o) = origin {
            if o != format!("http://{host}") {
                return Verdict::Refuse(403, "Origin is another site");
            }
        }
        let (path, query) = match url.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (url, None),
        };
        if !path.starts_with('/') {
            return Verdict::Refuse(403, "not a path");
        }
        let given = query.and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("token=")));
        if let Some(t) = given {
            if same(t.as_bytes(), self.token.as_bytes()) {
                // `//host` would be another site: only a path of this one.
                let location = if path.starts_with("//") { "/".to_string() } else { path.to_string() };
                return Verdict::Admit { location };
            }
            return Verdict::Refuse(403, "wrong token");
        }
        let name = self.cookie_name();
        let carried = cookie
            .into_iter()
            .flat_map(|c| c.split(';'))
            .filter_map(|kv| kv.trim().split_once('='))
            .any(|(k, v)| k == name && same(v.as_bytes(), self.token.as_bytes()));
        if !carried {
            return Verdict::Refuse(403, "no token: open the URL vmap-live printed");
        }
        Verdict::Serve { path: path.to_string(), head }
    }
}

/// Equal bytes, in a time that does not depend on where they first differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// 128 random bits from /dev/urandom, as 32 hex digits.
pub fn new_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Gate {
        Gate { port: 8000, token: "0123456789abcdef0123456789abcdef".into() }
    }
    const H: Option<&str> = Some("127.0.0.1:8000");

    #[test]
    fn token_then_cookie() {
        let g = g();
        let v = g.judge("GET", "/x/?token=0123456789abcdef0123456789abcdef", H, None, None);
        assert_eq!(v, Verdict::Admit { location: "/x/".into() });
        let v = g.judge("GET", "//evil.example/?token=0123456789abcdef0123456789abcdef", H, None, None);
        assert_eq!(v, Verdict::Admit { location: "/".into() });
        let c = "a=b; vmap_live_8000=0123456789abcdef0123456789abcdef";
        assert_eq!(
            g.judge("HEAD", "/a.js", H, Some("http://127.0.0.1:8000"), Some(c)),
            Verdict::Serve { path: "/a.js".into(), head: true }
        );
        // The cookie of another port's session is not this one's.
        let other = "vmap_live_8001=0123456789abcdef0123456789abcdef";
        assert!(matches!(g.judge("GET", "/", H, None, Some(other)), Verdict::Refuse(403, _)));
    }

    #[test]
    fn refusals() {
        let g = g();
        let c = Some("vmap_live_8000=0123456789abcdef0123456789abcdef");
        assert!(matches!(g.judge("POST", "/", H, None, c), Verdict::Refuse(405, _)));
        assert!(matches!(g.judge("GET", "/", Some("evil.example:8000"), None, c), Verdict::Refuse(403, _)));
        assert!(matches!(g.judge("GET", "/", Some("127.0.0.1:8001"), None, c), Verdict::Refuse(403, _)));
        assert!(matches!(g.judge("GET", "/", None, None, c), Verdict::Refuse(403, _)));
        assert!(matches!(g.judge("GET", "/", H, Some("http://evil.example"), c), Verdict::Refuse(403, _)));
        assert!(matches!(g.judge("GET", "/", H, Some("http://localhost:8000"), c), Verdict::Refuse(403, _)));
        assert!(matches!(
            g.judge("GET", "/?token=0123456789abcdef0123456789abcdee", H, None, None),
            Verdict::Refuse(403, _)
        ));
        assert!(matches!(g.judge("GET", "/?token=", H, None, None), Verdict::Refuse(403, _)));
        assert!(matches!(g.judge("GET", "/", H, None, None), Verdict::Refuse(403, _)));
        assert!(matches!(g.judge("GET", "/", H, None, Some("vmap_live_8000=")), Verdict::Refuse(403, _)));
    }

    #[test]
    fn tokens_differ() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
