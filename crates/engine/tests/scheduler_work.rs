//! The scheduler's work for one pod or one node does not grow with the cluster (issue 29): in a cluster with ten
//! times the Deployments (ten times the pods and ReplicaSets, none related to the change), scheduling one more pod,
//! or taking in one more node, does the same counted work ([`SchedulerWork`]), and that work is what the pod or
//! node itself asks for: its own ReplicaSet's spread counts, the nodes filtered and scored.

use kubeloop_engine::bench::ColdStart;
use kubeloop_engine::controllers::scheduler::SchedulerWork;
use kubeloop_engine::kubectl::{self, Input};
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::{MINUTE, SECOND};
use kubeloop_engine::work::Work;

const NODES: usize = 4;
const PER_DEPLOYMENT: usize = 4;

/// `deployments` Deployments of four pods each on four nodes, every pod Running.
fn converged(deployments: usize) -> Sim {
    let cold = ColdStart {
        nodes: NODES,
        pods: deployments * PER_DEPLOYMENT,
        per_deployment: PER_DEPLOYMENT,
        services: false,
        seed: 29,
        addons: false,
    };
    let mut sim = cold.build().expect("cluster");
    cold.converge(&mut sim, 10 * MINUTE).expect("converges");
    sim
}

/// The scheduler's own figures in `work` (the engine's work, `Sim::work`).
fn scheduler(work: &Work) -> SchedulerWork {
    let own = work.controller("scheduler").own;
    SchedulerWork {
        spread_entries_visited: own.get("spreadEntriesVisited"),
        placed_pods_read: own.get("placedPodsRead"),
        nodes_filtered: own.get("nodesFiltered"),
        nodes_scored: own.get("nodesScored"),
    }
}

fn kubectl(sim: &mut Sim, line: &str) {
    let out = kubectl::run(sim, line, &Input::none());
    assert_eq!(out.code, 0, "{line}: {}", out.stderr);
}

/// In a cluster of `deployments` Deployments, `prepare` made and settled, the scheduler's work while `change` is
/// made and the cluster settles again.
fn work_of(deployments: usize, prepare: &dyn Fn(&mut Sim), change: &dyn Fn(&mut Sim)) -> SchedulerWork {
    let mut sim = converged(deployments);
    prepare(&mut sim);
    sim.run_for(30 * SECOND);
    let before = sim.work();
    change(&mut sim);
    sim.run_for(30 * SECOND);
    scheduler(&sim.work().since(&before))
}

/// The same change in a cluster of 5 Deployments and in one of 50: the same work, and exactly `expected`.
fn same_work_at_both_sizes(prepare: &dyn Fn(&mut Sim), change: &dyn Fn(&mut Sim), expected: SchedulerWork) {
    let small = work_of(5, prepare, change);
    let large = work_of(50, prepare, change);
    assert_eq!((small, large), (expected, expected), "the work with 5 Deployments, and with 50");
}

/// One pod scheduled: filtered and scored on the four nodes, its placement offered to its ReplicaSet's counts.
const ONE_POD: SchedulerWork =
    SchedulerWork { spread_entries_visited: 1, placed_pods_read: 0, nodes_filtered: 4, nodes_scored: 4 };

/// One more pod of a ReplicaSet already spread (its counts built by the pod before): its placement is offered to
/// that ReplicaSet's counts alone.
#[test]
fn scheduling_one_more_pod_of_a_replicaset_visits_its_own_spread_counts_only() {
    same_work_at_both_sizes(
        &|sim| kubectl(sim, "scale deployment app-0 --replicas=5"),
        &|sim| kubectl(sim, "scale deployment app-0 --replicas=6"),
        ONE_POD,
    );
}

/// The first pod of a ReplicaSet (made with none, so that the scheduler knows it): its counts are built from the
/// pods its selector can match (none yet), not from every pod placed.
#[test]
fn scheduling_the_first_pod_of_a_replicaset_reads_no_unrelated_pod() {
    same_work_at_both_sizes(
        &|sim| kubectl(sim, "create deployment extra --image=registry.example/extra --replicas=0"),
        &|sim| kubectl(sim, "scale deployment extra --replicas=1"),
        ONE_POD,
    );
}

/// A node the scheduler has not seen starts from the pods already counted on it (none), without a walk over
/// every placed pod.
#[test]
fn a_new_node_is_taken_in_without_reading_the_placed_pods() {
    same_work_at_both_sizes(
        &|_| {},
        &|sim| {
            sim.add_node(NodeConfig::default()).expect("node");
        },
        SchedulerWork::default(),
    );
}
