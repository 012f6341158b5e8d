//! Reading `lesson:`, `ask:` and `expect:`: their raw forms read by field tables (serde's derive is the readers'
//! oracle in the tests), then checked with the lines of the file.

use super::*;

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a lesson: a mapping with title, short, watch, figures, fastDemo, speed, events and order"
    )
)]
#[derive(Default)]
pub(in crate::scenario) struct RawLesson {
    title: String,
    #[cfg_attr(test, serde(default))]
    short: Option<String>,
    #[cfg_attr(test, serde(default))]
    watch: Option<String>,
    #[cfg_attr(test, serde(default))]
    figures: Option<Vec<String>>,
    #[cfg_attr(test, serde(default))]
    fast_demo: Option<bool>,
    #[cfg_attr(test, serde(default))]
    speed: Option<u32>,
    #[cfg_attr(test, serde(default))]
    events: Option<String>,
    #[cfg_attr(test, serde(default))]
    order: Option<u32>,
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(test, serde(deny_unknown_fields, expecting = "a question: a mapping with question, choices and answer"))]
pub(in crate::scenario) struct RawAsk {
    question: String,
    choices: Vec<String>,
    answer: usize,
}

#[cfg(test)]
impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Count;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(COUNT)
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Count, E> {
                Ok(Count { op: Op::Is, n })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Count, E> {
                match u64::try_from(v) {
                    Ok(n) => self.visit_u64(n),
                    Err(_) => Err(E::custom(format!("invalid count {v}: must not be negative"))),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Count, E> {
                Count::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

const COUNT: &str = "a count: a number, or a string such as \">= 1\" or \"<= 2\"";

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "an expectation: a mapping with one of within, at or throughout, and pods, replicaSets, endpoints, unchanged, apiReadsPerMinute, retries, condition, conflicts, drift or leader"
    )
)]
#[derive(Default)]
pub(in crate::scenario) struct RawExpect {
    #[cfg_attr(test, serde(default))]
    within: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    at: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    throughout: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    pods: Option<RawPods>,
    #[cfg_attr(test, serde(default))]
    replica_sets: Option<RawReplicaSets>,
    #[cfg_attr(test, serde(default))]
    endpoints: Option<RawEndpoints>,
    #[cfg_attr(test, serde(default))]
    unchanged: Option<Vec<KindName>>,
    #[cfg_attr(test, serde(default))]
    api_reads_per_minute: Option<Count>,
    #[cfg_attr(test, serde(default))]
    retries: Option<RawRetries>,
    #[cfg_attr(test, serde(default))]
    condition: Option<RawCondition>,
    #[cfg_attr(test, serde(default))]
    conflicts: Option<Count>,
    #[cfg_attr(test, serde(default))]
    drift: Option<Count>,
    #[cfg_attr(test, serde(default))]
    leader: Option<String>,
}

const PODS: &str = "pods: a mapping with selector, namespace, image, total, running, ready, notReady, terminating, createdSince, onDeadNodes, restarts, backOff and nodes";
/// `pods:`'s keys, in the order serde's derive listed them (the counts are [`POD_COUNTS`]).
const POD_KEYS: [&str; 13] = [
    "selector",
    "namespace",
    "image",
    "total",
    "running",
    "ready",
    "notReady",
    "terminating",
    "createdSince",
    "onDeadNodes",
    "restarts",
    "backOff",
    "nodes",
];

pub(in crate::scenario) struct RawPods {
    selector: Sel,
    namespace: Option<String>,
    image: Option<String>,
    /// In [`POD_COUNTS`]' order.
    counts: [Option<Count>; 9],
    nodes: Option<Vec<String>>,
}

/// The oracle's reading of `pods:`, as serde's derive reads a struct of these fields with `deny_unknown_fields`.
#[cfg(test)]
impl<'de> Deserialize<'de> for RawPods {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawPods;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(PODS)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawPods, A::Error> {
                let mut p = RawPods {
                    selector: Sel(LabelSelector::default(), String::new()),
                    namespace: None,
                    image: None,
                    counts: [None; 9],
                    nodes: None,
                };
                let mut seen = [false; 13];
                while let Some(key) = map.next_key::<String>()? {
                    let Some(i) = POD_KEYS.iter().position(|k| *k == key) else {
                        return Err(de::Error::unknown_field(&key, &POD_KEYS));
                    };
                    if std::mem::replace(&mut seen[i], true) {
                        return Err(de::Error::duplicate_field(POD_KEYS[i]));
                    }
                    match i {
                        0 => p.selector = map.next_value()?,
                        1 => p.namespace = map.next_value()?,
                        2 => p.image = map.next_value()?,
                        12 => p.nodes = map.next_value()?,
                        _ => p.counts[i - 3] = map.next_value()?,
                    }
                }
                if !seen[0] {
                    return Err(de::Error::missing_field("selector"));
                }
                Ok(p)
            }
        }
        d.deserialize_struct("RawPods", &POD_KEYS, V)
    }
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(deny_unknown_fields, expecting = "replicaSets: a mapping with selector, namespace and replicas")
)]
pub(in crate::scenario) struct RawReplicaSets {
    #[cfg_attr(test, serde(default))]
    selector: Option<Sel>,
    #[cfg_attr(test, serde(default))]
    namespace: Option<String>,
    replicas: Vec<i32>,
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(test, serde(deny_unknown_fields, expecting = "endpoints: a mapping with service, namespace and ready"))]
pub(in crate::scenario) struct RawEndpoints {
    service: String,
    #[cfg_attr(test, serde(default))]
    namespace: Option<String>,
    ready: Count,
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(test, serde(deny_unknown_fields, expecting = "retries: a mapping with controller and count"))]
pub(in crate::scenario) struct RawRetries {
    controller: String,
    count: Count,
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(deny_unknown_fields, expecting = "condition: a mapping with kind, name, namespace, type, status and reason")
)]
pub(in crate::scenario) struct RawCondition {
    kind: KindName,
    name: String,
    #[cfg_attr(test, serde(default))]
    namespace: Option<String>,
    #[cfg_attr(test, serde(rename = "type"))]
    type_: String,
    #[cfg_attr(test, serde(default))]
    status: Option<String>,
    #[cfg_attr(test, serde(default))]
    reason: Option<String>,
}

// ---------------------------------------------------------------------------------------------------------------
// Reading, with serde_yaml's messages

use crate::scenario::values::{opt_string, string, Read};

fn strings<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<Vec<String>> {
    cx.seq(n, string)
}

fn count<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<Count> {
    match cx.any(n)? {
        Any::Scalar(Scalar::U64(v)) => Ok(Count { op: Op::Is, n: v }),
        Any::Scalar(Scalar::I64(v)) => match u64::try_from(v) {
            Ok(v) => Ok(Count { op: Op::Is, n: v }),
            Err(_) => Err(cx.error(n, format!("invalid count {v}: must not be negative"))),
        },
        Any::Scalar(Scalar::Str(v)) => Count::parse(v).map_err(|e| cx.error(n, e)),
        other => Err(cx.not_expected(n, other, COUNT)),
    }
}

fn opt_count<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<Option<Count>> {
    cx.option(n, count)
}

pub(in crate::scenario) fn lesson<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawLesson> {
    let shape = Shape {
        expected: "a lesson: a mapping with title, short, watch, figures, fastDemo, speed, events and order",
        names: &["title", "short", "watch", "figures", "fastDemo", "speed", "events", "order"],
        required: &["title"],
        strict: true,
    };
    let mut l = RawLesson::default();
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "title" => l.title = string(cx, v)?,
            "short" => l.short = opt_string(cx, v)?,
            "watch" => l.watch = opt_string(cx, v)?,
            "figures" => l.figures = cx.option(v, strings)?,
            "fastDemo" => l.fast_demo = cx.option(v, Cx::bool)?,
            "speed" => l.speed = cx.option(v, |cx, v| cx.unsigned(v, u32::MAX.into(), "u32").map(|s| s as u32))?,
            "events" => l.events = opt_string(cx, v)?,
            _ => l.order = cx.option(v, |cx, v| cx.unsigned(v, u32::MAX.into(), "u32").map(|s| s as u32))?,
        }
        Ok(())
    })?;
    Ok(l)
}

pub(in crate::scenario) fn ask<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawAsk> {
    let shape = Shape {
        expected: "a question: a mapping with question, choices and answer",
        names: &["question", "choices", "answer"],
        required: &["question", "choices", "answer"],
        strict: true,
    };
    let mut a = RawAsk { question: String::new(), choices: Vec::new(), answer: 0 };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "question" => a.question = string(cx, v)?,
            "choices" => a.choices = strings(cx, v)?,
            _ => a.answer = cx.unsigned(v, u64::MAX, "usize")? as usize,
        }
        Ok(())
    })?;
    Ok(a)
}

pub(in crate::scenario) fn expect<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawExpect> {
    let shape = Shape {
        expected: "an expectation: a mapping with one of within, at or throughout, and pods, replicaSets, endpoints, unchanged, apiReadsPerMinute, retries, condition, conflicts, drift or leader",
        names: &[
            "within", "at", "throughout", "pods", "replicaSets", "endpoints", "unchanged", "apiReadsPerMinute",
            "retries", "condition", "conflicts", "drift", "leader",
        ],
        required: &[],
        strict: true,
    };
    let mut e = RawExpect::default();
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "within" => e.within = cx.option(v, dur)?,
            "at" => e.at = cx.option(v, dur)?,
            "throughout" => e.throughout = cx.option(v, dur)?,
            "pods" => e.pods = cx.option(v, pods)?,
            "replicaSets" => e.replica_sets = cx.option(v, replica_sets)?,
            "endpoints" => e.endpoints = cx.option(v, endpoints)?,
            "unchanged" => e.unchanged = cx.option(v, |cx, v| cx.seq(v, kind_name))?,
            "apiReadsPerMinute" => e.api_reads_per_minute = opt_count(cx, v)?,
            "retries" => e.retries = cx.option(v, retries)?,
            "condition" => e.condition = cx.option(v, condition)?,
            "conflicts" => e.conflicts = opt_count(cx, v)?,
            "drift" => e.drift = opt_count(cx, v)?,
            _ => e.leader = opt_string(cx, v)?,
        }
        Ok(())
    })?;
    Ok(e)
}

fn pods<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawPods> {
    let shape = Shape { expected: PODS, names: &POD_KEYS, required: &["selector"], strict: true };
    let mut p = RawPods {
        selector: Sel(LabelSelector::default(), String::new()),
        namespace: None,
        image: None,
        counts: [None; 9],
        nodes: None,
    };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "selector" => p.selector = sel(cx, v)?,
            "namespace" => p.namespace = opt_string(cx, v)?,
            "image" => p.image = opt_string(cx, v)?,
            "nodes" => p.nodes = cx.option(v, strings)?,
            _ => {
                let i = POD_COUNTS.iter().position(|(k, _)| *k == key).unwrap_or(0);
                p.counts[i] = opt_count(cx, v)?;
            }
        }
        Ok(())
    })?;
    Ok(p)
}

fn replica_sets<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawReplicaSets> {
    let shape = Shape {
        expected: "replicaSets: a mapping with selector, namespace and replicas",
        names: &["selector", "namespace", "replicas"],
        required: &["replicas"],
        strict: true,
    };
    let mut r = RawReplicaSets { selector: None, namespace: None, replicas: Vec::new() };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "selector" => r.selector = cx.option(v, sel)?,
            "namespace" => r.namespace = opt_string(cx, v)?,
            _ => r.replicas = cx.seq(v, Cx::i32)?,
        }
        Ok(())
    })?;
    Ok(r)
}

fn endpoints<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawEndpoints> {
    let shape = Shape {
        expected: "endpoints: a mapping with service, namespace and ready",
        names: &["service", "namespace", "ready"],
        required: &["service", "ready"],
        strict: true,
    };
    let mut e = RawEndpoints { service: String::new(), namespace: None, ready: Count { op: Op::Is, n: 0 } };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "service" => e.service = string(cx, v)?,
            "namespace" => e.namespace = opt_string(cx, v)?,
            _ => e.ready = count(cx, v)?,
        }
        Ok(())
    })?;
    Ok(e)
}

fn retries<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawRetries> {
    let shape = Shape {
        expected: "retries: a mapping with controller and count",
        names: &["controller", "count"],
        required: &["controller", "count"],
        strict: true,
    };
    let mut r = RawRetries { controller: String::new(), count: Count { op: Op::Is, n: 0 } };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "controller" => r.controller = string(cx, v)?,
            _ => r.count = count(cx, v)?,
        }
        Ok(())
    })?;
    Ok(r)
}

fn condition<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawCondition> {
    let shape = Shape {
        expected: "condition: a mapping with kind, name, namespace, type, status and reason",
        names: &["kind", "name", "namespace", "type", "status", "reason"],
        required: &["kind", "name", "type"],
        strict: true,
    };
    let mut c = RawCondition {
        kind: KindName(Kind::Pod),
        name: String::new(),
        namespace: None,
        type_: String::new(),
        status: None,
        reason: None,
    };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "kind" => c.kind = kind_name(cx, v)?,
            "name" => c.name = string(cx, v)?,
            "namespace" => c.namespace = opt_string(cx, v)?,
            "type" => c.type_ = string(cx, v)?,
            "status" => c.status = opt_string(cx, v)?,
            _ => c.reason = opt_string(cx, v)?,
        }
        Ok(())
    })?;
    Ok(c)
}

// ---------------------------------------------------------------------------------------------------------------
// Checks with lines

fn at_line(lines: &Lines, path: &[&str], message: String) -> ScenarioError {
    ScenarioError::at(lines.of(path), message)
}

/// `lesson:`, checked.
pub(in crate::scenario) fn lesson_info(lines: &Lines, raw: RawLesson) -> Result<LessonInfo, ScenarioError> {
    let text = |s: String| crate::limits::bound_message(s.trim()).into_owned();
    let title = text(raw.title);
    if title.is_empty() {
        return Err(at_line(lines, &["lesson", "title"], "lesson.title: a title is required".into()));
    }
    let mut figures = Vec::new();
    for (i, name) in raw.figures.unwrap_or_default().iter().enumerate() {
        let Some((_, f)) = FIGURES.iter().find(|(n, _)| n == name) else {
            let names: Vec<&str> = FIGURES.iter().map(|(n, _)| *n).collect();
            let msg = format!("lesson.figures[{i}]: {:?} is not a figure: {}", echo(name), names.join(", "));
            return Err(at_line(lines, &["lesson", "figures", &i.to_string()], msg));
        };
        if !figures.contains(f) {
            figures.push(*f);
        }
    }
    let speed = raw.speed.unwrap_or(1);
    if speed == 0 || u64::from(speed) > MAX_SPEED {
        let msg = format!("lesson.speed: {speed} is not a speed from 1 to {MAX_SPEED}");
        return Err(at_line(lines, &["lesson", "speed"], msg));
    }
    let events = match raw.events {
        None => None,
        Some(e) => Some(controller_name(&e).ok_or_else(|| {
            at_line(lines, &["lesson", "events"], format!("lesson.events: {}", not_a_controller(&e)))
        })?),
    };
    Ok(LessonInfo {
        short: raw.short.map(text).filter(|s| !s.is_empty()).unwrap_or_else(|| title.clone()),
        title,
        watch: raw.watch.map(text).unwrap_or_default(),
        figures,
        fast_demo: raw.fast_demo.unwrap_or(false),
        speed,
        events,
        order: raw.order.unwrap_or(u32::MAX),
    })
}

fn controller_name(name: &str) -> Option<&'static str> {
    crate::controllers::CONTROLLERS.iter().map(|(n, _)| *n).find(|n| *n == name)
}

fn not_a_controller(name: &str) -> String {
    let names: Vec<&str> = crate::controllers::CONTROLLERS.iter().map(|(n, _)| *n).collect();
    format!("{:?} is not a controller: {}", echo(name), names.join(", "))
}

/// An action's `ask:`, checked (`path`: the action's).
pub(in crate::scenario) fn ask_checked(lines: &Lines, path: &[&str], raw: RawAsk) -> Result<Ask, ScenarioError> {
    let at = |rest: &str| {
        let mut p = path.to_vec();
        p.extend(["ask", rest]);
        lines.of(&p)
    };
    let what = format!("actions[{}].ask", path.get(1).copied().unwrap_or("?"));
    let question = crate::limits::bound_message(raw.question.trim()).into_owned();
    if question.is_empty() {
        return Err(ScenarioError::at(at("question"), format!("{what}.question: a question is required")));
    }
    if !(2..=MAX_CHOICES).contains(&raw.choices.len()) {
        let msg = format!("{what}.choices: {} choices: a question has 2 to {MAX_CHOICES}", raw.choices.len());
        return Err(ScenarioError::at(at("choices"), msg));
    }
    if raw.answer >= raw.choices.len() {
        let msg = format!("{what}.answer: {} is not a choice (0 to {})", raw.answer, raw.choices.len() - 1);
        return Err(ScenarioError::at(at("answer"), msg));
    }
    let choices = raw.choices.iter().map(|c| crate::limits::bound_message(c.trim()).into_owned()).collect();
    Ok(Ask { question, choices, answer: raw.answer })
}

/// An action's `expect:` entry `j`, checked (`path`: the action's).
pub(in crate::scenario) fn expect_checked(
    lines: &Lines,
    path: &[&str],
    j: usize,
    raw: RawExpect,
) -> Result<Expect, ScenarioError> {
    let idx = j.to_string();
    let mut base = path.to_vec();
    base.extend(["expect", idx.as_str()]);
    let line = lines.of(&base);
    let what = format!("actions[{}].expect[{j}]", path.get(1).copied().unwrap_or("?"));
    let at = |key: &str| {
        let mut p = base.clone();
        p.push(key);
        lines.of(&p)
    };
    let when: Vec<When> = [
        raw.within.map(|d| When::Within(d.0)),
        raw.at.map(|d| When::At(d.0)),
        raw.throughout.map(|d| When::Throughout(d.0)),
    ]
    .into_iter()
    .flatten()
    .collect();
    let [when] = when[..] else {
        let msg =
            format!("{what}: an expectation needs exactly one of within, at or throughout (found {})", when.len());
        return Err(ScenarioError::at(line, msg));
    };
    let ns = |n: Option<String>| n.filter(|n| !n.trim().is_empty()).unwrap_or_else(|| "default".to_string());
    let mut subjects = Vec::new();
    if let Some(p) = raw.pods {
        if p.counts.iter().all(Option::is_none) && p.nodes.is_none() {
            return Err(ScenarioError::at(at("pods"), format!("{what}.pods: says nothing to check (total, running, ready, notReady, terminating, createdSince, onDeadNodes, restarts, backOff or nodes)")));
        }
        let mut nodes = p.nodes;
        if let Some(n) = nodes.as_mut() {
            crate::sort::sort(n);
        }
        subjects.push(Subject::Pods(Pods {
            selector: p.selector.0,
            text: p.selector.1,
            namespace: ns(p.namespace),
            image: p.image,
            counts: p.counts,
            nodes,
        }));
    }
    if let Some(r) = raw.replica_sets {
        let selector = r.selector.map(|s| (s.0, s.1));
        subjects.push(Subject::ReplicaSets { selector, namespace: ns(r.namespace), replicas: r.replicas });
    }
    if let Some(e) = raw.endpoints {
        subjects.push(Subject::Endpoints { namespace: ns(e.namespace), service: e.service, ready: e.ready });
    }
    if let Some(k) = raw.unchanged {
        subjects.push(Subject::Unchanged(k.into_iter().map(|k| k.0).collect()));
    }
    if let Some(c) = raw.api_reads_per_minute {
        subjects.push(Subject::ReadsPerMinute(c));
    }
    if let Some(r) = raw.retries {
        let controller = controller_name(&r.controller).ok_or_else(|| {
            ScenarioError::at(at("retries"), format!("{what}.retries: {}", not_a_controller(&r.controller)))
        })?;
        subjects.push(Subject::Retries { controller, count: r.count });
    }
    if let Some(c) = raw.condition {
        if !CONDITION_KINDS.contains(&c.kind.0) {
            let msg = format!(
                "{what}.condition: reads the conditions of Deployments, Pods, Nodes and Jobs, not {}",
                c.kind.0.name()
            );
            return Err(ScenarioError::at(at("condition"), msg));
        }
        subjects.push(Subject::Condition(ConditionIs {
            kind: c.kind.0,
            namespace: if c.kind.0.namespaced() { ns(c.namespace) } else { String::new() },
            name: c.name,
            type_: c.type_,
            status: c.status,
            reason: c.reason,
        }));
    }
    if let Some(c) = raw.conflicts {
        subjects.push(Subject::Conflicts(c));
    }
    if let Some(c) = raw.drift {
        subjects.push(Subject::Drift(c));
    }
    if let Some(l) = raw.leader {
        subjects.push(Subject::Leader(Some(l).filter(|l| l != "none")));
    }
    if subjects.is_empty() {
        return Err(ScenarioError::at(line, format!("{what}: an expectation needs something to check: pods, replicaSets, endpoints, unchanged, apiReadsPerMinute, retries, condition, conflicts, drift or leader")));
    }
    Ok(Expect { when, subjects, line })
}
