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
