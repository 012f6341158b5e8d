//! Forking the run: from the moment the page shows (live, or scrubbed to), the run goes on as a fork (the record
//! up to there, the cluster as it was), and the run it was forked from is kept to compare with: as the fork goes
//! on, the engine runs the other on to the same moment (from its checkpoints) and the page shows where they first
//! diverge and how their objects differ. The one thing changed is what the person does next (revive the node the
//! other killed, kill another, switch a controller to edge-triggered...), or what the other did after the fork. A
//! replay with another seed is a fork at 0: the run of the old seed is kept and compared the same way.

use kubeloop_engine::scenario::{ForkCompare, Record, Rewind, RunDiff, Scrubbed};

use super::*;
use crate::view::ForkView;

/// A fork's comparison is looked at again at most this often (wall ms): each look runs the other run on.
pub const LOOK_EVERY_MS: f64 = 500.0;
/// ... and at most every this many times what the last look cost, so that comparing takes at most a twentieth of the
/// page's time (a large cluster: the other run's events, every object compared).
const LOOK_SHARE: f64 = 20.0;

/// The run a fork was forked from, and the comparison so far.
pub(crate) struct Fork {
    /// The other run: its record (to where it was at the fork), checkpoints, seed and timings.
    record: Record,
    rewind: Rewind,
    seed: u64,
    profile: TimingProfile,
    /// The moment of the fork.
    at: Millis,
    /// Where the other run was when the page forked (it goes on past it with nothing more performed).
    end: Millis,
    /// The other run at the last moment compared, to go on from.
    other: Option<Scrubbed>,
    compare: ForkCompare,
    view: Option<Rc<ForkView>>,
    /// When (wall ms) it was last looked at, and what that look cost (wall ms).
    looked: f64,
    cost: f64,
}

type LookFn = fn(&mut ForkCompare, &Sim, &Sim) -> RunDiff;

impl LiveRun {
    /// Forks the run at the moment shown: the page goes on live from there as the fork.
    pub(super) fn fork(&mut self) {
        if let Some(why) = self.player.record().unrecordable() {
            self.notice = Some(format!("This run cannot be forked exactly: {why}.").into());
            return;
        }
        let mut dropped = 0;
        let parent = match self.scrubbed.take() {
            // From a moment of the past: the cluster as it was, the record up to there; the clock as it was.
            Some(s) => {
                let (at, performed) = (s.sim().now(), s.performed());
                let parent = self.kept_run(at, s.sim().store().resource_version());
                dropped = parent.record.actions().len() - performed;
                self.console.interrupt_where(self.player.sim_mut(), &|_| true);
                self.player = Player::new(s.into_sim(), parent.record.fork(performed, at), &example_file);
                crate::crash::note_record(self.player.record());
                self.stream = Stream::default();
                // Losses the copy's informers counted before the fork are not marked again.
                self.dropped_seen = u64::MAX;
                self.target = at as f64;
                self.playing = self.resume;
                self.why = None;
                parent
            }
            // From now: the run goes on as it is (its commands too); only the comparison is new.
            None => self.kept_run(self.player.now(), self.player.sim().store().resource_version()),
        };
        let at = parent.at;
        self.new_timeline();
        self.fork = Some(parent);
        self.notice = Some(
            format!(
                "Forked at {}: this run goes on from there{}. Change one thing and compare it with the run it was forked from, below.",
                crate::format::fmt_secs(at),
                match dropped {
                    0 => String::new(),
                    n => format!(" without the {n} intervention(s) the other made after it"),
                }
            )
            .into(),
        );
    }

    /// The run as it is (its record, its checkpoints, which it takes), kept to compare with a fork of it at `at`,
    /// where its last write was `rv`; a replay with another seed is a fork at 0.
    pub(super) fn kept_run(&mut self, at: Millis, rv: u64) -> Fork {
        Fork {
            record: self.player.record().clone(),
            rewind: std::mem::take(&mut self.rewind),
            seed: self.seed,
            profile: self.profile,
            at,
            end: self.player.now(),
            other: None,
            compare: ForkCompare::new(rv),
            view: None,
            looked: f64::NEG_INFINITY,
            cost: 0.0,
        }
    }

    /// The comparison shown, looked at again when it is due: the other run taken on to the fork's time.
    pub(super) fn fork_view(&mut self) -> Option<Rc<ForkView>> {
        let wall = self.wall();
        let f = self.fork.as_mut()?;
        let now = self.player.now();
        let stale = f.view.as_ref().is_none_or(|v| v.until != now);
        let every = self.fork_look_ms.max(f.cost * LOOK_SHARE);
        if stale && wall - f.looked >= every && crate::deferred::ready() {
            f.looked = wall;
            let start = super::scrub::starter(f.seed, f.profile, f.record.base());
            let scrub: super::scrub::ScrubFn = Rewind::scrub;
            let other =
                std::hint::black_box(scrub)(&f.rewind, now, f.record.actions(), f.other.take(), &example_file, &start);
            // Through a pointer binaryen cannot see through: the comparison's code stays in the second module.
            let look: LookFn = ForkCompare::look;
            let diff = std::hint::black_box(look)(&mut f.compare, other.sim(), self.player.sim());
            f.other = Some(other);
            f.view = Some(Rc::new(view_of(f.at, f.end, &diff)));
            f.cost = (self.clock)() - wall;
        }
        f.view.clone()
    }

    /// Stops comparing with the run forked from (this one goes on).
    pub(super) fn unfork(&mut self) {
        self.fork = None;
    }
}

/// The comparison as the page shows it.
fn view_of(at: Millis, end: Millis, d: &RunDiff) -> ForkView {
    use kubeloop_engine::scenario::ObjectChange;
    let objects = d
        .objects
        .iter()
        .map(|o| {
            let name = if o.namespace.is_empty() { o.name.clone() } else { format!("{}/{}", o.namespace, o.name) };
            let (change, lines) = match &o.change {
                ObjectChange::OnlyInA => ("only in the run forked from", Vec::new()),
                ObjectChange::OnlyInB => ("only in this fork", Vec::new()),
                ObjectChange::Differs { lines, more } => {
                    let mut lines = lines.clone();
                    if *more > 0 {
                        lines.push(format!("... {more} more changed line(s)"));
                    }
                    ("differs", lines)
                }
            };
            (format!("{} {name}", o.kind), change, lines)
        })
        .collect();
    let first = d.first_divergence.as_ref().map(|v| (v.at_ms, v.a.clone(), v.b.clone()));
    ForkView { at, end, until: d.until_ms, first, objects, more: d.more_objects }
}
