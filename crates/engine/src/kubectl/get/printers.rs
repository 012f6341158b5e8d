//! The row printers of `kubectl get`: the columns and cell values the API server's table convertor produces
//! (k8s.io/kubernetes pkg/printers/internalversion), and the row of the newer `kubectl events` command. Other
//! commands (`-w` followers, `rollout status`, the page) reuse them.

use serde_json::Value;

use crate::api::{
    Cell, Deployment, Event, Kind, Labels, Lease, Namespace, Node, Object, Pod, ReplicaSet, Service, Stored, Time,
};
use crate::time::{Age, Millis};

/// How a table is laid out: the flags of `kubectl get` that add columns or change the name cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RowOptions {
    /// `-o wide`: the priority-1 columns.
    pub wide: bool,
    /// `-A`: a NAMESPACE column first (namespaced kinds only).
    pub namespace: bool,
    /// More than one type requested: names print as `pod/x`, `deployment.apps/web`.
    pub with_kind: bool,
    /// `--show-labels`: a LABELS column last.
    pub show_labels: bool,
}

/// `translateTimestampSince`: the age of a timestamp, `<unknown>` when unset.
pub(crate) fn since(t: Option<Time>, now: Millis) -> String {
    match t {
        Some(t) => Age(now.saturating_sub(t.0)).to_string(),
        None => "<unknown>".into(),
    }
}

/// `labels.FormatLabels`: `k=v,k2=v2` sorted by key, `<none>` when empty.
pub(crate) fn format_labels(labels: &Labels) -> String {
    if labels.is_empty() {
        return "<none>".into();
    }
    labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

/// The column headers of `kind`'s table.
pub(crate) fn header(kind: Kind, opts: RowOptions) -> Vec<String> {
    let base: &[&str] = match kind {
        Kind::Pod => &["NAME", "READY", "STATUS", "RESTARTS", "AGE"],
        Kind::Deployment => &["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"],
        Kind::ReplicaSet => &["NAME", "DESIRED", "CURRENT", "READY", "AGE"],
        Kind::DaemonSet => &["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"],
        Kind::StatefulSet => &["NAME", "READY", "AGE"],
        Kind::Job => &["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"],
        Kind::CronJob => &["NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST SCHEDULE", "AGE"],
        Kind::Node => &["NAME", "STATUS", "ROLES", "AGE", "VERSION"],
        Kind::Namespace => &["NAME", "STATUS", "AGE"],
        Kind::Lease => &["NAME", "HOLDER", "AGE"],
        Kind::Event => &["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"],
        Kind::ConfigMap => &["NAME", "DATA", "AGE"],
        Kind::Secret => &["NAME", "TYPE", "DATA", "AGE"],
        Kind::ServiceAccount => &["NAME", "SECRETS", "AGE"],
        Kind::Service => &["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"],
        Kind::EndpointSlice => &["NAME", "ADDRESSTYPE", "PORTS", "ENDPOINTS", "AGE"],
        Kind::PodDisruptionBudget => &["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"],
        // A stored kind: NAME, then its registry row's columns.
        _ => &["NAME"],
    };
    let wide: &[&str] = match kind {
        Kind::Pod => &["IP", "NODE", "NOMINATED NODE", "READINESS GATES"],
        Kind::Deployment | Kind::ReplicaSet | Kind::DaemonSet | Kind::Job | Kind::CronJob => {
            &["CONTAINERS", "IMAGES", "SELECTOR"]
        }
        Kind::StatefulSet => &["CONTAINERS", "IMAGES"],
        Kind::Service => &["SELECTOR"],
        Kind::Node => &["INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME"],
        _ => &[],
    };
    let mut cols: Vec<String> = Vec::new();
    if opts.namespace && kind.namespaced() {
        cols.push("NAMESPACE".into());
    }
    if kind == Kind::Event && opts.wide {
        // The wide event table interleaves its extra columns.
        cols.extend(
            ["LAST SEEN", "TYPE", "REASON", "OBJECT", "SUBOBJECT", "SOURCE", "MESSAGE", "FIRST SEEN", "COUNT", "NAME"]
                .map(String::from),
        );
    } else {
        cols.extend(base.iter().map(|s| s.to_string()));
        let stored = kind.info().stored;
        cols.extend(stored.map_or(&[][..], |s| s.columns).iter().map(|c| c.0.to_string()));
        if opts.wide {
            cols.extend(wide.iter().map(|s| s.to_string()));
            cols.extend(stored.map_or(&[][..], |s| s.wide).iter().map(|c| c.0.to_string()));
        }
    }
    if opts.show_labels {
        cols.push("LABELS".into());
    }
    cols
}

/// One object's row in its kind's table.
pub(crate) fn row(obj: &Object, now: Millis, opts: RowOptions) -> Vec<String> {
    let m = obj.meta();
    let name = if opts.with_kind { format!("{}/{}", obj.kind().resource_ref(), m.name) } else { m.name.to_string() };
    let mut cells: Vec<String> = Vec::new();
    if opts.namespace && obj.kind().namespaced() {
        cells.push(m.namespace.to_string());
    }
    match obj {
        Object::Pod(p) => pod_cells(p, name, now, opts.wide, &mut cells),
        Object::Deployment(d) => deployment_cells(d, name, now, opts.wide, &mut cells),
        Object::ReplicaSet(r) => replicaset_cells(r, name, now, opts.wide, &mut cells),
        Object::DaemonSet(d) => daemonset_cells(d, name, now, opts.wide, &mut cells),
        Object::StatefulSet(s) => statefulset_cells(s, name, now, opts.wide, &mut cells),
        Object::Job(j) => job_cells(j, name, now, opts.wide, &mut cells),
        Object::CronJob(c) => cronjob_cells(c, name, now, opts.wide, &mut cells),
        Object::Node(n) => node_cells(n, name, now, opts.wide, &mut cells),
        Object::Namespace(n) => namespace_cells(n, name, now, &mut cells),
        Object::Lease(l) => lease_cells(l, name, now, &mut cells),
        Object::Event(e) => event_cells(e, name, now, opts.wide, &mut cells),
        Object::ConfigMap(c) => {
            let data = c.data.len() + c.binary_data.len();
            cells.extend([name, data.to_string(), since(c.metadata.creation_timestamp, now)]);
        }
        Object::Secret(s) => {
            cells.extend([
                name,
                s.type_.to_string(),
                s.data.len().to_string(),
                since(s.metadata.creation_timestamp, now),
            ]);
        }
        Object::Service(svc) => service_cells(svc, name, now, opts.wide, &mut cells),
        Object::EndpointSlice(e) => {
            let ports = e.ports().iter().map(|p| match (p.port, p.name.is_empty()) {
                (Some(n), _) => n.to_string(),
                (None, false) => p.name.to_string(),
                (None, true) => "*".to_string(),
            });
            let addresses = e.endpoints().iter().flat_map(|x| x.addresses.iter().map(|a| a.to_string()));
            cells.extend([
                name,
                e.address_type.to_string(),
                list_with_more(ports),
                list_with_more(addresses),
                since(e.metadata.creation_timestamp, now),
            ]);
        }
        Object::ServiceAccount(sa) => {
            cells.extend([name, sa.secrets.len().to_string(), since(sa.metadata.creation_timestamp, now)]);
        }
        Object::Stored(o) => {
            cells.push(if is_default(o) { format!("{name} (default)") } else { name });
            let (columns, wide) = o.kind.info().stored.map_or((&[][..], &[][..]), |s| (s.columns, s.wide));
            let wide = if opts.wide { wide } else { &[] };
            cells.extend(columns.iter().chain(wide).map(|&(_, path, cell)| stored_cell(o, path, cell, now)));
        }
        Object::PodDisruptionBudget(p) => {
            let or_na = |v: &Option<crate::api::IntOrString>| v.as_ref().map_or("N/A".to_string(), |v| v.to_string());
            cells.extend([
                name,
                or_na(&p.spec.min_available),
                or_na(&p.spec.max_unavailable),
                p.status.disruptions_allowed.to_string(),
                since(p.metadata.creation_timestamp, now),
            ]);
        }
    }
    if opts.show_labels {
        cells.push(format_labels(&m.labels));
    }
    cells
}

/// A stored object's field as its printer and describer print it (`%v` of the Go field): a text as it is, texts as
/// `[a b]`, a number or a boolean as JSON writes it; a missing field as its type's zero value (`0`, `false`, `[]`,
/// nothing).
pub(crate) fn stored_field(o: &Stored, path: &str) -> String {
    match o.field(path) {
        Some(Value::Null) | None => {
            // The field's type, followed through the schema.
            let (parents, last) = path.rsplit_once('.').unwrap_or(("", path));
            let mut ty = Some(o.kind.name());
            for step in parents.split('.').filter(|s| !s.is_empty()) {
                ty = ty.and_then(|t| crate::manifest::field_type(t, step));
            }
            match ty.and_then(|t| crate::manifest::value_type(t, last)) {
                Some("integer" | "int32") => "0".into(),
                Some("boolean") => "false".into(),
                Some(t) if t.starts_with("[]") => "[]".into(),
                _ => String::new(),
            }
        }
        Some(v) => go_value(v),
    }
}

/// `%v` of a JSON value as Go prints the field it was read into: a text as it is, texts as `[a b]`.
fn go_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) if items.iter().all(Value::is_string) => format!("[{}]", texts(Some(v)).join(" ")),
        v => v.to_string(),
    }
}

/// The texts of a list of texts (none when missing).
fn texts(v: Option<&Value>) -> Vec<&str> {
    items(v).iter().filter_map(Value::as_str).collect()
}

/// The items of a list (none when missing).
fn items(v: Option<&Value>) -> &[Value] {
    v.and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

/// The text of field `key` of an object (empty when missing).
fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// `a`, or `b` when `a` is empty.
fn or<'a>(a: &'a str, b: &'a str) -> &'a str {
    if a.is_empty() {
        b
    } else {
        a
    }
}

/// A stored object's cell: the value at `path` as `cell` prints it (printers.go's formats; describe's tables are
/// describe's).
pub(crate) fn stored_cell(o: &Stored, path: &str, cell: Cell, now: Millis) -> String {
    let v = o.field(path).filter(|v| !v.is_null());
    match cell {
        Cell::Age => since(o.metadata.creation_timestamp, now),
        Cell::CreatedAt => o.metadata.creation_timestamp.map_or_else(String::new, |t| crate::time::rfc3339(t.0)),
        Cell::OrNone if v.is_none() => "<none>".into(),
        Cell::OrUnset if v.is_none() => "<unset>".into(),
        Cell::Joined => texts(v).join(", "),
        Cell::Selector => selector(v),
        Cell::Hosts => {
            // formatHosts: three hosts at most, then how many rules are left (hosts or not).
            let (mut hosts, mut more) = (Vec::new(), false);
            for rule in items(v) {
                more |= hosts.len() == 3;
                if !more && !text(rule, "host").is_empty() {
                    hosts.push(text(rule, "host"));
                }
            }
            match (hosts.is_empty(), more) {
                (true, _) => "*".into(),
                (false, true) => format!("{} + {} more...", hosts.join(","), items(v).len() - 3),
                (false, false) => hosts.join(","),
            }
        }
        Cell::LoadBalancer => {
            let points = items(v.and_then(|lb| lb.get("ingress")));
            let mut addresses: Vec<&str> = points.iter().map(|p| or(text(p, "ip"), text(p, "hostname"))).collect();
            crate::sort::sort(&mut addresses);
            addresses.dedup();
            addresses.retain(|a| !a.is_empty());
            addresses.join(",")
        }
        Cell::TlsPorts if items(v).is_empty() => "80".into(),
        Cell::TlsPorts => "80, 443".into(),
        Cell::Ref(first) => v.map_or_else(String::new, |r| format!("{}/{}", text(r, first), text(r, "name"))),
        Cell::Parameters => v.map_or_else(
            || "<none>".into(),
            |p| match p.get("apiGroup") {
                Some(group) => {
                    format!("{}.{}/{}", text(p, "kind"), group.as_str().unwrap_or_default(), text(p, "name"))
                }
                None => format!("{}/{}", text(p, "kind"), text(p, "name")),
            },
        ),
        Cell::Subjects(kind) => {
            let subjects = items(v).iter().filter(|s| text(s, "kind") == kind);
            let names = subjects.map(|s| match kind {
                "ServiceAccount" => format!("{}/{}", text(s, "namespace"), text(s, "name")),
                _ => text(s, "name").to_string(),
            });
            names.collect::<Vec<_>>().join(", ")
        }
        Cell::AccessModes => {
            let modes = texts(v);
            let short = [
                ("ReadWriteOnce", "RWO"),
                ("ReadOnlyMany", "ROX"),
                ("ReadWriteMany", "RWX"),
                ("ReadWriteOncePod", "RWOP"),
            ];
            short.iter().filter(|(m, _)| modes.contains(m)).map(|(_, s)| *s).collect::<Vec<_>>().join(",")
        }
        Cell::Quota(limits) => {
            // printResourceQuota: each hard limit (sorted) and its use, `limits.*` in one column, the rest in the other.
            let hard = v.and_then(|s| s.get("hard")).and_then(Value::as_object);
            let used = |r: &str| v.and_then(|s| s.get("used")?.get(r)?.as_str()).unwrap_or("0");
            let rows = hard
                .into_iter()
                .flatten()
                .filter(|(r, _)| r.split_once('.').is_some_and(|(p, _)| p == "limits") == limits);
            rows.map(|(r, h)| format!("{r}: {}/{}", used(r), h.as_str().unwrap_or_default()))
                .collect::<Vec<_>>()
                .join(", ")
        }
        Cell::IsDefault => if is_default(o) { "Yes" } else { "No" }.into(),
        Cell::Map => {
            let pairs = v.and_then(Value::as_object).into_iter().flatten();
            let mut pairs: Vec<String> =
                pairs.map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default())).collect();
            crate::sort::sort(&mut pairs);
            if pairs.is_empty() {
                "<none>".into()
            } else {
                pairs.join(",")
            }
        }
        Cell::Value
        | Cell::OrNone
        | Cell::OrUnset
        | Cell::Multiline
        | Cell::Table(_)
        | Cell::QuotaTable
        | Cell::Rules
        | Cell::NodeAffinity
        | Cell::Limits => stored_field(o, path),
    }
}

/// Whether a stored object carries its kind's default annotation as `true` (`storageutil.IsDefaultAnnotation`).
pub(crate) fn is_default(o: &Stored) -> bool {
    let annotation = o.kind.info().stored.and_then(|s| s.default_annotation);
    annotation.is_some_and(|a| o.metadata.annotation(a) == Some("true"))
}

/// `metav1.FormatLabelSelector` of a selector read as JSON: its requirements sorted by key, `<none>` when it has
/// none, `<error>` for an operator that is not one.
fn selector(v: Option<&Value>) -> String {
    let mut parts: Vec<(&str, String)> = Vec::new();
    for (key, value) in v.and_then(|s| s.get("matchLabels")?.as_object()).into_iter().flatten() {
        parts.push((key, format!("{key}={}", value.as_str().unwrap_or_default())));
    }
    for e in items(v.and_then(|s| s.get("matchExpressions"))) {
        let (key, mut values) = (text(e, "key"), texts(e.get("values")));
        crate::sort::sort(&mut values);
        let part = match text(e, "operator") {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => return "<error>".into(),
        };
        parts.push((key, part));
    }
    crate::sort::sort_by(&mut parts, |a, b| a.0.cmp(b.0));
    match parts.is_empty() {
        true => "<none>".into(),
        false => parts.into_iter().map(|(_, p)| p).collect::<Vec<_>>().join(","),
    }
}

/// The STATUS cell of a pod, as printPod computes it: the phase, overridden by `status.reason`, then by the
/// containers' waiting/terminated reasons; `Terminating` once deleted, `Unknown` for a pod on a lost node.
pub(crate) fn pod_status(p: &Pod) -> String {
    let mut reason =
        if p.status.reason.is_empty() { p.status.phase.as_str().to_string() } else { p.status.reason.to_string() };
    if p.status.conditions.iter().any(|c| &*c.type_ == "PodScheduled" && &*c.reason == "SchedulingGated") {
        reason = "SchedulingGated".into();
    }
    let mut has_running = false;
    for c in p.status.container_statuses.iter().rev() {
        if let Some(w) = c.state.waiting.as_ref().filter(|w| !w.reason.is_empty()) {
            reason = w.reason.to_string();
        } else if let Some(t) = &c.state.terminated {
            reason = if t.reason.is_empty() { format!("ExitCode:{}", t.exit_code) } else { t.reason.to_string() };
        } else if c.ready && c.state.running.is_some() {
            has_running = true;
        }
    }
    if reason == "Completed" && has_running {
        reason = if p.is_ready() { "Running".into() } else { "NotReady".into() };
    }
    if p.metadata.deletion_timestamp.is_some() && &*p.status.reason == "NodeLost" {
        reason = "Unknown".into();
    } else if p.metadata.deletion_timestamp.is_some() && !p.status.phase.is_terminal() {
        reason = "Terminating".into();
    }
    reason
}

/// RESTARTS of a pod: the containers' restart counts, with how long ago the latest previous run ended
/// (`3 (42s ago)`), as printPod writes it.
pub(crate) fn pod_restarts(p: &Pod, now: Millis) -> String {
    let restarts = p.restarts();
    let last = p
        .status
        .container_statuses
        .iter()
        .filter_map(|c| c.last_state.terminated.as_ref().and_then(|t| t.finished_at))
        .max_by_key(|t| t.0);
    match last {
        Some(t) if restarts != 0 => format!("{restarts} ({} ago)", since(Some(t), now)),
        _ => restarts.to_string(),
    }
}

/// READY of a pod: ready running containers / containers.
pub(crate) fn pod_ready(p: &Pod) -> String {
    let ready = p
        .status
        .container_statuses
        .iter()
        .filter(|c| c.ready && c.state.running.is_some() && c.state.waiting.is_none() && c.state.terminated.is_none())
        .count();
    format!("{ready}/{}", p.spec.containers.len())
}

fn or_none(s: &str) -> String {
    if s.is_empty() {
        "<none>".into()
    } else {
        s.to_string()
    }
}

fn pod_cells(p: &Pod, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    cells.extend([name, pod_ready(p), pod_status(p), pod_restarts(p, now), since(p.metadata.creation_timestamp, now)]);
    if wide {
        cells.extend([or_none(&p.status.pod_ip), or_none(&p.spec.node_name), "<none>".into(), "<none>".into()]);
    }
}

/// `layoutContainerCells`: container names and images, comma-separated.
fn containers_and_images(spec: &crate::api::PodSpec) -> (String, String) {
    let names: Vec<&str> = spec.containers.iter().map(|c| &*c.name).collect();
    let images: Vec<&str> = spec.containers.iter().map(|c| &*c.image).collect();
    (names.join(","), images.join(","))
}

fn deployment_cells(d: &Deployment, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    let st = &d.status;
    cells.extend([
        name,
        format!("{}/{}", st.ready_replicas, d.replicas()),
        st.updated_replicas.to_string(),
        st.available_replicas.to_string(),
        since(d.metadata.creation_timestamp, now),
    ]);
    if wide {
        let (c, i) = containers_and_images(&d.spec.template.spec);
        cells.extend([c, i, d.spec.selector.to_string()]);
    }
}

fn replicaset_cells(r: &ReplicaSet, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    cells.extend([
        name,
        r.replicas().to_string(),
        r.status.replicas.to_string(),
        r.status.ready_replicas.to_string(),
        since(r.metadata.creation_timestamp, now),
    ]);
    if wide {
        let (c, i) = containers_and_images(&r.spec.template.spec);
        cells.extend([c, i, r.spec.selector.format()]);
    }
}

/// `printDaemonSet`: the status's counts, the template's node selector, and in wide its containers and selector.
fn daemonset_cells(d: &crate::api::DaemonSet, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    let st = &d.status;
    cells.push(name);
    let counts = [
        st.desired_number_scheduled,
        st.current_number_scheduled,
        st.number_ready,
        st.updated_number_scheduled,
        st.number_available,
    ];
    cells.extend(counts.iter().map(|n| n.to_string()));
    cells.extend([format_labels(&d.spec.template.spec.node_selector), since(d.metadata.creation_timestamp, now)]);
    if wide {
        let (c, i) = containers_and_images(&d.spec.template.spec);
        cells.extend([c, i, d.spec.selector.format()]);
    }
}

/// `printJob`: its status (the first of Complete, Failed, Terminating, Suspended, FailureTarget that holds, else
/// Running), `succeeded/completions` (`succeeded/1 of P` for a work queue with parallelism above 1), the duration
/// from its start to its completion (or now), and in wide its containers and selector.
fn job_cells(j: &crate::api::Job, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    let st = &j.status;
    let completions = match (j.spec.completions, j.spec.parallelism.unwrap_or(0)) {
        (Some(c), _) => format!("{}/{c}", st.succeeded),
        (None, p) if p > 1 => format!("{}/1 of {p}", st.succeeded),
        (None, _) => format!("{}/1", st.succeeded),
    };
    let duration = match (st.start_time, st.completion_time) {
        (None, _) => String::new(),
        (Some(start), None) => Age(now.saturating_sub(start.0)).to_string(),
        (Some(start), Some(end)) => Age(end.0.saturating_sub(start.0)).to_string(),
    };
    let status = if j.has_condition("Complete") {
        "Complete"
    } else if j.has_condition("Failed") {
        "Failed"
    } else if j.metadata.deletion_timestamp.is_some() {
        "Terminating"
    } else if j.has_condition("Suspended") {
        "Suspended"
    } else if j.has_condition("FailureTarget") {
        "FailureTarget"
    } else {
        "Running"
    };
    cells.extend([name, status.to_string(), completions, duration, since(j.metadata.creation_timestamp, now)]);
    if wide {
        let (c, i) = containers_and_images(&j.spec.template.spec);
        cells.extend([c, i, j.selector().format()]);
    }
}

/// `printCronJob`: the schedule, its zone (`<none>`), whether suspended, how many Jobs run, how long since the last
/// schedule (`<none>`); in wide the job template's containers and selector.
fn cronjob_cells(c: &crate::api::CronJob, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    let spec = &c.spec;
    let suspend = match spec.suspend {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    let last = match c.status.last_schedule_time {
        Some(t) => Age(now.saturating_sub(t.0)).to_string(),
        None => "<none>".into(),
    };
    cells.extend([
        name,
        spec.schedule.to_string(),
        spec.time_zone.as_deref().unwrap_or("<none>").to_string(),
        suspend.to_string(),
        c.status.active.len().to_string(),
        last,
        since(c.metadata.creation_timestamp, now),
    ]);
    if wide {
        let t = &spec.job_template.spec;
        let (containers, images) = containers_and_images(&t.template.spec);
        let selector = t.selector.as_ref().map_or_else(|| "<none>".to_string(), |s| s.format());
        cells.extend([containers, images, selector]);
    }
}

/// `printStatefulSet`: ready of desired, and in wide its containers and images.
fn statefulset_cells(s: &crate::api::StatefulSet, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    cells.extend([
        name,
        format!("{}/{}", s.status.ready_replicas, s.replicas()),
        since(s.metadata.creation_timestamp, now),
    ]);
    if wide {
        let (c, i) = containers_and_images(&s.spec.template.spec);
        cells.extend([c, i]);
    }
}

/// `findNodeRoles`: `node-role.kubernetes.io/ROLE` labels and the `kubernetes.io/role` label, sorted.
pub(crate) fn node_roles(n: &Node) -> Vec<String> {
    let mut roles: Vec<String> = Vec::new();
    for (k, v) in &n.metadata.labels {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.push(role.to_string());
            }
        } else if &**k == "kubernetes.io/role" && !v.is_empty() {
            roles.push(v.to_string());
        }
    }
    crate::sort::sort(&mut roles);
    roles.dedup();
    roles
}

/// The STATUS cell of a node: `Ready`/`NotReady` (`Unknown` without a Ready condition), then
/// `SchedulingDisabled` when cordoned.
pub(crate) fn node_status(n: &Node) -> String {
    let mut status: Vec<&str> = Vec::new();
    match n.condition("Ready") {
        Some(c) if &*c.status == "True" => status.push("Ready"),
        Some(_) => status.push("NotReady"),
        None => status.push("Unknown"),
    }
    if n.spec.unschedulable {
        status.push("SchedulingDisabled");
    }
    status.join(",")
}

fn node_address(n: &Node, type_: &str) -> String {
    n.status.addresses.iter().find(|a| &*a.type_ == type_).map(|a| a.address.to_string()).unwrap_or("<none>".into())
}

fn node_cells(n: &Node, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    let roles = node_roles(n);
    let info = n.status.node_info.clone().unwrap_or_default();
    cells.extend([
        name,
        node_status(n),
        if roles.is_empty() { "<none>".into() } else { roles.join(",") },
        since(n.metadata.creation_timestamp, now),
        info.kubelet_version.to_string(),
    ]);
    if wide {
        let unknown = |s: &str| if s.is_empty() { "<unknown>".to_string() } else { s.to_string() };
        cells.extend([
            node_address(n, "InternalIP"),
            node_address(n, "ExternalIP"),
            unknown(&info.os_image),
            // kubeloop's nodes report no kernel version.
            "<unknown>".into(),
            unknown(&info.container_runtime_version),
        ]);
    }
}

fn namespace_cells(n: &Namespace, name: String, now: Millis, cells: &mut Vec<String>) {
    cells.extend([name, n.status.phase.to_string(), since(n.metadata.creation_timestamp, now)]);
}

/// `listWithMoreString`: the first three, `+ N more...`, or `<unset>` for none.
pub(crate) fn list_with_more(items: impl Iterator<Item = String>) -> String {
    let mut list = Vec::new();
    let mut count = 0;
    for i in items {
        if list.len() < 3 {
            list.push(i);
        }
        count += 1;
    }
    match count {
        0 => "<unset>".to_string(),
        n if n > 3 => format!("{} + {} more...", list.join(","), n - 3),
        _ => list.join(","),
    }
}

/// `printService`: the first cluster IP, the external address (`<pending>` for a load balancer nobody provides),
/// each port as `port[:nodePort]/protocol`.
fn service_cells(svc: &Service, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    let spec = &svc.spec;
    let cluster_ip = spec.cluster_ips.first().map_or_else(|| "<none>".to_string(), |ip| ip.to_string());
    let external = match svc.type_name() {
        "ExternalName" => spec.external_name.to_string(),
        "LoadBalancer" => "<pending>".to_string(),
        _ => "<none>".to_string(),
    };
    let ports: Vec<String> = spec
        .ports
        .iter()
        .map(|p| match p.node_port {
            0 => format!("{}/{}", p.port, p.protocol),
            n => format!("{}:{n}/{}", p.port, p.protocol),
        })
        .collect();
    let ports = if ports.is_empty() { "<none>".to_string() } else { ports.join(",") };
    cells.extend([
        name,
        svc.type_name().to_string(),
        cluster_ip,
        external,
        ports,
        since(svc.metadata.creation_timestamp, now),
    ]);
    if wide {
        cells.push(format_labels(&spec.selector));
    }
}

fn lease_cells(l: &Lease, name: String, now: Millis, cells: &mut Vec<String>) {
    cells.extend([name, l.spec.holder_identity.to_string(), since(l.metadata.creation_timestamp, now)]);
}

/// `kind/name` of an event's involved object, the kind in lower case (`get events`' OBJECT).
fn event_target(e: &Event) -> String {
    let o = &e.body.involved_object;
    if o.name.is_empty() {
        o.kind.to_ascii_lowercase()
    } else {
        format!("{}/{}", o.kind.to_ascii_lowercase(), o.name)
    }
}

fn event_cells(e: &Event, name: String, now: Millis, wide: bool, cells: &mut Vec<String>) {
    let b = &e.body;
    let first = since(b.first_timestamp, now);
    let last = if b.last_timestamp.is_some() { since(b.last_timestamp, now) } else { first.clone() };
    let message = b.message.trim().to_string();
    if wide {
        let mut source = b.source.component.to_string();
        if !b.source.host.is_empty() {
            source = format!("{source}, {}", b.source.host);
        }
        cells.extend([
            last,
            b.type_.to_string(),
            b.reason.to_string(),
            event_target(e),
            String::new(),
            source,
            message,
            first,
            b.count.to_string(),
            name,
        ]);
    } else {
        cells.extend([last, b.type_.to_string(), b.reason.to_string(), event_target(e), message]);
    }
}

/// `2m (x3 over 5m)` for an aggregated event, else the age of its first occurrence (`kubectl events`,
/// `kubectl describe`).
pub(crate) fn event_interval(e: &Event, now: Millis) -> String {
    let first = since(e.body.first_timestamp, now);
    if e.body.count > 1 {
        format!("{} (x{} over {first})", since(e.body.last_timestamp, now), e.body.count)
    } else {
        first
    }
}

/// The time `kubectl events` sorts by: the last occurrence.
pub(crate) fn event_time(e: &Event) -> Millis {
    e.body.last_timestamp.or(e.body.first_timestamp).map_or(0, |t| t.0)
}

/// The header of `kubectl events`.
pub(crate) fn events_header(all_namespaces: bool) -> Vec<String> {
    let mut h: Vec<String> = Vec::new();
    if all_namespaces {
        h.push("NAMESPACE".into());
    }
    h.extend(["LAST SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"].map(String::from));
    h
}

/// One row of `kubectl events`: OBJECT keeps the kind's case (`Pod/web-...`).
pub(crate) fn events_row(e: &Event, now: Millis, all_namespaces: bool) -> Vec<String> {
    let mut r: Vec<String> = Vec::new();
    if all_namespaces {
        r.push(e.metadata.namespace.to_string());
    }
    let o = &e.body.involved_object;
    r.extend([
        event_interval(e, now),
        e.body.type_.to_string(),
        e.body.reason.to_string(),
        format!("{}/{}", o.kind, o.name),
        e.body.message.trim().to_string(),
    ]);
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ContainerState, ContainerStateWaiting, ContainerStatus, PodPhase};
    use crate::time::{MINUTE, SECOND};

    #[test]
    fn aggregated_events_show_count_and_span() {
        let mut e = Event::default();
        e.body.count = 3;
        e.body.first_timestamp = Some(Time(0));
        e.body.last_timestamp = Some(Time(3 * MINUTE));
        assert_eq!(event_interval(&e, 5 * MINUTE), "2m (x3 over 5m)");
        e.body.count = 1;
        assert_eq!(event_interval(&e, 45 * SECOND), "45s");
        assert_eq!(since(None, 0), "<unknown>");
    }

    #[test]
    fn pod_status_like_print_pod() {
        let mut p = Pod::default();
        p.status.phase = PodPhase::Pending;
        assert_eq!(pod_status(&p), "Pending");
        p.status.container_statuses.push(ContainerStatus {
            state: ContainerState {
                waiting: Some(ContainerStateWaiting { reason: "ContainerCreating".into(), message: "".into() }),
                ..Default::default()
            },
            ..Default::default()
        });
        assert_eq!(pod_status(&p), "ContainerCreating");
        p.metadata.deletion_timestamp = Some(Time(0));
        assert_eq!(pod_status(&p), "Terminating");
        p.status.reason = "NodeLost".into();
        assert_eq!(pod_status(&p), "Unknown");
    }
}
