//! Validation as the API server's, kind by kind (issue 28, part 4): what `kubectl apply` and `kubectl create` of a
//! typed manifest get, against upstream's `validation.go` of each group (`kubernetes/pkg/apis/core/validation`,
//! `apps/validation`, `policy/validation`, `discovery/validation`, apimachinery's `api/validation/objectmeta.go`):
//! refusals with kubectl's message (`The Service "s" is invalid: ...`) at the offending line, nothing written; and
//! what upstream accepts, accepted.
mod common;

use common::kubectl_stdin;
use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};

/// A one-node cluster.
fn sim() -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 1, ..Default::default() });
    sim.add_node(NodeConfig::default()).expect("node");
    sim
}

/// `kubectl VERB -f -` of `text` is refused with exactly `expected` (kubectl's message and the line kubeloop
/// adds; kubeloop's warnings about what it does not simulate aside), and writes nothing.
fn refused(verb: &str, text: &str, expected: &str) {
    let mut sim = sim();
    let before = sim.store().resource_version();
    let out = kubectl_stdin(&mut sim, &format!("{verb} -f -"), text);
    assert_eq!(out.code, 1, "{verb} should be refused: {}{}", out.stdout, out.stderr);
    let errors: Vec<&str> = out.stderr.lines().filter(|l| !l.starts_with("Warning: ")).collect();
    assert_eq!(errors.join("\n"), expected, "{verb}");
    assert_eq!(sim.store().resource_version(), before, "a refused {verb} wrote");
}

/// `kubectl VERB -f -` of `text` succeeds; the cluster after it.
fn accepted(verb: &str, text: &str) -> Sim {
    let mut sim = sim();
    let out = kubectl_stdin(&mut sim, &format!("{verb} -f -"), text);
    assert_eq!(out.code, 0, "{verb} should be accepted: {}{}", out.stdout, out.stderr);
    sim
}

const NODE_PORTS: &str = "\
apiVersion: v1
kind: Service
metadata:
  name: s
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - name: http
    port: 80
    nodePort: 30080
  - name: https
    port: 443
    nodePort: 30080
";

#[test]
fn a_node_port_twice_in_one_service_is_refused() {
    let expected =
        "error: document 1, line 14: The Service \"s\" is invalid: spec.ports[1].nodePort: Duplicate value: 30080";
    refused("apply", NODE_PORTS, expected);
    refused("create", NODE_PORTS, expected);
}

#[test]
fn a_port_and_protocol_twice_in_one_service_is_refused() {
    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  ports:\n  - name: a\n    port: 80\n  - name: b\n    port: 80\n";
    refused(
        "apply",
        text,
        "error: document 1, line 9: The Service \"s\" is invalid: spec.ports[1]: Duplicate value: core.ServicePort{Name:\"\", Protocol:\"TCP\", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}",
    );
    // The same port over two protocols is two ports.
    accepted(
        "apply",
        &text.replace("    port: 80\n", "    port: 80\n    protocol: UDP\n").replacen("    protocol: UDP\n", "", 1),
    );
}

/// A ConfigMap of one key whose value is `n` bytes.
fn config_map(n: usize) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  a: {}\n", "x".repeat(n))
}

#[test]
fn a_config_map_holds_one_mebibyte_of_values_keys_not_counted() {
    let sim = accepted("create", &config_map(1 << 20));
    let cm = sim.store().peek(Kind::ConfigMap, &ObjKey::new("default", "big")).expect("created");
    assert_eq!(cm.as_configmap().map(|c| c.data.get("a").map_or(0, |v| v.len())), Some(1 << 20));
    refused(
        "create",
        &config_map((1 << 20) + 1),
        "error: document 1, line 5: The ConfigMap \"big\" is invalid: []: Too long: must have at most 1048576 bytes",
    );
}

#[test]
fn a_secret_holds_one_mebibyte_of_decoded_values() {
    let value = kubeloop_engine::api::config::base64_encode(&vec![b'x'; (1 << 20) + 1]);
    let text = format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: big\ndata:\n  a: {value}\n");
    refused(
        "create",
        &text,
        "error: document 1, line 5: The Secret \"big\" is invalid: data: Too long: must have at most 1048576 bytes",
    );
    let value = kubeloop_engine::api::config::base64_encode(&vec![b'x'; 1 << 20]);
    accepted("create", &format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: big\ndata:\n  a: {value}\n"));
}

#[test]
fn apply_of_a_large_config_map_is_refused_for_its_last_applied_annotation_and_create_works() {
    let text = config_map(300_000);
    let mut sim = sim();
    let before = sim.store().resource_version();
    let out = kubectl_stdin(&mut sim, "apply -f -", &text);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let mut lines = out.stderr.lines();
    assert_eq!(
        lines.next(),
        Some(
            "error: document 1, line 3: The ConfigMap \"big\" is invalid: metadata.annotations: Too long: must have at most 262144 bytes"
        )
    );
    let note = lines.next().unwrap_or_default();
    assert!(note.starts_with("kubeloop: kubectl apply keeps a copy of the whole object ("), "{note}");
    assert!(note.contains("kubectl.kubernetes.io/last-applied-configuration"), "{note}");
    assert!(note.contains("`kubectl create -f`"), "{note}");
    assert_eq!(sim.store().resource_version(), before, "nothing written");
    let out = kubectl_stdin(&mut sim, "create -f -", &text);
    assert_eq!(out.stdout, "configmap/big created\n", "{}", out.stderr);
}

#[test]
fn annotations_are_held_to_their_syntax_and_size() {
    refused(
        "apply",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    a/b/c: x\n",
        "error: document 1, line 5: The ConfigMap \"c\" is invalid: metadata.annotations: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    let big = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    note: {}\n",
        "x".repeat(1 << 18)
    );
    refused(
        "create",
        &big,
        "error: document 1, line 5: The ConfigMap \"c\" is invalid: metadata.annotations: Too long: must have at most 262144 bytes",
    );
}

#[test]
fn base64_wrapped_over_lines_is_one_value_as_go_reads_it() {
    let bytes: Vec<u8> = (0..200u8).collect();
    let encoded = kubeloop_engine::api::config::base64_encode(&bytes);
    let wrapped: String =
        encoded.as_bytes().chunks(76).map(|l| format!("    {}\n", String::from_utf8_lossy(l))).collect();
    let text = format!("apiVersion: v1\nkind: Secret\nmetadata:\n  name: tls\ndata:\n  blob: |\n{wrapped}");
    let sim = accepted("apply", &text);
    let s = sim.store().peek(Kind::Secret, &ObjKey::new("default", "tls")).expect("stored");
    let stored = s.as_secret().and_then(|s| s.data.get("blob").cloned()).unwrap_or_default();
    // Stored as the bytes, encoded again on one line, as the API server keeps a []byte.
    assert_eq!(&*stored, encoded);
}

#[test]
fn names_follow_each_kinds_rule() {
    refused(
        "apply",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: 1web\nspec:\n  ports:\n  - port: 80\n",
        "error: document 1, line 4: The Service \"1web\" is invalid: metadata.name: Invalid value: \"1web\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
    refused(
        "apply",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team.a\n",
        "error: document 1, line 4: The Namespace \"team.a\" is invalid: metadata.name: Invalid value: \"team.a\": must not contain dots",
    );
    // A budget's name is held to the REST path's rule only.
    accepted(
        "apply",
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: Web_Budget\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: web}\n",
    );
}

#[test]
fn a_headless_service_needs_no_ports() {
    accepted(
        "apply",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\nspec:\n  clusterIP: None\n  selector: {app: db}\n",
    );
}

const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
";

#[test]
fn container_ports_are_checked() {
    let text = format!("{DEPLOYMENT}        ports:\n        - name: http\n          containerPort: 80\n        - name: http\n          containerPort: 8080\n        - name: Admin_Port\n          containerPort: 70000\n");
    refused(
        "apply",
        &text,
        "error: document 1, line 18: The Deployment \"web\" is invalid: \n* spec.template.spec.containers[0].ports[1].name: Duplicate value: \"http\"\n* spec.template.spec.containers[0].ports[2].name: Invalid value: \"Admin_Port\": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)\n* spec.template.spec.containers[0].ports[2].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
    );
}

#[test]
fn environment_names_and_sources_are_checked() {
    let env = format!(
        "{DEPLOYMENT}        env:\n        - name: A=B\n          value: x\n        envFrom:\n        - prefix: P_\n"
    );
    refused(
        "apply",
        &env,
        "error: document 1, line 16: The Deployment \"web\" is invalid: \n* spec.template.spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='\n* spec.template.spec.containers[0].envFrom: Invalid value: \"\": must specify one of: `configMapRef` or `secretRef`",
    );
}

#[test]
fn the_template_restarts_always() {
    let text = format!("{DEPLOYMENT}      restartPolicy: Never\n");
    refused(
        "apply",
        &text,
        "error: document 1, line 15: The Deployment \"web\" is invalid: spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\"",
    );
}

#[test]
fn a_missing_selector_is_required_and_matches_nothing() {
    let text = DEPLOYMENT.replace("  selector:\n    matchLabels: {app: web}\n", "");
    refused(
        "apply",
        &text,
        "error: document 1, line 5: The Deployment \"web\" is invalid: \n* spec.selector: Required value\n* spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`",
    );
}

#[test]
fn a_deployments_selector_may_not_change() {
    let mut sim = sim();
    assert_eq!(kubectl_stdin(&mut sim, "apply -f -", DEPLOYMENT).code, 0);
    let changed = DEPLOYMENT.replace("{app: web}", "{app: web2}");
    let out = kubectl_stdin(&mut sim, "apply -f -", &changed);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("The Deployment \"web\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{\"app\":\"web2\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_toleration_with_an_empty_key_must_use_the_exists_operator() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\n  tolerations:\n  - operator: Equal\n    value: x\n";
    refused(
        "apply",
        text,
        "error: document 1, line 10: The Pod \"p\" is invalid: spec.tolerations[0].operator: Invalid value: \"Equal\": operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
    );
}

#[test]
fn a_secret_volume_needs_a_secret_name_and_volume_names_are_unique() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    image: busybox\n  volumes:\n  - name: config\n    emptyDir: {}\n  - name: config\n    secret: {}\n";
    refused(
        "apply",
        text,
        "error: document 1, line 13: The Pod \"p\" is invalid: \n* spec.volumes[1].secret.secretName: Required value\n* spec.volumes[1].name: Duplicate value: \"config\"",
    );
}

#[test]
fn a_nodes_taints_are_unique_by_key_and_effect() {
    let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n9\nspec:\n  taints:\n  - key: gpu\n    effect: NoSchedule\n  - key: gpu\n    value: a\n    effect: NoSchedule\n";
    // Upstream names a node's taints `metadata.taints`; the line is the taint's.
    refused(
        "apply",
        text,
        "error: document 1, line 9: The Node \"n9\" is invalid: metadata.taints[1]: Duplicate value: core.Taint{Key:\"gpu\", Value:\"a\", Effect:\"NoSchedule\", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair",
    );
}

#[test]
fn container_names_and_resources_get_upstreams_messages() {
    let text = DEPLOYMENT.replace("- name: nginx", "- name: Nginx").replace(
        "        image: nginx:1.27\n",
        "        image: nginx:1.27\n        resources:\n          requests:\n            cpuu: 100m\n",
    );
    refused(
        "apply",
        &text,
        "error: document 1, line 13: The Deployment \"web\" is invalid: \n* spec.template.spec.containers[0].name: Invalid value: \"Nginx\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')\n* spec.template.spec.containers[0].resources.requests[cpuu]: Invalid value: \"cpuu\": must be a standard resource type or fully qualified\n* spec.template.spec.containers[0].resources.requests[cpuu]: Invalid value: \"cpuu\": must be a standard resource for containers",
    );
}

#[test]
fn finalizers_are_standard_or_qualified() {
    refused(
        "apply",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  finalizers: [keep]\n",
        "error: document 1, line 5: The ConfigMap \"c\" is invalid: metadata.finalizers[0]: Invalid value: \"keep\": name is neither a standard finalizer name nor is it fully qualified",
    );
    accepted("apply", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  finalizers: [example.com/keep]\n");
}

#[test]
fn services_types_and_policies_are_checked() {
    refused(
        "apply",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  type: ExternalName\n  externalName: db_host\n",
        "error: document 1, line 7: The Service \"s\" is invalid: spec.externalName: Invalid value: \"db_host\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
    refused(
        "apply",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  externalTrafficPolicy: Local\n  ports:\n  - port: 80\n",
        "error: document 1, line 6: The Service \"s\" is invalid: spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set for externally-accessible services",
    );
}

#[test]
fn endpoint_addresses_may_not_be_special() {
    refused(
        "apply",
        "apiVersion: discovery.k8s.io/v1\nkind: EndpointSlice\nmetadata:\n  name: e\naddressType: IPv4\nendpoints:\n- addresses: [127.0.0.1]\n",
        "error: document 1, line 7: The EndpointSlice \"e\" is invalid: endpoints[0].addresses[0]: Invalid value: \"127.0.0.1\": may not be in the loopback range (127.0.0.0/8, ::1/128)",
    );
}

#[test]
fn an_empty_ssh_key_is_a_missing_one() {
    refused(
        "apply",
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ntype: kubernetes.io/ssh-auth\ndata:\n  ssh-privatekey: \"\"\n",
        "error: document 1, line 7: The Secret \"s\" is invalid: data[ssh-privatekey]: Required value",
    );
}

#[test]
fn a_templates_labels_are_named_as_upstream_names_them_at_their_line() {
    let text = DEPLOYMENT.replace("      labels: {app: web}\n", "      labels: {app: web, tier: -x}\n");
    refused(
        "apply",
        &text,
        "error: document 1, line 10: The Deployment \"web\" is invalid: spec.template.labels: Invalid value: \"-x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
}
