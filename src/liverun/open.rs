//! What opens a new run: a scenario file, a link, a lesson, a cluster of a chosen size, and the lesson and example
//! files the page fetches after its first download.

use super::*;

impl LiveRun {
    /// Opens a scenario file: its cluster with its seed and timings, its actions replayed exactly as `kubeloop run`
    /// replays them, to its `until:` (or its last action), paused there, ready to continue live. Its actions are
    /// the run's record, so exporting again gives the same run.
    pub fn import(&mut self, text: &str) -> Result<(), String> {
        let sc = Scenario::parse(text).map_err(|e| format!("The scenario does not read: {e}"))?;
        self.import_scenario(sc)
    }

    /// [`LiveRun::import`] of a scenario already read.
    pub(super) fn import_scenario(&mut self, sc: Scenario) -> Result<(), String> {
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
        let go_on = run.into_player();
        self.seed = sc.seed.unwrap_or(kubeloop_engine::scenario::DEFAULT_SEED);
        self.profile = sc.timing;
        self.console.interrupt_where(self.player.sim_mut(), &|_| true);
        let text = "the opened scenario's manifests were applied at t = 0".to_string();
        self.apply = Rc::new(apply_note(self.apply.seq + 1, true, text, None));
        // The runner's player goes on: its cluster, and its record (the same start, seed and timing, and the
        // actions that ran).
        self.take_player(go_on.player, &Scenario { actions: Vec::new(), ..sc.clone() });
        // The commands still printing go on in the console, on their grids, as the runner's longer run follows them;
        // as when typed there, each one that only reads stops at the next (its action says so, `for:`, so that a
        // later export replays that too).
        for f in go_on.follows {
            self.interrupt_readers();
            self.console.adopt(self.player.sim_mut(), &f.command, "", f.follow, Some(f.action), f.stop_at);
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
                    self.player.now() / SECOND
                ),
            }
            .into(),
        );
        Ok(())
    }

    /// Opens what a link names: a run (replayed to its end and paused there, its hash checked against the link's),
    /// a lesson at its start, an example scenario replayed to its end, or an example's manifests applied to the
    /// starting cluster. Always paused: play goes on from there.
    pub fn open(&mut self, what: Opening) {
        let opened = match what {
            Err(why) => Err(why),
            Ok(Link::Run { run: text, hash }) => self.import(&text).map(|()| match hash {
                Some(h) if h != self.player.sim().history_hash() => format!(
                    "The link says its run ends at history hash {h:016x}; replayed here it ends at {:016x}: this is not the run that was shared (a link made by another kubeloop version?).",
                    self.player.sim().history_hash()
                ),
                _ => format!(
                    "Opened the shared run (seed {}): replayed to {} and paused there{}; ▶ Play continues it live.",
                    self.seed,
                    crate::format::fmt_secs(self.player.now()),
                    if hash.is_some() { ", at the history hash the link says" } else { "" }
                ),
            }),
            Ok(Link::Lesson(id)) => match crate::lessons::find(&id) {
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
            Ok(Link::Scenario(name)) => match crate::examples::scenario(&name) {
                None if crate::examples::scenario_known(&name).is_some() => {
                    // Its file has not arrived: the scenario opens when it does.
                    self.pending_scenario = crate::examples::scenario_known(&name);
                    self.lessons_request = true;
                    Ok(format!("Opening examples/{name}.yaml: its file is on its way."))
                }
                Some(text) => self.import(&text).map(|()| {
                    format!(
                        "Opened examples/{name}.yaml: replayed to {} and paused there, as `kubeloop run` ends it; ▶ Play continues it live.",
                        crate::format::fmt_secs(self.player.now())
                    )
                }),
                None => {
                    let names: Vec<&str> = crate::examples::SCENARIOS.to_vec();
                    Err(format!("there is no example scenario {name:?} (scenarios: {})", names.join(", ")))
                }
            },
            Ok(Link::Cluster { nodes, pods }) => self.new_cluster(nodes, pods, true).map(|said| format!("{said} ▶ Play runs it.")),
            Ok(Link::Example(id)) => match crate::examples::find(&id).map(|ex| (ex, ex.text())) {
                Some((ex, None)) => {
                    // Its file has not arrived: the example opens when it does.
                    self.pending_example = Some(ex.id);
                    self.lessons_request = true;
                    Ok(format!("Opening the example \"{}\": its file is on its way.", ex.title))
                }
                Some((ex, Some(text))) => {
                    let sc = Scenario { manifests: Some(text.to_string()), ..default_scenario() };
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
        self.target = self.player.now() as f64;
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
    pub(super) fn new_cluster(&mut self, nodes: usize, pods: usize, addons: bool) -> Result<String, String> {
        let sc = sized_scenario(nodes, pods, addons)?;
        self.rebuild(&sc);
        let deployments = pods.div_ceil(DEMO_PODS_PER_DEPLOYMENT);
        let (with, flag) = if addons { ("with", "") } else { ("without", " --no-addons") };
        Ok(format!(
            "A new run (seed {}): {nodes} nodes and {pods} pods in {deployments} of kubeloop's own demo Deployments (app-0 …, {DEMO_PODS_PER_DEPLOYMENT} pods each, as `kubeloop bench --nodes {nodes} --pods {pods}{flag}` makes them), {with} kube-system's add-ons.",
            self.seed
        ))
    }

    pub(super) fn start_lesson(&mut self, id: &str, profile: Option<TimingProfile>) {
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
        // What was said before (the lesson's file on its way, a run opened) no longer holds.
        self.notice = None;
        self.rebuild(scenario);
        let run = LessonRun::new(lesson, scenario, self.player.now());
        self.player.play(Script::new(scenario.actions.clone().into(), run.start, None));
        self.player.ask(self.lesson_asks);
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
    pub(super) fn files(&mut self, got: Vec<(String, Result<String, String>)>) {
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
            } else {
                crate::examples::provide(&path, &text);
            }
        }
        if let Some(id) = self.pending_example.take() {
            match crate::examples::find(id).and_then(|ex| ex.text()) {
                Some(_) => self.open(Ok(Link::Example(id.to_string()))),
                None => {
                    let why = failed.clone().unwrap_or_else(|| "its file did not arrive".into());
                    self.notice = Some(format!("The example {id} did not load: {why}.").into());
                }
            }
        }
        if let Some(name) = self.pending_scenario.take() {
            if crate::examples::scenario(name).is_some() {
                self.open(Ok(Link::Scenario(name.to_string())));
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
}
