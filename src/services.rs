//! The page's Services list: each Service and the pods behind its ready endpoints, read from its EndpointSlices as
//! `kubectl describe service` reads them. A leaf of the page's modules: the snapshot and the lessons' checks both
//! read it.

use kubeloop_engine::api::endpointslice::{ServiceEndpoints, LABEL_SERVICE_NAME};
use kubeloop_engine::api::{EndpointSlice, Kind, ObjKey, Service};
use kubeloop_engine::sim::Sim;

use crate::view::ServiceView;

/// Services shown at most (the rest are counted).
pub const MAX_SERVICE_VIEWS: usize = 50;
/// Pods named per Service.
const MAX_SERVICE_PODS: usize = 12;

/// The Services and the pods behind their endpoints now, from their EndpointSlices (one pass over the slices);
/// kube-system's add-on one (kube-dns) only when `addons_shown`, as its pods.
pub fn build_services(sim: &Sim, addons_shown: bool) -> Vec<ServiceView> {
    let store = sim.store();
    let services: Vec<&Service> = store
        .objects(Kind::Service)
        .filter_map(|o| o.as_service())
        .filter(|s| addons_shown || !kubeloop_engine::addons::is_addon(&s.metadata))
        .take(MAX_SERVICE_VIEWS)
        .collect();
    // The store lists in key order (namespace, then name): a slice finds its Service by a binary search.
    let position = |namespace: &str, name: &str| {
        services.binary_search_by(|s| (&*s.metadata.namespace, &*s.metadata.name).cmp(&(namespace, name))).ok()
    };
    let mut slices: Vec<Vec<&EndpointSlice>> = vec![Vec::new(); services.len()];
    if !services.is_empty() {
        for slice in store.objects(Kind::EndpointSlice).filter_map(|o| o.as_endpointslice()) {
            let Some(svc) = slice.metadata.label(LABEL_SERVICE_NAME) else { continue };
            if let Some(i) = position(&slice.metadata.namespace, svc) {
                slices[i].push(slice);
            }
        }
    }
    let mut views = Vec::with_capacity(services.len());
    for (svc, slices) in services.iter().zip(&slices) {
        views.push(service_view(svc, slices));
    }
    views
}

/// A Service's card: its ready endpoints as `kubectl describe service` reads them ([`ServiceEndpoints`]).
fn service_view(svc: &Service, slices: &[&EndpointSlice]) -> ServiceView {
    let endpoints = ServiceEndpoints::read(svc, slices);
    let (mut ready, mut not_ready, mut ready_pods) = (0, 0, Vec::new());
    for e in endpoints.endpoints.iter().filter(|e| e.met) {
        if !e.ready {
            not_ready += 1;
            continue;
        }
        ready += 1;
        if let Some(pod) = e.target.filter(|_| ready_pods.len() < MAX_SERVICE_PODS) {
            ready_pods.push(pod.clone());
        }
    }
    kubeloop_engine::sort::sort(&mut ready_pods);
    ServiceView {
        key: ObjKey { namespace: svc.metadata.namespace.clone(), name: svc.metadata.name.clone() },
        type_: svc.spec.type_.clone(),
        cluster_ip: svc.spec.cluster_ip.clone(),
        ready,
        not_ready,
        ready_pods,
    }
}
