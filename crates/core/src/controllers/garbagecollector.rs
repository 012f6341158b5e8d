//! The garbage collector (pkg/controller/garbagecollector): a graph of ownerReferences built from informer
//! events (`GraphBuilder`), and one queue for the two kinds of work upstream keeps in two:
//! - attempt to delete (`Kind/name`): an object whose owners are all gone is deleted (with the propagation its
//!   own finalizers ask for); dangling references next to a live owner are removed; an owner being deleted in the
//!   foreground (finalizer `foregroundDeletion`) gets its dependents deleted first, and its finalizer removed when
//!   none is left.
//! - attempt to orphan (`Kind/name/orphan`): an owner deleted with `propagationPolicy: Orphan` (finalizer
//!   `orphan`) has its reference removed from every dependent, then its finalizer.
//!
//! Owners are checked with a live GET, as upstream's `isDangling` does: a cache may lag, the API may not.
//! Background deletion is the default: `kubectl delete deployment web` removes the Deployment at once, then the
//! collector removes its ReplicaSets, then their pods.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::api::{Kind, ObjKey, Object, ObjectMeta, Str};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::store::{DeleteOptions, Propagation, Subresource};
use crate::time::Millis;

pub const FOREGROUND: &str = "foregroundDeletion";
pub const ORPHAN: &str = "orphan";
const ORPHAN_SUFFIX: &str = "/orphan";
const VIRTUAL_SUFFIX: &str = "/virtual";

/// What a queue key asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Work {
    /// `attemptToDelete` of an observed object.
    Delete,
    /// `attemptToOrphan`
    Orphan,
    /// An owner named by a dependent but not observed (upstream's virtual node): does it exist?
    Virtual,
}

/// An object in the graph.
type Item = (Kind, ObjKey);

#[derive(Clone, Default)]
pub struct GarbageCollector {
    /// Owner uid -> its dependents (ordered, so work is issued in a deterministic order).
    dependents: FxHashMap<Str, BTreeSet<Item>>,
    /// Objects observed, by uid.
    present: FxHashMap<Str, Item>,
    /// Owners being deleted in the foreground (`isDeletingDependents`).
    deleting_dependents: FxHashSet<Str>,
    /// Owners referenced but not observed, with the uid the references carry.
    virtual_owners: BTreeMap<Item, Str>,
}

impl GarbageCollector {
    pub(crate) fn new() -> Self {
        Self::default()
    }
}

fn has_finalizer(m: &ObjectMeta, f: &str) -> bool {
    m.finalizers.iter().any(|x| &**x == f)
}

/// The queue key of some work on an item: `Kind/name[/orphan|/virtual]` in its namespace (names cannot contain
/// `/`).
fn key_of(item: &Item, work: Work) -> ObjKey {
    let suffix = match work {
        Work::Delete => "",
        Work::Orphan => ORPHAN_SUFFIX,
        Work::Virtual => VIRTUAL_SUFFIX,
    };
    ObjKey::new(&item.1.namespace, &format!("{}/{}{suffix}", item.0.name(), item.1.name))
}

fn parse_key(key: &ObjKey) -> Option<(Item, Work)> {
    let (rest, work) = if let Some(r) = key.name.strip_suffix(ORPHAN_SUFFIX) {
        (r, Work::Orphan)
    } else if let Some(r) = key.name.strip_suffix(VIRTUAL_SUFFIX) {
        (r, Work::Virtual)
    } else {
        (&*key.name, Work::Delete)
    };
    let (kind, name) = rest.split_once('/')?;
    let kind = Kind::ALL.into_iter().find(|k| k.name() == kind)?;
    Some(((kind, ObjKey::new(&key.namespace, name)), work))
}

fn item_of(obj: &Object) -> Item {
    (obj.kind(), obj.key())
}

impl GarbageCollector {
    fn link(&mut self, obj: &Object) {
        for r in &obj.meta().owner_references {
            self.dependents.entry(r.uid.clone()).or_default().insert(item_of(obj));
        }
    }

    fn unlink(&mut self, obj: &Object) {
        for r in &obj.meta().owner_references {
            if let Some(set) = self.dependents.get_mut(&r.uid) {
                set.remove(&item_of(obj));
                if set.is_empty() {
                    self.dependents.remove(&r.uid);
                }
            }
        }
    }

    fn dependents_of(&self, uid: &str) -> Vec<Item> {
        self.dependents.get(uid).map(|s| s.iter().cloned().collect()).unwrap_or_default()
    }

    /// `attemptToDeleteItem`.
    fn attempt_to_delete(&mut self, item: &Item, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let (kind, key) = item;
        let obj = match cx.api.get(*kind, key) {
            Ok(o) => o,
            Err(e) if e.is_not_found() => return Ok(ReconcileAction::Done),
            Err(e) => return Err(e.to_string()),
        };
        let m = obj.meta();
        if m.is_terminating() {
            if !has_finalizer(m, FOREGROUND) {
                return Ok(ReconcileAction::Done);
            }
            return self.delete_dependents(&obj, cx);
        }
        let mut solid = 0;
        let mut drop_refs: Vec<Str> = Vec::new();
        let mut waiting = 0;
        for r in &m.owner_references {
            let Some(owner_kind) = Kind::from_type(&r.api_version, &r.kind) else {
                solid += 1; // a kind kubeloop does not serve: cannot be checked, keep it
                continue;
            };
            let ns = if owner_kind.namespaced() { &*m.namespace } else { "" };
            match cx.api.get(owner_kind, &ObjKey::new(ns, &r.name)) {
                Ok(owner) if owner.meta().uid == r.uid => {
                    let om = owner.meta();
                    if om.is_terminating() && has_finalizer(om, FOREGROUND) {
                        waiting += 1;
                        drop_refs.push(r.uid.clone());
                    } else {
                        solid += 1;
                    }
                }
                Ok(_) => drop_refs.push(r.uid.clone()),
                Err(e) if e.is_not_found() => drop_refs.push(r.uid.clone()),
                Err(e) => return Err(e.to_string()),
            }
        }
        if m.owner_references.is_empty() {
            return Ok(ReconcileAction::Done);
        }
        if solid > 0 {
            if drop_refs.is_empty() {
                return Ok(ReconcileAction::Done);
            }
            // Some owners are alive: only the dangling (or waiting) references go.
            cx.api
                .patch(*kind, key, Subresource::Main, |o| {
                    o.meta_mut().owner_references.retain(|r| !drop_refs.contains(&r.uid));
                })
                .map_err(|e| e.to_string())?;
            return Ok(ReconcileAction::Done);
        }
        let policy = if waiting > 0 && !self.dependents_of(&m.uid).is_empty() {
            Propagation::Foreground
        } else if has_finalizer(m, ORPHAN) {
            Propagation::Orphan
        } else if has_finalizer(m, FOREGROUND) {
            Propagation::Foreground
        } else {
            Propagation::Background
        };
        let opts =
            DeleteOptions { propagation: Some(policy), preconditions_uid: Some(m.uid.clone()), ..Default::default() };
        match cx.api.delete(*kind, key, &opts) {
            Ok(_) => Ok(ReconcileAction::Done),
            Err(e) if e.is_not_found() => Ok(ReconcileAction::Done),
            Err(e) => Err(e.to_string()),
        }
    }

    /// A virtual owner: if it exists with the referenced uid its informer will deliver it; if not, every
    /// dependent referencing it is attempted.
    fn check_virtual(&mut self, item: &Item, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(uid) = self.virtual_owners.get(item).cloned() else { return Ok(ReconcileAction::Done) };
        match cx.api.get(item.0, &item.1) {
            Ok(o) if o.meta().uid == uid => {
                self.virtual_owners.remove(item);
                return Ok(ReconcileAction::Done);
            }
            Ok(_) => {}
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(e.to_string()),
        }
        self.virtual_owners.remove(item);
        for dep in self.dependents_of(&uid) {
            self.attempt_to_delete(&dep, cx)?;
        }
        Ok(ReconcileAction::Done)
    }

    /// `processDeletingDependentsItem`: delete what still depends on a foreground-deleted owner; when nothing is
    /// left, remove the owner's `foregroundDeletion` finalizer (the API server then deletes it).
    fn delete_dependents(&mut self, owner: &Object, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let uid = owner.meta().uid.clone();
        let mut remaining = 0;
        for (kind, key) in self.dependents_of(&uid) {
            let dep = match cx.api.get(kind, &key) {
                Ok(d) => d,
                Err(e) if e.is_not_found() => continue,
                Err(e) => return Err(e.to_string()),
            };
            let blocking =
                dep.meta().owner_references.iter().any(|r| r.uid == uid && r.block_owner_deletion == Some(true));
            if !blocking {
                continue;
            }
            remaining += 1;
            if dep.meta().is_terminating() {
                continue;
            }
            let policy = if self.dependents_of(&dep.meta().uid).is_empty() {
                Propagation::Background
            } else {
                Propagation::Foreground
            };
            let opts = DeleteOptions { propagation: Some(policy), ..Default::default() };
            match cx.api.delete(kind, &key, &opts) {
                Ok(_) => {}
                Err(e) if e.is_not_found() => remaining -= 1,
                Err(e) => return Err(e.to_string()),
            }
        }
        if remaining == 0 {
            let key = owner.key();
            cx.api
                .patch(owner.kind(), &key, Subresource::Main, |o| {
                    o.meta_mut().finalizers.retain(|f| &**f != FOREGROUND);
                })
                .map_err(|e| e.to_string())?;
        }
        Ok(ReconcileAction::Done)
    }

    /// `attemptToOrphanWorker`: remove the owner's reference from every dependent, then its `orphan` finalizer.
    fn attempt_to_orphan(&mut self, item: &Item, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let (kind, key) = item;
        let owner = match cx.api.get(*kind, key) {
            Ok(o) => o,
            Err(e) if e.is_not_found() => return Ok(ReconcileAction::Done),
            Err(e) => return Err(e.to_string()),
        };
        if !owner.meta().is_terminating() || !has_finalizer(owner.meta(), ORPHAN) {
            return Ok(ReconcileAction::Done);
        }
        let uid = owner.meta().uid.clone();
        for (dk, dkey) in self.dependents_of(&uid) {
            match cx.api.patch(dk, &dkey, Subresource::Main, |o| {
                o.meta_mut().owner_references.retain(|r| r.uid != uid);
            }) {
                Ok(_) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        cx.api
            .patch(*kind, key, Subresource::Main, |o| {
                o.meta_mut().finalizers.retain(|f| &**f != ORPHAN);
            })
            .map_err(|e| e.to_string())?;
        Ok(ReconcileAction::Done)
    }
}

impl Reconciler for GarbageCollector {
    fn name(&self) -> &'static str {
        "garbagecollector"
    }

    fn retained(&self) -> usize {
        self.dependents.values().map(|d| d.len() + 1).sum::<usize>()
            + self.present.len()
            + self.deleting_dependents.len()
            + self.virtual_owners.len()
    }
    fn component(&self) -> &'static str {
        "garbage-collector-controller"
    }
    fn workers(&self) -> usize {
        // `--concurrent-gc-syncs`
        20
    }
    fn watches(&self) -> &'static [Kind] {
        // Every kind whose objects have owners here: upstream's graph builder watches every resource.
        &[
            Kind::Deployment,
            Kind::ReplicaSet,
            Kind::Pod,
            Kind::Node,
            Kind::Lease,
            Kind::Service,
            Kind::EndpointSlice,
            Kind::ConfigMap,
            Kind::Secret,
            Kind::ServiceAccount,
            Kind::DaemonSet,
            Kind::StatefulSet,
            Kind::PersistentVolumeClaim,
            Kind::Job,
            Kind::CronJob,
        ]
    }

    /// `processGraphChanges`.
    fn handle(&mut self, ev: &InformerEvent, _caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        let m = obj.meta();
        let item = item_of(obj);
        match ev {
            InformerEvent::Add(_) | InformerEvent::Update(..) => {
                if ev.is_resync() {
                    return;
                }
                // An update of the same object that keeps its owner references finds it linked and present.
                let unchanged = ev
                    .old()
                    .is_some_and(|old| old.meta().uid == m.uid && old.meta().owner_references == m.owner_references);
                if !unchanged {
                    if let Some(old) = ev.old() {
                        if old.meta().owner_references != m.owner_references {
                            self.unlink(old);
                        }
                    }
                    self.link(obj);
                    self.present.insert(m.uid.clone(), item.clone());
                }
                self.virtual_owners.remove(&item);
                // An owner not (yet) observed: check once that it exists (upstream's virtual node).
                for r in &m.owner_references {
                    if self.present.contains_key(&r.uid) {
                        continue;
                    }
                    let Some(kind) = Kind::from_type(&r.api_version, &r.kind) else { continue };
                    let ns = if kind.namespaced() { &*m.namespace } else { "" };
                    let owner = (kind, ObjKey::new(ns, &r.name));
                    if self.virtual_owners.insert(owner.clone(), r.uid.clone()).is_none() {
                        out.push((key_of(&owner, Work::Virtual), 0));
                    }
                }
                if m.is_terminating() {
                    if has_finalizer(m, ORPHAN) {
                        out.push((key_of(&item, Work::Orphan), 0));
                    }
                    if has_finalizer(m, FOREGROUND) {
                        self.deleting_dependents.insert(m.uid.clone());
                        out.push((key_of(&item, Work::Delete), 0));
                    }
                }
            }
            InformerEvent::Delete(..) => {
                self.unlink(obj);
                self.present.remove(&m.uid);
                self.deleting_dependents.remove(&m.uid);
                // Its dependents lost an owner; an owner waiting for its dependents may be done.
                out.extend(self.dependents_of(&m.uid).iter().map(|d| (key_of(d, Work::Delete), 0)));
                self.dependents.remove(&m.uid);
                for r in &m.owner_references {
                    if self.deleting_dependents.contains(&r.uid) {
                        if let Some(owner) = self.present.get(&r.uid) {
                            out.push((key_of(owner, Work::Delete), 0));
                        }
                    }
                }
            }
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some((item, work)) = parse_key(key) else { return Ok(ReconcileAction::Done) };
        match work {
            Work::Delete => self.attempt_to_delete(&item, cx),
            Work::Orphan => self.attempt_to_orphan(&item, cx),
            Work::Virtual => self.check_virtual(&item, cx),
        }
    }

    fn reset(&mut self) {
        *self = GarbageCollector::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_key_parses_back_to_the_item_and_work_it_names() {
        let item = (Kind::ReplicaSet, ObjKey::new("default", "web-5d8f"));
        assert_eq!(key_of(&item, Work::Delete).to_string(), "default/ReplicaSet/web-5d8f");
        for w in [Work::Delete, Work::Orphan, Work::Virtual] {
            assert_eq!(parse_key(&key_of(&item, w)), Some((item.clone(), w)));
        }
        let node = (Kind::Node, ObjKey::cluster("node-1"));
        assert_eq!(parse_key(&key_of(&node, Work::Delete)), Some((node, Work::Delete)));
        assert_eq!(parse_key(&ObjKey::new("", "nonsense")), None);
    }
}
