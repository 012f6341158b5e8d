//! The resource quota controller (pkg/controller/resourcequota): each ResourceQuota's status says its hard limits
//! and what its namespace uses of each (`status.hard`, `status.used`), recalculated when the quota or a pod of its
//! namespace changes. The API server's ResourceQuota admission refuses what would go past them
//! (`crate::store::quota`).

use serde_json::{Map, Value};

use crate::api::{Kind, ObjKey, Object};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::store::quota::{counted_as, pod_counts, pod_usage, resource_list, scopes_select, show};
use crate::time::Millis;

/// `--concurrent-resource-quota-syncs`.
pub const WORKERS: usize = 5;

#[derive(Clone, Default)]
pub struct ResourceQuotaController {
    workers: usize,
}

impl ResourceQuotaController {
    pub fn new(workers: usize) -> Self {
        ResourceQuotaController { workers }
    }
}

impl Reconciler for ResourceQuotaController {
    fn name(&self) -> &'static str {
        "resourcequota"
    }

    fn component(&self) -> &'static str {
        "resourcequota-controller"
    }

    fn workers(&self) -> usize {
        self.workers
    }

    fn watches(&self) -> &'static [Kind] {
        &[Kind::ResourceQuota, Kind::Pod]
    }

    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        match obj.kind() {
            Kind::ResourceQuota if !matches!(ev, InformerEvent::Delete(..)) => out.push((obj.key(), 0)),
            Kind::Pod => {
                // A pod's usage changes when it comes, goes, finishes or changes its resources.
                if let InformerEvent::Update(old, new) = ev {
                    let (Some(o), Some(n)) = (old.as_pod(), new.as_pod()) else { return };
                    let same = o.status.phase == n.status.phase
                        && o.metadata.deletion_timestamp == n.metadata.deletion_timestamp
                        && std::rc::Rc::ptr_eq(&o.spec, &n.spec);
                    if same {
                        return;
                    }
                }
                for q in caches.of(Kind::ResourceQuota).by_namespace(&obj.meta().namespace) {
                    out.push((q.key(), 0));
                }
            }
            _ => {}
        }
    }

    /// `syncResourceQuota`: the usage of every resource the quota limits, then status if it changed.
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(q) = cx.caches.of(Kind::ResourceQuota).get(key).and_then(|o| o.as_stored()).cloned() else {
            return Ok(ReconcileAction::Done);
        };
        let hard = resource_list(q.field("spec.hard"));
        let pods: Vec<_> = cx
            .caches
            .of(Kind::Pod)
            .by_namespace(&key.namespace)
            .filter_map(|o| o.as_pod().cloned())
            .filter(|p| pod_counts(p, cx.now) && scopes_select(&q, p))
            .collect();
        let mut used = Map::new();
        for r in hard.keys() {
            let kind = Kind::ALL.into_iter().find(|k| k.namespaced() && counted_as(*k, r));
            let millis = match kind {
                Some(Kind::Pod) => (pods.len() as i64).saturating_mul(1000),
                Some(k) => {
                    let (items, _) = cx.api.list(k, Some(&key.namespace), None);
                    (items.len() as i64).saturating_mul(1000)
                }
                None => pods.iter().filter_map(|p| pod_usage(p, r)).fold(0i64, i64::saturating_add),
            };
            let shown = show(r, millis);
            let value = shown.split_once('=').map_or("0", |(_, v)| v);
            used.insert(r.to_string(), Value::String(value.to_string()));
        }
        let hard_json = q.field("spec.hard").cloned().unwrap_or(Value::Object(Map::new()));
        let mut status = Map::new();
        status.insert("hard".into(), hard_json);
        status.insert("used".into(), Value::Object(used));
        let status = Value::Object(status);
        if q.fields.get("status") == Some(&status) {
            return Ok(ReconcileAction::Done);
        }
        let mut next = q.clone();
        next.fields.insert("status".into(), status);
        match cx.api.update_status(Object::Stored(next)) {
            Ok(_) => Ok(ReconcileAction::Done),
            Err(e) if e.is_not_found() => Ok(ReconcileAction::Done),
            Err(e) => Err(e.to_string()),
        }
    }
}
