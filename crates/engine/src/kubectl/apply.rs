//! `kubectl apply`: client-side apply with the last-applied-configuration three-way merge.

use crate::manifest::ObjectText;
use std::fmt;

use serde_json::Value;

use crate::api::{s, Kind, ObjKey, Object};
use crate::kubelet::NodeConfig;
use crate::manifest::{self, Entry, Manifest, ManifestError, Warning};
use crate::sim::{Sim, MAX_NODES};

use super::args::{value, Args};
use super::dry_run::{self, DryRun};
use super::{Command, Input, Output};

pub const COMMAND: Command = Command {
    name: "apply",
    summary: "Apply a configuration to a resource by file name or stdin",
    usage: "kubectl apply (-f FILENAME) [options]",
    flags: &[value("filename", Some('f')), dry_run::FLAG],
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

/// Every `-f`, each read as its own stream ([`manifest::Read::files`]); kubectl finds every path before it reads
/// any, so a missing one is the command's only error.
pub(super) fn read_files(args: &Args, input: &Input) -> Result<manifest::Read, Output> {
    let files = args.values("filename");
    if files.is_empty() {
        return Err(Output::error("must specify one of -f and -k"));
    }
    let mut texts = Vec::with_capacity(files.len());
    for f in files {
        texts.push(read_input(f, input).map_err(Output::error)?);
    }
    let mut read = manifest::Read::files(texts);
    in_namespace(&mut read, args);
    Ok(read)
}

/// The resource builder's `DefaultNamespace` and, when `-n` is given, `RequireNamespace`: an object of a
/// namespaced kind without a namespace is put in the command's; one in another namespace than `-n`'s is refused.
fn in_namespace(read: &mut manifest::Read, args: &Args) {
    let ns = super::namespace(args);
    let enforced = args.value("namespace").is_some();
    for entry in &mut read.objects {
        let (Entry::Object(m) | Entry::Refused(_, Some(m))) = entry else { continue };
        let own = m.object.meta().namespace.to_string();
        if !m.object.kind().namespaced() || own == ns {
            continue;
        }
        if own.is_empty() {
            m.object.meta_mut().namespace = s(&ns);
        } else if enforced {
            let (own, ns) = (crate::limits::echo(&own), crate::limits::echo(&ns));
            let message = format!("the namespace from the provided object {own:?} does not match the namespace {ns:?}. You must pass '--namespace={own}' to perform this operation.");
            *entry = Entry::Unbuilt(m.error_at(&["metadata", "namespace"], message));
        }
    }
}

fn run(sim: &mut Sim, args: &Args, input: &Input) -> Result<Output, Output> {
    dry_run::warned(args, run_apply(sim, args, input))
}

fn run_apply(sim: &mut Sim, args: &Args, input: &Input) -> Result<Output, Output> {
    if !args.positional.is_empty() {
        return Err(Output::error(format!(
            "Unexpected args: [{}]\nSee 'kubectl apply -h' for help and examples",
            args.positional.join(" ")
        )));
    }
    let dry = DryRun::of(args)?;
    let read = read_files(args, input)?;
    Ok(output(&perform(sim, read, dry), dry.suffix()))
}

/// What `kubectl apply -f -` prints of an apply (the page's large apply, performed across frames, prints this).
pub fn apply_output(report: &ApplyReport) -> Output {
    output(report, "")
}

/// kubectl's output: a line for each object applied as it is applied, then every error (`cmdutil.CheckErr` of the
/// errors `Run` gathered: the objects that could not be built, then those the server refused), exit status 1 if
/// there was one.
fn output(report: &ApplyReport, suffix: &str) -> Output {
    let mut out = Output::ok(String::new());
    for w in &report.warnings {
        out.stderr.push_str(&format!("{w}\n"));
    }
    for r in &report.results {
        out.stdout.push_str(&format!("{r}{suffix}\n"));
    }
    for e in &report.errors {
        out.stderr.push_str(&format!("{e}\n"));
    }
    if !report.errors.is_empty() {
        out.code = 1;
    }
    out
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

impl ApplyAction {
    /// The word kubectl prints.
    pub fn word(self) -> &'static str {
        match self {
            ApplyAction::Created => "created",
            ApplyAction::Configured => "configured",
            ApplyAction::Unchanged => "unchanged",
        }
    }
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
        write!(f, "{}/{} {}", self.kind.resource_ref(), self.key.name, self.action.word())
    }
}

/// Every outcome of an apply: the objects applied, in order; the errors, as kubectl gathers them (the objects that
/// could not be built, in the text's order, then those the server refused); the warnings of the objects applied.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ApplyReport {
    pub results: Vec<ApplyResult>,
    pub warnings: Vec<Warning>,
    pub errors: Vec<ManifestError>,
    /// The document at which reading stopped (YAML kubectl cannot read, a document without a type): the documents
    /// after it were not read, so not applied.
    pub stopped: Option<usize>,
}

impl ApplyReport {
    /// An apply of a text refused whole (kubeloop's YAML budgets): nothing of it applied.
    pub fn refused(e: ManifestError) -> ApplyReport {
        ApplyReport { errors: vec![e], ..ApplyReport::default() }
    }

    /// The outcome counted, as the page leads with it (kubeloop's own words): `2 created, 1 unchanged, 1 failed`.
    pub fn summary(&self) -> String {
        let mut parts: Vec<String> = [ApplyAction::Created, ApplyAction::Configured, ApplyAction::Unchanged]
            .iter()
            .map(|a| (a, self.results.iter().filter(|r| r.action == *a).count()))
            .filter(|(_, n)| *n > 0)
            .map(|(a, n)| format!("{n} {}", a.word()))
            .collect();
        if !self.errors.is_empty() {
            parts.push(format!("{} failed", self.errors.len()));
        }
        if parts.is_empty() {
            return "nothing to apply".into();
        }
        let mut out = parts.join(", ");
        if let Some(d) = self.stopped {
            out.push_str(&format!(" (reading stopped at document {d}: nothing after it was applied)"));
        }
        out
    }
}

/// kubectl's lines of it but its warnings: each object applied, then each error.
impl fmt::Display for ApplyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.results {
            writeln!(f, "{r}")?;
        }
        for e in &self.errors {
            writeln!(f, "{e}")?;
        }
        Ok(())
    }
}

/// `kubectl apply -f -` of every document in `text`, as kubectl applies them (its `Run`): every object read is
/// applied in order, each on its own (created, or updated by client-side apply's three-way merge with the
/// last-applied configuration); one that cannot be built or that the server refuses fails alone, and reading stops
/// where kubectl's stream stops (see [`manifest::read`]), the documents before it applied. Every outcome is in the
/// report, each failure with its line.
pub fn apply_each(sim: &mut Sim, text: &str) -> ApplyReport {
    perform(sim, manifest::Read::files(vec![(text.into(), manifest::STDIN.into())]), DryRun::None)
}

/// The apply of what was read, or (a dry run) what it would report without writing.
fn perform(sim: &mut Sim, read: manifest::Read, dry: DryRun) -> ApplyReport {
    let mut job = Applying::start(sim, read, dry);
    while !job.step(sim, usize::MAX) {}
    job.finish()
}

/// [`apply_each`], for callers that need only know whether all of it went: `Err` is its first error (the other
/// documents were applied all the same, as with kubectl's exit status 1).
pub fn apply(sim: &mut Sim, text: &str) -> Result<ApplyReport, ManifestError> {
    let report = apply_each(sim, text);
    match report.errors.first() {
        Some(e) => Err(e.clone()),
        None => Ok(report),
    }
}

/// The objects read and those the server will refuse, in order, and a report that holds what reading said (where
/// it stopped, the objects kubectl could not build: reported first); an empty text is kubectl's "no objects passed
/// to apply".
fn begin(read: manifest::Read) -> (Vec<Entry>, ApplyReport) {
    let mut report = ApplyReport { stopped: read.stopped, ..ApplyReport::default() };
    let mut objects = Vec::with_capacity(read.objects.len());
    for entry in read.objects {
        match entry {
            Entry::Unbuilt(e) => report.errors.push(e),
            sent => objects.push(sent),
        }
    }
    if objects.is_empty() && report.errors.is_empty() {
        report.errors.push(ManifestError::new(0, 1, None, "no objects passed to apply"));
    }
    (objects, report)
}

/// An apply performed a few objects at a time (the page spreads a large one across frames, the clock held), as
/// [`apply_each`] performs it at once: each object checked against what is live, then written, in order. Between
/// two steps nothing else may change the simulation (the page finishes the apply before anything else touches the
/// run), so the steps write what the whole apply writes.
pub struct Applying {
    objects: std::vec::IntoIter<Entry>,
    plan: Planner,
    report: ApplyReport,
    /// The once-per-kind warnings of the objects applied.
    kinds: manifest::Warnings,
    /// Objects to send, and how many are sent so far.
    total: usize,
    done: usize,
    /// Whether the objects are written, or a dry run's.
    dry: DryRun,
}

impl Applying {
    /// An apply of what was read.
    pub fn new(sim: &Sim, read: manifest::Read) -> Applying {
        Applying::start(sim, read, DryRun::None)
    }

    /// An apply, or a dry run of it: `--dry-run=client` sends nothing (see [`pretend`]); `--dry-run=server`
    /// sends each object with `dryRun=All` (see [`send_dry_run`]).
    fn start(sim: &Sim, read: manifest::Read, dry: DryRun) -> Applying {
        let (objects, report) = begin(read);
        Applying {
            total: objects.len(),
            objects: objects.into_iter(),
            plan: Planner::new(sim),
            dry,
            report,
            kinds: manifest::Warnings::default(),
            done: 0,
        }
    }

    /// How far it is: objects sent, of how many.
    pub fn progress(&self) -> (usize, usize) {
        (self.done, self.total)
    }

    /// Sends up to `n` objects; whether the apply is done.
    pub fn step(&mut self, sim: &mut Sim, n: usize) -> bool {
        for _ in 0..n {
            let Some(entry) = self.objects.next() else { return true };
            let read = if self.dry.sends() { entry.into_result() } else { entry.into_read() };
            let sent = read.and_then(|m| {
                let r = match self.dry {
                    DryRun::None => write(sim, self.plan.plan(sim, &m)?, &m, &mut self.plan)?,
                    DryRun::Client => pretend(sim, &m)?,
                    DryRun::Server => send_dry_run(sim, self.plan.plan(sim, &m)?, &m)?,
                };
                self.report.warnings.extend(m.warnings.iter().cloned());
                self.kinds.saw(&m);
                Ok(r)
            });
            match sent {
                Ok(r) => self.report.results.push(r),
                Err(e) => self.report.errors.push(e),
            }
            self.done += 1;
        }
        self.objects.len() == 0
    }

    /// What the apply did (call once [`Applying::step`] says it is done).
    pub fn finish(mut self) -> ApplyReport {
        self.report.warnings.extend(self.kinds.finish());
        self.report
    }
}

/// `--dry-run=client`, as kubectl's `applyOneObject` does it: nothing is sent but the GET of the object; one that
/// is not there would be `created`, one that is `configured` (kubectl computes no patch, so it cannot tell an
/// unchanged one). Nothing the server would check is checked: not the namespace, not validation, not kubeloop's
/// bounds.
fn pretend(sim: &Sim, m: &Manifest) -> Result<ApplyResult, ManifestError> {
    manifest::named(m, "apply")?;
    let kind = m.object.kind();
    let key = match kind.namespaced() {
        true if m.object.meta().namespace.is_empty() => ObjKey::new("default", &m.object.meta().name),
        true => m.object.key(),
        false => ObjKey::cluster(&m.object.meta().name),
    };
    let action = if sim.store().peek(kind, &key).is_some() { ApplyAction::Configured } else { ApplyAction::Created };
    Ok(ApplyResult { kind, key, action })
}

/// Writes one planned object: creates it, or updates it over what is live; the planner then counts it.
fn write(sim: &mut Sim, p: Planned, m: &Manifest, plan: &mut Planner) -> Result<ApplyResult, ManifestError> {
    let Planned { object: mut obj, exists, declared_pods } = p;
    let kind = obj.kind();
    let key = obj.key();
    let before = sim.store().peek(kind, &key).map(|o| o.meta().resource_version);
    let result = if kind == Kind::Node && !exists {
        create_node(sim, obj).map_err(|e| format!("Error from server: {e}"))
    } else if exists {
        obj.meta_mut().resource_version = before.unwrap_or(0);
        sim.as_user(|api| api.update(obj)).map_err(server_error)
    } else {
        sim.as_user(|api| api.create(obj)).map_err(server_error)
    };
    let written = result.map_err(|e| m.error_at(&[], e))?;
    let action = match before {
        None => ApplyAction::Created,
        Some(rv) if rv == written.meta().resource_version => ApplyAction::Unchanged,
        Some(_) => ApplyAction::Configured,
    };
    plan.declared_pods = declared_pods;
    Ok(ApplyResult { kind, key, action })
}

/// A write the API server refused, as kubectl prints it (`The Service "s" is invalid: ...` for a 422).
fn server_error(e: crate::store::ApiError) -> String {
    match e {
        crate::store::ApiError::Invalid(invalid) => invalid.kubectl_message(),
        e => format!("Error from server: {e}"),
    }
}

/// `--dry-run=server`: one planned object sent as kubectl sends it, with `dryRun=All` (the API server admits and
/// validates it, answers, and persists nothing, so each object meets what is live). An object that is not there is
/// created; an object whose update changes nothing is `unchanged`, as kubectl's empty patch is.
fn send_dry_run(sim: &mut Sim, p: Planned, m: &Manifest) -> Result<ApplyResult, ManifestError> {
    let mut obj = p.object;
    let (kind, key) = (obj.kind(), obj.key());
    let live = sim.store().peek(kind, &key).cloned();
    if let Some(l) = &live {
        obj.meta_mut().resource_version = l.meta().resource_version;
    }
    let sent = sim.as_user(|api| api.dry_run(|api| if live.is_some() { api.update(obj) } else { api.create(obj) }));
    let answer = sent.map_err(|e| m.error_at(&[], server_error(e)))?;
    let action = match &live {
        None => ApplyAction::Created,
        Some(l) if **l == *answer => ApplyAction::Unchanged,
        Some(_) => ApplyAction::Configured,
    };
    Ok(ApplyResult { kind, key, action })
}

/// One object checked and built as it would be sent: the object, whether it exists, and the pods the cluster
/// declares once it is written.
struct Planned {
    object: Object,
    exists: bool,
    declared_pods: i64,
}

/// Checks each object against what is live and builds it as it would be written (writes nothing): the API
/// server's checks that kubeloop makes before a write, and kubeloop's own bounds (objects per kind, declared pods,
/// nodes).
struct Planner {
    /// Pods the workloads declare, with the objects committed so far.
    declared_pods: i64,
}

impl Planner {
    fn new(sim: &Sim) -> Planner {
        Planner { declared_pods: declared_pods(sim) }
    }

    /// Checks one object and builds it as it would be sent.
    fn plan(&self, sim: &Sim, m: &Manifest) -> Result<Planned, ManifestError> {
        manifest::named(m, "apply")?;
        manifest::validate(m)?;
        let mut obj = m.object.clone();
        let kind = obj.kind();
        if kind.namespaced() {
            if obj.meta().namespace.is_empty() {
                obj.meta_mut().namespace = s("default");
            }
            let ns = obj.meta().namespace.to_string();
            let namespace = sim.store().peek(Kind::Namespace, &ObjKey::cluster(&ns));
            let Some(namespace) = namespace else {
                let ns = crate::limits::echo(&ns);
                return Err(m.error_at(&["metadata", "namespace"], format!("namespaces \"{ns}\" not found")));
            };
            let terminating = namespace.as_namespace().is_some_and(|n| &*n.status.phase == "Terminating");
            if terminating && sim.store().peek(kind, &obj.key()).is_none() {
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
        let key = obj.key();
        let live = sim.store().peek(kind, &key);
        let namespace = kind.namespaced().then_some(&*key.namespace);
        let (json, last_applied) = last_applied_configuration(&m.json, namespace);
        let next = match &live {
            None => {
                obj.meta_mut().annotations.insert(s(LAST_APPLIED), s(&last_applied));
                validate_stored(m, &obj)?;
                if let Object::Node(n) = &obj {
                    // The Node its kubelet will register (with the hostname label) must be one the API server
                    // takes, or nothing is written.
                    let node = Object::Node(crate::kubelet::registered_node(&node_config_of(sim, n)));
                    let errs = crate::admission::validate(&node);
                    if !errs.is_empty() {
                        let message = crate::admission::invalid_message(&node, &errs);
                        return Err(m.error_at(&["metadata", "name"], message));
                    }
                    let max_nodes = sim.store().cap(Kind::Node).min(MAX_NODES);
                    if sim.kubelets().len() >= max_nodes {
                        return Err(m.error_at(&[], format!("refused: kubeloop simulates at most {max_nodes} nodes")));
                    }
                }
                let cap = sim.store().cap(kind);
                if sim.store().count_of(kind) >= cap {
                    return Err(m.error_at(&[], format!("refused: {}", kind.refusal(cap))));
                }
                obj
            }
            Some(live) => {
                let merged = three_way(live, &json).map_err(|e| m.error_at(&[], e))?;
                let mut next = merged;
                next.meta_mut().annotations.insert(s(LAST_APPLIED), s(&last_applied));
                next.meta_mut().resource_version = live.meta().resource_version;
                validate_stored(m, &next)?;
                precheck_update(live, &next).map_err(|e| m.error_at(&["spec"], e))?;
                next
            }
        };
        let declared_pods = self.declared_pods + replicas_of(sim, &next) - live.map_or(0, |l| replicas_of(sim, l));
        let max_pods = sim.store().cap(Kind::Pod);
        if declared_pods > max_pods as i64 {
            return Err(m.error_at(
                &["spec", "replicas"],
                format!("refused: the cluster would declare {declared_pods} pods; kubeloop simulates at most {max_pods} (Kubernetes' scalability envelope)"),
            ));
        }
        Ok(Planned { object: next, exists: live.is_some(), declared_pods })
    }
}

/// Pods the workloads in the store declare (uncounted read): the sum of [`replicas_of`] over Deployments,
/// ReplicaSets and pods.
pub(super) fn declared_pods(sim: &Sim) -> i64 {
    [Kind::Deployment, Kind::ReplicaSet, Kind::StatefulSet, Kind::Pod]
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
/// StatefulSet its replicas; a pod one unless a live ReplicaSet or StatefulSet controls it.
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
        Object::StatefulSet(s) => i64::from(s.replicas()),
        Object::Pod(_) if !controlled_by(Kind::ReplicaSet) && !controlled_by(Kind::StatefulSet) => 1,
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

/// The object as the API server will store it (with kubectl's last-applied-configuration) held to its validation
/// before anything is written. Past the annotations' limit because of that copy alone, kubeloop says so.
fn validate_stored(m: &Manifest, obj: &Object) -> Result<(), ManifestError> {
    let mut stored = obj.clone();
    crate::admission::default_object(&mut stored);
    manifest::validate_object(m, &stored).map_err(|e| match last_applied_note(&stored) {
        Some(note) => {
            let message = format!("{}\n{note}", e.message);
            e.with_message(&message)
        }
        None => e,
    })
}

/// kubeloop's own explanation when the last-applied-configuration is what puts an object's annotations past
/// their limit (a well-known surprise of `kubectl apply`: a large ConfigMap applies on no real cluster).
fn last_applied_note(obj: &Object) -> Option<String> {
    use crate::admission::{annotations_size, ANNOTATIONS_MAX_BYTES};
    let annotations = &obj.meta().annotations;
    let copy = annotations.get(LAST_APPLIED)?.len();
    let total = annotations_size(annotations);
    let without = total.saturating_sub(copy + LAST_APPLIED.len());
    (total > ANNOTATIONS_MAX_BYTES && without <= ANNOTATIONS_MAX_BYTES).then(|| {
        format!(
            "kubeloop: kubectl apply keeps a copy of the whole object ({copy} bytes here) in the annotation \
             {LAST_APPLIED}, and an object's annotations may hold {ANNOTATIONS_MAX_BYTES} bytes in all; \
             `kubectl create -f` keeps no copy (a real cluster also offers `kubectl apply --server-side`, which \
             kubeloop does not simulate)"
        )
    })
}

/// The server-side checks of an update, run before it is written (as the API server's update path runs them).
fn precheck_update(live: &Object, next: &Object) -> Result<(), String> {
    let mut n = next.clone();
    if let (Object::Service(old), Object::Service(new)) = (live, &mut n) {
        crate::store::patch_allocated_values(new, old);
    }
    crate::admission::default_object(&mut n);
    let errs = crate::admission::validate(&n);
    if !errs.is_empty() {
        return Err(crate::admission::invalid_message(&n, &errs));
    }
    crate::store::validate_update(live, &n).map_err(server_error)
}
