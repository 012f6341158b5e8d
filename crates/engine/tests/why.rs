//! "Why?": a write's chain of causes, recorded by the engine as it ran (`Sim::why`), back to a person's
//! intervention or a timer.

mod common;

use kubeloop_engine::api::{Kind, ObjKey};
use kubeloop_engine::intervention::{Intervene, Intervention, NodeRef};
use kubeloop_engine::kubectl::Input;
use kubeloop_engine::sim::{Chain, StepKind};
use kubeloop_engine::time::{MINUTE, SECOND};

fn show(chain: &Chain) -> String {
    let mut s = String::new();
    for st in &chain.steps {
        s.push_str(&format!("{:>8} {:<12} {}\n", st.at, st.kind.as_str(), st.text));
    }
    if let Some(e) = &chain.ends {
        s.push_str(&format!("ends: {e}\n"));
    }
    s
}

/// The chain of causes of the creation of a pod that is not among `before` (a replacement).
fn replacement_chain(sim: &kubeloop_engine::sim::Sim, before: &[String]) -> Chain {
    let new = common::pods(sim)
        .into_iter()
        .find(|p| !before.contains(&p.metadata.name.to_string()))
        .expect("a replacement pod");
    let key = ObjKey::new("default", &new.metadata.name);
    let created = sim.causes().writes_of(Kind::Pod, &key).next().expect("its create is kept");
    sim.chain(created.rv)
}

#[test]
fn a_replacement_pod_s_why_reaches_the_node_kill() {
    let mut sim = common::cluster();
    let victim = common::pods(&sim)
        .iter()
        .find(|p| !p.spec.node_name.is_empty())
        .map(|p| p.spec.node_name.to_string())
        .expect("a pod on a node");
    let before: Vec<String> = common::pods(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    let killed_at = sim.now();
    sim.intervene(&Intervention::KillNode(NodeRef::Name(victim.clone())), &Input::none());
    sim.run_for(8 * MINUTE);
    let chain = replacement_chain(&sim, &before);
    let first = chain.steps.first().expect("a step");
    assert_eq!(first.kind, StepKind::Write);
    let last = chain.steps.last().expect("a last step");
    assert_eq!(last.kind, StepKind::Intervention, "{}", show(&chain));
    assert!(last.text.contains(&format!("kill node {victim}")), "{}", show(&chain));
    assert_eq!(last.at, killed_at);
    let kinds: Vec<StepKind> = chain.steps.iter().map(|s| s.kind).collect();
    for k in [StepKind::Reconcile, StepKind::Watch, StepKind::Queue, StepKind::Timer] {
        assert!(kinds.contains(&k), "{k:?} in\n{}", show(&chain));
    }
    assert!(chain.ends.is_none(), "{}", show(&chain));
}

/// A watch event the control plane's informers lost is the missing link: the replacement pod's chain goes through
/// the relist that found the pod gone, back to the person's delete.
#[test]
fn a_lost_watch_event_shows_as_the_relist_that_repaired_it() {
    let mut sim = common::cluster();
    let victim = common::pods(&sim)[0].metadata.name.to_string();
    let before: Vec<String> = common::pods(&sim).iter().map(|p| p.metadata.name.to_string()).collect();
    sim.set_watch_drop(1.0);
    let line = format!("delete pod {victim} --grace-period=0 --force");
    let out = kubeloop_engine::intervention::kubectl_typed(&mut sim, &line, &Input::none());
    assert_eq!(out.code, 0, "{}", out.stderr);
    sim.run_for(10 * SECOND);
    assert_eq!(common::pods(&sim).len(), 2, "nobody saw the delete");
    sim.set_watch_drop(0.0);
    for inf in sim.control_plane_informers() {
        sim.force_relist(inf);
    }
    sim.run_for(30 * SECOND);
    let chain = replacement_chain(&sim, &before);
    let kinds: Vec<StepKind> = chain.steps.iter().map(|s| s.kind).collect();
    assert!(kinds.contains(&StepKind::Relist), "{}", show(&chain));
    let last = chain.steps.last().expect("a last step");
    assert_eq!(last.kind, StepKind::Intervention, "{}", show(&chain));
    assert!(last.text.contains(&format!("kubectl delete pod {victim}")), "{}", show(&chain));
}

/// The person's own writes end their chain at once; a command they left running writes as theirs too.
#[test]
fn a_typed_command_and_what_it_leaves_running_are_the_person_s() {
    let mut sim = common::cluster();
    let out =
        kubeloop_engine::intervention::kubectl_typed(&mut sim, "scale deployment web --replicas=5", &Input::none());
    assert_eq!(out.code, 0);
    let rs = sim.why(Kind::Deployment, &ObjKey::new("default", "web"), sim.now()).expect("kept");
    assert_eq!(rs.steps.len(), 2, "{}", show(&rs));
    assert_eq!(rs.steps[1].kind, StepKind::Intervention);
    assert!(rs.steps[1].text.contains("kubectl scale deployment web --replicas=5"), "{}", show(&rs));
}

/// Recording causes draws nothing: two runs, one asked "why?" all along, have the same history.
#[test]
fn asking_why_never_changes_the_run() {
    let mut a = common::cluster();
    let mut b = common::cluster();
    for _ in 0..6 {
        a.run_for(10 * SECOND);
        b.run_for(10 * SECOND);
        for p in common::pods(&b) {
            let _ = b.why(Kind::Pod, &ObjKey::new("default", &p.metadata.name), b.now());
        }
    }
    assert_eq!(a.history_hash(), b.history_hash());
    assert!(a.causes().footprint() > 0);
}

/// A traced object keeps every version as the store wrote it, from its creation (a node registered before any
/// manifest), with the write that made each; tracing changes nothing in the run.
#[test]
fn a_traced_object_keeps_every_version_and_changes_nothing() {
    let sc = kubeloop_engine::scenario::Scenario::parse(
        "cluster:\n  nodes: 2\nactions:\n  - {at: 10s, kubectl: cordon node-2}\n  - {at: 20s, kubectl: uncordon node-2}\n",
    )
    .expect("parses");
    let key = ObjKey::new("", "node-2");
    let mut traced = sc.start_with(Default::default(), |sim| sim.trace(Kind::Node, key.clone())).expect("starts");
    let mut plain = sc.start(Default::default()).expect("starts");
    traced.run_to(MINUTE);
    plain.run_to(MINUTE);
    assert_eq!(traced.sim().history_hash(), plain.sim().history_hash());
    let t = traced.sim().causes().trace().expect("traced");
    let verbs: Vec<&str> = t.versions.iter().map(|v| v.write.verb_said()).collect();
    assert_eq!(verbs.first(), Some(&"created"), "{verbs:?}");
    let rvs: Vec<u64> = t.versions.iter().map(|v| v.write.rv).collect();
    assert!(rvs.windows(2).all(|w| w[0] < w[1]), "{rvs:?}");
    for v in &t.versions {
        assert_eq!(v.object.meta().resource_version, v.write.rv, "each version as written");
    }
    let cordoned: Vec<bool> =
        t.versions.iter().filter_map(|v| v.object.as_node().map(|n| n.spec.unschedulable)).collect();
    assert!(
        cordoned.windows(2).any(|w| w == [false, true]) && cordoned.windows(2).any(|w| w == [true, false]),
        "{cordoned:?}"
    );
    let by = |v: &kubeloop_engine::cause::Version| traced.sim().store().clients()[v.write.client].name.to_string();
    assert!(t.versions.iter().any(|v| by(v) == "kubectl"), "the cordon is kubectl's");
}

/// "Why did node-2 go NotReady while its kubelet runs?": the control plane's informers lost the Lease renewals; the
/// chain of the node's Unknown status goes through the monitor pass to the renewals its informer never received.
#[test]
fn a_node_marked_unknown_while_its_kubelet_runs_shows_the_renewals_its_informer_lost() {
    let mut sim = common::cluster();
    let since = sim.now();
    sim.set_watch_drop(1.0);
    sim.run_for(90 * SECOND);
    let key = ObjKey::new("", "node-2");
    let node = sim.store().peek(Kind::Node, &key).and_then(|o| o.as_node().cloned()).expect("node-2");
    assert_eq!(node.ready_status(), "Unknown", "the control plane thinks it is gone");
    assert!(sim.kubelet("node-2").is_some_and(|k| k.alive), "its kubelet runs");
    let unknown = sim
        .causes()
        .writes_of(Kind::Node, &key)
        .filter(|w| w.at > since && w.client != sim.kubelet("node-2").map_or(usize::MAX, |k| k.client))
        .map(|w| w.rv)
        .next()
        .expect("the controller's write");
    let chain = sim.chain(unknown);
    let last = chain.steps.last().expect("a step");
    assert_eq!(last.kind, StepKind::Watch, "{}", show(&chain));
    assert!(last.text.contains("never received") && last.text.contains("renewal"), "{}", show(&chain));
    assert!(last.at > since, "{}", show(&chain));
}
