//! The one scenario player, which the runner's [`Run`] and the page's live run each hold: the cluster, the actions it
//! performs as the clock reaches them ([`Script`]), the record of what was performed (its export is the run as a
//! scenario file), the reader of `kubectl -f PATH`, and the step it holds at while a question waits (a lesson's
//! `ask:`). How a performed action is shown (the runner's timeline, the page's console and notices) is the holder's.

use super::*;

/// The scenario player ([module docs](self)).
pub struct Player<'a> {
    sim: Sim,
    /// The actions to perform at their times: a scenario's, a lesson's steps, a replay's interventions.
    script: Script,
    /// What was performed so far, at its time: the script's actions as they ran, and those made live.
    record: Record,
    /// Reads the files of `kubectl -f PATH` in the actions it performs.
    read_file: ReadFile<'a>,
    /// Steps with a question (`ask:`) hold before they are performed, until released.
    asks: bool,
    /// The step holding now: its time has come and its question waits. Only ever the script's next step.
    holding: Option<usize>,
    /// The step released from its hold: it is performed when it is next due. Only ever the script's next step.
    released: Option<usize>,
}

/// What the script has for now ([`Player::take_due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    /// Nothing is due.
    Nothing,
    /// Step `i` is due and holds: its question waits ([`Player::release`]).
    Holding(usize),
    /// Step `i` is due and counts as performed from here on: the holder performs it ([`Player::perform`]).
    Perform(usize),
}

impl<'a> Player<'a> {
    /// A player of `sim` with nothing to perform, recording into `record`, reading files with `read_file`.
    pub fn new(sim: Sim, record: Record, read_file: ReadFile<'a>) -> Self {
        Player { sim, script: Script::default(), record, read_file, asks: false, holding: None, released: None }
    }

    /// The cluster.
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The cluster, to act on between steps.
    pub fn sim_mut(&mut self) -> &mut Sim {
        &mut self.sim
    }

    /// The simulated time now.
    pub fn now(&self) -> Millis {
        self.sim.now()
    }

    /// The actions it performs at their times.
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// Plays `script` from now on (what the last one had left is dropped, and so is its hold).
    pub fn play(&mut self, script: Script) {
        self.script = script;
        self.holding = None;
        self.released = None;
    }

    /// Whether steps with a question hold before they are performed. Turned off, the step holding goes on.
    pub fn ask(&mut self, on: bool) {
        self.asks = on;
        if !on {
            self.release();
        }
    }

    /// The step holding now, if one is.
    pub fn holding(&self) -> Option<usize> {
        self.holding
    }

    /// The step holding goes on: it is performed when next due. Which step it was, if one held.
    pub fn release(&mut self) -> Option<usize> {
        let step = self.holding.take()?;
        self.released = Some(step);
        Some(step)
    }

    /// When the script's next action comes due, if one will.
    pub fn next_at(&self) -> Option<Millis> {
        self.script.next_at()
    }

    /// What is due now: nothing, a step that holds, or the next action to perform (taken: the caller performs it).
    pub fn take_due(&mut self) -> Due {
        if let Some(step) = self.holding {
            return Due::Holding(step);
        }
        let next = self.script.performed();
        if self.next_at().is_none_or(|at| at > self.sim.now()) {
            return Due::Nothing;
        }
        let asks = self.script.actions().get(next).is_some_and(|a| a.ask.is_some());
        if self.asks && asks && self.released != Some(next) {
            self.holding = Some(next);
            return Due::Holding(next);
        }
        match self.script.take_due(self.sim.now()) {
            Some(step) => {
                debug_assert_eq!(step, next, "the script takes its steps in order");
                self.released = None;
                Due::Perform(step)
            }
            None => Due::Nothing,
        }
    }

    /// Performs `what` on the cluster now (`kubectl -f PATH` reads through the player's reader). Recording it is
    /// the caller's ([`Player::record_now`], or the script's action with its `for:` through [`Player::record_mut`]).
    pub fn perform(&mut self, what: &Intervention) -> crate::intervention::Performed {
        let input = crate::kubectl::Input { stdin: None, read_file: self.read_file };
        self.sim.intervene(what, &input)
    }

    /// Records `what` as performed now, with its label. `None` past [`MAX_RECORDED`] (the run is then no longer
    /// exportable, [`Record::unrecordable`] says why).
    pub fn record_now(&mut self, what: Intervention, label: Option<String>) -> Option<&Action> {
        self.record.push(self.sim.now(), what, label)
    }

    /// The run so far: where it started and what was performed since.
    pub fn record(&self) -> &Record {
        &self.record
    }

    /// The record, to record a script's action as it ran or to say the run is no longer exact.
    pub fn record_mut(&mut self) -> &mut Record {
        &mut self.record
    }

    /// The run so far as a scenario file ending now, which `kubeloop run` replays to the same history hash (or
    /// why it cannot be).
    pub fn export(&self) -> Result<String, String> {
        self.record.export(self.sim.now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    fn player() -> Player<'static> {
        let sc = Scenario::parse(
            "cluster:\n  nodes: 1\nactions:\n  - {at: 1s, cordon: node-1}\n  - {at: 2s, uncordon: node-1, ask: {question: \"what now?\", choices: [a, b], answer: 0}, expect: [{at: 5s, conflicts: \">= 0\"}]}\n  - {at: 3s, cordon: node-1}\n",
        )
        .expect("parses");
        let (sim, _) = sc.cluster(1, None).expect("builds");
        let mut p = Player::new(sim, Record::new(&sc, 1, TimingProfile::Real), &no_file);
        p.play(Script::new(sc.actions.clone().into(), 0, None));
        p
    }

    /// A step with a question holds when it is due, while steps hold, until released; then it is performed, and
    /// the steps after it come due at their times.
    #[test]
    fn a_step_with_a_question_holds_until_it_is_released() {
        let mut p = player();
        p.ask(true);
        assert_eq!(p.take_due(), Due::Nothing, "nothing before 1 s");
        p.sim_mut().run_until(SECOND);
        assert_eq!((p.take_due(), p.take_due()), (Due::Perform(0), Due::Nothing));
        p.sim_mut().run_until(2 * SECOND);
        assert_eq!((p.take_due(), p.take_due(), p.holding()), (Due::Holding(1), Due::Holding(1), Some(1)));
        assert_eq!(p.release(), Some(1));
        assert_eq!((p.take_due(), p.holding()), (Due::Perform(1), None));
        p.sim_mut().run_until(3 * SECOND);
        assert_eq!((p.take_due(), p.script().is_done()), (Due::Perform(2), true));
    }

    /// Without questions nothing holds; turning them off releases the step holding.
    #[test]
    fn a_player_that_does_not_ask_never_holds() {
        let mut p = player();
        p.sim_mut().run_until(2 * SECOND);
        assert_eq!((p.take_due(), p.take_due()), (Due::Perform(0), Due::Perform(1)));
        let mut q = player();
        q.ask(true);
        q.sim_mut().run_until(2 * SECOND);
        assert_eq!((q.take_due(), q.take_due()), (Due::Perform(0), Due::Holding(1)));
        q.ask(false);
        assert_eq!((q.holding(), q.take_due()), (None, Due::Perform(1)));
    }

    /// What the player performs and records now is what it exports.
    #[test]
    fn a_player_records_and_exports_what_it_performed() {
        let mut p = player();
        p.sim_mut().run_until(SECOND);
        let what = Intervention::Cordon { node: "node-1".into(), on: true };
        let done = p.perform(&what);
        assert_eq!(done.action, "kubectl cordon node-1");
        p.record_now(what, Some("cordon".into())).expect("recorded");
        let back = Scenario::parse(&p.export().expect("exportable")).expect("reads back");
        assert_eq!((back.until, back.actions.len(), back.actions[0].at), (Some(SECOND), 1, SECOND));
    }
}
