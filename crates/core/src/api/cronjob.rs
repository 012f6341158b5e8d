//! CronJob (batch/v1): a Job made from a template at the times of a cron schedule. The cronjob controller
//! ([`crate::controllers::cronjob`]) makes them and keeps the history; the schedule's arithmetic is
//! [`crate::cron`]'s.

#[cfg(any(test, feature = "oracle"))]
use serde::Deserialize;
use serde::Serialize;

use super::job::JobSpec;
use super::meta::ObjectMeta;
use super::types::ObjectReference;
use super::{Str, Time};

/// The annotation a CronJob's Job carries: the time it was scheduled for, RFC 3339 in the CronJob's zone.
pub const SCHEDULED_TIMESTAMP_ANNOTATION: &str = "batch.kubernetes.io/cronjob-scheduled-timestamp";
/// The longest CronJob name (`validateCronJobSpec`: its Jobs' names add 11 characters to it).
pub const MAX_NAME_LENGTH: usize = 52;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct CronJob {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CronJobSpec,
    #[serde(default)]
    pub status: CronJobStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    #[serde(default)]
    pub schedule: Str,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<Str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,
    /// `Allow` (the default), `Forbid` or `Replace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<Str>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
    /// Boxed: a Job's spec is large, and every stored object is as large as the largest kind.
    #[serde(default)]
    pub job_template: Box<JobTemplateSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct JobTemplateSpec {
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: JobSpec,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(any(test, feature = "oracle"), derive(Deserialize))]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<ObjectReference>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_successful_time: Option<Time>,
}

impl CronJob {
    pub fn is_suspended(&self) -> bool {
        self.spec.suspend == Some(true)
    }

    /// `spec.concurrencyPolicy` (defaulted to `Allow`).
    pub fn concurrency_policy(&self) -> &str {
        self.spec.concurrency_policy.as_deref().unwrap_or("Allow")
    }

    /// `spec.successfulJobsHistoryLimit` (3) and `spec.failedJobsHistoryLimit` (1).
    pub fn history_limits(&self) -> (i32, i32) {
        (self.spec.successful_jobs_history_limit.unwrap_or(3), self.spec.failed_jobs_history_limit.unwrap_or(1))
    }
}
