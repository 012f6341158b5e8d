//! The oracle: the writer against serde's derived `Serialize` (`serde_json::to_value`, as `to_json` wrote objects
//! before it), on every object the examples leave in the store (sampled along each run), every manifest of the
//! repository, and every variant of an object with every field set (each field removed, zeroed or nulled in
//! turn). A recording serializer then checks that every field of every serialized API type was compared written
//! (non-empty) and empty (left out by its skip rule, or written empty when it has none), and every unit variant
//! of their enums.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::ser::{self, Serialize};
use serde_json::json;

use super::*;

/// What `to_json` wrote before the writer: serde's derive, with `apiVersion` and `kind`.
fn serde_json_of(o: &Object) -> Value {
    let body = match o {
        Object::Namespace(v) => serde_json::to_value(v),
        Object::Node(v) => serde_json::to_value(v),
        Object::Pod(v) => serde_json::to_value(v),
        Object::ReplicaSet(v) => serde_json::to_value(v),
        Object::Deployment(v) => serde_json::to_value(v),
        Object::Lease(v) => serde_json::to_value(v),
        Object::Event(v) => serde_json::to_value(v),
        Object::ConfigMap(v) => serde_json::to_value(v),
        Object::Secret(v) => serde_json::to_value(v),
        Object::ServiceAccount(v) => serde_json::to_value(v),
        Object::Service(v) => serde_json::to_value(v),
        Object::EndpointSlice(v) => serde_json::to_value(v),
        Object::PodDisruptionBudget(v) => serde_json::to_value(v),
        Object::DaemonSet(v) => serde_json::to_value(v),
        Object::StatefulSet(v) => serde_json::to_value(v),
        Object::Job(v) => serde_json::to_value(v),
        Object::CronJob(v) => serde_json::to_value(v),
        // A stored kind's fields are JSON already: its metadata through serde, then the fields.
        Object::Stored(v) => serde_json::to_value(&v.metadata).map(|m| {
            let mut body = v.fields.clone();
            body.insert("metadata".into(), m);
            Value::Object(body)
        }),
    };
    let mut out = Map::new();
    out.insert("apiVersion".into(), o.kind().api_version().into());
    out.insert("kind".into(), o.kind().name().into());
    match body {
        Ok(Value::Object(fields)) => out.extend(fields),
        other => panic!("{other:?}"),
    }
    Value::Object(out)
}

/// The objects compared, and what the recording serializer saw of their types.
#[derive(Default)]
struct Oracle {
    compared: usize,
    by_kind: BTreeMap<&'static str, usize>,
    seen: RefCell<Seen>,
}

impl Oracle {
    fn check(&mut self, o: &Object, from: &str) {
        let (ours, theirs) = (object(o), serde_json_of(o));
        if ours != theirs {
            let text = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
            panic!("{from}: {} {} differs\nwriter: {}\nserde:  {}", o.kind(), o.key(), text(&ours), text(&theirs));
        }
        assert_eq!(crate::manifest::ObjectText::to_json(o), theirs, "{from}");
        self.compared += 1;
        *self.by_kind.entry(o.kind().name()).or_default() += 1;
        let rec = Rec { seen: &self.seen, name: "" };
        let recorded = match o {
            Object::Namespace(v) => v.serialize(rec),
            Object::Node(v) => v.serialize(rec),
            Object::Pod(v) => v.serialize(rec),
            Object::ReplicaSet(v) => v.serialize(rec),
            Object::Deployment(v) => v.serialize(rec),
            Object::Lease(v) => v.serialize(rec),
            // Flattened, the body's fields reach a serializer as map entries: recorded as the struct they are.
            Object::Event(v) => {
                self.seen.borrow_mut().structs.insert("Event");
                Rec { name: "Event", ..rec }.field("metadata", &v.metadata).and(v.body.serialize(rec))
            }
            Object::ConfigMap(v) => v.serialize(rec),
            Object::Secret(v) => v.serialize(rec),
            Object::ServiceAccount(v) => v.serialize(rec),
            Object::Service(v) => v.serialize(rec),
            Object::EndpointSlice(v) => v.serialize(rec),
            Object::PodDisruptionBudget(v) => v.serialize(rec),
            Object::DaemonSet(v) => v.serialize(rec),
            Object::StatefulSet(v) => v.serialize(rec),
            Object::Job(v) => v.serialize(rec),
            Object::CronJob(v) => v.serialize(rec),
            Object::Stored(v) => v.metadata.serialize(rec),
        };
        assert!(recorded.is_ok());
    }

    /// Every object of a manifest text (nothing when it does not parse).
    fn manifests(&mut self, text: &str, from: &str) -> usize {
        let Ok((ms, _)) = crate::manifest::parse(text) else { return 0 };
        for m in &ms {
            self.check(&m.object, from);
        }
        ms.len()
    }
}

// ---------------------------------------------------------------------------------------------------------------
// A serializer that records, for each struct, which fields were written (empty or not) and which were skipped.

#[derive(Default)]
struct Seen {
    /// (struct, field): [written non-empty, written empty, skipped].
    fields: BTreeMap<(&'static str, &'static str), [bool; 3]>,
    structs: BTreeSet<&'static str>,
    variants: BTreeSet<(&'static str, &'static str)>,
}

#[derive(Clone, Copy)]
struct Rec<'a> {
    seen: &'a RefCell<Seen>,
    /// The struct whose fields are being serialized.
    name: &'static str,
}

#[derive(Debug)]
struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

impl ser::Error for Never {
    fn custom<T: std::fmt::Display>(_: T) -> Never {
        Never
    }
}

type R = Result<(), Never>;

/// A value as its type's default writes it: null, false, 0, "", [], or an object of such values (a struct whose
/// fields are all at their defaults, some of them always written).
fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(m) => m.values().all(empty),
    }
}

impl<'a> Rec<'a> {
    fn field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> R {
        let value = serde_json::to_value(v).map_err(|_| Never)?;
        self.seen.borrow_mut().fields.entry((self.name, key)).or_default()[usize::from(empty(&value))] = true;
        v.serialize(Rec { seen: self.seen, name: "" })
    }

    fn skip(&mut self, key: &'static str) -> R {
        self.seen.borrow_mut().fields.entry((self.name, key)).or_default()[2] = true;
        Ok(())
    }

    fn inner<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        v.serialize(Rec { seen: self.seen, name: "" })
    }
}

macro_rules! ok {
    ($($f:ident: $t:ty),*) => { $(fn $f(self, _: $t) -> R { Ok(()) })* };
}

/// Serializer methods that begin a compound value: it goes on as the same recorder.
macro_rules! same {
    ($($f:ident($($t:ty),*)),*) => { $(fn $f(self, $(_: $t),*) -> Result<Self, Never> { Ok(self) })* };
}

/// Serializer methods of a wrapper: they record the value inside.
macro_rules! inner {
    ($($f:ident($($t:ty),*)),*) => {
        $(fn $f<T: ?Sized + Serialize>(mut self, $(_: $t,)* v: &T) -> R { self.inner(v) })*
    };
}

impl<'a> ser::Serializer for Rec<'a> {
    type Ok = ();
    type Error = Never;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    ok!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64, serialize_f32: f32,
        serialize_f64: f64, serialize_char: char, serialize_str: &str, serialize_bytes: &[u8],
        serialize_unit_struct: &'static str);

    fn serialize_none(self) -> R {
        Ok(())
    }
    fn serialize_unit(self) -> R {
        Ok(())
    }

    inner!(
        serialize_some(),
        serialize_newtype_struct(&'static str),
        serialize_newtype_variant(&'static str, u32, &'static str)
    );

    same!(
        serialize_seq(Option<usize>),
        serialize_tuple(usize),
        serialize_tuple_struct(&'static str, usize),
        serialize_tuple_variant(&'static str, u32, &'static str, usize),
        serialize_map(Option<usize>),
        serialize_struct_variant(&'static str, u32, &'static str, usize)
    );

    fn serialize_unit_variant(self, name: &'static str, _: u32, variant: &'static str) -> R {
        self.seen.borrow_mut().variants.insert((name, variant));
        Ok(())
    }
    fn serialize_struct(self, name: &'static str, _: usize) -> Result<Self, Never> {
        self.seen.borrow_mut().structs.insert(name);
        Ok(Rec { seen: self.seen, name })
    }
}

/// Implements serde's compound serializers for the recorder: `values:` records each element, `fields:` each field.
macro_rules! compound {
    (values: $($tr:ident::$f:ident),*) => { $(
        impl ser::$tr for Rec<'_> {
            type Ok = ();
            type Error = Never;
            fn $f<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
                self.inner(v)
            }
            fn end(self) -> R {
                Ok(())
            }
        }
    )* };
    (fields: $($tr:ident),*) => { $(
        impl ser::$tr for Rec<'_> {
            type Ok = ();
            type Error = Never;
            fn serialize_field<T: ?Sized + Serialize>(&mut self, key: &'static str, v: &T) -> R {
                self.field(key, v)
            }
            fn skip_field(&mut self, key: &'static str) -> R {
                self.skip(key)
            }
            fn end(self) -> R {
                Ok(())
            }
        }
    )* };
}

compound!(values: SerializeSeq::serialize_element, SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field, SerializeTupleVariant::serialize_field);
compound!(fields: SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Rec<'_> {
    type Ok = ();
    type Error = Never;
    fn serialize_key<T: ?Sized + Serialize>(&mut self, _: &T) -> R {
        Ok(())
    }
    fn serialize_value<T: ?Sized + Serialize>(&mut self, v: &T) -> R {
        self.inner(v)
    }
    fn end(self) -> R {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The API types as their source declares them: each `Serialize` struct's fields (JSON name, whether a skip rule
// leaves it out) and each `Serialize` enum's unit variants.

#[derive(Debug, Default)]
struct Declared {
    structs: BTreeMap<String, Vec<(String, bool)>>,
    enums: BTreeMap<String, Vec<String>>,
}

fn camel(field: &str) -> String {
    let mut out = String::new();
    for (i, part) in field.split('_').enumerate() {
        let mut chars = part.chars();
        match chars.next() {
            Some(c) if i > 0 => out.extend(c.to_uppercase().chain(chars)),
            Some(c) => out.extend(std::iter::once(c).chain(chars)),
            None => {}
        }
    }
    out
}

fn declared() -> Declared {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/src/api");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).expect("api").flatten().map(|e| e.path()).collect();
    files.sort();
    let mut out = Declared::default();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("source");
        let (mut serialize, mut camel_case, mut untagged) = (false, false, false);
        let mut body: Option<(String, bool)> = None;
        let mut attrs = String::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with("mod tests") {
                break;
            }
            if let Some((name, is_struct)) = &body {
                if line.starts_with('}') {
                    body = None;
                } else if line.starts_with("#[") || (!attrs.is_empty() && !attrs.ends_with(']')) {
                    attrs.push_str(line);
                } else if let (true, Some(field)) = (*is_struct, line.strip_prefix("pub ")) {
                    let field = field.split(':').next().unwrap_or_default().trim();
                    let rename = attrs.split("rename = \"").nth(1).and_then(|r| r.split('"').next());
                    let json = match rename {
                        Some(r) => r.to_string(),
                        None if camel_case => camel(field),
                        None => field.to_string(),
                    };
                    let skip = attrs.contains("skip_serializing_if");
                    if !attrs.contains("flatten") {
                        out.structs.entry(name.clone()).or_default().push((json, skip));
                    }
                    attrs.clear();
                } else if !*is_struct && !line.starts_with("//") && !line.is_empty() {
                    let variant = line.trim_end_matches(',');
                    if variant.chars().all(char::is_alphanumeric) {
                        out.enums.entry(name.clone()).or_default().push(variant.to_string());
                    }
                }
                continue;
            }
            if line.starts_with("#[derive(") {
                (serialize, camel_case, untagged) = (line.contains("Serialize"), false, false);
            } else if line.starts_with("#[serde(") {
                camel_case |= line.contains("rename_all = \"camelCase\"");
                untagged |= line.contains("untagged");
            } else if let Some(rest) = line.strip_prefix("pub struct ").or(line.strip_prefix("pub enum ")) {
                let name = rest.split([' ', '{', '<', '(', ';']).next().unwrap_or_default().to_string();
                let is_struct = line.starts_with("pub struct");
                if serialize && !untagged {
                    if is_struct {
                        out.structs.entry(name.clone()).or_default();
                    }
                    if !line.ends_with("{}") {
                        body = Some((name, is_struct));
                    }
                }
                serialize = false;
                attrs.clear();
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------------------------
// Objects with every field set, and their variants.

fn t(s: u64) -> Value {
    json!(crate::time::rfc3339(s * 1000))
}

fn full_meta() -> Value {
    json!({
        "name": "n", "generateName": "n-", "namespace": "ns", "uid": "u-1", "resourceVersion": "42",
        "generation": 3, "creationTimestamp": t(1), "deletionTimestamp": t(2), "deletionGracePeriodSeconds": 30,
        "labels": {"app": "web", "tier": ""}, "annotations": {"note": "x"},
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "r", "uid": "u-2",
                             "controller": true, "blockOwnerDeletion": false}],
        "finalizers": ["example.com/hold"],
    })
}

fn object_reference_json() -> Value {
    json!({"kind": "Pod", "namespace": "ns", "name": "p", "uid": "u-3", "apiVersion": "v1"})
}

fn selector_json() -> Value {
    json!({"matchLabels": {"app": "web"}, "matchExpressions": [
        {"key": "a", "operator": "In", "values": ["x", "y"]},
        {"key": "b", "operator": "NotIn", "values": ["z"]},
        {"key": "c", "operator": "Exists"},
        {"key": "d", "operator": "DoesNotExist"},
    ]})
}

fn probe_json(http_port: Value, tcp_port: Value) -> Value {
    json!({
        "exec": {"command": ["cat", "/tmp/ok"]},
        "httpGet": {"path": "/healthz", "port": http_port, "host": "h", "scheme": "HTTPS",
                    "httpHeaders": [{"name": "X", "value": "1"}]},
        "tcpSocket": {"port": tcp_port, "host": "h"},
        "grpc": {"port": 9090, "service": "svc"},
        "initialDelaySeconds": 5, "timeoutSeconds": 2, "periodSeconds": 7, "successThreshold": 1,
        "failureThreshold": 4, "terminationGracePeriodSeconds": 9,
    })
}

fn pod_spec_json() -> Value {
    let key = json!({"name": "cm", "key": "k", "optional": true});
    json!({
        "volumes": [{"name": "v", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"},
                     "secret": {"secretName": "s", "defaultMode": 420, "optional": false},
                     "configMap": {"name": "cm", "defaultMode": 256, "optional": true}},
                    {"name": "w", "persistentVolumeClaim": {"claimName": "www-web-0", "readOnly": true}},
                    {"name": "x", "persistentVolumeClaim": {"claimName": "www-web-1"}}],
        "containers": [{
            "name": "c", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent",
            "resources": {"limits": {"cpu": "2", "memory": "1Gi"}, "requests": {"cpu": "250m"}},
            "ports": [{"containerPort": 80, "name": "http", "protocol": "TCP"}],
            "command": ["sh"], "args": ["-c", "true"],
            "envFrom": [{"prefix": "P_", "configMapRef": {"name": "cm", "optional": true},
                         "secretRef": {"name": "s", "optional": false}}],
            "env": [{"name": "A", "value": "1", "valueFrom": {"configMapKeyRef": key, "secretKeyRef": key}}],
            "livenessProbe": probe_json(json!(8080), json!("http")),
            "readinessProbe": probe_json(json!("http"), json!(80)),
            "startupProbe": probe_json(json!(-1), json!("25%")),
            "lifecycle": {"postStart": {"exec": {"command": ["touch", "/ready"]},
                                        "httpGet": {"path": "/start", "port": 80, "scheme": "HTTP"},
                                        "tcpSocket": {"port": 80}}},
        }, {
            "name": "d", "image": "busybox:1.36",
            "lifecycle": {"preStop": {"sleep": {"seconds": 0}}},
        }, {
            "name": "e", "image": "busybox:1.36",
            "lifecycle": {"preStop": {"sleep": {"seconds": 5}}},
        }],
        "nodeName": "node-1", "nodeSelector": {"disk": "ssd"},
        "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}],
                 "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]},
                {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]},
            ]},
        }},
        "tolerations": [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoExecute",
                         "tolerationSeconds": 60}],
        "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "schedulerName": "default-scheduler",
        "dnsPolicy": "ClusterFirst", "priority": -5, "hostname": "web-0", "subdomain": "nginx",
    })
}

fn container_state_json() -> Value {
    json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off"}, "running": {"startedAt": t(3)},
           "terminated": {"exitCode": 137, "reason": "Error", "startedAt": t(3), "finishedAt": t(4)}})
}

/// One document of each kind with every field set (and both forms of the int-or-string fields).
fn full_documents() -> Vec<(Kind, Value)> {
    let meta = full_meta();
    let template = json!({"metadata": meta, "spec": pod_spec_json()});
    let condition = json!({"type": "Ready", "status": "True", "lastTransitionTime": t(5), "reason": "R",
                           "message": "M"});
    vec![
        (
            Kind::Namespace,
            json!({"metadata": meta, "spec": {"finalizers": ["kubernetes"]},
            "status": {"phase": "Terminating", "conditions": [condition]}}),
        ),
        (
            Kind::Node,
            json!({"metadata": meta,
            "spec": {"unschedulable": true, "podCIDR": "10.244.0.0/24",
                     "taints": [{"key": "k", "value": "v", "effect": "NoSchedule", "timeAdded": t(6)}]},
            "status": {"capacity": {"cpu": "4", "pods": "110"}, "allocatable": {"memory": "8Gi"},
                "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": t(7),
                                "lastTransitionTime": t(8), "reason": "KubeletReady", "message": "ok"}],
                "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
                "nodeInfo": {"kubeletVersion": "v1.34.0", "containerRuntimeVersion": "containerd://2",
                             "osImage": "Linux", "architecture": "amd64", "operatingSystem": "linux"}}}),
        ),
        (
            Kind::Pod,
            json!({"metadata": meta, "spec": pod_spec_json(),
            "status": {"phase": "Running", "conditions": [condition], "message": "m", "reason": "r",
                "hostIP": "10.0.0.1", "podIP": "10.244.0.5", "startTime": t(9),
                "containerStatuses": [{"name": "c", "state": container_state_json(),
                    "lastState": container_state_json(), "ready": true, "restartCount": 2,
                    "image": "nginx:1.27", "started": true}]}}),
        ),
        (
            Kind::ReplicaSet,
            json!({"metadata": meta,
            "spec": {"replicas": 3, "minReadySeconds": 4, "selector": selector_json(), "template": template},
            "status": {"replicas": 3, "fullyLabeledReplicas": 3, "readyReplicas": 2, "availableReplicas": 1,
                       "observedGeneration": 5, "conditions": [condition]}}),
        ),
        (
            Kind::Deployment,
            json!({"metadata": meta,
            "spec": {"replicas": 3, "selector": selector_json(), "template": template,
                     "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": "25%"}},
                     "minReadySeconds": 4, "revisionHistoryLimit": 10, "paused": true, "progressDeadlineSeconds": 600},
            "status": {"observedGeneration": 5, "replicas": 3, "updatedReplicas": 2, "readyReplicas": 2,
                "availableReplicas": 1, "unavailableReplicas": 2, "collisionCount": 1,
                "conditions": [{"type": "Available", "status": "True", "lastUpdateTime": t(10),
                                "lastTransitionTime": t(11), "reason": "R", "message": "M"}]}}),
        ),
        (
            Kind::Lease,
            json!({"metadata": meta, "spec": {"holderIdentity": "me", "leaseDurationSeconds": 15,
            "acquireTime": t(12), "renewTime": t(13), "leaseTransitions": 2}}),
        ),
        (
            Kind::Event,
            json!({"metadata": meta, "involvedObject": object_reference_json(), "reason": "Started",
            "message": "m", "type": "Normal", "count": 2, "firstTimestamp": t(14), "lastTimestamp": t(15),
            "source": {"component": "kubelet", "host": "node-1"}, "reportingComponent": "kubelet",
            "reportingInstance": "node-1"}),
        ),
        (
            Kind::ConfigMap,
            json!({"metadata": meta, "immutable": true, "data": {"a": "1"},
            "binaryData": {"b": "AAE="}}),
        ),
        (
            Kind::Secret,
            json!({"metadata": meta, "immutable": false, "data": {"a": "MQ=="},
            "stringData": {"b": "2"}, "type": "Opaque"}),
        ),
        (
            Kind::ServiceAccount,
            json!({"metadata": meta, "secrets": [object_reference_json()],
            "imagePullSecrets": [{"name": "pull"}], "automountServiceAccountToken": true}),
        ),
        (
            Kind::Service,
            json!({"metadata": meta,
            "spec": {"ports": [{"name": "http", "protocol": "TCP", "port": 80, "targetPort": 8080, "nodePort": 30080},
                               {"port": 443, "targetPort": "https"}],
                "selector": {"app": "web"}, "clusterIP": "10.96.0.10", "clusterIPs": ["10.96.0.10"],
                "type": "NodePort", "externalName": "db.example.com", "sessionAffinity": "None",
                "ipFamilies": ["IPv4"], "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster",
                "externalTrafficPolicy": "Local", "publishNotReadyAddresses": true},
            "status": {"loadBalancer": {}}}),
        ),
        (
            Kind::EndpointSlice,
            json!({"metadata": meta, "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.244.0.5"], "conditions": {"ready": true, "serving": false,
                "terminating": true}, "nodeName": "node-1", "zone": "z", "targetRef": object_reference_json()}],
            "ports": [{"name": "http", "protocol": "TCP", "port": 80}]}),
        ),
        (
            Kind::PodDisruptionBudget,
            json!({"metadata": meta,
            "spec": {"minAvailable": 2, "selector": selector_json(), "maxUnavailable": "10%",
                     "unhealthyPodEvictionPolicy": "AlwaysAllow"},
            "status": {"observedGeneration": 2, "disruptedPods": {"p": t(16)}, "disruptionsAllowed": 1,
                "currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
                "conditions": [{"type": "DisruptionAllowed", "status": "True", "observedGeneration": 2,
                                "lastTransitionTime": t(17), "reason": "SufficientPods", "message": "m"}]}}),
        ),
        (
            Kind::DaemonSet,
            json!({"metadata": meta,
            "spec": {"selector": selector_json(), "template": {"metadata": meta, "spec": pod_spec_json()},
                     "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "10%"}},
                     "minReadySeconds": 5, "revisionHistoryLimit": 3},
            "status": {"currentNumberScheduled": 3, "numberMisscheduled": 1, "desiredNumberScheduled": 3,
                "numberReady": 2, "observedGeneration": 2, "updatedNumberScheduled": 1, "numberAvailable": 2,
                "numberUnavailable": 1, "collisionCount": 2}}),
        ),
        (
            Kind::StatefulSet,
            json!({"metadata": meta,
            "spec": {"replicas": 3, "selector": selector_json(), "template": {"metadata": meta, "spec": pod_spec_json()},
                     "volumeClaimTemplates": [{"metadata": meta, "spec": {"accessModes": ["ReadWriteOnce"],
                         "resources": {"requests": {"storage": "1Gi"}}, "storageClassName": "standard", "volumeMode": "Filesystem"}}],
                     "serviceName": "nginx", "podManagementPolicy": "Parallel",
                     "updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {"partition": 2, "maxUnavailable": "50%"}},
                     "revisionHistoryLimit": 3, "minReadySeconds": 5,
                     "persistentVolumeClaimRetentionPolicy": {"whenDeleted": "Delete", "whenScaled": "Retain"},
                     "ordinals": {"start": 1}},
            "status": {"observedGeneration": 2, "replicas": 3, "readyReplicas": 2, "currentReplicas": 1,
                "updatedReplicas": 2, "currentRevision": "web-a", "updateRevision": "web-b", "collisionCount": 1,
                "availableReplicas": 2}}),
        ),
        (
            Kind::StatefulSet,
            json!({"metadata": meta, "spec": {"selector": selector_json(), "template": {"metadata": {}, "spec": pod_spec_json()},
                     "updateStrategy": {"type": "OnDelete"}},
            "status": {"replicas": 0, "availableReplicas": 0}}),
        ),
        (
            Kind::DaemonSet,
            json!({"metadata": meta, "spec": {"selector": selector_json(), "template": {"metadata": {}, "spec": pod_spec_json()},
                     "updateStrategy": {"type": "OnDelete"}},
            "status": {"currentNumberScheduled": 0, "numberMisscheduled": 0, "desiredNumberScheduled": 0,
                "numberReady": 0}}),
        ),
        (
            Kind::Job,
            json!({"metadata": meta,
            "spec": {"parallelism": 2, "completions": 5, "activeDeadlineSeconds": 60,
                     "podFailurePolicy": {"rules": [
                         {"action": "FailJob", "onExitCodes": {"containerName": "c", "operator": "In", "values": [1, 42]}},
                         {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]}]},
                     "backoffLimit": 3, "selector": selector_json(), "manualSelector": true,
                     "template": {"metadata": meta, "spec": pod_spec_json()}, "ttlSecondsAfterFinished": 100,
                     "completionMode": "Indexed", "suspend": true, "podReplacementPolicy": "Failed"},
            "status": {"conditions": [{"type": "Complete", "status": "True", "lastProbeTime": t(3),
                                       "lastTransitionTime": t(4), "reason": "CompletionsReached", "message": "m"}],
                "startTime": t(1), "completionTime": t(2), "active": 1, "succeeded": 2, "failed": 3, "terminating": 2,
                "completedIndexes": "0-1,3", "uncountedTerminatedPods": {"succeeded": ["a"], "failed": ["b"]},
                "ready": 1}}),
        ),
        (
            Kind::Job,
            json!({"metadata": meta, "spec": {"template": {"metadata": {}, "spec": pod_spec_json()}},
            "status": {"uncountedTerminatedPods": {}}}),
        ),
        (
            Kind::CronJob,
            json!({"metadata": meta,
            "spec": {"schedule": "*/5 * * * *", "timeZone": "Europe/Berlin", "startingDeadlineSeconds": 30,
                     "concurrencyPolicy": "Forbid", "suspend": true,
                     "jobTemplate": {"metadata": meta, "spec": {"backoffLimit": 1,
                         "template": {"metadata": meta, "spec": pod_spec_json()}}},
                     "successfulJobsHistoryLimit": 2, "failedJobsHistoryLimit": 4},
            "status": {"active": [{"kind": "Job", "namespace": "default", "name": "j", "uid": "u", "apiVersion": "batch/v1"}],
                "lastScheduleTime": t(5), "lastSuccessfulTime": t(6)}}),
        ),
        (
            Kind::CronJob,
            json!({"metadata": meta, "spec": {"schedule": "@hourly", "jobTemplate": {"metadata": {}, "spec": {"template": {"metadata": {}, "spec": pod_spec_json()}}}},
            "status": {}}),
        ),
    ]
}

/// The typed object of a JSON document, through serde's derived `Deserialize` (nothing when it refuses it).
fn typed(kind: Kind, v: &Value) -> Option<Object> {
    fn de<T: serde::de::DeserializeOwned>(v: &Value) -> Option<T> {
        serde_json::from_value(v.clone()).ok()
    }
    /// The object of the kind `kind` names, for each kind listed: the kind and its `Object` variant share a name.
    macro_rules! read_as {
        ($($k:ident)*) => {
            match kind {
                $(Kind::$k => Object::$k(de(v)?),)*
                // No typed struct: nothing for serde's derive to read.
                _ => return None,
            }
        };
    }
    Some(read_as!(
        Namespace Node Pod ReplicaSet Deployment Lease Event
        ConfigMap Secret ServiceAccount Service EndpointSlice PodDisruptionBudget DaemonSet Job CronJob StatefulSet
    ))
}

/// The value of its type that serde skips or writes as empty.
fn zero(v: &Value) -> Value {
    match v {
        Value::Bool(_) => json!(false),
        Value::Number(_) => json!(0),
        Value::String(_) => json!(""),
        Value::Array(_) => json!([]),
        Value::Object(_) => json!({}),
        Value::Null => Value::Null,
    }
}

/// The document with each of its values (at any depth) in turn removed, zeroed, or null.
fn variants(doc: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    let mut paths = Vec::new();
    collect_paths(doc, &mut Vec::new(), &mut paths);
    for path in paths {
        for how in 0..3 {
            let mut d = doc.clone();
            edit(&mut d, &path, how);
            out.push(d);
        }
    }
    out
}

#[derive(Clone)]
enum Step {
    Key(String),
    Index(usize),
}

fn collect_paths(v: &Value, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                at.push(Step::Key(k.clone()));
                out.push(at.clone());
                collect_paths(x, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                at.push(Step::Index(i));
                out.push(at.clone());
                collect_paths(x, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

/// At `path`: 0 removes the value, 1 zeroes it, 2 makes it null.
fn edit(doc: &mut Value, path: &[Step], how: u8) {
    let (last, parent) = path.split_last().expect("a path");
    let mut v = doc;
    for step in parent {
        v = match step {
            Step::Key(k) => &mut v[k.as_str()],
            Step::Index(i) => &mut v[*i],
        };
    }
    match (last, v) {
        (Step::Key(k), Value::Object(m)) => match how {
            0 => drop(m.remove(k)),
            1 => m[k] = zero(&m[k]),
            _ => m[k] = Value::Null,
        },
        (Step::Index(i), Value::Array(a)) => match how {
            0 => drop(a.remove(*i)),
            1 => a[*i] = zero(&a[*i]),
            _ => a[*i] = Value::Null,
        },
        _ => unreachable!(),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The repository's texts: example files, scenario runs, and the manifests written in the crate's Rust sources.

/// The string literals of a Rust source (plain, raw, with their escapes read).
fn string_literals(src: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let prev_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => i = src[i..].find('\n').map_or(b.len(), |n| i + n),
            b'\'' => {
                // A char literal ('x', '\n', '"') or a lifetime.
                if b.get(i + 1) == Some(&b'\\') {
                    i = src[i + 3..].find('\'').map_or(b.len(), |n| i + 3 + n + 1);
                } else {
                    let len = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                    i += if b.get(i + 1 + len) == Some(&b'\'') { len + 2 } else { 1 };
                }
            }
            b'r' if !prev_ident && matches!(b.get(i + 1), Some(b'"' | b'#')) => {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let start = i + 2 + hashes;
                let close = format!("\"{}", "#".repeat(hashes));
                let end = src[start..].find(&close).map_or(b.len(), |n| start + n);
                out.push(src[start..end].to_string());
                i = end + close.len();
            }
            b'"' => {
                let mut s = String::new();
                let mut chars = src[i + 1..].char_indices();
                let mut end = b.len();
                while let Some((j, c)) = chars.next() {
                    match c {
                        '"' => {
                            end = i + 1 + j + 1;
                            break;
                        }
                        '\\' => match chars.next().map(|(_, c)| c) {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some('r') => s.push('\r'),
                            Some('0') => s.push('\0'),
                            Some('\n') => {
                                let rest = chars.as_str();
                                let skip = rest.len() - rest.trim_start().len();
                                for _ in 0..rest[..skip].chars().count() {
                                    chars.next();
                                }
                            }
                            Some('x') => {
                                let hex: String = (0..2).filter_map(|_| chars.next().map(|(_, c)| c)).collect();
                                s.push(char::from(u8::from_str_radix(&hex, 16).unwrap_or(b'?')));
                            }
                            Some('u') => {
                                let mut hex = String::new();
                                for (_, c) in chars.by_ref() {
                                    match c {
                                        '{' => {}
                                        '}' => break,
                                        c => hex.push(c),
                                    }
                                }
                                s.extend(u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32));
                            }
                            Some(c) => s.push(c),
                            None => {}
                        },
                        c => s.push(c),
                    }
                }
                out.push(s);
                i = end;
            }
            _ => i += 1,
        }
    }
    out
}

fn rust_sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The scenario files: the examples, lessons and manifests, the wasm check's, and the engine's test data.
fn scenario_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = crate::testing::example_files();
    for dir in ["tests", "testdata"] {
        for e in std::fs::read_dir(root.join(dir)).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "yaml") {
                files.push(e.path());
            }
        }
    }
    files
}

/// The manifests a scenario holds: its `manifests:` and each `apply:` action's.
fn scenario_manifests(sc: &crate::Scenario) -> Vec<&str> {
    let applied = sc.actions.iter().filter_map(|a| match &a.what {
        crate::Intervention::Apply(text) => Some(text.as_str()),
        _ => None,
    });
    sc.manifests.as_deref().into_iter().chain(applied).collect()
}

// ---------------------------------------------------------------------------------------------------------------

#[test]
fn writes_every_object_as_serde_did() {
    let mut oracle = Oracle::default();

    // Every scenario, run to its end and looked at along the way: statuses, events, leases, slices, budgets.
    let mut runs = 0;
    for path in scenario_files() {
        let from = path.display().to_string();
        let text = std::fs::read_to_string(&path).expect("example");
        oracle.manifests(&text, &from);
        let Ok(sc) = crate::Scenario::parse(&text) else { continue };
        for m in scenario_manifests(&sc) {
            assert!(oracle.manifests(m, &from) > 0, "{from}: a manifest that does not parse");
        }
        let Ok(mut run) = sc.start(crate::RunOptions::default()) else { continue };
        let until = run.until();
        for step in 1..=8 {
            run.run_to(until / 8 * step);
            for kind in Kind::ALL {
                for o in run.sim().store().objects(kind) {
                    oracle.check(o, &from);
                }
            }
        }
        runs += 1;
    }
    assert!(runs >= 17, "{runs} scenarios ran");
    let from_runs = oracle.compared;

    // The manifests of the golden kubectl outputs and of the crate's Rust sources (tests included).
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut manifests = 0;
    for e in std::fs::read_dir(root.join("tests/golden/kubectl")).expect("golden").flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        for chunk in text.split("\n$ ") {
            let body = chunk.split_once('\n').map_or("", |(_, b)| b);
            manifests += oracle.manifests(body, &e.path().display().to_string());
        }
    }
    let mut sources = Vec::new();
    rust_sources(&root.join("src"), &mut sources);
    rust_sources(&root.join("tests"), &mut sources);
    for path in sources {
        let from = path.display().to_string();
        for s in string_literals(&std::fs::read_to_string(&path).expect("source")) {
            if s.contains("kind:") {
                manifests += oracle.manifests(&s, &from);
                manifests += oracle.manifests(&s.replace("{{", "{").replace("}}", "}"), &from);
            }
            if let Ok(sc) = crate::Scenario::parse(&s) {
                for m in scenario_manifests(&sc) {
                    manifests += oracle.manifests(m, &from);
                }
            }
        }
    }
    assert!(manifests > 200, "{manifests} manifests");

    // Every field set, then each one removed, zeroed or null in turn; every kind empty; every pod phase.
    let mut built = 0;
    for (kind, doc) in full_documents() {
        let full = typed(kind, &doc).unwrap_or_else(|| panic!("{kind}: the full document does not read"));
        let mut round = serde_json_of(&full);
        round.as_object_mut().map(|m| (m.remove("apiVersion"), m.remove("kind")));
        assert_eq!(round, doc, "{kind}: every field of the document reads back");
        oracle.check(&full, "full");
        for v in variants(&doc) {
            if let Some(o) = typed(kind, &v) {
                oracle.check(&o, "variant");
                built += 1;
            }
        }
    }
    for kind in Kind::ALL.into_iter().filter(|k| k.info().stored.is_none()) {
        let empty = typed(kind, &json!({})).expect("an empty object");
        oracle.check(&empty, "empty");
        let mut meta = empty.clone();
        *meta.meta_mut() = ObjectMeta::named("ns", "n");
        oracle.check(&meta, "named");
    }
    for phase in [PodPhase::Pending, PodPhase::Running, PodPhase::Succeeded, PodPhase::Failed, PodPhase::Unknown] {
        let mut pod = Pod::default();
        pod.status.phase = phase;
        oracle.check(&Object::Pod(pod), "phase");
    }
    let other_forms = json!({"spec": {"strategy": {"rollingUpdate": {"maxUnavailable": "10%", "maxSurge": 0}}}});
    oracle.check(&typed(Kind::Deployment, &other_forms).expect("a Deployment"), "int-or-string");
    let es = EndpointSlice { endpoints: Some(Vec::new()), ports: Some(Vec::new()), ..Default::default() };
    oracle.check(&Object::EndpointSlice(es), "empty lists");
    assert!(built > 1000, "{built} variants");
    for (kind, n) in &oracle.by_kind {
        // A stored kind has no typed struct to vary: only its manifests are compared.
        let stored = Kind::ALL.iter().any(|k| k.name() == *kind && k.info().stored.is_some());
        assert!(*n > 20 || stored, "{kind}: {n} objects compared");
    }
    assert_eq!(oracle.by_kind.len(), Kind::ALL.len());

    // Coverage: every field of every serialized type compared both set and empty, every unit variant written.
    let seen = oracle.seen.into_inner();
    let declared = declared();
    let mut missing = Vec::new();
    for (name, fields) in &declared.structs {
        if !seen.structs.contains(name.as_str()) {
            missing.push(format!("{name}: never serialized"));
        }
        for (field, skip) in fields {
            let [set, empty, skipped] = seen.fields.get(&(name.as_str(), field.as_str())).copied().unwrap_or_default();
            let (empty, why) = if *skip { (skipped, "left out") } else { (empty, "written empty") };
            // Never empty: an enum (its variants are checked below), or what holds one (a pod's status, its
            // phase); never set: a struct without fields (a Service's `status.loadBalancer`) and what holds it.
            let (never_empty, never_set) = match (name.as_str(), field.as_str()) {
                ("PodStatus", "phase") | ("Pod", "status") | ("LabelSelectorRequirement", "operator") => (true, false),
                ("ServiceStatus", "loadBalancer") | ("Service", "status") => (false, true),
                _ => (false, false),
            };
            if !(set || never_set) || !(empty || never_empty) {
                missing.push(format!("{name}.{field}: set {set}, {why} {empty}"));
            }
        }
    }
    for (name, field) in seen.fields.keys() {
        let known = declared.structs.get(*name).is_some_and(|f| f.iter().any(|(n, _)| n == field));
        if !known {
            missing.push(format!("{name}.{field}: written, but not declared as the source scan reads it"));
        }
    }
    // `Kind` is the store's, not a field of any object.
    for (name, variants) in declared.enums.iter().filter(|(name, _)| *name != "Kind") {
        for v in variants {
            if !seen.variants.contains(&(name.as_str(), v.as_str())) {
                missing.push(format!("{name}::{v}: never written"));
            }
        }
    }
    assert!(missing.is_empty(), "not covered:\n{}", missing.join("\n"));
    assert!(declared.structs.len() >= 65, "{} structs declared", declared.structs.len());
    let fields: usize = declared.structs.values().map(Vec::len).sum();
    assert!(fields >= 250, "{fields} fields declared");
    assert!(from_runs > 5000, "{from_runs} objects of scenario runs");
}

#[test]
fn int_or_string_is_untagged() {
    for v in [IntOrString::Int(3), IntOrString::Int(-1), IntOrString::String("25%".into())] {
        assert_eq!(int_or_string(&v), serde_json::to_value(&v).expect("json"));
    }
}
