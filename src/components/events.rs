//! The event stream, newest first: reconciles and Kubernetes Events, filterable by controller and by object.

use std::rc::Rc;

use kubeloop_engine::controllers::CONTROLLERS;
use yew::prelude::*;

use crate::format::fmt_clock;
use crate::view::{EventRow, EventsView, RowSource};

/// Rows rendered at most (the stream keeps more; the filter looks at all of them).
pub const SHOWN: usize = 150;

#[derive(Properties, PartialEq)]
pub struct StreamProps {
    pub events: Rc<EventsView>,
    /// A lesson's suggested controller filter: set when it changes (the user can change it afterwards).
    #[prop_or_default]
    pub suggest: Option<&'static str>,
}

/// One row of the stream (a plain function: a component costs about 2 KiB of yew's code, and rows kept by position
/// change when events arrive).
fn row(r: &EventRow) -> Html {
    let (kind_class, who, controller, source) = match &r.source {
        RowSource::Reconcile(c) => ("reconcile", c.to_string(), Some(*c), None),
        RowSource::Event(s) => ("k8s", s.to_string(), None, Some(s.clone())),
    };
    let obj = if r.namespace.is_empty() || &*r.namespace == "default" {
        r.object.clone()
    } else {
        format!("{}/{}", r.namespace, r.object)
    };
    html! {
        <li class={classes!("ev", kind_class, r.warning.then_some("warn"))}
            data-testid="event" data-controller={controller} data-source={source} data-reason={r.reason.clone()}>
            <span class="ev-time" title={crate::format::fmt_secs(r.at)}>{ fmt_clock(r.at) }</span>
            <span class="ev-kind" title={if kind_class == "k8s" { "Kubernetes Event" } else { "reconcile" }}>
                { if kind_class == "k8s" { "E" } else { "⟳" } }
            </span>
            <span class="ev-who">{ who }</span>
            <span class="ev-reason">{ r.reason.to_string() }{ if r.count > 1 { format!(" ×{}", r.count) } else { String::new() } }</span>
            <span class="ev-obj" title={obj.clone()}>{ obj }</span>
            <span class="ev-msg">{ r.message.clone() }</span>
        </li>
    }
}

/// The filter's choices: the engine's controllers, then the other writers of rows (the kubelets' Events, the
/// controller manager's own `LeaderElection`).
fn filter_choices() -> impl Iterator<Item = &'static str> {
    CONTROLLERS.iter().map(|(name, _)| *name).chain(["kubelet", "kube-controller-manager"])
}

#[component]
pub fn EventStream(props: &StreamProps) -> Html {
    let controller = use_state(String::new);
    {
        let controller = controller.clone();
        use_effect_with(props.suggest, move |s| controller.set(s.unwrap_or_default().to_string()));
    }
    let object = use_state(String::new);
    let show_reconciles = use_state(|| true);
    let show_events = use_state(|| true);
    let on_controller = {
        let controller = controller.clone();
        Callback::from(move |e: Event| controller.set(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value()))
    };
    let on_object = {
        let object = object.clone();
        Callback::from(move |e: InputEvent| object.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value()))
    };
    let toggle = |h: &UseStateHandle<bool>| {
        let h = h.clone();
        Callback::from(move |_: Event| h.set(!*h))
    };
    let needle = object.trim().to_ascii_lowercase();
    let rows: Vec<&Rc<EventRow>> = props
        .events
        .rows
        .iter()
        .filter(|r| match r.source {
            RowSource::Reconcile(_) => *show_reconciles,
            RowSource::Event(_) => *show_events,
        })
        .filter(|r| controller.is_empty() || *r.controller == **controller)
        .filter(|r| needle.is_empty() || r.object.to_ascii_lowercase().contains(&needle))
        .take(SHOWN)
        .collect();
    let total = props.events.rows.len();
    html! {
        <section class="panel events-panel" aria-label="Event stream">
            <div class="panel-head">
                <h2>{ "Events" }</h2>
                <select data-testid="event-filter-controller" aria-label="Filter by controller" onchange={on_controller}>
                    <option value="" selected={controller.is_empty()}>{ "all controllers" }</option>
                    { for filter_choices().map(|c| html! {
                        <option key={c} value={c} selected={**controller == *c}>{ c }</option>
                    }) }
                </select>
                <input type="search" data-testid="event-filter-object" placeholder="object, e.g. web"
                    aria-label="Filter by object" value={(*object).clone()} oninput={on_object} />
            </div>
            <div class="ev-toggles">
                <label><input type="checkbox" checked={*show_reconciles} onchange={toggle(&show_reconciles)} />{ "⟳ reconciles" }</label>
                <label><input type="checkbox" checked={*show_events} onchange={toggle(&show_events)} />{ "E Kubernetes Events" }</label>
                <span class="muted">{ format!("{} of last {total}", rows.len()) }</span>
            </div>
            // Rows by position, not keyed by id: as new rows push the list down, each row's elements are kept and
            // given the row now at its place (a keyed list removed and created every element of the rows that
            // scrolled through: at 100x, some 150 rows a snapshot and the page's whole style recalculated).
            <ol class="events" aria-live="off">
                { for rows.into_iter().map(|r| row(r)) }
            </ol>
        </section>
    }
}
