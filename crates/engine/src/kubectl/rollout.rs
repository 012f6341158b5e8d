//! `kubectl rollout status|history|undo|restart|pause|resume` for Deployments, as kubectl's rollout commands and
//! polymorphichelpers do them: status messages of `DeploymentStatusViewer`, history from the ReplicaSets'
//! revision annotations, a client-side rollback that copies a ReplicaSet's template back into the Deployment,
//! and the restart / pause / resume patches. Every read and write is an API call under the user's client.

use std::fmt::Write as _;
use std::rc::Rc;

use super::args::{switch, value, Args, Flag};
use super::dry_run::{self, DryRun};
use super::resource::{self, Targets};
use super::{Command, Follow, FollowPoll, Input, Output};
use crate::api::{
    controller_of, s, DaemonSet, Deployment, Kind, LabelSelector, ObjKey, Object, PodTemplateSpec, ReplicaSet,
};
use crate::controllers::deployment::{equal_ignore_hash, POD_TEMPLATE_HASH, REVISION};
use crate::sim::Sim;
use crate::store::{ApiError, Subresource};
use crate::time::{rfc3339, Millis};
use crate::vecmap::VecMap;

pub const COMMAND: Command = Command {
    name: "rollout",
    summary: "Manage the rollout of a resource",
    usage: "kubectl rollout SUBCOMMAND",
    flags: FLAGS,
    run,
};

const FLAGS: &[Flag] = &[
    switch("watch", Some('w')),
    value("revision", None),
    value("timeout", None),
    value("to-revision", None),
    value("selector", Some('l')),
    dry_run::FLAG,
];

/// The annotation `kubectl rollout history` shows as CHANGE-CAUSE.
pub const CHANGE_CAUSE: &str = "kubernetes.io/change-cause";
/// The template annotation `kubectl rollout restart` sets.
pub const RESTARTED_AT: &str = "kubectl.kubernetes.io/restartedAt";

const SUBCOMMANDS: &[(&str, &str, &[&str])] = &[
    ("history", "View rollout history", &["revision", "selector"]),
    ("pause", "Mark the provided resource as paused", &["selector"]),
    ("restart", "Restart a resource", &["selector"]),
    ("resume", "Resume a paused resource", &["selector"]),
    ("status", "Show the status of the rollout", &["watch", "revision", "timeout", "selector"]),
    ("undo", "Undo a previous rollout", &["to-revision", "selector", "dry-run"]),
];

fn help() -> String {
    let mut out = String::from(
        "Manage the rollout of one or many resources.\n\n Valid resource types include:\n\n  *  deployments\n\nAvailable Commands:\n",
    );
    for (name, summary, _) in SUBCOMMANDS {
        let _ = writeln!(out, "  {name:<9} {summary}");
    }
    out.push_str("\nUsage:\n  kubectl rollout SUBCOMMAND [options]\n");
    out
}

fn run(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    let Some(sub) = args.positional.first() else { return Ok(Output::ok(help())) };
    let Some((_, _, allowed)) = SUBCOMMANDS.iter().find(|(n, _, _)| n == sub) else {
        return Err(Output::error(format!(
            "unknown command [\"{sub}\"]\nSee 'kubectl rollout -h' for help and examples"
        )));
    };
    for f in FLAGS {
        if args.has(f.long) && !allowed.contains(&f.long) {
            return Err(Output::error(format!(
                "unknown flag: --{}\nSee 'kubectl rollout {sub} --help' for usage.",
                f.long
            )));
        }
    }
    let rest = &args.positional[1..];
    match sub.as_str() {
        "status" => status(sim, args, rest),
        "history" => history(sim, args, rest),
        "undo" => {
            let dry = DryRun::of(args)?;
            dry_run::warned(args, undo(sim, args, rest, dry))
        }
        "restart" => patch_each(sim, args, rest, Patch::Restart),
        "pause" => patch_each(sim, args, rest, Patch::Pause),
        "resume" => patch_each(sim, args, rest, Patch::Resume),
        _ => Ok(Output::ok(help())),
    }
}

/// `schema.GroupKind.String()`: `Pod`, `ReplicaSet.apps`.
fn group_kind(kind: Kind) -> String {
    let g = resource::resource(kind).group;
    if g.is_empty() {
        kind.name().to_string()
    } else {
        format!("{}.{g}", kind.name())
    }
}

/// `deployments.apps`, as the rollout commands name a resource in their errors.
fn resource_string(kind: Kind) -> String {
    let g = resource::resource(kind).group;
    if g.is_empty() {
        kind.plural().to_string()
    } else {
        format!("{}.{g}", kind.plural())
    }
}

/// The objects the arguments name, read through the API (kubectl's resource builder): `TYPE NAME...`,
/// `TYPE/NAME...`, `TYPE` (every object of the type), or `TYPE -l selector`. Errors come back as output.
fn objects(sim: &mut Sim, args: &Args, rest: &[String]) -> Result<Vec<Rc<Object>>, Output> {
    if rest.is_empty() {
        return Err(Output::error("required resource not specified"));
    }
    let ns = super::namespace(args);
    let selector = match args.value("selector") {
        Some(sel) => Some(crate::api::selector::parse_selector(sel).map_err(Output::error)?),
        None => None,
    };
    let named: Vec<(Kind, String)> = match resource::targets(rest).map_err(Output::error)? {
        Targets::ByName(v) => v,
        Targets::ByType { kinds, names } if names.is_empty() => {
            let mut out = Vec::new();
            for kind in kinds {
                let namespace = kind.namespaced().then_some(ns.as_str());
                let (items, _) = sim.as_user(|api| api.list(kind, namespace, selector.as_ref()));
                out.extend(items);
            }
            return Ok(out);
        }
        Targets::ByType { kinds, names } => {
            kinds.iter().flat_map(|k| names.iter().map(move |n| (*k, n.clone()))).collect()
        }
    };
    if selector.is_some() {
        return Err(Output::error("name cannot be provided when a selector is specified"));
    }
    let mut out = Vec::new();
    for (kind, name) in named {
        let key = if kind.namespaced() { ObjKey::new(&ns, &name) } else { ObjKey::cluster(&name) };
        match sim.as_user(|api| api.get(kind, &key)) {
            Ok(o) => out.push(o),
            Err(e) => return Err(Output::api_error(&e)),
        }
    }
    Ok(out)
}

fn no_resources(args: &Args) -> Result<Output, Output> {
    Ok(Output {
        stderr: format!("No resources found in {} namespace.\n", super::namespace(args)),
        ..Default::default()
    })
}

fn revision_flag(args: &Args, long: &str) -> Result<i64, Output> {
    args.int(long).map(|v| v.unwrap_or(0)).map_err(Output::error)
}

// ---- status ------------------------------------------------------------------------------------------------

/// `DeploymentStatusViewer.Status`: the message, whether the rollout is done, or an error.
pub fn deployment_status(d: &Deployment, revision: i64) -> Result<(String, bool), String> {
    let name = &d.metadata.name;
    if revision > 0 {
        let current: i64 = d.metadata.annotation(REVISION).and_then(|r| r.parse().ok()).unwrap_or(0);
        if revision != current {
            return Err(format!("desired revision ({revision}) is different from the running revision ({current})"));
        }
    }
    if d.metadata.generation > d.status.observed_generation {
        return Ok(("Waiting for deployment spec update to be observed...\n".into(), false));
    }
    if d.condition("Progressing").is_some_and(|c| &*c.reason == "ProgressDeadlineExceeded") {
        return Err(format!("deployment \"{name}\" exceeded its progress deadline"));
    }
    let st = &d.status;
    let want = d.spec.replicas.unwrap_or(1);
    if st.updated_replicas < want {
        return Ok((
            format!(
                "Waiting for deployment \"{name}\" rollout to finish: {} out of {want} new replicas have been updated...\n",
                st.updated_replicas
            ),
            false,
        ));
    }
    if st.replicas > st.updated_replicas {
        return Ok((
            format!(
                "Waiting for deployment \"{name}\" rollout to finish: {} old replicas are pending termination...\n",
                st.replicas - st.updated_replicas
            ),
            false,
        ));
    }
    if st.available_replicas < st.updated_replicas {
        return Ok((
            format!(
                "Waiting for deployment \"{name}\" rollout to finish: {} of {} updated replicas are available...\n",
                st.available_replicas, st.updated_replicas
            ),
            false,
        ));
    }
    Ok((format!("deployment \"{name}\" successfully rolled out\n"), true))
}

/// `DaemonSetStatusViewer.Status`: only for RollingUpdate; waits for every node's pod to be updated, then
/// available.
pub fn daemonset_status(d: &DaemonSet) -> Result<(String, bool), String> {
    if !d.rolling() {
        return Err("rollout status is only available for RollingUpdate strategy type".into());
    }
    if d.metadata.generation > d.status.observed_generation {
        return Ok(("Waiting for daemon set spec update to be observed...\n".into(), false));
    }
    let (name, st) = (&d.metadata.name, &d.status);
    if st.updated_number_scheduled < st.desired_number_scheduled {
        let msg = format!(
            "Waiting for daemon set \"{name}\" rollout to finish: {} out of {} new pods have been updated...\n",
            st.updated_number_scheduled, st.desired_number_scheduled
        );
        return Ok((msg, false));
    }
    if st.number_available < st.desired_number_scheduled {
        let msg = format!(
            "Waiting for daemon set \"{name}\" rollout to finish: {} of {} updated pods are available...\n",
            st.number_available, st.desired_number_scheduled
        );
        return Ok((msg, false));
    }
    Ok((format!("daemon set \"{name}\" successfully rolled out\n"), true))
}

/// `StatefulSetStatusViewer.Status`: only for RollingUpdate; waits for the spec to be observed, every pod to be
/// ready, then the partition's pods (or, without a rollingUpdate, every pod) to be at the update revision.
pub fn statefulset_status(s: &crate::api::StatefulSet) -> Result<(String, bool), String> {
    if !s.rolling() {
        return Err("rollout status is only available for RollingUpdate strategy type".into());
    }
    let st = &s.status;
    if st.observed_generation == 0 || s.metadata.generation > st.observed_generation {
        return Ok(("Waiting for statefulset spec update to be observed...\n".into(), false));
    }
    let replicas = s.replicas();
    if st.ready_replicas < replicas {
        return Ok((format!("Waiting for {} pods to be ready...\n", replicas - st.ready_replicas), false));
    }
    if let Some(ru) = &s.spec.update_strategy.rolling_update {
        if let Some(partition) = ru.partition {
            if st.updated_replicas < replicas - partition {
                let msg = format!(
                    "Waiting for partitioned roll out to finish: {} out of {} new pods have been updated...\n",
                    st.updated_replicas,
                    replicas - partition
                );
                return Ok((msg, false));
            }
        }
        return Ok((
            format!("partitioned roll out complete: {} new pods have been updated...\n", st.updated_replicas),
            true,
        ));
    }
    if st.update_revision != st.current_revision {
        let msg = format!(
            "waiting for statefulset rolling update to complete {} pods at revision {}...\n",
            st.updated_replicas, st.update_revision
        );
        return Ok((msg, false));
    }
    let msg = format!(
        "statefulset rolling update complete {} pods at revision {}...\n",
        st.current_replicas, st.current_revision
    );
    Ok((msg, true))
}

/// The status viewer of an object's kind (`StatusViewerFor`): Deployments, DaemonSets and StatefulSets.
fn status_of(o: &Object, revision: i64) -> Result<(String, bool), String> {
    match o {
        Object::Deployment(d) => deployment_status(d, revision),
        Object::DaemonSet(d) => daemonset_status(d),
        Object::StatefulSet(s) => statefulset_status(s),
        other => Err(format!("no status viewer has been implemented for {}", group_kind(other.kind()))),
    }
}

/// `rollout status` with `--watch`: re-reads each object in turn as time passes.
struct StatusFollow {
    keys: Vec<(Kind, ObjKey)>,
    at: usize,
    revision: i64,
    last: Option<String>,
    deadline: Option<Millis>,
}

impl StatusFollow {
    /// One look at the current Deployment (and the next ones, once it is done).
    fn step(&mut self, sim: &mut Sim) -> FollowPoll {
        let mut out = FollowPoll::default();
        while let Some((kind, key)) = self.keys.get(self.at).cloned() {
            let d = match sim.as_user(|api| api.get(kind, &key)) {
                Ok(o) => o,
                Err(e) if e.is_not_found() => return finish(out, "error: object has been deleted\n", 1),
                Err(e) => return finish(out, &format!("{}\n", super::api_error_line(&e)), 1),
            };
            match status_of(&d, self.revision) {
                Err(e) => return finish(out, &format!("error: {e}\n"), 1),
                Ok((msg, done)) => {
                    if self.last.as_deref() != Some(msg.as_str()) {
                        out.stdout.push_str(&msg);
                        self.last = Some(msg);
                    }
                    if !done {
                        if self.deadline.is_some_and(|t| sim.now() >= t) {
                            return finish(out, "error: timed out waiting for the condition\n", 1);
                        }
                        return out;
                    }
                    self.at += 1;
                    self.last = None;
                }
            }
        }
        out.done = true;
        out
    }
}

fn finish(mut out: FollowPoll, stderr: &str, code: i32) -> FollowPoll {
    out.stderr.push_str(stderr);
    out.done = true;
    out.code = code;
    out
}

impl Follow for StatusFollow {
    fn poll(&mut self, sim: &mut Sim) -> FollowPoll {
        self.step(sim)
    }
    fn stop(&mut self, _: &mut Sim) {
        self.at = self.keys.len();
    }
}

fn status(sim: &mut Sim, args: &Args, rest: &[String]) -> Result<Output, Output> {
    let revision = revision_flag(args, "revision")?;
    if revision < 0 {
        return Err(Output::error(format!("revision must be a positive integer: {revision}")));
    }
    let timeout = match args.value("timeout") {
        None => 0,
        // A Go duration flag; zero (and a negative duration) means never.
        Some(t) => match crate::time::parse_go_duration(t) {
            Ok(ns) => crate::time::go_duration_millis(ns),
            Err(e) => {
                return Err(Output::error(format!(
                    "invalid argument \"{}\" for \"--timeout\" flag: {e}",
                    crate::limits::echo(t)
                )))
            }
        },
    };
    let objs = objects(sim, args, rest)?;
    if objs.is_empty() {
        return no_resources(args);
    }
    if let Some(o) = objs.iter().find(|o| !matches!(o.kind(), Kind::Deployment | Kind::DaemonSet | Kind::StatefulSet)) {
        return Err(Output::error(format!("no status viewer has been implemented for {}", group_kind(o.kind()))));
    }
    let keys: Vec<(Kind, ObjKey)> = objs.iter().map(|o| (o.kind(), o.key())).collect();
    let watch = args.value("watch") != Some("false");
    if !watch {
        let mut out = Output::default();
        for o in &objs {
            match status_of(o, revision) {
                Ok((msg, _)) => out.stdout.push_str(&msg),
                Err(e) => {
                    out.push(Output::error(e));
                    return Ok(out);
                }
            }
        }
        return Ok(out);
    }
    let deadline = (timeout > 0).then(|| sim.now().saturating_add(timeout));
    let mut follow = StatusFollow { keys, at: 0, revision, last: None, deadline };
    let first = follow.step(sim);
    let mut out =
        Output { warnings: first.warnings, stdout: first.stdout, stderr: first.stderr, code: first.code, follow: None };
    if !first.done {
        out.follow = Some(Box::new(follow));
    }
    Ok(out)
}

// ---- history -----------------------------------------------------------------------------------------------

/// The Deployment's ReplicaSets by revision (`deploymentutil.GetAllReplicaSets`: those it controls), read with a
/// LIST by the Deployment's selector.
fn replica_sets_by_revision(sim: &mut Sim, d: &Deployment) -> VecMap<i64, ReplicaSet> {
    let selector: LabelSelector = d.spec.selector.clone();
    let ns = d.metadata.namespace.to_string();
    let (items, _) = sim.as_user(|api| api.list(Kind::ReplicaSet, Some(&ns), Some(&selector)));
    let mut out = VecMap::new();
    for o in items {
        let Some(rs) = o.as_replicaset() else { continue };
        if controller_of(&rs.metadata).is_none_or(|r| r.uid != d.metadata.uid) {
            continue;
        }
        let Some(rev) = rs.metadata.annotation(REVISION).and_then(|r| r.parse::<i64>().ok()) else { continue };
        out.insert(rev, rs.clone());
    }
    out
}

fn history(sim: &mut Sim, args: &Args, rest: &[String]) -> Result<Output, Output> {
    let revision = revision_flag(args, "revision")?;
    if revision < 0 {
        return Err(Output::error(format!("revision must be a positive integer: {revision}")));
    }
    each_deployment(sim, args, rest, "history viewer", |sim, _, d, out| {
        let name = format!("{}/{}", Kind::Deployment.resource_ref(), d.metadata.name);
        let rss = replica_sets_by_revision(sim, d);
        let mut templates: VecMap<i64, PodTemplateSpec> = VecMap::new();
        for (rev, rs) in rss.iter() {
            let mut t = PodTemplateSpec::clone(&rs.spec.template);
            if let Some(cause) = rs.metadata.annotation(CHANGE_CAUSE).filter(|c| !c.is_empty()) {
                t.metadata.annotations.insert(s(CHANGE_CAUSE), s(cause));
            }
            templates.insert(*rev, t);
        }
        let info = if templates.is_empty() {
            "No rollout history found.".to_string()
        } else if revision > 0 {
            let t = templates.get(&revision).ok_or("unable to find the specified revision")?;
            describe_template(t)
        } else {
            // tabbedString: a tabwriter with padding 2 and no minimum width.
            let width = templates.iter().map(|(r, _)| r.to_string().len()).max().unwrap_or(0).max("REVISION".len()) + 2;
            let mut t = format!("{:width$}CHANGE-CAUSE\n", "REVISION");
            for (rev, tpl) in templates.iter() {
                let cause = tpl.metadata.annotation(CHANGE_CAUSE).unwrap_or("<none>");
                let _ = writeln!(t, "{:width$}{cause}", rev.to_string());
            }
            t
        };
        let with = if revision > 0 { format!("with revision #{revision}") } else { String::new() };
        let _ = writeln!(out.stdout, "{name} {with}\n{info}");
        Ok(())
    })
}

/// The Deployments the command names, each handed to `f` with the output so far. An object of another kind ends
/// the command with kubectl's `no WHAT has been implemented for "KIND"`, and an error of `f` ends it with that error;
/// what was printed before stays.
fn each_deployment(
    sim: &mut Sim,
    args: &Args,
    rest: &[String],
    what: &str,
    mut f: impl FnMut(&mut Sim, &Object, &Deployment, &mut Output) -> Result<(), String>,
) -> Result<Output, Output> {
    let objs = objects(sim, args, rest)?;
    if objs.is_empty() {
        return no_resources(args);
    }
    let mut out = Output::default();
    for o in objs {
        let result = match o.as_deployment() {
            Some(d) => f(sim, &o, d, &mut out),
            None => Err(format!("no {what} has been implemented for \"{}\"", group_kind(o.kind()))),
        };
        if let Err(e) = result {
            out.push(Output::error(e));
            return Ok(out);
        }
    }
    Ok(out)
}

/// `describe.DescribePodTemplate`, as `rollout history --revision` prints it.
pub fn describe_template(t: &PodTemplateSpec) -> String {
    let mut w = String::from("Pod Template:\n");
    multiline(&mut w, "  Labels", t.metadata.labels.iter().map(|(k, v)| format!("{k}={v}")));
    let annotations: Vec<String> = t
        .metadata
        .annotations
        .iter()
        .filter(|(k, _)| &***k != super::LAST_APPLIED)
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    if !t.metadata.annotations.is_empty() {
        multiline(&mut w, "  Annotations", annotations.into_iter());
    }
    let spec = &t.spec;
    let none = if spec.containers.is_empty() { " <none>" } else { "" };
    let _ = writeln!(w, "  Containers:{none}");
    for c in &spec.containers {
        let _ = writeln!(w, "   {}:", c.name);
        let _ = writeln!(w, "    Image:\t{}", c.image);
        let port = |host: bool| {
            c.ports
                .iter()
                .map(|p| {
                    let proto = if p.protocol.is_empty() { "TCP" } else { &p.protocol };
                    let n = if host { 0 } else { p.container_port };
                    match p.name.is_empty() {
                        true => format!("{n}/{proto}"),
                        false => format!("{n}/{proto} ({})", p.name),
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        for (label, plural, text) in [("Port", "Ports", port(false)), ("Host Port", "Host Ports", port(true))] {
            if text.contains(',') {
                let _ = writeln!(w, "    {plural}:\t{text}");
            } else {
                let _ = writeln!(w, "    {label}:\t{}", if text.is_empty() { "<none>" } else { &text });
            }
        }
        for (title, words) in [("Command", &c.command), ("Args", &c.args)] {
            if !words.is_empty() {
                let _ = writeln!(w, "    {title}:");
                for word in words.iter() {
                    for line in word.split('\n') {
                        let _ = writeln!(w, "      {line}");
                    }
                }
            }
        }
        for (title, list) in [("Limits", &c.resources.limits), ("Requests", &c.resources.requests)] {
            if !list.is_empty() {
                let _ = writeln!(w, "    {title}:");
                for (k, q) in list {
                    let _ = writeln!(w, "      {k}:\t{}", q.as_str());
                }
            }
        }
        w.push_str("    Environment:\t<none>\n    Mounts:\t<none>\n");
    }
    w.push_str("  Volumes:\t<none>\n");
    multiline(&mut w, "  Node-Selectors", spec.node_selector.iter().map(|(k, v)| format!("{k}={v}")));
    let mut tolerations = spec.tolerations.clone();
    crate::sort::sort_by(&mut tolerations, |a, b| a.key.cmp(&b.key));
    multiline(
        &mut w,
        "  Tolerations",
        tolerations.iter().map(|t| {
            let mut x = t.key.to_string();
            if !t.value.is_empty() {
                let _ = write!(x, "={}", t.value);
            }
            if !t.effect.is_empty() {
                let _ = write!(x, ":{}", t.effect);
            }
            if &*t.operator == "Exists" && t.value.is_empty() {
                x.push_str(if t.key.is_empty() && t.effect.is_empty() { "op=Exists" } else { " op=Exists" });
            }
            if let Some(secs) = t.toleration_seconds {
                let _ = write!(x, " for {secs}s");
            }
            x
        }),
    );
    w
}

/// `printLabelsMultiline`: `Title:\tfirst` then `\tnext` lines, or `<none>`.
fn multiline(w: &mut String, title: &str, items: impl Iterator<Item = String>) {
    w.push_str(title);
    w.push_str(":\t");
    let mut any = false;
    for (i, item) in items.enumerate() {
        if i > 0 {
            w.push('\t');
        }
        w.push_str(&item);
        w.push('\n');
        any = true;
    }
    if !any {
        w.push_str("<none>\n");
    }
}

// ---- undo --------------------------------------------------------------------------------------------------

/// Annotations a rollback keeps from the Deployment rather than copying from the ReplicaSet.
const ANNOTATIONS_TO_SKIP: &[&str] = &[
    super::LAST_APPLIED,
    REVISION,
    "deployment.kubernetes.io/revision-history",
    "deployment.kubernetes.io/desired-replicas",
    "deployment.kubernetes.io/max-replicas",
    "deprecated.deployment.rollback.to",
];

fn undo(sim: &mut Sim, args: &Args, rest: &[String], dry: DryRun) -> Result<Output, Output> {
    let to = revision_flag(args, "to-revision")?;
    each_deployment(sim, args, rest, "rollbacker", |sim, o, d, out| {
        let name = d.metadata.name.to_string();
        let result = rollback(sim, &o.key(), to, dry)?;
        let _ = writeln!(out.stdout, "{}/{name} {result}{}", Kind::Deployment.resource_ref(), dry.suffix());
        Ok(())
    })
}

/// `DeploymentRollbacker.Rollback`: the message on success (`rolled back`, or why it was skipped; for a client dry
/// run, the pod template it would roll back to, as `printTemplate` describes it).
fn rollback(sim: &mut Sim, key: &ObjKey, to: i64, dry: DryRun) -> Result<String, String> {
    if to < 0 {
        return Err(format!("unable to find specified revision {to} in history"));
    }
    let name = &key.name;
    let live = sim
        .as_user(|api| api.get(Kind::Deployment, key))
        .map_err(|e| format!("failed to retrieve Deployment {name}: {}", super::api_error_line(&e)))?;
    let Some(d) = live.as_deployment() else { return Err("not a deployment".into()) };
    let rss = replica_sets_by_revision(sim, d);
    let target = if to > 0 {
        rss.get(&to).ok_or_else(|| format!("unable to find specified revision {to} in history"))?
    } else {
        // The second newest revision.
        let mut revs = rss.iter().rev();
        let _latest = revs.next();
        revs.next().map(|(_, rs)| rs).ok_or_else(|| format!("no rollout history found for deployment \"{name}\""))?
    };
    if !dry.sends() {
        return Ok(describe_template(&target.spec.template));
    }
    let rev = target.metadata.annotation(REVISION).unwrap_or("0").to_string();
    if d.spec.paused {
        return Err(
            "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"
                .into(),
        );
    }
    if equal_ignore_hash(&target.spec.template, &d.spec.template) {
        return Ok(format!("skipped rollback (current template already matches revision {rev})"));
    }
    let mut template = target.spec.template.clone();
    template.metadata.labels.remove(POD_TEMPLATE_HASH);
    let mut annotations = crate::api::Labels::new();
    for k in ANNOTATIONS_TO_SKIP {
        if let Some(v) = d.metadata.annotations.get(k) {
            annotations.insert(s(k), v.clone());
        }
    }
    for (k, v) in &target.metadata.annotations {
        if !ANNOTATIONS_TO_SKIP.contains(&&**k) {
            annotations.insert(k.clone(), v.clone());
        }
    }
    dry.send(sim, |api| {
        api.patch(Kind::Deployment, key, Subresource::Main, |o| {
            if let Object::Deployment(d) = o {
                d.spec.template = template;
                d.metadata.annotations = annotations;
            }
        })
    })
    .map_err(|e| format!("failed restoring revision {to}: {}", super::api_error_line(&e)))?;
    Ok("rolled back".into())
}

// ---- restart, pause, resume --------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Eq)]
enum Patch {
    Restart,
    Pause,
    Resume,
}

fn patch_each(sim: &mut Sim, args: &Args, rest: &[String], action: Patch) -> Result<Output, Output> {
    let objs = objects(sim, args, rest)?;
    if objs.is_empty() {
        return no_resources(args);
    }
    let now = rfc3339(sim.now());
    let mut out = Output::default();
    for o in objs {
        let name = o.meta().name.to_string();
        let prefix = format!("{} \"{name}\"", resource_string(o.kind()));
        let template = match (&*o, action) {
            (Object::Deployment(d), _) => &d.spec.template,
            (Object::DaemonSet(d), Patch::Restart) => &d.spec.template,
            (Object::StatefulSet(s), Patch::Restart) => &s.spec.template,
            _ => {
                let what = match action {
                    Patch::Restart => "restarting",
                    Patch::Pause => "pausing",
                    Patch::Resume => "resuming",
                };
                out.push(Output::error(format!("{prefix} {what} is not supported")));
                continue;
            }
        };
        let paused = o.as_deployment().is_some_and(|d| d.spec.paused);
        let problem = match action {
            Patch::Restart if paused => Some("can't restart paused deployment (run rollout resume first)"),
            Patch::Pause if paused => Some("is already paused"),
            Patch::Resume if !paused => Some("is not paused"),
            _ => None,
        };
        if let Some(p) = problem {
            out.push(Output::error(format!("{prefix} {p}")));
            continue;
        }
        if action == Patch::Restart && template.metadata.annotation(RESTARTED_AT) == Some(now.as_str()) {
            out.push(Output::error(format!("failed to create patch for {name}: if restart has already been triggered within the past second, please wait before attempting to trigger another")));
            continue;
        }
        let stamp = now.clone();
        let kind = o.kind();
        let result = sim.as_user(|api| {
            api.patch(kind, &o.key(), Subresource::Main, |obj| match (obj, action) {
                (Object::Deployment(d), Patch::Pause) => d.spec.paused = true,
                (Object::Deployment(d), Patch::Resume) => d.spec.paused = false,
                (Object::Deployment(d), Patch::Restart) => {
                    d.spec.template.metadata.annotations.insert(s(RESTARTED_AT), s(&stamp));
                }
                (Object::DaemonSet(d), Patch::Restart) => {
                    d.spec.template.metadata.annotations.insert(s(RESTARTED_AT), s(&stamp));
                }
                (Object::StatefulSet(st), Patch::Restart) => {
                    st.spec.template.metadata.annotations.insert(s(RESTARTED_AT), s(&stamp));
                }
                _ => {}
            })
        });
        match result {
            Ok(_) => {
                let verb = match action {
                    Patch::Restart => "restarted",
                    Patch::Pause => "paused",
                    Patch::Resume => "resumed",
                };
                let _ = writeln!(out.stdout, "{}/{name} {verb}", kind.resource_ref());
            }
            Err(e) => out.push(Output::error(format!("failed to patch: {}", patch_error(&e)))),
        }
    }
    Ok(out)
}

fn patch_error(e: &ApiError) -> String {
    e.to_string()
}
