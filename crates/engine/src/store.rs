//! The API store: the API server and etcd as one. It is the single source of truth and the single entry point:
//! every read and write of every component goes through it and is counted per client, every write gets a new
//! global resourceVersion and produces exactly one watch event, and an update carrying a stale resourceVersion is
//! refused with 409 Conflict (optimistic concurrency).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::admission;
use crate::api::{
    s, Kind, LabelSelector, Namespace, NamespaceStatus, ObjKey, Object, PodCondition, Str, Time, FINALIZER_KUBERNETES,
};
use crate::faults::Faults;
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
    /// 422 with the validation message.
    Invalid(String),
    /// 400
    BadRequest(String),
    /// 500 injected by a fault.
    Internal(String),
    /// 403 (the "exceeded quota" fault of the backoff lesson).
    Forbidden(String),
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
        }
    }

    pub fn is_conflict(&self) -> bool {
        matches!(self, ApiError::Conflict { .. } | ApiError::ConflictWith { .. })
    }
    pub fn is_not_found(&self) -> bool {
        matches!(self, ApiError::NotFound { .. })
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
            ApiError::Invalid(m) | ApiError::BadRequest(m) | ApiError::Internal(m) | ApiError::Forbidden(m) => {
                f.write_str(&crate::limits::bound_message(m))
            }
        }
    }
}

/// `resource.group` as the API server names a resource in its errors (`deployments.apps`, `pods`).
pub fn group_resource(kind: Kind) -> &'static str {
    match kind {
        Kind::Namespace => "namespaces",
        Kind::Node => "nodes",
        Kind::Pod => "pods",
        Kind::ReplicaSet => "replicasets.apps",
        Kind::Deployment => "deployments.apps",
        Kind::Lease => "leases.coordination.k8s.io",
        Kind::Event => "events",
    }
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
    /// Objects of each kind (by [`Kind::index`]) the store holds at most ([`crate::limits::max_objects`]).
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
            caps: Kind::ALL.map(crate::limits::max_objects),
        }
    }
}

struct HistoryEntry {
    ev: WatchEvent,
    old: Option<Rc<Object>>,
}

#[derive(Default)]
struct KindStore {
    objects: BTreeMap<ObjKey, Rc<Object>>,
    history: VecDeque<HistoryEntry>,
    /// Highest resourceVersion dropped from `history`: a watch must start at or after it.
    compacted: u64,
    watchers: Vec<WatcherId>,
    /// Pod watchers filtered by node name.
    node_watchers: FxHashMap<Str, Vec<WatcherId>>,
    /// Pods by `spec.nodeName` (the field index the API server keeps for the kubelet's field selector).
    by_node: FxHashMap<Str, BTreeSet<ObjKey>>,
    /// Events by their involved object's kind and name (the field index `kubectl describe`'s event search uses).
    by_involved: FxHashMap<(Str, Str), BTreeSet<ObjKey>>,
}

/// Adds or removes `key` under `index` in a field index, dropping empty entries.
fn field_index<K: std::hash::Hash + Eq>(map: &mut FxHashMap<K, BTreeSet<ObjKey>>, index: K, key: &ObjKey, add: bool) {
    if add {
        map.entry(index).or_default().insert(key.clone());
    } else if let Some(b) = map.get_mut(&index) {
        b.remove(key);
        if b.is_empty() {
            map.remove(&index);
        }
    }
}

fn involved(obj: &Object) -> Option<(Str, Str)> {
    obj.as_event().map(|e| (e.body.involved_object.kind.clone(), e.body.involved_object.name.clone()))
}

/// A watch whose reader the simulation must wake (`notify` is the reader's number, e.g. an informer), at `at`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wakeup {
    pub watcher: WatcherId,
    pub notify: usize,
    pub at: Millis,
}

/// A client's registration: its name (as it appears in events and the UI) and its counters.
#[derive(Clone, Debug)]
pub struct Client {
    pub name: Str,
    pub counters: ApiCounters,
}

/// The API server and etcd.
pub struct Store {
    pub config: StoreConfig,
    rv: u64,
    kinds: Vec<KindStore>,
    /// Open watches by id; ids are never reused, so a closed watch's id never names another.
    watchers: FxHashMap<WatcherId, Watcher>,
    next_watcher: WatcherId,
    clients: Vec<Client>,
    rng: Rng,
    /// Watches of simulated components whose buffer went from empty to non-empty, with the time they become due;
    /// the simulation schedules their delivery.
    pub wakeups: Vec<Wakeup>,
    /// Watches of simulated components the server ended (one that fell too far behind); the simulation tells
    /// their readers, which re-watch as a reflector does.
    pub ended: Vec<Wakeup>,
    event_expiry: VecDeque<(Millis, ObjKey)>,
    /// True while [`Store::expire_events`] runs: the removals it commits do not expire again (no recursion, however
    /// many Events expire at once).
    expiring: bool,
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
    /// The delivery latencies of namespace watches, a stream of their own (see `Sim`'s `namespace_rng`).
    pub namespace_watch_rng: Rng,
}

/// Kubernetes Event writes kept for observers.
pub const EVENT_LOG_CAPACITY: usize = 10_000;

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a, for the determinism hash (stable across runs and platforms).
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

impl Store {
    pub fn new(config: StoreConfig, rng: Rng) -> Self {
        let mut store = Store {
            config,
            rv: 0,
            kinds: Kind::ALL.iter().map(|_| KindStore::default()).collect(),
            watchers: FxHashMap::default(),
            next_watcher: 0,
            clients: Vec::new(),
            rng,
            wakeups: Vec::new(),
            ended: Vec::new(),
            event_expiry: VecDeque::new(),
            expiring: false,
            event_log: VecDeque::new(),
            event_log_total: 0,
            wall_clock: (0, 0),
            history_hash: FNV_OFFSET,
            writes: 0,
            faults: Faults::default(),
            namespace_watch_rng: Rng::new(0),
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

    // ---- clients and counters -------------------------------------------------------------------------------

    pub fn register_client(&mut self, name: &str) -> ClientId {
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
    pub fn history_hash(&self) -> u64 {
        self.history_hash
    }

    pub fn total_writes(&self) -> u64 {
        self.writes
    }

    // ---- uncounted reads: the simulation's omniscient view (tests, UI, drift), not an API call ---------------

    pub fn peek(&self, kind: Kind, key: &ObjKey) -> Option<&Rc<Object>> {
        self.kinds[kind.index()].objects.get(key)
    }

    pub fn objects(&self, kind: Kind) -> impl Iterator<Item = &Rc<Object>> + '_ {
        self.kinds[kind.index()].objects.values()
    }

    /// Pods bound to `node`, in key order (uncounted).
    pub fn pods_on_node<'a>(&'a self, node: &str) -> impl Iterator<Item = &'a Rc<Object>> + 'a {
        let ks = &self.kinds[Kind::Pod.index()];
        ks.by_node.get(node).into_iter().flat_map(|b| b.iter()).filter_map(|k| ks.objects.get(k))
    }

    /// Objects a watch with `filter` would see (uncounted).
    pub fn filtered<'a>(
        &'a self,
        kind: Kind,
        filter: &'a WatchFilter,
    ) -> Box<dyn Iterator<Item = &'a Rc<Object>> + 'a> {
        match filter {
            WatchFilter::NodeName(n) if kind == Kind::Pod => Box::new(self.pods_on_node(n)),
            WatchFilter::InvolvedObject(k, n) if kind == Kind::Event => {
                let ks = &self.kinds[Kind::Event.index()];
                let keys = ks.by_involved.get(&(k.clone(), n.clone()));
                Box::new(keys.into_iter().flat_map(|b| b.iter()).filter_map(|key| ks.objects.get(key)))
            }
            _ => Box::new(self.objects(kind).filter(move |o| filter.matches(o))),
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

    pub fn count_of(&self, kind: Kind) -> usize {
        self.kinds[kind.index()].objects.len()
    }

    // ---- reads ----------------------------------------------------------------------------------------------

    pub fn get(&mut self, client: ClientId, kind: Kind, key: &ObjKey) -> Result<Rc<Object>, ApiError> {
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
    pub fn list(
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
    pub fn wall_nanos(&mut self, now: Millis) -> u64 {
        let seq = if self.wall_clock.0 == now { (self.wall_clock.1 + 1).min(999_999) } else { 0 };
        self.wall_clock = (now, seq);
        let ms = (crate::time::EPOCH_UNIX_SECONDS as u64).saturating_mul(1000).saturating_add(now);
        ms.saturating_mul(1_000_000).saturating_add(seq)
    }

    // ---- writes ---------------------------------------------------------------------------------------------

    fn new_uid(&mut self) -> Str {
        let a = self.rng.next_u64();
        let b = self.rng.next_u64();
        s(&format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            ((b >> 48) & 0x3fff) | 0x8000,
            b & 0xffff_ffff_ffff
        ))
    }

    /// Creates `obj`. The server sets uid, resourceVersion, generation and creationTimestamp, and turns
    /// `generateName` into a name with a random 5-character suffix.
    pub fn create(&mut self, client: ClientId, mut obj: Object, now: Millis) -> Result<Rc<Object>, ApiError> {
        let kind = obj.kind();
        let resource = group_resource(kind);
        {
            let m = obj.meta_mut();
            if !kind.namespaced() {
                m.namespace = s("");
            } else if m.namespace.is_empty() {
                m.namespace = s("default");
            }
        }
        // NamespaceLifecycle admission runs before the name is generated: a refused create names its generateName.
        if kind.namespaced() {
            let ns_key = ObjKey::cluster(&obj.meta().namespace);
            match self.kinds[Kind::Namespace.index()].objects.get(&ns_key) {
                None => {
                    return self.fail(client, ApiError::NotFound { resource: "namespaces", name: ns_key.name });
                }
                Some(ns) if ns.as_namespace().is_some_and(|n| &*n.status.phase == "Terminating") => {
                    let m = obj.meta();
                    let name = if m.name.is_empty() { &m.generate_name } else { &m.name };
                    return self.fail(
                        client,
                        ApiError::Forbidden(format!(
                            "{resource} \"{}\" is forbidden: unable to create new content in namespace {} because it is being terminated",
                            crate::limits::echo(name),
                            crate::limits::echo(&ns_key.name)
                        )),
                    );
                }
                Some(_) => {}
            }
        }
        if obj.meta().name.is_empty() {
            if obj.meta().generate_name.is_empty() {
                return self.fail(
                    client,
                    ApiError::Invalid(format!(
                        "{} \"\" is invalid: metadata.name: Required value: name or generateName is required",
                        kind.name()
                    )),
                );
            }
            let mut name;
            loop {
                name = format!("{}{}", obj.meta().generate_name, self.rng.name_suffix(5));
                if !self.kinds[kind.index()].objects.contains_key(&ObjKey::new(&obj.meta().namespace, &name)) {
                    break;
                }
            }
            obj.meta_mut().name = s(&name);
        }
        let key = obj.key();
        if self.kinds[kind.index()].objects.contains_key(&key) {
            return self.fail(client, ApiError::AlreadyExists { resource, name: key.name });
        }
        // kubeloop's envelope, for every client: a controller's surge, a kubelet's registration, a person's create.
        let cap = self.cap(kind);
        if self.kinds[kind.index()].objects.len() >= cap {
            let why = crate::limits::refusal(kind, cap);
            let name = crate::limits::echo(&key.name);
            return self.fail(client, ApiError::Forbidden(format!("{resource} \"{name}\" is forbidden: {why}")));
        }
        // PrepareForCreate: the server owns status (nodes report their own).
        match &mut obj {
            Object::Pod(p) => p.status = Default::default(),
            Object::Deployment(d) => d.status = Default::default(),
            Object::ReplicaSet(r) => r.status = Default::default(),
            // namespaceStrategy.PrepareForCreate: the namespace is Active and carries the `kubernetes` finalizer.
            Object::Namespace(n) => {
                n.status = NamespaceStatus { phase: s("Active"), conditions: Vec::new() };
                if !n.spec.finalizers.iter().any(|f| &**f == FINALIZER_KUBERNETES) {
                    n.spec.finalizers.push(s(FINALIZER_KUBERNETES));
                }
            }
            _ => {}
        }
        admission::default_object_with(&mut obj, self.config.default_toleration_seconds);
        let errs = admission::validate(&obj);
        if !errs.is_empty() {
            return self.fail(client, ApiError::Invalid(admission::invalid_message(&obj, &errs)));
        }
        if kind == Kind::Pod && self.faults.reject_pod_creates && self.faulted(client) {
            let used = self.kinds[kind.index()]
                .objects
                .range(ObjKey::new(&key.namespace, "")..)
                .take_while(|(k, _)| k.namespace == key.namespace)
                .count();
            return self.fail(
                client,
                ApiError::Forbidden(format!(
                    "pods \"{}\" is forbidden: exceeded quota: kubeloop-fault, requested: pods=1, used: pods={used}, limited: pods={used}",
                    key.name
                )),
            );
        }
        let uid = self.new_uid();
        let m = obj.meta_mut();
        m.uid = uid;
        // Only the kinds whose registry strategy sets it have a generation (pods, ReplicaSets, Deployments);
        // a Lease, Node, Namespace or Event has none (e.g. pkg/registry/coordination/lease/strategy.go).
        m.generation = if kind.has_generation() { 1 } else { 0 };
        m.creation_timestamp = Some(Time(now));
        m.deletion_timestamp = None;
        m.deletion_grace_period_seconds = None;
        self.count(client).creates += 1;
        Ok(self.commit(EventType::Added, obj, None, now))
    }

    /// Updates the main resource (`Subresource::Main`: status is kept as stored) or the status
    /// (`Subresource::Status`: only status is taken). A resourceVersion that is set and not current gives 409
    /// Conflict; an update that changes nothing writes nothing and keeps the resourceVersion.
    pub fn update(
        &mut self,
        client: ClientId,
        obj: Object,
        sub: Subresource,
        now: Millis,
    ) -> Result<Rc<Object>, ApiError> {
        let kind = obj.kind();
        let key = obj.key();
        let Some(current) = self.kinds[kind.index()].objects.get(&key).cloned() else {
            return self.fail(client, ApiError::NotFound { resource: group_resource(kind), name: key.name });
        };
        let rv = obj.meta().resource_version;
        let injected = rv != 0
            && self.faults.conflict_fraction > 0.0
            && self.faulted(client)
            && self.rng.chance(self.faults.conflict_fraction);
        if rv != 0 && (rv != current.meta().resource_version || injected) {
            self.count(client).conflicts += 1;
            return self.fail(client, ApiError::Conflict { resource: group_resource(kind), name: key.name });
        }
        let next = match sub {
            Subresource::Status => {
                let mut next = (*current).clone();
                next.take_status_from(&obj);
                next
            }
            Subresource::Finalize => {
                let mut next = (*current).clone();
                take_finalizers(&mut next, &obj);
                next
            }
            Subresource::Main => {
                let mut next = obj;
                if kind.has_status_subresource() {
                    next.take_status_from(&current);
                }
                keep_namespace_finalizers(&current, &mut next);
                self.admit_update(client, &current, &mut next)?;
                let cm = current.meta();
                let m = next.meta_mut();
                m.uid = cm.uid.clone();
                m.creation_timestamp = cm.creation_timestamp;
                m.deletion_timestamp = cm.deletion_timestamp;
                m.deletion_grace_period_seconds = cm.deletion_grace_period_seconds;
                m.generation = cm.generation;
                m.generate_name = cm.generate_name.clone();
                if kind.has_generation() && current.spec_differs(&next) {
                    next.meta_mut().generation += 1;
                }
                next
            }
        };
        self.write_if_changed(client, current, next, now)
    }

    /// Read-modify-write without a precondition, like a PATCH: `f` changes the stored object. Used where upstream
    /// patches (kubelet status, bindings, scale).
    pub fn patch(
        &mut self,
        client: ClientId,
        kind: Kind,
        key: &ObjKey,
        sub: Subresource,
        now: Millis,
        f: impl FnOnce(&mut Object),
    ) -> Result<Rc<Object>, ApiError> {
        let Some(current) = self.kinds[kind.index()].objects.get(key).cloned() else {
            return self.fail(client, ApiError::NotFound { resource: group_resource(kind), name: key.name.clone() });
        };
        let mut next = (*current).clone();
        f(&mut next);
        match sub {
            Subresource::Main => {
                if kind.has_status_subresource() {
                    next.take_status_from(&current);
                }
                keep_namespace_finalizers(&current, &mut next);
                self.admit_update(client, &current, &mut next)?;
                if kind.has_generation() && current.spec_differs(&next) {
                    next.meta_mut().generation += 1;
                }
            }
            Subresource::Status => {
                let mut only_status = (*current).clone();
                only_status.take_status_from(&next);
                next = only_status;
            }
            Subresource::Finalize => {
                let mut only_finalizers = (*current).clone();
                take_finalizers(&mut only_finalizers, &next);
                next = only_finalizers;
            }
        }
        self.write_if_changed(client, current, next, now)
    }

    /// Defaulting and validation of an update of the main resource.
    fn admit_update(&mut self, client: ClientId, current: &Object, next: &mut Object) -> Result<(), ApiError> {
        admission::default_object_with(next, self.config.default_toleration_seconds);
        let errs = admission::validate(next);
        if !errs.is_empty() {
            return self.fail(client, ApiError::Invalid(admission::invalid_message(next, &errs)));
        }
        if let Err(e) = validate_update(current, next) {
            return self.fail(client, e);
        }
        Ok(())
    }

    fn write_if_changed(
        &mut self,
        client: ClientId,
        current: Rc<Object>,
        mut next: Object,
        now: Millis,
    ) -> Result<Rc<Object>, ApiError> {
        next.meta_mut().resource_version = current.meta().resource_version;
        if next == *current {
            return Ok(current);
        }
        self.count(client).updates += 1;
        // The last finalizer is gone: the update becomes the delete (one write, one DELETED event). A namespace
        // also waits for its `spec.finalizers` (ShouldDeleteNamespaceDuringUpdate).
        if next.meta().is_terminating()
            && next.meta().finalizers.is_empty()
            && !is_graceful_pod(&next)
            && next.as_namespace().is_none_or(|n| n.spec.finalizers.is_empty())
        {
            return Ok(self.remove(Rc::new(next), now));
        }
        Ok(self.commit(EventType::Modified, next, Some(current), now))
    }

    /// The pods/binding subresource: assigns an unbound pod to a node and sets PodScheduled=True.
    pub fn bind(
        &mut self,
        client: ClientId,
        pod: &ObjKey,
        uid: &str,
        node: &str,
        now: Millis,
    ) -> Result<Rc<Object>, ApiError> {
        let Some(current) = self.kinds[Kind::Pod.index()].objects.get(pod).cloned() else {
            return self.fail(client, ApiError::NotFound { resource: "pods", name: pod.name.clone() });
        };
        let Some(p) = current.as_pod() else { unreachable!("pods hold pods") };
        if &*p.metadata.uid != uid {
            return self.fail(client, ApiError::Conflict { resource: "pods", name: pod.name.clone() });
        }
        if !p.spec.node_name.is_empty() || p.metadata.is_terminating() {
            let msg = if p.metadata.is_terminating() {
                format!("pod {} is being deleted, cannot be assigned to a host", pod.name)
            } else {
                format!("pod {} is already assigned to node \"{}\"", pod.name, p.spec.node_name)
            };
            self.count(client).conflicts += 1;
            return self.fail(
                client,
                ApiError::ConflictWith { resource: "pods/binding", name: pod.name.clone(), detail: msg },
            );
        }
        let mut next = (*current).clone();
        if let Object::Pod(p) = &mut next {
            Rc::make_mut(&mut p.spec).node_name = s(node);
            set_pod_condition(&mut p.status.conditions, "PodScheduled", "True", "", "", now);
        }
        self.count(client).creates += 1; // a Binding is created
        Ok(self.commit(EventType::Modified, next, Some(current), now))
    }

    /// Deletes an object. Objects with finalizers, and pods bound to a node (the kubelet confirms with a second,
    /// zero-grace delete), are only marked with a deletionTimestamp. Foreground and orphan propagation add the
    /// `foregroundDeletion` / `orphan` finalizer for the garbage collector.
    pub fn delete(
        &mut self,
        client: ClientId,
        kind: Kind,
        key: &ObjKey,
        opts: &DeleteOptions,
        now: Millis,
    ) -> Result<Rc<Object>, ApiError> {
        // NamespaceLifecycle admission: the immortal namespaces are never deleted.
        if kind == Kind::Namespace && IMMORTAL_NAMESPACES.contains(&&*key.name) {
            return self.fail(
                client,
                ApiError::Forbidden(format!(
                    "namespaces \"{}\" is forbidden: this namespace may not be deleted",
                    key.name
                )),
            );
        }
        let Some(current) = self.kinds[kind.index()].objects.get(key).cloned() else {
            return self.fail(client, ApiError::NotFound { resource: group_resource(kind), name: key.name.clone() });
        };
        if let Some(uid) = &opts.preconditions_uid {
            if *uid != current.meta().uid {
                self.count(client).conflicts += 1;
                return self
                    .fail(client, ApiError::Conflict { resource: group_resource(kind), name: key.name.clone() });
            }
        }
        self.count(client).deletes += 1;
        if let Some(ns) = current.as_namespace() {
            // The namespace registry's Delete: the first request only starts termination (deletionTimestamp,
            // phase Terminating); the namespace stays until its `spec.finalizers` are gone (the namespace
            // controller empties it, then finalizes it).
            if !ns.metadata.is_terminating() {
                let mut next = ns.clone();
                next.metadata.deletion_timestamp = Some(Time(now));
                next.metadata.deletion_grace_period_seconds = Some(0);
                next.status.phase = s("Terminating");
                return Ok(self.commit(EventType::Modified, Object::Namespace(next), Some(current), now));
            }
            if !ns.spec.finalizers.is_empty() {
                return Ok(current);
            }
        }
        let mut next = (*current).clone();
        let mut graceful = false;
        if let Object::Pod(p) = &next {
            let grace = opts.grace_period_seconds.or(p.spec.termination_grace_period_seconds).unwrap_or(30).max(0);
            // CheckGracefulDelete: unbound and terminal pods go at once.
            if grace > 0 && !p.spec.node_name.is_empty() && !p.status.phase.is_terminal() {
                // BeforeDelete: an already terminating pod's grace may only be shortened.
                if p.metadata.deletion_grace_period_seconds.is_some_and(|current_grace| grace >= current_grace) {
                    return Ok(current);
                }
                let m = next.meta_mut();
                m.deletion_timestamp = Some(Time(now.saturating_add(crate::time::seconds(grace))));
                m.deletion_grace_period_seconds = Some(grace);
                graceful = true;
            }
        }
        let m = next.meta_mut();
        match opts.propagation {
            Some(Propagation::Foreground) if !m.finalizers.iter().any(|f| &**f == "foregroundDeletion") => {
                m.finalizers.push(s("foregroundDeletion"));
            }
            Some(Propagation::Orphan) if !m.finalizers.iter().any(|f| &**f == "orphan") => {
                m.finalizers.push(s("orphan"));
            }
            _ => {}
        }
        if graceful || !m.finalizers.is_empty() {
            if m.deletion_timestamp.is_none() {
                m.deletion_timestamp = Some(Time(now));
                m.deletion_grace_period_seconds = Some(0);
            }
            if next == *current {
                return Ok(current);
            }
            return Ok(self.commit(EventType::Modified, next, Some(current), now));
        }
        Ok(self.remove(current, now))
    }

    /// DELETECOLLECTION in one namespace: every object of `kind` in `namespace` is deleted as [`Store::delete`]
    /// would delete it (graceful pods are only marked; finalizers are respected). One request; the first error,
    /// if any, after trying them all.
    pub fn delete_collection(
        &mut self,
        client: ClientId,
        kind: Kind,
        namespace: &str,
        opts: &DeleteOptions,
        now: Millis,
    ) -> Result<usize, ApiError> {
        let keys: Vec<ObjKey> = self.kinds[kind.index()]
            .objects
            .range(ObjKey::new(namespace, "")..)
            .take_while(|(k, _)| &*k.namespace == namespace)
            .map(|(k, _)| k.clone())
            .collect();
        let mut first_error = None;
        for key in &keys {
            match self.delete(client, kind, key, opts, now) {
                Ok(_) => {}
                Err(e) if e.is_not_found() => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(keys.len()),
        }
    }

    fn remove(&mut self, obj: Rc<Object>, now: Millis) -> Rc<Object> {
        let mut last = (*obj).clone();
        if last.meta().deletion_timestamp.is_none() {
            last.meta_mut().deletion_timestamp = Some(Time(now));
        }
        self.commit(EventType::Deleted, last, Some(obj), now)
    }

    fn fail<T>(&mut self, client: ClientId, e: ApiError) -> Result<T, ApiError> {
        self.count(client).errors += 1;
        Err(e)
    }

    /// Assigns the next resourceVersion, stores (or removes) the object, records history and fans the event out to
    /// the watchers that match it.
    fn commit(&mut self, type_: EventType, mut obj: Object, old: Option<Rc<Object>>, now: Millis) -> Rc<Object> {
        self.rv += 1;
        self.writes += 1;
        obj.meta_mut().resource_version = self.rv;
        let kind = obj.kind();
        let key = obj.key();
        let obj = Rc::new(obj);
        let ks = &mut self.kinds[kind.index()];
        // A watch event carries (old, new): the old must be what the store held, so that every client sees one
        // consistent sequence of versions.
        debug_assert!(
            old.as_ref().is_none_or(|o| o.meta().resource_version < self.rv),
            "commit of {kind} {key}: the new resourceVersion is not after the old one"
        );
        debug_assert_eq!(
            ks.objects.get(&key).map(|o| o.meta().resource_version),
            old.as_ref().map(|o| o.meta().resource_version),
            "commit of {kind} {key}: the old object is not the stored one"
        );
        if type_ == EventType::Deleted {
            ks.objects.remove(&key);
        } else {
            ks.objects.insert(key.clone(), obj.clone());
        }
        if kind == Kind::Pod {
            if let Some(n) = old.as_ref().and_then(|o| o.as_pod()).map(|p| p.spec.node_name.clone()) {
                field_index(&mut ks.by_node, n, &key, false);
            }
            if let Some(p) = obj.as_pod().filter(|_| type_ != EventType::Deleted) {
                if !p.spec.node_name.is_empty() {
                    field_index(&mut ks.by_node, p.spec.node_name.clone(), &key, true);
                }
            }
        }
        if kind == Kind::Event {
            if let Some(i) = old.as_deref().and_then(involved) {
                field_index(&mut ks.by_involved, i, &key, false);
            }
            if let Some(i) = involved(&obj).filter(|_| type_ != EventType::Deleted) {
                field_index(&mut ks.by_involved, i, &key, true);
            }
        }
        let mut h = self.history_hash;
        h = fnv1a(h, &self.rv.to_le_bytes());
        h = fnv1a(h, &now.to_le_bytes());
        h = fnv1a(h, type_.as_str().as_bytes());
        h = fnv1a(h, kind.name().as_bytes());
        h = fnv1a(h, key.namespace.as_bytes());
        h = fnv1a(h, key.name.as_bytes());
        self.history_hash = h;

        let ev = WatchEvent { type_, object: obj.clone(), rv: self.rv, at: now };
        // Fan out: watchers of the whole kind, and for pods the watchers of the old and new node.
        let mut targets: Vec<WatcherId> = ks.watchers.clone();
        if kind == Kind::Pod && !ks.node_watchers.is_empty() {
            let new_node = obj.as_pod().map(|p| p.spec.node_name.clone());
            let old_node = old.as_ref().and_then(|o| o.as_pod()).map(|p| p.spec.node_name.clone());
            for n in [new_node, old_node.filter(|o| Some(o) != obj.as_pod().map(|p| &p.spec.node_name))]
                .into_iter()
                .flatten()
            {
                if let Some(ws) = ks.node_watchers.get(&n) {
                    targets.extend_from_slice(ws);
                }
            }
        }
        debug_assert!(
            {
                let mut t = targets.clone();
                t.sort_unstable();
                t.dedup();
                t.len() == targets.len()
            },
            "commit of {kind} {key}: a watcher would get the event twice"
        );
        let mut overflowing = Vec::new();
        for id in targets {
            if let Some(w) = self.watchers.get_mut(&id) {
                if let Some(e) = w.filter.translate(&ev, old.as_deref()) {
                    if w.buffer.is_empty() {
                        if let Some(notify) = w.notify {
                            self.wakeups.push(Wakeup { watcher: id, notify, at: now + w.latency });
                        }
                    }
                    w.buffer.push_back(e);
                    if w.buffer.len() > self.config.watch_buffer_max {
                        overflowing.push(id);
                    }
                }
            }
        }
        // The watch cache ends a watcher that has fallen too far behind (its buffer is full); its reader re-watches
        // from the last resourceVersion it saw (or relists on 410).
        for id in overflowing {
            let notify = self.watchers.get(&id).and_then(|w| w.notify);
            self.stop_watch(id);
            if let Some(notify) = notify {
                self.ended.push(Wakeup { watcher: id, notify, at: now });
            }
        }
        let ks = &mut self.kinds[kind.index()];
        ks.history.push_back(HistoryEntry { ev, old });
        while ks.history.len() > self.config.watch_history_max
            || (ks.history.len() > self.config.watch_history_min
                && ks.history.front().is_some_and(|e| self.config.past_window(e.ev.at, now)))
        {
            if let Some(e) = ks.history.pop_front() {
                ks.compacted = e.ev.rv;
            }
        }
        if kind == Kind::Event && type_ != EventType::Deleted {
            self.event_expiry.push_back((now + self.config.event_ttl, key));
            if self.event_log.len() >= EVENT_LOG_CAPACITY {
                self.event_log.pop_front();
            }
            self.event_log.push_back(obj.clone());
            self.event_log_total += 1;
        }
        self.expire_events(now);
        obj
    }

    /// Deletes Event objects whose TTL has passed (etcd leases do this for the real API server).
    fn expire_events(&mut self, now: Millis) {
        if self.expiring {
            return;
        }
        self.expiring = true;
        self.expire_due_events(now);
        self.expiring = false;
    }

    fn expire_due_events(&mut self, now: Millis) {
        while let Some((at, key)) = self.event_expiry.front().cloned() {
            if at > now {
                break;
            }
            self.event_expiry.pop_front();
            let Some(ev) = self.kinds[Kind::Event.index()].objects.get(&key).cloned() else { continue };
            let last_write = ev.as_event().and_then(|e| e.body.last_timestamp).map(|t| t.0).unwrap_or(0);
            if last_write + self.config.event_ttl <= now {
                self.remove(ev, now);
            }
        }
    }

    // ---- watch ----------------------------------------------------------------------------------------------

    /// The resourceVersion of the last change of `kind` at or before `at`, as far as the watch cache remembers
    /// (what a bookmark sent then would have carried, for that kind's watch cache).
    pub fn kind_resource_version_at(&self, kind: Kind, at: Millis) -> u64 {
        let ks = &self.kinds[kind.index()];
        let newer = ks.history.partition_point(|h| h.ev.at <= at);
        match newer {
            0 => ks.compacted,
            n => ks.history[n - 1].ev.rv,
        }
    }

    /// Opens a watch of `kind` from `from_rv`: every later change, in order. A start older than the history the
    /// server keeps is refused with 410 Gone; the client must relist.
    ///
    /// This is a reader that polls ([`Store::drain_watch`]): a person's `kubectl get -w`. Its delivery latency is
    /// drawn from a stream of its own, so opening it changes nothing in the simulation's future.
    pub fn watch(
        &mut self,
        client: ClientId,
        kind: Kind,
        from_rv: u64,
        filter: WatchFilter,
    ) -> Result<WatcherId, ApiError> {
        self.open_watch(client, kind, from_rv, filter, None)
    }

    /// Opens a watch for a simulated component: the simulation is woken (with `notify`) when events become due.
    pub fn watch_notify(
        &mut self,
        client: ClientId,
        kind: Kind,
        from_rv: u64,
        filter: WatchFilter,
        notify: usize,
    ) -> Result<WatcherId, ApiError> {
        self.open_watch(client, kind, from_rv, filter, Some(notify))
    }

    fn open_watch(
        &mut self,
        client: ClientId,
        kind: Kind,
        from_rv: u64,
        filter: WatchFilter,
        notify: Option<usize>,
    ) -> Result<WatcherId, ApiError> {
        let ks = &self.kinds[kind.index()];
        if from_rv < ks.compacted {
            // watch_cache.go: "too old resource version: %d (%d)" with the oldest servable version minus one.
            let oldest = ks.history.front().map_or(self.rv + 1, |h| h.ev.rv);
            return self.fail(client, ApiError::Gone { requested: from_rv, oldest: oldest - 1 });
        }
        let (lo, hi) = self.config.watch_latency;
        let latency = match notify {
            Some(_) if kind == Kind::Namespace => self.namespace_watch_rng.range(lo, hi),
            Some(_) => self.rng.range(lo, hi),
            // An observer's watch must not draw from the simulation's stream: the shortest latency.
            None => lo,
        };
        let mut w = Watcher { kind, filter: filter.clone(), client, latency, notify, buffer: VecDeque::new() };
        // Replay from the watch cache, in order (the history is bounded, and so is the buffer).
        let start = ks.history.partition_point(|h| h.ev.rv <= from_rv);
        for h in ks.history.range(start..) {
            if let Some(e) = w.filter.translate(&h.ev, h.old.as_deref()) {
                w.buffer.push_back(e);
            }
        }
        let id = self.next_watcher;
        self.next_watcher += 1;
        if let (Some(due), Some(notify)) = (w.next_due(), notify) {
            self.wakeups.push(Wakeup { watcher: id, notify, at: due });
        }
        self.watchers.insert(id, w);
        let ks = &mut self.kinds[kind.index()];
        match filter {
            WatchFilter::All | WatchFilter::InvolvedObject(..) => ks.watchers.push(id),
            WatchFilter::NodeName(n) => ks.node_watchers.entry(n).or_default().push(id),
        }
        self.count(client).watches_opened += 1;
        Ok(id)
    }

    /// Closes a watch; undelivered events are lost.
    pub fn stop_watch(&mut self, id: WatcherId) {
        let Some(w) = self.watchers.remove(&id) else { return };
        let ks = &mut self.kinds[w.kind.index()];
        match &w.filter {
            WatchFilter::All | WatchFilter::InvolvedObject(..) => ks.watchers.retain(|x| *x != id),
            WatchFilter::NodeName(n) => {
                if let Some(v) = ks.node_watchers.get_mut(n) {
                    v.retain(|x| *x != id);
                    if v.is_empty() {
                        ks.node_watchers.remove(n);
                    }
                }
            }
        }
    }

    /// Delivers the events of watcher `id` that are due at `now` (counted as served), and when the next ones are.
    pub fn drain_watch(&mut self, id: WatcherId, now: Millis) -> (Vec<WatchEvent>, Option<Millis>) {
        let Some(w) = self.watchers.get_mut(&id) else { return (Vec::new(), None) };
        let evs = w.take_due(now);
        let next = w.next_due();
        let client = w.client;
        self.count(client).watch_events += evs.len() as u64;
        (evs, next)
    }

    pub fn watcher(&self, id: WatcherId) -> Option<&Watcher> {
        self.watchers.get(&id)
    }

    pub fn open_watchers(&self) -> usize {
        self.watchers.len()
    }

    /// Events buffered in open watches, not yet delivered.
    pub fn buffered_watch_events(&self) -> usize {
        self.watchers.values().map(|w| w.buffer.len()).sum()
    }

    /// Entries of the watch cache (history kept per kind for watches that start in the past).
    pub fn history_len(&self) -> usize {
        self.kinds.iter().map(|k| k.history.len()).sum()
    }

    /// Watch cache versions a kind still keeps although they are older than the window as of that kind's last
    /// write, beyond the minimum it always keeps: always 0 (the soak judge holds the watch cache to this, since
    /// its size follows the write rate of the last window, not time).
    pub fn history_beyond_window(&self) -> usize {
        self.kinds
            .iter()
            .map(|k| {
                let Some(newest) = k.history.back().map(|h| h.ev.at) else { return 0 };
                let old = k.history.iter().take_while(|h| self.config.past_window(h.ev.at, newest)).count();
                old.min(k.history.len().saturating_sub(self.config.watch_history_min))
            })
            .sum()
    }

    /// The most versions the watch cache keeps, over every kind (its capacity).
    pub fn history_capacity(&self) -> usize {
        self.kinds.len() * self.config.watch_history_max
    }

    /// Pending Event expirations (one per Event write within the TTL).
    pub fn expiry_len(&self) -> usize {
        self.event_expiry.len()
    }
}

fn is_graceful_pod(obj: &Object) -> bool {
    obj.as_pod().is_some_and(|p| {
        p.metadata.deletion_grace_period_seconds.unwrap_or(0) > 0
            && !p.spec.node_name.is_empty()
            && !p.status.phase.is_terminal()
    })
}

/// A Main update of a namespace keeps its `spec.finalizers` (namespaceStrategy.PrepareForUpdate): only the
/// `finalize` subresource changes them.
fn keep_namespace_finalizers(current: &Object, next: &mut Object) {
    if let (Object::Namespace(c), Object::Namespace(n)) = (current, next) {
        n.spec.finalizers = c.spec.finalizers.clone();
    }
}

/// The `finalize` subresource: `spec.finalizers` from `from`, nothing else.
fn take_finalizers(next: &mut Object, from: &Object) {
    if let (Object::Namespace(n), Object::Namespace(f)) = (next, from) {
        n.spec.finalizers = f.spec.finalizers.clone();
    }
}

/// Sets (or adds) a pod condition, moving lastTransitionTime only when the status changes.
pub fn set_pod_condition(
    conds: &mut Vec<PodCondition>,
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    now: Millis,
) {
    if let Some(c) = conds.iter_mut().find(|c| &*c.type_ == type_) {
        if &*c.status != status {
            c.status = s(status);
            c.last_transition_time = Some(Time(now));
        }
        c.reason = s(reason);
        c.message = s(message);
    } else {
        conds.push(PodCondition {
            type_: s(type_),
            status: s(status),
            last_transition_time: Some(Time(now)),
            reason: s(reason),
            message: s(message),
        });
    }
}

/// Validation the API server applies to updates: immutable fields.
pub fn validate_update(current: &Object, next: &Object) -> Result<(), ApiError> {
    let immutable = |what: &str, field: &str| {
        Err(ApiError::Invalid(format!(
            "{what} \"{}\" is invalid: {field}: Invalid value: field is immutable",
            current.meta().name
        )))
    };
    match (current, next) {
        (Object::Deployment(a), Object::Deployment(b)) if a.spec.selector != b.spec.selector => {
            immutable("Deployment.apps", "spec.selector")
        }
        (Object::ReplicaSet(a), Object::ReplicaSet(b)) if a.spec.selector != b.spec.selector => {
            immutable("ReplicaSet.apps", "spec.selector")
        }
        (Object::Pod(a), Object::Pod(b)) => {
            // ValidatePodUpdate: only images and added tolerations may change (and nodeName via binding only).
            let mut a2 = (*a.spec).clone();
            let mut b2 = (*b.spec).clone();
            for c in a2.containers.iter_mut().chain(b2.containers.iter_mut()) {
                c.image = s("");
            }
            let added_tolerations = b.spec.tolerations.len() >= a.spec.tolerations.len()
                && a.spec.tolerations.iter().all(|t| b.spec.tolerations.contains(t));
            a2.tolerations.clear();
            b2.tolerations.clear();
            if a2 != b2 || !added_tolerations || a.spec.containers.len() != b.spec.containers.len() {
                return Err(ApiError::Invalid(format!(
                    "Pod \"{}\" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds`, `spec.tolerations` (only additions to existing tolerations), `spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
                    a.metadata.name
                )));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
