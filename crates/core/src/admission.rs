//! What the API server does to an object before storing it: defaulting (SetDefaults_*), the admission plugins
//! kubeloop simulates (DefaultTolerationSeconds, Priority) and validation (ValidateDeployment, ...). Defaults live
//! here, on the server side, exactly once, so every client (kubectl, controllers) sees the same objects.

use crate::api::{
    go_quote, s, Deployment, IntOrString, Object, PodSpec, PodTemplateSpec, ReplicaSet, RollingUpdateDeployment,
    Toleration,
};

/// The tolerations DefaultTolerationSeconds adds to every pod (300 s for not-ready and unreachable).
pub const DEFAULT_TOLERATION_SECONDS: i64 = 300;
/// `kubernetes.io/metadata.name`: the label every namespace carries, its own name (v1.LabelMetadataName).
pub const LABEL_METADATA_NAME: &str = "kubernetes.io/metadata.name";

/// A validation failure on one field, as the API server reports it (`spec.replicas: Invalid value: -1: ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// `spec.template.spec.containers[0].image`
    pub path: String,
    pub message: String,
}

impl FieldError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError { path: path.into(), message: message.into() }
    }

    /// The path as segments (`["spec", "template", "spec", "containers", "0", "image"]`) to find its line.
    pub fn segments(&self) -> Vec<String> {
        self.path.replace('[', ".").replace(']', "").split('.').filter(|p| !p.is_empty()).map(String::from).collect()
    }
}

/// Fills in upstream defaults.
pub fn default_object(obj: &mut Object) {
    default_object_with(obj, DEFAULT_TOLERATION_SECONDS)
}

/// Fills in upstream defaults, with DefaultTolerationSeconds' `--default-unreachable-toleration-seconds` and
/// `--default-not-ready-toleration-seconds` set to `toleration_seconds`.
pub fn default_object_with(obj: &mut Object, toleration_seconds: i64) {
    match obj {
        Object::Pod(p) => with_spec(&mut p.spec, |spec| {
            default_pod_spec(spec);
            for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
                let has = spec.tolerations.iter().any(|t| {
                    (t.key.is_empty() && &*t.operator == "Exists")
                        || (&*t.key == key && (t.effect.is_empty() || &*t.effect == "NoExecute"))
                });
                if !has {
                    spec.tolerations.push(Toleration {
                        key: s(key),
                        operator: s("Exists"),
                        value: s(""),
                        effect: s("NoExecute"),
                        toleration_seconds: Some(toleration_seconds),
                    });
                }
            }
            spec.priority.get_or_insert(0);
        }),
        Object::ReplicaSet(rs) => {
            rs.spec.replicas.get_or_insert(1);
            default_template(&mut rs.spec.template);
        }
        Object::Deployment(d) => default_deployment(d),
        Object::Service(svc) => default_service(svc),
        // SetDefaults_EndpointPort: TCP.
        Object::EndpointSlice(e) => {
            for p in e.ports.iter_mut().flatten() {
                if p.protocol.is_empty() {
                    p.protocol = s("TCP");
                }
            }
        }
        Object::Secret(sec) => {
            // SetDefaults_Secret, and the conversion that merges the write-only stringData into data.
            if sec.type_.is_empty() {
                sec.type_ = s("Opaque");
            }
            sec.merge_string_data();
        }
        Object::Namespace(n) => {
            if n.status.phase.is_empty() {
                n.status.phase = s("Active");
            }
            // The namespace strategy's Canonicalize (and SetDefaults_Namespace): the label always names the
            // namespace, whatever a client set (NamespaceDefaultLabelName, GA since 1.22).
            let name = n.metadata.name.clone();
            if n.metadata.label(LABEL_METADATA_NAME) != Some(&*name) {
                n.metadata.labels.insert(s(LABEL_METADATA_NAME), name);
            }
        }
        _ => {}
    }
}

/// SetDefaults_Service (and the registry's IP family defaults; the cluster IP and node ports are allocated by the
/// store, which knows which are taken).
fn default_service(svc: &mut crate::api::Service) {
    let spec = &mut svc.spec;
    if spec.type_.is_empty() {
        spec.type_ = s("ClusterIP");
    }
    if spec.session_affinity.is_empty() {
        spec.session_affinity = s("None");
    }
    for p in &mut spec.ports {
        if p.protocol.is_empty() {
            p.protocol = s("TCP");
        }
        if matches!(&p.target_port, None | Some(IntOrString::Int(0)))
            || p.target_port == Some(IntOrString::String(s("")))
        {
            p.target_port = Some(IntOrString::Int(p.port));
        }
    }
    let external_name = &*spec.type_ == "ExternalName";
    if matches!(&*spec.type_, "NodePort" | "LoadBalancer") && spec.external_traffic_policy.is_empty() {
        spec.external_traffic_policy = s("Cluster");
    }
    if !external_name {
        if spec.internal_traffic_policy.is_empty() {
            spec.internal_traffic_policy = s("Cluster");
        }
        if spec.ip_family_policy.is_empty() {
            spec.ip_family_policy = s("SingleStack");
        }
        if spec.ip_families.is_empty() {
            spec.ip_families = vec![s("IPv4")];
        }
    }
}

fn default_template(t: &mut PodTemplateSpec) {
    with_spec(&mut t.spec, default_pod_spec);
}

/// Applies `f` to a shared pod spec, replacing it only if `f` changed something (so an already defaulted spec
/// stays shared between the versions of an object).
fn with_spec(spec: &mut std::rc::Rc<PodSpec>, f: impl FnOnce(&mut PodSpec)) {
    let mut next = (**spec).clone();
    f(&mut next);
    if next != **spec {
        *spec = std::rc::Rc::new(next);
    }
}

fn default_pod_spec(spec: &mut PodSpec) {
    let set = |v: &mut crate::api::Str, d: &str| {
        if v.is_empty() {
            *v = s(d);
        }
    };
    set(&mut spec.restart_policy, "Always");
    set(&mut spec.dns_policy, "ClusterFirst");
    set(&mut spec.scheduler_name, "default-scheduler");
    spec.termination_grace_period_seconds.get_or_insert(30);
    // SetDefaults_SecretVolumeSource, SetDefaults_ConfigMapVolumeSource.
    for v in &mut spec.volumes {
        if let Some(c) = &mut v.config_map {
            c.default_mode.get_or_insert(crate::api::env::DEFAULT_MODE);
        }
        if let Some(s) = &mut v.secret {
            s.default_mode.get_or_insert(crate::api::env::DEFAULT_MODE);
        }
    }
    for c in &mut spec.containers {
        if c.image_pull_policy.is_empty() {
            // SetDefaults_Container: Always for :latest or no tag, else IfNotPresent.
            let last = c.image.rsplit('/').next().unwrap_or("");
            let tag = last.split_once('@').map(|_| "digest").or_else(|| last.split_once(':').map(|(_, t)| t));
            c.image_pull_policy = s(match tag {
                None | Some("latest") => "Always",
                Some(_) => "IfNotPresent",
            });
        }
        for p in &mut c.ports {
            set(&mut p.protocol, "TCP");
        }
        for probe in [&mut c.liveness_probe, &mut c.readiness_probe, &mut c.startup_probe].into_iter().flatten() {
            probe.set_defaults();
        }
    }
}

fn default_deployment(d: &mut Deployment) {
    d.spec.replicas.get_or_insert(1);
    if d.spec.strategy.type_.is_empty() {
        d.spec.strategy.type_ = s("RollingUpdate");
    }
    if &*d.spec.strategy.type_ == "RollingUpdate" {
        let ru = d.spec.strategy.rolling_update.get_or_insert_with(RollingUpdateDeployment::default);
        ru.max_unavailable.get_or_insert(IntOrString::String(s("25%")));
        ru.max_surge.get_or_insert(IntOrString::String(s("25%")));
    }
    d.spec.revision_history_limit.get_or_insert(10);
    d.spec.progress_deadline_seconds.get_or_insert(600);
    default_template(&mut d.spec.template);
}

/// Validates an object as the API server would on create or update. Empty when valid.
pub fn validate(obj: &Object) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let m = obj.meta();
    if m.name.is_empty() && m.generate_name.is_empty() {
        errs.push(FieldError::new("metadata.name", "Required value: name or generateName is required"));
    } else if !m.name.is_empty() {
        if let Err(e) = validate_dns_name(&m.name, true) {
            errs.push(FieldError::new("metadata.name", format!("Invalid value: \"{}\": {e}", m.name)));
        }
    }
    if let Err(e) = crate::api::selector::validate_labels(&m.labels) {
        errs.push(FieldError::new("metadata.labels", e.strip_prefix("metadata.labels: ").unwrap_or(&e)));
    }
    match obj {
        Object::Pod(p) => validate_pod_spec(&p.spec, "spec", &mut errs),
        Object::ReplicaSet(rs) => {
            validate_replicas_owner(rs_parts(rs), &mut errs);
            nonnegative("spec.minReadySeconds", rs.spec.min_ready_seconds.into(), &mut errs);
        }
        Object::Deployment(d) => {
            validate_replicas_owner((d.spec.replicas, &d.spec.selector, &d.spec.template), &mut errs);
            validate_strategy(d, &mut errs);
            // ValidateDeploymentSpec, after the strategy.
            nonnegative("spec.minReadySeconds", d.spec.min_ready_seconds.into(), &mut errs);
            if let Some(limit) = d.spec.revision_history_limit {
                nonnegative("spec.revisionHistoryLimit", limit.into(), &mut errs);
            }
            if let Some(deadline) = d.spec.progress_deadline_seconds {
                nonnegative("spec.progressDeadlineSeconds", deadline.into(), &mut errs);
                if deadline <= d.spec.min_ready_seconds {
                    errs.push(FieldError::new(
                        "spec.progressDeadlineSeconds",
                        format!("Invalid value: {deadline}: must be greater than minReadySeconds"),
                    ));
                }
            }
        }
        Object::ConfigMap(cm) => {
            // ValidateConfigMap: keys, a key in both maps, and 1 MiB in all.
            let mut size = 0usize;
            for (k, v) in &cm.data {
                config_key("data", k, &mut errs);
                size = size.saturating_add(k.len() + v.len());
            }
            for (k, v) in &cm.binary_data {
                config_key("binaryData", k, &mut errs);
                if cm.data.contains_key(k) {
                    errs.push(FieldError::new(
                        format!("data[{k}]"),
                        format!("Invalid value: {}: duplicate of key present in binaryData", go_quote(k)),
                    ));
                }
                // The bytes, not their base64 text.
                size = size.saturating_add(k.len() + v.len() / 4 * 3);
            }
            data_size(size, &mut errs);
        }
        Object::Service(svc) => validate_service(svc, &mut errs),
        Object::PodDisruptionBudget(pdb) => validate_pdb(pdb, &mut errs),
        Object::EndpointSlice(e) => validate_endpoint_slice(e, &mut errs),
        Object::Secret(sec) => {
            let mut size = 0usize;
            for (k, v) in &sec.data {
                config_key("data", k, &mut errs);
                size = size.saturating_add(k.len() + v.len() / 4 * 3);
            }
            data_size(size, &mut errs);
            validate_secret_type(sec, &mut errs);
        }
        Object::Node(n) => {
            // ValidateNode: capacity and allocatable quantities are validated like a container's.
            for (field, list) in [("capacity", &n.status.capacity), ("allocatable", &n.status.allocatable)] {
                for (res, q) in list {
                    nonnegative_quantity(&format!("status.{field}[{res}]"), q, &mut errs);
                }
            }
            for (i, t) in n.spec.taints.iter().enumerate() {
                if !matches!(&*t.effect, "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
                    errs.push(FieldError::new(
                        format!("spec.taints[{i}].effect"),
                        format!("Unsupported value: \"{}\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"", t.effect),
                    ));
                }
                if t.key.is_empty() {
                    errs.push(FieldError::new(format!("spec.taints[{i}].key"), "Required value"));
                }
            }
        }
        _ => {}
    }
    errs
}

/// ValidateService: the type, the ports (range, protocol, names), ExternalName's name, node ports only where the
/// type has them.
fn validate_service(svc: &crate::api::Service, errs: &mut Vec<FieldError>) {
    let spec = &svc.spec;
    let ty = &*spec.type_;
    if !matches!(ty, "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName") {
        errs.push(FieldError::new(
            "spec.type",
            format!("Unsupported value: {}: supported values: \"ClusterIP\", \"ExternalName\", \"LoadBalancer\", \"NodePort\"", go_quote(ty)),
        ));
    }
    if ty == "ExternalName" {
        if spec.external_name.is_empty() {
            errs.push(FieldError::new("spec.externalName", "Required value"));
        }
    } else if spec.ports.is_empty() {
        errs.push(FieldError::new("spec.ports", "Required value"));
    }
    let mut names: Vec<&str> = Vec::new();
    for (i, p) in spec.ports.iter().enumerate() {
        let at = |f: &str| format!("spec.ports[{i}].{f}");
        if spec.ports.len() > 1 && p.name.is_empty() {
            errs.push(FieldError::new(at("name"), "Required value"));
        } else if !p.name.is_empty() {
            if names.contains(&&*p.name) {
                errs.push(FieldError::new(at("name"), format!("Duplicate value: {}", go_quote(&p.name))));
            }
            names.push(&p.name);
        }
        if !(1..=65535).contains(&p.port) {
            errs.push(FieldError::new(
                at("port"),
                format!("Invalid value: {}: must be between 1 and 65535, inclusive", p.port),
            ));
        }
        if !matches!(&*p.protocol, "TCP" | "UDP" | "SCTP") {
            errs.push(FieldError::new(
                at("protocol"),
                format!("Unsupported value: {}: supported values: \"SCTP\", \"TCP\", \"UDP\"", go_quote(&p.protocol)),
            ));
        }
        if let Some(IntOrString::Int(t)) = p.target_port {
            if !(1..=65535).contains(&t) {
                errs.push(FieldError::new(
                    at("targetPort"),
                    format!("Invalid value: {t}: must be between 1 and 65535, inclusive"),
                ));
            }
        }
        if p.node_port != 0 && ty == "ClusterIP" {
            errs.push(FieldError::new(at("nodePort"), "Forbidden: may not be used when `type` is 'ClusterIP'"));
        }
    }
}

/// validateLivenessProbe / validateReadinessProbe / validateStartupProbe and validateProbe, with the handler's
/// checks (validateHandler: exactly one handler type; ports 1-65535; HTTP or HTTPS).
fn validate_probe(p: &crate::api::Probe, t: crate::api::ProbeType, path: &str, errs: &mut Vec<FieldError>) {
    use crate::api::ProbeType;
    let handlers = p.handlers();
    match handlers.as_slice() {
        [] => errs.push(FieldError::new(path, "Required value: must specify a handler type")),
        [_, second, ..] => errs
            .push(FieldError::new(format!("{path}.{second}"), "Forbidden: may not specify more than 1 handler type")),
        [_] => {}
    }
    let port = |field: &str, v: &IntOrString, errs: &mut Vec<FieldError>| match v {
        IntOrString::Int(n) if !(1..=65535).contains(n) => errs.push(FieldError::new(
            format!("{path}.{field}.port"),
            format!("Invalid value: {n}: must be between 1 and 65535, inclusive"),
        )),
        IntOrString::String(n) if !valid_port_name(n) => errs.push(FieldError::new(
            format!("{path}.{field}.port"),
            format!(
                "Invalid value: {}: must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
                go_quote(&crate::limits::echo(n))
            ),
        )),
        _ => {}
    };
    if let Some(e) = &p.exec {
        if e.command.is_empty() {
            errs.push(FieldError::new(format!("{path}.exec.command"), "Required value"));
        }
    }
    if let Some(h) = &p.http_get {
        if h.path.is_empty() {
            errs.push(FieldError::new(format!("{path}.httpGet.path"), "Required value"));
        }
        port("httpGet", &h.port, errs);
        if !matches!(&*h.scheme, "HTTP" | "HTTPS") {
            errs.push(FieldError::new(
                format!("{path}.httpGet.scheme"),
                format!(
                    "Unsupported value: {}: supported values: \"HTTP\", \"HTTPS\"",
                    go_quote(&crate::limits::echo(&h.scheme))
                ),
            ));
        }
    }
    if let Some(tcp) = &p.tcp_socket {
        port("tcpSocket", &tcp.port, errs);
    }
    if let Some(g) = &p.grpc {
        port("grpc", &IntOrString::Int(g.port), errs);
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
    if let Some(g) = p.termination_grace_period_seconds {
        if t == ProbeType::Readiness {
            errs.push(FieldError::new(
                format!("{path}.terminationGracePeriodSeconds"),
                format!("Invalid value: {g}: must not be set for readinessProbes"),
            ));
        } else if g <= 0 {
            errs.push(FieldError::new(
                format!("{path}.terminationGracePeriodSeconds"),
                format!("Invalid value: {g}: must be greater than 0"),
            ));
        }
    }
    if t != ProbeType::Readiness && p.success_threshold != 1 {
        errs.push(FieldError::new(
            format!("{path}.successThreshold"),
            format!("Invalid value: {}: must be 1", p.success_threshold),
        ));
    }
}

/// `IsValidPortName`: at most 15 characters, lower-case letters, digits and single inner hyphens, with a letter.
fn valid_port_name(n: &str) -> bool {
    n.len() <= 15
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && n.bytes().any(|b| b.is_ascii_lowercase())
        && !n.starts_with('-')
        && !n.ends_with('-')
        && !n.contains("--")
}

/// `IsConfigMapKey`, for a key of a ConfigMap's or a Secret's `field`.
fn config_key(field: &str, key: &str, errs: &mut Vec<FieldError>) {
    let why = if key.len() > 253 {
        "must be no more than 253 characters"
    } else if key.is_empty() || !key.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')) {
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
    } else if key == "." {
        "must not be '.'"
    } else if key == ".." {
        "must not be '..'"
    } else if key.starts_with("..") {
        "must not start with '..'"
    } else {
        return;
    };
    errs.push(FieldError::new(format!("{field}[{key}]"), format!("Invalid value: {}: {why}", go_quote(key))));
}

/// A ConfigMap or a Secret holds at most 1 MiB (`MaxSecretSize`).
fn data_size(size: usize, errs: &mut Vec<FieldError>) {
    const MAX: usize = 1 << 20;
    if size > MAX {
        errs.push(FieldError::new("", format!("Too long: may not be more than {MAX} bytes")));
    }
}

/// The keys each built-in Secret type requires (`ValidateSecret`).
fn validate_secret_type(sec: &crate::api::Secret, errs: &mut Vec<FieldError>) {
    let required: &[&str] = match &*sec.type_ {
        "kubernetes.io/dockercfg" => &[".dockercfg"],
        "kubernetes.io/dockerconfigjson" => &[".dockerconfigjson"],
        "kubernetes.io/ssh-auth" => &["ssh-privatekey"],
        "kubernetes.io/tls" => &["tls.crt", "tls.key"],
        "kubernetes.io/basic-auth" => {
            if !sec.data.contains_key("username") && !sec.data.contains_key("password") {
                errs.push(FieldError::new("data[username]", "Required value"));
                errs.push(FieldError::new("data[password]", "Required value"));
            }
            &[]
        }
        "kubernetes.io/service-account-token" => {
            if sec.metadata.annotations.get("kubernetes.io/service-account.name").is_none_or(|v| v.is_empty()) {
                errs.push(FieldError::new(
                    "metadata.annotations[kubernetes.io/service-account.name]",
                    "Required value",
                ));
            }
            &[]
        }
        _ => &[],
    };
    for key in required {
        if !sec.data.contains_key(key) {
            errs.push(FieldError::new(format!("data[{key}]"), "Required value"));
        }
    }
}

/// `ValidateNonnegativeField`: `Invalid value: -1: must be greater than or equal to 0`.
fn nonnegative(path: &str, v: i64, errs: &mut Vec<FieldError>) {
    if v < 0 {
        errs.push(FieldError::new(path, format!("Invalid value: {v}: {NEGATIVE}")));
    }
}

/// `ValidateNonnegativeQuantity`: `Invalid value: "-1": must be greater than or equal to 0`.
fn nonnegative_quantity(path: &str, q: &crate::api::Quantity, errs: &mut Vec<FieldError>) {
    if q.is_negative() {
        errs.push(FieldError::new(
            path,
            format!("Invalid value: {}: {NEGATIVE}", go_quote(&crate::limits::echo(q.as_str()))),
        ));
    }
}

/// Upstream's `isNegativeErrorMsg`.
const NEGATIVE: &str = "must be greater than or equal to 0";

fn rs_parts(rs: &ReplicaSet) -> (Option<i32>, &crate::api::LabelSelector, &PodTemplateSpec) {
    (rs.spec.replicas, &rs.spec.selector, &rs.spec.template)
}

fn validate_replicas_owner(
    (replicas, selector, template): (Option<i32>, &crate::api::LabelSelector, &PodTemplateSpec),
    errs: &mut Vec<FieldError>,
) {
    if let Some(r) = replicas {
        if r < 0 {
            errs.push(FieldError::new(
                "spec.replicas",
                format!("Invalid value: {r}: must be greater than or equal to 0"),
            ));
        }
    }
    if selector.is_empty() {
        errs.push(FieldError::new("spec.selector", "Required value"));
    } else if let Err(e) = selector.validate() {
        errs.push(FieldError::new("spec.selector", e));
    } else if !selector.matches(&template.metadata.labels) {
        let labels: Vec<String> = template.metadata.labels.iter().map(|(k, v)| format!("\"{k}\":\"{v}\"")).collect();
        errs.push(FieldError::new(
            "spec.template.metadata.labels",
            format!(
                "Invalid value: map[string]string{{{}}}: `selector` does not match template `labels`",
                labels.join(", ")
            ),
        ));
    }
    validate_pod_spec(&template.spec, "spec.template.spec", errs);
}

fn validate_strategy(d: &Deployment, errs: &mut Vec<FieldError>) {
    match &*d.spec.strategy.type_ {
        "" | "RollingUpdate" => {
            // ValidateRollingUpdateDeployment.
            if let Some(ru) = &d.spec.strategy.rolling_update {
                let field = |name: &str| format!("spec.strategy.rollingUpdate.{name}");
                for (name, v) in [("maxUnavailable", &ru.max_unavailable), ("maxSurge", &ru.max_surge)] {
                    let Some(v) = v else { continue };
                    // ValidatePositiveIntOrPercent
                    match v {
                        IntOrString::Int(x) => nonnegative(&field(name), (*x).into(), errs),
                        IntOrString::String(_) if !v.is_valid_percent() => {
                            errs.push(FieldError::new(field(name), format!("Invalid value: {}: {PERCENT}", go_repr(v))))
                        }
                        IntOrString::String(_) => {}
                    }
                }
                // Both may not be 0 (getIntOrPercentValue: a percent's number, else the int).
                let zero = |v: &Option<IntOrString>| v.as_ref().is_some_and(|v| int_or_percent_value(v) == 0);
                if zero(&ru.max_unavailable) && zero(&ru.max_surge) {
                    if let Some(v) = &ru.max_unavailable {
                        errs.push(FieldError::new(
                            field("maxUnavailable"),
                            format!("Invalid value: {}: may not be 0 when `maxSurge` is 0", go_repr(v)),
                        ));
                    }
                }
                // IsNotMoreThan100Percent
                if let Some(v) = &ru.max_unavailable {
                    if v.is_valid_percent() && v.percent().is_some_and(|p| p > 100) {
                        errs.push(FieldError::new(
                            field("maxUnavailable"),
                            format!("Invalid value: {}: must not be greater than 100%", go_repr(v)),
                        ));
                    }
                }
            }
        }
        "Recreate" => {
            if d.spec.strategy.rolling_update.is_some() {
                errs.push(FieldError::new(
                    "spec.strategy.rollingUpdate",
                    "Forbidden: may not be specified when strategy `type` is 'Recreate'",
                ));
            }
        }
        other => errs.push(FieldError::new(
            "spec.strategy.type",
            format!("Unsupported value: \"{other}\": supported values: \"Recreate\", \"RollingUpdate\""),
        )),
    }
}

/// ValidateEndpointSlice: the address type, at most 1000 endpoints of 1 to 100 addresses each (IP addresses of
/// that family), at most 100 ports with unique names, known protocols and numbers in range.
fn validate_endpoint_slice(e: &crate::api::EndpointSlice, errs: &mut Vec<FieldError>) {
    let ty = &*e.address_type;
    match ty {
        "" => errs.push(FieldError::new("addressType", "Required value")),
        "IPv4" | "IPv6" | "FQDN" => {}
        other => errs.push(FieldError::new(
            "addressType",
            format!(
                "Unsupported value: {}: supported values: \"FQDN\", \"IPv4\", \"IPv6\"",
                go_quote(&crate::limits::echo(other))
            ),
        )),
    }
    let endpoints = e.endpoints();
    if endpoints.len() > 1000 {
        errs.push(FieldError::new("endpoints", format!("Too many: {}: must have at most 1000 items", endpoints.len())));
    }
    for (i, ep) in endpoints.iter().enumerate().take(1000) {
        let at = format!("endpoints[{i}].addresses");
        if ep.addresses.is_empty() {
            errs.push(FieldError::new(at, "Required value: must contain at least 1 address"));
        } else if ep.addresses.len() > 100 {
            errs.push(FieldError::new(at, format!("Too many: {}: must have at most 100 items", ep.addresses.len())));
        } else {
            for (j, a) in ep.addresses.iter().enumerate() {
                let ok = match ty {
                    "IPv4" => a.parse::<std::net::Ipv4Addr>().is_ok(),
                    "IPv6" => a.parse::<std::net::Ipv6Addr>().is_ok(),
                    _ => true,
                };
                if !ok {
                    errs.push(FieldError::new(
                        format!("{at}[{j}]"),
                        format!("Invalid value: {}: must be a valid {ty} address", go_quote(&crate::limits::echo(a))),
                    ));
                }
            }
        }
    }
    let ports = e.ports();
    if ports.len() > 100 {
        errs.push(FieldError::new("ports", format!("Too many: {}: must have at most 100 items", ports.len())));
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, p) in ports.iter().enumerate().take(100) {
        if !p.name.is_empty() && validate_dns_name(&p.name, false).is_err() {
            errs.push(FieldError::new(
                format!("ports[{i}].name"),
                format!("Invalid value: {}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", go_quote(&crate::limits::echo(&p.name))),
            ));
        } else if !names.insert(p.name.clone()) {
            errs.push(FieldError::new(format!("ports[{i}].name"), format!("Duplicate value: {}", go_quote(&p.name))));
        }
        if !matches!(&*p.protocol, "TCP" | "UDP" | "SCTP") {
            errs.push(FieldError::new(
                format!("ports[{i}].protocol"),
                format!(
                    "Unsupported value: {}: supported values: \"SCTP\", \"TCP\", \"UDP\"",
                    go_quote(&crate::limits::echo(&p.protocol))
                ),
            ));
        }
        if let Some(n) = p.port {
            if !(1..=65535).contains(&n) {
                errs.push(FieldError::new(
                    format!("ports[{i}].port"),
                    format!("Invalid value: {n}: must be between 1 and 65535, inclusive"),
                ));
            }
        }
    }
}

/// ValidatePodDisruptionBudgetSpec: not both minAvailable and maxUnavailable, each a non-negative number or a
/// percentage of at most 100%, a valid selector, a known unhealthy pod eviction policy.
fn validate_pdb(pdb: &crate::api::PodDisruptionBudget, errs: &mut Vec<FieldError>) {
    let spec = &pdb.spec;
    if spec.min_available.is_some() && spec.max_unavailable.is_some() {
        // Upstream prints the whole spec (Go's %#v, with pointer addresses); kubeloop names it.
        errs.push(FieldError::new(
            "spec",
            "Invalid value: policy.PodDisruptionBudgetSpec{...}: minAvailable and maxUnavailable cannot be both set",
        ));
    }
    for (name, v) in [("minAvailable", &spec.min_available), ("maxUnavailable", &spec.max_unavailable)] {
        let Some(v) = v else { continue };
        let field = format!("spec.{name}");
        match v {
            IntOrString::Int(x) => nonnegative(&field, (*x).into(), errs),
            IntOrString::String(_) if !v.is_valid_percent() => {
                errs.push(FieldError::new(field, format!("Invalid value: {}: {PERCENT}", go_repr(v))))
            }
            IntOrString::String(_) => {
                if v.percent().is_some_and(|p| p > 100) {
                    errs.push(FieldError::new(
                        field,
                        format!("Invalid value: {}: must not be greater than 100%", go_repr(v)),
                    ));
                }
            }
        }
    }
    if let Some(sel) = &spec.selector {
        if let Err(e) = sel.validate() {
            errs.push(FieldError::new("spec.selector", e));
        }
    }
    if !matches!(&*spec.unhealthy_pod_eviction_policy, "" | "IfHealthyBudget" | "AlwaysAllow") {
        errs.push(FieldError::new(
            "spec.unhealthyPodEvictionPolicy",
            format!(
                "Unsupported value: {}: supported values: \"AlwaysAllow\", \"IfHealthyBudget\"",
                go_quote(&crate::limits::echo(&spec.unhealthy_pod_eviction_policy))
            ),
        ));
    }
}

/// `validation.IsValidPercent`'s message (a `RegexError`).
const PERCENT: &str = "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%', or '93%', regex used for validation is '[0-9]+%')";

/// An IntOrString as a field error shows it (Go's `%#v`), its text cut like any echoed user text.
fn go_repr(v: &IntOrString) -> String {
    match v {
        IntOrString::String(s) => IntOrString::String(crate::api::s(&crate::limits::echo(s))).go_repr(),
        IntOrString::Int(_) => v.go_repr(),
    }
}

/// `getIntOrPercentValue`: a valid percent's number, else `IntValue()` (an int, or a string's `Atoi`, 0 when it
/// is not a number).
fn int_or_percent_value(v: &IntOrString) -> i64 {
    match v {
        IntOrString::Int(x) => (*x).into(),
        IntOrString::String(_) if v.is_valid_percent() => v.percent().unwrap_or(0),
        IntOrString::String(s) => s.parse().unwrap_or(0),
    }
}

fn validate_pod_spec(spec: &PodSpec, path: &str, errs: &mut Vec<FieldError>) {
    if spec.containers.is_empty() {
        errs.push(FieldError::new(format!("{path}.containers"), "Required value"));
    }
    let mut names = std::collections::BTreeSet::new();
    for (i, c) in spec.containers.iter().enumerate() {
        let at = |f: &str| format!("{path}.containers[{i}].{f}");
        if c.name.is_empty() {
            errs.push(FieldError::new(at("name"), "Required value"));
        } else if validate_dns_name(&c.name, false).is_err() {
            errs.push(FieldError::new(
                at("name"),
                format!("Invalid value: \"{}\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", c.name),
            ));
        } else if !names.insert(c.name.clone()) {
            errs.push(FieldError::new(at("name"), format!("Duplicate value: \"{}\"", c.name)));
        }
        if c.image.trim().is_empty() {
            errs.push(FieldError::new(at("image"), "Required value"));
        }
        // ValidateResourceRequirements: limits, then requests (each non-negative, a request at most its limit).
        for (res, q) in &c.resources.limits {
            nonnegative_quantity(&format!("{path}.containers[{i}].resources.limits[{res}]"), q, errs);
        }
        for (res, q) in &c.resources.requests {
            nonnegative_quantity(&format!("{path}.containers[{i}].resources.requests[{res}]"), q, errs);
            if let Some(limit) = c.resources.limits.get(res) {
                if q > limit {
                    errs.push(FieldError::new(
                        format!("{path}.containers[{i}].resources.requests"),
                        format!("Invalid value: \"{q}\": must be less than or equal to {res} limit of {limit}"),
                    ));
                }
            }
        }
    }
    // ValidateVolumes: a DNS label each, unique.
    let mut volume_names = std::collections::BTreeSet::new();
    for (i, v) in spec.volumes.iter().enumerate() {
        let at = format!("{path}.volumes[{i}].name");
        if v.name.is_empty() {
            errs.push(FieldError::new(at, "Required value"));
        } else if validate_dns_name(&v.name, false).is_err() {
            errs.push(FieldError::new(
                at,
                format!("Invalid value: {}: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", go_quote(&crate::limits::echo(&v.name))),
            ));
        } else if !volume_names.insert(v.name.clone()) {
            errs.push(FieldError::new(at, format!("Duplicate value: {}", go_quote(&v.name))));
        }
    }
    for (i, c) in spec.containers.iter().enumerate() {
        // ValidateEnv: a name each; a value or a source, not both.
        for (j, e) in c.env.iter().enumerate() {
            let at = format!("{path}.containers[{i}].env[{j}]");
            if e.name.is_empty() {
                errs.push(FieldError::new(format!("{at}.name"), "Required value"));
            }
            if let Some(src) = &e.value_from {
                for (field, sel) in
                    [("configMapKeyRef", &src.config_map_key_ref), ("secretKeyRef", &src.secret_key_ref)]
                {
                    if sel.as_ref().is_some_and(|s| s.key.is_empty()) {
                        errs.push(FieldError::new(format!("{at}.valueFrom.{field}.key"), "Required value"));
                    }
                }
            }
            if e.value_from.is_some() && !e.value.is_empty() {
                errs.push(FieldError::new(
                    format!("{at}.valueFrom"),
                    "Invalid value: \"\": may not be specified when `value` is not empty",
                ));
            }
        }
        for t in [crate::api::ProbeType::Liveness, crate::api::ProbeType::Readiness, crate::api::ProbeType::Startup] {
            if let Some(p) = c.probe(t) {
                validate_probe(p, t, &format!("{path}.containers[{i}].{}Probe", t.lower()), errs);
            }
        }
    }
    if !matches!(&*spec.restart_policy, "" | "Always" | "OnFailure" | "Never") {
        errs.push(FieldError::new(
            format!("{path}.restartPolicy"),
            format!(
                "Unsupported value: \"{}\": supported values: \"Always\", \"OnFailure\", \"Never\"",
                spec.restart_policy
            ),
        ));
    }
    if let Some(grace) = spec.termination_grace_period_seconds {
        nonnegative(&format!("{path}.terminationGracePeriodSeconds"), grace, errs);
    }
    for (i, t) in spec.tolerations.iter().enumerate() {
        if !matches!(&*t.operator, "" | "Equal" | "Exists") {
            errs.push(FieldError::new(
                format!("{path}.tolerations[{i}].operator"),
                format!("Unsupported value: \"{}\": supported values: \"Equal\", \"Exists\"", t.operator),
            ));
        }
        if &*t.operator == "Exists" && !t.value.is_empty() {
            errs.push(FieldError::new(
                format!("{path}.tolerations[{i}].operator"),
                format!("Invalid value: \"{}\": value must be empty when `operator` is 'Exists'", t.value),
            ));
        }
        if !matches!(&*t.effect, "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute") {
            errs.push(FieldError::new(
                format!("{path}.tolerations[{i}].effect"),
                format!(
                    "Unsupported value: {}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"",
                    go_quote(&crate::limits::echo(&t.effect))
                ),
            ));
        }
        // TolerationSeconds only valid for NoExecute.
        if t.toleration_seconds.is_some() && &*t.effect != "NoExecute" {
            errs.push(FieldError::new(
                format!("{path}.tolerations[{i}].effect"),
                format!(
                    "Invalid value: {}: effect must be 'NoExecute' when `tolerationSeconds` is set",
                    go_quote(&crate::limits::echo(&t.effect))
                ),
            ));
        }
    }
}

/// RFC 1123 subdomain (`subdomain = true`, up to 253 chars, dots allowed) or label (63 chars, no dots).
fn validate_dns_name(name: &str, subdomain: bool) -> Result<(), String> {
    let max = if subdomain { 253 } else { 63 };
    if name.len() > max {
        return Err(format!("must be no more than {max} characters"));
    }
    let ok_part = |p: &str| {
        !p.is_empty()
            && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && p.as_bytes()[0].is_ascii_alphanumeric()
            && p.as_bytes()[p.len() - 1].is_ascii_alphanumeric()
    };
    let valid = if subdomain { name.split('.').all(ok_part) } else { ok_part(name) };
    if valid {
        Ok(())
    } else if subdomain {
        Err("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into())
    } else {
        Err("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character".into())
    }
}

/// The `422 Invalid` message for a set of field errors:
/// `Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`.
pub fn invalid_message(obj: &Object, errs: &[FieldError]) -> String {
    let kind = match obj.kind() {
        crate::api::Kind::Deployment | crate::api::Kind::ReplicaSet => format!("{}.apps", obj.kind().name()),
        k => k.name().to_string(),
    };
    let list: Vec<String> = errs.iter().map(|e| format!("{}: {}", e.path, e.message)).collect();
    let body = if list.len() == 1 { list[0].clone() } else { format!("[{}]", list.join(", ")) };
    format!("{kind} \"{}\" is invalid: {body}", obj.meta().name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Container, LabelSelector, Pod};

    fn deployment() -> Deployment {
        let mut d = Deployment::default();
        d.metadata.name = s("web");
        d.spec.selector = LabelSelector::default();
        d.spec.selector.match_labels.insert(s("app"), s("web"));
        d.spec.template.metadata.labels.insert(s("app"), s("web"));
        std::rc::Rc::make_mut(&mut d.spec.template.spec).containers.push(Container {
            name: s("nginx"),
            image: s("nginx:1.27"),
            ..Default::default()
        });
        d
    }

    #[test]
    fn deployment_defaults_are_upstream() {
        let mut o = Object::Deployment(deployment());
        default_object(&mut o);
        let d = o.as_deployment().cloned().unwrap_or_default();
        assert_eq!(d.spec.replicas, Some(1));
        assert_eq!(&*d.spec.strategy.type_, "RollingUpdate");
        let ru = d.spec.strategy.rolling_update.unwrap_or_default();
        assert_eq!(ru.max_surge, Some(IntOrString::String(s("25%"))));
        assert_eq!(ru.max_unavailable, Some(IntOrString::String(s("25%"))));
        assert_eq!(d.spec.revision_history_limit, Some(10));
        assert_eq!(d.spec.progress_deadline_seconds, Some(600));
        assert_eq!(&*d.spec.template.spec.containers[0].image_pull_policy, "IfNotPresent");
        assert_eq!(d.spec.template.spec.termination_grace_period_seconds, Some(30));
        assert!(d.spec.template.spec.tolerations.is_empty(), "tolerations are added to pods, not templates");
    }

    #[test]
    fn pods_get_default_tolerations_of_300_seconds() {
        let mut p = Pod::default();
        std::rc::Rc::make_mut(&mut p.spec).containers.push(Container {
            name: s("c"),
            image: s("busybox"),
            ..Default::default()
        });
        let mut o = Object::Pod(p);
        default_object(&mut o);
        let p = o.as_pod().cloned().unwrap_or_default();
        assert_eq!(p.spec.tolerations.len(), 2);
        assert!(p.spec.tolerations.iter().all(|t| t.toleration_seconds == Some(300) && &*t.effect == "NoExecute"));
        assert_eq!(&*p.spec.containers[0].image_pull_policy, "Always");
        default_object(&mut o);
        assert_eq!(o.as_pod().map(|p| p.spec.tolerations.len()), Some(2), "defaulting is idempotent");
    }

    #[test]
    fn validation_reports_fields_like_the_api_server() {
        let mut d = deployment();
        d.spec.replicas = Some(-1);
        std::rc::Rc::make_mut(&mut d.spec.template.spec).containers[0].image = s("");
        d.spec.template.metadata.labels.insert(s("app"), s("other"));
        let o = Object::Deployment(d);
        let errs = validate(&o);
        let paths: Vec<&str> = errs.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["spec.replicas", "spec.template.metadata.labels", "spec.template.spec.containers[0].image"]);
        assert_eq!(errs[2].segments(), ["spec", "template", "spec", "containers", "0", "image"]);
        let msg = invalid_message(&o, &errs[..1]);
        assert_eq!(
            msg,
            "Deployment.apps \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
        );
        assert!(validate(&Object::Deployment(deployment())).is_empty());
    }

    #[test]
    fn recreate_forbids_rolling_update_parameters() {
        let mut d = deployment();
        d.spec.strategy.type_ = s("Recreate");
        d.spec.strategy.rolling_update = Some(RollingUpdateDeployment::default());
        let errs = validate(&Object::Deployment(d));
        assert_eq!(errs.len(), 1);
        assert!(errs[0].message.contains("Recreate"));
    }
}
