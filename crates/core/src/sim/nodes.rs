//! Nodes (a kubelet each: add, kill, revive) and the user's own requests (kubectl's client).

use super::*;

impl Sim {
    // ---- nodes ----------------------------------------------------------------------------------------------

    /// Adds a node with a running kubelet (a name is generated when empty). Errors at the node cap or on a
    /// duplicate name.
    pub fn add_node(&mut self, mut config: NodeConfig) -> Result<String, NodeError> {
        if self.kubelets.len() >= MAX_NODES {
            return Err(NodeError::AtCapacity);
        }
        if config.name.is_empty() {
            let mut i = self.kubelets.len() + 1;
            while self.kubelet_by_name.contains_key(format!("node-{i}").as_str()) {
                i += 1;
            }
            config.name = format!("node-{i}");
        }
        if self.kubelet_by_name.contains_key(config.name.as_str()) {
            return Err(NodeError::AlreadyExists(config.name));
        }
        // Nothing is written for a node whose registration the API server would refuse.
        let node = Object::Node(crate::kubelet::registered_node(&config));
        let errs = crate::admission::validate(&node);
        if !errs.is_empty() {
            return Err(NodeError::Invalid(crate::admission::invalid_message(&node, &errs)));
        }
        let index = self.kubelets.len();
        let name: Str = config.name.as_str().into();
        let client = self.store.register_client(&format!("kubelet/{}", config.name));
        let inf = self.informer(Kind::Pod, WatchFilter::NodeName(name.clone()), client, false);
        let inf = self.push_informer(inf, Owner::Kubelet(index));
        self.kubelet_rngs.push(crate::rng::Rng::keyed(self.config.seed, &["kubelet", &name]));
        self.kubelets.push(Kubelet::new(index, config, inf, client));
        self.kubelet_by_name.insert(name.clone(), index);
        self.boot_kubelet(index);
        Ok(name.to_string())
    }

    fn boot_kubelet(&mut self, index: usize) {
        let now = self.now;
        let Sim { kubelets, kubelet_rngs, store, .. } = self;
        let (k, rng) = (&mut kubelets[index], &mut kubelet_rngs[index]);
        let mut api = Api::new(store, k.client, now, rng);
        // Registering is the kubelet's start (within a person's intervention, theirs).
        let cause = api.cause();
        if cause == Cause::Unknown {
            api.because(Cause::KubeletTimer { node: index as u32, what: "its start (it registers its Node)" });
        }
        k.register(&mut api, now);
        api.because(cause);
        let (epoch, inf) = (k.epoch, k.informer);
        // Heartbeats start at a random offset so thousands of nodes do not beat in step.
        let offset = rng.range(1, crate::kubelet::LEASE_RENEW_INTERVAL);
        self.schedule(now + offset, Ev::Kubelet { node: index, epoch, timer: KubeletTimer::Tick });
        self.start_informer(inf);
    }

    pub fn kubelet(&self, name: &str) -> Option<&Kubelet> {
        self.kubelet_by_name.get(name).map(|i| &self.kubelets[*i])
    }

    /// Stops a node's kubelet: no more heartbeats, status updates or pod work.
    pub fn kill_node(&mut self, name: &str) -> Result<(), NodeError> {
        let i = *self.kubelet_by_name.get(name).ok_or_else(|| NodeError::NotFound(name.to_string()))?;
        if !self.kubelets[i].alive {
            return Ok(());
        }
        self.kubelets[i].kill();
        self.store.causes.stopped(&self.kubelets[i].name, self.now);
        let inf = self.kubelets[i].informer;
        self.informers[inf].stop(&mut self.store);
        Ok(())
    }

    /// Starts a node's kubelet again: it relists its pods, registers and heartbeats.
    pub fn revive_node(&mut self, name: &str) -> Result<(), NodeError> {
        let i = *self.kubelet_by_name.get(name).ok_or_else(|| NodeError::NotFound(name.to_string()))?;
        if self.kubelets[i].alive {
            return Ok(());
        }
        self.kubelets[i].revive();
        self.boot_kubelet(i);
        let timers = self.kubelets[i].resume(self.now);
        self.schedule_pod_timers(i, timers);
        Ok(())
    }

    // ---- user actions (kubectl's client) ---------------------------------------------------------------------

    /// Runs `f` with the user's API handle, then lets watchers know.
    pub fn as_user<T>(&mut self, f: impl FnOnce(&mut Api) -> T) -> T {
        self.as_client(self.user, f)
    }

    /// A client of the API server's of its own (another writer than the user, a tool), by name.
    pub fn register_client(&mut self, name: &str) -> ClientId {
        self.store.register_client(name)
    }

    /// Runs `f` with the API handle of a client from [`Sim::register_client`] (or the user's), on the person's
    /// side of the randomness (see `user_rng`), then lets watchers know.
    pub fn as_client<T>(&mut self, client: ClientId, f: impl FnOnce(&mut Api) -> T) -> T {
        let out = {
            let mut api = Api::new(&mut self.store, client, self.now, &mut self.user_rng);
            f(&mut api)
        };
        self.flush_wakeups();
        out
    }

    /// Opens a watch of `kind` for the user (`kubectl get -w`) from `from_rv`; the caller drains it with
    /// [`Sim::drain_user_watch`] and closes it with [`Sim::stop_user_watch`].
    pub fn user_watch(&mut self, kind: Kind, from_rv: u64) -> Result<WatcherId, crate::store::ApiError> {
        let w = self.store.watch(self.user, kind, from_rv, crate::watch::WatchFilter::All);
        self.flush_wakeups();
        w
    }

    /// The user's watch events that have arrived by now (counted as served).
    pub fn drain_user_watch(&mut self, id: WatcherId) -> Vec<crate::watch::WatchEvent> {
        let (evs, _) = self.store.drain_watch(id, self.now);
        evs
    }

    /// Closes a watch the user opened.
    pub fn stop_user_watch(&mut self, id: WatcherId) {
        self.store.stop_watch(id);
    }

    /// A random name suffix of `n` characters from the user's own stream (kubectl's generated names), which leaves
    /// the simulation's stream as it was.
    pub fn user_name_suffix(&mut self, n: usize) -> String {
        self.user_rng.name_suffix(n)
    }

    /// Deletes an object as the user (kubectl's client).
    pub fn delete(&mut self, kind: Kind, key: &ObjKey, opts: &DeleteOptions) -> Result<Rc<Object>, ApiError> {
        self.as_user(|api| api.delete(kind, key, opts))
    }

    /// `kubectl scale`: patches `spec.replicas` of a Deployment or ReplicaSet, as the user. A negative count is
    /// invalid; a count that would declare more pods than kubeloop simulates is forbidden.
    pub fn scale(&mut self, kind: Kind, key: &ObjKey, replicas: i32) -> Result<Rc<Object>, ApiError> {
        if replicas < 0 {
            // ValidateScale, on the scale subresource.
            let errors = vec![crate::admission::FieldError::invalid(
                "spec.replicas",
                replicas,
                "must be greater than or equal to 0",
            )];
            let name = key.name.to_string();
            return Err(ApiError::Invalid(crate::admission::Invalid {
                kind: "Scale",
                group: "autoscaling",
                name,
                errors,
            }));
        }
        let pods = self.store.count_of(Kind::Pod);
        if pods + replicas as usize > MAX_PODS + pods.min(replicas as usize) {
            return Err(ApiError::Forbidden(format!("kubeloop simulates at most {MAX_PODS} pods")));
        }
        self.as_user(|api| {
            api.patch(kind, key, crate::store::Subresource::Main, |o| match o {
                Object::Deployment(d) => d.spec.replicas = Some(replicas),
                Object::ReplicaSet(r) => r.spec.replicas = Some(replicas),
                _ => {}
            })
        })
    }

    /// Fault: the watch of `informer` is cut. The reflector re-watches from the last resourceVersion it saw; if
    /// the server no longer has that history (410 Gone) it relists after its backoff.
    pub fn disconnect_watch(&mut self, informer: InformerId) {
        if self.informers.get(informer).and_then(Informer::watcher).is_none() {
            return;
        }
        self.reflector(informer, Input::Disconnect);
        self.flush_wakeups();
    }

    /// Cuts every informer's watch (see [`Sim::disconnect_watch`]).
    pub fn disconnect_all_watches(&mut self) {
        for id in 0..self.informers.len() {
            self.disconnect_watch(id);
        }
    }
}
