//! The controller runtime: workers, queue outcomes and the reconcile record, with a controller of our own.

use std::cell::RefCell;
use std::rc::Rc;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::controller::{
    Caches, Controller, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler, RecordOutcome,
};
use kubeloop_engine::informer::InformerEvent;
use kubeloop_engine::kubectl;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

/// Fails its first `failures` reconciles of each key, then asks to look again after `requeue` once.
#[derive(Clone)]
struct Flaky {
    failures: u32,
    max_retries: Option<u32>,
    calls: Rc<RefCell<Vec<(String, Millis)>>>,
    requeued: bool,
}

impl Reconciler for Flaky {
    fn name(&self) -> &'static str {
        "flaky"
    }
    fn component(&self) -> &'static str {
        "flaky-controller"
    }
    fn workers(&self) -> usize {
        2
    }
    fn watches(&self) -> &'static [Kind] {
        &[Kind::Deployment]
    }
    fn max_retries(&self) -> Option<u32> {
        self.max_retries
    }
    fn handle(&mut self, ev: &InformerEvent, _: Caches<'_>, _: Millis, out: &mut Enqueue) {
        out.push((ev.object().key(), 0));
    }
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        self.calls.borrow_mut().push((key.to_string(), cx.now));
        let _ = cx.api.get(Kind::Deployment, key);
        if self.calls.borrow().len() as u32 <= self.failures {
            return Err("injected failure".into());
        }
        if !self.requeued {
            self.requeued = true;
            return Ok(ReconcileAction::RequeueAfter(30 * SECOND));
        }
        Ok(ReconcileAction::Done)
    }
}

fn sim_with(flaky: Flaky) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 3, ..Default::default() });
    sim.add_host("test-controller", vec![Controller::new(Box::new(flaky))], 0);
    let yaml = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 0\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - {name: c, image: nginx}\n";
    if let Err(e) = kubectl::apply(&mut sim, yaml) {
        panic!("{e}");
    }
    sim
}

fn records(sim: &Sim) -> Vec<RecordOutcome> {
    sim.log().records.iter().filter(|r| r.controller == "flaky").map(|r| r.outcome.clone()).collect()
}

/// Err -> AddRateLimited with the per-item exponential backoff (5 ms, 10 ms, 20 ms ...); Ok -> Forget;
/// RequeueAfter(d) -> AddAfter(d). Every reconcile is recorded with its duration and API calls.
#[test]
fn failures_back_off_exponentially_then_succeed() {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let mut sim = sim_with(Flaky { failures: 4, max_retries: None, calls: calls.clone(), requeued: false });
    sim.run_for(MINUTE);
    let outs = records(&sim);
    let retry: Vec<Millis> = outs
        .iter()
        .filter_map(|o| match o {
            RecordOutcome::Error { retry_in, .. } => Some(*retry_in),
            _ => None,
        })
        .collect();
    assert_eq!(retry, [5, 10, 20, 40]);
    assert_eq!(outs[4], RecordOutcome::Requeue { after: 30 * SECOND });
    assert_eq!(outs[5], RecordOutcome::Ok);
    assert_eq!(outs.len(), 6);
    let c = calls.borrow();
    let gaps: Vec<Millis> = c.windows(2).map(|w| w[1].1 - w[0].1).collect();
    // A new watch event re-adds the key at once (the Deployment controller writes status meanwhile), as Add
    // ignores the rate limiter; the RequeueAfter waits its full 30 s.
    assert!(gaps[4] >= 30 * SECOND, "{gaps:?}");
    let r = sim.log().records.iter().find(|r| r.controller == "flaky").expect("a record");
    assert_eq!(r.key, "default/web");
    assert_eq!(r.api_calls, 1);
    assert!(r.duration >= 1, "a reconcile takes simulated time");
    let ctl = sim.controller("flaky").expect("controller");
    let s = ctl.status(sim.now()).stats;
    assert_eq!((s.reconciles, s.errors, s.requeues), (6, 4, 1));
    assert_eq!(ctl.retries_of(&ObjKey::new("default", "web")), 0, "forgotten after success");
}

/// maxRetries: a key that keeps failing is dropped after that many requeues (the Deployment controller's 15).
#[test]
fn a_key_failing_forever_is_dropped_after_max_retries() {
    let calls = Rc::new(RefCell::new(Vec::new()));
    let mut sim = sim_with(Flaky { failures: u32::MAX, max_retries: Some(15), calls: calls.clone(), requeued: false });
    // 15 retries take 5 ms * (2^15 - 1) = 164 s; stop before the informers' 5-minute relist re-delivers the key.
    sim.run_for(4 * MINUTE);
    let outs = records(&sim);
    assert_eq!(outs.len(), 16, "the first try and 15 retries");
    assert!(matches!(outs.last(), Some(RecordOutcome::Dropped { .. })));
    let s = sim.controller("flaky").map(|c| c.status(sim.now())).expect("controller");
    assert_eq!(s.stats.dropped, 1);
    assert_eq!((s.depth, s.waiting, s.processing), (0, 0, 0), "nothing left in its queue");
}

/// Upstream defaults: 5 workers for the deployment and replicaset controllers, 1 for the scheduler; controllers
/// wait for their caches to sync before the first reconcile.
#[test]
fn worker_counts_and_cache_sync() {
    let sim = Sim::new(SimConfig::default());
    let workers = |n: &str| sim.controller(n).map(|c| c.status(sim.now()).workers);
    assert_eq!(workers("deployment"), Some(5));
    assert_eq!(workers("replicaset"), Some(5));
    assert_eq!(workers("scheduler"), Some(1));
    assert!(sim.log().records.is_empty());
}
