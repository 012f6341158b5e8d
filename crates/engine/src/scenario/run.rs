//! Running a scenario: actions at their times, following commands, the convergence check.

use std::rc::Rc;

use super::*;

/// Reads `-f PATH` for kubectl actions; the error is printed as kubectl prints it (`error: ...`).
pub type ReadFile<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// No files: `-f PATH` is kubectl's "does not exist".
pub(super) fn no_file(name: &str) -> Result<String, String> {
    Err(format!("the path \"{name}\" does not exist"))
}

/// A command started by a kubectl action that keeps printing (`rollout status`, `get -w`, `drain`...).
pub struct Following {
    /// `kubectl rollout status deployment/web`, for the note when the run ends before it does.
    pub command: String,
    pub follow: Box<dyn Follow>,
    /// The action that started it (its index in the scenario's actions).
    pub action: usize,
    /// When it is interrupted (the action's `for:`), if it still runs then.
    pub stop_at: Option<Millis>,
    /// When it is looked at.
    pub grid: FollowGrid,
}

/// When a command that keeps printing is looked at (polled): every [`CHECK_INTERVAL`] of simulated time from its
/// own start, as a real kubectl's own timers run from its start. Nothing else moves it: not the actions after it
/// (a read least of all), not the other commands, not the page's frames. A command that writes as it goes (drain's
/// evictions, retried every 5 s while a disruption budget refuses) therefore writes at the same simulated times
/// whatever was read meanwhile, and at the same times in the runner and the page, which keeps the same grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FollowGrid {
    /// The command's start: the grid's origin.
    start: Millis,
    /// When it was last looked at (its start, before the first look).
    polled: Millis,
}

impl FollowGrid {
    /// The grid of a command started at `start`.
    pub fn new(start: Millis) -> Self {
        FollowGrid { start, polled: start }
    }

    /// The next look: the first point of the grid after the last look.
    pub fn next(&self) -> Millis {
        let points = (self.polled - self.start) / CHECK_INTERVAL + 1;
        self.start.saturating_add(points.saturating_mul(CHECK_INTERVAL))
    }

    /// Whether the command is to be looked at, at `now`.
    pub fn due(&self, now: Millis) -> bool {
        self.next() <= now
    }

    /// The command was looked at, at `now`.
    pub fn polled(&mut self, now: Millis) {
        self.polled = self.polled.max(now);
    }
}

/// Whether one more command that keeps printing (`writes`: one that writes as it goes, [`Follow::writes`]) is
/// followed beside those still running (whether each writes): at most [`MAX_FOLLOWS`] of each kind, so that
/// commands that only read never decide whether one that writes is followed.
pub fn room_to_follow(running: impl IntoIterator<Item = bool>, writes: bool) -> bool {
    running.into_iter().filter(|w| *w == writes).count() < MAX_FOLLOWS
}

/// What is said of a command that keeps printing and is not followed ([`room_to_follow`]).
pub fn not_followed(command: &str, writes: bool) -> String {
    let kind = if writes { "that write as they go" } else { "that only read" };
    format!("{command}: not followed: at most {MAX_FOLLOWS} commands {kind} keep printing at once")
}

/// A run handed over to go on with ([`Run::into_player`]).
pub struct Continued<'a> {
    /// The cluster where the run is, and its record: its start and the actions that ran.
    pub player: Player<'a>,
    /// The commands still following, in the order they started (each with its grid of looks).
    pub follows: Vec<Following>,
}

/// A scenario being run, step by step: [`Scenario::start`] builds the cluster and applies the manifests,
/// [`Run::run_to`] advances simulated time (running the actions that come due, collecting events and following
/// commands that keep printing), [`Run::sim_mut`] lets a caller act on the cluster in between (`kubeloop kubectl`),
/// and [`Run::finish`] ends it with the timeline and the summary.
pub struct Run<'a> {
    /// The cluster, the scenario's actions performed as they come due, and what was performed so far at its time
    /// (the scenario's actions as they ran, and [`Run::act`]'s).
    pub(super) player: Player<'a>,
    pub(super) timeline: Timeline,
    pub(super) event_seq: u64,
    pub(super) follows: Vec<Following>,
    /// The end of the run.
    pub(super) until: Millis,
    /// Start of the current streak of settled checks.
    pub(super) streak: Option<Millis>,
    /// (the versions of the kinds convergence reads, store settled) at the previous check.
    pub(super) last_check: Option<([u64; 4], bool)>,
    /// The work budget in simulation events (0: none), and when the run stopped at it.
    pub(super) max_events: u64,
    pub(super) stopped_at: Option<Millis>,
    /// The scenario's expectations, as far as they have come.
    pub(super) checks: Checks,
    /// The last whole second the expectations were looked at.
    pub(super) looked: Millis,
}

impl<'a> Run<'a> {
    fn push(&mut self, kind: EntryKind, source: &str, text: impl Into<String>) {
        let text = text.into();
        self.timeline.push(TimelineEntry { at: self.player.now(), kind, source: source.into(), text });
    }

    /// A command's output, one entry a line: stdout as results, then stderr as errors when the command failed
    /// (as results when it succeeded: warnings, `No resources found`).
    fn output(&mut self, warnings: &str, stdout: &str, stderr: &str, failed: bool) {
        for l in warnings.lines() {
            self.push(EntryKind::Result, "kubectl", l);
        }
        for l in stdout.lines() {
            self.push(EntryKind::Result, "kubectl", l);
        }
        let kind = if failed { EntryKind::Error } else { EntryKind::Result };
        for l in stderr.lines() {
            self.push(kind, "kubectl", l);
        }
    }

    /// Every Kubernetes Event written since the last call.
    fn collect_events(&mut self) {
        let (first, _) = self.player.sim().store().event_log();
        if self.event_seq < first {
            let lost = first - self.event_seq;
            self.push(EntryKind::Note, "scenario", format!("({lost} events not shown: the event log overflowed)"));
        }
        let (events, next) = self.player.sim().store().events_since(self.event_seq);
        self.event_seq = next;
        for o in events {
            let Some(ev) = o.as_event() else { continue };
            let at = ev.body.last_timestamp.map_or(self.player.now(), |t| t.0);
            self.timeline.push(TimelineEntry {
                at,
                kind: EntryKind::Event,
                source: ev.body.source.component.to_string(),
                text: render_event(ev),
            });
        }
    }

    /// Looks at the following commands due now, each on its own grid: what they printed since their last look; the
    /// finished ones are dropped.
    fn poll_due(&mut self) {
        let now = self.player.now();
        let mut i = 0;
        while i < self.follows.len() {
            let f = &mut self.follows[i];
            if !f.grid.due(now) {
                i += 1;
                continue;
            }
            f.grid.polled(now);
            let p = f.follow.poll(self.player.sim_mut());
            self.output(&p.warnings, &p.stdout, &p.stderr, p.done && p.code != 0);
            if p.done {
                self.follows.remove(i);
            } else {
                i += 1;
            }
        }
    }

    /// When the next following command is to be looked at.
    fn next_look(&self) -> Option<Millis> {
        self.follows.iter().map(|f| f.grid.next()).min()
    }

    /// Interrupts the following commands whose `for:` is up (looked at once more, then stopped, as Ctrl+C does).
    fn stop_due(&mut self) {
        let now = self.player.now();
        let mut i = 0;
        while i < self.follows.len() {
            if self.follows[i].stop_at.is_none_or(|t| t > now) {
                i += 1;
                continue;
            }
            let mut f = self.follows.remove(i);
            let p = f.follow.poll(self.player.sim_mut());
            self.output(&p.warnings, &p.stdout, &p.stderr, p.done && p.code != 0);
            if !p.done {
                f.follow.stop(self.player.sim_mut());
                self.push(EntryKind::Note, "scenario", format!("{}: interrupted (its for: is up)", f.command));
            }
        }
    }

    /// When the next following command is to be interrupted.
    fn next_stop(&self) -> Option<Millis> {
        self.follows.iter().filter_map(|f| f.stop_at).min()
    }

    /// Performs one intervention: what was done as an action entry (after its label, if any), what it printed as
    /// result or error entries; a command that keeps printing is followed as time passes.
    /// `stop_after`: the action's `for:`. A command it starts that keeps printing is followed as the record's next
    /// action (callers record what they perform right after).
    fn perform(
        &mut self,
        what: &Intervention,
        label: Option<&str>,
        shown_as: Option<&str>,
        stop_after: Option<Millis>,
    ) {
        if let Some(l) = label {
            self.push(EntryKind::Note, "scenario", l);
        }
        let done = self.player.perform(what);
        self.push(EntryKind::Action, "scenario", shown_as.unwrap_or(&done.action).to_string());
        for (said, source, text) in done.lines {
            let kind = match said {
                Said::Result => EntryKind::Result,
                Said::Error => EntryKind::Error,
            };
            self.push(kind, source, text);
        }
        if let Some(mut follow) = done.follow {
            // The command as it ran (`kubectl ...`, references resolved).
            let command = done.action;
            let writes = follow.writes();
            if room_to_follow(self.follows.iter().map(|f| f.follow.writes()), writes) {
                let (action, at) = (self.player.record().actions().len(), self.player.now());
                let stop_at = stop_after.map(|d| at.saturating_add(d));
                self.follows.push(Following { command, follow, action, stop_at, grid: FollowGrid::new(at) });
            } else {
                follow.stop(self.player.sim_mut());
                self.push(EntryKind::Note, "scenario", not_followed(&command, writes));
            }
        }
    }

    /// Interrupts the commands whose `for:` is up, runs the actions due now, collects events and looks at
    /// convergence.
    fn check(&mut self) {
        let actions = Rc::clone(self.player.script().actions());
        self.stop_due();
        while let Due::Perform(i) = self.player.take_due() {
            let a = &actions[i];
            self.perform(&a.what, a.label.as_deref(), None, a.stop_after);
            let now = self.player.now();
            self.player.record_mut().performed(Action { at: now, ..a.clone() });
            self.checks.ran(&actions, i, self.player.sim());
            self.last_check = None;
        }
        self.collect_events();
        let now = self.player.now();
        if self.player.script().is_done() && now >= self.player.script().last_at() {
            // The store part is looked at again only when one of the kinds it reads changed since the last check
            // (Lease renewals and Events, most of a large cluster's writes, leave it alone).
            let store = self.player.sim().store();
            let rv = [Kind::Pod, Kind::ReplicaSet, Kind::Deployment, Kind::Node]
                .map(|k| store.kind_resource_version_at(k, now));
            let store_ok = match self.last_check {
                Some((seen, ok)) if seen == rv => ok,
                _ => store_settled(self.player.sim()),
            };
            self.last_check = Some((rv, store_ok));
            // A streak starts settled and idle; periodic housekeeping (the node lifecycle controller's 5 s pass,
            // relists) may keep a worker busy for a moment without unsettling anything, so only the store ends it.
            if !store_ok {
                self.streak = None;
            } else if self.streak.is_none() && self.player.sim().idle() {
                self.streak = Some(now);
            }
        }
    }

    /// Advances the run to simulated time `t` (at most its end), looking at the cluster at every multiple of
    /// [`CHECK_INTERVAL`]: actions run when they come due, events are collected; following commands are polled on
    /// their own grids.
    pub fn run_to(&mut self, t: Millis) {
        let t = t.min(self.until);
        loop {
            if self.stopped_at.is_some() {
                return;
            }
            self.check();
            let now = self.player.now();
            if now >= t {
                break;
            }
            if self.max_events > 0 && self.player.sim().events_processed() >= self.max_events {
                self.stopped_at = Some(now);
                let msg = format!(
                    "stopped: the run reached its work budget of {} simulation events at {} (of {}); `kubeloop run --max-events N` sets another (0: none), `kubeloop soak` runs large clusters for days",
                    self.max_events,
                    human_duration(now),
                    human_duration(self.until)
                );
                self.push(EntryKind::Error, "scenario", msg);
                return;
            }
            // The next look at the cluster or at a following command, action, interruption or the end, whichever
            // comes first.
            let mut to = ((now / CHECK_INTERVAL).saturating_add(1)).saturating_mul(CHECK_INTERVAL).min(t);
            for due in [self.next_look(), self.player.script().next_at()] {
                to = to.min(due.unwrap_or(Millis::MAX));
            }
            if let Some(s) = self.next_stop() {
                to = to.min(s);
            }
            self.look_before(to);
            self.player.sim_mut().run_until(to);
            self.collect_events();
            self.poll_due();
        }
    }

    /// Looks at the open expectations on the whole seconds up to `to`, each as the events before it left the
    /// cluster (the page looks at the same moments): the events before the second run first.
    fn look_before(&mut self, to: Millis) {
        while self.checks.open() {
            let after = self.player.now().max(self.looked);
            let second = (after / SECOND).saturating_add(1).saturating_mul(SECOND);
            if second > to {
                return;
            }
            self.looked = second;
            self.player.sim_mut().run_until(second - 1);
            let decided = self.checks.look(self.player.script().actions(), self.player.sim(), second);
            for i in decided {
                if let Some((held, text)) = self.checks.said(self.player.script().actions(), i) {
                    let kind = if held { EntryKind::Note } else { EntryKind::Error };
                    self.timeline.push(TimelineEntry { at: second, kind, source: "expect".into(), text });
                }
            }
        }
    }

    /// The expectations as far as they have come.
    pub fn checks(&self) -> &Checks {
        &self.checks
    }

    /// The simulated time now.
    pub fn now(&self) -> Millis {
        self.player.now()
    }

    /// Whether a command that writes as it goes (`drain`) is being followed: no checkpoint of the run is taken then
    /// ([`Rewind::offer`]).
    pub fn writing(&self) -> bool {
        self.follows.iter().any(|f| f.follow.writes())
    }

    /// When the run stopped at its work budget, if it did.
    pub fn stopped_at_budget(&self) -> Option<Millis> {
        self.stopped_at
    }

    /// The end of the run ([`RunOptions::until`], else the scenario's `until:`, else [`DEFAULT_UNTIL`]).
    pub fn until(&self) -> Millis {
        self.until
    }

    /// The cluster.
    pub fn sim(&self) -> &Sim {
        self.player.sim()
    }

    /// The cluster, to act on between steps (the runner's own follows and convergence checks see the effects).
    pub fn sim_mut(&mut self) -> &mut Sim {
        self.last_check = None;
        self.player.sim_mut()
    }

    /// The timeline so far (its first and last entries: see [`MAX_TIMELINE_ENTRIES`]).
    pub fn timeline(&self) -> impl Iterator<Item = &TimelineEntry> {
        self.timeline.iter()
    }

    /// The cluster where the run is, to go on with (the page continues an imported run live): the actions that ran
    /// and the commands still following (they go on, on their grids).
    pub fn into_player(self) -> Continued<'a> {
        Continued { player: self.player, follows: self.follows }
    }

    /// Performs `what` now, as a person would between steps (a timeline entry and what it printed, a command that
    /// keeps printing followed), and records it.
    pub fn act(&mut self, what: Intervention, label: Option<String>) {
        self.perform(&what, label.as_deref(), None, None);
        self.last_check = None;
        self.player.record_now(what, label);
    }

    /// The run so far: where it started and what was performed since.
    pub fn record(&self) -> &Record {
        self.player.record()
    }

    /// The run so far as a scenario file ending now, which `kubeloop run` replays to the same history hash (or
    /// why it cannot be).
    pub fn export(&self) -> Result<String, String> {
        self.player.export()
    }

    /// Ends the run where it is: commands still following are stopped, and the summary is taken.
    pub fn finish(mut self) -> RunOutput {
        for mut f in std::mem::take(&mut self.follows) {
            f.follow.stop(self.player.sim_mut());
            self.push(
                EntryKind::Note,
                "scenario",
                format!("{}: still running at the end of the run, stopped", f.command),
            );
        }
        let not_run = self.player.script().actions().len() - self.player.script().performed();
        if not_run > 0 {
            let now = self.player.now();
            self.push(
                EntryKind::Note,
                "scenario",
                format!("{not_run} action(s) after the end of the run ({}) not run", human_duration(now)),
            );
        }
        let mut summary = summarize(self.player.sim());
        summary.last_action_ms = self.player.script().last_at();
        summary.converged_at_ms = self.streak;
        summary.actions_not_run = not_run;
        summary.stopped_at_budget_ms = self.stopped_at;
        summary.expectations = self.checks.summary(self.player.script().actions());
        RunOutput { timeline: self.timeline.into_vec(), summary }
    }
}

impl Scenario {
    /// Builds the cluster, applies the manifests and stands at t=0, ready to [`Run::run_to`]. Only a cluster that
    /// cannot be built is an error; failed actions are timeline entries.
    pub fn start<'a>(&self, opts: RunOptions<'a>) -> Result<Run<'a>, ScenarioError> {
        self.start_with(opts, |_| {})
    }

    /// [`Scenario::start`], with `setup` done to the simulation before its nodes are added and its manifests applied
    /// (a trace of one object's versions, [`Sim::trace`]).
    pub fn start_with<'a>(&self, opts: RunOptions<'a>, setup: impl FnOnce(&mut Sim)) -> Result<Run<'a>, ScenarioError> {
        let seed = opts.seed.or(self.seed).unwrap_or(DEFAULT_SEED);
        let until = opts.until.or(self.until).unwrap_or(DEFAULT_UNTIL);
        if until > MAX_UNTIL {
            return Err(ScenarioError::new(format!("a run lasts at most {}", human_duration(MAX_UNTIL))));
        }
        let max_events = opts.max_events.unwrap_or(crate::limits::MAX_RUN_EVENTS);
        let added = self.actions.iter().filter(|a| matches!(a.what, Intervention::AddNode(_))).count();
        // Pro rata: a run shorter than an hour renews its Leases too.
        let least =
            ((self.nodes.len() + added) as u128 * u128::from(until) * u128::from(crate::limits::EVENTS_PER_NODE_HOUR)
                / u128::from(HOUR))
            .min(u128::from(u64::MAX)) as u64;
        if max_events > 0 && least > max_events {
            return Err(ScenarioError::new(format!(
                "{} node(s) for {} is at least {least} simulation events (each node's Lease renewals alone), over the work budget of {max_events}: shorten `until:`, use fewer nodes, or set another budget with `kubeloop run --max-events N` (0: none); `kubeloop soak` runs large clusters for days",
                self.nodes.len() + added,
                human_duration(until)
            )));
        }
        let (sim, names) = self.cluster_with(seed, opts.timing, setup)?;
        let timing = opts.timing.unwrap_or(self.timing);
        let mut player = Player::new(sim, Record::new(self, seed, timing), opts.read_file.unwrap_or(&no_file));
        player.play(Script::new(self.actions.clone().into(), 0, Some(until)));
        let mut r = Run {
            player,
            timeline: Timeline::default(),
            event_seq: 0,
            follows: Vec::new(),
            until,
            streak: None,
            last_check: None,
            max_events,
            stopped_at: None,
            checks: Checks::of(&self.actions),
            looked: 0,
        };

        if names.is_empty() {
            r.push(
                EntryKind::Note,
                "scenario",
                "cluster: no nodes (nodes: 0): pods stay Pending until a node is added",
            );
        } else {
            let shown: Vec<&str> = names.iter().take(8).map(String::as_str).collect();
            let more = if names.len() > shown.len() {
                format!(", ... ({} more)", names.len() - shown.len())
            } else {
                String::new()
            };
            r.push(
                EntryKind::Note,
                "scenario",
                format!("cluster: {} node(s): {}{more}", names.len(), shown.join(", ")),
            );
        }
        if self.addons {
            r.push(EntryKind::Note, "scenario", crate::addons::NOTE);
        }
        r.collect_events();
        if let Some(m) = &self.manifests {
            r.perform(&Intervention::Apply(m.clone()), None, Some("kubectl apply -f manifests"), None);
        }
        Ok(r)
    }

    /// The scenario's cluster at t=0, before its manifests: the seed's simulation with the node failure timings
    /// (`timing`, else the scenario's) and its nodes, and their names. The runner and the page's lessons start
    /// here.
    pub fn cluster(&self, seed: u64, timing: Option<TimingProfile>) -> Result<(Sim, Vec<String>), ScenarioError> {
        self.cluster_with(seed, timing, |_| {})
    }

    /// [`Scenario::cluster`], with `setup` done to the simulation before its nodes are added.
    fn cluster_with(
        &self,
        seed: u64,
        timing: Option<TimingProfile>,
        setup: impl FnOnce(&mut Sim),
    ) -> Result<(Sim, Vec<String>), ScenarioError> {
        let config = SimConfig { seed, node_template: self.node_template.clone(), ..SimConfig::default() };
        let mut sim = Sim::new(timing.unwrap_or(self.timing).apply(config));
        setup(&mut sim);
        let mut names: Vec<String> = Vec::with_capacity(self.nodes.len());
        for n in &self.nodes {
            names.push(sim.add_node(n.clone()).map_err(ScenarioError::new)?);
        }
        if self.addons {
            crate::addons::install(&mut sim).map_err(ScenarioError::new)?;
        }
        Ok((sim, names))
    }

    /// Runs the scenario from t=0 to its end.
    pub fn run(&self, opts: RunOptions) -> Result<RunOutput, ScenarioError> {
        let mut r = self.start(opts)?;
        r.run_to(r.until());
        Ok(r.finish())
    }
}
