//! Determinism: a seed and the writes made replay the same history, whatever was read. Reads (kubectl get,
//! describe, events, top, rollout status, explain, Tab completion, a person's watch, client and server dry runs)
//! and the page's measurements (drift, footprint, convergence checks) are observers: they may be counted by the API
//! server, but they never draw from the simulation's random stream nor schedule anything in it.

mod common;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl::{self, Follow, Input};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::store::DeleteOptions;
use kubeloop_engine::time::{Millis, MINUTE, SECOND};
use proptest::prelude::*;

static WEB: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| common::web(6).cpu("100m").yaml());

/// The reads a person (or the page) can make: none of them may change the future.
const READS: &[&str] = &[
    "get pods",
    "get pods -o wide",
    "get all -A",
    "get deploy,rs -o yaml",
    "get pods -o json",
    "get nodes --show-labels",
    "get events",
    "get leases -n kube-system",
    "get pods nosuch",
    "describe deployment web",
    "describe nodes",
    "describe pods",
    "events",
    "top pods",
    "top nodes",
    "rollout history deployment/web",
    "explain deployment.spec.strategy",
    "api-resources",
    "version",
    "get pods -l app=web --no-headers",
    "create deployment dry --image=my_app.v2 --dry-run=client -o yaml",
    "scale deployment web --replicas=40 --dry-run=client",
    "apply -f - --dry-run=client",
    "delete pods --all --dry-run=client",
    "delete pods --all --dry-run=server",
    "scale deployment web --replicas=40 --dry-run=server",
    "apply -f - --dry-run=server",
    "drain node-1 --dry-run=server",
    "cordon node-2 --dry-run=server",
    "uncordon node-2 --dry-run=client",
    "taint nodes node-3 dedicated=gpu:NoExecute --dry-run=server",
    "rollout undo deployment/web --dry-run=server",
    "no-such-command",
];

const COMPLETIONS: &[&str] =
    &["kubectl g", "kubectl get po", "kubectl get pods web-", "kubectl describe node ", "kubectl -n kube-"];

/// Everything observers do, at once.
fn read_everything(sim: &mut Sim, follows: &mut Vec<Box<dyn Follow>>, i: usize) {
    let stdin = WEB.replace("replicas: 6", "replicas: 9");
    let input = Input { stdin: Some(&stdin), read_file: &|name| Err(format!("no file {name}")) };
    for line in READS {
        let out = kubectl::run(sim, line, &input);
        if let Some(f) = out.follow {
            follows.push(f);
        }
    }
    for line in COMPLETIONS {
        let _ = kubectl::complete(sim, line);
    }
    for line in ["get pods -w", "rollout status deployment/web", "get deploy -w --watch-only"] {
        if let Some(f) = kubectl::run(sim, line, &input).follow {
            follows.push(f);
        }
    }
    for f in follows.iter_mut() {
        let _ = f.poll(sim);
    }
    // Stop some follows now and keep others open for a while.
    if i.is_multiple_of(3) {
        for mut f in follows.drain(..) {
            f.stop(sim);
        }
    }
    let _ = sim.drift();
    let _ = sim.footprint();
    let _ = sim.deployments_fulfilled();
    let _ = sim.queue_depths();
    let _ = sim.pod_counts();
}

/// The writes of the scenario, at fixed times: the same in every variant.
fn write_at(sim: &mut Sim, t: Millis) {
    let web = ObjKey::new("default", "web");
    match t {
        0 => {
            kubectl::apply(sim, &WEB).expect("apply");
        }
        t if t == 30 * SECOND => {
            sim.scale(Kind::Deployment, &web, 10).expect("scale");
        }
        t if t == 60 * SECOND => {
            let out = kubectl::run(sim, "set image deployment/web nginx=nginx:1.28", &Input::none());
            assert_eq!(out.code, 0, "{}", out.text());
        }
        t if t == 90 * SECOND => {
            let victim = sim.store().objects(Kind::Pod).next().map(|p| p.key()).expect("a pod");
            sim.delete(Kind::Pod, &victim, &DeleteOptions::default()).expect("delete");
            sim.set_watch_drop(0.2);
        }
        t if t == 100 * SECOND => sim.kill_node("node-2").expect("kill"),
        t if t == 130 * SECOND => sim.set_watch_drop(0.0),
        t if t == 150 * SECOND => sim.disconnect_all_watches(),
        t if t == 200 * SECOND => sim.revive_node("node-2").expect("revive"),
        _ => {}
    }
}

/// Runs the scenario for `until`, reading everything at the times in `reads`; returns the history hash and a
/// digest of the store.
fn run(seed: u64, until: Millis, reads: &[Millis]) -> (u64, Vec<String>) {
    let mut sim = Sim::new(SimConfig { seed, ..Default::default() });
    for _ in 0..4 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    let writes: Vec<Millis> = [0, 30, 60, 90, 100, 130, 150, 200].iter().map(|s| s * SECOND).collect();
    let mut times: Vec<Millis> = writes.iter().chain(reads).copied().filter(|t| *t <= until).collect();
    times.sort_unstable();
    times.dedup();
    let mut follows = Vec::new();
    for (i, t) in times.into_iter().enumerate() {
        sim.run_until(t);
        // Reads first at a shared instant: they must not even change what the write at that instant does.
        if reads.contains(&t) {
            read_everything(&mut sim, &mut follows, i);
        }
        if writes.contains(&t) {
            write_at(&mut sim, t);
        }
    }
    sim.run_until(until);
    for mut f in follows {
        f.stop(&mut sim);
    }
    let digest = Kind::ALL
        .iter()
        .flat_map(|k| {
            sim.store().objects(*k).map(|o| format!("{}/{} rv={}", o.kind(), o.key(), o.meta().resource_version))
        })
        .collect();
    (sim.history_hash(), digest)
}

#[test]
fn reads_never_change_the_history() {
    let until = 5 * MINUTE;
    let (quiet, quiet_store) = run(11, until, &[]);
    let every: Vec<Millis> = (0..until).step_by(7 * SECOND as usize).collect();
    let (busy, busy_store) = run(11, until, &every);
    let first_difference = quiet_store.iter().zip(&busy_store).find(|(a, b)| a != b);
    assert!(
        quiet_store.len() == busy_store.len() && first_difference.is_none(),
        "the same objects at the same resourceVersions: {} vs {} objects, first difference {first_difference:?}",
        quiet_store.len(),
        busy_store.len()
    );
    assert_eq!(quiet, busy, "the same history hash with and without reads");
    // And the scenario is not trivially the same for any seed: another seed gives another history.
    let (other, _) = run(12, until, &[]);
    assert_ne!(quiet, other);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Reads at random instants (including the instants of writes) leave the history as it was.
    #[test]
    fn reads_at_any_instant_leave_the_history_alone(
        seed in 1u64..1_000,
        reads in proptest::collection::vec(0u64..240, 1..6),
    ) {
        let until = 4 * MINUTE;
        let reads: Vec<Millis> = reads.into_iter().map(|s| s * SECOND).collect();
        let (quiet, _) = run(seed, until, &[]);
        let (busy, _) = run(seed, until, &reads);
        prop_assert_eq!(quiet, busy);
    }
}
