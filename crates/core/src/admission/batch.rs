//! The batch group's validation (pkg/apis/batch/validation/validation.go): `ValidateJob` on create.

use super::apps::{go_selector, go_string_map};
use super::{nonnegative, pod, q, FieldError};
use crate::api::job::{
    PodFailurePolicy, PodFailurePolicyRule, CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL,
    LEGACY_JOB_NAME_LABEL,
};
use crate::api::{s, CronJob, Job, Labels};

/// `maxPodFailurePolicyRules`, `maxPodFailurePolicyOnExitCodesValues`, `maxPodFailurePolicyOnPodConditionsPatterns`.
const MAX_RULES: usize = 20;
const MAX_EXIT_CODES: usize = 255;
const MAX_CONDITION_PATTERNS: usize = 20;
/// `maxParallelismForIndexedJob`.
const MAX_INDEXED_PARALLELISM: i32 = 100_000;

/// `ValidateJob`: the generated selector, the spec, and an Indexed Job's largest pod hostname.
pub(super) fn validate_job(job: &Job, errs: &mut Vec<FieldError>) {
    generated_selector(job, errs);
    validate_spec(job, errs);
    if job.is_indexed() {
        if let Some(c) = job.spec.completions.filter(|c| *c > 0) {
            let host = format!("{}-{}", job.metadata.name, c - 1);
            if !crate::api::names::dns1123_label(&host).is_empty() {
                errs.push(FieldError::invalid(
                    "metadata.name",
                    q(&job.metadata.name),
                    &format!("will not able to create pod with invalid DNS label: {host}"),
                ));
            }
        }
    }
}

/// `validateGeneratedSelector`: unless `manualSelector`, the template carries the generated labels and the
/// selector selects them.
fn generated_selector(job: &Job, errs: &mut Vec<FieldError>) {
    if job.spec.manual_selector == Some(true) {
        return;
    }
    let Some(sel) = &job.spec.selector else { return };
    let uid = &job.metadata.uid;
    let labels = &job.spec.template.metadata.labels;
    for (key, want) in [(CONTROLLER_UID_LABEL, uid), (JOB_NAME_LABEL, &job.metadata.name)] {
        has_label(labels, key, want, errs);
    }
    let mut expected = Labels::default();
    for (key, value) in [
        (CONTROLLER_UID_LABEL, uid),
        (JOB_NAME_LABEL, &job.metadata.name),
        (LEGACY_CONTROLLER_UID_LABEL, uid),
        (LEGACY_JOB_NAME_LABEL, &job.metadata.name),
    ] {
        expected.insert(s(key), value.clone());
    }
    if sel.problems("spec.selector").is_empty() && !sel.matches(&expected) {
        errs.push(FieldError::invalid("spec.selector", go_selector(sel), "`selector` not auto-generated"));
    }
}

/// `ValidateHasLabel`.
fn has_label(labels: &Labels, key: &str, want: &str, errs: &mut Vec<FieldError>) {
    let path = format!("spec.template.metadata.labels[{key}]");
    match labels.get(key) {
        None => errs.push(FieldError::required_because("spec.template.metadata.labels", &format!("must be '{want}'"))),
        Some(v) if &**v != want => errs.push(FieldError::invalid(path, q(v), &format!("must be '{want}'"))),
        Some(_) => {}
    }
}

/// `ValidateJobSpec`.
fn validate_spec(job: &Job, errs: &mut Vec<FieldError>) {
    let spec = &job.spec;
    let fields = [
        ("spec.parallelism", spec.parallelism.map(i64::from)),
        ("spec.completions", spec.completions.map(i64::from)),
        ("spec.activeDeadlineSeconds", spec.active_deadline_seconds),
        ("spec.backoffLimit", spec.backoff_limit.map(i64::from)),
        ("spec.ttlSecondsAfterFinished", spec.ttl_seconds_after_finished.map(i64::from)),
    ];
    for (path, v) in fields {
        if let Some(v) = v {
            nonnegative(path, v, errs);
        }
    }
    completion_mode(job, errs);
    if let Some(policy) = &spec.pod_failure_policy {
        pod_failure_policy(job, policy, errs);
    }
    replacement_policy(job, errs);
    pod::validate_template(&spec.template, "spec.template", errs);
    restart_policy(job, errs);
    selector(job, errs);
}

fn completion_mode(job: &Job, errs: &mut Vec<FieldError>) {
    let spec = &job.spec;
    let Some(mode) = spec.completion_mode.as_deref() else { return };
    match mode {
        "NonIndexed" => {}
        "Indexed" => {
            if spec.completions.is_none() {
                errs.push(FieldError::required_because("spec.completions", "when completion mode is Indexed"));
            }
            if let Some(p) = spec.parallelism.filter(|p| *p > MAX_INDEXED_PARALLELISM) {
                errs.push(FieldError::invalid(
                    "spec.parallelism",
                    p,
                    &format!("must be less than or equal to {MAX_INDEXED_PARALLELISM} when completion mode is Indexed"),
                ));
            }
        }
        other => errs.push(FieldError::not_supported("spec.completionMode", q(other), &["NonIndexed", "Indexed"])),
    }
}

/// `validatePodFailurePolicy`: at most 20 rules, each with a known action and one of its two matchers.
fn pod_failure_policy(job: &Job, policy: &PodFailurePolicy, errs: &mut Vec<FieldError>) {
    if policy.rules.len() > MAX_RULES {
        errs.push(FieldError::too_many("spec.podFailurePolicy.rules", policy.rules.len(), MAX_RULES));
    }
    for (i, rule) in policy.rules.iter().enumerate().take(MAX_RULES) {
        rule_errors(job, rule, &format!("spec.podFailurePolicy.rules[{i}]"), errs);
    }
}

const ACTIONS: [&str; 4] = ["Count", "FailIndex", "FailJob", "Ignore"];

fn rule_errors(job: &Job, rule: &PodFailurePolicyRule, path: &str, errs: &mut Vec<FieldError>) {
    let action = format!("{path}.action");
    match &*rule.action {
        "" => errs.push(FieldError::required_because(action, &format!("valid values: {}", go_list(&ACTIONS)))),
        "FailIndex" => {
            errs.push(FieldError::invalid(action, q("FailIndex"), "requires the backoffLimitPerIndex to be set"))
        }
        a if !ACTIONS.contains(&a) => errs.push(FieldError::not_supported(action, q(a), &ACTIONS)),
        _ => {}
    }
    if let Some(codes) = &rule.on_exit_codes {
        let at = format!("{path}.onExitCodes");
        match &*codes.operator {
            "" => errs.push(FieldError::required_because(
                format!("{at}.operator"),
                &format!("valid values: {}", go_list(&["In", "NotIn"])),
            )),
            "In" | "NotIn" => {}
            other => errs.push(FieldError::not_supported(format!("{at}.operator"), q(other), &["In", "NotIn"])),
        }
        if let Some(name) = &codes.container_name {
            if !job.spec.template.spec.containers.iter().any(|c| c.name == *name) {
                errs.push(FieldError::invalid(
                    format!("{at}.containerName"),
                    q(name),
                    "must be one of the container or initContainer names in the pod template",
                ));
            }
        }
        if codes.values.is_empty() {
            errs.push(FieldError::invalid(format!("{at}.values"), "[]int32(nil)", "at least one value is required"));
        } else if codes.values.len() > MAX_EXIT_CODES {
            errs.push(FieldError::too_many(format!("{at}.values"), codes.values.len(), MAX_EXIT_CODES));
        }
        exit_code_values(&codes.values, &codes.operator, &at, errs);
    }
    if rule.on_pod_conditions.len() > MAX_CONDITION_PATTERNS {
        let n = rule.on_pod_conditions.len();
        errs.push(FieldError::too_many(format!("{path}.onPodConditions"), n, MAX_CONDITION_PATTERNS));
    }
    for (j, p) in rule.on_pod_conditions.iter().enumerate().take(MAX_CONDITION_PATTERNS) {
        let status = format!("{path}.onPodConditions[{j}].status");
        match &*p.status {
            "" => errs.push(FieldError::required_because(
                status,
                &format!("valid values: {}", go_list(&["False", "True", "Unknown"])),
            )),
            "True" | "False" | "Unknown" => {}
            other => errs.push(FieldError::not_supported(status, q(other), &["False", "True", "Unknown"])),
        }
    }
    match (rule.on_exit_codes.is_some(), !rule.on_pod_conditions.is_empty()) {
        (true, true) => errs.push(FieldError::new(
            path,
            "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported",
        )),
        (false, false) => errs.push(FieldError::new(
            path,
            "Invalid value: specifying one of OnExitCodes and OnPodConditions is required",
        )),
        _ => {}
    }
}

/// The exit codes of a rule: ascending without repeats, and 0 never with `In`.
fn exit_code_values(values: &[i32], operator: &str, at: &str, errs: &mut Vec<FieldError>) {
    for (k, v) in values.iter().enumerate().take(MAX_EXIT_CODES) {
        let path = format!("{at}.values[{k}]");
        if operator == "In" && *v == 0 {
            errs.push(FieldError::invalid(&path, v, "must not be 0 for the In operator"));
        }
        if k > 0 && values[k - 1] == *v {
            errs.push(FieldError::duplicate(&path, v));
        } else if k > 0 && values[k - 1] > *v {
            errs.push(FieldError::invalid(&path, v, "must be ordered"));
        }
    }
}

/// `validatePodReplacementPolicy`: with a pod failure policy only `Failed`.
fn replacement_policy(job: &Job, errs: &mut Vec<FieldError>) {
    let Some(p) = job.spec.pod_replacement_policy.as_deref() else { return };
    if job.spec.pod_failure_policy.is_some() {
        if p != "Failed" {
            errs.push(FieldError::not_supported("spec.podReplacementPolicy", q(p), &["Failed"]));
        }
    } else if !matches!(p, "Failed" | "TerminatingOrFailed") {
        errs.push(FieldError::not_supported("spec.podReplacementPolicy", q(p), &["Failed", "TerminatingOrFailed"]));
    }
}

/// A Job's pods end: OnFailure or Never, and Never with a pod failure policy.
fn restart_policy(job: &Job, errs: &mut Vec<FieldError>) {
    let path = "spec.template.spec.restartPolicy";
    match &*job.spec.template.spec.restart_policy {
        "" | "Always" => errs.push(FieldError::required_because(path, "valid values: \"OnFailure\", \"Never\"")),
        "OnFailure" if job.spec.pod_failure_policy.is_some() => errs.push(FieldError::invalid(
            path,
            q("OnFailure"),
            "only \"Never\" is supported when podFailurePolicy is specified",
        )),
        "OnFailure" | "Never" => {}
        other => errs.push(FieldError::not_supported(path, q(other), &["OnFailure", "Never"])),
    }
}

/// The selector (required, valid) and the template's labels it must select.
fn selector(job: &Job, errs: &mut Vec<FieldError>) {
    let Some(sel) = &job.spec.selector else {
        errs.push(FieldError::required("spec.selector"));
        return;
    };
    let problems = sel.problems("spec.selector");
    if !problems.is_empty() {
        errs.extend(problems.into_iter().map(|(p, what)| FieldError::new(p, what)));
        return;
    }
    let labels = &job.spec.template.metadata.labels;
    if !sel.matches(labels) {
        errs.push(FieldError::invalid(
            "spec.template.metadata.labels",
            go_string_map(labels),
            "`selector` does not match template `labels`",
        ));
    }
}

/// Go's `%q` of a string list: `["a" "b"]`.
fn go_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| q(v)).collect();
    format!("[{}]", quoted.join(" "))
}

/// `ValidateCronJobCreate`: the name (52 characters at most: its Jobs add 11), the schedule and time zone
/// (robfig's parse, [`crate::cron`]), the policies, and the job template as a Job made from it would be checked
/// (`validateJobTemplateSpec`: its generated selector aside), its fields under `spec.jobTemplate.spec`.
pub(super) fn validate_cronjob(cj: &CronJob, errs: &mut Vec<FieldError>) {
    let name = &cj.metadata.name;
    if name.len() > crate::api::cronjob::MAX_NAME_LENGTH {
        errs.push(FieldError::invalid("metadata.name", q(name), "must be no more than 52 characters"));
    }
    let spec = &cj.spec;
    let found = crate::cron::validate_schedule(&spec.schedule, false, spec.time_zone.as_deref());
    for e in found.into_iter().chain(crate::cron::validate_time_zone(spec.time_zone.as_deref())) {
        let (path, message) = e.split_once(": ").unwrap_or(("spec.schedule", &e));
        errs.push(FieldError::new(path, message));
    }
    match spec.concurrency_policy.as_deref() {
        None | Some("Allow" | "Forbid" | "Replace") => {}
        Some("") => errs.push(FieldError::required("spec.concurrencyPolicy")),
        Some(other) => {
            errs.push(FieldError::not_supported("spec.concurrencyPolicy", q(other), &["Allow", "Forbid", "Replace"]))
        }
    }
    let counts = [
        ("spec.startingDeadlineSeconds", spec.starting_deadline_seconds),
        ("spec.successfulJobsHistoryLimit", spec.successful_jobs_history_limit.map(i64::from)),
        ("spec.failedJobsHistoryLimit", spec.failed_jobs_history_limit.map(i64::from)),
    ];
    for (path, v) in counts {
        if let Some(v) = v {
            nonnegative(path, v, errs);
        }
    }
    let mut job = crate::controllers::cronjob::job_for(cj, 0, &crate::cron::TimeZone::utc());
    job.metadata.uid = cj.metadata.uid.clone();
    crate::api::job::generate_selector(&mut job, &s("00000000-0000-4000-8000-000000000000"));
    let mut found = Vec::new();
    validate_spec(&job, &mut found);
    for mut e in found {
        if let Some(rest) = e.path.strip_prefix("spec.") {
            e.path = format!("spec.jobTemplate.spec.{rest}");
        }
        errs.push(e);
    }
}
