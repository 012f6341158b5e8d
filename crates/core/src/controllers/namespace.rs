//! The namespace controller (pkg/controller/namespace, and its `deletion` package's namespaced resources
//! deleter): a namespace being deleted (deletionTimestamp set, phase Terminating) is emptied of every namespaced
//! object, then its `kubernetes` finalizer is removed through the `finalize` subresource, after which the API
//! server removes it.
//!
//! - An informer on namespaces; a namespace with a deletionTimestamp is queued 5 s after each notification
//!   (`namespaceDeletionGracePeriod`: other API servers and etcd members see the deletion first).
//! - A sync GETs the namespace live, makes sure its phase is Terminating, then for every namespaced kind the
//!   store serves: estimates the graceful termination left (pods: the longest `terminationGracePeriodSeconds` of
//!   the pods not yet terminal, counted from the namespace's deletionTimestamp), DELETECOLLECTIONs it in the
//!   background (pods get their graceful deletion, confirmed by their kubelets; finalizers are respected), and
//!   LISTs what remains.
//! - The namespace's deletion conditions are written (status) whenever they change, with upstream's types,
//!   reasons and messages.
//! - Content left: the key is requeued after `estimate / 2 + 1` seconds (15 s when only finalizers hold it);
//!   items left with neither an estimate nor a finalizer are an error (rate-limited retry, 5 ms to 60 s).
//! - Nothing left: the `kubernetes` finalizer is removed (`finalize`), retried on conflict.
//!
//! kubeloop's discovery cannot fail (its kinds are compiled in), so the discovery and group-version conditions
//! always report success; upstream walks the discovered resources in map order, kubeloop in the fixed order of
//! [`Kind::ALL`].

use crate::vecmap::VecMap;

use crate::api::{s, Kind, NamespaceCondition, ObjKey, Object, Str, Time, FINALIZER_KUBERNETES};
use crate::client::Api;
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::store::{ApiError, DeleteOptions, Propagation};
use crate::time::{Millis, SECOND};
use crate::workqueue::{BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter, RateLimiter};

/// `namespaceDeletionGracePeriod`: how long after a notification a terminating namespace is processed.
pub const DELETION_GRACE_PERIOD: Millis = 5 * SECOND;
/// `finalizerEstimateSeconds`: the wait assumed for finalizers found on the remaining items.
pub const FINALIZER_ESTIMATE_SECONDS: i64 = 15;
/// Conflicts a read-modify-write of the namespace retries before giving up for this sync (upstream retries
/// without a bound; kubeloop's injected conflicts could make that endless).
const CONFLICT_RETRIES: usize = 10;

/// The condition types the deleter maintains, in upstream's order, with the reason and message of their "ok"
/// variant (status False).
pub const CONDITIONS: [(&str, &str, &str); 5] = [
    ("NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"),
    ("NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"),
    (
        "NamespaceDeletionContentFailure",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    ("NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"),
    ("NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"),
];

#[derive(Clone, Default)]
pub struct NamespaceController;

impl NamespaceController {
    pub(crate) fn new() -> Self {
        NamespaceController
    }
}

/// Why a sync did not finish.
enum SyncError {
    /// `ResourcesRemainingError`: content is still going away; look again after about half the estimate.
    Remaining(i64),
    Api(ApiError),
    Failed(String),
}

impl From<ApiError> for SyncError {
    fn from(e: ApiError) -> Self {
        SyncError::Api(e)
    }
}

/// What is left of one kind after its DELETECOLLECTION (`gvrDeletionMetadata`).
#[derive(Default)]
struct KindRemaining {
    estimate: i64,
    remaining: usize,
    finalizers: VecMap<Str, usize>,
}

/// `group/version, Resource=plural`, as Go prints a `schema.GroupVersionResource` (`/v1, Resource=pods`).
fn gvr(kind: Kind) -> String {
    let gv = kind.api_version();
    let gv = if gv.contains('/') { gv.to_string() } else { format!("/{gv}") };
    format!("{gv}, Resource={}", kind.plural())
}

/// `plural.group` (`pods.`, `deployments.apps`), as the ContentRemaining message names a resource.
fn resource_dot_group(kind: Kind) -> String {
    let group = kind.api_version().rsplit_once('/').map_or("", |(g, _)| g);
    format!("{}.{group}", kind.plural())
}

/// `utilerrors.NewAggregate(errs).Error()`: one message as is, several (deduplicated) in brackets.
fn aggregate(errs: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errs {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    match seen.as_slice() {
        [one] => one.to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// `updateConditions`: every maintained type is present; a condition changes only when its status, reason or
/// message does, and its lastTransitionTime only when its status does. Whether anything changed.
fn update_conditions(conds: &mut Vec<NamespaceCondition>, failing: &[NamespaceCondition], now: Millis) -> bool {
    let mut changed = false;
    for (type_, ok_reason, ok_message) in CONDITIONS {
        let new = failing.iter().find(|c| &*c.type_ == type_).cloned().unwrap_or_else(|| NamespaceCondition {
            type_: s(type_),
            status: s("False"),
            last_transition_time: Some(Time(now)),
            reason: s(ok_reason),
            message: s(ok_message),
        });
        match conds.iter_mut().find(|c| &*c.type_ == type_) {
            None => {
                conds.push(new);
                changed = true;
            }
            Some(old) if old.status != new.status || old.reason != new.reason || old.message != new.message => {
                if old.status != new.status {
                    old.last_transition_time = Some(Time(now));
                }
                old.status = new.status;
                old.reason = new.reason;
                old.message = new.message;
                changed = true;
            }
            Some(_) => {}
        }
    }
    changed
}

fn failing(type_: &str, reason: &str, message: String, now: Millis) -> NamespaceCondition {
    NamespaceCondition {
        type_: s(type_),
        status: s("True"),
        last_transition_time: Some(Time(now)),
        reason: s(reason),
        message: s(&message),
    }
}

/// `retryOnConflictError`: applies `f` to the latest namespace, re-reading it after a conflict (and failing if
/// its uid changed meanwhile).
fn retry_on_conflict(
    api: &mut Api,
    mut ns: std::rc::Rc<Object>,
    mut f: impl FnMut(&mut Api, &Object) -> Result<std::rc::Rc<Object>, ApiError>,
) -> Result<std::rc::Rc<Object>, SyncError> {
    let mut tries = 0;
    loop {
        match f(api, &ns) {
            Ok(o) => return Ok(o),
            Err(e) if e.is_conflict() && tries < CONFLICT_RETRIES => {
                tries += 1;
                let latest = api.get(Kind::Namespace, &ns.key())?;
                if latest.meta().uid != ns.meta().uid {
                    return Err(SyncError::Failed("namespace uid has changed across retries".into()));
                }
                ns = latest;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

impl NamespaceController {
    /// `namespacedResourcesDeleter.Delete`.
    fn sync(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> Result<(), SyncError> {
        let ns = match cx.api.get(Kind::Namespace, key) {
            Ok(o) => o,
            Err(e) if e.is_not_found() => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        if !ns.meta().is_terminating() {
            return Ok(());
        }
        // updateNamespaceStatusFunc: the phase says Terminating.
        let ns = match retry_on_conflict(&mut cx.api, ns, |api, o| {
            let Some(n) = o.as_namespace() else { return Ok(std::rc::Rc::new(o.clone())) };
            if &*n.status.phase == "Terminating" {
                return Ok(std::rc::Rc::new(o.clone()));
            }
            let mut next = n.clone();
            next.status.phase = s("Terminating");
            api.update_status(Object::Namespace(next))
        }) {
            Ok(o) => o,
            Err(SyncError::Api(e)) if e.is_not_found() => return Ok(()),
            Err(e) => return Err(e),
        };
        let Some(n) = ns.as_namespace() else { return Ok(()) };
        if !n.metadata.is_terminating() || n.spec.finalizers.is_empty() {
            return Ok(());
        }
        let estimate = self.delete_all_content(&ns, cx)?;
        if estimate > 0 {
            return Err(SyncError::Remaining(estimate));
        }
        // finalizeNamespace: every finalizer but ours, sorted (a set's list).
        let finalized = retry_on_conflict(&mut cx.api, ns, |api, o| {
            let Some(n) = o.as_namespace() else { return Ok(std::rc::Rc::new(o.clone())) };
            let mut next = n.clone();
            let mut rest: Vec<Str> =
                n.spec.finalizers.iter().filter(|f| &***f != FINALIZER_KUBERNETES).cloned().collect();
            crate::sort::sort(&mut rest);
            rest.dedup();
            next.spec.finalizers = rest;
            api.finalize(Object::Namespace(next))
        });
        match finalized {
            Ok(_) => Ok(()),
            // Another deleter finished first: the namespace is gone.
            Err(SyncError::Api(e)) if e.is_not_found() => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// `deleteAllContent`: the estimate of the time left (seconds; 0 when nothing is expected to go away by
    /// itself), and the conditions written.
    fn delete_all_content(&mut self, ns: &Object, cx: &mut Ctx<'_, '_>) -> Result<i64, SyncError> {
        let Some(n) = ns.as_namespace() else { return Ok(0) };
        let name = n.metadata.name.clone();
        let deleted_at = n.metadata.deletion_timestamp.map_or(cx.now, |t| t.0);
        let mut errs: Vec<String> = Vec::new();
        let mut estimate = 0i64;
        let mut remaining: Vec<String> = Vec::new();
        let mut finalizers: VecMap<Str, usize> = VecMap::new();
        for kind in Kind::ALL.into_iter().filter(|k| k.namespaced()) {
            let (left, err) = self.delete_kind(kind, &name, deleted_at, cx);
            if let Some(e) = err {
                errs.push(e);
            }
            estimate = estimate.max(left.estimate);
            if left.remaining > 0 {
                remaining.push(format!("{} has {} resource instances", resource_dot_group(kind), left.remaining));
                for (f, count) in left.finalizers {
                    *finalizers.or_default(f) += count;
                }
            }
        }
        let now = cx.now;
        let mut failed: Vec<NamespaceCondition> = Vec::new();
        if !remaining.is_empty() {
            crate::sort::sort(&mut remaining);
            let msg = format!("Some resources are remaining: {}", remaining.join(", "));
            failed.push(failing("NamespaceContentRemaining", "SomeResourcesRemain", msg, now));
        }
        if !finalizers.is_empty() {
            let mut by: Vec<String> =
                finalizers.iter().map(|(f, count)| format!("{f} in {count} resource instances")).collect();
            crate::sort::sort(&mut by);
            let msg = format!("Some content in the namespace has finalizers remaining: {}", by.join(", "));
            failed.push(failing("NamespaceFinalizersRemaining", "SomeFinalizersRemain", msg, now));
        }
        if !errs.is_empty() {
            let mut msgs = errs.clone();
            crate::sort::sort(&mut msgs);
            let msg = format!("Failed to delete all resource types, {} remaining: {}", msgs.len(), msgs.join(", "));
            failed.push(failing("NamespaceDeletionContentFailure", "ContentDeletionFailed", msg, now));
        }
        // The conditions are written whenever they change, success included; a failed write is only logged.
        let mut next = n.clone();
        if update_conditions(&mut next.status.conditions, &failed, now) {
            let _ = cx.api.update_status(Object::Namespace(next));
        }
        if !errs.is_empty() {
            return Err(SyncError::Failed(aggregate(&errs)));
        }
        Ok(estimate)
    }

    /// `deleteAllContentForGroupVersionResource`.
    fn delete_kind(
        &mut self,
        kind: Kind,
        namespace: &str,
        deleted_at: Millis,
        cx: &mut Ctx<'_, '_>,
    ) -> (KindRemaining, Option<String>) {
        // estimateGracefulTermination: only pods take time, and only what is left of their grace period.
        let mut estimate = 0i64;
        if kind == Kind::Pod {
            let (pods, _) = cx.api.list(Kind::Pod, Some(namespace), None);
            for p in pods.iter().filter_map(|o| o.as_pod()) {
                if p.status.phase.is_terminal() {
                    continue;
                }
                if let Some(grace) = p.spec.termination_grace_period_seconds {
                    estimate = estimate.max(grace);
                }
            }
            if cx.now.saturating_sub(deleted_at) >= crate::time::seconds(estimate) {
                estimate = 0;
            }
        }
        let opts = DeleteOptions { propagation: Some(Propagation::Background), ..Default::default() };
        if let Err(e) = cx.api.delete_collection(kind, namespace, &opts) {
            return (KindRemaining { estimate, ..Default::default() }, Some(e.to_string()));
        }
        let (items, _) = cx.api.list(kind, Some(namespace), None);
        if items.is_empty() {
            return (KindRemaining::default(), None);
        }
        let mut finalizers: VecMap<Str, usize> = VecMap::new();
        for o in &items {
            for f in &o.meta().finalizers {
                *finalizers.or_default(f.clone()) += 1;
            }
        }
        let remaining = items.len();
        if estimate != 0 {
            return (KindRemaining { estimate, remaining, finalizers }, None);
        }
        if !finalizers.is_empty() {
            return (KindRemaining { estimate: FINALIZER_ESTIMATE_SECONDS, remaining, finalizers }, None);
        }
        let err = format!(
            "unexpected items still remain in namespace: {} for gvr: {}",
            crate::limits::echo(namespace),
            gvr(kind)
        );
        (KindRemaining { estimate, remaining, finalizers }, Some(err))
    }
}

impl Reconciler for NamespaceController {
    fn name(&self) -> &'static str {
        "namespace"
    }
    fn component(&self) -> &'static str {
        "namespace-controller"
    }
    fn workers(&self) -> usize {
        // `--concurrent-namespace-syncs`
        10
    }
    fn watches(&self) -> &'static [Kind] {
        &[Kind::Namespace]
    }

    /// `nsControllerRateLimiter`: per-key exponential backoff from 5 ms capped at 60 s (a namespace is retried at
    /// least every minute), and an overall bucket of 10 qps with a burst of 100.
    fn rate_limiter(&self) -> Box<dyn RateLimiter<ObjKey>> {
        Box::new(MaxOfRateLimiter::new(vec![
            Box::new(ItemExponentialFailureRateLimiter::new(5, 60 * SECOND)),
            Box::new(BucketRateLimiter::new(10.0, 100)),
        ]))
    }

    /// `enqueueNamespace`: only namespaces being deleted, after the deletion grace period.
    fn handle(&mut self, ev: &InformerEvent, _caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        if let InformerEvent::Add(o) | InformerEvent::Update(_, o) = ev {
            if o.meta().is_terminating() {
                out.push((o.key(), DELETION_GRACE_PERIOD));
            }
        }
    }

    /// `syncNamespaceFromKey`, and the worker's handling of its result.
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        if cx.caches.of(Kind::Namespace).get(key).is_none() {
            return Ok(ReconcileAction::Done);
        }
        match self.sync(key, cx) {
            Ok(()) => Ok(ReconcileAction::Done),
            Err(SyncError::Remaining(estimate)) => {
                Ok(ReconcileAction::RequeueAfter(crate::time::seconds(estimate / 2 + 1)))
            }
            Err(SyncError::Api(e)) => Err(format!("deletion of namespace {key} failed: {e}")),
            Err(SyncError::Failed(m)) => Err(format!("deletion of namespace {key} failed: {m}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_upstream_prints_them() {
        assert_eq!(gvr(Kind::Pod), "/v1, Resource=pods");
        assert_eq!(gvr(Kind::Deployment), "apps/v1, Resource=deployments");
        assert_eq!(resource_dot_group(Kind::Pod), "pods.");
        assert_eq!(resource_dot_group(Kind::Lease), "leases.coordination.k8s.io");
        assert_eq!(aggregate(&["a".into()]), "a");
        assert_eq!(aggregate(&["a".into(), "b".into(), "a".into()]), "[a, b]");
    }

    #[test]
    fn conditions_move_their_transition_time_only_with_their_status() {
        let mut conds = Vec::new();
        assert!(update_conditions(&mut conds, &[], 1000));
        assert_eq!(conds.len(), 5);
        assert!(!update_conditions(&mut conds, &[], 2000), "nothing changed");
        let f = failing("NamespaceContentRemaining", "SomeResourcesRemain", "x".into(), 3000);
        assert!(update_conditions(&mut conds, std::slice::from_ref(&f), 3000));
        assert_eq!(conds[3].last_transition_time, Some(Time(3000)));
        let g = failing("NamespaceContentRemaining", "SomeResourcesRemain", "y".into(), 4000);
        assert!(update_conditions(&mut conds, &[g], 4000));
        assert_eq!((&*conds[3].message, conds[3].last_transition_time), ("y", Some(Time(3000))));
    }
}
