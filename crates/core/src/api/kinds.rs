//! The kind registry: one description of each kind the API serves, which the store, the manifest reader, kubectl's
//! discovery (`api-resources`, resource names, completion), the bounds and the messages read. A new kind is a
//! [`Kind`] variant and a row here, and its fields' rows in `data/explain.tsv` (kubeloop-engine's). A kind kubeloop
//! stores without simulating ([`StoredKind`]) needs nothing more: its objects are [`super::Stored`] and its row says
//! how kubectl prints them. A simulated kind adds its typed struct, field table, printers and controller.

use serde::{Deserialize, Serialize};

use crate::limits;

/// The kinds the API store serves. A new kind goes last: the order is the store's and the informers' (a kind
/// placed before another would move its place in every history).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Kind {
    Namespace,
    Node,
    Pod,
    ReplicaSet,
    Deployment,
    Lease,
    Event,
    ConfigMap,
    Secret,
    ServiceAccount,
    Service,
    EndpointSlice,
    PodDisruptionBudget,
    PriorityClass,
    Ingress,
    IngressClass,
    NetworkPolicy,
    Role,
    RoleBinding,
    ClusterRole,
    ClusterRoleBinding,
    ResourceQuota,
    LimitRange,
    PersistentVolume,
    DaemonSet,
    Job,
    CronJob,
    StatefulSet,
    PersistentVolumeClaim,
    StorageClass,
}

impl Kind {
    pub const ALL: [Kind; 30] = [
        Kind::Namespace,
        Kind::Node,
        Kind::Pod,
        Kind::ReplicaSet,
        Kind::Deployment,
        Kind::Lease,
        Kind::Event,
        Kind::ConfigMap,
        Kind::Secret,
        Kind::ServiceAccount,
        Kind::Service,
        Kind::EndpointSlice,
        Kind::PodDisruptionBudget,
        Kind::PriorityClass,
        Kind::Ingress,
        Kind::IngressClass,
        Kind::NetworkPolicy,
        Kind::Role,
        Kind::RoleBinding,
        Kind::ClusterRole,
        Kind::ClusterRoleBinding,
        Kind::ResourceQuota,
        Kind::LimitRange,
        Kind::PersistentVolume,
        Kind::DaemonSet,
        Kind::Job,
        Kind::CronJob,
        Kind::StatefulSet,
        Kind::PersistentVolumeClaim,
        Kind::StorageClass,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The kind's row of the registry ([`KINDS`]).
    pub fn info(self) -> &'static KindInfo {
        &KINDS[self as usize]
    }

    /// Whether the API server keeps `metadata.generation` for this kind ([`KindInfo::generation`]).
    pub fn has_generation(self) -> bool {
        self.info().generation
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn api_version(self) -> &'static str {
        self.info().api_version
    }

    /// The lowercase plural resource name (`pods`, `deployments`).
    pub fn plural(self) -> &'static str {
        self.info().plural
    }

    /// Objects of the kind the API store holds at most (its row's bound, from [`limits`]): a create beyond it is
    /// refused for every client, a controller's surge included.
    pub fn max_objects(self) -> usize {
        self.info().max_objects
    }

    /// Why a create is refused at [`Kind::max_objects`], naming whose bound it is.
    pub fn refusal(self, cap: usize) -> String {
        let what = match self {
            Kind::Node | Kind::Pod | Kind::Namespace | Kind::Service => "Kubernetes' scalability envelope",
            _ => "kubeloop's own bound",
        };
        format!("kubeloop simulates at most {cap} {} ({what})", self.plural())
    }

    /// `resource.group` as kubectl names objects in its messages (`deployment.apps`, `pod`).
    pub fn resource_ref(self) -> &'static str {
        self.info().resource_ref
    }

    pub fn namespaced(self) -> bool {
        self.info().namespaced
    }

    /// Whether the kind has a `/status` subresource ([`KindInfo::status_subresource`]).
    pub fn has_status_subresource(self) -> bool {
        self.info().status_subresource
    }

    pub fn from_type(api_version: &str, kind: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == kind && k.api_version() == api_version)
    }
}

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
    /// `resource.group` as the API server names the resource in its errors (`deployments.apps`, `pods`).
    pub group_resource: &'static str,
    pub namespaced: bool,
    /// Whether the API server keeps `metadata.generation`: set to 1 on create and bumped on spec changes by the
    /// strategies of pods (1.34), ReplicaSets, Deployments, PodDisruptionBudgets and EndpointSlices.
    pub generation: bool,
    /// Whether the kind has a `/status` subresource: then a main-resource update never changes status and a status
    /// update never changes anything else.
    pub status_subresource: bool,
    /// The verbs discovery lists.
    pub verbs: &'static [&'static str],
    /// Whether a manifest may hold it (`kubectl apply`); Leases and Events are written by the control plane only.
    pub applicable: bool,
    /// Objects of the kind the API store holds at most (a constant of [`limits`], the one place for bounds).
    pub max_objects: usize,
    /// For a kind kubeloop stores and serves without simulating it: how kubectl prints it. `None`: simulated.
    pub stored: Option<StoredKind>,
    /// The field index the API server keeps for the kind (`store/index.rs`), if any.
    pub field_index: Option<FieldIndex>,
}

/// A field index of the API server's: the field selector it answers without reading every object of the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldIndex {
    /// Pods by `spec.nodeName` (the kubelet's watch), with each node's tally by phase.
    PodNodeName,
    /// Events by `involvedObject.kind` and `involvedObject.name` (`kubectl describe`'s search).
    EventInvolvedObject,
}

/// How kubectl prints a kind kubeloop only stores: `get`'s columns after NAME, and `-o wide`'s after them, each a
/// heading, the field path it shows and how ([`Cell`]); and `describe`'s lines, each a label, a field path and a
/// [`Cell`] (a label indented by two spaces is a line of the section above it, a line without a path a section's
/// heading: `Role:`), then the object's Events or not. The paths name fields of the kind's schema.
#[derive(Clone, Copy, Debug)]
pub struct StoredKind {
    pub columns: &'static [Column],
    pub wide: &'static [Column],
    pub describe: &'static [Column],
    /// Whether describe lists the object's Events after its lines.
    pub events: bool,
    /// The annotation that marks the default object of the kind (`storageclass.kubernetes.io/is-default-class`):
    /// `get` prints such an object's name with ` (default)` (printers.go's printStorageClass).
    pub default_annotation: Option<&'static str>,
}

/// A heading (or label), the dotted path of the field it shows below the object (`spec.rules`, `metadata.name`),
/// and how it shows it.
pub type Column = (&'static str, &'static str, Cell);

/// How a stored kind's cell prints the value at its path: the formats of printers.go's printers and describe.go's
/// describers, one each, shared by every kind that prints so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// `%v` of the Go field: a text as it is, texts as `[a b]`, a number or boolean as JSON writes it; a missing
    /// field as its type's zero value.
    Value,
    /// The object's age (`translateTimestampSince`; the path is empty).
    Age,
    /// The creation timestamp in RFC 3339 (`CREATED AT`, the API server's table for a kind printers.go has no
    /// printer for; the path is empty).
    CreatedAt,
    /// The text, `<none>` when missing.
    OrNone,
    /// The text, `<unset>` when missing.
    OrUnset,
    /// Texts joined by `, `.
    Joined,
    /// A label selector as `metav1.FormatLabelSelector` writes it (`<none>` when empty).
    Selector,
    /// An Ingress's rules as `formatHosts` writes their hosts: three at most, `*` when none.
    Hosts,
    /// An Ingress's load balancer as `ingressLoadBalancerStatusStringer` writes it: its points' IPs (or hostnames),
    /// sorted, joined by `,`.
    LoadBalancer,
    /// An Ingress's TLS as `formatPorts` writes it: `80, 443` with TLS, `80` without.
    TlsPorts,
    /// A reference as `FIELD/name` (`Role/reader` of a roleRef by `kind`, `default/claim` of a claimRef by
    /// `namespace`); empty when missing.
    Ref(&'static str),
    /// An IngressClass's parameters as `kind[.apiGroup]/name`, `<none>` when missing.
    Parameters,
    /// The subjects of one kind (`User`, `Group`, `ServiceAccount`) as `rbac.SubjectsStrings` writes them, joined
    /// by `, ` (a ServiceAccount as `namespace/name`).
    Subjects(&'static str),
    /// Access modes as `GetAccessModesAsString` writes them (`RWO,ROX,RWX,RWOP`).
    AccessModes,
    /// A quota's status as printResourceQuota writes it: `resource: used/hard` of each hard limit, sorted, those
    /// named `limits.*` (true) or the others, joined by `, `.
    Quota(bool),
    /// Labels or annotations one a line (describe's `printLabelsMultiline`, `printAnnotationsMultiline`: the
    /// last-applied configuration left out); `<none>` when none.
    Multiline,
    /// describe's table of a list (label: the section's heading): each item a row of its fields (`%v`).
    Table(&'static [(&'static str, &'static str)]),
    /// describeQuota's table: each resource of the status's hard limits, sorted, with what is used of it.
    QuotaTable,
    /// describe's table of a Role's rules (describeRole): a row per resource (`resource.group`, or the rule's
    /// non-resource URLs), its resource names and verbs.
    Rules,
    /// describe's lines of a PersistentVolume's node affinity (printVolumeNodeAffinity): its required terms, each
    /// requirement as `key op [values]`; `<none>` when missing.
    NodeAffinity,
    /// describe's table of a LimitRange's limits (describeLimitRange): a row per item and resource.
    Limits,
    /// `Yes` or `No`: whether the object carries its kind's default annotation as `true` (describeStorageClass's
    /// IsDefaultClass; the path is empty).
    IsDefault,
    /// A map of texts as `labels.FormatLabels` writes it (`k=v,k2=v2`, sorted), `<none>` when empty.
    Map,
}

const RW: &[&str] = &["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/// Every kind, in [`Kind::ALL`]'s order (`KINDS[k as usize].kind == k`).
pub const KINDS: [KindInfo; 30] = [
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
        group_resource: "namespaces",
        namespaced: false,
        generation: false,
        status_subresource: true,
        verbs: &["create", "delete", "get", "list", "patch", "update", "watch"],
        applicable: true,
        max_objects: limits::MAX_NAMESPACES,
        stored: None,
        field_index: None,
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
        group_resource: "nodes",
        namespaced: false,
        generation: false,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_NODES,
        stored: None,
        field_index: None,
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
        group_resource: "pods",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_PODS,
        stored: None,
        field_index: Some(FieldIndex::PodNodeName),
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
        group_resource: "replicasets.apps",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_REPLICASETS,
        stored: None,
        field_index: None,
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
        group_resource: "deployments.apps",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_DEPLOYMENTS,
        stored: None,
        field_index: None,
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
        group_resource: "leases.coordination.k8s.io",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
        applicable: false,
        max_objects: limits::MAX_NODES + 100,
        stored: None,
        field_index: None,
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
        group_resource: "events",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
        applicable: false,
        max_objects: limits::MAX_EVENTS,
        stored: None,
        field_index: Some(FieldIndex::EventInvolvedObject),
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
        group_resource: "configmaps",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_CONFIG_OBJECTS,
        stored: None,
        field_index: None,
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
        group_resource: "secrets",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_CONFIG_OBJECTS,
        stored: None,
        field_index: None,
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
        group_resource: "serviceaccounts",
        namespaced: true,
        generation: false,
        status_subresource: false,
        verbs: RW,
        applicable: true,
        // One `default` per namespace, and as many more as ConfigMaps.
        max_objects: limits::MAX_NAMESPACES + limits::MAX_CONFIG_OBJECTS,
        stored: None,
        field_index: None,
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
        group_resource: "services",
        namespaced: true,
        generation: false,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_SERVICES,
        stored: None,
        field_index: None,
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
        group_resource: "endpointslices.discovery.k8s.io",
        namespaced: true,
        generation: true,
        status_subresource: false,
        verbs: RW,
        applicable: true,
        // One slice per 100 pods of a Service, and one per Service without any.
        max_objects: limits::MAX_SERVICES + limits::MAX_PODS / 100,
        stored: None,
        field_index: None,
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
        group_resource: "poddisruptionbudgets.policy",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        // As many as Deployments (kubeloop's own bound).
        max_objects: limits::MAX_DEPLOYMENTS,
        stored: None,
        field_index: None,
    },
    KindInfo {
        kind: Kind::PriorityClass,
        name: "PriorityClass",
        api_version: "scheduling.k8s.io/v1",
        group: "scheduling.k8s.io",
        version: "v1",
        plural: "priorityclasses",
        singular: "priorityclass",
        short_names: &["pc"],
        resource_ref: "priorityclass.scheduling.k8s.io",
        group_resource: "priorityclasses.scheduling.k8s.io",
        namespaced: false,
        generation: false,
        status_subresource: false,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_STORED_OBJECTS,
        // printers.go's priorityClassColumnDefinitions; describe.go's describePriorityClass.
        stored: Some(StoredKind {
            columns: &[
                ("VALUE", "value", Cell::Value),
                ("GLOBAL-DEFAULT", "globalDefault", Cell::Value),
                ("AGE", "", Cell::Age),
                ("PREEMPTIONPOLICY", "preemptionPolicy", Cell::Value),
            ],
            wide: &[],
            describe: &[
                NAME,
                ("Value", "value", Cell::Value),
                ("GlobalDefault", "globalDefault", Cell::Value),
                ("PreemptionPolicy", "preemptionPolicy", Cell::Value),
                ("Description", "description", Cell::Value),
                ("Annotations", "metadata.annotations", Cell::Value),
            ],
            events: true,
            default_annotation: None,
        }),
        field_index: None,
    },
    KindInfo {
        kind: Kind::Ingress,
        name: "Ingress",
        api_version: "networking.k8s.io/v1",
        group: "networking.k8s.io",
        plural: "ingresses",
        singular: "ingress",
        short_names: &["ing"],
        resource_ref: "ingress.networking.k8s.io",
        group_resource: "ingresses.networking.k8s.io",
        namespaced: true,
        generation: true,
        status_subresource: true,
        stored: Some(StoredKind {
            // printers.go's ingressColumnDefinitions; describe.go's describeIngress (without its rules' table).
            columns: &[
                ("CLASS", "spec.ingressClassName", Cell::OrNone),
                ("HOSTS", "spec.rules", Cell::Hosts),
                ("ADDRESS", "status.loadBalancer", Cell::LoadBalancer),
                ("PORTS", "spec.tls", Cell::TlsPorts),
                AGE,
            ],
            wide: &[],
            describe: &[
                NAME,
                LABELS,
                NAMESPACE,
                ("Address", "status.loadBalancer", Cell::LoadBalancer),
                ("Ingress Class", "spec.ingressClassName", Cell::OrNone),
                ANNOTATIONS,
            ],
            events: true,
            default_annotation: None,
        }),
        ..STORED
    },
    KindInfo {
        kind: Kind::IngressClass,
        name: "IngressClass",
        api_version: "networking.k8s.io/v1",
        group: "networking.k8s.io",
        plural: "ingressclasses",
        singular: "ingressclass",
        resource_ref: "ingressclass.networking.k8s.io",
        group_resource: "ingressclasses.networking.k8s.io",
        namespaced: false,
        generation: true,
        stored: Some(StoredKind {
            // printers.go's ingressClassColumnDefinitions; describe.go's describeIngressClass.
            columns: &[
                ("CONTROLLER", "spec.controller", Cell::Value),
                ("PARAMETERS", "spec.parameters", Cell::Parameters),
                AGE,
            ],
            wide: &[],
            describe: &[NAME, LABELS, ANNOTATIONS, ("Controller", "spec.controller", Cell::Value)],
            events: true,
            default_annotation: None,
        }),
        ..STORED
    },
    KindInfo {
        kind: Kind::NetworkPolicy,
        name: "NetworkPolicy",
        api_version: "networking.k8s.io/v1",
        group: "networking.k8s.io",
        plural: "networkpolicies",
        singular: "networkpolicy",
        short_names: &["netpol"],
        resource_ref: "networkpolicy.networking.k8s.io",
        group_resource: "networkpolicies.networking.k8s.io",
        namespaced: true,
        generation: true,
        stored: Some(StoredKind {
            // printers.go's networkPolicyColumnDefinitioins; describe.go's describeNetworkPolicy (without its rules).
            columns: &[("POD-SELECTOR", "spec.podSelector", Cell::Selector), AGE],
            wide: &[],
            describe: &[
                NAME,
                NAMESPACE,
                LABELS,
                ANNOTATIONS,
                ("Spec", "", Cell::Value),
                ("  PodSelector", "spec.podSelector", Cell::Selector),
                ("  Policy Types", "spec.policyTypes", Cell::Joined),
            ],
            events: false,
            default_annotation: None,
        }),
        ..STORED
    },
    KindInfo {
        kind: Kind::Role,
        name: "Role",
        api_version: "rbac.authorization.k8s.io/v1",
        group: "rbac.authorization.k8s.io",
        plural: "roles",
        singular: "role",
        resource_ref: "role.rbac.authorization.k8s.io",
        group_resource: "roles.rbac.authorization.k8s.io",
        namespaced: true,
        stored: Some(ROLE),
        ..STORED
    },
    KindInfo {
        kind: Kind::RoleBinding,
        name: "RoleBinding",
        api_version: "rbac.authorization.k8s.io/v1",
        group: "rbac.authorization.k8s.io",
        plural: "rolebindings",
        singular: "rolebinding",
        resource_ref: "rolebinding.rbac.authorization.k8s.io",
        group_resource: "rolebindings.rbac.authorization.k8s.io",
        namespaced: true,
        stored: Some(ROLE_BINDING),
        ..STORED
    },
    KindInfo {
        kind: Kind::ClusterRole,
        name: "ClusterRole",
        api_version: "rbac.authorization.k8s.io/v1",
        group: "rbac.authorization.k8s.io",
        plural: "clusterroles",
        singular: "clusterrole",
        resource_ref: "clusterrole.rbac.authorization.k8s.io",
        group_resource: "clusterroles.rbac.authorization.k8s.io",
        namespaced: false,
        stored: Some(ROLE),
        ..STORED
    },
    KindInfo {
        kind: Kind::ClusterRoleBinding,
        name: "ClusterRoleBinding",
        api_version: "rbac.authorization.k8s.io/v1",
        group: "rbac.authorization.k8s.io",
        plural: "clusterrolebindings",
        singular: "clusterrolebinding",
        resource_ref: "clusterrolebinding.rbac.authorization.k8s.io",
        group_resource: "clusterrolebindings.rbac.authorization.k8s.io",
        namespaced: false,
        stored: Some(ROLE_BINDING),
        ..STORED
    },
    KindInfo {
        kind: Kind::ResourceQuota,
        name: "ResourceQuota",
        api_version: "v1",
        group: "",
        plural: "resourcequotas",
        singular: "resourcequota",
        short_names: &["quota"],
        resource_ref: "resourcequota",
        group_resource: "resourcequotas",
        namespaced: true,
        status_subresource: true,
        stored: Some(StoredKind {
            // printers.go's resourceQuotaColumnDefinitions (AGE last since 1.33); describe.go's describeQuota. Both
            // print the status, which the resource quota controller keeps.
            columns: &[("REQUEST", "status", Cell::Quota(false)), ("LIMIT", "status", Cell::Quota(true)), AGE],
            wide: &[],
            describe: &[NAME, NAMESPACE, ("", "status", Cell::QuotaTable)],
            events: false,
            default_annotation: None,
        }),
        ..STORED
    },
    KindInfo {
        kind: Kind::LimitRange,
        name: "LimitRange",
        api_version: "v1",
        group: "",
        plural: "limitranges",
        singular: "limitrange",
        short_names: &["limits"],
        resource_ref: "limitrange",
        group_resource: "limitranges",
        namespaced: true,
        stored: Some(StoredKind {
            // No printer in printers.go: the API server's default table. describe.go's describeLimitRange.
            columns: &[CREATED_AT],
            wide: &[],
            describe: &[NAME, NAMESPACE, ("", "spec.limits", Cell::Limits)],
            events: false,
            default_annotation: None,
        }),
        ..STORED
    },
    KindInfo {
        kind: Kind::PersistentVolume,
        name: "PersistentVolume",
        api_version: "v1",
        group: "",
        plural: "persistentvolumes",
        singular: "persistentvolume",
        short_names: &["pv"],
        resource_ref: "persistentvolume",
        group_resource: "persistentvolumes",
        namespaced: false,
        status_subresource: true,
        max_objects: limits::MAX_VOLUMES,
        stored: Some(StoredKind {
            // printers.go's persistentVolumeColumnDefinitions; describe.go's describePersistentVolume (without its
            // source's section).
            columns: &[
                ("CAPACITY", "spec.capacity.storage", Cell::Value),
                ("ACCESS MODES", "spec.accessModes", Cell::AccessModes),
                ("RECLAIM POLICY", "spec.persistentVolumeReclaimPolicy", Cell::Value),
                ("STATUS", "status.phase", Cell::Value),
                ("CLAIM", "spec.claimRef", Cell::Ref("namespace")),
                ("STORAGECLASS", "spec.storageClassName", Cell::Value),
                ("VOLUMEATTRIBUTESCLASS", "spec.volumeAttributesClassName", Cell::OrUnset),
                ("REASON", "status.reason", Cell::Value),
                AGE,
            ],
            wide: &[("VOLUMEMODE", "spec.volumeMode", Cell::OrUnset)],
            describe: &[
                NAME,
                LABELS,
                ANNOTATIONS,
                ("Finalizers", "metadata.finalizers", Cell::Value),
                ("StorageClass", "spec.storageClassName", Cell::Value),
                ("Status", "status.phase", Cell::Value),
                ("Claim", "spec.claimRef", Cell::Ref("namespace")),
                ("Reclaim Policy", "spec.persistentVolumeReclaimPolicy", Cell::Value),
                ("Access Modes", "spec.accessModes", Cell::AccessModes),
                ("VolumeMode", "spec.volumeMode", Cell::Value),
                ("Capacity", "spec.capacity.storage", Cell::Value),
                ("Node Affinity", "spec.nodeAffinity", Cell::NodeAffinity),
                ("Message", "status.message", Cell::Value),
            ],
            events: true,
            default_annotation: None,
        }),
        ..STORED
    },
    KindInfo {
        kind: Kind::DaemonSet,
        name: "DaemonSet",
        api_version: "apps/v1",
        group: "apps",
        version: "v1",
        plural: "daemonsets",
        singular: "daemonset",
        short_names: &["ds"],
        resource_ref: "daemonset.apps",
        group_resource: "daemonsets.apps",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_DAEMONSETS,
        stored: None,
        field_index: None,
    },
    KindInfo {
        kind: Kind::Job,
        name: "Job",
        api_version: "batch/v1",
        group: "batch",
        version: "v1",
        plural: "jobs",
        singular: "job",
        short_names: &[],
        resource_ref: "job.batch",
        group_resource: "jobs.batch",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_JOBS,
        stored: None,
        field_index: None,
    },
    KindInfo {
        kind: Kind::CronJob,
        name: "CronJob",
        api_version: "batch/v1",
        group: "batch",
        version: "v1",
        plural: "cronjobs",
        singular: "cronjob",
        short_names: &["cj"],
        resource_ref: "cronjob.batch",
        group_resource: "cronjobs.batch",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_CRONJOBS,
        stored: None,
        field_index: None,
    },
    KindInfo {
        kind: Kind::StatefulSet,
        name: "StatefulSet",
        api_version: "apps/v1",
        group: "apps",
        version: "v1",
        plural: "statefulsets",
        singular: "statefulset",
        short_names: &["sts"],
        resource_ref: "statefulset.apps",
        group_resource: "statefulsets.apps",
        namespaced: true,
        generation: true,
        status_subresource: true,
        verbs: RW,
        applicable: true,
        max_objects: limits::MAX_STATEFULSETS,
        stored: None,
        field_index: None,
    },
    KindInfo {
        kind: Kind::PersistentVolumeClaim,
        name: "PersistentVolumeClaim",
        api_version: "v1",
        group: "",
        plural: "persistentvolumeclaims",
        singular: "persistentvolumeclaim",
        short_names: &["pvc"],
        resource_ref: "persistentvolumeclaim",
        group_resource: "persistentvolumeclaims",
        namespaced: true,
        status_subresource: true,
        max_objects: limits::MAX_VOLUMES,
        stored: Some(StoredKind {
            // printers.go's persistentVolumeClaimColumnDefinitions (capacity and access modes are the status's,
            // which the volume binder writes once bound); describe.go's describePersistentVolumeClaim (no Used By).
            columns: &[
                ("STATUS", "status.phase", Cell::Value),
                ("VOLUME", "spec.volumeName", Cell::Value),
                ("CAPACITY", "status.capacity.storage", Cell::Value),
                ("ACCESS MODES", "status.accessModes", Cell::AccessModes),
                ("STORAGECLASS", "spec.storageClassName", Cell::Value),
                ("VOLUMEATTRIBUTESCLASS", "spec.volumeAttributesClassName", Cell::OrUnset),
                AGE,
            ],
            wide: &[("VOLUMEMODE", "spec.volumeMode", Cell::OrUnset)],
            describe: &[
                NAME,
                NAMESPACE,
                ("StorageClass", "spec.storageClassName", Cell::Value),
                ("Status", "status.phase", Cell::Value),
                ("Volume", "spec.volumeName", Cell::Value),
                LABELS,
                ANNOTATIONS,
                ("Finalizers", "metadata.finalizers", Cell::Value),
                ("Capacity", "status.capacity.storage", Cell::Value),
                ("Access Modes", "status.accessModes", Cell::AccessModes),
                ("VolumeMode", "spec.volumeMode", Cell::Value),
            ],
            events: true,
            default_annotation: None,
        }),
        ..STORED
    },
    KindInfo {
        kind: Kind::StorageClass,
        name: "StorageClass",
        api_version: "storage.k8s.io/v1",
        group: "storage.k8s.io",
        plural: "storageclasses",
        singular: "storageclass",
        short_names: &["sc"],
        resource_ref: "storageclass.storage.k8s.io",
        group_resource: "storageclasses.storage.k8s.io",
        namespaced: false,
        stored: Some(StoredKind {
            // printers.go's storageClassColumnDefinitions; describe.go's describeStorageClass.
            columns: &[
                ("PROVISIONER", "provisioner", Cell::Value),
                ("RECLAIMPOLICY", "reclaimPolicy", Cell::Value),
                ("VOLUMEBINDINGMODE", "volumeBindingMode", Cell::Value),
                ("ALLOWVOLUMEEXPANSION", "allowVolumeExpansion", Cell::Value),
                AGE,
            ],
            wide: &[],
            describe: &[
                NAME,
                ("IsDefaultClass", "", Cell::IsDefault),
                ANNOTATIONS,
                ("Provisioner", "provisioner", Cell::Value),
                ("Parameters", "parameters", Cell::Map),
                ("AllowVolumeExpansion", "allowVolumeExpansion", Cell::OrUnset),
                ("MountOptions", "mountOptions", Cell::OrNone),
                ("ReclaimPolicy", "reclaimPolicy", Cell::Value),
                ("VolumeBindingMode", "volumeBindingMode", Cell::Value),
            ],
            events: true,
            default_annotation: Some(DEFAULT_STORAGE_CLASS_ANNOTATION),
        }),
        ..STORED
    },
];

/// The annotation that makes a StorageClass the cluster's default (`storageutil.IsDefaultAnnotation`).
pub const DEFAULT_STORAGE_CLASS_ANNOTATION: &str = "storageclass.kubernetes.io/is-default-class";

const AGE: Column = ("AGE", "", Cell::Age);
const CREATED_AT: Column = ("CREATED AT", "", Cell::CreatedAt);
const NAME: Column = ("Name", "metadata.name", Cell::Value);
const NAMESPACE: Column = ("Namespace", "metadata.namespace", Cell::Value);
const LABELS: Column = ("Labels", "metadata.labels", Cell::Multiline);
const ANNOTATIONS: Column = ("Annotations", "metadata.annotations", Cell::Multiline);

/// Roles and ClusterRoles: no printer in printers.go (the API server's default table); describe.go's describeRole
/// and describeClusterRole.
const ROLE: StoredKind = StoredKind {
    columns: &[CREATED_AT],
    wide: &[],
    describe: &[NAME, LABELS, ANNOTATIONS, ("PolicyRule", "rules", Cell::Rules)],
    events: false,
    default_annotation: None,
};

/// RoleBindings and ClusterRoleBindings: printers.go's roleBindingsColumnDefinitions and
/// clusterRoleBindingsColumnDefinitions; describe.go's describeRoleBinding and describeClusterRoleBinding.
const ROLE_BINDING: StoredKind = StoredKind {
    columns: &[("ROLE", "roleRef", Cell::Ref("kind")), AGE],
    wide: &[
        ("USERS", "subjects", Cell::Subjects("User")),
        ("GROUPS", "subjects", Cell::Subjects("Group")),
        ("SERVICEACCOUNTS", "subjects", Cell::Subjects("ServiceAccount")),
    ],
    describe: &[
        NAME,
        LABELS,
        ANNOTATIONS,
        ("Role", "", Cell::Value),
        ("  Kind", "roleRef.kind", Cell::Value),
        ("  Name", "roleRef.name", Cell::Value),
        ("Subjects", "subjects", Cell::Table(&[("Kind", "kind"), ("Name", "name"), ("Namespace", "namespace")])),
    ],
    events: false,
    default_annotation: None,
};

/// What the rows of the kinds kubeloop only stores share (each names its own kind, names, scope, generation,
/// status subresource and printing): `v1`, every verb, applied, kubeloop's own bound.
const STORED: KindInfo = KindInfo {
    kind: Kind::PriorityClass,
    name: "",
    api_version: "",
    group: "",
    version: "v1",
    plural: "",
    singular: "",
    short_names: &[],
    resource_ref: "",
    group_resource: "",
    namespaced: true,
    generation: false,
    status_subresource: false,
    verbs: RW,
    applicable: true,
    max_objects: limits::MAX_STORED_OBJECTS,
    stored: None,
    field_index: None,
};

/// The kinds in discovery's order (`kubectl api-resources` before its sort): the core group, then by group.
pub const DISCOVERY: [Kind; 30] = [
    Kind::ConfigMap,
    Kind::Event,
    Kind::LimitRange,
    Kind::Namespace,
    Kind::Node,
    Kind::PersistentVolumeClaim,
    Kind::PersistentVolume,
    Kind::Pod,
    Kind::ResourceQuota,
    Kind::Secret,
    Kind::ServiceAccount,
    Kind::Service,
    Kind::DaemonSet,
    Kind::Deployment,
    Kind::ReplicaSet,
    Kind::StatefulSet,
    Kind::CronJob,
    Kind::Job,
    Kind::Lease,
    Kind::EndpointSlice,
    Kind::IngressClass,
    Kind::Ingress,
    Kind::NetworkPolicy,
    Kind::PodDisruptionBudget,
    Kind::ClusterRoleBinding,
    Kind::ClusterRole,
    Kind::RoleBinding,
    Kind::Role,
    Kind::PriorityClass,
    Kind::StorageClass,
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
            let group_resource = match info.group {
                "" => info.plural.to_string(),
                group => format!("{}.{group}", info.plural),
            };
            assert_eq!(info.group_resource, group_resource, "{k}");
            assert_eq!(info.singular, info.name.to_ascii_lowercase(), "{k}");
        }
    }
}
