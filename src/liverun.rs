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
use kubeloop_engine::link::Link;
use kubeloop_engine::scenario::{Due, Player, Record, Scenario, Script};
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
mod apply;
mod clock;
mod deferral;
mod fork;
mod open;
mod scrub;

pub use apply::SLICED_APPLY_BYTES;
use apply::*;
use deferral::{AfterCode, Waiting};

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
    /// The one scenario player (the runner's too): the cluster, the actions it performs as the clock reaches them
    /// (a lesson's steps, holding at their questions, or a replay's interventions), and the run as a value: the
    /// cluster it started from and every intervention made since, at its simulated time (reads are not recorded),
    /// and whether it can still be exported exactly.
    player: Player<'static>,
    pub seed: u64,
    /// The node failure timings the simulation was built with.
    pub profile: TimingProfile,
    pub playing: bool,
    /// The cluster view draws and counts kube-system's add-on pods (off: left out, as `kubectl get pods` leaves them).
    pub show_addons: bool,
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
    /// A file the page should hand to the person (name, text): the export.
    download: Option<(String, String)>,
    /// The run started from the page's own starting cluster (not a lesson's, a file's or a link's).
    default_base: bool,
    /// A large apply being read, the clock held until it is performed.
    applying: Option<Applying>,
    /// The link being made or made, as the page shows it.
    share: Option<Rc<ShareView>>,
    /// A run to make a link of (its scenario file and history hash), for the page to compress.
    share_request: Option<(String, u64)>,
    /// The console's line waiting for what it needs to run (explain's documentation, the second module's code):
    /// its entry, line and standard input. At most one: a new line or Ctrl+C stops it.
    waiting: Option<Waiting>,
    /// What waits for the second module's code (`deferred.rs`): commands, and a session to restore.
    after_code: AfterCode,
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
    /// An example a link opens whose file has not arrived: it opens when it does.
    pending_example: Option<&'static str>,
    /// The last search of the cluster by name.
    search: Option<Rc<crate::view::SearchView>>,
    /// The last "why?" asked of a pod, and its answer (`None`: no write of it kept).
    why: Option<(ObjKey, Rc<crate::view::ChainView>)>,
    /// The run's checkpoints, for the timeline ([`kubeloop_engine::scenario::Rewind`]).
    rewind: kubeloop_engine::scenario::Rewind,
    /// The cluster at the moment the timeline shows, while it shows an earlier one than now.
    scrubbed: Option<kubeloop_engine::scenario::Scrubbed>,
    /// Whether the clock played when the timeline was scrubbed: it plays again back at live.
    resume: bool,
    /// Wall milliseconds the last scrub took.
    scrub_ms: f64,
    /// The run this one was forked from, compared with it as it goes on, at most every `fork_look_ms` (wall).
    fork: Option<fork::Fork>,
    fork_look_ms: f64,
    /// The history asked of a pod or node: its key, its versions, and the two compared.
    /// Watch events the informers had lost at the last look (the timeline marks new losses).
    dropped_seen: u64,
    versions: Option<(ObjKey, crate::snapshot::history::HistoryData, Option<Rc<crate::view::HistoryView>>)>,
}

/// A score plugin's weight at most in the what-if (upstream accepts 1 to 100 in a profile; 0 here turns it off).
pub const MAX_SCORE_WEIGHT: i64 = 100;
/// A scheduling explanation that took longer than this is made again at most every [`EXPLAIN_EVERY_MS`], or every
/// [`EXPLAIN_SHARE`] times what it cost if that is longer (a large cluster: every node filtered and scored, every pod
/// counted; a what-if across the cluster explains many pods), so that it takes at most a twentieth of the page's time.
const EXPLAIN_CHEAP_MS: f64 = 4.0;
const EXPLAIN_EVERY_MS: f64 = 1_000.0;
const EXPLAIN_SHARE: f64 = 20.0;

/// The paths of the lessons' files and the examples' ([`crate::examples::SITE_FILES`]) that have not arrived (the
/// page fetches them once it runs).
pub fn missing_files() -> Vec<String> {
    let lessons = crate::lessons::missing().into_iter().map(|l| l.file());
    lessons.chain(crate::examples::missing()).collect()
}

/// The page's own starting point: [`START_NODES`] nodes of the default shape and the web Deployment, as a scenario
/// with no actions.
fn default_scenario() -> Scenario {
    Scenario {
        seed: None,
        until: None,
        node_template: NodeConfig::default(),
        nodes: vec![NodeConfig::default(); START_NODES],
        addons: true,
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
pub fn sized_scenario(nodes: usize, pods: usize, addons: bool) -> Result<Scenario, String> {
    use kubeloop_engine::limits::{MAX_NODES, MAX_PODS};
    let template = NodeConfig::default();
    if !(1..=MAX_NODES).contains(&nodes) {
        return Err(format!("a cluster has 1 to {MAX_NODES} nodes (kubeloop's own bound), not {nodes}"));
    }
    if pods > MAX_PODS {
        return Err(format!("a cluster has at most {MAX_PODS} pods (kubeloop's own bound), not {pods}"));
    }
    let shape = kubeloop_engine::bench::ColdStart {
        nodes,
        pods,
        per_deployment: DEMO_PODS_PER_DEPLOYMENT,
        services: false,
        seed: 0,
        addons,
    };
    if pods + shape.addon_pods() > nodes * template.pods as usize {
        let with = if addons { " beside kube-system's add-ons (2 pods a node and CoreDNS's 2)" } else { "" };
        return Err(format!("{pods} pods do not fit on {nodes} nodes of {} pods each{with}", template.pods));
    }
    let manifests = format!(
        "# kubeloop's own demo Deployments: {pods} pods in {} Deployment(s) of at most {DEMO_PODS_PER_DEPLOYMENT}, as `kubeloop bench --nodes {nodes} --pods {pods}` makes them\n{}",
        shape.deployments(),
        shape.manifests()
    );
    Ok(Scenario { nodes: vec![template; nodes], addons, manifests: Some(manifests), ..default_scenario() })
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
        let record = Record::new(&default_scenario(), seed, TimingProfile::Real);
        crate::crash::note_record(&record);
        LiveRun {
            player: Player::new(sim, record, &example_file),
            seed,
            profile: TimingProfile::Real,
            playing: true,
            show_addons: false,
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
            download: None,
            default_base: true,
            applying: None,
            share: None,
            share_request: None,
            waiting: None,
            after_code: AfterCode::default(),
            docs_request: true,
            lessons_request: true,
            lessons_fetching: false,
            pending_lesson: None,
            pending_scenario: None,
            pending_example: None,
            docs_fetching: false,
            search: None,
            why: None,
            rewind: Default::default(),
            scrubbed: None,
            resume: false,
            scrub_ms: 0.0,
            fork: None,
            fork_look_ms: fork::LOOK_EVERY_MS,
            versions: None,
            dropped_seen: 0,
        }
    }

    /// The cluster.
    pub fn sim(&self) -> &Sim {
        self.player.sim()
    }

    /// Starts the run again from its starting cluster, with the same interventions at the same simulated times
    /// as the clock reaches them, with `seed` (or the same seed). The same seed replays the same history.
    pub fn replay(&mut self, seed: Option<u64>) {
        if let Some(why) = self.player.record().unrecordable() {
            self.notice = Some(format!("This run cannot be replayed exactly: {why}.").into());
            return;
        }
        // Another seed forks the run at 0: the run of the old seed is kept, to compare with.
        let other = seed.filter(|s| *s != self.seed).map(|_| self.kept_run(0, 0));
        let script = self.player.record_mut().take_actions();
        let base = self.player.record().base().clone();
        let old = self.seed;
        if let Some(s) = seed {
            self.seed = s;
        }
        self.rebuild(&base);
        self.player.play(Script::new(script.into(), 0, None));
        self.playing = true;
        let compared =
            if other.is_some() { format!(", compared below with the run of seed {old}") } else { String::new() };
        self.fork = other;
        self.notice = Some(
            format!(
                "Replaying the run from 0 with seed {}: its {} intervention(s) at their times{compared}.",
                self.seed,
                self.player.script().actions().len()
            )
            .into(),
        );
    }

    /// What the page keeps across a reload: `editor` (the editor's text, which the page reads), the console's
    /// scrollback and the run so far (when it is exportable).
    /// `None` while there is nothing to keep: the default cluster untouched, the default text, an empty console.
    pub fn session(&self, editor: String) -> Option<crate::session::Session> {
        let console: Vec<_> = self.console.entries().map(crate::session::SavedEntry::of).collect();
        let untouched = self.player.record().actions().is_empty()
            && self.player.record().unrecordable().is_none()
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
        let Some(s) = self.restore_after_code(s) else { return };
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
                        crate::format::fmt_secs(self.player.now()),
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

    /// Stops the line that waits for what it needs, as Ctrl+C would.
    fn stop_waiting(&mut self) {
        if let Some(w) = self.waiting.take() {
            self.console.finish(w.id, kubectl::Output { stderr: "^C\n".into(), code: 130, ..Default::default() });
        }
    }

    /// The run to make a link of (its scenario file and history hash), once.
    pub fn take_share_request(&mut self) -> Option<(String, u64)> {
        self.share_request.take()
    }

    /// Starts making a link to the run so far: the page compresses the export into the URL's fragment.
    fn share(&mut self) {
        let (at, hash) = (self.player.now(), self.player.sim().history_hash());
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

    /// Searches the cluster by name: one node or pod named exactly is selected (its details open); an empty query
    /// clears the search.
    fn find(&mut self, query: &str) {
        if query.trim().is_empty() {
            self.search = None;
            self.why = None;
            return;
        }
        let found = crate::snapshot::search(self.player.sim(), query);
        if found.exact {
            if let Some(sel) = found.found.first() {
                self.selection = sel.clone();
            }
        }
        self.search = Some(Rc::new(found));
    }

    /// Records an intervention made now.
    fn record(&mut self, what: Intervention, label: Option<String>) {
        match self.player.record_now(what, label) {
            Some(a) => crate::crash::note_action(a),
            None => crate::crash::note_unrecordable(self.player.record().unrecordable()),
        }
    }

    /// The run can no longer be exported exactly, and why.
    fn not_exact(&mut self, why: String) {
        self.player.record_mut().not_exact(why);
        crate::crash::note_unrecordable(self.player.record().unrecordable());
    }

    /// The recorded action `i`'s command was interrupted now: its `for:`.
    fn stopped(&mut self, i: usize) {
        let now = self.player.now();
        if self.player.record_mut().stopped(i, now).is_some() {
            crate::crash::note_stop(i, now);
        }
    }

    /// A new line in the console (or a lesson's command line): the running commands that only read stop, each
    /// looked at once more (a terminal's foreground command; one that writes as it goes goes on beside it, so that a
    /// read never changes the run), and the actions that started them say when (`for:`).
    fn interrupt_readers(&mut self) {
        // An explain waiting for its documentation only reads, too.
        self.stop_waiting();
        for i in self.console.interrupt_readers(self.player.sim_mut()) {
            self.stopped(i);
        }
    }

    /// Ctrl+C: the newest running command stops, looked at once more (as the runner interrupts one at its `for:`),
    /// and the action that started it says when.
    fn interrupt_newest(&mut self) {
        if let Some(i) = self.console.interrupt_newest(self.player.sim_mut()) {
            self.stopped(i);
        }
    }

    /// The run so far as a scenario file: seed, timings, the starting cluster and every intervention at its time,
    /// ending now. `kubeloop run` replays it to the same history hash.
    pub fn export(&self) -> Result<String, String> {
        self.player.export()
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
        self.console.interrupt_where(self.player.sim_mut(), &|_| true);
        let (sim, apply, problems) = fresh_sim(self.seed, self.profile, scenario, self.apply.seq + 1);
        self.apply = Rc::new(apply);
        if !problems.is_empty() {
            self.notice = Some(problems.join(" ").into());
        }
        let record = Record::new(scenario, self.seed, self.profile);
        self.take_player(Player::new(sim, record, &example_file), scenario);
    }

    /// Makes `player` (whose cluster started from `scenario`'s) the run shown: what the view measured of the old
    /// one is forgotten, the record is the player's, and the editor shows the scenario's manifests.
    fn take_player(&mut self, player: Player<'static>, scenario: &Scenario) {
        self.player = player;
        self.new_timeline();
        self.fork = None;
        self.dropped_seen = 0;
        self.target = self.player.now() as f64;
        self.lagging = false;
        self.stream = Stream::default();
        self.history.clear();
        self.loop_history.clear();
        self.cluster_history.clear();
        self.next_sample = self.player.now() / SECOND * SECOND;
        self.selection = Selection::None;
        self.search = None;
        self.cache = NodeCache::default();
        self.rate_window = (self.wall(), self.player.now());
        self.informers = Rc::new(Vec::new());
        self.drift = DriftMeter::default();
        self.lesson = None;
        self.meter = ReadMeter::default();
        self.default_base = false;
        crate::crash::note_record(self.player.record());
        self.player.play(Script::default());
        self.applying = None;
        self.load_editor(scenario.manifests.as_deref().unwrap_or_default());
    }

    pub fn exec(&mut self, cmd: Cmd) {
        self.dirty = true;
        let Some(cmd) = self.unless_waiting_for_code(cmd) else { return };
        if !cmd.only_looks() {
            // What acts on the cluster acts on the live one: the view goes back to it first, and what is due at the
            // clock's time runs before it, as a replay runs it.
            self.go_live();
            self.settle_now();
        }
        if !matches!(
            cmd,
            Cmd::CancelApply
                | Cmd::Select(_)
                | Cmd::Find(_)
                | Cmd::Why(_)
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
                self.target = self.player.now() as f64;
            }
            Cmd::Step => {
                self.answer(None);
                self.playing = false;
                let now = self.player.now();
                let next = self.player.sim().next_event_at().unwrap_or(now).min(now + 60 * SECOND);
                self.target = (now + 100).max(next) as f64;
                let started = self.wall();
                self.drain(started, 50.0);
            }
            Cmd::SetSpeed(s) => {
                self.speed = s;
                self.target = self.player.now() as f64;
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
            Cmd::StopLesson => {
                self.lesson = None;
                self.player.play(Script::default());
            }
            Cmd::Predict(choice) => {
                if self.held() {
                    self.answer(choice);
                    self.playing = true;
                    self.target = self.player.now() as f64;
                }
            }
            Cmd::LessonAsks(on) => {
                self.lesson_asks = on;
                if !on {
                    self.answer(None);
                }
                self.player.ask(on);
            }
            Cmd::DismissNotice => self.notice = None,
            Cmd::Kubectl { line, stdin } if kubectl::needs_docs(&line) || !crate::deferred::ready() => {
                // explain's documentation and kubectl's code are not in the page's first download (docs/size.md):
                // the line waits for them.
                self.interrupt_readers();
                self.stop_waiting();
                self.docs_request |= kubectl::needs_docs(&line);
                self.after_code.request |= !crate::deferred::ready();
                self.waiting = Some(Waiting { id: self.console.waiting(&line), line, stdin });
            }
            Cmd::Files(got) => self.files(got),
            Cmd::Docs(got) => self.docs_arrived(got),
            Cmd::Deferred(got) => self.code_arrived(got),
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
                let n = self.player.record().actions().len();
                let follows = self.console.run(self.player.sim_mut(), &line, stdin.as_deref());
                if kubectl::writes(&line) {
                    self.record_console(&line, stdin.as_deref());
                    if let Some(r) =
                        self.console.newest().filter(|_| follows && self.player.record().actions().len() > n)
                    {
                        r.action = Some(n);
                    }
                }
            }
            Cmd::KubectlInterrupt => {
                // Ctrl+C stops the foreground: an explain waiting for its documentation (the newest line), a large
                // apply typed in the console, else the newest running command.
                if self.waiting.is_some() {
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
            Cmd::Scrub(t) => self.scrub(t),
            Cmd::Live => self.go_live(),
            Cmd::Fork => self.fork(),
            Cmd::History(key) => self.history(key),
            Cmd::HistoryPick { a, b } => self.pick_versions(a, Some(b)),
            Cmd::CloseHistory => self.versions = None,
            Cmd::Unfork => self.unfork(),
            Cmd::Why(key) => self.why_of(key, None),
            Cmd::WhyWrite(key, rv) => self.why_of(key, Some(rv)),
            Cmd::ShowAddons(shown) => {
                self.show_addons = shown;
                self.explained = None;
            }
            Cmd::NewCluster { nodes, pods, addons } => {
                self.notice = Some(match self.new_cluster(nodes, pods, addons) {
                    Ok(said) => {
                        self.playing = true;
                        said.into()
                    }
                    Err(why) => format!("No new run: {why}.").into(),
                })
            }
            Cmd::Export => match self.export() {
                Ok(text) => {
                    let name = format!("kubeloop-seed{}-{}s.yaml", self.seed, self.player.now() / SECOND);
                    self.download = Some((name, text));
                }
                Err(e) => self.notice = Some(e.into()),
            },
        }
    }

    /// Tab in the console: completes the last word of `line` (see [`crate::console::apply_completion`]).
    pub fn complete_line(&mut self, line: &str) -> (String, Vec<String>) {
        let candidates = kubectl::complete(self.player.sim_mut(), line);
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
        let view =
            Rc::new(crate::snapshot::schedule_view(self.player.sim(), key, self.schedule_profile, self.show_addons)?);
        let cost = self.wall() - now;
        self.explained = Some((key.clone(), self.schedule_profile, now, cost, view.clone()));
        Some(view)
    }

    /// "Why?" of a pod or node: its write `rv`, else the one [`crate::snapshot::build_why`] picks.
    fn why_of(&mut self, key: ObjKey, rv: Option<u64>) {
        // The chain's code is in the second module (docs/size.md): reached through a function pointer the optimizer
        // cannot see through, so that binaryen keeps it a function of its own to move there.
        let why: fn(&Sim, &ObjKey, Option<u64>) -> crate::view::ChainView = crate::snapshot::build_why;
        let chain = Rc::new(std::hint::black_box(why)(self.shown(), &key, rv));
        self.why = Some((key, chain));
    }

    pub fn snapshot(&mut self) -> Snapshot {
        self.dirty = false;
        self.stream.ingest(self.player.sim());
        let (informers, drift, drift_age_ms) = match &self.scrubbed {
            // A moment of the past is measured whole, once (the meter's parts follow the live run).
            Some(s) => {
                let (rows, total) = crate::snapshot::build_informers(s.sim());
                (Rc::new(rows), total, 0)
            }
            None => {
                let rows = crate::snapshot::informer_rows(self.player.sim());
                let m =
                    self.drift.measure(self.player.sim(), rows, self.wall(), self.drift_whole_max, self.drift_budget);
                (Rc::new(m.rows), m.total, m.age.max(0.0) as u64)
            }
        };
        self.informers = informers.clone();
        let mut detail = build_detail(self.shown(), &self.selection);
        if let Some(crate::view::Detail::Pod(d)) = detail.as_mut() {
            if d.exists && self.scrubbed.is_none() {
                d.schedule = self.explain(&d.key.clone());
            }
            d.why = self.why.as_ref().filter(|(k, _)| *k == d.key).map(|(_, c)| c.clone());
            d.history = self.versions.as_ref().filter(|(k, ..)| *k == d.key).and_then(|(.., v)| v.clone());
        }
        if let Some(crate::view::Detail::Node(d)) = detail.as_mut() {
            let key = ObjKey::cluster(&d.name);
            d.why = self.why.as_ref().filter(|(k, _)| *k == key).map(|(_, c)| c.clone());
            d.history = self.versions.as_ref().filter(|(k, ..)| *k == key).and_then(|(.., v)| v.clone());
        }
        let detail = detail.map(Rc::new);
        let timeline = self.timeline_view();
        let fork = self.fork_view();
        let events = match timeline.at {
            Some(t) => {
                let all = self.stream.view();
                let rows = all.rows.iter().filter(|r| r.at <= t).cloned().collect();
                Rc::new(crate::view::EventsView { version: all.version ^ (t << 20), rows })
            }
            None => self.stream.view(),
        };
        let sim = match &self.scrubbed {
            Some(s) => s.sim(),
            None => self.player.sim(),
        };
        let hidden = crate::snapshot::HiddenAddons::of(sim, self.show_addons);
        Snapshot {
            loop_diagram: crate::snapshot::build_loop_diagram(sim, &self.loop_controller).map(|l| {
                Rc::new(crate::view::LoopDiagramView {
                    charts: self.loop_history.charts(),
                    cluster_charts: self.cluster_history.charts(),
                    rates: self.blurs().then(|| self.loop_history.rates()),
                    ..l
                })
            }),
            timeline,
            fork,
            time: TimeView {
                now: sim.now(),
                playing: self.playing,
                speed: self.speed,
                lagging: self.lagging,
                effective: self.effective,
                seed: self.seed,
                events_processed: sim.events_processed(),
                history_hash: sim.history_hash(),
                interventions: self.player.record().actions().len(),
            },
            summary: build_summary(sim, &hidden),
            cluster: build_cluster(sim, &mut self.cache, &hidden),
            services: Rc::new(build_services(sim, self.show_addons)),
            controllers: Rc::new(build_controllers(sim, &self.history)),
            informers,
            drift,
            drift_age_ms,
            api_reads: sim.api_reads(),
            footprint: Rc::new(sim.footprint()),
            drop_pct: (sim.watch_drop() * 100.0).round() as u32,
            resync_ms: sim.resync_period(),
            loop_cfg: Rc::new(build_loop(sim, self.meter.view())),
            control_plane: Rc::new(build_control_plane(sim)),
            timing: self.profile,
            lesson: self
                .lesson
                .as_ref()
                .map(|r| Rc::new(build_lesson(&self.player, r, self.meter.view(), self.lesson_asks))),
            editor: self.editor.clone(),
            events,
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
