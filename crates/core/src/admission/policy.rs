//! PodDisruptionBudgets (`ValidatePodDisruptionBudgetSpec`, `pkg/apis/policy/validation/validation.go`).

use super::apps::{not_more_than_100_percent, positive_int_or_percent};
use super::{q, FieldError};
use crate::api::PodDisruptionBudget;

/// Not both minAvailable and maxUnavailable, each a non-negative number or a percentage of at most 100%, a valid
/// selector, a known unhealthy pod eviction policy.
pub(super) fn validate_pdb(pdb: &PodDisruptionBudget, errs: &mut Vec<FieldError>) {
    let spec = &pdb.spec;
    if spec.min_available.is_some() && spec.max_unavailable.is_some() {
        // Upstream prints the whole spec (Go's %#v, with pointer addresses); kubeloop names it.
        errs.push(FieldError::invalid(
            "spec",
            "policy.PodDisruptionBudgetSpec{...}",
            "minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for (name, v) in [("minAvailable", &spec.min_available), ("maxUnavailable", &spec.max_unavailable)] {
        if let Some(v) = v {
            positive_int_or_percent(v, &format!("spec.{name}"), errs);
            not_more_than_100_percent(v, &format!("spec.{name}"), errs);
        }
    }
    if let Some(sel) = &spec.selector {
        errs.extend(sel.problems("spec.selector").into_iter().map(|(p, what)| FieldError::new(p, what)));
    }
    let policy = &*spec.unhealthy_pod_eviction_policy;
    if !matches!(policy, "" | "IfHealthyBudget" | "AlwaysAllow") {
        errs.push(FieldError::not_supported(
            "spec.unhealthyPodEvictionPolicy",
            q(policy),
            &["AlwaysAllow", "IfHealthyBudget"],
        ));
    }
}
