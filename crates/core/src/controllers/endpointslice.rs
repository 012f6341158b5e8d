//! The EndpointSlice controller (pkg/controller/endpointslice): for each Service with a selector, the pods it
//! selects as endpoints (address, ready / serving / terminating, node, zone, the pod), grouped by their resolved
//! ports into slices of at most 100, owned by the Service. A Service with no endpoints keeps one empty placeholder
//! slice. Pod, Service and slice changes queue the Service; 5 workers, 1 s doubling to 1000 s retries under a
//! 10 qps / 100 bucket, 15 retries.

mod memo;

use std::collections::BTreeMap;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use memo::{addr, Change, Memo};

use crate::api::endpointslice::{
    LABEL_HEADLESS, LABEL_MANAGED_BY, LABEL_SERVICE_NAME, MANAGED_BY_CONTROLLER, MAX_ENDPOINTS_PER_SLICE,
};
use crate::api::{
    s, Endpoint, EndpointConditions, EndpointPort, EndpointSlice, IntOrString, Kind, LabelSelector, Labels, ObjKey,
    Object, ObjectReference, OwnerReference, Pod, Service, Str,
};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::store::{ApiError, DeleteOptions, Subresource};
use crate::time::{Millis, SECOND};
use crate::work::Counters;
use crate::workqueue::{BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, RateLimiter};

/// What the controller keeps of one Service between its syncs.
#[derive(Clone, Default)]
struct Tracked {
    /// `endpointSliceTracker`: the slices it last wrote (name -> the resourceVersion it wrote, 0 once deleted). A
    /// sync whose cache has not caught up with them would write duplicates, so it waits.
    written: FxHashMap<Str, u64>,
    /// kubeloop's own memory of the Service's slices ([`memo`]), so that a sync recomputes only the pods that
    /// changed since the last one.
    memo: Option<Memo>,
}

#[derive(Clone, Default)]
pub struct EndpointSliceController {
    services: FxHashMap<ObjKey, Tracked>,
    /// Each node's zone, as the node cache has it (emptied whenever a node comes, goes or changes zone).
    zones: FxHashMap<Str, Str>,
    /// Counts those changes: a memo made under another epoch may hold an old zone.
    zone_epoch: u64,
    /// Syncs that recomputed every endpoint of their Service.
    whole_syncs: u64,
    /// Syncs that recomputed only the pods that changed since the last (the memo's).
    part_syncs: u64,
}

impl EndpointSliceController {
    pub(crate) fn new() -> Self {
        EndpointSliceController::default()
    }

    /// `StaleSlices`: whether the cache has not yet seen one of the writes made for `svc`. When it has seen them
    /// all, they are forgotten.
    fn stale(&mut self, svc: &ObjKey, caches: Caches<'_>) -> bool {
        let Some(t) = self.services.get_mut(svc) else { return false };
        let slices = caches.of(Kind::EndpointSlice);
        let behind = t.written.iter().any(|(name, rv)| {
            let cached = slices.get(&ObjKey { namespace: svc.namespace.clone(), name: name.clone() });
            match (cached, *rv) {
                (Some(_), 0) => true,
                (None, 0) => false,
                (None, _) => true,
                (Some(o), rv) => o.meta().resource_version < rv,
            }
        });
        if !behind {
            t.written.clear();
        }
        behind
    }

    /// Takes the Service's memo out (a sync puts back the one it leaves). The Service's entry stays until the
    /// Service goes.
    fn take_memo(&mut self, svc: &ObjKey) -> Option<Memo> {
        self.services.get_mut(svc).and_then(|t| t.memo.take())
    }

    fn put_memo(&mut self, svc: &ObjKey, memo: Memo) {
        self.services.entry(svc.clone()).or_default().memo = Some(memo);
    }
}

/// `podutil.ShouldPodBeInEndpoints` with terminating pods included (they are endpoints with `terminating`): an
/// address, and not finished for good by its restart policy.
fn in_endpoints(p: &Pod) -> bool {
    if p.status.pod_ip.is_empty() {
        return false;
    }
    match &*p.spec.restart_policy {
        "Never" => !p.status.phase.is_terminal(),
        "OnFailure" => p.status.phase != crate::api::PodPhase::Succeeded,
        _ => true,
    }
}

/// A Service port's target on `pod`: its number, or the number of the container port of that name (`None`: the
/// pod has no such port, and is no endpoint for it).
fn target(pod: &Pod, port: &crate::api::ServicePort) -> Option<i32> {
    match &port.target_port {
        None => Some(port.port),
        Some(IntOrString::Int(n)) => Some(*n),
        Some(IntOrString::String(name)) => pod
            .spec
            .containers
            .iter()
            .flat_map(|c| c.ports.iter())
            .find(|cp| cp.name == *name && (cp.protocol.is_empty() || cp.protocol == port.protocol))
            .map(|cp| cp.container_port),
    }
}

/// A Service port set as a pod resolves it: each port's name, protocol and target number, in the Service's order.
type Ports = Vec<(Str, Str, i32)>;

/// What every endpoint of a sync shares (texts made once per sync, not once per pod), and the zones of nodes.
struct Shared<'a> {
    pod: Str,
    empty: Str,
    /// Zones by node name, kept by the controller while no node changes zone.
    zones: &'a mut FxHashMap<Str, Str>,
    nodes: &'a crate::informer::Cache,
    /// The Service's `publishNotReadyAddresses`.
    publish_not_ready: bool,
}

impl<'a> Shared<'a> {
    fn new(svc: &Service, zones: &'a mut FxHashMap<Str, Str>, caches: Caches<'a>) -> Self {
        Shared {
            pod: s("Pod"),
            empty: s(""),
            zones,
            nodes: caches.of(Kind::Node),
            publish_not_ready: svc.spec.publish_not_ready_addresses == Some(true),
        }
    }

    /// The zone of `node`, looked up once while no node changes zone.
    fn zone(&mut self, node: &Str) -> Str {
        if let Some(z) = self.zones.get(node) {
            return z.clone();
        }
        let key = ObjKey { namespace: self.empty.clone(), name: node.clone() };
        let zone = zone_of(self.nodes.get(&key)).cloned().unwrap_or_else(|| self.empty.clone());
        self.zones.insert(node.clone(), zone.clone());
        zone
    }

    /// `podToEndpoint`: a pod as an endpoint of `svc` (its resolved ports with it); ready when serving and not
    /// terminating, or always when the Service publishes not-ready addresses.
    fn endpoint(&mut self, svc: &Service, pod: &Pod) -> (Ports, Endpoint) {
        let ports: Ports = svc
            .spec
            .ports
            .iter()
            .filter_map(|p| target(pod, p).map(|t| (p.name.clone(), p.protocol.clone(), t)))
            .collect();
        let serving = pod.is_ready();
        let terminating = pod.metadata.deletion_timestamp.is_some();
        let endpoint = Endpoint {
            addresses: vec![pod.status.pod_ip.clone()],
            conditions: EndpointConditions {
                ready: Some(self.publish_not_ready || (serving && !terminating)),
                serving: Some(serving),
                terminating: Some(terminating),
            },
            node_name: pod.spec.node_name.clone(),
            zone: self.zone(&pod.spec.node_name),
            target_ref: Some(ObjectReference {
                kind: self.pod.clone(),
                namespace: pod.metadata.namespace.clone(),
                name: pod.metadata.name.clone(),
                uid: pod.metadata.uid.clone(),
                api_version: self.empty.clone(),
            }),
        };
        (ports, endpoint)
    }
}

/// The Services of `namespace` whose selector matches `labels` (`GetPodServiceMemberships`), looked up by the
/// Service cache's selector index rather than every Service of the namespace; each is queued, and `pod` is marked
/// changed in its memo.
fn services_selecting(
    services: &mut FxHashMap<ObjKey, Tracked>,
    caches: Caches<'_>,
    pod: &ObjKey,
    labels: &Labels,
    out: &mut Enqueue,
) {
    for svc in caches.of(Kind::Service).services_selecting(&pod.namespace, labels) {
        let key = svc.key();
        if let Some(t) = services.get_mut(&key) {
            if let Some(memo) = &mut t.memo {
                memo.dirty.insert(pod.clone());
                if memo.dirty.len() > memo.dirty_bound() {
                    t.memo = None;
                }
            }
        }
        out.push((key, 0));
    }
}

/// A node's zone label (empty without one).
fn zone_of(node: Option<&Rc<Object>>) -> Option<&Str> {
    node?.meta().labels.get(ZONE_LABEL)
}

const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

impl Reconciler for EndpointSliceController {
    fn name(&self) -> &'static str {
        "endpointslice"
    }
    fn component(&self) -> &'static str {
        "endpoint-slice-controller"
    }
    fn workers(&self) -> usize {
        // `--concurrent-service-endpoint-syncs`
        5
    }
    fn watches(&self) -> &'static [Kind] {
        &[Kind::Service, Kind::Pod, Kind::EndpointSlice, Kind::Node]
    }
    fn max_retries(&self) -> Option<u32> {
        Some(15)
    }
    fn reset(&mut self) {
        self.services.clear();
        self.zones.clear();
        self.zone_epoch += 1;
    }
    fn retained(&self) -> usize {
        self.services.values().map(|t| t.written.len() + t.memo.as_ref().map_or(0, Memo::entries)).sum::<usize>()
            + self.zones.len()
    }
    fn work(&self, out: &mut Counters) {
        out.add("wholeSyncs", self.whole_syncs);
        out.add("partSyncs", self.part_syncs);
    }
    fn rate_limiter(&self) -> Box<dyn RateLimiter<ObjKey>> {
        Box::new(MaxOfRateLimiter::new(vec![
            Box::new(ItemExponentialFailureRateLimiter::new(SECOND, 1000 * SECOND)),
            Box::new(BucketRateLimiter::new(10.0, 100)),
        ]))
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match &**obj {
            Object::Service(_) => out.push((obj.key(), 0)),
            Object::Pod(p) => {
                let key = obj.key();
                services_selecting(&mut self.services, caches, &key, &p.metadata.labels, out);
                // A relabelled pod leaves the Services its old labels matched.
                if let Some(old) = ev.old().and_then(|o| o.as_pod()) {
                    if old.metadata.labels != p.metadata.labels {
                        services_selecting(&mut self.services, caches, &key, &old.metadata.labels, out);
                    }
                }
            }
            Object::Node(_) => {
                // Endpoints carry their node's zone: when a node comes, goes or changes zone, what is remembered of
                // zones (and every memo made with them) is forgotten.
                let moved = match ev {
                    InformerEvent::Update(old, new) => zone_of(Some(old)) != zone_of(Some(new)),
                    _ => true,
                };
                if moved {
                    self.zones.clear();
                    self.zone_epoch += 1;
                }
            }
            Object::EndpointSlice(e) if e.metadata.label(LABEL_MANAGED_BY) == Some(MANAGED_BY_CONTROLLER) => {
                if let Some(svc) = e.metadata.label(LABEL_SERVICE_NAME) {
                    out.push((ObjKey::new(&e.metadata.namespace, svc), 0));
                }
            }
            _ => {}
        }
    }

    /// `syncService`: the desired endpoints, then the slices changed to hold them with as few writes as it can.
    /// When the Service's slices are as its last sync left them, only the pods that changed since are looked at.
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(svc) = cx.caches.of(Kind::Service).get(key).and_then(|o| o.as_service()).cloned() else {
            // Its slices go with it (the garbage collector follows their owner reference).
            self.services.remove(key);
            return Ok(ReconcileAction::Done);
        };
        if self.stale(key, cx.caches) {
            return Err(format!(
                "Error syncing endpoint slices for service \"{key}\": EndpointSlice informer cache is out of date"
            ));
        }
        if svc.spec.selector.is_empty() || svc.type_name() == "ExternalName" || svc.metadata.is_terminating() {
            self.take_memo(key);
            return Ok(ReconcileAction::Done);
        }
        // In name order: the owner index keeps keys in order, and the slices share the Service's namespace.
        let cached: Vec<Rc<Object>> = cx
            .caches
            .of(Kind::EndpointSlice)
            .by_owner(&svc.metadata.uid)
            .filter(|o| o.meta().label(LABEL_MANAGED_BY) == Some(MANAGED_BY_CONTROLLER))
            .cloned()
            .collect();
        let memo = self.take_memo(key).filter(|m| {
            m.service_rv == svc.metadata.resource_version && m.zone_epoch == self.zone_epoch && m.matches(&cached)
        });
        let result = match memo {
            Some(memo) => self.sync_changes(key, &svc, memo, cached, cx),
            None => self.sync_whole(key, &svc, cached, cx),
        };
        result.map_err(|e| format!("Error syncing endpoint slices for service \"{key}\": {e}"))?;
        Ok(ReconcileAction::Done)
    }
}

impl EndpointSliceController {
    /// A sync that looks at every pod the Service selects, then remembers the slices it leaves.
    fn sync_whole(
        &mut self,
        key: &ObjKey,
        svc: &Service,
        cached: Vec<Rc<Object>>,
        cx: &mut Ctx<'_, '_>,
    ) -> Result<(), ApiError> {
        self.whole_syncs += 1;
        let mut shared = Shared::new(svc, &mut self.zones, cx.caches);
        let desired = desired_endpoints(svc, &mut shared, cx.caches);
        self.write_all(key, svc, desired, cached, cx)
    }

    /// A sync that looks only at the pods that changed since the last one and the slices that hold them.
    fn sync_changes(
        &mut self,
        key: &ObjKey,
        svc: &Service,
        mut memo: Memo,
        cached: Vec<Rc<Object>>,
        cx: &mut Ctx<'_, '_>,
    ) -> Result<(), ApiError> {
        let mut dirty: Vec<ObjKey> = memo.dirty.drain().collect();
        crate::sort::sort(&mut dirty);
        let mut shared = Shared::new(svc, &mut self.zones, cx.caches);
        let changes = changes(svc, dirty, &mut shared, cx.caches);
        if memo.endpoints() == 0 || memo.total_after(&changes) == 0 {
            // From no endpoints or to none (the placeholder slice comes or goes): every endpoint is a change.
            self.part_syncs += 1;
            return self.write_all(key, svc, grouped(&changes), cached, cx);
        }
        let Some((plan, removed)) = memo.plan(svc, &changes, &cached) else {
            // Two pods with one address: only a whole sync tells which one a slice keeps.
            return self.sync_whole(key, svc, cached, cx);
        };
        self.part_syncs += 1;
        let applied = self.write(key, plan, cx)?;
        if memo.after(&changes, &removed, &applied.written, &applied.deleted).is_some() {
            self.put_memo(key, memo);
        }
        Ok(())
    }

    /// Plans the slices for every endpoint (`desired`) against `cached`, writes them, and remembers what it left.
    fn write_all(
        &mut self,
        key: &ObjKey,
        svc: &Service,
        desired: BTreeMap<Ports, Vec<Endpoint>>,
        cached: Vec<Rc<Object>>,
        cx: &mut Ctx<'_, '_>,
    ) -> Result<(), ApiError> {
        let endpoints = desired.values().map(Vec::len).sum();
        let existing = cached.iter().filter_map(|o| o.as_endpointslice()).cloned().collect();
        let applied = self.write(key, plan(svc, desired, existing), cx)?;
        // The slices now: those it did not touch, and those it wrote.
        let touched =
            |name: &Str| applied.deleted.contains(name) || applied.written.iter().any(|o| o.meta().name == *name);
        let kept = cached.iter().filter(|o| !touched(&o.meta().name));
        let slices = kept.chain(&applied.written).filter_map(|o| o.as_endpointslice());
        if let Some(memo) = Memo::of(svc.metadata.resource_version, self.zone_epoch, slices, endpoints) {
            self.put_memo(key, memo);
        }
        Ok(())
    }

    /// Writes `plan`, recording each write for [`EndpointSliceController::stale`].
    fn write(&mut self, key: &ObjKey, plan: Plan, cx: &mut Ctx<'_, '_>) -> Result<Applied, ApiError> {
        apply(plan, cx, &mut self.services.entry(key.clone()).or_default().written)
    }
}

/// The endpoints the Service's pods make, by resolved port set (in a stable order), each set in pod order.
fn desired_endpoints(svc: &Service, shared: &mut Shared<'_>, caches: Caches<'_>) -> BTreeMap<Ports, Vec<Endpoint>> {
    let selector = LabelSelector::from_labels(svc.spec.selector.clone());
    let mut out: BTreeMap<Ports, Vec<Endpoint>> = BTreeMap::new();
    for o in caches.of(Kind::Pod).select(&svc.metadata.namespace, &selector) {
        let Some(pod) = o.as_pod().filter(|p| in_endpoints(p)) else { continue };
        let (ports, endpoint) = shared.endpoint(svc, pod);
        out.entry(ports).or_default().push(endpoint);
    }
    out
}

/// The endpoint each changed pod (`dirty`, in pod order) makes now (`None`: none).
fn changes(svc: &Service, dirty: Vec<ObjKey>, shared: &mut Shared<'_>, caches: Caches<'_>) -> Vec<Change> {
    let selector = LabelSelector::from_labels(svc.spec.selector.clone());
    let pods = caches.of(Kind::Pod);
    dirty
        .into_iter()
        .map(|pod| {
            let want = pods
                .get(&pod)
                .and_then(|o| o.as_pod())
                .filter(|p| {
                    p.metadata.namespace == svc.metadata.namespace
                        && selector.matches(&p.metadata.labels)
                        && in_endpoints(p)
                })
                .map(|p| shared.endpoint(svc, p));
            Change { pod, want }
        })
        .collect()
}

/// The changes' endpoints by port set, each set in pod order (every endpoint, when the changes hold them all).
fn grouped(changes: &[Change]) -> BTreeMap<Ports, Vec<Endpoint>> {
    let mut out: BTreeMap<Ports, Vec<Endpoint>> = BTreeMap::new();
    for (ports, e) in changes.iter().filter_map(|c| c.want.as_ref()) {
        out.entry(ports.clone()).or_default().push(e.clone());
    }
    out
}

fn slice_ports(ports: &[(Str, Str, i32)]) -> Option<Vec<EndpointPort>> {
    Some(
        ports
            .iter()
            .map(|(name, protocol, port)| EndpointPort {
                name: name.clone(),
                protocol: protocol.clone(),
                port: Some(*port),
            })
            .collect(),
    )
}

fn ports_key(e: &EndpointSlice) -> Ports {
    e.ports().iter().map(|p| (p.name.clone(), p.protocol.clone(), p.port.unwrap_or(0))).collect()
}

/// What to write: slices to create, to change, to delete.
#[derive(Default)]
struct Plan {
    create: Vec<EndpointSlice>,
    update: Vec<EndpointSlice>,
    delete: Vec<EndpointSlice>,
}

/// `reconciler.reconcileByAddressType`, simplified: slices of a port set keep the endpoints still desired (with
/// their current conditions) and lose the rest; new endpoints fill the slices with room, then new slices of at
/// most 100; slices of port sets no longer desired, or left empty, go. With no endpoints at all one placeholder
/// slice (no ports, no endpoints) stays.
fn plan(svc: &Service, desired: BTreeMap<Ports, Vec<Endpoint>>, existing: Vec<EndpointSlice>) -> Plan {
    let mut plan = Plan::default();
    let labels = slice_labels(svc);
    let mut by_ports: BTreeMap<Ports, Vec<EndpointSlice>> = BTreeMap::new();
    for e in existing {
        by_ports.entry(ports_key(&e)).or_default().push(e);
    }
    let total: usize = desired.values().map(Vec::len).sum();
    if total == 0 {
        // The placeholder: keep one slice without ports and endpoints.
        let mut kept = None;
        for e in by_ports.into_values().flatten() {
            if kept.is_none() && e.endpoints.is_none() && e.ports.is_none() {
                kept = Some(e);
            } else {
                plan.delete.push(e);
            }
        }
        match kept {
            Some(e) => plan.relabel(e, &labels),
            None => plan.create.push(new_slice(svc, &labels, None, None)),
        }
        return plan;
    }
    for (ports, wanted) in desired {
        let slices = by_ports.remove(&ports).unwrap_or_default();
        // The desired endpoints by address (a lookup per kept endpoint), and their order for the new ones.
        let order: Vec<Str> = wanted.iter().map(addr).collect();
        let mut pending: FxHashMap<Str, Endpoint> = wanted.into_iter().map(|e| (addr(&e), e)).collect();
        let bodies: Vec<Body<'_>> = slices
            .iter()
            .map(|slice| {
                let kept: Vec<Endpoint> = slice.endpoints().iter().filter_map(|e| pending.remove(&addr(e))).collect();
                Body { changed: kept.as_slice() != slice.endpoints(), slice, len: kept.len(), kept: Some(kept) }
            })
            .collect();
        let wanted: Vec<Endpoint> = order.into_iter().filter_map(|a| pending.remove(&a)).collect();
        let (emptied, _) = finish(svc, &labels, &ports, bodies, wanted, &mut plan);
        plan.delete.extend(emptied);
    }
    // Port sets no endpoint has any more (the placeholder among them).
    plan.delete.extend(by_ports.into_values().flatten());
    plan
}

/// One slice of a port set as a sync plans it: its endpoints after the sync when they were read (`None`: untouched,
/// `len` of them), and whether they changed.
struct Body<'a> {
    slice: &'a EndpointSlice,
    len: usize,
    kept: Option<Vec<Endpoint>>,
    changed: bool,
}

/// The rest of a port set's sync, whole or from the memo: `wanted` (new endpoints, in pod order) fill the slices
/// with room in name order, then new slices of at most 100; the slices changed are updated, those kept relabelled
/// if the Service's labels moved. Returns the slices left empty, to delete, and the endpoints the set has after.
fn finish(
    svc: &Service,
    labels: &Labels,
    ports: &Ports,
    mut bodies: Vec<Body<'_>>,
    mut wanted: Vec<Endpoint>,
    plan: &mut Plan,
) -> (Vec<EndpointSlice>, usize) {
    for b in &mut bodies {
        let room = MAX_ENDPOINTS_PER_SLICE.saturating_sub(b.len);
        if room > 0 && !wanted.is_empty() {
            let take = room.min(wanted.len());
            let kept = b.kept.get_or_insert_with(|| b.slice.endpoints().to_vec());
            kept.extend(wanted.drain(..take));
            b.len += take;
            b.changed = true;
        }
    }
    let mut remaining = wanted.len();
    while !wanted.is_empty() {
        let take = MAX_ENDPOINTS_PER_SLICE.min(wanted.len());
        plan.create.push(new_slice(svc, labels, slice_ports(ports), Some(wanted.drain(..take).collect())));
    }
    let mut emptied = Vec::new();
    for b in bodies {
        remaining += b.len;
        let Some(kept) = b.kept else { continue };
        let mut slice = b.slice.clone();
        slice.endpoints = Some(kept);
        if b.len == 0 {
            emptied.push(slice);
        } else if b.changed {
            slice.metadata.labels = labels.clone();
            plan.update.push(slice);
        } else {
            plan.relabel(slice, labels);
        }
    }
    (emptied, remaining)
}

impl Plan {
    /// A slice whose endpoints stay: updated only when the Service's own labels (the reserved ones aside) are no
    /// longer the slice's.
    fn relabel(&mut self, mut slice: EndpointSlice, labels: &Labels) {
        if !unreserved(&slice.metadata.labels).eq(unreserved(labels)) {
            slice.metadata.labels = labels.clone();
            self.update.push(slice);
        }
    }
}

/// The labels the controller sets on its own slices (`reconciler.go` `isReservedLabelKey`).
fn is_reserved(key: &str) -> bool {
    [LABEL_SERVICE_NAME, LABEL_MANAGED_BY, LABEL_HEADLESS].contains(&key)
}

fn unreserved(labels: &Labels) -> impl Iterator<Item = (&Str, &Str)> {
    labels.iter().filter(|(k, _)| !is_reserved(k))
}

/// `setEndpointSliceLabels`: the Service's labels but the reserved ones, `service.kubernetes.io/headless` for a
/// Service without a cluster IP, the Service's name and the managing controller.
fn slice_labels(svc: &Service) -> Labels {
    let mut labels = svc.metadata.labels.clone();
    labels.remove(LABEL_HEADLESS);
    if svc.spec.cluster_ip.is_empty() || &*svc.spec.cluster_ip == "None" {
        labels.insert(s(LABEL_HEADLESS), s(""));
    }
    labels.insert(s(LABEL_SERVICE_NAME), svc.metadata.name.clone());
    labels.insert(s(LABEL_MANAGED_BY), s(MANAGED_BY_CONTROLLER));
    labels
}

fn new_slice(
    svc: &Service,
    labels: &Labels,
    ports: Option<Vec<EndpointPort>>,
    endpoints: Option<Vec<Endpoint>>,
) -> EndpointSlice {
    let mut e = EndpointSlice { address_type: s("IPv4"), ports, endpoints, ..Default::default() };
    let m = &mut e.metadata;
    m.generate_name = s(&format!("{}-", svc.metadata.name));
    m.namespace = svc.metadata.namespace.clone();
    m.labels = labels.clone();
    m.owner_references.push(OwnerReference::controller(Kind::Service, &svc.metadata));
    e
}

/// What a plan's writes left: the slices created and updated, as the store returned them, and those deleted.
#[derive(Default)]
struct Applied {
    written: Vec<Rc<Object>>,
    deleted: Vec<Str>,
}

/// Writes the plan, recording each write in `written`.
fn apply(plan: Plan, cx: &mut Ctx<'_, '_>, written: &mut FxHashMap<Str, u64>) -> Result<Applied, ApiError> {
    let mut applied = Applied::default();
    for e in plan.create {
        let made = cx.api.create(Object::EndpointSlice(e))?;
        written.insert(made.meta().name.clone(), made.meta().resource_version);
        applied.written.push(made);
    }
    for e in plan.update {
        let key = ObjKey { namespace: e.metadata.namespace.clone(), name: e.metadata.name.clone() };
        let (endpoints, labels) = (e.endpoints, e.metadata.labels);
        let updated = cx.api.patch(Kind::EndpointSlice, &key, Subresource::Main, |o| {
            if let Object::EndpointSlice(x) = o {
                x.endpoints = endpoints;
                x.metadata.labels = labels;
            }
        })?;
        written.insert(key.name, updated.meta().resource_version);
        applied.written.push(updated);
    }
    for e in plan.delete {
        let key = ObjKey { namespace: e.metadata.namespace.clone(), name: e.metadata.name.clone() };
        match cx.api.delete(Kind::EndpointSlice, &key, &DeleteOptions::default()) {
            Ok(_) | Err(ApiError::NotFound { .. }) => {
                written.insert(key.name.clone(), 0);
                applied.deleted.push(key.name);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(applied)
}
