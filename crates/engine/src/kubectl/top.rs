//! `kubectl top pod|node`. kubeloop runs no metrics-server and its containers do no work, so the figures are the
//! pods' resource requests, laid out as kubectl top prints metrics (CPU in `m`, memory in `Mi`, node percentages
//! of allocatable); stderr says so once. Like metrics-server, only running pods on nodes whose kubelet answers
//! have figures; a node whose kubelet is down shows `<unknown>`.

use std::rc::Rc;

use super::args::{switch, value, Args, Flag};
use super::{table, Command, Input, Output};
use crate::api::selector::parse_selector;
use crate::api::{Kind, LabelSelector, ObjKey, Object, Pod, PodPhase};
use crate::sim::Sim;
use crate::store::ApiError;

pub const COMMAND: Command = Command {
    name: "top",
    summary: "Display resource (CPU/memory) usage (kubeloop: the pods' requests)",
    usage: "kubectl top (pod [NAME | -l label] | node [NAME | -l label]) [options]",
    flags: FLAGS,
    run,
};

const FLAGS: &[Flag] = &[
    switch("all-namespaces", Some('A')),
    value("selector", Some('l')),
    switch("containers", None),
    switch("no-headers", None),
    value("sort-by", None),
    switch("sum", None),
];

/// Said once per command on stderr: what the numbers are.
pub const NOTE: &str =
    "kubeloop: no metrics-server; CPU(cores) and MEMORY(bytes) are the pods' requests, not measured usage\n";

fn run(sim: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    let Some(sub) = args.positional.first() else {
        return Ok(Output::ok("Display resource (CPU/memory) usage.\n\nAvailable Commands:\n  node          Display resource (CPU/memory) usage of nodes\n  pod           Display resource (CPU/memory) usage of pods\n\nUsage:\n  kubectl top [flags] [options]\n"));
    };
    let rest = &args.positional[1..];
    let mut out = match sub.as_str() {
        "pod" | "pods" | "po" => pods(sim, args, rest)?,
        "node" | "nodes" | "no" => nodes(sim, args, rest)?,
        other => {
            return Err(Output::error(format!(
                "unknown command [\"{other}\"]\nSee 'kubectl top -h' for help and examples"
            )))
        }
    };
    if out.code == 0 {
        out.stderr.insert_str(0, NOTE);
    }
    Ok(out)
}

fn sort_by(args: &Args) -> Result<Option<&str>, Output> {
    match args.value("sort-by") {
        None | Some("") => Ok(None),
        Some(s @ ("cpu" | "memory")) => Ok(Some(s)),
        Some(_) => Err(Output::error("--sort-by accepts only cpu or memory")),
    }
}

fn cpu(m: i64) -> String {
    format!("{m}m")
}

fn mem(bytes: i64) -> String {
    format!("{}Mi", bytes / (1024 * 1024))
}

/// Which nodes' kubelets answer (metrics-server scrapes the kubelets, not the API).
fn kubelet_up(sim: &Sim, node: &str) -> bool {
    sim.kubelet(node).is_some_and(|k| k.alive)
}

/// A pod has figures when it runs on a node whose kubelet answers.
fn measured(sim: &Sim, p: &Pod) -> bool {
    p.status.phase == PodPhase::Running && !p.spec.node_name.is_empty() && kubelet_up(sim, &p.spec.node_name)
}

fn not_found(resource: &'static str, name: &str) -> Result<Output, Output> {
    Ok(Output::api_error(&ApiError::NotFound { resource, name: name.into() }))
}

/// The arguments `top pod` and `top node` share: `--sort-by`, at most one NAME, or a selector (not both; kubectl's
/// two messages name the selector as `selector` and `--selector`).
fn name_or_selector<'a>(
    args: &'a Args,
    rest: &[String],
    resource: &str,
    selector_flag: &str,
) -> Result<(Option<&'a str>, Option<LabelSelector>), Output> {
    let sort = sort_by(args)?;
    if rest.len() > 1 {
        return Err(Output::error(format!(
            "{resource} [NAME | -l label]\nSee 'kubectl top {resource} -h' for help and examples"
        )));
    }
    let selector = match args.value("selector") {
        Some(s) => Some(parse_selector(s).map_err(Output::error)?),
        None => None,
    };
    if !rest.is_empty() && selector.is_some() {
        return Err(Output::error(format!("only one of NAME or {selector_flag} can be provided")));
    }
    Ok((sort, selector))
}

fn pods(sim: &mut Sim, args: &Args, rest: &[String]) -> Result<Output, Output> {
    let (sort, selector) = name_or_selector(args, rest, "pod", "selector")?;
    let all = args.bool("all-namespaces");
    let ns = super::namespace(args);
    let items: Vec<Rc<Object>> = if let Some(name) = rest.first() {
        match sim.as_user(|api| api.get(Kind::Pod, &ObjKey::new(&ns, name))) {
            Ok(o) => vec![o],
            Err(e) if e.is_not_found() => return not_found("podmetrics.metrics.k8s.io", name),
            Err(e) => return Ok(Output::api_error(&e)),
        }
    } else {
        let namespace = (!all).then_some(ns.as_str());
        sim.as_user(|api| api.list(Kind::Pod, namespace, selector.as_ref())).0
    };
    let pods: Vec<&Pod> = items.iter().filter_map(|o| o.as_pod()).collect();
    let mut rows: Vec<(&Pod, i64, i64)> =
        pods.iter().filter(|p| measured(sim, p)).map(|p| (*p, p.request("cpu"), p.request("memory"))).collect();
    if rows.is_empty() {
        if let Some(name) = rest.first() {
            return not_found("podmetrics.metrics.k8s.io", name);
        }
        let now = sim.now();
        if let Some(p) = pods.first() {
            let age = now.saturating_sub(p.metadata.creation_timestamp.map_or(now, |t| t.0));
            return Err(Output::error(format!(
                "Metrics not available for pod {}/{}, age: {}",
                p.metadata.namespace,
                p.metadata.name,
                go_duration(age)
            )));
        }
        let msg =
            if all { "No resources found\n".to_string() } else { format!("No resources found in {ns} namespace.\n") };
        return Ok(Output { stderr: msg, ..Default::default() });
    }
    match sort {
        Some("cpu") => crate::sort::sort_by_key(&mut rows, |r| std::cmp::Reverse(r.1)),
        Some(_) => crate::sort::sort_by_key(&mut rows, |r| std::cmp::Reverse(r.2)),
        None => crate::sort::sort_by(&mut rows, |a, b| {
            (all.then_some(&a.0.metadata.namespace), &a.0.metadata.name)
                .cmp(&(all.then_some(&b.0.metadata.namespace), &b.0.metadata.name))
        }),
    }
    let containers = args.bool("containers");
    let mut table_rows = Vec::new();
    if !args.bool("no-headers") {
        let mut h = Vec::new();
        if all {
            h.push("NAMESPACE".to_string());
        }
        if containers {
            h.push("POD".to_string());
        }
        h.extend(["NAME", "CPU(cores)", "MEMORY(bytes)"].map(String::from));
        table_rows.push(h);
    }
    let (mut total_cpu, mut total_mem) = (0i64, 0i64);
    let mut budget = super::Budget::new();
    for (p, c, m) in &rows {
        total_cpu = total_cpu.saturating_add(*c);
        total_mem = total_mem.saturating_add(*m);
        if budget.full() {
            budget.skip();
            continue;
        }
        let before = table_rows.len();
        let lead: Vec<String> = all.then(|| p.metadata.namespace.to_string()).into_iter().collect();
        if containers {
            for ctr in &p.spec.containers {
                let req = |r: &str| {
                    ctr.resources.requests.get(r).map_or(0, |q| if r == "cpu" { q.milli() } else { q.value() })
                };
                let mut row = lead.clone();
                row.extend([p.metadata.name.to_string(), ctr.name.to_string(), cpu(req("cpu")), mem(req("memory"))]);
                table_rows.push(row);
            }
        } else {
            let mut row = lead;
            row.extend([p.metadata.name.to_string(), cpu(*c), mem(*m)]);
            table_rows.push(row);
        }
        let bytes: usize = table_rows[before..].iter().flatten().map(|c| c.len() + 3).sum();
        if !budget.take(bytes) {
            table_rows.truncate(before);
        }
    }
    if args.bool("sum") {
        let width = 3 + usize::from(all) + usize::from(containers);
        let mut line: Vec<String> = vec![String::new(); width - 2];
        line.extend(["________".to_string(), "________".to_string()]);
        table_rows.push(line);
        let mut line: Vec<String> = vec![String::new(); width - 2];
        line.extend([cpu(total_cpu), mem(total_mem)]);
        table_rows.push(line);
    }
    let mut out = Output::ok(table::render(&table_rows));
    out.stderr.push_str(&budget.note());
    Ok(out)
}

fn nodes(sim: &mut Sim, args: &Args, rest: &[String]) -> Result<Output, Output> {
    let (sort, selector) = name_or_selector(args, rest, "node", "--selector")?;
    let nodes: Vec<Rc<Object>> = if let Some(name) = rest.first() {
        if !kubelet_up(sim, name) {
            return not_found("nodemetrics.metrics.k8s.io", name);
        }
        match sim.as_user(|api| api.get(Kind::Node, &ObjKey::cluster(name))) {
            Ok(o) => vec![o],
            Err(e) if e.is_not_found() => return not_found("nodemetrics.metrics.k8s.io", name),
            Err(e) => return Ok(Output::api_error(&e)),
        }
    } else {
        sim.as_user(|api| api.list(Kind::Node, None, selector.as_ref())).0
    };
    // What each node's running pods request (one LIST of pods, as metrics-server sums its kubelets' reports).
    let (pods, _) = sim.as_user(|api| api.list(Kind::Pod, None, None));
    // One pass over the pods: what the measured ones request, by node (the nodes come in name order, as a LIST
    // returns them: a pod finds its node by a binary search).
    let mut by_node: Vec<(i64, i64)> = vec![(0, 0); nodes.len()];
    for p in pods.iter().filter_map(|p| p.as_pod()).filter(|p| measured(sim, p)) {
        let Ok(i) = nodes.binary_search_by(|n| n.meta().name.as_ref().cmp(p.spec.node_name.as_ref())) else { continue };
        let e = &mut by_node[i];
        *e = (e.0.saturating_add(p.request("cpu")), e.1.saturating_add(p.request("memory")));
    }
    let mut measured_rows = Vec::new();
    let mut missing = Vec::new();
    for (o, &(c, m)) in nodes.iter().zip(&by_node) {
        let Some(n) = o.as_node() else { continue };
        let name = n.metadata.name.to_string();
        if !kubelet_up(sim, &name) {
            missing.push(name);
            continue;
        }
        let alloc = |r: &str| n.status.allocatable.get(r).map(|q| q.milli());
        measured_rows.push((name, c, m, alloc("cpu"), alloc("memory")));
    }
    if measured_rows.is_empty() {
        return Err(Output::error("metrics not available yet"));
    }
    match sort {
        Some("cpu") => crate::sort::sort_by_key(&mut measured_rows, |r| std::cmp::Reverse(r.1)),
        Some(_) => crate::sort::sort_by_key(&mut measured_rows, |r| std::cmp::Reverse(r.2)),
        None => crate::sort::sort_by(&mut measured_rows, |a, b| a.0.cmp(&b.0)),
    }
    crate::sort::sort(&mut missing);
    let mut rows = Vec::new();
    if !args.bool("no-headers") {
        rows.push(["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"].map(String::from).to_vec());
    }
    let pct = |used_milli: i64, avail: Option<i64>| match avail {
        Some(a) if a > 0 => format!("{}%", (used_milli as f64 / a as f64 * 100.0) as i64),
        _ => "0%".to_string(),
    };
    for (name, c, m, ac, am) in measured_rows {
        rows.push(vec![name, cpu(c), pct(c, ac), mem(m), pct(m.saturating_mul(1000), am)]);
    }
    for name in missing {
        let u = "<unknown>".to_string();
        rows.push(vec![name, u.clone(), u.clone(), u.clone(), u]);
    }
    Ok(Output::ok(table::render(&rows)))
}

/// Go's `time.Duration.String()` at second precision (`2m0s`, `1h0m5s`).
fn go_duration(ms: u64) -> String {
    let s = ms / 1000;
    let (h, m, sec) = (s / 3600, (s % 3600) / 60, s % 60);
    match (h, m) {
        (0, 0) => format!("{sec}s"),
        (0, _) => format!("{m}m{sec}s"),
        _ => format!("{h}h{m}m{sec}s"),
    }
}
