//! Three admission plugins of the API server that read objects kubeloop otherwise only stores:
//! - DefaultStorageClass (`plugin/pkg/admission/storage/storageclass/setdefault`): a PersistentVolumeClaim that
//!   names no storage class (the field absent, not empty) gets the default class's name: the newest of the classes
//!   annotated `storageclass.kubernetes.io/is-default-class: "true"`, ties by name.
//! - LimitRanger (`plugin/pkg/admission/limitranger`): a pod created in a namespace with LimitRanges gets each
//!   Container item's default limits and requests where its containers set none (the item's own defaults as
//!   `SetDefaults_LimitRangeItem` derives them: a missing default limit is the max, a missing default request the
//!   default limit, else the min), noted in the `kubernetes.io/limit-ranger` annotation; then each container is held
//!   to the item's min and max.
//! - ResourceQuota (`plugin/pkg/admission/resourcequota`): a create that would take a namespace's usage past a
//!   ResourceQuota's hard limits is refused (`exceeded quota: ...`); a pod that names no request or limit for a
//!   compute resource a quota limits is refused (`failed quota: ...: must specify ...`).
//!
//! Both read the namespace's objects from the store itself (the API server's own reads, uncounted), and only when
//! the namespace has such objects.

use serde_json::Value;

use super::*;
use crate::api::{Container, Pod, Quantity, ResourceList};
use crate::vecmap::VecMap;

/// The annotation LimitRanger writes on a pod it defaulted.
pub const LIMIT_RANGER_ANNOTATION: &str = "kubernetes.io/limit-ranger";

/// The compute resources a container must name when a quota limits them (the pod evaluator's validation set).
const COMPUTE: [&str; 6] = ["cpu", "limits.cpu", "limits.memory", "memory", "requests.cpu", "requests.memory"];

/// A resource list of a stored object's JSON (`{cpu: "500m"}`), the quantities that read.
pub(crate) fn resource_list(v: Option<&Value>) -> ResourceList {
    let Some(Value::Object(m)) = v else { return ResourceList::new() };
    m.iter()
        .filter_map(|(k, v)| {
            let q = match v {
                Value::String(s) => Quantity::parse(s).ok()?,
                Value::Number(n) => Quantity::parse(&n.to_string()).ok()?,
                _ => return None,
            };
            Some((s(k), q))
        })
        .collect()
}

/// A quantity compared in the unit upstream compares it in (millis: exact for cpu and for memory in bytes).
fn amount(q: &Quantity) -> i64 {
    q.milli()
}

/// A LimitRange item of type Container with its defaults derived (`SetDefaults_LimitRangeItem`).
struct ContainerItem {
    default: ResourceList,
    default_request: ResourceList,
    min: ResourceList,
    max: ResourceList,
}

impl ContainerItem {
    fn of(item: &Value) -> Option<ContainerItem> {
        (item.get("type").and_then(Value::as_str) == Some("Container")).then_some(())?;
        let min = resource_list(item.get("min"));
        let max = resource_list(item.get("max"));
        let mut default = resource_list(item.get("default"));
        for (k, v) in &max {
            default.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let mut default_request = resource_list(item.get("defaultRequest"));
        for (k, v) in default.iter().chain(min.iter()) {
            default_request.entry(k.clone()).or_insert_with(|| v.clone());
        }
        Some(ContainerItem { default, default_request, min, max })
    }
}

/// `mergeContainerResources`: the defaults a container lacks; what was set, for the annotation.
fn merge(c: &mut Container, item: &ContainerItem, notes: &mut Vec<String>) {
    let (mut requests, mut limits) = (Vec::new(), Vec::new());
    for (k, v) in &item.default {
        if !c.resources.limits.contains_key(k) {
            c.resources.limits.insert(k.clone(), v.clone());
            limits.push(k.to_string());
        }
    }
    for (k, v) in &item.default_request {
        if !c.resources.requests.contains_key(k) {
            c.resources.requests.insert(k.clone(), v.clone());
            requests.push(k.to_string());
        }
    }
    if !requests.is_empty() {
        notes.push(format!("{} request for container {}", requests.join(", "), c.name));
    }
    if !limits.is_empty() {
        notes.push(format!("{} limit for container {}", limits.join(", "), c.name));
    }
}

/// `minConstraint` and `maxConstraint` of one container against one item.
fn constraints(c: &Container, item: &ContainerItem, errs: &mut Vec<String>) {
    let (requests, limits) = (&c.resources.requests, &c.resources.limits);
    for (k, min) in &item.min {
        match (requests.get(k), limits.get(k)) {
            (None, _) => errs.push(format!("minimum {k} usage per Container is {min}.  No request is specified")),
            (Some(r), _) if amount(r) < amount(min) => {
                errs.push(format!("minimum {k} usage per Container is {min}, but request is {r}"))
            }
            (_, Some(l)) if amount(l) < amount(min) => {
                errs.push(format!("minimum {k} usage per Container is {min}, but limit is {l}"))
            }
            _ => {}
        }
    }
    for (k, max) in &item.max {
        match (requests.get(k), limits.get(k)) {
            (_, None) => errs.push(format!("maximum {k} usage per Container is {max}.  No limit is specified")),
            (_, Some(l)) if amount(l) > amount(max) => {
                errs.push(format!("maximum {k} usage per Container is {max}, but limit is {l}"))
            }
            (Some(r), _) if amount(r) > amount(max) => {
                errs.push(format!("maximum {k} usage per Container is {max}, but request is {r}"))
            }
            _ => {}
        }
    }
}

/// Go's `utilerrors.NewAggregate(errs).Error()`: one error alone, several as `[a, b]`.
fn aggregate(errs: &[String]) -> String {
    match errs {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// A pod's usage of one quota resource (the pod evaluator's `Usage`), `None` for a resource it does not count.
pub(crate) fn pod_usage(p: &Pod, resource: &str) -> Option<i64> {
    let sum = |limits: bool, r: &str| {
        let of = |c: &Container| -> i64 {
            let list = if limits { &c.resources.limits } else { &c.resources.requests };
            list.get(r).map_or(0, amount)
        };
        p.spec.containers.iter().map(of).fold(0i64, i64::saturating_add)
    };
    Some(match resource {
        "pods" | "count/pods" => 1000,
        "cpu" | "memory" | "ephemeral-storage" => sum(false, resource),
        r => match (r.strip_prefix("requests."), r.strip_prefix("limits.")) {
            (Some(name), _) => sum(false, name),
            (_, Some(name)) => sum(true, name),
            _ => return None,
        },
    })
}

/// Whether a quota's scopes select a pod (`podMatchesScopeFunc`): BestEffort (no container names a request or a
/// limit) and NotBestEffort; Terminating and NotTerminating (`activeDeadlineSeconds`, which kubeloop does not
/// read: no pod is terminating); PriorityClass (`priorityClassName`, which kubeloop does not read: every pod has
/// none). `spec.scopes` and `spec.scopeSelector`'s expressions all hold.
pub(crate) fn scopes_select(q: &crate::api::Stored, p: &Pod) -> bool {
    let best_effort =
        p.spec.containers.iter().all(|c| c.resources.requests.is_empty() && c.resources.limits.is_empty());
    let scope = |name: &str, operator: &str| -> bool {
        let holds = match name {
            "BestEffort" => best_effort,
            "NotBestEffort" => !best_effort,
            "NotTerminating" => true,
            // Terminating: no pod has activeDeadlineSeconds; PriorityClass: no pod has a class (In and Exists
            // select none, NotIn and DoesNotExist every pod).
            _ => false,
        };
        match operator {
            "DoesNotExist" | "NotIn" => !holds,
            _ => holds,
        }
    };
    let plain = q.field("spec.scopes").and_then(Value::as_array).into_iter().flatten();
    let plain_ok = plain.filter_map(Value::as_str).all(|s| scope(s, "Exists"));
    let mut exprs = q.field("spec.scopeSelector.matchExpressions").and_then(Value::as_array).into_iter().flatten();
    let exprs_ok = exprs.all(|e| {
        let name = e.get("scopeName").and_then(Value::as_str).unwrap_or("");
        scope(name, e.get("operator").and_then(Value::as_str).unwrap_or(""))
    });
    plain_ok && exprs_ok
}

/// Whether a pod still counts against quota (`QuotaV1Pod`): not finished, and not past its deletion's grace.
pub(crate) fn pod_counts(p: &Pod, now: Millis) -> bool {
    if p.status.phase.is_terminal() {
        return false;
    }
    match (p.metadata.deletion_timestamp, p.metadata.deletion_grace_period_seconds) {
        (Some(t), Some(g)) => now <= t.0.saturating_add(crate::time::seconds(g.max(0))),
        _ => true,
    }
}

/// The quota resource names that count objects of `kind`: `count/RESOURCE[.GROUP]`, and the legacy names of a
/// few core kinds.
pub(crate) fn counted_as(kind: Kind, resource: &str) -> bool {
    let legacy = matches!(
        (kind, resource),
        (Kind::Pod, "pods")
            | (Kind::Service, "services")
            | (Kind::ConfigMap, "configmaps")
            | (Kind::Secret, "secrets")
            | (Kind::ResourceQuota, "resourcequotas")
    );
    legacy || resource.strip_prefix("count/") == Some(kind.info().group_resource)
}

/// A quota's usage in the quota's own form (millis: `1` is 1000), printed as upstream prints a quantity.
pub(crate) fn show(resource: &str, millis: i64) -> String {
    let q = if resource.ends_with("memory") || !resource.contains("cpu") && millis % 1000 == 0 {
        Quantity::from_memory_bytes(millis / 1000)
    } else {
        Quantity::from_milli(millis)
    };
    format!("{resource}={q}")
}

impl Store {
    /// The stored objects of `kind` in `namespace`, in name order (a walk of that namespace's only).
    pub fn in_namespace<'a>(&'a self, kind: Kind, namespace: &'a str) -> impl Iterator<Item = &'a Rc<Object>> + 'a {
        self.kinds[kind.index()]
            .objects
            .range(ObjKey::new(namespace, "")..)
            .take_while(move |(k, _)| k.namespace.as_ref() == namespace)
            .map(|(_, o)| o)
    }

    /// DefaultStorageClass's admission of a claim being created.
    #[inline(never)]
    pub(super) fn default_storage_class(&self, claim: &mut crate::api::Stored) {
        let named = claim.field("spec.storageClassName").is_some_and(|v| !v.is_null());
        if named {
            return;
        }
        let default = self.kinds[Kind::StorageClass.index()]
            .objects
            .values()
            .filter(|o| o.meta().annotation(crate::api::kinds::DEFAULT_STORAGE_CLASS_ANNOTATION) == Some("true"))
            .max_by(|a, b| {
                let (a, b) = (a.meta(), b.meta());
                a.creation_timestamp.cmp(&b.creation_timestamp).then_with(|| b.name.cmp(&a.name))
            });
        let Some(class) = default else { return };
        let spec = claim.fields.entry("spec").or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(spec) = spec {
            spec.insert("storageClassName".into(), Value::String(class.meta().name.to_string()));
        }
    }

    /// LimitRanger's admission of a pod being created: its defaults, then its min and max (the Forbidden
    /// message when a container is out of bounds).
    #[inline(never)]
    pub(super) fn limit_ranger(&self, pod: &mut Pod) -> Result<(), String> {
        let items: Vec<ContainerItem> = self
            .in_namespace(Kind::LimitRange, &pod.metadata.namespace)
            .filter_map(|o| o.as_stored())
            .filter_map(|lr| lr.field("spec.limits").and_then(Value::as_array))
            .flatten()
            .filter_map(ContainerItem::of)
            .collect();
        if items.is_empty() {
            return Ok(());
        }
        let mut notes = Vec::new();
        let spec = Rc::make_mut(&mut pod.spec);
        for c in spec.containers.iter_mut() {
            for item in &items {
                merge(c, item, &mut notes);
            }
        }
        if !notes.is_empty() {
            let note = format!("LimitRanger plugin set: {}", notes.join("; "));
            pod.metadata.annotations.insert(s(LIMIT_RANGER_ANNOTATION), s(&note));
        }
        let mut errs = Vec::new();
        for c in pod.spec.containers.iter() {
            for item in &items {
                constraints(c, item, &mut errs);
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(aggregate(&errs))
        }
    }

    /// ResourceQuota's admission of an object being created: each quota of its namespace that limits what it
    /// uses (and, with scopes, selects it), checked against the namespace's usage now.
    #[inline(never)]
    pub(super) fn resource_quota(&self, obj: &Object, now: Millis) -> Result<(), String> {
        let kind = obj.kind();
        let ns = &obj.meta().namespace;
        for q in self.in_namespace(Kind::ResourceQuota, ns).filter_map(|o| o.as_stored()) {
            let scoped = q.field("spec.scopes").is_some() || q.field("spec.scopeSelector").is_some();
            if scoped && !matches!(obj, Object::Pod(p) if scopes_select(q, p)) {
                continue;
            }
            let hard = resource_list(q.field("spec.hard"));
            let name = &q.metadata.name;
            if let Object::Pod(p) = obj {
                let mut missing: VecMap<&str, Vec<&str>> = VecMap::new();
                for r in COMPUTE.iter().filter(|r| hard.contains_key(**r)) {
                    let (list, res) = match *r {
                        "limits.cpu" => (true, "cpu"),
                        "limits.memory" => (true, "memory"),
                        "cpu" | "requests.cpu" => (false, "cpu"),
                        _ => (false, "memory"),
                    };
                    for c in p.spec.containers.iter() {
                        let set = if list { &c.resources.limits } else { &c.resources.requests };
                        if !set.contains_key(res) {
                            missing.or_default(r).push(&c.name);
                        }
                    }
                }
                if !missing.is_empty() {
                    let what: Vec<String> =
                        missing.iter().map(|(r, cs)| format!("{r} for: {}", cs.join(","))).collect();
                    return Err(format!("failed quota: {name}: must specify {}", what.join("; ")));
                }
            }
            let mut exceeded = Vec::new();
            for (r, limit) in &hard {
                let requested = match obj {
                    Object::Pod(p) if !counted_as(kind, r) => match pod_usage(p, r) {
                        Some(v) => v,
                        None => continue,
                    },
                    _ if counted_as(kind, r) => 1000,
                    _ => continue,
                };
                let used = self.usage(q, r, now);
                if used.saturating_add(requested) > amount(limit) {
                    exceeded.push((r.to_string(), requested, used, amount(limit)));
                }
            }
            if !exceeded.is_empty() {
                // prettyPrint of each: `R=V` of the resources exceeded, sorted, joined by `,`.
                let part = |i: usize| {
                    let v = |e: &(String, i64, i64, i64)| [e.1, e.2, e.3][i];
                    exceeded.iter().map(|e| show(&e.0, v(e))).collect::<Vec<_>>().join(",")
                };
                return Err(format!(
                    "exceeded quota: {name}, requested: {}, used: {}, limited: {}",
                    part(0),
                    part(1),
                    part(2)
                ));
            }
        }
        Ok(())
    }

    /// A quota's namespace's usage of one of its resources (millis): the pods it selects, summed, or the objects
    /// counted.
    pub(crate) fn usage(&self, q: &crate::api::Stored, resource: &str, now: Millis) -> i64 {
        let namespace = &q.metadata.namespace;
        let pods = self
            .in_namespace(Kind::Pod, namespace)
            .filter_map(|o| o.as_pod())
            .filter(move |p| pod_counts(p, now) && scopes_select(q, p));
        let kind = Kind::ALL.into_iter().find(|k| k.namespaced() && counted_as(*k, resource));
        match kind {
            Some(Kind::Pod) => (pods.count() as i64).saturating_mul(1000),
            Some(k) => (self.in_namespace(k, namespace).count() as i64).saturating_mul(1000),
            None => pods.filter_map(|p| pod_usage(p, resource)).fold(0i64, i64::saturating_add),
        }
    }
}
