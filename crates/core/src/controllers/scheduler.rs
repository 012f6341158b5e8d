//! kube-scheduler: one pod at a time, filter the nodes (NodeUnschedulable, NodeName, TaintToleration,
//! NodeAffinity/nodeSelector, NodeResourcesFit), score the feasible ones (NodeResourcesFit's LeastAllocated,
//! NodeResourcesBalancedAllocation, TaintToleration, PodTopologySpread's system default constraints), bind to the
//! best. Unschedulable pods get PodScheduled=False and a FailedScheduling event and wait (backoff 1 s doubling to
//! 10 s) until the cluster changes, or at most 5 minutes.

use std::collections::BTreeMap;

use crate::vecmap::VecMap;

use rustc_hash::FxHashMap;

mod plugins;
mod spread;
mod volumes;
use plugins::*;
pub use plugins::{spread_owner, Profile, Weights, FILTER_PLUGINS, SCORE_PLUGINS};
use spread::{Spread, SpreadCounts};

use crate::api::{s, text_eq, Kind, LabelSelector, Labels, ObjKey, Object, Pod, Str, Taint};
use crate::backoff::Backoff;
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::{set_pod_condition, Subresource};
use crate::time::{Millis, MINUTE, SECOND};
use crate::work::Counters;
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
pub const WEIGHT_SPREAD: i64 = 2;
/// `MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
pub const LABEL_ZONE: &str = "topology.kubernetes.io/zone";
/// PodTopologySpread's `systemDefaultConstraints` (defaultingType: System): topology key and maxSkew, both
/// `ScheduleAnyway` (scoring only), in upstream's order.
pub const SYSTEM_DEFAULT_CONSTRAINTS: [(&str, i64); 2] = [(LABEL_HOSTNAME, 3), (LABEL_ZONE, 5)];

/// What the scheduler knows of one node (its cache, kept from the informers plus assumed pods).
#[derive(Clone, Debug, Default)]
pub struct NodeInfo {
    pub(crate) name: Str,
    /// Set with [`NodeInfo::set_labels`], which reads the two below from them.
    pub(crate) labels: Labels,
    /// Its `kubernetes.io/hostname` and `topology.kubernetes.io/zone` labels, read once: the domains
    /// PodTopologySpread's system default constraints count by, on every node for every pod scored.
    pub(crate) hostname: Option<Str>,
    pub(crate) zone: Option<Str>,
    pub(crate) taints: Vec<Taint>,
    pub(crate) unschedulable: bool,
    pub(crate) alloc_cpu: i64,
    pub(crate) alloc_mem: i64,
    pub(crate) alloc_pods: i64,
    /// Sums of the pods' requests (millicores, bytes), in `i128`: each request is an `i64` (a quantity's
    /// saturated `MilliValue()`/`Value()`), so no number of pods can overflow the sum, and removing a pod
    /// subtracts exactly what adding it added (upstream sums in `int64`, which a huge request wraps).
    pub(crate) req_cpu: i128,
    pub(crate) req_mem: i128,
    pub(crate) nz_cpu: i128,
    pub(crate) nz_mem: i128,
    pub(crate) pods: i64,
}

/// What a pod requests: `cpu`/`mem` as requested (a container without a request adds 0, and so does an explicit
/// request of 0), and `nz_cpu`/`nz_mem` with the non-zero defaults (100m, 200 MiB) for a container that has no
/// request at all (`NonMissingContainerRequests`: a request explicitly set, even to 0, is kept).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
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
        u.nz_cpu += i128::from(cpu.unwrap_or(DEFAULT_MILLI_CPU_REQUEST));
        u.nz_mem += i128::from(mem.unwrap_or(DEFAULT_MEMORY_REQUEST));
    }
    u
}

/// A pod counted on a node: what it requests, and what PodTopologySpread counts it by.
#[derive(Clone, Debug, PartialEq)]
struct Placed {
    node: Str,
    usage: Usage,
    namespace: Str,
    labels: Labels,
    /// Has a deletionTimestamp: still counted for resources, not by `countPodsMatchSelector`.
    terminating: bool,
}

impl Placed {
    fn of(p: &Pod) -> Placed {
        Placed {
            node: p.spec.node_name.clone(),
            usage: usage(p),
            namespace: p.metadata.namespace.clone(),
            labels: p.metadata.labels.clone(),
            terminating: p.metadata.is_terminating(),
        }
    }
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

    fn set_labels(&mut self, labels: Labels) {
        self.hostname = labels.get(LABEL_HOSTNAME).cloned();
        self.zone = labels.get(LABEL_ZONE).cloned();
        self.labels = labels;
    }

    /// The node's value of topology key `key` (its label of that key).
    fn domain(&self, key: &str) -> Option<&Str> {
        match key {
            LABEL_HOSTNAME => self.hostname.as_ref(),
            LABEL_ZONE => self.zone.as_ref(),
            _ => self.labels.get(key),
        }
    }

    /// The pods' load counted on `from` (this node's earlier record).
    fn keep_load(&mut self, from: &NodeInfo) {
        self.req_cpu = from.req_cpu;
        self.req_mem = from.req_mem;
        self.nz_cpu = from.nz_cpu;
        self.nz_mem = from.nz_mem;
        self.pods = from.pods;
    }
}

/// The scheduler's node cache: a vector walked round-robin, with an index by name.
#[derive(Clone, Default)]
pub struct NodeTable {
    list: Vec<NodeInfo>,
    index: FxHashMap<Str, usize>,
    /// The pods' load counted on nodes not in the table (removed, or not seen yet), by node name, until the node
    /// comes (back): what walking every placed pod for the node's name would sum.
    detached: FxHashMap<Str, NodeInfo>,
}

impl NodeTable {
    pub(crate) fn len(&self) -> usize {
        self.list.len()
    }
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    pub(crate) fn get(&self, name: &str) -> Option<&NodeInfo> {
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
        let gone = self.list.swap_remove(i);
        if let Some(moved) = self.list.get(i) {
            self.index.insert(moved.name.clone(), i);
        }
        if gone.pods != 0 {
            let mut load = NodeInfo::default();
            load.keep_load(&gone);
            self.detached.insert(gone.name, load);
        }
    }

    /// Stores what the API says of a node, with the load of the pods already counted on it; whether the node may
    /// have more room than before (new, or more allocatable, or other taints or labels).
    fn update(&mut self, mut info: NodeInfo) -> bool {
        let more_room = match self.get(&info.name) {
            None => {
                if let Some(load) = self.detached.remove(&info.name) {
                    info.keep_load(&load);
                }
                true
            }
            Some(o) => {
                info.keep_load(o);
                o.unschedulable && !info.unschedulable
                    || info.alloc_cpu > o.alloc_cpu
                    || info.alloc_mem > o.alloc_mem
                    || info.alloc_pods > o.alloc_pods
                    || o.taints != info.taints
                    || o.labels != info.labels
            }
        };
        self.insert(info);
        more_room
    }

    /// A pod's usage counted on (`sign` 1) or off (-1) node `name`, in the table or not.
    fn apply(&mut self, name: &Str, u: Usage, sign: i64) {
        if let Some(n) = self.get_mut(name) {
            n.apply(u, sign);
            return;
        }
        let load = self.detached.entry(name.clone()).or_default();
        load.apply(u, sign);
        if load.pods == 0 {
            self.detached.remove(name);
        }
    }
    pub(crate) fn iter(&self) -> impl Iterator<Item = &NodeInfo> {
        self.list.iter()
    }
}

/// What the scheduler did, counted (kubeloop's own, not upstream's): its figures of the engine's work
/// (`Reconciler::work`, `crate::work`), for the work budget and complexity tests, where wall time is noise. Each
/// counts one unit of work whose number could grow with the cluster.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedulerWork {
    /// PodTopologySpread counts offered a pod placed on or taken off a node (one selector match each).
    pub spread_entries_visited: u64,
    /// Placed pods read to count them afresh (a ReplicaSet's spread counts built, a node first seen).
    pub placed_pods_read: u64,
    /// Nodes run through the filter plugins.
    pub nodes_filtered: u64,
    /// Feasible nodes scored.
    pub nodes_scored: u64,
}

#[derive(Clone, Default)]
pub struct Scheduler {
    pub(crate) nodes: NodeTable,
    /// Pods counted on a node (bound, or assumed after our own bind), with what they request.
    placed: FxHashMap<ObjKey, Placed>,
    /// PodTopologySpread's counts, by the ReplicaSet whose selector they count.
    spread: Spread,
    /// Pods that failed to schedule, with the end of their backoff.
    unschedulable: FxHashMap<ObjKey, Millis>,
    attempts: FxHashMap<ObjKey, u32>,
    next_start: usize,
    work: SchedulerWork,
}

/// `numFeasibleNodesToFind` with the adaptive `percentageOfNodesToScore`.
pub(crate) fn feasible_nodes_to_find(all: usize) -> usize {
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

/// Why the scheduler would place a pod where it would, node by node: what [`Scheduler::explain`] says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// Every node, in the cache's order.
    pub nodes: Vec<NodeVerdict>,
    /// The feasible node with the highest total (the first of equals: the scheduler picks among them at random).
    pub best: Option<Str>,
    /// How many nodes have that highest total.
    pub tied: usize,
    /// Without a feasible node: upstream's message (`0/3 nodes are available: ...`).
    pub unschedulable: Option<String>,
}

/// A pod the what-if would place elsewhere ([`Scheduler::what_if`]): the nodes the scheduler would pick from (those
/// sharing the highest total; none when no node fits) differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Moved {
    pub pod: ObjKey,
    /// Its best nodes with upstream's profile, and with the what-if's (each in the cache's order).
    pub upstream: Vec<Str>,
    pub with: Vec<Str>,
}

/// One node's verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeVerdict {
    pub node: Str,
    /// Each filter plugin's reasons for rejecting the pod, in [`FILTER_PLUGINS`]' order (empty: it passes). The
    /// scheduler stops at the first that rejects; every one is shown here.
    pub filters: Vec<Vec<String>>,
    /// Which filter plugins run (a what-if may switch some off): the others' reasons do not reject.
    pub(crate) enabled: [bool; FILTER_PLUGINS.len()],
    /// A feasible node's scores, in [`SCORE_PLUGINS`]' order, and their weighted total.
    pub scores: Option<([i64; 4], i64)>,
}

impl NodeVerdict {
    pub fn feasible(&self) -> bool {
        self.rejected().is_none()
    }

    /// The first filter plugin that rejects the pod (its place in [`FILTER_PLUGINS`]) and its reasons: what the
    /// scheduler reports, as it stops there.
    pub fn rejected(&self) -> Option<(usize, &[String])> {
        let on = |i: usize| self.enabled.get(i).copied().unwrap_or(true);
        self.filters.iter().enumerate().position(|(i, r)| on(i) && !r.is_empty()).map(|i| (i, &self.filters[i][..]))
    }

    /// [`NodeVerdict::rejected`]'s reasons, as one line.
    pub fn reason(&self) -> Option<String> {
        self.rejected().map(|(_, why)| why.join(", "))
    }
}

impl Explanation {
    /// The feasible node with the highest total under `weights` (the first of equals), and how many share that
    /// total: the scores are per plugin, so any weights can be tried on one explanation.
    pub fn best_with(&self, weights: Weights) -> (Option<Str>, usize) {
        let top = self.top_with(weights);
        (top.first().cloned(), top.len())
    }

    /// Every feasible node sharing the highest total under `weights`, in the cache's order (the scheduler picks
    /// one of them at random).
    pub fn top_with(&self, weights: Weights) -> Vec<Str> {
        let totals = || self.nodes.iter().filter_map(|v| Some((&v.node, weights.total(&v.scores?.0))));
        let top = totals().map(|(_, t)| t).max();
        totals().filter(|(_, t)| Some(*t) == top).map(|(n, _)| n.clone()).collect()
    }
}

/// `FitError.Error()`: "0/3 nodes are available: 1 node(s) had untolerated taint {...}, 2 Insufficient cpu."
pub(crate) fn fit_error(total: usize, reasons: &VecMap<String, usize>, resource_only_nodes: usize) -> String {
    if total == 0 {
        return "no nodes available to schedule pods".into();
    }
    let mut parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
    crate::sort::sort(&mut parts);
    let mut preempt = Vec::new();
    if resource_only_nodes > 0 {
        preempt.push(format!("{resource_only_nodes} No preemption victims found for incoming pod"));
    }
    if total > resource_only_nodes {
        preempt.push(format!("{} Preemption is not helpful for scheduling", total - resource_only_nodes));
    }
    crate::sort::sort(&mut preempt);
    format!(
        "0/{total} nodes are available: {}. preemption: 0/{total} nodes are available: {}.",
        parts.join(", "),
        preempt.join(", ")
    )
}

impl Scheduler {
    pub(crate) fn new() -> Self {
        Scheduler::default()
    }

    /// A scheduler's cache as the API's objects say: these nodes, with these pods counted on theirs (bound and
    /// not finished, as the informers place them).
    pub(crate) fn of<'a>(
        nodes: impl Iterator<Item = &'a crate::api::Node>,
        pods: impl Iterator<Item = &'a Pod>,
    ) -> Self {
        let mut s = Scheduler::default();
        for n in nodes {
            s.nodes.insert(Scheduler::node_info(n));
        }
        for p in pods.filter(|p| !p.spec.node_name.is_empty() && !p.status.phase.is_terminal()) {
            s.place(ObjKey::new(&p.metadata.namespace, &p.metadata.name), Placed::of(p));
        }
        s
    }

    /// Why `pod` would go where it would now: every node filtered (all plugins, not only up to the first that
    /// rejects, and every node, not only the first `numFeasibleNodesToFind`), every feasible node scored. The
    /// profile says which filter plugins run and the weights (upstream's: every filter, the default weights).
    /// `owner`: the ReplicaSet whose selector PodTopologySpread counts by. A pod already counted on a node (bound)
    /// is taken off it first: the question is where it would go if it were scheduled now.
    pub(crate) fn explain(
        &mut self,
        pod: &Pod,
        owner: Option<(ObjKey, LabelSelector)>,
        profile: impl Into<Profile>,
    ) -> Explanation {
        let Profile { filters: enabled, weights } = profile.into();
        self.unplace(&ObjKey::new(&pod.metadata.namespace, &pod.metadata.name));
        let mut pod = pod.clone();
        pod.spec = std::rc::Rc::new(crate::api::PodSpec { node_name: s(""), ..(*pod.spec).clone() });
        let u = usage(&pod);
        if let Some((key, selector)) = &owner {
            self.spread_counts(key, selector);
        }
        let mut nodes: Vec<NodeVerdict> = self
            .nodes
            .iter()
            .map(|n| NodeVerdict {
                node: n.name.clone(),
                filters: (0..FILTER_PLUGINS.len()).map(|i| filter_plugin(i, &pod, &u, n)).collect(),
                enabled,
                scores: None,
            })
            .collect();
        let feasible: Vec<&NodeInfo> =
            self.nodes.iter().zip(&nodes).filter(|(_, v)| v.feasible()).map(|(n, _)| n).collect();
        let spread = owner.as_ref().and_then(|(k, _)| self.spread.get(k));
        let mut scores = score_plugins(&pod, &u, &feasible, &self.nodes, spread).into_iter();
        for v in nodes.iter_mut().filter(|v| v.feasible()) {
            let plugins = scores.next().unwrap_or_default();
            v.scores = Some((plugins, weights.total(&plugins)));
        }
        let unschedulable = nodes.iter().all(|v| !v.feasible()).then(|| {
            let mut tally = FitTally::default();
            for (plugin, why) in nodes.iter().filter_map(NodeVerdict::rejected) {
                tally.add(plugin, why);
            }
            tally.message(nodes.len())
        });
        let mut e = Explanation { nodes, best: None, tied: 0, unschedulable };
        (e.best, e.tied) = e.best_with(weights);
        e
    }

    /// Where each of `pods` would go now with upstream's profile and with `profile` (each pod explained as
    /// [`Scheduler::explain_placed`] does, counted back where it was): the pods whose best nodes differ. With every
    /// filter on, one explanation a pod serves both (the weights only weigh its scores); with one off, the
    /// feasible nodes differ and each pod is explained twice.
    pub(crate) fn what_if<'a>(
        &mut self,
        pods: impl IntoIterator<Item = (&'a Pod, Option<(ObjKey, LabelSelector)>)>,
        profile: impl Into<Profile>,
    ) -> Vec<Moved> {
        let profile = profile.into();
        let all_filters = profile.filters == Profile::default().filters;
        let mut moved = Vec::new();
        for (pod, owner) in pods {
            let e = self.explain_placed(pod, owner.clone(), profile);
            let with = e.top_with(profile.weights);
            let upstream = if all_filters {
                e.top_with(Weights::default())
            } else {
                self.explain_placed(pod, owner, Profile::default()).top_with(Weights::default())
            };
            if upstream != with {
                let key = ObjKey::new(&pod.metadata.namespace, &pod.metadata.name);
                moved.push(Moved { pod: key, upstream, with });
            }
        }
        moved
    }

    /// [`Scheduler::explain`], then the pod counted back where it was (bound and not finished), so that the cache
    /// serves the next explanation as it served this one.
    pub(crate) fn explain_placed(
        &mut self,
        pod: &Pod,
        owner: Option<(ObjKey, LabelSelector)>,
        profile: impl Into<Profile>,
    ) -> Explanation {
        let e = self.explain(pod, owner, profile);
        if !pod.spec.node_name.is_empty() && !pod.status.phase.is_terminal() {
            self.place(ObjKey::new(&pod.metadata.namespace, &pod.metadata.name), Placed::of(pod));
        }
        e
    }

    fn place(&mut self, key: ObjKey, p: Placed) {
        if self.placed.get(&key) == Some(&p) {
            return;
        }
        self.unplace(&key);
        self.nodes.apply(&p.node, p.usage, 1);
        self.spread.count(&key, &p, 1, &mut self.work);
        self.placed.insert(key, p);
    }

    fn unplace(&mut self, key: &ObjKey) -> bool {
        match self.placed.remove(key) {
            Some(p) => {
                self.nodes.apply(&p.node, p.usage, -1);
                self.spread.count(key, &p, -1, &mut self.work);
                true
            }
            None => false,
        }
    }

    /// The spreading counts of the ReplicaSet `key`, built from the placed pods on first use (and again if its
    /// selector is not the one counted).
    fn spread_counts(&mut self, key: &ObjKey, selector: &LabelSelector) -> &SpreadCounts {
        self.spread.counts_for(key, selector, &self.placed, &mut self.work)
    }

    /// The pod fits no node for `msg`: its PodScheduled condition, a FailedScheduling event, and a retry after
    /// its back-off.
    fn unschedulable(&mut self, key: &ObjKey, obj: &Object, msg: String, cx: &mut Ctx<'_, '_>) -> ReconcileAction {
        let now = cx.now;
        let m = msg.clone();
        let _ = cx.api.patch(Kind::Pod, key, Subresource::Status, |o| {
            if let Object::Pod(p) = o {
                set_pod_condition(&mut p.status.conditions, "PodScheduled", "False", "Unschedulable", &m, now);
            }
        });
        cx.recorder.event(&mut cx.api, obj, EventKind::Warning, "FailedScheduling", &msg);
        let attempts = self.attempts.entry(key.clone()).or_default();
        *attempts += 1;
        let backoff = Backoff::doubling(POD_INITIAL_BACKOFF, POD_MAX_BACKOFF).delay((*attempts - 1).min(10));
        self.unschedulable.insert(key.clone(), cx.now + backoff);
        ReconcileAction::RequeueAfter(MAX_IN_UNSCHEDULABLE)
    }

    /// A change that may make unschedulable pods fit: retry each once its backoff is over.
    fn move_unschedulable(&mut self, now: Millis, out: &mut Enqueue) {
        let mut keys: Vec<(&ObjKey, &Millis)> = self.unschedulable.iter().collect();
        crate::sort::sort(&mut keys);
        out.extend(keys.into_iter().map(|(k, until)| (k.clone(), until.saturating_sub(now))));
    }

    fn node_info(n: &crate::api::Node) -> NodeInfo {
        let alloc = |r: &str| n.status.allocatable.get(r);
        let mut info = NodeInfo {
            name: n.metadata.name.clone(),
            taints: n.spec.taints.clone(),
            unschedulable: n.spec.unschedulable,
            alloc_cpu: alloc("cpu").map(|q| q.milli()).unwrap_or(0),
            alloc_mem: alloc("memory").map(|q| q.value()).unwrap_or(0),
            alloc_pods: alloc("pods").map(|q| q.value()).unwrap_or(0),
            ..Default::default()
        };
        info.set_labels(n.metadata.labels.clone());
        info
    }
}

impl Reconciler for Scheduler {
    fn name(&self) -> &'static str {
        "scheduler"
    }

    fn retained(&self) -> usize {
        self.nodes.len()
            + self.placed.len()
            + self.unschedulable.len()
            + self.attempts.len()
            + self.nodes.detached.len()
            + self.spread.retained()
    }

    fn component(&self) -> &'static str {
        "default-scheduler"
    }

    fn workers(&self) -> usize {
        1
    }

    fn watches(&self) -> &'static [Kind] {
        &[
            Kind::Node,
            Kind::Pod,
            Kind::ReplicaSet,
            Kind::PersistentVolumeClaim,
            Kind::PersistentVolume,
            Kind::StorageClass,
        ]
    }

    fn rate_limiter(&self) -> Box<dyn RateLimiter<ObjKey>> {
        Box::new(ItemExponentialFailureRateLimiter::new(POD_INITIAL_BACKOFF, POD_MAX_BACKOFF))
    }

    fn reset(&mut self) {
        // The process restarts with an empty cache; the work it did stays done.
        *self = Scheduler { work: self.work, ..Scheduler::new() };
    }

    fn work(&self, out: &mut Counters) {
        out.add("spreadEntriesVisited", self.work.spread_entries_visited);
        out.add("placedPodsRead", self.work.placed_pods_read);
        out.add("nodesFiltered", self.work.nodes_filtered);
        out.add("nodesScored", self.work.nodes_scored);
    }

    fn handle(&mut self, ev: &InformerEvent, _caches: Caches<'_>, now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match (obj.as_ref(), ev) {
            (Object::Node(n), InformerEvent::Delete(..)) => {
                self.nodes.remove(&n.metadata.name);
            }
            (Object::Node(n), _) => {
                let more_room = self.nodes.update(Scheduler::node_info(n));
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
                        self.place(key, Placed::of(p));
                    }
                } else if is_schedulable_candidate(p) && !ev.is_resync() {
                    let delay = self.unschedulable.get(&key).map_or(0, |until| until.saturating_sub(now));
                    out.push((key, delay));
                }
            }
            (Object::ReplicaSet(_), InformerEvent::Delete(..)) => {
                self.spread.remove(&obj.key());
            }
            // A claim made or bound, a volume or a class: pods waiting on their claims may fit now.
            (Object::Stored(_), InformerEvent::Add(_) | InformerEvent::Update(..)) if !ev.is_resync() => {
                self.move_unschedulable(now, out);
            }
            _ => {}
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        // The cache's own version, shared (not copied): the cache may change while the pod is scheduled.
        let Some(obj) = cx.caches.of(Kind::Pod).get(key).cloned() else {
            return Ok(ReconcileAction::Done);
        };
        let Some(pod) = obj.as_pod() else { return Ok(ReconcileAction::Done) };
        if !is_schedulable_candidate(pod) || self.placed.contains_key(key) {
            return Ok(ReconcileAction::Done);
        }
        let claims = match volumes::prefilter(pod, cx.caches) {
            Ok(c) => c,
            Err(why) => {
                return Ok(self.unschedulable(key, &obj, volumes::prefilter_message(&why, self.nodes.len()), cx))
            }
        };
        let u = usage(pod);
        let owner = default_spread_owner(pod, cx.caches);
        if let Some((key, selector)) = &owner {
            self.spread_counts(key, selector);
        }
        let total = self.nodes.len();
        let want = feasible_nodes_to_find(total);
        let mut feasible: Vec<&NodeInfo> = Vec::new();
        let mut tally = FitTally::default();
        let mut processed = 0;
        for i in 0..total {
            if feasible.len() >= want {
                break;
            }
            let n = &self.nodes.list[(self.next_start + i) % total];
            processed += 1;
            if claims.nodes.as_ref().is_some_and(|allowed| !allowed.contains(&n.name)) {
                tally.add(volumes::VOLUME_BINDING, &[volumes::AFFINITY_CONFLICT.to_string()]);
                continue;
            }
            match filter(pod, &u, n) {
                None => feasible.push(n),
                Some((plugin, why)) => tally.add(plugin, &why),
            }
        }
        if total > 0 {
            self.next_start = (self.next_start + processed) % total;
        }
        self.work.nodes_filtered += processed as u64;
        if feasible.is_empty() {
            return Ok(self.unschedulable(key, &obj, tally.message(total), cx));
        }
        // Score, then pick the best; ties broken at random (selectHost's reservoir sampling).
        self.work.nodes_scored += feasible.len() as u64;
        let spread = owner.as_ref().and_then(|(k, _)| self.spread.get(k));
        let scores = score_plugins(pod, &u, &feasible, &self.nodes, spread);
        let mut best: Option<(&NodeInfo, i64)> = None;
        let mut ties = 0u64;
        for (n, plugins) in feasible.iter().zip(scores) {
            let score = Weights::default().total(&plugins);
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
        let Some((node, _)) = best else { return Ok(ReconcileAction::Done) };
        let node = node.name.clone();
        // VolumeBinding's PreBind: the node goes on each WaitForFirstConsumer claim (kubeloop binds the pod at once;
        // upstream's binding cycle waits for the claims to be bound first).
        for claim in &claims.to_select {
            let _ = cx.api.patch(Kind::PersistentVolumeClaim, claim, Subresource::Main, |o| {
                crate::controllers::persistentvolume::select_node(o, &node)
            });
        }
        // The binding cycle runs in the background: the scheduler assumes the pod and moves on.
        match cx.api.detached(|api| api.bind(key, &pod.metadata.uid, &node)) {
            Ok(bound) => {
                let mut p = Placed::of(pod);
                p.node = node.clone();
                self.place(key.clone(), p);
                self.unschedulable.remove(key);
                self.attempts.remove(key);
                let msg = format!("Successfully assigned {key} to {node}");
                cx.recorder.event(&mut cx.api, &bound, EventKind::Normal, "Scheduled", &msg);
                Ok(ReconcileAction::Done)
            }
            Err(e) if e.is_not_found() => Ok(ReconcileAction::Done),
            Err(e) => Err(format!("binding rejected: {e}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The resource scores weighted as the default profile (LeastAllocated 1, BalancedAllocation 1).
    fn resource_score(u: &Usage, n: &NodeInfo) -> i64 {
        least_allocated(u, n) * WEIGHT_FIT + balanced_allocation(u, n).unwrap_or(0) * WEIGHT_BALANCED
    }

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
        let mut r = VecMap::new();
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
            req_cpu: cpu,
            req_mem: mem,
            nz_cpu: cpu,
            nz_mem: mem,
            ..Default::default()
        };
        let u = Usage { cpu: 100, mem: 200 << 20, nz_cpu: 100, nz_mem: 200 << 20 };
        assert!(resource_score(&u, &node(0, 0)) > resource_score(&u, &node(2000, 4 << 30)));
        assert!(resource_score(&u, &node(1000, 2 << 30)) > resource_score(&u, &node(1000, 6 << 30)));
    }

    fn pod_requesting(cpu: Option<&str>, mem: Option<&str>) -> Pod {
        let mut p = Pod::default();
        let mut c = crate::api::Container::default();
        if let Some(cpu) = cpu {
            c.resources.requests.insert(s("cpu"), cpu.parse().expect("quantity"));
        }
        if let Some(mem) = mem {
            c.resources.requests.insert(s("memory"), mem.parse().expect("quantity"));
        }
        std::rc::Rc::make_mut(&mut p.spec).containers.push(c);
        p
    }

    /// `NonMissingContainerRequests`: the 100m / 200 MiB defaults stand in for a request that is absent, never for
    /// one explicitly set to 0.
    #[test]
    fn an_explicit_zero_request_stays_zero_and_only_a_missing_one_is_defaulted() {
        let u = usage(&pod_requesting(Some("0"), Some("0")));
        assert_eq!(u, Usage { cpu: 0, mem: 0, nz_cpu: 0, nz_mem: 0 });
        let u = usage(&pod_requesting(None, None));
        assert_eq!(u, Usage { cpu: 0, mem: 0, nz_cpu: 100, nz_mem: 200 << 20 });
        let u = usage(&pod_requesting(Some("250m"), None));
        assert_eq!(u, Usage { cpu: 250, mem: 0, nz_cpu: 250, nz_mem: 200 << 20 });
    }

    /// NodeResourcesBalancedAllocation scores the requests as they are (`useRequested: true`), LeastAllocated
    /// with the non-zero defaults; a best-effort pod is skipped by BalancedAllocation (since 1.33).
    #[test]
    fn balanced_allocation_uses_actual_requests_and_least_allocated_the_defaults() {
        // 10 pods without requests: nothing requested, 1000m / 2000 MiB by the defaults.
        let n = NodeInfo {
            alloc_cpu: 4000,
            alloc_mem: 4 << 30,
            alloc_pods: 110,
            nz_cpu: 1000,
            nz_mem: 2000 << 20,
            ..Default::default()
        };
        // The pod asks for 2 cpus and no memory: actual fractions 0.5 and 0.0, std 0.25, score 75. With the
        // defaults it would be (2000+1000)/4000 = 0.75 and 2000 MiB/4 GiB = 0.49, score 87.
        let u = usage(&pod_requesting(Some("2"), Some("0")));
        assert_eq!(balanced_allocation(&u, &n), Some(75));
        // LeastAllocated: cpu (4000-3000)*100/4000 = 25, memory (4096-2000)*100/4096 = 51; mean 38.
        assert_eq!(least_allocated(&u, &n), 38);
        let best_effort = usage(&pod_requesting(None, None));
        assert_eq!(balanced_allocation(&best_effort, &n), None);
        // A resource the node has none of is left out of both.
        let no_mem = NodeInfo { alloc_mem: 0, ..n.clone() };
        assert_eq!(balanced_allocation(&u, &no_mem), Some(100));
        assert_eq!(least_allocated(&u, &no_mem), 25);
    }

    #[test]
    fn ln_agrees_with_the_platform_logarithm() {
        for x in [1.0, 2.0, 3.0, 4.0, 5.0, 7.0, 12.0, 102.0, 1002.0, 5002.0, 0.5, 1e300] {
            let (a, b) = (ln(x), x.ln());
            assert!((a - b).abs() <= 4.0 * f64::EPSILON * b.abs().max(1.0), "ln({x}) = {a}, std says {b}");
        }
        assert!(ln(0.0).is_nan() && ln(-1.0).is_nan());
    }

    fn spread_node(name: &str, zone: Option<&str>) -> NodeInfo {
        let mut labels = Labels::new();
        labels.insert(s(LABEL_HOSTNAME), s(name));
        if let Some(z) = zone {
            labels.insert(s(LABEL_ZONE), s(z));
        }
        let mut n =
            NodeInfo { name: s(name), alloc_cpu: 4000, alloc_mem: 8 << 30, alloc_pods: 110, ..Default::default() };
        n.set_labels(labels);
        n
    }

    fn counts(per_node: &[(&str, i64)]) -> SpreadCounts {
        SpreadCounts {
            namespace: s("default"),
            selector: LabelSelector::default(),
            filed: None,
            per_node: per_node.iter().map(|(n, c)| (s(n), *c)).collect(),
        }
    }

    /// What PodTopologySpread's counts must hold: every placed pod matched against the selector afresh.
    fn counted_afresh(sched: &Scheduler, c: &SpreadCounts) -> FxHashMap<Str, i64> {
        let mut per_node: FxHashMap<Str, i64> = FxHashMap::default();
        for p in sched.placed.values() {
            if !p.terminating && p.namespace == c.namespace && c.selector.matches(&p.labels) {
                *per_node.entry(p.node.clone()).or_default() += 1;
            }
        }
        per_node
    }

    /// The index offers a pod only to the counts whose selector could match it, yet the counts are those of matching
    /// every pod against every selector, through pods placed, moved, relabelled, finishing and removed, counts built
    /// late, dropped and built again, in two namespaces, with selectors of labels, of expressions only, and of both.
    #[test]
    fn spread_counts_kept_through_the_index_equal_counting_every_pod_afresh() {
        let selectors: Vec<(ObjKey, LabelSelector)> = [
            ("a", "web", "app=web"),
            ("a", "web-front", "app=web,tier=front"),
            ("a", "tiers", "tier in (front,back)"),
            ("a", "not-web", "app notin (web)"),
            ("a", "web-not-back", "app=web,tier!=back"),
            ("b", "web", "app=web"),
        ]
        .iter()
        .map(|(ns, name, sel)| (ObjKey::new(ns, name), crate::api::selector::parse_selector(sel).expect("selector")))
        .collect();
        let mut rng = crate::rng::Rng::new(29);
        let mut sched = Scheduler::new();
        for n in ["n1", "n2", "n3"] {
            sched.nodes.insert(spread_node(n, None));
        }
        let index = |rng: &mut crate::rng::Rng, len: usize| rng.range(0, len as u64 - 1) as usize;
        let pick = |rng: &mut crate::rng::Rng, of: &[&str]| s(of[index(rng, of.len())]);
        for step in 0..3000 {
            match rng.range(0, 9) {
                0..=5 => {
                    let key = ObjKey::new(&pick(&mut rng, &["a", "b"]), &format!("p{}", rng.range(0, 29)));
                    let mut labels = Labels::new();
                    for (k, values) in [("app", ["web", "db"]), ("tier", ["front", "back"])] {
                        if rng.chance(0.7) {
                            labels.insert(s(k), pick(&mut rng, &values));
                        }
                    }
                    let p = Placed {
                        node: pick(&mut rng, &["n1", "n2", "n3"]),
                        usage: Usage::default(),
                        namespace: key.namespace.clone(),
                        labels,
                        terminating: rng.chance(0.1),
                    };
                    sched.place(key, p);
                }
                6..=7 => {
                    let key = ObjKey::new(&pick(&mut rng, &["a", "b"]), &format!("p{}", rng.range(0, 29)));
                    sched.unplace(&key);
                }
                8 => {
                    let (rs, selector) = &selectors[index(&mut rng, selectors.len())];
                    sched.spread_counts(rs, selector);
                }
                _ => {
                    let (rs, _) = &selectors[index(&mut rng, selectors.len())];
                    sched.spread.remove(rs);
                }
            }
            for (rs, _) in &selectors {
                if let Some(c) = sched.spread.get(rs) {
                    assert_eq!(c.per_node, counted_afresh(&sched, c), "{rs} after step {step}");
                }
            }
        }
        // Every pod and counts gone, the index holds nothing.
        let keys: Vec<ObjKey> = sched.placed.keys().cloned().collect();
        for k in &keys {
            sched.unplace(k);
        }
        selectors.iter().for_each(|(rs, _)| sched.spread.remove(rs));
        assert!(sched.spread.is_empty());
    }

    /// PodTopologySpread with the system default constraints (hostname maxSkew 3, zone maxSkew 5, ScheduleAnyway):
    /// `scoreForCount` = count * ln(domains + 2) + maxSkew - 1, then NormalizeScore 100 * (max + min - s) / max.
    #[test]
    fn system_default_spreading_prefers_nodes_and_zones_with_fewer_matching_pods() {
        let mut table = NodeTable::default();
        for (n, z) in [("a", "z1"), ("b", "z1"), ("c", "z2")] {
            table.insert(spread_node(n, Some(z)));
        }
        let feasible: Vec<&NodeInfo> = table.iter().collect();
        let pod = Pod::default();
        // Two pods on a, none elsewhere. Hostname weight ln(5) = 1.609, zone weight ln(4) = 1.386:
        // a: 2*1.609+2 + 2*1.386+4 = 11.99 -> 12; b: 0+2 + 2.77+4 = 8.77 -> 9; c: 2 + 4 = 6.
        // Normalised over max 12, min 6: a 100*(18-12)/12 = 50, b 100*9/12 = 75, c 100.
        assert_eq!(spread_scores(&pod, &feasible, &table, &counts(&[("a", 2)])), [50, 75, 100]);
        // Nothing counted: every node scores the same raw 6, normalised 100*(6+6-6)/6 = 100.
        assert_eq!(spread_scores(&pod, &feasible, &table, &counts(&[])), [100, 100, 100]);
        // Pods on nodes the pod's nodeSelector excludes are not counted for the zone (nodeAffinityPolicy Honor).
        let mut picky = Pod::default();
        std::rc::Rc::make_mut(&mut picky.spec).node_selector.insert(s(LABEL_HOSTNAME), s("c"));
        let only_c: Vec<&NodeInfo> = table.iter().filter(|n| &*n.name == "c").collect();
        assert_eq!(spread_scores(&picky, &only_c, &table, &counts(&[("a", 2)])), [100]);
    }

    /// A node without the zone label (system defaults do not require every topology key): it scores on hostname
    /// alone, and its pods count towards the zone "" that no zoned node is in.
    #[test]
    fn system_default_spreading_scores_a_node_without_a_zone_on_hostname_alone() {
        let mut table = NodeTable::default();
        table.insert(spread_node("a", Some("z1")));
        table.insert(spread_node("b", None));
        let feasible: Vec<&NodeInfo> = table.iter().collect();
        // Weights: hostname ln(4) = 1.386; zones {z1, ""}: ln(4). One pod on b:
        // a: 0*1.386+2 + 0*1.386+4 = 6; b: 1.386+2 = 3.39 -> 3 (no zone term). max 6, min 3:
        // a 100*(9-6)/6 = 50, b 100*(9-3)/6 = 100.
        assert_eq!(spread_scores(&Pod::default(), &feasible, &table, &counts(&[("b", 1)])), [50, 100]);
    }
}
