//! The eviction subresource of pods (`POST pods/NAME/eviction`, registry/core/pod/storage/eviction.go): a delete
//! that respects the pod's PodDisruptionBudget. A pod that is Pending, finished or already being deleted is
//! deleted at once; one that no budget selects too; with more than one budget it is an error; otherwise the
//! budget must allow a disruption (its status, kept by the disruption controller): the eviction takes one
//! (`disruptionsAllowed` - 1, the pod in `disruptedPods`) or is refused with 429 TooManyRequests. A pod that is
//! not ready is evicted without taking one when the budget is met (or `unhealthyPodEvictionPolicy: AlwaysAllow`).
//! An admitted eviction marks the pod `DisruptionTarget` before deleting it.

use std::rc::Rc;

use crate::api::{Kind, ObjKey, Object, PodPhase};
use crate::client::Api;
use crate::controllers::disruption::{disruption_time, set_allowed_condition};
use crate::store::{set_pod_condition, ApiError, DeleteOptions, Subresource};

/// The message of a refused eviction.
pub const REFUSED: &str = "Cannot evict pod as it would violate the pod's disruption budget.";
/// `MaxDisruptedPodSize`: evictions a budget may have pending.
pub const MAX_DISRUPTED_PODS: usize = 2000;

impl Api<'_> {
    /// `POST pods/NAME/eviction` with these delete options.
    pub fn evict(&mut self, key: &ObjKey, opts: &DeleteOptions) -> Result<Rc<Object>, ApiError> {
        let not_found = || ApiError::NotFound { resource: "pods", name: key.name.clone() };
        let pod_obj = self.get(Kind::Pod, key).map_err(|_| not_found())?;
        let Some(pod) = pod_obj.as_pod() else { return Err(not_found()) };
        // canIgnorePDB
        if matches!(pod.status.phase, PodPhase::Succeeded | PodPhase::Failed | PodPhase::Pending)
            || pod.metadata.deletion_timestamp.is_some()
        {
            return self.delete(Kind::Pod, key, opts);
        }
        let (budgets, _) = self.list(Kind::PodDisruptionBudget, Some(&key.namespace), None);
        let budgets: Vec<Rc<Object>> = budgets
            .into_iter()
            .filter(|o| {
                o.as_pdb().and_then(|p| p.spec.selector.as_ref()).is_some_and(|s| s.matches(&pod.metadata.labels))
            })
            .collect();
        let pdb =
            match budgets.as_slice() {
                [] => return self.evict_now(key, opts),
                [one] => one.clone(),
                _ => return Err(ApiError::Internal(
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
                        .into(),
                )),
            };
        let Some(budget) = pdb.as_pdb() else { return self.evict_now(key, opts) };
        let st = &budget.status;
        // An unhealthy pod does not count towards the budget: evicted without taking a disruption when the policy
        // says so, or (IfHealthyBudget, the default) when the budget is met.
        let met = st.current_healthy >= st.desired_healthy && st.desired_healthy > 0;
        if !pod.is_ready() && (&*budget.spec.unhealthy_pod_eviction_policy == "AlwaysAllow" || met) {
            return self.evict_now(key, opts);
        }
        // checkAndDecrement
        if st.observed_generation < budget.metadata.generation {
            return Err(ApiError::TooManyRequests(REFUSED.into()));
        }
        if st.disruptions_allowed < 0 {
            return Err(ApiError::Forbidden(format!(
                "poddisruptionbudgets.policy \"{}\" is forbidden: pdb disruptions allowed is negative",
                budget.metadata.name
            )));
        }
        if st.disrupted_pods.len() > MAX_DISRUPTED_PODS {
            return Err(ApiError::Forbidden(format!(
                "poddisruptionbudgets.policy \"{}\" is forbidden: DisruptedPods map too big - too many evictions not confirmed by PDB controller",
                budget.metadata.name
            )));
        }
        if st.disruptions_allowed == 0 {
            return Err(ApiError::TooManyRequests(REFUSED.into()));
        }
        let now = self.now;
        let name = pod.metadata.name.clone();
        // An UPDATE of the budget's status with the version read: a conflict is the API server's retry.
        let mut next = (*pdb).clone();
        if let Object::PodDisruptionBudget(p) = &mut next {
            p.status.disruptions_allowed -= 1;
            if p.status.disruptions_allowed == 0 {
                set_allowed_condition(&mut p.status, now);
            }
            p.status.disrupted_pods.insert(name, disruption_time(now).into());
        }
        self.update_status(next)?;
        self.evict_now(key, opts)
    }

    /// `addConditionAndDeletePod`: the DisruptionTarget condition, then the delete.
    fn evict_now(&mut self, key: &ObjKey, opts: &DeleteOptions) -> Result<Rc<Object>, ApiError> {
        let now = self.now;
        let _ = self.patch(Kind::Pod, key, Subresource::Status, |o| {
            if let Object::Pod(p) = o {
                if !p.status.phase.is_terminal() {
                    set_pod_condition(
                        &mut p.status.conditions,
                        "DisruptionTarget",
                        "True",
                        "EvictionByEvictionAPI",
                        "Eviction API: evicting",
                        now,
                    );
                    crate::kubelet::order_conditions(&mut p.status.conditions);
                }
            }
        });
        self.delete(Kind::Pod, key, opts)
    }
}
