//! Small fidelity checks against upstream Kubernetes 1.34, each naming the upstream behaviour it holds kubeloop
//! to (see docs/faithfulness.md).

mod common;

use common::{cluster, kubectl};
use kubeloop_engine::api::{DeploymentCondition, Kind, ObjKey, Object};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::store::Subresource;
use kubeloop_engine::time::{MINUTE, SECOND};
use kubeloop_engine::Faults;

fn web(sim: &Sim) -> kubeloop_engine::api::Deployment {
    sim.store()
        .peek(Kind::Deployment, &ObjKey::new("default", "web"))
        .and_then(|o| o.as_deployment().cloned())
        .expect("deployment web")
}

fn progressing(sim: &Sim) -> DeploymentCondition {
    web(sim).status.conditions.iter().find(|c| &*c.type_ == "Progressing").cloned().expect("Progressing")
}

/// Every Progressing condition the deployment had while `f` ran, in order (watched, as `kubectl get -w` would).
fn progressing_history(sim: &mut Sim, f: impl FnOnce(&mut Sim)) -> Vec<(String, String)> {
    let rv = sim.store().resource_version();
    let w = sim.user_watch(Kind::Deployment, rv).expect("watch");
    f(sim);
    let mut seen: Vec<(String, String)> = Vec::new();
    for ev in sim.drain_user_watch(w) {
        if let Some(d) = ev.object.as_deployment() {
            if let Some(c) = d.status.conditions.iter().find(|c| &*c.type_ == "Progressing") {
                let entry = (c.status.to_string(), c.reason.to_string());
                if seen.last() != Some(&entry) {
                    seen.push(entry);
                }
            }
        }
    }
    seen
}

/// pkg/controller/deployment/sync.go checkPausedConditions: pausing sets Progressing=Unknown DeploymentPaused
/// ("Deployment is paused"); resuming sets Progressing=Unknown DeploymentResumed before the rollout goes on.
#[test]
fn pause_and_resume_set_the_progressing_condition() {
    let mut sim = cluster();
    assert_eq!(kubectl(&mut sim, "rollout pause deployment/web").code, 0);
    sim.run_for(5 * SECOND);
    let c = progressing(&sim);
    assert_eq!((&*c.status, &*c.reason, &*c.message), ("Unknown", "DeploymentPaused", "Deployment is paused"));
    assert_eq!(kubectl(&mut sim, "set image deployment/web nginx=nginx:1.28").code, 0);
    sim.run_for(5 * SECOND);
    assert_eq!(&*progressing(&sim).reason, "DeploymentPaused", "no rollout while paused");
    let history = progressing_history(&mut sim, |sim| {
        assert_eq!(kubectl(sim, "rollout resume deployment/web").code, 0);
        sim.run_for(MINUTE);
    });
    let reasons: Vec<&str> = history.iter().map(|(_, r)| r.as_str()).collect();
    // The resume patch itself (still paused in status), then the controller's DeploymentResumed.
    assert_eq!(reasons.get(..2), Some(&["DeploymentPaused", "DeploymentResumed"][..]), "{history:?}");
    assert_eq!(&*history[1].0, "Unknown");
    let last = progressing(&sim);
    assert_eq!((&*last.status, &*last.reason), ("True", "NewReplicaSetAvailable"), "{history:?}");
}

/// pkg/controller/deployment/progress.go syncRolloutStatus: a rollout past its deadline gets
/// Progressing=False ProgressDeadlineExceeded, and no event (upstream records none for it).
#[test]
fn a_missed_progress_deadline_is_a_condition_and_no_event() {
    let mut sim = cluster();
    let patch = |sim: &mut Sim| {
        sim.as_user(|api| {
            api.patch(Kind::Deployment, &ObjKey::new("default", "web"), Subresource::Main, |o| {
                if let Object::Deployment(d) = o {
                    d.spec.progress_deadline_seconds = Some(10);
                    std::rc::Rc::make_mut(&mut d.spec.template.spec).node_selector.insert("disk".into(), "none".into());
                }
            })
        })
        .expect("patch");
    };
    patch(&mut sim);
    sim.run_for(2 * MINUTE);
    let c = progressing(&sim);
    assert_eq!((&*c.status, &*c.reason), ("False", "ProgressDeadlineExceeded"));
    assert!(c.message.ends_with("has timed out progressing."), "{c:?}");
    let events: Vec<_> = sim
        .store()
        .objects(Kind::Event)
        .filter_map(|o| o.as_event())
        .filter(|e| &*e.body.reason == "ProgressDeadlineExceeded")
        .collect();
    assert!(events.is_empty(), "{events:?}");
}

/// pkg/controller/replicaset/replica_set_utils.go calculateStatus sets ReplicaFailure (FailedCreate, the
/// error as message) when creating pods fails; progress.go getReplicaFailures copies it to the Deployment and
/// removes it once the ReplicaSet has none.
#[test]
fn a_failed_create_is_a_replica_failure_on_the_replicaset_and_the_deployment() {
    let mut sim = cluster();
    sim.set_faults(Faults { reject_pod_creates: true, ..Faults::default() });
    assert_eq!(kubectl(&mut sim, "scale deployment/web --replicas=5").code, 0);
    sim.run_for(30 * SECOND);
    let d = web(&sim);
    let f = d.status.conditions.iter().find(|c| &*c.type_ == "ReplicaFailure").expect("ReplicaFailure");
    assert_eq!((&*f.status, &*f.reason), ("True", "FailedCreate"));
    assert!(f.message.contains("exceeded quota"), "{f:?}");
    assert_eq!(f.last_update_time, f.last_transition_time, "ReplicaSetToDeploymentCondition");
    let rs = sim
        .store()
        .objects(Kind::ReplicaSet)
        .filter_map(|o| o.as_replicaset())
        .find(|r| r.status.conditions.iter().any(|c| &*c.type_ == "ReplicaFailure"));
    assert!(rs.is_some(), "the ReplicaSet carries it");
    sim.set_faults(Faults::default());
    sim.run_for(20 * MINUTE);
    assert!(web(&sim).status.conditions.iter().all(|c| &*c.type_ != "ReplicaFailure"), "removed when gone");
    assert_eq!(web(&sim).status.available_replicas, 5);
}

/// staging/src/k8s.io/kubectl/pkg/cmd/delete/delete.go (1.34): `pod "x" deleted from default namespace`; a
/// cluster-scoped object's message has no namespace.
#[test]
fn delete_names_the_namespace_of_namespaced_objects_only() {
    let mut sim = cluster();
    let out = kubectl(&mut sim, "create namespace scratch");
    assert_eq!(out.code, 0, "{}", out.text());
    let out = kubectl(&mut sim, "delete namespace scratch --wait=false");
    assert_eq!(out.stdout, "namespace \"scratch\" deleted\n");
    let out = kubectl(&mut sim, "delete deployment web --wait=false --dry-run=server");
    assert_eq!(out.stdout, "deployment.apps \"web\" deleted from default namespace (server dry run)\n");
}

/// pkg/kubelet/images/image_manager.go (1.34): `Successfully pulled image "nginx:1.27" in 1.234s (1.234s
/// including waiting). Image size: N bytes.`; pkg/kubelet/status: the kubelet's conditions in its order with
/// PodScheduled last; pkg/registry/coordination/lease/strategy.go: a Lease has no generation.
#[test]
fn kubelet_messages_condition_order_and_lease_generation() {
    let sim = cluster();
    let pulled: Vec<_> = sim
        .store()
        .objects(Kind::Event)
        .filter_map(|o| o.as_event())
        .filter(|e| &*e.body.reason == "Pulled")
        .map(|e| e.body.message.to_string())
        .collect();
    assert!(!pulled.is_empty());
    for m in &pulled {
        assert!(m.starts_with("Successfully pulled image \"nginx:1.27\" in "), "{m}");
        assert!(m.contains(" including waiting). Image size: ") && m.ends_with(" bytes."), "{m}");
    }
    for p in sim.store().objects(Kind::Pod).filter_map(|o| o.as_pod()) {
        let types: Vec<&str> = p.status.conditions.iter().map(|c| &*c.type_).collect();
        assert_eq!(types, ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"]);
    }
    for l in sim.store().objects(Kind::Lease) {
        assert_eq!(l.meta().generation, 0, "{:?}", l.meta().name);
    }
    for n in sim.store().objects(Kind::Node) {
        assert_eq!(n.meta().generation, 0);
    }
}

/// pkg/controller/controller_utils.go ComputeHash: the ReplicaSet of a Deployment is named
/// `<deployment>-<pod-template-hash>`, and the hash is a real cluster's for the same (defaulted) template. Each
/// expected value was printed by upstream's own code (k8s.io/api and apimachinery v0.34, go-spew, FNV-32a) for
/// the template as the controller manager decodes it from the API server's protobuf.
#[test]
fn pod_template_hash_is_upstreams() {
    const TEMPLATES: [(&str, &str, &str, &str); 8] = [
        // examples/web.yaml's template.
        ("web", "app: web", "containers:\n        - name: nginx\n          image: nginx:1.27\n          resources:\n            requests: {cpu: 250m, memory: 128Mi}", "895795c88"),
        // The same amount written otherwise: the API server stores the canonical text ("0.25" is "250m"; a
        // suffix picks the format, so "134217728" would stay DecimalSI and hash differently from "128Mi").
        ("web", "app: web", "containers:\n        - name: nginx\n          image: nginx:1.27\n          resources:\n            requests: {cpu: \"0.25\", memory: 131072Ki}", "895795c88"),
        // No tag: imagePullPolicy Always.
        ("a", "app: a", "containers:\n        - {name: a, image: busybox}", "9b74bbb8d"),
        ("a", "app: a", "terminationGracePeriodSeconds: 0\n      containers:\n        - {name: a, image: busybox}", "76db8cc5cf"),
        // Decimal suffixes, one canonical text cached by ParseQuantity and one not ("1500M", "100M").
        ("a", "app: a", "containers:\n        - name: a\n          image: busybox\n          resources:\n            limits: {cpu: 2500m, memory: 1500M, ephemeral-storage: 1G}\n            requests: {cpu: \"2.5\", memory: 1G, ephemeral-storage: 100M}", "66758cf4dd"),
        // An exponent and a plain number ("1e9" stays DecimalExponent).
        ("a", "app: a", "containers:\n        - name: a\n          image: busybox\n          resources:\n            limits: {cpu: 250m, memory: \"12345\", ephemeral-storage: \"1e9\"}\n            requests: {cpu: 100m, memory: \"12345\", ephemeral-storage: \"1e9\"}", "5576465dbd"),
        // 8Pi leaves ParseQuantity's int64 path for an inf.Dec.
        ("a", "app: a", "containers:\n        - name: a\n          image: busybox\n          resources:\n            limits: {cpu: \"2\", memory: 3Mi, ephemeral-storage: 8Pi}\n            requests: {cpu: \"1\", memory: 1Mi, ephemeral-storage: 5Gi}", "75dfb6c97d"),
        // "1000M" is stored as "1G".
        ("a", "app: a", "containers:\n        - name: a\n          image: busybox\n          resources:\n            limits: {cpu: \"10\", memory: 1000M}\n            requests: {cpu: \"10\", memory: 100M}", "5bb5c94f69"),
    ];
    for (name, labels, spec, hash) in TEMPLATES {
        let mut sim = Sim::new(Default::default());
        let manifest = format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: 0\n  selector:\n    matchLabels:\n      {labels}\n  template:\n    metadata:\n      labels:\n        {labels}\n    spec:\n      {spec}\n"
        );
        let out = common::kubectl_stdin(&mut sim, "apply -f -", &manifest);
        assert_eq!(out.code, 0, "{}\n{manifest}", out.stderr);
        sim.run_for(5 * SECOND);
        let rs: Vec<String> = sim.store().objects(Kind::ReplicaSet).map(|o| o.meta().name.to_string()).collect();
        assert_eq!(rs, [format!("{name}-{hash}")], "{manifest}");
        if hash == "895795c88" {
            let d = web_named(&sim, "web");
            let upstream = include_str!("golden/templatehash/web.spew");
            assert_eq!(kubeloop_engine::controllers::templatehash::spew_template(&d.spec.template), upstream);
        }
    }
}

/// The same, for a template with everything kubeloop keeps: annotations (with UTF-8, quotes and a newline),
/// command, args, named and UDP ports, limits, a digest-only image, a nodeSelector and tolerations; and the
/// collision count that upstream appends as 8 bytes.
#[test]
fn pod_template_hash_of_a_full_template_and_a_collision_count() {
    use kubeloop_engine::controllers::templatehash::compute_hash;
    let manifest = r#"apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 0
  selector:
    matchLabels: {app: shop}
  template:
    metadata:
      labels: {app: shop, tier: front}
      annotations:
        kubectl.kubernetes.io/restartedAt: "2026-01-02T03:04:05Z"
        note: "héllo \"quoted\"\n"
    spec:
      terminationGracePeriodSeconds: 5
      nodeSelector: {disktype: ssd, kubernetes.io/os: linux}
      tolerations:
      - {key: dedicated, operator: Equal, value: shop, effect: NoSchedule}
      - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 60}
      containers:
      - name: web
        image: registry.example/shop/web:2.1
        command: [/bin/web]
        args: [--port, "8080"]
        ports:
        - {name: http, containerPort: 8080}
        - {containerPort: 9090, protocol: UDP}
        resources:
          limits: {cpu: "1", memory: 1Gi}
          requests: {cpu: 500m, memory: 512Mi}
      - name: sidecar
        image: envoy@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
"#;
    let mut sim = Sim::new(Default::default());
    let out = common::kubectl_stdin(&mut sim, "apply -f -", manifest);
    assert_eq!(out.code, 0, "{}", out.stderr);
    sim.run_for(5 * SECOND);
    let d = web_named(&sim, "shop");
    // Byte for byte the text upstream's DeepHashObject printed for this template.
    let upstream = include_str!("golden/templatehash/shop.spew");
    assert_eq!(kubeloop_engine::controllers::templatehash::spew_template(&d.spec.template), upstream);
    assert_eq!(compute_hash(&d.spec.template, None), "657f9d964c");
    assert_eq!(compute_hash(&d.spec.template, Some(1)), "584db985fd");
    let rs: Vec<String> = sim.store().objects(Kind::ReplicaSet).map(|o| o.meta().name.to_string()).collect();
    assert_eq!(rs, ["shop-657f9d964c"]);
}

fn web_named(sim: &Sim, name: &str) -> kubeloop_engine::api::Deployment {
    sim.store()
        .peek(Kind::Deployment, &ObjKey::new("default", name))
        .and_then(|o| o.as_deployment().cloned())
        .expect("deployment")
}

/// The TaintManagerEviction events about pod `name`: (message, when first recorded, the involved object's uid and
/// apiVersion).
fn eviction_events(sim: &Sim, name: &str) -> Vec<(String, u64, String, String)> {
    sim.store()
        .objects(Kind::Event)
        .filter_map(|o| o.as_event())
        .filter(|e| &*e.body.reason == "TaintManagerEviction" && &*e.body.involved_object.name == name)
        .map(|e| {
            let io = &e.body.involved_object;
            let at = e.body.first_timestamp.map_or(0, |t| t.0);
            (e.body.message.to_string(), at, io.uid.to_string(), io.api_version.to_string())
        })
        .collect()
}

/// pkg/controller/tainteviction/taint_eviction.go deletePodHandler: TaintManagerEviction ("Marking for deletion
/// Pod NS/NAME") is recorded as the deletion fires: at once for a pod that does not tolerate a NoExecute taint,
/// after its tolerationSeconds for one that does, none while it waits; about the pod by apiVersion, kind, namespace
/// and name only (emitPodDeletionEvent), so `kubectl describe pod`, which asks for the pod's uid, does not list it.
#[test]
fn the_taint_eviction_event_is_recorded_when_the_deletion_fires() {
    let mut sim = cluster();
    let tolerant = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: tol\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: tol}\n  template:\n    metadata:\n      labels: {app: tol}\n    spec:\n      tolerations:\n      - {key: dedicated, operator: Exists, effect: NoExecute, tolerationSeconds: 60}\n      containers:\n      - {name: c, image: nginx:1.27}\n";
    kubeloop_engine::kubectl::apply(&mut sim, tolerant).expect("apply");
    sim.run_for(30 * SECOND);
    let pod_of = |sim: &Sim, app: &str| {
        let p =
            sim.store().objects(Kind::Pod).filter_map(|o| o.as_pod()).find(|p| p.metadata.label("app") == Some(app));
        p.map(|p| (p.metadata.name.to_string(), p.spec.node_name.to_string())).expect("a pod")
    };
    let (tol, node) = pod_of(&sim, "tol");
    let web_pod = sim
        .store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .find(|p| p.metadata.label("app") == Some("web") && *p.spec.node_name == *node)
        .map(|p| p.metadata.name.to_string())
        .expect("a web pod on the same node");
    let tainted_at = sim.now();
    assert_eq!(kubectl(&mut sim, &format!("taint node {node} dedicated=x:NoExecute")).code, 0);
    sim.run_for(2 * SECOND);
    // The web pod tolerates nothing: deleted at once, with its event.
    let web_events = eviction_events(&sim, &web_pod);
    assert_eq!(web_events.len(), 1, "{web_events:?}");
    let (msg, at, uid, api_version) = &web_events[0];
    assert_eq!(msg, &format!("Marking for deletion Pod default/{web_pod}"));
    assert!(*at >= tainted_at && *at < tainted_at + 2 * SECOND, "{at} {tainted_at}");
    assert_eq!((uid.as_str(), api_version.as_str()), ("", "v1"));
    // The tolerant pod waits its 60 s without an event.
    sim.run_for(50 * SECOND);
    assert!(eviction_events(&sim, &tol).is_empty(), "{:?}", eviction_events(&sim, &tol));
    let out = kubectl(&mut sim, &format!("describe pod {tol}"));
    assert!(!out.stdout.contains("TaintManagerEviction"), "{}", out.stdout);
    sim.run_for(20 * SECOND);
    let tol_events = eviction_events(&sim, &tol);
    assert_eq!(tol_events.len(), 1, "{tol_events:?}");
    assert!(tol_events[0].1 >= tainted_at + MINUTE, "recorded at {} for a taint at {tainted_at}", tol_events[0].1);
    let p = sim.store().peek(Kind::Pod, &ObjKey::new("default", &tol)).and_then(|o| o.as_pod().cloned());
    assert!(p.is_none_or(|p| p.metadata.is_terminating()), "deleted as the event was recorded");
    let out = kubectl(&mut sim, &format!("describe pod {web_pod}"));
    assert!(!out.stdout.contains("Marking for deletion"), "{}", out.stdout);
}
