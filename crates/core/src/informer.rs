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
    pub fn old(&self) -> Option<&Rc<Object>> {
        match self {
            InformerEvent::Update(o, _) => Some(o),
            _ => None,
        }
    }
    /// A resync notification: an update whose old and new are the same version.
    pub fn is_resync(&self) -> bool {
        matches!(self, InformerEvent::Update(a, b) if a.meta().resource_version == b.meta().resource_version)
    }
}

/// Where a cached object is held: its place in [`Cache`]'s slots.
type Slot = usize;

/// An index bucket: keys in key order, each with its object's slot, so walking it needs no lookups and a new
/// version of an object goes into its one slot, whatever buckets name it.
type Bucket = BTreeMap<ObjKey, Slot>;

/// The pods of one controller that carry the same labels, counted as they change (what a ReplicaSet's status
/// is made of, without walking its pods).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodGroup {
    pub labels: Labels,
    /// Pods in the group, whatever their phase.
    pub pods: usize,
    /// Those not finished (`Succeeded` or `Failed`).
    pub unfinished: usize,
    /// Those active (`IsPodActive`: not finished, not being deleted).
    pub active: usize,
    /// Active pods whose Ready condition is True.
    pub ready: usize,
    /// When the Ready condition of each of those turned True (pods without that time are not here): how many
    /// pods per time.
    ready_since: BTreeMap<Millis, usize>,
}

impl PodGroup {
    /// Active pods ready for at least `min_ready_seconds` at `now` (`podutil.IsPodAvailable`; with none asked,
    /// every ready pod).
    pub fn available(&self, min_ready_seconds: i32, now: Millis) -> usize {
        if min_ready_seconds <= 0 {
            return self.ready;
        }
        // Ready at `t` is available when `t + minReadySeconds <= now`.
        let Some(latest) = now.checked_sub(crate::time::seconds(min_ready_seconds.into())) else { return 0 };
        self.ready_since.range(..=latest).map(|(_, c)| c).sum()
    }

    /// Counts `p` in (`add`) or out of the group.
    fn count(&mut self, p: &Pod, add: bool) {
        let step = |n: &mut usize| *n = if add { *n + 1 } else { n.saturating_sub(1) };
        step(&mut self.pods);
        if p.status.phase.is_terminal() {
            return;
        }
        step(&mut self.unfinished);
        if !p.is_active() {
            return;
        }
        step(&mut self.active);
        let Some(ready) = p.condition("Ready").filter(|c| &*c.status == "True") else { return };
        step(&mut self.ready);
        if let Some(t) = ready.last_transition_time {
            let n = self.ready_since.entry(t.0).or_default();
            step(n);
            if *n == 0 {
                self.ready_since.remove(&t.0);
            }
        }
    }
}

/// The informer's local cache (`cache.Indexer`) with the indexes controllers use instead of scanning: namespace,
/// controller owner uid, pod node name and label pairs; and, for the control plane's pods, each controller's
/// pods counted by labels and readiness ([`PodGroup`]). Its reads count the objects and groups they hand out (the
/// engine's work, `crate::work`).
#[derive(Default)]
pub struct Cache {
    objects: FxHashMap<ObjKey, Slot>,
    /// The objects, by slot (`None`: a free slot, listed in `free`).
    slots: Vec<Option<Rc<Object>>>,
    free: Vec<Slot>,
    by_namespace: FxHashMap<Str, Bucket>,
    by_owner: FxHashMap<Str, Bucket>,
    /// Objects without a controller, by namespace (candidates for adoption).
    orphans: FxHashMap<Str, Bucket>,
    by_node: FxHashMap<Str, Bucket>,
    by_label: FxHashMap<(Str, Str), Bucket>,
    /// Objects without a controller, by label pair (with the label index).
    orphans_by_label: FxHashMap<(Str, Str), Bucket>,
    /// Pods by controller uid, in groups of equal labels (with the label index).
    pod_groups: FxHashMap<Str, Vec<PodGroup>>,
    /// Services with a selector, by the first pair of their selector (with the label index).
    by_selector: FxHashMap<(Str, Str), Bucket>,
    label_index: bool,
    /// Objects its reads have handed out, ever (kept across a clear).
    visited: Cell<u64>,
}

fn bucket_insert<K: std::hash::Hash + Eq + Clone>(map: &mut FxHashMap<K, Bucket>, k: &K, key: &ObjKey, slot: Slot) {
    map.entry(k.clone()).or_default().insert(key.clone(), slot);
}

fn bucket_remove<K: std::hash::Hash + Eq>(map: &mut FxHashMap<K, Bucket>, k: &K, key: &ObjKey) {
    if let Some(b) = map.get_mut(k) {
        b.remove(key);
        if b.is_empty() {
            map.remove(k);
        }
    }
}

fn pair(k: &Str, v: &Str) -> (Str, Str) {
    (k.clone(), v.clone())
}

/// One index bucket of a [`Cache`] (the namespace's aside).
#[derive(PartialEq)]
enum Member {
    Owner(Str),
    Orphan(Str),
    Node(Str),
    Label((Str, Str)),
    OrphanLabel((Str, Str)),
    Selector((Str, Str)),
}

/// The first pair of a Service's selector: the one bucket of [`Cache::services_selecting`] that holds it.
fn selector_pair(o: &Object) -> Option<(Str, Str)> {
    o.as_service()?.spec.selector.iter().next().map(|(k, v)| pair(k, v))
}

impl Cache {
    pub fn new(label_index: bool) -> Self {
        Cache { label_index, ..Default::default() }
    }

    pub fn len(&self) -> usize {
        self.objects.len()
    }
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Objects its reads have handed out since it was made: every object a `get` found, a `list` returned, or an
    /// index walk or a `select` looked at, and every pod group read (what a controller visits, counted at the one
    /// place it reads).
    pub fn visited(&self) -> u64 {
        self.visited.get()
    }

    fn visit(&self, n: usize) {
        self.visited.set(self.visited.get().saturating_add(n as u64));
    }

    fn at(&self, slot: Slot) -> Option<&Rc<Object>> {
        self.slots.get(slot).and_then(Option::as_ref)
    }

    /// The cached objects by slot, from slot `from` on, with their slots (uncounted: for an observer that reads
    /// the cache a part at a time, [`Informer::drift_part`]).
    pub fn slots_from(&self, from: usize) -> impl Iterator<Item = (usize, &Rc<Object>)> + '_ {
        self.slots.iter().enumerate().skip(from).filter_map(|(i, o)| o.as_ref().map(|o| (i, o)))
    }

    pub fn get(&self, key: &ObjKey) -> Option<&Rc<Object>> {
        let o = self.objects.get(key).and_then(|&slot| self.at(slot));
        self.visit(usize::from(o.is_some()));
        o
    }

    /// Every cached object, in key order.
    pub fn list(&self) -> Vec<&Rc<Object>> {
        let mut v: Vec<&Rc<Object>> = self.slots.iter().flatten().collect();
        v.sort_by(|a, b| a.meta().namespace.cmp(&b.meta().namespace).then(a.meta().name.cmp(&b.meta().name)));
        self.visit(v.len());
        v
    }

    fn resolve<'a>(&'a self, b: Option<&'a Bucket>) -> impl Iterator<Item = &'a Rc<Object>> + 'a {
        b.into_iter().flat_map(|b| b.values()).filter_map(|&slot| self.at(slot)).inspect(|_| self.visit(1))
    }

    /// Objects whose controller owner has this uid.
    pub fn by_owner(&self, uid: &str) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.resolve(self.by_owner.get(uid))
    }

    /// The pods whose controller owner has this uid, counted in groups of equal labels (empty without the label
    /// index), in the order the groups first had a pod.
    pub fn pod_groups(&self, uid: &str) -> &[PodGroup] {
        let groups = self.pod_groups.get(uid).map_or(&[][..], Vec::as_slice);
        self.visit(groups.len());
        groups
    }

    /// Objects in `namespace` that have no controller (what a controller may adopt).
    pub fn orphans(&self, namespace: &str) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.resolve(self.orphans.get(namespace))
    }

    /// Objects in `namespace` with no controller that `selector` matches, in key order: through the orphans'
    /// label index when the selector has a matchLabels pair (the smallest bucket of its pairs), else every
    /// orphan of the namespace. The second figure is how many orphans were looked at.
    pub fn select_orphans(&self, namespace: &str, selector: &LabelSelector) -> Vec<&Rc<Object>> {
        let candidates = match self.smallest(&self.orphans_by_label, selector) {
            Some(b) => self.resolve(b),
            None => self.resolve(self.orphans.get(namespace)),
        };
        candidates.filter(|o| &*o.meta().namespace == namespace && selector.matches(&o.meta().labels)).collect()
    }

    /// The Services of `namespace` whose selector `labels` match (every pair of it; a Service without a selector
    /// selects nothing), in key order: only those whose selector's first pair is among `labels` are looked at
    /// (with the label index; without it, none is found).
    pub fn services_selecting(&self, namespace: &str, labels: &Labels) -> Vec<&Rc<Object>> {
        let mut found: Vec<&Rc<Object>> = Vec::new();
        for (k, v) in labels {
            for o in self.resolve(self.by_selector.get(&pair(k, v))) {
                if &*o.meta().namespace == namespace
                    && o.as_service().is_some_and(|s| labels.contains_all(&s.spec.selector))
                {
                    found.push(o);
                }
            }
        }
        found.sort_by(|a, b| a.meta().name.cmp(&b.meta().name));
        found
    }

    /// Pods bound to this node.
    pub fn by_node(&self, node: &str) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.resolve(self.by_node.get(node))
    }

    pub fn by_namespace(&self, ns: &str) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.resolve(self.by_namespace.get(ns))
    }

    /// With the label index, the smallest of `index`'s buckets for the selector's matchLabels pairs (`Some(None)`:
    /// a pair nothing carries); `None` when there is no index or no pair to look up.
    fn smallest<'a>(
        &self,
        index: &'a FxHashMap<(Str, Str), Bucket>,
        selector: &LabelSelector,
    ) -> Option<Option<&'a Bucket>> {
        if !self.label_index {
            return None;
        }
        selector.match_labels.iter().map(|(k, v)| index.get(&pair(k, v))).min_by_key(|b| b.map_or(0, |b| b.len()))
    }

    /// Objects in `namespace` matching `selector`, found through the label index when the selector has a
    /// matchLabels pair (the smallest bucket of its pairs), else through the namespace index.
    pub fn select(&self, namespace: &str, selector: &LabelSelector) -> Vec<&Rc<Object>> {
        let candidates = match self.smallest(&self.by_label, selector) {
            Some(b) => self.resolve(b),
            None => self.resolve(self.by_namespace.get(namespace)),
        };
        candidates.filter(|o| &*o.meta().namespace == namespace && selector.matches(&o.meta().labels)).collect()
    }

    /// The buckets `o` is in besides its namespace's (which its key fixes).
    fn members(&self, o: &Object) -> Vec<Member> {
        let m = o.meta();
        let controller = controller_of(m);
        let mut out = Vec::with_capacity(2 + 2 * m.labels.len());
        out.push(match controller {
            Some(r) => Member::Owner(r.uid.clone()),
            None => Member::Orphan(m.namespace.clone()),
        });
        if let Some(p) = o.as_pod().filter(|p| !p.spec.node_name.is_empty()) {
            out.push(Member::Node(p.spec.node_name.clone()));
        }
        if self.label_index {
            out.extend(selector_pair(o).map(Member::Selector));
            for (k, v) in &m.labels {
                out.push(Member::Label(pair(k, v)));
                if controller.is_none() {
                    out.push(Member::OrphanLabel(pair(k, v)));
                }
            }
        }
        out
    }

    /// Puts `key` in the bucket `m` names, at `slot` (`None`: takes it out).
    fn put(&mut self, m: &Member, key: &ObjKey, slot: Option<Slot>) {
        fn apply<K: std::hash::Hash + Eq + Clone>(
            map: &mut FxHashMap<K, Bucket>,
            k: &K,
            key: &ObjKey,
            slot: Option<Slot>,
        ) {
            match slot {
                Some(slot) => bucket_insert(map, k, key, slot),
                None => bucket_remove(map, k, key),
            }
        }
        match m {
            Member::Owner(uid) => apply(&mut self.by_owner, uid, key, slot),
            Member::Orphan(ns) => apply(&mut self.orphans, ns, key, slot),
            Member::Node(node) => apply(&mut self.by_node, node, key, slot),
            Member::Label(p) => apply(&mut self.by_label, p, key, slot),
            Member::OrphanLabel(p) => apply(&mut self.orphans_by_label, p, key, slot),
            Member::Selector(p) => apply(&mut self.by_selector, p, key, slot),
        }
    }

    fn index(&mut self, key: &ObjKey, slot: Slot, o: &Object) {
        bucket_insert(&mut self.by_namespace, &o.meta().namespace, key, slot);
        for m in self.members(o) {
            self.put(&m, key, Some(slot));
        }
    }

    fn unindex(&mut self, key: &ObjKey, o: &Object) {
        bucket_remove(&mut self.by_namespace, &o.meta().namespace, key);
        for m in self.members(o) {
            self.put(&m, key, None);
        }
    }

    /// Moves `key` (at `slot`) out of the buckets `old` was in and `new` is not, and into those `new` is in and
    /// `old` was not (binding a pod moves it into one: its node's).
    fn reindex(&mut self, key: &ObjKey, slot: Slot, old: &Object, new: &Object) {
        let (was, is) = (self.members(old), self.members(new));
        for m in was.iter().filter(|m| !is.contains(m)) {
            self.put(m, key, None);
        }
        for m in is.iter().filter(|m| !was.contains(m)) {
            self.put(m, key, Some(slot));
        }
    }

    /// Counts a pod with a controller in (`add`) or out of its [`PodGroup`] (with the label index).
    fn tally(&mut self, o: &Object, add: bool) {
        let (true, Some(p)) = (self.label_index, o.as_pod()) else { return };
        let Some(owner) = controller_of(&p.metadata) else { return };
        let groups = self.pod_groups.entry(owner.uid.clone()).or_default();
        let i = match groups.iter().position(|g| g.labels == p.metadata.labels) {
            Some(i) => i,
            None => {
                groups.push(PodGroup { labels: p.metadata.labels.clone(), ..Default::default() });
                groups.len() - 1
            }
        };
        groups[i].count(p, add);
        if groups[i].pods == 0 {
            groups.remove(i);
            if groups.is_empty() {
                self.pod_groups.remove(&owner.uid);
            }
        }
    }

    /// Stores `o`, returning the previous version.
    pub fn upsert(&mut self, o: Rc<Object>) -> Option<Rc<Object>> {
        let key = o.key();
        let old = match self.objects.get(&key) {
            Some(&slot) => {
                let old = self.slots[slot].replace(o.clone());
                if let Some(old) = &old {
                    // Most writes change a status: the new version is already where the old one was, in every
                    // bucket (they name its slot).
                    if !self.same_buckets(old, &o) {
                        self.reindex(&key, slot, old, &o);
                    }
                    self.tally(old, false);
                }
                old
            }
            None => {
                let slot = match self.free.pop() {
                    Some(slot) => {
                        self.slots[slot] = Some(o.clone());
                        slot
                    }
                    None => {
                        self.slots.push(Some(o.clone()));
                        self.slots.len() - 1
                    }
                };
                self.index(&key, slot, &o);
                self.objects.insert(key, slot);
                None
            }
        };
        self.tally(&o, true);
        old
    }

    /// Whether two versions of an object belong in the same index buckets.
    fn same_buckets(&self, a: &Object, b: &Object) -> bool {
        let (ma, mb) = (a.meta(), b.meta());
        controller_of(ma).map(|r| &r.uid) == controller_of(mb).map(|r| &r.uid)
            && a.as_pod().map(|p| &p.spec.node_name) == b.as_pod().map(|p| &p.spec.node_name)
            && (!self.label_index
                || (ma.labels == mb.labels
                    && a.as_service().map(|s| &s.spec.selector) == b.as_service().map(|s| &s.spec.selector)))
    }

    pub fn remove(&mut self, key: &ObjKey) -> Option<Rc<Object>> {
        let slot = self.objects.remove(key)?;
        let old = self.slots[slot].take()?;
        self.free.push(slot);
        self.unindex(key, &old);
        self.tally(&old, false);
        Some(old)
    }

    pub fn clear(&mut self) {
        let (label_index, visited) = (self.label_index, self.visited.get());
        *self = Cache::new(label_index);
        self.visited.set(visited);
    }

    /// Whether the pod groups kept as pods changed are what counting the cached pods now gives (the safety check
    /// of release sweeps, [`crate::sim::Sim::check_safety`]).
    pub fn check_pod_groups(&self) -> Result<(), String> {
        let mut recount = Cache::new(self.label_index);
        for o in self.slots.iter().flatten() {
            recount.tally(o, true);
        }
        let sorted = |groups: &FxHashMap<Str, Vec<PodGroup>>| {
            let mut all: Vec<(Str, Vec<PodGroup>)> = groups.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
            for (_, g) in &mut all {
                g.sort_by(|a, b| a.labels.cmp(&b.labels));
            }
            all.sort_by(|a, b| a.0.cmp(&b.0));
            all
        };
        let (kept, counted) = (sorted(&self.pod_groups), sorted(&recount.pod_groups));
        if kept != counted {
            return Err(format!("a cache's pod groups {kept:?} are not its pods' {counted:?}"));
        }
        Ok(())
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
    pub events_received: u64,
    pub events_dropped: u64,
    pub resyncs: u64,
    pub gone: u64,
    /// Watches the server ended at their timeout (each followed by a re-WATCH, not a LIST).
    pub watch_timeouts: u64,
    /// Bookmarks received: the server's word that nothing of this watch is undelivered up to a resourceVersion.
    pub bookmarks: u64,
}

/// A shared informer of one kind for one component.
pub struct Informer {
    /// Its number in the simulation (what its watches wake).
    pub id: InformerId,
    pub kind: Kind,
    pub filter: WatchFilter,
    pub client: ClientId,
    pub owner: usize,
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
    pub informers: usize,
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
    pub fn add(&mut self, inf: &Informer) {
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

    pub fn has_synced(&self) -> bool {
        self.has_synced
    }

    pub fn resync_period(&self) -> Millis {
        self.resync_period
    }

    pub fn resync_token(&self) -> u64 {
        self.resync_token
    }

    pub fn drop_fraction(&self) -> f64 {
        self.drop_fraction
    }

    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    pub fn backoff(&self) -> Millis {
        self.backoff
    }

    pub fn relist_token(&self) -> u64 {
        self.relist_token
    }

    pub fn polling(&self) -> Option<Millis> {
        self.polling
    }

    pub fn watch_opened_at(&self) -> Millis {
        self.watch_opened_at
    }

    pub fn stats(&self) -> &InformerStats {
        &self.stats
    }

    pub fn new(kind: Kind, filter: WatchFilter, client: ClientId, owner: usize, label_index: bool) -> Self {
        Informer {
            id: 0,
            kind,
            filter,
            client,
            owner,
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
        }
    }

    /// Keeps its last [`RECENT_EVENTS`] watch events for observers (the page's loop diagram).
    pub fn keep_recent(&mut self) {
        self.recent.get_or_insert_with(VecDeque::new);
    }

    /// Its last watch events, oldest first (empty unless [`Informer::keep_recent`]).
    pub fn recent(&self) -> impl Iterator<Item = &Received> + '_ {
        self.recent.iter().flatten()
    }

    /// LIST then WATCH from the list's resourceVersion. The cache is replaced: listed objects are delivered as
    /// adds (or updates of what was cached), cached keys missing from the list as deletes with
    /// `DeletedFinalStateUnknown`.
    pub fn list_and_watch(&mut self, store: &mut Store) -> Result<Vec<InformerEvent>, ApiError> {
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
    pub fn poll(&mut self, store: &mut Store, listers: usize) -> Vec<InformerEvent> {
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
    pub fn rewatch(&mut self, store: &mut Store) -> Result<(), ApiError> {
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
    pub fn next_backoff(&mut self, rng: &mut Rng) -> Millis {
        let base = self.backoff;
        self.backoff = RELIST_BACKOFF.after(base);
        RELIST_BACKOFF.jittered(base, rng)
    }

    /// Applies delivered watch events to the cache, dropping the configured fraction (the fault), and returns what
    /// the handlers must see.
    pub fn on_watch_events(&mut self, events: Vec<WatchEvent>, rng: &mut Rng) -> Vec<InformerEvent> {
        let mut out = Vec::with_capacity(events.len());
        for ev in events {
            self.stats.events_received += 1;
            self.last_rv = self.last_rv.max(ev.rv);
            let dropped = self.drop_fraction > 0.0 && rng.chance(self.drop_fraction);
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
    pub fn bookmark(&mut self, rv: u64) {
        self.stats.bookmarks += 1;
        self.last_rv = self.last_rv.max(rv);
    }

    /// Resync: every cached object re-delivered as an update with old == new, in key order. No API call.
    pub fn resync(&mut self) -> Vec<InformerEvent> {
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
    pub fn begin_list(&mut self, store: &mut Store) {
        self.close_watch(store);
        self.state = ReflectorState::Listing;
    }

    /// Starts (over): a new life whose timers are the only ones that count, waiting for its first LIST. Returns
    /// the new epoch.
    pub fn start(&mut self, store: &mut Store) -> u64 {
        self.epoch += 1;
        self.begin_list(store);
        self.epoch
    }

    /// The server answered 410 Gone: the watch ends and the informer waits to LIST again.
    pub fn gone(&mut self, store: &mut Store) {
        self.begin_list(store);
        self.stats.gone += 1;
    }

    /// The server ended the watch at the timeout the reflector asked for.
    pub fn watch_timed_out(&mut self) {
        self.stats.watch_timeouts += 1;
    }

    /// A watch was opened now (the server's bookmarks count from here).
    pub fn watch_opened(&mut self, now: Millis) {
        self.watch_opened_at = now;
    }

    /// Re-arms the resync timer: `(period, epoch, token)` of the new timer (none when the period is 0); earlier
    /// timers become stale.
    pub fn rearm_resync(&mut self) -> Option<(Millis, u64, u64)> {
        self.resync_token += 1;
        (self.resync_period > 0).then_some((self.resync_period, self.epoch, self.resync_token))
    }

    /// Re-arms the periodic relist at `period` (0: none): `(epoch, token)` of the new timer.
    pub fn rearm_relist(&mut self, period: Millis) -> Option<(u64, u64)> {
        self.relist_token += 1;
        (period > 0).then_some((self.epoch, self.relist_token))
    }

    /// Sets the resync period (0: off); the caller re-arms it.
    pub fn set_resync_period(&mut self, period: Millis) {
        self.resync_period = period;
    }

    /// Polling mode: LIST every `period` instead of watching (`None`: watch).
    pub fn set_polling(&mut self, period: Option<Millis>) {
        self.polling = period.map(|p| p.max(1));
    }

    /// Fault: the fraction (0..=1; anything else is 0) of watch events this informer loses.
    pub fn set_drop_fraction(&mut self, fraction: f64) {
        self.drop_fraction = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
    }

    /// Stops the informer and forgets its cache (the process died).
    pub fn stop(&mut self, store: &mut Store) {
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

    pub fn watcher(&self) -> Option<WatcherId> {
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
