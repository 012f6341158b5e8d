//! The seed's lessons as one-click presets. Each is a scenario file (`examples/lessons/ID.yaml`: nodes, manifests
//! and timed actions, each action labelled) plus its presentation here (title, what to watch, the figures to show).
//! The page builds the scenario's cluster with the page's seed and plays its actions as simulated time passes;
//! `kubeloop run examples/lessons/ID.yaml` replays the same file headless, and the engine's lesson tests
//! (`crates/engine/tests/lessons.rs`) run the same files.

use kubeloop_engine::scenario::{Scenario, ScenarioError};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::Millis;

pub mod asks;

use asks::{Answer, Ask, Baseline};

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
    /// Per Service: its ready endpoints and the others.
    Endpoints,
    /// Pods that are not ready or have restarted: their containers' state and restart counts.
    Restarts,
    /// Per Deployment: its Progressing condition and the new ReplicaSet's ready pods.
    Rollout,
    /// Per PodDisruptionBudget: healthy, desired and allowed disruptions; and the cordoned nodes.
    Budgets,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lesson {
    pub id: &'static str,
    pub title: &'static str,
    /// The lesson bar's label (the title is the panel's heading and the button's tooltip).
    pub short: &'static str,
    /// Two sentences: what happens and what to watch.
    pub watch: &'static str,
    /// The scenario: nodes, manifests and the labelled actions of the script.
    pub scenario: &'static str,
    pub figures: &'static [Figure],
    /// The lesson is about node failure: offer the fast demo timings.
    pub offer_fast_demo: bool,
    /// Speed the lesson suggests (it is set when the lesson starts).
    pub speed: u32,
    /// The event stream's controller filter while the lesson runs (the rows that matter).
    pub events: Option<&'static str>,
}

pub const LESSONS: [Lesson; 11] = [
    Lesson {
        id: "self-healing",
        title: "Self-healing",
        short: "Self-healing",
        watch: "A deleted pod is replaced within seconds: the ReplicaSet controller sees one pod fewer than desired and creates one. \
                A killed node keeps its pods until the node lifecycle controller marks it Unknown (after the grace period) and taints it; \
                after the toleration (300 s, or 30 s with the fast demo timings) the pods are evicted (Terminating) and replaced on the other nodes.",
        scenario: include_str!("../examples/lessons/self-healing.yaml"),
        figures: &[Figure::Deployments, Figure::DeadNodes],
        offer_fast_demo: true,
        speed: 10,
        events: None,
    },
    Lesson {
        id: "hand-edits",
        title: "Hand edits are reverted",
        short: "Hand edits",
        watch: "Someone scales the ReplicaSet to 6 by hand: its controller starts 3 more pods. \
                The Deployment owns that field: on its next sync it sets spec.replicas back to 3 and the extra pods are deleted.",
        scenario: include_str!("../examples/lessons/hand-edits.yaml"),
        figures: &[Figure::ReplicaSetSpec, Figure::Deployments],
        offer_fast_demo: false,
        speed: 1,
        events: None,
    },
    Lesson {
        id: "idempotency",
        title: "Idempotency",
        short: "Idempotency",
        watch: "The same manifest is applied again, twice: kubectl reports it unchanged and writes nothing. \
                The resourceVersions of the Deployment, its ReplicaSet and its pods stay where they are; only the store's counter moves (node heartbeats, leases).",
        scenario: include_str!("../examples/lessons/idempotency.yaml"),
        figures: &[Figure::ResourceVersions],
        offer_fast_demo: false,
        speed: 1,
        events: None,
    },
    Lesson {
        id: "edge-vs-level",
        title: "Edge vs level",
        short: "Edge vs level",
        watch: "The ReplicaSet controller runs edge-triggered; the control plane's informers lose every watch event while the pods are deleted (a fault no real watch has), so the deletions are never heard. \
                As upstream's, the informers never relist on a timer: their watches end every 5 to 10 min and resume where they were, so the caches stay wrong (drift). \
                At 3 min the API server answers every watch with 410 Gone: the informers LIST again and the caches are right (drift 0), but the replicas stay missing; switched to level, the next 410 relist heals it.",
        scenario: include_str!("../examples/lessons/edge-vs-level.yaml"),
        figures: &[Figure::Deployments, Figure::Drift],
        offer_fast_demo: false,
        speed: 10,
        events: Some("replicaset"),
    },
    Lesson {
        id: "polling-vs-informers",
        title: "Polling vs informers",
        short: "Polling",
        watch: "1,000 pods: informers LIST once and then receive only the changes, while polling LISTs every object of every kind every 5 s. \
                Compare the API reads per simulated minute of both modes (informers first, polling from 4 min, informers again from 6 min).",
        scenario: include_str!("../examples/lessons/polling-vs-informers.yaml"),
        figures: &[Figure::Reads, Figure::Deployments],
        offer_fast_demo: false,
        speed: 10,
        events: None,
    },
    Lesson {
        id: "conflicts",
        title: "Conflicts",
        short: "Conflicts",
        watch: "Half of the controllers' updates fail with 409 Conflict, as if another writer had got there first: the reconcile errors, is retried with backoff, re-reads and writes again. \
                Nothing is lost: the scale-up to 6 converges, only later.",
        scenario: include_str!("../examples/lessons/conflicts.yaml"),
        figures: &[Figure::Conflicts, Figure::Deployments],
        offer_fast_demo: false,
        speed: 1,
        events: None,
    },
    Lesson {
        id: "control-plane-down",
        title: "Control plane down",
        short: "Control plane down",
        watch: "Both kube-controller-manager replicas crash: the pods keep running (the kubelets run them), but a deleted pod is not replaced. \
                One replica restarts, wins the Lease once the old holder's record expires, lists everything and heals the Deployment.",
        scenario: include_str!("../examples/lessons/control-plane-down.yaml"),
        figures: &[Figure::Leader, Figure::Deployments],
        offer_fast_demo: false,
        speed: 10,
        events: None,
    },
    Lesson {
        id: "backoff",
        title: "Backoff",
        short: "Backoff",
        watch: "Pod creates are refused (403 exceeded quota) while web scales to 5: each failed reconcile of the ReplicaSet is requeued with a delay that doubles, 5 ms, 10 ms, 20 ms... (see ⟳ Error rows, \"retry in\"). \
                When the quota fault is lifted, the next retry succeeds and the pods come.",
        scenario: include_str!("../examples/lessons/backoff.yaml"),
        figures: &[Figure::RetryDelays, Figure::Deployments],
        offer_fast_demo: false,
        speed: 1,
        events: Some("replicaset"),
    },
    Lesson {
        id: "probes",
        title: "Readiness and liveness",
        short: "Probes",
        watch: "One pod's readiness check fails (kubeloop's simulated app): after 3 failures 5 s apart it is not ready and the EndpointSlice controller takes it out of the Service; it comes back when the check passes. \
                Then its liveness check fails: after 3 failures 10 s apart the kubelet kills and restarts it, and as it keeps failing the restarts wait in CrashLoopBackOff (10 s, 20 s, 40 s...) until the check passes again.",
        scenario: include_str!("../examples/lessons/probes.yaml"),
        figures: &[Figure::Endpoints, Figure::Restarts],
        offer_fast_demo: false,
        speed: 5,
        events: None,
    },
    Lesson {
        id: "crashing-rollout",
        title: "A crashing version stalls the rollout",
        short: "Crashing rollout",
        watch: "The new version crashes 3 s after it starts (kubeloop's simulated app), before its readiness check: its one surge pod never becomes ready, so the Deployment removes no old pod (maxUnavailable 25% of 3 is 0) and the old pods keep serving. \
                After progressDeadlineSeconds (120 s) without progress the Deployment says ProgressDeadlineExceeded; kubectl rollout undo brings the old template back and the crashing pod goes.",
        scenario: include_str!("../examples/lessons/crashing-rollout.yaml"),
        figures: &[Figure::Rollout, Figure::Endpoints, Figure::Restarts],
        offer_fast_demo: false,
        speed: 5,
        events: None,
    },
    Lesson {
        id: "pdb-drain",
        title: "A disruption budget makes drain wait",
        short: "Drain & PDB",
        watch: "Two nodes are drained for maintenance while a PodDisruptionBudget keeps at least 2 of the 3 web pods available. \
                The first eviction takes the one disruption allowed; the second is refused with 429 (see kubectl's \"will retry after 5s\" lines) until the first pod's replacement is ready on the third node, 15 s after it starts.",
        scenario: include_str!("../examples/lessons/pdb-drain.yaml"),
        figures: &[Figure::Budgets, Figure::Deployments],
        offer_fast_demo: false,
        speed: 2,
        events: None,
    },
];

/// A lesson being played: its scenario, the next of its actions and what each action that ran did.
pub struct LessonRun {
    pub lesson: &'static Lesson,
    pub scenario: Scenario,
    /// Simulated time the lesson started (its actions' times count from here).
    pub start: Millis,
    pub next: usize,
    /// What each action that ran did, in one line (the action and the first line it printed).
    pub results: Vec<String>,
    /// The lesson's questions, and what became of each.
    pub asks: &'static [Ask],
    pub answers: Vec<Answer>,
    /// The question waiting for an answer (the clock holds until it comes).
    pub asking: Option<usize>,
}

impl LessonRun {
    pub fn new(lesson: &'static Lesson, scenario: Scenario, start: Millis) -> LessonRun {
        let asks = asks::of(lesson.id);
        LessonRun {
            lesson,
            scenario,
            start,
            next: 0,
            results: Vec::new(),
            asks,
            answers: vec![Answer::default(); asks.len()],
            asking: None,
        }
    }

    /// The question to ask before the next step, if it has not been asked.
    pub fn unasked(&self) -> Option<usize> {
        self.asks.iter().zip(&self.answers).position(|(a, ans)| a.before == self.next && ans.chosen.is_none())
    }

    /// Answers the waiting question (`None`: skipped).
    pub fn answer(&mut self, choice: Option<usize>) {
        if let Some(i) = self.asking.take() {
            let n = self.asks[i].choices.len();
            self.answers[i].chosen = Some(choice.filter(|c| *c < n));
        }
    }

    /// The step `step` has just run: its questions' checks start now.
    pub fn ran(&mut self, step: usize, sim: &Sim) {
        for (a, ans) in self.asks.iter().zip(self.answers.iter_mut()) {
            if a.before == step {
                ans.chosen.get_or_insert(None);
                ans.baseline = Some(Baseline::of(sim));
            }
        }
    }

    /// Looks at the simulation for the open checks (once per simulated second).
    pub fn look(&mut self, sim: &Sim, t: Millis) {
        for (a, ans) in self.asks.iter().zip(self.answers.iter_mut()) {
            ans.look(a, sim, t);
        }
    }
}

pub fn find(id: &str) -> Option<&'static Lesson> {
    LESSONS.iter().find(|l| l.id == id)
}

/// Every lesson's id, in the lesson bar's order.
pub fn ids() -> Vec<&'static str> {
    LESSONS.iter().map(|l| l.id).collect()
}

impl Lesson {
    /// The lesson's scenario, parsed (the files are checked by the tests: a lesson always parses).
    pub fn parse(&self) -> Result<Scenario, ScenarioError> {
        Scenario::parse(self.scenario)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lessons_are_well_formed() {
        for l in &LESSONS {
            assert!(find(l.id).is_some());
            let sc = l.parse().unwrap_or_else(|e| panic!("{}: {e}", l.id));
            assert!(!sc.actions.is_empty() && sc.actions.iter().all(|a| a.label.is_some()), "{}: labelled steps", l.id);
            assert!(sc.manifests.is_some() && !sc.nodes.is_empty(), "{}", l.id);
        }
    }
}
