//! The node lifecycle controller (pkg/controller/nodelifecycle): it watches Nodes and their Leases in
//! `kube-node-lease`, and every node-monitor-period (5 s) looks at each node's last heartbeat. A node whose kubelet
//! has posted neither status nor a lease renewal for node-monitor-grace-period (50 s; 60 s for a node that never
//! reported) gets its conditions set to `Unknown`; its pods are marked not ready, and it is tainted
//! `node.kubernetes.io/unreachable:NoExecute` (`not-ready:NoExecute` when the kubelet reports Ready=False), at most
//! `--node-eviction-rate` nodes per second per zone. The taint-eviction controller then evicts pods that do not
//! tolerate the taint long enough. When every node of every zone is not ready the controller assumes the problem
//! is its own connectivity ("master disruption mode") and taints nothing.
//!
//! Node keys go through the queue too: each one gets the `NoSchedule` taints its conditions imply
//! (`doNoScheduleTaintingPass`: `unreachable`, `not-ready`, `unschedulable`, pressure conditions), so the scheduler
//! places nothing on a node that cannot run it.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::api::{s, Kind, Node, NodeCondition, ObjKey, Object, Str, Taint, Time};
use crate::controller::{Caches, Ctx, Enqueue, ReconcileAction, ReconcileResult, Reconciler};
use crate::informer::InformerEvent;
use crate::recorder::EventKind;
use crate::store::{set_pod_condition, Subresource};
use crate::time::{Millis, SECOND};

pub const TAINT_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub const TAINT_NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const TAINT_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
const ZONE_LABEL: &str = "topology.kubernetes.io/zone";
const REGION_LABEL: &str = "topology.kubernetes.io/region";

/// The key of the periodic health pass (no Node can have this name: node names are lowercase).
pub const MONITOR_KEY: &str = "monitorNodeHealth";

/// The controller's flags; defaults are upstream's.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeLifecycleConfig {
    /// `--node-monitor-period`
    pub(crate) monitor_period: Millis,
    /// `--node-monitor-grace-period` (50 s since v1.32)
    pub grace_period: Millis,
    /// `--node-startup-grace-period`
    pub(crate) startup_grace_period: Millis,
    /// `--node-eviction-rate`: nodes tainted per second in a healthy zone.
    pub(crate) eviction_rate: f64,
    /// `--secondary-node-eviction-rate`: in a partially disrupted large zone.
    pub(crate) secondary_eviction_rate: f64,
    /// `--large-cluster-size-threshold`
    pub(crate) large_cluster_threshold: usize,
    /// `--unhealthy-zone-threshold`
    pub(crate) unhealthy_zone_threshold: f64,
}

impl Default for NodeLifecycleConfig {
    fn default() -> Self {
        NodeLifecycleConfig {
            monitor_period: 5 * SECOND,
            grace_period: 50 * SECOND,
            startup_grace_period: 60 * SECOND,
            eviction_rate: 0.1,
            secondary_eviction_rate: 0.01,
            large_cluster_threshold: 50,
            unhealthy_zone_threshold: 0.55,
        }
    }
}

impl NodeLifecycleConfig {
    /// The "fast demo" timing: a dead node is noticed after 20 s instead of 50 s.
    pub(crate) fn fast_demo() -> Self {
        NodeLifecycleConfig { grace_period: 20 * SECOND, startup_grace_period: 30 * SECOND, ..Default::default() }
    }
}

/// A zone's health (`ComputeZoneState`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneState {
    Normal,
    /// More than 2 nodes and at least 55 % of them not ready.
    PartialDisruption,
    /// Every node not ready.
    FullDisruption,
}

/// What the controller remembers of a node (`nodeHealthData`): when it last saw the kubelet alive, by its own
/// clock, so a kubelet's timestamps are only compared for change.
#[derive(Clone, Debug)]
struct Health {
    probe: Millis,
    heartbeat: Option<Millis>,
    lease_renew: Option<Millis>,
    /// The Ready status last acted on ("True", "False", "Unknown").
    ready: Str,
    /// The monitoring pass that last saw the node: a node no pass sees any more is forgotten.
    seen: u64,
}

/// A zone's eviction rate limiter (a token bucket of burst 1, as the rate-limited timed queue's).
#[derive(Clone, Debug)]
struct Bucket {
    tokens: f64,
    at: Millis,
}

#[derive(Clone)]
pub struct NodeLifecycleController {
    config: NodeLifecycleConfig,
    health: BTreeMap<Str, Health>,
    buckets: BTreeMap<Str, Bucket>,
    zones: BTreeMap<Str, ZoneState>,
    /// Every zone fully disrupted: taint nothing.
    master_disruption: bool,
    /// Monitoring passes so far (`Health::seen`).
    passes: u64,
}

impl NodeLifecycleController {
    pub(crate) fn new(config: NodeLifecycleConfig) -> Self {
        NodeLifecycleController {
            config,
            health: BTreeMap::new(),
            buckets: BTreeMap::new(),
            zones: BTreeMap::new(),
            master_disruption: false,
            passes: 0,
        }
    }

    /// `monitorNodeHealth`: one pass over every node.
    fn monitor(&mut self, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let now = cx.now;
        let nodes: Vec<Rc<Object>> = cx.caches.of(Kind::Node).list().into_iter().cloned().collect();
        let leases = cx.caches.of(Kind::Lease);
        let mut errors = Vec::new();
        let mut zone_counts: BTreeMap<Str, (usize, usize)> = BTreeMap::new();
        // The nodes as they are after this pass's writes (shared with the cache: nothing is copied per node).
        let mut not_ready: Vec<(Rc<Object>, Str, u64)> = Vec::new();
        let mut ready: Vec<Rc<Object>> = Vec::new();
        self.passes += 1;
        let pass = self.passes;
        for obj in &nodes {
            let Some(node) = obj.as_node() else { continue };
            let name = node.metadata.name.clone();
            let heartbeat = node.condition("Ready").and_then(|c| c.last_heartbeat_time).map(|t| t.0);
            let lease = leases.get(&ObjKey::new("kube-node-lease", &name));
            let lease_renew = lease.and_then(|o| o.as_lease()).and_then(|l| l.spec.renew_time).map(|t| t.0);
            // The version of the Lease this pass reads: what it writes about the node follows from it (no renewal).
            let lease_rv = lease.map_or(0, |o| o.meta().resource_version);
            let h = self.health.entry(name.clone()).or_insert_with(|| Health {
                probe: now,
                heartbeat,
                lease_renew,
                ready: s(node.ready_status()),
                seen: pass,
            });
            h.seen = pass;
            if h.heartbeat != heartbeat || h.lease_renew != lease_renew {
                h.probe = now;
                h.heartbeat = heartbeat;
                h.lease_renew = lease_renew;
            }
            let grace = if node.condition("Ready").is_none() {
                self.config.startup_grace_period
            } else {
                self.config.grace_period
            };
            let mut current = obj.clone();
            // What this pass writes about the node follows from what did not happen: no renewal of its Lease.
            cx.api.because_not_renewed(lease_rv);
            if now > h.probe + grace && needs_unknown(node) {
                match cx.api.patch(Kind::Node, &obj.key(), Subresource::Status, |o| {
                    if let Object::Node(n) = o {
                        mark_unknown(n, now);
                    }
                }) {
                    Ok(written) => {
                        if written.as_node().is_some() {
                            current = written;
                        }
                    }
                    Err(e) => {
                        errors.push(format!("node {name}: {e}"));
                        continue;
                    }
                }
            }
            let Some(node) = current.as_node() else { continue };
            let status = s(node.ready_status());
            let was_ready = &*h.ready == "True";
            if was_ready && &*status != "True" {
                let msg = format!("Node {name} status is now: NodeNotReady");
                cx.recorder.event(&mut cx.api, &current, EventKind::Normal, "NodeNotReady", &msg);
                if let Err(e) = mark_pods_not_ready(cx, &name) {
                    errors.push(e);
                    continue;
                }
            }
            cx.api.because_reconcile();
            if let Some(h) = self.health.get_mut(&name) {
                h.ready = status.clone();
            }
            let zone = zone_of(node);
            let counts = zone_counts.entry(zone.clone()).or_default();
            if &*status == "True" {
                counts.0 += 1;
                ready.push(current);
            } else {
                counts.1 += 1;
                not_ready.push((current, zone, lease_rv));
            }
        }
        self.health.retain(|_, h| h.seen == pass);

        // handleDisruption: zone states, and master disruption mode when every zone is down.
        // Inserted one by one: collecting into a map would compile one more sort (docs/size.md).
        self.zones.clear();
        for (z, &(r, n)) in &zone_counts {
            self.zones.insert(z.clone(), zone_state(r, n, self.config.unhealthy_zone_threshold));
        }
        self.master_disruption = !self.zones.is_empty() && self.zones.values().all(|z| *z == ZoneState::FullDisruption);

        // Reachable again, or master disruption: the NoExecute taints go (markNodeAsReachable).
        let untaint: Vec<&Node> = if self.master_disruption {
            ready.iter().chain(not_ready.iter().map(|(n, ..)| n)).filter_map(|o| o.as_node()).collect()
        } else {
            ready.iter().filter_map(|o| o.as_node()).collect()
        };
        for node in untaint {
            if has_taint(node, TAINT_UNREACHABLE, "NoExecute") || has_taint(node, TAINT_NOT_READY, "NoExecute") {
                if let Err(e) = set_taints(cx, node, &[], &[TAINT_UNREACHABLE, TAINT_NOT_READY], "NoExecute") {
                    errors.push(e);
                }
            }
        }
        if !self.master_disruption {
            // doNoExecuteTaintingPass: the right NoExecute taint on every not-ready node, rate-limited per zone.
            for (node, zone, lease_rv) in &not_ready {
                let Some(node) = node.as_node() else { continue };
                let (want, other) = if node.ready_status() == "False" {
                    (TAINT_NOT_READY, TAINT_UNREACHABLE)
                } else {
                    (TAINT_UNREACHABLE, TAINT_NOT_READY)
                };
                if has_taint(node, want, "NoExecute") && !has_taint(node, other, "NoExecute") {
                    continue;
                }
                // Swapping one taint for the other is immediate; a new taint waits for the zone's limiter.
                if !has_taint(node, other, "NoExecute") && !self.take_token(zone, now, node_count(&zone_counts, zone)) {
                    continue;
                }
                cx.api.because_not_renewed(*lease_rv);
                if let Err(e) = set_taints(cx, node, &[want], &[other], "NoExecute") {
                    errors.push(e);
                }
                cx.api.because_reconcile();
            }
        }
        if errors.is_empty() {
            Ok(ReconcileAction::RequeueAfter(self.config.monitor_period))
        } else {
            Err(errors.join("; "))
        }
    }

    /// The zone's eviction limiter: `eviction_rate` tokens a second in a Normal or fully disrupted zone, the
    /// secondary rate (or none, in a small cluster) in a partially disrupted one.
    fn take_token(&mut self, zone: &Str, now: Millis, zone_size: usize) -> bool {
        let state = self.zones.get(zone).copied().unwrap_or(ZoneState::Normal);
        let qps = match state {
            ZoneState::Normal | ZoneState::FullDisruption => self.config.eviction_rate,
            ZoneState::PartialDisruption if zone_size > self.config.large_cluster_threshold => {
                self.config.secondary_eviction_rate
            }
            ZoneState::PartialDisruption => 0.0,
        };
        let b = self.buckets.entry(zone.clone()).or_insert(Bucket { tokens: 1.0, at: now });
        b.tokens = (b.tokens + (now.saturating_sub(b.at)) as f64 / 1000.0 * qps).min(1.0);
        b.at = now;
        if qps > 0.0 && b.tokens >= 1.0 - 1e-9 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// `doNoScheduleTaintingPass` for one node.
    fn no_schedule_pass(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        let Some(obj) = cx.caches.of(Kind::Node).get(key).cloned() else { return Ok(ReconcileAction::Done) };
        let Some(node) = obj.as_node() else { return Ok(ReconcileAction::Done) };
        let want = no_schedule_taints(node);
        let have: Vec<&str> = node
            .spec
            .taints
            .iter()
            .filter(|t| &*t.effect == "NoSchedule" && MANAGED_NO_SCHEDULE.contains(&&*t.key))
            .map(|t| &*t.key)
            .collect();
        let add: Vec<&str> = want.iter().copied().filter(|k| !have.contains(k)).collect();
        let remove: Vec<&str> = have.iter().copied().filter(|k| !want.contains(k)).collect();
        if add.is_empty() && remove.is_empty() {
            return Ok(ReconcileAction::Done);
        }
        set_taints(cx, node, &add, &remove, "NoSchedule")?;
        Ok(ReconcileAction::Done)
    }
}

/// The NoSchedule taints the controller manages, by condition (`nodeConditionToTaintKeyStatusMap`).
const MANAGED_NO_SCHEDULE: &[&str] = &[
    TAINT_NOT_READY,
    TAINT_UNREACHABLE,
    TAINT_UNSCHEDULABLE,
    "node.kubernetes.io/memory-pressure",
    "node.kubernetes.io/disk-pressure",
    "node.kubernetes.io/pid-pressure",
    "node.kubernetes.io/network-unavailable",
];

fn no_schedule_taints(node: &Node) -> Vec<&'static str> {
    let mut out = Vec::new();
    match node.condition("Ready").map(|c| &*c.status) {
        Some("False") => out.push(TAINT_NOT_READY),
        Some("Unknown") => out.push(TAINT_UNREACHABLE),
        _ => {}
    }
    for (cond, key) in [
        ("MemoryPressure", "node.kubernetes.io/memory-pressure"),
        ("DiskPressure", "node.kubernetes.io/disk-pressure"),
        ("PIDPressure", "node.kubernetes.io/pid-pressure"),
        ("NetworkUnavailable", "node.kubernetes.io/network-unavailable"),
    ] {
        if node.condition(cond).is_some_and(|c| &*c.status == "True") {
            out.push(key);
        }
    }
    if node.spec.unschedulable {
        out.push(TAINT_UNSCHEDULABLE);
    }
    out
}

fn has_taint(node: &Node, key: &str, effect: &str) -> bool {
    node.spec.taints.iter().any(|t| &*t.key == key && &*t.effect == effect)
}

/// Adds the `add` taints and removes the `remove` ones (all of `effect`) with one update of the node.
fn set_taints(cx: &mut Ctx<'_, '_>, node: &Node, add: &[&str], remove: &[&str], effect: &str) -> Result<(), String> {
    let now = cx.now;
    let key = ObjKey::cluster(&node.metadata.name);
    let add: Vec<String> = add.iter().map(|k| k.to_string()).collect();
    let remove: Vec<String> = remove.iter().map(|k| k.to_string()).collect();
    let effect = effect.to_string();
    cx.api
        .patch(Kind::Node, &key, Subresource::Main, |o| {
            if let Object::Node(n) = o {
                n.spec.taints.retain(|t| !(t.effect.as_ref() == effect && remove.iter().any(|r| r == &*t.key)));
                for k in &add {
                    if !n.spec.taints.iter().any(|t| &*t.key == k && t.effect.as_ref() == effect) {
                        n.spec.taints.push(Taint {
                            key: s(k),
                            value: s(""),
                            effect: s(&effect),
                            time_added: Some(Time(now)),
                        });
                    }
                }
            }
        })
        .map(|_| ())
        .map_err(|e| format!("node {}: {e}", node.metadata.name))
}

fn needs_unknown(node: &Node) -> bool {
    node.condition("Ready").is_none_or(|c| &*c.status != "Unknown")
        || node.status.conditions.iter().any(|c| &*c.status != "Unknown")
}

/// `tryUpdateNodeHealth`: every condition the kubelet owns becomes Unknown ("Kubelet stopped posting node
/// status."); a Ready condition it never posted is added as Unknown ("Kubelet never posted node status.").
fn mark_unknown(n: &mut Node, now: Millis) {
    if n.condition("Ready").is_none() {
        n.status.conditions.push(NodeCondition {
            type_: s("Ready"),
            status: s("Unknown"),
            last_heartbeat_time: None,
            last_transition_time: Some(Time(now)),
            reason: s("NodeStatusNeverUpdated"),
            message: s("Kubelet never posted node status."),
        });
    }
    for c in &mut n.status.conditions {
        if !matches!(&*c.type_, "Ready" | "MemoryPressure" | "DiskPressure" | "PIDPressure") || &*c.status == "Unknown"
        {
            continue;
        }
        c.status = s("Unknown");
        c.reason = s("NodeStatusUnknown");
        c.message = s("Kubelet stopped posting node status.");
        c.last_transition_time = Some(Time(now));
    }
}

/// `MarkPodsNotReady`: the Ready condition of every pod on the node becomes False (the kubelet cannot say).
fn mark_pods_not_ready(cx: &mut Ctx<'_, '_>, node: &str) -> Result<(), String> {
    let now = cx.now;
    let pods: Vec<std::rc::Rc<Object>> = cx.caches.of(Kind::Pod).by_node(node).cloned().collect();
    for obj in pods {
        let Some(pod) = obj.as_pod() else { continue };
        if !pod.is_ready() || pod.status.phase.is_terminal() {
            continue;
        }
        cx.api
            .patch(Kind::Pod, &obj.key(), Subresource::Status, |o| {
                if let Object::Pod(p) = o {
                    set_pod_condition(&mut p.status.conditions, "Ready", "False", "", "", now);
                }
            })
            .map_err(|e| format!("pod {}: {e}", obj.key()))?;
        cx.recorder.event(&mut cx.api, &obj, EventKind::Warning, "NodeNotReady", "Node is not ready");
    }
    Ok(())
}

fn zone_of(node: &Node) -> Str {
    let region = node.metadata.label(REGION_LABEL).unwrap_or("");
    let zone = node.metadata.label(ZONE_LABEL).unwrap_or("");
    if region.is_empty() && zone.is_empty() {
        s("")
    } else {
        s(&format!("{region}:\u{0}:{zone}"))
    }
}

fn node_count(counts: &BTreeMap<Str, (usize, usize)>, zone: &Str) -> usize {
    counts.get(zone).map_or(0, |(r, n)| r + n)
}

/// `ComputeZoneState`.
fn zone_state(ready: usize, not_ready: usize, threshold: f64) -> ZoneState {
    if ready == 0 && not_ready > 0 {
        ZoneState::FullDisruption
    } else if not_ready > 2 && not_ready as f64 / (ready + not_ready) as f64 >= threshold {
        ZoneState::PartialDisruption
    } else {
        ZoneState::Normal
    }
}

impl Reconciler for NodeLifecycleController {
    fn name(&self) -> &'static str {
        "nodelifecycle"
    }

    fn retained(&self) -> usize {
        self.health.len() + self.buckets.len() + self.zones.len()
    }
    fn component(&self) -> &'static str {
        "node-controller"
    }
    fn workers(&self) -> usize {
        1
    }
    fn watches(&self) -> &'static [Kind] {
        &[Kind::Node, Kind::Lease, Kind::Pod]
    }

    fn handle(&mut self, ev: &InformerEvent, _caches: Caches<'_>, _now: Millis, out: &mut Enqueue) {
        let obj = ev.object();
        if obj.kind() != Kind::Node {
            return;
        }
        match ev {
            InformerEvent::Add(_) => {
                out.push((ObjKey::cluster(MONITOR_KEY), 0));
                out.push((obj.key(), 0));
            }
            InformerEvent::Update(old, new) => {
                let (Some(o), Some(n)) = (old.as_node(), new.as_node()) else { return };
                if no_schedule_taints(o) != no_schedule_taints(n) || o.spec.taints != n.spec.taints {
                    out.push((new.key(), 0));
                }
            }
            InformerEvent::Delete(..) => {
                self.health.remove(&obj.meta().name);
            }
        }
    }

    fn reconcile(&mut self, key: &ObjKey, cx: &mut Ctx<'_, '_>) -> ReconcileResult {
        if &*key.name == MONITOR_KEY {
            self.monitor(cx)
        } else {
            self.no_schedule_pass(key, cx)
        }
    }

    fn reset(&mut self) {
        self.health.clear();
        self.buckets.clear();
        self.zones.clear();
        self.master_disruption = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zone_states_follow_compute_zone_state() {
        assert_eq!(zone_state(3, 0, 0.55), ZoneState::Normal);
        assert_eq!(zone_state(1, 2, 0.55), ZoneState::Normal, "two not-ready nodes are never a disruption");
        assert_eq!(zone_state(2, 3, 0.55), ZoneState::PartialDisruption);
        assert_eq!(zone_state(5, 3, 0.55), ZoneState::Normal);
        assert_eq!(zone_state(0, 1, 0.55), ZoneState::FullDisruption);
        assert_eq!(zone_state(0, 0, 0.55), ZoneState::Normal);
    }

    #[test]
    fn conditions_go_unknown_with_upstreams_reason() {
        let mut n = Node::default();
        n.status.conditions.push(NodeCondition { type_: s("Ready"), status: s("True"), ..Default::default() });
        n.status.conditions.push(NodeCondition {
            type_: s("MemoryPressure"),
            status: s("False"),
            ..Default::default()
        });
        assert!(needs_unknown(&n));
        mark_unknown(&mut n, 7000);
        assert_eq!(n.ready_status(), "Unknown");
        let c = n.condition("MemoryPressure").cloned().unwrap_or_default();
        assert_eq!(
            (&*c.status, &*c.reason, &*c.message),
            ("Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status.")
        );
        assert!(!needs_unknown(&n));
        let mut fresh = Node::default();
        mark_unknown(&mut fresh, 0);
        assert_eq!(fresh.condition("Ready").map(|c| &*c.reason), Some("NodeStatusNeverUpdated"));
    }

    #[test]
    fn no_schedule_taints_follow_conditions() {
        let mut n = Node::default();
        n.status.conditions.push(NodeCondition { type_: s("Ready"), status: s("Unknown"), ..Default::default() });
        n.spec.unschedulable = true;
        assert_eq!(no_schedule_taints(&n), vec![TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE]);
        n.status.conditions[0].status = s("True");
        n.spec.unschedulable = false;
        assert!(no_schedule_taints(&n).is_empty());
    }
}
