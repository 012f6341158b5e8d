use super::*;

/// The page's starting Deployment, the manifest these tests vary.
const WEB: &str = include_str!("../../../../examples/manifests/web.yaml");

#[test]
fn parses_a_deployment_with_real_field_names() {
    let (ms, warnings) = parse(WEB).expect("valid");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(ms.len(), 1);
    let d = ms[0].object.as_deployment().expect("deployment");
    assert_eq!(d.spec.replicas, Some(3));
    assert_eq!(&*d.spec.template.spec.containers[0].image, "nginx:1.27");
    assert_eq!(ms[0].json["kind"], "Deployment");
}

#[test]
fn documents_keep_their_numbers_and_lines() {
    let text = format!("# leading comment\n---\n{WEB}---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: team\n");
    let (ms, _) = parse(&text).expect("valid");
    assert_eq!(ms.len(), 2);
    assert_eq!((ms[0].document, ms[0].first_line), (1, 3));
    assert_eq!(ms[1].document, 2);
    assert_eq!(ms[1].object.kind(), Kind::Namespace);
    assert_eq!(ms[0].line_of(&["spec", "replicas"]), 12);
}

#[test]
fn syntax_errors_point_at_line_and_column() {
    let text = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n spec: [\n";
    let e = parse(text).expect_err("broken");
    assert_eq!(e.document, 1);
    assert!(e.line >= 4 && e.line <= 6, "{e}");
    assert!(e.to_string().contains(&format!("line {}", e.line)));
}

#[test]
fn errors_in_later_documents_count_lines_from_the_top() {
    let text =
        format!("{WEB}---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n  replicas: many\n");
    let e = parse(&text).expect_err("replicas must be an integer");
    assert_eq!(e.document, 2);
    assert_eq!(e.line, 32, "{e}");
    assert!(e.message.contains("invalid type"), "{e}");
}

#[test]
fn unknown_kind_and_api_version_are_errors_on_the_kind_line() {
    let e = parse("apiVersion: v1\nkind: Ingress\nmetadata:\n  name: web\n").expect_err("not served");
    assert_eq!(e.line, 2);
    assert!(e.message.contains("no matches for kind \"Ingress\" in version \"v1\""), "{e}");
    let e = parse("apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata:\n  name: web\n").expect_err("old");
    assert!(e.message.contains("apps/v1"), "{e}");
    let e = parse("metadata:\n  name: web\n").expect_err("no type");
    assert!(e.message.contains("apiVersion not set, kind not set"), "{e}");
}

#[test]
fn real_but_unsimulated_fields_warn_with_their_path_and_line() {
    let text =
        WEB.replace("        resources:\n", "        terminationMessagePath: /dev/last-words\n        resources:\n");
    let (_, warnings) = parse(&text).expect("accepted");
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].path, "spec.template.spec.containers[0].terminationMessagePath");
    assert_eq!(warnings[0].line, 22);
    assert!(warnings[0].to_string().contains("not simulated"));
}

#[test]
fn unknown_fields_are_strict_decoding_errors() {
    let text = WEB.replace("  replicas: 3\n", "  replicass: 3\n");
    let e = parse(&text).expect_err("typo");
    assert_eq!(e.line, 10);
    assert_eq!(e.message, "strict decoding error: unknown field \"spec.replicass\"");
}

#[test]
fn validation_errors_name_the_field_and_its_line() {
    let text = WEB.replace("        image: nginx:1.27\n", "        image: \"\"\n");
    let (ms, _) = parse(&text).expect("parses");
    let e = validate(&ms[0]).expect_err("image required");
    assert_eq!(e.line, 21, "{e}");
    assert!(e.message.contains("spec.template.spec.containers[0].image: Required value"), "{e}");
    let text = WEB.replace("        app: web\n    spec:", "        app: api\n    spec:");
    let (ms, _) = parse(&text).expect("parses");
    let e = validate(&ms[0]).expect_err("selector mismatch");
    assert!(e.message.contains("`selector` does not match template `labels`"), "{e}");
}

/// A nameless document reads (`create` may leave the name to the server's generateName); what may not use it
/// says so: apply and delete need a name, and apply refuses a generated one; validation wants one of the two.
#[test]
fn a_nameless_object_is_an_error_where_a_name_is_needed() {
    let (ms, _) = parse("apiVersion: v1\nkind: Namespace\nmetadata:\n  labels: {a: b}\n").expect("reads");
    let e = named(&ms[0], "apply").expect_err("no name");
    assert_eq!((e.line, e.message.as_str()), (3, "resource name may not be empty"), "{e}");
    let e = validate(&ms[0]).expect_err("no name");
    assert!(e.message.contains("metadata.name: Required value: name or generateName is required"), "{e}");
    let (ms, _) = parse("apiVersion: v1\nkind: Namespace\nmetadata:\n  generateName: team-\n").expect("reads");
    let e = named(&ms[0], "apply").expect_err("generated");
    assert_eq!((e.line, e.message.as_str()), (4, "from team-: cannot use generate name with apply"), "{e}");
    assert!(named(&ms[0], "delete").is_err());
    validate(&ms[0]).expect("a generated name is a name");
}

/// Garbage is no manifest, or an error naming where it goes wrong (document, line, column), never a panic.
#[test]
fn garbage_is_nothing_or_an_error_naming_its_place() {
    // Each text: how many manifests it holds, or where its error is (document, line, column).
    type Outcome = Result<usize, (usize, usize, Option<usize>)>;
    let cases: [(&str, Outcome); 8] = [
        ("", Ok(0)),
        ("---", Ok(0)),
        ("- a\n- b\n", Err((1, 1, None))),
        ("42", Err((1, 1, None))),
        (":", Err((1, 1, Some(1)))),
        ("apiVersion: [", Err((1, 2, Some(1)))),
        ("kind: Pod\napiVersion: v1\nmetadata: 3\n", Err((1, 3, Some(11)))),
        ("\t\u{0}", Err((1, 1, Some(1)))),
    ];
    for (text, want) in cases {
        let got = parse(text).map(|(manifests, _)| manifests.len()).map_err(|e| {
            assert!(!e.message.is_empty(), "{text:?}: a message");
            (e.document, e.line, e.column)
        });
        assert_eq!(got, want, "{text:?}");
    }
}

/// Objects of every applicable kind with most of the fields kubeloop reads, statuses included.
const BASES: [&str; 6] = [
    WEB,
    "apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: team
  uid: u-1
  resourceVersion: \"12\"
  generation: 2
  creationTimestamp: 2026-01-01T00:00:00Z
  deletionGracePeriodSeconds: 30
  annotations: {a: b}
  finalizers: [x]
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u-0, controller: true, blockOwnerDeletion: true}
spec:
  nodeName: n1
  nodeSelector: {disk: ssd}
  restartPolicy: Always
  terminationGracePeriodSeconds: 30
  schedulerName: default-scheduler
  dnsPolicy: ClusterFirst
  priority: 0
  tolerations:
  - {key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  volumes:
  - {name: a, configMap: {name: cm, defaultMode: 420, optional: false, items: [{key: k, path: p}]}}
  - {name: b, secret: {secretName: s, optional: true}}
  - {name: e, emptyDir: {medium: Memory, sizeLimit: 64Mi}}
  - {name: h, hostPath: {path: /tmp}}
  containers:
  - name: c
    image: nginx
    env:
    - {name: A, value: x}
    - {name: B, valueFrom: {configMapKeyRef: {name: cm, key: k, optional: true}}}
    - {name: C, valueFrom: {secretKeyRef: {name: s, key: k}}}
    - {name: D, valueFrom: {fieldRef: {fieldPath: metadata.name}}}
    envFrom:
    - {prefix: P_, configMapRef: {name: cm}}
    - {secretRef: {name: s, optional: true}}
    imagePullPolicy: IfNotPresent
    command: [sh]
    args: [-c, echo]
    resources:
      requests: {cpu: 250m, memory: 64Mi}
      limits: {cpu: 1, memory: 128Mi}
    ports:
    - {containerPort: 80, name: http, protocol: TCP}
    livenessProbe:
      httpGet: {path: /healthz, port: 80, host: h, scheme: HTTP, httpHeaders: [{name: X, value: y}]}
      initialDelaySeconds: 5
      timeoutSeconds: 2
      periodSeconds: 7
      successThreshold: 1
      failureThreshold: 4
      terminationGracePeriodSeconds: 9
    readinessProbe:
      tcpSocket: {port: http, host: h}
      exec: {command: [cat, /tmp/ready]}
    startupProbe:
      grpc: {port: 9000, service: s}
status:
  phase: Running
  hostIP: 10.0.0.1
  podIP: 10.244.0.5
  startTime: 2026-01-01T00:00:01Z
  conditions:
  - {type: Ready, status: \"True\", lastTransitionTime: 2026-01-01T00:00:02Z, reason: r, message: m}
  containerStatuses:
  - name: c
    ready: true
    restartCount: 0
    image: nginx
    started: true
    state:
      running: {startedAt: 2026-01-01T00:00:01Z}
      waiting: {reason: w, message: m}
      terminated: {exitCode: 1, reason: Error, finishedAt: 2026-01-01T00:00:03Z}
    lastState:
      terminated: {exitCode: 137, reason: Error, startedAt: 2026-01-01T00:00:00Z, finishedAt: 2026-01-01T00:00:01Z}
",
    "apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {kubernetes.io/hostname: n1}
spec:
  unschedulable: false
  podCIDR: 10.244.0.0/24
  taints:
  - {key: k, value: v, effect: NoSchedule, timeAdded: 2026-01-01T00:00:00Z}
status:
  capacity: {cpu: \"4\", memory: 16Gi, pods: \"110\"}
  allocatable: {cpu: 4, memory: 16Gi, pods: 110}
  conditions:
  - {type: Ready, status: \"True\", lastHeartbeatTime: 2026-01-01T00:00:00Z, lastTransitionTime: 2026-01-01T00:00:00Z}
  addresses:
  - {type: InternalIP, address: 10.0.0.1}
  nodeInfo: {kubeletVersion: v1.34.0, containerRuntimeVersion: containerd, osImage: linux, architecture: amd64, operatingSystem: linux}
",
    "apiVersion: v1
kind: Namespace
metadata:
  name: team
spec:
  finalizers: [kubernetes]
status:
  phase: Terminating
  conditions:
  - {type: NamespaceDeletionContentFailure, status: \"False\", reason: r, message: m}
",
    "apiVersion: apps/v1
kind: ReplicaSet
metadata:
  name: rs
spec:
  replicas: 2
  minReadySeconds: 5
  selector:
    matchExpressions:
    - {key: app, operator: In, values: [web]}
    - key: tier
      operator: DoesNotExist
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: x}]
status:
  replicas: 2
  fullyLabeledReplicas: 2
  readyReplicas: 1
  availableReplicas: 1
  observedGeneration: 1
  conditions: [{type: ReplicaFailure, status: \"True\"}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  paused: true
  revisionHistoryLimit: 3
  progressDeadlineSeconds: 600
  minReadySeconds: 1
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 25%, maxUnavailable: 1}
  selector: {matchLabels: {app: d}}
  template:
    metadata: {labels: {app: d}}
    spec:
      containers: [{name: c, image: x}]
status:
  observedGeneration: 1
  replicas: 1
  updatedReplicas: 1
  readyReplicas: 1
  availableReplicas: 1
  unavailableReplicas: 0
  collisionCount: 0
  conditions:
  - {type: Available, status: \"True\", lastUpdateTime: 2026-01-01T00:00:00Z, lastTransitionTime: 2026-01-01T00:00:00Z}
",
    "apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  labels: {app: web}
immutable: false
data:
  LOG_LEVEL: info
  app.properties: |
    color=blue
binaryData:
  logo.png: iVBORw0KGgo=
---
apiVersion: v1
kind: Secret
metadata:
  name: s
type: kubernetes.io/basic-auth
immutable: true
data:
  username: YWRtaW4=
stringData:
  password: hunter2
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: sa
automountServiceAccountToken: false
secrets:
- {name: s, namespace: default, kind: Secret, apiVersion: v1, uid: u-2}
imagePullSecrets:
- name: registry
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  selector: {app: web}
  clusterIP: 10.96.0.20
  clusterIPs: [10.96.0.20]
  sessionAffinity: None
  ipFamilies: [IPv4]
  ipFamilyPolicy: SingleStack
  internalTrafficPolicy: Cluster
  externalTrafficPolicy: Local
  publishNotReadyAddresses: true
  ports:
  - {name: http, protocol: TCP, port: 80, targetPort: http, nodePort: 30080}
  - {name: metrics, port: 9090, targetPort: 9090}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  maxUnavailable: 25%
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels: {app: web}
    matchExpressions:
    - {key: tier, operator: In, values: [front]}
status:
  observedGeneration: 2
  disruptionsAllowed: 1
  currentHealthy: 3
  desiredHealthy: 2
  expectedPods: 3
  disruptedPods: {web-1: 2026-01-01T00:00:00Z}
  conditions:
  - {type: DisruptionAllowed, status: \"True\", observedGeneration: 2, lastTransitionTime: 2026-01-01T00:00:00Z, reason: SufficientPods, message: \"\"}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: external-1
  labels: {kubernetes.io/service-name: external}
addressType: IPv4
endpoints:
- addresses: [10.1.2.3]
  conditions: {ready: true, serving: true, terminating: false}
  nodeName: n1
  zone: z1
  hostname: h
  targetRef: {kind: Pod, name: p, namespace: default, uid: u-9}
ports:
- {name: http, protocol: TCP, port: 8080, appProtocol: http}
",
];

#[test]
fn the_field_tables_read_every_document_as_serde_yaml_did() {
    for base in BASES {
        legacy::compare(base).unwrap_or_else(|e| panic!("{e}"));
        assert!(parse(base).is_ok(), "{base}");
    }
    // A kind kubeloop only stores has no serde derive to compare with: skipped, not a difference.
    let stored = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: p\nvalue: 5\n";
    legacy::compare(stored).unwrap_or_else(|e| panic!("{e}"));
    let cases: u64 = std::env::var("KUBELOOP_DECODE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let seed = std::env::var("KUBELOOP_DECODE_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(7);
    let mut rng = crate::rng::Rng::new(seed);
    let mut failures = Vec::new();
    for case in 0..cases {
        let base = BASES[(case % BASES.len() as u64) as usize];
        let text = crate::testing::mutate(base, &mut rng, &[]);
        if let Err(e) = legacy::compare(&text) {
            failures.push(format!("case {case}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{} of {cases} differ; the first:\n{}", failures.len(), failures[0]);
}

#[test]
fn unknown_fields_below_optional_objects_are_named_as_kubectl_names_them() {
    let text = WEB.replace(
        "  replicas: 3\n",
        "  replicas: 3\n  strategy:\n    rollingUpdate:\n      maxSurge: 1\n      foo: 2\n",
    );
    let e = parse(&text).expect_err("unknown field");
    assert_eq!(e.message, "strict decoding error: unknown field \"spec.strategy.rollingUpdate.foo\"");
    assert_eq!(e.line, 14, "{e}");
}

#[test]
fn a_bad_timestamp_is_reported_at_its_own_line() {
    let text = WEB.replace("  name: web\n", "  name: web\n  creationTimestamp: yesterday\n");
    let e = parse(&text).expect_err("bad timestamp");
    assert_eq!((e.line, e.column), (7, Some(22)), "{e}");
    assert!(e.message.starts_with("metadata.creationTimestamp: invalid timestamp \"yesterday\""), "{e}");
}

#[test]
fn object_json_starts_with_type_meta() {
    let mut pod = crate::api::Pod::default();
    pod.metadata.name = crate::api::s("web");
    pod.metadata.namespace = crate::api::s("default");
    let obj = Object::from(pod);
    let v = obj.to_json();
    assert_eq!(v["apiVersion"], "v1");
    assert_eq!(v["kind"], "Pod");
    assert_eq!(v["metadata"]["name"], "web");
    assert!(obj.to_yaml().starts_with("apiVersion: v1\nkind: Pod\n"));
}

/// Reading a text a few documents at a time gives what reading it whole gives: the same objects, failures and
/// warnings, or the same refusal (budgets are checked for every document before any is read).
#[test]
fn reading_in_steps_is_reading_whole() {
    let many: String = (0..40)
        .map(|i| format!("---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\ndata:\n  k: v\n"))
        .collect();
    let texts = [
        many.clone(),
        format!("{many}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\n  nmae: x\n"),
        format!("{many}---\nkind: [\n"),
        format!("---\napiVersion: v1\nkind: Bogus\n{many}"),
        format!("{many}---\na: &x 1\nb: *x\n"),
        String::new(),
        WEB.to_string(),
    ];
    for text in &texts {
        let whole = format!("{:?}", read(text, STDIN));
        for n in [1, 2, 7, usize::MAX] {
            let stepped = (|| -> Result<Read, ManifestError> {
                let mut r = Reading::new(text.as_str().into(), STDIN)?;
                let mut steps = 0;
                while !r.step(n)? {
                    steps += 1;
                    assert!(steps < 1000, "progress: {:?}", r.progress());
                }
                Ok(r.finish())
            })();
            assert_eq!(format!("{stepped:?}"), whole, "n = {n}, text: {}", &text[..text.len().min(80)]);
        }
    }
}
