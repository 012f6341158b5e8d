//! Two runs compared (`Scenario::diff`, `kubeloop diff`): the first write where they diverge and their end states.

use kubeloop_engine::scenario::{ObjectChange, RunOptions, Scenario};
use kubeloop_engine::time::SECOND;

const BASE: &str = "seed: 4\nuntil: 3m\ncluster:\n  nodes: 3\nmanifests: |\n  apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    replicas: 3\n    selector: {matchLabels: {app: web}}\n    template:\n      metadata: {labels: {app: web}}\n      spec:\n        containers: [{name: web, image: nginx:1.27}]\n";

fn scenario(actions: &str) -> Scenario {
    Scenario::parse(&format!("{BASE}{actions}")).unwrap_or_else(|e| panic!("{e}"))
}

/// A run and itself: no divergence, nothing differs.
#[test]
fn a_run_and_itself_do_not_diverge() {
    let a = scenario("");
    let d = a.diff(&a, RunOptions::default(), RunOptions::default(), None).expect("runs");
    assert_eq!((d.first_divergence, d.objects.len(), d.until_ms), (None, 0, 180 * SECOND));
    assert_eq!(d.history_hash_a, d.history_hash_b);
}

/// A fork with a node killed diverges after the kill (the kill writes nothing: the first difference is the Lease
/// renewal the dead kubelet no longer makes), and its end state has the pods it replaced.
#[test]
fn a_fork_with_a_node_killed_diverges_after_the_kill() {
    let a = scenario("");
    let b = scenario("actions:\n  - {at: 30s, killNode: node-2}\n");
    let d = a.diff(&b, RunOptions::default(), RunOptions::default(), None).expect("runs");
    let first = d.first_divergence.expect("they diverge");
    assert!(first.at_ms > 30 * SECOND && first.at_ms <= 40 * SECOND + 100, "{first:?}");
    assert!(first.a.as_deref().is_some_and(|w| w.contains("Lease kube-node-lease/node-2")), "{first:?}");
    assert_eq!(first.b, None, "{first:?}");
    assert!(d
        .objects
        .iter()
        .any(|o| o.kind == "Node" && o.name == "node-2" && matches!(o.change, ObjectChange::Differs { .. })));
    assert_ne!(d.history_hash_a, d.history_hash_b);
}

/// Another seed diverges from the start; `until` bounds both runs.
#[test]
fn another_seed_diverges_at_once() {
    let a = scenario("");
    let b = RunOptions { seed: Some(5), ..RunOptions::default() };
    let d = a.diff(&a, RunOptions::default(), b, Some(20 * SECOND)).expect("runs");
    assert!(d.first_divergence.is_some_and(|f| f.at_ms < SECOND));
    assert_eq!(d.until_ms, 20 * SECOND);
    assert!(d.objects.iter().any(|o| o.kind == "Pod" && o.change == ObjectChange::OnlyInA));
}
