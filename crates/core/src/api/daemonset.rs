//! DaemonSet (apps/v1): one pod of a template on every node that should run it. The daemon controller keeps its
//! pods and status ([`crate::controllers::daemonset`]); the pods carry the node they are for as required node
//! affinity, so the scheduler places them.

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;

use super::meta::{is_empty_str, is_zero_i64, ObjectMeta};
use super::{IntOrString, LabelSelector, PodTemplateSpec, RollingUpdateDeployment, Shared, Str};

/// The annotation the API server keeps on a DaemonSet (`deprecated.daemonset.template.generation`): its
/// template's generation, 1 on create, bumped when the template changes; its pods carry it as a label.
pub const TEMPLATE_GENERATION_ANNOTATION: &str = "deprecated.daemonset.template.generation";
/// The pod label with the template generation it was made from.
pub const POD_TEMPLATE_GENERATION_LABEL: &str = "pod-template-generation";
/// The pod label with its revision's hash (`DefaultDaemonSetUniqueLabelKey`).
pub const CONTROLLER_REVISION_HASH_LABEL: &str = "controller-revision-hash";

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct DaemonSet {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: DaemonSetSpec,
    #[serde(default)]
    pub status: DaemonSetStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct DaemonSetSpec {
    #[serde(default)]
    pub selector: LabelSelector,
    #[serde(default)]
    pub template: Shared<PodTemplateSpec>,
    #[serde(default)]
    pub update_strategy: DaemonSetUpdateStrategy,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub min_ready_seconds: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i32>,
}

/// `RollingUpdate` (the default: maxUnavailable 1, maxSurge 0) or `OnDelete`. Its rolling update has the
/// Deployment's two fields (`RollingUpdateDaemonSet`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct DaemonSetUpdateStrategy {
    #[serde(default, rename = "type", skip_serializing_if = "is_empty_str")]
    pub type_: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_update: Option<RollingUpdateDeployment>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct DaemonSetStatus {
    #[serde(default)]
    pub current_number_scheduled: i32,
    #[serde(default)]
    pub number_misscheduled: i32,
    #[serde(default)]
    pub desired_number_scheduled: i32,
    #[serde(default)]
    pub number_ready: i32,
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub observed_generation: i64,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub updated_number_scheduled: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub number_available: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub number_unavailable: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collision_count: Option<i32>,
}

impl DaemonSet {
    /// Whether it updates its pods itself (`RollingUpdate`), or waits for them to be deleted (`OnDelete`).
    pub fn rolling(&self) -> bool {
        &*self.spec.update_strategy.type_ != "OnDelete"
    }

    /// `maxUnavailable` and `maxSurge` of its rolling update as given (defaults 1 and 0).
    pub fn rolling_params(&self) -> (IntOrString, IntOrString) {
        let ru = self.spec.update_strategy.rolling_update.as_ref();
        let unavailable = ru.and_then(|r| r.max_unavailable.clone()).unwrap_or(IntOrString::Int(1));
        let surge = ru.and_then(|r| r.max_surge.clone()).unwrap_or(IntOrString::Int(0));
        (unavailable, surge)
    }

    /// The template generation the API server keeps in [`TEMPLATE_GENERATION_ANNOTATION`].
    pub fn template_generation(&self) -> Option<i64> {
        self.metadata.annotation(TEMPLATE_GENERATION_ANNOTATION).and_then(|v| v.parse().ok())
    }
}
