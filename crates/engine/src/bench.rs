//! The cold-start benchmark shared by `kubeloop bench` and the criterion bench: N nodes, then Deployments
//! declaring P pods in total, run until every pod is Running and every Deployment has converged; then, for
//! `kubeloop bench --steady`, the converged cluster run on under a soak workload.

use std::fmt::Write;

use crate::api::{Kind, ObjKey, PodPhase};
use crate::kubelet::NodeConfig;
use crate::rng::Rng;
use crate::sim::{Sim, SimConfig};
use crate::soak::{Driver, Workload};
use crate::store::DeleteOptions;
use crate::time::{Millis, MINUTE, SECOND};
use crate::work::Work;

/// The shape of a cold start.
#[derive(Clone, Debug)]
pub struct ColdStart {
    pub nodes: usize,
    pub pods: usize,
    /// Pods per Deployment (the last one takes the rest).
    pub per_deployment: usize,
    /// A Service in front of each Deployment (`app-N`, port 80 to the pods' 8080), so that the EndpointSlice
    /// controller follows every pod.
    pub services: bool,
    pub seed: u64,
    /// kube-system's add-ons ([`crate::addons`]) first, as every cluster has them by default: two daemon pods a
    /// node and two CoreDNS pods more to run.
    pub addons: bool,
}

impl ColdStart {
    /// Deployments of the benchmark: small requests (10m CPU, 16Mi) so that 110 fit on a default node.
    pub fn manifests(&self) -> String {
        let mut text = String::new();
        for (i, replicas) in self.replicas().into_iter().enumerate() {
            let _ = write!(
                text,
                "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: app-{i}\n  template:\n    metadata:\n      labels:\n        app: app-{i}\n    spec:\n      containers:\n      - name: app\n        image: registry.example/app:{i}\n        resources:\n          requests:\n            cpu: 10m\n            memory: 16Mi\n"
            );
            if self.services {
                let _ = write!(
                    text,
                    "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: app-{i}\nspec:\n  selector:\n    app: app-{i}\n  ports:\n  - port: 80\n    targetPort: 8080\n"
                );
            }
        }
        text
    }

    /// The add-ons' pods: kube-proxy and kindnet on every node, and CoreDNS's two.
    pub fn addon_pods(&self) -> usize {
        if self.addons {
            crate::addons::pods(self.nodes)
        } else {
            0
        }
    }

    pub fn deployments(&self) -> usize {
        self.pods.div_ceil(self.per_deployment.max(1))
    }

    /// The replicas of each Deployment, `app-0` first: `per_deployment` each, the last one the rest.
    pub fn replicas(&self) -> Vec<usize> {
        let per = self.per_deployment.max(1);
        (0..self.deployments()).map(|i| (self.pods - i * per).min(per)).collect()
    }

    /// Builds the cluster and applies the Deployments (at simulated time 0).
    pub fn build(&self) -> Result<Sim, String> {
        let template = NodeConfig::default();
        if self.pods + self.addon_pods() > self.nodes * template.pods as usize {
            return Err(format!(
                "{} pods do not fit on {} nodes of {} pods each{}",
                self.pods,
                self.nodes,
                template.pods,
                if self.addons { " with kube-system's add-ons" } else { "" }
            ));
        }
        let mut sim = Sim::new(SimConfig { seed: self.seed, ..SimConfig::default() });
        for _ in 0..self.nodes {
            sim.add_node(template.clone())?;
        }
        if self.addons {
            crate::addons::install(&mut sim)?;
        }
        if self.pods > 0 {
            crate::kubectl::apply(&mut sim, &self.manifests()).map_err(|e| e.to_string())?;
        }
        Ok(sim)
    }

    /// Runs until converged (checked every simulated second) or `cap`; the simulated time it converged at.
    pub fn converge(&self, sim: &mut Sim, cap: Millis) -> Option<Millis> {
        while sim.now() < cap {
            sim.run_for(SECOND);
            let running = sim
                .store()
                .objects(Kind::Pod)
                .filter_map(|o| o.as_pod())
                .filter(|p| p.status.phase == PodPhase::Running && !p.metadata.is_terminating())
                .count();
            if running == self.pods + self.addon_pods() && sim.deployments_converged() {
                return Some(sim.now());
            }
        }
        None
    }

    /// The steady state: runs the (converged) cluster on for `duration` of simulated time under `workload`, as
    /// `kubeloop soak` drives it (idle: leases, node status, resyncs; churn: a Deployment scaled and pods deleted
    /// every 10 minutes, a rollout every hour; faulted: churn and a fault every 20 minutes).
    pub fn steady(&self, sim: &mut Sim, workload: Workload, duration: Millis) {
        let start = sim.now();
        let mut driver = Driver::new(workload, self.seed, start, self.replicas(), self.nodes);
        driver.run_until(sim, start.saturating_add(duration));
    }
}

impl ColdStart {
    /// Churn after the cold start, `rounds` times, 30 simulated seconds apart (seeded from the run's seed): a
    /// Deployment scaled to between half and one and a half times its size, three pods of another deleted, a third
    /// rolled out to a new image. Then runs until settled again, checked every simulated second (every Deployment
    /// converged, no pod Pending or terminating), or for `cap` more; the simulated time it settled at.
    pub fn churn(&self, sim: &mut Sim, rounds: usize, cap: Millis) -> Option<Millis> {
        let deployments = self.deployments() as u64;
        let mut rng = Rng::new(self.seed ^ CHURN_STREAM);
        let rounds = if deployments == 0 { 0 } else { rounds };
        for round in 0..rounds {
            let pick = |rng: &mut Rng| ObjKey::new("default", &format!("app-{}", rng.range(0, deployments - 1)));
            let key = pick(&mut rng);
            let base = self.per_deployment.max(1) as u64;
            let replicas = rng.range(base / 2, base + base / 2);
            let _ = sim.scale(Kind::Deployment, &key, replicas.min(i32::MAX as u64) as i32);
            let app = pick(&mut rng).name;
            let victims: Vec<ObjKey> = sim
                .store()
                .objects(Kind::Pod)
                .filter(|o| o.meta().labels.get("app").is_some_and(|a| *a == app))
                .take(3)
                .map(|o| o.key())
                .collect();
            for k in victims {
                let _ = sim.delete(Kind::Pod, &k, &DeleteOptions::default());
            }
            let d = pick(&mut rng).name;
            let line = format!("set image deployment/{d} app=registry.example/app:churn-{round}");
            let _ = crate::kubectl::run(sim, &line, &crate::kubectl::Input::none());
            sim.run_for(30 * SECOND);
        }
        let end = sim.now().saturating_add(cap);
        while sim.now() < end {
            sim.run_for(SECOND);
            let (_, pending, terminating) = sim.pod_counts();
            if pending == 0 && terminating == 0 && sim.deployments_converged() {
                return Some(sim.now());
            }
        }
        None
    }
}

/// Salt of the churn's choices (`churn` in ASCII).
const CHURN_STREAM: u64 = 0x63_6875_726e;

/// The work section of `kubeloop bench`: every figure of [`Work::figures`] and any the measuring binary adds
/// (peak live bytes), one a line.
pub fn work_text(work: &Work, extra: &[(String, u64)]) -> String {
    let mut text = String::from("work:\n");
    for (name, v) in work.figures().iter().chain(extra) {
        let _ = writeln!(text, "  {name:<48} {v}");
    }
    text
}

/// The default cap on a benchmark run.
pub const CAP: Millis = 30 * MINUTE;
