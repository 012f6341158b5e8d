//! Informer = reflector + cache + handlers (client-go tools/cache). The reflector LISTs once, then WATCHes from
//! the list's resourceVersion, applying each event to a local cache with indexes; handlers turn the changes into
//! queue keys. Resync re-delivers the cache to handlers (it never talks to the API server); a relist (after
//! 410 Gone, or a disconnect that cannot resume) replaces the cache and delivers deletes for vanished keys.

use std::cell::Cell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::api::{controller_of, Kind, LabelSelector, Labels, ObjKey, Object, Pod, Str};
use crate::backoff::Backoff;
use crate::rng::Rng;
use crate::store::{ApiError, ClientId, Store};
use crate::time::{Millis, SECOND};
use crate::watch::{EventType, WatchEvent, WatchFilter, WatcherId};

mod cache;
mod reflector;
pub use cache::{Cache, PodGroup};
pub use reflector::{Effect, Env, Input, Origin, Timer, BOOKMARK_FREQUENCY, MIN_WATCH_TIMEOUT};

pub type InformerId = usize;

/// What handlers receive (`ResourceEventHandler`: OnAdd / OnUpdate / OnDelete).
#[derive(Clone, Debug)]
pub enum InformerEvent {
    Add(Rc<Object>),
    /// `(old, new)`; a resync delivers the same object twice.
    Update(Rc<Object>, Rc<Object>),
    /// The last known state; `true` when the delete was inferred by a relist (`DeletedFinalStateUnknown`).
    Delete(Rc<Object>, bool),
}

impl InformerEvent {
    pub fn object(&self) -> &Rc<Object> {
        match self {
            InformerEvent::Add(o) | InformerEvent::Update(_, o) | InformerEvent::Delete(o, _) => o,
        }
    }
    pub(crate) fn old(&self) -> Option<&Rc<Object>> {
        match self {
            InformerEvent::Update(o, _) => Some(o),
            _ => None,
        }
    }
    /// A resync notification: an update whose old and new are the same version.
    pub(crate) fn is_resync(&self) -> bool {
        matches!(self, InformerEvent::Update(a, b) if a.meta().resource_version == b.meta().resource_version)
    }
}

/// Where the reflector is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReflectorState {
    /// Not running (component down).
    Stopped,
    /// A LIST is due (initial, or a relist after the backoff).
    Listing,
    /// Watching from `last_rv`.
    Watching(WatcherId),
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct InformerStats {
    pub lists: u64,
    pub relists: u64,
    pub watches: u64,
    pub(crate) events_received: u64,
    pub events_dropped: u64,
    pub(crate) resyncs: u64,
    pub gone: u64,
    /// Watches the server ended at their timeout (each followed by a re-WATCH, not a LIST).
    pub watch_timeouts: u64,
    /// Bookmarks received: the server's word that nothing of this watch is undelivered up to a resourceVersion.
    pub bookmarks: u64,
}

/// A shared informer of one kind for one component.
#[derive(Clone)]
pub struct Informer {
    /// Its number in the simulation (what its watches wake).
    pub(crate) id: InformerId,
    pub kind: Kind,
    pub(crate) filter: WatchFilter,
    pub(crate) client: ClientId,
    pub cache: Cache,
    state: ReflectorState,
    /// The resourceVersion of the last event (or list) observed.
    last_rv: u64,
    has_synced: bool,
    /// Periodic resync (0 = off).
    resync_period: Millis,
    /// Bumped when the resync timer is re-armed (a period change), so older timers are ignored.
    resync_token: u64,
    /// Fault: the fraction of watch events this informer silently loses.
    drop_fraction: f64,
    /// Bumped whenever the informer is stopped or restarted, so stale timers are ignored.
    epoch: u64,
    /// Current relist backoff (800 ms doubling to 30 s).
    backoff: Millis,
    /// Bumped when the periodic relist is re-armed, so older timers are ignored.
    relist_token: u64,
    /// Polling mode: LIST every this often instead of watching.
    polling: Option<Millis>,
    /// When the open watch was opened (for the server's bookmarks, once a minute).
    watch_opened_at: Millis,
    stats: InformerStats,
    /// The last watch events it received (kept for observers, on the control plane's informers only).
    recent: Option<VecDeque<Received>>,
    /// Its own stream of draws (list delays, watch timeouts, backoff jitter, dropped events), keyed by its client
    /// and kind ([`Informer::new`]): a new informer never moves another's draws.
    rng: Rng,
}

/// Watch events an informer keeps for observers ([`Informer::recent`]).
pub const RECENT_EVENTS: usize = 8;

/// A watch event as an informer received it: lost to the drop fault, or applied to its cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Received {
    pub rv: u64,
    pub type_: EventType,
    pub name: Str,
    pub dropped: bool,
}

/// What a set of informers holds and has seen, summed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InformerTotals {
    pub(crate) informers: usize,
    /// Those with an open watch.
    pub watching: usize,
    /// Objects in their caches.
    pub cached: usize,
    /// The newest resourceVersion any of them has seen.
    pub last_rv: u64,
    pub received: u64,
    pub dropped: u64,
    pub relists: u64,
    pub resyncs: u64,
}

impl InformerTotals {
    pub(crate) fn add(&mut self, inf: &Informer) {
        self.informers += 1;
        self.watching += usize::from(inf.watcher().is_some());
        self.cached += inf.cache.len();
        self.last_rv = self.last_rv.max(inf.last_rv);
        self.received += inf.stats.events_received;
        self.dropped += inf.stats.events_dropped;
        self.relists += inf.stats.relists;
        self.resyncs += inf.stats.resyncs;
    }
}

pub const RELIST_BACKOFF_INITIAL: Millis = 800;
pub const RELIST_BACKOFF_MAX: Millis = 30 * SECOND;
/// The reflector's relist back-off: 800 ms doubling to 30 s, each delay with up to 100% more at random.
const RELIST_BACKOFF: Backoff =
    Backoff { jitter: 1.0, ..Backoff::doubling(RELIST_BACKOFF_INITIAL, RELIST_BACKOFF_MAX) };

impl Informer {
    // ---- its state, read (only the informer writes it) ----

    pub fn state(&self) -> ReflectorState {
        self.state
    }

    pub fn last_rv(&self) -> u64 {
        self.last_rv
    }

    pub(crate) fn has_synced(&self) -> bool {
        self.has_synced
    }

    pub(crate) fn resync_period(&self) -> Millis {
        self.resync_period
    }

    pub(crate) fn resync_token(&self) -> u64 {
        self.resync_token
    }

    pub fn drop_fraction(&self) -> f64 {
        self.drop_fraction
    }

    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    pub(crate) fn relist_token(&self) -> u64 {
        self.relist_token
    }

    pub(crate) fn polling(&self) -> Option<Millis> {
        self.polling
    }

    pub(crate) fn watch_opened_at(&self) -> Millis {
        self.watch_opened_at
    }

    pub fn stats(&self) -> &InformerStats {
        &self.stats
    }

    /// An informer of `kind` for `client`, its cache indexing labels if `label_index`, drawing from `rng` (in a
    /// simulation, keyed by the client's name and the kind: `Sim::informer`).
    pub(crate) fn new(kind: Kind, filter: WatchFilter, client: ClientId, label_index: bool, rng: Rng) -> Self {
        Informer {
            id: 0,
            kind,
            filter,
            client,
            cache: Cache::new(label_index),
            state: ReflectorState::Stopped,
            last_rv: 0,
            has_synced: false,
            resync_period: 0,
            resync_token: 0,
            drop_fraction: 0.0,
            epoch: 0,
            backoff: RELIST_BACKOFF_INITIAL,
            relist_token: 0,
            polling: None,
            watch_opened_at: 0,
            stats: InformerStats::default(),
            recent: None,
            rng,
        }
    }

    /// A digest of where its stream of draws stands.
    pub(crate) fn rng_position(&self) -> u64 {
        self.rng.position()
    }

    /// Keeps its last [`RECENT_EVENTS`] watch events for observers (the page's loop diagram).
    pub(crate) fn keep_recent(&mut self) {
        self.recent.get_or_insert_with(VecDeque::new);
    }

    /// Its last watch events, oldest first (empty unless [`Informer::keep_recent`]).
    pub fn recent(&self) -> impl Iterator<Item = &Received> + '_ {
        self.recent.iter().flatten()
    }

    /// LIST then WATCH from the list's resourceVersion. The cache is replaced: listed objects are delivered as
    /// adds (or updates of what was cached), cached keys missing from the list as deletes with
    /// `DeletedFinalStateUnknown`.
    pub(crate) fn list_and_watch(&mut self, store: &mut Store) -> Result<Vec<InformerEvent>, ApiError> {
        self.close_watch(store);
        let (items, rv) = store.list(self.client, self.kind, None, None, &self.filter);
        if self.stats.lists > 0 {
            self.stats.relists += 1;
        }
        self.stats.lists += 1;
        let mut out = Vec::with_capacity(items.len());
        let mut seen: FxHashMap<ObjKey, ()> = FxHashMap::default();
        seen.reserve(items.len());
        for o in items {
            seen.insert(o.key(), ());
            match self.cache.upsert(o.clone()) {
                Some(old) => out.push(InformerEvent::Update(old, o)),
                None => out.push(InformerEvent::Add(o)),
            }
        }
        self.remove_vanished(&seen, true, &mut out);
        self.last_rv = rv;
        self.has_synced = true;
        let id = store.watch_notify(self.client, self.kind, rv, self.filter.clone(), self.id)?;
        self.stats.watches += 1;
        self.state = ReflectorState::Watching(id);
        self.backoff = RELIST_BACKOFF_INITIAL;
        Ok(out)
    }

    /// Polling mode: `listers` LISTs of the kind (one per controller that reads it: nothing is shared), then the
    /// last list diffed with the cache: new objects as adds, changed ones (by resourceVersion) as updates,
    /// vanished ones as deletes. No watch.
    pub(crate) fn poll(&mut self, store: &mut Store, listers: usize) -> Vec<InformerEvent> {
        self.close_watch(store);
        let mut items = Vec::new();
        for _ in 0..listers.max(1) {
            items = store.list(self.client, self.kind, None, None, &self.filter).0;
            self.stats.lists += 1;
        }
        let mut out = Vec::new();
        let mut seen: FxHashMap<ObjKey, ()> = FxHashMap::default();
        for o in items {
            seen.insert(o.key(), ());
            let changed = self.cache.get(&o.key()).map(|c| c.meta().resource_version != o.meta().resource_version);
            match changed {
                Some(false) => {}
                Some(true) => {
                    if let Some(old) = self.cache.upsert(o.clone()) {
                        out.push(InformerEvent::Update(old, o));
                    }
                }
                None => {
                    self.cache.upsert(o.clone());
                    out.push(InformerEvent::Add(o));
                }
            }
        }
        self.remove_vanished(&seen, false, &mut out);
        self.last_rv = store.resource_version();
        self.has_synced = true;
        self.state = ReflectorState::Listing;
        out
    }

    /// Cached keys a list no longer has leave the cache as deletes, in key order (`final_state_unknown`: a relist's
    /// `DeletedFinalStateUnknown`; a poll's diff is an ordinary delete).
    fn remove_vanished(
        &mut self,
        seen: &FxHashMap<ObjKey, ()>,
        final_state_unknown: bool,
        out: &mut Vec<InformerEvent>,
    ) {
        let mut vanished: Vec<ObjKey> = self.cache.objects.keys().filter(|k| !seen.contains_key(*k)).cloned().collect();
        crate::sort::sort(&mut vanished);
        for k in vanished {
            if let Some(old) = self.cache.remove(&k) {
                out.push(InformerEvent::Delete(old, final_state_unknown));
            }
        }
    }

    /// Re-opens the watch from the last seen resourceVersion (after a disconnect). `Err(Gone)` means the history is
    /// gone: the caller relists after [`Informer::next_backoff`].
    pub(crate) fn rewatch(&mut self, store: &mut Store) -> Result<(), ApiError> {
        self.close_watch(store);
        match store.watch_notify(self.client, self.kind, self.last_rv, self.filter.clone(), self.id) {
            Ok(id) => {
                self.stats.watches += 1;
                self.state = ReflectorState::Watching(id);
                Ok(())
            }
            Err(e) => {
                self.stats.gone += 1;
                self.state = ReflectorState::Listing;
                Err(e)
            }
        }
    }

    /// The relist backoff to wait now (800 ms doubling to 30 s, with up to 100% jitter as client-go's
    /// backoff manager), advancing it for next time.
    pub(crate) fn next_backoff(&mut self) -> Millis {
        let base = self.backoff;
        self.backoff = RELIST_BACKOFF.after(base);
        RELIST_BACKOFF.jittered(base, &mut self.rng)
    }

    /// Applies delivered watch events to the cache, dropping the configured fraction (the fault), and returns what
    /// the handlers must see.
    pub(crate) fn on_watch_events(&mut self, events: Vec<WatchEvent>) -> Vec<InformerEvent> {
        let mut out = Vec::with_capacity(events.len());
        for ev in events {
            self.stats.events_received += 1;
            self.last_rv = self.last_rv.max(ev.rv);
            let dropped = self.drop_fraction > 0.0 && self.rng.chance(self.drop_fraction);
            if let Some(r) = self.recent.as_mut().filter(|_| ev.type_ != EventType::Bookmark) {
                if r.len() >= RECENT_EVENTS {
                    r.pop_front();
                }
                r.push_back(Received { rv: ev.rv, type_: ev.type_, name: ev.object.meta().name.clone(), dropped });
            }
            if dropped {
                self.stats.events_dropped += 1;
                continue;
            }
            match ev.type_ {
                EventType::Added | EventType::Modified => match self.cache.upsert(ev.object.clone()) {
                    Some(old) => out.push(InformerEvent::Update(old, ev.object)),
                    None => out.push(InformerEvent::Add(ev.object)),
                },
                EventType::Deleted => {
                    // DeltaFIFO.Delete: a delete of a key the cache never held is not delivered.
                    if self.cache.remove(&ev.object.key()).is_some() {
                        out.push(InformerEvent::Delete(ev.object, false));
                    }
                }
                EventType::Bookmark => {}
            }
        }
        out
    }

    /// A bookmark: everything of this watch up to `rv` has been delivered, so the next WATCH may start there
    /// (client-go's reflector records a bookmark's resourceVersion as the last one it synced).
    pub(crate) fn bookmark(&mut self, rv: u64) {
        self.stats.bookmarks += 1;
        self.last_rv = self.last_rv.max(rv);
    }

    /// Resync: every cached object re-delivered as an update with old == new, in key order. No API call.
    pub(crate) fn resync(&mut self) -> Vec<InformerEvent> {
        self.stats.resyncs += 1;
        self.cache.list().into_iter().map(|o| InformerEvent::Update(o.clone(), o.clone())).collect()
    }

    fn close_watch(&mut self, store: &mut Store) {
        if let ReflectorState::Watching(id) = self.state {
            store.stop_watch(id);
        }
    }

    /// Ends the open watch (if any) and waits for a LIST: the relist path (410 Gone, the relist period, a switch of
    /// observe mode). The watch is closed here, while the informer still knows it: a relist never leaves the old
    /// watch open behind it.
    pub(crate) fn begin_list(&mut self, store: &mut Store) {
        self.close_watch(store);
        self.state = ReflectorState::Listing;
    }

    /// Starts (over): a new life whose timers are the only ones that count, waiting for its first LIST. Returns
    /// the new epoch.
    pub(crate) fn start(&mut self, store: &mut Store) -> u64 {
        self.epoch += 1;
        self.begin_list(store);
        self.epoch
    }

    /// The server answered 410 Gone: the watch ends and the informer waits to LIST again.
    pub(crate) fn gone(&mut self, store: &mut Store) {
        self.begin_list(store);
        self.stats.gone += 1;
    }

    /// The server ended the watch at the timeout the reflector asked for.
    pub(crate) fn watch_timed_out(&mut self) {
        self.stats.watch_timeouts += 1;
    }

    /// A watch was opened now (the server's bookmarks count from here).
    pub(crate) fn watch_opened(&mut self, now: Millis) {
        self.watch_opened_at = now;
    }

    /// Re-arms the resync timer: `(period, epoch, token)` of the new timer (none when the period is 0); earlier
    /// timers become stale.
    pub(crate) fn rearm_resync(&mut self) -> Option<(Millis, u64, u64)> {
        self.resync_token += 1;
        (self.resync_period > 0).then_some((self.resync_period, self.epoch, self.resync_token))
    }

    /// Re-arms the periodic relist at `period` (0: none): `(epoch, token)` of the new timer.
    pub(crate) fn rearm_relist(&mut self, period: Millis) -> Option<(u64, u64)> {
        self.relist_token += 1;
        (period > 0).then_some((self.epoch, self.relist_token))
    }

    /// Sets the resync period (0: off); the caller re-arms it.
    pub(crate) fn set_resync_period(&mut self, period: Millis) {
        self.resync_period = period;
    }

    /// Polling mode: LIST every `period` instead of watching (`None`: watch).
    pub(crate) fn set_polling(&mut self, period: Option<Millis>) {
        self.polling = period.map(|p| p.max(1));
    }

    /// Fault: the fraction (0..=1; anything else is 0) of watch events this informer loses.
    pub(crate) fn set_drop_fraction(&mut self, fraction: f64) {
        self.drop_fraction = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
    }

    /// Stops the informer and forgets its cache (the process died).
    pub(crate) fn stop(&mut self, store: &mut Store) {
        self.close_watch(store);
        self.state = ReflectorState::Stopped;
        self.cache.clear();
        if let Some(r) = self.recent.as_mut() {
            r.clear();
        }
        self.has_synced = false;
        self.last_rv = 0;
        self.epoch += 1;
        self.backoff = RELIST_BACKOFF_INITIAL;
    }

    pub(crate) fn watcher(&self) -> Option<WatcherId> {
        match self.state {
            ReflectorState::Watching(id) => Some(id),
            _ => None,
        }
    }

    /// Cached objects that differ from the store right now (stale, missing or extra), compared by
    /// resourceVersion, leaving out objects whose change is still on its way in the open watch (a few
    /// milliseconds of latency is not drift; a lost event is). An uncounted, omniscient check for the UI and tests:
    /// [`Informer::drift_part`] taken whole.
    pub fn drift(&self, store: &Store) -> usize {
        let (mut drift, mut at) = (0, DriftCursor::Start);
        loop {
            let part = self.drift_part(store, &at, usize::MAX);
            drift += part.drift;
            match part.next {
                Some(next) => at = next,
                None => return drift,
            }
        }
    }

    /// [`Informer::drift`] a part at a time, for an observer that cannot afford a whole measure at once (at scale
    /// it compares every cached pod): from `at`, visiting about `budget` objects (at least one), first the store's
    /// objects the watch sees (stale or missing in the cache), then the cache's (objects the store no longer has).
    /// Each part is exact at the moment it is taken; the parts of a whole are taken at different moments. A watch
    /// of a server index (a node's pods) is small and measured whole.
    pub fn drift_part(&self, store: &Store, at: &DriftCursor, budget: usize) -> DriftPart {
        let mut part = DriftPart { drift: 0, visited: 0, next: None };
        if self.state == ReflectorState::Stopped {
            return part;
        }
        // Inserted one by one: collecting into a set would compile one more sort (docs/size.md).
        let mut pending = BTreeSet::new();
        if let Some(w) = self.watcher().and_then(|id| store.watcher(id)) {
            for e in &w.buffer {
                pending.insert(e.object.key());
            }
        }
        let drifted = |key: &ObjKey| !pending.contains(key);
        let indexed = Store::indexed(self.kind, &self.filter);
        let budget = if indexed { usize::MAX } else { budget.max(1) };
        // The store's objects first (from the cursor's key), unless the cursor is in the cache already.
        let store_from = match at {
            DriftCursor::Start => Some(None),
            DriftCursor::Store(k) => Some(Some(k)),
            DriftCursor::Cache(_) => None,
        };
        if let Some(from) = store_from {
            let objects: Box<dyn Iterator<Item = &Rc<Object>>> = if indexed {
                store.filtered(self.kind, &self.filter)
            } else {
                Box::new(store.objects_from(self.kind, from))
            };
            for o in objects {
                let key = o.key();
                if part.visited >= budget {
                    part.next = Some(DriftCursor::Store(key));
                    return part;
                }
                part.visited += 1;
                if !self.filter.matches(o) {
                    continue;
                }
                let stale = self.cache.get(&key).is_none_or(|c| c.meta().resource_version != o.meta().resource_version);
                part.drift += usize::from(stale && drifted(&key));
            }
        }
        // Cached objects the (filtered) store no longer has, unless their deletion is on its way.
        let first = if let DriftCursor::Cache(i) = at { *i } else { 0 };
        let in_store = |k: &ObjKey| store.peek(self.kind, k).is_some_and(|o| self.filter.matches(o));
        for (slot, o) in self.cache.slots_from(first) {
            if part.visited >= budget {
                part.next = Some(DriftCursor::Cache(slot));
                return part;
            }
            part.visited += 1;
            let key = o.key();
            part.drift += usize::from(!in_store(&key) && drifted(&key));
        }
        part
    }
}

/// Where a measure of drift taken in parts ([`Informer::drift_part`]) goes on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum DriftCursor {
    /// At the beginning.
    #[default]
    Start,
    /// At this key of the store (the objects from it on are still to compare with the cache).
    Store(ObjKey),
    /// At this slot of the cache (its objects from it on are still to look up in the store).
    Cache(usize),
}

/// One part of a measure of drift: the objects it found drifted, the objects it visited (store and cache), and
/// where the next part begins (`None`: the measure is complete).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriftPart {
    pub drift: usize,
    pub visited: usize,
    pub next: Option<DriftCursor>,
}

#[cfg(test)]
mod tests;
