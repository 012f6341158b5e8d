//! Scenarios: a cluster, manifests and timed actions in one YAML file, run headless from start to end.
//!
//! ```yaml
//! seed: 42                 # optional (a run option overrides it; default 1)
//! until: 10m               # optional run length (a run option overrides it; default 5m)
//! cluster:
//!   nodes: 3               # a count of nodes shaped like nodeTemplate, or a list of nodes
//!   nodeTemplate: {cpu: "8", memory: 32Gi, pods: 110}
//! manifests: |             # applied at t=0 like `kubectl apply -f -`
//!   apiVersion: apps/v1
//!   ...
//! actions:                 # each at a simulated time
//!   - {at: 30s, kubectl: "set image deployment/web nginx=nginx:1.28"}
//!   - {at: 30s, kubectl: "rollout status deployment/web"}   # keeps printing as time passes, until done
//!   - {at: 60s, scale: {deployment: web, replicas: 10}}
//!   - {at: 90s, delete: {kind: pod, selector: "app=web"}}
//!   - {at: 2m, killNode: node-1}
//! ```
//!
//! A scenario that does not parse, or asks for something impossible (an unknown kind, a bad duration, more nodes
//! than kubeloop simulates), is refused with its line and column. Once running, nothing aborts: an action that
//! fails (a manifest the API server rejects, a delete of something missing) is written to the timeline as an
//! error, as kubectl would print it, and the run goes on.
//!
//! `kubectl:` actions, `scale:` and `delete:` run through [`crate::kubectl::run`]: the timeline shows the command
//! and what kubectl printed. A command that keeps printing (`rollout status`, `get -w`, `drain`) is polled as
//! simulated time passes until it is done or the run ends. The engine reads no files: `-f PATH` goes to the
//! [`RunOptions::read_file`] the caller passes.
//!
//! The run is deterministic: the same scenario and seed give the same timeline and the same history hash.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::api::selector::parse_selector;
use crate::api::{s, Kind, LabelSelector, ObjKey, Object, PodPhase, Quantity, Taint};
use crate::controller::TriggerMode;
use crate::kubectl::Follow;
use crate::kubelet::NodeConfig;
use crate::limits::{
    bound_message, echo, MAX_API_LATENCY, MAX_DURATION, MAX_FOLLOWS, MAX_PERIOD, MAX_TIMELINE_ENTRIES, MIN_PERIOD,
};
use crate::manifest::ManifestError;
use crate::sim::{ObserveMode, Sim, SimConfig, MAX_NODES};
use crate::store::ApiCounters;
use crate::time::{parse_duration, Millis, HOUR, MINUTE, SECOND};
use crate::yamlcheck::{self, Subject};
use crate::yamlpos::LineIndex;

/// Seed of a scenario that names none.
pub const DEFAULT_SEED: u64 = 1;
/// Run length of a scenario that names none.
pub const DEFAULT_UNTIL: Millis = 5 * MINUTE;
/// The longest run: 30 simulated days.
pub const MAX_UNTIL: Millis = 30 * 24 * HOUR;
/// The longest step the runner takes between two looks at the cluster (events collected, convergence checked).
pub const CHECK_INTERVAL: Millis = 100;

// ---------------------------------------------------------------------------------------------------------------
// Errors

/// A scenario that cannot be run, located in its text where possible.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// 1-based line in the scenario text.
    pub line: Option<usize>,
    /// 1-based column.
    pub column: Option<usize>,
    pub message: String,
}

impl ScenarioError {
    /// An error whose message (which may repeat user text) is bounded ([`bound_message`]).
    fn located(line: Option<usize>, column: Option<usize>, message: &str) -> Self {
        ScenarioError { line, column, message: bound_message(message).into_owned() }
    }

    fn new(message: impl Into<String>) -> Self {
        Self::located(None, None, &message.into())
    }

    fn at(line: usize, message: impl Into<String>) -> Self {
        Self::located(Some(line), None, &message.into())
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "scenario line {l} column {c}: {}", self.message),
            (Some(l), None) => write!(f, "scenario line {l}: {}", self.message),
            _ => write!(f, "scenario: {}", self.message),
        }
    }
}

impl std::error::Error for ScenarioError {}

fn yaml_error(e: &serde_yaml::Error) -> ScenarioError {
    // serde_yaml appends " at line L column C"; the location is kept separately.
    let msg = e.to_string();
    let msg = match msg.find(" at line ") {
        Some(i) => &msg[..i],
        None => &msg,
    };
    match e.location() {
        Some(l) => ScenarioError::located(Some(l.line()), Some(l.column()), msg),
        None => ScenarioError::located(None, None, msg),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The parsed scenario

/// A scenario, checked and ready to run.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// `seed:`; [`RunOptions::seed`] overrides it; [`DEFAULT_SEED`] when neither is given.
    pub seed: Option<u64>,
    /// `until:`; [`RunOptions::until`] overrides it; [`DEFAULT_UNTIL`] when neither is given.
    pub until: Option<Millis>,
    /// Shape of nodes added without one (`cluster.nodeTemplate`, else the engine's default node).
    pub node_template: NodeConfig,
    /// The nodes of the cluster at t=0 (an empty name is generated: `node-1`, `node-2`...).
    pub nodes: Vec<NodeConfig>,
    /// Applied at t=0.
    pub manifests: Option<String>,
    /// Sorted by time (stably: actions at the same time run in file order).
    pub actions: Vec<Action>,
}

/// One timed action.
#[derive(Clone, Debug)]
pub struct Action {
    pub at: Millis,
    pub kind: ActionKind,
    /// Line of the action in the scenario text.
    pub line: usize,
}

#[derive(Clone, Debug)]
pub enum ActionKind {
    /// `kubectl apply -f -` of this text.
    Apply(String),
    /// A kubectl command line, without the leading `kubectl`, run with [`crate::kubectl::run`].
    Kubectl(String),
    /// `kubectl scale` of a Deployment or ReplicaSet (run as that command line).
    Scale { kind: Kind, key: ObjKey, replicas: u32 },
    /// `kubectl delete` by name or label selector (run as that command line).
    Delete { kind: Kind, namespace: Option<String>, target: DeleteTarget },
    /// Stops a node's kubelet.
    KillNode(String),
    /// Starts a node's kubelet again.
    ReviveNode(String),
    /// Adds a node with a running kubelet.
    AddNode(NodeConfig),
    /// `fault:`: injects (or clears) faults.
    Fault(FaultAction),
    /// `mode:`: trigger mode, observe mode, relist and resync periods.
    Mode(ModeAction),
}

/// `fault:`: any of these at once. Fractions are 0..=1 (or `N%` in the file).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaultAction {
    /// The fraction of watch events the control plane's informers lose (0 stops the fault).
    pub drop_watch_events: Option<f64>,
    /// The fraction of component updates refused with 409 Conflict.
    pub conflicts: Option<f64>,
    /// Extra latency of every component API request.
    pub api_latency: Option<Millis>,
    /// Pod creates refused with 403 "exceeded quota".
    pub reject_pod_creates: Option<bool>,
    /// Cut every control-plane watch (each re-watches, or relists after 410).
    pub disconnect_watches: bool,
    /// Answer every control-plane watch with 410 Gone: each informer relists.
    pub force_relist: bool,
    /// Crash a control-plane process: `cp-1` or `cp-2` (kube-controller-manager replicas) or `kube-scheduler`.
    pub crash: Option<String>,
    /// Start a crashed process again.
    pub restart: Option<String>,
    /// Scope `dropWatchEvents`, `disconnectWatches` and `forceRelist` to one informer: `PROCESS/RESOURCE`
    /// (`cp-1/pods`, `kube-scheduler/nodes`); all control-plane informers when absent.
    pub informer: Option<(String, Kind)>,
}

impl fmt::Display for FaultAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pct = |v: f64| format!("{}%", (v * 1000.0).round() / 10.0);
        let mut parts = Vec::new();
        if let Some(v) = self.drop_watch_events {
            parts.push(format!("drop {} of watch events", pct(v)));
        }
        if let Some(v) = self.conflicts {
            parts.push(format!("409 Conflict on {} of updates", pct(v)));
        }
        if let Some(v) = self.api_latency {
            parts.push(format!("+{}ms API latency", v));
        }
        if let Some(v) = self.reject_pod_creates {
            parts.push(format!("reject pod creates: {v}"));
        }
        if self.disconnect_watches {
            parts.push("disconnect every watch".into());
        }
        if self.force_relist {
            parts.push("410 Gone to every watch (relist)".into());
        }
        if let Some(h) = &self.crash {
            parts.push(format!("crash {h}"));
        }
        if let Some(h) = &self.restart {
            parts.push(format!("restart {h}"));
        }
        if let Some((p, k)) = &self.informer {
            parts.push(format!("(informer {p}/{})", k.plural()));
        }
        write!(f, "fault: {}", parts.join(", "))
    }
}

/// `mode:`: how the control loops observe and trigger.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModeAction {
    /// `(controller or every one, mode)`.
    pub trigger: Option<(Option<String>, TriggerMode)>,
    pub observe: Option<ObserveMode>,
    pub relist_period: Option<Millis>,
    pub resync_period: Option<Millis>,
}

impl fmt::Display for ModeAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some((c, m)) = &self.trigger {
            parts.push(format!("{} {}-triggered", c.as_deref().unwrap_or("every controller"), m.as_str()));
        }
        match self.observe {
            Some(ObserveMode::Informer) => parts.push("observe with informers".into()),
            Some(ObserveMode::Polling { period }) => {
                parts.push(format!("observe by polling every {}", human_duration(period)))
            }
            None => {}
        }
        if let Some(p) = self.relist_period {
            parts.push(format!("relist every {}", if p == 0 { "never".into() } else { human_duration(p) }));
        }
        if let Some(p) = self.resync_period {
            parts.push(format!("resync every {}", if p == 0 { "never".into() } else { human_duration(p) }));
        }
        write!(f, "mode: {}", parts.join(", "))
    }
}

/// The control-plane processes a fault may crash or restart.
pub const PROCESSES: [&str; 3] = ["cp-1", "cp-2", "kube-scheduler"];

fn process_index(name: &str) -> Option<usize> {
    match name {
        "cp-1" | "kube-controller-manager/cp-1" => Some(crate::sim::CONTROLLER_MANAGER),
        "cp-2" | "kube-controller-manager/cp-2" => Some(crate::sim::CONTROLLER_MANAGER_2),
        "kube-scheduler" | "kube-scheduler/cp-1" => Some(crate::sim::SCHEDULER),
        _ => None,
    }
}

#[derive(Clone, Debug)]
pub enum DeleteTarget {
    Name(String),
    /// The selector and its text as written.
    Selector(LabelSelector, String),
}

/// What a run may override, and what it may read.
#[derive(Clone, Copy, Default)]
pub struct RunOptions<'a> {
    pub seed: Option<u64>,
    pub until: Option<Millis>,
    /// Reads the files of `kubectl -f PATH` in `kubectl:` actions (the engine has no file system: the runner
    /// passes one, reading relative to the scenario file). `None`: no files (`the path "x" does not exist`).
    pub read_file: Option<ReadFile<'a>>,
    /// The work budget in simulation events (`None`: [`crate::limits::MAX_RUN_EVENTS`]; `Some(0)`: none).
    pub max_events: Option<u64>,
}

impl fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunOptions")
            .field("seed", &self.seed)
            .field("until", &self.until)
            .field("read_file", &self.read_file.is_some())
            .field("max_events", &self.max_events)
            .finish()
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub timeline: Vec<TimelineEntry>,
    pub summary: Summary,
}

// ---------------------------------------------------------------------------------------------------------------
// Raw (serde) form

/// A duration: `500ms`, `30s`, `2m`, `1h30m`, or a number of seconds.
#[derive(Clone, Copy, Debug)]
struct Dur(Millis);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as 500ms, 30s, 2m or 1h30m")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dur, E> {
                parse_duration(v).map(Dur).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dur, E> {
                match v.checked_mul(SECOND) {
                    Some(ms) if ms <= MAX_DURATION => Ok(Dur(ms)),
                    _ => Err(E::custom(format!("invalid duration {v}: too large (at most 2562047h47m16.854s)"))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dur, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: must not be negative")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Dur, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: too large")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Dur, E> {
                u128::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: must not be negative")))
                    .and_then(|v| self.visit_u128(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dur, E> {
                parse_duration(&v.to_string()).map(Dur).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Manifest text: a string (one or more YAML documents), or YAML written inline (one object, or a list of them).
#[derive(Clone, Debug)]
struct ManifestText(String);

impl<'de> Deserialize<'de> for ManifestText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ManifestText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("manifest text (a YAML string such as `apply: |`), an object or a list of objects")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ManifestText, E> {
                Ok(ManifestText(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ManifestText, A::Error> {
                let v = serde_yaml::Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
                serde_yaml::to_string(&v).map(ManifestText).map_err(de::Error::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ManifestText, A::Error> {
                let mut docs = Vec::new();
                while let Some(v) = seq.next_element::<serde_yaml::Value>()? {
                    docs.push(serde_yaml::to_string(&v).map_err(de::Error::custom)?);
                }
                Ok(ManifestText(docs.join("---\n")))
            }
        }
        d.deserialize_any(V)
    }
}

/// `nodes:` is a count or a list.
enum RawNodes {
    Count(u64),
    List(Vec<RawNode>),
}

impl Default for RawNodes {
    fn default() -> Self {
        RawNodes::Count(0)
    }
}

impl<'de> Deserialize<'de> for RawNodes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawNodes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of nodes or a list of nodes")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawNodes, E> {
                if v > MAX_NODES as u64 {
                    return Err(E::custom(format!("{v} nodes: kubeloop simulates at most {MAX_NODES} nodes")));
                }
                Ok(RawNodes::Count(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawNodes, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!("invalid number of nodes {v}"))),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawNodes, A::Error> {
                let mut out = Vec::new();
                while let Some(n) = seq.next_element::<RawNode>()? {
                    out.push(n);
                    if out.len() > MAX_NODES {
                        return Err(de::Error::custom(format!("kubeloop simulates at most {MAX_NODES} nodes")));
                    }
                }
                Ok(RawNodes::List(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// A taint effect, checked.
struct Effect(String);

impl<'de> Deserialize<'de> for Effect {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = String::deserialize(d)?;
        match v.as_str() {
            "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Ok(Effect(v)),
            _ => Err(de::Error::custom(format!(
                "unsupported taint effect {:?}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                echo(&v)
            ))),
        }
    }
}

/// A kind as kubectl names it: `pod`, `pods`, `po`, `Deployment`, `deploy`, `rs`, `no`, `ns`...
struct KindName(Kind);

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = String::deserialize(d)?;
        parse_kind(&v).map(KindName).map_err(de::Error::custom)
    }
}

/// Parses a kind the way kubectl resolves resource names ([`crate::kubectl::resource::kind_of`]: singular,
/// plural, short name or kind, any case, optional group). The error is kubectl's.
pub fn parse_kind(name: &str) -> Result<Kind, String> {
    crate::kubectl::resource::kind_of(name.trim())
}

/// A label selector in kubectl's `-l` syntax, checked.
struct Sel(LabelSelector, String);

impl<'de> Deserialize<'de> for Sel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = String::deserialize(d)?;
        match parse_selector(&v) {
            Ok(sel) => Ok(Sel(sel, v)),
            Err(e) => Err(de::Error::custom(format!("invalid selector {:?}: {e}", echo(&v)))),
        }
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a scenario: a mapping with seed, until, cluster, manifests and actions"
)]
struct RawScenario {
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    until: Option<Dur>,
    #[serde(default)]
    cluster: Option<RawCluster>,
    #[serde(default)]
    manifests: Option<ManifestText>,
    #[serde(default)]
    actions: Vec<RawAction>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase", expecting = "a cluster: a mapping with nodes and nodeTemplate")]
struct RawCluster {
    #[serde(default)]
    nodes: RawNodes,
    #[serde(default)]
    node_template: Option<RawNode>,
}

#[derive(Deserialize, Default)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a node: a mapping with name, cpu, memory, pods, labels and taints"
)]
struct RawNode {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    cpu: Option<Quantity>,
    #[serde(default)]
    memory: Option<Quantity>,
    #[serde(default)]
    pods: Option<u32>,
    #[serde(default)]
    labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    taints: Option<Vec<RawTaint>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a taint: a mapping with key, value and effect")]
struct RawTaint {
    key: String,
    #[serde(default)]
    value: String,
    effect: Effect,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "an action: a mapping with at and one of apply, kubectl, scale, delete, killNode, reviveNode, addNode"
)]
struct RawAction {
    at: Dur,
    #[serde(default)]
    apply: Option<ManifestText>,
    #[serde(default)]
    kubectl: Option<String>,
    #[serde(default)]
    scale: Option<RawScale>,
    #[serde(default)]
    delete: Option<RawDelete>,
    #[serde(default)]
    kill_node: Option<String>,
    #[serde(default)]
    revive_node: Option<String>,
    #[serde(default, deserialize_with = "null_is_default")]
    add_node: Option<RawNode>,
    #[serde(default)]
    fault: Option<RawFault>,
    #[serde(default)]
    mode: Option<RawMode>,
}

/// A fraction: `0.3` or `"30%"`.
#[derive(Clone, Copy, Debug)]
struct Fraction(f64);

impl<'de> Deserialize<'de> for Fraction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Fraction;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a fraction from 0 to 1, or a percentage such as 30%")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Fraction, E> {
                if (0.0..=1.0).contains(&v) {
                    Ok(Fraction(v))
                } else {
                    Err(E::custom(format!("{v} is not a fraction from 0 to 1 (write 30% for a percentage)")))
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Fraction, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Fraction, E> {
                self.visit_f64(v as f64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Fraction, E> {
                let p: f64 = v
                    .trim()
                    .strip_suffix('%')
                    .and_then(|p| p.trim().parse().ok())
                    .ok_or_else(|| E::custom(format!("{:?} is not a percentage such as 30%", echo(v))))?;
                if (0.0..=100.0).contains(&p) {
                    Ok(Fraction(p / 100.0))
                } else {
                    Err(E::custom(format!("{} is not a percentage from 0% to 100%", echo(v))))
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping of faults: dropWatchEvents, conflicts, apiLatency, rejectPodCreates, disconnectWatches, forceRelist, crash, restart, informer"
)]
struct RawFault {
    #[serde(default)]
    drop_watch_events: Option<Fraction>,
    #[serde(default)]
    conflicts: Option<Fraction>,
    #[serde(default)]
    api_latency: Option<Dur>,
    #[serde(default)]
    reject_pod_creates: Option<bool>,
    #[serde(default)]
    disconnect_watches: bool,
    #[serde(default)]
    force_relist: bool,
    #[serde(default)]
    crash: Option<String>,
    #[serde(default)]
    restart: Option<String>,
    #[serde(default)]
    informer: Option<String>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping of modes: trigger, observe, pollPeriod, relistPeriod, resyncPeriod"
)]
struct RawMode {
    /// `level`, `edge`, or `CONTROLLER=edge`.
    #[serde(default)]
    trigger: Option<String>,
    /// `informer` or `polling`.
    #[serde(default)]
    observe: Option<String>,
    #[serde(default)]
    poll_period: Option<Dur>,
    #[serde(default)]
    relist_period: Option<Dur>,
    #[serde(default)]
    resync_period: Option<Dur>,
}

const CONTROLLERS: [&str; 7] =
    ["deployment", "replicaset", "nodelifecycle", "tainteviction", "garbagecollector", "namespace", "scheduler"];

fn parse_trigger(v: &str) -> Result<(Option<String>, TriggerMode), String> {
    let (controller, mode) = match v.split_once('=') {
        Some((c, m)) => (Some(c.trim().to_string()), m.trim()),
        None => (None, v.trim()),
    };
    let mode = match mode {
        "level" => TriggerMode::Level,
        "edge" => TriggerMode::Edge,
        other => return Err(format!("trigger: {:?} is not a trigger mode: level or edge", echo(other))),
    };
    if let Some(c) = &controller {
        if !CONTROLLERS.contains(&c.as_str()) {
            return Err(format!("trigger: no controller {:?}; controllers: {}", echo(c), CONTROLLERS.join(", ")));
        }
    }
    Ok((controller, mode))
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping with deployment or replicaset, replicas and namespace"
)]
struct RawScale {
    #[serde(default)]
    deployment: Option<String>,
    #[serde(default)]
    replicaset: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    replicas: u32,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping with kind, name or selector, and namespace"
)]
struct RawDelete {
    kind: KindName,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    selector: Option<Sel>,
    #[serde(default)]
    namespace: Option<String>,
}

/// `addNode:` with no value adds a node of the template's shape, like `addNode: {}`.
fn null_is_default<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RawNode>, D::Error> {
    Option::<RawNode>::deserialize(d).map(|n| Some(n.unwrap_or_default()))
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing and checks

/// The lines of the scenario text: [`Lines::of`] a path is its line (the nearest ancestor found; flow-style
/// values are not entered). Indexed once, so that a scenario of many actions is read in linear time.
struct Lines<'a> {
    text: &'a str,
    index: LineIndex<'a>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines { text, index: LineIndex::new(text) }
    }

    fn of(&self, path: &[&str]) -> usize {
        self.index.nearest_line_of_path(path)
    }
}

/// Applies a node entry over a base shape and checks it as the API server would check the Node.
fn node_config(raw: &RawNode, base: &NodeConfig, lines: &Lines, path: &[&str]) -> Result<NodeConfig, ScenarioError> {
    let mut c = base.clone();
    if let Some(n) = &raw.name {
        c.name = n.clone();
    }
    if let Some(q) = &raw.cpu {
        c.cpu = q.clone();
    }
    if let Some(q) = &raw.memory {
        c.memory = q.clone();
    }
    if let Some(p) = raw.pods {
        c.pods = p as i64;
    }
    if let Some(labels) = &raw.labels {
        c.labels = labels.iter().map(|(k, v)| (s(k), s(v))).collect();
    }
    if let Some(taints) = &raw.taints {
        c.taints = taints
            .iter()
            .map(|t| Taint { key: s(&t.key), value: s(&t.value), effect: s(&t.effect.0), time_added: None })
            .collect();
    }
    // The Node the kubelet will register, checked now so that a bad name or label is a scenario error.
    let mut node = crate::api::Node::default();
    node.metadata.name = s(if c.name.is_empty() { "node-1" } else { &c.name });
    node.metadata.labels = c.labels.clone();
    node.spec.taints = c.taints.clone();
    let obj = Object::Node(node);
    let errs = crate::admission::validate(&obj);
    if let Some(first) = errs.first() {
        let seg = first.segments();
        let field = match seg.first().map(String::as_str) {
            Some("metadata") => seg.get(1).map(String::as_str).unwrap_or("name"),
            Some("spec") => "taints",
            _ => "name",
        };
        let mut p: Vec<&str> = path.to_vec();
        p.push(field);
        return Err(ScenarioError::at(lines.of(&p), crate::admission::invalid_message(&obj, &errs)));
    }
    Ok(c)
}

fn check_name(lines: &Lines, path: &[&str], what: &str, name: &str) -> Result<(), ScenarioError> {
    if name.trim().is_empty() {
        return Err(ScenarioError::at(lines.of(path), format!("{what}: a name is required")));
    }
    Ok(())
}

impl Scenario {
    /// Parses and checks a scenario.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        let blank = text.lines().all(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#') || t == "---"
        });
        if blank {
            return Err(ScenarioError::new("the scenario is empty: it needs at least `cluster:` with some nodes"));
        }
        // kubeloop's YAML budgets (size, nesting, no anchors or aliases), before serde_yaml reads the text.
        yamlcheck::check(text, Subject::Scenario, 1)
            .map_err(|r| ScenarioError::located(Some(r.line), r.column, &r.message))?;
        let raw: RawScenario = serde_yaml::from_str(text).map_err(|e| yaml_error(&e))?;
        let lines = Lines::new(text);

        let cluster = raw.cluster.unwrap_or_default();
        let mut node_template = NodeConfig::default();
        if let Some(t) = &cluster.node_template {
            if t.name.is_some() {
                let line = lines.of(&["cluster", "nodeTemplate", "name"]);
                return Err(ScenarioError::at(line, "cluster.nodeTemplate: a template has no name"));
            }
            node_template = node_config(t, &node_template, &lines, &["cluster", "nodeTemplate"])?;
        }
        let mut nodes = Vec::new();
        match &cluster.nodes {
            RawNodes::Count(n) => {
                nodes.extend((0..*n).map(|_| node_template.clone()));
            }
            RawNodes::List(list) => {
                let mut seen: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
                for (i, n) in list.iter().enumerate() {
                    let idx = i.to_string();
                    let path = ["cluster", "nodes", idx.as_str()];
                    let c = node_config(n, &node_template, &lines, &path)?;
                    if !c.name.is_empty() {
                        if seen.contains(&c.name) {
                            let line = lines.of(&["cluster", "nodes", &idx, "name"]);
                            return Err(ScenarioError::at(
                                line,
                                format!("cluster.nodes[{i}]: node name {:?} is used twice", echo(&c.name)),
                            ));
                        }
                        seen.insert(c.name.clone());
                    }
                    nodes.push(c);
                }
            }
        }

        let manifests = match raw.manifests {
            Some(m) => {
                check_manifests(&lines, &m.0)?;
                Some(m.0)
            }
            None => None,
        };

        let mut actions = Vec::new();
        let mut node_count = nodes.len();
        let mut accepted_words = std::collections::BTreeSet::new();
        for (i, a) in raw.actions.into_iter().enumerate() {
            let idx = i.to_string();
            let line = lines.of(&["actions", &idx]);
            let mut given = Vec::new();
            if a.apply.is_some() {
                given.push("apply");
            }
            if a.kubectl.is_some() {
                given.push("kubectl");
            }
            if a.scale.is_some() {
                given.push("scale");
            }
            if a.delete.is_some() {
                given.push("delete");
            }
            if a.kill_node.is_some() {
                given.push("killNode");
            }
            if a.revive_node.is_some() {
                given.push("reviveNode");
            }
            if a.add_node.is_some() {
                given.push("addNode");
            }
            if a.fault.is_some() {
                given.push("fault");
            }
            if a.mode.is_some() {
                given.push("mode");
            }
            let found = if given.is_empty() { "none".to_string() } else { given.join(" and ") };
            let not_one = ScenarioError::at(
                line,
                format!(
                    "actions[{i}]: an action needs exactly one of apply, kubectl, scale, delete, killNode, reviveNode, addNode, fault, mode (found {found})"
                ),
            );
            if given.len() != 1 {
                return Err(not_one);
            }
            let kind = if let Some(m) = a.apply {
                // Applied when the action runs (an error then is the timeline's), but held to the budgets now.
                crate::manifest::check_budgets(&m.0).map_err(|e| {
                    manifest_error(&lines, &["actions", &idx, "apply"], Some(line), &format!("actions[{i}].apply"), e)
                })?;
                ActionKind::Apply(m.0)
            } else if let Some(k) = a.kubectl {
                let line = lines.of(&["actions", &idx, "kubectl"]);
                let command = check_kubectl(&k, &mut accepted_words)
                    .map_err(|e| ScenarioError::at(line, format!("actions[{i}].kubectl: {e}")))?;
                ActionKind::Kubectl(command)
            } else if let Some(sc) = a.scale {
                let (kind, name) = match (sc.deployment, sc.replicaset) {
                    (Some(d), None) => (Kind::Deployment, d),
                    (None, Some(r)) => (Kind::ReplicaSet, r),
                    _ => {
                        return Err(ScenarioError::at(
                            lines.of(&["actions", &idx, "scale"]),
                            format!("actions[{i}].scale: name exactly one of deployment or replicaset"),
                        ))
                    }
                };
                check_name(&lines, &["actions", &idx, "scale"], &format!("actions[{i}].scale"), &name)?;
                if sc.replicas > i32::MAX as u32 {
                    return Err(ScenarioError::at(line, format!("actions[{i}].scale: too many replicas")));
                }
                let ns = sc.namespace.unwrap_or_else(|| "default".into());
                ActionKind::Scale { kind, key: ObjKey::new(&ns, &name), replicas: sc.replicas }
            } else if let Some(d) = a.delete {
                let target = match (d.name, d.selector) {
                    (Some(n), None) => {
                        check_name(&lines, &["actions", &idx, "delete"], &format!("actions[{i}].delete"), &n)?;
                        DeleteTarget::Name(n)
                    }
                    (None, Some(Sel(sel, t))) => DeleteTarget::Selector(sel, t),
                    _ => {
                        return Err(ScenarioError::at(
                            lines.of(&["actions", &idx, "delete"]),
                            format!("actions[{i}].delete: give exactly one of name or selector"),
                        ))
                    }
                };
                if d.namespace.is_some() && !d.kind.0.namespaced() {
                    return Err(ScenarioError::at(
                        lines.of(&["actions", &idx, "delete", "namespace"]),
                        format!("actions[{i}].delete: a {} is not namespaced", d.kind.0.name()),
                    ));
                }
                ActionKind::Delete { kind: d.kind.0, namespace: d.namespace, target }
            } else if let Some(n) = a.kill_node {
                check_name(&lines, &["actions", &idx], &format!("actions[{i}].killNode"), &n)?;
                ActionKind::KillNode(n)
            } else if let Some(n) = a.revive_node {
                check_name(&lines, &["actions", &idx], &format!("actions[{i}].reviveNode"), &n)?;
                ActionKind::ReviveNode(n)
            } else if let Some(n) = a.add_node {
                node_count += 1;
                if node_count > MAX_NODES {
                    return Err(ScenarioError::at(
                        line,
                        format!("actions[{i}].addNode: kubeloop simulates at most {MAX_NODES} nodes"),
                    ));
                }
                ActionKind::AddNode(node_config(&n, &node_template, &lines, &["actions", &idx, "addNode"])?)
            } else if let Some(f) = a.fault {
                let at = |k: &str| lines.of(&["actions", &idx, "fault", k]);
                for (name, key) in [(&f.crash, "crash"), (&f.restart, "restart")] {
                    if let Some(n) = name {
                        if process_index(n).is_none() {
                            return Err(ScenarioError::at(
                                at(key),
                                format!(
                                    "actions[{i}].fault.{key}: no process {:?}; processes: {}",
                                    echo(n),
                                    PROCESSES.join(", ")
                                ),
                            ));
                        }
                    }
                }
                let informer = match f.informer.as_deref() {
                    None => None,
                    Some(t) => {
                        let parsed = t.split_once('/').and_then(|(p, r)| {
                            process_index(p)?;
                            crate::kubectl::resource::kind_of(r).ok().map(|k| (p.to_string(), k))
                        });
                        match parsed {
                            Some(x) => Some(x),
                            None => {
                                return Err(ScenarioError::at(
                                    at("informer"),
                                    format!("actions[{i}].fault.informer: {:?} is not PROCESS/RESOURCE (e.g. cp-1/pods; processes: {})", echo(t), PROCESSES.join(", ")),
                                ))
                            }
                        }
                    }
                };
                let fa = FaultAction {
                    drop_watch_events: f.drop_watch_events.map(|x| x.0),
                    conflicts: f.conflicts.map(|x| x.0),
                    api_latency: match f.api_latency {
                        Some(Dur(l)) if l > MAX_API_LATENCY => {
                            return Err(ScenarioError::at(
                                at("apiLatency"),
                                format!(
                                    "actions[{i}].fault.apiLatency: {} is too long: at most {} (kube-apiserver's \
                                     default --request-timeout: a request that takes longer times out)",
                                    human_duration(l),
                                    human_duration(MAX_API_LATENCY)
                                ),
                            ))
                        }
                        l => l.map(|d| d.0),
                    },
                    reject_pod_creates: f.reject_pod_creates,
                    disconnect_watches: f.disconnect_watches,
                    force_relist: f.force_relist,
                    crash: f.crash,
                    restart: f.restart,
                    informer,
                };
                if fa == FaultAction::default() {
                    return Err(ScenarioError::at(line, format!("actions[{i}].fault: name at least one fault")));
                }
                ActionKind::Fault(fa)
            } else if let Some(m) = a.mode {
                let at = |k: &str| lines.of(&["actions", &idx, "mode", k]);
                let trigger = match &m.trigger {
                    Some(t) => Some(
                        parse_trigger(t)
                            .map_err(|e| ScenarioError::at(at("trigger"), format!("actions[{i}].mode.{e}")))?,
                    ),
                    None => None,
                };
                let period = |key: &str, d: Option<Dur>, off: bool| -> Result<Option<Millis>, ScenarioError> {
                    let Some(Dur(p)) = d else { return Ok(None) };
                    check_period(p, off, key == "resyncPeriod")
                        .map(Some)
                        .map_err(|e| ScenarioError::at(at(key), format!("actions[{i}].mode.{key}: {e}")))
                };
                let poll_period = period("pollPeriod", m.poll_period, false)?;
                if poll_period.is_some() && m.observe.as_deref() != Some("polling") {
                    return Err(ScenarioError::at(
                        at("pollPeriod"),
                        format!("actions[{i}].mode: pollPeriod needs observe: polling (in the same action)"),
                    ));
                }
                let observe = match m.observe.as_deref() {
                    None => None,
                    Some("informer") => Some(ObserveMode::Informer),
                    Some("polling") => {
                        Some(ObserveMode::Polling { period: poll_period.unwrap_or(crate::sim::DEFAULT_POLL_PERIOD) })
                    }
                    Some(o) => {
                        return Err(ScenarioError::at(
                            at("observe"),
                            format!(
                                "actions[{i}].mode.observe: {:?} is not an observe mode: informer or polling",
                                echo(o)
                            ),
                        ))
                    }
                };
                let ma = ModeAction {
                    trigger,
                    observe,
                    relist_period: period("relistPeriod", m.relist_period, true)?,
                    resync_period: period("resyncPeriod", m.resync_period, true)?,
                };
                if ma == ModeAction::default() {
                    return Err(ScenarioError::at(line, format!("actions[{i}].mode: name at least one mode")));
                }
                ActionKind::Mode(ma)
            } else {
                return Err(not_one);
            };
            actions.push(Action { at: a.at.0, kind, line });
        }
        actions.sort_by_key(|a| a.at); // stable: same-time actions keep their order

        let until = raw.until.map(|d| d.0);
        if until.is_some_and(|u| u > MAX_UNTIL) {
            return Err(ScenarioError::at(
                lines.of(&["until"]),
                format!("until: a run lasts at most {}", human_duration(MAX_UNTIL)),
            ));
        }
        Ok(Scenario { seed: raw.seed, until, node_template, nodes, manifests, actions })
    }
}

/// A period of a `mode:` action: 0 when `off` allows it (the period is then off), else from [`MIN_PERIOD`] to
/// [`MAX_PERIOD`]. The error says why (`resync`: client-go's minimum).
fn check_period(p: Millis, off: bool, resync: bool) -> Result<Millis, String> {
    if p == 0 && off {
        return Ok(0);
    }
    let zero = if off { ", or 0 to turn it off" } else { "" };
    if p < MIN_PERIOD {
        let why = if resync {
            "client-go's minimum resync period of 1s".to_string()
        } else {
            format!(
                "kubeloop's minimum of {}: every poll or relist LISTs every resource the controllers read, and a \
                 shorter period would flood the run with requests",
                human_duration(MIN_PERIOD)
            )
        };
        return Err(format!(
            "{} is too short: at least {} ({why}){zero}",
            human_duration(p),
            human_duration(MIN_PERIOD)
        ));
    }
    if p > MAX_PERIOD {
        return Err(format!(
            "{} is too long: at most {} (the longest run){zero}",
            human_duration(p),
            human_duration(MAX_PERIOD)
        ));
    }
    Ok(p)
}

/// `kubectl: "..."` checked as far as it can be without running it: the words split, the command is one kubeloop
/// runs, and its flags parse. Returns the command line without the leading `kubectl`. `accepted`: the words that
/// are not commands but that kubectl ran without an error (`help`), found earlier in the scenario.
fn check_kubectl(written: &str, accepted: &mut std::collections::BTreeSet<String>) -> Result<String, String> {
    use crate::kubectl::{args, COMMANDS};
    let t = written.trim();
    let command = ["kubectl", "k"]
        .iter()
        .find_map(|k| t.strip_prefix(k).filter(|r| r.is_empty() || r.starts_with(char::is_whitespace)))
        .map_or(t, str::trim_start);
    let words = args::split_words(command)?;
    // Global flags may come before the command (`-n team-a get pods`), as kubectl::run allows.
    let mut i = 0;
    while let Some(w) = words.get(i).map(String::as_str) {
        if w == "-n" || w == "--namespace" {
            i += 2;
        } else if (w.starts_with("-n") && w.len() > 2) || w.starts_with("--namespace=") {
            i += 1;
        } else {
            break;
        }
    }
    let Some(name) = words.get(i) else {
        return Err("a command is required, such as `kubectl: get pods`".into());
    };
    let Some(cmd) = COMMANDS.iter().find(|c| c.name == name) else {
        if name.chars().nth(crate::limits::ECHO_MAX_CHARS).is_some() {
            // No command is that long: kubectl's suggestions would compare all of it with every command name.
            return Err(format!("unknown command \"{}\" for \"kubectl\"", echo(name)));
        }
        // `help`, or kubectl's own message: an unknown command (with suggestions), one kubeloop does not simulate,
        // a flag. A word that is not a command runs nothing. (Asked once per word: a scenario may repeat it.)
        if accepted.contains(name.as_str()) {
            return Ok(command.to_string());
        }
        let mut sim = Sim::new(SimConfig::default());
        let out = crate::kubectl::run(&mut sim, &quoted(name), &crate::kubectl::Input::none());
        if out.code == 0 {
            accepted.insert(name.clone());
            return Ok(command.to_string());
        }
        let msg = out.stderr.trim_end();
        return Err(msg.strip_prefix("error: ").unwrap_or(msg).to_string());
    };
    let mut rest: Vec<String> = words[..i].to_vec();
    rest.extend(words[i + 1..].iter().cloned());
    if let Err(e) = args::Args::parse(&rest, cmd.flags) {
        return Err(format!("{e} (see `kubectl {} --help`)", cmd.name));
    }
    Ok(command.to_string())
}

/// The t=0 manifests must parse and validate: a scenario whose main content is broken is refused before it runs.
fn check_manifests(scenario: &Lines, manifests: &str) -> Result<(), ScenarioError> {
    let result = crate::manifest::parse(manifests).and_then(|(ms, _)| {
        if ms.is_empty() {
            return Err(ManifestError::new(0, 1, None, "no objects passed to apply"));
        }
        ms.iter().try_for_each(crate::manifest::validate)
    });
    result.map_err(|e| manifest_error(scenario, &["manifests"], None, "manifests", e))
}

/// A problem of the manifest text written at `path` in the scenario (`manifests`, `actions.N.apply`). Its lines
/// are the scenario's when the text is a block scalar (`manifests: |`); otherwise the error is on the key's line
/// (or `fallback`) and names the line within the text.
fn manifest_error(
    scenario: &Lines,
    path: &[&str],
    fallback: Option<usize>,
    what: &str,
    e: ManifestError,
) -> ScenarioError {
    let key_line = scenario.index.line_of_path(path);
    let block = key_line.and_then(|l| scenario.text.lines().nth(l - 1)).is_some_and(|l| {
        let value = l.split_once(':').map_or("", |(_, v)| v.trim_start());
        value.starts_with('|')
    });
    let document = if e.document == 0 { String::new() } else { format!("document {}", e.document) };
    match (key_line, block) {
        (Some(l), true) => {
            let message = match document.as_str() {
                "" => format!("{what}: {}", e.message),
                d => format!("{what} ({d}): {}", e.message),
            };
            ScenarioError::located(Some(l + e.line), e.column, &message)
        }
        (l, _) => {
            let message = match document.as_str() {
                "" => format!("{what}: line {}: {}", e.line, e.message),
                d => format!("{what}: {d}, line {}: {}", e.line, e.message),
            };
            ScenarioError::located(l.or(fallback), None, &message)
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Timeline

/// What a timeline line is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EntryKind {
    /// A scenario action (a kubectl command, a node fault).
    Action,
    /// A result line of an action (`deployment.apps/web scaled`).
    Result,
    /// An action that failed, printed as kubectl prints the error.
    Error,
    /// A Kubernetes Event written by a component.
    Event,
    /// A remark of the runner.
    Note,
}

/// A run's timeline, bounded ([`MAX_TIMELINE_ENTRIES`]): the first `head_cap` entries and the last `tail_cap`;
/// how many were left out between them becomes a note there.
struct Timeline {
    head: Vec<TimelineEntry>,
    tail: std::collections::VecDeque<TimelineEntry>,
    head_cap: usize,
    tail_cap: usize,
    /// Entries left out, and the times of the first and the last of them.
    dropped: u64,
    dropped_span: Option<(Millis, Millis)>,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new(MAX_TIMELINE_ENTRIES / 2, MAX_TIMELINE_ENTRIES - MAX_TIMELINE_ENTRIES / 2)
    }
}

impl Timeline {
    fn new(head_cap: usize, tail_cap: usize) -> Self {
        Timeline {
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            head_cap,
            tail_cap,
            dropped: 0,
            dropped_span: None,
        }
    }

    fn push(&mut self, e: TimelineEntry) {
        if self.head.len() < self.head_cap {
            self.head.push(e);
            return;
        }
        self.tail.push_back(e);
        if self.tail.len() > self.tail_cap {
            if let Some(old) = self.tail.pop_front() {
                self.dropped += 1;
                let (first, _) = self.dropped_span.unwrap_or((old.at, old.at));
                self.dropped_span = Some((first, old.at));
            }
        }
    }

    /// The entries kept so far, in order.
    fn iter(&self) -> impl Iterator<Item = &TimelineEntry> {
        self.head.iter().chain(self.tail.iter())
    }

    /// The timeline: the first entries, a note of those left out (if any), the last entries.
    fn into_vec(self) -> Vec<TimelineEntry> {
        let mut out = self.head;
        if let Some((first, last)) = self.dropped_span {
            out.push(TimelineEntry {
                at: first,
                kind: EntryKind::Note,
                source: "scenario".into(),
                text: format!(
                    "({} timeline entries from {} to {} not kept: kubeloop keeps the first {} and the last {} of a run)",
                    self.dropped,
                    human_duration(first),
                    human_duration(last),
                    self.head_cap,
                    self.tail_cap
                ),
            });
        }
        out.extend(self.tail);
        out
    }
}

/// One line of the timeline.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TimelineEntry {
    /// Simulated time, milliseconds.
    pub at: Millis,
    pub kind: EntryKind,
    /// Who: `scenario`, `kubectl`, or the component that wrote the Event (`kubelet`, `default-scheduler`...).
    pub source: String,
    pub text: String,
}

impl TimelineEntry {
    pub fn is_error(&self) -> bool {
        self.kind == EntryKind::Error
    }
}

/// `  12.345s`
pub fn format_time(t: Millis) -> String {
    format!("{:>8}s", format!("{}.{:03}", t / 1000, t % 1000))
}

impl fmt::Display for TimelineEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = match self.kind {
            EntryKind::Action => "$ ",
            EntryKind::Result => "  ",
            EntryKind::Error => "! ",
            EntryKind::Event | EntryKind::Note => "",
        };
        if self.text.is_empty() {
            // A blank line of a command's output.
            return write!(f, "[{}]", format_time(self.at));
        }
        write!(f, "[{}] {mark}{}", format_time(self.at), self.text)
    }
}

/// The timeline, one entry a line.
pub fn render_timeline(entries: &[TimelineEntry]) -> String {
    let mut out = String::new();
    for e in entries {
        out.push_str(&e.to_string());
        out.push('\n');
    }
    out
}

/// `Normal   ScalingReplicaSet  deployment/web  Scaled up replica set web-5d4f8 from 0 to 3  (kube-controller-manager)`
pub fn render_event(ev: &crate::api::Event) -> String {
    let b = &ev.body;
    let obj = format!("{}/{}", b.involved_object.kind.to_ascii_lowercase(), b.involved_object.name);
    let count = if b.count > 1 { format!(" (x{})", b.count) } else { String::new() };
    let source = if b.source.host.is_empty() {
        b.source.component.to_string()
    } else {
        format!("{}, {}", b.source.component, b.source.host)
    };
    format!("{:<8} {}  {obj}  {}{count}  ({source})", b.type_, b.reason, b.message)
}

// ---------------------------------------------------------------------------------------------------------------
// Summary

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
}

/// Whether the cluster is settled: Deployments converged, controllers idle, no pod Pending or terminating.
pub fn settled(sim: &Sim) -> bool {
    sim.idle() && store_settled(sim)
}

/// The part of [`settled`] that depends on the store only.
fn store_settled(sim: &Sim) -> bool {
    sim.deployments_converged()
        && sim.deployments_fulfilled()
        && sim
            .store
            .objects(Kind::Pod)
            .filter_map(|o| o.as_pod())
            .all(|p| !p.metadata.is_terminating() && p.status.phase != PodPhase::Pending)
}

/// The summary of a simulation as it is now.
pub fn summarize(sim: &Sim) -> Summary {
    let mut pods = PodSummary::default();
    let mut nodes = Vec::new();
    for n in sim.store.objects(Kind::Node).filter_map(|o| o.as_node()) {
        let name = n.metadata.name.to_string();
        pods.by_node.insert(name.clone(), 0);
        let alive = sim.kubelet(&name).is_some_and(|k| k.alive);
        nodes.push(NodeSummary { name, ready: n.ready_status().to_string(), alive });
    }
    for k in &sim.kubelets {
        if !pods.by_node.contains_key(&*k.name) {
            // A kubelet whose Node object is gone.
            pods.by_node.insert(k.name.to_string(), 0);
            nodes.push(NodeSummary { name: k.name.to_string(), ready: "Unknown".into(), alive: k.alive });
        }
    }
    nodes.sort_by(|a, b| natural_cmp(&a.name, &b.name));
    for p in sim.store.objects(Kind::Pod).filter_map(|o| o.as_pod()) {
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
        .store
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
    let mut api = ApiSummary { total: ApiLoad::from(&sim.store.total_counters()), by_client: BTreeMap::new() };
    let mut by_client: BTreeMap<String, ApiCounters> = BTreeMap::new();
    for c in sim.store.clients() {
        let name = if c.name.starts_with("kubelet/") { "kubelet".to_string() } else { c.name.to_string() };
        by_client.entry(name).or_default().add(&c.counters);
    }
    api.by_client = by_client.iter().map(|(k, v)| (k.clone(), ApiLoad::from(v))).collect();
    // Replicas of a controller (two controller managers) add up: the run's work, whoever was leading.
    let mut reconciles: BTreeMap<String, ReconcileSummary> = BTreeMap::new();
    for c in sim.hosts.iter().flat_map(|h| h.controllers.iter()) {
        let r = reconciles.entry(c.name().to_string()).or_default();
        r.reconciles += c.stats.reconciles;
        r.errors += c.stats.errors;
        r.requeues += c.stats.requeues;
        r.dropped += c.stats.dropped;
        r.api_calls += c.stats.api_calls;
        r.queue_depth += c.queue.len();
    }
    Summary {
        seed: sim.config.seed,
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
    }
}

/// Orders `node-2` before `node-10`.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    fn split(s: &str) -> (&str, Option<u64>) {
        let digits = s.len() - s.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (head, tail) = s.split_at(s.len() - digits);
        (head, tail.parse().ok())
    }
    split(a).cmp(&split(b)).then_with(|| a.cmp(b))
}

/// Left-aligned columns, kubectl style.
fn table(headers: &[&str], rows: &[Vec<String>]) -> String {
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

/// A duration for people: `72.345s`, `4m12.5s`.
pub fn human_duration(t: Millis) -> String {
    let secs = |ms: Millis| {
        let whole = ms / 1000;
        let frac = ms % 1000;
        if frac == 0 {
            format!("{whole}s")
        } else {
            format!("{whole}.{}s", format!("{frac:03}").trim_end_matches('0'))
        }
    };
    if t < MINUTE {
        return secs(t);
    }
    let (h, m, rest) = (t / HOUR, (t % HOUR) / MINUTE, t % MINUTE);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 || (h > 0 && rest > 0) {
        out.push_str(&format!("{m}m"));
    }
    if rest > 0 {
        out.push_str(&secs(rest));
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

// ---------------------------------------------------------------------------------------------------------------
// Running

/// Reads `-f PATH` for kubectl actions; the error is printed as kubectl prints it (`error: ...`).
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// No files: `-f PATH` is kubectl's "does not exist".
fn no_file(name: &str) -> Result<String, String> {
    Err(format!("the path \"{name}\" does not exist"))
}

/// A command started by a kubectl action that keeps printing (`rollout status`, `get -w`, `drain`).
struct Following {
    /// `kubectl rollout status deployment/web`, for the note when the run ends before it does.
    command: String,
    follow: Box<dyn Follow>,
}

/// A scenario being run, step by step: [`Scenario::start`] builds the cluster and applies the manifests,
/// [`Run::run_to`] advances simulated time (running the actions that come due, collecting events and following
/// commands that keep printing), [`Run::sim_mut`] lets a caller act on the cluster in between (`kubeloop kubectl`),
/// and [`Run::finish`] ends it with the timeline and the summary.
pub struct Run<'a> {
    scenario: &'a Scenario,
    sim: Sim,
    read_file: ReadFile<'a>,
    timeline: Timeline,
    event_seq: u64,
    follows: Vec<Following>,
    /// The end of the run.
    until: Millis,
    /// Actions at or before `until`.
    runnable: usize,
    /// The next action to run.
    next: usize,
    last_action_ms: Millis,
    /// Start of the current streak of settled checks.
    streak: Option<Millis>,
    /// (resourceVersion, store settled) at the previous check.
    last_check: Option<(u64, bool)>,
    /// The work budget in simulation events (0: none), and when the run stopped at it.
    max_events: u64,
    stopped_at: Option<Millis>,
}

/// Quotes a word for the command line shown in the timeline (and parsed again by kubectl's word splitter).
fn shell_word(w: &str) -> String {
    let plain = !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        w.to_string()
    } else {
        quoted(w)
    }
}

fn quoted(w: &str) -> String {
    format!("'{}'", w.replace('\'', r"'\''"))
}

impl ActionKind {
    /// The kubectl command line an action runs (without the leading `kubectl`), for the actions that are kubectl
    /// commands: `kubectl`, `scale` and `delete`.
    pub fn kubectl_line(&self) -> Option<String> {
        match self {
            ActionKind::Kubectl(line) => Some(line.clone()),
            ActionKind::Scale { kind, key, replicas } => {
                let ns = if &*key.namespace == "default" {
                    String::new()
                } else {
                    format!(" -n {}", shell_word(&key.namespace))
                };
                let res = kind.name().to_ascii_lowercase();
                Some(format!("scale {res} {}{ns} --replicas={replicas}", shell_word(&key.name)))
            }
            ActionKind::Delete { kind, namespace, target } => {
                let ns = match namespace.as_deref() {
                    Some(n) if kind.namespaced() && n != "default" => format!(" -n {}", shell_word(n)),
                    _ => String::new(),
                };
                let res = kind.name().to_ascii_lowercase();
                Some(match target {
                    DeleteTarget::Name(name) => format!("delete {res} {}{ns}", shell_word(name)),
                    DeleteTarget::Selector(_, text) => format!("delete {res} -l {}{ns}", quoted(text)),
                })
            }
            _ => None,
        }
    }
}

impl Run<'_> {
    fn push(&mut self, kind: EntryKind, source: &str, text: impl Into<String>) {
        let text = text.into();
        self.timeline.push(TimelineEntry { at: self.sim.now(), kind, source: source.into(), text });
    }

    fn result(&mut self, r: Result<String, String>) {
        match r {
            Ok(t) => self.push(EntryKind::Result, "kubectl", t),
            Err(t) => self.push(EntryKind::Error, "kubectl", t),
        }
    }

    /// A command's output, one entry a line: stdout as results, then stderr as errors when the command failed
    /// (as results when it succeeded: warnings, `No resources found`).
    fn output(&mut self, warnings: &str, stdout: &str, stderr: &str, failed: bool) {
        for l in warnings.lines() {
            self.push(EntryKind::Result, "kubectl", l);
        }
        for l in stdout.lines() {
            self.push(EntryKind::Result, "kubectl", l);
        }
        let kind = if failed { EntryKind::Error } else { EntryKind::Result };
        for l in stderr.lines() {
            self.push(kind, "kubectl", l);
        }
    }

    /// Every Kubernetes Event written since the last call.
    fn collect_events(&mut self) {
        let (first, _) = self.sim.store.event_log();
        if self.event_seq < first {
            let lost = first - self.event_seq;
            self.push(EntryKind::Note, "scenario", format!("({lost} events not shown: the event log overflowed)"));
        }
        let (events, next) = self.sim.store.events_since(self.event_seq);
        self.event_seq = next;
        for o in events {
            let Some(ev) = o.as_event() else { continue };
            let at = ev.body.last_timestamp.map_or(self.sim.now(), |t| t.0);
            self.timeline.push(TimelineEntry {
                at,
                kind: EntryKind::Event,
                source: ev.body.source.component.to_string(),
                text: render_event(ev),
            });
        }
    }

    /// What the following commands printed since the last poll; the finished ones are dropped.
    fn poll_follows(&mut self) {
        let mut i = 0;
        while i < self.follows.len() {
            let p = self.follows[i].follow.poll(&mut self.sim);
            self.output(&p.warnings, &p.stdout, &p.stderr, p.done && p.code != 0);
            if p.done {
                self.follows.remove(i);
            } else {
                i += 1;
            }
        }
    }

    fn apply(&mut self, text: &str, what: &str) {
        self.push(EntryKind::Action, "scenario", format!("kubectl apply -f {what}"));
        match crate::kubectl::apply(&mut self.sim, text) {
            Ok(report) => {
                for w in &report.warnings {
                    self.push(EntryKind::Result, "kubectl", w.to_string());
                }
                for r in &report.results {
                    self.push(EntryKind::Result, "kubectl", r.to_string());
                }
            }
            Err(e) => self.push(EntryKind::Error, "kubectl", e.to_string()),
        }
    }

    /// Runs one kubectl command line: the command as an action entry, its output as result or error entries; a
    /// command that keeps printing is followed as time passes.
    fn kubectl(&mut self, line: &str) {
        let command = format!("kubectl {line}");
        self.push(EntryKind::Action, "scenario", command.clone());
        let input = crate::kubectl::Input { stdin: None, read_file: self.read_file };
        let out = crate::kubectl::run(&mut self.sim, line, &input);
        self.output(&out.warnings, &out.stdout, &out.stderr, out.code != 0);
        if out.code != 0 && out.stderr.trim().is_empty() {
            self.push(EntryKind::Error, "kubectl", format!("error: exit status {}", out.code));
        }
        if let Some(mut follow) = out.follow {
            if self.follows.len() >= MAX_FOLLOWS {
                follow.stop(&mut self.sim);
                self.push(
                    EntryKind::Note,
                    "scenario",
                    format!("{command}: not followed: at most {MAX_FOLLOWS} commands keep printing at once"),
                );
            } else {
                self.follows.push(Following { command, follow });
            }
        }
    }

    fn execute(&mut self, action: &ActionKind) {
        if let Some(line) = action.kubectl_line() {
            self.kubectl(&line);
            return;
        }
        match action {
            ActionKind::Apply(text) => self.apply(text, "-"),
            ActionKind::KillNode(name) => {
                self.push(EntryKind::Action, "scenario", format!("kill node {name}"));
                let r = self
                    .sim
                    .kill_node(name)
                    .map(|_| format!("node/{name}: kubelet stopped (no heartbeats, status updates or pod work)"));
                self.result(r);
            }
            ActionKind::ReviveNode(name) => {
                self.push(EntryKind::Action, "scenario", format!("revive node {name}"));
                let r = self.sim.revive_node(name).map(|_| format!("node/{name}: kubelet started"));
                self.result(r);
            }
            ActionKind::AddNode(config) => {
                let name = if config.name.is_empty() { "(generated name)".to_string() } else { config.name.clone() };
                self.push(
                    EntryKind::Action,
                    "scenario",
                    format!(
                        "add node {name} (cpu {}, memory {}, pods {})",
                        config.cpu.as_str(),
                        config.memory.as_str(),
                        config.pods
                    ),
                );
                let r = self.sim.add_node(config.clone()).map(|n| format!("node/{n} added"));
                self.result(r);
            }
            ActionKind::Fault(f) => {
                self.push(EntryKind::Action, "scenario", f.to_string());
                self.fault(f);
            }
            ActionKind::Mode(m) => {
                self.push(EntryKind::Action, "scenario", m.to_string());
                if let Some((c, mode)) = &m.trigger {
                    let taken = self.sim.set_trigger_mode(c.as_deref(), *mode);
                    let text = if taken.is_empty() {
                        format!("no controller has a {}-triggered mode", mode.as_str())
                    } else {
                        format!("{}-triggered: {}", mode.as_str(), taken.join(", "))
                    };
                    self.push(EntryKind::Result, "scenario", text);
                }
                if let Some(o) = m.observe {
                    self.sim.set_observe_mode(o);
                }
                if let Some(p) = m.relist_period {
                    self.sim.set_relist_period(p);
                }
                if let Some(p) = m.resync_period {
                    self.sim.set_resync_period(p);
                }
            }
            ActionKind::Kubectl(_) | ActionKind::Scale { .. } | ActionKind::Delete { .. } => {}
        }
    }

    fn fault(&mut self, f: &FaultAction) {
        // One informer, or every control-plane informer.
        let targets: Vec<crate::informer::InformerId> = match &f.informer {
            None => self.sim.control_plane_informers(),
            Some((p, kind)) => {
                let id = process_index(p).and_then(|h| self.sim.hosts.get(h)).and_then(|h| h.informers[kind.index()]);
                match id {
                    Some(id) => vec![id],
                    None => {
                        self.push(EntryKind::Error, "scenario", format!("{p} has no informer of {}", kind.plural()));
                        return;
                    }
                }
            }
        };
        if let Some(v) = f.drop_watch_events {
            if f.informer.is_none() {
                self.sim.set_watch_drop(v);
            } else {
                for &id in &targets {
                    self.sim.set_informer_watch_drop(id, v);
                }
            }
        }
        let mut faults = self.sim.store.faults.clone();
        if let Some(v) = f.conflicts {
            faults.conflict_fraction = v;
        }
        if let Some(v) = f.api_latency {
            faults.api_latency = v;
        }
        if let Some(v) = f.reject_pod_creates {
            faults.reject_pod_creates = v;
        }
        self.sim.set_faults(faults);
        if f.disconnect_watches {
            for &id in &targets {
                self.sim.disconnect_watch(id);
            }
        }
        if f.force_relist {
            for &id in &targets {
                self.sim.force_relist(id);
            }
        }
        if let Some(h) = f.crash.as_deref().and_then(process_index) {
            self.sim.crash_host(h);
        }
        if let Some(h) = f.restart.as_deref().and_then(process_index) {
            self.sim.restart_host(h);
        }
    }

    /// Runs the actions due now, collects events and looks at convergence.
    fn check(&mut self) {
        let scenario = self.scenario;
        while self.next < self.runnable && scenario.actions[self.next].at <= self.sim.now() {
            self.execute(&scenario.actions[self.next].kind);
            self.next += 1;
            self.last_check = None;
        }
        self.collect_events();
        let now = self.sim.now();
        if self.next >= self.runnable && now >= self.last_action_ms {
            // The store part is looked at again only when the store changed since the last check.
            let rv = self.sim.store.resource_version();
            let store_ok = match self.last_check {
                Some((seen, ok)) if seen == rv => ok,
                _ => store_settled(&self.sim),
            };
            self.last_check = Some((rv, store_ok));
            // A streak starts settled and idle; periodic housekeeping (the node lifecycle controller's 5 s pass,
            // relists) may keep a worker busy for a moment without unsettling anything, so only the store ends it.
            if !store_ok {
                self.streak = None;
            } else if self.streak.is_none() && self.sim.idle() {
                self.streak = Some(now);
            }
        }
    }

    /// Advances the run to simulated time `t` (at most its end), looking at the cluster at least every
    /// [`CHECK_INTERVAL`]: actions run when they come due, events are collected, following commands polled.
    pub fn run_to(&mut self, t: Millis) {
        let t = t.min(self.until);
        loop {
            if self.stopped_at.is_some() {
                return;
            }
            self.check();
            let now = self.sim.now();
            if now >= t {
                break;
            }
            if self.max_events > 0 && self.sim.events_processed() >= self.max_events {
                self.stopped_at = Some(now);
                let msg = format!(
                    "stopped: the run reached its work budget of {} simulation events at {} (of {}); `kubeloop run --max-events N` sets another (0: none), `kubeloop soak` runs large clusters for days",
                    self.max_events,
                    human_duration(now),
                    human_duration(self.until)
                );
                self.push(EntryKind::Error, "scenario", msg);
                return;
            }
            let mut to = (now + CHECK_INTERVAL).min(t);
            if let Some(a) = self.scenario.actions[..self.runnable].get(self.next) {
                to = to.min(a.at);
            }
            self.sim.run_until(to);
            self.collect_events();
            self.poll_follows();
        }
    }

    /// The simulated time now.
    pub fn now(&self) -> Millis {
        self.sim.now()
    }

    /// When the run stopped at its work budget, if it did.
    pub fn stopped_at_budget(&self) -> Option<Millis> {
        self.stopped_at
    }

    /// The end of the run ([`RunOptions::until`], else the scenario's `until:`, else [`DEFAULT_UNTIL`]).
    pub fn until(&self) -> Millis {
        self.until
    }

    /// The cluster.
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The cluster, to act on between steps (the runner's own follows and convergence checks see the effects).
    pub fn sim_mut(&mut self) -> &mut Sim {
        self.last_check = None;
        &mut self.sim
    }

    /// The timeline so far (its first and last entries: see [`MAX_TIMELINE_ENTRIES`]).
    pub fn timeline(&self) -> impl Iterator<Item = &TimelineEntry> {
        self.timeline.iter()
    }

    /// Ends the run where it is: commands still following are stopped, and the summary is taken.
    pub fn finish(mut self) -> Outcome {
        for mut f in std::mem::take(&mut self.follows) {
            f.follow.stop(&mut self.sim);
            self.push(
                EntryKind::Note,
                "scenario",
                format!("{}: still running at the end of the run, stopped", f.command),
            );
        }
        let not_run = self.scenario.actions.len() - self.next;
        if not_run > 0 {
            let now = self.sim.now();
            self.push(
                EntryKind::Note,
                "scenario",
                format!("{not_run} action(s) after the end of the run ({}) not run", human_duration(now)),
            );
        }
        let mut summary = summarize(&self.sim);
        summary.last_action_ms = self.last_action_ms;
        summary.converged_at_ms = self.streak;
        summary.actions_not_run = not_run;
        summary.stopped_at_budget_ms = self.stopped_at;
        Outcome { timeline: self.timeline.into_vec(), summary }
    }
}

impl Scenario {
    /// Builds the cluster, applies the manifests and stands at t=0, ready to [`Run::run_to`]. Only a cluster that
    /// cannot be built is an error; failed actions are timeline entries.
    pub fn start<'a>(&'a self, opts: RunOptions<'a>) -> Result<Run<'a>, ScenarioError> {
        let seed = opts.seed.or(self.seed).unwrap_or(DEFAULT_SEED);
        let until = opts.until.or(self.until).unwrap_or(DEFAULT_UNTIL);
        if until > MAX_UNTIL {
            return Err(ScenarioError::new(format!("a run lasts at most {}", human_duration(MAX_UNTIL))));
        }
        let max_events = opts.max_events.unwrap_or(crate::limits::MAX_RUN_EVENTS);
        let added = self.actions.iter().filter(|a| matches!(a.kind, ActionKind::AddNode(_))).count();
        // Pro rata: a run shorter than an hour renews its Leases too.
        let least =
            ((self.nodes.len() + added) as u128 * u128::from(until) * u128::from(crate::limits::EVENTS_PER_NODE_HOUR)
                / u128::from(HOUR))
            .min(u128::from(u64::MAX)) as u64;
        if max_events > 0 && least > max_events {
            return Err(ScenarioError::new(format!(
                "{} node(s) for {} is at least {least} simulation events (each node's Lease renewals alone), over the work budget of {max_events}: shorten `until:`, use fewer nodes, or set another budget with `kubeloop run --max-events N` (0: none); `kubeloop soak` runs large clusters for days",
                self.nodes.len() + added,
                human_duration(until)
            )));
        }
        let config = SimConfig { seed, node_template: self.node_template.clone(), ..SimConfig::default() };
        let runnable = self.actions.iter().filter(|a| a.at <= until).count();
        let mut r = Run {
            scenario: self,
            sim: Sim::new(config),
            read_file: opts.read_file.unwrap_or(&no_file),
            timeline: Timeline::default(),
            event_seq: 0,
            follows: Vec::new(),
            until,
            runnable,
            next: 0,
            last_action_ms: self.actions[..runnable].last().map_or(0, |a| a.at),
            streak: None,
            last_check: None,
            max_events,
            stopped_at: None,
        };

        let mut names: Vec<String> = Vec::new();
        for n in &self.nodes {
            let name = r.sim.add_node(n.clone()).map_err(ScenarioError::new)?;
            names.push(name);
        }
        if !names.is_empty() {
            let shown: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
            let more = if names.len() > shown.len() {
                format!(", ... ({} more)", names.len() - shown.len())
            } else {
                String::new()
            };
            r.push(
                EntryKind::Note,
                "scenario",
                format!("cluster: {} node(s): {}{more}", names.len(), shown.join(", ")),
            );
        }
        r.collect_events();
        if let Some(m) = &self.manifests {
            r.apply(m, "manifests");
        }
        Ok(r)
    }

    /// Runs the scenario from t=0 to its end.
    pub fn run(&self, opts: RunOptions) -> Result<Outcome, ScenarioError> {
        let mut r = self.start(opts)?;
        r.run_to(r.until());
        Ok(r.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "cluster:\n  nodes: 2\nmanifests: |\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n  spec:\n    replicas: 2\n    selector:\n      matchLabels: {app: web}\n    template:\n      metadata:\n        labels: {app: web}\n      spec:\n        containers:\n        - name: nginx\n          image: nginx:1.27\n";

    #[test]
    fn parses_and_runs_a_small_scenario() {
        let sc = Scenario::parse(SMALL).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(sc.nodes.len(), 2);
        let out = sc
            .run(RunOptions { seed: Some(3), until: Some(30 * SECOND), ..RunOptions::default() })
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.summary.pods.by_phase.get("Running"), Some(&2));
        assert!(out.summary.converged_at_ms.is_some());
    }

    #[test]
    fn unknown_fields_are_located() {
        let e = Scenario::parse("cluster:\n  nodes: 1\nactions:\n  - atx: 3s\n").err().map(|e| (e.line, e.message));
        let (line, msg) = e.unwrap_or_default();
        assert_eq!(line, Some(4));
        assert!(msg.contains("unknown field `atx`"), "{msg}");
    }

    #[test]
    fn kinds_accept_kubectl_names() {
        for (n, k) in
            [("po", Kind::Pod), ("Deployments", Kind::Deployment), ("rs", Kind::ReplicaSet), ("no", Kind::Node)]
        {
            assert_eq!(parse_kind(n), Ok(k));
        }
        assert!(parse_kind("service").is_err());
    }

    /// Prints `NAME N` at each poll until `until`, then ends with `code`; records whether it was stopped.
    struct Ticker {
        name: &'static str,
        until: Millis,
        code: i32,
        polls: u32,
        stopped: std::rc::Rc<std::cell::Cell<bool>>,
    }

    impl Follow for Ticker {
        fn poll(&mut self, sim: &mut Sim) -> crate::kubectl::FollowPoll {
            self.polls += 1;
            let mut p =
                crate::kubectl::FollowPoll { stdout: format!("{} {}\n", self.name, self.polls), ..Default::default() };
            if sim.now() >= self.until {
                p.done = true;
                p.code = self.code;
                if self.code != 0 {
                    p.stderr = format!("error: {} failed\n", self.name);
                }
            }
            p
        }
        fn stop(&mut self, _: &mut Sim) {
            self.stopped.set(true);
        }
    }

    #[test]
    fn following_commands_print_as_time_passes_until_done_or_the_end() {
        let sc = Scenario::parse("cluster:\n  nodes: 1\n").unwrap_or_else(|e| panic!("{e}"));
        let mut r =
            sc.start(RunOptions { until: Some(SECOND), ..RunOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
        let stopped: Vec<std::rc::Rc<std::cell::Cell<bool>>> = (0..3).map(|_| Default::default()).collect();
        for (i, (name, until, code)) in
            [("ok", 250, 0), ("bad", 150, 1), ("forever", Millis::MAX, 0)].into_iter().enumerate()
        {
            let follow = Ticker { name, until, code, polls: 0, stopped: stopped[i].clone() };
            r.follows.push(Following { command: format!("kubectl {name}"), follow: Box::new(follow) });
        }
        r.run_to(r.until());
        let out = r.finish();
        let lines: Vec<(Millis, EntryKind, &str)> = out
            .timeline
            .iter()
            .filter(|e| e.source == "kubectl" || e.kind == EntryKind::Note && e.text.starts_with("kubectl"))
            .map(|e| (e.at, e.kind, e.text.as_str()))
            .collect();
        use EntryKind::{Error, Note, Result as R};
        assert_eq!(
            lines[..8],
            [
                (100, R, "ok 1"),
                (100, R, "bad 1"),
                (100, R, "forever 1"),
                (200, R, "ok 2"),
                (200, R, "bad 2"),
                (200, Error, "error: bad failed"),
                (200, R, "forever 2"),
                (300, R, "ok 3"),
            ]
        );
        assert_eq!(lines.iter().filter(|l| l.2.starts_with("ok ") || l.2.starts_with("bad ")).count(), 5);
        assert_eq!(lines.iter().filter(|l| l.2.starts_with("forever ")).count(), 10);
        assert_eq!(
            lines.last(),
            Some(&(SECOND, Note, "kubectl forever: still running at the end of the run, stopped"))
        );
        assert_eq!(stopped.iter().map(|s| s.get()).collect::<Vec<_>>(), [false, false, true]);
    }

    fn note(at: Millis, text: &str) -> TimelineEntry {
        TimelineEntry { at, kind: EntryKind::Note, source: "test".into(), text: text.into() }
    }

    #[test]
    fn the_timeline_keeps_its_first_and_last_entries_and_counts_the_rest() {
        let mut t = Timeline::new(3, 2);
        for i in 0..10 {
            t.push(note(i, &format!("e{i}")));
        }
        assert_eq!(t.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(), ["e0", "e1", "e2", "e8", "e9"]);
        let v = t.into_vec();
        let texts: Vec<&str> = v.iter().map(|e| e.text.as_str()).collect();
        assert_eq!(texts[..3], ["e0", "e1", "e2"]);
        assert_eq!(texts[4..], ["e8", "e9"]);
        assert_eq!(v[3].at, 3);
        assert_eq!(v[3].kind, EntryKind::Note);
        assert_eq!(
            v[3].text,
            "(5 timeline entries from 0.003s to 0.007s not kept: kubeloop keeps the first 3 and the last 2 of a run)"
        );
        let mut small = Timeline::new(3, 2);
        small.push(note(0, "only"));
        assert_eq!(small.into_vec().len(), 1);
        assert_eq!(crate::limits::MAX_TIMELINE_ENTRIES, Timeline::default().head_cap + Timeline::default().tail_cap);
    }

    #[test]
    fn a_command_following_for_days_keeps_the_timeline_bounded() {
        let sc = Scenario::parse("cluster:\n  nodes: 1\n").unwrap_or_else(|e| panic!("{e}"));
        let mut r =
            sc.start(RunOptions { until: Some(HOUR), ..RunOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
        r.timeline = Timeline::new(100, 50);
        let stopped = std::rc::Rc::new(std::cell::Cell::new(false));
        let follow = Ticker { name: "forever", until: Millis::MAX, code: 0, polls: 0, stopped: stopped.clone() };
        r.follows.push(Following { command: "kubectl forever".into(), follow: Box::new(follow) });
        r.run_to(r.until());
        let out = r.finish();
        assert_eq!(out.timeline.len(), 151, "{}", render_timeline(&out.timeline[95..]));
        let dropped = &out.timeline[100];
        assert!(
            dropped.text.ends_with("not kept: kubeloop keeps the first 100 and the last 50 of a run)"),
            "{dropped}"
        );
        assert_eq!(
            out.timeline.last().map(|e| e.text.as_str()),
            Some("kubectl forever: still running at the end of the run, stopped")
        );
        assert_eq!(out.timeline[149].text, "forever 36000");
        assert!(stopped.get());
    }

    #[test]
    fn at_most_max_follows_commands_keep_printing() {
        let mut text = String::from("cluster:\n  nodes: 1\nactions:\n");
        for _ in 0..crate::limits::MAX_FOLLOWS + 2 {
            text.push_str("  - {at: 1s, kubectl: get pods -w}\n");
        }
        let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
        let mut r =
            sc.start(RunOptions { until: Some(2 * SECOND), ..RunOptions::default() }).unwrap_or_else(|e| panic!("{e}"));
        r.run_to(r.until());
        assert_eq!(r.follows.len(), crate::limits::MAX_FOLLOWS);
        let out = r.finish();
        let refused: Vec<&TimelineEntry> = out.timeline.iter().filter(|e| e.text.contains("not followed")).collect();
        assert_eq!(refused.len(), 2, "{}", render_timeline(&out.timeline));
        assert!(
            refused[0].text.contains(&format!("at most {} commands", crate::limits::MAX_FOLLOWS)),
            "{}",
            refused[0]
        );
    }

    #[test]
    fn scale_and_delete_are_kubectl_command_lines() {
        let text = "cluster:\n  nodes: 1\nactions:\n  - {at: 1s, scale: {deployment: web, namespace: team-a, replicas: 4}}\n  - {at: 2s, delete: {kind: po, selector: \"tier in (a, b)\"}}\n  - {at: 3s, delete: {kind: rs, name: web-1, namespace: default}}\n  - {at: 4s, delete: {kind: no, name: node-1}}\n  - {at: 5s, kubectl: \"kubectl  get pods\"}\n  - {at: 6s, kubectl: \"k -n a get po\"}\n";
        let sc = Scenario::parse(text).unwrap_or_else(|e| panic!("{e}"));
        let lines: Vec<Option<String>> = sc.actions.iter().map(|a| a.kind.kubectl_line()).collect();
        assert_eq!(
            lines,
            [
                Some("scale deployment web -n team-a --replicas=4".to_string()),
                Some("delete pod -l 'tier in (a, b)'".to_string()),
                Some("delete replicaset web-1".to_string()),
                Some("delete node node-1".to_string()),
                Some("get pods".to_string()),
                Some("-n a get po".to_string()),
            ]
        );
        for l in lines.iter().flatten() {
            assert!(crate::kubectl::args::split_words(l).is_ok(), "{l}");
        }
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(crate::kubectl::args::split_words(&shell_word("it's")), Ok(vec!["it's".to_string()]));
    }

    #[test]
    fn durations_print_for_people() {
        assert_eq!(human_duration(72_345), "1m12.345s");
        assert_eq!(human_duration(12_500), "12.5s");
        assert_eq!(human_duration(3 * MINUTE), "3m");
        assert_eq!(human_duration(90 * MINUTE), "1h30m");
        assert_eq!(human_duration(HOUR + 5 * SECOND), "1h0m5s");
        assert_eq!(human_duration(MAX_UNTIL), "720h");
        assert_eq!(format_time(12_345), "  12.345s");
    }
}
