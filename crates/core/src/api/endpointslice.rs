//! EndpointSlice (discovery.k8s.io/v1): a part of a Service's endpoints, the pods its selector matches, with
//! their addresses and readiness. The EndpointSlice controller keeps them ([`crate::controllers::endpointslice`]).

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;

use super::meta::{is_empty_str, ObjectMeta};
use super::{ObjectReference, Str};

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct EndpointSlice {
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// `IPv4` here.
    #[serde(default)]
    pub address_type: Str,
    /// Always written, `null` when there are none (upstream's placeholder slice prints `endpoints: null`).
    #[serde(default)]
    pub endpoints: Option<Vec<Endpoint>>,
    #[serde(default)]
    pub ports: Option<Vec<EndpointPort>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    #[serde(default)]
    pub addresses: Vec<Str>,
    #[serde(default)]
    pub conditions: EndpointConditions,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub node_name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub zone: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ref: Option<ObjectReference>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub struct EndpointConditions {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serving: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminating: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct EndpointPort {
    /// Present even when empty (a Service port without a name): the controller always sets it.
    #[serde(default)]
    pub name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub protocol: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

/// The label naming a slice's Service.
pub const LABEL_SERVICE_NAME: &str = "kubernetes.io/service-name";
/// The label naming who manages a slice, and the controller's value of it.
pub const LABEL_MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
pub const MANAGED_BY_CONTROLLER: &str = "endpointslice-controller.k8s.io";
/// `--max-endpoints-per-slice`'s default.
pub const MAX_ENDPOINTS_PER_SLICE: usize = 100;

impl EndpointSlice {
    pub fn endpoints(&self) -> &[Endpoint] {
        self.endpoints.as_deref().unwrap_or(&[])
    }
    pub fn ports(&self) -> &[EndpointPort] {
        self.ports.as_deref().unwrap_or(&[])
    }
}

/// A Service's endpoints as its EndpointSlices give them, read as `kubectl describe service` reads them (upstream's
/// `formatEndpointSlices`, kubectl 1.34): the one reading behind describe's `Endpoints:` lines and the page's
/// Service panel, so that the two agree. For each port of the Service, the slices in turn; in a slice with ports,
/// each of its ports of that name, then each endpoint (its first address, with that port's number); in a slice
/// without ports (a headless Service's), each endpoint's first address. An endpoint whose `ready` condition is not
/// set counts as ready: the API tells consumers to read that unknown state so, and kubectl does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServiceEndpoints {
    /// Whether any EndpointSlice names the Service (kubectl prints `<none>` without one).
    pub sliced: bool,
    /// Every endpoint of the slices, once, in the slices' order.
    pub endpoints: Vec<SeenEndpoint>,
    /// Per port of the Service, in its order (one entry, for every port, when the Service has none): the
    /// endpoints met for it in kubectl's order, as indices into `endpoints`, with the port number the slice gives.
    pub ports: Vec<Vec<(usize, Option<i32>)>>,
}

/// One endpoint of a Service's slices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenEndpoint {
    /// Its first address: the one kubectl shows.
    pub address: Str,
    /// Ready to receive traffic (a `ready` condition left unset counts as ready).
    pub ready: bool,
    /// The object behind it (a pod), when the slice names one.
    pub target: Option<Str>,
}

impl ServiceEndpoints {
    /// Reads `svc`'s slices (those labelled with its name, in the API's order).
    pub fn read<'a>(svc: &super::Service, slices: impl IntoIterator<Item = &'a EndpointSlice>) -> ServiceEndpoints {
        let slices: Vec<&EndpointSlice> = slices.into_iter().collect();
        let mut endpoints = Vec::new();
        // Where each slice's endpoints start in `endpoints`.
        let mut starts = Vec::with_capacity(slices.len());
        for slice in &slices {
            starts.push(endpoints.len());
            endpoints.extend(slice.endpoints().iter().map(|e| SeenEndpoint {
                address: e.addresses.first().cloned().unwrap_or_default(),
                ready: e.conditions.ready != Some(false),
                target: e.target_ref.as_ref().map(|r| r.name.clone()),
            }));
        }
        let names: Vec<Option<&str>> = if svc.spec.ports.is_empty() {
            vec![None]
        } else {
            svc.spec.ports.iter().map(|p| Some(&*p.name)).collect()
        };
        let ports = names
            .into_iter()
            .map(|name| {
                let mut met = Vec::new();
                for (slice, &start) in slices.iter().zip(&starts) {
                    let all = start..start + slice.endpoints().len();
                    if slice.ports().is_empty() {
                        met.extend(all.map(|i| (i, None)));
                        continue;
                    }
                    for p in slice.ports().iter().filter(|p| name.is_none_or(|n| *p.name == *n)) {
                        met.extend(all.clone().map(|i| (i, p.port)));
                    }
                }
                met
            })
            .collect();
        ServiceEndpoints { sliced: !slices.is_empty(), endpoints, ports }
    }

    /// Each endpoint met for one of the Service's ports at least, once, in the slices' order: the Service's
    /// endpoints, ready or not (one a slice lists only under a port the Service does not have is none of them).
    pub fn met(&self) -> impl Iterator<Item = &SeenEndpoint> {
        let mut met = vec![false; self.endpoints.len()];
        for &(i, _) in self.ports.iter().flatten() {
            met[i] = true;
        }
        self.endpoints.iter().zip(met).filter_map(|(e, m)| m.then_some(e))
    }
}
