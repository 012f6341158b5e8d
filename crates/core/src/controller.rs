//! The controller runtime: a controller is its informers' handlers, a rate-limited work queue of keys and N
//! workers. A worker takes a key, reconciles it against the cache (reads) and the API (writes), is busy for the
//! simulated time that took, then reports `Done` (Forget), `RequeueAfter(d)` or an error (AddRateLimited).
//! Components that host controllers (kube-controller-manager, kube-scheduler) are [`Host`]s.

use std::collections::VecDeque;
use std::rc::Rc;

use crate::api::{Kind, ObjKey, Str};
use crate::cause::{Cause, Pending, Trigger};
use crate::client::Api;
use crate::informer::{Cache, Informer, InformerEvent, InformerId};
use crate::leaderelection::{LeaderElector, Transition};
use crate::recorder::EventKind;
use crate::recorder::Recorder;
use crate::rng::Rng;
use crate::store::{ClientId, Store};
use crate::time::Millis;
use crate::work::{ControllerWork, Counters};
use crate::workqueue::{default_controller_rate_limiter, RateLimiter, RateLimitingQueue};

/// How a reconcile ended when it did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReconcileAction {
    /// Converged: the key is forgotten (its failure count reset).
    Done,
    /// Look again after this long (e.g. waiting for minReadySeconds).
    RequeueAfter(Millis),
}

pub type ReconcileResult = Result<ReconcileAction, String>;

/// How a controller turns notifications into work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum TriggerMode {
    /// The queue carries keys; a reconcile reads the whole current state of the key from the cache and diffs
    /// (upstream behaviour). A lost notification is repaired by the next one, or by a relist.
    #[default]
    Level,
    /// The controller acts only on the delta a watch notification carries ("a pod of mine was deleted: create
    /// one"); resyncs and relists are not notifications. A lost notification is lost forever.
    Edge,
}

impl TriggerMode {
    pub fn as_str(self) -> &'static str {
        match self {
            TriggerMode::Level => "level",
            TriggerMode::Edge => "edge",
        }
    }
}

pub use crate::informer::Origin;

/// The caches of a host's shared informers, by kind.
#[derive(Clone, Copy)]
pub struct Caches<'a> {
    pub(crate) informers: &'a [Informer],
    pub(crate) ids: &'a [Option<InformerId>; Kind::ALL.len()],
}

impl<'a> Caches<'a> {
    /// The cache of `kind`, or `None` if the host has no informer of that kind.
    pub(crate) fn get(&self, kind: Kind) -> Option<&'a Cache> {
        self.ids[kind.index()].map(|id| &self.informers[id].cache)
    }

    /// The cache of `kind`; a controller only asks for kinds it declared in [`Reconciler::watches`].
    pub(crate) fn of(&self, kind: Kind) -> &'a Cache {
        match self.get(kind) {
            Some(c) => c,
            None => panic!("no informer for {kind}: declare it in Reconciler::watches"),
        }
    }

    pub(crate) fn synced(&self) -> bool {
        self.ids.iter().flatten().all(|id| self.informers[*id].has_synced())
    }

    /// Objects these caches' reads have handed out, ever ([`Cache::visited`]): read before and after a reconcile
    /// or a handler, the objects it visited.
    pub(crate) fn visited(&self) -> u64 {
        self.ids.iter().flatten().map(|id| self.informers[*id].cache.visited()).sum()
    }
}

/// What a reconcile gets: the time, the caches (read), the API (write) and the event recorder.
pub struct Ctx<'a, 'b> {
    pub now: Millis,
    pub(crate) caches: Caches<'a>,
    pub api: Api<'b>,
    pub(crate) recorder: &'b mut Recorder,
}

/// Keys a handler asks to enqueue, with an optional delay.
pub type Enqueue = Vec<(ObjKey, Millis)>;

/// Clones a boxed controller: implemented for every [`Reconciler`] that is `Clone`.
pub trait CloneReconciler {
    fn clone_box(&self) -> Box<dyn Reconciler>;
}

impl<T: Reconciler + Clone + 'static> CloneReconciler for T {
    fn clone_box(&self) -> Box<dyn Reconciler> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Reconciler> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// One controller's logic. A controller is cloned with the cluster it runs in (a checkpoint of the run).
pub trait Reconciler: CloneReconciler {
    /// The controller name used in the UI contract (`deployment`, `replicaset`, `scheduler`, ...).
    fn name(&self) -> &'static str;
    /// The event source component (`deployment-controller`, `replicaset-controller`, `default-scheduler`).
    fn component(&self) -> &'static str;
    /// Concurrent workers (upstream defaults: 5 for deployment and replicaset).
    fn workers(&self) -> usize;
    /// The kinds whose informers this controller reads and handles.
    fn watches(&self) -> &'static [Kind];
    /// Turns an informer notification into keys to enqueue (and updates in-memory state such as
    /// expectations).
    fn handle(&mut self, ev: &InformerEvent, caches: Caches<'_>, now: Millis, out: &mut Enqueue);
    /// Drives the object of `key` toward its desired state.
    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult;
    /// After this many failed retries a key is dropped (deployment: 15). `None`: retried forever.
    fn max_retries(&self) -> Option<u32> {
        None
    }
    /// The queue's rate limiter (default: client-go's controller default).
    fn rate_limiter(&self) -> Box<dyn RateLimiter<ObjKey>> {
        Box::new(default_controller_rate_limiter())
    }
    /// Forgets in-memory state: the process restarted.
    fn reset(&mut self) {}
    /// Entries of in-memory state the controller keeps (expectations, graphs, tables), for the engine's footprint:
    /// they must shrink again when the objects they are about go away.
    fn retained(&self) -> usize {
        0
    }
    /// Whether the controller has an edge-triggered mode ([`Reconciler::handle_edge`]).
    fn supports_edge(&self) -> bool {
        false
    }
    /// Edge-triggered mode: the work the delta carried by one notification asks for, as keys its `reconcile`
    /// understands. Only watch notifications reach it.
    fn handle_edge(&mut self, _ev: &InformerEvent, _caches: Caches<'_>, _now: Millis, _out: &mut Enqueue) {}
    /// Figures the controller counts of its own work beyond the objects it reads from the caches (which the
    /// runtime counts for every controller): the scheduler's nodes filtered and scored, for example. Added to
    /// `out` by name; they go into [`crate::Sim::work`] and the work budget (docs/performance.md). Counted over
    /// the whole run: [`Reconciler::reset`] (a restart) keeps them.
    fn work(&self, _out: &mut Counters) {}
}

/// How one recorded reconcile ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "result", rename_all = "camelCase")]
pub enum RecordOutcome {
    Ok,
    Requeue {
        after: Millis,
    },
    Error {
        message: String,
        retry_in: Millis,
    },
    /// Failed too often: dropped from the queue (maxRetries).
    Dropped {
        message: String,
    },
}

/// One reconcile, for the event stream.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ReconcileRecord {
    pub seq: u64,
    pub controller: &'static str,
    pub key: String,
    pub start: Millis,
    pub duration: Millis,
    pub api_calls: u32,
    pub outcome: RecordOutcome,
}

/// A worker busy with a key until `until`.
#[derive(Clone, Debug)]
pub struct Busy {
    pub(crate) key: ObjKey,
    /// The reconcile's id in the cause log ([`crate::cause::CauseLog::reconcile`]).
    pub(crate) reconcile: u64,
    pub(crate) started: Millis,
    pub(crate) until: Millis,
    pub(crate) result: ReconcileResult,
    pub(crate) api_calls: u32,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ControllerStats {
    pub reconciles: u64,
    pub errors: u64,
    pub requeues: u64,
    pub dropped: u64,
    pub api_calls: u64,
}

/// A controller as an observer sees it at one moment ([`Controller::status`]): plain figures of its queue, its
/// workers and its reconciles. The page's rows, loop diagram and charts, the runner's summary and the lessons' checks
/// read these, never the queue or the workers themselves.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControllerStatus {
    pub name: &'static str,
    /// Keys ready in its queue (the FIFO).
    pub depth: usize,
    /// Keys waiting for their time: a delay or a backoff.
    pub waiting: usize,
    /// Keys handed to its workers and not done.
    pub processing: usize,
    /// Adds to its queue that did not merge into a key already there, ever (client-go's `adds_total`).
    pub adds: u64,
    /// Delayed re-adds, ever (client-go's `retries_total`).
    pub retries: u64,
    pub busy: usize,
    pub workers: usize,
    pub stats: ControllerStats,
    /// Level or edge, as in effect.
    pub trigger: TriggerMode,
}

/// Where a key of a controller's queue is ([`QueueItem`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueItemState {
    /// A worker has it.
    Processing,
    /// Ready in the FIFO.
    Queued,
    /// Waiting for its time (a retry's backoff, or a requested delay).
    Backoff,
}

/// A key of a controller's queue as an observer sees it ([`Controller::queue_items`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueItem {
    pub key: ObjKey,
    pub state: QueueItemState,
    /// Its failures in a row (the rate limiter's count).
    pub retries: u32,
    /// The adds merged into it (1 when none were).
    pub adds: u32,
    /// How long it has been processed, or how long it still waits; 0 when queued.
    pub for_ms: Millis,
}

/// A controller as it runs: logic, queue, workers.
#[derive(Clone)]
pub struct Controller {
    pub reconciler: Box<dyn Reconciler>,
    pub(crate) recorder: Recorder,
    pub(crate) queue: RateLimitingQueue<ObjKey>,
    pub(crate) workers: Vec<Option<Busy>>,
    pub(crate) stats: ControllerStats,
    /// Level (default) or edge; edge only takes effect if the reconciler supports it.
    pub(crate) trigger: TriggerMode,
    /// What its reconciles and handlers did (objects read from the caches), kept across crashes.
    pub(crate) work: ControllerWork,
    /// The adds of its queue's keys, kept for the reconcile that takes each key (its causes).
    pub(crate) pending: Pending,
    /// Its own stream of draws (its API calls' latencies, its queue's jitter, the scheduler's ties), keyed by its
    /// host's client and its name when the host is added ([`Controller::key_stream`]).
    rng: Rng,
}

impl Controller {
    pub fn new(reconciler: Box<dyn Reconciler>) -> Self {
        let queue = RateLimitingQueue::new(reconciler.rate_limiter());
        let workers = vec![None; reconciler.workers().max(1)];
        let recorder = Recorder::new(reconciler.component(), "");
        Controller {
            reconciler,
            recorder,
            queue,
            workers,
            stats: ControllerStats::default(),
            trigger: TriggerMode::Level,
            work: ControllerWork::default(),
            pending: Pending::default(),
            rng: Rng::new(0),
        }
    }

    /// A digest of where its stream of draws stands.
    pub(crate) fn rng_position(&self) -> u64 {
        self.rng.position()
    }

    /// Keys its stream of draws by the run's seed, its host's client and its name: a controller added to a host
    /// never moves another's draws.
    pub(crate) fn key_stream(&mut self, seed: u64, host: &str) {
        self.rng = Rng::keyed(seed, &[host, self.name()]);
    }

    pub fn name(&self) -> &'static str {
        self.reconciler.name()
    }

    /// The trigger mode in effect (edge only where the reconciler has one).
    pub fn effective_trigger(&self) -> TriggerMode {
        if self.trigger == TriggerMode::Edge && self.reconciler.supports_edge() {
            TriggerMode::Edge
        } else {
            TriggerMode::Level
        }
    }

    /// Entries this controller holds: queue keys and in-memory state (not the recorder's bounded LRU).
    pub(crate) fn footprint(&self) -> usize {
        self.queue.footprint() + self.reconciler.retained() + self.pending.len()
    }

    /// Its work: what the runtime counted, with the reconciler's own figures.
    pub fn work(&self) -> ControllerWork {
        let mut w = self.work.clone();
        self.reconciler.work(&mut w.own);
        w
    }

    pub fn busy_workers(&self) -> usize {
        self.workers.iter().filter(|w| w.is_some()).count()
    }

    /// What it is doing at `now`, in plain figures.
    pub fn status(&self, now: Millis) -> ControllerStatus {
        let m = self.queue.metrics(now);
        ControllerStatus {
            name: self.name(),
            depth: self.queue.len(),
            waiting: self.queue.waiting_len(),
            processing: self.queue.delaying().queue().processing_len(),
            adds: m.adds_total,
            retries: m.retries_total,
            busy: self.busy_workers(),
            workers: self.workers.len(),
            stats: self.stats.clone(),
            trigger: self.effective_trigger(),
        }
    }

    /// The rate limiter's count of `key`'s failures in a row (client-go's `NumRequeues`; 0 once forgotten).
    pub fn retries_of(&self, key: &ObjKey) -> u32 {
        self.queue.num_requeues(key)
    }

    /// The first `limit` keys of its queue at `now`: those being processed (by key), then the ready ones in order,
    /// then those waiting for their time.
    pub fn queue_items(&self, now: Millis, limit: usize) -> Vec<QueueItem> {
        let q = self.queue.delaying().queue();
        let mut processing: Vec<(&ObjKey, Millis)> = q.processing().collect();
        crate::sort::sort_by_key(&mut processing, |(k, _)| (*k).clone());
        let processing = processing
            .into_iter()
            .map(|(k, since)| (k, QueueItemState::Processing, 1 + q.collapsed(k), now.saturating_sub(since)));
        let queued = q.iter().map(|k| (k, QueueItemState::Queued, 1 + q.collapsed(k), 0));
        let waiting =
            self.queue.delaying().waiting().map(|(k, at)| (k, QueueItemState::Backoff, 1, at.saturating_sub(now)));
        let item = |(key, state, adds, for_ms): (&ObjKey, _, _, _)| QueueItem {
            key: key.clone(),
            state,
            retries: self.retries_of(key),
            adds,
            for_ms,
        };
        processing.chain(queued).chain(waiting).take(limit).map(item).collect()
    }

    /// Loses the queue and in-memory state (the process died).
    pub(crate) fn crash(&mut self) {
        self.queue = RateLimitingQueue::new(self.reconciler.rate_limiter());
        self.workers.iter_mut().for_each(|w| *w = None);
        self.pending.clear();
        self.reconciler.reset();
        self.recorder.reset();
    }
}

/// What a control-plane process is doing ([`Host::state`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostState {
    /// Holds its Lease: its informers and controllers run.
    Leader,
    /// Running, waiting for its Lease.
    Standby,
    /// Running, with no election.
    Running,
    /// Down: queues, caches and in-memory state lost.
    Crashed,
}

impl HostState {
    pub fn as_str(self) -> &'static str {
        match self {
            HostState::Leader => "leader",
            HostState::Standby => "standby",
            HostState::Running => "running",
            HostState::Crashed => "crashed",
        }
    }
}

/// A process that hosts controllers and shares informers among them.
#[derive(Clone)]
pub struct Host {
    pub name: Str,
    pub(crate) client: ClientId,
    pub informers: [Option<InformerId>; Kind::ALL.len()],
    pub controllers: Vec<Controller>,
    pub(crate) running: bool,
    /// Bumped on every crash/restart: timers of an earlier life are ignored.
    pub(crate) epoch: u64,
    /// Replicas of a component elect a leader; only the leader runs its informers and controllers.
    pub(crate) elector: Option<LeaderElector>,
    /// Events of the process itself (`LeaderElection`).
    pub(crate) recorder: Recorder,
    /// The stream of its election's draws (API latencies, the candidate's jitter), keyed by its client's name.
    pub(crate) rng: Rng,
}

impl Host {
    /// Running, and leading if it takes part in an election: its informers and controllers work.
    pub fn active(&self) -> bool {
        self.running && self.elector.as_ref().is_none_or(|e| e.leading)
    }

    /// What it is doing: leading, standing by, running without an election, or down.
    pub fn state(&self) -> HostState {
        match (&self.elector, self.running) {
            (_, false) => HostState::Crashed,
            (Some(e), true) if e.leading => HostState::Leader,
            (Some(_), true) => HostState::Standby,
            (None, true) => HostState::Running,
        }
    }

    /// The identity it runs for its Lease under (`cp-1`), if it takes part in an election.
    pub fn identity(&self) -> Option<&Str> {
        self.elector.as_ref().map(|e| &e.identity)
    }

    /// Hands an informer's notifications of `kind` to the handlers of the controllers that watch it (level: every
    /// notification; edge: only the watch's, each for its own delta) and queues the keys they ask for. Returns the
    /// delayed keys' wake-ups: `(when, controller index)`.
    pub(crate) fn deliver(
        &mut self,
        informers: &[Informer],
        kind: Kind,
        evs: &[InformerEvent],
        origin: Origin,
        now: Millis,
    ) -> Vec<(Millis, usize)> {
        let caches = Caches { informers, ids: &self.informers };
        let informer = self.informers[kind.index()].unwrap_or(usize::MAX);
        let mut wakes = Vec::new();
        let mut out = Vec::new();
        for (ci, c) in self.controllers.iter_mut().enumerate() {
            if !c.reconciler.watches().contains(&kind) {
                continue;
            }
            let edge = c.effective_trigger() == TriggerMode::Edge;
            if edge && origin != Origin::Watch {
                continue;
            }
            let visited = caches.visited();
            // Each notification's keys are queued as it is handled (in the same order as all at the end: handlers
            // read only the caches), each add kept with the notification that asked for it.
            for ev in evs {
                if edge {
                    c.reconciler.handle_edge(ev, caches, now, &mut out);
                } else {
                    c.reconciler.handle(ev, caches, now, &mut out);
                }
                for (key, delay) in out.drain(..) {
                    c.pending.add(&key, trigger_of(informer, origin, ev));
                    if delay == 0 {
                        c.queue.add(key, now);
                    } else if let Some(at) = c.queue.add_after(key, delay, now) {
                        wakes.push((at, ci));
                    }
                }
            }
            c.work.handled(evs.len() as u64, caches.visited() - visited);
        }
        wakes
    }

    /// Gives queued keys to idle workers, when the process is active and its caches have synced
    /// (WaitForCacheSync). A reconcile reads the cache and writes the store now; the worker stays busy (and the key
    /// in processing) for the simulated time it took: `cost` plus its API round trips. Returns when each started
    /// worker is done: `(when, controller index, worker index)`.
    pub(crate) fn pump(
        &mut self,
        informers: &[Informer],
        store: &mut Store,
        cost: Millis,
        now: Millis,
    ) -> Vec<(Millis, usize, usize)> {
        let mut done_at = Vec::new();
        if !self.active() {
            return done_at;
        }
        let Host { controllers, informers: ids, client, name, .. } = self;
        let caches = Caches { informers, ids };
        if !caches.synced() {
            return done_at;
        }
        // Each reconcile's writes are its own; whatever asked for the pump (an intervention) goes on after it.
        let outer = store.causes.current;
        for (ci, c) in controllers.iter_mut().enumerate() {
            while let Some(w) = c.workers.iter().position(Option::is_none) {
                let Some(key) = c.queue.get(now) else { break };
                let adds = c.pending.take(&key);
                let reconcile = store.causes.reconcile(c.reconciler.name(), name, &key, now, adds);
                store.causes.current = Cause::Reconcile(reconcile);
                let recorder = &mut c.recorder;
                let mut cx = Ctx { now, caches, api: Api::new(store, *client, now, &mut c.rng), recorder };
                let visited = caches.visited();
                let result = c.reconciler.reconcile(&key, &mut cx);
                c.work.reconciled(caches.visited() - visited);
                let (calls, elapsed) = (cx.api.calls, cx.api.elapsed);
                let until = now + cost + elapsed;
                c.stats.api_calls += calls as u64;
                c.workers[w] = Some(Busy { key, reconcile, started: now, until, result, api_calls: calls });
                done_at.push((until, ci, w));
            }
        }
        store.causes.current = outer;
        done_at
    }
}

impl Host {
    /// One leader-election attempt (the elector's tick) through the host's client; winning is recorded as a
    /// `LeaderElection` event on the Lease. `None` when the host does not elect.
    pub(crate) fn leader_tick(&mut self, store: &mut Store, now: Millis) -> Option<Transition> {
        let elector = self.elector.as_mut()?;
        let mut api = Api::new(store, self.client, now, &mut self.rng);
        let t = elector.tick(&mut api, now);
        if t == Transition::StartedLeading {
            if let Some(lease) = api.peek(Kind::Lease, &elector.lock).cloned() {
                let msg = format!("{} became leader", elector.identity);
                self.recorder.event(&mut api, &lease, EventKind::Normal, "LeaderElection", &msg);
            }
        }
        Some(t)
    }

    /// When the next election attempt is due: `wait.JitterUntil(retryPeriod, 1.2)` for a candidate, every retry
    /// period for the leader's renewal. `None` when the host does not elect.
    pub(crate) fn next_leader_tick(&mut self) -> Option<Millis> {
        let e = self.elector.as_ref()?;
        let period = e.config.retry_period;
        Some(if e.leading { period } else { period + self.rng.range(0, period * 6 / 5) })
    }

    /// The process dies: queues, in-memory state and the election's state are lost (a held Lease stays until it
    /// expires). Returns its informers, for their watches to be closed.
    pub(crate) fn crash(&mut self) -> Vec<InformerId> {
        self.running = false;
        self.epoch += 1;
        for c in &mut self.controllers {
            c.crash();
        }
        self.recorder.reset();
        if let Some(e) = self.elector.as_mut() {
            e.reset();
        }
        self.informers.iter().flatten().copied().collect()
    }

    /// The process starts again (a new life: timers of the last one are ignored). `false` if it was running.
    pub(crate) fn restart(&mut self) -> bool {
        if self.running {
            return false;
        }
        self.running = true;
        self.epoch += 1;
        true
    }
}

impl Controller {
    /// Worker `w` is done with its key: the queue is told (Done), and by the reconcile's result the key is
    /// forgotten, requeued after a delay, retried with the rate limiter's backoff, or dropped after the
    /// controller's last retry. The reconcile is recorded in `log`. Returns the key's wake-up, if it was requeued.
    pub(crate) fn finish_work(&mut self, w: usize, now: Millis, log: &mut ReconcileLog) -> Option<Millis> {
        let busy = self.workers.get_mut(w)?.take()?;
        self.queue.done(&busy.key, now);
        self.stats.reconciles += 1;
        let mut wake = None;
        let outcome = match busy.result {
            Ok(ReconcileAction::Done) => {
                self.queue.forget(&busy.key);
                RecordOutcome::Ok
            }
            Ok(ReconcileAction::RequeueAfter(d)) => {
                self.queue.forget(&busy.key);
                self.stats.requeues += 1;
                self.pending.add(&busy.key, Trigger::Requeue { after: busy.reconcile, delay: d });
                wake = self.queue.add_after(busy.key.clone(), d, now);
                RecordOutcome::Requeue { after: d }
            }
            Err(message) => {
                self.stats.errors += 1;
                let retries = self.queue.num_requeues(&busy.key);
                if self.reconciler.max_retries().is_some_and(|max| retries >= max) {
                    self.queue.forget(&busy.key);
                    self.stats.dropped += 1;
                    RecordOutcome::Dropped { message }
                } else {
                    let (retry_in, w) = self.queue.add_rate_limited_with_delay(busy.key.clone(), now, &mut self.rng);
                    self.pending.add(&busy.key, Trigger::Retry { after: busy.reconcile, delay: retry_in });
                    wake = w;
                    RecordOutcome::Error { message, retry_in }
                }
            }
        };
        log.push(ReconcileRecord {
            seq: 0,
            controller: self.name(),
            key: busy.key.to_string(),
            start: busy.started,
            duration: busy.until - busy.started,
            api_calls: busy.api_calls,
            outcome,
        });
        wake
    }
}

/// Reconciles the simulation's log keeps for observers (the page's event stream, the runner's summary).
pub const RECONCILE_LOG_CAPACITY: usize = 20_000;

/// A bounded log of the most recent reconciles.
#[derive(Clone)]
pub struct ReconcileLog {
    pub records: VecDeque<Rc<ReconcileRecord>>,
    pub(crate) capacity: usize,
    pub total: u64,
}

impl ReconcileLog {
    pub(crate) fn new(capacity: usize) -> Self {
        ReconcileLog { records: VecDeque::new(), capacity, total: 0 }
    }

    pub(crate) fn push(&mut self, mut r: ReconcileRecord) {
        r.seq = self.total;
        self.total += 1;
        if self.records.len() >= self.capacity {
            self.records.pop_front();
        }
        self.records.push_back(Rc::new(r));
    }
}

/// The add a notification of `informer` asked for, as the cause log keeps it.
fn trigger_of(informer: usize, origin: Origin, ev: &InformerEvent) -> Trigger {
    use crate::cause::Origin as By;
    use InformerEvent as E;
    use Origin as O;
    let obj = ev.object();
    let type_ = match ev {
        E::Add(_) => crate::watch::EventType::Added,
        E::Update(..) => crate::watch::EventType::Modified,
        E::Delete(..) => crate::watch::EventType::Deleted,
    };
    let informer = u32::try_from(informer).unwrap_or(u32::MAX);
    let rv = obj.meta().resource_version;
    let origin = match (origin, ev) {
        (_, E::Delete(_, true)) => {
            return Trigger::Gone { informer, kind: obj.kind(), key: Box::new(obj.key()), rv };
        }
        (O::List, _) => By::Relist,
        (O::Resync, _) => By::Resync,
        (O::Watch, _) => By::Watch,
    };
    Trigger::Event { informer, origin, type_, rv }
}
