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
use crate::time::{format_time, human_duration, parse_duration, Millis, HOUR, MINUTE, SECOND};
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

fn process_index(name: &str) -> Option<crate::sim::HostId> {
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
pub struct RunOutput {
    pub timeline: Vec<TimelineEntry>,
    pub summary: Summary,
}

mod parse;
mod run;
mod summary;
#[cfg(test)]
mod tests;
mod timeline;

pub use parse::*;
pub use run::*;
pub use summary::*;
pub use timeline::*;
