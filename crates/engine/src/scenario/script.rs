//! Actions to perform at their times, in order, as a player goes: a scenario's (the runner's [`Run`]) and a
//! replay's (the page's live run). The one place that says which action comes due when.

use std::rc::Rc;

use super::*;

/// The actions a player performs at their times ([module docs](self)).
#[derive(Clone, Debug)]
pub struct Script {
    actions: Rc<[Action]>,
    /// The simulated time the actions' `at` count from (a lesson started during a run).
    start: Millis,
    /// Actions from this one on are past the run's end: they never come due.
    end: usize,
    /// The next action to perform; those before it were performed.
    next: usize,
}

impl Default for Script {
    fn default() -> Self {
        Script::new(Rc::from([]), 0, None)
    }
}

impl Script {
    /// `actions` (in time order) to perform at `start` plus their `at`; those after `until` (counted from `start`,
    /// if given) never.
    pub fn new(actions: Rc<[Action]>, start: Millis, until: Option<Millis>) -> Script {
        let end = until.map_or(actions.len(), |u| actions.partition_point(|a| a.at <= u));
        Script { actions, start, end, next: 0 }
    }

    /// Every action, those past the end included.
    pub fn actions(&self) -> &Rc<[Action]> {
        &self.actions
    }

    /// When the next action comes due, if one will.
    pub fn next_at(&self) -> Option<Millis> {
        self.actions[..self.end].get(self.next).map(|a| self.start.saturating_add(a.at))
    }

    /// The next action's index if it is due at `now` (it counts as performed from here on).
    pub fn take_due(&mut self, now: Millis) -> Option<usize> {
        let i = self.next;
        self.next_at().filter(|at| *at <= now)?;
        self.next += 1;
        Some(i)
    }

    /// How many actions were performed (taken).
    pub fn performed(&self) -> usize {
        self.next
    }

    /// Every action that will come due was performed.
    pub fn is_done(&self) -> bool {
        self.next >= self.end
    }

    /// The time of the last action that comes due (`start` when none does).
    pub fn last_at(&self) -> Millis {
        self.start.saturating_add(self.actions[..self.end].last().map_or(0, |a| a.at))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SECOND;

    fn at(secs: &[u64]) -> Vec<Action> {
        let sc = Scenario::parse(
            &std::iter::once("actions:\n".to_string())
                .chain(secs.iter().map(|s| format!("  - {{at: {s}s, kubectl: get pods}}\n")))
                .collect::<String>(),
        )
        .expect("parses");
        sc.actions
    }

    /// Actions come due in order, each once, when the clock reaches them; those after the end never do.
    #[test]
    fn actions_come_due_in_order_once_and_never_past_the_end() {
        let mut s = Script::new(at(&[1, 2, 2, 9]).into(), 0, Some(5 * SECOND));
        assert_eq!((s.next_at(), s.last_at(), s.is_done()), (Some(SECOND), 2 * SECOND, false));
        assert_eq!(s.take_due(SECOND - 1), None, "not yet");
        assert_eq!(s.take_due(SECOND), Some(0));
        assert_eq!(s.take_due(SECOND), None);
        assert_eq!((s.take_due(3 * SECOND), s.take_due(3 * SECOND)), (Some(1), Some(2)), "late ones at once");
        assert_eq!((s.next_at(), s.take_due(10 * SECOND), s.is_done()), (None, None, true), "9 s is past the end");
        assert_eq!((s.performed(), s.actions().len()), (3, 4));
        assert!(Script::default().is_done());
    }

    /// Actions counted from a later start come due that much later.
    #[test]
    fn a_script_started_later_counts_its_times_from_its_start() {
        let mut s = Script::new(at(&[0, 3]).into(), 10 * SECOND, None);
        assert_eq!((s.next_at(), s.last_at()), (Some(10 * SECOND), 13 * SECOND));
        assert_eq!((s.take_due(9 * SECOND), s.take_due(10 * SECOND)), (None, Some(0)));
        assert_eq!((s.take_due(12 * SECOND), s.take_due(13 * SECOND)), (None, Some(1)));
    }
}
