//! The taint eviction controller (pkg/controller/tainteviction, once the node lifecycle controller's
//! NoExecuteTaintManager): a pod on a node with `NoExecute` taints is deleted at once if it does not tolerate one of
//! them, or when the shortest `tolerationSeconds` of the tolerations it uses has passed since the controller first
//! saw it tainted (its TaintManagerEviction event is recorded then, as the deletion fires). Every pod gets 300 s
//! tolerations for `not-ready` and `unreachable` from admission (DefaultTolerationSeconds), so pods leave a dead
//! node about five minutes after it is tainted. The deletion is graceful: on a node whose kubelet is gone, nobody confirms it, and the pod stays Terminating, as in a real
//! cluster; its ReplicaSet replaces it at once (a terminating pod is not active).

use std::collections::BTreeMap;

use crate::api::{s, Kind, Node, ObjKey, Object, ObjectReference, Pod, Taint, Toleration};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::{set_pod_condition, DeleteOptions, Subresource};
use crate::time::Millis;

#[derive(Clone)]
pub struct TaintEvictionController {
    /// Pods whose eviction is scheduled, with when the controller first saw them tainted (`scheduledEvictions`:
    /// in memory, so a restarted controller starts counting again).
    scheduled: BTreeMap<ObjKey, Millis>,
}

impl Default for TaintEvictionController {
    fn default() -> Self {
        Self::new()
    }
}

impl TaintEvictionController {
    pub(crate) fn new() -> Self {
        TaintEvictionController { scheduled: BTreeMap::new() }
    }
}

fn no_execute(node: &Node) -> Vec<&Taint> {
    node.spec.taints.iter().filter(|t| &*t.effect == "NoExecute").collect()
}

/// `GetMatchingTolerations`: for each taint the first toleration that tolerates it; `None` if one is not
/// tolerated.
fn matching<'a>(taints: &[&Taint], tolerations: &'a [Toleration]) -> Option<Vec<&'a Toleration>> {
    taints.iter().map(|t| tolerations.iter().find(|tol| tol.tolerates(t))).collect()
}

/// `getMinTolerationTime`: the shortest tolerationSeconds; `None` means forever (no toleration has seconds).
fn min_toleration(used: &[&Toleration]) -> Option<Millis> {
    if used.is_empty() {
        return Some(0);
    }
    let mut min: Option<i64> = None;
    for t in used {
        if let Some(secs) = t.toleration_seconds {
            if secs <= 0 {
                return Some(0);
            }
            min = Some(min.map_or(secs, |m: i64| m.min(secs)));
        }
    }
    // A huge tolerationSeconds saturates the clock (upstream's `time.Duration(s) * time.Second` wraps).
    min.map(crate::time::seconds)
}

impl Reconciler for TaintEvictionController {
    fn name(&self) -> &'static str {
        "tainteviction"
    }

    fn retained(&self) -> usize {
        self.scheduled.len()
    }
    fn component(&self) -> &'static str {
        "taint-eviction-controller"
    }
    fn workers(&self) -> usize {
        8
    }
    fn watches(&self) -> &'static [Kind] {
        &[Kind::Node, Kind::Pod]
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match (obj.kind(), ev) {
            (Kind::Pod, InformerEvent::Delete(..)) => {
                self.scheduled.remove(&obj.key());
            }
            (Kind::Pod, _) => {
                if ev.is_resync() {
                    return;
                }
                // Only pods on a node with NoExecute taints (or already scheduled for eviction) have anything to
                // do; upstream's worker returns at once for the others.
                let Some(pod) = obj.as_pod().filter(|p| !p.spec.node_name.is_empty()) else { return };
                let tainted = caches
                    .get(Kind::Node)
                    .and_then(|c| c.get(&ObjKey::cluster(&pod.spec.node_name)))
                    .and_then(|n| n.as_node())
                    .is_some_and(|n| !no_execute(n).is_empty());
                if tainted || self.scheduled.contains_key(&obj.key()) {
                    out.push((obj.key(), 0));
                }
            }
            (Kind::Node, InformerEvent::Add(n) | InformerEvent::Update(_, n)) => {
                let old = ev.old().and_then(|o| o.as_node()).map(no_execute).unwrap_or_default();
                let Some(node) = n.as_node() else { return };
                let new = no_execute(node);
                if old == new && matches!(ev, InformerEvent::Update(..)) {
                    return;
                }
                if new.is_empty() && old.is_empty() {
                    return;
                }
                if let Some(pods) = caches.get(Kind::Pod) {
                    out.extend(pods.by_node(&node.metadata.name).map(|p| (p.key(), 0)));
                }
            }
            _ => {}
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let now = cx.now;
        let pod_obj = cx.caches.of(Kind::Pod).get(key).cloned();
        let Some(pod) = pod_obj.as_deref().and_then(Object::as_pod) else {
            self.scheduled.remove(key);
            return Ok(ReconcileAction::Done);
        };
        if pod.metadata.is_terminating() || pod.spec.node_name.is_empty() {
            self.scheduled.remove(key);
            return Ok(ReconcileAction::Done);
        }
        let node = cx.caches.of(Kind::Node).get(&ObjKey::cluster(&pod.spec.node_name)).cloned();
        let taints: Vec<Taint> = node
            .as_deref()
            .and_then(Object::as_node)
            .map(no_execute)
            .unwrap_or_default()
            .into_iter()
            .cloned()
            .collect();
        let taint_refs: Vec<&Taint> = taints.iter().collect();
        if taints.is_empty() {
            if self.scheduled.remove(key).is_some() {
                pod_event(cx, key, &format!("Cancelling deletion of Pod {key}"));
            }
            return Ok(ReconcileAction::Done);
        }
        let wait = match matching(&taint_refs, &pod.spec.tolerations) {
            None => 0,
            Some(used) => match min_toleration(&used) {
                None => {
                    // Tolerated forever.
                    self.scheduled.remove(key);
                    return Ok(ReconcileAction::Done);
                }
                Some(w) => w,
            },
        };
        let start = *self.scheduled.entry(key.clone()).or_insert(now);
        let due = start.saturating_add(wait);
        if now < due {
            return Ok(ReconcileAction::RequeueAfter(due - now));
        }
        // deletePodHandler: the event as the timed deletion fires (at once for a pod that tolerates nothing).
        pod_event(cx, key, &format!("Marking for deletion Pod {key}"));
        evict(cx, key, pod)?;
        self.scheduled.remove(key);
        Ok(ReconcileAction::Done)
    }

    fn reset(&mut self) {
        self.scheduled.clear();
    }
}

/// `emitPodDeletionEvent` / `emitCancelPodDeletionEvent`: a TaintManagerEviction event about the pod by name, as
/// upstream refers to it (apiVersion, kind, namespace and name: no uid, so `kubectl describe pod`, which asks for
/// the pod's uid, does not list it).
fn pod_event(cx: &mut Ctx<'_, '_>, key: &ObjKey, message: &str) {
    let involved = ObjectReference {
        kind: s("Pod"),
        namespace: key.namespace.clone(),
        name: key.name.clone(),
        uid: s(""),
        api_version: s("v1"),
    };
    cx.recorder.event_about(&mut cx.api, involved, EventKind::Normal, "TaintManagerEviction", message);
}

/// `addConditionAndDeletePod`: the DisruptionTarget condition, then a graceful delete.
fn evict(cx: &mut Ctx<'_, '_>, key: &ObjKey, pod: &Pod) -> Result<(), String> {
    let now = cx.now;
    let uid = pod.metadata.uid.clone();
    let marked = cx.api.patch(Kind::Pod, key, Subresource::Status, |o| {
        if let Object::Pod(p) = o {
            set_pod_condition(
                &mut p.status.conditions,
                "DisruptionTarget",
                "True",
                "DeletionByTaintManager",
                "Taint manager: deleting due to NoExecute taint",
                now,
            );
        }
    });
    match marked {
        Err(e) if e.is_not_found() => return Ok(()),
        Err(e) => return Err(format!("pod {key}: {e}")),
        Ok(_) => {}
    }
    let opts = DeleteOptions { preconditions_uid: Some(uid), ..Default::default() };
    match cx.api.delete(Kind::Pod, key, &opts) {
        Ok(_) => Ok(()),
        Err(e) if e.is_not_found() => Ok(()),
        Err(e) => Err(format!("pod {key}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    fn tol(key: &str, secs: Option<i64>) -> Toleration {
        Toleration {
            key: s(key),
            operator: s("Exists"),
            effect: s("NoExecute"),
            toleration_seconds: secs,
            ..Default::default()
        }
    }

    #[test]
    fn toleration_time_is_the_shortest_used() {
        let unreachable =
            Taint { key: s("node.kubernetes.io/unreachable"), effect: s("NoExecute"), ..Default::default() };
        let other = Taint { key: s("dedicated"), effect: s("NoExecute"), ..Default::default() };
        let tols = vec![tol("node.kubernetes.io/unreachable", Some(300)), tol("dedicated", None)];
        let used = matching(&[&unreachable, &other], &tols).unwrap_or_default();
        assert_eq!(min_toleration(&used), Some(300 * SECOND));
        let used = matching(&[&other], &tols).unwrap_or_default();
        assert_eq!(min_toleration(&used), None, "no seconds: tolerated forever");
        assert!(matching(&[&other], &tols[..1]).is_none(), "untolerated: evict now");
        assert_eq!(min_toleration(&[&tol("x", Some(0))]), Some(0));
    }
}
