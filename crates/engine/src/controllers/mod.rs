//! The controllers: many small, single-purpose control loops, each owning one kind of decision.

pub mod deployment;
pub mod expectations;
pub mod replicaset;
pub mod scheduler;

use crate::api::{controller_of, Kind, ObjKey, Object};
use crate::informer::Cache;

/// The object (of `kind`, in `cache`) that controls `obj`, if the controller reference names it and its uid
/// matches (`resolveControllerRef`).
pub fn resolve_controller_ref<'a>(obj: &Object, kind: Kind, cache: &'a Cache) -> Option<&'a std::rc::Rc<Object>> {
    let r = controller_of(obj.meta())?;
    if &*r.kind != kind.name() {
        return None;
    }
    let owner = cache.get(&ObjKey { namespace: obj.meta().namespace.clone(), name: r.name.clone() })?;
    (owner.meta().uid == r.uid).then_some(owner)
}
