//! Deployments and ReplicaSets (`pkg/apis/apps/validation/validation.go`): replicas, the selector and the
//! template it must match, the template itself (which restarts always), the rollout strategy and its numbers.

use super::{nonnegative, pod, q, FieldError};
use crate::api::names;
use crate::api::{
    go_quote, DaemonSet, Deployment, IntOrString, LabelSelector, PodTemplateSpec, ReplicaSet, StatefulSet,
};

/// `ValidateReplicaSetSpec`.
pub(super) fn validate_replica_set(rs: &ReplicaSet, errs: &mut Vec<FieldError>) {
    if let Some(r) = rs.spec.replicas {
        nonnegative("spec.replicas", r.into(), errs);
    }
    nonnegative("spec.minReadySeconds", rs.spec.min_ready_seconds.into(), errs);
    selector_and_template(&rs.spec.selector, &rs.spec.template, errs);
}

/// `ValidateDeploymentSpec`.
pub(super) fn validate_deployment(d: &Deployment, errs: &mut Vec<FieldError>) {
    if let Some(r) = d.spec.replicas {
        nonnegative("spec.replicas", r.into(), errs);
    }
    selector_and_template(&d.spec.selector, &d.spec.template, errs);
    strategy(d, errs);
    nonnegative("spec.minReadySeconds", d.spec.min_ready_seconds.into(), errs);
    if let Some(limit) = d.spec.revision_history_limit {
        nonnegative("spec.revisionHistoryLimit", limit.into(), errs);
    }
    if let Some(deadline) = d.spec.progress_deadline_seconds {
        nonnegative("spec.progressDeadlineSeconds", deadline.into(), errs);
        if deadline <= d.spec.min_ready_seconds {
            errs.push(FieldError::invalid(
                "spec.progressDeadlineSeconds",
                deadline,
                "must be greater than minReadySeconds",
            ));
        }
    }
}

/// `ValidateDaemonSetSpec`: the selector (not empty) and the template it must match, which restarts always and
/// has no `activeDeadlineSeconds`; `minReadySeconds`, the update strategy (`ValidateDaemonSetUpdateStrategy`:
/// exactly one of maxUnavailable and maxSurge not 0), `revisionHistoryLimit`.
pub(super) fn validate_daemon_set(ds: &DaemonSet, errs: &mut Vec<FieldError>) {
    selector_and_template(&ds.spec.selector, &ds.spec.template, errs);
    nonnegative("spec.minReadySeconds", ds.spec.min_ready_seconds.into(), errs);
    let u = &ds.spec.update_strategy;
    match &*u.type_ {
        "OnDelete" => {}
        "RollingUpdate" => match &u.rolling_update {
            None => errs.push(FieldError::required("spec.updateStrategy.rollingUpdate")),
            Some(ru) => {
                let field = |name: &str| format!("spec.updateStrategy.rollingUpdate.{name}");
                let unavailable = ru.max_unavailable.clone().unwrap_or(IntOrString::Int(0));
                let surge = ru.max_surge.clone().unwrap_or(IntOrString::Int(0));
                positive_int_or_percent(&unavailable, &field("maxUnavailable"), errs);
                positive_int_or_percent(&surge, &field("maxSurge"), errs);
                not_more_than_100_percent(&unavailable, &field("maxUnavailable"), errs);
                not_more_than_100_percent(&surge, &field("maxSurge"), errs);
                match (int_or_percent_value(&unavailable) != 0, int_or_percent_value(&surge) != 0) {
                    (true, true) => errs.push(FieldError::invalid(
                        field("maxSurge"),
                        go_int_or_string(&surge),
                        "may not be set when maxUnavailable is non-zero",
                    )),
                    (false, false) => errs
                        .push(FieldError::required_because(field("maxUnavailable"), "cannot be 0 when maxSurge is 0")),
                    _ => {}
                }
            }
        },
        other => {
            let rolling = if u.rolling_update.is_some() { "{...}" } else { "(*apps.RollingUpdateDaemonSet)(nil)" };
            errs.push(FieldError::not_supported(
                "spec.updateStrategy",
                format!("apps.DaemonSetUpdateStrategy{{Type:{}, RollingUpdate:{rolling}}}", q(other)),
                &["RollingUpdate", "OnDelete"],
            ))
        }
    }
    if let Some(limit) = ds.spec.revision_history_limit {
        nonnegative("spec.revisionHistoryLimit", limit.into(), errs);
    }
}

/// `ValidateStatefulSetSpec`: the pod management policy, the update strategy (a partition not negative, no
/// rollingUpdate with OnDelete), the retention policy, replicas, minReadySeconds, `ordinals.start`, the selector
/// and the template it must match (which restarts always).
pub(super) fn validate_stateful_set(sts: &StatefulSet, errs: &mut Vec<FieldError>) {
    let spec = &sts.spec;
    match &*spec.pod_management_policy {
        "" => errs.push(FieldError::required("spec.podManagementPolicy")),
        "OrderedReady" | "Parallel" => {}
        other => {
            errs.push(FieldError::invalid("spec.podManagementPolicy", q(other), "must be 'OrderedReady' or 'Parallel'"))
        }
    }
    let u = &spec.update_strategy;
    match &*u.type_ {
        "" => errs.push(FieldError::required("spec.updateStrategy")),
        "OnDelete" if u.rolling_update.is_some() => errs.push(FieldError::invalid(
            "spec.updateStrategy.rollingUpdate",
            "{...}",
            "only allowed for updateStrategy 'RollingUpdate'",
        )),
        "OnDelete" => {}
        "RollingUpdate" => {
            if let Some(p) = u.rolling_update.as_ref().and_then(|r| r.partition) {
                nonnegative("spec.updateStrategy.rollingUpdate.partition", p.into(), errs);
            }
            if let Some(m) = u.rolling_update.as_ref().and_then(|r| r.max_unavailable.as_ref()) {
                let path = "spec.updateStrategy.rollingUpdate.maxUnavailable";
                positive_int_or_percent(m, path, errs);
                if int_or_percent_value(m) == 0 {
                    errs.push(FieldError::invalid(path, go_int_or_string(m), "must be greater than 0"));
                }
                not_more_than_100_percent(m, path, errs);
            }
        }
        other => {
            let rolling =
                if u.rolling_update.is_some() { "{...}" } else { "(*apps.RollingUpdateStatefulSetStrategy)(nil)" };
            errs.push(FieldError::invalid(
                "spec.updateStrategy",
                format!("apps.StatefulSetUpdateStrategy{{Type:{}, RollingUpdate:{rolling}}}", q(other)),
                "must be 'RollingUpdate' or 'OnDelete'",
            ))
        }
    }
    if let Some(p) = &spec.persistent_volume_claim_retention_policy {
        let path = "spec.persistentVolumeClaimRetentionPolicy";
        for (name, v) in [("whenDeleted", &p.when_deleted), ("whenScaled", &p.when_scaled)] {
            if !matches!(&**v, "Retain" | "Delete") {
                errs.push(FieldError::not_supported(format!("{path}.{name}"), q(v), &["Retain", "Delete"]));
            }
        }
    }
    if let Some(r) = spec.replicas {
        nonnegative("spec.replicas", r.into(), errs);
    }
    nonnegative("spec.minReadySeconds", spec.min_ready_seconds.into(), errs);
    if let Some(o) = &spec.ordinals {
        nonnegative("spec.ordinals.start", o.start.into(), errs);
    }
    selector_and_template(&spec.selector, &spec.template, errs);
}

/// `ValidateStatefulSetUpdate`'s rule: only replicas, ordinals, the template, the update strategy, the retention
/// policy and minReadySeconds change.
pub(crate) fn stateful_set_update(a: &StatefulSet, b: &StatefulSet, errs: &mut Vec<FieldError>) {
    let mut clone = b.spec.clone();
    clone.replicas = a.spec.replicas;
    clone.template = a.spec.template.clone();
    clone.update_strategy = a.spec.update_strategy.clone();
    clone.min_ready_seconds = a.spec.min_ready_seconds;
    clone.ordinals = a.spec.ordinals.clone();
    clone.persistent_volume_claim_retention_policy = a.spec.persistent_volume_claim_retention_policy.clone();
    if clone != a.spec {
        errs.push(FieldError::forbidden(
            "spec",
            "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', \
             'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
        ));
    }
}

/// The selector (required, valid) and the template it must match (`ValidatePodTemplateSpecForReplicaSet`).
fn selector_and_template(selector: &LabelSelector, template: &PodTemplateSpec, errs: &mut Vec<FieldError>) {
    let mismatch = || {
        FieldError::invalid(
            "spec.template.metadata.labels",
            go_string_map(&template.metadata.labels),
            "`selector` does not match template `labels`",
        )
    };
    if selector.is_empty() {
        // An absent selector and `{}` read the same here; the absent one, by far the likelier, is what is reported
        // (and as upstream's selects nothing, the template does not match it).
        errs.push(FieldError::required("spec.selector"));
        errs.push(mismatch());
    } else {
        let problems = selector.problems("spec.selector");
        if !problems.is_empty() {
            errs.extend(problems.into_iter().map(|(p, what)| FieldError::new(p, what)));
            errs.push(FieldError::invalid("spec.selector", go_selector(selector), "invalid label selector"));
            return;
        }
        if !selector.matches(&template.metadata.labels) {
            errs.push(mismatch());
        }
    }
    pod::validate_template(template, "spec.template", errs);
    if !matches!(&*template.spec.restart_policy, "" | "Always") {
        errs.push(FieldError::not_supported(
            "spec.template.spec.restartPolicy",
            q(&template.spec.restart_policy),
            &["Always"],
        ));
    }
}

/// `ValidateDeploymentStrategy`: Recreate without rolling-update parameters, or RollingUpdate with valid ones.
fn strategy(d: &Deployment, errs: &mut Vec<FieldError>) {
    let s = &d.spec.strategy;
    match &*s.type_ {
        "Recreate" if s.rolling_update.is_some() => errs.push(FieldError::forbidden(
            "spec.strategy.rollingUpdate",
            "may not be specified when strategy `type` is 'Recreate'",
        )),
        "Recreate" => {}
        "" | "RollingUpdate" => {
            let Some(ru) = &s.rolling_update else { return };
            let field = |name: &str| format!("spec.strategy.rollingUpdate.{name}");
            let unavailable = ru.max_unavailable.clone().unwrap_or(IntOrString::Int(0));
            let surge = ru.max_surge.clone().unwrap_or(IntOrString::Int(0));
            positive_int_or_percent(&unavailable, &field("maxUnavailable"), errs);
            positive_int_or_percent(&surge, &field("maxSurge"), errs);
            if int_or_percent_value(&unavailable) == 0 && int_or_percent_value(&surge) == 0 {
                errs.push(FieldError::invalid(
                    field("maxUnavailable"),
                    go_int_or_string(&unavailable),
                    "may not be 0 when `maxSurge` is 0",
                ));
            }
            not_more_than_100_percent(&unavailable, &field("maxUnavailable"), errs);
        }
        other => {
            // Upstream prints the strategy struct (Go's %#v); a rollingUpdate in it shows as a pointer.
            let rolling = if s.rolling_update.is_some() { "{...}" } else { "(*apps.RollingUpdateDeployment)(nil)" };
            errs.push(FieldError::not_supported(
                "spec.strategy",
                format!("apps.DeploymentStrategy{{Type:{}, RollingUpdate:{rolling}}}", q(other)),
                &["Recreate", "RollingUpdate"],
            ))
        }
    }
}

/// `ValidatePositiveIntOrPercent`: a non-negative int, or a percent string.
pub(super) fn positive_int_or_percent(v: &IntOrString, path: &str, errs: &mut Vec<FieldError>) {
    match v {
        IntOrString::Int(x) => nonnegative(path, (*x).into(), errs),
        IntOrString::String(_) if !v.is_valid_percent() => errs.push(FieldError::invalid(
            path,
            go_int_or_string(v),
            &names::regex_error(
                "a valid percent string must be a numeric string followed by an ending '%'",
                "[0-9]+%",
                &["1%", "93%"],
            ),
        )),
        IntOrString::String(_) => {}
    }
}

/// `IsNotMoreThan100Percent`.
pub(super) fn not_more_than_100_percent(v: &IntOrString, path: &str, errs: &mut Vec<FieldError>) {
    if v.is_valid_percent() && v.percent().is_some_and(|p| p > 100) {
        errs.push(FieldError::invalid(path, go_int_or_string(v), "must not be greater than 100%"));
    }
}

/// `getIntOrPercentValue`: a valid percent's number, else `IntValue()` (an int, or a string's `Atoi`, 0 when it
/// is not a number).
fn int_or_percent_value(v: &IntOrString) -> i64 {
    match v {
        IntOrString::Int(x) => (*x).into(),
        IntOrString::String(_) if v.is_valid_percent() => v.percent().unwrap_or(0),
        IntOrString::String(s) => s.parse().unwrap_or(0),
    }
}

/// An IntOrString as a field error shows it (Go's `%#v`), its text cut like any echoed user text.
pub(super) fn go_int_or_string(v: &IntOrString) -> String {
    match v {
        IntOrString::String(s) => IntOrString::String(crate::api::s(&crate::limits::echo(s))).go_repr(),
        IntOrString::Int(_) => v.go_repr(),
    }
}

/// A `map[string]string` as Go's `%#v` prints it (keys in order): `map[string]string{"app":"web"}`; an empty
/// one as absent (`map[string]string(nil)`), as kubeloop keeps no difference between the two.
pub(super) fn go_string_map(labels: &crate::api::Labels) -> String {
    if labels.is_empty() {
        return "map[string]string(nil)".to_string();
    }
    let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{}:{}", q(k), q(v))).collect();
    format!("map[string]string{{{}}}", pairs.join(", "))
}

/// A label selector as a field error shows it (Go's `%#v` of a `metav1.LabelSelector`):
/// `v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`.
/// An empty map or list is shown as absent (`(nil)`).
pub fn go_selector(sel: &LabelSelector) -> String {
    let labels = go_string_map(&sel.match_labels);
    let expressions = if sel.match_expressions.is_empty() {
        "[]v1.LabelSelectorRequirement(nil)".to_string()
    } else {
        let items: Vec<String> = sel
            .match_expressions
            .iter()
            .map(|r| {
                let values = if r.values.is_empty() {
                    "[]string(nil)".to_string()
                } else {
                    let v: Vec<String> = r.values.iter().map(|v| q(v)).collect();
                    format!("[]string{{{}}}", v.join(", "))
                };
                format!(
                    "v1.LabelSelectorRequirement{{Key:{}, Operator:{}, Values:{values}}}",
                    q(&r.key),
                    go_quote(r.operator.as_str())
                )
            })
            .collect();
        format!("[]v1.LabelSelectorRequirement{{{}}}", items.join(", "))
    };
    format!("v1.LabelSelector{{MatchLabels:{labels}, MatchExpressions:{expressions}}}")
}
