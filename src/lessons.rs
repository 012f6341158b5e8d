//! The seed's lessons as one-click presets. A lesson is one scenario file, `examples/lessons/ID.yaml`: its nodes,
//! manifests and labelled actions, its `lesson:` header (title, what to watch, figures, speed), the predictions it
//! asks for (`ask:`) and what the control loop does after each step (`expect:`, checked by the engine). The page
//! builds the scenario's cluster with the page's seed and plays its actions as simulated time passes, asking first;
//! `kubeloop run examples/lessons/ID.yaml` replays the same file headless and reports the same verdicts, and the
//! engine's lesson tests hold every file to its expectations. Every file of the folder is a lesson (the build lists
//! them): this module only presents them.

use std::cell::OnceCell;

use kubeloop_engine::scenario::{Checks, LessonInfo, Scenario, ScenarioError};
use kubeloop_engine::sim::Sim;
use kubeloop_engine::time::Millis;

include!(concat!(env!("OUT_DIR"), "/lessons.rs"));

/// A lesson: its title and label (known from the start), and its file once it has arrived and been read. The files
/// are not in the page's first download: the page fetches them once it runs ([`missing`]), so that lessons work
/// offline from then on (docs/size.md).
pub struct Lesson {
    pub id: &'static str,
    pub title: &'static str,
    /// The lesson bar's label.
    pub short: &'static str,
    scenario: OnceCell<Result<Scenario, ScenarioError>>,
}

impl Lesson {
    /// The lesson's scenario (`None` while its file has not arrived).
    pub fn scenario(&'static self) -> Option<Result<&'static Scenario, &'static ScenarioError>> {
        if self.scenario.get().is_none() {
            if let Some((_, text)) = TEXTS.iter().find(|(id, _)| *id == self.id) {
                self.provide(text);
            }
        }
        self.scenario.get().map(Result::as_ref)
    }

    /// The lesson's file has arrived: it is read once.
    pub fn provide(&self, text: &str) {
        let _ = self.scenario.set(Scenario::parse(text));
    }

    /// Where the page fetches the lesson's file from (relative to the page, so from any sub-path).
    pub fn file(&self) -> String {
        format!("examples/lessons/{}.yaml", self.id)
    }
}

/// The presentation of a lesson whose file says nothing of it.
pub static NO_INFO: LessonInfo = LessonInfo {
    title: String::new(),
    short: String::new(),
    watch: String::new(),
    figures: Vec::new(),
    fast_demo: false,
    speed: 1,
    events: None,
    order: u32::MAX,
};

/// Every lesson, in the lesson bar's order (each file's `lesson.order`, then its name).
pub fn all() -> &'static [Lesson] {
    thread_local! {
        static ALL: &'static [Lesson] = Box::leak(
            LESSONS
                .iter()
                .map(|&(id, title, short)| Lesson { id, title, short, scenario: OnceCell::new() })
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
    }
    ALL.with(|a| *a)
}

pub fn find(id: &str) -> Option<&'static Lesson> {
    all().iter().find(|l| l.id == id)
}

/// Every lesson's id, in the lesson bar's order.
pub fn ids() -> Vec<&'static str> {
    all().iter().map(|l| l.id).collect()
}

/// The lessons whose files have not arrived.
pub fn missing() -> Vec<&'static Lesson> {
    all().iter().filter(|l| l.scenario().is_none()).collect()
}

/// A lesson being played: its scenario, the next of its actions, what each action that ran did, the predictions
/// made and the engine's checks of the expectations.
pub struct LessonRun {
    pub lesson: &'static Lesson,
    pub scenario: &'static Scenario,
    /// Its `lesson:` header.
    pub info: &'static LessonInfo,
    /// Simulated time the lesson started (its actions' times count from here; the live run's script plays them).
    pub start: Millis,
    /// What each action that ran did, in one line (the action and the first line it printed).
    pub results: Vec<String>,
    /// Per step: `None` while its question (if any) has not been asked; `Some(None)` when it was skipped (or the
    /// lesson does not ask), else the choice. The step whose question waits is the player's
    /// ([`kubeloop_engine::scenario::Player::holding`]): the clock holds there until the answer comes.
    pub chosen: Vec<Option<Option<usize>>>,
    /// The expectations, as the engine checks them.
    pub checks: Checks,
}

impl LessonRun {
    pub fn new(lesson: &'static Lesson, scenario: &'static Scenario, start: Millis) -> LessonRun {
        LessonRun {
            lesson,
            scenario,
            info: scenario.lesson.as_deref().unwrap_or(&NO_INFO),
            start,
            results: Vec::new(),
            chosen: vec![None; scenario.actions.len()],
            checks: Checks::of(&scenario.actions),
        }
    }

    /// Answers step `step`'s question, which waited (`None`: skipped).
    pub fn answer(&mut self, step: usize, choice: Option<usize>) {
        let n = self.scenario.actions.get(step).and_then(|a| a.ask.as_ref()).map_or(0, |a| a.choices.len());
        if let Some(c) = self.chosen.get_mut(step) {
            *c = Some(choice.filter(|c| *c < n));
        }
    }

    /// The step `step` has just run: its expectations are checked from now.
    pub fn ran(&mut self, step: usize, sim: &Sim) {
        self.chosen[step].get_or_insert(None);
        self.checks.ran(&self.scenario.actions, step, sim);
    }

    /// Looks at the simulation for the open expectations (once per simulated second, as the runner does).
    pub fn look(&mut self, sim: &Sim, t: Millis) {
        self.checks.look(&self.scenario.actions, sim, t);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lesson_file_is_in_the_bar_and_parses() {
        assert_eq!(all().len(), TEXTS.len(), "a native build carries every file");
        for l in all() {
            assert!(find(l.id).is_some());
            let sc = l.scenario().expect("carried").unwrap_or_else(|e| panic!("{}: {e}", l.id));
            assert!(!sc.actions.is_empty() && sc.actions.iter().all(|a| a.label.is_some()), "{}: labelled steps", l.id);
            assert!(sc.manifests.is_some() && !sc.nodes.is_empty(), "{}", l.id);
            let info = sc.lesson.as_ref().expect("a lesson: header");
            assert_eq!(
                (l.title, l.short),
                (info.title.as_str(), info.short.as_str()),
                "{}: the bar reads its header",
                l.id
            );
        }
        assert!(missing().is_empty());
        assert_eq!(ids()[0], "self-healing");
        let orders: Vec<u32> = all()
            .iter()
            .map(|l| l.scenario().and_then(Result::ok).map_or(0, |s| s.lesson.as_ref().map_or(0, |i| i.order)))
            .collect();
        assert!(orders.windows(2).all(|w| w[0] < w[1]), "the bar's order is the files' {orders:?}");
    }
}
