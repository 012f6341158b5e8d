//! The controllers: many small, single-purpose control loops, each owning one kind of decision.

pub mod cronjob;
pub mod daemonset;
pub mod deployment;
pub mod disruption;
pub mod endpointslice;
pub mod expectations;
pub mod garbagecollector;
pub mod job;
pub mod namespace;
pub mod nodelifecycle;
pub mod persistentvolume;
pub mod replicaset;
pub mod resourcequota;
pub mod scheduler;
pub mod serviceaccount;
pub mod statefulset;
pub mod tainteviction;
pub mod templatehash;
pub mod ttlafterfinished;

use std::rc::Rc;

/// The controllers kubeloop runs: each one's name (the UI contract's, `mode: {trigger: NAME=edge}`'s) and the
/// component that writes its Events (`source.component`), in the order the page lists them.
pub const CONTROLLERS: [(&str, &str); 17] = [
    ("deployment", "deployment-controller"),
    ("replicaset", "replicaset-controller"),
    ("scheduler", "default-scheduler"),
    ("nodelifecycle", "node-controller"),
    ("tainteviction", "taint-eviction-controller"),
    ("garbagecollector", "garbage-collector-controller"),
    ("namespace", "namespace-controller"),
    ("serviceaccount", "serviceaccount-controller"),
    ("endpointslice", "endpoint-slice-controller"),
    ("disruption", "controllermanager"),
    ("daemonset", "daemonset-controller"),
    ("resourcequota", "resourcequota-controller"),
    ("statefulset", "statefulset-controller"),
    ("persistentvolumebinder", "persistentvolume-controller"),
    ("job", "job-controller"),
    ("ttlafterfinished", "ttl-after-finished-controller"),
    ("cronjob", "cronjob-controller"),
];

/// The controller whose Events carry this `source.component`.
pub fn controller_of_component(component: &str) -> Option<&'static str> {
    CONTROLLERS.iter().find(|(_, c)| *c == component).map(|(n, _)| *n)
}

use crate::api::{controller_of, Kind, ObjKey, Object, ObjectMeta, OwnerReference};
use crate::client::Api;
use crate::informer::Cache;
use crate::store::Subresource;

/// The object (of `kind`, in `cache`) that controls `obj`, if the controller reference names it and its uid
/// matches (`resolveControllerRef`).
pub(crate) fn resolve_controller_ref<'a>(obj: &Object, kind: Kind, cache: &'a Cache) -> Option<&'a Rc<Object>> {
    let r = controller_of(obj.meta())?;
    if &*r.kind != kind.name() {
        return None;
    }
    let owner = cache.get(&ObjKey { namespace: obj.meta().namespace.clone(), name: r.name.clone() })?;
    (owner.meta().uid == r.uid).then_some(owner)
}

/// Adoption (`ClaimObject`): patches a controller reference onto the orphan `key` (of `kind`) unless someone
/// adopted it meanwhile; the adopted object when `owner` now controls it.
pub(crate) fn adopt(
    api: &mut Api,
    kind: Kind,
    key: &ObjKey,
    owner_kind: Kind,
    owner: &ObjectMeta,
) -> Option<Rc<Object>> {
    let reference = OwnerReference::controller(owner_kind, owner);
    let adopted = api
        .patch(kind, key, Subresource::Main, |o| {
            if controller_of(o.meta()).is_none() {
                o.meta_mut().owner_references.push(reference);
            }
        })
        .ok()?;
    controller_of(adopted.meta()).is_some_and(|r| r.uid == owner.uid).then_some(adopted)
}

#[cfg(test)]
mod table_tests {
    use super::*;

    /// The table names every controller the simulation runs, by its own name and component, and nothing else.
    #[test]
    fn the_controllers_table_is_the_simulations() {
        let sim = crate::sim::Sim::new(Default::default());
        let running: Vec<(&str, &str)> =
            sim.controllers_by_name().iter().map(|(_, c)| (c.name(), c.reconciler.component())).collect();
        let mut table = CONTROLLERS.to_vec();
        let mut seen = running.clone();
        table.sort_unstable();
        seen.sort_unstable();
        assert_eq!(seen, table);
        assert_eq!(controller_of_component("default-scheduler"), Some("scheduler"));
        assert_eq!(controller_of_component("kubelet"), None);
    }
}
