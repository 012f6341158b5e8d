//! Invariants as code. After every event of a debug build (every test, lesson, fuzz case and debug page), the
//! simulation checks the safety properties an event can break, at a cost of O(1) or O(nodes) per event:
//! resourceVersions only move forward, and no pod (by uid) runs on two kubelets ([`Sim::check_safety`] also
//! recounts the store's pods against the tallies it keeps by phase, of all and of each node's). The store checks its own at every
//! commit (each write takes the next resourceVersion, the old object is the stored one, each watcher gets at most
//! one event of it), and the work queue its own at every operation (queued keys are dirty and not processing,
//! dirty keys are queued or processing).
//!
//! Not here, on purpose: "every pod is bound to an existing node" is not an upstream invariant (a Node deleted
//! under its pods leaves them bound until the pod garbage collector removes them; the binding subresource does
//! not look the node up), so the property tests check it only for histories that never delete a Node.

use super::*;

impl Sim {
    /// The whole of what [`Sim::check_invariants`] checks event by event, over every kubelet at once: for a
    /// release build (the property sweeps) that wants the same guarantee at the moments it looks.
    pub fn check_safety(&self) -> Result<(), String> {
        let mut running: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
        for k in &self.kubelets {
            for (key, p) in &k.pods {
                if p.stage == crate::kubelet::Stage::Running && !running.insert(&p.uid) {
                    return Err(format!("pod {key} (uid {}) runs on two kubelets", p.uid));
                }
            }
        }
        let counted = crate::store::PodTally::of(self.store.objects(Kind::Pod).filter_map(|o| o.as_pod()));
        if counted != self.store.pod_tally() {
            return Err(format!("the store's pod tally {:?} is not its pods' {counted:?}", self.store.pod_tally()));
        }
        self.store.check_node_tallies()?;
        for inf in &self.informers {
            inf.cache.check_pod_groups()?;
        }
        Ok(())
    }

    /// Checks, after `ev` ran, what it could have broken; `rv_before` is the store's resourceVersion before it.
    pub(super) fn check_invariants(&self, ev: &Ev, rv_before: u64) {
        let rv = self.store.resource_version();
        assert!(rv >= rv_before, "an event took the resourceVersion back from {rv_before} to {rv}: {ev:?}");
        if let Ev::Kubelet { timer: KubeletTimer::Pod { uid, key, .. }, .. } = ev {
            let running = self
                .kubelets
                .iter()
                .filter(|k| k.pods.values().any(|p| p.uid == *uid && p.stage == crate::kubelet::Stage::Running))
                .count();
            assert!(running <= 1, "pod {key} (uid {uid}) runs on {running} kubelets");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubelet::PodStep;

    /// Two nodes, one pod of a Deployment running on one of them.
    fn one_running_pod() -> (Sim, ObjKey, Str) {
        let mut sim = Sim::new(SimConfig::default());
        for _ in 0..2 {
            sim.add_node(NodeConfig::default()).expect("node");
        }
        let app = crate::api::Labels::from([(crate::api::s("app"), crate::api::s("web"))]);
        let container = crate::api::Container { name: "c".into(), image: "nginx".into(), ..Default::default() };
        let template = crate::api::PodTemplateSpec {
            metadata: crate::api::ObjectMeta { labels: app.clone(), ..Default::default() },
            spec: std::rc::Rc::new(crate::api::PodSpec { containers: vec![container].into(), ..Default::default() }),
        };
        let spec = crate::api::DeploymentSpec {
            replicas: Some(1),
            selector: crate::api::LabelSelector::from_labels(app),
            template: template.into(),
            ..Default::default()
        };
        let metadata = crate::api::ObjectMeta::named("default", "web");
        let web = crate::api::Deployment { metadata, spec, ..Default::default() };
        sim.as_user(|api| api.create(Object::Deployment(web))).expect("create");
        sim.run_for(30 * crate::time::SECOND);
        let (key, uid) = sim
            .kubelets
            .iter()
            .flat_map(|k| k.pods.iter())
            .find(|(_, p)| p.stage == crate::kubelet::Stage::Running)
            .map(|(k, p)| (k.clone(), p.uid.clone()))
            .expect("a running pod");
        (sim, key, uid)
    }

    #[test]
    fn a_healthy_run_keeps_its_invariants() {
        let (sim, key, uid) = one_running_pod();
        let ev = Ev::Kubelet { node: 0, epoch: 0, timer: KubeletTimer::Pod { key, uid, step: PodStep::Started } };
        sim.check_invariants(&ev, sim.store.resource_version());
    }

    #[test]
    #[should_panic(expected = "runs on 2 kubelets")]
    fn a_pod_running_on_two_kubelets_is_caught() {
        let (mut sim, key, uid) = one_running_pod();
        let runtime = sim.kubelets.iter().find_map(|k| k.pods.get(&key).cloned()).expect("runtime");
        for k in &mut sim.kubelets {
            k.pods.insert(key.clone(), runtime.clone());
        }
        let ev = Ev::Kubelet { node: 0, epoch: 0, timer: KubeletTimer::Pod { key, uid, step: PodStep::Started } };
        sim.check_invariants(&ev, sim.store.resource_version());
    }

    #[test]
    #[should_panic(expected = "took the resourceVersion back")]
    fn a_resource_version_going_back_is_caught() {
        let (sim, key, uid) = one_running_pod();
        let ev = Ev::Kubelet { node: 0, epoch: 0, timer: KubeletTimer::Pod { key, uid, step: PodStep::Started } };
        sim.check_invariants(&ev, sim.store.resource_version() + 1);
    }
}
