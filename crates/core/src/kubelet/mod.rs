//! The kubelet of one simulated node: it registers its Node, renews its Lease in `kube-node-lease` every 10 s,
//! reports node status, watches the pods bound to it (field selector `spec.nodeName`), pulls images and starts
//! containers after seeded delays, reports pod status, and on deletion stops the containers and confirms the
//! delete. The kubelet is the only writer of pod status after scheduling.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::api::{
    s, ContainerState, ContainerStateWaiting, ContainerStatus, Kind, Labels, Lease, Node, NodeAddress, NodeCondition,
    NodeSystemInfo, ObjKey, Object, ObjectMeta, OwnerReference, PodPhase, ProbeType, Quantity, Str, Taint, Time,
};
use crate::behaviour::{Behaviour, BehaviourPatch, Behaviours, Sigterm};
use crate::cause::Cause;
use crate::client::Api;
use crate::informer::Cache;
use crate::informer::{InformerEvent, InformerId};
use crate::recorder::{EventKind, Recorder};
use crate::store::{set_pod_condition, ClientId, DeleteOptions, Subresource};
use crate::time::{Millis, MINUTE, SECOND};

mod config;
mod containers;
mod lifecycle;
use lifecycle::{arm_probes, pulled_message};

pub use containers::{
    apply_status, BackoffEntry, ContainerRun, Due, ProbeRun, Run, StopPlan, Termination, BACKOFF_INITIAL, BACKOFF_MAX,
    MINIMUM_GRACE_PERIOD_SECONDS, PLEG_RELIST_PERIOD, SIGKILL_EXIT_CODE, SIGTERM_EXIT_CODE,
};

/// `nodeLeaseDurationSeconds`.
pub const LEASE_DURATION_SECONDS: i32 = 40;
/// Lease renew interval (0.25 x the duration).
pub const LEASE_RENEW_INTERVAL: Millis = 10 * SECOND;
/// `nodeStatusUpdateFrequency`: status is computed this often...
pub const NODE_STATUS_UPDATE_FREQUENCY: Millis = 10 * SECOND;
/// ...and written when it changed, or at least this often (`nodeStatusReportFrequency`).
pub const NODE_STATUS_REPORT_FREQUENCY: Millis = 5 * MINUTE;
/// The version the simulated nodes report.
pub const KUBELET_VERSION: &str = "v1.34.2";
/// `--eviction-hard memory.available<100Mi`: reserved from allocatable memory.
/// The size a pulled image reports (the Pulled event's `Image size: N bytes.`): kubeloop's own simulated value,
/// fixed per image name (a hash of it, between 20 MB and 220 MB), drawn from no random generator.
pub(crate) fn image_size_bytes(image: &str) -> u64 {
    let h = crate::fnv::fnv1a(crate::fnv::FNV_OFFSET, image.as_bytes());
    20_000_000 + h % 200_000_000
}

/// The kubelet's condition types, in the order its status manager writes them (pkg/kubelet/kubelet_pods.go
/// `generateAPIPodStatus`, merged by pkg/kubelet/status/status_manager.go `mergePodStatus`): conditions the
/// kubelet does not own (DisruptionTarget) first, as they were, then these.
const KUBELET_CONDITIONS: [&str; 5] =
    ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];

/// Puts a pod's conditions in the kubelet's order (a stable sort: others keep theirs, first).
pub(crate) fn order_conditions(conds: &mut [crate::api::PodCondition]) {
    crate::sort::sort_by_key(conds, |c| KUBELET_CONDITIONS.iter().position(|t| *t == &*c.type_).map_or(0, |i| i + 1));
}

pub const EVICTION_HARD_MEMORY: i64 = 100 * 1024 * 1024;

/// The Node a kubelet of `config` registers (before its status): the name, the configured labels with the
/// well-known ones the kubelet adds (`kubernetes.io/hostname` and the OS and architecture), and the taints. Whoever
/// adds a node checks this object first, so that a name the API server would refuse (a hostname label longer than
/// 63 characters) is refused before anything is written.
pub fn registered_node(config: &NodeConfig) -> Node {
    let mut node = Node::default();
    node.metadata.name = s(&config.name);
    node.metadata.labels = config.labels.clone();
    for (k, v) in [
        ("kubernetes.io/hostname", config.name.as_str()),
        ("kubernetes.io/os", "linux"),
        ("kubernetes.io/arch", "amd64"),
        ("beta.kubernetes.io/os", "linux"),
        ("beta.kubernetes.io/arch", "amd64"),
    ] {
        if !node.metadata.labels.contains_key(k) {
            node.metadata.labels.insert(s(k), s(v));
        }
    }
    node.spec.taints = config.taints.clone();
    node
}

/// The shape of a node: what its kubelet registers.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeConfig {
    pub name: String,
    pub cpu: Quantity,
    pub memory: Quantity,
    /// `maxPods`.
    pub pods: i64,
    pub labels: Labels,
    pub taints: Vec<Taint>,
}

impl Default for NodeConfig {
    fn default() -> Self {
        NodeConfig {
            name: String::new(),
            cpu: Quantity::from_cpu_millis(4000),
            memory: Quantity::from_memory_bytes(16 << 30),
            pods: 110,
            labels: Labels::new(),
            taints: Vec::new(),
        }
    }
}

/// From a deleted pod's last container stopping to the kubelet confirming the delete: its sandbox and volumes
/// removed (`SyncTerminatedPod`) before the status manager may delete it (kubeloop's own figure). The terminal
/// status is written first, so watchers see the pod Failed or Succeeded before it goes.
pub const TERMINATED_POD_CLEANUP: Millis = 500;

/// Timings of the container runtime (seeded ranges, milliseconds).
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    pub(crate) image_pull: (Millis, Millis),
    pub(crate) container_start: (Millis, Millis),
    pub(crate) container_stop: (Millis, Millis),
}

impl Default for RuntimeConfig {
    fn default() -> Self {
        RuntimeConfig { image_pull: (800, 4000), container_start: (200, 900), container_stop: (100, 1500) }
    }
}

/// What the kubelet is doing with one pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Starting,
    Running,
    Stopping,
}

#[derive(Clone, Debug)]
pub struct PodRuntime {
    pub(crate) uid: Str,
    pub(crate) stage: Stage,
    /// Per container, how long its image pull took (`None`: already present).
    pub(crate) pulls: Vec<Option<Millis>>,
    /// The images its containers run (kept from image garbage collection).
    pub(crate) images: Vec<Str>,
    /// When the kubelet admitted the pod: its probe workers tick from here.
    pub(crate) admitted: Millis,
    /// The volume manager's wait before it tries a failed mount again (0: no failure yet).
    pub(crate) mount_retry: Millis,
    pub(crate) containers: Vec<ContainerRun>,
}

/// Steps the simulation schedules for a kubelet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PodStep {
    /// Images pulled, containers created and started.
    Started,
    /// Containers stopped after a deletion: confirm it.
    Stopped,
    /// A timer of one container (a probe tick, its process's exit, a sync after an exit or a failed pull, the end
    /// of a pull).
    Container { index: u16, due: Due },
}

/// A timer the kubelet asks the simulation for: `(delay, key, uid, step)`.
pub type PodTimer = (Millis, ObjKey, Str, PodStep);

/// A timer of a kubelet's, as the simulation schedules it: its heartbeat, or a step of one pod.
#[derive(Clone, Debug)]
pub enum KubeletTimer {
    /// Every [`LEASE_RENEW_INTERVAL`]: the Lease renewed, the node's status written when due.
    Tick,
    /// A step of the pod of this key and uid.
    Pod { key: ObjKey, uid: Str, step: PodStep },
}

impl KubeletTimer {
    /// The timer's number in the history hash (the simulation's numbering of its events).
    pub(crate) fn tag(&self) -> u8 {
        match self {
            KubeletTimer::Tick => 6,
            KubeletTimer::Pod { .. } => 7,
        }
    }

    /// The pod timers a step asked for, as the simulation schedules them: `(delay, timer)`.
    pub(crate) fn pods(timers: Vec<PodTimer>) -> impl Iterator<Item = (Millis, KubeletTimer)> {
        timers.into_iter().map(|(delay, key, uid, step)| (delay, KubeletTimer::Pod { key, uid, step }))
    }
}

#[derive(Clone)]
pub struct Kubelet {
    pub name: Str,
    pub(crate) index: usize,
    pub config: NodeConfig,
    pub alive: bool,
    pub(crate) epoch: u64,
    pub(crate) informer: InformerId,
    pub client: ClientId,
    pub(crate) recorder: Recorder,
    pub(crate) pods: FxHashMap<ObjKey, PodRuntime>,
    /// Images on the node, with when each was last used by a starting container.
    images: FxHashMap<Str, Millis>,
    lease: Option<Rc<Object>>,
    last_report: Option<(Millis, crate::api::NodeStatus)>,
    next_ip: u32,
    /// What it did (counted by the event loop that drives it; the engine's work, `crate::work`).
    pub work: crate::work::KubeletWork,
}

impl Kubelet {
    pub(crate) fn new(index: usize, config: NodeConfig, informer: InformerId, client: ClientId) -> Self {
        let name = s(&config.name);
        Kubelet {
            recorder: Recorder::new("kubelet", &config.name),
            name,
            index,
            config,
            alive: true,
            epoch: 0,
            informer,
            client,
            pods: FxHashMap::default(),
            images: FxHashMap::default(),
            lease: None,
            last_report: None,
            next_ip: 2,
            work: Default::default(),
        }
    }

    /// Pods this kubelet runs (its entries besides images and the recorder's bounded LRU).
    pub(crate) fn footprint(&self) -> usize {
        self.pods.len()
    }

    /// Images on the node (bounded by image garbage collection).
    pub(crate) fn image_count(&self) -> usize {
        self.images.len()
    }

    /// Image garbage collection: past [`crate::limits::MAX_IMAGES_PER_NODE`] images, those no pod on the node
    /// uses (the one about to start included) go, least recently used first. It stands in for the kubelet's
    /// disk-usage thresholds (`--image-gc-high-threshold` 85 %), which kubeloop has no disk for.
    fn collect_images(&mut self) {
        let max = crate::limits::MAX_IMAGES_PER_NODE;
        if self.images.len() < max {
            return;
        }
        let in_use: FxHashSet<&Str> = self.pods.values().flat_map(|r| r.images.iter()).collect();
        let mut unused: Vec<(Millis, Str)> =
            self.images.iter().filter(|(i, _)| !in_use.contains(i)).map(|(i, t)| (*t, i.clone())).collect();
        crate::sort::sort(&mut unused);
        let excess = (self.images.len() + 1).saturating_sub(max);
        for (_, image) in unused.into_iter().take(excess) {
            self.images.remove(&image);
        }
    }

    fn node_key(&self) -> ObjKey {
        ObjKey::cluster(&self.name)
    }

    fn capacity(&self) -> crate::api::types::ResourceList {
        let mut r = crate::api::types::ResourceList::new();
        r.insert(s("cpu"), self.config.cpu.clone());
        r.insert(s("memory"), self.config.memory.clone());
        r.insert(s("pods"), Quantity::from_milli(self.config.pods.saturating_mul(1000)));
        r
    }

    fn node_status(&self, now: Millis, previous: Option<&Node>) -> crate::api::NodeStatus {
        let mut allocatable = self.capacity();
        let mem = self.config.memory.value().saturating_sub(EVICTION_HARD_MEMORY).max(0);
        allocatable.insert(s("memory"), Quantity::from_memory_bytes(mem));
        let cond = |type_: &str, status: &str, reason: &str, message: &str| {
            let since = previous
                .and_then(|n| n.condition(type_))
                .filter(|c| &*c.status == status)
                .and_then(|c| c.last_transition_time)
                .unwrap_or(Time(now));
            NodeCondition {
                type_: s(type_),
                status: s(status),
                last_heartbeat_time: Some(Time(now)),
                last_transition_time: Some(since),
                reason: s(reason),
                message: s(message),
            }
        };
        crate::api::NodeStatus {
            capacity: self.capacity(),
            allocatable,
            conditions: vec![
                cond(
                    "MemoryPressure",
                    "False",
                    "KubeletHasSufficientMemory",
                    "kubelet has sufficient memory available",
                ),
                cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            addresses: vec![
                NodeAddress { type_: s("InternalIP"), address: s(&self.node_ip()) },
                NodeAddress { type_: s("Hostname"), address: self.name.clone() },
            ],
            node_info: Some(NodeSystemInfo {
                kubelet_version: s(KUBELET_VERSION),
                container_runtime_version: s("containerd://2.1.4"),
                os_image: s("kubeloop simulated node"),
                architecture: s("amd64"),
                operating_system: s("linux"),
            }),
        }
    }

    fn node_ip(&self) -> String {
        format!("10.0.{}.{}", (self.index / 250) % 256, self.index % 250 + 2)
    }

    /// Registers the node (creates it, or takes over an existing Node object) and renews the lease.
    pub(crate) fn register(&mut self, api: &mut Api, now: Millis) {
        let mut node = registered_node(&self.config);
        node.spec.pod_cidr = s(&format!("{}.0/24", pod_range(self.index)));
        node.status = self.node_status(now, None);
        let written = match api.create(Object::Node(node.clone())) {
            Ok(o) => Some(o),
            Err(crate::store::ApiError::AlreadyExists { .. }) => {
                let status = node.status.clone();
                api.patch(Kind::Node, &self.node_key(), Subresource::Status, |o| {
                    if let Object::Node(n) = o {
                        n.status = status;
                    }
                })
                .ok()
            }
            Err(_) => None,
        };
        if let Some(Object::Node(n)) = written.as_deref() {
            self.last_report = Some((now, n.status.clone()));
            if self.lease.is_none() {
                self.recorder.event(api, &Object::Node(n.clone()), EventKind::Normal, "Starting", "Starting kubelet.");
            }
            let msg = format!("Node {} status is now: NodeReady", self.name);
            self.recorder.event(api, &Object::Node(n.clone()), EventKind::Normal, "NodeReady", &msg);
        }
        self.renew_lease(api, now);
    }

    /// The lease heartbeat: update the Lease's renewTime (create it the first time).
    pub(crate) fn renew_lease(&mut self, api: &mut Api, now: Millis) {
        let key = ObjKey::new("kube-node-lease", &self.name);
        let build = |base: Option<&Lease>, node_uid: Option<Str>| {
            let mut l = base.cloned().unwrap_or_else(|| {
                let mut l = Lease { metadata: ObjectMeta::named("kube-node-lease", &key.name), ..Default::default() };
                if let Some(uid) = node_uid {
                    l.metadata.owner_references.push(OwnerReference {
                        api_version: s("v1"),
                        kind: s("Node"),
                        name: key.name.clone(),
                        uid,
                        controller: None,
                        block_owner_deletion: None,
                    });
                }
                l
            });
            l.spec.holder_identity = key.name.clone();
            l.spec.lease_duration_seconds = Some(LEASE_DURATION_SECONDS);
            l.spec.renew_time = Some(Time(now));
            l
        };
        let result = match self.lease.as_deref().and_then(|o| o.as_lease()) {
            Some(l) => api.update(Object::Lease(build(Some(l), None))),
            None => {
                Err(crate::store::ApiError::NotFound { resource: "leases.coordination.k8s.io", name: key.name.clone() })
            }
        };
        let result = match result {
            Ok(o) => Ok(o),
            Err(_) => match api.get(Kind::Lease, &key) {
                Ok(current) => api.update(Object::Lease(build(current.as_lease(), None))),
                Err(_) => {
                    let node_uid = api.peek(Kind::Node, &self.node_key()).map(|n| n.meta().uid.clone());
                    api.create(Object::Lease(build(None, node_uid)))
                }
            },
        };
        self.lease = result.ok();
    }

    /// Every 10 s: renew the lease; write node status if it changed or 5 minutes passed.
    pub(crate) fn tick(&mut self, api: &mut Api, now: Millis) {
        self.renew_lease(api, now);
        let current = api.peek(Kind::Node, &self.node_key()).cloned();
        let Some(node) = current.as_deref().and_then(|o| o.as_node()) else {
            // Our Node object was deleted: register again, as the kubelet does.
            self.register(api, now);
            return;
        };
        let status = self.node_status(now, Some(node));
        let strip = |st: &crate::api::NodeStatus| {
            let mut st = st.clone();
            for c in &mut st.conditions {
                c.last_heartbeat_time = None;
            }
            st
        };
        let due = match &self.last_report {
            Some((at, last)) => strip(last) != strip(&status) || now >= at + NODE_STATUS_REPORT_FREQUENCY,
            None => true,
        };
        if due {
            let st = status.clone();
            if api
                .patch(Kind::Node, &self.node_key(), Subresource::Status, |o| {
                    if let Object::Node(n) = o {
                        n.status = st;
                    }
                })
                .is_ok()
            {
                self.last_report = Some((now, status));
            }
        }
    }

    /// A pod bound to this node changed: admit and start it, or stop it when it is being deleted.
    pub(crate) fn handle(
        &mut self,
        ev: &InformerEvent,
        api: &mut Api,
        runtime: &RuntimeConfig,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Vec<PodTimer> {
        let mut timers = Vec::new();
        let obj = ev.object();
        let key = obj.key();
        let Some(pod) = obj.as_pod() else { return timers };
        if let InformerEvent::Delete(..) = ev {
            self.pods.remove(&key);
            // The pod is gone from this node for good: its events can no longer aggregate.
            self.recorder.forget_involved(&pod.metadata.uid);
            return timers;
        }
        if pod.status.phase.is_terminal() && !pod.metadata.is_terminating() {
            return timers;
        }
        let known = self.pods.get(&key).filter(|r| r.uid == pod.metadata.uid).map(|r| r.stage);
        match (known, pod.metadata.is_terminating()) {
            (None, true) => {
                // Deleted while we were away: nothing runs, confirm at once.
                let opts = DeleteOptions {
                    grace_period_seconds: Some(0),
                    preconditions_uid: Some(pod.metadata.uid.clone()),
                    ..Default::default()
                };
                let _ = api.delete(Kind::Pod, &key, &opts);
            }
            (None, false) => {
                // Admit: Pending with ContainerCreating, pull what is missing.
                let images = pod.spec.containers.iter().map(|c| c.image.clone()).collect();
                let containers =
                    pod.spec.containers.iter().map(|c| ContainerRun::new(c.name.clone(), c.image.clone())).collect();
                let mut rt = PodRuntime {
                    uid: pod.metadata.uid.clone(),
                    stage: Stage::Starting,
                    pulls: Vec::new(),
                    images,
                    admitted: now,
                    mount_retry: 0,
                    containers,
                };
                let ip = format!("{}.{}", pod_range(self.index), self.next_ip);
                self.next_ip = if self.next_ip >= 254 { 2 } else { self.next_ip + 1 };
                let host_ip = self.node_ip();
                let names: Vec<String> = pod.spec.containers.iter().map(|c| c.name.to_string()).collect();
                let msg = format!("containers with unready status: [{}]", names.join(" "));
                let pod_obj = obj.clone();
                let _ = api.patch(Kind::Pod, &key, Subresource::Status, |o| {
                    if let Object::Pod(p) = o {
                        let st = &mut p.status;
                        st.phase = PodPhase::Pending;
                        st.host_ip = s(&host_ip);
                        st.pod_ip = s(&ip);
                        st.start_time = Some(Time(now));
                        set_pod_condition(&mut st.conditions, "PodReadyToStartContainers", "False", "", "", now);
                        set_pod_condition(&mut st.conditions, "Initialized", "True", "", "", now);
                        set_pod_condition(&mut st.conditions, "Ready", "False", "ContainersNotReady", &msg, now);
                        set_pod_condition(
                            &mut st.conditions,
                            "ContainersReady",
                            "False",
                            "ContainersNotReady",
                            &msg,
                            now,
                        );
                        order_conditions(&mut st.conditions);
                        st.container_statuses = p
                            .spec
                            .containers
                            .iter()
                            .map(|c| ContainerStatus {
                                name: c.name.clone(),
                                image: c.image.clone(),
                                state: ContainerState {
                                    waiting: Some(ContainerStateWaiting {
                                        reason: s("ContainerCreating"),
                                        message: s(""),
                                    }),
                                    ..Default::default()
                                },
                                started: Some(false),
                                ..Default::default()
                            })
                            .collect();
                    }
                });
                let mut delay = 0;
                for c in &pod.spec.containers {
                    let present = self.images.contains_key(&c.image);
                    if present && &*c.image_pull_policy != "Always" {
                        rt.pulls.push(None);
                        continue;
                    }
                    let msg = format!("Pulling image \"{}\"", c.image);
                    self.recorder.event(api, &pod_obj, EventKind::Normal, "Pulling", &msg);
                    let pull = api.rng.range(runtime.image_pull.0, runtime.image_pull.1);
                    rt.pulls.push(Some(pull));
                    delay += pull;
                }
                self.pods.insert(key.clone(), rt);
                delay += api.rng.range(runtime.container_start.0, runtime.container_start.1);
                timers.push((delay, key, pod.metadata.uid.clone(), PodStep::Started));
            }
            (Some(Stage::Starting | Stage::Running), true) => {
                timers.extend(self.begin_stop(api, obj, &key, runtime, behaviours, now));
            }
            (Some(Stage::Stopping), true) => {
                // A second delete may only shorten the grace period: SIGKILL comes sooner.
                let grace = pod.metadata.deletion_grace_period_seconds.unwrap_or(0);
                let Some(rt) = self.pods.get_mut(&key) else { return timers };
                let mut due = Vec::new();
                for (i, c) in rt.containers.iter_mut().enumerate() {
                    let Some(plan) = c.stop.as_deref().copied() else { continue };
                    let next = plan.shortened(grace, now);
                    if next != plan {
                        c.stop = Some(Box::new(next));
                        due.push((i, Due::Stop, next.exit_at));
                    }
                }
                timers.extend(self.timers(&key, now, due));
            }
            // Our status was lost or overwritten (e.g. after a restart): report again.
            (Some(Stage::Running), false)
                if self.pods.get(&key).is_some_and(|rt| containers::drifted(pod, &rt.containers)) =>
            {
                self.write_status(api, &key, now);
            }
            _ => {}
        }
        timers
    }

    /// One of its timers is due (the kubelet's side of the simulation's dispatch): the heartbeat, or a pod's next
    /// step. Returns the timers it arms next, as delays from now.
    pub(crate) fn on_timer(
        &mut self,
        timer: KubeletTimer,
        api: &mut Api,
        pods: &Cache,
        runtime: &RuntimeConfig,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Vec<(Millis, KubeletTimer)> {
        match timer {
            KubeletTimer::Tick => {
                self.work.ticks += 1;
                self.tick(api, now);
                vec![(LEASE_RENEW_INTERVAL, KubeletTimer::Tick)]
            }
            KubeletTimer::Pod { key, uid, step } => {
                self.work.pod_steps += 1;
                KubeletTimer::pods(self.step(api, pods, &key, &uid, step, runtime, behaviours, now)).collect()
            }
        }
    }

    /// Its informer's notifications (pods bound to its node): the timers they arm, as delays from now.
    pub(crate) fn on_notifications(
        &mut self,
        node: usize,
        evs: &[InformerEvent],
        api: &mut Api,
        runtime: &RuntimeConfig,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Vec<(Millis, KubeletTimer)> {
        self.work.notifications += evs.len() as u64;
        let mut timers = Vec::new();
        let outer = api.cause();
        for ev in evs {
            api.because(Cause::KubeletWatch { node: node as u32, rv: ev.object().meta().resource_version });
            timers.extend(self.handle(ev, api, runtime, behaviours, now));
        }
        api.because(outer);
        KubeletTimer::pods(timers).collect()
    }

    /// A scheduled step for a pod.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn step(
        &mut self,
        api: &mut Api,
        pods: &Cache,
        key: &ObjKey,
        uid: &Str,
        step: PodStep,
        runtime: &RuntimeConfig,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Vec<PodTimer> {
        let mut due = Vec::new();
        let Some(rt) = self.pods.get(key).filter(|r| &r.uid == uid) else { return Vec::new() };
        match (step, rt.stage) {
            (PodStep::Started, Stage::Starting) => {
                let Some(obj) = pods.get(key).cloned() else { return Vec::new() };
                let Some(pod) = obj.as_pod() else { return Vec::new() };
                // The volume manager mounts the pod's volumes before any container starts.
                if let Some((volume, err)) = config::mount_error(api, pod) {
                    let msg = format!("MountVolume.SetUp failed for volume \"{volume}\" : {err}");
                    self.recorder.event(api, &obj, EventKind::Warning, "FailedMount", &msg);
                    let Some(rt) = self.pods.get_mut(key) else { return Vec::new() };
                    rt.mount_retry = config::next_mount_retry(rt.mount_retry);
                    return vec![(rt.mount_retry, key.clone(), uid.clone(), PodStep::Started)];
                }
                let pulls = rt.pulls.clone();
                self.collect_images();
                for (i, c) in pod.spec.containers.iter().enumerate() {
                    let b = self.behaviour(key, i, behaviours);
                    if b.unpullable {
                        self.pull_failed(api, &obj, key, i, now, &mut due);
                        continue;
                    }
                    self.images.insert(c.image.clone(), now);
                    let msg = match pulls.get(i).copied().flatten() {
                        Some(ms) => pulled_message(&c.image, ms),
                        None => format!("Container image \"{}\" already present on machine", c.image),
                    };
                    self.recorder.event(api, &obj, EventKind::Normal, "Pulled", &msg);
                    self.start_container(api, &obj, key, i, behaviours, now, &mut due);
                }
                if let Some(r) = self.pods.get_mut(key) {
                    r.stage = Stage::Running;
                }
                self.write_status(api, key, now);
            }
            (PodStep::Stopped, Stage::Stopping) => self.finish_stop(api, key, uid),
            (PodStep::Container { index, due: what }, Stage::Running) => {
                self.container_step(api, pods, key, usize::from(index), what, runtime, behaviours, now, &mut due);
            }
            (PodStep::Container { index, due: what @ (Due::Stop | Due::Exit) }, Stage::Stopping) => {
                return self.container_stopped(api, key, uid, usize::from(index), what, behaviours, now);
            }
            _ => {}
        }
        self.timers(key, now, due)
    }

    /// The timers for `(container, due, at)` entries of a pod.
    fn timers(&self, key: &ObjKey, now: Millis, due: Vec<(usize, Due, Millis)>) -> Vec<PodTimer> {
        let Some(rt) = self.pods.get(key) else { return Vec::new() };
        due.into_iter()
            .map(|(i, d, at)| {
                let index = u16::try_from(i).unwrap_or(u16::MAX);
                (at.saturating_sub(now), key.clone(), rt.uid.clone(), PodStep::Container { index, due: d })
            })
            .collect()
    }

    /// The behaviour of a pod's container: the pod's own setting, else its image's.
    fn behaviour(&self, key: &ObjKey, i: usize, behaviours: &Behaviours) -> Behaviour {
        match self.pods.get(key).and_then(|r| r.containers.get(i)) {
            Some(c) => c.behaviour.as_deref().cloned().unwrap_or_else(|| behaviours.of_image(&c.image)),
            None => Behaviour::default(),
        }
    }

    /// Writes the pod status the containers' states give.
    fn write_status(&mut self, api: &mut Api, key: &ObjKey, now: Millis) {
        let Some(rt) = self.pods.get(key) else { return };
        let containers = &rt.containers;
        let terminating = rt.stage == Stage::Stopping;
        let _ = api.patch(Kind::Pod, key, Subresource::Status, |o| {
            if let Object::Pod(p) = o {
                let policy = p.spec.restart_policy.clone();
                apply_status(&mut p.status, &policy, containers, terminating, now);
            }
        });
    }

    /// The containers of a pod that `container` names (all when `None`), by index; an error names what is wrong.
    fn select(&self, key: &ObjKey, container: Option<&str>) -> Result<Vec<usize>, String> {
        let rt = self
            .pods
            .get(key)
            .filter(|r| r.stage == Stage::Running)
            .ok_or_else(|| format!("pod \"{}\" has no running containers on node \"{}\"", key.name, self.name))?;
        let picked: Vec<usize> = rt
            .containers
            .iter()
            .enumerate()
            .filter(|(_, c)| container.is_none_or(|n| &*c.name == n))
            .map(|(i, _)| i)
            .collect();
        match (picked.is_empty(), container) {
            (true, Some(n)) => Err(format!("container {n} is not valid for pod {}", key.name)),
            _ => Ok(picked),
        }
    }

    /// Changes the behaviour of a pod's containers (kubeloop's own input) from now on.
    pub(crate) fn patch_behaviour(
        &mut self,
        pods: &Cache,
        key: &ObjKey,
        container: Option<&str>,
        patch: &BehaviourPatch,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Result<Vec<PodTimer>, String> {
        let picked = self.select(key, container)?;
        for &i in &picked {
            let mut b = self.behaviour(key, i, behaviours);
            patch.apply(&mut b);
            if let Some(c) = self.pods.get_mut(key).and_then(|rt| rt.containers.get_mut(i)) {
                c.behaviour = Some(Box::new(b));
            }
        }
        Ok(self.rearm(pods, key, &picked, behaviours, now))
    }

    /// An image's behaviour changed: the containers that follow it act on it from now on.
    pub(crate) fn image_behaviour_changed(
        &mut self,
        pods: &Cache,
        image: &str,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Vec<PodTimer> {
        let mut keys: Vec<(ObjKey, Vec<usize>)> = self
            .pods
            .iter()
            .filter(|(_, rt)| rt.stage == Stage::Running)
            .map(|(k, rt)| {
                let picked = rt
                    .containers
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.behaviour.is_none() && &*c.image == image)
                    .map(|(i, _)| i)
                    .collect();
                (k.clone(), picked)
            })
            .filter(|(_, v): &(ObjKey, Vec<usize>)| !v.is_empty())
            .collect();
        crate::sort::sort_by_key(&mut keys, |(k, _)| k.clone());
        let mut timers = Vec::new();
        for (key, picked) in keys {
            timers.extend(self.rearm(pods, &key, &picked, behaviours, now));
        }
        timers
    }

    /// After a behaviour change: the probes that may now change something tick again, a running process's exit
    /// follows its new `crash_after`.
    fn rearm(
        &mut self,
        pods: &Cache,
        key: &ObjKey,
        picked: &[usize],
        behaviours: &Behaviours,
        now: Millis,
    ) -> Vec<PodTimer> {
        let Some(obj) = pods.get(key).cloned() else { return Vec::new() };
        let Some(pod) = obj.as_pod() else { return Vec::new() };
        let mut due = Vec::new();
        for &i in picked {
            let b = self.behaviour(key, i, behaviours);
            let Some(spec) = pod.spec.containers.get(i) else { continue };
            let Some(rt) = self.pods.get_mut(key) else { break };
            let admitted = rt.admitted;
            let Some(c) = rt.containers.get_mut(i) else { continue };
            if let Some(since) = c.running_since() {
                let exit = b.runs_for(&pod.spec.restart_policy).map(|d| since.saturating_add(d).max(now));
                if exit != c.exit_at {
                    c.exit_at = exit;
                    if let Some(at) = exit {
                        due.push((i, Due::Exit, at));
                    }
                }
                arm_probes(c, spec, admitted, &b, now, i, &mut due);
            }
        }
        self.timers(key, now, due)
    }

    /// Crashes a pod's containers now (kubeloop's own input): each running process exits with its behaviour's
    /// exit code, and its restart policy and back-off decide what follows.
    pub(crate) fn crash(
        &mut self,
        api: &mut Api,
        pods: &Cache,
        key: &ObjKey,
        container: Option<&str>,
        behaviours: &Behaviours,
        now: Millis,
    ) -> Result<Vec<PodTimer>, String> {
        let picked = self.select(key, container)?;
        let policy = match pods.get(key).and_then(|o| o.as_pod().map(|p| p.spec.restart_policy.clone())) {
            Some(p) => p,
            None => return Err(format!("pods \"{}\" not found", key.name)),
        };
        let mut due = Vec::new();
        let mut any = false;
        for &i in &picked {
            let code = self.behaviour(key, i, behaviours).exit_code();
            let running =
                self.pods.get(key).and_then(|rt| rt.containers.get(i)).is_some_and(|c| c.running_since().is_some());
            if running {
                self.exit_container(key, i, code, &policy, now, &mut due);
                any = true;
            }
        }
        if !any {
            return Err(format!("pod \"{}\" has no running container to crash", key.name));
        }
        self.write_status(api, key, now);
        Ok(self.timers(key, now, due))
    }

    /// After the kubelet starts again: every container timer still pending is armed again (those that fell due
    /// while it was down run now).
    pub(crate) fn resume(&mut self, now: Millis) -> Vec<PodTimer> {
        let mut keys: Vec<ObjKey> =
            self.pods.iter().filter(|(_, r)| r.stage == Stage::Running).map(|(k, _)| k.clone()).collect();
        crate::sort::sort(&mut keys);
        let mut timers = Vec::new();
        for key in keys {
            let mut due = Vec::new();
            if let Some(rt) = self.pods.get_mut(&key) {
                for (i, c) in rt.containers.iter_mut().enumerate() {
                    for (at, d) in c.due() {
                        let at = at.max(now);
                        c.set_due(d, at);
                        due.push((i, d, at));
                    }
                }
            }
            timers.extend(self.timers(&key, now, due));
        }
        timers
    }

    /// The kubelet stops (process killed / node down): no more heartbeats, status or pod work. Containers keep
    /// running on the node.
    pub(crate) fn kill(&mut self) {
        self.alive = false;
        self.epoch += 1;
        self.recorder.reset();
        self.lease = None;
        self.last_report = None;
    }

    /// The kubelet starts again; the caller restarts its informer, registers it and arms its pods' timers again
    /// ([`Kubelet::resume`]).
    pub(crate) fn revive(&mut self) {
        self.alive = true;
        self.epoch += 1;
        // Running containers survived; work in flight (starting, stopping) is redone from the relist.
        self.pods.retain(|_, r| r.stage == Stage::Running);
    }
}

/// The first three octets of node `index`'s pod range, a /24 of kubeloop's cluster range 10.224.0.0/11 (8,192
/// nodes, then again from the first): 10.244.N.0/24 for the first 256 nodes (the range kind and flannel
/// default to), then the /11's other /24s in order. Upstream leaves the cluster range to the installer and
/// gives each node a /24 of it (`--node-cidr-mask-size`); a /16 alone would give nodes 256 apart the same
/// addresses.
fn pod_range(index: usize) -> String {
    let block = index % 8192;
    if block < 256 {
        return format!("10.244.{block}");
    }
    let j = block - 256;
    // The /11's second octets other than 244: 224..=243, then 245..=255.
    let second = match j / 256 {
        k @ 0..=19 => 224 + k,
        k => 225 + k,
    };
    format!("10.{second}.{}", j % 256)
}

#[cfg(test)]
#[test]
fn every_node_of_the_envelope_has_its_own_pod_range() {
    let ranges: std::collections::BTreeSet<String> = (0..8192).map(pod_range).collect();
    assert_eq!(ranges.len(), 8192);
    assert_eq!(pod_range(0), "10.244.0");
    assert_eq!(pod_range(255), "10.244.255");
    assert_eq!(pod_range(256), "10.224.0");
    assert_eq!(pod_range(8191), "10.255.255");
    assert_eq!(pod_range(8192), "10.244.0");
    for r in &ranges {
        let second: u32 = r.split('.').nth(1).and_then(|o| o.parse().ok()).expect("an octet");
        assert!((224..=255).contains(&second), "{r} is outside 10.224.0.0/11");
    }
}
