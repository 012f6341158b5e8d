//! What the page shows, as plain data: the view types the components render, built by `snapshot.rs` and
//! `stream.rs` from the simulation. A leaf (as yew's todomvc `state.rs`): of the page it imports only `format.rs`.

use std::rc::Rc;

use kubeloop_engine::api::{controller_of, ObjKey, Pod, PodPhase, Str};
use kubeloop_engine::controller::{ControllerStatus, HostState};
use kubeloop_engine::informer::InformerTotals;
use kubeloop_engine::sim::TimingProfile;
use kubeloop_engine::time::Millis;

use crate::format::phase_glyph;

/// Above these sizes the cluster is drawn on a canvas instead of one element per node and pod.
pub const DOM_MAX_NODES: usize = 200;
pub const DOM_MAX_PODS: usize = 2_000;

/// The Ready condition of a node as the control plane sees it (the Node object in the store).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ready {
    True,
    False,
    Unknown,
}

impl Ready {
    pub fn from_status(s: &str) -> Ready {
        match s {
            "True" => Ready::True,
            "False" => Ready::False,
            _ => Ready::Unknown,
        }
    }
    /// The `data-ready` value.
    pub fn attr(self) -> &'static str {
        match self {
            Ready::True => "true",
            Ready::False => "false",
            Ready::Unknown => "unknown",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Ready::True => "Ready",
            Ready::False => "NotReady",
            Ready::Unknown => "Unknown",
        }
    }
}

/// One pod chip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodView {
    pub key: ObjKey,
    pub uid: Str,
    pub phase: PodPhase,
    pub terminating: bool,
    pub ready: bool,
    /// The sum of its containers' restart counts.
    pub restarts: i32,
    /// Bound node; empty when unscheduled.
    pub node: Str,
    /// The `app` label (or the owner's name), for the tooltip and colour hint.
    pub app: Str,
    /// A DaemonSet's pod (drawn marked: it belongs to its node).
    pub daemon: bool,
}

impl PodView {
    pub fn of(p: &Pod) -> PodView {
        let m = &p.metadata;
        let app = m
            .label("app")
            .map(Str::from)
            .or_else(|| controller_of(m).map(|r| r.name.clone()))
            .unwrap_or_else(|| m.name.clone());
        PodView {
            key: ObjKey { namespace: m.namespace.clone(), name: m.name.clone() },
            uid: m.uid.clone(),
            phase: p.status.phase,
            terminating: m.is_terminating(),
            ready: p.is_ready(),
            restarts: p.restarts(),
            node: p.spec.node_name.clone(),
            app,
            daemon: controller_of(m).is_some_and(|r| &*r.kind == "DaemonSet"),
        }
    }

    /// A one-letter cue for the phase (colour is not the only signal).
    pub fn glyph(&self) -> &'static str {
        phase_glyph(self.phase)
    }
}

/// One node card (`Eq`, so comparing two `Rc`s of it checks the pointer first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeView {
    pub name: Str,
    pub ready: Ready,
    pub alive: bool,
    pub unschedulable: bool,
    /// `key=value:Effect`
    pub taints: Vec<String>,
    /// Labels a user set (the kubelet's well-known labels left out).
    pub labels: Vec<String>,
    pub cpu_req: i64,
    pub cpu_alloc: i64,
    pub mem_req: i64,
    pub mem_alloc: i64,
    pub pods_alloc: i64,
    pub pods: Vec<PodView>,
}

/// A node in the compact (canvas) drawing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactNode {
    pub name: Str,
    pub ready: Ready,
    pub alive: bool,
    pub unschedulable: bool,
    pub running: u32,
    pub pending: u32,
    pub terminating: u32,
    pub other: u32,
    pub capacity: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct CompactCluster {
    pub nodes: Vec<CompactNode>,
    pub unscheduled: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterView {
    Dom { nodes: Rc<Vec<Rc<NodeView>>>, unscheduled: Rc<Vec<PodView>> },
    Compact(Rc<CompactCluster>),
}

/// The whole-cluster counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct CountsView {
    pub running: usize,
    pub pending: usize,
    pub terminating: usize,
    /// kube-system's add-on pods left out of these figures and of the cluster view (0 when they are shown).
    pub hidden: usize,
    /// Whether the person asked to see them.
    pub addons_shown: bool,
    pub pods: usize,
    pub nodes_ready: usize,
    pub nodes: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerView {
    /// Its queue's, workers' and reconciles' figures, as the engine reports them.
    pub status: ControllerStatus,
    pub host: Str,
    /// Depth sampled every simulated second, oldest first.
    pub history: Rc<Vec<u32>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InformerView {
    /// What it watches (`pods`, `kubelet pods (3 nodes)`).
    pub name: String,
    /// The process it lives in.
    pub owner: String,
    pub state: &'static str,
    /// What it holds and has seen (summed over the informers a row stands for), as the engine reports it.
    pub totals: InformerTotals,
    pub drift: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventLine {
    /// The Event's resourceVersion: orders events written at the same moment.
    pub rv: u64,
    pub at: Millis,
    pub type_: Str,
    pub reason: Str,
    pub message: Str,
    pub count: i32,
    pub source: Str,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodDetail {
    pub key: ObjKey,
    pub exists: bool,
    pub uid: Str,
    pub phase: PodPhase,
    pub terminating: bool,
    pub node: Str,
    pub rv: u64,
    pub created: Option<Millis>,
    pub deletion: Option<Millis>,
    /// `terminationGracePeriodSeconds` (what a delete without `--grace-period` gives it).
    pub grace: i64,
    /// While it terminates: the grace period left, then each container's stage (preStop hook, SIGTERM sent,
    /// SIGKILL due), as the kubelet planned them.
    pub stopping: Vec<String>,
    /// `(kind, name, exists)` from the pod up: ReplicaSet, then Deployment.
    pub owners: Vec<(Str, Str, bool)>,
    /// `(type, status, reason / message)`
    pub conditions: Vec<(Str, Str, String)>,
    pub containers: Vec<String>,
    pub requests: String,
    pub events: Vec<EventLine>,
    /// What its simulated application does now (kubeloop's own input), while a running kubelet runs it.
    pub app: Option<AppState>,
    /// Where the scheduler would put it now, and why (the page fills it in at a bounded rate).
    pub schedule: Option<Rc<ScheduleView>>,
    /// Why it exists, once asked (`Cmd::Why`).
    pub why: Option<Rc<ChainView>>,
    /// Its history, once asked (`Cmd::History`).
    pub history: Option<Rc<HistoryView>>,
}

/// A write's chain of causes as the engine recorded them (`Sim::chain`), the write first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainView {
    /// What it explains: `created at 41.2 s (resourceVersion 659)`.
    pub about: String,
    pub steps: Vec<CauseView>,
    /// Why the chain stops before a person or a timer, if it does.
    pub ends: Option<String>,
    /// What the causes reach back to: kubeloop keeps those of the last writes only (its own bound).
    pub kept: String,
}

/// One step of a chain: its kind (`write`, `reconcile`, `queue`, `watch`, `relist`, `resync`, `timer`,
/// `intervention`), when, what, and the pod or node it wrote (clicking selects it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CauseView {
    pub kind: &'static str,
    pub at: Millis,
    pub text: String,
    pub select: Option<Selection>,
}

/// The scheduler's reasoning for one pod, from the API's state now, with the page's score weights.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleView {
    /// The score plugins' weights used, and which filter plugins run (the page's what-if; upstream's by default).
    pub weights: [i64; 4],
    pub filters: [bool; 5],
    /// The first [`SCHEDULE_NODES_SHOWN`] nodes (feasible ones first, best first).
    pub nodes: Vec<ScheduleNode>,
    /// Nodes in all.
    pub total: usize,
    pub best: Option<Str>,
    /// How many feasible nodes share the best total (the scheduler picks one of them at random).
    pub tied: usize,
    /// The best with upstream's weights (equal to `best` when the weights are upstream's).
    pub default_best: Option<Str>,
    /// Upstream's message when no node fits.
    pub unschedulable: Option<String>,
    /// With weights not upstream's: the pods across the cluster they would place elsewhere.
    pub what_if: Option<WhatIfView>,
}

/// The score weights' what-if across the cluster: each pod as if scheduled now, with upstream's weights and these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WhatIfView {
    /// `(pod, its best nodes with upstream's profile, with this what-if's)` for the pods whose best nodes differ
    /// (several when their totals tie: the scheduler picks one at random; none when no node fits).
    pub moved: Vec<(Str, Vec<Str>, Vec<Str>)>,
    /// Pods looked at (the first ones, within a bounded amount of work), of how many not finished.
    pub looked: usize,
    pub of: usize,
}

/// Nodes the scheduling explanation lists (kubeloop's own bound, as the cluster view's 200 cards).
pub const SCHEDULE_NODES_SHOWN: usize = 200;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleNode {
    pub node: Str,
    /// The first filter plugin that rejects the pod, and its reasons (as the scheduler reports them).
    pub rejected: Option<(&'static str, String)>,
    /// A feasible node's normalized scores per score plugin and weighted total.
    pub scores: Option<([i64; 4], i64)>,
}

/// The simulated application of a pod: whether any of its containers fails its checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AppState {
    pub readiness_fails: bool,
    pub liveness_fails: bool,
    /// Its processes exit this long after every start.
    pub crash_after: Option<Millis>,
    /// Its images cannot be pulled (the next pull fails).
    pub unpullable: bool,
    /// Its processes go on after SIGTERM, until SIGKILL.
    pub ignores_sigterm: bool,
}

/// A Service and the pods that back it now (from its EndpointSlices).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceView {
    pub key: ObjKey,
    pub type_: Str,
    pub cluster_ip: Str,
    /// Ready endpoints, and the others (not ready, or terminating).
    pub ready: usize,
    pub not_ready: usize,
    /// The pods behind the ready endpoints (the first few).
    pub ready_pods: Vec<Str>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDetail {
    pub name: Str,
    pub exists: bool,
    pub ready: Ready,
    pub alive: bool,
    pub unschedulable: bool,
    pub rv: u64,
    pub conditions: Vec<(Str, Str, Str)>,
    pub labels: Vec<String>,
    pub taints: Vec<String>,
    pub capacity: String,
    pub lease_renewed: Option<Millis>,
    pub pods: usize,
    pub events: Vec<EventLine>,
    /// "Why?" asked of it: the chain of causes of the control plane's last write of it.
    pub why: Option<Rc<ChainView>>,
    /// Its history, once asked.
    pub history: Option<Rc<HistoryView>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Detail {
    Pod(PodDetail),
    Node(NodeDetail),
}

/// What is selected in the cluster view.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Selection {
    #[default]
    None,
    Pod(ObjKey),
    Node(Str),
}

/// What a search of the cluster by name found: the node or pod of that name (selected), else the nodes and pods
/// whose names contain the text, the first [`SEARCH_SHOWN`] of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchView {
    pub query: Rc<str>,
    pub found: Vec<Selection>,
    /// Every match, shown or not.
    pub total: usize,
    /// The query named one node or pod exactly (it is selected).
    pub exact: bool,
}

/// Matches a search lists at most (kubeloop's own bound).
pub const SEARCH_SHOWN: usize = 8;

/// One piece of a console command's output, in the order it was printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    Stdout(String),
    Stderr(String),
    /// What the terminal itself shows (`^C`).
    Note(String),
}

impl Chunk {
    pub fn text(&self) -> &str {
        match self {
            Chunk::Stdout(s) | Chunk::Stderr(s) | Chunk::Note(s) => s,
        }
    }
}

/// One command typed in the kubectl console and what it printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConsoleEntry {
    /// Unique per page (a key for the view).
    pub id: u64,
    /// The line as typed.
    pub line: String,
    pub chunks: Vec<Chunk>,
    /// The exit code; `None` while the command still runs (`get -w`, `rollout status`).
    pub code: Option<i32>,
    /// Earlier output was dropped to bound memory.
    pub truncated: bool,
}

impl ConsoleEntry {
    /// The output as a terminal shows it.
    pub fn text(&self) -> String {
        self.chunks.iter().map(Chunk::text).collect()
    }
}

/// The kubectl console: earlier commands (scrollback) and the last one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConsoleView {
    pub earlier: Rc<Vec<Rc<ConsoleEntry>>>,
    pub last: Option<Rc<ConsoleEntry>>,
    /// Bumped when a kept session's entries come back (the input's history takes their lines).
    pub restored: u64,
}

/// The outcome of the last apply.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ApplyOutcome {
    /// Bumped on every apply (0: none yet).
    pub seq: u64,
    /// Nothing failed.
    pub ok: bool,
    /// The outcome counted (`2 created, 1 unchanged, 1 failed`), or the page's note (an apply in flight).
    pub summary: String,
    /// kubectl's lines, each after a line break: each object applied, then each failure with its line.
    pub text: String,
    /// kubectl's warnings, one a line (shown folded).
    pub warnings: Vec<String>,
    /// 1-based line of the first failure in the editor text.
    pub error_line: Option<usize>,
    /// A large apply spread across frames (the clock held).
    pub applying: Option<ApplyProgress>,
}

/// How far a large apply is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ApplyProgress {
    /// Steps done (documents read, objects checked and written), of how many.
    pub done: usize,
    pub of: usize,
    /// Still being read: Cancel applies nothing of it. Once read it is the run's and is written out.
    pub cancellable: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speed {
    X(u32),
    Max,
}

impl Speed {
    pub fn value(self) -> String {
        match self {
            Speed::X(k) => k.to_string(),
            Speed::Max => "max".into(),
        }
    }
    pub fn parse(v: &str) -> Option<Speed> {
        match v {
            "max" => Some(Speed::Max),
            _ => v.parse::<u32>().ok().filter(|k| (1..=10_000).contains(k)).map(Speed::X),
        }
    }
}

/// The header's time state.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeView {
    pub now: Millis,
    pub playing: bool,
    pub speed: Speed,
    /// The frame budget ran out before the clock reached its target: the simulation runs slower than asked.
    pub lagging: bool,
    /// Simulated milliseconds per wall millisecond over the last second.
    pub effective: f64,
    pub seed: u64,
    pub events_processed: u64,
    /// The run's history hash (`Sim::history_hash`), as `kubeloop run` prints it.
    pub history_hash: u64,
    /// Interventions recorded since the run started (Reset asks before it discards them).
    pub interventions: usize,
}

/// The run's timeline: from its first checkpoint to now, the moment scrubbed to, marks along it, and what the
/// checkpoints are (kubeloop's own memory policy, shown on the page).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TimelineView {
    pub min: Millis,
    pub max: Millis,
    /// The moment shown, while scrubbed (`None`: live).
    pub at: Option<Millis>,
    pub marks: Vec<MarkView>,
    pub kept: usize,
    pub max_kept: usize,
    /// Simulation events between two checkpoints.
    pub spacing: u64,
    /// Events re-run by the last scrub, and its wall milliseconds.
    pub rerun: u64,
    pub scrub_ms: f64,
}

/// A mark on the timeline: a person's intervention or a notable Event, and how many more share its place.
#[derive(Clone, Debug, PartialEq)]
pub struct MarkView {
    pub at: Millis,
    pub person: bool,
    pub what: String,
    pub more: usize,
    /// Its place along the timeline, in percent.
    pub pct: f64,
}

/// A fork compared with the run it was forked from, at the fork's time now.
#[derive(Clone, Debug, PartialEq)]
pub struct ForkView {
    /// The moment of the fork; where the other run was when the page forked; the moment compared.
    pub at: Millis,
    pub end: Millis,
    pub until: Millis,
    /// The first write where they diverge: when, and what each made there (`None`: nothing); `None` while equal.
    pub first: Option<(Millis, Option<String>, Option<String>)>,
    /// The objects that differ now (`kind namespace/name`, how, the changed lines), and how many more.
    pub objects: Vec<(String, &'static str, Vec<String>)>,
    pub more: usize,
}

/// One write of an object, as its history lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionView {
    pub rv: u64,
    pub at: Millis,
    pub client: String,
    pub verb: &'static str,
    /// Its YAML was made again (a write before the re-run began is listed without it).
    pub kept: bool,
}

/// An object's history: its versions, the two compared and their diff (`kubectl get -o yaml`, line by line).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HistoryView {
    pub versions: Vec<VersionView>,
    pub a: Option<u64>,
    pub b: Option<u64>,
    pub compared: String,
    pub diff: Vec<String>,
    pub note: String,
}

/// Everything the page shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub time: TimeView,
    pub timeline: Rc<TimelineView>,
    pub fork: Option<Rc<ForkView>>,
    /// The loop diagram of the controller the page shows.
    pub loop_diagram: Option<Rc<LoopDiagramView>>,
    pub summary: CountsView,
    pub cluster: ClusterView,
    pub services: Rc<Vec<ServiceView>>,
    pub controllers: Rc<Vec<ControllerView>>,
    pub informers: Rc<Vec<InformerView>>,
    pub drift: usize,
    /// How old the drift figures are (0: measured for this snapshot; large clusters measure it every 2 s).
    pub drift_age_ms: u64,
    pub api_reads: u64,
    /// What the engine holds, by structure (flat over a long run).
    pub footprint: Rc<kubeloop_engine::footprint::Footprint>,
    pub drop_pct: u32,
    pub resync_ms: Millis,
    pub events: Rc<EventsView>,
    pub selection: Selection,
    pub detail: Option<Rc<Detail>>,
    pub apply: Rc<ApplyOutcome>,
    pub notice: Option<Rc<str>>,
    /// The link to the run being made or made (Share).
    pub share: Option<Rc<ShareView>>,
    /// The last search of the cluster by name.
    pub search: Option<Rc<SearchView>>,
    pub console: ConsoleView,
    pub loop_cfg: Rc<LoopView>,
    pub control_plane: Rc<ControlPlaneView>,
    pub timing: TimingProfile,
    pub lesson: Option<Rc<LessonView>>,
    pub editor: Rc<EditorLoad>,
}

/// A link to the run: when it was asked for (simulated time and history hash) and how far making it got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShareView {
    pub at: Millis,
    pub hash: u64,
    pub state: ShareState,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShareState {
    /// The page is compressing the run.
    Making,
    /// The link, and whether it went to the clipboard (None: not known yet).
    Made { url: Rc<str>, copied: Option<bool> },
    /// Why there is no link (too large: export instead).
    Failed(Rc<str>),
}

/// Text the editor is told to show; a new `seq` replaces the editor's text.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EditorLoad {
    pub seq: u64,
    pub text: Rc<str>,
}

/// API reads per simulated minute over a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    pub per_min: u64,
    /// The simulated span measured.
    pub over_ms: Millis,
}

/// API reads per minute in the current observe mode and the last measured figure of the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ReadsView {
    pub polling_now: bool,
    pub informer: Option<Rate>,
    pub polling: Option<Rate>,
}

/// The control loops' modes and the injected faults.
#[derive(Clone, Debug, PartialEq)]
pub struct LoopView {
    /// Some controller runs edge-triggered.
    pub edge: bool,
    /// Controllers that have an edge mode.
    pub edge_capable: Vec<&'static str>,
    /// The poll period when polling.
    pub polling: Option<Millis>,
    pub relist_ms: Millis,
    pub conflict_pct: u32,
    pub latency_ms: Millis,
    pub reject_creates: bool,
    /// 409s answered so far, over all clients.
    pub conflicts: u64,
    pub reads: ReadsView,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessView {
    pub host: kubeloop_engine::sim::HostId,
    /// `cp-1`, `cp-2` (the replicas' identities) or the component's name.
    pub name: Str,
    pub component: Str,
    pub state: HostState,
    /// Informers and controllers it runs now.
    pub controllers: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseView {
    pub holder: Str,
    pub renewed: Option<Millis>,
    pub duration_s: i32,
    pub transitions: i32,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ControlPlaneView {
    pub processes: Vec<ProcessView>,
    /// The kube-controller-manager Lease.
    pub lease: Option<LeaseView>,
}

/// A lesson as the page shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonView {
    pub id: &'static str,
    pub title: &'static str,
    pub watch: &'static str,
    pub offer_fast_demo: bool,
    /// The event stream's suggested controller filter.
    pub events: Option<&'static str>,
    /// `(time since the lesson started, label, what it did once run)`
    pub steps: Vec<(Millis, String, Option<String>)>,
    /// Simulated time since the lesson started.
    pub elapsed: Millis,
    /// `(what, value)`, read from the simulation.
    pub figures: Vec<(String, String)>,
    /// Whether the lesson asks for a prediction before its steps.
    pub asks_on: bool,
    /// The question waiting for an answer (the clock holds).
    pub asking: Option<AskView>,
    /// Each step that expects something: the prediction, if asked, and what the check found.
    pub checks: Vec<CheckView>,
}

/// A lesson's question, waiting for the person's prediction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AskView {
    /// The step it comes before (index into `steps`).
    pub step: usize,
    pub question: &'static str,
    pub choices: &'static [String],
}

/// A step's question, if it asks one, and the check of what it expects, as far as they have come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckView {
    /// The step it belongs to (index into `steps`).
    pub step: usize,
    /// The step's question (empty: it asks none, the check only says what happened).
    pub question: &'static str,
    /// What the check looks for.
    pub what: String,
    /// The prediction, if one was made.
    pub chosen: Option<&'static str>,
    pub answer: &'static str,
    /// `pending` (the step has not run), `checking`, `passed` or `failed`.
    pub state: &'static str,
    /// What the check saw, and how long after the step (simulated).
    pub seen: Option<(String, Millis)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowSource {
    /// A reconcile by this controller.
    Reconcile(&'static str),
    /// A Kubernetes Event from this component (`source.component`).
    Event(Str),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventRow {
    /// Unique, for list keys: reconciles `r<seq>`, Event writes `e<number>`.
    pub id: String,
    pub at: Millis,
    pub source: RowSource,
    /// The controller this row is about, for the filter: the reconciling controller, or for Events the controller
    /// that reported it (`deployment`, `replicaset`, `scheduler`, `kubelet`...).
    pub controller: Str,
    pub reason: Str,
    /// `kind/name`
    pub object: String,
    pub namespace: Str,
    pub message: String,
    pub warning: bool,
    pub count: i32,
}

/// The rows at one moment, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EventsView {
    pub version: u64,
    pub rows: Vec<Rc<EventRow>>,
}

/// The control loop of one controller, as the loop diagram draws it: store -> watch -> informer cache -> handlers
/// -> work queue -> workers -> reconcile -> writes back to the store.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct LoopDiagramView {
    /// The controller shown (its name, queue, workers, reconciles and trigger mode, as the engine reports them).
    pub status: ControllerStatus,
    /// Every controller it can show.
    pub controllers: Vec<&'static str>,
    /// Polling: no cache, the controller LISTs.
    pub polling: bool,
    /// The store's newest resourceVersion; watch events delivered to and dropped before the controller's informers;
    /// objects in their caches.
    pub store_rv: u64,
    pub delivered: u64,
    pub dropped: u64,
    pub cached: usize,
    /// The first [`LOOP_ITEMS_SHOWN`] keys: processing, then queued (head first), then waiting (soonest first).
    pub items: Vec<QueueItemView>,
    /// The last watch events its informers received, oldest first (lost ones marked).
    pub recent: Vec<WatchTokenView>,
    /// Its latest reconcile: the key, the API calls it made, how it ended (`ok`, `requeued`, `error`, `dropped`).
    pub last: Option<(String, u32, &'static str)>,
    /// At speeds where single items blur: the last simulated second's rates, shown instead.
    pub rates: Option<LoopRates>,
    /// Its charts over the last simulated seconds.
    pub charts: Vec<ChartView>,
    /// The cluster's charts over the same seconds (API requests, pods by phase, drift).
    pub cluster_charts: Vec<ChartView>,
}

/// A watch event an informer of the loop's controller received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WatchTokenView {
    pub rv: u64,
    /// `ADDED`, `MODIFIED` or `DELETED`.
    pub type_: &'static str,
    /// `kind/name`.
    pub name: String,
    /// Lost to the drop fault: the cache never saw it.
    pub dropped: bool,
}

/// The loop's flow over the last simulated second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopRates {
    pub delivered: u64,
    pub dropped: u64,
    pub adds: u64,
    pub retries: u64,
    pub reconciles: u64,
    pub writes: u64,
}

/// Queue items the loop diagram draws (kubeloop's own bound: the rest are counted).
pub const LOOP_ITEMS_SHOWN: usize = 24;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueItemView {
    pub key: String,
    /// `queued`, `processing` or `backoff`.
    pub state: &'static str,
    /// The rate limiter's count of the key's retries (`NumRequeues`).
    pub retries: u32,
    /// Adds deduplicated into it since it was queued (1: only its own).
    pub adds: u32,
    /// Processing: how long so far; backoff: how long until it is queued again.
    pub for_ms: Millis,
    /// The edge-triggered ReplicaSet controller's delta the key stands for.
    pub edge: Option<kubeloop_engine::controllers::replicaset::EdgeWork>,
}

/// One chart over the last simulated seconds (one sample a second, the newest at the right).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartView {
    /// What it plots, by upstream's metric names where there is one (client-go's workqueue, the API server's).
    pub metric: &'static str,
    pub title: &'static str,
    /// Each line: its label and its samples.
    pub series: Vec<(&'static str, Vec<u32>)>,
    /// The simulated time of the newest sample.
    pub end: Millis,
}
