//! The disruption controller (pkg/controller/disruption): keeps each PodDisruptionBudget's status, which the
//! eviction subresource reads ([`crate::eviction`]): the pods its selector matches that are healthy (ready, not
//! being deleted, not just evicted), how many must be (`minAvailable`, or the expected count less
//! `maxUnavailable`), the expected count (from the pods' controllers' scale for a percentage or maxUnavailable),
//! and how many disruptions that allows now. Pods an eviction has just admitted (`disruptedPods`) count as gone
//! for 2 minutes (`DeletionTimeout`). PodDisruptionBudget and pod changes queue the budget; one worker, client-go's
//! default rate limiter.

use crate::api::{
    controller_of, s, IntOrString, Kind, LabelSelector, Labels, ObjKey, Object, PdbCondition, Pod, PodDisruptionBudget,
    PodDisruptionBudgetStatus, Time,
};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::Subresource;
use crate::time::{parse_rfc3339, rfc3339, Millis, MINUTE};

/// `DeletionTimeout`: how long an evicted pod counts as gone while its deletion is not seen.
pub const DELETION_TIMEOUT: Millis = 2 * MINUTE;

#[derive(Clone, Default)]
pub struct DisruptionController;

impl DisruptionController {
    pub(crate) fn new() -> Self {
        DisruptionController
    }
}

/// `LabelSelectorAsSelector` for a budget: no selector matches nothing, an empty one everything.
fn selects(pdb: &PodDisruptionBudget, labels: &Labels) -> bool {
    pdb.spec.selector.as_ref().is_some_and(|s| s.matches(labels))
}

/// The budgets of `namespace` whose selector matches `labels`.
fn budgets_selecting(caches: Caches<'_>, namespace: &str, labels: &Labels, out: &mut Enqueue) {
    for o in caches.of(Kind::PodDisruptionBudget).by_namespace(namespace) {
        if o.as_pdb().is_some_and(|p| selects(p, labels)) {
            out.push((o.key(), 0));
        }
    }
}

/// `getExpectedScale`: the sum of the scales of the pods' controllers (a ReplicaSet a Deployment controls counts
/// as the Deployment; a StatefulSet's is its replicas), each once; and the pods that have no controller.
fn expected_scale(caches: Caches<'_>, pods: &[&Pod]) -> (i32, Vec<String>) {
    let mut seen: Vec<crate::api::Str> = Vec::new();
    let mut total: i32 = 0;
    let mut unmanaged = Vec::new();
    for p in pods {
        let Some(r) = controller_of(&p.metadata) else {
            unmanaged.push(p.metadata.name.to_string());
            continue;
        };
        let key = ObjKey { namespace: p.metadata.namespace.clone(), name: r.name.clone() };
        let (uid, scale) = match &*r.kind {
            "ReplicaSet" => {
                let Some(rs) = caches.of(Kind::ReplicaSet).get(&key).and_then(|o| o.as_replicaset()) else { continue };
                if rs.metadata.uid != r.uid {
                    continue;
                }
                match controller_of(&rs.metadata).filter(|d| &*d.kind == "Deployment") {
                    Some(d) => {
                        let dkey = ObjKey { namespace: key.namespace.clone(), name: d.name.clone() };
                        match caches.of(Kind::Deployment).get(&dkey).and_then(|o| o.as_deployment()) {
                            Some(dep) if dep.metadata.uid == d.uid => (dep.metadata.uid.clone(), dep.replicas()),
                            _ => continue,
                        }
                    }
                    None => (rs.metadata.uid.clone(), rs.replicas()),
                }
            }
            "StatefulSet" => match caches.of(Kind::StatefulSet).get(&key).and_then(|o| o.as_statefulset()) {
                Some(sts) if sts.metadata.uid == r.uid => (sts.metadata.uid.clone(), sts.replicas()),
                _ => continue,
            },
            _ => continue,
        };
        if !seen.contains(&uid) {
            seen.push(uid);
            total = total.saturating_add(scale);
        }
    }
    (total, unmanaged)
}

/// `countHealthyPods`: ready pods not being deleted and not just evicted.
fn count_healthy(pods: &[&Pod], disrupted: &Labels, now: Millis) -> i32 {
    let mut n: i32 = 0;
    for p in pods {
        if p.metadata.deletion_timestamp.is_some() {
            continue;
        }
        let evicted = disrupted.get(&p.metadata.name).and_then(|t| parse_rfc3339(t));
        if evicted.is_some_and(|t| t + DELETION_TIMEOUT > now) {
            continue;
        }
        if p.is_ready() {
            n = n.saturating_add(1);
        }
    }
    n
}

impl Reconciler for DisruptionController {
    fn name(&self) -> &'static str {
        "disruption"
    }
    fn component(&self) -> &'static str {
        "controllermanager"
    }
    fn workers(&self) -> usize {
        1
    }
    fn watches(&self) -> &'static [Kind] {
        &[Kind::PodDisruptionBudget, Kind::Pod, Kind::ReplicaSet, Kind::Deployment, Kind::StatefulSet]
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match &**obj {
            Object::PodDisruptionBudget(_) => out.push((obj.key(), 0)),
            Object::Pod(p) => {
                budgets_selecting(caches, &p.metadata.namespace, &p.metadata.labels, out);
                if let Some(old) = ev.old().and_then(|o| o.as_pod()) {
                    if old.metadata.labels != p.metadata.labels {
                        budgets_selecting(caches, &old.metadata.namespace, &old.metadata.labels, out);
                    }
                }
            }
            _ => {}
        }
    }

    /// `sync` / `trySync`.
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(obj) = cx.caches.of(Kind::PodDisruptionBudget).get(key).cloned() else {
            return Ok(ReconcileAction::Done);
        };
        let Some(pdb) = obj.as_pdb() else { return Ok(ReconcileAction::Done) };
        let now = cx.now;
        let pods: Vec<&Pod> = match &pdb.spec.selector {
            Some(sel) => {
                cx.caches.of(Kind::Pod).select(&key.namespace, sel).into_iter().filter_map(|o| o.as_pod()).collect()
            }
            None => Vec::new(),
        };
        if pods.is_empty() {
            cx.recorder.event(&mut cx.api, &obj, EventKind::Normal, "NoPods", "No matching pods found");
        }
        // getExpectedPodCount
        let (mut expected, mut desired) = (0i32, 0i32);
        let mut unmanaged = Vec::new();
        let failed = |cx: &mut Ctx<'_, '_>, e: String| {
            let msg = format!("Failed to calculate the number of expected pods: {e}");
            cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "CalculateExpectedPodCountFailed", &msg);
            msg
        };
        if let Some(max) = &pdb.spec.max_unavailable {
            let (count, u) = expected_scale(cx.caches, &pods);
            unmanaged = u;
            expected = count;
            let max = match max.scaled_value(count, true) {
                Ok(v) => v,
                Err(e) => return Err(failed(cx, e)),
            };
            desired = count.saturating_sub(max).max(0);
        } else if let Some(min) = &pdb.spec.min_available {
            match min {
                IntOrString::Int(v) => {
                    desired = *v;
                    expected = i32::try_from(pods.len()).unwrap_or(i32::MAX);
                }
                IntOrString::String(_) => {
                    let (count, u) = expected_scale(cx.caches, &pods);
                    unmanaged = u;
                    expected = count;
                    desired = match min.scaled_value(count, true) {
                        Ok(v) => v,
                        Err(e) => return Err(failed(cx, e)),
                    };
                }
            }
        }
        if !unmanaged.is_empty() {
            let sel = pdb.spec.selector.as_ref().map(LabelSelector::to_string).unwrap_or_default();
            let msg = format!(
                "Pods selected by this PodDisruptionBudget (selector: {sel}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value."
            );
            cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "UnmanagedPods", &msg);
        }
        // buildDisruptedPodMap: evictions whose deletion is still expected; the first expiry is the recheck.
        let mut disrupted = Labels::new();
        let mut recheck: Option<Millis> = None;
        for p in &pods {
            if p.metadata.deletion_timestamp.is_some() {
                continue;
            }
            let Some(text) = pdb.status.disrupted_pods.get(&p.metadata.name) else { continue };
            let Some(at) = parse_rfc3339(text) else { continue };
            let expected_deletion = at + DELETION_TIMEOUT;
            if expected_deletion < now {
                let msg = format!(
                    "Pod was expected by PDB {}/{} to be deleted but it wasn't",
                    pdb.metadata.namespace, pdb.metadata.namespace
                );
                cx.recorder.event(&mut cx.api, &Object::Pod((*p).clone()), EventKind::Warning, "NotDeleted", &msg);
            } else {
                recheck = Some(recheck.map_or(expected_deletion, |r| r.min(expected_deletion)));
                disrupted.insert(p.metadata.name.clone(), text.clone());
            }
        }
        let healthy = count_healthy(&pods, &disrupted, now);
        // updatePdbStatus
        let mut allowed = healthy.saturating_sub(desired);
        if expected <= 0 || allowed <= 0 {
            allowed = 0;
        }
        let generation = pdb.metadata.generation;
        let st = &pdb.status;
        let up_to_date = st.current_healthy == healthy
            && st.desired_healthy == desired
            && st.expected_pods == expected
            && st.disruptions_allowed == allowed
            && st.disrupted_pods == disrupted
            && st.observed_generation == generation
            && condition_up_to_date(pdb);
        if !up_to_date {
            let mut status = PodDisruptionBudgetStatus {
                observed_generation: generation,
                disrupted_pods: disrupted,
                disruptions_allowed: allowed,
                current_healthy: healthy,
                desired_healthy: desired,
                expected_pods: expected,
                conditions: st.conditions.clone(),
            };
            set_allowed_condition(&mut status, now);
            cx.api
                .patch(Kind::PodDisruptionBudget, key, Subresource::Status, |o| {
                    if let Object::PodDisruptionBudget(p) = o {
                        p.status = status;
                    }
                })
                .map_err(|e| e.to_string())?;
        }
        Ok(match recheck {
            Some(at) => ReconcileAction::RequeueAfter(at.saturating_sub(now).max(1)),
            None => ReconcileAction::Done,
        })
    }
}

/// `ConditionsAreUpToDate`: the DisruptionAllowed condition says what disruptionsAllowed does, for this generation.
fn condition_up_to_date(pdb: &PodDisruptionBudget) -> bool {
    let Some(c) = pdb.allowed_condition() else { return false };
    let want = if pdb.status.disruptions_allowed > 0 { "True" } else { "False" };
    &*c.status == want && c.observed_generation == pdb.status.observed_generation
}

/// `UpdateDisruptionAllowedCondition` (with `meta.SetStatusCondition`: the transition time moves only when the
/// status does).
pub(crate) fn set_allowed_condition(st: &mut PodDisruptionBudgetStatus, now: Millis) {
    let (status, reason) =
        if st.disruptions_allowed > 0 { ("True", "SufficientPods") } else { ("False", "InsufficientPods") };
    let generation = st.observed_generation;
    match st.conditions.iter_mut().find(|c| &*c.type_ == "DisruptionAllowed") {
        Some(c) => {
            if &*c.status != status {
                c.status = s(status);
                c.last_transition_time = Some(Time(now));
            }
            c.reason = s(reason);
            c.message = s("");
            c.observed_generation = generation;
        }
        None => st.conditions.push(PdbCondition {
            type_: s("DisruptionAllowed"),
            status: s(status),
            observed_generation: generation,
            last_transition_time: Some(Time(now)),
            reason: s(reason),
            message: s(""),
        }),
    }
}

/// The time an eviction writes into `disruptedPods`.
pub(crate) fn disruption_time(now: Millis) -> String {
    rfc3339(now)
}
