//! The EndpointSlice controller (pkg/controller/endpointslice): for each Service with a selector, the pods it
//! selects as endpoints (address, ready / serving / terminating, node, zone, the pod), grouped by their resolved
//! ports into slices of at most 100, owned by the Service. A Service with no endpoints keeps one empty placeholder
//! slice. Pod, Service and slice changes queue the Service; 5 workers, 1 s doubling to 1000 s retries under a
//! 10 qps / 100 bucket, 15 retries.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

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
use crate::workqueue::{BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, RateLimiter};

/// `endpointSliceTracker`: the slices this controller last wrote for each Service (name -> the resourceVersion it
/// wrote, 0 once deleted). A sync whose cache has not caught up with them would write duplicates, so it waits.
#[derive(Default)]
pub struct EndpointSliceController {
    written: FxHashMap<ObjKey, FxHashMap<Str, u64>>,
}

impl EndpointSliceController {
    pub fn new() -> Self {
        EndpointSliceController::default()
    }

    /// `StaleSlices`: whether the cache has not yet seen one of the writes made for `svc`. When it has seen them
    /// all, they are forgotten.
    fn stale(&mut self, svc: &ObjKey, caches: Caches<'_>) -> bool {
        let Some(written) = self.written.get(svc) else { return false };
        let slices = caches.of(Kind::EndpointSlice);
        let behind = written.iter().any(|(name, rv)| {
            let cached = slices.get(&ObjKey { namespace: svc.namespace.clone(), name: name.clone() });
            match (cached, *rv) {
                (Some(_), 0) => true,
                (None, 0) => false,
                (None, _) => true,
                (Some(o), rv) => o.meta().resource_version < rv,
            }
        });
        if !behind {
            self.written.remove(svc);
        }
        behind
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

/// What every endpoint of a sync shares (texts made once per sync, not once per pod).
struct Shared {
    pod: Str,
    empty: Str,
    /// Zones by node name.
    zones: FxHashMap<Str, Str>,
    /// The Service's `publishNotReadyAddresses`.
    publish_not_ready: bool,
}

/// `podToEndpoint`: a pod as an endpoint; ready when serving and not terminating, or always when the Service
/// publishes not-ready addresses.
fn endpoint(pod: &Pod, shared: &Shared) -> Endpoint {
    let serving = pod.is_ready();
    let terminating = pod.metadata.deletion_timestamp.is_some();
    Endpoint {
        addresses: vec![pod.status.pod_ip.clone()],
        conditions: EndpointConditions {
            ready: Some(shared.publish_not_ready || (serving && !terminating)),
            serving: Some(serving),
            terminating: Some(terminating),
        },
        node_name: pod.spec.node_name.clone(),
        zone: shared.zones.get(&pod.spec.node_name).cloned().unwrap_or_else(|| shared.empty.clone()),
        target_ref: Some(ObjectReference {
            kind: shared.pod.clone(),
            namespace: pod.metadata.namespace.clone(),
            name: pod.metadata.name.clone(),
            uid: pod.metadata.uid.clone(),
            api_version: shared.empty.clone(),
        }),
    }
}

/// The Services of `namespace` whose selector matches `labels` (`GetPodServiceMemberships`), looked up by the
/// Service cache's selector index rather than every Service of the namespace.
fn services_selecting(caches: Caches<'_>, namespace: &str, labels: &Labels, out: &mut Enqueue) {
    let found = caches.of(Kind::Service).services_selecting(namespace, labels);
    out.extend(found.into_iter().map(|o| (o.key(), 0)));
}

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
        self.written.clear();
    }
    fn retained(&self) -> usize {
        self.written.values().map(|w| w.len()).sum()
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
                services_selecting(caches, &p.metadata.namespace, &p.metadata.labels, out);
                // A relabelled pod leaves the Services its old labels matched.
                if let Some(old) = ev.old().and_then(|o| o.as_pod()) {
                    if old.metadata.labels != p.metadata.labels {
                        services_selecting(caches, &old.metadata.namespace, &old.metadata.labels, out);
                    }
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
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(svc) = cx.caches.of(Kind::Service).get(key).and_then(|o| o.as_service()).cloned() else {
            // Its slices go with it (the garbage collector follows their owner reference).
            self.written.remove(key);
            return Ok(ReconcileAction::Done);
        };
        if self.stale(key, cx.caches) {
            return Err(format!(
                "Error syncing endpoint slices for service \"{key}\": EndpointSlice informer cache is out of date"
            ));
        }
        if svc.spec.selector.is_empty() || svc.type_name() == "ExternalName" || svc.metadata.is_terminating() {
            return Ok(ReconcileAction::Done);
        }
        let desired = desired_endpoints(&svc, cx.caches);
        let existing: Vec<EndpointSlice> = cx
            .caches
            .of(Kind::EndpointSlice)
            .by_owner(&svc.metadata.uid)
            .filter_map(|o| o.as_endpointslice())
            .filter(|e| e.metadata.label(LABEL_MANAGED_BY) == Some(MANAGED_BY_CONTROLLER))
            .cloned()
            .collect();
        let plan = plan(&svc, desired, existing);
        let written = self.written.entry(key.clone()).or_default();
        let result = apply(plan, cx, written);
        if written.is_empty() {
            self.written.remove(key);
        }
        result.map_err(|e| format!("Error syncing endpoint slices for service \"{key}\": {e}"))?;
        Ok(ReconcileAction::Done)
    }
}

/// The endpoints the Service's pods make, by resolved port set (in a stable order), each set in pod order.
fn desired_endpoints(svc: &Service, caches: Caches<'_>) -> BTreeMap<Vec<(String, String, i32)>, Vec<Endpoint>> {
    let selector = LabelSelector::from_labels(svc.spec.selector.clone());
    let mut shared = Shared {
        pod: s("Pod"),
        empty: s(""),
        zones: FxHashMap::default(),
        publish_not_ready: svc.spec.publish_not_ready_addresses == Some(true),
    };
    let nodes = caches.of(Kind::Node);
    let mut out: BTreeMap<Vec<(String, String, i32)>, Vec<Endpoint>> = BTreeMap::new();
    for o in caches.of(Kind::Pod).select(&svc.metadata.namespace, &selector) {
        let Some(pod) = o.as_pod() else { continue };
        if !in_endpoints(pod) {
            continue;
        }
        let ports: Vec<(String, String, i32)> = svc
            .spec
            .ports
            .iter()
            .filter_map(|p| target(pod, p).map(|t| (p.name.to_string(), p.protocol.to_string(), t)))
            .collect();
        // The zone of each node the pods run on, looked up once per sync.
        if !shared.zones.contains_key(&pod.spec.node_name) {
            let zone = nodes
                .get(&ObjKey { namespace: shared.empty.clone(), name: pod.spec.node_name.clone() })
                .and_then(|n| n.meta().labels.get("topology.kubernetes.io/zone").cloned())
                .unwrap_or_else(|| shared.empty.clone());
            shared.zones.insert(pod.spec.node_name.clone(), zone);
        }
        out.entry(ports).or_default().push(endpoint(pod, &shared));
    }
    out
}

fn slice_ports(ports: &[(String, String, i32)]) -> Option<Vec<EndpointPort>> {
    Some(
        ports
            .iter()
            .map(|(name, protocol, port)| EndpointPort { name: s(name), protocol: s(protocol), port: Some(*port) })
            .collect(),
    )
}

fn ports_key(e: &EndpointSlice) -> Vec<(String, String, i32)> {
    e.ports().iter().map(|p| (p.name.to_string(), p.protocol.to_string(), p.port.unwrap_or(0))).collect()
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
fn plan(
    svc: &Service,
    desired: BTreeMap<Vec<(String, String, i32)>, Vec<Endpoint>>,
    existing: Vec<EndpointSlice>,
) -> Plan {
    let mut plan = Plan::default();
    let labels = slice_labels(svc);
    let addr = |e: &Endpoint| e.addresses.first().cloned().unwrap_or_default();
    let mut by_ports: BTreeMap<Vec<(String, String, i32)>, Vec<EndpointSlice>> = BTreeMap::new();
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
        let mut slices = by_ports.remove(&ports).unwrap_or_default();
        // The desired endpoints by address (a lookup per kept endpoint), and their order for the new ones.
        let order: Vec<Str> = wanted.iter().map(addr).collect();
        let mut pending: FxHashMap<Str, Endpoint> = wanted.into_iter().map(|e| (addr(&e), e)).collect();
        let mut changed = vec![false; slices.len()];
        for (slice, changed) in slices.iter_mut().zip(&mut changed) {
            let kept: Vec<Endpoint> = slice.endpoints().iter().filter_map(|e| pending.remove(&addr(e))).collect();
            *changed = kept.as_slice() != slice.endpoints();
            slice.endpoints = Some(kept);
        }
        let mut wanted: Vec<Endpoint> = order.into_iter().filter_map(|a| pending.remove(&a)).collect();
        // Fill the slices with room, then new ones.
        for (slice, changed) in slices.iter_mut().zip(&mut changed) {
            let room = MAX_ENDPOINTS_PER_SLICE.saturating_sub(slice.endpoints().len());
            if room > 0 && !wanted.is_empty() {
                let take = room.min(wanted.len());
                slice.endpoints.get_or_insert_with(Vec::new).extend(wanted.drain(..take));
                *changed = true;
            }
        }
        while !wanted.is_empty() {
            let take = MAX_ENDPOINTS_PER_SLICE.min(wanted.len());
            plan.create.push(new_slice(svc, &labels, slice_ports(&ports), Some(wanted.drain(..take).collect())));
        }
        for (mut slice, changed) in slices.into_iter().zip(changed) {
            if slice.endpoints().is_empty() {
                plan.delete.push(slice);
            } else if changed {
                slice.metadata.labels = labels.clone();
                plan.update.push(slice);
            } else {
                plan.relabel(slice, &labels);
            }
        }
    }
    // Port sets no endpoint has any more (the placeholder among them).
    plan.delete.extend(by_ports.into_values().flatten());
    plan
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

/// Writes the plan, recording each write in `written`.
fn apply(plan: Plan, cx: &mut Ctx<'_, '_>, written: &mut FxHashMap<Str, u64>) -> Result<(), ApiError> {
    for e in plan.create {
        let made = cx.api.create(Object::EndpointSlice(e))?;
        written.insert(made.meta().name.clone(), made.meta().resource_version);
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
    }
    for e in plan.delete {
        let key = ObjKey { namespace: e.metadata.namespace.clone(), name: e.metadata.name.clone() };
        match cx.api.delete(Kind::EndpointSlice, &key, &DeleteOptions::default()) {
            Ok(_) | Err(ApiError::NotFound { .. }) => {
                written.insert(key.name, 0);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
