//! The control loop of one controller, drawn live: API store -> watch -> informer cache -> handlers -> work queue
//! -> workers -> reconcile -> writes back to the store, with the queue's keys as chips (deduplicated adds, retries
//! and their backoff, the key a worker holds).

use std::rc::Rc;

use yew::prelude::*;

use kubeloop_engine::controller::TriggerMode;

use crate::cmd::Cmd;
use crate::format::fmt_dur;
use crate::view::{LoopDiagramView, QueueItemView, WatchTokenView};

/// The arguments of its view function (not a component's props: nothing compares them).
pub struct LoopProps {
    pub view: Rc<LoopDiagramView>,
    pub on_cmd: Callback<Cmd>,
}

fn stage(title: &str, main: String, sub: String, class: &'static str) -> Html {
    html! {
        <div class={classes!("stage", class)}>
            <div class="stage-title">{ title.to_string() }</div>
            <div class="stage-main">{ main }</div>
            <div class="stage-sub" title={sub.clone()}>{ sub }</div>
        </div>
    }
}

fn arrow() -> Html {
    html! { <span class="flow" aria-hidden="true">{ "→" }</span> }
}

/// A watch event as the controller's informers received it; lost ones struck through.
fn token(w: &WatchTokenView) -> Html {
    let title = format!(
        "rv {}: {} {}{}",
        w.rv,
        w.type_,
        w.name,
        if w.dropped {
            " — lost (the drop fault): the cache never saw it"
        } else {
            " — into the cache, to the handlers"
        }
    );
    // A sign per type (colour is not the only cue): + added, ~ modified, − deleted; the title says it in full.
    let sym = match w.type_ {
        "ADDED" => "+",
        "DELETED" => "−",
        _ => "~",
    };
    html! {
        <span key={w.rv} class={classes!("wev", w.type_.to_ascii_lowercase(), w.dropped.then_some("lost"))}
            data-testid="watch-event" data-type={w.type_} data-dropped={w.dropped.to_string()} {title}>
            if w.dropped { <span aria-hidden="true">{ "✗ " }</span> }
            { format!("{} {}", sym, w.name) }
        </span>
    }
}

fn chip(i: &QueueItemView) -> Html {
    // An edge-triggered ReplicaSet controller queues each delta as its own numbered item (the engine's key).
    let delta = i.edge.as_ref().map(|w| match w.delta {
        0 => "+0",
        d if d > 0 => "+1",
        _ => "-1",
    });
    let mut label = match (&i.edge, delta) {
        (Some(w), Some(d)) if w.delta != 0 => format!("#{} {d} pod · {}", w.seq, w.rs.name),
        (Some(w), Some(d)) => format!("{d} · {}", w.rs.name),
        // As kubectl, the default namespace goes unsaid (the key in full is in `data-key` and the title).
        _ => i.key.strip_prefix("default/").unwrap_or(&i.key).to_string(),
    };
    if i.adds > 1 {
        label.push_str(&format!(" ×{}", i.adds));
    }
    let detail = match i.state {
        "processing" => format!("held {}", fmt_dur(i.for_ms)),
        "backoff" => format!("retry {} in {}", i.retries, fmt_dur(i.for_ms)),
        _ if i.retries > 0 => format!("retry {}", i.retries),
        _ => String::new(),
    };
    let title = format!(
        "{}: {}{}{}",
        i.key,
        i.state,
        if i.adds > 1 { format!(", {} adds collapsed into one key", i.adds) } else { String::new() },
        if i.retries > 0 { format!(", {} retries so far", i.retries) } else { String::new() }
    );
    html! {
        <span class={classes!("qchip", i.state, delta.is_some().then_some("delta"))} data-testid="queue-item" data-key={i.key.clone()} data-state={i.state}
            data-delta={delta}
            data-retries={i.retries.to_string()} data-adds={i.adds.to_string()} {title}>
            <span class="qstate">{ if i.state == "processing" { "▶ " } else { "" } }</span>
            { label }
            if !detail.is_empty() { <span class="qdetail">{ format!(" · {detail}") }</span> }
        </span>
    }
}

pub fn loop_diagram(props: &LoopProps) -> Html {
    let v = &props.view;
    let onchange =
        props.on_cmd.reform(|e: Event| Cmd::ShowLoop(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value()));
    let more = v.status.depth + v.status.waiting + v.status.processing
        - v.items.len().min(v.status.depth + v.status.waiting + v.status.processing);
    let r = v.rates;
    let per_s = |n: u64| format!("{n}/s");
    let last = match &v.last {
        Some((key, calls, outcome)) => {
            format!("last: {key} · {calls} call{} · {outcome}", if *calls == 1 { "" } else { "s" })
        }
        None => "back to the store".into(),
    };
    // Counts so far, or at speed the last second's rates.
    let (watch, lost, reconciles, writes) = match r {
        Some(r) => (
            (format!("{} events", per_s(r.delivered + r.dropped)), format!("{} lost", per_s(r.dropped))),
            r.dropped > 0,
            per_s(r.reconciles),
            format!("{} calls", per_s(r.writes)),
        ),
        None => (
            (
                format!("{} events", v.delivered),
                if v.dropped > 0 { format!("{} dropped", v.dropped) } else { "none dropped".into() },
            ),
            v.dropped > 0,
            format!("{} done", v.status.stats.reconciles),
            format!("{} API calls", v.status.stats.api_calls),
        ),
    };
    html! {
        <section class="panel loop-diagram" data-testid="loop-diagram" data-controller={v.status.name} aria-label="The control loop"
            data-mode={if r.is_some() { "rates" } else { "items" }}>
            <div class="panel-head">
                <h2>{ "The loop" }</h2>
                <select aria-label="Controller shown" {onchange}>
                    { for v.controllers.iter().map(|c| html! { <option value={*c} selected={*c == v.status.name}>{ *c }</option> }) }
                </select>
                <span class="muted small">{ if v.status.trigger == TriggerMode::Edge { "edge-triggered: handlers pass each event on" } else { "level-triggered: handlers queue keys" } }</span>
            </div>
            <div class="loop-flow">
                { stage("API store", format!("rv {}", v.store_rv), "the truth".into(), "store") }
                { arrow() }
                { stage("watch", watch.0, watch.1, if lost { "dropping" } else { "" }) }
                { arrow() }
                { if v.polling {
                    stage("no cache", "polling".into(), "LISTs every period".into(), "polling")
                } else {
                    stage("informer cache", format!("{} objects", v.cached), "read by handlers".into(), "cache")
                } }
                { arrow() }
                { if v.status.trigger == TriggerMode::Edge {
                    stage("handlers", "edge".into(), "queue each delta".into(), "handlers")
                } else {
                    stage("handlers", "level".into(), "queue the key".into(), "handlers")
                } }
                { arrow() }
                <span class="flow-break" aria-hidden="true"></span>
                <div class="stage queue">
                    <div class="stage-title">
                        { format!("work queue · {} queued · {} backoff", v.status.depth, v.status.waiting) }
                        if let Some(r) = r { { format!(" · {} adds · {} retries", per_s(r.adds), per_s(r.retries)) } }
                        if v.status.trigger == TriggerMode::Edge { { " · one item per delta" } }
                    </div>
                    <div class="qchips">
                        { for v.items.iter().map(chip) }
                        if v.items.is_empty() { <span class="muted small">{ "empty: nothing to reconcile" }</span> }
                        if more > 0 { <span class="muted small">{ format!("+{more} more") }</span> }
                    </div>
                </div>
                { arrow() }
                { stage("workers", format!("{}/{} busy", v.status.processing, v.status.workers), "one key each".into(), "workers") }
                { arrow() }
                { stage("reconcile", reconciles, format!("{} errors · {} requeues", v.status.stats.errors, v.status.stats.requeues), "reconcile") }
                <span class="flow back" aria-hidden="true">{ "↺" }</span>
                { stage("writes", writes, last, "writes") }
            </div>
            if r.is_none() && !v.polling {
                <div class="wstream" aria-label="The last watch events its informers received, newest first">
                    <span class="muted small">{ "watch → cache, newest first:" }</span>
                    { for v.recent.iter().rev().map(token) }
                    if v.recent.is_empty() { <span class="muted small">{ "no event yet" }</span> }
                </div>
            } else if let Some(r) = r {
                <div class="wstream rates muted small">
                    { format!("At this speed single events blur: per simulated second, {} watch events ({} lost), {} adds, {} reconciles, {} API calls.", r.delivered + r.dropped, r.dropped, r.adds, r.reconciles, r.writes) }
                </div>
            }
            <div class="loop-charts" aria-label={format!("The {} controller over time", v.status.name)}>
                { for v.charts.iter().map(|c| html! { <crate::components::chart::Chart chart={c.clone()} /> }) }
            </div>
            <div class="loop-charts cluster-charts" aria-label="The cluster over time">
                { for v.cluster_charts.iter().map(|c| html! { <crate::components::chart::Chart chart={c.clone()} /> }) }
            </div>
        </section>
    }
}
