//! StatefulSet (apps/v1): pods with a stable identity, `<name>-<ordinal>`, each with its own claims made from the
//! set's volumeClaimTemplates. The statefulset controller keeps its pods, claims and status
//! ([`crate::controllers::statefulset`]).

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;
use serde_json::{Map, Value};

use super::meta::{is_empty_str, is_zero_i64, ObjectMeta};
use super::{IntOrString, LabelSelector, PodTemplateSpec, Shared, Str};

/// The pod label with the pod's name (`StatefulSetPodNameLabel`).
pub const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
/// The pod label with the pod's ordinal (`PodIndexLabel`, GA in 1.32).
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct StatefulSet {
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Boxed: the spec is larger than any other kind's, and every object of every kind is as large as the largest
    /// variant of [`super::Object`].
    #[serde(default)]
    pub spec: Box<StatefulSetSpec>,
    #[serde(default)]
    pub status: StatefulSetStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct StatefulSetSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(default)]
    pub selector: LabelSelector,
    #[serde(default)]
    pub template: Shared<PodTemplateSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volume_claim_templates: Vec<ClaimTemplate>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub service_name: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub pod_management_policy: Str,
    #[serde(default)]
    pub update_strategy: StatefulSetUpdateStrategy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision_history_limit: Option<i32>,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub min_ready_seconds: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent_volume_claim_retention_policy: Option<RetentionPolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordinals: Option<Ordinals>,
}

/// A volumeClaimTemplates item: a PersistentVolumeClaim's metadata and spec (its spec kept as JSON, the
/// PersistentVolumeClaim kind's own form: kubeloop stores claims as [`super::Stored`] objects).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct ClaimTemplate {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: Map<String, Value>,
}

/// `RollingUpdate` (the default: partition 0, maxUnavailable 1) or `OnDelete`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct StatefulSetUpdateStrategy {
    #[serde(default, rename = "type", skip_serializing_if = "is_empty_str")]
    pub type_: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rolling_update: Option<RollingUpdateStatefulSet>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct RollingUpdateStatefulSet {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partition: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
}

/// `persistentVolumeClaimRetentionPolicy`: `Retain` (the default) or `Delete`, when the set is deleted and when
/// it is scaled down.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct RetentionPolicy {
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub when_deleted: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub when_scaled: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Ordinals {
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub start: i32,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct StatefulSetStatus {
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub observed_generation: i64,
    #[serde(default)]
    pub replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub ready_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub current_replicas: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub updated_replicas: i32,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub current_revision: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub update_revision: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collision_count: Option<i32>,
    #[serde(default)]
    pub available_replicas: i32,
}

impl StatefulSet {
    /// `spec.replicas` (defaulted to 1).
    pub fn replicas(&self) -> i32 {
        self.spec.replicas.unwrap_or(1)
    }

    /// Whether it updates its pods itself (`RollingUpdate`), or waits for them to be deleted (`OnDelete`).
    pub fn rolling(&self) -> bool {
        &*self.spec.update_strategy.type_ != "OnDelete"
    }

    /// `Parallel` pod management: pods made and deleted all at once, not in order.
    pub fn parallel(&self) -> bool {
        &*self.spec.pod_management_policy == "Parallel"
    }

    /// The rolling update's partition (0 when unset).
    pub fn partition(&self) -> i32 {
        self.spec.update_strategy.rolling_update.as_ref().and_then(|r| r.partition).unwrap_or(0)
    }

    /// The first ordinal (`spec.ordinals.start`, 0 when unset).
    pub fn start_ordinal(&self) -> i32 {
        self.spec.ordinals.as_ref().map_or(0, |o| o.start)
    }

    /// The pod of `ordinal`'s name (`getPodName`).
    pub fn pod_name(&self, ordinal: i32) -> String {
        format!("{}-{ordinal}", self.metadata.name)
    }

    /// The claim a template makes for `ordinal` (`getPersistentVolumeClaimName`).
    pub fn claim_name(&self, template: &str, ordinal: i32) -> String {
        format!("{template}-{}-{ordinal}", self.metadata.name)
    }

    /// The retention policy's two answers: (whenDeleted is Delete, whenScaled is Delete).
    pub fn deletes_claims(&self) -> (bool, bool) {
        let p = self.spec.persistent_volume_claim_retention_policy.as_ref();
        let delete = |v: Option<&Str>| v.is_some_and(|v| &**v == "Delete");
        (delete(p.map(|p| &p.when_deleted)), delete(p.map(|p| &p.when_scaled)))
    }
}
