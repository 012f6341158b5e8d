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

/// An IPv4 service range as the API server allocates from it (pkg/registry/core/service/ipallocator, KEP-3070):
/// the network's own address and its broadcast address are never given; a lower band of
/// `min(max(16, size / 16), 256)` addresses (none in a range of 16 or fewer) is kept for the addresses people ask
/// for, and a Service that asks for none gets one from the upper band, from a random start, or from the lower
/// band once the upper one is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceRange {
    /// The network's address.
    pub base: u32,
    /// The number of addresses, a power of two.
    pub size: u32,
}

impl ServiceRange {
    pub const DEFAULT: ServiceRange = ServiceRange { base: SERVICE_CIDR.0, size: SERVICE_CIDR.1 };

    /// The first address a Service may have (the network's `.0` is not one).
    pub fn first(self) -> u32 {
        self.base.saturating_add(1)
    }

    /// The last address a Service may have (the broadcast address is not one).
    pub fn last(self) -> u32 {
        self.base.saturating_add(self.size.saturating_sub(2))
    }

    pub fn contains(self, addr: u32) -> bool {
        self.size > 2 && (self.first()..=self.last()).contains(&addr)
    }

    /// The lower band's size (`calculateRangeOffset`).
    pub fn static_band(self) -> u32 {
        if self.size <= 16 {
            0
        } else {
            (self.size / 16).clamp(16, 256)
        }
    }

    /// `allocateNextService`: a free address of the upper band, scanning from a random start and wrapping
    /// around; when that band is full, the same in the lower band. `draw(n)` is the random start in `[0, n)`;
    /// `taken` says whether an address is in use. `None`: the range is full.
    pub fn allocate(self, mut draw: impl FnMut(u32) -> u32, taken: impl Fn(u32) -> bool) -> Option<u32> {
        if self.size <= 2 {
            return None;
        }
        let upper = self.first().saturating_add(self.static_band());
        scan(upper, self.last(), &mut draw, &taken)
            .or_else(|| (self.static_band() > 0).then(|| scan(self.first(), upper - 1, &mut draw, &taken)).flatten())
    }
}

/// `ipIterator` and `allocateFromRange`: the first free address of `first..=last` from a random start.
fn scan(first: u32, last: u32, draw: &mut impl FnMut(u32) -> u32, taken: &impl Fn(u32) -> bool) -> Option<u32> {
    let n = last.checked_sub(first)?.checked_add(1)?;
    let start = draw(n) % n;
    (0..n).map(|i| first + (start + i) % n).find(|a| !taken(*a))
}
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

    fn ip(text: &str) -> u32 {
        parse_ipv4(text).expect("an address")
    }

    /// bitmap.go / ipallocator.go: 10.96.0.0/12 keeps its first 256 usable addresses (10.96.0.1 to 10.96.1.0)
    /// for static allocation; dynamic allocation runs from 10.96.1.1 to 10.111.255.254.
    #[test]
    fn the_default_range_bands_are_upstreams() {
        let r = ServiceRange::DEFAULT;
        assert_eq!((r.first(), r.last(), r.static_band()), (ip("10.96.0.1"), ip("10.111.255.254"), 256));
        let free = |_: u32| false;
        // The random start at its two ends: the upper band's first and last addresses.
        assert_eq!(r.allocate(|_| 0, free).map(ipv4).as_deref(), Some("10.96.1.1"));
        assert_eq!(r.allocate(|n| n - 1, free).map(ipv4).as_deref(), Some("10.111.255.254"));
        // Every draw is over the upper band's addresses, (2^20 - 2) - 256 of them.
        let mut asked = Vec::new();
        r.allocate(
            |n| {
                asked.push(n);
                0
            },
            free,
        );
        assert_eq!(asked, [(1 << 20) - 2 - 256]);
        for (addr, inside) in
            [("10.96.0.0", false), ("10.96.0.1", true), ("10.111.255.254", true), ("10.111.255.255", false)]
        {
            assert_eq!(r.contains(ip(addr)), inside, "{addr}");
        }
    }

    /// ipallocator.go allocateNextService: a full upper band falls back to the lower one; both full is None.
    #[test]
    fn a_full_upper_band_falls_back_to_the_lower_one() {
        let r = ServiceRange::DEFAULT;
        let upper = |a: u32| a >= ip("10.96.1.1");
        let mut asked = Vec::new();
        let got = r.allocate(
            |n| {
                asked.push(n);
                n - 1
            },
            upper,
        );
        assert_eq!(got.map(ipv4).as_deref(), Some("10.96.1.0"));
        assert_eq!(asked, [(1 << 20) - 2 - 256, 256]);
        assert_eq!(r.allocate(|_| 0, upper).map(ipv4).as_deref(), Some("10.96.0.1"));
        assert_eq!(r.allocate(|_| 0, |_| true), None);
        // The wrap-around: from the last address back to the band's first.
        let all_but_first = |a: u32| a != ip("10.96.1.1");
        assert_eq!(r.allocate(|n| n - 1, all_but_first).map(ipv4).as_deref(), Some("10.96.1.1"));
    }

    /// calculateRangeOffset: 16 or fewer addresses have no lower band; then size / 16, at least 16, at most 256.
    #[test]
    fn the_lower_band_grows_with_the_range() {
        let band = |bits: u32| ServiceRange { base: ip("10.0.0.0"), size: 1 << (32 - bits) }.static_band();
        assert_eq!([28, 24, 20, 16, 12].map(band), [0, 16, 256, 256, 256]);
        assert_eq!(band(21), 128);
        let small = ServiceRange { base: ip("10.0.0.0"), size: 16 };
        assert_eq!(small.allocate(|_| 0, |_| false).map(ipv4).as_deref(), Some("10.0.0.1"));
        let tiny = ServiceRange { base: ip("10.0.0.0"), size: 2 };
        assert_eq!(tiny.allocate(|_| 0, |_| false), None);
    }
}
