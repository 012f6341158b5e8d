//! What the API server does to an object before storing it: defaulting (SetDefaults_*), the admission plugins
//! kubeloop simulates (DefaultTolerationSeconds, Priority) and validation (ValidateDeployment, ...). Defaults live
//! here, on the server side, exactly once, so every client (kubectl, controllers) sees the same objects.
//!
//! Validation is upstream's, kind by kind, in one submodule per API group's `validation.go`: the metadata every
//! object has ([`meta`]), pods and their templates ([`pod`]), Deployments and ReplicaSets ([`apps`]), Services
//! ([`service`]), ConfigMaps and Secrets ([`config`]), Nodes and Namespaces ([`cluster`]), budgets ([`policy`]),
//! EndpointSlices ([`discovery`]). A refusal is an [`Invalid`]: its field errors, worded and ordered as upstream's.

mod apps;
mod batch;
mod cluster;
mod config;
mod discovery;
mod meta;
mod pod;
mod policy;
mod service;

pub use apps::go_selector;
pub(crate) use apps::stateful_set_update;
pub use meta::{annotations_size, ANNOTATIONS_MAX_BYTES};

use crate::api::{
    go_quote, s, Deployment, IntOrString, Kind, Object, PodSpec, PodTemplateSpec, RollingUpdateDeployment, Toleration,
};

/// The tolerations DefaultTolerationSeconds adds to every pod (300 s for not-ready and unreachable).
pub const DEFAULT_TOLERATION_SECONDS: i64 = 300;
/// `kubernetes.io/metadata.name`: the label every namespace carries, its own name (v1.LabelMetadataName).
pub const LABEL_METADATA_NAME: &str = "kubernetes.io/metadata.name";

/// Fills in upstream defaults, and what the API server sets before it validates a new object: a Job's generated
/// selector and labels, from a UID of the server's shape (any UID validates alike). Clients check an object with
/// it before they send it.
pub fn default_object(obj: &mut Object) {
    default_object_with(obj, DEFAULT_TOLERATION_SECONDS);
    if let Object::Job(j) = obj {
        if j.metadata.uid.is_empty() {
            let uid = s(PLACEHOLDER_UID);
            crate::api::job::generate_selector(j, &uid);
            j.metadata.uid = uid;
        }
    }
}

/// The UID a client's check of a new Job stands in for the one the server will make.
const PLACEHOLDER_UID: &str = "00000000-0000-4000-8000-000000000000";

/// Fills in upstream defaults, with DefaultTolerationSeconds' `--default-unreachable-toleration-seconds` and
/// `--default-not-ready-toleration-seconds` set to `toleration_seconds`.
pub(crate) fn default_object_with(obj: &mut Object, toleration_seconds: i64) {
    match obj {
        // Only the spec (the store shares the result between pods made from one spec: `Store::default_pod_spec`).
        Object::Pod(p) => default_pod_spec_with(&mut p.spec, toleration_seconds),
        Object::ReplicaSet(rs) => {
            rs.spec.replicas.get_or_insert(1);
            default_template(&mut rs.spec.template);
        }
        Object::Deployment(d) => default_deployment(d),
        Object::DaemonSet(ds) => default_daemon_set(ds),
        Object::StatefulSet(sts) => default_stateful_set(sts),
        Object::Stored(o) if o.kind == Kind::PersistentVolumeClaim => default_claim(&mut o.fields),
        Object::Job(j) => default_job(j),
        Object::CronJob(c) => default_cronjob(c),
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
/// A pod's spec defaulted: SetDefaults_PodSpec and DefaultTolerationSeconds' two tolerations (a new spec only when
/// something changed).
pub(crate) fn default_pod_spec_with(spec: &mut std::rc::Rc<PodSpec>, toleration_seconds: i64) {
    with_spec(spec, |spec| {
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
        // SetDefaults_Pod: a container's limits are its requests where it names none.
        if spec.containers.iter().any(|c| c.resources.limits.keys().any(|k| !c.resources.requests.contains_key(k))) {
            for c in spec.containers.iter_mut() {
                let limits = c.resources.limits.clone();
                for (k, v) in limits {
                    c.resources.requests.entry(k).or_insert(v);
                }
            }
        }
        spec.priority.get_or_insert(0);
        // A negative grace period is treated as 1 (kubernetes/kubernetes#115606; the server warns, templates keep
        // what was written).
        if spec.termination_grace_period_seconds.is_some_and(|g| g < 0) {
            spec.termination_grace_period_seconds = Some(1);
        }
    })
}

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
    // The containers are shared with the spec's copies: written only when one misses something.
    if spec.containers.iter().any(container_needs_defaults) {
        for c in &mut spec.containers {
            default_container(c);
        }
    }
}

/// SetDefaults_Container, its ports' and its probes'.
fn default_container(c: &mut crate::api::Container) {
    if c.image_pull_policy.is_empty() {
        // Always for :latest or no tag, else IfNotPresent.
        let last = c.image.rsplit('/').next().unwrap_or("");
        let tag = last.split_once('@').map(|_| "digest").or_else(|| last.split_once(':').map(|(_, t)| t));
        c.image_pull_policy = s(match tag {
            None | Some("latest") => "Always",
            Some(_) => "IfNotPresent",
        });
    }
    for p in &mut c.ports {
        if p.protocol.is_empty() {
            p.protocol = s("TCP");
        }
    }
    for probe in [&mut c.liveness_probe, &mut c.readiness_probe, &mut c.startup_probe].into_iter().flatten() {
        probe.set_defaults();
    }
    for hook in hooks_mut(c) {
        hook.set_defaults();
    }
}

/// A container's lifecycle hooks (postStart, preStop).
fn hooks_mut(c: &mut crate::api::Container) -> impl Iterator<Item = &mut crate::api::LifecycleHandler> {
    c.lifecycle.iter_mut().flat_map(|l| [&mut l.post_start, &mut l.pre_stop]).flatten()
}

/// Whether [`default_container`] would change `c`.
fn container_needs_defaults(c: &crate::api::Container) -> bool {
    let probes = [&c.liveness_probe, &c.readiness_probe, &c.startup_probe];
    c.image_pull_policy.is_empty()
        || c.ports.iter().any(|p| p.protocol.is_empty())
        || probes.into_iter().flatten().any(|p| p.needs_defaults())
        || c.lifecycle
            .iter()
            .flat_map(|l| [&l.post_start, &l.pre_stop])
            .flatten()
            .any(|h| h.http_get.as_ref().is_some_and(|g| g.path.is_empty() || g.scheme.is_empty()))
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

/// SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10, and the
/// template's defaults.
fn default_daemon_set(ds: &mut crate::api::DaemonSet) {
    let u = &mut ds.spec.update_strategy;
    if u.type_.is_empty() {
        u.type_ = s("RollingUpdate");
    }
    if &*u.type_ == "RollingUpdate" {
        let ru = u.rolling_update.get_or_insert_with(RollingUpdateDeployment::default);
        ru.max_unavailable.get_or_insert(IntOrString::Int(1));
        ru.max_surge.get_or_insert(IntOrString::Int(0));
    }
    ds.spec.revision_history_limit.get_or_insert(10);
    default_template(&mut ds.spec.template);
}

/// SetDefaults_Job: completions and parallelism 1 when both are unset (else parallelism 1), backoffLimit 6,
/// completionMode NonIndexed, suspend false, manualSelector false, a pod condition pattern's status True,
/// podReplacementPolicy Failed with a pod failure policy (else TerminatingOrFailed), and the template's defaults.
fn default_job(j: &mut crate::api::Job) {
    let spec = &mut j.spec;
    if spec.completions.is_none() && spec.parallelism.is_none() {
        spec.completions = Some(1);
    }
    spec.parallelism.get_or_insert(1);
    spec.backoff_limit.get_or_insert(6);
    spec.completion_mode.get_or_insert_with(|| s("NonIndexed"));
    spec.suspend.get_or_insert(false);
    spec.manual_selector.get_or_insert(false);
    for rule in spec.pod_failure_policy.iter_mut().flat_map(|p| p.rules.iter_mut()) {
        for pattern in &mut rule.on_pod_conditions {
            if pattern.status.is_empty() {
                pattern.status = s("True");
            }
        }
    }
    let replacement = if spec.pod_failure_policy.is_some() { "Failed" } else { "TerminatingOrFailed" };
    spec.pod_replacement_policy.get_or_insert_with(|| s(replacement));
    default_template(&mut spec.template);
}

/// SetDefaults_CronJob: concurrencyPolicy Allow, suspend false, history limits 3 and 1; the job template's pod
/// template gets a pod's defaults (the Job's own defaults come when a Job is made from it).
fn default_cronjob(c: &mut crate::api::CronJob) {
    let spec = &mut c.spec;
    spec.concurrency_policy.get_or_insert_with(|| s("Allow"));
    spec.suspend.get_or_insert(false);
    spec.successful_jobs_history_limit.get_or_insert(3);
    spec.failed_jobs_history_limit.get_or_insert(1);
    default_template(&mut spec.job_template.spec.template);
}

/// SetDefaults_StatefulSet: OrderedReady, RollingUpdate with partition 0 (maxUnavailable is the alpha
/// MaxUnavailableStatefulSet's, off in 1.34: not defaulted), the retention policy Retain and Retain, 1 replica,
/// revisionHistoryLimit 10, and the template's defaults; each claim template's own (SetDefaults_PersistentVolumeClaim).
fn default_stateful_set(sts: &mut crate::api::StatefulSet) {
    use crate::api::statefulset::{RetentionPolicy, RollingUpdateStatefulSet};
    let spec = &mut sts.spec;
    if spec.pod_management_policy.is_empty() {
        spec.pod_management_policy = s("OrderedReady");
    }
    let u = &mut spec.update_strategy;
    if u.type_.is_empty() {
        u.type_ = s("RollingUpdate");
        u.rolling_update.get_or_insert_with(RollingUpdateStatefulSet::default);
    }
    if &*u.type_ == "RollingUpdate" {
        if let Some(ru) = u.rolling_update.as_mut() {
            ru.partition.get_or_insert(0);
        }
    }
    let p = spec.persistent_volume_claim_retention_policy.get_or_insert_with(RetentionPolicy::default);
    for v in [&mut p.when_deleted, &mut p.when_scaled] {
        if v.is_empty() {
            *v = s("Retain");
        }
    }
    spec.replicas.get_or_insert(1);
    spec.revision_history_limit.get_or_insert(10);
    for t in &mut spec.volume_claim_templates {
        default_claim_spec(&mut t.spec);
    }
    default_template(&mut spec.template);
}

/// SetDefaults_PersistentVolumeClaim: a claim is Pending until bound; its spec's volumeMode is Filesystem.
fn default_claim(fields: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::{Map, Value};
    if let Some(Value::Object(spec)) = fields.get_mut("spec") {
        default_claim_spec(spec);
    }
    let status = fields.entry("status").or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(st) = status {
        st.entry("phase").or_insert_with(|| Value::String("Pending".into()));
    }
}

/// SetDefaults_PersistentVolumeClaimSpec: volumeMode Filesystem.
fn default_claim_spec(spec: &mut serde_json::Map<String, serde_json::Value>) {
    spec.entry("volumeMode").or_insert_with(|| serde_json::Value::String("Filesystem".into()));
}

/// A validation failure on one field, as the API server reports it (`spec.replicas: Invalid value: -1: ...`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// `spec.template.spec.containers[0].image`
    pub(crate) path: String,
    /// What is wrong, from the error's type on (`Invalid value: -1: must be greater than or equal to 0`).
    pub(crate) message: String,
    /// Where the field is in a manifest, when that is not its path (upstream names a Node's taints
    /// `metadata.taints`).
    pub(crate) at: Option<String>,
}

impl FieldError {
    pub(crate) fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError { path: path.into(), message: message.into(), at: None }
    }

    /// `field.Required`: `Required value`.
    pub(crate) fn required(path: impl Into<String>) -> Self {
        FieldError::new(path, "Required value")
    }

    /// `field.Required` with a detail: `Required value: name or generateName is required`.
    pub(crate) fn required_because(path: impl Into<String>, detail: &str) -> Self {
        FieldError::new(path, format!("Required value: {detail}"))
    }

    /// `field.Invalid`: `Invalid value: VALUE: detail`, the value already as Go prints it ([`q`] for a string).
    pub(crate) fn invalid(path: impl Into<String>, value: impl std::fmt::Display, detail: &str) -> Self {
        FieldError::new(path, format!("Invalid value: {value}: {detail}"))
    }

    /// `field.Duplicate`: `Duplicate value: VALUE`.
    pub(crate) fn duplicate(path: impl Into<String>, value: impl std::fmt::Display) -> Self {
        FieldError::new(path, format!("Duplicate value: {value}"))
    }

    /// `field.NotSupported`: `Unsupported value: VALUE: supported values: "a", "b"`.
    pub(crate) fn not_supported(path: impl Into<String>, value: impl std::fmt::Display, supported: &[&str]) -> Self {
        let list: Vec<String> = supported.iter().map(|v| go_quote(v)).collect();
        FieldError::new(path, format!("Unsupported value: {value}: supported values: {}", list.join(", ")))
    }

    /// `field.Forbidden`: `Forbidden: detail`.
    pub(crate) fn forbidden(path: impl Into<String>, detail: &str) -> Self {
        FieldError::new(path, format!("Forbidden: {detail}"))
    }

    /// `field.TooLong`: `Too long: must have at most N bytes` (the value is never shown).
    pub(crate) fn too_long(path: impl Into<String>, max: usize) -> Self {
        FieldError::new(path, format!("Too long: must have at most {max} bytes"))
    }

    /// `field.TooMany`: `Too many: N: must have at most M items`.
    pub(crate) fn too_many(path: impl Into<String>, n: usize, max: usize) -> Self {
        FieldError::new(path, format!("Too many: {n}: must have at most {max} items"))
    }

    /// The same error, located in a manifest at `yaml_path` rather than at its path.
    pub(crate) fn located_at(mut self, yaml_path: impl Into<String>) -> Self {
        self.at = Some(yaml_path.into());
        self
    }

    /// Where the field is in a manifest, as segments (`["spec", "template", "spec", "containers", "0",
    /// "image"]`), to find its line; a key in brackets (`data[a.b]`) is one segment.
    pub fn segments(&self) -> Vec<String> {
        let path = self.at.as_deref().unwrap_or(&self.path);
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut depth = 0usize;
        for c in path.chars() {
            match c {
                '[' if depth == 0 => {
                    out.push(std::mem::take(&mut cur));
                    depth = 1;
                }
                ']' if depth == 1 => {
                    out.push(std::mem::take(&mut cur));
                    depth = 0;
                }
                '.' if depth == 0 => out.push(std::mem::take(&mut cur)),
                c => cur.push(c),
            }
        }
        out.push(cur);
        out.retain(|p| !p.is_empty());
        out
    }
}

impl std::fmt::Display for FieldError {
    /// `field.Error.Error()`: `path: message`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

/// A string as a field error shows a value (Go's `%q`), its length bounded like any echoed user text.
pub(crate) fn q(s: &str) -> String {
    go_quote(&crate::limits::echo(s))
}

/// A 422 Invalid from the API server (apimachinery's `NewInvalid`): the object's kind and name and what is wrong
/// with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invalid {
    /// `Deployment`
    pub(crate) kind: &'static str,
    /// `apps` (empty for the core group)
    pub(crate) group: &'static str,
    pub(crate) name: String,
    pub(crate) errors: Vec<FieldError>,
}

impl Invalid {
    /// The refusal of `obj` for `errors`.
    pub(crate) fn new(obj: &Object, errors: Vec<FieldError>) -> Invalid {
        let kind = obj.kind();
        Invalid { kind: kind.name(), group: group_of(kind), name: obj.meta().name.to_string(), errors }
    }

    /// Each error once, as `path: message` (`ErrorList.ToAggregate` drops repeats).
    fn causes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for e in &self.errors {
            let text = e.to_string();
            if !out.contains(&text) {
                out.push(text);
            }
        }
        out
    }

    /// The Status message (`Deployment.apps "web" is invalid: [a, b]`), as a client that prints the API's error
    /// shows it.
    pub(crate) fn status_message(&self) -> String {
        let kind = if self.group.is_empty() { self.kind.to_string() } else { format!("{}.{}", self.kind, self.group) };
        let causes = self.causes();
        match causes.as_slice() {
            [] => format!("{kind} {} is invalid", go_quote(&self.name)),
            [one] => format!("{kind} {} is invalid: {one}", go_quote(&self.name)),
            many => format!("{kind} {} is invalid: [{}]", go_quote(&self.name), many.join(", ")),
        }
    }

    /// What kubectl prints of it (`cmdutil.CheckErr`): `The Deployment "web" is invalid: spec.replicas: ...`, or
    /// the errors one a line, each after `* `.
    pub fn kubectl_message(&self) -> String {
        let prefix = format!("The {} {} is invalid", self.kind, go_quote(&self.name));
        let causes = self.causes();
        match causes.as_slice() {
            [] => prefix,
            [one] => format!("{prefix}: {one}"),
            many => {
                let mut out = format!("{prefix}: ");
                for c in many {
                    out.push_str("\n* ");
                    out.push_str(c);
                }
                out
            }
        }
    }
}

impl std::fmt::Display for Invalid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.status_message())
    }
}

/// Validates an object as the API server would on create or update (the kind's `Validate...`, then the metadata
/// checks every object gets). Empty when valid.
pub fn validate(obj: &Object) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Object::PodDisruptionBudget(pdb) = obj {
        // ValidatePodDisruptionBudget checks the spec only; the generic metadata checks (BeforeCreate's) run when
        // it passes.
        policy::validate_pdb(pdb, &mut errs);
        if errs.is_empty() {
            meta::validate_object_meta(obj.kind(), obj.meta(), &mut errs);
        }
        return errs;
    }
    meta::validate_object_meta(obj.kind(), obj.meta(), &mut errs);
    match obj {
        Object::Pod(p) => pod::validate_pod(p, &mut errs),
        Object::ReplicaSet(rs) => apps::validate_replica_set(rs, &mut errs),
        Object::Deployment(d) => apps::validate_deployment(d, &mut errs),
        Object::DaemonSet(ds) => apps::validate_daemon_set(ds, &mut errs),
        Object::StatefulSet(sts) => apps::validate_stateful_set(sts, &mut errs),
        Object::Job(j) => batch::validate_job(j, &mut errs),
        Object::CronJob(c) => batch::validate_cronjob(c, &mut errs),
        Object::ConfigMap(cm) => config::validate_config_map(cm, &mut errs),
        Object::Secret(sec) => config::validate_secret(sec, &mut errs),
        Object::Service(svc) => service::validate_service(svc, &mut errs),
        Object::EndpointSlice(e) => discovery::validate_endpoint_slice(e, &mut errs),
        Object::Node(n) => cluster::validate_node(n, &mut errs),
        Object::Namespace(n) => cluster::validate_namespace(n, &mut errs),
        Object::ServiceAccount(_)
        | Object::PodDisruptionBudget(_)
        | Object::Lease(_)
        | Object::Event(_)
        | Object::Stored(_) => {}
    }
    errs
}

/// What kubectl prints when the API server refuses `obj` for `errs`:
/// `The Deployment "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`.
pub fn invalid_message(obj: &Object, errs: &[FieldError]) -> String {
    Invalid::new(obj, errs.to_vec()).kubectl_message()
}

/// `ValidateNonnegativeField`: `Invalid value: -1: must be greater than or equal to 0`.
fn nonnegative(path: &str, v: i64, errs: &mut Vec<FieldError>) {
    if v < 0 {
        errs.push(FieldError::invalid(path, v, NEGATIVE));
    }
}

/// `ValidateNonnegativeQuantity`: `Invalid value: "-1": must be greater than or equal to 0`.
fn nonnegative_quantity(path: &str, quantity: &crate::api::Quantity, errs: &mut Vec<FieldError>) {
    if quantity.is_negative() {
        errs.push(FieldError::invalid(path, q(quantity.as_str()), NEGATIVE));
    }
}

/// Upstream's `isNegativeErrorMsg`.
const NEGATIVE: &str = "must be greater than or equal to 0";

/// Each message of a name check as an Invalid error of `value` at `path`.
fn invalid_each(path: &str, value: &str, messages: Vec<String>, errs: &mut Vec<FieldError>) {
    for m in messages {
        errs.push(FieldError::invalid(path, q(value), &m));
    }
}

/// The API group of a kind (`apps`; empty for the core group).
pub(crate) fn group_of(kind: Kind) -> &'static str {
    kind.api_version().split_once('/').map_or("", |(g, _)| g)
}

#[cfg(test)]
mod tests;
