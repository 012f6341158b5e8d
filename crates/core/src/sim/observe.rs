//! Observation: read-only questions about the cluster, uncounted by the API (drift, queue depths, the active replica, idleness, pod counts, convergence). The page, the runner's summary and the tests read here.

use super::*;
use crate::api::{LabelSelector, Pod};
use crate::controllers::scheduler::{spread_owner, Explanation, Moved, Profile, Scheduler};

impl Sim {
    /// A scheduler cache of the API's objects now (read uncounted, as the page's other looks are): the nodes, and the
    /// pods counted on theirs. The explanations below read one; several can share it (each puts back what it moved).
    pub fn scheduler_cache(&self) -> Scheduler {
        let nodes = self.store.objects(Kind::Node).filter_map(|o| o.as_node());
        Scheduler::of(nodes, self.store.objects(Kind::Pod).filter_map(|o| o.as_pod()))
    }

    /// The ReplicaSet whose selector PodTopologySpread counts `pod` by.
    fn spread_owner_of(&self, pod: &Pod) -> Option<(ObjKey, LabelSelector)> {
        spread_owner(pod, |k| Some(self.store.peek(Kind::ReplicaSet, k)?.as_replicaset()?.spec.selector.clone()))
    }

    /// Why the scheduler would place pod `key` where it would now: every node's filter verdicts, every feasible
    /// node's scores with the profile's weights ([`Scheduler::explain`]). `None`: no such pod.
    pub fn explain_scheduling(&self, key: &ObjKey, profile: impl Into<Profile>) -> Option<Explanation> {
        self.explain_scheduling_in(&mut self.scheduler_cache(), key, profile)
    }

    /// [`Sim::explain_scheduling`] over a cache from [`Sim::scheduler_cache`] (left as it was found).
    pub fn explain_scheduling_in(
        &self,
        cache: &mut Scheduler,
        key: &ObjKey,
        profile: impl Into<Profile>,
    ) -> Option<Explanation> {
        let pod = self.store.peek(Kind::Pod, key)?.as_pod()?;
        Some(cache.explain_placed(pod, self.spread_owner_of(pod), profile))
    }

    /// Across the cluster: the pods that `profile` (filters switched off, other score weights) would place
    /// elsewhere than upstream's profile would, now ([`Scheduler::what_if`]), over the first `limit` pods not
    /// finished (store order); and how many pods were looked at, of how many.
    pub fn scheduling_what_if(&self, profile: impl Into<Profile>, limit: usize) -> (Vec<Moved>, usize, usize) {
        self.scheduling_what_if_in(&mut self.scheduler_cache(), profile, limit)
    }

    /// [`Sim::scheduling_what_if`] over a cache from [`Sim::scheduler_cache`] (left as it was found).
    pub fn scheduling_what_if_in(
        &self,
        cache: &mut Scheduler,
        profile: impl Into<Profile>,
        limit: usize,
    ) -> (Vec<Moved>, usize, usize) {
        self.scheduling_what_if_among(cache, profile, limit, &|_| true)
    }

    /// [`Sim::scheduling_what_if_in`] over the pods `include` takes (the page's: those its cluster view shows).
    pub fn scheduling_what_if_among(
        &self,
        cache: &mut Scheduler,
        profile: impl Into<Profile>,
        limit: usize,
        include: &dyn Fn(&crate::api::Pod) -> bool,
    ) -> (Vec<Moved>, usize, usize) {
        let pods = || {
            self.store
                .objects(Kind::Pod)
                .filter_map(|o| o.as_pod())
                .filter(|p| !p.status.phase.is_terminal() && !p.metadata.is_terminating() && include(p))
        };
        let looked: Vec<_> = pods().take(limit).map(|p| (p, self.spread_owner_of(p))).collect();
        let n = looked.len();
        (cache.what_if(looked, profile), n, pods().count())
    }

    /// The configuration the simulation runs with (the knobs change it as they are turned).
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The API server's store, to read (a read here is not an API request and changes nothing).
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Every informer, by id.
    pub fn informers(&self) -> &[Informer] {
        &self.informers
    }

    /// The control-plane processes, in the order of their [`HostId`]s.
    pub fn hosts(&self) -> &[Host] {
        &self.hosts
    }

    /// One kubelet per node, in the order the nodes were added.
    pub fn kubelets(&self) -> &[Kubelet] {
        &self.kubelets
    }

    /// The most recent reconciles.
    pub fn log(&self) -> &ReconcileLog {
        &self.log
    }

    /// Where every stream of draws stands (the simulation's, the API server's, each informer's, controller's,
    /// election's and kubelet's), without drawing: a fingerprint of where the run is.
    pub fn rng_peek(&self) -> u64 {
        let informers = self.informers.iter().map(Informer::rng_position);
        let controllers = self.hosts.iter().flat_map(|h| h.controllers.iter().map(Controller::rng_position));
        let elections = self.hosts.iter().map(|h| h.rng.position());
        let kubelets = self.kubelet_rngs.iter().map(crate::rng::Rng::position);
        let all = informers.chain(controllers).chain(elections).chain(kubelets);
        all.fold(fnv1a(self.rng.position(), &self.store.rng_position().to_le_bytes()), |h, p| {
            fnv1a(h, &p.to_le_bytes())
        })
    }

    // ---- the control plane's processes ----

    /// The controller manager replica holding the lease, if any.
    pub fn controller_manager_leader(&self) -> Option<HostId> {
        [CONTROLLER_MANAGER, CONTROLLER_MANAGER_2].into_iter().find(|&h| self.hosts.get(h.0).is_some_and(Host::active))
    }

    /// A control-plane process.
    pub fn host(&self, h: HostId) -> &Host {
        &self.hosts[h.0]
    }

    /// Every control-plane process, in the order they were added.
    pub fn host_ids(&self) -> impl Iterator<Item = HostId> {
        (0..self.hosts.len()).map(HostId)
    }

    /// The client of people: kubectl, the page, scenario actions.
    pub fn user(&self) -> ClientId {
        self.user
    }

    // ---- observation (uncounted) -----------------------------------------------------------------------------

    /// What the engine holds right now, by structure (see [`crate::footprint`]).
    pub fn footprint(&self) -> crate::footprint::Footprint {
        crate::footprint::Footprint::of(self)
    }

    /// The work the engine has done since it was made, by component ([`crate::work`]): deterministic counts, for
    /// the runner's bench and the work budget.
    pub fn work(&self) -> crate::work::Work {
        let mut w = crate::work::Work {
            events: self.events_processed(),
            api: (&self.store.total_counters()).into(),
            ..Default::default()
        };
        for k in &self.kubelets {
            w.kubelets.merge(&k.work);
        }
        for c in self.hosts.iter().flat_map(|h| &h.controllers) {
            w.controllers.or_default(c.name()).merge(&c.work());
        }
        w
    }

    /// Cached objects, over all running informers, that differ from the store right now.
    pub fn drift(&self) -> usize {
        self.informers.iter().map(|i| i.drift(&self.store)).sum()
    }

    /// One entry per controller name, in the order the hosts run them: replicas of a component show the active
    /// one (the leader), else the first.
    pub fn controllers_by_name(&self) -> Vec<(HostId, &Controller)> {
        let mut out: Vec<(HostId, &Controller)> = Vec::new();
        for (h, host) in self.hosts.iter().enumerate() {
            for c in &host.controllers {
                match out.iter_mut().find(|(_, seen)| seen.name() == c.name()) {
                    Some(slot) if host.active() && !self.hosts[slot.0 .0].active() => *slot = (HostId(h), c),
                    Some(_) => {}
                    None => out.push((HostId(h), c)),
                }
            }
        }
        out
    }

    /// Current queue depth of each controller, by name ([`Sim::controllers_by_name`]).
    pub fn queue_depths(&self) -> Vec<(&'static str, usize)> {
        self.controllers_by_name().into_iter().map(|(_, c)| (c.name(), c.queue.len())).collect()
    }

    /// The controller of that name on the active replica (else the first one).
    pub fn controller(&self, name: &str) -> Option<&Controller> {
        self.controllers_by_name().into_iter().find(|(_, c)| c.name() == name).map(|(_, c)| c)
    }

    /// What a set of informers holds and has seen, summed (the kubelets' pod informers as one figure).
    pub fn informer_totals(&self, ids: impl IntoIterator<Item = InformerId>) -> InformerTotals {
        let mut t = InformerTotals::default();
        for id in ids {
            if let Some(inf) = self.informers.get(id) {
                t.add(inf);
            }
        }
        t
    }

    /// The kubelets' informers (one per node: its pods).
    pub fn kubelet_informers(&self) -> impl Iterator<Item = InformerId> + '_ {
        self.kubelets.iter().map(|k| k.informer)
    }

    /// Every queue empty and every worker idle.
    pub fn idle(&self) -> bool {
        self.hosts.iter().flat_map(|h| h.controllers.iter()).all(|c| c.queue.is_empty() && c.busy_workers() == 0)
    }

    /// Objects the API store has served so far, over all clients: LIST items + GETs + watch events.
    pub fn api_reads(&self) -> u64 {
        self.store.total_counters().reads()
    }

    /// Nodes whose Ready condition is True, as the control plane sees them.
    pub fn nodes_ready(&self) -> usize {
        self.store.objects(Kind::Node).filter_map(|o| o.as_node()).filter(|n| n.ready_status() == "True").count()
    }

    /// The pods `picks` chooses (a Deployment's: its namespace and selector), counted as the lessons' `pods:` checks
    /// and the page's figures count them: one walk of the pods, `since` the time "created since" counts from.
    pub fn matched_pods(&self, picks: &dyn Fn(&Pod) -> bool, since: Millis) -> MatchedPods {
        let dead: Vec<&str> = self.kubelets.iter().filter(|k| !k.alive).map(|k| &*k.name).collect();
        let mut m = MatchedPods::default();
        for pod in self.store.objects(Kind::Pod).filter_map(|o| o.as_pod()).filter(|p| picks(p)) {
            let live = !pod.metadata.is_terminating();
            let running = live && pod.status.phase == PodPhase::Running;
            let ready = pod.is_ready();
            let back_off = pod
                .status
                .container_statuses
                .iter()
                .any(|c| c.state.waiting.as_ref().is_some_and(|w| &*w.reason == "CrashLoopBackOff"));
            m.total += 1;
            m.running += u64::from(running);
            m.ready += u64::from(live && ready);
            m.not_ready += u64::from(live && !ready);
            m.terminating += u64::from(!live);
            m.created_since += u64::from(pod.metadata.creation_timestamp.is_some_and(|t| t.0 >= since));
            m.on_dead_nodes += u64::from(live && dead.contains(&&*pod.spec.node_name));
            m.restarts += u64::try_from(pod.restarts()).unwrap_or(0);
            m.back_off += u64::from(back_off);
            if running && !m.nodes.iter().any(|x| *x == *pod.spec.node_name) {
                m.nodes.push(pod.spec.node_name.to_string());
            }
        }
        crate::sort::sort(&mut m.nodes);
        m
    }

    /// Pods by phase: (running, pending, terminating).
    pub fn pod_counts(&self) -> (usize, usize, usize) {
        let t = self.store.pod_tally();
        (t.running, t.pending, t.terminating)
    }

    /// Every Deployment has its desired replicas updated, ready and available, observed at its generation.
    /// Every Deployment has exactly its desired replicas as pods that are Running, Ready, not terminating and on a
    /// Ready node: the truth, whatever the statuses say (an edge-triggered controller can leave a status that
    /// claims what is not there).
    pub fn deployments_fulfilled(&self) -> bool {
        let ready_nodes: rustc_hash::FxHashSet<&str> = self
            .store
            .objects(Kind::Node)
            .filter_map(|o| o.as_node())
            .filter(|n| n.ready_status() == "True")
            .map(|n| &*n.metadata.name)
            .collect();
        // One pass over pods: pod -> its ReplicaSet -> that ReplicaSet's Deployment.
        let mut deployment_of_rs: FxHashMap<&str, &str> = FxHashMap::default();
        for rs in self.store.objects(Kind::ReplicaSet) {
            if let Some(r) = crate::api::controller_of(rs.meta()).filter(|r| &*r.kind == "Deployment") {
                deployment_of_rs.insert(&rs.meta().uid, &r.uid);
            }
        }
        let mut healthy: FxHashMap<&str, usize> = FxHashMap::default();
        for p in self.store.objects(Kind::Pod).filter_map(|o| o.as_pod()) {
            let ok = !p.metadata.is_terminating()
                && p.status.phase == PodPhase::Running
                && p.is_ready()
                && ready_nodes.contains(&*p.spec.node_name);
            let owner = crate::api::controller_of(&p.metadata).and_then(|r| deployment_of_rs.get(&*r.uid));
            if let (true, Some(d)) = (ok, owner) {
                *healthy.entry(d).or_default() += 1;
            }
        }
        self.store
            .objects(Kind::Deployment)
            .filter_map(|o| o.as_deployment())
            .all(|d| healthy.get(&*d.metadata.uid).copied().unwrap_or(0) == d.replicas() as usize)
    }

    pub fn deployments_converged(&self) -> bool {
        self.store.objects(Kind::Deployment).filter_map(|o| o.as_deployment()).all(|d| {
            let r = d.replicas();
            let st = &d.status;
            st.observed_generation >= d.metadata.generation
                && st.replicas == r
                && st.updated_replicas == r
                && st.ready_replicas == r
                && st.available_replicas == r
        })
    }

    // ---- the knobs as they are set ----

    /// The trigger mode in effect per controller (one entry per name).
    pub fn trigger_modes(&self) -> Vec<(&'static str, TriggerMode)> {
        self.controllers_by_name().into_iter().map(|(_, c)| (c.name(), c.effective_trigger())).collect()
    }

    pub fn observe_mode(&self) -> ObserveMode {
        self.config.observe
    }

    pub fn relist_period(&self) -> Millis {
        self.config.relist_period
    }

    /// The informers of the control plane's processes (not the kubelets').
    pub fn control_plane_informers(&self) -> Vec<InformerId> {
        (0..self.informers.len()).filter(|&i| matches!(self.informer_owner[i], Owner::Host(_))).collect()
    }

    /// The fraction of watch events informers lose.
    pub fn watch_drop(&self) -> f64 {
        self.watch_drop
    }

    /// Who owns an informer.
    pub fn informer_owner(&self, id: InformerId) -> Option<Owner> {
        self.informer_owner.get(id).copied()
    }

    /// The controller manager's resync period.
    pub fn resync_period(&self) -> Millis {
        self.hosts[CONTROLLER_MANAGER.0]
            .informers
            .iter()
            .flatten()
            .map(|id| self.informers[*id].resync_period())
            .next()
            .unwrap_or(0)
    }
}

/// What [`Sim::matched_pods`] counts over the pods it is asked about (a Deployment's pods, a lesson's selector).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchedPods {
    pub total: u64,
    /// Running and not terminating.
    pub running: u64,
    /// Ready and not terminating.
    pub ready: u64,
    pub not_ready: u64,
    pub terminating: u64,
    /// Created at or after the time asked about.
    pub created_since: u64,
    /// Not terminating, on a node whose kubelet is dead.
    pub on_dead_nodes: u64,
    /// Container restarts, summed.
    pub restarts: u64,
    /// Pods with a container waiting in CrashLoopBackOff.
    pub back_off: u64,
    /// The nodes the running pods run on, sorted.
    pub nodes: Vec<String>,
}
