//! The daemon controller (pkg/controller/daemon): one pod of a DaemonSet's template on every node that should run
//! it. A node should run it when the template's nodeSelector and required node affinity match it and every
//! NoSchedule or NoExecute taint is tolerated (by the template's tolerations and the ones the controller adds);
//! a pod may go on running on a node whose NoExecute taints it tolerates. Each pod is made for one node (required
//! node affinity on `metadata.name`, `ReplaceDaemonSetPodNodeNameNodeAffinity`) and placed by the scheduler.
//! Creates come in slow-start batches guarded by expectations; a failed pod is replaced after a back-off; a
//! rolling update replaces old pods within `maxUnavailable` (or surges within `maxSurge`); then status.
//!
//! Upstream walks every node at every sync. kubeloop's controller does the same walk for a new or changed
//! DaemonSet, and otherwise looks only at the nodes whose pods or whose labels and taints changed since its last
//! sync ([`Tracked`]), keeping each node's part of the status: what it decides is the walk's, and a sync costs the
//! nodes that changed, not the cluster's size (a rolling update still walks every node, as upstream's).

use std::rc::Rc;

use super::expectations::Expectations;
use super::resolve_controller_ref;
use crate::api::controller_of;
use crate::api::daemonset::{CONTROLLER_REVISION_HASH_LABEL, POD_TEMPLATE_GENERATION_LABEL};
use crate::api::{
    s, Affinity, DaemonSet, DaemonSetStatus, Kind, Node, ObjKey, Object, OwnerReference, Pod, PodPhase, PodSpec, Str,
    Taint, Toleration,
};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::DeleteOptions;
use crate::time::{Millis, MINUTE, SECOND};
use crate::vecmap::VecMap;

/// `BurstReplicas` of the daemon controller: at most this many creates or deletes per sync.
pub const BURST_REPLICAS: usize = 250;
/// `--concurrent-daemonset-syncs`.
pub const WORKERS: usize = 2;
/// The failed-pod back-off (`flowcontrol.NewBackOff(1s, 15m)`): how long before a failed daemon pod on the same
/// node is killed again.
const FAILED_POD_BACKOFF: crate::backoff::Backoff = crate::backoff::Backoff::doubling(SECOND, 15 * MINUTE);

/// The tolerations every daemon pod gets (`AddOrUpdateDaemonPodTolerations`): it stays through not-ready and
/// unreachable (NoExecute, no tolerationSeconds), disk, memory and PID pressure and cordons (NoSchedule).
pub const DAEMON_TOLERATIONS: [(&str, &str); 6] = [
    ("node.kubernetes.io/not-ready", "NoExecute"),
    ("node.kubernetes.io/unreachable", "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
];

/// Nodes a DaemonSet's next sync looks at, at most (kubeloop's own bound): past it, the sync walks every node.
const MAX_DIRTY: usize = 256;

#[derive(Clone, Default)]
pub struct DaemonSetController {
    pub(crate) expectations: Expectations,
    workers: usize,
    /// `failedPodsBackoff`, per DaemonSet and node: the delay and when it last grew.
    failed: VecMap<(ObjKey, Str), (Millis, Millis)>,
    /// What each DaemonSet's last sync left, for the next one to look only at what changed (kubeloop's own).
    tracked: VecMap<ObjKey, Tracked>,
}

/// One DaemonSet as the controller left it at its last sync. Invariant: `parts` holds, for every node of the
/// cache not in `dirty`, what [`part_of`] says of it now, and `totals` is their sum; `unbound` holds every pod of
/// the DaemonSet not yet bound to a node (each with the node it is for). Bounded by the nodes and the DaemonSet's
/// pods.
#[derive(Clone, Default)]
struct Tracked {
    /// The next sync walks every node (a new or changed DaemonSet, too many dirty nodes).
    all: bool,
    /// The generation and template hash the parts are of.
    generation: i64,
    hash: Str,
    /// Nodes whose pods, labels or taints changed since the last sync, sorted; at most [`MAX_DIRTY`].
    dirty: Vec<Str>,
    /// Each node's part of the status.
    parts: VecMap<Str, Part>,
    totals: Part,
    /// The DaemonSet's pods not bound yet, and the node each is for.
    unbound: Vec<(ObjKey, Str)>,
}

impl Tracked {
    fn retained(&self) -> usize {
        1 + self.dirty.len() + self.parts.len() + self.unbound.len()
    }

    fn walk_all() -> Tracked {
        Tracked { all: true, ..Default::default() }
    }

    fn touch(&mut self, node: &Str) {
        if self.all {
            return;
        }
        if let Err(at) = self.dirty.binary_search(node) {
            if self.dirty.len() >= MAX_DIRTY {
                self.all = true;
                self.dirty.clear();
            } else {
                self.dirty.insert(at, node.clone());
            }
        }
    }

    /// Replaces a node's part (none: the node is gone).
    fn set_part(&mut self, node: &Str, part: Option<Part>) {
        if let Some(old) = self.parts.remove(node) {
            self.totals.add(&old, -1);
        }
        if let Some(p) = part {
            self.totals.add(&p, 1);
            self.parts.insert(node.clone(), p);
        }
    }
}

/// One node's part of a DaemonSet's status (each 0 or 1), and whether it has a pod of an older template.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Part {
    desired: i32,
    scheduled: i32,
    misscheduled: i32,
    ready: i32,
    available: i32,
    updated: i32,
    old: i32,
}

impl Part {
    fn add(&mut self, o: &Part, sign: i32) {
        self.desired += sign * o.desired;
        self.scheduled += sign * o.scheduled;
        self.misscheduled += sign * o.misscheduled;
        self.ready += sign * o.ready;
        self.available += sign * o.available;
        self.updated += sign * o.updated;
        self.old += sign * o.old;
    }
}

impl DaemonSetController {
    pub fn new(workers: usize) -> Self {
        DaemonSetController { workers, ..Default::default() }
    }
}

/// The template's pod spec with the daemon tolerations added (`AddOrUpdateTolerationInPodSpec`: one that matches
/// key, operator, value and effect is kept as it is).
pub fn daemon_pod_spec(template: &PodSpec) -> PodSpec {
    let mut spec = template.clone();
    for (key, effect) in DAEMON_TOLERATIONS {
        let t = Toleration {
            key: s(key),
            operator: s("Exists"),
            value: s(""),
            effect: s(effect),
            toleration_seconds: None,
        };
        let same = |o: &Toleration| o.key == t.key && o.effect == t.effect && o.operator == t.operator;
        match spec.tolerations.iter().position(same) {
            Some(i) if spec.tolerations[i] == t => {}
            Some(i) => spec.tolerations[i] = t,
            None => spec.tolerations.push(t),
        }
    }
    spec
}

/// `NodeShouldRunDaemonPod`: whether a daemon pod should run on `node` (its name, selector, affinity and taints
/// allow one), and whether one already there may go on running (its NoExecute taints are tolerated).
pub fn should_run(ds: &DaemonSet, node: &Node) -> (bool, bool) {
    let spec = &ds.spec.template.spec;
    let name = &node.metadata.name;
    if !spec.node_name.is_empty() && spec.node_name != *name {
        return (false, false);
    }
    let labels = &node.metadata.labels;
    let selected = spec.node_selector.iter().all(|(k, v)| labels.get(k) == Some(v))
        && spec.affinity.as_ref().is_none_or(|a| a.required_matches(labels, name));
    if !selected {
        return (false, false);
    }
    // The template's tolerations and the daemon ones (each `Exists` for its key and effect).
    let untolerated = |t: &&Taint| {
        !spec.tolerations.iter().any(|tol| tol.tolerates(t))
            && !DAEMON_TOLERATIONS.iter().any(|(key, effect)| *key == &*t.key && *effect == &*t.effect)
    };
    let taints = &node.spec.taints;
    if taints.iter().filter(|t| matches!(&*t.effect, "NoSchedule" | "NoExecute")).any(|t| untolerated(&t)) {
        let keeps = !taints.iter().filter(|t| &*t.effect == "NoExecute").any(|t| untolerated(&t));
        return (false, keeps);
    }
    (true, true)
}

/// The node a daemon pod is for (`GetTargetNodeName`): its `spec.nodeName` once bound, else the node its required
/// affinity names.
pub fn target_node(pod: &Pod) -> Option<&Str> {
    if !pod.spec.node_name.is_empty() {
        return Some(&pod.spec.node_name);
    }
    let terms =
        &pod.spec.affinity.as_ref()?.node_affinity.as_ref()?.required_during_scheduling_ignored_during_execution;
    let term = terms.as_ref()?.node_selector_terms.first()?;
    let field = term.match_fields.iter().find(|f| &*f.key == crate::api::affinity::NODE_FIELD_SELECTOR_KEY)?;
    (&*field.operator == "In").then(|| field.values.first()).flatten()
}

/// Whether a pod is of the DaemonSet's current template (`IsPodUpdated`): its template generation, or its
/// revision's hash.
fn is_updated(pod: &Pod, hash: &str, generation: Option<i64>) -> bool {
    let labels = &pod.metadata.labels;
    let by_generation = generation
        .is_some_and(|g| labels.get(POD_TEMPLATE_GENERATION_LABEL).is_some_and(|v| v.parse::<i64>().ok() == Some(g)));
    by_generation || labels.get(CONTROLLER_REVISION_HASH_LABEL).is_some_and(|v| &**v == hash)
}

/// The pod the DaemonSet makes for `node` (`CreatePodTemplate`, then the node's affinity): its template's labels
/// with the revision hash and template generation, the daemon tolerations, and required affinity to the node.
pub(crate) fn pod_for_node(ds: &DaemonSet, hash: &str, node: &str) -> Pod {
    let t = &ds.spec.template;
    let mut pod = Pod::default();
    pod.metadata.generate_name = s(&format!("{}-", ds.metadata.name));
    pod.metadata.namespace = ds.metadata.namespace.clone();
    pod.metadata.labels = t.metadata.labels.clone();
    if let Some(g) = ds.template_generation() {
        pod.metadata.labels.insert(s(POD_TEMPLATE_GENERATION_LABEL), s(&g.to_string()));
    }
    pod.metadata.labels.insert(s(CONTROLLER_REVISION_HASH_LABEL), s(hash));
    pod.metadata.annotations = t.metadata.annotations.clone();
    pod.metadata.owner_references.push(OwnerReference::controller(Kind::DaemonSet, &ds.metadata));
    let mut spec = daemon_pod_spec(&t.spec);
    spec.affinity = Some(Box::new(Affinity::for_node(spec.affinity.as_deref(), node)));
    pod.spec = Rc::new(spec);
    pod
}

fn ds_key(ds: &DaemonSet) -> ObjKey {
    ObjKey { namespace: ds.metadata.namespace.clone(), name: ds.metadata.name.clone() }
}

impl DaemonSetController {
    /// Marks `node` for the DaemonSet's next sync and asks for one.
    fn touch(&mut self, key: ObjKey, node: &Str, out: &mut Enqueue) {
        if let Some(t) = self.tracked.get_mut(&key) {
            t.touch(node);
        }
        out.push((key, 0));
    }

    /// The DaemonSets whose answer to [`should_run`] differs between two versions of a node (all for a new one).
    fn node_changed(&mut self, old: Option<&Node>, new: &Node, caches: Caches<'_>, out: &mut Enqueue) {
        for o in caches.of(Kind::DaemonSet).list() {
            let Some(ds) = o.as_daemonset() else { continue };
            let now = should_run(ds, new);
            if old.is_none_or(|old| should_run(ds, old) != now) && (old.is_some() || now.0) {
                self.touch(ds_key(ds), &new.metadata.name, out);
            }
        }
    }

    /// A pod of a DaemonSet changed: its node is looked at again, and the pods not yet bound are kept.
    fn pod_changed(&mut self, pod: &Object, gone: bool, caches: Caches<'_>, out: &mut Enqueue) -> Option<ObjKey> {
        let ds = resolve_controller_ref(pod, Kind::DaemonSet, caches.of(Kind::DaemonSet))?;
        let key = ds.key();
        let p = pod.as_pod()?;
        let target = target_node(p).cloned();
        if let Some(t) = self.tracked.get_mut(&key) {
            let pod_key = pod.key();
            t.unbound.retain(|(k, _)| *k != pod_key);
            if let Some(node) = target.as_ref().filter(|_| !gone && p.spec.node_name.is_empty()) {
                t.unbound.push((pod_key, node.clone()));
            }
        }
        match &target {
            Some(node) => self.touch(key.clone(), node, out),
            // For no node (not one this controller made): no node's part changes.
            None => out.push((key.clone(), 0)),
        }
        Some(key)
    }
}

impl Reconciler for DaemonSetController {
    fn name(&self) -> &'static str {
        "daemonset"
    }

    fn component(&self) -> &'static str {
        "daemonset-controller"
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::DaemonSet, Kind::Pod, Kind::Node]
    }

    fn retained(&self) -> usize {
        self.expectations.len() + self.failed.len() + self.tracked.iter().map(|(_, t)| t.retained()).sum::<usize>()
    }

    fn reset(&mut self) {
        self.expectations.clear();
        self.failed.clear();
        self.tracked.clear();
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match (obj.kind(), ev) {
            (Kind::DaemonSet, InformerEvent::Delete(..)) => {
                let key = obj.key();
                self.expectations.delete(&key);
                self.tracked.remove(&key);
                self.failed.retain(|(k, _), _| *k != key);
            }
            (Kind::DaemonSet, _) => out.push((obj.key(), 0)),
            (Kind::Node, InformerEvent::Add(n)) => {
                if let Some(n) = n.as_node() {
                    self.node_changed(None, n, caches, out);
                }
            }
            (Kind::Node, InformerEvent::Update(old, new)) => {
                // shouldIgnoreNodeUpdate: only what decides where daemon pods run (labels, taints, spec).
                if let (Some(o), Some(n)) = (old.as_node(), new.as_node()) {
                    if o.metadata.labels != n.metadata.labels || o.spec != n.spec {
                        self.node_changed(Some(o), n, caches, out);
                    }
                }
            }
            (Kind::Node, InformerEvent::Delete(n, _)) => {
                let name = &n.meta().name;
                self.failed.retain(|(_, node), _| node != name);
                for o in caches.of(Kind::DaemonSet).list() {
                    self.touch(o.key(), name, out);
                }
            }
            (Kind::Pod, InformerEvent::Add(pod)) => {
                let Some(key) = self.pod_changed(pod, false, caches, out) else { return };
                if pod.meta().is_terminating() {
                    self.expectations.deletion_observed(&key, &pod.key());
                } else {
                    self.expectations.creation_observed(&key);
                }
            }
            (Kind::Pod, InformerEvent::Update(old, new)) => {
                if old.meta().resource_version == new.meta().resource_version {
                    return;
                }
                let Some(key) = self.pod_changed(new, false, caches, out) else {
                    // No longer a DaemonSet's (released): its former owner looks again.
                    self.pod_changed(old, true, caches, out);
                    return;
                };
                if new.meta().is_terminating() && !old.meta().is_terminating() {
                    self.expectations.deletion_observed(&key, &new.key());
                }
                // Became ready: look again once it has been ready for minReadySeconds.
                let ds = caches.of(Kind::DaemonSet).get(&key).and_then(|o| o.as_daemonset());
                let min_ready = ds.map_or(0, |d| d.spec.min_ready_seconds);
                let (was, is) = (old.as_pod().is_some_and(Pod::is_ready), new.as_pod().is_some_and(Pod::is_ready));
                if !was && is && min_ready > 0 {
                    out.push((key, crate::time::seconds(min_ready.into())));
                }
            }
            (Kind::Pod, InformerEvent::Delete(pod, _)) => {
                let Some(key) = self.pod_changed(pod, true, caches, out) else { return };
                self.expectations.deletion_observed(&key, &pod.key());
            }
            _ => {}
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(ds) = cx.caches.of(Kind::DaemonSet).get(key).and_then(|o| o.as_daemonset()).cloned() else {
            self.expectations.delete(key);
            self.tracked.remove(key);
            return Ok(ReconcileAction::Done);
        };
        if ds.metadata.is_terminating() {
            return Ok(ReconcileAction::Done);
        }
        let hash = super::templatehash::compute_hash(&ds.spec.template, ds.status.collision_count);
        let mut t = self.tracked.remove(key).unwrap_or_else(Tracked::walk_all);
        if t.generation != ds.metadata.generation || *t.hash != *hash {
            t = Tracked { generation: ds.metadata.generation, hash: s(&hash), ..Tracked::walk_all() };
        }
        let walked = t.all;
        // The nodes looked at, and the DaemonSet's pods on them.
        let (names, by_node) = if walked {
            let names: Vec<Str> = cx.caches.of(Kind::Node).list().iter().map(|o| o.meta().name.clone()).collect();
            let by_node = pods_by_node(&ds, cx.caches);
            t.unbound = unbound_of(&by_node);
            (names, by_node)
        } else {
            let by_node = pods_on(&ds, &t.dirty, &t.unbound, cx.caches);
            (t.dirty.clone(), by_node)
        };
        let node_objs: Vec<Rc<Object>> =
            names.iter().filter_map(|n| cx.caches.of(Kind::Node).get(&ObjKey::cluster(n)).cloned()).collect();
        let mut requeue = None;
        let mut result = Ok(());
        let managed = self.expectations.satisfied(key, cx.now);
        let mut unfinished = false;
        if managed {
            let (delete, create, again) = self.manage(&ds, &node_objs, &by_node, cx);
            requeue = again;
            // Past the burst, or after an error, what manage found to do is found again by a walk.
            unfinished = create.len() > BURST_REPLICAS || delete.len() > BURST_REPLICAS;
            result = self.sync_nodes(&ds, &hash, &delete, &create, cx);
            unfinished |= result.is_err();
            // The rolling update only once what manage did has been observed (upstream checks the expectations
            // again), and only while some node has a pod of an older template: it walks every node.
            let old = t.totals.old > 0 || (walked && by_node.iter().any(|(_, p)| has_old(p, &hash, &ds)));
            if result.is_ok() && ds.rolling() && old && self.expectations.satisfied(key, cx.now) {
                let all: Vec<Rc<Object>> = cx.caches.of(Kind::Node).list().into_iter().cloned().collect();
                let every = if walked { by_node.clone() } else { pods_by_node(&ds, cx.caches) };
                let (delete, create) = rolling_update(&ds, &hash, &all, &every, cx.now);
                result = self.sync_nodes(&ds, &hash, &delete, &create, cx);
            }
        }
        // Each node looked at gets its part of the status; a node gone has none.
        for name in &names {
            let node = node_objs.iter().filter_map(|o| o.as_node()).find(|n| n.metadata.name == *name);
            let pods = by_node.get(name).map_or(&[][..], Vec::as_slice);
            t.set_part(name, node.map(|n| part_of(&ds, n, pods, &hash, cx.now)));
        }
        if walked {
            t.parts.retain(|n, _| names.binary_search(n).is_ok());
            t.totals = t.parts.iter().fold(Part::default(), |mut sum, (_, p)| {
                sum.add(p, 1);
                sum
            });
        }
        // A walk manage did not make (its expectations pending) is made again; a failed pod's back-off looks at
        // every node when it ends; nodes manage did not look at stay dirty.
        t.all = (walked && !managed) || unfinished || requeue.is_some();
        let status = status_of(&ds, &t.totals);
        #[cfg(debug_assertions)]
        check_tracked(&ds, &hash, &t, cx);
        // Ready pods not yet available: look again, at every node, once minReadySeconds have passed.
        if ds.spec.min_ready_seconds > 0 && status.number_ready != status.number_available {
            let after = crate::time::seconds(ds.spec.min_ready_seconds.into());
            requeue = Some(requeue.map_or(after, |r| r.min(after)));
            t.all = true;
        }
        if managed || t.all {
            t.dirty.clear();
        }
        self.tracked.insert(key.clone(), t);
        result?;
        update_status(&ds, status, cx)?;
        Ok(match requeue {
            Some(after) => ReconcileAction::RequeueAfter(after),
            None => ReconcileAction::Done,
        })
    }
}

/// Debug builds: the parts kept are what a walk of every node finds now ([`Tracked`]'s invariant).
#[cfg(debug_assertions)]
fn check_tracked(ds: &DaemonSet, hash: &str, t: &Tracked, cx: &Ctx<'_, '_>) {
    // Not the controller's work: its reads are not counted.
    let (pods, nodes) = (cx.caches.of(Kind::Pod), cx.caches.of(Kind::Node));
    let visited = (pods.visited(), nodes.visited());
    check_parts(ds, hash, t, cx);
    pods.rewind_visits(visited.0);
    nodes.rewind_visits(visited.1);
}

#[cfg(debug_assertions)]
fn check_parts(ds: &DaemonSet, hash: &str, t: &Tracked, cx: &Ctx<'_, '_>) {
    let by_node = pods_by_node(ds, cx.caches);
    let mut sum = Part::default();
    for node in cx.caches.of(Kind::Node).list().iter().filter_map(|o| o.as_node()) {
        let pods = by_node.get(&node.metadata.name).map_or(&[][..], Vec::as_slice);
        sum.add(&part_of(ds, node, pods, hash, cx.now), 1);
    }
    if !t.all {
        assert_eq!(sum, t.totals, "the daemon controller's parts of {} drifted from a walk", ds.metadata.name);
    }
    let mut unbound = unbound_of(&by_node);
    let mut kept = t.unbound.clone();
    unbound.sort();
    kept.sort();
    assert_eq!(unbound, kept, "the daemon controller's unbound pods of {}", ds.metadata.name);
}

/// The pods of `by_node` not yet bound, each with the node it is for.
fn unbound_of(by_node: &VecMap<Str, Vec<Rc<Object>>>) -> Vec<(ObjKey, Str)> {
    let mut out = Vec::new();
    for (node, pods) in by_node.iter() {
        for p in pods.iter().filter(|p| p.as_pod().is_some_and(|p| p.spec.node_name.is_empty())) {
            out.push((p.key(), node.clone()));
        }
    }
    out
}

/// Whether a node's pods include one (not terminating) of an older template.
fn has_old(pods: &[Rc<Object>], hash: &str, ds: &DaemonSet) -> bool {
    let generation = ds.template_generation();
    pods.iter().filter_map(|o| o.as_pod()).any(|p| !p.metadata.is_terminating() && !is_updated(p, hash, generation))
}

/// The DaemonSet's pods on the nodes `names` (as [`pods_by_node`] finds them): those bound to each, through the
/// cache's node index, and those still unbound that are for it.
fn pods_on(
    ds: &DaemonSet,
    names: &[Str],
    unbound: &[(ObjKey, Str)],
    caches: Caches<'_>,
) -> VecMap<Str, Vec<Rc<Object>>> {
    let cache = caches.of(Kind::Pod);
    let mut by_node: VecMap<Str, Vec<Rc<Object>>> = VecMap::new();
    for name in names {
        let bound = cache.by_node(name).filter(|o| controller_of(o.meta()).is_some_and(|r| r.uid == ds.metadata.uid));
        let waiting = unbound.iter().filter(|(_, n)| n == name).filter_map(|(k, _)| cache.get(k));
        for p in bound.chain(waiting) {
            if counts(ds, p) {
                by_node.or_default(name.clone()).push(p.clone());
            }
        }
    }
    by_node
}

/// Whether a pod of the DaemonSet counts for its node: its selector matches it, and it is not a finished pod
/// already being deleted.
fn counts(ds: &DaemonSet, p: &Object) -> bool {
    p.as_pod().is_some_and(|pod| {
        ds.spec.selector.matches(&pod.metadata.labels)
            && !(pod.status.phase.is_terminal() && pod.metadata.is_terminating())
    })
}

/// The DaemonSet's pods (`getNodesToDaemonPods`: owned and matching its selector, not finished and deleted) by
/// the node they are for, in the cache's order; pods for no node are left out.
fn pods_by_node(ds: &DaemonSet, caches: Caches<'_>) -> VecMap<Str, Vec<Rc<Object>>> {
    let mut by_node: VecMap<Str, Vec<Rc<Object>>> = VecMap::new();
    for p in caches.of(Kind::Pod).by_owner(&ds.metadata.uid) {
        let Some(pod) = p.as_pod().filter(|_| counts(ds, p)) else { continue };
        if let Some(node) = target_node(pod) {
            by_node.or_default(node.clone()).push(p.clone());
        }
    }
    by_node
}

/// `podByCreationTimestampAndPhase`: scheduled pods first, then the oldest (creation times in whole seconds, as
/// the API keeps them), then by name.
fn oldest_first(pods: &mut [Rc<Object>]) {
    let rank = |o: &Rc<Object>| {
        let unscheduled = o.as_pod().is_none_or(|p| p.spec.node_name.is_empty());
        (unscheduled, o.meta().creation_timestamp.map(|t| t.0 / SECOND).unwrap_or(0))
    };
    crate::sort::sort_by(pods, |a, b| rank(a).cmp(&rank(b)).then_with(|| a.meta().name.cmp(&b.meta().name)));
}

impl DaemonSetController {
    /// `manage` with `podsShouldBeOnNode` for every node: the nodes that need a daemon pod, the pods to delete
    /// (on nodes that should not run one, failed ones after their back-off, more than one on a node), and when to
    /// look again for a failed pod still in its back-off.
    fn manage(
        &mut self,
        ds: &DaemonSet,
        nodes: &[Rc<Object>],
        by_node: &VecMap<Str, Vec<Rc<Object>>>,
        cx: &mut Ctx<'_, '_>,
    ) -> (Vec<ObjKey>, Vec<Str>, Option<Millis>) {
        let (mut delete, mut create, mut again) = (Vec::new(), Vec::new(), None::<Millis>);
        let surge = ds.rolling() && max_surge_allowed(ds);
        let key = ds_key(ds);
        let ds_obj = Object::DaemonSet(ds.clone());
        for node in nodes.iter().filter_map(|o| o.as_node()) {
            let name = &node.metadata.name;
            let pods = by_node.get(name).map(Vec::as_slice).unwrap_or(&[]);
            let (run, keep) = should_run(ds, node);
            if run && pods.is_empty() {
                create.push(name.clone());
                continue;
            }
            if !keep {
                delete.extend(pods.iter().filter(|p| !p.meta().is_terminating()).map(|p| p.key()));
                continue;
            }
            let mut running = Vec::new();
            for p in pods.iter().filter(|p| !p.meta().is_terminating()) {
                let Some(pod) = p.as_pod() else { continue };
                match pod.status.phase {
                    PodPhase::Failed | PodPhase::Succeeded => {
                        let slot = self.failed.or_default((key.clone(), name.clone()));
                        let (delay, since) = *slot;
                        if delay > 0 && cx.now < since.saturating_add(delay) {
                            let left = since.saturating_add(delay) - cx.now;
                            again = Some(again.map_or(left, |a| a.min(left)));
                            continue;
                        }
                        *slot = (
                            if delay == 0 { FAILED_POD_BACKOFF.initial } else { FAILED_POD_BACKOFF.after(delay) },
                            cx.now,
                        );
                        if pod.status.phase == PodPhase::Failed {
                            let msg = format!(
                                "Found failed daemon pod {}/{} on node {name}, will try to kill it",
                                pod.metadata.namespace, pod.metadata.name
                            );
                            cx.recorder.event(&mut cx.api, &ds_obj, EventKind::Warning, "FailedDaemonPod", &msg);
                        }
                        delete.push(p.key());
                    }
                    _ => running.push(p.clone()),
                }
            }
            if running.len() > 1 && !surge {
                // When surge is not allowed, only the oldest running pod stays.
                oldest_first(&mut running);
                delete.extend(running[1..].iter().map(|p| p.key()));
            }
        }
        (delete, create, again)
    }

    /// `syncNodes`: delete the pods, then create one pod per node in slow-start batches (1, 2, 4, ...), at most
    /// [`BURST_REPLICAS`] of each, guarded by expectations.
    fn sync_nodes(
        &mut self,
        ds: &DaemonSet,
        hash: &str,
        delete: &[ObjKey],
        create: &[Str],
        cx: &mut Ctx<'_, '_>,
    ) -> Result<(), String> {
        let key = ds_key(ds);
        let ds_obj = Object::DaemonSet(ds.clone());
        let create = &create[..create.len().min(BURST_REPLICAS)];
        let delete = &delete[..delete.len().min(BURST_REPLICAS)];
        if !create.is_empty() {
            self.expectations.expect_creations(&key, create.len(), cx.now);
        }
        if !delete.is_empty() {
            self.expectations.expect_deletions(&key, delete, cx.now);
        }
        let mut error: Option<String> = None;
        let (mut at, mut batch) = (0, 1);
        while at < create.len() && error.is_none() {
            let nodes = &create[at..(at + batch).min(create.len())];
            let results: Vec<_> = cx
                .api
                .parallel(|api| nodes.iter().map(|n| api.create(Object::Pod(pod_for_node(ds, hash, n)))).collect());
            for r in results {
                match r {
                    Ok(pod) => {
                        let msg = format!("Created pod: {}", pod.meta().name);
                        cx.recorder.event(&mut cx.api, &ds_obj, EventKind::Normal, "SuccessfulCreate", &msg);
                    }
                    Err(e) => {
                        self.expectations.creation_observed(&key);
                        let msg = format!("Error creating: {e}");
                        cx.recorder.event(&mut cx.api, &ds_obj, EventKind::Warning, "FailedCreate", &msg);
                        error.get_or_insert(e.to_string());
                    }
                }
            }
            at += nodes.len();
            batch *= 2;
        }
        for _ in at..create.len() {
            self.expectations.creation_observed(&key);
        }
        let results: Vec<_> = cx.api.parallel(|api| {
            delete.iter().map(|k| (k.clone(), api.delete(Kind::Pod, k, &DeleteOptions::default()))).collect()
        });
        for (k, r) in results {
            match r {
                Ok(_) => {
                    let msg = format!("Deleted pod: {}", k.name);
                    cx.recorder.event(&mut cx.api, &ds_obj, EventKind::Normal, "SuccessfulDelete", &msg);
                }
                Err(e) => {
                    self.expectations.deletion_observed(&key, &k);
                    if !e.is_not_found() {
                        let msg = format!("Error deleting: {e}");
                        cx.recorder.event(&mut cx.api, &ds_obj, EventKind::Warning, "FailedDelete", &msg);
                        error.get_or_insert(e.to_string());
                    }
                }
            }
        }
        error.map_or(Ok(()), Err)
    }
}

/// Whether the rolling update may surge (its resolved `maxSurge` is above 0 for some number of nodes).
fn max_surge_allowed(ds: &DaemonSet) -> bool {
    let (_, surge) = ds.rolling_params();
    !matches!(surge, crate::api::IntOrString::Int(0)) && surge.scaled_value(100, true).is_ok_and(|v| v > 0)
}

/// `updatedDesiredNodeCounts`: maxSurge and maxUnavailable resolved against the nodes that should run a pod
/// (percentages rounded up); both 0 make maxUnavailable 1.
fn desired_counts(ds: &DaemonSet, nodes: &[Rc<Object>]) -> (i32, i32) {
    let desired = nodes.iter().filter_map(|o| o.as_node()).filter(|n| should_run(ds, n).0).count();
    let desired = i32::try_from(desired).unwrap_or(i32::MAX);
    let (unavailable, surge) = ds.rolling_params();
    let surge = surge.scaled_value(desired, true).unwrap_or(0).max(0);
    let mut unavailable = unavailable.scaled_value(desired, true).unwrap_or(1).max(0);
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    (surge, unavailable)
}

/// `findUpdatedPodsOnNode`: the node's new pod and old pod (not terminating); `None` when it has two of one.
fn updated_and_old<'a>(
    pods: &'a [Rc<Object>],
    hash: &str,
    generation: Option<i64>,
) -> Option<(Option<&'a Pod>, Option<&'a Pod>)> {
    let (mut new, mut old) = (None, None);
    for p in pods.iter().filter_map(|o| o.as_pod()).filter(|p| !p.metadata.is_terminating()) {
        let slot = if is_updated(p, hash, generation) { &mut new } else { &mut old };
        if slot.is_some() {
            return None;
        }
        *slot = Some(p);
    }
    Some((new, old))
}

/// `rollingUpdate` (pkg/controller/daemon/update.go): old pods to delete and nodes to surge onto. Without surge,
/// unavailable old pods go at once and available ones while fewer than maxUnavailable pods are unavailable; with
/// surge, a new pod is made next to an old one (at once where the old one is unavailable, else within
/// maxSurge), and the old one goes once the new one is available. Nodes are taken in name order (upstream walks a
/// Go map, in no order).
fn rolling_update(
    ds: &DaemonSet,
    hash: &str,
    nodes: &[Rc<Object>],
    by_node: &VecMap<Str, Vec<Rc<Object>>>,
    now: Millis,
) -> (Vec<ObjKey>, Vec<Str>) {
    let (max_surge, max_unavailable) = desired_counts(ds, nodes);
    let generation = ds.template_generation();
    let min_ready = ds.spec.min_ready_seconds;
    let available = |p: &Pod| p.is_available(min_ready, now);
    let key = |p: &Pod| ObjKey { namespace: p.metadata.namespace.clone(), name: p.metadata.name.clone() };
    // The nodes in name order (the map's).
    let names: Vec<&Str> = by_node.iter().map(|(k, _)| k).collect();
    if max_surge == 0 {
        let (mut unavailable, mut replace, mut candidates) = (0, Vec::new(), Vec::new());
        for name in names {
            match updated_and_old(by_node.get(name).map_or(&[][..], Vec::as_slice), hash, generation) {
                None | Some((None, None)) | Some((Some(_), Some(_))) => unavailable += 1,
                Some((Some(new), None)) => unavailable += i32::from(!available(new)),
                Some((None, Some(old))) if !available(old) => replace.push(key(old)),
                Some((None, Some(_))) if unavailable >= max_unavailable => {}
                Some((None, Some(old))) => candidates.push(key(old)),
            }
        }
        let room = usize::try_from((max_unavailable - unavailable).max(0)).unwrap_or(0).min(candidates.len());
        replace.extend(candidates.into_iter().take(room));
        return (replace, Vec::new());
    }
    let (mut surged, mut delete, mut allowed, mut candidates) = (0, Vec::new(), Vec::new(), Vec::new());
    for name in names {
        let node = nodes.iter().filter_map(|o| o.as_node()).find(|n| &n.metadata.name == name);
        let Some(node) = node else { continue };
        match updated_and_old(by_node.get(name).map_or(&[][..], Vec::as_slice), hash, generation) {
            Some((None, Some(old))) if should_run(ds, node).0 => {
                if !available(old) {
                    allowed.push(name.clone());
                } else if surged < max_surge {
                    candidates.push(name.clone());
                }
            }
            Some((Some(new), Some(old))) => {
                if available(new) {
                    delete.push(key(old));
                } else {
                    surged += 1;
                }
            }
            _ => {}
        }
    }
    let room = usize::try_from((max_surge - surged).max(0)).unwrap_or(0).min(candidates.len());
    allowed.extend(candidates.into_iter().take(room));
    (delete, allowed)
}

/// One node's part of `updateDaemonSetStatus`'s figures: whether it should run a pod, has one (made for it), has
/// one and should not; of its oldest pod if it should: ready, available, updated.
fn part_of(ds: &DaemonSet, node: &Node, pods: &[Rc<Object>], hash: &str, now: Millis) -> Part {
    let (run, _) = should_run(ds, node);
    let mut part = Part { old: i32::from(has_old(pods, hash, ds)), ..Part::default() };
    match (run, pods.is_empty()) {
        (true, true) => part.desired = 1,
        (true, false) => {
            part.desired = 1;
            part.scheduled = 1;
            let mut pods = pods.to_vec();
            oldest_first(&mut pods);
            let Some(pod) = pods.first().and_then(|o| o.as_pod()) else { return part };
            if pod.is_ready() {
                part.ready = 1;
                part.available = i32::from(pod.is_available(ds.spec.min_ready_seconds, now));
            }
            part.updated = i32::from(is_updated(pod, hash, ds.template_generation()));
        }
        (false, false) => part.misscheduled = 1,
        (false, true) => {}
    }
    part
}

/// The status the nodes' parts sum to.
fn status_of(ds: &DaemonSet, totals: &Part) -> DaemonSetStatus {
    DaemonSetStatus {
        observed_generation: ds.metadata.generation,
        collision_count: ds.status.collision_count,
        desired_number_scheduled: totals.desired,
        current_number_scheduled: totals.scheduled,
        number_misscheduled: totals.misscheduled,
        number_ready: totals.ready,
        number_available: totals.available,
        updated_number_scheduled: totals.updated,
        number_unavailable: (totals.desired - totals.available).max(0),
    }
}

/// `storeDaemonSetStatus`: write status if it changed; on a conflict, GET the latest and try once more.
fn update_status(ds: &DaemonSet, status: DaemonSetStatus, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
    if ds.status == status {
        return Ok(());
    }
    let mut next = ds.clone();
    next.status = status.clone();
    match cx.api.update_status(Object::DaemonSet(next)) {
        Ok(_) => Ok(()),
        Err(e) if e.is_conflict() => {
            let fresh = cx.api.get(Kind::DaemonSet, &ds_key(ds)).map_err(|e| e.to_string())?;
            let mut next = fresh.as_daemonset().cloned().ok_or("not a daemonset")?;
            next.status = status;
            cx.api.update_status(Object::DaemonSet(next)).map(|_| ()).map_err(|e| e.to_string())
        }
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}
