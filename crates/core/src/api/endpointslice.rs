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
/// The label (empty value) on the slices of a Service without a cluster IP (`v1.IsHeadlessService`).
pub const LABEL_HEADLESS: &str = "service.kubernetes.io/headless";
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
pub struct ServiceEndpoints<'a> {
    /// Whether any EndpointSlice names the Service (kubectl prints `<none>` without one).
    pub sliced: bool,
    /// Every endpoint of the slices, once, in the slices' order.
    pub endpoints: Vec<SeenEndpoint<'a>>,
    /// The endpoints met for each port of the Service, port by port in its order (port 0 for every port when the
    /// Service has none), each in kubectl's order: (the Service port's index, the endpoint's index in `endpoints`,
    /// the port number the slice gives).
    pub met: Vec<(usize, usize, Option<i32>)>,
}

/// One endpoint of a Service's slices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeenEndpoint<'a> {
    /// Its first address: the one kubectl shows.
    pub address: &'a str,
    /// Ready to receive traffic (a `ready` condition left unset counts as ready).
    pub ready: bool,
    /// The object behind it (a pod), when the slice names one.
    pub target: Option<&'a Str>,
    /// Met for one of the Service's ports at least: one of the Service's endpoints, ready or not (one a slice lists
    /// only under a port the Service does not have is not).
    pub met: bool,
}

impl<'a> ServiceEndpoints<'a> {
    /// Reads `svc`'s slices (those labelled with its name, in the API's order).
    pub fn read(svc: &super::Service, slices: &[&'a EndpointSlice]) -> ServiceEndpoints<'a> {
        let mut out = ServiceEndpoints { sliced: !slices.is_empty(), ..ServiceEndpoints::default() };
        // Where each slice's endpoints start in `endpoints`.
        let mut starts = Vec::with_capacity(slices.len());
        for slice in slices {
            starts.push(out.endpoints.len());
            for e in slice.endpoints() {
                out.endpoints.push(SeenEndpoint {
                    address: e.addresses.first().map_or("", |a| a),
                    ready: e.conditions.ready != Some(false),
                    target: e.target_ref.as_ref().map(|r| &r.name),
                    met: false,
                });
            }
        }
        for k in 0..svc.spec.ports.len().max(1) {
            let name = svc.spec.ports.get(k).map(|p| &*p.name);
            for (slice, &start) in slices.iter().zip(&starts) {
                // A slice without ports reads as one port of every name, without a number.
                let ports = slice.ports();
                for j in 0..ports.len().max(1) {
                    let port = ports.get(j);
                    if port.is_some_and(|p| name.is_some_and(|n| *p.name != *n)) {
                        continue;
                    }
                    let number = port.and_then(|p| p.port);
                    for i in start..start + slice.endpoints().len() {
                        out.met.push((k, i, number));
                        out.endpoints[i].met = true;
                    }
                }
            }
        }
        out
    }
}
