//! Node affinity as the scheduler's NodeAffinity filter holds a pod to it (with its nodeSelector): required terms
//! ORed, their expressions (In, NotIn, Exists, DoesNotExist, Gt, Lt on labels) and fields (`metadata.name`)
//! ANDed; validated with upstream's messages (`validateNodeAffinity`).

mod common;

use kubeloop_engine::api::{Kind, Labels};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::MINUTE;

fn cluster() -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 3, ..Default::default() });
    for (name, zone, cores) in [("node-a", "a", "4"), ("node-b", "b", "8"), ("node-c", "c", "16")] {
        let mut labels = Labels::new();
        labels.insert("topology.kubernetes.io/zone".into(), zone.into());
        labels.insert("cores".into(), cores.into());
        sim.add_node(NodeConfig { name: name.into(), labels, ..Default::default() }).expect("node");
    }
    sim
}

fn pods(affinity: &str, replicas: i32) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n    spec:\n      affinity:\n        nodeAffinity:\n{affinity}      containers:\n      - name: web\n        image: nginx:1.27\n"
    )
}

fn nodes_used(sim: &Sim) -> Vec<String> {
    let mut v: Vec<String> = common::pods(sim).iter().map(|p| p.spec.node_name.to_string()).collect();
    v.sort();
    v.dedup();
    v
}

#[test]
fn required_terms_hold_pods_to_the_nodes_they_match() {
    let cases = [
        ("          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - {key: topology.kubernetes.io/zone, operator: In, values: [b, c]}\n", vec!["node-b", "node-c"]),
        ("          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - {key: cores, operator: Gt, values: [\"6\"]}\n              - {key: topology.kubernetes.io/zone, operator: NotIn, values: [c]}\n", vec!["node-b"]),
        ("          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchFields:\n              - {key: metadata.name, operator: In, values: [node-a]}\n            - matchExpressions:\n              - {key: cores, operator: Lt, values: [\"5\"]}\n", vec!["node-a"]),
    ];
    for (affinity, want) in cases {
        let mut sim = cluster();
        kubectl::apply(&mut sim, &pods(affinity, 6)).expect("apply");
        sim.run_for(MINUTE);
        assert_eq!(common::live_running(&sim), 6, "{affinity}");
        assert_eq!(nodes_used(&sim), want, "{affinity}");
    }
}

#[test]
fn a_pod_no_node_matches_stays_pending_with_the_filters_reason() {
    let mut sim = cluster();
    let affinity = "          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - {key: gpu, operator: Exists}\n";
    kubectl::apply(&mut sim, &pods(affinity, 1)).expect("apply");
    sim.run_for(MINUTE);
    assert_eq!(common::live_running(&sim), 0);
    let failed = common::events(&sim, "FailedScheduling");
    assert!(
        failed
            .iter()
            .any(|m| m.contains("0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector")),
        "{failed:?}"
    );
    // Labelled, a node matches: the scheduler's retry places the pod.
    let out = common::kubectl(&mut sim, "label node node-c gpu=true");
    assert_eq!(out.code, 0, "{}", out.text());
    sim.run_for(MINUTE);
    assert_eq!(nodes_used(&sim), ["node-c"]);
    let yaml = common::kubectl(&mut sim, "get deploy web -o yaml").stdout;
    assert!(yaml.contains("nodeSelectorTerms:") && yaml.contains("operator: Exists"), "{yaml}");
    assert_eq!(sim.store().objects(Kind::Pod).count(), 1);
}

#[test]
fn node_affinity_is_validated_with_upstreams_messages() {
    let mut sim = cluster();
    for (affinity, want) in [
        ("          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms: []\n", "nodeSelectorTerms: Required value: must have at least one node selector term"),
        ("          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - {key: zone, operator: In}\n", "matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"),
        ("          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - {key: zone, operator: Near, values: [a]}\n", "matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator"),
        ("          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchFields:\n              - {key: metadata.labels, operator: In, values: [a]}\n", "matchFields[0].key: Unsupported value: \"metadata.labels\": supported values: \"metadata.name\""),
    ] {
        let err = kubectl::apply(&mut sim, &pods(affinity, 1)).expect_err(want).to_string();
        assert!(err.contains(want), "{err}\nwanted: {want}");
    }
    // Pod affinity is accepted and not simulated: a warning names it.
    let anti = pods("", 1).replace(
        "        nodeAffinity:\n",
        "        podAntiAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n          - labelSelector: {matchLabels: {app: web}}\n            topologyKey: kubernetes.io/hostname\n",
    );
    let out = common::kubectl_stdin(&mut sim, "apply -f -", &anti);
    assert_eq!(out.code, 0, "{}", out.text());
    assert!(out.stderr.contains("spec.template.spec.affinity.podAntiAffinity"), "{}", out.text());
}
