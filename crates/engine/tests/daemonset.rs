//! The daemon controller (pkg/controller/daemon): one pod per eligible node (nodeSelector, required node affinity,
//! taints and the tolerations it adds), each made for its node by required node affinity and placed by the
//! scheduler; new nodes get theirs, a dead node's pod is not evicted elsewhere; rolling updates within
//! maxUnavailable or maxSurge; status, `rollout status`, and drain's `--ignore-daemonsets`.

mod common;

use kubeloop_engine::api::{Kind, Labels, ObjKey, Pod};
use kubeloop_engine::intervention::{Intervene, Intervention, NodeRef};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::sim::{Sim, SimConfig};
use kubeloop_engine::time::{MINUTE, SECOND};

fn cluster(nodes: usize) -> Sim {
    let mut sim = Sim::new(SimConfig { seed: 21, ..Default::default() });
    for i in 0..nodes {
        let mut labels = Labels::new();
        if i % 2 == 0 {
            labels.insert("disk".into(), "ssd".into());
        }
        sim.add_node(NodeConfig { name: format!("node-{}", i + 1), labels, ..Default::default() }).expect("node");
    }
    sim
}

fn ds(extra_spec: &str, pod_spec: &str, image: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\n  namespace: kube-system\nspec:\n  selector:\n    matchLabels: {{app: agent}}\n{extra_spec}  template:\n    metadata:\n      labels: {{app: agent}}\n    spec:\n{pod_spec}      containers:\n      - name: agent\n        image: {image}\n        resources:\n          requests: {{cpu: 100m, memory: 64Mi}}\n"
    )
}

/// The DaemonSet's live pods (not terminating), as (node, image).
fn daemon_pods(sim: &Sim) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = sim
        .store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .filter(|p| p.metadata.namespace.as_ref() == "kube-system" && !p.metadata.is_terminating())
        .map(|p| (p.spec.node_name.to_string(), p.spec.containers[0].image.to_string()))
        .collect();
    v.sort();
    v
}

fn running_on(sim: &Sim) -> Vec<String> {
    let mut v: Vec<String> = sim
        .store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .filter(|p| p.metadata.namespace.as_ref() == "kube-system" && p.is_ready() && !p.metadata.is_terminating())
        .map(|p| p.spec.node_name.to_string())
        .collect();
    v.sort();
    v
}

fn names(n: usize) -> Vec<String> {
    (1..=n).map(|i| format!("node-{i}")).collect()
}

#[test]
fn one_pod_runs_on_every_node_made_for_it_and_placed_by_the_scheduler() {
    let mut sim = cluster(3);
    kubectl::apply(&mut sim, &ds("", "", "agent:1.0")).expect("apply");
    sim.run_for(MINUTE);
    assert_eq!(running_on(&sim), names(3));
    let pod: Pod = sim
        .store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod().cloned())
        .find(|p| p.metadata.namespace.as_ref() == "kube-system")
        .expect("a daemon pod");
    // Its node affinity names its node; the daemon tolerations; the revision and generation labels.
    let term = &pod
        .spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .expect("affinity")
        .required_during_scheduling_ignored_during_execution
        .as_ref()
        .expect("required")
        .node_selector_terms[0];
    assert_eq!(term.match_fields[0].values, std::slice::from_ref(&pod.spec.node_name));
    let keys: Vec<&str> = pod.spec.tolerations.iter().map(|t| &*t.key).collect();
    for k in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable", "node.kubernetes.io/unschedulable"] {
        assert!(keys.contains(&k), "{keys:?}");
    }
    assert!(pod.metadata.labels.get("controller-revision-hash").is_some());
    assert_eq!(pod.metadata.labels.get("pod-template-generation").map(|v| &**v), Some("1"));
    common::check(&mut sim, "ds-get", "get ds -n kube-system -o wide");
    let yaml = common::kubectl(&mut sim, "get ds agent -n kube-system -o yaml").stdout;
    assert!(yaml.contains("deprecated.daemonset.template.generation: \"1\""), "{yaml}");
    assert!(yaml.contains("numberAvailable: 3") && yaml.contains("desiredNumberScheduled: 3"), "{yaml}");
    let d = common::kubectl(&mut sim, "describe ds agent -n kube-system").stdout;
    assert!(d.contains("Desired Number of Nodes Scheduled: 3"), "{d}");
    assert!(d.contains("Pods Status:") && d.contains("3 Running / 0 Waiting / 0 Succeeded / 0 Failed"), "{d}");
    assert!(d.contains("SuccessfulCreate"), "{d}");
    let out = common::kubectl(&mut sim, "rollout status ds/agent -n kube-system");
    assert_eq!(out.stdout, "daemon set \"agent\" successfully rolled out\n");
}

#[test]
fn the_node_selector_and_taints_decide_which_nodes_and_labels_move_it() {
    let mut sim = cluster(4);
    let out = common::kubectl(&mut sim, "taint node node-3 dedicated=db:NoSchedule");
    assert_eq!(out.code, 0, "{}", out.text());
    kubectl::apply(&mut sim, &ds("", "      nodeSelector: {disk: ssd}\n", "agent:1.0")).expect("apply");
    sim.run_for(MINUTE);
    // node-1 and node-3 are labelled ssd; node-3's taint is not tolerated.
    assert_eq!(running_on(&sim), ["node-1"]);
    let out = common::kubectl(&mut sim, "label node node-2 disk=ssd");
    assert_eq!(out.code, 0);
    sim.run_for(MINUTE);
    assert_eq!(running_on(&sim), ["node-1", "node-2"]);
    let out = common::kubectl(&mut sim, "label node node-1 disk-");
    assert_eq!(out.code, 0);
    sim.run_for(MINUTE);
    assert_eq!(running_on(&sim), ["node-2"], "a node that no longer matches loses its pod");
    // A cordoned node keeps and gets daemon pods (they tolerate node.kubernetes.io/unschedulable).
    common::kubectl(&mut sim, "cordon node-4");
    common::kubectl(&mut sim, "label node node-4 disk=ssd");
    sim.run_for(MINUTE);
    assert_eq!(running_on(&sim), ["node-2", "node-4"]);
}

#[test]
fn a_new_node_gets_its_pod_and_a_dead_nodes_pod_is_not_evicted_elsewhere() {
    let mut sim = cluster(2);
    kubectl::apply(&mut sim, &ds("", "", "agent:1.0")).expect("apply");
    sim.run_for(MINUTE);
    sim.add_node(NodeConfig { name: "node-3".into(), ..Default::default() }).expect("node");
    sim.run_for(MINUTE);
    assert_eq!(running_on(&sim), names(3));
    let done = sim.intervene(&Intervention::KillNode(NodeRef::Name("node-2".into())), &kubectl::Input::none());
    assert!(done.ok(), "{done:?}");
    // Past the grace period and the 300 s default tolerations: the daemon pod tolerates unreachable for ever.
    sim.run_for(8 * MINUTE);
    let pods = daemon_pods(&sim);
    assert_eq!(pods.len(), 3, "{pods:?}");
    assert!(pods.iter().any(|(n, _)| n == "node-2"), "still bound to the dead node: {pods:?}");
    // The dead node is tainted unreachable:NoSchedule, which daemon pods do not tolerate: it no longer should run
    // one (DESIRED 2), and the pod still bound to it counts as misscheduled, as upstream counts it.
    let d = common::kubectl(&mut sim, "get ds agent -n kube-system").stdout;
    assert!(d.contains("agent   2         2         2       2            2"), "{d}");
    let d = common::kubectl(&mut sim, "describe ds agent -n kube-system").stdout;
    assert!(d.contains("Number of Nodes Misscheduled: 1"), "{d}");
}

#[test]
fn a_rolling_update_replaces_one_node_at_a_time_by_default() {
    let mut sim = cluster(4);
    kubectl::apply(&mut sim, &ds("", "", "agent:1.0")).expect("apply");
    sim.run_for(MINUTE);
    kubectl::apply(&mut sim, &ds("", "", "agent:2.0")).expect("update");
    let mut least = usize::MAX;
    for _ in 0..240 {
        sim.run_for(SECOND / 2);
        least = least.min(running_on(&sim).len());
    }
    assert_eq!(least, 3, "maxUnavailable 1: never fewer than 3 of 4 ready");
    assert!(daemon_pods(&sim).iter().all(|(_, img)| img == "agent:2.0"), "{:?}", daemon_pods(&sim));
    assert_eq!(running_on(&sim), names(4));
    let yaml = common::kubectl(&mut sim, "get ds agent -n kube-system -o yaml").stdout;
    assert!(yaml.contains("deprecated.daemonset.template.generation: \"2\""), "{yaml}");
    let out = common::kubectl(&mut sim, "rollout status ds/agent -n kube-system");
    assert_eq!(out.stdout, "daemon set \"agent\" successfully rolled out\n");
}

#[test]
fn with_max_surge_the_new_pod_starts_before_the_old_one_goes() {
    let mut sim = cluster(3);
    let surge = "  updateStrategy:\n    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}\n";
    kubectl::apply(&mut sim, &ds(surge, "", "agent:1.0")).expect("apply");
    sim.run_for(MINUTE);
    kubectl::apply(&mut sim, &ds(surge, "", "agent:2.0")).expect("update");
    let (mut least, mut most) = (usize::MAX, 0);
    for _ in 0..480 {
        sim.run_for(SECOND / 4);
        least = least.min(running_on(&sim).len());
        most = most.max(daemon_pods(&sim).len());
    }
    assert_eq!(least, 3, "never fewer than every node ready");
    assert_eq!(most, 4, "one node at a time runs two");
    assert!(daemon_pods(&sim).iter().all(|(_, img)| img == "agent:2.0"));
}

#[test]
fn the_update_strategy_is_validated_and_defaulted_as_upstream() {
    let mut sim = cluster(1);
    let bad = ds("  updateStrategy:\n    rollingUpdate: {maxSurge: 1}\n", "", "agent:1.0");
    let err = kubectl::apply(&mut sim, &bad).expect_err("surge with the default maxUnavailable").to_string();
    assert!(
        err.contains("spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:\"\"}: may not be set when maxUnavailable is non-zero"),
        "{err}"
    );
    let zero = ds("  updateStrategy:\n    rollingUpdate: {maxUnavailable: 0}\n", "", "agent:1.0");
    let err = kubectl::apply(&mut sim, &zero).expect_err("both zero").to_string();
    assert!(
        err.contains(
            "spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"
        ),
        "{err}"
    );
    kubectl::apply(&mut sim, &ds("", "", "agent:1.0")).expect("apply");
    let yaml = common::kubectl(&mut sim, "get ds agent -n kube-system -o yaml").stdout;
    for line in ["maxSurge: 0", "maxUnavailable: 1", "type: RollingUpdate", "revisionHistoryLimit: 10"] {
        assert!(yaml.contains(line), "{line} in {yaml}");
    }
    let on_delete = ds("  updateStrategy:\n    type: OnDelete\n", "", "agent:1.0");
    kubectl::apply(&mut sim, &on_delete).expect("OnDelete");
    let out = common::kubectl(&mut sim, "rollout status ds/agent -n kube-system");
    assert_eq!(out.stderr, "error: rollout status is only available for RollingUpdate strategy type\n");
}

#[test]
fn drain_refuses_daemon_pods_without_ignore_daemonsets_and_deleting_the_set_removes_them() {
    let mut sim = cluster(2);
    kubectl::apply(&mut sim, &ds("", "", "agent:1.0")).expect("apply");
    sim.run_for(MINUTE);
    let pod = sim
        .store()
        .objects(Kind::Pod)
        .filter_map(|o| o.as_pod())
        .find(|p| p.spec.node_name.as_ref() == "node-1")
        .map(|p| p.metadata.name.to_string())
        .expect("node-1's daemon pod");
    let out = common::kubectl(&mut sim, "drain node-1");
    assert_eq!(out.code, 1, "{}", out.text());
    assert!(
        out.stderr.contains(&format!(
            "error: unable to drain node \"node-1\" due to error: cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): kube-system/{pod}, continuing command..."
        )),
        "{}",
        out.text()
    );
    let mut out = common::kubectl(&mut sim, "drain node-1 --ignore-daemonsets");
    if let Some(follow) = out.follow.as_mut() {
        let (text, code) = common::poll_until_done(&mut sim, follow.as_mut(), SECOND, 5 * MINUTE);
        out.stdout.push_str(&text);
        assert_eq!(code, Some(0));
    }
    let text = out.text();
    assert!(text.contains(&format!("Warning: ignoring DaemonSet-managed Pods: kube-system/{pod}")), "{text}");
    assert!(text.contains("node/node-1 drained"), "{text}");
    assert!(sim.store().peek(Kind::Pod, &ObjKey::new("kube-system", &pod)).is_some(), "the daemon pod stays");
    // Deleting the DaemonSet: the garbage collector removes its pods.
    common::kubectl(&mut sim, "delete ds agent -n kube-system --wait=false");
    sim.run_for(MINUTE);
    assert!(daemon_pods(&sim).is_empty(), "{:?}", daemon_pods(&sim));
}

/// Between walks the controller looks only at the nodes that changed; its kept parts must be what a walk finds
/// (debug builds assert it after every sync). Seeded churn of nodes, labels, taints, cordons, kills, pod deletes,
/// pods that fail and template changes, on two DaemonSets, ends with each node that should run one running one.
#[test]
fn looking_only_at_the_changed_nodes_decides_as_a_walk_of_every_node() {
    use kubeloop_engine::rng::Rng;
    for seed in 1..=6u64 {
        let mut sim = cluster(6);
        let mut rng = Rng::new(seed);
        kubectl::apply(&mut sim, &ds("", "      nodeSelector: {disk: ssd}\n", "agent:1.0")).expect("apply");
        let every = ds("", "      tolerations: [{operator: Exists}]\n", "every:1.0").replace("agent", "every");
        kubectl::apply(&mut sim, &every).expect("apply");
        sim.run_for(20 * SECOND);
        let mut nodes = 6;
        for step in 0..40 {
            let node = format!("node-{}", rng.range(1, nodes as u64));
            let line = match rng.range(0, 9) {
                0 => format!("label node {node} disk=ssd --overwrite"),
                1 => format!("label node {node} disk-"),
                2 => format!("taint node {node} dedicated=x:NoExecute --overwrite"),
                3 => format!("taint node {node} dedicated-"),
                4 => format!("cordon {node}"),
                5 => format!("uncordon {node}"),
                6 => {
                    let on = sim.store().objects(Kind::Pod).find(|o| {
                        o.as_pod().is_some_and(|p| p.spec.node_name.as_ref() == node && !p.metadata.is_terminating())
                    });
                    let Some(pod) = on.map(|o| o.meta().name.to_string()) else { continue };
                    format!("delete pod {pod} -n kube-system --wait=false")
                }
                7 => format!("set image ds/agent agent=agent:{step} -n kube-system"),
                8 if nodes < 12 => {
                    nodes += 1;
                    sim.add_node(NodeConfig { name: format!("node-{nodes}"), ..Default::default() }).expect("node");
                    continue;
                }
                _ => {
                    sim.intervene(&Intervention::KillNode(NodeRef::Name(node)), &kubectl::Input::none());
                    continue;
                }
            };
            let _ = common::kubectl(&mut sim, &line);
            sim.run_for(rng.range(100, 8_000));
        }
        sim.run_for(3 * MINUTE);
        // `every` tolerates every taint: one pod of it on each node, dead ones included (their pods stay bound).
        let mut on: Vec<String> = sim
            .store()
            .objects(Kind::Pod)
            .filter_map(|o| o.as_pod())
            .filter(|p| p.metadata.name.starts_with("every-") && !p.metadata.is_terminating())
            .map(|p| p.spec.node_name.to_string())
            .collect();
        on.sort();
        // A pod deleted on a dead node stays terminating (its kubelet never confirms): it still counts for its node,
        // as upstream's, so none is made beside it.
        let stuck: Vec<String> = sim
            .store()
            .objects(Kind::Pod)
            .filter_map(|o| o.as_pod())
            .filter(|p| p.metadata.name.starts_with("every-") && p.metadata.is_terminating())
            .map(|p| p.spec.node_name.to_string())
            .collect();
        let mut want: Vec<String> = names(nodes).into_iter().filter(|n| !stuck.contains(n)).collect();
        want.sort();
        assert_eq!(on, want, "seed {seed}");
        let yaml = common::kubectl(&mut sim, "get ds every -n kube-system -o yaml").stdout;
        assert!(yaml.contains(&format!("currentNumberScheduled: {nodes}\n")), "seed {seed}: {yaml}");
    }
}
