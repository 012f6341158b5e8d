//! Actions: each `actions:` entry read into the [`Intervention`] it serialises, one small function per kind.

use super::*;
use crate::controllers::CONTROLLERS;
use crate::decode::{Any, Cx, Shape};
use crate::yamltree::{Node, Scalar};

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "an action: a mapping with at, label, ask, expect and one of apply, kubectl, scale, delete, cordon, uncordon, killNode, reviveNode, addNode, fault, mode, app"
    )
)]
pub(super) struct RawAction {
    at: Dur,
    #[cfg_attr(test, serde(default))]
    label: Option<String>,
    #[cfg_attr(test, serde(default, rename = "for"))]
    follow_for: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    apply: Option<ManifestText>,
    #[cfg_attr(test, serde(default))]
    kubectl: Option<String>,
    #[cfg_attr(test, serde(default))]
    scale: Option<RawScale>,
    #[cfg_attr(test, serde(default))]
    delete: Option<RawDelete>,
    #[cfg_attr(test, serde(default))]
    cordon: Option<String>,
    #[cfg_attr(test, serde(default))]
    uncordon: Option<String>,
    #[cfg_attr(test, serde(default))]
    kill_node: Option<RawNodeRef>,
    #[cfg_attr(test, serde(default))]
    revive_node: Option<RawNodeRef>,
    #[cfg_attr(test, serde(default, deserialize_with = "null_is_default"))]
    add_node: Option<RawNode>,
    #[cfg_attr(test, serde(default))]
    fault: Option<RawFault>,
    #[cfg_attr(test, serde(default))]
    mode: Option<RawMode>,
    #[cfg_attr(test, serde(default))]
    app: Option<RawApp>,
    #[cfg_attr(test, serde(default))]
    ask: Option<super::expect::RawAsk>,
    #[cfg_attr(test, serde(default))]
    expect: Option<Vec<super::expect::RawExpect>>,
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a mapping with one of image, pod or podOf, and namespace, container, readiness, liveness, startsAfter, crashAfter, exitCode, pullable, crash, sigterm, preStop"
    )
)]
pub(super) struct RawApp {
    #[cfg_attr(test, serde(default))]
    image: Option<String>,
    #[cfg_attr(test, serde(default))]
    pod: Option<String>,
    #[cfg_attr(test, serde(default))]
    pod_of: Option<Sel>,
    #[cfg_attr(test, serde(default))]
    namespace: Option<String>,
    #[cfg_attr(test, serde(default))]
    container: Option<String>,
    /// `fail` or `pass`.
    #[cfg_attr(test, serde(default))]
    readiness: Option<String>,
    #[cfg_attr(test, serde(default))]
    liveness: Option<String>,
    #[cfg_attr(test, serde(default))]
    starts_after: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    crash_after: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    exit_code: Option<i32>,
    #[cfg_attr(test, serde(default))]
    pullable: Option<bool>,
    #[cfg_attr(test, serde(default))]
    crash: Option<bool>,
    /// `ignore`, `exit` or a duration: what the process does on SIGTERM.
    #[cfg_attr(test, serde(default))]
    sigterm: Option<String>,
    #[cfg_attr(test, serde(default))]
    pre_stop: Option<Dur>,
}

/// A fraction: `0.3` or `"30%"`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fraction(f64);

#[cfg(test)]
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

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a mapping of faults: dropWatchEvents, conflicts, apiLatency, rejectPodCreates, disconnectWatches, forceRelist, crash, restart, informer"
    )
)]
pub(super) struct RawFault {
    #[cfg_attr(test, serde(default))]
    drop_watch_events: Option<Fraction>,
    #[cfg_attr(test, serde(default))]
    conflicts: Option<Fraction>,
    #[cfg_attr(test, serde(default))]
    api_latency: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    reject_pod_creates: Option<bool>,
    #[cfg_attr(test, serde(default))]
    disconnect_watches: bool,
    #[cfg_attr(test, serde(default))]
    force_relist: bool,
    #[cfg_attr(test, serde(default))]
    crash: Option<String>,
    #[cfg_attr(test, serde(default))]
    restart: Option<String>,
    #[cfg_attr(test, serde(default))]
    informer: Option<String>,
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a mapping of modes: trigger, observe, pollPeriod, relistPeriod, resyncPeriod"
    )
)]
pub(super) struct RawMode {
    /// `level`, `edge`, or `CONTROLLER=edge`.
    #[cfg_attr(test, serde(default))]
    trigger: Option<String>,
    /// `informer` or `polling`.
    #[cfg_attr(test, serde(default))]
    observe: Option<String>,
    #[cfg_attr(test, serde(default))]
    poll_period: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    relist_period: Option<Dur>,
    #[cfg_attr(test, serde(default))]
    resync_period: Option<Dur>,
}

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
        if !CONTROLLERS.iter().any(|(n, _)| n == c) {
            let names: Vec<&str> = CONTROLLERS.iter().map(|(n, _)| *n).collect();
            return Err(format!("trigger: no controller {:?}; controllers: {}", echo(c), names.join(", ")));
        }
    }
    Ok((controller, mode))
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a mapping with deployment or replicaset, replicas and namespace"
    )
)]
pub(super) struct RawScale {
    #[cfg_attr(test, serde(default))]
    deployment: Option<String>,
    #[cfg_attr(test, serde(default))]
    replicaset: Option<String>,
    #[cfg_attr(test, serde(default))]
    namespace: Option<String>,
    replicas: u32,
}

#[cfg_attr(test, derive(Deserialize))]
#[cfg_attr(
    test,
    serde(
        deny_unknown_fields,
        rename_all = "camelCase",
        expecting = "a mapping with kind, one of name, selector or oneOf, namespace and wait"
    )
)]
pub(super) struct RawDelete {
    kind: KindName,
    #[cfg_attr(test, serde(default))]
    name: Option<String>,
    #[cfg_attr(test, serde(default))]
    selector: Option<Sel>,
    /// One running object the selector matches, chosen when the action runs.
    #[cfg_attr(test, serde(default))]
    one_of: Option<Sel>,
    #[cfg_attr(test, serde(default))]
    namespace: Option<String>,
    /// kubectl's `--wait` (default true).
    #[cfg_attr(test, serde(default))]
    wait: Option<bool>,
}

/// `killNode:` / `reviveNode:`: a node's name, `{nodeOf: SELECTOR}` (the node of a running pod it matches) or
/// `{every: true}`.
pub(super) enum RawNodeRef {
    Name(String),
    OfPod(Sel),
    Every,
}

#[cfg(test)]
impl<'de> Deserialize<'de> for RawNodeRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawNodeRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(
                    "a node's name, or a mapping with nodeOf (a label selector of a running pod) or every: true",
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RawNodeRef, E> {
                Ok(RawNodeRef::Name(v.to_string()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawNodeRef, A::Error> {
                let mut found = None;
                while let Some(key) = map.next_key::<String>()? {
                    let node = match key.as_str() {
                        _ if found.is_some() => None,
                        "nodeOf" => Some(RawNodeRef::OfPod(map.next_value::<Sel>()?)),
                        "every" if map.next_value::<bool>()? => Some(RawNodeRef::Every),
                        "every" => return Err(de::Error::custom("every: only `every: true` names nodes")),
                        _ => None,
                    };
                    if node.is_none() {
                        let msg =
                            format!("unknown or repeated field `{}`, expected one of `nodeOf`, `every`", echo(&key));
                        return Err(de::Error::custom(msg));
                    }
                    found = node;
                }
                found.ok_or_else(|| de::Error::missing_field("nodeOf"))
            }
        }
        d.deserialize_any(V)
    }
}

/// `addNode:` with no value adds a node of the template's shape, like `addNode: {}`.
#[cfg(test)]
pub(super) fn null_is_default<'de, D: Deserializer<'de>>(d: D) -> Result<Option<RawNode>, D::Error> {
    Option::<RawNode>::deserialize(d).map(|n| Some(n.unwrap_or_default()))
}

// ---------------------------------------------------------------------------------------------------------------
// Reading: an `actions:` entry's YAML tree into its raw form, with serde_yaml's messages

use super::values::{opt_string, Read};

pub(super) fn action<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawAction> {
    let shape = Shape {
        expected: "an action: a mapping with at, label, ask, expect and one of apply, kubectl, scale, delete, cordon, uncordon, killNode, reviveNode, addNode, fault, mode, app",
        names: &[
            "at", "label", "for", "apply", "kubectl", "scale", "delete", "cordon", "uncordon", "killNode", "reviveNode",
            "addNode", "fault", "mode", "app", "ask", "expect",
        ],
        required: &["at"],
        strict: true,
    };
    let mut a = RawAction {
        at: Dur(0),
        label: None,
        follow_for: None,
        apply: None,
        kubectl: None,
        scale: None,
        delete: None,
        cordon: None,
        uncordon: None,
        kill_node: None,
        revive_node: None,
        add_node: None,
        fault: None,
        mode: None,
        app: None,
        ask: None,
        expect: None,
    };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "at" => a.at = dur(cx, v)?,
            "label" => a.label = opt_string(cx, v)?,
            "for" => a.follow_for = cx.option(v, dur)?,
            "apply" => a.apply = cx.option(v, manifest_text)?,
            "kubectl" => a.kubectl = opt_string(cx, v)?,
            "scale" => a.scale = cx.option(v, scale)?,
            "delete" => a.delete = cx.option(v, delete)?,
            "cordon" => a.cordon = opt_string(cx, v)?,
            "uncordon" => a.uncordon = opt_string(cx, v)?,
            "killNode" => a.kill_node = cx.option(v, node_ref)?,
            "reviveNode" => a.revive_node = cx.option(v, node_ref)?,
            // `addNode:` with no value adds a node of the template's shape, like `addNode: {}`.
            "addNode" => a.add_node = Some(cx.option(v, node)?.unwrap_or_default()),
            "fault" => a.fault = cx.option(v, fault)?,
            "app" => a.app = cx.option(v, app)?,
            "ask" => a.ask = cx.option(v, super::expect::ask)?,
            "expect" => a.expect = cx.option(v, |cx, v| cx.seq(v, super::expect::expect))?,
            _ => a.mode = cx.option(v, mode)?,
        }
        Ok(())
    })?;
    Ok(a)
}

fn fraction<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<Fraction> {
    let of = |cx: &Cx<'n>, v: f64| {
        if (0.0..=1.0).contains(&v) {
            Ok(Fraction(v))
        } else {
            Err(cx.error(n, format!("{v} is not a fraction from 0 to 1 (write 30% for a percentage)")))
        }
    };
    match cx.any(n)? {
        Any::Scalar(Scalar::F64(v)) => of(cx, v),
        Any::Scalar(Scalar::U64(v)) => of(cx, v as f64),
        Any::Scalar(Scalar::I64(v)) => of(cx, v as f64),
        Any::Scalar(Scalar::Str(v)) => {
            let p: f64 = v
                .trim()
                .strip_suffix('%')
                .and_then(|p| p.trim().parse().ok())
                .ok_or_else(|| cx.error(n, format!("{:?} is not a percentage such as 30%", echo(v))))?;
            if (0.0..=100.0).contains(&p) {
                Ok(Fraction(p / 100.0))
            } else {
                Err(cx.error(n, format!("{} is not a percentage from 0% to 100%", echo(v))))
            }
        }
        other => Err(cx.not_expected(n, other, "a fraction from 0 to 1, or a percentage such as 30%")),
    }
}

fn fault<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawFault> {
    let shape = Shape {
        expected: "a mapping of faults: dropWatchEvents, conflicts, apiLatency, rejectPodCreates, disconnectWatches, forceRelist, crash, restart, informer",
        names: &[
            "dropWatchEvents", "conflicts", "apiLatency", "rejectPodCreates", "disconnectWatches", "forceRelist",
            "crash", "restart", "informer",
        ],
        required: &[],
        strict: true,
    };
    let mut f = RawFault {
        drop_watch_events: None,
        conflicts: None,
        api_latency: None,
        reject_pod_creates: None,
        disconnect_watches: false,
        force_relist: false,
        crash: None,
        restart: None,
        informer: None,
    };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "dropWatchEvents" => f.drop_watch_events = cx.option(v, fraction)?,
            "conflicts" => f.conflicts = cx.option(v, fraction)?,
            "apiLatency" => f.api_latency = cx.option(v, dur)?,
            "rejectPodCreates" => f.reject_pod_creates = cx.option(v, Cx::bool)?,
            "disconnectWatches" => f.disconnect_watches = cx.bool(v)?,
            "forceRelist" => f.force_relist = cx.bool(v)?,
            "crash" => f.crash = opt_string(cx, v)?,
            "restart" => f.restart = opt_string(cx, v)?,
            _ => f.informer = opt_string(cx, v)?,
        }
        Ok(())
    })?;
    Ok(f)
}

fn app<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawApp> {
    let shape = Shape {
        expected: "a mapping with one of image, pod or podOf, and namespace, container, readiness, liveness, startsAfter, crashAfter, exitCode, pullable, crash, sigterm, preStop",
        names: &[
            "image", "pod", "podOf", "namespace", "container", "readiness", "liveness", "startsAfter", "crashAfter",
            "exitCode", "pullable", "crash", "sigterm", "preStop",
        ],
        required: &[],
        strict: true,
    };
    let mut a = RawApp {
        image: None,
        pod: None,
        pod_of: None,
        namespace: None,
        container: None,
        readiness: None,
        liveness: None,
        starts_after: None,
        crash_after: None,
        exit_code: None,
        pullable: None,
        crash: None,
        sigterm: None,
        pre_stop: None,
    };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "image" => a.image = opt_string(cx, v)?,
            "pod" => a.pod = opt_string(cx, v)?,
            "podOf" => a.pod_of = cx.option(v, sel)?,
            "namespace" => a.namespace = opt_string(cx, v)?,
            "container" => a.container = opt_string(cx, v)?,
            "readiness" => a.readiness = opt_string(cx, v)?,
            "liveness" => a.liveness = opt_string(cx, v)?,
            "startsAfter" => a.starts_after = cx.option(v, dur)?,
            "crashAfter" => a.crash_after = cx.option(v, dur)?,
            "exitCode" => a.exit_code = cx.option(v, Cx::i32)?,
            "pullable" => a.pullable = cx.option(v, Cx::bool)?,
            "crash" => a.crash = cx.option(v, Cx::bool)?,
            "sigterm" => a.sigterm = opt_string(cx, v)?,
            _ => a.pre_stop = cx.option(v, dur)?,
        }
        Ok(())
    })?;
    Ok(a)
}

fn mode<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawMode> {
    let shape = Shape {
        expected: "a mapping of modes: trigger, observe, pollPeriod, relistPeriod, resyncPeriod",
        names: &["trigger", "observe", "pollPeriod", "relistPeriod", "resyncPeriod"],
        required: &[],
        strict: true,
    };
    let mut m = RawMode { trigger: None, observe: None, poll_period: None, relist_period: None, resync_period: None };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "trigger" => m.trigger = opt_string(cx, v)?,
            "observe" => m.observe = opt_string(cx, v)?,
            "pollPeriod" => m.poll_period = cx.option(v, dur)?,
            "relistPeriod" => m.relist_period = cx.option(v, dur)?,
            _ => m.resync_period = cx.option(v, dur)?,
        }
        Ok(())
    })?;
    Ok(m)
}

fn scale<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawScale> {
    let shape = Shape {
        expected: "a mapping with deployment or replicaset, replicas and namespace",
        names: &["deployment", "replicaset", "namespace", "replicas"],
        required: &["replicas"],
        strict: true,
    };
    let mut sc = RawScale { deployment: None, replicaset: None, namespace: None, replicas: 0 };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "deployment" => sc.deployment = opt_string(cx, v)?,
            "replicaset" => sc.replicaset = opt_string(cx, v)?,
            "namespace" => sc.namespace = opt_string(cx, v)?,
            _ => sc.replicas = cx.unsigned(v, u32::MAX.into(), "u32")? as u32,
        }
        Ok(())
    })?;
    Ok(sc)
}

fn delete<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawDelete> {
    let shape = Shape {
        expected: "a mapping with kind, one of name, selector or oneOf, namespace and wait",
        names: &["kind", "name", "selector", "oneOf", "namespace", "wait"],
        required: &["kind"],
        strict: true,
    };
    let mut d =
        RawDelete { kind: KindName(Kind::Pod), name: None, selector: None, one_of: None, namespace: None, wait: None };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "kind" => d.kind = kind_name(cx, v)?,
            "name" => d.name = opt_string(cx, v)?,
            "selector" => d.selector = cx.option(v, sel)?,
            "oneOf" => d.one_of = cx.option(v, sel)?,
            "namespace" => d.namespace = opt_string(cx, v)?,
            _ => d.wait = cx.option(v, Cx::bool)?,
        }
        Ok(())
    })?;
    Ok(d)
}

fn node_ref<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Read<RawNodeRef> {
    const EXPECTED: &str = "a node's name, or a mapping with nodeOf (a label selector of a running pod) or every: true";
    let entries = match cx.any(n)? {
        Any::Scalar(Scalar::Str(v)) => return Ok(RawNodeRef::Name(v.to_string())),
        Any::Map(entries) => entries,
        other => return Err(cx.not_expected(n, other, EXPECTED)),
    };
    let mut found = None;
    for (k, v) in entries {
        let key = cx.text(k, "a string")?;
        let node = match key {
            _ if found.is_some() => None,
            "nodeOf" => Some(RawNodeRef::OfPod(cx.below(key, |cx| sel(cx, v))?)),
            "every" if cx.below(key, |cx| cx.bool(v))? => Some(RawNodeRef::Every),
            "every" => return Err(cx.error(n, "every: only `every: true` names nodes")),
            _ => None,
        };
        if node.is_none() {
            let msg = format!("unknown or repeated field `{}`, expected one of `nodeOf`, `every`", echo(key));
            return Err(cx.error(n, msg));
        }
        found = node;
    }
    found.ok_or_else(|| cx.missing_field(n, "nodeOf"))
}

mod check;
pub(super) use check::*;
