//! The service account controller (pkg/controller/serviceaccount/serviceaccounts_controller.go): every active
//! namespace has a ServiceAccount named `default`. A namespace that appears or changes is synced; so is the
//! namespace of a deleted ServiceAccount, so a deleted `default` comes back. One worker, the default rate limiter,
//! no Events.

use crate::api::{s, Kind, ObjKey, Object, ServiceAccount};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::store::ApiError;
use crate::time::Millis;

/// The service accounts every namespace gets (`serviceAccountsToEnsure`).
pub const ENSURED: [&str; 1] = ["default"];

#[derive(Clone, Default)]
pub struct ServiceAccountsController;

impl ServiceAccountsController {
    pub(crate) fn new() -> Self {
        ServiceAccountsController
    }
}

impl Reconciler for ServiceAccountsController {
    fn name(&self) -> &'static str {
        "serviceaccount"
    }
    fn component(&self) -> &'static str {
        "serviceaccount-controller"
    }
    fn workers(&self) -> usize {
        // kube-controller-manager runs it with one worker.
        1
    }
    fn watches(&self) -> &'static [Kind] {
        &[Kind::Namespace, Kind::ServiceAccount]
    }

    /// `namespaceAdded` / `namespaceUpdated` enqueue the namespace; `serviceAccountDeleted` enqueues the deleted
    /// account's namespace when it is one of the ensured ones.
    fn handle(&mut self, ev: &InformerEvent, _caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        match (ev, &**ev.object()) {
            (InformerEvent::Add(_) | InformerEvent::Update(..), Object::Namespace(ns)) => {
                out.push((ObjKey::cluster(&ns.metadata.name), 0));
            }
            (InformerEvent::Delete(..), Object::ServiceAccount(sa)) if ENSURED.contains(&&*sa.metadata.name) => {
                out.push((ObjKey::cluster(&sa.metadata.namespace), 0));
            }
            _ => {}
        }
    }

    /// `syncNamespace`: in an active namespace, creates each ensured account the cache does not have.
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(ns) = cx.caches.of(Kind::Namespace).get(key).and_then(|o| o.as_namespace()) else {
            return Ok(ReconcileAction::Done);
        };
        if &*ns.status.phase != "Active" {
            return Ok(ReconcileAction::Done);
        }
        let namespace = ns.metadata.name.clone();
        for name in ENSURED {
            let sa_key = ObjKey { namespace: namespace.clone(), name: s(name) };
            if cx.caches.of(Kind::ServiceAccount).get(&sa_key).is_some() {
                continue;
            }
            let mut sa = ServiceAccount::default();
            sa.metadata.name = s(name);
            sa.metadata.namespace = namespace.clone();
            match cx.api.create(Object::ServiceAccount(sa)) {
                // The cache had not seen it yet; or the namespace is being deleted: nothing to do.
                Ok(_) | Err(ApiError::AlreadyExists { .. }) => {}
                Err(e) if e.is_namespace_terminating() => {}
                Err(e) => return Err(format!("{e}")),
            }
        }
        Ok(ReconcileAction::Done)
    }
}
