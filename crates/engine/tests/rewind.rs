//! Scrubbing: the cluster made again at an earlier moment from a checkpoint (`scenario::Rewind`) is the cluster the
//! run had then: the same history hash and the same objects as a run of the same scenario stopped there.

use kubeloop_engine::api::Kind;
use kubeloop_engine::scenario::{Rewind, RunOptions, Scenario, Scrubbed, MAX_CHECKPOINTS};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::{Millis, SECOND};

/// A run with every kind of action a person makes: a watch that only reads, a node killed, a drain that writes as
/// it goes (a budget makes it retry every 5 s) and is interrupted by its `for:`, a scale.
const BUSY: &str = r#"
seed: 7
until: 3m
timing: fast-demo
cluster:
  nodes: 4
manifests: |
  apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    replicas: 4
    selector:
      matchLabels: {app: web}
    template:
      metadata:
        labels: {app: web}
      spec:
        containers:
        - name: web
          image: nginx:1.27
          readinessProbe:
            tcpSocket: {port: 80}
            initialDelaySeconds: 10
  ---
  apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata:
    name: web
  spec:
    minAvailable: 3
    selector:
      matchLabels: {app: web}
actions:
  - {at: 5s, kubectl: "get pods -w", for: 30s}
  - {at: 12s, killNode: node-1}
  - {at: 40s, kubectl: "drain node-2 node-3", for: 50s}
  - {at: 40s, kubectl: "get nodes"}
  - {at: 100s, scale: {deployment: web, replicas: 6}}
  - {at: 150s, kubectl: "uncordon node-2 node-3"}
"#;

/// The cluster of the scenario run to `t`, by the runner.
fn run_to(t: Millis) -> Sim {
    let sc = Scenario::parse(BUSY).expect("parses");
    let mut run = sc.start(RunOptions::default()).expect("starts");
    run.run_to(t);
    run.into_player().player.sim().clone()
}

/// What the store holds, object by object (kind, key, resourceVersion).
fn objects(sim: &Sim) -> Vec<(Kind, String, u64)> {
    let mut all = Vec::new();
    for k in Kind::ALL {
        for o in sim.store().objects(k) {
            all.push((k, o.key().to_string(), o.meta().resource_version));
        }
    }
    all.sort();
    all
}

/// The scenario run to its end as the page's live run goes (a second at a time), offering a checkpoint after each
/// second: its checkpoints, its record's actions, the live cluster.
fn live(spacing: u64) -> (Rewind, Vec<kubeloop_engine::scenario::Action>, Sim) {
    let sc = Scenario::parse(BUSY).expect("parses");
    let mut run = sc.start(RunOptions::default()).expect("starts");
    let mut rewind = Rewind::new(spacing);
    let mut t = 0;
    while t < run.until() {
        t += SECOND;
        run.run_to(t);
        if !run.writing() {
            rewind.offer(|| run.sim().checkpoint(), run.record().actions().len(), run.sim());
        }
    }
    let actions = run.record().actions().to_vec();
    (rewind, actions, run.into_player().player.sim().clone())
}

/// The run's start, made again from its scenario (the cluster and its manifests at 0).
fn start() -> Sim {
    let sc = Scenario::parse(BUSY).expect("parses");
    sc.start(RunOptions::default()).expect("starts").into_player().player.sim().clone()
}

fn no_file(_: &str) -> Result<String, String> {
    Err("no files".into())
}

/// Scrubbed to moments before, at and after each action, inside the drain's retries and past its `for:`, the
/// cluster is the one the runner has there: the same history hash, the same objects at the same versions.
#[test]
fn a_scrubbed_cluster_is_the_cluster_the_run_had_then() {
    let (rewind, actions, now) = live(60);
    assert!(rewind.policy(&now).kept > 4, "{:?}", rewind.policy(&now));
    for t in [
        0, 4_999, 5_000, 12_000, 12_001, 40_000, 47_300, 64_000, 80_000, 85_000, 90_000, 95_500, 100_000, 179_999,
        180_000,
    ] {
        let s = rewind.scrub(t, &actions, None, &no_file, &start);
        let want = run_to(t);
        assert_eq!(s.sim().now(), t);
        assert_eq!(s.sim().history_hash(), want.history_hash(), "history at {t} ms");
        assert_eq!(objects(s.sim()), objects(&want), "objects at {t} ms");
    }
    assert_eq!(rewind.scrub(180_000, &actions, None, &no_file, &start).sim().history_hash(), now.history_hash());
}

/// Scrubbing forward goes on from the scrub before (it re-runs only what lies between), backward starts again from
/// a checkpoint, and both give the cluster a scrub from the checkpoints gives.
#[test]
fn a_scrub_goes_on_from_the_last_one_forward_and_from_a_checkpoint_backward() {
    let (rewind, actions, _) = live(60);
    let mut cursor: Option<Scrubbed> = None;
    for t in [30_000, 31_000, 45_000, 82_000, 86_000, 120_000, 20_000, 21_000] {
        let s = rewind.scrub(t, &actions, cursor.take(), &no_file, &start);
        let fresh = rewind.scrub(t, &actions, None, &no_file, &start);
        assert_eq!(s.sim().history_hash(), fresh.sim().history_hash(), "at {t} ms");
        assert!(s.rerun <= fresh.rerun, "from the scrub before re-runs no more than from a checkpoint, at {t} ms");
        cursor = Some(s);
    }
}

/// However long the run, the checkpoints stay within their bound, spread over the run: no gap between two (or
/// before the first) over four times the run's events over the bound, but the one while the drain ran (no checkpoint is
/// taken while a command that writes as it goes runs).
#[test]
fn checkpoints_stay_within_their_bound_and_cover_the_run() {
    let (rewind, _, now) = live(2);
    let p = rewind.policy(&now);
    assert_eq!(p.kept, MAX_CHECKPOINTS, "{p:?}");
    assert!(p.spacing >= now.events_processed() / MAX_CHECKPOINTS as u64, "spaced by the run over the bound: {p:?}");
    let events = rewind.events();
    let mut gaps: Vec<u64> = events.windows(2).map(|w| w[1] - w[0]).chain(events.first().copied()).collect();
    gaps.sort_unstable();
    let widest = gaps[gaps.len() - 2];
    assert!(widest <= 4 * p.spacing, "the widest gap {widest} within four spacings ({p:?}): {events:?}");
}

/// The first of `want` traced from `since` by a run made again from the checkpoints (those written while the run's
/// start is built are not).
fn from_of(want: &[kubeloop_engine::cause::Version], since: Millis, started: u64) -> usize {
    want.iter().position(|v| v.write.at >= since && v.write.rv > started).unwrap_or(want.len())
}

/// An object's history made again from the checkpoints is the one a run traced from its start keeps: every
/// version, at the same resourceVersions, the same objects.
#[test]
fn an_object_s_history_from_the_checkpoints_is_the_traced_run_s() {
    use kubeloop_engine::api::ObjKey;
    let (rewind, actions, _) = live(60);
    let key = ObjKey::cluster("node-2");
    let sc = Scenario::parse(BUSY).expect("parses");
    let mut traced = sc.start_with(RunOptions::default(), |sim| sim.trace(Kind::Node, key.clone())).expect("starts");
    traced.run_to(170_000);
    let want = traced.sim().causes().trace().expect("traced").versions.clone();
    assert!(want.len() > 3, "cordoned, drained, uncordoned: {}", want.len());
    // From the run's start (the cluster at 0, its nodes registered: what is written while it is built is not traced),
    // and from a moment later: the versions since then.
    let started = start().store().resource_version();
    for since in [0, 39_000] {
        let (s, before) = rewind.history(Kind::Node, &key, since, 170_000, &actions, &no_file, &start);
        let stood = want[..from_of(&want, since, started)].last().map(|v| v.object.clone());
        assert_eq!(before, stood, "the version before the first traced, since {since} ms");
        let got = &s.sim().causes().trace().expect("traced").versions;
        let from = from_of(&want, since, started);
        let rvs = |vs: &[kubeloop_engine::cause::Version]| vs.iter().map(|v| v.write.rv).collect::<Vec<_>>();
        assert_eq!(rvs(got), rvs(&want[from..]), "since {since} ms");
        assert!(got.iter().zip(&want[from..]).all(|(a, b)| a.object == b.object));
    }
}
