//! `kubeloop why FILE|LINK KIND/NAME [--namespace NS] [--at DURATION] [--rv N] [--seed N] [--timing P]`: the writes
//! an object had, and the chain of causes of one of them, as the engine recorded them while it ran.

use std::fmt::Write as _;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl::resource::kind_of;
use kubeloop_engine::scenario::{self, RunOptions, Scenario};
use kubeloop_engine::sim::{Chain, Sim, TimingProfile};
use kubeloop_engine::time::{human_duration, parse_duration};
use kubeloop_engine::watch::EventType;

use crate::{files, link, output, parse_args, Fail};

/// Runs the subcommand.
pub fn run(args: &[String]) -> Result<u8, Fail> {
    let a = parse_args(args, &["namespace", "at", "rv", "seed", "timing", "max-events"], &[], "why")?;
    let (file, object) = match a.positional.as_slice() {
        [f, o] => (f, o),
        [] | [_] => return Err(Fail("why: a scenario file (or link) and an object (KIND/NAME) are required".into())),
        [_, _, extra, ..] => return Err(Fail(format!("why: unexpected argument {extra:?}"))),
    };
    let (kind, name) = object
        .split_once('/')
        .ok_or_else(|| Fail(format!("why: {object:?} is not KIND/NAME (for example pod/web-5d8f7-x2x9q)")))?;
    let kind = kind_of(kind).map_err(|e| Fail(format!("why: {e}")))?;
    let ns = if kind.namespaced() { a.value("namespace").unwrap_or("default") } else { "" };
    let key = ObjKey::new(ns, name);
    let seed = a.number("seed", "why")?;
    let rv = a.number("rv", "why")?;
    let at = a.value("at").map(|v| parse_duration(v).map_err(|e| Fail(format!("why: --at: {e}")))).transpose()?;
    let timing = match a.value("timing") {
        None => None,
        Some(v) => Some(
            TimingProfile::parse(v)
                .ok_or_else(|| Fail(format!("why: --timing: {v:?} is not a timing profile: real or fast-demo")))?,
        ),
    };
    let (text, file) = match link::open(file) {
        Some(opened) => (opened.map_err(|e| Fail(format!("why: {e}")))?.text, "the link"),
        None => (files::read_scenario(file).map_err(|e| Fail(format!("{file}: {e}")))?, file.as_str()),
    };
    let sc = Scenario::parse(&text).map_err(|e| Fail(format!("{file}: {e}")))?;
    let until = at.or(sc.until).unwrap_or(scenario::DEFAULT_UNTIL);
    if until > scenario::MAX_UNTIL {
        return Err(Fail(format!("why: --at: a run lasts at most {}", human_duration(scenario::MAX_UNTIL))));
    }
    let reader = files::Reader::new(files::Scope::Inside(files::dir_of(file)));
    let from_file = |name: &str| reader.read(name);
    let max_events = a.number("max-events", "why")?;
    let opts = RunOptions { seed, until: Some(until), read_file: Some(&from_file), max_events, timing };
    let mut r = sc.start(opts).map_err(|e| Fail(format!("{file}: {e}")))?;
    r.run_to(until);
    let (text, code) = explain(r.sim(), kind, &key, rv);
    output(&text).map(|_| code)
}

/// The object's writes kept, and the chain of causes of one (`rv`, else its creation, else its first write kept).
fn explain(sim: &Sim, kind: Kind, key: &ObjKey, rv: Option<u64>) -> (String, u8) {
    let writes: Vec<_> = sim.causes().writes_of(kind, key).collect();
    let shown = format!("{}/{}", kind.name().to_ascii_lowercase(), key.name);
    let mut out = String::new();
    if writes.is_empty() {
        let _ = writeln!(out, "{shown}: no write of it is kept at {}", human_duration(sim.now()));
        return (out, 1);
    }
    let _ = writeln!(out, "{shown}: {} write(s) kept at {}", writes.len(), human_duration(sim.now()));
    for w in &writes {
        let verb = w.verb_said();
        let who = sim.store().clients().get(w.client).map_or("the API server".to_string(), |c| c.name.to_string());
        let _ = writeln!(out, "  rv {:<8} {:>10}  {verb:<8} by {who}", w.rv, human_duration(w.at));
    }
    let chosen = match rv {
        Some(rv) => match writes.iter().find(|w| w.rv == rv) {
            Some(w) => w,
            None => {
                let _ = writeln!(out, "no write of {shown} at resourceVersion {rv} is kept");
                return (out, 1);
            }
        },
        None => writes.iter().find(|w| w.verb == EventType::Added).unwrap_or(&writes[0]),
    };
    let _ = writeln!(out, "\nwhy resourceVersion {} ({}):", chosen.rv, human_duration(chosen.at));
    print_chain(&mut out, &sim.chain(chosen.rv));
    (out, 0)
}

fn print_chain(out: &mut String, chain: &Chain) {
    for s in &chain.steps {
        let _ = writeln!(out, "  {:>10}  {:<12} {}", human_duration(s.at), s.kind.as_str(), s.text);
    }
    if let Some(e) = &chain.ends {
        let _ = writeln!(out, "  (the chain ends here: {e})");
    }
}
