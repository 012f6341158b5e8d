//! A run as a value: the scenario it started from and every intervention made since, at its simulated time. What a
//! player (the page's live run) keeps as it goes, and exports as a scenario file that `kubeloop run` replays to the
//! same history hash. Reads are not recorded.

use super::*;

/// Interventions a record holds at most (kubeloop's own bound; beyond it the run is not exportable).
pub const MAX_RECORDED: usize = 10_000;

/// The record of a run ([module docs](self)).
#[derive(Clone, Debug)]
pub struct Record {
    /// The scenario the run started from, without its actions, with the run's seed and timing.
    base: Scenario,
    /// What was performed since, in order; never more than [`MAX_RECORDED`].
    actions: Vec<Action>,
    /// Why the run can no longer be exported exactly, once it cannot.
    unrecordable: Option<String>,
}

impl Record {
    /// A record of a run that starts from `start`'s cluster and manifests with `seed` and `timing` (`start`'s own
    /// actions are not part of it: they are recorded as they are performed).
    pub fn new(start: &Scenario, seed: u64, timing: TimingProfile) -> Record {
        // Field by field: `start`'s actions are not copied only to be dropped.
        let base = Scenario {
            seed: Some(seed),
            until: None,
            node_template: start.node_template.clone(),
            nodes: start.nodes.clone(),
            addons: start.addons,
            manifests: start.manifests.clone(),
            actions: Vec::new(),
            timing,
            lesson: start.lesson.clone(),
        };
        Record { base, actions: Vec::new(), unrecordable: None }
    }

    /// The scenario the run started from (no actions).
    pub fn base(&self) -> &Scenario {
        &self.base
    }

    /// What was performed, in order.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// Records `what` as performed at `at`; past [`MAX_RECORDED`] the run is no longer exportable and nothing is
    /// recorded (`None`).
    pub fn push(&mut self, at: Millis, what: Intervention, label: Option<String>) -> Option<&Action> {
        let expect = std::rc::Rc::from([]);
        self.performed(Action { at, what, label, line: 0, stop_after: None, ask: None, expect })
    }

    /// Records a scenario's action as performed (at its time, with its `for:`), as [`Record::push`] does.
    pub fn performed(&mut self, action: Action) -> Option<&Action> {
        if self.actions.len() >= MAX_RECORDED {
            self.not_exact(format!("the run made more than {MAX_RECORDED} interventions (kubeloop's own bound)"));
            return None;
        }
        self.actions.push(action);
        self.actions.last()
    }

    /// Action `i`'s command was interrupted at `now`: its `for:`, which it returns.
    pub fn stopped(&mut self, i: usize, now: Millis) -> Option<Millis> {
        let a = self.actions.get_mut(i)?;
        let d = now.saturating_sub(a.at);
        a.stop_after = Some(d);
        Some(d)
    }

    /// The run can no longer be exported exactly (the first reason is kept).
    pub fn not_exact(&mut self, why: String) {
        self.unrecordable.get_or_insert(why);
    }

    /// Why the run cannot be exported exactly, if it cannot.
    pub fn unrecordable(&self) -> Option<&str> {
        self.unrecordable.as_deref()
    }

    /// The run so far as a scenario file ending at `now`: seed, timing, the starting cluster and every intervention
    /// at its time. Or why it cannot be.
    pub fn export(&self, now: Millis) -> Result<String, String> {
        if let Some(why) = &self.unrecordable {
            return Err(format!("This run cannot be exported exactly: {why}."));
        }
        Ok(self.scenario(now).to_yaml())
    }

    /// The run so far as a scenario ending at `now`.
    pub fn scenario(&self, now: Millis) -> Scenario {
        Scenario { until: Some(now), actions: self.actions.clone(), ..self.base.clone() }
    }

    /// The record of a fork of this run at `at`, after its first `performed` actions: those, a command still
    /// running then interrupted there (its `for:` cut to end at `at`).
    pub fn fork(&self, performed: usize, at: Millis) -> Record {
        let mut actions = self.actions[..performed.min(self.actions.len())].to_vec();
        for a in &mut actions {
            let left = at.saturating_sub(a.at);
            if a.stop_after.is_none_or(|d| d > left) && a.what.kubectl_line().is_some() {
                a.stop_after = Some(left);
            }
        }
        Record { base: self.base.clone(), actions, unrecordable: self.unrecordable.clone() }
    }

    /// Empties the record, handing over what it held (a replay performs it again).
    pub fn take_actions(&mut self) -> Vec<Action> {
        std::mem::take(&mut self.actions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intervention::NodeRef;
    use crate::time::SECOND;

    fn start() -> Scenario {
        Scenario::parse(
            "cluster:\n  nodes: 2\nmanifests: |\n  apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: a\n",
        )
        .expect("parses")
    }

    /// What was recorded, exported, reads back as the same scenario: seed, timing, cluster, manifests, and each
    /// action at its time with its `for:`.
    #[test]
    fn an_exported_record_reads_back_as_the_run_it_recorded() {
        let mut r = Record::new(&start(), 7, TimingProfile::FastDemo);
        r.push(2 * SECOND, Intervention::KillNode(NodeRef::Name("node-1".into())), Some("kill".into()));
        r.push(3 * SECOND, Intervention::Kubectl("get pods -w".into()), None);
        assert_eq!(r.stopped(1, 5 * SECOND), Some(2 * SECOND));
        let back = Scenario::parse(&r.export(9 * SECOND).expect("exportable")).expect("reads back");
        assert_eq!((back.seed, back.until, back.timing), (Some(7), Some(9 * SECOND), TimingProfile::FastDemo));
        assert_eq!(back.nodes.len(), 2);
        assert_eq!(back.manifests, start().manifests);
        let actions: Vec<_> = back.actions.iter().map(|a| (a.at, a.label.clone(), a.stop_after)).collect();
        assert_eq!(actions, [(2 * SECOND, Some("kill".into()), None), (3 * SECOND, None, Some(2 * SECOND))]);
    }

    /// Past its bound a record refuses, and the run is no longer exportable, saying why; the first reason stays.
    #[test]
    fn a_record_past_its_bound_or_made_inexact_does_not_export() {
        let mut r = Record::new(&start(), 1, TimingProfile::Real);
        for i in 0..MAX_RECORDED {
            assert!(r.push(i as Millis, Intervention::Cordon { node: "node-1".into(), on: false }, None).is_some());
        }
        assert!(r.push(0, Intervention::Cordon { node: "node-1".into(), on: false }, None).is_none());
        assert_eq!(r.actions().len(), MAX_RECORDED);
        r.not_exact("a later reason".into());
        let e = r.export(SECOND).expect_err("not exportable");
        assert!(e.contains(&format!("more than {MAX_RECORDED} interventions")), "{e}");
        assert_eq!(r.take_actions().len(), MAX_RECORDED);
        assert!(r.actions().is_empty());
    }
}
