//! The seed's lessons as one-click presets, as data: each builds a fresh simulation with the page's seed (nodes and
//! manifests), then the page runs a short script of timed actions as simulated time passes, and the lesson panel
//! says what to watch. The engine's tests (`crates/engine/tests/lessons.rs`, `lifecycle.rs`) are the same lessons.

use kubeloop_engine::controller::TriggerMode;
use kubeloop_engine::time::{Millis, MINUTE, SECOND};

use crate::examples::WEB;

/// One step of a lesson's script. Steps that name an object (a pod, the ReplicaSet, a node) resolve it when they
/// run and go through kubectl or the same Sim call a button makes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// A kubectl line, run through the engine's kubectl.
    Kubectl(&'static str),
    /// `kubectl delete pod <a running web pod> --wait=false`
    DeleteOnePod,
    /// Kills the kubelet of the node the first running web pod is on.
    KillNodeOfAPod,
    /// Revives every killed kubelet.
    ReviveNodes,
    /// `kubectl scale replicaset <web's ReplicaSet> --replicas=N`
    ScaleReplicaSet(i32),
    /// `kubectl apply` of the lesson's manifests, unchanged.
    ApplyAgain,
    Trigger(TriggerMode),
    /// Polling (`true`) or informers.
    Observe(bool),
    /// Percent of the control plane's watch events lost.
    DropWatch(u32),
    /// Percent of updates answered 409 Conflict.
    Conflicts(u32),
    /// Pod creates refused (403 exceeded quota).
    RejectCreates(bool),
    /// Crash / restart a control-plane process by host index.
    Crash(kubeloop_engine::sim::HostId),
    Restart(kubeloop_engine::sim::HostId),
    /// 410 Gone on every control-plane informer: they relist.
    ForceRelist,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// Simulated time after the lesson started.
    pub at: Millis,
    pub label: &'static str,
    pub action: Action,
}

/// Live figures a lesson shows next to its explanation (all read from the simulation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Per Deployment: desired replicas and pods really running.
    Deployments,
    /// spec.replicas of the Deployment and of its ReplicaSets.
    ReplicaSetSpec,
    /// resourceVersion of the Deployment, ReplicaSet and pods, and the store's.
    ResourceVersions,
    /// Drift, relists, and the ReplicaSet controller's trigger mode.
    Drift,
    /// API reads per minute in both modes.
    Reads,
    /// 409 Conflicts per client.
    Conflicts,
    /// The controller managers and the Lease holder.
    Leader,
    /// The retry delays of the ReplicaSet controller's failed reconciles.
    RetryDelays,
    /// Killed nodes: Ready condition and taints.
    DeadNodes,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lesson {
    pub id: &'static str,
    pub title: &'static str,
    /// Two sentences: what happens and what to watch.
    pub watch: &'static str,
    pub nodes: usize,
    pub manifests: &'static str,
    pub steps: &'static [Step],
    pub figures: &'static [Figure],
    /// The lesson is about node failure: offer the fast demo timings.
    pub offer_fast_demo: bool,
    /// Speed the lesson suggests (it is set when the lesson starts).
    pub speed: u32,
    /// The event stream's controller filter while the lesson runs (the rows that matter).
    pub events: Option<&'static str>,
}

const WEB_FAST_EXIT: &str = "\
# A web tier: 3 nginx replicas that stop within 5 s.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      terminationGracePeriodSeconds: 5
      containers:
      - name: nginx
        image: nginx:1.27
        resources:
          requests:
            cpu: 250m
            memory: 128Mi
";

const THOUSAND_PODS: &str = concat!(
    "# 1,000 pods on 10 nodes: web (3) and batch (997 small pods).\n",
    crate::web_deployment!(),
    "\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: batch
spec:
  replicas: 997
  selector:
    matchLabels:
      app: batch
  template:
    metadata:
      labels:
        app: batch
    spec:
      containers:
      - name: worker
        image: busybox:1.36
        resources:
          requests:
            cpu: 5m
            memory: 8Mi
"
);

use kubeloop_engine::sim::{CONTROLLER_MANAGER as CM1, CONTROLLER_MANAGER_2 as CM2};

pub const LESSONS: [Lesson; 8] = [
    Lesson {
        id: "self-healing",
        title: "Self-healing",
        watch: "A deleted pod is replaced within seconds: the ReplicaSet controller sees one pod fewer than desired and creates one. \
                A killed node keeps its pods until the node lifecycle controller marks it Unknown (after the grace period) and taints it; \
                after the toleration (300 s, or 30 s with the fast demo timings) the pods are evicted (Terminating) and replaced on the other nodes.",
        nodes: 3,
        manifests: WEB,
        steps: &[
            Step { at: 15 * SECOND, label: "delete one web pod", action: Action::DeleteOnePod },
            Step { at: 45 * SECOND, label: "kill the kubelet of a node that runs a web pod", action: Action::KillNodeOfAPod },
        ],
        figures: &[Figure::Deployments, Figure::DeadNodes],
        offer_fast_demo: true,
        speed: 10,
        events: None,
    },
    Lesson {
        id: "hand-edits",
        title: "Hand edits are reverted",
        watch: "Someone scales the ReplicaSet to 6 by hand: its controller starts 3 more pods. \
                The Deployment owns that field: on its next sync it sets spec.replicas back to 3 and the extra pods are deleted.",
        nodes: 3,
        manifests: WEB,
        steps: &[Step { at: 15 * SECOND, label: "scale the ReplicaSet directly to 6", action: Action::ScaleReplicaSet(6) }],
        figures: &[Figure::ReplicaSetSpec, Figure::Deployments],
        offer_fast_demo: false,
        speed: 1,
        events: None,
    },
    Lesson {
        id: "idempotency",
        title: "Idempotency",
        watch: "The same manifest is applied again, twice: kubectl reports it unchanged and writes nothing. \
                The resourceVersions of the Deployment, its ReplicaSet and its pods stay where they are; only the store's counter moves (node heartbeats, leases).",
        nodes: 3,
        manifests: WEB,
        steps: &[
            Step { at: 20 * SECOND, label: "kubectl apply the same manifest", action: Action::ApplyAgain },
            Step { at: 40 * SECOND, label: "kubectl apply it once more", action: Action::ApplyAgain },
        ],
        figures: &[Figure::ResourceVersions],
        offer_fast_demo: false,
        speed: 1,
        events: None,
    },
    Lesson {
        id: "edge-vs-level",
        title: "Edge vs level",
        watch: "The ReplicaSet controller runs edge-triggered; the control plane's informers lose every watch event while the pods are deleted (a fault no real watch has), so the deletions are never heard. \
                As upstream's, the informers never relist on a timer: their watches end every 5 to 10 min and resume where they were, so the caches stay wrong (drift). \
                At 3 min the API server answers every watch with 410 Gone: the informers LIST again and the caches are right (drift 0), but the replicas stay missing; switched to level, the next 410 relist heals it.",
        nodes: 3,
        manifests: WEB_FAST_EXIT,
        steps: &[
            Step { at: 0, label: "trigger mode: edge (the ReplicaSet controller)", action: Action::Trigger(TriggerMode::Edge) },
            Step { at: 30 * SECOND, label: "drop 100% of the control plane's watch events", action: Action::DropWatch(100) },
            Step { at: 31 * SECOND, label: "kubectl delete pods -l app=web --wait=false", action: Action::Kubectl("delete pods -l app=web --wait=false") },
            Step { at: 40 * SECOND, label: "stop dropping watch events", action: Action::DropWatch(0) },
            Step { at: 3 * MINUTE, label: "410: force every control-plane informer to relist", action: Action::ForceRelist },
            Step { at: 7 * MINUTE, label: "trigger mode: level", action: Action::Trigger(TriggerMode::Level) },
            Step { at: 8 * MINUTE, label: "410: force every control-plane informer to relist", action: Action::ForceRelist },
        ],
        figures: &[Figure::Deployments, Figure::Drift],
        offer_fast_demo: false,
        speed: 10,
        events: Some("replicaset"),
    },
    Lesson {
        id: "polling-vs-informers",
        title: "Polling vs informers",
        watch: "1,000 pods: informers LIST once and then receive only the changes, while polling LISTs every object of every kind every 5 s. \
                Compare the API reads per simulated minute of both modes (informers first, polling from 4 min, informers again from 6 min).",
        nodes: 10,
        manifests: THOUSAND_PODS,
        steps: &[
            Step { at: 4 * MINUTE, label: "observe mode: polling (every 5 s)", action: Action::Observe(true) },
            Step { at: 6 * MINUTE, label: "observe mode: informers", action: Action::Observe(false) },
        ],
        figures: &[Figure::Reads, Figure::Deployments],
        offer_fast_demo: false,
        speed: 10,
        events: None,
    },
    Lesson {
        id: "conflicts",
        title: "Conflicts",
        watch: "Half of the controllers' updates fail with 409 Conflict, as if another writer had got there first: the reconcile errors, is retried with backoff, re-reads and writes again. \
                Nothing is lost: the scale-up to 6 converges, only later.",
        nodes: 3,
        manifests: WEB,
        steps: &[
            Step { at: 10 * SECOND, label: "inject 409 Conflict into 50% of updates", action: Action::Conflicts(50) },
            Step { at: 12 * SECOND, label: "kubectl scale deployment web --replicas=6", action: Action::Kubectl("scale deployment web --replicas=6") },
            Step { at: 60 * SECOND, label: "stop injecting conflicts", action: Action::Conflicts(0) },
        ],
        figures: &[Figure::Conflicts, Figure::Deployments],
        offer_fast_demo: false,
        speed: 1,
        events: None,
    },
    Lesson {
        id: "control-plane-down",
        title: "Control plane down",
        watch: "Both kube-controller-manager replicas crash: the pods keep running (the kubelets run them), but a deleted pod is not replaced. \
                One replica restarts, wins the Lease once the old holder's record expires, lists everything and heals the Deployment.",
        nodes: 3,
        manifests: WEB,
        steps: &[
            Step { at: 15 * SECOND, label: "crash kube-controller-manager cp-1", action: Action::Crash(CM1) },
            Step { at: 15 * SECOND, label: "crash kube-controller-manager cp-2", action: Action::Crash(CM2) },
            Step { at: 30 * SECOND, label: "delete one web pod", action: Action::DeleteOnePod },
            Step { at: 90 * SECOND, label: "restart kube-controller-manager cp-2", action: Action::Restart(CM2) },
        ],
        figures: &[Figure::Leader, Figure::Deployments],
        offer_fast_demo: false,
        speed: 10,
        events: None,
    },
    Lesson {
        id: "backoff",
        title: "Backoff",
        watch: "Pod creates are refused (403 exceeded quota) while web scales to 5: each failed reconcile of the ReplicaSet is requeued with a delay that doubles, 5 ms, 10 ms, 20 ms... (see ⟳ Error rows, \"retry in\"). \
                When the quota fault is lifted, the next retry succeeds and the pods come.",
        nodes: 3,
        manifests: WEB,
        steps: &[
            Step { at: 10 * SECOND, label: "refuse pod creates (quota)", action: Action::RejectCreates(true) },
            Step { at: 11 * SECOND, label: "kubectl scale deployment web --replicas=5", action: Action::Kubectl("scale deployment web --replicas=5") },
            Step { at: 40 * SECOND, label: "accept pod creates again", action: Action::RejectCreates(false) },
        ],
        figures: &[Figure::RetryDelays, Figure::Deployments],
        offer_fast_demo: false,
        speed: 1,
        events: Some("replicaset"),
    },
];

pub fn find(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lessons_are_well_formed() {
        for l in &LESSONS {
            assert!(find(l.id).is_some());
            assert!(l.steps.windows(2).all(|w| w[0].at <= w[1].at), "{}: steps in time order", l.id);
            assert!(kubeloop_engine::manifest::parse(l.manifests).is_ok(), "{}", l.id);
        }
    }
}
