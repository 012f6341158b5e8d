//! The simulation: one virtual clock, one seeded generator, one queue of timed events, and the components it
//! drives (API store, kube-controller-manager and kube-scheduler hosts, one kubelet per node). Events run in
//! order of time, then of scheduling; nothing else decides the order, so a seed and a list of inputs replay the
//! same history exactly.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::api::{Kind, ObjKey, Object, PodPhase, Str};
use crate::client::Api;
use crate::controller::{
    Caches, Controller, Ctx, Host, Origin, ReconcileAction, ReconcileLog, ReconcileRecord, RecordOutcome, TriggerMode,
};
use crate::controllers::garbagecollector::GarbageCollector;
use crate::controllers::namespace::NamespaceController;
use crate::controllers::nodelifecycle::{NodeLifecycleConfig, NodeLifecycleController};
use crate::controllers::tainteviction::TaintEvictionController;
use crate::controllers::{deployment::DeploymentController, replicaset::ReplicaSetController, scheduler::Scheduler};
use crate::informer::{Informer, InformerEvent, InformerId, ReflectorState};
use crate::kubelet::{Kubelet, NodeConfig, PodStep, RuntimeConfig};
use crate::leaderelection::{LeaderElectionConfig, LeaderElector, Transition};
use crate::recorder::EventKind;
use crate::rng::Rng;
use crate::store::{fnv1a, ApiError, ClientId, DeleteOptions, Store, StoreConfig};
use crate::time::{Millis, HOUR};
use crate::watch::{WatchFilter, WatcherId};

pub use crate::limits::{MAX_NODES, MAX_PODS};

/// Everything that can be tuned; defaults are upstream's.
#[derive(Clone, Debug)]
pub struct SimConfig {
    pub seed: u64,
    pub store: StoreConfig,
    /// `--concurrent-deployment-syncs`, `--concurrent-replicaset-syncs` (5 each).
    pub deployment_workers: usize,
    pub replicaset_workers: usize,
    /// Resync period of the controller manager's informers. `None`: upstream's, a seeded value in [12 h, 24 h)
    /// (`--min-resync-period` 12 h, jittered x1..2). `Some(0)`: off.
    pub resync_period: Option<Millis>,
    /// CPU time of one reconcile on top of its API round trips.
    pub reconcile_cost: Millis,
    pub runtime: RuntimeConfig,
    /// Shape of nodes added without one.
    pub node_template: NodeConfig,
    /// The node lifecycle controller's flags (grace periods, eviction rates).
    pub node_lifecycle: NodeLifecycleConfig,
    /// The controller manager replicas' leader election.
    pub leader_election: LeaderElectionConfig,
    /// kubeloop's own repair knob, not upstream's: every informer relists this often (0, the default = never on
    /// a timer, as client-go's reflector: it LISTs once, re-WATCHes when the server ends a watch, and LISTs again
    /// only after an error such as 410 Gone). A real watch loses nothing, so upstream needs no such period; here
    /// a fault can drop watch events, and a periodic relist is one way to let a level-triggered controller see
    /// the truth again.
    pub relist_period: Millis,
    /// How controllers observe the store.
    pub observe: ObserveMode,
}

/// How controllers observe the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "mode")]
pub enum ObserveMode {
    /// Shared informers: one LIST, then a WATCH of changes into a cache (upstream).
    #[default]
    Informer,
    /// Naive polling: every controller LISTs every object of its kinds every `period` and diffs with what it saw
    /// last time. No watch.
    Polling { period: Millis },
}

/// The timings of node failure handling: upstream's, or a shorter explicit demo choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimingProfile {
    /// node-monitor-grace-period 50 s, eviction 300 s after the taint (upstream defaults).
    #[default]
    Real,
    /// A dead node is noticed after 20 s and its pods evicted 30 s after the taint.
    FastDemo,
}

impl TimingProfile {
    pub fn as_str(self) -> &'static str {
        match self {
            TimingProfile::Real => "real",
            TimingProfile::FastDemo => "fast-demo",
        }
    }

    /// The profile [`TimingProfile::as_str`] names.
    pub fn parse(name: &str) -> Option<TimingProfile> {
        [TimingProfile::Real, TimingProfile::FastDemo].into_iter().find(|p| p.as_str() == name.trim())
    }

    /// The configuration with this profile's node lifecycle and toleration timings.
    pub fn apply(self, mut config: SimConfig) -> SimConfig {
        match self {
            TimingProfile::Real => {
                config.node_lifecycle = NodeLifecycleConfig::default();
                config.store.default_toleration_seconds = crate::admission::DEFAULT_TOLERATION_SECONDS;
            }
            TimingProfile::FastDemo => {
                config.node_lifecycle = NodeLifecycleConfig::fast_demo();
                config.store.default_toleration_seconds = FAST_DEMO_TOLERATION_SECONDS;
            }
        }
        config
    }
}

/// The fast demo's DefaultTolerationSeconds.
pub const FAST_DEMO_TOLERATION_SECONDS: i64 = 30;

/// The default polling period of [`ObserveMode::Polling`].
pub const DEFAULT_POLL_PERIOD: Millis = 5 * crate::time::SECOND;
/// The default relist period: none (upstream's reflector relists only after an error).
pub const DEFAULT_RELIST_PERIOD: Millis = 0;
/// A period for kubeloop's relist repair knob when it is switched on (the lessons' and the page's suggestion).
pub const REPAIR_RELIST_PERIOD: Millis = 5 * crate::time::MINUTE;
/// client-go's reflector `minWatchTimeout`: each WATCH asks the server to end it after a timeout drawn from
/// [5 min, 10 min), then the reflector re-WATCHes from the last resourceVersion it saw (no LIST).
pub const MIN_WATCH_TIMEOUT: Millis = 5 * crate::time::MINUTE;
/// The API server's bookmark frequency (the watch cache's `defaultBookmarkFrequency`): a watcher that has
/// caught up is sent the current resourceVersion about once a minute, and just before its timeout.
pub const BOOKMARK_FREQUENCY: Millis = crate::time::MINUTE;

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            seed: 1,
            store: StoreConfig::default(),
            deployment_workers: 5,
            replicaset_workers: 5,
            resync_period: None,
            reconcile_cost: 1,
            runtime: RuntimeConfig::default(),
            node_template: NodeConfig::default(),
            node_lifecycle: NodeLifecycleConfig::default(),
            leader_election: LeaderElectionConfig::default(),
            relist_period: DEFAULT_RELIST_PERIOD,
            observe: ObserveMode::Informer,
        }
    }
}

/// A control-plane process (a host of controllers): only the Sim makes them, so a host id always names one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostId(usize);

impl HostId {
    /// Its position among the hosts (for a view's ordering or a bit mask).
    pub const fn index(self) -> usize {
        self.0
    }
}

/// kube-controller-manager (cp-1).
pub const CONTROLLER_MANAGER: HostId = HostId(0);
/// kube-scheduler.
pub const SCHEDULER: HostId = HostId(1);
/// The second kube-controller-manager replica (standby until it wins the election).
pub const CONTROLLER_MANAGER_2: HostId = HostId(2);
/// The controller manager replicas' identities (`--leader-elect` holder identities).
pub const CONTROLLER_MANAGER_IDS: [&str; 2] = ["cp-1", "cp-2"];

/// Who owns an informer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    Host(usize),
    Kubelet(usize),
}

#[derive(Clone, Debug)]
enum Ev {
    WatchDrain {
        watcher: WatcherId,
        informer: InformerId,
    },
    InformerList {
        informer: InformerId,
        epoch: u64,
    },
    InformerResync {
        informer: InformerId,
        epoch: u64,
        token: u64,
    },
    QueueWake {
        host: usize,
        ctrl: usize,
        epoch: u64,
    },
    WorkerDone {
        host: usize,
        ctrl: usize,
        worker: usize,
        epoch: u64,
    },
    KubeletTick {
        node: usize,
        epoch: u64,
    },
    KubeletPod {
        node: usize,
        epoch: u64,
        key: ObjKey,
        uid: Str,
        step: PodStep,
    },
    LeaderTick {
        host: usize,
        epoch: u64,
    },
    InformerRelist {
        informer: InformerId,
        epoch: u64,
        token: u64,
    },
    /// The server ends an informer's watch at the timeout the reflector asked for.
    WatchTimeout {
        informer: InformerId,
        watcher: WatcherId,
    },
}

impl Ev {
    fn tag(&self) -> u8 {
        match self {
            Ev::WatchDrain { .. } => 1,
            Ev::InformerList { .. } => 2,
            Ev::InformerResync { .. } => 3,
            Ev::QueueWake { .. } => 4,
            Ev::WorkerDone { .. } => 5,
            Ev::KubeletTick { .. } => 6,
            Ev::KubeletPod { .. } => 7,
            Ev::LeaderTick { .. } => 8,
            Ev::InformerRelist { .. } => 9,
            Ev::WatchTimeout { .. } => 10,
        }
    }
}

struct Scheduled {
    at: Millis,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Scheduled {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scheduled {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// Why a node operation was refused; kubectl and the page format it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeError {
    NotFound(String),
    AlreadyExists(String),
    /// kubeloop's own envelope: at most [`MAX_NODES`] nodes.
    AtCapacity,
}

impl std::fmt::Display for NodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NodeError::NotFound(n) => write!(f, "node \"{n}\" not found"),
            NodeError::AlreadyExists(n) => write!(f, "node \"{n}\" already exists"),
            NodeError::AtCapacity => write!(f, "cannot add a node: kubeloop simulates at most {MAX_NODES} nodes"),
        }
    }
}

impl std::error::Error for NodeError {}

impl From<NodeError> for String {
    fn from(e: NodeError) -> String {
        e.to_string()
    }
}

/// The simulated cluster.
pub struct Sim {
    pub config: SimConfig,
    now: Millis,
    seq: u64,
    events: BinaryHeap<Reverse<Scheduled>>,
    pub rng: Rng,
    /// Randomness on the person's side (kubectl's own name suffixes, the latency of the user's requests): never
    /// the simulation's stream, so what a person reads cannot change what the cluster does.
    pub user_rng: Rng,
    /// The reflectors' watch timeouts, a stream of their own (from the same seed), so that modelling them
    /// leaves every other draw where it was.
    watch_rng: Rng,
    /// Every draw made for the controller managers' namespace informers (list delays, watch timeouts, backoffs,
    /// dropped events), a stream of its own: the namespace controller came after the others, and adding it left
    /// every other draw, and so every earlier history, where it was.
    namespace_rng: Rng,
    pub store: Store,
    pub informers: Vec<Informer>,
    informer_owner: Vec<Owner>,
    pub hosts: Vec<Host>,
    pub kubelets: Vec<Kubelet>,
    kubelet_by_name: FxHashMap<Str, usize>,
    /// The client of people: kubectl, the page, scenario actions.
    pub user: ClientId,
    pub log: ReconcileLog,
    /// The watch-drop fault, applied to every informer including those created later.
    watch_drop: f64,
    events_processed: u64,
    /// The event heap is compacted (timers that can no longer fire dropped) when it grows past this.
    compact_at: usize,
    hash: u64,
}

/// Salt of the user's random stream (`kubectl` in ASCII).
const USER_STREAM: u64 = 0x6b75_6265_6374_6c00;
/// Salt of the watch timeouts' stream (`timeout` in ASCII).
const WATCH_STREAM: u64 = 0x0074_696d_656f_7574;
/// Salt of the namespace informers' stream (`nsinform` in ASCII).
const NAMESPACE_STREAM: u64 = 0x6e73_696e_666f_726d;
/// Salt of the namespace watches' latencies, drawn by the store (`nswatch` in ASCII).
const NAMESPACE_WATCH_STREAM: u64 = 0x006e_7377_6174_6368;

/// The event heap is never compacted below this many entries.
const COMPACT_MIN: usize = 4096;

impl Sim {
    pub fn new(config: SimConfig) -> Self {
        let mut rng = Rng::new(config.seed);
        let user_rng = Rng::new(config.seed ^ USER_STREAM);
        let watch_rng = Rng::new(config.seed ^ WATCH_STREAM);
        let namespace_rng = Rng::new(config.seed ^ NAMESPACE_STREAM);
        let mut store = Store::new(config.store.clone(), rng.fork());
        store.namespace_watch_rng = Rng::new(config.seed ^ NAMESPACE_WATCH_STREAM);
        let mut sim = Sim {
            now: 0,
            seq: 0,
            events: BinaryHeap::new(),
            rng,
            user_rng,
            watch_rng,
            namespace_rng,
            store,
            informers: Vec::new(),
            informer_owner: Vec::new(),
            hosts: Vec::new(),
            kubelets: Vec::new(),
            kubelet_by_name: FxHashMap::default(),
            user: 0,
            log: ReconcileLog::new(crate::controller::RECONCILE_LOG_CAPACITY),
            watch_drop: 0.0,
            events_processed: 0,
            compact_at: COMPACT_MIN,
            hash: 0xcbf2_9ce4_8422_2325,
            config,
        };
        sim.user = sim.store.register_client("kubectl");
        let resync = match sim.config.resync_period {
            Some(p) => p,
            None => sim.rng.range(12 * HOUR, 24 * HOUR - 1),
        };
        let cm = sim.controller_manager_controllers();
        let elector = sim.controller_manager_elector(0);
        sim.add_host_with("kube-controller-manager", cm, resync, Some(elector));
        let elector = sim.scheduler_elector();
        sim.add_host_with("kube-scheduler", vec![Controller::new(Box::new(Scheduler::new()))], 0, Some(elector));
        let cm = sim.controller_manager_controllers();
        let elector = sim.controller_manager_elector(1);
        sim.add_host_with("kube-controller-manager", cm, resync, Some(elector));
        sim
    }

    /// Starts a process hosting `controllers` with shared informers of the kinds they watch (resync period
    /// `resync`, 0 = off). The controller manager and the scheduler are hosts; tests add their own.
    pub fn add_host(&mut self, name: &str, controllers: Vec<Controller>, resync: Millis) -> HostId {
        self.add_host_with(name, controllers, resync, None)
    }

    /// The controllers of kube-controller-manager.
    fn controller_manager_controllers(&self) -> Vec<Controller> {
        vec![
            Controller::new(Box::new(DeploymentController::new(self.config.deployment_workers))),
            Controller::new(Box::new(ReplicaSetController::new(self.config.replicaset_workers))),
            Controller::new(Box::new(NodeLifecycleController::new(self.config.node_lifecycle.clone()))),
            Controller::new(Box::new(TaintEvictionController::new())),
            Controller::new(Box::new(GarbageCollector::new())),
            Controller::new(Box::new(NamespaceController::new())),
        ]
    }

    fn controller_manager_elector(&self, replica: usize) -> LeaderElector {
        let id = CONTROLLER_MANAGER_IDS[replica];
        LeaderElector::new("kube-controller-manager", id, self.config.leader_election.clone())
    }

    /// kube-scheduler's elector (`--leader-elect`, on by default): one replica, on cp-1, holding the Lease
    /// `kube-system/kube-scheduler` with the same 15 s / 10 s / 2 s as the controller manager. It schedules only
    /// while it holds the lease, and after a crash must acquire it again before scheduling (its identity stays cp-1, so it takes its own old
    /// record back at once; upstream's identity is new per process and waits for the old lease to expire).
    fn scheduler_elector(&self) -> LeaderElector {
        LeaderElector::new("kube-scheduler", CONTROLLER_MANAGER_IDS[0], self.config.leader_election.clone())
    }

    /// A host that, with an elector, waits to win the election before starting its informers.
    pub fn add_host_with(
        &mut self,
        name: &str,
        controllers: Vec<Controller>,
        resync: Millis,
        elector: Option<LeaderElector>,
    ) -> HostId {
        let index = self.hosts.len();
        let client_name = match &elector {
            Some(e) => format!("{name}/{}", e.identity),
            None => name.to_string(),
        };
        let client = self.store.register_client(&client_name);
        let mut ids = [None; 7];
        for c in &controllers {
            for k in c.reconciler.watches() {
                if ids[k.index()].is_none() {
                    let mut inf = Informer::new(*k, WatchFilter::All, client, index, true);
                    inf.resync_period = resync;
                    ids[k.index()] = Some(self.push_informer(inf, Owner::Host(index)));
                }
            }
        }
        let host_name = elector.as_ref().map_or_else(|| name.to_string(), |e| e.identity.to_string());
        let recorder = crate::recorder::Recorder::new(name, &host_name);
        let elects = elector.is_some();
        self.hosts.push(Host {
            name: client_name.as_str().into(),
            client,
            informers: ids,
            controllers,
            running: true,
            epoch: 0,
            elector,
            recorder,
        });
        if elects {
            self.leader_tick(index);
        } else {
            self.start_host_informers(index);
        }
        HostId(index)
    }

    /// One leader-election attempt of host `h`, and the next one scheduled.
    fn leader_tick(&mut self, h: usize) {
        let now = self.now;
        let transition = {
            let Sim { hosts, store, rng, .. } = self;
            let host = &mut hosts[h];
            let Some(elector) = host.elector.as_mut() else { return };
            let mut api = Api::new(store, host.client, now, rng);
            let t = elector.tick(&mut api, now);
            if t == Transition::StartedLeading {
                let lease = api.store.peek(Kind::Lease, &elector.lock).cloned();
                if let Some(lease) = lease {
                    let msg = format!("{} became leader", elector.identity);
                    host.recorder.event(&mut api, &lease, EventKind::Normal, "LeaderElection", &msg);
                }
            }
            t
        };
        self.flush_wakeups();
        match transition {
            Transition::StartedLeading => {
                // OnStartedLeading: informers start (a full LIST each), then the controllers.
                self.start_host_informers(h);
            }
            Transition::StoppedLeading => {
                // kube-controller-manager and kube-scheduler exit when they lose the lease ("leaderelection lost")
                // and are restarted.
                self.crash_host(HostId(h));
                self.restart_host(HostId(h));
                return;
            }
            Transition::None => {}
        }
        let host = &self.hosts[h];
        let Some(e) = host.elector.as_ref() else { return };
        // wait.JitterUntil(retryPeriod, 1.2) for candidates; the leader renews every retry period.
        let period = e.config.retry_period;
        let next = if e.leading { period } else { period + self.rng.range(0, period * 6 / 5) };
        let epoch = host.epoch;
        self.schedule(now + next, Ev::LeaderTick { host: h, epoch });
    }

    /// The process of host `h` dies: queues, in-memory state and caches are lost; a held lease stays until it
    /// expires.
    pub fn crash_host(&mut self, h: HostId) {
        let Some(host) = self.hosts.get_mut(h.0) else { return };
        host.running = false;
        host.epoch += 1;
        for c in &mut host.controllers {
            c.crash();
        }
        host.recorder.reset();
        if let Some(e) = host.elector.as_mut() {
            e.reset();
        }
        let ids: Vec<InformerId> = host.informers.iter().flatten().copied().collect();
        for id in ids {
            self.informers[id].stop(&mut self.store);
        }
    }

    /// The process of host `h` starts again: it runs for the election, or starts its informers at once.
    pub fn restart_host(&mut self, h: HostId) {
        let Some(host) = self.hosts.get_mut(h.0) else { return };
        if host.running {
            return;
        }
        host.running = true;
        host.epoch += 1;
        if host.elector.is_some() {
            self.leader_tick(h.0);
        } else {
            self.start_host_informers(h.0);
        }
    }

    /// The controller manager replica holding the lease, if any.
    pub fn controller_manager_leader(&self) -> Option<HostId> {
        [CONTROLLER_MANAGER, CONTROLLER_MANAGER_2].into_iter().find(|&h| self.hosts.get(h.0).is_some_and(Host::active))
    }

    /// A control-plane process.
    pub fn host(&self, h: HostId) -> &Host {
        &self.hosts[h.0]
    }

    /// Every control-plane process, in the order they were added.
    pub fn host_ids(&self) -> impl Iterator<Item = HostId> {
        (0..self.hosts.len()).map(HostId)
    }

    fn push_informer(&mut self, mut inf: Informer, owner: Owner) -> InformerId {
        if matches!(owner, Owner::Host(_)) {
            inf.drop_fraction = self.watch_drop;
            if let ObserveMode::Polling { period } = self.config.observe {
                inf.polling = Some(period.max(1));
            }
        }
        inf.id = self.informers.len();
        self.informers.push(inf);
        self.informer_owner.push(owner);
        self.informers.len() - 1
    }

    // ---- time -----------------------------------------------------------------------------------------------

    pub fn now(&self) -> Millis {
        self.now
    }

    /// Schedules `ev` at `at`. An event in the past is a bug of the caller: debug builds (every test, the
    /// fuzzers) assert; a release build runs it now rather than stop the page.
    fn schedule(&mut self, at: Millis, ev: Ev) {
        debug_assert!(at >= self.now, "an event scheduled in the past: at {at} ms, now {} ms: {ev:?}", self.now);
        self.seq += 1;
        self.events.push(Reverse(Scheduled { at: at.max(self.now), seq: self.seq, ev }));
        if self.events.len() > self.compact_at {
            self.compact_events();
        }
    }

    /// Whether a timer can no longer do anything, whenever it fires: its process, informer or kubelet has started
    /// a new life since (epoch), it was re-armed (token), or its watch is closed (watch ids are never reused).
    fn is_stale(&self, ev: &Ev) -> bool {
        let informer = |i: &InformerId| &self.informers[*i];
        match ev {
            Ev::WatchDrain { watcher, .. } | Ev::WatchTimeout { watcher, .. } => self.store.watcher(*watcher).is_none(),
            Ev::InformerList { informer: i, epoch } => informer(i).epoch != *epoch,
            Ev::InformerResync { informer: i, epoch, token } => {
                informer(i).epoch != *epoch || informer(i).resync_token != *token
            }
            Ev::InformerRelist { informer: i, epoch, token } => {
                informer(i).epoch != *epoch || informer(i).relist_token != *token
            }
            Ev::QueueWake { host, epoch, .. } | Ev::WorkerDone { host, epoch, .. } | Ev::LeaderTick { host, epoch } => {
                self.hosts[*host].epoch != *epoch
            }
            Ev::KubeletTick { node, epoch } | Ev::KubeletPod { node, epoch, .. } => {
                self.kubelets[*node].epoch != *epoch
            }
        }
    }

    /// Drops the timers that can no longer fire, so re-armed and orphaned timers do not pile up until they are due.
    /// Dropping them changes nothing: a stale timer is skipped (and not hashed) when it comes up anyway.
    fn compact_events(&mut self) {
        let mut v = std::mem::take(&mut self.events).into_vec();
        v.retain(|Reverse(s)| !self.is_stale(&s.ev));
        self.events = BinaryHeap::from(v);
        self.compact_at = (self.events.len() * 2).max(COMPACT_MIN);
    }

    /// Timers pending in the event heap (live or not yet compacted away).
    pub fn pending_timers(&self) -> usize {
        self.events.len()
    }

    /// When the next event is due.
    pub fn next_event_at(&self) -> Option<Millis> {
        self.events.peek().map(|Reverse(s)| s.at)
    }

    /// Runs the next event; `false` when there is none.
    pub fn step(&mut self) -> bool {
        let Some(Reverse(s)) = self.events.pop() else { return false };
        self.now = s.at;
        if self.is_stale(&s.ev) {
            return true;
        }
        self.events_processed += 1;
        self.hash = fnv1a(self.hash, &s.at.to_le_bytes());
        self.hash = fnv1a(self.hash, &[s.ev.tag()]);
        self.dispatch(s.ev);
        self.flush_wakeups();
        true
    }

    /// Runs every event due up to `t`, then sets the clock to `t`.
    pub fn run_until(&mut self, t: Millis) {
        while self.next_event_at().is_some_and(|at| at <= t) {
            self.step();
        }
        self.now = self.now.max(t);
    }

    pub fn run_for(&mut self, d: Millis) {
        self.run_until(self.now.saturating_add(d))
    }

    /// Hash of the whole history so far: every event run (time, type) and every store write.
    pub fn history_hash(&self) -> u64 {
        fnv1a(self.hash, &self.store.history_hash().to_le_bytes())
    }

    pub fn events_processed(&self) -> u64 {
        self.events_processed
    }

    /// Schedules the deliveries of watches whose events became due, and lets the informers whose watch the server
    /// ended re-watch.
    fn flush_wakeups(&mut self) {
        loop {
            let wakeups = std::mem::take(&mut self.store.wakeups);
            let ended = std::mem::take(&mut self.store.ended);
            if wakeups.is_empty() && ended.is_empty() {
                return;
            }
            for w in wakeups {
                // A watch opened from an older resourceVersion replays events that were already due: at once.
                let at = w.at.max(self.now);
                self.schedule(at, Ev::WatchDrain { watcher: w.watcher, informer: w.notify });
            }
            for e in ended {
                self.watch_ended(e.notify, e.watcher);
            }
        }
    }

    /// The server ended the watch of `informer`: the reflector re-watches from the last resourceVersion it saw,
    /// or relists after its backoff when that history is gone (410).
    fn watch_ended(&mut self, informer: InformerId, watcher: WatcherId) {
        let Some(inf) = self.informers.get_mut(informer) else { return };
        if inf.watcher() != Some(watcher) {
            return;
        }
        self.rewatch(informer);
    }

    /// The reflector re-WATCHes from the last resourceVersion it saw (a bookmark's included), with no LIST; when
    /// the server no longer has that history (410 Gone) it LISTs after its backoff.
    fn rewatch(&mut self, informer: InformerId) {
        let inf = &mut self.informers[informer];
        if inf.rewatch(&mut self.store).is_ok() {
            self.arm_watch_timeout(informer);
        } else {
            let epoch = inf.epoch;
            let (inf, rng) = self.informer_stream(informer, false);
            let backoff = inf.next_backoff(rng);
            self.schedule(self.now + backoff, Ev::InformerList { informer, epoch });
        }
    }

    /// Arms the server-side end of the informer's open watch: client-go asks for a timeout drawn from
    /// [`MIN_WATCH_TIMEOUT`] to twice that.
    fn arm_watch_timeout(&mut self, informer: InformerId) {
        if let Some(watcher) = self.informers[informer].watcher() {
            let (_, rng) = self.informer_stream(informer, true);
            let timeout = rng.range(MIN_WATCH_TIMEOUT, 2 * MIN_WATCH_TIMEOUT - 1);
            self.informers[informer].watch_opened_at = self.now;
            self.schedule(self.now + timeout, Ev::WatchTimeout { informer, watcher });
        }
    }

    /// The resourceVersion of the last bookmark the server sent the informer's watch: none unless the watcher has
    /// caught up (nothing undelivered); then the current one when `deadline` (the server bookmarks a watcher just
    /// before its timeout), else the kind's as of the last whole [`BOOKMARK_FREQUENCY`] since the watch opened.
    fn bookmark(&self, informer: InformerId, deadline: bool) -> Option<u64> {
        let inf = &self.informers[informer];
        let w = self.store.watcher(inf.watcher()?)?;
        if !w.buffer.is_empty() {
            return None;
        }
        if deadline {
            return Some(self.store.resource_version());
        }
        let open = self.now.saturating_sub(inf.watch_opened_at);
        if open < BOOKMARK_FREQUENCY {
            return None;
        }
        Some(self.store.kind_resource_version_at(inf.kind, self.now - open % BOOKMARK_FREQUENCY))
    }

    // ---- events ---------------------------------------------------------------------------------------------

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::WatchDrain { watcher: id, informer: inf } => {
                if self.informers[inf].watcher() != Some(id) {
                    return;
                }
                let (evs, next) = self.store.drain_watch(id, self.now);
                if let Some(at) = next {
                    self.schedule(at, Ev::WatchDrain { watcher: id, informer: inf });
                }
                let (informer, rng) = self.informer_stream(inf, false);
                let out = informer.on_watch_events(evs, rng);
                self.deliver(inf, out, Origin::Watch);
            }
            Ev::InformerList { informer, epoch } => {
                let inf = &mut self.informers[informer];
                if inf.epoch != epoch || inf.state != ReflectorState::Listing {
                    return;
                }
                if inf.polling.is_some() {
                    self.poll(informer);
                    return;
                }
                // client-go's resync timer runs from the informer's start; a relist does not re-arm it.
                let first_sync = !inf.has_synced;
                match inf.list_and_watch(&mut self.store) {
                    Ok(out) => {
                        if first_sync {
                            self.schedule_resync(informer);
                        }
                        self.arm_watch_timeout(informer);
                        self.schedule_relist(informer);
                        self.deliver(informer, out, Origin::List);
                        // This sync may complete the host's WaitForCacheSync.
                        if let Owner::Host(h) = self.informer_owner[informer] {
                            self.pump(h);
                        }
                    }
                    Err(_) => {
                        let (inf, rng) = self.informer_stream(informer, false);
                        let backoff = inf.next_backoff(rng);
                        self.schedule(self.now + backoff, Ev::InformerList { informer, epoch });
                    }
                }
            }
            Ev::InformerResync { informer, epoch, token } => {
                let inf = &mut self.informers[informer];
                if inf.epoch != epoch || inf.resync_token != token || inf.state == ReflectorState::Stopped {
                    return;
                }
                let out = inf.resync();
                self.schedule_resync(informer);
                self.deliver(informer, out, Origin::Resync);
            }
            Ev::QueueWake { host, ctrl, epoch } => {
                if self.hosts[host].epoch != epoch {
                    return;
                }
                self.hosts[host].controllers[ctrl].queue.fire(self.now);
                self.pump(host);
            }
            Ev::WorkerDone { host, ctrl, worker, epoch } => {
                if self.hosts[host].epoch != epoch {
                    return;
                }
                self.finish_work(host, ctrl, worker);
                self.pump(host);
            }
            Ev::KubeletTick { node, epoch } => {
                let now = self.now;
                let k = &mut self.kubelets[node];
                if k.epoch != epoch || !k.alive {
                    return;
                }
                let mut api = Api::new(&mut self.store, k.client, now, &mut self.rng);
                k.tick(&mut api, now);
                self.schedule(now + crate::kubelet::LEASE_RENEW_INTERVAL, Ev::KubeletTick { node, epoch });
            }
            Ev::KubeletPod { node, epoch, key, uid, step } => {
                let now = self.now;
                let k = &mut self.kubelets[node];
                if k.epoch != epoch || !k.alive {
                    return;
                }
                let mut api = Api::new(&mut self.store, k.client, now, &mut self.rng);
                k.step(&mut api, &key, &uid, step, now);
            }
            Ev::InformerRelist { informer, epoch, token } => {
                let inf = &mut self.informers[informer];
                if inf.epoch != epoch || inf.relist_token != token || inf.watcher().is_none() {
                    return;
                }
                // Re-observe: the watch ends, a fresh LIST replaces the cache (and a new WATCH starts from it).
                inf.begin_list(&mut self.store);
                self.dispatch(Ev::InformerList { informer, epoch });
            }
            Ev::WatchTimeout { informer, watcher } => {
                if self.informers[informer].watcher() != Some(watcher) {
                    return;
                }
                if let Some(rv) = self.bookmark(informer, true) {
                    self.informers[informer].bookmark(rv);
                }
                self.informers[informer].stats.watch_timeouts += 1;
                self.rewatch(informer);
            }
            Ev::LeaderTick { host, epoch } => {
                let hs = &self.hosts[host];
                if hs.epoch != epoch || !hs.running {
                    return;
                }
                self.leader_tick(host);
            }
        }
    }

    /// Hands informer notifications to the owner's handlers.
    fn deliver(&mut self, informer: InformerId, evs: Vec<InformerEvent>, origin: Origin) {
        if evs.is_empty() {
            return;
        }
        match self.informer_owner[informer] {
            Owner::Host(h) => {
                let now = self.now;
                let mut wakes = Vec::new();
                {
                    let Sim { hosts, informers, .. } = self;
                    let host = &mut hosts[h];
                    let caches = Caches { informers, ids: &host.informers };
                    let kind = informers[informer].kind;
                    let mut out = Vec::new();
                    for (ci, c) in host.controllers.iter_mut().enumerate() {
                        if !c.reconciler.watches().contains(&kind) {
                            continue;
                        }
                        if c.effective_trigger() == TriggerMode::Edge {
                            // Edge: only notifications of change, each for its own delta.
                            if origin == Origin::Watch {
                                for ev in &evs {
                                    c.reconciler.handle_edge(ev, caches, now, &mut out);
                                }
                            }
                        } else {
                            for ev in &evs {
                                c.reconciler.handle(ev, caches, now, &mut out);
                            }
                        }
                        for (key, delay) in out.drain(..) {
                            if delay == 0 {
                                c.queue.add(key, now);
                            } else if let Some(at) = c.queue.add_after(key, delay, now) {
                                wakes.push((at, ci));
                            }
                        }
                    }
                }
                let epoch = self.hosts[h].epoch;
                for (at, ctrl) in wakes {
                    self.schedule(at, Ev::QueueWake { host: h, ctrl, epoch });
                }
                self.pump(h);
            }
            Owner::Kubelet(n) => {
                let now = self.now;
                let Sim { kubelets, store, rng, config, .. } = self;
                let k = &mut kubelets[n];
                let mut api = Api::new(store, k.client, now, rng);
                let mut timers = Vec::new();
                for ev in &evs {
                    timers.extend(k.handle(ev, &mut api, &config.runtime, now));
                }
                let epoch = k.epoch;
                for (delay, key, uid, step) in timers {
                    self.schedule(now + delay, Ev::KubeletPod { node: n, epoch, key, uid, step });
                }
            }
        }
    }

    /// Gives queued keys to idle workers. A reconcile reads the cache and writes the store now; the worker stays
    /// busy (and the key in processing) for the simulated time it took.
    fn pump(&mut self, h: usize) {
        let now = self.now;
        let mut done_at = Vec::new();
        {
            let Sim { hosts, informers, store, rng, config, .. } = self;
            let host = &mut hosts[h];
            if !host.active() {
                return;
            }
            let Host { controllers, informers: ids, client, .. } = host;
            let caches = Caches { informers, ids };
            if !caches.synced() {
                return; // WaitForCacheSync
            }
            for (ci, c) in controllers.iter_mut().enumerate() {
                while let Some(w) = c.workers.iter().position(Option::is_none) {
                    let Some(key) = c.queue.get(now) else { break };
                    let recorder = &mut c.recorder;
                    let mut cx = Ctx { now, caches, api: Api::new(store, *client, now, rng), recorder };
                    let result = c.reconciler.reconcile(&key, &mut cx);
                    let (calls, elapsed) = (cx.api.calls, cx.api.elapsed);
                    let until = now + config.reconcile_cost + elapsed;
                    c.stats.api_calls += calls as u64;
                    c.workers[w] = Some(crate::controller::Busy { key, started: now, until, result, api_calls: calls });
                    done_at.push((until, ci, w));
                }
            }
        }
        let epoch = self.hosts[h].epoch;
        for (at, ctrl, worker) in done_at {
            self.schedule(at, Ev::WorkerDone { host: h, ctrl, worker, epoch });
        }
    }

    fn finish_work(&mut self, h: usize, ci: usize, w: usize) {
        let now = self.now;
        let epoch = self.hosts[h].epoch;
        let c = &mut self.hosts[h].controllers[ci];
        let Some(busy) = c.workers[w].take() else { return };
        c.queue.done(&busy.key, now);
        c.stats.reconciles += 1;
        let mut wake = None;
        let outcome = match busy.result {
            Ok(ReconcileAction::Done) => {
                c.queue.forget(&busy.key);
                RecordOutcome::Ok
            }
            Ok(ReconcileAction::RequeueAfter(d)) => {
                c.queue.forget(&busy.key);
                c.stats.requeues += 1;
                wake = c.queue.add_after(busy.key.clone(), d, now);
                RecordOutcome::Requeue { after: d }
            }
            Err(message) => {
                c.stats.errors += 1;
                let retries = c.queue.num_requeues(&busy.key);
                if c.reconciler.max_retries().is_some_and(|max| retries >= max) {
                    c.queue.forget(&busy.key);
                    c.stats.dropped += 1;
                    RecordOutcome::Dropped { message }
                } else {
                    let (retry_in, w) = c.queue.add_rate_limited_with_delay(busy.key.clone(), now, &mut self.rng);
                    wake = w;
                    RecordOutcome::Error { message, retry_in }
                }
            }
        };
        let name = c.name();
        self.hash = fnv1a(self.hash, name.as_bytes());
        self.log.push(ReconcileRecord {
            seq: 0,
            controller: name,
            key: busy.key.to_string(),
            start: busy.started,
            duration: busy.until - busy.started,
            api_calls: busy.api_calls,
            outcome,
        });
        if let Some(at) = wake {
            self.schedule(at, Ev::QueueWake { host: h, ctrl: ci, epoch });
        }
    }

    /// Arms the next resync of an informer (none when its period is 0); earlier timers become stale.
    fn schedule_resync(&mut self, informer: InformerId) {
        let inf = &mut self.informers[informer];
        inf.resync_token += 1;
        let (period, epoch, token) = (inf.resync_period, inf.epoch, inf.resync_token);
        if period > 0 {
            self.schedule(self.now + period, Ev::InformerResync { informer, epoch, token });
        }
    }

    /// Arms the next periodic relist of an informer (none when the period is 0).
    fn schedule_relist(&mut self, informer: InformerId) {
        let period = self.config.relist_period;
        let inf = &mut self.informers[informer];
        inf.relist_token += 1;
        let (epoch, token) = (inf.epoch, inf.relist_token);
        if period > 0 {
            self.schedule(self.now + period, Ev::InformerRelist { informer, epoch, token });
        }
    }

    /// Polling mode: every controller of the host that reads this kind LISTs it; the informer diffs the last
    /// list with its cache and hands the changes to the handlers as notifications; the next poll is armed.
    fn poll(&mut self, informer: InformerId) {
        let Some(period) = self.informers[informer].polling else { return };
        let listers = match self.informer_owner[informer] {
            Owner::Host(h) => {
                let kind = self.informers[informer].kind;
                self.hosts[h].controllers.iter().filter(|c| c.reconciler.watches().contains(&kind)).count().max(1)
            }
            Owner::Kubelet(_) => 1,
        };
        let out = self.informers[informer].poll(&mut self.store, listers);
        let epoch = self.informers[informer].epoch;
        self.schedule(self.now + period, Ev::InformerList { informer, epoch });
        self.deliver(informer, out, Origin::Watch);
        if let Owner::Host(h) = self.informer_owner[informer] {
            self.pump(h);
        }
    }

    /// Whether the informer draws from the namespace informers' stream (see `namespace_rng`).
    fn isolated(&self, informer: InformerId) -> bool {
        self.informers[informer].kind == Kind::Namespace && matches!(self.informer_owner[informer], Owner::Host(_))
    }

    /// The informer and the stream its draws come from: the namespace informers' own, else the watch timeouts'
    /// (`timeouts`) or the simulation's.
    fn informer_stream(&mut self, informer: InformerId, timeouts: bool) -> (&mut Informer, &mut Rng) {
        let isolated = self.isolated(informer);
        let Sim { informers, rng, watch_rng, namespace_rng, .. } = self;
        let r = if isolated {
            namespace_rng
        } else if timeouts {
            watch_rng
        } else {
            rng
        };
        (&mut informers[informer], r)
    }

    /// Starts every informer of host `h` (a LIST each, then a WATCH). A namespace informer lists with the last of
    /// the others (it draws no delay of their stream, and the host's caches sync when they did before it existed).
    fn start_host_informers(&mut self, h: usize) {
        let ids: Vec<InformerId> = self.hosts[h].informers.iter().flatten().copied().collect();
        let (isolated, shared): (Vec<InformerId>, Vec<InformerId>) = ids.into_iter().partition(|&id| self.isolated(id));
        let mut last = None;
        for id in shared {
            let delay = self.rng.range(2, 10);
            last = last.max(Some(delay));
            self.start_informer_after(id, delay);
        }
        for id in isolated {
            let delay = last.unwrap_or_else(|| self.namespace_rng.range(2, 10));
            self.start_informer_after(id, delay);
        }
    }

    fn start_informer(&mut self, id: InformerId) {
        let (_, rng) = self.informer_stream(id, false);
        let delay = rng.range(2, 10);
        self.start_informer_after(id, delay);
    }

    fn start_informer_after(&mut self, id: InformerId, delay: Millis) {
        let inf = &mut self.informers[id];
        inf.epoch += 1;
        inf.begin_list(&mut self.store);
        let epoch = inf.epoch;
        self.schedule(self.now + delay, Ev::InformerList { informer: id, epoch });
    }

    // ---- nodes ----------------------------------------------------------------------------------------------

    /// Adds a node with a running kubelet (a name is generated when empty). Errors at the node cap or on a
    /// duplicate name.
    pub fn add_node(&mut self, mut config: NodeConfig) -> Result<String, NodeError> {
        if self.kubelets.len() >= MAX_NODES {
            return Err(NodeError::AtCapacity);
        }
        if config.name.is_empty() {
            let mut i = self.kubelets.len() + 1;
            while self.kubelet_by_name.contains_key(format!("node-{i}").as_str()) {
                i += 1;
            }
            config.name = format!("node-{i}");
        }
        if self.kubelet_by_name.contains_key(config.name.as_str()) {
            return Err(NodeError::AlreadyExists(config.name));
        }
        let index = self.kubelets.len();
        let name: Str = config.name.as_str().into();
        let client = self.store.register_client(&format!("kubelet/{}", config.name));
        let inf = Informer::new(Kind::Pod, WatchFilter::NodeName(name.clone()), client, index, false);
        let inf = self.push_informer(inf, Owner::Kubelet(index));
        self.kubelets.push(Kubelet::new(index, config, inf, client));
        self.kubelet_by_name.insert(name.clone(), index);
        self.boot_kubelet(index);
        Ok(name.to_string())
    }

    fn boot_kubelet(&mut self, index: usize) {
        let now = self.now;
        let Sim { kubelets, store, rng, .. } = self;
        let k = &mut kubelets[index];
        let mut api = Api::new(store, k.client, now, rng);
        k.register(&mut api, now);
        let (epoch, inf) = (k.epoch, k.informer);
        // Heartbeats start at a random offset so thousands of nodes do not beat in step.
        let offset = self.rng.range(1, crate::kubelet::LEASE_RENEW_INTERVAL);
        self.schedule(now + offset, Ev::KubeletTick { node: index, epoch });
        self.start_informer(inf);
    }

    pub fn kubelet(&self, name: &str) -> Option<&Kubelet> {
        self.kubelet_by_name.get(name).map(|i| &self.kubelets[*i])
    }

    /// Stops a node's kubelet: no more heartbeats, status updates or pod work.
    pub fn kill_node(&mut self, name: &str) -> Result<(), NodeError> {
        let i = *self.kubelet_by_name.get(name).ok_or_else(|| NodeError::NotFound(name.to_string()))?;
        if !self.kubelets[i].alive {
            return Ok(());
        }
        self.kubelets[i].kill();
        let inf = self.kubelets[i].informer;
        self.informers[inf].stop(&mut self.store);
        Ok(())
    }

    /// Starts a node's kubelet again: it relists its pods, registers and heartbeats.
    pub fn revive_node(&mut self, name: &str) -> Result<(), NodeError> {
        let i = *self.kubelet_by_name.get(name).ok_or_else(|| NodeError::NotFound(name.to_string()))?;
        if self.kubelets[i].alive {
            return Ok(());
        }
        self.kubelets[i].revive();
        self.boot_kubelet(i);
        Ok(())
    }

    // ---- user actions (kubectl's client) ---------------------------------------------------------------------

    /// Runs `f` with the user's API handle, then lets watchers know.
    pub fn as_user<T>(&mut self, f: impl FnOnce(&mut Api) -> T) -> T {
        let out = {
            let mut api = Api::new(&mut self.store, self.user, self.now, &mut self.user_rng);
            f(&mut api)
        };
        self.flush_wakeups();
        out
    }

    /// Opens a watch of `kind` for the user (`kubectl get -w`) from `from_rv`; the caller drains it with
    /// [`Sim::drain_user_watch`] and closes it with `store.stop_watch`.
    pub fn user_watch(&mut self, kind: Kind, from_rv: u64) -> Result<WatcherId, crate::store::ApiError> {
        let w = self.store.watch(self.user, kind, from_rv, crate::watch::WatchFilter::All);
        self.flush_wakeups();
        w
    }

    /// The user's watch events that have arrived by now (counted as served).
    pub fn drain_user_watch(&mut self, id: WatcherId) -> Vec<crate::watch::WatchEvent> {
        let (evs, _) = self.store.drain_watch(id, self.now);
        evs
    }

    /// Deletes an object as the user (kubectl's client).
    pub fn delete(&mut self, kind: Kind, key: &ObjKey, opts: &DeleteOptions) -> Result<Rc<Object>, ApiError> {
        self.as_user(|api| api.delete(kind, key, opts))
    }

    /// `kubectl scale`: patches `spec.replicas` of a Deployment or ReplicaSet, as the user. A negative count is
    /// invalid; a count that would declare more pods than kubeloop simulates is forbidden.
    pub fn scale(&mut self, kind: Kind, key: &ObjKey, replicas: i32) -> Result<Rc<Object>, ApiError> {
        if replicas < 0 {
            return Err(ApiError::Invalid(format!("replicas must be greater than or equal to 0, not {replicas}")));
        }
        let pods = self.store.count_of(Kind::Pod);
        if pods + replicas as usize > MAX_PODS + pods.min(replicas as usize) {
            return Err(ApiError::Forbidden(format!("kubeloop simulates at most {MAX_PODS} pods")));
        }
        self.as_user(|api| {
            api.patch(kind, key, crate::store::Subresource::Main, |o| match o {
                Object::Deployment(d) => d.spec.replicas = Some(replicas),
                Object::ReplicaSet(r) => r.spec.replicas = Some(replicas),
                _ => {}
            })
        })
    }

    /// Fault: the watch of `informer` is cut. The reflector re-watches from the last resourceVersion it saw; if
    /// the server no longer has that history (410 Gone) it relists after its backoff.
    pub fn disconnect_watch(&mut self, informer: InformerId) {
        if self.informers.get(informer).and_then(Informer::watcher).is_none() {
            return;
        }
        if let Some(rv) = self.bookmark(informer, false) {
            self.informers[informer].bookmark(rv);
        }
        self.rewatch(informer);
        self.flush_wakeups();
    }

    /// Cuts every informer's watch (see [`Sim::disconnect_watch`]).
    pub fn disconnect_all_watches(&mut self) {
        for id in 0..self.informers.len() {
            self.disconnect_watch(id);
        }
    }

    // ---- knobs ----------------------------------------------------------------------------------------------

    /// Sets the trigger mode of one controller (by name) or of all (`None`). Returns the controllers that take
    /// it (edge only where a controller has an edge mode).
    pub fn set_trigger_mode(&mut self, controller: Option<&str>, mode: TriggerMode) -> Vec<&'static str> {
        let mut taken = Vec::new();
        for c in self.hosts.iter_mut().flat_map(|h| h.controllers.iter_mut()) {
            if controller.is_some_and(|n| n != c.name()) {
                continue;
            }
            c.trigger = mode;
            if c.effective_trigger() == mode && !taken.contains(&c.name()) {
                taken.push(c.name());
            }
        }
        taken
    }

    /// The trigger mode in effect per controller (one entry per name).
    pub fn trigger_modes(&self) -> Vec<(&'static str, TriggerMode)> {
        let mut out: Vec<(&'static str, TriggerMode)> = Vec::new();
        for c in self.hosts.iter().flat_map(|h| h.controllers.iter()) {
            if !out.iter().any(|(n, _)| *n == c.name()) {
                out.push((c.name(), c.effective_trigger()));
            }
        }
        out
    }

    /// Switches how the controllers (not the kubelets) observe the store. Each of their running informers
    /// starts over: a LIST and then a WATCH, or a LIST every poll period.
    pub fn set_observe_mode(&mut self, mode: ObserveMode) {
        self.config.observe = mode;
        let polling = match mode {
            ObserveMode::Informer => None,
            ObserveMode::Polling { period } => Some(period.max(1)),
        };
        for id in 0..self.informers.len() {
            if !matches!(self.informer_owner[id], Owner::Host(_)) {
                continue;
            }
            let inf = &mut self.informers[id];
            inf.polling = polling;
            if inf.state == ReflectorState::Stopped {
                continue;
            }
            self.start_informer(id);
        }
    }

    pub fn observe_mode(&self) -> ObserveMode {
        self.config.observe
    }

    /// The relist period (0 = only on 410); re-arms every running informer.
    pub fn set_relist_period(&mut self, period: Millis) {
        self.config.relist_period = period;
        for id in 0..self.informers.len() {
            if self.informers[id].watcher().is_some() {
                self.schedule_relist(id);
            }
        }
    }

    pub fn relist_period(&self) -> Millis {
        self.config.relist_period
    }

    /// Fault: every informer of the control plane (the controllers' and the scheduler's, not the kubelets')
    /// loses this fraction (0..=1) of the watch events delivered to it.
    pub fn set_watch_drop(&mut self, fraction: f64) {
        let f = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
        self.watch_drop = f;
        for (inf, owner) in self.informers.iter_mut().zip(&self.informer_owner) {
            if matches!(owner, Owner::Host(_)) {
                inf.drop_fraction = f;
            }
        }
    }

    /// Fault: one informer loses this fraction of its watch events.
    pub fn set_informer_watch_drop(&mut self, informer: InformerId, fraction: f64) {
        if let Some(inf) = self.informers.get_mut(informer) {
            inf.drop_fraction = if fraction.is_finite() { fraction.clamp(0.0, 1.0) } else { 0.0 };
        }
    }

    /// Fault: the API server answers the informer's watch with 410 Gone: it drops its watch and relists (after
    /// its backoff), replacing its cache.
    pub fn force_relist(&mut self, informer: InformerId) {
        let Some(inf) = self.informers.get_mut(informer) else { return };
        if inf.watcher().is_none() {
            return;
        }
        inf.begin_list(&mut self.store);
        inf.stats.gone += 1;
        let epoch = inf.epoch;
        let (inf, rng) = self.informer_stream(informer, false);
        let backoff = inf.next_backoff(rng);
        self.schedule(self.now + backoff, Ev::InformerList { informer, epoch });
    }

    /// The informers of the control plane's processes (not the kubelets').
    pub fn control_plane_informers(&self) -> Vec<InformerId> {
        (0..self.informers.len()).filter(|&i| matches!(self.informer_owner[i], Owner::Host(_))).collect()
    }

    /// Injected API faults (conflicts, latency, refused pod creates).
    pub fn set_faults(&mut self, faults: crate::faults::Faults) {
        self.store.faults = faults;
    }

    /// The fraction of watch events informers lose.
    pub fn watch_drop(&self) -> f64 {
        self.watch_drop
    }

    /// Who owns an informer.
    pub fn informer_owner(&self, id: InformerId) -> Option<Owner> {
        self.informer_owner.get(id).copied()
    }

    /// The resync period of the controller manager's informers (0 disables resync). Takes effect now.
    pub fn set_resync_period(&mut self, period: Millis) {
        let ids: Vec<InformerId> = [CONTROLLER_MANAGER, CONTROLLER_MANAGER_2]
            .iter()
            .filter_map(|&h| self.hosts.get(h.0))
            .flat_map(|h| h.informers.iter().flatten().copied())
            .collect();
        for id in ids {
            self.informers[id].resync_period = period;
            if self.informers[id].has_synced {
                self.schedule_resync(id);
            }
        }
    }

    /// The controller manager's resync period.
    pub fn resync_period(&self) -> Millis {
        self.hosts[CONTROLLER_MANAGER.0]
            .informers
            .iter()
            .flatten()
            .map(|id| self.informers[*id].resync_period)
            .next()
            .unwrap_or(0)
    }

    // ---- observation (uncounted) -----------------------------------------------------------------------------

    /// What the engine holds right now, by structure (see [`crate::footprint`]).
    pub fn footprint(&self) -> crate::footprint::Footprint {
        crate::footprint::Footprint::of(self)
    }

    /// Cached objects, over all running informers, that differ from the store right now.
    pub fn drift(&self) -> usize {
        self.informers.iter().map(|i| i.drift(&self.store)).sum()
    }

    /// Current queue depth of each controller, by name.
    /// One entry per controller name: replicas of a component show the active one (the leader).
    pub fn queue_depths(&self) -> Vec<(&'static str, usize)> {
        let mut out: Vec<(&'static str, usize)> = Vec::new();
        for h in &self.hosts {
            for c in &h.controllers {
                match out.iter_mut().find(|(n, _)| *n == c.name()) {
                    Some(entry) if h.active() => entry.1 = c.queue.len(),
                    Some(_) => {}
                    None => out.push((c.name(), c.queue.len())),
                }
            }
        }
        out
    }

    /// The controller of that name on the active replica (else the first one).
    pub fn controller(&self, name: &str) -> Option<&Controller> {
        let named = || {
            self.hosts.iter().flat_map(|h| h.controllers.iter().map(move |c| (h, c))).filter(|(_, c)| c.name() == name)
        };
        named().find(|(h, _)| h.active()).or_else(|| named().next()).map(|(_, c)| c)
    }

    /// Every queue empty and every worker idle.
    pub fn idle(&self) -> bool {
        self.hosts.iter().flat_map(|h| h.controllers.iter()).all(|c| c.queue.is_empty() && c.busy_workers() == 0)
    }

    /// Objects the API store has served so far, over all clients: LIST items + GETs + watch events.
    pub fn api_reads(&self) -> u64 {
        self.store.total_counters().reads()
    }

    /// Nodes whose Ready condition is True, as the control plane sees them.
    pub fn nodes_ready(&self) -> usize {
        self.store.objects(Kind::Node).filter_map(|o| o.as_node()).filter(|n| n.ready_status() == "True").count()
    }

    /// Pods by phase: (running, pending, terminating).
    pub fn pod_counts(&self) -> (usize, usize, usize) {
        let mut r = (0, 0, 0);
        for p in self.store.objects(Kind::Pod).filter_map(|o| o.as_pod()) {
            if p.metadata.is_terminating() {
                r.2 += 1;
            } else if p.status.phase == PodPhase::Running {
                r.0 += 1;
            } else if p.status.phase == PodPhase::Pending {
                r.1 += 1;
            }
        }
        r
    }

    /// Every Deployment has its desired replicas updated, ready and available, observed at its generation.
    /// Every Deployment has exactly its desired replicas as pods that are Running, Ready, not terminating and on a
    /// Ready node: the truth, whatever the statuses say (an edge-triggered controller can leave a status that
    /// claims what is not there).
    pub fn deployments_fulfilled(&self) -> bool {
        let ready_nodes: rustc_hash::FxHashSet<&str> = self
            .store
            .objects(Kind::Node)
            .filter_map(|o| o.as_node())
            .filter(|n| n.ready_status() == "True")
            .map(|n| &*n.metadata.name)
            .collect();
        // One pass over pods: pod -> its ReplicaSet -> that ReplicaSet's Deployment.
        let mut deployment_of_rs: FxHashMap<&str, &str> = FxHashMap::default();
        for rs in self.store.objects(Kind::ReplicaSet) {
            if let Some(r) = crate::api::controller_of(rs.meta()).filter(|r| &*r.kind == "Deployment") {
                deployment_of_rs.insert(&rs.meta().uid, &r.uid);
            }
        }
        let mut healthy: FxHashMap<&str, usize> = FxHashMap::default();
        for p in self.store.objects(Kind::Pod).filter_map(|o| o.as_pod()) {
            let ok = !p.metadata.is_terminating()
                && p.status.phase == PodPhase::Running
                && p.is_ready()
                && ready_nodes.contains(&*p.spec.node_name);
            let owner = crate::api::controller_of(&p.metadata).and_then(|r| deployment_of_rs.get(&*r.uid));
            if let (true, Some(d)) = (ok, owner) {
                *healthy.entry(d).or_default() += 1;
            }
        }
        self.store
            .objects(Kind::Deployment)
            .filter_map(|o| o.as_deployment())
            .all(|d| healthy.get(&*d.metadata.uid).copied().unwrap_or(0) == d.replicas() as usize)
    }

    pub fn deployments_converged(&self) -> bool {
        self.store.objects(Kind::Deployment).filter_map(|o| o.as_deployment()).all(|d| {
            let r = d.replicas();
            let st = &d.status;
            st.observed_generation >= d.metadata.generation
                && st.replicas == r
                && st.updated_replicas == r
                && st.ready_replicas == r
                && st.available_replicas == r
        })
    }
}
