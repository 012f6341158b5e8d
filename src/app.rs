//! The root component: owns the engine (outside yew state), the frame loop and the latest snapshot.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::cmd::Cmd;
use crate::components::cluster::Cluster;
use crate::components::console::Console;
use crate::components::control::control_panel;
use crate::components::control_plane::{control_plane_panel, ControlPlaneProps};
use crate::components::editor::Editor;
use crate::components::events::EventStream;
use crate::components::header::Header;
use crate::components::lessons::{lesson_bar, lesson_panel, LessonBarProps, LessonPanelProps};
use crate::components::share::share_bar;
use crate::liverun::{parse_seed, LiveRun, DEFAULT_SEED, FRAME_BUDGET_MS};
use crate::view::Snapshot;

/// Hands a text file to the person (a download of `name`), through an object URL and a clicked link.
fn download(name: &str, text: &str) {
    use wasm_bindgen::JsCast;
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let props = web_sys::BlobPropertyBag::new();
    props.set_type("application/yaml");
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &props) else { return };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else { return };
    let link = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("a").ok())
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok());
    if let Some(a) = link {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// The wall clock of the browser, in milliseconds.
pub fn wall_now() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map_or(0.0, |p| p.now())
}

/// A named moment of the page's start on the browser's Performance timeline (`kubeloop:...`), for
/// scripts/bench-scale.mjs to say where load to ready goes.
pub fn mark(name: &str) {
    if let Some(p) = web_sys::window().and_then(|w| w.performance()) {
        let _ = p.mark(name);
    }
}

/// The `?seed=` of the page's URL, or the default with a message saying why.
fn seed_from_url() -> (u64, Option<String>) {
    let raw = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
        .and_then(|p| p.get("seed"));
    match parse_seed(raw.as_deref()) {
        Ok(seed) => (seed.unwrap_or(DEFAULT_SEED), None),
        Err(msg) => (DEFAULT_SEED, Some(format!("Invalid ?seed= in the URL: {msg}"))),
    }
}

/// The snapshot the view renders.
pub struct View {
    pub snap: Rc<Snapshot>,
}

impl Reducible for View {
    type Action = Rc<Snapshot>;
    fn reduce(self: Rc<Self>, snap: Rc<Snapshot>) -> Rc<Self> {
        if Rc::ptr_eq(&self.snap, &snap) {
            self
        } else {
            Rc::new(View { snap })
        }
    }
}

/// Runs a command on the engine and shows its effect: a file to download is handed over, a link to make is made (a
/// moment later: the browser compresses asynchronously) and copied where the browser allows.
fn perform(engine: &Rc<RefCell<LiveRun>>, dispatcher: &UseReducerDispatcher<View>, cmd: Cmd) {
    let (snap, share) = match engine.try_borrow_mut() {
        Ok(mut e) => {
            e.exec(cmd);
            if let Some((name, text)) = e.take_download() {
                download(&name, &text);
            }
            let share = e.take_share_request();
            start_loads(&mut e, engine, dispatcher);
            (e.snapshot(), share)
        }
        Err(_) => return,
    };
    dispatcher.dispatch(Rc::new(snap));
    if let Some((text, hash)) = share {
        let (engine, dispatcher) = (engine.clone(), dispatcher.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let made = crate::share::make_link(text, hash).await;
            let url = made.as_ref().ok().cloned();
            perform(&engine, &dispatcher, Cmd::Shared(made));
            if let Some(url) = url {
                let copied = crate::share::copy(&url).await;
                perform(&engine, &dispatcher, Cmd::Copied(copied));
            }
        });
    }
}

/// Starts what the engine asks to be loaded: the second module, explain's documentation, the lessons' files.
fn start_loads(e: &mut LiveRun, engine: &Rc<RefCell<LiveRun>>, dispatcher: &UseReducerDispatcher<View>) {
    if e.take_code_request() {
        load_code(engine.clone(), dispatcher.clone());
    }
    if e.take_docs_request() {
        load_docs(engine.clone(), dispatcher.clone());
    }
    if e.take_lessons_request() {
        load_lessons(engine.clone(), dispatcher.clone());
    }
}

/// Fetches explain's documentation from the site (it is not part of the page's first download: docs/size.md)
/// and hands it to the engine.
fn load_docs(engine: Rc<RefCell<LiveRun>>, dispatcher: UseReducerDispatcher<View>) {
    wasm_bindgen_futures::spawn_local(async move {
        let got = crate::share::fetch_text(kubeloop_engine::kubectl::DOCS_FILE).await;
        perform(&engine, &dispatcher, Cmd::Docs(got));
    });
}

/// Loads the page's second module (kubectl's commands, the scenario reader: not part of the first download,
/// docs/size.md) and tells the engine.
fn load_code(engine: Rc<RefCell<LiveRun>>, dispatcher: UseReducerDispatcher<View>) {
    wasm_bindgen_futures::spawn_local(async move {
        let got = crate::deferred::load().await;
        perform(&engine, &dispatcher, Cmd::Deferred(got));
    });
}

/// Fetches the lessons' and example scenarios' files that have not arrived (they are not part of the page's first
/// download: docs/size.md) and hands them to the engine.
fn load_lessons(engine: Rc<RefCell<LiveRun>>, dispatcher: UseReducerDispatcher<View>) {
    wasm_bindgen_futures::spawn_local(async move {
        let mut got = Vec::new();
        for path in crate::liverun::missing_files() {
            let text = crate::share::fetch_text(&path).await;
            got.push((path, text));
        }
        perform(&engine, &dispatcher, Cmd::Files(got));
    });
}

/// Opens what the address's fragment names, now and whenever it changes (a link pasted into this tab's address bar
/// does not reload the page). Returns what removes the listener.
fn follow_fragment(on_cmd: Callback<Cmd>) -> Option<(web_sys::Window, Closure<dyn FnMut()>)> {
    crate::share::open_fragment(&crate::share::fragment(), on_cmd.clone());
    let window = web_sys::window()?;
    let changed = Closure::<dyn FnMut()>::new(move || {
        crate::share::open_fragment(&crate::share::fragment(), on_cmd.clone());
    });
    window.add_event_listener_with_callback("hashchange", changed.as_ref().unchecked_ref()).ok()?;
    Some((window, changed))
}

/// Keeps the session in local storage: every two seconds when it changed, and when the page is hidden or left.
/// Returns what stops it.
fn keep_session(engine: Rc<RefCell<LiveRun>>, on_cmd: Callback<Cmd>) -> Option<impl FnOnce()> {
    let window = web_sys::window()?;
    let last = Rc::new(RefCell::new(String::new()));
    let failed = Rc::new(Cell::new(false));
    let ticks = Rc::new(Cell::new(0u32));
    // `soon`: a tick of the 2 s interval (a large session is written only every 30 s then: writing megabytes to
    // storage is a long task); else the page is being hidden or left, and everything is written.
    let save = Rc::new(move |soon: bool| {
        if crate::persist::suspended() {
            return;
        }
        let n = ticks.get().wrapping_add(1);
        ticks.set(n);
        if soon && last.borrow().len() > crate::session::LARGE_SESSION && !n.is_multiple_of(15) {
            return;
        }
        // Too large to keep: said once, and the text is not even copied out of the page (4 MiB every 2 s costs).
        let len = crate::components::editor::current_len().unwrap_or(0);
        if len > crate::session::MAX_CHARS {
            if !failed.replace(true) {
                on_cmd.emit(Cmd::Notice(format!(
                    "Your session is not kept across a reload: the editor's text ({len} characters) is more than kubeloop keeps ({}).",
                    crate::session::MAX_CHARS
                )));
            }
            return;
        }
        let Some(editor) = crate::components::editor::current_text() else { return };
        let Ok(e) = engine.try_borrow() else { return };
        if e.restoring() {
            // The kept session waits for the code that reads its run: it stays as it is until restored.
            return;
        }
        let session = e.session(editor);
        drop(e);
        let Some(session) = session else {
            // Nothing to keep: a kept session would bring back less than a fresh page.
            crate::persist::forget();
            last.borrow_mut().clear();
            return;
        };
        let written = crate::persist::save(session, &last.borrow());
        match written {
            Ok(text) => {
                *last.borrow_mut() = text;
                failed.set(false);
            }
            Err(why) if !failed.replace(true) => {
                on_cmd.emit(Cmd::Notice(format!("Your session is not kept across a reload: {why}.")));
            }
            Err(_) => {}
        }
    });
    let tick = {
        let save = save.clone();
        Closure::<dyn FnMut()>::new(move || save(true))
    };
    let id =
        window.set_interval_with_callback_and_timeout_and_arguments_0(tick.as_ref().unchecked_ref(), 2_000).ok()?;
    let leave = Closure::<dyn FnMut()>::new(move || save(false));
    for event in ["pagehide", "visibilitychange"] {
        let _ = window.add_event_listener_with_callback(event, leave.as_ref().unchecked_ref());
    }
    Some(move || {
        window.clear_interval_with_handle(id);
        for event in ["pagehide", "visibilitychange"] {
            let _ = window.remove_event_listener_with_callback(event, leave.as_ref().unchecked_ref());
        }
        drop(tick);
    })
}

/// Whether a drag carries files.
fn drags_files(e: &DragEvent) -> bool {
    e.data_transfer().is_some_and(|d| d.types().includes(&"Files".into(), 0))
}

fn mark_ready() {
    mark("kubeloop:ready");
    if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
        let _ = body.set_attribute("data-ready", "true");
    }
}

/// Runs the simulation from requestAnimationFrame: every frame advances the clock within the budget; every
/// 150 ms or more (longer when building the snapshot is expensive) or right after a command, the view gets a new
/// snapshot. Returns a flag that stops the loop.
fn start_loop(engine: Rc<RefCell<LiveRun>>, dispatcher: UseReducerDispatcher<View>) -> Rc<Cell<bool>> {
    let stop = Rc::new(Cell::new(false));
    let Some(window) = web_sys::window() else { return stop };
    type FrameFn = Closure<dyn FnMut(f64)>;
    let slot: Rc<RefCell<Option<FrameFn>>> = Rc::new(RefCell::new(None));
    let again = slot.clone();
    let stopped = stop.clone();
    let mut last_frame: Option<f64> = None;
    let mut last_snap = f64::NEG_INFINITY;
    let mut interval = 150.0;
    // What building the last snapshot cost (wall ms); what its frame took beyond the one before (wall ms), and
    // while that frame runs, the length of the frame before it.
    let mut build_cost = 0.0;
    let mut page_cost = 0.0;
    let mut drawn: Option<f64> = None;
    let mut ready = false;
    // What the last snapshot saw: nothing to redraw while the simulation stands still (paused).
    let mut seen: Option<(u64, u64)> = None;
    let render_cost = Rc::new(Cell::new(0.0));
    let render_started = Rc::new(Cell::new(0.0));
    let after_render = {
        let (cost, started) = (render_cost.clone(), render_started.clone());
        Closure::<dyn FnMut(wasm_bindgen::JsValue)>::new(move |_| cost.set(wall_now() - started.get()))
    };
    let frame = Closure::<dyn FnMut(f64)>::new(move |ts: f64| {
        if stopped.get() {
            return;
        }
        let dt = last_frame.map_or(0.0, |l| ts - l);
        last_frame = Some(ts);
        // The frame that drew the last snapshot ends now: what it took beyond the frame before it is what the
        // snapshot cost the page, layout and paint included (the browser's work after the callback).
        if let Some(before) = drawn.take() {
            page_cost = (dt - before).max(0.0);
        }
        let snap = match engine.try_borrow_mut() {
            Ok(mut e) => {
                // A frame that will build and draw a snapshot leaves it the part of the budget it took last time:
                // the events run for the rest (at least 1 ms), so the frame's whole stays near the budget.
                let due = wall_now() - last_snap >= interval;
                let share = if due { (render_cost.get() + build_cost).min(FRAME_BUDGET_MS - 1.0) } else { 0.0 };
                e.frame_within(dt, FRAME_BUDGET_MS - share);
                let t = wall_now();
                let state = (e.sim().events_processed(), e.sim().now());
                if e.dirty || (t - last_snap >= interval && seen != Some(state)) {
                    seen = Some(state);
                    let s = e.snapshot();
                    build_cost = wall_now() - t;
                    // Snapshots get at most about an eighth of the wall time: what building and rendering took, or
                    // if longer, what their frame took beyond the frame before (layout and paint included).
                    let cost = (build_cost + render_cost.get()).max(page_cost);
                    interval = (cost * 8.0).clamp(150.0, 1000.0);
                    drawn = Some(dt);
                    last_snap = t;
                    Some(s)
                } else {
                    None
                }
            }
            Err(_) => None,
        };
        if let Some(s) = snap {
            dispatcher.dispatch(Rc::new(s));
            // yew renders in a microtask queued by the dispatch; one queued now runs right after it.
            render_started.set(wall_now());
            let _ = js_sys::Promise::resolve(&wasm_bindgen::JsValue::NULL).then(&after_render);
        }
        if !ready {
            ready = true;
            mark_ready();
        }
        if let (Some(w), Some(f)) = (web_sys::window(), again.borrow().as_ref()) {
            let _ = w.request_animation_frame(f.as_ref().unchecked_ref());
        }
    });
    let _ = window.request_animation_frame(frame.as_ref().unchecked_ref());
    *slot.borrow_mut() = Some(frame);
    stop
}

#[component]
pub fn App() -> Html {
    let engine: Rc<RefCell<LiveRun>> = use_memo((), |_| {
        mark("kubeloop:mount");
        let (seed, notice) = seed_from_url();
        let mut run = LiveRun::boot(seed, notice, Box::new(wall_now));
        mark("kubeloop:booted");
        // A link opens paused where it ends; the starting cluster does not run meanwhile. Without one, the session
        // kept before a reload comes back.
        let linked = !crate::share::fragment().trim_start_matches('#').trim().is_empty();
        run.playing = !linked;
        if !linked {
            match crate::persist::load() {
                Ok(Some(session)) => run.restore(session),
                Ok(None) => {}
                Err(why) => run.exec(Cmd::Notice(format!(
                    "Your last session was not restored: {why}. The page starts from its default cluster and text."
                ))),
            }
        }
        RefCell::new(run)
    });
    let view = {
        let engine = engine.clone();
        use_reducer(move || {
            let snap = match engine.try_borrow_mut() {
                Ok(mut e) => e.snapshot(),
                // Not reachable: nothing else holds the engine while the app is created.
                Err(_) => LiveRun::boot(DEFAULT_SEED, None, Box::new(wall_now)).snapshot(),
            };
            View { snap: Rc::new(snap) }
        })
    };
    let on_cmd: Rc<Callback<Cmd>> = {
        let engine = engine.clone();
        let dispatcher = view.dispatcher();
        use_memo((), move |_| Callback::from(move |cmd: Cmd| perform(&engine, &dispatcher, cmd)))
    };
    // Tab in the console: completes against the cluster (a counted LIST); the loop refreshes the view.
    let complete: Rc<Callback<String, (String, Vec<String>)>> = {
        let engine = engine.clone();
        use_memo((), move |_| {
            Callback::from(move |line: String| match engine.try_borrow_mut() {
                Ok(mut e) => e.complete_line(&line),
                Err(_) => (line, Vec::new()),
            })
        })
    };
    {
        let engine = engine.clone();
        let dispatcher = view.dispatcher();
        use_effect_with((), move |_| {
            mark("kubeloop:rendered");
            let stop = start_loop(engine, dispatcher);
            move || stop.set(true)
        });
    }
    {
        let (engine, on_cmd) = (engine.clone(), (*on_cmd).clone());
        use_effect_with((), move |_| {
            let keeping = keep_session(engine, on_cmd);
            move || {
                if let Some(stop) = keeping {
                    stop();
                }
            }
        });
    }
    {
        // The second module and explain's documentation, loaded once the page runs, so that kubectl, scenario files
        // and explain work offline from then on.
        let (engine, dispatcher) = (engine.clone(), view.dispatcher());
        use_effect_with((), move |_| {
            if let Ok(mut e) = engine.try_borrow_mut() {
                start_loads(&mut e, &engine, &dispatcher);
            }
        });
    }
    {
        let on_cmd = (*on_cmd).clone();
        use_effect_with((), move |_| {
            let listening = follow_fragment(on_cmd);
            move || {
                if let Some((w, f)) = listening {
                    let _ = w.remove_event_listener_with_callback("hashchange", f.as_ref().unchecked_ref());
                }
            }
        });
    }
    let on_cmd = (*on_cmd).clone();
    // Drag and drop: a file dragged over the page shows where to drop it; dropped, it is opened as a scenario.
    let dropping = use_state_eq(|| false);
    let drag_enter = {
        let dropping = dropping.clone();
        Callback::from(move |e: DragEvent| {
            if drags_files(&e) {
                e.prevent_default();
                dropping.set(true);
            }
        })
    };
    let drag_over = Callback::from(|e: DragEvent| e.prevent_default());
    let drag_leave = {
        let dropping = dropping.clone();
        Callback::from(move |_: DragEvent| dropping.set(false))
    };
    let drop = {
        let (dropping, on_cmd) = (dropping.clone(), on_cmd.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            dropping.set(false);
            if let Some(file) = e.data_transfer().and_then(|d| d.files()).and_then(|f| f.get(0)) {
                crate::share::read_scenario(file, on_cmd.clone());
            }
        })
    };
    let drop_zone = dropping.then(|| {
        html! {
            <div class="drop-zone" data-testid="drop-zone" ondragover={drag_over} ondragleave={drag_leave} ondrop={drop}>
                <div>{ "Drop a scenario file to open it: replayed to its end, paused there" }</div>
            </div>
        }
    });
    let s = &view.snap;
    // While the timeline shows an earlier moment the whole page says so (`body[data-scrubbed]`).
    use_effect_with(s.timeline.at.is_some(), |scrubbed| {
        if let Some(body) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.body()) {
            let _ = body.set_attribute("data-scrubbed", if *scrubbed { "true" } else { "false" });
        }
    });
    let notice = s.notice.clone().map(|n| {
        let dismiss = on_cmd.reform(|_: MouseEvent| Cmd::DismissNotice);
        html! {
            <div class="notice" role="alert" data-testid="notice">
                <span>{ n.to_string() }</span>
                <button class="icon" aria-label="Dismiss" onclick={dismiss}>{ "✕" }</button>
            </div>
        }
    });
    // The console has output: the layout gives the cluster a row of node cards and lets the loop diagram scroll.
    let console_used = !s.console.earlier.is_empty() || s.console.last.is_some();
    html! {
        <div class={classes!("app", console_used.then_some("console-used"))} ondragenter={drag_enter}>
            <Header time={s.time.clone()} on_cmd={on_cmd.clone()} />
            if let Some(share) = &s.share {
                { share_bar(share, &on_cmd) }
            }
            { lesson_bar(&LessonBarProps { active: s.lesson.as_ref().map(|l| l.id), timing: s.timing, on_cmd: on_cmd.clone() }) }
            { for notice }
            <main class="layout">
                <div class="side left">
                    if let Some(l) = &s.lesson {
                        { lesson_panel(&LessonPanelProps { lesson: l.clone(), timing: s.timing, on_cmd: on_cmd.clone() }) }
                    }
                    <Editor apply={s.apply.clone()} load={s.editor.clone()} on_cmd={on_cmd.clone()} />
                </div>
                <div class="center">
                    { control_plane_panel(&ControlPlaneProps { view: s.control_plane.clone(), now: s.time.now, on_cmd: on_cmd.clone() }) }
                    if let Some(l) = &s.loop_diagram {
                        { crate::components::loop_diagram::loop_diagram(&crate::components::loop_diagram::LoopProps { view: l.clone(), on_cmd: on_cmd.clone() }) }
                    }
                    <Cluster
                        cluster={s.cluster.clone()}
                        services={s.services.clone()}
                        summary={s.summary}
                        selection={s.selection.clone()}
                        detail={s.detail.clone()}
                        search={s.search.clone()}
                        on_cmd={on_cmd.clone()}
                    />
                </div>
                <div class="side">
                    { control_panel(s, &on_cmd) }
                    <EventStream events={s.events.clone()} suggest={s.lesson.as_ref().and_then(|l| l.events)} />
                </div>
            </main>
            <Console view={s.console.clone()} on_cmd={on_cmd.clone()} complete={(*complete).clone()} />
            if let Some(f) = &s.fork {
                { crate::components::timeline::fork_panel(f, &on_cmd) }
            }
            { crate::components::timeline::timeline(&s.timeline, &on_cmd) }
            { for drop_zone }
        </div>
    }
}
