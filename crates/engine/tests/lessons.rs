//! The seeds' lessons, each a scenario: a cluster, actions and faults, run for simulated time, then assertions on
//! the store. The page offers the same scenarios as one-click presets.

mod common;

use kubeloop_engine::api::{Kind, ObjKey, Object, Pod, PodPhase};
use kubeloop_engine::controller::{RecordOutcome, TriggerMode};
use kubeloop_engine::faults::Faults;
use kubeloop_engine::kubectl;
use kubeloop_engine::sim::{ObserveMode, Sim, DEFAULT_POLL_PERIOD};
use kubeloop_engine::store::Subresource;
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

fn pods(sim: &Sim) -> Vec<Pod> {
    sim.store.objects(Kind::Pod).filter_map(|o| o.as_pod().cloned()).collect()
}

fn live_running(sim: &Sim) -> usize {
    pods(sim).iter().filter(|p| !p.metadata.is_terminating() && p.status.phase == PodPhase::Running).count()
}

fn first_pod(sim: &Sim) -> ObjKey {
    pods(sim)
        .iter()
        .find(|p| !p.metadata.is_terminating())
        .map(|p| ObjKey::new("default", &p.metadata.name))
        .unwrap_or_default()
}

fn rs_key(sim: &Sim) -> ObjKey {
    sim.store.objects(Kind::ReplicaSet).next().map(|o| o.key()).unwrap_or_default()
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

#[test]
fn self_healing_a_deleted_pod_comes_back() {
    let mut sim = common::cluster();
    let victim = first_pod(&sim);
    sim.delete(Kind::Pod, &victim, &Default::default()).expect("delete");
    sim.run_for(30 * SECOND);
    assert_eq!(live_running(&sim), 3);
    assert!(sim.store.peek(Kind::Pod, &victim).is_none(), "the deleted pod is gone, a new one runs");
}

#[test]
fn hand_edits_are_reverted_scaling_the_replicaset_directly() {
    // The Deployment owns its ReplicaSet's replicas: a hand edit is put back on its next sync.
    let mut sim = common::cluster();
    let rs = rs_key(&sim);
    sim.scale(Kind::ReplicaSet, &rs, 6).expect("scale rs");
    sim.run_for(30 * SECOND);
    let replicas = sim.store.peek(Kind::ReplicaSet, &rs).and_then(|o| o.as_replicaset().map(|r| r.replicas()));
    assert_eq!(replicas, Some(3), "the Deployment controller put spec.replicas back");
    assert_eq!(live_running(&sim), 3);
}

#[test]
fn idempotency_applying_the_same_manifest_again_changes_nothing() {
    let mut sim = common::cluster();
    sim.run_for(MINUTE);
    let before = sim.store.resource_version();
    let report = kubectl::apply(&mut sim, common::WEB).expect("apply");
    assert_eq!(report.to_string(), "deployment.apps/web unchanged\n");
    // Only the heartbeats (leases, events) move; no object of the app changes.
    let rvs = |s: &Sim| -> Vec<u64> {
        [Kind::Deployment, Kind::ReplicaSet, Kind::Pod]
            .iter()
            .flat_map(|k| s.store.objects(*k).map(|o| o.meta().resource_version))
            .collect()
    };
    let app_before = rvs(&sim);
    sim.run_for(MINUTE);
    assert_eq!(rvs(&sim), app_before);
    assert!(sim.store.resource_version() >= before);
}

/// The edge-vs-level lesson: with every control-plane watch event dropped while a pod is deleted, the ReplicaSet
/// controller never hears of it. Returns (running right after, drift right after, running and drift a minute
/// after a 410 made every control-plane informer LIST again).
fn lose_a_deletion(mode: TriggerMode) -> (usize, usize, usize, usize) {
    let mut sim = common::cluster();
    assert!(sim.set_trigger_mode(None, mode).contains(&"replicaset"));
    sim.set_watch_drop(1.0);
    let victim = first_pod(&sim);
    sim.delete(Kind::Pod, &victim, &Default::default()).expect("delete");
    sim.run_for(10 * SECOND);
    sim.set_watch_drop(0.0);
    sim.run_for(20 * SECOND);
    let (r1, d1) = (live_running(&sim), sim.drift());
    // Nothing upstream re-observes on a timer: watches end at their timeouts and resume where they were, and
    // the lost deletion stays lost.
    sim.run_for(30 * MINUTE);
    assert_eq!((live_running(&sim), sim.drift()), (r1, d1), "no periodic relist repairs a lost event");
    // A broken watch whose history is gone: 410 Gone, and the informers LIST again.
    for i in sim.control_plane_informers() {
        sim.force_relist(i);
    }
    sim.run_for(MINUTE);
    (r1, d1, live_running(&sim), sim.drift())
}

#[test]
fn edge_vs_level_a_lost_deletion_is_repaired_by_a_410_relist_only_when_level_triggered() {
    let (r1, d1, r2, d2) = lose_a_deletion(TriggerMode::Level);
    assert_eq!(r1, 2, "level: the replica is missing while the cache is stale");
    assert!(d1 > 0, "level: the cache drifted from the store");
    assert_eq!((r2, d2), (3, 0), "level: the relist repaired the cache and the controller converged");

    let (r1, d1, r2, d2) = lose_a_deletion(TriggerMode::Edge);
    assert_eq!(r1, 2, "edge: the replica is missing");
    assert!(d1 > 0);
    assert_eq!(d2, 0, "edge: the relist repaired the cache...");
    assert_eq!(r2, 2, "...but an edge-triggered controller acts on notifications only: the replica stays missing");
}

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
    assert!(sim.log.records.iter().any(|r| r.controller == "replicaset" && r.key.contains("-1#")), "delta keys");
}

/// API reads per simulated minute at steady state, over the controllers' clients.
fn reads_per_minute(mode: ObserveMode) -> u64 {
    let mut sim = common::cluster();
    let big = common::WEB
        .replace("web", "big")
        .replace("replicas: 3", "replicas: 997")
        .replace("cpu: 100m", "cpu: 5m")
        .replace("memory: 64Mi", "memory: 8Mi");
    for _ in 0..7 {
        sim.add_node(Default::default()).expect("node");
    }
    kubectl::apply(&mut sim, &big).expect("apply");
    sim.run_for(3 * MINUTE);
    assert_eq!(live_running(&sim), 1000);
    sim.set_observe_mode(mode);
    sim.run_for(MINUTE);
    let before = sim.api_reads();
    sim.run_for(MINUTE);
    sim.api_reads() - before
}

#[test]
fn polling_reads_orders_of_magnitude_more_than_informers() {
    let informer = reads_per_minute(ObserveMode::Informer);
    let polling = reads_per_minute(ObserveMode::Polling { period: DEFAULT_POLL_PERIOD });
    eprintln!("API reads per simulated minute, 1,000 pods on 10 nodes: informers {informer}, polling {polling}");
    assert!(polling > 100 * informer, "polling {polling}/min vs informers {informer}/min");
    assert!(polling >= 12 * 1000, "at least one LIST of 1,000 pods every 5 s: {polling}");
}

#[test]
fn polling_mode_still_reconciles() {
    let mut sim = common::cluster();
    sim.set_observe_mode(ObserveMode::Polling { period: DEFAULT_POLL_PERIOD });
    sim.run_for(10 * SECOND);
    let victim = first_pod(&sim);
    sim.delete(Kind::Pod, &victim, &Default::default()).expect("delete");
    let healed = run_until(&mut sim, MINUTE, |s| live_running(s) == 3 && s.store.peek(Kind::Pod, &victim).is_none());
    assert!(healed.is_some());
}

#[test]
fn injected_conflicts_are_retried_and_everything_converges() {
    // Optimistic concurrency: a 409 makes the writer re-read and retry; nothing is lost.
    let mut sim = common::cluster();
    sim.set_faults(Faults { conflict_fraction: 0.5, ..Default::default() });
    sim.scale(Kind::Deployment, &ObjKey::new("default", "web"), 8).expect("scale");
    sim.run_for(2 * MINUTE);
    let conflicts: u64 = sim.store.clients().iter().map(|c| c.counters.conflicts).sum();
    assert!(conflicts > 0, "conflicts were injected");
    sim.set_faults(Faults::default());
    sim.run_for(MINUTE);
    assert_eq!(live_running(&sim), 8);
    assert!(sim.deployments_converged());
}

#[test]
fn two_writers_on_one_object_one_gets_a_conflict_and_retries() {
    let mut sim = common::cluster();
    let key = ObjKey::new("default", "web");
    let a = sim.store.peek(Kind::Deployment, &key).cloned().expect("web");
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
    let labels = sim.store.peek(Kind::Deployment, &key).map(|o| o.meta().labels.clone()).unwrap_or_default();
    assert_eq!(labels.get("team").map(|v| &**v), Some("a"));
    assert_eq!(labels.get("tier").map(|v| &**v), Some("b"));
    let _ = Object::from(Pod::default());
}

#[test]
fn backoff_a_failing_reconcile_is_retried_5_10_20_ms_apart() {
    // client-go's default controller rate limiter: per item 5 ms * 2^failures (and a 10 qps bucket).
    let mut sim = common::cluster();
    sim.set_faults(Faults { reject_pod_creates: true, ..Default::default() });
    sim.scale(Kind::Deployment, &ObjKey::new("default", "web"), 4).expect("scale");
    sim.run_for(2 * SECOND);
    let delays: Vec<Millis> = sim
        .log
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
    assert!(sim.store.objects(Kind::Event).filter_map(|o| o.as_event()).any(|e| &*e.body.reason == "FailedCreate"));
    sim.set_faults(Faults::default());
    let healed = run_until(&mut sim, MINUTE, |s| live_running(s) == 4);
    assert!(healed.is_some(), "converges once the fault is gone");
}
