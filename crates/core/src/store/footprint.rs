//! The store taken apart, one structure at a time, for [`crate::footprint::Bytes`]: what each of its structures
//! holds, in bytes, is what dropping it frees.

use super::*;
use crate::api::{ObjectMeta, PodSpec, PodStatus};

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
            self.kinds[kind.index()].history = VecDeque::new();
            dropped(format!("watch cache history: {kind}"));
        }
        for ks in &mut self.kinds {
            ks.by_node = FxHashMap::default();
            ks.by_involved = FxHashMap::default();
        }
        self.event_expiry = VecDeque::new();
        dropped("field indexes, Event expirations".into());
        for kind in Kind::ALL {
            if kind == Kind::Pod {
                self.take_pods_apart(dropped);
            }
            self.kinds[kind.index()].objects = BTreeMap::new();
            dropped(format!("objects: {kind}"));
        }
    }

    /// A pod's status, spec and metadata, each dropped from every pod object the store alone holds (one held
    /// elsewhere too is left whole, and counts with its object).
    fn take_pods_apart(&mut self, dropped: &mut dyn FnMut(String)) {
        // Blanks to put in their place, cloned (an empty `Str` made afresh is an allocation).
        let status = PodStatus::default();
        let spec = Rc::new(PodSpec::default());
        let meta = ObjectMeta::default();
        let pods = &mut self.kinds[Kind::Pod.index()].objects;
        let mut each = |f: &mut dyn FnMut(&mut crate::api::Pod)| {
            for o in pods.values_mut() {
                if let Some(p) = Rc::get_mut(o).and_then(|o| o.as_pod_mut()) {
                    f(p);
                }
            }
        };
        each(&mut |p| p.status = status.clone());
        dropped("objects: Pod: status".into());
        each(&mut |p| p.spec = spec.clone());
        dropped("objects: Pod: spec".into());
        each(&mut |p| p.metadata = meta.clone());
        dropped("objects: Pod: metadata".into());
    }
}
