//! The summary: pods, Deployments, nodes, API load and reconciles at the end of a run.

use super::*;

/// Pods at the end.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSummary {
    pub total: usize,
    /// Every pod by `status.phase` (terminating pods included).
    pub by_phase: BTreeMap<String, usize>,
    /// Pods with a deletionTimestamp.
    pub terminating: usize,
    /// Pods bound to each node (every node listed, with 0 if none).
    pub by_node: BTreeMap<String, usize>,
    /// Pods not bound to a node.
    pub unscheduled: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeploymentSummary {
    pub namespace: String,
    pub name: String,
    pub desired: i32,
    pub updated: i32,
    pub ready: i32,
    pub available: i32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSummary {
    pub name: String,
    /// The Node's Ready condition: "True", "False" or "Unknown".
    pub ready: String,
    /// Whether its kubelet runs.
    pub alive: bool,
}

/// API load of a client: the store's [`ApiCounters`] with its reads and writes totals.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiLoad {
    #[serde(flatten)]
    pub counters: ApiCounters,
    /// LIST items + GETs + watch events.
    pub reads: u64,
    /// Creates + updates + deletes.
    pub writes: u64,
}

impl From<&ApiCounters> for ApiLoad {
    fn from(c: &ApiCounters) -> Self {
        ApiLoad { counters: c.clone(), reads: c.reads(), writes: c.writes() }
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiSummary {
    pub total: ApiLoad,
    /// By client name; the kubelets (`kubelet/<node>`) are summed into one `kubelet` entry.
    pub by_client: BTreeMap<String, ApiLoad>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconcileSummary {
    pub reconciles: u64,
    pub errors: u64,
    pub requeues: u64,
    pub dropped: u64,
    pub api_calls: u64,
    pub queue_depth: usize,
}

/// The end state of a run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub seed: u64,
    pub sim_time_ms: Millis,
    /// [`Sim::history_hash`] as 16 hex digits.
    pub history_hash: String,
    pub events_processed: u64,
    pub pods: PodSummary,
    pub deployments: Vec<DeploymentSummary>,
    pub nodes: Vec<NodeSummary>,
    pub api: ApiSummary,
    pub reconciles: BTreeMap<String, ReconcileSummary>,
    /// Time of the last action run (0 when there is none).
    pub last_action_ms: Millis,
    /// The earliest simulated time, at or after the last action, from which every check until the end found the
    /// Deployments converged, the controllers idle and no pod Pending or terminating. `None`: not converged at
    /// the end.
    pub converged_at_ms: Option<Millis>,
    /// Cached objects (over every informer) that differ from the store at the end.
    pub drift: usize,
    /// Actions scheduled after the end of the run, not run.
    pub actions_not_run: usize,
    /// When the run stopped at its work budget (`None`: it ran to its end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_at_budget_ms: Option<Millis>,
    /// The scenario's `expect:` entries and what became of each (none: the field is left out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub expectations: Vec<super::expect::ExpectationSummary>,
}

/// Whether the cluster is settled: Deployments converged, controllers idle, no pod Pending or terminating.
pub fn settled(sim: &Sim) -> bool {
    sim.idle() && store_settled(sim)
}

/// The part of [`settled`] that depends on the store only: it reads Pods, ReplicaSets, Deployments and Nodes, and
/// nothing else (the run looks at it again only when one of those kinds changed).
pub(super) fn store_settled(sim: &Sim) -> bool {
    sim.deployments_converged()
        && sim.deployments_fulfilled()
        && sim
            .store()
            .objects(Kind::Pod)
            .filter_map(|o| o.as_pod())
            .all(|p| !p.metadata.is_terminating() && p.status.phase != PodPhase::Pending)
}

/// The summary of a simulation as it is now.
pub fn summarize(sim: &Sim) -> Summary {
    let mut pods = PodSummary::default();
    let mut nodes = Vec::new();
    for n in sim.store().objects(Kind::Node).filter_map(|o| o.as_node()) {
        let name = n.metadata.name.to_string();
        pods.by_node.insert(name.clone(), 0);
        let alive = sim.kubelet(&name).is_some_and(|k| k.alive);
        nodes.push(NodeSummary { name, ready: n.ready_status().to_string(), alive });
    }
    for k in sim.kubelets() {
        if !pods.by_node.contains_key(&*k.name) {
            // A kubelet whose Node object is gone.
            pods.by_node.insert(k.name.to_string(), 0);
            nodes.push(NodeSummary { name: k.name.to_string(), ready: "Unknown".into(), alive: k.alive });
        }
    }
    crate::sort::sort_by(&mut nodes, |a, b| natural_cmp(&a.name, &b.name));
    for p in sim.store().objects(Kind::Pod).filter_map(|o| o.as_pod()) {
        pods.total += 1;
        *pods.by_phase.entry(p.status.phase.as_str().to_string()).or_default() += 1;
        if p.metadata.is_terminating() {
            pods.terminating += 1;
        }
        if p.spec.node_name.is_empty() {
            pods.unscheduled += 1;
        } else {
            *pods.by_node.entry(p.spec.node_name.to_string()).or_default() += 1;
        }
    }
    let deployments = sim
        .store()
        .objects(Kind::Deployment)
        .filter_map(|o| o.as_deployment())
        .map(|d| DeploymentSummary {
            namespace: d.metadata.namespace.to_string(),
            name: d.metadata.name.to_string(),
            desired: d.replicas(),
            updated: d.status.updated_replicas,
            ready: d.status.ready_replicas,
            available: d.status.available_replicas,
        })
        .collect();
    let mut api = ApiSummary { total: ApiLoad::from(&sim.store().total_counters()), by_client: BTreeMap::new() };
    let mut by_client: BTreeMap<String, ApiCounters> = BTreeMap::new();
    for c in sim.store().clients() {
        let name = if c.name.starts_with("kubelet/") { "kubelet".to_string() } else { c.name.to_string() };
        by_client.entry(name).or_default().add(&c.counters);
    }
    api.by_client = by_client.iter().map(|(k, v)| (k.clone(), ApiLoad::from(v))).collect();
    // Replicas of a controller (two controller managers) add up: the run's work, whoever was leading.
    let mut reconciles: BTreeMap<String, ReconcileSummary> = BTreeMap::new();
    for c in sim.hosts().iter().flat_map(|h| h.controllers.iter()) {
        let s = c.status(sim.now());
        let r = reconciles.entry(s.name.to_string()).or_default();
        r.reconciles += s.stats.reconciles;
        r.errors += s.stats.errors;
        r.requeues += s.stats.requeues;
        r.dropped += s.stats.dropped;
        r.api_calls += s.stats.api_calls;
        r.queue_depth += s.depth;
    }
    Summary {
        seed: sim.config().seed,
        sim_time_ms: sim.now(),
        history_hash: format!("{:016x}", sim.history_hash()),
        events_processed: sim.events_processed(),
        pods,
        deployments,
        nodes,
        api,
        reconciles,
        last_action_ms: 0,
        converged_at_ms: None,
        drift: sim.drift(),
        actions_not_run: 0,
        stopped_at_budget_ms: None,
        expectations: Vec::new(),
    }
}

/// Orders `node-2` before `node-10`.
pub(super) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn split(s: &str) -> (&str, Option<u64>) {
        let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (head, tail) = s.split_at(s.len() - digits);
        (head, tail.parse().ok())
    }
    split(a).cmp(&split(b)).then_with(|| a.cmp(b))
}

/// Left-aligned columns, kubectl style.
pub(super) fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            if i < widths.len() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                l.push_str(c);
            } else {
                l.push_str(c);
                l.push_str(&" ".repeat(widths[i] - c.chars().count() + 3));
            }
        }
        out.push_str("  ");
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(headers.to_vec());
    for r in rows {
        line(r.iter().map(String::as_str).collect());
    }
    out
}

/// The summary as text: a few lines and aligned tables.
pub fn render_summary(sm: &Summary) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "Summary: seed {}, simulated {}, {} events processed, history hash {}\n",
        sm.seed,
        human_duration(sm.sim_time_ms),
        sm.events_processed,
        sm.history_hash
    ));
    match sm.converged_at_ms {
        Some(t) if sm.last_action_ms > 0 => out.push_str(&format!(
            "Converged at {} ({} after the last action at {})\n",
            human_duration(t),
            human_duration(t - sm.last_action_ms),
            human_duration(sm.last_action_ms)
        )),
        Some(t) => out.push_str(&format!("Converged at {}\n", human_duration(t))),
        None => out.push_str(
            "Not converged at the end (a Deployment not ready, a pod Pending or terminating, or a controller busy)\n",
        ),
    }
    if let Some(t) = sm.stopped_at_budget_ms {
        out.push_str(&format!(
            "Stopped at {} of {}: the run reached its work budget of {} events (--max-events)\n",
            human_duration(t),
            human_duration(sm.sim_time_ms.max(t)),
            sm.events_processed
        ));
    }
    if !sm.expectations.is_empty() {
        let count = |v: &str| sm.expectations.iter().filter(|e| e.verdict == v).count();
        let mut line = format!("Expectations: {} held, {} failed", count("held"), count("failed"));
        for (n, v) in [(count("undecided"), "not decided when the run ended"), (count("notRun"), "of steps not run")] {
            if n > 0 {
                line.push_str(&format!(", {n} {v}"));
            }
        }
        out.push_str(&line);
        out.push('\n');
        for e in sm.expectations.iter().filter(|e| e.verdict == "failed") {
            let seen = e.seen.as_deref().unwrap_or_default();
            out.push_str(&format!("  FAILED (line {}): {}; saw {seen}\n", e.line, e.expect));
        }
    }
    if sm.actions_not_run > 0 {
        out.push_str(&format!("{} action(s) scheduled after the end were not run\n", sm.actions_not_run));
    }

    let phases: Vec<String> = sm.pods.by_phase.iter().map(|(p, n)| format!("{n} {p}")).collect();
    out.push_str(&format!(
        "\nPods: {} total{}{}; {} terminating, {} unscheduled\n",
        sm.pods.total,
        if phases.is_empty() { "" } else { ": " },
        phases.join(", "),
        sm.pods.terminating,
        sm.pods.unscheduled
    ));

    if !sm.nodes.is_empty() {
        let rows: Vec<Vec<String>> = sm
            .nodes
            .iter()
            .map(|n| {
                vec![
                    n.name.clone(),
                    n.ready.clone(),
                    if n.alive { "running".into() } else { "stopped".into() },
                    sm.pods.by_node.get(&n.name).copied().unwrap_or(0).to_string(),
                ]
            })
            .collect();
        out.push_str(&format!("\nNodes: {}\n", sm.nodes.len()));
        out.push_str(&table(&["NAME", "READY", "KUBELET", "PODS"], &rows));
    }

    if !sm.deployments.is_empty() {
        let rows: Vec<Vec<String>> = sm
            .deployments
            .iter()
            .map(|d| {
                vec![
                    d.namespace.clone(),
                    d.name.clone(),
                    d.desired.to_string(),
                    d.updated.to_string(),
                    d.ready.to_string(),
                    d.available.to_string(),
                ]
            })
            .collect();
        out.push_str(&format!("\nDeployments: {}\n", sm.deployments.len()));
        out.push_str(&table(&["NAMESPACE", "NAME", "DESIRED", "UPDATED", "READY", "AVAILABLE"], &rows));
    }

    let rows: Vec<Vec<String>> = sm
        .reconciles
        .iter()
        .map(|(name, r)| {
            vec![
                name.clone(),
                r.reconciles.to_string(),
                r.errors.to_string(),
                r.requeues.to_string(),
                r.dropped.to_string(),
                r.api_calls.to_string(),
                r.queue_depth.to_string(),
            ]
        })
        .collect();
    out.push_str("\nControllers\n");
    out.push_str(&table(&["CONTROLLER", "RECONCILES", "ERRORS", "REQUEUES", "DROPPED", "API-CALLS", "QUEUE"], &rows));

    let api_row = |name: &str, l: &ApiLoad| {
        let c = &l.counters;
        vec![
            name.to_string(),
            l.reads.to_string(),
            l.writes.to_string(),
            c.list_calls.to_string(),
            c.gets.to_string(),
            c.watch_events.to_string(),
            c.creates.to_string(),
            c.updates.to_string(),
            c.deletes.to_string(),
            c.conflicts.to_string(),
            c.errors.to_string(),
        ]
    };
    let mut rows: Vec<Vec<String>> = sm.api.by_client.iter().map(|(n, c)| api_row(n, c)).collect();
    rows.push(api_row("total", &sm.api.total));
    out.push_str("\nAPI\n");
    out.push_str(&table(
        &[
            "CLIENT",
            "READS",
            "WRITES",
            "LISTS",
            "GETS",
            "WATCH-EVENTS",
            "CREATES",
            "UPDATES",
            "DELETES",
            "CONFLICTS",
            "ERRORS",
        ],
        &rows,
    ));
    out.push_str(&format!("\nDrift: {} cached object(s) differ from the store\n", sm.drift));
    out
}
