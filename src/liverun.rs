//! The simulation as the page runs it: the `Sim`, the clock target the frame loop chases, the user's commands, the
//! event stream and the queue-depth history. No browser API here (the wall clock is handed in), so it is tested
//! natively.

use std::collections::VecDeque;
use std::rc::Rc;

use kubeloop_engine::api::{controller_of, Kind, ObjKey, Object, PodPhase};
use kubeloop_engine::controller::TriggerMode;
use kubeloop_engine::faults::Faults;
use kubeloop_engine::kubectl;
use kubeloop_engine::sim::{HostId, ObserveMode, Sim, SimConfig, TimingProfile, DEFAULT_POLL_PERIOD};
use kubeloop_engine::store::{DeleteOptions, Subresource};
use kubeloop_engine::time::{Millis, SECOND};

use crate::console::{example_file, Console};
use crate::lessons::{Action, Lesson};
use crate::readmeter::ReadMeter;
use crate::snapshot::{
    build_cluster, build_control_plane, build_controllers, build_detail, build_informers, build_lesson, build_loop,
    build_summary, ApplyOutcome, EditorLoad, NodeCache, Selection, Snapshot, Speed, TimeView,
};
use crate::stream::Stream;

pub const DEFAULT_SEED: u64 = 1;
/// Nodes the page starts with.
pub const START_NODES: usize = 3;
/// Wall time a frame may spend running events.
pub const FRAME_BUDGET_MS: f64 = 8.0;
/// Queue-depth samples kept per controller (one per simulated second).
pub const HISTORY: usize = 120;
/// Longest wall gap a frame accounts for (a hidden tab does not come back to a jump of minutes).
const MAX_FRAME_DT: f64 = 250.0;

/// What the user can do.
#[derive(Clone, Debug, PartialEq)]
pub enum Cmd {
    Apply(String),
    KillNode(String),
    ReviveNode(String),
    Cordon(String, bool),
    AddNode,
    DeletePod(ObjKey),
    Select(Selection),
    SetPlaying(bool),
    Step,
    SetSpeed(Speed),
    /// Percent, 0..=100.
    SetWatchDrop(u32),
    /// Seconds, 0 disables.
    SetResync(u64),
    /// Every controller that has the mode (only the ReplicaSet controller has an edge mode).
    SetTrigger(TriggerMode),
    /// Polling (every [`DEFAULT_POLL_PERIOD`]) or informers.
    SetPolling(bool),
    /// Relist period in seconds, 0 = only on 410.
    SetRelist(u64),
    /// Percent of updates answered 409 Conflict.
    SetConflicts(u32),
    /// Extra latency of every API request of a component (ms).
    SetLatency(u64),
    /// Pod creates refused with 403 exceeded quota.
    SetRejectCreates(bool),
    /// Cuts the watch of every control-plane informer (they re-watch from their last resourceVersion).
    DisconnectWatches,
    /// 410 Gone on every control-plane informer: they relist.
    ForceRelist,
    /// Crash / restart a control-plane process (host index).
    CrashHost(HostId),
    RestartHost(HostId),
    /// Rebuilds the simulation (same seed) with these node failure timings.
    SetTiming(TimingProfile),
    /// A fresh simulation (same seed) set up as the lesson says, its script run as time passes; with a profile,
    /// rebuilt with those timings.
    StartLesson(&'static str, Option<TimingProfile>),
    /// Stops the lesson's remaining script (the simulation keeps running).
    StopLesson,
    DismissNotice,
    /// A line typed in the kubectl console (`kubectl` optional; `clear` empties the console). `stdin` is what
    /// `-f -` reads: the editor's text.
    Kubectl {
        line: String,
        stdin: Option<String>,
    },
    /// Ctrl+C in the console: stops the command that is still printing.
    KubectlInterrupt,
    /// Ctrl+L: empties the console (a running command keeps printing).
    KubectlClear,
}

/// Reads a `?seed=` value: `Ok(None)` when absent, `Err(message)` when it is not a seed.
pub fn parse_seed(raw: Option<&str>) -> Result<Option<u64>, String> {
    match raw {
        None => Ok(None),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(n) => Ok(Some(n)),
            Err(_) => {
                let shown: String = v.chars().take(40).collect();
                Err(format!(
                    "\"{shown}\" is not a seed (a whole number from 0 to {}); using the default seed {DEFAULT_SEED}.",
                    u64::MAX
                ))
            }
        },
    }
}

pub struct LiveRun {
    pub sim: Sim,
    pub seed: u64,
    /// The node failure timings the simulation was built with.
    pub profile: TimingProfile,
    pub playing: bool,
    pub speed: Speed,
    /// The simulated time the clock is chasing (ms, fractional).
    target: f64,
    lagging: bool,
    pub stream: Stream,
    history: Vec<VecDeque<u32>>,
    next_sample: Millis,
    pub selection: Selection,
    apply: Rc<ApplyOutcome>,
    notice: Option<Rc<str>>,
    cache: NodeCache,
    clock: Box<dyn Fn() -> f64>,
    /// (wall, sim) at the start of the current rate window, and the last measured rate.
    rate_window: (f64, Millis),
    effective: f64,
    /// Set by commands: the view should refresh now.
    pub dirty: bool,
    /// The informer rows of the last snapshot, and when (wall) and at what cost their drift was measured.
    informers: Rc<Vec<crate::snapshot::InformerView>>,
    drift_at: f64,
    drift_cost: f64,
    informer_count: u64,
    /// The kubectl console.
    pub(crate) console: Console,
    /// The running lesson and its script.
    lesson: Option<LessonRun>,
    /// Text the editor is told to show (a lesson's manifests).
    editor: Rc<EditorLoad>,
    meter: ReadMeter,
}

/// A lesson being played: its script's next step and what each step did.
pub struct LessonRun {
    pub lesson: &'static Lesson,
    /// Simulated time the lesson started (its steps' times count from here).
    pub start: Millis,
    pub next: usize,
    /// What each step that ran did (the kubectl line and its output, or the Sim call).
    pub results: Vec<String>,
}

/// Drift is measured at every snapshot while that costs less than this (wall ms)...
const DRIFT_CHEAP_MS: f64 = 4.0;
/// ...else at most this often.
const DRIFT_EVERY_MS: f64 = 2_000.0;

/// A fresh simulation: `nodes` nodes and `manifests` applied, with the timing profile's node lifecycle.
fn fresh_sim(
    seed: u64,
    profile: TimingProfile,
    nodes: usize,
    manifests: &str,
    seq: u64,
) -> (Sim, ApplyOutcome, Vec<String>) {
    let mut sim = Sim::new(profile.apply(SimConfig { seed, ..SimConfig::default() }));
    let mut problems = Vec::new();
    for _ in 0..nodes {
        if let Err(e) = sim.add_node(sim.config.node_template.clone()) {
            problems.push(e.to_string());
        }
    }
    let apply = match kubectl::apply(&mut sim, manifests) {
        Ok(report) => ApplyOutcome { seq, ok: true, text: report.to_string(), error_line: None },
        Err(e) => ApplyOutcome { seq, ok: false, text: e.to_string(), error_line: Some(e.line) },
    };
    (sim, apply, problems)
}

/// The timing profile's name on the page.
pub fn profile_label(p: TimingProfile) -> &'static str {
    match p {
        TimingProfile::Real => "real (50 s / 300 s)",
        TimingProfile::FastDemo => "fast demo (20 s / 30 s)",
    }
}

/// A control-plane process's name on the page: the controller manager replicas by their identity.
pub fn process_name(sim: &Sim, h: HostId) -> String {
    sim.host(h).name.to_string()
}

impl LiveRun {
    /// A cluster of [`START_NODES`] nodes with the web Deployment applied, running. `clock` is the wall clock in
    /// milliseconds (`performance.now()` in the browser).
    pub fn boot(seed: u64, notice: Option<String>, clock: Box<dyn Fn() -> f64>) -> LiveRun {
        let (sim, apply, mut problems) = fresh_sim(seed, TimingProfile::Real, START_NODES, crate::examples::WEB, 1);
        if let Some(n) = notice {
            problems.insert(0, n);
        }
        let wall = clock();
        LiveRun {
            sim,
            seed,
            profile: TimingProfile::Real,
            playing: true,
            speed: Speed::X(1),
            target: 0.0,
            lagging: false,
            stream: Stream::default(),
            history: Vec::new(),
            next_sample: 0,
            selection: Selection::None,
            apply: Rc::new(apply),
            notice: if problems.is_empty() { None } else { Some(problems.join(" ").into()) },
            cache: NodeCache::default(),
            clock,
            rate_window: (wall, 0),
            effective: 0.0,
            dirty: true,
            informers: Rc::new(Vec::new()),
            drift_at: f64::NEG_INFINITY,
            drift_cost: 0.0,
            informer_count: 0,
            console: Console::default(),
            lesson: None,
            editor: Rc::new(EditorLoad::default()),
            meter: ReadMeter::default(),
        }
    }

    /// Replaces the simulation by a fresh one with the same seed (the console's running command stops; what the
    /// view measured of the old one is forgotten). The editor shows `manifests`.
    fn rebuild(&mut self, nodes: usize, manifests: &'static str) {
        self.console.interrupt(&mut self.sim);
        let (sim, apply, problems) = fresh_sim(self.seed, self.profile, nodes, manifests, self.apply.seq + 1);
        self.sim = sim;
        self.apply = Rc::new(apply);
        if !problems.is_empty() {
            self.notice = Some(problems.join(" ").into());
        }
        self.target = 0.0;
        self.lagging = false;
        self.stream = Stream::default();
        self.history.clear();
        self.next_sample = 0;
        self.selection = Selection::None;
        self.cache = NodeCache::default();
        self.rate_window = (self.wall(), 0);
        self.informers = Rc::new(Vec::new());
        self.drift_at = f64::NEG_INFINITY;
        self.informer_count = 0;
        self.lesson = None;
        self.meter = ReadMeter::default();
        self.editor = Rc::new(EditorLoad { seq: self.editor.seq + 1, text: manifests.into() });
    }

    fn start_lesson(&mut self, id: &str, profile: Option<TimingProfile>) {
        let Some(lesson) = crate::lessons::find(id) else {
            self.notice = Some(format!("No lesson \"{id}\".").into());
            return;
        };
        if let Some(p) = profile {
            self.profile = p;
        }
        self.rebuild(lesson.nodes, lesson.manifests);
        self.lesson = Some(LessonRun { lesson, start: self.sim.now(), next: 0, results: Vec::new() });
        self.speed = Speed::X(lesson.speed);
        self.playing = true;
    }

    /// When the lesson's next step is due.
    fn next_step_at(&self) -> Option<Millis> {
        let run = self.lesson.as_ref()?;
        run.lesson.steps.get(run.next).map(|s| run.start + s.at)
    }

    /// Runs the lesson's next step (its time has come).
    fn run_step(&mut self) {
        let Some(run) = self.lesson.as_mut() else { return };
        let Some(step) = run.lesson.steps.get(run.next).copied() else { return };
        run.next += 1;
        let manifests = run.lesson.manifests;
        let result = self.run_action(step.action, manifests);
        if let Some(run) = self.lesson.as_mut() {
            run.results.push(result);
        }
        self.dirty = true;
    }

    /// A kubectl line against the simulation, as the console runs it: its output, shortened to its first line.
    fn kubectl_line(&mut self, line: &str, stdin: Option<&str>) -> String {
        let input = kubectl::Input { stdin, read_file: &example_file };
        let out = kubectl::run(&mut self.sim, line, &input);
        let text = if out.stdout.trim().is_empty() { out.stderr } else { out.stdout };
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let first = lines.next().unwrap_or("").to_string();
        let more = lines.count();
        let shown = if more > 0 { format!("{first} (+{more} more)") } else { first };
        format!("kubectl {line} → {shown}")
    }

    /// The first web pod that is running and not terminating (deterministic: the store's order).
    fn a_web_pod(&self) -> Option<ObjKey> {
        self.sim
            .store
            .objects(Kind::Pod)
            .filter_map(|o| o.as_pod())
            .filter(|p| p.metadata.label("app") == Some("web"))
            .find(|p| !p.metadata.is_terminating() && p.status.phase == PodPhase::Running)
            .map(|p| ObjKey { namespace: p.metadata.namespace.clone(), name: p.metadata.name.clone() })
    }

    fn run_action(&mut self, action: Action, manifests: &str) -> String {
        match action {
            Action::Kubectl(line) => self.kubectl_line(line, None),
            Action::DeleteOnePod => match self.a_web_pod() {
                Some(k) => self.kubectl_line(&format!("delete pod {} --wait=false", k.name), None),
                None => "no running web pod to delete".into(),
            },
            Action::KillNodeOfAPod => {
                let node = self.a_web_pod().and_then(|k| {
                    self.sim.store.peek(Kind::Pod, &k).and_then(|o| o.as_pod()).map(|p| p.spec.node_name.to_string())
                });
                match node {
                    Some(n) => match self.sim.kill_node(&n) {
                        Ok(()) => format!("killed the kubelet of {n}"),
                        Err(e) => e.to_string(),
                    },
                    None => "no running web pod: no node to kill".into(),
                }
            }
            Action::ReviveNodes => {
                let dead: Vec<String> =
                    self.sim.kubelets.iter().filter(|k| !k.alive).map(|k| k.name.to_string()).collect();
                for n in &dead {
                    let _ = self.sim.revive_node(n);
                }
                format!("revived {}", if dead.is_empty() { "nothing".to_string() } else { dead.join(", ") })
            }
            Action::ScaleReplicaSet(n) => {
                let rs = self
                    .sim
                    .store
                    .objects(Kind::ReplicaSet)
                    .filter(|o| controller_of(o.meta()).is_some_and(|r| &*r.name == "web"))
                    .map(|o| o.meta().name.to_string())
                    .next();
                match rs {
                    Some(name) => self.kubectl_line(&format!("scale replicaset {name} --replicas={n}"), None),
                    None => "web has no ReplicaSet yet".into(),
                }
            }
            Action::ApplyAgain => {
                let r = self.kubectl_line("apply -f -", Some(manifests));
                let seq = self.apply.seq + 1;
                let text = r.split_once(" → ").map_or(r.clone(), |(_, t)| t.to_string());
                self.apply = Rc::new(ApplyOutcome { seq, ok: true, text, error_line: None });
                r
            }
            Action::Trigger(mode) => {
                let took = self.sim.set_trigger_mode(None, mode);
                format!("trigger mode {} for: {}", mode.as_str(), took.join(", "))
            }
            Action::Observe(polling) => {
                self.set_polling(polling);
                if polling {
                    format!("observe mode: polling every {}", crate::snapshot::fmt_dur(DEFAULT_POLL_PERIOD))
                } else {
                    "observe mode: informers".into()
                }
            }
            Action::DropWatch(p) => {
                self.sim.set_watch_drop(p.min(100) as f64 / 100.0);
                format!("control-plane informers lose {}% of watch events", p.min(100))
            }
            Action::Conflicts(p) => {
                self.set_faults(|f| f.conflict_fraction = p.min(100) as f64 / 100.0);
                format!("{}% of updates answered 409 Conflict", p.min(100))
            }
            Action::RejectCreates(on) => {
                self.set_faults(|f| f.reject_pod_creates = on);
                if on { "pod creates refused (403 exceeded quota)" } else { "pod creates accepted" }.into()
            }
            Action::Crash(h) => {
                self.sim.crash_host(h);
                format!("crashed {}", process_name(&self.sim, h))
            }
            Action::Restart(h) => {
                self.sim.restart_host(h);
                format!("restarted {}", process_name(&self.sim, h))
            }
            Action::ForceRelist => {
                let n = self.force_relist();
                format!("410 Gone to {n} control-plane informers: they relist")
            }
        }
    }

    fn set_faults(&mut self, f: impl FnOnce(&mut Faults)) {
        let mut faults = self.sim.store.faults.clone();
        f(&mut faults);
        self.sim.set_faults(faults);
    }

    fn set_polling(&mut self, polling: bool) {
        let mode = if polling { ObserveMode::Polling { period: DEFAULT_POLL_PERIOD } } else { ObserveMode::Informer };
        if self.sim.observe_mode() != mode {
            self.sim.set_observe_mode(mode);
        }
    }

    /// 410 Gone to every watching control-plane informer. Returns how many.
    fn force_relist(&mut self) -> usize {
        let ids = self.sim.control_plane_informers();
        let watching: Vec<usize> = ids.into_iter().filter(|&i| self.sim.informers[i].watcher().is_some()).collect();
        for &i in &watching {
            self.sim.force_relist(i);
        }
        watching.len()
    }

    fn wall(&self) -> f64 {
        (self.clock)()
    }

    fn sample(&mut self, t: Millis) {
        let polling = matches!(self.sim.observe_mode(), ObserveMode::Polling { .. });
        self.meter.sample(t, polling, self.sim.api_reads());
        let depths = self.sim.queue_depths();
        if self.history.len() != depths.len() {
            self.history.resize_with(depths.len(), VecDeque::new);
        }
        for (h, (_, d)) in self.history.iter_mut().zip(depths) {
            if h.len() >= HISTORY {
                h.pop_front();
            }
            h.push_back(d.min(u32::MAX as usize) as u32);
        }
    }

    /// Samples every simulated-second boundary up to `t` (the state is constant between events, so a boundary
    /// before the next event sees exactly the state at that moment).
    fn sample_until(&mut self, t: Millis) {
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
    fn drain(&mut self, started: f64, budget: f64) -> bool {
        let mut n: u32 = 0;
        while let Some(at) = self.sim.next_event_at() {
            if at as f64 > self.target {
                break;
            }
            if let Some(s) = self.next_step_at().filter(|&s| s <= at) {
                // The lesson's step comes first: the clock moves to it, it runs.
                self.sample_until(s);
                self.sim.run_until(s);
                self.run_step();
                continue;
            }
            self.sample_until(at);
            self.sim.step();
            n += 1;
            if n.is_multiple_of(16) && self.wall() - started > budget {
                return false;
            }
        }
        if self.target.is_finite() {
            let t = self.target.max(0.0) as Millis;
            self.run_to(t);
        }
        true
    }

    /// Moves the clock to `t` (no event is due before it), running the lesson's steps due by then.
    fn run_to(&mut self, t: Millis) {
        while let Some(s) = self.next_step_at().filter(|&s| s <= t) {
            self.sample_until(s);
            self.sim.run_until(s);
            self.run_step();
        }
        if t > self.sim.now() {
            self.sample_until(t);
            self.sim.run_until(t);
        }
    }

    /// One animation frame: `dt` wall milliseconds since the previous one.
    pub fn frame(&mut self, dt: f64) {
        let started = self.wall();
        let dt = if dt.is_finite() { dt.clamp(0.0, MAX_FRAME_DT) } else { 0.0 };
        let now = self.sim.now() as f64;
        if self.target < now {
            self.target = now;
        }
        if self.playing {
            match self.speed {
                Speed::X(k) => self.target += dt * k as f64,
                Speed::Max => self.target = f64::INFINITY,
            }
        }
        let reached = self.drain(started, FRAME_BUDGET_MS);
        if self.speed == Speed::Max && self.playing {
            // As fast as the budget allows; with nothing left to run, time still moves (1000x).
            if reached {
                let t = self.sim.now() + (dt * 1000.0) as Millis;
                self.run_to(t);
            }
            self.target = self.sim.now() as f64;
            self.lagging = false;
        } else if !reached {
            // Behind: do not build up a debt; the clock simply runs slower than asked, and says so.
            self.target = self.sim.now() as f64;
            self.lagging = self.playing;
        } else {
            self.lagging = false;
        }
        self.console.poll(&mut self.sim);
        let wall = self.wall();
        let (w0, s0) = self.rate_window;
        if wall - w0 >= 1000.0 {
            self.effective = (self.sim.now().saturating_sub(s0)) as f64 / (wall - w0);
            self.rate_window = (wall, self.sim.now());
        }
    }

    fn set_notice<E: std::fmt::Display>(&mut self, r: Result<(), E>) {
        if let Err(e) = r {
            self.notice = Some(e.to_string().into());
        }
    }

    pub fn exec(&mut self, cmd: Cmd) {
        self.dirty = true;
        match cmd {
            Cmd::Apply(text) => {
                let seq = self.apply.seq + 1;
                let outcome = match kubectl::apply(&mut self.sim, &text) {
                    Ok(report) => {
                        let mut text = report.to_string();
                        if text.trim().is_empty() {
                            text = "nothing to apply".into();
                        }
                        ApplyOutcome { seq, ok: true, text, error_line: None }
                    }
                    Err(e) => ApplyOutcome { seq, ok: false, text: e.to_string(), error_line: Some(e.line) },
                };
                self.apply = Rc::new(outcome);
            }
            Cmd::KillNode(name) => {
                let r = self.sim.kill_node(&name);
                self.set_notice(r);
            }
            Cmd::ReviveNode(name) => {
                let r = self.sim.revive_node(&name);
                self.set_notice(r);
            }
            Cmd::Cordon(name, on) => {
                let key = ObjKey::cluster(&name);
                let r = self
                    .sim
                    .as_user(|api| {
                        api.patch(Kind::Node, &key, Subresource::Main, |o| {
                            if let Object::Node(n) = o {
                                n.spec.unschedulable = on;
                            }
                        })
                    })
                    .map(|_| ())
                    .map_err(|e| format!("Error from server ({}): {e}", e.reason()));
                self.set_notice(r);
            }
            Cmd::AddNode => {
                let template = self.sim.config.node_template.clone();
                let r = self.sim.add_node(template).map(|_| ());
                self.set_notice(r);
            }
            Cmd::DeletePod(key) => {
                let r = self.sim.delete(Kind::Pod, &key, &DeleteOptions::default()).map(|_| ());
                self.set_notice(r);
            }
            Cmd::Select(sel) => self.selection = sel,
            Cmd::SetPlaying(p) => {
                self.playing = p;
                self.target = self.sim.now() as f64;
            }
            Cmd::Step => {
                self.playing = false;
                let now = self.sim.now();
                let next = self.sim.next_event_at().unwrap_or(now).min(now + 60 * SECOND);
                self.target = (now + 100).max(next) as f64;
                let started = self.wall();
                self.drain(started, 50.0);
            }
            Cmd::SetSpeed(s) => {
                self.speed = s;
                self.target = self.sim.now() as f64;
            }
            Cmd::SetWatchDrop(p) => self.sim.set_watch_drop(p.min(100) as f64 / 100.0),
            Cmd::SetResync(secs) => {
                let ms = secs.saturating_mul(1000);
                self.sim.set_resync_period(ms);
            }
            Cmd::SetTrigger(mode) => {
                self.sim.set_trigger_mode(None, mode);
            }
            Cmd::SetPolling(p) => self.set_polling(p),
            Cmd::SetRelist(secs) => self.sim.set_relist_period(secs.saturating_mul(1000)),
            Cmd::SetConflicts(p) => self.set_faults(|f| f.conflict_fraction = p.min(100) as f64 / 100.0),
            Cmd::SetLatency(ms) => self.set_faults(|f| f.api_latency = ms.min(60_000)),
            Cmd::SetRejectCreates(on) => self.set_faults(|f| f.reject_pod_creates = on),
            Cmd::DisconnectWatches => {
                for id in self.sim.control_plane_informers() {
                    self.sim.disconnect_watch(id);
                }
            }
            Cmd::ForceRelist => {
                self.force_relist();
            }
            Cmd::CrashHost(h) => self.sim.crash_host(h),
            Cmd::RestartHost(h) => self.sim.restart_host(h),
            Cmd::SetTiming(p) => {
                self.profile = p;
                let what = format!(
                    "Rebuilt the simulation with seed {} and the {} node failure timings (node-monitor-grace-period / default tolerations of not-ready and unreachable): everything before was discarded.",
                    self.seed,
                    profile_label(p)
                );
                match self.lesson.as_ref().map(|r| r.lesson.id) {
                    Some(id) => self.start_lesson(id, None),
                    None => self.rebuild(START_NODES, crate::examples::WEB),
                }
                self.notice = Some(what.into());
            }
            Cmd::StartLesson(id, profile) => self.start_lesson(id, profile),
            Cmd::StopLesson => self.lesson = None,
            Cmd::DismissNotice => self.notice = None,
            Cmd::Kubectl { line, stdin } => self.console.run(&mut self.sim, &line, stdin.as_deref()),
            Cmd::KubectlInterrupt => self.console.interrupt(&mut self.sim),
            Cmd::KubectlClear => self.console.clear(),
        }
    }

    /// Tab in the console: completes the last word of `line` (see [`crate::console::apply_completion`]).
    pub fn complete_line(&mut self, line: &str) -> (String, Vec<String>) {
        let candidates = kubectl::complete(&mut self.sim, line);
        // The completion LISTed as the user: the API counters changed.
        self.dirty = true;
        crate::console::apply_completion(line, &candidates)
    }

    /// What decides the informer rows' shape: their number, which processes are active (a standby replica is
    /// one compact row), and how many informers are watching (a list or relist in progress counts everything as
    /// drift; its end must be measured, not remembered).
    fn informer_shape(&self) -> u64 {
        let active =
            self.sim.hosts.iter().enumerate().fold(0u64, |acc, (i, h)| acc | ((h.active() as u64) << (i % 16)));
        let watching = self.sim.informers.iter().filter(|i| i.watcher().is_some()).count() as u64;
        (self.sim.informers.len() as u64 & 0xffff) | (active << 16) | (watching << 32)
    }

    /// Informer rows changed shape (a node came or went, another replica leads, a list started or ended): measure
    /// drift again.
    fn dirty_drift(&self) -> bool {
        self.informers.is_empty() || self.informer_shape() != self.informer_count
    }

    pub fn snapshot(&mut self) -> Snapshot {
        self.dirty = false;
        self.stream.ingest(&self.sim);
        let t0 = self.wall();
        let measure = self.drift_cost < DRIFT_CHEAP_MS || t0 - self.drift_at >= DRIFT_EVERY_MS || self.dirty_drift();
        let (informers, drift) = if measure {
            let r = build_informers(&self.sim, None);
            self.drift_at = t0;
            self.drift_cost = self.wall() - t0;
            r
        } else {
            build_informers(&self.sim, Some(&self.informers))
        };
        let informers = Rc::new(informers);
        self.informers = informers.clone();
        self.informer_count = self.informer_shape();
        let drift_age = if measure { 0.0 } else { t0 - self.drift_at };
        let detail = build_detail(&self.sim, &self.selection).map(Rc::new);
        Snapshot {
            time: TimeView {
                now: self.sim.now(),
                playing: self.playing,
                speed: self.speed,
                lagging: self.lagging,
                effective: self.effective,
                seed: self.seed,
                events_processed: self.sim.events_processed(),
            },
            summary: build_summary(&self.sim),
            cluster: build_cluster(&self.sim, &mut self.cache),
            controllers: Rc::new(build_controllers(&self.sim, &self.history)),
            informers,
            drift,
            drift_age_ms: drift_age.max(0.0) as u64,
            api_reads: self.sim.api_reads(),
            footprint: Rc::new(self.sim.footprint()),
            drop_pct: (self.sim.watch_drop() * 100.0).round() as u32,
            resync_ms: self.sim.resync_period(),
            loop_cfg: Rc::new(build_loop(&self.sim, self.meter.view())),
            control_plane: Rc::new(build_control_plane(&self.sim)),
            timing: self.profile,
            lesson: self.lesson.as_ref().map(|r| Rc::new(build_lesson(&self.sim, r, self.meter.view()))),
            editor: self.editor.clone(),
            events: self.stream.view(),
            selection: self.selection.clone(),
            detail,
            apply: self.apply.clone(),
            notice: self.notice.clone(),
            console: self.console.view(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::console::CONSOLE_SCROLLBACK;
    use crate::snapshot::{Chunk, ClusterView, ConsoleView, Detail};
    use crate::stream::RowSource;

    /// A wall clock that moves 1 µs per reading, so budgets are never hit in tests.
    fn clock() -> Box<dyn Fn() -> f64> {
        let t = Rc::new(Cell::new(0.0));
        Box::new(move || {
            t.set(t.get() + 0.001);
            t.get()
        })
    }

    fn run_secs(e: &mut LiveRun, secs: u32) {
        for _ in 0..secs * 10 {
            e.frame(100.0);
        }
    }

    fn dom(s: &Snapshot) -> (Rc<Vec<Rc<crate::snapshot::NodeView>>>, Rc<Vec<crate::snapshot::PodView>>) {
        match &s.cluster {
            ClusterView::Dom { nodes, unscheduled } => (nodes.clone(), unscheduled.clone()),
            ClusterView::Compact(_) => panic!("small clusters are drawn with elements"),
        }
    }

    #[test]
    fn seeds_parse_or_explain() {
        assert_eq!(parse_seed(None), Ok(None));
        assert_eq!(parse_seed(Some("42")), Ok(Some(42)));
        let err = parse_seed(Some("abc")).unwrap_err();
        assert!(err.contains("\"abc\" is not a seed") && err.contains("default seed 1"), "{err}");
        assert!(parse_seed(Some("-3")).is_err());
        assert!(parse_seed(Some("")).is_err());
    }

    #[test]
    fn the_page_opens_on_three_running_web_pods() {
        let mut e = LiveRun::boot(7, None, clock());
        assert!(e.apply.ok, "{}", e.apply.text);
        assert_eq!(e.apply.text.trim(), "deployment.apps/web created");
        run_secs(&mut e, 10);
        let s = e.snapshot();
        assert!(s.time.now >= 9_900, "{}", s.time.now);
        assert_eq!(s.summary.running, 3);
        assert_eq!(s.summary.nodes_ready, 3);
        let (nodes, unscheduled) = dom(&s);
        assert_eq!(nodes.len(), 3);
        assert!(unscheduled.is_empty());
        assert_eq!(nodes.iter().map(|n| n.pods.len()).sum::<usize>(), 3);
        assert!(nodes.iter().all(|n| n.alive && n.ready.attr() == "true"));
        let names: Vec<&str> = s.controllers.iter().map(|c| c.name).collect();
        assert_eq!(
            names,
            [
                "deployment",
                "replicaset",
                "nodelifecycle",
                "tainteviction",
                "garbagecollector",
                "namespace",
                "scheduler"
            ],
            "one row per controller, the leader's (two controller manager replicas)"
        );
        assert!(s.controllers[0].host.contains("cp-1"), "{}", s.controllers[0].host);
        assert!(s.informers.iter().any(|i| i.owner.contains("cp-2") && i.state == "standby"), "{:?}", s.informers);
        let standby_rows = s.informers.iter().filter(|i| i.owner.contains("cp-2")).count();
        assert_eq!(standby_rows, 1, "the standby replica is one compact row");
        assert!(s.controllers.iter().all(|c| !c.history.is_empty()));
        assert!(s.informers.iter().any(|i| i.name == "kubelet pods (3 nodes)"));
        let mut keys: Vec<String> = s.informers.iter().map(|i| format!("{}/{}", i.owner, i.name)).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), s.informers.len(), "informer rows have unique keys");
        assert_eq!(s.drift, e.sim.drift());
        let reasons: Vec<&str> = s.events.rows.iter().map(|r| &*r.reason).collect();
        for r in ["ScalingReplicaSet", "SuccessfulCreate", "Scheduled", "Started", "Reconciled"] {
            assert!(reasons.contains(&r), "{r} missing from {reasons:?}");
        }
        assert!(s.events.rows.windows(2).all(|w| w[0].at >= w[1].at), "newest first");
        assert!(s.events.rows.iter().any(|r| r.source == RowSource::Reconcile("scheduler")));
    }

    #[test]
    fn unchanged_nodes_are_the_same_rc() {
        let mut e = LiveRun::boot(3, None, clock());
        run_secs(&mut e, 10);
        let a = dom(&e.snapshot()).0;
        let b = dom(&e.snapshot()).0;
        for (x, y) in a.iter().zip(b.iter()) {
            assert!(Rc::ptr_eq(x, y));
        }
        e.exec(Cmd::KillNode("node-1".into()));
        let c = dom(&e.snapshot()).0;
        assert!(!Rc::ptr_eq(&a[0], &c[0]) && !c[0].alive);
        assert!(Rc::ptr_eq(&a[1], &c[1]));
    }

    #[test]
    fn deleting_a_pod_shows_terminating_then_a_replacement() {
        let mut e = LiveRun::boot(5, None, clock());
        run_secs(&mut e, 10);
        let (nodes, _) = dom(&e.snapshot());
        let victim = nodes.iter().flat_map(|n| n.pods.iter()).next().cloned().expect("a pod");
        e.exec(Cmd::Select(Selection::Pod(victim.key.clone())));
        e.exec(Cmd::DeletePod(victim.key.clone()));
        let s = e.snapshot();
        let Some(Detail::Pod(d)) = s.detail.as_deref() else { panic!("pod detail") };
        assert!(d.terminating && d.exists);
        assert_eq!(d.owners.len(), 2, "{:?}", d.owners);
        assert_eq!(&*d.owners[1].0, "Deployment");
        assert!(d.events.iter().any(|ev| &*ev.reason == "Scheduled"));
        run_secs(&mut e, 40);
        let s = e.snapshot();
        assert_eq!(s.summary.running, 3);
        assert!(dom(&s).0.iter().flat_map(|n| n.pods.iter()).all(|p| p.key != victim.key));
        let Some(Detail::Pod(d)) = s.detail.as_deref() else { panic!("pod detail") };
        assert!(!d.exists);
    }

    #[test]
    fn every_example_applies_and_errors_name_their_line() {
        for ex in crate::examples::EXAMPLES {
            let mut e = LiveRun::boot(1, None, clock());
            run_secs(&mut e, 5);
            e.exec(Cmd::Apply(ex.yaml.to_string()));
            if ex.id == "typo" {
                assert!(!e.apply.ok);
                let line = ex.yaml.lines().position(|l| l.contains("contianers:")).map(|i| i + 1);
                assert!(e.apply.text.contains(&format!("line {}", line.unwrap_or(0))), "{}", e.apply.text);
                assert_eq!(e.apply.error_line, line);
                continue;
            }
            assert!(e.apply.ok, "{}: {}", ex.id, e.apply.text);
            run_secs(&mut e, 30);
            let s = e.snapshot();
            match ex.id {
                "too-big" => {
                    assert_eq!(dom(&s).1.len(), 2, "two unschedulable pods");
                    assert!(s.events.rows.iter().any(|r| &*r.reason == "FailedScheduling"));
                }
                "node-selector" => {
                    let (nodes, _) = dom(&s);
                    let n2 = nodes.iter().find(|n| &*n.name == "node-2").expect("node-2");
                    assert!(n2.labels.contains(&"disktype=ssd".to_string()), "{:?}", n2.labels);
                    assert!(n2.pods.iter().any(|p| &*p.key.name == "cache"));
                }
                "taints" => {
                    let (nodes, unscheduled) = dom(&s);
                    let gpu = nodes.iter().find(|n| &*n.name == "gpu-1").expect("gpu-1");
                    assert_eq!(gpu.taints, vec!["dedicated=gpu:NoSchedule".to_string()]);
                    assert!(gpu.pods.iter().all(|p| &*p.app == "tolerant") && gpu.pods.len() == 2);
                    assert_eq!(unscheduled.iter().filter(|p| &*p.app == "plain").count(), 2);
                }
                "scale" => assert_eq!(s.summary.running, 10),
                _ => assert_eq!(s.summary.running, 3),
            }
        }
    }

    #[test]
    fn knobs_and_node_actions() {
        let mut e = LiveRun::boot(2, None, clock());
        run_secs(&mut e, 5);
        e.exec(Cmd::SetResync(30));
        e.exec(Cmd::SetWatchDrop(100));
        e.exec(Cmd::AddNode);
        e.exec(Cmd::Cordon("node-2".into(), true));
        let s = e.snapshot();
        assert_eq!(s.resync_ms, 30_000);
        assert_eq!(s.drop_pct, 100);
        let cp = e.sim.control_plane_informers();
        assert!(!cp.is_empty());
        for (id, inf) in e.sim.informers.iter().enumerate() {
            let want = if cp.contains(&id) { 1.0 } else { 0.0 };
            assert_eq!(inf.drop_fraction, want, "the drop fault is the control plane's (informer {id})");
        }
        let (nodes, _) = dom(&s);
        assert_eq!(nodes.len(), 4);
        assert!(nodes[1].unschedulable);
        e.exec(Cmd::KillNode("nope".into()));
        assert!(e.snapshot().notice.is_some_and(|n| n.contains("not found")));
    }

    #[test]
    fn step_advances_while_paused() {
        let mut e = LiveRun::boot(4, None, clock());
        e.exec(Cmd::SetPlaying(false));
        e.frame(100.0);
        let t0 = e.sim.now();
        e.exec(Cmd::Step);
        assert!(e.sim.now() >= t0 + 100);
        let t1 = e.sim.now();
        e.frame(100.0);
        assert_eq!(e.sim.now(), t1, "paused");
        e.exec(Cmd::SetSpeed(Speed::X(100)));
        e.exec(Cmd::SetPlaying(true));
        e.frame(100.0);
        assert!(e.sim.now() >= t1 + 10_000);
    }

    fn console_text(e: &mut LiveRun) -> String {
        e.snapshot().console.last.map(|l| l.text()).unwrap_or_default()
    }

    #[test]
    fn console_runs_lines_keeps_scrollback_and_clears() {
        let mut e = LiveRun::boot(1, None, clock());
        e.exec(Cmd::Kubectl { line: "kubectl gte pods".into(), stdin: None });
        let s = e.snapshot();
        let last = s.console.last.clone().expect("an entry");
        assert_eq!(last.line, "kubectl gte pods");
        assert_eq!(last.code, Some(1));
        assert!(matches!(&last.chunks[..], [Chunk::Stderr(t)] if t.contains("Did you mean this?\n\tget")), "{last:?}");
        e.exec(Cmd::Kubectl { line: "help".into(), stdin: None });
        assert!(console_text(&mut e).contains("Commands:"));
        let s = e.snapshot();
        assert_eq!(s.console.earlier.len(), 1);
        assert_eq!(s.console.earlier[0].line, "kubectl gte pods");
        e.exec(Cmd::KubectlClear);
        let s = e.snapshot();
        assert!(s.console.last.is_none() && s.console.earlier.is_empty());
        for i in 0..CONSOLE_SCROLLBACK + 5 {
            e.exec(Cmd::Kubectl { line: format!("logs x{i}"), stdin: None });
        }
        assert_eq!(e.snapshot().console.earlier.len(), CONSOLE_SCROLLBACK);
        assert!(console_text(&mut e).contains("not simulated"));
        e.exec(Cmd::Kubectl { line: "  clear ".into(), stdin: None });
        assert_eq!(e.snapshot().console, ConsoleView::default());
    }

    #[test]
    fn apply_minus_f_reads_examples_by_name() {
        assert_eq!(example_file("web").as_deref(), Ok(crate::examples::WEB));
        assert_eq!(example_file("web.yaml").as_deref(), Ok(crate::examples::WEB));
        assert_eq!(example_file("./examples/web.yaml").as_deref(), Ok(crate::examples::WEB));
        assert!(example_file("too-big.yml").is_ok());
        assert!(example_file("web: 3-replica Deployment").is_ok(), "the title in the menu");
        assert_eq!(example_file("x.yaml"), Err("the path \"x.yaml\" does not exist".into()));
    }

    /// Prints one line per poll, done after `n` polls.
    struct Ticker {
        left: u32,
        stopped: Rc<Cell<bool>>,
    }

    impl kubectl::Follow for Ticker {
        fn poll(&mut self, _: &mut Sim) -> kubectl::FollowPoll {
            self.left = self.left.saturating_sub(1);
            kubectl::FollowPoll { stdout: format!("tick {}\n", self.left), done: self.left == 0, ..Default::default() }
        }
        fn stop(&mut self, _: &mut Sim) {
            self.stopped.set(true);
        }
    }

    fn start_ticker(e: &mut LiveRun, left: u32) -> Rc<Cell<bool>> {
        e.exec(Cmd::Kubectl { line: "get pods -w".into(), stdin: None });
        let stopped = Rc::new(Cell::new(false));
        e.console.follow = Some(Box::new(Ticker { left, stopped: stopped.clone() }));
        Rc::make_mut(e.console.last.as_mut().expect("entry")).code = None;
        stopped
    }

    #[test]
    fn follows_print_as_frames_pass_until_done_interrupted_or_replaced() {
        let mut e = LiveRun::boot(1, None, clock());
        start_ticker(&mut e, 3);
        for _ in 0..5 {
            e.frame(16.0);
        }
        let last = e.snapshot().console.last.expect("entry");
        assert!(last.text().ends_with("tick 2\ntick 1\ntick 0\n"), "{}", last.text());
        assert_eq!(last.code, Some(0));
        assert!(!e.console.running());

        let stopped = start_ticker(&mut e, 100);
        e.frame(16.0);
        assert!(e.console.running());
        e.exec(Cmd::KubectlClear);
        assert!(e.console.running(), "Ctrl+L keeps the command running");
        e.exec(Cmd::KubectlInterrupt);
        assert!(stopped.get() && !e.console.running());
        let last = e.snapshot().console.last.expect("entry");
        assert!(last.text().ends_with("^C\n"), "{}", last.text());
        assert!(!last.text().contains("tick 99"), "cleared before");
        assert_eq!(last.code, Some(130));

        let stopped = start_ticker(&mut e, 100);
        e.exec(Cmd::Kubectl { line: "help".into(), stdin: None });
        assert!(stopped.get(), "the next command stops the running one");
        let s = e.snapshot();
        assert!(s.console.earlier.last().is_some_and(|p| p.text().ends_with("^C\n")));
    }

    #[test]
    fn large_clusters_switch_to_the_compact_view() {
        let mut e = LiveRun::boot(9, None, clock());
        for _ in 0..200 {
            e.exec(Cmd::AddNode);
        }
        let s = e.snapshot();
        let ClusterView::Compact(c) = &s.cluster else { panic!("compact") };
        assert_eq!(c.nodes.len(), 203);
        assert_eq!(s.summary.nodes, 203);
    }

    /// The cost of the page's work at Kubernetes' envelope (5,000 nodes, 150,000 pods). Run by hand:
    /// `cargo test --release -p kubeloop-web -- --ignored --nocapture scale`
    #[test]
    #[ignore]
    fn scale_snapshot_cost() {
        use std::time::Instant;
        let nodes: usize = std::env::var("KL_NODES").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000);
        let pods: usize = std::env::var("KL_PODS").ok().and_then(|v| v.parse().ok()).unwrap_or(150_000) - 3;
        let mut e = LiveRun::boot(1, None, clock());
        let t = Instant::now();
        for _ in 3..nodes {
            e.exec(Cmd::AddNode);
        }
        let per = 10_000;
        let mut text = String::new();
        for i in 0..pods.div_ceil(per) {
            let replicas = (pods - i * per).min(per);
            text.push_str(&format!(
                "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: app-{i}\n  template:\n    metadata:\n      labels:\n        app: app-{i}\n    spec:\n      containers:\n      - name: app\n        image: app:{i}\n        resources:\n          requests:\n            cpu: 10m\n            memory: 16Mi\n"
            ));
        }
        e.exec(Cmd::Apply(text));
        assert!(e.apply.ok, "{}", e.apply.text);
        eprintln!("build: {:?}", t.elapsed());
        let t = Instant::now();
        let mut secs = 0;
        let mut worst = (std::time::Duration::ZERO, 0);
        let mut snap_worst = std::time::Duration::ZERO;
        while e.sim.pod_counts().0 < pods + 3 && secs < 900 {
            let until = e.sim.now() + 10 * SECOND;
            let mut n = 0;
            while e.sim.next_event_at().is_some_and(|at| at <= until) {
                let s = Instant::now();
                e.sim.step();
                n += 1;
                if s.elapsed() > worst.0 {
                    worst = (s.elapsed(), e.sim.now());
                }
                if n % 2000 == 0 {
                    let s = Instant::now();
                    let _ = e.snapshot();
                    snap_worst = snap_worst.max(s.elapsed());
                }
            }
            e.sim.run_until(until);
            secs += 10;
            eprintln!(
                "  t={secs}s running {} after {:?}; worst step {:?} at {}, worst snapshot {:?}",
                e.sim.pod_counts().0,
                t.elapsed(),
                worst.0,
                worst.1,
                snap_worst
            );
        }
        eprintln!("converge: {secs} simulated s in {:?}; running {}", t.elapsed(), e.sim.pod_counts().0);
        for _ in 0..3 {
            let t = Instant::now();
            let s = e.snapshot();
            eprintln!("snapshot: {:?} (drift {}, events {})", t.elapsed(), s.drift, s.events.rows.len());
        }
        let t = Instant::now();
        let c = build_cluster(&e.sim, &mut e.cache);
        eprintln!("  cluster: {:?} compact={}", t.elapsed(), matches!(c, crate::snapshot::ClusterView::Compact(_)));
        let t = Instant::now();
        let _ = build_informers(&e.sim, None);
        eprintln!("  informers+drift: {:?}", t.elapsed());
        let t = Instant::now();
        let _ = build_summary(&e.sim);
        eprintln!("  summary: {:?}", t.elapsed());
        let t = Instant::now();
        e.stream.ingest(&e.sim);
        eprintln!("  stream: {:?}", t.elapsed());
        let t = Instant::now();
        for _ in 0..10 {
            e.frame(16.0);
        }
        eprintln!("10 frames at 1x: {:?}", t.elapsed());
    }

    fn live_web(e: &LiveRun) -> usize {
        e.sim
            .store
            .objects(Kind::Pod)
            .filter_map(|o| o.as_pod())
            .filter(|p| p.metadata.label("app") == Some("web"))
            .filter(|p| !p.metadata.is_terminating() && p.status.phase == PodPhase::Running)
            .count()
    }

    #[test]
    fn loop_knobs_reach_the_simulation_and_the_view() {
        let mut e = LiveRun::boot(2, None, clock());
        run_secs(&mut e, 5);
        e.exec(Cmd::SetTrigger(TriggerMode::Edge));
        e.exec(Cmd::SetRelist(0));
        e.exec(Cmd::SetConflicts(30));
        e.exec(Cmd::SetLatency(25));
        e.exec(Cmd::SetRejectCreates(true));
        let s = e.snapshot();
        assert!(s.loop_cfg.edge && s.loop_cfg.edge_capable == ["replicaset"], "{:?}", s.loop_cfg);
        assert_eq!(s.loop_cfg.relist_ms, 0);
        assert_eq!((s.loop_cfg.conflict_pct, s.loop_cfg.latency_ms, s.loop_cfg.reject_creates), (30, 25, true));
        e.exec(Cmd::SetPolling(true));
        assert_eq!(e.snapshot().loop_cfg.polling, Some(DEFAULT_POLL_PERIOD));
        e.exec(Cmd::DisconnectWatches);
        e.exec(Cmd::ForceRelist);
        run_secs(&mut e, 5);
    }

    #[test]
    fn api_reads_per_minute_are_measured_per_observe_mode() {
        let mut e = LiveRun::boot(3, None, clock());
        e.exec(Cmd::SetSpeed(Speed::X(100)));
        run_secs(&mut e, 1);
        let informer = e.snapshot().loop_cfg.reads.informer.expect("informer rate after 100 s");
        e.exec(Cmd::SetPolling(true));
        run_secs(&mut e, 1);
        let r = e.snapshot().loop_cfg.reads;
        assert!(r.polling_now);
        let polling = r.polling.expect("polling rate");
        assert_eq!(r.informer, Some(informer), "the other mode keeps its last figure");
        assert!(polling.per_min > informer.per_min, "{polling:?} vs {informer:?}");
    }

    #[test]
    fn control_plane_processes_crash_and_restart() {
        use kubeloop_engine::sim::{CONTROLLER_MANAGER, CONTROLLER_MANAGER_2};
        let mut e = LiveRun::boot(1, None, clock());
        run_secs(&mut e, 20);
        let s = e.snapshot();
        let names: Vec<(&str, &str)> = s.control_plane.processes.iter().map(|p| (&*p.name, p.state.as_str())).collect();
        assert_eq!(names, [("cp-1", "leader"), ("cp-2", "standby"), ("kube-scheduler", "leader")]);
        assert_eq!(s.control_plane.lease.as_ref().map(|l| &*l.holder), Some("cp-1"));
        e.exec(Cmd::CrashHost(CONTROLLER_MANAGER));
        e.exec(Cmd::CrashHost(CONTROLLER_MANAGER_2));
        let s = e.snapshot();
        assert!(s.control_plane.processes[..2].iter().all(|p| p.state.as_str() == "crashed"));
        let names: Vec<&str> = s.controllers.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), 7, "still one row per controller: {names:?}");
        e.exec(Cmd::RestartHost(CONTROLLER_MANAGER_2));
        run_secs(&mut e, 40);
        assert_eq!(e.sim.controller_manager_leader(), Some(CONTROLLER_MANAGER_2));
        assert_eq!(e.snapshot().control_plane.processes[1].state.as_str(), "leader");
    }

    #[test]
    fn the_timing_profile_rebuilds_with_the_same_seed_and_says_so() {
        let mut e = LiveRun::boot(4, None, clock());
        run_secs(&mut e, 10);
        e.exec(Cmd::SetTiming(TimingProfile::FastDemo));
        let s = e.snapshot();
        assert_eq!(s.timing, TimingProfile::FastDemo);
        assert!(s.time.now < 1_000, "a fresh simulation");
        assert!(s.notice.as_deref().is_some_and(|n| n.contains("seed 4") && n.contains("fast demo")), "{:?}", s.notice);
        assert_eq!(e.sim.config.node_lifecycle.grace_period, 20 * SECOND);
        assert_eq!(s.editor.seq, 1);
    }

    /// Runs a lesson at 100x until `secs` simulated seconds after its start.
    fn play_lesson(e: &mut LiveRun, id: &'static str, profile: Option<TimingProfile>, secs: u64) {
        e.exec(Cmd::StartLesson(id, profile));
        e.exec(Cmd::SetSpeed(Speed::X(100)));
        while e.sim.now() < secs * SECOND {
            e.frame(100.0);
        }
    }

    #[test]
    fn every_lesson_runs_its_script() {
        for l in &crate::lessons::LESSONS {
            if l.id == "polling-vs-informers" {
                continue; // below, once (1,000 pods)
            }
            let mut e = LiveRun::boot(1, None, clock());
            let end = l.steps.last().map_or(0, |s| s.at) / SECOND + 60;
            play_lesson(&mut e, l.id, None, end);
            let s = e.snapshot();
            let v = s.lesson.as_deref().expect("lesson view");
            assert!(v.steps.iter().all(|(_, _, r)| r.is_some()), "{}: {:?}", l.id, v.steps);
            assert!(!v.figures.is_empty(), "{}", l.id);
            assert_eq!(s.editor.text.as_ref(), l.manifests);
            let results: Vec<&str> = v.steps.iter().filter_map(|(_, _, r)| r.as_deref()).collect();
            match l.id {
                "idempotency" => assert!(results.iter().all(|r| r.contains("unchanged")), "{results:?}"),
                "hand-edits" => {
                    assert!(results[0].contains("scaled"), "{results:?}");
                    let rs = e
                        .sim
                        .store
                        .objects(Kind::ReplicaSet)
                        .next()
                        .and_then(|o| o.as_replicaset().map(|r| r.replicas()));
                    assert_eq!(rs, Some(3), "put back by the Deployment controller");
                }
                "edge-vs-level" => {
                    assert!(results[2].contains("deleted"), "{results:?}");
                    assert_eq!(live_web(&e), 3, "healed after level + a 410 relist");
                }
                "control-plane-down" => assert_eq!(live_web(&e), 3),
                "backoff" => {
                    let f = v.figures.iter().find(|(k, _)| k.contains("retried")).expect("delays");
                    assert!(f.1.starts_with("5 ms, 10 ms, 20 ms"), "{f:?}");
                }
                "conflicts" => {
                    assert!(s.loop_cfg.conflicts > 0);
                    assert_eq!(live_web(&e), 6);
                }
                _ => {}
            }
        }
    }

    #[test]
    fn edge_vs_level_stays_short_in_edge_mode_with_no_drift() {
        // Before the 410 nothing re-observes (upstream's informers have no periodic relist): the caches drift.
        let mut e = LiveRun::boot(1, None, clock());
        play_lesson(&mut e, "edge-vs-level", None, 2 * 60 + 50);
        assert_eq!(live_web(&e), 0, "the deletions were never heard");
        assert!(e.sim.drift() > 0, "the caches still hold the deleted pods");
        assert_eq!(e.snapshot().loop_cfg.relist_ms, 0, "no periodic relist: upstream's default");
        let mut e = LiveRun::boot(1, None, clock());
        play_lesson(&mut e, "edge-vs-level", None, 6 * 60 + 30);
        assert_eq!(live_web(&e), 0, "the deletions were never heard");
        assert_eq!(e.sim.drift(), 0, "the 410 relist repaired the caches");
        assert!(e.snapshot().loop_cfg.edge);
    }

    #[test]
    fn self_healing_with_the_fast_demo_replaces_a_dead_nodes_pods() {
        let mut e = LiveRun::boot(1, None, clock());
        play_lesson(&mut e, "self-healing", Some(TimingProfile::FastDemo), 180);
        assert_eq!(e.profile, TimingProfile::FastDemo);
        let s = e.snapshot();
        let v = s.lesson.as_deref().expect("lesson");
        let dead = v.figures.iter().find(|(k, _)| k.contains("kubelet down")).expect("a dead node figure");
        assert!(dead.1.contains("Ready=Unknown") && dead.1.contains("unreachable"), "{dead:?}");
        assert_eq!(live_web(&e), 3);
        let reasons: Vec<&str> = s.events.rows.iter().map(|r| &*r.reason).collect();
        assert!(reasons.contains(&"NodeNotReady") && reasons.contains(&"TaintManagerEviction"), "{reasons:?}");
    }

    #[test]
    #[ignore = "1,000 pods: slow in debug builds; cargo test --release -- --ignored polling"]
    fn polling_lesson_shows_both_figures() {
        let mut e = LiveRun::boot(1, None, clock());
        play_lesson(&mut e, "polling-vs-informers", None, 7 * 60 + 20);
        let r = e.snapshot().loop_cfg.reads;
        let (i, p) = (r.informer.expect("informer"), r.polling.expect("polling"));
        eprintln!("informer {i:?} polling {p:?}");
        assert!(p.per_min > 50 * i.per_min);
    }

    /// What the page reads (snapshots every frame, detail panels, Tab completion, read-only kubectl lines) never
    /// changes the run: the same seed and the same writes give the same history hash as a page nobody looks at.
    #[test]
    fn what_the_page_reads_never_changes_the_run() {
        let run = |look: bool| {
            let mut e = LiveRun::boot(21, None, clock());
            for second in 0..90u32 {
                if second == 20 {
                    e.exec(Cmd::Kubectl { line: "scale deploy web --replicas=6".into(), stdin: None });
                }
                if second == 40 {
                    e.exec(Cmd::SetWatchDrop(30));
                }
                if second == 60 {
                    e.exec(Cmd::SetWatchDrop(0));
                }
                for _ in 0..10 {
                    e.frame(100.0);
                    if look {
                        let s = e.snapshot();
                        if let Some(p) = dom(&s).0.iter().flat_map(|n| n.pods.iter()).next() {
                            e.exec(Cmd::Select(Selection::Pod(p.key.clone())));
                        }
                        let _ = e.snapshot();
                    }
                }
                if look && second % 7 == 0 {
                    let _ = e.complete_line("kubectl get pods w");
                    let _ = e.complete_line("kubectl describe no");
                    for line in ["get pods -o wide", "describe deploy web", "events", "top nodes", "get all -A -o yaml"]
                    {
                        e.exec(Cmd::Kubectl { line: line.into(), stdin: None });
                    }
                    e.exec(Cmd::Kubectl { line: "get pods -w".into(), stdin: None });
                }
                if look && second % 7 == 3 {
                    e.exec(Cmd::KubectlInterrupt);
                }
            }
            e.sim.history_hash()
        };
        assert_eq!(run(false), run(true));
    }
}
