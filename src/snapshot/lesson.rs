//! The lesson panel's view: its script's steps with what each did, each question's check against the engine's
//! verdict, and the figures the lesson watches, read from the simulation.

use super::*;
use kubeloop_engine::scenario::{Figure, Player};

pub fn build_lesson(player: &Player, run: &crate::lessons::LessonRun, reads: ReadsView, asks_on: bool) -> LessonView {
    let sim = player.sim();
    let l = run.lesson;
    let actions = &run.scenario.actions;
    let steps = actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let label = a.label.clone().unwrap_or_else(|| a.what.to_string());
            (a.at, label, run.results.get(i).cloned())
        })
        .collect();
    let mut figures = Vec::new();
    for f in &run.info.figures {
        lesson_figure(sim, *f, run.start, reads, &mut figures);
    }
    let asking = player.holding().and_then(|step| {
        let a = actions[step].ask.as_ref()?;
        Some(AskView { step, question: &a.question, choices: &a.choices })
    });
    let checks = actions
        .iter()
        .enumerate()
        .filter(|(_, a)| !a.expect.is_empty())
        .map(|(step, a)| step_check(run, step, a))
        .collect();
    LessonView {
        id: l.id,
        title: l.title,
        watch: &run.info.watch,
        offer_fast_demo: run.info.fast_demo,
        events: run.info.events,
        steps,
        elapsed: sim.now().saturating_sub(run.start),
        figures,
        asks_on,
        asking,
        checks,
    }
}

/// A step's expectations as one check: its question, if it asks one, and what the engine's checks found (passed
/// when every expectation of the step held, failed when one did not).
pub(super) fn step_check(
    run: &crate::lessons::LessonRun,
    step: usize,
    a: &'static kubeloop_engine::scenario::Action,
) -> CheckView {
    let checks: Vec<_> = run.checks.checks.iter().filter(|c| c.step == step).collect();
    let state = if checks.iter().any(|c| c.baseline.is_none()) {
        "pending"
    } else if checks.iter().any(|c| c.verdict.is_none()) {
        "checking"
    } else if checks.iter().all(|c| c.verdict.as_ref().is_some_and(|v| v.holds)) {
        "passed"
    } else {
        "failed"
    };
    let decided = matches!(state, "passed" | "failed");
    let seen = decided.then(|| {
        let seen: Vec<&str> = checks.iter().filter_map(|c| c.verdict.as_ref()).map(|v| v.seen.as_str()).collect();
        let after = checks
            .iter()
            .filter_map(|c| Some(c.verdict.as_ref()?.at.saturating_sub(c.baseline.as_ref()?.at)))
            .max()
            .unwrap_or(0);
        (seen.join("; "), after)
    });
    let what: Vec<String> = a.expect.iter().map(|e| e.what()).collect();
    let ask = a.ask.as_ref();
    CheckView {
        step,
        question: ask.map_or("", |q| q.question.as_str()),
        what: what.join("; "),
        chosen: ask.zip(run.chosen[step].flatten()).and_then(|(q, c)| q.choices.get(c)).map(String::as_str),
        answer: ask.and_then(|q| q.choices.get(q.answer)).map_or("", String::as_str),
        state,
        seen,
    }
}

/// Not one of kube-system's add-ons (the figures, as the cluster view, leave them out).
fn user(o: &&std::rc::Rc<kubeloop_engine::api::Object>) -> bool {
    !kubeloop_engine::addons::is_addon(o.meta())
}

pub(super) fn lesson_figure(sim: &Sim, f: Figure, start: Millis, reads: ReadsView, out: &mut Vec<(String, String)>) {
    let big = sim.store().count_of(Kind::Pod) > DOM_MAX_PODS;
    match f {
        Figure::Deployments => {
            for d in sim.store().objects(Kind::Deployment).filter(user).filter_map(|o| o.as_deployment()) {
                let picks = |p: &Pod| {
                    p.metadata.namespace == d.metadata.namespace && d.spec.selector.matches(&p.metadata.labels)
                };
                // Above the DOM's bound the pods are not walked each snapshot (the figure says 0).
                let pods = if big { Default::default() } else { sim.matched_pods(&picks, start) };
                let mut v = format!("desired {} · running {}", d.replicas(), pods.running);
                if pods.terminating > 0 {
                    v.push_str(&format!(" · terminating {}", pods.terminating));
                }
                out.push((format!("deployment/{}", d.metadata.name), v));
            }
        }
        Figure::ReplicaSetSpec => {
            for d in sim.store().objects(Kind::Deployment).filter(user).filter_map(|o| o.as_deployment()) {
                out.push((format!("deployment/{} spec.replicas", d.metadata.name), d.replicas().to_string()));
            }
            for r in sim.store().objects(Kind::ReplicaSet).filter(user).filter_map(|o| o.as_replicaset()) {
                out.push((
                    format!("replicaset/{} spec.replicas", r.metadata.name),
                    format!("{} (status: {} pods)", r.replicas(), r.status.replicas),
                ));
            }
        }
        Figure::ResourceVersions => {
            for k in [Kind::Deployment, Kind::ReplicaSet, Kind::Pod] {
                for o in sim.store().objects(k).filter(user) {
                    let m = o.meta();
                    out.push((
                        format!("{}/{} resourceVersion", k.name().to_ascii_lowercase(), m.name),
                        m.resource_version.to_string(),
                    ));
                }
            }
            out.push(("the store's resourceVersion (every write)".into(), sim.store().resource_version().to_string()));
        }
        Figure::Drift => {
            let mode =
                sim.trigger_modes().iter().find(|(n, _)| *n == "replicaset").map_or("level", |(_, m)| m.as_str());
            out.push(("replicaset controller trigger mode".into(), mode.to_string()));
            out.push(("drift (cached objects ≠ store)".into(), sim.drift().to_string()));
            let relists: u64 = sim.control_plane_informers().iter().map(|&i| sim.informers()[i].stats().relists).sum();
            out.push(("control-plane informer relists".into(), relists.to_string()));
            let timeouts: u64 =
                sim.control_plane_informers().iter().map(|&i| sim.informers()[i].stats().watch_timeouts).sum();
            out.push(("watches ended at their timeout (re-WATCH, no LIST)".into(), timeouts.to_string()));
            let period = match sim.relist_period() {
                0 => "off (upstream: LIST only after an error)".to_string(),
                p => format!("{} (kubeloop's own repair knob)", fmt_dur(p)),
            };
            out.push(("periodic relist".into(), period));
        }
        Figure::Reads => {
            let rate = |r: Option<Rate>, now: bool| match (r, now) {
                (Some(r), true) => {
                    format!("{}/min now (over the last {})", fmt_thousands(r.per_min), fmt_dur(r.over_ms))
                }
                (Some(r), false) => {
                    format!("{}/min (last measured)", fmt_thousands(r.per_min))
                }
                (None, true) => "measuring…".into(),
                (None, false) => "not measured yet".into(),
            };
            out.push(("API reads per minute, informers".into(), rate(reads.informer, !reads.polling_now)));
            out.push(("API reads per minute, polling".into(), rate(reads.polling, reads.polling_now)));
            out.push(("API reads so far".into(), sim.api_reads().to_string()));
        }
        Figure::Conflicts => {
            let mut total = 0;
            for c in sim.store().clients() {
                if c.counters.conflicts > 0 {
                    total += c.counters.conflicts;
                    out.push((format!("409 Conflict answered to {}", c.name), c.counters.conflicts.to_string()));
                }
            }
            out.push(("409 Conflicts in all".into(), total.to_string()));
            if let Some(s) = sim.controller("replicaset").map(|c| c.status(sim.now())) {
                out.push((
                    "replicaset reconcile errors / retries".into(),
                    format!("{} / {}", s.stats.errors, s.retries),
                ));
            }
        }
        Figure::Leader => {
            let leader = sim.controller_manager_leader().map(|h| sim.host(h).name.to_string());
            out.push(("controller manager leading".into(), leader.unwrap_or_else(|| "none".into())));
            if let Some(l) = sim
                .store()
                .peek(Kind::Lease, &ObjKey::new("kube-system", "kube-controller-manager"))
                .and_then(|o| o.as_lease())
            {
                let renewed = l
                    .spec
                    .renew_time
                    .map_or("never".to_string(), |t| format!("{} ago", fmt_dur(sim.now().saturating_sub(t.0))));
                out.push((
                    "Lease kube-system/kube-controller-manager".into(),
                    format!(
                        "holder {} · renewed {renewed} · transitions {}",
                        l.spec.holder_identity,
                        l.spec.lease_transitions.unwrap_or(0)
                    ),
                ));
            }
        }
        Figure::RetryDelays => {
            let delays: Vec<String> = sim
                .log()
                .records
                .iter()
                .filter(|r| r.controller == "replicaset" && r.start >= start)
                .filter_map(|r| match &r.outcome {
                    RecordOutcome::Error { retry_in, .. } => Some(fmt_dur(*retry_in)),
                    _ => None,
                })
                .collect();
            let shown = if delays.len() > 12 {
                format!("{}, … ({} in all)", delays[..12].join(", "), delays.len())
            } else if delays.is_empty() {
                "none yet".into()
            } else {
                delays.join(", ")
            };
            out.push(("replicaset: failed reconciles, retried after".into(), shown));
        }
        Figure::Endpoints
        | Figure::Restarts
        | Figure::Rollout
        | Figure::Budgets
        | Figure::DaemonSets
        | Figure::Jobs => app_figure(sim, f, out),
        Figure::DeadNodes => {
            for k in sim.kubelets().iter().filter(|k| !k.alive) {
                let node = sim.store().peek(Kind::Node, &ObjKey::cluster(&k.name)).and_then(|o| o.as_node());
                let ready = node.map_or("?", |n| n.ready_status());
                let taints: Vec<String> =
                    node.map(|n| n.spec.taints.iter().map(fmt_taint).collect()).unwrap_or_default();
                out.push((
                    format!("node {} (kubelet down)", k.name),
                    format!(
                        "Ready={ready}{}",
                        if taints.is_empty() { String::new() } else { format!(" · taints {}", taints.join(", ")) }
                    ),
                ));
            }
        }
    }
}

/// The figures of the lessons about Services, probes and rollouts.
pub(super) fn app_figure(sim: &Sim, f: Figure, out: &mut Vec<(String, String)>) {
    match f {
        Figure::Endpoints => {
            for v in crate::services::build_services(sim, false) {
                let others = if v.not_ready > 0 { format!(" · {} not ready", v.not_ready) } else { String::new() };
                out.push((format!("service/{} endpoints", v.key.name), format!("{} ready{others}", v.ready)));
            }
        }
        Figure::Restarts => {
            let pods = sim.store().objects(Kind::Pod).filter(user).filter_map(|o| o.as_pod());
            for p in pods.filter(|p| !p.metadata.is_terminating() && (!p.is_ready() || p.restarts() > 0)).take(6) {
                let state = p
                    .status
                    .container_statuses
                    .iter()
                    .map(|c| match (&c.state.waiting, &c.state.terminated) {
                        (Some(w), _) => w.reason.to_string(),
                        (_, Some(t)) => t.reason.to_string(),
                        _ if c.ready => "Running".to_string(),
                        _ => "Running, not ready".to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                out.push((format!("pod/{}", p.metadata.name), format!("{state} · restarts {}", p.restarts())));
            }
        }
        Figure::Rollout => {
            for d in sim.store().objects(Kind::Deployment).filter_map(|o| o.as_deployment()) {
                let cond = d.status.conditions.iter().find(|c| &*c.type_ == "Progressing");
                let progressing = cond.map_or("-".to_string(), |c| format!("{} ({})", c.status, c.reason));
                out.push((
                    format!("deployment/{} Progressing", d.metadata.name),
                    format!(
                        "{progressing} · updated {} · available {}",
                        d.status.updated_replicas, d.status.available_replicas
                    ),
                ));
            }
        }
        Figure::Budgets => {
            for p in sim.store().objects(Kind::PodDisruptionBudget).filter_map(|o| o.as_pdb()) {
                let st = &p.status;
                out.push((
                    format!("pdb/{}", p.metadata.name),
                    format!(
                        "healthy {} of {} needed · allowed disruptions {}",
                        st.current_healthy, st.desired_healthy, st.disruptions_allowed
                    ),
                ));
            }
            let cordoned: Vec<String> = sim
                .store()
                .objects(Kind::Node)
                .filter_map(|o| o.as_node())
                .filter(|n| n.spec.unschedulable)
                .map(|n| n.metadata.name.to_string())
                .collect();
            if !cordoned.is_empty() {
                out.push(("cordoned".into(), cordoned.join(", ")));
            }
        }
        Figure::DaemonSets => {
            for d in sim.store().objects(Kind::DaemonSet).filter(user).filter_map(|o| o.as_daemonset()) {
                let st = &d.status;
                let mut v = format!(
                    "nodes desired {} · current {} · ready {} · up to date {}",
                    st.desired_number_scheduled,
                    st.current_number_scheduled,
                    st.number_ready,
                    st.updated_number_scheduled
                );
                if st.number_misscheduled > 0 {
                    v.push_str(&format!(" · misscheduled {}", st.number_misscheduled));
                }
                out.push((format!("daemonset/{}", d.metadata.name), v));
            }
        }
        Figure::Jobs => {
            for j in sim.store().objects(Kind::Job).filter_map(|o| o.as_job()) {
                let st = &j.status;
                let mut v = format!("active {} · succeeded {} · failed {}", st.active, st.succeeded, st.failed);
                if let Some(c) = j.finished() {
                    v.push_str(&format!(" · {} ({})", c.type_, c.reason));
                }
                out.push((format!("job/{}", j.metadata.name), v));
            }
        }
        _ => {}
    }
}
