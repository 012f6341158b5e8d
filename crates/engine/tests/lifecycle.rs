//! Failure and healing (issue 5): node lifecycle and taint-based eviction, each test a scenario run for simulated
//! time with assertions on the store. Each names the upstream behaviour it reproduces.

mod common;

use common::{live_running, pods};

use kubeloop_engine::api::{Kind, ObjKey, Object, Pod, PodPhase};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::{Millis, SECOND};

fn node(sim: &Sim, name: &str) -> kubeloop_engine::api::Node {
    sim.store().peek(Kind::Node, &ObjKey::cluster(name)).and_then(|o| o.as_node().cloned()).unwrap_or_default()
}

fn taints(sim: &Sim, name: &str) -> Vec<String> {
    node(sim, name).spec.taints.iter().map(|t| format!("{}:{}", t.key, t.effect)).collect()
}

/// The first time (stepping by 1 s) `cond` holds, or `None` by `until`.
fn when(sim: &mut Sim, until: Millis, mut cond: impl FnMut(&Sim) -> bool) -> Option<Millis> {
    while sim.now() < until {
        if cond(sim) {
            return Some(sim.now());
        }
        sim.run_for(SECOND);
    }
    cond(sim).then(|| sim.now())
}

fn events(sim: &Sim, reason: &str) -> Vec<String> {
    sim.store()
        .objects(Kind::Event)
        .filter_map(|o| o.as_event())
        .filter(|e| &*e.body.reason == reason)
        .map(|e| format!("{}/{}: {}", e.body.involved_object.kind, e.body.involved_object.name, e.body.message))
        .collect()
}

#[test]
fn a_dead_node_is_tainted_and_its_pods_are_replaced_after_the_toleration() {
    // node_lifecycle_controller.go: no heartbeat for node-monitor-grace-period (50 s) -> Ready=Unknown and
    // unreachable taints; taint eviction after the pods' 300 s default toleration; ReplicaSet replaces them.
    let mut sim = common::cluster();
    let victim = pods(&sim).iter().find(|p| p.status.phase == PodPhase::Running).map(|p| p.spec.node_name.to_string());
    let victim = victim.expect("a running pod");
    let on_victim: Vec<String> =
        pods(&sim).iter().filter(|p| *p.spec.node_name == *victim).map(|p| p.metadata.name.to_string()).collect();
    assert!(!on_victim.is_empty());
    sim.kill_node(&victim).expect("kill");
    let killed_at = sim.now();

    // Still Ready for the grace period (the last heartbeat may be up to 10 s old when the kubelet dies).
    sim.run_for(35 * SECOND);
    assert_eq!(node(&sim, &victim).ready_status(), "True", "not before the grace period");
    let unknown_at = when(&mut sim, killed_at + 70 * SECOND, |s| node(s, &victim).ready_status() == "Unknown")
        .expect("Ready=Unknown within grace + monitor period");
    assert!(unknown_at - killed_at >= 40 * SECOND && unknown_at - killed_at <= 66 * SECOND, "at {unknown_at}");
    let ready = node(&sim, &victim).condition("Ready").cloned().unwrap_or_default();
    assert_eq!(&*ready.reason, "NodeStatusUnknown");
    assert_eq!(&*ready.message, "Kubelet stopped posting node status.");
    sim.run_for(2 * SECOND);
    let t = taints(&sim, &victim);
    assert!(t.contains(&"node.kubernetes.io/unreachable:NoExecute".to_string()), "{t:?}");
    assert!(t.contains(&"node.kubernetes.io/unreachable:NoSchedule".to_string()), "{t:?}");
    assert!(events(&sim, "NodeNotReady").iter().any(|e| e.starts_with(&format!("Node/{victim}"))));
    // Its pods are marked not ready but keep running (and are not replaced yet).
    for p in pods(&sim).iter().filter(|p| on_victim.contains(&p.metadata.name.to_string())) {
        assert!(!p.is_ready(), "{} marked not ready", p.metadata.name);
        assert!(!p.metadata.is_terminating());
    }
    assert_eq!(pods(&sim).len(), 3);

    // After the 300 s toleration: evicted (Terminating, as nobody confirms on a dead node) and replaced.
    let tainted_at = sim.now();
    sim.run_for(290 * SECOND);
    assert!(pods(&sim).iter().all(|p| !p.metadata.is_terminating()), "not before 300 s");
    let evicted_at = when(&mut sim, tainted_at + 320 * SECOND, |s| {
        pods(s).iter().filter(|p| on_victim.contains(&p.metadata.name.to_string())).all(|p| p.metadata.is_terminating())
    })
    .expect("evicted after tolerationSeconds");
    assert!(evicted_at >= tainted_at + 295 * SECOND, "evicted at {evicted_at}, tainted at {tainted_at}");
    assert!(!events(&sim, "TaintManagerEviction").is_empty());
    sim.run_for(60 * SECOND);
    let live: Vec<Pod> = pods(&sim).into_iter().filter(|p| !p.metadata.is_terminating()).collect();
    assert_eq!(live.len(), 3);
    for p in &live {
        assert_eq!(p.status.phase, PodPhase::Running, "{}", p.metadata.name);
        assert_ne!(&*p.spec.node_name, victim.as_str(), "replacement {} not on the dead node", p.metadata.name);
    }
    let terminating = pods(&sim).into_iter().filter(|p| p.metadata.is_terminating()).count();
    assert_eq!(terminating, on_victim.len(), "the dead node's pods stay Terminating");

    // Revive: Ready again, taints gone, the Terminating pods are confirmed gone by the kubelet.
    sim.revive_node(&victim).expect("revive");
    sim.run_for(30 * SECOND);
    assert_eq!(node(&sim, &victim).ready_status(), "True");
    assert!(taints(&sim, &victim).is_empty(), "{:?}", taints(&sim, &victim));
    assert_eq!(pods(&sim).len(), 3, "terminating pods finalized");
}

#[test]
fn a_revived_node_before_the_toleration_keeps_its_pods() {
    // The pods tolerate `unreachable` for 300 s: a node back within that time keeps them (eviction cancelled).
    let mut sim = common::cluster();
    let victim = pods(&sim)[0].spec.node_name.to_string();
    let before: Vec<String> = pods(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    sim.kill_node(&victim).expect("kill");
    sim.run_for(120 * SECOND);
    assert_eq!(node(&sim, &victim).ready_status(), "Unknown");
    sim.revive_node(&victim).expect("revive");
    sim.run_for(400 * SECOND);
    let after: Vec<String> = pods(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    assert_eq!(before, after, "no pod replaced");
    assert!(pods(&sim).iter().all(|p| p.is_ready()), "pods ready again");
    assert!(taints(&sim, &victim).is_empty());
}

#[test]
fn all_nodes_down_is_master_disruption_and_nothing_is_evicted() {
    // handleDisruption: every zone fully disrupted -> the controller assumes its own connectivity is the problem
    // and taints nothing with NoExecute.
    let mut sim = common::cluster();
    let names: Vec<String> = sim.store().objects(Kind::Node).map(|o| o.meta().name.to_string()).collect();
    for n in &names {
        sim.kill_node(n).expect("kill");
    }
    sim.run_for(600 * SECOND);
    for n in &names {
        assert_eq!(node(&sim, n).ready_status(), "Unknown");
        assert!(!taints(&sim, n).iter().any(|t| t.ends_with(":NoExecute")), "{n}: {:?}", taints(&sim, n));
    }
    assert!(pods(&sim).iter().all(|p| !p.metadata.is_terminating()), "no evictions");
}

#[test]
fn cordon_adds_the_unschedulable_taint() {
    // doNoScheduleTaintingPass: spec.unschedulable -> node.kubernetes.io/unschedulable:NoSchedule.
    let mut sim = common::cluster();
    let name = "node-1";
    sim.as_user(|api| {
        api.patch(Kind::Node, &ObjKey::cluster(name), kubeloop_engine::store::Subresource::Main, |o| {
            if let Object::Node(n) = o {
                n.spec.unschedulable = true;
            }
        })
    })
    .expect("cordon");
    sim.run_for(2 * SECOND);
    assert_eq!(taints(&sim, name), vec!["node.kubernetes.io/unschedulable:NoSchedule".to_string()]);
}

fn delete_web(sim: &mut Sim, propagation: Option<kubeloop_engine::store::Propagation>) {
    let opts = kubeloop_engine::store::DeleteOptions { propagation, ..Default::default() };
    sim.as_user(|api| api.delete(Kind::Deployment, &ObjKey::new("default", "web"), &opts)).expect("delete web");
}

#[test]
fn deleting_a_deployment_collects_its_replicasets_and_pods_in_the_background() {
    // garbagecollector.go: background propagation (the default): the owner goes at once, then its dependents.
    let mut sim = common::cluster();
    delete_web(&mut sim, None);
    assert!(sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).is_none(), "deployment gone at once");
    sim.run_for(60 * SECOND);
    assert_eq!(sim.store().count_of(Kind::ReplicaSet), 0);
    assert_eq!(sim.store().count_of(Kind::Pod), 0, "pods terminated and gone");
}

#[test]
fn foreground_deletion_waits_for_the_dependents() {
    // Foreground: the owner stays (deletionTimestamp + foregroundDeletion finalizer) until its blocking
    // dependents are gone, then the collector removes the finalizer and the API server deletes it.
    let mut sim = common::cluster();
    delete_web(&mut sim, Some(kubeloop_engine::store::Propagation::Foreground));
    let d = sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).cloned().expect("still there");
    assert!(d.meta().is_terminating());
    assert!(d.meta().finalizers.iter().any(|f| &**f == "foregroundDeletion"));
    let until = sim.now() + 120 * SECOND;
    let gone = when(&mut sim, until, |s| s.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).is_none());
    assert!(gone.is_some(), "deployment deleted once its dependents are");
    assert_eq!(sim.store().count_of(Kind::ReplicaSet), 0);
    assert_eq!(sim.store().count_of(Kind::Pod), 0);
}

#[test]
fn orphan_deletion_keeps_the_dependents_without_owner() {
    // Orphan: the collector strips the owner reference from the ReplicaSet, then the finalizer; pods stay.
    let mut sim = common::cluster();
    delete_web(&mut sim, Some(kubeloop_engine::store::Propagation::Orphan));
    sim.run_for(30 * SECOND);
    assert!(sim.store().peek(Kind::Deployment, &ObjKey::new("default", "web")).is_none());
    let rs: Vec<_> = sim.store().objects(Kind::ReplicaSet).cloned().collect();
    assert_eq!(rs.len(), 1);
    assert!(rs[0].meta().owner_references.is_empty(), "orphaned");
    assert_eq!(pods(&sim).iter().filter(|p| p.status.phase == PodPhase::Running).count(), 3, "pods keep running");
    for p in pods(&sim) {
        assert_eq!(p.metadata.owner_references.len(), 1, "pods still owned by the ReplicaSet");
    }
}

fn cm_lease(sim: &Sim) -> kubeloop_engine::api::Lease {
    sim.store()
        .peek(Kind::Lease, &ObjKey::new("kube-system", "kube-controller-manager"))
        .and_then(|o| o.as_lease().cloned())
        .unwrap_or_default()
}

fn delete_a_pod(sim: &mut Sim) -> String {
    let name = pods(sim)
        .iter()
        .find(|p| !p.metadata.is_terminating())
        .map(|p| p.metadata.name.to_string())
        .unwrap_or_default();
    sim.delete(Kind::Pod, &ObjKey::new("default", &name), &Default::default()).expect("delete pod");
    name
}

#[test]
fn the_standby_controller_manager_takes_over_after_the_lease_expires() {
    // client-go leaderelection: leaseDuration 15 s, renewDeadline 10 s, retryPeriod 2 s. The leader crashes
    // without releasing; the standby acquires once it has seen the same record for 15 s, relists, and heals.
    use kubeloop_engine::sim::{CONTROLLER_MANAGER, CONTROLLER_MANAGER_2};
    let mut sim = common::cluster();
    let lease = cm_lease(&sim);
    assert_eq!(&*lease.spec.holder_identity, "cp-1");
    assert_eq!(lease.spec.lease_duration_seconds, Some(15));
    assert_eq!(sim.controller_manager_leader(), Some(CONTROLLER_MANAGER));
    let cache_sizes = |sim: &Sim, h: kubeloop_engine::sim::HostId| -> usize {
        sim.host(h).informers.iter().flatten().map(|&id| sim.informers()[id].cache.len()).sum()
    };
    assert!(cache_sizes(&sim, CONTROLLER_MANAGER) > 0);
    assert_eq!(cache_sizes(&sim, CONTROLLER_MANAGER_2), 0, "the standby has no caches until it leads");

    sim.crash_host(CONTROLLER_MANAGER);
    let crashed_at = sim.now();
    let deleted = delete_a_pod(&mut sim);
    sim.run_for(10 * SECOND);
    assert_eq!(sim.controller_manager_leader(), None, "nobody leads before the lease expires");
    assert_eq!(pods(&sim).iter().filter(|p| !p.metadata.is_terminating()).count(), 2, "nothing replaced the pod");
    let took_over =
        when(&mut sim, crashed_at + 40 * SECOND, |s| s.controller_manager_leader() == Some(CONTROLLER_MANAGER_2))
            .expect("standby leads");
    assert!(took_over - crashed_at >= 15 * SECOND, "not before the lease duration: {}", took_over - crashed_at);
    assert!(took_over - crashed_at <= 15 * SECOND + 10 * SECOND, "within a retry or so: {}", took_over - crashed_at);
    let lease = cm_lease(&sim);
    assert_eq!(&*lease.spec.holder_identity, "cp-2");
    assert_eq!(lease.spec.lease_transitions, Some(1));
    assert!(events(&sim, "LeaderElection").iter().any(|e| e.contains("cp-2 became leader")));
    sim.run_for(30 * SECOND);
    assert_eq!(live_running(&sim), 3, "healed after the takeover ({deleted} replaced)");
    assert_eq!(sim.drift(), 0);
    assert!(cache_sizes(&sim, CONTROLLER_MANAGER_2) > 0, "the new leader listed everything");
    assert_eq!(cache_sizes(&sim, CONTROLLER_MANAGER), 0, "the crashed one lost its caches");

    // The old leader comes back as a candidate and stays standby.
    sim.restart_host(CONTROLLER_MANAGER);
    sim.run_for(60 * SECOND);
    assert_eq!(sim.controller_manager_leader(), Some(CONTROLLER_MANAGER_2));
    assert_eq!(&*cm_lease(&sim).spec.holder_identity, "cp-2");
}

#[test]
fn with_both_controller_managers_down_pods_keep_running_but_nothing_heals() {
    // The seed: a dead control plane leaves the pods running but stops self-healing; bring one back -> healed.
    use kubeloop_engine::sim::{CONTROLLER_MANAGER, CONTROLLER_MANAGER_2};
    let mut sim = common::cluster();
    sim.crash_host(CONTROLLER_MANAGER);
    sim.crash_host(CONTROLLER_MANAGER_2);
    sim.run_for(30 * SECOND);
    assert_eq!(live_running(&sim), 3, "pods keep running");
    delete_a_pod(&mut sim);
    sim.run_for(120 * SECOND);
    assert_eq!(live_running(&sim), 2, "a deleted pod is not replaced");
    sim.restart_host(CONTROLLER_MANAGER_2);
    let until = sim.now() + 60 * SECOND;
    let healed = when(&mut sim, until, |s| live_running(s) == 3);
    assert!(healed.is_some(), "one controller manager back -> healed");
    assert_eq!(sim.controller_manager_leader(), Some(CONTROLLER_MANAGER_2));
}

#[test]
fn the_fast_demo_profile_evicts_sooner_and_says_so_in_the_tolerations() {
    use kubeloop_engine::sim::{SimConfig, TimingProfile};
    let mut sim = Sim::new(TimingProfile::FastDemo.apply(SimConfig { seed: 1, ..Default::default() }));
    for _ in 0..3 {
        sim.add_node(Default::default()).expect("node");
    }
    kubeloop_engine::kubectl::apply(&mut sim, &common::WEB).expect("apply");
    sim.run_for(60 * SECOND);
    let p = pods(&sim)[0].clone();
    let secs: Vec<Option<i64>> = p.spec.tolerations.iter().map(|t| t.toleration_seconds).collect();
    assert_eq!(secs, vec![Some(30), Some(30)]);
    let victim = p.spec.node_name.to_string();
    sim.kill_node(&victim).expect("kill");
    let killed = sim.now();
    let evicted = when(&mut sim, killed + 120 * SECOND, |s| {
        pods(s).iter().any(|q| *q.spec.node_name == *victim && q.metadata.is_terminating())
    })
    .expect("evicted");
    assert!(evicted - killed <= 75 * SECOND, "grace 20 s + monitor + toleration 30 s: {}", evicted - killed);
}

mod rollout_bounds {
    //! RollingUpdate's promise (deployment/rolling.go): during a fault-free rollout, at most replicas + maxSurge
    //! pods exist (not counting those terminating) and at least replicas - maxUnavailable are available.
    use super::*;
    use kubeloop_engine::api::IntOrString;
    use proptest::prelude::*;

    fn manifest(replicas: i32, surge: &str, unavailable: &str, image: &str) -> String {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  strategy:\n    rollingUpdate:\n      maxSurge: {surge}\n      maxUnavailable: {unavailable}\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n    spec:\n      terminationGracePeriodSeconds: 3\n      containers:\n      - name: c\n        image: {image}\n        resources:\n          requests: {{cpu: 50m}}\n"
        )
    }

    fn value(v: &str) -> IntOrString {
        match v.trim_matches('"').parse::<i32>() {
            Ok(n) => IntOrString::Int(n),
            Err(_) => IntOrString::String(v.trim_matches('"').into()),
        }
    }

    fn bound() -> impl Strategy<Value = String> {
        prop_oneof![(0i32..4).prop_map(|n| n.to_string()), (0u32..=100).prop_map(|p| format!("\"{p}%\""))]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn a_rollout_stays_within_surge_and_unavailability(
            seed in any::<u64>(),
            replicas in 1i32..12,
            surge in bound(),
            unavailable in bound(),
        ) {
            // Upstream's resolution (ResolveFenceposts): surge rounds up, unavailability down; both 0 -> 1.
            let s = value(&surge).scaled_value(replicas, true).unwrap_or(0);
            let mut u = value(&unavailable).scaled_value(replicas, false).unwrap_or(0);
            if s == 0 && u == 0 {
                u = 1;
            }
            let mut sim = Sim::new(kubeloop_engine::sim::SimConfig { seed, ..Default::default() });
            for _ in 0..4 {
                sim.add_node(Default::default()).expect("node");
            }
            if kubeloop_engine::kubectl::apply(&mut sim, &manifest(replicas, &surge, &unavailable, "img:1")).is_err() {
                return Ok(()); // an invalid combination is refused by validation, as upstream's
            }
            sim.run_for(60 * SECOND);
            prop_assert!(sim.deployments_fulfilled(), "first rollout done");
            kubeloop_engine::kubectl::apply(&mut sim, &manifest(replicas, &surge, &unavailable, "img:2")).expect("rollout");
            let end = sim.now() + 5 * 60 * SECOND;
            while sim.now() < end {
                sim.run_for(50);
                let live: Vec<Pod> = pods(&sim).into_iter().filter(|p| !p.metadata.is_terminating()).collect();
                let available = live.iter().filter(|p| p.is_available(0, sim.now())).count() as i32;
                prop_assert!(live.len() as i32 <= replicas + s, "at {}: {} pods > {replicas} + surge {s}", sim.now(), live.len());
                prop_assert!(available >= replicas - u, "at {}: {available} available < {replicas} - maxUnavailable {u}", sim.now());
            }
            let images: Vec<String> = pods(&sim).iter().flat_map(|p| p.spec.containers.iter().map(|c| c.image.to_string())).collect();
            prop_assert!(images.iter().all(|i| i == "img:2") && images.len() == replicas as usize, "rolled out: {images:?}");
        }
    }
}
