//! The lean object model (issue 29, part 4): what the copies of objects share instead of holding copies of their
//! own, counted as distinct allocations after a cold start. `kubeloop bench --memory` gives the bytes; the budget of
//! each structure is in the runner's tests (crates/cli/tests/memory.rs).

use std::collections::BTreeSet;
use std::rc::Rc;

use kubeloop_engine::api::{Kind, Pod};
use kubeloop_engine::bench::{ColdStart, CAP};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::watch::EventType;

const PODS: usize = 30;

/// One Deployment of 30 pods on 3 nodes, converged.
fn converged() -> Sim {
    let shape = ColdStart { nodes: 3, pods: PODS, per_deployment: PODS, services: false, seed: 1, addons: false };
    let mut sim = shape.build().expect("cluster");
    assert!(shape.converge(&mut sim, CAP).is_some());
    sim
}

/// The pod of every version of each pod the watch cache still holds, with its event type.
fn versions(sim: &mut Sim) -> Vec<(EventType, Pod)> {
    let id = sim.user_watch(Kind::Pod, 0).expect("watch from the start");
    let evs = sim.drain_user_watch(id);
    sim.stop_user_watch(id);
    evs.into_iter().filter_map(|e| Some((e.type_, e.object.as_pod()?.clone()))).collect()
}

fn distinct<T>(items: impl Iterator<Item = *const T>) -> usize {
    items.map(|p| p as usize).collect::<BTreeSet<_>>().len()
}

#[test]
fn the_pods_of_a_deployment_share_one_spec_until_bound_and_one_copy_of_its_containers_after() {
    let mut sim = converged();
    let pods: Vec<Pod> = sim.store().objects(Kind::Pod).filter_map(|o| o.as_pod().cloned()).collect();
    assert_eq!(pods.len(), PODS);
    // Bound, each pod has a spec of its own (its node's name is in it), sharing its template's containers and the
    // defaulted tolerations.
    assert_eq!(distinct(pods.iter().map(|p| Rc::as_ptr(&p.spec))), PODS);
    assert_eq!(distinct(pods.iter().map(|p| p.spec.containers.as_ptr())), 1);
    assert_eq!(distinct(pods.iter().map(|p| p.spec.tolerations.as_ptr())), 1);
    // Created, the 30 pods of the ReplicaSet had one defaulted spec (the API server's defaulting of its template).
    let created: Vec<Pod> =
        versions(&mut sim).into_iter().filter(|(t, _)| *t == EventType::Added).map(|(_, p)| p).collect();
    assert_eq!(created.len(), PODS);
    assert!(created.iter().all(|p| p.spec.node_name.is_empty() && p.spec.tolerations.len() == 2));
    assert_eq!(distinct(created.iter().map(|p| Rc::as_ptr(&p.spec))), 1);
}
