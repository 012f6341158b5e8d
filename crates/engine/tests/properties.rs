//! Property tests. Cases per property: `KUBELOOP_PROPTEST_CASES` (default 32) and `KUBELOOP_ESR_CASES` for the
//! eventually-stable-reconciliation property (default 200); raise them for a longer search. A failing case prints
//! its seed and inputs, and an ESR case also a `kubeloop run` command that replays it exactly.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use kubeloop_engine::api::{Kind, PodPhase};
use kubeloop_engine::rng::Rng;
use kubeloop_engine::scenario::{Run, RunOptions, Scenario};
use kubeloop_engine::sim::{Sim, REPAIR_RELIST_PERIOD};
use kubeloop_engine::time::{Millis, MINUTE, SECOND};
use kubeloop_engine::workqueue::{default_controller_rate_limiter, RateLimitingQueue};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("KUBELOOP_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(32)
}

/// Cases of the ESR property: `KUBELOOP_ESR_CASES` (default 200, about 0.15 s each in a debug build; thousands for a long
/// search).
fn esr_cases() -> u32 {
    std::env::var("KUBELOOP_ESR_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200)
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

// ---------------------------------------------------------------------------------------------------------------
// Eventually stable reconciliation (Anvil's ESR), over scenario files: a random cluster, random manifests and a
// random history of user actions and faults become a scenario; the run must keep the safety invariants at every
// second, and once the faults stop it must settle within a bound and stay settled. A failing case is written to
// a file that `kubeloop run` replays exactly (the same scenario code runs it).

/// When the history ends and every fault is stopped (seconds): a short history of the proptest cases.
const FAULTS_STOP: u32 = 130;

/// A history's length: faults until `faults_stop` seconds, then settled within 11 minutes, and still settled 2
/// minutes later. Dropped watch events are a fault no real watch has, and upstream's reflector never relists on a
/// timer, so these histories switch on kubeloop's own repair knob, a relist every [`REPAIR_RELIST_PERIOD`] (5 min).
/// The bound: a cache that lost events is right again at the next relist (at most one relist period after the
/// faults stop); but a ReplicaSet whose expected creates were lost with the events waits for its
/// expectations to expire (5 min after they were set, `ExpectationsTimeout`), which can fall just after that relist,
/// so the relist after it (one more period) is the one it acts on: two relist periods, and a minute for the
/// rollout that follows. (Found by the sweep: case 45643 converged 10 min 2 s after its faults stopped.)
#[derive(Clone, Copy, Debug)]
struct Horizon {
    faults_stop: u32,
}

impl Horizon {
    const SHORT: Horizon = Horizon { faults_stop: FAULTS_STOP };

    fn stop(self) -> Millis {
        Millis::from(self.faults_stop) * SECOND
    }
    fn settled_by(self) -> Millis {
        self.stop() + 2 * REPAIR_RELIST_PERIOD + MINUTE
    }
    fn end(self) -> Millis {
        self.settled_by() + 2 * MINUTE
    }
}

#[derive(Clone, Debug)]
enum Step {
    Scale(usize, u32),
    DeletePods(usize),
    Retemplate(usize),
    KillNode(usize),
    ReviveNode(usize),
    DropWatchEvents(u8),
    Conflicts(u8),
    ApiLatency(u16),
    DisconnectWatches,
    ForceRelist,
    Crash(usize),
    Restart(usize),
}

fn step() -> impl Strategy<Value = (u32, Step)> {
    let s = prop_oneof![
        ((0usize..3), (0u32..10)).prop_map(|(d, r)| Step::Scale(d, r)),
        (0usize..3).prop_map(Step::DeletePods),
        (0usize..3).prop_map(Step::Retemplate),
        (0usize..6).prop_map(Step::KillNode),
        (0usize..6).prop_map(Step::ReviveNode),
        prop_oneof![Just(0u8), Just(30), Just(100)].prop_map(Step::DropWatchEvents),
        (0u8..60).prop_map(Step::Conflicts),
        (0u16..200).prop_map(Step::ApiLatency),
        Just(Step::DisconnectWatches),
        Just(Step::ForceRelist),
        (0usize..3).prop_map(Step::Crash),
        (0usize..3).prop_map(Step::Restart),
    ];
    ((0u32..FAULTS_STOP), s)
}

const PROCESSES: [&str; 3] = ["cp-1", "cp-2", "kube-scheduler"];

/// The scenario text of one case.
fn scenario(seed: u64, nodes: usize, deployments: &[(u32, u32)], steps: &[(u32, Step)], edge: bool) -> String {
    scenario_over(Horizon::SHORT, seed, nodes, deployments, steps, edge)
}

fn scenario_over(
    h: Horizon,
    seed: u64,
    nodes: usize,
    deployments: &[(u32, u32)],
    steps: &[(u32, Step)],
    edge: bool,
) -> String {
    let faults_stop = h.faults_stop;
    // The run goes on past the last sample by a drain's length: keys a relist queues at the last sample's instant
    // are worked off there (a run never steps past its `until`).
    let mut y = format!(
        "# ESR case (tests/properties.rs)\nseed: {seed}\nuntil: {}s\ncluster:\n  nodes: {nodes}\nmanifests: |\n",
        (h.end() + DRAIN) / SECOND
    );
    for (i, (replicas, cpu)) in deployments.iter().enumerate() {
        let _ = write!(
            y,
            "  ---\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: app{i}\n  spec:\n    replicas: {replicas}\n    selector:\n      matchLabels:\n        app: app{i}\n    template:\n      metadata:\n        labels:\n          app: app{i}\n      spec:\n        terminationGracePeriodSeconds: 5\n        containers:\n        - name: app\n          image: img:1\n          resources:\n            requests:\n              cpu: {cpu}m\n"
        );
    }
    y.push_str("actions:\n");
    // kubeloop's own repair knob (see Horizon): without it a dropped event is never re-observed.
    let _ = writeln!(y, "  - {{at: 0s, mode: {{relistPeriod: {}s}}}}", REPAIR_RELIST_PERIOD / SECOND);
    if edge {
        y.push_str("  - {at: 0s, mode: {trigger: edge}}\n");
    }
    let mut sorted = steps.to_vec();
    sorted.sort_by_key(|(at, _)| *at);
    let mut image = vec![1u32; deployments.len()];
    let n = deployments.len();
    let node = |i: usize| format!("node-{}", i % nodes + 1);
    for (at, st) in &sorted {
        let a = match st {
            Step::Scale(d, r) => format!("scale: {{deployment: app{}, replicas: {r}}}", d % n),
            Step::DeletePods(d) => format!("kubectl: delete pods -l app=app{} --wait=false", d % n),
            Step::Retemplate(d) => {
                let d = d % n;
                image[d] += 1;
                format!("kubectl: set image deployment/app{d} app=img:{}", image[d])
            }
            Step::KillNode(i) => format!("killNode: {}", node(*i)),
            Step::ReviveNode(i) => format!("reviveNode: {}", node(*i)),
            Step::DropWatchEvents(p) => format!("fault: {{dropWatchEvents: {p}%}}"),
            Step::Conflicts(p) => format!("fault: {{conflicts: {p}%}}"),
            Step::ApiLatency(ms) => format!("fault: {{apiLatency: {ms}ms}}"),
            Step::DisconnectWatches => "fault: {disconnectWatches: true}".into(),
            Step::ForceRelist => "fault: {forceRelist: true}".into(),
            Step::Crash(p) => format!("fault: {{crash: {}}}", PROCESSES[p % 3]),
            Step::Restart(p) => format!("fault: {{restart: {}}}", PROCESSES[p % 3]),
        };
        let _ = writeln!(y, "  - {{at: {at}s, {a}}}");
    }
    // Faults stop: no more drops, conflicts or latency; every process and every kubelet runs.
    let _ = writeln!(y, "  - {{at: {faults_stop}s, fault: {{dropWatchEvents: 0%, conflicts: 0%, apiLatency: 0ms}}}}");
    for p in PROCESSES {
        let _ = writeln!(y, "  - {{at: {faults_stop}s, fault: {{restart: {p}}}}}");
    }
    for i in 0..nodes {
        let _ = writeln!(y, "  - {{at: {faults_stop}s, reviveNode: node-{}}}", i + 1);
    }
    y
}

/// Safety invariants that must hold at every observation.
fn check_safety(sim: &Sim, last_rv: &mut u64) -> Result<(), String> {
    let rv = sim.store().resource_version();
    if rv < *last_rv {
        return Err(format!("resourceVersion went back from {last_rv} to {rv}"));
    }
    *last_rv = rv;
    let nodes: BTreeSet<String> = sim.store().objects(Kind::Node).map(|o| o.meta().name.to_string()).collect();
    let mut seen = BTreeSet::new();
    for o in Kind::ALL.iter().flat_map(|k| sim.store().objects(*k)) {
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
    // No pod runs on two kubelets: the engine checks it after every event of a debug build (sim/invariants.rs);
    // a release sweep asks the same question here.
    sim.check_safety()?;
    Ok(())
}

/// Everything as declared: every Deployment has its replicas Running and Ready on Ready nodes (and says so),
/// caches equal the store, queues are empty, no pod is pending or terminating.
fn stable(sim: &Sim) -> Result<(), String> {
    if !sim.deployments_fulfilled() {
        return Err("a Deployment does not have its replicas running and ready on ready nodes".into());
    }
    if !sim.deployments_converged() {
        return Err("a Deployment's status does not match".into());
    }
    let depth: usize = sim.queue_depths().iter().map(|(_, d)| d).sum();
    if depth != 0 {
        return Err(format!("queues not empty: {:?}", sim.queue_depths()));
    }
    let drift = sim.drift();
    if drift != 0 {
        return Err(format!("{drift} cached objects differ from the store"));
    }
    for p in sim.store().objects(Kind::Pod).filter_map(|o| o.as_pod()) {
        if p.metadata.is_terminating() || p.status.phase != PodPhase::Running {
            return Err(format!("pod {} not settled: {:?}", p.metadata.name, p.status.phase));
        }
    }
    Ok(())
}

/// Runs one case; on failure, the error says what and when, and how to replay it.
fn run_case(text: &str) -> Result<u64, String> {
    run_case_over(Horizon::SHORT, text)
}

fn run_case_over(h: Horizon, text: &str) -> Result<u64, String> {
    let sc = Scenario::parse(text).map_err(|e| format!("the generated scenario does not parse: {e}\n{text}"))?;
    let mut run = sc.start(RunOptions::default()).map_err(|e| e.to_string())?;
    let mut last_rv = 0;
    let mut t = 0;
    while t < h.settled_by() {
        t += SECOND;
        run.run_to(t);
        check_safety(run.sim(), &mut last_rv).map_err(|e| format!("at {t} ms: safety: {e}"))?;
    }
    drain(&mut run, &mut t);
    stable(run.sim())
        .map_err(|e| format!("not settled {} after the faults stopped: {e}", human(h.settled_by() - h.stop())))?;
    while t < h.end() {
        t += 5 * SECOND;
        run.run_to(t);
        check_safety(run.sim(), &mut last_rv).map_err(|e| format!("at {t} ms: safety: {e}"))?;
        drain(&mut run, &mut t);
        stable(run.sim()).map_err(|e| format!("at {t} ms: settled, then unsettled: {e}"))?;
    }
    Ok(run.sim().history_hash())
}

/// How long the controllers may take to finish what they hold when stability is judged: a relist or a resync
/// that lands just before a sample puts every key of its kind in the queues, and a settled cluster works them off
/// in milliseconds without a write. A controller that keeps itself busy (a hot loop) is still busy after this, and
/// `stable` reports its queue.
const DRAIN: Millis = 2 * SECOND;

/// Runs on in 10 ms steps until every queue is empty and every worker idle, for at most [`DRAIN`]. Stepping does
/// not change the run: how far `run_to` goes at a time is a read, and reads never change a history.
fn drain(run: &mut Run<'_>, t: &mut Millis) {
    let limit = *t + DRAIN;
    while !run.sim().idle() && *t < limit {
        *t += 10;
        run.run_to(*t);
    }
}

fn human(ms: Millis) -> String {
    format!("{}m{}s", ms / MINUTE, (ms % MINUTE) / SECOND)
}

/// Writes a failing case where `kubeloop run` can replay it, and says how.
fn replay_hint(name: &str, text: &str) -> String {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("esr-failures");
    let path = dir.join(format!("{name}.yaml"));
    let written = std::fs::create_dir_all(&dir).and_then(|_| std::fs::write(&path, text));
    match written {
        Ok(()) => format!("replay: cargo run -p kubeloop-cli -- run {}", path.display()),
        Err(e) => format!("(could not write the case: {e})\n{text}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(esr_cases()))]

    /// ESR in level-triggered mode: whatever the history of scaling, pod deletions, template changes, kubelet and
    /// controller-manager crashes, dropped watch events, cut watches, 410s, conflicts and latency, once the faults
    /// stop the cluster converges to the declared state within the bound and stays there; the safety invariants
    /// hold at every second.
    #[test]
    fn the_cluster_settles_after_any_history(
        seed in any::<u64>(),
        nodes in 2usize..6,
        deployments in prop::collection::vec(((0u32..8), (10u32..200)), 1..4),
        steps in prop::collection::vec(step(), 0..25),
    ) {
        let text = scenario(seed, nodes, &deployments, &steps, false);
        if let Err(e) = run_case(&text) {
            return Err(TestCaseError::fail(format!("seed {seed}: {e}\n{}", replay_hint(&format!("level-{seed}"), &text))));
        }
    }
}

/// The same harness, edge-triggered, with watch events dropped while pods are deleted: it must find a violation
/// (the check can fail), where level-triggered mode passes the very same cases.
#[test]
fn the_check_finds_the_edge_triggered_controller_that_never_heals() {
    let mut rng = Rng::new(7);
    let mut found = None;
    for case in 0..20 {
        let seed = rng.next_u64();
        let nodes = 3;
        let deployments = [(3, 100), (2, 50)];
        let at = rng.range(10, 100) as u32;
        let steps = [
            (at, Step::DropWatchEvents(100)),
            (at + 1, Step::DeletePods(case % 2)),
            (at + 15, Step::DropWatchEvents(0)),
        ];
        let level = scenario(seed, nodes, &deployments, &steps, false);
        if let Err(e) = run_case(&level) {
            panic!("level-triggered must settle: {e}\n{}", replay_hint(&format!("level-{seed}"), &level));
        }
        let edge = scenario(seed, nodes, &deployments, &steps, true);
        if let Err(e) = run_case(&edge) {
            found = Some((e, replay_hint(&format!("edge-{seed}"), &edge)));
            break;
        }
    }
    let (e, hint) = found.expect("edge-triggered mode with dropped events must violate ESR");
    eprintln!("found, as expected: {e}\n{hint}");
    assert!(e.contains("not settled"), "{e}");
}

#[test]
fn a_known_history_replays_identically() {
    let steps = [
        (10, Step::Scale(0, 7)),
        (20, Step::KillNode(1)),
        (25, Step::DropWatchEvents(30)),
        (30, Step::DeletePods(0)),
        (40, Step::Crash(0)),
        (50, Step::ReviveNode(1)),
    ];
    let text = scenario(99, 3, &[(3, 100)], &steps, false);
    let a = run_case(&text);
    let b = run_case(&text);
    assert!(a.is_ok(), "{a:?}");
    assert_eq!(a, b);
    // The checker's sampling and draining are reads: the run straight to its end has the same history.
    let sc = Scenario::parse(&text).expect("parses");
    let mut run = sc.start(RunOptions::default()).expect("starts");
    run.run_to(Horizon::SHORT.end());
    assert_eq!(a, Ok(run.sim().history_hash()));
}

// ---------------------------------------------------------------------------------------------------------------
// ESR at scale: a sweep over numbered cases, each built from its number alone (no shrinking, but any case replays
// from its number, and ranges split across processes). One case in ten has a history of hours instead of minutes.
//
//   KUBELOOP_ESR_SWEEP=0..100000 cargo test --release -p kubeloop-engine --test properties \
//     every_numbered_history_in_the_esr_sweep_range_is_safe_and_settles -- --nocapture
//
// CI runs its fast share (the default range).

/// One generated case: its horizon, seed, nodes, Deployments `(replicas, cpu millis)` and history.
struct Case {
    h: Horizon,
    seed: u64,
    nodes: usize,
    deployments: Vec<(u32, u32)>,
    steps: Vec<(u32, Step)>,
}

/// The case of number `n`.
fn numbered_case(n: u64) -> Case {
    let mut rng = Rng::new(n ^ 0x4553_5200);
    let long = n % 10 == 9;
    let h = if long { Horizon { faults_stop: rng.range(3_600, 3 * 3_600) as u32 } } else { Horizon::SHORT };
    let seed = rng.next_u64();
    let nodes = rng.range(2, 5) as usize;
    let deployments: Vec<(u32, u32)> =
        (0..rng.range(1, 3)).map(|_| (rng.range(0, 7) as u32, rng.range(10, 199) as u32)).collect();
    let count = if long { rng.range(10, 120) } else { rng.range(0, 24) };
    let steps = (0..count)
        .map(|_| {
            let at = rng.range(0, u64::from(h.faults_stop) - 1) as u32;
            let st = match rng.range(0, 11) {
                0 => Step::Scale(rng.range(0, 2) as usize, rng.range(0, 9) as u32),
                1 => Step::DeletePods(rng.range(0, 2) as usize),
                2 => Step::Retemplate(rng.range(0, 2) as usize),
                3 => Step::KillNode(rng.range(0, 5) as usize),
                4 => Step::ReviveNode(rng.range(0, 5) as usize),
                5 => Step::DropWatchEvents([0, 30, 100][rng.range(0, 2) as usize]),
                6 => Step::Conflicts(rng.range(0, 59) as u8),
                7 => Step::ApiLatency(rng.range(0, 199) as u16),
                8 => Step::DisconnectWatches,
                9 => Step::ForceRelist,
                10 => Step::Crash(rng.range(0, 2) as usize),
                _ => Step::Restart(rng.range(0, 2) as usize),
            };
            (at, st)
        })
        .collect();
    Case { h, seed, nodes, deployments, steps }
}

/// The sweep's range: `KUBELOOP_ESR_SWEEP=FROM..TO` (default `0..40`: CI's share, four of them long).
fn sweep_range() -> std::ops::Range<u64> {
    let parsed = std::env::var("KUBELOOP_ESR_SWEEP").ok().and_then(|v| {
        let (a, b) = v.split_once("..")?;
        Some(a.trim().parse().ok()?..b.trim().parse().ok()?)
    });
    parsed.unwrap_or(0..40)
}

/// ESR over every numbered case of the range; the first violation fails with the case written for `kubeloop run`.
#[test]
fn every_numbered_history_in_the_esr_sweep_range_is_safe_and_settles() {
    let range = sweep_range();
    let (mut short, mut long, mut simulated) = (0u64, 0u64, 0 as Millis);
    for n in range.clone() {
        let Case { h, seed, nodes, deployments, steps } = numbered_case(n);
        let text = scenario_over(h, seed, nodes, &deployments, &steps, false);
        if let Err(e) = run_case_over(h, &text) {
            panic!("ESR case {n} (seed {seed}): {e}\n{}", replay_hint(&format!("sweep-{n}"), &text));
        }
        if h.faults_stop > FAULTS_STOP {
            long += 1;
        } else {
            short += 1;
        }
        simulated += h.end();
        if (n + 1) % 1000 == 0 {
            eprintln!("esr_sweep: through case {n}: {short} short and {long} long histories, no violation");
        }
    }
    eprintln!(
        "esr_sweep {range:?}: {} cases ({short} short, {long} long histories, {} simulated hours), no violation",
        short + long,
        simulated / (60 * MINUTE)
    );
}
