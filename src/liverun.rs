//! The simulation as the page runs it: the `Sim`, the clock target the frame loop chases, the user's commands, the
//! event stream and the queue-depth history. No browser API here (the wall clock is handed in), so it is tested
//! natively.

use std::collections::VecDeque;
use std::rc::Rc;

use kubeloop_engine::api::ObjKey;
use kubeloop_engine::controllers::scheduler::{Profile, Weights};
use kubeloop_engine::intervention::{Intervene, Intervention, Performed};
use kubeloop_engine::kubectl;
use kubeloop_engine::kubelet::NodeConfig;
use kubeloop_engine::scenario::{Action, Scenario};
use kubeloop_engine::sim::{ObserveMode, Sim, SimConfig, TimingProfile};
use kubeloop_engine::time::{Millis, SECOND};

use crate::charts::HISTORY;
use crate::cmd::{Cmd, Opening};
use crate::console::{example_file, Console};
use crate::driftmeter::DriftMeter;
use crate::lessons::LessonRun;
use crate::readmeter::ReadMeter;
use crate::services::build_services;
use crate::snapshot::{
    build_cluster, build_control_plane, build_controllers, build_detail, build_lesson, build_loop, build_summary,
    NodeCache,
};
use crate::stream::Stream;
use crate::view::{
    ApplyOutcome, ApplyProgress, EditorLoad, Selection, ShareState, ShareView, Snapshot, Speed, TimeView,
};

pub const DEFAULT_SEED: u64 = 1;
/// Nodes the page starts with.
pub const START_NODES: usize = 3;
/// Wall time a frame may spend running events.
pub const FRAME_BUDGET_MS: f64 = 8.0;
/// Longest wall gap a frame accounts for (a hidden tab does not come back to a jump of minutes).
const MAX_FRAME_DT: f64 = 250.0;
/// The speed (times real time) from which the loop diagram shows rates instead of single items.
const LOOP_RATES_FROM: u32 = 10;

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
    /// The informer rows of the last snapshot.
    informers: Rc<Vec<crate::view::InformerView>>,
    /// Their drift, measured whole or in parts; a whole measure visits at most `drift_whole_max` objects, a part
    /// about `drift_budget` ([`crate::driftmeter`]).
    drift: DriftMeter,
    drift_whole_max: usize,
    drift_budget: usize,
    /// The controller the loop diagram shows, and its charts' samples.
    loop_controller: String,
    loop_history: crate::charts::LoopHistory,
    /// The cluster's charts' samples (API requests, pods by phase, drift).
    cluster_history: crate::charts::ClusterHistory,
    /// The scheduler's profile for the pod detail's what-if: filters switched off, score weights (upstream's until
    /// changed).
    schedule_profile: Profile,
    /// The last scheduling explanation: for which pod and profile, when (wall), at what cost.
    explained: Option<(ObjKey, Profile, f64, f64, Rc<crate::view::ScheduleView>)>,
    /// The kubectl console.
    pub(crate) console: Console,
    /// The running lesson and its script.
    lesson: Option<LessonRun>,
    /// Lessons ask for predictions before their steps.
    lesson_asks: bool,
    /// Text the editor is told to show (a lesson's manifests).
    editor: Rc<EditorLoad>,
    meter: ReadMeter,
    /// The run as a value: the cluster it started from (a scenario without actions) and every intervention made
    /// since, at its simulated time. Reads are not recorded.
    base: Scenario,
    recorded: Vec<Action>,
    /// Why the run can no longer be exported exactly (a console command that read the editor as `-f -` other than
    /// `apply`), if it cannot.
    unrecordable: Option<String>,
    /// A file the page should hand to the person (name, text): the export.
    download: Option<(String, String)>,
    /// A replay's script: the interventions of the run replayed, each run when the clock reaches its time.
    script: Vec<Action>,
    script_next: usize,
    /// The run started from the page's own starting cluster (not a lesson's, a file's or a link's).
    default_base: bool,
    /// A large apply being read, the clock held until it is performed.
    applying: Option<Applying>,
    /// The link being made or made, as the page shows it.
    share: Option<Rc<ShareView>>,
    /// A run to make a link of (its scenario file and history hash), for the page to compress.
    share_request: Option<(String, u64)>,
    /// The console's `kubectl explain` waiting for its documentation: its entry and line. At most one: a new line
    /// or Ctrl+C stops it.
    waiting_docs: Option<(u64, String)>,
    /// explain's documentation is to be fetched ([`LiveRun::take_docs_request`]): once the page runs, and again
    /// when a fetch failed and explain is typed.
    docs_request: bool,
    /// A fetch of it is on its way (at most one).
    docs_fetching: bool,
    /// The lessons' files are to be fetched ([`LiveRun::take_lessons_request`]): once the page runs, and again when a
    /// lesson is asked for whose file has not arrived.
    lessons_request: bool,
    /// A fetch of them is on its way (at most one).
    lessons_fetching: bool,
    /// The lesson asked for before its file arrived: it starts when the file does (paused when a link opened it).
    pending_lesson: Option<(&'static str, Option<TimingProfile>, bool)>,
    /// The example scenario a link opened before its file arrived: it opens when the file does.
    pending_scenario: Option<&'static str>,
    /// The last search of the cluster by name.
    search: Option<Rc<crate::view::SearchView>>,
}

/// Interventions a run records at most (kubeloop's own bound; beyond it the run is not exportable).
pub const MAX_RECORDED: usize = 10_000;

/// A score plugin's weight at most in the what-if (upstream accepts 1 to 100 in a profile; 0 here turns it off).
pub const MAX_SCORE_WEIGHT: i64 = 100;
/// A scheduling explanation that took longer than this is made again at most every [`EXPLAIN_EVERY_MS`], or every
/// [`EXPLAIN_SHARE`] times what it cost if that is longer (a large cluster: every node filtered and scored, every pod
/// counted; a what-if across the cluster explains many pods), so that it takes at most a twentieth of the page's time.
const EXPLAIN_CHEAP_MS: f64 = 4.0;
const EXPLAIN_EVERY_MS: f64 = 1_000.0;
const EXPLAIN_SHARE: f64 = 20.0;

/// The paths of the lessons' and example scenarios' files that have not arrived (the page fetches them once it runs).
pub fn missing_files() -> Vec<String> {
    let lessons = crate::lessons::missing().into_iter().map(|l| l.file());
    lessons.chain(crate::examples::missing_scenarios().into_iter().map(crate::examples::scenario_file)).collect()
}

/// The page's own starting point: [`START_NODES`] nodes of the default shape and the web Deployment, as a scenario
/// with no actions.
fn default_scenario() -> Scenario {
    Scenario {
        seed: None,
        until: None,
        node_template: NodeConfig::default(),
        nodes: vec![NodeConfig::default(); START_NODES],
        manifests: Some(crate::examples::WEB.to_string()),
        actions: Vec::new(),
        timing: TimingProfile::Real,
        lesson: None,
    }
}

/// Pods per demo Deployment of a cluster of a given size (as `kubeloop bench` makes them by default).
pub const DEMO_PODS_PER_DEPLOYMENT: usize = 100;

/// A starting cluster of `nodes` nodes of the default shape and `pods` pods in kubeloop's own demo Deployments, as
/// `kubeloop bench --nodes N --pods P` makes them (100 pods each, 10m CPU and 16Mi requested: 110 fit on a node), the
/// manifests led by a comment that says so. Or why not: more than kubeloop simulates, or more pods than fit.
pub fn sized_scenario(nodes: usize, pods: usize) -> Result<Scenario, String> {
    use kubeloop_engine::limits::{MAX_NODES, MAX_PODS};
    let template = NodeConfig::default();
    if !(1..=MAX_NODES).contains(&nodes) {
        return Err(format!("a cluster has 1 to {MAX_NODES} nodes (kubeloop's own bound), not {nodes}"));
    }
    if pods > MAX_PODS {
        return Err(format!("a cluster has at most {MAX_PODS} pods (kubeloop's own bound), not {pods}"));
    }
    if pods > nodes * template.pods as usize {
        return Err(format!("{pods} pods do not fit on {nodes} nodes of {} pods each", template.pods));
    }
    let shape = kubeloop_engine::bench::ColdStart {
        nodes,
        pods,
        per_deployment: DEMO_PODS_PER_DEPLOYMENT,
        services: false,
        seed: 0,
    };
    let manifests = format!(
        "# kubeloop's own demo Deployments: {pods} pods in {} Deployment(s) of at most {DEMO_PODS_PER_DEPLOYMENT}, as `kubeloop bench --nodes {nodes} --pods {pods}` makes them\n{}",
        shape.deployments(),
        shape.manifests()
    );
    Ok(Scenario { nodes: vec![template; nodes], manifests: Some(manifests), ..default_scenario() })
}

/// What an apply did, as the editor shows it: the outcome counted, then kubectl's lines (each object applied, each
/// failure with its line), its warnings apart (folded).
fn apply_outcome(seq: u64, report: &kubectl::ApplyReport) -> ApplyOutcome {
    ApplyOutcome {
        seq,
        ok: report.errors.is_empty(),
        summary: report.summary(),
        text: format!("\n{report}").trim_end().to_string(),
        warnings: report.warnings.iter().map(ToString::to_string).collect(),
        error_line: report.errors.first().map(|e| e.line),
        applying: None,
    }
}

/// An outcome that is a note of the page's own (an apply in flight, cancelled, a scenario's manifests).
fn apply_note(seq: u64, ok: bool, summary: String, applying: Option<ApplyProgress>) -> ApplyOutcome {
    ApplyOutcome { seq, ok, summary, applying, ..ApplyOutcome::default() }
}

/// An apply larger than this is read across frames, the clock held meanwhile (kubeloop's own bound: a smaller one
/// takes less than a frame's budget).
pub const SLICED_APPLY_BYTES: usize = 64 * 1024;

/// A large apply spread across frames ([`LiveRun::frame`]), the clock held: read (cancellable), then performed at
/// the simulated time it was asked for: planned and written a few objects at a time, nothing else touching the run
/// meanwhile ([`LiveRun::settle_apply`]).
struct Applying {
    /// The text's size, for the progress line.
    bytes: usize,
    /// Typed in the console (`apply -f -`): it prints there too.
    console: bool,
    stage: ApplyStage,
}

enum ApplyStage {
    /// The text, until it is recorded as the apply.
    Reading(kubeloop_engine::manifest::Reading, String),
    /// The steps reading took; the apply being planned and written.
    Performing(usize, Box<kubectl::Applying>),
}

impl ApplyStage {
    /// Steps done, of how many (an object counts as one document until the text is read).
    fn progress(&self) -> (usize, usize) {
        match self {
            ApplyStage::Reading(r, _) => {
                let (done, of) = r.progress();
                (done, 2 * of)
            }
            ApplyStage::Performing(read, a) => {
                let (done, of) = a.progress();
                (read + done, read + of)
            }
        }
    }
}

/// Whether a console line is exactly `kubectl apply -f -` (the editor's text applied, as the Apply button does).
fn applies_stdin(line: &str) -> bool {
    let words = kubectl::args::split_words(line).unwrap_or_default();
    let words: Vec<&str> = words.iter().map(String::as_str).filter(|w| *w != "kubectl").collect();
    words == ["apply", "-f", "-"]
}

/// A fresh simulation of the scenario's cluster (the runner's own start: its nodes, then its manifests applied) with
/// the page's seed and timings: the simulation, what the apply said, and problems to show.
fn fresh_sim(seed: u64, profile: TimingProfile, scenario: &Scenario, seq: u64) -> (Sim, ApplyOutcome, Vec<String>) {
    let (mut sim, problems) = match scenario.cluster(seed, Some(profile)) {
        Ok((sim, _)) => (sim, Vec::new()),
        // Only a node the simulation refuses (too many, a name twice): the cluster without nodes, and why.
        Err(e) => (Sim::new(profile.apply(SimConfig { seed, ..SimConfig::default() })), vec![e.to_string()]),
    };
    let text = scenario.manifests.clone().unwrap_or_default();
    let done = sim.intervene(&Intervention::Apply(text), &kubectl::Input::none());
    let report = done.applied.unwrap_or_default();
    (sim, apply_outcome(seq, &report), problems)
}

/// The timing profile's name on the page.
pub fn profile_label(p: TimingProfile) -> &'static str {
    match p {
        TimingProfile::Real => "real (50 s / 300 s)",
        TimingProfile::FastDemo => "fast demo (20 s / 30 s)",
    }
}

impl LiveRun {
    /// A cluster of [`START_NODES`] nodes with the web Deployment applied, running. `clock` is the wall clock in
    /// milliseconds (`performance.now()` in the browser).
    pub fn boot(seed: u64, notice: Option<String>, clock: Box<dyn Fn() -> f64>) -> LiveRun {
        let (sim, apply, mut problems) = fresh_sim(seed, TimingProfile::Real, &default_scenario(), 1);
        if let Some(n) = notice {
            problems.insert(0, n);
        }
        let wall = clock();
        crate::crash::note_start(&Scenario { seed: Some(seed), ..default_scenario() });
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
            drift: DriftMeter::default(),
            drift_whole_max: crate::driftmeter::WHOLE_MAX,
            drift_budget: crate::driftmeter::PART_BUDGET,
            schedule_profile: Profile::default(),
            explained: None,
            loop_controller: "replicaset".into(),
            loop_history: Default::default(),
            cluster_history: Default::default(),
            console: Console::default(),
            lesson: None,
            lesson_asks: true,
            editor: Rc::new(EditorLoad::default()),
            meter: ReadMeter::default(),
            base: default_scenario(),
            recorded: Vec::new(),
            unrecordable: None,
            download: None,
            script: Vec::new(),
            script_next: 0,
            default_base: true,
            applying: None,
            share: None,
            share_request: None,
            waiting_docs: None,
            docs_request: true,
            lessons_request: true,
            lessons_fetching: false,
            pending_lesson: None,
            pending_scenario: None,
            docs_fetching: false,
            search: None,
        }
    }

    /// Starts the run again from its starting cluster, with the same interventions at the same simulated times
    /// as the clock reaches them, with `seed` (or the same seed). The same seed replays the same history.
    pub fn replay(&mut self, seed: Option<u64>) {
        if let Some(why) = &self.unrecordable {
            self.notice = Some(format!("This run cannot be replayed exactly: {why}.").into());
            return;
        }
        let script = std::mem::take(&mut self.recorded);
        let base = self.base.clone();
        if let Some(s) = seed {
            self.seed = s;
        }
        self.rebuild(&base);
        self.script = script;
        self.script_next = 0;
        self.playing = true;
        self.notice = Some(
            format!(
                "Replaying the run from 0 with seed {}: its {} intervention(s) at their times.",
                self.seed,
                self.script.len()
            )
            .into(),
        );
    }

    /// Opens a scenario file: its cluster with its seed and timings, its actions replayed exactly as `kubeloop run`
    /// replays them, to its `until:` (or its last action), paused there, ready to continue live. Its actions are
    /// the run's record, so exporting again gives the same run.
    pub fn import(&mut self, text: &str) -> Result<(), String> {
        let sc = Scenario::parse(text).map_err(|e| format!("The scenario does not read: {e}"))?;
        self.import_scenario(sc)
    }

    /// [`LiveRun::import`] of a scenario already read.
    fn import_scenario(&mut self, sc: Scenario) -> Result<(), String> {
        let until = sc.until.or_else(|| sc.actions.last().map(|a| a.at)).unwrap_or(0);
        // `kubectl -f PATH` reads what the console reads: the examples and the files the example scenarios read.
        let opts = kubeloop_engine::scenario::RunOptions {
            until: Some(until),
            read_file: Some(&example_file),
            ..Default::default()
        };
        let mut run = sc.start(opts).map_err(|e| format!("The scenario does not start: {e}"))?;
        run.run_to(until);
        let stopped = run.stopped_at_budget();
        let go_on = run.into_sim();
        self.seed = sc.seed.unwrap_or(kubeloop_engine::scenario::DEFAULT_SEED);
        self.profile = sc.timing;
        self.console.interrupt_where(&mut self.sim, &|_| true);
        let text = "the opened scenario's manifests were applied at t = 0".to_string();
        self.apply = Rc::new(apply_note(self.apply.seq + 1, true, text, None));
        self.take_sim(go_on.sim, &Scenario { actions: Vec::new(), ..sc.clone() });
        self.recorded = go_on.ran;
        crate::crash::note_actions(&self.recorded);
        // The commands still printing go on in the console, on their grids, as the runner's longer run follows them;
        // as when typed there, each one that only reads stops at the next (its action says so, `for:`, so that a
        // later export replays that too).
        for f in go_on.follows {
            self.interrupt_readers();
            self.console.adopt(&mut self.sim, &f.command, "", f.follow, Some(f.action), f.stop_at);
            if let Some(r) = self.console.newest() {
                r.grid = f.grid;
            }
        }
        self.playing = false;
        self.notice = Some(
            match stopped {
                Some(at) => format!("The scenario stopped at its work budget at {} s.", at / SECOND),
                None => format!(
                    "Opened the scenario (seed {}): replayed to {} s and paused there; play continues it live.",
                    self.seed,
                    self.sim.now() / SECOND
                ),
            }
            .into(),
        );
        Ok(())
    }

    /// What the page keeps across a reload: `editor` (the editor's text, which the page reads), the console's
    /// scrollback and the run so far (when it is exportable).
    /// `None` while there is nothing to keep: the default cluster untouched, the default text, an empty console.
    pub fn session(&self, editor: String) -> Option<crate::session::Session> {
        let console: Vec<_> = self.console.entries().map(crate::session::SavedEntry::of).collect();
        let untouched = self.recorded.is_empty()
            && self.unrecordable.is_none()
            && self.lesson.is_none()
            && self.profile == TimingProfile::Real
            && self.default_base;
        if untouched && console.is_empty() && editor == crate::examples::WEB {
            return None;
        }
        Some(crate::session::Session { editor, run: self.export().ok(), playing: self.playing, console })
    }

    /// Opens a session kept before a reload: its run replayed to where it was (and playing if it was), its console
    /// scrollback and its editor text back. A run of another seed than the page's (`?seed=`) is not restored, nor
    /// one that does not open; the notice says why.
    pub fn restore(&mut self, s: crate::session::Session) {
        let run = match s.run.as_deref().map(Scenario::parse) {
            None => String::new(),
            Some(Err(e)) => format!(" not the run (The scenario does not read: {e});"),
            Some(Ok(sc)) if sc.seed.is_some_and(|seed| seed != self.seed) => format!(
                " not the run (it has seed {}, this page seed {}: open the page without ?seed= or with its seed);",
                sc.seed.unwrap_or_default(),
                self.seed
            ),
            Some(Ok(sc)) => match self.import_scenario(sc) {
                Ok(()) => {
                    self.playing = s.playing;
                    format!(
                        " the run, replayed to {}{};",
                        crate::format::fmt_secs(self.sim.now()),
                        if s.playing { " and going on" } else { ", paused as it was (▶ Play goes on)" }
                    )
                }
                Err(e) => format!(" not the run ({e});"),
            },
        };
        self.console.restore(&s.console);
        self.load_editor(&s.editor);
        self.notice = Some(
            format!(
                "Restored your last session:{run} your editor text and {} console entr{}. Reset (in the header) starts from the default cluster and text.",
                s.console.len(),
                if s.console.len() == 1 { "y" } else { "ies" }
            )
            .into(),
        );
    }

    /// Puts `text` in the editor.
    pub fn load_editor(&mut self, text: &str) {
        self.editor = Rc::new(EditorLoad { seq: self.editor.seq + 1, text: text.into() });
    }

    /// Starts reading a large apply across frames, the clock held (a text that does not even split into documents
    /// is performed at once: its error is quick to say).
    fn start_apply(&mut self, text: String, console: bool) {
        if self.applying.is_some() {
            self.notice = Some("An apply is still being read: wait for it, or Cancel it first.".into());
            return;
        }
        match kubeloop_engine::manifest::Reading::new(text.as_str().into(), kubeloop_engine::manifest::STDIN) {
            Ok(reading) => {
                let job = Applying { bytes: text.len(), console, stage: ApplyStage::Reading(reading, text) };
                self.apply = Rc::new(ApplyOutcome { seq: self.apply.seq + 1, ..self.apply_progress(&job) });
                self.applying = Some(job);
                self.target = self.sim.now() as f64;
            }
            Err(_) => {
                let what = Intervention::Apply(text);
                self.intervene(&what);
                self.record(what, None);
            }
        }
    }

    /// What the page says of an apply in flight.
    fn apply_progress(&self, job: &Applying) -> ApplyOutcome {
        let (done, of) = job.stage.progress();
        let (what, cancellable) = match &job.stage {
            ApplyStage::Reading(..) => ("reading", true),
            ApplyStage::Performing(..) => ("applying", false),
        };
        let text = format!("{what} {} bytes: {}%…", job.bytes, done * 100 / of.max(1));
        apply_note(self.apply.seq, true, text, Some(ApplyProgress { done, of, cancellable }))
    }

    /// Moves the apply in flight on for `budget` wall ms: reads it; once read (or at its first error), records it
    /// and performs it at the held simulated time, as `Sim::intervene` of it would, a few objects at a time.
    fn step_apply(&mut self, started: f64, budget: f64) {
        let Some(Applying { bytes, console, mut stage }) = self.applying.take() else { return };
        loop {
            stage = match stage {
                ApplyStage::Reading(mut reading, text) => match reading.step(8) {
                    Ok(false) => ApplyStage::Reading(reading, text),
                    Ok(true) => {
                        let read = reading.progress().1;
                        self.begin_apply(text);
                        ApplyStage::Performing(read, Box::new(kubectl::Applying::new(&self.sim, reading.finish())))
                    }
                    Err(e) => {
                        self.begin_apply(text);
                        return self.applied(kubectl::ApplyReport::refused(e), console);
                    }
                },
                ApplyStage::Performing(read, mut a) => {
                    if a.step(&mut self.sim, 8) {
                        return self.applied(a.finish(), console);
                    }
                    ApplyStage::Performing(read, a)
                }
            };
            if self.wall() - started > budget {
                break;
            }
        }
        let job = Applying { bytes, console, stage };
        self.apply = Rc::new(self.apply_progress(&job));
        self.applying = Some(job);
        self.dirty = true;
    }

    /// The apply is read: from here it is the run's (recorded now, performed before anything else touches the run).
    fn begin_apply(&mut self, text: String) {
        self.record(Intervention::Apply(text), None);
    }

    /// Cancel (or Ctrl+C in the console that started it): an apply still being read is dropped, nothing of it
    /// applied or recorded; once read it is the run's and goes on.
    fn cancel_apply(&mut self) {
        let Some(Applying { stage: ApplyStage::Reading(..), console, .. }) = self.applying else { return };
        self.applying = None;
        let text = "apply cancelled: nothing was applied".to_string();
        if console {
            self.console.ended(kubectl::Output { stderr: format!("{text}\n"), code: 130, ..Default::default() });
        }
        self.apply = Rc::new(apply_note(self.apply.seq + 1, false, text, None));
    }

    /// The apply in flight ended: what it said, as `Sim::intervene` of it says it (and in the console, as kubectl
    /// prints it, when it was typed there).
    fn applied(&mut self, report: kubectl::ApplyReport, console: bool) {
        if console {
            self.console.ended(kubectl::apply_output(&report));
        }
        self.apply = Rc::new(apply_outcome(self.apply.seq + 1, &report));
        self.dirty = true;
    }

    /// An apply already recorded (read, being planned or written) is finished at once: nothing else may touch the
    /// run before it has all been written, or the record would not replay (the page calls this before any command
    /// that reads or changes the run). `all`: one still being read too.
    fn settle_apply(&mut self, all: bool) {
        if all || matches!(&self.applying, Some(Applying { stage: ApplyStage::Performing(..), .. })) {
            self.step_apply(self.wall(), f64::INFINITY);
        }
    }

    /// The file an export made, once.
    pub fn take_download(&mut self) -> Option<(String, String)> {
        self.download.take()
    }

    /// Whether explain's documentation is to be fetched now: asked for, not loaded, no fetch on its way. The page
    /// answers with [`Cmd::Docs`].
    pub fn take_docs_request(&mut self) -> bool {
        let go = std::mem::take(&mut self.docs_request) && !self.docs_fetching && !kubectl::docs_loaded();
        self.docs_fetching |= go;
        go
    }

    /// Stops the explain that waits for its documentation, as Ctrl+C would.
    fn stop_waiting(&mut self) {
        if let Some((id, _)) = self.waiting_docs.take() {
            self.console.finish(id, kubectl::Output { stderr: "^C\n".into(), code: 130, ..Default::default() });
        }
    }

    /// The run to make a link of (its scenario file and history hash), once.
    pub fn take_share_request(&mut self) -> Option<(String, u64)> {
        self.share_request.take()
    }

    /// Starts making a link to the run so far: the page compresses the export into the URL's fragment.
    fn share(&mut self) {
        let (at, hash) = (self.sim.now(), self.sim.history_hash());
        let state = match self.export() {
            Ok(text) => {
                self.share_request = Some((text, hash));
                ShareState::Making
            }
            Err(e) => ShareState::Failed(e.into()),
        };
        self.share = Some(Rc::new(ShareView { at, hash, state }));
    }

    /// The link the page made (or why it made none).
    fn shared(&mut self, made: Result<String, String>) {
        let Some(share) = self.share.as_mut() else { return };
        if share.state != ShareState::Making {
            return;
        }
        Rc::make_mut(share).state = match made {
            Ok(url) => ShareState::Made { url: url.into(), copied: None },
            Err(e) => ShareState::Failed(e.into()),
        };
    }

    /// Opens what a link names: a run (replayed to its end and paused there, its hash checked against the link's),
    /// a lesson at its start, an example scenario replayed to its end, or an example's manifests applied to the
    /// starting cluster. Always paused: play goes on from there.
    pub fn open(&mut self, what: Opening) {
        let opened = match what {
            Opening::Failed(why) => Err(why),
            Opening::Run { text, hash } => self.import(&text).map(|()| match hash {
                Some(h) if h != self.sim.history_hash() => format!(
                    "The link says its run ends at history hash {h:016x}; replayed here it ends at {:016x}: this is not the run that was shared (a link made by another kubeloop version?).",
                    self.sim.history_hash()
                ),
                _ => format!(
                    "Opened the shared run (seed {}): replayed to {} and paused there{}; ▶ Play continues it live.",
                    self.seed,
                    crate::format::fmt_secs(self.sim.now()),
                    if hash.is_some() { ", at the history hash the link says" } else { "" }
                ),
            }),
            Opening::Lesson(id) => match crate::lessons::find(&id) {
                Some(l) if l.scenario().is_none() => {
                    // Its file has not arrived: the lesson opens when it does.
                    self.pending_lesson = Some((l.id, None, true));
                    self.lessons_request = true;
                    Ok(format!("Opening the lesson \"{}\": its file is on its way.", l.title))
                }
                Some(l) => {
                    self.start_lesson(l.id, None);
                    Ok(format!("Opened the lesson \"{}\" at its start: ▶ Play runs it.", l.title))
                }
                None => Err(format!("there is no lesson {id:?} (lessons: {})", crate::lessons::ids().join(", "))),
            },
            Opening::Scenario(name) => match crate::examples::scenario(&name) {
                None if crate::examples::scenario_known(&name).is_some() => {
                    // Its file has not arrived: the scenario opens when it does.
                    self.pending_scenario = crate::examples::scenario_known(&name);
                    self.lessons_request = true;
                    Ok(format!("Opening examples/{name}.yaml: its file is on its way."))
                }
                Some(text) => self.import(&text).map(|()| {
                    format!(
                        "Opened examples/{name}.yaml: replayed to {} and paused there, as `kubeloop run` ends it; ▶ Play continues it live.",
                        crate::format::fmt_secs(self.sim.now())
                    )
                }),
                None => {
                    let names: Vec<&str> = crate::examples::SCENARIOS.to_vec();
                    Err(format!("there is no example scenario {name:?} (scenarios: {})", names.join(", ")))
                }
            },
            Opening::Cluster { nodes, pods } => self.new_cluster(nodes, pods).map(|said| format!("{said} ▶ Play runs it.")),
            Opening::Example(id) => match crate::examples::find(&id) {
                Some(ex) => {
                    let sc = Scenario { manifests: Some(ex.yaml.to_string()), ..default_scenario() };
                    self.rebuild(&sc);
                    Ok(format!("Opened the example \"{}\": applied to the starting cluster at 0 s; ▶ Play runs it.", ex.title))
                }
                None => {
                    let ids: Vec<&str> = crate::examples::EXAMPLES.iter().map(|e| e.id).collect();
                    Err(format!("there is no example {id:?} (examples: {})", ids.join(", ")))
                }
            },
        };
        self.playing = false;
        self.target = self.sim.now() as f64;
        self.notice = Some(
            match opened {
                Ok(said) => said,
                Err(why) => format!("The link does not open: {why}. The page shows its starting cluster instead."),
            }
            .into(),
        );
    }

    /// A new run of `nodes` nodes and `pods` pods ([`sized_scenario`]), with the same seed: what it is, or why not
    /// (the run shown is kept then).
    fn new_cluster(&mut self, nodes: usize, pods: usize) -> Result<String, String> {
        let sc = sized_scenario(nodes, pods)?;
        self.rebuild(&sc);
        let deployments = pods.div_ceil(DEMO_PODS_PER_DEPLOYMENT);
        Ok(format!(
            "A new run (seed {}): {nodes} nodes and {pods} pods in {deployments} of kubeloop's own demo Deployments (app-0 …, {DEMO_PODS_PER_DEPLOYMENT} pods each, as `kubeloop bench --nodes {nodes} --pods {pods}` makes them).",
            self.seed
        ))
    }

    /// Searches the cluster by name: one node or pod named exactly is selected (its details open); an empty query
    /// clears the search.
    fn find(&mut self, query: &str) {
        if query.trim().is_empty() {
            self.search = None;
            return;
        }
        let found = crate::snapshot::search(&self.sim, query);
        if found.exact {
            if let Some(sel) = found.found.first() {
                self.selection = sel.clone();
            }
        }
        self.search = Some(Rc::new(found));
    }

    /// Records an intervention made now.
    fn record(&mut self, what: Intervention, label: Option<String>) {
        if self.recorded.len() >= MAX_RECORDED {
            self.not_exact(format!("the run made more than {MAX_RECORDED} interventions (kubeloop's own bound)"));
            return;
        }
        self.recorded.push(Action {
            at: self.sim.now(),
            what,
            label,
            line: 0,
            stop_after: None,
            ask: None,
            expect: std::rc::Rc::from([]),
        });
        if let Some(a) = self.recorded.last() {
            crate::crash::note_action(a);
        }
    }

    /// The run can no longer be exported exactly, and why.
    fn not_exact(&mut self, why: String) {
        crate::crash::note_unrecordable(Some(&why));
        self.unrecordable = Some(why);
    }

    /// The recorded action `i`'s command was interrupted now: its `for:`.
    fn stopped(&mut self, i: usize) {
        let now = self.sim.now();
        if let Some(a) = self.recorded.get_mut(i) {
            let d = now.saturating_sub(a.at);
            a.stop_after = Some(d);
            crate::crash::note_stop(i, d);
        }
    }

    /// A new line in the console (or a lesson's command line): the running commands that only read stop, each
    /// looked at once more (a terminal's foreground command; one that writes as it goes goes on beside it, so that a
    /// read never changes the run), and the actions that started them say when (`for:`).
    fn interrupt_readers(&mut self) {
        // An explain waiting for its documentation only reads, too.
        self.stop_waiting();
        for i in self.console.interrupt_readers(&mut self.sim) {
            self.stopped(i);
        }
    }

    /// Ctrl+C: the newest running command stops, looked at once more (as the runner interrupts one at its `for:`),
    /// and the action that started it says when.
    fn interrupt_newest(&mut self) {
        if let Some(i) = self.console.interrupt_newest(&mut self.sim) {
            self.stopped(i);
        }
    }

    /// The run so far as a scenario file: seed, timings, the starting cluster and every intervention at its time,
    /// ending now. `kubeloop run` replays it to the same history hash.
    pub fn export(&self) -> Result<String, String> {
        if let Some(why) = &self.unrecordable {
            return Err(format!("This run cannot be exported exactly: {why}."));
        }
        let sc = Scenario {
            seed: Some(self.seed),
            until: Some(self.sim.now()),
            timing: self.profile,
            actions: self.recorded.clone(),
            ..self.base.clone()
        };
        Ok(sc.to_yaml())
    }

    /// Records a console line that may write: as `apply` of the editor's text when it reads it with `-f -`.
    fn record_console(&mut self, line: &str, stdin: Option<&str>) {
        let words = kubectl::args::split_words(line).unwrap_or_default();
        let reads_stdin = words.windows(2).any(|w| matches!(w, [f, d] if (f == "-f" || f == "--filename") && d == "-"))
            || words.iter().any(|w| w == "-f=-");
        match (reads_stdin, applies_stdin(line), stdin) {
            (false, _, _) => self.record(Intervention::Kubectl(line.trim().to_string()), None),
            (true, true, Some(text)) => self.record(Intervention::Apply(text.to_string()), None),
            (true, _, _) => self.not_exact(format!("`{}` read the editor with -f -", line.trim())),
        }
    }

    /// Replaces the simulation by a fresh one of the scenario's cluster with the same seed (the console's running
    /// command stops; what the view measured of the old one is forgotten). The editor shows its manifests.
    fn rebuild(&mut self, scenario: &Scenario) {
        self.console.interrupt_where(&mut self.sim, &|_| true);
        let (sim, apply, problems) = fresh_sim(self.seed, self.profile, scenario, self.apply.seq + 1);
        self.apply = Rc::new(apply);
        if !problems.is_empty() {
            self.notice = Some(problems.join(" ").into());
        }
        self.take_sim(sim, scenario);
    }

    /// Makes `sim`, started from `scenario`'s cluster, the run shown: what the view measured of the old one is
    /// forgotten, the record starts from that cluster, and the editor shows its manifests.
    fn take_sim(&mut self, sim: Sim, scenario: &Scenario) {
        self.sim = sim;
        self.target = self.sim.now() as f64;
        self.lagging = false;
        self.stream = Stream::default();
        self.history.clear();
        self.loop_history.clear();
        self.cluster_history.clear();
        self.next_sample = self.sim.now() / SECOND * SECOND;
        self.selection = Selection::None;
        self.search = None;
        self.cache = NodeCache::default();
        self.rate_window = (self.wall(), self.sim.now());
        self.informers = Rc::new(Vec::new());
        self.drift = DriftMeter::default();
        self.lesson = None;
        self.meter = ReadMeter::default();
        self.base = Scenario { actions: Vec::new(), ..scenario.clone() };
        self.default_base = false;
        self.recorded.clear();
        self.unrecordable = None;
        crate::crash::note_start(&Scenario { seed: Some(self.seed), timing: self.profile, ..self.base.clone() });
        self.script.clear();
        self.script_next = 0;
        self.applying = None;
        self.load_editor(scenario.manifests.as_deref().unwrap_or_default());
    }

    fn start_lesson(&mut self, id: &str, profile: Option<TimingProfile>) {
        let Some(lesson) = crate::lessons::find(id) else {
            self.notice = Some(format!("No lesson \"{id}\".").into());
            return;
        };
        let scenario = match lesson.scenario() {
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                self.notice = Some(format!("The lesson \"{id}\" does not parse: {e}").into());
                return;
            }
            None => {
                // Its file is on its way (the page fetches the lessons once it runs): it starts when it arrives.
                self.pending_lesson = Some((lesson.id, profile, false));
                self.lessons_request = true;
                self.notice = Some(format!("Loading the lesson \"{}\"…", lesson.title).into());
                return;
            }
        };
        if let Some(p) = profile {
            self.profile = p;
        }
        self.pending_lesson = None;
        self.rebuild(scenario);
        let run = LessonRun::new(lesson, scenario, self.sim.now());
        self.speed = Speed::X(run.info.speed);
        self.lesson = Some(run);
        self.playing = true;
    }

    /// Whether the lessons' files are to be fetched now: asked for, some not arrived, no fetch on its way. The page
    /// answers with [`Cmd::Files`].
    pub fn take_lessons_request(&mut self) -> bool {
        let go = std::mem::take(&mut self.lessons_request) && !self.lessons_fetching && !missing_files().is_empty();
        self.lessons_fetching |= go;
        go
    }

    /// The lessons' and example scenarios' files have arrived (or not): each is kept, and what was asked for
    /// meanwhile opens.
    fn files(&mut self, got: Vec<(String, Result<String, String>)>) {
        self.lessons_fetching = false;
        let mut failed = None;
        for (path, text) in got {
            let text = match text {
                Ok(t) => t,
                Err(e) => {
                    failed = Some(e);
                    continue;
                }
            };
            if let Some(l) = crate::lessons::all().iter().find(|l| l.file() == path) {
                l.provide(&text);
            } else if let Some(n) =
                crate::examples::SCENARIOS.iter().find(|n| crate::examples::scenario_file(n) == path)
            {
                crate::examples::provide_scenario(n, &text);
            }
        }
        if let Some(name) = self.pending_scenario.take() {
            if crate::examples::scenario(name).is_some() {
                self.open(Opening::Scenario(name.to_string()));
            } else {
                let why = failed.clone().unwrap_or_else(|| "its file did not arrive".into());
                self.notice = Some(format!("examples/{name}.yaml did not load: {why}.").into());
            }
        }
        let Some((id, profile, from_link)) = self.pending_lesson.take() else { return };
        match crate::lessons::find(id).and_then(|l| l.scenario().map(|_| l)) {
            Some(l) => {
                self.start_lesson(id, profile);
                if from_link {
                    self.playing = false;
                    self.notice =
                        Some(format!("Opened the lesson \"{}\" at its start: ▶ Play runs it.", l.title).into());
                }
            }
            None => {
                let why = failed.unwrap_or_else(|| "its file did not arrive".into());
                self.notice = Some(format!("The lesson \"{id}\" did not load: {why}.").into());
            }
        }
    }

    /// The next moment something other than a simulation event is due: a look at one of the console's running
    /// commands (each on its grid, as the runner's), an interruption (a replayed `for:`), the lesson's (or the
    /// replay's) next action.
    fn next_due(&self) -> Option<Millis> {
        [self.next_step_at(), self.console.next_due()].into_iter().flatten().min()
    }

    /// Runs what is due at `s` (the clock stands there), in the runner's order: the looks, the interruptions, then
    /// the action.
    fn run_due(&mut self, s: Millis) {
        if self.console.poll_due(&mut self.sim, s) {
            self.dirty = true;
        }
        for i in self.console.stop_due(&mut self.sim, s) {
            self.stopped(i);
        }
        if self.next_step_at().is_some_and(|t| t <= s) {
            self.run_step();
        }
    }

    /// At this speed single watch events and queue items blur: the loop diagram shows rates.
    fn blurs(&self) -> bool {
        self.playing && !matches!(self.speed, Speed::X(k) if k < LOOP_RATES_FROM)
    }

    /// Answers the lesson's waiting question, if one waits (`None`: skipped).
    fn answer(&mut self, choice: Option<usize>) {
        if let Some(run) = self.lesson.as_mut() {
            run.answer(choice);
        }
    }

    /// A lesson's question waits for its answer: the clock holds.
    fn held(&self) -> bool {
        self.lesson.as_ref().is_some_and(|r| r.asking.is_some())
    }

    /// When the lesson's (or the replay's) next action is due.
    fn next_step_at(&self) -> Option<Millis> {
        match self.lesson.as_ref() {
            Some(run) => run.scenario.actions.get(run.next).map(|a| run.start + a.at),
            None => self.script.get(self.script_next).map(|a| a.at),
        }
    }

    /// Runs the lesson's (or the replay's) next action (its time has come), as the runner does.
    fn run_step(&mut self) {
        if self.lesson.is_none() {
            let Some(a) = self.script.get(self.script_next).cloned() else { return };
            self.script_next += 1;
            self.intervene(&a.what);
            self.record(a.what, a.label);
            let i = self.recorded.len().checked_sub(1);
            if let Some(r) = self.console.newest().filter(|r| r.action == i) {
                r.stop_at = a.stop_after.map(|d| a.at.saturating_add(d));
            }
            self.dirty = true;
            return;
        }
        let Some(run) = self.lesson.as_mut() else { return };
        if run.asking.is_some() {
            return;
        }
        if let Some(i) = run.unasked().filter(|_| self.lesson_asks) {
            // The step waits for the person's prediction: the clock holds here.
            run.asking = Some(i);
            self.playing = false;
            self.dirty = true;
            return;
        }
        let Some(action) = run.scenario.actions.get(run.next) else { return };
        let what = action.what.clone();
        let label = action.label.clone();
        let step = run.next;
        run.next += 1;
        let done = self.intervene(&what);
        self.record(what, label);
        if let Some(run) = self.lesson.as_mut() {
            run.results.push(done.one_line());
            run.ran(step, &self.sim);
        }
        self.dirty = true;
    }

    /// Performs an intervention on the simulation (a button, an apply, a lesson's action): an apply's result goes to
    /// the editor, another's error to the notice. A kubectl command that keeps printing (a lesson's `drain`) goes
    /// on in the console, as the runner follows it.
    fn intervene(&mut self, what: &Intervention) -> Performed {
        // A command line (or a delete that waits) may keep printing: in the console it is a new line there.
        if matches!(what, Intervention::Kubectl(_) | Intervention::Delete { wait: true, .. }) {
            self.interrupt_readers();
        }
        let input = kubectl::Input { stdin: None, read_file: &example_file };
        let mut done = self.sim.intervene(what, &input);
        if let Some(f) = done.follow.take() {
            let printed = done.text();
            // The action is recorded next, at this index (the callers record what they perform).
            let action = Some(self.recorded.len());
            self.console.adopt(&mut self.sim, &done.action, &printed, f, action, None);
        }
        if let Some(report) = &done.applied {
            self.apply = Rc::new(apply_outcome(self.apply.seq + 1, report));
        } else if let Some(e) = done.error() {
            self.notice = Some(e.into());
        }
        done
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
        self.loop_history.sample(&self.sim, &self.loop_controller, t);
        let drift = self.informers.iter().map(|r| r.drift).sum();
        self.cluster_history.sample(&self.sim, drift, t);
        if let Some(run) = self.lesson.as_mut() {
            run.look(&self.sim, t);
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
        if self.applying.is_some() {
            return true;
        }
        let mut n: u32 = 0;
        // Events until the wall clock is read next: one at first, then as many as an eighth of the budget holds at
        // the cost per event seen so far (at most 16). At scale one event (a scheduling cycle scoring a thousand
        // nodes) can cost tens of milliseconds: reading the clock only every 16 events made frames of a second.
        let mut batch: u32 = 1;
        let mut left = batch;
        while let Some(at) = self.sim.next_event_at() {
            if self.held() {
                self.target = self.sim.now() as f64;
                return true;
            }
            if at as f64 > self.target {
                break;
            }
            if let Some(s) = self.next_due().filter(|&s| s <= at) {
                // What is due comes first: the clock moves to it, it runs.
                self.sample_until(s);
                self.sim.run_until(s);
                self.run_due(s);
                continue;
            }
            self.sample_until(at);
            self.sim.step();
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
    fn run_to(&mut self, t: Millis) {
        while let Some(s) = self.next_due().filter(|&s| s <= t) {
            self.sample_until(s);
            self.sim.run_until(s);
            self.run_due(s);
            if self.held() {
                self.target = self.sim.now() as f64;
                return;
            }
        }
        if t > self.sim.now() {
            self.sample_until(t);
            self.sim.run_until(t);
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
            self.target = self.sim.now() as f64;
            return;
        }
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
        let reached = self.drain(started, budget);
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
        crate::crash::note_time(self.sim.now());
        let wall = self.wall();
        let (w0, s0) = self.rate_window;
        if wall - w0 >= 1000.0 {
            self.effective = (self.sim.now().saturating_sub(s0)) as f64 / (wall - w0);
            self.rate_window = (wall, self.sim.now());
        }
    }

    pub fn exec(&mut self, cmd: Cmd) {
        self.dirty = true;
        if !matches!(
            cmd,
            Cmd::CancelApply
                | Cmd::Select(_)
                | Cmd::Find(_)
                | Cmd::SetSpeed(_)
                | Cmd::DismissNotice
                | Cmd::Copied(_)
                | Cmd::CloseShare
        ) {
            self.settle_apply(false);
        }
        match cmd {
            Cmd::Intervene(Intervention::Apply(text)) if text.len() > SLICED_APPLY_BYTES => {
                self.start_apply(text, false)
            }
            Cmd::Intervene(what) => {
                self.intervene(&what);
                self.record(what, None);
            }
            Cmd::CancelApply => self.cancel_apply(),
            Cmd::Select(sel) => self.selection = sel,
            Cmd::SetPlaying(p) => {
                if p {
                    // Playing on past a question skips it.
                    self.answer(None);
                }
                self.playing = p;
                self.target = self.sim.now() as f64;
            }
            Cmd::Step => {
                self.answer(None);
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
            Cmd::SetTiming(p) => {
                self.profile = p;
                let what = format!(
                    "Rebuilt the simulation with seed {} and the {} node failure timings (node-monitor-grace-period / default tolerations of not-ready and unreachable): everything before was discarded.",
                    self.seed,
                    profile_label(p)
                );
                match self.lesson.as_ref().map(|r| r.lesson.id) {
                    Some(id) => self.start_lesson(id, None),
                    None => self.rebuild(&default_scenario()),
                }
                self.notice = Some(what.into());
            }
            Cmd::StartLesson(id, profile) => self.start_lesson(id, profile),
            Cmd::StopLesson => self.lesson = None,
            Cmd::Predict(choice) => {
                if self.held() {
                    self.answer(choice);
                    self.playing = true;
                    self.target = self.sim.now() as f64;
                }
            }
            Cmd::LessonAsks(on) => {
                self.lesson_asks = on;
                if !on {
                    self.answer(None);
                }
            }
            Cmd::DismissNotice => self.notice = None,
            Cmd::Kubectl { line, .. } if kubectl::needs_docs(&line) => {
                // explain's documentation is not in the page's download (docs/size.md): the line waits for it.
                self.interrupt_readers();
                self.waiting_docs = Some((self.console.waiting(&line), line));
                self.docs_request = true;
            }
            Cmd::Files(got) => self.files(got),
            Cmd::Docs(got) => {
                self.docs_fetching = false;
                let loaded = got.and_then(kubectl::load_docs);
                if let Some((id, line)) = self.waiting_docs.take() {
                    let out = match loaded {
                        Ok(()) => kubectl::run(&mut self.sim, &line, &kubectl::Input::none()),
                        Err(e) => {
                            kubectl::Output::error(format!("kubeloop: explain's documentation did not load: {e}"))
                        }
                    };
                    self.console.finish(id, out);
                }
            }
            Cmd::Kubectl { line, stdin: Some(text) } if text.len() > SLICED_APPLY_BYTES && applies_stdin(&line) => {
                // A large `apply -f -`: read and performed across frames as the Apply button's is, printed here.
                self.interrupt_readers();
                self.settle_apply(true);
                self.console.started(&line);
                self.start_apply(text, true);
            }
            Cmd::Kubectl { line, stdin } => {
                // The console is a terminal's foreground: a new line stops the command still printing that only
                // reads (a large apply typed there is finished first); one that writes as it goes goes on beside it.
                self.interrupt_readers();
                if self.applying.as_ref().is_some_and(|a| a.console) {
                    self.settle_apply(true);
                }
                let n = self.recorded.len();
                let follows = self.console.run(&mut self.sim, &line, stdin.as_deref());
                if kubectl::writes(&line) {
                    self.record_console(&line, stdin.as_deref());
                    if let Some(r) = self.console.newest().filter(|_| follows && self.recorded.len() > n) {
                        r.action = Some(n);
                    }
                }
            }
            Cmd::KubectlInterrupt => {
                // Ctrl+C stops the foreground: an explain waiting for its documentation (the newest line), a large
                // apply typed in the console, else the newest running command.
                if self.waiting_docs.is_some() {
                    self.stop_waiting();
                } else if self.applying.as_ref().is_some_and(|a| a.console) {
                    self.cancel_apply();
                } else {
                    self.interrupt_newest();
                }
            }
            Cmd::KubectlClear => self.console.clear(),
            Cmd::Notice(why) => self.notice = Some(why.into()),
            Cmd::Replay(seed) => self.replay(seed),
            Cmd::Import(text) => {
                if let Err(e) = self.import(&text) {
                    self.notice = Some(e.into());
                }
            }
            Cmd::Share => self.share(),
            Cmd::Shared(made) => self.shared(made),
            Cmd::Copied(ok) => {
                if let Some(ShareState::Made { copied, .. }) = self.share.as_mut().map(|s| &mut Rc::make_mut(s).state) {
                    *copied = Some(ok);
                }
            }
            Cmd::CloseShare => self.share = None,
            Cmd::ShowLoop(name) => self.loop_controller = name,
            Cmd::SetScheduleWeights(w) => {
                self.schedule_profile.weights = Weights(w.map(|x| x.clamp(0, MAX_SCORE_WEIGHT)))
            }
            Cmd::SetScheduleFilters(f) => self.schedule_profile.filters = f,
            Cmd::Open(what) => self.open(what),
            Cmd::Find(query) => self.find(&query),
            Cmd::NewCluster { nodes, pods } => {
                self.notice = Some(match self.new_cluster(nodes, pods) {
                    Ok(said) => {
                        self.playing = true;
                        said.into()
                    }
                    Err(why) => format!("No new run: {why}.").into(),
                })
            }
            Cmd::Export => match self.export() {
                Ok(text) => {
                    let name = format!("kubeloop-seed{}-{}s.yaml", self.seed, self.sim.now() / SECOND);
                    self.download = Some((name, text));
                }
                Err(e) => self.notice = Some(e.into()),
            },
        }
    }

    /// Tab in the console: completes the last word of `line` (see [`crate::console::apply_completion`]).
    pub fn complete_line(&mut self, line: &str) -> (String, Vec<String>) {
        let candidates = kubectl::complete(&mut self.sim, line);
        // The completion LISTed as the user: the API counters changed.
        self.dirty = true;
        crate::console::apply_completion(line, &candidates)
    }

    /// The scheduling explanation of pod `key`, made again when the pod or the profile changed, or when it is
    /// cheap, or at most every [`EXPLAIN_EVERY_MS`] (or [`EXPLAIN_SHARE`] times its cost).
    fn explain(&mut self, key: &ObjKey) -> Option<Rc<crate::view::ScheduleView>> {
        let now = self.wall();
        if let Some((k, w, at, cost, view)) = &self.explained {
            let fresh = *cost >= EXPLAIN_CHEAP_MS && now - at < EXPLAIN_EVERY_MS.max(cost * EXPLAIN_SHARE);
            if k == key && *w == self.schedule_profile && fresh {
                return Some(view.clone());
            }
        }
        let view = Rc::new(crate::snapshot::schedule_view(&self.sim, key, self.schedule_profile)?);
        let cost = self.wall() - now;
        self.explained = Some((key.clone(), self.schedule_profile, now, cost, view.clone()));
        Some(view)
    }

    pub fn snapshot(&mut self) -> Snapshot {
        self.dirty = false;
        self.stream.ingest(&self.sim);
        let rows = crate::snapshot::informer_rows(&self.sim);
        let measured = self.drift.measure(&self.sim, rows, self.wall(), self.drift_whole_max, self.drift_budget);
        let informers = Rc::new(measured.rows);
        self.informers = informers.clone();
        let mut detail = build_detail(&self.sim, &self.selection);
        if let Some(crate::view::Detail::Pod(d)) = detail.as_mut() {
            if d.exists {
                d.schedule = self.explain(&d.key.clone());
            }
        }
        let detail = detail.map(Rc::new);
        Snapshot {
            loop_diagram: crate::snapshot::build_loop_diagram(&self.sim, &self.loop_controller).map(|l| {
                Rc::new(crate::view::LoopDiagramView {
                    charts: self.loop_history.charts(),
                    cluster_charts: self.cluster_history.charts(),
                    rates: self.blurs().then(|| self.loop_history.rates()),
                    ..l
                })
            }),
            time: TimeView {
                now: self.sim.now(),
                playing: self.playing,
                speed: self.speed,
                lagging: self.lagging,
                effective: self.effective,
                seed: self.seed,
                events_processed: self.sim.events_processed(),
                history_hash: self.sim.history_hash(),
                interventions: self.recorded.len(),
            },
            summary: build_summary(&self.sim),
            cluster: build_cluster(&self.sim, &mut self.cache),
            services: Rc::new(build_services(&self.sim)),
            controllers: Rc::new(build_controllers(&self.sim, &self.history)),
            informers,
            drift: measured.total,
            drift_age_ms: measured.age.max(0.0) as u64,
            api_reads: self.sim.api_reads(),
            footprint: Rc::new(self.sim.footprint()),
            drop_pct: (self.sim.watch_drop() * 100.0).round() as u32,
            resync_ms: self.sim.resync_period(),
            loop_cfg: Rc::new(build_loop(&self.sim, self.meter.view())),
            control_plane: Rc::new(build_control_plane(&self.sim)),
            timing: self.profile,
            lesson: self
                .lesson
                .as_ref()
                .map(|r| Rc::new(build_lesson(&self.sim, r, self.meter.view(), self.lesson_asks))),
            editor: self.editor.clone(),
            events: self.stream.view(),
            selection: self.selection.clone(),
            detail,
            apply: self.apply.clone(),
            notice: self.notice.clone(),
            share: self.share.clone(),
            search: self.search.clone(),
            console: self.console.view(),
        }
    }
}

#[cfg(test)]
mod tests;
