//! The field tables of a Pod and what it holds: its spec (containers, their environment, volumes, probes,
//! resources, ports, tolerations), its template in a workload, and its status.

use super::*;

pub(crate) fn pod<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Pod> {
    object(cx, n, "Pod", &["metadata", "spec", "status"], &[], |o: &mut Pod, cx, key, v| {
        match key {
            "metadata" => o.metadata = meta(cx, v)?,
            "spec" => o.spec = Rc::new(pod_spec(cx, v)?),
            _ => o.status = pod_status(cx, v)?,
        }
        Ok(())
    })
}

pub(super) fn template<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<PodTemplateSpec> {
    object(cx, n, "PodTemplateSpec", &["metadata", "spec"], &[], |t: &mut PodTemplateSpec, cx, key, v| {
        match key {
            "metadata" => t.metadata = meta(cx, v)?,
            _ => t.spec = Rc::new(pod_spec(cx, v)?),
        }
        Ok(())
    })
}

pub(super) fn pod_spec<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<PodSpec> {
    const NAMES: &[&str] = &[
        "volumes",
        "containers",
        "nodeName",
        "nodeSelector",
        "affinity",
        "tolerations",
        "restartPolicy",
        "terminationGracePeriodSeconds",
        "schedulerName",
        "dnsPolicy",
        "priority",
        "hostname",
        "subdomain",
    ];
    object(cx, n, "PodSpec", NAMES, &[], |s: &mut PodSpec, cx, key, v| {
        match key {
            "volumes" => s.volumes = cx.seq(v, volume)?,
            "containers" => s.containers = cx.seq(v, container)?.into(),
            "nodeName" => s.node_name = cx.string(v)?,
            "nodeSelector" => s.node_selector = cx.labels(v)?,
            "affinity" => s.affinity = cx.option(v, affinity)?.map(Box::new),
            "tolerations" => s.tolerations = cx.seq(v, toleration)?.into(),
            "restartPolicy" => s.restart_policy = cx.string(v)?,
            "terminationGracePeriodSeconds" => s.termination_grace_period_seconds = cx.option(v, Cx::i64)?,
            "schedulerName" => s.scheduler_name = cx.string(v)?,
            "dnsPolicy" => s.dns_policy = cx.string(v)?,
            "hostname" => s.hostname = cx.string(v)?,
            "subdomain" => s.subdomain = cx.string(v)?,
            _ => s.priority = cx.option(v, Cx::i32)?,
        }
        Ok(())
    })
}

pub(super) fn container<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Container> {
    const NAMES: &[&str] = &[
        "name",
        "image",
        "imagePullPolicy",
        "resources",
        "ports",
        "command",
        "args",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "lifecycle",
        "env",
        "envFrom",
    ];
    object(cx, n, "Container", NAMES, &[], |c: &mut Container, cx, key, v| {
        match key {
            "name" => c.name = cx.string(v)?,
            "image" => c.image = cx.string(v)?,
            "imagePullPolicy" => c.image_pull_policy = cx.string(v)?,
            "resources" => c.resources = resources(cx, v)?,
            "ports" => c.ports = cx.seq(v, container_port)?,
            "command" => c.command = cx.strings(v)?,
            "args" => c.args = cx.strings(v)?,
            "livenessProbe" => c.liveness_probe = cx.option(v, probe)?,
            "readinessProbe" => c.readiness_probe = cx.option(v, probe)?,
            "startupProbe" => c.startup_probe = cx.option(v, probe)?,
            "lifecycle" => c.lifecycle = cx.option(v, lifecycle)?,
            "env" => c.env = cx.seq(v, env_var)?,
            _ => c.env_from = cx.seq(v, env_from)?,
        }
        Ok(())
    })
}

pub(super) fn env_var<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<EnvVar> {
    object(cx, n, "EnvVar", &["name", "value", "valueFrom"], &[], |e: &mut EnvVar, cx, key, v| {
        match key {
            "name" => e.name = cx.string(v)?,
            "value" => e.value = cx.string(v)?,
            _ => {
                e.value_from = cx.option(v, |cx, v| {
                    const NAMES: &[&str] = &["configMapKeyRef", "secretKeyRef"];
                    object(cx, v, "EnvVarSource", NAMES, &[], |s: &mut EnvVarSource, cx, key, v| {
                        match key {
                            "configMapKeyRef" => s.config_map_key_ref = cx.option(v, key_selector)?,
                            _ => s.secret_key_ref = cx.option(v, key_selector)?,
                        }
                        Ok(())
                    })
                })?
            }
        }
        Ok(())
    })
}

pub(super) fn key_selector<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<KeySelector> {
    object(cx, n, "KeySelector", &["name", "key", "optional"], &[], |k: &mut KeySelector, cx, key, v| {
        match key {
            "name" => k.name = cx.string(v)?,
            "key" => k.key = cx.string(v)?,
            _ => k.optional = cx.option(v, Cx::bool)?,
        }
        Ok(())
    })
}

pub(super) fn env_from<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<EnvFromSource> {
    const NAMES: &[&str] = &["prefix", "configMapRef", "secretRef"];
    object(cx, n, "EnvFromSource", NAMES, &[], |e: &mut EnvFromSource, cx, key, v| {
        match key {
            "prefix" => e.prefix = cx.string(v)?,
            "configMapRef" => e.config_map_ref = cx.option(v, source_ref)?,
            _ => e.secret_ref = cx.option(v, source_ref)?,
        }
        Ok(())
    })
}

pub(super) fn source_ref<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<SourceRef> {
    object(cx, n, "SourceRef", &["name", "optional"], &[], |r: &mut SourceRef, cx, key, v| {
        match key {
            "name" => r.name = cx.string(v)?,
            _ => r.optional = cx.option(v, Cx::bool)?,
        }
        Ok(())
    })
}

pub(super) fn volume<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Volume> {
    const NAMES: &[&str] = &["name", "emptyDir", "secret", "configMap", "persistentVolumeClaim"];
    object(cx, n, "Volume", NAMES, &[], |vol: &mut Volume, cx, key, v| {
        match key {
            "name" => vol.name = cx.string(v)?,
            "emptyDir" => {
                vol.empty_dir = cx.option(v, |cx, v| {
                    const NAMES: &[&str] = &["medium", "sizeLimit"];
                    object(cx, v, "EmptyDirVolumeSource", NAMES, &[], |e: &mut EmptyDirVolumeSource, cx, key, v| {
                        match key {
                            "medium" => e.medium = cx.string(v)?,
                            _ => e.size_limit = cx.option(v, quantity)?,
                        }
                        Ok(())
                    })
                })?
            }
            "secret" => {
                vol.secret = cx.option(v, |cx, v| {
                    const NAMES: &[&str] = &["secretName", "defaultMode", "optional"];
                    object(cx, v, "SecretVolumeSource", NAMES, &[], |s: &mut SecretVolumeSource, cx, key, v| {
                        match key {
                            "secretName" => s.secret_name = cx.string(v)?,
                            "defaultMode" => s.default_mode = cx.option(v, Cx::i32)?,
                            _ => s.optional = cx.option(v, Cx::bool)?,
                        }
                        Ok(())
                    })
                })?
            }
            "persistentVolumeClaim" => {
                vol.persistent_volume_claim = cx.option(v, |cx, v| {
                    const NAMES: &[&str] = &["claimName", "readOnly"];
                    let name = "PersistentVolumeClaimVolumeSource";
                    object(cx, v, name, NAMES, &[], |s: &mut PersistentVolumeClaimVolumeSource, cx, key, v| {
                        match key {
                            "claimName" => s.claim_name = cx.string(v)?,
                            _ => s.read_only = cx.bool(v)?,
                        }
                        Ok(())
                    })
                })?
            }
            _ => {
                vol.config_map = cx.option(v, |cx, v| {
                    const NAMES: &[&str] = &["name", "defaultMode", "optional"];
                    object(cx, v, "ConfigMapVolumeSource", NAMES, &[], |s: &mut ConfigMapVolumeSource, cx, key, v| {
                        match key {
                            "name" => s.name = cx.string(v)?,
                            "defaultMode" => s.default_mode = cx.option(v, Cx::i32)?,
                            _ => s.optional = cx.option(v, Cx::bool)?,
                        }
                        Ok(())
                    })
                })?
            }
        }
        Ok(())
    })
}

pub(super) fn probe<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Probe> {
    const NAMES: &[&str] = &[
        "exec",
        "httpGet",
        "tcpSocket",
        "grpc",
        "initialDelaySeconds",
        "timeoutSeconds",
        "periodSeconds",
        "successThreshold",
        "failureThreshold",
        "terminationGracePeriodSeconds",
    ];
    object(cx, n, "Probe", NAMES, &[], |p: &mut Probe, cx, key, v| {
        match key {
            "exec" => p.exec = cx.option(v, exec_action)?,
            "httpGet" => p.http_get = cx.option(v, http_get)?,
            "tcpSocket" => p.tcp_socket = cx.option(v, tcp_socket)?,
            "grpc" => {
                p.grpc = cx.option(v, |cx, v| {
                    object(cx, v, "GrpcAction", &["port", "service"], &["port"], |g: &mut GrpcAction, cx, k, v| {
                        match k {
                            "port" => g.port = cx.i32(v)?,
                            _ => g.service = cx.option(v, Cx::string)?,
                        }
                        Ok(())
                    })
                })?
            }
            "initialDelaySeconds" => p.initial_delay_seconds = cx.i32(v)?,
            "timeoutSeconds" => p.timeout_seconds = cx.i32(v)?,
            "periodSeconds" => p.period_seconds = cx.i32(v)?,
            "successThreshold" => p.success_threshold = cx.i32(v)?,
            "failureThreshold" => p.failure_threshold = cx.i32(v)?,
            _ => p.termination_grace_period_seconds = cx.option(v, Cx::i64)?,
        }
        Ok(())
    })
}

fn exec_action<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ExecAction> {
    object(cx, n, "ExecAction", &["command"], &[], |e: &mut ExecAction, cx, _, v| {
        e.command = cx.strings(v)?;
        Ok(())
    })
}

fn tcp_socket<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<TcpSocketAction> {
    object(cx, n, "TcpSocketAction", &["port", "host"], &["port"], |t: &mut TcpSocketAction, cx, k, v| {
        match k {
            "port" => t.port = int_or_string(cx, v)?,
            _ => t.host = cx.string(v)?,
        }
        Ok(())
    })
}

fn lifecycle<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Lifecycle> {
    object(cx, n, "Lifecycle", &["postStart", "preStop"], &[], |l: &mut Lifecycle, cx, key, v| {
        let hook = cx.option(v, |cx, v| {
            const NAMES: &[&str] = &["exec", "httpGet", "tcpSocket", "sleep"];
            object(cx, v, "LifecycleHandler", NAMES, &[], |h: &mut LifecycleHandler, cx, key, v| {
                match key {
                    "exec" => h.exec = cx.option(v, exec_action)?,
                    "httpGet" => h.http_get = cx.option(v, http_get)?,
                    "tcpSocket" => h.tcp_socket = cx.option(v, tcp_socket)?,
                    _ => {
                        h.sleep = cx.option(v, |cx, v| {
                            object(cx, v, "SleepAction", &["seconds"], &["seconds"], |s: &mut SleepAction, cx, _, v| {
                                s.seconds = cx.i64(v)?;
                                Ok(())
                            })
                        })?
                    }
                }
                Ok(())
            })
        })?;
        match key {
            "postStart" => l.post_start = hook,
            _ => l.pre_stop = hook,
        }
        Ok(())
    })
}

pub(super) fn http_get<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<HttpGetAction> {
    const NAMES: &[&str] = &["path", "port", "host", "scheme", "httpHeaders"];
    object(cx, n, "HttpGetAction", NAMES, &["port"], |h: &mut HttpGetAction, cx, key, v| {
        match key {
            "path" => h.path = cx.string(v)?,
            "port" => h.port = int_or_string(cx, v)?,
            "host" => h.host = cx.string(v)?,
            "scheme" => h.scheme = cx.string(v)?,
            _ => {
                h.http_headers = cx.seq(v, |cx, v| {
                    object(cx, v, "HttpHeader", &["name", "value"], &[], |h: &mut HttpHeader, cx, k, v| {
                        match k {
                            "name" => h.name = cx.string(v)?,
                            _ => h.value = cx.string(v)?,
                        }
                        Ok(())
                    })
                })?
            }
        }
        Ok(())
    })
}

pub(super) fn resources<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ResourceRequirements> {
    object(cx, n, "ResourceRequirements", &["limits", "requests"], &[], |r: &mut ResourceRequirements, cx, key, v| {
        match key {
            "limits" => r.limits = cx.map(v, quantity)?,
            _ => r.requests = cx.map(v, quantity)?,
        }
        Ok(())
    })
}

/// A quantity: a string (`"250m"`) or a number (`2`, `0.5`), as manifests often write `cpu: 2` unquoted.
pub(crate) fn quantity<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Quantity> {
    const EXPECTED: &str = "a quantity such as \"250m\", \"2\" or \"128Mi\"";
    let text = match cx.any(n)? {
        Any::Scalar(Scalar::Str(s)) => s.to_string(),
        Any::Scalar(Scalar::U64(v)) => v.to_string(),
        Any::Scalar(Scalar::I64(v)) => v.to_string(),
        Any::Scalar(Scalar::U128(v)) => v.to_string(),
        Any::Scalar(Scalar::I128(v)) => v.to_string(),
        Any::Scalar(Scalar::F64(v)) if !v.is_finite() => return Err(cx.error(n, crate::api::quantity::ERR_FORMAT)),
        // Like Go's JSON encoding of a float64 (which kubectl sends): exponent notation for large and tiny
        // values, plain digits otherwise; both are in the accepted syntax.
        Any::Scalar(Scalar::F64(v)) if v != 0.0 && !(1e-6..1e21).contains(&v.abs()) => format!("{v:e}"),
        Any::Scalar(Scalar::F64(v)) => v.to_string(),
        other => return Err(cx.not_expected(n, other, EXPECTED)),
    };
    Quantity::parse(&text).map_err(|e| cx.error(n, e))
}

pub(super) fn container_port<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ContainerPort> {
    const NAMES: &[&str] = &["containerPort", "name", "protocol"];
    object(cx, n, "ContainerPort", NAMES, &["containerPort"], |p: &mut ContainerPort, cx, key, v| {
        match key {
            "containerPort" => p.container_port = cx.i32(v)?,
            "name" => p.name = cx.string(v)?,
            _ => p.protocol = cx.string(v)?,
        }
        Ok(())
    })
}

/// `v1.Affinity`: its required node affinity is read; preferred terms, pod affinity and anti-affinity are left to
/// the schema (accepted, not simulated: a warning).
fn affinity<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Affinity> {
    object(cx, n, "Affinity", &["nodeAffinity"], &[], |a: &mut Affinity, cx, _, v| {
        const NAMES: &[&str] = &["requiredDuringSchedulingIgnoredDuringExecution"];
        a.node_affinity = cx.option(v, |cx, v| {
            object(cx, v, "NodeAffinity", NAMES, &[], |na: &mut NodeAffinity, cx, _, v| {
                na.required_during_scheduling_ignored_during_execution = cx.option(v, |cx, v| {
                    const TERMS: &[&str] = &["nodeSelectorTerms"];
                    object(cx, v, "NodeSelector", TERMS, TERMS, |sel: &mut NodeSelector, cx, _, v| {
                        sel.node_selector_terms = cx.seq(v, node_selector_term)?;
                        Ok(())
                    })
                })?;
                Ok(())
            })
        })?;
        Ok(())
    })
}

fn node_selector_term<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<NodeSelectorTerm> {
    let req = |cx: &mut Cx<'n>, v: &'n Node| {
        const NAMES: &[&str] = &["key", "operator", "values"];
        object(
            cx,
            v,
            "NodeSelectorRequirement",
            NAMES,
            &["key", "operator"],
            |r: &mut NodeSelectorRequirement, cx, key, v| {
                match key {
                    "key" => r.key = cx.string(v)?,
                    "operator" => r.operator = cx.string(v)?,
                    _ => r.values = cx.strings(v)?,
                }
                Ok(())
            },
        )
    };
    object(
        cx,
        n,
        "NodeSelectorTerm",
        &["matchExpressions", "matchFields"],
        &[],
        |t: &mut NodeSelectorTerm, cx, key, v| {
            match key {
                "matchExpressions" => t.match_expressions = cx.seq(v, req)?,
                _ => t.match_fields = cx.seq(v, req)?,
            }
            Ok(())
        },
    )
}

pub(super) fn toleration<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<Toleration> {
    const NAMES: &[&str] = &["key", "operator", "value", "effect", "tolerationSeconds"];
    object(cx, n, "Toleration", NAMES, &[], |t: &mut Toleration, cx, key, v| {
        match key {
            "key" => t.key = cx.string(v)?,
            "operator" => t.operator = cx.string(v)?,
            "value" => t.value = cx.string(v)?,
            "effect" => t.effect = cx.string(v)?,
            _ => t.toleration_seconds = cx.option(v, Cx::i64)?,
        }
        Ok(())
    })
}

pub(super) fn pod_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<PodStatus> {
    const NAMES: &[&str] =
        &["phase", "conditions", "message", "reason", "hostIP", "podIP", "startTime", "containerStatuses"];
    const PHASES: [PodPhase; 5] =
        [PodPhase::Pending, PodPhase::Running, PodPhase::Succeeded, PodPhase::Failed, PodPhase::Unknown];
    object(cx, n, "PodStatus", NAMES, &[], |s: &mut PodStatus, cx, key, v| {
        match key {
            "phase" => s.phase = PHASES[cx.variant(v, &PHASES.map(PodPhase::as_str))?],
            "conditions" => s.conditions = cx.seq(v, pod_condition)?,
            "message" => s.message = cx.string(v)?,
            "reason" => s.reason = cx.string(v)?,
            "hostIP" => s.host_ip = cx.string(v)?,
            "podIP" => s.pod_ip = cx.string(v)?,
            "startTime" => s.start_time = cx.option(v, time)?,
            _ => s.container_statuses = cx.seq(v, container_status)?,
        }
        Ok(())
    })
}

pub(super) fn pod_condition<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<PodCondition> {
    object(cx, n, "PodCondition", CONDITION, CONDITION_REQUIRED, |c: &mut PodCondition, cx, key, v| {
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

pub(super) fn container_status<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ContainerStatus> {
    const NAMES: &[&str] = &["name", "state", "lastState", "ready", "restartCount", "image", "started"];
    object(cx, n, "ContainerStatus", NAMES, &["name"], |c: &mut ContainerStatus, cx, key, v| {
        match key {
            "name" => c.name = cx.string(v)?,
            "state" => c.state = container_state(cx, v)?,
            "lastState" => c.last_state = container_state(cx, v)?,
            "ready" => c.ready = cx.bool(v)?,
            "restartCount" => c.restart_count = cx.i32(v)?,
            "image" => c.image = cx.string(v)?,
            _ => c.started = cx.option(v, Cx::bool)?,
        }
        Ok(())
    })
}

pub(super) fn container_state<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ContainerState> {
    const NAMES: &[&str] = &["waiting", "running", "terminated"];
    object(cx, n, "ContainerState", NAMES, &[], |s: &mut ContainerState, cx, key, v| {
        match key {
            "waiting" => s.waiting = cx.option(v, waiting)?,
            "running" => s.running = cx.option(v, running)?,
            _ => s.terminated = cx.option(v, terminated)?,
        }
        Ok(())
    })
}

pub(super) fn waiting<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ContainerStateWaiting> {
    object(cx, n, "ContainerStateWaiting", &["reason", "message"], &[], |w: &mut ContainerStateWaiting, cx, key, v| {
        match key {
            "reason" => w.reason = cx.string(v)?,
            _ => w.message = cx.string(v)?,
        }
        Ok(())
    })
}

pub(super) fn running<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ContainerStateRunning> {
    object(cx, n, "ContainerStateRunning", &["startedAt"], &[], |r: &mut ContainerStateRunning, cx, _, v| {
        r.started_at = cx.option(v, time)?;
        Ok(())
    })
}

pub(super) fn terminated<'n>(cx: &mut Cx<'n>, n: &'n Node) -> Result<ContainerStateTerminated> {
    const NAMES: &[&str] = &["exitCode", "reason", "startedAt", "finishedAt"];
    object(cx, n, "ContainerStateTerminated", NAMES, &[], |t: &mut ContainerStateTerminated, cx, key, v| {
        match key {
            "exitCode" => t.exit_code = cx.i32(v)?,
            "reason" => t.reason = cx.string(v)?,
            "startedAt" => t.started_at = cx.option(v, time)?,
            _ => t.finished_at = cx.option(v, time)?,
        }
        Ok(())
    })
}
