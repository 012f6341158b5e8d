//! The kubelet of one simulated node: it registers its Node, renews its Lease in `kube-node-lease` every 10 s,
//! reports node status, watches the pods bound to it (field selector `spec.nodeName`), pulls images and starts
//! containers after seeded delays, reports pod status, and on deletion stops the containers and confirms the
//! delete. The kubelet is the only writer of pod status after scheduling.

use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::api::{
    s, ContainerState, ContainerStateRunning, ContainerStateWaiting, ContainerStatus, Kind, Labels, Lease, Node,
    NodeAddress, NodeCondition, NodeSystemInfo, ObjKey, Object, ObjectMeta, OwnerReference, PodPhase, Quantity, Str,
    Taint, Time,
};
use crate::client::Api;
use crate::informer::{InformerEvent, InformerId};
use crate::recorder::{EventKind, Recorder};
use crate::store::{set_pod_condition, ClientId, DeleteOptions, Subresource};
use crate::time::{Millis, MINUTE, SECOND};

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
pub fn image_size_bytes(image: &str) -> u64 {
    let h = crate::store::fnv1a(0xcbf2_9ce4_8422_2325, image.as_bytes());
    20_000_000 + h % 200_000_000
}

/// The kubelet's condition types, in the order its status manager writes them (pkg/kubelet/kubelet_pods.go
/// `generateAPIPodStatus`, merged by pkg/kubelet/status/status_manager.go `mergePodStatus`): conditions the
/// kubelet does not own (DisruptionTarget) first, as they were, then these.
const KUBELET_CONDITIONS: [&str; 5] =
    ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"];

/// Puts a pod's conditions in the kubelet's order (a stable sort: others keep theirs, first).
pub fn order_conditions(conds: &mut [crate::api::PodCondition]) {
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

/// Timings of the container runtime (seeded ranges, milliseconds).
#[derive(Clone, Debug)]
pub struct RuntimeConfig {
    pub image_pull: (Millis, Millis),
    pub container_start: (Millis, Millis),
    pub container_stop: (Millis, Millis),
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
    pub uid: Str,
    pub stage: Stage,
    /// Per container, how long its image pull took (`None`: already present).
    pub pulls: Vec<Option<Millis>>,
    /// The images its containers run (kept from image garbage collection).
    pub images: Vec<Str>,
}

/// Steps the simulation schedules for a kubelet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PodStep {
    /// Images pulled, containers created and started.
    Started,
    /// Containers stopped after a deletion: confirm it.
    Stopped,
}

/// A timer the kubelet asks the simulation for: `(delay, key, uid, step)`.
pub type PodTimer = (Millis, ObjKey, Str, PodStep);

pub struct Kubelet {
    pub name: Str,
    pub index: usize,
    pub config: NodeConfig,
    pub alive: bool,
    pub epoch: u64,
    pub informer: InformerId,
    pub client: ClientId,
    pub recorder: Recorder,
    pub pods: FxHashMap<ObjKey, PodRuntime>,
    /// Images on the node, with when each was last used by a starting container.
    images: FxHashMap<Str, Millis>,
    lease: Option<Rc<Object>>,
    last_report: Option<(Millis, crate::api::NodeStatus)>,
    next_ip: u32,
}

impl Kubelet {
    pub fn new(index: usize, config: NodeConfig, informer: InformerId, client: ClientId) -> Self {
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
        }
    }

    /// Pods this kubelet runs (its entries besides images and the recorder's bounded LRU).
    pub fn footprint(&self) -> usize {
        self.pods.len()
    }

    /// Images on the node (bounded by image garbage collection).
    pub fn image_count(&self) -> usize {
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
    pub fn register(&mut self, api: &mut Api, now: Millis) {
        let mut node = registered_node(&self.config);
        node.spec.pod_cidr = s(&format!("10.244.{}.0/24", self.index % 256));
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
    pub fn renew_lease(&mut self, api: &mut Api, now: Millis) {
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
                    let node_uid = api.store.peek(Kind::Node, &self.node_key()).map(|n| n.meta().uid.clone());
                    api.create(Object::Lease(build(None, node_uid)))
                }
            },
        };
        self.lease = result.ok();
    }

    /// Every 10 s: renew the lease; write node status if it changed or 5 minutes passed.
    pub fn tick(&mut self, api: &mut Api, now: Millis) {
        self.renew_lease(api, now);
        let current = api.store.peek(Kind::Node, &self.node_key()).cloned();
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
    pub fn handle(&mut self, ev: &InformerEvent, api: &mut Api, runtime: &RuntimeConfig, now: Millis) -> Vec<PodTimer> {
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
        if pod.status.phase.is_terminal() {
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
                let mut rt =
                    PodRuntime { uid: pod.metadata.uid.clone(), stage: Stage::Starting, pulls: Vec::new(), images };
                let ip = format!("10.244.{}.{}", self.index % 256, self.next_ip);
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
                if let Some(r) = self.pods.get_mut(&key) {
                    r.stage = Stage::Stopping;
                }
                for c in &pod.spec.containers {
                    let msg = format!("Stopping container {}", c.name);
                    self.recorder.event(api, obj, EventKind::Normal, "Killing", &msg);
                }
                let grace = crate::time::seconds(pod.metadata.deletion_grace_period_seconds.unwrap_or(30));
                let stop = api.rng.range(runtime.container_stop.0, runtime.container_stop.1).min(grace);
                timers.push((stop, key, pod.metadata.uid.clone(), PodStep::Stopped));
            }
            (Some(Stage::Running), false) if !pod.is_ready() => {
                // Our status was lost or overwritten (e.g. after a restart): report again.
                self.report_running(api, &key, now);
            }
            _ => {}
        }
        timers
    }

    /// A scheduled step for a pod.
    pub fn step(&mut self, api: &mut Api, key: &ObjKey, uid: &Str, step: PodStep, now: Millis) {
        let Some(rt) = self.pods.get(key).filter(|r| &r.uid == uid) else { return };
        match (step, rt.stage) {
            (PodStep::Started, Stage::Starting) => {
                let Some(obj) = api.store.peek(Kind::Pod, key).cloned() else { return };
                let Some(pod) = obj.as_pod() else { return };
                let pulls = rt.pulls.clone();
                self.collect_images();
                for (i, c) in pod.spec.containers.iter().enumerate() {
                    self.images.insert(c.image.clone(), now);
                    let msg = match pulls.get(i).copied().flatten() {
                        Some(ms) => {
                            // pkg/kubelet/images/image_manager.go (1.34): the pull time, the time including
                            // waiting for the puller (the same here: pulls do not queue), and the image's size.
                            let took = crate::time::go_duration_string(ms);
                            format!(
                                "Successfully pulled image \"{}\" in {took} ({took} including waiting). Image size: {} bytes.",
                                c.image,
                                image_size_bytes(&c.image)
                            )
                        }
                        None => format!("Container image \"{}\" already present on machine", c.image),
                    };
                    self.recorder.event(api, &obj, EventKind::Normal, "Pulled", &msg);
                    self.recorder.event(
                        api,
                        &obj,
                        EventKind::Normal,
                        "Created",
                        &format!("Created container: {}", c.name),
                    );
                    self.recorder.event(
                        api,
                        &obj,
                        EventKind::Normal,
                        "Started",
                        &format!("Started container {}", c.name),
                    );
                }
                if let Some(r) = self.pods.get_mut(key) {
                    r.stage = Stage::Running;
                }
                self.report_running(api, key, now);
            }
            (PodStep::Stopped, Stage::Stopping) => {
                let opts = DeleteOptions {
                    grace_period_seconds: Some(0),
                    preconditions_uid: Some(uid.clone()),
                    ..Default::default()
                };
                let _ = api.delete(Kind::Pod, key, &opts);
            }
            _ => {}
        }
    }

    fn report_running(&mut self, api: &mut Api, key: &ObjKey, now: Millis) {
        let _ = api.patch(Kind::Pod, key, Subresource::Status, |o| {
            if let Object::Pod(p) = o {
                let st = &mut p.status;
                st.phase = PodPhase::Running;
                set_pod_condition(&mut st.conditions, "PodReadyToStartContainers", "True", "", "", now);
                set_pod_condition(&mut st.conditions, "Ready", "True", "", "", now);
                set_pod_condition(&mut st.conditions, "ContainersReady", "True", "", "", now);
                order_conditions(&mut st.conditions);
                for c in &mut st.container_statuses {
                    c.ready = true;
                    c.started = Some(true);
                    c.state = ContainerState {
                        running: Some(ContainerStateRunning { started_at: Some(Time(now)) }),
                        ..Default::default()
                    };
                }
            }
        });
    }

    /// The kubelet stops (process killed / node down): no more heartbeats, status or pod work. Containers keep
    /// running on the node.
    pub fn kill(&mut self) {
        self.alive = false;
        self.epoch += 1;
        self.recorder.reset();
        self.lease = None;
        self.last_report = None;
    }

    /// The kubelet starts again; the caller restarts its informer and registers it.
    pub fn revive(&mut self) {
        self.alive = true;
        self.epoch += 1;
        // Running containers survived; work in flight (starting, stopping) is redone from the relist.
        self.pods.retain(|_, r| r.stage == Stage::Running);
    }

    /// Pods the kubelet considers running, by key (for the UI).
    pub fn running(&self) -> usize {
        self.pods.values().filter(|r| r.stage == Stage::Running).count()
    }
}
