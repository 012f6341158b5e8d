//! The store taken apart, one structure at a time, for [`crate::footprint::Bytes`]: what each of its structures
//! holds, in bytes, is what dropping it frees.

use super::*;
use crate::api::{ObjectMeta, Pod, PodSpec, PodStatus};

impl Store {
    /// Drops the store's structures in turn (open watches and their buffers, the Event log kept for observers,
    /// the watch cache's history, the field indexes and Event expirations, then each kind's objects, a pod's
    /// status, spec and metadata before its object), calling `dropped` with the name of each right after it is
    /// gone. The store is left empty of objects.
    pub(crate) fn take_apart(&mut self, dropped: &mut dyn FnMut(String)) {
        self.watchers = FxHashMap::default();
        for ks in &mut self.kinds {
            ks.watchers = Vec::new();
            ks.node_watchers = FxHashMap::default();
        }
        dropped("watches (open, their undelivered events)".into());
        self.event_log = VecDeque::new();
        dropped("Event log (kept for observers)".into());
        for kind in Kind::ALL {
            let history = &mut self.kinds[kind.index()].history;
            if kind == Kind::Pod {
                // Each entry keeps the version before it, mostly the previous entry's own.
                for h in history.iter_mut() {
                    h.old = None;
                }
                dropped("watch cache history: Pod: previous versions".into());
                let mut each =
                    |f: &mut dyn FnMut(&mut Pod)| history.iter_mut().for_each(|h| pod_alone(&mut h.ev.object, f));
                take_pods_apart(&mut each, &mut |part| dropped(format!("watch cache history: Pod: {part}")));
            }
            *history = VecDeque::new();
            dropped(format!("watch cache history: {kind}"));
        }
        for ks in &mut self.kinds {
            ks.index = ks.index.as_ref().map(|ix| super::Index::new(ix.field()));
        }
        self.event_expiry = VecDeque::new();
        dropped("field indexes, Event expirations".into());
        for kind in Kind::ALL {
            let objects = &mut self.kinds[kind.index()].objects;
            if kind == Kind::Pod {
                let mut each = |f: &mut dyn FnMut(&mut Pod)| objects.values_mut().for_each(|o| pod_alone(o, f));
                take_pods_apart(&mut each, &mut |part| dropped(format!("objects: Pod: {part}")));
            }
            *objects = BTreeMap::new();
            dropped(format!("objects: {kind}"));
        }
    }
}

/// Visits pods: calls the function given with each.
type EachPod<'a> = dyn FnMut(&mut dyn FnMut(&mut Pod)) + 'a;

/// Calls `f` with the pod of `o` if `o` is held there alone.
fn pod_alone(o: &mut Rc<Object>, f: &mut dyn FnMut(&mut Pod)) {
    if let Some(p) = Rc::get_mut(o).and_then(|o| o.as_pod_mut()) {
        f(p);
    }
}

/// Drops a pod's status, spec and metadata, each from every pod `each` visits (the versions held in one place
/// alone), calling `dropped` with the part's name after each.
fn take_pods_apart(each: &mut EachPod, dropped: &mut dyn FnMut(&str)) {
    // Blanks to put in their place, cloned (an empty `Str` made afresh is an allocation).
    let status = PodStatus::default();
    let spec = Rc::new(PodSpec::default());
    let meta = ObjectMeta::default();
    each(&mut |p| p.status = status.clone());
    dropped("status");
    each(&mut |p| p.spec = spec.clone());
    dropped("spec");
    each(&mut |p| p.metadata = meta.clone());
    dropped("metadata");
}
