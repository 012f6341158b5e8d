//! The control loops: each controller's work queue (depth, history, adds, retries, workers), each informer's
//! cache and watch counters, drift, API reads, and the fault and resync knobs.

use std::rc::Rc;

use kubeloop_engine::time::Millis;
use yew::prelude::*;

use crate::charts::HISTORY;
use crate::cmd::Cmd;
use crate::components::sparkline::sparkline;
use kubeloop_engine::controller::TriggerMode;
use kubeloop_engine::intervention::{FaultAction, ModeAction};
use kubeloop_engine::limits::{MAX_API_LATENCY, MAX_PERIOD};
use kubeloop_engine::sim::{ObserveMode, DEFAULT_POLL_PERIOD};

use crate::format::{fmt_dur, fmt_thousands};
use crate::view::{ControllerView, InformerView, LoopView, Rate, Snapshot};

/// A controller's row (a plain function: a component costs about 2 KiB of yew's code, and the rows change with
/// every snapshot).
fn controller_row(c: &ControllerView) -> Html {
    html! {
        <tr key={c.status.name}>
            <th scope="row">
                <span class="ctrl-name">{ c.status.name }</span>
                <span class="host" title="the process it runs in">{ c.host.to_string() }</span>
            </th>
            <td class="num depth">
                <span data-testid="queue-depth" data-controller={c.status.name}>{ c.status.depth }</span>
                if c.status.waiting > 0 {
                    <span class="waiting" title="keys waiting for a delay (AddAfter, rate-limited retries)">{ format!("+{} later", c.status.waiting) }</span>
                }
            </td>
            <td class="spark-cell">{ sparkline(&c.history, HISTORY) }</td>
            <td class="num stack">
                <span title="adds_total: adds not collapsed into a key already queued">{ format!("{} adds", c.status.adds) }</span>
                <span title="retries_total: AddAfter and rate-limited re-adds">{ format!("{} retries", c.status.retries) }</span>
                <span title="reconciles run (errors, requeues)">
                    { format!("{} rec", c.status.stats.reconciles) }
                    if c.status.stats.errors > 0 {
                        <b class="err">{ format!(" {} err", c.status.stats.errors) }</b>
                    }
                </span>
            </td>
            <td class="num" title="workers busy / total">
                <span class={classes!("workers", (c.status.busy > 0).then_some("busy"))}>{ format!("{}/{}", c.status.busy, c.status.workers) }</span>
            </td>
        </tr>
    }
}

/// A number input that keeps what the user types and follows the engine's value when it changes elsewhere (a
/// lesson's script).
#[derive(Properties, PartialEq)]
struct NumberKnobProps {
    testid: &'static str,
    label: &'static str,
    unit: &'static str,
    /// The engine's value.
    value: u64,
    max: u64,
    on_set: Callback<u64>,
    #[prop_or_default]
    title: &'static str,
}

#[component]
fn NumberKnob(props: &NumberKnobProps) -> Html {
    let text = use_state(|| props.value.to_string());
    let bad = use_state(|| false);
    {
        let text = text.clone();
        let bad = bad.clone();
        use_effect_with(props.value, move |v| {
            if text.trim().parse::<u64>().ok() != Some(*v) {
                text.set(v.to_string());
                bad.set(false);
            }
        });
    }
    let oninput = {
        let (text, bad, on_set, max) = (text.clone(), bad.clone(), props.on_set.clone(), props.max);
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
            match v.trim().parse::<u64>() {
                Ok(n) if n <= max => {
                    bad.set(false);
                    on_set.emit(n);
                }
                _ => bad.set(!v.trim().is_empty()),
            }
            text.set(v);
        })
    };
    html! {
        <label class="knob" title={props.title}>
            <span class="knob-label">{ props.label }</span>
            <input type="number" min="0" max={props.max.to_string()} step="1" data-testid={props.testid}
                class={classes!((*bad).then_some("invalid"))} value={(*text).clone()} {oninput} />
            <span class="knob-value">{ props.unit }</span>
        </label>
    }
}

#[derive(Properties, PartialEq)]
struct KnobProps {
    drop_pct: u32,
    resync_ms: Millis,
    cfg: Rc<LoopView>,
    on_cmd: Callback<Cmd>,
}

#[component]
fn Knobs(props: &KnobProps) -> Html {
    let cfg = &props.cfg;
    let on_drop = props.on_cmd.reform(|e: InputEvent| {
        let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
        let p = v.trim().parse::<f64>().ok().filter(|p| p.is_finite()).unwrap_or(0.0);
        Cmd::fault(FaultAction {
            drop_watch_events: Some(p.round().clamp(0.0, 100.0) / 100.0),
            ..FaultAction::default()
        })
    });
    let on_trigger = props.on_cmd.reform(|e: Event| {
        let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
        let mode = if v == "edge" { TriggerMode::Edge } else { TriggerMode::Level };
        Cmd::mode(ModeAction { trigger: Some((None, mode)), ..ModeAction::default() })
    });
    let on_observe = props.on_cmd.reform(|e: Event| {
        let observe = match e.target_unchecked_into::<web_sys::HtmlSelectElement>().value().as_str() {
            "polling" => ObserveMode::Polling { period: DEFAULT_POLL_PERIOD },
            _ => ObserveMode::Informer,
        };
        Cmd::mode(ModeAction { observe: Some(observe), ..ModeAction::default() })
    });
    let on_reject = props.on_cmd.reform(|e: Event| {
        let on = e.target_unchecked_into::<web_sys::HtmlInputElement>().checked();
        Cmd::fault(FaultAction { reject_pod_creates: Some(on), ..FaultAction::default() })
    });
    let disconnect = props
        .on_cmd
        .reform(|_: MouseEvent| Cmd::fault(FaultAction { disconnect_watches: true, ..FaultAction::default() }));
    let relist =
        props.on_cmd.reform(|_: MouseEvent| Cmd::fault(FaultAction { force_relist: true, ..FaultAction::default() }));
    let secs = props.resync_ms / 1000;
    let trigger = if cfg.edge { "edge" } else { "level" };
    let observe = if cfg.polling.is_some() { "polling" } else { "informer" };
    let edge_note = if cfg.edge_capable.is_empty() {
        "No controller has an edge-triggered mode.".to_string()
    } else {
        format!("Edge mode exists for: {}; every other controller stays level-triggered.", cfg.edge_capable.join(", "))
    };
    let rate = |r: Option<Rate>, now: bool, testid: &'static str, mode: &'static str| {
        let text = match r {
            Some(r) => format!("{}/min", fmt_thousands(r.per_min)),
            None if now => "measuring…".to_string(),
            None => "not measured yet".to_string(),
        };
        let title = match (r, now) {
            (Some(r), true) => format!("{mode}, now: over the last {} of simulated time", fmt_dur(r.over_ms)),
            (Some(r), false) => format!("{mode}: the last figure measured in that mode (over {})", fmt_dur(r.over_ms)),
            (None, _) => format!("{mode}: needs 20 s of simulated time in that mode"),
        };
        html! {
            <span class={classes!("rate", now.then_some("now"))} {title}>
                { format!("{mode}: ") }<b data-testid={testid}>{ text }</b>
            </span>
        }
    };
    let reads = cfg.reads;
    // The longer explanations fold away until asked for, so the queues stay in view; every knob keeps a title.
    let notes = use_state_eq(|| false);
    let toggle_notes = {
        let notes = notes.clone();
        Callback::from(move |_: MouseEvent| notes.set(!*notes))
    };
    const DROP_NOTE: &str = "Lost by the control plane's informers (controllers, scheduler); the kubelets' watches are not affected. kubeloop's own fault: a real watch loses nothing (it ends, and resumes or relists).";
    html! {
        <details class={classes!("knobs", notes.then_some("with-notes"))} open=true>
            <summary title="Collapse to see the queues">
                { "Modes, re-observation and faults" }
                <button type="button" class="btn small link notes-toggle" data-testid="knob-notes" onclick={toggle_notes}
                    aria-pressed={if *notes { "true" } else { "false" }}
                    title="Show or hide what each mode and fault does">
                    { if *notes { "hide notes" } else { "notes" } }
                </button>
            </summary>
            <div class="knob-row">
                <label class="knob">
                    <span class="knob-label">{ "Trigger mode" }</span>
                    <select data-testid="trigger-mode" onchange={on_trigger} value={trigger} title={edge_note.clone()}>
                        <option value="level" selected={trigger == "level"}>{ "level" }</option>
                        <option value="edge" selected={trigger == "edge"}>{ "edge" }</option>
                    </select>
                </label>
                <label class="knob">
                    <span class="knob-label">{ "Observe" }</span>
                    <select data-testid="observe-mode" onchange={on_observe} value={observe}>
                        <option value="informer" selected={observe == "informer"}>{ "informer (LIST+WATCH)" }</option>
                        <option value="polling" selected={observe == "polling"}>
                            { format!("polling (LIST every {})", fmt_dur(kubeloop_engine::sim::DEFAULT_POLL_PERIOD)) }
                        </option>
                    </select>
                </label>
            </div>
            <p class="knob-note long" data-testid="edge-note">{ edge_note }</p>
            <p class="knob-note reads" title="Objects the API store served per simulated minute (LIST items + GETs + watch events), over all clients">
                { "API reads per minute · " }
                { rate(reads.informer, !reads.polling_now, "api-reads-per-min-informer", "informer") }
                { " · " }
                { rate(reads.polling, reads.polling_now, "api-reads-per-min-polling", "polling") }
            </p>
            <div class="knob-row">
                <NumberKnob testid="relist-period" label="Relist (kubeloop's own)" unit="s" value={cfg.relist_ms / 1000}
                    max={MAX_PERIOD / 1000} on_set={props.on_cmd.reform(|s: u64| Cmd::mode(ModeAction { relist_period: Some(s * 1000), ..ModeAction::default() }))}
                    title="kubeloop's own repair knob, not upstream's: every informer LISTs again this often and replaces its cache. 0 (the default) = as upstream: LIST only after an error such as 410 Gone" />
                <NumberKnob testid="resync-period" label="Resync" unit="s" value={secs}
                    max={MAX_PERIOD / 1000} on_set={props.on_cmd.reform(|s: u64| Cmd::mode(ModeAction { resync_period: Some(s * 1000), ..ModeAction::default() }))}
                    title="Resync period: every informer re-delivers its cache to the handlers this often; 0 = off" />
            </div>
            <p class="knob-note long">
                { "relist " }<b>{ if cfg.relist_ms == 0 { "off, as upstream".to_string() } else { format!("{} (kubeloop's repair)", fmt_dur(cfg.relist_ms)) } }</b>
                { ": upstream's informers LIST once, re-WATCH when the server ends a watch (every 5–10 min) and LIST again only after 410 Gone; a periodic relist replaces the cache, so events lost to the drop fault are repaired. resync " }
                <span data-testid="resync-current">{ secs }</span>
                { match secs { 0 => " s (off)".to_string(), 1..=99 => " s".to_string(), _ => format!(" s ({})", fmt_dur(props.resync_ms)) } }
                { ": re-delivers the cache as it is to the handlers, no API call: it repairs nothing (upstream 12–24 h)." }
            </p>
            <label class="knob" title={DROP_NOTE}>
                <span class="knob-label">{ "Drop watch events" }</span>
                <input type="range" min="0" max="100" step="1" data-testid="drop-watch-events"
                    value={props.drop_pct.to_string()} oninput={on_drop}
                    aria-valuetext={format!("{}% of watch events lost", props.drop_pct)} />
                <output class="knob-value">{ format!("{}%", props.drop_pct) }</output>
            </label>
            <p class="knob-note long">{ DROP_NOTE }</p>
            <div class="knob-row">
                <NumberKnob testid="conflict-percent" label="Conflicts" unit="%" value={u64::from(cfg.conflict_pct)}
                    max={100} on_set={props.on_cmd.reform(|p: u64| Cmd::fault(FaultAction { conflicts: Some(p as f64 / 100.0), ..FaultAction::default() }))}
                    title="That share (%) of the components' updates fail with 409 Conflict, as if another writer got there first" />
                <NumberKnob testid="api-latency" label="API latency" unit="ms more" value={cfg.latency_ms}
                    max={MAX_API_LATENCY} on_set={props.on_cmd.reform(|ms: u64| Cmd::fault(FaultAction { api_latency: Some(ms), ..FaultAction::default() }))}
                    title="Milliseconds added to every API request of the control plane's components" />
            </div>
            <div class="knob-row">
                <label class="knob check" title="Pod creates fail with 403 exceeded quota, as if a ResourceQuota were used up">
                    <input type="checkbox" data-testid="reject-pod-creates" checked={cfg.reject_creates} onchange={on_reject} />
                    <span>{ "reject pod creates (quota)" }</span>
                </label>
                <button class="btn small" data-testid="disconnect-watches" onclick={disconnect}
                    title="Cut the watch of every control-plane informer: they watch again from the last resourceVersion they saw">
                    { "disconnect watches" }
                </button>
                <button class="btn small" data-testid="force-relist" onclick={relist}
                    title="Answer every control-plane informer's watch with 410 Gone: they LIST again">
                    { "410: force relist" }
                </button>
            </div>
            if cfg.conflicts > 0 {
                <p class="knob-note">{ "409 Conflicts answered so far: " }<b data-testid="conflicts">{ cfg.conflicts }</b></p>
            }
        </details>
    }
}

/// An informer's row (a plain function, as a controller's).
fn informer_row(i: &InformerView) -> Html {
    html! {
        <tr key={format!("{}/{}", i.owner, i.name)} class={classes!((i.drift > 0).then_some("drifting"))}>
            <th scope="row">
                <span class="inf-name">{ i.name.clone() }</span>
                <span class="host">{ i.owner.clone() }<span class={classes!("state", i.state.replace(' ', "-"))}>{ i.state }</span></span>
            </th>
            <td class="num">{ i.totals.cached }</td>
            <td class="num">{ i.totals.last_rv }</td>
            <td class="num">{ i.totals.received }</td>
            <td class={classes!("num", (i.totals.dropped > 0).then_some("warn"))}>{ i.totals.dropped }</td>
            <td class={classes!("num", (i.drift > 0).then_some("warn"))}>{ i.drift }</td>
        </tr>
    }
}

/// The footprint by structure, for the tooltip: what a long session must keep flat.
fn footprint_title(f: &kubeloop_engine::footprint::Footprint) -> String {
    format!(
        "Entries the simulation holds (flat over a long run): {} objects, {} versions in the watch cache, {} open watches ({} buffered events), {} cached objects, {} timers, {} controller and {} kubelet entries, {} images, {} event aggregation entries, {} Event expirations; the event stream keeps {} Events and {} reconciles",
        f.objects, f.history, f.open_watches, f.buffered_events, f.cached_objects, f.timers, f.controller_entries,
        f.kubelet_entries, f.images, f.recorder_entries, f.event_expirations, f.event_log, f.reconcile_log
    )
}

/// The control loops' panel, from the snapshot's figures (a plain function, not a component: nothing compares its
/// arguments).
pub fn control_panel(props: &Snapshot, on_cmd: &Callback<Cmd>) -> Html {
    html! {
        <section class="panel loop-panel" aria-label="Control loops">
            <div class="panel-head">
                <h2>{ "Control loops" }</h2>
                <span class="totals">
                    <span class={classes!("total", (props.drift > 0).then_some("warn"))}
                        title={if props.drift_age_ms > 0 {
                            format!("Cached objects, over all informers, that differ from the API store; measured {} ago (on a large cluster each refresh measures a part of the informers, in turn)", fmt_dur(props.drift_age_ms))
                        } else {
                            "Cached objects, over all informers, that differ from the API store right now".to_string()
                        }}>
                        { if props.drift_age_ms > 0 { "drift ≈ " } else { "drift " } }<b data-testid="drift">{ props.drift }</b>
                    </span>
                    <span class="total" title="Objects the API store has served: LIST items + GETs + watch events">
                        { "API reads " }<b data-testid="api-reads">{ props.api_reads }</b>
                    </span>
                    <span class="total" title={footprint_title(&props.footprint)}>
                        { "engine holds " }<b data-testid="footprint">{ fmt_thousands(props.footprint.total() as u64) }</b>
                    </span>
                </span>
            </div>
            <div class="scroll">
                <Knobs drop_pct={props.drop_pct} resync_ms={props.resync_ms} cfg={props.loop_cfg.clone()} on_cmd={on_cmd.clone()} />
                <table class="grid ctrl-table">
                    <thead>
                        <tr>
                            <th>{ "controller" }</th><th title="work queue depth">{ "queue" }</th><th title="queue depth, one sample per simulated second">{ "last 2 min" }</th>
                            <th>{ "metrics" }</th><th title="busy / total">{ "workers" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for props.controllers.iter().map(controller_row) }
                    </tbody>
                </table>
                <table class="grid inf-table">
                    <thead>
                        <tr>
                            <th>{ "informer" }</th><th title="objects in the cache">{ "cache" }</th><th title="last resourceVersion seen">{ "last RV" }</th>
                            <th title="watch events received">{ "events" }</th><th title="watch events lost (fault)">{ "lost" }</th><th title="cached objects that differ from the store">{ "drift" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for props.informers.iter().map(informer_row) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
