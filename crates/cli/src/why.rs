//! `kubeloop why FILE|LINK KIND/NAME [--namespace NS] [--at DURATION] [--rv N] [--seed N] [--timing P]`: the writes
//! an object had, and the chain of causes of one of them, as the engine recorded them while it ran.
//! `kubeloop history FILE|LINK KIND/NAME [--rv N | --from RV --to RV] ...`: every version it had, one as YAML, or the
//! diff between two.

use std::fmt::Write as _;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl::resource::kind_of;
use kubeloop_engine::manifest::ObjectText;
use kubeloop_engine::scenario::{self, line_diff, RunOptions, Scenario};
use kubeloop_engine::sim::{Chain, Sim, TimingProfile};
use kubeloop_engine::time::{human_duration, parse_duration};
use kubeloop_engine::watch::EventType;

use crate::{files, link, output, parse_args, Fail};

/// Runs `why`.
pub fn run(args: &[String]) -> Result<u8, Fail> {
    let a = parse_args(args, &["namespace", "at", "rv", "seed", "timing", "max-events"], &[], "why")?;
    let rv = a.number("rv", "why")?;
    asked(&a, "why", false, |sim, kind, key| explain(sim, kind, key, rv))
}

/// Runs `history`.
pub fn run_history(args: &[String]) -> Result<u8, Fail> {
    let takes = ["namespace", "at", "rv", "from", "to", "seed", "timing", "max-events"];
    let a = parse_args(args, &takes, &[], "history")?;
    let (rv, from, to) = (a.number("rv", "history")?, a.number("from", "history")?, a.number("to", "history")?);
    if from.is_some() != to.is_some() {
        return Err(Fail("history: --from and --to go together: the two versions to compare".into()));
    }
    asked(&a, "history", true, |sim, _, _| history(sim, rv, from.zip(to)))
}

/// Runs the scenario (or link) of `a` to `--at` (default its end) and answers with `answer` about the object
/// KIND/NAME it names; `trace`: every version of the object is kept as the run goes ([`Sim::trace`]).
fn asked(
    a: &crate::Args,
    cmd: &str,
    trace: bool,
    answer: impl FnOnce(&Sim, Kind, &ObjKey) -> (String, u8),
) -> Result<u8, Fail> {
    let (file, object) = match a.positional.as_slice() {
        [f, o] => (f, o),
        [] | [_] => {
            return Err(Fail(format!("{cmd}: a scenario file (or link) and an object (KIND/NAME) are required")))
        }
        [_, _, extra, ..] => return Err(Fail(format!("{cmd}: unexpected argument {extra:?}"))),
    };
    let (kind, name) = object
        .split_once('/')
        .ok_or_else(|| Fail(format!("{cmd}: {object:?} is not KIND/NAME (for example pod/web-5d8f7-x2x9q)")))?;
    let kind = kind_of(kind).map_err(|e| Fail(format!("{cmd}: {e}")))?;
    let ns = if kind.namespaced() { a.value("namespace").unwrap_or("default") } else { "" };
    let key = ObjKey::new(ns, name);
    let seed = a.number("seed", cmd)?;
    let at = a.value("at").map(|v| parse_duration(v).map_err(|e| Fail(format!("{cmd}: --at: {e}")))).transpose()?;
    let timing = match a.value("timing") {
        None => None,
        Some(v) => Some(
            TimingProfile::parse(v)
                .ok_or_else(|| Fail(format!("{cmd}: --timing: {v:?} is not a timing profile: real or fast-demo")))?,
        ),
    };
    let (text, file) = match link::open(file) {
        Some(opened) => (opened.map_err(|e| Fail(format!("{cmd}: {e}")))?.text, "the link"),
        None => (files::read_scenario(file).map_err(|e| Fail(format!("{file}: {e}")))?, file.as_str()),
    };
    let sc = Scenario::parse(&text).map_err(|e| Fail(format!("{file}: {e}")))?;
    let until = at.or(sc.until).unwrap_or(scenario::DEFAULT_UNTIL);
    if until > scenario::MAX_UNTIL {
        return Err(Fail(format!("{cmd}: --at: a run lasts at most {}", human_duration(scenario::MAX_UNTIL))));
    }
    let reader = files::Reader::new(files::Scope::Inside(files::dir_of(file)));
    let from_file = |name: &str| reader.read(name);
    let max_events = a.number("max-events", cmd)?;
    let opts = RunOptions { seed, until: Some(until), read_file: Some(&from_file), max_events, timing };
    let traced = key.clone();
    let setup = |sim: &mut Sim| {
        if trace {
            sim.trace(kind, traced);
        }
    };
    let mut r = sc.start_with(opts, setup).map_err(|e| Fail(format!("{file}: {e}")))?;
    r.run_to(until);
    let (text, code) = answer(r.sim(), kind, &key);
    output(&text).map(|_| code)
}

/// The traced object's versions (resourceVersion, time, verb, writer), one of them as YAML (`rv`), or the diff
/// between two (`diff`).
fn history(sim: &Sim, rv: Option<u64>, diff: Option<(u64, u64)>) -> (String, u8) {
    let mut out = String::new();
    let Some(t) = sim.causes().trace() else { return (out, 1) };
    let shown = format!("{}/{}", t.kind.name().to_ascii_lowercase(), t.key.name);
    if t.versions.is_empty() {
        let _ = writeln!(out, "{shown}: no version of it was written by {}", human_duration(sim.now()));
        return (out, 1);
    }
    let version = |rv: u64| t.versions.iter().find(|v| v.write.rv == rv);
    if let Some(rv) = rv {
        let Some(v) = version(rv) else {
            let _ = writeln!(out, "{shown} has no version at resourceVersion {rv}");
            return (out, 1);
        };
        out.push_str(&v.object.to_yaml());
        return (out, 0);
    }
    if let Some((from, to)) = diff {
        let (Some(a), Some(b)) = (version(from), version(to)) else {
            let _ = writeln!(out, "{shown} has no version at resourceVersion {from} or {to}");
            return (out, 1);
        };
        let _ = writeln!(out, "--- {shown} resourceVersion {from} ({})", human_duration(a.write.at));
        let _ = writeln!(out, "+++ {shown} resourceVersion {to} ({})", human_duration(b.write.at));
        for l in line_diff(&a.object.to_yaml(), &b.object.to_yaml(), Some(3)) {
            let _ = writeln!(out, "{l}");
        }
        return (out, 0);
    }
    let _ = writeln!(out, "{shown}: {} version(s) by {}", t.versions.len() + t.more, human_duration(sim.now()));
    let _ = writeln!(out, "  {:<10} {:>10}  {:<8} BY", "RV", "AT", "VERB");
    for v in &t.versions {
        let w = &v.write;
        let who = sim.client_name(w.client);
        let _ = writeln!(out, "  {:<10} {:>10}  {:<8} {who}", w.rv, human_duration(w.at), w.verb_said());
    }
    if t.more > 0 {
        let _ = writeln!(out, "  ... {} more, not kept", t.more);
    }
    (out, 0)
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
        let who = sim.client_name(w.client);
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
