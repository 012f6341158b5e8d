//! The seeds' lessons. Each is a scenario file in `examples/lessons/` (the page plays the same files, and
//! `kubeloop run examples/lessons/ID.yaml` replays them headless): these tests run those files for simulated time and
//! assert on the store at the moments the lessons are about. Below them, behaviours the lessons lean on.

mod common;

use common::{live_running, pods};

use std::path::PathBuf;

use kubeloop_engine::api::{Kind, ObjKey, Object, Pod};
use kubeloop_engine::controller::{RecordOutcome, TriggerMode};
use kubeloop_engine::scenario::{EntryKind, Run, RunOptions, Scenario, TimelineEntry};
use kubeloop_engine::sim::{ObserveMode, Sim, TimingProfile, DEFAULT_POLL_PERIOD};
use kubeloop_engine::store::Subresource;
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

fn lessons_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/lessons")
}

/// The lesson's scenario file, parsed.
fn lesson(id: &str) -> Scenario {
    let path = lessons_dir().join(format!("{id}.yaml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Scenario::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn first_pod(sim: &Sim) -> ObjKey {
    pods(sim)
        .iter()
        .find(|p| !p.metadata.is_terminating())
        .map(|p| ObjKey::new("default", &p.metadata.name))
        .unwrap_or_default()
}

fn run_until(sim: &mut Sim, within: Millis, cond: impl Fn(&Sim) -> bool) -> Option<Millis> {
    let until = sim.now() + within;
    while sim.now() < until {
        if cond(sim) {
            return Some(sim.now());
        }
        sim.run_for(SECOND);
    }
    cond(sim).then(|| sim.now())
}

/// The action entries of the timeline so far (`$ kubectl ...`, `kill node ...`).
fn actions(run: &Run) -> Vec<String> {
    run.timeline().filter(|e| e.kind == EntryKind::Action).map(|e| e.text.clone()).collect()
}

fn results(run: &Run) -> Vec<String> {
    run.timeline().filter(|e| e.kind == EntryKind::Result).map(|e| e.text.clone()).collect()
}

/// Every lesson file, by id (its file name), sorted.
fn lesson_ids() -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(lessons_dir())
        .expect("examples/lessons/")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "yaml"))
        .filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    ids.sort();
    ids
}

/// Runs a lesson file to its end and says what did not go as the file expects: an error in the timeline, an
/// expectation that failed or was not decided.
fn unexpected(id: &str, opts: RunOptions) -> Vec<String> {
    let sc = lesson(id);
    let out = sc.run(opts).unwrap_or_else(|e| panic!("{id}: {e}"));
    // pdb-drain's first drain is meant to fail (kube-system's DaemonSets): what it says is checked on its own below.
    let meant = |e: &&TimelineEntry| id == "pdb-drain" && e.at == MINUTE;
    let mut wrong: Vec<String> =
        out.timeline.iter().filter(|e| e.is_error() && !meant(e)).map(|e| e.text.clone()).collect();
    for e in out.summary.expectations.iter().filter(|e| e.verdict != "held") {
        wrong.push(format!("line {}: {} ({}; saw {:?})", e.line, e.expect, e.verdict, e.seen));
    }
    wrong
}

#[test]
fn every_lesson_is_one_file_that_asks_labels_and_expects() {
    let ids = lesson_ids();
    assert_eq!(ids.len(), 15, "{ids:?}");
    let mut orders = Vec::new();
    for id in &ids {
        let sc = lesson(id);
        let info = sc.lesson.as_ref().unwrap_or_else(|| panic!("{id}: a lesson: header"));
        assert!(!info.watch.is_empty() && !info.figures.is_empty(), "{id}: what to watch, and figures");
        orders.push(info.order);
        assert!(sc.actions.iter().all(|a| a.label.is_some()), "{id}: every step says what it is for");
        assert!(sc.actions.iter().any(|a| a.ask.is_some()), "{id}: asks for a prediction");
        assert!(sc.actions.iter().all(|a| a.ask.is_none() || !a.expect.is_empty()), "{id}: each question checked");
    }
    orders.sort_unstable();
    orders.dedup();
    assert_eq!(orders.len(), ids.len(), "each lesson its own place in the bar");
}

#[test]
fn every_lesson_files_expectations_hold() {
    for id in lesson_ids() {
        let wrong = unexpected(&id, RunOptions::default());
        assert!(wrong.is_empty(), "{id}: {wrong:#?}");
    }
}

#[test]
fn the_lessons_expectations_hold_with_other_seeds_and_timings() {
    for id in lesson_ids().iter().filter(|id| *id != "polling-vs-informers") {
        for seed in [2, 5, 9] {
            let wrong = unexpected(id, RunOptions { seed: Some(seed), ..RunOptions::default() });
            assert!(wrong.is_empty(), "{id} with seed {seed}: {wrong:#?}");
        }
        if lesson(id).lesson.is_some_and(|l| l.fast_demo) {
            let wrong = unexpected(id, RunOptions { timing: Some(TimingProfile::FastDemo), ..RunOptions::default() });
            assert!(wrong.is_empty(), "{id} with the fast demo timings: {wrong:#?}");
        }
    }
}

#[test]
fn an_expectation_that_does_not_hold_is_reported_as_failed() {
    // The edge-vs-level lesson without its lost watch events: the deletions are heard and the pods replaced, so
    // "0 web pods a minute later" fails, and says what it saw.
    let text = std::fs::read_to_string(lessons_dir().join("edge-vs-level.yaml")).expect("read");
    let text = text.replacen("fault: {dropWatchEvents: 100%}", "fault: {dropWatchEvents: 0%}", 1);
    let sc = Scenario::parse(&text).expect("parses");
    let out = sc.run(RunOptions { until: Some(2 * MINUTE), ..RunOptions::default() }).expect("runs");
    let failed: Vec<_> = out.summary.expectations.iter().filter(|e| e.verdict == "failed").collect();
    assert_eq!(failed.len(), 1, "{:#?}", out.summary.expectations);
    assert!(failed[0].seen.as_deref().is_some_and(|s| s.contains("pods app=web: 3 running")), "{failed:?}");
    let said = out.timeline.iter().filter(|e| e.is_error()).map(|e| e.text.as_str()).collect::<Vec<_>>().join("\n");
    assert!(said.contains("FAILED after 1m"), "{said}");
    let undecided = out.summary.expectations.iter().filter(|e| e.verdict == "notRun").count();
    assert_eq!(undecided, 2, "the steps after the end are not run: their expectations neither");
}

#[test]
fn backoff_a_failing_reconcile_is_retried_5_10_20_ms_apart() {
    // client-go's default controller rate limiter: per item 5 ms * 2^failures (and a 10 qps bucket).
    let sc = lesson("backoff");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(13 * SECOND);
    let sim = run.sim();
    let delays: Vec<Millis> = sim
        .log()
        .records
        .iter()
        .filter(|r| r.controller == "replicaset")
        .filter_map(|r| match &r.outcome {
            RecordOutcome::Error { retry_in, message } if message.contains("exceeded quota") => Some(*retry_in),
            _ => None,
        })
        .collect();
    assert!(delays.len() >= 5, "{delays:?}");
    assert_eq!(&delays[..5], &[5, 10, 20, 40, 80], "exponential per-item backoff");
    assert!(sim.store().objects(Kind::Event).filter_map(|o| o.as_event()).any(|e| &*e.body.reason == "FailedCreate"));
}

#[test]
fn pdb_drain_kubectl_retries_the_refused_eviction_every_5s() {
    let sc = lesson("pdb-drain");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(2 * MINUTE);
    let said = results(&run).join("\n");
    let refused = "error: unable to drain node \"node-1\" due to error: cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/kindnet-";
    assert!(run.timeline().any(|e| e.is_error() && e.at == MINUTE && e.text.starts_with(refused)), "{said}");
    assert!(said.contains("Warning: ignoring DaemonSet-managed Pods: kube-system/kindnet-"), "{said}");
    assert!(
        said.contains("(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."),
        "{said}"
    );
    assert!(said.contains("node/node-1 drained") && said.contains("node/node-2 drained"), "{said}");
}

#[test]
fn idempotency_kubectl_says_unchanged_twice() {
    let sc = lesson("idempotency");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(run.until());
    let unchanged = results(&run).iter().filter(|r| r.as_str() == "deployment.apps/web unchanged").count();
    assert_eq!(unchanged, 2);
    assert!(actions(&run).iter().all(|a| a.starts_with("kubectl apply")), "{:?}", actions(&run));
}

// ---- behaviours the lessons lean on ----------------------------------------------------------------------------

#[test]
fn edge_mode_still_works_without_faults() {
    let mut sim = common::cluster();
    sim.set_trigger_mode(None, TriggerMode::Edge);
    let victim = first_pod(&sim);
    sim.delete(Kind::Pod, &victim, &Default::default()).expect("delete");
    sim.run_for(30 * SECOND);
    assert_eq!(live_running(&sim), 3, "a delivered deletion is acted on");
    sim.scale(Kind::Deployment, &ObjKey::new("default", "web"), 5).expect("scale");
    sim.run_for(30 * SECOND);
    assert_eq!(live_running(&sim), 5);
    sim.scale(Kind::Deployment, &ObjKey::new("default", "web"), 2).expect("scale");
    sim.run_for(60 * SECOND);
    assert_eq!(live_running(&sim), 2);
    assert!(sim.log().records.iter().any(|r| r.controller == "replicaset" && r.key.contains("-1#")), "delta keys");
}

#[test]
fn polling_mode_still_reconciles() {
    let mut sim = common::cluster();
    sim.set_observe_mode(ObserveMode::Polling { period: DEFAULT_POLL_PERIOD });
    sim.run_for(10 * SECOND);
    let victim = first_pod(&sim);
    sim.delete(Kind::Pod, &victim, &Default::default()).expect("delete");
    let healed = run_until(&mut sim, MINUTE, |s| live_running(s) == 3 && s.store().peek(Kind::Pod, &victim).is_none());
    assert!(healed.is_some());
}

#[test]
fn two_writers_on_one_object_one_gets_a_conflict_and_retries() {
    let mut sim = common::cluster();
    let key = ObjKey::new("default", "web");
    let a = sim.store().peek(Kind::Deployment, &key).cloned().expect("web");
    let mut b = (*a).clone();
    let mut a = (*a).clone();
    a.meta_mut().labels.insert("team".into(), "a".into());
    b.meta_mut().labels.insert("tier".into(), "b".into());
    sim.as_user(|api| api.update(a)).expect("first writer");
    let err = sim.as_user(|api| api.update(b)).expect_err("second writer conflicts");
    assert!(err.is_conflict());
    // Re-read, re-apply, retry.
    sim.as_user(|api| {
        api.patch(Kind::Deployment, &key, Subresource::Main, |o| {
            o.meta_mut().labels.insert("tier".into(), "b".into());
        })
    })
    .expect("retry");
    let labels = sim.store().peek(Kind::Deployment, &key).map(|o| o.meta().labels.clone()).unwrap_or_default();
    assert_eq!(labels.get("team").map(|v| &**v), Some("a"));
    assert_eq!(labels.get("tier").map(|v| &**v), Some("b"));
    let _ = Object::from(Pod::default());
}
