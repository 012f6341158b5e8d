//! The timeline: the live run's checkpoints ([`Rewind`]), the moment scrubbed to, and the marks shown along it. A
//! scrubbed view is the cluster made again at that moment by the engine (its checkpoint run on with the record's
//! interventions), and the page builds it with the same queries as the live view. Anything that acts on the cluster
//! goes back to live first.

use kubeloop_engine::scenario::{Action, ReadFile, Rewind, Scrubbed, FIRST_SPACING};

use super::*;
use crate::snapshot::history::HistoryData;
use crate::view::{HistoryView, MarkView, TimelineView};
use kubeloop_engine::api::{Kind, ObjKey};

pub(super) type ScrubFn = fn(&Rewind, Millis, &[Action], Option<Scrubbed>, ReadFile, &dyn Fn() -> Sim) -> Scrubbed;

/// Makes the run's start again: the cluster `base` describes, with the run's seed and timings (a scrub's or a
/// history's before the first checkpoint).
pub(super) fn starter(seed: u64, profile: TimingProfile, base: &Scenario) -> impl Fn() -> Sim + '_ {
    move || fresh_sim(seed, profile, base, 0).0
}

/// A copy of `sim` for a checkpoint, through a pointer binaryen cannot see through: the copy's code stays in the
/// second module.
pub(super) fn copy_of(sim: &Sim) -> Sim {
    let checkpoint: fn(&Sim) -> Sim = Sim::checkpoint;
    std::hint::black_box(checkpoint)(sim)
}

/// Where a mark comes from: the record's action `i`, or the stream's mark `i`.
#[derive(Clone, Copy)]
enum Source {
    Action(usize),
    Mark(usize),
}

/// Marks drawn along the timeline at most: one per bucket of the run's length (the first in it, with a count).
pub const TIMELINE_BUCKETS: usize = 200;

impl LiveRun {
    /// The cluster the view shows: the scrubbed one, or the live one.
    pub(super) fn shown(&self) -> &Sim {
        self.scrubbed.as_ref().map_or(self.player.sim(), |s| s.sim())
    }

    /// Whether the view shows an earlier moment.
    pub fn is_scrubbed(&self) -> bool {
        self.scrubbed.is_some()
    }

    /// New checkpoints for the run the player now holds (the old run's are dropped). Its start is kept when the
    /// second module is here (a large cluster's start takes long to make again); else it is made again if needed.
    pub(super) fn new_timeline(&mut self) {
        self.scrubbed = None;
        self.rewind = if crate::deferred::ready() {
            Rewind::from_start(FIRST_SPACING, copy_of(self.player.sim()), self.player.record().actions().len())
        } else {
            Rewind::default()
        };
    }

    /// A checkpoint, when one is due, the second module (which holds the code that copies a cluster) is here, and
    /// nothing that writes as it goes (a `drain`) runs in the console.
    pub(super) fn offer_checkpoint(&mut self) {
        let quiet = !self.console.running.iter().any(|r| r.follow.writes());
        if self.scrubbed.is_none() && quiet && crate::deferred::ready() && self.rewind.due(self.player.sim()) {
            let sim = self.player.sim();
            self.rewind.offer(|| copy_of(sim), self.player.record().actions().len(), sim);
        }
    }

    /// Shows the cluster as it was at `t` (live when `t` is now or later): the clock pauses, and goes on when the
    /// view goes back to live.
    pub(super) fn scrub(&mut self, t: Millis) {
        if t >= self.player.now() {
            self.go_live();
            return;
        }
        if let Some(why) = self.player.record().unrecordable() {
            self.notice = Some(format!("This run cannot be scrubbed exactly: {why}.").into());
            return;
        }
        if self.scrubbed.as_ref().is_some_and(|s| s.sim().now() == t) {
            // There already (a drag's `input`, then its `change`).
            return;
        }
        if self.scrubbed.is_none() {
            self.resume = self.playing;
        }
        self.playing = false;
        let cursor: Option<Scrubbed> = self.scrubbed.take();
        let started = self.wall();
        let actions = self.player.record().actions();
        let start = starter(self.seed, self.profile, self.player.record().base());
        // Through a pointer binaryen cannot see through: re-execution's code stays in the second module.
        let scrub: ScrubFn = Rewind::scrub;
        self.scrubbed = Some(std::hint::black_box(scrub)(&self.rewind, t, actions, cursor, &example_file, &start));
        self.scrub_ms = self.wall() - started;
    }

    /// Back to the live cluster (the clock plays again if it played before the scrub).
    pub(super) fn go_live(&mut self) {
        if self.scrubbed.take().is_some() {
            self.playing = self.resume;
            self.target = self.player.now() as f64;
        }
    }

    /// The timeline as the page draws it.
    pub(super) fn timeline_view(&self) -> Rc<TimelineView> {
        let (min, max) = (0, self.player.now());
        let policy = self.rewind.policy(self.player.sim());
        // What a mark says is written only for the first in its place (a run holds up to 10,000 interventions).
        let actions = self.player.record().actions();
        let marks: Vec<&(Millis, Rc<str>)> = self.stream.marks().collect();
        let said = |src: Source| match src {
            Source::Action(i) => actions[i].label.clone().unwrap_or_else(|| actions[i].what.to_string()),
            Source::Mark(i) => marks[i].1.to_string(),
        };
        let all = (actions.iter().enumerate().map(|(i, a)| (a.at, Source::Action(i))))
            .chain(marks.iter().enumerate().map(|(i, (at, _))| (*at, Source::Mark(i))));
        let mut buckets: Vec<Option<MarkView>> = vec![None; TIMELINE_BUCKETS];
        let span = max.saturating_sub(min).max(1);
        for (at, src) in all.filter(|(at, _)| (min..=max).contains(at)) {
            let i = (((at - min) as u128 * (TIMELINE_BUCKETS as u128 - 1)) / span as u128) as usize;
            let person = matches!(src, Source::Action(_));
            match &mut buckets[i] {
                Some(m) => {
                    m.more += 1;
                    m.person |= person;
                }
                slot => {
                    let pct = (at - min) as f64 * 100.0 / span as f64;
                    *slot = Some(MarkView { at, person, what: said(src), more: 0, pct })
                }
            }
        }
        Rc::new(TimelineView {
            min,
            max,
            at: self.scrubbed.as_ref().map(|s| s.sim().now()),
            marks: buckets.into_iter().flatten().collect(),
            kept: policy.kept,
            max_kept: policy.max_kept,
            spacing: policy.spacing,
            rerun: self.scrubbed.as_ref().map_or(0, |s| s.rerun),
            scrub_ms: self.scrub_ms,
        })
    }
}

type Stood = Option<Rc<kubeloop_engine::api::Object>>;
type HistoryFn = fn(&Rewind, Kind, &ObjKey, Millis, Millis, &[Action], ReadFile, &dyn Fn() -> Sim) -> (Scrubbed, Stood);
type TraceFn = fn(&Sim, &Sim, Stood, Kind, &ObjKey, u64) -> HistoryData;
type BuildFn = fn(&HistoryData, Option<u64>, Option<u64>) -> HistoryView;

impl LiveRun {
    /// The history of a pod or a node (a cluster-scoped key) up to the moment shown: the run made again from the
    /// checkpoint before its first write kept, the object traced.
    pub(super) fn history(&mut self, key: ObjKey) {
        let kind = if key.namespace.is_empty() { Kind::Node } else { Kind::Pod };
        let shown = self.shown();
        let since = shown.causes().writes_of(kind, &key).next().map_or(0, |w| w.at);
        let start = starter(self.seed, self.profile, self.player.record().base());
        // Through pointers binaryen cannot see through: the re-run, the versions' YAML and the diff stay in the
        // second module.
        let history: HistoryFn = Rewind::history;
        let actions = self.player.record().actions();
        let (traced, stood) =
            std::hint::black_box(history)(&self.rewind, kind, &key, since, shown.now(), actions, &example_file, &start);
        let trace: TraceFn = crate::snapshot::history::trace_history;
        let data = std::hint::black_box(trace)(shown, traced.sim(), stood, kind, &key, traced.rerun);
        drop(start);
        self.versions = Some((key, data, None));
        self.pick_versions(None, None);
    }

    /// Compares versions `a` and `b` of the history shown.
    pub(super) fn pick_versions(&mut self, a: Option<u64>, b: Option<u64>) {
        if let Some((_, data, view)) = self.versions.as_mut() {
            let build: BuildFn = crate::snapshot::history::build_history;
            *view = Some(Rc::new(std::hint::black_box(build)(data, a, b)));
        }
    }
}
