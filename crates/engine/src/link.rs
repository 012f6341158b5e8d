//! Links to the page: what a URL's fragment (the part after `#`, which the browser never sends to a server) opens.
//!
//! - `#run=DATA&hash=H`: a whole run. `DATA` is the run's scenario file (as the page exports it) compressed with raw
//!   DEFLATE (RFC 1951) and written in unpadded base64url (RFC 4648 §5); `H` is the history hash the run had when the
//!   link was made (16 hex digits), so that whoever opens it can see that they see the same run.
//! - `#lesson=ID`: a lesson, at its start.
//! - `#scenario=NAME`: one of the scenario files of `examples/` (`node-failure`), replayed to its end.
//! - `#example=ID`: one of the examples menu's manifests, applied to the page's starting cluster.
//! - `#cluster=NODESxPODS` (`1000x30000`): a new run of that many nodes and pods (kubeloop's own demo Deployments,
//!   as `kubeloop bench` makes them).
//!
//! This module reads and writes the fragment; compressing is the caller's (the page uses the browser's
//! `CompressionStream`, the runner a DEFLATE library), so the engine stays free of both.

/// The longest fragment kubeloop makes or opens (kubeloop's own bound: browsers open far longer URLs, but chat tools,
/// mail clients and address bars cut or refuse long ones well before). A run too large for it is exported as a file.
pub const MAX_FRAGMENT: usize = 64 * 1024;

/// The most a run's compressed scenario may expand to (the bound on scenario files the page opens).
pub const MAX_TEXT: usize = 8 * 1024 * 1024;

/// What a link opens. `R` is the run's form: DEFLATE-compressed as the link carries it (the default), its scenario
/// file once inflated (what the page opens).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Link<R = Vec<u8>> {
    /// A run: its scenario, and the history hash it had when the link was made.
    Run {
        run: R,
        hash: Option<u64>,
    },
    Lesson(String),
    /// One of the scenario files of `examples/`, by name.
    Scenario(String),
    /// One of the examples menu's manifests, by id.
    Example(String),
    /// A cluster of this many nodes and pods (kubeloop's own demo Deployments).
    Cluster {
        nodes: usize,
        pods: usize,
    },
}

impl<R> Link<R> {
    /// The same link with its run (if it names one) in another form.
    pub fn map_run<S>(self, f: impl FnOnce(R) -> S) -> Link<S> {
        match self {
            Link::Run { run, hash } => Link::Run { run: f(run), hash },
            Link::Lesson(id) => Link::Lesson(id),
            Link::Scenario(name) => Link::Scenario(name),
            Link::Example(id) => Link::Example(id),
            Link::Cluster { nodes, pods } => Link::Cluster { nodes, pods },
        }
    }
}

/// `NODESxPODS` (`1000x30000`) read as two counts, or why not.
fn cluster_size(value: &str) -> Result<Link, String> {
    let size = value.split_once(['x', 'X']).and_then(|(n, p)| Some((n.trim().parse().ok()?, p.trim().parse().ok()?)));
    match size {
        Some((nodes, pods)) => Ok(Link::Cluster { nodes, pods }),
        None => {
            let shown: String = value.chars().take(40).collect();
            Err(format!("the link's cluster={shown:?} is not a size: NODESxPODS, e.g. cluster=1000x30000"))
        }
    }
}

/// The fragment of a link to a run (without the `#`): `run=DATA&hash=H`, or why the run is too large for one.
pub fn run_fragment(deflated: &[u8], hash: u64) -> Result<String, String> {
    let data = base64url(deflated);
    let fragment = format!("run={data}&hash={hash:016x}");
    if fragment.len() > MAX_FRAGMENT {
        return Err(format!(
            "the run is too large for a link: {} characters compressed, links hold at most {} (kubeloop's own bound, so that chat and mail keep them whole); export it as a file instead",
            fragment.len(),
            MAX_FRAGMENT
        ));
    }
    Ok(fragment)
}

/// `page` (any `#...` of it dropped) with `fragment` after a `#`.
pub fn with_fragment(page: &str, fragment: &str) -> String {
    let base = page.split_once('#').map_or(page, |(b, _)| b);
    format!("{base}#{fragment}")
}

/// Reads a fragment (with or without its `#`, or a whole URL with one): nothing to open (`Ok(None)`: no fragment, or
/// an empty one), a link, or why it is not one.
pub fn parse(fragment: &str) -> Result<Option<Link>, String> {
    let f = match fragment.split_once('#') {
        Some((_, f)) => f,
        None if fragment.contains("://") => return Ok(None),
        None => fragment,
    };
    let f = f.trim();
    if f.is_empty() {
        return Ok(None);
    }
    if f.len() > MAX_FRAGMENT {
        return Err(format!(
            "the link is {} characters long after its #; kubeloop opens links of at most {MAX_FRAGMENT}",
            f.len()
        ));
    }
    let mut data = None;
    let mut hash = None;
    let mut named: Option<Link> = None;
    for part in f.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = part.split_once('=').unwrap_or((part, ""));
        let value = percent_decode(value);
        let mut name = |make: fn(String) -> Link| -> Result<(), String> {
            if value.is_empty() || value.len() > 253 {
                return Err(format!("the link's {key}= names nothing"));
            }
            if named.replace(make(value.clone())).is_some() {
                return Err("the link names more than one thing to open".to_string());
            }
            Ok(())
        };
        match key {
            "run" => data = Some(value),
            "hash" => {
                let h = u64::from_str_radix(&value, 16)
                    .ok()
                    .filter(|_| value.len() == 16)
                    .ok_or_else(|| format!("the link's hash={value:?} is not a history hash (16 hex digits)"))?;
                hash = Some(h);
            }
            "lesson" => name(Link::Lesson)?,
            "scenario" => name(Link::Scenario)?,
            "example" => name(Link::Example)?,
            "cluster" => {
                if named.replace(cluster_size(&value)?).is_some() {
                    return Err("the link names more than one thing to open".to_string());
                }
            }
            other => {
                let shown: String = other.chars().take(40).collect();
                return Err(format!(
                    "the link's #{shown}= is not something kubeloop opens (run=, lesson=, scenario=, example= or cluster=)"
                ));
            }
        }
    }
    match (data, named) {
        (Some(_), Some(_)) => Err("the link names more than one thing to open".to_string()),
        (Some(d), None) => {
            let deflated = unbase64url(&d).map_err(|e| format!("the link's run= does not read: {e}"))?;
            if deflated.is_empty() {
                return Err("the link's run= is empty".to_string());
            }
            Ok(Some(Link::Run { run: deflated, hash }))
        }
        (None, Some(_)) if hash.is_some() => Err("the link's hash= belongs to a run= link".to_string()),
        (None, Some(n)) => Ok(Some(n)),
        (None, None) => Err("the link has a hash= but no run=".to_string()),
    }
}

/// `%XX` escapes decoded (a chat tool may escape `=` or `&`); anything else as it is.
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (b[i], b.get(i + 1).copied().and_then(hex), b.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url.
pub fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Reads base64url (the standard alphabet's `+` and `/`, `=` padding and line breaks are accepted too, as a mail
/// client may leave them).
pub fn unbase64url(text: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let (mut acc, mut bits) = (0u32, 0u32);
    for (i, c) in text.trim_end_matches('=').bytes().enumerate() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            b'\n' | b'\r' | b' ' => continue,
            _ => return Err(format!("{:?} at character {} is not base64url", c as char, i + 1)),
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("it ends in the middle of a byte (a character is missing or one too many)".to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length_and_byte() {
        for len in 0..70usize {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 97 + len * 31) as u8).collect();
            let text = base64url(&bytes);
            assert!(text.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_'), "{text}");
            assert_eq!(unbase64url(&text).unwrap(), bytes);
        }
        // RFC 4648's test vectors, in the url alphabet and without padding.
        for (plain, enc) in
            [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE")]
        {
            assert_eq!(base64url(plain.as_bytes()), enc);
            assert_eq!(unbase64url(enc).unwrap(), plain.as_bytes());
        }
        assert_eq!(unbase64url("Zm9vYg==").unwrap(), b"foob");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(unbase64url("+/8").unwrap(), [0xfb, 0xff]);
        assert!(unbase64url("Zm9vY").unwrap_err().contains("middle of a byte"));
        assert!(unbase64url("Zm9*").unwrap_err().contains("'*' at character 4"));
    }

    #[test]
    fn a_run_link_reads_back() {
        let fragment = run_fragment(&[1, 2, 3, 250], 0x00ab_cdef_0123_4567).unwrap();
        assert_eq!(fragment, "run=AQID-g&hash=00abcdef01234567");
        let want = Link::Run { run: vec![1, 2, 3, 250], hash: Some(0x00ab_cdef_0123_4567) };
        assert_eq!(parse(&fragment).unwrap(), Some(want.clone()));
        assert_eq!(parse(&format!("#{fragment}")).unwrap(), Some(want.clone()));
        let url = with_fragment("http://127.0.0.1:8765/kubeloop/?seed=4#lesson=probes", &fragment);
        assert_eq!(url, format!("http://127.0.0.1:8765/kubeloop/?seed=4#{fragment}"));
        assert_eq!(parse(&url).unwrap(), Some(want.clone()));
        // Escaped by a chat tool.
        assert_eq!(
            parse("run=AQID-g%26hash=00abcdef01234567").unwrap_err(),
            "the link's run= does not read: '&' at character 7 is not base64url"
        );
        assert_eq!(parse("run=AQID-g&hash%3D00abcdef01234567").unwrap_err(), "the link's #hash%3D00abcdef01234567= is not something kubeloop opens (run=, lesson=, scenario=, example= or cluster=)");
        assert_eq!(parse("run=AQID-g%3D%3D&hash=00abcdef01234567").unwrap(), Some(want));
        assert_eq!(parse("run=AQID-g").unwrap(), Some(Link::Run { run: vec![1, 2, 3, 250], hash: None }));
    }

    #[test]
    fn lesson_scenario_example_and_cluster_links_read_and_empty_ones_are_none() {
        assert_eq!(parse("#lesson=probes").unwrap(), Some(Link::Lesson("probes".into())));
        assert_eq!(parse("scenario=node-failure").unwrap(), Some(Link::Scenario("node-failure".into())));
        assert_eq!(parse("#example=too-big&").unwrap(), Some(Link::Example("too-big".into())));
        assert_eq!(parse("#cluster=1000x30000").unwrap(), Some(Link::Cluster { nodes: 1000, pods: 30_000 }));
        assert_eq!(parse("").unwrap(), None);
        assert_eq!(parse("#").unwrap(), None);
        assert_eq!(parse("http://example.org/kubeloop/").unwrap(), None);
        assert_eq!(parse("http://example.org/kubeloop/#").unwrap(), None);
    }

    #[test]
    fn what_is_not_a_link_says_why() {
        for (f, why) in [
            ("#lesson=", "the link's lesson= names nothing"),
            ("#lesson=a&scenario=b", "the link names more than one thing to open"),
            ("#run=AQID&lesson=a", "the link names more than one thing to open"),
            ("#lesson=a&hash=00abcdef01234567", "the link's hash= belongs to a run= link"),
            ("#hash=00abcdef01234567", "the link has a hash= but no run="),
            ("#run=AQID&hash=xyz", "the link's hash=\"xyz\" is not a history hash (16 hex digits)"),
            ("#run=AQID&hash=abc", "the link's hash=\"abc\" is not a history hash (16 hex digits)"),
            ("#run=", "the link's run= is empty"),
            ("#cluster=1000", "the link's cluster=\"1000\" is not a size: NODESxPODS, e.g. cluster=1000x30000"),
            ("#cluster=ax2", "the link's cluster=\"ax2\" is not a size: NODESxPODS, e.g. cluster=1000x30000"),
            ("#cluster=1x2&lesson=a", "the link names more than one thing to open"),
            (
                "#open=x",
                "the link's #open= is not something kubeloop opens (run=, lesson=, scenario=, example= or cluster=)",
            ),
        ] {
            assert_eq!(parse(f).unwrap_err(), why, "{f}");
        }
        let long = format!("#run={}", "A".repeat(MAX_FRAGMENT));
        assert!(parse(&long).unwrap_err().contains("kubeloop opens links of at most 65536"));
        let big = vec![7u8; MAX_FRAGMENT];
        assert!(run_fragment(&big, 1).unwrap_err().starts_with("the run is too large for a link"));
    }

    /// Any fragment opens something, is no link (nothing after its `#`), or gets a message saying why not; any
    /// text decodes as base64url to six bits a character (re-encoding it reads back the same bytes) or says why not.
    #[test]
    fn every_fragment_opens_or_says_why() {
        let mut rng = kubeloop_core::rng::Rng::new(7);
        let alphabet = b"run=hash&lesson%3D0123456789abcdefAZ-_+/#:";
        let mut seen = [0usize; 3];
        for _ in 0..20_000 {
            let len = rng.range(0, 40) as usize;
            let s: String =
                (0..len).map(|_| alphabet[rng.range(0, alphabet.len() as u64 - 1) as usize] as char).collect();
            match parse(&s) {
                Ok(None) => {
                    let after = s.split_once('#').map(|(_, f)| f);
                    assert!(after.map_or(s.contains("://") || s.trim().is_empty(), |f| f.trim().is_empty()), "{s:?}");
                    seen[0] += 1;
                }
                Ok(Some(Link::Run { run, .. })) => assert!(!run.is_empty(), "{s:?}"),
                Ok(Some(Link::Cluster { .. })) => {}
                Ok(Some(Link::Lesson(n) | Link::Scenario(n) | Link::Example(n))) => {
                    assert!(!n.is_empty() && n.len() <= 253, "{s:?}: {n:?}")
                }
                Err(e) => {
                    assert!(e.starts_with("the link"), "{s:?}: {e}");
                    seen[1] += 1;
                }
            }
            let data = s.trim_end_matches('=');
            match unbase64url(&s) {
                Ok(bytes) => {
                    assert_eq!(bytes.len(), data.len() * 6 / 8, "{s:?}");
                    assert_eq!(unbase64url(&base64url(&bytes)), Ok(bytes), "{s:?}");
                    seen[2] += 1;
                }
                Err(e) => assert!(
                    e.ends_with("is not base64url") || e.starts_with("it ends in the middle of a byte"),
                    "{s:?}: {e}"
                ),
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "no link, refused, decoded: {seen:?}");
    }
}
