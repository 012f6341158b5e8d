//! The control loops: each controller's work queue (depth, history, adds, retries, workers), each informer's
//! cache and watch counters, drift, API reads, and the fault and resync knobs.

use std::rc::Rc;

use kubeloop_engine::time::Millis;
use yew::prelude::*;

use crate::components::sparkline::Sparkline;
use crate::engine::{Cmd, HISTORY};
use crate::snapshot::{fmt_dur, ControllerView, InformerView};

#[derive(Properties, PartialEq)]
pub struct ControlProps {
    pub controllers: Rc<Vec<ControllerView>>,
    pub informers: Rc<Vec<InformerView>>,
    pub drift: usize,
    pub drift_age_ms: u64,
    pub api_reads: u64,
    pub drop_pct: u32,
    pub resync_ms: Millis,
    pub on_cmd: Callback<Cmd>,
}

#[derive(Properties, PartialEq)]
struct ControllerRowProps {
    c: ControllerView,
}

#[component]
fn ControllerRow(props: &ControllerRowProps) -> Html {
    let c = &props.c;
    html! {
        <tr>
            <th scope="row">
                <span class="ctrl-name">{ c.name }</span>
                <span class="host" title="the process it runs in">{ c.host.to_string() }</span>
            </th>
            <td class="num depth">
                <span data-testid="queue-depth" data-controller={c.name}>{ c.depth }</span>
                if c.waiting > 0 {
                    <span class="waiting" title="keys waiting for a delay (AddAfter, rate-limited retries)">{ format!("+{} later", c.waiting) }</span>
                }
            </td>
            <td class="spark-cell"><Sparkline values={c.history.clone()} capacity={HISTORY} /></td>
            <td class="num stack">
                <span title="adds_total: adds not collapsed into a key already queued">{ format!("{} adds", c.adds) }</span>
                <span title="retries_total: AddAfter and rate-limited re-adds">{ format!("{} retries", c.retries) }</span>
                <span title="reconciles run (errors, requeues)">
                    { format!("{} rec", c.reconciles) }
                    if c.errors > 0 {
                        <b class="err">{ format!(" {} err", c.errors) }</b>
                    }
                </span>
            </td>
            <td class="num" title="workers busy / total">
                <span class={classes!("workers", (c.busy > 0).then_some("busy"))}>{ format!("{}/{}", c.busy, c.workers) }</span>
            </td>
        </tr>
    }
}

#[derive(Properties, PartialEq)]
struct KnobProps {
    drop_pct: u32,
    resync_ms: Millis,
    on_cmd: Callback<Cmd>,
}

#[component]
fn Knobs(props: &KnobProps) -> Html {
    // The inputs keep what the user typed; the engine's value is shown next to them.
    let drop = use_state(|| props.drop_pct.to_string());
    let resync = use_state(|| (props.resync_ms / 1000).to_string());
    let resync_bad = use_state(|| false);
    let on_drop = {
        let drop = drop.clone();
        let on_cmd = props.on_cmd.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
            if let Ok(p) = v.trim().parse::<f64>() {
                if p.is_finite() {
                    on_cmd.emit(Cmd::SetWatchDrop(p.round().clamp(0.0, 100.0) as u32));
                }
            }
            drop.set(v);
        })
    };
    let on_resync = {
        let resync = resync.clone();
        let bad = resync_bad.clone();
        let on_cmd = props.on_cmd.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
            match v.trim().parse::<u64>() {
                Ok(s) if s <= 10 * 365 * 24 * 3600 => {
                    bad.set(false);
                    on_cmd.emit(Cmd::SetResync(s));
                }
                _ => bad.set(!v.trim().is_empty()),
            }
            resync.set(v);
        })
    };
    let secs = props.resync_ms / 1000;
    html! {
        <div class="knobs">
            <label class="knob">
                <span class="knob-label">{ "Drop watch events" }</span>
                <input type="range" min="0" max="100" step="1" data-testid="drop-watch-events"
                    value={(*drop).clone()} oninput={on_drop}
                    aria-valuetext={format!("{}% of watch events lost", props.drop_pct)} />
                <output class="knob-value">{ format!("{}%", props.drop_pct) }</output>
            </label>
            <label class="knob">
                <span class="knob-label">{ "Resync period" }</span>
                <input type="number" min="0" step="1" data-testid="resync-period"
                    class={classes!((*resync_bad).then_some("invalid"))}
                    value={(*resync).clone()} oninput={on_resync} />
                <span class="knob-value">{ "s" }</span>
            </label>
            <p class="knob-note">
                { "now " }<span data-testid="resync-current">{ secs }</span>
                { match secs { 0 => " s: off. ".to_string(), 1..=99 => " s. ".to_string(), _ => format!(" s ({}). ", fmt_dur(props.resync_ms)) } }
                { "A resync re-delivers the cache to the handlers, no API call; upstream: 12–24 h; 0 = off." }
            </p>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct InformerRowProps {
    i: InformerView,
}

#[component]
fn InformerRow(props: &InformerRowProps) -> Html {
    let i = &props.i;
    html! {
        <tr class={classes!((i.drift > 0).then_some("drifting"))}>
            <th scope="row">
                <span class="inf-name">{ i.name.clone() }</span>
                <span class="host">{ i.owner.clone() }<span class={classes!("state", i.state.replace(' ', "-"))}>{ i.state }</span></span>
            </th>
            <td class="num">{ i.cache }</td>
            <td class="num">{ i.last_rv }</td>
            <td class="num">{ i.received }</td>
            <td class={classes!("num", (i.dropped > 0).then_some("warn"))}>{ i.dropped }</td>
            <td class={classes!("num", (i.drift > 0).then_some("warn"))}>{ i.drift }</td>
        </tr>
    }
}

#[component]
pub fn ControlPanel(props: &ControlProps) -> Html {
    html! {
        <section class="panel loop-panel" aria-label="Control loops">
            <div class="panel-head">
                <h2>{ "Control loops" }</h2>
                <span class="totals">
                    <span class={classes!("total", (props.drift > 0).then_some("warn"))}
                        title={if props.drift_age_ms > 0 {
                            format!("Cached objects, over all informers, that differ from the API store; measured {} ago (large clusters measure it every 2 s)", fmt_dur(props.drift_age_ms))
                        } else {
                            "Cached objects, over all informers, that differ from the API store right now".to_string()
                        }}>
                        { if props.drift_age_ms > 0 { "drift ≈ " } else { "drift " } }<b data-testid="drift">{ props.drift }</b>
                    </span>
                    <span class="total" title="Objects the API store has served: LIST items + GETs + watch events">
                        { "API reads " }<b data-testid="api-reads">{ props.api_reads }</b>
                    </span>
                </span>
            </div>
            <div class="scroll">
                <Knobs drop_pct={props.drop_pct} resync_ms={props.resync_ms} on_cmd={props.on_cmd.clone()} />
                <table class="grid ctrl-table">
                    <thead>
                        <tr>
                            <th>{ "controller" }</th><th title="work queue depth">{ "queue" }</th><th title="queue depth, one sample per simulated second">{ "last 2 min" }</th>
                            <th>{ "metrics" }</th><th title="busy / total">{ "workers" }</th>
                        </tr>
                    </thead>
                    <tbody>
                        { for props.controllers.iter().map(|c| html! { <ControllerRow key={c.name} c={c.clone()} /> }) }
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
                        { for props.informers.iter().map(|i| html! { <InformerRow key={format!("{}/{}", i.owner, i.name)} i={i.clone()} /> }) }
                    </tbody>
                </table>
            </div>
        </section>
    }
}
