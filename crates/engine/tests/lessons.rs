//! The seeds' lessons. Each is a scenario file in `examples/lessons/` (the page plays the same files, and
//! `kubeloop run examples/lessons/ID.yaml` replays them headless): these tests run those files for simulated time and
//! assert on the store at the moments the lessons are about. Below them, behaviours the lessons lean on.

mod common;

use common::{live_running, pods};

use std::path::PathBuf;

use kubeloop_engine::api::{Kind, ObjKey, Object, Pod, PodPhase};
use kubeloop_engine::controller::{RecordOutcome, TriggerMode};
use kubeloop_engine::scenario::{EntryKind, Run, RunOptions, Scenario};
use kubeloop_engine::sim::{ObserveMode, Sim, TimingProfile, CONTROLLER_MANAGER_2, DEFAULT_POLL_PERIOD};
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

#[test]
fn every_lesson_file_runs_to_its_end_without_an_error() {
    let mut ids: Vec<String> = std::fs::read_dir(lessons_dir())
        .expect("examples/lessons/")
        .flatten()
        .filter_map(|e| e.path().file_stem().map(|s| s.to_string_lossy().into_owned()))
        .collect();
    ids.sort();
    assert_eq!(ids.len(), 11, "{ids:?}");
    for id in &ids {
        if id == "polling-vs-informers" {
            continue; // 1,000 pods: below, once
        }
        let sc = lesson(id);
        assert!(sc.actions.iter().all(|a| a.label.is_some()), "{id}: every step says what it is for");
        let out = sc.run(RunOptions::default()).unwrap_or_else(|e| panic!("{id}: {e}"));
        let errors: Vec<_> = out.timeline.iter().filter(|e| e.is_error()).collect();
        assert!(errors.is_empty(), "{id}: {errors:?}");
    }
}

#[test]
fn self_healing_a_deleted_pod_comes_back_and_a_dead_nodes_pods_move() {
    for (timing, evicted_by) in [(TimingProfile::FastDemo, 3 * MINUTE), (TimingProfile::Real, 8 * MINUTE)] {
        let sc = lesson("self-healing");
        let mut run = sc
            .start(RunOptions { timing: Some(timing), until: Some(evicted_by), ..RunOptions::default() })
            .expect("start");
        run.run_to(40 * SECOND);
        let deleted = actions(&run)
            .iter()
            .find_map(|a| a.strip_prefix("kubectl delete pod ").map(|r| r.split(' ').next().unwrap_or("").to_string()));
        let deleted = ObjKey::new("default", &deleted.expect("one pod deleted"));
        assert_eq!(live_running(run.sim()), 3, "{timing:?}: replaced");
        assert!(run.sim().store().peek(Kind::Pod, &deleted).is_none(), "{timing:?}: the deleted pod is gone");
        run.run_to(evicted_by);
        let killed =
            actions(&run).iter().find_map(|a| a.strip_prefix("kill node ").map(str::to_string)).expect("a node killed");
        let sim = run.sim();
        let on_killed = |p: &Pod| &*p.spec.node_name == killed.as_str();
        assert!(
            pods(sim).iter().filter(|p| on_killed(p)).all(|p| p.metadata.is_terminating()),
            "{timing:?}: evicted from {killed}"
        );
        let elsewhere = pods(sim)
            .iter()
            .filter(|p| !on_killed(p) && p.status.phase == PodPhase::Running && !p.metadata.is_terminating())
            .count();
        assert_eq!(elsewhere, 3, "{timing:?}: replaced on the other nodes");
    }
}

#[test]
fn hand_edits_the_deployment_puts_its_replicasets_replicas_back() {
    let sc = lesson("hand-edits");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(45 * SECOND);
    assert!(results(&run).iter().any(|r| r.ends_with(" scaled")), "{:?}", results(&run));
    let sim = run.sim();
    let rs = sim.store().objects(Kind::ReplicaSet).next().and_then(|o| o.as_replicaset().map(|r| r.replicas()));
    assert_eq!(rs, Some(3), "the Deployment controller put spec.replicas back");
    assert_eq!(live_running(sim), 3);
}

#[test]
fn idempotency_applying_the_same_manifest_again_writes_nothing() {
    let sc = lesson("idempotency");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(19 * SECOND);
    let rvs = |s: &Sim| -> Vec<u64> {
        [Kind::Deployment, Kind::ReplicaSet, Kind::Pod]
            .iter()
            .flat_map(|k| s.store().objects(*k).map(|o| o.meta().resource_version))
            .collect()
    };
    let (app, store) = (rvs(run.sim()), run.sim().store().resource_version());
    run.run_to(run.until());
    let unchanged = results(&run).iter().filter(|r| r.as_str() == "deployment.apps/web unchanged").count();
    assert_eq!(unchanged, 2, "kubectl says so, twice");
    assert_eq!(rvs(run.sim()), app, "no object of the app was written");
    assert!(run.sim().store().resource_version() > store, "only heartbeats and leases moved the store");
}

#[test]
fn edge_vs_level_a_lost_deletion_is_repaired_by_a_410_relist_only_when_level_triggered() {
    let sc = lesson("edge-vs-level");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(2 * MINUTE + 50 * SECOND);
    assert_eq!(live_running(run.sim()), 0, "edge: the deletions were never heard");
    assert!(run.sim().drift() > 0, "the caches still hold the deleted pods: no periodic relist, as upstream");
    run.run_to(6 * MINUTE + 30 * SECOND);
    assert_eq!(run.sim().drift(), 0, "the 410 relist repaired the caches...");
    assert_eq!(live_running(run.sim()), 0, "...but an edge-triggered controller acts on notifications only");
    run.run_to(run.until());
    assert_eq!((live_running(run.sim()), run.sim().drift()), (3, 0), "level: the next relist heals it");
}

#[test]
fn polling_reads_orders_of_magnitude_more_than_informers() {
    let sc = lesson("polling-vs-informers");
    let mut run = sc.start(RunOptions::default()).expect("start");
    // Informers from the start; polling from 4 min to 6 min (each minute measured after time to settle).
    let per_minute = |run: &mut Run, from: Millis| {
        run.run_to(from);
        let before = run.sim().api_reads();
        run.run_to(from + MINUTE);
        run.sim().api_reads() - before
    };
    let informer = per_minute(&mut run, 2 * MINUTE);
    assert_eq!(live_running(run.sim()), 1000);
    let polling = per_minute(&mut run, 4 * MINUTE + 30 * SECOND);
    assert!(matches!(run.sim().observe_mode(), ObserveMode::Polling { period } if period == DEFAULT_POLL_PERIOD));
    eprintln!("API reads per simulated minute, 1,000 pods on 10 nodes: informers {informer}, polling {polling}");
    assert!(polling > 100 * informer, "polling {polling}/min vs informers {informer}/min");
    assert!(polling >= 12 * 1000, "at least one LIST of 1,000 pods every 5 s: {polling}");
}

#[test]
fn conflicts_are_retried_and_everything_converges() {
    // Optimistic concurrency: a 409 makes the writer re-read and retry; nothing is lost.
    let sc = lesson("conflicts");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(60 * SECOND);
    let conflicts: u64 = run.sim().store().clients().iter().map(|c| c.counters.conflicts).sum();
    assert!(conflicts > 0, "conflicts were injected");
    run.run_to(run.until());
    assert_eq!(live_running(run.sim()), 6);
    assert!(run.sim().deployments_converged());
}

#[test]
fn control_plane_down_pods_keep_running_and_a_restarted_replica_heals() {
    let sc = lesson("control-plane-down");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(85 * SECOND);
    assert_eq!(live_running(run.sim()), 2, "nobody replaces the deleted pod");
    assert_eq!(run.sim().controller_manager_leader(), None);
    run.run_to(run.until());
    assert_eq!(run.sim().controller_manager_leader(), Some(CONTROLLER_MANAGER_2));
    assert_eq!(live_running(run.sim()), 3);
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
    run.run_to(run.until());
    assert_eq!(live_running(run.sim()), 5, "converges once the fault is gone");
}

/// Ready endpoints of the Service `web`.
fn web_endpoints(sim: &Sim) -> usize {
    sim.store()
        .objects(Kind::EndpointSlice)
        .filter_map(|o| o.as_endpointslice())
        .filter(|s| s.metadata.label("kubernetes.io/service-name") == Some("web"))
        .flat_map(|s| s.endpoints().iter())
        .filter(|e| e.conditions.ready == Some(true))
        .count()
}

/// The pod the lesson's `podOf: app=web` actions picked (the first in the store's order).
fn picked(sim: &Sim) -> Pod {
    pods(sim).into_iter().find(|p| !p.metadata.is_terminating()).expect("a pod")
}

#[test]
fn probes_lesson_readiness_leaves_the_endpoints_and_liveness_restarts_with_back_off() {
    let sc = lesson("probes");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(29 * SECOND);
    assert_eq!(web_endpoints(run.sim()), 3, "three ready pods behind the Service");
    // Readiness fails at 30 s: three failures 5 s apart, then out of the endpoints.
    run.run_to(60 * SECOND);
    assert!(!picked(run.sim()).is_ready());
    assert_eq!(web_endpoints(run.sim()), 2);
    assert_eq!(picked(run.sim()).restarts(), 0, "readiness never restarts a container");
    // Passing again at 70 s: back within a period.
    run.run_to(80 * SECOND);
    assert_eq!(web_endpoints(run.sim()), 3);
    // Liveness fails at 2 min: killed after three failures 10 s apart, restarted at once, then again into
    // CrashLoopBackOff.
    run.run_to(3 * MINUTE);
    let p = picked(run.sim());
    assert!(p.restarts() >= 1, "{:?}", p.status.container_statuses);
    let waiting = p.status.container_statuses[0].state.waiting.as_ref().map(|w| w.reason.to_string());
    assert_eq!(waiting.as_deref(), Some("CrashLoopBackOff"));
    assert_eq!(web_endpoints(run.sim()), 2, "a container in back-off is not ready");
    // Passing again at 5 min: the next restart stays up.
    run.run_to(run.until());
    let p = picked(run.sim());
    assert!(p.is_ready());
    assert_eq!(web_endpoints(run.sim()), 3);
    let restarts = p.restarts();
    assert!(restarts >= 2, "{restarts}");
}

#[test]
fn crashing_rollout_lesson_stalls_at_the_progress_deadline_while_the_old_pods_serve() {
    let sc = lesson("crashing-rollout");
    let mut run = sc.start(RunOptions::default()).expect("start");
    let progressing = |sim: &Sim| {
        let d =
            sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).and_then(|o| o.as_deployment().cloned());
        d.and_then(|d| d.status.conditions.iter().find(|c| &*c.type_ == "Progressing").map(|c| c.reason.to_string()))
    };
    run.run_to(2 * MINUTE);
    assert_eq!(progressing(run.sim()).as_deref(), Some("ReplicaSetUpdated"), "still within its 120 s");
    assert_eq!(web_endpoints(run.sim()), 3, "the old pods serve");
    run.run_to(3 * MINUTE);
    assert_eq!(progressing(run.sim()).as_deref(), Some("ProgressDeadlineExceeded"));
    assert_eq!(web_endpoints(run.sim()), 3);
    let crashing: Vec<Pod> =
        pods(run.sim()).into_iter().filter(|p| p.spec.containers[0].image.as_ref() == "nginx:1.28").collect();
    assert_eq!(crashing.len(), 1, "one surge pod, never more");
    assert!(crashing[0].restarts() >= 3, "{:?}", crashing[0].status);
    // rollout undo at 4 min: the old template is the new one again, the crashing pod goes.
    run.run_to(run.until());
    assert!(pods(run.sim()).iter().all(|p| p.spec.containers[0].image.as_ref() == "nginx:1.27"));
    assert_eq!(live_running(run.sim()), 3);
    assert_eq!(progressing(run.sim()).as_deref(), Some("NewReplicaSetAvailable"));
}

#[test]
fn pdb_drain_lesson_the_budget_holds_while_drain_waits() {
    let sc = lesson("pdb-drain");
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(59 * SECOND);
    assert_eq!(live_running(run.sim()), 3);
    // While the drain runs, at least two web pods are ready at every second.
    let ready = |sim: &Sim| pods(sim).iter().filter(|p| !p.metadata.is_terminating() && p.is_ready()).count();
    while run.sim().now() < 2 * MINUTE {
        run.run_to(run.sim().now() + SECOND);
        assert!(ready(run.sim()) >= 2, "the budget holds at {} ms: {} ready", run.sim().now(), ready(run.sim()));
    }
    let said = results(&run).join("\n");
    assert!(
        said.contains("(will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."),
        "{said}"
    );
    assert!(said.contains("node/node-1 drained") && said.contains("node/node-2 drained"), "{said}");
    run.run_to(run.until());
    assert_eq!(live_running(run.sim()), 3);
    let on_third = pods(run.sim()).iter().filter(|p| &*p.spec.node_name == "node-3").count();
    assert_eq!(on_third, 3, "every pod moved to the node left (uncordoning moves nothing back)");
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
