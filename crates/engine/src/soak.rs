//! Soak: a cluster run for a long simulated time under a workload (idle, churning, or churning with faults),
//! sampled as it goes, and a verdict on whether what the engine holds stayed flat. Shared by `kubeloop soak` (the
//! long runs: days of simulated time, thousands of nodes, with the process's memory) and the soak tests (CI's
//! short share).

use crate::api::{Kind, ObjKey, PodPhase};
use crate::footprint::Footprint;
use crate::kubectl;
use crate::kubelet::NodeConfig;
use crate::rng::Rng;
use crate::sim::{Sim, SimConfig, CONTROLLER_MANAGER};
use crate::store::DeleteOptions;
use crate::time::{Millis, HOUR, MINUTE, SECOND};

/// What happens to the cluster while it soaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Nothing after the start: leases, node status, resyncs and relists only.
    Idle,
    /// Every 10 simulated minutes: a Deployment scaled, pods deleted; every hour a rollout.
    Churn,
    /// Churn, plus a fault every 20 minutes: dropped watch events, cut watches, 410s, conflicts and latency, the
    /// leading controller manager crashed and restarted, a node's kubelet killed and revived.
    Faulted,
}

impl Workload {
    pub fn parse(s: &str) -> Result<Workload, String> {
        match s {
            "idle" => Ok(Workload::Idle),
            "churn" => Ok(Workload::Churn),
            "faulted" => Ok(Workload::Faulted),
            _ => Err(format!("unknown workload {s:?}: idle, churn or faulted")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Workload::Idle => "idle",
            Workload::Churn => "churn",
            Workload::Faulted => "faulted",
        }
    }
}

/// The shape of a soak.
#[derive(Clone, Debug)]
pub struct SoakConfig {
    pub seed: u64,
    pub nodes: usize,
    /// Pods declared in total, over ten Deployments.
    pub pods: usize,
    pub duration: Millis,
    /// How often a sample is taken.
    pub sample_every: Millis,
    pub workload: Workload,
    /// A Service in front of each Deployment (the EndpointSlice controller follows every pod).
    pub services: bool,
    /// kube-system's add-ons ([`crate::addons`]), as every cluster has them by default.
    pub addons: bool,
}

/// One look at the engine during a soak.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    pub at: Millis,
    pub footprint: Footprint,
    pub events_processed: u64,
    pub pods_running: usize,
}

const DEPLOYMENTS: usize = 10;

/// A running soak.
pub struct Soak {
    pub sim: Sim,
    pub config: SoakConfig,
    driver: Driver,
}

/// A workload acting on a running cluster whose Deployments are `app-0`, `app-1`, ... (labelled `app: app-<i>`,
/// one container `app`): what `kubeloop soak` runs from the start and `kubeloop bench --steady` runs once its cold
/// start has converged.
pub struct Driver {
    workload: Workload,
    /// The replicas each Deployment was declared with, by index.
    replicas: Vec<usize>,
    /// Nodes of the cluster (`node-1` ...), for the faults that kill one.
    nodes: usize,
    rng: Rng,
    next_churn: Millis,
    next_fault: Millis,
    /// Faults to undo, and when.
    undo: Vec<(Millis, Undo)>,
    image: u32,
}

#[derive(Clone, Debug)]
enum Undo {
    ApiFaults,
    Drop,
    Restart(crate::sim::HostId),
    Revive(String),
}

impl Soak {
    /// Builds the cluster (nodes, ten Deployments declaring `pods`) and lets it start for a minute.
    pub fn new(config: SoakConfig) -> Result<Soak, String> {
        let template = NodeConfig::default();
        if config.nodes == 0 || config.nodes > crate::limits::MAX_NODES {
            return Err(format!("--nodes must be between 1 and {}", crate::limits::MAX_NODES));
        }
        if config.pods > config.nodes * template.pods as usize / 2 {
            return Err(format!(
                "{} pods need at least {} nodes (half full, for churn)",
                config.pods,
                config.pods * 2 / 110
            ));
        }
        let mut sim = Sim::new(SimConfig { seed: config.seed, ..SimConfig::default() });
        for _ in 0..config.nodes {
            sim.add_node(template.clone())?;
        }
        if config.addons {
            crate::addons::install(&mut sim)?;
        }
        let replicas: Vec<usize> = (0..DEPLOYMENTS).map(|i| soak_replicas(config.pods, i)).collect();
        let mut manifests: String = replicas.iter().enumerate().map(|(i, r)| deployment(i, *r)).collect();
        if config.services {
            manifests.extend((0..DEPLOYMENTS).map(service));
        }
        let driver = Driver::new(config.workload, config.seed, 0, replicas, config.nodes);
        let mut soak = Soak { sim, config, driver };
        kubectl::apply(&mut soak.sim, &manifests).map_err(|e| e.to_string())?;
        soak.sim.run_for(MINUTE);
        Ok(soak)
    }

    /// A sample of the engine now.
    pub fn sample(&self) -> Sample {
        let pods_running = self
            .sim
            .store()
            .objects(Kind::Pod)
            .filter(|o| o.as_pod().is_some_and(|p| p.status.phase == PodPhase::Running))
            .count();
        Sample {
            at: self.sim.now(),
            footprint: self.sim.footprint(),
            events_processed: self.sim.events_processed(),
            pods_running,
        }
    }

    /// Runs to the end, calling `on_sample` every `sample_every` (and at the start and the end).
    pub fn run(&mut self, mut on_sample: impl FnMut(&Sample)) -> Vec<Sample> {
        let mut samples = vec![self.sample()];
        on_sample(&samples[0]);
        let every = self.config.sample_every.max(MINUTE);
        let mut next_sample = self.sim.now() + every;
        let end = self.config.duration;
        while self.sim.now() < end {
            let t = next_sample.min(self.driver.next_action_at()).min(end);
            self.sim.run_until(t);
            self.driver.act(&mut self.sim);
            if self.sim.now() >= next_sample || self.sim.now() >= end {
                let s = self.sample();
                on_sample(&s);
                samples.push(s);
                next_sample += every;
            }
        }
        samples
    }
}

/// The replicas of the soak's Deployment `i` of ten: a tenth of `pods` each, the last one the rest.
fn soak_replicas(pods: usize, i: usize) -> usize {
    let per = pods / DEPLOYMENTS;
    if i + 1 == DEPLOYMENTS {
        pods - per * (DEPLOYMENTS - 1)
    } else {
        per
    }
}

/// The soak's Deployment `i`, at the first image.
fn deployment(i: usize, replicas: usize) -> String {
    format!(
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: app-{i}\n  template:\n    metadata:\n      labels:\n        app: app-{i}\n    spec:\n      terminationGracePeriodSeconds: 10\n      containers:\n      - name: app\n        image: registry.example/app:1\n        resources:\n          requests:\n            cpu: 10m\n            memory: 16Mi\n"
    )
}

/// The soak's Service `i`, in front of Deployment `i` (port 80 to 8080).
fn service(i: usize) -> String {
    format!(
        "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: app-{i}\nspec:\n  selector:\n    app: app-{i}\n  ports:\n  - port: 80\n    targetPort: 8080\n"
    )
}

impl Driver {
    /// A workload starting at simulated time `start` (its first churn 10 minutes later, its first fault 20) on a
    /// cluster of `nodes` nodes whose Deployment `app-<i>` was declared with `replicas[i]` replicas.
    pub fn new(workload: Workload, seed: u64, start: Millis, replicas: Vec<usize>, nodes: usize) -> Driver {
        Driver {
            workload,
            replicas,
            nodes,
            rng: Rng::new(seed ^ 0x50_414b),
            next_churn: start + 10 * MINUTE,
            next_fault: start + 20 * MINUTE,
            undo: Vec::new(),
            image: 1,
        }
    }

    /// Runs `sim` until `end`, acting whenever something is due.
    pub fn run_until(&mut self, sim: &mut Sim, end: Millis) {
        while sim.now() < end {
            sim.run_until(self.next_action_at().min(end));
            self.act(sim);
        }
    }

    /// When the next action is due (`Millis::MAX` when idle).
    pub fn next_action_at(&self) -> Millis {
        let mut t = Millis::MAX;
        if self.workload != Workload::Idle {
            t = t.min(self.next_churn);
        }
        if self.workload == Workload::Faulted {
            t = t.min(self.next_fault);
        }
        self.undo.iter().map(|(at, _)| *at).fold(t, Millis::min)
    }

    /// Performs whatever is due now.
    pub fn act(&mut self, sim: &mut Sim) {
        let now = sim.now();
        let due: Vec<Undo> = self.undo.iter().filter(|(at, _)| *at <= now).map(|(_, u)| u.clone()).collect();
        self.undo.retain(|(at, _)| *at > now);
        for u in due {
            match u {
                Undo::ApiFaults => sim.set_faults(crate::faults::Faults::default()),
                Undo::Drop => sim.set_watch_drop(0.0),
                Undo::Restart(h) => sim.restart_host(h),
                Undo::Revive(n) => {
                    let _ = sim.revive_node(&n);
                }
            }
        }
        if self.workload != Workload::Idle && now >= self.next_churn {
            self.churn(sim);
            self.next_churn += 10 * MINUTE;
        }
        if self.workload == Workload::Faulted && now >= self.next_fault {
            self.fault(sim);
            self.next_fault += 20 * MINUTE;
        }
    }

    /// One Deployment scaled to between half and one and a half times its replicas, three pods of another
    /// deleted, and once an hour a third one rolled out to a new image.
    fn churn(&mut self, sim: &mut Sim) {
        let Some(last) = self.replicas.len().checked_sub(1) else { return };
        let last = last as u64;
        let i = self.rng.range(0, last) as usize;
        let base = self.replicas[i] as u64;
        let replicas = self.rng.range(base / 2, base + base / 2 + 1);
        let key = ObjKey::new("default", &format!("app-{i}"));
        let _ = sim.scale(Kind::Deployment, &key, replicas.min(i32::MAX as u64) as i32);
        // Delete a few pods of another Deployment.
        let j = self.rng.range(0, last);
        let victims: Vec<ObjKey> = sim
            .store()
            .objects(Kind::Pod)
            .filter(|o| o.meta().labels.get("app").is_some_and(|a| **a == *format!("app-{j}")))
            .take(3)
            .map(|o| o.key())
            .collect();
        for k in victims {
            let _ = sim.delete(Kind::Pod, &k, &DeleteOptions::default());
        }
        if sim.now() % HOUR < 10 * MINUTE {
            self.image += 1;
            let d = self.rng.range(0, last);
            let line = format!("set image deployment/app-{d} app=registry.example/app:{}", self.image);
            let _ = kubectl::run(sim, &line, &kubectl::Input::none());
        }
    }

    fn fault(&mut self, sim: &mut Sim) {
        let now = sim.now();
        match self.rng.range(0, 5) {
            0 => {
                sim.set_watch_drop(0.2);
                self.undo.push((now + 2 * MINUTE, Undo::Drop));
            }
            1 => sim.disconnect_all_watches(),
            2 => {
                for id in sim.control_plane_informers() {
                    sim.force_relist(id);
                }
            }
            3 => {
                let faults = crate::faults::Faults { conflict_fraction: 0.1, api_latency: 20, ..Default::default() };
                sim.set_faults(faults);
                self.undo.push((now + 5 * MINUTE, Undo::ApiFaults));
            }
            4 => {
                let h = sim.controller_manager_leader().unwrap_or(CONTROLLER_MANAGER);
                sim.crash_host(h);
                self.undo.push((now + 30 * SECOND, Undo::Restart(h)));
            }
            _ => {
                let n = self.rng.range(1, self.nodes as u64);
                let name = format!("node-{n}");
                if sim.kill_node(&name).is_ok() {
                    self.undo.push((now + 3 * MINUTE, Undo::Revive(name)));
                }
            }
        }
    }
}

/// Whether a soak stayed flat: after the first quarter (warm-up: caches fill, Events reach their TTL, the event
/// aggregation caches fill), no structure holds more in the last quarter than its most in the second quarter plus
/// `slack` (a fraction) and a few entries. `Err` names the structures that grew.
///
/// The watch cache is judged by what bounds it instead: it keeps the last 75 s of each kind's writes (and at
/// most its capacity), so its size follows the write rate of the minute before a sample (a rollout just before
/// one makes it spike), not time. Every sample must show no version kept past the window.
pub fn verdict(samples: &[Sample], slack: f64) -> Result<(), String> {
    if samples.len() < 8 {
        return Err(format!("too few samples ({}) to judge", samples.len()));
    }
    let q = samples.len() / 4;
    let second = &samples[q..2 * q];
    let last = &samples[samples.len() - q..];
    type Field = (&'static str, fn(&Footprint) -> usize);
    let fields: [Field; 8] = [
        ("objects", |f| f.objects),
        ("open_watches", |f| f.open_watches),
        ("buffered_events", |f| f.buffered_events),
        ("cached_objects", |f| f.cached_objects),
        ("timers", |f| f.timers),
        ("controller_entries", |f| f.controller_entries),
        ("kubelet_entries", |f| f.kubelet_entries),
        ("event_expirations", |f| f.event_expirations),
    ];
    // Bounded rings fill for a long time before they plateau: they are held to their bounds instead.
    for s in samples {
        let f = &s.footprint;
        let rings = [
            ("recorder_entries", f.recorder_entries, crate::recorder::CACHES * crate::recorder::LRU_SIZE * f.recorders),
            ("event_log", f.event_log, crate::store::EVENT_LOG_CAPACITY),
            ("reconcile_log", f.reconcile_log, crate::controller::RECONCILE_LOG_CAPACITY),
            ("images", f.images, (crate::limits::MAX_IMAGES_PER_NODE + 8) * s.footprint.kubelets),
            ("history", f.history, f.history_capacity),
        ];
        for (name, n, bound) in rings {
            if n > bound {
                return Err(format!("at {} ms: {name} holds {n}, over its bound {bound}", s.at));
            }
        }
    }
    let mut grew = Vec::new();
    for (name, get) in fields {
        let before = second.iter().map(|s| get(&s.footprint)).max().unwrap_or(0);
        let after = last.iter().map(|s| get(&s.footprint)).max().unwrap_or(0);
        let bound = (before as f64 * (1.0 + slack)).ceil() as usize + 64;
        if after > bound {
            grew.push(format!("{name} {before} -> {after}"));
        }
    }
    for s in samples {
        if s.footprint.history_beyond_window > 0 {
            return Err(format!(
                "at {} ms: the watch cache keeps {} versions older than its window",
                s.at, s.footprint.history_beyond_window
            ));
        }
        if s.footprint.open_watches > s.footprint.watching_informers {
            return Err(format!(
                "at {} ms: {} open watches for {} watching informers",
                s.at, s.footprint.open_watches, s.footprint.watching_informers
            ));
        }
    }
    if grew.is_empty() {
        Ok(())
    } else {
        Err(format!("grew: {}", grew.join(", ")))
    }
}
