//! The event recorder (client-go tools/record): components report what they did as Kubernetes Event objects.
//! Repeats of the same (object, type, reason, message) from the same source are aggregated into one Event whose
//! `count` grows, found through an LRU cache of 4096 keys, as client-go's EventCorrelator does.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::api::{s, Event, EventBody, EventSource, ObjKey, Object, ObjectReference, Str, Time};
use crate::client::Api;
use crate::store::Subresource;

pub const LRU_SIZE: usize = 4096;

/// `Normal` or `Warning`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Normal,
    Warning,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Normal => "Normal",
            EventKind::Warning => "Warning",
        }
    }
}

type AggKey = (ObjectReference, &'static str, Str, Str);

/// One component's recorder.
pub struct Recorder {
    pub component: Str,
    pub host: Str,
    seen: FxHashMap<AggKey, ObjKey>,
    order: VecDeque<AggKey>,
}

/// An `involvedObject` reference to `obj`.
pub fn reference(obj: &Object) -> ObjectReference {
    let m = obj.meta();
    ObjectReference {
        kind: s(obj.kind().name()),
        namespace: m.namespace.clone(),
        name: m.name.clone(),
        uid: m.uid.clone(),
        api_version: s(obj.kind().api_version()),
    }
}

impl Recorder {
    pub fn new(component: &str, host: &str) -> Self {
        Recorder { component: s(component), host: s(host), seen: FxHashMap::default(), order: VecDeque::new() }
    }

    /// Records an event about `obj`. The write happens in the background (the caller does not wait), and failures
    /// are dropped, as the real recorder does after its retries.
    pub fn event(&mut self, api: &mut Api, obj: &Object, kind: EventKind, reason: &str, message: &str) {
        api.detached(|api| self.write(api, obj, kind, reason, message))
    }

    fn write(&mut self, api: &mut Api, obj: &Object, kind: EventKind, reason: &str, message: &str) {
        let involved = reference(obj);
        let agg: AggKey = (involved.clone(), kind.as_str(), s(reason), s(message));
        let now = api.now;
        if let Some(key) = self.seen.get(&agg).cloned() {
            let bumped = api.patch(crate::api::Kind::Event, &key, Subresource::Main, |o| {
                if let Object::Event(e) = o {
                    e.body.count += 1;
                    e.body.last_timestamp = Some(Time(now));
                }
            });
            if bumped.is_ok() {
                return;
            }
            self.seen.remove(&agg);
        }
        let ns = if involved.namespace.is_empty() { s("default") } else { involved.namespace.clone() };
        let mut ev = Event::default();
        // Upstream names events "<object>.<hex unix nanos>"; a seeded suffix keeps names unique and replayable.
        ev.metadata.name = s(&format!("{}.{:016x}", involved.name, api.rng.next_u64()));
        ev.metadata.namespace = ns;
        ev.body = EventBody {
            involved_object: involved,
            reason: s(reason),
            message: s(message),
            type_: s(kind.as_str()),
            count: 1,
            first_timestamp: Some(Time(now)),
            last_timestamp: Some(Time(now)),
            source: EventSource { component: self.component.clone(), host: self.host.clone() },
            reporting_component: self.component.clone(),
            reporting_instance: self.host.clone(),
        };
        if let Ok(created) = api.create(Object::Event(ev)) {
            if self.order.len() >= LRU_SIZE {
                if let Some(old) = self.order.pop_front() {
                    self.seen.remove(&old);
                }
            }
            self.order.push_back(agg.clone());
            self.seen.insert(agg, created.key());
        }
    }

    /// Entries of the aggregation cache (bounded by its LRU size).
    pub fn len(&self) -> usize {
        self.seen.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// Forgets what the aggregation cache holds about the object with this uid, once it is gone for good (a uid
    /// is never reused, so no later event can aggregate with them): the cache of a recorder that sees many
    /// short-lived objects (a kubelet's pods) then holds only the living ones, not its bound's worth of the dead.
    pub fn forget_involved(&mut self, uid: &str) {
        if uid.is_empty() {
            return;
        }
        let before = self.seen.len();
        self.seen.retain(|k, _| &*k.0.uid != uid);
        if self.seen.len() != before {
            self.order.retain(|k| &*k.0.uid != uid);
        }
    }

    /// Forgets the aggregation cache (the process restarted).
    pub fn reset(&mut self) {
        self.seen.clear();
        self.order.clear();
    }
}
