//! Scrubbing a run: the cluster as it was at any earlier simulated moment, made again from the nearest checkpoint
//! by deterministic re-execution (the same engine, the same record of interventions), never from a second model
//! of the past. The page's timeline and the runner's `--at` ask the same questions of it as of the live cluster.
//!
//! Memory policy (kubeloop's own, shown on the page): a checkpoint is a copy of the whole cluster (objects shared
//! with the live run until either writes them), without what is kept only for observers (`Sim::checkpoint`: the
//! causes and the reconcile log, which the live run keeps; a scrubbed cluster has those since its checkpoint). The
//! run's start is no checkpoint: it is made again from the run's record (its scenario) when a scrub needs it. A
//! checkpoint is taken every `spacing` simulation events, at a moment when no command that writes as it goes
//! (`drain`) runs. At most [`Rewind::max_kept`] are kept:
//! [`MAX_CHECKPOINTS`], fewer for a large cluster ([`CHECKPOINT_OBJECTS`] objects across them all). Past that, the
//! one whose neighbours are nearest is dropped (never the newest) and the next ones are spaced by the run's events
//! over the bound, so the checkpoints stay spread over the whole run and a scrub re-runs at most about two spacings.

use super::*;
use crate::kubectl::Input;

/// Checkpoints kept at most (kubeloop's own bound).
pub const MAX_CHECKPOINTS: usize = 32;
/// Checkpoints kept at least, however large the cluster.
pub const MIN_CHECKPOINTS: usize = 2;
/// Objects (the store's, counted once per checkpoint) the checkpoints hold at most together, above
/// [`MIN_CHECKPOINTS`]. A checkpoint costs about 1 KiB per object once the live run has rewritten what it shared
/// (its map entries, informer caches and its own versions of the objects: 294 MiB for four checkpoints of 1,000
/// nodes and 30,000 pods, `kubeloop bench --scrub`), so this holds them to about 340 MiB.
pub const CHECKPOINT_OBJECTS: usize = 340_000;
/// Simulation events between the first checkpoints (the spacing grows as they are thinned).
pub const FIRST_SPACING: u64 = 2_000;
/// Commands that write as they go that a re-execution follows at once (the runner's and the page's own bound).
const MAX_WRITERS: usize = MAX_FOLLOWS;

/// The cluster at one moment of the run.
#[derive(Clone)]
struct Checkpoint {
    /// How many of the record's actions had been performed (those at its time included).
    performed: usize,
    sim: Sim,
}

/// The checkpoints of one run ([module docs](self)).
pub struct Rewind {
    /// In time order (the run's start is not one: it is made again). Never more than [`Rewind::max_kept`] once thinned.
    kept: Vec<Checkpoint>,
    /// Simulation events between two checkpoints; grows to the run's events over the bound as they are thinned.
    spacing: u64,
    /// The simulation's event count at which the next checkpoint is due.
    next: u64,
}

/// A command that writes as it goes (`drain`), started by a re-performed action.
struct Writer {
    follow: Box<dyn Follow>,
    grid: FollowGrid,
    stop_at: Option<Millis>,
}

/// The cluster made again at a moment of the run ([`Rewind::scrub`]): read-only for its holder, and the place the
/// next scrub forward goes on from.
pub struct Scrubbed {
    sim: Sim,
    /// The record's actions performed so far.
    performed: usize,
    /// Commands that write as they go still running, polled on their grids as the page and the runner poll them.
    writers: Vec<Writer>,
    /// Simulation events re-run to make it (from its checkpoint or the scrub before).
    pub rerun: u64,
}

/// What the checkpoints are now, as the page shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RewindPolicy {
    pub kept: usize,
    pub max_kept: usize,
    /// Events between two checkpoints.
    pub spacing: u64,
}

impl Default for Rewind {
    fn default() -> Self {
        Rewind::new(FIRST_SPACING)
    }
}

impl Rewind {
    /// No checkpoints yet (the run's start is made again from its record, [`Rewind::scrub`]'s `start`); the first
    /// is due after `spacing` events (at least one).
    pub fn new(spacing: u64) -> Rewind {
        let spacing = spacing.max(1);
        Rewind { kept: Vec::new(), spacing, next: spacing }
    }

    /// [`Rewind::new`], keeping the run's start too (`checkpoint`, a copy of it, with `performed` actions of its record
    /// performed): a large cluster's start takes long to make again.
    pub fn from_start(spacing: u64, checkpoint: Sim, performed: usize) -> Rewind {
        let mut r = Rewind::new(spacing);
        r.next = checkpoint.events_processed().saturating_add(r.spacing);
        r.kept.push(Checkpoint { performed, sim: checkpoint });
        r
    }

    /// Checkpoints kept at most for a cluster of `objects` objects.
    pub fn max_kept(objects: usize) -> usize {
        (CHECKPOINT_OBJECTS / objects.max(1)).clamp(MIN_CHECKPOINTS, MAX_CHECKPOINTS)
    }

    /// Whether a checkpoint is due for the run at `sim` ([`Rewind::offer`]).
    pub fn due(&self, sim: &Sim) -> bool {
        sim.events_processed() >= self.next && self.kept.last().is_none_or(|c| c.sim.now() <= sim.now())
    }

    /// The run went on to `checkpoint` (a copy of its cluster, `Sim::checkpoint`) with `performed` actions of its
    /// record performed, and no command that writes as it goes runs: kept if one is due. Whether it was.
    pub fn offer(&mut self, checkpoint: impl FnOnce() -> Sim, performed: usize, sim: &Sim) -> bool {
        if !self.due(sim) {
            return false;
        }
        self.kept.push(Checkpoint { performed, sim: checkpoint() });
        self.next = sim.events_processed().saturating_add(self.spacing);
        let max = Rewind::max_kept(store_objects(sim));
        while self.kept.len() > max {
            self.thin(max);
        }
        debug_assert!(self.kept.windows(2).all(|w| w[0].sim.now() <= w[1].sim.now()), "checkpoints in time order");
        true
    }

    /// Drops the checkpoint whose neighbours are nearest to each other (in events; the run's start before the
    /// first, the newest never dropped), and spaces the next ones by the run's events over the bound: the
    /// checkpoints stay spread over the whole run, and a scrub re-runs at most about two spacings.
    fn thin(&mut self, max: usize) {
        let events = |c: &Checkpoint| c.sim.events_processed();
        let last = self.kept.len() - 1;
        let gap = |i: usize| events(&self.kept[i + 1]) - i.checked_sub(1).map_or(0, |p| events(&self.kept[p]));
        if let Some(i) = (0..last).min_by_key(|i| gap(*i)) {
            self.kept.remove(i);
        }
        let run = self.kept.last().map_or(0, events);
        self.spacing = self.spacing.max(run / max.max(1) as u64);
    }

    /// Each checkpoint's moment in the run's events, oldest first.
    pub fn events(&self) -> Vec<u64> {
        self.kept.iter().map(|c| c.sim.events_processed()).collect()
    }

    /// The checkpoints now.
    pub fn policy(&self, sim: &Sim) -> RewindPolicy {
        RewindPolicy { kept: self.kept.len(), max_kept: Rewind::max_kept(store_objects(sim)), spacing: self.spacing }
    }

    /// The cluster as it was at `t`: the nearest checkpoint at or before `t` (or `cursor`, the scrub before, when it
    /// is nearer and not past `t`; or, before the first checkpoint, the run's start as `start` makes it again from
    /// its record), run on to `t` with the record's `actions` performed at their times (`read_file` reads their
    /// `-f PATH`), as the live run performed them.
    pub fn scrub(
        &self,
        t: Millis,
        actions: &[Action],
        cursor: Option<Scrubbed>,
        read_file: ReadFile,
        start: &dyn Fn() -> Sim,
    ) -> Scrubbed {
        let from = self.kept.partition_point(|c| c.sim.now() <= t);
        let at = from.checked_sub(1).map_or(0, |i| self.kept[i].sim.now());
        let mut s = match cursor {
            Some(c) if c.sim.now() <= t && c.sim.now() >= at => c,
            _ => self.copy(from, start),
        };
        s.run(t, actions, read_file);
        s
    }

    /// Every version of `kind`/`key` the run made from `since` (its first write kept, or 0) up to `t`: the
    /// nearest checkpoint before `since` (or the run's start), keeping the object's versions (`Sim::trace`), run on
    /// to `t` with the record's `actions`. The versions are the returned cluster's `causes().trace()`; the object as
    /// it stood when the re-run began (the version before the first traced) is returned beside it.
    #[allow(clippy::too_many_arguments)]
    pub fn history(
        &self,
        kind: Kind,
        key: &ObjKey,
        since: Millis,
        t: Millis,
        actions: &[Action],
        read_file: ReadFile,
        start: &dyn Fn() -> Sim,
    ) -> (Scrubbed, Option<std::rc::Rc<Object>>) {
        let mut s = self.copy(self.kept.partition_point(|c| c.sim.now() < since), start);
        let before = s.sim.store().peek(kind, key).cloned();
        s.sim.trace(kind, key.clone());
        s.run(t, actions, read_file);
        (s, before)
    }

    /// A copy of the checkpoint before the `i`-th (the run's start before the first).
    fn copy(&self, i: usize, start: &dyn Fn() -> Sim) -> Scrubbed {
        match i.checked_sub(1).map(|i| &self.kept[i]) {
            Some(c) => Scrubbed { sim: c.sim.clone(), performed: c.performed, writers: Vec::new(), rerun: 0 },
            None => Scrubbed { sim: start(), performed: 0, writers: Vec::new(), rerun: 0 },
        }
    }
}

/// The objects of every kind in the store.
fn store_objects(sim: &Sim) -> usize {
    Kind::ALL.iter().map(|k| sim.store().count_of(*k)).sum()
}

impl Scrubbed {
    /// The cluster at the scrubbed moment.
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// The record's actions performed by then.
    pub fn performed(&self) -> usize {
        self.performed
    }

    /// The cluster, to go on with (a fork): the commands that write as they go still running stop here.
    pub fn into_sim(mut self) -> Sim {
        for mut w in std::mem::take(&mut self.writers) {
            w.follow.stop(&mut self.sim);
        }
        self.sim
    }

    /// Runs on to `t` (counting the events it re-ran).
    fn run(&mut self, t: Millis, actions: &[Action], read_file: ReadFile) {
        let before = self.sim.events_processed();
        self.run_to(t, actions, read_file);
        self.rerun = self.sim.events_processed() - before;
    }

    /// Runs on to `t`: at each moment something is due, the writers' looks, their interruptions (`for:`), then the
    /// actions due, in the order the page and the runner run them.
    fn run_to(&mut self, t: Millis, actions: &[Action], read_file: ReadFile) {
        loop {
            let next_action = actions.get(self.performed).map(|a| a.at);
            let next_writer = self.writers.iter().map(|w| w.grid.next().min(w.stop_at.unwrap_or(Millis::MAX))).min();
            let due = [next_action, next_writer].into_iter().flatten().min().filter(|at| *at <= t);
            let Some(at) = due else { break };
            self.sim.run_until(at);
            self.poll_due(at);
            self.stop_due(at);
            while let Some(a) = actions.get(self.performed).filter(|a| a.at <= at) {
                self.perform(a, read_file);
            }
        }
        self.sim.run_until(t);
    }

    fn poll_due(&mut self, now: Millis) {
        let sim = &mut self.sim;
        self.writers.retain_mut(|w| {
            if !w.grid.due(now) {
                return true;
            }
            w.grid.polled(now);
            !w.follow.poll(sim).done
        });
    }

    /// Interrupts the writers whose `for:` is up (looked at once more, then stopped, as Ctrl+C does).
    fn stop_due(&mut self, now: Millis) {
        let sim = &mut self.sim;
        self.writers.retain_mut(|w| {
            if w.stop_at.is_none_or(|s| s > now) {
                return true;
            }
            if !w.follow.poll(sim).done {
                w.follow.stop(sim);
            }
            false
        });
    }

    /// Performs the record's next action. A command that only reads is stopped at once (what a person reads never
    /// changes the cluster); one that writes as it goes is followed, as the live run followed it.
    fn perform(&mut self, a: &Action, read_file: ReadFile) {
        self.performed += 1;
        let done = self.sim.intervene(&a.what, &Input { stdin: None, read_file });
        let Some(mut follow) = done.follow else { return };
        let now = self.sim.now();
        if follow.writes() && self.writers.len() < MAX_WRITERS {
            let stop_at = a.stop_after.map(|d| a.at.saturating_add(d));
            self.writers.push(Writer { follow, grid: FollowGrid::new(now), stop_at });
        } else {
            follow.stop(&mut self.sim);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_on_checkpoints_follows_the_cluster_size() {
        assert_eq!(Rewind::max_kept(30), MAX_CHECKPOINTS);
        assert_eq!(Rewind::max_kept(0), MAX_CHECKPOINTS);
        assert_eq!(Rewind::max_kept(40_000), 8);
        assert_eq!(Rewind::max_kept(10_000_000), MIN_CHECKPOINTS);
    }
}
