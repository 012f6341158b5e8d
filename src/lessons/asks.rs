//! Lessons that ask first: before a step runs, the lesson can ask the person to predict what the control loop will
//! do (a question and its choices), then look at the simulation to check what it did (a check, like a verify step
//! of the runner) and say whether the prediction was right. The checks only read the simulation.

use kubeloop_engine::api::{Kind, Pod, PodPhase};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::{Millis, SECOND};

use crate::format::{fmt_dur, fmt_thousands};

/// A question asked before a step of a lesson's script.
#[derive(Debug)]
pub struct Ask {
    /// The step it is asked before (an index into the scenario's actions).
    pub before: usize,
    pub question: &'static str,
    pub choices: &'static [&'static str],
    /// The choice that is right (what the check finds, in the page's runs).
    pub answer: usize,
    pub check: Check,
}

/// What the simulation is checked for after the step.
#[derive(Debug)]
pub struct Check {
    /// What is checked, in words (shown while it waits).
    pub what: &'static str,
    /// Simulated time after the step: the check passes as soon as it holds within this (`Until::Holds`), or is
    /// looked at once when it has passed (`Until::At`).
    pub within: Millis,
    pub until: Until,
    pub look: fn(&Sim, &Baseline) -> Look,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// Passes the first second it holds; fails if it never has by `within`.
    Holds,
    /// Looked at once, `within` after the step.
    At,
}

/// What a check sees: whether it holds, and what it saw, in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Look {
    pub holds: bool,
    pub seen: String,
}

/// The simulation as the step found it (what some checks compare with).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    /// When the step ran.
    pub at: Millis,
    /// The API store's reads so far.
    pub reads: u64,
    /// The resourceVersions of the Deployments, ReplicaSets and pods.
    pub versions: Vec<u64>,
}

impl Baseline {
    pub fn of(sim: &Sim) -> Baseline {
        Baseline { at: sim.now(), reads: sim.api_reads(), versions: versions(sim) }
    }
}

fn versions(sim: &Sim) -> Vec<u64> {
    [Kind::Deployment, Kind::ReplicaSet, Kind::Pod]
        .iter()
        .flat_map(|k| sim.store().objects(*k).map(|o| o.meta().resource_version))
        .collect()
}

fn web_pods(sim: &Sim) -> impl Iterator<Item = &Pod> {
    sim.store().objects(Kind::Pod).filter_map(|o| o.as_pod()).filter(|p| p.metadata.label("app") == Some("web"))
}

/// The web pods running and not terminating, and the nodes they run on.
fn running_web(sim: &Sim) -> (usize, Vec<String>) {
    let mut nodes: Vec<String> = Vec::new();
    let mut n = 0;
    for p in web_pods(sim).filter(|p| !p.metadata.is_terminating() && p.status.phase == PodPhase::Running) {
        n += 1;
        if !nodes.iter().any(|x| *x == *p.spec.node_name) {
            nodes.push(p.spec.node_name.to_string());
        }
    }
    kubeloop_engine::sort::sort(&mut nodes);
    (n, nodes)
}

fn look(holds: bool, seen: String) -> Look {
    Look { holds, seen }
}

fn web_running_is(sim: &Sim, want: usize) -> Look {
    let (n, nodes) = running_web(sim);
    look(
        n == want,
        format!("{n} web pods running ({})", if nodes.is_empty() { "none".into() } else { nodes.join(", ") }),
    )
}

fn replaced_after_delete(sim: &Sim, b: &Baseline) -> Look {
    let (n, _) = running_web(sim);
    let new = web_pods(sim).filter(|p| p.metadata.creation_timestamp.is_some_and(|t| t.0 >= b.at)).count();
    look(n == 3 && new >= 1, format!("{n} web pods running, {new} of them created after the delete"))
}

fn moved_off_dead_nodes(sim: &Sim, _: &Baseline) -> Look {
    let dead: Vec<&str> = sim.kubelets().iter().filter(|k| !k.alive).map(|k| &*k.name).collect();
    let on_dead = web_pods(sim).filter(|p| !p.metadata.is_terminating() && dead.contains(&&*p.spec.node_name)).count();
    let (n, nodes) = running_web(sim);
    look(
        n == 3 && on_dead == 0,
        format!(
            "{n} web pods running on {}; {on_dead} left on the dead node ({})",
            nodes.join(", "),
            if dead.is_empty() { "none".to_string() } else { dead.join(", ") }
        ),
    )
}

fn replicaset_put_back(sim: &Sim, _: &Baseline) -> Look {
    let rs: Vec<i32> =
        sim.store().objects(Kind::ReplicaSet).filter_map(|o| o.as_replicaset()).map(|r| r.replicas()).collect();
    let (n, _) = running_web(sim);
    let terminating = web_pods(sim).filter(|p| p.metadata.is_terminating()).count();
    look(
        rs == [3] && n == 3 && terminating == 0,
        format!("ReplicaSet spec.replicas {rs:?}, {n} web pods running, {terminating} terminating"),
    )
}

fn nothing_written(sim: &Sim, b: &Baseline) -> Look {
    let now = versions(sim);
    let moved = now.iter().zip(&b.versions).filter(|(a, b)| a != b).count() + now.len().abs_diff(b.versions.len());
    look(
        moved == 0,
        format!(
            "{moved} of the Deployment's, ReplicaSet's and pods' resourceVersions moved; the store's is at {}",
            sim.store().resource_version()
        ),
    )
}

fn deletions_unheard(sim: &Sim, _: &Baseline) -> Look {
    let (n, _) = running_web(sim);
    look(n == 0, format!("{n} web pods running; the caches hold {} objects that differ from the store", sim.drift()))
}

fn polling_reads(sim: &Sim, b: &Baseline) -> Look {
    let secs = sim.now().saturating_sub(b.at).max(1);
    let per_min = sim.api_reads().saturating_sub(b.reads) * 60 * SECOND / secs;
    let pods = sim.store().count_of(Kind::Pod) as u64;
    look(
        per_min >= 10 * pods,
        format!(
            "{} API reads per simulated minute while polling, for {} pods",
            fmt_thousands(per_min),
            fmt_thousands(pods)
        ),
    )
}

fn scaled_to_six(sim: &Sim, _: &Baseline) -> Look {
    let conflicts: u64 = sim.store().clients().iter().map(|c| c.counters.conflicts).sum();
    let mut l = web_running_is(sim, 6);
    l.seen.push_str(&format!("; {conflicts} updates answered 409 Conflict on the way"));
    l
}

fn not_replaced_while_down(sim: &Sim, _: &Baseline) -> Look {
    web_running_is(sim, 2)
}

fn replaced_after_restart(sim: &Sim, _: &Baseline) -> Look {
    web_running_is(sim, 3)
}

fn retried_with_backoff(sim: &Sim, _: &Baseline) -> Look {
    let Some(c) = sim.controller("replicaset") else { return look(false, "no ReplicaSet controller".into()) };
    let retries = c.queue.delaying().waiting().map(|(k, _)| c.queue.num_requeues(k)).max().unwrap_or(0);
    let next = c.queue.delaying().waiting().map(|(_, at)| at.saturating_sub(sim.now())).max().unwrap_or(0);
    look(
        retries >= 5,
        format!("the ReplicaSet's key has been retried {retries} times; the next retry in {}", fmt_dur(next)),
    )
}

fn out_of_endpoints(sim: &Sim, _: &Baseline) -> Look {
    let svc = crate::services::build_services(sim);
    let ready = svc.first().map_or(0, |s| s.ready);
    let not_ready = web_pods(sim).filter(|p| !p.is_ready()).count();
    let restarts: i32 = web_pods(sim).map(|p| p.restarts()).sum();
    look(
        ready == 2 && not_ready == 1 && restarts == 0,
        format!("{ready} ready endpoints behind the Service; {not_ready} web pod not ready; {restarts} restarts"),
    )
}

fn rollout_stalled(sim: &Sim, _: &Baseline) -> Look {
    let reason = sim
        .store()
        .objects(Kind::Deployment)
        .filter_map(|o| o.as_deployment())
        .find_map(|d| d.condition("Progressing").map(|c| c.reason.to_string()))
        .unwrap_or_default();
    let old = web_pods(sim)
        .filter(|p| p.spec.containers.first().is_some_and(|c| &*c.image == "nginx:1.27") && p.is_ready())
        .count();
    look(
        reason == "ProgressDeadlineExceeded" && old == 3,
        format!("Progressing: {}; {old} old pods ready and serving", if reason.is_empty() { "-" } else { &reason }),
    )
}

fn drained_behind_budget(sim: &Sim, _: &Baseline) -> Look {
    let (n, nodes) = running_web(sim);
    let ready = web_pods(sim).filter(|p| !p.metadata.is_terminating() && p.is_ready()).count();
    look(
        n == 3 && ready == 3 && nodes == ["node-3"],
        format!("{n} web pods running ({ready} ready) on {}", nodes.join(", ")),
    )
}

const MIN: Millis = 60 * SECOND;

/// The questions of lesson `id`.
pub fn of(id: &str) -> &'static [Ask] {
    match id {
        "self-healing" => &[
            Ask {
                before: 0,
                question: "A web pod is deleted. What happens next?",
                choices: &[
                    "Nothing: the Deployment runs 2 pods until someone applies it again",
                    "The ReplicaSet controller sees one pod fewer than desired and creates a new one, within seconds",
                    "The kubelet restarts the deleted pod on the same node",
                ],
                answer: 1,
                check: Check { what: "3 web pods running, one of them new", within: 30 * SECOND, until: Until::Holds, look: replaced_after_delete },
            },
            Ask {
                before: 1,
                question: "The kubelet of a node running a web pod dies. Where do its pods go, and when?",
                choices: &[
                    "Nowhere: a pod stays bound to its node for ever",
                    "To the other nodes at once",
                    "To the other nodes, once the node is Unknown (its grace period) and the pods' toleration of it has run out",
                ],
                answer: 2,
                check: Check {
                    what: "3 web pods running, none on the dead node",
                    within: 10 * MIN,
                    until: Until::Holds,
                    look: moved_off_dead_nodes,
                },
            },
        ],
        "hand-edits" => &[Ask {
            before: 0,
            question: "The ReplicaSet (not the Deployment) is scaled to 6 by hand. How many web pods run a minute later?",
            choices: &["6: the hand edit wins", "3: the Deployment puts its ReplicaSet's replicas back", "9: both add theirs"],
            answer: 1,
            check: Check { what: "the ReplicaSet back at 3, with 3 pods", within: MIN, until: Until::Holds, look: replicaset_put_back },
        }],
        "idempotency" => &[Ask {
            before: 0,
            question: "The very same manifest is applied again. What is written?",
            choices: &[
                "The Deployment is updated: its resourceVersion moves, and a rollout starts",
                "Nothing: kubectl says unchanged and no resourceVersion of the Deployment, ReplicaSet or pods moves",
                "The pods are recreated",
            ],
            answer: 1,
            check: Check { what: "no resourceVersion moved", within: 5 * SECOND, until: Until::At, look: nothing_written },
        }],
        "edge-vs-level" => &[Ask {
            before: 2,
            question: "Edge-triggered, with every watch event lost, the web pods are deleted. How many web pods run a minute later?",
            choices: &[
                "3: the ReplicaSet controller notices anyway",
                "0: no event was heard, so nothing is reconciled and nothing replaced",
                "3 after the next resync",
            ],
            answer: 1,
            check: Check { what: "the web pods a minute later", within: MIN, until: Until::At, look: deletions_unheard },
        }],
        "polling-vs-informers" => &[Ask {
            before: 0,
            question: "The controllers stop watching and LIST every object every 5 s instead. The API reads per minute…",
            choices: &["stay about the same", "double", "grow by orders of magnitude: every object, 12 times a minute"],
            answer: 2,
            check: Check {
                what: "API reads per minute while polling, against the pods' count",
                within: 90 * SECOND,
                until: Until::At,
                look: polling_reads,
            },
        }],
        "conflicts" => &[Ask {
            before: 1,
            question: "Half of the controllers' updates fail with 409 Conflict. Does the scale-up to 6 happen?",
            choices: &[
                "No: the failed updates are lost",
                "Yes, later: each failed reconcile is retried with backoff, re-reads and writes again",
                "Yes, as fast as without conflicts",
            ],
            answer: 1,
            check: Check { what: "6 web pods running", within: 3 * MIN, until: Until::Holds, look: scaled_to_six },
        }],
        "control-plane-down" => &[
            Ask {
                before: 2,
                question: "Both controller managers are down and a web pod is deleted. What happens to it?",
                choices: &[
                    "The kubelet recreates it",
                    "Nothing: no controller runs to replace it (the other pods keep running)",
                    "The scheduler replaces it",
                ],
                answer: 1,
                check: Check { what: "the web pods 50 s later", within: 50 * SECOND, until: Until::At, look: not_replaced_while_down },
            },
            Ask {
                before: 3,
                question: "One controller manager restarts. When is the deleted pod replaced?",
                choices: &[
                    "At once",
                    "Once it holds the Lease (the old holder's record must expire first), and its informers have listed",
                    "Never: the deletion happened while it was down",
                ],
                answer: 1,
                check: Check { what: "3 web pods running again", within: 90 * SECOND, until: Until::Holds, look: replaced_after_restart },
            },
        ],
        "backoff" => &[Ask {
            before: 1,
            question: "Pod creates are refused while web scales to 5. How does the ReplicaSet controller retry?",
            choices: &["Every second, for ever", "With a delay that doubles at each failure", "It gives up after 5 tries"],
            answer: 1,
            check: Check { what: "the ReplicaSet's key in backoff", within: 25 * SECOND, until: Until::At, look: retried_with_backoff },
        }],
        "probes" => &[Ask {
            before: 0,
            question: "One web pod's readiness check starts failing. What happens to it?",
            choices: &[
                "The kubelet restarts it",
                "It keeps running, but leaves the Service's endpoints",
                "It is deleted and replaced",
            ],
            answer: 1,
            check: Check { what: "2 ready endpoints, no restart", within: 40 * SECOND, until: Until::Holds, look: out_of_endpoints },
        }],
        "crashing-rollout" => &[Ask {
            before: 1,
            question: "The new version crashes 3 s after it starts. What does the rollout do to the 3 old pods?",
            choices: &[
                "Replaces them all: the rollout goes on",
                "Replaces them one at a time",
                "Keeps them all: the new pod never becomes ready, so no old pod is removed, and the Deployment reports the stall",
            ],
            answer: 2,
            check: Check {
                what: "ProgressDeadlineExceeded, 3 old pods serving",
                within: 3 * MIN,
                until: Until::Holds,
                look: rollout_stalled,
            },
        }],
        "pdb-drain" => &[Ask {
            before: 0,
            question: "Two of three nodes are drained; a budget keeps 2 of the 3 web pods available. How does the drain go?",
            choices: &[
                "Both nodes are emptied at once",
                "One eviction at a time: the next waits until the replacement is ready",
                "The drain fails",
            ],
            answer: 1,
            check: Check {
                what: "3 web pods ready, all on node-3",
                within: 3 * MIN,
                until: Until::Holds,
                look: drained_behind_budget,
            },
        }],
        _ => &[],
    }
}

/// A lesson's question as the person met it, and what its check found.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    /// `None` while not asked; `Some(None)` when the person skipped it (or lessons do not ask).
    pub chosen: Option<Option<usize>>,
    /// Taken when the step ran: the check starts then.
    pub baseline: Option<Baseline>,
    /// What the check found, and when (simulated time).
    pub outcome: Option<(Look, Millis)>,
}

impl Answer {
    /// Looks at the simulation at simulated second `t` for a check that is still open.
    pub fn look(&mut self, ask: &Ask, sim: &Sim, t: Millis) {
        let Some(b) = &self.baseline else { return };
        if self.outcome.is_some() {
            return;
        }
        let due = t >= b.at.saturating_add(ask.check.within);
        match ask.check.until {
            Until::Holds => {
                let l = (ask.check.look)(sim, b);
                if l.holds || due {
                    self.outcome = Some((l, t));
                }
            }
            Until::At if due => self.outcome = Some(((ask.check.look)(sim, b), t)),
            Until::At => {}
        }
    }
}
