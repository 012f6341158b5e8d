//! Builds what the page shows (the view types of `view.rs`) from the simulation, at a bounded rate. Building it is linear in the
//! size of the cluster (one pass over pods, the store's pods-by-node index per node) and node cards whose node and
//! pods did not change are reused as the same `Rc`, so their components do not re-render.

use std::collections::VecDeque;
use std::rc::Rc;

use kubeloop_engine::addons;
use kubeloop_engine::api::{controller_of, Kind, ObjKey, Pod, PodPhase, Str};
use kubeloop_engine::behaviour::Sigterm;
use kubeloop_engine::controller::{HostState, QueueItemState, RecordOutcome, TriggerMode};
use kubeloop_engine::controllers::scheduler::{Profile, Weights, FILTER_PLUGINS};
use kubeloop_engine::fnv::{fnv1a, FNV_OFFSET};
use kubeloop_engine::informer::{InformerId, InformerTotals, ReflectorState};
use kubeloop_engine::sim::{ObserveMode, Sim};
use kubeloop_engine::store::PodTally;
use kubeloop_engine::time::Millis;

use crate::format::*;
use crate::view::*;

pub mod history;
mod lesson;

pub use lesson::build_lesson;

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

pub fn build_control_plane(sim: &Sim) -> ControlPlaneView {
    let mut order: Vec<kubeloop_engine::sim::HostId> = sim.host_ids().collect();
    // The controller manager replicas first, then the others.
    kubeloop_engine::sort::sort_by_key(&mut order, |&h| (!sim.host(h).name.starts_with("kube-controller-manager/"), h));
    let processes = order
        .into_iter()
        .map(|h| {
            let host = sim.host(h);
            let component: Str = host.name.split('/').next().unwrap_or_default().into();
            ProcessView {
                host: h,
                // The controller manager's replicas by their identity; a single-replica process by its component.
                name: match host.identity() {
                    Some(id) if &*component == "kube-controller-manager" => id.clone(),
                    _ => component.clone(),
                },
                component,
                state: host.state(),
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

/// Reuses node cards across snapshots: the card of the node at each place of the node list (at most
/// [`DOM_MAX_NODES`]), with the fingerprint it was made at. A node list that changed in the middle rebuilds the cards
/// after the change.
#[derive(Default)]
pub struct NodeCache {
    cards: Vec<(u64, Rc<NodeView>)>,
}

/// Pods that count against a node's resources (not finished).
fn counts_on_node(p: &Pod) -> bool {
    !p.status.phase.is_terminal()
}

/// kube-system's add-on pods (kube-proxy, kindnet, CoreDNS), which the cluster view and the summary leave out unless
/// the person asks to see them: tallied by phase, in all and by node (a walk of kube-system's pods only).
#[derive(Default)]
pub struct HiddenAddons {
    pub all: PodTally,
    by_node: Vec<(Str, PodTally)>,
    shown: bool,
}

impl HiddenAddons {
    pub fn of(sim: &Sim, shown: bool) -> HiddenAddons {
        let mut h = HiddenAddons { shown, ..HiddenAddons::default() };
        if shown {
            return h;
        }
        for p in sim.store().in_namespace(Kind::Pod, "kube-system").filter_map(|o| o.as_pod()) {
            if !addons::is_addon_pod(p) {
                continue;
            }
            h.all.count(p, true);
            match h.by_node.binary_search_by(|(n, _)| n.cmp(&p.spec.node_name)) {
                Ok(i) => h.by_node[i].1.count(p, true),
                Err(i) => {
                    let mut t = PodTally::default();
                    t.count(p, true);
                    h.by_node.insert(i, (p.spec.node_name.clone(), t));
                }
            }
        }
        h
    }

    fn on(&self, node: &str) -> PodTally {
        self.by_node.binary_search_by(|(n, _)| (**n).cmp(node)).map(|i| self.by_node[i].1).unwrap_or_default()
    }

    /// Whether a pod is left out of the view.
    fn hides(&self, p: &Pod) -> bool {
        self.all.total() > 0 && addons::is_addon_pod(p)
    }
}

impl NodeCache {
    fn card(&mut self, at: usize, sim: &Sim, name: &Str, alive: bool, hidden: &HiddenAddons) -> Rc<NodeView> {
        let node_obj = sim.store().peek(Kind::Node, &ObjKey::cluster(name));
        let mut fp = fnv1a(FNV_OFFSET, &[alive as u8, u8::from(hidden.all.total() > 0)]);
        fp = fnv1a(fp, &node_obj.map_or(0, |o| o.meta().resource_version).to_le_bytes());
        for p in sim.store().pods_on_node(name) {
            fp = fnv1a(fp, &p.meta().resource_version.to_le_bytes());
        }
        if let Some((old, card)) = self.cards.get(at) {
            if *old == fp && card.name == *name {
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
            // A hidden add-on's requests still take the node's room.
            if !hidden.hides(p) {
                pods.push(PodView::of(p));
            }
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
        match self.cards.get_mut(at) {
            Some(slot) => *slot = (fp, card.clone()),
            None => self.cards.push((fp, card.clone())),
        }
        card
    }
}

/// Every node name with whether its kubelet runs: kubelets in the order they were added, then Node objects that
/// have no simulated kubelet.
pub(crate) fn node_names(sim: &Sim) -> Vec<(Str, bool)> {
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

pub fn build_cluster(sim: &Sim, cache: &mut NodeCache, hidden: &HiddenAddons) -> ClusterView {
    let names = node_names(sim);
    let pods = sim.store().count_of(Kind::Pod) - hidden.all.total();
    if names.len() > DOM_MAX_NODES || pods > DOM_MAX_PODS {
        cache.cards.clear();
        return ClusterView::Compact(Rc::new(build_compact(sim, &names, hidden)));
    }
    cache.cards.truncate(names.len());
    let nodes: Vec<Rc<NodeView>> =
        names.iter().enumerate().map(|(i, (n, alive))| cache.card(i, sim, n, *alive, hidden)).collect();
    let unscheduled: Vec<PodView> = sim
        .store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .filter(|p| p.spec.node_name.is_empty() && !hidden.hides(p))
        .map(PodView::of)
        .collect();
    ClusterView::Dom { nodes: Rc::new(nodes), unscheduled: Rc::new(unscheduled) }
}

/// The canvas's nodes, each with its pods by phase as the store tallies them at every write: no pod is visited, so
/// a snapshot of a large cluster costs O(nodes).
fn build_compact(sim: &Sim, names: &[(Str, bool)], hidden: &HiddenAddons) -> CompactCluster {
    let store = sim.store();
    let mut bound = 0;
    let nodes: Vec<CompactNode> = names
        .iter()
        .map(|(name, alive)| {
            let node = store.peek(Kind::Node, &ObjKey::cluster(name)).and_then(|o| o.as_node());
            let capacity = node
                .and_then(|n| n.status.allocatable.get("pods"))
                .map(|q| q.value())
                .or_else(|| sim.kubelet(name).map(|k| k.config.pods))
                .unwrap_or(110);
            let t = less(&store.pod_tally_on_node(name), &hidden.on(name));
            let n32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
            bound += t.total();
            CompactNode {
                name: name.clone(),
                ready: node.map_or(Ready::Unknown, |n| Ready::from_status(n.ready_status())),
                alive: *alive,
                unschedulable: node.is_some_and(|n| n.spec.unschedulable),
                running: n32(t.running),
                pending: n32(t.pending),
                terminating: n32(t.terminating),
                other: n32(t.succeeded + t.failed + t.unknown),
                capacity: capacity.clamp(0, u32::MAX as i64) as u32,
            }
        })
        .collect();
    // Pods on no node drawn: not bound yet, or bound to a node that is gone.
    let unscheduled = store.count_of(Kind::Pod).saturating_sub(hidden.all.total()).saturating_sub(bound);
    CompactCluster { nodes, unscheduled }
}

/// A tally less the hidden pods'.
fn less(t: &PodTally, hidden: &PodTally) -> PodTally {
    PodTally {
        pending: t.pending.saturating_sub(hidden.pending),
        running: t.running.saturating_sub(hidden.running),
        succeeded: t.succeeded.saturating_sub(hidden.succeeded),
        failed: t.failed.saturating_sub(hidden.failed),
        unknown: t.unknown.saturating_sub(hidden.unknown),
        terminating: t.terminating.saturating_sub(hidden.terminating),
    }
}

/// The pods by phase (less the hidden add-ons', which `hidden` says) and the nodes.
pub fn build_summary(sim: &Sim, hidden: &HiddenAddons) -> CountsView {
    let t = less(&sim.store().pod_tally(), &hidden.all);
    CountsView {
        running: t.running,
        pending: t.pending,
        terminating: t.terminating,
        hidden: hidden.all.total(),
        addons_shown: hidden.shown,
        pods: sim.store().count_of(Kind::Pod) - hidden.all.total(),
        nodes_ready: sim.nodes_ready(),
        nodes: sim.store().count_of(Kind::Node).max(sim.kubelets().len()),
    }
}

/// One row per controller name (the engine's [`Sim::controllers_by_name`]: replicas of a component show the
/// active one, the leader; with none active, the first), with its depth samples.
pub fn build_controllers(sim: &Sim, history: &[VecDeque<u32>]) -> Vec<ControllerView> {
    let now = sim.now();
    sim.controllers_by_name()
        .into_iter()
        .enumerate()
        .map(|(i, (h, c))| {
            let host = sim.host(h);
            let mut label = host.name.clone();
            if !host.active() {
                label = format!("{label}: not running").into();
            }
            ControllerView {
                status: c.status(now),
                host: label,
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

/// An informer row of summed figures ([`Sim::informer_totals`]).
fn totals_row(name: String, owner: String, state: &'static str, t: InformerTotals, drift: usize) -> InformerView {
    InformerView { name, owner, state, totals: t, drift }
}

/// One row of the informer table, its drift not measured yet (0): what it shows, the informers it sums, and a key
/// that stays the same while the row does (its name can change: `kubelet pods (N nodes)`).
pub struct InformerRow {
    pub key: String,
    pub view: InformerView,
    pub ids: Vec<InformerId>,
}

/// One row per informer of a host (a standby or crashed replica: one compact row), and one aggregated row for the
/// kubelets' pod informers. Drift, the one costly figure at scale (every cached object compared with the store),
/// is left to the caller: [`build_informers`] measures it whole, the page's [`crate::driftmeter::DriftMeter`] in
/// parts.
pub fn informer_rows(sim: &Sim) -> Vec<InformerRow> {
    let mut rows: Vec<InformerRow> = Vec::new();
    for h in sim.host_ids() {
        let host = sim.host(h);
        let ids: Vec<InformerId> = host.informers.iter().flatten().copied().collect();
        if host.identity().is_some() && !host.active() {
            // A standby (or crashed) replica: its informers are stopped; one compact row.
            let state = if host.state() == HostState::Crashed { "crashed" } else { "standby" };
            let name = format!("{} informers", ids.len());
            let view = totals_row(name, host.name.to_string(), state, sim.informer_totals(ids.iter().copied()), 0);
            rows.push(InformerRow { key: format!("{}/{state}", host.name), view, ids });
            continue;
        }
        for id in ids {
            let Some(inf) = sim.informers().get(id) else { continue };
            let name = inf.kind.plural().to_string();
            let view = totals_row(name, host.name.to_string(), state_name(inf.state()), sim.informer_totals([id]), 0);
            rows.push(InformerRow { key: format!("{}/{}", host.name, view.name), view, ids: vec![id] });
        }
    }
    let kubelets: Vec<InformerId> = sim.kubelet_informers().collect();
    let n = kubelets.len();
    if n > 0 {
        let plural = if n == 1 { "" } else { "s" };
        let (name, owner) =
            (format!("kubelet pods ({n} node{plural})"), format!("{n} kubelet{plural}, field-selected watches"));
        let t = sim.informer_totals(kubelets.iter().copied());
        let state = match t.watching {
            w if w == n => "watching",
            0 => "stopped",
            _ => "partly watching",
        };
        rows.push(InformerRow { key: "kubelets".into(), view: totals_row(name, owner, state, t, 0), ids: kubelets });
    }
    rows
}

/// The informer rows with their drift measured whole, and the total (the same figure as `Sim::drift`).
pub fn build_informers(sim: &Sim) -> (Vec<InformerView>, usize) {
    let rows: Vec<InformerView> = informer_rows(sim)
        .into_iter()
        .map(|r| {
            let drift = r.ids.iter().filter_map(|id| sim.informers().get(*id)).map(|i| i.drift(sim.store())).sum();
            InformerView { drift, ..r.view }
        })
        .collect();
    let total = rows.iter().map(|r| r.drift).sum();
    (rows, total)
}

fn event_lines(sim: &Sim, kind: &str, key: &ObjKey) -> Vec<EventLine> {
    let ns: &str = if key.namespace.is_empty() { "default" } else { &key.namespace };
    // The store's index of Events by involved object (the field selector `kubectl describe` uses), not every Event.
    let about = kubeloop_engine::watch::WatchFilter::InvolvedObject(kind.into(), key.name.clone());
    let mut v: Vec<EventLine> = sim
        .store()
        .filtered(Kind::Event, &about)
        .filter_map(|o| o.as_event())
        // The index answers by kind and name; the namespaces are left to check.
        .filter(|e| &*e.metadata.namespace == ns && e.body.involved_object.namespace == key.namespace)
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
    kubeloop_engine::sort::sort_by_key(&mut v, |e| (e.at, e.rv));
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
            grace: 30,
            stopping: Vec::new(),
            owners: Vec::new(),
            conditions: Vec::new(),
            containers: Vec::new(),
            requests: String::new(),
            events: event_lines(sim, "Pod", key),
            app: None,
            schedule: None,
            why: None,
            history: None,
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
                Some(s) if s.state.running.is_some() => {
                    if s.ready {
                        "running, ready".to_string()
                    } else {
                        "running, not ready".to_string()
                    }
                }
                Some(s) => match (&s.state.waiting, &s.state.terminated) {
                    (Some(w), _) => format!("waiting: {}", w.reason),
                    (_, Some(t)) => format!("terminated: {} (exit code {})", t.reason, t.exit_code),
                    _ => "waiting".into(),
                },
                None => "not created".into(),
            };
            let restarts = st.map_or(0, |s| s.restart_count);
            let restarts = if restarts > 0 { format!(" · {restarts} restart(s)") } else { String::new() };
            format!("{} ({}) {state}{restarts}", c.name, c.image)
        })
        .collect();
    let requests = format!("cpu {} · memory {}", fmt_cpu(p.request("cpu")), fmt_mem(p.request("memory")));
    let app = sim.pod_behaviour(key).map(|v| AppState {
        readiness_fails: v.iter().any(|(_, b)| b.readiness_fails),
        liveness_fails: v.iter().any(|(_, b)| b.liveness_fails),
        crash_after: v.iter().find_map(|(_, b)| b.crash_after),
        unpullable: v.iter().any(|(_, b)| b.unpullable),
        ignores_sigterm: v.iter().any(|(_, b)| b.on_sigterm == Some(Sigterm::Ignore)),
    });
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
        grace: p.spec.termination_grace_period_seconds.unwrap_or(30),
        stopping: stopping_lines(sim, key, p),
        owners,
        conditions,
        containers,
        requests,
        events: event_lines(sim, "Pod", key),
        app,
        schedule: None,
        why: None,
        history: None,
    }
}

/// A terminating pod's countdown: the grace period left (from its deletionTimestamp), then what its kubelet is
/// doing with each container (the preStop hook, SIGTERM sent, SIGKILL due).
fn stopping_lines(sim: &Sim, key: &ObjKey, p: &Pod) -> Vec<String> {
    let Some(end) = p.metadata.deletion_timestamp.map(|t| t.0) else { return Vec::new() };
    let now = sim.now();
    let grace = p.metadata.deletion_grace_period_seconds.unwrap_or(0);
    let mut lines = vec![format!("grace period {grace} s: {} left", fmt_dur(end.saturating_sub(now)))];
    let Some(plans) = sim.pod_stopping(key) else {
        if p.status.phase.is_terminal() {
            lines.push("containers stopped: the kubelet confirms the delete".into());
        }
        return lines;
    };
    for (name, plan) in plans {
        let line = if now < plan.sigterm_at {
            format!("{name}: preStop hook running, {} left; then SIGTERM", fmt_dur(plan.sigterm_at - now))
        } else {
            let hook = if plan.pre_stop { "preStop hook done, " } else { "" };
            format!(
                "{name}: {hook}SIGTERM sent {} ago; SIGKILL in {} if it has not exited",
                fmt_dur(now - plan.sigterm_at),
                fmt_dur(plan.kill_at.saturating_sub(now))
            )
        };
        lines.push(line);
    }
    lines
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
        why: None,
        history: None,
    }
}

/// Why the scheduler would put pod `key` where it would now, with what-if `profile` (`None`: no such pod).
pub fn schedule_view(sim: &Sim, key: &ObjKey, profile: Profile, addons_shown: bool) -> Option<ScheduleView> {
    // One scheduler cache of the API's objects serves every explanation below (building it is most of the cost).
    let mut cache = sim.scheduler_cache();
    let e = sim.explain_scheduling_in(&mut cache, key, profile)?;
    // Upstream's pick: the weights only weigh the scores; a filter switched off changes the feasible nodes.
    let default_best = if profile.filters == Profile::default().filters {
        e.best_with(Weights::default()).0
    } else {
        sim.explain_scheduling_in(&mut cache, key, Profile::default())?.best
    };
    let total = e.nodes.len();
    let mut nodes: Vec<ScheduleNode> = e
        .nodes
        .iter()
        .map(|v| ScheduleNode {
            rejected: v.rejected().map(|(i, why)| (FILTER_PLUGINS[i], why.join(", "))),
            node: v.node.clone(),
            scores: v.scores,
        })
        .collect();
    // Feasible first, best first; then the rest by name.
    kubeloop_engine::sort::sort_by_key(&mut nodes, |n| {
        (n.scores.is_none(), std::cmp::Reverse(n.scores.map_or(0, |s| s.1)), n.node.clone())
    });
    nodes.truncate(SCHEDULE_NODES_SHOWN);
    // Across the cluster, with weights not upstream's: the pods these weights would place elsewhere, over as many
    // pods as fit a bounded amount of work (every pod is run through every node).
    let what_if = (profile != Profile::default()).then(|| {
        // A filter switched off explains each pod twice (the feasible nodes differ from upstream's).
        let per_pod = if profile.filters == Profile::default().filters { 1 } else { 2 };
        let limit = (WHAT_IF_VERDICTS / (total.max(1) * per_pod)).clamp(1, WHAT_IF_PODS);
        // The pods of the cluster view: kube-system's add-ons only when it shows them.
        let shown = |p: &Pod| addons_shown || !addons::is_addon_pod(p);
        let (moved, looked, of) = sim.scheduling_what_if_among(&mut cache, profile, limit, &shown);
        let moved = moved.into_iter().map(|m| (m.pod.name, m.upstream, m.with)).collect();
        WhatIfView { moved, looked, of }
    });
    Some(ScheduleView {
        weights: profile.weights.0,
        filters: profile.filters,
        nodes,
        total,
        best: e.best,
        tied: e.tied,
        default_best,
        unschedulable: e.unschedulable,
        what_if,
    })
}

/// The cluster-wide what-if looks at this many node verdicts at most (pods × nodes), and this many pods.
const WHAT_IF_VERDICTS: usize = 50_000;
const WHAT_IF_PODS: usize = 2_000;

/// kubectl's short name of a kind where it has one (`rs`, `deploy`...), else its singular name.
fn short_kind(kind: Kind) -> &'static str {
    let r = kubeloop_engine::kubectl::resource::resource(kind);
    r.short_names.first().copied().unwrap_or(r.singular)
}

/// Reconcile records looked back through for the loop diagram's last reconcile.
const LAST_RECONCILE_LOOKBACK: usize = 500;

/// Controller `name` (the active replica's), and the informers it watches through.
fn watched<'a>(sim: &'a Sim, name: &str) -> Option<(&'a kubeloop_engine::controller::Controller, Vec<InformerId>)> {
    let (host, c) = sim.controllers_by_name().into_iter().find(|(_, c)| c.name() == name)?;
    let ids = c.reconciler.watches().iter().filter_map(|k| sim.host(host).informers[k.index()]).collect();
    Some((c, ids))
}

/// Controller `name` (the active replica's), and the totals of the informers it watches through.
pub fn controller_watching<'a>(
    sim: &'a Sim,
    name: &str,
) -> Option<(&'a kubeloop_engine::controller::Controller, InformerTotals)> {
    let (c, ids) = watched(sim, name)?;
    Some((c, sim.informer_totals(ids)))
}

/// The loop diagram of controller `name` (the active replica's).
pub fn build_loop_diagram(sim: &Sim, name: &str) -> Option<LoopDiagramView> {
    let (c, ids) = watched(sim, name)?;
    // The last watch events its informers received, newest last.
    let mut recent: Vec<WatchTokenView> = ids
        .iter()
        .filter_map(|id| sim.informers().get(*id))
        .flat_map(|inf| {
            inf.recent().map(move |r| WatchTokenView {
                rv: r.rv,
                type_: r.type_.as_str(),
                name: format!("{}/{}", short_kind(inf.kind), r.name),
                dropped: r.dropped,
            })
        })
        .collect();
    kubeloop_engine::sort::sort_by_key(&mut recent, |w| w.rv);
    let recent = recent.split_off(recent.len().saturating_sub(kubeloop_engine::informer::RECENT_EVENTS));
    let t = sim.informer_totals(ids);
    // Its latest reconcile among the newest of the log (kubeloop's own bound on the look back).
    let last =
        sim.log().records.iter().rev().take(LAST_RECONCILE_LOOKBACK).find(|r| r.controller == c.name()).map(|r| {
            let outcome = match r.outcome {
                RecordOutcome::Ok => "ok",
                RecordOutcome::Requeue { .. } => "requeued",
                RecordOutcome::Error { .. } => "error",
                RecordOutcome::Dropped { .. } => "dropped",
            };
            (r.key.clone(), r.api_calls, outcome)
        });
    let items = c
        .queue_items(sim.now(), LOOP_ITEMS_SHOWN)
        .into_iter()
        .map(|i| QueueItemView {
            edge: kubeloop_engine::controllers::replicaset::parse_edge_key(&i.key),
            key: i.key.to_string(),
            state: match i.state {
                QueueItemState::Processing => "processing",
                QueueItemState::Queued => "queued",
                QueueItemState::Backoff => "backoff",
            },
            retries: i.retries,
            adds: i.adds,
            for_ms: i.for_ms,
        })
        .collect();
    let controllers: Vec<&'static str> = sim.controllers_by_name().iter().map(|(_, c)| c.name()).collect();
    Some(LoopDiagramView {
        controllers,
        polling: matches!(sim.observe_mode(), ObserveMode::Polling { .. }),
        store_rv: sim.store().resource_version(),
        delivered: t.received,
        dropped: t.dropped,
        cached: t.cached,
        status: c.status(sim.now()),
        items,
        recent,
        last,
        rates: None,
        charts: Vec::new(),
        cluster_charts: Vec::new(),
    })
}

/// Finds nodes and pods by name ([`SearchView`]): a node named `query` exactly, else a pod (`NAME` in any namespace,
/// or `NAMESPACE/NAME`), else every node and pod whose name contains it, the first [`SEARCH_SHOWN`] listed.
pub fn search(sim: &Sim, query: &str) -> SearchView {
    let q = query.trim();
    let nodes = node_names(sim);
    let pods = || sim.store().objects(Kind::Pod).map(|o| o.meta());
    let exact_pod = || match q.split_once('/') {
        Some((ns, name)) => pods().find(|m| &*m.namespace == ns && &*m.name == name),
        None => pods().find(|m| &*m.name == q),
    };
    let exact = if let Some((n, _)) = nodes.iter().find(|(n, _)| &**n == q) {
        Some(Selection::Node(n.clone()))
    } else {
        exact_pod().map(|m| Selection::Pod(ObjKey { namespace: m.namespace.clone(), name: m.name.clone() }))
    };
    if let Some(sel) = exact {
        return SearchView { query: q.into(), found: vec![sel], total: 1, exact: true };
    }
    let mut found = Vec::new();
    let mut total = 0;
    let node_hits =
        nodes.iter().filter(|(n, _)| !q.is_empty() && n.contains(q)).map(|(n, _)| Selection::Node(n.clone()));
    let pod_hits = pods()
        .filter(|m| !q.is_empty() && m.name.contains(q))
        .map(|m| Selection::Pod(ObjKey { namespace: m.namespace.clone(), name: m.name.clone() }));
    for hit in node_hits.chain(pod_hits) {
        total += 1;
        if found.len() < SEARCH_SHOWN {
            found.push(hit);
        }
    }
    SearchView { query: q.into(), found, total, exact: false }
}

/// "Why?" of a pod: the chain of causes of its creation (of its first write kept, when its creation is older than the
/// causes kept; no step when no write of it is kept).
pub fn build_why(sim: &Sim, key: &ObjKey, rv: Option<u64>) -> crate::view::ChainView {
    use kubeloop_engine::watch::EventType;
    // The write `rv` if asked (a history's entry); else for a node (a cluster-scoped key) the write that last
    // changed its Ready condition (NotReady, Ready again), else its newest; for a pod its creation, else its first.
    let (kind, what) = if key.namespace.is_empty() { (Kind::Node, "node") } else { (Kind::Pod, "pod") };
    let writes = || sim.causes().writes_of(kind, key);
    let w = match kind {
        _ if rv.is_some() => writes().find(|w| Some(w.rv) == rv),
        Kind::Node => {
            let node = sim.store().peek(Kind::Node, key).and_then(|o| o.as_node());
            let ready = node.and_then(|n| n.status.conditions.iter().find(|c| &*c.type_ == "Ready"));
            let changed = ready.and_then(|c| c.last_transition_time).map(|t| t.0);
            writes().filter(|w| Some(w.at) == changed).last().or_else(|| writes().last())
        }
        _ => writes().find(|w| w.verb == EventType::Added).or_else(|| writes().next()),
    };
    let Some(w) = w else {
        return crate::view::ChainView {
            about: String::new(),
            steps: Vec::new(),
            ends: Some(format!("no write of this {what} is kept (its writes are older than the causes kept)")),
            kept: String::new(),
        };
    };
    let verb = if w.verb == EventType::Added { "created" } else { "written" };
    let about = format!("{verb} at {} (resourceVersion {})", fmt_secs(w.at), w.rv);
    let chain = sim.chain(w.rv);
    let steps = chain
        .steps
        .into_iter()
        .map(|s| crate::view::CauseView {
            kind: s.kind.as_str(),
            at: s.at,
            text: s.text,
            select: match s.object {
                Some((Kind::Pod, k)) => Some(Selection::Pod(k)),
                Some((Kind::Node, k)) => Some(Selection::Node(k.name)),
                _ => None,
            },
        })
        .collect();
    let causes = sim.causes();
    let oldest = causes.oldest_write().and_then(|rv| causes.write(rv)).map_or(0, |w| w.at);
    let kept = format!(
        "kubeloop keeps the causes of the last {} writes (its own bound): these reach back to {}.",
        fmt_thousands(kubeloop_engine::cause::WRITES_KEPT as u64),
        fmt_secs(oldest)
    );
    crate::view::ChainView { about, steps, ends: chain.ends, kept }
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
    fn a_speed_is_a_nonzero_multiplier_or_max() {
        assert_eq!(Speed::parse("10"), Some(Speed::X(10)));
        assert_eq!(Speed::parse("max"), Some(Speed::Max));
        assert_eq!(Speed::parse("0"), None);
        assert_eq!(Speed::parse("fast"), None);
    }
}
