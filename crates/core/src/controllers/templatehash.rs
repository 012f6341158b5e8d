//! `pod-template-hash`: upstream's `controller.ComputeHash` (kubernetes/pkg/controller/controller_utils.go).
//!
//! Upstream hashes the Go value of the Deployment's `v1.PodTemplateSpec`, as its informer decoded it, printed by
//! go-spew (`hashutil.DeepHashObject`: `%#v` with `SortKeys`, `DisableMethods` and `SpewKeys`), with FNV-32a;
//! a collision count adds 8 bytes (the count as a little-endian `uint32`, then four zero bytes); the decimal
//! digits of the sum are mapped through `rand.SafeEncodeString`'s alphabet.
//!
//! This module writes the same text from kubeloop's template: every field of the 1.34 structs in their order,
//! with the type names reflect gives them, and the zero value of every field kubeloop does not keep. So a
//! template made only of fields kubeloop keeps gets the hash a real cluster gives it (tested against values
//! upstream's own code printed). The printed value is the object the controller manager decoded from the API
//! server's protobuf: after defaulting (`SetDefaults_PodSpec`, `SetDefaults_Container`, the ports' TCP), with
//! empty lists and maps absent (nil) and every quantity parsed again from its canonical text.
//!
//! Deviations: a field kubeloop does not keep (volume sources other than emptyDir, secret, configMap and persistentVolumeClaim, env
//! values from fields or resources, affinity, a security context with
//! content, ...) is printed as its zero value, so such a template hashes as if that field were unset (it is
//! still hashed stably, and still distinct from every other template kubeloop keeps apart).

use std::fmt;

use crate::api::quantity::GoAmount;
use crate::api::{
    Container, ContainerPort, EnvFromSource, EnvVar, ExecAction, HttpGetAction, IntOrString, Labels,
    NodeSelectorRequirement, NodeSelectorTerm, ObjectMeta, PodSpec, PodTemplateSpec, Probe, Quantity, ResourceList,
    TcpSocketAction, Toleration, Volume,
};

/// `rand.SafeEncodeString`'s alphabet (no vowels, no confusable characters).
const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `ComputeHash`: the `pod-template-hash` label value of a template, with the Deployment's collision count.
pub fn compute_hash(template: &PodTemplateSpec, collision_count: Option<i32>) -> String {
    let mut h = Fnv32a::new();
    // Writing into the hasher cannot fail.
    let _ = dump_template(&mut Dump::new(&mut h), template);
    if let Some(c) = collision_count {
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&(c as u32).to_le_bytes());
        h.feed(&bytes);
    }
    h.sum().to_string().bytes().map(|b| ALPHABET[b as usize % ALPHABET.len()] as char).collect()
}

/// The text `ComputeHash` hashes (go-spew's `%#v` of the template), for tests and for anyone comparing with
/// upstream's own output.
pub fn spew_template(template: &PodTemplateSpec) -> String {
    let mut s = String::new();
    let _ = dump_template(&mut Dump::new(&mut s), template);
    s
}

/// FNV-32a (Go's `hash/fnv.New32a`).
struct Fnv32a(u32);

impl Fnv32a {
    fn new() -> Self {
        Fnv32a(0x811c_9dc5)
    }
    fn feed(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u32::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0193);
        }
    }
    fn sum(&self) -> u32 {
        self.0
    }
}

impl fmt::Write for Fnv32a {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.feed(s.as_bytes());
        Ok(())
    }
}

/// The zero value of a field kubeloop does not keep, by the kind of its Go type.
#[derive(Clone, Copy)]
enum Zero {
    /// A pointer, slice or map: `<nil>`.
    Nil,
    /// A string, or a named string type: nothing after the type.
    Str,
    /// An integer: `0`.
    Int,
    /// `false`.
    Bool,
}

type Fields = &'static [(&'static str, &'static str, Zero)];

// The structs of k8s.io/api core/v1 and apimachinery meta/v1 at v0.34, field by field in declaration order, with
// the type names reflect prints. A field kubeloop keeps is written by the struct's writer; the others are zero.

const OBJECT_META: Fields = &[
    ("Name", "string", Zero::Str),
    ("GenerateName", "string", Zero::Str),
    ("Namespace", "string", Zero::Str),
    ("SelfLink", "string", Zero::Str),
    ("UID", "types.UID", Zero::Str),
    ("ResourceVersion", "string", Zero::Str),
    ("Generation", "int64", Zero::Int),
    ("CreationTimestamp", "v1.Time", Zero::Nil),
    ("DeletionTimestamp", "*v1.Time", Zero::Nil),
    ("DeletionGracePeriodSeconds", "*int64", Zero::Nil),
    ("Labels", "map[string]string", Zero::Nil),
    ("Annotations", "map[string]string", Zero::Nil),
    ("OwnerReferences", "[]v1.OwnerReference", Zero::Nil),
    ("Finalizers", "[]string", Zero::Nil),
    ("ManagedFields", "[]v1.ManagedFieldsEntry", Zero::Nil),
];

const POD_SPEC: Fields = &[
    ("Volumes", "[]v1.Volume", Zero::Nil),
    ("InitContainers", "[]v1.Container", Zero::Nil),
    ("Containers", "[]v1.Container", Zero::Nil),
    ("EphemeralContainers", "[]v1.EphemeralContainer", Zero::Nil),
    ("RestartPolicy", "v1.RestartPolicy", Zero::Str),
    ("TerminationGracePeriodSeconds", "*int64", Zero::Nil),
    ("ActiveDeadlineSeconds", "*int64", Zero::Nil),
    ("DNSPolicy", "v1.DNSPolicy", Zero::Str),
    ("NodeSelector", "map[string]string", Zero::Nil),
    ("ServiceAccountName", "string", Zero::Str),
    ("DeprecatedServiceAccount", "string", Zero::Str),
    ("AutomountServiceAccountToken", "*bool", Zero::Nil),
    ("NodeName", "string", Zero::Str),
    ("HostNetwork", "bool", Zero::Bool),
    ("HostPID", "bool", Zero::Bool),
    ("HostIPC", "bool", Zero::Bool),
    ("ShareProcessNamespace", "*bool", Zero::Nil),
    ("SecurityContext", "*v1.PodSecurityContext", Zero::Nil),
    ("ImagePullSecrets", "[]v1.LocalObjectReference", Zero::Nil),
    ("Hostname", "string", Zero::Str),
    ("Subdomain", "string", Zero::Str),
    ("Affinity", "*v1.Affinity", Zero::Nil),
    ("SchedulerName", "string", Zero::Str),
    ("Tolerations", "[]v1.Toleration", Zero::Nil),
    ("HostAliases", "[]v1.HostAlias", Zero::Nil),
    ("PriorityClassName", "string", Zero::Str),
    ("Priority", "*int32", Zero::Nil),
    ("DNSConfig", "*v1.PodDNSConfig", Zero::Nil),
    ("ReadinessGates", "[]v1.PodReadinessGate", Zero::Nil),
    ("RuntimeClassName", "*string", Zero::Nil),
    ("EnableServiceLinks", "*bool", Zero::Nil),
    ("PreemptionPolicy", "*v1.PreemptionPolicy", Zero::Nil),
    ("Overhead", "v1.ResourceList", Zero::Nil),
    ("TopologySpreadConstraints", "[]v1.TopologySpreadConstraint", Zero::Nil),
    ("SetHostnameAsFQDN", "*bool", Zero::Nil),
    ("OS", "*v1.PodOS", Zero::Nil),
    ("HostUsers", "*bool", Zero::Nil),
    ("SchedulingGates", "[]v1.PodSchedulingGate", Zero::Nil),
    ("ResourceClaims", "[]v1.PodResourceClaim", Zero::Nil),
    ("Resources", "*v1.ResourceRequirements", Zero::Nil),
    ("HostnameOverride", "*string", Zero::Nil),
];

const CONTAINER: Fields = &[
    ("Name", "string", Zero::Str),
    ("Image", "string", Zero::Str),
    ("Command", "[]string", Zero::Nil),
    ("Args", "[]string", Zero::Nil),
    ("WorkingDir", "string", Zero::Str),
    ("Ports", "[]v1.ContainerPort", Zero::Nil),
    ("EnvFrom", "[]v1.EnvFromSource", Zero::Nil),
    ("Env", "[]v1.EnvVar", Zero::Nil),
    ("Resources", "v1.ResourceRequirements", Zero::Nil),
    ("ResizePolicy", "[]v1.ContainerResizePolicy", Zero::Nil),
    ("RestartPolicy", "*v1.ContainerRestartPolicy", Zero::Nil),
    ("RestartPolicyRules", "[]v1.ContainerRestartRule", Zero::Nil),
    ("VolumeMounts", "[]v1.VolumeMount", Zero::Nil),
    ("VolumeDevices", "[]v1.VolumeDevice", Zero::Nil),
    ("LivenessProbe", "*v1.Probe", Zero::Nil),
    ("ReadinessProbe", "*v1.Probe", Zero::Nil),
    ("StartupProbe", "*v1.Probe", Zero::Nil),
    ("Lifecycle", "*v1.Lifecycle", Zero::Nil),
    ("TerminationMessagePath", "string", Zero::Str),
    ("TerminationMessagePolicy", "v1.TerminationMessagePolicy", Zero::Str),
    ("ImagePullPolicy", "v1.PullPolicy", Zero::Str),
    ("SecurityContext", "*v1.SecurityContext", Zero::Nil),
    ("Stdin", "bool", Zero::Bool),
    ("StdinOnce", "bool", Zero::Bool),
    ("TTY", "bool", Zero::Bool),
];

const VOLUME: Fields = &[("Name", "string", Zero::Str), ("VolumeSource", "v1.VolumeSource", Zero::Nil)];

const VOLUME_SOURCE: Fields = &[
    ("HostPath", "*v1.HostPathVolumeSource", Zero::Nil),
    ("EmptyDir", "*v1.EmptyDirVolumeSource", Zero::Nil),
    ("GCEPersistentDisk", "*v1.GCEPersistentDiskVolumeSource", Zero::Nil),
    ("AWSElasticBlockStore", "*v1.AWSElasticBlockStoreVolumeSource", Zero::Nil),
    ("GitRepo", "*v1.GitRepoVolumeSource", Zero::Nil),
    ("Secret", "*v1.SecretVolumeSource", Zero::Nil),
    ("NFS", "*v1.NFSVolumeSource", Zero::Nil),
    ("ISCSI", "*v1.ISCSIVolumeSource", Zero::Nil),
    ("Glusterfs", "*v1.GlusterfsVolumeSource", Zero::Nil),
    ("PersistentVolumeClaim", "*v1.PersistentVolumeClaimVolumeSource", Zero::Nil),
    ("RBD", "*v1.RBDVolumeSource", Zero::Nil),
    ("FlexVolume", "*v1.FlexVolumeSource", Zero::Nil),
    ("Cinder", "*v1.CinderVolumeSource", Zero::Nil),
    ("CephFS", "*v1.CephFSVolumeSource", Zero::Nil),
    ("Flocker", "*v1.FlockerVolumeSource", Zero::Nil),
    ("DownwardAPI", "*v1.DownwardAPIVolumeSource", Zero::Nil),
    ("FC", "*v1.FCVolumeSource", Zero::Nil),
    ("AzureFile", "*v1.AzureFileVolumeSource", Zero::Nil),
    ("ConfigMap", "*v1.ConfigMapVolumeSource", Zero::Nil),
    ("VsphereVolume", "*v1.VsphereVirtualDiskVolumeSource", Zero::Nil),
    ("Quobyte", "*v1.QuobyteVolumeSource", Zero::Nil),
    ("AzureDisk", "*v1.AzureDiskVolumeSource", Zero::Nil),
    ("PhotonPersistentDisk", "*v1.PhotonPersistentDiskVolumeSource", Zero::Nil),
    ("Projected", "*v1.ProjectedVolumeSource", Zero::Nil),
    ("PortworxVolume", "*v1.PortworxVolumeSource", Zero::Nil),
    ("ScaleIO", "*v1.ScaleIOVolumeSource", Zero::Nil),
    ("StorageOS", "*v1.StorageOSVolumeSource", Zero::Nil),
    ("CSI", "*v1.CSIVolumeSource", Zero::Nil),
    ("Ephemeral", "*v1.EphemeralVolumeSource", Zero::Nil),
    ("Image", "*v1.ImageVolumeSource", Zero::Nil),
];

const EMPTY_DIR: Fields = &[("Medium", "v1.StorageMedium", Zero::Str), ("SizeLimit", "*resource.Quantity", Zero::Nil)];

const SECRET_VOLUME: Fields = &[
    ("SecretName", "string", Zero::Str),
    ("Items", "[]v1.KeyToPath", Zero::Nil),
    ("DefaultMode", "*int32", Zero::Nil),
    ("Optional", "*bool", Zero::Nil),
];

const PVC_VOLUME: Fields = &[("ClaimName", "string", Zero::Str), ("ReadOnly", "bool", Zero::Bool)];

const CONFIG_MAP_VOLUME: Fields = &[
    ("LocalObjectReference", "v1.LocalObjectReference", Zero::Nil),
    ("Items", "[]v1.KeyToPath", Zero::Nil),
    ("DefaultMode", "*int32", Zero::Nil),
    ("Optional", "*bool", Zero::Nil),
];

const LOCAL_OBJECT_REFERENCE: Fields = &[("Name", "string", Zero::Str)];

const ENV_VAR: Fields =
    &[("Name", "string", Zero::Str), ("Value", "string", Zero::Str), ("ValueFrom", "*v1.EnvVarSource", Zero::Nil)];

const ENV_VAR_SOURCE: Fields = &[
    ("FieldRef", "*v1.ObjectFieldSelector", Zero::Nil),
    ("ResourceFieldRef", "*v1.ResourceFieldSelector", Zero::Nil),
    ("ConfigMapKeyRef", "*v1.ConfigMapKeySelector", Zero::Nil),
    ("SecretKeyRef", "*v1.SecretKeySelector", Zero::Nil),
    ("FileKeyRef", "*v1.FileKeySelector", Zero::Nil),
];

const KEY_SELECTOR: Fields = &[
    ("LocalObjectReference", "v1.LocalObjectReference", Zero::Nil),
    ("Key", "string", Zero::Str),
    ("Optional", "*bool", Zero::Nil),
];

const ENV_FROM_SOURCE: Fields = &[
    ("Prefix", "string", Zero::Str),
    ("ConfigMapRef", "*v1.ConfigMapEnvSource", Zero::Nil),
    ("SecretRef", "*v1.SecretEnvSource", Zero::Nil),
];

const ENV_SOURCE: Fields =
    &[("LocalObjectReference", "v1.LocalObjectReference", Zero::Nil), ("Optional", "*bool", Zero::Nil)];

const PROBE: Fields = &[
    ("ProbeHandler", "v1.ProbeHandler", Zero::Nil),
    ("InitialDelaySeconds", "int32", Zero::Int),
    ("TimeoutSeconds", "int32", Zero::Int),
    ("PeriodSeconds", "int32", Zero::Int),
    ("SuccessThreshold", "int32", Zero::Int),
    ("FailureThreshold", "int32", Zero::Int),
    ("TerminationGracePeriodSeconds", "*int64", Zero::Nil),
];

const PROBE_HANDLER: Fields = &[
    ("Exec", "*v1.ExecAction", Zero::Nil),
    ("HTTPGet", "*v1.HTTPGetAction", Zero::Nil),
    ("TCPSocket", "*v1.TCPSocketAction", Zero::Nil),
    ("GRPC", "*v1.GRPCAction", Zero::Nil),
];

const LIFECYCLE: Fields = &[
    ("PostStart", "*v1.LifecycleHandler", Zero::Nil),
    ("PreStop", "*v1.LifecycleHandler", Zero::Nil),
    ("StopSignal", "*v1.Signal", Zero::Nil),
];

const LIFECYCLE_HANDLER: Fields = &[
    ("Exec", "*v1.ExecAction", Zero::Nil),
    ("HTTPGet", "*v1.HTTPGetAction", Zero::Nil),
    ("TCPSocket", "*v1.TCPSocketAction", Zero::Nil),
    ("Sleep", "*v1.SleepAction", Zero::Nil),
];

const SLEEP_ACTION: Fields = &[("Seconds", "int64", Zero::Int)];

const HTTP_GET_ACTION: Fields = &[
    ("Path", "string", Zero::Str),
    ("Port", "intstr.IntOrString", Zero::Nil),
    ("Host", "string", Zero::Str),
    ("Scheme", "v1.URIScheme", Zero::Str),
    ("HTTPHeaders", "[]v1.HTTPHeader", Zero::Nil),
];

const HTTP_HEADER: Fields = &[("Name", "string", Zero::Str), ("Value", "string", Zero::Str)];

const TCP_SOCKET_ACTION: Fields = &[("Port", "intstr.IntOrString", Zero::Nil), ("Host", "string", Zero::Str)];

const EXEC_ACTION: Fields = &[("Command", "[]string", Zero::Nil)];

const GRPC_ACTION: Fields = &[("Port", "int32", Zero::Int), ("Service", "*string", Zero::Nil)];

const INT_OR_STRING: Fields =
    &[("Type", "intstr.Type", Zero::Int), ("IntVal", "int32", Zero::Int), ("StrVal", "string", Zero::Str)];

const CONTAINER_PORT: Fields = &[
    ("Name", "string", Zero::Str),
    ("HostPort", "int32", Zero::Int),
    ("ContainerPort", "int32", Zero::Int),
    ("Protocol", "v1.Protocol", Zero::Str),
    ("HostIP", "string", Zero::Str),
];

const RESOURCE_REQUIREMENTS: Fields = &[
    ("Limits", "v1.ResourceList", Zero::Nil),
    ("Requests", "v1.ResourceList", Zero::Nil),
    ("Claims", "[]v1.ResourceClaim", Zero::Nil),
];

const AFFINITY: Fields = &[
    ("NodeAffinity", "*v1.NodeAffinity", Zero::Nil),
    ("PodAffinity", "*v1.PodAffinity", Zero::Nil),
    ("PodAntiAffinity", "*v1.PodAntiAffinity", Zero::Nil),
];

const NODE_AFFINITY: Fields = &[
    ("RequiredDuringSchedulingIgnoredDuringExecution", "*v1.NodeSelector", Zero::Nil),
    ("PreferredDuringSchedulingIgnoredDuringExecution", "[]v1.PreferredSchedulingTerm", Zero::Nil),
];

const NODE_SELECTOR: Fields = &[("NodeSelectorTerms", "[]v1.NodeSelectorTerm", Zero::Nil)];

const NODE_SELECTOR_TERM: Fields = &[
    ("MatchExpressions", "[]v1.NodeSelectorRequirement", Zero::Nil),
    ("MatchFields", "[]v1.NodeSelectorRequirement", Zero::Nil),
];

const NODE_SELECTOR_REQUIREMENT: Fields = &[
    ("Key", "string", Zero::Str),
    ("Operator", "v1.NodeSelectorOperator", Zero::Str),
    ("Values", "[]string", Zero::Nil),
];

const TOLERATION: Fields = &[
    ("Key", "string", Zero::Str),
    ("Operator", "v1.TolerationOperator", Zero::Str),
    ("Value", "string", Zero::Str),
    ("Effect", "v1.TaintEffect", Zero::Str),
    ("TolerationSeconds", "*int64", Zero::Nil),
];

const POD_SECURITY_CONTEXT: Fields = &[
    ("SELinuxOptions", "*v1.SELinuxOptions", Zero::Nil),
    ("WindowsOptions", "*v1.WindowsSecurityContextOptions", Zero::Nil),
    ("RunAsUser", "*int64", Zero::Nil),
    ("RunAsGroup", "*int64", Zero::Nil),
    ("RunAsNonRoot", "*bool", Zero::Nil),
    ("SupplementalGroups", "[]int64", Zero::Nil),
    ("SupplementalGroupsPolicy", "*v1.SupplementalGroupsPolicy", Zero::Nil),
    ("FSGroup", "*int64", Zero::Nil),
    ("Sysctls", "[]v1.Sysctl", Zero::Nil),
    ("FSGroupChangePolicy", "*v1.PodFSGroupChangePolicy", Zero::Nil),
    ("SeccompProfile", "*v1.SeccompProfile", Zero::Nil),
    ("AppArmorProfile", "*v1.AppArmorProfile", Zero::Nil),
    ("SELinuxChangePolicy", "*v1.PodSELinuxChangePolicy", Zero::Nil),
];

/// go-spew's `%#v` writer: `(type)value`, structs as `{Field:(type)value ...}`, pointers as `(*type)`
/// followed by the value or `<nil>`; slice elements, map keys and map values without their type.
struct Dump<'w, W: fmt::Write> {
    w: &'w mut W,
    /// No field written yet in the innermost open struct.
    first: bool,
}

impl<'w, W: fmt::Write> Dump<'w, W> {
    fn new(w: &'w mut W) -> Self {
        Dump { w, first: true }
    }

    fn raw(&mut self, s: &str) -> fmt::Result {
        self.w.write_str(s)
    }

    /// `(type)`.
    fn ty(&mut self, ty: &str) -> fmt::Result {
        self.raw("(")?;
        self.raw(ty)?;
        self.raw(")")
    }

    /// Starts the next field of the open struct: `Name:` (after a space unless it is the first).
    fn field(&mut self, name: &str) -> fmt::Result {
        if !self.first {
            self.raw(" ")?;
        }
        self.first = false;
        self.raw(name)?;
        self.raw(":")
    }

    fn open(&mut self) -> fmt::Result {
        self.first = true;
        self.raw("{")
    }

    fn close(&mut self) -> fmt::Result {
        self.first = false;
        self.raw("}")
    }

    /// A field kubeloop does not keep, as its zero value.
    fn zero(&mut self, name: &str, ty: &str, zero: Zero) -> fmt::Result {
        self.field(name)?;
        self.ty(ty)?;
        match zero {
            Zero::Nil => self.raw("<nil>"),
            Zero::Str => Ok(()),
            Zero::Int => self.raw("0"),
            Zero::Bool => self.raw("false"),
        }
    }

    /// Writes every field of a struct in order: `value` writes the ones kubeloop keeps (returning `true`), the
    /// rest are zero.
    fn fields(
        &mut self,
        fields: Fields,
        mut value: impl FnMut(&mut Self, &str, &str) -> Result<bool, fmt::Error>,
    ) -> fmt::Result {
        self.open()?;
        for (name, ty, zero) in fields {
            if !value(self, name, ty)? {
                self.zero(name, ty, *zero)?;
            }
        }
        self.close()
    }

    /// A string-typed field (a named string type included), written even when empty.
    fn string(&mut self, name: &str, ty: &str, v: &str) -> Result<bool, fmt::Error> {
        self.field(name)?;
        self.ty(ty)?;
        self.raw(v)?;
        Ok(true)
    }

    /// An integer or boolean field, or a non-nil pointer to one (`ty` starts with `*`).
    fn display(&mut self, name: &str, ty: &str, v: impl fmt::Display) -> Result<bool, fmt::Error> {
        self.field(name)?;
        self.ty(ty)?;
        write!(self.w, "{v}")?;
        Ok(true)
    }

    /// An optional integer (a pointer field): nil when absent.
    fn optional(&mut self, name: &str, ty: &str, v: Option<impl fmt::Display>) -> Result<bool, fmt::Error> {
        match v {
            Some(v) => self.display(name, ty, v),
            None => Ok(false),
        }
    }

    /// A slice or map field: nil when empty (protobuf carries no empty list or map), else `open` and the entries
    /// (without their type) separated by spaces, then `]`.
    fn entries<T>(
        &mut self,
        name: &str,
        ty: &str,
        open: &str,
        items: impl ExactSizeIterator<Item = T>,
        mut each: impl FnMut(&mut Self, T) -> fmt::Result,
    ) -> Result<bool, fmt::Error> {
        if items.len() == 0 {
            return Ok(false);
        }
        self.field(name)?;
        self.ty(ty)?;
        self.raw(open)?;
        for (i, item) in items.enumerate() {
            if i > 0 {
                self.raw(" ")?;
            }
            each(self, item)?;
        }
        self.raw("]").map(|_| true)
    }

    /// A `map[string]string` field, in key order.
    fn string_map(&mut self, name: &str, ty: &str, map: &Labels) -> Result<bool, fmt::Error> {
        self.entries(name, ty, "map[", map.iter(), |d, (k, v)| {
            d.raw(k)?;
            d.raw(":")?;
            d.raw(v)
        })
    }

    /// A struct field (or a non-nil pointer to one: `ty` starts with `*`), written with its own field table.
    fn nested(
        &mut self,
        name: &str,
        ty: &str,
        fields: Fields,
        value: impl FnMut(&mut Self, &str, &str) -> Result<bool, fmt::Error>,
    ) -> Result<bool, fmt::Error> {
        self.field(name)?;
        self.ty(ty)?;
        self.fields(fields, value)?;
        Ok(true)
    }

    /// A pointer-to-struct field: nil when absent.
    fn nested_opt<T>(
        &mut self,
        name: &str,
        ty: &str,
        v: Option<&T>,
        fields: Fields,
        mut value: impl FnMut(&mut Self, &T, &str, &str) -> Result<bool, fmt::Error>,
    ) -> Result<bool, fmt::Error> {
        match v {
            Some(v) => self.nested(name, ty, fields, |d, name, ty| value(d, v, name, ty)),
            None => Ok(false),
        }
    }

    /// A slice field.
    fn list<T>(
        &mut self,
        name: &str,
        ty: &str,
        items: &[T],
        mut each: impl FnMut(&mut Self, &T) -> fmt::Result,
    ) -> Result<bool, fmt::Error> {
        self.entries(name, ty, "[", items.iter(), |d, item| each(d, item))
    }
}

fn dump_template<W: fmt::Write>(d: &mut Dump<'_, W>, t: &PodTemplateSpec) -> fmt::Result {
    d.ty("v1.PodTemplateSpec")?;
    d.open()?;
    d.field("ObjectMeta")?;
    d.ty("v1.ObjectMeta")?;
    dump_meta(d, &t.metadata)?;
    d.field("Spec")?;
    d.ty("v1.PodSpec")?;
    dump_spec(d, &t.spec)?;
    d.close()
}

fn dump_meta<W: fmt::Write>(d: &mut Dump<'_, W>, m: &ObjectMeta) -> fmt::Result {
    d.fields(OBJECT_META, |d, name, ty| match name {
        "Name" => d.string(name, ty, &m.name),
        "GenerateName" => d.string(name, ty, &m.generate_name),
        "Namespace" => d.string(name, ty, &m.namespace),
        // A template's creation time is the zero time (`creationTimestamp: null`).
        "CreationTimestamp" => {
            d.field(name)?;
            d.raw("(v1.Time){Time:(time.Time){wall:(uint64)0 ext:(int64)0 loc:(*time.Location)<nil>}}")?;
            Ok(true)
        }
        "Labels" => d.string_map(name, ty, &m.labels),
        "Annotations" => d.string_map(name, ty, &m.annotations),
        _ => Ok(false),
    })
}

fn dump_spec<W: fmt::Write>(d: &mut Dump<'_, W>, s: &PodSpec) -> fmt::Result {
    d.fields(POD_SPEC, |d, name, ty| match name {
        "Volumes" => d.list(name, ty, &s.volumes, dump_volume),
        "Containers" => d.list(name, ty, &s.containers, dump_container),
        "RestartPolicy" => d.string(name, ty, &s.restart_policy),
        "TerminationGracePeriodSeconds" => d.optional(name, ty, s.termination_grace_period_seconds),
        "DNSPolicy" => d.string(name, ty, &s.dns_policy),
        "Hostname" => d.string(name, ty, &s.hostname),
        "Subdomain" => d.string(name, ty, &s.subdomain),
        "NodeSelector" => d.string_map(name, ty, &s.node_selector),
        "NodeName" => d.string(name, ty, &s.node_name),
        // SetDefaults_PodSpec gives every template an empty security context; kubeloop keeps none of its fields.
        "SecurityContext" => {
            d.field(name)?;
            d.ty(ty)?;
            d.fields(POD_SECURITY_CONTEXT, |_, _, _| Ok(false))?;
            Ok(true)
        }
        "SchedulerName" => d.string(name, ty, &s.scheduler_name),
        "Tolerations" => d.list(name, ty, &s.tolerations, dump_toleration),
        "Affinity" => d.nested_opt(name, ty, s.affinity.as_deref(), AFFINITY, |d, a, name, ty| match name {
            "NodeAffinity" => {
                d.nested_opt(name, ty, a.node_affinity.as_ref(), NODE_AFFINITY, |d, n, name, ty| match name {
                    "RequiredDuringSchedulingIgnoredDuringExecution" => {
                        let sel = n.required_during_scheduling_ignored_during_execution.as_ref();
                        d.nested_opt(name, ty, sel, NODE_SELECTOR, |d, sel, name, ty| {
                            d.list(name, ty, &sel.node_selector_terms, dump_term)
                        })
                    }
                    _ => Ok(false),
                })
            }
            _ => Ok(false),
        }),
        "Priority" => d.optional(name, ty, s.priority),
        _ => Ok(false),
    })
}

fn dump_container<W: fmt::Write>(d: &mut Dump<'_, W>, c: &Container) -> fmt::Result {
    d.fields(CONTAINER, |d, name, ty| match name {
        "Name" => d.string(name, ty, &c.name),
        "Image" => d.string(name, ty, &c.image),
        "Command" => d.list(name, ty, &c.command, |d, s| d.raw(s)),
        "Args" => d.list(name, ty, &c.args, |d, s| d.raw(s)),
        "Ports" => d.list(name, ty, &c.ports, dump_port),
        "EnvFrom" => d.list(name, ty, &c.env_from, dump_env_from),
        "Env" => d.list(name, ty, &c.env, dump_env),
        "LivenessProbe" => dump_probe(d, name, ty, c.liveness_probe.as_ref()),
        "ReadinessProbe" => dump_probe(d, name, ty, c.readiness_probe.as_ref()),
        "StartupProbe" => dump_probe(d, name, ty, c.startup_probe.as_ref()),
        "Lifecycle" => d.nested_opt(name, ty, c.lifecycle.as_ref(), LIFECYCLE, |d, l, name, ty| {
            let h = if name == "PostStart" { &l.post_start } else { &l.pre_stop };
            d.nested_opt(name, ty, h.as_ref(), LIFECYCLE_HANDLER, |d, h, name, ty| match name {
                "Sleep" => d.nested_opt(name, ty, h.sleep.as_ref(), SLEEP_ACTION, |d, s, name, ty| {
                    d.display(name, ty, s.seconds)
                }),
                _ => dump_action(d, name, ty, h.exec.as_ref(), h.http_get.as_ref(), h.tcp_socket.as_ref()),
            })
        }),
        "Resources" => {
            d.field(name)?;
            d.ty(ty)?;
            d.fields(RESOURCE_REQUIREMENTS, |d, name, ty| match name {
                "Limits" => dump_resources(d, name, ty, &c.resources.limits),
                "Requests" => dump_resources(d, name, ty, &c.resources.requests),
                _ => Ok(false),
            })?;
            Ok(true)
        }
        // SetDefaults_Container's values; kubeloop does not keep other ones.
        "TerminationMessagePath" => d.string(name, ty, "/dev/termination-log"),
        "TerminationMessagePolicy" => d.string(name, ty, "File"),
        "ImagePullPolicy" => d.string(name, ty, &c.image_pull_policy),
        _ => Ok(false),
    })
}

/// An embedded `v1.LocalObjectReference`.
fn dump_local_ref<W: fmt::Write>(d: &mut Dump<'_, W>, name: &str, ty: &str, r: &str) -> Result<bool, fmt::Error> {
    d.nested(name, ty, LOCAL_OBJECT_REFERENCE, |d, name, ty| d.string(name, ty, r))
}

fn dump_env<W: fmt::Write>(d: &mut Dump<'_, W>, e: &EnvVar) -> fmt::Result {
    d.fields(ENV_VAR, |d, name, ty| match name {
        "Name" => d.string(name, ty, &e.name),
        "Value" => d.string(name, ty, &e.value),
        _ => d.nested_opt(name, ty, e.value_from.as_ref(), ENV_VAR_SOURCE, |d, src, name, ty| {
            let sel = match name {
                "ConfigMapKeyRef" => src.config_map_key_ref.as_ref(),
                "SecretKeyRef" => src.secret_key_ref.as_ref(),
                _ => None,
            };
            d.nested_opt(name, ty, sel, KEY_SELECTOR, |d, k, name, ty| match name {
                "LocalObjectReference" => dump_local_ref(d, name, ty, &k.name),
                "Key" => d.string(name, ty, &k.key),
                _ => d.optional(name, ty, k.optional),
            })
        }),
    })
}

fn dump_env_from<W: fmt::Write>(d: &mut Dump<'_, W>, e: &EnvFromSource) -> fmt::Result {
    d.fields(ENV_FROM_SOURCE, |d, name, ty| {
        let src = match name {
            "Prefix" => return d.string(name, ty, &e.prefix),
            "ConfigMapRef" => e.config_map_ref.as_ref(),
            _ => e.secret_ref.as_ref(),
        };
        d.nested_opt(name, ty, src, ENV_SOURCE, |d, r, name, ty| match name {
            "LocalObjectReference" => dump_local_ref(d, name, ty, &r.name),
            _ => d.optional(name, ty, r.optional),
        })
    })
}

fn dump_volume<W: fmt::Write>(d: &mut Dump<'_, W>, v: &Volume) -> fmt::Result {
    d.fields(VOLUME, |d, name, ty| match name {
        "Name" => d.string(name, ty, &v.name),
        _ => d.nested(name, ty, VOLUME_SOURCE, |d, name, ty| match name {
            "EmptyDir" => d.nested_opt(name, ty, v.empty_dir.as_ref(), EMPTY_DIR, |d, e, name, ty| match name {
                "Medium" => d.string(name, ty, &e.medium),
                _ => match &e.size_limit {
                    Some(q) => {
                        d.field(name)?;
                        d.ty(ty)?;
                        dump_quantity(d, q)?;
                        Ok(true)
                    }
                    None => Ok(false),
                },
            }),
            "Secret" => d.nested_opt(name, ty, v.secret.as_ref(), SECRET_VOLUME, |d, s, name, ty| match name {
                "SecretName" => d.string(name, ty, &s.secret_name),
                "DefaultMode" => d.optional(name, ty, s.default_mode),
                "Optional" => d.optional(name, ty, s.optional),
                _ => Ok(false),
            }),
            "PersistentVolumeClaim" => {
                d.nested_opt(name, ty, v.persistent_volume_claim.as_ref(), PVC_VOLUME, |d, c, name, ty| match name {
                    "ClaimName" => d.string(name, ty, &c.claim_name),
                    _ => d.display(name, ty, c.read_only),
                })
            }
            "ConfigMap" => {
                d.nested_opt(name, ty, v.config_map.as_ref(), CONFIG_MAP_VOLUME, |d, c, name, ty| match name {
                    "LocalObjectReference" => dump_local_ref(d, name, ty, &c.name),
                    "DefaultMode" => d.optional(name, ty, c.default_mode),
                    "Optional" => d.optional(name, ty, c.optional),
                    _ => Ok(false),
                })
            }
            _ => Ok(false),
        }),
    })
}

/// A `*v1.Probe` field: nil when absent.
fn dump_probe<W: fmt::Write>(d: &mut Dump<'_, W>, name: &str, ty: &str, p: Option<&Probe>) -> Result<bool, fmt::Error> {
    let Some(p) = p else { return Ok(false) };
    d.nested(name, ty, PROBE, |d, name, ty| match name {
        "ProbeHandler" => d.nested(name, ty, PROBE_HANDLER, |d, name, ty| match name {
            "GRPC" => d.nested_opt(name, ty, p.grpc.as_ref(), GRPC_ACTION, |d, g, name, ty| match name {
                "Port" => d.display(name, ty, g.port),
                _ => d.optional(name, ty, g.service.as_deref()),
            }),
            _ => dump_action(d, name, ty, p.exec.as_ref(), p.http_get.as_ref(), p.tcp_socket.as_ref()),
        }),
        "InitialDelaySeconds" => d.display(name, ty, p.initial_delay_seconds),
        "TimeoutSeconds" => d.display(name, ty, p.timeout_seconds),
        "PeriodSeconds" => d.display(name, ty, p.period_seconds),
        "SuccessThreshold" => d.display(name, ty, p.success_threshold),
        "FailureThreshold" => d.display(name, ty, p.failure_threshold),
        _ => d.optional(name, ty, p.termination_grace_period_seconds),
    })
}

/// The Exec, HTTPGet and TCPSocket fields a probe's handler and a lifecycle hook's share.
fn dump_action<W: fmt::Write>(
    d: &mut Dump<'_, W>,
    name: &str,
    ty: &str,
    exec: Option<&ExecAction>,
    http_get: Option<&HttpGetAction>,
    tcp_socket: Option<&TcpSocketAction>,
) -> Result<bool, fmt::Error> {
    match name {
        "Exec" => d.nested_opt(name, ty, exec, EXEC_ACTION, |d, e, name, ty| match name {
            "Command" => d.list(name, ty, &e.command, |d, s| d.raw(s)),
            _ => Ok(false),
        }),
        "HTTPGet" => d.nested_opt(name, ty, http_get, HTTP_GET_ACTION, |d, h, name, ty| match name {
            "Path" => d.string(name, ty, &h.path),
            "Port" => dump_int_or_string(d, name, ty, &h.port),
            "Host" => d.string(name, ty, &h.host),
            "Scheme" => d.string(name, ty, &h.scheme),
            "HTTPHeaders" => d.list(name, ty, &h.http_headers, |d, hh| {
                d.fields(HTTP_HEADER, |d, name, ty| match name {
                    "Name" => d.string(name, ty, &hh.name),
                    _ => d.string(name, ty, &hh.value),
                })
            }),
            _ => Ok(false),
        }),
        "TCPSocket" => d.nested_opt(name, ty, tcp_socket, TCP_SOCKET_ACTION, |d, t, name, ty| match name {
            "Port" => dump_int_or_string(d, name, ty, &t.port),
            _ => d.string(name, ty, &t.host),
        }),
        _ => Ok(false),
    }
}

/// An `intstr.IntOrString` value field.
fn dump_int_or_string<W: fmt::Write>(
    d: &mut Dump<'_, W>,
    name: &str,
    ty: &str,
    v: &IntOrString,
) -> Result<bool, fmt::Error> {
    d.nested(name, ty, INT_OR_STRING, |d, name, ty| match (name, v) {
        ("Type", IntOrString::Int(_)) => d.display(name, ty, 0),
        ("Type", IntOrString::String(_)) => d.display(name, ty, 1),
        ("IntVal", IntOrString::Int(i)) => d.display(name, ty, i),
        ("StrVal", IntOrString::String(s)) => d.string(name, ty, s),
        _ => Ok(false),
    })
}

fn dump_port<W: fmt::Write>(d: &mut Dump<'_, W>, p: &ContainerPort) -> fmt::Result {
    d.fields(CONTAINER_PORT, |d, name, ty| match name {
        "Name" => d.string(name, ty, &p.name),
        "ContainerPort" => d.display(name, ty, p.container_port),
        "Protocol" => d.string(name, ty, &p.protocol),
        _ => Ok(false),
    })
}

/// A `v1.NodeSelectorTerm` value (its expressions and fields, each a requirement).
fn dump_term<W: fmt::Write>(d: &mut Dump<'_, W>, t: &NodeSelectorTerm) -> fmt::Result {
    let req = |d: &mut Dump<'_, W>, r: &NodeSelectorRequirement| {
        d.fields(NODE_SELECTOR_REQUIREMENT, |d, name, ty| match name {
            "Key" => d.string(name, ty, &r.key),
            "Operator" => d.string(name, ty, &r.operator),
            _ => d.list(name, ty, &r.values, |d, s| d.raw(s)),
        })
    };
    d.fields(NODE_SELECTOR_TERM, |d, name, ty| match name {
        "MatchExpressions" => d.list(name, ty, &t.match_expressions, req),
        _ => d.list(name, ty, &t.match_fields, req),
    })
}

fn dump_toleration<W: fmt::Write>(d: &mut Dump<'_, W>, t: &Toleration) -> fmt::Result {
    d.fields(TOLERATION, |d, name, ty| match name {
        "Key" => d.string(name, ty, &t.key),
        "Operator" => d.string(name, ty, &t.operator),
        "Value" => d.string(name, ty, &t.value),
        "Effect" => d.string(name, ty, &t.effect),
        "TolerationSeconds" => d.optional(name, ty, t.toleration_seconds),
        _ => Ok(false),
    })
}

/// A `v1.ResourceList`: nil when empty, else `name:{quantity}` in name order.
fn dump_resources<W: fmt::Write>(
    d: &mut Dump<'_, W>,
    name: &str,
    ty: &str,
    list: &ResourceList,
) -> Result<bool, fmt::Error> {
    d.entries(name, ty, "map[", list.iter(), |d, (k, q)| {
        d.raw(k)?;
        d.raw(":")?;
        dump_quantity(d, q)
    })
}

/// A `resource.Quantity` as `ParseQuantity` leaves it when it parses the canonical text the API server sent.
fn dump_quantity<W: fmt::Write>(d: &mut Dump<'_, W>, q: &Quantity) -> fmt::Result {
    let p = q.go_parsed();
    let (value, scale) = match p.amount {
        GoAmount::Int { value, scale } => (value, scale),
        GoAmount::Dec { .. } => (0, 0),
    };
    write!(d.w, "{{i:(resource.int64Amount){{value:(int64){value} scale:(resource.Scale){scale}}} d:(resource.infDecAmount){{Dec:")?;
    match &p.amount {
        GoAmount::Int { .. } => d.raw("(*inf.Dec)<nil>")?,
        GoAmount::Dec { negative, nanos } => {
            write!(d.w, "(*inf.Dec){{unscaled:(big.Int){{neg:(bool){negative} abs:(big.nat)[")?;
            for (i, w) in nanos.iter().enumerate() {
                if i > 0 {
                    d.raw(" ")?;
                }
                write!(d.w, "{w}")?;
            }
            d.raw("]} scale:(inf.Scale)9}")?;
        }
    }
    write!(d.w, "}} s:(string){} Format:(resource.Format){}}}", p.cached, p.format.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{HttpGetAction, Str};

    /// A probe is printed as go-spew prints `*v1.Probe` (the embedded ProbeHandler by its type name, pointers to
    /// the handler that is set, the IntOrString as its three fields); a template with a probe hashes apart from
    /// the same one without, and a changed threshold changes the hash.
    #[test]
    fn probes_are_hashed_as_go_spew_prints_them() {
        let mut t = PodTemplateSpec::default();
        let mut c = Container { name: Str::from("web"), image: Str::from("nginx"), ..Default::default() };
        let mut probe = Probe {
            http_get: Some(HttpGetAction { port: IntOrString::Int(8080), ..Default::default() }),
            ..Default::default()
        };
        probe.set_defaults();
        c.readiness_probe = Some(probe.clone());
        std::rc::Rc::make_mut(&mut t.spec).containers.push(c.clone());
        let text = spew_template(&t);
        let want = "ReadinessProbe:(*v1.Probe){ProbeHandler:(v1.ProbeHandler){Exec:(*v1.ExecAction)<nil> \
HTTPGet:(*v1.HTTPGetAction){Path:(string)/ Port:(intstr.IntOrString){Type:(intstr.Type)0 IntVal:(int32)8080 \
StrVal:(string)} Host:(string) Scheme:(v1.URIScheme)HTTP HTTPHeaders:([]v1.HTTPHeader)<nil>} \
TCPSocket:(*v1.TCPSocketAction)<nil> GRPC:(*v1.GRPCAction)<nil>} InitialDelaySeconds:(int32)0 \
TimeoutSeconds:(int32)1 PeriodSeconds:(int32)10 SuccessThreshold:(int32)1 FailureThreshold:(int32)3 \
TerminationGracePeriodSeconds:(*int64)<nil>} StartupProbe:(*v1.Probe)<nil>";
        assert!(text.contains(want), "{text}");
        assert!(text.contains("LivenessProbe:(*v1.Probe)<nil> ReadinessProbe:"), "{text}");
        let with = compute_hash(&t, None);
        probe.failure_threshold = 5;
        std::rc::Rc::make_mut(&mut t.spec).containers[0].readiness_probe = Some(probe);
        assert_ne!(compute_hash(&t, None), with);
        std::rc::Rc::make_mut(&mut t.spec).containers[0].readiness_probe = None;
        assert_ne!(compute_hash(&t, None), with);
    }
}
