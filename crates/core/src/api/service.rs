//! Service (core/v1): a stable virtual IP and ports in front of the pods its selector matches. The API server
//! defaults it and allocates its cluster IP and node ports ([`crate::store`]); kubeloop routes no traffic.

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;

use super::meta::{is_empty_str, ObjectMeta};
use super::{IntOrString, Labels, Str};

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Service {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ServiceSpec,
    #[serde(default)]
    pub status: ServiceStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ServiceSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ServicePort>,
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub selector: Labels,
    /// An address, `None` (headless) or empty (allocated on create).
    #[serde(default, rename = "clusterIP", skip_serializing_if = "is_empty_str")]
    pub cluster_ip: Str,
    #[serde(default, rename = "clusterIPs", skip_serializing_if = "Vec::is_empty")]
    pub cluster_ips: Vec<Str>,
    /// `ClusterIP` (the default), `NodePort`, `LoadBalancer` or `ExternalName`.
    #[serde(default, rename = "type", skip_serializing_if = "is_empty_str")]
    pub type_: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub external_name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub session_affinity: Str,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ip_families: Vec<Str>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub ip_family_policy: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub internal_traffic_policy: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub external_traffic_policy: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub publish_not_ready_addresses: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ServicePort {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub protocol: Str,
    #[serde(default)]
    pub port: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_port: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub node_port: i32,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ServiceStatus {
    /// Always present, empty: kubeloop has no load balancer (`loadBalancer: {}`, as upstream prints it).
    #[serde(default)]
    pub load_balancer: LoadBalancerStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub struct LoadBalancerStatus {}

impl Service {
    /// The type, `ClusterIP` when not given.
    pub fn type_name(&self) -> &str {
        if self.spec.type_.is_empty() {
            "ClusterIP"
        } else {
            &self.spec.type_
        }
    }

    /// Whether the type asks for node ports (NodePort, LoadBalancer).
    pub fn has_node_ports(&self) -> bool {
        matches!(self.type_name(), "NodePort" | "LoadBalancer")
    }
}

/// The service IP range (kubeadm's default `--service-cluster-ip-range`, 10.96.0.0/12) as its first address
/// and size.
pub const SERVICE_CIDR: (u32, u32) = (10 << 24 | 96 << 16, 1 << 20);
/// The node port range (`--service-node-port-range`'s default).
pub const NODE_PORTS: (i32, i32) = (30000, 32767);

/// `a.b.c.d` of an address.
pub fn ipv4(addr: u32) -> String {
    format!("{}.{}.{}.{}", addr >> 24, (addr >> 16) & 255, (addr >> 8) & 255, addr & 255)
}

/// The address of `a.b.c.d`.
pub fn parse_ipv4(text: &str) -> Option<u32> {
    let mut out = 0u32;
    let mut parts = 0;
    for p in text.split('.') {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) || (p.len() > 1 && p.starts_with('0'))
        {
            return None;
        }
        let v: u32 = p.parse().ok()?;
        if v > 255 {
            return None;
        }
        out = out << 8 | v;
        parts += 1;
    }
    (parts == 4).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_print_and_parse() {
        assert_eq!(ipv4(SERVICE_CIDR.0 + 1), "10.96.0.1");
        assert_eq!(ipv4(SERVICE_CIDR.0 + SERVICE_CIDR.1 - 2), "10.111.255.254");
        assert_eq!(parse_ipv4("10.96.0.10"), Some(SERVICE_CIDR.0 + 10));
        for bad in ["10.96.0", "10.96.0.256", "10.096.0.1", "a.b.c.d", "1.2.3.4.5", ""] {
            assert_eq!(parse_ipv4(bad), None, "{bad}");
        }
    }
}
