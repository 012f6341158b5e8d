//! Hostile input for kubeloop, and the oracles every input is held to.
//!
//! Six targets, one per grammar kubeloop reads from a person: manifests (parse, validate, apply to a small
//! cluster and let the controllers reconcile them), kubectl command lines (against a small running cluster, with
//! the rest of the input as `-f -`), scenarios (parse and a short run), quantities, label selectors and durations.
//! An input is either raw text (any bytes; not valid UTF-8 is read lossily) or, when its first byte is 0, the
//! choices of a structure-aware generator ([`generate`]) that writes a text of the grammar from the remaining
//! bytes, with numeric extremes, anchors, nesting, duplicates and multibyte text.
//!
//! [`check`] runs one input and panics when an oracle fails:
//! - nothing panics (the callers build with overflow checks: CI's debug tests, the fuzzers' `-a` builds);
//! - every error message is bounded ([`MAX_MESSAGE_CHARS`] and the cut's note) and its line is in the text;
//! - `apply` is all-or-nothing: a refused manifest writes nothing;
//! - a read-only kubectl command changes nothing the simulation's future depends on (its random stream, its
//!   timers, the store's history);
//! - outputs stay within their budget ([`OUTPUT_MAX_BYTES`]), caps hold, runs stay within their work budget;
//! - values survive their own rendering (a selector printed and parsed again is the same selector; a canonical
//!   quantity parses to its value).
//!
//! Time and memory per input are the fuzzers' oracles (`-timeout`, `-rss_limit_mb`: `scripts/fuzz.sh`); the
//! work each input can cause here is bounded by event budgets, so a slow input is a finding, not a long run.

pub mod bytes;
pub mod generate;

use kubeloop_engine::api::selector::parse_selector;
use kubeloop_engine::api::{Kind, Quantity};
use kubeloop_engine::kubectl::{self, Input};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::limits::{self, MAX_MESSAGE_CHARS, OUTPUT_MAX_BYTES};
use kubeloop_engine::manifest;
use kubeloop_engine::scenario::{RunOptions, Scenario};
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{self, Millis, MINUTE, SECOND};

use bytes::Bytes;

/// A grammar kubeloop reads, and the target that fuzzes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Manifest,
    Kubectl,
    Scenario,
    Quantity,
    Selector,
    Duration,
}

impl Target {
    pub const ALL: [Target; 6] =
        [Target::Manifest, Target::Kubectl, Target::Scenario, Target::Quantity, Target::Selector, Target::Duration];

    /// The target's name: its fuzzer's and its corpus folder's (`fuzz/corpus/NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Target::Manifest => "manifest",
            Target::Kubectl => "kubectl",
            Target::Scenario => "scenario",
            Target::Quantity => "quantity",
            Target::Selector => "selector",
            Target::Duration => "duration",
        }
    }

    /// The text an input stands for: raw text, or (first byte 0) what the generator writes from the rest.
    pub fn text(self, data: &[u8]) -> String {
        match data.split_first() {
            Some((0, rest)) => {
                let b = &mut Bytes::new(rest);
                match self {
                    Target::Manifest => generate::manifest(b),
                    Target::Kubectl => {
                        let line = generate::kubectl_line(b);
                        if b.chance(30) {
                            format!("{line}\n{}", generate::manifest(b))
                        } else {
                            line
                        }
                    }
                    Target::Scenario => generate::scenario(b),
                    Target::Quantity => generate::quantity(b),
                    Target::Selector => generate::selector(b),
                    Target::Duration => generate::duration(b),
                }
            }
            _ => String::from_utf8_lossy(data).into_owned(),
        }
    }
}

/// Runs one input of `target` and checks every oracle; panics (with what failed) when one does not hold.
pub fn check(target: Target, data: &[u8]) {
    let text = target.text(data);
    match target {
        Target::Manifest => check_manifest(&text),
        Target::Kubectl => check_kubectl(&text),
        Target::Scenario => check_scenario(&text),
        Target::Quantity => check_quantity(&text),
        Target::Selector => check_selector(&text),
        Target::Duration => check_duration(&text),
    }
}

/// A message repeats a bounded piece of user text and is itself bounded ([`limits::bound_message`]).
fn bounded(what: &str, message: &str) {
    let chars = message.chars().count();
    assert!(chars <= MAX_MESSAGE_CHARS + 60, "{what}: a message of {chars} characters: {:?}", cut(message));
}

fn cut(s: &str) -> String {
    s.chars().take(300).collect()
}

/// Lines as YAML (libyaml, go-yaml) counts them: `\n`, `\r\n`, a lone `\r`, NEL, LS and PS each end one.
fn lines(text: &str) -> usize {
    let mut n = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => n += 1,
            _ => {}
        }
    }
    n
}

fn located(what: &str, text: &str, line: usize) {
    assert!(line >= 1 && line <= lines(text) + 1, "{what}: line {line} of a text of {} lines", lines(text));
}

/// Runs at most `max_events` simulation events over the next `d`: the work an input causes is bounded.
fn run_bounded(sim: &mut Sim, d: Millis, max_events: usize) {
    let end = sim.now().saturating_add(d);
    for _ in 0..max_events {
        match sim.next_event_at() {
            Some(t) if t <= end => {
                sim.step();
            }
            _ => break,
        }
    }
}

/// Caps hold at the store, whoever wrote.
fn within_caps(sim: &Sim) {
    for kind in [Kind::Node, Kind::Pod, Kind::Namespace, Kind::Deployment, Kind::ReplicaSet] {
        let n = sim.store().count_of(kind);
        assert!(n <= kind.max_objects(), "{kind:?}: {n} objects, over the cap");
    }
}

fn check_manifest(text: &str) {
    match manifest::parse(text) {
        Err(e) => {
            bounded("manifest::parse", &e.message);
            located("manifest::parse", text, e.line);
        }
        Ok((manifests, warnings)) => {
            for w in &warnings {
                located("a warning", text, w.line);
            }
            for m in &manifests {
                if let Err(e) = manifest::validate(m) {
                    bounded("manifest::validate", &e.message);
                    located("manifest::validate", text, e.line);
                }
            }
        }
    }
    // Applied to a small cluster, which then reconciles what it was given.
    let mut sim = Sim::new(SimConfig { seed: 1, ..Default::default() });
    sim.add_node(NodeConfig::default()).expect("a default node");
    run_bounded(&mut sim, SECOND, 1_000);
    let before = sim.store().resource_version();
    // Object by object, as kubectl applies: every failure bounded and located; an apply that applied nothing
    // wrote nothing.
    let report = kubectl::apply_each(&mut sim, text);
    for e in &report.errors {
        bounded("apply", &e.message);
        located("apply", text, e.line);
    }
    for w in &report.warnings {
        located("an apply warning", text, w.line);
    }
    if report.results.iter().all(|r| r.action == kubectl::ApplyAction::Unchanged) {
        assert_eq!(sim.store().resource_version(), before, "an apply that applied nothing wrote: {report}");
    }
    run_bounded(&mut sim, 30 * SECOND, 20_000);
    within_caps(&sim);
}

/// The first word of a command line, after `kubectl`.
fn verb(line: &str) -> &str {
    let mut words = line.split_whitespace();
    match words.next() {
        Some("kubectl" | "k") => words.next().unwrap_or(""),
        Some(w) => w,
        None => "",
    }
}

/// Commands that only read: they must not change the simulation's future.
const READS: &[&str] = &["get", "describe", "top", "events", "explain", "api-resources", "version", "help"];

/// What a read must leave as it was.
fn future(sim: &Sim) -> (u64, u64, usize, u64) {
    (sim.history_hash(), sim.rng_peek(), sim.pending_timers(), sim.store().resource_version())
}

/// A small running cluster: two nodes, Deployment `web` with two pods, a minute in.
pub fn small_cluster() -> Sim {
    const WEB: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n";
    let mut sim = Sim::new(SimConfig { seed: 1, ..Default::default() });
    for _ in 0..2 {
        sim.add_node(NodeConfig::default()).expect("a default node");
    }
    kubectl::apply(&mut sim, WEB).expect("apply web");
    sim.run_for(MINUTE);
    sim
}

fn output_bounded(what: &str, stdout: &str, stderr: &str) {
    let slack = 64 * 1024;
    assert!(stdout.len() <= OUTPUT_MAX_BYTES + slack, "{what}: {} bytes of output", stdout.len());
    assert!(stderr.len() <= OUTPUT_MAX_BYTES + slack, "{what}: {} bytes on stderr", stderr.len());
}

fn check_kubectl(text: &str) {
    let (line, stdin) = match text.split_once('\n') {
        Some((line, rest)) => (line, Some(rest)),
        None => (text, None),
    };
    let file = |name: &str| -> Result<String, String> {
        match name {
            "manifest.yaml" => Ok("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: from-file\n".into()),
            _ => Err(format!("the path \"{}\" does not exist", limits::echo(name))),
        }
    };
    let mut sim = small_cluster();
    let before = future(&sim);
    let mut out = kubectl::run(&mut sim, line, &Input { stdin, read_file: &file });
    output_bounded("kubectl", &out.stdout, &out.stderr);
    assert!(out.warnings.len() <= OUTPUT_MAX_BYTES, "kubectl: {} bytes of warnings", out.warnings.len());
    if READS.contains(&verb(line)) {
        assert_eq!(future(&sim), before, "the read {:?} changed the simulation's future", cut(line));
    }
    if let Some(follow) = out.follow.as_mut() {
        for _ in 0..5 {
            run_bounded(&mut sim, 10 * SECOND, 5_000);
            let poll = follow.poll(&mut sim);
            output_bounded("kubectl (following)", &poll.stdout, &poll.stderr);
            if poll.done {
                break;
            }
        }
        follow.stop(&mut sim);
    }
    run_bounded(&mut sim, 30 * SECOND, 20_000);
    within_caps(&sim);
}

fn check_scenario(text: &str) {
    let scenario = match Scenario::parse(text) {
        Ok(s) => s,
        Err(e) => {
            bounded("Scenario::parse", &e.message);
            if let Some(line) = e.line {
                located("Scenario::parse", text, line);
            }
            return;
        }
    };
    let until = scenario.until.unwrap_or(5 * MINUTE).min(2 * MINUTE);
    let max_events = 30_000;
    match scenario.run(RunOptions {
        seed: None,
        until: Some(until),
        read_file: None,
        max_events: Some(max_events),
        timing: None,
    }) {
        Err(e) => bounded("Scenario::run", &e.message),
        Ok(outcome) => {
            assert!(
                outcome.timeline.len() <= limits::MAX_TIMELINE_ENTRIES + 16,
                "timeline of {}",
                outcome.timeline.len()
            );
            for entry in &outcome.timeline {
                assert!(
                    entry.text.len() <= OUTPUT_MAX_BYTES + 64 * 1024,
                    "a timeline entry of {} bytes",
                    entry.text.len()
                );
            }
        }
    }
}

fn check_quantity(text: &str) {
    match Quantity::parse(text) {
        Err(e) => bounded("Quantity::parse", &e),
        Ok(q) => {
            let milli = q.milli();
            if milli != i64::MIN && milli != i64::MAX {
                // The canonical text of its value parses to that value.
                let canonical = Quantity::from_milli(milli);
                let again = Quantity::parse(canonical.as_str()).expect("a canonical quantity parses");
                assert_eq!(again.milli(), milli, "{text:?} -> {canonical} -> {again:?}");
                assert_eq!(again, q, "{text:?} and its canonical {canonical} differ");
            }
            // Whole units round away from zero.
            let v = q.value();
            assert!(
                milli == i64::MIN
                    || milli == i64::MAX
                    || v.checked_mul(1000).is_none_or(|v| v.unsigned_abs() >= milli.unsigned_abs()),
                "{text:?}: value {v}, milli {milli}"
            );
        }
    }
}

fn check_selector(text: &str) {
    match parse_selector(text) {
        Err(e) => bounded("parse_selector", &e),
        Ok(sel) => {
            // Printed as kubectl prints it and parsed again: the same selector.
            let printed = sel.to_string();
            match parse_selector(&printed) {
                Ok(again) => assert_eq!(again, sel, "{text:?} printed as {printed:?} parses to another selector"),
                Err(e) => panic!("{text:?} printed as {printed:?} does not parse: {e}"),
            }
            let labels = Default::default();
            let _ = sel.matches(&labels);
        }
    }
}

fn check_duration(text: &str) {
    match time::parse_duration(text) {
        Err(e) => bounded("parse_duration", &e),
        Ok(ms) => assert!(ms <= limits::MAX_DURATION, "{text:?}: {ms} ms, over Go's largest duration"),
    }
    if let Err(e) = time::parse_go_duration(text) {
        bounded("parse_go_duration", &e);
    }
}
