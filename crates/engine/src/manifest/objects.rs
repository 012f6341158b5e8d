//! The API types' field tables: for each type, the fields kubeloop reads (their names as written in YAML) and the
//! small function that reads each one into the typed object, over the shared primitives of [`super::decode`].
//! A field Kubernetes has but kubeloop does not simulate is not here: it is left unread, and the schema tables
//! ([`super::schema_fields`]) make it a warning. Adding a kind costs a table like these, not a tree of generated
//! code.

use std::rc::Rc;

use crate::api::*;
use crate::decode::{Any, Cx, Result, Shape};
use crate::yamltree::{Node, Scalar};

mod pod;
use pod::*;
pub(crate) use pod::{pod, quantity};

type Read<'n, 'a> = &'a mut dyn FnMut(&mut Cx<'n>, &'n str, &'n Node) -> Result<()>;

/// Reads a struct of type `name` with the field table `names` (and the serde-required fields `required`).
fn object<'n, T: Default>(
    cx: &mut Cx<'n>,
    n: &'n Node,
    name: &str,
    names: &[&str],
    required: &[&str],
    read: impl FnMut(&mut T, &mut Cx<'n>, &'n str, &'n Node) -> Result<()>,
) -> Result<T> {
    let mut out = T::default();
    let mut read = read;
    let read: Read<'n, '_> = &mut |cx, key, v| read(&mut out, cx, key, v);
    let expected = format!("struct {name}");
    cx.fields(n, &Shape { expected: &expected, names, required, strict: false }, read)?;
    Ok(out)
}

pub(crate) fn namespace<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Namespace> {
    object(cx, n, "Namespace", &["metadata", "spec", "status"], &[], |o: &mut Namespace, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => {
                o.spec = object(cx, v, "NamespaceSpec", &["finalizers"], &[], |s: &mut NamespaceSpec, cx, _, v| {
                    s.finalizers = cx.strings(v)?;
                    Ok(())
                })?
            }
            _ => o.status = namespace_status(cx, v)?,
        }
        Ok(())
    })
}

fn namespace_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<NamespaceStatus> {
    object(cx, n, "NamespaceStatus", &["phase", "conditions"], &[], |s: &mut NamespaceStatus, cx, key, v| {
        match key {
            "phase" => s.phase = cx.string(v)?,
            _ => s.conditions = cx.seq(v, namespace_condition)?,
        }
        Ok(())
    })
}

const CONDITION: &[&str] = &["type", "status", "lastTransitionTime", "reason", "message"];
const CONDITION_REQUIRED: &[&str] = &["type", "status"];

fn namespace_condition<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<NamespaceCondition> {
    object(cx, n, "NamespaceCondition", CONDITION, CONDITION_REQUIRED, |c: &mut NamespaceCondition, cx, key, v| {
        match key {
            "type" => c.type_ = cx.string(v)?,
            "status" => c.status = cx.string(v)?,
            "lastTransitionTime" => c.last_transition_time = cx.option(v, time)?,
            "reason" => c.reason = cx.string(v)?,
            _ => c.message = cx.string(v)?,
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// ConfigMap, Secret, ServiceAccount

pub(crate) fn config_map<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ConfigMap> {
    const NAMES: &[&str] = &["metadata", "immutable", "data", "binaryData"];
    object(cx, n, "ConfigMap", NAMES, &[], |o: &mut ConfigMap, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "immutable" => o.immutable = cx.option(v, Cx::bool)?,
            "data" => o.data = cx.labels(v)?,
            _ => o.binary_data = cx.base64_values(v)?,
        }
        Ok(())
    })
}

pub(crate) fn secret<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Secret> {
    const NAMES: &[&str] = &["metadata", "immutable", "data", "stringData", "type"];
    object(cx, n, "Secret", NAMES, &[], |o: &mut Secret, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "immutable" => o.immutable = cx.option(v, Cx::bool)?,
            "data" => o.data = cx.base64_values(v)?,
            "stringData" => o.string_data = cx.labels(v)?,
            _ => o.type_ = cx.string(v)?,
        }
        Ok(())
    })
}

pub(crate) fn service_account<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ServiceAccount> {
    const NAMES: &[&str] = &["metadata", "secrets", "imagePullSecrets", "automountServiceAccountToken"];
    object(cx, n, "ServiceAccount", NAMES, &[], |o: &mut ServiceAccount, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "secrets" => o.secrets = cx.seq(v, object_reference)?,
            "imagePullSecrets" => o.image_pull_secrets = cx.seq(v, local_object_reference)?,
            _ => o.automount_service_account_token = cx.option(v, Cx::bool)?,
        }
        Ok(())
    })
}

fn object_reference<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ObjectReference> {
    const NAMES: &[&str] = &["kind", "namespace", "name", "uid", "apiVersion"];
    object(cx, n, "ObjectReference", NAMES, &[], |r: &mut ObjectReference, cx, key, v| {
        let s = cx.string(v)?;
        match key {
            "kind" => r.kind = s,
            "namespace" => r.namespace = s,
            "name" => r.name = s,
            "uid" => r.uid = s,
            _ => r.api_version = s,
        }
        Ok(())
    })
}

pub(crate) fn endpoint_slice<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<EndpointSlice> {
    const NAMES: &[&str] = &["metadata", "addressType", "endpoints", "ports"];
    object(cx, n, "EndpointSlice", NAMES, &[], |o: &mut EndpointSlice, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "addressType" => o.address_type = cx.string(v)?,
            "endpoints" => o.endpoints = cx.option(v, |cx, v| cx.seq(v, endpoint))?,
            _ => o.ports = cx.option(v, |cx, v| cx.seq(v, endpoint_port))?,
        }
        Ok(())
    })
}

fn endpoint<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Endpoint> {
    const NAMES: &[&str] = &["addresses", "conditions", "nodeName", "zone", "targetRef"];
    object(cx, n, "Endpoint", NAMES, &[], |e: &mut Endpoint, cx, key, v| {
        match key {
            "addresses" => e.addresses = cx.strings(v)?,
            "conditions" => {
                e.conditions = object(cx, v, "EndpointConditions", &["ready", "serving", "terminating"], &[], {
                    |c: &mut EndpointConditions, cx, key, v| {
                        let b = cx.option(v, Cx::bool)?;
                        match key {
                            "ready" => c.ready = b,
                            "serving" => c.serving = b,
                            _ => c.terminating = b,
                        }
                        Ok(())
                    }
                })?
            }
            "nodeName" => e.node_name = cx.string(v)?,
            "zone" => e.zone = cx.string(v)?,
            _ => e.target_ref = cx.option(v, object_reference)?,
        }
        Ok(())
    })
}

fn endpoint_port<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<EndpointPort> {
    object(cx, n, "EndpointPort", &["name", "protocol", "port"], &[], |p: &mut EndpointPort, cx, key, v| {
        match key {
            "name" => p.name = cx.string(v)?,
            "protocol" => p.protocol = cx.string(v)?,
            _ => p.port = cx.option(v, Cx::i32)?,
        }
        Ok(())
    })
}

fn local_object_reference<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<LocalObjectReference> {
    object(cx, n, "LocalObjectReference", &["name"], &[], |r: &mut LocalObjectReference, cx, _, v| {
        r.name = cx.string(v)?;
        Ok(())
    })
}

pub(crate) fn service<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Service> {
    object(cx, n, "Service", &["metadata", "spec", "status"], &[], |o: &mut Service, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => o.spec = service_spec(cx, v)?,
            // Written by the API server (no load balancer here): checked for its shape, read as empty.
            _ => {
                o.status = object(cx, v, "ServiceStatus", &["loadBalancer"], &[], |_: &mut ServiceStatus, cx, _, v| {
                    object(cx, v, "LoadBalancerStatus", &[], &[], |_: &mut LoadBalancerStatus, _, _, _| Ok(()))?;
                    Ok(())
                })?
            }
        }
        Ok(())
    })
}

fn service_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ServiceSpec> {
    const NAMES: &[&str] = &[
        "ports",
        "selector",
        "clusterIP",
        "clusterIPs",
        "type",
        "externalName",
        "sessionAffinity",
        "ipFamilies",
        "ipFamilyPolicy",
        "internalTrafficPolicy",
        "externalTrafficPolicy",
        "publishNotReadyAddresses",
    ];
    object(cx, n, "ServiceSpec", NAMES, &[], |s: &mut ServiceSpec, cx, key, v| {
        match key {
            "ports" => s.ports = cx.seq(v, service_port)?,
            "selector" => s.selector = cx.labels(v)?,
            "clusterIP" => s.cluster_ip = cx.string(v)?,
            "clusterIPs" => s.cluster_ips = cx.strings(v)?,
            "type" => s.type_ = cx.string(v)?,
            "externalName" => s.external_name = cx.string(v)?,
            "sessionAffinity" => s.session_affinity = cx.string(v)?,
            "ipFamilies" => s.ip_families = cx.strings(v)?,
            "ipFamilyPolicy" => s.ip_family_policy = cx.string(v)?,
            "internalTrafficPolicy" => s.internal_traffic_policy = cx.string(v)?,
            "externalTrafficPolicy" => s.external_traffic_policy = cx.string(v)?,
            _ => s.publish_not_ready_addresses = cx.option(v, Cx::bool)?,
        }
        Ok(())
    })
}

fn service_port<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ServicePort> {
    const NAMES: &[&str] = &["name", "protocol", "port", "targetPort", "nodePort"];
    object(cx, n, "ServicePort", NAMES, &["port"], |p: &mut ServicePort, cx, key, v| {
        match key {
            "name" => p.name = cx.string(v)?,
            "protocol" => p.protocol = cx.string(v)?,
            "port" => p.port = cx.i32(v)?,
            "targetPort" => p.target_port = cx.option(v, int_or_string)?,
            _ => p.node_port = cx.i32(v)?,
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// metadata

fn time<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Time> {
    let text = cx.text(n, "a string")?;
    crate::time::parse_rfc3339(text).map(Time).ok_or_else(|| {
        cx.error(n, format_args!("invalid timestamp {text:?}: expected RFC 3339 like 2026-01-01T00:00:00Z"))
    })
}

fn resource_version<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<u64> {
    let text = cx.option(n, |cx, n| cx.text(n, "a string"))?.unwrap_or_default();
    if text.is_empty() {
        return Ok(0);
    }
    text.parse().map_err(|_| cx.error(n, format_args!("invalid resourceVersion {text:?}: not issued by this server")))
}

pub(crate) fn meta<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ObjectMeta> {
    const NAMES: &[&str] = &[
        "name",
        "generateName",
        "namespace",
        "uid",
        "resourceVersion",
        "generation",
        "creationTimestamp",
        "deletionTimestamp",
        "deletionGracePeriodSeconds",
        "labels",
        "annotations",
        "ownerReferences",
        "finalizers",
    ];
    object(cx, n, "ObjectMeta", NAMES, &[], |m: &mut ObjectMeta, cx, key, v| {
        match key {
            "name" => m.name = cx.string(v)?,
            "generateName" => m.generate_name = cx.string(v)?,
            "namespace" => m.namespace = cx.string(v)?,
            "uid" => m.uid = cx.string(v)?,
            "resourceVersion" => m.resource_version = resource_version(cx, v)?,
            "generation" => m.generation = cx.i64(v)?,
            "creationTimestamp" => m.creation_timestamp = cx.option(v, time)?,
            "deletionTimestamp" => m.deletion_timestamp = cx.option(v, time)?,
            "deletionGracePeriodSeconds" => m.deletion_grace_period_seconds = cx.option(v, Cx::i64)?,
            "labels" => m.labels = cx.labels(v)?,
            "annotations" => m.annotations = cx.labels(v)?,
            "ownerReferences" => m.owner_references = cx.seq(v, owner_reference)?,
            _ => m.finalizers = cx.strings(v)?,
        }
        Ok(())
    })
}

fn owner_reference<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<OwnerReference> {
    const NAMES: &[&str] = &["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"];
    const REQUIRED: &[&str] = &["apiVersion", "kind", "name", "uid"];
    object(cx, n, "OwnerReference", NAMES, REQUIRED, |r: &mut OwnerReference, cx, key, v| {
        match key {
            "apiVersion" => r.api_version = cx.string(v)?,
            "kind" => r.kind = cx.string(v)?,
            "name" => r.name = cx.string(v)?,
            "uid" => r.uid = cx.string(v)?,
            "controller" => r.controller = cx.option(v, Cx::bool)?,
            _ => r.block_owner_deletion = cx.option(v, Cx::bool)?,
        }
        Ok(())
    })
}

fn selector<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<LabelSelector> {
    const NAMES: &[&str] = &["matchLabels", "matchExpressions"];
    object(cx, n, "LabelSelector", NAMES, &[], |s: &mut LabelSelector, cx, key, v| {
        match key {
            "matchLabels" => s.match_labels = cx.option(v, Cx::labels)?.unwrap_or_default(),
            _ => s.match_expressions = cx.option(v, |cx, v| cx.seq(v, requirement))?.unwrap_or_default(),
        }
        Ok(())
    })
}

fn requirement<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<LabelSelectorRequirement> {
    const NAMES: &[&str] = &["key", "operator", "values"];
    const OPERATORS: [Operator; 4] = [Operator::In, Operator::NotIn, Operator::Exists, Operator::DoesNotExist];
    let mut key_ = None;
    let mut operator = None;
    let mut values = Vec::new();
    let shape = Shape {
        expected: "struct LabelSelectorRequirement",
        names: NAMES,
        required: &["key", "operator"],
        strict: false,
    };
    cx.fields(n, &shape, &mut |cx, key, v| {
        match key {
            "key" => key_ = Some(cx.string(v)?),
            "operator" => {
                let names = OPERATORS.map(Operator::as_str);
                operator = Some(OPERATORS[cx.variant(v, &names)?]);
            }
            _ => values = cx.option(v, Cx::strings)?.unwrap_or_default(),
        }
        Ok(())
    })?;
    match (key_, operator) {
        (Some(key), Some(operator)) => Ok(LabelSelectorRequirement { key, operator, values }),
        // `fields` has checked both.
        _ => Err(cx.missing_field(n, "key")),
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Node

pub(crate) fn node<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<crate::api::Node> {
    object(cx, n, "Node", &["metadata", "spec", "status"], &[], |o: &mut crate::api::Node, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => o.spec = node_spec(cx, v)?,
            _ => o.status = node_status(cx, v)?,
        }
        Ok(())
    })
}

fn node_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<NodeSpec> {
    object(cx, n, "NodeSpec", &["unschedulable", "taints", "podCIDR"], &[], |s: &mut NodeSpec, cx, key, v| {
        match key {
            "unschedulable" => s.unschedulable = cx.bool(v)?,
            "taints" => s.taints = cx.seq(v, taint)?,
            _ => s.pod_cidr = cx.string(v)?,
        }
        Ok(())
    })
}

fn taint<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Taint> {
    const NAMES: &[&str] = &["key", "value", "effect", "timeAdded"];
    object(cx, n, "Taint", NAMES, &["key", "effect"], |t: &mut Taint, cx, key, v| {
        match key {
            "key" => t.key = cx.string(v)?,
            "value" => t.value = cx.string(v)?,
            "effect" => t.effect = cx.string(v)?,
            _ => t.time_added = cx.option(v, time)?,
        }
        Ok(())
    })
}

fn node_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<NodeStatus> {
    const NAMES: &[&str] = &["capacity", "allocatable", "conditions", "addresses", "nodeInfo"];
    object(cx, n, "NodeStatus", NAMES, &[], |s: &mut NodeStatus, cx, key, v| {
        match key {
            "capacity" => s.capacity = cx.map(v, quantity)?,
            "allocatable" => s.allocatable = cx.map(v, quantity)?,
            "conditions" => s.conditions = cx.seq(v, node_condition)?,
            "addresses" => s.addresses = cx.seq(v, node_address)?,
            _ => s.node_info = cx.option(v, node_info)?,
        }
        Ok(())
    })
}

fn node_condition<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<NodeCondition> {
    const NAMES: &[&str] = &["type", "status", "lastHeartbeatTime", "lastTransitionTime", "reason", "message"];
    object(cx, n, "NodeCondition", NAMES, CONDITION_REQUIRED, |c: &mut NodeCondition, cx, key, v| {
        match key {
            "type" => c.type_ = cx.string(v)?,
            "status" => c.status = cx.string(v)?,
            "lastHeartbeatTime" => c.last_heartbeat_time = cx.option(v, time)?,
            "lastTransitionTime" => c.last_transition_time = cx.option(v, time)?,
            "reason" => c.reason = cx.string(v)?,
            _ => c.message = cx.string(v)?,
        }
        Ok(())
    })
}

fn node_address<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<NodeAddress> {
    object(cx, n, "NodeAddress", &["type", "address"], &["type", "address"], |a: &mut NodeAddress, cx, key, v| {
        match key {
            "type" => a.type_ = cx.string(v)?,
            _ => a.address = cx.string(v)?,
        }
        Ok(())
    })
}

fn node_info<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<NodeSystemInfo> {
    const NAMES: &[&str] = &["kubeletVersion", "containerRuntimeVersion", "osImage", "architecture", "operatingSystem"];
    object(cx, n, "NodeSystemInfo", NAMES, &[], |i: &mut NodeSystemInfo, cx, key, v| {
        let s = cx.string(v)?;
        match key {
            "kubeletVersion" => i.kubelet_version = s,
            "containerRuntimeVersion" => i.container_runtime_version = s,
            "osImage" => i.os_image = s,
            "architecture" => i.architecture = s,
            _ => i.operating_system = s,
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// ReplicaSet and Deployment

pub(crate) fn replica_set<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ReplicaSet> {
    object(cx, n, "ReplicaSet", &["metadata", "spec", "status"], &[], |o: &mut ReplicaSet, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => o.spec = replica_set_spec(cx, v)?,
            _ => o.status = replica_set_status(cx, v)?,
        }
        Ok(())
    })
}

fn replica_set_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ReplicaSetSpec> {
    const NAMES: &[&str] = &["replicas", "minReadySeconds", "selector", "template"];
    object(cx, n, "ReplicaSetSpec", NAMES, &[], |s: &mut ReplicaSetSpec, cx, key, v| {
        match key {
            "replicas" => s.replicas = cx.option(v, Cx::i32)?,
            "minReadySeconds" => s.min_ready_seconds = cx.i32(v)?,
            "selector" => s.selector = selector(cx, v)?,
            _ => s.template = template(cx, v)?.into(),
        }
        Ok(())
    })
}

fn replica_set_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ReplicaSetStatus> {
    const NAMES: &[&str] =
        &["replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration", "conditions"];
    object(cx, n, "ReplicaSetStatus", NAMES, &[], |s: &mut ReplicaSetStatus, cx, key, v| {
        match key {
            "replicas" => s.replicas = cx.i32(v)?,
            "fullyLabeledReplicas" => s.fully_labeled_replicas = cx.i32(v)?,
            "readyReplicas" => s.ready_replicas = cx.i32(v)?,
            "availableReplicas" => s.available_replicas = cx.i32(v)?,
            "observedGeneration" => s.observed_generation = cx.i64(v)?,
            _ => s.conditions = cx.seq(v, replica_set_condition)?,
        }
        Ok(())
    })
}

fn replica_set_condition<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ReplicaSetCondition> {
    object(cx, n, "ReplicaSetCondition", CONDITION, CONDITION_REQUIRED, |c: &mut ReplicaSetCondition, cx, key, v| {
        match key {
            "type" => c.type_ = cx.string(v)?,
            "status" => c.status = cx.string(v)?,
            "lastTransitionTime" => c.last_transition_time = cx.option(v, time)?,
            "reason" => c.reason = cx.string(v)?,
            _ => c.message = cx.string(v)?,
        }
        Ok(())
    })
}

pub(crate) fn deployment<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Deployment> {
    object(cx, n, "Deployment", &["metadata", "spec", "status"], &[], |o: &mut Deployment, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => o.spec = deployment_spec(cx, v)?,
            _ => o.status = deployment_status(cx, v)?,
        }
        Ok(())
    })
}

fn deployment_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<DeploymentSpec> {
    const NAMES: &[&str] = &[
        "replicas",
        "selector",
        "template",
        "strategy",
        "minReadySeconds",
        "revisionHistoryLimit",
        "paused",
        "progressDeadlineSeconds",
    ];
    object(cx, n, "DeploymentSpec", NAMES, &[], |s: &mut DeploymentSpec, cx, key, v| {
        match key {
            "replicas" => s.replicas = cx.option(v, Cx::i32)?,
            "selector" => s.selector = selector(cx, v)?,
            "template" => s.template = template(cx, v)?.into(),
            "strategy" => s.strategy = strategy(cx, v)?,
            "minReadySeconds" => s.min_ready_seconds = cx.i32(v)?,
            "revisionHistoryLimit" => s.revision_history_limit = cx.option(v, Cx::i32)?,
            "paused" => s.paused = cx.bool(v)?,
            _ => s.progress_deadline_seconds = cx.option(v, Cx::i32)?,
        }
        Ok(())
    })
}

fn strategy<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<DeploymentStrategy> {
    object(cx, n, "DeploymentStrategy", &["type", "rollingUpdate"], &[], |s: &mut DeploymentStrategy, cx, key, v| {
        match key {
            "type" => s.type_ = cx.string(v)?,
            _ => s.rolling_update = cx.option(v, rolling_update)?,
        }
        Ok(())
    })
}

fn rolling_update<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<RollingUpdateDeployment> {
    const NAMES: &[&str] = &["maxUnavailable", "maxSurge"];
    object(cx, n, "RollingUpdateDeployment", NAMES, &[], |r: &mut RollingUpdateDeployment, cx, key, v| {
        match key {
            "maxUnavailable" => r.max_unavailable = cx.option(v, int_or_string)?,
            _ => r.max_surge = cx.option(v, int_or_string)?,
        }
        Ok(())
    })
}

/// `IntOrString.UnmarshalJSON`: a string, or a number that must fit an int32 (with encoding/json's message when it
/// does not: `json: cannot unmarshal number 99999999999 into Go value of type int32`).
pub(super) fn int_or_string<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<IntOrString> {
    const EXPECTED: &str = "an integer or a string such as \"25%\"";
    let too_big = |cx: &Cx<'n>, v: &dyn std::fmt::Display| {
        cx.error(n, format_args!("json: cannot unmarshal number {v} into Go value of type int32"))
    };
    let int = |cx: &Cx<'n>, v: i128| i32::try_from(v).map(IntOrString::Int).map_err(|_| too_big(cx, &v));
    match cx.any(n)? {
        Any::Scalar(Scalar::Str(s)) => Ok(IntOrString::String(Str::from(s))),
        Any::Scalar(Scalar::U64(v)) => int(cx, v.into()),
        Any::Scalar(Scalar::I64(v)) => int(cx, v.into()),
        Any::Scalar(Scalar::I128(v)) => int(cx, v),
        Any::Scalar(Scalar::U128(v)) => i128::try_from(v).map_err(|_| too_big(cx, &v)).and_then(|v| int(cx, v)),
        // JSON has no integer type: a whole float is the same number (1e3 is 1000).
        Any::Scalar(Scalar::F64(v)) if v.fract() == 0.0 && v >= f64::from(i32::MIN) && v <= f64::from(i32::MAX) => {
            Ok(IntOrString::Int(v as i32))
        }
        Any::Scalar(Scalar::F64(v)) => Err(too_big(cx, &v)),
        other => Err(cx.not_expected(n, other, EXPECTED)),
    }
}

fn deployment_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<DeploymentStatus> {
    const NAMES: &[&str] = &[
        "observedGeneration",
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "unavailableReplicas",
        "conditions",
        "collisionCount",
    ];
    object(cx, n, "DeploymentStatus", NAMES, &[], |s: &mut DeploymentStatus, cx, key, v| {
        match key {
            "observedGeneration" => s.observed_generation = cx.i64(v)?,
            "replicas" => s.replicas = cx.i32(v)?,
            "updatedReplicas" => s.updated_replicas = cx.i32(v)?,
            "readyReplicas" => s.ready_replicas = cx.i32(v)?,
            "availableReplicas" => s.available_replicas = cx.i32(v)?,
            "unavailableReplicas" => s.unavailable_replicas = cx.i32(v)?,
            "conditions" => s.conditions = cx.seq(v, deployment_condition)?,
            _ => s.collision_count = cx.option(v, Cx::i32)?,
        }
        Ok(())
    })
}

fn deployment_condition<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<DeploymentCondition> {
    const NAMES: &[&str] = &["type", "status", "lastUpdateTime", "lastTransitionTime", "reason", "message"];
    object(cx, n, "DeploymentCondition", NAMES, CONDITION_REQUIRED, |c: &mut DeploymentCondition, cx, key, v| {
        match key {
            "type" => c.type_ = cx.string(v)?,
            "status" => c.status = cx.string(v)?,
            "lastUpdateTime" => c.last_update_time = cx.option(v, time)?,
            "lastTransitionTime" => c.last_transition_time = cx.option(v, time)?,
            "reason" => c.reason = cx.string(v)?,
            _ => c.message = cx.string(v)?,
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// PodDisruptionBudget

pub(crate) fn pdb<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<PodDisruptionBudget> {
    object(
        cx,
        n,
        "PodDisruptionBudget",
        &["metadata", "spec", "status"],
        &[],
        |o: &mut PodDisruptionBudget, cx, key, v| {
            match key {
                "metadata" => o.metadata = meta(cx, v)?,
                "spec" => o.spec = pdb_spec(cx, v)?,
                _ => o.status = pdb_status(cx, v)?,
            }
            Ok(())
        },
    )
}

fn pdb_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<PodDisruptionBudgetSpec> {
    const NAMES: &[&str] = &["minAvailable", "selector", "maxUnavailable", "unhealthyPodEvictionPolicy"];
    object(cx, n, "PodDisruptionBudgetSpec", NAMES, &[], |s: &mut PodDisruptionBudgetSpec, cx, key, v| {
        match key {
            "minAvailable" => s.min_available = cx.option(v, int_or_string)?,
            "selector" => s.selector = cx.option(v, selector)?,
            "maxUnavailable" => s.max_unavailable = cx.option(v, int_or_string)?,
            _ => s.unhealthy_pod_eviction_policy = cx.string(v)?,
        }
        Ok(())
    })
}

fn pdb_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<PodDisruptionBudgetStatus> {
    const NAMES: &[&str] = &[
        "observedGeneration",
        "disruptedPods",
        "disruptionsAllowed",
        "currentHealthy",
        "desiredHealthy",
        "expectedPods",
        "conditions",
    ];
    object(cx, n, "PodDisruptionBudgetStatus", NAMES, &[], |s: &mut PodDisruptionBudgetStatus, cx, key, v| {
        match key {
            "observedGeneration" => s.observed_generation = cx.i64(v)?,
            "disruptedPods" => s.disrupted_pods = cx.labels(v)?,
            "disruptionsAllowed" => s.disruptions_allowed = cx.i32(v)?,
            "currentHealthy" => s.current_healthy = cx.i32(v)?,
            "desiredHealthy" => s.desired_healthy = cx.i32(v)?,
            "expectedPods" => s.expected_pods = cx.i32(v)?,
            _ => s.conditions = cx.seq(v, pdb_condition)?,
        }
        Ok(())
    })
}

fn pdb_condition<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<PdbCondition> {
    const NAMES: &[&str] = &["type", "status", "observedGeneration", "lastTransitionTime", "reason", "message"];
    object(cx, n, "PdbCondition", NAMES, CONDITION_REQUIRED, |c: &mut PdbCondition, cx, key, v| {
        match key {
            "type" => c.type_ = cx.string(v)?,
            "status" => c.status = cx.string(v)?,
            "observedGeneration" => c.observed_generation = cx.i64(v)?,
            "lastTransitionTime" => c.last_transition_time = cx.option(v, time)?,
            "reason" => c.reason = cx.string(v)?,
            _ => c.message = cx.string(v)?,
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// DaemonSet

pub(crate) fn daemon_set<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<DaemonSet> {
    object(cx, n, "DaemonSet", &["metadata", "spec", "status"], &[], |o: &mut DaemonSet, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => o.spec = daemon_set_spec(cx, v)?,
            _ => o.status = daemon_set_status(cx, v)?,
        }
        Ok(())
    })
}

fn daemon_set_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<DaemonSetSpec> {
    const NAMES: &[&str] = &["selector", "template", "updateStrategy", "minReadySeconds", "revisionHistoryLimit"];
    object(cx, n, "DaemonSetSpec", NAMES, &[], |s: &mut DaemonSetSpec, cx, key, v| {
        match key {
            "selector" => s.selector = selector(cx, v)?,
            "template" => s.template = template(cx, v)?.into(),
            "updateStrategy" => {
                const NAMES: &[&str] = &["type", "rollingUpdate"];
                s.update_strategy = object(
                    cx,
                    v,
                    "DaemonSetUpdateStrategy",
                    NAMES,
                    &[],
                    |u: &mut DaemonSetUpdateStrategy, cx, key, v| {
                        match key {
                            "type" => u.type_ = cx.string(v)?,
                            _ => u.rolling_update = cx.option(v, rolling_update)?,
                        }
                        Ok(())
                    },
                )?
            }
            "minReadySeconds" => s.min_ready_seconds = cx.i32(v)?,
            _ => s.revision_history_limit = cx.option(v, Cx::i32)?,
        }
        Ok(())
    })
}

fn daemon_set_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<DaemonSetStatus> {
    const NAMES: &[&str] = &[
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
        "collisionCount",
    ];
    object(cx, n, "DaemonSetStatus", NAMES, &[], |s: &mut DaemonSetStatus, cx, key, v| {
        match key {
            "currentNumberScheduled" => s.current_number_scheduled = cx.i32(v)?,
            "numberMisscheduled" => s.number_misscheduled = cx.i32(v)?,
            "desiredNumberScheduled" => s.desired_number_scheduled = cx.i32(v)?,
            "numberReady" => s.number_ready = cx.i32(v)?,
            "observedGeneration" => s.observed_generation = cx.i64(v)?,
            "updatedNumberScheduled" => s.updated_number_scheduled = cx.i32(v)?,
            "numberAvailable" => s.number_available = cx.i32(v)?,
            "numberUnavailable" => s.number_unavailable = cx.i32(v)?,
            _ => s.collision_count = cx.option(v, Cx::i32)?,
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// Job

pub(crate) fn job<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Job> {
    object(cx, n, "Job", &["metadata", "spec", "status"], &[], |o: &mut Job, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => o.spec = job_spec(cx, v)?,
            _ => *o.status = job_status(cx, v)?,
        }
        Ok(())
    })
}

// CronJob

pub(crate) fn cronjob<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<CronJob> {
    object(cx, n, "CronJob", &["metadata", "spec", "status"], &[], |o: &mut CronJob, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => o.spec = cronjob_spec(cx, v)?,
            _ => o.status = cronjob_status(cx, v)?,
        }
        Ok(())
    })
}

fn cronjob_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<cronjob::CronJobSpec> {
    const NAMES: &[&str] = &[
        "schedule",
        "timeZone",
        "startingDeadlineSeconds",
        "concurrencyPolicy",
        "suspend",
        "jobTemplate",
        "successfulJobsHistoryLimit",
        "failedJobsHistoryLimit",
    ];
    object(cx, n, "CronJobSpec", NAMES, &[], |s: &mut cronjob::CronJobSpec, cx, key, v| {
        match key {
            "schedule" => s.schedule = cx.string(v)?,
            "timeZone" => s.time_zone = cx.option(v, Cx::string)?,
            "startingDeadlineSeconds" => s.starting_deadline_seconds = cx.option(v, Cx::i64)?,
            "concurrencyPolicy" => s.concurrency_policy = cx.option(v, Cx::string)?,
            "suspend" => s.suspend = cx.option(v, Cx::bool)?,
            "jobTemplate" => *s.job_template = job_template(cx, v)?,
            "successfulJobsHistoryLimit" => s.successful_jobs_history_limit = cx.option(v, Cx::i32)?,
            _ => s.failed_jobs_history_limit = cx.option(v, Cx::i32)?,
        }
        Ok(())
    })
}

fn job_template<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<cronjob::JobTemplateSpec> {
    object(cx, n, "JobTemplateSpec", &["metadata", "spec"], &[], |t: &mut cronjob::JobTemplateSpec, cx, key, v| {
        match key {
            "metadata" => t.metadata = meta(cx, v)?,
            _ => t.spec = job_spec(cx, v)?,
        }
        Ok(())
    })
}

fn cronjob_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<cronjob::CronJobStatus> {
    const NAMES: &[&str] = &["active", "lastScheduleTime", "lastSuccessfulTime"];
    object(cx, n, "CronJobStatus", NAMES, &[], |s: &mut cronjob::CronJobStatus, cx, key, v| {
        match key {
            "active" => s.active = cx.seq(v, object_reference)?,
            "lastScheduleTime" => s.last_schedule_time = cx.option(v, time)?,
            _ => s.last_successful_time = cx.option(v, time)?,
        }
        Ok(())
    })
}

fn job_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<JobSpec> {
    const NAMES: &[&str] = &[
        "parallelism",
        "completions",
        "activeDeadlineSeconds",
        "podFailurePolicy",
        "backoffLimit",
        "selector",
        "manualSelector",
        "template",
        "ttlSecondsAfterFinished",
        "completionMode",
        "suspend",
        "podReplacementPolicy",
    ];
    object(cx, n, "JobSpec", NAMES, &[], |s: &mut JobSpec, cx, key, v| {
        match key {
            "parallelism" => s.parallelism = cx.option(v, Cx::i32)?,
            "completions" => s.completions = cx.option(v, Cx::i32)?,
            "activeDeadlineSeconds" => s.active_deadline_seconds = cx.option(v, Cx::i64)?,
            "podFailurePolicy" => s.pod_failure_policy = cx.option(v, pod_failure_policy)?,
            "backoffLimit" => s.backoff_limit = cx.option(v, Cx::i32)?,
            "selector" => s.selector = cx.option(v, selector)?,
            "manualSelector" => s.manual_selector = cx.option(v, Cx::bool)?,
            "template" => s.template = template(cx, v)?.into(),
            "ttlSecondsAfterFinished" => s.ttl_seconds_after_finished = cx.option(v, Cx::i32)?,
            "completionMode" => s.completion_mode = cx.option(v, Cx::string)?,
            "suspend" => s.suspend = cx.option(v, Cx::bool)?,
            _ => s.pod_replacement_policy = cx.option(v, Cx::string)?,
        }
        Ok(())
    })
}

fn pod_failure_policy<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<job::PodFailurePolicy> {
    object(cx, n, "PodFailurePolicy", &["rules"], &[], |p: &mut job::PodFailurePolicy, cx, _key, v| {
        p.rules = cx.seq(v, pod_failure_policy_rule)?;
        Ok(())
    })
}

fn pod_failure_policy_rule<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<job::PodFailurePolicyRule> {
    const NAMES: &[&str] = &["action", "onExitCodes", "onPodConditions"];
    object(cx, n, "PodFailurePolicyRule", NAMES, &[], |r: &mut job::PodFailurePolicyRule, cx, key, v| {
        match key {
            "action" => r.action = cx.string(v)?,
            "onExitCodes" => r.on_exit_codes = cx.option(v, on_exit_codes)?,
            _ => r.on_pod_conditions = cx.seq(v, on_pod_conditions)?,
        }
        Ok(())
    })
}

fn on_exit_codes<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<job::PodFailurePolicyOnExitCodes> {
    const NAMES: &[&str] = &["containerName", "operator", "values"];
    const TYPE: &str = "PodFailurePolicyOnExitCodesRequirement";
    object(cx, n, TYPE, NAMES, &[], |r: &mut job::PodFailurePolicyOnExitCodes, cx, key, v| {
        match key {
            "containerName" => r.container_name = cx.option(v, Cx::string)?,
            "operator" => r.operator = cx.string(v)?,
            _ => r.values = cx.seq(v, Cx::i32)?,
        }
        Ok(())
    })
}

fn on_pod_conditions<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<job::PodFailurePolicyOnPodConditions> {
    const TYPE: &str = "PodFailurePolicyOnPodConditionsPattern";
    object(cx, n, TYPE, &["type", "status"], &[], |p: &mut job::PodFailurePolicyOnPodConditions, cx, key, v| {
        match key {
            "type" => p.type_ = cx.string(v)?,
            _ => p.status = cx.string(v)?,
        }
        Ok(())
    })
}

fn job_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<JobStatus> {
    const NAMES: &[&str] = &[
        "conditions",
        "startTime",
        "completionTime",
        "active",
        "succeeded",
        "failed",
        "terminating",
        "completedIndexes",
        "uncountedTerminatedPods",
        "ready",
    ];
    object(cx, n, "JobStatus", NAMES, &[], |s: &mut JobStatus, cx, key, v| {
        match key {
            "conditions" => s.conditions = cx.seq(v, job_condition)?,
            "startTime" => s.start_time = cx.option(v, time)?,
            "completionTime" => s.completion_time = cx.option(v, time)?,
            "active" => s.active = cx.i32(v)?,
            "succeeded" => s.succeeded = cx.i32(v)?,
            "failed" => s.failed = cx.i32(v)?,
            "terminating" => s.terminating = cx.option(v, Cx::i32)?,
            "completedIndexes" => s.completed_indexes = cx.string(v)?,
            "uncountedTerminatedPods" => s.uncounted_terminated_pods = cx.option(v, uncounted)?,
            _ => s.ready = cx.option(v, Cx::i32)?,
        }
        Ok(())
    })
}

fn uncounted<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<job::UncountedTerminatedPods> {
    const TYPE: &str = "UncountedTerminatedPods";
    object(cx, n, TYPE, &["succeeded", "failed"], &[], |u: &mut job::UncountedTerminatedPods, cx, key, v| {
        match key {
            "succeeded" => u.succeeded = cx.strings(v)?,
            _ => u.failed = cx.strings(v)?,
        }
        Ok(())
    })
}

fn job_condition<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<JobCondition> {
    const NAMES: &[&str] = &["type", "status", "lastProbeTime", "lastTransitionTime", "reason", "message"];
    object(cx, n, "JobCondition", NAMES, CONDITION_REQUIRED, |c: &mut JobCondition, cx, key, v| {
        match key {
            "type" => c.type_ = cx.string(v)?,
            "status" => c.status = cx.string(v)?,
            "lastProbeTime" => c.last_probe_time = cx.option(v, time)?,
            "lastTransitionTime" => c.last_transition_time = cx.option(v, time)?,
            "reason" => c.reason = cx.string(v)?,
            _ => c.message = cx.string(v)?,
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------------------------
// StatefulSet

pub(crate) fn stateful_set<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<StatefulSet> {
    object(cx, n, "StatefulSet", &["metadata", "spec", "status"], &[], |o: &mut StatefulSet, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => *o.spec = stateful_set_spec(cx, v)?,
            _ => o.status = stateful_set_status(cx, v)?,
        }
        Ok(())
    })
}

fn stateful_set_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<StatefulSetSpec> {
    use crate::api::statefulset::{Ordinals, RetentionPolicy};
    const NAMES: &[&str] = &[
        "replicas",
        "selector",
        "template",
        "volumeClaimTemplates",
        "serviceName",
        "podManagementPolicy",
        "updateStrategy",
        "revisionHistoryLimit",
        "minReadySeconds",
        "persistentVolumeClaimRetentionPolicy",
        "ordinals",
    ];
    object(cx, n, "StatefulSetSpec", NAMES, &[], |s: &mut StatefulSetSpec, cx, key, v| {
        match key {
            "replicas" => s.replicas = cx.option(v, Cx::i32)?,
            "selector" => s.selector = selector(cx, v)?,
            "template" => s.template = template(cx, v)?.into(),
            "volumeClaimTemplates" => {
                s.volume_claim_templates = cx
                    .option(v, |cx, v| {
                        let mut out = Vec::new();
                        cx.each(v, &mut |cx, item| {
                            out.push(super::stored::claim_template(cx, item)?);
                            Ok(())
                        })?;
                        Ok(out)
                    })?
                    .unwrap_or_default()
            }
            "serviceName" => s.service_name = cx.string(v)?,
            "podManagementPolicy" => s.pod_management_policy = cx.string(v)?,
            "updateStrategy" => s.update_strategy = stateful_set_strategy(cx, v)?,
            "revisionHistoryLimit" => s.revision_history_limit = cx.option(v, Cx::i32)?,
            "minReadySeconds" => s.min_ready_seconds = cx.i32(v)?,
            "persistentVolumeClaimRetentionPolicy" => {
                s.persistent_volume_claim_retention_policy = cx.option(v, |cx, v| {
                    const NAMES: &[&str] = &["whenDeleted", "whenScaled"];
                    let name = "StatefulSetPersistentVolumeClaimRetentionPolicy";
                    object(cx, v, name, NAMES, &[], |p: &mut RetentionPolicy, cx, key, v| {
                        match key {
                            "whenDeleted" => p.when_deleted = cx.string(v)?,
                            _ => p.when_scaled = cx.string(v)?,
                        }
                        Ok(())
                    })
                })?
            }
            _ => {
                s.ordinals = cx.option(v, |cx, v| {
                    object(cx, v, "StatefulSetOrdinals", &["start"], &[], |o: &mut Ordinals, cx, _, v| {
                        o.start = cx.i32(v)?;
                        Ok(())
                    })
                })?
            }
        }
        Ok(())
    })
}

fn stateful_set_strategy<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<StatefulSetUpdateStrategy> {
    use crate::api::statefulset::RollingUpdateStatefulSet;
    const NAMES: &[&str] = &["type", "rollingUpdate"];
    object(cx, n, "StatefulSetUpdateStrategy", NAMES, &[], |u: &mut StatefulSetUpdateStrategy, cx, key, v| {
        match key {
            "type" => u.type_ = cx.string(v)?,
            _ => {
                u.rolling_update = cx.option(v, |cx, v| {
                    const NAMES: &[&str] = &["partition", "maxUnavailable"];
                    let name = "RollingUpdateStatefulSetStrategy";
                    object(cx, v, name, NAMES, &[], |r: &mut RollingUpdateStatefulSet, cx, key, v| {
                        match key {
                            "partition" => r.partition = cx.option(v, Cx::i32)?,
                            _ => r.max_unavailable = cx.option(v, int_or_string)?,
                        }
                        Ok(())
                    })
                })?
            }
        }
        Ok(())
    })
}

fn stateful_set_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<StatefulSetStatus> {
    const NAMES: &[&str] = &[
        "observedGeneration",
        "replicas",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "currentRevision",
        "updateRevision",
        "collisionCount",
        "availableReplicas",
    ];
    object(cx, n, "StatefulSetStatus", NAMES, &[], |s: &mut StatefulSetStatus, cx, key, v| {
        match key {
            "observedGeneration" => s.observed_generation = cx.i64(v)?,
            "replicas" => s.replicas = cx.i32(v)?,
            "readyReplicas" => s.ready_replicas = cx.i32(v)?,
            "currentReplicas" => s.current_replicas = cx.i32(v)?,
            "updatedReplicas" => s.updated_replicas = cx.i32(v)?,
            "currentRevision" => s.current_revision = cx.string(v)?,
            "updateRevision" => s.update_revision = cx.string(v)?,
            "collisionCount" => s.collision_count = cx.option(v, Cx::i32)?,
            _ => s.available_replicas = cx.i32(v)?,
        }
        Ok(())
    })
}
