//! Watch: the stream of changes the API server sends a client. Each watcher has its own buffer (events in
//! resourceVersion order) and a delivery latency; the simulation drains it at `commit time + latency`, so a
//! watcher's events always arrive in order, late, and in batches.

use std::collections::VecDeque;
use std::rc::Rc;

use crate::api::{Kind, Object, Str};
use crate::time::Millis;

pub type WatcherId = usize;

/// The watch event types of the API (`watch.EventType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
    Bookmark,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
            EventType::Bookmark => "BOOKMARK",
        }
    }
}

/// One change, as the store committed it.
#[derive(Clone, Debug)]
pub struct WatchEvent {
    pub type_: EventType,
    /// The object after the change (for `Deleted`, its last state with the deletion's resourceVersion).
    pub object: Rc<Object>,
    pub(crate) rv: u64,
    /// Simulated time of the commit.
    pub(crate) at: Millis,
}

/// Which objects of a kind a watch receives: all, or (pods only) those bound to one node, like the kubelet's
/// `fieldSelector=spec.nodeName=NODE`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WatchFilter {
    All,
    NodeName(Str),
    /// Events about one object (`fieldSelector=involvedObject.kind=K,involvedObject.name=N`, in the list's
    /// namespace), as `kubectl describe` asks for them: `(kind, name)`.
    InvolvedObject(Str, Str),
}

impl WatchFilter {
    pub(crate) fn matches(&self, obj: &Object) -> bool {
        match self {
            WatchFilter::All => true,
            WatchFilter::NodeName(n) => obj.as_pod().is_some_and(|p| &p.spec.node_name == n),
            WatchFilter::InvolvedObject(kind, name) => obj
                .as_event()
                .is_some_and(|e| &e.body.involved_object.kind == kind && &e.body.involved_object.name == name),
        }
    }

    /// The event a filtered watch sees for a change from `old` to the event's object: an object that starts
    /// matching arrives as `Added`, one that stops matching as `Deleted` (apiserver cacher semantics).
    pub(crate) fn translate(&self, ev: &WatchEvent, old: Option<&Object>) -> Option<WatchEvent> {
        if matches!(self, WatchFilter::All) {
            return Some(ev.clone());
        }
        let was = old.is_some_and(|o| self.matches(o));
        let is = self.matches(&ev.object);
        let type_ = match (ev.type_, was, is) {
            (EventType::Deleted, true, _) => EventType::Deleted,
            (EventType::Deleted, false, _) => return None,
            (t, true, true) => t,
            (_, false, true) => EventType::Added,
            (_, true, false) => EventType::Deleted,
            (_, false, false) => return None,
        };
        Some(WatchEvent { type_, ..ev.clone() })
    }
}

/// An open watch.
#[derive(Clone, Debug)]
pub struct Watcher {
    pub(crate) kind: Kind,
    pub(crate) filter: WatchFilter,
    pub(crate) client: usize,
    pub(crate) latency: Millis,
    /// Who the simulation wakes when events become due (an informer); `None`: the reader polls (a person's
    /// `kubectl get -w`).
    pub(crate) notify: Option<usize>,
    /// Events committed but not yet delivered.
    pub buffer: VecDeque<WatchEvent>,
}

impl Watcher {
    /// Takes the events due at `now` (committed at least `latency` ago).
    pub(crate) fn take_due(&mut self, now: Millis) -> Vec<WatchEvent> {
        let n = self.buffer.iter().take_while(|e| e.at + self.latency <= now).count();
        self.buffer.drain(..n).collect()
    }

    /// When the next buffered event becomes due.
    pub(crate) fn next_due(&self) -> Option<Millis> {
        self.buffer.front().map(|e| e.at + self.latency)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{s, Pod};

    fn pod_on(node: &str) -> Rc<Object> {
        let mut p = Pod::default();
        p.metadata.name = s("p");
        Rc::make_mut(&mut p.spec).node_name = s(node);
        Rc::new(Object::Pod(p))
    }

    #[test]
    fn node_filter_turns_binding_into_added_and_unbinding_into_deleted() {
        let f = WatchFilter::NodeName(s("n1"));
        let ev = |t, o: Rc<Object>| WatchEvent { type_: t, object: o, rv: 1, at: 0 };
        let bound = f.translate(&ev(EventType::Modified, pod_on("n1")), Some(&pod_on(""))).map(|e| e.type_);
        assert_eq!(bound, Some(EventType::Added));
        let other = f.translate(&ev(EventType::Modified, pod_on("n2")), Some(&pod_on("")));
        assert!(other.is_none());
        let del = f.translate(&ev(EventType::Deleted, pod_on("n1")), Some(&pod_on("n1"))).map(|e| e.type_);
        assert_eq!(del, Some(EventType::Deleted));
        let all = WatchFilter::All.translate(&ev(EventType::Modified, pod_on("n2")), None).map(|e| e.type_);
        assert_eq!(all, Some(EventType::Modified));
    }

    #[test]
    fn watcher_delivers_only_due_events_in_order() {
        let mut w = Watcher {
            kind: Kind::Pod,
            filter: WatchFilter::All,
            client: 0,
            latency: 5,
            notify: None,
            buffer: VecDeque::new(),
        };
        for (rv, at) in [(1, 0), (2, 3), (3, 10)] {
            w.buffer.push_back(WatchEvent { type_: EventType::Added, object: pod_on(""), rv, at });
        }
        assert_eq!(w.next_due(), Some(5));
        let got: Vec<u64> = w.take_due(8).iter().map(|e| e.rv).collect();
        assert_eq!(got, vec![1, 2]);
        assert_eq!(w.next_due(), Some(15));
    }
}
