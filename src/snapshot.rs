//! What the page shows, as plain data built from the simulation at a bounded rate. Building it is linear in the
//! size of the cluster (one pass over pods, the store's pods-by-node index per node) and node cards whose node and
//! pods did not change are reused as the same `Rc`, so their components do not re-render.

use std::collections::VecDeque;
use std::rc::Rc;

use kubeloop_engine::api::{controller_of, Kind, ObjKey, Object, Pod, PodPhase, Str};
use kubeloop_engine::controller::{RecordOutcome, TriggerMode};
use kubeloop_engine::informer::ReflectorState;
use kubeloop_engine::sim::{ObserveMode, Sim, TimingProfile};
use kubeloop_engine::store::fnv1a;
use kubeloop_engine::time::Millis;
use rustc_hash::FxHashMap;

use crate::lessons::Figure;
use crate::stream::EventsView;

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
    /// Bound node; empty when unscheduled.
    pub node: Str,
    /// The `app` label (or the owner's name), for the tooltip and colour hint.
    pub app: Str,
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
            node: p.spec.node_name.clone(),
            app,
        }
    }

    /// A one-letter cue for the phase (colour is not the only signal).
    pub fn glyph(&self) -> &'static str {
        phase_glyph(self.phase)
    }
}

pub fn phase_glyph(p: PodPhase) -> &'static str {
    match p {
        PodPhase::Pending => "P",
        PodPhase::Running => "R",
        PodPhase::Succeeded => "S",
        PodPhase::Failed => "F",
        PodPhase::Unknown => "?",
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
pub struct Summary {
    pub running: usize,
    pub pending: usize,
    pub terminating: usize,
    pub pods: usize,
    pub nodes_ready: usize,
    pub nodes: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerView {
    pub name: &'static str,
    pub host: Str,
    pub depth: usize,
    /// Keys waiting for a delay (AddAfter / rate-limited retries).
    pub waiting: usize,
    pub adds: u64,
    pub retries: u64,
    pub busy: usize,
    pub workers: usize,
    pub reconciles: u64,
    pub errors: u64,
    pub requeues: u64,
    pub dropped: u64,
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
    pub cache: usize,
    pub last_rv: u64,
    pub received: u64,
    pub dropped: u64,
    pub drift: usize,
    pub relists: u64,
    pub resyncs: u64,
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
    /// `(kind, name, exists)` from the pod up: ReplicaSet, then Deployment.
    pub owners: Vec<(Str, Str, bool)>,
    /// `(type, status, reason / message)`
    pub conditions: Vec<(Str, Str, String)>,
    pub containers: Vec<String>,
    pub requests: String,
    pub events: Vec<EventLine>,
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
}

/// The outcome of the last apply.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct ApplyOutcome {
    /// Bumped on every apply (0: none yet).
    pub seq: u64,
    pub ok: bool,
    pub text: String,
    /// 1-based line of the error in the editor text.
    pub error_line: Option<usize>,
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
}

/// Everything the page shows.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    pub time: TimeView,
    pub summary: Summary,
    pub cluster: ClusterView,
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
    pub console: ConsoleView,
    pub loop_cfg: Rc<LoopView>,
    pub control_plane: Rc<ControlPlaneView>,
    pub timing: TimingProfile,
    pub lesson: Option<Rc<LessonView>>,
    pub editor: Rc<EditorLoad>,
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

pub fn build_loop(sim: &Sim, reads: ReadsView) -> LoopView {
    let mut edge_capable: Vec<&'static str> = Vec::new();
    for c in sim.hosts().iter().flat_map(|h| h.controllers.iter()) {
        if c.reconciler.supports_edge() && !edge_capable.contains(&c.name()) {
            edge_capable.push(c.name());
        }
    }
    let f = &sim.store().faults;
    LoopView {
        edge: sim.trigger_modes().iter().any(|(_, m)| *m == TriggerMode::Edge),
        edge_capable,
        polling: match sim.observe_mode() {
            ObserveMode::Polling { period } => Some(period),
            ObserveMode::Informer => None,
        },
        relist_ms: sim.relist_period(),
        conflict_pct: (f.conflict_fraction * 100.0).round().clamp(0.0, 100.0) as u32,
        latency_ms: f.api_latency,
        reject_creates: f.reject_pod_creates,
        conflicts: sim.store().clients().iter().map(|c| c.counters.conflicts).sum(),
        reads,
    }
}

/// A control-plane process's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcState {
    /// Holds the Lease: its controllers run.
    Leader,
    /// Running, waiting for the Lease.
    Standby,
    /// Running (no election).
    Running,
    Crashed,
}

impl ProcState {
    pub fn as_str(self) -> &'static str {
        match self {
            ProcState::Leader => "leader",
            ProcState::Standby => "standby",
            ProcState::Running => "running",
            ProcState::Crashed => "crashed",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessView {
    pub host: kubeloop_engine::sim::HostId,
    /// `cp-1`, `cp-2` (the replicas' identities) or the component's name.
    pub name: Str,
    pub component: Str,
    pub state: ProcState,
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

pub fn build_control_plane(sim: &Sim) -> ControlPlaneView {
    let mut order: Vec<kubeloop_engine::sim::HostId> = sim.host_ids().collect();
    // The controller manager replicas first, then the others.
    order.sort_by_key(|&h| (!sim.host(h).name.starts_with("kube-controller-manager/"), h));
    let processes = order
        .into_iter()
        .map(|h| {
            let host = sim.host(h);
            let state = match (&host.elector, host.running) {
                (_, false) => ProcState::Crashed,
                (Some(e), true) if e.leading => ProcState::Leader,
                (Some(_), true) => ProcState::Standby,
                (None, true) => ProcState::Running,
            };
            ProcessView {
                host: h,
                // The controller manager's replicas by their identity; a single-replica process by its component.
                name: match &host.elector {
                    Some(e) if host.name.starts_with("kube-controller-manager/") => e.identity.clone(),
                    _ => host.name.split('/').next().unwrap_or_default().into(),
                },
                component: host.name.split('/').next().unwrap_or_default().into(),
                state,
                controllers: if host.active() { host.controllers.len() } else { 0 },
            }
        })
        .collect();
    let lease = sim
        .store()
        .peek(Kind::Lease, &ObjKey::new("kube-system", "kube-controller-manager"))
        .and_then(|o| o.as_lease())
        .map(|l| LeaseView {
            holder: l.spec.holder_identity.clone(),
            renewed: l.spec.renew_time.map(|t| t.0),
            duration_s: l.spec.lease_duration_seconds.unwrap_or(0),
            transitions: l.spec.lease_transitions.unwrap_or(0),
        });
    ControlPlaneView { processes, lease }
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
}

pub fn build_lesson(sim: &Sim, run: &crate::liverun::LessonRun, reads: ReadsView) -> LessonView {
    let l = run.lesson;
    let steps = run
        .scenario
        .actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let label = a.label.clone().unwrap_or_else(|| a.what.to_string());
            (a.at, label, run.results.get(i).cloned())
        })
        .collect();
    let mut figures = Vec::new();
    for f in l.figures {
        lesson_figure(sim, *f, run.start, reads, &mut figures);
    }
    LessonView {
        id: l.id,
        title: l.title,
        watch: l.watch,
        offer_fast_demo: l.offer_fast_demo,
        events: l.events,
        steps,
        elapsed: sim.now().saturating_sub(run.start),
        figures,
    }
}

fn lesson_figure(sim: &Sim, f: Figure, start: Millis, reads: ReadsView, out: &mut Vec<(String, String)>) {
    let big = sim.store().count_of(Kind::Pod) > DOM_MAX_PODS;
    match f {
        Figure::Deployments => {
            for d in sim.store().objects(Kind::Deployment).filter_map(|o| o.as_deployment()) {
                let (mut running, mut terminating) = (0, 0);
                if !big {
                    for p in sim.store().objects(Kind::Pod).filter_map(|o| o.as_pod()) {
                        if p.metadata.namespace != d.metadata.namespace || !d.spec.selector.matches(&p.metadata.labels)
                        {
                            continue;
                        }
                        if p.metadata.is_terminating() {
                            terminating += 1;
                        } else if p.status.phase == PodPhase::Running {
                            running += 1;
                        }
                    }
                }
                let mut v = format!("desired {} · running {running}", d.replicas());
                if terminating > 0 {
                    v.push_str(&format!(" · terminating {terminating}"));
                }
                out.push((format!("deployment/{}", d.metadata.name), v));
            }
        }
        Figure::ReplicaSetSpec => {
            for d in sim.store().objects(Kind::Deployment).filter_map(|o| o.as_deployment()) {
                out.push((format!("deployment/{} spec.replicas", d.metadata.name), d.replicas().to_string()));
            }
            for r in sim.store().objects(Kind::ReplicaSet).filter_map(|o| o.as_replicaset()) {
                out.push((
                    format!("replicaset/{} spec.replicas", r.metadata.name),
                    format!("{} (status: {} pods)", r.replicas(), r.status.replicas),
                ));
            }
        }
        Figure::ResourceVersions => {
            for k in [Kind::Deployment, Kind::ReplicaSet, Kind::Pod] {
                for o in sim.store().objects(k) {
                    let m = o.meta();
                    out.push((
                        format!("{}/{} resourceVersion", k.name().to_lowercase(), m.name),
                        m.resource_version.to_string(),
                    ));
                }
            }
            out.push(("the store's resourceVersion (every write)".into(), sim.store().resource_version().to_string()));
        }
        Figure::Drift => {
            let mode =
                sim.trigger_modes().iter().find(|(n, _)| *n == "replicaset").map_or("level", |(_, m)| m.as_str());
            out.push(("replicaset controller trigger mode".into(), mode.to_string()));
            out.push(("drift (cached objects ≠ store)".into(), sim.drift().to_string()));
            let relists: u64 = sim.control_plane_informers().iter().map(|&i| sim.informers()[i].stats().relists).sum();
            out.push(("control-plane informer relists".into(), relists.to_string()));
            let timeouts: u64 =
                sim.control_plane_informers().iter().map(|&i| sim.informers()[i].stats().watch_timeouts).sum();
            out.push(("watches ended at their timeout (re-WATCH, no LIST)".into(), timeouts.to_string()));
            let period = match sim.relist_period() {
                0 => "off (upstream: LIST only after an error)".to_string(),
                p => format!("{} (kubeloop's own repair knob)", fmt_dur(p)),
            };
            out.push(("periodic relist".into(), period));
        }
        Figure::Reads => {
            let rate = |r: Option<Rate>, now: bool| match (r, now) {
                (Some(r), true) => {
                    format!("{}/min now (over the last {})", fmt_thousands(r.per_min), fmt_dur(r.over_ms))
                }
                (Some(r), false) => {
                    format!("{}/min (last measured)", fmt_thousands(r.per_min))
                }
                (None, true) => "measuring…".into(),
                (None, false) => "not measured yet".into(),
            };
            out.push(("API reads per minute, informers".into(), rate(reads.informer, !reads.polling_now)));
            out.push(("API reads per minute, polling".into(), rate(reads.polling, reads.polling_now)));
            out.push(("API reads so far".into(), sim.api_reads().to_string()));
        }
        Figure::Conflicts => {
            let mut total = 0;
            for c in sim.store().clients() {
                if c.counters.conflicts > 0 {
                    total += c.counters.conflicts;
                    out.push((format!("409 Conflict answered to {}", c.name), c.counters.conflicts.to_string()));
                }
            }
            out.push(("409 Conflicts in all".into(), total.to_string()));
            if let Some(c) = sim.controller("replicaset") {
                out.push((
                    "replicaset reconcile errors / retries".into(),
                    format!("{} / {}", c.stats.errors, c.queue.metrics(sim.now()).retries_total),
                ));
            }
        }
        Figure::Leader => {
            let leader = sim.controller_manager_leader().map(|h| crate::liverun::process_name(sim, h));
            out.push(("controller manager leading".into(), leader.unwrap_or_else(|| "none".into())));
            if let Some(l) = sim
                .store()
                .peek(Kind::Lease, &ObjKey::new("kube-system", "kube-controller-manager"))
                .and_then(|o| o.as_lease())
            {
                let renewed = l
                    .spec
                    .renew_time
                    .map_or("never".to_string(), |t| format!("{} ago", fmt_dur(sim.now().saturating_sub(t.0))));
                out.push((
                    "Lease kube-system/kube-controller-manager".into(),
                    format!(
                        "holder {} · renewed {renewed} · transitions {}",
                        l.spec.holder_identity,
                        l.spec.lease_transitions.unwrap_or(0)
                    ),
                ));
            }
        }
        Figure::RetryDelays => {
            let delays: Vec<String> = sim
                .log()
                .records
                .iter()
                .filter(|r| r.controller == "replicaset" && r.start >= start)
                .filter_map(|r| match &r.outcome {
                    RecordOutcome::Error { retry_in, .. } => Some(fmt_dur(*retry_in)),
                    _ => None,
                })
                .collect();
            let shown = if delays.len() > 12 {
                format!("{}, … ({} in all)", delays[..12].join(", "), delays.len())
            } else if delays.is_empty() {
                "none yet".into()
            } else {
                delays.join(", ")
            };
            out.push(("replicaset: failed reconciles, retried after".into(), shown));
        }
        Figure::DeadNodes => {
            for k in sim.kubelets().iter().filter(|k| !k.alive) {
                let node = sim.store().peek(Kind::Node, &ObjKey::cluster(&k.name)).and_then(|o| o.as_node());
                let ready = node.map_or("?", |n| n.ready_status());
                let taints: Vec<String> =
                    node.map(|n| n.spec.taints.iter().map(fmt_taint).collect()).unwrap_or_default();
                out.push((
                    format!("node {} (kubelet down)", k.name),
                    format!(
                        "Ready={ready}{}",
                        if taints.is_empty() { String::new() } else { format!(" · taints {}", taints.join(", ")) }
                    ),
                ));
            }
        }
    }
}

// ---- formatting -------------------------------------------------------------------------------------------------

/// Millicores as Kubernetes prints them (`250m`, `4`, `1.5`).
pub fn fmt_cpu(milli: i64) -> String {
    if milli % 1000 == 0 {
        format!("{}", milli / 1000)
    } else if milli < 1000 {
        format!("{milli}m")
    } else {
        format!("{:.2}", milli as f64 / 1000.0).trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Bytes in binary units (`128Mi`, `15.9Gi`).
pub fn fmt_mem(bytes: i64) -> String {
    const KI: f64 = 1024.0;
    let b = bytes as f64;
    let (v, unit) = if b >= KI * KI * KI {
        (b / (KI * KI * KI), "Gi")
    } else if b >= KI * KI {
        (b / (KI * KI), "Mi")
    } else if b >= KI {
        (b / KI, "Ki")
    } else {
        (b, "")
    };
    if (v - v.round()).abs() < 0.05 {
        format!("{}{unit}", v.round() as i64)
    } else {
        format!("{v:.1}{unit}")
    }
}

/// `72914` as `72,914`.
pub fn fmt_thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Simulated time in seconds with one decimal (`12.3 s`).
pub fn fmt_secs(t: Millis) -> String {
    format!("{}.{} s", t / 1000, (t % 1000) / 100)
}

/// A compact clock for narrow columns: `12.3 s` up to 100 s, then `12m05s`, then `52h59m`.
pub fn fmt_clock(t: Millis) -> String {
    if t < 100_000 {
        fmt_secs(t)
    } else if t < 3_600_000 {
        format!("{}m{:02}s", t / 60_000, (t % 60_000) / 1000)
    } else {
        format!("{}h{:02}m", t / 3_600_000, (t % 3_600_000) / 60_000)
    }
}

/// A duration for people (`350 ms`, `4.2 s`, `3m10s`, `17.2 h`).
pub fn fmt_dur(ms: Millis) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else if ms < 3_600_000 {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    } else {
        format!("{:.1} h", ms as f64 / 3_600_000.0)
    }
}

const WELL_KNOWN_LABEL_PREFIXES: [&str; 2] = ["kubernetes.io/", "beta.kubernetes.io/"];

fn user_labels(o: &Object) -> Vec<String> {
    o.meta()
        .labels
        .iter()
        .filter(|(k, _)| !WELL_KNOWN_LABEL_PREFIXES.iter().any(|p| k.starts_with(p)))
        .map(|(k, v)| format!("{k}={v}"))
        .collect()
}

fn fmt_taint(t: &kubeloop_engine::api::Taint) -> String {
    if t.value.is_empty() {
        format!("{}:{}", t.key, t.effect)
    } else {
        format!("{}={}:{}", t.key, t.value, t.effect)
    }
}

// ---- building -----------------------------------------------------------------------------------------------------

/// Reuses node cards across snapshots.
#[derive(Default)]
pub struct NodeCache {
    cards: FxHashMap<Str, (u64, Rc<NodeView>)>,
}

/// Pods that count against a node's resources (not finished).
fn counts_on_node(p: &Pod) -> bool {
    !p.status.phase.is_terminal()
}

impl NodeCache {
    fn card(&mut self, sim: &Sim, name: &Str, alive: bool) -> Rc<NodeView> {
        let node_obj = sim.store().peek(Kind::Node, &ObjKey::cluster(name));
        let mut fp = fnv1a(0xcbf2_9ce4_8422_2325, &[alive as u8]);
        fp = fnv1a(fp, &node_obj.map_or(0, |o| o.meta().resource_version).to_le_bytes());
        for p in sim.store().pods_on_node(name) {
            fp = fnv1a(fp, &p.meta().resource_version.to_le_bytes());
        }
        if let Some((old, card)) = self.cards.get(name) {
            if *old == fp {
                return card.clone();
            }
        }
        let node = node_obj.and_then(|o| o.as_node());
        let template = sim.kubelet(name).map(|k| &k.config);
        let alloc = |r: &str| -> i64 {
            match node.and_then(|n| n.status.allocatable.get(r)) {
                Some(q) if r == "cpu" => q.milli(),
                Some(q) => q.value(),
                None => match (template, r) {
                    (Some(t), "cpu") => t.cpu.milli(),
                    (Some(t), "memory") => t.memory.value(),
                    (Some(t), _) => t.pods,
                    (None, _) => 0,
                },
            }
        };
        let mut pods = Vec::new();
        let (mut cpu, mut mem) = (0i64, 0i64);
        for p in sim.store().pods_on_node(name).filter_map(|o| o.as_pod()) {
            if counts_on_node(p) {
                // Saturated: a huge request must not wrap the node's total.
                cpu = cpu.saturating_add(p.request("cpu"));
                mem = mem.saturating_add(p.request("memory"));
            }
            pods.push(PodView::of(p));
        }
        let card = Rc::new(NodeView {
            name: name.clone(),
            ready: node.map_or(Ready::Unknown, |n| Ready::from_status(n.ready_status())),
            alive,
            unschedulable: node.is_some_and(|n| n.spec.unschedulable),
            taints: node.map(|n| n.spec.taints.iter().map(fmt_taint).collect()).unwrap_or_default(),
            labels: node_obj.map(|o| user_labels(o)).unwrap_or_default(),
            cpu_req: cpu,
            cpu_alloc: alloc("cpu"),
            mem_req: mem,
            mem_alloc: alloc("memory"),
            pods_alloc: alloc("pods"),
            pods,
        });
        self.cards.insert(name.clone(), (fp, card.clone()));
        card
    }
}

/// Every node name with whether its kubelet runs: kubelets in the order they were added, then Node objects that
/// have no simulated kubelet.
fn node_names(sim: &Sim) -> Vec<(Str, bool)> {
    let mut out: Vec<(Str, bool)> = sim.kubelets().iter().map(|k| (k.name.clone(), k.alive)).collect();
    if sim.store().count_of(Kind::Node) > out.len() {
        for o in sim.store().objects(Kind::Node) {
            if sim.kubelet(&o.meta().name).is_none() {
                out.push((o.meta().name.clone(), false));
            }
        }
    }
    out
}

pub fn build_cluster(sim: &Sim, cache: &mut NodeCache) -> ClusterView {
    let names = node_names(sim);
    let pods = sim.store().count_of(Kind::Pod);
    if names.len() > DOM_MAX_NODES || pods > DOM_MAX_PODS {
        cache.cards.clear();
        return ClusterView::Compact(Rc::new(build_compact(sim, &names)));
    }
    if cache.cards.len() > names.len() {
        cache.cards.retain(|k, _| names.iter().any(|(n, _)| n == k));
    }
    let nodes: Vec<Rc<NodeView>> = names.iter().map(|(n, alive)| cache.card(sim, n, *alive)).collect();
    let unscheduled: Vec<PodView> = sim
        .store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .filter(|p| p.spec.node_name.is_empty())
        .map(PodView::of)
        .collect();
    ClusterView::Dom { nodes: Rc::new(nodes), unscheduled: Rc::new(unscheduled) }
}

fn build_compact(sim: &Sim, names: &[(Str, bool)]) -> CompactCluster {
    let mut index: FxHashMap<&str, usize> = FxHashMap::default();
    index.reserve(names.len());
    let mut nodes: Vec<CompactNode> = names
        .iter()
        .enumerate()
        .map(|(i, (name, alive))| {
            index.insert(name, i);
            let node = sim.store().peek(Kind::Node, &ObjKey::cluster(name)).and_then(|o| o.as_node());
            let capacity = node
                .and_then(|n| n.status.allocatable.get("pods"))
                .map(|q| q.value())
                .or_else(|| sim.kubelet(name).map(|k| k.config.pods))
                .unwrap_or(110);
            CompactNode {
                name: name.clone(),
                ready: node.map_or(Ready::Unknown, |n| Ready::from_status(n.ready_status())),
                alive: *alive,
                unschedulable: node.is_some_and(|n| n.spec.unschedulable),
                running: 0,
                pending: 0,
                terminating: 0,
                other: 0,
                capacity: capacity.clamp(0, u32::MAX as i64) as u32,
            }
        })
        .collect();
    let mut unscheduled = 0;
    for p in sim.store().objects(Kind::Pod).filter_map(|o| o.as_pod()) {
        let Some(&i) = index.get(&*p.spec.node_name) else {
            unscheduled += 1;
            continue;
        };
        let n = &mut nodes[i];
        if p.metadata.is_terminating() {
            n.terminating += 1;
        } else {
            match p.status.phase {
                PodPhase::Running => n.running += 1,
                PodPhase::Pending => n.pending += 1,
                _ => n.other += 1,
            }
        }
    }
    CompactCluster { nodes, unscheduled }
}

pub fn build_summary(sim: &Sim) -> Summary {
    let (running, pending, terminating) = sim.pod_counts();
    Summary {
        running,
        pending,
        terminating,
        pods: sim.store().count_of(Kind::Pod),
        nodes_ready: sim.nodes_ready(),
        nodes: sim.store().count_of(Kind::Node).max(sim.kubelets().len()),
    }
}

/// The host of a process as the page names it: controller manager replicas with their identity.
fn host_label(sim: &Sim, h: usize) -> Str {
    sim.hosts()[h].name.clone()
}

/// One row per controller name (replicas of a component show the active one, the leader; with none active, the
/// first), in `queue_depths` order, with its depth samples.
pub fn build_controllers(sim: &Sim, history: &[VecDeque<u32>]) -> Vec<ControllerView> {
    let now = sim.now();
    let mut picked: Vec<(usize, usize)> = Vec::new();
    for (h, host) in sim.hosts().iter().enumerate() {
        for (i, c) in host.controllers.iter().enumerate() {
            match picked.iter_mut().find(|(ph, pi)| sim.hosts()[*ph].controllers[*pi].name() == c.name()) {
                Some(slot) if host.active() && !sim.hosts()[slot.0].active() => *slot = (h, i),
                Some(_) => {}
                None => picked.push((h, i)),
            }
        }
    }
    picked
        .into_iter()
        .enumerate()
        .map(|(i, (h, ci))| {
            let host = &sim.hosts()[h];
            let c = &host.controllers[ci];
            let m = c.queue.metrics(now);
            let mut label = host_label(sim, h);
            if !host.active() {
                label = format!("{label}: not running").into();
            }
            ControllerView {
                name: c.name(),
                host: label,
                depth: c.queue.len(),
                waiting: c.queue.waiting_len(),
                adds: m.adds_total,
                retries: m.retries_total,
                busy: c.busy_workers(),
                workers: c.workers.len(),
                reconciles: c.stats.reconciles,
                errors: c.stats.errors,
                requeues: c.stats.requeues,
                dropped: c.stats.dropped,
                history: Rc::new(history.get(i).map(|d| d.iter().copied().collect()).unwrap_or_default()),
            }
        })
        .collect()
}

fn state_name(s: ReflectorState) -> &'static str {
    match s {
        ReflectorState::Stopped => "stopped",
        ReflectorState::Listing => "listing",
        ReflectorState::Watching(_) => "watching",
    }
}

/// One row per informer of a host, and one aggregated row for the kubelets' pod informers. Returns the rows and
/// the total drift (the same figure as `Sim::drift`, computed once). Drift compares every cached object with the
/// store, the one costly figure at scale: with `prev_drift`, the drift of the previous rows is reused instead.
pub fn build_informers(sim: &Sim, prev_drift: Option<&[InformerView]>) -> (Vec<InformerView>, usize) {
    let reuse = |i: usize| prev_drift.and_then(|p| p.get(i)).map(|r| r.drift).unwrap_or(0);
    let fresh = prev_drift.is_none();
    let mut rows = Vec::new();
    let mut owned = vec![false; sim.informers().len()];
    let mut total = 0;
    for (hi, h) in sim.hosts().iter().enumerate() {
        if h.elector.is_some() && !h.active() {
            // A standby (or crashed) replica: its informers are stopped; one compact row.
            let mut row = InformerView {
                name: format!("{} informers", h.informers.iter().flatten().count()),
                owner: host_label(sim, hi).to_string(),
                state: if h.running { "standby" } else { "crashed" },
                cache: 0,
                last_rv: 0,
                received: 0,
                dropped: 0,
                drift: 0,
                relists: 0,
                resyncs: 0,
            };
            for id in h.informers.iter().flatten() {
                let Some(inf) = sim.informers().get(*id) else { continue };
                owned[*id] = true;
                if fresh {
                    row.drift += inf.drift(sim.store());
                }
                row.cache += inf.cache.len();
                row.last_rv = row.last_rv.max(inf.last_rv());
                row.received += inf.stats().events_received;
                row.dropped += inf.stats().events_dropped;
                row.relists += inf.stats().relists;
                row.resyncs += inf.stats().resyncs;
            }
            if !fresh {
                row.drift = reuse(rows.len());
            }
            total += row.drift;
            rows.push(row);
            continue;
        }
        for id in h.informers.iter().flatten() {
            let Some(inf) = sim.informers().get(*id) else { continue };
            owned[*id] = true;
            let drift = if fresh { inf.drift(sim.store()) } else { reuse(rows.len()) };
            total += drift;
            rows.push(InformerView {
                name: inf.kind.plural().to_string(),
                owner: host_label(sim, hi).to_string(),
                state: state_name(inf.state()),
                cache: inf.cache.len(),
                last_rv: inf.last_rv(),
                received: inf.stats().events_received,
                dropped: inf.stats().events_dropped,
                drift,
                relists: inf.stats().relists,
                resyncs: inf.stats().resyncs,
            });
        }
    }
    let mut agg = InformerView {
        name: String::new(),
        owner: "kubelet (one per node, pods bound to it)".into(),
        state: "stopped",
        cache: 0,
        last_rv: 0,
        received: 0,
        dropped: 0,
        drift: 0,
        relists: 0,
        resyncs: 0,
    };
    let (mut n, mut watching) = (0, 0);
    for (id, inf) in sim.informers().iter().enumerate() {
        if owned[id] {
            continue;
        }
        n += 1;
        if matches!(inf.state(), ReflectorState::Watching(_)) {
            watching += 1;
        }
        let drift = if fresh { inf.drift(sim.store()) } else { 0 };
        total += drift;
        agg.cache += inf.cache.len();
        agg.last_rv = agg.last_rv.max(inf.last_rv());
        agg.received += inf.stats().events_received;
        agg.dropped += inf.stats().events_dropped;
        agg.drift += drift;
        agg.relists += inf.stats().relists;
        agg.resyncs += inf.stats().resyncs;
    }
    if !fresh {
        agg.drift = reuse(rows.len());
        total += agg.drift;
    }
    if n > 0 {
        agg.name = format!("kubelet pods ({n} node{})", if n == 1 { "" } else { "s" });
        agg.owner = format!("{n} kubelet{}, field-selected watches", if n == 1 { "" } else { "s" });
        agg.state = if watching == n {
            "watching"
        } else if watching == 0 {
            "stopped"
        } else {
            "partly watching"
        };
        rows.push(agg);
    }
    (rows, total)
}

fn event_lines(sim: &Sim, kind: &str, key: &ObjKey) -> Vec<EventLine> {
    let ns: &str = if key.namespace.is_empty() { "default" } else { &key.namespace };
    let mut v: Vec<EventLine> = sim
        .store()
        .objects(Kind::Event)
        .filter_map(|o| o.as_event())
        .filter(|e| {
            let io = &e.body.involved_object;
            &*e.metadata.namespace == ns && &*io.kind == kind && io.name == key.name && io.namespace == key.namespace
        })
        .map(|e| EventLine {
            rv: e.metadata.resource_version,
            at: e.body.last_timestamp.map_or(0, |t| t.0),
            type_: e.body.type_.clone(),
            reason: e.body.reason.clone(),
            message: e.body.message.clone(),
            count: e.body.count,
            source: e.body.source.component.clone(),
        })
        .collect();
    v.sort_by_key(|e| (e.at, e.rv));
    v
}

fn pod_detail(sim: &Sim, key: &ObjKey) -> PodDetail {
    let Some(p) = sim.store().peek(Kind::Pod, key).and_then(|o| o.as_pod()) else {
        return PodDetail {
            key: key.clone(),
            exists: false,
            uid: "".into(),
            phase: PodPhase::Unknown,
            terminating: false,
            node: "".into(),
            rv: 0,
            created: None,
            deletion: None,
            owners: Vec::new(),
            conditions: Vec::new(),
            containers: Vec::new(),
            requests: String::new(),
            events: event_lines(sim, "Pod", key),
        };
    };
    let mut owners = Vec::new();
    let mut next = controller_of(&p.metadata).cloned();
    while let Some(r) = next.take() {
        if owners.len() >= 4 {
            break;
        }
        let kind = match &*r.kind {
            "ReplicaSet" => Some(Kind::ReplicaSet),
            "Deployment" => Some(Kind::Deployment),
            _ => None,
        };
        let owner_key = ObjKey { namespace: p.metadata.namespace.clone(), name: r.name.clone() };
        let found = kind.and_then(|k| sim.store().peek(k, &owner_key));
        owners.push((r.kind.clone(), r.name.clone(), found.is_some()));
        next = found.and_then(|o| controller_of(o.meta()).cloned());
    }
    let conditions = p
        .status
        .conditions
        .iter()
        .map(|c| {
            let why = match (c.reason.is_empty(), c.message.is_empty()) {
                (true, true) => String::new(),
                (false, true) => c.reason.to_string(),
                (true, false) => c.message.to_string(),
                (false, false) => format!("{}: {}", c.reason, c.message),
            };
            (c.type_.clone(), c.status.clone(), why)
        })
        .collect();
    let containers = p
        .spec
        .containers
        .iter()
        .map(|c| {
            let st = p.status.container_statuses.iter().find(|s| s.name == c.name);
            let state = match st {
                Some(s) if s.state.running.is_some() => "running".to_string(),
                Some(s) => match (&s.state.waiting, &s.state.terminated) {
                    (Some(w), _) => format!("waiting: {}", w.reason),
                    (_, Some(t)) => format!("terminated: {}", t.reason),
                    _ => "waiting".into(),
                },
                None => "not created".into(),
            };
            format!("{} ({}) {state}", c.name, c.image)
        })
        .collect();
    let requests = format!("cpu {} · memory {}", fmt_cpu(p.request("cpu")), fmt_mem(p.request("memory")));
    PodDetail {
        key: key.clone(),
        exists: true,
        uid: p.metadata.uid.clone(),
        phase: p.status.phase,
        terminating: p.metadata.is_terminating(),
        node: p.spec.node_name.clone(),
        rv: p.metadata.resource_version,
        created: p.metadata.creation_timestamp.map(|t| t.0),
        deletion: p.metadata.deletion_timestamp.map(|t| t.0),
        owners,
        conditions,
        containers,
        requests,
        events: event_lines(sim, "Pod", key),
    }
}

fn node_detail(sim: &Sim, name: &Str) -> NodeDetail {
    let key = ObjKey::cluster(name);
    let obj = sim.store().peek(Kind::Node, &key);
    let node = obj.and_then(|o| o.as_node());
    let kubelet = sim.kubelet(name);
    let capacity = match node {
        Some(n) => {
            let q = |r: &str| n.status.allocatable.get(r).map(|q| q.as_str().to_string()).unwrap_or_else(|| "?".into());
            format!("cpu {} · memory {} · pods {}", q("cpu"), q("memory"), q("pods"))
        }
        None => String::new(),
    };
    let lease_renewed = sim
        .store()
        .peek(Kind::Lease, &ObjKey::new("kube-node-lease", name))
        .and_then(|o| o.as_lease())
        .and_then(|l| l.spec.renew_time)
        .map(|t| t.0);
    NodeDetail {
        name: name.clone(),
        exists: node.is_some(),
        ready: node.map_or(Ready::Unknown, |n| Ready::from_status(n.ready_status())),
        alive: kubelet.is_some_and(|k| k.alive),
        unschedulable: node.is_some_and(|n| n.spec.unschedulable),
        rv: obj.map_or(0, |o| o.meta().resource_version),
        conditions: node
            .map(|n| {
                n.status.conditions.iter().map(|c| (c.type_.clone(), c.status.clone(), c.reason.clone())).collect()
            })
            .unwrap_or_default(),
        labels: obj.map(|o| o.meta().labels.iter().map(|(k, v)| format!("{k}={v}")).collect()).unwrap_or_default(),
        taints: node.map(|n| n.spec.taints.iter().map(fmt_taint).collect()).unwrap_or_default(),
        capacity,
        lease_renewed,
        pods: sim.store().pods_on_node(name).count(),
        events: event_lines(sim, "Node", &key),
    }
}

pub fn build_detail(sim: &Sim, sel: &Selection) -> Option<Detail> {
    match sel {
        Selection::None => None,
        Selection::Pod(key) => Some(Detail::Pod(pod_detail(sim, key))),
        Selection::Node(name) => Some(Detail::Node(node_detail(sim, name))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_print_like_kubernetes() {
        assert_eq!(fmt_cpu(250), "250m");
        assert_eq!(fmt_cpu(4000), "4");
        assert_eq!(fmt_cpu(1500), "1.5");
        assert_eq!(fmt_mem(128 << 20), "128Mi");
        assert_eq!(fmt_mem((16 << 30) - (100 << 20)), "15.9Gi");
        assert_eq!(fmt_secs(12_345), "12.3 s");
        assert_eq!(fmt_dur(43_200_000), "12.0 h");
        assert_eq!(fmt_clock(99_900), "99.9 s");
        assert_eq!(fmt_clock(725_000), "12m05s");
        assert_eq!(fmt_clock(190_761_800), "52h59m");
        assert_eq!(fmt_thousands(0), "0");
        assert_eq!(fmt_thousands(999), "999");
        assert_eq!(fmt_thousands(72_914), "72,914");
        assert_eq!(fmt_thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn speeds_parse() {
        assert_eq!(Speed::parse("10"), Some(Speed::X(10)));
        assert_eq!(Speed::parse("max"), Some(Speed::Max));
        assert_eq!(Speed::parse("0"), None);
        assert_eq!(Speed::parse("fast"), None);
    }
}
