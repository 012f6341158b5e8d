//! Job (batch/v1): pods of a template run to completion. The job controller ([`crate::controllers::job`]) makes
//! and counts them; the TTL-after-finished controller ([`crate::controllers::ttlafterfinished`]) deletes a finished
//! Job when its `ttlSecondsAfterFinished` is up.

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;

use super::meta::{is_empty_str, ObjectMeta};
use super::{s, LabelSelector, PodTemplateSpec, Shared, Str, Time};

/// The label and selector key the API server generates (`batch.kubernetes.io/controller-uid`).
pub const CONTROLLER_UID_LABEL: &str = "batch.kubernetes.io/controller-uid";
/// The label with the Job's name (`batch.kubernetes.io/job-name`).
pub const JOB_NAME_LABEL: &str = "batch.kubernetes.io/job-name";
/// The legacy labels, still set (`controller-uid`, `job-name`).
pub const LEGACY_CONTROLLER_UID_LABEL: &str = "controller-uid";
pub const LEGACY_JOB_NAME_LABEL: &str = "job-name";
/// The annotation (and label) with an Indexed Job pod's completion index.
pub const COMPLETION_INDEX_ANNOTATION: &str = "batch.kubernetes.io/job-completion-index";
/// The finalizer a Job's pods carry until the controller has counted them.
pub const TRACKING_FINALIZER: &str = "batch.kubernetes.io/job-tracking";

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct Job {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: JobSpec,
    #[serde(default)]
    pub status: Box<JobStatus>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct JobSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallelism: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_deadline_seconds: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_failure_policy: Option<PodFailurePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_limit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manual_selector: Option<bool>,
    #[serde(default)]
    pub template: Shared<PodTemplateSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_seconds_after_finished: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_mode: Option<Str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_replacement_policy: Option<Str>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicy {
    #[serde(default)]
    pub rules: Vec<PodFailurePolicyRule>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyRule {
    #[serde(default)]
    pub action: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_exit_codes: Option<PodFailurePolicyOnExitCodes>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on_pod_conditions: Vec<PodFailurePolicyOnPodConditions>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyOnExitCodes {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_name: Option<Str>,
    #[serde(default)]
    pub operator: Str,
    #[serde(default)]
    pub values: Vec<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct PodFailurePolicyOnPodConditions {
    #[serde(default, rename = "type")]
    pub type_: Str,
    #[serde(default)]
    pub status: Str,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<JobCondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completion_time: Option<Time>,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub active: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub succeeded: i32,
    #[serde(default, skip_serializing_if = "is_zero_i32")]
    pub failed: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminating: Option<i32>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub completed_indexes: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncounted_terminated_pods: Option<UncountedTerminatedPods>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<i32>,
}

/// The UIDs of finished pods the controller has seen but not yet counted (their finalizer still on).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct UncountedTerminatedPods {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub succeeded: Vec<Str>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<Str>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct JobCondition {
    #[serde(rename = "type")]
    pub type_: Str,
    pub status: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_probe_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub reason: Str,
    #[serde(default, skip_serializing_if = "is_empty_str")]
    pub message: Str,
}

impl Job {
    /// `spec.parallelism` (defaulted to 1).
    pub fn parallelism(&self) -> i32 {
        self.spec.parallelism.unwrap_or(1)
    }

    /// `spec.backoffLimit` (defaulted to 6).
    pub fn backoff_limit(&self) -> i32 {
        self.spec.backoff_limit.unwrap_or(6)
    }

    pub fn is_indexed(&self) -> bool {
        self.spec.completion_mode.as_deref() == Some("Indexed")
    }

    pub fn is_suspended(&self) -> bool {
        self.spec.suspend == Some(true)
    }

    /// `onlyReplaceFailedPods`: podReplacementPolicy Failed (the default when a pod failure policy is set).
    pub fn only_replace_failed(&self) -> bool {
        self.spec.pod_replacement_policy.as_deref() == Some("Failed")
    }

    pub fn condition(&self, type_: &str) -> Option<&JobCondition> {
        self.status.conditions.iter().find(|c| super::text_eq(&c.type_, type_))
    }

    /// Whether the condition of this type is there and True.
    pub fn has_condition(&self, type_: &str) -> bool {
        self.condition(type_).is_some_and(|c| &*c.status == "True")
    }

    /// `IsJobFinished`: Complete or Failed, True; and the condition's type and when it was set.
    pub fn finished(&self) -> Option<&JobCondition> {
        self.status.conditions.iter().find(|c| matches!(&*c.type_, "Complete" | "Failed") && &*c.status == "True")
    }

    /// The selector's match labels and expressions, or none (`spec.selector` unset).
    pub fn selector(&self) -> LabelSelector {
        self.spec.selector.clone().unwrap_or_default()
    }
}

/// The job strategy's `generateSelector` (and the defaulting that copies the template's labels to a Job without
/// any): unless `manualSelector`, the template gets the job-name and controller-uid labels (new and legacy) it
/// does not have, and the selector the `batch.kubernetes.io/controller-uid` match label.
pub fn generate_selector(job: &mut Job, uid: &str) {
    if job.spec.manual_selector != Some(true) {
        let name = job.metadata.name.clone();
        let labels = &mut job.spec.template.metadata.labels;
        for key in [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL] {
            if labels.get(key).is_none() {
                labels.insert(s(key), name.clone());
            }
        }
        for key in [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL] {
            if labels.get(key).is_none() {
                labels.insert(s(key), s(uid));
            }
        }
        let sel = job.spec.selector.get_or_insert_with(LabelSelector::default);
        if sel.match_labels.get(CONTROLLER_UID_LABEL).is_none() {
            sel.match_labels.insert(s(CONTROLLER_UID_LABEL), s(uid));
        }
    }
    if job.metadata.labels.is_empty() {
        job.metadata.labels = job.spec.template.metadata.labels.clone();
    }
}

/// A set of completion indexes as `status.completedIndexes` writes it: ascending, runs of three or more (and
/// pairs, as upstream's `orderedIntervals.String`: `first-last` for any run longer than one) joined by commas.
pub fn format_indexes(indexes: &[i32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < indexes.len() {
        let first = indexes[i];
        let mut last = first;
        while i + 1 < indexes.len() && indexes[i + 1] == last + 1 {
            i += 1;
            last = indexes[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if first == last {
            out.push_str(&first.to_string());
        } else {
            out.push_str(&format!("{first}-{last}"));
        }
        i += 1;
    }
    out
}

/// `parseIndexesFromString`: the indexes below `completions` of a `completedIndexes` text (anything unreadable
/// skipped), ascending and without repeats; at most `completions` of them.
pub fn parse_indexes(text: &str, completions: i32) -> Vec<i32> {
    let mut out: Vec<i32> = Vec::new();
    for part in text.split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (Ok(a), Ok(b)) = (a.parse::<i32>(), b.parse::<i32>()) else { continue };
        let (a, b) = (a.max(0), b.min(completions.saturating_sub(1)));
        for i in a..=b {
            out.push(i);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completed_indexes_are_written_as_ranges() {
        assert_eq!(format_indexes(&[0, 1, 2, 4]), "0-2,4");
        assert_eq!(format_indexes(&[1, 2]), "1-2");
        assert_eq!(format_indexes(&[]), "");
        assert_eq!(parse_indexes("0-2,4,9", 5), vec![0, 1, 2, 4]);
        assert_eq!(parse_indexes("x,3-1,2", 5), vec![2]);
    }
}
