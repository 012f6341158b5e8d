//! Pods and pod templates (`pkg/apis/core/validation/validation.go`: `ValidatePodCreate`, `ValidatePodTemplateSpec`,
//! `ValidatePodSpec` and what it calls), for the fields kubeloop reads: volumes, containers (names, images, ports,
//! environment, pull policy, resources, probes), restart and DNS policies, node selector and name, tolerations.

use super::{invalid_each, meta, nonnegative, nonnegative_quantity, q, FieldError};
use crate::api::names;
use crate::api::{
    Container, IntOrString, Labels, LifecycleHandler, NodeAffinity, NodeSelectorTerm, Pod, PodSpec, PodTemplateSpec,
    Probe, ProbeType, Toleration, Volume,
};

/// `controller.kubernetes.io/pod-deletion-cost`: a 32-bit integer when set.
const POD_DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// `ValidatePodCreate`'s checks past the metadata: the pod's own annotations, its spec, and what only a pod (not a
/// template) is held to.
pub(super) fn validate_pod(p: &Pod, errs: &mut Vec<FieldError>) {
    pod_annotations(&p.metadata.annotations, "metadata.annotations", errs);
    validate_pod_spec(&p.spec, "spec", errs);
    // validateContainersOnlyForPod
    for (i, c) in p.spec.containers.iter().enumerate() {
        if c.image.len() != c.image.trim().len() {
            errs.push(FieldError::invalid(
                format!("spec.containers[{i}].image"),
                q(&c.image),
                "must not have leading or trailing whitespace",
            ));
        }
    }
}

/// `ValidatePodTemplateSpec` at `path` (`spec.template`): the template's labels and annotations (upstream names
/// them `spec.template.labels`, without `metadata`), then its spec.
pub(super) fn validate_template(t: &PodTemplateSpec, path: &str, errs: &mut Vec<FieldError>) {
    let at = |f: &str| format!("{path}.{f}");
    let start = errs.len();
    meta::labels(&t.metadata.labels, &at("labels"), errs);
    meta::annotations(&t.metadata.annotations, &at("annotations"), errs);
    pod_annotations(&t.metadata.annotations, &at("annotations"), errs);
    for e in &mut errs[start..] {
        let located = e.path.replacen(path, &format!("{path}.metadata"), 1);
        e.at = Some(located);
    }
    validate_pod_spec(&t.spec, &at("spec"), errs);
}

/// `ValidatePodSpecificAnnotations`, for the annotation a person may type: the deletion cost, a 32-bit integer
/// without a sign or leading zeros.
fn pod_annotations(annotations: &Labels, path: &str, errs: &mut Vec<FieldError>) {
    let Some(v) = annotations.get(POD_DELETION_COST) else { return };
    let first_ok = match v.as_bytes().first() {
        Some(b'-') => true,
        Some(b'0') => &**v == "0",
        Some(b) => b.is_ascii_digit(),
        None => false,
    };
    if !first_ok || v.parse::<i32>().is_err() {
        errs.push(FieldError::invalid(format!("{path}[{POD_DELETION_COST}]"), q(v), "must be a 32bit integer"));
    }
}

/// `ValidatePodSpec`, in upstream's order.
pub(super) fn validate_pod_spec(spec: &PodSpec, path: &str, errs: &mut Vec<FieldError>) {
    volumes(&spec.volumes, &format!("{path}.volumes"), errs);
    let grace = spec.termination_grace_period_seconds;
    containers(&spec.containers, grace, &format!("{path}.containers"), errs);
    if !matches!(&*spec.restart_policy, "" | "Always" | "OnFailure" | "Never") {
        errs.push(FieldError::not_supported(
            format!("{path}.restartPolicy"),
            q(&spec.restart_policy),
            &["Always", "OnFailure", "Never"],
        ));
    }
    if !matches!(&*spec.dns_policy, "" | "ClusterFirstWithHostNet" | "ClusterFirst" | "Default" | "None") {
        errs.push(FieldError::not_supported(
            format!("{path}.dnsPolicy"),
            q(&spec.dns_policy),
            &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
        ));
    }
    meta::labels(&spec.node_selector, &format!("{path}.nodeSelector"), errs);
    if !spec.node_name.is_empty() {
        invalid_each(&format!("{path}.nodeName"), &spec.node_name, names::dns1123_subdomain(&spec.node_name), errs);
    }
    if let Some(na) = spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref()) {
        node_affinity(na, &format!("{path}.affinity.nodeAffinity"), errs);
    }
    tolerations(&spec.tolerations, &format!("{path}.tolerations"), errs);
}

/// `validateNodeAffinity`: at least one required term; each term's requirements (`ValidateNodeSelectorTerm`).
fn node_affinity(na: &NodeAffinity, path: &str, errs: &mut Vec<FieldError>) {
    if let Some(sel) = &na.required_during_scheduling_ignored_during_execution {
        let at = format!("{path}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
        if sel.node_selector_terms.is_empty() {
            errs.push(FieldError::required_because(&at, "must have at least one node selector term"));
        }
        for (i, t) in sel.node_selector_terms.iter().enumerate() {
            node_selector_term(t, &format!("{at}[{i}]"), errs);
        }
    }
}

/// `ValidateNodeSelectorTerm`: each expression (`ValidateNodeSelectorRequirement`) and each field requirement
/// (`ValidateNodeFieldSelectorRequirement`: `metadata.name`, In or NotIn, one value).
fn node_selector_term(t: &NodeSelectorTerm, path: &str, errs: &mut Vec<FieldError>) {
    for (i, r) in t.match_expressions.iter().enumerate() {
        let at = format!("{path}.matchExpressions[{i}]");
        let n = r.values.len();
        match &*r.operator {
            "In" | "NotIn" if n == 0 => errs.push(FieldError::required_because(
                format!("{at}.values"),
                "must be specified when `operator` is 'In' or 'NotIn'",
            )),
            "Exists" | "DoesNotExist" if n > 0 => errs.push(FieldError::forbidden(
                format!("{at}.values"),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "Gt" | "Lt" if n != 1 => errs.push(FieldError::required_because(
                format!("{at}.values"),
                "must be specified single value when `operator` is 'Lt' or 'Gt'",
            )),
            "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt" => {}
            other => {
                errs.push(FieldError::invalid(format!("{at}.operator"), q(other), "not a valid selector operator"))
            }
        }
        invalid_each(&format!("{at}.key"), &r.key, names::qualified_name(&r.key), errs);
    }
    for (i, r) in t.match_fields.iter().enumerate() {
        let at = format!("{path}.matchFields[{i}]");
        match &*r.operator {
            "In" | "NotIn" if r.values.len() != 1 => errs.push(FieldError::required_because(
                format!("{at}.values"),
                "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
            )),
            "In" | "NotIn" => {}
            other => {
                errs.push(FieldError::invalid(format!("{at}.operator"), q(other), "not a valid selector operator"))
            }
        }
        if &*r.key != "metadata.name" {
            errs.push(FieldError::not_supported(format!("{at}.key"), q(&r.key), &["metadata.name"]));
        }
    }
}

/// `ValidateVolumes` for the sources kubeloop reads (emptyDir, secret, configMap; a volume of another type is
/// dropped on reading, so a volume with none is not refused here).
fn volumes(volumes: &[Volume], path: &str, errs: &mut Vec<FieldError>) {
    let mut names = std::collections::BTreeSet::new();
    for (i, v) in volumes.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let mut el = Vec::new();
        volume_source(v, &at, &mut el);
        if v.name.is_empty() {
            el.push(FieldError::required(format!("{at}.name")));
        } else {
            invalid_each(&format!("{at}.name"), &v.name, names::dns1123_label(&v.name), &mut el);
        }
        if names.contains(&v.name) {
            el.push(FieldError::duplicate(format!("{at}.name"), q(&v.name)));
        }
        if el.is_empty() {
            names.insert(v.name.clone());
        }
        errs.append(&mut el);
    }
}

/// `validateVolumeSource`: one type, and each type's own fields.
fn volume_source(v: &Volume, at: &str, errs: &mut Vec<FieldError>) {
    const MODE: &str = "must be a number between 0 and 0777 (octal), both inclusive";
    let mut types = 0;
    let mut one_more = |name: &str, errs: &mut Vec<FieldError>| {
        types += 1;
        if types > 1 {
            errs.push(FieldError::forbidden(format!("{at}.{name}"), "may not specify more than 1 volume type"));
            return false;
        }
        true
    };
    if let Some(e) = &v.empty_dir {
        if one_more("emptyDir", errs) && e.size_limit.as_ref().is_some_and(|s| s.is_negative()) {
            errs.push(FieldError::forbidden(
                format!("{at}.emptyDir.sizeLimit"),
                "SizeLimit field must be a valid resource quantity",
            ));
        }
    }
    let mode = |field: &str, m: Option<i32>, errs: &mut Vec<FieldError>| {
        if let Some(m) = m.filter(|m| !(0..=0o777).contains(m)) {
            errs.push(FieldError::invalid(format!("{at}.{field}.defaultMode"), m, MODE));
        }
    };
    if let Some(s) = &v.secret {
        if one_more("secret", errs) {
            if s.secret_name.is_empty() {
                errs.push(FieldError::required(format!("{at}.secret.secretName")));
            }
            mode("secret", s.default_mode, errs);
        }
    }
    if let Some(c) = &v.persistent_volume_claim {
        if one_more("persistentVolumeClaim", errs) && c.claim_name.is_empty() {
            errs.push(FieldError::required(format!("{at}.persistentVolumeClaim.claimName")));
        }
    }
    if let Some(c) = &v.config_map {
        if one_more("configMap", errs) {
            if c.name.is_empty() {
                errs.push(FieldError::required(format!("{at}.configMap.name")));
            }
            mode("configMap", c.default_mode, errs);
        }
    }
}

/// `validateContainers`: at least one; each container's own checks, then its name unique, then its probes and its
/// lifecycle hooks (`validateLifecycle`, a sleep held to the pod's grace period).
fn containers(containers: &[Container], grace: Option<i64>, path: &str, errs: &mut Vec<FieldError>) {
    if containers.is_empty() {
        errs.push(FieldError::required(path));
        return;
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        let at = format!("{path}[{i}]");
        container(c, &at, errs);
        if !names.insert(c.name.clone()) {
            errs.push(FieldError::duplicate(format!("{at}.name"), q(&c.name)));
        }
        for t in [ProbeType::Liveness, ProbeType::Readiness, ProbeType::Startup] {
            if let Some(p) = c.probe(t) {
                probe(p, t, &format!("{at}.{}Probe", t.lower()), errs);
            }
        }
        let hooks = c.lifecycle.iter().flat_map(|l| [("postStart", &l.post_start), ("preStop", &l.pre_stop)]);
        for (name, h) in hooks {
            if let Some(h) = h {
                hook(h, grace, &format!("{at}.lifecycle.{name}"), errs);
            }
        }
    }
}

/// `validateContainerCommon`: name, image, ports, environment, pull policy, resources.
fn container(c: &Container, at: &str, errs: &mut Vec<FieldError>) {
    if c.name.is_empty() {
        errs.push(FieldError::required(format!("{at}.name")));
    } else {
        invalid_each(&format!("{at}.name"), &c.name, names::dns1123_label(&c.name), errs);
    }
    if c.image.is_empty() {
        errs.push(FieldError::required(format!("{at}.image")));
    }
    ports(c, at, errs);
    env(c, at, errs);
    env_from(c, at, errs);
    if !matches!(&*c.image_pull_policy, "" | "Always" | "IfNotPresent" | "Never") {
        errs.push(FieldError::not_supported(
            format!("{at}.imagePullPolicy"),
            q(&c.image_pull_policy),
            &["Always", "IfNotPresent", "Never"],
        ));
    }
    resources(c, &format!("{at}.resources"), errs);
}

/// `validateContainerPorts`: names as port names and unique, a port number, a known protocol.
fn ports(c: &Container, at: &str, errs: &mut Vec<FieldError>) {
    let mut names = std::collections::BTreeSet::new();
    for (i, p) in c.ports.iter().enumerate() {
        let at = format!("{at}.ports[{i}]");
        if !p.name.is_empty() {
            let msgs = names::port_name(&p.name);
            if !msgs.is_empty() {
                invalid_each(&format!("{at}.name"), &p.name, msgs, errs);
            } else if !names.insert(p.name.clone()) {
                errs.push(FieldError::duplicate(format!("{at}.name"), q(&p.name)));
            }
        }
        if p.container_port == 0 {
            errs.push(FieldError::required(format!("{at}.containerPort")));
        } else {
            for m in names::port_num(p.container_port.into()) {
                errs.push(FieldError::invalid(format!("{at}.containerPort"), p.container_port, &m));
            }
        }
        protocol(&p.protocol, &format!("{at}.protocol"), errs);
    }
}

/// A port's protocol: set (defaulted to TCP) and one of TCP, UDP, SCTP.
pub(super) fn protocol(protocol: &str, path: &str, errs: &mut Vec<FieldError>) {
    if protocol.is_empty() {
        errs.push(FieldError::required(path));
    } else if !matches!(protocol, "TCP" | "UDP" | "SCTP") {
        errs.push(FieldError::not_supported(path, q(protocol), &["SCTP", "TCP", "UDP"]));
    }
}

/// `ValidateEnv`: a name each (RelaxedEnvironmentVariableValidation), and a source that is one of the references
/// kubeloop reads, well formed, and not beside a value.
fn env(c: &Container, at: &str, errs: &mut Vec<FieldError>) {
    for (j, e) in c.env.iter().enumerate() {
        let at = format!("{at}.env[{j}]");
        if e.name.is_empty() {
            errs.push(FieldError::required(format!("{at}.name")));
        } else {
            invalid_each(&format!("{at}.name"), &e.name, names::env_var_name(&e.name), errs);
        }
        let Some(src) = &e.value_from else { continue };
        let from = format!("{at}.valueFrom");
        let refs = [("configMapKeyRef", &src.config_map_key_ref), ("secretKeyRef", &src.secret_key_ref)];
        let mut sources = 0;
        for (field, sel) in refs {
            let Some(sel) = sel else { continue };
            sources += 1;
            let at = format!("{from}.{field}");
            invalid_each(&format!("{at}.name"), &sel.name, names::dns1123_subdomain(&sel.name), errs);
            if sel.key.is_empty() {
                errs.push(FieldError::required(format!("{at}.key")));
            } else {
                invalid_each(&format!("{at}.key"), &sel.key, names::config_map_key(&sel.key), errs);
            }
        }
        // No source kubeloop reads may still be a fieldRef or resourceFieldRef (dropped on reading): only what
        // can be seen is checked.
        if sources > 0 && !e.value.is_empty() {
            errs.push(FieldError::invalid(from, q(""), "may not be specified when `value` is not empty"));
        } else if sources > 1 {
            errs.push(FieldError::invalid(from, q(""), "may not have more than one field specified at a time"));
        }
    }
}

/// `ValidateEnvFrom`: a prefix that is an environment variable name, exactly one of `configMapRef` and
/// `secretRef`, each naming an object.
fn env_from(c: &Container, at: &str, errs: &mut Vec<FieldError>) {
    let path = format!("{at}.envFrom");
    for (i, e) in c.env_from.iter().enumerate() {
        let at = format!("{path}[{i}]");
        if !e.prefix.is_empty() {
            invalid_each(&format!("{at}.prefix"), &e.prefix, names::env_var_name(&e.prefix), errs);
        }
        let refs = [("configMapRef", &e.config_map_ref), ("secretRef", &e.secret_ref)];
        let mut sources = 0;
        for (field, r) in refs {
            let Some(r) = r else { continue };
            sources += 1;
            let name_at = format!("{at}.{field}.name");
            if r.name.is_empty() {
                errs.push(FieldError::required(name_at));
            } else {
                invalid_each(&name_at, &r.name, names::NameRule::DnsSubdomain.check(&r.name, true), errs);
            }
        }
        match sources {
            0 => errs.push(FieldError::invalid(&path, q(""), "must specify one of: `configMapRef` or `secretRef`")),
            1 => {}
            _ => errs.push(FieldError::invalid(&path, q(""), "may not have more than one field specified at a time")),
        }
    }
}

/// `ValidateContainerResourceRequirements`: resource names a container may have, quantities not negative, a
/// request at most its limit.
fn resources(c: &Container, path: &str, errs: &mut Vec<FieldError>) {
    for (res, quantity) in &c.resources.limits {
        let at = format!("{path}.limits[{res}]");
        resource_name(res, &at, errs);
        nonnegative_quantity(&at, quantity, errs);
    }
    for (res, quantity) in &c.resources.requests {
        let at = format!("{path}.requests[{res}]");
        resource_name(res, &at, errs);
        nonnegative_quantity(&at, quantity, errs);
        if let Some(limit) = c.resources.limits.get(res) {
            if quantity > limit {
                errs.push(FieldError::invalid(
                    format!("{path}.requests"),
                    q(quantity.as_str()),
                    &format!("must be less than or equal to {res} limit of {limit}"),
                ));
            }
        }
    }
}

/// `validateContainerResourceName`: a qualified name; without a domain, a resource a container has (cpu,
/// memory, ephemeral-storage, hugepages-*); with one outside kubernetes.io, an extended resource's name.
fn resource_name(name: &str, at: &str, errs: &mut Vec<FieldError>) {
    let msgs = names::qualified_name(name);
    if !msgs.is_empty() {
        invalid_each(at, name, msgs, errs);
        return;
    }
    if !name.contains('/') {
        // IsStandardResourceName (validateResourceName), then IsStandardContainerResourceName.
        let hugepages = |n: &str| n.starts_with("hugepages-");
        let container = matches!(name, "cpu" | "memory" | "ephemeral-storage") || hugepages(name);
        let standard = container
            || STANDARD_RESOURCES.contains(&name)
            || name.strip_prefix("requests.").or_else(|| name.strip_prefix("limits.")).is_some_and(hugepages);
        if !standard {
            errs.push(FieldError::invalid(at, q(name), "must be a standard resource type or fully qualified"));
        }
        if !container {
            errs.push(FieldError::invalid(at, q(name), "must be a standard resource for containers"));
        }
    } else if !name.contains("kubernetes.io/")
        && (name.starts_with("requests.") || !names::qualified_name(&format!("requests.{name}")).is_empty())
    {
        errs.push(FieldError::invalid(at, q(name), "doesn't follow extended resource name standard"));
    }
}

/// The resource names the API knows besides a container's (`standardResources`: quota and limit names).
const STANDARD_RESOURCES: [&str; 17] = [
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "persistentvolumeclaims",
    "configmaps",
    "services.nodeports",
    "services.loadbalancers",
    "storage",
    "requests.storage",
];

/// `ValidateTolerations`.
fn tolerations(tolerations: &[Toleration], path: &str, errs: &mut Vec<FieldError>) {
    const EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
    for (i, t) in tolerations.iter().enumerate() {
        let at = |f: &str| format!("{path}[{i}].{f}");
        if !t.key.is_empty() {
            invalid_each(&at("key"), &t.key, names::qualified_name(&t.key), errs);
        }
        if t.key.is_empty() && &*t.operator != "Exists" {
            errs.push(FieldError::invalid(
                at("operator"),
                q(&t.operator),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if t.toleration_seconds.is_some() && &*t.effect != "NoExecute" {
            errs.push(FieldError::invalid(
                at("effect"),
                q(&t.effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match &*t.operator {
            "" | "Equal" => {
                let msgs = names::label_value(&t.value);
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(at("operator"), q(&t.value), &msgs.join(";")));
                }
            }
            "Exists" if !t.value.is_empty() => errs.push(FieldError::invalid(
                at("operator"),
                q(&t.value),
                "value must be empty when `operator` is 'Exists'",
            )),
            "Exists" => {}
            other => errs.push(FieldError::not_supported(at("operator"), q(other), &["Equal", "Exists"])),
        }
        if !t.effect.is_empty() && !EFFECTS.contains(&&*t.effect) {
            errs.push(FieldError::not_supported(at("effect"), q(&t.effect), &EFFECTS));
        }
    }
}

/// `validateLivenessProbe` / `validateReadinessProbe` / `validateStartupProbe` and `validateProbe`, with the
/// handler's checks (`validateHandler`: exactly one handler type; ports; HTTP or HTTPS).
fn probe(p: &Probe, t: ProbeType, path: &str, errs: &mut Vec<FieldError>) {
    let handlers = p.handlers();
    match handlers.as_slice() {
        [] => errs.push(FieldError::required_because(path, "must specify a handler type")),
        [first, rest @ ..] => {
            handler(p, first, path, errs);
            for h in rest {
                errs.push(FieldError::forbidden(format!("{path}.{h}"), "may not specify more than 1 handler type"));
            }
        }
    }
    for (field, v) in [
        ("initialDelaySeconds", p.initial_delay_seconds),
        ("timeoutSeconds", p.timeout_seconds),
        ("periodSeconds", p.period_seconds),
        ("successThreshold", p.success_threshold),
        ("failureThreshold", p.failure_threshold),
    ] {
        nonnegative(&format!("{path}.{field}"), v.into(), errs);
    }
    let grace = format!("{path}.terminationGracePeriodSeconds");
    if let Some(g) = p.termination_grace_period_seconds.filter(|g| *g <= 0) {
        errs.push(FieldError::invalid(&grace, g, "must be greater than 0"));
    }
    match (t, p.termination_grace_period_seconds) {
        (ProbeType::Readiness, Some(g)) => {
            errs.push(FieldError::invalid(grace, g, "must not be set for readinessProbes"))
        }
        (ProbeType::Readiness, None) => {}
        _ if p.success_threshold != 1 => {
            errs.push(FieldError::invalid(format!("{path}.successThreshold"), p.success_threshold, "must be 1"))
        }
        _ => {}
    }
}

/// `validateHandler` of a lifecycle hook: exactly one handler type, each checked as a probe's is; a sleep
/// `validateSleepAction` (PodLifecycleSleepActionAllowZero, on by default in 1.34).
fn hook(h: &LifecycleHandler, grace: Option<i64>, path: &str, errs: &mut Vec<FieldError>) {
    let handlers = h.handlers();
    match handlers.as_slice() {
        [] => errs.push(FieldError::required_because(path, "must specify a handler type")),
        [first, rest @ ..] => {
            if let (Some(s), Some(g)) = (&h.sleep, grace) {
                if s.seconds < 0 || s.seconds > g {
                    let msg = format!("must be non-negative and less than terminationGracePeriodSeconds ({g})");
                    errs.push(FieldError::invalid(format!("{path}.sleep"), s.seconds, &msg));
                }
            }
            let as_probe = Probe {
                exec: h.exec.clone(),
                http_get: h.http_get.clone(),
                tcp_socket: h.tcp_socket.clone(),
                ..Probe::default()
            };
            if *first != "sleep" {
                handler(&as_probe, first, path, errs);
            }
            for h in rest {
                errs.push(FieldError::forbidden(format!("{path}.{h}"), "may not specify more than 1 handler type"));
            }
        }
    }
}

/// The checks of the one handler a probe has.
fn handler(p: &Probe, which: &str, path: &str, errs: &mut Vec<FieldError>) {
    let at = format!("{path}.{which}");
    match which {
        "exec" => {
            if p.exec.as_ref().is_some_and(|e| e.command.is_empty()) {
                errs.push(FieldError::required(format!("{at}.command")));
            }
        }
        "httpGet" => {
            let Some(h) = &p.http_get else { return };
            if h.path.is_empty() {
                errs.push(FieldError::required(format!("{at}.path")));
            }
            port_num_or_name(&h.port, &format!("{at}.port"), errs);
            if !matches!(&*h.scheme, "HTTP" | "HTTPS") {
                errs.push(FieldError::not_supported(format!("{at}.scheme"), q(&h.scheme), &["HTTP", "HTTPS"]));
            }
        }
        "tcpSocket" => {
            if let Some(tcp) = &p.tcp_socket {
                port_num_or_name(&tcp.port, &format!("{at}.port"), errs);
            }
        }
        _ => {
            if let Some(g) = &p.grpc {
                port_num_or_name(&IntOrString::Int(g.port), &format!("{at}.port"), errs);
            }
        }
    }
}

/// `ValidatePortNumOrName`: a port number, or a port name.
pub(super) fn port_num_or_name(port: &IntOrString, path: &str, errs: &mut Vec<FieldError>) {
    match port {
        IntOrString::Int(n) => {
            for m in names::port_num((*n).into()) {
                errs.push(FieldError::invalid(path, n, &m));
            }
        }
        IntOrString::String(name) => invalid_each(path, name, names::port_name(name), errs),
    }
}
