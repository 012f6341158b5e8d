//! The Kubernetes object model kubeloop simulates: the kinds, their metadata, specs and statuses, with the real
//! field names (camelCase in YAML/JSON). One typed struct per API type; strings that repeat across many objects
//! (names, labels, images) are shared `Rc<str>`.

pub mod affinity;
pub mod conditions;
pub mod config;
pub mod cronjob;
pub mod daemonset;
pub mod endpointslice;
pub mod env;
pub mod job;
pub mod kinds;
pub mod labels;
pub mod meta;
pub mod names;
pub mod poddisruptionbudget;
pub mod probe;
pub mod quantity;
pub mod selector;
pub mod service;
pub mod shared;
pub mod statefulset;
pub mod stored;
pub mod types;

use std::fmt;
use std::rc::Rc;

pub use affinity::{Affinity, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};
pub use conditions::{set_condition, Placement};
pub use config::{ConfigMap, LocalObjectReference, Secret, ServiceAccount};
pub use cronjob::CronJob;
pub use daemonset::{DaemonSet, DaemonSetSpec, DaemonSetStatus, DaemonSetUpdateStrategy};
pub use endpointslice::{Endpoint, EndpointConditions, EndpointPort, EndpointSlice, SeenEndpoint, ServiceEndpoints};
pub use env::{
    ConfigMapVolumeSource, EmptyDirVolumeSource, EnvFromSource, EnvVar, EnvVarSource, KeySelector,
    PersistentVolumeClaimVolumeSource, SecretVolumeSource, SourceRef, Volume,
};
pub use job::{Job, JobCondition, JobSpec, JobStatus};
pub use kinds::{Cell, Column, FieldIndex, Kind, KindInfo, StoredKind, DISCOVERY, KINDS};
pub use labels::Labels;
pub use meta::{ObjectMeta, OwnerReference, Time};
pub use poddisruptionbudget::{PdbCondition, PodDisruptionBudget, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus};
pub use probe::{
    ExecAction, GrpcAction, HttpGetAction, HttpHeader, Lifecycle, LifecycleHandler, Probe, ProbeType, SleepAction,
    TcpSocketAction,
};
pub use quantity::Quantity;
pub use selector::{LabelSelector, LabelSelectorRequirement, Operator};
pub use service::{LoadBalancerStatus, Service, ServicePort, ServiceSpec, ServiceStatus};
pub use shared::Shared;
pub use statefulset::{StatefulSet, StatefulSetSpec, StatefulSetStatus, StatefulSetUpdateStrategy};
pub use stored::Stored;
pub use types::*;

/// A shared, immutable string.
pub type Str = Rc<str>;

/// Whether two texts are equal: a shared string compared with itself, or texts of different lengths, answer
/// without reading them. Always inlined, so the control plane's hot comparisons (labels, condition types) cost the
/// same whatever the crate is optimised for.
#[inline(always)]
pub fn text_eq(a: &str, b: &str) -> bool {
    a.len() == b.len() && (std::ptr::eq(a.as_ptr(), b.as_ptr()) || a.as_bytes() == b.as_bytes())
}

/// Makes a shared string.
pub fn s(v: &str) -> Str {
    Rc::from(v)
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Identifies an object within its kind: namespace (empty for cluster-scoped kinds) and name. Ordered like etcd
/// keys, so a LIST comes back sorted by namespace, then name.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct ObjKey {
    pub namespace: Str,
    pub name: Str,
}

/// Orders two texts as `str` does (bytewise, a prefix first), without a call per comparison: the stores and the
/// informers' indexes order keys by it on every lookup.
#[inline(always)]
fn text_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    if std::ptr::eq(a, b) {
        return std::cmp::Ordering::Equal;
    }
    let n = a.len().min(b.len());
    let (x, y) = (&a.as_bytes()[..n], &b.as_bytes()[..n]);
    let mut i = 0;
    while i < n {
        if x[i] != y[i] {
            return x[i].cmp(&y[i]);
        }
        i += 1;
    }
    a.len().cmp(&b.len())
}

impl Ord for ObjKey {
    fn cmp(&self, other: &ObjKey) -> std::cmp::Ordering {
        text_cmp(&self.namespace, &other.namespace).then_with(|| text_cmp(&self.name, &other.name))
    }
}

impl PartialOrd for ObjKey {
    fn partial_cmp(&self, other: &ObjKey) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl ObjKey {
    pub fn new(namespace: &str, name: &str) -> Self {
        ObjKey { namespace: s(namespace), name: s(name) }
    }
    pub fn cluster(name: &str) -> Self {
        ObjKey { namespace: s(""), name: s(name) }
    }
}

impl fmt::Display for ObjKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.namespace.is_empty() {
            f.write_str(&self.name)
        } else {
            write!(f, "{}/{}", self.namespace, self.name)
        }
    }
}

impl fmt::Debug for ObjKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Any object the store holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Object {
    Namespace(Namespace),
    Node(Node),
    Pod(Pod),
    ReplicaSet(ReplicaSet),
    Deployment(Deployment),
    Lease(Lease),
    Event(Event),
    ConfigMap(ConfigMap),
    Secret(Secret),
    ServiceAccount(ServiceAccount),
    Service(Service),
    EndpointSlice(EndpointSlice),
    PodDisruptionBudget(PodDisruptionBudget),
    DaemonSet(DaemonSet),
    StatefulSet(StatefulSet),
    Job(Job),
    CronJob(CronJob),
    /// An object of a kind kubeloop stores without simulating it ([`KindInfo::stored`]).
    Stored(Stored),
}

macro_rules! each_kind {
    ($self:expr, $v:ident => $body:expr) => {
        match $self {
            Object::Namespace($v) => $body,
            Object::Node($v) => $body,
            Object::Pod($v) => $body,
            Object::ReplicaSet($v) => $body,
            Object::Deployment($v) => $body,
            Object::Lease($v) => $body,
            Object::Event($v) => $body,
            Object::ConfigMap($v) => $body,
            Object::Secret($v) => $body,
            Object::ServiceAccount($v) => $body,
            Object::Service($v) => $body,
            Object::EndpointSlice($v) => $body,
            Object::PodDisruptionBudget($v) => $body,
            Object::DaemonSet($v) => $body,
            Object::StatefulSet($v) => $body,
            Object::Job($v) => $body,
            Object::CronJob($v) => $body,
            Object::Stored($v) => $body,
        }
    };
}

macro_rules! accessors {
    ($($variant:ident, $ty:ty, $as:ident, $as_mut:ident, $into:ident;)*) => {
        impl Object {
            $(
                pub fn $as(&self) -> Option<&$ty> {
                    match self { Object::$variant(v) => Some(v), _ => None }
                }
                pub fn $as_mut(&mut self) -> Option<&mut $ty> {
                    match self { Object::$variant(v) => Some(v), _ => None }
                }
                pub fn $into(self) -> Option<$ty> {
                    match self { Object::$variant(v) => Some(v), _ => None }
                }
            )*
        }
        $(
            impl From<$ty> for Object {
                fn from(v: $ty) -> Object { Object::$variant(v) }
            }
        )*
    };
}

accessors! {
    Namespace, Namespace, as_namespace, as_namespace_mut, into_namespace;
    Node, Node, as_node, as_node_mut, into_node;
    Pod, Pod, as_pod, as_pod_mut, into_pod;
    ReplicaSet, ReplicaSet, as_replicaset, as_replicaset_mut, into_replicaset;
    Deployment, Deployment, as_deployment, as_deployment_mut, into_deployment;
    Lease, Lease, as_lease, as_lease_mut, into_lease;
    Event, Event, as_event, as_event_mut, into_event;
    ConfigMap, ConfigMap, as_configmap, as_configmap_mut, into_configmap;
    Secret, Secret, as_secret, as_secret_mut, into_secret;
    ServiceAccount, ServiceAccount, as_serviceaccount, as_serviceaccount_mut, into_serviceaccount;
    Service, Service, as_service, as_service_mut, into_service;
    EndpointSlice, EndpointSlice, as_endpointslice, as_endpointslice_mut, into_endpointslice;
    PodDisruptionBudget, PodDisruptionBudget, as_pdb, as_pdb_mut, into_pdb;
    DaemonSet, DaemonSet, as_daemonset, as_daemonset_mut, into_daemonset;
    StatefulSet, StatefulSet, as_statefulset, as_statefulset_mut, into_statefulset;
    Job, Job, as_job, as_job_mut, into_job;
    CronJob, CronJob, as_cronjob, as_cronjob_mut, into_cronjob;
    Stored, Stored, as_stored, as_stored_mut, into_stored;
}

impl Object {
    pub fn kind(&self) -> Kind {
        match self {
            Object::Namespace(_) => Kind::Namespace,
            Object::Node(_) => Kind::Node,
            Object::Pod(_) => Kind::Pod,
            Object::ReplicaSet(_) => Kind::ReplicaSet,
            Object::Deployment(_) => Kind::Deployment,
            Object::Lease(_) => Kind::Lease,
            Object::Event(_) => Kind::Event,
            Object::ConfigMap(_) => Kind::ConfigMap,
            Object::Secret(_) => Kind::Secret,
            Object::ServiceAccount(_) => Kind::ServiceAccount,
            Object::Service(_) => Kind::Service,
            Object::EndpointSlice(_) => Kind::EndpointSlice,
            Object::PodDisruptionBudget(_) => Kind::PodDisruptionBudget,
            Object::DaemonSet(_) => Kind::DaemonSet,
            Object::StatefulSet(_) => Kind::StatefulSet,
            Object::Job(_) => Kind::Job,
            Object::CronJob(_) => Kind::CronJob,
            Object::Stored(v) => v.kind,
        }
    }

    pub fn meta(&self) -> &ObjectMeta {
        each_kind!(self, v => &v.metadata)
    }

    pub fn meta_mut(&mut self) -> &mut ObjectMeta {
        each_kind!(self, v => &mut v.metadata)
    }

    pub fn key(&self) -> ObjKey {
        let m = self.meta();
        ObjKey { namespace: m.namespace.clone(), name: m.name.clone() }
    }

    /// Whether `spec` (everything but metadata and status) differs: the API server bumps `metadata.generation`
    /// only then.
    pub fn spec_differs(&self, other: &Object) -> bool {
        match (self, other) {
            (Object::Namespace(_), Object::Namespace(_)) => false,
            (Object::Node(a), Object::Node(b)) => a.spec != b.spec,
            (Object::Pod(a), Object::Pod(b)) => a.spec != b.spec,
            (Object::ReplicaSet(a), Object::ReplicaSet(b)) => a.spec != b.spec,
            (Object::Deployment(a), Object::Deployment(b)) => a.spec != b.spec,
            (Object::Lease(a), Object::Lease(b)) => a.spec != b.spec,
            (Object::Event(a), Object::Event(b)) => a.body != b.body,
            (Object::ConfigMap(a), Object::ConfigMap(b)) => {
                (&a.data, &a.binary_data, a.immutable) != (&b.data, &b.binary_data, b.immutable)
            }
            (Object::Secret(a), Object::Secret(b)) => {
                (&a.data, &a.type_, a.immutable) != (&b.data, &b.type_, b.immutable)
            }
            (Object::Service(a), Object::Service(b)) => a.spec != b.spec,
            (Object::PodDisruptionBudget(a), Object::PodDisruptionBudget(b)) => a.spec != b.spec,
            (Object::DaemonSet(a), Object::DaemonSet(b)) => a.spec != b.spec,
            (Object::StatefulSet(a), Object::StatefulSet(b)) => a.spec != b.spec,
            (Object::Job(a), Object::Job(b)) => a.spec != b.spec,
            (Object::CronJob(a), Object::CronJob(b)) => a.spec != b.spec,
            // The endpointslice strategy's PrepareForUpdate: anything but the metadata, or the labels.
            (Object::EndpointSlice(a), Object::EndpointSlice(b)) => {
                (&a.address_type, &a.endpoints, &a.ports, &a.metadata.labels)
                    != (&b.address_type, &b.endpoints, &b.ports, &b.metadata.labels)
            }
            (Object::ServiceAccount(a), Object::ServiceAccount(b)) => {
                (&a.secrets, &a.image_pull_secrets, a.automount_service_account_token)
                    != (&b.secrets, &b.image_pull_secrets, b.automount_service_account_token)
            }
            // A stored kind that keeps a generation (Ingress, IngressClass, NetworkPolicy) has a spec and no status
            // the API server keeps: its strategies' PrepareForUpdate compare the spec.
            (Object::Stored(a), Object::Stored(b)) => a.fields.get("spec") != b.fields.get("spec"),
            _ => true,
        }
    }

    /// Copies `status` from `other` (same kind) into `self`.
    pub fn take_status_from(&mut self, other: &Object) {
        match (self, other) {
            (Object::Namespace(a), Object::Namespace(b)) => a.status = b.status.clone(),
            (Object::Node(a), Object::Node(b)) => a.status = b.status.clone(),
            (Object::Pod(a), Object::Pod(b)) => a.status = b.status.clone(),
            (Object::ReplicaSet(a), Object::ReplicaSet(b)) => a.status = b.status.clone(),
            (Object::Deployment(a), Object::Deployment(b)) => a.status = b.status.clone(),
            (Object::Service(a), Object::Service(b)) => a.status = b.status.clone(),
            (Object::PodDisruptionBudget(a), Object::PodDisruptionBudget(b)) => a.status = b.status.clone(),
            (Object::DaemonSet(a), Object::DaemonSet(b)) => a.status = b.status.clone(),
            (Object::StatefulSet(a), Object::StatefulSet(b)) => a.status = b.status.clone(),
            (Object::Job(a), Object::Job(b)) => a.status = b.status.clone(),
            (Object::CronJob(a), Object::CronJob(b)) => a.status = b.status.clone(),
            (Object::Stored(a), Object::Stored(b)) => match b.fields.get("status") {
                Some(st) => {
                    a.fields.insert("status".into(), st.clone());
                }
                None => {
                    a.fields.remove("status");
                }
            },
            _ => {}
        }
    }
}

/// A reference to the object that controls this one (`ownerReferences[]` with `controller: true`).
pub fn controller_of(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references.iter().find(|r| r.controller == Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Keys order and compare as their texts do (the stores' LIST order depends on it), shared or not.
        #[test]
        fn keys_order_and_compare_as_their_texts(a in "[a-c\u{e9}-]{0,4}", b in "[a-c\u{e9}-]{0,4}",
                                                  c in "[a-c]{0,3}", d in "[a-c]{0,3}", share in any::<bool>()) {
            let x = ObjKey { namespace: s(&a), name: s(&c) };
            let y = if share { x.clone() } else { ObjKey { namespace: s(&b), name: s(&d) } };
            let (b, d) = if share { (a.clone(), c.clone()) } else { (b, d) };
            prop_assert_eq!(x.cmp(&y), (a.as_str(), c.as_str()).cmp(&(b.as_str(), d.as_str())));
            prop_assert_eq!(x == y, a == b && c == d);
            prop_assert_eq!(text_eq(&a, &b), a == b);
        }
    }

    #[test]
    fn kinds_know_their_api_names() {
        assert_eq!(Kind::from_type("apps/v1", "Deployment"), Some(Kind::Deployment));
        assert_eq!(Kind::from_type("v1", "Deployment"), None);
        assert_eq!(Kind::from_type("v1", "Pod"), Some(Kind::Pod));
        assert!(!Kind::Node.namespaced());
        assert_eq!(Kind::Deployment.resource_ref(), "deployment.apps");
        for (i, k) in Kind::ALL.iter().enumerate() {
            assert_eq!(k.index(), i);
        }
    }
}
