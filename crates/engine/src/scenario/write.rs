//! Writing a scenario back as the YAML it is read from: every intervention has one serialised form, and
//! [`Scenario::parse`] of what [`Scenario::to_yaml`] writes is the same scenario. Strings are written as
//! double-quoted YAML (JSON's escapes), so any text, manifests included, comes back exactly.

use std::fmt::Write as _;

use super::*;
use crate::behaviour::Sigterm;
use crate::time::go_duration_string;

/// A string as a double-quoted YAML scalar.
fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn node_yaml(n: &NodeConfig) -> String {
    let mut out = String::from("{");
    if !n.name.is_empty() {
        let _ = write!(out, "name: {}, ", q(&n.name));
    }
    let _ = write!(out, "cpu: {}, memory: {}, pods: {}", q(n.cpu.as_str()), q(n.memory.as_str()), n.pods);
    if !n.labels.is_empty() {
        let labels: Vec<String> = n.labels.iter().map(|(k, v)| format!("{}: {}", q(k), q(v))).collect();
        let _ = write!(out, ", labels: {{{}}}", labels.join(", "));
    }
    if !n.taints.is_empty() {
        let taints: Vec<String> = n
            .taints
            .iter()
            .map(|t| format!("{{key: {}, value: {}, effect: {}}}", q(&t.key), q(&t.value), q(&t.effect)))
            .collect();
        let _ = write!(out, ", taints: [{}]", taints.join(", "));
    }
    out.push('}');
    out
}

fn fault_yaml(f: &FaultAction) -> String {
    let mut parts = Vec::new();
    if let Some(v) = f.drop_watch_events {
        parts.push(format!("dropWatchEvents: {v:?}"));
    }
    if let Some(v) = f.conflicts {
        parts.push(format!("conflicts: {v:?}"));
    }
    if let Some(v) = f.api_latency {
        parts.push(format!("apiLatency: {}", go_duration_string(v)));
    }
    if let Some(v) = f.reject_pod_creates {
        parts.push(format!("rejectPodCreates: {v}"));
    }
    if f.disconnect_watches {
        parts.push("disconnectWatches: true".into());
    }
    if f.force_relist {
        parts.push("forceRelist: true".into());
    }
    if let Some(h) = f.crash {
        parts.push(format!("crash: {}", q(&crate::intervention::process_name(h))));
    }
    if let Some(h) = f.restart {
        parts.push(format!("restart: {}", q(&crate::intervention::process_name(h))));
    }
    if let Some((h, k)) = f.informer {
        parts.push(format!("informer: {}", q(&format!("{}/{}", crate::intervention::process_name(h), k.plural()))));
    }
    format!("{{{}}}", parts.join(", "))
}

fn mode_yaml(m: &ModeAction) -> String {
    let mut parts = Vec::new();
    if let Some((c, mode)) = &m.trigger {
        let t = match c {
            Some(c) => format!("{c}={}", mode.as_str()),
            None => mode.as_str().to_string(),
        };
        parts.push(format!("trigger: {}", q(&t)));
    }
    match m.observe {
        Some(ObserveMode::Informer) => parts.push("observe: informer".into()),
        Some(ObserveMode::Polling { period }) => {
            parts.push(format!("observe: polling, pollPeriod: {}", go_duration_string(period)))
        }
        None => {}
    }
    if let Some(p) = m.relist_period {
        parts.push(format!("relistPeriod: {}", go_duration_string(p)));
    }
    if let Some(p) = m.resync_period {
        parts.push(format!("resyncPeriod: {}", go_duration_string(p)));
    }
    format!("{{{}}}", parts.join(", "))
}

fn node_ref_yaml(n: &NodeRef) -> String {
    match n {
        NodeRef::Name(name) => q(name),
        NodeRef::OfPod(_, sel) => format!("{{nodeOf: {}}}", q(sel)),
        NodeRef::Every => "{every: true}".into(),
    }
}

fn app_yaml(a: &AppAction) -> String {
    let mut parts = Vec::new();
    match &a.target {
        AppTarget::Image(i) => parts.push(format!("image: {}", q(i))),
        AppTarget::Pod { namespace, name } => {
            parts.push(format!("pod: {}", q(name)));
            parts.push(format!("namespace: {}", q(namespace)));
        }
        AppTarget::PodOf { namespace, text, .. } => {
            parts.push(format!("podOf: {}", q(text)));
            parts.push(format!("namespace: {}", q(namespace)));
        }
    }
    if let Some(c) = &a.container {
        parts.push(format!("container: {}", q(c)));
    }
    let p = &a.patch;
    let fails = |v: bool| if v { "fail" } else { "pass" };
    if let Some(v) = p.readiness_fails {
        parts.push(format!("readiness: {}", fails(v)));
    }
    if let Some(v) = p.liveness_fails {
        parts.push(format!("liveness: {}", fails(v)));
    }
    if let Some(v) = p.starts_after {
        parts.push(format!("startsAfter: {}", go_duration_string(v.unwrap_or(0))));
    }
    if let Some(v) = p.crash_after {
        parts.push(format!("crashAfter: {}", go_duration_string(v.unwrap_or(0))));
    }
    if let Some(Some(c)) = p.exit_code {
        parts.push(format!("exitCode: {c}"));
    }
    if let Some(v) = p.unpullable {
        parts.push(format!("pullable: {}", !v));
    }
    match p.on_sigterm {
        Some(Some(Sigterm::Ignore)) => parts.push("sigterm: ignore".into()),
        Some(Some(Sigterm::ExitAfter(d))) => parts.push(format!("sigterm: {}", go_duration_string(d))),
        Some(None) => parts.push("sigterm: exit".into()),
        None => {}
    }
    if let Some(Some(d)) = p.pre_stop_takes {
        parts.push(format!("preStop: {}", go_duration_string(d)));
    }
    if a.crash {
        parts.push("crash: true".into());
    }
    format!("{{{}}}", parts.join(", "))
}

/// An action's `actions:` entry (one line, flow style).
pub fn action_yaml(a: &Action) -> String {
    let body = match &a.what {
        Intervention::Apply(text) => format!("apply: {}", q(text)),
        Intervention::Kubectl(line) => format!("kubectl: {}", q(line)),
        Intervention::Scale { kind, key, replicas } => {
            let res = if *kind == Kind::ReplicaSet { "replicaset" } else { "deployment" };
            format!("scale: {{{res}: {}, namespace: {}, replicas: {replicas}}}", q(&key.name), q(&key.namespace))
        }
        Intervention::Delete { kind, namespace, target, wait } => {
            let mut d = format!("delete: {{kind: {}", kind.name().to_ascii_lowercase());
            match target {
                DeleteTarget::Name(n) => d.push_str(&format!(", name: {}", q(n))),
                DeleteTarget::Selector(_, s) => d.push_str(&format!(", selector: {}", q(s))),
                DeleteTarget::OneOf(_, s) => d.push_str(&format!(", oneOf: {}", q(s))),
            }
            if let Some(ns) = namespace {
                d.push_str(&format!(", namespace: {}", q(ns)));
            }
            d.push_str(&format!(", wait: {wait}}}"));
            d
        }
        Intervention::Cordon { node, on } => format!("{}: {}", if *on { "cordon" } else { "uncordon" }, q(node)),
        Intervention::KillNode(n) => format!("killNode: {}", node_ref_yaml(n)),
        Intervention::ReviveNode(n) => format!("reviveNode: {}", node_ref_yaml(n)),
        Intervention::AddNode(n) => format!("addNode: {}", node_yaml(n)),
        Intervention::Fault(f) => format!("fault: {}", fault_yaml(f)),
        Intervention::Mode(m) => format!("mode: {}", mode_yaml(m)),
        Intervention::App(a) => format!("app: {}", app_yaml(a)),
    };
    let label = a.label.as_deref().map(|l| format!(", label: {}", q(l))).unwrap_or_default();
    let stop = a.stop_after.map(|d| format!(", for: {}", go_duration_string(d))).unwrap_or_default();
    format!("- {{at: {}{label}, {body}{stop}}}", go_duration_string(a.at))
}

impl Scenario {
    /// The scenario as a file [`Scenario::parse`] reads back to the same scenario.
    pub fn to_yaml(&self) -> String {
        let mut out = String::new();
        if let Some(s) = self.seed {
            let _ = writeln!(out, "seed: {s}");
        }
        if let Some(u) = self.until {
            let _ = writeln!(out, "until: {}", go_duration_string(u));
        }
        let _ = writeln!(out, "timing: {}", self.timing.as_str());
        let _ = writeln!(out, "cluster:\n  nodeTemplate: {}", node_yaml(&self.node_template));
        if !self.addons {
            let _ = writeln!(out, "  addons: false");
        }
        if self.nodes.is_empty() {
            let _ = writeln!(out, "  nodes: 0");
        } else {
            let _ = writeln!(out, "  nodes:");
            for n in &self.nodes {
                let _ = writeln!(out, "  - {}", node_yaml(n));
            }
        }
        if let Some(m) = &self.manifests {
            let _ = writeln!(out, "manifests: {}", q(m));
        }
        if !self.actions.is_empty() {
            let _ = writeln!(out, "actions:");
            for a in &self.actions {
                let _ = writeln!(out, "  {}", action_yaml(a));
            }
        }
        out
    }
}
