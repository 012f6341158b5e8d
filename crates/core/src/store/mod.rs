//! The API store: the API server and etcd as one. It is the single source of truth and the single entry point:
//! every read and write of every component goes through it and is counted per client, every write gets a new
//! global resourceVersion and produces exactly one watch event, and an update carrying a stale resourceVersion is
//! refused with 409 Conflict (optimistic concurrency).

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::admission;
use crate::api::{
    s, Kind, LabelSelector, Namespace, NamespaceStatus, ObjKey, Object, PodCondition, PodSpec, Str, Time,
    FINALIZER_KUBERNETES,
};
use crate::cause::{Cause, CauseLog};
use crate::faults::Faults;
use crate::fnv::{fnv1a, FNV_OFFSET};
use crate::rng::Rng;
use crate::time::{Millis, HOUR, SECOND};
use crate::watch::{EventType, WatchEvent, WatchFilter, Watcher, WatcherId};

/// Who is calling: an index into the store's client table (one per component: the controller manager, the
/// scheduler, each kubelet, kubectl...).
pub type ClientId = usize;

/// What the store served to and accepted from one client. This is the API load.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiCounters {
    pub list_calls: u64,
    /// Objects returned by LISTs.
    pub list_items: u64,
    pub gets: u64,
    pub watches_opened: u64,
    /// Watch events delivered.
    pub watch_events: u64,
    pub creates: u64,
    pub updates: u64,
    pub deletes: u64,
    pub conflicts: u64,
    pub errors: u64,
}

impl ApiCounters {
    /// Objects served: LIST items + GETs + watch events (the `api-reads` figure of the page).
    pub fn reads(&self) -> u64 {
        self.list_items + self.gets + self.watch_events
    }
    pub fn writes(&self) -> u64 {
        self.creates + self.updates + self.deletes
    }
    pub fn add(&mut self, o: &ApiCounters) {
        self.list_calls += o.list_calls;
        self.list_items += o.list_items;
        self.gets += o.gets;
        self.watches_opened += o.watches_opened;
        self.watch_events += o.watch_events;
        self.creates += o.creates;
        self.updates += o.updates;
        self.deletes += o.deletes;
        self.conflicts += o.conflicts;
        self.errors += o.errors;
    }
}

/// The API server's errors, with upstream's status codes and messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ApiError {
    /// 409: the update carried a stale resourceVersion.
    Conflict { resource: &'static str, name: Str },
    /// 409 with a reason of its own (`pods/binding`: already assigned).
    ConflictWith { resource: &'static str, name: Str, detail: String },
    /// 404
    NotFound { resource: &'static str, name: Str },
    /// 409
    AlreadyExists { resource: &'static str, name: Str },
    /// 410: the watch asked for history the server no longer keeps.
    Gone { requested: u64, oldest: u64 },
    /// 422: the object and its field errors.
    Invalid(crate::admission::Invalid),
    /// 400
    BadRequest(String),
    /// 500 injected by a fault.
    Internal(String),
    /// 403 (the "exceeded quota" fault of the backoff lesson).
    Forbidden(String),
    /// 429 (an eviction a disruption budget refuses).
    TooManyRequests(String),
}

impl ApiError {
    pub fn code(&self) -> u16 {
        match self {
            ApiError::Conflict { .. } | ApiError::ConflictWith { .. } | ApiError::AlreadyExists { .. } => 409,
            ApiError::NotFound { .. } => 404,
            ApiError::Gone { .. } => 410,
            ApiError::Invalid(_) => 422,
            ApiError::BadRequest(_) => 400,
            ApiError::Internal(_) => 500,
            ApiError::Forbidden(_) => 403,
            ApiError::TooManyRequests(_) => 429,
        }
    }
    /// The `reason` of the API's Status (`Conflict`, `NotFound`...), as kubectl prints it:
    /// `Error from server (NotFound): pods "x" not found`.
    pub fn reason(&self) -> &'static str {
        match self {
            ApiError::Conflict { .. } | ApiError::ConflictWith { .. } => "Conflict",
            ApiError::NotFound { .. } => "NotFound",
            ApiError::AlreadyExists { .. } => "AlreadyExists",
            ApiError::Gone { .. } => "Expired",
            ApiError::Invalid(_) => "Invalid",
            ApiError::BadRequest(_) => "BadRequest",
            ApiError::Internal(_) => "InternalError",
            ApiError::Forbidden(_) => "Forbidden",
            ApiError::TooManyRequests(_) => "TooManyRequests",
        }
    }

    pub fn is_conflict(&self) -> bool {
        matches!(self, ApiError::Conflict { .. } | ApiError::ConflictWith { .. })
    }
    pub fn is_not_found(&self) -> bool {
        matches!(self, ApiError::NotFound { .. })
    }
    pub fn is_already_exists(&self) -> bool {
        matches!(self, ApiError::AlreadyExists { .. })
    }
    /// A create refused because its namespace is being deleted (upstream's `NamespaceTerminatingCause`).
    pub(crate) fn is_namespace_terminating(&self) -> bool {
        matches!(self, ApiError::Forbidden(m) if m.ends_with("because it is being terminated"))
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Names come from users: a message repeats at most a bounded piece of one.
        let echo = |n: &Str| crate::limits::echo(n).into_owned();
        match self {
            ApiError::Conflict { resource, name } => write!(
                f,
                "Operation cannot be fulfilled on {resource} \"{}\": the object has been modified; please apply your changes to the latest version and try again",
                echo(name)
            ),
            ApiError::ConflictWith { resource, name, detail } => {
                write!(f, "Operation cannot be fulfilled on {resource} \"{}\": {detail}", echo(name))
            }
            ApiError::NotFound { resource, name } => write!(f, "{resource} \"{}\" not found", echo(name)),
            ApiError::AlreadyExists { resource, name } => write!(f, "{resource} \"{}\" already exists", echo(name)),
            ApiError::Gone { requested, oldest } => {
                write!(f, "too old resource version: {requested} ({oldest})")
            }
            ApiError::Invalid(invalid) => f.write_str(&crate::limits::bound_message(&invalid.status_message())),
            ApiError::BadRequest(m)
            | ApiError::Internal(m)
            | ApiError::Forbidden(m)
            | ApiError::TooManyRequests(m) => {
                f.write_str(&crate::limits::bound_message(m))
            }
        }
    }
}

/// `resource.group` as the API server names a resource in its errors (`deployments.apps`, `pods`).
pub fn group_resource(kind: Kind) -> &'static str {
    kind.info().group_resource
}

/// Deletion propagation (`DeleteOptions.propagationPolicy`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Propagation {
    #[default]
    Background,
    Foreground,
    Orphan,
}

#[derive(Clone, Debug, Default)]
pub struct DeleteOptions {
    pub grace_period_seconds: Option<i64>,
    pub propagation: Option<Propagation>,
    pub preconditions_uid: Option<Str>,
}

/// Which part of an object a write may change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subresource {
    Main,
    Status,
    /// `namespaces/{name}/finalize`: only `spec.finalizers` of a namespace is taken (the only way to change it).
    Finalize,
}

/// The namespaces the NamespaceLifecycle admission plugin refuses to delete (upstream's immortal namespaces are
/// `default`, `kube-system` and `kube-public`). kubeloop adds `kube-node-lease`: upstream's API server recreates
/// it within a minute of its removal (its system namespaces controller), which kubeloop does not simulate, so
/// deleting it would leave the kubelets without their Lease namespace for good.
pub const IMMORTAL_NAMESPACES: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// Tunables of the store. Defaults are upstream's.
#[derive(Clone, Debug)]
pub struct StoreConfig {
    /// How long the watch cache keeps history (apiserver `eventFreshDuration`, 75 s).
    pub watch_history: Millis,
    /// Events always kept per kind, however old (the watch cache's lower capacity bound, 100).
    pub watch_history_min: usize,
    /// Events kept at most per kind (the watch cache's upper capacity bound, 100 * 1024).
    pub watch_history_max: usize,
    /// Event objects expire this long after their last update (`--event-ttl`, 1 h).
    pub event_ttl: Millis,
    /// Watch delivery latency: each new watcher gets a seeded value in this range.
    pub watch_latency: (Millis, Millis),
    /// DefaultTolerationSeconds admission: the tolerationSeconds of the not-ready and unreachable tolerations
    /// added to every pod (300 s).
    pub default_toleration_seconds: i64,
    /// Undelivered events a watch may hold before the server ends it ([`crate::limits::WATCH_BUFFER_MAX`]).
    pub watch_buffer_max: usize,
    /// Objects of each kind (by [`Kind::index`]) the store holds at most ([`Kind::max_objects`]).
    pub caps: [usize; Kind::ALL.len()],
}

impl StoreConfig {
    /// Whether a version written at `at` is older than the watch cache's window at `now`.
    fn past_window(&self, at: Millis, now: Millis) -> bool {
        at + self.watch_history < now
    }
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            watch_history: 75 * SECOND,
            watch_history_min: 100,
            watch_history_max: 100 * 1024,
            event_ttl: HOUR,
            watch_latency: (2, 12),
            default_toleration_seconds: admission::DEFAULT_TOLERATION_SECONDS,
            watch_buffer_max: crate::limits::WATCH_BUFFER_MAX,
            caps: Kind::ALL.map(Kind::max_objects),
        }
    }
}

#[derive(Clone)]
struct HistoryEntry {
    ev: WatchEvent,
    old: Option<Rc<Object>>,
}

#[derive(Clone, Default)]
struct KindStore {
    objects: BTreeMap<ObjKey, Rc<Object>>,
    history: VecDeque<HistoryEntry>,
    /// Highest resourceVersion dropped from `history`: a watch must start at or after it.
    compacted: u64,
    watchers: Vec<WatcherId>,
    /// Pod watchers filtered by node name.
    node_watchers: FxHashMap<Str, Vec<WatcherId>>,
    /// The field index its kind's registry row names (`index.rs`), kept at every write.
    index: Option<Index>,
}

/// A watch whose reader the simulation must wake (`notify` is the reader's number, e.g. an informer), at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wakeup {
    pub(crate) watcher: WatcherId,
    pub(crate) notify: usize,
    pub(crate) at: Millis,
}

/// A client's registration: its name (as it appears in events and the UI) and its counters.
#[derive(Clone, Debug)]
pub struct Client {
    pub name: Str,
    pub counters: ApiCounters,
}

/// The store's pods by what they are doing: a terminating pod (deletionTimestamp set) counts as terminating
/// whatever its phase, every other pod under its `status.phase`. Kept at every commit, so reading it costs nothing
/// however many pods there are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PodTally {
    pub pending: usize,
    pub running: usize,
    pub succeeded: usize,
    pub failed: usize,
    pub unknown: usize,
    pub terminating: usize,
}

impl PodTally {
    /// The slot `pod` counts in.
    fn slot(&mut self, pod: &crate::api::Pod) -> &mut usize {
        use crate::api::PodPhase;
        if pod.metadata.is_terminating() {
            return &mut self.terminating;
        }
        match pod.status.phase {
            PodPhase::Pending => &mut self.pending,
            PodPhase::Running => &mut self.running,
            PodPhase::Succeeded => &mut self.succeeded,
            PodPhase::Failed => &mut self.failed,
            PodPhase::Unknown => &mut self.unknown,
        }
    }

    /// Counts `pod` in (`add`) or out.
    pub fn count(&mut self, pod: &crate::api::Pod, add: bool) {
        let n = self.slot(pod);
        *n = if add { *n + 1 } else { n.saturating_sub(1) };
    }

    /// The pods it counts, in every slot.
    pub fn total(&self) -> usize {
        self.pending + self.running + self.succeeded + self.failed + self.unknown + self.terminating
    }

    /// The tally of `pods`, counted one by one (what the kept tally must equal).
    pub(crate) fn of<'a>(pods: impl IntoIterator<Item = &'a crate::api::Pod>) -> PodTally {
        let mut t = PodTally::default();
        for p in pods {
            t.count(p, true);
        }
        t
    }
}

/// The API server and etcd.
#[derive(Clone)]
pub struct Store {
    pub(crate) config: StoreConfig,
    rv: u64,
    kinds: Vec<KindStore>,
    /// Open watches by id; ids are never reused, so a closed watch's id never names another.
    watchers: FxHashMap<WatcherId, Watcher>,
    next_watcher: WatcherId,
    clients: Vec<Client>,
    rng: Rng,
    /// Watches of simulated components whose buffer went from empty to non-empty, with the time they become due;
    /// the simulation schedules their delivery.
    pub(crate) wakeups: Vec<Wakeup>,
    /// Watches of simulated components the server ended (one that fell too far behind); the simulation tells
    /// their readers, which re-watch as a reflector does.
    pub(crate) ended: Vec<Wakeup>,
    event_expiry: VecDeque<(Millis, ObjKey)>,
    /// True while [`Store::expire_events`] runs: the removals it commits do not expire again (no recursion, however
    /// many Events expire at once).
    expiring: bool,
    /// A server-side dry run is under way ([`Store::dry_run`]): writes are admitted and answered, never committed.
    dry_run: bool,
    /// The latest Kubernetes Event writes (creates and count bumps), oldest first, for the event stream; an
    /// observer's view, not an API.
    event_log: VecDeque<Rc<Object>>,
    event_log_total: u64,
    history_hash: u64,
    writes: u64,
    /// The last reading of [`Store::wall_nanos`]: its millisecond and the sub-sequence within it.
    wall_clock: (Millis, u64),
    /// Injected faults (conflicts, latency, refused creates).
    pub faults: Faults,
    /// The delivery latencies of each kind's watches, by [`Kind::index`]: a stream per kind (`Rng::keyed`), so a
    /// new kind's watches leave every other kind's latencies where they were.
    watch_latency: Vec<Rng>,
    pods: PodTally,
    /// The last pod specs defaulted on create, each with its defaulted spec ([`Store::default_pod_spec`]).
    pod_defaults: VecDeque<(Rc<PodSpec>, Rc<PodSpec>)>,
    /// Why each write was made ([`crate::cause`]): set by the simulation before it lets a component write.
    pub(crate) causes: CauseLog,
    /// The client whose request is being served (the writes it commits are its).
    writer: ClientId,
}

/// The client id the API server's own writes are kept under (an Event's TTL): no client's.
pub const SERVER: ClientId = ClientId::MAX;

/// Pod specs whose defaulted copy the store keeps to share: the templates of the ReplicaSets creating pods at once.
pub const POD_DEFAULTS_KEPT: usize = 16;

/// Kubernetes Event writes kept for observers.
pub const EVENT_LOG_CAPACITY: usize = 10_000;

impl Store {
    /// An API server with the built-in namespaces; `seed` keys its random streams (uids, generated names, injected
    /// conflicts; each kind's watch latencies).
    pub(crate) fn new(config: StoreConfig, seed: u64) -> Self {
        let mut store = Store {
            config,
            rv: 0,
            kinds: Kind::ALL
                .iter()
                .map(|k| KindStore { index: k.info().field_index.map(Index::new), ..Default::default() })
                .collect(),
            watchers: FxHashMap::default(),
            next_watcher: 0,
            clients: Vec::new(),
            rng: Rng::keyed(seed, &["kube-apiserver"]),
            wakeups: Vec::new(),
            ended: Vec::new(),
            event_expiry: VecDeque::new(),
            expiring: false,
            dry_run: false,
            event_log: VecDeque::new(),
            event_log_total: 0,
            wall_clock: (0, 0),
            history_hash: FNV_OFFSET,
            writes: 0,
            faults: Faults::default(),
            watch_latency: Kind::ALL.iter().map(|k| Rng::keyed(seed, &["kube-apiserver", "watch", k.name()])).collect(),
            pods: PodTally::default(),
            pod_defaults: VecDeque::new(),
            causes: CauseLog::default(),
            writer: SERVER,
        };
        let system = store.register_client("kube-apiserver");
        for ns in ["default", "kube-node-lease", "kube-public", "kube-system"] {
            let mut n = Namespace::default();
            n.metadata.name = s(ns);
            n.status.phase = s("Active");
            // Built in: cannot fail on an empty store.
            let _ = store.create(system, Object::Namespace(n), 0);
        }
        store
    }

    /// Starts a server-side dry run ([`crate::client::Api::dry_run`]): until [`Store::end_dry_run`], writes are
    /// admitted and answered but never committed. Returns what the end restores.
    pub(crate) fn begin_dry_run(&mut self) -> (bool, Rng) {
        let saved = (self.dry_run, self.rng.clone());
        self.dry_run = true;
        saved
    }

    /// Ends a dry run: the server's random stream is handed back as it was (uids, generated names, allocated IPs
    /// and ports drawn for the dry run are not taken from the run that follows).
    /// A digest of where the store's random streams stand (see [`crate::sim::Sim::rng_peek`]).
    pub(crate) fn rng_position(&self) -> u64 {
        self.watch_latency.iter().fold(self.rng.position(), |h, r| fnv1a(h, &r.position().to_le_bytes()))
    }

    pub(crate) fn end_dry_run(&mut self, (was, rng): (bool, Rng)) {
        self.dry_run = was;
        self.rng = rng;
    }

    // ---- clients and counters -------------------------------------------------------------------------------

    pub(crate) fn register_client(&mut self, name: &str) -> ClientId {
        self.clients.push(Client { name: s(name), counters: ApiCounters::default() });
        self.clients.len() - 1
    }

    /// Whether faults apply to this client (every component; not the user).
    fn faulted(&self, client: ClientId) -> bool {
        self.clients.get(client).is_some_and(|c| &*c.name != crate::faults::EXEMPT_CLIENT)
    }

    pub fn clients(&self) -> &[Client] {
        &self.clients
    }

    pub fn counters(&self, client: ClientId) -> &ApiCounters {
        &self.clients[client].counters
    }

    /// Counters summed over every client.
    pub fn total_counters(&self) -> ApiCounters {
        let mut t = ApiCounters::default();
        for c in &self.clients {
            t.add(&c.counters);
        }
        t
    }

    fn count(&mut self, client: ClientId) -> &mut ApiCounters {
        &mut self.clients[client].counters
    }

    /// The current (latest) resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.rv
    }

    /// Hash of every write so far (resourceVersion, time, type, kind, key): equal histories hash equal.
    pub(crate) fn history_hash(&self) -> u64 {
        self.history_hash
    }

    #[cfg(test)]
    pub(crate) fn total_writes(&self) -> u64 {
        self.writes
    }

    // ---- uncounted reads: the simulation's omniscient view (tests, UI, drift), not an API call ---------------

    pub fn peek(&self, kind: Kind, key: &ObjKey) -> Option<&Rc<Object>> {
        self.kinds[kind.index()].objects.get(key)
    }

    pub fn objects(&self, kind: Kind) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.kinds[kind.index()].objects.values()
    }

    /// Objects of `kind` in key order, from `from` on (all with `None`), uncounted: for observers that read the
    /// store a part at a time.
    pub(crate) fn objects_from<'a>(
        &'a self,
        kind: Kind,
        from: Option<&ObjKey>,
    ) -> impl Iterator<Item = &'a Rc<Object>> + 'a {
        use std::ops::Bound;
        let lower = from.map_or(Bound::Unbounded, |k| Bound::Included(k.clone()));
        self.kinds[kind.index()].objects.range((lower, Bound::Unbounded)).map(|(_, o)| o)
    }

    /// Whether a watch with `filter` reads an index of the server's (a field selector it indexes: a node's pods, an
    /// object's events) rather than every object of its kind.
    pub(crate) fn indexed(kind: Kind, filter: &WatchFilter) -> bool {
        kind.info().field_index.is_some_and(|f| Index::answers(f, filter))
    }

    /// The pod index's entry of `node` (none when no pod is bound to it).
    fn node_pods(&self, node: &str) -> Option<&index::NodePods> {
        self.kinds[Kind::Pod.index()].index.as_ref().and_then(Index::nodes).and_then(|m| m.get(node))
    }

    /// Pods bound to `node`, in key order (uncounted).
    pub fn pods_on_node<'a>(&'a self, node: &str) -> impl Iterator<Item = &'a Rc<Object>> + 'a {
        let ks = &self.kinds[Kind::Pod.index()];
        self.node_pods(node).into_iter().flat_map(|b| b.keys.iter()).filter_map(|k| ks.objects.get(k))
    }

    /// Each node's kept pod tally against a count of the pods its index holds (every pod with a `spec.nodeName`
    /// is indexed under it): for [`crate::sim::Sim::check_safety`].
    pub(crate) fn check_node_tallies(&self) -> Result<(), String> {
        let ks = &self.kinds[Kind::Pod.index()];
        let mut indexed = 0;
        for (node, e) in ks.index.as_ref().and_then(Index::nodes).into_iter().flatten() {
            let counted = PodTally::of(e.keys.iter().filter_map(|k| ks.objects.get(k)).filter_map(|o| o.as_pod()));
            if counted != e.tally {
                return Err(format!("the store's tally of node {node}'s pods {:?} is not theirs {counted:?}", e.tally));
            }
            indexed += e.keys.len();
        }
        let bound = ks.objects.values().filter_map(|o| o.as_pod()).filter(|p| !p.spec.node_name.is_empty()).count();
        if indexed != bound {
            return Err(format!("{indexed} pods are indexed by node, {bound} are bound"));
        }
        Ok(())
    }

    /// The pods bound to `node` by phase (terminating apart), kept at every write: reading it visits no pod.
    pub fn pod_tally_on_node(&self, node: &str) -> PodTally {
        self.node_pods(node).map_or_else(PodTally::default, |e| e.tally)
    }

    /// Objects a watch with `filter` would see (uncounted).
    pub fn filtered<'a>(
        &'a self,
        kind: Kind,
        filter: &'a WatchFilter,
    ) -> Box<dyn Iterator<Item = &'a Rc<Object>> + 'a> {
        let ks = &self.kinds[kind.index()];
        match ks.index.as_ref().and_then(|ix| ix.keys(filter)) {
            Some(keys) => Box::new(keys.filter_map(|key| ks.objects.get(key))),
            None => Box::new(self.objects(kind).filter(move |o| filter.matches(o))),
        }
    }

    /// Kubernetes Event writes numbered from 0, newest last: `(number of the first kept, events)`. Read the ones
    /// after a number you saw with [`Store::events_since`].
    pub fn event_log(&self) -> (u64, &VecDeque<Rc<Object>>) {
        (self.event_log_total - self.event_log.len() as u64, &self.event_log)
    }

    /// Event writes numbered `seq` and later (as many as are still kept), and the number to ask for next time.
    pub fn events_since(&self, seq: u64) -> (Vec<Rc<Object>>, u64) {
        let first = self.event_log_total - self.event_log.len() as u64;
        let skip = seq.saturating_sub(first) as usize;
        (self.event_log.iter().skip(skip).cloned().collect(), self.event_log_total)
    }

    /// Objects of `kind` the store holds at most.
    pub fn cap(&self, kind: Kind) -> usize {
        self.config.caps[kind.index()]
    }

    /// The pods by phase (terminating apart), kept at every write.
    pub fn pod_tally(&self) -> PodTally {
        self.pods
    }

    pub fn count_of(&self, kind: Kind) -> usize {
        self.kinds[kind.index()].objects.len()
    }

    // ---- reads ----------------------------------------------------------------------------------------------

    pub(crate) fn get(&mut self, client: ClientId, kind: Kind, key: &ObjKey) -> Result<Rc<Object>, ApiError> {
        self.count(client).gets += 1;
        match self.kinds[kind.index()].objects.get(key) {
            Some(o) => Ok(o.clone()),
            None => {
                self.count(client).errors += 1;
                Err(ApiError::NotFound { resource: group_resource(kind), name: key.name.clone() })
            }
        }
    }

    /// LIST: every object of the kind (in `namespace` if given) matching `selector`, and the resourceVersion the
    /// list is consistent with. The API server pages by 500 (the reflector's page size): each page is one call.
    /// Filtering happens server-side but the server still reads everything, as etcd has no label index.
    pub(crate) fn list(
        &mut self,
        client: ClientId,
        kind: Kind,
        namespace: Option<&str>,
        selector: Option<&LabelSelector>,
        filter: &WatchFilter,
    ) -> (Vec<Rc<Object>>, u64) {
        let items: Vec<Rc<Object>> = self
            .filtered(kind, filter)
            .filter(|o| namespace.is_none_or(|ns| &*o.meta().namespace == ns))
            .filter(|o| selector.is_none_or(|sel| sel.matches(&o.meta().labels)))
            .cloned()
            .collect();
        let c = self.count(client);
        c.list_calls += (items.len() as u64).div_ceil(500).max(1);
        c.list_items += items.len() as u64;
        (items, self.rv)
    }

    /// A component's reading of the wall clock in Unix nanoseconds (client-go's recorder names an Event
    /// `<object>.<hex UnixNano>` from it): the simulated millisecond `now`, mapped to the wall-clock epoch
    /// ([`crate::time::EPOCH_UNIX_SECONDS`]), plus a sub-sequence counting the readings within that millisecond,
    /// shared by every component so that no two readings are equal. kubeloop's own: the virtual clock has no
    /// nanoseconds, and this keeps Event names unique and deterministic without drawing from any random
    /// generator. The sequence saturates at 999,999 readings in one millisecond (a later reading repeats).
    pub(crate) fn wall_nanos(&mut self, now: Millis) -> u64 {
        let seq = if self.wall_clock.0 == now { (self.wall_clock.1 + 1).min(999_999) } else { 0 };
        self.wall_clock = (now, seq);
        let ms = (crate::time::EPOCH_UNIX_SECONDS as u64).saturating_mul(1000).saturating_add(now);
        ms.saturating_mul(1_000_000).saturating_add(seq)
    }
}
mod footprint;
mod index;
pub(crate) mod quota;
mod watches;
mod write;

use index::Index;

pub use write::{patch_allocated_values, set_pod_condition, validate_update};

#[cfg(test)]
mod tests;
