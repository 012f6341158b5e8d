//! Links to the page, on the command line: `kubeloop link FILE` makes one that opens the run `kubeloop run FILE`
//! makes, at its end; `kubeloop run LINK` runs the run a link holds (one the page's Share made, say). The fragment's
//! format is the engine's ([`kubeloop_engine::link`]); the DEFLATE is miniz_oxide's, raw as the browser's.

use std::cell::RefCell;

use kubeloop_engine::link::{self, Link};
use kubeloop_engine::scenario::{self, RunOptions, Scenario};
use kubeloop_engine::sim::TimingProfile;
use kubeloop_engine::time::parse_duration;

use crate::{output, parse_args, Fail, USAGE};

/// A run read from a link: its scenario file and the history hash the link says it ends at.
pub struct Opened {
    pub text: String,
    pub hash: Option<u64>,
}

/// `arg` read as a link, when it is one: not a file that exists, and a `#` with something after it (or a bare
/// `run=...`).
pub fn open(arg: &str) -> Option<Result<Opened, String>> {
    if std::path::Path::new(arg).exists() || !(arg.contains('#') || arg.starts_with("run=")) {
        return None;
    }
    Some(read(arg))
}

fn read(arg: &str) -> Result<Opened, String> {
    match link::parse(arg)? {
        Some(Link::Run { run, hash }) => {
            let bytes = inflate(&run)?;
            let text = String::from_utf8(bytes).map_err(|_| "the link's run is not UTF-8 text".to_string())?;
            Ok(Opened { text, hash })
        }
        Some(_) => Err(
            "the link opens a lesson, an example or a cluster size in the page; `kubeloop run` runs links to a run \
                        (#run=...), and the lessons and examples are the files of examples/"
                .to_string(),
        ),
        None => Err("the link has nothing after its #".to_string()),
    }
}

/// Raw DEFLATE, expanded to at most [`link::MAX_TEXT`].
pub fn inflate(data: &[u8]) -> Result<Vec<u8>, String> {
    use miniz_oxide::inflate::{decompress_to_vec_with_limit, TINFLStatus};
    decompress_to_vec_with_limit(data, link::MAX_TEXT).map_err(|e| match e.status {
        TINFLStatus::HasMoreOutput => {
            format!("the link's run expands to more than {} MiB, more than kubeloop opens", link::MAX_TEXT >> 20)
        }
        _ => "the link's run is not DEFLATE data (cut short when it was copied?)".to_string(),
    })
}

/// Raw DEFLATE at the best compression.
pub fn deflate(text: &str) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9)
}

/// `kubeloop link FILE [--page URL] [--seed N] [--until DURATION] [--timing PROFILE]`.
pub fn run(args: &[String]) -> Result<u8, Fail> {
    let a = parse_args(args, &["page", "seed", "until", "timing"], &[], "link")?;
    let file = match a.positional.as_slice() {
        [f] => f,
        [] => return Err(Fail(format!("link: a scenario file is required\n\n{USAGE}"))),
        [_, extra, ..] => return Err(Fail(format!("link: unexpected argument {extra:?} (one file at a time)"))),
    };
    let text = crate::files::read_scenario(file).map_err(|e| Fail(format!("{file}: {e}")))?;
    let mut sc = Scenario::parse(&text).map_err(|e| Fail(format!("{file}: {e}")))?;
    // What `kubeloop run FILE` would run, said in the file: the page replays a link to its `until:`.
    sc.seed = Some(a.number("seed", "link")?.or(sc.seed).unwrap_or(scenario::DEFAULT_SEED));
    let until = match a.value("until") {
        Some(v) => parse_duration(v).map_err(|e| Fail(format!("link: --until: {e}")))?,
        None => sc.until.unwrap_or(scenario::DEFAULT_UNTIL),
    };
    sc.until = Some(until);
    if let Some(v) = a.value("timing") {
        sc.timing = TimingProfile::parse(v)
            .ok_or_else(|| Fail(format!("link: --timing: {v:?} is not a timing profile: real or fast-demo")))?;
    }
    let text = sc.to_yaml();
    // The link holds the scenario and nothing else: a run that reads files cannot be one.
    let asked = RefCell::new(Vec::new());
    let read_file = |name: &str| {
        asked.borrow_mut().push(name.to_string());
        Err(format!("the path \"{name}\" does not exist"))
    };
    let linked = Scenario::parse(&text).map_err(|e| Fail(format!("{file}: written back, it does not read: {e}")))?;
    let opts = RunOptions { read_file: Some(&read_file), ..RunOptions::default() };
    let outcome = linked.run(opts).map_err(|e| Fail(format!("{file}: {e}")))?;
    if let Some(name) = asked.borrow().first() {
        return Err(Fail(format!(
            "{file}: its actions read {name:?} (kubectl -f PATH): a link holds the scenario alone; put the manifests in the scenario (an apply: action) or share the files"
        )));
    }
    if let Some(at) = outcome.summary.stopped_at_budget_ms {
        return Err(Fail(format!(
            "{file}: the run stops at its work budget at {}: the page would stop there too; shorten `until:`",
            kubeloop_engine::time::human_duration(at)
        )));
    }
    let hash = u64::from_str_radix(&outcome.summary.history_hash, 16)
        .map_err(|_| Fail("the run's history hash is not hex".to_string()))?;
    let fragment = link::run_fragment(&deflate(&text), hash).map_err(|e| Fail(format!("{file}: {e}")))?;
    let url = match a.value("page") {
        Some(page) => link::with_fragment(page, &fragment),
        None => format!("#{fragment}"),
    };
    output(&format!("{url}\n")).map(|_| 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deflate_round_trips_and_inflate_is_bounded() {
        let text = "apiVersion: v1\nkind: ConfigMap\n".repeat(100);
        assert_eq!(inflate(&deflate(&text)).unwrap(), text.as_bytes());
        let bomb = deflate(&"a".repeat(link::MAX_TEXT + 1));
        assert!(bomb.len() < 20_000);
        assert!(inflate(&bomb).unwrap_err().contains("expands to more than 8 MiB"));
        assert!(inflate(&[0xff, 0x00]).unwrap_err().contains("not DEFLATE data"));
        assert!(inflate(&deflate(&text)[..10]).unwrap_err().contains("not DEFLATE data"));
    }

    #[test]
    fn only_links_are_links() {
        assert!(open("Cargo.toml").is_none());
        assert!(open("examples/node-failure.yaml").is_none());
        assert!(open("no-such-file.yaml").is_none());
        let Some(Err(e)) = open("http://example.org/#lesson=probes") else { panic!("a link") };
        assert!(e.contains("opens a lesson, an example or a cluster size"), "{e}");
        let fragment = link::run_fragment(&deflate("seed: 3\n"), 5).unwrap();
        let Some(Ok(o)) = open(&format!("https://example.org/kubeloop/#{fragment}")) else { panic!("a link") };
        assert_eq!((o.text.as_str(), o.hash), ("seed: 3\n", Some(5)));
    }
}
