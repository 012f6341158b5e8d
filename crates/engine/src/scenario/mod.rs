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

#[cfg(test)]
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
#[cfg(test)]
use serde::Deserialize;
use serde::Serialize;

use crate::api::selector::parse_selector;
use crate::api::{s, Kind, LabelSelector, ObjKey, Object, PodPhase, Quantity, Taint};
use crate::behaviour::BehaviourPatch;
use crate::controller::TriggerMode;
use crate::intervention::{
    process_id, quoted, AppAction, AppTarget, DeleteTarget, FaultAction, Intervene, Intervention, ModeAction, NodeRef,
    Said, PROCESSES,
};
use crate::kubectl::Follow;
use crate::kubelet::NodeConfig;
use crate::limits::{
    bound_message, echo, MAX_API_LATENCY, MAX_DURATION, MAX_FOLLOWS, MAX_PERIOD, MAX_TIMELINE_ENTRIES, MIN_PERIOD,
};
use crate::manifest::ManifestError;
use crate::sim::{HostId, ObserveMode, Sim, SimConfig, TimingProfile, MAX_NODES};
use crate::store::ApiCounters;
use crate::time::{format_time, human_duration, parse_duration, Millis, HOUR, MINUTE, SECOND};
use crate::yamlcheck::{self, Subject};
use crate::yamlpos::LineIndex;

/// Seed of a scenario that names none.
pub const DEFAULT_SEED: u64 = 1;
/// Run length of a scenario that names none.
pub const DEFAULT_UNTIL: Millis = 5 * MINUTE;
/// Nodes of a scenario that gives no `cluster.nodes` (the default cluster, as `kubeloop kubectl` without a
/// scenario starts it): this many of the node template's shape.
pub const DEFAULT_NODES: u64 = 3;
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

#[cfg(test)]
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
    /// `cluster.addons`: kube-system's add-ons ([`crate::addons`]) are created at t=0, before the manifests (the
    /// default); `false` starts without them.
    pub addons: bool,
    /// Applied at t=0.
    pub manifests: Option<String>,
    /// Sorted by time (stably: actions at the same time run in file order).
    pub actions: Vec<Action>,
    /// `timing:`: the node failure timings (upstream's unless the scenario asks for kubeloop's fast demo);
    /// [`RunOptions::timing`] overrides it.
    pub timing: TimingProfile,
    /// `lesson:`: how the page presents the scenario as a lesson.
    pub lesson: Option<std::rc::Rc<LessonInfo>>,
}

/// One timed action: an intervention at a simulated time.
#[derive(Clone, Debug)]
pub struct Action {
    pub at: Millis,
    pub what: Intervention,
    /// `label:`: what the action is for, in words (a lesson's step); the timeline shows it before the action.
    pub label: Option<String>,
    /// Line of the action in the scenario text.
    pub line: usize,
    /// `for:` (kubectl actions): a command that keeps printing is interrupted (Ctrl+C) this long after it started,
    /// if it is still running then; without it, it is followed until it ends or the run does.
    pub stop_after: Option<Millis>,
    /// `ask:`: the prediction the page asks for before the step.
    pub ask: Option<std::rc::Rc<Ask>>,
    /// `expect:`: what the control loop does after the step, checked as the run goes.
    pub expect: std::rc::Rc<[Expect]>,
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
    /// The node failure timings, over the scenario's `timing:`.
    pub timing: Option<TimingProfile>,
}

impl fmt::Debug for RunOptions<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunOptions")
            .field("seed", &self.seed)
            .field("until", &self.until)
            .field("read_file", &self.read_file.is_some())
            .field("max_events", &self.max_events)
            .field("timing", &self.timing)
            .finish()
    }
}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub timeline: Vec<TimelineEntry>,
    pub summary: Summary,
}

mod actions;
mod diff;
pub mod expect;
mod parse;
mod player;
mod record;
mod rewind;
mod run;
mod script;
mod summary;
#[cfg(test)]
mod tests;
mod timeline;
mod values;
mod write;

use actions::*;
pub use diff::{
    line_diff, Divergence, ForkCompare, ObjectChange, ObjectDiff, RunDiff, MAX_DIFF_ALIGN, MAX_DIFF_LINES,
    MAX_DIFF_OBJECTS,
};
pub use expect::{Ask, Checks, Expect, Figure, LessonInfo};
use parse::*;
pub use player::{Due, Player};
pub use record::{Record, MAX_RECORDED};
pub use rewind::{Rewind, RewindPolicy, Scrubbed, CHECKPOINT_OBJECTS, FIRST_SPACING, MAX_CHECKPOINTS, MIN_CHECKPOINTS};
pub use run::*;
pub use script::Script;
pub use summary::*;
pub use timeline::*;
pub use values::*;
pub use write::action_yaml;
