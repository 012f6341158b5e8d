//! Parsing: the raw (serde) form, then checks with lines.

use super::*;
use crate::decode::{Any, Cx, Shape};
use crate::yamltree::{Node, Scalar};

/// Manifest text: a string (one or more YAML documents), or YAML written inline (one object, or a list of them).
#[derive(Clone, Debug)]
pub(super) struct ManifestText(pub(super) String);

#[cfg(test)]
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
        RawNodes::Count(super::DEFAULT_NODES)
    }
}

#[cfg(test)]
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
pub(super) struct Effect(pub(super) String);

#[cfg(test)]
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

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a scenario: a mapping with seed, until, timing, cluster, manifests, actions and lesson"
    )
)]
pub(super) struct RawScenario {
    #[cfg_attr(test, serde(default))]
    seed: Option<u64>,
    #[cfg_attr(test, serde(default))]
    until: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    cluster: Option<RawCluster>,
    #[cfg_attr(test, serde(default))]
    manifests: Option<ManifestText>,
    #[cfg_attr(test, serde(default))]
    actions: Vec<RawAction>,
    /// `real` (upstream's, the default) or `fast-demo` (kubeloop's own shorter node failure timings).
    #[cfg_attr(test, serde(default))]
    timing: Option<String>,
    #[cfg_attr(test, serde(default))]
    lesson: Option<super::expect::RawLesson>,
}

#[derive(Default)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a cluster: a mapping with nodes, nodeTemplate and addons"
    )
)]
pub(super) struct RawCluster {
    #[cfg_attr(test, serde(default))]
    nodes: RawNodes,
    #[cfg_attr(test, serde(default))]
    node_template: Option<RawNode>,
    /// kube-system's add-ons (`true` unless said otherwise).
    #[cfg_attr(test, serde(default))]
    addons: Option<bool>,
}

#[derive(Default)]
#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a node: a mapping with name, cpu, memory, pods, labels and taints"
    )
)]
pub(super) struct RawNode {
    #[cfg_attr(test, serde(default))]
    name: Option<String>,
    #[cfg_attr(test, serde(default))]
    cpu: Option<Quantity>,
    #[cfg_attr(test, serde(default))]
    memory: Option<Quantity>,
    #[cfg_attr(test, serde(default))]
    pods: Option<u32>,
    #[cfg_attr(test, serde(default))]
    labels: Option<crate::api::Labels>,
    #[cfg_attr(test, serde(default))]
    taints: Option<Vec<RawTaint>>,
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(test, serde(deny_unknown_fields, expecting = "a taint: a mapping with key, value and effect"))]
pub(super) struct RawTaint {
    key: String,
    #[cfg_attr(test, serde(default))]
    value: String,
    effect: Effect,
}

// ---------------------------------------------------------------------------------------------------------------
// Reading: the scenario's YAML tree into the raw form, one small function per part, with serde_yaml's messages

/// A YAML value written inline in a scenario (an object under `apply:`), as serde_yaml's `Value` reads it
/// (`tagged`: the node's local tag has been read, and its value is read as untagged).
fn yaml_value<'n>(cx: &mut Cx<'n>, n: &'n Node, tagged: bool) -> Read<serde_yaml::Value> {
    use crate::yamltree::{below_local_tag, local_tag, Value as V};
    use serde_yaml::Value as Y;
    if let (Some(tag), false) = (local_tag(n), tagged) {
        let value = yaml_value(cx, n, true)?;
        let tag = serde_yaml::value::Tag::new(tag);
        return Ok(Y::Tagged(Box::new(serde_yaml::value::TaggedValue { tag, value })));
    }
    match &n.value {
        V::Scalar(s) if tagged => scalar_value(cx, n, below_local_tag(n, s)),
        V::Scalar(s) => {
            let v = crate::yamltree::scalar(n, s).map_err(|m| cx.error(n, m))?;
            scalar_value(cx, n, v)
        }
        V::Seq(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                out.push(cx.item(i, |cx| yaml_value(cx, item, false))?);
            }
            Ok(Y::Sequence(out))
        }
        V::Map(entries) => {
            let mut out = serde_yaml::Mapping::new();
            for (k, v) in entries {
                let key = yaml_value(cx, k, false)?;
                if out.contains_key(&key) {
                    let which = match &key {
                        Y::Null => "with null key".to_string(),
                        Y::Bool(b) => format!("with key `{b}`"),
                        Y::Number(x) => format!("with key {x}"),
                        Y::String(s) => format!("with key {s:?}"),
                        _ => "in YAML map".to_string(),
                    };
                    return Err(cx.error(n, format!("duplicate entry {which}")));
                }
                let value = match &k.value {
                    V::Scalar(s) => cx.below(s, |cx| yaml_value(cx, v, false))?,
                    _ => cx.unknown_below(|cx| yaml_value(cx, v, false))?,
                };
                out.insert(key, value);
            }
            Ok(Y::Mapping(out))
        }
    }
}

fn scalar_value<'n>(cx: &Cx<'n>, n: &'n Node, v: Scalar<'_>) -> Read<serde_yaml::Value> {
    use serde_yaml::Value as Y;
    Ok(match v {
        Scalar::Null => Y::Null,
        Scalar::Bool(b) => Y::Bool(b),
        Scalar::U64(v) => Y::Number(v.into()),
        Scalar::I64(v) => Y::Number(v.into()),
        Scalar::F64(v) => Y::Number(v.into()),
        Scalar::Str(s) => Y::String(s.to_string()),
        big @ (Scalar::U128(_) | Scalar::I128(_)) => {
            return Err(cx.not_expected(n, Any::Scalar(big), "any YAML value"));
        }
    })
}

pub(super) fn manifest_text<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<ManifestText> {
    const EXPECTED: &str = "manifest text (a YAML string such as `apply: |`), an object or a list of objects";
    let text = |cx: &Cx<'n>, v: &serde_yaml::Value| crate::yamlwrite::to_string(v).map_err(|e| cx.error(n, e));
    match cx.any(n)? {
        Any::Scalar(Scalar::Str(v)) => Ok(ManifestText(v.to_string())),
        Any::Map(_) => {
            let v = yaml_value(cx, n, false)?;
            text(cx, &v).map(ManifestText)
        }
        Any::Seq(items) => {
            let mut docs = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let v = cx.item(i, |cx| yaml_value(cx, item, false))?;
                docs.push(text(cx, &v)?);
            }
            Ok(ManifestText(docs.join("---\n")))
        }
        other => Err(cx.not_expected(n, other, EXPECTED)),
    }
}

fn nodes<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawNodes> {
    let count = |cx: &Cx<'n>, v: u64| {
        if v > MAX_NODES as u64 {
            return Err(cx.error(n, format!("{v} nodes: kubeloop simulates at most {MAX_NODES} nodes")));
        }
        Ok(RawNodes::Count(v))
    };
    match cx.any(n)? {
        Any::Scalar(Scalar::U64(v)) => count(cx, v),
        Any::Scalar(Scalar::I64(v)) => match u64::try_from(v) {
            Ok(v) => count(cx, v),
            Err(_) => Err(cx.error(n, format!("invalid number of nodes {v}"))),
        },
        Any::Seq(items) => {
            let mut out = Vec::new();
            for (i, item) in items.iter().enumerate() {
                out.push(cx.item(i, |cx| node(cx, item))?);
                if out.len() > MAX_NODES {
                    return Err(cx.error(n, format!("kubeloop simulates at most {MAX_NODES} nodes")));
                }
            }
            Ok(RawNodes::List(out))
        }
        other => Err(cx.not_expected(n, other, "a number of nodes or a list of nodes")),
    }
}

fn effect<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<Effect> {
    let v = cx.text(n, "a string")?;
    match v {
        "NoSchedule" | "PreferNoSchedule" | "NoExecute" => Ok(Effect(v.to_string())),
        _ => Err(cx.error(
            n,
            format!(
                "unsupported taint effect {:?}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                echo(v)
            ),
        )),
    }
}

fn scenario<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawScenario> {
    let shape = Shape {
        expected: "a scenario: a mapping with seed, until, timing, cluster, manifests, actions and lesson",
        names: &["seed", "until", "cluster", "manifests", "actions", "timing", "lesson"],
        required: &[],
        strict: true,
    };
    let mut r = RawScenario {
        seed: None,
        until: None,
        cluster: None,
        manifests: None,
        actions: Vec::new(),
        timing: None,
        lesson: None,
    };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "seed" => r.seed = cx.option(v, |cx, v| cx.unsigned(v, u64::MAX, "u64"))?,
            "until" => r.until = cx.option(v, dur)?,
            "cluster" => r.cluster = cx.option(v, cluster)?,
            "manifests" => r.manifests = cx.option(v, manifest_text)?,
            "actions" => r.actions = cx.seq(v, action)?,
            "lesson" => r.lesson = cx.option(v, super::expect::lesson)?,
            _ => r.timing = opt_string(cx, v)?,
        }
        Ok(())
    })?;
    Ok(r)
}

fn cluster<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawCluster> {
    let shape = Shape {
        expected: "a cluster: a mapping with nodes, nodeTemplate and addons",
        names: &["nodes", "nodeTemplate", "addons"],
        required: &[],
        strict: true,
    };
    let mut c = RawCluster::default();
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "nodes" => c.nodes = nodes(cx, v)?,
            "addons" => c.addons = cx.option(v, Cx::bool)?,
            _ => c.node_template = cx.option(v, node)?,
        }
        Ok(())
    })?;
    Ok(c)
}

pub(super) fn node<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawNode> {
    let shape = Shape {
        expected: "a node: a mapping with name, cpu, memory, pods, labels and taints",
        names: &["name", "cpu", "memory", "pods", "labels", "taints"],
        required: &[],
        strict: true,
    };
    let mut r = RawNode::default();
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "name" => r.name = opt_string(cx, v)?,
            "cpu" => r.cpu = cx.option(v, crate::manifest::objects::quantity)?,
            "memory" => r.memory = cx.option(v, crate::manifest::objects::quantity)?,
            "pods" => r.pods = cx.option(v, |cx, v| cx.unsigned(v, u32::MAX.into(), "u32").map(|p| p as u32))?,
            "labels" => r.labels = cx.option(v, Cx::labels)?,
            _ => r.taints = cx.option(v, |cx, v| cx.seq(v, taint))?,
        }
        Ok(())
    })?;
    Ok(r)
}

fn taint<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawTaint> {
    let shape = Shape {
        expected: "a taint: a mapping with key, value and effect",
        names: &["key", "value", "effect"],
        required: &["key", "effect"],
        strict: true,
    };
    let (mut key_, mut value, mut effect_) = (String::new(), String::new(), None);
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "key" => key_ = cx.text(v, "a string")?.to_string(),
            "value" => value = cx.text(v, "a string")?.to_string(),
            _ => effect_ = Some(effect(cx, v)?),
        }
        Ok(())
    })?;
    // `fields` has checked that the effect is given.
    let effect = effect_.unwrap_or_else(|| Effect(String::new()));
    Ok(RawTaint { key: key_, value, effect })
}

/// Reads a scenario text into its raw form. A text libyaml stops reading is refused at the place it stops,
/// unless what was read before that place is already wrong (as serde_yaml reported it).
fn read(text: &str) -> Result<RawScenario, ScenarioError> {
    let located =
        |e: &crate::decode::Error| ScenarioError::located(Some(e.line), Some(e.column), strip_location(&e.message));
    match crate::yamltree::parse(text) {
        Ok(root) => {
            let empty = Node::empty();
            scenario(&mut Cx::new(), root.as_ref().unwrap_or(&empty)).map_err(|e| located(&e))
        }
        Err(stopped) => {
            if let Some(Err(e)) = stopped.read.as_ref().map(|root| scenario(&mut Cx::new(), root)) {
                if !e.needs_end {
                    return Err(located(&e));
                }
            }
            let (line, column) = stopped.error.location().map_or((None, None), |(l, c)| (Some(l), Some(c)));
            Err(ScenarioError::located(line, column, strip_location(&stopped.error.to_string())))
        }
    }
}

/// A message without the " at line L column C" serde_yaml and libyaml append (the location is kept apart).
fn strip_location(message: &str) -> &str {
    message.find(" at line ").map_or(message, |i| &message[..i])
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing and checks

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
        c.labels = labels.clone();
    }
    if let Some(taints) = &raw.taints {
        c.taints = taints
            .iter()
            .map(|t| Taint { key: s(&t.key), value: s(&t.value), effect: s(&t.effect.0), time_added: None })
            .collect();
    }
    // The Node the kubelet will register (with the labels it adds), checked now so that a bad name or label is a
    // scenario error.
    let mut named = c.clone();
    if named.name.is_empty() {
        named.name = "node-1".into();
    }
    let obj = Object::Node(crate::kubelet::registered_node(&named));
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
        Self::parse_with(text, read)
    }

    /// Parses and checks a scenario, its text read into the raw form by `reader`.
    pub(super) fn parse_with(
        text: &str,
        reader: fn(&str) -> Result<RawScenario, ScenarioError>,
    ) -> Result<Scenario, ScenarioError> {
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
        let raw = reader(text)?;
        let lines = Lines::new(text);

        let cluster = raw.cluster.unwrap_or_default();
        let addons = cluster.addons.unwrap_or(true);
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

        let mut parser = ActionParser::new(&lines, &node_template, nodes.len());
        let mut actions = Vec::with_capacity(raw.actions.len());
        for (i, a) in raw.actions.into_iter().enumerate() {
            actions.push(parser.action(i, a)?);
        }
        crate::sort::sort_by_key(&mut actions, |a| a.at); // stable: same-time actions keep their order

        let until = raw.until.map(|d| d.0);
        if until.is_some_and(|u| u > MAX_UNTIL) {
            return Err(ScenarioError::at(
                lines.of(&["until"]),
                format!("until: a run lasts at most {}", human_duration(MAX_UNTIL)),
            ));
        }
        let timing = match raw.timing.as_deref() {
            None => TimingProfile::Real,
            Some(t) => TimingProfile::parse(t).ok_or_else(|| {
                ScenarioError::at(
                    lines.of(&["timing"]),
                    format!("timing: {:?} is not a timing profile: real or fast-demo", echo(t)),
                )
            })?,
        };
        let lesson = match raw.lesson {
            Some(l) => Some(std::rc::Rc::new(super::expect::lesson_info(&lines, l)?)),
            None => None,
        };
        Ok(Scenario { seed: raw.seed, until, node_template, nodes, addons, manifests, actions, timing, lesson })
    }
}

/// The t=0 manifests must parse and validate: a scenario whose main content is broken is refused before it runs.
pub(super) fn check_manifests(scenario: &Lines, manifests: &str) -> Result<(), ScenarioError> {
    let result = crate::manifest::parse(manifests).and_then(|(ms, _)| {
        if ms.is_empty() {
            return Err(ManifestError::new(0, 1, None, "no objects passed to apply"));
        }
        ms.iter().try_for_each(|m| crate::manifest::named(m, "apply").and_then(|()| crate::manifest::validate(m)))
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
