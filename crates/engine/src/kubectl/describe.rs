//! `kubectl describe`: the describers of k8s.io/kubectl pkg/describe for the kinds kubeloop serves, with their
//! labels, indentation and order, laid out by a Go `text/tabwriter` (minimum width 0, padding 2), and the
//! object's Events at the bottom. Fields kubeloop does not model are left out; where upstream prints `<none>` or
//! `<unset>` for an empty field, so does this.

use crate::manifest::ObjectText;
use std::rc::Rc;

use serde_json::Value;

use super::args::{switch, value, Args, Flag};
use super::get::printers::{event_interval, event_time, format_labels, node_roles, since};
use super::resource::{targets, Targets};
use super::{api_error_line, namespace, Command, Input, Output};
use crate::api::selector::parse_selector;
use crate::api::{
    controller_of, ConfigMap, Container, ContainerStatus, Deployment, EndpointSlice, Event, IntOrString, Kind, Labels,
    Namespace, Node, ObjKey, Object, ObjectMeta, Pod, PodSpec, PodTemplateSpec, Quantity, ReplicaSet, Secret, Service,
    ServiceAccount, ServiceEndpoints, Str, Taint, Time, Toleration,
};
use crate::client::Api;
use crate::time::{rfc3339, Millis, EPOCH_UNIX_SECONDS};

mod containers;
mod writer;
use containers::*;
#[cfg(test)]
use writer::tabwrite;
use writer::Writer;

const FLAGS: &[Flag] =
    &[switch("all-namespaces", Some('A')), value("selector", Some('l')), switch("show-events", None)];

pub const COMMAND: Command = Command {
    name: "describe",
    summary: "Show details of a specific resource or group of resources",
    usage: "kubectl describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME) [options]",
    flags: FLAGS,
    run,
};

fn run(sim: &mut crate::sim::Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    let targets = targets(&args.positional).map_err(Output::error)?;
    if matches!(&targets, Targets::ByType { kinds, .. } if kinds.is_empty()) {
        return Err(Output::error(
            "You must specify the type of resource to describe. Use \"kubectl api-resources\" for a complete list of supported resources.",
        ));
    }
    let selector = match args.value("selector") {
        None => None,
        Some(s) => match parse_selector(s) {
            Ok(sel) => Some(sel),
            Err(e) => return Err(Output::error(e)),
        },
    };
    let all_ns = args.bool("all-namespaces");
    let ns = namespace(args);
    let show_events = args.value("show-events") != Some("false");
    let now = sim.now();
    Ok(sim.as_user(|api| {
        let mut objects: Vec<Rc<Object>> = Vec::new();
        let mut errors: Vec<String> = Vec::new();
        let key =
            |kind: Kind, name: &str| if kind.namespaced() { ObjKey::new(&ns, name) } else { ObjKey::cluster(name) };
        let mut by_name = |api: &mut Api, kind: Kind, name: &str, prefix: bool| match api.get(kind, &key(kind, name)) {
            Ok(o) => objects.push(o),
            Err(e) => {
                // `describe TYPE NAME_PREFIX`: every object whose name starts with the prefix.
                if prefix && e.is_not_found() {
                    let scope = if kind.namespaced() { Some(ns.as_str()) } else { None };
                    let (all, _) = api.list(kind, scope, None);
                    let found: Vec<Rc<Object>> = all.into_iter().filter(|o| o.meta().name.starts_with(name)).collect();
                    if !found.is_empty() {
                        objects.extend(found);
                        return;
                    }
                }
                errors.push(api_error_line(&e));
            }
        };
        let mut listed_kinds: Vec<Kind> = Vec::new();
        match &targets {
            Targets::ByType { kinds, names } if names.is_empty() => {
                for &kind in kinds {
                    let scope = if all_ns || !kind.namespaced() { None } else { Some(ns.as_str()) };
                    let (objs, _) = api.list(kind, scope, selector.as_ref());
                    objects.extend(objs);
                    listed_kinds.push(kind);
                }
            }
            Targets::ByType { kinds, names } => {
                for &kind in kinds {
                    for n in names {
                        by_name(api, kind, n, true);
                    }
                }
            }
            Targets::ByName(pairs) => {
                for (kind, n) in pairs {
                    by_name(api, *kind, n, false);
                }
            }
        }
        let mut out = Output::default();
        let mut budget = super::Budget::new();
        for o in &objects {
            if budget.full() {
                budget.skip();
                continue;
            }
            let text = describe(api, o, now, show_events);
            if budget.take(text.len() + 2) {
                if !out.stdout.is_empty() {
                    out.stdout.push_str("\n\n");
                }
                out.stdout.push_str(&text);
            }
        }
        out.stderr.push_str(&budget.note());
        for e in &errors {
            out.stderr.push_str(e);
            out.stderr.push('\n');
        }
        out.code = i32::from(!errors.is_empty());
        if objects.is_empty() && errors.is_empty() {
            if !all_ns && listed_kinds.iter().all(|k| k.namespaced()) {
                out.stderr = format!("No resources found in {ns} namespace.\n");
            } else {
                out.stderr = "No resources found\n".into();
            }
        }
        out
    }))
}

/// The describer of one object.
fn describe(api: &mut Api, obj: &Object, now: Millis, show_events: bool) -> String {
    let events = if show_events { Some(events_for(api, obj)) } else { None };
    let mut w = Writer::default();
    match obj {
        Object::Pod(p) => describe_pod(&mut w, p, now),
        Object::Node(n) => describe_node(api, &mut w, n, now),
        Object::Deployment(d) => describe_deployment(api, &mut w, d),
        Object::ReplicaSet(r) => describe_replicaset(api, &mut w, r),
        Object::DaemonSet(d) => describe_daemonset(api, &mut w, d),
        Object::StatefulSet(s) => describe_statefulset(api, &mut w, s),
        Object::Job(j) => describe_job(&mut w, j),
        Object::CronJob(c) => describe_cronjob(&mut w, c),
        Object::Namespace(n) => {
            describe_namespace(&mut w, n);
            return w.finish();
        }
        Object::ConfigMap(c) => describe_configmap(&mut w, c),
        Object::Secret(s) => {
            // describeSecret prints no events.
            describe_secret(&mut w, s);
            return w.finish();
        }
        Object::ServiceAccount(sa) => describe_serviceaccount(api, &mut w, sa),
        Object::Service(svc) => describe_service(api, &mut w, svc),
        Object::EndpointSlice(_) => describe_generic(&mut w, obj),
        Object::PodDisruptionBudget(p) => describe_pdb(&mut w, p),
        Object::Lease(_) | Object::Event(_) => describe_generic(&mut w, obj),
        Object::Stored(o) => {
            describe_stored(&mut w, o, now);
            if !o.kind.info().stored.is_some_and(|s| s.events) {
                return w.finish();
            }
        }
    }
    if let Some(evs) = events {
        describe_events(&mut w, &evs, now);
    }
    w.finish()
}

// ---- shared pieces -------------------------------------------------------------------------------------------

/// `time.RFC1123Z` of a simulated instant: `Thu, 01 Jan 2026 00:00:00 +0000`.
pub(crate) fn rfc1123z(t: Millis) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let stamp = rfc3339(t); // 2026-01-01T00:00:00Z
    let days = (EPOCH_UNIX_SECONDS + (t / 1000) as i64).div_euclid(86_400);
    let weekday = DAYS[days.rem_euclid(7) as usize];
    let month = stamp.get(5..7).and_then(|m| m.parse::<usize>().ok()).unwrap_or(1);
    format!(
        "{weekday}, {} {} {} {} +0000",
        stamp.get(8..10).unwrap_or("01"),
        MONTHS[(month.clamp(1, 12)) - 1],
        stamp.get(0..4).unwrap_or("2026"),
        stamp.get(11..19).unwrap_or("00:00:00")
    )
}

/// A `metav1.Time` as describe prints it; Go's zero time when unset.
fn time_or_zero(t: Option<Time>) -> String {
    match t {
        Some(t) => rfc1123z(t.0),
        None => "Mon, 01 Jan 0001 00:00:00 +0000".into(),
    }
}

/// `printLabelsMultilineWithIndent`.
fn labels_multiline(w: &mut Writer, indent: &str, title: &str, labels: &Labels) {
    w.write(0, &format!("{indent}{title}:\t"));
    if labels.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    for (i, (k, v)) in labels.iter().enumerate() {
        if i > 0 {
            w.write(0, &format!("{indent}\t"));
        }
        w.write(0, &format!("{k}={v}\n"));
    }
}

const MAX_ANNOTATION_LEN: usize = 140;

/// `printAnnotationsMultilineWithIndent`: the last-applied configuration is skipped, long values wrap.
fn annotations_multiline(w: &mut Writer, indent: &str, title: &str, annotations: &Labels) {
    w.write(0, &format!("{indent}{title}:\t"));
    let keys: Vec<_> = annotations.iter().filter(|(k, _)| &***k != super::LAST_APPLIED).collect();
    if keys.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    for (i, (k, v)) in keys.iter().enumerate() {
        if i > 0 {
            w.write(0, &format!("{indent}\t"));
        }
        let v = v.strip_suffix('\n').unwrap_or(v);
        if v.len() + k.len() + 2 > MAX_ANNOTATION_LEN || v.contains('\n') {
            w.write(0, &format!("{k}:\n"));
            for line in v.split('\n') {
                let short: String = if line.chars().count() > MAX_ANNOTATION_LEN - 2 {
                    line.chars().take(MAX_ANNOTATION_LEN - 5).collect::<String>() + "..."
                } else {
                    line.to_string()
                };
                w.write(0, &format!("{indent}\t  {short}\n"));
            }
        } else {
            w.write(0, &format!("{k}: {v}\n"));
        }
    }
}

fn taint_string(t: &Taint) -> String {
    if t.value.is_empty() {
        format!("{}:{}", t.key, t.effect)
    } else {
        format!("{}={}:{}", t.key, t.value, t.effect)
    }
}

/// `printTaintsMultilineWithIndent`.
fn taints_multiline(w: &mut Writer, title: &str, taints: &[Taint]) {
    w.write(0, &format!("{title}:\t"));
    if taints.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    for (i, t) in taints.iter().enumerate() {
        if i > 0 {
            w.write(0, "\t");
        }
        w.write(0, &format!("{}\n", taint_string(t)));
    }
}

/// `printTolerationsMultilineWithIndent`.
fn tolerations_multiline(w: &mut Writer, indent: &str, title: &str, tolerations: &[Toleration]) {
    w.write(0, &format!("{indent}{title}:\t"));
    if tolerations.is_empty() {
        w.write(0, "<none>\n");
        return;
    }
    let mut sorted: Vec<&Toleration> = tolerations.iter().collect();
    crate::sort::sort_by(&mut sorted, |a, b| a.key.cmp(&b.key));
    for (i, t) in sorted.iter().enumerate() {
        if i > 0 {
            w.write(0, &format!("{indent}\t"));
        }
        let mut s = t.key.to_string();
        if !t.value.is_empty() {
            s.push_str(&format!("={}", t.value));
        }
        if !t.effect.is_empty() {
            s.push_str(&format!(":{}", t.effect));
        }
        if &*t.operator == "Exists" && t.value.is_empty() {
            if !t.key.is_empty() || !t.effect.is_empty() {
                s.push_str(" op=Exists");
            } else {
                s.push_str("op=Exists");
            }
        }
        if let Some(secs) = t.toleration_seconds {
            s.push_str(&format!(" for {secs}s"));
        }
        w.write(0, &format!("{s}\n"));
    }
}

/// `Kind/name` of the controller (`Controlled By:`).
fn controlled_by(obj_meta: &crate::api::ObjectMeta) -> Option<String> {
    controller_of(obj_meta).map(|r| format!("{}/{}", r.kind, r.name))
}

fn quantity_string(q: &Quantity, resource: &str) -> String {
    if resource == "cpu" {
        Quantity::from_cpu_millis(q.milli()).as_str().to_string()
    } else {
        q.as_str().to_string()
    }
}

// ---- the describers ------------------------------------------------------------------------------------------

fn describe_pod(w: &mut Writer, p: &Pod, now: Millis) {
    let m = &p.metadata;
    w.write(0, &format!("Name:\t{}\n", m.name));
    w.write(0, &format!("Namespace:\t{}\n", m.namespace));
    if let Some(prio) = p.spec.priority {
        w.write(0, &format!("Priority:\t{prio}\n"));
    }
    if p.spec.node_name.is_empty() {
        w.write(0, "Node:\t<none>\n");
    } else {
        w.write(0, &format!("Node:\t{}/{}\n", p.spec.node_name, p.status.host_ip));
    }
    if let Some(t) = p.status.start_time {
        w.write(0, &format!("Start Time:\t{}\n", rfc1123z(t.0)));
    }
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
    match m.deletion_timestamp {
        Some(del) if !p.status.phase.is_terminal() => {
            let lasts = crate::time::Age(del.0.saturating_sub(now));
            w.write(0, &format!("Status:\tTerminating (lasts {lasts})\n"));
            if let Some(g) = m.deletion_grace_period_seconds {
                w.write(0, &format!("Termination Grace Period:\t{g}s\n"));
            }
        }
        _ => w.write(0, &format!("Status:\t{}\n", p.status.phase.as_str())),
    }
    if !p.status.reason.is_empty() {
        w.write(0, &format!("Reason:\t{}\n", p.status.reason));
    }
    if !p.status.message.is_empty() {
        w.write(0, &format!("Message:\t{}\n", p.status.message));
    }
    w.write(0, &format!("IP:\t{}\n", p.status.pod_ip));
    if p.status.pod_ip.is_empty() {
        w.write(0, "IPs:\t<none>\n");
    } else {
        w.write(0, "IPs:\n");
        w.write(1, &format!("IP:\t{}\n", p.status.pod_ip));
    }
    if let Some(c) = controlled_by(m) {
        w.write(0, &format!("Controlled By:\t{c}\n"));
    }
    describe_containers(w, "Containers", &p.spec.containers, &p.status.container_statuses, "");
    if !p.status.conditions.is_empty() {
        w.write(0, "Conditions:\n  Type\tStatus\n");
        for c in &p.status.conditions {
            w.write(1, &format!("{} \t{} \n", c.type_, c.status));
        }
    }
    describe_volumes(w, "", &p.spec.volumes);
    w.write(0, &format!("QoS Class:\t{}\n", qos_class(&p.spec)));
    labels_multiline(w, "", "Node-Selectors", &p.spec.node_selector);
    tolerations_multiline(w, "", "Tolerations", &p.spec.tolerations);
}

fn describe_deployment(api: &mut Api, w: &mut Writer, d: &Deployment) {
    let m = &d.metadata;
    w.write(0, &format!("Name:\t{}\n", m.name));
    w.write(0, &format!("Namespace:\t{}\n", m.namespace));
    w.write(0, &format!("CreationTimestamp:\t{}\n", time_or_zero(m.creation_timestamp)));
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
    w.write(0, &format!("Selector:\t{}\n", d.spec.selector));
    let st = &d.status;
    w.write(
        0,
        &format!(
            "Replicas:\t{} desired | {} updated | {} total | {} available | {} unavailable\n",
            d.replicas(),
            st.updated_replicas,
            st.replicas,
            st.available_replicas,
            st.unavailable_replicas
        ),
    );
    let strategy = if d.spec.strategy.type_.is_empty() { "RollingUpdate" } else { &d.spec.strategy.type_ };
    w.write(0, &format!("StrategyType:\t{strategy}\n"));
    w.write(0, &format!("MinReadySeconds:\t{}\n", d.spec.min_ready_seconds));
    if let Some(ru) = &d.spec.strategy.rolling_update {
        let s = |v: &Option<crate::api::IntOrString>| match v {
            Some(crate::api::IntOrString::Int(i)) => i.to_string(),
            Some(crate::api::IntOrString::String(s)) => s.to_string(),
            None => "25%".into(),
        };
        w.write(
            0,
            &format!(
                "RollingUpdateStrategy:\t{} max unavailable, {} max surge\n",
                s(&ru.max_unavailable),
                s(&ru.max_surge)
            ),
        );
    }
    describe_pod_template(w, &d.spec.template);
    if !st.conditions.is_empty() {
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n");
        w.write(1, "----\t------\t------\n");
        for c in &st.conditions {
            w.write(1, &format!("{} \t{}\t{}\n", c.type_, c.status, c.reason));
        }
    }
    // deploymentutil.GetAllReplicaSets: the ReplicaSets this Deployment controls, the new one being the one whose
    // template equals the Deployment's (ignoring pod-template-hash).
    let (rss, _) = api.list(Kind::ReplicaSet, Some(&m.namespace), None);
    let mut old: Vec<&ReplicaSet> = Vec::new();
    let mut new: Vec<&ReplicaSet> = Vec::new();
    for o in &rss {
        let Some(rs) = o.as_replicaset() else { continue };
        if controller_of(&rs.metadata).is_none_or(|r| r.uid != m.uid) {
            continue;
        }
        let mut labels = rs.spec.template.metadata.labels.clone();
        labels.remove("pod-template-hash");
        let same = labels == d.spec.template.metadata.labels && rs.spec.template.spec == d.spec.template.spec;
        if same && new.is_empty() {
            new.push(rs);
        } else if rs.replicas() != 0 {
            old.push(rs);
        }
    }
    let list = |v: &[&ReplicaSet]| {
        if v.is_empty() {
            return "<none>".to_string();
        }
        v.iter()
            .map(|rs| format!("{} ({}/{} replicas created)", rs.metadata.name, rs.status.replicas, rs.replicas()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    w.write(0, &format!("OldReplicaSets:\t{}\n", list(&old)));
    w.write(0, &format!("NewReplicaSet:\t{}\n", list(&new)));
}

fn describe_replicaset(api: &mut Api, w: &mut Writer, r: &ReplicaSet) {
    let m = &r.metadata;
    w.write(0, &format!("Name:\t{}\n", m.name));
    w.write(0, &format!("Namespace:\t{}\n", m.namespace));
    w.write(0, &format!("Selector:\t{}\n", r.spec.selector));
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
    if let Some(c) = controlled_by(m) {
        w.write(0, &format!("Controlled By:\t{c}\n"));
    }
    w.write(0, &format!("Replicas:\t{} current / {} desired\n", r.status.replicas, r.replicas()));
    pods_status(api, w, &m.namespace, &r.spec.selector, &m.uid);
    describe_pod_template(w, &r.spec.template);
}

/// `getPodStatusForController`'s line: the phases of the pods the selector matches that `uid` controls.
fn pods_status(api: &mut Api, w: &mut Writer, namespace: &str, selector: &crate::api::LabelSelector, uid: &str) {
    let (pods, _) = api.list(Kind::Pod, Some(namespace), Some(selector));
    let (mut running, mut waiting, mut succeeded, mut failed) = (0, 0, 0, 0);
    for o in &pods {
        let Some(p) = o.as_pod() else { continue };
        if controller_of(&p.metadata).is_none_or(|c| &*c.uid != uid) {
            continue;
        }
        match p.status.phase {
            crate::api::PodPhase::Running => running += 1,
            crate::api::PodPhase::Pending => waiting += 1,
            crate::api::PodPhase::Succeeded => succeeded += 1,
            crate::api::PodPhase::Failed => failed += 1,
            crate::api::PodPhase::Unknown => {}
        }
    }
    w.write(
        0,
        &format!("Pods Status:\t{running} Running / {waiting} Waiting / {succeeded} Succeeded / {failed} Failed\n"),
    );
}

/// `describeDaemonSet`.
fn describe_daemonset(api: &mut Api, w: &mut Writer, d: &crate::api::DaemonSet) {
    let m = &d.metadata;
    w.write(0, &format!("Name:\t{}\n", m.name));
    w.write(0, &format!("Namespace:\t{}\n", m.namespace));
    w.write(0, &format!("Selector:\t{}\n", d.spec.selector));
    w.write(0, &format!("Node-Selector:\t{}\n", format_labels(&d.spec.template.spec.node_selector)));
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
    let st = &d.status;
    w.write(0, &format!("Desired Number of Nodes Scheduled: {}\n", st.desired_number_scheduled));
    w.write(0, &format!("Current Number of Nodes Scheduled: {}\n", st.current_number_scheduled));
    w.write(0, &format!("Number of Nodes Scheduled with Up-to-date Pods: {}\n", st.updated_number_scheduled));
    w.write(0, &format!("Number of Nodes Scheduled with Available Pods: {}\n", st.number_available));
    w.write(0, &format!("Number of Nodes Misscheduled: {}\n", st.number_misscheduled));
    pods_status(api, w, &m.namespace, &d.spec.selector, &m.uid);
    describe_pod_template(w, &d.spec.template);
}

/// `describeJob`.
fn describe_job(w: &mut Writer, j: &crate::api::Job) {
    let (m, spec, st) = (&j.metadata, &j.spec, &j.status);
    w.write(0, &format!("Name:\t{}\n", m.name));
    w.write(0, &format!("Namespace:\t{}\n", m.namespace));
    w.write(0, &format!("Selector:\t{}\n", j.selector()));
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
    if let Some(c) = controlled_by(m) {
        w.write(0, &format!("Controlled By:\t{c}\n"));
    }
    if let Some(p) = spec.parallelism {
        w.write(0, &format!("Parallelism:\t{p}\n"));
    }
    match spec.completions {
        Some(c) => w.write(0, &format!("Completions:\t{c}\n")),
        None => w.write(0, "Completions:\t<unset>\n"),
    }
    let optional = [
        ("Completion Mode", spec.completion_mode.as_deref().map(str::to_string)),
        ("Suspend", spec.suspend.map(|v| v.to_string())),
        ("Backoff Limit", spec.backoff_limit.map(|v| v.to_string())),
        ("TTL Seconds After Finished", spec.ttl_seconds_after_finished.map(|v| v.to_string())),
        ("Start Time", st.start_time.map(|t| rfc1123z(t.0))),
        ("Completed At", st.completion_time.map(|t| rfc1123z(t.0))),
    ];
    for (title, value) in optional {
        if let Some(v) = value {
            w.write(0, &format!("{title}:\t{v}\n"));
        }
    }
    if let (Some(start), Some(end)) = (st.start_time, st.completion_time) {
        let took = crate::time::Age(end.0.saturating_sub(start.0));
        w.write(0, &format!("Duration:\t{took}\n"));
    }
    if let Some(d) = spec.active_deadline_seconds {
        w.write(0, &format!("Active Deadline Seconds:\t{d}s\n"));
    }
    let (a, s, f) = (st.active, st.succeeded, st.failed);
    match st.ready {
        None => w.write(0, &format!("Pods Statuses:\t{a} Active / {s} Succeeded / {f} Failed\n")),
        Some(r) => w.write(0, &format!("Pods Statuses:\t{a} Active ({r} Ready) / {s} Succeeded / {f} Failed\n")),
    }
    if j.is_indexed() {
        w.write(0, &format!("Completed Indexes:\t{}\n", cap_indexes(&st.completed_indexes, 50)));
    }
    describe_pod_template(w, &spec.template);
}

/// `describeCronJob`: the schedule and its policies, the job template (`describeJobTemplate`), the last schedule
/// time and the active Jobs.
fn describe_cronjob(w: &mut Writer, c: &crate::api::CronJob) {
    let (m, spec) = (&c.metadata, &c.spec);
    let unset = |v: Option<String>| v.unwrap_or_else(|| "<unset>".into());
    w.write(0, &format!("Name:\t{}\n", m.name));
    w.write(0, &format!("Namespace:\t{}\n", m.namespace));
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
    w.write(0, &format!("Schedule:\t{}\n", spec.schedule));
    if let Some(tz) = &spec.time_zone {
        w.write(0, &format!("Time Zone:\t{tz}\n"));
    }
    w.write(0, &format!("Concurrency Policy:\t{}\n", spec.concurrency_policy.as_deref().unwrap_or("")));
    w.write(0, &format!("Suspend:\t{}\n", unset(spec.suspend.map(|b| if b { "True" } else { "False" }.into()))));
    let limits = [
        ("Successful Job History Limit", spec.successful_jobs_history_limit),
        ("Failed Job History Limit", spec.failed_jobs_history_limit),
    ];
    for (title, v) in limits {
        w.write(0, &format!("{title}:\t{}\n", unset(v.map(|v| v.to_string()))));
    }
    let deadline = spec.starting_deadline_seconds.map(|d| format!("{d}s"));
    w.write(0, &format!("Starting Deadline Seconds:\t{}\n", unset(deadline)));
    let t = &spec.job_template.spec;
    w.write(0, &format!("Selector:\t{}\n", unset(t.selector.as_ref().map(|s| s.to_string()))));
    w.write(0, &format!("Parallelism:\t{}\n", unset(t.parallelism.map(|v| v.to_string()))));
    w.write(0, &format!("Completions:\t{}\n", unset(t.completions.map(|v| v.to_string()))));
    if let Some(d) = t.active_deadline_seconds {
        w.write(0, &format!("Active Deadline Seconds:\t{d}s\n"));
    }
    describe_pod_template(w, &t.template);
    let last = c.status.last_schedule_time.map(|t| rfc1123z(t.0));
    w.write(0, &format!("Last Schedule Time:\t{}\n", unset(last)));
    let active: Vec<&str> = c.status.active.iter().map(|r| &*r.name).collect();
    let active = if active.is_empty() { "<none>".to_string() } else { active.join(", ") };
    w.write(0, &format!("Active Jobs:\t{active}\n"));
}

/// `capIndexesListOrNone`: `<none>`, or the list cut at the first comma from `soft_limit` on, with `...`.
fn cap_indexes(indexes: &str, soft_limit: usize) -> String {
    if indexes.is_empty() {
        return "<none>".into();
    }
    match indexes.as_bytes().iter().skip(soft_limit).position(|b| *b == b',') {
        Some(i) => format!("{}...", &indexes[..soft_limit + i + 1]),
        None => indexes.to_string(),
    }
}

/// `describeStatefulSet`, with its `describeVolumeClaimTemplates`.
fn describe_statefulset(api: &mut Api, w: &mut Writer, s: &crate::api::StatefulSet) {
    let m = &s.metadata;
    w.write(0, &format!("Name:\t{}\n", m.name));
    w.write(0, &format!("Namespace:\t{}\n", m.namespace));
    w.write(0, &format!("CreationTimestamp:\t{}\n", time_or_zero(m.creation_timestamp)));
    w.write(0, &format!("Selector:\t{}\n", s.spec.selector));
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
    w.write(0, &format!("Replicas:\t{} desired | {} total\n", s.replicas(), s.status.replicas));
    w.write(0, &format!("Update Strategy:\t{}\n", s.spec.update_strategy.type_));
    if let Some(partition) = s.spec.update_strategy.rolling_update.as_ref().and_then(|r| r.partition) {
        w.write(1, &format!("Partition:\t{partition}\n"));
        if let Some(m) = s.spec.update_strategy.rolling_update.as_ref().and_then(|r| r.max_unavailable.as_ref()) {
            w.write(1, &format!("MaxUnavailable:\t{m}\n"));
        }
    }
    pods_status(api, w, &m.namespace, &s.spec.selector, &m.uid);
    describe_pod_template(w, &s.spec.template);
    if s.spec.volume_claim_templates.is_empty() {
        w.write(0, "Volume Claims:\t<none>\n");
        return;
    }
    w.write(0, "Volume Claims:\n");
    for c in &s.spec.volume_claim_templates {
        let text = |path: &[&str]| {
            let mut v = c.spec.get(path[0]);
            for step in &path[1..] {
                v = v.and_then(|v| v.get(step));
            }
            v.and_then(Value::as_str).map(str::to_string)
        };
        w.write(1, &format!("Name:\t{}\n", c.metadata.name));
        w.write(1, &format!("StorageClass:\t{}\n", text(&["storageClassName"]).unwrap_or_default()));
        labels_multiline(w, "  ", "Labels", &c.metadata.labels);
        labels_multiline(w, "  ", "Annotations", &c.metadata.annotations);
        let capacity = text(&["resources", "requests", "storage"]).unwrap_or_else(|| "<default>".into());
        w.write(1, &format!("Capacity:\t{capacity}\n"));
        let modes = c.spec.get("accessModes").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let modes: Vec<&str> = modes.iter().filter_map(Value::as_str).collect();
        w.write(1, &format!("Access Modes:\t[{}]\n", modes.join(" ")));
    }
}

fn describe_node(api: &mut Api, w: &mut Writer, n: &Node, now: Millis) {
    let m = &n.metadata;
    w.write(0, &format!("Name:\t{}\n", m.name));
    let roles = node_roles(n);
    w.write(0, &format!("Roles:\t{}\n", if roles.is_empty() { "<none>".into() } else { roles.join(",") }));
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
    w.write(0, &format!("CreationTimestamp:\t{}\n", time_or_zero(m.creation_timestamp)));
    taints_multiline(w, "Taints", &n.spec.taints);
    w.write(0, &format!("Unschedulable:\t{}\n", n.spec.unschedulable));
    if let Ok(o) = api.get(Kind::Lease, &ObjKey::new("kube-node-lease", &m.name)) {
        if let Some(l) = o.as_lease() {
            let unset = |t: Option<Time>| t.map_or("<unset>".to_string(), |t| rfc1123z(t.0));
            w.write(0, "Lease:\n");
            let holder = if l.spec.holder_identity.is_empty() { "<unset>" } else { &l.spec.holder_identity };
            w.write(1, &format!("HolderIdentity:\t{holder}\n"));
            w.write(1, &format!("AcquireTime:\t{}\n", unset(l.spec.acquire_time)));
            w.write(1, &format!("RenewTime:\t{}\n", unset(l.spec.renew_time)));
        }
    }
    if !n.status.conditions.is_empty() {
        w.write(0, "Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n");
        w.write(1, "----\t------\t-----------------\t------------------\t------\t-------\n");
        for c in &n.status.conditions {
            w.write(
                1,
                &format!(
                    "{} \t{} \t{} \t{} \t{} \t{}\n",
                    c.type_,
                    c.status,
                    time_or_zero(c.last_heartbeat_time),
                    time_or_zero(c.last_transition_time),
                    c.reason,
                    c.message
                ),
            );
        }
    }
    w.write(0, "Addresses:\n");
    for a in &n.status.addresses {
        w.write(1, &format!("{}:\t{}\n", a.type_, a.address));
    }
    for (title, list) in [("Capacity", &n.status.capacity), ("Allocatable", &n.status.allocatable)] {
        if list.is_empty() {
            continue;
        }
        w.write(0, &format!("{title}:\n"));
        for (name, q) in sorted_resources(list) {
            w.write(0, &format!("  {name}:\t{}\n", quantity_string(q, name)));
        }
    }
    if let Some(info) = &n.status.node_info {
        w.write(0, "System Info:\n");
        w.write(0, &format!("  OS Image:\t{}\n", info.os_image));
        w.write(0, &format!("  Operating System:\t{}\n", info.operating_system));
        w.write(0, &format!("  Architecture:\t{}\n", info.architecture));
        w.write(0, &format!("  Container Runtime Version:\t{}\n", info.container_runtime_version));
        w.write(0, &format!("  Kubelet Version:\t{}\n", info.kubelet_version));
    }
    if !n.spec.pod_cidr.is_empty() {
        w.write(0, &format!("PodCIDR:\t{}\n", n.spec.pod_cidr));
        w.write(0, &format!("PodCIDRs:\t{}\n", n.spec.pod_cidr));
    }
    // Non-terminated pods on the node (upstream: a field-selected LIST).
    let (pods, _) = api.list(Kind::Pod, None, None);
    let pods: Vec<&Pod> = pods
        .iter()
        .filter_map(|o| o.as_pod())
        .filter(|p| p.spec.node_name == m.name && !p.status.phase.is_terminal())
        .collect();
    let alloc = if n.status.allocatable.is_empty() { &n.status.capacity } else { &n.status.allocatable };
    let alloc_cpu = alloc.get("cpu").map_or(0, |q| q.milli());
    let alloc_mem = alloc.get("memory").map_or(0, |q| q.value());
    let pct = |v: i64, total: i64| if total == 0 { 0 } else { (v as f64 / total as f64 * 100.0) as i64 };
    let cpu = |m: i64| Quantity::from_cpu_millis(m).as_str().to_string();
    let mem = |b: i64| Quantity::from_memory_bytes(b).as_str().to_string();
    let limit = |p: &Pod, r: &str| -> i64 {
        p.spec
            .containers
            .iter()
            .filter_map(|c| c.resources.limits.get(r))
            .map(|q| if r == "cpu" { q.milli() } else { q.value() })
            .fold(0i64, i64::saturating_add)
    };
    w.write(0, &format!("Non-terminated Pods:\t({} in total)\n", pods.len()));
    w.write(1, "Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge\n");
    w.write(1, "---------\t----\t\t------------\t----------\t---------------\t-------------\t---\n");
    let (mut creq, mut clim, mut mreq, mut mlim) = (0, 0, 0, 0);
    for p in &pods {
        let (cr, cl, mr, ml) = (p.request("cpu"), limit(p, "cpu"), p.request("memory"), limit(p, "memory"));
        // Saturated: a huge request must not wrap the node's total (upstream sums Quantities exactly).
        creq = i64::saturating_add(creq, cr);
        clim = i64::saturating_add(clim, cl);
        mreq = i64::saturating_add(mreq, mr);
        mlim = i64::saturating_add(mlim, ml);
        w.write(
            1,
            &format!(
                "{}\t{}\t\t{} ({}%)\t{} ({}%)\t{} ({}%)\t{} ({}%)\t{}\n",
                p.metadata.namespace,
                p.metadata.name,
                cpu(cr),
                pct(cr, alloc_cpu),
                cpu(cl),
                pct(cl, alloc_cpu),
                mem(mr),
                pct(mr, alloc_mem),
                mem(ml),
                pct(ml, alloc_mem),
                since(p.metadata.creation_timestamp, now)
            ),
        );
    }
    w.write(0, "Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n");
    w.write(1, "Resource\tRequests\tLimits\n");
    w.write(1, "--------\t--------\t------\n");
    w.write(1, &format!("cpu\t{} ({}%)\t{} ({}%)\n", cpu(creq), pct(creq, alloc_cpu), cpu(clim), pct(clim, alloc_cpu)));
    w.write(
        1,
        &format!("memory\t{} ({}%)\t{} ({}%)\n", mem(mreq), pct(mreq, alloc_mem), mem(mlim), pct(mlim, alloc_mem)),
    );
}

fn describe_namespace(w: &mut Writer, n: &Namespace) {
    w.write(0, &format!("Name:\t{}\n", n.metadata.name));
    labels_multiline(w, "", "Labels", &n.metadata.labels);
    annotations_multiline(w, "", "Annotations", &n.metadata.annotations);
    w.write(0, &format!("Status:\t{}\n", n.status.phase));
    if !n.status.conditions.is_empty() {
        w.write(0, "Conditions:\n");
        w.write(1, "Type\tStatus\tLastTransitionTime\tReason\tMessage\n");
        w.write(1, "----\t------\t------------------\t------\t-------\n");
        for c in &n.status.conditions {
            // metav1.Time's zero value formats as Go's zero time.
            let at =
                c.last_transition_time.map_or_else(|| "Mon, 01 Jan 0001 00:00:00 +0000".to_string(), |t| rfc1123z(t.0));
            w.write(1, &format!("{}\t{}\t{at}\t{}\t{}\n", c.type_, c.status, c.reason, c.message));
        }
    }
    w.write(0, "\nNo resource quota.\n");
    w.write(0, "\nNo LimitRange resource.\n");
}

/// The head every describer of a namespaced object starts with.
fn name_namespace_labels(w: &mut Writer, m: &ObjectMeta) {
    w.write(0, &format!("Name:\t{}\n", m.name));
    w.write(0, &format!("Namespace:\t{}\n", m.namespace));
    labels_multiline(w, "", "Labels", &m.labels);
    annotations_multiline(w, "", "Annotations", &m.annotations);
}

/// `ConfigMapDescriber`: each data value whole, each binary value by its size (keys in order).
fn describe_configmap(w: &mut Writer, c: &ConfigMap) {
    name_namespace_labels(w, &c.metadata);
    w.write(0, "\nData\n====\n");
    for (k, v) in &c.data {
        w.write(0, &format!("{k}:\n----\n"));
        w.write(0, &format!("{v}\n"));
        w.write(0, "\n");
    }
    w.write(0, "\nBinaryData\n====\n");
    for (k, v) in &c.binary_data {
        w.write(0, &format!("{k}: {} bytes\n", decoded_len(v)));
    }
    w.write(0, "\n");
}

/// The number of bytes base64 text stands for.
fn decoded_len(b64: &str) -> usize {
    crate::api::config::base64_decode(b64).map_or(0, |b| b.len())
}

/// `SecretDescriber`: the type, and each value's size only (a service account token's is shown).
fn describe_secret(w: &mut Writer, s: &Secret) {
    name_namespace_labels(w, &s.metadata);
    w.write(0, &format!("\nType:\t{}\n", s.type_));
    w.write(0, "\nData\n====\n");
    for (k, v) in &s.data {
        if &**k == "token" && &*s.type_ == "kubernetes.io/service-account-token" {
            let token = crate::api::config::base64_decode(v).unwrap_or_default();
            w.write(0, &format!("{k}:\t{}\n", String::from_utf8_lossy(&token)));
        } else {
            w.write(0, &format!("{k}:\t{} bytes\n", decoded_len(v)));
        }
    }
}

/// `ServiceAccountDescriber`: its image pull secrets and mountable secrets (each marked when it does not exist)
/// and its token Secrets (none: since 1.24 no controller creates them).
fn describe_serviceaccount(api: &mut Api, w: &mut Writer, sa: &ServiceAccount) {
    name_namespace_labels(w, &sa.metadata);
    let missing = |api: &mut Api, name: &str| {
        let key = ObjKey { namespace: sa.metadata.namespace.clone(), name: Str::from(name) };
        if api.get(Kind::Secret, &key).is_ok() {
            String::new()
        } else {
            " (not found)".to_string()
        }
    };
    let pull: Vec<String> =
        sa.image_pull_secrets.iter().map(|r| format!("{}{}", r.name, missing(api, &r.name))).collect();
    let mountable: Vec<String> = sa.secrets.iter().map(|r| format!("{}{}", r.name, missing(api, &r.name))).collect();
    for (title, names) in [("Image pull secrets", pull), ("Mountable secrets", mountable), ("Tokens", Vec::new())] {
        match names.split_first() {
            None => w.write(0, &format!("{title}:\t<none>\n")),
            Some((first, rest)) => {
                w.write(0, &format!("{title}:\t{first}\n"));
                for n in rest {
                    w.write(0, &format!("\t{n}\n"));
                }
            }
        }
    }
}

/// `describePodDisruptionBudget`.
fn describe_pdb(w: &mut Writer, p: &crate::api::PodDisruptionBudget) {
    w.write(0, &format!("Name:\t{}\n", p.metadata.name));
    w.write(0, &format!("Namespace:\t{}\n", p.metadata.namespace));
    if let Some(v) = &p.spec.min_available {
        w.write(0, &format!("Min available:\t{v}\n"));
    } else if let Some(v) = &p.spec.max_unavailable {
        w.write(0, &format!("Max unavailable:\t{v}\n"));
    }
    let selector = p.spec.selector.as_ref().map_or_else(|| "<unset>".into(), |s| s.format());
    w.write(0, &format!("Selector:\t{selector}\n"));
    w.write(0, "Status:\n");
    let st = &p.status;
    w.write(2, &format!("Allowed disruptions:\t{}\n", st.disruptions_allowed));
    w.write(2, &format!("Current:\t{}\n", st.current_healthy));
    w.write(2, &format!("Desired:\t{}\n", st.desired_healthy));
    w.write(2, &format!("Total:\t{}\n", st.expected_pods));
}

/// A kind kubeloop only stores, by its registry row's describe lines (label, field path, how): a label indented by
/// two spaces is a line of the section above, a line without a path a section's heading.
fn describe_stored(w: &mut Writer, o: &crate::api::Stored, now: Millis) {
    use crate::api::Cell;
    use serde_json::Value;
    let lines = o.kind.info().stored.map_or(&[][..], |s| s.describe);
    let texts = |v: Option<&Value>| -> Vec<String> {
        v.and_then(Value::as_array).into_iter().flatten().filter_map(|s| Some(s.as_str()?.to_string())).collect()
    };
    let go_list = |items: Vec<String>| format!("[{}]", items.join(" "));
    for &(label, path, cell) in lines {
        let level = (label.len() - label.trim_start().len()) / 2;
        let label = label.trim_start();
        let items = o.field(path).and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let mut table = |heading: &[&str], rows: Vec<Vec<String>>| {
            if !label.is_empty() {
                w.write(level, &format!("{label}:\n"));
            }
            let level = level + usize::from(!label.is_empty());
            w.write(level, &format!("{}\n", heading.join("\t")));
            let dashes: Vec<String> = heading.iter().map(|h| "-".repeat(h.len())).collect();
            w.write(level, &format!("{}\n", dashes.join("\t")));
            for row in rows {
                w.write(level, &format!("{}\n", row.join("\t")));
            }
        };
        match cell {
            Cell::Value if path.is_empty() => w.write(level, &format!("{label}:\n")),
            Cell::Multiline if path == "metadata.labels" => labels_multiline(w, "", label, &o.metadata.labels),
            Cell::Multiline => annotations_multiline(w, "", label, &o.metadata.annotations),
            Cell::Table(columns) => {
                let headings: Vec<&str> = columns.iter().map(|c| c.0).collect();
                let cell = |item: &Value, field: &str| match item.get(field) {
                    Some(Value::String(s)) => s.clone(),
                    v @ Some(Value::Array(_)) => go_list(texts(v)),
                    Some(v) => v.to_string(),
                    None => String::new(),
                };
                let rows = items.iter().map(|item| columns.iter().map(|c| cell(item, c.1)).collect()).collect();
                table(&headings, rows);
            }
            Cell::QuotaTable => {
                let hard = o.field("status.hard").and_then(Value::as_object);
                let used = o.field("status.used").and_then(Value::as_object);
                let text = |v: Option<&Value>| match v {
                    Some(Value::String(s)) => s.clone(),
                    Some(v) => v.to_string(),
                    None => "0".into(),
                };
                let rows = hard
                    .into_iter()
                    .flatten()
                    .map(|(k, h)| vec![k.clone(), text(used.and_then(|u| u.get(k))), text(Some(h))])
                    .collect();
                table(&["Resource", "Used", "Hard"], rows);
            }
            Cell::Rules => {
                // describeRole: each rule broken down to a row per resource (`resource.group`) or per non-resource
                // URL, in the order of their compact strings (`{APIGroups:["g"], Resources:["r"], ...}`).
                let mut rows: Vec<(String, Vec<String>)> = Vec::new();
                for rule in items {
                    let (names, verbs) = (go_list(texts(rule.get("resourceNames"))), go_list(texts(rule.get("verbs"))));
                    for url in texts(rule.get("nonResourceURLs")) {
                        let row = vec![String::new(), format!("[{url}]"), "[]".into(), verbs.clone()];
                        rows.push((format!("N{url:?}"), row));
                    }
                    let groups = texts(rule.get("apiGroups"));
                    for resource in texts(rule.get("resources")) {
                        for group in &groups {
                            let shown = if group.is_empty() { resource.clone() } else { format!("{resource}.{group}") };
                            let row = vec![shown, "[]".into(), names.clone(), verbs.clone()];
                            rows.push((format!("A{group:?}{resource:?}"), row));
                        }
                    }
                }
                crate::sort::sort(&mut rows);
                table(
                    &["Resources", "Non-Resource URLs", "Resource Names", "Verbs"],
                    rows.into_iter().map(|r| r.1).collect(),
                );
            }
            Cell::NodeAffinity => {
                let Some(required) = o.field(path).and_then(|a| a.get("required")) else {
                    w.write(level, &format!("{label}:\t<none>\n"));
                    continue;
                };
                w.write(level, &format!("{label}:\t\n"));
                let terms = required.get("nodeSelectorTerms").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                w.write(level + 1, &format!("Required Terms:\t{}\n", if terms.is_empty() { "<none>" } else { "" }));
                for (i, term) in terms.iter().enumerate() {
                    w.write(level + 2, &format!("Term {i}:\t"));
                    let reqs = term.get("matchExpressions").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                    if reqs.is_empty() {
                        w.write(0, "<none>\n");
                    }
                    for (j, req) in reqs.iter().enumerate() {
                        if j > 0 {
                            w.write(level + 2, "\t");
                        }
                        let text = |k: &str| req.get(k).and_then(Value::as_str).unwrap_or_default();
                        let values = texts(req.get("values"));
                        let mut expr = format!("{} {}", text("key"), text("operator").to_lowercase());
                        if !values.is_empty() {
                            expr = format!("{expr} [{}]", values.join(", "));
                        }
                        w.write(0, &format!("{expr}\n"));
                    }
                }
            }
            Cell::Limits => {
                // describeLimitRange: a row per item and resource it names, `-` for a value it does not set.
                let mut rows = Vec::new();
                for item in items {
                    const BY: [&str; 5] = ["min", "max", "defaultRequest", "default", "maxLimitRequestRatio"];
                    let maps: Vec<_> = BY.iter().map(|k| item.get(*k).and_then(Value::as_object)).collect();
                    let mut resources: Vec<&String> = maps.iter().flatten().flat_map(|m| m.keys()).collect();
                    crate::sort::sort(&mut resources);
                    resources.dedup();
                    for r in resources {
                        let mut row =
                            vec![item.get("type").and_then(Value::as_str).unwrap_or_default().to_string(), r.clone()];
                        let value = |m: &Option<&serde_json::Map<String, Value>>| {
                            m.and_then(|m| m.get(r)?.as_str()).unwrap_or("-").to_string()
                        };
                        row.extend(maps.iter().map(value));
                        rows.push(row);
                    }
                }
                let heading =
                    ["Type", "Resource", "Min", "Max", "Default Request", "Default Limit", "Max Limit/Request Ratio"];
                table(&heading, rows);
            }
            _ => {
                let value = match path {
                    "metadata.name" => o.metadata.name.to_string(),
                    "metadata.namespace" => o.metadata.namespace.to_string(),
                    "metadata.labels" => super::get::printers::format_labels(&o.metadata.labels),
                    "metadata.annotations" => super::get::printers::format_labels(&o.metadata.annotations),
                    "metadata.finalizers" => go_list(o.metadata.finalizers.iter().map(|f| f.to_string()).collect()),
                    path => super::get::printers::stored_cell(o, path, cell, now),
                };
                w.write(level, &format!("{label}:\t{value}\n"));
            }
        }
    }
}

/// `describeService`, each port's endpoints read from the Service's EndpointSlices ([`ServiceEndpoints`], the
/// reading the page's Service panel shares).
fn describe_service(api: &mut Api, w: &mut Writer, svc: &Service) {
    let spec = &svc.spec;
    let selector = crate::api::LabelSelector::from_labels(crate::api::Labels::from([(
        Str::from(crate::api::endpointslice::LABEL_SERVICE_NAME),
        svc.metadata.name.clone(),
    )]));
    let (slices, _) = api.list(Kind::EndpointSlice, Some(&svc.metadata.namespace), Some(&selector));
    let slices: Vec<&EndpointSlice> = slices.iter().filter_map(|o| o.as_endpointslice()).collect();
    let endpoints = ServiceEndpoints::read(svc, &slices);
    name_namespace_labels(w, &svc.metadata);
    w.write(0, &format!("Selector:\t{}\n", super::get::printers::format_labels(&spec.selector)));
    w.write(0, &format!("Type:\t{}\n", spec.type_));
    if !spec.ip_family_policy.is_empty() {
        w.write(0, &format!("IP Family Policy:\t{}\n", spec.ip_family_policy));
    }
    let families: Vec<&str> = spec.ip_families.iter().map(|f| &**f).collect();
    w.write(0, &format!("IP Families:\t{}\n", if families.is_empty() { "<none>".into() } else { families.join(",") }));
    w.write(0, &format!("IP:\t{}\n", spec.cluster_ip));
    let ips: Vec<&str> = spec.cluster_ips.iter().map(|f| &**f).collect();
    w.write(0, &format!("IPs:\t{}\n", if ips.is_empty() { "<none>".into() } else { ips.join(",") }));
    if !spec.external_name.is_empty() {
        w.write(0, &format!("External Name:\t{}\n", spec.external_name));
    }
    for (i, p) in spec.ports.iter().enumerate() {
        let name = if p.name.is_empty() { "<unset>" } else { &p.name };
        w.write(0, &format!("Port:\t{name}\t{}/{}\n", p.port, p.protocol));
        match &p.target_port {
            Some(IntOrString::String(t)) => w.write(0, &format!("TargetPort:\t{t}/{}\n", p.protocol)),
            Some(IntOrString::Int(t)) => w.write(0, &format!("TargetPort:\t{t}/{}\n", p.protocol)),
            None => w.write(0, &format!("TargetPort:\t0/{}\n", p.protocol)),
        }
        if p.node_port != 0 {
            w.write(0, &format!("NodePort:\t{name}\t{}/{}\n", p.node_port, p.protocol));
        }
        w.write(0, &format!("Endpoints:\t{}\n", endpoints_line(&endpoints, i)));
    }
    w.write(0, &format!("Session Affinity:\t{}\n", spec.session_affinity));
    if !spec.external_traffic_policy.is_empty() {
        w.write(0, &format!("External Traffic Policy:\t{}\n", spec.external_traffic_policy));
    }
    if !spec.internal_traffic_policy.is_empty() {
        w.write(0, &format!("Internal Traffic Policy:\t{}\n", spec.internal_traffic_policy));
    }
}

/// `formatEndpointSlices` for the Service's port `port`: `<none>` without slices; else its ready endpoints'
/// `address:port` (`[address]:port` for IPv6, as Go's `JoinHostPort`), or the bare address from a slice without
/// ports, joined by commas: the first three, then `+ N more...`. Upstream's count: the list is "more" once a fourth
/// endpoint is met, ready or not, so three ready and one not print `+ 0 more...`; none ready prints nothing.
fn endpoints_line(endpoints: &ServiceEndpoints, port: usize) -> String {
    if !endpoints.sliced {
        return "<none>".to_string();
    }
    const MAX: usize = 3;
    let (mut list, mut more, mut count) = (Vec::new(), false, 0usize);
    for &(_, i, number) in endpoints.met.iter().filter(|m| m.0 == port) {
        if list.len() == MAX {
            more = true;
        }
        let Some(e) = endpoints.endpoints.get(i).filter(|e| e.ready) else { continue };
        if !more {
            list.push(match number {
                Some(n) if e.address.contains(':') => format!("[{}]:{n}", e.address),
                Some(n) => format!("{}:{n}", e.address),
                None => e.address.to_string(),
            });
        }
        count += 1;
    }
    let shown = list.join(",");
    if more {
        format!("{shown} + {} more...", count.saturating_sub(MAX))
    } else {
        shown
    }
}

/// The generic describer (kinds without their own, such as Lease): name, namespace, labels, annotations, then
/// every other field of the object with smart labels.
fn describe_generic(w: &mut Writer, obj: &Object) {
    name_namespace_labels(w, obj.meta());
    if let Value::Object(map) = obj.to_json() {
        unstructured(w, 0, &map, "");
    }
}

const GENERIC_SKIP: &[&str] =
    &[".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels", ".metadata.annotations"];

fn unstructured(w: &mut Writer, level: usize, content: &serde_json::Map<String, Value>, prefix: &str) {
    for (field, v) in content {
        let path = format!("{prefix}.{field}");
        if GENERIC_SKIP.contains(&path.as_str()) {
            continue;
        }
        match v {
            Value::Object(map) => {
                w.write(level, &format!("{}:\n", smart_label(field)));
                unstructured(w, level + 1, map, &path);
            }
            Value::Array(items) => {
                w.write(level, &format!("{}:\n", smart_label(field)));
                for item in items {
                    match item {
                        Value::Object(map) => unstructured(w, level + 1, map, &path),
                        Value::String(s) => w.write(level + 1, &format!("{s}\n")),
                        other => w.write(level + 1, &format!("{other}\n")),
                    }
                }
            }
            Value::String(s) => w.write(level, &format!("{}:\t{s}\n", smart_label(field))),
            other => w.write(level, &format!("{}:\t{other}\n", smart_label(field))),
        }
    }
}

/// `smartLabelFor`: `holderIdentity` -> `Holder Identity`, `apiVersion` -> `API Version`. Field names are ASCII;
/// a name with anything else is printed as it is (ASCII case mapping only: no Unicode tables in the page).
fn smart_label(field: &str) -> String {
    if field.chars().any(|c| !c.is_ascii_alphabetic() && c != '-') {
        return field.to_string();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = field.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        // camelcase.Split: a new word at a lower-to-upper change, or before the last upper of an upper run.
        let starts = i > 0
            && c.is_ascii_uppercase()
            && (chars[i - 1].is_ascii_lowercase() || chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase()));
        if starts && !cur.is_empty() {
            parts.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        parts.push(cur);
    }
    parts
        .iter()
        .map(|p| {
            let up = p.to_ascii_uppercase();
            if ["API", "URL", "UID", "OSB", "GUID"].contains(&up.as_str()) {
                up
            } else {
                let mut c = p.chars();
                c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

// ---- events --------------------------------------------------------------------------------------------------

/// The events about `obj` (upstream: a LIST with an involvedObject field selector).
fn events_for(api: &mut Api, obj: &Object) -> Vec<Event> {
    let m = obj.meta();
    let scope = if obj.kind().namespaced() { Some(&*m.namespace) } else { None };
    // kubectl's event search: a field selector on the involved object, which the API server indexes.
    let filter = crate::watch::WatchFilter::InvolvedObject(crate::api::s(obj.kind().name()), m.name.clone());
    let (items, _) = api.list_filtered(Kind::Event, scope, None, &filter);
    let mut evs: Vec<Event> = items
        .iter()
        .filter_map(|o| o.as_event())
        .filter(|e| {
            let io = &e.body.involved_object;
            &*io.kind == obj.kind().name()
                && io.name == m.name
                && (!obj.kind().namespaced() || io.namespace == m.namespace)
                // searchEvents asks for the object's uid too: an event that names the object without it (the
                // taint eviction controller's) is not listed.
                && (m.uid.is_empty() || io.uid == m.uid)
        })
        .cloned()
        .collect();
    crate::sort::sort_by_key(&mut evs, |e| (event_time(e), e.metadata.resource_version));
    evs
}

/// `DescribeEvents`: `Events:  <none>`, or the table (after a flush, so it is laid out on its own).
fn describe_events(w: &mut Writer, events: &[Event], now: Millis) {
    if events.is_empty() {
        w.write(0, "Events:\t<none>\n");
        return;
    }
    w.flush();
    w.write(0, "Events:\n  Type\tReason\tAge\tFrom\tMessage\n");
    w.write(1, "----\t------\t----\t----\t-------\n");
    for e in events {
        let from = if e.body.source.component.is_empty() {
            e.body.reporting_component.to_string()
        } else {
            e.body.source.component.to_string()
        };
        w.write(
            1,
            &format!(
                "{}\t{}\t{}\t{}\t{}\n",
                e.body.type_,
                e.body.reason,
                event_interval(e, now),
                from,
                e.body.message.trim()
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabwriter_aligns_column_blocks_like_go() {
        let text = "Name:\tweb\nService Account:\tdefault\nIPs:\n  IP:\t10.0.0.1\nControlled By:\tReplicaSet/x\n";
        assert_eq!(
            tabwrite(text, 0, 2),
            "Name:             web\nService Account:  default\nIPs:\n  IP:           10.0.0.1\nControlled By:  ReplicaSet/x\n"
        );
        // A short line inside a wider block is padded (Go leaves the trailing spaces).
        assert_eq!(tabwrite("a\tb\tc\nxx\t\n", 0, 2), "a   b  c\nxx  \n");
    }

    #[test]
    fn dates_print_as_rfc1123z() {
        assert_eq!(rfc1123z(0), "Thu, 01 Jan 2026 00:00:00 +0000");
        assert_eq!(rfc1123z(86_400_000 * 3 + 61_000), "Sun, 04 Jan 2026 00:01:01 +0000");
        assert_eq!(rfc1123z(86_400_000 * 59), "Sun, 01 Mar 2026 00:00:00 +0000");
    }

    #[test]
    fn smart_label_splits_camel_case_into_title_words_and_capitalises_acronyms() {
        assert_eq!(smart_label("holderIdentity"), "Holder Identity");
        assert_eq!(smart_label("apiVersion"), "API Version");
        assert_eq!(smart_label("uid"), "UID");
        assert_eq!(smart_label("leaseDurationSeconds"), "Lease Duration Seconds");
        assert_eq!(smart_label("ownerReferences"), "Owner References");
    }

    #[test]
    fn qos_class_is_best_effort_burstable_or_guaranteed_by_requests_and_limits() {
        let mut spec = PodSpec { containers: vec![Container::default()].into(), ..Default::default() };
        assert_eq!(qos_class(&spec), "BestEffort");
        let q = |s: &str| Quantity::parse(s).unwrap_or_else(|_| Quantity::from_milli(0));
        spec.containers[0].resources.requests.insert("cpu".into(), q("100m"));
        assert_eq!(qos_class(&spec), "Burstable");
        spec.containers[0].resources.limits.insert("cpu".into(), q("100m"));
        spec.containers[0].resources.limits.insert("memory".into(), q("1Gi"));
        assert_eq!(qos_class(&spec), "Guaranteed");
    }
}
