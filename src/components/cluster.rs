//! The cluster, kube-ops-view style: a card per node with its resource bars, taints and pods, an area for pods no
//! node was found for, and a detail panel for the selected pod or node. Large clusters are drawn on a canvas.

use std::rc::Rc;

use kubeloop_engine::api::ObjKey;
use yew::prelude::*;

use crate::cmd::Cmd;
use crate::components::cluster_canvas::ClusterCanvas;
use crate::components::detail::{detail_panel, DetailProps};
use crate::format::{fmt_cpu, fmt_mem};
use crate::view::{
    ClusterView, CountsView, Detail, NodeView, PodView, SearchView, Selection, ServiceView, DOM_MAX_NODES, DOM_MAX_PODS,
};

#[derive(Properties, PartialEq)]
pub struct ClusterProps {
    pub cluster: ClusterView,
    pub services: Rc<Vec<ServiceView>>,
    pub summary: CountsView,
    pub selection: Selection,
    pub detail: Option<Rc<Detail>>,
    pub search: Option<Rc<SearchView>>,
    pub on_cmd: Callback<Cmd>,
}

/// The pod and node counts (a plain function: it changes with every frame, so a component would not save work).
fn summary_bar(s: CountsView, addons: Option<Html>) -> Html {
    html! {
        <div class="summary" aria-label="Cluster summary">
            <span class="stat running" title="Pods Running (not terminating)">
                <span class="k">{ "running" }</span>
                <b data-testid="summary-pods-running">{ s.running }</b>
                { for addons }
            </span>
            <span class="stat pending" title="Pods Pending">
                <span class="k">{ "pending" }</span>
                <b data-testid="summary-pods-pending">{ s.pending }</b>
            </span>
            <span class="stat terminating" title="Pods being deleted">
                <span class="k">{ "terminating" }</span>
                <b data-testid="summary-pods-terminating">{ s.terminating }</b>
            </span>
            <span class="stat st-nodes" title="Nodes whose Ready condition is True, out of all nodes">
                <span class="k">{ "nodes ready" }</span>
                <b><span data-testid="summary-nodes-ready">{ s.nodes_ready }</span>{ format!("/{}", s.nodes) }</b>
            </span>
        </div>
    }
}

/// kube-system's add-on pods: left out of the view and the counts unless shown; a small toggle by the running
/// count says how many (none when the cluster has no add-ons).
fn addons_toggle(s: &CountsView, on_cmd: &Callback<Cmd>) -> Option<Html> {
    let shown = s.addons_shown;
    if !shown && s.hidden == 0 {
        return None;
    }
    let toggle = on_cmd.reform(move |_: MouseEvent| Cmd::ShowAddons(!shown));
    let (label, title) = if shown {
        ("−".to_string(), "kube-system's add-on pods (kube-proxy, kindnet, CoreDNS) are drawn and counted: click to leave them out, as `kubectl get pods` does".to_string())
    } else {
        (format!("+{}", s.hidden), format!("{} pods of kube-system's add-ons (kube-proxy and kindnet on every node, CoreDNS's two) run and take their room on the nodes, but are left out of this view and these counts, as `kubectl get pods` leaves kube-system out: click to show them", s.hidden))
    };
    Some(html! {
        <button type="button" class="addons-toggle" data-testid="cluster-show-addons" aria-pressed={shown.to_string()}
            aria-label="Show kube-system's add-on pods" onclick={toggle} {title}>{ label }</button>
    })
}

/// A node's requested share of one resource.
fn bar(label: &'static str, used: i64, total: i64, text: String) -> Html {
    let pct = if total > 0 { (used as f64 * 100.0 / total as f64).clamp(0.0, 100.0) } else { 0.0 };
    let level = if pct >= 90.0 {
        "hot"
    } else if pct >= 70.0 {
        "warm"
    } else {
        "cool"
    };
    html! {
        <div class="bar" title={format!("{label} requested: {text}")}>
            <span class="bar-label">{ label }</span>
            // An SVG rectangle's width is an attribute, not an inline style: the page's Content-Security-Policy
            // allows no inline styles.
            <svg class="bar-track" role="meter" aria-label={label} aria-valuemin="0" aria-valuemax="100"
                aria-valuenow={format!("{pct:.0}")} viewBox="0 0 100 7" preserveAspectRatio="none">
                <rect class={classes!("bar-fill", level)} width={format!("{pct:.1}")} height="7" />
            </svg>
            <span class="bar-text">{ text }</span>
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct PodChipProps {
    pod: PodView,
    selected: bool,
    on_cmd: Callback<Cmd>,
}

#[component]
fn PodChip(props: &PodChipProps) -> Html {
    let p = &props.pod;
    let phase = p.phase.as_str();
    let onclick = {
        let key = p.key.clone();
        let selected = props.selected;
        props.on_cmd.reform(move |e: MouseEvent| {
            e.stop_propagation();
            Cmd::Select(if selected { Selection::None } else { Selection::Pod(key.clone()) })
        })
    };
    let mut state = if p.terminating { format!("{phase}, Terminating") } else { phase.to_string() };
    if p.phase == kubeloop_engine::api::PodPhase::Running && !p.ready {
        state.push_str(", not ready");
    }
    if p.restarts > 0 {
        state.push_str(&format!(", {} restart(s)", p.restarts));
    }
    let title = format!(
        "pod/{}{} · {state}{}",
        p.key.name,
        if p.daemon { " (DaemonSet)" } else { "" },
        if p.node.is_empty() { " · unscheduled".to_string() } else { format!(" · {}", p.node) }
    );
    html! {
        <button
            class={classes!(
                "pod",
                format!("ph-{}", phase.to_ascii_lowercase()),
                p.terminating.then_some("term"),
                (!p.ready && p.phase == kubeloop_engine::api::PodPhase::Running).then_some("unready"),
                props.selected.then_some("sel"),
                p.daemon.then_some("daemon"),
            )}
            data-testid="pod"
            data-daemon={if p.daemon { "true" } else { "false" }}
            data-name={p.key.name.clone()}
            data-namespace={p.key.namespace.clone()}
            data-phase={phase}
            data-ready={if p.ready { "true" } else { "false" }}
            data-restarts={p.restarts.to_string()}
            data-terminating={if p.terminating { "true" } else { "false" }}
            data-node={p.node.clone()}
            aria-label={title.clone()}
            aria-pressed={if props.selected { "true" } else { "false" }}
            {title}
            {onclick}
        >
            <span class="glyph" aria-hidden="true">{ p.glyph() }</span>
            if p.restarts > 0 {
                <span class="restarts" aria-hidden="true">{ p.restarts.min(99) }</span>
            }
        </button>
    }
}

#[derive(Properties)]
struct NodeCardProps {
    node: Rc<NodeView>,
    selected: bool,
    /// The selected pod, when it is on this node.
    selected_pod: Option<ObjKey>,
    on_cmd: Callback<Cmd>,
}

impl PartialEq for NodeCardProps {
    fn eq(&self, o: &Self) -> bool {
        Rc::ptr_eq(&self.node, &o.node)
            && self.selected == o.selected
            && self.selected_pod == o.selected_pod
            && self.on_cmd == o.on_cmd
    }
}

#[component]
fn NodeCard(props: &NodeCardProps) -> Html {
    let n = &props.node;
    let name = n.name.to_string();
    let select = {
        let name = n.name.clone();
        let selected = props.selected;
        props.on_cmd.reform(move |_: MouseEvent| {
            Cmd::Select(if selected { Selection::None } else { Selection::Node(name.clone()) })
        })
    };
    let select_key = {
        let name = n.name.clone();
        let on_cmd = props.on_cmd.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" || e.key() == " " {
                e.prevent_default();
                on_cmd.emit(Cmd::Select(Selection::Node(name.clone())));
            }
        })
    };
    let stop = |cmd: Cmd, on_cmd: &Callback<Cmd>| {
        on_cmd.reform(move |e: MouseEvent| {
            e.stop_propagation();
            cmd.clone()
        })
    };
    let kill = stop(Cmd::kill_node(&name), &props.on_cmd);
    let revive = stop(Cmd::revive_node(&name), &props.on_cmd);
    let cordon = stop(Cmd::cordon(&name, !n.unschedulable), &props.on_cmd);
    let ready_icon = match n.ready.attr() {
        "true" => "✓",
        "false" => "✕",
        _ => "?",
    };
    html! {
        <article
            class={classes!(
                "node",
                format!("ready-{}", n.ready.attr()),
                (!n.alive).then_some("dead"),
                n.unschedulable.then_some("cordoned"),
                props.selected.then_some("sel"),
            )}
            data-testid="node"
            data-name={n.name.clone()}
            data-ready={n.ready.attr()}
            data-alive={if n.alive { "true" } else { "false" }}
            data-unschedulable={if n.unschedulable { "true" } else { "false" }}
            aria-label={format!("node {name}")}
        >
            <header class="node-head" role="button" tabindex="0" aria-pressed={if props.selected { "true" } else { "false" }}
                title="Show the node's details" onclick={select} onkeydown={select_key}>
                <span class="node-name">{ name.clone() }</span>
                <span class={classes!("badge", format!("b-ready-{}", n.ready.attr()))}
                    title="The Ready condition as the control plane sees it">
                    { format!("{ready_icon} {}", n.ready.label()) }
                </span>
                if !n.alive {
                    <span class="badge b-dead" title="The kubelet is stopped: no heartbeats, no status, no pod work">{ "☠ kubelet down" }</span>
                }
                if n.unschedulable {
                    <span class="badge b-cordon" title="spec.unschedulable: the scheduler places no new pods here">{ "⊘ cordoned" }</span>
                }
            </header>
            <div class="bars">
                { bar("cpu", n.cpu_req, n.cpu_alloc, format!("{} / {}", fmt_cpu(n.cpu_req), fmt_cpu(n.cpu_alloc))) }
                { bar("mem", n.mem_req, n.mem_alloc, format!("{} / {}", fmt_mem(n.mem_req), fmt_mem(n.mem_alloc))) }
            </div>
            if !n.taints.is_empty() || !n.labels.is_empty() {
                <div class="node-tags">
                    { for n.taints.iter().map(|t| {
                        // The node lifecycle controller's taints (unreachable / not-ready) stand out.
                        let lifecycle = t.starts_with("node.kubernetes.io/unreachable") || t.starts_with("node.kubernetes.io/not-ready");
                        let title = if lifecycle { "taint set by the node lifecycle controller: pods that do not tolerate it are evicted after their toleration" } else { "taint" };
                        let shown = t.strip_prefix("node.kubernetes.io/").unwrap_or(t);
                        html! { <span class={classes!("tag", "taint", lifecycle.then_some("lifecycle"))} data-testid="node-taint" data-taint={t.clone()} title={format!("{t}: {title}")}>{ format!("⚠ {shown}") }</span> }
                    }) }
                    { for n.labels.iter().map(|l| html! { <span class="tag label" title="label">{ l.clone() }</span> }) }
                </div>
            }
            <div class="pods" aria-label={format!("{} pods on {name}", n.pods.len())}>
                { for n.pods.iter().map(|p| {
                    let selected = props.selected_pod.as_ref() == Some(&p.key);
                    html! { <PodChip key={p.uid.to_string()} pod={p.clone()} {selected} on_cmd={props.on_cmd.clone()} /> }
                }) }
                if n.pods.is_empty() {
                    <span class="empty">{ "no pods" }</span>
                }
                <span class="pod-count">{ format!("{}/{}", n.pods.len(), n.pods_alloc) }</span>
            </div>
            <footer class="node-actions">
                <button data-testid="node-kill" class="btn small danger" disabled={!n.alive} onclick={kill}
                    title="Stop this node's kubelet (no more heartbeats or status)">{ "Kill" }</button>
                <button data-testid="node-revive" class="btn small" disabled={n.alive} onclick={revive}
                    title="Start the kubelet again">{ "Revive" }</button>
                <button data-testid="node-cordon" class="btn small" onclick={cordon}
                    title="Patch spec.unschedulable">{ if n.unschedulable { "Uncordon" } else { "Cordon" } }</button>
            </footer>
        </article>
    }
}

/// The arguments of its view function (not a component's props: nothing compares them).
struct UnscheduledProps {
    pods: Rc<Vec<PodView>>,
    selected: Option<ObjKey>,
    on_cmd: Callback<Cmd>,
}

fn unscheduled_pods(props: &UnscheduledProps) -> Html {
    html! {
        <section class={classes!("unscheduled", props.pods.is_empty().then_some("none"))} data-testid="unscheduled"
            aria-label="Unscheduled pods">
            <h3>{ format!("Unscheduled ({})", props.pods.len()) }</h3>
            <div class="pods">
                { for props.pods.iter().map(|p| {
                    let selected = props.selected.as_ref() == Some(&p.key);
                    html! { <PodChip key={p.uid.to_string()} pod={p.clone()} {selected} on_cmd={props.on_cmd.clone()} /> }
                }) }
                if props.pods.is_empty() {
                    <span class="empty">{ "every pod has a node" }</span>
                }
            </div>
        </section>
    }
}

/// What the pod chips' colours and letters mean.
fn legend() -> Html {
    html! {
        <div class="legend" aria-label="Legend">
            <span><span class="pod ph-running demo"><span class="glyph">{ "R" }</span></span>{ "Running" }</span>
            <span><span class="pod ph-pending demo"><span class="glyph">{ "P" }</span></span>{ "Pending" }</span>
            <span title="A terminating pod is drawn striped"><span class="pod ph-running term demo"><span class="glyph">{ "R" }</span></span>{ "Terminating" }</span>
            <span><span class="pod ph-failed demo"><span class="glyph">{ "F" }</span></span>{ "Failed" }</span>
            <span><span class="pod ph-succeeded demo"><span class="glyph">{ "S" }</span></span>{ "Succeeded" }</span>
            <span><span class="pod ph-unknown demo"><span class="glyph">{ "?" }</span></span>{ "Unknown" }</span>
        </div>
    }
}

/// The Services and the pods behind their ready endpoints now (a pod that turns not ready leaves the list).
fn services_panel(services: &[ServiceView]) -> Html {
    if services.is_empty() {
        return html! {};
    }
    html! {
        <section class="services" aria-label="Services">
            <h3>{ "Services" }</h3>
            <ul class="plain svc-list">
                { for services.iter().map(|v| {
                    let ns = if &*v.key.namespace == "default" { String::new() } else { format!("{}/", v.key.namespace) };
                    let more = v.ready.saturating_sub(v.ready_pods.len());
                    let not = if v.not_ready > 0 { format!(", {} not ready or terminating", v.not_ready) } else { String::new() };
                    let title = format!("svc/{ns}{} · {} {} · {} ready endpoint(s){not}", v.key.name, v.type_, v.cluster_ip, v.ready);
                    let mut pods: Vec<&str> = v.ready_pods.iter().map(|p| &**p).collect();
                    let more = if more > 0 { format!(" +{more}") } else { String::new() };
                    if pods.is_empty() {
                        pods.push("no ready pods");
                    }
                    html! {
                        <li class={classes!("svc", (v.ready == 0).then_some("empty"))} data-testid="service"
                            data-name={v.key.name.to_string()} data-namespace={v.key.namespace.to_string()}
                            data-endpoints={v.ready.to_string()} {title}>
                            <b>{ format!("svc/{ns}{}", v.key.name) }</b>
                            { format!(" {} ready{} · ", v.ready, if v.not_ready > 0 { format!(", {} not", v.not_ready) } else { String::new() }) }
                            <span class="svc-pods">{ format!("{}{more}", pods.join("  ")) }</span>
                        </li>
                    }
                }) }
            </ul>
        </section>
    }
}

/// The value of the input of `form` called `name` (empty when it has none).
fn form_value(form: &web_sys::Element, name: &str) -> String {
    use wasm_bindgen::JsCast;
    let input = form.query_selector(&format!("[name={name}]")).ok().flatten();
    input.and_then(|i| i.dyn_into::<web_sys::HtmlInputElement>().ok()).map(|i| i.value()).unwrap_or_default()
}

/// Whether the form's checkbox of that name is ticked.
fn form_checked(form: &web_sys::Element, name: &str) -> bool {
    use wasm_bindgen::JsCast;
    let input = form.query_selector(&format!("[name={name}]")).ok().flatten();
    input.and_then(|i| i.dyn_into::<web_sys::HtmlInputElement>().ok()).is_some_and(|i| i.checked())
}

/// Search the cluster by name (at any size): Enter selects the node or pod of that name, or lists the matches. A
/// plain function, as the size control (a component costs about 2 KiB of yew's code): the submitted form is read.
fn search(found: &Option<Rc<SearchView>>, on_cmd: &Callback<Cmd>) -> Html {
    let submit = on_cmd.reform(|e: SubmitEvent| {
        e.prevent_default();
        Cmd::Find(form_value(&e.target_unchecked_into(), "q"))
    });
    let result = found.as_ref().map(|s| {
        let said = match (s.exact, s.total) {
            (true, _) => "found:".to_string(),
            (false, 0) => format!("no node or pod named or containing \"{}\"", s.query),
            (false, n) if n > s.found.len() => format!("{n} match \"{}\", the first {}:", s.query, s.found.len()),
            (false, n) => format!("{n} match \"{}\":", s.query),
        };
        html! {
            <div class="search-result" data-testid="cluster-search-result" data-total={s.total.to_string()}>
                <span>{ said }</span>
                { for s.found.iter().map(|f| {
                    let (kind, name) = match f {
                        Selection::Node(n) => ("node", n.to_string()),
                        Selection::Pod(k) => ("pod", k.name.to_string()),
                        Selection::None => ("", String::new()),
                    };
                    let pick = { let f = f.clone(); on_cmd.reform(move |_: MouseEvent| Cmd::Select(f.clone())) };
                    html! {
                        <button type="button" class="btn small" data-testid="cluster-search-match" data-kind={kind}
                            data-name={name.clone()} onclick={pick}>{ format!("{kind}/{name}") }</button>
                    }
                }) }
            </div>
        }
    });
    html! {
        <>
            <form class="cluster-search" onsubmit={submit} role="search">
                <input name="q" type="search" data-testid="cluster-search" placeholder="find a node or pod by name"
                    aria-label="Find a node or pod by name (Enter)" />
            </form>
            { for result }
        </>
    }
}

/// The size control: a new run (same seed) of N nodes of the default shape and P pods in kubeloop's own demo
/// Deployments, so that nobody adds a thousand nodes by hand.
fn size_control(on_cmd: &Callback<Cmd>) -> Html {
    let submit = on_cmd.reform(|e: SubmitEvent| {
        e.prevent_default();
        let form = e.target_unchecked_into();
        let (n, p) = (form_value(&form, "nodes"), form_value(&form, "pods"));
        let addons = form_checked(&form, "addons");
        match (n.trim().parse(), p.trim().parse()) {
            (Ok(nodes), Ok(pods)) => Cmd::NewCluster { nodes, pods, addons },
            _ => Cmd::Notice(format!("No new run: {n:?} nodes and {p:?} pods are not two whole numbers.")),
        }
    });
    html! {
        <form class="size-control" onsubmit={submit}
            title="A new run with the same seed: this many nodes of the default shape, and this many pods in kubeloop's own demo Deployments (100 pods each, 10m CPU and 16Mi requested, as `kubeloop bench` makes them). The run shown is discarded.">
            <input name="nodes" type="number" min="1" max="5000" value="1000" aria-label="Nodes of the new run"
                data-testid="cluster-size-nodes" />
            <span>{ "nodes" }</span>
            <input name="pods" type="number" min="0" max="150000" value="30000" aria-label="Pods of the new run (kubeloop's own demo Deployments)"
                data-testid="cluster-size-pods" />
            <span>{ "demo pods" }</span>
            <label title="kube-system's add-ons, as kubeadm and kind install them: kube-proxy and kindnet on every node (DaemonSets), CoreDNS (a Deployment of 2) and its kube-dns Service. Off: a cluster with nothing in kube-system.">
                <input name="addons" type="checkbox" checked=true data-testid="cluster-addons" />
                { "kube-system" }
            </label>
            <button class="btn small" type="submit" data-testid="cluster-size-start">{ "New run" }</button>
        </form>
    }
}

#[component]
pub fn Cluster(props: &ClusterProps) -> Html {
    let tools_open = use_state(|| None::<bool>);
    let add = props.on_cmd.reform(|_: MouseEvent| Cmd::add_node());
    let (sel_node, sel_pod) = match &props.selection {
        Selection::Node(n) => (Some(n.clone()), None),
        Selection::Pod(k) => (None, Some(k.clone())),
        Selection::None => (None, None),
    };
    // On the canvas a selected pod shows as its node.
    let canvas_sel = sel_node.clone().or_else(|| match props.detail.as_deref() {
        Some(Detail::Pod(d)) if !d.node.is_empty() => Some(d.node.clone()),
        _ => None,
    });
    let body = match &props.cluster {
        ClusterView::Dom { nodes, unscheduled } => {
            let sel_pod_node = sel_pod
                .as_ref()
                .and_then(|k| nodes.iter().find(|n| n.pods.iter().any(|p| &p.key == k)).map(|n| n.name.clone()));
            html! {
                <>
                    <div class="nodes">
                        { for nodes.iter().map(|n| {
                            let selected = sel_node.as_ref() == Some(&n.name);
                            let selected_pod = if sel_pod_node.as_ref() == Some(&n.name) { sel_pod.clone() } else { None };
                            html! {
                                <NodeCard key={n.name.to_string()} node={n.clone()} {selected} {selected_pod}
                                    on_cmd={props.on_cmd.clone()} />
                            }
                        }) }
                    </div>
                    { unscheduled_pods(&UnscheduledProps { pods: unscheduled.clone(), selected: sel_pod.clone(), on_cmd: props.on_cmd.clone() }) }
                </>
            }
        }
        ClusterView::Compact(c) => html! {
            <>
                <p class="compact-note">
                    { format!("{} nodes, {} pods: drawn compactly (more than {DOM_MAX_NODES} nodes or {DOM_MAX_PODS} pods). Click a node for its details.",
                        c.nodes.len(), props.summary.pods) }
                </p>
                <ClusterCanvas compact={c.clone()} selected={canvas_sel} on_cmd={props.on_cmd.clone()} />
                <section class="unscheduled" data-testid="unscheduled">
                    <h3>{ format!("Unscheduled ({})", c.unscheduled) }</h3>
                </section>
            </>
        },
    };
    // Escape closes the detail panel from anywhere in the cluster: the pod or node just clicked (which keeps the
    // focus) as well as the panel itself.
    let close_on_escape = {
        let (on_cmd, open) = (props.on_cmd.clone(), props.detail.is_some());
        Callback::from(move |e: KeyboardEvent| {
            if open && e.key() == "Escape" {
                on_cmd.emit(Cmd::Select(Selection::None));
            }
        })
    };
    // Search and the size control: a row of their own, open by default once the cluster is drawn compactly (where
    // no node card is to be kept in sight), else behind the toggle, which keeps a row of cards in sight on a small
    // screen; the person's choice stands.
    let open = tools_open.unwrap_or(matches!(props.cluster, ClusterView::Compact(_)) || props.search.is_some());
    let toggle = {
        let tools_open = tools_open.clone();
        Callback::from(move |_: MouseEvent| tools_open.set(Some(!open)))
    };
    html! {
        <section class="panel cluster-panel" aria-label="Cluster">
            <div class="panel-head">
                <h2>{ "Cluster" }</h2>
                { summary_bar(props.summary, addons_toggle(&props.summary, &props.on_cmd)) }
                <button data-testid="add-node" class="btn small" onclick={add} title="Add one more node like the others">
                    { "+ Add node" }
                </button>
            </div>
            <div class="cluster-subhead">
                { legend() }
                <button type="button" class="btn small tools-toggle" data-testid="cluster-tools-toggle" aria-expanded={open.to_string()}
                    onclick={toggle} title="Find a node or pod by name, and start a new run of N nodes and P pods">
                    { if open { "Find ▴" } else { "Find ▾" } }
                </button>
            </div>
            if open {
                <div class="cluster-tools">
                    { search(&props.search, &props.on_cmd) }
                    { size_control(&props.on_cmd) }
                </div>
            }
            <div class={classes!("cluster-main", props.detail.is_some().then_some("docked"))} onkeydown={close_on_escape}>
                <div class="cluster-body">
                    { services_panel(&props.services) }
                    { body }
                </div>
                if let Some(d) = &props.detail {
                    { detail_panel(&DetailProps { detail: d.clone(), on_cmd: props.on_cmd.clone() }) }
                }
            </div>
        </section>
    }
}
