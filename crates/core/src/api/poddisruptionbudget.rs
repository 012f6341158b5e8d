//! PodDisruptionBudget (policy/v1): how many of the pods a selector matches may be down at once through voluntary
//! disruptions (evictions). The disruption controller keeps its status ([`crate::controllers::disruption`]); the
//! eviction subresource of pods reads it ([`crate::store`]).

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;

use super::meta::{is_empty_str, ObjectMeta, Time};
use super::{IntOrString, LabelSelector, Labels, Str};

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodDisruptionBudget {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PodDisruptionBudgetSpec,
    #[serde(default)]
    pub status: PodDisruptionBudgetStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodDisruptionBudgetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_available: Option<IntOrString>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    /// `IfHealthyBudget` (the default behaviour when unset) or `AlwaysAllow`.
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub unhealthy_pod_eviction_policy: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodDisruptionBudgetStatus {
    #[serde(default, skip_serializing_if = "crate::api::meta::is_zero_i64")]
    pub observed_generation: i64,
    /// Pods evicted whose deletion the controller has not seen yet, with when (a pod name -> time map).
    #[serde(default, skip_serializing_if = "Labels::is_empty")]
    pub disrupted_pods: Labels,
    #[serde(default)]
    pub disruptions_allowed: i32,
    #[serde(default)]
    pub current_healthy: i32,
    #[serde(default)]
    pub desired_healthy: i32,
    #[serde(default)]
    pub expected_pods: i32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<PdbCondition>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PdbCondition {
    #[serde(rename = "type")]
    pub type_: Str,
    pub status: Str,
    #[serde(default, skip_serializing_if = "crate::api::meta::is_zero_i64")]
    pub observed_generation: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    /// `metav1.Condition`: reason and message are always written.
    #[serde(default)]
    pub reason: Str,
    #[serde(default)]
    pub message: Str,
}

impl PodDisruptionBudget {
    /// The `DisruptionAllowed` condition's status, if any.
    pub fn allowed_condition(&self) -> Option<&PdbCondition> {
        self.status.conditions.iter().find(|c| &*c.type_ == "DisruptionAllowed")
    }
}
