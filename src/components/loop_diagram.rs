//! The control loop of one controller, drawn live: API store -> watch -> informer cache -> handlers -> work queue
//! -> workers -> reconcile -> writes back to the store, with the queue's keys as chips (deduplicated adds, retries
//! and their backoff, the key a worker holds).

use std::rc::Rc;

use yew::prelude::*;

use crate::format::fmt_dur;
use crate::liverun::Cmd;
use crate::view::{LoopDiagramView, QueueItemView};

#[derive(Properties, PartialEq)]
pub struct LoopProps {
    pub view: Rc<LoopDiagramView>,
    pub on_cmd: Callback<Cmd>,
}

fn stage(title: &str, main: String, sub: String, class: &'static str) -> Html {
    html! {
        <div class={classes!("stage", class)}>
            <div class="stage-title">{ title.to_string() }</div>
            <div class="stage-main">{ main }</div>
            <div class="stage-sub">{ sub }</div>
        </div>
    }
}

fn arrow() -> Html {
    html! { <span class="flow" aria-hidden="true">{ "→" }</span> }
}

fn chip(i: &QueueItemView) -> Html {
    let mut label = i.key.clone();
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
        <span class={classes!("qchip", i.state)} data-testid="queue-item" data-key={i.key.clone()} data-state={i.state}
            data-retries={i.retries.to_string()} data-adds={i.adds.to_string()} {title}>
            <span class="qstate">{ if i.state == "processing" { "▶ " } else { "" } }</span>
            { label }
            if !detail.is_empty() { <span class="qdetail">{ format!(" · {detail}") }</span> }
        </span>
    }
}

#[component]
pub fn LoopDiagram(props: &LoopProps) -> Html {
    let v = &props.view;
    let onchange =
        props.on_cmd.reform(|e: Event| Cmd::ShowLoop(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value()));
    let more = v.depth + v.waiting + v.processing - v.items.len().min(v.depth + v.waiting + v.processing);
    html! {
        <section class="panel loop-diagram" data-testid="loop-diagram" data-controller={v.controller} aria-label="The control loop">
            <div class="panel-head">
                <h2>{ "The loop" }</h2>
                <select aria-label="Controller shown" {onchange}>
                    { for v.controllers.iter().map(|c| html! { <option value={*c} selected={*c == v.controller}>{ *c }</option> }) }
                </select>
                <span class="muted small">{ if v.edge { "edge-triggered: handlers pass each event on" } else { "level-triggered: handlers queue keys" } }</span>
            </div>
            <div class="loop-flow">
                { stage("API store", format!("rv {}", v.store_rv), "the truth".into(), "store") }
                { arrow() }
                { stage("watch", format!("{} events", v.delivered), if v.dropped > 0 { format!("{} dropped", v.dropped) } else { "none dropped".into() }, if v.dropped > 0 { "dropping" } else { "" }) }
                { arrow() }
                { if v.polling {
                    stage("no cache", "polling".into(), "LISTs every period".into(), "polling")
                } else {
                    stage("informer cache", format!("{} objects", v.cached), "read by handlers".into(), "cache")
                } }
                { arrow() }
                <div class="stage queue">
                    <div class="stage-title">{ format!("work queue · {} queued · {} backoff", v.depth, v.waiting) }</div>
                    <div class="qchips">
                        { for v.items.iter().map(chip) }
                        if v.items.is_empty() { <span class="muted small">{ "empty: nothing to reconcile" }</span> }
                        if more > 0 { <span class="muted small">{ format!("+{more} more") }</span> }
                    </div>
                </div>
                { arrow() }
                { stage("workers", format!("{}/{} busy", v.processing, v.workers), "one key each".into(), "workers") }
                { arrow() }
                { stage("reconcile", format!("{} done", v.reconciles), format!("{} errors · {} requeues", v.errors, v.requeues), "reconcile") }
                <span class="flow back" aria-hidden="true">{ "↺" }</span>
                { stage("writes", format!("{} API calls", v.writes), "back to the store".into(), "writes") }
            </div>
            <div class="loop-charts" aria-label={format!("The {} controller over time", v.controller)}>
                { for v.charts.iter().map(|c| html! { <crate::components::chart::Chart chart={c.clone()} /> }) }
            </div>
            <div class="loop-charts cluster-charts" aria-label="The cluster over time">
                { for v.cluster_charts.iter().map(|c| html! { <crate::components::chart::Chart chart={c.clone()} /> }) }
            </div>
        </section>
    }
}
