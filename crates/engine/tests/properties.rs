//! Property tests. Cases per property: `KUBELOOP_PROPTEST_CASES` (default 32 in CI runs; raise it locally for a
//! longer search). A failing case prints its seed and inputs; the same inputs replay the same history.

use std::collections::{BTreeMap, BTreeSet};

use kubeloop_engine::api::{Kind, ObjKey, PodPhase};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::rng::Rng;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::store::DeleteOptions;
use kubeloop_engine::time::{Millis, MINUTE, SECOND};
use kubeloop_engine::workqueue::{default_controller_rate_limiter, RateLimitingQueue};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("KUBELOOP_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(32)
}

#[derive(Clone, Debug)]
enum QueueOp {
    Add(u8),
    Get,
    Done(usize),
    RateLimited(u8),
    Advance(u16),
}

fn queue_op() -> impl Strategy<Value = QueueOp> {
    prop_oneof![
        (0u8..6).prop_map(QueueOp::Add),
        Just(QueueOp::Get),
        (0usize..4).prop_map(QueueOp::Done),
        (0u8..6).prop_map(QueueOp::RateLimited),
        (0u16..2000).prop_map(QueueOp::Advance),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases() * 8))]

    /// client-go queue invariants: a key is never handed to two workers at once, and every key added is handed
    /// out again after its last add, once the queue is drained.
    #[test]
    fn work_queue_never_hands_out_a_key_twice_and_loses_none(ops in prop::collection::vec(queue_op(), 1..200)) {
        let mut q: RateLimitingQueue<u8> = RateLimitingQueue::new(Box::new(default_controller_rate_limiter()));
        let mut rng = Rng::new(1);
        let mut now: Millis = 0;
        let mut processing: Vec<u8> = Vec::new();
        let mut owed: BTreeSet<u8> = BTreeSet::new();
        for op in ops {
            match op {
                QueueOp::Add(k) => { q.add(k, now); owed.insert(k); }
                QueueOp::RateLimited(k) => { q.add_rate_limited(k, now, &mut rng); owed.insert(k); }
                QueueOp::Get => {
                    if let Some(k) = q.get(now) {
                        prop_assert!(!processing.contains(&k), "key {} handed out twice", k);
                        processing.push(k);
                        owed.remove(&k);
                    }
                }
                QueueOp::Done(i) => {
                    if !processing.is_empty() {
                        let k = processing.remove(i % processing.len());
                        q.done(&k, now);
                    }
                }
                QueueOp::Advance(d) => { now += d as Millis; q.fire(now); }
            }
        }
        for k in processing.drain(..) {
            q.done(&k, now);
        }
        now += 2_000_000_000;
        q.fire(now);
        while let Some(k) = q.get(now) {
            owed.remove(&k);
            q.done(&k, now);
        }
        prop_assert!(owed.is_empty(), "keys never handed out: {:?}", owed);
    }
}

#[derive(Clone, Debug)]
enum Action {
    Scale(usize, i32),
    DeletePod(usize),
    KillNode(usize),
    ReviveNode(usize),
    Retemplate(usize),
}

fn action() -> impl Strategy<Value = (u32, Action)> {
    let a = prop_oneof![
        ((0usize..3), (0i32..12)).prop_map(|(d, r)| Action::Scale(d, r)),
        (0usize..50).prop_map(Action::DeletePod),
        (0usize..6).prop_map(Action::KillNode),
        (0usize..6).prop_map(Action::ReviveNode),
        (0usize..3).prop_map(Action::Retemplate),
    ];
    ((0u32..120), a)
}

fn manifest(name: &str, replicas: i32, cpu_m: u32, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n      - name: app\n        image: {image}\n        resources:\n          requests:\n            cpu: {cpu_m}m\n"
    )
}

/// Safety invariants that must hold at every observation.
fn check_safety(sim: &Sim, last_rv: &mut u64) -> Result<(), String> {
    let rv = sim.store.resource_version();
    if rv < *last_rv {
        return Err(format!("resourceVersion went back from {last_rv} to {rv}"));
    }
    *last_rv = rv;
    let nodes: BTreeSet<String> = sim.store.objects(Kind::Node).map(|o| o.meta().name.to_string()).collect();
    let mut seen = BTreeSet::new();
    for o in Kind::ALL.iter().flat_map(|k| sim.store.objects(*k)) {
        let m = o.meta();
        if m.resource_version > rv || !seen.insert(m.resource_version) {
            return Err(format!(
                "{} has resourceVersion {} (store at {rv}, or a duplicate)",
                o.key(),
                m.resource_version
            ));
        }
        if let Some(p) = o.as_pod() {
            if !p.spec.node_name.is_empty() && !nodes.contains(&*p.spec.node_name) {
                return Err(format!("pod {} bound to missing node {}", o.key(), p.spec.node_name));
            }
        }
    }
    Ok(())
}

/// Everything as declared: every Deployment has its replicas Running and Ready, caches equal the store, queues
/// are empty.
fn stable(sim: &Sim) -> Result<(), String> {
    if !sim.deployments_converged() {
        return Err("deployments not converged".into());
    }
    if !sim.idle() {
        return Err(format!("queues not idle: {:?}", sim.queue_depths()));
    }
    let drift = sim.drift();
    if drift != 0 {
        return Err(format!("{drift} cached objects differ from the store"));
    }
    let want: i32 = sim.store.objects(Kind::Deployment).filter_map(|o| o.as_deployment()).map(|d| d.replicas()).sum();
    let mut by_phase: BTreeMap<PodPhase, i32> = BTreeMap::new();
    for p in sim.store.objects(Kind::Pod).filter_map(|o| o.as_pod()) {
        if p.metadata.is_terminating() || !p.is_ready() {
            return Err(format!("pod {} not settled: {:?}", p.metadata.name, p.status.phase));
        }
        *by_phase.entry(p.status.phase).or_default() += 1;
    }
    if by_phase.get(&PodPhase::Running).copied().unwrap_or(0) != want {
        return Err(format!("want {want} running pods, have {by_phase:?}"));
    }
    Ok(())
}

fn run_history(seed: u64, nodes: usize, deployments: &[(i32, u32)], actions: &[(u32, Action)]) -> Result<Sim, String> {
    let mut sim = Sim::new(SimConfig { seed, ..Default::default() });
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).map_err(|e| e.to_string())?;
    }
    let mut images = vec![1u32; deployments.len()];
    let names: Vec<String> = (0..deployments.len()).map(|i| format!("app{i}")).collect();
    for (i, (r, cpu)) in deployments.iter().enumerate() {
        kubectl::apply(&mut sim, &manifest(&names[i], *r, *cpu, "img:1")).map_err(|e| e.to_string())?;
    }
    let mut sorted = actions.to_vec();
    sorted.sort_by_key(|(at, _)| *at);
    let mut last_rv = 0;
    for (at, a) in sorted {
        let t = at as Millis * SECOND;
        while sim.now() < t {
            let step = (sim.now() + SECOND).min(t);
            sim.run_until(step);
            check_safety(&sim, &mut last_rv)?;
        }
        let node = |i: usize| format!("node-{}", i % nodes + 1);
        match a {
            Action::Scale(d, r) => {
                let d = d % deployments.len();
                let _ = sim.scale(Kind::Deployment, &ObjKey::new("default", &names[d]), r);
            }
            Action::DeletePod(i) => {
                let keys: Vec<ObjKey> = sim.store.objects(Kind::Pod).map(|o| o.key()).collect();
                if !keys.is_empty() {
                    let _ = sim.delete(Kind::Pod, &keys[i % keys.len()], &DeleteOptions::default());
                }
            }
            Action::KillNode(i) => sim.kill_node(&node(i))?,
            Action::ReviveNode(i) => sim.revive_node(&node(i))?,
            Action::Retemplate(d) => {
                let d = d % deployments.len();
                images[d] += 1;
                let r = sim
                    .store
                    .peek(Kind::Deployment, &ObjKey::new("default", &names[d]))
                    .and_then(|o| o.as_deployment().map(|x| x.replicas()))
                    .unwrap_or(1);
                kubectl::apply(&mut sim, &manifest(&names[d], r, deployments[d].1, &format!("img:{}", images[d])))
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    // Faults stop: every kubelet comes back. Then the cluster must settle, and stay settled.
    for i in 0..nodes {
        sim.revive_node(&format!("node-{}", i + 1))?;
    }
    let deadline = sim.now() + 10 * MINUTE;
    while stable(&sim).is_err() && sim.now() < deadline {
        let step = sim.now() + SECOND;
        sim.run_until(step);
        check_safety(&sim, &mut last_rv)?;
    }
    stable(&sim).map_err(|e| format!("not stable 10 minutes after faults stopped: {e}"))?;
    let settled = sim.now();
    while sim.now() < settled + 2 * MINUTE {
        let step = sim.now() + 5 * SECOND;
        sim.run_until(step);
        check_safety(&sim, &mut last_rv)?;
        stable(&sim).map_err(|e| format!("settled at {settled} ms, then unsettled: {e}"))?;
    }
    Ok(sim)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Eventually stable reconciliation (Anvil's ESR) in level-triggered mode: whatever the history of scaling,
    /// pod deletions, template changes and kubelet crashes, once faults stop the cluster converges to the
    /// declared state and stays there; safety invariants hold at every step.
    #[test]
    fn the_cluster_settles_after_any_history(
        seed in any::<u64>(),
        nodes in 2usize..6,
        deployments in prop::collection::vec(((0i32..10), (10u32..200)), 1..4),
        actions in prop::collection::vec(action(), 0..25),
    ) {
        if let Err(e) = run_history(seed, nodes, &deployments, &actions) {
            return Err(TestCaseError::fail(format!("seed {seed}: {e}")));
        }
    }
}

#[test]
fn a_known_history_replays_identically() {
    let actions =
        [(10, Action::Scale(0, 7)), (20, Action::KillNode(1)), (30, Action::DeletePod(3)), (50, Action::ReviveNode(1))];
    let a = run_history(99, 3, &[(3, 100)], &actions).map(|s| s.history_hash());
    let b = run_history(99, 3, &[(3, 100)], &actions).map(|s| s.history_hash());
    assert!(a.is_ok());
    assert_eq!(a, b);
}
