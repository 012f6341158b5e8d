//! The simulation: one virtual clock, one seeded generator, one queue of timed events, and the components it
//! drives (API store, kube-controller-manager and kube-scheduler hosts, one kubelet per node). Events run in
//! order of time, then of scheduling; nothing else decides the order, so a seed and a list of inputs replay the
//! same history exactly.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::rc::Rc;

use rustc_hash::FxHashMap;

use crate::api::{Kind, ObjKey, Object, PodPhase, Str};
use crate::cause::Cause;
use crate::client::Api;
use crate::controller::{Controller, Host, Origin, ReconcileLog, TriggerMode};
use crate::controllers::daemonset::DaemonSetController;
use crate::controllers::disruption::DisruptionController;
use crate::controllers::endpointslice::EndpointSliceController;
use crate::controllers::garbagecollector::GarbageCollector;
use crate::controllers::namespace::NamespaceController;
use crate::controllers::nodelifecycle::{NodeLifecycleConfig, NodeLifecycleController};
use crate::controllers::resourcequota::ResourceQuotaController;
use crate::controllers::serviceaccount::ServiceAccountsController;
use crate::controllers::statefulset::StatefulSetController;
use crate::controllers::tainteviction::TaintEvictionController;
use crate::controllers::{deployment::DeploymentController, replicaset::ReplicaSetController, scheduler::Scheduler};
use crate::fnv::fnv1a;
use crate::informer::{Effect, Env, Informer, InformerEvent, InformerId, InformerTotals, Input, ReflectorState, Timer};
use crate::kubelet::{Kubelet, KubeletTimer, NodeConfig, PodTimer, RuntimeConfig};
use crate::leaderelection::{LeaderElectionConfig, LeaderElector, Transition};
use crate::rng::Rng;
use crate::store::{ApiError, ClientId, DeleteOptions, Store, StoreConfig};
use crate::time::{Millis, HOUR};
use crate::watch::{WatchFilter, WatcherId};

pub use crate::limits::{MAX_NODES, MAX_PODS};

mod apps;
mod config;
mod invariants;
mod knobs;
mod nodes;
mod observe;
mod why;
pub use observe::MatchedPods;
pub use why::{CauseStep, Chain, StepKind, MAX_CHAIN};

pub use config::*;

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
    Host(HostId),
    /// A node's kubelet, by the node's position among the nodes added.
    Kubelet(usize),
}

#[derive(Clone, Debug)]
enum Ev {
    /// One of an informer's reflector timers ([`Informer::step`] owns what it does).
    Reflector {
        informer: InformerId,
        timer: Timer,
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
    /// One of a kubelet's timers ([`Kubelet::on_timer`] owns what it does).
    Kubelet {
        node: usize,
        epoch: u64,
        timer: KubeletTimer,
    },
    LeaderTick {
        host: usize,
        epoch: u64,
    },
}

impl Ev {
    fn tag(&self) -> u8 {
        match self {
            Ev::Reflector { timer, .. } => timer.tag(),
            Ev::QueueWake { .. } => 4,
            Ev::WorkerDone { .. } => 5,
            Ev::Kubelet { timer, .. } => timer.tag(),
            Ev::LeaderTick { .. } => 8,
        }
    }
}

#[derive(Clone)]
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
    /// The Node its kubelet would register is one the API server refuses (the validation message).
    Invalid(String),
}

impl std::fmt::Display for NodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NodeError::NotFound(n) => write!(f, "node \"{n}\" not found"),
            NodeError::AlreadyExists(n) => write!(f, "node \"{n}\" already exists"),
            NodeError::AtCapacity => write!(f, "cannot add a node: kubeloop simulates at most {MAX_NODES} nodes"),
            NodeError::Invalid(message) => f.write_str(message),
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
#[derive(Clone)]
pub struct Sim {
    pub(crate) config: SimConfig,
    now: Millis,
    seq: u64,
    events: BinaryHeap<Reverse<Scheduled>>,
    /// The simulation's own draws (the informers' resync period). Every part draws from a stream of its own,
    /// keyed by the seed and its name (`Rng::keyed`): each informer by its client and kind, each controller by its
    /// host and name, each host's election, each kubelet by its node, the API server's, each kind's watch
    /// latencies. Adding a kind, a controller or a node never moves another part's draws.
    pub(crate) rng: Rng,
    /// Randomness on the person's side (kubectl's own name suffixes, the latency of the user's requests): never
    /// the simulation's stream, so what a person reads cannot change what the cluster does.
    pub(crate) user_rng: Rng,
    pub(crate) store: Store,
    pub(crate) informers: Vec<Informer>,
    informer_owner: Vec<Owner>,
    pub(crate) hosts: Vec<Host>,
    pub(crate) kubelets: Vec<Kubelet>,
    /// Each kubelet's stream of draws (its API calls' latencies, image pulls, container starts), by kubelet index.
    pub(crate) kubelet_rngs: Vec<Rng>,
    kubelet_by_name: FxHashMap<Str, usize>,
    /// The client of people: kubectl, the page, scenario actions.
    pub(crate) user: ClientId,
    pub(crate) log: ReconcileLog,
    /// The watch-drop fault, applied to every informer including those created later.
    watch_drop: f64,
    /// What the simulated applications of each image do (kubeloop's own input; see [`crate::behaviour`]).
    pub(crate) behaviours: crate::behaviour::Behaviours,
    events_processed: u64,
    /// The event heap is compacted (timers that can no longer fire dropped) when it grows past this.
    compact_at: usize,
    hash: u64,
}

/// Salt of the user's random stream (`kubectl` in ASCII).
const USER_STREAM: u64 = 0x6b75_6265_6374_6c00;
/// The event heap is never compacted below this many entries.
const COMPACT_MIN: usize = 4096;

impl Sim {
    /// Drops every timer (the measure of what the engine holds takes a simulation apart: [`crate::footprint`]).
    pub(crate) fn drop_timers(&mut self) {
        self.events = BinaryHeap::new();
    }

    pub fn new(config: SimConfig) -> Self {
        let rng = Rng::new(config.seed);
        let user_rng = Rng::new(config.seed ^ USER_STREAM);
        let store = Store::new(config.store.clone(), config.seed);
        let mut sim = Sim {
            now: 0,
            seq: 0,
            events: BinaryHeap::new(),
            rng,
            user_rng,
            store,
            informers: Vec::new(),
            informer_owner: Vec::new(),
            hosts: Vec::new(),
            kubelets: Vec::new(),
            kubelet_rngs: Vec::new(),
            kubelet_by_name: FxHashMap::default(),
            user: 0,
            log: ReconcileLog::new(crate::controller::RECONCILE_LOG_CAPACITY),
            watch_drop: 0.0,
            behaviours: Default::default(),
            events_processed: 0,
            compact_at: COMPACT_MIN,
            hash: crate::fnv::FNV_OFFSET,
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
            Controller::new(Box::new(ServiceAccountsController::new())),
            Controller::new(Box::new(EndpointSliceController::new())),
            Controller::new(Box::new(DisruptionController::new())),
            Controller::new(Box::new(DaemonSetController::new(crate::controllers::daemonset::WORKERS))),
            Controller::new(Box::new(ResourceQuotaController::new(crate::controllers::resourcequota::WORKERS))),
            Controller::new(Box::new(StatefulSetController::new(crate::controllers::statefulset::WORKERS))),
            Controller::new(Box::new(crate::controllers::persistentvolume::PersistentVolumeController::new())),
            Controller::new(Box::new(crate::controllers::job::JobController::new(crate::controllers::job::WORKERS))),
            Controller::new(Box::new(crate::controllers::ttlafterfinished::TtlAfterFinishedController::new(
                crate::controllers::ttlafterfinished::WORKERS,
            ))),
            Controller::new(Box::new(crate::controllers::cronjob::CronJobController::new(
                crate::controllers::cronjob::WORKERS,
            ))),
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
    pub(crate) fn add_host_with(
        &mut self,
        name: &str,
        mut controllers: Vec<Controller>,
        resync: Millis,
        elector: Option<LeaderElector>,
    ) -> HostId {
        let index = self.hosts.len();
        let client_name = match &elector {
            Some(e) => format!("{name}/{}", e.identity),
            None => name.to_string(),
        };
        let client = self.store.register_client(&client_name);
        let seed = self.config.seed;
        let mut ids = [None; Kind::ALL.len()];
        for c in &mut controllers {
            c.key_stream(seed, &client_name);
            for k in c.reconciler.watches() {
                if ids[k.index()].is_none() {
                    let mut inf = self.informer(*k, WatchFilter::All, client, true);
                    inf.set_resync_period(resync);
                    inf.keep_recent();
                    ids[k.index()] = Some(self.push_informer(inf, Owner::Host(HostId(index))));
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
            rng: Rng::keyed(seed, &[&client_name, "leaderelection"]),
        });
        if elects {
            self.leader_tick(index);
        } else {
            self.start_host_informers(index);
        }
        HostId(index)
    }

    /// One leader-election attempt of host `h` ([`Host::leader_tick`]), what it means for the process, and the
    /// next attempt scheduled.
    fn leader_tick(&mut self, h: usize) {
        let now = self.now;
        let Some(transition) = self.hosts[h].leader_tick(&mut self.store, now) else { return };
        self.flush_wakeups();
        match transition {
            // OnStartedLeading: informers start (a full LIST each), then the controllers.
            Transition::StartedLeading => self.start_host_informers(h),
            Transition::StoppedLeading => {
                // kube-controller-manager and kube-scheduler exit when they lose the lease ("leaderelection lost")
                // and are restarted.
                self.crash_host(HostId(h));
                self.restart_host(HostId(h));
                return;
            }
            Transition::None => {}
        }
        let Some(next) = self.hosts[h].next_leader_tick() else { return };
        let epoch = self.hosts[h].epoch;
        self.schedule(now + next, Ev::LeaderTick { host: h, epoch });
    }

    /// The process of host `h` dies ([`Host::crash`]): its informers stop.
    pub fn crash_host(&mut self, h: HostId) {
        let Some(host) = self.hosts.get_mut(h.0) else { return };
        for id in host.crash() {
            self.informers[id].stop(&mut self.store);
        }
        // Every timer of the process (its informers' resyncs are up to a day away) can no longer fire: drop them
        // now rather than when the heap next grows past its compaction mark.
        self.compact_events();
    }

    /// The process of host `h` starts again: it runs for the election, or starts its informers at once.
    pub fn restart_host(&mut self, h: HostId) {
        let Some(host) = self.hosts.get_mut(h.0) else { return };
        if !host.restart() {
            return;
        }
        if host.elector.is_some() {
            self.leader_tick(h.0);
        } else {
            self.start_host_informers(h.0);
        }
    }

    /// A new informer of `kind` for `client` (with a label index if `label_index`), its stream of draws keyed by the
    /// client's name and the kind.
    pub(crate) fn informer(&self, kind: Kind, filter: WatchFilter, client: ClientId, label_index: bool) -> Informer {
        let name = &self.store.clients()[client].name;
        Informer::new(kind, filter, client, label_index, Rng::keyed(self.config.seed, &[name, kind.name()]))
    }

    fn push_informer(&mut self, mut inf: Informer, owner: Owner) -> InformerId {
        if matches!(owner, Owner::Host(_)) {
            inf.set_drop_fraction(self.watch_drop);
            if let ObserveMode::Polling { period } = self.config.observe {
                inf.set_polling(Some(period));
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
        match ev {
            Ev::Reflector { informer, timer } => timer.is_stale(&self.informers[*informer], &self.store),
            Ev::QueueWake { host, epoch, .. } | Ev::WorkerDone { host, epoch, .. } | Ev::LeaderTick { host, epoch } => {
                self.hosts[*host].epoch != *epoch
            }
            Ev::Kubelet { node, epoch, .. } => self.kubelets[*node].epoch != *epoch,
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
        // Debug builds check what the event could break (sim/invariants.rs).
        let check = cfg!(debug_assertions).then(|| (s.ev.clone(), self.store.resource_version()));
        self.dispatch(s.ev);
        self.flush_wakeups();
        // Each component that acts says why before it writes (`crate::cause`); a timer's cause ends with its event.
        self.store.causes.current = Cause::Unknown;
        if let Some((ev, rv)) = check {
            self.check_invariants(&ev, rv);
        }
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
                self.schedule(at, Ev::Reflector { informer: w.notify, timer: Timer::Drain { watcher: w.watcher } });
            }
            for e in ended {
                if e.notify < self.informers.len() {
                    self.reflector(e.notify, Input::WatchEnded(e.watcher));
                }
            }
        }
    }

    /// One step of an informer's reflector ([`Informer::step`]): the simulation hands it its streams of draws and
    /// carries out what it asks, in order (timers scheduled, notifications delivered, the owner's workers pumped).
    fn reflector(&mut self, informer: InformerId, input: Input) {
        let polls = matches!(input, Input::Timer(Timer::List { .. })) && self.informers[informer].polling().is_some();
        let listers = if polls { self.listers(informer) } else { 1 };
        let Sim { informers, store, config, now, .. } = self;
        let mut env = Env { store, now: *now, relist_period: config.relist_period, listers };
        for effect in informers[informer].step(input, &mut env) {
            match effect {
                Effect::At(at, timer) => self.schedule(at, Ev::Reflector { informer, timer }),
                Effect::Deliver(evs, origin) => self.deliver(informer, evs, origin),
                Effect::Pump => {
                    if let Owner::Host(h) = self.informer_owner[informer] {
                        self.pump(h.0);
                    }
                }
            }
        }
    }

    /// Polling mode: how many controllers of the informer's owner LIST its kind at each poll (nothing is shared).
    fn listers(&self, informer: InformerId) -> usize {
        match self.informer_owner[informer] {
            Owner::Host(HostId(h)) => {
                let kind = self.informers[informer].kind;
                self.hosts[h].controllers.iter().filter(|c| c.reconciler.watches().contains(&kind)).count().max(1)
            }
            Owner::Kubelet(_) => 1,
        }
    }

    // ---- events ---------------------------------------------------------------------------------------------

    fn dispatch(&mut self, ev: Ev) {
        match ev {
            Ev::Reflector { informer, timer } => self.reflector(informer, Input::Timer(timer)),
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
            Ev::Kubelet { node, epoch, timer } => {
                let now = self.now;
                let Sim { kubelets, kubelet_rngs, store, config, behaviours, informers, .. } = self;
                let k = &mut kubelets[node];
                if k.epoch != epoch || !k.alive {
                    return;
                }
                store.causes.current = match &timer {
                    KubeletTimer::Tick => Cause::KubeletTimer { node: node as u32, what: "its status and Lease" },
                    KubeletTimer::Pod { .. } => Cause::KubeletTimer { node: node as u32, what: "a pod's next step" },
                };
                let mut api = Api::new(store, k.client, now, &mut kubelet_rngs[node]);
                let pods = &informers[k.informer].cache;
                let next = k.on_timer(timer, &mut api, pods, &config.runtime, behaviours, now);
                self.schedule_kubelet_timers(node, next);
            }
            Ev::LeaderTick { host, epoch } => {
                let hs = &self.hosts[host];
                if hs.epoch != epoch || !hs.running {
                    return;
                }
                self.store.causes.current = Cause::Election;
                self.leader_tick(host);
            }
        }
    }

    /// Hands informer notifications to the owner: a host's controllers' handlers (then its idle workers take
    /// what they queued), or a kubelet.
    fn deliver(&mut self, informer: InformerId, evs: Vec<InformerEvent>, origin: Origin) {
        if evs.is_empty() {
            return;
        }
        match self.informer_owner[informer] {
            Owner::Host(HostId(h)) => {
                let kind = self.informers[informer].kind;
                let wakes = self.hosts[h].deliver(&self.informers, kind, &evs, origin, self.now);
                let epoch = self.hosts[h].epoch;
                for (at, ctrl) in wakes {
                    self.schedule(at, Ev::QueueWake { host: h, ctrl, epoch });
                }
                self.pump(h);
            }
            Owner::Kubelet(n) => {
                let now = self.now;
                let Sim { kubelets, kubelet_rngs, store, config, behaviours, .. } = self;
                let k = &mut kubelets[n];
                let mut api = Api::new(store, k.client, now, &mut kubelet_rngs[n]);
                let next = k.on_notifications(n, &evs, &mut api, &config.runtime, behaviours, now);
                self.schedule_kubelet_timers(n, next);
            }
        }
    }

    /// Host `h`'s idle workers take queued keys ([`Host::pump`]); their ends are scheduled.
    fn pump(&mut self, h: usize) {
        let Sim { hosts, informers, store, config, now, .. } = self;
        let done_at = hosts[h].pump(informers, store, config.reconcile_cost, *now);
        let epoch = self.hosts[h].epoch;
        for (at, ctrl, worker) in done_at {
            self.schedule(at, Ev::WorkerDone { host: h, ctrl, worker, epoch });
        }
    }

    /// A worker is done ([`Controller::finish_work`]); a requeued key's wake-up is scheduled.
    fn finish_work(&mut self, h: usize, ci: usize, w: usize) {
        let Sim { hosts, log, now, .. } = self;
        let c = &mut hosts[h].controllers[ci];
        let name = c.name();
        let before = log.total;
        let wake = c.finish_work(w, *now, log);
        if log.total != before {
            self.hash = fnv1a(self.hash, name.as_bytes());
        }
        let epoch = self.hosts[h].epoch;
        if let Some(at) = wake {
            self.schedule(at, Ev::QueueWake { host: h, ctrl: ci, epoch });
        }
    }

    /// Starts every informer of host `h` (a LIST each, then a WATCH).
    fn start_host_informers(&mut self, h: usize) {
        let ids: Vec<InformerId> = self.hosts[h].informers.iter().flatten().copied().collect();
        for id in ids {
            self.start_informer(id);
        }
    }

    /// Starts (over) informer `id`: its first LIST after a short delay drawn from its stream.
    fn start_informer(&mut self, id: InformerId) {
        self.reflector(id, Input::Start { after: None });
    }
}
