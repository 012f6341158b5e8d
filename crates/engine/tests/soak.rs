//! Soak: long simulated runs whose memory must stay flat. Every structure that grows with simulated time has a
//! bound; these tests run a cluster for hours (idle, churning, faulted) and compare the engine's footprint
//! ([`kubeloop_engine::footprint::Footprint`]) early and late. CI runs these short soaks; the long ones (30
//! simulated days, 1,000 nodes) are `kubeloop soak` (docs/hardening.md).

mod common;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::footprint::Footprint;
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig, CONTROLLER_MANAGER};
use kubeloop_engine::store::DeleteOptions;
use kubeloop_engine::time::{HOUR, MINUTE, SECOND};

fn web(replicas: i32) -> String {
    common::web(replicas).cpu("100m").yaml()
}

fn cluster(seed: u64, nodes: usize, replicas: i32) -> Sim {
    let mut sim = Sim::new(SimConfig { seed, ..Default::default() });
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    kubectl::apply(&mut sim, &web(replicas)).expect("apply");
    sim.run_for(MINUTE);
    sim
}

/// Every open watch belongs to an informer that is watching (no person's watch is open here), every timer that
/// can still fire is in the heap at most a bounded number of times.
fn assert_watches_accounted(sim: &Sim, when: &str) {
    let f = sim.footprint();
    assert_eq!(f.open_watches, f.watching_informers, "{when}: open watches = watching informers ({f:?})");
}

/// The figures of a steady cluster that must not grow: compares `late` with `early` structure by structure,
/// allowing `slack` (a fraction) for what legitimately moves (Events expiring on their TTL, queues mid-flight).
fn assert_flat(early: &Footprint, late: &Footprint, slack: f64) {
    let pairs = [
        ("objects", early.objects, late.objects),
        ("history", early.history, late.history),
        ("open_watches", early.open_watches, late.open_watches),
        ("buffered_events", early.buffered_events, late.buffered_events),
        ("cached_objects", early.cached_objects, late.cached_objects),
        ("timers", early.timers, late.timers),
        ("controller_entries", early.controller_entries, late.controller_entries),
        ("kubelet_entries", early.kubelet_entries, late.kubelet_entries),
        ("event_expirations", early.event_expirations, late.event_expirations),
        ("recorders", early.recorders, late.recorders),
        ("clients", early.clients, late.clients),
    ];
    for (name, a, b) in pairs {
        let bound = (a as f64 * (1.0 + slack)).ceil() as usize + 16;
        assert!(b <= bound, "{name} grew from {a} to {b} (bound {bound})\nearly {early:?}\nlate  {late:?}");
    }
    assert_eq!(late.history_beyond_window, 0, "the watch cache keeps versions past its window: {late:?}");
    let lru = kubeloop_engine::recorder::CACHES * kubeloop_engine::recorder::LRU_SIZE * late.recorders;
    assert!(late.recorder_entries <= lru, "event aggregation over its LRU bound: {late:?}");
}

/// Regression (issue 9): the periodic relist set the informer to Listing before closing its watch, so the old
/// watch stayed open and buffered every later event of its kind forever: one more open watch per informer every
/// relist period.
#[test]
fn a_relist_closes_the_watch_it_replaces() {
    let mut sim = cluster(1, 3, 3);
    // kubeloop's own repair knob (upstream relists only after errors), and the watch timeouts every 5-10 min.
    sim.set_relist_period(kubeloop_engine::sim::REPAIR_RELIST_PERIOD);
    let at_start = sim.store().open_watchers();
    sim.run_for(HOUR);
    assert_watches_accounted(&sim, "after an hour of relists every 5 min");
    assert_eq!(sim.store().open_watchers(), at_start, "no watch is left behind by a relist");
    let relists: u64 = sim.informers().iter().map(|i| i.stats().relists).sum();
    assert!(relists >= 12 * 5, "the relists happened ({relists})");
    let timeouts: u64 = sim.informers().iter().map(|i| i.stats().watch_timeouts).sum();
    assert!(timeouts > 0, "and watch timeouts ({timeouts}): no re-WATCH leaves a watch behind either");
    assert!(sim.footprint().buffered_events < 1000, "{:?}", sim.footprint());
}

/// An idle cluster holds the same after 2 and after 8 simulated hours (Events expire on their 1 h TTL, resyncs
/// and relists replace caches, leases renew: nothing accumulates).
#[test]
fn an_idle_cluster_stays_flat_for_hours() {
    let mut sim = cluster(2, 5, 10);
    sim.run_for(2 * HOUR);
    let early = sim.footprint();
    sim.run_for(6 * HOUR);
    let late = sim.footprint();
    assert_watches_accounted(&sim, "idle 8 h");
    assert_flat(&early, &late, 0.1);
}

/// Churn with faults: scaling up and down, pods deleted, watches cut, 410 relists, a controller-manager crash and
/// dropped watch events, round after round. After the same number of rounds, twice, the engine holds the same.
#[test]
fn a_churning_faulted_cluster_stays_flat() {
    let mut sim = cluster(3, 4, 6);
    let round = |sim: &mut Sim, i: u64| {
        let key = ObjKey::new("default", "web");
        sim.scale(Kind::Deployment, &key, if i.is_multiple_of(2) { 12 } else { 4 }).expect("scale");
        sim.run_for(20 * SECOND);
        let victim = sim.store().objects(Kind::Pod).next().map(|p| p.key());
        if let Some(k) = victim {
            let _ = sim.delete(Kind::Pod, &k, &DeleteOptions::default());
        }
        match i % 4 {
            0 => sim.disconnect_all_watches(),
            1 => {
                for id in sim.control_plane_informers() {
                    sim.force_relist(id);
                }
            }
            2 => {
                sim.crash_host(CONTROLLER_MANAGER);
                sim.run_for(5 * SECOND);
                sim.restart_host(CONTROLLER_MANAGER);
            }
            _ => sim.set_watch_drop(0.2),
        }
        sim.run_for(4 * MINUTE);
        sim.set_watch_drop(0.0);
        sim.run_for(6 * MINUTE);
    };
    for i in 0..12 {
        round(&mut sim, i);
    }
    let early = sim.footprint();
    for i in 12..24 {
        round(&mut sim, i);
    }
    let late = sim.footprint();
    assert_watches_accounted(&sim, "after 24 rounds of churn");
    assert_flat(&early, &late, 0.25);
}

/// Re-armed timers (a relist or resync period changed again and again, a process crashed and restarted again and
/// again) do not pile up in the event heap until they are due.
#[test]
fn re_armed_and_orphaned_timers_do_not_pile_up() {
    let mut sim = cluster(4, 3, 3);
    let before = sim.pending_timers();
    for i in 0..5_000u64 {
        sim.set_relist_period(5 * MINUTE + i * SECOND);
        sim.set_resync_period(12 * HOUR + i * SECOND);
        if i % 50 == 0 {
            sim.crash_host(CONTROLLER_MANAGER);
            sim.restart_host(CONTROLLER_MANAGER);
        }
        sim.run_for(10);
    }
    let after = sim.pending_timers();
    assert!(after < before + 4_200, "timers: {before} before, {after} after 5,000 re-arms");
    sim.run_for(10 * MINUTE);
    assert_watches_accounted(&sim, "after the re-arms");
}

/// A person's watch that is never read (a `kubectl get -w` left behind) does not buffer forever: the API server
/// ends a watch that falls too far behind. With a small buffer bound, bursts also end the informers' watches:
/// they re-watch and the cluster still converges.
#[test]
fn an_unread_watch_is_ended_when_it_falls_too_far_behind() {
    let mut config = SimConfig { seed: 5, ..Default::default() };
    config.store.watch_buffer_max = 100;
    let mut sim = Sim::new(config);
    for _ in 0..3 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    kubectl::apply(&mut sim, &web(3)).expect("apply");
    sim.run_for(MINUTE);
    let id = sim.user_watch(Kind::Pod, sim.store().resource_version()).expect("watch");
    let key = ObjKey::new("default", "web");
    for replicas in [40, 0, 40] {
        sim.scale(Kind::Deployment, &key, replicas).expect("scale");
        sim.run_for(2 * MINUTE);
        let buffered = sim.store().watcher(id).map_or(0, |w| w.buffer.len());
        assert!(buffered <= 100, "buffered {buffered}");
    }
    assert!(sim.store().watcher(id).is_none(), "the unread watch was ended");
    let rewatches: u64 = sim.informers().iter().map(|i| i.stats().watches).sum();
    assert!(sim.deployments_fulfilled(), "the cluster converged through ended watches ({rewatches} watches)");
    assert_watches_accounted(&sim, "after the unread watch ended");
}

/// CI's share of `kubeloop soak`: 30 nodes under churn and a fault every 20 minutes for 12 simulated hours, a Service
/// in front of each Deployment; every structure flat after the warm-up (the EndpointSlice controller's memos among
/// them), every bounded ring within its bound, every open watch an informer's.
#[test]
fn a_faulted_soak_of_half_a_day_is_flat() {
    use kubeloop_engine::soak::{verdict, Soak, SoakConfig, Workload};
    let config = SoakConfig {
        seed: 7,
        nodes: 30,
        pods: 300,
        duration: 12 * HOUR,
        sample_every: 15 * MINUTE,
        workload: Workload::Faulted,
        services: true,
        addons: true,
    };
    let mut soak = Soak::new(config).expect("soak");
    let samples = soak.run(|_| {});
    assert_eq!(samples.len(), 49, "a sample every 15 minutes, and one at the start");
    if let Err(e) = verdict(&samples, 0.1) {
        let curve: Vec<String> = samples.iter().map(|s| format!("{} {:?}", s.at, s.footprint)).collect();
        panic!("{e}\n{}", curve.join("\n"));
    }
}

/// Image garbage collection: a node that has run more images than its bound keeps only the most recently used
/// ones (and those in use); a pod of a collected image pulls it again.
#[test]
fn a_node_collects_images_past_its_bound() {
    let max = kubeloop_engine::limits::MAX_IMAGES_PER_NODE;
    let mut sim = cluster(6, 1, 1);
    for i in 0..max + 10 {
        let line = format!("set image deployment/web nginx=nginx:1.{i}");
        let out = kubectl::run(&mut sim, &line, &kubectl::Input::none());
        assert_eq!(out.code, 0, "{}", out.text());
        sim.run_for(20 * SECOND);
    }
    let images = sim.footprint().images;
    assert!(images <= max, "{images} images on the node");
    let pulls = |sim: &Sim| {
        sim.store().objects(Kind::Event).filter_map(|o| o.as_event()).filter(|e| &*e.body.reason == "Pulling").count()
    };
    let before = pulls(&sim);
    // The first image was collected long ago: it is pulled again.
    kubectl::run(&mut sim, "set image deployment/web nginx=nginx:1.0", &kubectl::Input::none());
    sim.run_for(20 * SECOND);
    assert_eq!(pulls(&sim), before + 1, "pulled again after collection");
    assert!(sim.deployments_fulfilled());
}

/// Found by the 1,000-node day: the watch cache's size is the last 75 s of writes, so an hourly rollout just before
/// a sample made the last quarter's peak (74,920) exceed the second's (57,452) by more than the slack. The judge
/// holds the watch cache to its window and capacity instead of comparing peaks; a structure that really grows, and
/// a version kept past the window, are still found.
#[test]
fn the_soak_judge_holds_the_watch_cache_to_its_window() {
    use kubeloop_engine::soak::{verdict, Sample};
    let sample = |i: u64, history: usize, beyond: usize, objects: usize| Sample {
        at: i * 30 * MINUTE,
        footprint: Footprint {
            history,
            history_beyond_window: beyond,
            history_capacity: 8 * 100 * 1024,
            objects,
            ..Footprint::default()
        },
        events_processed: i,
        pods_running: 0,
    };
    let spiky: Vec<Sample> =
        (0..48).map(|i| sample(i, if i == 38 { 74_920 } else { 40_000 + i as usize }, 0, 5_000)).collect();
    assert_eq!(verdict(&spiky, 0.1), Ok(()));
    let stale: Vec<Sample> = (0..48).map(|i| sample(i, 40_000, usize::from(i == 40), 5_000)).collect();
    assert!(verdict(&stale, 0.1).is_err_and(|e| e.contains("older than its window")));
    let leak: Vec<Sample> = (0..48).map(|i| sample(i, 40_000, 0, 5_000 + 200 * i as usize)).collect();
    assert!(verdict(&leak, 0.1).is_err_and(|e| e.contains("objects")));
}

/// Crash loops and failing checks for hours: restarts back off to 5 minutes, failing probes tick every period
/// and emit Events through the spam filter; none of it piles up.
#[test]
fn crash_loops_and_failing_probes_stay_flat() {
    use kubeloop_engine::behaviour::BehaviourPatch;
    let mut sim = Sim::new(SimConfig { seed: 5, ..Default::default() });
    for _ in 0..3 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    let probes = "        readinessProbe:\n          httpGet: {path: /, port: 80}\n        livenessProbe:\n          httpGet: {path: /healthz, port: 80}\n";
    let text = web(6).replace("        resources:", &format!("{probes}        resources:"));
    assert!(text.contains("readinessProbe"), "{text}");
    kubectl::apply(&mut sim, &text).expect("apply");
    sim.run_for(MINUTE);
    let patch = BehaviourPatch { crash_after: Some(Some(45 * SECOND)), ..Default::default() };
    sim.set_image_behaviour("nginx:1.27", &patch).expect("behaviour");
    let one = sim.store().objects(Kind::Pod).next().map(|p| p.key()).expect("a pod");
    let fail = BehaviourPatch { readiness_fails: Some(true), liveness_fails: Some(true), ..Default::default() };
    sim.set_pod_behaviour(&one, None, &fail).expect("pod behaviour");
    sim.run_for(2 * HOUR);
    let early = sim.footprint();
    sim.run_for(4 * HOUR);
    let late = sim.footprint();
    assert_watches_accounted(&sim, "after 6 h of crash loops");
    assert_flat(&early, &late, 0.25);
}
