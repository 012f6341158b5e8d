//! `kubectl explain RESOURCE[.field.path] [--recursive]` in kubectl's plaintext layout (pkg/explain/v2
//! templates), over exactly the fields kubeloop's manifests accept: the field names and their nesting come from
//! the manifest module's tables ([`manifest::schema_fields`], [`manifest::field_type`]), so the two cannot drift;
//! the types and descriptions (upstream's, cut to their first sentences) are here. Each field says whether
//! kubeloop simulates it or only accepts it, found out by applying a probe manifest through the same parser
//! `kubectl apply` uses.

use std::fmt::Write as _;

use serde_json::{json, Map, Value};

use super::args::{switch, value, Args, Flag};
use super::resource;
use super::{Command, Input, Output};
use crate::api::Kind;
use crate::manifest;
use crate::sim::Sim;

pub const COMMAND: Command = Command {
    name: "explain",
    summary: "Get documentation for a resource",
    usage: "kubectl explain TYPE [--recursive=FALSE|TRUE] [--api-version=api-version-group] [options]",
    flags: FLAGS,
    run,
};

const FLAGS: &[Flag] = &[
    switch("recursive", Some('R'), "Print the fields of fields. Use --max-depth to cap the recursion depth."),
    value("max-depth", None, "Maximum recursion depth when printing nested fields with --recursive. 0 means no limit."),
    value("api-version", None, "Get different explanations for particular API version (API group/version)"),
    value("output", Some('o'), "Format in which to render the schema (plaintext)"),
];

/// One field's documentation: its type as kubectl shows it, whether the API requires it, its enum values and
/// upstream's description (first sentences).
struct FieldDoc {
    ty: &'static str,
    required: bool,
    enums: &'static [&'static str],
    desc: &'static str,
}

const fn f(ty: &'static str, desc: &'static str) -> FieldDoc {
    FieldDoc { ty, required: false, enums: &[], desc }
}
const fn req(ty: &'static str, desc: &'static str) -> FieldDoc {
    FieldDoc { ty, required: true, enums: &[], desc }
}
const fn en(enums: &'static [&'static str], desc: &'static str) -> FieldDoc {
    FieldDoc { ty: "string", required: false, enums, desc }
}

const EFFECTS: &[&str] = &["NoExecute", "NoSchedule", "PreferNoSchedule"];

/// The documentation of field `field` of schema type `ty`.
fn field_doc(ty: &str, field: &str) -> Option<FieldDoc> {
    Some(match (ty, field) {
        (_, "apiVersion") if !matches!(ty, "OwnerReference" | "ObjectReference") => f("string", "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values."),
        (_, "kind") if !matches!(ty, "OwnerReference" | "ObjectReference") => f("string", "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase."),
        ("Pod" | "Deployment" | "ReplicaSet" | "Node" | "Namespace" | "PodTemplateSpec" | "ConfigMap" | "Secret" | "ServiceAccount" | "Service" | "PodDisruptionBudget" | "EndpointSlice", "metadata") => f("ObjectMeta", "Standard object's metadata."),
        ("ConfigMap", "immutable") => f("boolean", "Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil."),
        ("ConfigMap", "data") => f("map[string]string", "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process."),
        ("ConfigMap", "binaryData") => f("map[string]string", "BinaryData contains the binary data. Each key must consist of alphanumeric characters, '-', '_' or '.'. BinaryData can contain byte sequences that are not in the UTF-8 range. The keys stored in BinaryData must not overlap with the ones in the Data field, this is enforced during validation process."),
        ("Secret", "immutable") => f("boolean", "Immutable, if set to true, ensures that data stored in the Secret cannot be updated (only object metadata can be modified). If not set to true, the field can be modified at any time. Defaulted to nil."),
        ("Secret", "data") => f("map[string]string", "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here."),
        ("Secret", "stringData") => f("map[string]string", "stringData allows specifying non-binary secret data in string form. It is provided as a write-only input field for convenience. All keys and values are merged into the data field on write, overwriting any existing values. The stringData field is never output when reading from the API."),
        ("Secret", "type") => f("string", "Used to facilitate programmatic handling of secret data."),
        ("ServiceAccount", "secrets") => f("[]ObjectReference", "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use. Pods are only limited to this list if this service account has a \"kubernetes.io/enforce-mountable-secrets\" annotation set to \"true\"."),
        ("ServiceAccount", "imagePullSecrets") => f("[]LocalObjectReference", "ImagePullSecrets is a list of references to secrets in the same namespace to use for pulling any images in pods that reference this ServiceAccount."),
        ("ServiceAccount", "automountServiceAccountToken") => f("boolean", "AutomountServiceAccountToken indicates whether pods running as this service account should have an API token automatically mounted. Can be overridden at the pod level."),
        ("ObjectReference", "apiVersion") => f("string", "API version of the referent."),
        ("ObjectReference", "kind") => f("string", "Kind of the referent."),
        ("ObjectReference", "namespace") => f("string", "Namespace of the referent."),
        ("ObjectReference", "name") => f("string", "Name of the referent."),
        ("ObjectReference", "uid") => f("string", "UID of the referent."),
        ("ObjectReference", "resourceVersion") => f("string", "Specific resourceVersion to which this reference is made, if any."),
        ("ObjectReference", "fieldPath") => f("string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]."),
        ("LocalObjectReference", "name") => f("string", "Name of the referent."),
        ("Service", "spec") => f("ServiceSpec", "Spec defines the behavior of a service."),
        ("EndpointSlice", "addressType") => FieldDoc { required: true, ..en(&["FQDN", "IPv4", "IPv6"], "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name. (Deprecated) The EndpointSlice controller only generates, and kube-proxy only processes, slices of addressType \"IPv4\" and \"IPv6\". No semantics are defined for the \"FQDN\" type.") },
        ("EndpointSlice", "endpoints") => req("[]Endpoint", "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints."),
        ("EndpointSlice", "ports") => f("[]EndpointPort", "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. Each slice may include a maximum of 100 ports. Services always have at least 1 port, so EndpointSlices generated by the EndpointSlice controller will likewise always have at least 1 port. EndpointSlices used for other purposes may have an empty ports list."),
        ("Endpoint", "addresses") => req("[]string", "addresses of this endpoint. For EndpointSlices of addressType \"IPv4\" or \"IPv6\", the values are IP addresses in canonical form. The syntax and semantics of other addressType values are not defined. This must contain at least one address but no more than 100. EndpointSlices generated by the EndpointSlice controller will always have exactly 1 address. No semantics are defined for additional addresses beyond the first, and kube-proxy does not look at them."),
        ("Endpoint", "conditions") => f("EndpointConditions", "conditions contains information about the current status of the endpoint."),
        ("Endpoint", "hostname") => f("string", "hostname of this endpoint. This field may be used by consumers of endpoints to distinguish endpoints from each other (e.g. in DNS names). Multiple endpoints which use the same hostname should be considered fungible (e.g. multiple A values in DNS). Must be lowercase and pass DNS Label (RFC 1123) validation."),
        ("Endpoint", "targetRef") => f("ObjectReference", "targetRef is a reference to a Kubernetes object that represents this endpoint."),
        ("Endpoint", "nodeName") => f("string", "nodeName represents the name of the Node hosting this endpoint. This can be used to determine endpoints local to a Node."),
        ("Endpoint", "zone") => f("string", "zone is the name of the Zone this endpoint exists in."),
        ("Endpoint", "hints") => f("EndpointHints", "hints contains information associated with how an endpoint should be consumed."),
        ("EndpointConditions", "ready") => f("boolean", "ready indicates that this endpoint is ready to receive traffic, according to whatever system is managing the endpoint. A nil value should be interpreted as \"true\". In general, an endpoint should be marked ready if it is serving and not terminating, though this can be overridden in some cases, such as when the associated Service has set the publishNotReadyAddresses flag."),
        ("EndpointConditions", "serving") => f("boolean", "serving indicates that this endpoint is able to receive traffic, according to whatever system is managing the endpoint. For endpoints backed by pods, the EndpointSlice controller will mark the endpoint as serving if the pod's Ready condition is True. A nil value should be interpreted as \"true\"."),
        ("EndpointConditions", "terminating") => f("boolean", "terminating indicates that this endpoint is terminating. A nil value should be interpreted as \"false\"."),
        ("EndpointPort", "name") => f("string", "name represents the name of this port. All ports in an EndpointSlice must have a unique name. If the EndpointSlice is derived from a Kubernetes service, this corresponds to the Service.ports[].name. Name must either be an empty string or pass DNS_LABEL validation: * must be no more than 63 characters long. * must consist of lower case alphanumeric characters or '-'. * must start and end with an alphanumeric character. Default is empty string."),
        ("EndpointPort", "protocol") => en(&["SCTP", "TCP", "UDP"], "protocol represents the IP protocol for this port. Must be UDP, TCP, or SCTP. Default is TCP."),
        ("EndpointPort", "port") => f("integer", "port represents the port number of the endpoint. If the EndpointSlice is derived from a Kubernetes service, this must be set to the service's target port. EndpointSlices used for other purposes may have a nil port."),
        ("EndpointPort", "appProtocol") => f("string", "The application protocol for this port. This is used as a hint for implementations to offer richer behavior for protocols that they understand. This field follows standard Kubernetes label syntax."),
        ("PodDisruptionBudget", "spec") => f("PodDisruptionBudgetSpec", "Specification of the desired behavior of the PodDisruptionBudget."),
        ("PodDisruptionBudget", "status") => f("PodDisruptionBudgetStatus", "Most recently observed status of the PodDisruptionBudget."),
        ("PodDisruptionBudgetSpec", "minAvailable") => f("IntOrString", "An eviction is allowed if at least \"minAvailable\" pods selected by \"selector\" will still be available after the eviction, i.e. even in the absence of the evicted pod.  So for example you can prevent all voluntary evictions by specifying \"100%\"."),
        ("PodDisruptionBudgetSpec", "selector") => f("LabelSelector", "Label query over pods whose evictions are managed by the disruption budget. A null selector will match no pods, while an empty ({}) selector will select all pods within the namespace."),
        ("PodDisruptionBudgetSpec", "maxUnavailable") => f("IntOrString", "An eviction is allowed if at most \"maxUnavailable\" pods selected by \"selector\" are unavailable after the eviction, i.e. even in absence of the evicted pod. For example, one can prevent all voluntary evictions by specifying 0. This is a mutually exclusive setting with \"minAvailable\"."),
        ("PodDisruptionBudgetSpec", "unhealthyPodEvictionPolicy") => en(&["AlwaysAllow", "IfHealthyBudget"], "UnhealthyPodEvictionPolicy defines the criteria for when unhealthy pods should be considered for eviction. Current implementation considers healthy pods, as pods that have status.conditions item with type=\"Ready\",status=\"True\".\n\nValid policies are IfHealthyBudget and AlwaysAllow. If no policy is specified, the default behavior will be used, which corresponds to the IfHealthyBudget policy."),
        ("Service", "status") => f("ServiceStatus", "Most recently observed status of the service. Populated by the system. Read-only."),
        ("ServiceSpec", "ports") => f("[]ServicePort", "The list of ports that are exposed by this service."),
        ("ServiceSpec", "selector") => f("map[string]string", "Route service traffic to pods with label keys and values matching this selector. If empty or not present, the service is assumed to have an external process managing its endpoints, which Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. Ignored if type is ExternalName."),
        ("ServiceSpec", "clusterIP") => f("string", "clusterIP is the IP address of the service and is usually assigned randomly. If an address is specified manually, is in-range (as per system configuration), and is not in use, it will be allocated to the service; otherwise creation of the service will fail. This field may not be changed through updates unless the type field is also being changed to ExternalName. Valid values are \"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a \"headless service\" (no virtual IP)."),
        ("ServiceSpec", "clusterIPs") => f("[]string", "ClusterIPs is a list of IP addresses assigned to this service, and are usually assigned randomly."),
        ("ServiceSpec", "type") => en(&["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"], "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are ExternalName, ClusterIP, NodePort, and LoadBalancer."),
        ("ServiceSpec", "externalIPs") => f("[]string", "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service."),
        ("ServiceSpec", "sessionAffinity") => en(&["ClientIP", "None"], "Supports \"ClientIP\" and \"None\". Used to maintain session affinity. Enable client IP based session affinity. Must be ClientIP or None. Defaults to None."),
        ("ServiceSpec", "loadBalancerIP") => f("string", "Only applies to Service Type: LoadBalancer. This feature depends on whether the underlying cloud-provider supports specifying the loadBalancerIP when a load balancer is created. Deprecated."),
        ("ServiceSpec", "loadBalancerSourceRanges") => f("[]string", "If specified and supported by the platform, this will restrict traffic through the cloud-provider load-balancer will be restricted to the specified client IPs."),
        ("ServiceSpec", "externalName") => f("string", "externalName is the external reference that discovery mechanisms will return as an alias for this service (e.g. a DNS CNAME record). Must be a lowercase RFC-1123 hostname and requires `type` to be \"ExternalName\"."),
        ("ServiceSpec", "externalTrafficPolicy") => en(&["Cluster", "Local"], "externalTrafficPolicy describes how nodes distribute service traffic they receive on one of the Service's \"externally-facing\" addresses (NodePorts, ExternalIPs, and LoadBalancer IPs)."),
        ("ServiceSpec", "healthCheckNodePort") => f("integer", "healthCheckNodePort specifies the healthcheck nodePort for the service. This only applies when type is set to LoadBalancer and externalTrafficPolicy is set to Local."),
        ("ServiceSpec", "publishNotReadyAddresses") => f("boolean", "publishNotReadyAddresses indicates that any agent which deals with endpoints for this Service should disregard any indications of ready/not-ready."),
        ("ServiceSpec", "sessionAffinityConfig") => f("SessionAffinityConfig", "sessionAffinityConfig contains the configurations of session affinity."),
        ("ServiceSpec", "ipFamilies") => f("[]string", "IPFamilies is a list of IP families (e.g. IPv4, IPv6) assigned to this service."),
        ("ServiceSpec", "ipFamilyPolicy") => en(&["PreferDualStack", "RequireDualStack", "SingleStack"], "IPFamilyPolicy represents the dual-stack-ness requested or required by this Service. If there is no value provided, then this field will be set to SingleStack."),
        ("ServiceSpec", "allocateLoadBalancerNodePorts") => f("boolean", "allocateLoadBalancerNodePorts defines if NodePorts will be automatically allocated for services with type LoadBalancer. Default is \"true\"."),
        ("ServiceSpec", "loadBalancerClass") => f("string", "loadBalancerClass is the class of the load balancer implementation this Service belongs to."),
        ("ServiceSpec", "internalTrafficPolicy") => en(&["Cluster", "Local"], "InternalTrafficPolicy describes how nodes distribute service traffic they receive on the ClusterIP. If set to \"Local\", the proxy will assume that pods only want to talk to endpoints of the service on the same node as the pod. The default value is \"Cluster\"."),
        ("ServiceSpec", "trafficDistribution") => f("string", "TrafficDistribution offers a way to express preferences for how traffic is distributed to Service endpoints."),
        ("ServicePort", "name") => f("string", "The name of this port within the service. This must be a DNS_LABEL. All ports within a ServiceSpec must have unique names."),
        ("ServicePort", "protocol") => en(&["SCTP", "TCP", "UDP"], "The IP protocol for this port. Supports \"TCP\", \"UDP\", and \"SCTP\". Default is TCP."),
        ("ServicePort", "appProtocol") => f("string", "The application protocol for this port. This is used as a hint for implementations to offer richer behavior for protocols that they understand."),
        ("ServicePort", "port") => req("integer", "The port that will be exposed by this service."),
        ("ServicePort", "targetPort") => f("IntOrString", "Number or name of the port to access on the pods targeted by the service. Number must be in the range 1 to 65535. If this is not specified, the value of the 'port' field is used (an identity map)."),
        ("ServicePort", "nodePort") => f("integer", "The port on each node on which this service is exposed when type is NodePort or LoadBalancer. Usually assigned by the system."),
        ("Pod", "spec") => f("PodSpec", "Specification of the desired behavior of the pod."),
        ("Pod", "status") => f("PodStatus", "Most recently observed status of the pod. This data may not be up to date. Populated by the system. Read-only."),
        ("Deployment", "spec") => f("DeploymentSpec", "Specification of the desired behavior of the Deployment."),
        ("Deployment", "status") => f("DeploymentStatus", "Most recently observed status of the Deployment."),
        ("ReplicaSet", "spec") => f("ReplicaSetSpec", "Spec defines the specification of the desired behavior of the ReplicaSet."),
        ("ReplicaSet", "status") => f("ReplicaSetStatus", "Status is the most recently observed status of the ReplicaSet. This data may be out of date by some window of time. Populated by the system. Read-only."),
        ("Node", "spec") => f("NodeSpec", "Spec defines the behavior of a node."),
        ("Node", "status") => f("NodeStatus", "Most recently observed status of the node. Populated by the system. Read-only."),
        ("Namespace", "spec") => f("NamespaceSpec", "Spec defines the behavior of the Namespace."),
        ("Namespace", "status") => f("NamespaceStatus", "Status describes the current status of a Namespace."),
        ("PodTemplateSpec", "spec") => f("PodSpec", "Specification of the desired behavior of the pod."),

        ("ObjectMeta", "name") => f("string", "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically."),
        ("ObjectMeta", "generateName") => f("string", "GenerateName is an optional prefix, used by the server, to generate a unique name ONLY IF the Name field has not been provided."),
        ("ObjectMeta", "namespace") => f("string", "Namespace defines the space within which each name must be unique. An empty namespace is equivalent to the \"default\" namespace, but \"default\" is the canonical representation."),
        ("ObjectMeta", "selfLink") => f("string", "Deprecated: selfLink is a legacy read-only field that is no longer populated by the system."),
        ("ObjectMeta", "uid") => f("string", "UID is the unique in time and space value for this object. It is typically generated by the server on successful creation of a resource and is not allowed to change on PUT operations."),
        ("ObjectMeta", "resourceVersion") => f("string", "An opaque value that represents the internal version of this object that can be used by clients to determine when objects have changed."),
        ("ObjectMeta", "generation") => f("integer", "A sequence number representing a specific generation of the desired state. Populated by the system. Read-only."),
        ("ObjectMeta", "creationTimestamp") => f("string", "CreationTimestamp is a timestamp representing the server time when this object was created."),
        ("ObjectMeta", "deletionTimestamp") => f("string", "DeletionTimestamp is RFC 3339 date and time at which this resource will be deleted."),
        ("ObjectMeta", "deletionGracePeriodSeconds") => f("integer", "Number of seconds allowed for this object to gracefully terminate before it will be removed from the system. Only set when deletionTimestamp is also set."),
        ("ObjectMeta", "labels") => f("map[string]string", "Map of string keys and values that can be used to organize and categorize (scope and select) objects. May match selectors of replication controllers and services."),
        ("ObjectMeta", "annotations") => f("map[string]string", "Annotations is an unstructured key value map stored with a resource that may be set by external tools to store and retrieve arbitrary metadata. They are not queryable and should be preserved when modifying objects."),
        ("ObjectMeta", "ownerReferences") => f("[]OwnerReference", "List of objects depended by this object. If ALL objects in the list have been deleted, this object will be garbage collected."),
        ("ObjectMeta", "finalizers") => f("[]string", "Must be empty before the object is deleted from the registry."),
        ("ObjectMeta", "managedFields") => f("[]ManagedFieldsEntry", "ManagedFields maps workflow-id and version to the set of fields that are managed by that workflow."),

        ("OwnerReference", "apiVersion") => req("string", "API version of the referent."),
        ("OwnerReference", "kind") => req("string", "Kind of the referent."),
        ("OwnerReference", "name") => req("string", "Name of the referent."),
        ("OwnerReference", "uid") => req("string", "UID of the referent."),
        ("OwnerReference", "controller") => f("boolean", "If true, this reference points to the managing controller."),
        ("OwnerReference", "blockOwnerDeletion") => f("boolean", "If true, AND if the owner has the \"foregroundDeletion\" finalizer, then the owner cannot be deleted from the key-value store until this reference is removed."),

        ("DeploymentSpec" | "ReplicaSetSpec", "replicas") => f("integer", "Number of desired pods. This is a pointer to distinguish between explicit zero and not specified. Defaults to 1."),
        ("DeploymentSpec", "selector") => req("LabelSelector", "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment. It must match the pod template's labels."),
        ("ReplicaSetSpec", "selector") => req("LabelSelector", "Selector is a label query over pods that should match the replica count. Label keys and values that must match in order to be controlled by this replica set. It must match the pod template's labels."),
        ("DeploymentSpec", "template") => req("PodTemplateSpec", "Template describes the pods that will be created. The only allowed template.spec.restartPolicy value is \"Always\"."),
        ("ReplicaSetSpec", "template") => f("PodTemplateSpec", "Template is the object that describes the pod that will be created if insufficient replicas are detected."),
        ("DeploymentSpec", "strategy") => f("DeploymentStrategy", "The deployment strategy to use to replace existing pods with new ones."),
        ("DeploymentSpec" | "ReplicaSetSpec", "minReadySeconds") => f("integer", "Minimum number of seconds for which a newly created pod should be ready without any of its container crashing, for it to be considered available. Defaults to 0 (pod will be considered available as soon as it is ready)"),
        ("DeploymentSpec", "revisionHistoryLimit") => f("integer", "The number of old ReplicaSets to retain to allow rollback. This is a pointer to distinguish between explicit zero and not specified. Defaults to 10."),
        ("DeploymentSpec", "paused") => f("boolean", "Indicates that the deployment is paused."),
        ("DeploymentSpec", "progressDeadlineSeconds") => f("integer", "The maximum time in seconds for a deployment to make progress before it is considered to be failed. The deployment controller will continue to process failed deployments and a condition with a ProgressDeadlineExceeded reason will be surfaced in the deployment status. Defaults to 600s."),
        ("DeploymentStrategy", "type") => en(&["Recreate", "RollingUpdate"], "Type of deployment. Can be \"Recreate\" or \"RollingUpdate\". Default is RollingUpdate."),
        ("DeploymentStrategy", "rollingUpdate") => f("RollingUpdateDeployment", "Rolling update config params. Present only if DeploymentStrategyType = RollingUpdate."),
        ("RollingUpdateDeployment", "maxUnavailable") => f("IntOrString", "The maximum number of pods that can be unavailable during the update. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 25%."),
        ("RollingUpdateDeployment", "maxSurge") => f("IntOrString", "The maximum number of pods that can be scheduled above the desired number of pods. Value can be an absolute number (ex: 5) or a percentage of desired pods (ex: 10%). Defaults to 25%."),
        ("LabelSelector", "matchLabels") => f("map[string]string", "matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is \"key\", the operator is \"In\", and the values array contains only \"value\"."),
        ("LabelSelector", "matchExpressions") => f("[]LabelSelectorRequirement", "matchExpressions is a list of label selector requirements. The requirements are ANDed."),
        ("LabelSelectorRequirement", "key") => req("string", "key is the label key that the selector applies to."),
        ("LabelSelectorRequirement", "operator") => req("string", "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist."),
        ("LabelSelectorRequirement", "values") => f("[]string", "values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty."),

        ("PodSpec", "volumes") => f("[]Volume", "List of volumes that can be mounted by containers belonging to the pod."),
        ("PodSpec", "initContainers") => f("[]Container", "List of initialization containers belonging to the pod. Init containers are executed in order prior to containers being started."),
        ("PodSpec", "containers") => FieldDoc { ty: "[]Container", required: true, enums: &[], desc: "List of containers belonging to the pod. Containers cannot currently be added or removed. There must be at least one container in a Pod. Cannot be updated." },
        ("PodSpec", "ephemeralContainers") => f("[]EphemeralContainer", "List of ephemeral containers run in this pod. Ephemeral containers may be run in an existing pod to perform user-initiated actions such as debugging."),
        ("PodSpec", "restartPolicy") => en(&["Always", "Never", "OnFailure"], "Restart policy for all containers within the pod. One of Always, OnFailure, Never. Default to Always."),
        ("PodSpec", "terminationGracePeriodSeconds") => f("integer", "Optional duration in seconds the pod needs to terminate gracefully. May be decreased in delete request. Defaults to 30 seconds."),
        ("PodSpec", "activeDeadlineSeconds") => f("integer", "Optional duration in seconds the pod may be active on the node relative to StartTime before the system will actively try to mark it failed and kill associated containers."),
        ("PodSpec", "dnsPolicy") => en(&["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"], "Set DNS policy for the pod. Defaults to \"ClusterFirst\"."),
        ("PodSpec", "nodeSelector") => f("map[string]string", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node."),
        ("PodSpec", "serviceAccountName") => f("string", "ServiceAccountName is the name of the ServiceAccount to use to run this pod."),
        ("PodSpec", "serviceAccount") => f("string", "DeprecatedServiceAccount is a deprecated alias for ServiceAccountName. Deprecated: Use serviceAccountName instead."),
        ("PodSpec", "automountServiceAccountToken") => f("boolean", "AutomountServiceAccountToken indicates whether a service account token should be automatically mounted."),
        ("PodSpec", "nodeName") => f("string", "NodeName indicates in which node this pod is scheduled. If empty, this pod is a candidate for scheduling by the scheduler defined in schedulerName."),
        ("PodSpec", "hostNetwork") => f("boolean", "Host networking requested for this pod. Use the host's network namespace. Default to false."),
        ("PodSpec", "hostPID") => f("boolean", "Use the host's pid namespace. Optional: Default to false."),
        ("PodSpec", "hostIPC") => f("boolean", "Use the host's ipc namespace. Optional: Default to false."),
        ("PodSpec", "shareProcessNamespace") => f("boolean", "Share a single process namespace between all of the containers in a pod. Optional: Default to false."),
        ("PodSpec", "securityContext") => f("PodSecurityContext", "SecurityContext holds pod-level security attributes and common container settings. Optional: Defaults to empty."),
        ("PodSpec", "imagePullSecrets") => f("[]LocalObjectReference", "ImagePullSecrets is an optional list of references to secrets in the same namespace to use for pulling any of the images used by this PodSpec."),
        ("PodSpec", "hostname") => f("string", "Specifies the hostname of the Pod If not specified, the pod's hostname will be set to a system-defined value."),
        ("PodSpec", "subdomain") => f("string", "If specified, the fully qualified Pod hostname will be \"<hostname>.<subdomain>.<pod namespace>.svc.<cluster domain>\"."),
        ("PodSpec", "affinity") => f("Affinity", "If specified, the pod's scheduling constraints"),
        ("PodSpec", "schedulerName") => f("string", "If specified, the pod will be dispatched by specified scheduler. If not specified, the pod will be dispatched by default scheduler."),
        ("PodSpec", "tolerations") => f("[]Toleration", "If specified, the pod's tolerations."),
        ("PodSpec", "hostAliases") => f("[]HostAlias", "HostAliases is an optional list of hosts and IPs that will be injected into the pod's hosts file if specified."),
        ("PodSpec", "priorityClassName") => f("string", "If specified, indicates the pod's priority. \"system-node-critical\" and \"system-cluster-critical\" are two special keywords which indicate the highest priorities with the former being the highest priority."),
        ("PodSpec", "priority") => f("integer", "The priority value. Various system components use this field to find the priority of the pod. The higher the value, the higher the priority."),
        ("PodSpec", "dnsConfig") => f("PodDNSConfig", "Specifies the DNS parameters of a pod. Parameters specified here will be merged to the generated DNS configuration based on DNSPolicy."),
        ("PodSpec", "readinessGates") => f("[]PodReadinessGate", "If specified, all readiness gates will be evaluated for pod readiness."),
        ("PodSpec", "runtimeClassName") => f("string", "RuntimeClassName refers to a RuntimeClass object in the node.k8s.io group, which should be used to run this pod."),
        ("PodSpec", "enableServiceLinks") => f("boolean", "EnableServiceLinks indicates whether information about services should be injected into pod's environment variables, matching the syntax of Docker links. Optional: Defaults to true."),
        ("PodSpec", "preemptionPolicy") => en(&["Never", "PreemptLowerPriority"], "PreemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset."),
        ("PodSpec", "overhead") => f("map[string]Quantity", "Overhead represents the resource overhead associated with running a pod for a given RuntimeClass."),
        ("PodSpec", "topologySpreadConstraints") => f("[]TopologySpreadConstraint", "TopologySpreadConstraints describes how a group of pods ought to spread across topology domains. Scheduler will schedule pods in a way which abides by the constraints."),
        ("PodSpec", "setHostnameAsFQDN") => f("boolean", "If true the pod's hostname will be configured as the pod's FQDN, rather than the leaf name (the default)."),
        ("PodSpec", "os") => f("PodOS", "Specifies the OS of the containers in the pod."),
        ("PodSpec", "hostUsers") => f("boolean", "Use the host's user namespace. Optional: Default to true."),
        ("PodSpec", "schedulingGates") => f("[]PodSchedulingGate", "SchedulingGates is an opaque list of values that if specified will block scheduling the pod."),
        ("PodSpec", "resourceClaims") => f("[]PodResourceClaim", "ResourceClaims defines which ResourceClaims must be allocated and reserved before the Pod is allowed to start."),
        ("PodSpec", "resources") => f("ResourceRequirements", "Resources is the total amount of CPU and Memory resources required by all containers in the pod."),

        ("Container", "name") => req("string", "Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name (DNS_LABEL). Cannot be updated."),
        ("Container", "image") => f("string", "Container image name."),
        ("Container", "command") => f("[]string", "Entrypoint array. Not executed within a shell. The container image's ENTRYPOINT is used if this is not provided."),
        ("Container", "args") => f("[]string", "Arguments to the entrypoint. The container image's CMD is used if this is not provided."),
        ("Container", "workingDir") => f("string", "Container's working directory. If not specified, the container runtime's default will be used, which might be configured in the container image. Cannot be updated."),
        ("Container", "ports") => f("[]ContainerPort", "List of ports to expose from the container. Not specifying a port here DOES NOT prevent that port from being exposed."),
        ("Container", "envFrom") => f("[]EnvFromSource", "List of sources to populate environment variables in the container."),
        ("Container", "env") => f("[]EnvVar", "List of environment variables to set in the container. Cannot be updated."),
        ("Container", "resources") => f("ResourceRequirements", "Compute Resources required by this container. Cannot be updated."),
        ("Container", "resizePolicy") => f("[]ContainerResizePolicy", "Resources resize policy for the container."),
        ("Container", "restartPolicy") => f("string", "RestartPolicy defines the restart behavior of individual containers in a pod."),
        ("Container", "volumeMounts") => f("[]VolumeMount", "Pod volumes to mount into the container's filesystem. Cannot be updated."),
        ("Container", "volumeDevices") => f("[]VolumeDevice", "volumeDevices is the list of block devices to be used by the container."),
        ("Container", "livenessProbe") => f("Probe", "Periodic probe of container liveness. Container will be restarted if the probe fails. Cannot be updated."),
        ("Container", "readinessProbe") => f("Probe", "Periodic probe of container service readiness. Container will be removed from service endpoints if the probe fails. Cannot be updated."),
        ("Container", "startupProbe") => f("Probe", "StartupProbe indicates that the Pod has successfully initialized. If specified, no other probes are executed until this completes successfully."),
        ("Container", "lifecycle") => f("Lifecycle", "Actions that the management system should take in response to container lifecycle events. Cannot be updated."),
        ("Container", "terminationMessagePath") => f("string", "Optional: Path at which the file to which the container's termination message will be written is mounted into the container's filesystem."),
        ("Container", "terminationMessagePolicy") => en(&["FallbackToLogsOnError", "File"], "Indicate how the termination message should be populated. Defaults to File. Cannot be updated."),
        ("Container", "imagePullPolicy") => en(&["Always", "IfNotPresent", "Never"], "Image pull policy. One of Always, Never, IfNotPresent. Defaults to Always if :latest tag is specified, or IfNotPresent otherwise. Cannot be updated."),
        ("Container", "securityContext") => f("SecurityContext", "SecurityContext defines the security options the container should be run with."),
        ("Container", "stdin") => f("boolean", "Whether this container should allocate a buffer for stdin in the container runtime. Default is false."),
        ("Container", "stdinOnce") => f("boolean", "Whether the container runtime should close the stdin channel after it has been opened by a single attach. Default is false"),
        ("Container", "tty") => f("boolean", "Whether this container should allocate a TTY for itself, also requires 'stdin' to be true. Default is false."),
        ("ResourceRequirements", "limits") => f("map[string]Quantity", "Limits describes the maximum amount of compute resources allowed."),
        ("ResourceRequirements", "requests") => f("map[string]Quantity", "Requests describes the minimum amount of compute resources required. If Requests is omitted for a container, it defaults to Limits if that is explicitly specified, otherwise to an implementation-defined value."),
        ("ResourceRequirements", "claims") => f("[]ResourceClaim", "Claims lists the names of resources, defined in spec.resourceClaims, that are used by this container."),
        ("EnvVar", "name") => req("string", "Name of the environment variable. May consist of any printable ASCII characters except '='."),
        ("EnvVar", "value") => f("string", "Variable references $(VAR_NAME) are expanded using the previously defined environment variables in the container and any service environment variables. If a variable cannot be resolved, the reference in the input string will be unchanged. Double $$ are reduced to a single $, which allows for escaping the $(VAR_NAME) syntax: i.e. \"$$(VAR_NAME)\" will produce the string literal \"$(VAR_NAME)\". Escaped references will never be expanded, regardless of whether the variable exists or not. Defaults to \"\"."),
        ("EnvVar", "valueFrom") => f("EnvVarSource", "Source for the environment variable's value. Cannot be used if value is not empty."),
        ("EnvVarSource", "fieldRef") => f("ObjectFieldSelector", "Selects a field of the pod: supports metadata.name, metadata.namespace, `metadata.labels['<KEY>']`, `metadata.annotations['<KEY>']`, spec.nodeName, spec.serviceAccountName, status.hostIP, status.podIP, status.podIPs."),
        ("EnvVarSource", "resourceFieldRef") => f("ResourceFieldSelector", "Selects a resource of the container: only resources limits and requests (limits.cpu, limits.memory, limits.ephemeral-storage, requests.cpu, requests.memory and requests.ephemeral-storage) are currently supported."),
        ("EnvVarSource", "configMapKeyRef") => f("ConfigMapKeySelector", "Selects a key of a ConfigMap."),
        ("EnvVarSource", "secretKeyRef") => f("SecretKeySelector", "Selects a key of a secret in the pod's namespace"),
        ("EnvVarSource", "fileKeyRef") => f("FileKeySelector", "FileKeyRef selects a key of the env file. Requires the EnvFiles feature gate to be enabled."),
        ("ConfigMapKeySelector", "name") => f("string", "Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
        ("ConfigMapKeySelector", "key") => req("string", "The key to select."),
        ("ConfigMapKeySelector", "optional") => f("boolean", "Specify whether the ConfigMap or its key must be defined"),
        ("SecretKeySelector", "name") => f("string", "Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
        ("SecretKeySelector", "key") => req("string", "The key of the secret to select from.  Must be a valid secret key."),
        ("SecretKeySelector", "optional") => f("boolean", "Specify whether the Secret or its key must be defined"),
        ("EnvFromSource", "prefix") => f("string", "Optional text to prepend to the name of each environment variable. May consist of any printable ASCII characters except '='."),
        ("EnvFromSource", "configMapRef") => f("ConfigMapEnvSource", "The ConfigMap to select from"),
        ("EnvFromSource", "secretRef") => f("SecretEnvSource", "The Secret to select from"),
        ("ConfigMapEnvSource", "name") => f("string", "Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
        ("ConfigMapEnvSource", "optional") => f("boolean", "Specify whether the ConfigMap must be defined"),
        ("SecretEnvSource", "name") => f("string", "Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
        ("SecretEnvSource", "optional") => f("boolean", "Specify whether the Secret must be defined"),
        ("Volume", "name") => req("string", "name of the volume. Must be a DNS_LABEL and unique within the pod. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
        ("Volume", "hostPath") => f("HostPathVolumeSource", "hostPath represents a pre-existing file or directory on the host machine that is directly exposed to the container."),
        ("Volume", "emptyDir") => f("EmptyDirVolumeSource", "emptyDir represents a temporary directory that shares a pod's lifetime. More info: https://kubernetes.io/docs/concepts/storage/volumes#emptydir"),
        ("Volume", "gcePersistentDisk") => f("GCEPersistentDiskVolumeSource", "gcePersistentDisk represents a GCE Disk resource that is attached to a kubelet's host machine and then exposed to the pod. Deprecated: GCEPersistentDisk is deprecated."),
        ("Volume", "awsElasticBlockStore") => f("AWSElasticBlockStoreVolumeSource", "awsElasticBlockStore represents an AWS Disk resource that is attached to a kubelet's host machine and then exposed to the pod. Deprecated: AWSElasticBlockStore is deprecated."),
        ("Volume", "gitRepo") => f("GitRepoVolumeSource", "gitRepo represents a git repository at a particular revision. Deprecated: GitRepo is deprecated."),
        ("Volume", "secret") => f("SecretVolumeSource", "secret represents a secret that should populate this volume. More info: https://kubernetes.io/docs/concepts/storage/volumes#secret"),
        ("Volume", "nfs") => f("NFSVolumeSource", "nfs represents an NFS mount on the host that shares a pod's lifetime More info: https://kubernetes.io/docs/concepts/storage/volumes#nfs"),
        ("Volume", "iscsi") => f("ISCSIVolumeSource", "iscsi represents an ISCSI Disk resource that is attached to a kubelet's host machine and then exposed to the pod."),
        ("Volume", "glusterfs") => f("GlusterfsVolumeSource", "glusterfs represents a Glusterfs mount on the host that shares a pod's lifetime. Deprecated: Glusterfs is deprecated and the in-tree glusterfs type is no longer supported."),
        ("Volume", "persistentVolumeClaim") => f("PersistentVolumeClaimVolumeSource", "persistentVolumeClaimVolumeSource represents a reference to a PersistentVolumeClaim in the same namespace. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#persistentvolumeclaims"),
        ("Volume", "rbd") => f("RBDVolumeSource", "rbd represents a Rados Block Device mount on the host that shares a pod's lifetime. Deprecated: RBD is deprecated and the in-tree rbd type is no longer supported."),
        ("Volume", "flexVolume") => f("FlexVolumeSource", "flexVolume represents a generic volume resource that is provisioned/attached using an exec based plugin. Deprecated: FlexVolume is deprecated."),
        ("Volume", "cinder") => f("CinderVolumeSource", "cinder represents a cinder volume attached and mounted on kubelets host machine. Deprecated: Cinder is deprecated."),
        ("Volume", "cephfs") => f("CephFSVolumeSource", "cephFS represents a Ceph FS mount on the host that shares a pod's lifetime. Deprecated: CephFS is deprecated and the in-tree cephfs type is no longer supported."),
        ("Volume", "flocker") => f("FlockerVolumeSource", "flocker represents a Flocker volume attached to a kubelet's host machine. Deprecated: Flocker is deprecated and the in-tree flocker type is no longer supported."),
        ("Volume", "downwardAPI") => f("DownwardAPIVolumeSource", "downwardAPI represents downward API about the pod that should populate this volume"),
        ("Volume", "fc") => f("FCVolumeSource", "fc represents a Fibre Channel resource that is attached to a kubelet's host machine and then exposed to the pod."),
        ("Volume", "azureFile") => f("AzureFileVolumeSource", "azureFile represents an Azure File Service mount on the host and bind mount to the pod. Deprecated: AzureFile is deprecated."),
        ("Volume", "configMap") => f("ConfigMapVolumeSource", "configMap represents a configMap that should populate this volume"),
        ("Volume", "vsphereVolume") => f("VsphereVirtualDiskVolumeSource", "vsphereVolume represents a vSphere volume attached and mounted on kubelets host machine. Deprecated: VsphereVolume is deprecated."),
        ("Volume", "quobyte") => f("QuobyteVolumeSource", "quobyte represents a Quobyte mount on the host that shares a pod's lifetime. Deprecated: Quobyte is deprecated and the in-tree quobyte type is no longer supported."),
        ("Volume", "azureDisk") => f("AzureDiskVolumeSource", "azureDisk represents an Azure Data Disk mount on the host and bind mount to the pod. Deprecated: AzureDisk is deprecated."),
        ("Volume", "photonPersistentDisk") => f("PhotonPersistentDiskVolumeSource", "photonPersistentDisk represents a PhotonController persistent disk attached and mounted on kubelets host machine. Deprecated: PhotonPersistentDisk is deprecated and the in-tree photonPersistentDisk type is no longer supported."),
        ("Volume", "projected") => f("ProjectedVolumeSource", "projected items for all in one resources secrets, configmaps, and downward API"),
        ("Volume", "portworxVolume") => f("PortworxVolumeSource", "portworxVolume represents a portworx volume attached and mounted on kubelets host machine. Deprecated: PortworxVolume is deprecated."),
        ("Volume", "scaleIO") => f("ScaleIOVolumeSource", "scaleIO represents a ScaleIO persistent volume attached and mounted on Kubernetes nodes. Deprecated: ScaleIO is deprecated and the in-tree scaleIO type is no longer supported."),
        ("Volume", "storageos") => f("StorageOSVolumeSource", "storageOS represents a StorageOS volume attached and mounted on Kubernetes nodes. Deprecated: StorageOS is deprecated and the in-tree storageos type is no longer supported."),
        ("Volume", "csi") => f("CSIVolumeSource", "csi (Container Storage Interface) represents ephemeral storage that is handled by certain external CSI drivers."),
        ("Volume", "ephemeral") => f("EphemeralVolumeSource", "ephemeral represents a volume that is handled by a cluster storage driver. The volume's lifecycle is tied to the pod that defines it - it will be created before the pod starts, and deleted when the pod is removed."),
        ("Volume", "image") => f("ImageVolumeSource", "image represents an OCI object (a container image or artifact) pulled and mounted on the kubelet's host machine."),
        ("EmptyDirVolumeSource", "medium") => f("string", "medium represents what type of storage medium should back this directory. The default is \"\" which means to use the node's default medium. Must be an empty string (default) or Memory. More info: https://kubernetes.io/docs/concepts/storage/volumes#emptydir"),
        ("EmptyDirVolumeSource", "sizeLimit") => f("Quantity", "sizeLimit is the total amount of local storage required for this EmptyDir volume. The size limit is also applicable for memory medium. The maximum usage on memory medium EmptyDir would be the minimum value between the SizeLimit specified here and the sum of memory limits of all containers in a pod. The default is nil which means that the limit is undefined. More info: https://kubernetes.io/docs/concepts/storage/volumes#emptydir"),
        ("SecretVolumeSource", "secretName") => f("string", "secretName is the name of the secret in the pod's namespace to use. More info: https://kubernetes.io/docs/concepts/storage/volumes#secret"),
        ("SecretVolumeSource", "items") => f("[]KeyToPath", "items If unspecified, each key-value pair in the Data field of the referenced Secret will be projected into the volume as a file whose name is the key and content is the value. If specified, the listed keys will be projected into the specified paths, and unlisted keys will not be present."),
        ("SecretVolumeSource", "defaultMode") => f("integer", "defaultMode is Optional: mode bits used to set permissions on created files by default. Must be an octal value between 0000 and 0777 or a decimal value between 0 and 511. Defaults to 0644."),
        ("SecretVolumeSource", "optional") => f("boolean", "optional field specify whether the Secret or its keys must be defined"),
        ("ConfigMapVolumeSource", "name") => f("string", "Name of the referent. This field is effectively required, but due to backwards compatibility is allowed to be empty. Instances of this type with an empty value here are almost certainly wrong. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
        ("ConfigMapVolumeSource", "items") => f("[]KeyToPath", "items if unspecified, each key-value pair in the Data field of the referenced ConfigMap will be projected into the volume as a file whose name is the key and content is the value. If specified, the listed keys will be projected into the specified paths, and unlisted keys will not be present."),
        ("ConfigMapVolumeSource", "defaultMode") => f("integer", "defaultMode is optional: mode bits used to set permissions on created files by default. Must be an octal value between 0000 and 0777 or a decimal value between 0 and 511. Defaults to 0644."),
        ("ConfigMapVolumeSource", "optional") => f("boolean", "optional specify whether the ConfigMap or its keys must be defined"),
        ("Probe", "exec") => f("ExecAction", "Exec specifies a command to execute in the container."),
        ("Probe", "httpGet") => f("HTTPGetAction", "HTTPGet specifies an HTTP GET request to perform."),
        ("Probe", "tcpSocket") => f("TCPSocketAction", "TCPSocket specifies a connection to a TCP port."),
        ("Probe", "grpc") => f("GRPCAction", "GRPC specifies a GRPC HealthCheckRequest."),
        ("Probe", "initialDelaySeconds") => f("integer", "Number of seconds after the container has started before liveness probes are initiated. More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#container-probes"),
        ("Probe", "timeoutSeconds") => f("integer", "Number of seconds after which the probe times out. Defaults to 1 second. Minimum value is 1. More info: https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle#container-probes"),
        ("Probe", "periodSeconds") => f("integer", "How often (in seconds) to perform the probe. Default to 10 seconds. Minimum value is 1."),
        ("Probe", "successThreshold") => f("integer", "Minimum consecutive successes for the probe to be considered successful after having failed. Defaults to 1. Must be 1 for liveness and startup. Minimum value is 1."),
        ("Probe", "failureThreshold") => f("integer", "Minimum consecutive failures for the probe to be considered failed after having succeeded. Defaults to 3. Minimum value is 1."),
        ("Probe", "terminationGracePeriodSeconds") => f("integer", "Optional duration in seconds the pod needs to terminate gracefully upon probe failure. The grace period is the duration in seconds after the processes running in the pod are sent a termination signal and the time when the processes are forcibly halted with a kill signal. Set this value longer than the expected cleanup time for your process. If this value is nil, the pod's terminationGracePeriodSeconds will be used. Otherwise, this value overrides the value provided by the pod spec. Value must be non-negative integer. The value zero indicates stop immediately via the kill signal (no opportunity to shut down). This is a beta field and requires enabling ProbeTerminationGracePeriod feature gate. Minimum value is 1. spec.terminationGracePeriodSeconds is used if unset."),
        ("ExecAction", "command") => f("[]string", "Command is the command line to execute inside the container, the working directory for the command  is root ('/') in the container's filesystem. The command is simply exec'd, it is not run inside a shell, so traditional shell instructions ('|', etc) won't work. To use a shell, you need to explicitly call out to that shell. Exit status of 0 is treated as live/healthy and non-zero is unhealthy."),
        ("HTTPGetAction", "path") => f("string", "Path to access on the HTTP server."),
        ("HTTPGetAction", "port") => req("IntOrString", "Name or number of the port to access on the container. Number must be in the range 1 to 65535. Name must be an IANA_SVC_NAME."),
        ("HTTPGetAction", "host") => f("string", "Host name to connect to, defaults to the pod IP. You probably want to set \"Host\" in httpHeaders instead."),
        ("HTTPGetAction", "scheme") => en(&["HTTP", "HTTPS"], "Scheme to use for connecting to the host. Defaults to HTTP."),
        ("HTTPGetAction", "httpHeaders") => f("[]HTTPHeader", "Custom headers to set in the request. HTTP allows repeated headers."),
        ("HTTPHeader", "name") => req("string", "The header field name. This will be canonicalized upon output, so case-variant names will be understood as the same header."),
        ("HTTPHeader", "value") => req("string", "The header field value"),
        ("TCPSocketAction", "port") => req("IntOrString", "Number or name of the port to access on the container. Number must be in the range 1 to 65535. Name must be an IANA_SVC_NAME."),
        ("TCPSocketAction", "host") => f("string", "Optional: Host name to connect to, defaults to the pod IP."),
        ("GRPCAction", "port") => req("integer", "Port number of the gRPC service. Number must be in the range 1 to 65535."),
        ("GRPCAction", "service") => f("string", "Service is the name of the service to place in the gRPC HealthCheckRequest (see https://github.com/grpc/grpc/blob/master/doc/health-checking.md).\n\nIf this is not specified, the default behavior is defined by gRPC."),
        ("ContainerPort", "name") => f("string", "If specified, this must be an IANA_SVC_NAME and unique within the pod. Each named port in a pod must have a unique name."),
        ("ContainerPort", "hostPort") => f("integer", "Number of port to expose on the host. If specified, this must be a valid port number, 0 < x < 65536."),
        ("ContainerPort", "containerPort") => req("integer", "Number of port to expose on the pod's IP address. This must be a valid port number, 0 < x < 65536."),
        ("ContainerPort", "protocol") => en(&["SCTP", "TCP", "UDP"], "Protocol for port. Must be UDP, TCP, or SCTP. Defaults to \"TCP\"."),
        ("ContainerPort", "hostIP") => f("string", "What host IP to bind the external port to."),
        ("Toleration", "key") => f("string", "Key is the taint key that the toleration applies to. Empty means match all taint keys."),
        ("Toleration", "operator") => en(&["Equal", "Exists"], "Operator represents a key's relationship to the value. Valid operators are Exists and Equal. Defaults to Equal."),
        ("Toleration", "value") => f("string", "Value is the taint value the toleration matches to. If the operator is Exists, the value should be empty, otherwise just a regular string."),
        ("Toleration", "effect") => en(EFFECTS, "Effect indicates the taint effect to match. Empty means match all taint effects."),
        ("Toleration", "tolerationSeconds") => f("integer", "TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute, otherwise this field is ignored) tolerates the taint."),

        ("NodeSpec", "podCIDR") => f("string", "PodCIDR represents the pod IP range assigned to the node."),
        ("NodeSpec", "podCIDRs") => f("[]string", "podCIDRs represents the IP ranges assigned to the node for usage by Pods on that node."),
        ("NodeSpec", "providerID") => f("string", "ID of the node assigned by the cloud provider in the format: <ProviderName>://<ProviderSpecificNodeID>"),
        ("NodeSpec", "unschedulable") => f("boolean", "Unschedulable controls node schedulability of new pods. By default, node is schedulable."),
        ("NodeSpec", "taints") => f("[]Taint", "If specified, the node's taints."),
        ("NodeSpec", "configSource") => f("NodeConfigSource", "Deprecated: Previously used to specify the source of the node's configuration for the DynamicKubeletConfig feature."),
        ("NodeSpec", "externalID") => f("string", "Deprecated. Not all kubelets will set this field. Remove field after 1.13."),
        ("Taint", "key") => req("string", "Required. The taint key to be applied to a node."),
        ("Taint", "value") => f("string", "The taint value corresponding to the taint key."),
        ("Taint", "effect") => FieldDoc { ty: "string", required: true, enums: EFFECTS, desc: "Required. The effect of the taint on pods that do not tolerate the taint. Valid effects are NoSchedule, PreferNoSchedule and NoExecute." },
        ("Taint", "timeAdded") => f("string", "TimeAdded represents the time at which the taint was added."),
        ("NamespaceSpec", "finalizers") => f("[]string", "Finalizers is an opaque list of values that must be empty to permanently remove object from storage."),
        _ => return None,
    })
}

/// The description of a kind (the top of `kubectl explain KIND`).
fn kind_doc(kind: Kind) -> &'static str {
    match kind {
        Kind::Pod => "Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts.",
        Kind::Deployment => "Deployment enables declarative updates for Pods and ReplicaSets.",
        Kind::ReplicaSet => "ReplicaSet ensures that a specified number of pod replicas are running at any given time.",
        Kind::Node => "Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd).",
        Kind::Namespace => "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
        Kind::ConfigMap => "ConfigMap holds configuration data for pods to consume.",
        Kind::Secret => "Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes.",
        Kind::Service => "Service is a named abstraction of software service (for example, mysql) consisting of local port (for example 3306) that the proxy listens on, and the selector that determines which pods will answer requests sent through the proxy.",
        Kind::ServiceAccount => "ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets",
        Kind::EndpointSlice => "EndpointSlice represents a set of service endpoints. Most EndpointSlices are created by the EndpointSlice controller to represent the Pods selected by Service objects. For a given service there may be multiple EndpointSlice objects which must be joined to produce the full set of endpoints; you can find all of the slices for a given service by listing EndpointSlices in the service's namespace whose `kubernetes.io/service-name` label contains the service's name.",
        Kind::PodDisruptionBudget => "PodDisruptionBudget is an object to define the max disruption that can be caused to a collection of pods",
        _ => "",
    }
}

const NOT_SIMULATED: &str = "kubeloop: accepted, not simulated (kubectl apply drops it with a warning).";
const SIMULATED: &str = "kubeloop: simulated.";
const STORED: &str = "kubeloop: stored and served by kubectl, not simulated further (kubectl apply says so).";
const STATUS: &str =
    "kubeloop: written by the simulated controllers and kubelet; ignored when applied. See it with `kubectl get -o yaml`.";

fn run(_: &mut Sim, args: &Args, _: &Input) -> Result<Output, Output> {
    if args.positional.is_empty() {
        return Err(Output::error("You must specify the type of resource to explain. Use \"kubectl api-resources\" for a complete list of supported resources.\n"));
    }
    if args.positional.len() > 1 {
        return Err(Output::error("We accept only this format: explain RESOURCE\n"));
    }
    let max_depth = match args.int("max-depth") {
        Ok(d) => d.unwrap_or(0),
        Err(e) => return Err(Output::error(e)),
    };
    let recursive = args.bool("recursive");
    if max_depth > 0 && !recursive {
        return Err(Output::error("--max-depth requires --recursive"));
    }
    if max_depth < 0 {
        return Err(Output::error("--max-depth must be non-negative"));
    }
    if let Some(o) = args.value("output").filter(|o| *o != "plaintext") {
        return Err(Output::error(format!("unsupported output format: {o}; kubeloop prints plaintext")));
    }
    let arg = &args.positional[0];
    let mut segs = arg.split('.');
    let resource_name = segs.next().unwrap_or_default();
    let path: Vec<&str> = segs.collect();
    let kind = resource::kind_of(resource_name).map_err(Output::error)?;
    if let Some(v) = args.value("api-version") {
        if v != kind.api_version() {
            return Err(Output::error(format!("couldn't find resource for \"{}, Kind={}\"", v, kind.name())));
        }
    }
    let Some(root) = manifest::schema_type(kind) else {
        return Err(Output::error(format!(
            "kubeloop explains the kinds its manifests accept (Namespace, Node, Pod, ConfigMap, Secret, ServiceAccount, Service, Deployment, ReplicaSet), not {}",
            kind.name()
        )));
    };
    explain(kind, root, &path, recursive, max_depth as usize)
}

/// One step of a resolved path: the field, the type that holds it, its documentation.
struct Step<'a> {
    field: &'a str,
    parent: &'static str,
    doc: FieldDoc,
}

fn explain(kind: Kind, root: &'static str, path: &[&str], recursive: bool, max_depth: usize) -> Result<Output, Output> {
    let r = resource::resource(kind);
    let mut out = String::new();
    if !r.group.is_empty() {
        let _ = writeln!(out, "GROUP:      {}", r.group);
    }
    let _ = writeln!(out, "KIND:       {}", kind.name());
    let _ = writeln!(out, "VERSION:    {}\n", r.version);
    // Follow the path through the manifest tables.
    let mut ty: Option<&'static str> = Some(root);
    let mut steps: Vec<Step> = Vec::new();
    for (i, field) in path.iter().enumerate() {
        let parent = match ty {
            Some(t) if manifest::schema_fields(t).contains(field) => t,
            _ => {
                if steps.last().is_some_and(|s| s.field == "status") {
                    return Err(Output::error(format!(
                        "kubeloop does not explain the fields of status ({}): status is written by the simulated controllers and kubelet and ignored when applied; see it with `kubectl get -o yaml`",
                        path[..=i].join(".")
                    )));
                }
                return Err(Output::error(format!("field \"{field}\" does not exist")));
            }
        };
        let Some(doc) = field_doc(parent, field) else {
            return Err(Output::error(format!("field \"{field}\" does not exist")));
        };
        ty = if *field == "status" { None } else { manifest::field_type(parent, field) };
        steps.push(Step { field, parent, doc });
    }
    let description = match steps.last() {
        None => kind_doc(kind).to_string(),
        Some(last) => {
            let _ = writeln!(out, "FIELD: {} <{}>", last.field, last.doc.ty);
            if !last.doc.enums.is_empty() {
                out.push_str("ENUM:");
                for e in last.doc.enums {
                    let _ = write!(out, "\n    {e}");
                }
            }
            out.push_str("\n\n");
            format!("{}\n{}", last.doc.desc, note(kind, &steps))
        }
    };
    out.push_str("DESCRIPTION:\n");
    out.push_str(&indent(&wrap(&format!("{description}\n"), 76), 4));
    out.push('\n');
    if let Some(t) = ty {
        let prefix: Vec<&str> = steps.iter().map(|s| s.field).collect();
        let list = field_list(kind, &steps, t, &prefix, 1, recursive, max_depth);
        if !list.is_empty() {
            out.push_str("FIELDS:\n");
            out.push_str(&list);
        }
    }
    out.push('\n');
    Ok(Output::ok(out))
}

/// Whether kubeloop simulates the field at the end of `steps` (said in its description).
fn note(kind: Kind, steps: &[Step]) -> &'static str {
    if manifest::stored_only(kind).is_some() {
        return STORED;
    }
    if steps.is_empty() {
        return SIMULATED;
    }
    if steps.iter().any(|s| s.field == "status") {
        return STATUS;
    }
    if simulated(kind, steps) {
        SIMULATED
    } else {
        NOT_SIMULATED
    }
}

/// Applies a probe manifest that sets the field (and what its parents require) through `manifest::parse`: a
/// field kubeloop does not simulate comes back as a warning naming its path.
fn simulated(kind: Kind, steps: &[Step]) -> bool {
    if matches!(steps, [s] if s.field == "apiVersion" || s.field == "kind") {
        return true;
    }
    let mut doc = json!({ "apiVersion": kind.api_version(), "kind": kind.name(), "metadata": { "name": "probe" } });
    let mut pretty = Vec::new();
    {
        let mut cur = &mut doc;
        for (i, s) in steps.iter().enumerate() {
            let Some(obj) = cur.as_object_mut() else { return true };
            fill_required(obj, s.parent);
            pretty.push(s.field.to_string());
            if i + 1 == steps.len() {
                obj.insert(s.field.to_string(), sample(s.doc.ty));
                break;
            }
            let list = s.doc.ty.starts_with("[]");
            let slot = obj.entry(s.field.to_string()).or_insert_with(|| json!({}));
            if list {
                *slot = json!([{}]);
                pretty.push("0".to_string());
                cur = &mut slot[0];
            } else {
                if !slot.is_object() {
                    *slot = json!({});
                }
                cur = slot;
            }
        }
    }
    let text = crate::yamlwrite::json_to_string(&doc);
    let segments: Vec<&str> = pretty.iter().map(String::as_str).collect();
    let want = manifest::pretty_path(&segments);
    match manifest::parse(&text) {
        Err(_) => true,
        Ok((_, warnings)) => !warnings.iter().any(|w| w.path == want),
    }
}

/// Sets the required fields of an object of schema type `ty` to sample values.
fn fill_required(obj: &mut Map<String, Value>, ty: &str) {
    for field in manifest::schema_fields(ty) {
        if let Some(d) = field_doc(ty, field).filter(|d| d.required) {
            obj.entry(field.to_string()).or_insert_with(|| sample(d.ty));
        }
    }
}

fn sample(ty: &str) -> Value {
    match ty {
        "string" => json!("x"),
        "integer" | "IntOrString" => json!(1),
        "boolean" => json!(true),
        t if t.starts_with("[]") => json!([]),
        _ => json!({}),
    }
}

/// The `FIELDS:` list of type `ty` at indentation `level` (kubectl's fieldList / fieldDetail templates).
#[allow(clippy::too_many_arguments)]
fn field_list(
    kind: Kind,
    steps: &[Step],
    ty: &'static str,
    prefix: &[&str],
    level: usize,
    recursive: bool,
    max_depth: usize,
) -> String {
    let mut fields: Vec<&str> = manifest::schema_fields(ty).to_vec();
    crate::sort::sort(&mut fields);
    let pad = " ".repeat(level * 2);
    let mut out = String::new();
    for field in fields {
        let Some(doc) = field_doc(ty, field) else { continue };
        let _ = write!(out, "{pad}{field}\t<{}>", doc.ty);
        if doc.required {
            out.push_str(" -required-");
        }
        if !doc.enums.is_empty() {
            let shown: Vec<&str> = doc.enums.iter().take(4).copied().collect();
            let _ = write!(out, "\n{pad}enum: {}", shown.join(", "));
            if doc.enums.len() > 4 {
                out.push_str(", ....");
            }
        }
        out.push('\n');
        let child = (field != "status").then(|| manifest::field_type(ty, field)).flatten();
        let mut path: Vec<Step> =
            steps.iter().map(|s| Step { field: s.field, parent: s.parent, doc: copy(&s.doc) }).collect();
        path.push(Step { field, parent: ty, doc: copy(&doc) });
        if recursive {
            if let Some(c) = child {
                if max_depth == 0 || level < max_depth {
                    let mut p = prefix.to_vec();
                    p.push(field);
                    out.push_str(&field_list(kind, &path, c, &p, level + 1, recursive, max_depth));
                }
            }
        } else {
            let text = format!("{}\n{}", doc.desc, note(kind, &path));
            out.push_str(&indent(&wrap(&text, 78 - level * 2), level * 2 + 2));
            out.push_str("\n\n");
        }
    }
    out
}

fn copy(d: &FieldDoc) -> FieldDoc {
    FieldDoc { ty: d.ty, required: d.required, enums: d.enums, desc: d.desc }
}

/// sprig's `wrap`: words wrapped at `width` columns, each line of the text on its own.
fn wrap(text: &str, width: usize) -> String {
    let mut out = Vec::new();
    for line in text.split('\n') {
        let mut cur = String::new();
        for word in line.split(' ') {
            if !cur.is_empty() && cur.len() + 1 + word.len() > width {
                out.push(std::mem::take(&mut cur));
            } else if !cur.is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cur);
    }
    out.join("\n")
}

/// sprig's `indent`: `n` spaces before every line (also the empty line after a final newline).
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    format!("{pad}{}", text.replace('\n', &format!("\n{pad}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field the manifests accept is documented here: the two tables cannot drift apart.
    #[test]
    fn every_accepted_field_is_documented() {
        let mut todo: Vec<&str> = manifest::APPLICABLE.iter().filter_map(|k| manifest::schema_type(*k)).collect();
        let mut seen = Vec::new();
        while let Some(ty) = todo.pop() {
            if seen.contains(&ty) {
                continue;
            }
            seen.push(ty);
            for field in manifest::schema_fields(ty) {
                assert!(field_doc(ty, field).is_some(), "{ty}.{field} has no documentation in explain.rs");
                if *field != "status" {
                    if let Some(t) = manifest::field_type(ty, field) {
                        todo.push(t);
                    }
                }
            }
        }
        assert!(seen.len() > 10, "{seen:?}");
    }

    #[test]
    fn wrap_and_indent_like_sprig() {
        assert_eq!(wrap("aaa bbb ccc", 7), "aaa bbb\nccc");
        assert_eq!(indent("a\nb\n", 2), "  a\n  b\n  ");
    }
}
