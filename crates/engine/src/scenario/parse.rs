//! Parsing: the raw (serde) form, then checks with lines.

use super::*;

/// A duration: `500ms`, `30s`, `2m`, `1h30m`, or a number of seconds.
#[derive(Clone, Copy, Debug)]
pub(super) struct Dur(Millis);

impl<'de> Deserialize<'de> for Dur {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Dur;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as 500ms, 30s, 2m or 1h30m")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dur, E> {
                parse_duration(v).map(Dur).map_err(E::custom)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dur, E> {
                match v.checked_mul(SECOND) {
                    Some(ms) if ms <= MAX_DURATION => Ok(Dur(ms)),
                    _ => Err(E::custom(format!("invalid duration {v}: too large (at most 2562047h47m16.854s)"))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dur, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: must not be negative")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Dur, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: too large")))
                    .and_then(|v| self.visit_u64(v))
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Dur, E> {
                u128::try_from(v)
                    .map_err(|_| E::custom(format!("invalid duration {v}: must not be negative")))
                    .and_then(|v| self.visit_u128(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Dur, E> {
                parse_duration(&v.to_string()).map(Dur).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// Manifest text: a string (one or more YAML documents), or YAML written inline (one object, or a list of them).
#[derive(Clone, Debug)]
pub(super) struct ManifestText(String);

impl<'de> Deserialize<'de> for ManifestText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ManifestText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("manifest text (a YAML string such as `apply: |`), an object or a list of objects")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ManifestText, E> {
                Ok(ManifestText(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ManifestText, A::Error> {
                let v = serde_yaml::Value::deserialize(de::value::MapAccessDeserializer::new(map))?;
                serde_yaml::to_string(&v).map(ManifestText).map_err(de::Error::custom)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ManifestText, A::Error> {
                let mut docs = Vec::new();
                while let Some(v) = seq.next_element::<serde_yaml::Value>()? {
                    docs.push(serde_yaml::to_string(&v).map_err(de::Error::custom)?);
                }
                Ok(ManifestText(docs.join("---\n")))
            }
        }
        d.deserialize_any(V)
    }
}

/// `nodes:` is a count or a list.
pub(super) enum RawNodes {
    Count(u64),
    List(Vec<RawNode>),
}

impl Default for RawNodes {
    fn default() -> Self {
        RawNodes::Count(0)
    }
}

impl<'de> Deserialize<'de> for RawNodes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawNodes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number of nodes or a list of nodes")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RawNodes, E> {
                if v > MAX_NODES as u64 {
                    return Err(E::custom(format!("{v} nodes: kubeloop simulates at most {MAX_NODES} nodes")));
                }
                Ok(RawNodes::Count(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RawNodes, E> {
                match u64::try_from(v) {
                    Ok(v) => self.visit_u64(v),
                    Err(_) => Err(E::custom(format!("invalid number of nodes {v}"))),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawNodes, A::Error> {
                let mut out = Vec::new();
                while let Some(n) = seq.next_element::<RawNode>()? {
                    out.push(n);
                    if out.len() > MAX_NODES {
                        return Err(de::Error::custom(format!("kubeloop simulates at most {MAX_NODES} nodes")));
                    }
                }
                Ok(RawNodes::List(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// A taint effect, checked.
pub(super) struct Effect(String);

impl<'de> Deserialize<'de> for Effect {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = String::deserialize(d)?;
        match v.as_str() {
            "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Ok(Effect(v)),
            _ => Err(de::Error::custom(format!(
                "unsupported taint effect {:?}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                echo(&v)
            ))),
        }
    }
}

/// A kind as kubectl names it: `pod`, `pods`, `po`, `Deployment`, `deploy`, `rs`, `no`, `ns`...
pub(super) struct KindName(Kind);

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = String::deserialize(d)?;
        parse_kind(&v).map(KindName).map_err(de::Error::custom)
    }
}

/// Parses a kind the way kubectl resolves resource names ([`crate::kubectl::resource::kind_of`]: singular,
/// plural, short name or kind, any case, optional group). The error is kubectl's.
pub fn parse_kind(name: &str) -> Result<Kind, String> {
    crate::kubectl::resource::kind_of(name.trim())
}

/// A label selector in kubectl's `-l` syntax, checked.
pub(super) struct Sel(LabelSelector, String);

impl<'de> Deserialize<'de> for Sel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = String::deserialize(d)?;
        match parse_selector(&v) {
            Ok(sel) => Ok(Sel(sel, v)),
            Err(e) => Err(de::Error::custom(format!("invalid selector {:?}: {e}", echo(&v)))),
        }
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a scenario: a mapping with seed, until, cluster, manifests and actions"
)]
pub(super) struct RawScenario {
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    until: Option<Dur>,
    #[serde(default)]
    cluster: Option<RawCluster>,
    #[serde(default)]
    manifests: Option<ManifestText>,
    #[serde(default)]
    actions: Vec<RawAction>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase", expecting = "a cluster: a mapping with nodes and nodeTemplate")]
pub(super) struct RawCluster {
    #[serde(default)]
    nodes: RawNodes,
    #[serde(default)]
    node_template: Option<RawNode>,
}

#[derive(Deserialize, Default)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a node: a mapping with name, cpu, memory, pods, labels and taints"
)]
pub(super) struct RawNode {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    cpu: Option<Quantity>,
    #[serde(default)]
    memory: Option<Quantity>,
    #[serde(default)]
    pods: Option<u32>,
    #[serde(default)]
    labels: Option<BTreeMap<String, String>>,
    #[serde(default)]
    taints: Option<Vec<RawTaint>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a taint: a mapping with key, value and effect")]
pub(super) struct RawTaint {
    key: String,
    #[serde(default)]
    value: String,
    effect: Effect,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "an action: a mapping with at and one of apply, kubectl, scale, delete, killNode, reviveNode, addNode"
)]
pub(super) struct RawAction {
    at: Dur,
    #[serde(default)]
    apply: Option<ManifestText>,
    #[serde(default)]
    kubectl: Option<String>,
    #[serde(default)]
    scale: Option<RawScale>,
    #[serde(default)]
    delete: Option<RawDelete>,
    #[serde(default)]
    kill_node: Option<String>,
    #[serde(default)]
    revive_node: Option<String>,
    #[serde(default, deserialize_with = "null_is_default")]
    add_node: Option<RawNode>,
    #[serde(default)]
    fault: Option<RawFault>,
    #[serde(default)]
    mode: Option<RawMode>,
}

/// A fraction: `0.3` or `"30%"`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fraction(f64);

impl<'de> Deserialize<'de> for Fraction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Fraction;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a fraction from 0 to 1, or a percentage such as 30%")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Fraction, E> {
                if (0.0..=1.0).contains(&v) {
                    Ok(Fraction(v))
                } else {
                    Err(E::custom(format!("{v} is not a fraction from 0 to 1 (write 30% for a percentage)")))
                }
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Fraction, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Fraction, E> {
                self.visit_f64(v as f64)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Fraction, E> {
                let p: f64 = v
                    .trim()
                    .strip_suffix('%')
                    .and_then(|p| p.trim().parse().ok())
                    .ok_or_else(|| E::custom(format!("{:?} is not a percentage such as 30%", echo(v))))?;
                if (0.0..=100.0).contains(&p) {
                    Ok(Fraction(p / 100.0))
                } else {
                    Err(E::custom(format!("{} is not a percentage from 0% to 100%", echo(v))))
                }
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping of faults: dropWatchEvents, conflicts, apiLatency, rejectPodCreates, disconnectWatches, forceRelist, crash, restart, informer"
)]
pub(super) struct RawFault {
    #[serde(default)]
    drop_watch_events: Option<Fraction>,
    #[serde(default)]
    conflicts: Option<Fraction>,
    #[serde(default)]
    api_latency: Option<Dur>,
    #[serde(default)]
    reject_pod_creates: Option<bool>,
    #[serde(default)]
    disconnect_watches: bool,
    #[serde(default)]
    force_relist: bool,
    #[serde(default)]
    crash: Option<String>,
    #[serde(default)]
    restart: Option<String>,
    #[serde(default)]
    informer: Option<String>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping of modes: trigger, observe, pollPeriod, relistPeriod, resyncPeriod"
)]
pub(super) struct RawMode {
    /// `level`, `edge`, or `CONTROLLER=edge`.
    #[serde(default)]
    trigger: Option<String>,
    /// `informer` or `polling`.
    #[serde(default)]
    observe: Option<String>,
    #[serde(default)]
    poll_period: Option<Dur>,
    #[serde(default)]
    relist_period: Option<Dur>,
    #[serde(default)]
    resync_period: Option<Dur>,
}

pub(super) const CONTROLLERS: [&str; 7] =
    ["deployment", "replicaset", "nodelifecycle", "tainteviction", "garbagecollector", "namespace", "scheduler"];

pub(super) fn parse_trigger(v: &str) -> Result<(Option<String>, TriggerMode), String> {
    let (controller, mode) = match v.split_once('=') {
        Some((c, m)) => (Some(c.trim().to_string()), m.trim()),
        None => (None, v.trim()),
    };
    let mode = match mode {
        "level" => TriggerMode::Level,
        "edge" => TriggerMode::Edge,
        other => return Err(format!("trigger: {:?} is not a trigger mode: level or edge", echo(other))),
    };
    if let Some(c) = &controller {
        if !CONTROLLERS.contains(&c.as_str()) {
            return Err(format!("trigger: no controller {:?}; controllers: {}", echo(c), CONTROLLERS.join(", ")));
        }
    }
    Ok((controller, mode))
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping with deployment or replicaset, replicas and namespace"
)]
pub(super) struct RawScale {
    #[serde(default)]
    deployment: Option<String>,
    #[serde(default)]
    replicaset: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    replicas: u32,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    rename_all = "camelCase",
    expecting = "a mapping with kind, name or selector, and namespace"
)]
pub(super) struct RawDelete {
    kind: KindName,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    selector: Option<Sel>,
    #[serde(default)]
    namespace: Option<String>,
}

/// `addNode:` with no value adds a node of the template's shape, like `addNode: {}`.
pub(super) fn null_is_default<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RawNode>, D::Error> {
    Option::<RawNode>::deserialize(d).map(|n| Some(n.unwrap_or_default()))
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing and checks

/// The lines of the scenario text: [`Lines::of`] a path is its line (the nearest ancestor found; flow-style
/// values are not entered). Indexed once, so that a scenario of many actions is read in linear time.
pub(super) struct Lines<'a> {
    text: &'a str,
    index: LineIndex<'a>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        Lines { text, index: LineIndex::new(text) }
    }

    fn of(&self, path: &[&str]) -> usize {
        self.index.nearest_line_of_path(path)
    }
}

/// Applies a node entry over a base shape and checks it as the API server would check the Node.
pub(super) fn node_config(
    raw: &RawNode,
    base: &NodeConfig,
    lines: &Lines,
    path: &[&str],
) -> Result<NodeConfig, ScenarioError> {
    let mut c = base.clone();
    if let Some(n) = &raw.name {
        c.name = n.clone();
    }
    if let Some(q) = &raw.cpu {
        c.cpu = q.clone();
    }
    if let Some(q) = &raw.memory {
        c.memory = q.clone();
    }
    if let Some(p) = raw.pods {
        c.pods = p as i64;
    }
    if let Some(labels) = &raw.labels {
        c.labels = labels.iter().map(|(k, v)| (s(k), s(v))).collect();
    }
    if let Some(taints) = &raw.taints {
        c.taints = taints
            .iter()
            .map(|t| Taint { key: s(&t.key), value: s(&t.value), effect: s(&t.effect.0), time_added: None })
            .collect();
    }
    // The Node the kubelet will register, checked now so that a bad name or label is a scenario error.
    let mut node = crate::api::Node::default();
    node.metadata.name = s(if c.name.is_empty() { "node-1" } else { &c.name });
    node.metadata.labels = c.labels.clone();
    node.spec.taints = c.taints.clone();
    let obj = Object::Node(node);
    let errs = crate::admission::validate(&obj);
    if let Some(first) = errs.first() {
        let seg = first.segments();
        let field = match seg.first().map(String::as_str) {
            Some("metadata") => seg.get(1).map(String::as_str).unwrap_or("name"),
            Some("spec") => "taints",
            _ => "name",
        };
        let mut p: Vec<&str> = path.to_vec();
        p.push(field);
        return Err(ScenarioError::at(lines.of(&p), crate::admission::invalid_message(&obj, &errs)));
    }
    Ok(c)
}

pub(super) fn check_name(lines: &Lines, path: &[&str], what: &str, name: &str) -> Result<(), ScenarioError> {
    if name.trim().is_empty() {
        return Err(ScenarioError::at(lines.of(path), format!("{what}: a name is required")));
    }
    Ok(())
}

impl Scenario {
    /// Parses and checks a scenario.
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        let blank = text.lines().all(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#') || t == "---"
        });
        if blank {
            return Err(ScenarioError::new("the scenario is empty: it needs at least `cluster:` with some nodes"));
        }
        // kubeloop's YAML budgets (size, nesting, no anchors or aliases), before serde_yaml reads the text.
        yamlcheck::check(text, Subject::Scenario, 1)
            .map_err(|r| ScenarioError::located(Some(r.line), r.column, &r.message))?;
        let raw: RawScenario = serde_yaml::from_str(text).map_err(|e| yaml_error(&e))?;
        let lines = Lines::new(text);

        let cluster = raw.cluster.unwrap_or_default();
        let mut node_template = NodeConfig::default();
        if let Some(t) = &cluster.node_template {
            if t.name.is_some() {
                let line = lines.of(&["cluster", "nodeTemplate", "name"]);
                return Err(ScenarioError::at(line, "cluster.nodeTemplate: a template has no name"));
            }
            node_template = node_config(t, &node_template, &lines, &["cluster", "nodeTemplate"])?;
        }
        let mut nodes = Vec::new();
        match &cluster.nodes {
            RawNodes::Count(n) => {
                nodes.extend((0..*n).map(|_| node_template.clone()));
            }
            RawNodes::List(list) => {
                let mut seen: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
                for (i, n) in list.iter().enumerate() {
                    let idx = i.to_string();
                    let path = ["cluster", "nodes", idx.as_str()];
                    let c = node_config(n, &node_template, &lines, &path)?;
                    if !c.name.is_empty() {
                        if seen.contains(&c.name) {
                            let line = lines.of(&["cluster", "nodes", &idx, "name"]);
                            return Err(ScenarioError::at(
                                line,
                                format!("cluster.nodes[{i}]: node name {:?} is used twice", echo(&c.name)),
                            ));
                        }
                        seen.insert(c.name.clone());
                    }
                    nodes.push(c);
                }
            }
        }

        let manifests = match raw.manifests {
            Some(m) => {
                check_manifests(&lines, &m.0)?;
                Some(m.0)
            }
            None => None,
        };

        let mut actions = Vec::new();
        let mut node_count = nodes.len();
        let mut accepted_words = std::collections::BTreeSet::new();
        for (i, a) in raw.actions.into_iter().enumerate() {
            let idx = i.to_string();
            let line = lines.of(&["actions", &idx]);
            let mut given = Vec::new();
            if a.apply.is_some() {
                given.push("apply");
            }
            if a.kubectl.is_some() {
                given.push("kubectl");
            }
            if a.scale.is_some() {
                given.push("scale");
            }
            if a.delete.is_some() {
                given.push("delete");
            }
            if a.kill_node.is_some() {
                given.push("killNode");
            }
            if a.revive_node.is_some() {
                given.push("reviveNode");
            }
            if a.add_node.is_some() {
                given.push("addNode");
            }
            if a.fault.is_some() {
                given.push("fault");
            }
            if a.mode.is_some() {
                given.push("mode");
            }
            let found = if given.is_empty() { "none".to_string() } else { given.join(" and ") };
            let not_one = ScenarioError::at(
                line,
                format!(
                    "actions[{i}]: an action needs exactly one of apply, kubectl, scale, delete, killNode, reviveNode, addNode, fault, mode (found {found})"
                ),
            );
            if given.len() != 1 {
                return Err(not_one);
            }
            let kind = if let Some(m) = a.apply {
                // Applied when the action runs (an error then is the timeline's), but held to the budgets now.
                crate::manifest::check_budgets(&m.0).map_err(|e| {
                    manifest_error(&lines, &["actions", &idx, "apply"], Some(line), &format!("actions[{i}].apply"), e)
                })?;
                ActionKind::Apply(m.0)
            } else if let Some(k) = a.kubectl {
                let line = lines.of(&["actions", &idx, "kubectl"]);
                let command = check_kubectl(&k, &mut accepted_words)
                    .map_err(|e| ScenarioError::at(line, format!("actions[{i}].kubectl: {e}")))?;
                ActionKind::Kubectl(command)
            } else if let Some(sc) = a.scale {
                let (kind, name) = match (sc.deployment, sc.replicaset) {
                    (Some(d), None) => (Kind::Deployment, d),
                    (None, Some(r)) => (Kind::ReplicaSet, r),
                    _ => {
                        return Err(ScenarioError::at(
                            lines.of(&["actions", &idx, "scale"]),
                            format!("actions[{i}].scale: name exactly one of deployment or replicaset"),
                        ))
                    }
                };
                check_name(&lines, &["actions", &idx, "scale"], &format!("actions[{i}].scale"), &name)?;
                if sc.replicas > i32::MAX as u32 {
                    return Err(ScenarioError::at(line, format!("actions[{i}].scale: too many replicas")));
                }
                let ns = sc.namespace.unwrap_or_else(|| "default".into());
                ActionKind::Scale { kind, key: ObjKey::new(&ns, &name), replicas: sc.replicas }
            } else if let Some(d) = a.delete {
                let target = match (d.name, d.selector) {
                    (Some(n), None) => {
                        check_name(&lines, &["actions", &idx, "delete"], &format!("actions[{i}].delete"), &n)?;
                        DeleteTarget::Name(n)
                    }
                    (None, Some(Sel(sel, t))) => DeleteTarget::Selector(sel, t),
                    _ => {
                        return Err(ScenarioError::at(
                            lines.of(&["actions", &idx, "delete"]),
                            format!("actions[{i}].delete: give exactly one of name or selector"),
                        ))
                    }
                };
                if d.namespace.is_some() && !d.kind.0.namespaced() {
                    return Err(ScenarioError::at(
                        lines.of(&["actions", &idx, "delete", "namespace"]),
                        format!("actions[{i}].delete: a {} is not namespaced", d.kind.0.name()),
                    ));
                }
                ActionKind::Delete { kind: d.kind.0, namespace: d.namespace, target }
            } else if let Some(n) = a.kill_node {
                check_name(&lines, &["actions", &idx], &format!("actions[{i}].killNode"), &n)?;
                ActionKind::KillNode(n)
            } else if let Some(n) = a.revive_node {
                check_name(&lines, &["actions", &idx], &format!("actions[{i}].reviveNode"), &n)?;
                ActionKind::ReviveNode(n)
            } else if let Some(n) = a.add_node {
                node_count += 1;
                if node_count > MAX_NODES {
                    return Err(ScenarioError::at(
                        line,
                        format!("actions[{i}].addNode: kubeloop simulates at most {MAX_NODES} nodes"),
                    ));
                }
                ActionKind::AddNode(node_config(&n, &node_template, &lines, &["actions", &idx, "addNode"])?)
            } else if let Some(f) = a.fault {
                let at = |k: &str| lines.of(&["actions", &idx, "fault", k]);
                for (name, key) in [(&f.crash, "crash"), (&f.restart, "restart")] {
                    if let Some(n) = name {
                        if process_index(n).is_none() {
                            return Err(ScenarioError::at(
                                at(key),
                                format!(
                                    "actions[{i}].fault.{key}: no process {:?}; processes: {}",
                                    echo(n),
                                    PROCESSES.join(", ")
                                ),
                            ));
                        }
                    }
                }
                let informer = match f.informer.as_deref() {
                    None => None,
                    Some(t) => {
                        let parsed = t.split_once('/').and_then(|(p, r)| {
                            process_index(p)?;
                            crate::kubectl::resource::kind_of(r).ok().map(|k| (p.to_string(), k))
                        });
                        match parsed {
                            Some(x) => Some(x),
                            None => {
                                return Err(ScenarioError::at(
                                    at("informer"),
                                    format!("actions[{i}].fault.informer: {:?} is not PROCESS/RESOURCE (e.g. cp-1/pods; processes: {})", echo(t), PROCESSES.join(", ")),
                                ))
                            }
                        }
                    }
                };
                let fa = FaultAction {
                    drop_watch_events: f.drop_watch_events.map(|x| x.0),
                    conflicts: f.conflicts.map(|x| x.0),
                    api_latency: match f.api_latency {
                        Some(Dur(l)) if l > MAX_API_LATENCY => {
                            return Err(ScenarioError::at(
                                at("apiLatency"),
                                format!(
                                    "actions[{i}].fault.apiLatency: {} is too long: at most {} (kube-apiserver's \
                                     default --request-timeout: a request that takes longer times out)",
                                    human_duration(l),
                                    human_duration(MAX_API_LATENCY)
                                ),
                            ))
                        }
                        l => l.map(|d| d.0),
                    },
                    reject_pod_creates: f.reject_pod_creates,
                    disconnect_watches: f.disconnect_watches,
                    force_relist: f.force_relist,
                    crash: f.crash,
                    restart: f.restart,
                    informer,
                };
                if fa == FaultAction::default() {
                    return Err(ScenarioError::at(line, format!("actions[{i}].fault: name at least one fault")));
                }
                ActionKind::Fault(fa)
            } else if let Some(m) = a.mode {
                let at = |k: &str| lines.of(&["actions", &idx, "mode", k]);
                let trigger = match &m.trigger {
                    Some(t) => Some(
                        parse_trigger(t)
                            .map_err(|e| ScenarioError::at(at("trigger"), format!("actions[{i}].mode.{e}")))?,
                    ),
                    None => None,
                };
                let period = |key: &str, d: Option<Dur>, off: bool| -> Result<Option<Millis>, ScenarioError> {
                    let Some(Dur(p)) = d else { return Ok(None) };
                    check_period(p, off, key == "resyncPeriod")
                        .map(Some)
                        .map_err(|e| ScenarioError::at(at(key), format!("actions[{i}].mode.{key}: {e}")))
                };
                let poll_period = period("pollPeriod", m.poll_period, false)?;
                if poll_period.is_some() && m.observe.as_deref() != Some("polling") {
                    return Err(ScenarioError::at(
                        at("pollPeriod"),
                        format!("actions[{i}].mode: pollPeriod needs observe: polling (in the same action)"),
                    ));
                }
                let observe = match m.observe.as_deref() {
                    None => None,
                    Some("informer") => Some(ObserveMode::Informer),
                    Some("polling") => {
                        Some(ObserveMode::Polling { period: poll_period.unwrap_or(crate::sim::DEFAULT_POLL_PERIOD) })
                    }
                    Some(o) => {
                        return Err(ScenarioError::at(
                            at("observe"),
                            format!(
                                "actions[{i}].mode.observe: {:?} is not an observe mode: informer or polling",
                                echo(o)
                            ),
                        ))
                    }
                };
                let ma = ModeAction {
                    trigger,
                    observe,
                    relist_period: period("relistPeriod", m.relist_period, true)?,
                    resync_period: period("resyncPeriod", m.resync_period, true)?,
                };
                if ma == ModeAction::default() {
                    return Err(ScenarioError::at(line, format!("actions[{i}].mode: name at least one mode")));
                }
                ActionKind::Mode(ma)
            } else {
                return Err(not_one);
            };
            actions.push(Action { at: a.at.0, kind, line });
        }
        actions.sort_by_key(|a| a.at); // stable: same-time actions keep their order

        let until = raw.until.map(|d| d.0);
        if until.is_some_and(|u| u > MAX_UNTIL) {
            return Err(ScenarioError::at(
                lines.of(&["until"]),
                format!("until: a run lasts at most {}", human_duration(MAX_UNTIL)),
            ));
        }
        Ok(Scenario { seed: raw.seed, until, node_template, nodes, manifests, actions })
    }
}

/// A period of a `mode:` action: 0 when `off` allows it (the period is then off), else from [`MIN_PERIOD`] to
/// [`MAX_PERIOD`]. The error says why (`resync`: client-go's minimum).
pub(super) fn check_period(p: Millis, off: bool, resync: bool) -> Result<Millis, String> {
    if p == 0 && off {
        return Ok(0);
    }
    let zero = if off { ", or 0 to turn it off" } else { "" };
    if p < MIN_PERIOD {
        let why = if resync {
            "client-go's minimum resync period of 1s".to_string()
        } else {
            format!(
                "kubeloop's minimum of {}: every poll or relist LISTs every resource the controllers read, and a \
                 shorter period would flood the run with requests",
                human_duration(MIN_PERIOD)
            )
        };
        return Err(format!(
            "{} is too short: at least {} ({why}){zero}",
            human_duration(p),
            human_duration(MIN_PERIOD)
        ));
    }
    if p > MAX_PERIOD {
        return Err(format!(
            "{} is too long: at most {} (the longest run){zero}",
            human_duration(p),
            human_duration(MAX_PERIOD)
        ));
    }
    Ok(p)
}

/// `kubectl: "..."` checked as far as it can be without running it: the words split, the command is one kubeloop
/// runs, and its flags parse. Returns the command line without the leading `kubectl`. `accepted`: the words that
/// are not commands but that kubectl ran without an error (`help`), found earlier in the scenario.
pub(super) fn check_kubectl(
    written: &str,
    accepted: &mut std::collections::BTreeSet<String>,
) -> Result<String, String> {
    use crate::kubectl::{args, COMMANDS};
    let t = written.trim();
    let command = ["kubectl", "k"]
        .iter()
        .find_map(|k| t.strip_prefix(k).filter(|r| r.is_empty() || r.starts_with(char::is_whitespace)))
        .map_or(t, str::trim_start);
    let words = args::split_words(command)?;
    // Global flags may come before the command (`-n team-a get pods`), as kubectl::run allows.
    let mut i = 0;
    while let Some(w) = words.get(i).map(String::as_str) {
        if w == "-n" || w == "--namespace" {
            i += 2;
        } else if (w.starts_with("-n") && w.len() > 2) || w.starts_with("--namespace=") {
            i += 1;
        } else {
            break;
        }
    }
    let Some(name) = words.get(i) else {
        return Err("a command is required, such as `kubectl: get pods`".into());
    };
    let Some(cmd) = COMMANDS.iter().find(|c| c.name == name) else {
        if name.chars().nth(crate::limits::ECHO_MAX_CHARS).is_some() {
            // No command is that long: kubectl's suggestions would compare all of it with every command name.
            return Err(format!("unknown command \"{}\" for \"kubectl\"", echo(name)));
        }
        // `help`, or kubectl's own message: an unknown command (with suggestions), one kubeloop does not simulate,
        // a flag. A word that is not a command runs nothing. (Asked once per word: a scenario may repeat it.)
        if accepted.contains(name.as_str()) {
            return Ok(command.to_string());
        }
        let mut sim = Sim::new(SimConfig::default());
        let out = crate::kubectl::run(&mut sim, &quoted(name), &crate::kubectl::Input::none());
        if out.code == 0 {
            accepted.insert(name.clone());
            return Ok(command.to_string());
        }
        let msg = out.stderr.trim_end();
        return Err(msg.strip_prefix("error: ").unwrap_or(msg).to_string());
    };
    let mut rest: Vec<String> = words[..i].to_vec();
    rest.extend(words[i + 1..].iter().cloned());
    if let Err(e) = args::Args::parse(&rest, cmd.flags) {
        return Err(format!("{e} (see `kubectl {} --help`)", cmd.name));
    }
    Ok(command.to_string())
}

/// The t=0 manifests must parse and validate: a scenario whose main content is broken is refused before it runs.
pub(super) fn check_manifests(scenario: &Lines, manifests: &str) -> Result<(), ScenarioError> {
    let result = crate::manifest::parse(manifests).and_then(|(ms, _)| {
        if ms.is_empty() {
            return Err(ManifestError::new(0, 1, None, "no objects passed to apply"));
        }
        ms.iter().try_for_each(crate::manifest::validate)
    });
    result.map_err(|e| manifest_error(scenario, &["manifests"], None, "manifests", e))
}

/// A problem of the manifest text written at `path` in the scenario (`manifests`, `actions.N.apply`). Its lines
/// are the scenario's when the text is a block scalar (`manifests: |`); otherwise the error is on the key's line
/// (or `fallback`) and names the line within the text.
pub(super) fn manifest_error(
    scenario: &Lines,
    path: &[&str],
    fallback: Option<usize>,
    what: &str,
    e: ManifestError,
) -> ScenarioError {
    let key_line = scenario.index.line_of_path(path);
    let block = key_line.and_then(|l| scenario.text.lines().nth(l - 1)).is_some_and(|l| {
        let value = l.split_once(':').map_or("", |(_, v)| v.trim_start());
        value.starts_with('|')
    });
    let document = if e.document == 0 { String::new() } else { format!("document {}", e.document) };
    match (key_line, block) {
        (Some(l), true) => {
            let message = match document.as_str() {
                "" => format!("{what}: {}", e.message),
                d => format!("{what} ({d}): {}", e.message),
            };
            ScenarioError::located(Some(l + e.line), e.column, &message)
        }
        (l, _) => {
            let message = match document.as_str() {
                "" => format!("{what}: line {}: {}", e.line, e.message),
                d => format!("{what}: {d}, line {}: {}", e.line, e.message),
            };
            ScenarioError::located(l.or(fallback), None, &message)
        }
    }
}
