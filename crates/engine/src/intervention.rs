//! Interventions: everything a person or a script can do to a running cluster, in one vocabulary. A scenario's
//! actions are interventions with a time (their serialised form is the scenario's `actions:` entry); the page's
//! buttons make them, and the lessons are made of them. [`Sim::intervene`] performs one and says, as kubectl or
//! the runner prints it, what was done and what came of it.
//!
//! Adding an intervention is a change here (the variant, its text and how it is performed) and in the scenario
//! parser (its serialised form); everything that runs interventions (the runner, the page, the lessons) takes it
//! as it is.

use std::fmt;
use std::rc::Rc;

use crate::api::{Kind, LabelSelector, ObjKey, Object, PodPhase};
use crate::behaviour::{BehaviourPatch, Sigterm};
use crate::controller::TriggerMode;
use crate::informer::InformerId;
use crate::kubectl::{self, Follow};
use crate::kubelet::NodeConfig;
use crate::sim::{HostId, ObserveMode, Sim, CONTROLLER_MANAGER, CONTROLLER_MANAGER_2, SCHEDULER};
use crate::time::{human_duration, Millis};

/// Something a person or a script does to the cluster.
#[derive(Clone, Debug, PartialEq)]
pub enum Intervention {
    /// `kubectl apply -f -` of this text.
    Apply(String),
    /// A kubectl command line, without the leading `kubectl`.
    Kubectl(String),
    /// `kubectl scale` of a Deployment or ReplicaSet.
    Scale { kind: Kind, key: ObjKey, replicas: u32 },
    /// `kubectl delete` by name, by label selector, or of one running object a selector matches. `wait`: as
    /// kubectl's `--wait` (true by default: the command follows the deletion until the object is gone).
    Delete { kind: Kind, namespace: Option<String>, target: DeleteTarget, wait: bool },
    /// `kubectl cordon` (`on`) or `kubectl uncordon`.
    Cordon { node: String, on: bool },
    /// Stops a node's kubelet (no more heartbeats, status updates or pod work).
    KillNode(NodeRef),
    /// Starts a node's kubelet again.
    ReviveNode(NodeRef),
    /// Adds a node with a running kubelet (a name is generated when empty).
    AddNode(NodeConfig),
    /// Injects (or clears) faults, crashes or restarts a control-plane process.
    Fault(FaultAction),
    /// How the control loops observe and trigger.
    Mode(ModeAction),
    /// What simulated applications do (kubeloop's own input: no real process runs).
    App(AppAction),
}

/// `app:`: the behaviour of an image's containers or of one pod's, and crashes on demand.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppAction {
    pub target: AppTarget,
    /// One container of the pod (every one when absent).
    pub container: Option<String>,
    pub patch: BehaviourPatch,
    /// Crash the running containers now.
    pub crash: bool,
}

/// Whose containers an `app:` action is about.
#[derive(Clone, Debug, PartialEq)]
pub enum AppTarget {
    /// Every container running this image (those with a setting of their own excepted).
    Image(String),
    /// A pod by name.
    Pod { namespace: String, name: String },
    /// One running pod the selector matches, chosen when the action runs (the selector, and its text).
    PodOf { namespace: String, selector: LabelSelector, text: String },
}

impl Default for AppTarget {
    fn default() -> Self {
        AppTarget::Image(String::new())
    }
}

/// What a delete is about.
#[derive(Clone, Debug, PartialEq)]
pub enum DeleteTarget {
    Name(String),
    /// Every object the selector matches (the selector, and its text as written).
    Selector(LabelSelector, String),
    /// One object the selector matches, chosen when the delete runs: the first in the store's order that is not
    /// being deleted (for pods: and Running).
    OneOf(LabelSelector, String),
}

/// Which node a node intervention is about.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeRef {
    Name(String),
    /// The node of the first running pod (not being deleted, in the store's order) the selector matches, chosen
    /// when the intervention runs (the selector, and its text as written).
    OfPod(LabelSelector, String),
    /// Every node it applies to when it runs: a kill stops every running kubelet (the node lifecycle controller's
    /// full disruption), a revive starts every stopped one.
    Every,
}

/// `fault:`: any of these at once. Fractions are 0..=1.
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
    /// Crash a control-plane process.
    pub crash: Option<HostId>,
    /// Start a crashed process again.
    pub restart: Option<HostId>,
    /// Scope `drop_watch_events`, `disconnect_watches` and `force_relist` to one informer: a process's informer
    /// of a kind; every control-plane informer when absent.
    pub informer: Option<(HostId, Kind)>,
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

/// The control-plane processes by the names scenarios and the page give them.
pub const PROCESSES: [(&str, HostId); 3] =
    [("cp-1", CONTROLLER_MANAGER), ("cp-2", CONTROLLER_MANAGER_2), ("kube-scheduler", SCHEDULER)];

/// The process a name means (`cp-1`, `kube-controller-manager/cp-1`, `kube-scheduler`...).
pub fn process_id(name: &str) -> Option<HostId> {
    let name = match name {
        "kube-controller-manager/cp-1" => "cp-1",
        "kube-controller-manager/cp-2" => "cp-2",
        "kube-scheduler/cp-1" => "kube-scheduler",
        n => n,
    };
    PROCESSES.iter().find(|(n, _)| *n == name).map(|(_, h)| *h)
}

/// The name of a process as [`process_id`] reads it.
pub fn process_name(h: HostId) -> String {
    match PROCESSES.iter().find(|(_, id)| *id == h) {
        Some((n, _)) => n.to_string(),
        None => format!("process {}", h.index()),
    }
}

/// Which way a line of what an intervention printed went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Said {
    /// Output of a command that did what it was asked (warnings and `No resources found` included).
    Result,
    /// What a command printed when it failed.
    Error,
}

/// What performing an intervention did.
pub struct Performed {
    /// What was done, as the runner's timeline shows it (`kubectl scale deployment web --replicas=6`,
    /// `kill node node-2`); references are resolved (`kubectl delete pod web-5d8f7-x2x9q --wait=false`).
    pub action: String,
    /// What it printed, line by line, and who printed it (`kubectl`, or `scenario` for the runner's own).
    pub lines: Vec<(Said, &'static str, String)>,
    /// An apply's every outcome (each object applied, each failure with its line).
    pub applied: Option<Box<kubectl::ApplyReport>>,
    /// A kubectl command that keeps printing (`rollout status`, `get -w`, a waiting `delete`).
    pub follow: Option<Box<dyn Follow>>,
}

impl fmt::Debug for Performed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Performed")
            .field("action", &self.action)
            .field("lines", &self.lines)
            .field("applied", &self.applied)
            .field("follow", &self.follow.is_some())
            .finish()
    }
}

impl Performed {
    fn new(action: impl Into<String>) -> Self {
        Performed { action: action.into(), lines: Vec::new(), applied: None, follow: None }
    }

    fn say(&mut self, said: Said, source: &'static str, text: impl Into<String>) {
        self.lines.push((said, source, text.into()));
    }

    fn result<E: fmt::Display>(&mut self, r: Result<String, E>) {
        match r {
            Ok(t) => self.say(Said::Result, "kubectl", t),
            Err(e) => self.say(Said::Error, "kubectl", e.to_string()),
        }
    }

    /// Whether it did what it was asked (nothing was said as an error).
    pub fn ok(&self) -> bool {
        !self.lines.iter().any(|(s, _, _)| *s == Said::Error)
    }

    /// The first error line, if any.
    pub fn error(&self) -> Option<&str> {
        self.lines.iter().find(|(s, _, _)| *s == Said::Error).map(|(_, _, t)| t.as_str())
    }

    /// What it printed, one line after the other.
    pub fn text(&self) -> String {
        self.lines.iter().map(|(_, _, t)| format!("{t}\n")).collect()
    }

    /// One line: the action, and the first line it printed (with how many more), as a lesson's step shows it.
    pub fn one_line(&self) -> String {
        let mut lines = self.lines.iter().map(|(_, _, t)| t.as_str()).filter(|l| !l.trim().is_empty());
        match lines.next() {
            None => self.action.clone(),
            Some(first) => match lines.count() {
                0 => format!("{} → {first}", self.action),
                more => format!("{} → {first} (+{more} more)", self.action),
            },
        }
    }
}

/// Quotes a word for a command line (parsed again by kubectl's word splitter) when it needs it.
pub fn shell_word(w: &str) -> String {
    let plain = !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@+%".contains(c));
    if plain {
        w.to_string()
    } else {
        quoted(w)
    }
}

/// A word in single quotes, for kubectl's word splitter.
pub fn quoted(w: &str) -> String {
    format!("'{}'", w.replace('\'', r"'\''"))
}

fn namespace_flag(kind: Kind, namespace: Option<&str>) -> String {
    match namespace {
        Some(n) if kind.namespaced() && n != "default" => format!(" -n {}", shell_word(n)),
        _ => String::new(),
    }
}

impl Intervention {
    /// The kubectl command line an intervention runs (without the leading `kubectl`), for those that are kubectl
    /// commands and name their objects (`kubectl`, `scale`, `cordon`, and `delete` by name or selector).
    pub fn kubectl_line(&self) -> Option<String> {
        match self {
            Intervention::Kubectl(line) => Some(line.clone()),
            Intervention::Scale { kind, key, replicas } => {
                let ns = namespace_flag(*kind, Some(&key.namespace));
                let res = kind.name().to_ascii_lowercase();
                Some(format!("scale {res} {}{ns} --replicas={replicas}", shell_word(&key.name)))
            }
            Intervention::Delete { kind, namespace, target, wait } => {
                let ns = namespace_flag(*kind, namespace.as_deref());
                let res = kind.name().to_ascii_lowercase();
                let wait = if *wait { "" } else { " --wait=false" };
                match target {
                    DeleteTarget::Name(name) => Some(format!("delete {res} {}{ns}{wait}", shell_word(name))),
                    DeleteTarget::Selector(_, text) => Some(format!("delete {res} -l {}{ns}{wait}", quoted(text))),
                    DeleteTarget::OneOf(..) => None,
                }
            }
            Intervention::Cordon { node, on } => {
                Some(format!("{} {}", if *on { "cordon" } else { "uncordon" }, shell_word(node)))
            }
            _ => None,
        }
    }
}

impl fmt::Display for Intervention {
    /// The intervention as written, before it runs (a reference is shown as its selector).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(line) = self.kubectl_line() {
            return write!(f, "kubectl {line}");
        }
        match self {
            Intervention::Apply(_) => f.write_str("kubectl apply -f -"),
            Intervention::Delete { kind, target: DeleteTarget::OneOf(_, sel), .. } => {
                write!(f, "delete one {} of {sel}", kind.name().to_ascii_lowercase())
            }
            Intervention::KillNode(n) => write!(f, "kill node {n}"),
            Intervention::ReviveNode(n) => write!(f, "revive node {n}"),
            Intervention::AddNode(config) => {
                let name = if config.name.is_empty() { "(generated name)" } else { &config.name };
                write!(
                    f,
                    "add node {name} (cpu {}, memory {}, pods {})",
                    config.cpu.as_str(),
                    config.memory.as_str(),
                    config.pods
                )
            }
            Intervention::Fault(a) => a.fmt(f),
            Intervention::Mode(a) => a.fmt(f),
            Intervention::App(a) => a.fmt(f),
            Intervention::Kubectl(_) | Intervention::Scale { .. } | Intervention::Delete { .. } => Ok(()),
            Intervention::Cordon { .. } => Ok(()),
        }
    }
}

impl fmt::Display for NodeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeRef::Name(n) => f.write_str(n),
            NodeRef::OfPod(_, sel) => write!(f, "of a running pod of {sel}"),
            NodeRef::Every => f.write_str("(every one)"),
        }
    }
}

/// A fraction as a percentage (`30%`, `12.5%`).
pub fn percent(v: f64) -> String {
    format!("{}%", (v * 1000.0).round() / 10.0)
}

impl fmt::Display for FaultAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(v) = self.drop_watch_events {
            parts.push(format!("drop {} of watch events", percent(v)));
        }
        if let Some(v) = self.conflicts {
            parts.push(format!("409 Conflict on {} of updates", percent(v)));
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
        if let Some(h) = self.crash {
            parts.push(format!("crash {}", process_name(h)));
        }
        if let Some(h) = self.restart {
            parts.push(format!("restart {}", process_name(h)));
        }
        if let Some((p, k)) = &self.informer {
            parts.push(format!("(informer {}/{})", process_name(*p), k.plural()));
        }
        write!(f, "fault: {}", parts.join(", "))
    }
}

impl fmt::Display for AppTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ns = |n: &str| if n == "default" { String::new() } else { format!(" -n {n}") };
        match self {
            AppTarget::Image(i) => write!(f, "image {i}"),
            AppTarget::Pod { namespace, name } => write!(f, "pod {name}{}", ns(namespace)),
            AppTarget::PodOf { namespace, text, .. } => write!(f, "a running pod of {text}{}", ns(namespace)),
        }
    }
}

impl fmt::Display for AppAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "app: {}", self.target)?;
        if let Some(c) = &self.container {
            write!(f, " (container {c})")?;
        }
        let p = &self.patch;
        let mut parts = Vec::new();
        let fails = |v: bool| if v { "fails" } else { "passes" };
        if let Some(v) = p.readiness_fails {
            parts.push(format!("readiness {}", fails(v)));
        }
        if let Some(v) = p.liveness_fails {
            parts.push(format!("liveness {}", fails(v)));
        }
        match p.starts_after {
            Some(Some(d)) => parts.push(format!("starts after {}", human_duration(d))),
            Some(None) => parts.push("starts at once".into()),
            None => {}
        }
        match p.crash_after {
            Some(Some(d)) => parts.push(format!("crashes {} after each start", human_duration(d))),
            Some(None) => parts.push("never crashes".into()),
            None => {}
        }
        if let Some(Some(c)) = p.exit_code {
            parts.push(format!("exit code {c}"));
        }
        if let Some(v) = p.unpullable {
            parts.push(if v { "image cannot be pulled".into() } else { "image can be pulled".into() });
        }
        match p.on_sigterm {
            Some(Some(Sigterm::Ignore)) => parts.push("ignores SIGTERM".into()),
            Some(Some(Sigterm::ExitAfter(d))) => parts.push(format!("exits {} after SIGTERM", human_duration(d))),
            Some(None) => parts.push("exits on SIGTERM".into()),
            None => {}
        }
        if let Some(Some(d)) = p.pre_stop_takes {
            parts.push(format!("preStop hook takes {}", human_duration(d)));
        }
        if self.crash {
            parts.push("crash now".into());
        }
        write!(f, ": {}", parts.join(", "))
    }
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
        let period = |p: Millis| if p == 0 { "never".into() } else { human_duration(p) };
        if let Some(p) = self.relist_period {
            parts.push(format!("relist every {}", period(p)));
        }
        if let Some(p) = self.resync_period {
            parts.push(format!("resync every {}", period(p)));
        }
        write!(f, "mode: {}", parts.join(", "))
    }
}

/// Interventions on a [`Sim`] (kubeloop-core's): `sim.intervene(...)` with this trait in scope.
pub trait Intervene {
    /// Performs an intervention as the user (kubectl's client): the one way in for everything a person or a
    /// script does. `input` is what kubectl's `-f` reads. Nothing here panics on what it is given: a refused or
    /// impossible intervention is said as an error, as kubectl would print it, and changes nothing.
    fn intervene(&mut self, what: &Intervention, input: &kubectl::Input) -> Performed;
}

impl Intervene for Sim {
    fn intervene(&mut self, what: &Intervention, input: &kubectl::Input) -> Performed {
        // Its writes are the person's ([`Sim::why`] ends there), and so are those of a command it leaves running.
        let seq = self.begin_intervention(what.to_string());
        let mut done = perform(self, what, input);
        done.follow = done.follow.map(|f| caused(seq, f));
        self.end_intervention();
        done
    }
}

/// Runs a kubectl line a person typed (the page's console, `kubeloop kubectl`) as their intervention: its writes,
/// and those of the command it leaves running, are theirs ([`Sim::why`]).
pub fn kubectl_typed(sim: &mut Sim, line: &str, input: &kubectl::Input) -> kubectl::Output {
    let seq = sim.begin_intervention(format!("kubectl {}", line.trim()));
    let mut out = kubectl::run(sim, line, input);
    out.follow = out.follow.map(|f| caused(seq, f));
    sim.end_intervention();
    out
}

/// A command left running by intervention `seq`: what its polls write is that intervention's too.
struct Caused {
    seq: u64,
    inner: Box<dyn kubectl::Follow>,
}

fn caused(seq: u64, inner: Box<dyn kubectl::Follow>) -> Box<dyn kubectl::Follow> {
    Box::new(Caused { seq, inner })
}

impl kubectl::Follow for Caused {
    fn poll(&mut self, sim: &mut Sim) -> kubectl::FollowPoll {
        sim.resume_intervention(self.seq);
        let p = self.inner.poll(sim);
        sim.end_intervention();
        p
    }

    fn stop(&mut self, sim: &mut Sim) {
        sim.resume_intervention(self.seq);
        self.inner.stop(sim);
        sim.end_intervention();
    }

    fn writes(&self) -> bool {
        self.inner.writes()
    }

    fn pending(&mut self) -> kubectl::FollowPoll {
        self.inner.pending()
    }
}

/// Performs an intervention ([`Intervene::intervene`]).
fn perform(sim: &mut Sim, what: &Intervention, input: &kubectl::Input) -> Performed {
    if let Some(line) = what.kubectl_line() {
        return intervene_kubectl(sim, &line, input);
    }
    match what {
        Intervention::Apply(text) => intervene_apply(sim, text),
        Intervention::Delete { kind, namespace, target: DeleteTarget::OneOf(sel, text), wait } => {
            let ns = namespace.as_deref().unwrap_or("default");
            match one_running(sim, *kind, ns, sel).map(|o| o.meta().name.to_string()) {
                Some(name) => {
                    let target = DeleteTarget::Name(name);
                    let resolved =
                        Intervention::Delete { kind: *kind, namespace: namespace.clone(), target, wait: *wait };
                    perform(sim, &resolved, input)
                }
                None => {
                    let mut p = Performed::new(what.to_string());
                    let what = kind.name().to_ascii_lowercase();
                    p.say(Said::Error, "kubectl", format!("no running {what} matches {text}: nothing deleted"));
                    p
                }
            }
        }
        Intervention::KillNode(node) => intervene_node(sim, node, true),
        Intervention::ReviveNode(node) => intervene_node(sim, node, false),
        Intervention::AddNode(config) => {
            let mut p = Performed::new(what.to_string());
            let r = sim.add_node(config.clone()).map(|n| format!("node/{n} added"));
            p.result(r);
            p
        }
        Intervention::Fault(f) => intervene_fault(sim, f),
        Intervention::Mode(m) => intervene_mode(sim, m),
        Intervention::App(a) => intervene_app(sim, a),
        Intervention::Kubectl(_)
        | Intervention::Scale { .. }
        | Intervention::Delete { .. }
        | Intervention::Cordon { .. } => Performed::new(what.to_string()),
    }
}

fn intervene_kubectl(sim: &mut Sim, line: &str, input: &kubectl::Input) -> Performed {
    let mut p = Performed::new(format!("kubectl {line}"));
    let out = kubectl::run(sim, line, input);
    let failed = out.code != 0;
    for l in out.warnings.lines().chain(out.stdout.lines()) {
        p.say(Said::Result, "kubectl", l);
    }
    // stderr is an error when the command failed, else warnings and notes (`No resources found`).
    let said = if failed { Said::Error } else { Said::Result };
    for l in out.stderr.lines() {
        p.say(said, "kubectl", l);
    }
    if failed && out.stderr.trim().is_empty() {
        p.say(Said::Error, "kubectl", format!("error: exit status {}", out.code));
    }
    p.follow = out.follow;
    p
}

fn intervene_apply(sim: &mut Sim, text: &str) -> Performed {
    performed_apply(kubectl::apply_each(sim, text))
}

/// What an apply said, as `Sim::intervene` of `Intervention::Apply` says it: kubectl's lines (its warnings, a line
/// for each object applied, then its errors), and the report itself.
pub fn performed_apply(report: kubectl::ApplyReport) -> Performed {
    let mut p = Performed::new("kubectl apply -f -");
    for w in &report.warnings {
        p.say(Said::Result, "kubectl", w.to_string());
    }
    for r in &report.results {
        p.say(Said::Result, "kubectl", r.to_string());
    }
    for e in &report.errors {
        p.say(Said::Error, "kubectl", e.to_string());
    }
    p.applied = Some(Box::new(report));
    p
}

/// The first object of `kind` in `namespace` the selector matches that is not being deleted (a pod: and
/// Running), in the store's order.
fn one_running<'s>(sim: &'s Sim, kind: Kind, namespace: &str, sel: &LabelSelector) -> Option<&'s Rc<Object>> {
    sim.store()
        .objects(kind)
        .filter(|o| !kind.namespaced() || &*o.meta().namespace == namespace)
        .filter(|o| !o.meta().is_terminating() && sel.matches(&o.meta().labels))
        .find(|o| o.as_pod().is_none_or(|p| p.status.phase == PodPhase::Running))
}

fn intervene_node(sim: &mut Sim, node: &NodeRef, kill: bool) -> Performed {
    let verb = if kill { "kill" } else { "revive" };
    let names: Vec<String> = match node {
        NodeRef::Name(n) => vec![n.clone()],
        NodeRef::OfPod(sel, _) => {
            let pod = one_running(sim, Kind::Pod, "default", sel).and_then(|o| o.as_pod());
            let name = pod.map(|p| p.spec.node_name.to_string());
            let Some(name) = name.filter(|n| !n.is_empty()) else {
                let mut p = Performed::new(format!("{verb} node {node}"));
                p.say(Said::Error, "kubectl", format!("no running pod matches: no node to {verb}"));
                return p;
            };
            vec![name]
        }
        NodeRef::Every => sim.kubelets().iter().filter(|k| k.alive == kill).map(|k| k.name.to_string()).collect(),
    };
    let mut p = Performed::new(match node {
        NodeRef::Every => format!("{verb} every node"),
        _ => format!("{verb} node {}", names.join(", ")),
    });
    if names.is_empty() {
        let state = if kill { "running" } else { "stopped" };
        p.say(Said::Result, "kubectl", format!("no node's kubelet is {state}"));
    }
    for name in names {
        let r = if kill {
            sim.kill_node(&name)
                .map(|_| format!("node/{name}: kubelet stopped (no heartbeats, status updates or pod work)"))
        } else {
            sim.revive_node(&name).map(|_| format!("node/{name}: kubelet started"))
        };
        p.result(r);
    }
    p
}

fn intervene_app(sim: &mut Sim, a: &AppAction) -> Performed {
    let mut p = Performed::new(a.to_string());
    let key = match &a.target {
        AppTarget::Image(image) => {
            if !a.patch.is_empty() {
                let r = sim.set_image_behaviour(image, &a.patch).map(|_| format!("image {image}: behaviour set"));
                p.result(r);
            }
            if a.crash {
                p.say(Said::Error, "scenario", "crash: name a pod (pod or podOf), not an image");
            }
            return p;
        }
        AppTarget::Pod { namespace, name } => ObjKey::new(namespace, name),
        AppTarget::PodOf { namespace, selector, text } => {
            match one_running(sim, Kind::Pod, namespace, selector).map(|o| o.key()) {
                Some(k) => k,
                None => {
                    p.say(Said::Error, "scenario", format!("no running pod matches {text}"));
                    return p;
                }
            }
        }
    };
    p.action = format!(
        "{}",
        AppAction {
            target: AppTarget::Pod { namespace: key.namespace.to_string(), name: key.name.to_string() },
            ..a.clone()
        }
    );
    let container = a.container.as_deref();
    if !a.patch.is_empty() {
        let r = sim.set_pod_behaviour(&key, container, &a.patch).map(|_| format!("pod/{}: behaviour set", key.name));
        p.result(r);
    }
    if a.crash {
        let r = sim.crash_pod(&key, container).map(|_| format!("pod/{}: crashed", key.name));
        p.result(r);
    }
    p
}

fn intervene_mode(sim: &mut Sim, m: &ModeAction) -> Performed {
    let mut p = Performed::new(m.to_string());
    if let Some((c, mode)) = &m.trigger {
        let taken = sim.set_trigger_mode(c.as_deref(), *mode);
        let text = if taken.is_empty() {
            format!("no controller has a {}-triggered mode", mode.as_str())
        } else {
            format!("{}-triggered: {}", mode.as_str(), taken.join(", "))
        };
        p.say(Said::Result, "scenario", text);
    }
    if let Some(o) = m.observe {
        sim.set_observe_mode(o);
    }
    if let Some(period) = m.relist_period {
        sim.set_relist_period(period);
    }
    if let Some(period) = m.resync_period {
        sim.set_resync_period(period);
    }
    p
}

fn intervene_fault(sim: &mut Sim, f: &FaultAction) -> Performed {
    let mut p = Performed::new(f.to_string());
    // One informer, or every control-plane informer.
    let targets: Vec<InformerId> = match f.informer {
        None => sim.control_plane_informers(),
        Some((h, kind)) => match sim.hosts().get(h.index()).and_then(|host| host.informers[kind.index()]) {
            Some(id) => vec![id],
            None => {
                let text = format!("{} has no informer of {}", process_name(h), kind.plural());
                p.say(Said::Error, "scenario", text);
                return p;
            }
        },
    };
    if let Some(v) = f.drop_watch_events {
        if f.informer.is_none() {
            sim.set_watch_drop(v);
        } else {
            for &id in &targets {
                sim.set_informer_watch_drop(id, v);
            }
        }
    }
    let mut faults = sim.store().faults.clone();
    if let Some(v) = f.conflicts {
        faults.conflict_fraction = v;
    }
    if let Some(v) = f.api_latency {
        faults.api_latency = v;
    }
    if let Some(v) = f.reject_pod_creates {
        faults.reject_pod_creates = v;
    }
    sim.set_faults(faults);
    if f.disconnect_watches {
        for &id in &targets {
            sim.disconnect_watch(id);
        }
    }
    if f.force_relist {
        for &id in &targets {
            sim.force_relist(id);
        }
    }
    if let Some(h) = f.crash {
        sim.crash_host(h);
    }
    if let Some(h) = f.restart {
        sim.restart_host(h);
    }
    p
}
