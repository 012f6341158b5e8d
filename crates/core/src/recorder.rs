//! The event recorder (client-go tools/record): components report what they did as Kubernetes Event objects,
//! through client-go's `EventCorrelator` (tools/record/events_cache.go) in full:
//!
//! - the **EventAggregator**: events that differ only by message (same source, involved object, type and
//!   reason) are counted by distinct message within 10 minutes of the previous one; from the 10th distinct
//!   message on, they are recorded as one aggregate Event whose message is
//!   `(combined from similar events): <latest message>`;
//! - the **eventLogger**: a repeat of the same event (or of the same aggregate) patches the Event it recorded
//!   before (`count` from the logger's own count + 1, `lastTimestamp` now, the message) instead of creating one;
//! - the **EventSourceObjectSpamFilter**: a token bucket per source + involved object (burst 25, refilled one
//!   token per 5 minutes); an event over it is dropped (after the logger counted it, as upstream's order is).
//!
//! Each of the three caches is an LRU of 4096 entries (`maxLruCacheEntries`), as client-go's are. Event names
//! are upstream's `<object name>.<hex UnixNano>` (tools/record/event.go `makeEvent`), read from
//! [`crate::store::Store::wall_nanos`], so `kubectl get events` lists an object's events in time order.

use std::cell::Cell;
use std::collections::VecDeque;
use std::hash::Hash;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::api::{s, Event, EventBody, EventSource, Kind, ObjKey, Object, ObjectReference, Str, Time};
use crate::client::Api;
use crate::store::Subresource;
use crate::time::{Millis, SECOND};

/// Entries of each correlator cache (client-go's `maxLruCacheEntries`).
pub const LRU_SIZE: usize = 4096;
/// The correlator's caches: the aggregator's, the logger's and the spam filter's.
pub const CACHES: usize = 3;
/// Distinct messages of similar events before they are aggregated (`defaultAggregateMaxEvents`).
pub const AGGREGATE_MAX_EVENTS: usize = 10;
/// A similar event older than this starts a fresh aggregation record (`defaultAggregateIntervalInSeconds`).
pub const AGGREGATE_INTERVAL: Millis = 600 * SECOND;
/// Events a source may burst about one object (`defaultSpamBurst`).
pub const SPAM_BURST: u64 = 25;
/// The spam filter's refill: one token every 5 minutes (`defaultSpamQPS` = 1/300).
pub const SPAM_REFILL: Millis = 300 * SECOND;
/// Prefix of an aggregate event's message (`EventAggregatorByReasonMessageFunc`).
pub const COMBINED_PREFIX: &str = "(combined from similar events): ";

/// `Normal` or `Warning`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    Normal,
    Warning,
}

impl EventKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            EventKind::Normal => "Normal",
            EventKind::Warning => "Warning",
        }
    }
}

/// The fewest entries an LRU's queue of uses is compacted at.
const LRU_COMPACT_AT: usize = 16;

/// A bounded least-recently-used map (groupcache's `lru.Cache`, as client-go uses it): `get` and `add` make an
/// entry the most recent; adding past the capacity evicts the least recent.
///
/// The order of use is a queue of (stamp, key), oldest first: a use pushes the key with a new stamp, and the entry
/// it had stays behind, stale (its stamp is no longer the key's in `map`), to be skipped when it comes to the
/// front. The queue is compacted to its live entries when it holds twice as many as the map (and at least
/// [`LRU_COMPACT_AT`]), so a cache of a few keys used often stays small. (A `BTreeMap` from stamp
/// to key does the same, with its code compiled once more for each of the three key types: docs/size.md.) A key is
/// stored once, shared by the map and its uses in the queue.
#[derive(Clone)]
struct Lru<K, V> {
    map: FxHashMap<Rc<K>, (V, Cell<u64>)>,
    order: VecDeque<(u64, Rc<K>)>,
    tick: u64,
    cap: usize,
}

impl<K: Eq + Hash, V> Lru<K, V> {
    fn new(cap: usize) -> Self {
        Lru { map: FxHashMap::default(), order: VecDeque::new(), tick: 0, cap }
    }

    /// Whether the queue's entry (`stamp`, `k`) is the key's latest use.
    fn live(map: &FxHashMap<Rc<K>, (V, Cell<u64>)>, stamp: u64, k: &K) -> bool {
        map.get(k).is_some_and(|(_, s)| s.get() == stamp)
    }

    fn touch(&mut self, k: &K) {
        if let Some((key, (_, stamp))) = self.map.get_key_value(k) {
            self.tick += 1;
            stamp.set(self.tick);
            self.order.push_back((self.tick, key.clone()));
            self.compact_if_stale();
        }
    }

    fn get(&mut self, k: &K) -> Option<&V> {
        self.touch(k);
        self.map.get(k).map(|(v, _)| v)
    }

    fn add(&mut self, k: impl Into<Rc<K>>, v: V) {
        let k = k.into();
        if let Some(entry) = self.map.get_mut(&*k) {
            entry.0 = v;
            self.touch(&k);
            return;
        }
        self.tick += 1;
        self.order.push_back((self.tick, k.clone()));
        self.map.insert(k, (v, Cell::new(self.tick)));
        while self.map.len() > self.cap {
            let Some((stamp, oldest)) = self.order.pop_front() else { break };
            if Self::live(&self.map, stamp, &oldest) {
                self.map.remove(&*oldest);
            }
        }
        self.compact_if_stale();
    }

    fn remove(&mut self, k: &K) -> Option<V> {
        self.map.remove(k).map(|(v, _)| v)
    }

    fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) {
        self.map.retain(|k, _| keep(k));
        self.compact();
    }

    /// Compacts the queue once it holds twice the map's entries (each use pushes one entry, so the work is a
    /// constant per use, amortized).
    fn compact_if_stale(&mut self) {
        if self.order.len() >= LRU_COMPACT_AT.max(2 * self.map.len()) {
            self.compact();
        }
    }

    /// Drops the queue's stale entries.
    fn compact(&mut self) {
        let map = &self.map;
        self.order.retain(|(stamp, k)| Self::live(map, *stamp, k));
    }

    fn len(&self) -> usize {
        self.map.len()
    }

    fn clear(&mut self) {
        self.map.clear();
        self.order.clear();
    }
}

/// The involved object of the keys of a recorder's caches: one copy per object, shared by every key about it (each
/// event's own copy is swapped for the one the spam filter holds, [`Recorder::shared`]).
type Involved = Rc<ObjectReference>;

/// `EventAggregatorByReasonFunc`'s aggregate key: the involved object, type and reason (the source and the
/// reporting controller are the recorder's own, the same for all its events).
type AggregateKey = (Involved, &'static str, Str);

/// The eventLogger's key: `getEventKey` (the aggregate key plus the message) for a plain event, the aggregate
/// key (`message` None) for an aggregate one, as `EventAggregate` returns them.
type LogKey = (Involved, &'static str, Str, Option<Str>);

/// `aggregateRecord`: the distinct messages seen (sorted: fewer than [`AGGREGATE_MAX_EVENTS`], so a short vector
/// holds them in a few bytes, where a set's first node would take hundreds), and when the last similar event was.
#[derive(Clone)]
struct AggregateRecord {
    local_keys: Vec<Str>,
    last: Millis,
}

impl AggregateRecord {
    fn new(last: Millis) -> Self {
        AggregateRecord { local_keys: Vec::new(), last }
    }

    /// Adds a message (once), growing the vector by one at a time (it stays short).
    fn insert(&mut self, message: Str) {
        if let Err(i) = self.local_keys.binary_search(&message) {
            self.local_keys.reserve_exact(1);
            self.local_keys.insert(i, message);
        }
    }
}

/// `eventLog`: how often the event was seen, when first, and the name of the Event recording it.
#[derive(Clone)]
struct EventLog {
    count: i32,
    first: Millis,
    name: Str,
}

/// `spamRecord`: a token bucket, in milliseconds of refill (one token is [`SPAM_REFILL`]), exact integers.
#[derive(Clone)]
struct Bucket {
    credit: Millis,
    at: Millis,
}

impl Bucket {
    fn full(now: Millis) -> Self {
        Bucket { credit: SPAM_BURST * SPAM_REFILL, at: now }
    }

    /// `TryAccept`: refill for the time passed, then take a token if there is one.
    fn try_accept(&mut self, now: Millis) -> bool {
        let elapsed = now.saturating_sub(self.at);
        self.credit = self.credit.saturating_add(elapsed).min(SPAM_BURST * SPAM_REFILL);
        self.at = self.at.max(now);
        if self.credit >= SPAM_REFILL {
            self.credit -= SPAM_REFILL;
            true
        } else {
            false
        }
    }
}

/// One component's recorder and its EventCorrelator.
#[derive(Clone)]
pub struct Recorder {
    pub(crate) component: Str,
    pub(crate) host: Str,
    aggregator: Lru<AggregateKey, AggregateRecord>,
    logger: Lru<LogKey, EventLog>,
    spam: Lru<ObjectReference, Bucket>,
    /// Events the spam filter dropped (an observation: upstream only logs them).
    pub(crate) dropped: u64,
}

/// An `involvedObject` reference to `obj`.
pub(crate) fn reference(obj: &Object) -> ObjectReference {
    let m = obj.meta();
    ObjectReference {
        kind: s(obj.kind().name()),
        namespace: m.namespace.clone(),
        name: m.name.clone(),
        uid: m.uid.clone(),
        api_version: s(obj.kind().api_version()),
    }
}

/// What the correlator decided: the event to write, the logger key it is counted under, and whether it
/// updates an Event recorded before (`count > 1`).
struct Correlated {
    event: Event,
    key: LogKey,
}

impl Recorder {
    pub(crate) fn new(component: &str, host: &str) -> Self {
        Recorder {
            component: s(component),
            host: s(host),
            aggregator: Lru::new(LRU_SIZE),
            logger: Lru::new(LRU_SIZE),
            spam: Lru::new(LRU_SIZE),
            dropped: 0,
        }
    }

    /// Records an event about `obj`. The write happens in the background (the caller does not wait), and failures
    /// are dropped, as the real recorder does after its retries.
    pub(crate) fn event(&mut self, api: &mut Api, obj: &Object, kind: EventKind, reason: &str, message: &str) {
        self.event_about(api, reference(obj), kind, reason, message)
    }

    /// Records an event about the object `involved` refers to, as given (some of upstream's components build the
    /// reference themselves, without a uid).
    pub(crate) fn event_about(
        &mut self,
        api: &mut Api,
        involved: ObjectReference,
        kind: EventKind,
        reason: &str,
        message: &str,
    ) {
        api.detached(|api| self.write(api, involved, kind, reason, message))
    }

    /// `makeEvent`: a new Event named `<object>.<hex UnixNano>`, in the object's namespace (or `default`).
    fn make_event(
        &self,
        api: &mut Api,
        involved: &ObjectReference,
        kind: EventKind,
        reason: &str,
        message: &str,
    ) -> Event {
        let now = api.now;
        let nanos = api.wall_nanos(now);
        let mut ev = Event::default();
        ev.metadata.name = s(&format!("{}.{nanos:x}", involved.name));
        ev.metadata.namespace = if involved.namespace.is_empty() { s("default") } else { involved.namespace.clone() };
        ev.body = EventBody {
            involved_object: involved.clone(),
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
        ev
    }

    /// The copy of `involved` the caches share: the spam filter's (every event goes through it), or a new one.
    fn shared(&self, involved: &ObjectReference) -> Involved {
        match self.spam.map.get_key_value(involved) {
            Some((k, _)) => k.clone(),
            None => Rc::new(involved.clone()),
        }
    }

    /// `EventCorrelate`: aggregate, then observe (dedup), then filter spam. `None`: the event is dropped.
    fn correlate(&mut self, api: &mut Api, new: Event, kind: EventKind) -> Option<Correlated> {
        let now = api.now;
        let involved = self.shared(&new.body.involved_object);
        // EventAggregate.
        let agg_key: AggregateKey = (involved.clone(), kind.as_str(), new.body.reason.clone());
        let mut record = self.aggregator.remove(&agg_key).unwrap_or_else(|| AggregateRecord::new(0));
        if record.local_keys.is_empty() || now.saturating_sub(record.last) > AGGREGATE_INTERVAL {
            record = AggregateRecord::new(now);
        }
        record.insert(new.body.message.clone());
        record.last = now;
        let aggregate = record.local_keys.len() >= AGGREGATE_MAX_EVENTS;
        if aggregate {
            // Upstream pops an arbitrary key (a Go map's order); kubeloop pops the smallest, deterministically.
            record.local_keys.remove(0);
        }
        self.aggregator.add(agg_key, record);
        let (mut event, key) = if aggregate {
            let message = format!("{COMBINED_PREFIX}{}", new.body.message);
            let mut ev = self.make_event(api, &involved, kind, &new.body.reason, &message);
            ev.metadata.namespace = new.metadata.namespace.clone();
            (ev, (involved.clone(), kind.as_str(), new.body.reason.clone(), None))
        } else {
            let key = (involved.clone(), kind.as_str(), new.body.reason.clone(), Some(new.body.message.clone()));
            (new, key)
        };
        // eventObserve.
        if let Some(last) = self.logger.get(&key).filter(|l| l.count > 0).cloned() {
            event.metadata.name = last.name;
            event.body.first_timestamp = Some(Time(last.first));
            event.body.count = last.count.saturating_add(1);
        }
        let log = EventLog {
            count: event.body.count,
            first: event.body.first_timestamp.map_or(now, |t| t.0),
            name: event.metadata.name.clone(),
        };
        self.logger.add(key.clone(), log);
        // The spam filter (getSpamKey: source + involved object).
        let accepted = match self.spam.map.get_mut(&involved) {
            Some((bucket, _)) => bucket.try_accept(now),
            None => {
                let mut bucket = Bucket::full(now);
                let ok = bucket.try_accept(now);
                self.spam.add(involved.clone(), bucket);
                ok
            }
        };
        self.spam.touch(&involved);
        if !accepted {
            self.dropped += 1;
            return None;
        }
        Some(Correlated { event, key })
    }

    fn write(&mut self, api: &mut Api, involved: ObjectReference, kind: EventKind, reason: &str, message: &str) {
        let new = self.make_event(api, &involved, kind, reason, message);
        let Some(Correlated { event, key }) = self.correlate(api, new, kind) else { return };
        let now = api.now;
        // recordEvent: patch the Event recorded before (count > 1); create it when there is none (first time, or
        // the Event expired or was deleted meanwhile: it is created again under its name, with its count).
        let written = if event.body.count > 1 {
            let ev_key = ObjKey::new(&event.metadata.namespace, &event.metadata.name);
            let (count, msg) = (event.body.count, event.body.message.clone());
            match api.patch(Kind::Event, &ev_key, Subresource::Main, |o| {
                if let Object::Event(e) = o {
                    e.body.count = count;
                    e.body.last_timestamp = Some(Time(now));
                    e.body.message = msg;
                }
            }) {
                Err(e) if e.is_not_found() => api.create(Object::Event(event)),
                r => r,
            }
        } else {
            api.create(Object::Event(event))
        };
        // UpdateState: the logger learns the server's state, under the written Event's own full key.
        if let Ok(w) = written {
            if let Some(e) = w.as_event() {
                let full = (key.0, key.1, key.2, Some(e.body.message.clone()));
                let log = EventLog {
                    count: e.body.count,
                    first: e.body.first_timestamp.map_or(now, |t| t.0),
                    name: e.metadata.name.clone(),
                };
                self.logger.add(full, log);
            }
        }
    }

    /// Empties the correlator's caches and gives their memory back (the measure of what the engine holds takes a
    /// simulation apart: [`crate::footprint`]).
    pub(crate) fn release(&mut self) {
        self.aggregator = Lru::new(LRU_SIZE);
        self.logger = Lru::new(LRU_SIZE);
        self.spam = Lru::new(LRU_SIZE);
    }

    /// Entries of the correlator's caches (each bounded by its LRU size: at most [`CACHES`] x [`LRU_SIZE`]).
    pub(crate) fn len(&self) -> usize {
        self.aggregator.len() + self.logger.len() + self.spam.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets what the correlator's caches hold about the object with this uid, once it is gone for good (a uid
    /// is never reused, so no later event can correlate with them): the caches of a recorder that sees many
    /// short-lived objects (a kubelet's pods) then hold only the living ones, not their bound's worth of the dead.
    pub(crate) fn forget_involved(&mut self, uid: &str) {
        if uid.is_empty() {
            return;
        }
        self.aggregator.retain(|k| &*k.0.uid != uid);
        self.logger.retain(|k| &*k.0.uid != uid);
        self.spam.retain(|k| &*k.uid != uid);
    }

    /// Forgets the correlator's caches (the process restarted).
    pub(crate) fn reset(&mut self) {
        self.aggregator.clear();
        self.logger.clear();
        self.spam.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Pod;
    use crate::rng::Rng;
    use crate::store::{ClientId, Store, StoreConfig};

    struct World {
        store: Store,
        rng: Rng,
        client: ClientId,
        rec: Recorder,
        pod: Object,
    }

    fn world() -> World {
        let mut store = Store::new(StoreConfig::default(), 1);
        let client = store.register_client("kubelet");
        let mut pod = Pod::default();
        pod.metadata.name = s("web-1");
        pod.metadata.namespace = s("default");
        pod.metadata.uid = s("uid-1");
        World { store, rng: Rng::new(2), client, rec: Recorder::new("kubelet", "node-1"), pod: Object::Pod(pod) }
    }

    impl World {
        fn record(&mut self, now: Millis, reason: &str, message: &str) {
            let mut api = Api::new(&mut self.store, self.client, now, &mut self.rng);
            self.rec.event(&mut api, &self.pod, EventKind::Normal, reason, message);
        }

        fn events(&self) -> Vec<Event> {
            self.store.objects(Kind::Event).filter_map(|o| o.as_event().cloned()).collect()
        }
    }

    #[test]
    fn event_names_are_the_object_and_hex_unix_nanos_in_time_order() {
        // client-go tools/record/event.go makeEvent: fmt.Sprintf("%v.%x", ref.Name, t.UnixNano()).
        let mut w = world();
        w.record(1500, "Pulling", "a");
        w.record(1500, "Pulled", "b");
        w.record(2000, "Started", "c");
        let names: Vec<String> = w.events().iter().map(|e| e.metadata.name.to_string()).collect();
        let base = (crate::time::EPOCH_UNIX_SECONDS as u64 * 1000 + 1500) * 1_000_000;
        assert_eq!(names[0], format!("web-1.{base:x}"));
        assert_eq!(names[1], format!("web-1.{:x}", base + 1), "a second reading in the same millisecond");
        assert_eq!(names[2], format!("web-1.{:x}", base + 500 * 1_000_000));
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, names, "names sort as the events happened");
    }

    #[test]
    fn a_repeat_patches_count_and_last_timestamp() {
        // client-go events_cache.go eventLogger.eventObserve.
        let mut w = world();
        w.record(1000, "BackOff", "Back-off restarting failed container");
        w.record(5000, "BackOff", "Back-off restarting failed container");
        let evs = w.events();
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].body.count, 2);
        assert_eq!(evs[0].body.first_timestamp, Some(Time(1000)));
        assert_eq!(evs[0].body.last_timestamp, Some(Time(5000)));
    }

    #[test]
    fn ten_similar_events_within_ten_minutes_are_combined() {
        // client-go events_cache.go EventAggregator: defaultAggregateMaxEvents = 10 distinct messages within
        // defaultAggregateIntervalInSeconds = 600; EventAggregatorByReasonMessageFunc's prefix.
        let mut w = world();
        for i in 0..12 {
            w.record(1000 + i * SECOND, "Created", &format!("Created pod: p{i}"));
        }
        let evs = w.events();
        let plain = evs.iter().filter(|e| !e.body.message.starts_with(COMBINED_PREFIX)).count();
        assert_eq!(plain, 9, "the first nine messages are events of their own");
        let combined: Vec<&Event> = evs.iter().filter(|e| e.body.message.starts_with(COMBINED_PREFIX)).collect();
        assert_eq!(combined.len(), 1, "{evs:#?}");
        assert_eq!(&*combined[0].body.message, "(combined from similar events): Created pod: p11");
        assert_eq!(combined[0].body.count, 3, "the 10th, 11th and 12th");
        // Ten minutes later similar events start a fresh record.
        w.record(1000 + 11 * SECOND + AGGREGATE_INTERVAL + 1, "Created", "Created pod: late");
        assert!(w.events().iter().any(|e| &*e.body.message == "Created pod: late"));
    }

    #[test]
    fn the_spam_filter_drops_events_past_a_burst_of_25_per_object() {
        // client-go events_cache.go EventSourceObjectSpamFilter: defaultSpamBurst = 25, defaultSpamQPS = 1/300,
        // keyed by source and involved object, applied to every event (repeats too).
        let mut w = world();
        for i in 0..30 {
            w.record(1000 + i, "Killing", "Stopping container nginx");
        }
        let evs = w.events();
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].body.count, 25, "the 26th to 30th were dropped");
        assert_eq!(w.rec.dropped, 5);
        // One token back after five minutes: the next repeat is written, with the logger's own count.
        w.record(1000 + SPAM_REFILL, "Killing", "Stopping container nginx");
        assert_eq!(w.events()[0].body.count, 31);
        w.record(1001 + SPAM_REFILL, "Killing", "Stopping container nginx");
        assert_eq!(w.events()[0].body.count, 31, "dropped again");
    }

    #[test]
    fn an_expired_event_is_created_again_under_its_name_with_its_count() {
        // client-go tools/record/event.go recordEvent: a patch answered NotFound is a create.
        let mut w = world();
        w.record(1000, "BackOff", "m");
        w.record(2000, "BackOff", "m");
        let name = w.events()[0].metadata.name.clone();
        let key = ObjKey::new("default", &name);
        w.store.delete(w.client, Kind::Event, &key, &Default::default(), 3000).expect("delete");
        w.record(4000, "BackOff", "m");
        let evs = w.events();
        assert_eq!(evs.len(), 1);
        assert_eq!((evs[0].metadata.name.clone(), evs[0].body.count), (name, 3));
    }

    #[test]
    fn caches_stay_within_their_lru_bounds() {
        let mut w = world();
        for i in 0..(LRU_SIZE as u64 + 50) {
            let mut pod = Pod::default();
            pod.metadata.name = s(&format!("p{i}"));
            pod.metadata.namespace = s("default");
            pod.metadata.uid = s(&format!("u{i}"));
            let obj = Object::Pod(pod);
            let mut api = Api::new(&mut w.store, w.client, i, &mut w.rng);
            w.rec.event(&mut api, &obj, EventKind::Normal, "Scheduled", "m");
        }
        assert!(w.rec.len() <= CACHES * LRU_SIZE, "{}", w.rec.len());
        w.rec.forget_involved("u4100");
        w.rec.reset();
        assert!(w.rec.is_empty());
    }

    #[test]
    fn lru_evicts_the_least_recently_used() {
        let mut l: Lru<u32, u32> = Lru::new(2);
        l.add(1, 10);
        l.add(2, 20);
        assert_eq!(l.get(&1), Some(&10));
        l.add(3, 30);
        assert_eq!(l.len(), 2);
        assert!(l.get(&2).is_none(), "2 was the least recently used");
        assert!(l.get(&1).is_some() && l.get(&3).is_some());
        l.retain(|k| *k != 1);
        assert_eq!(l.len(), 1);
        assert_eq!(l.order.len(), 1);
    }

    #[test]
    fn lru_order_stays_small_for_a_few_keys_used_often() {
        let mut l: Lru<u32, u32> = Lru::new(4);
        for k in 0..3 {
            l.add(k, k);
        }
        for i in 0..10_000 {
            assert!(l.get(&(i % 3)).is_some());
            assert!(l.order.len() < LRU_COMPACT_AT, "{}", l.order.len());
        }
    }

    proptest::proptest! {
        /// The LRU keeps and evicts exactly what a list in order of use does.
        #[test]
        fn lru_is_a_list_in_order_of_use(ops in proptest::collection::vec((0u8..4, 0u32..6), 0..200)) {
            let mut l: Lru<u32, u32> = Lru::new(3);
            let mut model: Vec<(u32, u32)> = Vec::new(); // least recently used first
            for (i, (op, k)) in ops.into_iter().enumerate() {
                let v = i as u32;
                match op {
                    0 => {
                        l.add(k, v);
                        model.retain(|(x, _)| *x != k);
                        model.push((k, v));
                        if model.len() > 3 {
                            model.remove(0);
                        }
                    }
                    1 => {
                        let got = l.get(&k).copied();
                        let at = model.iter().position(|(x, _)| *x == k);
                        proptest::prop_assert_eq!(got, at.map(|p| model[p].1));
                        if let Some(p) = at {
                            let e = model.remove(p);
                            model.push(e);
                        }
                    }
                    2 => {
                        let got = l.remove(&k);
                        let at = model.iter().position(|(x, _)| *x == k);
                        proptest::prop_assert_eq!(got, at.map(|p| model.remove(p).1));
                    }
                    _ => {
                        l.retain(|x| *x != k);
                        model.retain(|(x, _)| *x != k);
                    }
                }
                proptest::prop_assert_eq!(l.len(), model.len());
                proptest::prop_assert!(l.order.len() < LRU_COMPACT_AT.max(2 * l.len()));
            }
        }
    }

    #[test]
    fn spam_bucket_bursts_25_then_refills_one_per_five_minutes() {
        // client-go events_cache.go: defaultSpamBurst = 25, defaultSpamQPS = 1/300.
        let mut b = Bucket::full(0);
        assert_eq!((0..30).filter(|_| b.try_accept(0)).count(), 25);
        assert!(!b.try_accept(299 * SECOND));
        assert!(b.try_accept(300 * SECOND));
        assert!(!b.try_accept(300 * SECOND));
    }
}
