//! Behaviour of the whole control plane: a scenario in (nodes, manifests, actions, seed), simulated time,
//! assertions on the store out. Each test names the upstream behaviour it reproduces.

mod common;

use common::{events, pods};

use std::collections::BTreeMap;

use kubeloop_engine::api::{s, Kind, ObjKey, Object, Pod, PodPhase};
use kubeloop_engine::kubectl::{self, ApplyAction};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::store::{DeleteOptions, Subresource};
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

fn web(replicas: i32, image: &str, cpu: &str) -> String {
    common::web(replicas).image(image).cpu(cpu).memory("64Mi").yaml()
}

fn cluster(seed: u64, nodes: usize) -> Sim {
    let mut sim = Sim::new(SimConfig { seed, ..Default::default() });
    for _ in 0..nodes {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    sim
}

fn apply(sim: &mut Sim, yaml: &str) -> kubectl::ApplyReport {
    match kubectl::apply(sim, yaml) {
        Ok(r) => r,
        Err(e) => panic!("apply failed: {e}"),
    }
}

fn running(sim: &Sim) -> Vec<Pod> {
    pods(sim).into_iter().filter(|p| p.status.phase == PodPhase::Running && !p.metadata.is_terminating()).collect()
}

fn per_node(pods: &[Pod]) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for p in pods {
        *m.entry(p.spec.node_name.to_string()).or_default() += 1;
    }
    m
}

fn deployment(sim: &Sim) -> kubeloop_engine::api::Deployment {
    sim.store()
        .peek(Kind::Deployment, &ObjKey::new("default", "web"))
        .and_then(|o| o.as_deployment().cloned())
        .expect("deployment exists")
}

fn scale(sim: &mut Sim, n: i32) {
    sim.scale(Kind::Deployment, &ObjKey::new("default", "web"), n).expect("scale");
}

/// `kubectl apply` flow: a 3-replica Deployment on 3 nodes ends with 3 Running pods, one per node
/// (LeastAllocated + BalancedAllocation spread them), owned through a ReplicaSet named by pod-template-hash.
#[test]
fn a_three_replica_deployment_runs_spread_over_three_nodes() {
    let mut sim = cluster(1, 3);
    let report = apply(&mut sim, &web(3, "nginx:1.27", "100m"));
    assert_eq!(report.to_string().trim(), "deployment.apps/web created");
    sim.run_for(30 * SECOND);
    let run = running(&sim);
    assert_eq!(run.len(), 3);
    assert_eq!(per_node(&run).values().copied().collect::<Vec<_>>(), vec![1, 1, 1]);
    let rs: Vec<_> = sim.store().objects(Kind::ReplicaSet).filter_map(|o| o.as_replicaset().cloned()).collect();
    assert_eq!(rs.len(), 1);
    let hash = rs[0].metadata.label("pod-template-hash").expect("hash label").to_string();
    assert_eq!(&*rs[0].metadata.name, format!("web-{hash}"));
    for p in &run {
        assert!(p.metadata.name.starts_with(&format!("web-{hash}-")));
        assert!(p.is_ready());
        assert_eq!(p.condition("PodScheduled").map(|c| &*c.status), Some("True"));
    }
    let d = deployment(&sim);
    assert_eq!((d.status.replicas, d.status.ready_replicas, d.status.available_replicas), (3, 3, 3));
    assert_eq!(d.condition("Available").map(|c| &*c.status), Some("True"));
    assert!(sim.deployments_converged() && sim.idle());
    assert_eq!(sim.drift(), 0, "caches equal the store once quiet");
    for reason in ["ScalingReplicaSet", "SuccessfulCreate", "Scheduled", "Pulling", "Pulled", "Created", "Started"] {
        assert!(!events(&sim, reason).is_empty(), "an event {reason}");
    }
    assert_eq!(events(&sim, "ScalingReplicaSet"), [format!("Scaled up replica set web-{hash} from 0 to 3")]);
}

/// Scaling up and down: the controllers converge to the new count.
#[test]
fn scaling_to_ten_and_back_to_two() {
    let mut sim = cluster(2, 3);
    apply(&mut sim, &web(3, "nginx:1.27", "100m"));
    sim.run_for(30 * SECOND);
    scale(&mut sim, 10);
    sim.run_for(30 * SECOND);
    assert_eq!(running(&sim).len(), 10);
    assert!(per_node(&running(&sim)).values().all(|n| (3..=4).contains(n)), "spread: {:?}", per_node(&running(&sim)));
    scale(&mut sim, 2);
    sim.run_for(60 * SECOND);
    assert_eq!(running(&sim).len(), 2);
    assert_eq!(pods(&sim).len(), 2, "terminated pods are gone");
    assert_eq!(events(&sim, "SuccessfulDelete").len(), 8);
    assert!(sim.deployments_converged());
}

/// ReplicaSet scale-down ranking (ActivePodsWithRanks): a pod on a node that holds more pods of the set goes
/// first, and of those the one ready for the shortest time.
#[test]
fn scale_down_removes_the_doubled_up_most_recently_ready_pod() {
    let mut sim = cluster(3, 3);
    apply(&mut sim, &web(3, "nginx:1.27", "100m"));
    sim.run_for(30 * SECOND);
    let originals: Vec<String> = running(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    scale(&mut sim, 4);
    sim.run_for(30 * SECOND);
    let fourth =
        running(&sim).into_iter().find(|p| !originals.contains(&p.metadata.name.to_string())).expect("new pod");
    scale(&mut sim, 3);
    sim.run_for(60 * SECOND);
    let mut left: Vec<String> = running(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    left.sort();
    let mut want = originals.clone();
    want.sort();
    assert_eq!(left, want, "the fourth pod {} was the one to go", fourth.metadata.name);
}

/// Scale-down deletes unscheduled (Pending) pods before running ones.
#[test]
fn scale_down_removes_pending_pods_first() {
    let mut sim = cluster(4, 3);
    // 4-cpu nodes: a 3-cpu pod fits once per node.
    apply(&mut sim, &web(3, "nginx:1.27", "3"));
    sim.run_for(30 * SECOND);
    let originals: Vec<String> = running(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    assert_eq!(originals.len(), 3);
    scale(&mut sim, 5);
    sim.run_for(30 * SECOND);
    assert_eq!(pods(&sim).iter().filter(|p| p.spec.node_name.is_empty()).count(), 2);
    scale(&mut sim, 3);
    sim.run_for(30 * SECOND);
    let mut left: Vec<String> = pods(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    left.sort();
    let mut want = originals;
    want.sort();
    assert_eq!(left, want);
}

/// A pod that fits nowhere stays Pending with PodScheduled=False/Unschedulable and a FailedScheduling event
/// giving the reasons per node, and is retried when the cluster changes (a big node arrives).
#[test]
fn a_pod_too_big_for_any_node_stays_pending_with_reasons() {
    let mut sim = cluster(5, 3);
    apply(&mut sim, &web(1, "nginx:1.27", "8"));
    sim.run_for(60 * SECOND);
    let ps = pods(&sim);
    assert_eq!(ps.len(), 1);
    let p = &ps[0];
    assert_eq!(p.status.phase, PodPhase::Pending);
    assert!(p.spec.node_name.is_empty());
    let cond = p.condition("PodScheduled").expect("condition");
    assert_eq!((&*cond.status, &*cond.reason), ("False", "Unschedulable"));
    let want = "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.";
    assert_eq!(&*cond.message, want);
    assert_eq!(events(&sim, "FailedScheduling"), [want.to_string()]);
    // A node with room: the scheduler retries on the cluster change.
    let big = NodeConfig { name: "big".into(), cpu: "16".parse().expect("q"), ..Default::default() };
    sim.add_node(big).expect("node");
    sim.run_for(30 * SECOND);
    let p = &pods(&sim)[0];
    assert_eq!(&*p.spec.node_name, "big");
    assert_eq!(p.status.phase, PodPhase::Running);
}

/// Taints and nodeSelector: the reasons name each filter.
#[test]
fn failed_scheduling_lists_each_filter_reason() {
    let mut sim = Sim::new(SimConfig { seed: 6, ..Default::default() });
    sim.add_node(NodeConfig { name: "a".into(), ..Default::default() }).expect("node");
    let taint =
        kubeloop_engine::api::Taint { key: s("dedicated"), value: s("gpu"), effect: s("NoSchedule"), time_added: None };
    sim.add_node(NodeConfig { name: "b".into(), taints: vec![taint], ..Default::default() }).expect("node");
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pinned\nspec:\n  nodeSelector:\n    disk: ssd\n  containers:\n  - name: c\n    image: busybox\n";
    apply(&mut sim, yaml);
    sim.run_for(10 * SECOND);
    let msg = events(&sim, "FailedScheduling");
    assert_eq!(msg.len(), 1);
    assert!(msg[0].starts_with("0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated taint {dedicated: gpu}."), "{}", msg[0]);
}

/// The scheduler explains itself: every node's verdict per filter plugin, the exact upstream message when no node
/// fits (the one the pod's condition carries), and for a pod that fits the node it went to, with each score plugin's
/// part; a weight changed (a plugin off) can change the choice.
#[test]
fn the_scheduler_explains_each_nodes_verdict_and_score() {
    use kubeloop_engine::controllers::scheduler::{Profile, Weights, FILTER_PLUGINS, SCORE_PLUGINS};
    let mut sim = Sim::new(SimConfig { seed: 6, ..Default::default() });
    sim.add_node(NodeConfig { name: "a".into(), ..Default::default() }).expect("node");
    let taint =
        kubeloop_engine::api::Taint { key: s("dedicated"), value: s("gpu"), effect: s("NoSchedule"), time_added: None };
    sim.add_node(NodeConfig { name: "b".into(), taints: vec![taint], ..Default::default() }).expect("node");
    sim.add_node(NodeConfig { name: "c".into(), cpu: "1".parse().expect("q"), ..Default::default() }).expect("node");
    apply(&mut sim, &web(1, "nginx:1.27", "2"));
    sim.run_for(30 * SECOND);
    let pod = pods(&sim)[0].clone();
    let key = kubeloop_engine::api::ObjKey::new(&pod.metadata.namespace, &pod.metadata.name);
    let e = sim.explain_scheduling(&key, Weights::default()).expect("a pod");
    assert_eq!(e.nodes.len(), 3);
    let verdict = |n: &str| e.nodes.iter().find(|v| &*v.node == n).expect("node").clone();
    assert_eq!(verdict("b").reason().as_deref(), Some("node(s) had untolerated taint {dedicated: gpu}"));
    assert!(!verdict("b").filters[FILTER_PLUGINS.iter().position(|p| *p == "TaintToleration").unwrap()].is_empty());
    assert_eq!(verdict("c").reason().as_deref(), Some("Insufficient cpu"));
    assert!(verdict("a").feasible() && verdict("a").scores.is_some());
    // It went where the explanation says, and its scores add up with the default weights (1, 1, 3, 2).
    assert_eq!(&*pod.spec.node_name, "a");
    assert_eq!(e.best.as_deref(), Some("a"));
    let (parts, total) = verdict("a").scores.expect("scores");
    assert_eq!(total, parts[0] + parts[1] + 3 * parts[2] + 2 * parts[3]);
    assert_eq!(SCORE_PLUGINS.len(), parts.len());

    // Too big for every node: the upstream message, the same as the pod's condition says.
    apply(&mut sim, &web(1, "nginx:1.27", "8").replace("name: web", "name: huge"));
    sim.run_for(30 * SECOND);
    let huge = pods(&sim).into_iter().find(|p| p.spec.node_name.is_empty()).expect("pending");
    let key = kubeloop_engine::api::ObjKey::new(&huge.metadata.namespace, &huge.metadata.name);
    let e = sim.explain_scheduling(&key, Weights::default()).expect("a pod");
    let cond = huge.condition("PodScheduled").expect("condition");
    assert_eq!(e.unschedulable.as_deref(), Some(&*cond.message));
    assert!(e.best.is_none() && e.nodes.iter().all(|v| !v.feasible()));

    // A filter switched off (what-if): without NodeResourcesFit the huge pod fits the nodes nothing else rejects
    // (not the tainted one), and across the cluster it is the one pod that would move (from nowhere).
    let fit = FILTER_PLUGINS.iter().position(|p| *p == "NodeResourcesFit").expect("plugin");
    let mut no_fit = Profile::default();
    no_fit.filters[fit] = false;
    let e = sim.explain_scheduling(&key, no_fit).expect("a pod");
    assert!(e.unschedulable.is_none());
    let feasible: Vec<&str> = e.nodes.iter().filter(|v| v.feasible()).map(|v| &*v.node).collect();
    assert_eq!(feasible, ["a", "c"]);
    assert!(e.best.as_deref().is_some_and(|b| feasible.contains(&b)));
    let (moved, _, _) = sim.scheduling_what_if(no_fit, 100);
    assert_eq!(
        moved.iter().map(|m| (&*m.pod.name, m.upstream.is_empty())).collect::<Vec<_>>(),
        [(&*huge.metadata.name, true)]
    );
    let taint = FILTER_PLUGINS.iter().position(|p| *p == "TaintToleration").expect("plugin");
    let mut no_taints = no_fit;
    no_taints.filters[taint] = false;
    let e = sim.explain_scheduling(&key, no_taints).expect("a pod");
    assert_eq!(e.nodes.iter().filter(|v| v.feasible()).count(), 3, "the tainted node too");

    // What-if: a large node and a small one, a ReplicaSet's pod on the large one. For its second pod LeastAllocated
    // alone prefers the large node (more room left); PodTopologySpread alone the small one (none of its pods there).
    let mut sim = Sim::new(SimConfig { seed: 7, ..Default::default() });
    sim.add_node(NodeConfig { name: "small".into(), cpu: "4".parse().expect("q"), ..Default::default() })
        .expect("node");
    sim.add_node(NodeConfig { name: "large".into(), cpu: "16".parse().expect("q"), ..Default::default() })
        .expect("node");
    apply(&mut sim, &web(2, "nginx:1.27", "2"));
    sim.run_for(30 * SECOND);
    let ps = pods(&sim);
    assert!(ps.iter().any(|p| &*p.spec.node_name == "large"));
    // The pod explained: one on the small node if there is one (the other pod is then on the large node).
    let other = ps.iter().find(|p| &*p.spec.node_name == "small").or_else(|| ps.last()).expect("a pod");
    let key = kubeloop_engine::api::ObjKey::new(&other.metadata.namespace, &other.metadata.name);
    let fit_only = sim.explain_scheduling(&key, Weights([1, 0, 0, 0])).expect("pod");
    let spread_only = sim.explain_scheduling(&key, Weights([0, 0, 0, 1])).expect("pod");
    assert_eq!(fit_only.best.as_deref(), Some("large"));
    assert_eq!(spread_only.best.as_deref(), Some("small"));
    let defaults = sim.explain_scheduling(&key, Weights::default()).expect("pod");
    assert_eq!(defaults.tied, 1);

    // Across the cluster: the what-if lists exactly the pods whose explanation changes its best nodes (those tied at
    // the top) with the weights, each explained with the others where they are (the scheduler's cache is put back after each).
    for w in [Weights([1, 0, 0, 0]), Weights([0, 0, 0, 1]), Weights::default()] {
        let (moved, looked, total) = sim.scheduling_what_if(w, 100);
        assert_eq!((looked, total), (2, 2));
        let expected: Vec<_> = pods(&sim)
            .iter()
            .filter_map(|p| {
                let key = kubeloop_engine::api::ObjKey::new(&p.metadata.namespace, &p.metadata.name);
                let with = sim.explain_scheduling(&key, w).expect("pod").top_with(w);
                let upstream =
                    sim.explain_scheduling(&key, Weights::default()).expect("pod").top_with(Weights::default());
                (with != upstream).then_some((key, upstream, with))
            })
            .collect();
        let got: Vec<_> = moved.iter().map(|m| (m.pod.clone(), m.upstream.clone(), m.with.clone())).collect();
        assert_eq!(got, expected, "{w:?}");
    }
    // One cache serves several looks, each putting back what it moved: the same answers as fresh caches.
    let w = Weights([1, 0, 0, 0]);
    let mut cache = sim.scheduler_cache();
    let first = sim.explain_scheduling_in(&mut cache, &key, w);
    let moved = sim.scheduling_what_if_in(&mut cache, w, 100);
    assert_eq!(sim.explain_scheduling_in(&mut cache, &key, w), first);
    assert_eq!(first, sim.explain_scheduling(&key, w));
    assert_eq!(moved, sim.scheduling_what_if(w, 100));
    assert!(sim.scheduling_what_if(Weights::default(), 100).0.is_empty());
    let moves = |w| sim.scheduling_what_if(w, 100).0.into_iter().map(|m| m.pod).collect::<Vec<_>>();
    assert!(moves(Weights([1, 0, 0, 0])).contains(&key) || moves(Weights([0, 0, 0, 1])).contains(&key));
    assert_eq!(sim.scheduling_what_if(Weights([1, 0, 0, 0]), 1).1, 1, "the limit bounds the pods looked at");
}

/// Idempotency: applying the same manifest again changes nothing; no resourceVersion moves.
#[test]
fn applying_the_same_yaml_twice_changes_no_resource_version() {
    let mut sim = cluster(7, 3);
    let yaml = web(3, "nginx:1.27", "100m");
    apply(&mut sim, &yaml);
    sim.run_for(30 * SECOND);
    let before: Vec<(String, u64)> = [Kind::Deployment, Kind::ReplicaSet, Kind::Pod]
        .iter()
        .flat_map(|k| sim.store().objects(*k))
        .map(|o| (o.key().to_string(), o.meta().resource_version))
        .collect();
    let writes = sim.store().counters(sim.user()).writes();
    let report = apply(&mut sim, &yaml);
    assert_eq!(report.results[0].action, ApplyAction::Unchanged);
    assert_eq!(report.to_string().trim(), "deployment.apps/web unchanged");
    sim.run_for(10 * SECOND);
    let after: Vec<(String, u64)> = [Kind::Deployment, Kind::ReplicaSet, Kind::Pod]
        .iter()
        .flat_map(|k| sim.store().objects(*k))
        .map(|o| (o.key().to_string(), o.meta().resource_version))
        .collect();
    assert_eq!(before, after);
    assert_eq!(sim.store().counters(sim.user()).writes(), writes);
}

/// Hand edits are reverted and apply is a three-way merge: a field removed from the manifest goes back to its
/// default, a change lands as `configured`.
#[test]
fn reapplying_a_changed_manifest_configures_it() {
    let mut sim = cluster(8, 3);
    apply(&mut sim, &web(3, "nginx:1.27", "100m"));
    sim.run_for(20 * SECOND);
    let report = apply(&mut sim, &web(5, "nginx:1.27", "100m"));
    assert_eq!(report.to_string().trim(), "deployment.apps/web configured");
    sim.run_for(30 * SECOND);
    assert_eq!(running(&sim).len(), 5);
    let without_replicas = web(5, "nginx:1.27", "100m").replace("  replicas: 5\n", "");
    apply(&mut sim, &without_replicas);
    sim.run_for(60 * SECOND);
    assert_eq!(deployment(&sim).spec.replicas, Some(1), "removed from the manifest: defaulted to 1");
    assert_eq!(running(&sim).len(), 1);
}

/// A template change creates a second ReplicaSet and moves every pod to it; the old one is scaled to 0.
#[test]
fn a_template_change_rolls_out_a_new_replica_set() {
    let mut sim = cluster(9, 3);
    apply(&mut sim, &web(4, "nginx:1.27", "100m"));
    sim.run_for(30 * SECOND);
    apply(&mut sim, &web(4, "nginx:1.28", "100m"));
    sim.run_for(2 * MINUTE);
    let run = running(&sim);
    assert_eq!(run.len(), 4);
    assert!(run.iter().all(|p| &*p.spec.containers[0].image == "nginx:1.28"));
    let mut sets: Vec<(String, i32)> = sim
        .store()
        .objects(Kind::ReplicaSet)
        .filter_map(|o| o.as_replicaset())
        .map(|r| {
            (
                r.metadata.annotation("deployment.kubernetes.io/revision").unwrap_or("").to_string(),
                r.spec.replicas.unwrap_or(0),
            )
        })
        .collect();
    sets.sort();
    assert_eq!(sets, [("1".to_string(), 0), ("2".to_string(), 4)]);
    assert_eq!(deployment(&sim).metadata.annotation("deployment.kubernetes.io/revision"), Some("2"));
    assert!(sim.deployments_converged());
}

/// A broken document changes nothing and is named with its line; the valid documents beside it are applied, as
/// kubectl applies them.
#[test]
fn a_broken_document_fails_alone_with_its_line() {
    let mut sim = cluster(10, 1);
    sim.run_for(SECOND);
    let text = format!(
        "{}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers: oops\n",
        web(3, "nginx", "100m")
    );
    let report = kubectl::apply_each(&mut sim, &text);
    let [e] = report.errors.as_slice() else { panic!("one error: {report}") };
    assert_eq!(e.line, 28, "{e}");
    assert!(e.to_string().contains("line 28"));
    assert_eq!(report.results.len(), 1, "{report}");
    assert!(sim.store().objects(Kind::Deployment).next().is_some());
    assert!(sim.store().objects(Kind::Pod).all(|p| &*p.meta().name != "x"));
}

/// A manifest declaring more pods than Kubernetes' scalability envelope is refused.
#[test]
fn absurd_replica_counts_are_refused() {
    let mut sim = cluster(11, 1);
    let e = kubectl::apply(&mut sim, &web(1_000_000, "nginx", "1m")).expect_err("too many");
    assert!(e.message.contains("at most 150000"), "{e}");
    assert_eq!(e.line, 6);
}

/// Optimistic concurrency: two writers read the same version; the second update gets 409 Conflict, re-reads,
/// retries, and both changes land.
#[test]
fn two_racing_writers_one_conflict_then_both_changes_land() {
    let mut sim = cluster(12, 1);
    apply(&mut sim, &web(1, "nginx", "100m"));
    sim.run_for(10 * SECOND);
    let a = sim.register_client("writer-a");
    let b = sim.register_client("writer-b");
    let key = ObjKey::new("default", "web");
    let read_a = sim.as_client(a, |api| api.get(Kind::Deployment, &key)).expect("get");
    let read_b = sim.as_client(b, |api| api.get(Kind::Deployment, &key)).expect("get");
    let mut edit_a = (*read_a).clone();
    edit_a.meta_mut().labels.insert(s("team"), s("a"));
    sim.as_client(a, |api| api.update(edit_a)).expect("first writer wins");
    let mut edit_b = (*read_b).clone();
    edit_b.meta_mut().annotations.insert(s("owner"), s("b"));
    let err = sim.as_client(b, |api| api.update(edit_b)).expect_err("stale");
    assert_eq!(err.code(), 409);
    assert_eq!(err.to_string(), "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again");
    let fresh = sim.as_client(b, |api| api.get(Kind::Deployment, &key)).expect("re-read");
    let mut retry = (*fresh).clone();
    retry.meta_mut().annotations.insert(s("owner"), s("b"));
    sim.as_client(b, |api| api.update(retry)).expect("retry lands");
    let d = deployment(&sim);
    assert_eq!(d.metadata.label("team"), Some("a"));
    assert_eq!(d.metadata.annotation("owner"), Some("b"));
    assert_eq!(sim.store().counters(b).conflicts, 1);
    assert_eq!(sim.store().counters(a).conflicts, 0);
}

/// `kubectl delete pod`: the pod terminates (Killing, then gone) and the ReplicaSet creates a replacement.
#[test]
fn a_deleted_pod_is_replaced() {
    let mut sim = cluster(13, 3);
    apply(&mut sim, &web(3, "nginx", "100m"));
    sim.run_for(30 * SECOND);
    let victim = running(&sim)[0].metadata.name.clone();
    sim.delete(Kind::Pod, &ObjKey::new("default", &victim), &DeleteOptions::default()).expect("delete");
    let p = sim.store().peek(Kind::Pod, &ObjKey::new("default", &victim)).expect("still there, terminating");
    assert!(p.meta().is_terminating());
    sim.run_for(30 * SECOND);
    assert!(sim.store().peek(Kind::Pod, &ObjKey::new("default", &victim)).is_none());
    assert_eq!(running(&sim).len(), 3);
    assert!(!events(&sim, "Killing").is_empty());
}

/// The kubelet's heartbeat: a Lease in kube-node-lease renewed every 10 s; a killed kubelet stops renewing it, and
/// a pod deleted on its node stays Terminating (nobody confirms the delete).
#[test]
fn kubelet_leases_are_renewed_and_stop_when_killed() {
    let mut sim = cluster(14, 2);
    apply(&mut sim, &web(2, "nginx", "100m"));
    sim.run_for(60 * SECOND);
    let lease = |sim: &Sim, n: &str| -> Millis {
        let l = sim.store().peek(Kind::Lease, &ObjKey::new("kube-node-lease", n)).expect("lease");
        let l = l.as_lease().expect("lease");
        assert_eq!(l.spec.lease_duration_seconds, Some(40));
        l.spec.renew_time.expect("renewed").0
    };
    assert!(sim.now() - lease(&sim, "node-1") <= 10 * SECOND);
    let victim = running(&sim).into_iter().find(|p| &*p.spec.node_name == "node-1").expect("a pod on node-1");
    sim.kill_node("node-1").expect("kill");
    let killed_at = sim.now();
    sim.run_for(60 * SECOND);
    assert!(lease(&sim, "node-1") <= killed_at);
    assert!(sim.now() - lease(&sim, "node-2") <= 10 * SECOND);
    let key = ObjKey::new("default", &victim.metadata.name);
    sim.delete(Kind::Pod, &key, &DeleteOptions::default()).expect("delete");
    sim.run_for(60 * SECOND);
    assert!(sim.store().peek(Kind::Pod, &key).is_some_and(|p| p.meta().is_terminating()), "stuck Terminating");
    sim.revive_node("node-1").expect("revive");
    sim.run_for(30 * SECOND);
    assert!(sim.store().peek(Kind::Pod, &key).is_none(), "the revived kubelet confirms the delete");
    assert_eq!(running(&sim).len(), 2);
}

/// Determinism: the same seed and inputs give the same history, bit for bit; another seed another history.
#[test]
fn same_seed_same_history() {
    let run = |seed: u64| {
        let mut sim = cluster(seed, 4);
        apply(&mut sim, &web(6, "nginx", "100m"));
        sim.run_for(20 * SECOND);
        scale(&mut sim, 9);
        sim.run_for(20 * SECOND);
        let victim = running(&sim)[0].metadata.name.clone();
        sim.delete(Kind::Pod, &ObjKey::new("default", &victim), &DeleteOptions::default()).expect("delete");
        sim.kill_node("node-2").expect("kill");
        sim.run_for(MINUTE);
        let names: Vec<String> =
            pods(&sim).iter().map(|p| format!("{}@{}", p.metadata.name, p.spec.node_name)).collect();
        (sim.history_hash(), sim.store().resource_version(), names, sim.events_processed())
    };
    let a = run(42);
    assert_eq!(a, run(42));
    assert_ne!(a.0, run(43).0);
}

/// Informer faults: an informer that loses every watch event drifts from the store; the drift is counted.
#[test]
fn dropped_watch_events_make_caches_drift() {
    let mut sim = cluster(15, 2);
    apply(&mut sim, &web(2, "nginx", "100m"));
    sim.run_for(20 * SECOND);
    assert_eq!(sim.drift(), 0);
    let cm_pods =
        sim.host(kubeloop_engine::sim::CONTROLLER_MANAGER).informers[Kind::Pod.index()].expect("pod informer");
    sim.set_informer_watch_drop(cm_pods, 1.0);
    scale(&mut sim, 4);
    sim.run_for(20 * SECOND);
    assert!(sim.drift() > 0);
    assert!(sim.informers()[cm_pods].stats().events_dropped > 0);
}

/// What the API served is counted per client: informers LIST once then WATCH, so reads stay small.
#[test]
fn api_load_is_counted_per_client() {
    let mut sim = cluster(16, 3);
    apply(&mut sim, &web(3, "nginx", "100m"));
    sim.run_for(MINUTE);
    let clients = sim.store().clients();
    let cm = clients.iter().find(|c| &*c.name == "kube-controller-manager/cp-1").expect("cm");
    assert_eq!(
        cm.counters.list_calls, 20,
        "one LIST per shared informer (namespaces, deployments, replicasets, pods, nodes, leases, serviceaccounts, services, endpointslices, configmaps, secrets, daemonsets, poddisruptionbudgets, resourcequotas, jobs, cronjobs, statefulsets, persistentvolumeclaims, persistentvolumes, storageclasses)"
    );
    assert!(cm.counters.watch_events > 0);
    assert!(cm.counters.creates >= 8, "four default ServiceAccounts, a ReplicaSet, three pods (and events)");
    let total = sim.store().total_counters();
    assert_eq!(total.reads(), total.list_items + total.gets + total.watch_events);
    let _ = Object::Pod(Pod::default());
}

/// Reflector: a cut watch resumes from the last resourceVersion without a relist while the server still has the
/// history; once the history is gone (410), it relists, and the cache equals the store again.
#[test]
fn a_cut_watch_resumes_or_relists_after_gone() {
    // A small watch cache (upstream keeps at least 100 events per resource) so history rolls over quickly.
    let store = kubeloop_engine::store::StoreConfig { watch_history_min: 5, ..Default::default() };
    let mut sim = Sim::new(SimConfig { seed: 17, store, ..Default::default() });
    for _ in 0..2 {
        sim.add_node(NodeConfig::default()).expect("node");
    }
    apply(&mut sim, &web(2, "nginx", "100m"));
    sim.run_for(20 * SECOND);
    let cm_pods =
        sim.host(kubeloop_engine::sim::CONTROLLER_MANAGER).informers[Kind::Pod.index()].expect("pod informer");
    sim.disconnect_watch(cm_pods);
    scale(&mut sim, 3);
    sim.run_for(20 * SECOND);
    let st = sim.informers()[cm_pods].stats().clone();
    assert_eq!((st.lists, st.relists, st.gone), (1, 0, 0), "resumed: {st:?}");
    assert_eq!(running(&sim).len(), 3);
    // An informer whose last seen resourceVersion is older than the watch history (as after a long outage):
    // history rolls past 75 s as new pod events arrive, then the re-watch gets 410 Gone and relists.
    scale(&mut sim, 4);
    sim.run_for(3 * MINUTE);
    scale(&mut sim, 5);
    sim.run_for(10 * SECOND);
    // The server's bookmarks (once a minute) would carry a caught-up watch forward: cut this one within its
    // first minute.
    sim.disconnect_watch(cm_pods);
    sim.run_for(10 * SECOND);
    // The server no longer has the history this informer would resume from: 410 Gone.
    sim.force_relist(cm_pods);
    sim.run_for(MINUTE);
    let st = sim.informers()[cm_pods].stats().clone();
    assert_eq!((st.gone, st.relists), (1, 1), "{st:?}");
    assert_eq!(sim.drift(), 0);
    assert_eq!(running(&sim).len(), 5);
}

/// ReplicaSet scale-down during a rollout (`getPodsToDelete` ranks by `getIndirectlyRelatedPods`): a pod's rank is
/// how many active pods of *every* ReplicaSet of its Deployment share its node. The new ReplicaSet has two pods on
/// node-1 and one on node-2, where the old ReplicaSet has two more: it gives up the pod on node-2 (3 related
/// pods there), not one of the two on node-1 (which counting only its own pods would pick).
#[test]
fn rollout_scale_down_prefers_the_node_shared_with_the_other_replica_sets_pods() {
    use kubeloop_engine::controller::Controller;
    use kubeloop_engine::controllers::replicaset::ReplicaSetController;
    use kubeloop_engine::sim::{CONTROLLER_MANAGER, CONTROLLER_MANAGER_2};
    let mut sim = cluster(5, 3);
    // Only a ReplicaSet controller: the Deployment controller must not resize anything by itself.
    sim.crash_host(CONTROLLER_MANAGER);
    sim.crash_host(CONTROLLER_MANAGER_2);
    sim.add_host("replicaset-only", vec![Controller::new(Box::new(ReplicaSetController::new(1)))], 0);
    apply(&mut sim, &web(3, "nginx:1.27", "100m"));
    let uid = |sim: &Sim, kind: Kind, name: &str| {
        sim.store().peek(kind, &ObjKey::new("default", name)).map(|o| o.meta().uid.to_string()).expect("exists")
    };
    let dep = uid(&sim, Kind::Deployment, "web");
    let rs = |name: &str, hash: &str, replicas: i32| {
        format!(
            "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: {name}\n  labels: {{app: web, pod-template-hash: {hash}}}\n  ownerReferences:\n  - {{apiVersion: apps/v1, kind: Deployment, name: web, uid: {dep}, controller: true}}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: web, pod-template-hash: {hash}}}\n  template:\n    metadata:\n      labels: {{app: web, pod-template-hash: {hash}}}\n    spec:\n      containers:\n      - {{name: nginx, image: nginx:1.27}}\n"
        )
    };
    apply(&mut sim, &rs("web-old", "old", 2));
    apply(&mut sim, &rs("web-new", "new", 3));
    let pod = |sim: &Sim, name: &str, owner: &str, hash: &str, node: &str| {
        let owner_uid = uid(sim, Kind::ReplicaSet, owner);
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{app: web, pod-template-hash: {hash}}}\n  ownerReferences:\n  - {{apiVersion: apps/v1, kind: ReplicaSet, name: {owner}, uid: {owner_uid}, controller: true}}\nspec:\n  nodeName: {node}\n  containers:\n  - {{name: nginx, image: nginx:1.27}}\n"
        )
    };
    let mut pods_yaml = String::new();
    for (name, owner, hash, node) in [
        ("old-a", "web-old", "old", "node-2"),
        ("old-b", "web-old", "old", "node-2"),
        ("new-a", "web-new", "new", "node-1"),
        ("new-b", "web-new", "new", "node-1"),
        ("new-c", "web-new", "new", "node-2"),
    ] {
        pods_yaml.push_str("---\n");
        pods_yaml.push_str(&pod(&sim, name, owner, hash, node));
    }
    apply(&mut sim, &pods_yaml);
    sim.run_for(30 * SECOND);
    assert_eq!(running(&sim).len(), 5, "{:?}", per_node(&running(&sim)));
    sim.scale(Kind::ReplicaSet, &ObjKey::new("default", "web-new"), 2).expect("scale");
    sim.run_for(30 * SECOND);
    let mut left: Vec<String> = pods(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    left.sort();
    assert_eq!(left, ["new-a", "new-b", "old-a", "old-b"], "new-c, on the node shared with web-old, went");
    assert_eq!(events(&sim, "SuccessfulDelete"), ["Deleted pod: new-c"]);
}

/// PodTopologySpread's system default constraints (kubernetes.io/hostname maxSkew 3, topology.kubernetes.io/zone
/// maxSkew 5, both ScheduleAnyway, selecting the pods of the same ReplicaSet; weight 2): with two nodes in zone
/// z1 and one in z2, four replicas go one per node and the fourth to z2's node, the zone with fewer of them.
/// The resources scores are equal on the three nodes at that point, so only the zone term decides.
#[test]
fn system_default_topology_spreading_puts_the_fourth_replica_in_the_emptier_zone() {
    for seed in [6, 7, 8] {
        let mut sim = Sim::new(SimConfig { seed, ..Default::default() });
        for (name, zone) in [("node-a", "z1"), ("node-b", "z1"), ("node-c", "z2")] {
            let mut cfg = NodeConfig { name: name.into(), ..Default::default() };
            cfg.labels.insert(s("topology.kubernetes.io/zone"), s(zone));
            sim.add_node(cfg).expect("node");
        }
        apply(&mut sim, &web(3, "nginx:1.27", "100m"));
        sim.run_for(30 * SECOND);
        assert_eq!(per_node(&running(&sim)).values().copied().collect::<Vec<_>>(), [1, 1, 1], "seed {seed}");
        scale(&mut sim, 4);
        sim.run_for(30 * SECOND);
        let spread = per_node(&running(&sim));
        assert_eq!(spread.get("node-c"), Some(&2), "seed {seed}: {spread:?}");
    }
}

/// kube-scheduler's leader election (`--leader-elect`, Lease `kube-system/kube-scheduler`, 15 s / 10 s / 2 s): it
/// schedules only while it holds the lease. When another holder keeps renewing it, the scheduler fails to renew,
/// gives up after the renew deadline (and exits and restarts, as upstream's does), and new pods stay Pending;
/// once that holder stops, the scheduler takes the lease over after a lease duration and binds them.
#[test]
fn kube_scheduler_schedules_only_while_it_holds_its_lease() {
    use kubeloop_engine::api::Time;
    let key = ObjKey::new("kube-system", "kube-scheduler");
    let lease = |sim: &Sim| {
        sim.store().peek(Kind::Lease, &key).and_then(|o| o.as_lease().cloned()).expect("the scheduler's lease")
    };
    let mut sim = cluster(9, 2);
    sim.run_for(5 * SECOND);
    assert_eq!(&*lease(&sim).spec.holder_identity, "cp-1");
    assert!(sim.host(kubeloop_engine::sim::SCHEDULER).active());
    let steal = |sim: &mut Sim| {
        let now = Time(sim.now());
        sim.as_user(|api| {
            api.patch(Kind::Lease, &key, Subresource::Main, |o| {
                if let Object::Lease(l) = o {
                    l.spec.holder_identity = s("impostor");
                    l.spec.renew_time = Some(now);
                }
            })
        })
        .expect("patch the lease");
    };
    for _ in 0..8 {
        steal(&mut sim);
        sim.run_for(2 * SECOND);
    }
    assert!(!sim.host(kubeloop_engine::sim::SCHEDULER).active(), "past the renew deadline it stopped leading");
    apply(&mut sim, &web(2, "nginx:1.27", "100m"));
    for _ in 0..15 {
        steal(&mut sim);
        sim.run_for(2 * SECOND);
    }
    assert_eq!(pods(&sim).len(), 2);
    assert!(pods(&sim).iter().all(|p| p.spec.node_name.is_empty()), "nobody schedules without the lease");
    // The impostor stops renewing: a lease duration later the scheduler holds the lease again and binds.
    sim.run_for(30 * SECOND);
    assert_eq!(&*lease(&sim).spec.holder_identity, "cp-1");
    assert_eq!(running(&sim).len(), 2);
    assert!(events(&sim, "LeaderElection").iter().filter(|m| m.as_str() == "cp-1 became leader").count() >= 3);
}

/// A Deployment's pods as the engine counts them for the page's figures and the lessons' `pods:` checks: running and
/// ready on their nodes, then, with a node killed, the ones left on it counted there until they are replaced.
#[test]
fn a_deployments_pods_are_counted_by_their_selector_with_their_nodes() {
    let mut sim = cluster(3, 3);
    apply(&mut sim, &web(3, "nginx:1.27", "100m"));
    sim.run_for(30 * SECOND);
    let d = deployment(&sim);
    let picks = |p: &Pod| *p.metadata.namespace == *d.metadata.namespace && d.spec.selector.matches(&p.metadata.labels);
    let m = sim.matched_pods(&picks, 0);
    assert_eq!((m.total, m.running, m.ready, m.not_ready, m.terminating), (3, 3, 3, 0, 0));
    assert_eq!((m.created_since, m.on_dead_nodes, m.restarts, m.back_off), (3, 0, 0, 0));
    assert_eq!(m.nodes, ["node-1", "node-2", "node-3"]);
    assert_eq!(sim.matched_pods(&picks, sim.now()).created_since, 0, "none created since now");
    let mut by_node = per_node(&running(&sim));
    let victim = by_node.pop_first().map(|(n, _)| n).expect("a node");
    sim.kill_node(&victim).expect("kill");
    sim.run_for(10 * SECOND);
    let m = sim.matched_pods(&picks, 0);
    assert_eq!((m.on_dead_nodes, m.running), (1, 3), "still Running in the store, on a dead node");
    let others = sim.matched_pods(&|p: &Pod| !picks(p), 0);
    assert_eq!(others.total, 0, "nothing else runs");
}
