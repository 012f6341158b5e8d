//! The field indexes the API server keeps, one per kind that its registry row names ([`KindInfo::field_index`]):
//! a kind's hook, kept at every write of the kind, that answers the field selectors it indexes (the kubelet's
//! `spec.nodeName=`, `kubectl describe`'s `involvedObject.kind=,involvedObject.name=`) without reading every object
//! of the kind, as the upstream watch cache's indexers do. A new index is a variant here and a name in its kind's row.
//!
//! [`KindInfo::field_index`]: crate::api::KindInfo::field_index

use std::collections::BTreeSet;

use rustc_hash::FxHashMap;

use super::PodTally;
use crate::api::{FieldIndex, ObjKey, Object, Pod, Str};
use crate::watch::WatchFilter;

/// One kind's field index.
#[derive(Clone)]
pub(super) enum Index {
    /// Pods by `spec.nodeName` (unbound pods are not indexed), with each node's tally by phase, so that an observer
    /// reads a node's pods by phase without visiting them.
    PodNodeName(FxHashMap<Str, NodePods>),
    /// Events by their involved object's kind and name.
    EventInvolvedObject(FxHashMap<(Str, Str), BTreeSet<ObjKey>>),
}

/// The pods bound to one node: their keys and their tally by phase.
#[derive(Clone, Default)]
pub(super) struct NodePods {
    pub keys: BTreeSet<ObjKey>,
    pub tally: PodTally,
}

impl Index {
    /// An empty index of this field.
    pub fn new(field: FieldIndex) -> Index {
        match field {
            FieldIndex::PodNodeName => Index::PodNodeName(FxHashMap::default()),
            FieldIndex::EventInvolvedObject => Index::EventInvolvedObject(FxHashMap::default()),
        }
    }

    /// The field it indexes.
    pub fn field(&self) -> FieldIndex {
        match self {
            Index::PodNodeName(_) => FieldIndex::PodNodeName,
            Index::EventInvolvedObject(_) => FieldIndex::EventInvolvedObject,
        }
    }

    /// Whether it answers a watch or list with `filter`.
    pub fn answers(field: FieldIndex, filter: &WatchFilter) -> bool {
        matches!(
            (field, filter),
            (FieldIndex::PodNodeName, WatchFilter::NodeName(_))
                | (FieldIndex::EventInvolvedObject, WatchFilter::InvolvedObject(..))
        )
    }

    /// Puts `obj` (stored under `key`) in (`add`) or takes it out, dropping an entry left empty.
    pub fn update(&mut self, obj: &Object, key: &ObjKey, add: bool) {
        match self {
            Index::PodNodeName(map) => {
                if let Some(pod) = obj.as_pod() {
                    node_index(map, pod, key, add);
                }
            }
            Index::EventInvolvedObject(map) => {
                if let Some(e) = obj.as_event() {
                    let at = (e.body.involved_object.kind.clone(), e.body.involved_object.name.clone());
                    field_index(map, at, key, add);
                }
            }
        }
    }

    /// The keys `filter` selects, when this index answers it (`None`: it does not).
    pub fn keys<'a>(&'a self, filter: &WatchFilter) -> Option<Box<dyn Iterator<Item = &'a ObjKey> + 'a>> {
        match (self, filter) {
            (Index::PodNodeName(map), WatchFilter::NodeName(n)) => {
                Some(Box::new(map.get(n).into_iter().flat_map(|b| b.keys.iter())))
            }
            (Index::EventInvolvedObject(map), WatchFilter::InvolvedObject(k, n)) => {
                Some(Box::new(map.get(&(k.clone(), n.clone())).into_iter().flat_map(|b| b.iter())))
            }
            _ => None,
        }
    }

    /// Each node's pods (the pod index's entries).
    pub fn nodes(&self) -> Option<&FxHashMap<Str, NodePods>> {
        match self {
            Index::PodNodeName(map) => Some(map),
            Index::EventInvolvedObject(_) => None,
        }
    }
}

/// Adds or removes `key` under `at`, dropping an entry left empty.
fn field_index<K: std::hash::Hash + Eq>(map: &mut FxHashMap<K, BTreeSet<ObjKey>>, at: K, key: &ObjKey, add: bool) {
    if add {
        map.entry(at).or_default().insert(key.clone());
    } else if let Some(b) = map.get_mut(&at) {
        b.remove(key);
        if b.is_empty() {
            map.remove(&at);
        }
    }
}

/// Moves `pod` into (`add`) or out of the entry of its `spec.nodeName`, dropping an entry left empty.
fn node_index(map: &mut FxHashMap<Str, NodePods>, pod: &Pod, key: &ObjKey, add: bool) {
    let node = &pod.spec.node_name;
    if node.is_empty() {
        return;
    }
    if add {
        let e = map.entry(node.clone()).or_default();
        e.keys.insert(key.clone());
        e.tally.count(pod, true);
    } else if let Some(e) = map.get_mut(&**node) {
        e.keys.remove(key);
        e.tally.count(pod, false);
        if e.keys.is_empty() {
            map.remove(&**node);
        }
    }
}
