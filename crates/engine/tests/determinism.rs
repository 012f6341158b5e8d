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

// ---- following commands ---------------------------------------------------------------------------------------

/// A web tier of 3 replicas, each ready 15 s after it starts, and a budget that keeps 2 of them available: a drain
/// waits on it, evicting again every 5 s, and a rollout takes a while.
const FOLLOWED: &str = "cluster:\n  nodes: 3\nuntil: 150s\nmanifests: |\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    replicas: 3\n    selector:\n      matchLabels: {app: web}\n    template:\n      metadata:\n        labels: {app: web}\n      spec:\n        containers:\n        - name: web\n          image: nginx:1.27\n          readinessProbe:\n            tcpSocket: {port: 80}\n            initialDelaySeconds: 15\n  ---\n  apiVersion: policy/v1\n  kind: PodDisruptionBudget\n  metadata:\n    name: web\n  spec:\n    minAvailable: 2\n    selector:\n      matchLabels: {app: web}\n";

/// Every kind of command that keeps printing, started at 30 s (after the writes before it at that instant), with a
/// write later on that is not on any grid of looks (writes may change the history; reads may not).
const FOLLOWING: &[(&str, &[&str])] = &[
    ("drain node-1 node-2 --ignore-daemonsets", &[]),
    ("drain node-2 node-3 --timeout=70s --ignore-daemonsets", &[]),
    ("rollout status deployment/web", &["set image deployment/web web=nginx:1.28"]),
    ("rollout status deployment/web --timeout=20s", &["set image deployment/web web=nginx:1.28"]),
    ("get pods -w", &[]),
    ("get pods -w --watch-only -o name", &[]),
    ("events -w", &[]),
    ("delete pods -l app=web", &[]),
];

/// Commands that only read, some of which keep printing too (`for:` interrupts some of those).
const READ_LINES: &[&str] = &[
    "get pods",
    "get pods -o wide",
    "get deploy web -o yaml",
    "get pdb web -o json",
    "describe pods",
    "describe node node-1",
    "describe pdb web",
    "top pods",
    "top nodes",
    "events",
    "get events",
    "explain pods.spec",
    "api-resources",
    "version",
    "rollout history deployment/web",
    "get all",
    "get pods -w",
    "rollout status deployment/web",
    "get nodes -w --watch-only",
];

/// The scenario of one following command, with the reads given (ms after the start, index in [`READ_LINES`],
/// interrupted after ms when it keeps printing).
fn followed(command: &str, before: &[&str], reads: &[(Millis, usize, Option<Millis>)]) -> String {
    let mut actions: Vec<(Millis, String)> = before.iter().map(|b| (30_000, format!("kubectl: {b:?}"))).collect();
    actions.push((30_000, format!("kubectl: {command:?}")));
    actions.push((71_337, "kubectl: \"scale deployment web --replicas=4\"".into()));
    for (at, i, stop) in reads {
        let stop = stop.map(|s| format!(", for: {s}ms")).unwrap_or_default();
        actions.push((*at, format!("kubectl: {:?}{stop}", READ_LINES[*i])));
    }
    // Stable: the reads at an instant come after the writes of that instant.
    actions.sort_by_key(|(at, _)| *at);
    let mut text = FOLLOWED.to_string();
    text.push_str("actions:\n");
    for (at, what) in actions {
        text.push_str(&format!("  - {{at: {at}ms, {what}}}\n"));
    }
    text
}

/// The history hash of a scenario run to its end, and its timeline's text.
fn followed_run(text: &str) -> (String, String) {
    let sc = kubeloop_engine::scenario::Scenario::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let out = sc.run(Default::default()).unwrap_or_else(|e| panic!("{e}"));
    let timeline = out.timeline.iter().map(|e| format!("{} {}\n", e.at, e.text)).collect();
    (out.summary.history_hash, timeline)
}

/// Each following command's run without reads.
static QUIET: std::sync::LazyLock<Vec<(String, String)>> = std::sync::LazyLock::new(|| {
    FOLLOWING.iter().map(|(command, before)| followed_run(&followed(command, before, &[]))).collect()
});

/// The reads make each command do something worth checking: the drains evict again while the budget refuses,
/// the rollouts wait, the watches print.
#[test]
fn each_following_command_keeps_printing_while_reads_come() {
    let expect = [
        "(will retry after 5s)",
        "(will retry after 5s)",
        "Waiting for deployment \"web\" rollout to finish",
        "error: timed out waiting for the condition",
        "web-",
        "pod/web-",
        "ScalingReplicaSet",
        "pod \"web-",
    ];
    for (((command, _), (_, timeline)), want) in FOLLOWING.iter().zip(QUIET.iter()).zip(expect) {
        assert!(timeline.contains(want), "{command}: {want:?} not in\n{timeline}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Any number of reads at any instants while a command keeps printing (a drain that evicts as it goes, a
    /// rollout status, a watch, a delete that waits) leave the history as it was: a following command is looked at
    /// on its own grid, from its own start, whatever was read meanwhile.
    #[test]
    fn reads_never_move_a_following_command(
        reads in proptest::collection::vec(
            (25_000u64..150_000, 0..READ_LINES.len(), proptest::option::of(1u64..20_000)),
            0..10,
        ),
    ) {
        for (i, (command, before)) in FOLLOWING.iter().enumerate() {
            let (busy, timeline) = followed_run(&followed(command, before, &reads));
            prop_assert_eq!(&QUIET[i].0, &busy, "{} with reads {:?}:\n{}", command, reads, timeline);
        }
    }
}

/// A controller that watches ConfigMaps (which nothing here writes) and does nothing.
#[derive(Clone)]
struct Idle;

impl kubeloop_engine::controller::Reconciler for Idle {
    fn name(&self) -> &'static str {
        "idle"
    }
    fn component(&self) -> &'static str {
        "idle-controller"
    }
    fn workers(&self) -> usize {
        1
    }
    fn watches(&self) -> &'static [Kind] {
        &[Kind::ConfigMap]
    }
    fn handle(
        &mut self,
        _: &kubeloop_engine::informer::InformerEvent,
        _: kubeloop_engine::controller::Caches<'_>,
        _: Millis,
        _: &mut kubeloop_engine::controller::Enqueue,
    ) {
    }
    fn reconcile(
        &mut self,
        _: &ObjKey,
        _: &mut kubeloop_engine::controller::Ctx<'_, '_>,
    ) -> kubeloop_engine::controller::ReconcileResult {
        Ok(kubeloop_engine::controller::ReconcileAction::Done)
    }
}

/// Every part draws from a stream keyed by its own name: a process added beside the control plane (its client, its
/// informer, its controller) moves no other part's draws, so the cluster's writes are the same, write for write,
/// with the same names, uids and resourceVersions.
#[test]
fn a_process_added_beside_the_control_plane_leaves_every_write_where_it_was() {
    let run = |extra: bool| {
        let mut sim = Sim::new(SimConfig { seed: 11, ..SimConfig::default() });
        for _ in 0..3 {
            sim.add_node(NodeConfig::default()).expect("a node");
        }
        if extra {
            sim.add_host("idle-controller", vec![kubeloop_engine::controller::Controller::new(Box::new(Idle))], 0);
        }
        kubectl::apply(&mut sim, &WEB).expect("applies");
        sim.run_for(3 * MINUTE);
        // Every object but the Events (the added process records none, but Events are named by the time they are
        // written), with its uid and resourceVersion.
        let objects: Vec<(Kind, String, String, u64)> = Kind::ALL
            .iter()
            .filter(|k| **k != Kind::Event)
            .flat_map(|k| {
                sim.store()
                    .objects(*k)
                    .map(move |o| (*k, o.meta().name.to_string(), o.meta().uid.to_string(), o.meta().resource_version))
            })
            .collect();
        (sim.store().resource_version(), objects)
    };
    let (without, with) = (run(false), run(true));
    assert_eq!(without.1.iter().filter(|o| o.0 == Kind::Pod).count(), 6, "the Deployment's pods");
    assert_eq!(without, with);
}
