//! The clock: each frame runs the simulation's events within its budget up to the target time, the recorded and
//! scripted actions when they are due, and samples the charts once a simulated second.

use super::*;

impl LiveRun {
    /// The next moment something other than a simulation event is due: a look at one of the console's running
    /// commands (each on its grid, as the runner's), an interruption (a replayed `for:`), the lesson's (or the
    /// replay's) next action.
    pub(super) fn next_due(&self) -> Option<Millis> {
        [self.next_step_at(), self.console.next_due()].into_iter().flatten().min()
    }

    /// Runs what is due at `s` (the clock stands there), in the runner's order: the looks, the interruptions, then
    /// the action.
    pub(super) fn run_due(&mut self, s: Millis) {
        if self.console.poll_due(self.player.sim_mut(), s) {
            self.dirty = true;
        }
        for i in self.console.stop_due(self.player.sim_mut(), s) {
            self.stopped(i);
        }
        if self.next_step_at().is_some_and(|t| t <= s) {
            self.run_step();
        }
    }

    /// Runs what is left at the clock's time: the events of this millisecond a frame stopped between (its budget
    /// spent), then what is due (a command's look, a replayed step), so that a person's action here comes after
    /// them, as it does when the run is replayed (every event of a millisecond, then what is due, then the action).
    pub(super) fn settle_now(&mut self) {
        if self.applying.is_some() {
            return;
        }
        let now = self.player.now();
        self.player.sim_mut().run_until(now);
        if self.next_due().is_some_and(|s| s <= now) {
            self.run_due(now);
        }
    }

    /// At this speed single watch events and queue items blur: the loop diagram shows rates.
    pub(super) fn blurs(&self) -> bool {
        self.playing && !matches!(self.speed, Speed::X(k) if k < LOOP_RATES_FROM)
    }

    /// Answers the lesson's waiting question, if one waits (`None`: skipped): the player goes on with its step.
    pub(super) fn answer(&mut self, choice: Option<usize>) {
        if let (Some(step), Some(run)) = (self.player.release(), self.lesson.as_mut()) {
            run.answer(step, choice);
        }
    }

    /// A lesson's question waits for its answer: the player holds at its step, and the clock with it.
    pub(super) fn held(&self) -> bool {
        self.player.holding().is_some()
    }

    /// When the lesson's (or the replay's) next action is due.
    pub(super) fn next_step_at(&self) -> Option<Millis> {
        self.player.next_at()
    }

    /// Runs the lesson's (or the replay's) next action (its time has come), as the runner does; a lesson's step
    /// with a question waits for its answer first.
    pub(super) fn run_step(&mut self) {
        if self.held() {
            return;
        }
        let step = match self.player.take_due() {
            Due::Nothing => return,
            Due::Holding(_) => {
                // The step waits for the person's prediction: the clock holds here.
                self.playing = false;
                self.dirty = true;
                return;
            }
            Due::Perform(step) => step,
        };
        let a = self.player.script().actions()[step].clone();
        let done = self.intervene(&a.what);
        self.record(a.what, a.label);
        match self.lesson.as_mut() {
            Some(run) => {
                run.results.push(done.one_line());
                run.ran(step, self.player.sim());
            }
            None => {
                // A replayed command that kept printing stops where the recorded one did (its `for:`).
                let i = self.player.record().actions().len().checked_sub(1);
                if let Some(r) = self.console.newest().filter(|r| r.action == i) {
                    r.stop_at = a.stop_after.map(|d| a.at.saturating_add(d));
                }
            }
        }
        self.dirty = true;
    }

    /// Performs an intervention on the simulation (a button, an apply, a lesson's action): an apply's result goes to
    /// the editor, another's error to the notice. A kubectl command that keeps printing (a lesson's `drain`) goes
    /// on in the console, as the runner follows it.
    pub(super) fn intervene(&mut self, what: &Intervention) -> Performed {
        // A command line (or a delete that waits) may keep printing: in the console it is a new line there.
        if matches!(what, Intervention::Kubectl(_) | Intervention::Delete { wait: true, .. }) {
            self.interrupt_readers();
        }
        let mut done = self.player.perform(what);
        if let Some(f) = done.follow.take() {
            let printed = done.text();
            // The action is recorded next, at this index (the callers record what they perform).
            let action = Some(self.player.record().actions().len());
            self.console.adopt(self.player.sim_mut(), &done.action, &printed, f, action, None);
        }
        if let Some(report) = &done.applied {
            self.apply = Rc::new(apply_outcome(self.apply.seq + 1, report));
        } else if let Some(e) = done.error() {
            self.notice = Some(e.into());
        }
        done
    }

    pub(super) fn wall(&self) -> f64 {
        (self.clock)()
    }

    pub(super) fn sample(&mut self, t: Millis) {
        let polling = matches!(self.player.sim().observe_mode(), ObserveMode::Polling { .. });
        self.meter.sample(t, polling, self.player.sim().api_reads());
        let depths = self.player.sim().queue_depths();
        if self.history.len() != depths.len() {
            self.history.resize_with(depths.len(), VecDeque::new);
        }
        for (h, (_, d)) in self.history.iter_mut().zip(depths) {
            if h.len() >= HISTORY {
                h.pop_front();
            }
            h.push_back(d.min(u32::MAX as usize) as u32);
        }
        self.loop_history.sample(self.player.sim(), &self.loop_controller, t);
        let drift = self.informers.iter().map(|r| r.drift).sum();
        self.cluster_history.sample(self.player.sim(), drift, t);
        if let Some(run) = self.lesson.as_mut() {
            run.look(self.player.sim(), t);
        }
    }

    /// Samples every simulated-second boundary up to `t` (the state is constant between events, so a boundary
    /// before the next event sees exactly the state at that moment).
    pub(super) fn sample_until(&mut self, t: Millis) {
        if self.next_sample + HISTORY as Millis * SECOND < t {
            // A long jump: only the last window matters.
            self.next_sample = (t / SECOND).saturating_sub(HISTORY as Millis) * SECOND;
        }
        while self.next_sample <= t {
            self.sample(self.next_sample);
            self.next_sample += SECOND;
        }
    }

    /// Runs events due up to the target until the wall budget (from `started`) is spent. Returns whether the
    /// target was reached.
    pub(super) fn drain(&mut self, started: f64, budget: f64) -> bool {
        if self.applying.is_some() {
            return true;
        }
        let mut n: u32 = 0;
        // Events until the wall clock is read next: one at first, then as many as an eighth of the budget holds at
        // the cost per event seen so far (at most 16). At scale one event (a scheduling cycle scoring a thousand
        // nodes) can cost tens of milliseconds: reading the clock only every 16 events made frames of a second.
        let mut batch: u32 = 1;
        let mut left = batch;
        while let Some(at) = self.player.sim().next_event_at() {
            if self.held() {
                self.target = self.player.now() as f64;
                return true;
            }
            if at as f64 > self.target {
                break;
            }
            if let Some(s) = self.next_due().filter(|&s| s <= at) {
                // What is due comes first: the clock moves to it, it runs.
                self.sample_until(s);
                self.player.sim_mut().run_until(s);
                self.run_due(s);
                continue;
            }
            self.sample_until(at);
            self.player.sim_mut().step();
            n += 1;
            left -= 1;
            if left == 0 {
                let spent = self.wall() - started;
                if spent > budget {
                    return false;
                }
                batch = (budget / 8.0 / (spent / f64::from(n)).max(1e-6)).clamp(1.0, 16.0) as u32;
                left = batch;
            }
        }
        if self.target.is_finite() {
            let t = self.target.max(0.0) as Millis;
            self.run_to(t);
        }
        true
    }

    /// Moves the clock to `t` (no event is due before it), running the lesson's steps due by then.
    pub(super) fn run_to(&mut self, t: Millis) {
        while let Some(s) = self.next_due().filter(|&s| s <= t) {
            self.sample_until(s);
            self.player.sim_mut().run_until(s);
            self.run_due(s);
            if self.held() {
                self.target = self.player.now() as f64;
                return;
            }
        }
        if t > self.player.now() {
            self.sample_until(t);
            self.player.sim_mut().run_until(t);
        }
    }

    /// One animation frame: `dt` wall milliseconds since the previous one.
    pub fn frame(&mut self, dt: f64) {
        self.frame_within(dt, FRAME_BUDGET_MS);
    }

    /// One animation frame whose events may take `budget` wall milliseconds (less than [`FRAME_BUDGET_MS`] in a
    /// frame that also builds and draws a snapshot).
    pub fn frame_within(&mut self, dt: f64, budget: f64) {
        let started = self.wall();
        if self.applying.is_some() {
            // The clock is held while a large apply is read: it is performed at the time it was asked for.
            self.step_apply(started, budget);
            self.target = self.player.now() as f64;
            return;
        }
        let dt = if dt.is_finite() { dt.clamp(0.0, MAX_FRAME_DT) } else { 0.0 };
        let now = self.player.now() as f64;
        if self.target < now {
            self.target = now;
        }
        if self.playing {
            match self.speed {
                Speed::X(k) => self.target += dt * k as f64,
                Speed::Max => self.target = f64::INFINITY,
            }
        }
        let reached = self.drain(started, budget);
        self.offer_checkpoint();
        if self.speed == Speed::Max && self.playing {
            // As fast as the budget allows; with nothing left to run, time still moves (1000x).
            if reached {
                let t = self.player.now() + (dt * 1000.0) as Millis;
                self.run_to(t);
            }
            self.target = self.player.now() as f64;
            self.lagging = false;
        } else if !reached {
            // Behind: do not build up a debt; the clock simply runs slower than asked, and says so.
            self.target = self.player.now() as f64;
            self.lagging = self.playing;
        } else {
            self.lagging = false;
        }
        crate::crash::note_time(self.player.now());
        let wall = self.wall();
        let (w0, s0) = self.rate_window;
        if wall - w0 >= 1000.0 {
            self.effective = (self.player.now().saturating_sub(s0)) as f64 / (wall - w0);
            self.rate_window = (wall, self.player.now());
        }
    }
}
