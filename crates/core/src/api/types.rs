//! The kinds' specs and statuses (core/v1, apps/v1, coordination/v1), with upstream field names.

use std::collections::BTreeMap;
use std::rc::Rc;

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;

use super::meta::{is_empty_str, is_false, ObjectMeta, Time};
use super::{LabelSelector, Labels, Probe, ProbeType, Quantity, Shared, Str};

pub type ResourceList = BTreeMap<Str, Quantity>;

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

// ---------------------------------------------------------------------------------------------------------------
// Namespace

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Namespace {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: NamespaceSpec,
    #[serde(default)]
    pub status: NamespaceStatus,
}

/// The finalizer the API server puts on every namespace at creation (`FinalizerKubernetes`); the namespace
/// controller removes it through the `finalize` subresource once the namespace is empty.
pub const FINALIZER_KUBERNETES: &str = "kubernetes";

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NamespaceSpec {
    /// Unlike `metadata.finalizers`, changed only through the `finalize` subresource.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<Str>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NamespaceStatus {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub phase: Str,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<NamespaceCondition>,
}

/// `status.conditions[]` of a namespace (the namespace controller's deletion progress).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NamespaceCondition {
    #[serde(rename = "type")]
    pub type_: Str,
    pub status: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub message: Str,
}

impl Namespace {
    pub fn condition(&self, type_: &str) -> Option<&NamespaceCondition> {
        self.status.conditions.iter().find(|c| super::text_eq(&c.type_, type_))
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Node

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Node {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: NodeSpec,
    #[serde(default)]
    pub status: NodeStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NodeSpec {
    #[serde(default, skip_serializing_if = "is_false")]
    pub unschedulable: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<Taint>,
    #[serde(default, rename = "podCIDR", skip_serializing_if = "is_empty_str")]
    pub pod_cidr: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Taint {
    pub key: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub value: Str,
    pub effect: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_added: Option<Time>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NodeStatus {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub capacity: ResourceList,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub allocatable: ResourceList,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<NodeCondition>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub addresses: Vec<NodeAddress>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_info: Option<NodeSystemInfo>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NodeCondition {
    #[serde(rename = "type")]
    pub type_: Str,
    pub status: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_heartbeat_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub message: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NodeAddress {
    #[serde(rename = "type")]
    pub type_: Str,
    pub address: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct NodeSystemInfo {
    #[serde(default)]
    pub kubelet_version: Str,
    #[serde(default)]
    pub container_runtime_version: Str,
    #[serde(default)]
    pub os_image: Str,
    #[serde(default)]
    pub architecture: Str,
    #[serde(default)]
    pub operating_system: Str,
}

impl Node {
    /// The `Ready` condition's status: "True", "False" or "Unknown" (Unknown also when the node never reported).
    pub fn ready_status(&self) -> &str {
        self.status.conditions.iter().find(|c| &*c.type_ == "Ready").map(|c| &*c.status).unwrap_or("Unknown")
    }
    pub fn condition(&self, type_: &str) -> Option<&NodeCondition> {
        self.status.conditions.iter().find(|c| super::text_eq(&c.type_, type_))
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Pod

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Pod {
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Shared between versions of the pod (and with its template until binding): a status update copies none of
    /// it. Change it with `Rc::make_mut`.
    #[serde(default)]
    pub spec: Rc<PodSpec>,
    #[serde(default)]
    pub status: PodStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodTemplateSpec {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: Rc<PodSpec>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<super::Volume>,
    /// Shared by the copies of the spec (a pod's is its template's until it is bound, and stays shared when it is):
    /// written through, it is copied first.
    #[serde(default)]
    pub containers: Shared<Vec<Container>>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub node_name: Str,
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub node_selector: Labels,
    /// Boxed: most pods have none, and every bound pod's spec is its own copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Box<super::Affinity>>,
    /// Shared by the copies of the spec, as `containers` is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Shared<Vec<Toleration>>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub restart_policy: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub scheduler_name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub dns_policy: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// The pod's hostname and subdomain (a StatefulSet's pods: their name, and the set's serviceName).
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub hostname: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub subdomain: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Container {
    #[serde(default)]
    pub name: Str,
    #[serde(default)]
    pub image: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub image_pull_policy: Str,
    #[serde(default, skip_serializing_if = "ResourceRequirements::is_empty")]
    pub resources: ResourceRequirements,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ContainerPort>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<Str>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<Str>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_from: Vec<super::EnvFromSource>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<super::EnvVar>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liveness_probe: Option<Probe>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readiness_probe: Option<Probe>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup_probe: Option<Probe>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifecycle: Option<super::Lifecycle>,
}

impl Container {
    /// The container's probe of a type.
    pub fn probe(&self, t: ProbeType) -> Option<&Probe> {
        match t {
            ProbeType::Startup => self.startup_probe.as_ref(),
            ProbeType::Liveness => self.liveness_probe.as_ref(),
            ProbeType::Readiness => self.readiness_probe.as_ref(),
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ResourceRequirements {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: ResourceList,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: ResourceList,
}

impl ResourceRequirements {
    pub fn is_empty(&self) -> bool {
        self.limits.is_empty() && self.requests.is_empty()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ContainerPort {
    pub container_port: i32,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub protocol: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Toleration {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub key: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub operator: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub value: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub effect: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

impl Toleration {
    /// `ToleratesTaint` (k8s.io/api core/v1 toleration.go): effect matches (empty tolerates all effects), key
    /// matches (empty key with Exists tolerates everything), and the operator's value check.
    pub fn tolerates(&self, taint: &Taint) -> bool {
        if !self.effect.is_empty() && self.effect != taint.effect {
            return false;
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match &*self.operator {
            "Exists" => true,
            "" | "Equal" => self.value == taint.value,
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
pub enum PodPhase {
    #[default]
    Pending,
    Running,
    Succeeded,
    Failed,
    Unknown,
}

impl PodPhase {
    pub fn as_str(self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Succeeded => "Succeeded",
            PodPhase::Failed => "Failed",
            PodPhase::Unknown => "Unknown",
        }
    }
    pub fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(default)]
    pub phase: PodPhase,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<PodCondition>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub message: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, rename = "hostIP", skip_serializing_if = "is_empty_str")]
    pub host_ip: Str,
    #[serde(default, rename = "podIP", skip_serializing_if = "is_empty_str")]
    pub pod_ip: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub container_statuses: Vec<ContainerStatus>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodCondition {
    #[serde(rename = "type")]
    pub type_: Str,
    pub status: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub message: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ContainerStatus {
    pub name: Str,
    #[serde(default)]
    pub state: ContainerState,
    /// The last termination (`lastState`): what the container's previous run ended with.
    #[serde(default, skip_serializing_if = "ContainerState::is_empty")]
    pub last_state: ContainerState,
    #[serde(default)]
    pub ready: bool,
    #[serde(default)]
    pub restart_count: i32,
    #[serde(default)]
    pub image: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ContainerState {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waiting: Option<ContainerStateWaiting>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub running: Option<ContainerStateRunning>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminated: Option<ContainerStateTerminated>,
}

impl ContainerState {
    pub fn is_empty(&self) -> bool {
        self.waiting.is_none() && self.running.is_none() && self.terminated.is_none()
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ContainerStateWaiting {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub message: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ContainerStateRunning {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Time>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ContainerStateTerminated {
    #[serde(default)]
    pub exit_code: i32,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Time>,
}

impl Pod {
    pub fn condition(&self, type_: &str) -> Option<&PodCondition> {
        self.status.conditions.iter().find(|c| super::text_eq(&c.type_, type_))
    }

    /// `podutil.IsPodReady`: the Ready condition is True.
    pub fn is_ready(&self) -> bool {
        self.condition("Ready").is_some_and(|c| &*c.status == "True")
    }

    /// `podutil.IsPodAvailable`: ready for at least `min_ready_seconds` at `now`.
    pub fn is_available(&self, min_ready_seconds: i32, now: crate::time::Millis) -> bool {
        match self.condition("Ready") {
            Some(c) if &*c.status == "True" => {
                min_ready_seconds <= 0
                    || c.last_transition_time
                        .is_some_and(|t| t.0.saturating_add(crate::time::seconds(min_ready_seconds.into())) <= now)
            }
            _ => false,
        }
    }

    /// `controller.IsPodActive`: not terminal and not being deleted.
    pub fn is_active(&self) -> bool {
        !self.status.phase.is_terminal() && self.metadata.deletion_timestamp.is_none()
    }

    /// Total container requests of `resource` (`cpu` in millicores, `memory` in bytes).
    pub fn request(&self, resource: &str) -> i64 {
        self.spec.request(resource)
    }

    /// Restarts summed over containers (saturated).
    pub fn restarts(&self) -> i32 {
        self.status.container_statuses.iter().map(|c| c.restart_count).fold(0i32, i32::saturating_add)
    }
}

impl PodSpec {
    /// Total container requests of `resource`, in millicores for cpu and bytes for memory; saturated at the
    /// `i64` bounds (each request is, like upstream's `MilliValue()`/`Value()`, and so is their sum).
    pub fn request(&self, resource: &str) -> i64 {
        self.containers
            .iter()
            .filter_map(|c| c.resources.requests.get(resource))
            .map(|q| if resource == "cpu" { q.milli() } else { q.value() })
            .fold(0i64, i64::saturating_add)
    }
}

// ---------------------------------------------------------------------------------------------------------------
// ReplicaSet and Deployment

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSet {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ReplicaSetSpec,
    #[serde(default)]
    pub status: ReplicaSetStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub min_ready_seconds: i32,
    #[serde(default)]
    pub selector: LabelSelector,
    /// Shared by the copies of the set (each status write is a copy), and with its Deployment's when it was made
    /// from it: copied only when written to.
    #[serde(default)]
    pub template: Shared<PodTemplateSpec>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetStatus {
    #[serde(default)]
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub fully_labeled_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub ready_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub available_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i64_ref")]
    pub observed_generation: i64,
    /// Only `ReplicaFailure` (the ReplicaSet controller sets it when creating or deleting pods fails).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<ReplicaSetCondition>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ReplicaSetCondition {
    #[serde(rename = "type")]
    pub type_: Str,
    pub status: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub message: Str,
}

fn is_zero_i64_ref(v: &i64) -> bool {
    *v == 0
}

impl ReplicaSet {
    pub fn replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Deployment {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: DeploymentSpec,
    #[serde(default)]
    pub status: DeploymentStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub selector: LabelSelector,
    /// Shared by the copies of the Deployment (each status write is a copy): copied only when written to.
    #[serde(default)]
    pub template: Shared<PodTemplateSpec>,
    #[serde(default)]
    pub strategy: DeploymentStrategy,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub min_ready_seconds: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i32>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub paused: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress_deadline_seconds: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentStrategy {
    #[serde(default, rename = "type", skip_serializing_if = "is_empty_str")]
    pub type_: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_update: Option<RollingUpdateDeployment>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct RollingUpdateDeployment {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_surge: Option<IntOrString>,
}

/// `intstr.IntOrString`: `3` or `"25%"`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum IntOrString {
    Int(i32),
    String(Str),
}

/// The zero value (`0`), as a field read before its value is known.
impl Default for IntOrString {
    fn default() -> Self {
        IntOrString::Int(0)
    }
}

#[cfg(any(test, feature = "oracle"))]
impl<'de> Deserialize<'de> for IntOrString {
    /// `IntOrString.UnmarshalJSON`: a string, or a number that must fit an int32 (with encoding/json's message
    /// when it does not: `json: cannot unmarshal number 99999999999 into Go value of type int32`).
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        fn int<E: serde::de::Error>(v: impl Into<i128> + Copy + std::fmt::Display) -> Result<IntOrString, E> {
            i32::try_from(v.into())
                .map(IntOrString::Int)
                .map_err(|_| E::custom(format!("json: cannot unmarshal number {v} into Go value of type int32")))
        }
        impl serde::de::Visitor<'_> for V {
            type Value = IntOrString;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an integer or a string such as \"25%\"")
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<IntOrString, E> {
                int(v)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<IntOrString, E> {
                int(v)
            }
            fn visit_i128<E: serde::de::Error>(self, v: i128) -> Result<IntOrString, E> {
                int(v)
            }
            fn visit_u128<E: serde::de::Error>(self, v: u128) -> Result<IntOrString, E> {
                match i128::try_from(v) {
                    Ok(v) => int(v),
                    Err(_) => Err(E::custom(format!("json: cannot unmarshal number {v} into Go value of type int32"))),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<IntOrString, E> {
                // JSON has no integer type: a whole float is the same number (1e3 is 1000).
                if v.fract() == 0.0 && v >= f64::from(i32::MIN) && v <= f64::from(i32::MAX) {
                    Ok(IntOrString::Int(v as i32))
                } else {
                    Err(E::custom(format!("json: cannot unmarshal number {v} into Go value of type int32")))
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<IntOrString, E> {
                Ok(IntOrString::String(Str::from(v)))
            }
        }
        d.deserialize_any(V)
    }
}

impl std::fmt::Display for IntOrString {
    /// `IntOrString.String()`: the number, or the text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntOrString::Int(i) => write!(f, "{i}"),
            IntOrString::String(s) => f.write_str(s),
        }
    }
}

impl IntOrString {
    /// `intstr.GetScaledValueFromIntOrPercent`: an integer as is, a percentage of `total` rounded up or down.
    ///
    /// Upstream computes in float64 and then truncates to int32 (ResolveFenceposts), wrapping, and fails on a
    /// percentage past int64 (`strconv.Atoi`); here the percentage is read saturating and the result is
    /// clamped to the `i32` range, so a huge maxSurge means "as many as needed", never a negative number.
    /// A string that is not digits followed by `%` is an error (validation rejects it first).
    pub fn scaled_value(&self, total: i32, round_up: bool) -> Result<i32, String> {
        match self {
            IntOrString::Int(v) => Ok(*v),
            IntOrString::String(s) => {
                let pct = self.percent().ok_or_else(|| {
                    format!("invalid value for IntOrString: invalid type: string is not a percentage: {s:?}")
                })?;
                let v = i128::from(pct) * i128::from(total);
                let scaled = if round_up { (v + 99).div_euclid(100) } else { v.div_euclid(100) };
                Ok(scaled.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32)
            }
        }
    }

    /// The number of a percent string (`"25%"`: 25), read saturating at `i64::MAX` like `strconv.Atoi`'s
    /// out-of-range result, with an optional sign; `None` for an int or a string that is not a number and `%`.
    pub fn percent(&self) -> Option<i64> {
        let IntOrString::String(s) = self else { return None };
        let body = s.strip_suffix('%')?;
        let (negative, digits) = match body.as_bytes().first() {
            Some(b'-') => (true, &body[1..]),
            Some(b'+') => (false, &body[1..]),
            _ => (false, body),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let magnitude = digits.bytes().fold(0i64, |acc, b| acc.saturating_mul(10).saturating_add(i64::from(b - b'0')));
        Some(if negative { magnitude.saturating_neg() } else { magnitude })
    }

    /// `validation.IsValidPercent`: the string matches `^[0-9]+%$`.
    pub fn is_valid_percent(&self) -> bool {
        matches!(self, IntOrString::String(s) if s.strip_suffix('%').is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())))
    }

    /// The value as Go's `%#v` prints an `intstr.IntOrString` (how field errors show it):
    /// `intstr.IntOrString{Type:1, IntVal:0, StrVal:"25%"}`.
    pub fn go_repr(&self) -> String {
        match self {
            IntOrString::Int(v) => format!("intstr.IntOrString{{Type:0, IntVal:{v}, StrVal:\"\"}}"),
            IntOrString::String(s) => format!("intstr.IntOrString{{Type:1, IntVal:0, StrVal:{}}}", go_quote(s)),
        }
    }
}

/// Go's `%q` of a string: double-quoted with Go escapes (printable Unicode kept as is).
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x80 && c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentStatus {
    #[serde(default, skip_serializing_if = "is_zero_i64_ref")]
    pub observed_generation: i64,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub updated_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub ready_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub available_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub unavailable_replicas: i32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<DeploymentCondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collision_count: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct DeploymentCondition {
    #[serde(rename = "type")]
    pub type_: Str,
    pub status: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_update_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub message: Str,
}

impl Deployment {
    pub fn replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }
    pub fn condition(&self, type_: &str) -> Option<&DeploymentCondition> {
        self.status.conditions.iter().find(|c| super::text_eq(&c.type_, type_))
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Lease (coordination.k8s.io/v1)

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Lease {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: LeaseSpec,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct LeaseSpec {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub holder_identity: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_duration_seconds: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acquire_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renew_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease_transitions: Option<i32>,
}

// ---------------------------------------------------------------------------------------------------------------
// Event (core/v1)

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Event {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(flatten)]
    pub body: EventBody,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct EventBody {
    #[serde(default)]
    pub involved_object: ObjectReference,
    #[serde(default)]
    pub reason: Str,
    #[serde(default)]
    pub message: Str,
    #[serde(default, rename = "type")]
    pub type_: Str,
    #[serde(default)]
    pub count: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_timestamp: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_timestamp: Option<Time>,
    #[serde(default)]
    pub source: EventSource,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reporting_component: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reporting_instance: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ObjectReference {
    #[serde(default)]
    pub kind: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub namespace: Str,
    #[serde(default)]
    pub name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub uid: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub api_version: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct EventSource {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub component: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub host: Str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_rounding_follows_intstr() {
        let p = IntOrString::String("25%".into());
        assert_eq!(p.scaled_value(10, true), Ok(3));
        assert_eq!(p.scaled_value(10, false), Ok(2));
        assert_eq!(IntOrString::Int(4).scaled_value(10, false), Ok(4));
        assert!(IntOrString::String("x".into()).scaled_value(10, true).is_err());
        let parsed: IntOrString = serde_yaml::from_str("25%").unwrap_or(IntOrString::Int(-1));
        assert_eq!(parsed, p);
        let parsed: IntOrString = serde_yaml::from_str("2").unwrap_or(IntOrString::Int(-1));
        assert_eq!(parsed, IntOrString::Int(2));
    }

    #[test]
    fn tolerations_match_taints_like_upstream() {
        let taint =
            Taint { key: "dedicated".into(), value: "gpu".into(), effect: "NoSchedule".into(), time_added: None };
        let t = |key: &str, op: &str, value: &str, effect: &str| Toleration {
            key: key.into(),
            operator: op.into(),
            value: value.into(),
            effect: effect.into(),
            toleration_seconds: None,
        };
        assert!(t("dedicated", "Equal", "gpu", "NoSchedule").tolerates(&taint));
        assert!(t("dedicated", "", "gpu", "").tolerates(&taint));
        assert!(t("dedicated", "Exists", "", "").tolerates(&taint));
        assert!(t("", "Exists", "", "").tolerates(&taint));
        assert!(!t("dedicated", "Equal", "cpu", "NoSchedule").tolerates(&taint));
        assert!(!t("dedicated", "Exists", "", "NoExecute").tolerates(&taint));
        assert!(!t("other", "Exists", "", "").tolerates(&taint));
    }
}
