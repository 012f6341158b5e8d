//! The API types as JSON, the way `kubectl get -o json` prints them: one short function per type, a table of its
//! fields with their JSON names and the rule that leaves each out (an empty text, a zero, `None`, an empty list),
//! as the readers of [`super::objects`] read them. It writes what serde's derived `Serialize` of the types writes
//! (`serde_json::to_value`), exactly (the oracle test, `json/tests.rs`, compares the two on every object of the
//! examples' runs, every manifest of the repository, and objects with every field set and each one empty), without
//! that derive's code for every type in the page.

use serde_json::{Map, Value};

use crate::api::*;
use crate::time::rfc3339;

/// An object as JSON: `apiVersion` and `kind`, then its fields.
pub(crate) fn object(o: &Object) -> Value {
    let mut w = Fields::default();
    w.text("apiVersion", o.kind().api_version()).text("kind", o.kind().name()).put("metadata", meta(o.meta()));
    match o {
        Object::Namespace(v) => w
            .put("spec", Fields::default().strings("finalizers", &v.spec.finalizers).done())
            .put("status", namespace_status(&v.status)),
        Object::Node(v) => w.put("spec", node_spec(&v.spec)).put("status", node_status(&v.status)),
        Object::Pod(v) => w.put("spec", pod_spec(&v.spec)).put("status", pod_status(&v.status)),
        Object::ReplicaSet(v) => w.put("spec", replica_set_spec(&v.spec)).put("status", replica_set_status(&v.status)),
        Object::Deployment(v) => w.put("spec", deployment_spec(&v.spec)).put("status", deployment_status(&v.status)),
        Object::DaemonSet(v) => w.put("spec", daemon_set_spec(&v.spec)).put("status", daemon_set_status(&v.status)),
        Object::StatefulSet(v) => {
            w.put("spec", stateful_set_spec(&v.spec)).put("status", stateful_set_status(&v.status))
        }
        Object::Job(v) => w.put("spec", job_spec(&v.spec)).put("status", job_status(&v.status)),
        Object::CronJob(v) => w.put("spec", cronjob_spec(&v.spec)).put("status", cronjob_status(&v.status)),
        Object::Lease(v) => w.put("spec", lease_spec(&v.spec)),
        Object::Event(v) => event(&mut w, &v.body),
        Object::ConfigMap(v) => {
            w.opt_bool("immutable", v.immutable).labels("data", &v.data).labels("binaryData", &v.binary_data)
        }
        Object::Secret(v) => w
            .opt_bool("immutable", v.immutable)
            .labels("data", &v.data)
            .labels("stringData", &v.string_data)
            .text_nonempty("type", &v.type_),
        Object::ServiceAccount(v) => w
            .list("secrets", &v.secrets, object_reference)
            .list("imagePullSecrets", &v.image_pull_secrets, |r| {
                Fields::default().text_nonempty("name", &r.name).done()
            })
            .opt_bool("automountServiceAccountToken", v.automount_service_account_token),
        Object::Service(v) => {
            let load_balancer = Value::Object(Map::new());
            w.put("spec", service_spec(&v.spec))
                .put("status", Fields::default().put("loadBalancer", load_balancer).done())
        }
        Object::EndpointSlice(v) => w
            .text("addressType", &v.address_type)
            .put("endpoints", v.endpoints.as_deref().map_or(Value::Null, |e| array(e, endpoint)))
            .put("ports", v.ports.as_deref().map_or(Value::Null, |p| array(p, endpoint_port))),
        Object::PodDisruptionBudget(v) => w.put("spec", pdb_spec(&v.spec)).put("status", pdb_status(&v.status)),
        Object::Stored(v) => {
            for (key, value) in &v.fields {
                w.put(key, value.clone());
            }
            &mut w
        }
    };
    w.done()
}

/// The fields of an object being written.
#[derive(Default)]
struct Fields(Map<String, Value>);

impl Fields {
    fn done(&mut self) -> Value {
        Value::Object(std::mem::take(&mut self.0))
    }

    /// A field always written.
    fn put(&mut self, key: &str, v: Value) -> &mut Fields {
        self.0.insert(key.into(), v);
        self
    }

    /// A field written when it is `Some`.
    fn opt(&mut self, key: &str, v: Option<Value>) -> &mut Fields {
        match v {
            Some(v) => self.put(key, v),
            None => self,
        }
    }

    /// A text, always written.
    fn text(&mut self, key: &str, v: &str) -> &mut Fields {
        self.put(key, v.into())
    }

    fn text_nonempty(&mut self, key: &str, v: &str) -> &mut Fields {
        self.opt(key, (!v.is_empty()).then(|| v.into()))
    }

    /// A number, always written.
    fn int(&mut self, key: &str, v: i64) -> &mut Fields {
        self.put(key, v.into())
    }

    fn int_nonzero(&mut self, key: &str, v: i64) -> &mut Fields {
        self.opt(key, (v != 0).then(|| v.into()))
    }

    fn opt_int(&mut self, key: &str, v: Option<i64>) -> &mut Fields {
        self.opt(key, v.map(Value::from))
    }

    fn opt_bool(&mut self, key: &str, v: Option<bool>) -> &mut Fields {
        self.opt(key, v.map(Value::Bool))
    }

    /// `true`, or nothing.
    fn flag(&mut self, key: &str, v: bool) -> &mut Fields {
        self.opt(key, v.then_some(Value::Bool(true)))
    }

    fn time(&mut self, key: &str, v: Option<Time>) -> &mut Fields {
        self.opt(key, v.map(|t| rfc3339(t.0).into()))
    }

    /// A map of texts (labels, annotations, data), when it has any.
    fn labels(&mut self, key: &str, v: &Labels) -> &mut Fields {
        self.opt(key, (!v.is_empty()).then(|| texts(&mut v.iter().map(|(k, v)| (&**k, &**v)))))
    }

    /// An object, when it has fields.
    fn object_nonempty(&mut self, key: &str, v: Value) -> &mut Fields {
        let empty = v.as_object().is_some_and(Map::is_empty);
        self.opt(key, (!empty).then_some(v))
    }

    /// A list of texts, when it has any.
    fn strings(&mut self, key: &str, v: &[Str]) -> &mut Fields {
        self.list(key, v, |s| string(s))
    }

    /// A list, when it has any items.
    fn list<T>(&mut self, key: &str, v: &[T], item: fn(&T) -> Value) -> &mut Fields {
        self.opt(key, (!v.is_empty()).then(|| array(v, item)))
    }
}

/// A list, always written.
fn array<T>(v: &[T], item: fn(&T) -> Value) -> Value {
    items(v.len(), &|i| item(&v[i]))
}

fn items(n: usize, item: &dyn Fn(usize) -> Value) -> Value {
    Value::Array((0..n).map(item).collect())
}

fn string(s: &str) -> Value {
    Value::String(s.into())
}

fn int_or_string(v: &IntOrString) -> Value {
    match v {
        IntOrString::Int(i) => i64::from(*i).into(),
        IntOrString::String(s) => string(s),
    }
}

fn resources(v: &ResourceList) -> Value {
    texts(&mut v.iter().map(|(k, q)| (&**k, q.as_str())))
}

/// A map of texts to texts. (Inserted one by one: collecting a map sorts its entries first, a sort's code.)
fn texts(pairs: &mut dyn Iterator<Item = (&str, &str)>) -> Value {
    let mut map = Map::new();
    for (k, v) in pairs {
        map.insert(k.into(), string(v));
    }
    Value::Object(map)
}

// ---------------------------------------------------------------------------------------------------------------
// Metadata and what many kinds share

fn meta(m: &ObjectMeta) -> Value {
    let version = (m.resource_version != 0).then(|| m.resource_version.to_string().into());
    Fields::default()
        .text_nonempty("name", &m.name)
        .text_nonempty("generateName", &m.generate_name)
        .text_nonempty("namespace", &m.namespace)
        .text_nonempty("uid", &m.uid)
        .opt("resourceVersion", version)
        .int_nonzero("generation", m.generation)
        .time("creationTimestamp", m.creation_timestamp)
        .time("deletionTimestamp", m.deletion_timestamp)
        .opt_int("deletionGracePeriodSeconds", m.deletion_grace_period_seconds)
        .labels("labels", &m.labels)
        .labels("annotations", &m.annotations)
        .list("ownerReferences", &m.owner_references, |r| {
            Fields::default()
                .text("apiVersion", &r.api_version)
                .text("kind", &r.kind)
                .text("name", &r.name)
                .text("uid", &r.uid)
                .opt_bool("controller", r.controller)
                .opt_bool("blockOwnerDeletion", r.block_owner_deletion)
                .done()
        })
        .strings("finalizers", &m.finalizers)
        .done()
}

/// A status condition's common fields (reason and message only when set).
fn condition(type_: &str, status: &str, transition: Option<Time>, reason: &str, message: &str) -> Fields {
    let mut w = Fields::default();
    w.text("type", type_)
        .text("status", status)
        .time("lastTransitionTime", transition)
        .text_nonempty("reason", reason)
        .text_nonempty("message", message);
    w
}

fn selector(s: &LabelSelector) -> Value {
    Fields::default()
        .labels("matchLabels", &s.match_labels)
        .list("matchExpressions", &s.match_expressions, |r| {
            Fields::default()
                .text("key", &r.key)
                .text("operator", r.operator.as_str())
                .strings("values", &r.values)
                .done()
        })
        .done()
}

fn object_reference(r: &ObjectReference) -> Value {
    Fields::default()
        .text("kind", &r.kind)
        .text_nonempty("namespace", &r.namespace)
        .text("name", &r.name)
        .text_nonempty("uid", &r.uid)
        .text_nonempty("apiVersion", &r.api_version)
        .done()
}

fn namespace_status(s: &NamespaceStatus) -> Value {
    Fields::default()
        .text_nonempty("phase", &s.phase)
        .list("conditions", &s.conditions, |c| {
            condition(&c.type_, &c.status, c.last_transition_time, &c.reason, &c.message).done()
        })
        .done()
}

// ---------------------------------------------------------------------------------------------------------------
// Node

fn node_spec(s: &NodeSpec) -> Value {
    Fields::default()
        .flag("unschedulable", s.unschedulable)
        .list("taints", &s.taints, |t| {
            Fields::default()
                .text("key", &t.key)
                .text_nonempty("value", &t.value)
                .text("effect", &t.effect)
                .time("timeAdded", t.time_added)
                .done()
        })
        .text_nonempty("podCIDR", &s.pod_cidr)
        .done()
}

fn node_status(s: &NodeStatus) -> Value {
    let info = |i: &NodeSystemInfo| {
        Fields::default()
            .text("kubeletVersion", &i.kubelet_version)
            .text("containerRuntimeVersion", &i.container_runtime_version)
            .text("osImage", &i.os_image)
            .text("architecture", &i.architecture)
            .text("operatingSystem", &i.operating_system)
            .done()
    };
    Fields::default()
        .object_nonempty("capacity", resources(&s.capacity))
        .object_nonempty("allocatable", resources(&s.allocatable))
        .list("conditions", &s.conditions, |c| {
            condition(&c.type_, &c.status, c.last_transition_time, &c.reason, &c.message)
                .time("lastHeartbeatTime", c.last_heartbeat_time)
                .done()
        })
        .list("addresses", &s.addresses, |a| {
            Fields::default().text("type", &a.type_).text("address", &a.address).done()
        })
        .opt("nodeInfo", s.node_info.as_ref().map(info))
        .done()
}

// ---------------------------------------------------------------------------------------------------------------
// Pod

fn template(t: &PodTemplateSpec) -> Value {
    Fields::default().put("metadata", meta(&t.metadata)).put("spec", pod_spec(&t.spec)).done()
}

fn pod_spec(s: &PodSpec) -> Value {
    Fields::default()
        .list("volumes", &s.volumes, volume)
        .put("containers", array(&s.containers[..], container))
        .text_nonempty("nodeName", &s.node_name)
        .labels("nodeSelector", &s.node_selector)
        .opt("affinity", s.affinity.as_deref().map(affinity))
        .list("tolerations", &s.tolerations[..], |t| {
            Fields::default()
                .text_nonempty("key", &t.key)
                .text_nonempty("operator", &t.operator)
                .text_nonempty("value", &t.value)
                .text_nonempty("effect", &t.effect)
                .opt_int("tolerationSeconds", t.toleration_seconds)
                .done()
        })
        .text_nonempty("restartPolicy", &s.restart_policy)
        .opt_int("terminationGracePeriodSeconds", s.termination_grace_period_seconds)
        .text_nonempty("schedulerName", &s.scheduler_name)
        .text_nonempty("dnsPolicy", &s.dns_policy)
        .opt_int("priority", s.priority.map(i64::from))
        .text_nonempty("hostname", &s.hostname)
        .text_nonempty("subdomain", &s.subdomain)
        .done()
}

/// `defaultMode` and `optional` of a volume's source.
fn volume_source(key: &str, name: &str, mode: Option<i32>, optional: Option<bool>) -> Value {
    Fields::default()
        .text_nonempty(key, name)
        .opt_int("defaultMode", mode.map(i64::from))
        .opt_bool("optional", optional)
        .done()
}

fn volume(v: &Volume) -> Value {
    let empty_dir = |e: &EmptyDirVolumeSource| {
        Fields::default()
            .text_nonempty("medium", &e.medium)
            .opt("sizeLimit", e.size_limit.as_ref().map(|q| string(q.as_str())))
            .done()
    };
    Fields::default()
        .text("name", &v.name)
        .opt("emptyDir", v.empty_dir.as_ref().map(empty_dir))
        .opt(
            "secret",
            v.secret.as_ref().map(|s| volume_source("secretName", &s.secret_name, s.default_mode, s.optional)),
        )
        .opt("configMap", v.config_map.as_ref().map(|c| volume_source("name", &c.name, c.default_mode, c.optional)))
        .opt(
            "persistentVolumeClaim",
            v.persistent_volume_claim.as_ref().map(|c| {
                Fields::default()
                    .text("claimName", &c.claim_name)
                    .opt_bool("readOnly", c.read_only.then_some(true))
                    .done()
            }),
        )
        .done()
}

fn container(c: &Container) -> Value {
    let res = Fields::default()
        .object_nonempty("limits", resources(&c.resources.limits))
        .object_nonempty("requests", resources(&c.resources.requests))
        .done();
    Fields::default()
        .text("name", &c.name)
        .text("image", &c.image)
        .text_nonempty("imagePullPolicy", &c.image_pull_policy)
        .object_nonempty("resources", res)
        .list("ports", &c.ports, |p| {
            Fields::default()
                .int("containerPort", p.container_port.into())
                .text_nonempty("name", &p.name)
                .text_nonempty("protocol", &p.protocol)
                .done()
        })
        .strings("command", &c.command)
        .strings("args", &c.args)
        .list("envFrom", &c.env_from, |e| {
            Fields::default()
                .text_nonempty("prefix", &e.prefix)
                .opt("configMapRef", e.config_map_ref.as_ref().map(source_ref))
                .opt("secretRef", e.secret_ref.as_ref().map(source_ref))
                .done()
        })
        .list("env", &c.env, env_var)
        .opt("livenessProbe", c.liveness_probe.as_ref().map(probe))
        .opt("readinessProbe", c.readiness_probe.as_ref().map(probe))
        .opt("startupProbe", c.startup_probe.as_ref().map(probe))
        .opt("lifecycle", c.lifecycle.as_ref().map(lifecycle))
        .done()
}

fn lifecycle(l: &Lifecycle) -> Value {
    let hook = |h: &LifecycleHandler| {
        Fields::default()
            .opt("exec", h.exec.as_ref().map(exec))
            .opt("httpGet", h.http_get.as_ref().map(http_get))
            .opt("tcpSocket", h.tcp_socket.as_ref().map(tcp_socket))
            .opt("sleep", h.sleep.as_ref().map(|s| Fields::default().int("seconds", s.seconds).done()))
            .done()
    };
    Fields::default()
        .opt("postStart", l.post_start.as_ref().map(hook))
        .opt("preStop", l.pre_stop.as_ref().map(hook))
        .done()
}

fn exec(e: &ExecAction) -> Value {
    Fields::default().strings("command", &e.command).done()
}

fn http_get(h: &HttpGetAction) -> Value {
    Fields::default()
        .text_nonempty("path", &h.path)
        .put("port", int_or_string(&h.port))
        .text_nonempty("host", &h.host)
        .text_nonempty("scheme", &h.scheme)
        .list("httpHeaders", &h.http_headers, |h| {
            Fields::default().text("name", &h.name).text("value", &h.value).done()
        })
        .done()
}

fn tcp_socket(t: &TcpSocketAction) -> Value {
    Fields::default().put("port", int_or_string(&t.port)).text_nonempty("host", &t.host).done()
}

fn affinity(a: &Affinity) -> Value {
    let node = |n: &NodeAffinity| {
        let required = n.required_during_scheduling_ignored_during_execution.as_ref().map(|sel| {
            Fields::default().put("nodeSelectorTerms", array(&sel.node_selector_terms, node_selector_term)).done()
        });
        Fields::default().opt("requiredDuringSchedulingIgnoredDuringExecution", required).done()
    };
    Fields::default().opt("nodeAffinity", a.node_affinity.as_ref().map(node)).done()
}

fn node_selector_term(t: &NodeSelectorTerm) -> Value {
    let req = |r: &NodeSelectorRequirement| {
        Fields::default().text("key", &r.key).text("operator", &r.operator).strings("values", &r.values).done()
    };
    Fields::default()
        .list("matchExpressions", &t.match_expressions, req)
        .list("matchFields", &t.match_fields, req)
        .done()
}

fn source_ref(r: &SourceRef) -> Value {
    Fields::default().text("name", &r.name).opt_bool("optional", r.optional).done()
}

fn env_var(e: &EnvVar) -> Value {
    let key = |k: &KeySelector| {
        Fields::default().text("name", &k.name).text("key", &k.key).opt_bool("optional", k.optional).done()
    };
    let from = |f: &EnvVarSource| {
        Fields::default()
            .opt("configMapKeyRef", f.config_map_key_ref.as_ref().map(key))
            .opt("secretKeyRef", f.secret_key_ref.as_ref().map(key))
            .done()
    };
    Fields::default()
        .text("name", &e.name)
        .text_nonempty("value", &e.value)
        .opt("valueFrom", e.value_from.as_ref().map(from))
        .done()
}

fn probe(p: &Probe) -> Value {
    let grpc = |g: &GrpcAction| {
        Fields::default().int("port", g.port.into()).opt("service", g.service.as_ref().map(|s| string(s))).done()
    };
    Fields::default()
        .opt("exec", p.exec.as_ref().map(exec))
        .opt("httpGet", p.http_get.as_ref().map(http_get))
        .opt("tcpSocket", p.tcp_socket.as_ref().map(tcp_socket))
        .opt("grpc", p.grpc.as_ref().map(grpc))
        .int_nonzero("initialDelaySeconds", p.initial_delay_seconds.into())
        .int_nonzero("timeoutSeconds", p.timeout_seconds.into())
        .int_nonzero("periodSeconds", p.period_seconds.into())
        .int_nonzero("successThreshold", p.success_threshold.into())
        .int_nonzero("failureThreshold", p.failure_threshold.into())
        .opt_int("terminationGracePeriodSeconds", p.termination_grace_period_seconds)
        .done()
}

fn pod_status(s: &PodStatus) -> Value {
    Fields::default()
        .text("phase", s.phase.as_str())
        .list("conditions", &s.conditions, |c| {
            condition(&c.type_, &c.status, c.last_transition_time, &c.reason, &c.message).done()
        })
        .text_nonempty("message", &s.message)
        .text_nonempty("reason", &s.reason)
        .text_nonempty("hostIP", &s.host_ip)
        .text_nonempty("podIP", &s.pod_ip)
        .time("startTime", s.start_time)
        .list("containerStatuses", &s.container_statuses, |c| {
            Fields::default()
                .text("name", &c.name)
                .put("state", container_state(&c.state))
                .object_nonempty("lastState", container_state(&c.last_state))
                .put("ready", c.ready.into())
                .int("restartCount", c.restart_count.into())
                .text("image", &c.image)
                .opt_bool("started", c.started)
                .done()
        })
        .done()
}

fn container_state(s: &ContainerState) -> Value {
    let waiting = |w: &ContainerStateWaiting| {
        Fields::default().text_nonempty("reason", &w.reason).text_nonempty("message", &w.message).done()
    };
    let terminated = |t: &ContainerStateTerminated| {
        Fields::default()
            .int("exitCode", t.exit_code.into())
            .text_nonempty("reason", &t.reason)
            .time("startedAt", t.started_at)
            .time("finishedAt", t.finished_at)
            .done()
    };
    Fields::default()
        .opt("waiting", s.waiting.as_ref().map(waiting))
        .opt("running", s.running.as_ref().map(|r| Fields::default().time("startedAt", r.started_at).done()))
        .opt("terminated", s.terminated.as_ref().map(terminated))
        .done()
}

// ---------------------------------------------------------------------------------------------------------------
// ReplicaSet, Deployment

fn replica_set_spec(s: &ReplicaSetSpec) -> Value {
    Fields::default()
        .opt_int("replicas", s.replicas.map(i64::from))
        .int_nonzero("minReadySeconds", s.min_ready_seconds.into())
        .put("selector", selector(&s.selector))
        .put("template", template(&s.template))
        .done()
}

fn replica_set_status(s: &ReplicaSetStatus) -> Value {
    Fields::default()
        .int("replicas", s.replicas.into())
        .int_nonzero("fullyLabeledReplicas", s.fully_labeled_replicas.into())
        .int_nonzero("readyReplicas", s.ready_replicas.into())
        .int_nonzero("availableReplicas", s.available_replicas.into())
        .int_nonzero("observedGeneration", s.observed_generation)
        .list("conditions", &s.conditions, |c| {
            condition(&c.type_, &c.status, c.last_transition_time, &c.reason, &c.message).done()
        })
        .done()
}

fn rolling(r: &RollingUpdateDeployment) -> Value {
    Fields::default()
        .opt("maxUnavailable", r.max_unavailable.as_ref().map(int_or_string))
        .opt("maxSurge", r.max_surge.as_ref().map(int_or_string))
        .done()
}

fn deployment_spec(s: &DeploymentSpec) -> Value {
    let strategy = Fields::default()
        .text_nonempty("type", &s.strategy.type_)
        .opt("rollingUpdate", s.strategy.rolling_update.as_ref().map(rolling))
        .done();
    Fields::default()
        .opt_int("replicas", s.replicas.map(i64::from))
        .put("selector", selector(&s.selector))
        .put("template", template(&s.template))
        .put("strategy", strategy)
        .int_nonzero("minReadySeconds", s.min_ready_seconds.into())
        .opt_int("revisionHistoryLimit", s.revision_history_limit.map(i64::from))
        .flag("paused", s.paused)
        .opt_int("progressDeadlineSeconds", s.progress_deadline_seconds.map(i64::from))
        .done()
}

fn deployment_status(s: &DeploymentStatus) -> Value {
    Fields::default()
        .int_nonzero("observedGeneration", s.observed_generation)
        .int_nonzero("replicas", s.replicas.into())
        .int_nonzero("updatedReplicas", s.updated_replicas.into())
        .int_nonzero("readyReplicas", s.ready_replicas.into())
        .int_nonzero("availableReplicas", s.available_replicas.into())
        .int_nonzero("unavailableReplicas", s.unavailable_replicas.into())
        .list("conditions", &s.conditions, |c| {
            condition(&c.type_, &c.status, c.last_transition_time, &c.reason, &c.message)
                .time("lastUpdateTime", c.last_update_time)
                .done()
        })
        .opt_int("collisionCount", s.collision_count.map(i64::from))
        .done()
}

// ---------------------------------------------------------------------------------------------------------------
// Lease, Event

fn lease_spec(s: &LeaseSpec) -> Value {
    Fields::default()
        .text_nonempty("holderIdentity", &s.holder_identity)
        .opt_int("leaseDurationSeconds", s.lease_duration_seconds.map(i64::from))
        .time("acquireTime", s.acquire_time)
        .time("renewTime", s.renew_time)
        .opt_int("leaseTransitions", s.lease_transitions.map(i64::from))
        .done()
}

/// An Event's fields are its body's, next to its metadata.
fn event<'w>(w: &'w mut Fields, e: &EventBody) -> &'w mut Fields {
    let source =
        Fields::default().text_nonempty("component", &e.source.component).text_nonempty("host", &e.source.host).done();
    w.put("involvedObject", object_reference(&e.involved_object))
        .text("reason", &e.reason)
        .text("message", &e.message)
        .text("type", &e.type_)
        .int("count", e.count.into())
        .time("firstTimestamp", e.first_timestamp)
        .time("lastTimestamp", e.last_timestamp)
        .put("source", source)
        .text_nonempty("reportingComponent", &e.reporting_component)
        .text_nonempty("reportingInstance", &e.reporting_instance)
}

// ---------------------------------------------------------------------------------------------------------------
// Service, EndpointSlice, PodDisruptionBudget

fn service_spec(s: &ServiceSpec) -> Value {
    Fields::default()
        .list("ports", &s.ports, |p| {
            Fields::default()
                .text_nonempty("name", &p.name)
                .text_nonempty("protocol", &p.protocol)
                .int("port", p.port.into())
                .opt("targetPort", p.target_port.as_ref().map(int_or_string))
                .int_nonzero("nodePort", p.node_port.into())
                .done()
        })
        .labels("selector", &s.selector)
        .text_nonempty("clusterIP", &s.cluster_ip)
        .strings("clusterIPs", &s.cluster_ips)
        .text_nonempty("type", &s.type_)
        .text_nonempty("externalName", &s.external_name)
        .text_nonempty("sessionAffinity", &s.session_affinity)
        .strings("ipFamilies", &s.ip_families)
        .text_nonempty("ipFamilyPolicy", &s.ip_family_policy)
        .text_nonempty("internalTrafficPolicy", &s.internal_traffic_policy)
        .text_nonempty("externalTrafficPolicy", &s.external_traffic_policy)
        .opt_bool("publishNotReadyAddresses", s.publish_not_ready_addresses)
        .done()
}

fn endpoint(e: &Endpoint) -> Value {
    let c = &e.conditions;
    let conditions = Fields::default()
        .opt_bool("ready", c.ready)
        .opt_bool("serving", c.serving)
        .opt_bool("terminating", c.terminating)
        .done();
    Fields::default()
        .put("addresses", array(&e.addresses, |a| string(a)))
        .put("conditions", conditions)
        .text_nonempty("nodeName", &e.node_name)
        .text_nonempty("zone", &e.zone)
        .opt("targetRef", e.target_ref.as_ref().map(object_reference))
        .done()
}

fn endpoint_port(p: &EndpointPort) -> Value {
    Fields::default()
        .text("name", &p.name)
        .text_nonempty("protocol", &p.protocol)
        .opt_int("port", p.port.map(i64::from))
        .done()
}

fn pdb_spec(s: &PodDisruptionBudgetSpec) -> Value {
    Fields::default()
        .opt("minAvailable", s.min_available.as_ref().map(int_or_string))
        .opt("selector", s.selector.as_ref().map(selector))
        .opt("maxUnavailable", s.max_unavailable.as_ref().map(int_or_string))
        .text_nonempty("unhealthyPodEvictionPolicy", &s.unhealthy_pod_eviction_policy)
        .done()
}

fn pdb_status(s: &PodDisruptionBudgetStatus) -> Value {
    Fields::default()
        .int_nonzero("observedGeneration", s.observed_generation)
        .labels("disruptedPods", &s.disrupted_pods)
        .int("disruptionsAllowed", s.disruptions_allowed.into())
        .int("currentHealthy", s.current_healthy.into())
        .int("desiredHealthy", s.desired_healthy.into())
        .int("expectedPods", s.expected_pods.into())
        .list("conditions", &s.conditions, |c| {
            // `metav1.Condition`: reason and message are always written.
            condition(&c.type_, &c.status, c.last_transition_time, "", "")
                .int_nonzero("observedGeneration", c.observed_generation)
                .text("reason", &c.reason)
                .text("message", &c.message)
                .done()
        })
        .done()
}

#[cfg(test)]
mod tests;

// ---------------------------------------------------------------------------------------------------------------
// DaemonSet

fn daemon_set_spec(s: &DaemonSetSpec) -> Value {
    let strategy = Fields::default()
        .text_nonempty("type", &s.update_strategy.type_)
        .opt("rollingUpdate", s.update_strategy.rolling_update.as_ref().map(rolling))
        .done();
    Fields::default()
        .put("selector", selector(&s.selector))
        .put("template", template(&s.template))
        .put("updateStrategy", strategy)
        .int_nonzero("minReadySeconds", s.min_ready_seconds.into())
        .opt_int("revisionHistoryLimit", s.revision_history_limit.map(i64::from))
        .done()
}

fn daemon_set_status(s: &DaemonSetStatus) -> Value {
    Fields::default()
        .int("currentNumberScheduled", s.current_number_scheduled.into())
        .int("numberMisscheduled", s.number_misscheduled.into())
        .int("desiredNumberScheduled", s.desired_number_scheduled.into())
        .int("numberReady", s.number_ready.into())
        .int_nonzero("observedGeneration", s.observed_generation)
        .int_nonzero("updatedNumberScheduled", s.updated_number_scheduled.into())
        .int_nonzero("numberAvailable", s.number_available.into())
        .int_nonzero("numberUnavailable", s.number_unavailable.into())
        .opt_int("collisionCount", s.collision_count.map(i64::from))
        .done()
}

// ---------------------------------------------------------------------------------------------------------------
// Job

fn job_spec(s: &JobSpec) -> Value {
    Fields::default()
        .opt_int("parallelism", s.parallelism.map(i64::from))
        .opt_int("completions", s.completions.map(i64::from))
        .opt_int("activeDeadlineSeconds", s.active_deadline_seconds)
        .opt("podFailurePolicy", s.pod_failure_policy.as_ref().map(pod_failure_policy))
        .opt_int("backoffLimit", s.backoff_limit.map(i64::from))
        .opt("selector", s.selector.as_ref().map(selector))
        .opt_bool("manualSelector", s.manual_selector)
        .put("template", template(&s.template))
        .opt_int("ttlSecondsAfterFinished", s.ttl_seconds_after_finished.map(i64::from))
        .opt("completionMode", s.completion_mode.as_deref().map(string))
        .opt_bool("suspend", s.suspend)
        .opt("podReplacementPolicy", s.pod_replacement_policy.as_deref().map(string))
        .done()
}

fn pod_failure_policy(p: &job::PodFailurePolicy) -> Value {
    let rule = |r: &job::PodFailurePolicyRule| {
        let codes = |c: &job::PodFailurePolicyOnExitCodes| {
            let values: Vec<Value> = c.values.iter().map(|v| Value::from(*v)).collect();
            Fields::default()
                .opt("containerName", c.container_name.as_deref().map(string))
                .text("operator", &c.operator)
                .put("values", Value::Array(values))
                .done()
        };
        Fields::default()
            .text("action", &r.action)
            .opt("onExitCodes", r.on_exit_codes.as_ref().map(codes))
            .list("onPodConditions", &r.on_pod_conditions, |p| {
                Fields::default().text("type", &p.type_).text("status", &p.status).done()
            })
            .done()
    };
    Fields::default().put("rules", array(&p.rules, rule)).done()
}

fn job_status(s: &JobStatus) -> Value {
    Fields::default()
        .list("conditions", &s.conditions, |c| {
            Fields::default()
                .text("type", &c.type_)
                .text("status", &c.status)
                .time("lastProbeTime", c.last_probe_time)
                .time("lastTransitionTime", c.last_transition_time)
                .text_nonempty("reason", &c.reason)
                .text_nonempty("message", &c.message)
                .done()
        })
        .time("startTime", s.start_time)
        .time("completionTime", s.completion_time)
        .int_nonzero("active", s.active.into())
        .int_nonzero("succeeded", s.succeeded.into())
        .int_nonzero("failed", s.failed.into())
        .opt_int("terminating", s.terminating.map(i64::from))
        .text_nonempty("completedIndexes", &s.completed_indexes)
        .opt(
            "uncountedTerminatedPods",
            s.uncounted_terminated_pods
                .as_ref()
                .map(|u| Fields::default().strings("succeeded", &u.succeeded).strings("failed", &u.failed).done()),
        )
        .opt_int("ready", s.ready.map(i64::from))
        .done()
}

// ---------------------------------------------------------------------------------------------------------------
// CronJob

fn cronjob_spec(s: &cronjob::CronJobSpec) -> Value {
    let t = &s.job_template;
    Fields::default()
        .text("schedule", &s.schedule)
        .opt("timeZone", s.time_zone.as_deref().map(string))
        .opt_int("startingDeadlineSeconds", s.starting_deadline_seconds)
        .opt("concurrencyPolicy", s.concurrency_policy.as_deref().map(string))
        .opt_bool("suspend", s.suspend)
        .put("jobTemplate", Fields::default().put("metadata", meta(&t.metadata)).put("spec", job_spec(&t.spec)).done())
        .opt_int("successfulJobsHistoryLimit", s.successful_jobs_history_limit.map(i64::from))
        .opt_int("failedJobsHistoryLimit", s.failed_jobs_history_limit.map(i64::from))
        .done()
}

fn cronjob_status(s: &cronjob::CronJobStatus) -> Value {
    Fields::default()
        .list("active", &s.active, object_reference)
        .time("lastScheduleTime", s.last_schedule_time)
        .time("lastSuccessfulTime", s.last_successful_time)
        .done()
}

// ---------------------------------------------------------------------------------------------------------------
// StatefulSet

fn stateful_set_spec(s: &StatefulSetSpec) -> Value {
    use crate::api::statefulset::ClaimTemplate;
    let claim = |c: &ClaimTemplate| {
        Fields::default().put("metadata", meta(&c.metadata)).put("spec", Value::Object(c.spec.clone())).done()
    };
    let rolling = |r: &crate::api::statefulset::RollingUpdateStatefulSet| {
        Fields::default()
            .opt_int("partition", r.partition.map(i64::from))
            .opt("maxUnavailable", r.max_unavailable.as_ref().map(int_or_string))
            .done()
    };
    let strategy = Fields::default()
        .text_nonempty("type", &s.update_strategy.type_)
        .opt("rollingUpdate", s.update_strategy.rolling_update.as_ref().map(rolling))
        .done();
    let policy = |p: &crate::api::statefulset::RetentionPolicy| {
        Fields::default()
            .text_nonempty("whenDeleted", &p.when_deleted)
            .text_nonempty("whenScaled", &p.when_scaled)
            .done()
    };
    let ordinals =
        |o: &crate::api::statefulset::Ordinals| Fields::default().int_nonzero("start", o.start.into()).done();
    Fields::default()
        .opt_int("replicas", s.replicas.map(i64::from))
        .put("selector", selector(&s.selector))
        .put("template", template(&s.template))
        .list("volumeClaimTemplates", &s.volume_claim_templates, claim)
        .text_nonempty("serviceName", &s.service_name)
        .text_nonempty("podManagementPolicy", &s.pod_management_policy)
        .put("updateStrategy", strategy)
        .opt_int("revisionHistoryLimit", s.revision_history_limit.map(i64::from))
        .int_nonzero("minReadySeconds", s.min_ready_seconds.into())
        .opt("persistentVolumeClaimRetentionPolicy", s.persistent_volume_claim_retention_policy.as_ref().map(policy))
        .opt("ordinals", s.ordinals.as_ref().map(ordinals))
        .done()
}

fn stateful_set_status(s: &StatefulSetStatus) -> Value {
    Fields::default()
        .int_nonzero("observedGeneration", s.observed_generation)
        .int("replicas", s.replicas.into())
        .int_nonzero("readyReplicas", s.ready_replicas.into())
        .int_nonzero("currentReplicas", s.current_replicas.into())
        .int_nonzero("updatedReplicas", s.updated_replicas.into())
        .text_nonempty("currentRevision", &s.current_revision)
        .text_nonempty("updateRevision", &s.update_revision)
        .opt_int("collisionCount", s.collision_count.map(i64::from))
        .int("availableReplicas", s.available_replicas.into())
        .done()
}
