//! The kinds kubeloop stores without simulating them: each is its registry row and its fields' rows of
//! `data/explain.tsv`, nothing more. Each is applied here from the Kubernetes documentation's own examples and
//! served end to end through kubectl (golden outputs: printers.go's columns, describe.go's lines); the registry's
//! rows are checked against their schemas for every stored kind.

mod common;

use common::{check, cluster, golden, kubectl, kubectl_stdin};
use kubeloop_engine::api::{Cell, Kind, KINDS};
use kubeloop_engine::manifest::{field_type, schema_type, value_type};
use kubeloop_engine::sim::Sim;

const CLASSES: &str = "\
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high-priority
value: 1000000
globalDefault: false
description: \"This priority class should be used for XYZ service pods only.\"
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: batch
  labels:
    tier: batch
value: -5
preemptionPolicy: Never
";

#[test]
fn a_priority_class_is_applied_printed_described_explained_and_deleted_as_upstream_does() {
    let mut sim = cluster();
    let out = kubectl_stdin(&mut sim, "apply -f -", CLASSES);
    golden("stored-apply", &out.text());
    assert_eq!(out.code, 0);
    let again = kubectl_stdin(&mut sim, "apply -f -", CLASSES);
    assert!(again.stdout.contains("priorityclass.scheduling.k8s.io/batch unchanged"), "{}", again.text());
    check(&mut sim, "stored-get", "get pc -o wide --show-labels");
    check(&mut sim, "stored-get-yaml", "get priorityclass batch -o yaml");
    check(&mut sim, "stored-get-json", "get priorityclasses.scheduling.k8s.io high-priority -o json");
    check(&mut sim, "stored-describe", "describe pc batch");
    check(&mut sim, "stored-explain", "explain priorityclass");
    check(&mut sim, "stored-api-resources", "api-resources --api-group=scheduling.k8s.io");
    let out = check(&mut sim, "stored-delete", "delete pc batch");
    assert_eq!(out.code, 0);
    let out = kubectl(&mut sim, "get pc batch");
    assert_eq!(out.code, 1, "{}", out.text());
}

#[test]
fn a_stored_kinds_fields_are_held_to_its_schema_at_their_lines() {
    let mut sim = cluster();
    let head = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: x\n";
    for (name, body) in [
        ("stored-bad-type", "value: high\n"),
        ("stored-out-of-range", "value: 3000000000\n"),
        ("stored-unknown-field", "value: 3\nspec:\n  a: 1\n"),
        ("stored-bad-boolean", "value: 3\nglobalDefault: maybe\n"),
    ] {
        let out = kubectl_stdin(&mut sim, "apply -f -", &format!("{head}{body}"));
        assert_eq!(out.code, 1, "{name}: {}", out.text());
        golden(name, &out.text());
    }
    // Nothing was stored.
    let out = kubectl(&mut sim, "get pc");
    assert_eq!(out.text(), "No resources found\n");
}

#[test]
fn every_stored_kinds_columns_and_describe_lines_name_fields_of_its_schema() {
    for info in KINDS.iter() {
        let Some(stored) = info.stored else { continue };
        let ty = schema_type(info.kind).unwrap_or_else(|| panic!("{}: no rows in explain.tsv", info.name));
        for &(_, path, cell) in stored.columns.iter().chain(stored.wide).chain(stored.describe) {
            // Each step a field of the type before it (past a map, its key); only the last one without fields.
            let (mut at, steps) = (Some(ty), path.split('.').filter(|s| !s.is_empty()).count());
            for (i, step) in path.split('.').filter(|s| !s.is_empty()).enumerate() {
                let Some(t) = at else { continue };
                let value = value_type(t, step).unwrap_or_else(|| panic!("{}: {path}: no {step} in {t}", info.name));
                at = field_type(t, step);
                let leaf = at.is_none() && !value.starts_with("map[");
                assert!(!leaf || i + 1 == steps, "{}: {path}: {step} has no fields", info.name);
            }
            if let Some(rest) = path.strip_prefix("metadata.") {
                let read = ["name", "namespace", "labels", "annotations", "finalizers"];
                assert!(read.contains(&rest), "{}: {path}", info.name);
            }
            if let Cell::Table(columns) = cell {
                let item = at.or_else(|| path.is_empty().then_some(ty));
                for (_, field) in columns.iter().filter(|c| !c.1.is_empty()) {
                    let item = item.unwrap_or_else(|| panic!("{}: {path}: not a list of objects", info.name));
                    assert!(value_type(item, field).is_some(), "{}: {path}: no {field} in {item}", info.name);
                }
            }
            let empty = matches!(cell, Cell::Age | Cell::CreatedAt | Cell::IsDefault)
                || (cell == Cell::Value && path.is_empty());
            assert_eq!(path.is_empty(), empty, "{}: {path}: {cell:?}", info.name);
        }
        assert!(info.applicable, "{}: a stored kind is applied", info.name);
        assert!(Kind::ALL.contains(&info.kind));
    }
}

/// The examples of the Kubernetes documentation (concepts/services-networking/ingress, network-policies;
/// reference/access-authn-authz/rbac; concepts/policy/resource-quotas, limit-range;
/// tasks/configure-pod-container/configure-persistent-volume-storage, concepts/storage/persistent-volumes), one
/// text per kind, with what explain is asked and the resource name kubectl is given.
const EXAMPLES: &[(&str, &str, &str, &str)] = &[
    (
        "ingress",
        "ingress.spec.rules.http.paths",
        "ing",
        "\
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: minimal-ingress
  annotations:
    nginx.ingress.kubernetes.io/rewrite-target: /
spec:
  ingressClassName: nginx-example
  rules:
  - http:
      paths:
      - path: /testpath
        pathType: Prefix
        backend:
          service:
            name: test
            port:
              number: 80
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: tls-example-ingress
spec:
  tls:
  - hosts:
      - https-example.foo.com
    secretName: testsecret-tls
  rules:
  - host: https-example.foo.com
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: service1
            port:
              number: 80
",
    ),
    (
        "ingressclass",
        "ingressclass.spec",
        "ingressclass",
        "\
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  labels:
    app.kubernetes.io/component: controller
  name: nginx-example
  annotations:
    ingressclass.kubernetes.io/is-default-class: \"true\"
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: external-lb
spec:
  controller: example.com/ingress-controller
  parameters:
    apiGroup: k8s.example.com
    kind: IngressParameters
    name: external-lb
",
    ),
    (
        "networkpolicy",
        "networkpolicy.spec.ingress.ports",
        "netpol",
        "\
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: test-network-policy
  namespace: default
spec:
  podSelector:
    matchLabels:
      role: db
  policyTypes:
  - Ingress
  - Egress
  ingress:
  - from:
    - ipBlock:
        cidr: 172.17.0.0/16
        except:
        - 172.17.1.0/24
    - namespaceSelector:
        matchLabels:
          project: myproject
    - podSelector:
        matchLabels:
          role: frontend
    ports:
    - protocol: TCP
      port: 6379
  egress:
  - to:
    - ipBlock:
        cidr: 10.0.0.0/24
    ports:
    - protocol: TCP
      port: 5978
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: default-deny-ingress
spec:
  podSelector: {}
  policyTypes:
  - Ingress
",
    ),
    (
        "role",
        "role.rules",
        "role",
        "\
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  namespace: default
  name: pod-reader
rules:
- apiGroups: [\"\"] # \"\" indicates the core API group
  resources: [\"pods\"]
  verbs: [\"get\", \"watch\", \"list\"]
",
    ),
    (
        "rolebinding",
        "rolebinding.subjects",
        "rolebinding",
        "\
apiVersion: rbac.authorization.k8s.io/v1
# This role binding allows \"jane\" to read pods in the \"default\" namespace.
# You need to already have a Role named \"pod-reader\" in that namespace.
kind: RoleBinding
metadata:
  name: read-pods
  namespace: default
subjects:
# You can specify more than one \"subject\"
- kind: User
  name: jane # \"name\" is case sensitive
  apiGroup: rbac.authorization.k8s.io
- kind: ServiceAccount
  name: default
  namespace: kube-system
roleRef:
  # \"roleRef\" specifies the binding to a Role / ClusterRole
  kind: Role #this must be Role or ClusterRole
  name: pod-reader # this must match the name of the Role or ClusterRole you wish to bind to
  apiGroup: rbac.authorization.k8s.io
",
    ),
    (
        "clusterrole",
        "clusterrole",
        "clusterrole",
        "\
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  # \"namespace\" omitted since ClusterRoles are not namespaced
  name: secret-reader
rules:
- apiGroups: [\"\"]
  #
  # at the HTTP level, the name of the resource for accessing Secret
  # objects is \"secrets\"
  resources: [\"secrets\"]
  verbs: [\"get\", \"watch\", \"list\"]
- nonResourceURLs: [\"/healthz\", \"/healthz/*\"] # '*' in a nonResourceURL is a suffix glob match
  verbs: [\"get\", \"post\"]
",
    ),
    (
        "clusterrolebinding",
        "clusterrolebinding.roleRef",
        "clusterrolebinding",
        "\
apiVersion: rbac.authorization.k8s.io/v1
# This cluster role binding allows anyone in the \"manager\" group to read secrets in any namespace.
kind: ClusterRoleBinding
metadata:
  name: read-secrets-global
subjects:
- kind: Group
  name: manager # Name is case sensitive
  apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: ClusterRole
  name: secret-reader
  apiGroup: rbac.authorization.k8s.io
",
    ),
    (
        "resourcequota",
        "resourcequota.spec",
        "quota",
        "\
apiVersion: v1
kind: ResourceQuota
metadata:
  name: compute-resources
spec:
  hard:
    requests.cpu: \"1\"
    requests.memory: 1Gi
    limits.cpu: \"2\"
    limits.memory: 2Gi
    requests.nvidia.com/gpu: 4
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: pods-high
spec:
  hard:
    cpu: \"1000\"
    memory: 200Gi
    pods: \"10\"
  scopeSelector:
    matchExpressions:
    - operator: In
      scopeName: PriorityClass
      values: [\"high\"]
",
    ),
    (
        "limitrange",
        "limitrange.spec.limits",
        "limits",
        "\
apiVersion: v1
kind: LimitRange
metadata:
  name: cpu-resource-constraint
spec:
  limits:
  - default: # this section defines default limits
      cpu: 500m
    defaultRequest: # this section defines default requests
      cpu: 500m
    max: # max and min define the limit range
      cpu: \"1\"
    min:
      cpu: 100m
    type: Container
",
    ),
    (
        "persistentvolume",
        "pv.spec",
        "pv",
        "\
apiVersion: v1
kind: PersistentVolume
metadata:
  name: task-pv-volume
  labels:
    type: local
spec:
  storageClassName: manual
  capacity:
    storage: 10Gi
  accessModes:
    - ReadWriteOnce
  hostPath:
    path: \"/mnt/data\"
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv0003
spec:
  capacity:
    storage: 5Gi
  volumeMode: Filesystem
  accessModes:
    - ReadWriteOnce
  persistentVolumeReclaimPolicy: Recycle
  storageClassName: slow
  mountOptions:
    - hard
    - nfsvers=4.1
  nfs:
    path: /tmp
    server: 172.17.0.2
---
apiVersion: v1
kind: PersistentVolume
metadata:
  name: example-pv
spec:
  capacity:
    storage: 100Gi
  volumeMode: Filesystem
  accessModes:
  - ReadWriteOnce
  persistentVolumeReclaimPolicy: Delete
  storageClassName: local-storage
  local:
    path: /mnt/disks/ssd1
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - key: kubernetes.io/hostname
          operator: In
          values:
          - example-node
",
    ),
];

/// Runs each line and writes its output after it, as a terminal shows them: one golden file per kind.
fn transcript(sim: &mut Sim, lines: &[String]) -> String {
    let mut out = String::new();
    for line in lines {
        let o = kubectl(sim, line);
        assert_eq!(o.code, 0, "{line}: {}", o.text());
        out.push_str(&format!("$ kubectl {line}\n{}\n", o.text()));
    }
    out
}

#[test]
fn each_stored_kind_is_applied_from_the_documentations_examples_and_served_as_upstream_serves_it() {
    for (kind, explain, resource, text) in EXAMPLES {
        let mut sim = cluster();
        let out = kubectl_stdin(&mut sim, "apply -f -", text);
        assert_eq!(out.code, 0, "{kind}: {}", out.text());
        let mut all = format!("$ kubectl apply -f {kind}.yaml\n{}\n", out.text());
        let again = kubectl_stdin(&mut sim, "apply -f -", text);
        assert!(again.stdout.lines().all(|l| l.ends_with(" unchanged")), "{kind}: {}", again.text());
        sim.run_for(90_000);
        let first = text.split("\n  name: ").nth(1).and_then(|t| t.lines().next()).unwrap_or_default();
        let lines = [
            format!("get {resource}"),
            format!("get {resource} -o wide --show-labels"),
            format!("get {resource} {first} -o yaml"),
            format!("describe {resource}"),
            format!("explain {explain}"),
            format!("delete {resource} {first}"),
            format!("get {resource}"),
        ];
        all.push_str(&transcript(&mut sim, &lines));
        golden(&format!("stored-{kind}"), &all);
    }
}

#[test]
fn a_bad_field_of_each_stored_kind_is_refused_at_its_line_and_nothing_is_stored() {
    let mut sim = cluster();
    let mut all = String::new();
    for (kind, bad) in [
        (
            Kind::Ingress,
            "spec:\n  rules:\n  - host: a\n    http:\n      paths:\n      - path: /\n        pathType: Prefix\n        \
             backend:\n          service:\n            name: s\n            port:\n              number: http\n",
        ),
        (Kind::IngressClass, "spec:\n  controler: k8s.io/ingress-nginx\n"),
        (Kind::NetworkPolicy, "spec:\n  podSelector: {}\n  ingress:\n  - ports:\n    - port: [80]\n"),
        (Kind::Role, "rules:\n- apiGroups: [\"\"]\n  resources: pods\n  verbs: [\"get\"]\n"),
        (
            Kind::RoleBinding,
            "subjects:\n- kind: User\n  name: jane\nroleRef:\n  kind: Role\n  name: r\n  \
             apiGroup: rbac.authorization.k8s.io\n  namespace: default\n",
        ),
        (Kind::ClusterRole, "aggregationRule:\n  clusterRoleSelectors: {}\n"),
        (Kind::ClusterRoleBinding, "subjects: User\nroleRef:\n  kind: ClusterRole\n  name: r\n"),
        (Kind::ResourceQuota, "spec:\n  hard:\n    pods: \"10\"\n    requests.cpu: lots\n"),
        (Kind::LimitRange, "spec:\n  limits:\n  - type: Container\n    max:\n      memory: 1GB\n"),
        (Kind::PersistentVolume, "spec:\n  capacity:\n    storage: 1Gi\n  hostPath:\n    path: /mnt\n    readOnly: true\n"),
    ] {
        let head = format!("apiVersion: {}\nkind: {kind}\nmetadata:\n  name: x\n", kind.api_version());
        let out = kubectl_stdin(&mut sim, "apply -f -", &format!("{head}{bad}"));
        assert_eq!(out.code, 1, "{kind}: {}", out.text());
        all.push_str(&format!("$ kubectl apply -f bad-{}.yaml\n{}\n", kind.plural(), out.text()));
        let out = kubectl(&mut sim, &format!("get {} x", kind.plural()));
        assert_eq!(out.code, 1, "{kind}: stored: {}", out.text());
    }
    golden("stored-bad-fields", &all);
}

#[test]
fn a_namespaces_deletion_empties_its_stored_kinds_too() {
    let mut sim = cluster();
    let mut text = String::from("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n");
    for (kind, _, _, example) in EXAMPLES {
        if ["role", "networkpolicy", "limitrange"].contains(kind) {
            let example = example.replace("  namespace: default\n", "");
            text.push_str(&format!("---\n{}", example.replace("metadata:\n", "metadata:\n  namespace: team\n")));
        }
    }
    let out = kubectl_stdin(&mut sim, "apply -f -", &text);
    assert_eq!(out.code, 0, "{}", out.text());
    let out = kubectl(&mut sim, "get roles,netpol,limits -A --no-headers");
    assert_eq!(out.stdout.lines().filter(|l| l.starts_with("team ")).count(), 4, "{}", out.text());
    let out = kubectl(&mut sim, "delete namespace team --wait=false");
    assert_eq!(out.code, 0, "{}", out.text());
    sim.run_for(60_000);
    let out = kubectl(&mut sim, "get roles,netpol,limits -A");
    assert_eq!(out.text(), "No resources found\n");
}
