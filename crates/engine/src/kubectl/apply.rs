//! `kubectl apply`: client-side apply with the last-applied-configuration three-way merge.

use crate::manifest::ObjectText;
use std::fmt;

use serde_json::Value;

use crate::api::{s, Kind, ObjKey, Object};
use crate::kubelet::NodeConfig;
use crate::manifest::{self, Manifest, ManifestError, Warning};
use crate::sim::{Sim, MAX_NODES};

use super::args::{value, Args};
use super::{Command, Input, Output};

pub const COMMAND: Command = Command {
    name: "apply",
    summary: "Apply a configuration to a resource by file name or stdin",
    usage: "kubectl apply (-f FILENAME) [options]",
    flags: &[
        value("filename", Some('f'), "The files that contain the configurations to apply (- for stdin)."),
        value(
            "dry-run",
            None,
            "Must be \"none\", \"server\", or \"client\". If client strategy, only print the object that would be sent, without sending it.",
        ),
    ],
    run,
};

/// Reads `-f NAME` (`-` is standard input): the text and the name kubectl uses for it in messages (`STDIN`).
pub(super) fn read_input(name: &str, input: &Input) -> Result<(String, String), String> {
    if name == "-" {
        return match input.stdin {
            Some(t) => Ok((t.to_string(), "STDIN".into())),
            None => Err("no objects passed to apply: standard input is empty".into()),
        };
    }
    (input.read_file)(name).map(|t| (t, name.to_string()))
}

/// Every `-f` joined into one multi-document text (one file keeps its own line numbers).
pub(super) fn read_all(args: &Args, input: &Input) -> Result<String, Output> {
    let files = args.values("filename");
    if files.is_empty() {
        return Err(Output::error("must specify one of -f and -k"));
    }
    let mut texts = Vec::new();
    for f in files {
        texts.push(read_input(f, input).map_err(Output::error)?.0);
    }
    Ok(texts.join("\n---\n"))
}

fn run(sim: &mut Sim, args: &Args, input: &Input) -> Result<Output, Output> {
    if !args.positional.is_empty() {
        return Err(Output::error(format!(
            "Unexpected args: [{}]\nSee 'kubectl apply -h' for help and examples",
            args.positional.join(" ")
        )));
    }
    let dry_run = match args.value("dry-run") {
        None | Some("none" | "false") => false,
        Some("client" | "server" | "true") => true,
        Some(v) => {
            return Err(Output::error(format!(
                "Invalid dry-run value ({v}). Must be \"none\", \"server\", or \"client\"."
            )))
        }
    };
    let text = read_all(args, input)?;
    if dry_run {
        return Ok(output(&dry_run_report(sim, &text), " (dry run)"));
    }
    Ok(output(&apply(sim, &text), ""))
}

/// What `kubectl apply -f -` prints of an apply (the page's large apply, performed across frames, prints this).
pub fn apply_output(result: &Result<ApplyReport, ManifestError>) -> Output {
    output(result, "")
}

fn output(result: &Result<ApplyReport, ManifestError>, suffix: &str) -> Output {
    match result {
        Ok(report) => {
            let mut out = Output::ok(String::new());
            for w in &report.warnings {
                out.stderr.push_str(&format!("{w}\n"));
            }
            for r in &report.results {
                out.stdout.push_str(&format!("{r}{suffix}\n"));
            }
            out
        }
        Err(e) => Output { stderr: format!("{e}\n"), code: 1, ..Default::default() },
    }
}

/// `kubectl.kubernetes.io/last-applied-configuration`
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// `util.GetModifiedConfiguration`: the document as applied (its namespace set, as the resource builder sets it)
/// and its last-applied-configuration annotation: the document without that annotation, its annotations map
/// present even when empty (`{}`), as `json.NewEncoder(...).Encode` writes it, newline included.
fn last_applied_configuration(doc: &Value, namespace: Option<&str>) -> (Value, String) {
    let mut json = doc.clone();
    if let Some(meta) = json.get_mut("metadata").and_then(Value::as_object_mut) {
        if let Some(ns) = namespace {
            meta.insert("namespace".into(), Value::String(ns.to_string()));
        }
        let mut annotations = match meta.remove("annotations") {
            Some(Value::Object(a)) => a,
            _ => serde_json::Map::new(),
        };
        annotations.remove(LAST_APPLIED);
        meta.insert("annotations".into(), Value::Object(annotations));
    }
    let mut text = crate::decode::go_json(&json);
    text.push('\n');
    (json, text)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyAction {
    Created,
    Configured,
    Unchanged,
}

/// What `apply` did to one object: prints as kubectl does (`deployment.apps/web created`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyResult {
    pub kind: Kind,
    pub key: ObjKey,
    pub action: ApplyAction,
}

impl fmt::Display for ApplyResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let action = match self.action {
            ApplyAction::Created => "created",
            ApplyAction::Configured => "configured",
            ApplyAction::Unchanged => "unchanged",
        };
        write!(f, "{}/{} {action}", self.kind.resource_ref(), self.key.name)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyReport {
    pub results: Vec<ApplyResult>,
    pub warnings: Vec<Warning>,
}

impl fmt::Display for ApplyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for w in &self.warnings {
            writeln!(f, "{w}")?;
        }
        for r in &self.results {
            writeln!(f, "{r}")?;
        }
        Ok(())
    }
}

/// `kubectl apply -f -` of every document in `text`: create or update each object (client-side apply with the
/// last-applied-configuration three-way merge). Everything is checked first: if any document has a problem,
/// nothing at all is applied.
pub fn apply(sim: &mut Sim, text: &str) -> Result<ApplyReport, ManifestError> {
    apply_read(sim, manifest::parse(text)?)
}

/// [`apply`] of a text already read.
fn apply_read(sim: &mut Sim, read: (Vec<Manifest>, Vec<Warning>)) -> Result<ApplyReport, ManifestError> {
    let mut job = Applying::new(sim, read)?;
    while !job.step(sim, usize::MAX)? {}
    Ok(job.finish())
}

/// An apply performed a few objects at a time (the page spreads a large one across frames, the clock held): every
/// object is planned and checked first, then written, as [`apply`] does at once. Between two steps nothing
/// else may change the simulation (the page finishes the apply before anything else touches the run).
pub struct Applying {
    plan: Planner,
    /// The objects planned, once every one of them is: then written in order.
    writing: Option<std::vec::IntoIter<(Object, Manifest, bool)>>,
    report: ApplyReport,
    /// Objects in the text, and how many are planned and written so far.
    total: usize,
    done: usize,
}

impl Applying {
    /// An apply of what was read (an empty set is refused, as kubectl refuses it).
    pub fn new(sim: &Sim, read: (Vec<Manifest>, Vec<Warning>)) -> Result<Applying, ManifestError> {
        let total = read.0.len();
        let plan = Planner::new(sim, read)?;
        Ok(Applying {
            plan,
            writing: None,
            report: ApplyReport { results: Vec::new(), warnings: Vec::new() },
            total,
            done: 0,
        })
    }

    /// Whether writing has begun: from then on the apply cannot be cancelled (what is written stays written).
    pub fn writing(&self) -> bool {
        self.writing.is_some()
    }

    /// How far it is: objects planned plus objects written, out of twice the objects.
    pub fn progress(&self) -> (usize, usize) {
        (self.done, 2 * self.total)
    }

    /// Plans or writes up to `n` objects; whether the apply is done. At the first error nothing more is done (a
    /// planning error: nothing was written).
    pub fn step(&mut self, sim: &mut Sim, n: usize) -> Result<bool, ManifestError> {
        let mut left = n;
        if self.writing.is_none() {
            while left > 0 {
                if !self.plan.step(sim)? {
                    let plan = std::mem::take(&mut self.plan.planned);
                    self.report.warnings = std::mem::take(&mut self.plan.warnings);
                    self.writing = Some(plan.into_iter());
                    break;
                }
                self.done += 1;
                left -= 1;
            }
        }
        let Some(objects) = self.writing.as_mut() else { return Ok(false) };
        while left > 0 {
            let Some((obj, m, exists)) = objects.next() else { return Ok(true) };
            self.report.results.push(write(sim, obj, &m, exists)?);
            self.done += 1;
            left -= 1;
        }
        Ok(objects.len() == 0)
    }

    /// What the apply did (call once [`Applying::step`] says it is done).
    pub fn finish(self) -> ApplyReport {
        self.report
    }
}

/// Writes one planned object: creates it, or updates it over what is live.
fn write(sim: &mut Sim, mut obj: Object, m: &Manifest, exists: bool) -> Result<ApplyResult, ManifestError> {
    let kind = obj.kind();
    let key = obj.key();
    let before = sim.store().peek(kind, &key).map(|o| o.meta().resource_version);
    let result = if kind == Kind::Node && !exists {
        create_node(sim, obj)
    } else if exists {
        // An object named twice in the set was planned against the first document's version: it is written
        // over what that write left.
        obj.meta_mut().resource_version = before.unwrap_or(0);
        sim.as_user(|api| api.update(obj)).map_err(|e| e.to_string())
    } else {
        sim.as_user(|api| api.create(obj)).map_err(|e| e.to_string())
    };
    let written = result.map_err(|e| m.error_at(&[], format!("Error from server: {e}")))?;
    let action = match before {
        None => ApplyAction::Created,
        Some(rv) if rv == written.meta().resource_version => ApplyAction::Unchanged,
        Some(_) => ApplyAction::Configured,
    };
    Ok(ApplyResult { kind, key, action })
}

/// `--dry-run=client`: what apply would report, without writing (every existing object as `configured`).
fn dry_run_report(sim: &Sim, text: &str) -> Result<ApplyReport, ManifestError> {
    let mut plan = Planner::new(sim, manifest::parse(text)?)?;
    while plan.step(sim)? {}
    let results = plan
        .planned
        .into_iter()
        .map(|(obj, _, exists)| {
            let action = if !exists { ApplyAction::Created } else { ApplyAction::Configured };
            ApplyResult { kind: obj.kind(), key: obj.key(), action }
        })
        .collect();
    Ok(ApplyReport { results, warnings: plan.warnings })
}

/// Checks every document and builds each object as it would be written, one document at a time; writes nothing.
/// Documents are planned in order, each against the state the earlier ones leave (an object named twice is
/// created, then configured, as kubectl applies it), so the whole set is known good before the first write.
#[derive(Default)]
struct Planner {
    manifests: std::vec::IntoIter<Manifest>,
    warnings: Vec<Warning>,
    /// Each object as it would be sent, its manifest, whether it exists.
    planned: Vec<(Object, Manifest, bool)>,
    namespaces: Vec<String>,
    new_nodes: usize,
    declared_pods: i64,
    /// What the earlier documents of the set will have written, by kind and key.
    planned_state: std::collections::BTreeMap<(Kind, ObjKey), Object>,
    creates: [usize; Kind::ALL.len()],
}

impl Planner {
    fn new(sim: &Sim, (manifests, warnings): (Vec<Manifest>, Vec<Warning>)) -> Result<Planner, ManifestError> {
        if manifests.is_empty() {
            return Err(ManifestError {
                document: 0,
                line: 1,
                column: None,
                message: "no objects passed to apply".into(),
            });
        }
        Ok(Planner {
            planned: Vec::with_capacity(manifests.len()),
            manifests: manifests.into_iter(),
            warnings,
            namespaces: sim.store().objects(Kind::Namespace).map(|o| o.meta().name.to_string()).collect(),
            declared_pods: declared_pods(sim),
            ..Planner::default()
        })
    }

    /// Plans the next document; whether there was one.
    fn step(&mut self, sim: &Sim) -> Result<bool, ManifestError> {
        let Some(m) = self.manifests.next() else { return Ok(false) };
        manifest::named(&m, "apply")?;
        manifest::validate(&m)?;
        let mut obj = m.object.clone();
        let kind = obj.kind();
        if kind.namespaced() {
            if obj.meta().namespace.is_empty() {
                obj.meta_mut().namespace = s("default");
            }
            let ns = obj.meta().namespace.to_string();
            if !self.namespaces.contains(&ns) {
                let ns = crate::limits::echo(&ns);
                return Err(m.error_at(&["metadata", "namespace"], format!("namespaces \"{ns}\" not found")));
            }
            let terminating =
                |o: &std::rc::Rc<Object>| o.as_namespace().is_some_and(|n| &*n.status.phase == "Terminating");
            let creates = sim.store().peek(kind, &obj.key()).is_none();
            if creates && sim.store().peek(Kind::Namespace, &ObjKey::cluster(&ns)).is_some_and(terminating) {
                // NamespaceLifecycle refuses creates only; an update of what is still there goes through.
                return Err(m.error_at(
                    &["metadata", "namespace"],
                    format!(
                        "Error from server (Forbidden): {} \"{}\" is forbidden: unable to create new content in namespace {} because it is being terminated",
                        crate::store::group_resource(kind),
                        crate::limits::echo(&obj.meta().name),
                        crate::limits::echo(&ns)
                    ),
                ));
            }
        } else {
            obj.meta_mut().namespace = s("");
        }
        if kind == Kind::Namespace {
            self.namespaces.push(obj.meta().name.to_string());
        }
        let key = obj.key();
        let live = match self.planned_state.get(&(kind, key.clone())) {
            Some(o) => Some(std::rc::Rc::new(o.clone())),
            None => sim.store().peek(kind, &key).cloned(),
        };
        let namespace = kind.namespaced().then_some(&*key.namespace);
        let (json, last_applied) = last_applied_configuration(&m.json, namespace);
        let exists = live.is_some();
        let next = match &live {
            None => {
                obj.meta_mut().annotations.insert(s(LAST_APPLIED), s(&last_applied));
                if let Object::Node(n) = &obj {
                    self.new_nodes += 1;
                    // The Node its kubelet will register (with the hostname label) must be one the API server
                    // takes, or nothing is written.
                    let node = Object::Node(crate::kubelet::registered_node(&node_config_of(sim, n)));
                    let errs = crate::admission::validate(&node);
                    if !errs.is_empty() {
                        let message = crate::admission::invalid_message(&node, &errs);
                        return Err(m.error_at(&["metadata", "name"], message));
                    }
                }
                self.creates[kind.index()] += 1;
                let cap = sim.store().cap(kind);
                if sim.store().count_of(kind) + self.creates[kind.index()] > cap {
                    return Err(m.error_at(&[], format!("refused: {}", crate::limits::refusal(kind, cap))));
                }
                obj
            }
            Some(live) => {
                let merged = three_way(live, &json).map_err(|e| m.error_at(&[], e))?;
                let mut next = merged;
                next.meta_mut().annotations.insert(s(LAST_APPLIED), s(&last_applied));
                next.meta_mut().resource_version = live.meta().resource_version;
                precheck_update(live, &next).map_err(|e| m.error_at(&["spec"], e))?;
                next
            }
        };
        self.declared_pods += replicas_of(sim, &next) - live.as_deref().map_or(0, |l| replicas_of(sim, l));
        let max_pods = sim.store().cap(Kind::Pod);
        if self.declared_pods > max_pods as i64 {
            let declared = self.declared_pods;
            return Err(m.error_at(
                &["spec", "replicas"],
                format!("refused: the cluster would declare {declared} pods; kubeloop simulates at most {max_pods} (Kubernetes' scalability envelope)"),
            ));
        }
        let max_nodes = sim.store().cap(Kind::Node).min(MAX_NODES);
        if sim.kubelets().len() + self.new_nodes > max_nodes {
            return Err(m.error_at(&[], format!("refused: kubeloop simulates at most {max_nodes} nodes")));
        }
        self.planned_state.insert((kind, key), next.clone());
        self.planned.push((next, m, exists));
        Ok(true)
    }
}

/// Pods the workloads in the store declare (uncounted read): the sum of [`replicas_of`] over Deployments,
/// ReplicaSets and pods.
pub(super) fn declared_pods(sim: &Sim) -> i64 {
    [Kind::Deployment, Kind::ReplicaSet, Kind::Pod]
        .iter()
        .flat_map(|k| sim.store().objects(*k))
        .map(|o| replicas_of_in(sim.store(), o))
        .sum()
}

/// Pods an object declares, as [`replicas_of_in`] the store of `sim`.
pub(super) fn replicas_of(sim: &Sim, o: &Object) -> i64 {
    replicas_of_in(sim.store(), o)
}

/// Pods an object declares: a Deployment its replicas; a ReplicaSet its replicas unless a live Deployment controls
/// it (an orphan, or one whose controller is of a kind kubeloop does not serve, or is gone, declares its own); a
/// pod one unless a live ReplicaSet controls it.
fn replicas_of_in(store: &crate::store::Store, o: &Object) -> i64 {
    let controlled_by = |kind: Kind| {
        crate::api::controller_of(o.meta()).is_some_and(|r| {
            &*r.kind == kind.name()
                && store.peek(kind, &ObjKey::new(&o.meta().namespace, &r.name)).is_some_and(|c| c.meta().uid == r.uid)
        })
    };
    match o {
        Object::Deployment(d) => i64::from(d.spec.replicas.unwrap_or(1)),
        Object::ReplicaSet(r) if !controlled_by(Kind::Deployment) => i64::from(r.spec.replicas.unwrap_or(1)),
        Object::Pod(_) if !controlled_by(Kind::ReplicaSet) => 1,
        _ => 0,
    }
}

/// The shape of the simulated kubelet an applied Node gets: the node template, with the Node's capacity, labels
/// and taints.
fn node_config_of(sim: &Sim, n: &crate::api::Node) -> NodeConfig {
    let mut config = NodeConfig { name: n.metadata.name.to_string(), ..sim.config().node_template.clone() };
    let cap = |r: &str| n.status.capacity.get(r).cloned();
    if let Some(q) = cap("cpu") {
        config.cpu = q;
    }
    if let Some(q) = cap("memory") {
        config.memory = q;
    }
    if let Some(q) = cap("pods") {
        config.pods = q.value();
    }
    config.labels = n.metadata.labels.clone();
    config.taints = n.spec.taints.clone();
    config
}

/// An applied Node gets a simulated kubelet with the node's shape (capacity, labels, taints).
pub(super) fn create_node(sim: &mut Sim, obj: Object) -> Result<std::rc::Rc<Object>, String> {
    let Object::Node(n) = obj else { return Err("not a node".into()) };
    let config = node_config_of(sim, &n);
    let name = n.metadata.name.clone();
    sim.add_node(config)?;
    // The kubelet registered the node; record the manifest's annotations and spec like an update would.
    let key = ObjKey::cluster(&name);
    let annotations = n.metadata.annotations.clone();
    let unschedulable = n.spec.unschedulable;
    sim.as_user(|api| {
        api.patch(Kind::Node, &key, crate::store::Subresource::Main, |o| {
            o.meta_mut().annotations.extend(annotations);
            if let Object::Node(node) = o {
                node.spec.unschedulable = unschedulable;
            }
        })
    })
    .map_err(|e| e.to_string())
}

/// Client-side apply's three-way merge: fields in the new manifest are set; fields that were in the last applied
/// configuration and are gone from the manifest are removed; everything else (set by controllers or other
/// clients) is kept. Lists are replaced whole.
pub fn three_way(live: &Object, new: &Value) -> Result<Object, String> {
    let mut live_json = live.to_json();
    let last: Value =
        live.meta().annotation(LAST_APPLIED).and_then(|s| serde_json::from_str(s).ok()).unwrap_or(Value::Null);
    merge(&mut live_json, &last, new);
    if let Some(o) = live_json.as_object_mut() {
        o.remove("apiVersion");
        o.remove("kind");
    }
    from_json(live.kind(), live_json)
}

fn merge(live: &mut Value, last: &Value, new: &Value) {
    match (live, new) {
        (Value::Object(l), Value::Object(n)) => {
            for (k, nv) in n {
                let lv = l.entry(k.clone()).or_insert(Value::Null);
                let last_v = last.get(k).unwrap_or(&Value::Null);
                if nv.is_object() && lv.is_object() {
                    merge(lv, last_v, nv);
                } else {
                    *lv = nv.clone();
                }
            }
            if let Value::Object(last) = last {
                for k in last.keys() {
                    if !n.contains_key(k) {
                        l.remove(k);
                    }
                }
            }
        }
        (l, n) => *l = n.clone(),
    }
}

/// Decodes a JSON object of `kind` (an applicable kind: see [`crate::manifest::decode_json`]).
pub fn from_json(kind: Kind, v: Value) -> Result<Object, String> {
    crate::manifest::decode_json(kind, &v)
}

/// The server-side checks of an update, run before anything is written.
fn precheck_update(live: &Object, next: &Object) -> Result<(), String> {
    let mut n = next.clone();
    crate::admission::default_object(&mut n);
    let errs = crate::admission::validate(&n);
    if !errs.is_empty() {
        return Err(crate::admission::invalid_message(&n, &errs));
    }
    crate::store::validate_update(live, &n).map_err(|e| format!("Error from server: {e}"))
}
