//! Lessons as data. A scenario file may say how the page presents it as a lesson (`lesson:`), ask a person to
//! predict what a step will do (an action's `ask:`), and say what the control loop does after a step (an action's
//! `expect:`, in the small vocabulary below). The engine checks the expectations as a run goes (the runner and the
//! page, at the same simulated seconds, see the same verdicts); `kubeloop run` reports them.
//!
//! ```yaml
//! lesson: {title: Self-healing, watch: "A deleted pod is replaced...", figures: [deployments], speed: 10, order: 1}
//! actions:
//!   - at: 15s
//!     label: delete one web pod
//!     delete: {kind: pod, oneOf: "app=web", wait: false}
//!     ask:
//!       question: A web pod is deleted. What happens next?
//!       choices: ["Nothing", "A new one is created within seconds", "The kubelet restarts it"]
//!       answer: 1
//!     expect:
//!       - {within: 30s, pods: {selector: app=web, running: 3, createdSince: ">= 1"}}
//! ```
//!
//! An expectation is looked at on every whole simulated second after its step, seeing the cluster as the events
//! before that second left it: `within: D` holds the first second it is true (and fails if it never is by D after
//! the step), `at: D` is looked at once, D after the step, and `throughout: D` must be true at every second until D
//! after the step.

use super::values::{dur, kind_name, sel, Dur, KindName, Lines, Sel};
use super::*;
use crate::decode::{Any, Cx, Shape};
use crate::yamltree::{Node, Scalar};

/// The most choices a question offers.
pub const MAX_CHOICES: usize = 6;
/// The most expectations one step carries, and the most subjects one expectation checks.
pub const MAX_EXPECTS: usize = 8;
/// The fastest speed a lesson may suggest (the page's fastest).
pub const MAX_SPEED: u64 = 1000;

// ---------------------------------------------------------------------------------------------------------------
// The data

/// `lesson:`: how the page presents the scenario as a lesson. `kubeloop run` shows only its title.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonInfo {
    pub title: String,
    /// The lesson bar's label (`short:`, else the title).
    pub short: String,
    /// What happens and what to watch, in a few sentences.
    pub watch: String,
    /// Live figures shown beside the text.
    pub figures: Vec<Figure>,
    /// The lesson is about node failure: the page offers kubeloop's fast demo timings.
    pub fast_demo: bool,
    /// The speed the page sets when the lesson starts.
    pub speed: u32,
    /// The event stream's controller filter while the lesson runs.
    pub events: Option<&'static str>,
    /// Place in the lesson bar (ties by file name).
    pub order: u32,
}

/// Live figures a lesson shows (the page reads them from the simulation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Per Deployment: desired replicas and pods really running.
    Deployments,
    /// spec.replicas of the Deployment and of its ReplicaSets.
    ReplicaSetSpec,
    /// resourceVersion of the Deployment, ReplicaSet and pods, and the store's.
    ResourceVersions,
    /// Drift, relists, and the ReplicaSet controller's trigger mode.
    Drift,
    /// API reads per minute in both modes.
    Reads,
    /// 409 Conflicts per client.
    Conflicts,
    /// The controller managers and the Lease holder.
    Leader,
    /// The retry delays of the ReplicaSet controller's failed reconciles.
    RetryDelays,
    /// Killed nodes: Ready condition and taints.
    DeadNodes,
    /// Per Service: its ready endpoints and the others.
    Endpoints,
    /// Pods that are not ready or have restarted: their containers' state and restart counts.
    Restarts,
    /// Per Deployment: its Progressing condition and the new ReplicaSet's ready pods.
    Rollout,
    /// Per PodDisruptionBudget: healthy, desired and allowed disruptions; and the cordoned nodes.
    Budgets,
    /// Per DaemonSet: nodes desired, current, ready, up to date and misscheduled.
    DaemonSets,
    /// Per Job: its active, succeeded and failed pods, and how it finished.
    Jobs,
}

/// Each figure's name in a scenario file.
pub const FIGURES: [(&str, Figure); 15] = [
    ("deployments", Figure::Deployments),
    ("replicaSetSpec", Figure::ReplicaSetSpec),
    ("resourceVersions", Figure::ResourceVersions),
    ("drift", Figure::Drift),
    ("reads", Figure::Reads),
    ("conflicts", Figure::Conflicts),
    ("leader", Figure::Leader),
    ("retryDelays", Figure::RetryDelays),
    ("deadNodes", Figure::DeadNodes),
    ("endpoints", Figure::Endpoints),
    ("restarts", Figure::Restarts),
    ("rollout", Figure::Rollout),
    ("budgets", Figure::Budgets),
    ("daemonSets", Figure::DaemonSets),
    ("jobs", Figure::Jobs),
];

/// `ask:`: a question the page asks before the step runs (the clock holds until it is answered). Its step's
/// expectations say whether the answer is what the control loop does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ask {
    pub question: String,
    pub choices: Vec<String>,
    /// The right choice (0-based).
    pub answer: usize,
}

/// One `expect:` entry: what is true after the step, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expect {
    pub when: When,
    /// All must hold at the same moment.
    pub subjects: Vec<Subject>,
    /// Line of the entry in the scenario text.
    pub line: usize,
}

/// When an expectation is looked at, from its step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum When {
    /// Holds at some whole second within this long.
    Within(Millis),
    /// Holds this long after (looked at once).
    At(Millis),
    /// Holds at every whole second until this long after.
    Throughout(Millis),
}

/// A number a figure is compared with: `3`, `">= 1"`, `"<= 2"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count {
    pub op: Op,
    pub n: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Is,
    AtLeast,
    AtMost,
}

/// What an expectation looks at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// `pods:` the pods a selector matches.
    Pods(Pods),
    /// `replicaSets:` the spec.replicas of the ReplicaSets a selector matches, in the store's order.
    ReplicaSets { selector: Option<(LabelSelector, String)>, namespace: String, replicas: Vec<i32> },
    /// `endpoints:` a Service's ready endpoints (over its EndpointSlices).
    Endpoints { namespace: String, service: String, ready: Count },
    /// `unchanged:` no object of these kinds written since the step (resourceVersions and count).
    Unchanged(Vec<Kind>),
    /// `apiReadsPerMinute:` API reads (LIST items, GETs, watch events) per simulated minute since the step.
    ReadsPerMinute(Count),
    /// `retries:` the most times a key waiting in a controller's queue has been retried.
    Retries { controller: &'static str, count: Count },
    /// `condition:` an object's condition, by type.
    Condition(ConditionIs),
    /// `conflicts:` updates answered 409 Conflict since the step, every client.
    Conflicts(Count),
    /// `drift:` cached objects that differ from the store, over every running informer.
    Drift(Count),
    /// `leader:` the kube-controller-manager replica leading (`none`: no replica leads).
    Leader(Option<String>),
}

/// The figures `pods:` counts, as a scenario names them and as they are said: every pod matched (terminating ones
/// included), running / ready / not ready (not terminating), terminating, created since the step, on a node whose
/// kubelet is dead (not terminating), container restarts (summed), with a container in CrashLoopBackOff.
pub const POD_COUNTS: [(&str, &str); 9] = [
    ("total", "in all"),
    ("running", "running"),
    ("ready", "ready"),
    ("notReady", "not ready"),
    ("terminating", "terminating"),
    ("createdSince", "created since the step"),
    ("onDeadNodes", "on dead nodes"),
    ("restarts", "restarts"),
    ("backOff", "in CrashLoopBackOff"),
];
const RUNNING: usize = 1;
const ON_DEAD_NODES: usize = 6;

/// `pods:`: counts over the pods a selector matches (in one namespace), each optional.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Pods {
    pub selector: LabelSelector,
    pub text: String,
    pub namespace: String,
    /// Only the pods whose first container runs this image.
    pub image: Option<String>,
    /// The counts asked for, in [`POD_COUNTS`]' order.
    pub counts: [Option<Count>; 9],
    /// The nodes the running pods run on, exactly.
    pub nodes: Option<Vec<String>>,
}

/// `condition:`: an object's condition of one type has this status and reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConditionIs {
    pub kind: Kind,
    pub namespace: String,
    pub name: String,
    pub type_: String,
    pub status: Option<String>,
    pub reason: Option<String>,
}

// ---------------------------------------------------------------------------------------------------------------
// Words

impl Count {
    fn holds(&self, v: u64) -> bool {
        match self.op {
            Op::Is => v == self.n,
            Op::AtLeast => v >= self.n,
            Op::AtMost => v <= self.n,
        }
    }

    fn parse(text: &str) -> Result<Count, String> {
        let t = text.trim();
        let (op, rest) = match (t.strip_prefix(">="), t.strip_prefix("<=")) {
            (Some(r), _) => (Op::AtLeast, r),
            (_, Some(r)) => (Op::AtMost, r),
            _ => (Op::Is, t),
        };
        match rest.trim().parse::<u64>() {
            Ok(n) => Ok(Count { op, n }),
            Err(_) => Err(format!("{:?} is not a count: a number, or \">= N\" or \"<= N\"", echo(text))),
        }
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.op {
            Op::Is => write!(f, "{}", self.n),
            Op::AtLeast => write!(f, "at least {}", self.n),
            Op::AtMost => write!(f, "at most {}", self.n),
        }
    }
}

impl fmt::Display for When {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            When::Within(d) => write!(f, "within {}", human_duration(*d)),
            When::At(d) => write!(f, "{} after", human_duration(*d)),
            When::Throughout(d) => write!(f, "for {}", human_duration(*d)),
        }
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Pods(p) => {
                let mut parts = Vec::new();
                for (c, (_, what)) in p.counts.iter().zip(POD_COUNTS) {
                    if let Some(c) = c {
                        parts.push(format!("{c} {what}"));
                    }
                }
                if let Some(n) = &p.nodes {
                    parts.push(format!("running on {}", if n.is_empty() { "no node".into() } else { n.join(", ") }));
                }
                let image = p.image.as_ref().map(|i| format!(" of {i}")).unwrap_or_default();
                write!(f, "pods {}{image}: {}", p.text, parts.join(", "))
            }
            Subject::ReplicaSets { selector, replicas, .. } => {
                let which = selector.as_ref().map_or("ReplicaSets".to_string(), |(_, t)| format!("ReplicaSets {t}"));
                write!(f, "{which} at spec.replicas {replicas:?}")
            }
            Subject::Endpoints { service, ready, .. } => write!(f, "{ready} ready endpoints behind service/{service}"),
            Subject::Unchanged(kinds) => {
                let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
                write!(f, "no {} written", names.join(", "))
            }
            Subject::ReadsPerMinute(c) => write!(f, "{c} API reads per simulated minute"),
            Subject::Retries { controller, count } => {
                write!(f, "a key of the {controller} queue retried {count} times")
            }
            Subject::Condition(c) => {
                let mut v = c.status.clone().unwrap_or_default();
                if let Some(r) = &c.reason {
                    v = if v.is_empty() { r.clone() } else { format!("{v} ({r})") };
                }
                write!(f, "{}/{} {}: {v}", c.kind.name().to_ascii_lowercase(), c.name, c.type_)
            }
            Subject::Conflicts(c) => write!(f, "{c} updates answered 409 Conflict"),
            Subject::Drift(c) => write!(f, "drift {c}"),
            Subject::Leader(None) => f.write_str("no controller manager leading"),
            Subject::Leader(Some(l)) => write!(f, "{l} leading"),
        }
    }
}

impl Expect {
    /// What the expectation looks for, in words.
    pub fn what(&self) -> String {
        let subjects: Vec<String> = self.subjects.iter().map(Subject::to_string).collect();
        format!("{}; {}", subjects.join("; "), self.when)
    }

    /// How long after its step the expectation is decided at the latest.
    pub fn due(&self) -> Millis {
        match self.when {
            When::Within(d) | When::At(d) | When::Throughout(d) => d,
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Looking at the simulation

/// The simulation as the step left it: what expectations that count "since the step" compare with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    /// When the step ran.
    pub at: Millis,
    pub reads: u64,
    pub conflicts: u64,
    /// The resourceVersions of the `unchanged:` kinds' objects.
    pub versions: Vec<u64>,
}

/// What an expectation found, and when.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub holds: bool,
    /// What was seen, in words.
    pub seen: String,
    /// The simulated second it was decided.
    pub at: Millis,
}

fn conflicts(sim: &Sim) -> u64 {
    sim.store().clients().iter().map(|c| c.counters.conflicts).sum()
}

fn versions(sim: &Sim, kinds: &[Kind]) -> Vec<u64> {
    kinds.iter().flat_map(|k| sim.store().objects(*k).map(|o| o.meta().resource_version)).collect()
}

impl Baseline {
    fn of(sim: &Sim, e: &Expect) -> Baseline {
        let kinds: Vec<Kind> = e
            .subjects
            .iter()
            .flat_map(|s| match s {
                Subject::Unchanged(k) => k.clone(),
                _ => Vec::new(),
            })
            .collect();
        Baseline { at: sim.now(), reads: sim.api_reads(), conflicts: conflicts(sim), versions: versions(sim, &kinds) }
    }
}

/// Whether a figure holds, and the figure in words.
type Look = (bool, String);

fn count_look(c: &Count, v: u64, what: String) -> Look {
    (c.holds(v), what)
}

fn look_pods(p: &Pods, sim: &Sim, b: &Baseline) -> Look {
    let picks = |x: &crate::api::Pod| {
        *x.metadata.namespace == *p.namespace
            && p.selector.matches(&x.metadata.labels)
            && p.image.as_deref().is_none_or(|i| x.spec.containers.first().is_some_and(|c| *c.image == *i))
    };
    let m = sim.matched_pods(&picks, b.at);
    // The figures of POD_COUNTS, in its order.
    let n = [
        m.total,
        m.running,
        m.ready,
        m.not_ready,
        m.terminating,
        m.created_since,
        m.on_dead_nodes,
        m.restarts,
        m.back_off,
    ];
    let nodes = m.nodes;
    let placed = if nodes.is_empty() { String::new() } else { format!(" ({})", nodes.join(", ")) };
    let mut seen = vec![format!("{} running{placed}", n[RUNNING])];
    let mut holds = p.nodes.as_ref().is_none_or(|want| *want == nodes);
    for (i, c) in p.counts.iter().enumerate() {
        let Some(c) = c else { continue };
        holds &= c.holds(n[i]);
        if i != RUNNING {
            seen.push(format!("{} {}", n[i], POD_COUNTS[i].1));
        }
    }
    if p.counts[ON_DEAD_NODES].is_some() {
        let dead: Vec<&str> = sim.kubelets().iter().filter(|k| !k.alive).map(|k| &*k.name).collect();
        seen.push(format!("dead: {}", if dead.is_empty() { "none".to_string() } else { dead.join(", ") }));
    }
    (holds, format!("pods {}: {}", p.text, seen.join(", ")))
}

fn look_condition(c: &ConditionIs, sim: &Sim) -> Look {
    let obj = sim.store().peek(c.kind, &ObjKey::new(&c.namespace, &c.name));
    let found = obj.and_then(|o| condition_of(o, &c.type_));
    let Some((status, reason)) = found else {
        let what = if obj.is_some() { format!("no {} condition", c.type_) } else { "not found".into() };
        return (false, format!("{}/{}: {what}", c.kind.name().to_ascii_lowercase(), c.name));
    };
    let holds = c.status.as_ref().is_none_or(|s| *s == status) && c.reason.as_ref().is_none_or(|r| *r == reason);
    (holds, format!("{} {status} ({})", c.type_, if reason.is_empty() { "-" } else { &reason }))
}

/// The status and reason of an object's condition of type `t` (the kinds `condition:` reads).
fn condition_of(o: &Object, t: &str) -> Option<(String, String)> {
    let pair = |s: &str, r: &str| (s.to_string(), r.to_string());
    match o {
        Object::Deployment(d) => d.condition(t).map(|c| pair(&c.status, &c.reason)),
        Object::Pod(p) => p.condition(t).map(|c| pair(&c.status, &c.reason)),
        Object::Node(n) => n.condition(t).map(|c| pair(&c.status, &c.reason)),
        Object::Job(j) => j.condition(t).map(|c| pair(&c.status, &c.reason)),
        _ => None,
    }
}

/// The kinds whose conditions `condition:` reads.
const CONDITION_KINDS: [Kind; 4] = [Kind::Deployment, Kind::Pod, Kind::Node, Kind::Job];

impl Subject {
    /// The subject at simulated second `t` (the cluster as the events before it left it).
    fn look(&self, sim: &Sim, b: &Baseline, t: Millis) -> Look {
        match self {
            Subject::Pods(p) => look_pods(p, sim, b),
            Subject::ReplicaSets { selector, namespace, replicas } => {
                let rs: Vec<i32> = sim
                    .store()
                    .objects(Kind::ReplicaSet)
                    .filter_map(|o| o.as_replicaset())
                    .filter(|r| *r.metadata.namespace == **namespace)
                    .filter(|r| selector.as_ref().is_none_or(|(s, _)| s.matches(&r.metadata.labels)))
                    .map(|r| r.replicas())
                    .collect();
                (rs == *replicas, format!("ReplicaSets at spec.replicas {rs:?}"))
            }
            Subject::Endpoints { namespace, service, ready } => {
                let n = sim
                    .store()
                    .objects(Kind::EndpointSlice)
                    .filter_map(|o| o.as_endpointslice())
                    .filter(|s| *s.metadata.namespace == **namespace)
                    .filter(|s| s.metadata.label("kubernetes.io/service-name") == Some(service.as_str()))
                    .flat_map(|s| s.endpoints().iter())
                    .filter(|e| e.conditions.ready == Some(true))
                    .count() as u64;
                count_look(ready, n, format!("{n} ready endpoints behind service/{service}"))
            }
            Subject::Unchanged(kinds) => {
                let now = versions(sim, kinds);
                let moved =
                    now.iter().zip(&b.versions).filter(|(a, b)| a != b).count() + now.len().abs_diff(b.versions.len());
                let store = sim.store().resource_version();
                (moved == 0, format!("{moved} resourceVersions moved (the store's is at {store})"))
            }
            Subject::ReadsPerMinute(c) => {
                let span = t.saturating_sub(b.at).max(1);
                let per_min = sim.api_reads().saturating_sub(b.reads).saturating_mul(MINUTE) / span;
                count_look(c, per_min, format!("{per_min} API reads per simulated minute"))
            }
            Subject::Retries { controller, count } => {
                let Some(c) = sim.controller(controller) else { return (false, format!("no {controller} controller")) };
                let waiting: Vec<_> = c
                    .queue_items(t, usize::MAX)
                    .into_iter()
                    .filter(|i| i.state == crate::controller::QueueItemState::Backoff)
                    .collect();
                let retries = waiting.iter().map(|i| i.retries).max().unwrap_or(0);
                let next = waiting.iter().map(|i| i.for_ms).max().unwrap_or(0);
                let what = format!("retried {retries} times, the next in {}", human_duration(next));
                count_look(count, retries.into(), what)
            }
            Subject::Condition(c) => look_condition(c, sim),
            Subject::Conflicts(c) => {
                let n = conflicts(sim).saturating_sub(b.conflicts);
                count_look(c, n, format!("{n} updates answered 409 Conflict"))
            }
            Subject::Drift(c) => {
                let n = sim.drift() as u64;
                count_look(c, n, format!("drift {n}"))
            }
            Subject::Leader(want) => {
                let leader =
                    sim.controller_manager_leader().and_then(|h| sim.host(h).identity().map(|i| i.to_string()));
                let seen = format!("{} leading", leader.as_deref().unwrap_or("no controller manager"));
                (leader == *want, seen)
            }
        }
    }
}

impl Expect {
    fn look(&self, sim: &Sim, b: &Baseline, t: Millis) -> Look {
        let mut holds = true;
        let mut seen = Vec::with_capacity(self.subjects.len());
        for s in &self.subjects {
            let (h, what) = s.look(sim, b, t);
            holds &= h;
            seen.push(what);
        }
        (holds, seen.join("; "))
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Checks: every expectation of a scenario, as a run goes

/// One expectation of a run, as far as it has come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// The step (index into the scenario's actions) and the entry of its `expect:`.
    pub step: usize,
    pub entry: usize,
    /// Taken when the step ran: looking starts then.
    pub baseline: Option<Baseline>,
    pub verdict: Option<Verdict>,
}

/// The checks of a run: one per expectation, in the order of the steps.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checks {
    pub checks: Vec<Check>,
}

impl Checks {
    /// Every expectation of the scenario's actions, none looked at yet.
    pub fn of(actions: &[Action]) -> Checks {
        let checks = actions
            .iter()
            .enumerate()
            .flat_map(|(step, a)| {
                (0..a.expect.len()).map(move |entry| Check { step, entry, baseline: None, verdict: None })
            })
            .collect();
        Checks { checks }
    }

    /// Step `step` has just run: its expectations start.
    pub fn ran(&mut self, actions: &[Action], step: usize, sim: &Sim) {
        for c in self.checks.iter_mut().filter(|c| c.step == step && c.baseline.is_none()) {
            c.baseline = Some(Baseline::of(sim, &actions[step].expect[c.entry]));
        }
    }

    /// Whether an expectation is started and undecided.
    pub fn open(&self) -> bool {
        self.checks.iter().any(|c| c.baseline.is_some() && c.verdict.is_none())
    }

    /// Looks at the open expectations at simulated second `t`; returns the indices of those decided now.
    pub fn look(&mut self, actions: &[Action], sim: &Sim, t: Millis) -> Vec<usize> {
        let mut decided = Vec::new();
        for (i, c) in self.checks.iter_mut().enumerate() {
            let (Some(b), None) = (&c.baseline, &c.verdict) else { continue };
            let e = &actions[c.step].expect[c.entry];
            let due = t >= b.at.saturating_add(e.due());
            let (holds, seen) = match e.when {
                When::At(_) if !due => continue,
                _ => e.look(sim, b, t),
            };
            let settled = match e.when {
                When::Within(_) => holds || due,
                When::At(_) => true,
                When::Throughout(_) => !holds || due,
            };
            if settled {
                c.verdict = Some(Verdict { holds, seen, at: t });
                decided.push(i);
            }
        }
        decided
    }

    /// The check's expectation.
    pub fn expect<'a>(&self, actions: &'a [Action], i: usize) -> &'a Expect {
        let c = &self.checks[i];
        &actions[c.step].expect[c.entry]
    }

    /// One line for a decided check: held or not, after how long, and what was seen.
    pub fn said(&self, actions: &[Action], i: usize) -> Option<(bool, String)> {
        let c = &self.checks[i];
        let (b, v) = (c.baseline.as_ref()?, c.verdict.as_ref()?);
        let e = self.expect(actions, i);
        let after = human_duration(v.at.saturating_sub(b.at));
        let word = if v.holds { "held" } else { "FAILED" };
        Some((v.holds, format!("expect (line {}) {word} after {after}: {}; saw {}", e.line, e.what(), v.seen)))
    }
}

/// An expectation as the summary reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExpectationSummary {
    /// 0-based index of the step in the scenario's actions (sorted by time).
    pub step: usize,
    pub line: usize,
    pub expect: String,
    /// `held`, `failed`, `undecided` (the run ended first) or `notRun` (its step did not run).
    pub verdict: &'static str,
    /// Simulated milliseconds after the step it was decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_ms: Option<Millis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seen: Option<String>,
}

impl Checks {
    /// Each expectation's outcome, for the summary.
    pub fn summary(&self, actions: &[Action]) -> Vec<ExpectationSummary> {
        let mut out = Vec::with_capacity(self.checks.len());
        for (i, c) in self.checks.iter().enumerate() {
            let e = self.expect(actions, i);
            let verdict = match (&c.baseline, &c.verdict) {
                (None, _) => "notRun",
                (Some(_), None) => "undecided",
                (Some(_), Some(v)) if v.holds => "held",
                _ => "failed",
            };
            let after_ms = c.baseline.as_ref().zip(c.verdict.as_ref()).map(|(b, v)| v.at.saturating_sub(b.at));
            let seen = c.verdict.as_ref().map(|v| v.seen.clone());
            out.push(ExpectationSummary { step: c.step, line: e.line, expect: e.what(), verdict, after_ms, seen });
        }
        out
    }
}

mod read;
pub(super) use read::{ask, ask_checked, expect, expect_checked, lesson, lesson_info, RawAsk, RawExpect, RawLesson};
