//! Complexity held as exact counts (the engine's work, `Sim::work`; docs/performance.md, "The work budget"): the
//! work of one step must not grow with parts of the cluster the step is not about. Each test runs the same step
//! in a small and a large cluster and asks for the same figures, and pins them where they follow from the step.

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{MINUTE, SECOND};
use kubeloop_engine::work::{KubeletWork, Work};

/// A Deployment of `replicas` pods, pinned to `node` when given.
fn deployment(name: &str, replicas: usize, node: Option<&str>) -> String {
    let selector =
        node.map_or(String::new(), |n| format!("      nodeSelector:\n        kubernetes.io/hostname: {n}\n"));
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n{selector}      containers:\n      - name: app\n        image: registry.example/{name}:1\n        resources:\n          requests:\n            cpu: 10m\n            memory: 16Mi\n"
    )
}

/// `nodes` nodes and `manifests` applied, run until everything has settled (two simulated minutes, then one
/// more, quiet).
fn cluster(nodes: usize, manifests: &str) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 7, ..Default::default() });
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    kubectl::apply(&mut sim, manifests).expect("apply");
    sim.run_for(3 * MINUTE);
    let (_, pending, terminating) = sim.pod_counts();
    assert_eq!((pending, terminating), (0, 0), "the cluster settled");
    assert!(sim.deployments_converged(), "the Deployments converged");
    sim
}

/// The work `step` makes the cluster do, over `run` of simulated time after it.
fn work_of(sim: &mut Sim, step: impl FnOnce(&mut Sim), run: u64) -> Work {
    let before = sim.work();
    step(sim);
    sim.run_for(run);
    sim.work().since(&before)
}

fn kubectl(sim: &mut Sim, line: &str) {
    let out = kubectl::run(sim, line, &kubectl::Input::none());
    assert_eq!(out.code, 0, "kubectl {line}: {}", out.stderr);
}

/// node-2's kubelet over the whole run: the pods it runs are the same, whatever node-1 runs.
fn second_kubelet(others: usize) -> (KubeletWork, u64) {
    let manifests = deployment("mine", 5, Some("node-2")) + &deployment("theirs", others, Some("node-1"));
    let sim = cluster(2, &manifests);
    let k = &sim.kubelets()[1];
    assert_eq!(&*k.name, "node-2");
    (k.work.clone(), sim.store().counters(k.client).watch_events)
}

#[test]
fn a_kubelets_work_does_not_grow_with_other_nodes_pods() {
    let (few, few_events) = second_kubelet(5);
    let (many, many_events) = second_kubelet(60);
    assert_eq!(few, many, "node-2's kubelet worked more because node-1 runs more pods");
    assert_eq!(few_events, many_events, "node-2's pod watch carried other nodes' pods");
    // Its five pods, each started once: one pod step each (the image pull), heartbeats every 10 s for 3 minutes.
    assert_eq!((few.pod_steps, few.ticks), (5, 18), "{few:?}");
}

/// The ReplicaSet controller's work for one resync of the `small` ReplicaSet, beside a Deployment of `others`.
fn one_replicaset_sync(others: usize) -> Work {
    let manifests = deployment("small", 4, None) + &deployment("big", others, None);
    let mut sim = cluster(4, &manifests);
    let rs = sim
        .store()
        .objects(Kind::ReplicaSet)
        .find(|o| o.meta().labels.get("app").is_some_and(|a| &**a == "small"))
        .map(|o| o.key())
        .expect("the small Deployment's ReplicaSet");
    work_of(&mut sim, |sim| kubectl(sim, &format!("annotate replicaset {} touched=yes", rs.name)), 10 * SECOND)
}

#[test]
fn a_replicaset_sync_reads_its_own_pods_not_the_clusters() {
    let few = one_replicaset_sync(4).controller("replicaset");
    let many = one_replicaset_sync(80).controller("replicaset");
    // One sync of the touched ReplicaSet, which reads it and the pod cache's one group of its four pods.
    assert_eq!((few.reconciles, few.reconcile_visits), (1, 2), "{few:?}");
    assert_eq!(
        (few.reconcile_visits, few.handler_visits),
        (many.reconcile_visits, many.handler_visits),
        "a ReplicaSet's sync read more because another ReplicaSet has more pods: {few:?} / {many:?}"
    );
}

/// The scheduler's work for one more pod (owned by nothing), in a cluster of three nodes already running `others`
/// pods.
fn one_pod_scheduled(others: usize) -> Work {
    let mut sim = cluster(3, &deployment("others", others, None));
    let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: one\nspec:\n  containers:\n  - name: app\n    image: registry.example/one:1\n";
    let work = work_of(&mut sim, |sim| drop(kubectl::apply(sim, pod).expect("apply the pod")), 10 * SECOND);
    let one = sim.store().peek(Kind::Pod, &ObjKey::new("default", "one")).and_then(|o| o.as_pod()).cloned();
    assert!(one.is_some_and(|p| !p.spec.node_name.is_empty()), "the pod was scheduled");
    work
}

#[test]
fn scheduling_one_pod_visits_the_nodes_not_the_pods() {
    let few = one_pod_scheduled(3).controller("scheduler");
    let many = one_pod_scheduled(90).controller("scheduler");
    // One reconcile, which reads the pod from the cache; each of the three nodes filtered and scored once.
    let own = |w: &kubeloop_engine::work::ControllerWork| (w.own.get("nodesFiltered"), w.own.get("nodesScored"));
    assert_eq!((few.reconciles, few.reconcile_visits), (1, 1), "{few:?}");
    assert_eq!(own(&few), (3, 3), "{few:?}");
    assert_eq!(
        (many.reconciles, many.reconcile_visits, own(&many)),
        (few.reconciles, few.reconcile_visits, own(&few)),
        "scheduling one pod did more work because more pods run: {few:?} / {many:?}"
    );
}

/// The EndpointSlice controller's work when one pod of `web` changes, beside a Service `big` over `others` pods.
fn one_pod_changed(others: usize) -> Work {
    let service = |name: &str| {
        format!("---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  selector: {{app: {name}}}\n  ports:\n  - port: 80\n")
    };
    let manifests = deployment("web", 3, None) + &service("web") + &deployment("big", others, None) + &service("big");
    let mut sim = cluster(3, &manifests);
    let pod = sim
        .store()
        .objects(Kind::Pod)
        .find(|o| o.meta().labels.get("app").is_some_and(|a| &**a == "web"))
        .map(|o| o.key())
        .expect("a pod of web");
    work_of(&mut sim, |sim| kubectl(sim, &format!("label pod {} touched=yes", pod.name)), 10 * SECOND)
}

#[test]
fn one_pods_change_resyncs_only_the_services_that_select_it() {
    let few = one_pod_changed(4).controller("endpointslice");
    let many = one_pod_changed(80).controller("endpointslice");
    // One sync, of web only: it reads web, its slice (as its last sync left it) and the one pod that changed.
    assert_eq!((few.reconciles, few.reconcile_visits), (1, 3), "{few:?}");
    assert_eq!(
        (many.reconciles, many.reconcile_visits, many.handler_visits),
        (few.reconciles, few.reconcile_visits, few.handler_visits),
        "one pod's change made the EndpointSlice controller do more because another Service has more pods: {few:?} / {many:?}"
    );
}
