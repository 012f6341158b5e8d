//! The ReplicaSet controller (pkg/controller/replicaset): keeps `spec.replicas` active pods matching the selector.
//! Observe (pods from the cache, adopting orphans), diff (active - desired), act (create in slow-start batches or
//! delete the lowest-ranked pods), guarded by expectations; then write status.

use std::cmp::Ordering;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::expectations::Expectations;
use super::resolve_controller_ref;
use crate::api::{
    s, Kind, ObjKey, Object, OwnerReference, Pod, PodPhase, ReplicaSet, ReplicaSetCondition, ReplicaSetStatus, Str,
    Time,
};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::{InformerEvent, PodGroup};
use crate::recorder::EventKind;
use crate::store::{DeleteOptions, Subresource};
use crate::time::Millis;

/// `BurstReplicas`: at most this many creates or deletes per sync.
pub const BURST_REPLICAS: usize = 500;
/// `SlowStartInitialBatchSize`.
pub const SLOW_START_INITIAL_BATCH: usize = 1;
/// The annotation that orders scale-down (`controller.kubernetes.io/pod-deletion-cost`).
pub const POD_DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

#[derive(Clone, Default)]
pub struct ReplicaSetController {
    pub(crate) expectations: Expectations,
    workers: usize,
    /// Edge mode: numbers the delta work items so each is its own queue key.
    edge_seq: u64,
    /// Edge mode: pods this controller deleted itself (their deletion is not a reason to create one).
    edge_deleted: FxHashSet<Str>,
    /// Edge mode: pods whose deletion already caused a replacement (seen terminating before gone).
    edge_replaced: FxHashSet<Str>,
}

impl ReplicaSetController {
    pub fn new(workers: usize) -> Self {
        ReplicaSetController { workers, ..Default::default() }
    }
}

/// A unit of edge-triggered work: one pod more (+1) or less (-1) for a ReplicaSet, or a status refresh (0); `seq`
/// numbers a delta (0 for a refresh). Observers read the queue's keys with [`parse_edge_key`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeWork {
    pub rs: ObjKey,
    pub delta: i8,
    pub seq: u64,
}

/// Edge work as a queue key: `NAME+1#7` and `NAME-1#8` (numbered, so two deltas never collapse into one, as
/// keys of a level-triggered queue do) and `NAME+0` (a status refresh, which may collapse). Object names
/// cannot contain `+` or `#`.
fn edge_key(rs: &ObjKey, delta: i8, seq: u64) -> ObjKey {
    let name = match delta {
        0 => format!("{}+0", rs.name),
        d if d > 0 => format!("{}+1#{seq}", rs.name),
        _ => format!("{}-1#{seq}", rs.name),
    };
    ObjKey::new(&rs.namespace, &name)
}

/// The edge work a queue key stands for (`None`: a plain key, as level mode queues).
pub fn parse_edge_key(key: &ObjKey) -> Option<EdgeWork> {
    let (base, seq) = match key.name.split_once('#') {
        Some((b, n)) => (b, n.parse().ok()?),
        None => (&*key.name, 0),
    };
    let (name, delta) = if let Some(n) = base.strip_suffix("+0") {
        (n, 0)
    } else if let Some(n) = base.strip_suffix("+1") {
        (n, 1)
    } else if let Some(n) = base.strip_suffix("-1") {
        if !key.name.contains('#') {
            return None; // a plain name ending in -1
        }
        (n, -1)
    } else {
        return None;
    };
    if delta != 0 && !key.name.contains('#') {
        return None;
    }
    Some(EdgeWork { rs: ObjKey::new(&key.namespace, name), delta, seq })
}

/// The pod a ReplicaSet creates from its template (`GetPodFromTemplate`).
pub(crate) fn pod_from_template(rs: &ReplicaSet) -> Pod {
    let mut pod = Pod::default();
    let t = &rs.spec.template;
    pod.metadata.generate_name = s(&format!("{}-", rs.metadata.name));
    pod.metadata.namespace = rs.metadata.namespace.clone();
    pod.metadata.labels = t.metadata.labels.clone();
    pod.metadata.annotations = t.metadata.annotations.clone();
    pod.metadata.owner_references.push(OwnerReference::controller(Kind::ReplicaSet, &rs.metadata));
    pod.spec = t.spec.clone();
    pod
}

/// A time as the controllers see it: `metav1.Time` travels in whole seconds (RFC 3339), so two pods created or
/// ready within the same second compare equal upstream.
fn api_seconds(t: Option<crate::api::Time>) -> Option<Millis> {
    t.map(|t| t.0 / crate::time::SECOND * crate::time::SECOND)
}

/// `logarithmicRankDiff`'s rank of one timestamp: `int64(math.Log2(float64(now - t)))` on the duration in
/// nanoseconds, or -1 when `t` is not in the past. The floor of the base-2 logarithm of the (rounded) float is
/// read from its exponent bits, which needs no libm and gives the same answer on every platform (Go's `Log2`
/// agrees except for floats within a few ulps below a power of two).
fn log_rank(t: Millis, now: Millis) -> i64 {
    if now <= t {
        return -1;
    }
    let ns = (now - t).saturating_mul(1_000_000).min(i64::MAX as u64) as f64; // a Duration saturates
    ((ns.to_bits() >> 52) & 0x7ff) as i64 - 1023
}

/// Steps 6 and 8 of `Less` for two differing timestamps (`None`: the zero time): with LogarithmicScaleDown (GA
/// since 1.31), the pod whose age falls in the lower power-of-two bucket first, and within one bucket the lower
/// UID (a pseudo-random order); a zero time first (`afterOrZero`).
fn compare_times(a: (&Pod, Option<Millis>), b: (&Pod, Option<Millis>), now: Millis) -> Ordering {
    match (a.1, b.1) {
        (None, _) => Ordering::Less,
        (_, None) => Ordering::Greater,
        (Some(x), Some(y)) => match log_rank(x, now).cmp(&log_rank(y, now)) {
            Ordering::Equal => a.0.metadata.uid.cmp(&b.0.metadata.uid),
            o => o,
        },
    }
}

/// `maxContainerRestarts`: the most restarts of any one container.
fn max_restarts(p: &Pod) -> i32 {
    p.status.container_statuses.iter().map(|c| c.restart_count).max().unwrap_or(0)
}

/// `ActivePodsWithRanks.Less` (pkg/controller/controller_utils.go): the order in which pods are deleted on
/// scale-down (first = deleted first). `rank_a`/`rank_b` are the pods' ranks: how many related pods (of every
/// ReplicaSet of the same Deployment) are active on their node; `now` is the reference time of the logarithmic
/// age comparison.
pub(crate) fn deletion_order(a: &Pod, rank_a: usize, b: &Pod, rank_b: usize, now: Millis) -> Ordering {
    // 1. unassigned < assigned
    let assigned = |p: &Pod| !p.spec.node_name.is_empty();
    if assigned(a) != assigned(b) {
        return assigned(a).cmp(&assigned(b));
    }
    // 2. Pending < Unknown < Running
    let phase = |p: &Pod| match p.status.phase {
        PodPhase::Pending => 0,
        PodPhase::Unknown => 1,
        PodPhase::Running => 2,
        _ => 0,
    };
    if phase(a) != phase(b) {
        return phase(a).cmp(&phase(b));
    }
    // 3. not ready < ready
    if a.is_ready() != b.is_ready() {
        return a.is_ready().cmp(&b.is_ready());
    }
    // 4. lower pod-deletion-cost first
    let cost = |p: &Pod| p.metadata.annotation(POD_DELETION_COST).and_then(|c| c.parse::<i32>().ok()).unwrap_or(0);
    if cost(a) != cost(b) {
        return cost(a).cmp(&cost(b));
    }
    // 5. doubled up: more related pods on the same node first
    if rank_a != rank_b {
        return rank_b.cmp(&rank_a);
    }
    // 6. ready for less time first (logarithmic buckets, then UID; a zero ready time first)
    if a.is_ready() && b.is_ready() {
        let since = |p: &Pod| api_seconds(p.condition("Ready").and_then(|c| c.last_transition_time));
        let (x, y) = (since(a), since(b));
        if x != y {
            return compare_times((a, x), (b, y), now);
        }
    }
    // 7. more restarts first
    if max_restarts(a) != max_restarts(b) {
        return max_restarts(b).cmp(&max_restarts(a));
    }
    // 8. newer first (logarithmic buckets, then UID; a zero creation time first)
    let (x, y) = (api_seconds(a.metadata.creation_timestamp), api_seconds(b.metadata.creation_timestamp));
    if x != y {
        return compare_times((a, x), (b, y), now);
    }
    // Equal for upstream (its sort is not stable either); kubeloop orders by name so that runs replay.
    a.metadata.name.cmp(&b.metadata.name)
}

fn enqueue_owner(pod: &Object, caches: Caches<'_>, out: &mut Enqueue) -> Option<ObjKey> {
    let rs = resolve_controller_ref(pod, Kind::ReplicaSet, caches.of(Kind::ReplicaSet))?;
    let key = rs.key();
    out.push((key.clone(), 0));
    Some(key)
}

/// ReplicaSets in the pod's namespace whose selector matches it (for orphans).
fn matching_replicasets(pod: &Object, caches: Caches<'_>) -> Vec<ObjKey> {
    // Only orphans get here; ReplicaSets are few next to pods, so a namespace walk is fine.
    caches
        .of(Kind::ReplicaSet)
        .by_namespace(&pod.meta().namespace)
        .filter(|o| {
            o.as_replicaset()
                .is_some_and(|rs| !rs.spec.selector.is_empty() && rs.spec.selector.matches(&pod.meta().labels))
        })
        .map(|o| o.key())
        .collect()
}

impl Reconciler for ReplicaSetController {
    fn name(&self) -> &'static str {
        "replicaset"
    }

    fn retained(&self) -> usize {
        self.expectations.len() + self.edge_deleted.len() + self.edge_replaced.len()
    }

    fn component(&self) -> &'static str {
        "replicaset-controller"
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::ReplicaSet, Kind::Pod]
    }

    fn reset(&mut self) {
        self.expectations.clear();
        self.edge_deleted.clear();
        self.edge_replaced.clear();
    }

    fn supports_edge(&self) -> bool {
        true
    }

    /// Edge-triggered: only the delta of each notification. A ReplicaSet created with N replicas: N creates; its
    /// replicas changed by d: d creates or deletes; a pod of it deleted by someone else: one create. Nothing
    /// looks at how many pods there actually are.
    fn handle_edge(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        let mut push = |this: &mut Self, rs: &ObjKey, delta: i64| {
            if delta == 0 {
                out.push((edge_key(rs, 0, 0), 0));
            }
            for _ in 0..delta.unsigned_abs().min(BURST_REPLICAS as u64) {
                this.edge_seq += 1;
                out.push((edge_key(rs, delta.signum() as i8, this.edge_seq), 0));
            }
        };
        match (obj.kind(), ev) {
            (Kind::ReplicaSet, InformerEvent::Add(o)) => {
                if let Some(rs) = o.as_replicaset().filter(|r| !r.metadata.is_terminating()) {
                    push(self, &rs_key(rs), rs.replicas() as i64);
                }
            }
            (Kind::ReplicaSet, InformerEvent::Update(old, new)) => {
                if let (Some(o), Some(n)) = (old.as_replicaset(), new.as_replicaset()) {
                    let d = n.replicas() as i64 - o.replicas() as i64;
                    if d != 0 && !n.metadata.is_terminating() {
                        push(self, &rs_key(n), d);
                    }
                }
            }
            (Kind::Pod, _) => {
                let Some(rs) = resolve_controller_ref(obj, Kind::ReplicaSet, caches.of(Kind::ReplicaSet)) else {
                    return;
                };
                let rs = rs.key();
                let uid = obj.meta().uid.clone();
                let replace = match ev {
                    InformerEvent::Update(old, new) => {
                        new.meta().is_terminating()
                            && !old.meta().is_terminating()
                            && !self.edge_deleted.contains(&uid)
                            && self.edge_replaced.insert(uid.clone())
                    }
                    InformerEvent::Delete(pod, _) => {
                        let ours = self.edge_deleted.remove(&uid);
                        let replaced = self.edge_replaced.remove(&uid);
                        !ours && !replaced && pod.as_pod().is_some_and(|p| !p.status.phase.is_terminal())
                    }
                    InformerEvent::Add(_) => false,
                };
                push(self, &rs, i64::from(replace));
            }
            _ => {}
        }
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match obj.kind() {
            Kind::ReplicaSet => {
                if let InformerEvent::Delete(..) = ev {
                    self.expectations.delete(&obj.key());
                }
                out.push((obj.key(), 0));
            }
            Kind::Pod => match ev {
                InformerEvent::Add(pod) => {
                    if pod.meta().is_terminating() {
                        if let Some(k) = enqueue_owner(pod, caches, out) {
                            self.expectations.deletion_observed(&k, &pod.key());
                        }
                    } else if let Some(k) = enqueue_owner(pod, caches, out) {
                        self.expectations.creation_observed(&k);
                    } else if crate::api::controller_of(pod.meta()).is_none() {
                        out.extend(matching_replicasets(pod, caches).into_iter().map(|k| (k, 0)));
                    }
                }
                InformerEvent::Update(old, new) => {
                    // A periodic resync re-sends pods unchanged: two versions of a pod always differ in
                    // resourceVersion, so there is nothing to do (updatePod).
                    if old.meta().resource_version == new.meta().resource_version {
                        return;
                    }
                    let owner = enqueue_owner(new, caches, out);
                    if new.meta().is_terminating() && !old.meta().is_terminating() {
                        if let Some(k) = &owner {
                            self.expectations.deletion_observed(k, &new.key());
                        }
                    }
                    let old_ref = crate::api::controller_of(old.meta()).map(|r| r.uid.clone());
                    let new_ref = crate::api::controller_of(new.meta()).map(|r| r.uid.clone());
                    if old_ref != new_ref {
                        enqueue_owner(old, caches, out);
                    }
                    if owner.is_none() && new_ref.is_none() && old.meta().labels != new.meta().labels {
                        out.extend(matching_replicasets(new, caches).into_iter().map(|k| (k, 0)));
                    }
                    // Became ready: look again once it has been ready for minReadySeconds.
                    let (was, is) = (old.as_pod().is_some_and(Pod::is_ready), new.as_pod().is_some_and(Pod::is_ready));
                    if !was && is {
                        if let Some(rs) = resolve_controller_ref(new, Kind::ReplicaSet, caches.of(Kind::ReplicaSet))
                            .and_then(|o| o.as_replicaset())
                        {
                            if rs.spec.min_ready_seconds > 0 {
                                out.push((rs_key(rs), crate::time::seconds(rs.spec.min_ready_seconds.into())));
                            }
                        }
                    }
                }
                InformerEvent::Delete(pod, _) => {
                    if let Some(k) = enqueue_owner(pod, caches, out) {
                        self.expectations.deletion_observed(&k, &pod.key());
                    }
                }
            },
            _ => {}
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        if let Some(work) = parse_edge_key(key) {
            return self.reconcile_edge(&work, cx);
        }
        let Some(rs) = cx.caches.of(Kind::ReplicaSet).get(key).and_then(|o| o.as_replicaset()).cloned() else {
            self.expectations.delete(key);
            return Ok(ReconcileAction::Done);
        };
        let needs_sync = self.expectations.satisfied(key, cx.now) && !rs.metadata.is_terminating();
        let claimed = claim_pods(&rs, cx);
        let manage = if needs_sync { self.manage_replicas(&rs, &claimed, cx) } else { Ok(()) };
        let counts = claimed.counts(&rs, cx.now);
        let status = calculate_status(&rs, &counts, manage.as_ref().err(), cx.now);
        let updated = update_status(&rs, status, cx)?;
        manage?;
        let r = updated.as_ref().unwrap_or(&rs);
        if r.spec.min_ready_seconds > 0
            && r.status.ready_replicas == r.replicas()
            && r.status.available_replicas != r.replicas()
        {
            return Ok(ReconcileAction::RequeueAfter(crate::time::seconds(r.spec.min_ready_seconds.into())));
        }
        Ok(ReconcileAction::Done)
    }
}

fn rs_key(rs: &ReplicaSet) -> ObjKey {
    ObjKey { namespace: rs.metadata.namespace.clone(), name: rs.metadata.name.clone() }
}

/// The pods a sync claimed (`ClaimPods`): the groups of its own pods that its selector matches, as the pod
/// cache counts them, and the orphans it adopted.
struct Claimed<'a> {
    groups: Vec<&'a PodGroup>,
    adopted: Vec<Rc<Object>>,
}

/// What a ReplicaSet's status counts: its active pods, those with every label of the template, those ready and
/// those available.
#[derive(Default)]
struct Counts {
    active: usize,
    fully_labeled: usize,
    ready: usize,
    available: usize,
}

impl Counts {
    /// Counts `groups` (pods of `rs`) and `pods` in, at `now`.
    fn of<'a>(rs: &ReplicaSet, groups: impl Iterator<Item = &'a PodGroup>, pods: &[Rc<Object>], now: Millis) -> Counts {
        let template = &rs.spec.template.metadata.labels;
        let min_ready = rs.spec.min_ready_seconds;
        let mut c = Counts::default();
        for g in groups {
            c.active += g.active;
            if g.labels.contains_all(template) {
                c.fully_labeled += g.active;
            }
            c.ready += g.ready;
            c.available += g.available(min_ready, now);
        }
        for p in pods.iter().filter_map(|o| o.as_pod()).filter(|p| p.is_active()) {
            c.active += 1;
            if p.metadata.labels.contains_all(template) {
                c.fully_labeled += 1;
            }
            if p.is_ready() {
                c.ready += 1;
                if p.is_available(min_ready, now) {
                    c.available += 1;
                }
            }
        }
        c
    }
}

impl Claimed<'_> {
    /// Claimed pods that are active (`FilterActivePods`), counted.
    fn active(&self) -> usize {
        let adopted = self.adopted.iter().filter(|p| p.as_pod().is_some_and(Pod::is_active)).count();
        self.groups.iter().map(|g| g.active).sum::<usize>() + adopted
    }

    fn counts(&self, rs: &ReplicaSet, now: Millis) -> Counts {
        Counts::of(rs, self.groups.iter().copied(), &self.adopted, now)
    }

    /// The claimed active pods themselves, in the order of the cache (its own pods by key), then the adopted: what
    /// a scale-down ranks.
    fn active_pods(&self, rs: &ReplicaSet, caches: Caches<'_>) -> Vec<Rc<Object>> {
        let sel = &rs.spec.selector;
        let own = caches.of(Kind::Pod).by_owner(&rs.metadata.uid);
        own.filter(|p| sel.matches(&p.meta().labels))
            .chain(self.adopted.iter())
            .filter(|p| p.as_pod().is_some_and(Pod::is_active))
            .cloned()
            .collect()
    }
}

/// `ClaimPods`: the pods this ReplicaSet owns, adopting matching orphans and releasing owned pods that no longer
/// match the selector (both by patching ownerReferences). Its own pods are read as the pod cache's groups (one per
/// distinct set of labels), walked only when a group no longer matches; orphans only among those carrying one of
/// the selector's labels.
fn claim_pods<'a>(rs: &ReplicaSet, cx: &mut Ctx<'a, '_>) -> Claimed<'a> {
    let pods = cx.caches.of(Kind::Pod);
    let sel = &rs.spec.selector;
    let own = pods.pod_groups(&rs.metadata.uid);
    let groups: Vec<&PodGroup> = own.iter().filter(|g| sel.matches(&g.labels)).collect();
    let release: Vec<ObjKey> = if groups.len() == own.len() {
        Vec::new()
    } else {
        pods.by_owner(&rs.metadata.uid).filter(|p| !sel.matches(&p.meta().labels)).map(|p| p.key()).collect()
    };
    let orphans: Vec<ObjKey> = if rs.metadata.is_terminating() || sel.is_empty() {
        Vec::new()
    } else {
        pods.select_orphans(&rs.metadata.namespace, sel)
            .into_iter()
            .filter(|p| !p.meta().is_terminating())
            .map(|p| p.key())
            .collect()
    };
    let uid = rs.metadata.uid.clone();
    for k in release {
        let _ = cx.api.patch(Kind::Pod, &k, Subresource::Main, |o| {
            o.meta_mut().owner_references.retain(|r| r.uid != uid);
        });
    }
    let mut adopted = Vec::new();
    for k in orphans {
        adopted.extend(super::adopt(&mut cx.api, Kind::Pod, &k, Kind::ReplicaSet, &rs.metadata));
    }
    Claimed { groups, adopted }
}

impl ReplicaSetController {
    /// One unit of edge work: create one pod, delete one pod, or refresh status; never a diff.
    fn reconcile_edge(&mut self, work: &EdgeWork, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(rs) = cx.caches.of(Kind::ReplicaSet).get(&work.rs).and_then(|o| o.as_replicaset()).cloned() else {
            return Ok(ReconcileAction::Done);
        };
        let rs_obj = Object::ReplicaSet(rs.clone());
        match work.delta {
            d if d > 0 => match cx.api.create(Object::Pod(pod_from_template(&rs))) {
                Ok(pod) => {
                    let msg = format!("Created pod: {}", pod.meta().name);
                    cx.recorder.event(&mut cx.api, &rs_obj, EventKind::Normal, "SuccessfulCreate", &msg);
                }
                Err(e) => {
                    let msg = format!("Error creating: {e}");
                    cx.recorder.event(&mut cx.api, &rs_obj, EventKind::Warning, "FailedCreate", &msg);
                    return Err(e.to_string());
                }
            },
            d if d < 0 => {
                let active: Vec<Rc<Object>> = cx
                    .caches
                    .of(Kind::Pod)
                    .by_owner(&rs.metadata.uid)
                    .filter(|p| p.as_pod().is_some_and(Pod::is_active) && !self.edge_deleted.contains(&p.meta().uid))
                    .cloned()
                    .collect();
                let related = related_pods_per_node(&rs, cx.caches);
                if let Some(victim) = pods_to_delete(&active, &related, 1, cx.now).into_iter().next() {
                    let uid = active.iter().find(|p| p.key() == victim).map(|p| p.meta().uid.clone());
                    match cx.api.delete(Kind::Pod, &victim, &DeleteOptions::default()) {
                        Ok(_) => {
                            self.edge_deleted.extend(uid);
                            let msg = format!("Deleted pod: {}", victim.name);
                            cx.recorder.event(&mut cx.api, &rs_obj, EventKind::Normal, "SuccessfulDelete", &msg);
                        }
                        Err(e) if e.is_not_found() => {}
                        Err(e) => return Err(e.to_string()),
                    }
                }
            }
            _ => {}
        }
        let groups = cx.caches.of(Kind::Pod).pod_groups(&rs.metadata.uid);
        let counts = Counts::of(&rs, groups.iter(), &[], cx.now);
        let mut status = calculate_status(&rs, &counts, None, cx.now);
        // Edge work (kubeloop's own mode) never diffs, so it leaves the ReplicaFailure condition as it is.
        status.conditions = rs.status.conditions.clone();
        update_status(&rs, status, cx)?;
        Ok(ReconcileAction::Done)
    }

    /// `manageReplicas`: create or delete pods to make `active` match `spec.replicas`.
    fn manage_replicas(&mut self, rs: &ReplicaSet, claimed: &Claimed<'_>, cx: &mut Ctx<'_, '_>) -> Result<(), String> {
        let key = rs_key(rs);
        let diff = claimed.active() as i64 - rs.replicas() as i64;
        let rs_obj = Object::ReplicaSet(rs.clone());
        if diff < 0 {
            let want = ((-diff) as usize).min(BURST_REPLICAS);
            self.expectations.expect_creations(&key, want, cx.now);
            let template = pod_from_template(rs);
            let mut remaining = want;
            let mut batch = SLOW_START_INITIAL_BATCH;
            let mut created = 0;
            let mut error: Option<String> = None;
            // slowStartBatch: 1, 2, 4, ... creates in parallel; stop at the first batch with a failure.
            while remaining > 0 && error.is_none() {
                let n = batch.min(remaining);
                let results: Vec<_> =
                    cx.api.parallel(|api| (0..n).map(|_| api.create(Object::Pod(template.clone()))).collect());
                for r in results {
                    match r {
                        Ok(pod) => {
                            created += 1;
                            let msg = format!("Created pod: {}", pod.meta().name);
                            cx.recorder.event(&mut cx.api, &rs_obj, EventKind::Normal, "SuccessfulCreate", &msg);
                        }
                        Err(e) => {
                            // The informer will never see this pod: lower the expectation now.
                            self.expectations.creation_observed(&key);
                            let msg = format!("Error creating: {e}");
                            cx.recorder.event(&mut cx.api, &rs_obj, EventKind::Warning, "FailedCreate", &msg);
                            error.get_or_insert(e.to_string());
                        }
                    }
                }
                remaining -= n;
                batch *= 2;
            }
            // Skipped creates will not be observed either.
            for _ in 0..remaining {
                self.expectations.creation_observed(&key);
            }
            let _ = created;
            if let Some(e) = error {
                return Err(e);
            }
        } else if diff > 0 {
            let n = (diff as usize).min(BURST_REPLICAS);
            let related = related_pods_per_node(rs, cx.caches);
            let active = claimed.active_pods(rs, cx.caches);
            let victims = pods_to_delete(&active, &related, n, cx.now);
            self.expectations.expect_deletions(&key, &victims, cx.now);
            let mut error: Option<String> = None;
            let results: Vec<_> = cx.api.parallel(|api| {
                victims.iter().map(|k| (k.clone(), api.delete(Kind::Pod, k, &DeleteOptions::default()))).collect()
            });
            for (k, r) in results {
                match r {
                    Ok(_) => {
                        let msg = format!("Deleted pod: {}", k.name);
                        cx.recorder.event(&mut cx.api, &rs_obj, EventKind::Normal, "SuccessfulDelete", &msg);
                    }
                    Err(e) => {
                        self.expectations.deletion_observed(&key, &k);
                        if !e.is_not_found() {
                            let msg = format!("Error deleting: {e}");
                            cx.recorder.event(&mut cx.api, &rs_obj, EventKind::Warning, "FailedDelete", &msg);
                            error.get_or_insert(e.to_string());
                        }
                    }
                }
            }
            if let Some(e) = error {
                return Err(e);
            }
        }
        Ok(())
    }
}

/// `getIndirectlyRelatedPods` counted per node (`getPodsRankedByRelatedPodsOnSameNode`): the active pods
/// selected by any ReplicaSet with the same controller (Deployment) as `rs`, each pod once. A ReplicaSet without
/// a controller has no related pods (upstream logs "ReplicaSet has no controller"), so every rank is 0.
pub(crate) fn related_pods_per_node(rs: &ReplicaSet, caches: Caches<'_>) -> FxHashMap<Str, usize> {
    let mut per_node: FxHashMap<Str, usize> = FxHashMap::default();
    let Some(owner) = crate::api::controller_of(&rs.metadata) else { return per_node };
    let pods = caches.of(Kind::Pod);
    let mut seen: FxHashSet<Str> = FxHashSet::default();
    let mut siblings: Vec<&ReplicaSet> =
        caches.of(Kind::ReplicaSet).by_owner(&owner.uid).filter_map(|o| o.as_replicaset()).collect();
    crate::sort::sort_by(&mut siblings, |a, b| a.metadata.name.cmp(&b.metadata.name));
    for sib in siblings {
        if sib.metadata.namespace != rs.metadata.namespace {
            continue;
        }
        for p in pods.select(&sib.metadata.namespace, &sib.spec.selector) {
            let Some(pod) = p.as_pod() else { continue };
            if seen.insert(pod.metadata.uid.clone()) && pod.is_active() {
                *per_node.entry(pod.spec.node_name.clone()).or_default() += 1;
            }
        }
    }
    per_node
}

/// A stable bottom-up merge sort that accepts a comparison which is not a total order. Upstream's `Less` is not
/// transitive (pods ready in the same second fall through to later rules while pods in one age bucket compare by
/// UID); Go's `sort.Sort` takes that, whereas `slice::sort_by` may panic on it.
fn merge_sort_by<T: Copy>(v: &mut [T], cmp: &impl Fn(&T, &T) -> Ordering) {
    let n = v.len();
    let mut buf: Vec<T> = v.to_vec();
    let mut width = 1;
    while width < n {
        let mut i = 0;
        while i < n {
            let mid = (i + width).min(n);
            let end = (i + 2 * width).min(n);
            let (mut l, mut r) = (i, mid);
            for slot in &mut buf[i..end] {
                if r < end && (l >= mid || cmp(&v[r], &v[l]) == Ordering::Less) {
                    *slot = v[r];
                    r += 1;
                } else {
                    *slot = v[l];
                    l += 1;
                }
            }
            i = end;
        }
        v.copy_from_slice(&buf);
        width = width.saturating_mul(2);
    }
}

/// `getPodsToDelete`: the `n` lowest-ranked active pods, ranked by `related` (pods per node, from
/// [`related_pods_per_node`]) at time `now`.
pub(crate) fn pods_to_delete(
    active: &[Rc<Object>],
    related: &FxHashMap<Str, usize>,
    n: usize,
    now: Millis,
) -> Vec<ObjKey> {
    let mut pods: Vec<(&Pod, usize)> = active
        .iter()
        .filter_map(|o| o.as_pod())
        .map(|p| (p, related.get(&p.spec.node_name).copied().unwrap_or(0)))
        .collect();
    merge_sort_by(&mut pods, &|(a, ra), (b, rb)| deletion_order(a, *ra, b, *rb, now));
    pods.into_iter()
        .take(n)
        .map(|(p, _)| ObjKey { namespace: p.metadata.namespace.clone(), name: p.metadata.name.clone() })
        .collect()
}

/// `calculateStatus` (pkg/controller/replicaset/replica_set_utils.go), with the ReplicaFailure condition: set
/// (FailedCreate with too few pods, FailedDelete with too many; the error as its message) when managing the
/// replicas failed and there is none yet, removed when a sync succeeds.
fn calculate_status(rs: &ReplicaSet, counts: &Counts, manage_err: Option<&String>, now: Millis) -> ReplicaSetStatus {
    let mut st = ReplicaSetStatus {
        observed_generation: rs.metadata.generation,
        conditions: rs.status.conditions.clone(),
        ..Default::default()
    };
    let failure = st.conditions.iter().any(|c| &*c.type_ == "ReplicaFailure");
    match manage_err {
        Some(err) if !failure => {
            let diff = counts.active as i64 - rs.replicas() as i64;
            let reason = match diff.cmp(&0) {
                Ordering::Less => "FailedCreate",
                Ordering::Greater => "FailedDelete",
                Ordering::Equal => "",
            };
            let cond = ReplicaSetCondition {
                type_: s("ReplicaFailure"),
                status: s("True"),
                last_transition_time: Some(Time(now)),
                reason: s(reason),
                message: s(err),
            };
            crate::api::set_condition(&mut st.conditions, cond, crate::api::Placement::Latest);
        }
        None if failure => st.conditions.retain(|c| &*c.type_ != "ReplicaFailure"),
        _ => {}
    }
    st.replicas = saturate(counts.active);
    st.fully_labeled_replicas = saturate(counts.fully_labeled);
    st.ready_replicas = saturate(counts.ready);
    st.available_replicas = saturate(counts.available);
    st
}

fn saturate(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// `updateReplicaSetStatus`: write status if it changed; on a conflict, GET the latest and try once more.
fn update_status(
    rs: &ReplicaSet,
    status: ReplicaSetStatus,
    cx: &mut Ctx<'_, '_>,
) -> Result<Option<ReplicaSet>, String> {
    if rs.status == status {
        return Ok(None);
    }
    let mut next = rs.clone();
    next.status = status.clone();
    match cx.api.update_status(Object::ReplicaSet(next)) {
        Ok(o) => Ok(o.as_replicaset().cloned()),
        Err(e) if e.is_conflict() => {
            let fresh = cx.api.get(Kind::ReplicaSet, &rs_key(rs)).map_err(|e| e.to_string())?;
            let mut next = fresh.as_replicaset().cloned().ok_or("not a replicaset")?;
            next.status = status;
            cx.api
                .update_status(Object::ReplicaSet(next))
                .map(|o| o.as_replicaset().cloned())
                .map_err(|e| e.to_string())
        }
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{PodCondition, Time};

    fn pod(name: &str, node: &str, phase: PodPhase, ready_since: Option<Millis>) -> Pod {
        let mut p = Pod::default();
        p.metadata.name = s(name);
        p.metadata.creation_timestamp = Some(Time(0));
        Rc::make_mut(&mut p.spec).node_name = s(node);
        p.status.phase = phase;
        if let Some(t) = ready_since {
            p.status.conditions.push(PodCondition {
                type_: s("Ready"),
                status: s("True"),
                last_transition_time: Some(Time(t)),
                ..Default::default()
            });
        }
        p
    }

    /// The deletion order of `pods` at `now`, every pod given also counting as a related pod on its node.
    fn order_at(pods: Vec<Pod>, now: Millis) -> Vec<String> {
        let objs: Vec<Rc<Object>> = pods.into_iter().map(|p| Rc::new(Object::Pod(p))).collect();
        let mut related: FxHashMap<Str, usize> = FxHashMap::default();
        for p in objs.iter().filter_map(|o| o.as_pod()) {
            *related.entry(p.spec.node_name.clone()).or_default() += 1;
        }
        pods_to_delete(&objs, &related, objs.len(), now).into_iter().map(|k| k.name.to_string()).collect()
    }

    fn order(pods: Vec<Pod>) -> Vec<String> {
        order_at(pods, 10_000)
    }

    #[test]
    fn scale_down_ranks_unassigned_then_pending_then_not_ready_first() {
        let got = order(vec![
            pod("running-ready", "n1", PodPhase::Running, Some(0)),
            pod("unassigned", "", PodPhase::Pending, None),
            pod("pending", "n2", PodPhase::Pending, None),
            pod("running-not-ready", "n3", PodPhase::Running, None),
        ]);
        assert_eq!(got, ["unassigned", "pending", "running-not-ready", "running-ready"]);
    }

    #[test]
    fn scale_down_prefers_doubled_up_nodes_then_recently_ready_then_deletion_cost() {
        let got = order(vec![
            pod("alone", "n1", PodPhase::Running, Some(0)),
            pod("double-a", "n2", PodPhase::Running, Some(0)),
            pod("double-b", "n2", PodPhase::Running, Some(5000)),
        ]);
        assert_eq!(got, ["double-b", "double-a", "alone"]);
        let mut cheap = pod("cheap", "n1", PodPhase::Running, Some(0));
        cheap.metadata.annotations.insert(s(POD_DELETION_COST), s("-10"));
        let got = order(vec![
            pod("double-a", "n2", PodPhase::Running, Some(0)),
            pod("double-b", "n2", PodPhase::Running, Some(0)),
            cheap,
        ]);
        assert_eq!(got[0], "cheap");
    }

    #[test]
    fn edge_keys_round_trip_and_plain_names_are_not_edge_work() {
        let rs = ObjKey::new("default", "web-5d8f");
        for (d, seq) in [(1, 7), (-1, 8), (0, 0)] {
            let k = edge_key(&rs, d, seq);
            assert_eq!(parse_edge_key(&k), Some(EdgeWork { rs: rs.clone(), delta: d, seq }), "{k}");
        }
        assert_eq!(edge_key(&rs, 1, 7).to_string(), "default/web-5d8f+1#7");
        assert_eq!(parse_edge_key(&ObjKey::new("default", "web-1")), None);
        assert_eq!(parse_edge_key(&ObjKey::new("default", "web")), None);
    }

    #[test]
    fn pods_from_template_are_owned_and_generated() {
        let mut rs = ReplicaSet::default();
        rs.metadata.name = s("web-abc");
        rs.metadata.namespace = s("default");
        rs.metadata.uid = s("u1");
        rs.spec.template.metadata.labels.insert(s("app"), s("web"));
        let p = pod_from_template(&rs);
        assert_eq!(&*p.metadata.generate_name, "web-abc-");
        assert_eq!(crate::api::controller_of(&p.metadata).map(|r| &*r.uid), Some("u1"));
        assert_eq!(p.metadata.label("app"), Some("web"));
    }

    fn with_uid(mut p: Pod, uid: &str) -> Pod {
        p.metadata.uid = s(uid);
        p
    }

    /// LogarithmicScaleDown (GA in 1.31; `logarithmicRankDiff`): ages are compared by their power-of-two bucket
    /// in nanoseconds, and two pods in one bucket by UID, not by which became ready last.
    #[test]
    fn scale_down_compares_ready_ages_by_log2_bucket_then_uid() {
        let now = 1_000 * 1_000; // 1000 s
                                 // Ready 100 s and 110 s ago: 1.0e11 ns and 1.1e11 ns, both in [2^36, 2^37) ns.
        let a = with_uid(pod("older", "n1", PodPhase::Running, Some(now - 110_000)), "0000-a");
        let b = with_uid(pod("newer", "n2", PodPhase::Running, Some(now - 100_000)), "ffff-b");
        assert_eq!(log_rank(now - 110_000, now), log_rank(now - 100_000, now));
        // Exact times would delete "newer" first; in one bucket the lower UID goes first.
        assert_eq!(order_at(vec![a.clone(), b.clone()], now), ["older", "newer"]);
        let a = with_uid(a, "ffff-a");
        let b = with_uid(b, "0000-b");
        assert_eq!(order_at(vec![a.clone(), b.clone()], now), ["newer", "older"]);
        // Ready 10 s ago (1e10 ns, bucket 33) against 110 s ago (bucket 36): the younger bucket goes first,
        // whatever the UIDs.
        let young = with_uid(pod("young", "n3", PodPhase::Running, Some(now - 10_000)), "ffff-y");
        assert_eq!(order_at(vec![a, young], now), ["young", "older"]);
    }

    #[test]
    fn scale_down_compares_creation_ages_by_log2_bucket_then_uid() {
        let now = 1_000_000;
        let created = |name: &str, at: Millis, uid: &str| {
            let mut p = with_uid(pod(name, "n1", PodPhase::Pending, None), uid);
            p.metadata.creation_timestamp = Some(Time(at));
            p
        };
        // 100 s and 110 s old: one bucket, so the UID decides.
        let got = order_at(vec![created("old", now - 110_000, "1"), created("new", now - 100_000, "2")], now);
        assert_eq!(got, ["old", "new"]);
        // 1 s old against 110 s old: different buckets, the newer first.
        let got = order_at(vec![created("old", now - 110_000, "1"), created("new", now - 1_000, "2")], now);
        assert_eq!(got, ["new", "old"]);
        // No creation time (the zero time) goes first (`afterOrZero`).
        let mut zero = created("zero", 0, "3");
        zero.metadata.creation_timestamp = None;
        let got = order_at(vec![created("old", now - 110_000, "1"), zero], now);
        assert_eq!(got, ["zero", "old"]);
    }

    #[test]
    fn log_rank_is_the_floor_of_log2_of_nanoseconds() {
        assert_eq!(log_rank(5, 5), -1);
        assert_eq!(log_rank(6, 5), -1);
        assert_eq!(log_rank(0, 1), 19); // 1 ms = 1e6 ns, 2^19 <= 1e6 < 2^20
        assert_eq!(log_rank(0, 1_000), 29); // 1 s = 1e9 ns
        assert_eq!(log_rank(0, u64::MAX), 63); // saturated, no overflow
    }

    #[test]
    fn restarts_rank_by_the_most_restarted_container() {
        let mut a = pod("a", "n1", PodPhase::Running, Some(0));
        let mut b = pod("b", "n1", PodPhase::Running, Some(0));
        let cs = |n: i32| crate::api::ContainerStatus { restart_count: n, ..Default::default() };
        a.status.container_statuses = vec![cs(2), cs(2)]; // 4 in total, at most 2
        b.status.container_statuses = vec![cs(3)];
        assert_eq!(order(vec![a, b]), ["b", "a"]);
    }

    /// Upstream's order is not transitive; sorting by it must not panic (Rust's sort may on such an order).
    #[test]
    fn an_intransitive_order_sorts_without_panicking() {
        let mut pods = Vec::new();
        for i in 0..300u64 {
            let mut p = pod(&format!("p{i}"), "n1", PodPhase::Running, Some((i % 7) * 1_000 + (i % 3) * 400));
            p.metadata.uid = s(&format!("{:04}", (i * 7919) % 1000));
            p.status.container_statuses =
                vec![crate::api::ContainerStatus { restart_count: (i % 2) as i32, ..Default::default() }];
            pods.push(p);
        }
        assert_eq!(order_at(pods, 3_600_000).len(), 300);
        let mut v: Vec<u32> = (0..100).rev().collect();
        merge_sort_by(&mut v, &|a: &u32, b: &u32| a.cmp(b));
        assert_eq!(v, (0..100).collect::<Vec<_>>());
    }
}
