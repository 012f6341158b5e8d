//! kube-scheduler: one pod at a time, filter the nodes (NodeUnschedulable, NodeName, TaintToleration,
//! NodeAffinity/nodeSelector, NodeResourcesFit), score the feasible ones (LeastAllocated, BalancedAllocation,
//! TaintToleration), bind to the best. Unschedulable pods get PodScheduled=False and a FailedScheduling event and
//! wait (backoff 1 s doubling to 10 s) until the cluster changes, or at most 5 minutes.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use crate::api::{s, Kind, Labels, ObjKey, Object, Pod, Str, Taint};
use crate::controller::{Caches, Ctx, Enqueue, Outcome, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::{set_pod_condition, Subresource};
use crate::time::{Millis, MINUTE, SECOND};
use crate::workqueue::{ItemExponentialFailureRateLimiter, RateLimiter};

pub const DEFAULT_SCHEDULER_NAME: &str = "default-scheduler";
/// `podInitialBackoffSeconds` / `podMaxBackoffSeconds`.
pub const POD_INITIAL_BACKOFF: Millis = SECOND;
pub const POD_MAX_BACKOFF: Millis = 10 * SECOND;
/// `podMaxInUnschedulablePodsDuration`: unschedulable pods are retried at least this often.
pub const MAX_IN_UNSCHEDULABLE: Millis = 5 * MINUTE;
/// Requests assumed for scoring when a container has none (`DefaultMilliCPURequest`, `DefaultMemoryRequest`).
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;
/// Score plugin weights of the default profile.
pub const WEIGHT_FIT: i64 = 1;
pub const WEIGHT_BALANCED: i64 = 1;
pub const WEIGHT_TAINT: i64 = 3;

/// What the scheduler knows of one node (its cache, kept from the informers plus assumed pods).
#[derive(Clone, Debug, Default)]
pub struct NodeInfo {
    pub name: Str,
    pub labels: Labels,
    pub taints: Vec<Taint>,
    pub unschedulable: bool,
    pub alloc_cpu: i64,
    pub alloc_mem: i64,
    pub alloc_pods: i64,
    /// Sums of the pods' requests (millicores, bytes), in `i128`: each request is an `i64` (a quantity's
    /// saturated `MilliValue()`/`Value()`), so no number of pods can overflow the sum, and removing a pod
    /// subtracts exactly what adding it added (upstream sums in `int64`, which a huge request wraps).
    pub req_cpu: i128,
    pub req_mem: i128,
    pub nz_cpu: i128,
    pub nz_mem: i128,
    pub pods: i64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    cpu: i128,
    mem: i128,
    nz_cpu: i128,
    nz_mem: i128,
}

fn usage(p: &Pod) -> Usage {
    let mut u = Usage::default();
    for c in &p.spec.containers {
        let cpu = c.resources.requests.get("cpu").map(|q| q.milli());
        let mem = c.resources.requests.get("memory").map(|q| q.value());
        u.cpu += i128::from(cpu.unwrap_or(0));
        u.mem += i128::from(mem.unwrap_or(0));
        u.nz_cpu += i128::from(cpu.filter(|v| *v > 0).unwrap_or(DEFAULT_MILLI_CPU_REQUEST));
        u.nz_mem += i128::from(mem.filter(|v| *v > 0).unwrap_or(DEFAULT_MEMORY_REQUEST));
    }
    u
}

impl NodeInfo {
    fn apply(&mut self, u: Usage, sign: i64) {
        let s = i128::from(sign);
        self.req_cpu += s * u.cpu;
        self.req_mem += s * u.mem;
        self.nz_cpu += s * u.nz_cpu;
        self.nz_mem += s * u.nz_mem;
        self.pods = self.pods.saturating_add(sign);
    }
}

/// The scheduler's node cache: a vector walked round-robin, with an index by name.
#[derive(Default)]
pub struct NodeTable {
    list: Vec<NodeInfo>,
    index: FxHashMap<Str, usize>,
}

impl NodeTable {
    pub fn len(&self) -> usize {
        self.list.len()
    }
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    pub fn get(&self, name: &str) -> Option<&NodeInfo> {
        self.index.get(name).map(|i| &self.list[*i])
    }
    fn get_mut(&mut self, name: &str) -> Option<&mut NodeInfo> {
        self.index.get(name).map(|i| &mut self.list[*i])
    }
    fn insert(&mut self, info: NodeInfo) {
        match self.index.get(&info.name) {
            Some(i) => self.list[*i] = info,
            None => {
                self.index.insert(info.name.clone(), self.list.len());
                self.list.push(info);
            }
        }
    }
    fn remove(&mut self, name: &str) {
        let Some(i) = self.index.remove(name) else { return };
        self.list.swap_remove(i);
        if let Some(moved) = self.list.get(i) {
            self.index.insert(moved.name.clone(), i);
        }
    }
    pub fn iter(&self) -> impl Iterator<Item = &NodeInfo> {
        self.list.iter()
    }
}

#[derive(Default)]
pub struct Scheduler {
    pub nodes: NodeTable,
    /// Pods counted on a node (bound, or assumed after our own bind), with what they request.
    placed: FxHashMap<ObjKey, (Str, Usage)>,
    /// Pods that failed to schedule, with the end of their backoff.
    unschedulable: FxHashMap<ObjKey, Millis>,
    attempts: FxHashMap<ObjKey, u32>,
    next_start: usize,
}

/// `numFeasibleNodesToFind` with the adaptive `percentageOfNodesToScore`.
pub fn feasible_nodes_to_find(all: usize) -> usize {
    if all < 100 {
        return all;
    }
    let pct = (50 - (all as i64) / 125).max(5) as usize;
    (all * pct / 100).max(100)
}

fn is_schedulable_candidate(p: &Pod) -> bool {
    p.spec.node_name.is_empty()
        && !p.metadata.is_terminating()
        && !p.status.phase.is_terminal()
        && (p.spec.scheduler_name.is_empty() || &*p.spec.scheduler_name == DEFAULT_SCHEDULER_NAME)
}

/// Why a node was filtered out.
fn filter(pod: &Pod, u: &Usage, n: &NodeInfo, reasons: &mut Vec<String>) -> bool {
    // NodeUnschedulable (a pod tolerating node.kubernetes.io/unschedulable:NoSchedule passes)
    if n.unschedulable {
        let t = Taint {
            key: s("node.kubernetes.io/unschedulable"),
            value: s(""),
            effect: s("NoSchedule"),
            time_added: None,
        };
        if !pod.spec.tolerations.iter().any(|tol| tol.tolerates(&t)) {
            reasons.push("node(s) were unschedulable".into());
            return false;
        }
    }
    // NodeName
    if !pod.spec.node_name.is_empty() && pod.spec.node_name != n.name {
        reasons.push("node(s) didn't match the requested node name".into());
        return false;
    }
    // TaintToleration: NoSchedule and NoExecute taints must be tolerated
    if let Some(t) = n
        .taints
        .iter()
        .filter(|t| matches!(&*t.effect, "NoSchedule" | "NoExecute"))
        .find(|t| !pod.spec.tolerations.iter().any(|tol| tol.tolerates(t)))
    {
        reasons.push(format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value));
        return false;
    }
    // NodeAffinity (nodeSelector)
    if !pod.spec.node_selector.iter().all(|(k, v)| n.labels.get(k) == Some(v)) {
        reasons.push("node(s) didn't match Pod's node affinity/selector".into());
        return false;
    }
    // NodeResourcesFit
    let before = reasons.len();
    if n.pods.saturating_add(1) > n.alloc_pods {
        reasons.push("Too many pods".into());
    }
    if u.cpu > 0 && n.req_cpu + u.cpu > i128::from(n.alloc_cpu) {
        reasons.push("Insufficient cpu".into());
    }
    if u.mem > 0 && n.req_mem + u.mem > i128::from(n.alloc_mem) {
        reasons.push("Insufficient memory".into());
    }
    reasons.len() == before
}

/// LeastAllocated + BalancedAllocation + TaintToleration, weighted as the default profile (before normalisation
/// of TaintToleration across nodes, done by the caller).
fn resource_score(u: &Usage, n: &NodeInfo) -> i64 {
    let frac = |req: i128, alloc: i64| if alloc <= 0 { 1.0 } else { (req as f64 / alloc as f64).min(1.0) };
    let cpu_req = n.nz_cpu + u.nz_cpu;
    let mem_req = n.nz_mem + u.nz_mem;
    let least = |req: i128, alloc: i64| {
        let alloc = i128::from(alloc);
        if alloc <= 0 || req > alloc {
            0
        } else {
            // In i128: (alloc - req) * 100 overflows an i64 for allocatable past 2^63 / 100.
            ((alloc - req) * 100 / alloc) as i64
        }
    };
    let least_allocated = (least(cpu_req, n.alloc_cpu) + least(mem_req, n.alloc_mem)) / 2;
    let (fc, fm) = (frac(cpu_req, n.alloc_cpu), frac(mem_req, n.alloc_mem));
    let balanced = ((1.0 - (fc - fm).abs() / 2.0) * 100.0) as i64;
    least_allocated * WEIGHT_FIT + balanced * WEIGHT_BALANCED
}

fn prefer_no_schedule_violations(pod: &Pod, n: &NodeInfo) -> i64 {
    n.taints
        .iter()
        .filter(|t| &*t.effect == "PreferNoSchedule" && !pod.spec.tolerations.iter().any(|tol| tol.tolerates(t)))
        .count() as i64
}

/// `FitError.Error()`: "0/3 nodes are available: 1 node(s) had untolerated taint {...}, 2 Insufficient cpu."
pub fn fit_error(total: usize, reasons: &BTreeMap<String, usize>, resource_only_nodes: usize) -> String {
    if total == 0 {
        return "no nodes available to schedule pods".into();
    }
    let mut parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
    parts.sort();
    let mut preempt = Vec::new();
    if resource_only_nodes > 0 {
        preempt.push(format!("{resource_only_nodes} No preemption victims found for incoming pod"));
    }
    if total > resource_only_nodes {
        preempt.push(format!("{} Preemption is not helpful for scheduling", total - resource_only_nodes));
    }
    preempt.sort();
    format!(
        "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {}.",
        parts.join(", "),
        preempt.join(", ")
    )
}

impl Scheduler {
    pub fn new() -> Self {
        Scheduler::default()
    }

    fn place(&mut self, key: ObjKey, node: &Str, u: Usage) {
        if let Some((old, _)) = self.placed.get(&key) {
            if old == node {
                return;
            }
        }
        self.unplace(&key);
        if let Some(n) = self.nodes.get_mut(node) {
            n.apply(u, 1);
        }
        self.placed.insert(key, (node.clone(), u));
    }

    fn unplace(&mut self, key: &ObjKey) -> bool {
        match self.placed.remove(key) {
            Some((node, u)) => {
                if let Some(n) = self.nodes.get_mut(&node) {
                    n.apply(u, -1);
                }
                true
            }
            None => false,
        }
    }

    /// A change that may make unschedulable pods fit: retry each once its backoff is over.
    fn move_unschedulable(&mut self, now: Millis, out: &mut Enqueue) {
        let mut keys: Vec<(&ObjKey, &Millis)> = self.unschedulable.iter().collect();
        keys.sort();
        out.extend(keys.into_iter().map(|(k, until)| (k.clone(), until.saturating_sub(now))));
    }

    fn node_info(n: &crate::api::Node) -> NodeInfo {
        let alloc = |r: &str| n.status.allocatable.get(r);
        NodeInfo {
            name: n.metadata.name.clone(),
            labels: n.metadata.labels.clone(),
            taints: n.spec.taints.clone(),
            unschedulable: n.spec.unschedulable,
            alloc_cpu: alloc("cpu").map(|q| q.milli()).unwrap_or(0),
            alloc_mem: alloc("memory").map(|q| q.value()).unwrap_or(0),
            alloc_pods: alloc("pods").map(|q| q.value()).unwrap_or(0),
            ..Default::default()
        }
    }
}

impl Reconciler for Scheduler {
    fn name(&self) -> &'static str {
        "scheduler"
    }

    fn retained(&self) -> usize {
        self.nodes.len() + self.placed.len() + self.unschedulable.len() + self.attempts.len()
    }

    fn component(&self) -> &'static str {
        "default-scheduler"
    }

    fn workers(&self) -> usize {
        1
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::Node, Kind::Pod]
    }

    fn rate_limiter(&self) -> Box<dyn RateLimiter<ObjKey>> {
        Box::new(ItemExponentialFailureRateLimiter::new(POD_INITIAL_BACKOFF, POD_MAX_BACKOFF))
    }

    fn reset(&mut self) {
        *self = Scheduler::new();
    }

    fn handle(&mut self, ev: &InformerEvent, _caches: Caches<'_>, now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match (obj.as_ref(), ev) {
            (Object::Node(n), InformerEvent::Delete(..)) => {
                self.nodes.remove(&n.metadata.name);
            }
            (Object::Node(n), _) => {
                let mut info = Scheduler::node_info(n);
                let old = self.nodes.get(&info.name).cloned();
                if let Some(old) = &old {
                    info.req_cpu = old.req_cpu;
                    info.req_mem = old.req_mem;
                    info.nz_cpu = old.nz_cpu;
                    info.nz_mem = old.nz_mem;
                    info.pods = old.pods;
                }
                let more_room = match &old {
                    None => true,
                    Some(o) => {
                        o.unschedulable && !info.unschedulable
                            || info.alloc_cpu > o.alloc_cpu
                            || info.alloc_mem > o.alloc_mem
                            || info.alloc_pods > o.alloc_pods
                            || o.taints != info.taints
                            || o.labels != info.labels
                    }
                };
                if old.is_none() {
                    // Count pods already placed on a node we had not seen.
                    for (node, u) in self.placed.values() {
                        if *node == info.name {
                            info.apply(*u, 1);
                        }
                    }
                }
                self.nodes.insert(info);
                if more_room {
                    self.move_unschedulable(now, out);
                }
            }
            (Object::Pod(_), InformerEvent::Delete(..)) => {
                let key = obj.key();
                self.unschedulable.remove(&key);
                self.attempts.remove(&key);
                if self.unplace(&key) {
                    self.move_unschedulable(now, out);
                }
            }
            (Object::Pod(p), _) => {
                let key = obj.key();
                if !p.spec.node_name.is_empty() {
                    self.unschedulable.remove(&key);
                    self.attempts.remove(&key);
                    if p.status.phase.is_terminal() {
                        if self.unplace(&key) {
                            self.move_unschedulable(now, out);
                        }
                    } else {
                        self.place(key, &p.spec.node_name, usage(p));
                    }
                } else if is_schedulable_candidate(p) && !ev.is_resync() {
                    let delay = self.unschedulable.get(&key).map_or(0, |until| until.saturating_sub(now));
                    out.push((key, delay));
                }
            }
            _ => {}
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(pod) = cx.caches.of(Kind::Pod).get(key).and_then(|o| o.as_pod()).cloned() else {
            return Ok(Outcome::Done);
        };
        if !is_schedulable_candidate(&pod) || self.placed.contains_key(key) {
            return Ok(Outcome::Done);
        }
        let u = usage(&pod);
        let total = self.nodes.len();
        let want = feasible_nodes_to_find(total);
        let mut feasible: Vec<&NodeInfo> = Vec::new();
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        let mut resource_only = 0;
        let mut processed = 0;
        for i in 0..total {
            if feasible.len() >= want {
                break;
            }
            let n = &self.nodes.list[(self.next_start + i) % total];
            processed += 1;
            let mut why = Vec::new();
            if filter(&pod, &u, n, &mut why) {
                feasible.push(n);
            } else {
                if why.iter().all(|r| r.starts_with("Insufficient") || r == "Too many pods") {
                    resource_only += 1;
                }
                for r in why {
                    *reasons.entry(r).or_default() += 1;
                }
            }
        }
        if total > 0 {
            self.next_start = (self.next_start + processed) % total;
        }
        if feasible.is_empty() {
            let msg = fit_error(total, &reasons, resource_only);
            let now = cx.now;
            let m = msg.clone();
            let _ = cx.api.patch(Kind::Pod, key, Subresource::Status, |o| {
                if let Object::Pod(p) = o {
                    set_pod_condition(&mut p.status.conditions, "PodScheduled", "False", "Unschedulable", &m, now);
                }
            });
            cx.recorder.event(&mut cx.api, &Object::Pod(pod), EventKind::Warning, "FailedScheduling", &msg);
            let attempts = self.attempts.entry(key.clone()).or_default();
            *attempts += 1;
            let backoff = (POD_INITIAL_BACKOFF << (*attempts - 1).min(10)).min(POD_MAX_BACKOFF);
            self.unschedulable.insert(key.clone(), cx.now + backoff);
            return Ok(Outcome::RequeueAfter(MAX_IN_UNSCHEDULABLE));
        }
        // Score, then pick the best; ties broken at random (selectHost's reservoir sampling).
        let max_taint = feasible.iter().map(|n| prefer_no_schedule_violations(&pod, n)).max().unwrap_or(0);
        let mut best: Option<(&NodeInfo, i64)> = None;
        let mut ties = 0u64;
        for n in &feasible {
            let taint_score =
                if max_taint == 0 { 100 } else { 100 - prefer_no_schedule_violations(&pod, n) * 100 / max_taint };
            let score = resource_score(&u, n) + taint_score * WEIGHT_TAINT;
            match best {
                Some((_, b)) if score < b => {}
                Some((_, b)) if score == b => {
                    ties += 1;
                    if cx.api.rng.range(0, ties) == 0 {
                        best = Some((n, score));
                    }
                }
                _ => {
                    best = Some((n, score));
                    ties = 0;
                }
            }
        }
        let Some((node, _)) = best else { return Ok(Outcome::Done) };
        let node = node.name.clone();
        // The binding cycle runs in the background: the scheduler assumes the pod and moves on.
        match cx.api.detached(|api| api.bind(key, &pod.metadata.uid, &node)) {
            Ok(bound) => {
                self.place(key.clone(), &node, u);
                self.unschedulable.remove(key);
                self.attempts.remove(key);
                let msg = format!("Successfully assigned {key} to {node}");
                cx.recorder.event(&mut cx.api, &bound, EventKind::Normal, "Scheduled", &msg);
                Ok(Outcome::Done)
            }
            Err(e) if e.is_not_found() => Ok(Outcome::Done),
            Err(e) => Err(format!("binding rejected: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feasible_node_count_follows_percentage_of_nodes_to_score() {
        assert_eq!(feasible_nodes_to_find(50), 50);
        assert_eq!(feasible_nodes_to_find(100), 100);
        assert_eq!(feasible_nodes_to_find(1000), 420); // 50 - 1000/125 = 42%
        assert_eq!(feasible_nodes_to_find(5000), 500); // floor at 10%... 50 - 40 = 10%
        assert_eq!(feasible_nodes_to_find(6000), 300); // 5% minimum
    }

    #[test]
    fn fit_error_reads_like_upstream() {
        let mut r = BTreeMap::new();
        r.insert("Insufficient cpu".to_string(), 2);
        r.insert("node(s) had untolerated taint {dedicated: gpu}".to_string(), 1);
        assert_eq!(
            fit_error(3, &r, 2),
            "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
        );
    }

    #[test]
    fn balanced_and_least_allocated_prefer_emptier_balanced_nodes() {
        let node = |cpu: i128, mem: i128| NodeInfo {
            alloc_cpu: 4000,
            alloc_mem: 8 << 30,
            alloc_pods: 110,
            nz_cpu: cpu,
            nz_mem: mem,
            ..Default::default()
        };
        let u = Usage { cpu: 100, mem: 200 << 20, nz_cpu: 100, nz_mem: 200 << 20 };
        assert!(resource_score(&u, &node(0, 0)) > resource_score(&u, &node(2000, 4 << 30)));
        assert!(resource_score(&u, &node(1000, 2 << 30)) > resource_score(&u, &node(1000, 6 << 30)));
    }
}
