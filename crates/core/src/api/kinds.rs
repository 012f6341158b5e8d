//! The kind registry: one description of each kind the API serves, which the store, the manifest reader, kubectl's
//! discovery (`api-resources`, resource names, completion) and the messages read. A new kind is a [`Kind`] variant
//! and a row here (and its type, field table and printers elsewhere).

use super::Kind;

/// What the API server and discovery say of one kind.
#[derive(Clone, Copy, Debug)]
pub struct KindInfo {
    pub kind: Kind,
    /// The kind's name (`Deployment`).
    pub name: &'static str,
    /// `group/version`, or the version alone for the core group (`apps/v1`, `v1`).
    pub api_version: &'static str,
    /// API group (empty for the core group) and version.
    pub group: &'static str,
    pub version: &'static str,
    /// The resource's names: plural (`deployments`), singular and short names (`deploy`).
    pub plural: &'static str,
    pub singular: &'static str,
    pub short_names: &'static [&'static str],
    /// `resource.group` as kubectl names objects in its messages (`deployment.apps`, `pod`).
    pub resource_ref: &'static str,
    pub namespaced: bool,
    /// Whether the API server keeps `metadata.generation`: set to 1 on create and bumped on spec changes by the
    /// strategies of pods (1.34), ReplicaSets, Deployments, PodDisruptionBudgets and EndpointSlices.
    pub generation: bool,
    /// Whether the kind has a `/status` subresource: then a main-resource update never changes status and a status
    /// update never changes anything else.
    pub status_subresource: bool,
    /// The verbs discovery lists.
    pub verbs: &'static [&'static str],
}

const RW: &[&str] = &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/// Every kind, in [`Kind::ALL`]'s order (`KINDS[k as usize].kind == k`).
pub const KINDS: [KindInfo; 13] = [
    KindInfo {
        kind: Kind::Namespace,
        name: "Namespace",
        api_version: "v1",
        group: "",
        version: "v1",
        plural: "namespaces",
        singular: "namespace",
        short_names: &["ns"],
        resource_ref: "namespace",
        namespaced: false,
        generation: false,
        status_subresource: true,
        verbs: &["create", "delete", "get", "list", "patch", "update", "watch"],
    },
    KindInfo {
        kind: Kind::Node,
        name: "Node",
        api_version: "v1",
        group: "",
        version: "v1",
        plural: "nodes",
        singular: "node",
        short_names: &["no"],
        resource_ref: "node",
        namespaced: false,
        generation: false,
        status_subresource: true,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::Pod,
        name: "Pod",
        api_version: "v1",
        group: "",
        version: "v1",
        plural: "pods",
        singular: "pod",
        short_names: &["po"],
        resource_ref: "pod",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::ReplicaSet,
        name: "ReplicaSet",
        api_version: "apps/v1",
        group: "apps",
        version: "v1",
        plural: "replicasets",
        singular: "replicaset",
        short_names: &["rs"],
        resource_ref: "replicaset.apps",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::Deployment,
        name: "Deployment",
        api_version: "apps/v1",
        group: "apps",
        version: "v1",
        plural: "deployments",
        singular: "deployment",
        short_names: &["deploy"],
        resource_ref: "deployment.apps",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::Lease,
        name: "Lease",
        api_version: "coordination.k8s.io/v1",
        group: "coordination.k8s.io",
        version: "v1",
        plural: "leases",
        singular: "lease",
        short_names: &[],
        resource_ref: "lease.coordination.k8s.io",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::Event,
        name: "Event",
        api_version: "v1",
        group: "",
        version: "v1",
        plural: "events",
        singular: "event",
        short_names: &["ev"],
        resource_ref: "event",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::ConfigMap,
        name: "ConfigMap",
        api_version: "v1",
        group: "",
        version: "v1",
        plural: "configmaps",
        singular: "configmap",
        short_names: &["cm"],
        resource_ref: "configmap",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::Secret,
        name: "Secret",
        api_version: "v1",
        group: "",
        version: "v1",
        plural: "secrets",
        singular: "secret",
        short_names: &[],
        resource_ref: "secret",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::ServiceAccount,
        name: "ServiceAccount",
        api_version: "v1",
        group: "",
        version: "v1",
        plural: "serviceaccounts",
        singular: "serviceaccount",
        short_names: &["sa"],
        resource_ref: "serviceaccount",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::Service,
        name: "Service",
        api_version: "v1",
        group: "",
        version: "v1",
        plural: "services",
        singular: "service",
        short_names: &["svc"],
        resource_ref: "service",
        namespaced: true,
        generation: false,
        status_subresource: true,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::EndpointSlice,
        name: "EndpointSlice",
        api_version: "discovery.k8s.io/v1",
        group: "discovery.k8s.io",
        version: "v1",
        plural: "endpointslices",
        singular: "endpointslice",
        short_names: &[],
        resource_ref: "endpointslice.discovery.k8s.io",
        namespaced: true,
        generation: true,
        status_subresource: false,
        verbs: RW,
    },
    KindInfo {
        kind: Kind::PodDisruptionBudget,
        name: "PodDisruptionBudget",
        api_version: "policy/v1",
        group: "policy",
        version: "v1",
        plural: "poddisruptionbudgets",
        singular: "poddisruptionbudget",
        short_names: &["pdb"],
        resource_ref: "poddisruptionbudget.policy",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
    },
];

/// The kinds in discovery's order (`kubectl api-resources` before its sort): the core group, then by group.
pub const DISCOVERY: [Kind; 13] = [
    Kind::ConfigMap,
    Kind::Event,
    Kind::Namespace,
    Kind::Node,
    Kind::Pod,
    Kind::Secret,
    Kind::ServiceAccount,
    Kind::Service,
    Kind::Deployment,
    Kind::ReplicaSet,
    Kind::Lease,
    Kind::EndpointSlice,
    Kind::PodDisruptionBudget,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_its_row_in_its_place_and_one_place_in_discovery() {
        for (i, k) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(KINDS[i].kind, k);
            assert_eq!(DISCOVERY.iter().filter(|d| **d == k).count(), 1, "{k}");
            let info = k.info();
            let api_version = if info.group.is_empty() {
                info.version.to_string()
            } else {
                format!("{}/{}", info.group, info.version)
            };
            assert_eq!(info.api_version, api_version, "{k}");
            let resource_ref = if info.group.is_empty() {
                info.singular.to_string()
            } else {
                format!("{}.{}", info.singular, info.group)
            };
            assert_eq!(info.resource_ref, resource_ref, "{k}");
            assert_eq!(info.singular, info.name.to_ascii_lowercase(), "{k}");
        }
    }
}
