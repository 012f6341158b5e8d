//! The fixture the kubectl golden tests share is what they say it is.
mod common;

use kubeloop_engine::api::{Kind, PodPhase};

#[test]
fn fixture_cluster_runs_three_web_pods() {
    let sim = common::cluster();
    let running = sim
        .store()
        .objects(Kind::Pod)
        .filter(|o| o.as_pod().is_some_and(|p| p.status.phase == PodPhase::Running))
        .count();
    assert_eq!(running, 3);
    assert_eq!(sim.store().count_of(Kind::Node), 3);
}
