//! `kubectl describe` against the fixture cluster: golden outputs.
mod common;

use common::{check, cluster};
use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::store::DeleteOptions;
use kubeloop_engine::time::SECOND;

fn first(sim: &kubeloop_engine::sim::Sim, kind: Kind) -> String {
    sim.store().objects(kind).next().map(|o| o.meta().name.to_string()).unwrap_or_default()
}

/// Whether the kubelet has recorded that it is stopping `pod`'s containers.
fn killing(sim: &kubeloop_engine::sim::Sim, pod: &str) -> bool {
    sim.store()
        .objects(Kind::Event)
        .any(|o| o.as_event().is_some_and(|e| &*e.body.reason == "Killing" && &*e.body.involved_object.name == pod))
}

#[test]
fn describe_of_each_kind_matches_its_golden_output() {
    let mut sim = cluster();
    let pod = first(&sim, Kind::Pod);
    let rs = first(&sim, Kind::ReplicaSet);
    check(&mut sim, "describe-pod", &format!("describe pod {pod}"));
    check(&mut sim, "describe-deployment", "describe deploy/web");
    check(&mut sim, "describe-replicaset", &format!("describe rs {rs}"));
    check(&mut sim, "describe-node", "describe node node-1");
    check(&mut sim, "describe-namespace", "describe ns default");
    check(&mut sim, "describe-lease", "describe lease node-2 -n kube-node-lease");
}

#[test]
fn describe_selects_like_kubectl() {
    let mut sim = cluster();
    check(&mut sim, "describe-deployments-all", "describe deployments --show-events=false");
    check(&mut sim, "describe-name-prefix", "describe nodes node-");
    check(&mut sim, "describe-selector-none", "describe pods -l app=db");
    let out = check(&mut sim, "describe-notfound", "describe pod nope");
    assert_eq!(out.code, 1);
    check(&mut sim, "describe-no-type", "describe");
}

#[test]
fn describe_pending_and_terminating_pods() {
    let mut sim = cluster();
    let pod = first(&sim, Kind::Pod);
    sim.delete(Kind::Pod, &ObjKey::new("default", &pod), &DeleteOptions::default()).expect("delete");
    // Until its kubelet has begun to stop it (the Killing event), while its container's stop (0.1 s to 1.5 s)
    // still runs.
    for _ in 0..50 {
        sim.run_for(SECOND / 100);
        if killing(&sim, &pod) {
            break;
        }
    }
    assert!(killing(&sim, &pod), "the kubelet began to stop {pod}");
    check(&mut sim, "describe-pod-terminating", &format!("describe pod {pod}"));
    sim.scale(Kind::Deployment, &ObjKey::new("default", "web"), 5).expect("scale");
    let mut fresh = String::new();
    for _ in 0..50 {
        sim.run_for(SECOND / 10);
        fresh = sim
            .store()
            .objects(Kind::Pod)
            .find(|o| o.as_pod().is_some_and(|p| !p.is_ready() && !p.spec.node_name.is_empty()))
            .map(|o| o.meta().name.to_string())
            .unwrap_or_default();
        if !fresh.is_empty() {
            break;
        }
    }
    assert!(!fresh.is_empty(), "a pod is starting");
    check(&mut sim, "describe-pod-pending", &format!("describe pod/{fresh}"));
}
