//! The work of a sync as exact counts (issue 29): what a ReplicaSet sync and the EndpointSlice controller's pod
//! handler read does not grow with the pods and Services that are not theirs. Counts, never timings: each
//! informer cache counts the objects and pod groups it hands out, charged to the controller that read them.

mod common;

use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{MINUTE, SECOND};

/// `n` bare pods (no controller) labelled `app: other`, in the default namespace.
fn bare_pods(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: bare-{i}\n  labels:\n    app: other\nspec:\n  containers:\n  - name: c\n    image: nginx:1.27\n    resources:\n      requests:\n        cpu: 1m\n"
            )
        })
        .collect()
}

/// Deployment `web` with `replicas` pods next to `unrelated` bare pods, every pod Running.
fn cluster(replicas: i32, unrelated: usize) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 3, ..Default::default() });
    for _ in 0..4 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    kubectl::apply(&mut sim, &common::web(replicas).cpu("1m").yaml()).expect("apply web");
    if unrelated > 0 {
        kubectl::apply(&mut sim, &bare_pods(unrelated)).expect("apply bare pods");
    }
    sim.run_for(2 * MINUTE);
    assert_eq!(common::live_running(&sim), replicas as usize + unrelated, "every pod Running");
    sim
}

/// `(reconciles, objects and pod groups read from the caches by its reconciles and handlers)` of controller
/// `name` so far (the engine's work, `kubeloop_engine::work`).
fn work(sim: &Sim, name: &str) -> (u64, u64) {
    let w = sim.controller(name).expect("controller").work();
    (w.reconciles, w.reconcile_visits + w.handler_visits)
}

/// The ReplicaSet's name.
fn replicaset(sim: &Sim) -> String {
    let rs = sim.store().objects(kubeloop_engine::api::Kind::ReplicaSet).next().expect("a ReplicaSet");
    rs.meta().name.to_string()
}

/// `(syncs, objects visited)` of the ReplicaSet controller for one change to the ReplicaSet that moves no pod (a
/// label of its own): one sync, which finds nothing to do and writes nothing.
fn one_quiet_sync(replicas: i32, unrelated: usize) -> (u64, u64) {
    let mut sim = cluster(replicas, unrelated);
    let rs = replicaset(&sim);
    let before = work(&sim, "replicaset");
    let out = common::kubectl(&mut sim, &format!("label rs {rs} touched=yes"));
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    sim.run_for(10 * SECOND);
    let after = work(&sim, "replicaset");
    (after.0 - before.0, after.1 - before.1)
}

/// A ReplicaSet sync reads the ReplicaSet and its status from the pod cache's counts of its pods (one group: they
/// share their labels), and looks for orphans to adopt among those its selector's labels could match: ten times
/// more unrelated pods (orphans of the same namespace), or twice its own, change nothing it reads. Before the
/// counts it walked every one of its pods and every orphan of the namespace (20, 40 and 220 pods here).
#[test]
fn a_replicaset_sync_reads_counts_not_the_pods_of_the_namespace() {
    // One sync each, reading the ReplicaSet and one group of pods: 20 pods, twice the pods, ten times more
    // unrelated pods.
    let work = [one_quiet_sync(20, 0), one_quiet_sync(40, 0), one_quiet_sync(20, 200)];
    assert_eq!(work, [(1, 2); 3]);
}

/// Service `NAME` selecting `app: NAME`.
fn service(name: &str) -> String {
    format!(
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  selector: {{app: {name}}}\n  ports:\n  - port: 80\n"
    )
}

/// `(syncs, objects visited)` of the EndpointSlice controller for one pod of `web` (of `replicas`) relabelled,
/// with Service `web` and `others` Services selecting other pods in the same namespace.
fn one_pod_relabelled(replicas: i32, others: usize) -> (u64, u64) {
    let mut sim = cluster(replicas, 0);
    let services: String = std::iter::once("web".to_string())
        .chain((0..others).map(|i| format!("svc-{i}")))
        .map(|n| service(&n))
        .collect();
    kubectl::apply(&mut sim, &services).expect("apply services");
    sim.run_for(MINUTE);
    let pod = common::pods(&sim).into_iter().find(|p| p.metadata.label("app") == Some("web")).expect("a web pod");
    let before = work(&sim, "endpointslice");
    let out = common::kubectl(&mut sim, &format!("label pod {} touched=yes", pod.metadata.name));
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    sim.run_for(10 * SECOND);
    let after = work(&sim, "endpointslice");
    (after.0 - before.0, after.1 - before.1)
}

/// One pod's change queues only the Services that select it, found through the Service cache's selector index:
/// its handler looks at Service `web` once for the pod's new labels and once for its old ones, whatever number of
/// other Services the namespace has. Before the index the handler looked at every Service of the namespace for
/// both (2 and 42 Services here).
#[test]
fn one_pods_change_looks_only_at_the_services_that_select_it() {
    assert_eq!([one_pod_relabelled(3, 0), one_pod_relabelled(3, 20)], [(1, 2 + 3); 2]);
}

/// The one sync that follows reads Service `web`, its slices (to see that they are as its last sync left them)
/// and the one pod that changed: not the Service's other pods, nor their nodes. Ten times the pods add only the
/// slices that hold them (100 endpoints a slice). Before the memo it read every pod of the Service and the node
/// of each (8 objects for 3 pods, 36 for 30, 207 for 200).
#[test]
fn one_pods_change_reads_that_pod_not_the_services_others() {
    let handler = 2;
    let sync = |slices: u64| handler + 1 + slices + 1;
    assert_eq!(
        [one_pod_relabelled(3, 0), one_pod_relabelled(30, 0), one_pod_relabelled(200, 0)],
        [(1, sync(1)), (1, sync(1)), (1, sync(2))]
    );
}
