//! The controller runtime: a controller is its informers' handlers, a rate-limited work queue of keys and N
//! workers. A worker takes a key, reconciles it against the cache (reads) and the API (writes), is busy for the
//! simulated time that took, then reports `Done` (Forget), `RequeueAfter(d)` or an error (AddRateLimited).
//! Components that host controllers (kube-controller-manager, kube-scheduler) are [`Host`]s.

use std::collections::VecDeque;
use std::rc::Rc;

use crate::api::{Kind, ObjKey, Str};
use crate::client::Api;
use crate::informer::{Cache, Informer, InformerEvent, InformerId};
use crate::leaderelection::LeaderElector;
use crate::recorder::Recorder;
use crate::store::ClientId;
use crate::time::Millis;
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

/// Where a batch of informer notifications came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The watch stream (or, in polling mode, a poll's diff): real notifications of change.
    Watch,
    /// A LIST (start, 410, the relist period) replacing the cache.
    List,
    /// The periodic resync of the cache.
    Resync,
}

/// The caches of a host's shared informers, by kind.
#[derive(Clone, Copy)]
pub struct Caches<'a> {
    pub informers: &'a [Informer],
    pub ids: &'a [Option<InformerId>; 7],
}

impl<'a> Caches<'a> {
    /// The cache of `kind`, or `None` if the host has no informer of that kind.
    pub fn get(&self, kind: Kind) -> Option<&'a Cache> {
        self.ids[kind.index()].map(|id| &self.informers[id].cache)
    }

    /// The cache of `kind`; a controller only asks for kinds it declared in [`Reconciler::watches`].
    pub fn of(&self, kind: Kind) -> &'a Cache {
        match self.get(kind) {
            Some(c) => c,
            None => panic!("no informer for {kind}: declare it in Reconciler::watches"),
        }
    }

    pub fn synced(&self) -> bool {
        self.ids.iter().flatten().all(|id| self.informers[*id].has_synced)
    }
}

/// What a reconcile gets: the time, the caches (read), the API (write) and the event recorder.
pub struct Ctx<'a, 'b> {
    pub now: Millis,
    pub caches: Caches<'a>,
    pub api: Api<'b>,
    pub recorder: &'b mut Recorder,
}

/// Keys a handler asks to enqueue, with an optional delay.
pub type Enqueue = Vec<(ObjKey, Millis)>;

/// One controller's logic.
pub trait Reconciler {
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
    pub key: ObjKey,
    pub started: Millis,
    pub until: Millis,
    pub result: ReconcileResult,
    pub api_calls: u32,
}

#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ControllerStats {
    pub reconciles: u64,
    pub errors: u64,
    pub requeues: u64,
    pub dropped: u64,
    pub api_calls: u64,
}

/// A controller as it runs: logic, queue, workers.
pub struct Controller {
    pub reconciler: Box<dyn Reconciler>,
    pub recorder: Recorder,
    pub queue: RateLimitingQueue<ObjKey>,
    pub workers: Vec<Option<Busy>>,
    pub stats: ControllerStats,
    /// Level (default) or edge; edge only takes effect if the reconciler supports it.
    pub trigger: TriggerMode,
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
        }
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
    pub fn footprint(&self) -> usize {
        self.queue.footprint() + self.reconciler.retained()
    }

    pub fn busy_workers(&self) -> usize {
        self.workers.iter().filter(|w| w.is_some()).count()
    }

    /// Loses the queue and in-memory state (the process died).
    pub fn crash(&mut self) {
        self.queue = RateLimitingQueue::new(self.reconciler.rate_limiter());
        self.workers.iter_mut().for_each(|w| *w = None);
        self.reconciler.reset();
        self.recorder.reset();
    }
}

/// A process that hosts controllers and shares informers among them.
pub struct Host {
    pub name: Str,
    pub client: ClientId,
    pub informers: [Option<InformerId>; 7],
    pub controllers: Vec<Controller>,
    pub running: bool,
    /// Bumped on every crash/restart: timers of an earlier life are ignored.
    pub epoch: u64,
    /// Replicas of a component elect a leader; only the leader runs its informers and controllers.
    pub elector: Option<LeaderElector>,
    /// Events of the process itself (`LeaderElection`).
    pub recorder: Recorder,
}

impl Host {
    /// Running, and leading if it takes part in an election: its informers and controllers work.
    pub fn active(&self) -> bool {
        self.running && self.elector.as_ref().is_none_or(|e| e.leading)
    }

    pub fn caches<'a>(&'a self, informers: &'a [Informer]) -> Caches<'a> {
        Caches { informers, ids: &self.informers }
    }
}

/// Reconciles the simulation's log keeps for observers (the page's event stream, the runner's summary).
pub const RECONCILE_LOG_CAPACITY: usize = 20_000;

/// A bounded log of the most recent reconciles.
pub struct ReconcileLog {
    pub records: VecDeque<Rc<ReconcileRecord>>,
    pub capacity: usize,
    pub total: u64,
}

impl ReconcileLog {
    pub fn new(capacity: usize) -> Self {
        ReconcileLog { records: VecDeque::new(), capacity, total: 0 }
    }

    pub fn push(&mut self, mut r: ReconcileRecord) {
        r.seq = self.total;
        self.total += 1;
        if self.records.len() >= self.capacity {
            self.records.pop_front();
        }
        self.records.push_back(Rc::new(r));
    }
}
