//! The loop diagram's charts: one sample per simulated second of the shown controller's work queue (client-go's
//! `workqueue_depth`, and `workqueue_adds_total` / `workqueue_retries_total` as per-second increments) and of the
//! watch events its informers received and lost, over the last [`HISTORY`] seconds (the window follows the clock);
//! and the cluster's own over the same window: API requests by verb and by client (the API server's
//! `apiserver_request_total`, per second), pods by phase, and the drift between the caches and the store.

use std::collections::VecDeque;

use kubeloop_engine::sim::Sim;
use kubeloop_engine::store::ApiCounters;
use kubeloop_engine::time::Millis;

use crate::view::{ChartView, LoopRates};

/// Samples kept per series (one per simulated second): the charts' window, and each controller's queue depths.
pub const HISTORY: usize = 120;

/// The samples of one controller.
#[derive(Default)]
pub struct LoopHistory {
    controller: String,
    /// depth, adds, retries, watch events received, dropped.
    series: [VecDeque<u32>; 5],
    /// The counters at the last sample (adds, retries, received, dropped, reconciles, API calls), to take
    /// increments from.
    last: Option<[u64; 6]>,
    /// The increments of the last second.
    rates: LoopRates,
    end: Millis,
}

impl LoopHistory {
    /// Forgets every sample (a new run, or another controller shown).
    pub fn clear(&mut self) {
        *self = LoopHistory::default();
    }

    /// Samples controller `name` at simulated time `t`.
    pub fn sample(&mut self, sim: &Sim, name: &str, t: Millis) {
        if self.controller != name {
            self.clear();
            self.controller = name.to_string();
        }
        let Some((c, w)) = crate::snapshot::controller_watching(sim, name) else { return };
        let s = c.status(t);
        let now = [s.adds, s.retries, w.received, w.dropped, s.stats.reconciles, s.stats.api_calls];
        let delta = |i: usize| self.last.map_or(0, |l: [u64; 6]| now[i].saturating_sub(l[i]));
        push(&mut self.series, [s.depth as u64, delta(0), delta(1), delta(2), delta(3)]);
        self.rates = LoopRates {
            delivered: delta(2).saturating_sub(delta(3)),
            dropped: delta(3),
            adds: delta(0),
            retries: delta(1),
            reconciles: delta(4),
            writes: delta(5),
        };
        self.last = Some(now);
        self.end = t;
    }

    /// The flow of the last simulated second.
    pub fn rates(&self) -> LoopRates {
        self.rates
    }

    /// The charts to draw.
    pub fn charts(&self) -> Vec<ChartView> {
        let s = |i: usize| self.series[i].iter().copied().collect::<Vec<u32>>();
        let chart = |metric, title, series| ChartView { metric, title, series, end: self.end };
        vec![
            chart("workqueue_depth", "queue depth", vec![("depth", s(0))]),
            chart("workqueue_adds", "adds/s", vec![("adds", s(1))]),
            chart("workqueue_retries", "retries/s", vec![("retries", s(2))]),
            chart("watch_events", "watch events/s", vec![("delivered", s(3)), ("dropped", s(4))]),
        ]
    }
}

/// Appends a sample to each series, keeping the last [`HISTORY`].
fn push<const N: usize>(series: &mut [VecDeque<u32>; N], values: [u64; N]) {
    for (s, v) in series.iter_mut().zip(values) {
        if s.len() >= HISTORY {
            s.pop_front();
        }
        s.push_back(v.min(u64::from(u32::MAX)) as u32);
    }
}

/// The API verbs the requests chart shows, as the store counts them, and the failed requests of any verb.
const VERBS: [&str; 7] = ["get", "list", "watch", "create", "update", "delete", "failed"];

/// The clients the requests chart tells apart, by a client's name up to its `/` (every kubelet is one
/// `kubelet`, both controller-manager replicas one `kube-controller-manager`), the rest as `other`; and their
/// labels on the chart.
const CLIENTS: [&str; 5] = ["kube-controller-manager", "kube-scheduler", "kubelet", "kubectl", "other"];
const CLIENT_LABELS: [&str; 5] = ["controller-manager", "scheduler", "kubelets", "kubectl", "other"];

fn by_verb(c: &ApiCounters) -> [u64; VERBS.len()] {
    [c.gets, c.list_calls, c.watches_opened, c.creates, c.updates, c.deletes, c.errors]
}

fn requests(c: &ApiCounters) -> u64 {
    by_verb(c).iter().sum()
}

/// The cluster's figures, one sample per simulated second.
#[derive(Default)]
pub struct ClusterHistory {
    verbs: [VecDeque<u32>; VERBS.len()],
    clients: [VecDeque<u32>; CLIENTS.len()],
    /// running, pending, terminating, succeeded, failed, unknown.
    phases: [VecDeque<u32>; 6],
    drift: [VecDeque<u32>; 1],
    /// The request counters at the last sample, by verb and by client.
    last: Option<([u64; VERBS.len()], [u64; CLIENTS.len()])>,
    end: Millis,
}

impl ClusterHistory {
    pub fn clear(&mut self) {
        *self = ClusterHistory::default();
    }

    /// Samples the cluster at simulated time `t`; `drift` is the drift as last measured (measuring it is the one
    /// costly figure at scale, so the snapshot's measure is reused, at most a frame old).
    pub fn sample(&mut self, sim: &Sim, drift: usize, t: Millis) {
        let mut verbs = [0u64; VERBS.len()];
        let mut clients = [0u64; CLIENTS.len()];
        for c in sim.store().clients() {
            for (v, n) in verbs.iter_mut().zip(by_verb(&c.counters)) {
                *v += n;
            }
            let group = c.name.split('/').next().unwrap_or_default();
            let i = CLIENTS.iter().position(|g| *g == group).unwrap_or(CLIENTS.len() - 1);
            clients[i] += requests(&c.counters);
        }
        let (v0, c0) = self.last.unwrap_or((verbs, clients));
        push(&mut self.verbs, std::array::from_fn(|i| verbs[i].saturating_sub(v0[i])));
        push(&mut self.clients, std::array::from_fn(|i| clients[i].saturating_sub(c0[i])));
        let p = sim.store().pod_tally();
        let phases = [p.running, p.pending, p.terminating, p.succeeded, p.failed, p.unknown];
        push(&mut self.phases, phases.map(|n| n as u64));
        push(&mut self.drift, [drift as u64]);
        self.last = Some((verbs, clients));
        self.end = t;
    }

    pub fn charts(&self) -> Vec<ChartView> {
        let series = |names: &[&'static str], s: &[VecDeque<u32>]| {
            names.iter().zip(s).map(|(n, v)| (*n, v.iter().copied().collect())).collect()
        };
        let chart = |metric, title, series| ChartView { metric, title, series, end: self.end };
        vec![
            chart("apiserver_requests", "API requests/s", series(&VERBS, &self.verbs)),
            chart("apiserver_requests_by_client", "by client/s", series(&CLIENT_LABELS, &self.clients)),
            chart(
                "pods_by_phase",
                "pods by phase",
                series(&["running", "pending", "terminating", "succeeded", "failed", "unknown"], &self.phases),
            ),
            chart("drift", "drift", series(&["drift"], &self.drift)),
        ]
    }
}
