//! `kubectl cordon`, `uncordon`, `drain` and `taint`: a GET of each node and a PATCH of its spec; `drain`
//! also lists the node's pods (field selector `spec.nodeName`), evicts them and waits until they are gone.

use std::collections::VecDeque;

use super::args::{switch, value, Args, Flag};
use super::delete::{is_gone, select, server_error_line};
use super::dry_run::{self, DryRun};
use super::resource::kind_of;
use super::{Command, Follow, FollowPoll, Input, Output};
use crate::api::{controller_of, s, Kind, ObjKey, Object, Str, Taint};
use crate::sim::Sim;
use crate::store::{DeleteOptions, Subresource};
use crate::time::{Millis, SECOND};
use crate::watch::WatchFilter;

pub const CORDON: Command = Command {
    name: "cordon",
    summary: "Mark node as unschedulable",
    usage: "kubectl cordon NODE",
    flags: SELECT,
    run: run_cordon,
};

pub const UNCORDON: Command = Command {
    name: "uncordon",
    summary: "Mark node as schedulable",
    usage: "kubectl uncordon NODE",
    flags: SELECT,
    run: run_uncordon,
};

pub const DRAIN: Command = Command {
    name: "drain",
    summary: "Drain node in preparation for maintenance",
    usage: "kubectl drain NODE",
    flags: DRAIN_FLAGS,
    run: run_drain,
};

pub const TAINT: Command = Command {
    name: "taint",
    summary: "Update the taints on one or more nodes",
    usage: "kubectl taint NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N",
    flags: TAINT_FLAGS,
    run: run_taint,
};

const SELECT: &[Flag] = &[value("selector", Some('l')), dry_run::FLAG];

const DRAIN_FLAGS: &[Flag] = &[
    value("selector", Some('l')),
    switch("force", None),
    switch("ignore-daemonsets", None),
    switch("delete-emptydir-data", None),
    value("grace-period", None),
    value("timeout", None),
    switch("disable-eviction", None),
    dry_run::FLAG,
];

const TAINT_FLAGS: &[Flag] =
    &[switch("overwrite", None), switch("all", None), value("selector", Some('l')), dry_run::FLAG];

fn run_cordon(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    dry_run::warned(args, cordon(sim, args, true, "cordon"))
}

fn run_uncordon(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    dry_run::warned(args, cordon(sim, args, false, "uncordon"))
}

/// Node names (or `-l`) → the nodes, read through the API, and the `--dry-run` strategy (read, as kubectl's
/// `Complete` reads it, after the arguments are checked and before the nodes are).
fn nodes(sim: &mut Sim, args: &Args, cmd: &str) -> Result<(super::delete::Selection, DryRun), Output> {
    let has_selector = args.value("selector").is_some_and(|s| !s.is_empty());
    if args.positional.is_empty() && !has_selector {
        return Err(Output::error(format!("USAGE: {cmd} NODE [flags]\nSee 'kubectl {cmd} -h' for help and examples")));
    }
    if !args.positional.is_empty() && has_selector {
        return Err(Output::error(format!(
            "cannot specify both a node name and a --selector option\nSee 'kubectl {cmd} -h' for help and examples"
        )));
    }
    let dry = DryRun::of(args)?;
    let mut words = vec!["nodes".to_string()];
    words.extend(args.positional.iter().cloned());
    Ok((select(sim, args, &words, true)?, dry))
}

/// Cordons or uncordons every selected node (`RunCordonOrUncordon`): the output, and the exit code 1 if a patch
/// failed.
fn cordon_nodes(sim: &mut Sim, nodes: &[super::delete::Item], desired: bool, dry: DryRun, out: &mut Output) {
    let (already, changed) =
        if desired { ("already cordoned", "cordoned") } else { ("already uncordoned", "uncordoned") };
    let suffix = dry.suffix();
    for item in nodes {
        let Some(Object::Node(n)) = item.obj.as_deref() else { continue };
        if n.spec.unschedulable == desired {
            out.stdout.push_str(&format!("node/{} {already}{suffix}\n", item.key.name));
            continue;
        }
        if !dry.sends() {
            out.stdout.push_str(&format!("node/{} {changed}{suffix}\n", item.key.name));
            continue;
        }
        let res = dry.send(sim, |api| {
            api.patch(Kind::Node, &item.key, Subresource::Main, |o| {
                if let Object::Node(n) = o {
                    n.spec.unschedulable = desired;
                }
            })
        });
        match res {
            Ok(_) => out.stdout.push_str(&format!("node/{} {changed}{suffix}\n", item.key.name)),
            Err(e) => {
                let verb = if desired { "cordon" } else { "uncordon" };
                out.stderr.push_str(&format!(
                    "error: unable to {verb} node {:?}: {}\n",
                    item.key.name,
                    server_error_line(&e)
                ));
                out.code = 1;
            }
        }
    }
}

fn cordon(sim: &mut Sim, args: &Args, desired: bool, cmd: &str) -> Result<Output, Output> {
    let (sel, dry) = nodes(sim, args, cmd)?;
    let mut out = Output::default();
    cordon_nodes(sim, &sel.items, desired, dry, &mut out);
    out.push(sel.error_output());
    Ok(out)
}

// ---- drain ----------------------------------------------------------------------------------------------------

/// `--timeout`, a Go duration (`30s`, `2m`, `1h30m`, `500ms`, `0`), in milliseconds (0, and a negative duration,
/// wait forever as in kubectl, whose drain only sets a deadline for a positive timeout).
fn duration(v: &str) -> Result<Millis, String> {
    crate::time::parse_go_duration(v)
        .map(crate::time::go_duration_millis)
        .map_err(|e| format!("invalid argument \"{}\" for \"--timeout\" flag: {e}", crate::limits::echo(v)))
}

#[derive(Clone)]
struct DrainOptions {
    force: bool,
    ignore_daemonsets: bool,
    delete_emptydir_data: bool,
    grace: Option<i64>,
    timeout: Millis,
    eviction: bool,
    dry: DryRun,
}

impl DrainOptions {
    /// Whether drain waits for a removed pod to be gone: not after an eviction that was only a server dry run
    /// (upstream's `evictPods` returns at once). A dry-run delete (`--disable-eviction`) is waited for as any
    /// delete is, and its pod never goes: upstream's `deletePods` waits until `--timeout`.
    fn waits_for_removal(&self) -> bool {
        !(self.eviction && self.dry == DryRun::Server)
    }
}

/// The pods drain waits for on the current node: evicted (waiting for them to go), or refused by a disruption
/// budget and evicted again at the time given (kubectl retries every 5 s); and the errors of those done with one.
struct Draining {
    node: String,
    pods: Vec<(ObjKey, Str, Option<Millis>)>,
    started: Millis,
    /// evictPods' goroutines that ended with an error, in the order they ended.
    errors: Vec<String>,
    /// Whether `--timeout` has been reached (and said).
    timed_out: bool,
}

/// How long kubectl drain waits before it asks again for an eviction a disruption budget refused.
const EVICTION_RETRY: Millis = 5 * SECOND;

/// Why a node could not be drained, as kubectl's error for it: Go's aggregate of errors (`evictPods`, the pods'
/// listing), or one error (`deletePods`, with `--disable-eviction`: an API error keeps its reason).
#[derive(Clone, Debug)]
enum DrainError {
    Errors(Vec<String>),
    One { message: String, reason: Option<&'static str> },
}

impl DrainError {
    /// The error's text (`Error()`: an aggregate of several is `[a, b]`).
    fn text(&self) -> String {
        match self {
            DrainError::Errors(errs) if errs.len() == 1 => errs[0].clone(),
            DrainError::Errors(errs) => format!("[{}]", errs.join(", ")),
            DrainError::One { message, .. } => message.clone(),
        }
    }

    /// How `cmdutil.CheckErr` prints it at the end: `alone` (the only node that failed), an aggregate is each of
    /// its errors on a line of its own; else each node's error is one line (`MultipleErrors`).
    fn checked(&self, alone: bool) -> String {
        match self {
            DrainError::Errors(errs) if alone => errs.join("\n"),
            DrainError::One { message, reason: Some(r) } => format!("Error from server ({r}): {message}"),
            DrainError::One { message, reason: None } if alone => format!("error: {message}"),
            e => e.text(),
        }
    }
}

/// `kubectl drain` after the cordon: node by node, list the pods, evict them, wait until each is gone.
struct Drain {
    opts: DrainOptions,
    queue: VecDeque<String>,
    current: Option<Draining>,
    next_check: Millis,
    failed: Vec<(String, DrainError)>,
    /// What the first pass printed after the cordon lines (kubectl's warning comes after them, so it is handed
    /// out by the first poll rather than with the command's own output).
    pending: Option<FollowPoll>,
}

impl Drain {
    /// Runs until it must wait for pods to go (or is done): the output so far.
    fn advance(&mut self, sim: &mut Sim) -> FollowPoll {
        let mut poll = FollowPoll::default();
        loop {
            if let Some(cur) = &mut self.current {
                // `--timeout` is evictPods' context deadline: looked at once it is reached, whatever the grid.
                let deadline = cur.started.saturating_add(self.opts.timeout);
                let late = self.opts.timeout > 0 && sim.now() >= deadline;
                if sim.now() < self.next_check && (!late || cur.timed_out) {
                    return poll;
                }
                if sim.now() >= self.next_check {
                    self.next_check = sim.now() + SECOND;
                }
                cur.timed_out = late;
                let error = match self.opts.eviction {
                    true => self.evictions(sim, &mut poll),
                    false => self.deletions(sim, &mut poll),
                };
                if error.is_none() && self.current.as_ref().is_some_and(|c| !c.pods.is_empty()) {
                    return poll;
                }
                let Some(cur) = self.current.take() else { continue };
                match error {
                    None if cur.errors.is_empty() => {
                        poll.stdout.push_str(&format!("node/{} drained{}\n", cur.node, self.opts.dry.suffix()));
                    }
                    e => {
                        let err = e.unwrap_or(DrainError::Errors(cur.errors));
                        self.pending_pods(sim, &cur.node, &err, &mut poll);
                        self.fail(&mut poll, cur.node, err);
                    }
                }
            }
            let Some(node) = self.queue.pop_front() else {
                if !self.failed.is_empty() {
                    poll.stderr.push_str("There are pending nodes to be drained:\n");
                    for (n, _) in &self.failed {
                        poll.stderr.push_str(&format!(" {n}\n"));
                    }
                    let alone = self.failed.len() == 1;
                    for (_, e) in &self.failed {
                        poll.stderr.push_str(&e.checked(alone));
                        poll.stderr.push('\n');
                    }
                    poll.code = 1;
                }
                poll.done = true;
                return poll;
            };
            self.start(sim, node, &mut poll);
        }
    }

    /// One look of `evictPods`' goroutines, one for each pod: a refused eviction is asked again when its 5 s are
    /// up (`evicting pod NS/NAME` before every attempt; past the deadline the attempt is not made: `global timeout
    /// reached`); an evicted pod is waited for until it is gone or the deadline (`context deadline exceeded`).
    /// Each pod that ends with an error adds it to the node's; the node ends when every pod has (never an error
    /// of its own).
    fn evictions(&mut self, sim: &mut Sim, poll: &mut FollowPoll) -> Option<DrainError> {
        let cur = self.current.as_mut()?;
        let timeout = crate::time::go_duration_string(self.opts.timeout);
        for (key, uid, retry) in std::mem::take(&mut cur.pods) {
            let (name, ns) = (&key.name, &key.namespace);
            match retry {
                Some(at) if at <= sim.now() => {
                    poll.stdout.push_str(&format!("evicting pod {ns}/{name}{}\n", self.opts.dry.suffix()));
                    if cur.timed_out {
                        cur.errors.push(format!(
                            "error when evicting pods/{name:?} -n {ns:?}: global timeout reached: {timeout}"
                        ));
                        continue;
                    }
                    match remove(&self.opts, sim, &key, &uid) {
                        Removed::Yes if !self.opts.waits_for_removal() => {}
                        Removed::Yes => cur.pods.push((key, uid, None)),
                        Removed::Later(msg) => {
                            poll.stderr.push_str(&msg);
                            cur.pods.push((key, uid, Some(sim.now() + EVICTION_RETRY)));
                        }
                        Removed::Failed(err) => cur.errors.push(err.text()),
                    }
                }
                Some(_) => cur.pods.push((key, uid, retry)),
                None if cur.timed_out => cur.errors.push(format!(
                    "error when waiting for pod {name:?} in namespace {ns:?} to terminate: context deadline exceeded"
                )),
                None if is_gone(sim, Kind::Pod, &key, &uid) => poll.stdout.push_str(&format!("pod/{name} evicted\n")),
                None => cur.pods.push((key, uid, None)),
            }
        }
        None
    }

    /// One look of `deletePods`' wait (`--disable-eviction`): the pods deleted are waited for together until they
    /// are gone, or the deadline, which is the node's error (`context deadline exceeded`).
    fn deletions(&mut self, sim: &mut Sim, poll: &mut FollowPoll) -> Option<DrainError> {
        let cur = self.current.as_mut()?;
        if cur.timed_out {
            return Some(DrainError::One { message: "context deadline exceeded".into(), reason: None });
        }
        for (key, uid, _) in std::mem::take(&mut cur.pods) {
            if is_gone(sim, Kind::Pod, &key, &uid) {
                poll.stdout.push_str(&format!("pod/{} deleted\n", key.name));
            } else {
                cur.pods.push((key, uid, None));
            }
        }
        None
    }

    /// `deleteOrEvictPodsSimple` after an error: the pods still to go, listed again.
    fn pending_pods(&self, sim: &mut Sim, node: &str, err: &DrainError, poll: &mut FollowPoll) {
        let (pods, _, _) = self.pods_to_remove(sim, node);
        if pods.is_empty() {
            return;
        }
        let text = err.text();
        poll.stderr.push_str(&format!("There are pending pods in node {node:?} when an error occurred: {text}\n"));
        for p in pods {
            poll.stderr.push_str(&format!("pod/{}\n", p.meta().name));
        }
    }

    fn fail(&mut self, poll: &mut FollowPoll, node: String, err: DrainError) {
        let text = err.text();
        poll.stderr
            .push_str(&format!("error: unable to drain node {node:?} due to error: {text}, continuing command...\n"));
        self.failed.push((node, err));
    }

    /// The node's pods drain removes (`GetPodsForDeletion`, its filters in order: DaemonSet-managed pods are never
    /// removed, an error unless `--ignore-daemonsets`; pods with emptyDir data need `--delete-emptydir-data`; pods
    /// that declare no controller need `--force`), with the pods each message names: errors, then warnings.
    fn pods_to_remove(&self, sim: &mut Sim, node: &str) -> (Vec<std::rc::Rc<Object>>, Grouped, Grouped) {
        let filter = WatchFilter::NodeName(s(node));
        let (pods, _) = sim.as_user(|api| api.list_filtered(Kind::Pod, None, None, &filter));
        let (mut remove, mut errors, mut warnings) = (Vec::new(), Grouped::default(), Grouped::default());
        for p in pods {
            let Some(pod) = p.as_pod() else { continue };
            let name = format!("{}/{}", pod.metadata.namespace, pod.metadata.name);
            let finished = pod.status.phase.is_terminal();
            let owner = controller_of(&pod.metadata);
            if owner.is_some_and(|o| &*o.kind == "DaemonSet") && !finished {
                let key = ObjKey::new(&pod.metadata.namespace, owner.map_or("", |o| &o.name));
                match sim.as_user(|api| api.get(Kind::DaemonSet, &key)) {
                    Err(e) if e.is_not_found() && self.opts.force => warnings.add(e.to_string(), name),
                    Err(e) => errors.add(e.to_string(), name),
                    Ok(_) if self.opts.ignore_daemonsets => warnings.add(DAEMONSET_WARNING.into(), name),
                    Ok(_) => errors.add(DAEMONSET_FATAL.into(), name),
                }
                continue;
            }
            let local = pod.spec.volumes.iter().any(|v| v.empty_dir.is_some());
            if local && !finished && !self.opts.delete_emptydir_data {
                errors.add(LOCAL_STORAGE_FATAL.into(), name);
                continue;
            }
            if !finished && owner.is_none() {
                if !self.opts.force {
                    errors.add(UNMANAGED_FATAL.into(), name);
                    continue;
                }
                warnings.add(UNMANAGED_WARNING.into(), name);
            } else if local && !finished {
                warnings.add(LOCAL_STORAGE_WARNING.into(), name);
            }
            remove.push(p);
        }
        (remove, errors, warnings)
    }

    /// Lists the node's pods, refuses like kubectl's filters, evicts (or deletes) the rest.
    fn start(&mut self, sim: &mut Sim, node: String, poll: &mut FollowPoll) {
        let (evict, errors, warnings) = self.pods_to_remove(sim, &node);
        if !errors.is_empty() {
            self.fail(poll, node, DrainError::Errors(errors.lines()));
            return;
        }
        if !warnings.is_empty() {
            poll.warnings.push_str(&format!("Warning: {}\n", warnings.lines().join("; ")));
        }
        let (mut waiting, mut errors) = (Vec::new(), Vec::new());
        for p in evict {
            let key = p.key();
            if !self.opts.dry.sends() {
                // deleteOrEvictPodsSimple: a client dry run lists what it would evict, whether it evicts or deletes.
                poll.stdout.push_str(&format!("evicting pod {}/{} (dry run)\n", key.namespace, key.name));
                continue;
            }
            if self.opts.eviction {
                poll.stdout.push_str(&format!(
                    "evicting pod {}/{}{}\n",
                    key.namespace,
                    key.name,
                    self.opts.dry.suffix()
                ));
            }
            let uid = p.meta().uid.clone();
            match remove(&self.opts, sim, &key, &uid) {
                Removed::Yes if !self.opts.waits_for_removal() => {}
                Removed::Yes => waiting.push((key, uid, None)),
                Removed::Later(msg) => {
                    poll.stderr.push_str(&msg);
                    waiting.push((key, uid, Some(sim.now() + EVICTION_RETRY)));
                }
                // deletePods returns at its first error, before it waits for anything.
                Removed::Failed(err) if !self.opts.eviction => {
                    self.pending_pods(sim, &node, &err, poll);
                    self.fail(poll, node, err);
                    return;
                }
                Removed::Failed(err) => errors.push(err.text()),
            }
        }
        if !self.opts.dry.sends() {
            poll.stdout.push_str(&format!("node/{node} drained (dry run)\n"));
            return;
        }
        self.next_check = sim.now();
        self.current = Some(Draining { node, pods: waiting, started: sim.now(), errors, timed_out: false });
    }
}

/// drain's filters' messages (`pkg/drain/filters.go`).
const DAEMONSET_FATAL: &str = "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
const DAEMONSET_WARNING: &str = "ignoring DaemonSet-managed Pods";
const LOCAL_STORAGE_FATAL: &str = "cannot delete Pods with local storage (use --delete-emptydir-data to override)";
const LOCAL_STORAGE_WARNING: &str = "deleting Pods with local storage";
const UNMANAGED_FATAL: &str = "cannot delete Pods that declare no controller (use --force to override)";
const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";

/// Pods by the filter message that names them (`PodDeleteList.errors` and `Warnings`), messages in the order first
/// met (upstream's come from a Go map, in no order).
#[derive(Default)]
struct Grouped(Vec<(String, Vec<String>)>);

impl Grouped {
    fn add(&mut self, message: String, pod: String) {
        match self.0.iter_mut().find(|(m, _)| *m == message) {
            Some((_, pods)) => pods.push(pod),
            None => self.0.push((message, vec![pod])),
        }
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `MESSAGE: ns/a, ns/b`, one per message.
    fn lines(&self) -> Vec<String> {
        self.0.iter().map(|(m, pods)| format!("{m}: {}", pods.join(", "))).collect()
    }
}

/// What asking for a pod's removal gave.
enum Removed {
    /// Evicted or deleted (or already gone): wait for it to go.
    Yes,
    /// 429 TooManyRequests (a disruption budget): kubectl's line, and ask again after [`EVICTION_RETRY`].
    Later(String),
    /// Any other error: the pod's (an eviction's, as evictPods words it), or the node's (a delete's).
    Failed(DrainError),
}

/// `POST pods/NAME/eviction`, or `DELETE` with `--disable-eviction`: both with drain's grace period and the pod's
/// uid as precondition (and `dryRun=All` for a server dry run).
fn remove(drain: &DrainOptions, sim: &mut Sim, key: &ObjKey, uid: &Str) -> Removed {
    let opts =
        DeleteOptions { grace_period_seconds: drain.grace, propagation: None, preconditions_uid: Some(uid.clone()) };
    let eviction = drain.eviction;
    let r = drain.dry.send(sim, |api| if eviction { api.evict(key, &opts) } else { api.delete(Kind::Pod, key, &opts) });
    match r {
        Ok(_) => Removed::Yes,
        Err(e) if e.is_not_found() => Removed::Yes,
        Err(e) if eviction && e.code() == 429 => Removed::Later(format!(
            "error when evicting pods/{:?} -n {:?} (will retry after 5s): {e}\n",
            key.name, key.namespace
        )),
        Err(e) if eviction => Removed::Failed(DrainError::Errors(vec![format!(
            "error when evicting pods/{:?} -n {:?}: {e}",
            key.name, key.namespace
        )])),
        Err(e) => Removed::Failed(DrainError::One { message: e.to_string(), reason: Some(e.reason()) }),
    }
}

impl Follow for Drain {
    fn poll(&mut self, sim: &mut Sim) -> FollowPoll {
        let p = self.advance(sim);
        match self.pending.take() {
            None => p,
            Some(mut first) => {
                first.warnings.push_str(&p.warnings);
                first.stdout.push_str(&p.stdout);
                first.stderr.push_str(&p.stderr);
                first.done = p.done;
                first.code = p.code;
                first
            }
        }
    }

    fn stop(&mut self, _sim: &mut Sim) {
        self.queue.clear();
        self.current = None;
    }

    /// It evicts (or deletes) as it goes; a dry run writes nothing.
    fn writes(&self) -> bool {
        self.opts.dry == DryRun::None
    }

    fn pending(&mut self) -> FollowPoll {
        self.pending.take().unwrap_or_default()
    }
}

fn run_drain(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    dry_run::warned(args, drain(sim, args))
}

fn drain(sim: &mut Sim, args: &Args) -> Result<Output, Output> {
    let grace = match args.int("grace-period") {
        Ok(g) => g.filter(|g| *g >= 0),
        Err(e) => return Err(Output::error(e)),
    };
    let timeout = match args.value("timeout").map(duration).transpose() {
        Ok(t) => t.unwrap_or(0),
        Err(e) => return Err(Output::error(e)),
    };
    let (sel, dry) = nodes(sim, args, "drain")?;
    let opts = DrainOptions {
        force: args.bool("force"),
        ignore_daemonsets: args.bool("ignore-daemonsets"),
        delete_emptydir_data: args.bool("delete-emptydir-data"),
        grace,
        timeout,
        eviction: !args.bool("disable-eviction"),
        dry,
    };
    let mut out = Output::default();
    if !sel.errors.is_empty() {
        // kubectl resolves every node before it cordons any.
        return Ok(sel.error_output());
    }
    cordon_nodes(sim, &sel.items, true, dry, &mut out);
    if out.code != 0 {
        return Ok(out);
    }
    let mut drain = Drain {
        opts,
        queue: sel.items.iter().map(|i| i.key.name.to_string()).collect(),
        current: None,
        next_check: sim.now(),
        failed: Vec::new(),
        pending: None,
    };
    let poll = drain.advance(sim);
    if poll.done {
        out.warnings.push_str(&poll.warnings);
        out.stdout.push_str(&poll.stdout);
        out.stderr.push_str(&poll.stderr);
        out.code = poll.code;
    } else {
        drain.pending = Some(poll);
        out.follow = Some(Box::new(drain));
    }
    Ok(out)
}

// ---- taint ----------------------------------------------------------------------------------------------------

const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// `validation.IsQualifiedName`: an optional DNS-subdomain prefix and `/`, then a name part.
fn qualified_name_errors(key: &str) -> Vec<String> {
    let name_part = |n: &str| {
        !n.is_empty()
            && n.len() <= 63
            && n.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && n.starts_with(|c: char| c.is_ascii_alphanumeric())
            && n.ends_with(|c: char| c.is_ascii_alphanumeric())
    };
    let mut errs = Vec::new();
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".to_string());
    } else if !name_part(name) {
        errs.push("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')".to_string());
    }
    if let Some(p) = prefix {
        let ok = !p.is_empty()
            && p.len() <= 253
            && p.split('.').all(|l| {
                !l.is_empty()
                    && l.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !l.starts_with('-')
                    && !l.ends_with('-')
            });
        if p.is_empty() {
            errs.push("prefix part must be non-empty".to_string());
        } else if !ok {
            errs.push("prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".to_string());
        }
    }
    errs
}

/// `key=value:Effect`, `key:Effect` or `key`.
fn parse_taint(spec: &str) -> Result<Taint, String> {
    let parts: Vec<&str> = spec.split(':').collect();
    let (key, value, effect) = match parts.as_slice() {
        [key] => (*key, "", ""),
        [kv, effect] => {
            if !EFFECTS.contains(effect) {
                return Err(format!("invalid taint effect: {effect}, unsupported taint effect"));
            }
            let kv: Vec<&str> = kv.split('=').collect();
            match kv.as_slice() {
                [k] => (*k, "", *effect),
                [k, v] => {
                    let errs = super::label::label_value_errors(v);
                    if !errs.is_empty() {
                        return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
                    }
                    (*k, *v, *effect)
                }
                _ => return Err(format!("invalid taint spec: {spec}")),
            }
        }
        _ => return Err(format!("invalid taint spec: {spec}")),
    };
    let errs = qualified_name_errors(key);
    if !errs.is_empty() {
        return Err(format!("invalid taint spec: {spec}, {}", errs.join("; ")));
    }
    Ok(Taint { key: s(key), value: s(value), effect: s(effect), time_added: None })
}

fn taint_string(t: &Taint) -> String {
    let mut out = t.key.to_string();
    if !t.value.is_empty() {
        out.push('=');
        out.push_str(&t.value);
    }
    if !t.effect.is_empty() {
        out.push(':');
        out.push_str(&t.effect);
    }
    out
}

fn usage_error(msg: String) -> Result<Output, Output> {
    Err(Output::error(format!("{msg}\nSee 'kubectl taint -h' for help and examples")))
}

fn run_taint(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    let dry = DryRun::of(args)?;
    dry_run::warned(args, taint(sim, args, dry))
}

fn taint(sim: &mut Sim, args: &Args, dry: DryRun) -> Result<Output, Output> {
    let mut resources = Vec::new();
    let mut specs = Vec::new();
    for w in &args.positional {
        let is_taint = w.contains('=') || w.contains(':') || w.ends_with('-');
        match (specs.is_empty(), is_taint) {
            (_, true) => specs.push(w.clone()),
            (true, false) => resources.push(w.clone()),
            (false, false) => {
                return Err(Output::error(format!("all resources must be specified before taint changes: {w}")))
            }
        }
    }
    if resources.is_empty() {
        return Err(Output::error("one or more resources must be specified as <resource> <name>"));
    }
    if specs.is_empty() {
        return Err(Output::error("at least one taint update is required"));
    }
    let mut add: Vec<Taint> = Vec::new();
    let mut remove: Vec<Taint> = Vec::new();
    for spec in &specs {
        if let Some(body) = spec.strip_suffix('-') {
            match parse_taint(body) {
                Ok(t) => remove.push(t),
                Err(e) => return usage_error(e),
            }
        } else {
            let t = match parse_taint(spec) {
                Ok(t) => t,
                Err(e) => return usage_error(e),
            };
            if t.effect.is_empty() {
                return usage_error(format!("invalid taint spec: {spec}"));
            }
            if add.iter().any(|a| a.key == t.key && a.effect == t.effect) {
                return usage_error(format!(
                    "duplicated taints with the same key and effect: {{{} {} {} <nil>}}",
                    t.key, t.value, t.effect
                ));
            }
            add.push(t);
        }
    }
    match kind_of(&resources[0]) {
        Ok(Kind::Node) => {}
        Ok(_) => {
            return Err(Output::error(format!(
                "invalid resource type {}, only node types are supported",
                resources[0].to_ascii_lowercase()
            )))
        }
        Err(e) => return Err(Output::error(e)),
    }
    let conflicts: Vec<String> = remove
        .iter()
        .filter(|r| add.iter().any(|a| a.key == r.key && (r.effect.is_empty() || a.effect == r.effect)))
        .map(|r| format!("{}={}", r.key, r.effect))
        .collect();
    if !conflicts.is_empty() {
        return Err(Output::error(format!(
            "can not both modify and remove the following taint(s) in the same command: {}",
            conflicts.join(", ")
        )));
    }
    let all = args.bool("all");
    let has_selector = args.value("selector").is_some_and(|s| !s.is_empty());
    if all && has_selector {
        return Err(Output::error("setting 'all' parameter with a non empty selector is prohibited"));
    }
    if !all && !has_selector && resources.len() < 2 {
        return Err(Output::error("at least one resource name must be specified since 'all' parameter is not set"));
    }
    let sel = select(sim, args, &resources, true)?;
    let overwrite = args.bool("overwrite");
    let mut out = Output::default();
    for item in &sel.items {
        let Some(Object::Node(node)) = item.obj.as_deref() else { continue };
        let old = &node.spec.taints;
        if !overwrite {
            let exists: Vec<&str> = add
                .iter()
                .filter(|t| old.iter().any(|o| o.key == t.key && o.effect == t.effect))
                .map(|t| &*t.key)
                .collect();
            if !exists.is_empty() {
                out.push(Output::error(format!(
                    "node {} already has {} taint(s) with same effect(s) and --overwrite is false",
                    item.key.name,
                    exists.join(",")
                )));
                continue;
            }
        }
        // reorganizeTaints: the new taints, then the old ones not replaced, minus the removed ones.
        let mut next: Vec<Taint> = add.clone();
        for o in old {
            if !next.iter().any(|t| t.key == o.key && t.effect == o.effect) {
                next.push(o.clone());
            }
        }
        let added = old.len() != next.len();
        let mut errors = Vec::new();
        let mut deleted = false;
        for r in &remove {
            let before = next.len();
            next.retain(|t| !(t.key == r.key && (r.effect.is_empty() || t.effect == r.effect)));
            deleted = next.len() != before;
            if !deleted {
                errors.push(format!("taint {:?} not found", taint_string(r)));
            }
        }
        if !errors.is_empty() {
            let msg = if errors.len() == 1 { errors[0].clone() } else { format!("[{}]", errors.join(", ")) };
            out.push(Output::error(msg));
            continue;
        }
        let verb = if (added && deleted) || overwrite {
            "modified"
        } else if added {
            "tainted"
        } else {
            "untainted"
        };
        if !dry.sends() {
            out.stdout.push_str(&format!("node/{} {verb} (dry run)\n", item.key.name));
            continue;
        }
        let now = sim.now();
        let res = dry.send(sim, |api| {
            api.patch(Kind::Node, &item.key, Subresource::Main, |o| {
                if let Object::Node(n) = o {
                    // The API server stamps timeAdded on NoExecute taints.
                    for t in &mut next {
                        if &*t.effect == "NoExecute" && t.time_added.is_none() {
                            t.time_added = Some(crate::api::Time(now));
                        }
                    }
                    n.spec.taints = next;
                }
            })
        });
        match res {
            Ok(_) => out.stdout.push_str(&format!("node/{} {verb}{}\n", item.key.name, dry.suffix())),
            Err(e) => {
                out.push(Output { stderr: format!("{}\n", server_error_line(&e)), code: 1, ..Default::default() })
            }
        }
    }
    out.push(sel.error_output());
    Ok(out)
}
