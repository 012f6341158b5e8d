//! The scheduler's plugins, as the default profile runs them: the filters (NodeUnschedulable, NodeName,
//! TaintToleration, NodeAffinity, NodeResourcesFit) and the scores (NodeResourcesFit's LeastAllocated,
//! NodeResourcesBalancedAllocation, TaintToleration, PodTopologySpread's system default constraints) with their
//! weights. Pure functions of a pod and the nodes' figures: the scheduler (`super`) runs them.

use super::*;
/// The filter plugins of the default profile that kubeloop simulates, in upstream's order.
pub const FILTER_PLUGINS: [&str; 5] =
    ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodeResourcesFit"];

/// Filter plugin `i` of [`FILTER_PLUGINS`] on node `n`: why it rejects the pod (empty: it passes).
pub(super) fn filter_plugin(i: usize, pod: &Pod, u: &Usage, n: &NodeInfo) -> Vec<String> {
    let mut reasons = Vec::new();
    match i {
        // NodeUnschedulable (a pod tolerating node.kubernetes.io/unschedulable:NoSchedule passes)
        0 if n.unschedulable => {
            let t = Taint {
                key: s("node.kubernetes.io/unschedulable"),
                value: s(""),
                effect: s("NoSchedule"),
                time_added: None,
            };
            if !pod.spec.tolerations.iter().any(|tol| tol.tolerates(&t)) {
                reasons.push("node(s) were unschedulable".into());
            }
        }
        1 if !pod.spec.node_name.is_empty() && pod.spec.node_name != n.name => {
            reasons.push("node(s) didn't match the requested node name".into());
        }
        // NoSchedule and NoExecute taints must be tolerated
        2 => {
            if let Some(t) = n
                .taints
                .iter()
                .filter(|t| matches!(&*t.effect, "NoSchedule" | "NoExecute"))
                .find(|t| !pod.spec.tolerations.iter().any(|tol| tol.tolerates(t)))
            {
                reasons.push(format!("node(s) had untolerated taint {{{}: {}}}", t.key, t.value));
            }
        }
        // nodeSelector and the required node affinity
        3 if !node_affinity_matches(pod, n) => {
            reasons.push("node(s) didn't match Pod's node affinity/selector".into());
        }
        4 => {
            if n.pods.saturating_add(1) > n.alloc_pods {
                reasons.push("Too many pods".into());
            }
            if u.cpu > 0 && n.req_cpu + u.cpu > i128::from(n.alloc_cpu) {
                reasons.push("Insufficient cpu".into());
            }
            if u.mem > 0 && n.req_mem + u.mem > i128::from(n.alloc_mem) {
                reasons.push("Insufficient memory".into());
            }
        }
        _ => {}
    }
    reasons
}

/// NodeAffinity's filter (`GetRequiredNodeAffinity(pod).Match(node)`): the pod's nodeSelector and its required
/// node affinity terms both hold for the node.
pub(super) fn node_affinity_matches(pod: &Pod, n: &NodeInfo) -> bool {
    pod.spec.node_selector.iter().all(|(k, v)| n.labels.get(k) == Some(v))
        && pod.spec.affinity.as_ref().is_none_or(|a| a.required_matches(&n.labels, &n.name))
}

/// NodeResourcesFit's place in [`FILTER_PLUGINS`]: a node only it rejects could make room by preemption.
pub(super) const NODE_RESOURCES_FIT: usize = 4;

/// Runs the filter plugins in order on node `n` until one rejects the pod: which one, and why (`None`: it passes).
pub(super) fn filter(pod: &Pod, u: &Usage, n: &NodeInfo) -> Option<(usize, Vec<String>)> {
    (0..FILTER_PLUGINS.len()).find_map(|i| {
        let why = filter_plugin(i, pod, u, n);
        (!why.is_empty()).then_some((i, why))
    })
}

/// What the nodes that rejected a pod said, counted for upstream's message ([`fit_error`]).
#[derive(Default)]
pub(super) struct FitTally {
    reasons: VecMap<String, usize>,
    /// Nodes that only NodeResourcesFit rejected.
    resource_only: usize,
}

impl FitTally {
    /// Filter plugin `plugin` rejected a node for `why`.
    pub(super) fn add(&mut self, plugin: usize, why: &[String]) {
        if plugin == NODE_RESOURCES_FIT {
            self.resource_only += 1;
        }
        for r in why {
            *self.reasons.or_default(r.clone()) += 1;
        }
    }

    pub(super) fn message(&self, total: usize) -> String {
        fit_error(total, &self.reasons, self.resource_only)
    }
}

/// NodeResourcesFit's `LeastAllocated` (`leastResourceScorer`, cpu and memory weighted 1): requests with the
/// non-zero defaults (the node's `NonZeroRequested` plus the pod's); a resource the node has none of is left out.
pub(super) fn least_allocated(u: &Usage, n: &NodeInfo) -> i64 {
    let least = |req: i128, alloc: i64| {
        let alloc = i128::from(alloc);
        if req > alloc {
            0
        } else {
            // In i128: (alloc - req) * 100 overflows an i64 for allocatable past 2^63 / 100.
            ((alloc - req) * i128::from(MAX_NODE_SCORE) / alloc) as i64
        }
    };
    let mut sum = 0;
    let mut weights = 0;
    for (req, alloc) in [(n.nz_cpu + u.nz_cpu, n.alloc_cpu), (n.nz_mem + u.nz_mem, n.alloc_mem)] {
        if alloc <= 0 {
            continue;
        }
        sum += least(req, alloc);
        weights += 1;
    }
    if weights == 0 {
        0
    } else {
        sum / weights
    }
}

/// NodeResourcesBalancedAllocation (`balancedResourceScorer`, `useRequested: true`): the requests as they are,
/// without the non-zero defaults (the node's `Requested` plus the pod's); a resource the node has none of is left
/// out. `None` for a best-effort pod (nothing requested), which the plugin skips since 1.33.
pub(super) fn balanced_allocation(u: &Usage, n: &NodeInfo) -> Option<i64> {
    if u.cpu == 0 && u.mem == 0 {
        return None;
    }
    let mut fractions = Vec::with_capacity(2);
    for (req, alloc) in [(n.req_cpu + u.cpu, n.alloc_cpu), (n.req_mem + u.mem, n.alloc_mem)] {
        if alloc <= 0 {
            continue;
        }
        fractions.push((req as f64 / alloc as f64).min(1.0));
    }
    let std = match fractions[..] {
        [a, b] => ((a - b) / 2.0).abs(),
        _ => 0.0,
    };
    Some(((1.0 - std) * MAX_NODE_SCORE as f64) as i64)
}

/// The natural logarithm from +, -, * and / alone (IEEE-exact on every target), so that the native runner and
/// the wasm32 build weigh topologies identically (`std`'s `ln` calls the platform's libm). For `x >= 1`:
/// `x = m * 2^k` with `m` in [1/sqrt 2, sqrt 2), `ln m = 2 atanh((m-1)/(m+1))` as a series.
pub(super) fn ln(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    let mut m = x;
    let mut k = 0i32;
    while m > std::f64::consts::SQRT_2 {
        m /= 2.0;
        k += 1;
    }
    while m < std::f64::consts::FRAC_1_SQRT_2 {
        m *= 2.0;
        k -= 1;
    }
    let t = (m - 1.0) / (m + 1.0);
    let t2 = t * t;
    let mut term = t;
    let mut sum = 0.0;
    let mut i = 1.0;
    while i < 60.0 {
        sum += term / i;
        term *= t2;
        i += 2.0;
    }
    f64::from(k) * std::f64::consts::LN_2 + 2.0 * sum
}

/// `topologyNormalizingWeight`: `ln(size + 2)`, so that counts in a topology with few domains weigh less.
pub(super) fn topology_normalizing_weight(size: usize) -> f64 {
    ln(size as f64 + 2.0)
}

/// `scoreForCount`.
pub(super) fn score_for_count(count: i64, max_skew: i64, weight: f64) -> f64 {
    count as f64 * weight + (max_skew - 1) as f64
}

/// PodTopologySpread's scores (PreScore, Score, NormalizeScore) for `feasible`, with the system default
/// constraints and `counts` (the pods the owner's selector matches, per node). Upstream's `requireAllTopologies`
/// is false for system defaults: a node without the zone label still scores on hostname spreading, and its pods
/// count towards the domain "" (which no node with a zone is in). Pods on nodes that do not match the pod's
/// nodeSelector are not counted (nodeAffinityPolicy Honor; nodeTaintsPolicy Ignore).
pub(super) fn spread_scores(pod: &Pod, feasible: &[&NodeInfo], nodes: &NodeTable, counts: &SpreadCounts) -> Vec<i64> {
    let mut raw = Vec::with_capacity(feasible.len());
    // PreScore: the zones of the feasible nodes, with the matching pods counted over all nodes.
    fn zone_of(n: &NodeInfo) -> &str {
        n.zone.as_deref().unwrap_or("")
    }
    // Nodes of one zone (or of none) mostly follow each other: a zone equal to the one before (`text_eq`: by length
    // and pointer first) skips the map, which compares names.
    let mut zones: BTreeMap<&str, i64> = BTreeMap::new();
    let mut last: Option<&str> = None;
    for n in feasible {
        let z = zone_of(n);
        if !last.is_some_and(|l| text_eq(l, z)) {
            zones.entry(z).or_insert(0);
            last = Some(z);
        }
    }
    let zone_weight = topology_normalizing_weight(zones.len());
    let host_weight = topology_normalizing_weight(feasible.len());
    // Each node's count, by the node's place in the table: one lookup by name per node counted, where looking up
    // every feasible node's name would hash as many names as nodes are scored.
    let mut on_node: FxHashMap<*const NodeInfo, i64> = FxHashMap::default();
    // In any order: the counts are positive, and saturating sums of those do not depend on the order or the
    // grouping (a run of nodes of one zone is summed before it is added to the zone's count).
    let mut run: Option<(&str, i64)> = None;
    let mut add = |run: Option<(&str, i64)>| {
        let Some((z, sum)) = run else { return };
        if let Some(c) = zones.get_mut(z) {
            *c = c.saturating_add(sum);
        }
    };
    for (name, count) in &counts.per_node {
        let Some(n) = nodes.get(name) else { continue };
        on_node.insert(n, *count);
        if !node_affinity_matches(pod, n) {
            continue;
        }
        let z = zone_of(n);
        match &mut run {
            Some((rz, sum)) if text_eq(rz, z) => *sum = sum.saturating_add(*count),
            _ => add(run.replace((z, *count))),
        }
    }
    add(run);
    // Score: every constraint whose key the node has.
    for n in feasible {
        let mut score = 0.0;
        for (key, max_skew) in SYSTEM_DEFAULT_CONSTRAINTS {
            let Some(value) = n.domain(key) else { continue };
            score += if key == LABEL_HOSTNAME {
                score_for_count(on_node.get(&(*n as *const NodeInfo)).copied().unwrap_or(0), max_skew, host_weight)
            } else {
                score_for_count(zones.get(&**value).copied().unwrap_or(0), max_skew, zone_weight)
            };
        }
        raw.push(score.round() as i64);
    }
    // NormalizeScore: fewer matching pods, higher score.
    let min = raw.iter().copied().min().unwrap_or(0);
    let max = raw.iter().copied().max().unwrap_or(0).max(0);
    raw.iter()
        .map(|s| {
            if max == 0 {
                MAX_NODE_SCORE
            } else {
                MAX_NODE_SCORE.saturating_mul(max.saturating_add(min).saturating_sub(*s)) / max
            }
        })
        .collect()
}

/// `DefaultSelector` for a pod owned by a ReplicaSet: its controller's selector, looked up by name; `None` (no
/// spreading) without one. Upstream also merges in the selectors of the Services that select the pod; kubeloop
/// does not (docs/faithfulness.md), and has no ReplicationControllers or StatefulSets.
pub(super) fn default_spread_owner(pod: &Pod, caches: Caches<'_>) -> Option<(ObjKey, LabelSelector)> {
    spread_owner(pod, |key| Some(caches.get(Kind::ReplicaSet)?.get(key)?.as_replicaset()?.spec.selector.clone()))
}

/// [`default_spread_owner`] with the ReplicaSet's selector looked up by `selector_of` (the informer's cache, or
/// the store).
pub fn spread_owner(
    pod: &Pod,
    selector_of: impl Fn(&ObjKey) -> Option<LabelSelector>,
) -> Option<(ObjKey, LabelSelector)> {
    let owner = crate::api::controller_of(&pod.metadata)?;
    if &*owner.kind != Kind::ReplicaSet.name() || &*owner.api_version != Kind::ReplicaSet.api_version() {
        return None;
    }
    let key = ObjKey::new(&pod.metadata.namespace, &owner.name);
    let selector = selector_of(&key)?;
    if selector.is_empty() {
        return None;
    }
    Some((key, selector))
}

pub(super) fn prefer_no_schedule_violations(pod: &Pod, n: &NodeInfo) -> i64 {
    n.taints
        .iter()
        .filter(|t| &*t.effect == "PreferNoSchedule" && !pod.spec.tolerations.iter().any(|tol| tol.tolerates(t)))
        .count() as i64
}

/// The score plugins of the default profile that kubeloop simulates: NodeResourcesFit (LeastAllocated),
/// NodeResourcesBalancedAllocation, TaintToleration, PodTopologySpread.
pub const SCORE_PLUGINS: [&str; 4] =
    ["NodeResourcesFit", "NodeResourcesBalancedAllocation", "TaintToleration", "PodTopologySpread"];

/// The score plugins' weights, in [`SCORE_PLUGINS`]' order (0: the plugin is off). The default is upstream's
/// default profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights(pub [i64; 4]);

impl Default for Weights {
    fn default() -> Self {
        Weights([WEIGHT_FIT, WEIGHT_BALANCED, WEIGHT_TAINT, WEIGHT_SPREAD])
    }
}

/// A what-if profile: which filter plugins run (in [`FILTER_PLUGINS`]' order) and the score plugins' weights. The
/// default is upstream's default profile: every filter, the default weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Profile {
    pub filters: [bool; FILTER_PLUGINS.len()],
    pub weights: Weights,
}

impl Default for Profile {
    fn default() -> Self {
        Profile { filters: [true; FILTER_PLUGINS.len()], weights: Weights::default() }
    }
}

impl From<Weights> for Profile {
    fn from(weights: Weights) -> Self {
        Profile { weights, ..Profile::default() }
    }
}

impl Weights {
    /// A node's total: each plugin's normalized score (0-100) times its weight.
    pub(crate) fn total(&self, scores: &[i64; 4]) -> i64 {
        scores.iter().zip(self.0).map(|(s, w)| s.saturating_mul(w)).fold(0, i64::saturating_add)
    }
}

/// Each feasible node's normalized score (0-100) from each score plugin, in [`SCORE_PLUGINS`]' order. Without
/// `spread` (a pod no ReplicaSet owns: PreScore returns Skip) PodTopologySpread scores 0.
pub(super) fn score_plugins(
    pod: &Pod,
    u: &Usage,
    feasible: &[&NodeInfo],
    nodes: &NodeTable,
    spread: Option<&SpreadCounts>,
) -> Vec<[i64; 4]> {
    let max_taint = feasible.iter().map(|n| prefer_no_schedule_violations(pod, n)).max().unwrap_or(0);
    let spread = match spread {
        Some(counts) => spread_scores(pod, feasible, nodes, counts),
        None => vec![0; feasible.len()],
    };
    feasible
        .iter()
        .zip(spread)
        .map(|(n, spread)| {
            let taint =
                if max_taint == 0 { 100 } else { 100 - prefer_no_schedule_violations(pod, n) * 100 / max_taint };
            [least_allocated(u, n), balanced_allocation(u, n).unwrap_or(0), taint, spread]
        })
        .collect()
}
