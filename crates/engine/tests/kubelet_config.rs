//! Pods that read ConfigMaps and Secrets: a container whose environment names a missing object or key waits in
//! `CreateContainerConfigError` (tried again at the pod's next sync), a pod whose volume names a missing object stays
//! ContainerCreating with `FailedMount` events (the volume manager's back-off); `optional: true` skips what is
//! missing. So the order in which a person applies things matters, as it does on a real cluster. And a real
//! application's manifest (Namespace, ServiceAccount, ConfigMap, Secret, Deployment with probes, Service,
//! PodDisruptionBudget) applies and runs.

mod common;

use kubeloop_engine::api::{Kind, Pod, PodPhase};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::scenario::{RunOptions, Scenario};
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{MINUTE, SECOND};

fn sim() -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 4, ..Default::default() });
    for _ in 0..2 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    sim
}

/// A Deployment `app` of one pod whose container `app` has these extra lines, and these pod-spec lines.
fn app(container: &str, spec: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: app}}\n  template:\n    metadata:\n      labels: {{app: app}}\n    spec:\n{spec}      containers:\n      - name: app\n        image: shop/app:1\n{container}"
    )
}

const CONFIG: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n  MODE: prod\n";

fn the_pod(sim: &Sim) -> Pod {
    common::pods(sim).into_iter().find(|p| !p.metadata.is_terminating()).expect("a pod")
}

fn waiting(sim: &Sim) -> Option<(String, String)> {
    let p = the_pod(sim);
    let w = p.status.container_statuses.first()?.state.waiting.clone()?;
    Some((w.reason.to_string(), w.message.to_string()))
}

#[test]
fn a_missing_configmap_in_the_environment_holds_the_container_until_it_exists() {
    let mut sim = sim();
    let env = "        envFrom:\n        - configMapRef: {name: app-config}\n";
    kubectl::apply(&mut sim, &app(env, "")).expect("apply");
    sim.run_for(30 * SECOND);
    assert_eq!(waiting(&sim), Some(("CreateContainerConfigError".into(), "configmap \"app-config\" not found".into())));
    assert!(common::events(&sim, "Failed").contains(&"Error: configmap \"app-config\" not found".to_string()));
    let out = common::kubectl(&mut sim, "get pods --no-headers");
    assert!(out.stdout.contains(" 0/1   CreateContainerConfigError   0 "), "{}", out.stdout);
    // Applied now: the next sync (within 10 s) starts the container.
    kubectl::apply(&mut sim, CONFIG).expect("configmap");
    sim.run_for(12 * SECOND);
    assert!(the_pod(&sim).is_ready(), "{:?}", the_pod(&sim).status);
}

#[test]
fn a_missing_key_is_named_and_optional_references_are_skipped() {
    let mut sim = sim();
    kubectl::apply(&mut sim, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  user: shop\n")
        .expect("secret");
    let env = "        env:\n        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef: {name: db, key: password}\n";
    kubectl::apply(&mut sim, &app(env, "")).expect("apply");
    sim.run_for(30 * SECOND);
    assert_eq!(
        waiting(&sim),
        Some(("CreateContainerConfigError".into(), "couldn't find key password in Secret default/db".into()))
    );
    let optional = "        env:\n        - name: DB_PASSWORD\n          valueFrom:\n            secretKeyRef: {name: db, key: password, optional: true}\n        envFrom:\n        - configMapRef: {name: nowhere, optional: true}\n";
    kubectl::apply(&mut sim, &app(optional, "")).expect("apply optional");
    sim.run_for(MINUTE);
    assert!(the_pod(&sim).is_ready(), "{:?}", the_pod(&sim).status);
}

#[test]
fn a_missing_configmap_volume_keeps_the_pod_creating_with_failed_mounts() {
    let mut sim = sim();
    let volumes = "      volumes:\n      - name: config\n        configMap: {name: app-config}\n";
    kubectl::apply(&mut sim, &app("", volumes)).expect("apply");
    sim.run_for(MINUTE);
    let p = the_pod(&sim);
    assert_eq!(p.status.phase, PodPhase::Pending);
    assert_eq!(waiting(&sim).map(|w| w.0), Some("ContainerCreating".to_string()));
    let failed = common::events(&sim, "FailedMount");
    assert_eq!(failed, ["MountVolume.SetUp failed for volume \"config\" : configmap \"app-config\" not found"]);
    // The volume manager's back-off (500 ms doubling to 2m2s): the pod starts at the next try after the apply.
    kubectl::apply(&mut sim, CONFIG).expect("configmap");
    sim.run_for(2 * MINUTE + 5 * SECOND);
    assert!(the_pod(&sim).is_ready(), "{:?}", the_pod(&sim).status);
    // The defaults the API server gave the volume, as `-o yaml` shows.
    let out = common::kubectl(&mut sim, "get deploy app -o yaml");
    assert!(out.stdout.contains("defaultMode: 420"), "{}", out.stdout);
}

#[test]
fn a_changed_environment_is_a_new_template_and_rolls_out() {
    let mut sim = sim();
    kubectl::apply(&mut sim, CONFIG).expect("configmap");
    let v1 = "        env:\n        - {name: MODE, value: blue}\n";
    kubectl::apply(&mut sim, &app(v1, "")).expect("v1");
    sim.run_for(MINUTE);
    let first = the_pod(&sim).metadata.label("pod-template-hash").map(str::to_string);
    kubectl::apply(&mut sim, &app(&v1.replace("blue", "green"), "")).expect("v2");
    sim.run_for(MINUTE);
    let second = the_pod(&sim).metadata.label("pod-template-hash").map(str::to_string);
    assert_ne!(first, second, "a new ReplicaSet for the new environment");
    assert_eq!(sim.store().count_of(Kind::ReplicaSet), 2);
}

const REAL_APP: &str = include_str!("../../../examples/manifests/shop.yaml");

#[test]
fn a_real_application_applies_and_runs_in_the_runner() {
    let text = format!(
        "until: 2m\ncluster:\n  nodes: 3\nmanifests: |\n{}",
        REAL_APP.lines().map(|l| format!("  {l}\n")).collect::<String>()
    );
    let sc = Scenario::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let mut run = sc.start(RunOptions::default()).expect("start");
    run.run_to(run.until());
    let sim = run.sim();
    let ready = common::pods(sim).iter().filter(|p| &*p.metadata.namespace == "shop" && p.is_ready()).count();
    assert_eq!(ready, 3);
    let pdb = sim
        .store()
        .objects(Kind::PodDisruptionBudget)
        .filter_map(|o| o.as_pdb())
        .next()
        .map(|p| (p.status.current_healthy, p.status.desired_healthy, p.status.disruptions_allowed));
    assert_eq!(pdb, Some((3, 2, 1)));
    let endpoints: usize = sim
        .store()
        .objects(Kind::EndpointSlice)
        .filter_map(|o| o.as_endpointslice())
        .filter(|s| &*s.metadata.namespace == "shop")
        .flat_map(|s| s.endpoints().iter())
        .filter(|e| e.conditions.ready == Some(true))
        .count();
    assert_eq!(endpoints, 3);
    let out = run.finish();
    let rendered = kubeloop_engine::scenario::render_timeline(&out.timeline);
    assert!(rendered.contains("poddisruptionbudget.policy/shop created"), "{rendered}");
    assert!(!rendered.contains("Error"), "{rendered}");
}

#[test]
fn describe_shows_the_environment_volumes_and_probes() {
    let mut sim = Sim::new(SimConfig { seed: 1, ..Default::default() });
    for _ in 0..3 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    let out = common::kubectl_stdin(&mut sim, "apply -f -", REAL_APP);
    assert_eq!(out.code, 0, "{out:?}");
    sim.run_for(MINUTE);
    let name = common::pods(&sim)
        .into_iter()
        .filter(|p| &*p.metadata.namespace == "shop")
        .map(|p| p.metadata.name.to_string())
        .min()
        .expect("a shop pod");
    common::check(&mut sim, "real-app-get-pods", "get pods -n shop");
    let out = common::check(&mut sim, "real-app-describe-pod", &format!("describe pod {name} -n shop"));
    for line in [
        "    Environment Variables from:\n      shop-config  ConfigMap  Optional: false\n",
        "      DB_PASSWORD:  <set to the key 'password' in secret 'shop-db'>  Optional: false\n",
        "  settings:\n    Type:        ConfigMap (a volume populated by a ConfigMap)\n",
        "    Readiness:  http-get http://:http/ready delay=0s timeout=1s period=5s #success=1 #failure=3\n",
    ] {
        assert!(out.stdout.contains(line), "{line:?} in\n{}", out.stdout);
    }
    common::check(&mut sim, "real-app-get-pdb", "get pdb -n shop");
}
