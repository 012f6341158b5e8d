//! Informers as client-go's reflector runs them (tools/cache/reflector.go): one LIST, then WATCHes that the server
//! ends at a timeout the reflector drew from [5 min, 10 min), each followed by a re-WATCH from the last
//! resourceVersion it saw (bookmarks keep that fresh) and no LIST; a LIST again only after an error such as
//! 410 Gone. Nothing relists on a timer unless kubeloop's own repair knob (`relist_period`) is switched on.

mod common;

use kubeloop_engine::informer::InformerStats;
use kubeloop_engine::kubectl::{self, Input};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Owner, Sim, SimConfig, DEFAULT_RELIST_PERIOD, MIN_WATCH_TIMEOUT, REPAIR_RELIST_PERIOD};
use kubeloop_engine::store::StoreConfig;
use kubeloop_engine::time::{HOUR, MINUTE};

static WEB: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| common::web(6).yaml());

fn cluster(config: SimConfig, nodes: usize) -> Sim {
    let mut sim = Sim::new(config);
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    sim
}

fn kubectl(sim: &mut Sim, line: &str) {
    let out = kubectl::run(sim, line, &Input::none());
    assert_eq!(out.code, 0, "{line}: {}", out.text());
}

fn control_plane(sim: &Sim) -> InformerStats {
    // A standby controller manager's informers have not started (no LIST yet): left out.
    let started: Vec<&InformerStats> =
        sim.control_plane_informers().into_iter().map(|i| sim.informers()[i].stats()).filter(|s| s.lists > 0).collect();
    let sum = |count: fn(&InformerStats) -> u64| -> u64 { started.iter().map(|s| count(s)).sum() };
    let mut total = InformerStats::default();
    total.lists = sum(|s| s.lists);
    total.relists = sum(|s| s.relists);
    total.watches = sum(|s| s.watches);
    total.watch_timeouts = sum(|s| s.watch_timeouts);
    total.bookmarks = sum(|s| s.bookmarks);
    total.gone = sum(|s| s.gone);
    total
}

#[test]
fn nothing_relists_on_a_timer_by_default() {
    assert_eq!(DEFAULT_RELIST_PERIOD, 0);
    assert_eq!(SimConfig::default().relist_period, 0);
}

/// reflector.go ListAndWatch: `timeoutSeconds := int64(r.minWatchTimeout.Seconds() * (rand.Float64() + 1.0))`;
/// when the watch ends, the loop re-WATCHes from `r.LastSyncResourceVersion()`: no LIST.
#[test]
fn an_informer_lists_once_then_rewatches_at_each_watch_timeout() {
    let mut sim = cluster(SimConfig { seed: 3, ..Default::default() }, 3);
    kubectl::apply(&mut sim, &WEB).expect("apply");
    sim.run_for(2 * HOUR);
    for i in sim.control_plane_informers() {
        let s = &sim.informers()[i].stats();
        if s.lists == 0 {
            continue;
        }
        assert_eq!((s.lists, s.relists, s.gone), (1, 0, 0), "informer {i}: {s:?}");
        // Two hours of watches of 5 to 10 minutes each.
        assert!((12..=24).contains(&s.watch_timeouts), "informer {i}: {s:?}");
        assert_eq!(s.watches, 1 + s.watch_timeouts, "every timeout is followed by one re-WATCH: {s:?}");
        // The server bookmarks a caught-up watcher before its deadline; one whose events are in flight at that
        // moment gets none, which a busy informer meets now and then.
        assert!(s.bookmarks <= s.watch_timeouts && s.bookmarks + 2 >= s.watch_timeouts, "{s:?}");
    }
    // The kubelets' informers too.
    let kubelet_informers: Vec<usize> =
        (0..sim.informers().len()).filter(|&i| matches!(sim.informer_owner(i), Some(Owner::Kubelet(_)))).collect();
    assert!(!kubelet_informers.is_empty());
    for i in kubelet_informers {
        let s = &sim.informers()[i].stats();
        assert_eq!((s.lists, s.relists), (1, 0), "kubelet informer {i}: {s:?}");
        assert!(s.watch_timeouts >= 12, "kubelet informer {i}: {s:?}");
    }
    let timeouts_by_informer: Vec<u64> =
        sim.control_plane_informers().iter().map(|&i| sim.informers()[i].stats().watch_timeouts).collect();
    assert!(
        timeouts_by_informer.windows(2).any(|w| w[0] != w[1]),
        "each reflector draws its own timeouts: {timeouts_by_informer:?}"
    );
}

/// A watch filtered to one node sees nothing while pods churn elsewhere and the watch cache compacts past the
/// last event it saw; the server's bookmark before the timeout carries the current resourceVersion, so the
/// re-WATCH is served (no 410, no LIST). Cut early, before any bookmark, the same watch gets 410 and LISTs.
#[test]
fn bookmarks_keep_a_quiet_filtered_watch_from_410() {
    let store = || StoreConfig { watch_history_min: 10, watch_history_max: 50, ..Default::default() };
    let mut sim = cluster(SimConfig { seed: 5, store: store(), ..Default::default() }, 3);
    kubectl(&mut sim, "cordon node-3");
    kubectl::apply(&mut sim, &WEB).expect("apply");
    sim.run_for(MINUTE);
    for round in 0..12 {
        let replicas = if round % 2 == 0 { 12 } else { 4 };
        kubectl(&mut sim, &format!("scale deployment web --replicas={replicas}"));
        sim.run_for(2 * MINUTE);
    }
    sim.run_for(30 * MINUTE);
    let quiet = (0..sim.informers().len())
        .find(|&i| {
            sim.informer_owner(i) == Some(Owner::Kubelet(2))
                && sim.informers()[i].kind == kubeloop_engine::api::Kind::Pod
        })
        .expect("node-3's pod informer");
    let s = sim.informers()[quiet].stats().clone();
    assert!(s.watch_timeouts >= 3, "{s:?}");
    assert_eq!((s.lists, s.gone), (1, 0), "re-WATCHed from its bookmarks, never 410: {s:?}");
    assert!(
        sim.informers()[quiet].last_rv() > 100,
        "its resourceVersion moved with the bookmarks: {}",
        sim.informers()[quiet].last_rv()
    );

    // A cut watch resumes from the last bookmark; one cut before its first bookmark resumes from the last event it
    // saw, which the cache has compacted away: 410, then a LIST.
    let mut sim = cluster(SimConfig { seed: 5, store: store(), ..Default::default() }, 3);
    kubectl(&mut sim, "cordon node-3");
    kubectl::apply(&mut sim, &WEB).expect("apply");
    kubectl(&mut sim, "scale deployment web --replicas=40");
    sim.run_for(20 * kubeloop_engine::time::SECOND);
    let quiet = (0..sim.informers().len())
        .find(|&i| {
            sim.informer_owner(i) == Some(Owner::Kubelet(2))
                && sim.informers()[i].kind == kubeloop_engine::api::Kind::Pod
        })
        .expect("node-3's pod informer");
    sim.disconnect_watch(quiet);
    sim.run_for(MINUTE);
    let s = &sim.informers()[quiet].stats();
    assert_eq!((s.gone, s.lists), (1, 2), "410, then a LIST: {s:?}");
}

/// With watch events dropped (a fault no real watch has), nothing but an error or kubeloop's repair knob makes an
/// informer LIST again: the lost deletion stays lost through many watch timeouts, and the knob repairs it.
#[test]
fn a_lost_event_stays_lost_until_a_relist_and_the_repair_knob_is_opt_in() {
    let mut sim = cluster(SimConfig { seed: 7, ..Default::default() }, 3);
    kubectl::apply(&mut sim, &WEB).expect("apply");
    sim.run_for(MINUTE);
    sim.set_watch_drop(1.0);
    kubectl(&mut sim, "delete pods -l app=web --wait=false");
    sim.run_for(MINUTE);
    sim.set_watch_drop(0.0);
    sim.run_for(HOUR);
    assert!(sim.drift() > 0, "the caches never heard of the deletions");
    assert!(control_plane(&sim).watch_timeouts > 20);
    assert_eq!(control_plane(&sim).relists, 0);
    sim.set_relist_period(REPAIR_RELIST_PERIOD);
    sim.run_for(REPAIR_RELIST_PERIOD + 2 * MINUTE);
    assert_eq!(sim.drift(), 0, "the relist replaced the caches");
    assert!(control_plane(&sim).relists > 0);
    assert!(sim.deployments_converged(), "level-triggered controllers saw the truth and healed");
}

#[test]
fn the_minimum_watch_timeout_is_client_gos() {
    assert_eq!(MIN_WATCH_TIMEOUT, 5 * MINUTE);
}
